// SPDX-License-Identifier: BSD-3-Clause
/*
 * rawwrite.c - a user-space model of the kernel module's trace buffer that
 * writes a raw trace file (docs/spec/FORMATS.md 2, 3.2-3.6).
 *
 * It exists so that test and benchmark traces are produced by the same
 * rules a real module follows (claiming, block switching, fusion, TSDELTA,
 * wraparound, side bytes) instead of by ad-hoc byte pushing: a reader that
 * handles these files handles the module's output.  Blocks are written to
 * the file when they fill up (pwrite at their allocation slot), so memory
 * is one block per CPU whatever the trace size.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "raw.h"
#include "rawwrite.h"

struct rw_cpu {
	uint64_t w[KUTRACE_BLOCK_WORDS];
	uint8_t side[KUTRACE_SIDE_BYTES];
	long slot;		/* file block index, -1 = no block yet */
	int next;		/* next free word */
	int first;		/* first entry word */
	uint64_t prior;		/* full time of the previous entry, 0 none */
	uint32_t pid;
	char comm[KUTRACE_HDR_COMM_BYTES];
};

/* Who holds each file slot now (wraparound overwrites slots 1..N-1). */
struct rw_slot {
	int cpu;
	uint64_t ctr;
	uint32_t pid;
};

struct kt_rw {
	struct kt_rw_options o;
	int fd;
	const char *path;
	char err[256];		/* the first write error, "" if none */
	struct rw_cpu *cpu;
	struct rw_slot *slots;
	long nslots, cap;
	long allocs;		/* blocks allocated so far */
	long wraps;
	uint32_t rng;
	uint64_t stop_ctr, stop_usec;
};

static long stride(const struct kt_rw *w)
{
	return KUTRACE_BLOCK_BYTES + (w->o.ipc ? KUTRACE_SIDE_BYTES : 0);
}

static void put(struct kt_rw *w, const void *p, size_t n, off_t off)
{
	const char *c = p;

	while (n > 0 && !w->err[0]) {
		ssize_t k = pwrite(w->fd, c, n, off);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			snprintf(w->err, sizeof(w->err), "%s: write: %s", w->path,
				 strerror(k < 0 ? errno : ENOSPC));
			return;
		}
		c += k;
		n -= (size_t)k;
		off += k;
	}
}

struct kt_rw *kt_rw_create(const char *path, const struct kt_rw_options *o,
			   char *err, size_t errlen)
{
	struct kt_rw *w;

	if (o->ncpu < 1 || o->ncpu > 255) {
		snprintf(err, errlen, "rawwrite: bad CPU count %d", o->ncpu);
		return NULL;
	}
	if (o->wrap && o->wrap_blocks < o->ncpu + 2) {
		snprintf(err, errlen, "rawwrite: a wraparound buffer needs >= CPUs + 2 blocks");
		return NULL;
	}
	w = kt_xcalloc(1, sizeof(*w));
	w->o = *o;
	w->path = path;
	w->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (w->fd < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		free(w);
		return NULL;
	}
	w->cpu = kt_xcalloc((size_t)w->o.ncpu, sizeof(*w->cpu));
	for (int c = 0; c < w->o.ncpu; c++)
		w->cpu[c].slot = -1;
	w->rng = o->seed * 2654435761u + 1;
	return w;
}

void kt_rw_set_task(struct kt_rw *w, int cpu, uint32_t pid, const char *comm)
{
	struct rw_cpu *c = &w->cpu[cpu];

	c->pid = pid;
	memset(c->comm, 0, sizeof(c->comm));
	memcpy(c->comm, comm, strnlen(comm, sizeof(c->comm)));
}

/* usec for a counter value, as the dump program computes word 1. */
static uint64_t usec_of(const struct kt_rw *w, uint64_t ctr)
{
	return w->o.start_usec +
	       (uint64_t)(int64_t)((double)(int64_t)(ctr - w->o.start_ctr) /
				   w->o.ticks_per_usec);
}

static void flush_block(struct kt_rw *w, struct rw_cpu *c)
{
	if (c->slot < 0)
		return;
	uint64_t ctr = c->w[KUTRACE_HDR_CPU_TIME] & KUTRACE_HDR_LOW56;
	uint64_t flags = (w->o.ipc ? KUTRACE_FLAG_IPC : 0) |
			 (w->o.wrap ? KUTRACE_FLAG_WRAP : 0);

	if (c->slot == 0)	/* version in block 0; WRAP fixed at close */
		flags = (flags & ~(uint64_t)KUTRACE_FLAG_WRAP) |
			KUTRACE_FILE_VERSION;
	c->w[KUTRACE_HDR_FLAGS_USEC] = flags << KUTRACE_HDR_FLAGS_SHIFT |
				       (usec_of(w, ctr) & KUTRACE_HDR_LOW56);
	off_t off = (off_t)c->slot * stride(w);

	put(w, c->w, sizeof(c->w), off);
	if (w->o.ipc)
		put(w, c->side, sizeof(c->side), off + KUTRACE_BLOCK_BYTES);
}

/* The module's block switch (docs/spec/FORMATS.md 3.3) for a claim at `now`. */
static void new_block(struct kt_rw *w, int cpu, uint64_t now)
{
	struct rw_cpu *c = &w->cpu[cpu];
	long slot = w->allocs;

	flush_block(w, c);
	if (w->o.wrap && slot >= w->o.wrap_blocks) {
		/* Block 0 (the names) is never overwritten. */
		slot = 1 + (slot - 1) % (w->o.wrap_blocks - 1);
		if (slot == 1)
			w->wraps++;
	}
	w->allocs++;
	/*
	 * A CPU that still fills the block being reused loses it: a real
	 * module with a buffer this small would scribble over the new
	 * owner's entries; dropping them keeps the file well formed.
	 */
	for (int d = 0; d < w->o.ncpu; d++)
		if (d != cpu && w->cpu[d].slot == slot)
			w->cpu[d].slot = -1;
	if (slot >= w->cap) {
		w->cap = w->cap ? 2 * w->cap : 64;
		w->slots = kt_xrealloc(w->slots, (size_t)w->cap * sizeof(*w->slots));
	}
	if (slot >= w->nslots)
		w->nslots = slot + 1;
	/*
	 * The header counter is read during block setup, a little after the
	 * `now` the entry was stamped with, as in the module.
	 */
	w->rng = w->rng * 1103515245u + 12345u;
	uint64_t ctr = now + ((w->rng >> 16) % 16);

	memset(c->w, 0, sizeof(c->w));
	memset(c->side, 0, sizeof(c->side));
	c->w[KUTRACE_HDR_CPU_TIME] = (uint64_t)cpu << KUTRACE_HDR_CPU_SHIFT |
				     (ctr & KUTRACE_HDR_LOW56);
	int pidw = slot == 0 ? KUTRACE_HDR0_PID : KUTRACE_HDRN_PID;

	c->w[pidw] = c->pid;
	memcpy(&c->w[pidw + 2], c->comm, KUTRACE_HDR_COMM_BYTES);
	c->first = slot == 0 ? KUTRACE_HDR0_WORDS : KUTRACE_HDRN_WORDS;
	c->next = c->first;
	c->slot = slot;
	w->slots[slot] = (struct rw_slot){ cpu, ctr, c->pid };
}

/*
 * Claim len words (plus TSDELTA prefixes when the gap since this CPU's
 * previous entry is too long for the 20-bit field) and return the index
 * of the entry's first word.
 */
static int claim(struct kt_rw *w, int cpu, uint64_t now, int len)
{
	struct rw_cpu *c = &w->cpu[cpu];
	int ntsd = 0, force = 0;
	uint64_t gap = 0;

	if (c->prior != 0 && now > c->prior &&
	    now - c->prior > KUTRACE_TSDELTA_THRESHOLD) {
		gap = now - c->prior;
		ntsd = (int)((gap + KUTRACE_TSDELTA_MAX_STEP - 1) /
			     KUTRACE_TSDELTA_MAX_STEP);
		/* the module's rule: more than 8 words of gap, a new block */
		if (ntsd > KUTRACE_MAX_ENTRY_WORDS)
			force = 1;
	}
	if (c->slot < 0 || force || c->next + ntsd + len >= KUTRACE_BLOCK_WORDS) {
		new_block(w, cpu, now);
		ntsd = 0;	/* the new block's header has the full time */
	}
	uint64_t ts = (now & KUTRACE_TS_MASK) << KUTRACE_TS_SHIFT;

	/* Chained TSDELTAs: all but the last carry the maximum step. */
	for (int i = 0; i < ntsd; i++) {
		uint64_t d = i + 1 < ntsd ? KUTRACE_TSDELTA_MAX_STEP :
			     gap - (uint64_t)(ntsd - 1) * KUTRACE_TSDELTA_MAX_STEP;

		c->w[c->next++] = ts | kutrace_make_word(KUTRACE_TSDELTA, d);
	}
	c->prior = now;
	int at = c->next;

	c->next += len;
	return at;
}

int kt_rw_trace1(struct kt_rw *w, int cpu, uint64_t now, unsigned int event,
		 uint64_t arg, unsigned int ipc)
{
	struct rw_cpu *c = &w->cpu[cpu];
	/* A return keeps 16 bits of its value, fused or not, as in the core. */
	uint64_t word = kutrace_make_word(event, kutrace_is_return(event) ?
					  arg & KUTRACE_ARG0_MASK : arg);

	if (kutrace_is_return(event) && ((arg + 128) & ~0xFFULL) == 0 &&
	    c->slot >= 0 && c->next > c->first) {
		uint64_t *prev = &c->w[c->next - 1];
		uint64_t delta = (now - kutrace_word_ts(*prev)) & KUTRACE_TS_MASK;

		if (((*prev ^ word) & KUTRACE_FUSE_CMP_MASK) ==
		    KUTRACE_FUSE_RET_BIT && delta <= KUTRACE_FUSE_MAX_DELTA) {
			if (delta == 0)
				delta = 1;
			*prev |= delta << KUTRACE_DELTA_SHIFT |
				 (arg & KUTRACE_RETVAL_MASK) << KUTRACE_RETVAL_SHIFT;
			c->side[c->next - 1] |= (uint8_t)((ipc & 0xF) << 4);
			return 1;	/* fusion leaves prior alone */
		}
	}
	int at = claim(w, cpu, now, 1);

	c->w[at] = (now & KUTRACE_TS_MASK) << KUTRACE_TS_SHIFT | word;
	c->side[at] = (uint8_t)(ipc & 0xF);
	return 0;
}

void kt_rw_trace2(struct kt_rw *w, int cpu, uint64_t now, unsigned int event,
		  uint32_t mhz, uint64_t pc)
{
	struct rw_cpu *c = &w->cpu[cpu];
	int at = claim(w, cpu, now, 2);

	c->w[at] = (now & KUTRACE_TS_MASK) << KUTRACE_TS_SHIFT |
		   kutrace_make_word(event, mhz);
	c->w[at + 1] = pc;
}

void kt_rw_name(struct kt_rw *w, int cpu, uint64_t now, unsigned int type,
		uint32_t arg, const char *name)
{
	struct rw_cpu *c = &w->cpu[cpu];
	size_t n = strlen(name);

	if (n == 0)
		return;
	if (n > KUTRACE_NAME_MAX)
		n = KUTRACE_NAME_MAX;
	int len = 1 + (int)((n + 7) / 8);
	int at = claim(w, cpu, now, len);

	c->w[at] = (now & KUTRACE_TS_MASK) << KUTRACE_TS_SHIFT |
		   kutrace_make_word(type + (unsigned int)(len << KUTRACE_LEN_SHIFT), arg);
	memset(&c->w[at + 1], 0, (size_t)(len - 1) * 8);
	memcpy(&c->w[at + 1], name, n);
}

void kt_rw_lost(struct kt_rw *w, int cpu, uint64_t now, unsigned int lcpu,
		unsigned int reason, uint32_t blocks, uint64_t entries, uint64_t first,
		uint64_t last)
{
	struct rw_cpu *c = &w->cpu[cpu];
	int at = claim(w, cpu, now, KUTRACE_LOST_WORDS);

	if (blocks > KUTRACE_LOST_BLOCKS_MAX)
		blocks = KUTRACE_LOST_BLOCKS_MAX;
	c->w[at] = (now & KUTRACE_TS_MASK) << KUTRACE_TS_SHIFT |
		   kutrace_make_word(KUTRACE_LOST_EVENT,
				     (lcpu & KUTRACE_LOST_CPU_MASK) |
				     (reason & KUTRACE_LOST_WHY_MASK) << KUTRACE_LOST_WHY_SHIFT |
				     (uint64_t)blocks << KUTRACE_LOST_BLOCKS_SHIFT);
	c->w[at + 1] = entries;
	c->w[at + 2] = first & KUTRACE_HDR_LOW56;
	c->w[at + 3] = last & KUTRACE_HDR_LOW56;
}

long kt_rw_wraps(const struct kt_rw *w)
{
	return w->wraps;
}

uint64_t kt_rw_bytes(const struct kt_rw *w)
{
	return (uint64_t)w->nslots * (uint64_t)stride(w);
}

int kt_rw_first_block(const struct kt_rw *w, int cpu, uint64_t *ctr,
		      uint32_t *pid)
{
	int found = 0;

	for (long s = 1; s < w->nslots; s++) {
		if (w->slots[s].cpu != cpu)
			continue;
		if (!found || w->slots[s].ctr < *ctr) {
			*ctr = w->slots[s].ctr;
			*pid = w->slots[s].pid;
		}
		found = 1;
	}
	return found;
}

void kt_rw_block0(const struct kt_rw *w, int *cpu, uint64_t *ctr)
{
	*cpu = w->nslots ? w->slots[0].cpu : 0;
	*ctr = w->nslots ? w->slots[0].ctr : 0;
}

int kt_rw_close(struct kt_rw *w, uint64_t stop_ctr, uint64_t *stop_usec)
{
	uint64_t usec = w->o.start_usec +
			(uint64_t)((double)(stop_ctr - w->o.start_ctr) /
				   w->o.ticks_per_usec + 0.5);

	for (int c = 0; c < w->o.ncpu; c++)
		flush_block(w, &w->cpu[c]);
	if (w->nslots > 0) {
		/* Block 0 words 1..5: flags, usec and the two time pairs. */
		uint64_t h[5];
		uint64_t flags = (w->o.ipc ? KUTRACE_FLAG_IPC : 0) |
				 (w->wraps ? KUTRACE_FLAG_WRAP : 0) |
				 KUTRACE_FILE_VERSION;

		h[0] = flags << KUTRACE_HDR_FLAGS_SHIFT |
		       (usec_of(w, w->slots[0].ctr) & KUTRACE_HDR_LOW56);
		h[KUTRACE_HDR_START_CTR - 1] = w->o.start_ctr;
		h[KUTRACE_HDR_START_USEC - 1] = w->o.start_usec;
		h[KUTRACE_HDR_STOP_CTR - 1] = stop_ctr;
		h[KUTRACE_HDR_STOP_USEC - 1] = usec;
		put(w, h, sizeof(h), 8);
	}
	if (close(w->fd) != 0 && !w->err[0])
		snprintf(w->err, sizeof(w->err), "%s: close: %s", w->path,
			 strerror(errno));
	w->fd = -1;
	if (stop_usec)
		*stop_usec = usec;
	return w->err[0] ? -1 : 0;
}

const char *kt_rw_error(const struct kt_rw *w)
{
	return w->err[0] ? w->err : NULL;
}

void kt_rw_free(struct kt_rw *w)
{
	if (!w)
		return;
	free(w->cpu);
	free(w->slots);
	free(w);
}

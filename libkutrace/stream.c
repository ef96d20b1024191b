// SPDX-License-Identifier: BSD-3-Clause
/*
 * stream.c - the reader of stream mode (docs/spec/FORMATS.md 10): while
 * tracing runs, every block the module says is complete is copied from
 * the read-only mapping into the chunk of its epoch and given back; a
 * cut (by size or time) closes one chunk and opens the next, each a
 * trace of its own.  When writing fails (a full disk) the reader goes on
 * as a flight recorder: it holds the newest blocks, lets the oldest go and
 * counts them, per CPU, as lost.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "libkutrace-local.h"
#include "channel.h"
#include "bpfchan.h"

#define BW	KUTRACE_BLOCK_WORDS

struct chunk {
	int fd;			/* -1: none open */
	uint64_t n;		/* its number: the epoch */
	char path[4096];
	uint64_t blocks;	/* file blocks, block 0 counted */
	int have0;		/* block 0 written */
	uint64_t start_ctr, start_usec;	/* time pairs: start, latest */
	uint64_t last_ctr, last_usec;
	time_t opened;
	uint64_t opened_ms;	/* CLOCK_MONOTONIC */
};

/* Blocks a CPU had let go (reason DISK), until its next block is seen. */
struct disk_loss {
	uint64_t blocks, first, last;
	int pending;		/* last not known yet */
};

static struct {
	struct kt_stream_opts o;
	const uint8_t *map;
	size_t size;
	int ipc;
	size_t bsz;		/* bytes of a block in a file, side included */
	struct chunk cur, prev;
	uint64_t *w;		/* one block */
	uint64_t held[4096];	/* flight mode: STREAM_TAKE answers kept, oldest first */
	unsigned int nheld, held_max;
	int flight;
	struct disk_loss loss[KUTRACE_MAX_CPUS];
	struct kt_stream_info info;
	time_t last_pair;
} S = { .cur.fd = -1, .prev.fd = -1 };

static uint64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static int cmd(unsigned int nr, uint64_t arg, uint64_t *r)
{
	return kt_ctl_cmd(nr, arg, r);
}

static const uint64_t *slot_words(uint64_t slot)
{
	return (const uint64_t *)(S.map + S.size -
				  (slot + 1) * KUTRACE_BLOCK_BYTES);
}

static const uint8_t *slot_side(uint64_t slot)
{
	return S.map + (S.size - (slot + 1) * KUTRACE_BLOCK_BYTES) / 8;
}

static int emit(const uint64_t *w)
{
	return cmd(KUTRACE_IOC_INSERTN_FORCED_NR, (uint64_t)(uintptr_t)w, NULL);
}

/* A PIDNAME for every thread alive, so that none of the chunk is a bare pid. */
static int name_threads(void)
{
	DIR *d = opendir("/proc"), *t;
	struct dirent *p, *q;
	char path[1024], comm[64];
	uint64_t w[KUTRACE_MAX_ENTRY_WORDS];
	int e = 0;

	if (!d)
		return -errno;
	while (!e && (p = readdir(d)) != NULL) {
		if (p->d_name[0] < '1' || p->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/task", p->d_name);
		t = opendir(path);
		if (!t)
			continue;	/* gone meanwhile */
		while (!e && (q = readdir(t)) != NULL) {
			FILE *f;

			if (q->d_name[0] < '1' || q->d_name[0] > '9')
				continue;
			snprintf(path, sizeof(path), "/proc/%s/task/%s/comm",
				 p->d_name, q->d_name);
			f = fopen(path, "r");
			if (!f)
				continue;
			if (fgets(comm, sizeof(comm), f)) {
				comm[strcspn(comm, "\n")] = 0;
				kt_name_entry(w, KUTRACE_PIDNAME,
					      strtoull(q->d_name, NULL, 10), comm,
					      KUTRACE_HDR_COMM_BYTES);
				e = emit(w);
			}
			fclose(f);
		}
		closedir(t);
	}
	closedir(d);
	return e;
}

/* Pin to the CPU we are on, so that our inserts and CUT_SELF meet. */
static int pin(cpu_set_t *old)
{
	cpu_set_t one;
	int cpu = sched_getcpu();

	if (sched_getaffinity(0, sizeof(*old), old) || cpu < 0)
		return -1;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	return sched_setaffinity(0, sizeof(one), &one);
}

/* The names a chunk needs (FORMATS 10.2 step 1), then CUT_SELF. */
static int name_chunk(void)
{
	int e = kt_ctl_init(S.o.process_name);

	if (!e)
		e = name_threads();
	if (!e)
		e = cmd(KUTRACE_CMD_STREAM_CUT, KUTRACE_CUT_SELF, NULL);
	return e;
}

static void warn_flight(const char *what, int e)
{
	if (S.flight)
		return;
	S.flight = 1;
	S.info.disk_full = 1;
	fprintf(stderr, "%s: %s: %s; tracing goes on as a flight "
		"recorder: the oldest blocks are let go and counted as lost\n",
		S.o.prog ? S.o.prog : "kutrace_control", what, strerror(-e));
}

static int pwrite_all(int fd, const void *buf, size_t n, off_t off)
{
	const char *p = buf;

	while (n) {
		ssize_t k = pwrite(fd, p, n, off);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -errno;
		if (k == 0)
			return -ENOSPC;
		p += k;
		n -= (size_t)k;
		off += k;
	}
	return 0;
}

static uint64_t usec_at(const struct chunk *c, uint64_t ctr)
{
	double slope = (double)(c->last_usec - c->start_usec) /
		(double)(c->last_ctr > c->start_ctr ?
			 c->last_ctr - c->start_ctr : 1);

	return (c->start_usec + (int64_t)((double)(int64_t)(ctr - c->start_ctr) *
					   slope)) & KUTRACE_HDR_LOW56;
}

/* Words 4..5 of block 0: the latest pair, so a chunk cut short is readable. */
static int write_stop_pair(struct chunk *c)
{
	uint64_t p[2] = { c->last_ctr, c->last_usec };

	if (!c->have0)
		return 0;
	return pwrite_all(c->fd, p, sizeof(p),
			  KUTRACE_HDR_STOP_CTR * sizeof(uint64_t));
}

static int open_chunk(struct chunk *c, uint64_t n, uint64_t ctr, uint64_t usec)
{
	memset(c, 0, sizeof(*c));
	c->n = n;
	snprintf(c->path, sizeof(c->path), "%s/" KUTRACE_CHUNK_FMT, S.o.dir,
		 (unsigned long)n);
	c->fd = open(c->path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (c->fd < 0)
		return -errno;
	c->blocks = 1;		/* block 0's place */
	c->start_ctr = ctr;
	c->start_usec = usec;
	c->last_ctr = ctr;
	c->last_usec = usec;
	c->opened = time(NULL);
	c->opened_ms = mono_ms();
	return 0;
}

/* Close: the final pair; a chunk without its block 0 is no trace: gone. */
static void close_chunk(struct chunk *c, uint64_t ctr, uint64_t usec)
{
	if (c->fd < 0)
		return;
	c->last_ctr = ctr;
	c->last_usec = usec;
	/* Overwrites bytes already there: works on a full disk too. */
	if (write_stop_pair(c))
		warn_flight(c->path, -ENOSPC);
	if (ftruncate(c->fd, (off_t)(c->blocks * S.bsz)) == 0 && !c->have0)
		unlink(c->path);
	close(c->fd);
	c->fd = -1;
	if (c->have0) {
		S.info.chunks++;
		if (S.o.on_close) {
			struct kt_chunk_done d = {
				.path = c->path, .n = c->n, .bytes = c->blocks * S.bsz,
				.start_ctr = c->start_ctr, .start_usec = c->start_usec,
				.stop_ctr = c->last_ctr, .stop_usec = c->last_usec,
			};

			S.o.on_close(S.o.ctx, &d);
		}
	}
	if (S.o.max_files && c->n >= S.o.max_files) {
		char old[4096];

		snprintf(old, sizeof(old), "%s/" KUTRACE_CHUNK_FMT, S.o.dir,
			 (unsigned long)(c->n - S.o.max_files));
		unlink(old);
	}
}

/* A later block of cpu: the end of its pending disk loss. */
static void note_block(unsigned int cpu, uint64_t start)
{
	struct disk_loss *l = &S.loss[cpu];

	if (l->pending) {
		l->last = start;
		l->pending = 0;
	}
}

/* Insert the LOST entries of the disk losses known, and start afresh. */
static void report_disk_losses(int at_end, uint64_t now)
{
	for (unsigned int cpu = 0; cpu < KUTRACE_MAX_CPUS; cpu++) {
		struct disk_loss *l = &S.loss[cpu];
		uint64_t w[KUTRACE_MAX_ENTRY_WORDS] = { 0 };
		uint64_t b;

		if (!l->blocks || (l->pending && !at_end))
			continue;
		if (l->pending)
			l->last = now;
		b = l->blocks > KUTRACE_LOST_BLOCKS_MAX ?
		    KUTRACE_LOST_BLOCKS_MAX : l->blocks;
		w[0] = kutrace_make_word(KUTRACE_LOST_EVENT, cpu |
			(KUTRACE_LOST_DISK << KUTRACE_LOST_WHY_SHIFT) |
			(b << KUTRACE_LOST_BLOCKS_SHIFT));
		w[2] = l->first & KUTRACE_HDR_LOW56;
		w[3] = l->last & KUTRACE_HDR_LOW56;
		emit(w);
		memset(l, 0, sizeof(*l));
	}
}

/* Give a taken slot back; in flight mode its loss is counted first. */
static int give(uint64_t slot, int lost)
{
	if (lost) {
		const uint64_t *b = slot_words(slot);
		unsigned int cpu = (unsigned int)(b[KUTRACE_HDR_CPU_TIME] >>
						  KUTRACE_HDR_CPU_SHIFT);
		uint64_t t = b[KUTRACE_HDR_CPU_TIME] & KUTRACE_HDR_LOW56;

		if (cpu < KUTRACE_MAX_CPUS) {
			struct disk_loss *l = &S.loss[cpu];

			if (!l->blocks)
				l->first = t;
			l->blocks++;
			l->pending = 1;
			S.info.lost_disk++;
		}
	}
	return cmd(KUTRACE_CMD_STREAM_GIVE, slot, NULL);
}

/* Write a taken block into the chunk of its epoch.  0, or -errno. */
static int write_block(uint64_t slot, uint64_t epoch, int first)
{
	struct chunk *c = epoch == S.cur.n ? &S.cur :
			  epoch == S.prev.n && S.prev.fd >= 0 ? &S.prev : NULL;
	unsigned int flags;
	uint64_t at;
	int e;

	if (!c || c->fd < 0)
		return 0;	/* an epoch with no chunk: cannot happen */
	memcpy(S.w, slot_words(slot), KUTRACE_BLOCK_BYTES);
	flags = (unsigned int)(S.w[KUTRACE_HDR_FLAGS_USEC] >>
			       KUTRACE_HDR_FLAGS_SHIFT);
	if (first) {
		flags = (flags & ~(unsigned int)(KUTRACE_FLAG_VERSION |
						 KUTRACE_FLAG_WRAP)) |
			KUTRACE_FILE_VERSION | KUTRACE_FLAG_STREAM;
		S.w[KUTRACE_HDR_START_CTR] = c->start_ctr;
		S.w[KUTRACE_HDR_START_USEC] = c->start_usec;
		S.w[KUTRACE_HDR_STOP_CTR] = c->last_ctr;
		S.w[KUTRACE_HDR_STOP_USEC] = c->last_usec;
		at = 0;
	} else {
		at = c->blocks;
	}
	S.w[KUTRACE_HDR_FLAGS_USEC] = ((uint64_t)flags << KUTRACE_HDR_FLAGS_SHIFT) |
		usec_at(c, S.w[KUTRACE_HDR_CPU_TIME] & KUTRACE_HDR_LOW56);
	e = pwrite_all(c->fd, S.w, KUTRACE_BLOCK_BYTES, (off_t)(at * S.bsz));
	if (!e && S.ipc)
		e = pwrite_all(c->fd, slot_side(slot), KUTRACE_SIDE_BYTES,
			       (off_t)(at * S.bsz + KUTRACE_BLOCK_BYTES));
	if (e) {
		/* Cut back to whole blocks: a readable trace to where it ends. */
		if (ftruncate(c->fd, (off_t)(c->blocks * S.bsz)) != 0)
			(void)0;
		return e;
	}
	if (first)
		c->have0 = 1;
	else
		c->blocks++;
	S.info.blocks++;
	S.info.bytes += S.bsz;
	return 0;
}

/* One taken block: to disk, or held (flight mode). */
static int handle(uint64_t r)
{
	uint64_t slot = (r & KUTRACE_STREAM_SLOT_MASK) - 1;
	uint64_t epoch = r >> KUTRACE_STREAM_EPOCH_SHIFT;
	const uint64_t *b = slot_words(slot);
	unsigned int cpu = (unsigned int)(b[KUTRACE_HDR_CPU_TIME] >>
					  KUTRACE_HDR_CPU_SHIFT);
	int e;

	if (cpu < KUTRACE_MAX_CPUS)
		note_block(cpu, b[KUTRACE_HDR_CPU_TIME] & KUTRACE_HDR_LOW56);
	if (!S.flight) {
		e = write_block(slot, epoch, (r & KUTRACE_STREAM_FIRST) != 0);
		if (!e)
			return give(slot, 0);
		warn_flight(epoch == S.cur.n ? S.cur.path : S.prev.path, e);
	}
	S.held[S.nheld++] = r;
	if (S.nheld > S.held_max) {
		e = give((S.held[0] & KUTRACE_STREAM_SLOT_MASK) - 1, 1);
		memmove(S.held, S.held + 1, --S.nheld * sizeof(S.held[0]));
		return e;
	}
	return 0;
}

static int drain(void)
{
	uint64_t r;
	int e;

	for (;;) {
		e = cmd(KUTRACE_CMD_STREAM_TAKE, 0, &r);
		if (e || !r)
			return e;
		e = handle(r);
		if (e)
			return e;
	}
}

int kt_stream_begin(const struct kt_stream_opts *o)
{
	cpu_set_t old;
	uint64_t ctr, usec;
	size_t bpf_size = 0;
	const uint8_t *bpf_map = kt_ctl.via == KT_CTL_BPF ?
				 kt_bpf_chan_buffer(&bpf_size) : NULL;
	long mb = bpf_map ? (long)(bpf_size >> 20) : kt_module_tracemb();
	int e, pinned;

	if ((kt_ctl.via != KT_CTL_DEVICE && !bpf_map) || mb <= 0)
		return -EOPNOTSUPP;
	memset(&S.info, 0, sizeof(S.info));
	memset(S.loss, 0, sizeof(S.loss));
	S.o = *o;
	S.flight = 0;
	S.nheld = 0;
	S.size = (size_t)mb << 20;
	S.ipc = (o->flags & KUTRACE_RESET_IPC) != 0;
	S.bsz = KUTRACE_BLOCK_BYTES + (S.ipc ? KUTRACE_SIDE_BYTES : 0);
	S.held_max = (unsigned int)(S.size / KUTRACE_BLOCK_BYTES / 2);
	if (S.held_max > sizeof(S.held) / sizeof(S.held[0]) - 1)
		S.held_max = sizeof(S.held) / sizeof(S.held[0]) - 1;
	S.w = malloc(KUTRACE_BLOCK_BYTES);
	if (!S.w)
		return -ENOMEM;
	S.map = bpf_map ? bpf_map :
		mmap(NULL, S.size, PROT_READ, MAP_SHARED, kt_ctl.fd, 0);
	if (S.map == MAP_FAILED) {
		S.map = NULL;
		return -errno;
	}
	/* Epoch 0: its first block is the one our names open. */
	pinned = pin(&old) == 0;
	kt_ctl_time_pair(&ctr, &usec);
	e = open_chunk(&S.cur, 0, ctr, usec);
	if (!e)
		e = name_chunk();
	if (!e)
		e = kt_ctl_on();
	if (pinned)
		sched_setaffinity(0, sizeof(old), &old);
	S.last_pair = time(NULL);
	return e;
}

/* Cut: P, STREAM_CUT(0), Q; chunk n+1 from P, chunk n closed at Q. */
static int rotate(void)
{
	cpu_set_t old;
	uint64_t p_ctr, p_usec, q_ctr, q_usec, epoch = 0;
	int e, pinned = pin(&old) == 0;

	kt_ctl_time_pair(&p_ctr, &p_usec);
	e = cmd(KUTRACE_CMD_STREAM_CUT, KUTRACE_CUT_ALL, &epoch);
	kt_ctl_time_pair(&q_ctr, &q_usec);
	if (!e) {
		S.prev = S.cur;
		S.cur.fd = -1;
		e = open_chunk(&S.cur, epoch, p_ctr, p_usec);
		if (e) {
			warn_flight(S.cur.path, -errno);
			e = 0;
		}
		report_disk_losses(0, q_ctr);
		e = name_chunk();
	}
	if (pinned)
		sched_setaffinity(0, sizeof(old), &old);
	if (!e)
		e = drain();	/* every block of the old epoch is complete */
	close_chunk(&S.prev, q_ctr, q_usec);
	return e;
}

int kt_stream_pump(void)
{
	time_t now = time(NULL);
	int e = drain();

	if (e)
		return e;
	if (now != S.last_pair && S.cur.fd >= 0 && !S.flight) {
		kt_ctl_time_pair(&S.cur.last_ctr, &S.cur.last_usec);
		S.last_pair = now;
		if (write_stop_pair(&S.cur))
			warn_flight(S.cur.path, -ENOSPC);
	}
	if ((S.o.rotate_bytes && S.cur.blocks * S.bsz >= S.o.rotate_bytes) ||
	    (S.o.rotate_ms && mono_ms() - S.cur.opened_ms >= S.o.rotate_ms) ||
	    (!S.o.rotate_ms && S.o.rotate_sec &&
	     now - S.cur.opened >= (time_t)S.o.rotate_sec))
		return rotate();
	return 0;
}

int kt_stream_cut(void)
{
	int e = drain();

	return e ? e : rotate();
}

int kt_stream_end(struct kt_stream_info *info)
{
	uint64_t ctr, usec;
	int e = kt_ctl_off();

	if (!e)
		e = cmd(KUTRACE_CMD_FLUSH, 0, NULL);
	if (!e)
		e = drain();
	/* A CPU still losing at the end: its LOST entry, now that slots are free. */
	if (!e)
		e = cmd(KUTRACE_CMD_STREAM_CUT, KUTRACE_CUT_LOST, NULL);
	if (!e)
		e = drain();
	kt_ctl_time_pair(&ctr, &usec);
	/* What flight mode held: to disk if it takes it now, else lost. */
	for (unsigned int i = 0; i < S.nheld; i++) {
		uint64_t r = S.held[i], slot = (r & KUTRACE_STREAM_SLOT_MASK) - 1;
		int lost = (r >> KUTRACE_STREAM_EPOCH_SHIFT) != S.cur.n ||
			   write_block(slot, S.cur.n, (r & KUTRACE_STREAM_FIRST) != 0);

		give(slot, lost);
	}
	S.nheld = 0;
	close_chunk(&S.cur, ctr, usec);
	for (unsigned int cpu = 0; cpu < KUTRACE_MAX_CPUS; cpu++) {
		uint64_t n = 0, b = 0;

		if (cmd(KUTRACE_CMD_GETLOST, (uint64_t)cpu << 2 |
			KUTRACE_GETLOST_ENTRIES, &n) ||
		    cmd(KUTRACE_CMD_GETLOST, (uint64_t)cpu << 2 |
			KUTRACE_GETLOST_BLOCKS, &b))
			break;
		if (cpu < KT_STREAM_MAX_CPUS) {
			S.info.lost_entries[cpu] = n;
			S.info.lost_blocks[cpu] = b + S.loss[cpu].blocks;
		}
	}
	if (S.map && kt_ctl.via == KT_CTL_DEVICE)
		munmap((void *)S.map, S.size);
	S.map = NULL;
	free(S.w);
	S.w = NULL;
	*info = S.info;
	return e;
}

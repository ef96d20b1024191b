// SPDX-License-Identifier: BSD-3-Clause
/*
 * ubuf.c - the user buffers of a trace file (docs/spec/FORMATS.md 9):
 * events that user code wrote without a system call, one buffer per
 * thread, appended by the controller after the kernel's blocks.
 *
 * Nothing in a user buffer is trusted.  Every entry must carry the tag of
 * its own position (so a torn entry, a stale word of an older lap or a
 * writer killed mid-entry shows), an event user code may write
 * (kutrace_uentry_words), a CPU of the kernel trace and a time inside it.
 * What fails is dropped and counted; what passes is handed on in time
 * order, and the decoder turns it into the events a kernel-inserted entry
 * gives (kt_decode_user), so it lands among the kernel's events.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "raw.h"

static void note(struct kt_user *u, const char *fmt, uint64_t a, uint64_t b)
{
	if (!u->damage[0])
		snprintf(u->damage, sizeof(u->damage), fmt, a, b);
}

static unsigned int ring_shift(uint64_t ring)
{
	unsigned int s = 0;

	while ((1ULL << s) < ring)
		s++;
	return s;
}

static void add_event(struct kt_user *u, uint32_t buf, uint64_t w0,
		      const uint64_t *w, unsigned int nw)
{
	if (u->n == u->cap) {
		u->cap = u->cap ? u->cap * 2 : 1024;
		u->ev = kt_xrealloc(u->ev, u->cap * sizeof(*u->ev));
	}
	if (u->nwords + nw > u->wcap) {
		while (u->nwords + nw > u->wcap)
			u->wcap = u->wcap ? u->wcap * 2 : 4096;
		u->words = kt_xrealloc(u->words, u->wcap * sizeof(*u->words));
	}
	struct kt_uevent *e = &u->ev[u->n];

	e->full = w0 & KUTRACE_UENTRY_TIME_MASK;
	e->cpu = (unsigned int)(w0 >> KUTRACE_UENTRY_CPU_SHIFT);
	e->buf = buf;
	e->tid = u->bufs[buf].tid;
	e->seq = u->n;
	e->widx = u->nwords;
	e->nw = nw;
	memcpy(&u->words[u->nwords], w, nw * sizeof(*w));
	/* The tag has done its work: the word is a plain entry word now. */
	u->words[u->nwords] &= ~(KUTRACE_TS_MASK << KUTRACE_TS_SHIFT);
	u->nwords += nw;
	u->n++;
}

/* One entry at L[p] (absolute position pos): its words, or 0 if not sound. */
static unsigned int entry_at(const uint64_t *L, size_t n, size_t p,
			     uint64_t pos, unsigned int shift)
{
	if (p + 2 > n)
		return 0;
	uint64_t w1 = L[p + 1];

	if ((w1 >> KUTRACE_TS_SHIFT) != kutrace_utag(pos, shift))
		return 0;
	unsigned int k = kutrace_uentry_words(kutrace_word_event(w1));

	if (k == 0 || p + k > n)
		return 0;
	return k;
}

/*
 * Words that are no sound entry, L[from..to): one dropped entry, unless
 * they are the tail of an overwritten entry at a wrapped ring's start or
 * never-written zeros at the end (the ring filled up: counted as lost).
 */
static void garbage(struct kt_user *u, const struct kt_ubuffer *b, const uint64_t *L,
		    size_t from, size_t to, size_t n, uint64_t pos0)
{
	int zeros = 1;

	if (from == to || (from == 0 && pos0 > 0))
		return;
	for (size_t i = from; i < to; i++)
		zeros &= L[i] == 0;
	if (zeros && to == n)
		return;
	u->dropped++;
	note(u, "user buffer of thread %" PRIu64 ": no sound entry at position %" PRIu64
	     " (torn or forged; dropped)", b->tid, pos0 + from);
}

/* One buffer's words, L[0..n) from absolute position pos0. */
static void parse_buffer(struct kt_user *u, uint32_t buf, const uint64_t *L,
			 size_t n, uint64_t pos0, const struct kt_ulimits *lim)
{
	const struct kt_ubuffer *b = &u->bufs[buf];
	unsigned int shift = ring_shift(b->ring);
	size_t bad = 0;		/* start of the words with no entry */

	for (size_t p = 0; p < n;) {
		unsigned int k = entry_at(L, n, p, pos0 + p, shift);

		if (!k) {
			p++;
			continue;
		}
		garbage(u, b, L, bad, p, n, pos0);
		uint64_t w0 = L[p];
		unsigned int cpu = (unsigned int)(w0 >> KUTRACE_UENTRY_CPU_SHIFT);
		uint64_t t = w0 & KUTRACE_UENTRY_TIME_MASK;

		if (cpu >= KUTRACE_MAX_CPUS || !lim->cpu_present[cpu]) {
			u->dropped++;
			note(u, "user buffer of thread %" PRIu64
			     ": an entry on CPU %" PRIu64 ", which the trace has not (dropped)",
			     b->tid, cpu);
		} else if (t < lim->cpu_lo[cpu] || (lim->hi && t > lim->hi)) {
			u->outside++;
		} else {
			add_event(u, buf, w0, &L[p + 1], k - 1);
		}
		p += k;
		bad = p;
	}
	garbage(u, b, L, bad, n, n, pos0);
}

static int cmp_uevent(const void *a, const void *b)
{
	const struct kt_uevent *x = a, *y = b;

	if (x->full != y->full)
		return x->full < y->full ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static uint32_t new_buffer(struct kt_user *u, const uint64_t *hdr)
{
	if (u->nbufs == u->bufcap) {
		u->bufcap = u->bufcap ? u->bufcap * 2 : 16;
		u->bufs = kt_xrealloc(u->bufs, u->bufcap * sizeof(*u->bufs));
	}
	struct kt_ubuffer *b = &u->bufs[u->nbufs];

	memset(b, 0, sizeof(*b));
	b->pid = (uint32_t)(hdr[KUTRACE_UBLK_IDS] >> 32);
	b->tid = (uint32_t)hdr[KUTRACE_UBLK_IDS];
	b->ring = hdr[KUTRACE_UBLK_RING];
	b->lost = hdr[KUTRACE_UBLK_LOST];
	memcpy(b->comm, &hdr[KUTRACE_UBLK_COMM], 16);
	b->comm[16] = '\0';
	u->lost += b->lost;
	return (uint32_t)u->nbufs++;
}

static int ring_ok(uint64_t ring)
{
	return ring >= KUTRACE_UBUF_MIN_RING && ring <= KUTRACE_UBUF_MAX_RING &&
	       (ring & (ring - 1)) == 0;
}

void kt_user_parse(struct kt_user *u, const uint64_t *w, size_t nwords,
		   const struct kt_ulimits *lim)
{
	uint64_t *L = NULL;
	size_t n = 0, lcap = 0;
	uint64_t pos0 = 0, next = 0;
	int have = 0;
	uint32_t cur = 0;

	for (size_t off = 0; off < nwords; off += KUTRACE_BLOCK_WORDS) {
		const uint64_t *h = &w[off];
		size_t blk = nwords - off < KUTRACE_BLOCK_WORDS ? nwords - off : KUTRACE_BLOCK_WORDS;
		uint64_t count = blk >= KUTRACE_UBLK_WORDS ? h[KUTRACE_UBLK_COUNT] : 0;

		if (blk < KUTRACE_BLOCK_WORDS || h[0] != KUTRACE_UBLOCK_MAGIC ||
		    !ring_ok(h[KUTRACE_UBLK_RING]) || count > KUTRACE_UBLK_PAYLOAD ||
		    h[KUTRACE_UBLK_POS] > (1ULL << 62)) {
			u->dropped++;
			note(u, "user block %" PRIu64 " of the trace file is damaged "
			     "(%" PRIu64 " words; dropped)", off / KUTRACE_BLOCK_WORDS, blk);
			continue;
		}
		/* A buffer goes on in the next block from where it stopped. */
		if (!have || h[KUTRACE_UBLK_IDS] != ((uint64_t)u->bufs[cur].pid << 32 |
						     u->bufs[cur].tid) ||
		    h[KUTRACE_UBLK_RING] != u->bufs[cur].ring ||
		    h[KUTRACE_UBLK_POS] != next) {
			if (have)
				parse_buffer(u, cur, L, n, pos0, lim);
			cur = new_buffer(u, h);
			have = 1;
			n = 0;
			pos0 = h[KUTRACE_UBLK_POS];
		}
		if (n + count + 1 > lcap) {
			lcap = (n + count + 1) * 2;
			L = kt_xrealloc(L, lcap * sizeof(*L));
		}
		memcpy(&L[n], &h[KUTRACE_UBLK_WORDS], count * sizeof(*L));
		n += count;
		next = h[KUTRACE_UBLK_POS] + count;
	}
	if (have)
		parse_buffer(u, cur, L, n, pos0, lim);
	free(L);
	if (u->n)
		qsort(u->ev, u->n, sizeof(*u->ev), cmp_uevent);
}

int kt_user_load(struct kt_raw *r, const struct kt_block_ref *refs, long nrefs,
		 struct kt_user *u)
{
	memset(u, 0, sizeof(*u));
	if (!r->indexed || r->user_off <= 0)
		return 0;
	fseek(r->f, 0, SEEK_END);
	long end = ftell(r->f);

	if (end <= r->user_off)
		return 0;
	size_t bytes = (size_t)(end - r->user_off);
	size_t nw = bytes / 8;
	uint64_t *w = kt_xmalloc(nw ? nw * 8 : 8);

	if (pread(fileno(r->f), w, nw * 8, r->user_off) != (ssize_t)(nw * 8)) {
		free(w);
		snprintf(r->err, sizeof(r->err), "%s: cannot read the user buffers", r->path);
		return -1;
	}
	struct kt_ulimits lim;

	memset(&lim, 0, sizeof(lim));
	/*
	 * Only inside the trace: from ON (a wrapped trace: from the CPU's
	 * oldest kept block) to the stop pair.
	 */
	for (long i = 0; i < nrefs; i++) {
		const struct kt_block_ref *b = &refs[i];

		if (b->cpu >= KUTRACE_MAX_CPUS || b->index == 0)
			continue;
		if (!lim.cpu_present[b->cpu] || b->base < lim.cpu_lo[b->cpu])
			lim.cpu_lo[b->cpu] = b->base;
		lim.cpu_present[b->cpu] = 1;
	}
	if (nrefs > 0) {
		unsigned int c0 = refs[0].cpu;

		if (c0 < KUTRACE_MAX_CPUS && !lim.cpu_present[c0]) {
			lim.cpu_present[c0] = 1;
			lim.cpu_lo[c0] = refs[0].base;
		}
	}
	if (!(r->file_flags & KUTRACE_FLAG_WRAP))
		for (int c = 0; c < KUTRACE_MAX_CPUS; c++)
			lim.cpu_lo[c] = r->start_ctr;
	lim.hi = r->stop_ctr > r->start_ctr ? r->stop_ctr : 0;
	kt_user_parse(u, w, nw, &lim);
	free(w);
	return 0;
}

void kt_user_summary(const struct kt_user *u, char *buf, size_t len)
{
	buf[0] = '\0';
	if (!u->nbufs && !u->dropped)
		return;
	snprintf(buf, len, "user buffers: %zu threads, %zu events merged, %" PRIu64
		 " lost (buffer full), %" PRIu64 " dropped (torn or forged), %" PRIu64
		 " outside the trace%s%s", u->nbufs, u->n, u->lost, u->dropped,
		 u->outside, u->damage[0] ? "; first: " : "", u->damage);
}

void kt_user_free(struct kt_user *u)
{
	free(u->ev);
	free(u->words);
	free(u->bufs);
	memset(u, 0, sizeof(*u));
}

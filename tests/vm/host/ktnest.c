// SPDX-License-Identifier: BSD-3-Clause
/*
 * ktnest - does every kernel entry in a raw kutrace file have its exact
 * exit?  For the patched-kernel tests (tests/t_kernel_patched.sh).
 * Its own block walk, as ktcheck's, on purpose: an oracle that shares no
 * code with the decoder it checks, nor with the other oracle.
 *
 *   ktnest FILE [PID]
 *
 * Rebuilds every entry's full time (20-bit stamps, TSDELTA), merges the
 * CPUs in time order and replays each task's calls and returns (syscalls,
 * traps, interrupts, the scheduler) on a stack per task (per CPU for the
 * idle tasks; the current task follows block headers and USERPID
 * entries), so that a task migrating between CPUs keeps its stack.
 * Prints:
 *   class C calls N rets N mismatched N open N orphan N
 *     C = irq | trap | syscall | sched; fused call/returns count as both;
 *     mismatched: a return that is not the innermost open call's;
 *     open: calls still open at the end of the trace;
 *     orphan: returns of calls made before the trace began
 *   event 0xEEE calls N rets N          (traps, interrupts, ia32 syscalls)
 *   point 0xEEE N                       (packets 0x214/0x215, wakeups 0x206)
 *   names PID COMM                      (every PIDNAME entry of PID)
 * Traces must not be wrapped.
 */
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include "kutrace/format.h"

#define MAXKEY (65536 + 64)
#define DEPTH 32

struct stack {
	uint16_t ev[DEPTH];
	int n;
};
static struct stack *st;
static long calls[4], rets[4], mism[4], open_[4], orphan[4];
static long evc[4096], evr[4096];
static const char *cname[4] = { "irq", "trap", "syscall", "sched" };

static int cls(unsigned int call)
{
	if (call == KUTRACE_SCHED_CALL)
		return 3;
	if (call >= KUTRACE_IRQ && call < KUTRACE_IRQ + 0x100)
		return 0;
	if (call >= KUTRACE_TRAP && call < KUTRACE_TRAP + 0x100)
		return 1;
	return 2;
}

struct ent {
	uint64_t t;
	uint64_t x;		/* the word; 0 = block start, pid in aux */
	uint32_t seq;
	uint16_t cpu;
	uint16_t aux;
};

/* Time order as kutrace_synth's cmp_ref: the oracles share no code on purpose. */
static int by_time(const void *a, const void *b)
{
	const struct ent *p = a, *q = b;

	if (p->t != q->t)
		return p->t < q->t ? -1 : 1;
	if (p->cpu != q->cpu)
		return p->cpu < q->cpu ? -1 : 1;
	return p->seq < q->seq ? -1 : p->seq > q->seq;
}

static struct ent *ents;
static size_t nents, cap;

static void add(uint64_t t, uint64_t x, unsigned int cpu, unsigned int aux)
{
	if (nents == cap) {
		cap = cap ? 2 * cap : 65536;
		ents = realloc(ents, cap * sizeof(*ents));
		if (!ents) {
			perror("ktnest");
			exit(1);
		}
	}
	ents[nents] = (struct ent){ t, x, (uint32_t)nents, (uint16_t)cpu, (uint16_t)aux };
	nents++;
}

int main(int argc, char **argv)
{
	FILE *f = fopen(argc > 1 ? argv[1] : "", "rb");
	static uint64_t w[KUTRACE_BLOCK_WORDS];
	static uint8_t side[KUTRACE_SIDE_BYTES];
	static uint64_t last[64];
	static uint32_t cur[64];
	long watch = argc > 2 ? atol(argv[2]) : -1;
	long blocks = 0;
	int side_blocks = 0;

	st = calloc(MAXKEY, sizeof(*st));
	if (!f || !st) {
		perror("ktnest");
		return 1;
	}
	/* Pass 1: every entry with its full time (as ktcheck reconstructs it). */
	while (fread(w, sizeof(w), 1, f) == 1) {
		unsigned int cpu = (w[0] >> 56) & 63;
		int first = blocks == 0 ? KUTRACE_HDR0_WORDS : KUTRACE_HDRN_WORDS;
		uint32_t pid = (uint32_t)(blocks == 0 ? w[KUTRACE_HDR0_PID] :
					  w[KUTRACE_HDRN_PID]) & 0xFFFF;
		uint64_t t = w[0] & KUTRACE_HDR_LOW56, pending = 0;
		int have_pending = 0;

		if (blocks == 0) {
			unsigned int flags = w[1] >> 56;

			if (flags & KUTRACE_FLAG_WRAP) {
				fprintf(stderr, "ktnest: wrapped trace\n");
				return 1;
			}
			side_blocks = (flags & KUTRACE_FLAG_SIDE) != 0;
		}
		if (side_blocks && fread(side, sizeof(side), 1, f) != 1)
			break;
		blocks++;
		if (t < last[cpu])
			t = last[cpu];
		add(t, 0, cpu, pid);
		for (int i = first; i < KUTRACE_BLOCK_WORDS; i++) {
			uint64_t x = w[i];
			unsigned int ev = kutrace_word_event(x);
			uint32_t ts = kutrace_word_ts(x);
			uint64_t d;

			if (x == 0)
				continue;
			if (x == KUTRACE_WORD_END)
				break;
			if (ev == KUTRACE_TSDELTA) {
				pending += x & 0xFFFFFFFF;
				have_pending = 1;
				continue;
			}
			d = (ts - (t & KUTRACE_TS_MASK)) & KUTRACE_TS_MASK;
			if (have_pending) {
				t += pending;
				have_pending = 0;
				pending = 0;
			} else if (d > KUTRACE_TS_PERIOD - KUTRACE_LATE_STORE_WINDOW) {
				t -= KUTRACE_TS_PERIOD - d;
			} else {
				t += d;
			}
			if (t < last[cpu])
				t = last[cpu];
			last[cpu] = t;
			if (kutrace_is_varlen(ev)) {
				if ((ev & KUTRACE_TYPE_MASK) == KUTRACE_PIDNAME &&
				    watch >= 0 && (long)(x & 0xFFFF) == watch)
					printf("names %ld %.16s\n", watch,
					       (const char *)&w[i + 1]);
				i += kutrace_entry_words(ev) - 1;
				continue;
			}
			if (ev == KUTRACE_PC_U) {
				i++;
				continue;
			}
			add(t, x, cpu, 0);
		}
	}
	/* Pass 2: replay in time order, a stack per task. */
	qsort(ents, nents, sizeof(*ents), by_time);
	for (size_t j = 0; j < nents; j++) {
		uint64_t x = ents[j].x;
		unsigned int cpu = ents[j].cpu;
		unsigned int ev = kutrace_word_event(x);
		struct stack *s;
		int fused = (x >> KUTRACE_DELTA_SHIFT) & 0xFF;

		if (x == 0) {
			cur[cpu] = ents[j].aux;
			continue;
		}
		if (ev == KUTRACE_USERPID) {
			cur[cpu] = x & 0xFFFF;
			continue;
		}
		if (ev < KUTRACE_CALL_LO) {
			evc[ev]++;	/* point events */
			continue;
		}
		s = &st[cur[cpu] ? cur[cpu] : 65536 + cpu];
		if (kutrace_is_call(ev)) {
			calls[cls(ev)]++;
			evc[ev]++;
			if (fused) {
				rets[cls(ev)]++;
				evr[ev]++;
			} else if (s->n < DEPTH) {
				s->ev[s->n++] = ev;
			}
			continue;
		}
		/* a return */
		{
			unsigned int call = ev - KUTRACE_RET_BIT;
			int c = cls(call);

			rets[c]++;
			evr[call]++;
			if (s->n == 0) {
				orphan[c]++;
			} else if (s->ev[s->n - 1] == call) {
				s->n--;
			} else {
				mism[c]++;
				if (mism[c] <= 5)
					fprintf(stderr, "ktnest: cpu %u pid %u: return 0x%03x, open 0x%03x\n",
						cpu, cur[cpu], ev, s->ev[s->n - 1]);
				/* resynchronise on the matching call */
				for (int k = s->n - 1; k >= 0; k--)
					if (s->ev[k] == call) {
						s->n = k;
						break;
					}
			}
		}
	}
	for (int k = 0; k < MAXKEY; k++)
		for (int j = 0; j < st[k].n; j++)
			open_[cls(st[k].ev[j])]++;
	for (int c = 0; c < 4; c++)
		printf("class %s calls %ld rets %ld mismatched %ld open %ld orphan %ld\n",
		       cname[c], calls[c], rets[c], mism[c], open_[c], orphan[c]);
	for (int e = KUTRACE_TRAP; e < KUTRACE_TRAPRET; e++)
		if (evc[e] || evr[e])
			printf("event 0x%03x calls %ld rets %ld\n", e, evc[e], evr[e]);
	for (int e = KUTRACE_SYSCALL32; e < KUTRACE_SYSRET32; e++)
		if (evc[e] || evr[e])
			printf("event 0x%03x calls %ld rets %ld\n", e, evc[e], evr[e]);
	for (int e = KUTRACE_RUNNABLE; e <= KUTRACE_TX_PKT; e++)
		if (evc[e])
			printf("point 0x%03x %ld\n", e, evc[e]);
	return 0;
}

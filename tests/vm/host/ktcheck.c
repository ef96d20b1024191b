// SPDX-License-Identifier: BSD-3-Clause
/*
 * ktcheck - exact facts from a raw kutrace file, for the VM tests.
 * Independent of the postprocessor on purpose, and of ktnest, whose block
 * walk is this one written again: oracles that share no code.
 *
 *   ktcheck FILE [A B]
 *
 * Prints "key value..." lines:
 *   blocks N / wrapped 0|1 / flags F / backend TEXT
 *   cpu C entries N tsdelta N tsdelta_bad N backsteps N span_ticks N
 *   pid P sys NR calls N fused N rets N     (rets include fused ones)
 *   pid P switchin N wakeup N pfault N pfret N
 *   pcsamples N names N
 *   rate TICKS_PER_USEC                     (from block 0's time pairs)
 *   closemark ARG CPU TICKS                 (close(fd >= 1000) calls)
 *   ipi N self N maxarg N cpus N            (IPI sends 0x207: how many, how
 *                                           many name their own CPU, the
 *                                           largest target, CPUs in the trace)
 *   ipiroute FROM TO N                      (IPI sends on CPU FROM to TO)
 *   pid P event 0xEEE n N argsum S          (inserted entries: RPC 0x201..
 *                                           0x205, marks 0x20A..0x20F, locks
 *                                           0x210..0x212, 0x216..0x21B)
 *   username 0xEEE ARG TEXT                 (method, lock, queue, resource
 *                                           name entries)
 *
 *   ktcheck FILE marks   also prints "markd PID ARG CPU TICKS" for every
 *                        mark_d (full counter, as TSC >> 6)
 *
 * With two pids A and B (a ping-pong pair), also
 *   pair A B switchin N wakeup N other_switchin N other_wakeup N
 *   pair B A ...
 * switchin: context switches into A whose previous task on that CPU was
 * B; wakeup: RUNNABLE entries naming A made while B was running (the
 * waker's context); other_*: the rest of A's switch-ins and wakeups.  The
 * previous task is the CPU's last USERPID, carried across its blocks (a
 * block header written inside a switch already names the next task).
 * The pair is counted on each CPU up to the first switch into a pair task
 * after one of them entered exit_group there: the round trips end when
 * the child exits.  (On PREEMPT_RT the exiting child is switched out
 * inside exit_group and back in when the parent blocks in wait4, a
 * switch each way and the exit's wakeup that are no ping-pong.)
 */
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include "kutrace/format.h"

#define MAXPID 65536
#define MAXCPU 64
static uint32_t calls[MAXPID][8], fused[MAXPID][8], rets[MAXPID][8];
/*
 * Watched calls: getpid, read, write, nanosleep, clock_nanosleep,
 * exit_group, execve; then close.  x86-64's numbers, or the generic
 * table's when the backend entry names arm64 or riscv64 ("tracepoint
 * arm64:"), which number these calls alike.
 */
static const int watch_x86[9] = { 39, 0, 1, 35, 230, 231, 59, -1, 3 };
static const int watch_arm64[9] = { 172, 63, 64, 101, 115, 94, 221, -1, 57 };
static const int *watch = watch_x86;
#define NR_EXIT_GROUP	((unsigned int)watch[5])
#define NR_CLOSE	((unsigned int)watch[8])
static uint32_t swin[MAXPID], wake[MAXPID], pf[MAXPID], pfr[MAXPID];
static long pair[2] = { -1, -1 };
/* [target][0 = from the partner, 1 = from anyone else] */
static uint32_t pair_sw[2][2], pair_wk[2][2];
static long ipis, ipi_self, ipi_max = -1, ipi_route[MAXCPU][MAXCPU];
static int print_marks;
/* Entries a program inserts (docs/spec/FORMATS.md 1.6), per pid: count, sum of args. */
#define UEV_LO KUTRACE_RPCIDREQ
#define UEV_N (KUTRACE_DEQUEUE - KUTRACE_RPCIDREQ + 1)
static uint32_t *uev_n[MAXPID];
static uint64_t *uev_sum[MAXPID];

static int user_event(unsigned int ev)
{
	return (ev >= KUTRACE_RPCIDREQ && ev <= KUTRACE_RPCIDTXMSG) ||
	       (ev >= KUTRACE_MARKA && ev <= KUTRACE_LOCKWAKEUP) ||
	       (ev >= KUTRACE_RX_USER && ev <= KUTRACE_DEQUEUE);
}

static void user_count(uint32_t pid, unsigned int ev, uint32_t arg)
{
	pid &= 0xFFFF;
	if (!uev_n[pid]) {
		uev_n[pid] = calloc(UEV_N, sizeof(uint32_t));
		uev_sum[pid] = calloc(UEV_N, sizeof(uint64_t));
		if (!uev_n[pid] || !uev_sum[pid])
			exit(1);
	}
	uev_n[pid][ev - UEV_LO]++;
	uev_sum[pid][ev - UEV_LO] += arg;
}

struct cpu {
	long entries, tsd, tsd_bad, back;
	uint64_t first, last, maxgap;
	int seen;
	uint32_t running;	/* last USERPID (or first header) */
	int have_running;
	int pair_exit;		/* 1: a pair task entered exit_group, 2: done */
};
static struct cpu cpus[MAXCPU];

static int pair_idx(uint32_t pid)
{
	for (int i = 0; i < 2; i++)
		if (pair[i] >= 0 && (uint32_t)pair[i] == pid)
			return i;
	return -1;
}

/* Event @target (switch-in or wakeup) while @from runs on the CPU. */
static void pair_count(uint32_t (*cnt)[2], uint32_t target, uint32_t from)
{
	int t = pair_idx(target);

	if (t >= 0)
		cnt[t][(uint32_t)pair[1 - t] == from ? 0 : 1]++;
}

/*
 * The architecture, from the backend name entry ("tracepoint arm64: ..."),
 * read before anything is counted: the entry is in the block of the CPU
 * kutrace_control ran on, which need not be the first in the file.
 */
static void find_arch(FILE *f, int side_blocks)
{
	static uint64_t w[KUTRACE_BLOCK_WORDS];
	static uint8_t side[KUTRACE_SIDE_BYTES];
	char text[64];

	for (long b = 0; fread(w, sizeof(w), 1, f) == 1; b++) {
		if (side_blocks && fread(side, sizeof(side), 1, f) != 1)
			break;
		for (int i = b ? KUTRACE_HDRN_WORDS : KUTRACE_HDR0_WORDS;
		     i < KUTRACE_BLOCK_WORDS; i++) {
			unsigned int ev = kutrace_word_event(w[i]);
			unsigned int n = kutrace_entry_words(ev);

			if (w[i] == KUTRACE_WORD_END)
				break;
			if (!w[i] || !kutrace_is_varlen(ev))
				continue;
			if ((ev & KUTRACE_TYPE_MASK) == KUTRACE_BACKEND_NAME &&
			    i + n <= KUTRACE_BLOCK_WORDS) {
				memset(text, 0, sizeof(text));
				memcpy(text, &w[i + 1], (n - 1) * 8 < 63 ? (n - 1) * 8 : 63);
				if (strstr(text, " arm64:") ||
				    strstr(text, " riscv64:"))
					watch = watch_arm64;
			}
			i += n - 1;
		}
	}
	rewind(f);
}

static int widx(int nr)
{
	for (int i = 0; i < 8; i++)
		if (watch[i] == nr)
			return i;
	return -1;
}

int main(int argc, char **argv)
{
	FILE *f = fopen(argc > 1 ? argv[1] : "", "rb");
	static uint64_t w[KUTRACE_BLOCK_WORDS];
	static uint8_t side[KUTRACE_SIDE_BYTES];
	long blocks = 0, pcs = 0, names = 0;
	int side_blocks = 0, wrapped = 0, ncpu;
	unsigned int flags0 = 0;
	char backend[64] = "";

	if (!f) {
		perror("ktcheck");
		return 1;
	}
	if (argc == 4) {
		pair[0] = atol(argv[2]);
		pair[1] = atol(argv[3]);
	}
	print_marks = argc == 3 && !strcmp(argv[2], "marks");
	if (fread(w, sizeof(w), 1, f) == 1) {
		rewind(f);
		find_arch(f, ((w[1] >> 56) & KUTRACE_FLAG_SIDE) != 0);
	}
	while (fread(w, sizeof(w), 1, f) == 1) {
		unsigned int flags = w[1] >> 56;
		unsigned int cpu = w[0] >> 56;
		int first = blocks == 0 ? KUTRACE_HDR0_WORDS : KUTRACE_HDRN_WORDS;
		uint32_t cur = (uint32_t)(blocks == 0 ? w[8] : w[2]);
		uint64_t t = w[0] & KUTRACE_HDR_LOW56, pending = 0;
		int have_pending = 0;
		struct cpu *c = &cpus[cpu % MAXCPU];

		if (blocks == 0) {
			if (w[5] > w[3])
				printf("rate %.6f\n", (double)(w[4] - w[2]) /
				       (double)(w[5] - w[3]));
			flags0 = flags;
			side_blocks = (flags & KUTRACE_FLAG_SIDE) != 0;
			wrapped = (flags & KUTRACE_FLAG_WRAP) != 0;
		}
		if (side_blocks && fread(side, sizeof(side), 1, f) != 1)
			break;
		blocks++;
		if (c->seen && t + KUTRACE_LATE_STORE_WINDOW < c->last && !wrapped)
			c->back++;
		if (!c->seen || t < c->first)
			c->first = t;
		c->seen = 1;
		if (!c->have_running) {
			c->running = cur;
			c->have_running = 1;
		}
		for (int i = first; i < KUTRACE_BLOCK_WORDS; i++) {
			uint64_t x = w[i];
			unsigned int ev = kutrace_word_event(x);
			uint32_t ts = kutrace_word_ts(x);
			uint32_t arg = x & 0xFFFFFFFF;
			unsigned int n = kutrace_entry_words(ev);
			uint64_t d;

			if (x == 0)
				continue;
			if (x == KUTRACE_WORD_END)
				break;
			if (ev == KUTRACE_TSDELTA) {
				/* a chain of TSDELTAs: the sum is the step to the next entry */
				c->tsd++;
				c->entries++;
				pending += arg;
				have_pending = 1;
				continue;
			}
			d = (ts - (t & KUTRACE_TS_MASK)) & KUTRACE_TS_MASK;
			if (have_pending) {
				if (((t + pending) & KUTRACE_TS_MASK) != ts)
					c->tsd_bad++;
				if (pending > c->maxgap)
					c->maxgap = pending;
				t += pending;
				have_pending = 0;
				pending = 0;
			} else if (d > KUTRACE_TS_PERIOD - KUTRACE_LATE_STORE_WINDOW) {
				t -= KUTRACE_TS_PERIOD - d;
			} else {
				if (d > c->maxgap && i > first)
					c->maxgap = d;
				t += d;
			}
			c->entries++;
			if (t > c->last)
				c->last = t;
			if (kutrace_is_varlen(ev)) {
				names++;
				if ((ev & KUTRACE_TYPE_MASK) == KUTRACE_BACKEND_NAME) {
					memcpy(backend, &w[i + 1], (n - 1) * 8 < 63 ? (n - 1) * 8 : 63);
				}
				switch (ev & KUTRACE_TYPE_MASK) {
				case KUTRACE_METHODNAME:
				case KUTRACE_LOCKNAME:
				case KUTRACE_QUEUE_NAME:
				case KUTRACE_RES_NAME: {
					char text[64] = "";

					if (i + n <= KUTRACE_BLOCK_WORDS)
						memcpy(text, &w[i + 1], (n - 1) * 8);
					printf("username 0x%03x %u %.56s\n",
					       ev & KUTRACE_TYPE_MASK, arg, text);
					break;
				}
				}
				i += n - 1;
				continue;
			}
			if (ev == KUTRACE_PC_U) {
				pcs++;
				i++;
				continue;
			}
			if (ev == KUTRACE_USERPID) {
				cur = arg;
				swin[cur & 0xFFFF]++;
				if (c->pair_exit < 2)
					pair_count(pair_sw, arg, c->running);
				if (c->pair_exit == 1 && pair_idx(arg) >= 0)
					c->pair_exit = 2;
				c->running = arg;
				continue;
			}
			if (user_event(ev)) {
				user_count(cur, ev, arg);
				if (ev == KUTRACE_MARKD && print_marks)
					printf("markd %u %u %u %llu\n", cur, arg, cpu,
					       (unsigned long long)t);
				continue;
			}
			if (ev == KUTRACE_RUNNABLE) {
				wake[arg & 0xFFFF]++;
				if (c->pair_exit < 2)
					pair_count(pair_wk, arg, c->running);
				continue;
			}
			if (ev == KUTRACE_IPI) {
				ipis++;
				if (arg == cpu)
					ipi_self++;
				if ((long)arg > ipi_max)
					ipi_max = arg;
				if (arg < MAXCPU)
					ipi_route[cpu % MAXCPU][arg]++;
				continue;
			}
			if (ev == KUTRACE_TRAP + KUTRACE_TRAP_PAGEFAULT) {
				pf[cur & 0xFFFF]++;
				if ((x >> KUTRACE_DELTA_SHIFT) & 0xFF)
					pfr[cur & 0xFFFF]++;	/* fused */
			}
			if (ev == KUTRACE_TRAPRET + KUTRACE_TRAP_PAGEFAULT)
				pfr[cur & 0xFFFF]++;
			if (ev >= KUTRACE_SYSCALL64 && ev < KUTRACE_SYSCALL64 + 512) {
				int k = widx(ev - KUTRACE_SYSCALL64);

				if (ev == KUTRACE_SYSCALL64 + NR_EXIT_GROUP && !c->pair_exit &&
				    pair_idx(c->running) >= 0)
					c->pair_exit = 1;
				if (ev == KUTRACE_SYSCALL64 + NR_CLOSE &&
				    (x & 0xFFFF) >= 1000)
					printf("closemark %u %u %llu\n",
					       (unsigned int)(x & 0xFFFF), cpu,
					       (unsigned long long)t);
				if (k >= 0) {
					calls[cur & 0xFFFF][k]++;
					if ((x >> KUTRACE_DELTA_SHIFT) & 0xFF) {
						fused[cur & 0xFFFF][k]++;
						rets[cur & 0xFFFF][k]++;
					}
				}
			}
			if (ev >= KUTRACE_SYSRET64 && ev < KUTRACE_SYSRET64 + 512) {
				int k = widx(ev - KUTRACE_SYSRET64);

				if (k >= 0)
					rets[cur & 0xFFFF][k]++;
			}
		}
	}
	printf("blocks %ld\nwrapped %d\nflags %u\nbackend %s\n", blocks,
	       wrapped, flags0, backend[0] ? backend : "-");
	printf("pcsamples %ld\nnames %ld\n", pcs, names);
	ncpu = 0;
	for (int i = 0; i < MAXCPU; i++)
		ncpu += cpus[i].seen;
	printf("ipi %ld self %ld maxarg %ld cpus %d\n", ipis, ipi_self, ipi_max,
	       ncpu);
	for (int i = 0; i < MAXCPU; i++)
		for (int j = 0; j < MAXCPU; j++)
			if (ipi_route[i][j])
				printf("ipiroute %d %d %ld\n", i, j, ipi_route[i][j]);
	for (int t = 0; pair[0] >= 0 && t < 2; t++)
		printf("pair %ld %ld switchin %u wakeup %u other_switchin %u "
		       "other_wakeup %u\n", pair[t], pair[1 - t], pair_sw[t][0],
		       pair_wk[t][0], pair_sw[t][1], pair_wk[t][1]);
	for (int i = 0; i < MAXCPU; i++)
		if (cpus[i].seen)
			printf("cpu %d entries %ld tsdelta %ld tsdelta_bad %ld "
			       "backsteps %ld span_ticks %llu maxgap %llu\n", i,
			       cpus[i].entries, cpus[i].tsd, cpus[i].tsd_bad,
			       cpus[i].back,
			       (unsigned long long)(cpus[i].last - cpus[i].first),
			       (unsigned long long)cpus[i].maxgap);
	for (int p = 0; p < MAXPID; p++) {
		for (int k = 0; k < 8; k++)
			if (calls[p][k] || rets[p][k])
				printf("pid %d sys %d calls %u fused %u rets %u\n",
				       p, watch[k], calls[p][k], fused[p][k],
				       rets[p][k]);
		if (swin[p] || wake[p] || pf[p])
			printf("pid %d switchin %u wakeup %u pfault %u pfret %u\n",
			       p, swin[p], wake[p], pf[p], pfr[p]);
		for (int e = 0; uev_n[p] && e < UEV_N; e++)
			if (uev_n[p][e])
				printf("pid %d event 0x%03x n %u argsum %llu\n", p,
				       UEV_LO + e, uev_n[p][e],
				       (unsigned long long)uev_sum[p][e]);
	}
	return 0;
}

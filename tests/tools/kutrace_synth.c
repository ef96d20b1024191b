// SPDX-License-Identifier: BSD-3-Clause
/*
 * kutrace_synth - write a valid raw KUtrace file from a small simulated
 * machine, together with the exact CPU timeline postprocessing must find.
 *
 * A discrete-event simulation runs CPUs and threads: user code, fused and
 * unfused syscalls, page faults, device and timer interrupts with softirqs
 * and PC samples, blocking syscalls and faults whose threads later resume
 * inside them on any CPU, preemption, wakeups, idle with MWAIT, marks, long
 * idle gaps (TSDELTA), late stores.  Entries go through lib/raw/rawwrite.c, a
 * model of the kernel module's buffer, so the file has real block layout,
 * fusion, TSDELTA, side blocks and wraparound.  The simulator knows what
 * every CPU is really doing, which is the truth the tests compare against.
 *
 * Expected timeline (-e FILE), one span per line, per CPU in time order:
 *     cpu start end event pid name
 * start/end are full ticks, optionally followed by +N/-N nsec10 for the
 * postprocessing conventions that are not tick aligned (a point event
 * such as a mark or mwait occupies 1 nsec10 and the interrupted span
 * resumes after it; a "-c-exit-" span ends at the next event and starts a
 * latency before it).  Lines "# timebase C0 U0 C1 U1" give the time pairs
 * so that a checker converts ticks exactly as postprocessing does.
 * Only spans whose content a postprocessor can know are listed (see
 * write_expected: after a wraparound a CPU is listed from the moment its
 * state is determined again).
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tool.h"
#include "rawwrite.h"

/* ---------------------------------------------------------------------- */
/* Options and randomness                                                  */
/* ---------------------------------------------------------------------- */

struct opts {
	uint32_t seed;
	int ncpu;
	int nthreads;
	double seconds;		/* simulated duration */
	double size_mb;		/* or stop at this file size */
	int ipc, wrap, gaps, late, rpc;
	long wrap_blocks;
	double long_gap;	/* seconds of silence on the last CPU */
	int idle_start;		/* CPUs 1.. idle at the start (see idle_start()) */
	double idle_end;	/* odd CPUs idle for the last S seconds */
	double rate;		/* ticks per usec */
	uint64_t start_usec;
	const char *out, *expected;
	int mix_sys, mix_fault, mix_block, mix_mark;	/* percent weights */
};

static uint64_t rng_state;

static uint32_t rnd(void)
{
	/* splitmix64: deterministic for a seed on every platform */
	uint64_t z = (rng_state += 0x9E3779B97F4A7C15ULL);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return (uint32_t)((z ^ (z >> 31)) >> 32);
}

/* Uniform in lo..hi inclusive. */
static uint64_t rr(uint64_t lo, uint64_t hi)
{
	return lo + (hi > lo ? ((uint64_t)rnd() << 32 | rnd()) % (hi - lo + 1) : 0);
}

static int pct(int p)
{
	return (int)(rnd() % 100) < p;
}

/* ---------------------------------------------------------------------- */
/* Simulated machine                                                       */
/* ---------------------------------------------------------------------- */

enum { T_RUN, T_READY, T_BLOCKED, T_GONE };

struct thread {
	uint32_t pid;
	char comm[17];
	int state;
	uint64_t ready_at;	/* T_READY: may run from then on */
	uint64_t wake_at;	/* T_BLOCKED: a wakeup is made then */
	int kev;		/* kernel routine it is inside (0 = user) */
	int named;		/* PIDNAME written since the last wrap */
	uint32_t rpc;		/* --rpc: the RPC it works on, or 0 */
};

/* One truth record: from (tick, adj) on, the CPU runs `event`. */
enum { A_NONE, A_SWITCH, A_RETUSER, A_IDLESTART };
struct rec {
	uint64_t tick;
	int32_t adj;		/* nsec10 added after conversion */
	int event;
	uint32_t pid;
	int action;
	int old_t, new_t;	/* thread indexes for A_SWITCH, -1 = idle */
	int new_depth;
};

struct cpu {
	int id;
	uint64_t now;
	int cur;		/* thread index, -1 = idle */
	int stack[8];		/* kernel routines (call events) */
	int depth;
	uint64_t next_timer;
	int mwait_hint;		/* pending MWAIT (-1 none) */
	uint64_t mwait_tick;
	int done;
	int long_gap_done;
	int started;
	int idle_end;		/* idles until the stop time from now on */
	struct rec *recs;
	size_t nrec, cap;
};

static struct opts O;
static struct kt_rw *W;
static struct cpu *C;
static struct thread *T;
static int NT;
static uint64_t T0, TEND;
static long last_wraps;
static uint64_t entries;

#define US(x)	((uint64_t)((x) * O.rate))
#define HZ_TICKS US(4000)	/* CONFIG_HZ=250 timer interrupts */

/* Syscalls by behaviour; never clone/fork (postprocessing adds wakeups). */
static const int fast_sys[] = { 39, 0, 1, 8, 5, 228, 98, 12, 96, 102 };
static const int long_sys[] = { 0, 1, 257, 9, 11, 4, 3, 16, 44, 45, 17, 18 };
static const int block_sys[] = { 0, 202, 7, 232, 35, 23, 61 };
#define NELEM(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* Device interrupt vectors and names, as /proc/interrupts would give. */
static const struct { int vec; const char *name; } devirq[] = {
	{ 0x22, "eth0-rx-0" }, { 0x23, "nvme0q1" }, { 0x24, "ahci" },
};

/*
 * Postprocessing's default c-exit latency for the MWAIT hints we use
 * (docs/spec/FORMATS.md 5.7, in units of 100 ns; the model name we write matches
 * neither special table).
 */
static const struct { int hint; int lat100ns; } mwait_hints[] = {
	{ 0x00, 2 }, { 0x01, 10 }, { 0x20, 133 },
};

static int sys_event(int nr)
{
	return KUTRACE_SYSCALL64 + (int)kutrace_map_syscall((unsigned)nr);
}

/* What the CPU runs now: innermost kernel routine, user code or idle. */
static int cur_event(const struct cpu *c)
{
	if (c->depth > 0)
		return c->stack[c->depth - 1];
	if (c->cur < 0)
		return KUTRACE_IDLE;
	return KUTRACE_USER_BASE + (int)(T[c->cur].pid & 0xFFFF);
}

static uint32_t cur_pid(const struct cpu *c)
{
	return c->cur < 0 ? 0 : T[c->cur].pid;
}

static struct rec *span_at(struct cpu *c, uint64_t tick, int32_t adj, int event)
{
	if (!O.expected)
		return NULL;
	if (c->nrec == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 1024;
		c->recs = kt_xrealloc(c->recs, c->cap * sizeof(*c->recs));
	}
	struct rec *r = &c->recs[c->nrec++];

	*r = (struct rec){ tick, adj, event, cur_pid(c), A_NONE, -1, -1, 0 };
	return r;
}

static void resume(struct cpu *c, uint64_t tick, int32_t adj)
{
	span_at(c, tick, adj, cur_event(c));
}

/*
 * Postprocessing inserts a "-c-exit-" span before the first event after an
 * MWAIT, ending at that event; the idle span goes on from there.
 */
static void cexit(struct cpu *c, uint64_t t, int32_t adj)
{
	if (c->mwait_hint < 0)
		return;
	int lat = 0;

	for (int i = 0; i < NELEM(mwait_hints); i++)
		if (mwait_hints[i].hint == c->mwait_hint)
			lat = 10 * mwait_hints[i].lat100ns;
	c->mwait_hint = -1;
	if (lat >= 10) {
		span_at(c, t, adj - lat, KUTRACE_C_EXIT);
		resume(c, t, adj);
	}
}

static unsigned int ipc_byte(void)
{
	return O.ipc ? rnd() & 0xF : 0;
}

static void check_wrap(void)
{
	long w = kt_rw_wraps(W);

	/* The module clears its pid filter at every wraparound. */
	if (w != last_wraps) {
		last_wraps = w;
		for (int i = 0; i < NT; i++)
			T[i].named = 0;
	}
}

/* One single-word entry on this CPU (through the module model). */
static void ent(struct cpu *c, uint64_t t, int event, uint64_t arg)
{
	cexit(c, t, 0);
	kt_rw_trace1(W, c->id, t, (unsigned)event, arg, ipc_byte());
	entries++;
	check_wrap();
}

static void call(struct cpu *c, uint64_t t, int event, uint64_t arg)
{
	ent(c, t, event, arg & KUTRACE_ARG0_MASK);
	c->stack[c->depth++] = event;
	resume(c, t, 0);
}

static struct rec *ret(struct cpu *c, uint64_t t, int64_t retval)
{
	int ev = c->stack[--c->depth];

	ent(c, t, ev + KUTRACE_RET_BIT, (uint64_t)retval & KUTRACE_ARG0_MASK);
	return span_at(c, t, 0, cur_event(c));
}

/* Marks and MWAIT split the running span: 1 nsec10 point, then resume. */
static void point_split(struct cpu *c, uint64_t t, int event, uint64_t arg)
{
	ent(c, t, event, arg);
	span_at(c, t, 0, event);
	resume(c, t, 1);
}

static uint64_t step_t(struct cpu *c, uint64_t lo, uint64_t hi)
{
	c->now += rr(lo, hi);
	return c->now;
}

/* ---------------------------------------------------------------------- */
/* Scheduling                                                              */
/* ---------------------------------------------------------------------- */

static int pick_ready(uint64_t t, int exclude)
{
	int best = -1;

	for (int i = 0; i < NT; i++)
		if (i != exclude && T[i].state == T_READY && T[i].ready_at <= t &&
		    (best < 0 || T[i].ready_at < T[best].ready_at))
			best = i;
	return best;
}

/*
 * The scheduler pseudo-syscall: 0xDFF, PIDNAME on first sight, 0x200 next,
 * 0xFFF.  `block` says the current thread sleeps (inside the routine on
 * top of its stack) instead of staying runnable.
 */
static void schedule(struct cpu *c, int block, int next)
{
	int old = c->cur;
	int kev = c->depth > 0 ? c->stack[c->depth - 1] : 0;

	call(c, c->now, KUTRACE_SCHED_CALL, 0);
	uint64_t t = step_t(c, 30, 300);

	if (next >= 0 && !T[next].named) {
		kt_rw_name(W, c->id, t, KUTRACE_PIDNAME,
			   T[next].pid & KUTRACE_ARG0_MASK, T[next].comm);
		T[next].named = 1;
		t = step_t(c, 1, 5);
	}
	ent(c, t, KUTRACE_USERPID, next >= 0 ? T[next].pid : 0);
	kt_rw_set_task(W, c->id, next >= 0 ? T[next].pid : 0,
		       next >= 0 ? T[next].comm : "swapper");
	uint64_t tret = step_t(c, 20, 200);

	if (old >= 0) {
		T[old].kev = kev;
		if (block) {
			T[old].state = T_BLOCKED;
			T[old].wake_at = tret + rr(US(20), US(3000));
		} else {
			T[old].state = T_READY;
			T[old].ready_at = tret + 1;
		}
	}
	c->depth = 0;
	c->cur = next;
	if (next >= 0) {
		T[next].state = T_RUN;
		if (T[next].kev)
			c->stack[c->depth++] = T[next].kev;
		T[next].kev = 0;
	}
	ent(c, tret, KUTRACE_SCHED_RET, 0);
	struct rec *r = span_at(c, tret, 0, cur_event(c));

	if (r) {
		r->action = A_SWITCH;
		r->old_t = old;
		r->new_t = next;
		r->new_depth = c->depth;
	}
	step_t(c, 5, 100);
}

/* Wakeups due now, made inside a device interrupt and its softirq. */
static int wake_due(struct cpu *c)
{
	int due[4], n = 0;

	for (int i = 0; i < NT && n < 4; i++)
		if (T[i].state == T_BLOCKED && T[i].wake_at <= c->now)
			due[n++] = i;
	if (n == 0)
		return 0;
	int d = (int)(rnd() % NELEM(devirq));

	call(c, c->now, KUTRACE_IRQ + devirq[d].vec, 0);
	int in_bh = pct(50);

	if (in_bh) {
		ret(c, step_t(c, 20, 400), 0);
		call(c, step_t(c, 2, 20), KUTRACE_IRQ + KUTRACE_IRQ_BH, 3);
	}
	for (int k = 0; k < n; k++) {
		uint64_t t = step_t(c, 5, 100);

		ent(c, t, KUTRACE_RUNNABLE, T[due[k]].pid);
		T[due[k]].state = T_READY;
		T[due[k]].ready_at = t + 1;
	}
	ret(c, step_t(c, 10, 400), 0);
	step_t(c, 2, 40);
	return 1;
}

/* Local timer interrupt, PC sample, timer softirq, maybe preemption. */
static void timer_irq(struct cpu *c)
{
	int user = c->depth == 0 && c->cur >= 0;

	c->next_timer += HZ_TICKS;
	/*
	 * rawtoevent stamps the PC sample 1 nsec10 before the timer entry, so
	 * it is the event that ends a c-exit; the 1-nsec10 idle rest is too
	 * short to be written (docs/spec/FORMATS.md 4.4, 5.4 10a).
	 */
	cexit(c, c->now, -1);
	call(c, c->now, KUTRACE_IRQ + KUTRACE_IRQ_LOCAL_TIMER, 0);
	ret(c, step_t(c, 15, 500), 0);
	uint64_t pc = user ? 0x00005555550000ULL + (rnd() & 0xFFFFF) * 4 :
		      0xFFFFFFFF81000000ULL + (rnd() & 0xFFFFF) * 4;

	kt_rw_trace2(W, c->id, step_t(c, 1, 5), KUTRACE_PC_U, 2100, pc);
	entries++;
	if (pct(40)) {
		call(c, step_t(c, 2, 30), KUTRACE_IRQ + KUTRACE_IRQ_BH, 1);
		ret(c, step_t(c, 20, 600), 0);
	}
	step_t(c, 2, 30);
	if (user) {
		int n = pick_ready(c->now, c->cur);

		if (n >= 0 && pct(60))
			schedule(c, 0, n);
	}
}

/* ---------------------------------------------------------------------- */
/* What a CPU does next                                                    */
/* ---------------------------------------------------------------------- */

static void page_fault(struct cpu *c, int may_block)
{
	call(c, c->now, KUTRACE_TRAP + KUTRACE_TRAP_PAGEFAULT, rnd());
	if (may_block && pct(10)) {
		/* Major fault: sleep on the disk inside the fault. */
		step_t(c, 100, 2000);
		int n = pick_ready(c->now, c->cur);

		schedule(c, 1, n);
		return;
	}
	ret(c, step_t(c, pct(60) ? 20 : 256, pct(60) ? 250 : 6000), 0);
	step_t(c, 1, 50);
}

static void long_syscall(struct cpu *c)
{
	int nr = long_sys[rnd() % NELEM(long_sys)];
	int ev = sys_event(nr);
	int64_t rv = pct(20) ? -(int64_t)rr(1, 34) : (int64_t)rr(0, 65000);

	if (O.late && pct(25)) {
		/*
		 * Late store: the syscall entry read its time, then an
		 * interrupt stored its own entries first (docs/spec/FORMATS.md 3.6).
		 */
		uint64_t ta = c->now;
		uint64_t tb = step_t(c, 3, 60);
		uint64_t tc = step_t(c, 30, 400);
		int irq = KUTRACE_IRQ + devirq[rnd() % NELEM(devirq)].vec;

		cexit(c, ta, 0);
		kt_rw_trace1(W, c->id, tb, (unsigned)irq, 0, ipc_byte());
		kt_rw_trace1(W, c->id, tc, (unsigned)irq + KUTRACE_RET_BIT, 0,
			     ipc_byte());
		kt_rw_trace1(W, c->id, ta, (unsigned)ev, rnd() & 0xFFFF,
			     ipc_byte());
		entries += 3;
		check_wrap();
		c->stack[c->depth++] = ev;
		span_at(c, ta, 0, ev);
		span_at(c, tb, 0, irq);
		span_at(c, tc, 0, ev);
	} else {
		call(c, c->now, ev, rnd());
	}
	step_t(c, 5, 2000);
	if (pct(15)) {
		page_fault(c, 0);
	}
	if (pct(15)) {
		int irq = KUTRACE_IRQ + devirq[rnd() % NELEM(devirq)].vec;

		call(c, c->now, irq, 0);
		ret(c, step_t(c, 20, 900), 0);
		step_t(c, 5, 500);
	}
	struct rec *r = ret(c, step_t(c, 1, 3000), rv);

	if (r)
		r->action = A_RETUSER;
	step_t(c, 1, 200);
}

static void user_step(struct cpu *c)
{
	int r = (int)(rnd() % 100);
	int a = O.mix_sys, b = a + O.mix_fault, d = b + O.mix_block,
	    e = d + O.mix_mark;

	if (r < a) {
		if (pct(55)) {	/* short call: the module fuses it */
			int nr = fast_sys[rnd() % NELEM(fast_sys)];

			call(c, c->now, sys_event(nr), rnd());
			struct rec *x = ret(c, step_t(c, 1, 250), (int64_t)rr(0, 127));

			if (x)
				x->action = A_RETUSER;
			step_t(c, 1, 300);
		} else {
			long_syscall(c);
		}
	} else if (r < b) {
		page_fault(c, 1);
	} else if (r < d) {
		int nr = block_sys[rnd() % NELEM(block_sys)];
		int n;

		call(c, c->now, sys_event(nr), rnd());
		step_t(c, 20, 1500);
		if (pct(15) && (n = pick_ready(c->now, c->cur)) >= 0) {
			/* sched_yield-like: stays runnable inside the call */
			schedule(c, 0, n);
		} else {
			schedule(c, 1, pick_ready(c->now, c->cur));
		}
	} else if (r < e && O.rpc && c->cur >= 0 && pct(50)) {
		/* --rpc: the thread begins an RPC, or answers the one it
		 * works on and is done with it (as client_server marks). */
		static uint32_t next_rpc;
		struct thread *t = &T[c->cur];

		if (!t->rpc) {
			t->rpc = 1 + next_rpc++ % 65535;
			point_split(c, c->now, KUTRACE_RPCIDREQ, t->rpc);
		} else {
			point_split(c, c->now, KUTRACE_RPCIDRESP, t->rpc);
			step_t(c, 1, 50);
			point_split(c, c->now, KUTRACE_RPCIDREQ, 0);
			t->rpc = 0;
		}
		step_t(c, 5, 300);
	} else if (r < e) {
		int m = KUTRACE_MARKA + (int)(rnd() % 4);
		static const char *labels[] = { "hello", "/hello", "req", "/req",
						"a", "cow" };
		uint64_t arg = m == KUTRACE_MARKD ? rnd() :
			       kt_base40_encode(labels[rnd() % 6]);

		point_split(c, c->now, m, arg);
		step_t(c, 5, 300);
	} else {
		/* user computation, cut by the next timer interrupt */
		uint64_t until = c->now + rr(US(2), US(300));

		c->now = until < c->next_timer ? until : c->next_timer;
	}
}

/* A thread that resumed inside its syscall or fault finishes it. */
static void kernel_step(struct cpu *c)
{
	int ev = c->stack[c->depth - 1];

	step_t(c, 5, 500);
	if (pct(20)) {
		int irq = KUTRACE_IRQ + devirq[rnd() % NELEM(devirq)].vec;

		call(c, c->now, irq, 0);
		ret(c, step_t(c, 20, 900), 0);
		step_t(c, 5, 300);
	}
	struct rec *r = ret(c, c->now,
			    ev >= KUTRACE_SYSCALL64 ? (int64_t)rr(0, 4096) : 0);

	if (r && ev >= KUTRACE_SYSCALL64)
		r->action = A_RETUSER;
	step_t(c, 1, 200);
}

static uint64_t next_wake(void)
{
	uint64_t w = UINT64_MAX;

	for (int i = 0; i < NT; i++)
		if (T[i].state == T_BLOCKED && T[i].wake_at < w)
			w = T[i].wake_at;
	return w;
}

static void idle_step(struct cpu *c)
{
	int n = pick_ready(c->now, -1);

	if (n >= 0) {
		schedule(c, 0, n);
		return;
	}
	if (c->now >= c->next_timer) {
		timer_irq(c);
		return;
	}
	if (O.long_gap > 0 && !c->long_gap_done && c->id == O.ncpu - 1 &&
	    c->now > T0 + (TEND - T0) / 3) {
		/* A CPU silent for seconds: chained TSDELTA words. */
		c->long_gap_done = 1;
		c->now += US(O.long_gap * 1e6);
		c->next_timer = c->now;
		timer_irq(c);	/* the entry after the silence */
		return;
	}
	if (c->mwait_hint < 0 && pct(60)) {
		int h = mwait_hints[rnd() % NELEM(mwait_hints)].hint;

		point_split(c, step_t(c, 10, 100), KUTRACE_MWAIT, (uint64_t)h);
		c->mwait_hint = h;
		c->mwait_tick = c->now;
	}
	uint64_t until = c->now + rr(US(20), US(1000));

	uint64_t w = next_wake();

	if (O.gaps && pct(4)) {	/* NO_HZ idle longer than 7/8 wrap period */
		until = c->now + rr(KUTRACE_TSDELTA_THRESHOLD + 1, 3 * KUTRACE_TS_PERIOD);
	} else {
		if (until > c->next_timer)
			until = c->next_timer;
		if (w > c->now && w < until)
			until = w;
	}
	/* leave room for the c-exit latency inside the low-power span */
	if (c->mwait_hint >= 0 && until < c->mwait_tick + US(40))
		until = c->mwait_tick + US(40);
	if (until <= c->now)
		until = c->now + 1;
	c->now = until;
	if (c->now > c->next_timer)
		c->next_timer = c->now + HZ_TICKS;
}

/*
 * --idle-end: the CPU takes no more work.  Its thread sleeps at its next
 * return to user code; once idle (maybe in MWAIT) the CPU stays silent,
 * idle until the trace stops.  Returns 1 when it has gone quiet.
 */
static int end_idle(struct cpu *c)
{
	if (c->cur >= 0) {
		if (c->depth > 0 || c->now >= c->next_timer)
			return 0;	/* kernel code and ticks go on */
		schedule(c, 1, -1);
		return 1;
	}
	if (c->mwait_hint < 0 && pct(50))
		point_split(c, step_t(c, 10, 100), KUTRACE_MWAIT, 0x20);
	c->idle_end = 1;
	c->done = 1;
	return 1;
}

static void cpu_step(struct cpu *c)
{
	if (c->now >= TEND ||
	    (O.size_mb > 0 && (double)kt_rw_bytes(W) >= O.size_mb * 1048576.0)) {
		c->done = 1;
		return;
	}
	if (c->idle_end || (O.idle_end > 0 && (c->id & 1) &&
			     c->now >= TEND - US(O.idle_end * 1e6) && end_idle(c)))
		return;
	if (!c->started) {
		/* Every CPU starts in the scheduler, picking work or idle. */
		c->started = 1;
		schedule(c, 0, pick_ready(c->now, -1));
		return;
	}
	if (wake_due(c))
		return;
	if (c->cur < 0) {
		idle_step(c);
	} else if (c->now >= c->next_timer) {
		timer_irq(c);
	} else if (c->depth > 0) {
		kernel_step(c);
	} else {
		user_step(c);
	}
}

/* ---------------------------------------------------------------------- */
/* Trace start: what the control program's DoInit writes (docs/spec/FORMATS.md 7) */
/* ---------------------------------------------------------------------- */

static void init_names(struct cpu *c, uint32_t ctl_pid)
{
	uint64_t t = c->now;
	char buf[64];

	kt_rw_name(W, c->id, t++, KUTRACE_KERNEL_VER, 0,
		   "#1 SMP PREEMPT_DYNAMIC Debian 6.1.94-1 (2024-06-21)");
	kt_rw_name(W, c->id, t++, KUTRACE_MODEL_NAME, 0,
		   "Intel(R) Xeon(R) Gold 6130 CPU @ 2.10GHz");
	kt_rw_name(W, c->id, t++, KUTRACE_HOST_NAME, 0, "synth-host");
	kt_rw_name(W, c->id, t++, KUTRACE_PIDNAME, 0, "-idle-");
	for (size_t i = 0; i < kt_trap_count; i++)
		kt_rw_name(W, c->id, t++, KUTRACE_TRAPNAME,
			   (uint32_t)kt_trap_names[i].number, kt_trap_names[i].name);
	for (size_t i = 0; i < kt_irq_count; i++)
		kt_rw_name(W, c->id, t++, KUTRACE_INTERRUPTNAME,
			   (uint32_t)kt_irq_names[i].number, kt_irq_names[i].name);
	for (int i = 0; i < NELEM(devirq); i++)
		kt_rw_name(W, c->id, t++, KUTRACE_INTERRUPTNAME,
			   (uint32_t)devirq[i].vec, devirq[i].name);
	for (size_t i = 0; i < kt_syscall64_count; i++) {
		unsigned nr = (unsigned)kt_syscall64_names[i].number;

		if (nr <= KUTRACE_MAX_SYSCALL)
			kt_rw_name(W, c->id, t++, KUTRACE_SYSCALL64NAME,
				   kutrace_map_syscall(nr), kt_syscall64_names[i].name);
	}
	kt_rw_name(W, c->id, t++, KUTRACE_SYSCALL64NAME,
		   KUTRACE_SCHED_CALL - KUTRACE_SYSCALL64, "-sched-");
	for (size_t i = 0; i < kt_errno_count; i++)
		kt_rw_name(W, c->id, t++, KUTRACE_ERRNONAME,
			   (uint32_t)kt_errno_names[i].number, kt_errno_names[i].name);
	snprintf(buf, sizeof(buf), "kutrace_control");
	kt_rw_name(W, c->id, t++, KUTRACE_PIDNAME, ctl_pid & 0xFFFF, buf);
	kt_rw_trace1(W, c->id, t++, KUTRACE_USERPID, ctl_pid, 0);
	c->now = t;
}

/*
 * --idle-start: CPUs 1.. idle when tracing starts, as the module's
 * start-of-trace note finds them (module/kutrace_main.c, kt_note_current):
 * the idle task's name entry opens the CPU's block, a switch entry to
 * pid 0 (not inside the scheduler) follows a few usec later, and the CPU
 * stays idle until its first scheduler call, up to 2 ms later.  Odd CPUs
 * open their block up to 10 usec before the start time pair (within the
 * late-store window the readers allow), even ones after it: the CPU is
 * idle from the later of its block start and the trace start.
 */
static void idle_start_cpus(void)
{
	for (int i = 1; i < O.ncpu; i++) {
		struct cpu *c = &C[i];
		uint64_t d = rr(US(2), US(10));
		uint64_t tb = (i & 1) ? T0 - d : T0 + d;
		uint64_t tn = tb + rr(US(1), US(9));
		char nm[32];

		snprintf(nm, sizeof(nm), "swapper/%d", i);
		kt_rw_name(W, i, tb, KUTRACE_PIDNAME, 0, nm);
		kt_rw_trace1(W, i, tn, KUTRACE_USERPID, 0, ipc_byte());
		entries += 2;
		check_wrap();
		struct rec *r = span_at(c, tb > T0 ? tb : T0, 0, KUTRACE_IDLE);

		if (r)
			r->action = A_IDLESTART;
		c->now = T0 + rr(US(200), US(2000));
		c->next_timer = c->now + rr(1, HZ_TICKS);
	}
}

/* ---------------------------------------------------------------------- */
/* Expected timeline                                                       */
/* ---------------------------------------------------------------------- */

struct ref {
	uint64_t tick;
	int cpu;
	size_t i;
};

/* Time order as ktnest's by_time: the oracles share no code on purpose. */
static int cmp_ref(const void *a, const void *b)
{
	const struct ref *x = a, *y = b;

	if (x->tick != y->tick)
		return x->tick < y->tick ? -1 : 1;
	if (x->cpu != y->cpu)
		return x->cpu - y->cpu;
	return x->i < y->i ? -1 : x->i > y->i;
}

static void name_of(char *buf, size_t n, int ev, uint32_t pid)
{
	const char *s = NULL;

	if (ev == KUTRACE_IDLE)
		s = "-idle-";
	else if (ev == KUTRACE_C_EXIT)
		s = "-c-exit-";
	else if (ev == KUTRACE_MWAIT)
		s = "mwait";
	else if (ev >= KUTRACE_MARKA && ev <= KUTRACE_MARKD)
		s = "mark";
	else if (ev == KUTRACE_SCHED_CALL)
		s = "-sched-";
	else if (ev > KUTRACE_USER_BASE) {
		for (int i = 0; i < NT; i++)
			if ((T[i].pid & 0xFFFF) == pid)
				snprintf(buf, n, "%s.%u", T[i].comm, pid);
		return;
	} else if (ev >= KUTRACE_SYSCALL64)
		s = kt_syscall_name(ev - KUTRACE_SYSCALL64 - ((ev & 0x400) ? 0x200 : 0));
	else if (ev == KUTRACE_IRQ + KUTRACE_IRQ_BH)
		s = "BH";
	else if (ev == KUTRACE_IRQ + KUTRACE_IRQ_LOCAL_TIMER)
		s = "local_timer_vector";
	else if (ev == KUTRACE_TRAP + KUTRACE_TRAP_PAGEFAULT)
		s = "page_fault";
	else if (ev >= KUTRACE_IRQ)
		s = "irq";
	snprintf(buf, n, "%s", s ? s : "?");
}

/*
 * Which spans can a postprocessor know?  It sees a CPU from its first
 * surviving block on, starting with the header's thread in an unknown
 * state.  A CPU is "synced" (its stack as postprocessing rebuilds it
 * equals the truth) after switching to idle, to a thread whose stack it
 * saved while synced, or to a never-seen thread that was preempted in user
 * mode (the default stack [user, -sched-] is then right); also after any
 * syscall returns to user mode (the return fix-up of docs/spec/FORMATS.md 5.3 pops
 * to user whatever was believed).  Without wraparound every CPU is synced
 * from its first scheduler return on.  A CPU's last state lasts to the
 * end of the trace, the latest state change of any CPU; an idle one to
 * the stop time.  A CPU idle from the trace start (idle_start_cpus) is
 * known from its first block on.
 */
static void write_expected(uint64_t c1, uint64_t u1)
{
	FILE *f = fopen(O.expected, "w");

	if (!f)
		kt_die("%s: cannot create: %s", O.expected, strerror(errno));
	fprintf(f, "# kutrace_synth expected CPU timeline: cpu start end event pid name\n");
	fprintf(f, "# timebase %llu %llu %llu %llu\n", (unsigned long long)T0,
		(unsigned long long)O.start_usec, (unsigned long long)c1,
		(unsigned long long)u1);
	fprintf(f, "# cpus %d wraps %ld\n", O.ncpu, last_wraps);

	enum { UNSEEN, OK, BAD };
	int *st = kt_xcalloc((size_t)NT, sizeof(int));
	uint64_t *s_c = kt_xcalloc((size_t)O.ncpu, sizeof(uint64_t));
	int *hdr = kt_xcalloc((size_t)O.ncpu, sizeof(int));
	int *live = kt_xcalloc((size_t)O.ncpu, sizeof(int));
	int *synced = kt_xcalloc((size_t)O.ncpu, sizeof(int));
	int *has = kt_xcalloc((size_t)O.ncpu, sizeof(int));
	int b0cpu;
	uint64_t b0ctr;
	size_t total = 0, k = 0;

	/* The end of the trace: the latest event of any CPU. */
	struct rec end = { 0 }, stop = { .tick = c1 };

	for (int c = 0; c < O.ncpu; c++) {
		const struct rec *l = C[c].nrec ? &C[c].recs[C[c].nrec - 1] : NULL;

		if (l && (l->tick > end.tick || (l->tick == end.tick && l->adj > end.adj)))
			end = *l;
	}
	kt_rw_block0(W, &b0cpu, &b0ctr);
	for (int c = 0; c < O.ncpu; c++) {
		uint32_t pid = 0;

		has[c] = kt_rw_first_block(W, c, &s_c[c], &pid);
		if (!last_wraps && c == b0cpu && (!has[c] || b0ctr < s_c[c])) {
			has[c] = 1;
			s_c[c] = b0ctr;
			pid = T[NT - 1].pid;	/* the control program */
		}
		hdr[c] = -1;
		for (int i = 0; i < NT; i++)
			if (T[i].pid == pid)
				hdr[c] = i;
		total += C[c].nrec;
	}
	struct ref *refs = kt_xmalloc((total + 1) * sizeof(*refs));

	for (int c = 0; c < O.ncpu; c++)
		for (size_t i = 0; i < C[c].nrec; i++)
			refs[k++] = (struct ref){ C[c].recs[i].tick, c, i };
	qsort(refs, total, sizeof(*refs), cmp_ref);
	/* Per CPU the output must stay in time order: buffer lines per CPU. */
	struct kt_buf *out = kt_xcalloc((size_t)O.ncpu, sizeof(*out));

	for (size_t j = 0; j < total; j++) {
		int c = refs[j].cpu;
		struct cpu *cp = &C[c];
		struct rec *r = &cp->recs[refs[j].i];

		/* Idle from the trace start (idle_start_cpus), if its block survived. */
		int first_idle = r->action == A_IDLESTART && has[c] && !last_wraps;

		if (!first_idle && (!has[c] || r->tick < s_c[c])) {
			/*
			 * A switch postprocessing never sees leaves the
			 * stack it saved for that thread stale.
			 */
			if (r->action == A_SWITCH && r->old_t >= 0 &&
			    st[r->old_t] != UNSEEN)
				st[r->old_t] = BAD;
			continue;
		}
		if (!live[c]) {
			live[c] = 1;
			if (hdr[c] >= 0)
				st[hdr[c]] = BAD;
		}
		if (r->action == A_SWITCH) {
			if (r->old_t >= 0)
				st[r->old_t] = synced[c] ? OK : BAD;
			if (r->new_t < 0)
				synced[c] = 1;
			else
				synced[c] = st[r->new_t] == OK ||
					    (st[r->new_t] == UNSEEN && r->new_depth == 0);
			if (!synced[c] && r->new_t >= 0)
				st[r->new_t] = BAD;
		} else if (r->action == A_RETUSER || first_idle) {
			synced[c] = 1;
		}
		if (!synced[c])
			continue;
		/*
		 * A CPU's last state lasts to the end of the trace, idle to
		 * the stop time: nothing else happened on it until then.
		 */
		struct rec *nx = refs[j].i + 1 < cp->nrec ? &cp->recs[refs[j].i + 1] :
				 r->event == KUTRACE_IDLE ? &stop : &end;

		if (nx->tick == r->tick && nx->adj == r->adj)
			continue;	/* zero length: no row */
		char nm[64];

		name_of(nm, sizeof(nm), r->event, r->pid & 0xFFFF);
		kt_buf_printf(&out[c], "%d %llu%+d %llu%+d %d %u %s\n", c,
			      (unsigned long long)r->tick, r->adj,
			      (unsigned long long)nx->tick, nx->adj, r->event,
			      r->pid, nm);
	}
	for (int c = 0; c < O.ncpu; c++) {
		if (out[c].len)
			fwrite(out[c].p, 1, out[c].len, f);
		kt_buf_free(&out[c]);
	}
	if (fclose(f) != 0)
		kt_die("%s: write error: %s", O.expected, strerror(errno));
	free(out);
	free(refs);
	free(st);
	free(s_c);
	free(hdr);
	free(live);
	free(synced);
	free(has);
}

/* ---------------------------------------------------------------------- */
/* main                                                                    */
/* ---------------------------------------------------------------------- */

static void usage(FILE *f, int status)
{
	fprintf(f,
"usage: kutrace_synth [options] -o OUT.trace [-e EXPECTED]\n"
"  -s SEED        random seed (default 1); same seed, same bytes\n"
"  -c CPUS        number of CPUs 1..64 (default 4)\n"
"  -t THREADS     user threads (default 2*CPUS+2)\n"
"  -d SECONDS     simulated duration (default 0.05)\n"
"  -m MB          stop when the file reaches MB megabytes\n"
"  -r RATE        ticks per usec (default 60)\n"
"  -u USEC        start gettimeofday usec (default 2024-07-09 15:29:22 UTC)\n"
"  -x MIX         workload weights sys,fault,block,mark in percent\n"
"                 (default 30,10,10,3; the rest is user computation)\n"
"  --ipc          IPC side blocks (flag 0x80)\n"
"  --wrap N       wraparound buffer of N blocks (flag 0x40)\n"
"  --gaps         NO_HZ idle gaps longer than 0xE0000 ticks (TSDELTA)\n"
"  --long-gap S   one CPU silent for S seconds (chained TSDELTA)\n"
"  --late         late stores (entries stored after later ones)\n"
"  --idle-start   CPUs 1.. idle at the start until a scheduler call, their\n"
"                 blocks opened up to 10 usec before or after the start pair\n"
"  --idle-end S   odd CPUs take no work in the last S seconds: idle (maybe\n"
"                 in MWAIT) and silent until the stop time\n"
"  --rpc          half the marks are RPC requests and responses instead:\n"
"                 each thread begins an RPC, then answers it and is done\n"
"  -e FILE        write the expected CPU timeline\n"
"  -h, --help     this text\n");
	exit(status);
}

/* A complete finite decimal number, or die naming the option. */
static double num(const char *s, const char *opt)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s || *end || !isfinite(v))
		kt_die("%s %s: not a number", opt, s);
	return v;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "ipc", no_argument, 0, 'I' },
		{ "wrap", required_argument, 0, 'W' },
		{ "gaps", no_argument, 0, 'G' },
		{ "long-gap", required_argument, 0, 'L' },
		{ "late", no_argument, 0, 'S' },
		{ "idle-start", no_argument, 0, 'A' },
		{ "idle-end", required_argument, 0, 'E' },
		{ "rpc", no_argument, 0, 'R' },
		{ "help", no_argument, 0, 'h' },
		{ 0, 0, 0, 0 },
	};
	int ch;

	kt_set_progname(argv[0]);
	O = (struct opts){ .seed = 1, .ncpu = 4, .seconds = 0.05, .rate = 60,
			   .start_usec = 1720538962000000ULL,
			   .mix_sys = 30, .mix_fault = 10, .mix_block = 10,
			   .mix_mark = 3 };
	while ((ch = getopt_long(argc, argv, "s:c:t:d:m:r:u:x:o:e:h", lo, NULL)) != -1) {
		switch (ch) {
		case 's': O.seed = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'c': O.ncpu = atoi(optarg); break;
		case 't': O.nthreads = atoi(optarg); break;
		case 'd': O.seconds = num(optarg, "-d"); break;
		case 'm': O.size_mb = num(optarg, "-m"); break;
		case 'r': O.rate = num(optarg, "-r"); break;
		case 'u': O.start_usec = strtoull(optarg, NULL, 0); break;
		case 'x':
			if (sscanf(optarg, "%d,%d,%d,%d", &O.mix_sys, &O.mix_fault,
				   &O.mix_block, &O.mix_mark) != 4 ||
			    O.mix_sys + O.mix_fault + O.mix_block + O.mix_mark > 100)
				kt_die("bad -x mix '%s'", optarg);
			break;
		case 'o': O.out = optarg; break;
		case 'e': O.expected = optarg; break;
		case 'I': O.ipc = 1; break;
		case 'W': O.wrap = 1; O.wrap_blocks = atol(optarg); break;
		case 'G': O.gaps = 1; break;
		case 'L': O.long_gap = num(optarg, "--long-gap"); break;
		case 'S': O.late = 1; break;
		case 'A': O.idle_start = 1; break;
		case 'E': O.idle_end = num(optarg, "--idle-end"); break;
		case 'R': O.rpc = 1; break;
		case 'h': usage(stdout, 0); break;
		default: usage(stderr, 2);
		}
	}
	if (!O.out || optind != argc)
		usage(stderr, 2);
	if (O.ncpu < 1 || O.ncpu > 64)
		kt_die("CPU count must be 1..64");
	/* Written so that NaN fails too. */
	if (!(O.rate >= 1 && O.rate <= 100))
		kt_die("tick rate must be 1..100 ticks/usec");
	if (!(O.seconds > 0 && O.seconds <= 1e6))
		kt_die("duration must be more than 0 and at most 1e6 seconds");
	if (!(O.size_mb >= 0 && O.size_mb <= 1e6) || !(O.long_gap >= 0 && O.long_gap <= 1e6) ||
	    !(O.idle_end >= 0 && O.idle_end <= 1e6))
		kt_die("-m, --long-gap and --idle-end must be 0..1e6");
	if (O.size_mb > 0 && O.seconds == 0.05)
		O.seconds = 1e6;	/* size decides */
	if (O.nthreads <= 0)
		O.nthreads = 2 * O.ncpu + 2;
	rng_state = O.seed;

	/* A TSC/64 counter some days after boot, plausible and 20-bit wrapping */
	T0 = 0x3A5B00000ULL + (rnd() & 0xFFFFF);
	TEND = T0 + US(O.seconds * 1e6);
	struct kt_rw_options wo = {
		.ncpu = O.ncpu, .ipc = O.ipc, .wrap = O.wrap,
		.wrap_blocks = O.wrap_blocks, .ticks_per_usec = O.rate,
		.start_ctr = T0, .start_usec = O.start_usec, .seed = O.seed,
	};
	char err[256];

	W = kt_rw_create(O.out, &wo, err, sizeof(err));
	if (!W)
		kt_die("%s", err);
	kt_unlink_on_die(O.out);	/* no partial trace on a full disk */

	NT = O.nthreads;
	T = kt_xcalloc((size_t)NT + 1, sizeof(*T));
	static const char *names[] = { "worker", "bash", "sshd", "nginx",
				       "postgres", "kworker/0:1", "rcu_sched",
				       "java", "python3", "make" };
	for (int i = 0; i < NT; i++) {
		T[i].pid = 1000 + (uint32_t)i * 7 + (rnd() % 5);
		char nm[64];

		if (i < NELEM(names))
			snprintf(nm, sizeof(nm), "%s", names[i]);
		else
			snprintf(nm, sizeof(nm), "%s-%d", names[i % NELEM(names)], i);
		memcpy(T[i].comm, nm, strnlen(nm, 16));
		T[i].state = T_READY;
		T[i].ready_at = T0;
	}
	/* The control program is the last, extra thread: it never runs again. */
	struct thread *ctl = &T[NT];

	ctl->pid = 900 + (rnd() % 90);
	snprintf(ctl->comm, sizeof(ctl->comm), "kutrace_control");
	ctl->state = T_GONE;
	ctl->named = 1;

	C = kt_xcalloc((size_t)O.ncpu, sizeof(*C));
	for (int c = 0; c < O.ncpu; c++) {
		C[c].id = c;
		C[c].cur = -1;
		C[c].mwait_hint = -1;
		C[c].now = T0 + (c ? rr(100, 3000) : 0);
		C[c].next_timer = C[c].now + rr(1, HZ_TICKS);
		kt_rw_set_task(W, c, 0, "swapper");
	}
	kt_rw_set_task(W, 0, ctl->pid, ctl->comm);
	init_names(&C[0], ctl->pid);
	if (O.idle_start)
		idle_start_cpus();
	/* CPU 0 runs the control program, which goes to sleep for good. */
	C[0].cur = NT;
	C[0].started = 1;
	NT++;
	ctl->state = T_RUN;
	call(&C[0], C[0].now, sys_event(35), 0);	/* nanosleep */
	schedule(&C[0], 1, pick_ready(C[0].now, NT - 1));
	ctl->state = T_GONE;

	for (;;) {
		struct cpu *best = NULL;

		for (int c = 0; c < O.ncpu; c++)
			if (!C[c].done && (!best || C[c].now < best->now))
				best = &C[c];
		if (!best)
			break;
		cpu_step(best);
	}
	uint64_t last = 0, u1;

	for (int c = 0; c < O.ncpu; c++)
		if (C[c].now > last)
			last = C[c].now;
	if (kt_rw_close(W, last + US(20), &u1) < 0)
		kt_die("%s", kt_rw_error(W));
	if (O.expected)
		write_expected(last + US(20), u1);
	kt_unlink_on_die(NULL);
	fprintf(stderr, "kutrace_synth: %llu entries, %llu bytes, %ld wraps\n",
		(unsigned long long)entries, (unsigned long long)kt_rw_bytes(W),
		last_wraps);
	kt_rw_free(W);
	for (int c = 0; c < O.ncpu; c++)
		free(C[c].recs);
	free(C);
	free(T);
	return 0;
}

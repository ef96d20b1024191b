// SPDX-License-Identifier: BSD-3-Clause
/*
 * span.c - events to timespans: the heart of eventtospan (docs/spec/FORMATS.md 5),
 * shared by eventtospan and kutrace_postproc.
 *
 * Every 10 ns of every CPU is attributed to exactly one span: user code of
 * a thread, idle, or the innermost of a nest of kernel routines.  Each
 * thread owns a small call stack (user, syscall, trap, IRQ, scheduler)
 * that follows it across context switches, so a thread that blocked inside
 * a syscall resumes inside it.  Memory is per thread and per CPU, never per
 * event: rows leave through the callback as soon as they are complete.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "spans.h"

#define MAX_NEST	6
#define MAX_SPAN	800000000LL	/* 8 s in nsec10 */
#define NHOT		64
#define NO_TIME		INT64_MIN

struct frame {
	int event;
	const char *name;
	int64_t arg;
};

struct kstack {
	struct frame f[MAX_NEST];
	int top;
	int ambiguous;		/* index marked at a switch, 0 = none */
	int rpc;
	const char *rpcname;	/* "method.rpc" of the event that set rpc */
	int enq, deq;		/* pending enqueue/dequeue: queue + 1, 0 none */
};

struct thread {
	int64_t pid;
	struct kstack stack;
	int have_stack;
	const char *name;	/* current name */
	const char *rowname;	/* all names, "a+b" */
	const char *uname, *uname_of;	/* user_name() and the name it used */
	int64_t first_t;
	int have_last;		/* has had an event */
	int last_rpc;
	int64_t prior_end;	/* end of its last span, NO_TIME if none */
	int64_t named_until;	/* no event names it later (kt_spans_named) */
	int running;
	/* pending wakeup */
	int64_t wake_t;
	int wake_cpu, wake_pid, wake_rpc;
	/* 5.8: received message waiting for its RPC; RPC waiting for its send */
	int64_t rx_t;
	int out_rpc, out_lg;
	const char *out_name;
	/* locks: try and hold times are kept in the lock table */
};

struct span {
	int valid;
	int64_t start;
	int pid, rpc, event;
	int64_t arg, retval;
	const char *name;
};

struct cpu {
	struct kstack stack;	/* stack of the running thread */
	struct kstack *st;	/* &stack once the CPU has been seen */
	struct thread *th;
	struct span sp;
	int mwait_hint;		/* -1 none */
	int64_t last_pc_t, last_freq_t;
	int64_t freq;
	int64_t switch_t;	/* NO_TIME if none since sched entered */
	int64_t ipi_t;		/* pending IPI arc, NO_TIME none */
	int ipi_from;
	char wait_letter;	/* saved by a monitor-store */
	int64_t last_t;
	int64_t first_b;	/* block start of a first span moved to the
				 * trace start (first_switch), NO_TIME none */
};

struct lock_ent {
	uint64_t key;		/* lock << 32 | pid */
	int64_t try_t, hold_t;
	int used;
};

/* Packet hash -> kernel time (rx) or sending pid (tx); the newest wins. */
#define PKT_SLOTS 4096
struct pkt {
	uint32_t hash;
	int used;
	int64_t v;
};

struct kt_spans {
	kt_row_fn fn;
	void *ctx;
	struct cpu cpu[KUTRACE_MAX_CPUS];
	struct thread **th;
	struct thread *thot[NHOT];	/* thread()'s front cache by pid */
	size_t tcap, tcount;
	struct lock_ent *locks;
	size_t lcap, lcount;
	const char *kernel, *model, *host;
	int mbit;
	int64_t last_t;
	int64_t first_t;	/* earliest time of any event, NO_TIME none */
	int64_t end_t;		/* latest end (t + dur) of a CPU event */
	int64_t start_t, stop_t;	/* the trace's time pairs, NO_TIME unknown */
	int sched_ev;		/* 0xDFF, or 0x9FF in 4.19/5.10 traces */
	uint64_t rows;
	const unsigned short *cexit;	/* per-model c-exit table or NULL */
	int cexit_by_nibble;
	struct pkt rx[PKT_SLOTS], tx[PKT_SLOTS];
	struct {		/* interned once: these are on every path */
		const char *idle, *sched, *rsched, *cexit, *freq, *idlelp, *lost;
		const char *wakeup, *ipi, *runnable;
		const char *wait[26];
		const char *forks[8];	/* clone, /clone, fork, ... (5.3 step 10) */
	} nm;
	struct { const char *call, *ret; } retname[256];	/* "/" + call */
	int64_t *enq_t;		/* per RPC id, NO_TIME none; allocated on use */
	const char **qname;	/* QUEUE_NAME per queue number */
	size_t nq;
};

/* ---- tables ---------------------------------------------------------- */

static const unsigned short cexit_i3[16] = {
	10, 70, 85, 124, 200, 480, 890, 255, 255, 255, 255, 255, 255, 255, 255, 255,
};
static const unsigned short cexit_j4005[16] = {
	10, 255, 133, 155, 1000, 2000, 10000, 255, 255, 255, 255, 255, 255, 255, 255, 255,
};

/*
 * Default c-exit latency in 100 ns units for the full hint (0..0xFF): by
 * its upper nibble, as the model tables, but for three hints of their own.
 */
static int cexit_default(int hint)
{
	static const unsigned short by_nibble[16] = {
		2, 33, 133, 166, 300, 600, 2500, 2500,
		2500, 2500, 2500, 2500, 2500, 2500, 2500, 2500,
	};

	if (hint == 0x01)
		return 10;
	if (hint == 0xFE)
		return 2;
	if (hint == 0xFF)
		return 133;
	return by_nibble[hint >> 4];
}

static const char *const wait_names[26] = {
	"wait_a", "wait_b", "wait_cpu", "wait_disk", "wait_e", "wait_f",
	"wait_g", "wait_h", "wait_i", "wait_j", "wait_task", "wait_lock",
	"wait_mem", "wait_net", "wait_o", "wait_pipe", "wait_q", "wait_rcu",
	"wait_sche", "wait_time", "wait_u", "wait_v", "wait_w", "wait_x",
	"wait_y", "wait_unk",
};

/* The letter of the reason a thread woken by this routine was waiting. */
static char wait_letter(const char *n)
{
	static const struct {
		const char *name;
		char letter;
	} tab[] = {
		{ "local_timer_vector", 't' }, { "arch_timer", 't' },
		{ "riscv-timer", 't' }, { "BH:timer", 't' }, { "BH:hrtim", 't' },
		{ "BH:rcu", 't' }, { "page_fault", 'm' }, { "mmap", 'm' },
		{ "munmap", 'm' }, { "mprotect", 'm' }, { "madvise", 'm' },
		{ "futex", 'l' }, { "writev", 'p' }, { "write", 'p' },
		{ "sendto", 'p' }, { "open", 'p' }, { "openat", 'p' },
		{ "BH:hi", 'k' }, { "BH:taskl", 'k' }, { "BH:tx", 'n' },
		{ "BH:rx", 'n' }, { "BH:block", 'd' }, { "BH:irq_p", 'd' },
		{ "syncfs", 'd' }, { "fdatasync", 'd' }, { "BH:sched", 's' },
	};

	if (!n)
		return 0;
	if (strncmp(n, "kworker", 7) == 0)
		return 'p';
	for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
		if (strcmp(n, tab[i].name) == 0)
			return tab[i].letter;
	return 0;
}

/* ---- classification -------------------------------------------------- */

static int is_sched(int ev)
{
	return ev == KUTRACE_SCHED_CALL || ev == KUTRACE_SCHED_CALL_OLD;
}

static int is_sched_ret(int ev)
{
	return ev == KUTRACE_SCHED_RET || ev == KUTRACE_SCHED_RET_OLD;
}

static int is_kcall(int ev)
{
	return ev >= KUTRACE_CALL_LO && ev < KUTRACE_USER_BASE &&
	       !(ev & KUTRACE_RET_BIT);
}

static int is_kret(int ev)
{
	return ev >= KUTRACE_CALL_LO && ev < KUTRACE_USER_BASE &&
	       (ev & KUTRACE_RET_BIT);
}

/* Nesting level: user 0, syscall 1, trap 2, IRQ 3, scheduler 4. */
static int level(int ev)
{
	if (ev >= KUTRACE_USER_BASE || ev < KUTRACE_CALL_LO)
		return 0;
	ev &= ~KUTRACE_RET_BIT;
	if (is_sched(ev))
		return 4;
	if (ev >= KUTRACE_SYSCALL64)
		return 1;
	if (ev >= KUTRACE_IRQ)
		return 3;
	return 2;
}

/* ---- threads and locks ------------------------------------------------ */

static uint64_t hmix(uint64_t k)
{
	k ^= k >> 31;
	k *= 0x9E3779B97F4A7C15ULL;
	return k ^ (k >> 29);
}

static struct thread *thread_slow(struct kt_spans *s, int64_t pid);

static struct thread *thread(struct kt_spans *s, int64_t pid)
{
	/* Most lookups are the few running threads: a small front cache. */
	struct thread **hot = &s->thot[(uint64_t)pid & (NHOT - 1)];

	if (*hot && (*hot)->pid == pid)
		return *hot;
	*hot = thread_slow(s, pid);
	return *hot;
}

static struct thread *thread_slow(struct kt_spans *s, int64_t pid)
{
	if (s->tcount * 2 >= s->tcap) {
		size_t ncap = s->tcap ? s->tcap * 2 : 256;
		struct thread **n = kt_xcalloc(ncap, sizeof(*n));

		for (size_t i = 0; i < s->tcap; i++) {
			if (!s->th[i])
				continue;
			size_t j = hmix((uint64_t)s->th[i]->pid) & (ncap - 1);

			while (n[j])
				j = (j + 1) & (ncap - 1);
			n[j] = s->th[i];
		}
		free(s->th);
		s->th = n;
		s->tcap = ncap;
	}
	size_t j = hmix((uint64_t)pid) & (s->tcap - 1);

	while (s->th[j]) {
		if (s->th[j]->pid == pid)
			return s->th[j];
		j = (j + 1) & (s->tcap - 1);
	}
	struct thread *t = kt_xcalloc(1, sizeof(*t));

	t->pid = pid;
	t->prior_end = NO_TIME;
	t->named_until = NO_TIME;
	t->wake_t = NO_TIME;
	t->rx_t = NO_TIME;
	t->first_t = NO_TIME;
	t->name = pid == 0 ? s->nm.idle : NULL;
	s->th[j] = t;
	s->tcount++;
	return t;
}

/*
 * Open addressing, as decode.c's name table (set_name) and thread_slow
 * above: each holds its own slot type, and a shared one would need hash
 * and compare callbacks.
 */
static struct lock_ent *lock_ent(struct kt_spans *s, uint64_t key)
{
	if (s->lcount * 2 >= s->lcap) {
		size_t ncap = s->lcap ? s->lcap * 2 : 64;
		struct lock_ent *n = kt_xcalloc(ncap, sizeof(*n));

		for (size_t i = 0; i < s->lcap; i++) {
			if (!s->locks[i].used)
				continue;
			size_t j = hmix(s->locks[i].key) & (ncap - 1);

			while (n[j].used)
				j = (j + 1) & (ncap - 1);
			n[j] = s->locks[i];
		}
		free(s->locks);
		s->locks = n;
		s->lcap = ncap;
	}
	size_t j = hmix(key) & (s->lcap - 1);

	while (s->locks[j].used && s->locks[j].key != key)
		j = (j + 1) & (s->lcap - 1);
	if (!s->locks[j].used) {
		s->locks[j].used = 1;
		s->locks[j].key = key;
		s->locks[j].try_t = s->locks[j].hold_t = NO_TIME;
		s->lcount++;
	}
	return &s->locks[j];
}

/* "name.pid", kept per thread until its name changes. */
static const char *user_name(struct kt_spans *s, struct thread *t)
{
	char buf[128];

	if (t->pid == 0)
		return s->nm.idle;
	if (t->uname && t->uname_of == t->name)
		return t->uname;
	snprintf(buf, sizeof(buf), "%s.%" PRId64, t->name ? t->name : "", t->pid);
	t->uname = kt_intern(buf);
	t->uname_of = t->name;
	return t->uname;
}

/* ---- rows ------------------------------------------------------------- */

static void put(struct kt_spans *s, int64_t start, int64_t dur, int cpu,
		int pid, int rpc, int event, int64_t arg, int64_t retval,
		int ipc, const char *name)
{
	struct kt_row r = {
		.start = start, .dur = dur, .cpu = cpu, .pid = pid, .rpc = rpc,
		.event = event, .arg = arg, .retval = retval, .ipc = ipc,
		.name = name ? name : "",
	};

	s->rows++;
	s->fn(s->ctx, &r);
}

static void put_wait(struct kt_spans *s, struct thread *t, char letter,
		     int64_t from, int64_t to)
{
	int64_t dur = to > from ? to - from - 1 : 0;

	if (dur < 10)
		return;	/* waits of any length are kept (8.23) */
	put(s, from + 1, dur, -1, (int)t->pid,
	    letter == 'c' ? 0 : t->last_rpc,
	    KUTRACE_WAIT_BASE + (letter - 'a'), 0, 0, 0,
	    s->nm.wait[letter - 'a']);
}

/* Start a span on CPU c for the routine on top of its stack. */
static void start_top(struct kt_spans *s, struct cpu *c, int64_t t,
		      int64_t arg, int64_t retval)
{
	const struct frame *f = &c->st->f[c->st->top];

	c->sp.valid = 1;
	c->sp.start = t;
	c->sp.pid = c->th ? (int)c->th->pid : 0;
	c->sp.rpc = c->st->rpc;
	c->sp.event = f->event;
	c->sp.name = f->name;
	c->sp.arg = arg;
	c->sp.retval = retval;
	(void)s;
}

/*
 * Continue the span a point event or a fused call split, from t: like the
 * original, it keeps its arg and return value (12 after a write of 12).
 */
static void resume(struct kt_spans *s, struct cpu *c, const struct span *was,
		   int64_t t)
{
	start_top(s, c, t, was->valid ? was->arg : 0, was->valid ? was->retval : 0);
}

/* Close CPU c's open span at t and write it. */
static void close_span(struct kt_spans *s, int cpu, int64_t t, int ipc,
		       int64_t retval, int have_retval)
{
	struct cpu *c = &s->cpu[cpu];

	if (!c->sp.valid)
		return;
	c->sp.valid = 0;
	int64_t dur = t - c->sp.start;

	/*
	 * The original drops spans longer than 8 s; kutrace keeps them, since
	 * TSDELTA chains give a tickless CPU's long idle its true length
	 * (docs/FORMAT.md).  Time never runs backward here (the reader fails
	 * on that), so a negative duration cannot reach this.
	 */
	if (dur < 0)
		return;
	if (c->sp.pid > 0) {
		struct thread *th = thread(s, c->sp.pid);

		th->prior_end = t;
	}
	if (dur == 0 || (c->sp.event == KUTRACE_IDLE && dur <= 1))
		return;	/* nothing ran: a zero-length span is no row */
	if (c->sp.start <= 0)
		return;
	put(s, c->sp.start, dur, cpu, c->sp.pid, c->sp.rpc, c->sp.event,
	    c->sp.arg, have_retval ? retval : c->sp.retval, ipc, c->sp.name);
}

/* ---- the stack -------------------------------------------------------- */

static void push(struct cpu *c, int ev, const char *name, int64_t arg)
{
	struct kstack *st = c->st;

	if (st->top + 1 >= MAX_NEST)
		return;	/* deeper nests are impossible; ignore garbage */
	st->top++;
	st->f[st->top].event = ev;
	st->f[st->top].name = name;
	st->f[st->top].arg = arg;
}

static void process(struct kt_spans *s, const struct kt_event *e);

/* A synthetic event at time t on the same CPU as e. */
static void synth(struct kt_spans *s, const struct kt_event *e, int64_t t,
		  int ev, const char *name)
{
	struct kt_event x = *e;

	x.t = t;
	x.dur = 0;
	x.event = ev;
	x.name = name;
	x.arg = 0;
	x.retval = 0;
	x.ipc = 0;
	process(s, &x);
}

/* "/" + an interned call name, remembered by the call's pointer. */
static const char *ret_name(struct kt_spans *s, const char *call)
{
	uintptr_t h = (uintptr_t)call;
	size_t i = (h ^ (h >> 10)) & 255;
	char buf[128];

	if (call && s->retname[i].call == call)
		return s->retname[i].ret;
	snprintf(buf, sizeof(buf), "/%s", call ? call : "");
	const char *r = kt_intern(buf);

	if (call) {
		s->retname[i].call = call;
		s->retname[i].ret = r;
	}
	return r;
}

/* Pop frames with synthetic returns at time t until pred says stop. */
static void pop_to_level(struct kt_spans *s, const struct kt_event *e,
			 int64_t t, int lvl)
{
	struct cpu *c = &s->cpu[e->cpu];

	while (c->st->top > 0 && level(c->st->f[c->st->top].event) >= lvl) {
		const struct frame *f = &c->st->f[c->st->top];

		synth(s, e, t, f->event + KUTRACE_RET_BIT, ret_name(s, f->name));
	}
}

/*
 * A trap or interrupt taken inside the scheduler nests above it instead of
 * popping it (5.3 step 4 would): the patched kernels hook __schedule()
 * before it disables interrupts, so a timer tick there returns into the
 * scheduler.  Popping showed the rest of the scheduler as the syscall or
 * as user code and left the thread's saved stack without its scheduler
 * frame, which broke the tiling at the next switch (docs/FORMAT.md).
 */
static int nests_in_sched(const struct kstack *st, int ev)
{
	int lvl = level(ev);

	return st->top >= 1 && is_sched(st->f[st->top].event) &&
		(lvl == 2 || lvl == 3);
}

/* ---- the event loop --------------------------------------------------- */

static void name_record(struct kt_spans *s, const struct kt_event *e)
{
	int type = e->event & KUTRACE_TYPE_MASK;
	const char *n = e->name;

	switch (type) {
	case KUTRACE_KERNEL_VER:
		s->kernel = n;
		break;
	case KUTRACE_MODEL_NAME:
		s->model = n;
		if (strstr(n, "i3-7100")) {
			s->cexit = cexit_i3;
		} else if (strstr(n, "J4005")) {
			s->cexit = cexit_j4005;
		}
		break;
	case KUTRACE_HOST_NAME:
		s->host = n;
		break;
	case KUTRACE_QUEUE_NAME: {
		size_t q = (uint32_t)e->arg & 0xFFFF;

		if (q >= s->nq) {
			s->qname = kt_xrealloc(s->qname, (q + 1) * sizeof(*s->qname));
			memset(s->qname + s->nq, 0, (q + 1 - s->nq) * sizeof(*s->qname));
			s->nq = q + 1;
		}
		s->qname[q] = n;
		break;
	}
	case KUTRACE_PIDNAME: {
		int64_t pid = (uint32_t)e->arg;

		if (pid == 0)
			break;
		if (strstr(n, "kutrace_contro"))
			n = kt_intern("kutrace_control");
		if (strncmp(n, "./", 2) == 0)
			n = kt_intern(n + 2);
		struct thread *t = thread(s, pid);

		if (t->name == n)
			break;
		t->name = n;
		if (!t->rowname) {
			t->rowname = n;
		} else if (!strstr(t->rowname, n)) {
			char buf[256];

			snprintf(buf, sizeof(buf), "%s+%s", t->rowname, n);
			t->rowname = kt_intern(buf);
		}
		/* Rename the user frame of every stack of this thread. */
		t->stack.f[0].name = user_name(s, t);
		for (int i = 0; i < KUTRACE_MAX_CPUS; i++)
			if (s->cpu[i].th == t && s->cpu[i].st)
				s->cpu[i].stack.f[0].name = t->stack.f[0].name;
		break;
	}
	default:
		break;
	}
}

/*
 * Save the old thread's stack (not idle's: every CPU idles on its own
 * [idle, -sched-]) and load the new one's; a never-seen thread starts
 * inside the scheduler, [user, -sched-].
 */
static void switch_to(struct kt_spans *s, struct cpu *c, int64_t pid,
		      const char *evname)
{
	struct thread *t = thread(s, pid);

	if (c->th && c->th->pid != 0) {
		c->th->stack = c->stack;
		c->th->have_stack = 1;
	}
	if (pid == 0 || !t->have_stack) {
		memset(&c->stack, 0, sizeof(c->stack));
		c->stack.top = 1;
		c->stack.f[1].event = s->sched_ev;
		c->stack.f[1].name = s->nm.sched;
	} else {
		c->stack = t->stack;
	}
	c->stack.f[0].event = KUTRACE_USER_BASE + (int)pid;
	/* A thread not named yet: the name the switch event carries. */
	c->stack.f[0].name = t->name || !evname || !evname[0] ? user_name(s, t) : evname;
	c->th = t;
}

/*
 * The IPI arc pending for CPU cpu ends at t, the start of its next span
 * (the c-exit's, if one comes first).  Synthetic events placed back in
 * time (a missing scheduler return at the switch) do not end it: a CPU
 * silent since its first block put that return before the send.
 */
static void ipi_arc(struct kt_spans *s, int cpu, int64_t t)
{
	struct cpu *c = &s->cpu[cpu];

	if (c->ipi_t == NO_TIME || t < c->ipi_t)
		return;
	put(s, c->ipi_t, t - c->ipi_t, c->ipi_from, -1, -1, KUTRACE_ARC_IPI,
	    cpu, 0, 0, s->nm.ipi);
	c->ipi_t = NO_TIME;
}

static void put_cexit(struct kt_spans *s, const struct kt_event *e)
{
	struct cpu *c = &s->cpu[e->cpu];
	int hint = c->mwait_hint;
	int lat;

	c->mwait_hint = -1;
	if (c->st->top != 0)
		return;
	if (s->cexit)
		lat = 10 * s->cexit[(hint >> 4) & 15];
	else
		lat = 10 * cexit_default(hint & 0xFF);
	int64_t avail = c->sp.valid ? e->t - c->sp.start : 0;

	if (lat > avail)
		lat = (int)avail;
	if (lat < 10)
		return;
	/* Close idle at the c-exit start, write c-exit, resume idle. */
	close_span(s, e->cpu, e->t - lat, 0, 0, 0);
	ipi_arc(s, e->cpu, e->t - lat);
	put(s, e->t - lat, lat, e->cpu, 0, 0, KUTRACE_C_EXIT, 0, 0, 0,
	    s->nm.cexit);
	start_top(s, c, e->t, 0, 0);
	c->sp.arg = 0;
	c->sp.name = s->nm.idle;
}

/* 5.5: a kernel-only or user-only event resolves an ambiguous resume. */
static void resolve_ambiguity(struct kt_spans *s, const struct kt_event *e)
{
	struct cpu *c = &s->cpu[e->cpu];
	int ev = e->event;

	if (!c->st->ambiguous)
		return;
	int kernel_only = is_kret(ev) || ev == KUTRACE_USERPID ||
		ev == KUTRACE_RUNNABLE || ev == KUTRACE_IPI ||
		ev == KUTRACE_PSTATE || ev == KUTRACE_PSTATE2 ||
		ev == KUTRACE_PC_U || ev == KUTRACE_PC_K || is_sched(ev);
	int user_only = (is_kcall(ev) && ev >= KUTRACE_SYSCALL64 && !is_sched(ev)) ||
		ev == KUTRACE_MWAIT || ev == KUTRACE_MONITOREXIT ||
		(ev >= KUTRACE_MARKA && ev <= KUTRACE_MARKD);

	if (kernel_only) {
		c->st->ambiguous = 0;
	} else if (user_only) {
		c->st->ambiguous = 0;
		c->st->top = 0;
		if (c->sp.valid) {
			c->sp.event = c->st->f[0].event;
			c->sp.name = c->st->f[0].name;
		}
	}
}

static void point_row(struct kt_spans *s, const struct kt_event *e)
{
	const char *name = e->name;

	if (e->event == KUTRACE_ENQUEUE || e->event == KUTRACE_DEQUEUE) {
		char buf[160];

		snprintf(buf, sizeof(buf), "%s(%" PRId64 ")", name ? name : "",
			 e->arg & 0xFFFF);
		name = kt_intern(buf);
	}
	put(s, e->t, e->dur > 0 ? e->dur : 1, e->cpu, e->pid,
	    s->cpu[e->cpu].st->rpc, e->event, e->arg, e->retval, e->ipc, name);
}

static void special(struct kt_spans *s, const struct kt_event *e)
{
	struct cpu *c = &s->cpu[e->cpu];
	int ev = e->event;

	switch (ev) {
	case KUTRACE_RUNNABLE: {
		struct thread *t = thread(s, (uint32_t)e->arg);
		char letter = wait_letter(c->st->f[c->st->top].name);

		point_row(s, e);
		if (!letter)
			letter = c->wait_letter;
		if (t->have_last && !t->running && letter && t->prior_end != NO_TIME)
			put_wait(s, t, letter, t->prior_end, e->t);
		t->wake_t = e->t;
		t->wake_cpu = e->cpu;
		t->wake_pid = e->pid;
		t->wake_rpc = c->st->rpc;
		t->prior_end = e->t + 1;
		return;
	}
	case KUTRACE_IPI:
	case KUTRACE_MONITORSTORE: {
		int target = (int)(e->arg & 0xFFFF);

		point_row(s, e);
		if (target >= 0 && target < KUTRACE_MAX_CPUS) {
			s->cpu[target].ipi_t = e->t;
			s->cpu[target].ipi_from = e->cpu;
			if (ev == KUTRACE_MONITORSTORE)
				s->cpu[target].wait_letter =
					wait_letter(c->st->f[c->st->top].name);
		}
		return;
	}
	case KUTRACE_LOCKNOACQUIRE:
	case KUTRACE_LOCKACQUIRE:
	case KUTRACE_LOCKWAKEUP: {
		struct lock_ent *l = lock_ent(s, ((uint64_t)(uint32_t)e->arg << 32) |
					      (uint32_t)e->pid);
		/*
		 * The lock's name after "try_", "acq_", "rel_" (the decoder's
		 * names); a name from event text may be shorter.
		 */
		const char *ln = strlen(e->name) >= 4 ? e->name + 4 : e->name;
		char buf[128];

		point_row(s, e);
		if (ev == KUTRACE_LOCKNOACQUIRE) {
			if (l->try_t == NO_TIME)
				l->try_t = e->t;
		} else if (ev == KUTRACE_LOCKACQUIRE) {
			if (l->try_t != NO_TIME && e->t - l->try_t >= 25) {
				snprintf(buf, sizeof(buf), "~%s", ln);
				put(s, l->try_t, e->t - 1 - l->try_t, -1, e->pid, -1,
				    KUTRACE_LOCK_TRY, e->arg, 0, 0, kt_intern(buf));
			}
			l->try_t = NO_TIME;
			l->hold_t = e->t;
		} else {
			if (l->hold_t != NO_TIME && e->t - l->hold_t >= 25) {
				snprintf(buf, sizeof(buf), "=%s", ln);
				put(s, l->hold_t, e->t - 1 - l->hold_t, -1, e->pid, -1,
				    KUTRACE_LOCK_HELD, e->arg, 0, 0, kt_intern(buf));
			}
			l->hold_t = NO_TIME;
			l->try_t = NO_TIME;
		}
		return;
	}
	default:
		point_row(s, e);
		return;
	}
}

static const char *queue_name(struct kt_spans *s, int q)
{
	char buf[32];

	if ((size_t)q < s->nq && s->qname[q])
		return s->qname[q];
	snprintf(buf, sizeof(buf), "queue%d", q);
	return kt_intern(buf);
}

/*
 * 5.3 step 7.  enq/deq only mark the thread; the next RPC event or
 * context switch says which RPC went on or came off the queue.
 */
static void queue_step(struct kt_spans *s, struct cpu *c, const struct kt_event *e)
{
	int ev = e->event;
	struct kstack *st = c->st;

	if (ev == KUTRACE_ENQUEUE || ev == KUTRACE_DEQUEUE) {
		int q = (int)(e->arg & 0xFFFF) + 1;

		if (ev == KUTRACE_ENQUEUE)
			st->enq = q;
		else
			st->deq = q;
		return;
	}
	int is_rpc = ev >= KUTRACE_RPCIDREQ && ev <= KUTRACE_RPCIDMID;

	if ((!is_rpc && ev != KUTRACE_USERPID) || (!st->enq && !st->deq))
		return;
	int new_rpc;

	if (is_rpc) {
		new_rpc = (int)(e->arg & 0xFFFF);
	} else {
		struct thread *t = thread(s, (uint32_t)e->pid);

		new_rpc = t->have_stack ? t->stack.rpc : 0;
	}
	if (!s->enq_t) {
		s->enq_t = kt_xmalloc(65536 * sizeof(*s->enq_t));
		for (int i = 0; i < 65536; i++)
			s->enq_t[i] = NO_TIME;
	}
	if (st->enq) {
		s->enq_t[st->rpc & 0xFFFF] = e->t + 1;
		st->enq = 0;
	}
	if (st->deq) {
		int q = st->deq - 1;
		int64_t from = s->enq_t[new_rpc & 0xFFFF];

		if (from != NO_TIME && e->t - 1 - from >= 10)
			put(s, from, e->t - 1 - from, -1, -1, new_rpc, KUTRACE_ENQUEUE,
			    q, 0, 0, queue_name(s, q));
		s->enq_t[new_rpc & 0xFFFF] = NO_TIME;
		st->deq = 0;
	}
}

static struct pkt *pkt_slot(struct pkt *tab, uint32_t hash)
{
	return &tab[(hash ^ (hash >> 12) ^ (hash >> 24)) & (PKT_SLOTS - 1)];
}

/* Approximate message length from lglen8 = 10 * log2(length). */
static int64_t msg_len(int lg)
{
	static const double p[10] = {
		1.0000, 1.0718, 1.1487, 1.2311, 1.3195,
		1.4142, 1.5157, 1.6245, 1.7411, 1.8661,
	};

	return (int64_t)((double)(1ULL << (lg / 10)) * p[lg % 10] + 0.5);
}

static void msg_row(struct kt_spans *s, int64_t kt, int rx, int rpc, int lg,
		    const char *name)
{
	int64_t len = msg_len(lg);
	int64_t dur = len * 800 / (s->mbit > 0 ? s->mbit : 1000);

	if (!kt || !rpc || !lg)
		return;
	put(s, rx ? kt - dur : kt, dur, 0, 0, rpc,
	    rx ? KUTRACE_RPCIDRXMSG : KUTRACE_RPCIDTXMSG, len, 0, 0, name);
}

/* 5.8: packets and RPCs, matched by the hash of the message head. */
static void rpc_step(struct kt_spans *s, struct cpu *c, const struct kt_event *e)
{
	struct thread *th = c->th;
	uint32_t hash = (uint32_t)e->arg;
	struct pkt *k;

	switch (e->event) {
	case KUTRACE_RX_PKT:
		k = pkt_slot(s->rx, hash);
		*k = (struct pkt){ .hash = hash, .used = 1, .v = e->t };
		break;
	case KUTRACE_RX_USER:
		k = pkt_slot(s->rx, hash);
		if (th && k->used && k->hash == hash) {
			th->rx_t = k->v;
			k->used = 0;
		}
		break;
	case KUTRACE_RPCIDREQ:
	case KUTRACE_RPCIDRESP: {
		int rpc = (int)(e->arg & 0xFFFF);
		int lg = (int)((e->arg >> 16) & 0xFF);

		if (!th || !rpc)
			break;
		if (lg < 64)
			lg = 64;
		if (th->rx_t != NO_TIME) {
			msg_row(s, th->rx_t, 1, rpc, lg, e->name);
			th->rx_t = NO_TIME;
		} else {
			th->out_rpc = rpc;
			th->out_lg = lg;
			th->out_name = e->name;
		}
		break;
	}
	case KUTRACE_TX_USER:
		k = pkt_slot(s->tx, hash);
		if (th)
			*k = (struct pkt){ .hash = hash, .used = 1, .v = th->pid };
		break;
	case KUTRACE_TX_PKT:
		k = pkt_slot(s->tx, hash);
		if (k->used && k->hash == hash) {
			struct thread *t = thread(s, k->v);

			k->used = 0;
			if (t->out_rpc) {
				msg_row(s, e->t, 0, t->out_rpc, t->out_lg, t->out_name);
				t->out_rpc = 0;
			}
		}
		break;
	}
}

/* Names are interned (struct kt_event), so pointers compare. */
static int is_fork(const struct kt_spans *s, const char *name)
{
	for (int i = 0; i < 8; i++)
		if (name == s->nm.forks[i])
			return 1;
	return 0;
}

/*
 * 5.3 step 1, a return from X: X deeper in the stack has what is above it
 * returned at this time; X not on the stack is called at the open span's
 * start, after returns to X's level.
 */
static void fix_return(struct kt_spans *s, struct cpu *c, const struct kt_event *e)
{
	int x = e->event - KUTRACE_RET_BIT;
	struct kstack *st = c->st;
	int found = 0;

	/* The nearest frame of X: a deeper one would pop it again. */
	for (int i = st->top; i >= 1 && !found; i--)
		if (st->f[i].event == x ||
		    (is_sched(x) && is_sched(st->f[i].event)))
			found = i;
	if (st->top >= 1 && st->f[st->top].event == KUTRACE_IRQ + 0xFD &&
	    x == KUTRACE_IRQ + KUTRACE_IRQ_BH)
		found = st->top, st->f[st->top].event = x;
	if (found) {
		while (st->top > found)
			synth(s, e, e->t, st->f[st->top].event + KUTRACE_RET_BIT,
			      ret_name(s, st->f[st->top].name));
	} else {
		int64_t at = c->sp.valid ? c->sp.start : e->t;
		const char *cn = e->name[0] == '/' ? kt_intern(e->name + 1) : e->name;

		pop_to_level(s, e, at, level(x));
		synth(s, e, at, x, cn);
	}
}

/*
 * 5.3 steps 2-4, a call: a reschedule_ipi a lost return left goes; the
 * missing scheduler return after a switch is put back; then returns
 * until the call's level is above the top's.
 */
static void fix_call(struct kt_spans *s, struct cpu *c, const struct kt_event *e)
{
	int ev = e->event;

	if (is_sched(ev) && c->st->top >= 1 &&
	    c->st->f[c->st->top].event == KUTRACE_IRQ + 0xFD)
		c->st->top--;	/* reschedule_ipi left by a lost return */
	if (c->st->top == 1 && is_sched(c->st->f[1].event) &&
	    c->switch_t != NO_TIME && !is_sched(ev)) {
		/* Not before what the CPU already showed since. */
		int64_t at = c->switch_t;

		if (c->sp.valid && c->sp.start > at)
			at = c->sp.start;
		synth(s, e, at, c->st->f[1].event + KUTRACE_RET_BIT,
		      s->nm.rsched);
	}
	if ((e->dur == 0 || !is_sched(ev)) && !nests_in_sched(c->st, ev))
		pop_to_level(s, e, e->t, level(ev));
}

/*
 * A switch to pid 0 on a CPU that runs pid 0 outside the scheduler is no
 * switch: the module notes each CPU's task when tracing starts
 * (kt_note_current, from an IPI), and an idle CPU stays idle.  A switch
 * names the idle task otherwise only inside __schedule().
 */
static int idle_note(const struct cpu *c, const struct kt_event *e)
{
	if (e->event != KUTRACE_USERPID || e->pid != 0 || !c->th || c->th->pid != 0)
		return 0;
	for (int i = 1; i <= c->st->top; i++)
		if (is_sched(c->st->f[i].event))
			return 0;
	return 1;
}

/* 5.3 step 6: the switch time, a pending MWAIT hint, the pid's last event. */
static void bookkeeping(struct kt_spans *s, struct cpu *c, const struct kt_event *e)
{
	int ev = e->event;

	if (ev == KUTRACE_USERPID && !idle_note(c, e))
		c->switch_t = e->t;
	else if (is_sched(ev) || is_sched_ret(ev))
		c->switch_t = NO_TIME;
	if (ev == KUTRACE_MWAIT)
		c->mwait_hint = (int)(e->arg & 0xFF);
	if (e->pid > 0) {
		struct thread *th = thread(s, e->pid);

		th->have_last = 1;
		th->last_rpc = c->st->rpc;
		if (th->first_t == NO_TIME)
			th->first_t = e->t;
	}
}

/* 5.4 rule 2: the thread runs again; an RPC it was on resumes. */
static void sched_return(struct kt_spans *s, struct cpu *c, const struct kt_event *e)
{
	if (c->th)
		c->th->running = 1;
	if (c->st->rpc)
		put(s, e->t, 1, e->cpu, e->pid, c->st->rpc, KUTRACE_RPCIDMID,
		    c->st->rpc, 0, 0, c->st->rpcname);
}

/*
 * 5.4 rule 4, RPC events: the open span is cut by the point, which
 * carries the RPC id the CPU had (the original's), and goes on with the
 * new RPC.
 */
static void rpc_event(struct kt_spans *s, struct cpu *c, const struct kt_event *e)
{
	struct span was = c->sp;

	close_span(s, e->cpu, e->t, e->ipc & 0xF, 0, 0);
	point_row(s, e);
	c->st->rpc = (int)(e->arg & 0xFFFF);
	c->st->rpcname = e->name;
	resume(s, c, &was, e->t + e->dur);
}

/* 5.4 rule 5, a context switch (writes no row of its own). */
static void switch_event(struct kt_spans *s, struct cpu *c, const struct kt_event *e)
{
	struct thread *old = c->th;

	if (idle_note(c, e))
		return;
	if (c->st->top >= 2)
		c->st->ambiguous = c->st->top - 1;
	if (old)
		old->running = 0;
	/* An open user span: the stacks disagree (no scheduler). */
	int was_user = c->st->top == 0 && c->sp.valid;

	switch_to(s, c, (uint32_t)e->pid, e->name);
	/*
	 * A span starts now when either side of the switch is user
	 * code.  5.4 rule 5 only starts one for the new side, which
	 * dropped an open kernel span, or left a hole until the next
	 * event when the old side was user code.
	 */
	if (was_user || c->st->top == 0) {
		close_span(s, e->cpu, e->t, e->ipc & 0xF, 0, 0);
		start_top(s, c, e->t, 0, 0);
	}
}

/* 5.4 rule 6: a PC sample's row runs from the CPU's previous sample. */
static void pc_event(struct kt_spans *s, struct cpu *c, const struct kt_event *e)
{
	if (c->last_pc_t != NO_TIME && e->t > c->last_pc_t)
		put(s, c->last_pc_t, e->t - c->last_pc_t, e->cpu, e->pid,
		    c->st->rpc, e->event, e->arg, 0, 0, e->name);
	c->last_pc_t = e->t;
}

/*
 * 5.4 rule 7: a -freq- row from the CPU's previous frequency, with the
 * new value for 0x209 (read after a change) or the previous one for
 * 0x21C (announced before it).
 */
static void freq_event(struct kt_spans *s, struct cpu *c, const struct kt_event *e)
{
	if (c->last_freq_t != NO_TIME)
		put(s, c->last_freq_t, e->t - c->last_freq_t, e->cpu, 0, 0,
		    KUTRACE_PSTATE, e->event == KUTRACE_PSTATE ? e->arg : c->freq,
		    0, 0, s->nm.freq);
	c->last_freq_t = e->t;
	c->freq = e->arg;
}

static int is_mark(int ev)
{
	return (ev >= KUTRACE_MARKA && ev <= KUTRACE_MARKD) || ev == KUTRACE_MWAIT ||
	       ev == KUTRACE_MONITOREXIT;
}

/*
 * 5.4 rule 8, marks, MWAIT and MWAIT exit: the point cuts the open span,
 * which goes on after it (-idlelp- after an MWAIT in idle, 5.7).
 */
static void mark_event(struct kt_spans *s, struct cpu *c, const struct kt_event *e)
{
	struct span was = c->sp;
	int ev = e->event;

	close_span(s, e->cpu, e->t, e->ipc & 0xF, 0, 0);
	point_row(s, e);
	resume(s, c, &was, e->t + (e->dur > 0 ? e->dur : 1));
	if (ev == KUTRACE_MWAIT && c->st->top == 0) {
		c->sp.name = s->nm.idlelp;
		c->sp.arg = 1;
	} else if (ev == KUTRACE_MONITOREXIT && c->st->top == 0) {
		c->sp.name = s->nm.idle;	/* fixes -idlelp- arg 0 */
	}
}

/*
 * 5.4 rules 10b and 10d: the thread of e is on a CPU again, ending the
 * wakeup arc and the wait_cpu since its last span or wakeup.
 */
static void thread_arrives(struct kt_spans *s, const struct kt_event *e)
{
	struct thread *th = thread(s, e->pid);
	int64_t t = e->t;

	if (th->wake_t != NO_TIME && t >= th->wake_t) {
		put(s, th->wake_t, t - th->wake_t > MAX_SPAN ? 1 : t - th->wake_t,
		    th->wake_cpu, th->wake_pid, th->wake_rpc,
		    KUTRACE_ARC_WAKEUP, e->cpu, th->pid, 0,
		    s->nm.wakeup);
		th->wake_t = NO_TIME;
	}
	if (e->pid > 0 && th->prior_end != NO_TIME && t >= th->prior_end) {
		put_wait(s, th, 'c', th->prior_end, t);
		th->prior_end = t + e->dur;
	}
}

/* 5.3 step 10: clone/fork make their child runnable at the call's end. */
static void fork_runnable(struct kt_spans *s, const struct kt_event *e)
{
	struct kt_event r = *e;

	r.t = e->t + e->dur;
	r.dur = 1;
	r.event = KUTRACE_RUNNABLE;
	r.arg = e->retval;
	r.retval = 0;
	r.name = s->nm.runnable;	/* the original's name, no ".pid" */
	special(s, &r);
}

/*
 * 5.4 rule 10, calls, returns and -c-exit-: the open span closes; a fused
 * call is its own row and the span resumes after it, a call is pushed, a
 * return pops; -c-exit- is written as it is.
 */
static void exec_event(struct kt_spans *s, struct cpu *c, const struct kt_event *e)
{
	int ev = e->event;
	int64_t t = e->t;
	struct span was = c->sp;

	close_span(s, e->cpu, t, e->ipc & 0xF, e->retval, is_kret(ev));
	if (e->pid >= 0)
		thread_arrives(s, e);
	ipi_arc(s, e->cpu, t);
	if (is_kcall(ev)) {
		if (e->dur > 0) {
			/* A fused call: its own span, then resume. */
			put(s, t, e->dur, e->cpu, e->pid, c->st->rpc, ev, e->arg,
			    e->retval, (e->ipc >> 4) & 0xF, e->name);
			if (e->pid > 0)
				thread(s, e->pid)->prior_end = t + e->dur;
			resume(s, c, &was, t + e->dur);
		} else {
			push(c, ev, e->name, e->arg);
			start_top(s, c, t, e->arg, 0);
		}
	} else if (is_kret(ev)) {
		if (c->st->top > 0)
			c->st->top--;
		start_top(s, c, t, e->arg, e->retval);
		if (c->st->top == 0 && c->th && c->th->pid == 0)
			c->sp.arg = 0;
	} else {
		put(s, t, e->dur, e->cpu, e->pid, c->st->rpc, ev, e->arg,
		    e->retval, e->ipc, e->name);
		start_top(s, c, t + e->dur, 0, 0);
	}
	if ((is_kret(ev) || (is_kcall(ev) && e->dur > 0)) && e->retval != 0 &&
	    is_fork(s, e->name))
		fork_runnable(s, e);
}

/* One event: the fix-ups of 5.3, then the rule of 5.4 for its class. */
static void process(struct kt_spans *s, const struct kt_event *e)
{
	struct cpu *c = &s->cpu[e->cpu];
	int ev = e->event;

	if (is_sched(ev) || is_sched_ret(ev))
		s->sched_ev = ev & ~KUTRACE_RET_BIT;
	if (is_kret(ev))
		fix_return(s, c, e);
	else if (is_kcall(ev))
		fix_call(s, c, e);
	if (c->mwait_hint >= 0 && ev != KUTRACE_MWAIT)
		put_cexit(s, e);
	bookkeeping(s, c, e);
	queue_step(s, c, e);
	if (ev >= KUTRACE_RPCIDREQ && ev <= KUTRACE_TX_USER)
		rpc_step(s, c, e);

	if (is_sched_ret(ev))
		sched_return(s, c, e);
	resolve_ambiguity(s, e);
	/* Calls and returns first: most events are. */
	if (is_kcall(ev) || is_kret(ev) || ev == KUTRACE_C_EXIT)
		exec_event(s, c, e);
	else if (ev >= KUTRACE_RPCIDREQ && ev <= KUTRACE_RPCIDMID)
		rpc_event(s, c, e);
	else if (ev == KUTRACE_USERPID)
		switch_event(s, c, e);
	else if (ev == KUTRACE_PC_U || ev == KUTRACE_PC_K)
		pc_event(s, c, e);
	else if (ev == KUTRACE_PSTATE || ev == KUTRACE_PSTATE2)
		freq_event(s, c, e);
	else if (is_mark(ev))
		mark_event(s, c, e);
	else if (ev >= KUTRACE_SPECIAL_LO && ev < KUTRACE_CALL_LO)
		special(s, e);
	/* nothing else makes spans */
}

/*
 * The switch that opens a CPU's first block names the thread that was
 * running then, not a switch: its span starts at the block start, in
 * user code (idle for pid 0) until the first event says otherwise (a
 * return from X makes it X from the block start, 5.3 step 1).
 */
static void first_switch(struct kt_spans *s, struct cpu *c, const struct kt_event *e)
{
	int64_t pid = (uint32_t)e->pid;
	struct thread *t = thread(s, pid);

	memset(&c->stack, 0, sizeof(c->stack));
	c->stack.f[0].event = KUTRACE_USER_BASE + (int)pid;
	c->stack.f[0].name = t->name || !e->name[0] ? user_name(s, t) : e->name;
	c->th = t;
	t->running = 1;
	if (pid > 0) {
		t->have_last = 1;
		if (t->first_t == NO_TIME)
			t->first_t = e->t;
	}
	/*
	 * Readers accept a block set up shortly before the start time pair
	 * (lib/raw/raw.c): what its thread did before the start is not in the
	 * trace, so its span starts at the start, unless the CPU has an event
	 * before the start (before_start()).
	 */
	if (s->start_t != NO_TIME && e->t < s->start_t) {
		c->first_b = e->t;
		start_top(s, c, s->start_t, 0, 0);
	} else {
		start_top(s, c, e->t, 0, 0);
	}
}

/*
 * A CPU whose first span was moved to the trace start: an event before
 * the start says its thread ran then, from the block start.  Frequency
 * and PC samples are side readings, and the idle note changes nothing.
 */
static void before_start(struct cpu *c, const struct kt_event *e)
{
	int ev = e->event;

	if (ev == KUTRACE_PSTATE || ev == KUTRACE_PSTATE2 || ev == KUTRACE_PC_U ||
	    ev == KUTRACE_PC_K || idle_note(c, e))
		return;
	if (c->sp.valid && e->t < c->sp.start)
		c->sp.start = c->first_b;
	c->first_b = NO_TIME;
}

/*
 * Entries lost on a CPU (docs/spec/FORMATS.md 10.4; the decoder's event:
 * arg and retval the interval, pid the reason, rpc the entries, ipc 1
 * when the switch to the block header's task follows): what ran there
 * ends where the loss starts, the loss is a row of its own, and then the
 * CPU's state is unknown, so the switch that follows starts it as at
 * its first block.  Nothing ran on the CPU in between that the trace
 * knows of: never idle, never one long span.
 */
static void lost_event(struct kt_spans *s, const struct kt_event *e)
{
	struct cpu *c = &s->cpu[e->cpu];
	int64_t ls = e->arg, le = e->retval;

	if (c->st && c->sp.valid && c->sp.start <= ls && e->ipc) {
		close_span(s, e->cpu, ls, 0, 0, 0);
		c->st = NULL;
	}
	put(s, ls, le > ls ? le - ls : 1, e->cpu, 0, 0, KUTRACE_LOST_SPAN,
	    (int64_t)(uint32_t)e->rpc, e->pid, 0, s->nm.lost);
	if (le > s->end_t)
		s->end_t = le;
}

/*
 * A trigger that fired (docs/spec/FORMATS.md 11.1; the decoder's event:
 * arg and retval the triggering interval, rpc the kind): a mark row of
 * its own over the interval, at least 1 long; what runs is not cut.
 */
static void trigger_event(struct kt_spans *s, const struct kt_event *e)
{
	int64_t ts = e->arg, te = e->retval;

	put(s, ts, te > ts ? te - ts : 1, e->cpu, e->pid, 0, KUTRACE_TRIGGER_MARK,
	    e->rpc, 0, 0, e->name);
}

void kt_spans_event(struct kt_spans *s, const struct kt_event *e)
{
	if (e->event >= KUTRACE_VARLEN_LO && e->event <= KUTRACE_VARLEN_HI) {
		/*
		 * Names count from their time on.  The copies at -1 that
		 * rawtoevent writes for the original's eventtospan would give
		 * a thread, before its first name, whichever of its names
		 * sorts last.
		 */
		if (e->t >= 0) {
			if (s->first_t == NO_TIME || e->t < s->first_t)
				s->first_t = e->t;
			name_record(s, e);
		}
		return;
	}
	if (e->cpu < 0 || e->cpu >= KUTRACE_MAX_CPUS)
		return;
	if (e->event == KUTRACE_MBIT_SEC) {
		if (e->arg > 0)
			s->mbit = (int)e->arg;
		return;
	}
	if (e->event == KUTRACE_LOST_SPAN) {
		lost_event(s, e);
		return;
	}
	if (e->event == KUTRACE_TRIGGER_MARK) {
		trigger_event(s, e);
		return;
	}
	struct cpu *c = &s->cpu[e->cpu];

	if (!c->st) {
		/* First event on this CPU: it runs idle with an empty stack. */
		c->th = thread(s, 0);
		c->st = &c->stack;
		c->st->f[0].event = KUTRACE_IDLE;
		c->st->f[0].name = s->nm.idle;
		if (e->event == KUTRACE_USERPID) {
			first_switch(s, c, e);
			return;
		}
	}
	if (e->t > s->last_t)
		s->last_t = e->t;
	/* Frequency and PC samples are side readings, not CPU time. */
	if (e->event != KUTRACE_PSTATE && e->event != KUTRACE_PSTATE2 &&
	    e->event != KUTRACE_PC_U && e->event != KUTRACE_PC_K &&
	    e->t + (e->dur > 0 ? e->dur : 0) > s->end_t)
		s->end_t = e->t + (e->dur > 0 ? e->dur : 0);
	if (s->first_t == NO_TIME || e->t < s->first_t)
		s->first_t = e->t;
	c->last_t = e->t;
	if (c->first_b != NO_TIME)
		before_start(c, e);
	process(s, e);
}

struct kt_spans *kt_spans_new(kt_row_fn fn, void *ctx)
{
	struct kt_spans *s = kt_xcalloc(1, sizeof(*s));

	s->fn = fn;
	s->ctx = ctx;
	s->nm.idle = kt_intern("-idle-");
	s->nm.sched = kt_intern("-sched-");
	s->nm.rsched = kt_intern("/-sched-");
	s->nm.cexit = kt_intern("-c-exit-");
	s->nm.freq = kt_intern("-freq-");
	s->nm.lost = kt_intern("-lost-");
	s->nm.idlelp = kt_intern("-idlelp-");
	s->nm.wakeup = kt_intern("-wakeup-");
	s->nm.ipi = kt_intern("-ipi-");
	s->nm.runnable = kt_intern("runnable");
	for (int i = 0; i < 26; i++)
		s->nm.wait[i] = kt_intern(wait_names[i]);
	static const char *const forks[8] = {
		"clone", "/clone", "fork", "/fork",
		"clone3", "/clone3", "vfork", "/vfork",
	};
	for (int i = 0; i < 8; i++)
		s->nm.forks[i] = kt_intern(forks[i]);
	s->mbit = 1000;
	s->first_t = NO_TIME;
	s->start_t = s->stop_t = NO_TIME;
	s->sched_ev = KUTRACE_SCHED_CALL;
	for (int i = 0; i < KUTRACE_MAX_CPUS; i++) {
		s->cpu[i].mwait_hint = -1;
		s->cpu[i].last_pc_t = NO_TIME;
		s->cpu[i].last_freq_t = NO_TIME;
		s->cpu[i].switch_t = NO_TIME;
		s->cpu[i].ipi_t = NO_TIME;
		s->cpu[i].first_b = NO_TIME;
	}
	return s;
}

void kt_spans_edges(struct kt_spans *s, int64_t start, int64_t stop)
{
	s->start_t = start;
	s->stop_t = stop;
}

void kt_spans_finish(struct kt_spans *s)
{
	for (int i = 0; i < KUTRACE_MAX_CPUS; i++) {
		struct cpu *c = &s->cpu[i];

		/*
		 * Each CPU's last span lasts to the end of the trace, the
		 * latest end of any event.  An idle CPU's idle lasts to the
		 * stop time: a busy CPU takes a traced timer tick every few
		 * ms, but a tickless idle one may be silent for seconds, and
		 * it stays idle until something it would trace happens.
		 */
		if (c->st && c->sp.valid)
			close_span(s, i, c->sp.event == KUTRACE_IDLE && s->stop_t > s->end_t ?
				   s->stop_t : s->end_t, 0, 0, 0);

		if (c->last_freq_t != NO_TIME && s->last_t > c->last_freq_t)
			put(s, c->last_freq_t, s->last_t - c->last_freq_t, i, 0, 0,
			    KUTRACE_PSTATE, c->freq, 0, 0, s->nm.freq);
	}
	/* Row labels for threads that had several names (exec). */
	for (size_t i = 0; i < s->tcap; i++) {
		struct thread *t = s->th[i];
		char buf[300];

		if (!t || !t->rowname || !strchr(t->rowname, '+') ||
		    t->first_t == NO_TIME)
			continue;
		snprintf(buf, sizeof(buf), "%s.%" PRId64, t->rowname, t->pid);
		put(s, s->first_t, 1, 0, (int)t->pid, 0, KUTRACE_LEFTMARK, 0, 0,
		    0, kt_intern(buf));
	}
}

/*
 * Every row still to come starts at or after the returned time: the open
 * span of each CPU, its pending PC-sample, frequency, IPI and switch
 * times, each thread's pending wait and wakeup, each pending lock try or
 * hold, and `now` (the earliest time of an event not yet fed).  Row labels
 * (LEFTMARK) of renamed threads are the exception: kt_spans_finish writes
 * them at the thread's first time, so the caller must accept rows before
 * the bound there.  With cpus_only the threads and locks are left out,
 * for a caller that has to move on past a long sleeper.
 */
int64_t kt_spans_low(const struct kt_spans *s, int64_t now, int cpus_only)
{
	int64_t low = now;

#define LOW(x) do { if ((x) != NO_TIME && (x) < low) low = (x); } while (0)
	for (int i = 0; i < KUTRACE_MAX_CPUS; i++) {
		const struct cpu *c = &s->cpu[i];

		if (!c->st)
			continue;
		if (c->sp.valid)
			LOW(c->sp.start);
		LOW(c->last_pc_t);
		LOW(c->last_freq_t);
		LOW(c->ipi_t);
		LOW(c->switch_t);
	}
	if (cpus_only)
		return low;
	for (size_t i = 0; i < s->tcap; i++) {
		const struct thread *t = s->th[i];

		if (!t)
			continue;
		if (t->named_until != NO_TIME && t->named_until <= now)
			continue;	/* never named again: no row of its own to come */
		if (t->prior_end != NO_TIME)
			LOW(t->prior_end + 1);
		LOW(t->wake_t);
		LOW(t->rx_t);
	}
	if (s->enq_t)
		for (int i = 0; i < 65536; i++)
			LOW(s->enq_t[i]);
	for (int i = 0; i < PKT_SLOTS; i++)
		if (s->rx[i].used)
			LOW(s->rx[i].v);
	for (size_t i = 0; i < s->lcap; i++) {
		if (!s->locks[i].used)
			continue;
		LOW(s->locks[i].try_t);
		LOW(s->locks[i].hold_t);
	}
#undef LOW
	return low;
}

void kt_spans_named(struct kt_spans *s, uint32_t pid, int64_t until)
{
	if (pid == 0)
		return;	/* idle: no thread of its own */
	struct thread *t = thread(s, pid);

	if (t->named_until == NO_TIME || until > t->named_until)
		t->named_until = until;
}

void kt_spans_free(struct kt_spans *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->tcap; i++)
		free(s->th[i]);
	free(s->th);
	free(s->locks);
	free(s->enq_t);
	free(s->qname);
	free(s);
}

void kt_spans_meta(const struct kt_spans *s, struct kt_json_meta *m)
{
	m->kernel = s->kernel;
	m->model = s->model;
	m->host = s->host;
	m->mbit = s->mbit;
}


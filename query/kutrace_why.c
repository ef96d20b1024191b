// SPDX-License-Identifier: BSD-3-Clause
/*
 * kutrace_why - why was it slow: the critical path of a thread's interval
 * across threads, every nanosecond attributed to what it waited for.
 *
 *   kutrace_why TRACE|STORE|JSON --pid P --from T1 --to T2
 *   kutrace_why ... --mark NAME       each interval NAME .. /NAME
 *   kutrace_why ... --rpc ID          an RPC, from its first row to its last
 *   kutrace_why ... --slowest N [--method M]
 *
 * The walk (the bounded critical path of Trace Compass, over the tables of
 * docs/TABLES.md): the target's thread_state tiles its interval.  Running
 * is its own time, split by what ran (user code, each call).  Runnable is
 * waiting for a CPU behind whoever ran on the CPU it then got (idle_exit
 * where nobody ran: the CPU was leaving a sleep state).  Sleeping is
 * followed through the wakeup that ended it to the waker, over the same
 * window, recursively: the waker's running time is the wait's cause (lock
 * held by T, pipe waiting for T, ...), its own sleeps are followed in turn.
 * A wakeup from an interrupt ends the walk there (timer, disk, network,
 * named by the interrupt); one with no waker in the trace is "unknown".
 * Every piece of the interval lands in exactly one cause, so the pieces
 * add up to the latency to the nanosecond.
 */
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tool.h"
#include "parquet.h"
#include "store.h"

#define MAX_DEPTH 16

/* ---------------------------------------------------------------------- */
/* What the walk reads: a thread's states, a CPU's runs and interrupts,     */
/* each loaded once for the whole target window.                            */
/* ---------------------------------------------------------------------- */

enum { RUNNING, RUNNABLE, SLEEPING };

struct state {
	int64_t ts, end;
	int32_t cpu, waker_pid, waker_cpu;
	int state;
	const char *reason;	/* interned, or NULL */
};

struct run {
	int64_t ts, end;
	int32_t pid;
	int32_t ti;		/* rpc rows: the host */
};

struct irq {
	int64_t ts, end;
	const char *name;
};

/* Every row the walk loads begins with its interval. */
struct iv {
	int64_t ts, end;
};

struct arr {
	void *v;
	size_t n, cap, size;
	int32_t key;
	int64_t key2;		/* irqs: the longest one's duration, -1 unknown */
};

/* Each array on its own: the walk holds one while it loads another. */
struct cache {
	struct arr **a;
	size_t n;
	int loaded;
};

/*
 * One host's trace among the stores given (kutrace_align --tables writes
 * one store per host, every time on one clock): a thread is a pid on a
 * host, a CPU a number on a host.
 */
#define MAX_HOSTS 64
struct host {
	char *id, *lit;		/* its trace_id, and as an SQL literal */
	char *machine;
	struct cache states, runs, irqs, holds;
};

struct ctx {
	duckdb_connection c;
	struct host h[MAX_HOSTS];
	int nh, ti;		/* the hosts; the one the walk is on */
	int64_t w0, w1;		/* the target window: what is loaded */
	int32_t rpc;		/* the target's RPC id, or 0 */
	int64_t stack[MAX_DEPTH];	/* the threads being walked (host << 32 | pid) */
	const char *blind;	/* what the trace cannot show, or NULL */
	struct arr rpc_rows;	/* other threads' rows of that RPC (struct run) */
	struct arr exe;		/* the targets' execution rows (struct exe, load_exe) */
	struct piece *p;
	size_t np, capp;
	char err[512];
};

/* The trace_id literal of the host the walk is on. */
#define TRACE(x) ((x)->h[(x)->ti].lit)
#define HERE(x, what) (&(x)->h[(x)->ti].what)

struct piece {
	int64_t a, b;
	int32_t ti;		/* the host */
	int32_t pid, cpu;
	const char *cause, *what;
	const char *lock;	/* a traced lock pid held meanwhile, or NULL */
	int depth;
};

/*
 * The first row of a ending after t, for rows that tile their thread's or
 * CPU's time (ends in order): the walk starts there, not at the first row
 * of a window that may hold the whole trace (--slowest).
 */
static size_t first_after(const struct arr *a, int64_t t)
{
	size_t lo = 0, hi = a->n;

	while (lo < hi) {
		size_t m = lo + (hi - lo) / 2;
		const struct iv *v = (const struct iv *)((const char *)a->v + m * a->size);

		if (v->end <= t)
			lo = m + 1;
		else
			hi = m;
	}
	return lo;
}

static void *push(struct arr *a)
{
	if (a->n == a->cap) {
		a->cap = a->cap ? 2 * a->cap : 64;
		a->v = kt_xrealloc(a->v, a->cap * a->size);
	}
	return (char *)a->v + a->n++ * a->size;
}

static struct arr *find(struct cache *c, int32_t key, size_t size, int *fresh)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->a[i]->key == key)
			return c->a[i];
	c->a = kt_xrealloc(c->a, (c->n + 1) * sizeof(*c->a));
	c->a[c->n] = kt_xcalloc(1, sizeof(**c->a));
	*c->a[c->n] = (struct arr){ .key = key, .size = size, .key2 = -1 };
	*fresh = 1;
	return c->a[c->n++];
}

static void cache_clear(struct cache *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->a[i]->v);
		free(c->a[i]);
	}
	c->n = 0;
	c->loaded = 0;
}

/*
 * Every value read from a store may be NULL or out of range (a store is a
 * directory of files anyone can rewrite): each is checked before use, and
 * a bad one ends the program in one line naming its table and column.
 * Times (ns) and durations are bounded so that their sums and differences,
 * doubled, fit in 64 bits; the row stream and the JSON reader bound them
 * tighter (1e9 s).
 */
#define T_MAX ((int64_t)1 << 60)

static const char *store_name = "?";	/* the input, for the messages */

static void bad_value(const char *tc, idx_t row, const char *what)
	__attribute__((noreturn));
static void bad_value(const char *tc, idx_t row, const char *what)
{
	kt_die("%s: %s is %s in row %llu", store_name, tc, what, (unsigned long long)row + 1);
}

/* Column col of r, a number in [lo, hi], from table.column tc. */
static int64_t num(duckdb_result *r, idx_t col, idx_t row, const char *tc, int64_t lo, int64_t hi)
{
	if (duckdb_value_is_null(r, col, row))
		bad_value(tc, row, "NULL");
	int64_t n = duckdb_value_int64(r, col, row);

	if (n != 0 && n >= lo && n <= hi)
		return n;
	/* 0 is also what a value that does not convert reads as: the text
	 * tells them apart. */
	char *v = duckdb_value_varchar(r, col, row), *end;

	if (!v)
		bad_value(tc, row, "not a number");
	errno = 0;
	n = strtoll(v, &end, 10);
	if (errno || end == v || *end || n < lo || n > hi) {
		char what[96];

		snprintf(what, sizeof(what), "out of range (%.40s)", v);
		duckdb_free(v);
		bad_value(tc, row, what);
	}
	duckdb_free(v);
	return n;
}

static int32_t i32(duckdb_result *r, idx_t col, idx_t row, const char *tc)
{
	return (int32_t)num(r, col, row, tc, INT32_MIN, INT32_MAX);
}

/* A time (ns) and a duration. */
static int64_t ts_of(duckdb_result *r, idx_t col, idx_t row, const char *tc)
{
	return num(r, col, row, tc, -T_MAX, T_MAX);
}

static int64_t dur_of(duckdb_result *r, idx_t col, idx_t row, const char *tc)
{
	return num(r, col, row, tc, 0, T_MAX);
}

/* A nullable integer: -1 when NULL. */
static int32_t i32_or(duckdb_result *r, idx_t col, idx_t row, const char *tc)
{
	return duckdb_value_is_null(r, col, row) ? -1 : i32(r, col, row, tc);
}

/* Text that may be NULL (NULL then), interned. */
static const char *str(duckdb_result *r, idx_t col, idx_t row)
{
	if (duckdb_value_is_null(r, col, row))
		return NULL;
	char *v = duckdb_value_varchar(r, col, row);
	const char *s = kt_intern(v);

	duckdb_free(v);
	return s;
}

/* Text that may not be NULL, interned. */
static const char *need_str(duckdb_result *r, idx_t col, idx_t row, const char *tc)
{
	const char *s = str(r, col, row);

	if (!s)
		bad_value(tc, row, "NULL");
	return s;
}

/* Rows of sql, each handed to fn with its column values as text. */
static void query(struct ctx *x, const char *sql, void (*fn)(struct ctx *, duckdb_result *,
							      idx_t, void *), void *arg)
{
	duckdb_result r;

	if (duckdb_query(x->c, sql, &r) == DuckDBError)
		kt_die("%.*s", (int)strcspn(duckdb_result_error(&r), "\n"), duckdb_result_error(&r));
	for (idx_t i = 0; i < duckdb_row_count(&r); i++)
		fn(x, &r, i, arg);
	duckdb_destroy_result(&r);
}

typedef void (*row_fn)(struct ctx *, duckdb_result *, idx_t, void *);

/*
 * c's array for key.  The first time any key is asked, the query fmt
 * loads every key's rows over the window at once (column 0 the key, rows
 * in key order; fn reads the rest): one scan of the table, not one per
 * thread or CPU, each of which would decompress the whole table again
 * when the window is long (--slowest).
 */
static struct arr *cached(struct ctx *x, struct cache *c, int32_t key, size_t size, row_fn fn,
			  const char *key_tc, const char *fmt, ...)
	__attribute__((format(printf, 7, 8)));
static struct arr *cached(struct ctx *x, struct cache *c, int32_t key, size_t size, row_fn fn,
			  const char *key_tc, const char *fmt, ...)
{
	int fresh = 0;

	if (!c->loaded) {
		va_list ap;
		duckdb_result r;
		struct arr *cur = NULL;

		/* Whole, not cut at a size: a trace id's literal has any length. */
		va_start(ap, fmt);
		char *sql = kt_xvstrf(fmt, ap);

		va_end(ap);
		if (duckdb_query(x->c, sql, &r) == DuckDBError)
			kt_die("%.*s", (int)strcspn(duckdb_result_error(&r), "\n"),
			       duckdb_result_error(&r));
		for (idx_t i = 0; i < duckdb_row_count(&r); i++) {
			int32_t k = i32(&r, 0, i, key_tc);

			if (!cur || cur->key != k)
				cur = find(c, k, size, &fresh);
			fn(x, &r, i, cur);
		}
		duckdb_destroy_result(&r);
		free(sql);
		c->loaded = 1;
	}
	return find(c, key, size, &fresh);
}

/* The host of a trace_id in column col of r (0 if unknown: one host). */
static int host_of(const struct ctx *x, duckdb_result *r, idx_t col, idx_t row)
{
	char *v = duckdb_value_varchar(r, col, row);
	int ti = 0;

	for (int i = 0; v && i < x->nh; i++)
		if (strcmp(x->h[i].id, v) == 0)
			ti = i;
	duckdb_free(v);
	return ti;
}

static void add_state(struct ctx *x, duckdb_result *r, idx_t i, void *arg)
{
	struct state *s = push(arg);
	const char *st = need_str(r, 4, i, "thread_state.state");

	(void)x;
	s->ts = ts_of(r, 1, i, "thread_state.ts");
	s->end = s->ts + dur_of(r, 2, i, "thread_state.dur");
	s->cpu = i32(r, 3, i, "thread_state.cpu");
	s->state = strcmp(st, "running") == 0 ? RUNNING : strcmp(st, "runnable") == 0 ? RUNNABLE :
		   SLEEPING;
	s->reason = str(r, 5, i);
	s->waker_pid = i32_or(r, 6, i, "thread_state.waker_pid");
	s->waker_cpu = i32_or(r, 7, i, "thread_state.waker_cpu");
}

/* A thread's states over the window, in time order. */
static struct arr *states_of(struct ctx *x, int32_t pid)
{
	/* And each thread's first running state after the window: where a
	 * wait at the window's end was going to run, and who woke it. */
	return cached(x, HERE(x, states), pid, sizeof(struct state), add_state,
		      "thread_state.pid",
		      "WITH nx AS (SELECT pid, min(ts) AS t FROM thread_state WHERE trace_id = %s AND "
		      "state = 'running' AND ts >= %" PRId64 " GROUP BY pid) "
		      "SELECT s.pid, s.ts, s.dur, s.cpu, s.state, s.reason, s.waker_pid, s.waker_cpu "
		      "FROM thread_state s LEFT JOIN nx ON s.pid = nx.pid WHERE s.trace_id = %s AND "
		      "s.ts + s.dur > %" PRId64 " AND s.ts <= coalesce(nx.t, %" PRId64 ") "
		      "ORDER BY s.pid, s.ts", TRACE(x), x->w1, TRACE(x), x->w0, x->w1);
}

static void add_run(struct ctx *x, duckdb_result *r, idx_t i, void *arg)
{
	struct run *s = push(arg);

	(void)x;
	s->ts = ts_of(r, 1, i, "sched_slice.ts");
	s->end = s->ts + dur_of(r, 2, i, "sched_slice.dur");
	s->pid = i32(r, 3, i, "sched_slice.pid");
}

/* Who ran on a CPU over the window. */
static struct arr *runs_of(struct ctx *x, int32_t cpu)
{
	return cached(x, HERE(x, runs), cpu, sizeof(struct run), add_run, "sched_slice.cpu",
		      "SELECT cpu, ts, dur, pid FROM sched_slice WHERE trace_id = %s AND "
		      "ts < %" PRId64 " AND ts + dur > %" PRId64 " ORDER BY cpu, ts",
		      TRACE(x), x->w1, x->w0);
}

/* A named interval (an interrupt, a traced lock's hold): key, ts, dur, name. */
static void add_named(duckdb_result *r, idx_t i, void *arg, const char *const tc[3])
{
	struct irq *s = push(arg);

	s->ts = ts_of(r, 1, i, tc[0]);
	s->end = s->ts + dur_of(r, 2, i, tc[1]);
	s->name = need_str(r, 3, i, tc[2]);
}

static void add_irq(struct ctx *x, duckdb_result *r, idx_t i, void *arg)
{
	static const char *const tc[3] = { "slice.ts", "slice.dur", "slice.name" };

	(void)x;
	add_named(r, i, arg, tc);
}

static void add_hold(struct ctx *x, duckdb_result *r, idx_t i, void *arg)
{
	static const char *const tc[3] = { "lock.ts", "lock.dur", "lock.name and lock.lock" };

	(void)x;
	add_named(r, i, arg, tc);
}

/* The interrupt running on cpu at time t (a wakeup's source), or NULL. */
static const char *irq_at(struct ctx *x, int32_t cpu, int64_t t)
{
	struct arr *a = cached(x, HERE(x, irqs), cpu, sizeof(struct irq), add_irq, "slice.cpu",
				     "SELECT cpu, ts, dur, name FROM slice WHERE trace_id = %s "
				     "AND kind IN ('interrupt', 'softirq') AND ts <= %" PRId64
				     " AND ts + dur >= %" PRId64 " ORDER BY cpu, ts, depth",
				     TRACE(x), x->w1, x->w0);
	const struct irq *v = a->v;
	size_t lo = 0, hi = a->n;

	/* Interrupts nest, so their ends are not in order: the last one
	 * starting at or before t, and back from there over the longest. */
	while (lo < hi) {
		size_t m = lo + (hi - lo) / 2;

		if (v[m].ts <= t)
			lo = m + 1;
		else
			hi = m;
	}
	if (a->key2 < 0)	/* the longest, once */
		for (size_t i = 0; i < a->n; i++)
			a->key2 = v[i].end - v[i].ts > a->key2 ? v[i].end - v[i].ts : a->key2;
	/* The innermost (latest starting) one covering t. */
	for (size_t i = lo; i-- > 0 && v[i].ts >= t - a->key2;)
		if (v[i].end >= t)
			return v[i].name;
	return NULL;
}

/* The traced lock pid held over most of [a, b), or NULL. */
static const char *held_by(struct ctx *x, int32_t pid, int64_t a, int64_t b)
{
	const struct arr *h = cached(x, HERE(x, holds), pid, sizeof(struct irq), add_hold, "lock.pid",
				     "SELECT pid, ts, dur, coalesce(name, 'lock ' || lock) FROM lock "
				     "WHERE trace_id = %s AND kind = 'held' AND ts < %" PRId64
				     " AND ts + dur > %" PRId64 " ORDER BY pid, ts",
				     TRACE(x), x->w1, x->w0);
	const struct irq *v = h->v;

	for (size_t i = 0; i < h->n && v[i].ts < b; i++) {
		int64_t s = v[i].ts > a ? v[i].ts : a, e = v[i].end < b ? v[i].end : b;

		if (2 * (e - s) > b - a)
			return v[i].name;
	}
	return NULL;
}

/* ---------------------------------------------------------------------- */
/* The walk                                                                */
/* ---------------------------------------------------------------------- */

static const char *held_by(struct ctx *x, int32_t pid, int64_t a, int64_t b);

/* p at the end of the path, as it is. */
static void put(struct ctx *x, const struct piece *p)
{
	if (x->np == x->capp) {
		x->capp = x->capp ? 2 * x->capp : 256;
		x->p = kt_xrealloc(x->p, x->capp * sizeof(*x->p));
	}
	x->p[x->np++] = *p;
}

static void add(struct ctx *x, int64_t a, int64_t b, int32_t pid, int32_t cpu,
		const char *cause, const char *what, int depth)
{
	if (b <= a)
		return;
	/* A thread waited for holds a traced lock: the lock is named. */
	const char *lock = depth > 0 && pid > 0 ? held_by(x, pid, a, b) : NULL;

	if (x->np && x->p[x->np - 1].b == a && x->p[x->np - 1].pid == pid &&
	    x->p[x->np - 1].ti == x->ti &&
	    x->p[x->np - 1].cpu == cpu && x->p[x->np - 1].cause == cause &&
	    x->p[x->np - 1].what == what && x->p[x->np - 1].depth == depth &&
	    x->p[x->np - 1].lock == lock) {
		x->p[x->np - 1].b = b;	/* one step, not many */
		return;
	}
	put(x, &(struct piece){ .a = a, .b = b, .ti = x->ti, .pid = pid, .cpu = cpu,
				.cause = cause, .what = what, .lock = lock, .depth = depth });
}

/* A sleep's reason (docs/TABLES.md, wait.reason) as a cause. */
static const char *cause_of(const char *reason)
{
	static const char *const map[][2] = {
		{ "lock", "lock" }, { "disk", "disk" }, { "network", "network" },
		{ "timer", "timer" }, { "memory", "memory" }, { "pipe", "pipe" },
		{ "cpu", "cpu_wait" }, { "sched", "ipi" }, { "task", "interrupt" },
		{ "rcu", "interrupt" },
	};

	for (size_t i = 0; reason && i < sizeof(map) / sizeof(map[0]); i++)
		if (strcmp(reason, map[i][0]) == 0)
			return kt_intern(map[i][1]);
	return kt_intern("unknown");
}

/*
 * What an interrupt that ends a sleep says the sleep was for, by its
 * name (/proc/interrupts' or the softirq's), when the wait itself names
 * no reason: the span builder names reasons from system calls and
 * softirqs only (as the original does), and on x86 a disk's or NIC's
 * completion wakes the thread from the device's own interrupt.
 */
static const char *irq_cause(const char *irq)
{
	static const char *const disk[] = {
		"BH:block", "BH:irq_p", "-req", "nvme", "ahci", "ata", "mmc", "scsi", "blk",
	};
	static const char *const net[] = {
		"BH:rx", "BH:tx", "-input", "-output", "eth", "enp", "ens", "eno", "wlan", "wlp",
		"mlx", "TxRx", "-rx", "-tx",
	};
	static const char *const timer[] = {
		"local_timer", "arch_timer", "riscv-timer", "BH:timer", "BH:hrtim",
	};

	for (size_t i = 0; i < sizeof(timer) / sizeof(timer[0]); i++)
		if (strstr(irq, timer[i]))
			return kt_intern("timer");
	for (size_t i = 0; i < sizeof(disk) / sizeof(disk[0]); i++)
		if (strstr(irq, disk[i]))
			return kt_intern("disk");
	for (size_t i = 0; i < sizeof(net) / sizeof(net[0]); i++)
		if (strstr(irq, net[i]))
			return kt_intern("network");
	return kt_intern("interrupt");
}

/* Waiting for cpu over [a, b): behind whoever ran there, or idle_exit. */
static void cpu_wait(struct ctx *x, int64_t a, int64_t b, int32_t cpu, int depth)
{
	const struct arr *r = cpu >= 0 ? runs_of(x, cpu) : NULL;
	const struct run *v = r ? r->v : NULL;
	int64_t t = a;

	for (size_t i = r ? first_after(r, t) : 0; r && i < r->n && t < b; i++) {
		if (v[i].ts >= b)
			break;
		if (v[i].end <= t)
			continue;
		int64_t s = v[i].ts > t ? v[i].ts : t, e = v[i].end < b ? v[i].end : b;

		add(x, t, s, -1, cpu, kt_intern("cpu_wait"), kt_intern("?"), depth);
		add(x, s, e, v[i].pid, cpu, kt_intern(v[i].pid ? "cpu_wait" : "idle_exit"),
		    kt_intern(v[i].pid ? "behind" : "-idle-"), depth);
		t = e;
	}
	add(x, t, b, -1, cpu, kt_intern("cpu_wait"), kt_intern("?"), depth);
}

/* The CPU the thread ran on next after state i (where its wait ended). */
static int32_t next_cpu(const struct arr *s, size_t i)
{
	const struct state *v = s->v;

	for (size_t j = i + 1; j < s->n; j++)
		if (v[j].state == RUNNING)
			return v[j].cpu;
	return -1;
}

static void walk(struct ctx *x, int32_t pid, int64_t a0, int64_t b0, int depth, const char *via);

/*
 * A sleep [a, b) of pid whose wakeup leads to no thread (an interrupt, a
 * timer, none seen): when the target is an RPC and other threads worked
 * on it meanwhile (a server behind a network card, on this host or
 * another one of the stores given, a worker that took the request from a
 * queue), the sleep waited for their work: each is walked over its part
 * of [a, b); the rest stays what the wakeup says.
 */
/* Is pid one of the threads the walk is in (it waits for us)? */
static int on_stack(const struct ctx *x, int ti, int32_t pid, int depth)
{
	for (int d = 0; d <= depth; d++)
		if (x->stack[d] == ((int64_t)ti << 32 | (uint32_t)pid))
			return 1;
	return 0;
}

static void follow_rpc(struct ctx *x, int32_t pid, int64_t a, int64_t b, int32_t cpu,
		       const char *cause, const char *what, int depth)
{
	const struct run *r = x->rpc_rows.v;
	int64_t t = a;

	/* A timer ends a sleep that waited for time, not for the work. */
	for (size_t i = 0; x->rpc && depth + 1 < MAX_DEPTH && strcmp(cause, "timer") != 0 &&
	     i < x->rpc_rows.n && t < b; i++) {
		if (r[i].end <= t || r[i].ts >= b || on_stack(x, r[i].ti, r[i].pid, depth))
			continue;
		int64_t s = r[i].ts > t ? r[i].ts : t, e = r[i].end < b ? r[i].end : b;
		int here = x->ti;

		add(x, t, s, pid, cpu, cause, what, depth);
		/* On its own host: a server behind the network is on another. */
		x->ti = r[i].ti;
		walk(x, r[i].pid, s, e, depth + 1, cause);
		x->ti = here;
		t = e;
	}
	add(x, t, b, pid, cpu, cause, what, depth);
}

static void sleep_piece(struct ctx *x, int32_t pid, const struct arr *s, size_t i, int64_t a,
			int64_t b, int depth)
{
	const struct state *v = s->v;
	const char *cause = cause_of(v[i].reason);
	/* The wakeup that ended the sleep: the runnable state right after. */
	const struct state *w = i + 1 < s->n && v[i + 1].state == RUNNABLE &&
				v[i + 1].waker_pid >= 0 ? &v[i + 1] : NULL;

	if (!w) {
		follow_rpc(x, pid, a, b, -1, cause, kt_intern("no wakeup seen"), depth);
		return;
	}
	const char *irq = w->waker_cpu >= 0 ? irq_at(x, w->waker_cpu, w->ts) : NULL;

	if (irq || w->waker_pid <= 0 || w->waker_pid == pid || depth + 1 >= MAX_DEPTH) {
		/* From an interrupt (or the idle thread's): the device or timer. */
		if (irq && strcmp(cause, "unknown") == 0)
			cause = irq_cause(irq);
		follow_rpc(x, pid, a, b, w->waker_cpu, cause, irq ? irq : kt_intern("asleep"),
			   depth);
		return;
	}
	walk(x, w->waker_pid, a, b, depth + 1, cause);
}

/*
 * pid over [a0, b0): at depth 0 the target itself; deeper, a thread the
 * target (or a thread it waited for) waited for, whose running time is
 * the wait's cause via.
 */
static void walk(struct ctx *x, int32_t pid, int64_t a0, int64_t b0, int depth, const char *via)
{
	const struct arr *s = states_of(x, pid);
	const struct state *v = s->v;
	int64_t t = a0;

	x->stack[depth] = (int64_t)x->ti << 32 | (uint32_t)pid;

	for (size_t i = first_after(s, t); i < s->n && t < b0; i++) {
		if (v[i].ts >= b0)
			break;
		if (v[i].end <= t)
			continue;
		int64_t a = v[i].ts > t ? v[i].ts : t, b = v[i].end < b0 ? v[i].end : b0;

		/* Before the thread's first state or between: not in the trace. */
		add(x, t, a, pid, -1, kt_intern("unknown"), kt_intern("not traced"), depth);
		switch (v[i].state) {
		case RUNNING:
			add(x, a, b, pid, v[i].cpu, depth ? via : kt_intern("running"),
			    kt_intern("running"), depth);
			break;
		case RUNNABLE:
			cpu_wait(x, a, b, next_cpu(s, i), depth);
			break;
		default:
			sleep_piece(x, pid, s, i, a, b, depth);
			break;
		}
		t = b;
	}
	add(x, t, b0, pid, -1, kt_intern("unknown"), kt_intern("not traced"), depth);
}

/* ---------------------------------------------------------------------- */
/* The target's own running time, split by what ran                        */
/* ---------------------------------------------------------------------- */

struct target {
	char label[128];
	int32_t ti, pid, rpc;
	int64_t a, b;
};

struct exe {
	int64_t ts, end;
	int32_t ti, pid, cpu;
	const char *what;
};

static void add_exe(struct ctx *x, duckdb_result *r, idx_t i, void *arg)
{
	struct exe *e = push(arg);
	int32_t ev = i32(r, 5, i, "span.event");

	e->ti = host_of(x, r, 0, i);
	e->pid = i32(r, 1, i, "span.pid");
	e->ts = ts_of(r, 2, i, "span.ts");
	e->end = e->ts + dur_of(r, 3, i, "span.dur");
	e->cpu = i32(r, 4, i, "span.cpu");
	e->what = ev >= 65536 ? kt_intern("user code") : need_str(r, 6, i, "span.name");
}

/*
 * The execution rows of every target's thread over its own interval, in
 * one scan of the span table (the biggest; a query per target would
 * decompress its names again each time), in (pid, cpu, ts) order.
 */
static void load_exe(struct ctx *x, const struct target *t, size_t n)
{
	/* A growing buffer: a trace id's literal has any length. */
	struct kt_buf sql = { 0 };

	kt_buf_puts(&sql, "SELECT trace_id, pid, ts, dur, cpu, event, name FROM span "
		    "WHERE cpu >= 0 AND ((event BETWEEN 1024 AND 4095) OR event > 65536) AND (false");
	for (size_t i = 0; i < n; i++)
		kt_buf_printf(&sql, " OR (trace_id = %s AND pid = %d AND ts < %" PRId64
			      " AND ts + dur > %" PRId64 ")", x->h[t[i].ti].lit, t[i].pid, t[i].b,
			      t[i].a);
	/* trace_id order is the hosts' order (main) */
	kt_buf_puts(&sql, ") ORDER BY trace_id, pid, cpu, ts");
	query(x, sql.p, add_exe, &x->exe);
	kt_buf_free(&sql);
}

/* The first row of pid on cpu (of the host x->ti) ending after t, in x->exe. */
static size_t exe_after(const struct ctx *x, int32_t pid, int32_t cpu, int64_t t)
{
	const struct exe *e = x->exe.v;
	size_t lo = 0, hi = x->exe.n;

	while (lo < hi) {
		size_t m = lo + (hi - lo) / 2;
		int before = e[m].ti != x->ti ? e[m].ti < x->ti : e[m].pid != pid ? e[m].pid < pid :
			     e[m].cpu != cpu ? e[m].cpu < cpu : e[m].end <= t;

		if (before)
			lo = m + 1;
		else
			hi = m;
	}
	return lo;
}

/* Each depth-0 running piece becomes pieces named by the rows under it. */
static void split_running(struct ctx *x, int32_t pid, size_t from)
{
	struct piece *old = x->p + from;
	size_t nold = x->np - from;
	struct piece *keep = kt_xmalloc((nold ? nold : 1) * sizeof(*keep));
	const struct exe *e = x->exe.v;

	memcpy(keep, old, nold * sizeof(*keep));
	x->np = from;
	for (size_t k = 0; k < nold; k++) {
		const struct piece *p = &keep[k];

		if (p->depth || strcmp(p->cause, "running") != 0) {
			put(x, p);	/* as it is: its host and lock are its own */
			continue;
		}
		/* The rows of that CPU under [a, b); a gap (a 10 ns point row)
		 * goes to the row before it. */
		int64_t t = p->a;
		const char *last = kt_intern("running");

		for (size_t i = exe_after(x, pid, p->cpu, t); i < x->exe.n && t < p->b; i++) {
			if (e[i].ti != x->ti || e[i].pid != pid || e[i].cpu != p->cpu ||
			    e[i].ts >= p->b)
				break;
			int64_t s = e[i].ts > t ? e[i].ts : t, f = e[i].end < p->b ? e[i].end : p->b;

			add(x, t, s, pid, p->cpu, p->cause, last, 0);
			add(x, s, f, pid, p->cpu, p->cause, e[i].what, 0);
			last = e[i].what;
			t = f;
		}
		add(x, t, p->b, pid, p->cpu, p->cause, last, 0);
	}
	free(keep);
}

/* ---------------------------------------------------------------------- */
/* Targets and output                                                      */
/* ---------------------------------------------------------------------- */


struct names {
	int32_t *pid, *ti;
	const char **name;
	size_t n;
};

static struct names names;

static void add_name(struct ctx *x, duckdb_result *r, idx_t i, void *arg)
{
	(void)arg;
	names.pid = kt_xrealloc(names.pid, (names.n + 1) * sizeof(*names.pid));
	names.ti = kt_xrealloc(names.ti, (names.n + 1) * sizeof(*names.ti));
	names.name = kt_xrealloc(names.name, (names.n + 1) * sizeof(*names.name));
	names.ti[names.n] = host_of(x, r, 0, i);
	names.pid[names.n] = i32(r, 1, i, "thread.pid");
	names.name[names.n++] = str(r, 2, i);
}

/* Thread pid of host ti's name; with several hosts, "host:name". */
static const char *name_of(const struct ctx *x, int ti, int32_t pid)
{
	const char *n = "?";

	if (pid == 0)
		return "-idle-";
	for (size_t i = 0; i < names.n; i++)
		if (names.pid[i] == pid && names.ti[i] == ti)
			n = names.name[i] ? names.name[i] : "?";
	if (x->nh > 1) {
		char buf[300];

		snprintf(buf, sizeof(buf), "%s:%s", x->h[ti].machine, n);
		n = kt_intern(buf);
	}
	return n;
}

struct cause_sum {
	const char *cause, *who;
	int32_t pid;
	int64_t ns;
};

static int by_ns(const void *a, const void *b)
{
	const struct cause_sum *x = a, *y = b;

	return x->ns < y->ns ? 1 : x->ns > y->ns ? -1 : strcmp(x->cause, y->cause);
}

/* by_cause: running split by what ran; every other cause by thread. */
static struct cause_sum *sums(const struct ctx *x, size_t *n)
{
	struct cause_sum *s = NULL;
	size_t k = 0;

	for (size_t i = 0; i < x->np; i++) {
		const struct piece *p = &x->p[i];
		int run = p->depth == 0 && strcmp(p->cause, "running") == 0;
		/* Own running time by what ran; the rest by the thread waited
		 * for (or what: an interrupt, the idle thread, unknown). */
		int dev = !run && strcmp(p->what, "running") != 0 &&
			  (strcmp(p->cause, "disk") == 0 ||
				   strcmp(p->cause, "network") == 0 ||
				   strcmp(p->cause, "interrupt") == 0);
		/* A device's wait is named by the device's interrupt. */
		const char *who = run || dev ? p->what : p->pid > 0 ? name_of(x, p->ti, p->pid) :
				  p->pid == 0 ? "-idle-" : p->what;
		int32_t pid = p->pid;
		size_t j;

		if (p->lock) {
			char buf[256];

			snprintf(buf, sizeof(buf), "%s holding %s", who, p->lock);
			who = kt_intern(buf);
		}
		for (j = 0; j < k; j++)
			if (s[j].cause == p->cause && s[j].pid == pid && strcmp(s[j].who, who) == 0)
				break;
		if (j == k) {
			s = kt_xrealloc(s, (k + 1) * sizeof(*s));
			s[k++] = (struct cause_sum){ .cause = p->cause, .who = who, .pid = pid };
		}
		s[j].ns += p->b - p->a;
	}
	qsort(s, k, sizeof(*s), by_ns);
	*n = k;
	return s;
}

static json_t *to_json(const struct ctx *x, const struct target *t)
{
	json_t *o = json_object(), *bc = json_array(), *path = json_array();
	size_t n;
	struct cause_sum *s = sums(x, &n);

	json_object_set_new(o, "target", json_string(t->label));
	if (x->nh > 1)
		json_object_set_new(o, "machine", json_string(x->h[t->ti].machine));
	if (x->blind)
		json_object_set_new(o, "unseen", json_string(x->blind));
	json_object_set_new(o, "pid", json_integer(t->pid));
	json_object_set_new(o, "start_ns", json_integer(t->a));
	json_object_set_new(o, "end_ns", json_integer(t->b));
	if (t->rpc)
		json_object_set_new(o, "rpc", json_integer(t->rpc));
	json_object_set_new(o, "latency_ns", json_integer(t->b - t->a));
	for (size_t i = 0; i < n; i++)
		json_array_append_new(bc, json_pack("{s:s, s:I, s:i, s:s}", "cause", s[i].cause, "ns",
						    (json_int_t)s[i].ns, "pid", s[i].pid, "name",
						    s[i].who));
	for (size_t i = 0; i < x->np; i++) {
		const struct piece *p = &x->p[i];

		json_t *step = json_pack("{s:I, s:I, s:i, s:i, s:s, s:s, s:i}", "start_ns",
					 (json_int_t)p->a, "dur_ns", (json_int_t)(p->b - p->a),
					 "pid", p->pid, "cpu", p->cpu, "what", p->what, "cause",
					 p->cause, "depth", p->depth);

		if (p->lock)
			json_object_set_new(step, "lock", json_string(p->lock));
		if (x->nh > 1)
			json_object_set_new(step, "machine", json_string(x->h[p->ti].machine));
		json_array_append_new(path, step);
	}
	json_object_set_new(o, "by_cause", bc);
	json_object_set_new(o, "path", path);
	free(s);
	return o;
}

static void print_text(const struct ctx *x, const struct target *t, int max_steps)
{
	size_t n;
	struct cause_sum *s = sums(x, &n);
	double lat = (double)(t->b - t->a);

	printf("%s: pid %d (%s), %.8f to %.8f s: %.3f us\n", t->label, t->pid,
	       name_of(x, t->ti, t->pid),
	       (double)t->a / 1e9, (double)t->b / 1e9, lat / 1e3);
	printf("  %-10s %14s %7s  %s\n", "cause", "us", "%", "who / what");
	for (size_t i = 0; i < n; i++)
		printf("  %-10s %14.3f %7.2f  %s%s%.0d%s\n", s[i].cause, (double)s[i].ns / 1e3,
		       lat > 0 ? 100.0 * (double)s[i].ns / lat : 0.0, s[i].who,
		       s[i].pid > 0 ? " (" : "", s[i].pid > 0 ? s[i].pid : 0, s[i].pid > 0 ? ")" : "");
	printf("  path (%zu steps%s):\n", x->np, (int)x->np > max_steps ? ", the longest first" : "");
	/* Every step when few; else the longest ones, in time order. */
	size_t *idx = kt_xmalloc((x->np ? x->np : 1) * sizeof(*idx));
	size_t m = 0;
	int64_t cut = 0;

	if ((int)x->np > max_steps) {
		int64_t *d = kt_xmalloc(x->np * sizeof(*d));

		for (size_t i = 0; i < x->np; i++)
			d[i] = x->p[i].b - x->p[i].a;
		for (size_t i = 1; i < x->np; i++)	/* insertion sort, descending */
			for (size_t j = i; j > 0 && d[j] > d[j - 1]; j--) {
				int64_t tmp = d[j];

				d[j] = d[j - 1];
				d[j - 1] = tmp;
			}
		cut = d[max_steps - 1];
		free(d);
	}
	for (size_t i = 0; i < x->np; i++)
		if (x->p[i].b - x->p[i].a >= cut && (int)m < max_steps)
			idx[m++] = i;
	for (size_t k = 0; k < m; k++) {
		const struct piece *p = &x->p[idx[k]];

		printf("  %14.8f %12.3f us %*s%s pid %d (%s) cpu %d: %s%s%s\n", (double)p->a / 1e9,
		       (double)(p->b - p->a) / 1e3, 2 * p->depth, "", p->cause, p->pid,
		       p->pid >= 0 ? name_of(x, p->ti, p->pid) : "?", p->cpu, p->what,
		       p->lock ? ", holding " : "", p->lock ? p->lock : "");
	}
	free(idx);
	free(s);
}

/*
 * critical_path (docs/TABLES.md): every step of every target explained,
 * for SQL over many slow requests ("which lock costs update's p99?").
 */
static const struct kt_pq_col cp_cols[] = {
	{ "target", KT_PQ_STR, 0, 0 }, { "target_pid", KT_PQ_I32, 0, 0 },
	{ "target_ts", KT_PQ_I64, 0, 0 }, { "latency_ns", KT_PQ_I64, 0, 0 },
	{ "ts", KT_PQ_I64, 0, 0 }, { "dur", KT_PQ_I64, 0, 0 }, { "pid", KT_PQ_I32, 0, 0 },
	{ "cpu", KT_PQ_I32, 0, 0 }, { "what", KT_PQ_STR, 0, 0 }, { "cause", KT_PQ_STR, 0, 0 },
	{ "depth", KT_PQ_I32, 0, 0 }, { "lock", KT_PQ_STR, 1, 0 }, { "trace_id", KT_PQ_STR, 0, 1 },
	{ "machine", KT_PQ_STR, 0, 1 },
};

static void save_rows(struct kt_pq *w, const struct ctx *x, const struct target *t)
{
	for (size_t i = 0; i < x->np; i++) {
		const struct piece *p = &x->p[i];

		kt_pq_str(w, 0, t->label, strlen(t->label));
		kt_pq_i32(w, 1, t->pid);
		kt_pq_i64(w, 2, t->a);
		kt_pq_i64(w, 3, t->b - t->a);
		kt_pq_i64(w, 4, p->a);
		kt_pq_i64(w, 5, p->b - p->a);
		kt_pq_i32(w, 6, p->pid);
		kt_pq_i32(w, 7, p->cpu);
		kt_pq_str(w, 8, p->what, strlen(p->what));
		kt_pq_str(w, 9, p->cause, strlen(p->cause));
		kt_pq_i32(w, 10, p->depth);
		if (p->lock)
			kt_pq_str(w, 11, p->lock, strlen(p->lock));
		else
			kt_pq_null(w, 11);
		if (kt_pq_row(w) < 0)
			kt_die("%s", kt_pq_error(w));
	}
}

static void add_rpc_run(struct ctx *x, duckdb_result *r, idx_t i, void *arg)
{
	struct run *s = push(arg);

	s->ti = host_of(x, r, 0, i);
	s->pid = i32(r, 1, i, "rpc.pid");
	s->ts = ts_of(r, 2, i, "rpc.begin_ts");
	s->end = ts_of(r, 3, i, "rpc.end_ts");
}

/* x->w0..w1, what the caches load, covers every target (main). */
static void explain(struct ctx *x, const struct target *t)
{
	x->np = 0;
	x->rpc = t->rpc;
	x->rpc_rows.n = 0;
	x->ti = t->ti;
	if (t->rpc) {
		char sql[256];

		/* Every host's rows of the RPC: its servers may be elsewhere. */
		snprintf(sql, sizeof(sql), "SELECT trace_id, pid, begin_ts, end_ts FROM rpc WHERE "
			 "rpc = %d ORDER BY begin_ts, trace_id, pid", t->rpc);
		query(x, sql, add_rpc_run, &x->rpc_rows);
	}
	walk(x, t->pid, t->a, t->b, 0, NULL);
	split_running(x, t->pid, 0);
}

/* ---------------------------------------------------------------------- */
/* --html: the answers inside a timeline page, for its viewer to draw      */
/* ---------------------------------------------------------------------- */

#define WHY_TAG "\n<script type=\"application/json\" id=\"ktwhy\">"

/* Same target: same label and interval. */
static int same_target(json_t *a, json_t *b)
{
	return json_equal(json_object_get(a, "target"), json_object_get(b, "target")) &&
	       json_equal(json_object_get(a, "start_ns"), json_object_get(b, "start_ns")) &&
	       json_equal(json_object_get(a, "end_ns"), json_object_get(b, "end_ns"));
}

/*
 * The page's answers (a block after its end, where the viewer looks:
 * viewer/why.js) are these plus the ones it had for other
 * targets.  The page is rewritten whole (kt_out): never half of one.
 */
static void put_in_page(const char *page, json_t *answers)
{
	FILE *f = fopen(page, "rb");
	char *buf = NULL;
	size_t n = 0, cap = 0, got;

	if (!f)
		kt_die("%s: %s", page, strerror(errno));
	do {
		if (n + 65536 > cap) {
			cap = cap ? 2 * cap : 1 << 20;
			buf = kt_xrealloc(buf, cap + 1);
		}
		got = fread(buf + n, 1, cap - n, f);
		n += got;
	} while (got > 0);
	if (ferror(f))
		kt_die("%s: %s", page, strerror(errno));
	fclose(f);
	buf[n] = 0;
	if (!strstr(buf, "id=\"ktdata\"") || !strstr(buf, "window.kutrace"))
		kt_die("%s: not a kutrace timeline page (kutrace_postproc writes one)", page);
	/* Ours is the last block; a thread named like the tag is escaped in
	 * it (JSON_ESCAPE_SLASH), so the last match is the tag itself. */
	size_t keep = n;
	json_t *all = json_array();

	for (char *p = strstr(buf, WHY_TAG); p; p = strstr(p + 1, WHY_TAG))
		keep = (size_t)(p - buf);
	if (keep < n) {
		char *js = buf + keep + strlen(WHY_TAG), *end = strstr(js, "</script>");
		json_t *old = end ? json_loadb(js, (size_t)(end - js), 0, NULL) : NULL;
		size_t i;
		json_t *v;

		json_array_foreach(old, i, v) {
			int dup = 0;

			for (size_t j = 0; j < json_array_size(answers) && !dup; j++)
				dup = same_target(v, json_array_get(answers, j));
			if (!dup)
				json_array_append(all, v);
		}
		json_decref(old);
	}
	json_array_extend(all, answers);
	FILE *out = kt_out_open(page, "");

	if (fwrite(buf, 1, keep, out) != keep || fputs(WHY_TAG, out) < 0 ||
	    json_dumpf(all, out, JSON_COMPACT | JSON_ESCAPE_SLASH) < 0 ||
	    fputs("</script>\n", out) < 0)
		kt_die("%s: %s", kt_out_tmpname(out), strerror(errno));
	kt_out_commit(out);
	fprintf(stderr, "kutrace_why: %zu answers in %s (%zu new)\n", json_array_size(all), page,
		json_array_size(answers));
	json_decref(all);
	free(buf);
}

/* The one value of sql (of table.column tc, a time or a count), -1 if none. */
static int64_t one_int(struct ctx *x, const char *sql, const char *tc)
{
	duckdb_result r;
	int64_t v = -1;

	if (duckdb_query(x->c, sql, &r) == DuckDBError)
		kt_die("%.*s", (int)strcspn(duckdb_result_error(&r), "\n"), duckdb_result_error(&r));
	if (duckdb_row_count(&r) && !duckdb_value_is_null(&r, 0, 0))
		v = num(&r, 0, 0, tc, -T_MAX, T_MAX);
	duckdb_destroy_result(&r);
	return v;
}

struct targets {
	struct target *t;
	size_t n;
};

static void add_target(struct targets *ts, const char *label, int ti, int32_t pid, int32_t rpc,
		       int64_t a, int64_t b)
{
	ts->t = kt_xrealloc(ts->t, (ts->n + 1) * sizeof(*ts->t));
	struct target *t = &ts->t[ts->n++];

	snprintf(t->label, sizeof(t->label), "%s", label);
	t->ti = ti;
	t->pid = pid;
	t->rpc = rpc;
	t->a = a;
	t->b = b;
}

static void add_rpc_row(struct ctx *x, duckdb_result *r, idx_t i, void *arg)
{
	char label[128];
	const char *m = str(r, 4, i);
	int32_t id = i32(r, 0, i, "rpc.rpc");
	int64_t a = ts_of(r, 2, i, "rpc.begin_ts"), b = ts_of(r, 3, i, "rpc.end_ts");

	if (b < a)
		bad_value("rpc.end_ts", i, "before rpc.begin_ts");
	snprintf(label, sizeof(label), "rpc %d%s%s", id, m ? " " : "", m ? m : "");
	add_target(arg, label, host_of(x, r, 5, i), i32(r, 1, i, "rpc.pid"), id, a, b);
}

/*
 * An RPC from its first row on any thread (of any host) to its last,
 * walked on the thread that began it (the client): its wait for the
 * answer leads to the server through the wakeup, or through the RPC's
 * rows on the server's thread.
 */
static void rpc_targets(struct ctx *x, struct targets *ts, const char *where, long limit)
{
	char *sql = kt_xstrf("WITH r AS (SELECT rpc, arg_min(pid, (begin_ts, trace_id)) AS pid, "
			 "arg_min(trace_id, (begin_ts, trace_id)) AS tr, min(begin_ts) AS a, "
			 "max(end_ts) AS b, min(method) AS method FROM rpc WHERE rpc > 0 GROUP BY rpc) "
			 "SELECT rpc, pid, a, b, method, tr FROM r %s ORDER BY b - a DESC, rpc "
			 "LIMIT %ld", where, limit);

	query(x, sql, add_rpc_row, ts);
	free(sql);
}

static void add_mark_row(struct ctx *x, duckdb_result *r, idx_t i, void *arg)
{
	char label[128];

	snprintf(label, sizeof(label), "mark %s", need_str(r, 3, i, "mark.label"));
	add_target(arg, label, host_of(x, r, 4, i), i32(r, 0, i, "mark.pid"), 0,
		   ts_of(r, 1, i, "mark.ts"), ts_of(r, 2, i, "mark.ts"));
}

/* A target that does not exist: one line, exit 2 (the temporary store,
 * if any, is removed at exit). */
static void none(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void none(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "kutrace_why: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: kutrace_why INPUT (--pid P [--from T1 --to T2] | --mark NAME | --rpc ID |\n"
		"                          --slowest N [--method M]) [--json] [--steps N]\n"
		"                          [--html PAGE] [--save] [--memory SIZE]\n"
		"Explains where a thread's interval went, across threads: its own running\n"
		"time by what ran, waiting for a CPU (behind whom), and each sleep followed\n"
		"through the wakeup that ended it to the thread it waited for (a lock holder,\n"
		"a pipe's writer, ...), recursively, down to a timer, a device or unknown.\n"
		"INPUT is a trace, a JSON file or a table store (kutrace_sql(1)).  T1, T2 in\n"
		"seconds on the trace's time axis (the JSON's first column); without them,\n"
		"the thread's whole life in the trace.  --mark: every\n"
		"interval from a mark NAME to the next /NAME of the same thread.  --rpc: the\n"
		"RPC from its first row to its last, on the thread that began it.  --slowest:\n"
		"the N slowest RPCs (of method M).  --json: {\"latency_ns\", \"by_cause\",\n"
		"\"path\"} per target, an array.  --steps: path lines in the text (default 30).\n"
		"--save (INPUT a store): every step also into the store's table critical_path.\n"
		"--html PAGE: the answers also into the timeline page PAGE (kutrace_postproc's),\n"
		"which then draws each path: #why=rpc:ID, #why=pid:P:T1:T2, #why=mark:NAME in\n"
		"its URL, or \"why rpc:ID\" in its search box.\n"
		"A target that does not exist: one line and exit 2.\n");
}

int main(int argc, char **argv)
{
	const char *pid_s = NULL, *from = NULL, *to = NULL, *mark = NULL, *rpc = NULL;
	const char *method = NULL, *memory = "1500MB", *html = NULL;
	unsigned long long slowest = 0, steps = 30;
	int json = 0, save = 0;
	const struct kt_opt opts[] = {
		{ "pid", KT_OPT_STR, &pid_s, 0 }, { "from", KT_OPT_STR, &from, 0 },
		{ "to", KT_OPT_STR, &to, 0 }, { "mark", KT_OPT_STR, &mark, 0 },
		{ "rpc", KT_OPT_STR, &rpc, 0 }, { "slowest", KT_OPT_ULL, &slowest, 0 },
		{ "method", KT_OPT_STR, &method, 0 }, { "json", KT_OPT_FLAG, &json, 1 },
		{ "steps", KT_OPT_ULL, &steps, 0 }, { "memory", KT_OPT_STR, &memory, 0 },
		{ "save", KT_OPT_FLAG, &save, 1 }, { "html", KT_OPT_STR, &html, 0 },
		{ NULL, 0, NULL, 0 },
	};
	const struct kt_argspec spec = { opts, usage, 1, 1, 0 };
	const char *pos[1];

	kt_set_progname(argv[0]);
	kt_args(&spec, argc, argv, pos);
	store_name = pos[0];
	if ((pid_s != NULL) + (mark != NULL) + (rpc != NULL) + (slowest != 0) != 1)
		none("choose one target: --pid P [--from T1 --to T2], --mark NAME, --rpc ID or "
		     "--slowest N");
	if (pid_s && (!from != !to))
		none("--from T1 and --to T2 (seconds) go together");
	static struct kt_inputs in;

	kt_xopen_inputs(&in, pos, 1, memory);
	char err[512] = "";
	struct kt_db *db = kt_db_open(in.v, in.n, memory, err, sizeof(err));

	if (!db)
		kt_die("%s", err);
	struct ctx x = { .c = kt_db_conn(db), .rpc_rows = { .size = sizeof(struct run) },
			 .exe = { .size = sizeof(struct exe) } };
	duckdb_result r;

	/* The hosts, in trace_id order (load_exe's rows come in it too). */
	if (duckdb_query(x.c, "SELECT trace_id, any_value(machine) FROM machine GROUP BY trace_id "
			 "ORDER BY trace_id", &r) == DuckDBError || !duckdb_row_count(&r))
		kt_die("%s: no machine row", pos[0]);
	if (duckdb_row_count(&r) > MAX_HOSTS)
		kt_die("%llu traces: at most %d at once", (unsigned long long)duckdb_row_count(&r),
		       MAX_HOSTS);
	for (idx_t i = 0; i < duckdb_row_count(&r); i++) {
		struct host *h = &x.h[x.nh++];
		char *tid = duckdb_value_varchar(&r, 0, i), *m = duckdb_value_varchar(&r, 1, i);

		if (!tid || duckdb_value_is_null(&r, 0, i))
			bad_value("machine.trace_id", i, "NULL");
		h->id = kt_xstrdup(tid);
		h->machine = kt_xstrdup(m ? m : "?");
		if (!(h->lit = kt_sql_str("%s", tid)))
			kt_die("out of memory");
		duckdb_free(tid);
		duckdb_free(m);
	}
	duckdb_destroy_result(&r);
	if (save && x.nh > 1)
		kt_die("--save: %d traces given; critical_path goes into one store at a time", x.nh);
	query(&x, "SELECT trace_id, pid, name FROM thread", add_name, NULL);

	struct targets ts = { 0 };
	int64_t lo = one_int(&x, "SELECT min(start_ts) FROM cpu", "cpu.start_ts");
	int64_t hi = one_int(&x, "SELECT max(end_ts) FROM cpu", "cpu.end_ts");

	if (pid_s) {
		char *end;
		long pid = strtol(pid_s, &end, 10);
		char label[128], *sql;

		if (*end || pid <= 0 || pid > INT32_MAX)
			kt_die("--pid %s: a thread id", pid_s);
		/* Several hosts: the first (in trace_id order) with that pid. */
		int ti = 0;

		for (ti = 0; ti < x.nh - 1; ti++) {
			sql = kt_xstrf("SELECT count(*) FROM thread WHERE pid = %ld AND trace_id = %s",
				   pid, x.h[ti].lit);
			int64_t n = one_int(&x, sql, "thread.pid");

			free(sql);
			if (n > 0)
				break;
		}
		sql = kt_xstrf("SELECT min(start_ts) FROM thread WHERE pid = %ld AND trace_id = %s",
			   pid, x.h[ti].lit);
		int64_t life0 = one_int(&x, sql, "thread.start_ts");

		free(sql);
		sql = kt_xstrf("SELECT max(end_ts) FROM thread WHERE pid = %ld AND trace_id = %s",
			   pid, x.h[ti].lit);
		int64_t life1 = one_int(&x, sql, "thread.end_ts");

		free(sql);

		if (life0 < 0)
			none("pid %ld: no such thread in the trace", pid);
		if (life1 < life0)
			kt_die("%s: thread.end_ts is before thread.start_ts (pid %ld)", store_name, pid);
		/* Without --from/--to: the thread's whole life in the trace. */
		int64_t a_ns = life0, b_ns = life1;

		if (from) {
			double a = strtod(from, NULL), b = strtod(to, NULL);

			if (!(b > a) || !(a > -1e9 && b < 1e9))
				kt_die("--from %s --to %s: an interval (seconds, from < to, within 1e9 s)",
				       from, to);
			a_ns = llround(a * 1e9);
			b_ns = llround(b * 1e9);
			if (b_ns <= lo || a_ns >= hi)
				none("%s..%s s: outside the trace (%.6f..%.6f s)", from, to,
				     (double)lo / 1e9, (double)hi / 1e9);
			/* Only the part of the interval the thread lived in. */
			if (a_ns < life0)
				a_ns = life0;
			if (b_ns > life1)
				b_ns = life1;
			if (b_ns <= a_ns)
				none("pid %ld did not run between %s and %s s (it lived %.6f..%.6f s)",
				     pid, from, to, (double)life0 / 1e9, (double)life1 / 1e9);
		}
		snprintf(label, sizeof(label), "pid %ld", pid);
		add_target(&ts, label, ti, (int32_t)pid, 0, a_ns, b_ns);
	} else if (mark) {
		char *open = kt_sql_str("%s", mark), *close = kt_sql_str("/%s", mark);

		if (!open || !close)
			kt_die("out of memory");
		char *sql = kt_xstrf("SELECT o.pid, o.ts, (SELECT min(c.ts) FROM mark c WHERE "
				 "c.pid = o.pid AND c.label = %s AND c.ts > o.ts AND c.trace_id = "
				 "o.trace_id) AS e, o.label, o.trace_id FROM mark o WHERE o.label = %s "
				 "AND e IS NOT NULL ORDER BY o.ts, o.trace_id", close, open);

		query(&x, sql, add_mark_row, &ts);
		free(sql);
		free(open);
		free(close);
		if (!ts.n)
			none("--mark %s: no interval from a mark %s to a mark /%s on the same thread",
			     mark, mark, mark);
	} else {
		char *where = NULL;

		if (rpc) {
			char *end;
			long id = strtol(rpc, &end, 10);

			if (*end || id <= 0 || id > INT32_MAX)
				kt_die("--rpc %s: an RPC id", rpc);
			where = kt_xstrf("WHERE rpc = %ld", id);
		} else if (method) {
			char *m = kt_sql_str("%s", method);

			if (!m)
				kt_die("out of memory");
			where = kt_xstrf("WHERE method = %s", m);
			free(m);
		}
		rpc_targets(&x, &ts, where ? where : "", rpc ? 1 : (long)slowest);
		free(where);
		if (!ts.n)
			none("%s%s%s: no such RPC in the trace", rpc ? "--rpc " : "--slowest",
			     rpc ? rpc : "", method ? " --method" : "");
	}
	/* An old JSON without wakeup arcs: running and blocked time are still
	 * exact, but no sleep can be followed to what ended it. */
	x.blind = one_int(&x, "SELECT count(*) FROM wakeup", "wakeup") ? NULL :
		  "this trace has no wakeups: a sleep's cause (lock, pipe, timer, disk, network, "
		  "memory, ipi, interrupt) cannot be seen and shows as unknown";
	if (x.blind && !json)
		printf("note: %s\n", x.blind);
	json_t *all = json_array();
	struct kt_pq *cp = NULL;
	char cpfile[4200];

	if (save) {
		struct stat st;

		if (stat(pos[0], &st) < 0 || !S_ISDIR(st.st_mode))
			kt_die("--save: %s is not a table store (kutrace_sql build writes one)", pos[0]);
		snprintf(cpfile, sizeof(cpfile), "%s/.critical_path.%d.parquet", pos[0], (int)getpid());
		kt_unlink_on_die(cpfile);
		cp = kt_pq_open(cpfile, cp_cols, 14, 256 * 1024, err, sizeof(err));
		if (!cp)
			kt_die("%s", err);
	}
	/* One load of each thread's and CPU's rows for all the targets. */
	x.w0 = ts.t[0].a;
	x.w1 = ts.t[0].b;
	for (size_t i = 1; i < ts.n; i++) {
		x.w0 = ts.t[i].a < x.w0 ? ts.t[i].a : x.w0;
		x.w1 = ts.t[i].b > x.w1 ? ts.t[i].b : x.w1;
	}
	load_exe(&x, ts.t, ts.n);
	for (size_t i = 0; i < ts.n; i++) {
		explain(&x, &ts.t[i]);
		if (cp)
			save_rows(cp, &x, &ts.t[i]);
		if (json || html)
			json_array_append_new(all, to_json(&x, &ts.t[i]));
		if (!json)
			print_text(&x, &ts.t[i], (int)steps);
	}
	if (json) {
		json_t *out = ts.n == 1 ? json_incref(json_array_get(all, 0)) : json_incref(all);

		json_dumpf(out, stdout, JSON_COMPACT);
		putchar('\n');
		json_decref(out);
	}
	if (html)
		put_in_page(html, all);
	json_decref(all);
	if (fflush(stdout) != 0)
		kt_die("standard output: %s", strerror(errno));
	if (cp) {
		char *tid2 = NULL, *mach = NULL;
		duckdb_result mr;
		uint64_t nrows = kt_pq_rows(cp);

		if (duckdb_query(x.c, "SELECT trace_id, machine FROM machine LIMIT 1", &mr) ==
		    DuckDBError)
			kt_die("machine: %s", duckdb_result_error(&mr));
		tid2 = duckdb_value_varchar(&mr, 0, 0);
		mach = duckdb_value_varchar(&mr, 1, 0);
		duckdb_destroy_result(&mr);
		if (kt_pq_const(cp, 12, tid2) < 0 || kt_pq_const(cp, 13, mach) < 0 ||
		    kt_pq_close(cp, err, sizeof(err)) < 0)
			kt_die("%s", err[0] ? err : "critical_path: cannot write");
		duckdb_free(tid2);
		duckdb_free(mach);
		if (kt_store_put_table(pos[0], "critical_path", cpfile, nrows, err, sizeof(err)) < 0)
			kt_die("%s", err);
		kt_unlink_forget(cpfile);
		fprintf(stderr, "kutrace_why: %" PRIu64 " steps -> %s/critical_path.parquet\n", nrows,
			pos[0]);
	}
	for (int i = 0; i < x.nh; i++) {
		struct host *h = &x.h[i];
		struct cache *c[] = { &h->states, &h->runs, &h->irqs, &h->holds };

		for (size_t k = 0; k < sizeof(c) / sizeof(c[0]); k++) {
			cache_clear(c[k]);
			free(c[k]->a);
		}
		free(h->id);
		free(h->lit);
		free(h->machine);
	}
	free(x.p);
	free(x.rpc_rows.v);
	free(x.exe.v);
	free(ts.t);
	free(names.pid);
	free(names.ti);
	free(names.name);
	for (size_t i = 0; i < in.n; i++)
		free(in.v[i]);
	kt_db_close(db);
	return 0;
}

// SPDX-License-Identifier: BSD-3-Clause
/*
 * store.c - the table store of docs/TABLES.md on DuckDB.
 *
 * Writing: every row goes into one table, span, through DuckDB's appender
 * a vector at a time (a value at a time costs a microsecond a row).  At
 * the end every other table is derived from span: the stateless ones in
 * SQL (the definitions below are the schema's, and one definition serves
 * every input: the postprocessor's rows, kutrace's JSON and the original
 * KUtrace's), and slice, which needs a stack per CPU, by one pass in C
 * over span sorted by CPU and time.  Then each table is COPYed to its
 * Parquet file and meta.json is written last, under a temporary directory
 * that is renamed over the store when all is done.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "parquet.h"
#include "store.h"

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

const char *const kt_store_tables[] = {
	"span", "sched_slice", "thread_state", "slice", "thread", "process", "cpu",
	"machine", "counter", "wakeup", "ipi", "wait", "rpc", "lock", "mark",
	"pc_sample", "packet", NULL,
};

/*
 * Tables a store may lack: added later by other programs (critical_path:
 * kutrace_why), or written only by newer builds (lost: a store of an
 * older one has none, and stays readable).  meta.json's "tables" says
 * which a store has.
 */
const char *const kt_store_optional[] = { "critical_path", "lost", NULL };
/* The optional tables every store is written with. */
static const char *const written_optional[] = { "lost", NULL };

/* Execution rows: those that tile a CPU's time (docs/TABLES.md). */
#define EXEC "cpu >= 0 AND ((event BETWEEN 1024 AND 4095) OR event >= 65536)"

/*
 * The derived tables, in dependency order.  x_ tables are scaffolding,
 * dropped before the files are written.  slice comes from C (slice_pass).
 */
static const char *const derive_sql[] = {
	/* Every row but the execution rows, once: the point tables come from it. */
	"CREATE VIEW x_pts AS SELECT * FROM x_ptsf",

	/* Wait letters as words (docs/spec/FORMATS.md 5.6). */
	"CREATE TABLE wait AS SELECT ts, dur, pid, rpc, event, "
	"CASE event - 768 WHEN 2 THEN 'cpu' WHEN 3 THEN 'disk' WHEN 10 THEN 'task' "
	"WHEN 11 THEN 'lock' WHEN 12 THEN 'memory' WHEN 13 THEN 'network' WHEN 15 THEN 'pipe' "
	"WHEN 17 THEN 'rcu' WHEN 18 THEN 'sched' WHEN 19 THEN 'timer' WHEN 25 THEN 'unknown' "
	"ELSE chr(CAST(97 + event - 768 AS INTEGER)) END AS reason "
	"FROM x_pts WHERE event BETWEEN 768 AND 793",

	/* A wait row ends exactly at the wakeup that ended it. */
	"CREATE TABLE wakeup AS SELECT a.ts, a.pid AS waker_pid, a.cpu AS waker_cpu, "
	"TRY_CAST(a.ret AS INTEGER) AS wakee_pid, TRY_CAST(a.arg AS INTEGER) AS wakee_cpu, "
	"a.dur AS latency, w.reason FROM x_pts a LEFT JOIN "
	"(SELECT pid, ts + dur AS e, min(reason) AS reason FROM wait WHERE reason <> 'cpu' "
	"GROUP BY pid, ts + dur) w ON w.pid = a.ret AND w.e = a.ts WHERE a.event = -3",

	"CREATE TABLE ipi AS SELECT ts, cpu, TRY_CAST(arg AS INTEGER) AS target_cpu, "
	"dur AS latency FROM x_pts WHERE event = -7",

	/* A thread's name: its user-code rows' name, last one, without ".pid". */
	"CREATE TABLE thread AS SELECT s.pid, n.name, min(s.ts) AS start_ts, "
	"max(s.ts + s.dur) AS end_ts, CAST(sum(s.dur) AS BIGINT) AS run_ns FROM x_slice s "
	"LEFT JOIN x_tname n USING (pid) WHERE s.pid > 0 GROUP BY s.pid, n.name",

	"CREATE TABLE process AS SELECT pid, name FROM thread",

	/*
	 * Per thread: its slices, each started no earlier than the previous
	 * ones ended (CPUs whose clocks disagree may overlap them), and the
	 * gap to the next.
	 */
	"CREATE TABLE x_run AS WITH r AS (SELECT pid, cpu, ts, ts + dur AS e FROM x_slice "
	"WHERE pid > 0), c AS (SELECT pid, cpu, greatest(ts, coalesce(max(e) OVER (PARTITION BY "
	"pid ORDER BY ts, e, cpu ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), ts)) AS ts, e "
	"FROM r) SELECT pid, cpu, ts, e, lead(ts) OVER (PARTITION BY pid ORDER BY ts, e, cpu) "
	"AS nxt FROM c WHERE e > ts",

	/* Each gap with the last wakeup of the thread before its end, and
	 * the last wait_cpu row (preemption). */
	"CREATE TABLE x_gap AS WITH g AS (SELECT pid, e AS g0, nxt AS g1 FROM x_run "
	"WHERE nxt > e), gw AS (SELECT g.pid, g.g0, g.g1, w.ts AS wts, w.waker_pid, "
	"w.waker_cpu, w.reason FROM g ASOF LEFT JOIN wakeup w ON g.pid = w.wakee_pid "
	"AND g.g1 >= w.ts) SELECT gw.*, c.ts AS cts FROM gw ASOF LEFT JOIN "
	"(SELECT pid, ts FROM wait WHERE reason = 'cpu') c ON gw.pid = c.pid AND gw.g1 > c.ts",

	"CREATE TABLE thread_state AS "
	"SELECT ts, e - ts AS dur, pid, 'running' AS state, cpu, CAST(NULL AS VARCHAR) AS reason, "
	"CAST(NULL AS INTEGER) AS waker_pid, CAST(NULL AS INTEGER) AS waker_cpu FROM x_run "
	"UNION ALL SELECT g0, wts - g0, pid, 'sleeping', -1, reason, NULL, NULL FROM x_gap "
	"WHERE wts > g0 "
	"UNION ALL SELECT wts, g1 - wts, pid, 'runnable', -1, 'woken', waker_pid, waker_cpu "
	"FROM x_gap WHERE wts >= g0 AND g1 > wts "
	"UNION ALL SELECT g0, g1 - g0, pid, CASE WHEN cts >= g0 THEN 'runnable' ELSE "
	"'sleeping' END, -1, CASE WHEN cts >= g0 THEN 'preempted' END, NULL, NULL FROM x_gap "
	"WHERE wts IS NULL OR wts < g0",

	"CREATE TABLE sched_slice AS SELECT s.ts, s.dur, s.cpu, s.pid, "
	"CASE WHEN s.pid = 0 THEN '-idle-' ELSE t.name END AS name, "
	"CASE WHEN s.pid = 0 THEN NULL WHEN st.state = 'runnable' THEN 'R' "
	"WHEN st.state = 'sleeping' THEN 'S' END AS end_state FROM x_slice s "
	"LEFT JOIN thread t USING (pid) LEFT JOIN (SELECT pid, ts, state FROM thread_state "
	"WHERE state <> 'running') st ON st.pid = s.pid AND st.ts = s.ts + s.dur",

	"CREATE TABLE cpu AS SELECT * FROM x_cpu",

	"CREATE TABLE counter AS SELECT ts, dur, cpu, 'freq' AS name, CAST(arg AS DOUBLE) "
	"AS value FROM x_pts WHERE event = 521",

	/*
	 * RPCs: the method from the request/response/resume rows' names
	 * ("method.id"), the side from which event began the id on a thread.
	 */
	"CREATE TABLE rpc AS WITH m AS (SELECT CAST(CASE WHEN event = 515 THEN arg ELSE arg & 65535 "
	"END AS INTEGER) AS rpc, min(regexp_extract(name, '^(.*)\\.[0-9]+$', 1)) AS method "
	"FROM x_pts WHERE event IN (513, 514, 515) AND arg BETWEEN 1 AND 2147483647 "
	"AND CASE WHEN event = 515 THEN arg ELSE arg & 65535 END > 0 GROUP BY 1), "
	"s AS (SELECT CAST(arg & 65535 AS INTEGER) AS rpc, pid, arg_min(CASE WHEN event = 513 "
	"THEN 2 ELSE 1 END, ts) AS side FROM x_pts WHERE event IN (513, 514) AND arg >= 0 "
	"AND arg & 65535 > 0 GROUP BY 1, 2), "
	"w AS (SELECT * FROM x_rpcw) "
	"SELECT w.rpc, CAST(NULL AS INTEGER) AS parent, m.method, w.pid, CASE s.side WHEN 2 "
	"THEN 'request' WHEN 1 THEN 'response' ELSE 'work' END AS side, w.begin_ts, w.end_ts, "
	"w.cpu_ns FROM w LEFT JOIN m USING (rpc) LEFT JOIN s USING (rpc, pid)",

	/* Locks: the points, the held and contended-wait spans, and who held
	 * the lock when a wait began. */
	"CREATE TABLE lock AS WITH l AS (SELECT ts, dur, arg AS lock, pid, CASE event "
	"WHEN 528 THEN 'try' WHEN 529 THEN 'acquire' WHEN 530 THEN 'release' WHEN 642 THEN "
	"'held' ELSE 'wait' END AS kind FROM x_pts WHERE event IN (528, 529, 530, 642, 643)), "
	"n AS (SELECT arg AS lock, min(substr(name, 2)) AS name FROM x_pts WHERE event IN "
	"(642, 643) GROUP BY arg), h AS (SELECT lock, ts, ts + dur AS e, pid FROM l "
	"WHERE kind = 'held'), lh AS (SELECT l.*, h.e AS he, h.pid AS hpid FROM l ASOF LEFT JOIN "
	"h ON l.lock = h.lock AND l.ts >= h.ts) SELECT lh.ts, lh.dur, lh.lock, n.name, lh.pid, "
	"lh.kind, CASE WHEN lh.kind = 'wait' AND lh.he > lh.ts THEN lh.hpid END AS holder "
	"FROM lh LEFT JOIN n USING (lock)",

	/* Marks a..d, and the marks of triggers that fired (FORMATS 11.1, 0x285). */
	"CREATE TABLE mark AS SELECT ts, cpu, pid, CASE WHEN event = 645 THEN 'trigger' "
	"ELSE chr(CAST(97 + event - 522 AS INTEGER)) END AS kind, "
	"arg, CASE WHEN event = 645 THEN substr(name, 9) WHEN strpos(name, '=') > 0 "
	"THEN substr(name, strpos(name, '=') + 1) "
	"ELSE name END AS label FROM x_pts WHERE event BETWEEN 522 AND 525 OR event = 645",

	"CREATE TABLE pc_sample AS SELECT ts, dur, cpu, pid, event = 641 AS kernel, arg, name "
	"FROM x_pts WHERE event IN (640, 641)",

	/* Entries lost on a CPU (docs/spec/FORMATS.md 10.4): its -lost- rows. */
	"CREATE TABLE lost AS SELECT ts, dur, cpu, arg AS entries, CASE ret WHEN 1 THEN 'reader' "
	"WHEN 2 THEN 'overwrite' WHEN 3 THEN 'disk' ELSE 'unknown' END AS reason "
	"FROM x_pts WHERE event = 644",

	"CREATE TABLE packet AS SELECT ts, dur, cpu, pid, rpc, CASE WHEN event >= 532 THEN arg "
	"END AS hash, CASE event WHEN 532 THEN 'rx' WHEN 533 THEN 'tx' WHEN 534 THEN 'urx' "
	"WHEN 535 THEN 'utx' WHEN 516 THEN 'rxmsg' ELSE 'txmsg' END AS direction, "
	"CASE WHEN event < 532 THEN arg END AS bytes FROM x_pts "
	"WHERE event IN (516, 517, 532, 533, 534, 535)",
	NULL,
};


/* ---------------------------------------------------------------------- */

static int errf(char *err, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int errf(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	/* DuckDB's messages run over several lines: keep the first. */
	char *nl = strchr(err, '\n');

	if (nl)
		*nl = '\0';
	return -1;
}

int kt_duckdb_open(duckdb_database *db, const char *memory_limit, const char *temp_dir,
		   char *err, size_t errlen)
{
	duckdb_config cfg;
	char *oerr = NULL;

	if (duckdb_create_config(&cfg) == DuckDBError)
		return errf(err, errlen, "DuckDB: cannot create a configuration");
	duckdb_set_config(cfg, "autoinstall_known_extensions", "false");
	duckdb_set_config(cfg, "autoload_known_extensions", "false");
	duckdb_set_config(cfg, "allow_community_extensions", "false");
	if (memory_limit && duckdb_set_config(cfg, "memory_limit", memory_limit) == DuckDBError) {
		duckdb_destroy_config(&cfg);
		return errf(err, errlen, "memory limit %s: not a size DuckDB takes", memory_limit);
	}
	if (temp_dir)
		duckdb_set_config(cfg, "temp_directory", temp_dir);
	if (duckdb_open_ext(NULL, db, cfg, &oerr) == DuckDBError) {
		errf(err, errlen, "DuckDB: %s", oerr ? oerr : "cannot open");
		duckdb_free(oerr);
		duckdb_destroy_config(&cfg);
		return -1;
	}
	duckdb_destroy_config(&cfg);
	return 0;
}

/* Run sql; on failure err names what (table, file) and DuckDB's first line. */
static int run(duckdb_connection c, const char *sql, const char *what, char *err, size_t len)
{
	duckdb_result r;

	if (duckdb_query(c, sql, &r) == DuckDBError) {
		errf(err, len, "%s: %s", what, duckdb_result_error(&r));
		duckdb_destroy_result(&r);
		return -1;
	}
	duckdb_destroy_result(&r);
	return 0;
}

/* s between two q, each q in it doubled: SQL's one escape in a literal
 * ('...') and in an identifier ("..."). */
static char *quoted(const char *s, char q)
{
	size_t n = 3;

	for (const char *p = s; *p; p++)
		n += *p == q ? 2 : 1;
	char *o = malloc(n), *d = o;

	if (!o)
		return NULL;
	*d++ = q;
	for (const char *p = s; *p; p++) {
		if (*p == q)
			*d++ = q;
		*d++ = *p;
	}
	*d++ = q;
	*d = '\0';
	return o;
}

char *kt_sql_str(const char *fmt, ...)
{
	char *s, *q;
	va_list ap;

	va_start(ap, fmt);
	s = kt_vstrf(fmt, ap);
	va_end(ap);
	if (!s)
		return NULL;
	q = quoted(s, '\'');
	free(s);
	return q;
}

char *kt_sql_ident(const char *s)
{
	return quoted(s, '"');
}

static int rm_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(path);
}

int kt_rmtree(const char *dir)
{
	return nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS) < 0 && errno != ENOENT ? -1 : 0;
}

/* ---------------------------------------------------------------------- */
/* Writing                                                                 */
/* ---------------------------------------------------------------------- */

/*
 * The tables written here, as the rows come: span, slice, and x_slice
 * (sched_slice's runs, before their names and end states).  Each ends
 * with the constant columns trace_id and machine, known only at the end.
 */
static const struct kt_pq_col span_cols[] = {
	{ "ts", KT_PQ_I64, 0, 0 }, { "dur", KT_PQ_I64, 0, 0 }, { "cpu", KT_PQ_I32, 0, 0 },
	{ "pid", KT_PQ_I32, 0, 0 }, { "rpc", KT_PQ_I32, 0, 0 }, { "event", KT_PQ_I32, 0, 0 },
	{ "arg", KT_PQ_I64, 0, 0 }, { "ret", KT_PQ_I64, 0, 0 }, { "ipc", KT_PQ_I32, 0, 0 },
	{ "name", KT_PQ_STR, 0, 0 }, { "trace_id", KT_PQ_STR, 0, 1 },
	{ "machine", KT_PQ_STR, 0, 1 },
};

enum { S_ID, S_TS, S_DUR, S_CPU, S_PID, S_RPC, S_EVENT, S_NAME, S_KIND, S_ARG, S_RET,
       S_DEPTH, S_PARENT, S_SELF, S_TRACE, S_MACHINE, SNCOL };

static const struct kt_pq_col slice_cols[SNCOL] = {
	{ "id", KT_PQ_I64, 0, 0 }, { "ts", KT_PQ_I64, 0, 0 }, { "dur", KT_PQ_I64, 0, 0 },
	{ "cpu", KT_PQ_I32, 0, 0 }, { "pid", KT_PQ_I32, 0, 0 }, { "rpc", KT_PQ_I32, 0, 0 },
	{ "event", KT_PQ_I32, 0, 0 }, { "name", KT_PQ_STR, 0, 0 }, { "kind", KT_PQ_STR, 0, 0 },
	{ "arg", KT_PQ_I64, 0, 0 }, { "ret", KT_PQ_I64, 0, 0 }, { "depth", KT_PQ_I32, 0, 0 },
	{ "parent_id", KT_PQ_I64, 1, 0 }, { "self_ns", KT_PQ_I64, 0, 0 },
	{ "trace_id", KT_PQ_STR, 0, 1 }, { "machine", KT_PQ_STR, 0, 1 },
};

static const struct kt_pq_col run_cols[] = {
	{ "ts", KT_PQ_I64, 0, 0 }, { "dur", KT_PQ_I64, 0, 0 }, { "cpu", KT_PQ_I32, 0, 0 },
	{ "pid", KT_PQ_I32, 0, 0 },
};

/* Rows a row group holds: DuckDB reads row groups in parallel. */
#define GROUP_ROWS (256 * 1024)

/*
 * slice: a stack per CPU over its execution rows in time order.  A kernel
 * row whose call is open on the stack continues it (everything above it
 * has returned); any other kernel row opens a call nested in the top; a
 * user, idle or c-exit row, or another thread, closes them all.  The same
 * pass cuts the CPU's rows into runs of one thread (sched_slice).
 */
struct open_call {
	int64_t id, ts, end, self;
	int32_t pid, rpc, event;
	int64_t arg, ret;
	const char *name;	/* stable until the store is finished */
	int depth;
	int64_t parent;
};

#define MAX_DEPTH 64

struct cpu_state {
	struct open_call st[MAX_DEPTH];
	int depth;
	int64_t last_ts;	/* rows must come in time order per CPU */
	int64_t run_ts, run_end;	/* the current run of one thread */
	int32_t run_pid;
	int have_run;
	/* the cpu table */
	int64_t start, end, user, kernel, idle, cexit;
	int any;
};

/* A small open-addressing map from 64-bit keys to fixed-size values. */
struct imap {
	uint64_t *keys;
	unsigned char *used, *vals;
	size_t cap, n, vsize;
};

static void *imap_get(struct imap *m, uint64_t key)
{
	if (2 * (m->n + 1) > m->cap) {
		struct imap g = { .cap = m->cap ? 2 * m->cap : 1024, .vsize = m->vsize };

		g.keys = calloc(g.cap, sizeof(*g.keys));
		g.used = calloc(g.cap, 1);
		g.vals = calloc(g.cap, g.vsize);
		if (!g.keys || !g.used || !g.vals) {
			free(g.keys);
			free(g.used);
			free(g.vals);
			return NULL;
		}
		for (size_t i = 0; i < m->cap; i++) {
			if (!m->used[i])
				continue;
			size_t j = (size_t)(m->keys[i] * 0x9E3779B97F4A7C15ull >> 20) & (g.cap - 1);

			while (g.used[j])
				j = (j + 1) & (g.cap - 1);
			g.used[j] = 1;
			g.keys[j] = m->keys[i];
			memcpy(g.vals + j * g.vsize, m->vals + i * m->vsize, m->vsize);
			g.n++;
		}
		free(m->keys);
		free(m->used);
		free(m->vals);
		*m = g;
	}
	size_t j = (size_t)(key * 0x9E3779B97F4A7C15ull >> 20) & (m->cap - 1);

	while (m->used[j] && m->keys[j] != key)
		j = (j + 1) & (m->cap - 1);
	if (!m->used[j]) {
		m->used[j] = 1;
		m->keys[j] = key;
		memset(m->vals + j * m->vsize, 0, m->vsize);
		m->n++;
	}
	return m->vals + j * m->vsize;
}

static void imap_free(struct imap *m)
{
	free(m->keys);
	free(m->used);
	free(m->vals);
	m->keys = NULL;
	m->used = m->vals = NULL;
	m->cap = m->n = 0;
}

/* A thread's name: its user-code rows' name, the latest (by time). */
struct tname {
	int64_t ts;
	const char *name;	/* as the rows gave it (stable), with its ".pid" */
	int set;
};

/* An RPC's rows on one thread. */
struct rpcw {
	int64_t begin, end, cpu_ns;
	int set;
};

/* CPU numbers a trace may use; a row outside makes the slower path run. */
#define MAX_CPUS 4096

struct slicer {
	struct cpu_state *cpu[MAX_CPUS];
	struct kt_pq *slice, *runs;
	int64_t next_id;
	int unsorted;		/* a row came out of order: redo from span */
	struct imap names;	/* pid -> struct tname */
	int oom;
};

struct kt_store_w {
	char *dir, *tmp;
	char *memory;		/* DuckDB's memory limit while deriving */
	struct kt_pq *span;
	struct kt_pq *pts;	/* the rows not of execution: the point tables' input */
	struct slicer sl;
	struct imap rpcs;	/* (rpc << 32 | pid) -> struct rpcw */
	struct kt_lodw *lod;	/* the viewer's summaries, made in this pass (NULL: by SQL later) */
	uint64_t rows;
	int done;
	FILE *stats;		/* kt_store_w_stats: each step's time */
	int progress;		/* kt_store_w_progress: each step on the progress line */
	double t0;
	char err[512];
};

void kt_store_w_stats(struct kt_store_w *w, FILE *f)
{
	w->stats = f;
	w->t0 = now_s();
}

/* One line per step: what, and the seconds since the last line. */
void kt_store_w_progress(struct kt_store_w *w, int on)
{
	w->progress = on;
}

static void lap(struct kt_store_w *w, const char *what)
{
	if (w->progress) {
		char line[96];

		snprintf(line, sizeof(line), "tables: %s done", what);
		kt_progress_step(line);
	}
	if (!w->stats)
		return;
	double t = now_s();

	fprintf(w->stats, "kutrace_sql: %-20s %6.2f s\n", what, t - w->t0);
	w->t0 = t;
}

static const char *call_kind(int event, const char *name)
{
	if (strcmp(name, "-sched-") == 0)
		return "sched";
	if (event < 0x500)
		return "fault";
	if (event == 0x5FF)
		return "softirq";
	if (event < 0x600)
		return "interrupt";
	return "syscall";
}

static void slice_emit(struct slicer *s, int cpu, const struct open_call *c)
{
	struct kt_pq *p = s->slice;
	const char *kind = call_kind(c->event, c->name);

	kt_pq_i64(p, S_ID, c->id);
	kt_pq_i64(p, S_TS, c->ts);
	kt_pq_i64(p, S_DUR, c->end - c->ts);
	kt_pq_i32(p, S_CPU, cpu);
	kt_pq_i32(p, S_PID, c->pid);
	kt_pq_i32(p, S_RPC, c->rpc);
	kt_pq_i32(p, S_EVENT, c->event);
	kt_pq_str(p, S_NAME, c->name, strlen(c->name));
	kt_pq_str(p, S_KIND, kind, strlen(kind));
	kt_pq_i64(p, S_ARG, c->arg);
	kt_pq_i64(p, S_RET, c->ret);
	kt_pq_i32(p, S_DEPTH, c->depth);
	if (c->depth)
		kt_pq_i64(p, S_PARENT, c->parent);
	else
		kt_pq_null(p, S_PARENT);
	kt_pq_i64(p, S_SELF, c->self);
	kt_pq_row(p);
}

/* A call ends no earlier than what it called (a nested call may run on
 * after the call's own last piece, to the switch that closed both). */
static void slice_close_to(struct slicer *s, int cpu, struct cpu_state *c, int depth)
{
	while (c->depth > depth) {
		struct open_call *o = &c->st[--c->depth];

		if (c->depth && c->st[c->depth - 1].end < o->end)
			c->st[c->depth - 1].end = o->end;
		slice_emit(s, cpu, o);
	}
}

static void run_emit(struct slicer *s, int cpu, struct cpu_state *c)
{
	if (!c->have_run)
		return;
	kt_pq_i64(s->runs, 0, c->run_ts);
	kt_pq_i64(s->runs, 1, c->run_end - c->run_ts);
	kt_pq_i32(s->runs, 2, cpu);
	kt_pq_i32(s->runs, 3, c->run_pid);
	kt_pq_row(s->runs);
	c->have_run = 0;
}

/* name must stay valid until the store is finished (interned, or the row
 * source's own table of names). */
static void slice_row(struct slicer *s, int64_t ts, int64_t dur, int32_t cpu, int32_t pid,
		      int32_t rpc, int32_t event, int64_t arg, int64_t ret, const char *name)
{
	if (cpu < 0 || cpu >= MAX_CPUS) {
		s->unsorted = 1;
		return;
	}
	struct cpu_state *c = s->cpu[cpu];

	if (!c) {
		c = s->cpu[cpu] = calloc(1, sizeof(*c));
		if (!c) {
			s->unsorted = 1;	/* the slower path needs no memory here */
			return;
		}
		c->last_ts = INT64_MIN;
	}
	if (ts < c->last_ts) {
		s->unsorted = 1;
		return;
	}
	c->last_ts = ts;
	if (!c->any || ts < c->start)
		c->start = ts;
	if (!c->any || ts + dur > c->end)
		c->end = ts + dur;
	c->any = 1;
	if (event == 65536)
		c->idle += dur;
	else if (event == 131072 && strcmp(name, "-c-exit-") == 0)
		c->cexit += dur;
	else if (event > 65536)
		c->user += dur;
	else
		c->kernel += dur;
	if (event > 65536 && pid > 0 && (event != 131072 || strcmp(name, "-c-exit-") != 0)) {
		struct tname *t = imap_get(&s->names, (uint32_t)pid);

		if (!t)
			s->oom = 1;
		else if (!t->set || ts >= t->ts)
			*t = (struct tname){ .ts = ts, .name = name, .set = 1 };
	}
	/* sched_slice: a run ends where another thread's row begins. */
	if (c->have_run && c->run_pid != pid)
		run_emit(s, cpu, c);
	if (!c->have_run) {
		c->have_run = 1;
		c->run_pid = pid;
		c->run_ts = ts;
		c->run_end = ts + dur;
	} else if (ts + dur > c->run_end) {
		c->run_end = ts + dur;
	}
	if (c->depth && c->st[0].pid != pid)
		slice_close_to(s, cpu, c, 0);
	if (event >= 0x10000) {
		slice_close_to(s, cpu, c, 0);
		return;
	}
	for (int i = c->depth - 1; i >= 0; i--) {
		if (c->st[i].event == event) {
			slice_close_to(s, cpu, c, i + 1);
			c->st[i].end = ts + dur;
			c->st[i].self += dur;
			c->st[i].ret = ret;
			return;
		}
	}
	if (c->depth == MAX_DEPTH)
		slice_close_to(s, cpu, c, c->depth - 1);
	c->st[c->depth] = (struct open_call){
		.id = s->next_id++, .ts = ts, .end = ts + dur, .self = dur, .pid = pid,
		.rpc = rpc, .event = event, .arg = arg, .ret = ret, .name = name,
		.depth = c->depth, .parent = c->depth ? c->st[c->depth - 1].id : 0,
	};
	c->depth++;
}

static void slicer_end(struct slicer *s)
{
	for (int i = 0; i < MAX_CPUS; i++) {
		if (!s->cpu[i])
			continue;
		slice_close_to(s, i, s->cpu[i], 0);
		run_emit(s, i, s->cpu[i]);
	}
}

static void slicer_free(struct slicer *s)
{
	imap_free(&s->names);
	for (int i = 0; i < MAX_CPUS; i++) {
		free(s->cpu[i]);
		s->cpu[i] = NULL;
	}
	kt_pq_abort(s->slice);
	kt_pq_abort(s->runs);
	s->slice = s->runs = NULL;
}

static int slicer_open(struct kt_store_w *w)
{
	char p[4200];

	snprintf(p, sizeof(p), "%s/slice.parquet", w->tmp);
	w->sl.slice = kt_pq_open(p, slice_cols, SNCOL, GROUP_ROWS, w->err, sizeof(w->err));
	snprintf(p, sizeof(p), "%s/.x_slice.parquet", w->tmp);
	if (w->sl.slice)
		w->sl.runs = kt_pq_open(p, run_cols, 4, GROUP_ROWS, w->err, sizeof(w->err));
	if (w->sl.runs)
		kt_pq_spill(w->sl.runs);
	w->sl.next_id = 0;
	w->sl.unsorted = 0;
	w->sl.oom = 0;
	w->sl.names.vsize = sizeof(struct tname);
	w->rpcs.vsize = sizeof(struct rpcw);
	return w->sl.runs ? 0 : -1;
}

struct kt_store_w *kt_store_w_new(const char *dir, const char *memory_limit,
				  char *err, size_t errlen)
{
	struct stat st;
	char meta[4200], p[4200];

	if (kt_store_globfree(dir, err, errlen) < 0)
		return NULL;
	snprintf(meta, sizeof(meta), "%s/meta.json", dir);
	if (stat(dir, &st) == 0 && (!S_ISDIR(st.st_mode) || stat(meta, &st) != 0)) {
		errf(err, errlen, "%s: exists and is not a kutrace store; not replaced", dir);
		return NULL;
	}
	struct kt_store_w *w = calloc(1, sizeof(*w));

	if (!w || asprintf(&w->tmp, "%s.tmp.%d", dir, (int)getpid()) < 0) {
		free(w);
		errf(err, errlen, "%s: out of memory", dir);
		return NULL;
	}
	w->dir = strdup(dir);
	w->memory = memory_limit ? strdup(memory_limit) : NULL;
	kt_rmtree(w->tmp);
	if (!w->dir || mkdir(w->tmp, 0777) < 0) {
		errf(err, errlen, "%s: %s", w->tmp, strerror(errno));
		free(w->dir);
		free(w->tmp);
		free(w);
		return NULL;
	}
	w->lod = kt_lodw_new();
	snprintf(p, sizeof(p), "%s/span.parquet", w->tmp);
	w->span = kt_pq_open(p, span_cols, 12, GROUP_ROWS, err, errlen);
	snprintf(p, sizeof(p), "%s/.x_pts.parquet", w->tmp);
	if (w->span)
		w->pts = kt_pq_open(p, span_cols, 10, GROUP_ROWS, err, errlen);
	if (w->pts)
		kt_pq_spill(w->pts);
	if (!w->pts || slicer_open(w) < 0) {
		if (w->err[0])
			snprintf(err, errlen, "%s", w->err);
		kt_store_w_free(w);
		return NULL;
	}
	return w;
}

const char *kt_store_w_error(const struct kt_store_w *w)
{
	return w->err[0] ? w->err : NULL;
}

static int is_exec(const struct kt_row *r)
{
	return r->cpu >= 0 && ((r->event >= 1024 && r->event <= 4095) || r->event >= 65536);
}

static void span_row(struct kt_pq *p, const struct kt_row *r, const char *name)
{
	/* Times in ns: the JSON's 10 ns units, exactly. */
	kt_pq_i64(p, 0, r->start * 10);
	kt_pq_i64(p, 1, r->dur * 10);
	kt_pq_i32(p, 2, r->cpu);
	kt_pq_i32(p, 3, r->pid);
	kt_pq_i32(p, 4, r->rpc);
	kt_pq_i32(p, 5, r->event);
	kt_pq_i64(p, 6, r->arg);
	kt_pq_i64(p, 7, r->retval);
	kt_pq_i32(p, 8, r->ipc);
	kt_pq_str(p, 9, name, strlen(name));
}

int kt_store_w_row(struct kt_store_w *w, const struct kt_row *r)
{
	const char *name = r->name ? r->name : "";

	if (w->err[0])
		return -1;
	/* Every sum and product of times below fits (ns, from 10 ns units). */
	if (r->start < -KT_ROW_TIME_MAX || r->start > KT_ROW_TIME_MAX ||
	    r->dur < -KT_ROW_TIME_MAX || r->dur > KT_ROW_TIME_MAX)
		return errf(w->err, sizeof(w->err), "row %" PRIu64 ": time out of range (start %"
			    PRId64 ", dur %" PRId64 ", 10 ns units)", w->rows + 1, r->start, r->dur);
	span_row(w->span, r, name);
	if (kt_pq_row(w->span) < 0)
		return errf(w->err, sizeof(w->err), "%s", kt_pq_error(w->span));
	if (r->event < 1024) {
		span_row(w->pts, r, name);
		if (kt_pq_row(w->pts) < 0)
			return errf(w->err, sizeof(w->err), "%s", kt_pq_error(w->pts));
	}
	if (w->lod)
		kt_lodw_row(w->lod, r);
	w->rows++;
	/*
	 * A PC sample's row covers the interval before the sample (from the
	 * previous timer tick), but carries the RPC id current at the sample:
	 * it would stretch an RPC back over time its thread spent on other
	 * work, ahead of the request that started it.
	 */
	if (r->rpc > 0 && r->pid > 0 && r->event != KUTRACE_PC_U && r->event != KUTRACE_PC_K) {
		struct rpcw *a = imap_get(&w->rpcs, (uint64_t)r->rpc << 32 | (uint32_t)r->pid);
		int64_t t = r->start * 10, e = (r->start + r->dur) * 10;

		if (!a)
			return errf(w->err, sizeof(w->err), "%s: out of memory", w->dir);
		if (!a->set || t < a->begin)
			a->begin = t;
		if (!a->set || e > a->end)
			a->end = e;
		a->set = 1;
		if (is_exec(r))
			a->cpu_ns += r->dur * 10;
	}
	if (is_exec(r) && !w->sl.unsorted)
		slice_row(&w->sl, r->start * 10, r->dur * 10, r->cpu, r->pid, r->rpc, r->event,
			  r->arg, r->retval, name);
	return 0;
}

/*
 * The slower path, for rows that did not come in time order on some CPU
 * (late rows at the end of the stream, a hand-edited JSON): the same pass
 * over span sorted by CPU and time.
 */
static int slice_sorted(struct kt_store_w *w, duckdb_connection conn)
{
	duckdb_prepared_statement ps = NULL;
	duckdb_pending_result pend = NULL;
	duckdb_result res;
	int ok = 0, have_res = 0;

	slicer_free(&w->sl);
	if (slicer_open(w) < 0)
		return -1;
	if (duckdb_prepare(conn, "SELECT ts, dur, cpu, pid, rpc, event, arg, ret, name FROM span "
			   "WHERE " EXEC " ORDER BY cpu, ts, dur, pid", &ps) == DuckDBError ||
	    duckdb_pending_prepared_streaming(ps, &pend) == DuckDBError ||
	    duckdb_execute_pending(pend, &res) == DuckDBError) {
		errf(w->err, sizeof(w->err), "slice: %s",
		     ps ? duckdb_prepare_error(ps) : "cannot read span");
		have_res = pend != NULL;
		goto out;
	}
	have_res = 1;
	for (;;) {
		duckdb_data_chunk ch = duckdb_fetch_chunk(res);

		if (!ch)
			break;
		idx_t n = duckdb_data_chunk_get_size(ch);
#define IN(k, T) ((T *)duckdb_vector_get_data(duckdb_data_chunk_get_vector(ch, k)))
		int64_t *ts = IN(0, int64_t), *dur = IN(1, int64_t), *arg = IN(6, int64_t);
		int64_t *ret = IN(7, int64_t);
		int32_t *cpu = IN(2, int32_t), *pid = IN(3, int32_t), *rpc = IN(4, int32_t);
		int32_t *ev = IN(5, int32_t);
		duckdb_string_t *nm = IN(8, duckdb_string_t);
#undef IN
		for (idx_t i = 0; i < n; i++) {
			char name[256];
			uint32_t l = duckdb_string_t_length(nm[i]);

			if (l >= sizeof(name))
				l = sizeof(name) - 1;
			memcpy(name, duckdb_string_t_data(&nm[i]), l);
			name[l] = '\0';
			/* CPUs beyond MAX_CPUS: no slices (none are traced). */
			if (cpu[i] < MAX_CPUS)
				slice_row(&w->sl, ts[i], dur[i], cpu[i], pid[i], rpc[i], ev[i], arg[i],
					  ret[i], kt_intern(name));
		}
		duckdb_destroy_data_chunk(&ch);
	}
	w->sl.unsorted = 0;
	ok = 1;
out:
	if (have_res)
		duckdb_destroy_result(&res);
	if (pend)
		duckdb_destroy_pending(&pend);
	if (ps)
		duckdb_destroy_prepare(&ps);
	return ok ? 0 : -1;
}

static void put_str(json_t *o, const char *k, const char *v)
{
	json_object_set_new(o, k, v ? json_string(v) : json_null());
}

static int write_meta(struct kt_store_w *w, const struct kt_store_meta *m, json_t *tables)
{
	json_t *o = json_object();
	char path[4200];

	json_object_set_new(o, "store_version", json_integer(KT_STORE_VERSION));
	put_str(o, "trace_id", m->trace_id);
	put_str(o, "machine", m->machine);
	put_str(o, "kernel", m->kernel);
	put_str(o, "cpu_model", m->cpu_model);
	put_str(o, "tracebase", m->tracebase);
	put_str(o, "backend", m->backend);
	put_str(o, "source", m->source);
	put_str(o, "tool_version", KUTRACE_TOOL_VERSION);
	json_object_set_new(o, "mbit_sec", json_integer(m->mbit_sec));
	json_object_set_new(o, "flags", json_integer(m->flags));
	if (m->source_hash)
		json_object_set_new(o, "source_identity",
				    json_pack("{sIsIss}", "size", (json_int_t)m->source_size,
					      "mtime_ns", (json_int_t)m->source_mtime_ns,
					      "ends_fnv1a64", m->source_hash));
	json_object_set(o, "tables", tables);
	snprintf(path, sizeof(path), "%s/meta.json", w->tmp);
	int rc = json_dump_file(o, path, JSON_INDENT(1) | JSON_PRESERVE_ORDER);

	json_decref(o);
	if (rc < 0)
		return errf(w->err, sizeof(w->err), "%s: cannot write", path);
	return 0;
}

static int machine_table(struct kt_store_w *w, duckdb_connection conn,
			 const struct kt_store_meta *m)
{
	const char *v[] = { m->trace_id, m->machine, m->kernel, m->cpu_model, m->tracebase,
			    m->backend, KUTRACE_TOOL_VERSION };
	char *q[7];
	int rc = -1, oom = 0;

	for (int i = 0; i < 7; i++)
		oom |= !(q[i] = v[i] ? kt_sql_str("%s", v[i]) : strdup("NULL"));
	char *sql = NULL;

	if (oom)
		errf(w->err, sizeof(w->err), "machine: out of memory");
	else if (asprintf(&sql, "CREATE TABLE machine AS SELECT %s AS trace_id, %s AS machine, "
		     "CAST(%s AS VARCHAR) AS kernel, CAST(%s AS VARCHAR) AS cpu_model, "
		     "CAST(%s AS VARCHAR) AS tracebase, CAST(%s AS VARCHAR) AS backend, "
		     "%s AS tool_version, %d AS mbit_sec, %u AS flags, "
		     "(SELECT count(*) FROM cpu) AS cpus",
		     q[0], q[1], q[2], q[3], q[4], q[5], q[6], m->mbit_sec, m->flags) > 0)
		rc = run(conn, sql, "machine", w->err, sizeof(w->err));
	free(sql);
	for (int i = 0; i < 7; i++)
		free(q[i]);
	return rc;
}

/* Replace dir by tmp: a store either is whole or is the previous one. */
static int swap_in(struct kt_store_w *w)
{
	char *old = NULL;
	struct stat st;

	if (stat(w->dir, &st) == 0) {
		if (asprintf(&old, "%s.old.%d", w->dir, (int)getpid()) < 0)
			return errf(w->err, sizeof(w->err), "%s: out of memory", w->dir);
		kt_rmtree(old);
		if (rename(w->dir, old) < 0) {
			free(old);
			return errf(w->err, sizeof(w->err), "%s: %s", w->dir, strerror(errno));
		}
	}
	if (rename(w->tmp, w->dir) < 0) {
		int e = errno;

		if (old)
			rename(old, w->dir);
		free(old);
		return errf(w->err, sizeof(w->err), "%s: %s", w->dir, strerror(e));
	}
	if (old)
		kt_rmtree(old);
	free(old);
	return 0;
}

/* Close one of the writer's files with the constant columns' values. */
static int close_pq(struct kt_store_w *w, struct kt_pq **p, int tcol,
		    const struct kt_store_meta *m)
{
	struct kt_pq *q = *p;

	*p = NULL;
	if (tcol >= 0 && (kt_pq_const(q, tcol, m->trace_id ? m->trace_id : "") < 0 ||
			  kt_pq_const(q, tcol + 1, m->machine ? m->machine : "unknown") < 0)) {
		errf(w->err, sizeof(w->err), "%s", kt_pq_error(q));
		kt_pq_abort(q);
		return -1;
	}
	return kt_pq_close(q, w->err, sizeof(w->err));
}

/* A view over one of this store's own files, while it is being written. */
static int view(struct kt_store_w *w, duckdb_connection c, const char *name, const char *file)
{
	char *q = kt_sql_str("%s/%s", w->tmp, file), *sql = NULL;
	int rc;

	if (!q || asprintf(&sql, "CREATE VIEW %s AS SELECT * FROM read_parquet(%s)", name, q) < 0) {
		free(q);
		return errf(w->err, sizeof(w->err), "%s/%s: out of memory", w->tmp, file);
	}
	rc = run(c, sql, name, w->err, sizeof(w->err));
	free(sql);
	free(q);
	return rc;
}

/*
 * The aggregates the row pass kept (x_cpu, x_tname, x_rpcw) as tables,
 * through the appender: a row per CPU, thread and RPC thread.
 */
static int c_tables(struct kt_store_w *w, duckdb_connection conn)
{
	duckdb_appender a;
	int bad = 0;

	if (w->sl.oom)
		return errf(w->err, sizeof(w->err), "%s: out of memory", w->dir);
	if (run(conn, "CREATE TABLE x_cpu (cpu INTEGER, start_ts BIGINT, end_ts BIGINT, "
		"busy_ns BIGINT, user_ns BIGINT, kernel_ns BIGINT, idle_ns BIGINT, cexit_ns BIGINT); "
		"CREATE TABLE x_tname "
		"(pid INTEGER, name VARCHAR); CREATE TABLE x_rpcw (rpc INTEGER, pid INTEGER, "
		"begin_ts BIGINT, end_ts BIGINT, cpu_ns BIGINT)", "scaffolding", w->err,
		sizeof(w->err)) < 0)
		return -1;
	if (duckdb_appender_create(conn, NULL, "x_cpu", &a) == DuckDBError)
		return errf(w->err, sizeof(w->err), "x_cpu: cannot append");
	for (int i = 0; i < MAX_CPUS; i++) {
		const struct cpu_state *c = w->sl.cpu[i];

		if (!c || !c->any)
			continue;
		bad |= duckdb_append_int32(a, i) | duckdb_append_int64(a, c->start) |
		       duckdb_append_int64(a, c->end) | duckdb_append_int64(a, c->user + c->kernel) |
		       duckdb_append_int64(a, c->user) | duckdb_append_int64(a, c->kernel) |
		       duckdb_append_int64(a, c->idle) | duckdb_append_int64(a, c->cexit) |
		       duckdb_appender_end_row(a);
	}
	bad |= duckdb_appender_destroy(&a);
	if (bad || duckdb_appender_create(conn, NULL, "x_tname", &a) == DuckDBError)
		return errf(w->err, sizeof(w->err), "x_cpu: cannot append");
	for (size_t i = 0; i < w->sl.names.cap; i++) {
		if (!w->sl.names.used[i])
			continue;
		const struct tname *t = (const void *)(w->sl.names.vals + i * w->sl.names.vsize);
		/* "name.pid" without ".pid" */
		const char *dot = strrchr(t->name, '.');
		size_t n = dot && dot[1] && strspn(dot + 1, "0123456789") == strlen(dot + 1) ?
			   (size_t)(dot - t->name) : strlen(t->name);

		bad |= duckdb_append_int32(a, (int32_t)w->sl.names.keys[i]) |
		       duckdb_append_varchar_length(a, t->name, n) | duckdb_appender_end_row(a);
	}
	bad |= duckdb_appender_destroy(&a);
	if (bad || duckdb_appender_create(conn, NULL, "x_rpcw", &a) == DuckDBError)
		return errf(w->err, sizeof(w->err), "x_tname: cannot append");
	for (size_t i = 0; i < w->rpcs.cap; i++) {
		if (!w->rpcs.used[i])
			continue;
		const struct rpcw *r = (const void *)(w->rpcs.vals + i * w->rpcs.vsize);
		uint64_t k = w->rpcs.keys[i];

		bad |= duckdb_append_int32(a, (int32_t)(k >> 32)) |
		       duckdb_append_int32(a, (int32_t)(uint32_t)k) |
		       duckdb_append_int64(a, r->begin) | duckdb_append_int64(a, r->end) |
		       duckdb_append_int64(a, r->cpu_ns) | duckdb_appender_end_row(a);
	}
	bad |= duckdb_appender_destroy(&a);
	if (bad)
		return errf(w->err, sizeof(w->err), "x_rpcw: cannot append");
	return 0;
}

static int derive(struct kt_store_w *w, duckdb_connection conn, const struct kt_store_meta *m,
		  json_t *tables)
{
	if (view(w, conn, "span", "span.parquet") < 0 ||
	    view(w, conn, "x_ptsf", ".x_pts.parquet") < 0)
		return -1;
	lap(w, "span (rows in)");
	if (w->sl.unsorted) {
		if (slice_sorted(w, conn) < 0)
			return -1;
		lap(w, "slice (sorted again)");
	}
	slicer_end(&w->sl);
	json_object_set_new(tables, "slice", json_integer((json_int_t)kt_pq_rows(w->sl.slice)));
	if (close_pq(w, &w->sl.slice, S_TRACE, m) < 0 || close_pq(w, &w->sl.runs, -1, m) < 0 ||
	    view(w, conn, "x_slice", ".x_slice.parquet") < 0 || c_tables(w, conn) < 0)
		return -1;
	lap(w, "slice");
	for (int i = 0; derive_sql[i]; i++) {
		/* The table's name is the statement's third word. */
		char what[64] = "";

		sscanf(derive_sql[i], "CREATE %*s %63s", what);
		if (run(conn, derive_sql[i], what, w->err, sizeof(w->err)) < 0)
			return -1;
		lap(w, what);
	}
	return machine_table(w, conn, m);
}

int kt_store_w_finish(struct kt_store_w *w, const struct kt_store_meta *m)
{
	duckdb_database db;
	duckdb_connection conn;
	char spill[4200];
	json_t *tables = json_object();
	int rc = -1;

	if (w->err[0])
		return -1;
	json_object_set_new(tables, "span", json_integer((json_int_t)w->rows));
	if (close_pq(w, &w->span, 10, m) < 0 || close_pq(w, &w->pts, -1, m) < 0)
		return -1;
	snprintf(spill, sizeof(spill), "%s/.spill", w->tmp);
	if (kt_duckdb_open(&db, w->memory, spill, w->err, sizeof(w->err)) < 0)
		return -1;
	if (duckdb_connect(db, &conn) == DuckDBError) {
		duckdb_close(&db);
		return errf(w->err, sizeof(w->err), "%s: DuckDB: cannot connect", w->dir);
	}
	/* Rows of a file in any order: DuckDB may write them in parallel. */
	run(conn, "SET preserve_insertion_order = false", "settings", w->err, sizeof(w->err));
	if (derive(w, conn, m, tables) < 0)
		goto out;
	char *tid = kt_sql_str("%s", m->trace_id ? m->trace_id : "");
	char *mach = kt_sql_str("%s", m->machine ? m->machine : "unknown");
	int ok = tid && mach;

	if (!ok)
		errf(w->err, sizeof(w->err), "%s: out of memory", w->dir);

	int nt = 0;

	while (kt_store_tables[nt])
		nt++;
	for (int i = 0; ok && (i < nt || written_optional[i - nt]); i++) {
		const char *t = i < nt ? kt_store_tables[i] : written_optional[i - nt];
		char path[4200], *ppath, *sql = NULL;
		duckdb_result r;

		if (strcmp(t, "span") == 0 || strcmp(t, "slice") == 0)
			continue;	/* written above */
		snprintf(path, sizeof(path), "%s/%s.parquet", w->tmp, t);
		ppath = kt_sql_str("%s", path);
		/* machine has the two columns already. */
		int m2 = strcmp(t, "machine") != 0;

		if (!ppath || asprintf(&sql, "COPY (SELECT *%s%s%s%s%s FROM %s) TO %s (FORMAT "
				       "parquet, COMPRESSION zstd)", m2 ? ", " : "", m2 ? tid : "",
				       m2 ? " AS trace_id, " : "", m2 ? mach : "",
				       m2 ? " AS machine" : "", t, ppath) < 0) {
			ok = 0;
			errf(w->err, sizeof(w->err), "%s: out of memory", t);
		} else if (duckdb_query(conn, sql, &r) == DuckDBError) {
			ok = 0;
			errf(w->err, sizeof(w->err), "%s: %s", path, duckdb_result_error(&r));
			duckdb_destroy_result(&r);
		} else {
			json_object_set_new(tables, t, json_integer(duckdb_rows_changed(&r)));
			duckdb_destroy_result(&r);
			char what[64];

			snprintf(what, sizeof(what), "%s.parquet", t);
			lap(w, what);
		}
		free(sql);
		free(ppath);
	}
	free(tid);
	free(mach);
	if (ok && write_meta(w, m, tables) == 0)
		rc = 0;
out:
	json_decref(tables);
	duckdb_disconnect(&conn);
	duckdb_close(&db);
	if (rc < 0 || (w->lod && kt_lodw_finish(w->lod, w->tmp, w->err, sizeof(w->err)) < 0))
		return -1;
	lap(w, "lod");
	/* DuckDB's spill directory and the scaffolding go before the rename. */
	kt_rmtree(spill);
	snprintf(spill, sizeof(spill), "%s/.x_slice.parquet", w->tmp);
	unlink(spill);
	snprintf(spill, sizeof(spill), "%s/.x_pts.parquet", w->tmp);
	unlink(spill);
	if (w->progress)
		kt_progress_end();
	if (swap_in(w) < 0)
		return -1;
	w->done = 1;
	return 0;
}

void kt_store_w_free(struct kt_store_w *w)
{
	if (!w)
		return;
	kt_pq_abort(w->span);
	kt_pq_abort(w->pts);
	slicer_free(&w->sl);
	imap_free(&w->rpcs);
	kt_lodw_free(w->lod);
	if (!w->done)
		kt_rmtree(w->tmp);
	free(w->tmp);
	free(w->dir);
	free(w->memory);
	free(w);
}

/* ---------------------------------------------------------------------- */
/* Reading                                                                 */
/* ---------------------------------------------------------------------- */

struct kt_db {
	duckdb_database db;
	duckdb_connection conn;
};

/* ---------------------------------------------------------------------- */
/* A store's files                                                         */
/* ---------------------------------------------------------------------- */

static const char *file_kind(mode_t m)
{
	return S_ISFIFO(m) ? "a FIFO" : S_ISDIR(m) ? "a directory" : S_ISSOCK(m) ? "a socket" :
	       S_ISCHR(m) || S_ISBLK(m) ? "a device" : S_ISLNK(m) ? "a symbolic link" : "not a file";
}

/*
 * rel under store, part by part without following a link (O_NOFOLLOW):
 * its last part checked by lstat (fstatat) to be a regular file before
 * anything opens it, then (open) opened without blocking and checked
 * again on the descriptor, in case it changed in between.  The one place
 * a store's file is opened for reading.  An fd, 0 (checked only), or -1
 * with err and errno.
 */
static int store_walk(const char *store, const char *rel, int open_it, char *err, size_t len)
{
	char part[256];
	struct stat st;
	int dfd = open(store, O_RDONLY | O_DIRECTORY | O_CLOEXEC), e;

	if (dfd < 0) {
		e = errno;
		errf(err, len, "%s: %s", store, strerror(e));
		errno = e;
		return -1;
	}
	for (const char *p = rel;;) {
		size_t n = strcspn(p, "/");

		if (n == 0 || n >= sizeof(part) || (n == 1 && p[0] == '.') ||
		    (n == 2 && p[0] == '.' && p[1] == '.')) {
			close(dfd);
			errf(err, len, "%s/%s: not a path inside the store", store, rel);
			errno = EINVAL;
			return -1;
		}
		memcpy(part, p, n);
		part[n] = '\0';
		if (fstatat(dfd, part, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			e = errno;
			close(dfd);
			errf(err, len, "%s/%s: %s", store, rel, strerror(e));
			errno = e;
			return -1;
		}
		int last = p[n] == '\0';

		if (last ? !S_ISREG(st.st_mode) : !S_ISDIR(st.st_mode)) {
			close(dfd);
			errf(err, len, "%s/%s: %s%s, not a regular file: refused", store, rel,
			     last ? "" : "a part of it is ", file_kind(st.st_mode));
			errno = S_ISLNK(st.st_mode) ? ELOOP : EINVAL;
			return -1;
		}
		if (last && !open_it) {
			close(dfd);
			return 0;
		}
		int fd = openat(dfd, part, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY |
				(last ? O_NONBLOCK : O_DIRECTORY));

		e = errno;
		close(dfd);
		if (fd < 0 || fstat(fd, &st) < 0 ||
		    (last ? !S_ISREG(st.st_mode) : !S_ISDIR(st.st_mode))) {
			if (fd >= 0) {
				e = EINVAL;
				close(fd);
			}
			errf(err, len, "%s/%s: %s", store, rel, e == ELOOP ? "a symbolic link, "
			     "not a regular file: refused" : e == EINVAL ? "changed into something "
			     "not a regular file: refused" : strerror(e));
			errno = e;
			return -1;
		}
		if (last) {
			int fl = fcntl(fd, F_GETFL);

			if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0) {
				e = errno;
				close(fd);
				errf(err, len, "%s/%s: %s", store, rel, strerror(e));
				errno = e;
				return -1;
			}
			return fd;
		}
		dfd = fd;
		p += n + 1;
	}
}

int kt_store_open(const char *store, const char *rel, char *err, size_t errlen)
{
	return store_walk(store, rel, 1, err, errlen);
}

FILE *kt_store_fopen(const char *store, const char *rel, char *err, size_t errlen)
{
	int fd = store_walk(store, rel, 1, err, errlen);
	FILE *f = fd < 0 ? NULL : fdopen(fd, "r");

	if (fd >= 0 && !f) {
		int e = errno;

		close(fd);
		errf(err, errlen, "%s/%s: %s", store, rel, strerror(e));
		errno = e;
	}
	return f;
}

int kt_store_file_ok(const char *store, const char *rel, char *err, size_t errlen)
{
	return store_walk(store, rel, 0, err, errlen);
}

int kt_store_globfree(const char *path, char *err, size_t errlen)
{
	size_t k = strcspn(path, "*?[");

	if (!path[k])
		return 0;
	return errf(err, errlen, "%s: a store's path may not hold '%c' (DuckDB would read *, ? and [ "
		    "as a pattern of file names, maybe another directory's)", path, path[k]);
}

/* meta.json of one store: its version, and each table's row count. */
static json_t *read_meta(const char *store, char *err, size_t len)
{
	char path[4200];
	json_error_t je;
	struct stat st;

	if (kt_store_globfree(store, err, len) < 0)
		return NULL;
	if (stat(store, &st) < 0)
		return errf(err, len, "%s: %s", store, strerror(errno)), NULL;
	if (!S_ISDIR(st.st_mode))
		return errf(err, len, "%s: not a table store (a directory)", store), NULL;
	snprintf(path, sizeof(path), "%s/meta.json", store);
	FILE *f = kt_store_fopen(store, "meta.json", err, len);

	if (!f) {
		if (errno == ENOENT)
			errf(err, len, "%s: not a table store (no meta.json)", store);
		return NULL;
	}
	json_t *m = json_loadf(f, 0, &je);

	fclose(f);
	if (!m) {
		errf(err, len, "%s:%d: %s", path, je.line, je.text);
		return NULL;
	}
	json_t *v = json_object_get(m, "store_version");

	if (!json_is_integer(v) || !json_is_object(json_object_get(m, "tables"))) {
		json_decref(m);
		return errf(err, len, "%s: not a kutrace store's meta.json", path), NULL;
	}
	if (json_integer_value(v) > KT_STORE_VERSION) {
		errf(err, len, "%s: store version %" JSON_INTEGER_FORMAT " is newer than this "
		     "kutrace_sql reads (%d); rebuild it or update kutrace", store,
		     json_integer_value(v), KT_STORE_VERSION);
		json_decref(m);
		return NULL;
	}
	return m;
}

/* Each table file present, readable, with the rows meta.json counted. */
static int check_file(duckdb_connection c, const char *store, const char *t, json_t *meta,
		      char *err, size_t len)
{
	char path[4200], *q, *sql = NULL;
	duckdb_result r;
	json_t *want = json_object_get(json_object_get(meta, "tables"), t);

	char rel[300];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s.parquet", store, t);
	snprintf(rel, sizeof(rel), "%s.parquet", t);
	/* A regular file of the store's own (DuckDB would follow a link or
	 * wait on a FIFO), its footer checked before DuckDB sizes anything
	 * from it (parquet.c says why). */
	if (!(f = kt_store_fopen(store, rel, err, len)) || kt_pq_check_footer(f, path, err, len) < 0)
		return -1;
	q = kt_sql_str("%s", path);
	if (!q || asprintf(&sql, "SELECT num_rows FROM parquet_file_metadata(%s)", q) < 0) {
		free(q);
		return errf(err, len, "%s: out of memory", path);
	}
	free(q);
	int rc = 0;

	if (duckdb_query(c, sql, &r) == DuckDBError) {
		rc = errf(err, len, "%s: not a whole Parquet file (%s)", path,
			  duckdb_result_error(&r));
	} else {
		int64_t n = duckdb_row_count(&r) ? duckdb_value_int64(&r, 0, 0) : -1;

		if (!json_is_integer(want) || n != json_integer_value(want))
			rc = errf(err, len, "%s: %" PRId64 " rows, meta.json says %" JSON_INTEGER_FORMAT,
				  path, n, json_is_integer(want) ? json_integer_value(want) : -1);
	}
	duckdb_destroy_result(&r);
	free(sql);
	return rc;
}

/* A view of table name over the stores (those with has[i] set, if has). */
static int make_view(struct kt_db *db, const char *name, char *const *stores, size_t n,
		     const unsigned char *has, char *err, size_t errlen)
{
	struct kt_buf b = { 0 };
	size_t used = 0;

	kt_buf_printf(&b, "CREATE VIEW %s AS SELECT * FROM read_parquet([", name);
	for (size_t i = 0; i < n; i++) {
		char path[4200], *q;

		if (has && !has[i])
			continue;
		snprintf(path, sizeof(path), "%s/%s.parquet", stores[i], name);
		q = kt_sql_str("%s", path);
		if (!q) {
			free(b.p);
			return errf(err, errlen, "%s: out of memory", path);
		}
		kt_buf_printf(&b, "%s%s", used++ ? ", " : "", q);
		free(q);
	}
	kt_buf_puts(&b, "])");
	int rc = used ? run(db->conn, b.p, name, err, errlen) : 0;

	free(b.p);
	return rc;
}

struct kt_db *kt_db_open(char *const *stores, size_t n, const char *memory_limit,
			 char *err, size_t errlen)
{
	struct kt_db *db = calloc(1, sizeof(*db));

	if (!db) {
		errf(err, errlen, "out of memory");
		return NULL;
	}
	if (kt_duckdb_open(&db->db, memory_limit, NULL, err, errlen) < 0) {
		free(db);
		return NULL;
	}
	if (duckdb_connect(db->db, &db->conn) == DuckDBError) {
		errf(err, errlen, "DuckDB: cannot connect");
		kt_db_close(db);
		return NULL;
	}
	/* has[i * NOPT + k]: store i has optional table k. */
	enum { NOPT = 2 };
	unsigned char *has = calloc(n ? n * NOPT : 1, 1);

	for (size_t i = 0; has && i < n; i++) {
		json_t *m = read_meta(stores[i], err, errlen);
		int rc = m ? 0 : -1;

		for (int t = 0; rc == 0 && kt_store_tables[t]; t++)
			rc = check_file(db->conn, stores[i], kt_store_tables[t], m, err, errlen);
		for (int k = 0; rc == 0 && kt_store_optional[k]; k++) {
			if (!json_object_get(json_object_get(m, "tables"), kt_store_optional[k]))
				continue;
			has[i * NOPT + (size_t)k] = 1;
			rc = check_file(db->conn, stores[i], kt_store_optional[k], m, err, errlen);
		}
		json_decref(m);
		if (rc < 0) {
			free(has);
			kt_db_close(db);
			return NULL;
		}
	}
	/* Every table a view over its files; an optional one over the stores
	 * that have it, and none if no store has it. */
	int rc = has ? 0 : errf(err, errlen, "out of memory");

	for (int t = 0; rc == 0 && kt_store_tables[t]; t++)
		rc = make_view(db, kt_store_tables[t], stores, n, NULL, err, errlen);
	for (int k = 0; rc == 0 && kt_store_optional[k]; k++) {
		unsigned char *h = malloc(n ? n : 1);

		for (size_t i = 0; h && i < n; i++)
			h[i] = has[i * NOPT + (size_t)k];
		rc = h ? make_view(db, kt_store_optional[k], stores, n, h, err, errlen) :
			 errf(err, errlen, "out of memory");
		free(h);
	}
	free(has);
	if (rc < 0) {
		kt_db_close(db);
		return NULL;
	}
	return db;
}

duckdb_connection kt_db_conn(struct kt_db *db)
{
	return db->conn;
}

void kt_db_close(struct kt_db *db)
{
	if (!db)
		return;
	if (db->conn)
		duckdb_disconnect(&db->conn);
	duckdb_close(&db->db);
	free(db);
}

/* ---------------------------------------------------------------------- */
/* Tables added later                                                      */
/* ---------------------------------------------------------------------- */

int kt_store_put_table(const char *store, const char *table, const char *file, uint64_t rows,
		       char *err, size_t errlen)
{
	char path[4200], meta[4200], tmp[4300];
	json_t *m = read_meta(store, err, errlen);

	if (!m)
		return -1;
	snprintf(path, sizeof(path), "%s/%s.parquet", store, table);
	snprintf(meta, sizeof(meta), "%s/meta.json", store);
	snprintf(tmp, sizeof(tmp), "%s.tmp.%d", meta, (int)getpid());
	json_object_set_new(json_object_get(m, "tables"), table, json_integer((json_int_t)rows));
	/* The file first, then meta.json naming it: a reader checks the row
	 * count, so it sees either the old table or the new one whole. */
	int rc = rename(file, path) < 0 ? errf(err, errlen, "%s: %s", path, strerror(errno)) : 0;

	if (rc == 0 && json_dump_file(m, tmp, JSON_INDENT(1) | JSON_PRESERVE_ORDER) < 0)
		rc = errf(err, errlen, "%s: cannot write", tmp);
	if (rc == 0 && rename(tmp, meta) < 0)
		rc = errf(err, errlen, "%s: %s", meta, strerror(errno));
	if (rc < 0)
		unlink(tmp);
	json_decref(m);
	return rc;
}

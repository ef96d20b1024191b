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
#include <unistd.h>

#include "store.h"

const char *const kt_store_tables[] = {
	"span", "sched_slice", "thread_state", "slice", "thread", "process", "cpu",
	"machine", "counter", "wakeup", "ipi", "wait", "rpc", "lock", "mark",
	"pc_sample", "packet", NULL,
};

/* Execution rows: those that tile a CPU's time (docs/TABLES.md). */
#define EXEC "cpu >= 0 AND ((event BETWEEN 1024 AND 4095) OR event >= 65536)"
#define CEXIT "(event = 131072 AND name = '-c-exit-')"

/*
 * The derived tables, in dependency order.  x_ tables are scaffolding,
 * dropped before the files are written.  slice comes from C (slice_pass).
 */
static const char *const derive_sql[] = {
	"CREATE VIEW x_exec AS SELECT ts, dur, cpu, pid, event, name FROM span WHERE " EXEC,

	/* Wait letters as words (docs/spec/FORMATS.md 5.6). */
	"CREATE TABLE wait AS SELECT ts, dur, pid, rpc, event, "
	"CASE event - 768 WHEN 2 THEN 'cpu' WHEN 3 THEN 'disk' WHEN 10 THEN 'task' "
	"WHEN 11 THEN 'lock' WHEN 12 THEN 'memory' WHEN 13 THEN 'network' WHEN 15 THEN 'pipe' "
	"WHEN 17 THEN 'rcu' WHEN 18 THEN 'sched' WHEN 19 THEN 'timer' WHEN 25 THEN 'unknown' "
	"ELSE chr(CAST(97 + event - 768 AS INTEGER)) END AS reason "
	"FROM span WHERE event BETWEEN 768 AND 793",

	/* A wait row ends exactly at the wakeup that ended it. */
	"CREATE TABLE wakeup AS SELECT a.ts, a.pid AS waker_pid, a.cpu AS waker_cpu, "
	"TRY_CAST(a.ret AS INTEGER) AS wakee_pid, TRY_CAST(a.arg AS INTEGER) AS wakee_cpu, "
	"a.dur AS latency, w.reason FROM span a LEFT JOIN "
	"(SELECT pid, ts + dur AS e, min(reason) AS reason FROM wait WHERE reason <> 'cpu' "
	"GROUP BY pid, ts + dur) w ON w.pid = a.ret AND w.e = a.ts WHERE a.event = -3",

	"CREATE TABLE ipi AS SELECT ts, cpu, TRY_CAST(arg AS INTEGER) AS target_cpu, "
	"dur AS latency FROM span WHERE event = -7",

	/* Runs of one pid per CPU (gaps and islands). */
	"CREATE TABLE x_slice AS WITH b AS (SELECT ts, dur, cpu, pid, "
	"CASE WHEN pid IS DISTINCT FROM lag(pid) OVER (PARTITION BY cpu ORDER BY ts, dur, pid) "
	"THEN 1 ELSE 0 END AS brk FROM x_exec), "
	"g AS (SELECT ts, dur, cpu, pid, sum(brk) OVER (PARTITION BY cpu ORDER BY ts, dur, pid "
	"ROWS UNBOUNDED PRECEDING) AS grp FROM b) "
	"SELECT min(ts) AS ts, max(ts + dur) - min(ts) AS dur, cpu, min(pid) AS pid "
	"FROM g GROUP BY cpu, grp",

	/* A thread's name: its user-code rows' name, last one, without ".pid". */
	"CREATE TABLE thread AS SELECT s.pid, n.name, min(s.ts) AS start_ts, "
	"max(s.ts + s.dur) AS end_ts, CAST(sum(s.dur) AS BIGINT) AS run_ns FROM x_slice s LEFT JOIN "
	"(SELECT pid, arg_max(regexp_replace(name, '\\.[0-9]+$', ''), ts) AS name FROM x_exec "
	"WHERE event > 65536 AND NOT " CEXIT " GROUP BY pid) n USING (pid) "
	"WHERE s.pid > 0 GROUP BY s.pid, n.name",

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

	"CREATE TABLE cpu AS SELECT cpu, min(ts) AS start_ts, max(ts + dur) AS end_ts, "
	"CAST(sum(CASE WHEN event = 65536 OR " CEXIT " THEN 0 ELSE dur END) AS BIGINT) AS busy_ns, "
	"CAST(sum(CASE WHEN event = 65536 THEN dur ELSE 0 END) AS BIGINT) AS idle_ns, "
	"CAST(sum(CASE WHEN " CEXIT " THEN dur ELSE 0 END) AS BIGINT) AS cexit_ns FROM x_exec "
	"GROUP BY cpu",

	"CREATE TABLE counter AS SELECT ts, dur, cpu, 'freq' AS name, CAST(arg AS DOUBLE) "
	"AS value FROM span WHERE event = 521",

	/*
	 * RPCs: the method from the request/response/resume rows' names
	 * ("method.id"), the side from which event began the id on a thread.
	 */
	"CREATE TABLE rpc AS WITH m AS (SELECT CAST(CASE WHEN event = 515 THEN arg ELSE arg & 65535 "
	"END AS INTEGER) AS rpc, min(regexp_extract(name, '^(.*)\\.[0-9]+$', 1)) AS method "
	"FROM span WHERE event IN (513, 514, 515) AND arg BETWEEN 1 AND 2147483647 "
	"AND CASE WHEN event = 515 THEN arg ELSE arg & 65535 END > 0 GROUP BY 1), "
	"s AS (SELECT CAST(arg & 65535 AS INTEGER) AS rpc, pid, arg_min(CASE WHEN event = 513 "
	"THEN 2 ELSE 1 END, ts) AS side FROM span WHERE event IN (513, 514) AND arg >= 0 "
	"AND arg & 65535 > 0 GROUP BY 1, 2), "
	"w AS (SELECT rpc, pid, min(ts) AS begin_ts, max(ts + dur) AS end_ts, "
	"CAST(sum(CASE WHEN " EXEC " THEN dur ELSE 0 END) AS BIGINT) AS cpu_ns FROM span "
	"WHERE rpc > 0 "
	"AND pid > 0 GROUP BY rpc, pid) "
	"SELECT w.rpc, CAST(NULL AS INTEGER) AS parent, m.method, w.pid, CASE s.side WHEN 2 "
	"THEN 'request' WHEN 1 THEN 'response' ELSE 'work' END AS side, w.begin_ts, w.end_ts, "
	"w.cpu_ns FROM w LEFT JOIN m USING (rpc) LEFT JOIN s USING (rpc, pid)",

	/* Locks: the points, the held and contended-wait spans, and who held
	 * the lock when a wait began. */
	"CREATE TABLE lock AS WITH l AS (SELECT ts, dur, arg AS lock, pid, CASE event "
	"WHEN 528 THEN 'try' WHEN 529 THEN 'acquire' WHEN 530 THEN 'release' WHEN 642 THEN "
	"'held' ELSE 'wait' END AS kind FROM span WHERE event IN (528, 529, 530, 642, 643)), "
	"n AS (SELECT arg AS lock, min(substr(name, 2)) AS name FROM span WHERE event IN "
	"(642, 643) GROUP BY arg), h AS (SELECT lock, ts, ts + dur AS e, pid FROM l "
	"WHERE kind = 'held'), lh AS (SELECT l.*, h.e AS he, h.pid AS hpid FROM l ASOF LEFT JOIN "
	"h ON l.lock = h.lock AND l.ts >= h.ts) SELECT lh.ts, lh.dur, lh.lock, n.name, lh.pid, "
	"lh.kind, CASE WHEN lh.kind = 'wait' AND lh.he > lh.ts THEN lh.hpid END AS holder "
	"FROM lh LEFT JOIN n USING (lock)",

	"CREATE TABLE mark AS SELECT ts, cpu, pid, chr(CAST(97 + event - 522 AS INTEGER)) AS kind, "
	"arg, CASE WHEN strpos(name, '=') > 0 THEN substr(name, strpos(name, '=') + 1) "
	"ELSE name END AS label FROM span WHERE event BETWEEN 522 AND 525",

	"CREATE TABLE pc_sample AS SELECT ts, dur, cpu, pid, event = 641 AS kernel, arg, name "
	"FROM span WHERE event IN (640, 641)",

	"CREATE TABLE packet AS SELECT ts, dur, cpu, pid, rpc, CASE WHEN event >= 532 THEN arg "
	"END AS hash, CASE event WHEN 532 THEN 'rx' WHEN 533 THEN 'tx' WHEN 534 THEN 'urx' "
	"WHEN 535 THEN 'utx' WHEN 516 THEN 'rxmsg' ELSE 'txmsg' END AS direction, "
	"CASE WHEN event < 532 THEN arg END AS bytes FROM span "
	"WHERE event IN (516, 517, 532, 533, 534, 535)",
	NULL,
};

static const char *const drop_sql[] = {
	"DROP VIEW x_exec", "DROP TABLE x_slice", "DROP TABLE x_run", "DROP TABLE x_gap", NULL,
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

/* 'text' with quotes doubled, as an SQL string literal. */
static char *sql_str(const char *s)
{
	size_t n = 3;

	for (const char *p = s; *p; p++)
		n += *p == '\'' ? 2 : 1;
	char *o = malloc(n), *q = o;

	if (!o)
		return NULL;
	*q++ = '\'';
	for (const char *p = s; *p; p++) {
		if (*p == '\'')
			*q++ = '\'';
		*q++ = *p;
	}
	*q++ = '\'';
	*q = '\0';
	return o;
}

static int rm_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static void rm_tree(const char *dir)
{
	nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* ---------------------------------------------------------------------- */
/* Writing                                                                 */
/* ---------------------------------------------------------------------- */

enum { C_TS, C_DUR, C_CPU, C_PID, C_RPC, C_EVENT, C_ARG, C_RET, C_IPC, C_NAME, NCOL };

struct kt_store_w {
	char *dir, *tmp;
	duckdb_database db;
	duckdb_connection conn;
	duckdb_appender app;
	duckdb_data_chunk chunk;
	void *col[NCOL];
	duckdb_vector names;
	idx_t n;		/* rows in chunk */
	uint64_t rows;
	int open, done;
	char err[512];
};

static const duckdb_type span_types[NCOL] = {
	DUCKDB_TYPE_BIGINT, DUCKDB_TYPE_BIGINT, DUCKDB_TYPE_INTEGER, DUCKDB_TYPE_INTEGER,
	DUCKDB_TYPE_INTEGER, DUCKDB_TYPE_INTEGER, DUCKDB_TYPE_BIGINT, DUCKDB_TYPE_BIGINT,
	DUCKDB_TYPE_INTEGER, DUCKDB_TYPE_VARCHAR,
};

static duckdb_data_chunk new_chunk(const duckdb_type *t, int n)
{
	duckdb_logical_type lt[16];

	for (int i = 0; i < n; i++)
		lt[i] = duckdb_create_logical_type(t[i]);
	duckdb_data_chunk ch = duckdb_create_data_chunk(lt, (idx_t)n);

	for (int i = 0; i < n; i++)
		duckdb_destroy_logical_type(&lt[i]);
	return ch;
}

static void chunk_cols(struct kt_store_w *w)
{
	for (int i = 0; i < NCOL; i++)
		w->col[i] = duckdb_vector_get_data(duckdb_data_chunk_get_vector(w->chunk, (idx_t)i));
	w->names = duckdb_data_chunk_get_vector(w->chunk, C_NAME);
}

struct kt_store_w *kt_store_w_new(const char *dir, const char *memory_limit,
				  char *err, size_t errlen)
{
	struct stat st;
	char meta[4200];

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
	rm_tree(w->tmp);
	if (!w->dir || mkdir(w->tmp, 0777) < 0) {
		errf(err, errlen, "%s: %s", w->tmp, strerror(errno));
		free(w->dir);
		free(w->tmp);
		free(w);
		return NULL;
	}
	char spill[4200];

	snprintf(spill, sizeof(spill), "%s/.spill", w->tmp);
	if (kt_duckdb_open(&w->db, memory_limit, spill, err, errlen) < 0) {
		kt_store_w_free(w);
		return NULL;
	}
	w->open = 1;
	if (duckdb_connect(w->db, &w->conn) == DuckDBError ||
	    run(w->conn, "CREATE TABLE span (ts BIGINT, dur BIGINT, cpu INTEGER, pid INTEGER, "
		"rpc INTEGER, event INTEGER, arg BIGINT, ret BIGINT, ipc INTEGER, name VARCHAR)",
		"span", err, errlen) < 0 ||
	    duckdb_appender_create(w->conn, NULL, "span", &w->app) == DuckDBError) {
		if (!err[0])
			errf(err, errlen, "%s: DuckDB: cannot connect", dir);
		kt_store_w_free(w);
		return NULL;
	}
	w->chunk = new_chunk(span_types, NCOL);
	chunk_cols(w);
	return w;
}

const char *kt_store_w_error(const struct kt_store_w *w)
{
	return w->err[0] ? w->err : NULL;
}

static int flush_chunk(struct kt_store_w *w)
{
	if (!w->n)
		return 0;
	duckdb_data_chunk_set_size(w->chunk, w->n);
	if (duckdb_append_data_chunk(w->app, w->chunk) == DuckDBError)
		return errf(w->err, sizeof(w->err), "span: %s", duckdb_appender_error(w->app));
	duckdb_data_chunk_reset(w->chunk);
	chunk_cols(w);
	w->n = 0;
	return 0;
}

int kt_store_w_row(struct kt_store_w *w, const struct kt_row *r)
{
	if (w->err[0])
		return -1;
	idx_t i = w->n;

	/* Times in ns: the JSON's 10 ns units, exactly. */
	((int64_t *)w->col[C_TS])[i] = r->start * 10;
	((int64_t *)w->col[C_DUR])[i] = r->dur * 10;
	((int32_t *)w->col[C_CPU])[i] = r->cpu;
	((int32_t *)w->col[C_PID])[i] = r->pid;
	((int32_t *)w->col[C_RPC])[i] = r->rpc;
	((int32_t *)w->col[C_EVENT])[i] = r->event;
	((int64_t *)w->col[C_ARG])[i] = r->arg;
	((int64_t *)w->col[C_RET])[i] = r->retval;
	((int32_t *)w->col[C_IPC])[i] = r->ipc;
	const char *name = r->name ? r->name : "";

	duckdb_vector_assign_string_element_len(w->names, i, name, strlen(name));
	w->rows++;
	if (++w->n == duckdb_vector_size())
		return flush_chunk(w);
	return 0;
}

/*
 * slice: a stack per CPU over the execution rows in time order.  A kernel
 * row whose call is open on the stack continues it (everything above it
 * has returned); any other kernel row opens a call nested in the top; a
 * user, idle or c-exit row, or another thread, closes them all.
 */
struct open_call {
	int64_t id, ts, end, self;
	int32_t cpu, pid, rpc, event;
	int64_t arg, ret;
	const char *name;
	int depth;
	int64_t parent;
};

enum { S_ID, S_TS, S_DUR, S_CPU, S_PID, S_RPC, S_EVENT, S_NAME, S_KIND, S_ARG, S_RET,
       S_DEPTH, S_PARENT, S_SELF, SNCOL };

static const duckdb_type slice_types[SNCOL] = {
	DUCKDB_TYPE_BIGINT, DUCKDB_TYPE_BIGINT, DUCKDB_TYPE_BIGINT, DUCKDB_TYPE_INTEGER,
	DUCKDB_TYPE_INTEGER, DUCKDB_TYPE_INTEGER, DUCKDB_TYPE_INTEGER, DUCKDB_TYPE_VARCHAR,
	DUCKDB_TYPE_VARCHAR, DUCKDB_TYPE_BIGINT, DUCKDB_TYPE_BIGINT, DUCKDB_TYPE_INTEGER,
	DUCKDB_TYPE_BIGINT, DUCKDB_TYPE_BIGINT,
};

struct slicer {
	duckdb_appender app;
	duckdb_data_chunk chunk;
	idx_t n;
	struct open_call st[64];
	int depth;
	int64_t next_id;
	char *err;
	size_t errlen;
	int failed;
};

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

static void slice_emit(struct slicer *s, const struct open_call *c)
{
	if (s->failed)
		return;
	idx_t i = s->n;
	duckdb_data_chunk ch = s->chunk;
#define COL(k, T) ((T *)duckdb_vector_get_data(duckdb_data_chunk_get_vector(ch, k)))
	COL(S_ID, int64_t)[i] = c->id;
	COL(S_TS, int64_t)[i] = c->ts;
	COL(S_DUR, int64_t)[i] = c->end - c->ts;
	COL(S_CPU, int32_t)[i] = c->cpu;
	COL(S_PID, int32_t)[i] = c->pid;
	COL(S_RPC, int32_t)[i] = c->rpc;
	COL(S_EVENT, int32_t)[i] = c->event;
	COL(S_ARG, int64_t)[i] = c->arg;
	COL(S_RET, int64_t)[i] = c->ret;
	COL(S_DEPTH, int32_t)[i] = c->depth;
	COL(S_PARENT, int64_t)[i] = c->parent;
	COL(S_SELF, int64_t)[i] = c->self;
#undef COL
	duckdb_vector_assign_string_element(duckdb_data_chunk_get_vector(ch, S_NAME), i, c->name);
	duckdb_vector_assign_string_element(duckdb_data_chunk_get_vector(ch, S_KIND), i,
					    call_kind(c->event, c->name));
	if (c->depth == 0) {
		duckdb_vector parent = duckdb_data_chunk_get_vector(ch, S_PARENT);

		duckdb_vector_ensure_validity_writable(parent);
		duckdb_validity_set_row_invalid(duckdb_vector_get_validity(parent), i);
	}
	if (++s->n == duckdb_vector_size()) {
		duckdb_data_chunk_set_size(ch, s->n);
		if (duckdb_append_data_chunk(s->app, ch) == DuckDBError) {
			errf(s->err, s->errlen, "slice: %s", duckdb_appender_error(s->app));
			s->failed = 1;
		}
		duckdb_data_chunk_reset(ch);
		s->n = 0;
	}
}

/* A call ends no earlier than what it called (a nested call may run on
 * after the call's own last piece, to the switch that closed both). */
static void slice_close_to(struct slicer *s, int depth)
{
	while (s->depth > depth) {
		struct open_call *c = &s->st[--s->depth];

		if (s->depth && s->st[s->depth - 1].end < c->end)
			s->st[s->depth - 1].end = c->end;
		slice_emit(s, c);
	}
}

static void slice_row(struct slicer *s, int64_t ts, int64_t dur, int32_t cpu, int32_t pid,
		      int32_t rpc, int32_t event, int64_t arg, int64_t ret, const char *name)
{
	if (s->depth && (s->st[0].cpu != cpu || s->st[0].pid != pid))
		slice_close_to(s, 0);
	if (event >= 0x10000) {
		slice_close_to(s, 0);
		return;
	}
	for (int i = s->depth - 1; i >= 0; i--) {
		if (s->st[i].event == event) {
			slice_close_to(s, i + 1);
			s->st[i].end = ts + dur;
			s->st[i].self += dur;
			s->st[i].ret = ret;
			return;
		}
	}
	if (s->depth == (int)(sizeof(s->st) / sizeof(s->st[0])))
		slice_close_to(s, s->depth - 1);
	struct open_call *c = &s->st[s->depth];

	*c = (struct open_call){
		.id = s->next_id++, .ts = ts, .end = ts + dur, .self = dur, .cpu = cpu,
		.pid = pid, .rpc = rpc, .event = event, .arg = arg, .ret = ret,
		.name = kt_intern(name), .depth = s->depth,
		.parent = s->depth ? s->st[s->depth - 1].id : 0,
	};
	s->depth++;
}

static int slice_pass(struct kt_store_w *w)
{
	/* A second connection: the first streams while this one appends. */
	duckdb_connection c2;
	duckdb_prepared_statement ps = NULL;
	duckdb_pending_result pend = NULL;
	duckdb_result res;
	struct slicer s = { .err = w->err, .errlen = sizeof(w->err) };
	int ok = 0, have_res = 0;

	if (duckdb_connect(w->db, &c2) == DuckDBError)
		return errf(w->err, sizeof(w->err), "slice: DuckDB: cannot connect");
	if (run(c2, "CREATE TABLE slice (id BIGINT, ts BIGINT, dur BIGINT, cpu INTEGER, "
		"pid INTEGER, rpc INTEGER, event INTEGER, name VARCHAR, kind VARCHAR, arg BIGINT, "
		"ret BIGINT, depth INTEGER, parent_id BIGINT, self_ns BIGINT)", "slice",
		w->err, sizeof(w->err)) < 0)
		goto out;
	if (duckdb_appender_create(c2, NULL, "slice", &s.app) == DuckDBError) {
		errf(w->err, sizeof(w->err), "slice: DuckDB: cannot append");
		goto out;
	}
	s.chunk = new_chunk(slice_types, SNCOL);
	if (duckdb_prepare(w->conn, "SELECT ts, dur, cpu, pid, rpc, event, arg, ret, name FROM span "
			   "WHERE " EXEC " ORDER BY cpu, ts, dur, pid", &ps) == DuckDBError ||
	    duckdb_pending_prepared_streaming(ps, &pend) == DuckDBError ||
	    duckdb_execute_pending(pend, &res) == DuckDBError) {
		errf(w->err, sizeof(w->err), "slice: %s",
		     ps ? duckdb_prepare_error(ps) : "cannot read span");
		if (pend)
			have_res = 1;
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
		for (idx_t i = 0; i < n && !s.failed; i++) {
			char name[256];
			uint32_t l = duckdb_string_t_length(nm[i]);

			if (l >= sizeof(name))
				l = sizeof(name) - 1;
			memcpy(name, duckdb_string_t_data(&nm[i]), l);
			name[l] = '\0';
			slice_row(&s, ts[i], dur[i], cpu[i], pid[i], rpc[i], ev[i], arg[i], ret[i],
				  name);
		}
		duckdb_destroy_data_chunk(&ch);
		if (s.failed)
			goto out;
	}
	slice_close_to(&s, 0);
	if (s.failed)
		goto out;
	if (s.n) {
		duckdb_data_chunk_set_size(s.chunk, s.n);
		if (duckdb_append_data_chunk(s.app, s.chunk) == DuckDBError) {
			errf(w->err, sizeof(w->err), "slice: %s", duckdb_appender_error(s.app));
			goto out;
		}
	}
	if (duckdb_appender_close(s.app) == DuckDBError) {
		errf(w->err, sizeof(w->err), "slice: %s", duckdb_appender_error(s.app));
		goto out;
	}
	ok = 1;
out:
	if (have_res)
		duckdb_destroy_result(&res);
	if (pend)
		duckdb_destroy_pending(&pend);
	if (ps)
		duckdb_destroy_prepare(&ps);
	if (s.chunk)
		duckdb_destroy_data_chunk(&s.chunk);
	if (s.app)
		duckdb_appender_destroy(&s.app);
	duckdb_disconnect(&c2);
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
	json_object_set(o, "tables", tables);
	snprintf(path, sizeof(path), "%s/meta.json", w->tmp);
	int rc = json_dump_file(o, path, JSON_INDENT(1) | JSON_PRESERVE_ORDER);

	json_decref(o);
	if (rc < 0)
		return errf(w->err, sizeof(w->err), "%s: cannot write", path);
	return 0;
}

static int machine_table(struct kt_store_w *w, const struct kt_store_meta *m)
{
	const char *v[] = { m->trace_id, m->machine, m->kernel, m->cpu_model, m->tracebase,
			    m->backend, KUTRACE_TOOL_VERSION };
	char *q[7];
	int rc = -1;

	for (int i = 0; i < 7; i++)
		q[i] = v[i] ? sql_str(v[i]) : strdup("NULL");
	char *sql = NULL;

	if (asprintf(&sql, "CREATE TABLE machine AS SELECT %s AS trace_id, %s AS machine, "
		     "CAST(%s AS VARCHAR) AS kernel, CAST(%s AS VARCHAR) AS cpu_model, "
		     "CAST(%s AS VARCHAR) AS tracebase, CAST(%s AS VARCHAR) AS backend, "
		     "%s AS tool_version, %d AS mbit_sec, %u AS flags, "
		     "(SELECT count(*) FROM cpu) AS cpus",
		     q[0], q[1], q[2], q[3], q[4], q[5], q[6], m->mbit_sec, m->flags) > 0)
		rc = run(w->conn, sql, "machine", w->err, sizeof(w->err));
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
		rm_tree(old);
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
		rm_tree(old);
	free(old);
	return 0;
}

int kt_store_w_finish(struct kt_store_w *w, const struct kt_store_meta *m)
{
	if (w->err[0] || flush_chunk(w) < 0)
		return -1;
	if (duckdb_appender_close(w->app) == DuckDBError)
		return errf(w->err, sizeof(w->err), "span: %s", duckdb_appender_error(w->app));
	duckdb_appender_destroy(&w->app);
	for (int i = 0; derive_sql[i]; i++) {
		/* The table's name is the statement's fourth word. */
		char what[64] = "";

		sscanf(derive_sql[i], "CREATE %*s %63s", what);
		if (run(w->conn, derive_sql[i], what, w->err, sizeof(w->err)) < 0)
			return -1;
	}
	if (slice_pass(w) < 0 || machine_table(w, m) < 0)
		return -1;
	for (int i = 0; drop_sql[i]; i++)
		if (run(w->conn, drop_sql[i], "scaffolding", w->err, sizeof(w->err)) < 0)
			return -1;
	char *tid = sql_str(m->trace_id ? m->trace_id : "");
	char *mach = sql_str(m->machine ? m->machine : "unknown");
	json_t *tables = json_object();
	int rc = 0;

	for (int i = 0; kt_store_tables[i] && rc == 0; i++) {
		const char *t = kt_store_tables[i];
		char path[4200], *ppath, *sql = NULL;
		duckdb_result r;

		snprintf(path, sizeof(path), "%s/%s.parquet", w->tmp, t);
		ppath = sql_str(path);
		/* machine has the two columns already. */
		int m2 = strcmp(t, "machine") != 0;

		if (!ppath || asprintf(&sql, "COPY (SELECT *%s%s%s%s%s FROM %s) TO %s (FORMAT "
				       "parquet, COMPRESSION zstd)", m2 ? ", " : "", m2 ? tid : "",
				       m2 ? " AS trace_id, " : "", m2 ? mach : "",
				       m2 ? " AS machine" : "", t, ppath) < 0) {
			rc = errf(w->err, sizeof(w->err), "%s: out of memory", t);
		} else if (duckdb_query(w->conn, sql, &r) == DuckDBError) {
			rc = errf(w->err, sizeof(w->err), "%s: %s", path, duckdb_result_error(&r));
			duckdb_destroy_result(&r);
		} else {
			json_object_set_new(tables, t, json_integer(duckdb_rows_changed(&r)));
			duckdb_destroy_result(&r);
		}
		free(sql);
		free(ppath);
	}
	free(tid);
	free(mach);
	if (rc == 0)
		rc = write_meta(w, m, tables);
	json_decref(tables);
	if (rc < 0)
		return -1;
	/* DuckDB's spill directory goes before the rename. */
	duckdb_disconnect(&w->conn);
	duckdb_close(&w->db);
	w->open = 0;
	char spill[4200];

	snprintf(spill, sizeof(spill), "%s/.spill", w->tmp);
	rm_tree(spill);
	if (swap_in(w) < 0)
		return -1;
	w->done = 1;
	return 0;
}

void kt_store_w_free(struct kt_store_w *w)
{
	if (!w)
		return;
	if (w->app)
		duckdb_appender_destroy(&w->app);
	if (w->chunk)
		duckdb_destroy_data_chunk(&w->chunk);
	if (w->open) {
		duckdb_disconnect(&w->conn);
		duckdb_close(&w->db);
	}
	if (!w->done)
		rm_tree(w->tmp);
	free(w->tmp);
	free(w->dir);
	free(w);
}

/* ---------------------------------------------------------------------- */
/* Reading                                                                 */
/* ---------------------------------------------------------------------- */

struct kt_db {
	duckdb_database db;
	duckdb_connection conn;
};

/* meta.json of one store: its version, and each table's row count. */
static json_t *read_meta(const char *store, char *err, size_t len)
{
	char path[4200];
	json_error_t je;
	struct stat st;

	if (stat(store, &st) < 0)
		return errf(err, len, "%s: %s", store, strerror(errno)), NULL;
	if (!S_ISDIR(st.st_mode))
		return errf(err, len, "%s: not a table store (a directory)", store), NULL;
	snprintf(path, sizeof(path), "%s/meta.json", store);
	json_t *m = json_load_file(path, 0, &je);

	if (!m) {
		if (access(path, F_OK) < 0)
			errf(err, len, "%s: not a table store (no meta.json)", store);
		else
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

	snprintf(path, sizeof(path), "%s/%s.parquet", store, t);
	if (access(path, R_OK) < 0)
		return errf(err, len, "%s: %s", path, strerror(errno));
	q = sql_str(path);
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
	for (size_t i = 0; i < n; i++) {
		json_t *m = read_meta(stores[i], err, errlen);
		int rc = m ? 0 : -1;

		for (int t = 0; rc == 0 && kt_store_tables[t]; t++)
			rc = check_file(db->conn, stores[i], kt_store_tables[t], m, err, errlen);
		json_decref(m);
		if (rc < 0) {
			kt_db_close(db);
			return NULL;
		}
	}
	for (int t = 0; kt_store_tables[t]; t++) {
		struct kt_buf b = { 0 };

		kt_buf_printf(&b, "CREATE VIEW %s AS SELECT * FROM read_parquet([", kt_store_tables[t]);
		for (size_t i = 0; i < n; i++) {
			char path[4200], *q;

			snprintf(path, sizeof(path), "%s/%s.parquet", stores[i], kt_store_tables[t]);
			q = sql_str(path);
			kt_buf_printf(&b, "%s%s", i ? ", " : "", q ? q : "''");
			free(q);
		}
		kt_buf_puts(&b, "])");
		int rc = run(db->conn, b.p, kt_store_tables[t], err, errlen);

		free(b.p);
		if (rc < 0) {
			kt_db_close(db);
			return NULL;
		}
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

// SPDX-License-Identifier: BSD-3-Clause
/*
 * storeview.c - what the viewer's server (kutrace_view) reads from a table
 * store: the timeline page of its rows, the per-CPU summaries of a window
 * (tiles) and the rows of a window.  Answers are built in memory and
 * returned whole, or not at all, with one line in err.
 */
#include <errno.h>
#include <stdarg.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "page.h"
#include "store.h"

static void errf(char *err, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void errf(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	err[strcspn(err, "\n")] = '\0';
}

int kt_store_present(const char *store, char *err, size_t errlen)
{
	char path[4200];
	struct stat st;

	snprintf(path, sizeof(path), "%s/meta.json", store);
	if (stat(path, &st) < 0) {
		errf(err, errlen, "%s: the store is gone (%s)", store, strerror(errno));
		return -1;
	}
	return 0;
}

/* A streaming query; NULL with err set. */
static int run(duckdb_connection c, const char *sql, duckdb_result *res, char *err, size_t errlen)
{
	duckdb_prepared_statement ps = NULL;
	duckdb_pending_result pend = NULL;
	int rc = -1;

	if (duckdb_prepare(c, sql, &ps) == DuckDBError) {
		errf(err, errlen, "%s", duckdb_prepare_error(ps));
	} else if (duckdb_pending_prepared_streaming(ps, &pend) == DuckDBError) {
		errf(err, errlen, "%s", duckdb_pending_error(pend));
	} else if (duckdb_execute_pending(pend, res) == DuckDBError) {
		errf(err, errlen, "%s", duckdb_result_error(res));
		duckdb_destroy_result(res);
	} else {
		rc = 0;
	}
	if (pend)
		duckdb_destroy_pending(&pend);
	duckdb_destroy_prepare(&ps);
	return rc;
}

/* The SQL fmt makes, whole: a path's literal (kt_sql_str) may be twice
 * the path's length, and a cut one is no statement; NULL with err set. */
static char *sqlf(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static char *sqlf(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	char *sql = kt_vstrf(fmt, ap);

	va_end(ap);
	if (!sql)
		errf(err, errlen, "out of memory");
	return sql;
}

/* A file's name as an SQL literal, dir/name, never a pattern
 * (kt_store_globfree); NULL with err set. */
static char *file_lit(const char *dir, const char *name, char *err, size_t errlen)
{
	if (kt_store_globfree(dir, err, errlen) < 0 || kt_store_globfree(name, err, errlen) < 0)
		return NULL;
	char *q = kt_sql_str("%s/%s", dir, name);

	if (!q)
		errf(err, errlen, "%s/%s: out of memory", dir, name);
	return q;
}

/* run of sql (which it frees; NULL: sqlf's error, in err already). */
static int run_free(duckdb_connection c, char *sql, duckdb_result *res, char *err, size_t errlen)
{
	int rc = sql ? run(c, sql, res, err, errlen) : -1;

	free(sql);
	return rc;
}

/* A fetched chunk, or NULL at the end; an error while streaming in err. */
static duckdb_data_chunk next_chunk(duckdb_result res, int *failed, char *err, size_t errlen)
{
	duckdb_data_chunk ch = duckdb_fetch_chunk(res);

	if (!ch && duckdb_result_error(&res)) {
		errf(err, errlen, "%s", duckdb_result_error(&res));
		*failed = 1;
	}
	return ch;
}

#define IN(ch, k, T) ((T *)duckdb_vector_get_data(duckdb_data_chunk_get_vector(ch, k)))

/*
 * A row's extent as /api/lodmeta gives it, from columns 1..5 of a chunk
 * (execution spans, first execution start, first start, last end as
 * start and duration; NULL as -1, times but the count in 10 ns).
 */
static void put_extent(struct kt_buf *out, duckdb_data_chunk ch, idx_t i)
{
	for (int k = 0; k < 5; k++) {
		int64_t *v = IN(ch, k + 1, int64_t);
		uint64_t *ok = duckdb_vector_get_validity(duckdb_data_chunk_get_vector(ch, k + 1));
		int valid = !ok || duckdb_validity_row_is_valid(ok, i);

		kt_buf_printf(out, ",%" PRId64, !valid ? -1 : k ? v[i] / 10 : v[i]);
	}
}

/* Times a store may hold (ns): far enough from the ends of int64 that
 * a time plus a request's width of bins (at most INT64_MAX / 4) or two
 * of the pyramid's bins stays in range. */
#define LOD_T_MAX ((int64_t)1 << 61)

/* The ten columns of a row, in the JSON's order (docs/TABLES.md, span). */
#define ROW_COLS "ts, dur, cpu, pid, rpc, event, arg, ret, ipc, name"

struct rowcols {
	int64_t *ts, *dur, *arg, *ret;
	int32_t *cpu, *pid, *rpc, *ev, *ipc;
	duckdb_string_t *nm;
};

static void row_cols(duckdb_data_chunk ch, struct rowcols *r)
{
	r->ts = IN(ch, 0, int64_t);
	r->dur = IN(ch, 1, int64_t);
	r->cpu = IN(ch, 2, int32_t);
	r->pid = IN(ch, 3, int32_t);
	r->rpc = IN(ch, 4, int32_t);
	r->ev = IN(ch, 5, int32_t);
	r->arg = IN(ch, 6, int64_t);
	r->ret = IN(ch, 7, int64_t);
	r->ipc = IN(ch, 8, int32_t);
	r->nm = IN(ch, 9, duckdb_string_t);
}

/* Row i as a kt_row (times back in the JSON's 10 ns units); name in buf. */
static void get_row(const struct rowcols *c, idx_t i, struct kt_row *r, struct kt_buf *name)
{
	uint32_t l = duckdb_string_t_length(c->nm[i]);

	name->len = 0;
	kt_buf_add(name, duckdb_string_t_data(&c->nm[i]), l);
	kt_buf_add(name, "", 1);
	*r = (struct kt_row){ .start = c->ts[i] / 10, .dur = c->dur[i] / 10, .cpu = c->cpu[i],
			      .pid = c->pid[i], .rpc = c->rpc[i], .event = c->ev[i],
			      .arg = c->arg[i], .retval = c->ret[i], .ipc = c->ipc[i],
			      .name = name->p };
}

static const char *jstr(json_t *m, const char *k)
{
	const char *s = json_string_value(json_object_get(m, k));

	return s && *s && strcmp(s, "unknown") != 0 ? s : NULL;
}

int kt_store_page(duckdb_connection c, const char *store, const char *tpl, uint64_t max,
		  int no_rows, FILE *out, char *err, size_t errlen)
{
	char path[4200], *header = NULL, *footer = NULL;
	size_t hl = 0, fl = 0;
	json_error_t je;
	duckdb_result res;
	struct kt_buf name = { 0 };
	int rc = -1, failed = 0;

	snprintf(path, sizeof(path), "%s/meta.json", store);
	FILE *mf = kt_store_fopen(store, "meta.json", err, errlen);
	json_t *m = mf ? json_loadf(mf, 0, &je) : NULL;

	if (mf)
		fclose(mf);
	if (!mf)
		return -1;
	if (!m) {
		errf(err, errlen, "%s: %s", path, je.text);
		return -1;
	}
	json_t *fl_v = json_object_get(m, "flags"), *mb = json_object_get(m, "mbit_sec");
	struct kt_json_meta jm = {
		.title = jstr(m, "trace_id"), .tracebase = jstr(m, "tracebase"),
		.kernel = jstr(m, "kernel"), .model = jstr(m, "cpu_model"),
		.host = jstr(m, "machine"), .flags = (unsigned)json_integer_value(fl_v),
		.mbit = (int)json_integer_value(mb), .version = KUTRACE_EVENT_TEXT_VERSION,
	};
	FILE *hm = open_memstream(&header, &hl), *fm = open_memstream(&footer, &fl);
	struct kt_pagecols *p = kt_pagecols_new(max);

	if (!hm || !fm) {
		errf(err, errlen, "out of memory");
		goto out;
	}
	kt_json_header(hm, &jm);
	kt_json_footer(fm);
	fclose(hm);
	fclose(fm);
	hm = fm = NULL;
	/* The store keeps span in the JSON's order: a scan gives it back so. */
	if (run(c, no_rows ? "SELECT " ROW_COLS " FROM span LIMIT 0" : "SELECT " ROW_COLS " FROM span",
		&res, err, errlen) < 0)
		goto out;
	for (duckdb_data_chunk ch; (ch = next_chunk(res, &failed, err, errlen));) {
		struct rowcols rc_;
		idx_t n = duckdb_data_chunk_get_size(ch);

		row_cols(ch, &rc_);
		for (idx_t i = 0; i < n; i++) {
			struct kt_row r;

			get_row(&rc_, i, &r, &name);
			r.name = kt_intern(r.name);
			kt_pagecols_row(p, &r);
		}
		duckdb_destroy_data_chunk(&ch);
	}
	duckdb_destroy_result(&res);
	if (failed)
		goto out;
	if (kt_pagecols_full(p)) {
		errf(err, errlen, "%s: more than %" PRIu64 " spans: too many for one page", store,
		     max);
		goto out;
	}
	rc = kt_html_write_rows(out, tpl, p, header, footer, err, errlen);
out:
	if (hm)
		fclose(hm);
	if (fm)
		fclose(fm);
	kt_pagecols_free(p);
	kt_buf_free(&name);
	free(header);
	free(footer);
	json_decref(m);
	return rc;
}

/*
 * Execution rows by kind (docs/TABLES.md, "Execution rows"): 0 idle (and
 * the power-state exit), 1 user code, 2 kernel code.  A bucket's kind is
 * the one the viewer draws for a pixel of such rows (docs/spec/VIEWER.md
 * 3.4): the largest of idle, 10 x user and 10 x kernel time, user before
 * kernel before idle on ties; the last user and kernel events give the
 * colour.
 */
#define EXEC_KIND "CASE WHEN event IN (65536, 131072) THEN 0 WHEN event > 65536 THEN 1 ELSE 2 END"
#define EXEC_ROWS "cpu >= 0 AND ((event BETWEEN 1024 AND 4095) OR event BETWEEN 65536 AND 131072)"

/* Of the kinds present (a last event), the viewer's pick. */
static int pick(const int64_t ns[3], const int64_t last[3])
{
	static const int order[3] = { 1, 2, 0 };	/* who wins a tie */
	int best = -1;
	int64_t bw = -1;

	for (int i = 0; i < 3; i++) {
		int k = order[i];
		int64_t w = k ? 10 * ns[k] : ns[k];

		if (last[k] >= 0 && w > bw) {
			best = k;
			bw = w;
		}
	}
	return best;
}

/*
 * The rows of res (cpu, bin, kind, rows, ns, last event; ordered by cpu,
 * bin, kind) as {"CPU":[bin, ...], ...}: per bin, for /api/tiles
 * (tiles) [bin, the viewer's kind, rows, idle, user and kernel ns, last
 * user and kernel event or -1], for /api/lod [bin, idle, user and kernel
 * ns, last user and kernel event, rows].
 */
static int bins_json(duckdb_result res, int tiles, struct kt_buf *out, char *err, size_t errlen)
{
	int failed = 0, cpu = INT32_MIN, first = 1;
	int64_t b = INT64_MIN, cnt = 0, ns[3] = { 0 }, last[3] = { -1, -1, -1 };

	kt_buf_puts(out, "{");
#define FLUSH() do { if (b != INT64_MIN) { \
	if (tiles) \
		kt_buf_printf(out, "%s[%" PRId64 ",%d,%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 \
			      ",%" PRId64 ",%" PRId64 "]", first ? "" : ",", b, pick(ns, last), cnt, \
			      ns[0], ns[1], ns[2], last[1], last[2]); \
	else \
		kt_buf_printf(out, "%s[%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 \
			      ",%" PRId64 ",%" PRId64 "]", first ? "" : ",", b, ns[0], ns[1], ns[2], \
			      last[1], last[2], cnt); \
	first = 0; } } while (0)
	for (duckdb_data_chunk ch; (ch = next_chunk(res, &failed, err, errlen));) {
		int32_t *cc = IN(ch, 0, int32_t), *kk = IN(ch, 2, int32_t), *ev = IN(ch, 5, int32_t);
		int64_t *bb = IN(ch, 1, int64_t), *nn = IN(ch, 3, int64_t), *dd = IN(ch, 4, int64_t);
		idx_t m = duckdb_data_chunk_get_size(ch);

		for (idx_t i = 0; i < m; i++) {
			if (cc[i] != cpu || bb[i] != b) {
				FLUSH();
				if (cc[i] != cpu) {
					kt_buf_printf(out, "%s\"%d\":[", cpu == INT32_MIN ? "" : "],", cc[i]);
					first = 1;
				}
				cpu = cc[i];
				b = bb[i];
				cnt = 0;
				ns[0] = ns[1] = ns[2] = 0;
				last[0] = last[1] = last[2] = -1;
			}
			cnt += nn[i];
			ns[kk[i]] += dd[i];
			last[kk[i]] = ev[i];
		}
		duckdb_destroy_data_chunk(&ch);
	}
	FLUSH();
#undef FLUSH
	duckdb_destroy_result(&res);
	if (failed)
		return -1;
	kt_buf_puts(out, cpu == INT32_MIN ? "}" : "]}");
	return 0;
}

int kt_store_tiles(duckdb_connection c, int64_t t0, int64_t t1, int n, struct kt_buf *out,
		   char *err, size_t errlen)
{
	char sql[1024];
	duckdb_result res;

	if (t1 <= t0 || n < 1 || n > 100000) {
		errf(err, errlen, "tiles: need t0 < t1 and 1 <= n <= 100000");
		return -1;
	}
	snprintf(sql, sizeof(sql),
		 "SELECT cpu, (ts - %" PRId64 ") * %d // %" PRId64 " AS b, " EXEC_KIND " AS k,"
		 " count(*), sum(dur)::BIGINT, arg_max(event, ts) FROM span WHERE " EXEC_ROWS " AND ts >= %" PRId64
		 " AND ts < %" PRId64 " GROUP BY ALL ORDER BY cpu, b, k",
		 t0, n, t1 - t0, t0, t1);
	if (run(c, sql, &res, err, errlen) < 0)
		return -1;
	out->len = 0;
	kt_buf_printf(out, "{\"t0\":%" PRId64 ",\"t1\":%" PRId64 ",\"n\":%d,\"cpus\":", t0, t1, n);
	if (bins_json(res, 1, out, err, errlen) < 0)
		return -1;
	kt_buf_puts(out, "}");
	return 0;
}

/* The rows sql selects (ROW_COLS), at most limit, as JSON rows after
 * pre: PRE[row,\nrow...],"more":BOOL}; sql freed (NULL: sqlf's error). */
static int rows_json(duckdb_connection c, char *sql, const char *pre, long limit,
		     struct kt_buf *out, char *err, size_t errlen)
{
	duckdb_result res;
	struct kt_buf name = { 0 }, line = { 0 };
	int failed = 0;
	long seen = 0;

	if (run_free(c, sql, &res, err, errlen) < 0)
		return -1;
	kt_buf_puts(out, pre);
	kt_buf_puts(out, "[");
	for (duckdb_data_chunk ch; (ch = next_chunk(res, &failed, err, errlen));) {
		struct rowcols rc_;
		idx_t n = duckdb_data_chunk_get_size(ch);

		row_cols(ch, &rc_);
		for (idx_t i = 0; i < n; i++, seen++) {
			struct kt_row r;

			if (seen >= limit)
				continue;	/* the one past the limit says there are more */
			get_row(&rc_, i, &r, &name);
			size_t cap = KT_JSON_HEAD_MAX + 6 * name.len + 4;

			if (line.cap < cap) {
				line.p = kt_xrealloc(line.p, cap);
				line.cap = cap;
			}
			/* The line ends ",\n": the array keeps its own commas. */
			size_t l = kt_json_format_row(line.p, line.cap, &r) - 2;

			if (seen)
				kt_buf_add(out, ",\n", 2);
			kt_buf_add(out, line.p, l);
		}
		duckdb_destroy_data_chunk(&ch);
	}
	duckdb_destroy_result(&res);
	kt_buf_free(&name);
	kt_buf_free(&line);
	if (failed)
		return -1;
	kt_buf_printf(out, "],\"more\":%s}", seen > limit ? "true" : "false");
	return 0;
}

int kt_store_rows(duckdb_connection c, const struct kt_lodpyr *py, int cpu, int64_t t0,
		  int64_t t1, long limit, struct kt_buf *out, char *err, size_t errlen)
{
	char where[64] = "";

	int64_t from;

	if (cpu >= 0)
		snprintf(where, sizeof(where), "cpu = %d AND ", cpu);
	out->len = 0;
	if (t1 <= t0 || t0 < -LOD_T_MAX || t1 > LOD_T_MAX ||
	    (py && __builtin_sub_overflow(t0, 2 * py->q0, &from))) {
		errf(err, errlen, "rows: a window out of range");
		return -1;
	}
	/* The files DuckDB is to read: the store's own, regular. */
	if (py && (kt_store_file_ok(py->store, "span.parquet", err, errlen) < 0 ||
		   kt_store_file_ok(py->store, "lod/longrows.parquet", err, errlen) < 0))
		return -1;
	/* With the pyramid: the rows shorter than 2 q0 start after t0 - 2 q0,
	 * so only those row groups are read, and the longer ones are kept
	 * apart (longrows.parquet); both with their row number in span, whose
	 * order they are given back in.  Without it, ts + dur > t0 reads span
	 * from its start. */
	if (py) {
		char *span = file_lit(py->dir, "../span.parquet", err, errlen);
		char *lrows = span ? file_lit(py->dir, "longrows.parquet", err, errlen) : NULL;
		char *sql = lrows ? sqlf(err, errlen,
			"SELECT " ROW_COLS " FROM (SELECT file_row_number AS rn, " ROW_COLS " FROM"
			" read_parquet(%s, file_row_number = true) WHERE %sts < %" PRId64
			" AND ts > %" PRId64 " AND dur < %" PRId64 " AND ts + dur > %" PRId64 " UNION ALL"
			" SELECT * FROM read_parquet(%s) WHERE %sts < %" PRId64
			" AND ts + dur > %" PRId64 ") ORDER BY rn LIMIT %ld", span, where, t1,
			t0 - 2 * py->q0, 2 * py->q0, t0, lrows, where, t1, t0, limit + 1) : NULL;

		free(span);
		free(lrows);
		return rows_json(c, sql, "{\"rows\":", limit, out, err, errlen);
	}
	/* In the store's order, which is the page's (by ts, ties as the JSON
	 * has them): a sort by ts could reorder ties, and with them what is
	 * drawn over what.  DuckDB keeps a scan's order (preserve_insertion_order). */
	return rows_json(c, sqlf(err, errlen, "SELECT " ROW_COLS " FROM span WHERE %sts < %" PRId64
				 " AND ts + dur > %" PRId64 " LIMIT %ld", where, t1, t0, limit + 1),
			 "{\"rows\":", limit, out, err, errlen);
}

/*
 * The level of detail of the viewer's CPU, PID and RPC rows (docs/spec/VIEWER.md
 * 3.4.1): what a row's rowLod would compute from the page's rows, so that
 * the summary draws what the rows would.  The viewer's rows (data.js
 * buildRows): a CPU row for every cpu >= 0 of a row with event >= 0; a
 * PID row for every pid > 0 of a user-mode span or a left/right mark
 * (LOD_PIDROW), labelled with the name of the first of those; a row's
 * time extent over its rows of event >= 0 but the RPC begin/end points;
 * its execution spans (LOD_EXEC, LOD_PEXEC: a PID row's on any CPU) by
 * kind idle, user, kernel (LOD_KIND).  An RPC row for every id > 0 of an
 * RPC request/response/middle point (its arg; events 513 to 515) or of a
 * left/right mark (its rpc), but those named ".0", in the order of their
 * first such span, labelled with the longest name of those (the first of
 * the longest); its spans those of rpc = id and event >= 0 but the marks
 * (LOD_REXEC: its execution spans).
 */
#define LOD_EXEC_EV "((event >= 0 AND event < 512) OR (event >= 1024 AND event < 4096) OR event >= 65536)"
#define LOD_EXEC "cpu >= 0 AND " LOD_EXEC_EV
#define LOD_PEXEC "pid > 0 AND " LOD_EXEC_EV
#define LOD_REXEC "rpc > 0 AND " LOD_EXEC_EV
/* The spans drawn in full over the bins: of a CPU, a PID or an RPC row. */
#define LOD_LONG LOD_EXEC_EV " AND (cpu >= 0 OR pid > 0 OR rpc > 0)"
#define LOD_PIDROW "((event > 65536 AND event < 131072) OR event IN (526, 527))"
#define LOD_KIND "CASE WHEN event IN (65536, 131072) THEN 0 WHEN event > 65536 THEN 1 ELSE 2 END"
/* The three kinds of rows with summaries: the column that names a row,
 * which spans are a row's, which are its execution spans, the prefix of
 * its pyramid's files, its key in /api/lodmeta and /api/lod, and the
 * progress line of its level 0. */
static const struct lod_kind {
	const char *col, *who, *exec, *pre, *key, *step;
} lod_kinds[3] = {
	{ "cpu", "cpu >= 0", LOD_EXEC, "", "cpus", "level of detail: level 0" },
	{ "pid", "pid > 0", LOD_PEXEC, "p", "pids", "level of detail: level 0 of the PID rows" },
	{ "rpc", "rpc > 0", LOD_REXEC, "r", "rpcs", "level of detail: level 0 of the RPC rows" },
};
#define LOD_VERSION KT_LOD_VERSION

/* STORE/lod/meta: "t0 t1" and the answer, kept with the pyramid (of
 * this LOD_VERSION: another one's answer is made again). */
/* 1 kept (t0, t1 and out set), 0 none kept (or of another version), -1
 * a damaged one (err: one line naming the file). */
static int lod_meta_kept(const char *store, int64_t *t0, int64_t *t1, struct kt_buf *out,
			 char *err, size_t errlen)
{
	char e2[8];
	long long a, b, q;
	int v = 0;
	size_t len = 0;
	FILE *f;

	/* Not there (or not a file of the store's own): made again. */
	if (!(f = kt_store_fopen(store, "lod/levels", e2, sizeof(e2))))
		return 0;
	int ok = fscanf(f, "%lld %lld %d", &q, &a, &v) == 3 && v == LOD_VERSION;

	fclose(f);
	if (!ok)
		return 0;
	if (!(f = kt_store_fopen(store, "lod/meta", err, errlen)))
		return -1;
	char *m = fscanf(f, "%lld %lld\n", &a, &b) == 2 ? kt_html_slurp(f, &len) : NULL;

	fclose(f);
	if (!m || len < 8 || strncmp(m, "{\"n\":", 5) != 0 || a < -LOD_T_MAX || a > LOD_T_MAX ||
	    b < a || b > LOD_T_MAX) {
		free(m);
		errf(err, errlen, "%s/lod/meta: damaged (its times out of range or no answer);"
		     " remove %s/lod to have it made again", store, store);
		return -1;
	}
	*t0 = a;
	*t1 = b;
	out->len = 0;
	kt_buf_add(out, m, len);
	free(m);
	return 1;
}

/* span with each row's number in the store's order, the page's: a
 * subquery, not a CTE, which DuckDB would materialize when read twice. */
#define LOD_SPAN_RN "(SELECT file_row_number AS rn, ts, dur, cpu, pid, rpc, event, arg, name" \
	" FROM read_parquet(%s, file_row_number = true))"
/* The latest end by rows x (the first of the rows ending last, as the
 * page's summary picks it, lib/page/pagelod.c): its ts and dur from one row.
 * The key is the end and the row number in one 128-bit integer (rows
 * below 2^40), not a list [end, -rn]: a list is built for every row, and
 * made the meta of 54 M spans three times slower. */
#define LOD_LAST_KEY "(ts + dur)::HUGEINT * 1099511627776 - rn"
#define LOD_LAST_END(x) " arg_max(ts, " LOD_LAST_KEY ") FILTER (WHERE " x ")," \
	" arg_max(dur, " LOD_LAST_KEY ") FILTER (WHERE " x ")"
/* put_extent's five columns of a row. */
#define LOD_EXTENT_COLS " count(*) FILTER (WHERE " LOD_EXEC_EV "), min(ts) FILTER (WHERE " LOD_EXEC_EV ")," \
	" min(ts) FILTER (WHERE event NOT IN (526, 527))," LOD_LAST_END("event NOT IN (526, 527)")

/*
 * The rows of one kind of /api/lodmeta, ",\"KEY\":[[id, execution spans,
 * first execution start, first start, latest end as start and duration
 * (, label)], ...]": the CPU rows by cpu, the PID rows by pid with the
 * label of their first user-mode span or mark, the RPC rows in the page's
 * order (of each id's first RPC point or mark) with the longest of their
 * names.  JavaScript's length counts UTF-16 units, length() code points:
 * the two differ on names with characters past U+FFFF only, which the
 * longest-name rule then may pick apart (such RPC names are not seen).
 */
static int lod_meta_rows(duckdb_connection c, const char *store, int kind, struct kt_buf *out,
			 char *err, size_t errlen)
{
	char *sql, *span = file_lit(store, "span.parquet", err, errlen);
	duckdb_result res;
	int failed = 0, first = 1;
	struct kt_buf esc = { 0 };

	if (!span)
		return -1;
	if (kind == 0)
		sql = sqlf(err, errlen, "SELECT cpu," LOD_EXTENT_COLS " FROM " LOD_SPAN_RN
			 " WHERE cpu >= 0 AND event >= 0 GROUP BY cpu ORDER BY cpu", span);
	else if (kind == 1)
		sql = sqlf(err, errlen, "SELECT pid," LOD_EXTENT_COLS ","
			 " arg_min(name, rn) FILTER (WHERE " LOD_PIDROW ") FROM " LOD_SPAN_RN
			 " WHERE pid > 0 AND event >= 0"
			 " GROUP BY pid HAVING count(*) FILTER (WHERE " LOD_PIDROW ") > 0 ORDER BY pid", span);
	else
		sql = sqlf(err, errlen,
			   "WITH p AS (SELECT CASE WHEN event IN (526, 527) THEN rpc ELSE arg END AS id, rn, name"
			   " FROM " LOD_SPAN_RN " WHERE ((event >= 513 AND event <= 515) OR (event IN (526, 527) AND rpc > 0))"
			   " AND name <> '.0'),"
			   " r AS (SELECT id, min(rn) AS o, arg_min(name, [-length(name)::BIGINT, rn]) AS label"
			   " FROM p WHERE id > 0 GROUP BY id)"
			   " SELECT r.id::INTEGER," LOD_EXTENT_COLS ", any_value(r.label)"
			   " FROM r LEFT JOIN " LOD_SPAN_RN " s ON s.rpc = r.id AND s.event >= 0 GROUP BY r.id, r.o ORDER BY r.o",
			   span, span);
	free(span);
	if (run_free(c, sql, &res, err, errlen) < 0)
		return -1;
	kt_buf_printf(out, ",\"%s\":[", lod_kinds[kind].key);
	for (duckdb_data_chunk ch; (ch = next_chunk(res, &failed, err, errlen));) {
		int32_t *id = IN(ch, 0, int32_t);
		duckdb_string_t *nm = kind ? IN(ch, 6, duckdb_string_t) : NULL;
		idx_t m = duckdb_data_chunk_get_size(ch);

		for (idx_t i = 0; i < m; i++) {
			kt_buf_printf(out, "%s[%d", first ? "" : ",", id[i]);
			put_extent(out, ch, i);
			if (nm) {
				uint32_t l = duckdb_string_t_length(nm[i]);

				if (esc.cap < 6 * (size_t)l + 1) {
					esc.p = kt_xrealloc(esc.p, 6 * (size_t)l + 1);
					esc.cap = 6 * (size_t)l + 1;
				}
				kt_buf_puts(out, ",\"");
				kt_buf_add(out, esc.p, kt_json_escape_mem(esc.p, duckdb_string_t_data(&nm[i]), l));
				kt_buf_puts(out, "\"");
			}
			kt_buf_puts(out, "]");
			first = 0;
		}
		duckdb_destroy_data_chunk(&ch);
	}
	duckdb_destroy_result(&res);
	kt_buf_free(&esc);
	if (failed)
		return -1;
	kt_buf_puts(out, "]");
	return 0;
}

int kt_store_lod_meta(duckdb_connection c, const char *store, int64_t *t0, int64_t *t1,
		      struct kt_buf *out, char *err, size_t errlen)
{
	char *span;
	duckdb_result res;
	int failed = 0;

	int kept = lod_meta_kept(store, t0, t1, out, err, errlen);

	if (kept)
		return kept > 0 ? 0 : -1;
	if (kt_store_file_ok(store, "span.parquet", err, errlen) < 0)
		return -1;

	/* Times in the page's 10 ns units, so that the viewer makes the same
	 * doubles of them as of its own rows (ts * 1e-8). */
	if (!(span = file_lit(store, "span.parquet", err, errlen)))
		return -1;
	char *sql = sqlf(err, errlen, "SELECT count(*), min(ts)," LOD_LAST_END("ts + dur < 999000000000")
			 " FROM " LOD_SPAN_RN, span);

	free(span);
	if (run_free(c, sql, &res, err, errlen) < 0)
		return -1;
	duckdb_data_chunk ch = next_chunk(res, &failed, err, errlen);

	out->len = 0;
	if (ch && duckdb_data_chunk_get_size(ch) == 1) {
		int64_t *n = IN(ch, 0, int64_t), *a = IN(ch, 1, int64_t), *e = IN(ch, 2, int64_t),
			*d = IN(ch, 3, int64_t);
		uint64_t *va = duckdb_vector_get_validity(duckdb_data_chunk_get_vector(ch, 2));
		int ok = !va || duckdb_validity_row_is_valid(va, 0);

		*t0 = n[0] ? a[0] : 0;
		*t1 = *t0 + 1;
		if (*t0 < -LOD_T_MAX || *t0 > LOD_T_MAX || (ok && (__builtin_add_overflow(e[0], d[0], t1) ||
							     *t1 < *t0 || *t1 > LOD_T_MAX))) {
			duckdb_destroy_data_chunk(&ch);
			duckdb_destroy_result(&res);
			errf(err, errlen, "%s/span.parquet: times out of range (first start %" PRId64
			     ", latest end %" PRId64 " + %" PRId64 " ns)", store, a[0], e[0], d[0]);
			return -1;
		}
		kt_buf_printf(out, "{\"n\":%" PRId64 ",\"t0\":%" PRId64 ",\"end\":[%" PRId64 ",%" PRId64 "]",
			      n[0], *t0 / 10, ok ? e[0] / 10 : -1, ok ? d[0] / 10 : 0);
	}
	if (ch)
		duckdb_destroy_data_chunk(&ch);
	duckdb_destroy_result(&res);
	if (failed || !out->len) {
		if (!failed)
			errf(err, errlen, "span: no answer");
		return -1;
	}
	for (int kind = 0; kind < 3; kind++)
		if (lod_meta_rows(c, store, kind, out, err, errlen) < 0)
			return -1;
	kt_buf_puts(out, "}");
	return 0;
}

/*
 * The pyramid (STORE/lod/): the bins of every level from q0 up, each
 * level one Parquet file ordered by bin, so that a tile reads only its
 * row groups instead of every span in its time: L.parquet those of the
 * CPU rows, pL.parquet those of the PID rows, rL.parquet those of the RPC
 * rows.  Level L + 1 is made from level L (the later child's last events
 * win: their ts are kept); the spans of 2 q0 or longer go apart
 * (long.parquet).  Written once, into
 * lod.tmp and renamed, so that a half-made pyramid is never read; the
 * store is rebuilt whole (a new directory), which takes its pyramid away.
 * A new store has it already, made as its rows were written (lodw.c);
 * this SQL makes it for older ones, and is the test of lodw.c.
 *
 * A bin's last event of a kind is that of its latest row of the kind,
 * of rows of the same start the later one in span (LOD_LAST_EV: ts and
 * the row number in one key), as lodw.c picks it.
 */
#define LOD_LAST_EV "ts::HUGEINT * 1099511627776 + rn"
#define LOD_BIN_COLS "coalesce(sum(dur) FILTER (WHERE k = 0), 0)::BIGINT AS i," \
	" coalesce(sum(dur) FILTER (WHERE k = 1), 0)::BIGINT AS u, coalesce(sum(dur) FILTER (WHERE k = 2), 0)::BIGINT AS kn," \
	" arg_max(event, " LOD_LAST_EV ") FILTER (WHERE k = 1) AS eu, max(ts) FILTER (WHERE k = 1) AS tu," \
	" arg_max(event, " LOD_LAST_EV ") FILTER (WHERE k = 2) AS ek, max(ts) FILTER (WHERE k = 2) AS tk, count(*) AS c"
#define LOD_UP_COLS "sum(i)::BIGINT AS i, sum(u)::BIGINT AS u, sum(kn)::BIGINT AS kn, arg_max(eu, tu) AS eu," \
	" max(tu) AS tu, arg_max(ek, tk) AS ek, max(tk) AS tk, sum(c)::BIGINT AS c"


/* COPY (query) TO dir/name as Parquet; query freed (NULL: sqlf's error).
 * Prepared, as every statement here: one statement, never more. */
static int copy_to(duckdb_connection c, char *query, const char *dir, const char *name,
		   char *err, size_t errlen)
{
	char *to = query ? file_lit(dir, name, err, errlen) : NULL;
	char *sql = to ? sqlf(err, errlen, "COPY (%s) TO %s (FORMAT parquet)", query, to) : NULL;
	duckdb_result res;
	int rc = run_free(c, sql, &res, err, errlen);

	if (rc == 0)
		duckdb_destroy_result(&res);
	free(to);
	free(query);
	return rc;
}

int kt_store_lod_pyramid(duckdb_connection c, const char *store, int64_t t0, int64_t t1,
			 const struct kt_buf *meta, struct kt_lodpyr *py, char *err, size_t errlen)
{
	char dir[4200], tmp[4300], name[64], path[4400];
	FILE *f;
	int levels = 0;
	int64_t q0 = 1;

	/* Level 0 has at most 2^18 bins per CPU: finer tiles (a 64th of the
	 * trace or less) come straight from span, whose row groups a tile's
	 * time range picks. */
	while (q0 < (int64_t)1 << 40 && (t1 - t0) / q0 > (1 << 18))
		q0 *= 2;
	snprintf(dir, sizeof(dir), "%s/lod", store);
	snprintf(py->dir, sizeof(py->dir), "%s", dir);
	py->store = store;
	if (t0 < -LOD_T_MAX || t1 < t0 || t1 > LOD_T_MAX) {
		errf(err, errlen, "%s: times out of range for the level of detail", store);
		return -1;
	}
	if ((f = kt_store_fopen(store, "lod/levels", tmp, sizeof(tmp)))) {
		long long a = 0, b = 0;
		int v = 0, ok = fscanf(f, "%lld %lld %d", &a, &b, &v) == 3 && a == q0 && b > 0 &&
				b < 64 && v == LOD_VERSION;

		fclose(f);
		if (ok) {
			py->q0 = q0;
			py->levels = (int)b;
			return 0;
		}
	}
	snprintf(tmp, sizeof(tmp), "%s/lod.tmp.%d", store, (int)getpid());
	if (kt_rmtree(tmp) < 0 || mkdir(tmp, 0777) < 0) {
		errf(err, errlen, "%s: %s", tmp, strerror(errno));
		return -1;
	}
	/* level 0 of the CPU rows (0.parquet), the PID rows (p0.parquet) and
	 * the RPC rows (r0.parquet) */
	char *span = file_lit(store, "span.parquet", err, errlen);

	if (!span)
		goto fail;
	for (int g = 0; g < 3; g++) {
		const struct lod_kind *k = &lod_kinds[g];

		kt_progress_step(k->step);
		snprintf(name, sizeof(name), "%s0.parquet", k->pre);
		if (copy_to(c, sqlf(err, errlen, "SELECT %s, (ts - %" PRId64 ") // %" PRId64 " AS b, "
				    LOD_BIN_COLS " FROM (SELECT %s, ts, dur, event, rn, " LOD_KIND " AS k"
				    " FROM " LOD_SPAN_RN " WHERE %s) GROUP BY ALL ORDER BY b, %s", k->col,
				    t0, q0, k->col, span, k->exec, k->col), tmp, name, err, errlen) < 0) {
			free(span);
			goto fail;
		}
	}
	if (copy_to(c, sqlf(err, errlen, "SELECT " ROW_COLS " FROM span WHERE " LOD_LONG
			    " AND dur >= %" PRId64, 2 * q0), tmp, "long.parquet", err, errlen) < 0) {
		free(span);
		goto fail;
	}
	if (copy_to(c, sqlf(err, errlen, "SELECT file_row_number AS rn, " ROW_COLS " FROM"
				     " read_parquet(%s, file_row_number = true) WHERE dur >= %" PRId64,
				     span, 2 * q0), tmp, "longrows.parquet", err, errlen) < 0) {
		free(span);
		goto fail;
	}
	free(span);
	for (int64_t q = q0; levels < 63; q *= 2) {
		levels++;
		if ((t1 - t0) / q < 2)
			break;
		kt_progress_step("level of detail: one level up");
		for (int g = 0; g < 3; g++) {
			const struct lod_kind *k = &lod_kinds[g];

			snprintf(name, sizeof(name), "%s%d.parquet", k->pre, levels - 1);
			char *from = file_lit(tmp, name, err, errlen);

			snprintf(name, sizeof(name), "%s%d.parquet", k->pre, levels);
			if (!from || copy_to(c, sqlf(err, errlen, "SELECT %s, b // 2 AS b, " LOD_UP_COLS
						     " FROM read_parquet(%s) GROUP BY ALL ORDER BY b, %s",
						     k->col, from, k->col), tmp, name, err, errlen) < 0) {
				free(from);
				goto fail;
			}
			free(from);
		}
	}
	/* levels last: its presence says the rest is complete */
	snprintf(path, sizeof(path), "%s/meta", tmp);
	if (!(f = fopen(path, "w")) || fprintf(f, "%" PRId64 " %" PRId64 "\n", t0, t1) < 0 ||
	    fwrite(meta->p, 1, meta->len, f) != meta->len || fclose(f) != 0) {
		errf(err, errlen, "%s: %s", path, strerror(errno));
		goto fail;
	}
	snprintf(path, sizeof(path), "%s/levels", tmp);
	if (!(f = fopen(path, "w")) || fprintf(f, "%" PRId64 " %d %d\n", q0, levels, LOD_VERSION) < 0 ||
	    fclose(f) != 0) {
		errf(err, errlen, "%s: %s", path, strerror(errno));
		goto fail;
	}
	if (kt_rmtree(dir) < 0 || rename(tmp, dir) < 0) {
		errf(err, errlen, "%s: %s", dir, strerror(errno));
		goto fail;
	}
	kt_progress_end();
	py->q0 = q0;
	py->levels = levels;
	return 0;
fail:
	kt_progress_end();
	kt_rmtree(tmp);
	return -1;
}

/* The bins of tile [a, b) of width q of one kind of rows (from its level
 * files L.parquet, pL.parquet or rL.parquet), as bins_json's {"ID":[...],
 * ...}. */
static int lod_bins(duckdb_connection c, const struct kt_lodpyr *py, int level,
		    const struct lod_kind *k, int64_t t0, int64_t q, int64_t a, int64_t b,
		    struct kt_buf *out, char *err, size_t errlen)
{
	const char *what = k->col;
	char *sql;
	duckdb_result res;
	int64_t lo = t0 + a * q, hi = t0 + b * q;	/* checked by kt_store_lod */

	/* One row per row, bin and kind: rows, ns, last event. */
	if (level >= 0) {
		char name[64], *f;

		snprintf(name, sizeof(name), "%s%d.parquet", k->pre, level);
		if (!(f = file_lit(py->dir, name, err, errlen)))
			return -1;
		sql = sqlf(err, errlen,
			   "SELECT %s, b, k, c, n, e FROM (SELECT %s, b, 0 AS k, c, i AS n, -1 AS e FROM"
			   " read_parquet(%s) WHERE b >= %" PRId64 " AND b < %" PRId64 " UNION ALL"
			   " SELECT %s, b, 1, 0, u, coalesce(eu, -1) FROM read_parquet(%s) WHERE b >= %" PRId64
			   " AND b < %" PRId64 " AND eu IS NOT NULL UNION ALL SELECT %s, b, 2, 0, kn, coalesce(ek, -1) FROM"
			   " read_parquet(%s) WHERE b >= %" PRId64 " AND b < %" PRId64
			   " AND ek IS NOT NULL) ORDER BY %s, b, k", what, what, f, a, b, what,
			   f, a, b, what, f, a, b, what);
		free(f);
	} else {
		sql = sqlf(err, errlen,
			   "SELECT %s, (ts - %" PRId64 ") // %" PRId64 " AS b, " LOD_KIND " AS k, count(*),"
			   " sum(dur)::BIGINT, arg_max(event, ts) FROM span WHERE %s AND ts >= %" PRId64
			   " AND ts < %" PRId64 " GROUP BY ALL ORDER BY %s, b, k", what, t0, q, k->exec, lo,
			   hi, what);
	}
	if (run_free(c, sql, &res, err, errlen) < 0)
		return -1;
	return bins_json(res, 0, out, err, errlen);
}

int kt_store_lod(duckdb_connection c, const struct kt_lodpyr *py, int64_t t0, int64_t q, int64_t a,
		 int64_t b, int grp, struct kt_buf *out, char *err, size_t errlen)
{
	char *sql, *lng = NULL;
	const struct lod_kind *k = &lod_kinds[grp >= 0 && grp < 3 ? grp : 0];
	const char *who = k->who, *rows = k->exec;
	int level = -1;

	/* A level of the pyramid, else straight from span. */
	for (int l = 0; py && l < py->levels; l++)
		if (py->q0 << l == q)
			level = l;
	int64_t lo, hi, aq, bq, q2, from;

	/* Every sum below, checked: the caller's numbers come from a request
	 * and t0 from a file. */
	if (q < 1 || a < 0 || b <= a || __builtin_mul_overflow(a, q, &aq) ||
	    __builtin_mul_overflow(b, q, &bq) || __builtin_add_overflow(t0, aq, &lo) ||
	    __builtin_add_overflow(t0, bq, &hi) || __builtin_mul_overflow(q, 2, &q2) ||
	    (py && __builtin_sub_overflow(lo, 2 * py->q0, &from))) {
		errf(err, errlen, "lod: bins [%" PRId64 ", %" PRId64 ") of %" PRId64 " ns from %" PRId64
		     " are out of range", a, b, q, t0);
		return -1;
	}
	/* The files DuckDB is to read: the store's own, regular. */
	if (py && kt_store_file_ok(py->store, "lod/long.parquet", err, errlen) < 0)
		return -1;
	if (level >= 0) {
		char rel[64];

		snprintf(rel, sizeof(rel), "lod/%s%d.parquet", k->pre, level);
		if (kt_store_file_ok(py->store, rel, err, errlen) < 0)
			return -1;
	}

	out->len = 0;
	kt_buf_printf(out, "{\"q\":%" PRId64 ",\"a\":%" PRId64 ",\"b\":%" PRId64 ",\"%s\":", q, a, b,
		      k->key);
	if (lod_bins(c, py, level, k, t0, q, a, b, out, err, errlen) < 0)
		return -1;
	kt_buf_puts(out, ",");
	/* The spans a pixel or longer are drawn in full over the bins: those
	 * of 2 bins or longer (a pixel is 4 to 8) that overlap the tile. */
	if (py && !(lng = file_lit(py->dir, "long.parquet", err, errlen)))
		return -1;
	if (level >= 0)
		sql = sqlf(err, errlen,
			   "SELECT " ROW_COLS " FROM read_parquet(%s) WHERE %s AND dur >= %" PRId64
			   " AND ts < %" PRId64 " AND ts + dur > %" PRId64 " ORDER BY cpu, ts", lng, who,
			   2 * q, hi, lo);
	else if (py)	/* those shorter than 2 q0 start after lo - 2 q0: only those row groups */
		sql = sqlf(err, errlen,
			   "SELECT * FROM (SELECT " ROW_COLS " FROM span WHERE %s AND dur >= %" PRId64
			   " AND dur < %" PRId64 " AND ts < %" PRId64 " AND ts > %" PRId64 " AND ts + dur > %" PRId64
			   " UNION ALL SELECT " ROW_COLS " FROM read_parquet(%s) WHERE %s AND ts < %" PRId64
			   " AND ts + dur > %" PRId64 ") ORDER BY cpu, ts", rows, 2 * q, 2 * py->q0, hi,
			   lo - 2 * py->q0, lo, lng, who, hi, lo);
	else
		sql = sqlf(err, errlen,
			   "SELECT " ROW_COLS " FROM span WHERE %s AND dur >= %" PRId64 " AND ts < %" PRId64
			   " AND ts + dur > %" PRId64 " ORDER BY cpu, ts", rows, 2 * q, hi, lo);
	free(lng);
	return rows_json(c, sql, "\"long\":", KT_ROWS_LONG_MAX, out, err, errlen);
}

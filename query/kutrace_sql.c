// SPDX-License-Identifier: BSD-3-Clause
/*
 * kutrace_sql - ask a trace in SQL (docs/TABLES.md).
 *
 *   kutrace_sql build X.trace|X.json [-o DIR]      write the table store
 *   kutrace_sql INPUT... -c "SQL" [--csv|--json]   one query
 *   kutrace_sql INPUT... --report NAME              a named report
 *   kutrace_sql INPUT... --export tsv|jsonl DIR     every table as text
 *   kutrace_sql INPUT...                            an interactive shell
 *
 * An INPUT is a store (a directory with meta.json), a glob of stores, or
 * a trace or JSON file, whose store is then built in a temporary
 * directory for this run.  A trace's rows come from kutrace_postproc
 * through a pipe (rowpipe.c): only this program links DuckDB.
 */
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <readline/history.h>
#include <readline/readline.h>

#include "tool.h"
#include "store.h"

/* DuckDB's memory limit by default: the program stays within 2 GB (a
 * build keeps its own buffers too: 100 M spans peak at 1.6 GB in all). */
#define KT_MEMORY "1500MB"
#define KT_BUILD_MEMORY "1GB"

/* ---------------------------------------------------------------------- */
/* Named reports: plain SQL over the tables (docs/TABLES.md, "Reports").   */
/* tests/clickhouse/reports/ has each in ClickHouse's SQL, with the same    */
/* answers (tests/t_clickhouse.sh): keep the two in step.                  */
/* ---------------------------------------------------------------------- */

static const struct report {
	const char *name, *what, *sql;
} reports[] = {
	{ "cpu", "user, kernel, idle and c-exit time per CPU, and the busy %",
	  "SELECT trace_id, cpu, user_ns, kernel_ns, idle_ns, cexit_ns,\n"
	  "  (20000 * (user_ns + kernel_ns) + total) // (2 * greatest(total, 1)) / 100 AS busy_pct\n"
	  "FROM (SELECT trace_id, cpu, user_ns, kernel_ns, idle_ns, cexit_ns,\n"
	  "  user_ns + kernel_ns + idle_ns + cexit_ns AS total FROM cpu)\n"
	  "ORDER BY trace_id, cpu" },
	{ "syscalls", "count, total, p50, p99 and max per system call",
	  "SELECT name, count(*) AS count, sum(dur) AS total_ns, quantile_disc(dur, 0.5) AS p50_ns,\n"
	  "  quantile_disc(dur, 0.99) AS p99_ns, max(dur) AS max_ns\n"
	  "FROM slice WHERE kind = 'syscall' GROUP BY name ORDER BY total_ns DESC, name" },
	{ "waits", "per thread, time by wait reason",
	  "SELECT w.trace_id, w.pid, coalesce(t.name, '') AS name, w.reason, w.ns, w.count\n"
	  "FROM (SELECT trace_id, pid, reason, sum(dur) AS ns, count(*) AS count FROM wait GROUP BY trace_id, pid, reason) w\n"
	  "LEFT JOIN thread t USING (trace_id, pid)\n"
	  "ORDER BY ns DESC, trace_id, pid, reason" },
	{ "rpc", "per method, count, p50, p99 and max latency, and the slowest ids",
	  "SELECT method, count(*) AS count, quantile_disc(latency, 0.5) AS p50_ns, quantile_disc(latency, 0.99) AS p99_ns,\n"
	  "  max(latency) AS max_ns,\n"
	  "  array_to_string(list_slice(list(trace_id || ':' || rpc::VARCHAR ORDER BY latency DESC, trace_id, rpc), 1, 3), ' ') AS slowest\n"
	  "FROM (SELECT trace_id, rpc, coalesce(min(method), '') AS method, max(end_ts) - min(begin_ts) AS latency\n"
	  "      FROM rpc WHERE rpc > 0 GROUP BY trace_id, rpc)\n"
	  "GROUP BY method ORDER BY p99_ns DESC, method" },
	{ "locks", "per lock, hold and wait totals and maxima",
	  "SELECT trace_id, lock, min(name) AS name,\n"
	  "  count(*) FILTER (WHERE kind = 'acquire') AS acquires,\n"
	  "  coalesce(sum(dur) FILTER (WHERE kind = 'held'), 0) AS hold_ns,\n"
	  "  coalesce(max(dur) FILTER (WHERE kind = 'held'), 0) AS hold_max_ns,\n"
	  "  coalesce(sum(dur) FILTER (WHERE kind = 'wait'), 0) AS wait_ns,\n"
	  "  coalesce(max(dur) FILTER (WHERE kind = 'wait'), 0) AS wait_max_ns,\n"
	  "  count(*) FILTER (WHERE kind = 'wait') AS waits\n"
	  "FROM lock GROUP BY trace_id, lock ORDER BY wait_ns DESC, hold_ns DESC, trace_id, lock" },
};

#define NREPORTS (sizeof(reports) / sizeof(reports[0]))

static const struct report *find_report(const char *name)
{
	for (size_t i = 0; i < NREPORTS; i++)
		if (strcmp(reports[i].name, name) == 0)
			return &reports[i];
	return NULL;
}

static void usage_build(FILE *f)
{
	fprintf(f,
		"usage: kutrace_sql build X.trace|X.json [-o DIR] [--trace-id ID] [--machine NAME]\n"
		"                         [--memory SIZE] [--stats] [--quiet | --progress]\n"
		"Writes the trace's table store (docs/TABLES.md): DIR (default X.tables) with\n"
		"one Parquet file per table and meta.json, replacing a store already there.\n"
		"The JSON may be kutrace's or the original KUtrace's.  --trace-id and --machine\n"
		"set the columns that tell stores apart (default: the file name without its\n"
		"extension; the trace's host name).  --memory caps DuckDB (default 1GB).\n"
		"--stats prints the time each step took.  On a terminal a progress line\n"
		"shows the rows and steps; --quiet: never, --progress: also when standard\n"
		"error is not a terminal.\n");
}

static int cmd_build(int argc, char **argv)
{
	struct kt_build b = { .memory = KT_BUILD_MEMORY, .rows_fd = ~0ULL };
	int quiet = 0, progress = 0;
	const struct kt_opt opts[] = {
		{ "o", KT_OPT_STR, &b.out, 0 },
		{ "trace-id", KT_OPT_STR, &b.trace_id, 0 },
		{ "machine", KT_OPT_STR, &b.machine, 0 },
		{ "memory", KT_OPT_STR, &b.memory, 0 },
		{ "source", KT_OPT_STR, &b.source, 0 },
		{ "rows-fd", KT_OPT_ULL, &b.rows_fd, 0 },
		{ "stats", KT_OPT_FLAG, &b.stats, 1 },
		{ "quiet", KT_OPT_FLAG, &quiet, 1 },
		{ "progress", KT_OPT_FLAG, &progress, 1 },
		{ NULL, 0, NULL, 0 },
	};
	const struct kt_argspec spec = { opts, usage_build, 0, 1, 0 };
	const char *pos[1] = { NULL };

	kt_args(&spec, argc, argv, pos);
	if (quiet && progress)
		kt_die("--quiet and --progress: one or the other");
	kt_progress_mode(quiet ? KT_PROGRESS_OFF : progress ? KT_PROGRESS_ON : KT_PROGRESS_AUTO);
	if (b.rows_fd != ~0ULL) {
		/* From kutrace_postproc --tables: the source names the trace. */
		if (b.rows_fd < 3 || b.rows_fd > INT_MAX || !b.out || !b.source)
			kt_die("--rows-fd needs a descriptor from 3 up, -o DIR and --source");
	} else {
		if (!pos[0]) {
			usage_build(stderr);
			exit(2);
		}
		b.source = pos[0];
	}
	char *dir = b.out ? kt_xstrdup(b.out) : kt_with_ext(b.source, ".tables");

	kt_xbuild_store(&b, dir);
	if (b.rows_fd == ~0ULL)
		fprintf(stderr, "kutrace_sql: tables -> %s\n", dir);
	free(dir);
	return 0;
}

/* ---------------------------------------------------------------------- */
/* Printing results                                                        */
/* ---------------------------------------------------------------------- */

enum fmt { F_TABLE, F_CSV, F_JSON };

static int is_number(duckdb_type t)
{
	switch (t) {
	case DUCKDB_TYPE_TINYINT: case DUCKDB_TYPE_SMALLINT: case DUCKDB_TYPE_INTEGER:
	case DUCKDB_TYPE_BIGINT: case DUCKDB_TYPE_HUGEINT: case DUCKDB_TYPE_UTINYINT:
	case DUCKDB_TYPE_USMALLINT: case DUCKDB_TYPE_UINTEGER: case DUCKDB_TYPE_UBIGINT:
	case DUCKDB_TYPE_UHUGEINT: case DUCKDB_TYPE_FLOAT: case DUCKDB_TYPE_DOUBLE:
	case DUCKDB_TYPE_DECIMAL:
		return 1;
	default:
		return 0;
	}
}

/* A CSV cell: quoted when it must be, and when empty (NULL is nothing). */
static void put_csv(FILE *f, const char *s)
{
	if (*s && !strpbrk(s, ",\"\n\r") && s[0] != ' ' && s[strlen(s) - 1] != ' ') {
		fputs(s, f);
		return;
	}
	putc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			putc('"', f);
		putc(*s, f);
	}
	putc('"', f);
}

static void put_json_str(FILE *f, const char *s)
{
	json_t *j = json_string(s);
	char *t = j ? json_dumps(j, JSON_ENCODE_ANY) : NULL;

	fputs(t ? t : "null", f);
	free(t);
	json_decref(j);
}

static void print_result(duckdb_result *r, enum fmt fmt, FILE *f)
{
	idx_t nc = duckdb_column_count(r), nr = duckdb_row_count(r);

	if (nc == 0)
		return;
	if (fmt == F_CSV) {
		for (idx_t c = 0; c < nc; c++) {
			if (c)
				putc(',', f);
			put_csv(f, duckdb_column_name(r, c));
		}
		putc('\n', f);
	}
	if (fmt == F_JSON)
		fputs("[", f);
	size_t *w = kt_xcalloc(nc, sizeof(*w));
	char **cells = NULL;

	if (fmt == F_TABLE) {
		/* Widths first: the table is printed once it is all read. */
		cells = kt_xcalloc((size_t)(nr + 1) * nc, sizeof(*cells));
		for (idx_t c = 0; c < nc; c++) {
			cells[c] = kt_xstrdup(duckdb_column_name(r, c));
			w[c] = strlen(cells[c]);
		}
		for (idx_t i = 0; i < nr; i++)
			for (idx_t c = 0; c < nc; c++) {
				char *v = duckdb_value_is_null(r, c, i) ? NULL : duckdb_value_varchar(r, c, i);
				char *s = kt_xstrdup(v ? v : "NULL");

				duckdb_free(v);
				cells[(i + 1) * nc + c] = s;
				if (strlen(s) > w[c])
					w[c] = strlen(s);
			}
		for (idx_t i = 0; i <= nr; i++) {
			for (idx_t c = 0; c < nc; c++) {
				const char *s = cells[i * nc + c];
				int right = i > 0 && is_number(duckdb_column_type(r, c));

				fprintf(f, "%s%*s%s", c ? "  " : "", right ? (int)w[c] : 0, right ? s : "",
					right ? "" : s);
				if (!right && c + 1 < nc)
					fprintf(f, "%*s", (int)(w[c] - strlen(s)), "");
				free(cells[i * nc + c]);
			}
			putc('\n', f);
			if (i == 0) {
				for (idx_t c = 0; c < nc; c++) {
					fputs(c ? "  " : "", f);
					for (size_t k = 0; k < w[c]; k++)
						putc('-', f);
				}
				putc('\n', f);
			}
		}
		free(cells);
		free(w);
		return;
	}
	for (idx_t i = 0; i < nr; i++) {
		if (fmt == F_JSON)
			fputs(i ? ",\n {" : "\n {", f);
		for (idx_t c = 0; c < nc; c++) {
			int null = duckdb_value_is_null(r, c, i);
			char *v = null ? NULL : duckdb_value_varchar(r, c, i);
			duckdb_type t = duckdb_column_type(r, c);

			if (fmt == F_CSV) {
				if (c)
					putc(',', f);
				if (v)
					put_csv(f, v);
			} else {
				if (c)
					fputs(", ", f);
				put_json_str(f, duckdb_column_name(r, c));
				fputs(": ", f);
				if (!v)
					fputs("null", f);
				else if (t == DUCKDB_TYPE_BOOLEAN || (is_number(t) && strspn(v, "-0123456789.e+") == strlen(v)))
					fputs(v, f);
				else
					put_json_str(f, v);
			}
			duckdb_free(v);
		}
		fputs(fmt == F_JSON ? "}" : "\n", f);
	}
	if (fmt == F_JSON)
		fputs(nr ? "\n]\n" : "]\n", f);
	free(w);
}

/* Every statement of sql in turn; the last one's rows are printed. */
static int run_sql(duckdb_connection c, const char *sql, enum fmt fmt)
{
	duckdb_extracted_statements ex = NULL;
	idx_t n = duckdb_extract_statements(c, sql, &ex);
	int rc = 0;

	if (n == 0) {
		const char *e = duckdb_extract_statements_error(ex);

		fprintf(stderr, "kutrace_sql: SQL error: %.*s\n", e ? (int)strcspn(e, "\n") : 5,
			e ? e : "empty");
		duckdb_destroy_extracted(&ex);
		return -1;
	}
	for (idx_t i = 0; i < n && rc == 0; i++) {
		duckdb_prepared_statement ps = NULL;
		duckdb_result r;

		if (duckdb_prepare_extracted_statement(c, ex, i, &ps) == DuckDBError) {
			const char *e = duckdb_prepare_error(ps);

			fprintf(stderr, "kutrace_sql: SQL error: %.*s\n", (int)strcspn(e, "\n"), e);
			rc = -1;
		} else if (duckdb_execute_prepared(ps, &r) == DuckDBError) {
			const char *e = duckdb_result_error(&r);

			fprintf(stderr, "kutrace_sql: SQL error: %.*s\n", (int)strcspn(e, "\n"), e);
			duckdb_destroy_result(&r);
			rc = -1;
		} else {
			if (i + 1 == n)
				print_result(&r, fmt, stdout);
			duckdb_destroy_result(&r);
		}
		duckdb_destroy_prepare(&ps);
	}
	duckdb_destroy_extracted(&ex);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "kutrace_sql: standard output: %s\n", strerror(errno));
		return -1;
	}
	return rc;
}

/* ---------------------------------------------------------------------- */
/* Export                                                                  */
/* ---------------------------------------------------------------------- */

/* One table as TSV (ClickHouse's TabSeparatedWithNames) or JSON lines. */
static int has_view(duckdb_connection c, const char *t)
{
	duckdb_result r;
	char *q = kt_sql_str("%s", t), *sql = NULL;
	int n = 0;

	if (!q || asprintf(&sql, "SELECT count(*) FROM duckdb_views() WHERE view_name = %s", q) < 0)
		kt_die("out of memory");
	if (duckdb_query(c, sql, &r) != DuckDBError)
		n = (int)duckdb_value_int64(&r, 0, 0);
	duckdb_destroy_result(&r);
	free(sql);
	free(q);
	return n > 0;
}

static void export_table(duckdb_connection c, const char *t, const char *fmt, const char *dir)
{
	duckdb_result r;
	char *sql = NULL, *path = NULL, *tmp = NULL, *to;
	struct kt_buf sel = { 0 };

	if (asprintf(&sql, "DESCRIBE %s", t) < 0 || duckdb_query(c, sql, &r) == DuckDBError)
		kt_die("%s: %s", t, duckdb_result_error(&r));
	for (idx_t i = 0; i < duckdb_row_count(&r); i++) {
		char *raw = duckdb_value_varchar(&r, 0, i), *type = duckdb_value_varchar(&r, 1, i);
		/* A column's name comes from a store's file, and a store may come
		 * from anyone: ("x", (SELECT ...) AS "y" must stay a name). */
		char *col = kt_sql_ident(raw);

		if (!col)
			kt_die("out of memory");

		kt_buf_puts(&sel, i ? ", " : "");
		if (strcmp(fmt, "tsv") == 0 && strcmp(type, "VARCHAR") == 0)
			/* TSV's escapes: backslash, tab, newline, carriage return. */
			kt_buf_printf(&sel, "replace(replace(replace(replace(%s, '\\', '\\\\'), "
				      "chr(9), '\\t'), chr(10), '\\n'), chr(13), '\\r') AS %s",
				      col, col);
		else if (strcmp(fmt, "tsv") == 0 && strcmp(type, "BOOLEAN") == 0)
			kt_buf_printf(&sel, "CAST(%s AS INTEGER) AS %s", col, col);
		else
			kt_buf_printf(&sel, "%s", col);
		free(col);
		duckdb_free(raw);
		duckdb_free(type);
	}
	duckdb_destroy_result(&r);
	free(sql);
	if (asprintf(&path, "%s/%s.%s", dir, t, fmt) < 0 || asprintf(&tmp, "%s.tmp", path) < 0)
		kt_die("out of memory");
	kt_unlink_on_die(tmp);
	if (!(to = kt_sql_str("%s", tmp)) ||
	    asprintf(&sql, "COPY (SELECT %s FROM %s) TO %s (FORMAT %s)", sel.p, t, to,
		     strcmp(fmt, "tsv") == 0 ?
		     "csv, DELIMITER '\t', HEADER, QUOTE '', ESCAPE '', NULLSTR '\\N'" :
		     "json") < 0)
		kt_die("out of memory");
	if (duckdb_query(c, sql, &r) == DuckDBError)
		kt_die("%s: %.*s", path, (int)strcspn(duckdb_result_error(&r), "\n"),
		       duckdb_result_error(&r));
	duckdb_destroy_result(&r);
	if (rename(tmp, path) < 0)
		kt_die("%s: %s", path, strerror(errno));
	kt_unlink_forget(tmp);
	free(sql);
	free(sel.p);
	free(path);
	free(tmp);
	free(to);
}

/* ---------------------------------------------------------------------- */
/* The interactive shell                                                   */
/* ---------------------------------------------------------------------- */

static void shell(duckdb_connection c, enum fmt fmt)
{
	char *hist = NULL;
	const char *home = getenv("HOME");
	struct kt_buf q = { 0 };

	if (home && asprintf(&hist, "%s/.kutrace_sql_history", home) > 0)
		read_history(hist);
	printf("kutrace_sql: SQL over the trace's tables (docs/TABLES.md).  End a statement "
	       "with ';'.\n.tables, .schema [TABLE], .reports, .quit\n");
	for (;;) {
		char *line = readline(q.len ? "   ...> " : "kutrace> ");

		if (!line)
			break;
		if (!q.len && line[0] == '.') {
			char cmd[32] = "", arg[128] = "";

			add_history(line);
			sscanf(line, ".%31s %127s", cmd, arg);
			free(line);
			if (strcmp(cmd, "quit") == 0 || strcmp(cmd, "exit") == 0)
				break;
			char *sql = NULL;

			if (strcmp(cmd, "tables") == 0)
				sql = kt_xstrdup("SELECT table_name AS name FROM information_schema.tables "
						 "ORDER BY table_name");
			else if (strcmp(cmd, "schema") == 0 && arg[0]) {
				char *t = kt_sql_str("%s", arg);

				if (!t || asprintf(&sql, "SELECT column_name, data_type FROM "
						   "information_schema.columns WHERE table_name = %s "
						   "ORDER BY ordinal_position", t) < 0)
					kt_die("out of memory");
				free(t);
			} else if (strcmp(cmd, "schema") == 0)
				sql = kt_xstrdup("SELECT table_name, string_agg(column_name || ' ' || "
						 "data_type, ', ' ORDER BY ordinal_position) AS columns FROM "
						 "information_schema.columns GROUP BY table_name ORDER BY 1");
			else if (strcmp(cmd, "reports") == 0) {
				for (size_t i = 0; i < NREPORTS; i++)
					printf("%-9s %s\n", reports[i].name, reports[i].what);
				continue;
			} else {
				printf("unknown command .%s (.tables, .schema, .reports, .quit)\n", cmd);
				continue;
			}
			run_sql(c, sql, fmt);
			free(sql);
			continue;
		}
		if (q.len)
			kt_buf_puts(&q, "\n");
		kt_buf_puts(&q, line);
		free(line);
		const char *end = q.p + q.len;

		while (end > q.p && strchr(" \t\r\n", end[-1]))
			end--;
		if (end > q.p && end[-1] == ';') {
			add_history(q.p);
			run_sql(c, q.p, fmt);
			q.len = 0;
			q.p[0] = '\0';
		}
	}
	if (hist) {
		write_history(hist);
		free(hist);
	}
	free(q.p);
}

/* ---------------------------------------------------------------------- */

static void usage(FILE *f)
{
	fprintf(f,
		"usage: kutrace_sql INPUT... [-c SQL | --report NAME | --export tsv|jsonl DIR]\n"
		"                   [--csv | --json] [--show-sql] [--memory SIZE]\n"
		"       kutrace_sql build X.trace|X.json [-o DIR] (kutrace_sql build --help)\n"
		"Asks the trace in SQL.  An INPUT is a table store (a directory; \"kutrace_sql\n"
		"build\" or \"kutrace_postproc --tables\" writes one), a glob of stores (quoted:\n"
		"'fleet/*/*'), or a trace or JSON file, whose tables are then built for this run.\n"
		"Many inputs are one set of tables, told apart by their trace_id and machine\n"
		"columns.  The tables and columns: docs/TABLES.md.\n"
		"  -c SQL          run SQL (several statements: the last one's rows are printed)\n"
		"  --csv, --json   print CSV (a header line, then rows) or a JSON array\n"
		"  --report NAME   a named report: cpu, syscalls, waits, rpc, locks\n"
		"  --show-sql      print the report's SQL instead of running it\n"
		"  --export F DIR  every table to DIR/TABLE.tsv (TabSeparatedWithNames) or .jsonl\n"
		"  --memory SIZE   DuckDB's memory limit (default 1500MB)\n"
		"With none of -c, --report, --export: an interactive shell (history in\n"
		"~/.kutrace_sql_history; .tables, .schema, .reports, .quit).\n");
}

int main(int argc, char **argv)
{
	kt_set_progname(argv[0]);
	if (argc > 1 && strcmp(argv[1], "build") == 0)
		return cmd_build(argc - 1, argv + 1);

	const char *sql = NULL, *report = NULL, *export = NULL, *memory = KT_MEMORY;
	int csv = 0, json = 0, show = 0;
	const struct kt_opt opts[] = {
		{ "c", KT_OPT_STR, &sql, 0 },
		{ "csv", KT_OPT_FLAG, &csv, 1 },
		{ "json", KT_OPT_FLAG, &json, 1 },
		{ "report", KT_OPT_STR, &report, 0 },
		{ "show-sql", KT_OPT_FLAG, &show, 1 },
		{ "export", KT_OPT_STR, &export, 0 },
		{ "memory", KT_OPT_STR, &memory, 0 },
		{ NULL, 0, NULL, 0 },
	};
	const struct kt_argspec spec = { opts, usage, 0, KT_MAX_INPUTS, 0 };
	static const char *pos[KT_MAX_INPUTS];
	const struct report *rep = NULL;
	int npos = kt_args(&spec, argc, argv, pos);

	if (report && !(rep = find_report(report)))
		kt_die("--report %s: no such report (cpu, syscalls, waits, rpc, locks)", report);
	if (show) {
		if (!rep)
			kt_die("--show-sql goes with --report NAME");
		printf("%s;\n", rep->sql);
		return 0;
	}
	if ((sql != NULL) + (rep != NULL) + (export != NULL) > 1)
		kt_die("one of -c, --report, --export at a time");
	if (csv && json)
		kt_die("one of --csv, --json");
	/* --export DIR takes the directory as the last argument. */
	const char *xdir = NULL;

	if (export) {
		if (strcmp(export, "tsv") != 0 && strcmp(export, "jsonl") != 0)
			kt_die("--export %s: tsv or jsonl", export);
		if (npos < 2)
			kt_die("--export %s: give the inputs, then the output directory", export);
		xdir = pos[--npos];
	}
	if (npos == 0) {
		usage(stderr);
		return 2;
	}
	static struct kt_inputs in;

	kt_xopen_inputs(&in, pos, npos, memory);
	char err[512] = "";
	struct kt_db *db = kt_db_open(in.v, in.n, memory, err, sizeof(err));

	if (!db)
		kt_die("%s", err);
	duckdb_connection c = kt_db_conn(db);
	enum fmt fmt = csv ? F_CSV : json ? F_JSON : F_TABLE;
	int rc = 0;

	if (xdir) {
		if (mkdir(xdir, 0777) < 0 && errno != EEXIST)
			kt_die("%s: %s", xdir, strerror(errno));
		for (int t = 0; kt_store_tables[t]; t++)
			export_table(c, kt_store_tables[t], export, xdir);
		/* An optional table where the stores have it (a view then). */
		for (int t = 0; kt_store_optional[t]; t++)
			if (has_view(c, kt_store_optional[t]))
				export_table(c, kt_store_optional[t], export, xdir);
		fprintf(stderr, "kutrace_sql: %s -> %s/\n", export, xdir);
	} else if (sql || rep) {
		rc = run_sql(c, sql ? sql : rep->sql, fmt) < 0;
	} else {
		shell(c, fmt);
	}
	kt_db_close(db);
	for (size_t i = 0; i < in.n; i++)
		free(in.v[i]);
	return rc;
}

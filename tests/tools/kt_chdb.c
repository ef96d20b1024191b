// SPDX-License-Identifier: BSD-3-Clause
/*
 * kt_chdb LIBCHDB SQLFILE - one query through ClickHouse's engine as a
 * library (libchdb.so, tests/deps/chdb.sh), its answer as CSVWithNames on
 * stdout.  t_chdb runs the reports' SQL with it on a store's Parquet
 * files (file('STORE/span.parquet', Parquet)): a current ClickHouse must
 * read what lib/store/parquet.c writes.
 *
 * The library is dlopen'd, not linked: it is 570 MB that only this test
 * needs, and chdb publishes no header, so the calls used are declared
 * here (chdb.h of chdb 3.x: handles are opaque pointers).
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tool.h"

typedef void *(*connect_fn)(int argc, char **argv);
typedef void (*close_fn)(void *conn);
typedef void *(*query_fn)(void *conn, const char *query, const char *format);
typedef char *(*buffer_fn)(void *result);
typedef size_t (*length_fn)(void *result);
typedef const char *(*error_fn)(void *result);
typedef void (*destroy_fn)(void *result);

static void *sym(void *lib, const char *name)
{
	void *p = dlsym(lib, name);

	if (!p)
		kt_die("%s: %s", name, dlerror());
	return p;
}

int main(int argc, char **argv)
{
	kt_set_progname(argv[0]);
	if (argc == 2 && strcmp(argv[1], "--help") == 0) {
		printf("usage: kt_chdb LIBCHDB SQLFILE\n"
		       "  runs SQLFILE's one query in libchdb.so, prints CSVWithNames\n");
		return 0;
	}
	if (argc != 3)
		kt_die("usage: kt_chdb LIBCHDB SQLFILE (--help)");
	char *sql = NULL;
	size_t n = 0;
	FILE *f = fopen(argv[2], "r");

	if (!f)
		kt_die("%s: cannot open", argv[2]);
	FILE *m = open_memstream(&sql, &n);
	char buf[4096];
	size_t got;

	while (m && (got = fread(buf, 1, sizeof(buf), f)) > 0)
		fwrite(buf, 1, got, m);
	fclose(f);
	if (!m || fclose(m) != 0)
		kt_die("%s: out of memory", argv[2]);
	/* ClickHouse takes one statement: no trailing semicolon. */
	while (n > 0 && strchr(" \t\n;", sql[n - 1]))
		sql[--n] = 0;

	void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);

	if (!lib)
		kt_die("%s", dlerror());
	connect_fn chdb_connect = (connect_fn)sym(lib, "chdb_connect");
	close_fn chdb_close_conn = (close_fn)sym(lib, "chdb_close_conn");
	query_fn chdb_query = (query_fn)sym(lib, "chdb_query");
	buffer_fn chdb_result_buffer = (buffer_fn)sym(lib, "chdb_result_buffer");
	length_fn chdb_result_length = (length_fn)sym(lib, "chdb_result_length");
	error_fn chdb_result_error = (error_fn)sym(lib, "chdb_result_error");
	destroy_fn chdb_destroy_query_result = (destroy_fn)sym(lib, "chdb_destroy_query_result");

	char *cargv[] = { "clickhouse", NULL };
	void **conn = chdb_connect(1, cargv);

	if (!conn || !*conn)
		kt_die("cannot start the engine");
	void *r = chdb_query(*conn, sql, "CSVWithNames");
	const char *e = r ? chdb_result_error(r) : "no result";
	int rc = 0;

	if (e && *e) {
		/* ClickHouse's messages run over lines: the first says what. */
		fprintf(stderr, "%s: %s: %.*s\n", kt_progname(), argv[2], (int)strcspn(e, "\n"), e);
		rc = 1;
	} else {
		fwrite(chdb_result_buffer(r), 1, chdb_result_length(r), stdout);
	}
	if (r)
		chdb_destroy_query_result(r);
	chdb_close_conn(conn);
	free(sql);
	if (fflush(stdout) != 0)
		kt_die("stdout: write error");
	return rc;
}

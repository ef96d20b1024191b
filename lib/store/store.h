/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * store.h - the table store (docs/TABLES.md): a trace's rows as Parquet
 * tables, written from the row stream and opened for SQL, on DuckDB.
 *
 * Only the programs that answer SQL (kutrace_sql) link this and DuckDB;
 * the postprocessor hands its rows to them through rowpipe.c.  Errors are
 * one line in the caller's buffer, naming the file or table.
 */
#ifndef KUTRACE_STORE_H
#define KUTRACE_STORE_H

#include <stddef.h>
#include <stdio.h>

#include "duckdb.h"
#include "rows.h"

/* A reader refuses a store whose meta.json says a higher version. */
#define KT_STORE_VERSION 1

/* The tables, in the order they are written and documented. */
extern const char *const kt_store_tables[];
/* Tables other programs add to a store later (critical_path), if any. */
extern const char *const kt_store_optional[];

struct kt_store_meta {
	const char *trace_id, *machine;	/* every table's last two columns */
	const char *kernel, *cpu_model, *tracebase, *backend, *source;
	int mbit_sec;
	unsigned int flags;
	/*
	 * The source file's identity, kept in meta.json as "source_identity"
	 * (a trace's X.tables is reused only while they match): its size,
	 * mtime in ns and a hash of its first and last 64 KiB; none when
	 * source_hash is NULL.
	 */
	long long source_size, source_mtime_ns;
	const char *source_hash;
};

/*
 * Writing.  kt_store_w_new prepares DIR (written as DIR.tmp.PID, renamed
 * over DIR when complete; an existing DIR must be a store); rows go in any
 * order; kt_store_w_finish derives every table, writes the Parquet files
 * and meta.json and renames.  kt_store_w_free removes whatever is not
 * finished.  memory_limit is DuckDB's ("2GB"), NULL for its default.
 */
struct kt_store_w;
struct kt_store_w *kt_store_w_new(const char *dir, const char *memory_limit,
				  char *err, size_t errlen);
int kt_store_w_row(struct kt_store_w *w, const struct kt_row *r);
int kt_store_w_finish(struct kt_store_w *w, const struct kt_store_meta *m);
const char *kt_store_w_error(const struct kt_store_w *w);
/* Print each step's time to f (kutrace_sql build --stats). */
void kt_store_w_stats(struct kt_store_w *w, FILE *f);
/* Show each step on the progress line (progress.c decides where it is drawn). */
void kt_store_w_progress(struct kt_store_w *w, int on);
void kt_store_w_free(struct kt_store_w *w);

/*
 * A store's own files, read by C code or handed to DuckDB.  rel is a
 * path under store ("meta.json", "lod/meta"; no "." or ".." parts): no
 * part of it may be a symbolic link, and it must be a regular file (a
 * FIFO would block the reader, a link could lead out of the store).
 * kt_store_open: the file opened for reading (never blocking on the
 * opening), or -1; kt_store_fopen the same as a FILE; kt_store_file_ok:
 * 0 if it is such a file (checked before a path goes to DuckDB, which
 * opens it itself), else -1.  On failure one line naming the file in err,
 * and errno: ENOENT (not there), ELOOP (a link), EINVAL (not a regular
 * file), or the system's.
 */
int kt_store_open(const char *store, const char *rel, char *err, size_t errlen);
FILE *kt_store_fopen(const char *store, const char *rel, char *err, size_t errlen);
int kt_store_file_ok(const char *store, const char *rel, char *err, size_t errlen);

/*
 * DuckDB reads *, ? and [ in a file's path as a pattern of file names
 * (read_parquet, parquet_file_metadata; no escape takes them as
 * themselves): a store named "s*.tables" would read "sX.tables/" too,
 * "s[ab].tables" only "sa.tables/".  0 if path holds none of them, else
 * -1 with one line in err.  Every store read or written checks its path
 * (kt_db_open, kt_store_w_new, storeview's files) before DuckDB sees it.
 */
int kt_store_globfree(const char *path, char *err, size_t errlen);

/*
 * Reading: a DuckDB connection where every table is a view over the
 * Parquet files of all the stores named (checked first: meta.json's
 * version, each file present and whole).
 */
struct kt_db;
struct kt_db *kt_db_open(char *const *stores, size_t n, const char *memory_limit,
			 char *err, size_t errlen);
duckdb_connection kt_db_conn(struct kt_db *db);

/*
 * Add (or replace) table in store: file (a Parquet file on the same file
 * system, renamed into place) and its row count in meta.json.
 */
int kt_store_put_table(const char *store, const char *table, const char *file, uint64_t rows,
		       char *err, size_t errlen);
void kt_db_close(struct kt_db *db);

/*
 * The programs' side (tool_store.c): these end the program with kt_die.
 */
struct kt_build {
	const char *out, *trace_id, *machine, *memory, *source;
	unsigned long long rows_fd;	/* ~0: none */
	int stats;
	/* Set by kt_xbuild_store: the source file's identity (kt_store_meta). */
	long long source_size, source_mtime_ns;
	const char *source_hash;
};
/* DIR from b->source (a trace or a JSON file), or from b->rows_fd. */
void kt_xbuild_store(const struct kt_build *b, const char *dir);
/* Remove dir and everything under it; 0 also when it is not there. */
int kt_rmtree(const char *dir);

#define KT_MAX_INPUTS 4096
struct kt_inputs {
	char *v[KT_MAX_INPUTS];	/* store directories */
	size_t n;
};
/* Stores, globs of stores, traces and JSON files to store directories. */
void kt_xopen_inputs(struct kt_inputs *in, const char **args, int n, const char *memory);

/*
 * Text made into SQL: every path and every name that comes from a file,
 * an argument or the environment goes into SQL through one of these, never
 * through a bare %s (a store named "x'; COPY ... TO 'f'; --" would run its
 * own statements).  kt_sql_str: what fmt makes, as a string literal, '...'
 * with each ' doubled; DuckDB's literals take every other byte as itself
 * (a backslash, a newline, ", ;, --).  kt_sql_ident: s as an identifier,
 * "..." with each " doubled.  Both malloc'd; NULL when out of memory.
 */
char *kt_sql_str(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *kt_sql_ident(const char *s);

/* The DuckDB settings every connection gets: no network, no extensions
 * installed or loaded behind the user's back. */
int kt_duckdb_open(duckdb_database *db, const char *memory_limit, const char *temp_dir,
		   char *err, size_t errlen);

/*
 * What the viewer's server reads (storeview.c).  Each returns 0, or -1
 * with one line in err.
 */
/* Is store still there (its meta.json)? */
int kt_store_present(const char *store, char *err, size_t errlen);
/* The timeline page of the store's spans (at most max; 0 no limit) to out,
 * from the viewer template tpl: kutrace_postproc's page of the same rows;
 * no_rows: the page without rows (the viewer draws from summaries). */
int kt_store_page(duckdb_connection c, const char *store, const char *tpl, uint64_t max,
		  int no_rows, FILE *out, char *err, size_t errlen);
/*
 * Per-CPU summaries of [t0, t1) ns in n buckets, as JSON into out:
 * {"t0","t1","n","cpus":{"CPU":[[bucket, kind, rows, idle_ns, user_ns,
 * kernel_ns, last_user_event, last_kernel_event], ...]}}.  A bucket holds
 * the execution rows that start in it; kind (0 idle, 1 user, 2 kernel) is
 * the viewer's pick for a pixel of them (docs/spec/VIEWER.md 3.4).
 */
struct kt_buf;
int kt_store_tiles(duckdb_connection c, int64_t t0, int64_t t1, int n, struct kt_buf *out,
		   char *err, size_t errlen);


/*
 * The viewer's level of detail (docs/spec/VIEWER.md 3.4.1), times in ns
 * in, 10 ns units out (the page's).  kt_store_lod_meta: {"n", "t0",
 * "end":[ts, dur of the latest end], "cpus":[[cpu, execution spans, first
 * execution start, first start, latest end's ts and dur], ...]} and the
 * first start t0 and latest end t1 in ns; then "pids":[[pid, the same
 * five, label], ...] of every PID row, "rpcs":[[id, the same five, label],
 * ...] of every RPC row in the page's order.  kt_store_lod: the execution spans
 * of bins [a, b) of q ns from t0, per CPU {"q","a","b","cpus":{"CPU":[[bin,
 * idle_ns, user_ns, kernel_ns, last_user_event, last_kernel_event, rows],
 * ...]}, "long":[rows of 2q or longer overlapping the bins], "more"}; with
 * grp 1 per pid > 0 ("pids":{"PID":...}, the long rows of pid > 0), with
 * grp 2 per rpc > 0 ("rpcs":{"RPC":...}, the long rows of rpc > 0).
 */
#define KT_ROWS_LONG_MAX 200000L
int kt_store_lod_meta(duckdb_connection c, const char *store, int64_t *t0, int64_t *t1,
		      struct kt_buf *out, char *err, size_t errlen);
/* The precomputed bins (STORE/lod/, made if missing): levels from q0 ns;
 * kt_store_lod_meta's answer (meta) is kept there too, and read back. */
struct kt_lodpyr {
	const char *store;	/* the store it belongs to */
	char dir[4200];
	int64_t q0;
	int levels;
};
int kt_store_lod_pyramid(duckdb_connection c, const char *store, int64_t t0, int64_t t1,
			 const struct kt_buf *meta, struct kt_lodpyr *py, char *err, size_t errlen);
/*
 * The same pyramid and answer made as the rows are written (lodw.c): the
 * store writer feeds every row to kt_lodw_row, in the store's order, and
 * kt_lodw_finish writes STORE/lod/ (store: the directory being written)
 * if the rows came in time order: 0 written, 1 not (the viewer makes it
 * with SQL), -1 a failure, one line in err.
 */
#define KT_LOD_VERSION 5	/* what STORE/lod/ holds; another version is made again */
struct kt_lodw;
struct kt_lodw *kt_lodw_new(void);
void kt_lodw_row(struct kt_lodw *l, const struct kt_row *r);
int kt_lodw_finish(struct kt_lodw *l, const char *store, char *err, size_t errlen);
void kt_lodw_free(struct kt_lodw *l);

/* py: the pyramid, or NULL (every tile from span). */
int kt_store_lod(duckdb_connection c, const struct kt_lodpyr *py, int64_t t0, int64_t q, int64_t a,
		 int64_t b, int grp, struct kt_buf *out, char *err, size_t errlen);

/* The rows of cpu (every cpu if < 0) that overlap [t0, t1) ns, at most
 * limit, in the store's order, as JSON rows (docs/spec/FORMATS.md
 * 5.10.2): {"rows":[...],"more":false}; py: the pyramid (its long rows),
 * or NULL. */
int kt_store_rows(duckdb_connection c, const struct kt_lodpyr *py, int cpu, int64_t t0,
		  int64_t t1, long limit, struct kt_buf *out, char *err, size_t errlen);

#endif /* KUTRACE_STORE_H */

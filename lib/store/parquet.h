/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * parquet.h - a small streaming Parquet writer (lib/store/parquet.c) for the
 * table store's big tables, written row by row as the rows arrive, in
 * bounded memory: flat schemas of INT32, INT64 and UTF-8 strings, each
 * column REQUIRED or OPTIONAL, one data page per column and row group in
 * the encoding that makes it smallest (DELTA_BINARY_PACKED,
 * RLE_DICTIONARY with its dictionary page, or PLAIN), zstd where it pays,
 * min/max statistics for the integer columns.  Readers (DuckDB, Spark,
 * ClickHouse ...) need nothing more.
 *
 * Errors: every call after the first failure returns -1; kt_pq_error()
 * is the one-line reason, naming the file.
 */
#ifndef KUTRACE_PARQUET_H
#define KUTRACE_PARQUET_H

#include <stddef.h>
#include <stdint.h>

enum kt_pq_type { KT_PQ_I32, KT_PQ_I64, KT_PQ_STR };

struct kt_pq_col {
	const char *name;
	enum kt_pq_type type;
	int nullable;
	int constant;	/* one string for every row, given by kt_pq_const */
};

struct kt_pq;
/* ncols columns; rows go out in row groups of group_rows. */
struct kt_pq *kt_pq_open(const char *path, const struct kt_pq_col *cols, int ncols,
			 size_t group_rows, char *err, size_t errlen);
/*
 * A file read back once and deleted (a spill): every column written the
 * fastest way, integers DELTA_BINARY_PACKED, the rest PLAIN with zstd,
 * no trial of the smaller encodings.  Before the first row.
 */
void kt_pq_spill(struct kt_pq *w);
/* One value of the current row for column c, in column order or not. */
void kt_pq_i32(struct kt_pq *w, int c, int32_t v);
void kt_pq_i64(struct kt_pq *w, int c, int64_t v);
void kt_pq_str(struct kt_pq *w, int c, const char *s, size_t n);
void kt_pq_null(struct kt_pq *w, int c);
/*
 * The value of a constant column (a string), any time before close: its
 * chunks are written last, so it may be known only at the end.
 */
int kt_pq_const(struct kt_pq *w, int c, const char *s);
/* The row is complete (every column given a value or NULL). */
int kt_pq_row(struct kt_pq *w);
uint64_t kt_pq_rows(const struct kt_pq *w);
/* Write the last row group and the footer; 0 or -1.  Frees w. */
int kt_pq_close(struct kt_pq *w, char *err, size_t errlen);
/* Drop w and its file (a failure elsewhere). */
void kt_pq_abort(struct kt_pq *w);
const char *kt_pq_error(const struct kt_pq *w);

/*
 * Any Parquet file's footer checked before a reader trusts it: "PAR1" at
 * both ends, and every count and length the footer declares within its
 * bytes.  f is the file opened for reading (kt_store_fopen), closed
 * here; path names it.  0, or -1 with a line naming the file in err.
 */
int kt_pq_check_footer(FILE *f, const char *path, char *err, size_t errlen);

#endif /* KUTRACE_PARQUET_H */

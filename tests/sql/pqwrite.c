// SPDX-License-Identifier: BSD-3-Clause
/*
 * pqwrite - the Parquet writer (lib/store/parquet.c) under test: writes N rows
 * of values chosen to be hard (the extremes of each type, wrapping
 * deltas, long and empty strings, NULL runs, a constant column) to
 * OUT.parquet in row groups of G rows, and the same rows as CSV to
 * stdout, as `COPY ... (FORMAT csv)` prints them, so that a test can ask
 * DuckDB to read the file back and compare the two byte for byte.
 *
 *   pqwrite OUT.parquet N G SEED > expected.csv
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parquet.h"

static uint64_t state;

static uint64_t rnd(void)
{
	state ^= state << 13;
	state ^= state >> 7;
	state ^= state << 17;
	return state;
}

/* Mostly small steps (the delta packing's case), sometimes anything. */
static int64_t pick64(int64_t prev)
{
	static const int64_t edge[] = { INT64_MIN, INT64_MAX, 0, -1, 1, INT32_MIN, INT32_MAX };

	switch (rnd() % 8) {
	case 0:
		return edge[rnd() % 7];
	case 1:
		return (int64_t)rnd();
	default:
		return (int64_t)((uint64_t)prev + rnd() % 2000);
	}
}

static int32_t pick32(int32_t prev)
{
	static const int32_t edge[] = { INT32_MIN, INT32_MAX, 0, -1, 1 };

	switch (rnd() % 8) {
	case 0:
		return edge[rnd() % 5];
	case 1:
		return (int32_t)(uint32_t)rnd();
	default:
		return (int32_t)((uint32_t)prev + (uint32_t)(rnd() % 50));
	}
}

int main(int argc, char **argv)
{
	if (argc != 5) {
		fprintf(stderr, "usage: pqwrite OUT.parquet ROWS GROUP_ROWS SEED\n");
		return 2;
	}
	long n = atol(argv[2]), g = atol(argv[3]);
	const struct kt_pq_col cols[] = {
		{ "a", KT_PQ_I64, 0, 0 }, { "b", KT_PQ_I32, 0, 0 }, { "s", KT_PQ_STR, 0, 0 },
		{ "c", KT_PQ_I64, 1, 0 }, { "d", KT_PQ_STR, 1, 0 }, { "k", KT_PQ_STR, 0, 1 },
	};
	char err[512], name[2000];
	struct kt_pq *w;

	state = (uint64_t)atoll(argv[4]) * 2654435761u + 1;
	w = kt_pq_open(argv[1], cols, 6, (size_t)g, err, sizeof(err));
	if (!w) {
		fprintf(stderr, "pqwrite: %s\n", err);
		return 1;
	}
	int64_t a = 0, c = 0;
	int32_t b = 0;

	printf("a,b,s,c,d,k\n");
	for (long i = 0; i < n; i++) {
		a = pick64(a);
		b = pick32(b);
		c = pick64(c);
		size_t len = rnd() % 16 == 0 ? rnd() % sizeof(name) : rnd() % 12;

		for (size_t j = 0; j < len; j++)
			name[j] = (char)('a' + rnd() % 26);
		name[len] = '\0';
		int cnull = rnd() % 3 == 0 || (i / 100) % 7 == 3;	/* runs of NULLs */
		int dnull = rnd() % 2;

		kt_pq_i64(w, 0, a);
		kt_pq_i32(w, 1, b);
		kt_pq_str(w, 2, name, len);
		if (cnull)
			kt_pq_null(w, 3);
		else
			kt_pq_i64(w, 3, c);
		if (dnull)
			kt_pq_null(w, 4);
		else
			kt_pq_str(w, 4, name, len / 2);
		if (kt_pq_row(w) < 0) {
			fprintf(stderr, "pqwrite: %s\n", kt_pq_error(w));
			return 1;
		}
		/* DuckDB's CSV: an empty string is "", NULL is nothing. */
		printf("%" PRId64 ",%" PRId32 ",%s", a, b, len ? name : "\"\"");
		if (cnull)
			printf(",");
		else
			printf(",%" PRId64, c);
		if (dnull)
			printf(",");
		else if (len / 2)
			printf(",%.*s", (int)(len / 2), name);
		else
			printf(",\"\"");
		printf(",konst\n");
	}
	if (kt_pq_const(w, 5, "konst") < 0 || kt_pq_close(w, err, sizeof(err)) < 0) {
		fprintf(stderr, "pqwrite: %s\n", err);
		return 1;
	}
	return 0;
}

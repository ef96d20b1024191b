// SPDX-License-Identifier: BSD-3-Clause
/*
 * libFuzzer: the table store's reader (docs/TABLES.md), as kutrace_sql
 * opens a store someone else wrote: kt_db_open (lib/store/store.c) reads
 * meta.json (jansson) and checks every Parquet file through DuckDB's
 * parquet_file_metadata before it makes the views; then the queries of
 * kutrace_sql run on it: count(*), every row of the damaged table and
 * each --report, each result printed as a table, CSV and JSON by
 * kutrace_sql's own printer (its source is included below), and the JSON
 * must parse.  Nothing may crash, hang or abort.
 *
 * An input is one store: byte 0 picks the table (its index in
 * kt_store_tables[], modulo their number: 17) whose Parquet
 * file is the input's, bytes 1-2 are the length of meta.json (little
 * endian), then meta.json, then that table's file.  The other tables'
 * files are those of a sound store, tests/fuzz/store/rpc.tables (made
 * from tests/golden/rpc.trace by tests/fuzz/store/mkseeds.sh, which also
 * writes the seeds: its meta.json and each of its tables in turn).
 *
 * DuckDB is a prebuilt library: ASan and UBSan see only our side (store.c,
 * kutrace_sql.c's printer, jansson's use), and libFuzzer's coverage too.
 * So that mutations of the Parquet bytes are not blind, each query's
 * outcome (its DuckDB error without digits, or its row and column
 * counts) sets a libFuzzer extra counter: an input that makes DuckDB say
 * something new is kept.  A DuckDB abort or hang on a damaged file is a
 * finding like any other (this target catches nothing itself).
 */
#define main kutrace_sql_main
#include "../../query/kutrace_sql.c"
#undef main
#include "fuzz.h"
#include <ftw.h>

#ifndef FZ_STORE
#define FZ_STORE "tests/fuzz/store/rpc.tables"
#endif
#define FZ_MAXTABLES 64
#define FZ_OUTCOMES 4096

/* libFuzzer counts these as coverage (cleared before every input). */
__attribute__((section("__libfuzzer_extra_counters"), used))
static uint8_t fz_outcome[FZ_OUTCOMES];

static char fz_dir[64];
static int fz_verbose;	/* KT_FUZZ_VERBOSE=1: each outcome to stderr */
static int fz_ntables;	/* kt_store_tables[]'s */
static struct { char *p; size_t n; } fz_tmpl[FZ_MAXTABLES];

static void fz_note(unsigned int query, const char *text, uint64_t extra)
{
	uint64_t h = 1469598103934665603ull ^ query;

	if (fz_verbose)
		fprintf(stderr, "fuzz_store: %u: %s%s%llu\n", query, text ? text : "",
			text && *text ? " " : "", (unsigned long long)extra);

	/* Not the offsets, sizes and quoted text in it (jansson's "near
	 * 'X'"): each would make one more outcome of the same kind. */
	for (int quoted = 0; text && *text; text++) {
		if (*text == '\'')
			quoted = !quoted;
		else if (!quoted && (*text < '0' || *text > '9'))
			h = (h ^ (unsigned char)*text) * 1099511628211ull;
	}
	h = (h ^ extra) * 1099511628211ull;
	fz_outcome[(h >> 20) % FZ_OUTCOMES]++;
}

static uint64_t fz_log2(uint64_t v)
{
	uint64_t k = 0;

	while (v) {
		v >>= 1;
		k++;
	}
	return k;
}

static void fz_write(const char *name, const void *p, size_t n)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", fz_dir, name);
	f = fopen(path, "wb");
	if (!f || (n && fwrite(p, n, 1, f) != 1) || fclose(f) != 0)
		abort();
}

static int fz_rm_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static void fz_rmdir(void)
{
	nftw(fz_dir, fz_rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *src = getenv("KT_FUZZ_STORE") ? getenv("KT_FUZZ_STORE") : FZ_STORE;
	const char *t = getenv("TMPDIR");

	(void)argc;
	(void)argv;
	fz_verbose = getenv("KT_FUZZ_VERBOSE") && *getenv("KT_FUZZ_VERBOSE") == '1';
	snprintf(fz_dir, sizeof(fz_dir), "%s/fuzz_store.XXXXXX",
		 t && *t && strlen(t) < 40 ? t : "/tmp");
	if (!mkdtemp(fz_dir))
		abort();
	atexit(fz_rmdir);
	while (kt_store_tables[fz_ntables])
		if (++fz_ntables == FZ_MAXTABLES)
			abort();
	for (int i = 0; i < fz_ntables; i++) {
		char path[4200];
		FILE *f, *m;

		snprintf(path, sizeof(path), "%s/%s.parquet", src, kt_store_tables[i]);
		f = fopen(path, "rb");
		if (!f) {
			fprintf(stderr, "fuzz_store: %s: %s (tests/fuzz/store/mkseeds.sh "
				"makes it)\n", path, strerror(errno));
			exit(1);
		}
		m = open_memstream(&fz_tmpl[i].p, &fz_tmpl[i].n);
		for (int c; (c = getc(f)) != EOF;)
			putc(c, m);
		fclose(m);
		fclose(f);
		fz_write(strchr(path, '/') ? strrchr(path, '/') + 1 : path, fz_tmpl[i].p, fz_tmpl[i].n);
	}
	return 0;
}

/* A query as kutrace_sql runs it, its rows printed three ways. */
static void fz_query(duckdb_connection c, unsigned int q, const char *sql)
{
	duckdb_result r;

	if (duckdb_query(c, sql, &r) == DuckDBError) {
		fz_note(q, duckdb_result_error(&r), 0);
		duckdb_destroy_result(&r);
		return;
	}
	fz_note(q, "", fz_log2(duckdb_row_count(&r)) << 8 | duckdb_column_count(&r));
	for (enum fmt fmt = F_TABLE; fmt <= F_JSON; fmt++) {
		char *buf = NULL;
		size_t len = 0;
		FILE *out = open_memstream(&buf, &len);

		print_result(&r, fmt, out);
		fclose(out);
		if (fmt == F_JSON && duckdb_column_count(&r)) {
			json_error_t je;
			json_t *j = json_loadb(buf, len, 0, &je);

			if (!j) {
				fprintf(stderr, "fuzz_store: --json output of %s is not JSON: "
					"%s at byte %d\n%.300s\n", sql, je.text, je.position, buf);
				abort();
			}
			json_decref(j);
		}
		free(buf);
	}
	duckdb_destroy_result(&r);
}

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	if (n < 3)
		return 0;
	unsigned int t = d[0] % fz_ntables;
	size_t mlen = (size_t)d[1] | (size_t)d[2] << 8;
	char name[64], err[512] = "", sql[128];
	char *stores[1] = { fz_dir };

	d += 3;
	n -= 3;
	if (mlen > n)
		mlen = n;
	fz_write("meta.json", d, mlen);
	snprintf(name, sizeof(name), "%s.parquet", kt_store_tables[t]);
	fz_write(name, d + mlen, n - mlen);

	struct kt_db *db = kt_db_open(stores, 1, "512MB", err, sizeof(err));

	fz_note(100, err, 0);
	if (db) {
		duckdb_connection c = kt_db_conn(db);

		fz_query(c, 101, "SELECT count(*) FROM span");
		snprintf(sql, sizeof(sql), "SELECT * FROM %s", kt_store_tables[t]);
		fz_query(c, 102 + t, sql);
		for (size_t i = 0; i < NREPORTS; i++)
			fz_query(c, 200 + i, reports[i].sql);
		kt_db_close(db);
	} else if (!err[0]) {
		fprintf(stderr, "fuzz_store: kt_db_open failed without a reason\n");
		abort();
	}
	/* the next input's other tables are the sound ones */
	fz_write(name, fz_tmpl[t].p, fz_tmpl[t].n);
	return 0;
}

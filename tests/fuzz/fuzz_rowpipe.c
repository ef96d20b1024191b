// SPDX-License-Identifier: BSD-3-Clause
/*
 * libFuzzer: the row stream reader (lib/rows/rowpipe.c), what `kutrace_sql
 * build --rows-fd N` reads from kutrace_postproc --tables or anyone else.
 * Every input is read to its end mark or its first error (which must say
 * why); then the rows read, the header and the backend record go through
 * the writer and are read back: the reader must accept what the writer
 * writes and give the same rows, names, header and backend.
 * Seeds: the row streams of golden traces (kutrace_postproc --rows-fd 3
 * --no-json 3>FILE, tests/fuzz/corpus/fuzz_rowpipe/).
 */
#include "fuzz.h"

#define FZ_MAX_ROWS 100000

static struct kt_row fz_rows[FZ_MAX_ROWS];

static int same_str(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static void fz_fail(const char *what, size_t i)
{
	fprintf(stderr, "fuzz_rowpipe: the stream written again differs: %s (row %zu)\n", what, i);
	abort();
}

/* The rows read so far, header and backend, written and read back. */
static void round_trip(const struct kt_rowpipe_r *p, size_t nrows)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	struct kt_rowpipe_w *w = kt_rowpipe_w_new(out);
	/* a stream cut short has no header: the writer needs one */
	const char *header = p->header ? p->header : "{";

	if (!w)
		abort();
	for (size_t i = 0; i < nrows; i++)
		if (kt_rowpipe_row(w, &fz_rows[i]) < 0)
			abort();
	if (kt_rowpipe_end(w, header, p->backend) < 0)
		abort();
	kt_rowpipe_w_free(w);
	fclose(out);

	FILE *in = fmemopen(buf, len, "rb");
	struct kt_rowpipe_r q;
	struct kt_row r;
	size_t k = 0;
	int rc;

	if (!in)
		abort();
	kt_rowpipe_r_init(&q, in);
	while ((rc = kt_rowpipe_next(&q, &r)) == 1) {
		const struct kt_row *a = &fz_rows[k];

		if (k == nrows)
			fz_fail("more rows", k);
		if (r.start != a->start || r.dur != a->dur || r.cpu != a->cpu || r.pid != a->pid ||
		    r.rpc != a->rpc || r.event != a->event || r.arg != a->arg ||
		    r.retval != a->retval || r.ipc != a->ipc)
			fz_fail("a field", k);
		if (!same_str(r.name, a->name))
			fz_fail("the name", k);
		k++;
	}
	if (rc != 0) {
		fprintf(stderr, "fuzz_rowpipe: %s\n", q.err);
		fz_fail("refused", k);
	}
	if (k != nrows)
		fz_fail("fewer rows", k);
	/* Texts are C strings on the writer's side: compare them as such. */
	if (!same_str(q.header, header))
		fz_fail("the header", k);
	if (!same_str(q.backend, p->backend))
		fz_fail("the backend record", k);
	kt_rowpipe_r_free(&q);
	fclose(in);
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	static uint8_t none[1];
	FILE *f = fmemopen(n ? (void *)d : none, n, "rb");
	struct kt_rowpipe_r p;
	size_t nrows = 0;
	int rc = 0;

	if (!f)
		abort();
	kt_rowpipe_r_init(&p, f);
	fz_armed = 1;
	if (setjmp(fz_jmp) == 0) {
		while (nrows < FZ_MAX_ROWS && (rc = kt_rowpipe_next(&p, &fz_rows[nrows])) == 1)
			nrows++;
		if (nrows < FZ_MAX_ROWS) {
			if (rc < 0 && !p.err[0]) {
				fprintf(stderr, "fuzz_rowpipe: refused without a reason\n");
				abort();
			}
			if (rc == 0 && !p.header) {
				fprintf(stderr, "fuzz_rowpipe: ended without a header\n");
				abort();
			}
		}
		round_trip(&p, nrows);
	}
	fz_armed = 0;
	kt_rowpipe_r_free(&p);
	fclose(f);
	return 0;
}

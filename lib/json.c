// SPDX-License-Identifier: BSD-3-Clause
/*
 * json.c - the KUtrace JSON (FORMATS.md 5.10) and an exact, memory-bounded
 * time sort of its rows (no external `sort`, fixing FORMATS.md 8.20).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "kutrace/kutrace.h"

void kt_json_escape(FILE *f, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '"':
			fputs("\\\"", f);
			break;
		case '\\':
			fputs("\\\\", f);
			break;
		case '\n':
			fputs("\\n", f);
			break;
		case '\t':
			fputs("\\t", f);
			break;
		case '<':
			/* Keeps "</script>" harmless when the JSON is embedded. */
			fputs("\\u003c", f);
			break;
		default:
			if (*p < 0x20 || *p == 0x7F)
				fprintf(f, "\\u%04x", *p);
			else
				putc(*p, f);
		}
	}
}

/* Header values: printable ASCII kept, everything else '?' (as original). */
static void header_string(FILE *f, const char *key, const char *v)
{
	fprintf(f, " \"%s\" : \"", key);
	kt_json_escape(f, v);
	fputs("\",\n", f);
}

void kt_json_header(FILE *f, const struct kt_json_meta *m)
{
	fputs("  {\n", f);
	fputs(" \"Comment\" : \"V2 with IPC field\",\n", f);
	fputs(" \"axisLabelX\" : \"Time (sec)\",\n", f);
	fputs(" \"axisLabelY\" : \"CPU Number\",\n", f);
	if (m->model)
		header_string(f, "cpuModelName", m->model);
	fprintf(f, " \"flags\" : %u,\n", m->flags);
	if (m->host)
		header_string(f, "hostName", m->host);
	if (m->kernel)
		header_string(f, "kernelVersion", m->kernel);
	fprintf(f, " \"mbit_sec\" : %d,\n", m->mbit);
	fprintf(f, " \"randomid\" : %u,\n", m->randomid & 0x7FFFFFFF);
	fputs(" \"shortMulX\" : 1,\n", f);
	fputs(" \"shortUnitsX\" : \"s\",\n", f);
	fputs(" \"thousandsX\" : 1000,\n", f);
	header_string(f, "title", m->title ? m->title : "");
	header_string(f, "tracebase", m->tracebase ? m->tracebase : "");
	fprintf(f, " \"version\" : %d,\n", m->version);
	fputs("\"events\" : [\n", f);
}

/*
 * Seconds with 8 decimals from nsec10, formatted with integers: exactly
 * what "%W.8f" prints for these values, several times faster.
 */
static char *fmt_sec(char *p, int64_t ns10, int width)
{
	char tmp[32];
	int neg = ns10 < 0;
	uint64_t v = neg ? (uint64_t)-ns10 : (uint64_t)ns10;
	uint64_t ip = v / 100000000, fp = v % 100000000;
	int n = 0;

	for (int i = 0; i < 8; i++) {
		tmp[n++] = (char)('0' + fp % 10);
		fp /= 10;
	}
	tmp[n++] = '.';
	do {
		tmp[n++] = (char)('0' + ip % 10);
		ip /= 10;
	} while (ip);
	if (neg)
		tmp[n++] = '-';
	for (int i = n; i < width; i++)
		*p++ = ' ';
	while (n)
		*p++ = tmp[--n];
	return p;
}

static char *fmt_int(char *p, int64_t v)
{
	char tmp[24];
	int n = 0;
	uint64_t u = v < 0 ? (uint64_t)-v : (uint64_t)v;

	do {
		tmp[n++] = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (v < 0)
		*p++ = '-';
	while (n)
		*p++ = tmp[--n];
	return p;
}

void kt_json_row(FILE *f, const struct kt_row *r)
{
	char buf[256], *p = buf;

	*p++ = '[';
	p = fmt_sec(p, r->start, 12);
	*p++ = ',';
	*p++ = ' ';
	p = fmt_sec(p, r->dur, 10);
	int64_t v[7] = { r->cpu, r->pid, r->rpc, r->event, r->arg, r->retval, r->ipc };

	for (int i = 0; i < 7; i++) {
		*p++ = ',';
		*p++ = ' ';
		p = fmt_int(p, v[i]);
	}
	*p++ = ',';
	*p++ = ' ';
	*p++ = '"';
	fwrite(buf, 1, (size_t)(p - buf), f);
	kt_json_escape(f, r->name);
	fputs("\"],\n", f);
}

void kt_json_footer(FILE *f)
{
	fputs("[999.0, 0.0, 0, 0, 0, 0, 0, 0, 0, \"\"]\n]}\n", f);
}

/* ---- sorting ---------------------------------------------------------- */

static int row_cmp(const struct kt_row *a, const struct kt_row *b)
{
#define CMP(x) if (a->x != b->x) return a->x < b->x ? -1 : 1
	CMP(start);
	CMP(dur);
	CMP(cpu);
	CMP(pid);
	CMP(event);
	CMP(rpc);
	CMP(arg);
	CMP(retval);
	CMP(ipc);
#undef CMP
	return strcmp(a->name, b->name);
}

static int row_qcmp(const void *a, const void *b)
{
	return row_cmp(a, b);
}

struct run {
	long offset;	/* in rows */
	long count;
	long pos;
	struct kt_row *buf;	/* read-ahead */
	long bufn, bufi;
};

struct kt_rowsort {
	struct kt_row *rows;
	size_t n, cap;
	FILE *spill;
	struct run *runs;
	size_t nruns;
	long spilled;
};

struct kt_rowsort *kt_rowsort_new(size_t run_rows)
{
	struct kt_rowsort *rs = kt_xcalloc(1, sizeof(*rs));

	rs->cap = run_rows ? run_rows : 1;
	rs->rows = kt_xmalloc(rs->cap * sizeof(*rs->rows));
	return rs;
}

/*
 * Spilled rows keep their name pointers: names are interned for the life
 * of the process, and the spill file is private to it.
 */
static void spill(struct kt_rowsort *rs)
{
	if (!rs->spill) {
		rs->spill = tmpfile();
		if (!rs->spill)
			kt_die("cannot create a temporary file for sorting");
	}
	qsort(rs->rows, rs->n, sizeof(*rs->rows), row_qcmp);
	if (fwrite(rs->rows, sizeof(*rs->rows), rs->n, rs->spill) != rs->n)
		kt_die("write error on the temporary sort file (disk full?)");
	rs->runs = kt_xrealloc(rs->runs, (rs->nruns + 1) * sizeof(*rs->runs));
	memset(&rs->runs[rs->nruns], 0, sizeof(*rs->runs));
	rs->runs[rs->nruns].offset = rs->spilled;
	rs->runs[rs->nruns].count = (long)rs->n;
	rs->nruns++;
	rs->spilled += (long)rs->n;
	rs->n = 0;
}

void kt_rowsort_add(struct kt_rowsort *rs, const struct kt_row *r)
{
	if (rs->n == rs->cap)
		spill(rs);
	rs->rows[rs->n++] = *r;
}

#define RUN_BUF 4096

static const struct kt_row *run_peek(struct kt_rowsort *rs, struct run *r)
{
	if (r->bufi < r->bufn)
		return &r->buf[r->bufi];
	if (r->pos >= r->count)
		return NULL;
	long want = r->count - r->pos < RUN_BUF ? r->count - r->pos : RUN_BUF;

	fseek(rs->spill, (r->offset + r->pos) * (long)sizeof(struct kt_row), SEEK_SET);
	if (fread(r->buf, sizeof(struct kt_row), (size_t)want, rs->spill) != (size_t)want)
		kt_die("read error on the temporary sort file");
	r->pos += want;
	r->bufn = want;
	r->bufi = 0;
	return &r->buf[0];
}

void kt_rowsort_finish(struct kt_rowsort *rs, kt_row_fn fn, void *ctx)
{
	if (!rs->spill) {
		qsort(rs->rows, rs->n, sizeof(*rs->rows), row_qcmp);
		for (size_t i = 0; i < rs->n; i++)
			fn(ctx, &rs->rows[i]);
	} else {
		if (rs->n)
			spill(rs);
		free(rs->rows);
		rs->rows = NULL;
		for (size_t i = 0; i < rs->nruns; i++)
			rs->runs[i].buf = kt_xmalloc(RUN_BUF * sizeof(struct kt_row));
		/* Few runs: a linear scan for the minimum is fast enough. */
		for (;;) {
			const struct kt_row *best = NULL;
			struct run *br = NULL;

			for (size_t i = 0; i < rs->nruns; i++) {
				const struct kt_row *r = run_peek(rs, &rs->runs[i]);

				if (r && (!best || row_cmp(r, best) < 0)) {
					best = r;
					br = &rs->runs[i];
				}
			}
			if (!best)
				break;
			fn(ctx, best);
			br->bufi++;
		}
		for (size_t i = 0; i < rs->nruns; i++)
			free(rs->runs[i].buf);
		fclose(rs->spill);
	}
	free(rs->runs);
	free(rs->rows);
	free(rs);
}

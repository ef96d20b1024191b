// SPDX-License-Identifier: BSD-3-Clause
/*
 * pagerows.c - a CPU page's columns from rows as data: kutrace_postproc's
 * row stream is the page's input (kt_pagecols_*, page.h), so the page
 * needs no second reading of the JSON.  The columns are pageenc.c's; the
 * odd row goes through pagejson.c's own row reader.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rows.h"
#include "page.h"
#include "page-local.h"

/* ---------------------------------------------------------------------- */
/* Rows from the row stream                                                */
/* ---------------------------------------------------------------------- */

/*
 * kutrace_postproc hands the rows of its JSON, in the JSON's order, as
 * struct kt_row: the columns are built from them directly, and the page
 * is byte for byte the one makeself makes from that JSON.  A row is what
 * the JSON front end would read back from its text: the times exactly,
 * the integers as they are, the name as the escaped text decodes (a
 * byte that is not UTF-8 reads back as U+FFFD).  The rare row whose text
 * would not read back canonically (an integer outside 32 bits, a time of
 * 10^10 s or more, a name whose escape does not come back the same) is
 * formatted and read back through the front end itself: it becomes an
 * exception there exactly as it would from the file.
 */

#define PC_FIXED_MAX 1000000000000000000LL	/* 10^10 s: sc_number's exact range */

static uint64_t ptr_hash(const void *p)
{
	uint64_t h = (uint64_t)(uintptr_t)p * 0x9E3779B97F4A7C15ull;

	return h ^ (h >> 29);
}

/* The strtab index + 1 of a name, or 0 if its text does not read back. */
static uint32_t pc_name(struct kt_pagecols *p, const char *name)
{
	if (p->nused * 2 >= p->ncap) {
		size_t nc = p->ncap ? p->ncap * 2 : 1024;
		const char **nk = kt_xcalloc(nc, sizeof(*nk));
		uint32_t *nv = kt_xcalloc(nc, sizeof(*nv));

		for (size_t i = 0; i < p->ncap; i++) {
			if (!p->nkey[i])
				continue;
			size_t h = ptr_hash(p->nkey[i]) & (nc - 1);

			while (nk[h])
				h = (h + 1) & (nc - 1);
			nk[h] = p->nkey[i];
			nv[h] = p->nval[i];
		}
		free(p->nkey);
		free(p->nval);
		p->nkey = nk;
		p->nval = nv;
		p->ncap = nc;
	}
	size_t h = ptr_hash(name) & (p->ncap - 1);

	while (p->nkey[h]) {
		if (p->nkey[h] == name)
			return p->nval[h];
		h = (h + 1) & (p->ncap - 1);
	}
	/* New name: escape it as the JSON writer does, decode as the reader. */
	size_t n = strlen(name);
	struct bv *e = &p->scratch, d = { 0 }, again = { 0 };
	uint32_t v = 0;

	e->len = 0;
	bv_grow(e, 6 * n + 2);
	e->p[0] = '"';
	e->len = 1 + kt_json_escape_mem((char *)e->p + 1, name, n);
	e->p[e->len++] = '"';
	char err[64];
	struct sc c = { .s = (const char *)e->p, .n = e->len, .err = err,
			.errlen = sizeof(err) };

	if (sc_string(&c, &d) == 0 && c.p == e->len) {
		bv_grow(&again, 6 * d.len + 1);
		again.len = kt_json_escape_mem((char *)again.p,
					       d.p ? (const char *)d.p : "", d.len);
		if (again.len == e->len - 2 && !memcmp(again.p, e->p + 1, again.len))
			v = pg_strtab_intern(&p->t.names, d.p ? (const char *)d.p : "",
					     d.len) + 1;
	}
	bv_free(&d);
	bv_free(&again);
	p->nkey[h] = name;
	p->nval[h] = v;
	p->nused++;
	return v;
}

static int pc_int_ok(int64_t x)
{
	return x >= INT32_MIN && x <= (int64_t)UINT32_MAX;
}

/* An odd row: its JSON text through the front end's own row reader. */
static void pc_slow_row(struct kt_pagecols *p, const struct kt_row *r)
{
	size_t n;

	while (!(n = kt_json_format_row((char *)p->scratch.p, p->scratch.cap, r)))
		bv_grow(&p->scratch, p->scratch.cap + 4096);
	char err[128];
	struct sc c = { .s = (const char *)p->scratch.p, .n = n - 2, .err = err,
			.errlen = sizeof(err) };
	int64_t ts;

	/* Our own formatter's text always parses; nothing to report. */
	if (pg_read_row(&c, &p->t, &p->name, &p->canon, &ts) != 0)
		p->bad = 1;
}

struct kt_pagecols *kt_pagecols_new(uint64_t max)
{
	struct kt_pagecols *p = kt_xcalloc(1, sizeof(*p));

	pg_pred_init(&p->t.pred);
	p->max = max;
	bv_grow(&p->scratch, 4096);
	return p;
}

void kt_pagecols_row(struct kt_pagecols *p, const struct kt_row *r)
{
	if (p->full)
		return;
	if (p->max && p->t.nrows >= p->max) {
		/* Over the limit: no page, so give the memory back now. */
		p->full = 1;
		for (int i = 0; i < NCOLS; i++)
			bv_free(&p->t.col[i]);
		return;
	}
	uint32_t nm = pc_name(p, r->name);

	if (!nm || !pc_int_ok(r->cpu) || !pc_int_ok(r->pid) || !pc_int_ok(r->rpc) ||
	    !pc_int_ok(r->event) || !pc_int_ok(r->arg) || !pc_int_ok(r->retval) ||
	    !pc_int_ok(r->ipc) || r->start >= PC_FIXED_MAX || r->start <= -PC_FIXED_MAX ||
	    r->dur >= PC_FIXED_MAX || r->dur <= -PC_FIXED_MAX) {
		pc_slow_row(p, r);
	} else {
		int64_t v[10] = { r->start, r->dur, r->cpu, r->pid, r->rpc, r->event,
				  r->arg, r->retval, r->ipc, nm - 1 };
		int64_t c[10];

		pg_pred_row(&p->t.pred, v, c, 0);
		for (int i = 0; i < 10; i++)
			bv_varint(&p->t.col[i], c[i]);
		p->t.nrows++;
	}
	/* Glue: every row but the first follows ",\n", string 0. */
	bv_varint(&p->t.col[10], 0);
}

int kt_pagecols_full(const struct kt_pagecols *p)
{
	return p->full;
}

uint64_t kt_pagecols_rows(const struct kt_pagecols *p)
{
	return p->t.nrows;
}

void kt_pagecols_free(struct kt_pagecols *p)
{
	if (!p)
		return;
	pg_trace_free(&p->t);
	free(p->nkey);
	free(p->nval);
	bv_free(&p->scratch);
	bv_free(&p->name);
	bv_free(&p->canon);
	free(p);
}

static int64_t pc_varint(const unsigned char **q)
{
	uint64_t v = 0;
	int sh = 0;

	for (;;) {
		unsigned char b = *(*q)++;

		v |= (uint64_t)(b & 127) << sh;
		if (!(b & 128))
			break;
		sh += 7;
	}
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

/*
 * Rows placed late (jsonout.c) reach the JSON through one more copy of its
 * file; here through one more pass over the columns themselves: the rows
 * are decoded and, with each late row before the first row that
 * kt_row_cmp puts after it (where the JSON's copy places it), built into
 * new columns, so that names are numbered in the JSON's order too.  Rows
 * are compared as the copy compares them, as their text reads back: a row
 * kept as an exception is read back from that text.
 */
void kt_pagecols_late(struct kt_pagecols *p, const struct kt_row *late, size_t n)
{
	if (p->full || p->bad || !n)
		return;
	struct kt_pagecols *np = kt_pagecols_new(p->max);
	struct trace *old = &p->t;
	uint32_t nnames = old->names.n;
	const char **nz = kt_xcalloc(nnames + 1, sizeof(*nz));
	struct bv tmp = { 0 };

	for (uint32_t i = 0; i < nnames; i++) {
		tmp.len = 0;
		bv_add(&tmp, pg_strtab_at(&old->names, i), old->names.len[i]);
		bv_add(&tmp, "", 1);
		nz[i] = kt_intern((const char *)tmp.p);
	}
	struct pred dec;

	pg_pred_init(&dec);
	const unsigned char *q[NCOLS];

	for (int i = 0; i < NCOLS; i++)
		q[i] = old->col[i].p;
	const unsigned char *ex = old->exc.p;
	uint32_t exleft = old->nexc;
	struct kt_buf ename = { 0 };
	size_t li = 0;

	for (uint32_t row = 0; row < old->nrows && !np->full && !np->bad; row++) {
		int64_t c[10], v[10];

		for (int i = 0; i < 10; i++)
			c[i] = pc_varint(&q[i]);
		pc_varint(&q[10]);
		pg_pred_row(&dec, v, c, 1);
		struct kt_row r = {
			.start = v[0], .dur = v[1], .cpu = (int)v[2], .pid = (int)v[3],
			.rpc = (int)v[4], .event = (int)v[5], .arg = v[6], .retval = v[7],
			.ipc = (int)v[8],
			.name = v[9] >= 0 && v[9] < nnames ? nz[v[9]] : "",
		};
		uint32_t erow = UINT32_MAX, elen;

		if (exleft)
			memcpy(&erow, ex, 4);
		if (erow == row) {
			memcpy(&elen, ex + 4, 4);
			tmp.len = 0;
			bv_add(&tmp, ex + 8, elen);
			bv_add(&tmp, "", 1);
			ex += 8 + elen;
			exleft--;
			/* Our own row text: it parses (else the JSON's copy failed too). */
			if (kt_json_parse_row((const char *)tmp.p, &r, &ename) != 0) {
				np->bad = 1;
				break;
			}
			r.name = kt_intern(ename.p);
		}
		while (li < n && kt_row_cmp(&r, &late[li]) > 0)
			kt_pagecols_row(np, &late[li++]);
		kt_pagecols_row(np, &r);
	}
	while (li < n)
		kt_pagecols_row(np, &late[li++]);
	free(nz);
	bv_free(&tmp);
	kt_buf_free(&ename);
	pg_pred_free(&dec);
	/* np takes p's place (header values come later, at the write). */
	struct kt_pagecols old_cols = *p;

	*p = *np;
	*np = old_cols;
	kt_pagecols_free(np);
}

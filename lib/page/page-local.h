/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * page-local.h - what the page code's files share: html.c (the template
 * and the API of page.h), pageenc.c (the column encoder; the page data's
 * format is described at its top), pagejson.c (JSON into columns),
 * pagerows.c (rows as data into columns),
 * pageextract.c (columns back into JSON), jscan.c (the JSON scanner) and
 * pagekind.c (the book's RPC and points pages): byte vectors, the
 * scanner's state, the string table, the row predictor, the trace in
 * columns.
 */
#ifndef KUTRACE_PAGE_LOCAL_H
#define KUTRACE_PAGE_LOCAL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "rows.h"

#define NCOLS 11
#define MAX_DEPTH 512

/* ---------------------------------------------------------------------- */
/* Byte vectors                                                            */
/* ---------------------------------------------------------------------- */

struct bv {
	unsigned char *p;
	size_t len, cap;
};

static inline void bv_grow(struct bv *b, size_t need)
{
	if (b->len + need <= b->cap)
		return;
	size_t c = b->cap ? b->cap : 256;
	while (c < b->len + need)
		c *= 2;
	b->p = kt_xrealloc(b->p, c);
	b->cap = c;
}

static inline void bv_add(struct bv *b, const void *s, size_t n)
{
	bv_grow(b, n);
	if (n)
		memcpy(b->p + b->len, s, n);
	b->len += n;
}

static inline void bv_u32(struct bv *b, uint32_t v)
{
	unsigned char t[4] = { v & 255, (v >> 8) & 255, (v >> 16) & 255, v >> 24 };
	bv_add(b, t, 4);
}

static inline void bv_varint(struct bv *b, int64_t sv)
{
	uint64_t v = ((uint64_t)sv << 1) ^ (uint64_t)(sv >> 63);

	bv_grow(b, 10);
	while (v >= 0x80) {
		b->p[b->len++] = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	b->p[b->len++] = (unsigned char)v;
}

static inline void bv_free(struct bv *b)
{
	free(b->p);
	b->p = NULL;
	b->len = b->cap = 0;
}


/* ---------------------------------------------------------------------- */
/* Reading a blob back: u32, varints, bytes; running past the end sets bad */

struct rd {
	const unsigned char *p;
	size_t n, i;
	int bad;
};

static inline uint32_t rd_u32(struct rd *r)
{
	if (r->i + 4 > r->n) {
		r->bad = 1;
		return 0;
	}
	const unsigned char *q = r->p + r->i;
	r->i += 4;
	return (uint32_t)q[0] | (uint32_t)q[1] << 8 | (uint32_t)q[2] << 16 | (uint32_t)q[3] << 24;
}

static inline int64_t rd_varint(struct rd *r)
{
	uint64_t v = 0;
	int sh = 0;
	for (;;) {
		if (r->i >= r->n || sh > 63) {
			r->bad = 1;
			return 0;
		}
		unsigned char b = r->p[r->i++];
		v |= (uint64_t)(b & 127) << sh;
		if (!(b & 128))
			break;
		sh += 7;
	}
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

static inline const unsigned char *rd_bytes(struct rd *r, size_t n)
{
	if (n > r->n - r->i) {
		r->bad = 1;
		return NULL;
	}
	const unsigned char *q = r->p + r->i;
	r->i += n;
	return q;
}

/* ---------------------------------------------------------------------- */

struct strtab {
	struct bv data;		/* all strings back to back */
	size_t *off, *len;
	uint32_t n, cap;
	uint32_t *hash;		/* open addressing, index+1, 0 = empty */
	uint32_t hcap;
};

/* ---------------------------------------------------------------------- */

struct sc {
	const char *s;
	size_t n, p;
	long line;
	const char *line_at;	/* s + p where the line count was last updated */
	char *err;
	size_t errlen;
	int failed;
	int mapped;		/* s is a file mapping: drop pages behind us */
	size_t dropped;
};

/*
 * The tables start as calloc's zeros, untouched until used (2 MB filled
 * for every page read cost more than a small page's whole decoding):
 * cpu_end is kept XOR PRED_NONE and ev_nm plus 1.
 */
struct pred {
	int64_t prev_ts;
	int64_t *cpu_end;	/* end of the last execution span on a CPU ^ PRED_NONE */
	int64_t *cpu_pid;	/* pid of the last row on a CPU */
	uint32_t *ev_nm;	/* name index last seen with an event + 1, 0 none */
};

struct trace {
	struct pred pred;
	struct bv col[NCOLS];
	uint32_t nrows;
	struct strtab names, glue;
	struct bv exc;		/* (u:row u:len bytes)* */
	uint32_t nexc;
	size_t prefix_end, suffix_start;
	struct bv meta;		/* the ktmeta JSON text */
};

/* Kernel, user or idle execution: the spans that tile a CPU's time (the
 * viewer's isExec: calls, returns and traps below 0x1000, user and idle). */
static inline int pg_exec_event(int64_t ev)
{
	return (ev >= 0 && ev < KUTRACE_SPECIAL_LO) || (ev >= KUTRACE_CALL_LO && ev < 0x1000) ||
	       ev >= KUTRACE_USER_BASE;
}

/* The page kinds (pagekind.c). */
enum { PAGE_CPU, PAGE_RPC, PAGE_POINTS };
static const char *const page_kind_name[] __attribute__((unused)) = { "cpu", "rpc", "points" };

static inline void sc_ws(struct sc *c)
{
	while (c->p < c->n) {
		char ch = c->s[c->p];
		if (ch == ' ' || ch == '\n' || ch == '\r' || ch == '\t')
			c->p++;
		else
			break;
	}
}

static inline int sc_peek(struct sc *c)
{
	return c->p < c->n ? (unsigned char)c->s[c->p] : -1;
}

/* jscan.c: the strict JSON scanner; every error is one line in c->err. */
void sc_drop(struct sc *c);
int sc_fail(struct sc *c, const char *fmt, ...);
const char *sc_what(int ch);
int sc_string(struct sc *c, struct bv *o);
int sc_number(struct sc *c, double *dv, int64_t *fixed, int *is_fixed);
int sc_skip(struct sc *c, int depth);

/*
 * pageenc.c: the string table, the row predictor (pg_pred_row encodes
 * v[] into column values r[], or decodes with decode != 0), a row's
 * canonical text, the exceptions, and the blob.
 */
uint32_t pg_strtab_intern(struct strtab *t, const char *s, size_t n);
/* String i's bytes ("" when empty: an empty table's data is NULL). */
const char *pg_strtab_at(const struct strtab *t, uint32_t i);
void pg_pred_init(struct pred *p);
void pg_pred_free(struct pred *p);
void pg_pred_row(struct pred *p, int64_t *v, int64_t *r, int decode);
void pg_canon_row(struct bv *o, const int64_t *fx, const int64_t *iv,
		  const unsigned char *name, size_t nlen);
void pg_add_exc(struct trace *t, uint32_t row, const char *s, size_t n);
void pg_trace_free(struct trace *t);
int pg_write_blob(FILE *out, struct trace *t, const char *json, size_t len);
/* bytes deflated (when zlib is there) and base64-encoded, as a blob */
int pg_write_bytes(FILE *out, const void *p, size_t n);

/* pagelod.c: the summary of a page of at least min_rows rows (out empty
 * when there is none: fewer rows, rows out of time order); -1 on a bad
 * column. */
int pg_lod_blob(const struct trace *t, uint64_t min_rows, struct bv *out);
extern const char pg_b64[];

/* pagecols.c: KTV3's column order (grouped by event, three columns split
 * by byte) from KTV2's, in place; and back, into out[NCOLS] (row order,
 * as KTV2), from the columns p[]/len[] of a KTV3 blob.  -1: not nrows
 * rows in every column. */
int pg_cols_pack(struct trace *t);
int pg_cols_unpack(const unsigned char *const *p, const size_t *len, uint32_t nrows,
		   struct bv *out);

/* kt_pagecols (page.h): the trace in columns, built from rows (pagerows.c). */
struct kt_pagecols {
	struct trace t;
	uint64_t max;
	int full;		/* more rows than max: nothing kept */
	int bad;
	/* Interned name pointer -> name index + 1 (0: the slow path). */
	const char **nkey;
	uint32_t *nval;
	size_t ncap, nused;
	struct bv scratch, name, canon;
};

/* pagejson.c: a CPU page's JSON into columns (walking the top-level keys
 * with sc_top); pg_read_row reads one row at c->p into the columns. */
int pg_read_row(struct sc *c, struct trace *t, struct bv *name, struct bv *canon,
		int64_t *row_ts);
int sc_key_is(const struct bv *k, const char *s);
int sc_top(struct sc *c, int (*one)(struct sc *, struct bv *, void *), void *arg);
int pg_read_trace(struct sc *c, struct trace *t);

/* pagekind.c: the book's RPC and points pages. */
int pg_page_kind(const char *json, size_t len);
int pg_check_page(struct sc *c, int kind);

#endif /* KUTRACE_PAGE_LOCAL_H */

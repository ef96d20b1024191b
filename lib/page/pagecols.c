// SPDX-License-Identifier: BSD-3-Clause
/*
 * pagecols.c - the column order of KTV3 (lib/page/pageenc.c's blob), both ways:
 * pg_cols_pack reorders the encoder's KTV2 columns, pg_cols_unpack puts a
 * KTV3 blob's columns back into KTV2's row order for the extractor.  The
 * viewer (viewer/data.js, decodeBlob) undoes it the same way.
 *
 * Why: deflate sees one column as one byte stream and models it with one
 * set of Huffman codes per block.  A column's values depend mostly on the
 * row's kind (a getpid's duration and return value look like other
 * getpids', not like the page fault before it), so every column but the
 * event's goes out grouped by the row's event column value, the class:
 * first the values of every row of class 0 in row order, then class 1,
 * ...  The event column comes first in row order, so a reader knows each
 * row's class before it reads the others.  On 2 M synthetic rows this
 * takes the deflated blob from 6.23 to 5.40 bytes a row; on real traces
 * (the original's hello-world page, QEMU guests' traces) 4 to 19 % off,
 * with one exception that the second step more than repairs.
 *
 * Second, the duration, argument and return value columns, whose values
 * run to several varint bytes with a near-random low byte, are split by
 * byte position: every value's first byte, then the second bytes of
 * those that have one, and so on, so that the nearly constant high bytes
 * sit together instead of between random ones (5.40 to 5.10 bytes a row
 * synthetic; a user-mark argument column 30 to 50 times smaller).  Such
 * a column starts with u:nlevels u:len[nlevels].
 *
 * A class is the event column's (predicted) value when it is 0..4095,
 * else 4096: the kinds that repeat, without a table for every value.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rows.h"
#include "page-local.h"

#define NCLASS 4097
#define MAXLEV 10

static const int split_col[NCOLS] = { [1] = 1, [6] = 1, [7] = 1 };

/* The length of the varint at p (at most n bytes), 0 when it runs past n
 * or past MAXLEV bytes. */
static size_t vlen(const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n && i < MAXLEV; i++)
		if (!(p[i] & 128))
			return i + 1;
	return 0;
}

/* Every row's class from the event column; -1 when it is not nrows
 * varints. */
static int row_classes(const unsigned char *p, size_t n, uint32_t nrows, uint16_t *cls,
		       uint32_t *count)
{
	struct rd r = { p, n, 0, 0 };

	memset(count, 0, NCLASS * sizeof(*count));
	for (uint32_t i = 0; i < nrows; i++) {
		int64_t e = rd_varint(&r);

		if (r.bad)
			return -1;
		cls[i] = e >= 0 && e < NCLASS - 1 ? (uint16_t)e : NCLASS - 1;
		count[cls[i]]++;
	}
	return r.i == n ? 0 : -1;
}

/* Grouped (by class) to split (by byte position), and back. */
static void split_bytes(const struct bv *g, struct bv *out)
{
	size_t len[MAXLEV] = { 0 }, at[MAXLEV];
	int nlev = 0;

	for (size_t i = 0; i < g->len;) {
		size_t l = vlen(g->p + i, g->len - i);

		for (size_t k = 0; k < l; k++)
			len[k]++;
		if ((int)l > nlev)
			nlev = (int)l;
		i += l;
	}
	out->len = 0;
	bv_u32(out, (uint32_t)nlev);
	for (int k = 0; k < nlev; k++)
		bv_u32(out, (uint32_t)len[k]);
	bv_grow(out, g->len);
	at[0] = out->len;
	for (int k = 1; k < nlev; k++)
		at[k] = at[k - 1] + len[k - 1];
	for (size_t i = 0; i < g->len;) {
		size_t l = vlen(g->p + i, g->len - i);

		for (size_t k = 0; k < l; k++)
			out->p[at[k]++] = g->p[i + k];
		i += l;
	}
	out->len += g->len;
}

static int join_bytes(const unsigned char *p, size_t n, uint32_t nrows, struct bv *g)
{
	struct rd r = { p, n, 0, 0 };
	uint32_t nlev = rd_u32(&r);
	size_t at[MAXLEV], end[MAXLEV], sum = 0;

	if (r.bad || nlev > MAXLEV || (nlev == 0 && nrows))
		return -1;
	for (uint32_t k = 0; k < nlev; k++) {
		size_t l = rd_u32(&r);

		if (r.bad || l > n)
			return -1;
		sum += l;
	}
	if (sum != n - r.i)
		return -1;
	r.i = 4;
	for (uint32_t k = 0; k < nlev; k++) {
		at[k] = (k ? end[k - 1] : 4 + 4 * (size_t)nlev);
		end[k] = at[k] + rd_u32(&r);
	}
	g->len = 0;
	bv_grow(g, sum);
	for (uint32_t i = 0; i < nrows; i++) {
		for (uint32_t k = 0;; k++) {
			if (k >= nlev || at[k] >= end[k])
				return -1;
			unsigned char b = p[at[k]++];

			g->p[g->len++] = b;
			if (!(b & 128))
				break;
		}
	}
	for (uint32_t k = 0; k < nlev; k++)
		if (at[k] != end[k])
			return -1;
	return 0;
}

int pg_cols_pack(struct trace *t)
{
	uint32_t n = t->nrows, *count = kt_xcalloc(NCLASS, sizeof(*count));
	uint16_t *cls = kt_xcalloc(n ? n : 1, sizeof(*cls));
	size_t *at = kt_xcalloc(NCLASS, sizeof(*at));
	int rc = -1;

	if (row_classes(t->col[5].p, t->col[5].len, n, cls, count))
		goto out;
	for (int c = 0; c < NCOLS; c++) {
		struct bv *col = &t->col[c], g = { 0 };

		if (c == 5)
			continue;
		/* the bytes of each class, then each row's varint to its place */
		memset(at, 0, NCLASS * sizeof(*at));
		for (size_t i = 0, r = 0; r < n; r++) {
			size_t l = vlen(col->p + i, col->len - i);

			if (!l)
				goto out;
			at[cls[r]] += l;
			i += l;
		}
		size_t sum = 0;

		for (int k = 0; k < NCLASS; k++) {
			size_t l = at[k];

			at[k] = sum;
			sum += l;
		}
		if (sum != col->len)
			goto out;
		bv_grow(&g, sum);
		for (size_t i = 0, r = 0; r < n; r++) {
			size_t l = vlen(col->p + i, col->len - i);

			memcpy(g.p + at[cls[r]], col->p + i, l);
			at[cls[r]] += l;
			i += l;
		}
		g.len = sum;
		bv_free(col);
		if (split_col[c]) {
			split_bytes(&g, col);
			bv_free(&g);
		} else {
			*col = g;
		}
	}
	rc = 0;
out:
	free(count);
	free(cls);
	free(at);
	return rc;
}

int pg_cols_unpack(const unsigned char *const *p, const size_t *len, uint32_t nrows,
		   struct bv *out)
{
	uint32_t *count = kt_xcalloc(NCLASS, sizeof(*count));
	uint16_t *cls = kt_xcalloc(nrows ? nrows : 1, sizeof(*cls));
	size_t *at = kt_xcalloc(NCLASS, sizeof(*at)), *end = kt_xcalloc(NCLASS, sizeof(*end));
	struct bv g = { 0 };
	int rc = -1;

	if (row_classes(p[5], len[5], nrows, cls, count))
		goto out;
	for (int c = 0; c < NCOLS; c++) {
		out[c].len = 0;
		if (c == 5) {
			bv_add(&out[c], p[5], len[5]);
			continue;
		}
		const unsigned char *q = p[c];
		size_t n = len[c];

		if (split_col[c]) {
			if (join_bytes(q, n, nrows, &g))
				goto out;
			q = g.p;
			n = g.len;
		}
		/* where each class's varints begin and end */
		size_t i = 0;

		for (int k = 0; k < NCLASS; k++) {
			at[k] = i;
			for (uint32_t j = 0; j < count[k]; j++) {
				size_t l = vlen(q + i, n - i);

				if (!l)
					goto out;
				i += l;
			}
			end[k] = i;
		}
		if (i != n)
			goto out;
		bv_grow(&out[c], n);
		for (uint32_t r = 0; r < nrows; r++) {
			size_t l = vlen(q + at[cls[r]], end[cls[r]] - at[cls[r]]);

			memcpy(out[c].p + out[c].len, q + at[cls[r]], l);
			out[c].len += l;
			at[cls[r]] += l;
		}
	}
	rc = 0;
out:
	bv_free(&g);
	free(count);
	free(cls);
	free(at);
	free(end);
	return rc;
}

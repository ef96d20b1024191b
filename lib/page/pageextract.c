// SPDX-License-Identifier: BSD-3-Clause
/*
 * pageextract.c - a page's data back out (unmakeself): the KTV3/KTV2/KTV1
 * blob of pageenc.c inflated and decoded into the exact JSON text it was made
 * from, a KTJ1 blob's JSON as it is, and the JSON string of a page made by
 * the original makeself.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
/* KT_HAVE_ZLIB comes from the Makefile's one probe for zlib. */
#ifdef KT_HAVE_ZLIB
#include <zlib.h>
#endif

#include "rows.h"
#include "page.h"
#include "page-local.h"


static int b64val(int ch)
{
	const char *q = ch ? strchr(pg_b64, ch) : NULL;
	return q ? (int)(q - pg_b64) : -1;
}

#ifdef KT_HAVE_ZLIB
/*
 * The size of a blob as its own header declares it, walked over the first
 * n bytes: 1 and *size when known, 0 while more bytes are needed (*size is
 * then a lower bound), -1 when the header is impossible.  Inflating stops
 * at that size: a page cannot make us inflate more than it claims to hold.
 */
static int blob_size(const unsigned char *p, size_t n, uint64_t *size)
{
	uint64_t at = 12, cols = 0;
#define U32(o) ((uint64_t)p[o] | (uint64_t)p[o + 1] << 8 | (uint64_t)p[o + 2] << 16 | \
		(uint64_t)p[o + 3] << 24)
#define NEED(k) do { *size = at + (k); if (*size > n) return 0; } while (0)
	NEED(0);
	uint64_t nrows = U32(4);
	if (U32(8) != NCOLS)
		return -1;
	NEED(4 * NCOLS);
	for (int i = 0; i < NCOLS; i++) {
		uint64_t c = U32(at + 4 * (uint64_t)i);
		/* 1 to 10 bytes a varint, and KTV3's split columns' levels */
		if (c < nrows || c > 10 * nrows + 4 + 4 * 10)
			return -1;
		cols += c;
	}
	at += 4 * NCOLS + cols + 4;	/* columns, nstr */
	for (int i = 0; i < 4; i++) {	/* name lengths, names, prefix, suffix */
		NEED(4);
		at += 4 + U32(at);
	}
	/*
	 * Two counted lists: the glue strings (u:len bytes), then the
	 * exceptions (u:row u:len bytes); an item's head, 4 or 8 bytes, ends
	 * in the length of the bytes after it.
	 */
	for (uint64_t head = 4; head <= 8; head += 4) {
		NEED(4);
		uint64_t count = U32(at);
		at += 4;
		for (uint64_t i = 0; i < count; i++) {
			NEED(head);
			at += head + U32(at + head - 4);
		}
	}
	*size = at;
	return 1;
#undef NEED
#undef U32
}
#endif

static int extract_blob(FILE *out, const unsigned char *blob, size_t n, char *err, size_t errlen)
{
	struct rd r = { blob, n, 0, 0 };
	const unsigned char *magic = rd_bytes(&r, 4);
	if (magic && !memcmp(magic, "KTJ1", 4)) {
		/* An RPC or points page: the JSON text as it was. */
		fwrite(blob + 4, 1, n - 4, out);
		return 0;
	}
	int ver = !magic ? 0 : !memcmp(magic, "KTV1", 4) ? 1 : !memcmp(magic, "KTV2", 4) ? 2 :
		  !memcmp(magic, "KTV3", 4) ? 3 : 0;
	if (!ver) {
		snprintf(err, errlen, "embedded data is not a kutrace KTV1/KTV2/KTV3 blob");
		return -1;
	}
	uint32_t nrows = rd_u32(&r), ncols = rd_u32(&r);
	if (r.bad || ncols != NCOLS) {
		snprintf(err, errlen, "embedded data: bad header");
		return -1;
	}
	struct rd col[NCOLS];
	for (uint32_t i = 0; i < ncols; i++) {
		col[i].n = rd_u32(&r);
		col[i].bad = 0;
		col[i].i = 0;
	}
	for (uint32_t i = 0; i < ncols; i++) {
		col[i].p = rd_bytes(&r, col[i].n);
		if (r.bad)
			break;
	}
	/* KTV3: the same columns as KTV2 in another order; put back first */
	struct bv v3[NCOLS] = { 0 };
	if (ver == 3 && !r.bad) {
		const unsigned char *cp[NCOLS];
		size_t cn[NCOLS];
		for (int i = 0; i < NCOLS; i++)
			cp[i] = col[i].p, cn[i] = col[i].n;
		if (pg_cols_unpack(cp, cn, nrows, v3)) {
			for (int i = 0; i < NCOLS; i++)
				bv_free(&v3[i]);
			snprintf(err, errlen, "embedded data: bad columns");
			return -1;
		}
		for (int i = 0; i < NCOLS; i++)
			col[i].p = v3[i].p, col[i].n = v3[i].len;
		ver = 2;
	}
	uint32_t nstr = rd_u32(&r);
	struct rd lens = { 0 };
	lens.n = rd_u32(&r);
	lens.p = rd_bytes(&r, lens.n);
	uint32_t dlen = rd_u32(&r);
	const unsigned char *data = rd_bytes(&r, dlen);
	if (r.bad || nstr > n) {
		for (int i = 0; i < NCOLS; i++)
			bv_free(&v3[i]);
		snprintf(err, errlen, "embedded data: truncated");
		return -1;
	}
	size_t *soff = kt_xcalloc((size_t)nstr + 1, sizeof(size_t));
	for (uint32_t i = 0; i < nstr; i++) {
		int64_t l = rd_varint(&lens);
		if (l < 0 || (uint64_t)l > dlen - soff[i])
			lens.bad = 1;
		if (lens.bad)
			break;
		soff[i + 1] = soff[i] + (size_t)l;
	}
	uint32_t plen = rd_u32(&r);
	const unsigned char *prefix = rd_bytes(&r, plen);
	uint32_t slen = rd_u32(&r);
	const unsigned char *suffix = rd_bytes(&r, slen);
	uint32_t nglue = rd_u32(&r);
	/* each glue string takes at least its 4-byte length: refuse before allocating */
	if (r.bad || nglue > (r.n - r.i) / 4)
		nglue = 0, r.bad = 1;
	/* every row reads at least one byte of every column */
	for (int i = 0; i < NCOLS; i++)
		if (nrows > col[i].n)
			r.bad = 1;
	const unsigned char **gp = kt_xcalloc((size_t)nglue + 1, sizeof(*gp));
	uint32_t *gl = kt_xcalloc((size_t)nglue + 1, sizeof(*gl));
	for (uint32_t i = 0; i < nglue && !r.bad; i++) {
		gl[i] = rd_u32(&r);
		gp[i] = rd_bytes(&r, gl[i]);
	}
	uint32_t nexc = rd_u32(&r);
	int rc = -1;
	if (r.bad || lens.bad || nglue > n || nexc > nrows) {
		snprintf(err, errlen, "embedded data: truncated");
		goto out;
	}
	fwrite(prefix, 1, plen, out);
	int64_t ts = 0;
	uint32_t next_exc = UINT32_MAX, exc_len = 0;
	const unsigned char *exc_p = NULL;
	uint32_t exc_left = nexc;
#define NEXT_EXC() do { \
		if (exc_left) { exc_left--; next_exc = rd_u32(&r); exc_len = rd_u32(&r); \
			exc_p = rd_bytes(&r, exc_len); } else next_exc = UINT32_MAX; } while (0)
	NEXT_EXC();
	struct bv row = { 0 };
	struct pred pred;
	pg_pred_init(&pred);
	for (uint32_t k = 0; k < nrows; k++) {
		int64_t v[NCOLS];
		for (int i = 0; i < NCOLS; i++) {
			v[i] = rd_varint(&col[i]);
			r.bad |= col[i].bad;
		}
		if (r.bad)
			break;
		if (ver == 2) {
			int64_t rv[10];
			memcpy(rv, v, sizeof(rv));
			pg_pred_row(&pred, v, rv, 1);
			ts = v[0];
		} else {
			ts += v[0];
		}
		if (k > 0) {
			if (v[10] < 0 || v[10] >= nglue) {
				r.bad = 1;
				break;
			}
			fwrite(gp[v[10]], 1, gl[v[10]], out);
		}
		if (k == next_exc) {
			if (r.bad)
				break;
			fwrite(exc_p, 1, exc_len, out);
			NEXT_EXC();
			continue;
		}
		if (v[9] < 0 || v[9] >= nstr) {
			r.bad = 1;
			break;
		}
		int64_t fx[2] = { ts, v[1] };
		pg_canon_row(&row, fx, v, data + soff[v[9]], soff[v[9] + 1] - soff[v[9]]);
		fwrite(row.p, 1, row.len, out);
	}
#undef NEXT_EXC
	bv_free(&row);
	pg_pred_free(&pred);
	for (int i = 0; i < NCOLS; i++)
		if (col[i].bad)
			r.bad = 1;
	if (r.bad) {
		snprintf(err, errlen, "embedded data: damaged columns");
		goto out;
	}
	fwrite(suffix, 1, slen, out);
	rc = 0;
out:
	for (int i = 0; i < NCOLS; i++)
		bv_free(&v3[i]);
	free(soff);
	free(gp);
	free(gl);
	return rc;
}

int kt_html_extract(FILE *out, const char *html, size_t len, char *err, size_t errlen)
{
	const char *tag = memmem(html, len, "id=\"ktdata\"", 11);
	if (!tag) {
		/* A page made by the original makeself. */
		const char *m = memmem(html, len, "<!-- selfcontained1 -->", 23);
		const char *q = m ? memmem(m, len - (size_t)(m - html), "var myString = '", 16) : NULL;
		if (!q) {
			snprintf(err, errlen, "no embedded kutrace data in the page");
			return -1;
		}
		q += 16;
		const char *e = memchr(q, '\'', len - (size_t)(q - html));
		if (!e) {
			snprintf(err, errlen, "unterminated myString in the page");
			return -1;
		}
		fwrite(q, 1, (size_t)(e - q), out);
		return fflush(out) ? -1 : 0;
	}
	const char *rest = tag;
	size_t rlen = len - (size_t)(tag - html);
	int deflated = memmem(rest, rlen < 200 ? rlen : 200, "data-enc=\"deflate\"", 18) != NULL;
	const char *gt = memchr(rest, '>', rlen);
	const char *stop = gt ? memmem(gt, len - (size_t)(gt - html), "</script>", 9) : NULL;
	if (!stop) {
		snprintf(err, errlen, "damaged kutrace data element");
		return -1;
	}
	gt++;
	size_t b64len = (size_t)(stop - gt);
	unsigned char *raw = kt_xmalloc(b64len / 4 * 3 + 4);
	size_t rn = 0;
	uint32_t acc = 0;
	int bits = 0;
	for (size_t i = 0; i < b64len; i++) {
		int ch = (unsigned char)gt[i];
		if (ch == '=' || ch == '\n' || ch == '\r' || ch == ' ')
			continue;
		int v = b64val(ch);
		if (v < 0) {
			snprintf(err, errlen, "bad base64 in the kutrace data element");
			free(raw);
			return -1;
		}
		acc = acc << 6 | (uint32_t)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			raw[rn++] = (unsigned char)(acc >> bits);
		}
	}
	int rc;
	if (deflated) {
#ifdef KT_HAVE_ZLIB
		z_stream zs;
		memset(&zs, 0, sizeof(zs));
		struct bv o = { 0 };
		if (inflateInit(&zs) != Z_OK) {
			free(raw);
			snprintf(err, errlen, "zlib init failed");
			return -1;
		}
		zs.next_in = raw;
		zs.avail_in = (uInt)rn;
		int zr, known = 0;
		uint64_t size = 12;
		do {
			bv_grow(&o, 1 << 20);
			zs.next_out = o.p + o.len;
			zs.avail_out = (uInt)(o.cap - o.len);
			zr = inflate(&zs, Z_NO_FLUSH);
			o.len = o.cap - zs.avail_out;
			/*
			 * JSON text (KTJ1) declares no size: real JSON deflates
			 * about 10:1, so 100 times the compressed bytes is plenty.
			 */
			if (known == 0 && o.len >= 4 && !memcmp(o.p, "KTJ1", 4))
				known = 1, size = 100 * (uint64_t)rn + (1 << 20);
			while (known == 0 && o.len >= size)
				known = blob_size(o.p, o.len, &size);
			if (known < 0 || o.len > size)
				zr = Z_DATA_ERROR;
		} while (zr == Z_OK);
		inflateEnd(&zs);
		free(raw);
		if (zr != Z_STREAM_END) {
			bv_free(&o);
			snprintf(err, errlen, "damaged compressed data in the page");
			return -1;
		}
		rc = extract_blob(out, o.p, o.len, err, errlen);
		bv_free(&o);
#else
		free(raw);
		snprintf(err, errlen, "page data is compressed but built without zlib");
		return -1;
#endif
	} else {
		rc = extract_blob(out, raw, rn, err, errlen);
		free(raw);
	}
	if (rc == 0 && (fflush(out) || ferror(out))) {
		snprintf(err, errlen, "write error: %s", strerror(errno));
		rc = -1;
	}
	return rc;
}



// SPDX-License-Identifier: BSD-3-Clause
/*
 * pageenc.c - the column encoder of a CPU page: rows into the KTV2 blob,
 * then deflate and base64 into the page that html.c assembles.  Rows come
 * from the JSON front end (pagejson.c: makeself, or JSON from elsewhere)
 * or, in kutrace_postproc, straight from the row stream (pagerows.c):
 * the same rows give the same blob either way.  The extractor
 * (pageextract.c) reverses it for unmakeself.
 *
 * Blob layout (little endian u32 = "u", zig-zag LEB128 varint = "v"):
 *   "KTV3" u:nrows u:ncols u:collen[ncols] column bytes...
 *   columns, each nrows varints: ts (10 ns units), dur (10 ns), cpu,
 *     pid, rpc, event, arg, retval, ipc, name index, glue index, most of
 *     them as the difference from a prediction (struct pred) that the
 *     reader repeats:
 *     ts: an execution span (kernel, user, idle) on CPU c follows the
 *       end of the previous one on c, usually exactly: ts - that end;
 *       any other row: ts - the previous row's ts;
 *     pid: pid - the previous row's pid on the same CPU;
 *     event: 0 for user-mode execution of the row's pid (0x10000 + pid),
 *       else event + 1 if event >= 0, else event;
 *     name: 0 for the name last seen with the same event, else index + 1.
 *   The event column in row order, every other column grouped by the
 *   row's event value, and duration, arg and retval split by byte
 *   position (lib/page/pagecols.c says how and why).
 *   (KTV2, written before: every column in row order; KTV1: ts - previous
 *   ts, and every other column as it is; unmakeself reads both.)
 *   u:nstrings u:lenbytes  v:len[nstrings]  u:databytes  UTF-8 data
 *   text section (only unmakeself reads it): u:len prefix, u:len suffix,
 *     u:nglue (u:len bytes)*, u:nexc (u:row u:len bytes)*
 * The JSON is rebuilt as prefix row0 glue[g1] row1 ... suffix, where a row
 * is printed in the canonical eventtospan form unless it is listed in the
 * exceptions, which keep the row text as it was.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <pthread.h>
/* KT_HAVE_ZLIB comes from the Makefile's one probe for zlib. */
#ifdef KT_HAVE_ZLIB
#include <zlib.h>
#endif

#include "rows.h"
#include "page.h"
#include "page-local.h"

/* ---------------------------------------------------------------------- */
/* String interning with indices                                           */

static uint32_t str_hash(const char *s, size_t n)
{
	uint32_t h = 2166136261u;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	return h;
}

/*
 * String i's bytes.  Empty strings add nothing to data, so data.p stays
 * NULL while every string so far is empty, and NULL + 0 is undefined.
 */
const char *pg_strtab_at(const struct strtab *t, uint32_t i)
{
	return t->len[i] ? (const char *)t->data.p + t->off[i] : "";
}

uint32_t pg_strtab_intern(struct strtab *t, const char *s, size_t n)
{
	if (t->hcap == 0 || (t->n + 1) * 2 > t->hcap) {
		uint32_t nc = t->hcap ? t->hcap * 2 : 1024;
		uint32_t *nh = kt_xcalloc(nc, sizeof(*nh));
		for (uint32_t i = 0; i < t->n; i++) {
			uint32_t h = str_hash(pg_strtab_at(t, i), t->len[i]) & (nc - 1);
			while (nh[h])
				h = (h + 1) & (nc - 1);
			nh[h] = i + 1;
		}
		free(t->hash);
		t->hash = nh;
		t->hcap = nc;
	}
	uint32_t h = str_hash(s, n) & (t->hcap - 1);
	while (t->hash[h]) {
		uint32_t i = t->hash[h] - 1;
		if (t->len[i] == n && memcmp(pg_strtab_at(t, i), s, n) == 0)
			return i;
		h = (h + 1) & (t->hcap - 1);
	}
	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 256;
		t->off = kt_xrealloc(t->off, t->cap * sizeof(*t->off));
		t->len = kt_xrealloc(t->len, t->cap * sizeof(*t->len));
	}
	t->off[t->n] = t->data.len;
	t->len[t->n] = n;
	bv_add(&t->data, s, n);
	t->hash[h] = t->n + 1;
	return t->n++;
}

static void strtab_free(struct strtab *t)
{
	bv_free(&t->data);
	free(t->off);
	free(t->len);
	free(t->hash);
	memset(t, 0, sizeof(*t));
}

/* ---------------------------------------------------------------------- */
/* Reading the trace                                                       */
/* ---------------------------------------------------------------------- */

/*
 * Column prediction of KTV2 and KTV3 (see the blob layout above): the state that
 * the writer and the reader keep while going through the rows in order.
 */
#define PRED_NCPU 65536
#define PRED_EV_LO (-16)
#define PRED_EV_HI 0x40000
#define PRED_NONE INT64_MIN


void pg_pred_init(struct pred *p)
{
	p->prev_ts = 0;
	p->cpu_end = kt_xcalloc(PRED_NCPU, sizeof(*p->cpu_end));
	p->cpu_pid = kt_xcalloc(PRED_NCPU, sizeof(*p->cpu_pid));
	p->ev_nm = kt_xcalloc(PRED_EV_HI - PRED_EV_LO, sizeof(*p->ev_nm));
}

void pg_pred_free(struct pred *p)
{
	free(p->cpu_end);
	free(p->cpu_pid);
	free(p->ev_nm);
}

/* Two's-complement wrap: a hostile page may carry any 64-bit value. */
static inline int64_t wadd(int64_t a, int64_t b)
{
	return (int64_t)((uint64_t)a + (uint64_t)b);
}

static inline int64_t wsub(int64_t a, int64_t b)
{
	return (int64_t)((uint64_t)a - (uint64_t)b);
}

/*
 * One row's values v[0..9] (ts, dur, cpu, pid, rpc, event, arg, retval,
 * ipc, name) to the column values r[] and back (decode != 0: r[] in, v[]
 * out).  Decoding needs cpu, then pid, event, dur and ts, then name.
 */
void pg_pred_row(struct pred *p, int64_t *v, int64_t *r, int decode)
{
	int64_t cpu = decode ? r[2] : v[2];
	int cok = cpu >= 0 && cpu < PRED_NCPU;

	if (decode) {
		v[2] = r[2];
		v[3] = cok ? wadd(p->cpu_pid[cpu], r[3]) : r[3];
		v[5] = r[5] == 0 ? wadd(0x10000, v[3]) : r[5] > 0 ? r[5] - 1 : r[5];
		v[1] = r[1];
		for (int i = 4; i < 9; i++)
			if (i != 5)
				v[i] = r[i];
	} else {
		r[2] = v[2];
		r[3] = cok ? wsub(v[3], p->cpu_pid[cpu]) : v[3];
		r[5] = v[3] > 0 && v[5] == wadd(0x10000, v[3]) ? 0 : v[5] >= 0 ? wadd(v[5], 1) : v[5];
		r[1] = v[1];
		for (int i = 4; i < 9; i++)
			if (i != 5)
				r[i] = v[i];
	}
	if (cok)
		p->cpu_pid[cpu] = v[3];
	int ex = cok && pg_exec_event(v[5]);
	int64_t end = cok ? p->cpu_end[cpu] ^ PRED_NONE : PRED_NONE;
	int64_t base = ex && end != PRED_NONE ? end : p->prev_ts;
	/* unsigned: wraps instead of overflowing on absurd times */
	if (decode)
		v[0] = (int64_t)((uint64_t)base + (uint64_t)r[0]);
	else
		r[0] = (int64_t)((uint64_t)v[0] - (uint64_t)base);
	p->prev_ts = v[0];
	if (ex)
		p->cpu_end[cpu] = (int64_t)((uint64_t)v[0] + (uint64_t)v[1]) ^ PRED_NONE;
	int eok = v[5] >= PRED_EV_LO && v[5] < PRED_EV_HI;
	uint32_t *last = eok ? &p->ev_nm[v[5] - PRED_EV_LO] : NULL;
	int32_t nm = last ? (int32_t)(*last - 1u) : 0;
	if (decode)
		v[9] = r[9] == 0 && last ? nm : wadd(r[9], -1);
	else
		r[9] = last && nm == v[9] ? 0 : wadd(v[9], 1);
	if (last)
		*last = (uint32_t)(int32_t)v[9] + 1u;
}


/*
 * The canonical text of a row: json.c's row line without the ",\n" that
 * separates rows (here it is part of the glue between them).  A row whose
 * text is exactly this is stored as columns only.
 */
void pg_canon_row(struct bv *o, const int64_t *fx, const int64_t *iv,
		      const unsigned char *name, size_t nlen)
{
	o->len = 0;
	bv_grow(o, KT_JSON_HEAD_MAX + 6 * nlen + 2);
	o->len = kt_json_head((char *)o->p, fx, iv + 2);
	o->len += kt_json_end((char *)o->p + o->len, (const char *)name, nlen);
}

void pg_add_exc(struct trace *t, uint32_t row, const char *s, size_t n)
{
	bv_u32(&t->exc, row);
	bv_u32(&t->exc, (uint32_t)n);
	bv_add(&t->exc, s, n);
	t->nexc++;
}

void pg_trace_free(struct trace *t)
{
	pg_pred_free(&t->pred);
	for (int i = 0; i < NCOLS; i++)
		bv_free(&t->col[i]);
	strtab_free(&t->names);
	strtab_free(&t->glue);
	bv_free(&t->exc);
	bv_free(&t->meta);
}


/* ---------------------------------------------------------------------- */
/* Blob                                                                    */
/* ---------------------------------------------------------------------- */

static void put_strtab(struct bv *b, const struct strtab *t, int with_varint_lens)
{
	bv_u32(b, t->n);
	if (with_varint_lens) {
		struct bv lens = { 0 };
		for (uint32_t i = 0; i < t->n; i++)
			bv_varint(&lens, (int64_t)t->len[i]);
		bv_u32(b, (uint32_t)lens.len);
		bv_add(b, lens.p, lens.len);
		bv_free(&lens);
		bv_u32(b, (uint32_t)t->data.len);
		bv_add(b, t->data.p, t->data.len);
	} else {
		for (uint32_t i = 0; i < t->n; i++) {
			bv_u32(b, (uint32_t)t->len[i]);
			bv_add(b, pg_strtab_at(t, i), t->len[i]);
		}
	}
}

/*
 * The blob goes out in pieces through a sink (deflate + base64): the
 * columns are handed over as they are, never copied into one big blob.
 */
struct sink;
static void sink_add(struct sink *k, const void *p, size_t n);

static void sink_bv(struct sink *k, struct bv *b)
{
	sink_add(k, b->p, b->len);
	bv_free(b);
}

static int emit_blob(struct sink *k, struct trace *t, const char *json, size_t len)
{
	struct bv b = { 0 };

	if (pg_cols_pack(t))
		return -1;
	bv_add(&b, "KTV3", 4);
	bv_u32(&b, t->nrows);
	bv_u32(&b, NCOLS);
	for (int i = 0; i < NCOLS; i++)
		bv_u32(&b, (uint32_t)t->col[i].len);
	sink_bv(k, &b);
	for (int i = 0; i < NCOLS; i++)
		sink_bv(k, &t->col[i]);
	put_strtab(&b, &t->names, 1);
	bv_u32(&b, (uint32_t)t->prefix_end);
	bv_add(&b, json, t->prefix_end);
	/* The text may not end in a NUL: a mapping, or a NUL in the input. */
	const char *nul = memchr(json + t->suffix_start, 0, len - t->suffix_start);
	size_t n = nul ? (size_t)(nul - json) - t->suffix_start : len - t->suffix_start;

	bv_u32(&b, (uint32_t)n);
	bv_add(&b, json + t->suffix_start, n);
	put_strtab(&b, &t->glue, 0);
	bv_u32(&b, t->nexc);
	bv_add(&b, t->exc.p, t->exc.len);
	sink_bv(k, &b);
	return 0;
}

const char pg_b64[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static int write_base64(FILE *out, const unsigned char *p, size_t n)
{
	char buf[65536];
	size_t k = 0, i = 0;
	for (; i + 3 <= n; i += 3) {
		uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8 | p[i + 2];
		buf[k++] = pg_b64[v >> 18];
		buf[k++] = pg_b64[(v >> 12) & 63];
		buf[k++] = pg_b64[(v >> 6) & 63];
		buf[k++] = pg_b64[v & 63];
		if (k > sizeof(buf) - 8) {
			if (fwrite(buf, 1, k, out) != k)
				return -1;
			k = 0;
		}
	}
	if (i < n) {
		uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0);
		buf[k++] = pg_b64[v >> 18];
		buf[k++] = pg_b64[(v >> 12) & 63];
		buf[k++] = i + 1 < n ? pg_b64[(v >> 6) & 63] : '=';
		buf[k++] = '=';
	}
	return fwrite(buf, 1, k, out) == k ? 0 : -1;
}

/*
 * The blob, deflated (when zlib is there) and base64-encoded, in pieces:
 * no second copy of a blob that may be a few hundred MB.
 */
struct b64w {
	FILE *out;
	unsigned char carry[3];
	int nc;
	int bad;
};

static void b64_feed(struct b64w *w, const unsigned char *p, size_t n)
{
	if (w->nc) {
		while (w->nc < 3 && n) {
			w->carry[w->nc++] = *p++;
			n--;
		}
		if (w->nc < 3)
			return;
		if (write_base64(w->out, w->carry, 3))
			w->bad = 1;
		w->nc = 0;
	}
	size_t whole = n / 3 * 3;

	if (whole && write_base64(w->out, p, whole))
		w->bad = 1;
	for (size_t i = whole; i < n; i++)
		w->carry[w->nc++] = p[i];
}

static int b64_end(struct b64w *w)
{
	if (w->nc && write_base64(w->out, w->carry, (size_t)w->nc))
		w->bad = 1;
	return w->bad ? -1 : 0;
}

/*
 * Deflate on every core: the blob is cut into ZCHUNK pieces, each
 * deflated on its own as raw deflate with the 32 KB before it as its
 * dictionary and ended by a sync flush (the last by Z_FINISH), as pigz
 * does.  Behind one zlib header and before the Adler-32 of the whole,
 * the pieces are one ordinary zlib stream: the browser's
 * DecompressionStream('deflate') and inflate() read it as any other.
 * The bytes depend on ZCHUNK and the level only, never on the number of
 * threads.  Level 2, not zlib's default 6: on these columns (many short
 * repeats) level 6 spends 4.5 times as long for 7 % fewer bytes (a 10 MB
 * trace's 22.9 MB blob: 0.40 s and 8.31 MB at level 2, 1.8 s and 7.75 MB
 * at 6), and a page is made far more often than it is copied.
 */
#define ZLEVEL 2
#define ZCHUNK (1u << 22)
#define ZDICT 32768u
#define ZJOBS 8

#ifdef KT_HAVE_ZLIB
struct zjob {
	const unsigned char *in, *dict;
	size_t inlen, dictlen;
	int last;
	unsigned char *out;
	size_t outlen;
	int bad;
};

static void *zjob_run(void *arg)
{
	struct zjob *j = arg;
	z_stream z;

	memset(&z, 0, sizeof(z));
	j->bad = 1;
	if (deflateInit2(&z, ZLEVEL, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return NULL;
	if (j->dictlen && deflateSetDictionary(&z, j->dict, (uInt)j->dictlen) != Z_OK)
		goto out;
	size_t cap = deflateBound(&z, (uLong)j->inlen) + 64;

	j->out = malloc(cap);
	if (!j->out)
		goto out;
	z.next_in = (unsigned char *)j->in;
	z.avail_in = (uInt)j->inlen;
	z.next_out = j->out;
	z.avail_out = (uInt)cap;
	int zr = deflate(&z, j->last ? Z_FINISH : Z_SYNC_FLUSH);

	if ((j->last && zr != Z_STREAM_END) || (!j->last && zr != Z_OK) || z.avail_in)
		goto out;
	j->outlen = cap - z.avail_out;
	j->bad = 0;
out:
	deflateEnd(&z);
	return NULL;
}
#endif

struct sink {
	struct b64w w;
	int bad;
#ifdef KT_HAVE_ZLIB
	int njobs;		/* pieces deflated at the same time */
	unsigned char *buf;	/* njobs pieces of input, back to back */
	size_t len;		/* bytes in buf */
	unsigned char dict[ZDICT];	/* the input before buf */
	size_t dictlen;
	uLong adler;
#endif
};

#ifdef KT_HAVE_ZLIB
/* Deflate what buf holds (whole pieces, or the rest when last). */
static void sink_run(struct sink *k, int last)
{
	struct zjob job[ZJOBS];
	pthread_t tid[ZJOBS];
	int started[ZJOBS] = { 0 };
	int n = (int)((k->len + ZCHUNK - 1) / ZCHUNK);

	if (!n && last)
		n = 1;	/* an empty last piece still ends the stream */
	k->adler = adler32(k->adler, k->buf, (uInt)k->len);
	for (int i = 0; i < n; i++) {
		size_t at = (size_t)i * ZCHUNK;

		job[i] = (struct zjob){
			.in = k->buf + at,
			.inlen = k->len - at < ZCHUNK ? k->len - at : ZCHUNK,
			.dict = i ? k->buf + at - ZDICT : k->dict,
			.dictlen = i ? ZDICT : k->dictlen,
			.last = last && i == n - 1,
		};
		if (i > 0)
			started[i] = pthread_create(&tid[i], NULL, zjob_run, &job[i]) == 0;
	}
	if (n)
		zjob_run(&job[0]);
	for (int i = 1; i < n; i++) {
		if (started[i])
			pthread_join(tid[i], NULL);
		else
			zjob_run(&job[i]);
	}
	for (int i = 0; i < n; i++) {
		if (job[i].bad)
			k->bad = 1;
		else
			b64_feed(&k->w, job[i].out, job[i].outlen);
		free(job[i].out);
	}
	if (k->len >= ZDICT) {
		memcpy(k->dict, k->buf + k->len - ZDICT, ZDICT);
		k->dictlen = ZDICT;
	}
	k->len = 0;
}
#endif

static void sink_add(struct sink *k, const void *p, size_t n)
{
#ifdef KT_HAVE_ZLIB
	const unsigned char *q = p;
	size_t cap = (size_t)k->njobs * ZCHUNK;

	while (n) {
		size_t room = cap - k->len, take = n < room ? n : room;

		memcpy(k->buf + k->len, q, take);
		k->len += take;
		q += take;
		n -= take;
		if (k->len == cap)
			sink_run(k, 0);
	}
#else
	b64_feed(&k->w, p, n);
#endif
}

static struct sink *sink_open(FILE *out)
{
	struct sink *k = kt_xcalloc(1, sizeof(*k));

	k->w.out = out;
#ifdef KT_HAVE_ZLIB
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);

	k->njobs = cpus < 1 ? 1 : cpus > ZJOBS ? ZJOBS : (int)cpus;
	k->buf = kt_xmalloc((size_t)k->njobs * ZCHUNK);
	k->adler = adler32(0, NULL, 0);
	/* zlib's header: a 32 KB window, FLEVEL 1 ("fast") for level 2. */
	b64_feed(&k->w, (const unsigned char *)"\x78\x5e", 2);
#endif
	return k;
}

static int sink_close(struct sink *k)
{
	int rc = -1;

#ifdef KT_HAVE_ZLIB
	sink_run(k, 1);
	unsigned char tr[4] = { (unsigned char)(k->adler >> 24), (unsigned char)(k->adler >> 16),
				(unsigned char)(k->adler >> 8), (unsigned char)k->adler };

	b64_feed(&k->w, tr, 4);
	free(k->buf);
#endif
	if (!k->bad && !k->w.bad && b64_end(&k->w) == 0)
		rc = 0;
	free(k);
	return rc;
}

int pg_write_blob(FILE *out, struct trace *t, const char *json, size_t len)
{
	struct sink *k = sink_open(out);

	if (t) {
		if (emit_blob(k, t, json, len))
			k->bad = 1;
	} else {
		/* An RPC or points page: "KTJ1" + the JSON text. */
		sink_add(k, "KTJ1", 4);
		sink_add(k, json, len);
	}
	return sink_close(k);
}

int pg_write_bytes(FILE *out, const void *p, size_t n)
{
	struct sink *k = sink_open(out);

	sink_add(k, p, n);
	return sink_close(k);
}

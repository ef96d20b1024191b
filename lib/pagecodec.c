// SPDX-License-Identifier: BSD-3-Clause
/*
 * html.c - embed KUtrace JSON into the timeline viewer template, and get it
 * back out (makeself, unmakeself, kutrace_postproc).
 *
 * Reading the JSON.  The header values (title, savedview, extra ...) are
 * small and are parsed with jansson, the Debian JSON library, when it is
 * available at build time.  The "events" array is read by the hand-written
 * row scanner below, on purpose: a 10M-span trace is about 750 MB of JSON,
 * and a DOM library would need several GB (one json_t per field, 100M of
 * them) and tens of seconds; the scanner reads the rows straight into
 * columns at several hundred MB/s.  It follows the JSON grammar strictly
 * (RFC 8259 numbers, strings with every escape incl. surrogate pairs,
 * whitespace), keeps a line number, never reads past the buffer, limits
 * nesting depth, and turns every error into one line of text; the values
 * that are not event rows are checked by the same scanner and by jansson.
 *
 * Blob layout (little endian u32 = "u", zig-zag LEB128 varint = "v"):
 *   "KTV2" u:nrows u:ncols u:collen[ncols] column bytes...
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
 *   (KTV1, written before: ts - previous ts, and every other column as
 *   it is; unmakeself still reads it.)
 *   u:nstrings u:lenbytes  v:len[nstrings]  u:databytes  UTF-8 data
 *   text section (only unmakeself reads it): u:len prefix, u:len suffix,
 *     u:nglue (u:len bytes)*, u:nexc (u:row u:len bytes)*
 * The JSON is rebuilt as prefix row0 glue[g1] row1 ... suffix, where a row
 * is printed in the canonical eventtospan form unless it is listed in the
 * exceptions, which keep the row text as it was.
 * RPC and points pages: "KTJ1" + the JSON text (see check_page).
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include <jansson.h>
/* KT_HAVE_ZLIB comes from the Makefile's one probe for zlib. */
#ifdef KT_HAVE_ZLIB
#include <zlib.h>
#endif
#define KT_HAVE_JANSSON 1

#include "kutrace-local.h"
#include "html.h"
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
static const char *strtab_at(const struct strtab *t, uint32_t i)
{
	return t->len[i] ? (const char *)t->data.p + t->off[i] : "";
}

static uint32_t strtab_intern(struct strtab *t, const char *s, size_t n)
{
	if (t->hcap == 0 || (t->n + 1) * 2 > t->hcap) {
		uint32_t nc = t->hcap ? t->hcap * 2 : 1024;
		uint32_t *nh = kt_xcalloc(nc, sizeof(*nh));
		for (uint32_t i = 0; i < t->n; i++) {
			uint32_t h = str_hash(strtab_at(t, i), t->len[i]) & (nc - 1);
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
		if (t->len[i] == n && memcmp(strtab_at(t, i), s, n) == 0)
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
 * Column prediction of KTV2 (see the blob layout above): the state that
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

static void pred_free(struct pred *p)
{
	free(p->cpu_end);
	free(p->cpu_pid);
	free(p->ev_nm);
}

/* Kernel, user or idle execution: the spans that tile a CPU's time. */
static int pred_exec(int64_t ev)
{
	return (ev >= 0 && ev < 0x200) || (ev >= 0x400 && ev < 0x1000) || ev >= 0x10000;
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
static void pred_row(struct pred *p, int64_t *v, int64_t *r, int decode)
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
	int ex = cok && pred_exec(v[5]);
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
static void canon_row(struct bv *o, const int64_t *fx, const int64_t *iv,
		      const unsigned char *name, size_t nlen)
{
	o->len = 0;
	bv_grow(o, KT_JSON_HEAD_MAX + 6 * nlen + 2);
	o->len = kt_json_head((char *)o->p, fx, iv + 2);
	o->len += kt_json_end((char *)o->p + o->len, (const char *)name, nlen);
}

static void add_exc(struct trace *t, uint32_t row, const char *s, size_t n)
{
	bv_u32(&t->exc, row);
	bv_u32(&t->exc, (uint32_t)n);
	bv_add(&t->exc, s, n);
	t->nexc++;
}

/*
 * Parse one event row at c->p.  Fills the columns.
 */
static int read_row(struct sc *c, struct trace *t,
		    struct bv *name, struct bv *canon, int64_t *row_ts)
{
	size_t st = c->p;
	int64_t fx[9], iv[9];
	int canonical = 1;

	if (sc_peek(c) != '[')
		return sc_fail(c, "event row %u: expected '[', found %s",
			       t->nrows, sc_what(sc_peek(c)));
	c->p++;
	name->len = 0;
	int nf = 0;
	for (;;) {
		sc_ws(c);
		int ch = sc_peek(c);
		if (nf == 9 && ch == '"') {
			if (sc_string(c, name))
				return -1;
			nf++;
		} else if (nf < 9) {
			double d;
			int isf;
			if (sc_number(c, &d, &fx[nf], &isf))
				return sc_fail(c, "event row %u field %d: expected a number",
					       t->nrows, nf + 1);
			if (!isf)
				canonical = 0;
			if (nf >= 2) {
				/*
				 * Integer columns hold signed or unsigned 32-bit
				 * values (arg carries a full 32-bit argument, e.g.
				 * mark_d); anything else is kept as text.
				 */
				if (d != d || d > UINT32_MAX || d < INT32_MIN ||
				    d != (double)(int64_t)d) {
					canonical = 0;
					iv[nf] = (d != d) ? 0 : d > UINT32_MAX ? UINT32_MAX :
						 d < INT32_MIN ? INT32_MIN : (int64_t)d;
				} else {
					iv[nf] = (int64_t)d;
				}
			}
			nf++;
		} else {
			return sc_fail(c, "event row %u: more than 10 fields", t->nrows);
		}
		sc_ws(c);
		ch = sc_peek(c);
		if (ch == ',') {
			c->p++;
			continue;
		}
		if (ch == ']') {
			c->p++;
			break;
		}
		return sc_fail(c, "event row %u: expected ',' or ']', found %s",
			       t->nrows, sc_what(ch));
	}
	if (nf < 9)
		return sc_fail(c, "event row %u: %d fields, need 9 or 10", t->nrows, nf);
	if (nf == 9)
		canonical = 0;
	if (canonical) {
		canon_row(canon, fx, iv, name->p ? name->p : (unsigned char *)"", name->len);
		if (canon->len != c->p - st || memcmp(canon->p, c->s + st, canon->len))
			canonical = 0;
	}
	if (!canonical)
		add_exc(t, t->nrows, c->s + st, c->p - st);
	int64_t v[10], r[10];
	v[0] = fx[0];
	v[1] = fx[1];
	for (int i = 2; i < 9; i++)
		v[i] = iv[i];
	v[9] = strtab_intern(&t->names, name->p ? (char *)name->p : "", name->len);
	pred_row(&t->pred, v, r, 0);
	for (int i = 0; i < 10; i++)
		bv_varint(&t->col[i], r[i]);
	*row_ts = fx[0];
	t->nrows++;
	return 0;
}

/* Append "<" -> \u003c escaped copy (safe inside <script>). */
static void add_script_safe(struct bv *o, const char *s, size_t n)
{
	size_t st = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '<') {
			bv_add(o, s + st, i - st);
			bv_add(o, "\\u003c", 6);
			st = i + 1;
		}
	}
	bv_add(o, s + st, n - st);
}

void pg_trace_free(struct trace *t)
{
	pred_free(&t->pred);
	for (int i = 0; i < NCOLS; i++)
		bv_free(&t->col[i]);
	strtab_free(&t->names);
	strtab_free(&t->glue);
	bv_free(&t->exc);
	bv_free(&t->meta);
}

int sc_key_is(const struct bv *k, const char *s)
{
	return k->len == strlen(s) && memcmp(k->p, s, k->len) == 0;
}

/*
 * The top-level object of a KUtrace JSON file, strictly: one(c, key, arg)
 * is called with c->p at each value and must consume it (0), fail (-1,
 * error set in c) or stop the walk (1, returned as it is).  Checks that
 * nothing but whitespace follows the object.
 */
int sc_top(struct sc *c, int (*one)(struct sc *, struct bv *, void *), void *arg)
{
	struct bv key = { 0 };
	int rc = -1;

	if (c->n >= 3 && memcmp(c->s, "\xEF\xBB\xBF", 3) == 0)
		c->p = 3;
	sc_ws(c);
	if (sc_peek(c) != '{') {
		sc_fail(c, "expected '{' at the start of a KUtrace JSON file, found %s",
			sc_what(sc_peek(c)));
		goto out;
	}
	c->p++;
	sc_ws(c);
	if (sc_peek(c) == '}') {
		c->p++;
	} else {
		for (;;) {
			sc_ws(c);
			key.len = 0;
			if (sc_string(c, &key))
				goto out;
			sc_ws(c);
			if (sc_peek(c) != ':') {
				sc_fail(c, "expected ':', found %s", sc_what(sc_peek(c)));
				goto out;
			}
			c->p++;
			sc_ws(c);
			int r = one(c, &key, arg);

			if (r) {
				rc = r;
				goto out;
			}
			sc_ws(c);
			int ch = sc_peek(c);

			if (ch != ',' && ch != '}') {
				sc_fail(c, "expected ',' or '}' after a top-level value, found %s",
					sc_what(ch));
				goto out;
			}
			c->p++;
			if (ch == '}')
				break;
		}
	}
	sc_ws(c);
	if (c->p != c->n) {
		sc_fail(c, "text after the end of the JSON object");
		goto out;
	}
	rc = 0;
out:
	bv_free(&key);
	return rc;
}

/* read_trace's state while sc_top walks the keys. */
struct rt {
	struct trace *t;
	struct bv name, canon;
	int have_events;
	/* Sentinel bookkeeping: start/end of the last two rows. */
	size_t last_end, prev_end;
	int64_t last_ts;
#ifdef KT_HAVE_JANSSON
	json_t *meta;
#else
	int nmeta;
#endif
};

/* The events array into the columns. */
static int rt_events(struct sc *c, struct rt *s)
{
	struct trace *t = s->t;

	if (sc_peek(c) != '[')
		return sc_fail(c, "\"events\" is not an array");
	c->p++;
	sc_ws(c);
	t->prefix_end = c->p;
	if (sc_peek(c) == ']') {
		c->p++;
	} else {
		for (;;) {
			size_t st = c->p;
			uint32_t gl = 0;
			if (t->nrows > 0)
				gl = strtab_intern(&t->glue, c->s + s->last_end, st - s->last_end);
			else
				t->prefix_end = st;
			if (read_row(c, t, &s->name, &s->canon, &s->last_ts))
				return -1;
			sc_drop(c);
			bv_varint(&t->col[10], gl);
			s->prev_end = s->last_end;
			s->last_end = c->p;
			sc_ws(c);
			int ch = sc_peek(c);
			if (ch == ',') {
				c->p++;
				sc_ws(c);
				continue;
			}
			if (ch == ']') {
				c->p++;
				break;
			}
			return sc_fail(c, "expected ',' or ']' after event row %u, found %s",
				       t->nrows - 1, sc_what(ch));
		}
	}
	t->suffix_start = t->nrows ? s->last_end : t->prefix_end;
	return 0;
}

static int rt_key(struct sc *c, struct bv *key, void *arg)
{
	struct rt *s = arg;

	if (sc_key_is(key, "events") && !s->have_events) {
		s->have_events = 1;
		return rt_events(c, s);
	}
	size_t vst = c->p;
	if (sc_skip(c, 1))
		return -1;
#ifdef KT_HAVE_JANSSON
	json_error_t je;
	json_t *v = json_loadb(c->s + vst, c->p - vst, JSON_DECODE_ANY | JSON_ALLOW_NUL, &je);
	if (!v)
		return sc_fail(c, "value of \"%.*s\": %s", (int)(key->len > 40 ? 40 : key->len),
			       (char *)key->p, je.text);
	bv_add(key, "", 1);
	json_object_set_new(s->meta, (char *)key->p, v);
#else
	struct bv *m = &s->t->meta;
	if (s->nmeta++)
		bv_add(m, ",", 1);
	bv_add(m, "\"", 1);
	bv_grow(m, 6 * key->len);
	m->len += kt_json_escape_mem((char *)m->p + m->len, (const char *)key->p, key->len);
	bv_add(m, "\":", 2);
	bv_add(m, c->s + vst, c->p - vst);
#endif
	return 0;
}

int pg_read_trace(struct sc *c, struct trace *t)
{
	struct rt s = { .t = t };
	int rc = -1;
#ifdef KT_HAVE_JANSSON
	s.meta = json_object();
#else
	bv_add(&t->meta, "{", 1);
#endif

	if (sc_top(c, rt_key, &s))
		goto out;
	if (!s.have_events) {
		sc_fail(c, "no \"events\" array");
		goto out;
	}
	/* Drop the end marker [999.0, ...] into the suffix. */
	if (t->nrows > 0 && s.last_ts >= 99900000000LL) {
		t->nrows--;
		for (int i = 0; i < NCOLS; i++) {
			/* Remove the last varint of each column. */
			struct bv *b = &t->col[i];
			size_t k = b->len - 1;
			while (k > 0 && (b->p[k - 1] & 0x80))
				k--;
			b->len = k;
		}
		if (t->nexc) {
			/* The sentinel may have been an exception: drop it. */
			size_t off = 0;
			uint32_t kept = 0;
			size_t lastoff = 0;
			for (uint32_t i = 0; i < t->nexc; i++) {
				uint32_t row, len;
				memcpy(&row, t->exc.p + off, 4);
				memcpy(&len, t->exc.p + off + 4, 4);
				if (row < t->nrows) {
					kept++;
					lastoff = off + 8 + len;
				}
				off += 8 + len;
			}
			t->nexc = kept;
			t->exc.len = lastoff;
		}
		t->suffix_start = t->nrows ? s.prev_end : t->prefix_end;
	}
	rc = 0;
out:
#ifdef KT_HAVE_JANSSON
	if (rc == 0) {
		char *js = json_dumps(s.meta, JSON_COMPACT | JSON_ENSURE_ASCII | JSON_ALLOW_NUL);
		if (!js) {
			snprintf(c->err, c->errlen, "cannot encode the JSON header");
			rc = -1;
		} else {
			add_script_safe(&t->meta, js, strlen(js));
			free(js);
		}
	}
	json_decref(s.meta);
#else
	if (rc == 0) {
		struct bv tmp = { 0 };
		bv_add(&tmp, t->meta.p, t->meta.len);
		bv_add(&tmp, "}", 1);
		t->meta.len = 0;
		add_script_safe(&t->meta, (char *)tmp.p, tmp.len);
		bv_free(&tmp);
	}
#endif
	bv_free(&s.name);
	bv_free(&s.canon);
	return rc;
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
			bv_add(b, strtab_at(t, i), t->len[i]);
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

static void emit_blob(struct sink *k, struct trace *t, const char *json, size_t len)
{
	struct bv b = { 0 };

	bv_add(&b, "KTV2", 4);
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
}

static const char b64[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static int write_base64(FILE *out, const unsigned char *p, size_t n)
{
	char buf[65536];
	size_t k = 0, i = 0;
	for (; i + 3 <= n; i += 3) {
		uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8 | p[i + 2];
		buf[k++] = b64[v >> 18];
		buf[k++] = b64[(v >> 12) & 63];
		buf[k++] = b64[(v >> 6) & 63];
		buf[k++] = b64[v & 63];
		if (k > sizeof(buf) - 8) {
			if (fwrite(buf, 1, k, out) != k)
				return -1;
			k = 0;
		}
	}
	if (i < n) {
		uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0);
		buf[k++] = b64[v >> 18];
		buf[k++] = b64[(v >> 12) & 63];
		buf[k++] = i + 1 < n ? b64[(v >> 6) & 63] : '=';
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

struct sink {
	struct b64w w;
#ifdef KT_HAVE_ZLIB
	z_stream z;
	unsigned char buf[1 << 16];
#endif
	int bad;
};

static void sink_deflate(struct sink *k, const unsigned char *p, size_t n, int flush)
{
#ifdef KT_HAVE_ZLIB
	do {
		/* avail_in is 32 bits: at most 1 GB at a time. */
		size_t chunk = n > (1u << 30) ? (1u << 30) : n;
		int last = flush && chunk == n;

		k->z.next_in = (unsigned char *)p;
		k->z.avail_in = (uInt)chunk;
		p += chunk;
		n -= chunk;
		do {
			k->z.next_out = k->buf;
			k->z.avail_out = sizeof(k->buf);
			int zr = deflate(&k->z, last ? Z_FINISH : Z_NO_FLUSH);

			if (zr == Z_STREAM_ERROR) {
				k->bad = 1;
				return;
			}
			b64_feed(&k->w, k->buf, sizeof(k->buf) - k->z.avail_out);
		} while (k->z.avail_out == 0);
	} while (n);
#else
	(void)flush;
	b64_feed(&k->w, p, n);
#endif
}

static void sink_add(struct sink *k, const void *p, size_t n)
{
	if (n)
		sink_deflate(k, p, n, 0);
}

int pg_write_blob(FILE *out, struct trace *t, const char *json, size_t len)
{
	struct sink *k = kt_xcalloc(1, sizeof(*k));
	int rc = -1;

	k->w.out = out;
#ifdef KT_HAVE_ZLIB
	if (deflateInit(&k->z, 6) != Z_OK)
		goto out;
#endif
	if (t) {
		emit_blob(k, t, json, len);
	} else {
		/* An RPC or points page: "KTJ1" + the JSON text. */
		sink_add(k, "KTJ1", 4);
		sink_add(k, json, len);
	}
	sink_deflate(k, (const unsigned char *)"", 0, 1);
#ifdef KT_HAVE_ZLIB
	deflateEnd(&k->z);
#endif
	if (!k->bad && b64_end(&k->w) == 0)
		rc = 0;
#ifdef KT_HAVE_ZLIB
out:
#endif
	free(k);
	return rc;
}

/* ---------------------------------------------------------------------- */
/* Extraction                                                              */
/* ---------------------------------------------------------------------- */

struct rd {
	const unsigned char *p;
	size_t n, i;
	int bad;
};

static uint32_t rd_u32(struct rd *r)
{
	if (r->i + 4 > r->n) {
		r->bad = 1;
		return 0;
	}
	const unsigned char *q = r->p + r->i;
	r->i += 4;
	return (uint32_t)q[0] | (uint32_t)q[1] << 8 | (uint32_t)q[2] << 16 | (uint32_t)q[3] << 24;
}

static int64_t rd_varint(struct rd *r)
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

static const unsigned char *rd_bytes(struct rd *r, size_t n)
{
	if (n > r->n - r->i) {
		r->bad = 1;
		return NULL;
	}
	const unsigned char *q = r->p + r->i;
	r->i += n;
	return q;
}

static int b64val(int ch)
{
	const char *q = ch ? strchr(b64, ch) : NULL;
	return q ? (int)(q - b64) : -1;
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
		if (c < nrows || c > 10 * nrows)	/* 1 to 10 bytes a varint */
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
	int ver = !magic ? 0 : !memcmp(magic, "KTV1", 4) ? 1 : !memcmp(magic, "KTV2", 4) ? 2 : 0;
	if (!ver) {
		snprintf(err, errlen, "embedded data is not a kutrace KTV1/KTV2 blob");
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
	uint32_t nstr = rd_u32(&r);
	struct rd lens = { 0 };
	lens.n = rd_u32(&r);
	lens.p = rd_bytes(&r, lens.n);
	uint32_t dlen = rd_u32(&r);
	const unsigned char *data = rd_bytes(&r, dlen);
	if (r.bad || nstr > n) {
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
			pred_row(&pred, v, rv, 1);
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
		canon_row(&row, fx, v, data + soff[v[9]], soff[v[9] + 1] - soff[v[9]]);
		fwrite(row.p, 1, row.len, out);
	}
#undef NEXT_EXC
	bv_free(&row);
	pred_free(&pred);
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


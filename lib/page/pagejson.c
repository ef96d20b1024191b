// SPDX-License-Identifier: BSD-3-Clause
/*
 * pagejson.c - the JSON front end of a page: a KUtrace JSON text (makeself,
 * or kutrace_postproc's fallback) into the columns of pageenc.c.
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
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>
#define KT_HAVE_JANSSON 1

#include "rows.h"
#include "page.h"
#include "page-local.h"

/*
 * Parse one event row at c->p.  Fills the columns.
 */
int pg_read_row(struct sc *c, struct trace *t,
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
		pg_canon_row(canon, fx, iv, name->p ? name->p : (unsigned char *)"", name->len);
		if (canon->len != c->p - st || memcmp(canon->p, c->s + st, canon->len))
			canonical = 0;
	}
	if (!canonical)
		pg_add_exc(t, t->nrows, c->s + st, c->p - st);
	int64_t v[10], r[10];
	v[0] = fx[0];
	v[1] = fx[1];
	for (int i = 2; i < 9; i++)
		v[i] = iv[i];
	v[9] = pg_strtab_intern(&t->names, name->p ? (char *)name->p : "", name->len);
	pg_pred_row(&t->pred, v, r, 0);
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
				gl = pg_strtab_intern(&t->glue, c->s + s->last_end, st - s->last_end);
			else
				t->prefix_end = st;
			if (pg_read_row(c, t, &s->name, &s->canon, &s->last_ts))
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


// SPDX-License-Identifier: BSD-3-Clause
/*
 * jscan.c - the strict JSON scanner of the page code (page-local.h): RFC
 * 8259 numbers, strings with every escape incl. surrogate pairs, a line
 * number, never past the buffer, nesting limited, every error one line.
 * Hand-written on purpose: a 10M-span trace is about 750 MB of JSON, which
 * a DOM library would need several GB and tens of seconds for.  Not the
 * row parser of json.c (kt_json_parse_row), which trusts our own lines:
 * a page's JSON comes from anywhere, so this one checks everything, and
 * it reads into columns, not rows.  Rows it reads are compared with, and
 * rebuilt from, json.c's one row formatter (pageenc.c, pg_canon_row).
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

#include "rows.h"
#include "page.h"
#include "page-local.h"

/* ---------------------------------------------------------------------- */
/* JSON scanner                                                            */

/*
 * A mapped JSON file of several GB must not stay resident: every 8 MB
 * the pages already scanned are given back (they are re-read from the
 * page cache if an error message needs to count lines).
 */
void sc_drop(struct sc *c)
{
	size_t pg = 1 << 23;

	if (!c->mapped || c->p - c->dropped < 2 * pg)
		return;
	size_t upto = (c->p - pg) & ~(size_t)(pg - 1);

	if (upto > c->dropped) {
		madvise((char *)c->s + c->dropped, upto - c->dropped, MADV_DONTNEED);
		c->dropped = upto;
	}
}

static long sc_line(struct sc *c)
{
	/* Count newlines lazily, only for error messages. */
	long line = 1;
	for (size_t i = 0; i < c->p && i < c->n; i++)
		if (c->s[i] == '\n')
			line++;
	return line;
}

__attribute__((format(printf, 2, 3)))
int sc_fail(struct sc *c, const char *fmt, ...)
{
	if (c->failed)
		return -1;
	char msg[200];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(c->err, c->errlen, "JSON line %ld: %s", sc_line(c), msg);
	c->failed = 1;
	return -1;
}



const char *sc_what(int ch)
{
	static char b[16];
	if (ch < 0)
		return "end of input";
	if (ch >= 0x20 && ch < 0x7f)
		snprintf(b, sizeof(b), "'%c'", ch);
	else
		snprintf(b, sizeof(b), "byte 0x%02x", ch);
	return b;
}

static int hexval(int ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

static void put_utf8(struct bv *o, uint32_t cp)
{
	unsigned char t[4];
	size_t n;
	if (cp < 0x80) {
		t[0] = (unsigned char)cp;
		n = 1;
	} else if (cp < 0x800) {
		t[0] = 0xC0 | (cp >> 6);
		t[1] = 0x80 | (cp & 63);
		n = 2;
	} else if (cp < 0x10000) {
		t[0] = 0xE0 | (cp >> 12);
		t[1] = 0x80 | ((cp >> 6) & 63);
		t[2] = 0x80 | (cp & 63);
		n = 3;
	} else {
		t[0] = 0xF0 | (cp >> 18);
		t[1] = 0x80 | ((cp >> 12) & 63);
		t[2] = 0x80 | ((cp >> 6) & 63);
		t[3] = 0x80 | (cp & 63);
		n = 4;
	}
	bv_add(o, t, n);
}

static int sc_hex4(struct sc *c, uint32_t *v)
{
	if (c->p + 4 > c->n)
		return sc_fail(c, "truncated \\u escape");
	uint32_t x = 0;
	for (int i = 0; i < 4; i++) {
		int h = hexval((unsigned char)c->s[c->p + i]);
		if (h < 0)
			return sc_fail(c, "bad \\u escape");
		x = x * 16 + (uint32_t)h;
	}
	c->p += 4;
	*v = x;
	return 0;
}

/* A string at c->p (which is '"'); decoded UTF-8 into o if o != NULL. */
int sc_string(struct sc *c, struct bv *o)
{
	if (sc_peek(c) != '"')
		return sc_fail(c, "expected a string, found %s", sc_what(sc_peek(c)));
	c->p++;
	for (;;) {
		size_t start = c->p;
		while (c->p < c->n) {
			unsigned char ch = (unsigned char)c->s[c->p];
			if (ch == '"' || ch == '\\' || ch < 0x20)
				break;
			c->p++;
		}
		if (o)
			bv_add(o, c->s + start, c->p - start);
		if (c->p >= c->n)
			return sc_fail(c, "unterminated string");
		unsigned char ch = (unsigned char)c->s[c->p];
		if (ch == '"') {
			c->p++;
			return 0;
		}
		if (ch < 0x20)
			return sc_fail(c, "control character in string");
		c->p++;		/* backslash */
		if (c->p >= c->n)
			return sc_fail(c, "unterminated string");
		char e = c->s[c->p++];
		char lit = 0;
		switch (e) {
		case '"': lit = '"'; break;
		case '\\': lit = '\\'; break;
		case '/': lit = '/'; break;
		case 'b': lit = '\b'; break;
		case 'f': lit = '\f'; break;
		case 'n': lit = '\n'; break;
		case 'r': lit = '\r'; break;
		case 't': lit = '\t'; break;
		case 'u': {
			uint32_t cp;
			if (sc_hex4(c, &cp))
				return -1;
			if (cp >= 0xD800 && cp < 0xDC00 && c->p + 1 < c->n &&
			    c->s[c->p] == '\\' && c->s[c->p + 1] == 'u') {
				size_t save = c->p;
				uint32_t lo;
				c->p += 2;
				if (sc_hex4(c, &lo))
					return -1;
				if (lo >= 0xDC00 && lo < 0xE000)
					cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
				else
					c->p = save;
			}
			if (cp >= 0xD800 && cp < 0xE000)
				cp = 0xFFFD;	/* lone surrogate */
			if (o)
				put_utf8(o, cp);
			continue;
		}
		default:
			return sc_fail(c, "bad escape \\%c in string", e);
		}
		if (o)
			bv_add(o, &lit, 1);
	}
}

/*
 * A JSON number.  *fixed gets the value in units of 1e-8 when the number
 * is -?digits(.digits{0,8})? and fits (exact, no floating point); *dv gets
 * the double value.  Returns 0 or -1.
 */
int sc_number(struct sc *c, double *dv, int64_t *fixed, int *is_fixed)
{
	size_t st = c->p;
	int neg = 0;
	if (sc_peek(c) == '-') {
		neg = 1;
		c->p++;
	}
	int ch = sc_peek(c);
	if (ch < '0' || ch > '9')
		return sc_fail(c, "expected a number, found %s", sc_what(ch));
	int64_t ip = 0;
	int ndig = 0, ok = 1;
	if (ch == '0') {
		c->p++;
		ndig = 1;
	} else {
		while ((ch = sc_peek(c)) >= '0' && ch <= '9') {
			/* ip * 1e8 + frac must fit in int64_t */
			if (ndig < 11 && ip * 10 + (ch - '0') < INT64_MAX / 100000000)
				ip = ip * 10 + (ch - '0');
			else
				ok = 0;
			ndig++;
			c->p++;
		}
	}
	int64_t frac = 0;
	int nfrac = 0;
	if (sc_peek(c) == '.') {
		c->p++;
		ch = sc_peek(c);
		if (ch < '0' || ch > '9')
			return sc_fail(c, "digit expected after '.'");
		while ((ch = sc_peek(c)) >= '0' && ch <= '9') {
			if (nfrac < 8)
				frac = frac * 10 + (ch - '0');
			else
				ok = 0;
			nfrac++;
			c->p++;
		}
	}
	ch = sc_peek(c);
	if (ch == 'e' || ch == 'E') {
		ok = 0;
		c->p++;
		ch = sc_peek(c);
		if (ch == '+' || ch == '-')
			c->p++;
		ch = sc_peek(c);
		if (ch < '0' || ch > '9')
			return sc_fail(c, "digit expected in exponent");
		while ((ch = sc_peek(c)) >= '0' && ch <= '9')
			c->p++;
	}
	if (ok) {
		for (int i = nfrac; i < 8; i++)
			frac *= 10;
		int64_t v = ip * 100000000 + frac;
		*fixed = neg ? -v : v;
		*dv = (double)*fixed / 1e8;
		*is_fixed = 1;
	} else {
		char tmp[64];
		size_t len = c->p - st;
		if (len >= sizeof(tmp))
			len = sizeof(tmp) - 1;
		memcpy(tmp, c->s + st, len);
		tmp[len] = 0;
		*dv = strtod(tmp, NULL);
		*is_fixed = 0;
		double f = *dv * 1e8;
		*fixed = (f > 9e18 || f < -9e18 || f != f) ? 0 : llround(f);
	}
	return 0;
}

static int sc_literal(struct sc *c, const char *lit)
{
	size_t n = strlen(lit);
	if (c->p + n > c->n || memcmp(c->s + c->p, lit, n) != 0)
		return sc_fail(c, "unexpected %s", sc_what(sc_peek(c)));
	c->p += n;
	return 0;
}

/* Validate and skip any JSON value. */
int sc_skip(struct sc *c, int depth)
{
	if (depth > MAX_DEPTH)
		return sc_fail(c, "nesting deeper than %d", MAX_DEPTH);
	sc_ws(c);
	int ch = sc_peek(c);
	double d;
	int64_t fx;
	int isf;
	switch (ch) {
	case '"':
		return sc_string(c, NULL);
	case 't':
		return sc_literal(c, "true");
	case 'f':
		return sc_literal(c, "false");
	case 'n':
		return sc_literal(c, "null");
	case '[':
	case '{': {
		int close = ch == '[' ? ']' : '}';
		c->p++;
		sc_ws(c);
		if (sc_peek(c) == close) {
			c->p++;
			return 0;
		}
		for (;;) {
			sc_ws(c);
			if (close == '}') {
				if (sc_string(c, NULL))
					return -1;
				sc_ws(c);
				if (sc_peek(c) != ':')
					return sc_fail(c, "expected ':', found %s", sc_what(sc_peek(c)));
				c->p++;
			}
			if (sc_skip(c, depth + 1))
				return -1;
			sc_ws(c);
			ch = sc_peek(c);
			if (ch == ',') {
				c->p++;
				continue;
			}
			if (ch == close) {
				c->p++;
				return 0;
			}
			return sc_fail(c, "expected ',' or '%c', found %s", close, sc_what(ch));
		}
	}
	default:
		if (ch == '-' || (ch >= '0' && ch <= '9'))
			return sc_number(c, &d, &fx, &isf);
		return sc_fail(c, "expected a value, found %s", sc_what(ch));
	}
}


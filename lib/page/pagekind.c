// SPDX-License-Identifier: BSD-3-Clause
/*
 * pagekind.c - the book's pages that are not CPU timelines: the RPC
 * (queue-test) pages and the points (scatter) pages, recognised and
 * checked strictly with the row shape of their kind.
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
/* The book's other pages: RPC and points                                 */
/* ---------------------------------------------------------------------- */

/*
 * Besides CPU timelines (10-field span rows), KUtrace pages come in two
 * other kinds, which makeself embeds as their JSON text, whole (blob
 * "KTJ1" + the bytes, data-kind="rpc" or "points"), for pages.js:
 *   RPC ("Comment" : "V4 flat RPCs", "version" : 4): each event row is
 *     [T1, T2, T3, T4, "client:port", "server:port", lglen1, lglen2,
 *      rpcid, parent, "msgtype", "method", "status", datalen, "data"];
 *   points: "points" : [[t, value, ...], ...], drawn as a scatter plot.
 * pg_page_kind() decides from the keys before the first event row and that
 * row, so a CPU page is not scanned twice.
 */

#define RPC_NFIELDS 15
/* 'n' number, 's' string: the field types of an RPC row, and their names. */
static const char rpc_types[RPC_NFIELDS + 1] = "nnnnssnnnnsssns";
static const char *const rpc_fields[RPC_NFIELDS] = {
	"T1", "T2", "T3", "T4", "client:port", "server:port", "lglen1", "lglen2",
	"rpcid", "parent", "msgtype", "method", "status", "datalen", "data" };

/* The row at c->p starts like an RPC row: four numbers, then a string. */
static int rpc_row_start(struct sc *c)
{
	size_t save = c->p;
	int yes = 0;
	double d;
	int64_t fx;
	int isf;

	if (sc_peek(c) != '[')
		goto out;
	c->p++;
	for (int i = 0; i < 4; i++) {
		sc_ws(c);
		if (sc_number(c, &d, &fx, &isf))
			goto out;
		sc_ws(c);
		if (sc_peek(c) != ',')
			goto out;
		c->p++;
	}
	sc_ws(c);
	yes = sc_peek(c) == '"';
out:
	c->p = save;
	return yes;
}

struct pk {
	int kind, v4;
};

static int pk_key(struct sc *c, struct bv *key, void *arg)
{
	struct pk *k = arg;

	if (sc_key_is(key, "points")) {
		k->kind = PAGE_POINTS;
		return 1;
	}
	if (sc_key_is(key, "events") && sc_peek(c) == '[') {
		size_t save = c->p;

		c->p++;
		sc_ws(c);
		if (sc_peek(c) != ']') {
			if (rpc_row_start(c))
				k->kind = PAGE_RPC;
			return 1;
		}
		c->p = save;
	} else if (sc_key_is(key, "version")) {
		double d;
		int64_t fx;
		int isf;

		if (sc_number(c, &d, &fx, &isf))
			return -1;
		k->v4 = d == 4;
		return 0;
	}
	return sc_skip(c, 1);
}

int pg_page_kind(const char *json, size_t len)
{
	char err[200];
	struct sc c = { .s = json, .n = len, .err = err, .errlen = sizeof(err) };
	struct pk k = { PAGE_CPU, 0 };
	int r = sc_top(&c, pk_key, &k);

	/* No row to tell: an empty V4 page is an RPC page. */
	if (r == 0 && k.v4)
		return PAGE_RPC;
	return r == 1 ? k.kind : PAGE_CPU;
}

/* rpc_row and point_row open alike; each keeps messages naming its form. */
static int rpc_row(struct sc *c, uint32_t row)
{
	size_t st = c->p;
	double d;
	int64_t fx;
	int isf;

	if (sc_peek(c) != '[')
		return sc_fail(c, "RPC row %u: expected '[', found %s", row, sc_what(sc_peek(c)));
	c->p++;
	sc_ws(c);
	/* An end marker [999, ...] may close the array, whatever its shape. */
	if (sc_peek(c) == '9' && c->p + 3 <= c->n && memcmp(c->s + c->p, "999", 3) == 0) {
		c->p = st;
		if (sc_skip(c, 1))
			return -1;
		sc_ws(c);
		if (sc_peek(c) != ']')
			return sc_fail(c, "RPC row %u: the end marker [999, ...] is not the last row", row);
		return 0;
	}
	for (int i = 0; i < RPC_NFIELDS; i++) {
		sc_ws(c);
		int ch = sc_peek(c);
		int ok = rpc_types[i] == 's' ? ch == '"' : ch == '-' || (ch >= '0' && ch <= '9');
		if (!ok)
			return sc_fail(c, "RPC row %u field %d (%s): expected a %s, found %s", row, i + 1,
				       rpc_fields[i], rpc_types[i] == 's' ? "string" : "number", sc_what(ch));
		if (rpc_types[i] == 's' ? sc_string(c, NULL) : sc_number(c, &d, &fx, &isf))
			return -1;
		sc_ws(c);
		ch = sc_peek(c);
		if (i < RPC_NFIELDS - 1 && ch != ',')
			return sc_fail(c, "RPC row %u: %d fields, need %d [T1, T2, T3, T4, \"client:port\", "
				       "\"server:port\", lglen1, lglen2, rpcid, parent, \"msgtype\", "
				       "\"method\", \"status\", datalen, \"data\"]", row, i + 1, RPC_NFIELDS);
		if (i == RPC_NFIELDS - 1 && ch != ']')
			return sc_fail(c, "RPC row %u: expected ']' after %d fields, found %s",
				       row, RPC_NFIELDS, sc_what(ch));
		c->p++;
	}
	return 0;
}

/* Opens as rpc_row does, with messages naming [t, value]. */
static int point_row(struct sc *c, uint32_t row)
{
	double d;
	int64_t fx;
	int isf;

	if (sc_peek(c) != '[')
		return sc_fail(c, "point %u: expected [t, value], found %s", row, sc_what(sc_peek(c)));
	c->p++;
	for (int i = 0; i < 2; i++) {
		sc_ws(c);
		int ch = sc_peek(c);
		if (!(ch == '-' || (ch >= '0' && ch <= '9')))
			return sc_fail(c, "point %u: expected [t, value] (numbers), found %s", row, sc_what(ch));
		if (sc_number(c, &d, &fx, &isf))
			return -1;
		sc_ws(c);
		ch = sc_peek(c);
		if (ch == ']' && i == 1)
			break;
		if (ch != ',')
			return sc_fail(c, "point %u: expected [t, value], found %s", row, sc_what(ch));
		c->p++;
		if (i == 1) {
			/* Further elements (a label, a colour) are the viewer's business. */
			for (;;) {
				if (sc_skip(c, 2))
					return -1;
				sc_ws(c);
				ch = sc_peek(c);
				if (ch == ']')
					break;
				if (ch != ',')
					return sc_fail(c, "point %u: expected ',' or ']', found %s", row, sc_what(ch));
				c->p++;
			}
		}
	}
	c->p++;
	return 0;
}

/* An array of rows, each checked by one(). */
static int check_rows(struct sc *c, const char *what_, int (*one)(struct sc *, uint32_t))
{
	if (sc_peek(c) != '[')
		return sc_fail(c, "\"%s\" is not an array", what_);
	c->p++;
	sc_ws(c);
	if (sc_peek(c) == ']') {
		c->p++;
		return 0;
	}
	for (uint32_t row = 0;; row++) {
		if (one(c, row))
			return -1;
		sc_ws(c);
		int ch = sc_peek(c);
		if (ch != ',' && ch != ']')
			return sc_fail(c, "expected ',' or ']' after %s row %u, found %s", what_, row, sc_what(ch));
		c->p++;
		if (ch == ']')
			return 0;
		sc_ws(c);
	}
}

struct cp {
	int kind, have;
};

static int cp_key(struct sc *c, struct bv *key, void *arg)
{
	struct cp *k = arg;

	if (k->kind == PAGE_RPC && sc_key_is(key, "events")) {
		k->have = 1;
		return check_rows(c, "events", rpc_row);
	}
	if (k->kind == PAGE_POINTS && sc_key_is(key, "points")) {
		k->have = 1;
		return check_rows(c, "points", point_row);
	}
	return sc_skip(c, 1);
}

/* The whole page JSON, strictly, with the row shape of its kind. */
int pg_check_page(struct sc *c, int kind)
{
	struct cp k = { kind, 0 };

	if (sc_top(c, cp_key, &k))
		return -1;
	if (!k.have)
		return sc_fail(c, "no \"%s\" array", kind == PAGE_RPC ? "events" : "points");
	return 0;
}


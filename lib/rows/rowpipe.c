// SPDX-License-Identifier: BSD-3-Clause
/*
 * rowpipe.c - the row stream between two programs: kutrace_postproc
 * --tables hands its rows to kutrace_sql (which links DuckDB; the
 * postprocessor does not) through a pipe, as binary records in the
 * machine's byte order, so no row is formatted or parsed as text twice.
 *
 *   'N' u32 id, u32 len, len bytes     a name, before its first use
 *   'R' 8 x int64                      start, dur, arg, retval,
 *                                      cpu, pid, rpc, event
 *       3 x int32                      ipc, name id, 0
 *   'M' u32 len, len bytes             the JSON header text (after the rows)
 *   'B' u32 len, len bytes             the trace's backend record
 *   'E'                                end: a stream without it was cut short
 *
 * Names are sent once each: the writer maps interned pointers to ids.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rows.h"

struct kt_rowpipe_w {
	FILE *f;
	const char **keys;	/* open addressing: interned pointer -> id */
	uint32_t *ids;
	size_t cap, n;
};

struct kt_rowpipe_w *kt_rowpipe_w_new(FILE *f)
{
	struct kt_rowpipe_w *w = calloc(1, sizeof(*w));

	if (!w)
		return NULL;
	w->f = f;
	w->cap = 1024;
	w->keys = calloc(w->cap, sizeof(*w->keys));
	w->ids = calloc(w->cap, sizeof(*w->ids));
	if (!w->keys || !w->ids) {
		kt_rowpipe_w_free(w);
		return NULL;
	}
	return w;
}

void kt_rowpipe_w_free(struct kt_rowpipe_w *w)
{
	if (!w)
		return;
	free(w->keys);
	free(w->ids);
	free(w);
}

static size_t slot(const char *key, size_t cap)
{
	uintptr_t h = (uintptr_t)key;

	h ^= h >> 17;
	h *= 0x9E3779B97F4A7C15ull;
	return (size_t)(h >> 20) & (cap - 1);
}

static int grow(struct kt_rowpipe_w *w)
{
	size_t cap = w->cap * 2;
	const char **keys = calloc(cap, sizeof(*keys));
	uint32_t *ids = calloc(cap, sizeof(*ids));

	if (!keys || !ids) {
		free(keys);
		free(ids);
		return -1;
	}
	for (size_t i = 0; i < w->cap; i++) {
		if (!w->keys[i])
			continue;
		size_t j = slot(w->keys[i], cap);

		while (keys[j])
			j = (j + 1) & (cap - 1);
		keys[j] = w->keys[i];
		ids[j] = w->ids[i];
	}
	free(w->keys);
	free(w->ids);
	w->keys = keys;
	w->ids = ids;
	w->cap = cap;
	return 0;
}

static int put_text(FILE *f, char tag, const char *s, size_t len, const uint32_t *id)
{
	uint32_t l = (uint32_t)len;

	if (putc(tag, f) == EOF || (id && fwrite(id, 4, 1, f) != 1) ||
	    fwrite(&l, 4, 1, f) != 1 || (len && fwrite(s, len, 1, f) != 1))
		return -1;
	return 0;
}

int kt_rowpipe_row(struct kt_rowpipe_w *w, const struct kt_row *r)
{
	const char *name = r->name ? r->name : "";
	size_t i = slot(name, w->cap);

	while (w->keys[i] && w->keys[i] != name)
		i = (i + 1) & (w->cap - 1);
	if (!w->keys[i]) {
		uint32_t id = (uint32_t)w->n++;

		if (put_text(w->f, 'N', name, strlen(name), &id) < 0)
			return -1;
		w->keys[i] = name;
		w->ids[i] = id;
		if (w->n * 2 > w->cap && grow(w) < 0)
			return -1;
		i = slot(name, w->cap);
		while (w->keys[i] != name)
			i = (i + 1) & (w->cap - 1);
	}
	int64_t v[8] = { r->start, r->dur, r->arg, r->retval, r->cpu, r->pid, r->rpc, r->event };
	int32_t t[3] = { r->ipc, (int32_t)w->ids[i], 0 };

	if (putc('R', w->f) == EOF || fwrite(v, sizeof(v), 1, w->f) != 1 ||
	    fwrite(t, sizeof(t), 1, w->f) != 1)
		return -1;
	return 0;
}

int kt_rowpipe_end(struct kt_rowpipe_w *w, const char *header, const char *backend)
{
	if (put_text(w->f, 'M', header, strlen(header), NULL) < 0 ||
	    (backend && put_text(w->f, 'B', backend, strlen(backend), NULL) < 0) ||
	    putc('E', w->f) == EOF || fflush(w->f) == EOF)
		return -1;
	return 0;
}

/* ---------------------------------------------------------------------- */

void kt_rowpipe_r_init(struct kt_rowpipe_r *p, FILE *f)
{
	memset(p, 0, sizeof(*p));
	p->f = f;
}

void kt_rowpipe_r_free(struct kt_rowpipe_r *p)
{
	for (size_t i = 0; i < p->nnames; i++)
		free(p->names[i]);
	free(p->names);
	free(p->header);
	free(p->backend);
	p->names = NULL;
	p->header = p->backend = NULL;
	p->nnames = 0;
}

static int fail(struct kt_rowpipe_r *p, const char *what)
{
	snprintf(p->err, sizeof(p->err), "row stream: %s after %llu rows", what,
		 (unsigned long long)p->rows);
	return -1;
}

/* Limits that keep a damaged stream from asking for absurd memory. */
#define RP_MAX_TEXT	(16u << 20)
#define RP_MAX_NAMES	(64u << 20)

static char *get_text(struct kt_rowpipe_r *p, uint32_t *len)
{
	if (fread(len, 4, 1, p->f) != 1 || *len > RP_MAX_TEXT)
		return NULL;
	char *s = malloc((size_t)*len + 1);

	if (!s)
		return NULL;
	if (*len && fread(s, *len, 1, p->f) != 1) {
		free(s);
		return NULL;
	}
	s[*len] = '\0';
	return s;
}

int kt_rowpipe_next(struct kt_rowpipe_r *p, struct kt_row *r)
{
	for (;;) {
		int tag = getc_unlocked(p->f);
		uint32_t id, len;
		char *s;

		switch (tag) {
		case 'N':
			if (fread(&id, 4, 1, p->f) != 1 || id != p->nnames || id >= RP_MAX_NAMES)
				return fail(p, "bad name record");
			s = get_text(p, &len);
			if (!s || strlen(s) != len) {
				free(s);
				return fail(p, "bad name record");
			}
			if (!kt_utf8_ok(s, len)) {
				/* bytes that are not UTF-8 as U+FFFD: names are text */
				char *fixed = malloc(3 * (size_t)len + 1);

				if (!fixed) {
					free(s);
					return fail(p, "out of memory");
				}
				kt_utf8_fix(fixed, 3 * (size_t)len + 1, s, len);
				free(s);
				s = fixed;
			}
			if (p->nnames == p->capnames) {
				size_t c = p->capnames ? 2 * p->capnames : 256;
				char **n = realloc(p->names, c * sizeof(*n));

				if (!n) {
					free(s);
					return fail(p, "out of memory");
				}
				p->names = n;
				p->capnames = c;
			}
			p->names[p->nnames++] = s;
			break;
		case 'R': {
			/* One read for the record: this is the stream's bulk. */
			unsigned char rec[8 * 8 + 3 * 4];
			int64_t v[8];
			int32_t t[3];

			if (fread_unlocked(rec, sizeof(rec), 1, p->f) != 1)
				return fail(p, "cut short");
			memcpy(v, rec, sizeof(v));
			memcpy(t, rec + sizeof(v), sizeof(t));
			if (t[1] < 0 || (size_t)t[1] >= p->nnames)
				return fail(p, "row names an unknown name");
			for (int i = 4; i < 8; i++)
				if (v[i] < INT32_MIN || v[i] > INT32_MAX)
					return fail(p, "row field out of range");
			for (int i = 0; i < 2; i++)
				if (v[i] < -KT_ROW_TIME_MAX || v[i] > KT_ROW_TIME_MAX)
					return fail(p, "row time out of range");
			r->start = v[0];
			r->dur = v[1];
			r->arg = v[2];
			r->retval = v[3];
			r->cpu = (int)v[4];
			r->pid = (int)v[5];
			r->rpc = (int)v[6];
			r->event = (int)v[7];
			r->ipc = t[0];
			r->name = p->names[t[1]];
			p->rows++;
			return 1;
		}
		case 'M':
		case 'B':
			s = get_text(p, &len);
			if (!s)
				return fail(p, "bad header record");
			if (tag == 'M') {
				free(p->header);
				p->header = s;
			} else {
				free(p->backend);
				p->backend = s;
			}
			break;
		case 'E':
			if (!p->header)
				return fail(p, "ended without its header");
			return 0;
		case EOF:
			return fail(p, "cut short (the writer stopped)");
		default:
			return fail(p, "unknown record");
		}
	}
}

// SPDX-License-Identifier: BSD-3-Clause
/*
 * jsonrows.c - streaming reader/writer for KUtrace span JSON.
 *
 * Why a hand-written scanner in front of jansson: jansson parses whole
 * documents, and a trace JSON can be a gigabyte.  So this file only finds
 * the boundaries of values (strings, balanced [] / {}, scalars) in the
 * top-level object and passes each header value and each event row,
 * one at a time, to json_loadb for the actual parsing and validation.
 * That keeps memory at one row, accepts any whitespace layout (one row per
 * line as the original writes it, or everything on one line as unmakeself
 * prints it), and has no line or name length limits (the original tools
 * cut lines at 256 bytes and names at 64).
 *
 * Not json.c's kt_json_parse_row: that one reads back only the lines
 * kutrace_postproc wrote itself and trusts them; this reader takes JSON
 * from anyone (other spellings of numbers and strings, hand-edited or
 * hostile files) and reports every error with its line.  Nor the page
 * code's scanner (jscan.c), which works on the whole text in memory
 * (a file mapped, a pipe read whole) and fills columns; the tools stream
 * a pipe of any size one row at a time.  Rows are written by json.c's one
 * row formatter (kt_jw_row).
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "jsonrows.h"

#define JR_BUFSIZE 65536

/*
 * An error deep inside the recursive reading: note it and return from the
 * kt_jr_open() or kt_jr_next() call in progress (which set r->fail), so
 * that no reader function needs an error path of its own.
 */
static void jr_fail(const struct kt_jreader *cr, long line, const char *what)
	__attribute__((noreturn));

static void jr_fail(const struct kt_jreader *cr, long line, const char *what)
{
	struct kt_jreader *r = (struct kt_jreader *)cr;

	kt_progress_end();
	snprintf(r->err, sizeof(r->err), "%s:%ld: %s", r->path, line, what);
	longjmp(*r->fail, 1);
}

static int jr_peek(struct kt_jreader *r)
{
	if (r->pos == r->len) {
		if (r->eof)
			return -1;
		r->len = fread(r->buf, 1, JR_BUFSIZE, r->f);
		r->pos = 0;
		if (r->len == 0) {
			if (ferror(r->f))
				jr_fail(r, r->line, "read error");
			r->eof = 1;
			return -1;
		}
	}
	return r->buf[r->pos];
}

static int jr_get(struct kt_jreader *r)
{
	int c = jr_peek(r);

	if (c >= 0) {
		r->pos++;
		r->consumed++;
		if (c == '\n')
			r->line++;
	}
	return c;
}

static void jr_skip_ws(struct kt_jreader *r)
{
	for (;;) {
		int c = jr_peek(r);

		if (c != ' ' && c != '\t' && c != '\r' && c != '\n')
			return;
		jr_get(r);
	}
}

static void jr_expect(struct kt_jreader *r, int want, const char *what)
{
	jr_skip_ws(r);
	int c = jr_get(r);

	if (c != want) {
		char msg[128];

		if (c < 0)
			snprintf(msg, sizeof(msg), "unexpected end of file, expected %s", what);
		else
			snprintf(msg, sizeof(msg), "expected %s", what);
		jr_fail(r, r->line, msg);
	}
}

/* Append one JSON string, quotes included, to b.  The opening quote is next. */
static void jr_capture_string(struct kt_jreader *r, struct kt_buf *b)
{
	char c0 = (char)jr_get(r);
	size_t start = b->len;

	kt_buf_add(b, &c0, 1);
	for (;;) {
		int c = jr_get(r);
		char ch = (char)c;

		if (c < 0)
			jr_fail(r, r->line, "unexpected end of file inside a string");
		if (c == '\n')
			jr_fail(r, r->line - 1, "newline inside a string");
		kt_buf_add(b, &ch, 1);
		if (c == '"' && kt_utf8_ok(b->p + start, b->len - start))
			return;
		if (c == '"') {
			/* Bytes that are not UTF-8 (a name from any bytes) as
			 * U+FFFD: jansson would refuse the whole file. */
			size_t n = b->len - start;
			char *fixed = kt_xmalloc(3 * n + 1);

			n = kt_utf8_fix(fixed, 3 * n + 1, b->p + start, n);
			b->len = start;
			kt_buf_add(b, fixed, n);
			free(fixed);
			return;
		}
		if (c == '\\') {
			c = jr_get(r);
			if (c < 0)
				jr_fail(r, r->line, "unexpected end of file inside a string");
			ch = (char)c;
			kt_buf_add(b, &ch, 1);
		}
	}
}

/*
 * Append one JSON value as text to b: a string, a balanced array/object, or
 * a scalar token.  Only boundaries are found here; jansson validates.
 */
static void jr_capture_value(struct kt_jreader *r, struct kt_buf *b)
{
	jr_skip_ws(r);
	int c = jr_peek(r);

	if (c < 0)
		jr_fail(r, r->line, "unexpected end of file, expected a value");
	if (c == '"') {
		jr_capture_string(r, b);
		return;
	}
	if (c == '[' || c == '{') {
		int depth = 0;

		for (;;) {
			c = jr_peek(r);
			if (c < 0)
				jr_fail(r, r->line, "unexpected end of file inside an array or object");
			if (c == '"') {
				jr_capture_string(r, b);
				continue;
			}
			char ch = (char)jr_get(r);

			kt_buf_add(b, &ch, 1);
			if (c == '[' || c == '{')
				depth++;
			else if (c == ']' || c == '}') {
				if (--depth == 0)
					return;
			}
		}
	}
	while (c >= 0 && c != ',' && c != ']' && c != '}' && c != ' ' &&
	       c != '\t' && c != '\r' && c != '\n') {
		char ch = (char)jr_get(r);

		kt_buf_add(b, &ch, 1);
		c = jr_peek(r);
	}
	if (b->len == 0)
		jr_fail(r, r->line, "expected a value");
}

/* Parse text with jansson; dies with jansson's message on error. */
static json_t *jr_parse(struct kt_jreader *r, long line, const char *text, size_t len)
{
	json_error_t err;
	json_t *j = json_loadb(text, len, JSON_DECODE_ANY, &err);

	if (!j) {
		char msg[300];

		snprintf(msg, sizeof(msg), "invalid JSON: %s", err.text);
		jr_fail(r, line + (err.line > 1 ? err.line - 1 : 0), msg);
	}
	return j;
}

/* Read `"key" : value` (the key's quote is next) into an item. */
static void jr_read_item(struct kt_jreader *r, struct kt_jitem *it, int want_value)
{
	long line = r->line;

	r->tmp.len = 0;
	jr_capture_string(r, &r->tmp);
	json_t *k = jr_parse(r, line, r->tmp.p, r->tmp.len);

	it->key = kt_xstrdup(json_string_value(k));
	it->key_raw = kt_xstrdup(r->tmp.p);
	json_decref(k);
	jr_expect(r, ':', "':' after a key");
	it->value_raw = NULL;
	if (!want_value)
		return;
	line = r->line;
	r->tmp.len = 0;
	jr_capture_value(r, &r->tmp);
	json_decref(jr_parse(r, line, r->tmp.p, r->tmp.len));
	it->value_raw = kt_xstrdup(r->tmp.p);
}

static void jr_push(struct kt_jitem **v, size_t *n, const struct kt_jitem *it)
{
	*v = kt_xrealloc(*v, (*n + 1) * sizeof(**v));
	(*v)[(*n)++] = *it;
}

/*
 * The book's other page kinds hold no spans; a tool that reads spans
 * refuses them in one line, before it has written anything.
 */
static void jr_refuse(const struct kt_jreader *r, long line, const char *kind)
{
	char msg[256];

	snprintf(msg, sizeof(msg), "%s, not a KUtrace span trace: %s cannot use it",
		 kind, kt_progname());
	jr_fail(r, line, msg);
}

static void jr_read_row(struct kt_jreader *r, struct kt_jrow *row, int *last);

static void jr_open(struct kt_jreader *r);

int kt_jr_open(struct kt_jreader *r, const char *path)
{
	jmp_buf here;

	memset(r, 0, sizeof(*r));
	if (!path || strcmp(path, "-") == 0) {
		r->f = stdin;
		r->path = "<stdin>";
	} else {
		r->f = kt_fopen_in(path, r->err, sizeof(r->err));
		if (!r->f)
			return -1;
		r->own_file = 1;
		r->path = path;
	}
	r->fail = &here;
	if (setjmp(here)) {
		r->fail = NULL;
		return -1;
	}
	jr_open(r);
	r->fail = NULL;
	return 0;
}

static void jr_open(struct kt_jreader *r)
{
	struct stat st;

	if (fstat(fileno(r->f), &st) == 0 && S_ISREG(st.st_mode))
		r->total = (uint64_t)st.st_size;
	r->buf = kt_xmalloc(JR_BUFSIZE);
	r->line = 1;

	jr_expect(r, '{', "'{' at the start of the JSON");
	for (;;) {
		jr_skip_ws(r);
		int c = jr_peek(r);

		if (c == '}' || c < 0)
			jr_fail(r, r->line, "no \"events\" array in the JSON");
		if (c != '"')
			jr_fail(r, r->line, "expected a key string in the JSON header");
		/* in r, not on the stack: an error keeps it for kt_jr_close */
		struct kt_jitem *it = &r->pending;

		jr_read_item(r, it, 0);
		if (strcmp(it->key, "points") == 0)
			jr_refuse(r, r->line, "a points page (scatter plot, \"points\" : [[t, value], ...])");
		if (strcmp(it->key, "events") == 0) {
			free(it->key);
			free(it->key_raw);
			memset(it, 0, sizeof(*it));
			jr_expect(r, '[', "'[' after \"events\" :");
			r->in_events = 1;
			/* The first row now: its shape tells the page kind. */
			jr_skip_ws(r);
			if (jr_peek(r) != ']') {
				jr_read_row(r, &r->peek, &r->peek_last);
				r->have_first = 1;
			}
			return;
		}
		long line = r->line;

		r->tmp.len = 0;
		jr_capture_value(r, &r->tmp);
		json_decref(jr_parse(r, line, r->tmp.p, r->tmp.len));
		it->value_raw = kt_xstrdup(r->tmp.p);
		jr_push(&r->hdr, &r->nhdr, it);
		memset(it, 0, sizeof(*it));
		jr_expect(r, ',', "',' after a header value");
	}
}

/* After the events array: optional more keys, '}', then only whitespace. */
static void jr_finish(struct kt_jreader *r)
{
	r->done = 1;
	jr_skip_ws(r);
	int c = jr_get(r);

	while (c == ',') {
		struct kt_jitem *it = &r->pending;

		jr_skip_ws(r);
		if (jr_peek(r) != '"')
			jr_fail(r, r->line, "expected a key string after the events array");
		jr_read_item(r, it, 1);
		jr_push(&r->tail, &r->ntail, it);
		memset(it, 0, sizeof(*it));
		jr_skip_ws(r);
		c = jr_get(r);
	}
	if (c != '}')
		jr_fail(r, r->line, c < 0 ? "unexpected end of file: missing ']}'"
				       : "expected '}' after the events array");
	jr_skip_ws(r);
	if (jr_peek(r) >= 0)
		jr_fail(r, r->line, "data after the end of the JSON object");
}

/* Integer field i of a row into *out; 0 with msg filled if it is not one. */
static int jr_int(json_t *v, int i, int64_t *out, char *msg, size_t msglen)
{
	static const char *const field[] = {
		"start", "duration", "cpu", "pid", "rpcid", "event", "arg",
		"retval", "ipc", "name"
	};

	if (json_is_integer(v)) {
		*out = (int64_t)json_integer_value(v);
		return 1;
	}
	/* Tolerate 3.0 for 3 (hand-edited files); reject anything else. */
	if (json_is_real(v)) {
		double d = json_real_value(v);

		if (d == floor(d) && fabs(d) < 9.0e18) {
			*out = (int64_t)d;
			return 1;
		}
	}
	snprintf(msg, msglen, "event row field %d (%s) is not an integer", i, field[i]);
	return 0;
}

/* Read one row; *last = it was the final element of the events array. */
static void jr_read_row(struct kt_jreader *r, struct kt_jrow *row, int *last)
{
	jr_skip_ws(r);
	long line = r->line;

	if (jr_peek(r) != '[')
		jr_fail(r, line, jr_peek(r) < 0 ? "unexpected end of file in the events array"
						: "event row is not an array");
	r->tmp.len = 0;
	jr_capture_value(r, &r->tmp);
	json_t *a = jr_parse(r, line, r->tmp.p, r->tmp.len);
	size_t n = json_array_size(a);
	char msg[96] = "";

	/*
	 * Errors are collected in msg and reported after json_decref, so that
	 * the sanitizer's leak check stays quiet on the error exit.
	 */
	if (!r->have_peek && n == 15 && json_is_string(json_array_get(a, 4))) {
		json_decref(a);
		jr_refuse(r, line, "an RPC page (\"V4 flat RPCs\": one row per RPC, [T1, T2, T3, T4, "
			  "\"client:port\", ...])");
	}
	if (n != 9 && n != 10) {
		/* The original accepted a missing name (9 fields) in some tools. */
		snprintf(msg, sizeof(msg), "event row does not have 10 fields");
	} else if (!json_is_number(json_array_get(a, 0))) {
		snprintf(msg, sizeof(msg), "event row start is not a number");
	} else if (!json_is_number(json_array_get(a, 1))) {
		snprintf(msg, sizeof(msg), "event row duration is not a number");
	} else {
		row->start = json_number_value(json_array_get(a, 0));
		row->dur = json_number_value(json_array_get(a, 1));
		/* 1e9 s bounds keep nanosecond arithmetic far from overflow. */
		if (!(fabs(row->start) <= 1e9) || !(fabs(row->dur) <= 1e9))
			snprintf(msg, sizeof(msg), "event row time out of range");
	}
	int64_t *dst[7] = { &row->cpu, &row->pid, &row->rpc, &row->event,
			    &row->arg, &row->retval, &row->ipc };
	for (int i = 0; i < 7 && !msg[0]; i++)
		jr_int(json_array_get(a, (size_t)i + 2), i + 2, dst[i], msg, sizeof(msg));
	if (!msg[0] && n == 10) {
		json_t *s = json_array_get(a, 9);

		if (!json_is_string(s))
			snprintf(msg, sizeof(msg), "event row name is not a string");
		else
			row->name = kt_intern(json_string_value(s));
	} else if (!msg[0]) {
		row->name = kt_intern("");
	}
	if (msg[0]) {
		json_decref(a);
		jr_fail(r, line, msg);
	}
	row->line = line;
	json_decref(a);

	jr_skip_ws(r);
	int c = jr_get(r);

	if (c == ',')
		*last = 0;
	else if (c == ']')
		*last = 1;
	else
		jr_fail(r, r->line, c < 0 ? "unexpected end of file in the events array"
					  : "expected ',' or ']' after an event row");
}

static int is_sentinel_shape(const struct kt_jrow *w)
{
	return w->dur == 0.0 && w->cpu == 0 && w->pid == 0 && w->rpc == 0 &&
	       w->event == 0 && w->arg == 0 && w->retval == 0 && w->ipc == 0 &&
	       w->name[0] == '\0';
}

static int jr_next(struct kt_jreader *r, struct kt_jrow *row);

int kt_jr_next(struct kt_jreader *r, struct kt_jrow *row)
{
	jmp_buf here;
	int k;

	if (r->err[0])
		return -1;
	r->fail = &here;
	if (setjmp(here)) {
		r->fail = NULL;
		return -1;
	}
	k = jr_next(r, row);
	r->fail = NULL;
	return k;
}

static int jr_next(struct kt_jreader *r, struct kt_jrow *row)
{
	int last;

	if (r->done)
		return 0;
	if (r->have_first) {
		/* The row kt_jr_open read. */
		*row = r->peek;
		last = r->peek_last;
		r->have_first = 0;
		r->have_peek = 1;
	} else if (!r->have_peek) {
		/* First call (have_peek = started): empty array "[ ]". */
		r->have_peek = 1;
		jr_skip_ws(r);
		if (jr_peek(r) == ']') {
			jr_get(r);
			jr_finish(r);
			return 0;
		}
		jr_read_row(r, row, &last);
	} else {
		jr_read_row(r, row, &last);
	}
	if (is_sentinel_shape(row) && (last || row->start >= 999.0)) {
		r->had_sentinel = 1;
		r->sentinel_start = row->start;
		/* Like the original, rows after a 999 sentinel are dropped. */
		while (!last)
			jr_read_row(r, row, &last);
		jr_finish(r);
		return 0;
	}
	r->rows++;
	if ((r->rows & 0xFFFF) == 0)
		kt_progress("rows", (uint64_t)r->rows, r->consumed, r->total);
	if (last) {
		/*
		 * The final row was a real row (no sentinel): finish now so the
		 * next call returns 0.
		 */
		jr_finish(r);
	}
	return 1;
}

void kt_jr_close(struct kt_jreader *r)
{
	kt_progress_end();
	if (r->own_file && r->f)
		fclose(r->f);
	r->f = NULL;
	free(r->buf);
	r->buf = NULL;
	for (size_t i = 0; i < r->nhdr; i++) {
		free(r->hdr[i].key);
		free(r->hdr[i].key_raw);
		free(r->hdr[i].value_raw);
	}
	for (size_t i = 0; i < r->ntail; i++) {
		free(r->tail[i].key);
		free(r->tail[i].key_raw);
		free(r->tail[i].value_raw);
	}
	free(r->hdr);
	free(r->tail);
	r->hdr = r->tail = NULL;
	r->nhdr = r->ntail = 0;
	kt_buf_free(&r->tmp);
	free(r->pending.key);
	free(r->pending.key_raw);
	free(r->pending.value_raw);
	memset(&r->pending, 0, sizeof(r->pending));
}

const char *kt_jr_header_value(const struct kt_jreader *r, const char *key)
{
	for (size_t i = 0; i < r->nhdr; i++)
		if (strcmp(r->hdr[i].key, key) == 0)
			return r->hdr[i].value_raw;
	return NULL;
}

/* ---------------------------------------------------------------------- */
/* Writing                                                                 */
/* ---------------------------------------------------------------------- */

void kt_jw_header(FILE *out, const struct kt_jreader *r,
		  const char *extra_key, const char *extra_value)
{
	int extra_done = extra_key == NULL;

	if (extra_key && kt_jr_header_value(r, extra_key))
		extra_done = 1;
	fputs("  {\n", out);
	for (size_t i = 0; i < r->nhdr; i++) {
		/* Byte order like `sort`: " \"Comment\"" sorts first. */
		if (!extra_done && strcmp(r->hdr[i].key, extra_key) > 0) {
			fprintf(out, " \"%s\" : %s,\n", extra_key, extra_value);
			extra_done = 1;
		}
		fprintf(out, " %s : %s,\n", r->hdr[i].key_raw, r->hdr[i].value_raw);
	}
	if (!extra_done)
		fprintf(out, " \"%s\" : %s,\n", extra_key, extra_value);
	fputs("\"events\" : [\n", out);
}

void kt_jw_row(FILE *out, const struct kt_jrow *w)
{
	kt_json_put_row_sec(out, w->start, w->dur,
			    (const int64_t[7]){ w->cpu, w->pid, w->rpc, w->event,
						w->arg, w->retval, w->ipc },
			    w->name);
}

void kt_jw_end(FILE *out, const struct kt_jreader *r)
{
	kt_json_footer_at(out, r && r->had_sentinel ? r->sentinel_start : 999.0);
}

unsigned int kt_name_hash16(const char *s)
{
	uint64_t h = 0;

	for (; *s; s++)
		h = (h << 3) ^ (unsigned char)*s;
	h ^= h >> 32;
	h ^= h >> 16;
	return (unsigned int)(h & 0xFFFF);
}

int kt_parse_pc(const char *name, uint64_t *pc)
{
	char *end;

	if (strncmp(name, "PC=", 3) != 0 || !isxdigit((unsigned char)name[3]))
		return 0;
	errno = 0;
	*pc = strtoull(name + 3, &end, 16);
	return *end == '\0' && errno == 0;
}

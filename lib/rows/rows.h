/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rows.h - the row stream: rows put in order and written as JSON,
 * handed to the sinks, and read back
 *
 * json.c: the one formatter and parser of row lines; jsonout.c: rows in
 * exact order with bounded memory, to the JSON text and every sink;
 * rowpipe.c: rows as binary records through a pipe (to kutrace_sql build);
 * jsonrows.c (jsonrows.h): rows of any JSON read back, one at a time.
 */
#ifndef KT_LIB_ROWS_H
#define KT_LIB_ROWS_H

#include "spans.h"

/*
 * The bound of a row's start and dur (10 ns units) wherever rows enter
 * (the row stream, the JSON reader of kutrace_sql build): 9e18 ns, so that
 * (start + dur) * 10 fits in 64 bits.
 */
#define KT_ROW_TIME_MAX 450000000000000000LL

/* ---------------------------------------------------------------------- */
/* JSON output (docs/spec/FORMATS.md 5.10) and time-sorting of rows        */
/* ---------------------------------------------------------------------- */


/* Header lines, already in the byte order the original's `sort` gives. */
void kt_json_header(FILE *f, const struct kt_json_meta *m);
/* The 999.0 sentinel row and the closing "]}". */
void kt_json_footer(FILE *f);
/* The same with the sentinel at start seconds if that is past 999 s. */
void kt_json_footer_at(FILE *f, double start);
/* Write s as a JSON string body (no quotes) with full escaping. */
void kt_json_escape(FILE *f, const char *s);
/* The one escaper (json.c): n bytes of s into buf (room: 6 * n). */
size_t kt_json_escape_mem(char *buf, const char *s, size_t n);

/*
 * One row line (docs/spec/FORMATS.md 5.10.2), formatted only here (json.c):
 * the head "[start, dur, cpu, pid, rpc, event, arg, retval, ipc, \"", the
 * escaped name, "\"]"; a writer adds ",\n".  The head is at most
 * KT_JSON_HEAD_MAX bytes; times are in 10 ns units (1e-8 s).
 */
#define KT_JSON_HEAD_MAX 200
size_t kt_json_head(char *buf, const int64_t t[2], const int64_t v[7]);
size_t kt_json_format_head(char *buf, const struct kt_row *r);
/* n bytes of name escaped, then "\"]" (room: 6 * n + 2). */
size_t kt_json_end(char *buf, const char *name, size_t n);
/* s JSON-escaped into buf (room for 6 * strlen(s)); returns the length. */
size_t kt_json_escape_buf(char *buf, const char *s);
/* One row line and ",\n" into buf; 0 if cap is too small (then retry larger). */
size_t kt_json_format_row(char *buf, size_t cap, const struct kt_row *r);
/* The JSON tools' row (times in seconds) and ",\n" to f. */
void kt_json_put_row_sec(FILE *f, double start, double dur, const int64_t v[7],
			 const char *name);
/*
 * A line kt_json_format_row wrote back into r, the name decoded into
 * name (r->name points there); 0, or -1 if the line is not of that form.
 */
int kt_json_parse_row(const char *line, struct kt_row *r, struct kt_buf *name);
/* The row order of the JSON: time first (byte order of the start field). */
int kt_row_cmp(const struct kt_row *a, const struct kt_row *b);

/*
 * Writes the JSON rows in exact order while the trace is read (jsonout.c).
 * Feed rows in any nearly-sorted order; tell it from time to time that no
 * future row starts before `low` (kt_spans_low) and it writes those rows
 * to the work file, writing the header first.  finish() writes the rest
 * and the footer and returns 1 if the work file is not yet final (rows
 * that came after their place was written, or a header that changed):
 * then kt_jsonout_copy() writes the final JSON to another file.
 */
struct kt_jsonout;
/*
 * Errors: kt_jsonout_new gives NULL (errno set); after any other step,
 * kt_jsonout_error() is the first error's one-line text (NULL if none),
 * and finish and copy return -1 once there is one.
 */
struct kt_jsonout *kt_jsonout_new(FILE *work);
const char *kt_jsonout_error(const struct kt_jsonout *o);
void kt_jsonout_row(struct kt_jsonout *o, const struct kt_row *r);
/* Time to advance: 0 no, 1 yes, 2 yes and over the memory budget (then
 * pass kt_spans_low(..., cpus_only = 1) to move on past long sleepers). */
int kt_jsonout_due(const struct kt_jsonout *o);
void kt_jsonout_advance(struct kt_jsonout *o, int64_t low,
			const struct kt_json_meta *m);
/* 1: the rows need kt_jsonout_copy() into the final file; 0: no; -1. */
int kt_jsonout_finish(struct kt_jsonout *o, const struct kt_json_meta *m);
int kt_jsonout_copy(struct kt_jsonout *o, FILE *dst);
/*
 * The row stream's other sinks: fn gets every row the writer writes, in
 * the order it writes them, on the writer's thread (set it before the
 * first row).  Rows placed late (kt_jsonout_late) are not among them:
 * they are in kt_jsonout_late_rows, sorted, and belong after every
 * written row that kt_row_cmp does not place after them.
 */
void kt_jsonout_tee(struct kt_jsonout *o, kt_row_fn fn, void *ctx);
/* No JSON text at all, only the sinks' rows (kutrace_postproc --no-json). */
void kt_jsonout_no_text(struct kt_jsonout *o);
const struct kt_row *kt_jsonout_late_rows(const struct kt_jsonout *o, size_t *n);
/* The final header text (after finish). */
const char *kt_jsonout_header(const struct kt_jsonout *o);
uint64_t kt_jsonout_rows(const struct kt_jsonout *o);
size_t kt_jsonout_late(const struct kt_jsonout *o);
/* CPU seconds the ordering and the writing thread used (after finish). */
void kt_jsonout_cpu(const struct kt_jsonout *o, double *order, double *write);
void kt_jsonout_free(struct kt_jsonout *o);

/*
 * The row stream between programs (rowpipe.c): kutrace_postproc --tables
 * sends its rows to kutrace_sql as binary records.  Writer: one
 * kt_rowpipe_row per row, then kt_rowpipe_end with the JSON header text
 * and the backend record (NULL if none); -1 on a write error (errno).
 */
struct kt_rowpipe_w;
struct kt_rowpipe_w *kt_rowpipe_w_new(FILE *f);
int kt_rowpipe_row(struct kt_rowpipe_w *w, const struct kt_row *r);
int kt_rowpipe_end(struct kt_rowpipe_w *w, const char *header, const char *backend);
void kt_rowpipe_w_free(struct kt_rowpipe_w *w);
/* Reader: kt_rowpipe_next gives 1 and a row (its name lives until
 * kt_rowpipe_r_free), 0 at the end mark (header and backend then set),
 * -1 with err set on a stream cut short or damaged. */
struct kt_rowpipe_r {
	FILE *f;
	char **names;
	size_t nnames, capnames;
	char *header, *backend;
	unsigned long long rows;
	char err[160];
};
void kt_rowpipe_r_init(struct kt_rowpipe_r *p, FILE *f);
int kt_rowpipe_next(struct kt_rowpipe_r *p, struct kt_row *r);
void kt_rowpipe_r_free(struct kt_rowpipe_r *p);

/*
 * A CTF 1.8 trace written as events come (ctf.c, docs/CTF.md): a stream
 * file per kt_ctf_stream, packets of up to 256 KiB with cpu_id in their
 * context, every integer byte-aligned little-endian, the metadata last.
 * dir must exist; files are created, never replaced.  Calls after an
 * error return -1 and kt_ctf_error() says why in one line.
 */
struct kt_ctf;
struct kt_ctf *kt_ctf_new(const char *dir);
/* The id of event class name, declared with fields (TSDL struct body). */
int kt_ctf_class(struct kt_ctf *c, const char *name, const char *fields);
/* A new stream file dir/file: its index, or -1. */
int kt_ctf_stream(struct kt_ctf *c, const char *file, uint64_t instance, uint32_t cpu_id);
/* One event: ts in ns on the clock, payload the fields' bytes. */
int kt_ctf_event(struct kt_ctf *c, int stream, uint64_t ts, int id,
		 const void *payload, size_t n);
/* The uuid into every packet, the streams closed, then the metadata:
 * env the body of env { }. */
int kt_ctf_finish(struct kt_ctf *c, const unsigned char uuid[16], const char *env,
		  const char *clock_name, const char *clock_desc, int64_t offset_s);
uint64_t kt_ctf_bytes(const struct kt_ctf *c);
const char *kt_ctf_error(const struct kt_ctf *c);
void kt_ctf_free(struct kt_ctf *c);

#endif /* KT_LIB_ROWS_H */

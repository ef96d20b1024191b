/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * jsonrows.h - streaming reader and writer for KUtrace span JSON
 * (docs/spec/FORMATS.md 5.10), shared by the analysis tools (spantotrim, spantospan,
 * spantoprof, samptoname_k/u, kutrace_export).
 *
 * The reader does not assume one row per line nor any line or name length
 * limit: it scans the top-level object byte by byte, cuts out each header
 * value and each event row as text and hands that text to jansson, so only
 * one row is in memory at a time (1 GB traces stream).  Any syntax error,
 * wrong row shape or truncated file ends the program with one line
 * "prog: FILE:LINE: what" (kt_die) - the tools never continue on bad input.
 *
 * The sentinel row `[999.0, 0.0, 0, 0, 0, 0, 0, 0, 0, ""]` is recognised
 * as the LAST row of the array when it is all zero with an empty name (any
 * start, since kutrace traces may run past 999 s), or - as the original
 * tools did - any such all-zero row with start >= 999.0.  It is not
 * returned as a row; writers emit their own.
 */
#ifndef KUTRACE_JSONROWS_H
#define KUTRACE_JSONROWS_H

#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>

#include "rows.h"

/*
 * A row as the tools read it.  Not struct kt_row (nsec10 integers): the
 * tools take any JSON number, "1.5e0", "1E-8" or more than 8 decimals,
 * and keep what it says: kutrace_export writes microseconds to 1 ns
 * ("1.000000005" is ts 1000000.005), spantospan lays spans out in
 * nanoseconds, spantoprof sums and divides durations.  Times become 10 ns
 * units only when a row is written (kt_jw_row, json.c), with printf's
 * rounding of the double ("1.000000005" prints 1.00000000).
 */
struct kt_jrow {
	double start;		/* seconds after tracebase */
	double dur;		/* seconds */
	int64_t cpu, pid, rpc, event, arg, retval, ipc;
	const char *name;	/* decoded (unescaped) UTF-8, interned */
	long line;		/* input line the row started on */
};

/* One `"key" : value` pair of the top-level object, kept as source text. */
struct kt_jitem {
	char *key;		/* decoded key */
	char *key_raw;		/* key as written, with its quotes */
	char *value_raw;	/* value as written */
};

struct kt_jreader {
	FILE *f;
	const char *path;	/* for messages; "-" = stdin */
	int own_file;
	/* input buffer */
	unsigned char *buf;
	size_t pos, len;
	int eof;
	long line;
	uint64_t consumed;	/* bytes, for the progress indicator */
	uint64_t total;		/* file size if known, else 0 */
	/* state */
	int in_events;		/* inside "events" : [ */
	int done;		/* events array finished */
	int have_peek;		/* kt_jr_next has started */
	int have_first;		/* peek holds the first row, read by kt_jr_open */
	struct kt_jrow peek;
	int peek_last;
	struct kt_buf tmp;
	/* header keys before "events", and keys after the array */
	struct kt_jitem *hdr;
	size_t nhdr;
	struct kt_jitem *tail;
	size_t ntail;
	/* sentinel seen */
	int had_sentinel;
	double sentinel_start;
	long rows;		/* rows returned */
	/* errors: "path:line: what", and where the failing call returns */
	char err[512];
	jmp_buf *fail;
	/* the header item being read: an error leaves it to kt_jr_close */
	struct kt_jitem pending;
};

/*
 * Open path ("-" or NULL = stdin) and read the header up to and including
 * `"events" : [` and the first row.  0, or -1 with r->err set
 * ("path:line: what"), also for the book's pages that hold no spans (an
 * RPC page, a points page), naming the kind.  kt_jr_close() either way.
 */
int kt_jr_open(struct kt_jreader *r, const char *path);
/*
 * Next event row: 1 = row filled, 0 = end of the events array (the rest of
 * the file has then been checked to be valid JSON), -1 = error (r->err).
 */
int kt_jr_next(struct kt_jreader *r, struct kt_jrow *row);
/* For programs (tool_jsonrows.c): the same, ending the program on an error. */
void kt_xjr_open(struct kt_jreader *r, const char *path);
int kt_xjr_next(struct kt_jreader *r, struct kt_jrow *row);
void kt_jr_close(struct kt_jreader *r);
/* Header value by decoded key, or NULL. */
const char *kt_jr_header_value(const struct kt_jreader *r, const char *key);

/*
 * Writing.  kt_jw_header writes the original layout: "  {", one
 * ` "key" : value,` line per header item, then `"events" : [`.  If
 * extra_key is not NULL, ` "extra_key" : extra_value,` is inserted in
 * alphabetical position (spantoprof's "presorted").
 */
void kt_jw_header(FILE *out, const struct kt_jreader *r,
		  const char *extra_key, const char *extra_value);
/* `[%12.8f, %10.8f, %d, ... , "name"],`: the row line of json.c. */
void kt_jw_row(FILE *out, const struct kt_jrow *row);
/* The sentinel row and "]}". */
void kt_jw_end(FILE *out, const struct kt_jreader *r);

/* H(s) of samptoname_k/u (docs/spec/FORMATS.md 6.7): 16-bit colour hash of a name. */
unsigned int kt_name_hash16(const char *s);
/* A PC-sample row name "PC=<hex>" -> pc; 0 if the name is not of that form. */
int kt_parse_pc(const char *name, uint64_t *pc);

#endif /* KUTRACE_JSONROWS_H */

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * page.h - the self-contained HTML timeline page: html.c (the template and
 * the writers), pageenc.c (the columns and the blob), pagejson.c (JSON
 * into columns), pagerows.c (rows into columns), pageextract.c (the way
 * back).
 *
 * A page is the viewer template (viewer/viewer.html) with its
 * local <link rel="stylesheet" href="X.css"> and <script src="X.js"> lines
 * inlined, and the trace embedded at the template line
 * "<!-- kutrace:data -->" as two elements:
 *
 *   <script type="application/json" id="ktmeta">   every top-level key of
 *       the KUtrace JSON except "events" (title, tracebase, flags,
 *       randomid, savedview, extra, ...), with '<' written as \u003c;
 *   <script type="application/octet-stream" id="ktdata" data-enc="deflate">
 *       base64 of a zlib stream (DecompressionStream('deflate') in the
 *       browser; data-enc="raw" when built without zlib) holding the
 *       events as columns, see the blob layout in lib/page/html.c.
 *
 * The blob also keeps the exact text around and between the rows, so
 * kt_html_extract() gives back the JSON file byte for byte.
 *
 * The book's other page kinds, an RPC page (15-field rows, "V4 flat RPCs")
 * and a points (scatter) page ("points" : [[t, value], ...]), are checked
 * row by row and embedded whole: ktmeta is {}, ktdata has
 * data-kind="rpc" or "points" and its blob is "KTJ1" + the JSON text
 * (drawn by viewer/pages.js).
 */
#ifndef KUTRACE_HTML_H
#define KUTRACE_HTML_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/*
 * Embed KUtrace JSON (docs/spec/FORMATS.md 5.10) into the template and write one
 * self-contained page to out.  Returns 0, or -1 with a one-line message in
 * err (e.g. "JSON line 12: expected ',' or ']' in event row").
 */
int kt_html_write(FILE *out, const char *template_path, FILE *json_in,
		  char *err, size_t errlen);
/* The same from a JSON text in memory. */
int kt_html_write_mem(FILE *out, const char *template_path,
		      const char *json, size_t len, char *err, size_t errlen);

/*
 * A CPU page's columns built from rows as data (pagerows.c): kutrace_postproc
 * hands over the rows of its JSON in the JSON's order, so the page needs
 * no second reading of the JSON.  At most max rows (0: no limit); past
 * that the columns are dropped and kt_pagecols_full() says so.
 */
struct kt_row;
struct kt_pagecols;
struct kt_pagecols *kt_pagecols_new(uint64_t max);
void kt_pagecols_row(struct kt_pagecols *p, const struct kt_row *r);
/* The rows the JSON writer placed late (kt_jsonout_late_rows), merged in. */
void kt_pagecols_late(struct kt_pagecols *p, const struct kt_row *late, size_t n);
int kt_pagecols_full(const struct kt_pagecols *p);
uint64_t kt_pagecols_rows(const struct kt_pagecols *p);
void kt_pagecols_free(struct kt_pagecols *p);

/*
 * The page of the JSON that is header, then p's rows each followed by
 * ",\n", then footer (html.c): byte for byte what kt_html_write makes of
 * that JSON.  Uses p up (call once).  0, or -1 with err set.
 */
int kt_html_write_rows(FILE *out, const char *template_path, struct kt_pagecols *p,
		       const char *header, const char *footer, char *err, size_t errlen);

/*
 * Write the JSON embedded in a page back to out (pageextract.c): the exact input of
 * kt_html_write for pages made by it, or the JSON string of a page made
 * by the original makeself (var myString = '...').  0 or -1 with err set.
 */
int kt_html_extract(FILE *out, const char *html, size_t len,
		    char *err, size_t errlen);

/*
 * Locate viewer.html: $KUTRACE_VIEWER if set, else next to the running
 * program (argv0 or /proc/self/exe) in ../share/kutrace/viewer.html: the
 * installed template, or the one the build assembles in build/share/kutrace
 * (the source directory viewer/ has no viewer.js of its own).
 * Returns a malloc'd path, or NULL if none exists.
 */
char *kt_html_find_template(const char *argv0);

/* Read a whole stream into a malloc'd buffer (NUL-terminated); NULL on a
 * read error.  *len gets the byte count. */
char *kt_html_slurp(FILE *f, size_t *len);

#endif /* KUTRACE_HTML_H */

// SPDX-License-Identifier: BSD-3-Clause
/*
 * html.c - embed KUtrace JSON into the timeline viewer template, and get it
 * back out (makeself, unmakeself, kutrace_postproc): the template, the
 * files it inlines and the API of page.h.  The page data's format and
 * its encoder are in pageenc.c, JSON into columns in pagejson.c, the way
 * back out in pageextract.c, the JSON scanner in jscan.c, the book's other
 * page kinds in pagekind.c.
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
/* Template                                                                */
/* ---------------------------------------------------------------------- */

char *kt_html_slurp(FILE *f, size_t *len)
{
	size_t cap = 1 << 16, n = 0;
	char *p = kt_xmalloc(cap);
	for (;;) {
		if (cap - n < 2) {
			cap *= 2;
			p = kt_xrealloc(p, cap);
		}
		size_t r = fread(p + n, 1, cap - n - 1, f);
		n += r;
		if (r == 0) {
			if (ferror(f)) {
				free(p);
				return NULL;
			}
			break;
		}
	}
	p[n] = 0;
	*len = n;
	return p;
}

static char *slurp_path(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	char *p = kt_html_slurp(f, len);
	fclose(f);
	return p;
}

/* If line (trimmed) is `open NAME close` with a local NAME, return NAME. */
static int local_ref(const char *line, size_t n, const char *open,
		     const char *close, char *name, size_t namelen)
{
	while (n && (*line == ' ' || *line == '\t')) {
		line++;
		n--;
	}
	while (n && (line[n - 1] == ' ' || line[n - 1] == '\t' || line[n - 1] == '\r'))
		n--;
	size_t lo = strlen(open), lc = strlen(close);
	if (n <= lo + lc || memcmp(line, open, lo) || memcmp(line + n - lc, close, lc))
		return 0;
	size_t k = n - lo - lc;
	if (k >= namelen)
		return 0;
	memcpy(name, line + lo, k);
	name[k] = 0;
	if (strpbrk(name, ":/\\\"'<> "))
		return 0;
	return 1;
}

static int inline_file(FILE *out, const char *dir, const char *name,
		       const char *open, const char *close, char *err, size_t errlen)
{
	char path[4096];
	size_t len;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	char *s = slurp_path(path, &len);
	if (!s) {
		/* kutrace's own template is assembled by make, not in its sources. */
		snprintf(err, errlen, "cannot read %s: %s%s", path, strerror(errno),
			 errno == ENOENT ? " (a template needs its files next to it: make builds build/share/kutrace/)" : "");
		return -1;
	}
	if (strstr(s, "</script") || strstr(s, "</style") || strstr(s, "<!--")) {
		snprintf(err, errlen, "%s contains '</script', '</style' or '<!--'", path);
		free(s);
		return -1;
	}
	fputs(open, out);
	fwrite(s, 1, len, out);
	fputs(close, out);
	free(s);
	return 0;
}

/* The template, checked: the page is written only into a real one. */
static char *read_template(const char *template_path, size_t *tlen,
			   char *err, size_t errlen)
{
	char *tpl = slurp_path(template_path, tlen);

	if (!tpl) {
		snprintf(err, errlen, "cannot read template %s: %s", template_path,
			 strerror(errno));
		return NULL;
	}
	if (!strstr(tpl, "<!-- kutrace:data -->")) {
		snprintf(err, errlen, "%s: no <!-- kutrace:data --> line (not a kutrace viewer template)",
			 template_path);
		free(tpl);
		return NULL;
	}
	return tpl;
}

/*
 * A page of PAGE_LOD_MIN rows or more carries its summary (pagelod.c),
 * from which the viewer draws its first picture while it decodes the
 * rows; a smaller page decodes in well under a second without it.
 */
#define PAGE_LOD_MIN (1u << 18)

static int emit_lod(FILE *out, const struct trace *t, const char *enc, char *err, size_t errlen)
{
	struct bv b = { 0 };
	int rc = 0;

	if (pg_lod_blob(t, PAGE_LOD_MIN, &b) < 0) {
		snprintf(err, errlen, "internal error: the page's columns do not read back");
		rc = -1;
	} else if (b.len) {
		fprintf(out, "<script type=\"application/octet-stream\" id=\"ktlod\" data-enc=\"%s\">", enc);
		if (pg_write_bytes(out, b.p, b.len)) {
			snprintf(err, errlen, "write error: %s", strerror(errno));
			rc = -1;
		}
		fputs("</script>\n", out);
	}
	bv_free(&b);
	return rc;
}

static int emit_rows(FILE *out, struct trace *t, const char *enc, const char *json, size_t len,
		     char *err, size_t errlen)
{
	fprintf(out, "<script type=\"application/octet-stream\" id=\"ktdata\" "
		"data-enc=\"%s\" data-rows=\"%u\">", enc, t->nrows);
	if (pg_write_blob(out, t, json, len)) {
		snprintf(err, errlen, "write error: %s", strerror(errno));
		return -1;
	}
	fputs("</script>\n", out);
	return 0;
}

/*
 * The page: the template with its local files inlined and the data at its
 * data line, t's columns for a CPU page (json holding the text around the
 * rows), json itself for the other kinds.
 */
static int emit_page(FILE *out, const char *template_path, const char *tpl,
		     size_t tlen, int kind, struct trace *t, const char *json,
		     size_t len, char *err, size_t errlen)
{
#ifdef KT_HAVE_ZLIB
	const char *enc = "deflate";
#else
	const char *enc = "raw";
#endif

	char dir[4096];
	snprintf(dir, sizeof(dir), "%s", template_path);
	char *slash = strrchr(dir, '/');
	if (slash)
		*slash = 0;
	else
		snprintf(dir, sizeof(dir), ".");

	/* The rows after the viewer's script, where the template says so:
	 * the viewer draws from the summary while the browser parses them. */
	int rows_apart = kind == PAGE_CPU && memmem(tpl, tlen, "<!-- kutrace:rows -->", 21);
	const char *p = tpl, *end = tpl + tlen;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t ll = nl ? (size_t)(nl - p) : (size_t)(end - p);
		char name[256];
		if (local_ref(p, ll, "<script src=\"", "\"></script>", name, sizeof(name))) {
			if (inline_file(out, dir, name, "<script>\n", "</script>\n", err, errlen))
				return -1;
		} else if (local_ref(p, ll, "<link rel=\"stylesheet\" href=\"", "\">", name, sizeof(name))) {
			if (inline_file(out, dir, name, "<style>\n", "</style>\n", err, errlen))
				return -1;
		} else if (kind != PAGE_CPU && memmem(p, ll, "<!-- kutrace:data -->", 21)) {
			fprintf(out, "<script type=\"application/json\" id=\"ktmeta\">{}</script>\n"
				"<script type=\"application/octet-stream\" id=\"ktdata\" "
				"data-enc=\"%s\" data-kind=\"%s\">", enc, page_kind_name[kind]);
			if (pg_write_blob(out, NULL, json, len))
				return -1;
			fputs("</script>\n", out);
		} else if (memmem(p, ll, "<!-- kutrace:data -->", 21)) {
			if (emit_lod(out, t, enc, err, errlen))
				return -1;
			fputs("<script type=\"application/json\" id=\"ktmeta\">", out);
			fwrite(t->meta.p, 1, t->meta.len, out);
			fputs("</script>\n", out);
			if (!rows_apart && emit_rows(out, t, enc, json, len, err, errlen))
				return -1;
		} else if (rows_apart && memmem(p, ll, "<!-- kutrace:rows -->", 21)) {
			if (emit_rows(out, t, enc, json, len, err, errlen))
				return -1;
		} else {
			fwrite(p, 1, ll, out);
			if (nl)
				fputc('\n', out);
		}
		p += ll + (nl ? 1 : 0);
	}
	if (fflush(out) || ferror(out)) {
		snprintf(err, errlen, "write error: %s", strerror(errno));
		return -1;
	}
	return 0;
}

static int html_write(FILE *out, const char *template_path, const char *json,
		      size_t len, int mapped, char *err, size_t errlen)
{
	struct trace t;
	struct sc c = { .s = json, .n = len, .err = err, .errlen = errlen,
			.mapped = mapped };
	size_t tlen;
	int rc = -1;

	memset(&t, 0, sizeof(t));
	char *tpl = read_template(template_path, &tlen, err, errlen);
	if (!tpl)
		return -1;
	/* (A mapping is not searched: the scanner rejects a NUL anyway.) */
	if (!mapped && memchr(json, 0, len)) {
		c.n = (size_t)((const char *)memchr(json, 0, len) - json);
		c.p = c.n;
		sc_fail(&c, "NUL byte in the input");
		goto out;
	}
	int kind = pg_page_kind(json, len);

	if (kind != PAGE_CPU) {
		if (pg_check_page(&c, kind))
			goto out;
	} else {
		pg_pred_init(&t.pred);
		if (pg_read_trace(&c, &t))
			goto out;
	}
	rc = emit_page(out, template_path, tpl, tlen, kind, &t, json, len, err, errlen);
out:
	pg_trace_free(&t);
	free(tpl);
	return rc;
}

/*
 * The rows came as data (kt_pagecols): what the JSON front end would take
 * from the file's text is taken from header and footer alone.  The JSON
 * is header, the rows each followed by ",\n", and footer (the sentinel
 * row and the closing); read as such, the prefix is the header, the
 * suffix ",\n" and the footer (the footer alone without rows), every glue
 * ",\n", and the header values come from reading header + footer.
 */
int kt_html_write_rows(FILE *out, const char *template_path, struct kt_pagecols *p,
		       const char *header, const char *footer, char *err, size_t errlen)
{
	size_t tlen, hl = strlen(header), fl = strlen(footer);
	struct trace h;
	int rc = -1;

	if (p->full || p->bad) {
		snprintf(err, errlen, p->full ? "more rows than one page holds" :
			 "internal error: a row did not read back");
		return -1;
	}
	char *tpl = read_template(template_path, &tlen, err, errlen);
	if (!tpl)
		return -1;
	struct bv text = { 0 };

	bv_add(&text, header, hl);
	bv_add(&text, footer, fl);
	struct sc c = { .s = (const char *)text.p, .n = text.len, .err = err,
			.errlen = errlen };

	memset(&h, 0, sizeof(h));
	pg_pred_init(&h.pred);
	if (pg_read_trace(&c, &h))
		goto out;
	if (h.nrows != 0 || h.prefix_end != hl) {
		snprintf(err, errlen, "internal error: the JSON header and footer do not frame the rows");
		goto out;
	}
	/*
	 * The front end reads the sentinel row of the footer too before it
	 * drops it: its name stays in the table.
	 */
	for (uint32_t i = 0; i < h.names.n; i++)
		pg_strtab_intern(&p->t.names, h.names.len[i] ?
				 (const char *)h.names.data.p + h.names.off[i] : "",
				 h.names.len[i]);
	/* The header values are those of header + footer; swap them in. */
	struct bv m = p->t.meta;

	p->t.meta = h.meta;
	h.meta = m;
	if (p->t.nrows) {
		text.len = hl;
		bv_add(&text, ",\n", 2);
		bv_add(&text, footer, fl);
		if (p->t.glue.n == 0)
			pg_strtab_intern(&p->t.glue, ",\n", 2);
	}
	p->t.prefix_end = hl;
	p->t.suffix_start = hl;
	rc = emit_page(out, template_path, tpl, tlen, PAGE_CPU, &p->t,
		       (const char *)text.p, text.len, err, errlen);
out:
	pg_trace_free(&h);
	bv_free(&text);
	free(tpl);
	return rc;
}

int kt_html_write_mem(FILE *out, const char *template_path,
		      const char *json, size_t len, char *err, size_t errlen)
{
	return html_write(out, template_path, json, len, 0, err, errlen);
}

int kt_html_write(FILE *out, const char *template_path, FILE *json_in,
		  char *err, size_t errlen)
{
	struct stat st;
	size_t len;

	/* A regular file is mapped, not read into memory: it may be GBs. */
	if (fstat(fileno(json_in), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
		void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE,
			       fileno(json_in), 0);

		if (m != MAP_FAILED) {
			madvise(m, (size_t)st.st_size, MADV_SEQUENTIAL);
			int rc = html_write(out, template_path, m, (size_t)st.st_size, 1,
					    err, errlen);

			munmap(m, (size_t)st.st_size);
			return rc;
		}
	}
	char *json = kt_html_slurp(json_in, &len);
	if (!json) {
		snprintf(err, errlen, "read error: %s", strerror(errno));
		return -1;
	}
	int rc = kt_html_write_mem(out, template_path, json, len, err, errlen);
	free(json);
	return rc;
}

/* ---------------------------------------------------------------------- */
/* Finding the template                                                    */
/* ---------------------------------------------------------------------- */

static int readable(const char *p)
{
	return access(p, R_OK) == 0;
}

char *kt_html_find_template(const char *argv0)
{
	const char *env = getenv("KUTRACE_VIEWER");
	if (env && *env)
		return readable(env) ? kt_xstrdup(env) : NULL;
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = 0;
	} else if (argv0 && strchr(argv0, '/')) {
		snprintf(exe, sizeof(exe), "%s", argv0);
	} else {
		return NULL;
	}
	char *slash = strrchr(exe, '/');
	if (!slash)
		return NULL;
	*slash = 0;
	char p[8192];
	snprintf(p, sizeof(p), "%s/../share/kutrace/viewer.html", exe);
	return readable(p) ? kt_xstrdup(p) : NULL;
}


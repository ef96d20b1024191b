// SPDX-License-Identifier: BSD-3-Clause
/*
 * makeself - embed a KUtrace JSON trace into the timeline viewer template,
 * giving one self-contained HTML page (lib/page/html.c does the work).
 *
 *   makeself TEMPLATE JSON OUT.html
 *   makeself TEMPLATE JSON            (writes the page to stdout)
 *   makeself TEMPLATE OUT.html < JSON (the original's 2-argument form)
 *   makeself TEMPLATE < JSON > OUT.html
 *
 * With two arguments, a second argument ending in .html/.htm is the output
 * (as in the original makeself), anything else is the JSON input.
 * TEMPLATE "-" means: find viewer.html (see kt_html_find_template).
 *
 * The original's template (show_cpu.html: d3 and the viewer inline, the
 * JSON spliced in as a JS string at its "<!-- selfcontained1 -->" line)
 * cannot show kutrace's columnar data, so it is replaced by kutrace's
 * built-in viewer, which shows the same timeline, with one line saying so.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tool.h"
#include "page.h"

static int ends_with(const char *s, const char *suf)
{
	size_t a = strlen(s), b = strlen(suf);
	return a >= b && strcmp(s + a - b, suf) == 0;
}

/*
 * An original KUtrace template has the "selfcontained" marker comments and
 * no "kutrace:data" line.  Unreadable files are left to the page writer,
 * which reports them.
 */
static int is_original_template(const char *path)
{
	FILE *f = fopen(path, "rb");
	size_t len;
	char *t;
	int orig;

	if (!f)
		return 0;
	t = kt_html_slurp(f, &len);
	fclose(f);
	if (!t)
		return 0;
	orig = memmem(t, len, "<!-- selfcontained1 -->", 23) &&
	       !memmem(t, len, "<!-- kutrace:data -->", 21);
	free(t);
	return orig;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: makeself TEMPLATE.html [IN.json] [OUT.html]\n"
		"       (JSON from stdin and HTML to stdout when omitted; TEMPLATE - = installed viewer)\n");
}

/* TEMPLATE "-", or an original KUtrace template: kutrace's viewer.html. */
static const char *template(const char *tpl, const char *argv0, char **found)
{
	if (strcmp(tpl, "-") == 0) {
		*found = kt_html_find_template(argv0);
		if (!*found)
			kt_die("cannot find viewer.html (set KUTRACE_VIEWER)");
		return *found;
	}
	if (!is_original_template(tpl))
		return tpl;
	*found = kt_html_find_template(argv0);
	if (!*found)
		kt_die("%s is the original KUtrace template and kutrace's viewer.html was not found (set KUTRACE_VIEWER)",
		       tpl);
	fprintf(stderr, "%s: %s is the original KUtrace template (show_cpu.html); using kutrace's built-in viewer instead\n",
		kt_progname(), tpl);
	return *found;
}

int main(int argc, char **argv)
{
	static const struct kt_opt opts[] = { { NULL, 0, NULL, 0 } };
	const struct kt_argspec spec = { opts, usage, 1, 3, 0 };
	const char *pos[3], *in = NULL, *outp = NULL;
	char *found = NULL;

	kt_set_progname(argv[0]);
	int n = kt_args(&spec, argc, argv, pos);
	const char *tpl = template(pos[0], argv[0], &found);

	if (n == 3) {
		in = pos[1];
		outp = pos[2];
	} else if (n == 2) {
		if (ends_with(pos[1], ".html") || ends_with(pos[1], ".htm"))
			outp = pos[1];
		else
			in = pos[1];
	}
	FILE *fin = stdin;

	if (in && strcmp(in, "-") != 0)
		fin = kt_xfopen_in(in);
	size_t len;
	char *json = kt_html_slurp(fin, &len);

	if (!json)
		kt_die("cannot read %s: %s", in ? in : "stdin", strerror(errno));
	if (fin != stdin)
		fclose(fin);

	FILE *out = stdout;

	if (outp && strcmp(outp, "-") != 0)
		out = kt_out_open(outp, NULL);
	char err[512];

	if (kt_html_write_mem(out, tpl, json, len, err, sizeof(err)) != 0)
		kt_die("%s -> %s: %s", in ? in : "stdin", outp ? outp : "stdout", err);
	if (out != stdout)
		kt_out_commit(out);
	free(json);
	free(found);
	return 0;
}

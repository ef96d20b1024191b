// SPDX-License-Identifier: BSD-3-Clause
/*
 * makeself - embed a KUtrace JSON trace into the timeline viewer template,
 * giving one self-contained HTML page (lib/html.c does the work).
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
#include <unistd.h>

#include "kutrace-local.h"
#include "html.h"

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

int main(int argc, char **argv)
{
	kt_set_progname(argv[0]);
	if (argc < 2 || argc > 4 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
		fprintf(stderr, "usage: makeself TEMPLATE.html [IN.json] [OUT.html]\n"
			"       (JSON from stdin and HTML to stdout when omitted; TEMPLATE - = installed viewer)\n");
		return 2;
	}
	const char *tpl = argv[1];
	char *found = NULL;
	if (strcmp(tpl, "-") == 0) {
		found = kt_html_find_template(argv[0]);
		if (!found)
			kt_die("cannot find viewer.html (set KUTRACE_VIEWER)");
		tpl = found;
	}
	if (is_original_template(tpl)) {
		found = kt_html_find_template(argv[0]);
		if (!found)
			kt_die("%s is the original KUtrace template and kutrace's viewer.html was not found (set KUTRACE_VIEWER)",
			       tpl);
		fprintf(stderr, "%s: %s is the original KUtrace template (show_cpu.html); using kutrace's built-in viewer instead\n",
			kt_progname(), tpl);
		tpl = found;
	}
	const char *in = NULL, *outp = NULL;
	if (argc == 4) {
		in = argv[2];
		outp = argv[3];
	} else if (argc == 3) {
		if (ends_with(argv[2], ".html") || ends_with(argv[2], ".htm"))
			outp = argv[2];
		else
			in = argv[2];
	}
	FILE *fin = stdin;
	if (in && strcmp(in, "-") != 0) {
		fin = kt_xfopen_in(in);
	}
	size_t len;
	char *json = kt_html_slurp(fin, &len);
	if (!json)
		kt_die("cannot read %s: %s", in ? in : "stdin", strerror(errno));
	if (fin != stdin)
		fclose(fin);

	/* Write to a temporary file, so a failure leaves no half page. */
	FILE *out = stdout;
	char tmp[4096];
	if (outp && strcmp(outp, "-") != 0) {
		snprintf(tmp, sizeof(tmp), "%s.tmp%ld", outp, (long)getpid());
		out = fopen(tmp, "wb");
		if (!out)
			kt_die("cannot create %s: %s", tmp, strerror(errno));
	}
	char err[512];
	int rc = kt_html_write_mem(out, tpl, json, len, err, sizeof(err));
	free(json);
	if (out != stdout) {
		if (fclose(out) && rc == 0) {
			snprintf(err, sizeof(err), "write error: %s", strerror(errno));
			rc = -1;
		}
		if (rc == 0 && rename(tmp, outp) != 0) {
			snprintf(err, sizeof(err), "cannot rename to %s: %s", outp, strerror(errno));
			rc = -1;
		}
		if (rc != 0)
			remove(tmp);
	}
	free(found);
	if (rc != 0)
		kt_die("%s -> %s: %s", in ? in : "stdin", outp ? outp : "stdout", err);
	return 0;
}

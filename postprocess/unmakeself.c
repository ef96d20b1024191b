// SPDX-License-Identifier: BSD-3-Clause
/*
 * unmakeself - write the KUtrace JSON embedded in a timeline page back to
 * stdout: byte for byte what makeself was given, or the JSON string of a
 * page made by the original makeself.
 *
 *   unmakeself [PAGE.html]     (stdin if omitted)
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tool.h"
#include "page.h"

int main(int argc, char **argv)
{
	kt_set_progname(argv[0]);
	if (argc > 2 || (argc == 2 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0))) {
		fprintf(stderr, "usage: unmakeself [PAGE.html] > OUT.json\n");
		return 2;
	}
	const char *in = argc == 2 ? argv[1] : "-";
	FILE *f = stdin;
	if (strcmp(in, "-") != 0) {
		f = kt_xfopen_in(in);
	}
	size_t len;
	char *html = kt_html_slurp(f, &len);
	if (!html)
		kt_die("cannot read %s: %s", in, strerror(errno));
	if (f != stdin)
		fclose(f);
	char err[512];
	if (kt_html_extract(stdout, html, len, err, sizeof(err)))
		kt_die("%s: %s", in, err);
	free(html);
	return 0;
}

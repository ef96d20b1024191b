// SPDX-License-Identifier: BSD-3-Clause
/*
 * spantotrim - keep the part of a span JSON between two times or between a
 * pair of marks (docs/spec/FORMATS.md 6.4).
 *
 *   spantotrim <start_sec> [<stop_sec>]   rows with start_sec <= start < stop_sec
 *   spantotrim <label>                    rows from a mark_a/b/c "label" through
 *                                         the next mark "/label", inclusive
 *   spantotrim --label <label>            the same, for labels that look like numbers
 *
 * Differences from the original, on purpose (it read uninitialised bytes
 * for labels under 6 characters and took a label starting with '-', '.',
 * '/' or a digit for a number): the label is compared
 * by its base-40 value, so labels shorter than 6 characters and labels of
 * 6 characters (whose "/label" mark the user library truncates to
 * "/label"[0..5]) match as the user wrote them; an argument that does not
 * parse completely as a number is a label even if it starts with '-', '.'
 * or '/'; the default stop time is unlimited rather than 999 s.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tool.h"
#include "jsonrows.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: spantotrim <start_sec> [<stop_sec>] < in.json > out.json\n"
		"       spantotrim [--label] <label> < in.json > out.json\n"
		"Keeps the event rows with start_sec <= start < stop_sec (default\n"
		"0 and no limit), or the rows from each mark_a/b/c whose label is\n"
		"<label> through the next mark whose label is \"/<label>\".\n"
		"Prints \"spantotrim: N events\" on stderr.\n");
}

/* A complete decimal number, or 0. */
static int parse_num(const char *s, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	return end != s && *end == '\0' && errno == 0 && isfinite(*v);
}

static int is_label_mark(int64_t ev)
{
	return ev == KUTRACE_MARKA || ev == KUTRACE_MARKB || ev == KUTRACE_MARKC;
}

int main(int argc, char **argv)
{
	double lo = 0.0, hi = INFINITY;
	const char *label = NULL;
	int force_label = 0;
	int i = 1;

	kt_set_progname(argv[0]);
	if (argc > 1 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
		usage(stdout);
		return 0;
	}
	if (argc > 1 && strcmp(argv[1], "--label") == 0) {
		force_label = 1;
		i++;
	}
	int nargs = argc - i;

	if (force_label) {
		if (nargs != 1 || argv[i][0] == '\0')
			kt_die("--label needs one non-empty label (try --help)");
		label = argv[i];
	} else if (nargs == 1 || nargs == 2) {
		char *end;

		(void)strtod(argv[i], &end);

		if (!parse_num(argv[i], &lo)) {
			/* nan, inf, 1e400: numbers, but no time; "" names nothing */
			if (nargs == 2 || !argv[i][0] || (end != argv[i] && !*end))
				kt_die("bad start time '%s' (try --help)", argv[i]);
			label = argv[i];
		} else if (nargs == 2 && !parse_num(argv[i + 1], &hi)) {
			kt_die("bad stop time '%s' (try --help)", argv[i + 1]);
		}
	} else if (nargs != 0) {
		usage(stderr);
		return 2;
	}

	uint32_t open_v = 0, close_v = 0;

	if (label) {
		char slash[KUTRACE_BASE40_MAXLEN + 2];

		/* The user library encodes the first 6 bytes; do the same. */
		snprintf(slash, sizeof(slash), "/%s", label);
		open_v = kt_base40_encode(label);
		close_v = kt_base40_encode(slash);
	}

	struct kt_jreader r;
	struct kt_jrow w;
	long kept = 0;
	int inside = 0;

	kt_xjr_open(&r, "-");
	kt_jw_header(stdout, &r, NULL, NULL);
	while (kt_xjr_next(&r, &w)) {
		int keep;

		if (label) {
			int mark = is_label_mark(w.event);

			if (!inside && mark && (uint32_t)w.arg == open_v)
				inside = 1;
			keep = inside;
			if (inside && mark && (uint32_t)w.arg == close_v)
				inside = 0;
		} else {
			keep = lo <= w.start && w.start < hi;
		}
		if (keep) {
			kt_jw_row(stdout, &w);
			kept++;
		}
	}
	kt_jw_end(stdout, &r);
	kt_jr_close(&r);
	if (label && !kept)
		kt_die("no mark '%s' in the input: nothing kept", label);
	fprintf(stderr, "spantotrim: %ld events\n", kept);
	if (fflush(stdout) != 0 || ferror(stdout))
		kt_die("write error on stdout: %s", strerror(errno));
	return 0;
}

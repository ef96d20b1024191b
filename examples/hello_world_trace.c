// SPDX-License-Identifier: BSD-3-Clause
/*
 * hello_world_trace - trace your own printf.
 *
 * Starts tracing, marks the printf with mark_a("hello") / ("/hello"),
 * stops and writes hello_world_trace.trace (or argv[1]).  Needs the
 * kutrace module and root.  Postprocess with
 *   kutrace_postproc hello_world_trace.trace
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kutrace/control.h"

int main(int argc, char **argv)
{
	const char *out = argc > 1 ? argv[1] : "hello_world_trace.trace";

	if (argc > 2 || (argc > 1 && (!strcmp(out, "-h") || !strcmp(out, "--help")))) {
		fprintf(argc > 2 ? stderr : stdout,
			"usage: hello_world_trace [FILE.trace]\n"
			"Traces its own printf between mark_a(\"hello\") and mark_a(\"/hello\")\n"
			"and writes FILE.trace (default hello_world_trace.trace).  Needs\n"
			"the kutrace module and root or CAP_PERFMON.\n");
		return argc > 2 ? 2 : 0;
	}

	if (!kutrace_test())
		return 1;
	if (kutrace_go("hello_world_tr")) {
		fprintf(stderr, "hello_world_trace: cannot start tracing\n");
		return 1;
	}
	kutrace_mark_a("hello");
	printf("hello world\n");
	fflush(stdout);
	kutrace_mark_a("/hello");
	return kutrace_stop(out) ? 1 : 0;
}

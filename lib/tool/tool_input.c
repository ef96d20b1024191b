// SPDX-License-Identifier: BSD-3-Clause
/*
 * tool_input.c - the input helpers of programs' main(): an input file
 * opened, a raw trace's decoder made, or the program ended with the
 * one-line reason (kt_die, tool.c).  Apart from tool.c, which util.c's
 * allocators stop through: here they use util.c and decode.c, and in
 * tool.c they closed a circle decode.c -> util.c -> tool.c -> decode.c.
 */
#include <stdio.h>

#include "tool.h"

FILE *kt_xfopen_in(const char *path)
{
	char err[512];
	FILE *f = kt_fopen_in(path, err, sizeof(err));

	if (!f)
		kt_die("%s", err);
	return f;
}

struct kt_decoder *kt_xdecoder_new(struct kt_raw *raw, kt_event_fn fn, void *ctx)
{
	char err[256];
	struct kt_decoder *d;

	if (raw->note[0])
		fprintf(stderr, "%s: %s\n", kt_progname(), raw->note);
	d = kt_decoder_new(raw, fn, ctx, err, sizeof(err));
	if (!d)
		kt_die("%s", err);
	return d;
}

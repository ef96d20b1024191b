// SPDX-License-Identifier: BSD-3-Clause
/*
 * tool_input.c - the input helpers of programs' main(): an input file
 * opened, a raw trace's decoder made, or the program ended with the
 * one-line reason (kt_die, tool.c).  Apart from tool.c, which util.c's
 * allocators stop through: here they use util.c and decode.c, and in
 * tool.c they closed a circle decode.c -> util.c -> tool.c -> decode.c.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

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

enum kt_input_kind kt_input_kind(const char *path)
{
	FILE *f = fopen(path, "rb");
	unsigned char buf[64];
	size_t n, i = 0;

	if (!f)
		kt_die("%s: %s", path, strerror(errno));
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	while (i < n && (buf[i] == ' ' || buf[i] == '\n' || buf[i] == '\t' || buf[i] == '\r'))
		i++;
	if (i == n || (buf[i] != '{' && buf[i] != '<'))
		return KT_IN_TRACE;
	for (size_t j = i + 1; j < n; j++)
		if (buf[j] < 0x20 && buf[j] != '\n' && buf[j] != '\t' && buf[j] != '\r')
			return KT_IN_TRACE;
	return buf[i] == '{' ? KT_IN_JSON : KT_IN_PAGE;
}

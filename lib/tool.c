// SPDX-License-Identifier: BSD-3-Clause
/*
 * tool.c - what the programs' main() functions use to stop: kt_die() with
 * one line naming the program, the file it was writing removed first, and
 * the x-functions that die instead of returning an error.  Library code
 * returns its errors and never calls these (tests/t_unit.sh holds that);
 * only kt_x*alloc() do, on out of memory (util.c).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kutrace-local.h"

static const char *progname = "kutrace";

void kt_set_progname(const char *argv0)
{
	const char *slash = argv0 ? strrchr(argv0, '/') : NULL;

	if (argv0)
		progname = slash ? slash + 1 : argv0;
}

const char *kt_progname(void)
{
	return progname;
}

static char *die_unlink;

void kt_unlink_on_die(const char *path)
{
	free(die_unlink);
	die_unlink = path ? kt_xstrdup(path) : NULL;
}

void kt_die(const char *fmt, ...)
{
	va_list ap;

	if (die_unlink)
		unlink(die_unlink);
	fflush(stdout);
	fprintf(stderr, "%s: ", progname);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

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

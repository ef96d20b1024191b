// SPDX-License-Identifier: BSD-3-Clause
/*
 * tool.c - what the programs' main() functions use to stop: kt_die() with
 * one line naming the program, the file it was writing removed first.
 * Library code returns its errors and never calls it (tests/t_unit.sh
 * holds that); only kt_x*alloc() do, on out of memory (util.c).  So this
 * file is the bottom of lib/: it uses nothing else of it, and the
 * x-functions over other files live in tool_*.c (t_unit checks that lib/
 * has no dependency cycle).
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
	die_unlink = NULL;
	/* strdup, not kt_xstrdup: util.c's allocators stop through here */
	if (path && !(die_unlink = strdup(path)))
		kt_die("out of memory (%zu bytes)", strlen(path) + 1);
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

// SPDX-License-Identifier: BSD-3-Clause
/*
 * tool.c - what the programs' main() functions use to stop: kt_die() with
 * one line naming the program, the file it was writing removed first.
 * Library code returns its errors and never calls it (tests/t_unit.sh
 * holds that); only kt_x*alloc() do, on out of memory (util.c).  So this
 * file is the bottom of lib/: it uses nothing else of it, and the
 * x-functions over other files live in tool_*.c (t_unit checks that lib/
 * has no dependency cycle).  It erases a progress line first
 * (progress.c, which uses nothing of lib/ either), so the message starts
 * a line of its own.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base.h"

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

/*
 * The files kt_die removes: a program's temporaries, at most a few at a
 * time (kutrace_postproc has two while it rewrites its JSON).
 */
#define KT_DIE_UNLINK_MAX 4
static char *die_unlink[KT_DIE_UNLINK_MAX];

void kt_unlink_on_die(const char *path)
{
	if (!path) {
		for (int i = 0; i < KT_DIE_UNLINK_MAX; i++) {
			free(die_unlink[i]);
			die_unlink[i] = NULL;
		}
		return;
	}
	for (int i = 0; i < KT_DIE_UNLINK_MAX; i++) {
		if (die_unlink[i])
			continue;
		/* strdup, not kt_xstrdup: util.c's allocators stop through here */
		die_unlink[i] = strdup(path);
		if (!die_unlink[i])
			kt_die("out of memory (%zu bytes)", strlen(path) + 1);
		return;
	}
	kt_die("internal error: more than %d files to remove on error", KT_DIE_UNLINK_MAX);
}

void kt_unlink_forget(const char *path)
{
	for (int i = 0; i < KT_DIE_UNLINK_MAX; i++) {
		if (die_unlink[i] && strcmp(die_unlink[i], path) == 0) {
			free(die_unlink[i]);
			die_unlink[i] = NULL;
			return;
		}
	}
}

void kt_die(const char *fmt, ...)
{
	va_list ap;

	for (int i = 0; i < KT_DIE_UNLINK_MAX; i++)
		if (die_unlink[i])
			unlink(die_unlink[i]);
	fflush(stdout);
	kt_progress_end();
	fprintf(stderr, "%s: ", progname);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

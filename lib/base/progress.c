// SPDX-License-Identifier: BSD-3-Clause
/*
 * progress.c - progress on long work: one line on stderr, redrawn in
 * place, "kutrace_postproc: rows 12.3 M  45 %  3.2 s", for a person
 * watching a big trace go through.  Declared in base.h.
 *
 * Drawn only when stderr is a terminal (or when forced): in a file or a
 * pipe, \r-redrawn lines would be noise.  At most 10 redraws a second,
 * whatever the caller's rate, so that a caller may report each block or
 * each 64 K rows without measuring time itself.  The line is erased at
 * the end and before kt_die's message, so no other line starts behind it.
 *
 * It uses nothing else of lib/ (tool.c's kt_die erases the line through
 * it), so it names the program by glibc's program_invocation_short_name,
 * which is argv[0]'s basename, as kt_progname is.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "base.h"

static enum kt_progress_mode mode = KT_PROGRESS_AUTO;
static int on = -1;		/* -1: not decided yet */
static int drawn;
static double t0, last = -1;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Set early (at the options): the seconds shown count from here. */
void kt_progress_mode(enum kt_progress_mode m)
{
	mode = m;
	on = -1;
	kt_progress_on();
}

int kt_progress_on(void)
{
	if (on < 0) {
		on = mode == KT_PROGRESS_ON || (mode == KT_PROGRESS_AUTO && isatty(2));
		t0 = now_s();
	}
	return on;
}

/* 1234 as "1234", 12345 as "12.3 k", 12345678 as "12.3 M". */
static void human(char *buf, size_t len, uint64_t n)
{
	if (n < 10000)
		snprintf(buf, len, "%" PRIu64, n);
	else if (n < 1000000)
		snprintf(buf, len, "%.1f k", (double)n / 1e3);
	else if (n < 1000000000)
		snprintf(buf, len, "%.1f M", (double)n / 1e6);
	else
		snprintf(buf, len, "%.1f G", (double)n / 1e9);
}

/* Time for a redraw?  At most one each 0.1 s. */
static int due(double *t)
{
	if (!kt_progress_on())
		return 0;
	*t = now_s();
	if (last >= 0 && *t - last < 0.1)
		return 0;
	last = *t;
	return 1;
}

static void draw(const char *text, double t)
{
	int e = errno;

	fprintf(stderr, "\r\033[K%s: %s  %.1f s", program_invocation_short_name, text, t - t0);
	fflush(stderr);
	drawn = 1;
	errno = e;
}

void kt_progress(const char *what, uint64_t count, uint64_t done, uint64_t total)
{
	double t;

	if (!due(&t))
		return;
	char n[32], text[128];
	int len = snprintf(text, sizeof(text), "%s", what ? what : "");

	if (what) {
		human(n, sizeof(n), count);
		len += snprintf(text + len, sizeof(text) - (size_t)len, " %s", n);
	}
	if (total)
		snprintf(text + len, sizeof(text) - (size_t)len, "%s%3d %%", what ? "  " : "",
			 (int)(done > total ? 100 : done * 100 / total));
	draw(text, t);
}

void kt_progress_step(const char *what)
{
	double t;

	if (due(&t))
		draw(what, t);
}

void kt_progress_end(void)
{
	if (drawn) {
		int e = errno;

		fputs("\r\033[K", stderr);
		fflush(stderr);
		errno = e;
	}
	drawn = 0;
	/* The next line, if any, is drawn at once. */
	last = -1;
}

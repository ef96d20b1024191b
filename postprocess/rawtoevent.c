// SPDX-License-Identifier: BSD-3-Clause
/*
 * rawtoevent - raw KUtrace binary trace to event text (docs/spec/FORMATS.md 4).
 *
 *   rawtoevent [file] [-v] [-h] [-maxblock N]      (stdin if no file)
 *
 * The output is the original's text, one event per line, not sorted
 * across CPUs: the original pipeline sorts it with `LC_ALL=C sort -n`
 * before eventtospan.  kutrace_postproc does the whole job in one process.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tool.h"

struct ctx {
	struct kt_raw raw;
	struct kt_decoder *dec;
	long maxblock;
	int verbose;
};

static void print_event(void *p, const struct kt_event *e)
{
	static char *buf;
	static size_t cap;
	int n;

	(void)p;
	while ((n = kt_event_line(buf, cap, e)) >= (int)cap) {
		cap = (size_t)n + 256;
		buf = kt_xrealloc(buf, cap);
	}
	puts(buf);
	/* Name records go out twice: at their time and at -1. */
	if (kutrace_is_varlen((unsigned int)e->event))
		printf("-1 1 %d %d %s\n", e->event, (int32_t)e->arg, e->name);
}

static void setup(struct ctx *c)
{
	if (!c->dec)
		c->dec = kt_xdecoder_new(&c->raw, print_event, c);
}

/* The trace is read twice: RPC method and lock names first. */
static int on_prescan(void *p, const struct kt_block *b)
{
	struct ctx *c = p;

	if (c->maxblock >= 0 && b->index >= c->maxblock)
		return 1;
	setup(c);
	kt_decoder_prescan(c->dec, b);
	return 0;
}

static int on_block(void *p, const struct kt_block *b)
{
	struct ctx *c = p;
	char when[64];

	if (c->maxblock >= 0 && b->index >= c->maxblock)
		return 1;
	if (b->index == 0) {
		setup(c);
		/* The base minute of all times (UTC); eventtospan reads it. */
		char base[32];

		kt_timebase_string(kt_decoder_timebase(c->dec), base, sizeof(base));
		printf("# ## TRACEBASE: %s\n", base);
		/* The time pairs in 10 ns units: eventtospan's CPU timelines end there. */
		int64_t t0, t1;

		kt_decoder_edges(c->dec, &t0, &t1);
		printf("# ## STARTSTOP: %" PRId64 " %" PRId64 "\n", t0, t1);
	}
	time_t secs = (time_t)(b->usec / 1000000);
	struct tm tm;

	gmtime_r(&secs, &tm);
	strftime(when, sizeof(when), "%Y-%m-%d_%H:%M:%S", &tm);
	printf("# [0] %016" PRIx64 " cpu %02x block %ld\n", b->w[0], b->cpu, b->index);
	printf("# [1] %s.%06u cpu %02x flags %02x block %ld\n", when,
	       (unsigned int)(b->usec % 1000000), b->cpu, b->flags, b->index);
	printf("# TS DUR EVENT CPU PID RPC ARG0 RETVAL IPC NAME (t and dur in 10ns)\n");
	if (kt_decode_block(c->dec, b) < 0)
		kt_die("%s: %s", c->raw.path, kt_decoder_err(c->dec));
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: rawtoevent [FILE.trace] [-v] [-h] [-maxblock N]\n"
		"Turns a raw KUtrace binary trace (stdin if no file) into event text on\n"
		"stdout, one event per line (time and duration in 10 ns units).  Sort it\n"
		"with `LC_ALL=C sort -n` before eventtospan, or use kutrace_postproc.\n");
}

int main(int argc, char **argv)
{
	struct ctx c = { .maxblock = -1 };
	const char *path = NULL;	/* stdin */
	const struct kt_opt opts[] = {
		{ "v", KT_OPT_FLAG, &c.verbose, 1 },
		{ "maxblock", KT_OPT_POSLONG, &c.maxblock, 0 },
		{ NULL, 0, NULL, 0 },
	};
	const struct kt_argspec spec = { opts, usage, 0, 1, 0 };

	kt_set_progname(argv[0]);
	kt_args(&spec, argc, argv, &path);
	if (kt_raw_open(&c.raw, path) < 0)
		kt_die("%s", c.raw.err);
	printf("# ## VERSION: %d\n", KUTRACE_EVENT_TEXT_VERSION);
	if (kt_raw_each(&c.raw, on_prescan, &c) < 0)
		kt_die("%s", c.raw.err);
	/*
	 * The user buffers' events (docs/spec/FORMATS.md 9) go out among the
	 * lines, which sort -n orders; decoded where kutrace_postproc does.
	 */
	struct kt_user user;
	char line[512];

	if (c.dec && kt_user_load(&c.raw, c.raw.refs, c.raw.nrefs, &user) < 0)
		kt_die("%s", c.raw.err);
	if (c.dec) {
		kt_decode_user(c.dec, &user, print_event, &c);
		kt_user_summary(&user, line, sizeof(line));
		if (line[0])
			fprintf(stderr, "rawtoevent: %s\n", line);
		kt_user_free(&user);
	}
	if (kt_raw_each(&c.raw, on_block, &c) < 0)
		kt_die("%s", c.raw.err);
	if (!c.dec)
		kt_die("%s: no trace blocks", c.raw.path);
	int64_t lo, hi;

	kt_decoder_times(c.dec, &lo, &hi);
	printf("# ## FLAGS: %u\n", kt_decoder_flags(c.dec));
	printf("# ## TIMES: %10.8f %10.8f\n", lo / 1e8, hi / 1e8);
	fprintf(stderr, "rawtoevent: %" PRIu64 " events\n", kt_decoder_events(c.dec));
	kt_decoder_free(c.dec);
	kt_raw_close(&c.raw);
	if (fflush(stdout) != 0 || ferror(stdout))
		kt_die("write error on stdout: %s", strerror(errno));
	return 0;
}

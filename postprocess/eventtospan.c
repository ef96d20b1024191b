// SPDX-License-Identifier: BSD-3-Clause
/*
 * eventtospan - event text (rawtoevent) to timespan JSON (docs/spec/FORMATS.md 5).
 *
 *   rawtoevent X.trace | LC_ALL=C sort -n | eventtospan "title" > X.json
 *
 * The same span builder as kutrace_postproc; the output is already in
 * the byte order the original pipeline's final `sort` produced, so the
 * trailing `| sort` of old scripts is harmless but no longer needed.
 * Like the original it needs time-sorted input (`sort -n`).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tool.h"

struct ctx {
	struct kt_jsonout *out;
};

static void on_row(void *p, const struct kt_row *r)
{
	kt_jsonout_row(((struct ctx *)p)->out, r);
}

/* Header facts: name records may come at any time, so read them late. */
static void meta(struct kt_json_meta *m, const struct kt_spans *s,
		 unsigned int flags, int version)
{
	kt_spans_meta(s, m);
	m->flags = flags;
	m->version = version;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: eventtospan [\"title\"] [-v] [-t] < events.txt > spans.json\n"
		"Reads rawtoevent's event text (sorted with LC_ALL=C sort -n) on stdin and\n"
		"writes the KUtrace timespan JSON on stdout.\n");
}

int main(int argc, char **argv)
{
	struct ctx c = { 0 };
	struct kt_json_meta m = { .version = KUTRACE_EVENT_TEXT_VERSION };
	const char *title = "";
	char tracebase[32] = "";
	unsigned int flags = 0;
	int version = KUTRACE_EVENT_TEXT_VERSION;
	char *line = NULL;
	size_t cap = 0;
	long lineno = 0;
	int ignored;
	/* -v and -t are the original's; accepted and ignored. */
	const struct kt_opt opts[] = {
		{ "v", KT_OPT_FLAG, &ignored, 1 },
		{ "t", KT_OPT_FLAG, &ignored, 1 },
		{ NULL, 0, NULL, 0 },
	};
	const struct kt_argspec spec = { opts, usage, 0, 1, 1 };

	kt_set_progname(argv[0]);
	kt_args(&spec, argc, argv, &title);
	struct kt_spans *spans = kt_spans_new(on_row, &c);

	/*
	 * Rows are written in order to a temporary file as soon as nothing
	 * can come before them, then copied to stdout (which cannot seek).
	 */
	FILE *work = tmpfile();

	if (!work)
		kt_die("cannot create a temporary file");
	c.out = kt_jsonout_new(work);
	if (!c.out)
		kt_die("cannot start the JSON writer threads: %s", strerror(errno));
	m.title = title;
	m.tracebase = tracebase;
	m.randomid = (uint32_t)(time(NULL) ^ ((uint32_t)getpid() * 12345678u));
	ssize_t len;
	long nlines = 0;
	long long t0, t1;

	while ((len = getline(&line, &cap, stdin)) > 0) {
		lineno++;
		if (memchr(line, '\0', (size_t)len))
			kt_die("stdin line %ld: a NUL byte (not event text)", lineno);
		line[strcspn(line, "\r\n")] = '\0';
		/* an event line or rawtoevent's header: not just any comment */
		nlines += line[0] && (line[0] != '#' || !strncmp(line, "# ## VERSION: ", 14));
		if (line[0] == '#') {
			if (!strncmp(line, "# ## VERSION: ", 14))
				version = atoi(line + 14);
			else if (!strncmp(line, "# ## FLAGS: ", 12))
				flags = (unsigned int)strtoul(line + 12, NULL, 10);
			else if (!strncmp(line, "# ## STARTSTOP: ", 16) &&
				 sscanf(line + 16, "%lld %lld", &t0, &t1) == 2)
				kt_spans_edges(spans, t0, t1);
			else if (!strncmp(line, "# ## TRACEBASE: ", 16))
				snprintf(tracebase, sizeof(tracebase), "%s", line + 16);
			else if (!tracebase[0] && !strncmp(line, "# [1] 20", 8) && strlen(line) > 23)
				snprintf(tracebase, sizeof(tracebase), "%.17s00", line + 6);
			continue;
		}
		if (!line[0])
			continue;
		struct kt_event e = { 0 };
		long long t, dur, ev, cpu, pid, rpc, arg, ret;
		int ipc, off = 0;
		char name[1024];

		int n = sscanf(line, "%lld %lld %lld %n", &t, &dur, &ev, &off);

		if (n < 3)
			kt_die("stdin line %ld: not an event line: %.60s", lineno, line);
		if (ev >= KUTRACE_VARLEN_LO && ev <= KUTRACE_VARLEN_HI) {
			/* Name record: t 1 ev arg name */
			if (sscanf(line + off, "%lld %1023s", &arg, name) != 2)
				kt_die("stdin line %ld: bad name record", lineno);
			e.t = t;
			e.event = (int)ev;
			e.arg = (uint32_t)arg;
			e.name = kt_intern(name);
			kt_spans_event(spans, &e);
			continue;
		}
		n = sscanf(line + off, "%lld %lld %lld %lld %lld %d %1023s",
			   &cpu, &pid, &rpc, &arg, &ret, &ipc, name);
		if (n == 6 && version < 2) {
			n = 7;
		}
		if (n < 7)
			kt_die("stdin line %ld: expected 10 fields: %.60s", lineno, line);
		/* Event text holds times of a trace, not of centuries. */
		if (t < -1 || t >= KT_TIME_LIMIT || dur < 0 || dur >= KT_TIME_LIMIT)
			kt_die("stdin line %ld: time or duration out of range: %.60s", lineno, line);
		if (cpu < 0 || cpu >= KUTRACE_MAX_CPUS)
			kt_die("stdin line %ld: CPU %lld out of range", lineno, cpu);
		e.t = t;
		e.dur = dur;
		e.event = (int)ev;
		e.cpu = (int)cpu;
		e.pid = (int)pid;
		e.rpc = (int)rpc;
		e.arg = arg;
		e.retval = ret;
		e.ipc = ipc;
		e.name = kt_intern(strcmp(name, "-") ? name : "");
		int due = kt_jsonout_due(c.out);

		if (due) {
			meta(&m, spans, flags, version);
			kt_jsonout_advance(c.out, kt_spans_low(spans, e.t, due == 2), &m);
		}
		kt_spans_event(spans, &e);
	}
	free(line);
	if (ferror(stdin))
		kt_die("read error on stdin: %s", strerror(errno));
	if (!nlines)
		kt_die("no event text on stdin (expected rawtoevent's output)");
	kt_spans_finish(spans);
	meta(&m, spans, flags, version);
	if (kt_jsonout_finish(c.out, &m) < 0 || kt_jsonout_copy(c.out, stdout) < 0)
		kt_die("%s", kt_jsonout_error(c.out));
	fclose(work);
	fprintf(stderr, "eventtospan: %" PRIu64 " spans\n", kt_jsonout_rows(c.out));
	kt_jsonout_free(c.out);
	kt_spans_free(spans);
	if (fflush(stdout) != 0 || ferror(stdout))
		kt_die("write error on stdout: %s", strerror(errno));
	return 0;
}

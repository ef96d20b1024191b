// SPDX-License-Identifier: BSD-3-Clause
/*
 * spantospan - coarsen a span JSON to a time resolution (docs/spec/FORMATS.md 6.5).
 *
 *   spantospan <resolution_usec> [<start_sec> [<stop_sec>]] < in.json > out.json
 *
 * Only rows with start_sec <= start < stop_sec are used (defaults: all).
 * 0 copies those rows unchanged.  Otherwise, per CPU, spans shorter than the
 * resolution are accumulated by event number instead of being drawn, and
 * the timeline is rebuilt from the spans that survive:
 *
 *  - rows with cpu < 0, event < 0x400 or duration < 11 ns are dropped,
 *    except mark_a rows, which are copied unchanged;
 *  - a span whose duration plus the backlog of its own event reaches the
 *    resolution absorbs that backlog (keeping the fields of the span that
 *    started it), then the CPU's backlog is flushed, largest accumulated
 *    event first, while the CPU's total backlog is >= the resolution, and
 *    then the span itself is emitted;
 *  - smaller spans are added to their event's backlog;
 *  - the total backlog starts at half the resolution, which compensates
 *    on average for the remainder dropped at the end of the trace;
 *  - emitted spans are laid end to end from the CPU's first span start, in
 *    integer nanoseconds, and adjacent emitted spans of the same event are
 *    merged, keeping the fields of the first.
 *
 * As in the original, the output is grouped: the mark_a rows first, then
 * each CPU's rows (CPUs in ascending order), each group in time order.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tool.h"
#include "jsonrows.h"

#define MAX_CPUS 4096

struct acc {
	int64_t ns;
	struct kt_jrow first;	/* fields of the span that started it */
};

struct cpu_state {
	int started;
	int64_t next_ns;	/* where the next emitted span starts */
	int64_t total;		/* backlog incl. the half-resolution bias */
	struct acc *acc;
	size_t nacc, capacc;
	int have_pend;		/* emitted span not yet written (merging) */
	struct kt_jrow pend;
	int64_t pend_start, pend_ns;
};

struct out_row {
	int64_t group;		/* -1 marks, else the CPU */
	long seq;		/* emission order within the group */
	struct kt_jrow row;
};

static struct cpu_state *cpus;
static size_t ncpus;
static struct out_row *outv;
static size_t nout, capout;
static int64_t res_ns;

static void usage(FILE *f)
{
	fprintf(f,
		"usage: spantospan <resolution_usec> [<start_sec> [<stop_sec>]] < in.json > out.json\n"
		"Coarsens the per-CPU timeline to about <resolution_usec>: short\n"
		"spans are accumulated per event and drawn as fewer, longer spans.\n"
		"Only rows starting in [start_sec, stop_sec) are used (default: all).\n"
		"0 copies those rows unchanged.  Output is grouped as the original's:\n"
		"mark_a rows, then CPU by CPU; sort it for a time-ordered file.\n");
}

static void out_push(const struct kt_jrow *w, int64_t group)
{
	if (nout == capout) {
		capout = capout ? capout * 2 : 1024;
		outv = kt_xrealloc(outv, capout * sizeof(*outv));
	}
	outv[nout].group = group;
	outv[nout].seq = (long)nout;
	outv[nout].row = *w;
	nout++;
}

static void flush_pend(struct cpu_state *c)
{
	if (!c->have_pend)
		return;
	c->pend.start = (double)c->pend_start / 1e9;
	c->pend.dur = (double)c->pend_ns / 1e9;
	out_push(&c->pend, c->pend.cpu);
	c->have_pend = 0;
}

static void emit(struct cpu_state *c, const struct kt_jrow *first, int64_t ns)
{
	/* Rows are bounded to 1e9 s each; only absurd inputs get here. */
	if (c->next_ns > INT64_MAX / 4 || c->next_ns < -(INT64_MAX / 4))
		kt_die("line %ld: laid-out time out of range", first->line);
	if (c->have_pend && c->pend.event == first->event) {
		c->pend_ns += ns;
	} else {
		flush_pend(c);
		c->have_pend = 1;
		c->pend = *first;
		c->pend_start = c->next_ns;
		c->pend_ns = ns;
	}
	c->next_ns += ns;
}

static void acc_remove(struct cpu_state *c, size_t i)
{
	c->total -= c->acc[i].ns;
	c->acc[i] = c->acc[--c->nacc];
}

static void span(const struct kt_jrow *w)
{
	int64_t start_ns = llround(w->start * 1e9);
	int64_t dur_ns = llround(w->dur * 1e9);

	if (w->cpu >= MAX_CPUS)
		kt_die("line %ld: cpu %lld out of range", w->line, (long long)w->cpu);
	if ((size_t)w->cpu >= ncpus) {
		size_t n = (size_t)w->cpu + 1;

		cpus = kt_xrealloc(cpus, n * sizeof(*cpus));
		memset(cpus + ncpus, 0, (n - ncpus) * sizeof(*cpus));
		ncpus = n;
	}
	struct cpu_state *c = &cpus[w->cpu];

	if (!c->started) {
		c->started = 1;
		c->next_ns = start_ns;
		c->total = res_ns / 2;
	}
	size_t i;

	for (i = 0; i < c->nacc; i++)
		if (c->acc[i].first.event == w->event)
			break;
	int64_t backlog = i < c->nacc ? c->acc[i].ns : 0;

	if (dur_ns + backlog < res_ns) {
		if (i == c->nacc) {
			if (c->nacc == c->capacc) {
				c->capacc = c->capacc ? c->capacc * 2 : 16;
				c->acc = kt_xrealloc(c->acc, c->capacc * sizeof(*c->acc));
			}
			c->acc[c->nacc].ns = 0;
			c->acc[c->nacc].first = *w;
			c->nacc++;
		}
		c->acc[i].ns += dur_ns;
		c->total += dur_ns;
		return;
	}
	struct kt_jrow first = *w;

	if (i < c->nacc) {
		first = c->acc[i].first;
		acc_remove(c, i);
	}
	while (c->total >= res_ns && c->nacc > 0) {
		size_t big = 0;

		for (size_t j = 1; j < c->nacc; j++)
			if (c->acc[j].ns > c->acc[big].ns)
				big = j;
		struct acc a = c->acc[big];

		acc_remove(c, big);
		emit(c, &a.first, a.ns);
	}
	emit(c, &first, dur_ns + backlog);
}

static int cmp_out(const void *a, const void *b)
{
	const struct out_row *x = a, *y = b;

	if (x->group != y->group)
		return x->group < y->group ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

/* A non-negative decimal argument, or a one-line error. */
static double number(const char *s, const char *what, const char *unit)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || *end || errno || !(v >= 0) || isinf(v))
		kt_die("bad %s '%s' (%s)", what, s, unit);
	return v;
}

int main(int argc, char **argv)
{
	kt_set_progname(argv[0]);
	if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
		usage(stdout);
		return 0;
	}
	if (argc < 2 || argc > 4) {
		usage(stderr);
		return 2;
	}
	double res_us = number(argv[1], "resolution", "microseconds, >= 0");
	double lo = argc > 2 ? number(argv[2], "start time", "seconds, >= 0") : 0;
	double hi = argc > 3 ? number(argv[3], "stop time", "seconds, >= 0") : INFINITY;

	if (res_us > 1e12)
		kt_die("bad resolution '%s' (microseconds, >= 0)", argv[1]);
	res_ns = llround(res_us * 1000.0);

	struct kt_jreader r;
	struct kt_jrow w;

	kt_xjr_open(&r, "-");
	kt_jw_header(stdout, &r, NULL, NULL);
	while (kt_xjr_next(&r, &w)) {
		if (!(w.start >= lo && w.start < hi))
			continue;
		if (res_ns == 0) {
			kt_jw_row(stdout, &w);
			continue;
		}
		if (w.event == KUTRACE_MARKA) {
			out_push(&w, -1);
			continue;
		}
		if (w.cpu < 0 || w.event < KUTRACE_CALL_LO || w.dur < 11e-9)
			continue;
		span(&w);
	}
	for (size_t i = 0; i < ncpus; i++)
		flush_pend(&cpus[i]);
	if (nout)
		qsort(outv, nout, sizeof(*outv), cmp_out);
	for (size_t i = 0; i < nout; i++)
		kt_jw_row(stdout, &outv[i].row);
	kt_jw_end(stdout, &r);
	kt_jr_close(&r);
	for (size_t i = 0; i < ncpus; i++)
		free(cpus[i].acc);
	free(cpus);
	free(outv);
	if (fflush(stdout) != 0 || ferror(stdout))
		kt_die("write error on stdout");
	return 0;
}

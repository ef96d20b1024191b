// SPDX-License-Identifier: BSD-3-Clause
/*
 * spancheck EXPECTED JSON - compare kutrace_synth's expected CPU timeline
 * with the span JSON written by postprocessing.
 *
 * Checks, for 100% of the expected spans: a JSON row on that CPU with the
 * same start (10 ns), duration (10 ns) and event.  And per CPU the rows
 * that occupy the CPU (kernel, user, idle, c-exit: event >= 0x400, plus the
 * 1-nsec10 point rows that split a span: mwait, marks, mwait-exit) tile the
 * time line: no overlap, no gap between a CPU's first and last row, and
 * none starts before the trace's start time (the timebase's C0).
 *
 * Ticks are converted with kt_timebase_ns10 from the "# timebase" pairs,
 * exactly as postprocessing converts them.  The only tolerated absence is
 * an idle span of at most 1 nsec10 (docs/spec/FORMATS.md 5.4, 10a).  Spans longer
 * than 8 s are written (the original drops them; docs/FORMAT.md).
 *
 * JSON rows are one per line (docs/spec/FORMATS.md 5.10.2), parsed with sscanf.
 * Exit 0 if everything matches, 1 otherwise; mismatches are printed
 * (first few of each kind) with a summary line.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tool.h"

#define SHOW		8

struct row {
	int64_t start, dur;
	int cpu, event;
	int used;
};

struct exp {
	int cpu;
	int64_t start, end;
	int event;
	unsigned long pid;
	char name[64];
	uint64_t tick;
};

static int cmp_row(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	if (x->cpu != y->cpu)
		return x->cpu - y->cpu;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (x->dur > y->dur) - (x->dur < y->dur);
}

/* "TICK" or "TICK+N" / "TICK-N" (N in nsec10) to nsec10. */
static int64_t conv(const struct kt_timebase *tb, const char *s, uint64_t *tick)
{
	char *end;
	uint64_t t = strtoull(s, &end, 10);
	int64_t adj = (*end == '+' || *end == '-') ? strtoll(end, NULL, 10) : 0;

	if (tick)
		*tick = t;
	return kt_timebase_ns10(tb, t) + adj;
}

/* Tiling rows: everything that occupies a CPU's time. */
static int tiles(int cpu, int event)
{
	return cpu >= 0 && (event >= KUTRACE_CALL_LO || event == KUTRACE_MWAIT ||
			    (event >= KUTRACE_MARKA && event <= KUTRACE_MARKD) ||
			    event == KUTRACE_MONITOREXIT);
}

/* Spans postprocessing does not write by design: idle of <= 1 nsec10. */
static int absent_ok(const struct exp *e)
{
	return e->event == KUTRACE_IDLE && e->end - e->start <= 1;
}

int main(int argc, char **argv)
{
	kt_set_progname(argv[0]);
	if (argc != 3) {
		fprintf(stderr, "usage: spancheck EXPECTED JSON\n");
		return 2;
	}
	FILE *fe = fopen(argv[1], "r"), *fj = fopen(argv[2], "r");

	if (!fe || !fj)
		kt_die("cannot open %s", !fe ? argv[1] : argv[2]);
	char line[4096];
	struct kt_timebase tb;
	int have_tb = 0;
	struct exp *ex = NULL;
	size_t nex = 0, capex = 0;

	while (fgets(line, sizeof(line), fe)) {
		unsigned long long c0, u0, c1, u1;
		char err[256], a[64], b[64];
		struct exp e;

		if (sscanf(line, "# timebase %llu %llu %llu %llu", &c0, &u0, &c1, &u1) == 4) {
			if (kt_timebase_init(&tb, c0, u0, c1, u1, err, sizeof(err)))
				kt_die("%s: %s", argv[1], err);
			have_tb = 1;
			continue;
		}
		if (line[0] == '#' || line[0] == '\n')
			continue;
		if (!have_tb)
			kt_die("%s: no '# timebase' line before the spans", argv[1]);
		memset(&e, 0, sizeof(e));
		if (sscanf(line, "%d %63s %63s %d %lu %63s", &e.cpu, a, b, &e.event,
			   &e.pid, e.name) < 5)
			kt_die("%s: bad line: %s", argv[1], line);
		e.start = conv(&tb, a, &e.tick);
		e.end = conv(&tb, b, NULL);
		/* A point event lasts 1 nsec10 however it was written. */
		if (e.end - e.start < 1)
			e.end = e.start + 1;
		if (nex == capex) {
			capex = capex ? 2 * capex : 4096;
			ex = kt_xrealloc(ex, capex * sizeof(*ex));
		}
		ex[nex++] = e;
	}
	fclose(fe);

	struct row *rows = NULL;
	size_t nrow = 0, caprow = 0;
	long lineno = 0, bad = 0;

	while (fgets(line, sizeof(line), fj)) {
		double s, d;
		int cpu, pid, rpc, ev;

		lineno++;
		if (line[0] != '[')
			continue;
		if (sscanf(line, "[%lf, %lf, %d, %d, %d, %d,", &s, &d, &cpu, &pid,
			   &rpc, &ev) != 6) {
			if (bad++ < SHOW)
				printf("json line %ld: not a row: %.80s", lineno, line);
			continue;
		}
		if (s >= 999.0 && ev == 0)
			continue;	/* sentinel */
		if (!tiles(cpu, ev))
			continue;
		if (nrow == caprow) {
			caprow = caprow ? 2 * caprow : 65536;
			rows = kt_xrealloc(rows, caprow * sizeof(*rows));
		}
		rows[nrow++] = (struct row){ llround(s * 1e8), llround(d * 1e8),
					     cpu, ev, 0 };
	}
	fclose(fj);
	qsort(rows, nrow, sizeof(*rows), cmp_row);

	/* 1. Every expected span is a row. */
	long missing = 0, matched = 0, long_ok = 0;

	for (size_t i = 0; i < nex; i++) {
		struct exp *e = &ex[i];
		struct row key = { e->start, -1, e->cpu, 0, 0 };
		size_t lo = 0, hi = nrow;

		while (lo < hi) {	/* first row >= (cpu, start) */
			size_t mid = (lo + hi) / 2;

			if (cmp_row(&rows[mid], &key) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		int found = 0;
		size_t j;

		for (j = lo; j < nrow && rows[j].cpu == e->cpu &&
			     rows[j].start == e->start; j++) {
			if (rows[j].event == e->event &&
			    rows[j].dur == e->end - e->start) {
				rows[j].used = 1;
				found = 1;
				break;
			}
		}
		if (found) {
			matched++;
			continue;
		}
		if (absent_ok(e)) {
			long_ok++;	/* not written by design */
			continue;
		}
		if (missing++ < SHOW) {
			printf("MISSING cpu %d tick %" PRIu64 ": expected [%.8f, %.8f] "
			       "event %d (0x%x) %s", e->cpu, e->tick, e->start / 1e8,
			       (e->end - e->start) / 1e8, e->event, e->event, e->name);
			/* the row(s) that cover this time instead */
			size_t k = lo;

			while (k > 0 && rows[k - 1].cpu == e->cpu &&
			       rows[k - 1].start + rows[k - 1].dur > e->start)
				k--;
			int shown = 0;

			for (; k < nrow && rows[k].cpu == e->cpu &&
			       rows[k].start < e->end && shown < 3; k++, shown++)
				printf("%s got [%.8f, %.8f] event %d (0x%x)",
				       shown ? ";" : ",", rows[k].start / 1e8,
				       rows[k].dur / 1e8, rows[k].event, rows[k].event);
			if (!shown)
				printf(", got no row there");
			printf("\n");
		}
	}

	/* 2. Per CPU the rows tile: no overlap, no gap, nothing before the start. */
	long overlaps = 0, gaps = 0, early = 0;
	int64_t start = have_tb ? kt_timebase_ns10(&tb, tb.c0) : 0;

	for (size_t i = 0; i < nrow; i++)
		if (rows[i].start < start && early++ < SHOW)
			printf("EARLY cpu %d: [%.8f, %.8f] event %d before the start %.8f\n",
			       rows[i].cpu, rows[i].start / 1e8, rows[i].dur / 1e8,
			       rows[i].event, start / 1e8);

	for (size_t i = 1; i < nrow; i++) {
		struct row *p = &rows[i - 1], *r = &rows[i];

		if (p->cpu != r->cpu)
			continue;
		int64_t pend = p->start + p->dur;

		if (r->start < pend) {
			if (overlaps++ < SHOW)
				printf("OVERLAP cpu %d: [%.8f, %.8f] event %d and "
				       "[%.8f, %.8f] event %d\n", r->cpu,
				       p->start / 1e8, p->dur / 1e8, p->event,
				       r->start / 1e8, r->dur / 1e8, r->event);
		} else if (r->start > pend) {
			/* an expected absent span explains the hole */
			int known = 0;

			for (size_t k = 0; k < nex && !known; k++)
				known = ex[k].cpu == r->cpu && ex[k].start == pend &&
					ex[k].end == r->start &&
					absent_ok(&ex[k]);
			/*
			 * The 1-nsec10 idle rest after a c-exit that ended at
			 * a PC sample is not written (idle spans <= 1).
			 */
			if (p->event == KUTRACE_C_EXIT && r->start == pend + 1)
				known = 1;
			if (!known && gaps++ < SHOW)
				printf("GAP cpu %d: nothing from %.8f to %.8f "
				       "(after event %d, before event %d)\n", r->cpu,
				       pend / 1e8, r->start / 1e8, p->event, r->event);
		}
	}
	printf("spancheck: %zu expected spans, %ld matched, %ld missing, "
	       "%ld unwritten (long or 1-nsec10 idle), %zu CPU rows, %ld overlaps, %ld gaps, "
	       "%ld early, %ld bad rows\n", nex, matched, missing, long_ok, nrow, overlaps,
	       gaps, early, bad);
	free(ex);
	free(rows);
	return (missing || overlaps || gaps || early || bad || nex == 0) ? 1 : 0;
}

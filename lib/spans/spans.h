/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * spans.h - events to timespans, the rows (eventtospan,
 * docs/spec/FORMATS.md 5)
 *
 * span.c keeps the per-CPU call stacks and turns events into rows: struct
 * kt_row, one row of the JSON, handed over nearly in time order.
 */
#ifndef KT_LIB_SPANS_H
#define KT_LIB_SPANS_H

#include "decode.h"

/* ---------------------------------------------------------------------- */
/* Timespans (eventtospan, docs/spec/FORMATS.md 5)                         */
/* ---------------------------------------------------------------------- */

/*
 * One JSON row as the span builder makes it: times in nsec10, the unit of
 * the trace and of the row line, so writing it is integer formatting;
 * 64 bytes (the tools' row is 88), and kutrace_postproc holds up to a
 * million of them in its lanes and queues.
 * The JSON tools' row (struct kt_jrow, jsonrows.h) is a second type on
 * purpose: it holds any JSON number the tools read, in seconds.
 */
struct kt_row {
	int64_t start;
	int64_t dur;
	int cpu, pid, rpc, event;
	int64_t arg, retval;
	int ipc;
	const char *name;	/* interned */
};

typedef void (*kt_row_fn)(void *ctx, const struct kt_row *row);
struct kt_spans;

struct kt_spans *kt_spans_new(kt_row_fn fn, void *ctx);
/*
 * The trace's start and stop times (nsec10, block 0's time pairs:
 * kt_decoder_edges, or rawtoevent's "# ## STARTSTOP:" line), before the
 * first event.  With them no CPU's first span starts before the start
 * (a block set up shortly before it), and a CPU idle at the end is idle
 * until the stop; without them the CPU timelines run from the first block
 * to the latest event, as before.
 */
void kt_spans_edges(struct kt_spans *s, int64_t start, int64_t stop);
/* Feed one event; events must come in time order (per CPU strictly). */
void kt_spans_event(struct kt_spans *s, const struct kt_event *e);
/* End of input: close frequency spans, write row labels. */
void kt_spans_finish(struct kt_spans *s);
void kt_spans_free(struct kt_spans *s);
/*
 * The trace's header facts: the span builder fills them (kt_spans_meta),
 * the JSON writer writes them (rows.h).
 */
struct kt_json_meta {
	const char *title;
	const char *tracebase;	/* "YYYY-MM-DD_HH:MM:00" */
	const char *kernel, *model, *host;	/* NULL if absent */
	unsigned int flags;
	int mbit;
	int version;
	uint32_t randomid;
};
/* Fill the header facts (kernel, model, host, mbit_sec) of m. */
void kt_spans_meta(const struct kt_spans *s, struct kt_json_meta *m);
/* No row still to come starts before this (see span.c for the exception). */
int64_t kt_spans_low(const struct kt_spans *s, int64_t now, int cpus_only);
/*
 * No event names pid after until (kt_decoder_on_named): once past it, the
 * thread makes no more rows, so its pending wait or wakeup no longer
 * holds kt_spans_low back.  (Were that wrong, a row would only come late,
 * never out of place.)
 */
void kt_spans_named(struct kt_spans *s, uint32_t pid, int64_t until);

#endif /* KT_LIB_SPANS_H */

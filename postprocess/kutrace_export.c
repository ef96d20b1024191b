// SPDX-License-Identifier: BSD-3-Clause
/*
 * kutrace_export - convert a KUtrace span JSON to other trace formats.
 *
 *   kutrace_export --perfetto [in.json] > out.json
 *
 * --perfetto writes the Chrome trace-event JSON format ("JSON Array/Object
 * Format"), which ui.perfetto.dev and chrome://tracing open directly:
 *
 *   process 1 "CPUs"     one thread track per CPU: kernel, user, idle and
 *                        c-exit spans as complete ("X") slices; PC samples
 *                        and other point events as thread-scoped instants
 *   process 2 "Threads"  one track per thread: its kernel and user spans
 *                        and its waits ("X"), named from the user-mode or
 *                        0x20E label rows
 *   process 3 "Locks and queues"  lock and queue spans as async slices,
 *                        which may overlap
 *   flows                wakeup (-3) and IPI (-7) arcs as flow arrows
 *                        from the sending CPU to the target CPU
 *   instants             marks (mark_a..d) as global instant events
 *   counters             CPU frequency (0x209) as one counter per CPU
 *
 * Times are microseconds after the trace's tracebase minute.  The input is
 * streamed; only the per-thread naming state is kept.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "tool.h"
#include "jsonrows.h"

#define PID_CPUS	1
#define PID_THREADS	2
#define PID_ASYNC	3

static FILE *out;
static int first_event = 1;
static uint64_t flow_id, async_id;

/*
 * Sets of CPUs / threads that already have metadata: open addressing, as
 * they are consulted for every row.  list keeps insertion order.
 */
struct seen {
	int64_t *tab;
	size_t cap;
	int64_t *list;
	size_t n;
};

static struct seen cpus_seen, threads_named, threads_seen;

#define EMPTY_SLOT INT64_MIN

static size_t slot_of(const struct seen *s, int64_t x)
{
	size_t j = (size_t)(((uint64_t)x * 0x9E3779B97F4A7C15ULL) >> 20) & (s->cap - 1);

	while (s->tab[j] != EMPTY_SLOT && s->tab[j] != x)
		j = (j + 1) & (s->cap - 1);
	return j;
}

/* Returns 1 if x was newly added. */
static int seen_add(struct seen *s, int64_t x)
{
	if ((s->n + 1) * 2 > s->cap) {
		size_t ncap = s->cap ? s->cap * 2 : 64;

		free(s->tab);
		s->tab = kt_xmalloc(ncap * sizeof(*s->tab));
		s->cap = ncap;
		for (size_t i = 0; i < ncap; i++)
			s->tab[i] = EMPTY_SLOT;
		for (size_t i = 0; i < s->n; i++)
			s->tab[slot_of(s, s->list[i])] = s->list[i];
		s->list = kt_xrealloc(s->list, ncap * sizeof(*s->list));
	}
	size_t j = slot_of(s, x);

	if (s->tab[j] == x)
		return 0;
	s->tab[j] = x;
	s->list[s->n++] = x;
	return 1;
}

static void seen_free(struct seen *s)
{
	free(s->tab);
	free(s->list);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: kutrace_export --perfetto [in.json] > out.json\n"
		"Writes the Chrome/Perfetto trace-event JSON of a KUtrace span JSON\n"
		"(stdin if no file): a track per CPU and per thread, slices, wakeup\n"
		"flow arrows, mark instants and frequency counters.  Open the result\n"
		"in ui.perfetto.dev or chrome://tracing.\n");
}

static void begin(void)
{
	fputs(first_event ? "\n" : ",\n", out);
	first_event = 0;
}

static void meta(const char *what, int pid, int64_t tid, const char *name)
{
	begin();
	fprintf(out, "{\"ph\":\"M\",\"name\":\"%s\",\"pid\":%d,\"tid\":%" PRId64
		",\"args\":{\"name\":\"", what, pid, tid);
	kt_json_escape(out, name);
	fputs("\"}}", out);
}

static void sort_index(int pid, int64_t tid, int64_t idx)
{
	begin();
	fprintf(out, "{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":%d,\"tid\":%"
		PRId64 ",\"args\":{\"sort_index\":%" PRId64 "}}", pid, tid, idx);
}

static void cpu_track(int64_t cpu)
{
	char buf[40];

	if (!seen_add(&cpus_seen, cpu))
		return;
	snprintf(buf, sizeof(buf), "CPU %" PRId64, cpu);
	meta("thread_name", PID_CPUS, cpu, buf);
	sort_index(PID_CPUS, cpu, cpu);
}

static void thread_track(int64_t pid)
{
	seen_add(&threads_seen, pid);
}

static void thread_name(int64_t pid, const char *name)
{
	if (pid <= 0 || !seen_add(&threads_named, pid))
		return;
	meta("thread_name", PID_THREADS, pid, name);
}

static const char *category(int64_t ev)
{
	if (ev == KUTRACE_IDLE)
		return "idle";
	if (ev == KUTRACE_C_EXIT)
		return "c-exit";
	if (ev > KUTRACE_IDLE && ev < KUTRACE_C_EXIT)
		return "user";
	if (ev >= KUTRACE_SYSCALL64 && ev < 0x1000)
		return "syscall";
	if (ev >= KUTRACE_IRQ && ev < KUTRACE_TRAPRET)
		return "irq";
	if (ev >= KUTRACE_TRAP && ev < KUTRACE_IRQ)
		return "trap";
	if (ev >= KUTRACE_WAIT_BASE && ev <= KUTRACE_WAIT_BASE + 25)
		return "wait";
	if (ev == KUTRACE_PC_U || ev == KUTRACE_PC_K)
		return "pc-sample";
	if (ev == KUTRACE_LOCK_HELD || ev == KUTRACE_LOCK_TRY)
		return "lock";
	if (ev >= KUTRACE_MARKA && ev <= KUTRACE_MARKD)
		return "mark";
	return "event";
}

static void common(const struct kt_jrow *w, const char *ph, double ts)
{
	fprintf(out, "{\"ph\":\"%s\",\"cat\":\"%s\",\"name\":\"", ph, category(w->event));
	kt_json_escape(out, w->name[0] ? w->name : "(unnamed)");
	fprintf(out, "\",\"ts\":%.3f", ts);
}

static void args(const struct kt_jrow *w)
{
	fprintf(out, ",\"args\":{\"event\":%" PRId64 ",\"arg\":%" PRId64 ",\"retval\":%"
		PRId64 ",\"ipc\":%" PRId64 ",\"rpc\":%" PRId64 ",\"cpu\":%" PRId64
		",\"pid\":%" PRId64 "}}", w->event, w->arg, w->retval, w->ipc,
		w->rpc, w->cpu, w->pid);
}

static void slice(const struct kt_jrow *w, int pid, int64_t tid)
{
	begin();
	common(w, "X", w->start * 1e6);
	fprintf(out, ",\"dur\":%.3f,\"pid\":%d,\"tid\":%" PRId64,
		w->dur > 0 ? w->dur * 1e6 : 0.0, pid, tid);
	args(w);
}

static void instant(const struct kt_jrow *w, int pid, int64_t tid, const char *scope)
{
	begin();
	common(w, "i", w->start * 1e6);
	fprintf(out, ",\"s\":\"%s\",\"pid\":%d,\"tid\":%" PRId64, scope, pid, tid);
	args(w);
}

static void flow(const struct kt_jrow *w, int64_t from_cpu, int64_t to_cpu)
{
	uint64_t id = ++flow_id;

	cpu_track(from_cpu);
	cpu_track(to_cpu);
	begin();
	common(w, "s", w->start * 1e6);
	fprintf(out, ",\"id\":%" PRIu64 ",\"pid\":%d,\"tid\":%" PRId64 "}",
		id, PID_CPUS, from_cpu);
	begin();
	common(w, "f", (w->start + w->dur) * 1e6);
	fprintf(out, ",\"bp\":\"e\",\"id\":%" PRIu64 ",\"pid\":%d,\"tid\":%" PRId64 "}",
		id, PID_CPUS, to_cpu);
}

static void async_span(const struct kt_jrow *w)
{
	uint64_t id = ++async_id;

	begin();
	common(w, "b", w->start * 1e6);
	fprintf(out, ",\"id\":%" PRIu64 ",\"pid\":%d,\"tid\":0", id, PID_ASYNC);
	args(w);
	begin();
	common(w, "e", (w->start + w->dur) * 1e6);
	fprintf(out, ",\"id\":%" PRIu64 ",\"pid\":%d,\"tid\":0}", id, PID_ASYNC);
}

static void counter(const struct kt_jrow *w)
{
	begin();
	fprintf(out, "{\"ph\":\"C\",\"name\":\"CPU %" PRId64 " MHz\",\"ts\":%.3f,"
		"\"pid\":%d,\"args\":{\"MHz\":%" PRId64 "}}",
		w->cpu, w->start * 1e6, PID_CPUS, w->arg);
}

static void row(const struct kt_jrow *w)
{
	int64_t ev = w->event;

	if (w->cpu >= 0)
		cpu_track(w->cpu);
	if (w->pid > 0 && ((ev > KUTRACE_IDLE && ev < KUTRACE_C_EXIT) || ev == KUTRACE_LEFTMARK))
		thread_name(w->pid, w->name);
	if (ev == KUTRACE_LEFTMARK)
		return;
	if (ev == KUTRACE_ARC_WAKEUP || ev == KUTRACE_ARC_IPI) {
		if (w->cpu >= 0 && w->arg >= 0)
			flow(w, w->cpu, w->arg);
		return;
	}
	if (ev < 0)
		return;		/* viewer-only drawing items */
	if (ev >= KUTRACE_MARKA && ev <= KUTRACE_MARKD) {
		instant(w, PID_CPUS, w->cpu >= 0 ? w->cpu : 0, "g");
		return;
	}
	if (ev == KUTRACE_PSTATE && w->cpu >= 0) {
		counter(w);
		return;
	}
	if (ev >= KUTRACE_CALL_LO && w->cpu >= 0) {
		slice(w, PID_CPUS, w->cpu);
		if (w->pid > 0 && ev != KUTRACE_IDLE && ev != KUTRACE_C_EXIT) {
			thread_track(w->pid);
			slice(w, PID_THREADS, w->pid);
		}
		return;
	}
	if (ev >= KUTRACE_WAIT_BASE && ev <= KUTRACE_WAIT_BASE + 25 && w->pid > 0) {
		thread_track(w->pid);
		slice(w, PID_THREADS, w->pid);
		return;
	}
	if (w->cpu < 0) {
		async_span(w);
		return;
	}
	instant(w, PID_CPUS, w->cpu, "t");
}

int main(int argc, char **argv)
{
	const char *in = "-";
	int perfetto = 0;
	const struct kt_opt opts[] = {
		{ "perfetto", KT_OPT_FLAG, &perfetto, 1 },
		{ NULL, 0, NULL, 0 },
	};
	const struct kt_argspec spec = { opts, usage, 0, 1, 1 };

	kt_set_progname(argv[0]);
	kt_args(&spec, argc, argv, &in);
	if (!perfetto)
		kt_die("an output format is needed: --perfetto (try --help)");

	struct kt_jreader r;
	struct kt_jrow w;

	out = stdout;
	kt_xjr_open(&r, in);
	fputs("{\"displayTimeUnit\":\"ns\",\"otherData\":{\"source\":\"kutrace\"", out);
	const char *tb = kt_jr_header_value(&r, "tracebase");
	const char *title = kt_jr_header_value(&r, "title");

	if (tb)
		fprintf(out, ",\"tracebase\":%s", tb);
	if (title)
		fprintf(out, ",\"title\":%s", title);
	fputs("},\"traceEvents\":[", out);
	meta("process_name", PID_CPUS, 0, "CPUs");
	meta("process_name", PID_THREADS, 0, "Threads");
	meta("process_name", PID_ASYNC, 0, "Locks and queues");
	while (kt_xjr_next(&r, &w))
		row(&w);
	/* Threads that never had a naming row still get a readable track. */
	for (size_t i = 0; i < threads_seen.n; i++) {
		char buf[40];

		snprintf(buf, sizeof(buf), "pid %" PRId64, threads_seen.list[i]);
		thread_name(threads_seen.list[i], buf);
	}
	fputs("\n]}\n", out);
	kt_jr_close(&r);
	seen_free(&cpus_seen);
	seen_free(&threads_named);
	seen_free(&threads_seen);
	if (fflush(stdout) != 0 || ferror(stdout))
		kt_die("write error on stdout");
	return 0;
}

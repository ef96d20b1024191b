// SPDX-License-Identifier: BSD-3-Clause
/*
 * kutrace_export - convert a KUtrace span JSON to other trace formats.
 *
 *   kutrace_export --perfetto [in.json] > out.json
 *   kutrace_export --ctf DIR X.trace|X.json|STORE
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
 *
 * --ctf writes a CTF 1.8 trace that reads as an LTTng kernel trace
 * (babeltrace2, Trace Compass); the mapping, event by event, is
 * docs/CTF.md.  Rows become events in a time-ordered queue that is
 * written out once the input has moved a margin past them, so memory
 * holds only the events of that margin and the spans still open.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

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
		"       kutrace_export --ctf DIR X.trace|X.json|STORE [--quiet | --progress]\n"
		"Writes the Chrome/Perfetto trace-event JSON of a KUtrace span JSON\n"
		"(stdin if no file): a track per CPU and per thread, slices, wakeup\n"
		"flow arrows, mark instants and frequency counters.  Open the result\n"
		"in ui.perfetto.dev or chrome://tracing.\n"
		"--ctf writes DIR (new, or an empty directory) as a CTF 1.8 trace that\n"
		"babeltrace2 and Trace Compass read as an LTTng kernel trace: a stream\n"
		"per CPU, sched_switch, wakeups, syscall_entry_/exit_, interrupts,\n"
		"softirqs and page faults, kutrace's own events as kutrace_* (docs/CTF.md).\n"
		"A raw trace goes through kutrace_postproc first.  Errors: one line, exit\n"
		"2, no DIR written.\n");
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

/* ---------------------------------------------------------------------- */
/* --ctf: an LTTng-style kernel trace in CTF 1.8 (docs/CTF.md)             */
/* ---------------------------------------------------------------------- */

/* Events stay queued until the input is this far past them (ns): a
 * switch's prev_state is learnt from the wait row 10 ns after it. */
#define CTF_MARGIN 1000
#define STREAM_NOCPU 65536	/* stream instance ids past any CPU */
#define STREAM_DUMP 65537
#define COMM_LEN 16		/* TASK_COMM_LEN */

static char *ctf_tmp;		/* the directory being written */
static int ctf_done;

static int rm_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static void ctf_cleanup(void)
{
	if (ctf_tmp && !ctf_done)
		nftw(ctf_tmp, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static void ctf_on_signal(int sig)
{
	ctf_cleanup();
	signal(sig, SIG_DFL);
	raise(sig);
}

/* Bad input or output: one line, exit 2, nothing left behind. */
static void __attribute__((format(printf, 1, 2), noreturn)) cdie(const char *fmt, ...)
{
	va_list ap;

	kt_progress_end();
	fprintf(stderr, "%s: ", kt_progname());
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	ctf_cleanup();
	ctf_done = 1;
	exit(2);
}

/* A row whatever the input: times in ns after the tracebase. */
struct crow {
	int64_t s, d, cpu, pid, rpc, ev, arg, ret, ipc;
	const char *name;
};

struct qev {
	int64_t ts;
	uint64_t seq;
	int stream, id;
	int32_t tid;		/* a switch's prev_tid, whose state may be patched */
	uint32_t len;
	unsigned char *data;
};

struct thr {
	int64_t tid;
	char comm[COMM_LEN];
	int32_t first_cpu;
	uint64_t out_seq;	/* queued switch-out, 0 none */
	int64_t out_ts;
	unsigned char *out_state;
};

static struct {
	struct kt_ctf *c;
	struct qev *q;
	size_t nq, capq;
	uint64_t seq;
	int *cpu_stream;	/* by CPU, -1 not yet */
	int64_t *cpu_tid;	/* running thread by CPU, -1 unknown */
	int64_t *cpu_prev_ev;	/* the CPU's last execution row's event */
	int64_t *last_ts;	/* by stream, for time order */
	size_t ncpu, nstream_ts;
	int nocpu;
	struct thr *thr;	/* open addressing by tid */
	size_t thrcap, nthr;
	int64_t first_ts;
	uint64_t events, rows, moved;
	unsigned char pay[4096 + 64];
	size_t plen;
	int id_switch, id_waking, id_wakeup, id_irq_in, id_irq_out, id_soft_in,
	    id_soft_out, id_pf_user, id_pf_kernel, id_trap_in, id_trap_out,
	    id_sched_in, id_sched_out, id_mark, id_rpc, id_lock, id_wait, id_queue,
	    id_pc, id_freq, id_ipi, id_point, id_tname, id_ipc, id_cexit, id_dump;
} X;

static size_t thr_hash(int64_t tid)
{
	return (size_t)(((uint64_t)tid * 0x9E3779B97F4A7C15ULL) >> 20) & (X.thrcap - 1);
}

static struct thr *thr_get(int64_t tid)
{
	if ((X.nthr + 1) * 2 > X.thrcap) {
		struct thr *old = X.thr;
		size_t oc = X.thrcap;

		X.thrcap = oc ? oc * 2 : 256;
		X.thr = kt_xmalloc(X.thrcap * sizeof(*X.thr));
		for (size_t i = 0; i < X.thrcap; i++)
			X.thr[i].tid = INT64_MIN;
		for (size_t i = 0; i < oc; i++) {
			if (old[i].tid == INT64_MIN)
				continue;
			size_t j = thr_hash(old[i].tid);

			while (X.thr[j].tid != INT64_MIN)
				j = (j + 1) & (X.thrcap - 1);
			X.thr[j] = old[i];
		}
		free(old);
	}
	size_t j = thr_hash(tid);

	while (X.thr[j].tid != INT64_MIN && X.thr[j].tid != tid)
		j = (j + 1) & (X.thrcap - 1);
	if (X.thr[j].tid == INT64_MIN) {
		memset(&X.thr[j], 0, sizeof(X.thr[j]));
		X.thr[j].tid = tid;
		X.thr[j].first_cpu = -1;
		if (tid == 0)
			strcpy(X.thr[j].comm, "swapper");
		X.nthr++;
	}
	return &X.thr[j];
}

/* The thread's name from a row name "name.pid" (or "a+b.pid"). */
static void thr_name(int64_t tid, const char *name)
{
	struct thr *t;
	const char *dot = strrchr(name, '.');
	size_t n = dot ? (size_t)(dot - name) : strlen(name);

	if (tid <= 0 || !n)
		return;
	t = thr_get(tid);
	if (n > COMM_LEN - 1)
		n = COMM_LEN - 1;
	memset(t->comm, 0, COMM_LEN);
	memcpy(t->comm, name, n);
}

static void p_reset(void)
{
	X.plen = 0;
}

static void p_int(uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		X.pay[X.plen++] = (unsigned char)(v >> (8 * i));
}

static void p_comm(const char *s)
{
	memset(X.pay + X.plen, 0, COMM_LEN);
	memcpy(X.pay + X.plen, s, strnlen(s, COMM_LEN - 1));
	X.plen += COMM_LEN;
}

static void p_str(const char *s)
{
	size_t n = strnlen(s, 4000);

	memcpy(X.pay + X.plen, s, n);
	X.pay[X.plen + n] = 0;
	X.plen += n + 1;
}

static void q_swap(size_t a, size_t b)
{
	struct qev t = X.q[a];

	X.q[a] = X.q[b];
	X.q[b] = t;
}

static int q_less(size_t a, size_t b)
{
	return X.q[a].ts < X.q[b].ts || (X.q[a].ts == X.q[b].ts && X.q[a].seq < X.q[b].seq);
}

static int stream_of_cpu(int64_t cpu)
{
	char file[48];

	if (cpu < 0) {
		if (X.nocpu < 0) {
			X.nocpu = kt_ctf_stream(X.c, "kutrace_nocpu", STREAM_NOCPU, 0);
			if (X.nocpu < 0)
				cdie("%s", kt_ctf_error(X.c));
		}
		return X.nocpu;
	}
	if (cpu > 65535)
		cdie("row of CPU %" PRId64 ": not a CPU number", cpu);
	if ((size_t)cpu >= X.ncpu) {
		size_t n = (size_t)cpu + 1;

		X.cpu_stream = kt_xrealloc(X.cpu_stream, n * sizeof(int));
		X.cpu_tid = kt_xrealloc(X.cpu_tid, n * sizeof(int64_t));
		X.cpu_prev_ev = kt_xrealloc(X.cpu_prev_ev, n * sizeof(int64_t));
		for (size_t i = X.ncpu; i < n; i++) {
			X.cpu_stream[i] = -1;
			X.cpu_tid[i] = -1;
			X.cpu_prev_ev[i] = -1;
		}
		X.ncpu = n;
	}
	if (X.cpu_stream[cpu] < 0) {
		snprintf(file, sizeof(file), "channel0_%" PRId64, cpu);
		X.cpu_stream[cpu] = kt_ctf_stream(X.c, file, (uint64_t)cpu, (uint32_t)cpu);
		if (X.cpu_stream[cpu] < 0)
			cdie("%s", kt_ctf_error(X.c));
	}
	return X.cpu_stream[cpu];
}

/* Queue the payload built since p_reset as event id on cpu's stream. */
static struct qev *emit(int64_t cpu, int64_t ts, int id)
{
	struct qev *e;
	size_t i;

	if (X.nq == X.capq) {
		X.capq = X.capq ? X.capq * 2 : 1024;
		X.q = kt_xrealloc(X.q, X.capq * sizeof(*X.q));
	}
	i = X.nq++;
	e = &X.q[i];
	e->ts = ts < 0 ? 0 : ts;
	e->seq = ++X.seq;
	e->stream = stream_of_cpu(cpu);
	e->id = id;
	e->tid = -1;
	e->len = (uint32_t)X.plen;
	e->data = kt_xmalloc(X.plen ? X.plen : 1);
	memcpy(e->data, X.pay, X.plen);
	while (i > 0 && q_less(i, (i - 1) / 2)) {
		q_swap(i, (i - 1) / 2);
		i = (i - 1) / 2;
	}
	return &X.q[i];
}

static void q_pop_write(void)
{
	struct qev e = X.q[0];
	size_t i = 0;

	X.q[0] = X.q[--X.nq];
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;

		if (l < X.nq && q_less(l, m))
			m = l;
		if (r < X.nq && q_less(r, m))
			m = r;
		if (m == i)
			break;
		q_swap(i, m);
		i = m;
	}
	if (e.tid >= 0) {
		struct thr *t = thr_get(e.tid);

		if (t->out_seq == e.seq)
			t->out_seq = 0;
	}
	if ((size_t)e.stream >= X.nstream_ts) {
		size_t n = (size_t)e.stream + 1;

		X.last_ts = kt_xrealloc(X.last_ts, n * sizeof(int64_t));
		for (size_t k = X.nstream_ts; k < n; k++)
			X.last_ts[k] = 0;
		X.nstream_ts = n;
	}
	/* Rows out of time order (a hand-made JSON) move forward, not back. */
	if (e.ts < X.last_ts[e.stream]) {
		e.ts = X.last_ts[e.stream];
		X.moved++;
	}
	X.last_ts[e.stream] = e.ts;
	if (kt_ctf_event(X.c, e.stream, (uint64_t)e.ts, e.id, e.data, e.len) < 0)
		cdie("%s", kt_ctf_error(X.c));
	X.events++;
	free(e.data);
}

static void q_flush(int64_t before)
{
	while (X.nq && X.q[0].ts < before)
		q_pop_write();
}

static void ctf_classes(struct kt_ctf *c)
{
	const char *task = "\t\tchar_t comm[16];\n\t\tint32_t tid;\n\t\tint32_t prio;\n"
			   "\t\tint32_t target_cpu;\n";

	X.id_switch = kt_ctf_class(c, "sched_switch",
		"\t\tchar_t prev_comm[16];\n\t\tint32_t prev_tid;\n\t\tint32_t prev_prio;\n"
		"\t\tint64_t prev_state;\n\t\tchar_t next_comm[16];\n\t\tint32_t next_tid;\n"
		"\t\tint32_t next_prio;\n");
	X.id_waking = kt_ctf_class(c, "sched_waking", task);
	X.id_wakeup = kt_ctf_class(c, "sched_wakeup", task);
	X.id_irq_in = kt_ctf_class(c, "irq_handler_entry", "\t\tint32_t irq;\n\t\tstring name;\n");
	X.id_irq_out = kt_ctf_class(c, "irq_handler_exit", "\t\tint32_t irq;\n\t\tint32_t ret;\n");
	X.id_soft_in = kt_ctf_class(c, "irq_softirq_entry", "\t\tuint32_t vec;\n");
	X.id_soft_out = kt_ctf_class(c, "irq_softirq_exit", "\t\tuint32_t vec;\n");
	X.id_pf_user = kt_ctf_class(c, "x86_exceptions_page_fault_user",
		"\t\tuint64_hex_t address;\n\t\tuint64_hex_t ip;\n\t\tuint8_t error_code;\n");
	X.id_pf_kernel = kt_ctf_class(c, "x86_exceptions_page_fault_kernel",
		"\t\tuint64_hex_t address;\n\t\tuint64_hex_t ip;\n\t\tuint8_t error_code;\n");
	X.id_dump = kt_ctf_class(c, "lttng_statedump_process_state",
		"\t\tint32_t tid;\n\t\tint32_t pid;\n\t\tint32_t ppid;\n\t\tchar_t name[16];\n"
		"\t\tint32_t type;\n\t\tint32_t mode;\n\t\tint32_t submode;\n\t\tint32_t status;\n"
		"\t\tuint32_t cpu;\n\t\tuint64_hex_t file_table_address;\n");
	X.id_trap_in = kt_ctf_class(c, "kutrace_trap_entry",
		"\t\tint32_t trap;\n\t\tint64_t arg;\n\t\tstring name;\n");
	X.id_trap_out = kt_ctf_class(c, "kutrace_trap_exit", "\t\tint32_t trap;\n");
	X.id_sched_in = kt_ctf_class(c, "kutrace_sched_entry", "\t\tint32_t tid;\n");
	X.id_sched_out = kt_ctf_class(c, "kutrace_sched_exit", "\t\tint32_t tid;\n");
	X.id_cexit = kt_ctf_class(c, "kutrace_c_exit", "\t\tuint64_t dur;\n");
	X.id_mark = kt_ctf_class(c, "kutrace_mark",
		"\t\tstring kind;\n\t\tint32_t tid;\n\t\tint64_t arg;\n\t\tstring label;\n");
	X.id_rpc = kt_ctf_class(c, "kutrace_rpc",
		"\t\tstring kind;\n\t\tint32_t tid;\n\t\tint64_t rpc;\n\t\tint64_t arg;\n"
		"\t\tuint64_t dur;\n\t\tstring name;\n");
	X.id_lock = kt_ctf_class(c, "kutrace_lock",
		"\t\tstring kind;\n\t\tint32_t tid;\n\t\tint64_t lock;\n\t\tuint64_t dur;\n"
		"\t\tstring name;\n");
	X.id_wait = kt_ctf_class(c, "kutrace_wait",
		"\t\tint32_t tid;\n\t\tint64_t rpc;\n\t\tuint64_t dur;\n\t\tstring reason;\n");
	X.id_queue = kt_ctf_class(c, "kutrace_queue",
		"\t\tint64_t rpc;\n\t\tint64_t queue;\n\t\tuint64_t dur;\n\t\tstring name;\n");
	X.id_pc = kt_ctf_class(c, "kutrace_pc_sample",
		"\t\tint32_t tid;\n\t\tuint64_hex_t pc;\n\t\tuint8_t kernel;\n\t\tuint64_t period;\n");
	X.id_freq = kt_ctf_class(c, "kutrace_cpu_freq", "\t\tint64_t mhz;\n\t\tuint64_t dur;\n");
	X.id_ipi = kt_ctf_class(c, "kutrace_ipi", "\t\tint32_t target_cpu;\n\t\tuint64_t dur;\n");
	X.id_point = kt_ctf_class(c, "kutrace_point",
		"\t\tint32_t number;\n\t\tint32_t tid;\n\t\tint64_t arg;\n\t\tint64_t ret;\n"
		"\t\tuint64_t dur;\n\t\tstring name;\n");
	X.id_tname = kt_ctf_class(c, "kutrace_thread_name", "\t\tint32_t tid;\n\t\tstring name;\n");
	X.id_ipc = kt_ctf_class(c, "kutrace_ipc",
		"\t\tint32_t tid;\n\t\tint32_t number;\n\t\tuint8_t ipc;\n");
}

/* KUtrace keeps 16 bits of a return value: sign-extended, -2 is -2. */
static int64_t ret16(int64_t r)
{
	return r >= 32768 && r < 65536 ? r - 65536 : r;
}

/* Idle is LTTng's swapper/N, one per CPU, all tid 0. */
static const char *comm_of(int64_t tid, int64_t cpu)
{
	static char sw[COMM_LEN];

	if (tid == 0 && cpu >= 0) {
		snprintf(sw, sizeof(sw), "swapper/%d", (int)cpu);
		return sw;
	}
	return thr_get(tid)->comm;
}

static void task_fields(int64_t tid, int64_t cpu)
{
	p_comm(comm_of(tid, cpu));
	p_int((uint64_t)tid, 4);
	p_int(20, 4);		/* prio - MAX_RT_PRIO of a nice-0 thread */
	p_int((uint64_t)cpu, 4);
}

/* A thread starts to run on cpu at ts: a switch from whoever ran there. */
static void switch_to(int64_t cpu, int64_t ts, int64_t tid)
{
	int64_t prev = X.cpu_tid[cpu];
	struct qev *e;
	struct thr *t;

	X.cpu_tid[cpu] = tid;
	thr_get(tid);
	if (thr_get(tid)->first_cpu < 0)
		thr_get(tid)->first_cpu = (int32_t)cpu;
	if (prev < 0)
		return;
	p_reset();
	p_comm(comm_of(prev, cpu));
	p_int((uint64_t)prev, 4);
	p_int(20, 4);
	/* Blocked unless the wait row 10 ns later says it was preempted. */
	p_int(prev == 0 ? 0 : 1, 8);
	p_comm(comm_of(tid, cpu));
	p_int((uint64_t)tid, 4);
	p_int(20, 4);
	e = emit(cpu, ts, X.id_switch);
	if (prev > 0) {
		e->tid = (int32_t)prev;
		t = thr_get(prev);
		t->out_seq = e->seq;
		t->out_ts = e->ts;
		t->out_state = e->data + COMM_LEN + 8;
	}
}

static int is_exec(int64_t ev)
{
	return (ev >= KUTRACE_CALL_LO && ev < 0x1000) || ev >= KUTRACE_USER_BASE;
}

static void ctf_row(const struct crow *r)
{
	int64_t ev = r->ev, cpu = r->cpu, s = r->s, e = r->s + (r->d > 0 ? r->d : 0);
	char nm[96];

	X.rows++;
	if (X.first_ts < 0)
		X.first_ts = s < 0 ? 0 : s;
	q_flush(s - CTF_MARGIN);
	if (ev >= KUTRACE_USER_BASE + 1 && ev < KUTRACE_C_EXIT && r->pid > 0)
		thr_name(r->pid, r->name);
	if (ev == KUTRACE_LEFTMARK) {
		thr_name(r->pid, r->name);
		p_reset();
		p_int((uint64_t)r->pid, 4);
		p_str(r->name);
		emit(cpu, s, X.id_tname);
		return;
	}
	if (ev >= KUTRACE_WAIT_BASE && ev <= KUTRACE_WAIT_BASE + 25) {
		struct thr *t = thr_get(r->pid);

		/* The wait that starts as its thread left the CPU says why it left. */
		if (t->out_seq && s - t->out_ts <= 20 && s >= t->out_ts) {
			memset(t->out_state, 0, 8);
			t->out_state[0] = ev == KUTRACE_WAIT_BASE + 'c' - 'a' ? 0 : 1;
		}
		p_reset();
		p_int((uint64_t)r->pid, 4);
		p_int((uint64_t)r->rpc, 8);
		p_int((uint64_t)r->d, 8);
		p_str(r->name);
		emit(-1, s, X.id_wait);
		return;
	}
	if (ev == KUTRACE_ARC_WAKEUP) {
		p_reset();
		task_fields(r->ret, r->arg);
		emit(cpu, s, X.id_wakeup);
		return;
	}
	if (ev == KUTRACE_ARC_IPI) {
		p_reset();
		p_int((uint64_t)r->arg, 4);
		p_int((uint64_t)r->d, 8);
		emit(cpu, s, X.id_ipi);
		return;
	}
	if (ev < 0)
		return;		/* the viewer's drawing items */
	if (ev == KUTRACE_RUNNABLE) {
		p_reset();
		task_fields(r->arg, cpu);
		emit(cpu, s, X.id_waking);
		return;
	}
	if (ev >= KUTRACE_MARKA && ev <= KUTRACE_MARKD) {
		snprintf(nm, sizeof(nm), "mark_%c", (int)('a' + ev - KUTRACE_MARKA));
		p_reset();
		p_str(nm);
		p_int((uint64_t)r->pid, 4);
		p_int((uint64_t)r->arg, 8);
		p_str(r->name);
		emit(cpu, s, X.id_mark);
		return;
	}
	if (ev >= KUTRACE_RPCIDREQ && ev <= KUTRACE_RPCIDTXMSG) {
		static const char *k[] = { "req", "resp", "mid", "rxmsg", "txmsg" };

		p_reset();
		p_str(k[ev - KUTRACE_RPCIDREQ]);
		p_int((uint64_t)r->pid, 4);
		p_int((uint64_t)r->rpc, 8);
		p_int((uint64_t)r->arg, 8);
		p_int((uint64_t)r->d, 8);
		p_str(r->name);
		emit(cpu, s, X.id_rpc);
		return;
	}
	if (ev == KUTRACE_LOCK_HELD || ev == KUTRACE_LOCK_TRY) {
		p_reset();
		p_str(ev == KUTRACE_LOCK_HELD ? "held" : "try");
		p_int((uint64_t)r->pid, 4);
		p_int((uint64_t)r->arg, 8);
		p_int((uint64_t)r->d, 8);
		p_str(r->name);
		emit(cpu, s, X.id_lock);
		return;
	}
	if (ev == KUTRACE_ENQUEUE && cpu < 0) {
		p_reset();
		p_int((uint64_t)r->rpc, 8);
		p_int((uint64_t)r->arg, 8);
		p_int((uint64_t)r->d, 8);
		p_str(r->name);
		emit(cpu, s, X.id_queue);
		return;
	}
	if (ev == KUTRACE_PC_U || ev == KUTRACE_PC_K) {
		uint64_t pc = 0;

		kt_parse_pc(r->name, &pc);
		p_reset();
		p_int((uint64_t)r->pid, 4);
		p_int(pc, 8);
		p_int(ev == KUTRACE_PC_K, 1);
		p_int((uint64_t)r->d, 8);
		emit(cpu, e, X.id_pc);	/* taken at the end of the period it covers */
		return;
	}
	if (ev == KUTRACE_PSTATE) {
		p_reset();
		p_int((uint64_t)r->arg, 8);
		p_int((uint64_t)r->d, 8);
		emit(cpu, s, X.id_freq);
		return;
	}
	if (!is_exec(ev) || cpu < 0) {
		p_reset();
		p_int((uint64_t)ev, 4);
		p_int((uint64_t)r->pid, 4);
		p_int((uint64_t)r->arg, 8);
		p_int((uint64_t)r->ret, 8);
		p_int((uint64_t)r->d, 8);
		p_str(r->name);
		emit(cpu, s, X.id_point);
		return;
	}
	/* Execution on a CPU: user code, idle, c-exit or a kernel routine. */
	stream_of_cpu(cpu);
	int64_t tid = ev == KUTRACE_C_EXIT ? X.cpu_tid[cpu] : r->pid;
	int64_t prev_ev = X.cpu_prev_ev[cpu];

	X.cpu_prev_ev[cpu] = ev;
	if (tid >= 0 && tid != X.cpu_tid[cpu])
		switch_to(cpu, s, tid);
	if (ev == KUTRACE_C_EXIT) {
		p_reset();
		p_int((uint64_t)r->d, 8);
		emit(cpu, s, X.id_cexit);
		return;
	}
	if (r->ipc) {
		p_reset();
		p_int((uint64_t)r->pid, 4);
		p_int((uint64_t)ev, 4);
		p_int((uint64_t)r->ipc, 1);
		emit(cpu, e, X.id_ipc);
	}
	if (ev >= KUTRACE_USER_BASE)
		return;
	int in = -1, out = -1;

	p_reset();
	if (ev == KUTRACE_SCHED_CALL || ev == KUTRACE_SCHED_CALL_OLD) {
		p_int((uint64_t)r->pid, 4);
		emit(cpu, s, X.id_sched_in);
		emit(cpu, e, X.id_sched_out);
		return;
	}
	if (ev >= KUTRACE_SYSCALL64) {
		snprintf(nm, sizeof(nm), "syscall_entry_%.60s", r->name);
		in = kt_ctf_class(X.c, nm, "\t\tint64_t kutrace_arg0;\n");
		snprintf(nm, sizeof(nm), "syscall_exit_%.60s", r->name);
		out = kt_ctf_class(X.c, nm, "\t\tint64_t ret;\n");
		p_int((uint64_t)r->arg, 8);
		emit(cpu, s, in);
		p_reset();
		p_int((uint64_t)ret16(r->ret), 8);
		emit(cpu, e, out);
		return;
	}
	if (ev >= KUTRACE_IRQ) {
		int64_t irq = ev - KUTRACE_IRQ;

		if (irq == KUTRACE_IRQ_BH) {
			p_int((uint64_t)r->arg, 4);
			emit(cpu, s, X.id_soft_in);
			emit(cpu, e, X.id_soft_out);
			return;
		}
		p_int((uint64_t)irq, 4);
		p_str(r->name);
		emit(cpu, s, X.id_irq_in);
		p_reset();
		p_int((uint64_t)irq, 4);
		p_int(1, 4);	/* IRQ_HANDLED */
		emit(cpu, e, X.id_irq_out);
		return;
	}
	if (ev == KUTRACE_TRAP + KUTRACE_TRAP_PAGEFAULT) {
		int user = prev_ev > KUTRACE_IDLE && prev_ev < KUTRACE_C_EXIT;

		p_int((uint64_t)r->arg, 8);
		p_int(0, 8);
		p_int(user ? 4 : 0, 1);	/* X86_PF_USER */
		emit(cpu, s, user ? X.id_pf_user : X.id_pf_kernel);
		p_reset();
	}
	p_int((uint64_t)(ev - KUTRACE_TRAP), 4);
	p_int((uint64_t)r->arg, 8);
	p_str(r->name);
	emit(cpu, s, X.id_trap_in);
	p_reset();
	p_int((uint64_t)(ev - KUTRACE_TRAP), 4);
	emit(cpu, e, X.id_trap_out);
}

/* ---- inputs ---- */

static int64_t sec_ns(double x)
{
	return (int64_t)llround(x * 1e9);
}

/* The JSON's rows (kutrace's, the original's, or made from a trace). */
static void read_json(const char *path, struct kt_jreader *r)
{
	struct kt_jrow w;
	int k;

	while ((k = kt_jr_next(r, &w)) == 1) {
		if (w.start < 0 || w.start > 9e9 || w.dur < -9e9 || w.dur > 9e9)
			cdie("%s:%ld: a row time out of range", path, w.line);
		struct crow c = { sec_ns(w.start), sec_ns(w.dur), w.cpu, w.pid, w.rpc, w.event,
				  w.arg, w.retval, w.ipc, w.name };

		ctf_row(&c);
		if ((X.rows & 0xFFFF) == 0)
			kt_progress("rows", X.rows, r->consumed, r->total);
	}
	if (k < 0)
		cdie("%s", r->err);
}

static int64_t tracebase_epoch(const char *tb)
{
	struct tm tm;

	memset(&tm, 0, sizeof(tm));
	if (!tb || sscanf(tb, "\"%d-%d-%d_%d:%d:%d", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
			  &tm.tm_hour, &tm.tm_min, &tm.tm_sec) != 6)
		return 0;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	return (int64_t)timegm(&tm);
}

/* A header string value (JSON text) as a TSDL string body. */
static void env_str(struct kt_buf *b, const char *key, const char *json_val, const char *dflt)
{
	kt_buf_printf(b, "\t%s = \"", key);
	if (json_val && json_val[0] == '"') {
		for (const char *p = json_val + 1; *p && *p != '"'; p++) {
			if (*p == '\\') {
				p++;
				if (!*p)
					break;
			}
			if ((unsigned char)*p >= 0x20 && *p != '"' && *p != '\\')
				kt_buf_add(b, p, 1);
		}
	} else {
		kt_buf_puts(b, dflt);
	}
	kt_buf_puts(b, "\";\n");
}

static void write_statedump(void)
{
	int st = kt_ctf_stream(X.c, "statedump", STREAM_DUMP, 0);
	int64_t ts = X.first_ts < 0 ? 0 : X.first_ts;

	if (st < 0)
		cdie("%s", kt_ctf_error(X.c));
	for (size_t i = 0; i < X.thrcap; i++) {
		struct thr *t = &X.thr[i];

		if (t->tid <= 0 || t->tid > INT32_MAX)
			continue;
		p_reset();
		p_int((uint64_t)t->tid, 4);
		p_int((uint64_t)t->tid, 4);	/* kutrace knows threads, not processes */
		p_int(0, 4);
		p_comm(t->comm);
		p_int(0, 4);	/* LTTNG_USER_THREAD */
		p_int(0, 4);	/* LTTNG_MODE_UNKNOWN */
		p_int(0, 4);	/* LTTNG_NONE */
		p_int(5, 4);	/* LTTNG_WAIT: the runs that follow say more */
		p_int((uint64_t)(t->first_cpu < 0 ? 0 : t->first_cpu), 4);
		p_int(0, 8);
		if (kt_ctf_event(X.c, st, (uint64_t)ts, X.id_dump, X.pay, X.plen) < 0)
			cdie("%s", kt_ctf_error(X.c));
		X.events++;
	}
}

/* 0 absent, 1 an empty directory, 2 something to keep, -1 errno. */
static int dir_state(const char *dir)
{
	struct stat sb;
	struct dirent *de;
	DIR *d;
	int n = 0;

	if (stat(dir, &sb) < 0)
		return errno == ENOENT ? 0 : -1;
	if (!S_ISDIR(sb.st_mode))
		return 2;
	d = opendir(dir);
	if (!d)
		return -1;
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
			n++;
	closedir(d);
	return n ? 2 : 1;
}

/* A sibling's last line of standard error (saved in path), then exit 2. */
static void __attribute__((noreturn)) sibling_failed(const char *prog, const char *path)
{
	char line[1024] = "", buf[1024];
	FILE *f = fopen(path, "r");

	if (f) {
		while (fgets(buf, sizeof(buf), f))
			if (buf[0] != '\n')
				snprintf(line, sizeof(line), "%s", buf);
		fclose(f);
	}
	line[strcspn(line, "\n")] = 0;
	/* Its own line already names the program and the input. */
	kt_progress_end();
	if (line[0])
		fprintf(stderr, "%s\n", line);
	else
		fprintf(stderr, "%s: %s failed\n", kt_progname(), prog);
	ctf_cleanup();
	ctf_done = 1;
	exit(2);
}

/*
 * Run a sibling program, its standard error into errpath and its
 * descriptor to (1 or 3) on out (-1: to its standard error); mine is this
 * program's end of that pipe, closed in the child so that it sees the
 * pipe close if this program stops reading.
 */
static pid_t run_sibling(char **args, int out, int to, int mine, const char *errpath)
{
	pid_t pid = fork();

	if (pid < 0)
		cdie("fork: %s", strerror(errno));
	if (pid == 0) {
		int fd = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (mine >= 0)
			close(mine);
		if (fd >= 0)
			dup2(fd, 2);
		dup2(out >= 0 ? out : 2, to);
		if (to != 1)
			dup2(2, 1);
		kt_exec_sibling(args[0], args);
	}
	return pid;
}

/* One CSV field of kutrace_sql --csv at *p: quoted ("" a quote) or not. */
static char *csv_field(char **p)
{
	char *s = *p, *o, *start;

	if (*s == '"') {
		start = o = ++s;
		while (*s && !(*s == '"' && s[1] != '"'))
			*o++ = *s == '"' ? (s += 2, '"') : *s++;
		if (*s == '"')
			s++;
	} else {
		start = o = s;
		while (*s && *s != ',' && *s != '\n')
			s++;
		o = s;
	}
	if (*s == ',')
		s++;
	*o = 0;
	*p = s;
	return start;
}

/* A table store's rows: its span table (every JSON row, in the JSON's order). */
static void read_store(const char *store)
{
	char errp[4096], *line = NULL;
	char *args[] = { "kutrace_sql", (char *)store, "--csv", "-c",
			 "select ts, dur, cpu, pid, rpc, event, arg, ret, ipc, name from span", NULL };
	size_t cap = 0;
	int fds[2], st;
	long n = 0;
	FILE *f;

	snprintf(errp, sizeof(errp), "%s/sql.err", ctf_tmp);
	if (pipe(fds) < 0)
		cdie("pipe: %s", strerror(errno));
	pid_t pid = run_sibling(args, fds[1], 1, fds[0], errp);

	close(fds[1]);
	f = fdopen(fds[0], "r");
	if (!f)
		cdie("pipe: %s", strerror(errno));
	while (getline(&line, &cap, f) > 0) {
		char *p = line, *end;
		int64_t v[9];

		if (n++ == 0)
			continue;	/* the header line */
		for (int i = 0; i < 9; i++) {
			char *x = csv_field(&p);

			v[i] = strtoll(x, &end, 10);
			if (end == x || *end)
				cdie("%s: span row %ld: column %d is not a number", store, n, i + 1);
		}
		struct crow c = { v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8],
				  csv_field(&p) };

		c.name = kt_intern(c.name);
		ctf_row(&c);
		if ((X.rows & 0xFFFF) == 0)
			kt_progress("rows", X.rows, 0, 0);
	}
	free(line);
	fclose(f);
	if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
		sibling_failed("kutrace_sql", errp);
	unlink(errp);
}

/* The header facts the metadata needs, as JSON text ("\"...\"") or NULL. */
struct hdr {
	const char *tracebase, *host, *kernel, *title, *model;
};

static const char *meta_str(json_t *m, const char *key)
{
	json_t *v = json_object_get(m, key);

	return json_is_string(v) ? json_dumps(v, JSON_ENCODE_ANY) : NULL;
}

static void store_header(const char *store, struct hdr *h)
{
	char *path;
	json_error_t e;
	json_t *m;

	if (asprintf(&path, "%s/meta.json", store) < 0)
		cdie("out of memory");
	m = json_load_file(path, 0, &e);
	if (!m || !json_is_object(m))
		cdie("%s: not a table store (%s)", store, m ? "meta.json is no object" : e.text);
	h->tracebase = meta_str(m, "tracebase");
	h->host = meta_str(m, "machine");
	h->kernel = meta_str(m, "kernel");
	h->title = meta_str(m, "trace_id");
	h->model = meta_str(m, "cpu_model");
	json_decref(m);
	free(path);
}

/*
 * A raw trace's rows from kutrace_postproc's binary row stream (no JSON
 * text to write and read back), its header then read from a file of its
 * own by r.  0, or 1 when a row came out of time order (a row placed
 * late, sent after the rest): then the export starts again from the JSON.
 */
static int read_trace_rows(const char *trace, struct kt_jreader *r, char **hpath)
{
	char errp[4096];
	char *args[] = { "kutrace_postproc", (char *)trace, "--no-json", "--rows-fd", "3",
			 "--quiet", NULL };
	struct kt_rowpipe_r p;
	struct kt_row row;
	int fds[2], st, rc, late = 0;
	int64_t max = INT64_MIN;
	FILE *f;

	snprintf(errp, sizeof(errp), "%s/postproc.err", ctf_tmp);
	if (pipe(fds) < 0)
		cdie("pipe: %s", strerror(errno));
	pid_t pid = run_sibling(args, fds[1], 3, fds[0], errp);

	close(fds[1]);
	f = fdopen(fds[0], "r");
	if (!f)
		cdie("pipe: %s", strerror(errno));
	setvbuf(f, NULL, _IOFBF, 1 << 20);
	kt_rowpipe_r_init(&p, f);
	while ((rc = kt_rowpipe_next(&p, &row)) == 1) {
		struct crow c = { row.start * 10, row.dur * 10, row.cpu, row.pid, row.rpc,
				  row.event, row.arg, row.retval, row.ipc, row.name };

		if (c.s < max) {
			late = 1;
			break;
		}
		max = c.s;
		ctf_row(&c);
		if ((X.rows & 0xFFFF) == 0)
			kt_progress("rows", X.rows, 0, 0);
	}
	fclose(f);
	if (waitpid(pid, &st, 0) < 0)
		cdie("kutrace_postproc: %s", strerror(errno));
	if (!late && (!WIFEXITED(st) || WEXITSTATUS(st) != 0))
		sibling_failed("kutrace_postproc", errp);
	unlink(errp);
	if (!late && rc < 0)
		cdie("%s: %s", trace, p.err);
	if (!late) {
		/* The header text and "]}" are a JSON of no rows. */
		FILE *h;

		if (asprintf(hpath, "%s/header.json", ctf_tmp) < 0)
			cdie("out of memory");
		h = fopen(*hpath, "w");
		if (!h || fprintf(h, "%s]}\n", p.header ? p.header : "{\"events\" : [") < 0 ||
		    fclose(h) != 0)
			cdie("%s: %s", *hpath, strerror(errno));
		if (kt_jr_open(r, *hpath) < 0)
			cdie("%s", r->err);
	}
	kt_rowpipe_r_free(&p);
	return late;
}

/* Start again: nothing written, nothing queued. */
static void ctf_reset(void)
{
	for (size_t i = 0; i < X.nq; i++)
		free(X.q[i].data);
	free(X.q);
	free(X.cpu_stream);
	free(X.cpu_tid);
	free(X.cpu_prev_ev);
	free(X.last_ts);
	free(X.thr);
	kt_ctf_free(X.c);
	nftw(ctf_tmp, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	if (mkdir(ctf_tmp, 0700) < 0)
		cdie("%s: %s", ctf_tmp, strerror(errno));
	memset(&X, 0, sizeof(X));
	X.nocpu = -1;
	X.first_ts = -1;
	X.c = kt_ctf_new(ctf_tmp);
	ctf_classes(X.c);
}

/* A raw trace: kutrace_postproc writes its JSON into the new directory. */
static void trace_to_json(const char *trace, const char *json)
{
	char errp[4096];
	char *args[] = { "kutrace_postproc", (char *)trace, "-o", (char *)json,
			 "--no-html", "--quiet", NULL };
	int st;

	snprintf(errp, sizeof(errp), "%s/postproc.err", ctf_tmp);
	pid_t pid = run_sibling(args, -1, 1, -1, errp);

	if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
		sibling_failed("kutrace_postproc", errp);
	unlink(errp);
}

static int ctf_main(const char *dir, const char *in)
{
	struct kt_jreader r;
	struct stat sb;
	struct hdr H = { 0 };
	char *json = NULL, *parent, *slash;
	unsigned char uuid[16];
	struct kt_buf env = { 0 };
	int ds = dir_state(dir), store = 0;

	if (!in)
		cdie("--ctf DIR needs an input: X.trace, X.json or a table store");
	if (ds < 0)
		cdie("%s: %s", dir, strerror(errno));
	if (ds == 2)
		cdie("%s: exists and is not an empty directory; not replaced", dir);
	parent = kt_xstrdup(dir);
	while ((slash = strrchr(parent, '/')) && slash[1] == 0 && slash != parent)
		*slash = 0;
	if (asprintf(&ctf_tmp, "%s.partXXXXXX", parent) < 0 || !mkdtemp(ctf_tmp))
		cdie("%s: %s", dir, strerror(errno));
	atexit(ctf_cleanup);
	signal(SIGINT, ctf_on_signal);
	signal(SIGTERM, ctf_on_signal);
	signal(SIGHUP, ctf_on_signal);
	memset(&X, 0, sizeof(X));
	X.nocpu = -1;
	X.first_ts = -1;
	X.c = kt_ctf_new(ctf_tmp);
	ctf_classes(X.c);
	if (stat(in, &sb) == 0 && S_ISDIR(sb.st_mode)) {
		store = 1;
		store_header(in, &H);
		read_store(in);
	} else if (strcmp(in, "-") == 0) {
		if (kt_jr_open(&r, in) < 0)	/* a JSON on standard input */
			cdie("%s", r.err);
		read_json(in, &r);
	} else {
		FILE *f = fopen(in, "rb");

		if (!f)
			cdie("%s: %s", in, strerror(errno));
		fclose(f);
		int js = kt_input_kind(in) == KT_IN_JSON;

		if (js || read_trace_rows(in, &r, &json) == 1) {
			if (!js) {
				ctf_reset();
				if (asprintf(&json, "%s/input.json", ctf_tmp) < 0)
					cdie("out of memory");
				trace_to_json(in, json);
			}
			if (kt_jr_open(&r, json ? json : in) < 0)
				cdie("%s", r.err);
			read_json(json ? json : in, &r);
		}
	}
	if (!store) {
		H.tracebase = kt_jr_header_value(&r, "tracebase");
		H.host = kt_jr_header_value(&r, "hostName");
		H.kernel = kt_jr_header_value(&r, "kernelVersion");
		H.title = kt_jr_header_value(&r, "title");
		H.model = kt_jr_header_value(&r, "cpuModelName");
	}
	/* The trace's identity from its header: one trace, one uuid, whichever input. */
	uint32_t h = 2166136261u;
	const char *keys[] = { H.tracebase, H.host, H.kernel, H.model };

	for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
		for (const char *p = keys[k] ? keys[k] : ""; *p; p++)
			h = (h ^ (unsigned char)*p) * 16777619u;
		h = (h ^ 0xFF) * 16777619u;
	}
	for (int i = 0; i < 16; i++) {
		h = (h ^ (uint32_t)i) * 16777619u;
		uuid[i] = (unsigned char)(h >> 8);
	}
	uuid[6] = (uuid[6] & 0x0F) | 0x40;
	uuid[8] = (uuid[8] & 0x3F) | 0x80;
	q_flush(INT64_MAX);
	write_statedump();
	kt_buf_puts(&env, "\tdomain = \"kernel\";\n\ttracer_name = \"lttng-modules\";\n"
		    "\ttracer_major = 2;\n\ttracer_minor = 13;\n\ttracer_patchlevel = 9;\n"
		    "\tsysname = \"Linux\";\n");
	env_str(&env, "hostname", H.host, "unknown");
	env_str(&env, "kernel_release", H.kernel, "");
	env_str(&env, "kernel_version", H.kernel, "");
	env_str(&env, "trace_name", H.title, "kutrace");
	env_str(&env, "kutrace_tracebase", H.tracebase, "");
	env_str(&env, "kutrace_cpu_model", H.model, "");
	kt_buf_puts(&env, "\tproducer = \"kutrace_export\";\n");
	if (kt_ctf_finish(X.c, uuid, env.p, "monotonic",
			  "kutrace: ns after the trace's tracebase minute (UTC)",
			  tracebase_epoch(H.tracebase)) < 0)
		cdie("%s", kt_ctf_error(X.c));
	if (!store) {
		kt_jr_close(&r);
	} else {
		free((char *)H.tracebase);
		free((char *)H.host);
		free((char *)H.kernel);
		free((char *)H.title);
		free((char *)H.model);
	}
	if (json && unlink(json) < 0)
		cdie("%s: %s", json, strerror(errno));
	if (ds == 1 && rmdir(dir) < 0)
		cdie("%s: %s", dir, strerror(errno));
	if (chmod(ctf_tmp, 0755) < 0 || rename(ctf_tmp, dir) < 0)
		cdie("%s: %s", dir, strerror(errno));
	ctf_done = 1;
	kt_progress_end();
	if (X.moved)
		fprintf(stderr, "%s: %" PRIu64 " events of rows out of time order moved "
			"forward to keep each stream in order\n", kt_progname(), X.moved);
	if (getenv("KT_CTF_STATS"))
		fprintf(stderr, "%s: rows %" PRIu64 " events %" PRIu64 " bytes %" PRIu64 "\n",
			kt_progname(), X.rows, X.events, kt_ctf_bytes(X.c));
	kt_ctf_free(X.c);
	kt_buf_free(&env);
	free(json);
	free(parent);
	return 0;
}

int main(int argc, char **argv)
{
	const char *in = "-", *ctf = NULL, *pos[1] = { NULL };
	int perfetto = 0, quiet = 0, progress = 0;
	const struct kt_opt opts[] = {
		{ "perfetto", KT_OPT_FLAG, &perfetto, 1 },
		{ "ctf", KT_OPT_STR, &ctf, 0 },
		{ "quiet", KT_OPT_FLAG, &quiet, 1 },
		{ "progress", KT_OPT_FLAG, &progress, 1 },
		{ NULL, 0, NULL, 0 },
	};
	const struct kt_argspec spec = { opts, usage, 0, 1, 1 };

	kt_set_progname(argv[0]);
	if (kt_args(&spec, argc, argv, pos) == 1)
		in = pos[0];
	if (quiet && progress)
		kt_die("--quiet and --progress: one or the other");
	kt_progress_mode(quiet ? KT_PROGRESS_OFF : progress ? KT_PROGRESS_ON : KT_PROGRESS_AUTO);
	if (perfetto && ctf)
		kt_die("--perfetto and --ctf: one format at a time");
	if (ctf)
		return ctf_main(ctf, pos[0]);
	if (!perfetto)
		kt_die("an output format is needed: --perfetto or --ctf DIR (try --help)");

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

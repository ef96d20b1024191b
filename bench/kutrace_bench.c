// SPDX-License-Identifier: BSD-3-Clause
/*
 * kutrace_bench - host-side figures for docs/PERFORMANCE.md (make bench).
 *
 *   kutrace_bench fastpath [-n ENTRIES] [-r RUNS] [-t THREADS]
 *   kutrace_bench extract [-m MB] [-r RUNS] [-d DIR]
 *   kutrace_bench check -o FILE [-n N] [-t THREADS] [--ipc]
 *   kutrace_bench user [-n ENTRIES] [-r RUNS] [-d DIR]
 *   kutrace_bench density FILE.trace...
 *
 * fastpath: the module's own entry-writing code (module/kutrace_core.c,
 * compiled here with module/user/kutrace_env_user.h: per-CPU data is per
 * thread, the time counter is rdtsc >> 6 as in the kernel) in a tight
 * loop.  Prints ns per entry for a plain entry, a fused call+return pair,
 * a 3-word name entry, the same with the IPC byte, and the cost of a call
 * while tracing is off; medians of RUNS runs of ENTRIES entries, on 1 and
 * on THREADS threads at once.
 *
 * extract: fills an MB MiB buffer through the core, then times
 * kt_ctl_dump() (libkutrace/dump.c, the code kutrace_control runs) taking
 * it through the mmap path to a trace file in DIR.  Prints MB/s.
 *
 * check: writes exactly N plain entries, N fused pairs and N name entries
 * per thread after the usual kt_ctl_init() names, and dumps them to FILE
 * through the same path; tests decode FILE with the real decoder.
 *
 * user: ns per kutrace_mark_d on the user fast path (user buffers in a
 * directory under DIR), and per getpid system call beside it.
 *
 * Output lines are "key=value" pairs meant for bench/run.sh.
 */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

#include "kutrace_core.h"
#include "kutrace/control.h"
#include "channel.h"
#include "tool.h"
#include "fakedev.h"

/* ------------------------------------------------------------ util */

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/*
 * CPU time of the calling thread.  The fast-path loops are timed with it:
 * on a shared 2-core machine a thread that is preempted for another
 * process would otherwise charge that process's time to the trace code.
 */
static double thread_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Sorts v; median, and the 25th/75th percentiles for the spread. */
static double median(double *v, int n, double *p25, double *p75)
{
	qsort(v, n, sizeof(*v), cmp_double);
	if (p25)
		*p25 = v[n / 4];
	if (p75)
		*p75 = v[(3 * n) / 4 < n ? (3 * n) / 4 : n - 1];
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* -------------------------------------------------------- fastpath */

enum kind { K_OFF, K_CLOCK, K_PLAIN, K_FUSED, K_NAME, K_PLAIN_IPC, K_FUSED_IPC,
	    K_NKINDS };
static const char *const kind_name[K_NKINDS] = {
	"off", "clock", "plain", "fused", "name", "plain_ipc", "fused_ipc"
};
static const char *const kind_what[K_NKINDS] = {
	"kt_trace_1 with tracing off",
	"time counter read alone (rdtsc >> 6)",
	"plain 1-word entry (syscall call)",
	"fused call+return pair (1 entry, 2 transitions)",
	"3-word PIDNAME entry",
	"plain entry + IPC byte",
	"fused pair + IPC byte",
};

/* getpid: the syscall time_getpid makes. */
#define EV_CALL	(KUTRACE_SYSCALL64 + 39)
#define EV_RET	(KUTRACE_SYSRET64 + 39)

static volatile u64 bench_sink;

static void run_kind(enum kind k, long n, unsigned int thread)
{
	u64 sum = 0;

	switch (k) {
	case K_CLOCK:
		for (long i = 0; i < n; i++)
			sum += kt_env_now();
		bench_sink = sum;
		break;
	case K_OFF:
	case K_PLAIN:
	case K_PLAIN_IPC:
		for (long i = 0; i < n; i++)
			kt_trace_1(EV_CALL, (u64)i & 0xFFFF);
		break;
	case K_FUSED:
	case K_FUSED_IPC:
		for (long i = 0; i < n; i++) {
			kt_trace_1(EV_CALL, 0);
			kt_trace_1(EV_RET, 0);
		}
		break;
	case K_NAME:
		/*
		 * Threads name pids 4096 apart: their bits of the shared
		 * pid filter are then on different cache lines, as for
		 * CPUs naming unrelated tasks.
		 */
		for (long i = 0; i < n; i++)
			kt_pidname(1000 + thread * 4096 + (i & 63),
				   "bench_worker", true);
		break;
	default:
		break;
	}
}

struct worker {
	pthread_t th;
	unsigned int idx;
	pthread_barrier_t *start, *done;
	enum kind kind;
	long n;
	int runs;
	double *ns;		/* per run: ns per entry of this thread */
};

static void *worker_main(void *arg)
{
	struct worker *w = arg;

	kt_user_set_cpu((int)w->idx);
	for (int r = 0; r < w->runs; r++) {
		double t;

		pthread_barrier_wait(w->start);
		t = thread_ns();
		run_kind(w->kind, w->n, w->idx);
		w->ns[r] = (thread_ns() - t) / (double)w->n;
		pthread_barrier_wait(w->done);
	}
	return NULL;
}

static void reset_for(enum kind k)
{
	unsigned int flags = KUTRACE_RESET_WRAP;

	if (k == K_PLAIN_IPC || k == K_FUSED_IPC)
		flags |= KUTRACE_RESET_IPC;
	kt_core_reset(flags);
	for (unsigned int c = 0; c < KT_ENV_NR_CPUS; c++)
		kt_cpu_set_ipc(c, flags & KUTRACE_RESET_IPC);
	WRITE_ONCE(kt_tracing, k != K_OFF && k != K_CLOCK);
}

/*
 * One measurement: nthreads workers each write n entries per run, runs
 * times; the wrapping buffer never fills, so every run takes the same
 * path, block changes (1 per 8188 words) included.
 */
static void bench_kind(enum kind k, long n, int runs, unsigned int nthreads)
{
	pthread_barrier_t start, done;
	struct worker w[KT_ENV_NR_CPUS];
	double *all = calloc((size_t)runs * nthreads, sizeof(double));
	double med, p25, p75;

	if (!all) {
		perror("calloc");
		exit(1);
	}
	reset_for(k);
	/* Warm-up: first blocks, caches, branch predictors. */
	kt_user_set_cpu(0);
	run_kind(k, n / 10 + 1, 0);
	pthread_barrier_init(&start, NULL, nthreads);
	pthread_barrier_init(&done, NULL, nthreads);
	for (unsigned int i = 0; i < nthreads; i++) {
		w[i] = (struct worker){ .idx = i, .start = &start, .done = &done,
			.kind = k, .n = n, .runs = runs,
			.ns = all + (size_t)i * runs };
		if (pthread_create(&w[i].th, NULL, worker_main, &w[i])) {
			perror("pthread_create");
			exit(1);
		}
	}
	for (unsigned int i = 0; i < nthreads; i++)
		pthread_join(w[i].th, NULL);
	WRITE_ONCE(kt_tracing, false);
	med = median(all, runs * (int)nthreads, &p25, &p75);
	printf("fastpath kind=%s threads=%u ns=%.2f p25=%.2f p75=%.2f "
	       "min=%.2f max=%.2f runs=%d entries=%ld what=\"%s\"\n",
	       kind_name[k], nthreads, med, p25, p75, all[0],
	       all[runs * nthreads - 1], runs, n, kind_what[k]);
	fflush(stdout);
	pthread_barrier_destroy(&start);
	pthread_barrier_destroy(&done);
	free(all);
}

static int cmd_fastpath(long n, int runs, unsigned int threads)
{
	/* 64 MiB: far more than the caches, as in a real trace buffer. */
	if (kt_fake_init(64)) {
		fprintf(stderr, "kutrace_bench: no memory for the buffer\n");
		return 1;
	}
	for (unsigned int t = 1; t <= threads; t++)
		for (int k = 0; k < K_NKINDS; k++)
			bench_kind((enum kind)k, n, runs, t);
	kt_fake_free();
	return 0;
}

/* ------------------------------------------------------------ user */

/*
 * The user fast path (libkutrace/uev.c): kutrace_mark_d into this
 * thread's user buffer, as a program linked with libkutrace makes it when
 * kutrace_control offers buffers, against the cheapest system call
 * (getpid; a mark through the module costs at least that).  The buffer
 * wraps, so every run takes the same path.
 */
static void user_kind(const char *kind, long n, int runs, const char *what)
{
	double *ns = calloc((size_t)runs, sizeof(double)), med, p25, p75;

	if (!ns) {
		perror("calloc");
		exit(1);
	}
	for (int r = 0; r < runs; r++) {
		double t = thread_ns();

		if (!strcmp(kind, "mark_d"))
			for (long i = 0; i < n; i++)
				kutrace_mark_d((uint64_t)i);
		else
			for (long i = 0; i < n; i++)
				bench_sink += (u64)syscall(SYS_getpid);
		ns[r] = (thread_ns() - t) / (double)n;
	}
	med = median(ns, runs, &p25, &p75);
	printf("user kind=%s ns=%.2f p25=%.2f p75=%.2f runs=%d entries=%ld what=\"%s\"\n",
	       kind, med, p25, p75, runs, n, what);
	fflush(stdout);
	free(ns);
}

static int cmd_user(long n, int runs, const char *dir)
{
	char d[4096];

	snprintf(d, sizeof(d), "%s/kutrace_benchXXXXXX", dir);
	if (!mkdtemp(d)) {
		perror(d);
		return 1;
	}
	setenv("KUTRACE_USER_DIR", d, 1);
	int e = kt_ubuf_start(1ULL << 22, 1);

	if (e) {
		fprintf(stderr, "kutrace_bench: user buffers: %s\n", strerror(-e));
		kt_ubuf_remove();
		return 1;
	}
	kutrace_mark_d(0);	/* the thread's buffer: its system calls, once */
	user_kind("mark_d", n, runs, "kutrace_mark_d into the thread's user buffer");
	user_kind("getpid", n / 10 + 1, runs, "the cheapest system call (getpid)");
	kt_ubuf_remove();
	return 0;
}

/* --------------------------------------------------------- extract */

static int dump_to(const char *path, double *secs, struct kt_dump_info *info)
{
	double t = now_ns();
	int e = kt_ctl_dump(path, info);

	*secs = (now_ns() - t) / 1e9;
	if (e) {
		fprintf(stderr, "kutrace_bench: dump to %s: %s\n", path,
			kt_ctl_strerror(e));
		return 1;
	}
	return 0;
}

static int cmd_extract(size_t mb, int runs, const char *dir)
{
	char path[4096];
	double *mbs = calloc((size_t)runs, sizeof(double));
	double secs, med, p25, p75;
	struct kt_dump_info info;
	uint64_t filled = 0;

	if (!mbs || kt_fake_init(mb)) {
		fprintf(stderr, "kutrace_bench: no memory for %zu MB\n", mb);
		return 1;
	}
	/* Fill every block with entries, as a full trace would be. */
	if (kt_ctl_reset(0, NULL) || kt_ctl_init("kutrace_bench") ||
	    kt_ctl_on()) {
		fprintf(stderr, "kutrace_bench: fake device refused\n");
		return 1;
	}
	while (READ_ONCE(kt_tracing)) {
		kt_trace_1(EV_CALL, filled & 0xFFFF);
		kt_trace_1(EV_RET, 0);
		filled++;
	}
	snprintf(path, sizeof(path), "%s/kutrace_bench_%d.trace", dir,
		 (int)getpid());
	for (int r = 0; r < runs; r++) {
		if (dump_to(path, &secs, &info))
			return 1;
		mbs[r] = (double)info.bytes / 1048576.0 / secs;
		unlink(path);
	}
	med = median(mbs, runs, &p25, &p75);
	printf("extract mb=%zu file_mb=%.1f blocks=%llu dir=%s mb_s=%.0f "
	       "p25=%.0f p75=%.0f min=%.0f max=%.0f runs=%d "
	       "secs_at_median=%.3f\n", mb, info.bytes / 1048576.0,
	       (unsigned long long)info.blocks, dir, med, p25, p75, mbs[0],
	       mbs[runs - 1], runs, info.bytes / 1048576.0 / med);
	free(mbs);
	kt_fake_free();
	return 0;
}

/* ----------------------------------------------------------- check */

struct checker {
	pthread_t th;
	unsigned int idx;
	long n;
};

static void *check_main(void *arg)
{
	struct checker *c = arg;

	kt_user_set_cpu((int)c->idx);
	/* Plain entries: read() calls, never followed by their return. */
	for (long i = 0; i < c->n; i++)
		kt_trace_1(KUTRACE_SYSCALL64 + 0, (u64)i & 0xFFFF);
	for (long i = 0; i < c->n; i++) {
		kt_trace_1(EV_CALL, 0);
		kt_trace_1(EV_RET, (u64)(i % 100));
	}
	for (long i = 0; i < c->n; i++)
		kt_pidname(2000 + c->idx * 1000 + (unsigned int)i,
			   "bench_name", true);
	return NULL;
}

static int cmd_check(const char *out, long n, unsigned int threads, bool ipc)
{
	struct checker c[KT_ENV_NR_CPUS];
	struct kt_dump_info info;
	unsigned int kept = 0;
	int e;

	if (kt_fake_init(8))
		return 1;
	e = kt_ctl_reset(ipc ? KUTRACE_RESET_IPC : 0, &kept);
	if (!e)
		e = kt_ctl_init("kutrace_bench");
	if (!e)
		e = kt_ctl_on();
	if (e) {
		fprintf(stderr, "kutrace_bench: %s\n", kt_ctl_strerror(e));
		return 1;
	}
	/* One thread at a time: each thread is its own "CPU" anyway. */
	for (unsigned int i = 0; i < threads; i++) {
		c[i] = (struct checker){ .idx = i, .n = n };
		pthread_create(&c[i].th, NULL, check_main, &c[i]);
	}
	for (unsigned int i = 0; i < threads; i++)
		pthread_join(c[i].th, NULL);
	if (kt_st.full) {
		fprintf(stderr, "kutrace_bench: check: buffer full, lower -n\n");
		return 1;
	}
	e = kt_ctl_dump(out, &info);
	if (e) {
		fprintf(stderr, "kutrace_bench: dump: %s\n", kt_ctl_strerror(e));
		return 1;
	}
	printf("check file=%s threads=%u plain=%ld fused=%ld names=%ld "
	       "ipc=%d blocks=%llu bytes=%llu\n", out, threads, n * threads,
	       n * threads, n * threads, info.ipc,
	       (unsigned long long)info.blocks,
	       (unsigned long long)info.bytes);
	kt_fake_free();
	return 0;
}

/* --------------------------------------------------------- density */

/*
 * Bytes per transition of a real trace.  A transition is a kernel entry
 * or exit: a call or return entry counts 1, a fused call+return 2.  Every
 * other entry (names, context switches, wakeups, PC samples, TSDELTA) and
 * the block headers count in the bytes but not as transitions, so the
 * figure is what a trace really costs per transition.
 *
 * late: returns that follow their own call directly (nothing between
 * them on that CPU) with a return value the module fuses (-128..127) but
 * more than 255 ticks after it, so the module wrote them unfused; under
 * TCG that is emulation slowness.  bytes_if_fused: the bytes per
 * transition had those pairs fused (one word less each), i.e. with the
 * durations of a CPU fast enough to finish each such call within 255
 * ticks -- the same rule the module applies, on the same trace.
 */
static int cmd_density(int argc, char **argv)
{
	for (int i = 0; i < argc; i++) {
		struct kt_raw r;
		struct kt_block *b = malloc(sizeof(*b));
		uint64_t used = 0, file = 0, trans = 0, fused = 0, other = 0;
		uint64_t calls = 0, rets = 0, blocks = 0, late = 0;
		int e;

		if (!b || kt_raw_open(&r, argv[i])) {
			fprintf(stderr, "kutrace_bench: %s: %s\n", argv[i],
				b ? r.err : "no memory");
			return 1;
		}
		while ((e = kt_raw_next(&r, b)) > 0) {
			int last = b->first_entry;
			u64 prev = 0;

			blocks++;
			file += KUTRACE_BLOCK_BYTES +
				(b->has_side ? KUTRACE_SIDE_BYTES : 0);
			for (int k = b->first_entry; k < KUTRACE_BLOCK_WORDS;) {
				u64 w = b->w[k];
				unsigned int ev = kutrace_word_event(w);
				unsigned int n = kutrace_entry_words(ev);

				if (w == 0 || w == ~0ULL) {
					k++;
					continue;
				}
				last = k + (int)n;
				if (kutrace_is_call(ev) &&
				    ((w >> KUTRACE_DELTA_SHIFT) & 0xFF)) {
					fused++;
					trans += 2;
				} else if (kutrace_is_call(ev)) {
					calls++;
					trans++;
				} else if (ev >= KUTRACE_CALL_LO) {
					rets++;
					trans++;
					if (kutrace_is_return(ev) && prev &&
					    kutrace_word_event(prev) ==
					    (ev & ~KUTRACE_RET_BIT) &&
					    (int16_t)(w & KUTRACE_ARG0_MASK) >= -128 &&
					    (int16_t)(w & KUTRACE_ARG0_MASK) < 128 &&
					    ((kutrace_word_ts(w) - kutrace_word_ts(prev)) &
					     KUTRACE_TS_MASK) > KUTRACE_FUSE_MAX_DELTA)
						late++;
				} else {
					other++;
				}
				prev = kutrace_is_call(ev) &&
				       !((w >> KUTRACE_DELTA_SHIFT) & 0xFF) ? w : 0;
				k += n ? (int)n : 1;
			}
			/* Header and entries up to the last one: the bytes used. */
			used += (uint64_t)last * 8;
		}
		if (e < 0) {
			fprintf(stderr, "kutrace_bench: %s: %s\n", argv[i], r.err);
			return 1;
		}
		printf("density file=%s blocks=%llu file_bytes=%llu "
		       "used_bytes=%llu transitions=%llu fused=%llu calls=%llu "
		       "returns=%llu other=%llu late=%llu "
		       "bytes_per_transition=%.2f "
		       "file_bytes_per_transition=%.2f bytes_if_fused=%.2f\n",
		       argv[i],
		       (unsigned long long)blocks, (unsigned long long)file,
		       (unsigned long long)used, (unsigned long long)trans,
		       (unsigned long long)fused, (unsigned long long)calls,
		       (unsigned long long)rets, (unsigned long long)other,
		       (unsigned long long)late,
		       trans ? (double)used / trans : 0,
		       trans ? (double)file / trans : 0,
		       trans ? (double)(used - 8 * late) / trans : 0);
		kt_raw_close(&r);
		free(b);
	}
	return 0;
}

/* ------------------------------------------------------------ main */

static const char usage[] =
"usage: kutrace_bench fastpath [-n ENTRIES] [-r RUNS] [-t THREADS]\n"
"       kutrace_bench extract [-m MB] [-r RUNS] [-d DIR]\n"
"       kutrace_bench check -o FILE [-n N] [-t THREADS] [--ipc]\n"
"       kutrace_bench user [-n ENTRIES] [-r RUNS] [-d DIR]\n"
"       kutrace_bench density FILE.trace...\n"
"\n"
"fastpath  ns per entry of module/kutrace_core.c built for userspace, in a\n"
"          tight loop on 1..THREADS threads (default 2M entries, 21 runs,\n"
"          2 threads): plain, fused call+return, name, with IPC byte, off\n"
"extract   MB/s of kt_ctl_dump (the kutrace_control code) taking an MB MiB\n"
"          buffer (default 256) through the mmap path to a file in DIR\n"
"          (default /dev/shm, else /tmp); medians of RUNS (default 3)\n"
"user      ns per kutrace_mark_d on the user fast path (libkutrace/uev.c,\n"
"          buffers in DIR) and per getpid beside it; medians of RUNS\n"
"check     exactly N (default 1000) plain entries, fused pairs and name\n"
"          entries per thread, dumped to FILE, for the tests\n"
"density   bytes per transition of real traces (a fused call+return is 2\n"
"          transitions; headers and other entries count as bytes only),\n"
"          returns not fused only for lasting > 255 ticks (late) and the\n"
"          bytes per transition had they fused\n"
"Output: one line of key=value pairs per figure.\n";

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "ipc", no_argument, NULL, 'I' },
		{ NULL, 0, NULL, 0 },
	};
	const char *cmd, *out = NULL;
	const char *dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
	long n = -1;
	int runs = -1, o;
	unsigned int threads = 2;
	size_t mb = 256;
	bool ipc = false;

	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		fputs(usage, argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	cmd = argv[1];
	if (!strcmp(cmd, "density"))
		return argc > 2 ? cmd_density(argc - 2, argv + 2) : 2;
	optind = 2;
	while ((o = getopt_long(argc, argv, "n:r:t:m:d:o:h", opts, NULL)) != -1) {
		switch (o) {
		case 'n': n = atol(optarg); break;
		case 'r': runs = atoi(optarg); break;
		case 't': threads = (unsigned int)atoi(optarg); break;
		case 'm': mb = (size_t)atol(optarg); break;
		case 'd': dir = optarg; break;
		case 'o': out = optarg; break;
		case 'I': ipc = true; break;
		case 'h': fputs(usage, stdout); return 0;
		default: fputs(usage, stderr); return 2;
		}
	}
	if (threads < 1 || threads > 64 || mb < 1 || mb > 4096) {
		fputs(usage, stderr);
		return 2;
	}
	kt_user_set_task((u32)getpid(), "kutrace_bench");
	if (!strcmp(cmd, "fastpath"))
		return cmd_fastpath(n > 0 ? n : 2000000, runs > 0 ? runs : 21,
				    threads);
	if (!strcmp(cmd, "user"))
		return cmd_user(n > 0 ? n : 2000000, runs > 0 ? runs : 21, dir);
	if (!strcmp(cmd, "extract"))
		return cmd_extract(mb, runs > 0 ? runs : 3, dir);
	if (!strcmp(cmd, "check") && out)
		return cmd_check(out, n > 0 ? n : 1000, threads, ipc);
	fputs(usage, stderr);
	return 2;
}

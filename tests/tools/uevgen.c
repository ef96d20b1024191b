// SPDX-License-Identifier: BSD-3-Clause
/*
 * uevgen - a trace with user buffers made on this machine, without the
 * module (tests/t_uev.sh): libkutrace's own fast path writes them
 * (kutrace_mark_d, kutrace_addname, kutrace_addevent), its controller
 * side offers and collects them (kt_ubuf_*, in a private directory),
 * and a kernel trace written with rawwrite.h gives every CPU a block
 * from before the first mark to after the last.
 *
 *   uevgen -o OUT.trace [-p PROCS] [-t THREADS] [-n MARKS] [-r RING_WORDS]
 *          [--wrap] [--kill] [--names] [--signals] [--rate R] [--late]
 *          [--twin TWIN.trace] [--bench N]
 *
 * Each thread marks kutrace_mark_d(k << 20 | i) for i = 0..MARKS-1
 * (k: its number), and prints "thread TID K MARKS" on stdout.
 *   --kill     process 0 marks until its parent kills it with SIGKILL,
 *              and prints "killed TID K DONE" (DONE marks had returned)
 *   --names    each thread names method K + 1 first (kutrace_addname)
 *              and brackets its marks with an RPC request and response
 *   --signals  a 20 kHz SIGALRM whose handler marks mark_c("sig") in
 *              whichever thread it interrupts; each process prints
 *              "signals PID COUNT" (the marks recorded)
 *   --rate R   each thread marks R times a second at most
 *   --late     one more process (thread number P x T) starts marking
 *              20 ms before the buffers are offered and retries each
 *              mark until it is recorded
 *   --twin F   also F, the user events written into the kernel trace
 *              instead (write_twin)
 *   --bench N  ns per kutrace_mark_d on this thread's fast path, as the
 *              best of 5 rounds of N, no trace written
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>

#include "tool.h"
#include "rawwrite.h"
#include "channel.h"
#include "kutrace/control.h"
#include "kutrace/counter.h"

static long nmarks = 1000;
static double rate;		/* --rate: marks per second per thread, 0: flat out */
static int names;
static unsigned long sigmarks;	/* --signals: marks signal handlers made */

/*
 * A handler marking in the middle of its thread's marks (signal-safety).
 * It counts the marks recorded: one that interrupts the making of its
 * thread's buffer takes the system call, which this machine lacks.
 */
static void on_alarm(int sig)
{
	(void)sig;
	if (kutrace_addevent(KUTRACE_MARKC, kt_base40_encode("sig")) == 1)
		__atomic_fetch_add(&sigmarks, 1, __ATOMIC_RELAXED);
}
static volatile uint64_t *shared;	/* per process: marks done (--kill) */

struct worker {
	int k;
	pthread_t th;
};

static void *run(void *p)
{
	struct worker *w = p;
	long n = w->k < 0 ? -1 : nmarks;
	int k = w->k < 0 ? 0 : w->k;
	char m[32];

	if (names) {
		snprintf(m, sizeof(m), "method%d", k);
		kutrace_addname(KUTRACE_METHODNAME, (uint64_t)k + 1, m);
		kutrace_addevent(KUTRACE_RPCIDREQ, (uint64_t)k + 1);
	}
	struct timespec t0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (long i = 0; n < 0 || i < n; i++) {
		/* paced: mark i not before i / rate seconds */
		while (rate > 0 && i % 64 == 0) {
			struct timespec t;

			clock_gettime(CLOCK_MONOTONIC, &t);
			if ((double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) * 1e-9 >=
			    (double)i / rate)
				break;
		}
		kutrace_mark_d((uint64_t)k << 20 | (uint64_t)i);
		if (shared) {
			shared[0] = (uint64_t)i + 1;
			/* slower, so that the kill comes before the ring fills */
			for (volatile int s = 0; s < 200; s++)
				;
		}
	}
	if (names)
		kutrace_addevent(KUTRACE_RPCIDRESP, 0);
	printf("thread %ld %d %ld\n", (long)syscall(SYS_gettid), k, nmarks);
	fflush(stdout);
	return NULL;
}

static void process(int first, int nthreads, int signals)
{
	struct worker *w = calloc((size_t)nthreads, sizeof(*w));

	if (signals) {
		struct itimerval it = { { 0, 50 }, { 0, 50 } };

		signal(SIGALRM, on_alarm);
		setitimer(ITIMER_REAL, &it, NULL);
	}

	for (int t = 0; t < nthreads; t++) {
		w[t].k = first + t;
		if (pthread_create(&w[t].th, NULL, run, &w[t]))
			exit(1);
	}
	for (int t = 0; t < nthreads; t++)
		pthread_join(w[t].th, NULL);
	if (signals) {
		struct itimerval off = { { 0, 0 }, { 0, 0 } };

		setitimer(ITIMER_REAL, &off, NULL);
		printf("signals %d %lu\n", (int)getpid(), __atomic_load_n(&sigmarks, __ATOMIC_RELAXED));
		fflush(stdout);
	}
	free(w);
}

static double bench(long n)
{
	double best = 1e9;

	for (int r = 0; r < 5; r++) {
		struct timespec a, b;

		clock_gettime(CLOCK_MONOTONIC, &a);
		for (long i = 0; i < n; i++)
			kutrace_mark_d((uint64_t)i);
		clock_gettime(CLOCK_MONOTONIC, &b);
		double ns = ((double)(b.tv_sec - a.tv_sec) * 1e9 +
			     (double)(b.tv_nsec - a.tv_nsec)) / (double)n;

		if (ns < best)
			best = ns;
		kt_ubuf_stop();
		kt_ubuf_start(1ULL << 22, 1);
	}
	return best;
}

/*
 * The twin of trace out: the same kernel entries, and every user event
 * written into the kernel trace instead, on its CPU at its time, after a
 * context switch to its thread when another ran there: what the system
 * call path would have recorded.  Its marks must decode exactly as the
 * user buffers' do.
 */
static int write_twin(const char *out, const char *path, const struct kt_rw_options *o,
		      uint64_t c1)
{
	struct kt_raw r;
	struct kt_block_ref *refs = NULL;
	struct kt_user u;
	char err[256];
	uint32_t cur[KUTRACE_MAX_CPUS] = { 0 };

	if (kt_raw_open(&r, out) < 0)
		return 1;
	long n = kt_raw_index(&r, &refs);

	if (n <= 0 || kt_user_load(&r, refs, n, &u) < 0)
		return 1;
	struct kt_rw *w = kt_rw_create(path, o, err, sizeof(err));

	if (!w)
		return 1;
	for (int c = 0; c < o->ncpu; c++) {
		kt_rw_set_task(w, c, 0, "-idle-");
		kt_rw_trace1(w, c, o->start_ctr + 1, KUTRACE_SYSCALL64 + 39, 0, 0);
	}
	for (size_t i = 0; i < u.n; i++) {
		const struct kt_uevent *e = &u.ev[i];
		const uint64_t *x = &u.words[e->widx];
		unsigned int ev = kutrace_word_event(x[0]);
		char name[KUTRACE_NAME_MAX + 1] = "";

		if (cur[e->cpu] != e->tid) {
			kt_rw_trace1(w, (int)e->cpu, e->full, KUTRACE_USERPID, e->tid, 0);
			cur[e->cpu] = e->tid;
		}
		if (kutrace_is_varlen(ev)) {
			memcpy(name, &x[1], (e->nw - 1) * 8);
			kt_rw_name(w, (int)e->cpu, e->full, ev & KUTRACE_TYPE_MASK,
				   (uint32_t)x[0], name);
		} else {
			kt_rw_trace1(w, (int)e->cpu, e->full, ev, (uint32_t)x[0], 0);
		}
	}
	for (int c = 0; c < o->ncpu; c++)
		kt_rw_trace1(w, c, c1 - 10, KUTRACE_SYSCALL64 + 39, 0, 0);
	uint64_t su;
	int rc = kt_rw_close(w, c1, &su) < 0;

	kt_rw_free(w);
	kt_user_free(&u);
	free(refs);
	kt_raw_close(&r);
	return rc;
}

int main(int argc, char **argv)
{
	const char *out = NULL, *twin = NULL;
	int nproc = 1, nthreads = 1, wrap = 0, kill9 = 0, signals = 0, late = 0;
	long ring = 1 << 16, nbench = 0;
	char dir[] = "/tmp/uevgenXXXXXX";

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "-o") && v)
			out = v, i++;
		else if (!strcmp(a, "-p") && v)
			nproc = atoi(v), i++;
		else if (!strcmp(a, "-t") && v)
			nthreads = atoi(v), i++;
		else if (!strcmp(a, "-n") && v)
			nmarks = atol(v), i++;
		else if (!strcmp(a, "-r") && v)
			ring = atol(v), i++;
		else if (!strcmp(a, "--rate") && v)
			rate = atof(v), i++;
		else if (!strcmp(a, "--bench") && v)
			nbench = atol(v), i++;
		else if (!strcmp(a, "--wrap"))
			wrap = 1;
		else if (!strcmp(a, "--kill"))
			kill9 = 1;
		else if (!strcmp(a, "--names"))
			names = 1;
		else if (!strcmp(a, "--signals"))
			signals = 1;
		else if (!strcmp(a, "--late"))
			late = 1;
		else if (!strcmp(a, "--twin") && v)
			twin = v, i++;
		else {
			fprintf(stderr, "uevgen: bad argument %s\n", a);
			return 2;
		}
	}
	if ((!out && !nbench) || !mkdtemp(dir))
		return 2;
	setenv("KUTRACE_USER_DIR", dir, 1);

	uint64_t c0 = kt_counter_now();
	struct timeval tv;

	gettimeofday(&tv, NULL);
	uint64_t u0 = (uint64_t)tv.tv_sec * 1000000 + (uint64_t)tv.tv_usec;
	if (late && fork() == 0) {
		/* started before the buffers: its marks fail until they come */
		int k = nproc * nthreads;

		for (long i = 0; i < nmarks; i++)
			while (kutrace_addevent(KUTRACE_MARKD, (uint64_t)k << 20 | (uint64_t)i) != 1)
				usleep(50);
		printf("thread %ld %d %ld\n", (long)syscall(SYS_gettid), k, nmarks);
		fflush(stdout);
		_exit(0);
	}
	if (late)
		usleep(20000);
	int e = kt_ubuf_start(nbench ? 1ULL << 22 : (uint64_t)ring, wrap || nbench);

	if (e) {
		fprintf(stderr, "uevgen: kt_ubuf_start: %s\n", strerror(-e));
		return 1;
	}
	if (nbench) {
		double ns = bench(nbench);

		kt_ubuf_remove();
		printf("user fast path: %.2f ns per kutrace_mark_d (best of 5 x %ld)\n", ns, nbench);
		return 0;
	}
	for (int p = 0; p < nproc; p++) {
		pid_t pid;

		if (kill9 && p == 0) {
			shared = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
				      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
			shared[0] = 0;
		}
		fflush(stdout);
		pid = fork();
		if (pid < 0)
			return 1;
		if (pid == 0) {
			if (kill9 && p == 0) {
				struct worker w = { .k = -1 };

				run(&w);	/* until killed */
			} else {
				shared = NULL;
				process(p * nthreads, nthreads, signals);
			}
			_exit(0);
		}
		if (kill9 && p == 0) {
			while (shared[0] < 5000)
				usleep(100);
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
			printf("killed %d 0 %llu\n", (int)pid, (unsigned long long)shared[0]);
			shared = NULL;
		}
	}
	while (wait(NULL) > 0 || errno == EINTR)
		;
	kt_ubuf_stop();
	uint64_t c1 = kt_counter_now() + 1000;

	/* Every CPU's kernel stream: a block before the first mark, one entry after the last. */
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	struct kt_rw_options o = {
		.ncpu = (int)(ncpu > KUTRACE_MAX_CPUS ? KUTRACE_MAX_CPUS : ncpu),
		.ticks_per_usec = kt_counter_ticks_per_usec() > 0 ?
				  kt_counter_ticks_per_usec() : 1000.0 / 64,
		.start_ctr = c0, .start_usec = u0,
	};
	char err[256];
	struct kt_rw *w = kt_rw_create(out, &o, err, sizeof(err));

	if (!w) {
		fprintf(stderr, "uevgen: %s\n", err);
		return 1;
	}
	for (int c = 0; c < o.ncpu; c++) {
		kt_rw_set_task(w, c, 0, "-idle-");
		kt_rw_trace1(w, c, c0 + 1, KUTRACE_SYSCALL64 + 39, 0, 0);
		kt_rw_trace1(w, c, c1 - 10, KUTRACE_SYSCALL64 + 39, 0, 0);
	}
	uint64_t su;

	if (kt_rw_close(w, c1, &su) < 0) {
		fprintf(stderr, "uevgen: %s\n", kt_rw_error(w));
		return 1;
	}
	kt_rw_free(w);
	FILE *f = fopen(out, "ab");
	struct kt_ubuf_info info;

	if (!f || kt_ubuf_collect(f, &info) || fclose(f)) {
		fprintf(stderr, "uevgen: cannot append the user buffers\n");
		return 1;
	}
	fprintf(stderr, "uevgen: %llu buffers, %llu lost, %llu refused\n",
		(unsigned long long)info.buffers, (unsigned long long)info.lost,
		(unsigned long long)info.refused);
	kt_ubuf_remove();
	return twin ? write_twin(out, twin, &o, c1) : 0;
}

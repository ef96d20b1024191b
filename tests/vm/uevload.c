// SPDX-License-Identifier: BSD-3-Clause
/*
 * uevload - guest workloads of tests/t_vm_uev.sh: user events through
 * libkutrace's fast path (docs/spec/FORMATS.md 9) while kutrace_control
 * --user-kb records.  Linked with libkutrace.a (tests/vm/build.sh).
 *
 *   uevload many P T N   P processes x T threads, each kutrace_mark_d(k << 20 | i)
 *                        for i < N, moving to the next CPU every 64 marks;
 *                        "thread TID K N" per thread
 *   uevload order N      N x { mark_a("before"); getpid(); mark_a("after") };
 *                        "order TID N"
 *   uevload rpc K        a client and a server process, each marking the K
 *                        RPCs it sends or serves (ids 1..K, each named
 *                        "ping" by the client);
 *                        "rpc client|server PID K"
 *   uevload nobody N DIR as user 65534: N x kutrace_mark_d(200000 + i), then
 *                        "nobody PID ctl_writable=0|1" (DIR/ctl opened for
 *                        writing)
 *   uevload crash        a child marks until SIGKILL; "killed TID DONE" (DONE
 *                        marks had returned)
 *   uevload bench N      ns per kutrace_mark_d on the fast path and per mark
 *                        through system call 1023 (the book's library),
 *                        their ratio, the time counter read alone, and
 *                        whether rseq is on
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "kutrace/control.h"

static long nmarks;
static int ncpu;

static void *many_thread(void *p)
{
	long k = (long)p;
	cpu_set_t set;

	for (long i = 0; i < nmarks; i++) {
		if (i % 64 == 0) {
			CPU_ZERO(&set);
			CPU_SET((int)((k + i / 64) % ncpu), &set);
			sched_setaffinity(0, sizeof(set), &set);
		}
		kutrace_mark_d((uint64_t)k << 20 | (uint64_t)i);
	}
	printf("thread %ld %ld %ld\n", (long)syscall(SYS_gettid), k, nmarks);
	return NULL;
}

static int many(int np, int nt)
{
	for (int p = 0; p < np; p++) {
		fflush(stdout);
		if (fork() == 0) {
			pthread_t th[64];

			for (int t = 0; t < nt && t < 64; t++)
				pthread_create(&th[t], NULL, many_thread, (void *)(long)(p * nt + t));
			for (int t = 0; t < nt && t < 64; t++)
				pthread_join(th[t], NULL);
			fflush(stdout);
			_exit(0);
		}
	}
	while (wait(NULL) > 0)
		;
	return 0;
}

static int order(long n)
{
	for (long i = 0; i < n; i++) {
		kutrace_mark_a("before");
		syscall(SYS_getpid);
		kutrace_mark_a("after");
	}
	printf("order %ld %ld\n", (long)syscall(SYS_gettid), n);
	return 0;
}

static int rpc(long k)
{
	int req[2], resp[2];	/* pipes: riscv64's tiny kernel has no AF_UNIX */
	uint32_t id;

	if (pipe(req) || pipe(resp))
		return 1;
	fflush(stdout);
	if (fork() == 0) {
		for (long i = 0; i < k; i++) {
			if (read(req[0], &id, 4) != 4)
				_exit(1);
			kutrace_addevent(KUTRACE_RPCIDREQ, id);
			if (write(resp[1], &id, 4) != 4)
				_exit(1);
			kutrace_addevent(KUTRACE_RPCIDRESP, id);
		}
		printf("rpc server %d %ld\n", (int)getpid(), k);
		fflush(stdout);
		_exit(0);
	}
	for (id = 1; id <= k; id++) {
		/* as the book's client: each RPC id names its method */
		kutrace_addname(KUTRACE_METHODNAME, id, "ping");
		kutrace_addevent(KUTRACE_RPCIDREQ, id);
		if (write(req[1], &id, 4) != 4 || read(resp[0], &id, 4) != 4)
			return 1;
		kutrace_addevent(KUTRACE_RPCIDRESP, id);
	}
	wait(NULL);
	printf("rpc client %d %ld\n", (int)getpid(), k);
	return 0;
}

/*
 * A user who is not root: marks through the fast path, and cannot touch
 * the control file (tracing state) nor another's buffer.
 */
static int nobody(long n, const char *dir)
{
	char path[4096];
	int fd;

	if (setgid(65534) || setuid(65534))
		return 2;
	for (long i = 0; i < n; i++)
		kutrace_mark_d(200000 + (uint64_t)i);
	snprintf(path, sizeof(path), "%s/ctl", dir);
	fd = open(path, O_RDWR);
	printf("nobody %d ctl_writable=%d\n", (int)getpid(), fd >= 0);
	return 0;
}

static int crash(void)
{
	volatile uint64_t *done = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
				       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	pid_t p;

	fflush(stdout);
	p = fork();
	if (p == 0) {
		for (uint64_t i = 0;; i++) {
			kutrace_mark_d(i);
			done[0] = i + 1;
		}
	}
	while (done[0] < 2000)
		usleep(200);
	kill(p, SIGKILL);
	waitpid(p, NULL, 0);
	printf("killed %d %llu\n", (int)p, (unsigned long long)done[0]);
	return 0;
}

static volatile uint64_t sink;

/* The time counter read alone: what every entry, kernel or user, pays. */
static inline uint64_t counter_now(void)
{
#if defined(__x86_64__)
	uint32_t lo, hi;

	__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
	return (uint64_t)hi << 32 | lo;
#elif defined(__aarch64__)
	uint64_t v;

	__asm__ __volatile__("isb; mrs %0, cntvct_el0" : "=r"(v));
	return v;
#else
	uint64_t v;

	__asm__ __volatile__("rdtime %0" : "=r"(v));
	return v;
#endif
}

extern const ptrdiff_t __rseq_offset __attribute__((weak));
extern const unsigned int __rseq_size __attribute__((weak));

/* glibc registered rseq for this thread: the fast path takes it. */
static int rseq_on(void)
{
	if (!&__rseq_size || __rseq_size < 20)
		return 0;
	return *(volatile int32_t *)((char *)__builtin_thread_pointer() + __rseq_offset + 4) >= 0;
}

static double thread_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int bench(long n)
{
	uint64_t w = kutrace_make_word(KUTRACE_MARKD, 7);
	double t, fast, sys, clock;

	kutrace_mark_d(0);
	t = thread_ns();
	for (long i = 0; i < n; i++)
		kutrace_mark_d((uint64_t)i);
	fast = (thread_ns() - t) / (double)n;
	t = thread_ns();
	for (long i = 0; i < n / 10 + 1; i++)
		syscall(KUTRACE_CONTROL_SYSCALL, KUTRACE_CMD_INSERT1, w);
	sys = (thread_ns() - t) / (double)(n / 10 + 1);
	t = thread_ns();
	for (long i = 0; i < n; i++)
		sink += counter_now();
	clock = (thread_ns() - t) / (double)n;
	printf("bench fast_ns=%.1f syscall_ns=%.1f ratio=%.1f clock_ns=%.1f rseq=%d\n",
	       fast, sys, sys / fast, clock, rseq_on());
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	ncpu = (int)sysconf(_SC_NPROCESSORS_ONLN);
	if (ncpu < 1)
		ncpu = 1;
	if (argc == 5 && !strcmp(argv[1], "many")) {
		nmarks = atol(argv[4]);
		return many(atoi(argv[2]), atoi(argv[3]));
	}
	if (argc == 3 && !strcmp(argv[1], "order"))
		return order(atol(argv[2]));
	if (argc == 3 && !strcmp(argv[1], "rpc"))
		return rpc(atol(argv[2]));
	if (argc == 4 && !strcmp(argv[1], "nobody"))
		return nobody(atol(argv[2]), argv[3]);
	if (argc == 2 && !strcmp(argv[1], "crash"))
		return crash();
	if (argc == 3 && !strcmp(argv[1], "bench"))
		return bench(atol(argv[2]));
	fprintf(stderr, "usage: uevload many P T N | order N | rpc K | nobody N DIR | crash | bench N\n");
	return 2;
}

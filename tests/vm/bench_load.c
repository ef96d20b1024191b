// SPDX-License-Identifier: BSD-3-Clause
/*
 * bench_load - guest workloads of `make bench` (tests/vm/scenarios/bench.sh).
 *
 *   bench_load getpid N      N getpid() calls
 *   bench_load mixed N       N rounds of: getpid, getuid, close(-1); one
 *                            byte ping-pong with a child over two pipes
 *                            (both pinned to CPU 0);
 *                            one page fault on a fresh anonymous page
 *                            (mmap/munmap every 256 pages); and a short
 *                            user-mode loop, so that timer interrupts
 *                            land in user mode as in a real program
 *   bench_load pingpong N    N one-byte round trips with a child over two
 *                            pipes, both pinned to CPU 0: two context
 *                            switches and two wakeups per round trip
 *   bench_load faults N      N page faults, each on a fresh anonymous
 *                            page (mmap/munmap every 256 pages)
 *   bench_load rdtsc N       N reads of the time counter (what one
 *                            entry costs at least; emulated, see
 *                            docs/PERFORMANCE.md)
 *   bench_load fill          INSERTN 8-word entries through /dev/kutrace
 *                            until the buffer is full (tracing must be on)
 *   bench_load run CMD ARGS  runs CMD and prints its wall time
 *
 * getpid, mixed, pingpong and faults print "load=W n=N ns=TOTAL per_op=NS" where TOTAL is
 * the wall time of the loop alone (CLOCK_MONOTONIC), so that starting and
 * stopping a tracer around the program does not count.  The work is a
 * fixed amount (no time-based loops): whatever a tracer adds shows up as
 * time.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include "kutrace/format.h"
#include "kutrace/counter.h"

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static volatile unsigned long sink;

static double do_getpid(long n)
{
	double t = now_ns();

	for (long i = 0; i < n; i++)
		syscall(SYS_getpid);
	return now_ns() - t;
}

#define FAULT_PAGES 256

struct pingpong {
	int wr, rd;	/* to the child, from the child */
	pid_t child;
};

/*
 * Parent and child on CPU 0: every round trip is two context switches on
 * one CPU.  Across two emulated CPUs a round trip would wait for an idle
 * vCPU to wake up, which under TCG takes a host-scheduling-dependent time
 * and drowns what a tracer adds.
 */
static void pp_start(struct pingpong *pp)
{
	int ab[2], ba[2];
	char c;
	cpu_set_t one;

	CPU_ZERO(&one);
	CPU_SET(0, &one);
	sched_setaffinity(0, sizeof(one), &one);
	if (pipe(ab) || pipe(ba)) {
		perror("pipe");
		exit(1);
	}
	pp->child = fork();
	if (pp->child == 0) {
		/* Only the parent writes to ab: read() sees EOF when it ends. */
		close(ab[1]);
		close(ba[0]);
		while (read(ab[0], &c, 1) == 1)
			if (write(ba[1], &c, 1) != 1)
				break;
		_exit(0);
	}
	close(ab[0]);
	close(ba[1]);
	pp->wr = ab[1];
	pp->rd = ba[0];
}

static void pp_round(struct pingpong *pp)
{
	char c = 'x';

	if (write(pp->wr, &c, 1) != 1 || read(pp->rd, &c, 1) != 1) {
		perror("ping-pong");
		exit(1);
	}
}

static void pp_stop(struct pingpong *pp)
{
	close(pp->wr);
	waitpid(pp->child, NULL, 0);
	close(pp->rd);
}

/* Touches page i % FAULT_PAGES of *region, a fresh mapping every round. */
static void fault_page(long i, char **region, long page)
{
	if (i % FAULT_PAGES == 0) {
		if (*region)
			munmap(*region, FAULT_PAGES * page);
		*region = mmap(NULL, FAULT_PAGES * page, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (*region == MAP_FAILED) {
			perror("mmap");
			exit(1);
		}
	}
	(*region)[(i % FAULT_PAGES) * page] = 1;
}

static double do_mixed(long n)
{
	char *region = NULL;
	long page = sysconf(_SC_PAGESIZE);
	struct pingpong pp;
	double t;

	pp_start(&pp);
	t = now_ns();
	for (long i = 0; i < n; i++) {
		unsigned long x = 0;

		syscall(SYS_getpid);
		syscall(SYS_getuid);
		syscall(SYS_close, -1);
		pp_round(&pp);
		fault_page(i, &region, page);
		for (int k = 0; k < 2000; k++)
			x += (unsigned long)k * k;
		sink = x;
	}
	t = now_ns() - t;
	pp_stop(&pp);
	return t;
}

static double do_pingpong(long n)
{
	struct pingpong pp;
	double t;

	pp_start(&pp);
	t = now_ns();
	for (long i = 0; i < n; i++)
		pp_round(&pp);
	t = now_ns() - t;
	pp_stop(&pp);
	return t;
}

static double do_faults(long n)
{
	char *region = NULL;
	long page = sysconf(_SC_PAGESIZE);
	double t = now_ns();

	for (long i = 0; i < n; i++)
		fault_page(i, &region, page);
	t = now_ns() - t;
	if (region)
		munmap(region, FAULT_PAGES * page);
	return t;
}

static double do_rdtsc(long n)
{
	unsigned long long sum = 0;
	double t = now_ns();

	for (long i = 0; i < n; i++)
		sum += kt_counter_now();
	sink = (unsigned long)sum;
	return now_ns() - t;
}

static int do_fill(void)
{
	struct kutrace_ioc io = { 0 };
	uint64_t w[KUTRACE_MAX_ENTRY_WORDS];
	long calls = 0;
	double t;
	int fd = open(KUTRACE_DEVICE, O_RDONLY);

	if (fd < 0) {
		perror(KUTRACE_DEVICE);
		return 1;
	}
	/* An 8-word name entry: the most bytes per ioctl. */
	memset(w, 'k', sizeof(w));
	w[0] = kutrace_make_word(KUTRACE_METHODNAME |
				 (8 << KUTRACE_LEN_SHIFT), 1);
	t = now_ns();
	do {
		io.arg = (uint64_t)(uintptr_t)w;
		io.result = 0;
		if (ioctl(fd, KUTRACE_IOC(KUTRACE_CMD_INSERTN), &io) < 0) {
			perror("INSERTN");
			return 1;
		}
		calls++;
	} while (io.result);
	printf("fill calls=%ld secs=%.1f\n", calls, (now_ns() - t) / 1e9);
	close(fd);
	return 0;
}

static int do_run(char **argv)
{
	double t = now_ns();
	int st = 0;
	pid_t p = fork();

	if (p == 0) {
		execvp(argv[0], argv);
		perror(argv[0]);
		_exit(127);
	}
	waitpid(p, &st, 0);
	printf("run cmd=%s secs=%.3f status=%d\n", argv[0],
	       (now_ns() - t) / 1e9, WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}

static const char usage[] =
"usage: bench_load getpid N | mixed N | pingpong N | faults N | rdtsc N |\n"
"                  fill | run CMD [ARGS]\n"
"Guest workloads of make bench (see the comment at the top of the\n"
"source); getpid, mixed, pingpong and faults print load=, n=, ns= (loop\n"
"wall time) and per_op= (ns per call or per round).\n";

int main(int argc, char **argv)
{
	double ns;
	long n;

	if (argc < 2 || !strcmp(argv[1], "--help")) {
		fputs(usage, argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	if (!strcmp(argv[1], "fill"))
		return do_fill();
	if (!strcmp(argv[1], "run") && argc > 2)
		return do_run(argv + 2);
	if (argc != 3 || (n = atol(argv[2])) <= 0) {
		fputs(usage, stderr);
		return 2;
	}
	if (!strcmp(argv[1], "getpid"))
		ns = do_getpid(n);
	else if (!strcmp(argv[1], "mixed"))
		ns = do_mixed(n);
	else if (!strcmp(argv[1], "pingpong"))
		ns = do_pingpong(n);
	else if (!strcmp(argv[1], "faults"))
		ns = do_faults(n);
	else if (!strcmp(argv[1], "rdtsc"))
		ns = do_rdtsc(n);
	else {
		fputs(usage, stderr);
		return 2;
	}
	printf("load=%s n=%ld ns=%.0f per_op=%.1f\n", argv[1], n, ns, ns / n);
	return 0;
}

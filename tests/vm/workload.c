// SPDX-License-Identifier: BSD-3-Clause
/*
 * workload - guest test load with exactly known counts.
 *
 *   workload getpid N      N getpid() system calls
 *   workload sleep M       M nanosleep(1 ms)
 *   workload pingpong K    K round trips of one byte between this process
 *                          and a child over two pipes
 *   workload xpingpong K   the same with this process on CPU 0 and the
 *                          child on CPU 1: every wakeup crosses CPUs (IPIs)
 *   workload mixed N M K   all three, in that order
 *   workload spin MS       busy loop in user mode for MS milliseconds
 *   workload idle S...     on CPU $PIN: a marker, sleep S seconds, a marker,
 *                          ...; marker i is close(1000 + i) (fails with
 *                          EBADF) and prints "mark i USEC BEFORE AFTER"
 *                          (CLOCK_REALTIME, and the trace counter TSC >> 6
 *                          read right before and right after the call)
 *
 * PIN=CPU in the environment pins the ping-pong pair to that CPU.
 * FIFO=PRIO runs the ping-pong pair at SCHED_FIFO priority PRIO (both the
 * same).  Pinned to one CPU, a write then never preempts (equal RT
 * priority) and every read blocks: each round trip is exactly one switch
 * into the child and one into the parent, each after a wakeup by the other.
 * With RT throttling off (sched_rt_runtime_us = -1) no CFS task can run
 * on that CPU in between.
 *
 * Prints "pid P" and, for ping-pong, "child C" on stdout.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include "kutrace/counter.h"
#include "kutrace/format.h"

static void do_getpid(long n)
{
	for (long i = 0; i < n; i++)
		syscall(SYS_getpid);
}

static void do_sleep(long m)
{
	struct timespec ts = { 0, 1000000 };

	for (long i = 0; i < m; i++)
		nanosleep(&ts, NULL);
}

static int pin = -1, fifo;

static void pin_to(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		perror("sched_setaffinity");
		exit(1);
	}
}

/* K round trips; the parent runs on CPU @pcpu, the child on @ccpu (-1: anywhere). */
static void do_pingpong(long k, int pcpu, int ccpu)
{
	int ab[2], ba[2];
	char c = 'x';
	pid_t child;

	/* Both on one CPU: every round trip blocks and switches. */
	if (pcpu >= 0)
		pin_to(pcpu);
	if (fifo > 0) {
		struct sched_param sp = { .sched_priority = fifo };

		/* inherited by the child */
		if (sched_setscheduler(0, SCHED_FIFO, &sp)) {
			perror("sched_setscheduler");
			exit(1);
		}
	}
	if (pipe(ab) || pipe(ba)) {
		perror("pipe");
		exit(1);
	}
	child = fork();
	if (child < 0) {
		perror("fork");
		exit(1);
	}
	if (child == 0) {
		if (ccpu >= 0 && ccpu != pcpu)
			pin_to(ccpu);
		for (long i = 0; i < k; i++) {
			if (read(ab[0], &c, 1) != 1 || write(ba[1], &c, 1) != 1)
				_exit(1);
		}
		_exit(0);
	}
	printf("child %d\n", (int)child);
	fflush(stdout);
	for (long i = 0; i < k; i++) {
		if (write(ab[1], &c, 1) != 1 || read(ba[0], &c, 1) != 1) {
			perror("pingpong");
			exit(1);
		}
	}
	waitpid(child, NULL, 0);
}

static void do_idle(int n, char **secs)
{
	struct timespec ts;

	if (pin >= 0)
		pin_to(pin);
	for (int i = 0; i <= n; i++) {
		unsigned long long before, after;

		before = kt_counter_now();
		syscall(SYS_close, 1000 + i);
		after = kt_counter_now();
		clock_gettime(CLOCK_REALTIME, &ts);
		printf("mark %d %lld %llu %llu\n", i,
		       (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000,
		       before, after);
		fflush(stdout);
		if (i < n)
			sleep((unsigned int)atoi(secs[i]));
	}
}

static void do_spin(long ms)
{
	struct timespec a, b;

	clock_gettime(CLOCK_MONOTONIC, &a);
	do {
		for (volatile int i = 0; i < 10000; i++)
			;
		clock_gettime(CLOCK_MONOTONIC, &b);
	} while ((b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000 < ms);
}

int main(int argc, char **argv)
{
	long a = argc > 2 ? atol(argv[2]) : 0;

	if (getenv("PIN"))
		pin = atoi(getenv("PIN"));
	if (getenv("FIFO"))
		fifo = atoi(getenv("FIFO"));

	if (argc < 3) {
		fprintf(stderr, "usage: workload getpid|sleep|pingpong|xpingpong|spin N | mixed N M K\n");
		return 2;
	}
	/* not getpid(): the test counts those exactly */
	printf("pid %ld\n", (long)syscall(SYS_gettid));
	fflush(stdout);
	if (!strcmp(argv[1], "getpid"))
		do_getpid(a);
	else if (!strcmp(argv[1], "sleep"))
		do_sleep(a);
	else if (!strcmp(argv[1], "pingpong"))
		do_pingpong(a, pin, pin);
	else if (!strcmp(argv[1], "xpingpong"))
		do_pingpong(a, 0, 1);
	else if (!strcmp(argv[1], "idle"))
		do_idle(argc - 2, argv + 2);
	else if (!strcmp(argv[1], "spin"))
		do_spin(a);
	else if (!strcmp(argv[1], "mixed") && argc == 5) {
		do_getpid(a);
		do_sleep(atol(argv[3]));
		do_pingpong(atol(argv[4]), pin, pin);
	} else {
		fprintf(stderr, "workload: bad arguments\n");
		return 2;
	}
	return 0;
}

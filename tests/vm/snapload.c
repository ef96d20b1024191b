// SPDX-License-Identifier: BSD-3-Clause
/*
 * snapload - guest workloads of tests/t_vm_snap.sh (kutrace_flight,
 * docs/spec/FORMATS.md 11).  Linked with libkutrace.a (tests/vm/build.sh)
 * for kutrace_trigger() and the trace's time counter.
 *
 *   snapload sleeps K MS GAP BOUND
 *                              K times: GAP seconds of 1 ms nanosleep
 *                              calls, then one nanosleep of MS ms; GAP
 *                              seconds more at the end.  Prints "pid P",
 *                              "long I START END" per long call (the
 *                              counter just before and after it), "short
 *                              N" (the 1 ms calls made), and "over N NEAR"
 *                              (calls, long or short, that took more than
 *                              BOUND ms as measured here, and those within
 *                              10 % of BOUND: a busy host can stall a guest
 *                              long enough to make a short call slow)
 *   snapload trigger REASON    1.5 s of getpid calls, kutrace_trigger(REASON)
 *                              ("trigger PID RC AT"), 0.5 s more
 *   snapload segv              0.5 s of getpid calls, then a store to
 *                              address 0 ("segv PID" first)
 *   snapload rpc N EVERY MS BOUND
 *                              N requests (RPC ids 1..N, request and
 *                              response marks around each), method
 *                              "lookup" but every EVERY-th, whose method
 *                              alternates store, lookup, ... and which takes
 *                              MS ms instead of 1; "slow ID METHOD" each,
 *                              "rpc PID N" and "over N NEAR" (lookups over
 *                              BOUND ms, and within 10 % of it) at the end
 *
 * The system calls go through syscall(2), so that nanosleep is the
 * nanosleep system call (glibc's nanosleep() calls clock_nanosleep).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

#include "kutrace/control.h"

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec / 1e9;
}

static void nap_ms(long ms)
{
	struct timespec t = { ms / 1000, (ms % 1000) * 1000000 };

	syscall(SYS_nanosleep, &t, NULL);
}

static void getpids_for(double secs)
{
	double end = now_s() + secs;

	while (now_s() < end)
		for (int i = 0; i < 100; i++)
			syscall(SYS_getpid);
}

static double bound_s;
static long over, near;

/* One nanosleep of ms, its length as seen here counted against the bound. */
static void timed_nap(long ms)
{
	double a = now_s(), d;

	nap_ms(ms);
	d = now_s() - a;
	over += d > bound_s;
	near += d > bound_s * 0.9 && d < bound_s * 1.1;
}

static long shorts_for(double secs)
{
	double end = now_s() + secs;
	long n = 0;

	while (now_s() < end) {
		timed_nap(1);
		n++;
	}
	return n;
}

int main(int argc, char **argv)
{
	if (argc == 6 && !strcmp(argv[1], "sleeps")) {
		int k = atoi(argv[2]);
		long ms = atol(argv[3]), n = 0;
		double gap = atof(argv[4]);

		bound_s = atof(argv[5]) / 1e3;
		printf("pid %d\n", (int)getpid());
		for (int i = 0; i < k; i++) {
			n += shorts_for(gap);
			uint64_t a = kutrace_readtime();

			timed_nap(ms);
			uint64_t b = kutrace_readtime();

			printf("long %d %llu %llu\n", i, (unsigned long long)a,
			       (unsigned long long)b);
		}
		n += shorts_for(gap);
		printf("short %ld\nover %ld %ld\n", n, over, near);
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "trigger")) {
		getpids_for(1.5);
		uint64_t at = kutrace_readtime();
		int rc = kutrace_trigger(argv[2]);

		printf("trigger %d %d %llu\n", (int)getpid(), rc, (unsigned long long)at);
		getpids_for(0.5);
		return rc == 1 ? 0 : 1;
	}
	if (argc == 2 && !strcmp(argv[1], "segv")) {
		printf("segv %d\n", (int)getpid());
		fflush(stdout);
		getpids_for(0.5);
		volatile int *p = (volatile int *)(uintptr_t)(argc - 2);

		*p = 1;
		return 0;
	}
	if (argc == 6 && !strcmp(argv[1], "rpc")) {
		int n = atoi(argv[2]), every = atoi(argv[3]), slow = 0;
		long ms = atol(argv[4]);

		bound_s = atof(argv[5]) / 1e3;
		for (int id = 1; id <= n; id++) {
			int is_slow = every > 0 && id % every == 0;
			const char *m = is_slow && slow++ % 2 == 0 ? "store" : "lookup";

			kutrace_addname(KUTRACE_METHODNAME, (uint64_t)id, m);
			long o = over, nr = near;

			kutrace_addevent(KUTRACE_RPCIDREQ, (uint64_t)id);
			timed_nap(is_slow ? ms : 1);
			kutrace_addevent(KUTRACE_RPCIDRESP, (uint64_t)id);
			if (m[0] == 's') {	/* only lookups count */
				over = o;
				near = nr;
			}
			kutrace_addevent(KUTRACE_RPCIDREQ, 0);
			if (is_slow)
				printf("slow %d %s\n", id, m);
		}
		printf("rpc %d %d\nover %ld %ld\n", (int)getpid(), n, over, near);
		return 0;
	}
	fprintf(stderr, "usage: snapload sleeps K MS GAP BOUND | trigger REASON | segv | "
		"rpc N EVERY MS BOUND\n");
	return 2;
}

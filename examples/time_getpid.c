// SPDX-License-Identifier: BSD-3-Clause
/*
 * time_getpid - the cost of one traced event.
 *
 * Times a tight loop of N getpid() calls (default 100000) three ways:
 * tracing off, on, and on with IPC; each getpid is one fused call/return
 * entry, so (on - off) / N is the cost per event.  The traced runs are
 * saved as time_getpid.trace and time_getpid_ipc.trace.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

#include "kutrace/control.h"

static double loop_ns(long n)
{
	struct timespec a, b;

	clock_gettime(CLOCK_MONOTONIC, &a);
	for (long i = 0; i < n; i++)
		syscall(SYS_getpid);
	clock_gettime(CLOCK_MONOTONIC, &b);
	return ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / n;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100000;
	double off, on, ipc;

	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		printf("usage: time_getpid [N]\n"
		       "Times N getpid() calls (default 100000) with tracing off, on and on\n"
		       "with IPC, prints the cost per traced event, and keeps the traces\n"
		       "time_getpid.trace and time_getpid_ipc.trace.  Needs the kutrace\n"
		       "module and root or CAP_PERFMON.\n");
		return 0;
	}

	if (n <= 0)
		n = 100000;
	off = loop_ns(n);
	printf("getpid, tracing off:    %8.1f ns\n", off);
	if (!kutrace_test())
		return 1;
	if (kutrace_go("time_getpid"))
		return 1;
	kutrace_mark_a("on");
	on = loop_ns(n);
	kutrace_mark_a("/on");
	if (kutrace_stop("time_getpid.trace"))
		return 1;
	printf("getpid, tracing on:     %8.1f ns  (%.1f ns per event)\n",
	       on, on - off);
	if (kutrace_goipc("time_getpid"))
		return 1;
	ipc = loop_ns(n);
	if (kutrace_stop("time_getpid_ipc.trace"))
		return 1;
	printf("getpid, tracing on+IPC: %8.1f ns  (%.1f ns per event)\n",
	       ipc, ipc - off);
	return 0;
}

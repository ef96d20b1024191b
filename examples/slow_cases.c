// SPDX-License-Identifier: BSD-3-Clause
/*
 * slow_cases - four things that are slow for a reason known in advance,
 * each between a mark NAME and a mark /NAME, for kutrace_why to explain.
 *
 *   lock   thread A waits for a mutex that thread B holds while B sleeps
 *          LOCK_MS: A's wait is B's timer sleep, reached through the lock
 *   pipe   three processes in a chain: P1 computes D1 ms and writes to P2,
 *          P2 sleeps D2 ms and writes to P3 (this process), which waits
 *          for it: P3's wait is P1's CPU time (through two pipes), then
 *          P2's timer sleep, then P2 (through the pipe)
 *   hog    a SCHED_FIFO thread spins HOG_MS on the only CPU the victim may
 *          use: the victim waits for the CPU behind it
 *   disk   READS reads of 64 KiB with O_DIRECT from a file or block device
 *          (no page cache): each waits for the disk
 *
 *   slow_cases [-o FILE.trace] [-d PATH] [-s SCALE] [--no-trace] [CASE...]
 *
 * Prints what each case did as it measured it ("lock: a TID b TID ..."),
 * for the tests to hold kutrace_why's answer against.  A single process
 * (and its children) marks through one /dev/kutrace descriptor, which may
 * be open in one process only.  Needs the kutrace module and root (the
 * hog's SCHED_FIFO, the trace), unless --no-trace.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "kutrace/control.h"

enum { LOCK_MS = 5, D1_MS = 20, D2_MS = 30, HOG_MS = 40, READS = 8 };

static int tracing = 1;
/* -s: every delay times scale.  Under an emulator such as QEMU's TCG a
 * system call costs a hundred times what it does on a real CPU, and the
 * delays must grow with it to stay the main part of each case. */
static int scale = 1;

static void mark(const char *label)
{
	if (tracing)
		kutrace_mark_a(label);
}

static int64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static int tid(void)
{
	return (int)syscall(SYS_gettid);
}

/* Busy in user mode for ms milliseconds of wall time. */
static void spin_ms(int ms)
{
	int64_t end = now_ns() + (int64_t)ms * 1000000;
	volatile uint32_t x = 1;

	while (now_ns() < end)
		for (int i = 0; i < 1000; i++)
			x = x * 1103515245u + 12345u;
}

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static int pin(int cpu)
{
	cpu_set_t s;

	CPU_ZERO(&s);
	CPU_SET(cpu, &s);
	return sched_setaffinity(0, sizeof(s), &s);
}

/* ---- lock -------------------------------------------------------------- */

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static volatile int held, holder;

static void *hold_and_sleep(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&mu);
	holder = tid();
	__atomic_store_n(&held, 1, __ATOMIC_RELEASE);
	sleep_ms(scale * LOCK_MS);	/* a log write in the wrong place */
	pthread_mutex_unlock(&mu);
	return NULL;
}

static int case_lock(void)
{
	pthread_t b;

	held = 0;
	if (pthread_create(&b, NULL, hold_and_sleep, NULL))
		return -1;
	while (!__atomic_load_n(&held, __ATOMIC_ACQUIRE))
		sched_yield();
	int64_t t0 = now_ns();

	mark("lock");
	pthread_mutex_lock(&mu);
	mark("/lock");
	int64_t t1 = now_ns();

	pthread_mutex_unlock(&mu);
	pthread_join(b, NULL);
	printf("lock: a %d b %d sleep_ms %d waited_us %lld\n", tid(), holder, scale * LOCK_MS,
	       (long long)(t1 - t0) / 1000);
	return 0;
}

/* ---- pipe -------------------------------------------------------------- */

static int byte_in(int fd)
{
	char c;

	return read(fd, &c, 1) == 1 ? 0 : -1;
}

static int byte_out(int fd)
{
	return write(fd, "x", 1) == 1 ? 0 : -1;
}

static int case_pipe(void)
{
	int go[2], p12[2], p23[2];

	if (pipe(go) || pipe(p12) || pipe(p23))
		return -1;
	pid_t p1 = fork();

	if (p1 == 0) {	/* P1: woken by P3, computes, wakes P2 */
		_exit(byte_in(go[0]) || (spin_ms(scale * D1_MS), byte_out(p12[1])));
	}
	pid_t p2 = fork();

	if (p2 == 0) {	/* P2: woken by P1, sleeps, wakes P3 */
		_exit(byte_in(p12[0]) || (sleep_ms(scale * D2_MS), byte_out(p23[1])));
	}
	if (p1 < 0 || p2 < 0)
		return -1;
	sleep_ms(10);	/* both children asleep in read */
	int64_t t0 = now_ns();

	mark("pipe");
	int bad = byte_out(go[1]) || byte_in(p23[0]);

	mark("/pipe");
	int64_t t1 = now_ns();
	int s1, s2;

	waitpid(p1, &s1, 0);
	waitpid(p2, &s2, 0);
	close(go[0]), close(go[1]), close(p12[0]), close(p12[1]), close(p23[0]), close(p23[1]);
	if (bad || s1 || s2)
		return -1;
	printf("pipe: p3 %d p1 %d p2 %d d1_ms %d d2_ms %d waited_us %lld\n", tid(), p1, p2,
	       scale * D1_MS, scale * D2_MS, (long long)(t1 - t0) / 1000);
	return 0;
}

/* ---- hog --------------------------------------------------------------- */

static volatile int hog_tid;
static volatile int64_t hog_ns;

static void *hog(void *arg)
{
	(void)arg;
	hog_tid = tid();
	int64_t t0 = now_ns();

	spin_ms(scale * HOG_MS);
	hog_ns = now_ns() - t0;
	return NULL;
}

static int case_hog(void)
{
	int cpu = sysconf(_SC_NPROCESSORS_ONLN) > 1 ? 1 : 0;
	pthread_attr_t at;
	struct sched_param sp = { .sched_priority = 10 };
	cpu_set_t s;
	pthread_t h;

	CPU_ZERO(&s);
	CPU_SET(cpu, &s);
	if (pin(cpu) || pthread_attr_init(&at) ||
	    pthread_attr_setinheritsched(&at, PTHREAD_EXPLICIT_SCHED) ||
	    pthread_attr_setschedpolicy(&at, SCHED_FIFO) ||
	    pthread_attr_setschedparam(&at, &sp) ||
	    pthread_attr_setaffinity_np(&at, sizeof(s), &s))
		return -1;
	spin_ms(2);	/* running on that CPU when the hog arrives */
	int64_t t0 = now_ns();

	mark("hog");
	/* The hog wakes on this CPU with a real-time priority: it takes the
	 * CPU at once and keeps it until it is done. */
	int e = pthread_create(&h, &at, hog, NULL);

	spin_ms(1);
	mark("/hog");
	int64_t t1 = now_ns();

	if (e) {
		fprintf(stderr, "slow_cases: hog: SCHED_FIFO: %s\n", strerror(e));
		return -1;
	}
	pthread_join(h, NULL);
	pthread_attr_destroy(&at);
	printf("hog: victim %d hog %d cpu %d hog_us %lld waited_us %lld\n", tid(), hog_tid, cpu,
	       (long long)hog_ns / 1000, (long long)(t1 - t0) / 1000);
	CPU_ZERO(&s);
	for (int i = 0; i < CPU_SETSIZE && i < sysconf(_SC_NPROCESSORS_ONLN); i++)
		CPU_SET(i, &s);
	sched_setaffinity(0, sizeof(s), &s);
	return 0;
}

/* ---- disk -------------------------------------------------------------- */

static int case_disk(const char *path)
{
	enum { SZ = 64 * 1024 };
	int made = 0, fd = open(path, O_RDONLY | O_DIRECT);
	void *buf;

	if (fd < 0 && errno == ENOENT) {
		/* A file of our own, written once and then read around the
		 * page cache. */
		int w = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
		char *z = calloc(1, 1 << 20);

		for (int i = 0; w >= 0 && z && i <= READS; i++)
			if (write(w, z, 1 << 20) != 1 << 20)
				break;
		free(z);
		if (w < 0 || fsync(w) || close(w))
			return -1;
		made = 1;
		fd = open(path, O_RDONLY | O_DIRECT);
	}
	if (fd < 0 || posix_memalign(&buf, 4096, SZ)) {
		fprintf(stderr, "slow_cases: disk: %s: %s\n", path, strerror(errno));
		return -1;
	}
	/* One read first, unmarked: the first one's path is cold. */
	if (pread(fd, buf, SZ, (off_t)READS << 20) != SZ) {
		fprintf(stderr, "slow_cases: disk: %s: %s\n", path, strerror(errno));
		return -1;
	}
	int64_t t0 = now_ns();
	int n = 0;

	for (int i = 0; i < READS; i++) {
		mark("disk");
		ssize_t r = pread(fd, buf, SZ, (off_t)i << 20);

		mark("/disk");
		n += r == SZ;
	}
	printf("disk: pid %d reads %d path %s us %lld\n", tid(), n, path,
	       (long long)(now_ns() - t0) / 1000);
	free(buf);
	close(fd);
	if (made)
		unlink(path);
	return n == READS ? 0 : -1;
}

/* ------------------------------------------------------------------------ */

static void usage(FILE *f)
{
	fprintf(f,
		"usage: slow_cases [-o FILE.trace] [-d PATH] [-s SCALE] [--no-trace]\n"
		"                  [lock|pipe|hog|disk...]\n"
		"Four delays whose cause is known, each between a mark NAME and /NAME:\n"
		"  lock  a thread waits for a mutex held by a thread sleeping %d ms\n"
		"  pipe  P1 computes %d ms -> pipe -> P2 sleeps %d ms -> pipe -> P3 waits\n"
		"  hog   a SCHED_FIFO thread spins %d ms on the victim's only CPU\n"
		"  disk  %d reads of 64 KiB with O_DIRECT from PATH (a block device or\n"
		"        a file; default slow_cases.dat here, made and removed)\n"
		"-s: every delay times SCALE (for emulators, where a system call costs\n"
		"100 times more).  Default: all four, traced into FILE.trace (default\n"
		"slow_cases.trace).\n"
		"Then: kutrace_why FILE.trace --mark lock (pipe, hog, disk).\n",
		LOCK_MS, D1_MS, D2_MS, HOG_MS, READS);
}

int main(int argc, char **argv)
{
	const char *out = "slow_cases.trace", *path = "slow_cases.dat";
	const char *cases[4];
	int nc = 0, rc = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(argv[i], "-o") && i + 1 < argc) {
			out = argv[++i];
		} else if (!strcmp(argv[i], "-d") && i + 1 < argc) {
			path = argv[++i];
		} else if (!strcmp(argv[i], "-s") && i + 1 < argc) {
			scale = atoi(argv[++i]);
			if (scale < 1 || scale > 100) {
				fprintf(stderr, "slow_cases: -s %s: a scale 1..100\n", argv[i]);
				return 2;
			}
		} else if (!strcmp(argv[i], "--no-trace")) {
			tracing = 0;
		} else if (nc < 4 && (!strcmp(argv[i], "lock") || !strcmp(argv[i], "pipe") ||
				      !strcmp(argv[i], "hog") || !strcmp(argv[i], "disk"))) {
			cases[nc++] = argv[i];
		} else {
			usage(stderr);
			return 2;
		}
	}
	if (!nc) {
		cases[nc++] = "lock", cases[nc++] = "pipe", cases[nc++] = "hog";
		cases[nc++] = "disk";
	}
	if (tracing) {
		if (!kutrace_test())
			return 1;
		if (kutrace_go("slow_cases")) {
			fprintf(stderr, "slow_cases: cannot start tracing\n");
			return 1;
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (int i = 0; i < nc && !rc; i++) {
		int r = !strcmp(cases[i], "lock") ? case_lock() :
			!strcmp(cases[i], "pipe") ? case_pipe() :
			!strcmp(cases[i], "hog") ? case_hog() : case_disk(path);

		if (r) {
			fprintf(stderr, "slow_cases: %s failed\n", cases[i]);
			rc = 1;
		}
	}
	if (tracing && kutrace_stop(out))
		rc = 1;
	return rc;
}

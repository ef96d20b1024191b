// SPDX-License-Identifier: BSD-3-Clause
/*
 * kulib - a program written the way the original KUtrace user library
 * works: every request is syscall(1023, command, arg), nothing else (no
 * libkutrace, no /dev/kutrace).  The numbers below are the original
 * library's (docs/spec/FORMATS.md 1.5, 1.6, 3.7), written out here on purpose and
 * not taken from include/kutrace/format.h: a binary built from the
 * original library carries its own copy.
 *
 *   kulib self N FILE  the library's go, then N of each insert (below),
 *                      then its stop: OFF, FLUSH, GETCOUNT, SET4KB +
 *                      GET4KB for every 4 KiB, block 0's time pairs, FILE
 *                      written, RESET.  Run it without kutrace_control,
 *                      as the book's hello_world_trace.
 *   kulib marks N      inside a trace someone else runs (kutrace_control
 *                      record): N of each insert, then a child as user
 *                      65534 adds N mark_d (arg 100000 + i) and is refused
 *                      every state change.
 *   kulib user         as user 65534 with tracing off: queries answer,
 *                      inserts and state changes are refused.
 *   kulib nosys        system call 1023 fails with ENOSYS.
 *
 * The inserts, N of each: mark_a "ka", mark_b "kb", mark_c "kc",
 * mark_d i, RPC request / response (id 7000 + i), RPC rx / tx message,
 * lock try-fail / acquire / wakeup (lock 0x4C4B), enqueue / dequeue
 * (queue 3); and once: method name "kulib_method" (7000), lock name
 * "kulib_lock" (0x4C4B), queue name "kulib_queue" (3).
 *
 * Each mark_d also prints "markd ARG T0 T1": the trace counter (TSC >> 6)
 * read just before and just after the call, so that the test can check
 * that the mark carries the time of the call.  Prints "pid P" (and
 * "child C"), and "ok - ..." / "not ok - ..." for each return code.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include "kutrace/counter.h"

typedef uint64_t u64;

/* The original library's control call and its commands. */
#define kTraceControl		1023
#define CMD_OFF			0
#define CMD_ON			1
#define CMD_FLUSH		2
#define CMD_RESET		3
#define CMD_STAT		4
#define CMD_GETCOUNT		5
#define CMD_GETWORD		6
#define CMD_INSERT1		7
#define CMD_INSERTN		8
#define CMD_TEST		10
#define CMD_VERSION		11
#define CMD_SET4KB		12
#define CMD_GET4KB		13
#define CMD_INSERT1_FORCED	(~(u64)CMD_INSERT1)
#define CMD_INSERTN_FORCED	(~(u64)CMD_INSERTN)
#define ERR			(~(u64)0)

/* Its event numbers. */
#define EV_PIDNAME	0x002
#define EV_METHODNAME	0x003
#define EV_LOCKNAME	0x007
#define EV_QUEUE_NAME	0x105
#define EV_RPCIDREQ	0x201
#define EV_RPCIDRESP	0x202
#define EV_RPCIDRXMSG	0x204
#define EV_RPCIDTXMSG	0x205
#define EV_MARKA	0x20A
#define EV_MARKB	0x20B
#define EV_MARKC	0x20C
#define EV_MARKD	0x20D
#define EV_LOCKNOACQUIRE 0x210
#define EV_LOCKACQUIRE	0x211
#define EV_LOCKWAKEUP	0x212
#define EV_ENQUEUE	0x21A
#define EV_DEQUEUE	0x21B

#define LOCK_HASH	0x4C4B
#define QUEUE_NUM	3
#define RPC_BASE	7000
#define USER_MARK_BASE	100000
#define NOBODY		65534

static u64 DoControl(u64 command, u64 arg)
{
	return syscall(kTraceControl, command, arg);
}

/* The trace counter, as the module stamps entries. */
static u64 now(void)
{
	return kt_counter_now();
}

static int fails;

static void expect(const char *what, u64 got, u64 want)
{
	if (got == want)
		printf("ok - %s = %lld\n", what, (long long)got);
	else
		printf("not ok - %s = %lld, expected %lld\n", what,
		       (long long)got, (long long)want);
	fails += got != want;
}

/* A loop of calls that must all return @want: one line for all of them. */
static void expect_all(const char *what, long bad, u64 want)
{
	char line[160];

	snprintf(line, sizeof(line), "%s: calls returning other than %lld",
		 what, (long long)want);
	expect(line, (u64)bad, 0);
}

/* docs/spec/FORMATS.md 1.5: first character = least significant base-40 digit. */
static u64 base40(const char *s)
{
	u64 v = 0, m = 1;

	for (int i = 0; i < 6 && s[i]; i++, m *= 40) {
		int c = s[i] | 0x20, code = 38;

		if (c >= 'a' && c <= 'z')
			code = c - 'a' + 1;
		else if (s[i] >= '0' && s[i] <= '9')
			code = s[i] - '0' + 27;
		else if (s[i] == '-')
			code = 37;
		else if (s[i] == '/')
			code = 39;
		v += code * m;
	}
	return v;
}

/* The library's addevent: one word, the kernel adds the time. */
static u64 addevent(u64 event, u64 arg)
{
	return DoControl(CMD_INSERT1, ((event & 0xFFF) << 32) | (arg & 0xFFFFFFFF));
}

/* The library's addname: one word of header, the name in up to 7 more. */
static u64 addname_cmd(u64 cmd, u64 event, u64 number, const char *name)
{
	u64 temp[8];
	size_t n = strlen(name) > 55 ? 55 : strlen(name);
	u64 len = (n + 7) / 8 + 1;

	memset(temp, 0, sizeof(temp));
	temp[0] = ((event + len * 16) << 32) | number;
	memcpy(&temp[1], name, n);
	return DoControl(cmd, (u64)(uintptr_t)temp);
}

static u64 addname(u64 event, u64 number, const char *name)
{
	return addname_cmd(CMD_INSERTN, event, number, name);
}

static u64 name_words(const char *name)
{
	return (strlen(name) + 7) / 8 + 1;
}

/* N of each insert; the names once. */
static void inserts(long n)
{
	long bad = 0, badd = 0;

	expect("INSERTN method name", addname(EV_METHODNAME, RPC_BASE, "kulib_method"),
	       name_words("kulib_method"));
	expect("INSERTN lock name", addname(EV_LOCKNAME, LOCK_HASH, "kulib_lock"),
	       name_words("kulib_lock"));
	expect("INSERTN queue name", addname(EV_QUEUE_NAME, QUEUE_NUM, "kulib_queue"),
	       name_words("kulib_queue"));
	for (long i = 0; i < n; i++) {
		u64 t0, t1, r;

		bad += addevent(EV_MARKA, base40("ka")) != 1;
		bad += addevent(EV_MARKB, base40("kb")) != 1;
		bad += addevent(EV_MARKC, base40("kc")) != 1;
		t0 = now();
		r = addevent(EV_MARKD, i);
		t1 = now();
		badd += r != 1;
		printf("markd %ld %llu %llu\n", i, (unsigned long long)t0,
		       (unsigned long long)t1);
		bad += addevent(EV_RPCIDREQ, RPC_BASE + i) != 1;
		bad += addevent(EV_RPCIDRXMSG, 64) != 1;
		bad += addevent(EV_LOCKNOACQUIRE, LOCK_HASH) != 1;
		bad += addevent(EV_LOCKACQUIRE, LOCK_HASH) != 1;
		bad += addevent(EV_ENQUEUE, QUEUE_NUM) != 1;
		bad += addevent(EV_DEQUEUE, QUEUE_NUM) != 1;
		bad += addevent(EV_LOCKWAKEUP, LOCK_HASH) != 1;
		bad += addevent(EV_RPCIDTXMSG, 64) != 1;
		bad += addevent(EV_RPCIDRESP, RPC_BASE + i) != 1;
	}
	expect_all("INSERT1 mark_d", badd, 1);
	expect_all("INSERT1 marks a/b/c, RPC, lock, queue", bad, 1);
}

/* Everything a user other than root must be refused. */
static void refused_as_user(void)
{
	static u64 buf[512];

	expect("user: ON refused", DoControl(CMD_ON, 0), ERR);
	expect("user: OFF refused", DoControl(CMD_OFF, 0), ERR);
	expect("user: RESET refused", DoControl(CMD_RESET, 0), ERR);
	expect("user: FLUSH refused", DoControl(CMD_FLUSH, 0), ERR);
	expect("user: GETWORD refused", DoControl(CMD_GETWORD, 0), ERR);
	expect("user: SET4KB refused", DoControl(CMD_SET4KB, 0), ERR);
	expect("user: GET4KB refused", DoControl(CMD_GET4KB, (u64)(uintptr_t)buf), ERR);
	expect("user: forced INSERT1 refused",
	       DoControl(CMD_INSERT1_FORCED, ((u64)EV_MARKD << 32) | 1), ERR);
	expect("user: forced INSERTN refused",
	       addname_cmd(CMD_INSERTN_FORCED, EV_METHODNAME, 1, "x"), ERR);
	expect("user: VERSION answers", DoControl(CMD_VERSION, 0), 4);
}

static void as_nobody(void)
{
	if (setgid(NOBODY) || setuid(NOBODY)) {
		perror("kulib: setuid");
		_exit(2);
	}
}

/* Counter + gettimeofday within 320 ticks of each other (docs/spec/FORMATS.md 2.5). */
static void time_pair(u64 *ctr, u64 *usec)
{
	for (int i = 0; i < 100; i++) {
		struct timeval tv;
		u64 c0 = now(), c1;

		gettimeofday(&tv, NULL);
		c1 = now();
		*ctr = c0;
		*usec = (u64)tv.tv_sec * 1000000 + tv.tv_usec;
		if (c1 - c0 <= 320)
			return;
	}
}

static void pin_cpu0(void)
{
	cpu_set_t s;

	CPU_ZERO(&s);
	CPU_SET(0, &s);
	sched_setaffinity(0, sizeof(s), &s);
}

/* The library's go, the inserts, and its stop with the 4 KiB dump. */
static int self(long n, const char *file)
{
	u64 start_ctr, start_usec, stop_ctr, stop_usec, count, blocks, r;
	u64 *trace;
	long bad4k = 0;
	FILE *f;

	pin_cpu0();
	printf("pid %d\n", getpid());
	expect("VERSION", DoControl(CMD_VERSION, 0), 4);
	expect("RESET 0", DoControl(CMD_RESET, 0), 0);
	expect("TEST after RESET", DoControl(CMD_TEST, 0), 0);
	expect("GETCOUNT after RESET", DoControl(CMD_GETCOUNT, 0), 0);
	time_pair(&start_ctr, &start_usec);
	expect("forced INSERTN pid name",
	       addname_cmd(CMD_INSERTN_FORCED, EV_PIDNAME, getpid(), "kulib"),
	       name_words("kulib"));
	expect("ON", DoControl(CMD_ON, 0), 1);
	expect("TEST while on", DoControl(CMD_TEST, 0), 1);
	inserts(n);
	expect("OFF", DoControl(CMD_OFF, 0), 0);
	usleep(20000);
	time_pair(&stop_ctr, &stop_usec);
	expect("TEST after OFF", DoControl(CMD_TEST, 0), 0);
	expect("INSERT1 while off (not in the trace)",
	       addevent(EV_MARKD, 999999), 0);
	r = DoControl(CMD_FLUSH, 0);
	expect("FLUSH answers a word count, not ~0", r == ERR, 0);
	count = DoControl(CMD_GETCOUNT, 0);
	blocks = count >> 13;
	expect("GETCOUNT is whole blocks", count & 8191, 0);
	expect("GETCOUNT not wrapped", (int64_t)count < 0, 0);
	expect("STAT = GETCOUNT / 8192", DoControl(CMD_STAT, 0), blocks);
	expect("unknown command 99", DoControl(99, 0), ERR);
	printf("blocks %llu\n", (unsigned long long)blocks);
	trace = calloc(count ? count : 1, 8);
	if (!trace)
		return 1;
	for (u64 i = 0; i < count; i += 512) {
		bad4k += DoControl(CMD_SET4KB, i) != 0;
		bad4k += DoControl(CMD_GET4KB, (u64)(uintptr_t)&trace[i]) != 0;
	}
	expect_all("SET4KB + GET4KB", bad4k, 0);
	if (count) {
		expect("GETWORD 0 = GET4KB word 0", DoControl(CMD_GETWORD, 0), trace[0]);
		expect("GETWORD 12 (first entry) = GET4KB word 12",
		       DoControl(CMD_GETWORD, 12), trace[12]);
		expect("GETWORD in the last block = GET4KB's",
		       DoControl(CMD_GETWORD, count - 8000), trace[count - 8000]);
	}
	/* As the library's DoDump: version 3, no wrap, the time pairs. */
	if (count) {
		double slope = (double)(stop_usec - start_usec) /
			       (double)(stop_ctr > start_ctr ? stop_ctr - start_ctr : 1);

		trace[1] = (trace[1] & ~(0x4FULL << 56)) | (3ULL << 56);
		trace[2] = start_ctr;
		trace[3] = start_usec;
		trace[4] = stop_ctr;
		trace[5] = stop_usec;
		for (u64 b = 0; b < blocks; b++) {
			u64 *w = &trace[b << 13];
			u64 c = w[0] & 0x00FFFFFFFFFFFFFFULL;
			u64 us = start_usec + (int64_t)((double)(c - start_ctr) * slope);

			w[1] = (w[1] & 0xFF00000000000000ULL) | (us & 0x00FFFFFFFFFFFFFFULL);
		}
	}
	f = fopen(file, "wb");
	if (!f || fwrite(trace, 8, count, f) != count || fclose(f)) {
		perror(file);
		return 1;
	}
	expect("RESET 0 at the end", DoControl(CMD_RESET, 0), 0);
	expect("GETCOUNT after the last RESET", DoControl(CMD_GETCOUNT, 0), 0);
	return fails != 0;
}

/* Inside someone else's trace, then a user child inside it too. */
static int marks(long n)
{
	pid_t p;
	int st;

	pin_cpu0();
	printf("pid %d\n", getpid());
	expect("VERSION", DoControl(CMD_VERSION, 0), 4);
	expect("TEST: the trace is on", DoControl(CMD_TEST, 0), 1);
	inserts(n);
	fflush(stdout);
	p = fork();
	if (p == 0) {
		long bad = 0;

		as_nobody();
		printf("child %d\n", getpid());
		expect("user: TEST while on", DoControl(CMD_TEST, 0), 1);
		for (long i = 0; i < n; i++)
			bad += addevent(EV_MARKD, USER_MARK_BASE + i) != 1;
		expect_all("user: INSERT1 mark_d while on", bad, 1);
		expect("user: INSERTN name while on",
		       addname(EV_METHODNAME, 7, "kulib_user"), name_words("kulib_user"));
		refused_as_user();
		expect("user: still on after the refusals", DoControl(CMD_TEST, 0), 1);
		fflush(stdout);
		_exit(fails != 0);
	}
	waitpid(p, &st, 0);
	expect("user child exit status", WIFEXITED(st) ? WEXITSTATUS(st) : 99, 0);
	expect("TEST: still on after the child", DoControl(CMD_TEST, 0), 1);
	return fails != 0;
}

static int user(void)
{
	as_nobody();
	expect("user: TEST (off)", DoControl(CMD_TEST, 0), 0);
	expect("user: INSERT1 while off refused", addevent(EV_MARKD, 1), ERR);
	expect("user: INSERTN while off refused",
	       addname(EV_METHODNAME, 1, "x"), ERR);
	refused_as_user();
	return fails != 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 4 && !strcmp(argv[1], "self"))
		return self(atol(argv[2]), argv[3]);
	if (argc == 3 && !strcmp(argv[1], "marks"))
		return marks(atol(argv[2]));
	if (argc == 2 && !strcmp(argv[1], "user"))
		return user();
	if (argc == 2 && !strcmp(argv[1], "nosys")) {
		long r;

		errno = 0;
		r = syscall(kTraceControl, CMD_VERSION, 0);
		expect("VERSION fails with ENOSYS", r == -1 && errno == ENOSYS, 1);
		return fails != 0;
	}
	fprintf(stderr, "usage: kulib self N FILE | kulib marks N | kulib user | kulib nosys\n");
	return 2;
}

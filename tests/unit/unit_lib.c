// SPDX-License-Identifier: BSD-3-Clause
/* unit_lib - cmocka unit tests of libkutrace's small pieces. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "tool.h"

/* docs/spec/FORMATS.md 1.5 worked examples. */
static void test_base40(void **state)
{
	char buf[8];

	(void)state;
	assert_int_equal(kt_base40_encode("a"), 1);
	assert_int_equal(kt_base40_encode("/a"), 79);
	assert_int_equal(kt_base40_encode("cow"), 37403);
	assert_int_equal(kt_base40_encode("hello"), 39187408);
	assert_int_equal(kt_base40_encode("/hello"), 1567496359u);
	assert_int_equal(kt_base40_encode("HELLO"), 39187408);
	assert_int_equal(kt_base40_encode("abcdefgh"), kt_base40_encode("abcdef"));
	assert_int_equal(kt_base40_encode("a b"), 1 + 38 * 40 + 2 * 1600);
	assert_string_equal(kt_base40_decode(1567496359u, buf), "/hello");
	assert_string_equal(kt_base40_decode(0, buf), "");
	assert_string_equal(kt_base40_decode(4095999999u, buf), "//////");
}

static void test_entry_words(void **state)
{
	(void)state;
	assert_int_equal(kutrace_entry_words(0x032), 3);	/* PID name */
	assert_int_equal(kutrace_entry_words(0x028), 2);	/* "read" */
	assert_int_equal(kutrace_entry_words(0x163), 6);	/* 37-byte model */
	assert_int_equal(kutrace_entry_words(0x280), 2);
	assert_int_equal(kutrace_entry_words(0x101), 2);	/* PC_TEMP */
	assert_int_equal(kutrace_entry_words(0x800), 1);
	assert_int_equal(kutrace_entry_words(0x092), 9);	/* invalid, caught */
	assert_true(kutrace_is_return(0xA01));
	assert_true(kutrace_is_return(0x60E));
	assert_false(kutrace_is_return(0x200));
	assert_true(kutrace_is_call(0xDFF));	/* scheduler entry */
	assert_false(kutrace_is_call(0xFFF));
	assert_int_equal(kutrace_map_syscall(0x200), 0x400);
	assert_int_equal(kutrace_map_syscall(1023), 0x5FF);
}

static void test_ipc_code(void **state)
{
	static const unsigned int want[29] = {
		0, 1, 2, 3, 4, 5, 6, 7, 8, 8, 9, 9, 10, 10, 11, 11,
		12, 12, 12, 12, 13, 13, 13, 13, 14, 14, 14, 14, 15,
	};

	(void)state;
	for (unsigned int v = 0; v < 29; v++)
		assert_int_equal(kutrace_ipc_code(v), want[v]);
	assert_int_equal(kutrace_ipc_code(63), 15);
	assert_int_equal(kutrace_ipc_code(64), 0);	/* & 63, as the module */
}

static void test_clean_name(void **state)
{
	char out[64];

	(void)state;
	kt_clean_name("Intel(R) Core(TM) i3-7100 CPU @ 3.90GHz", 40, out, sizeof(out));
	assert_string_equal(out, "Intel(R)Core(TM)i3-7100CPU@3.90GHz");
	kt_clean_name("Mon Sep 20 10:10:25 PDT 2021", 28, out, sizeof(out));
	assert_string_equal(out, "MonSep20_10:10:25PDT2021");
	kt_clean_name("a\"b\\c\xc3\xa9", 8, out, sizeof(out));
	assert_string_equal(out, "a\"b\\c\xc3\xa9");
	kt_clean_name("tab\there", 8, out, sizeof(out));
	assert_string_equal(out, "tab_here");
}

static void test_timebase(void **state)
{
	struct kt_timebase tb;
	char err[128], s[32];

	(void)state;
	/* 50 ticks/usec, start 2023-11-14 22:13:20 UTC = 20 s into a minute. */
	assert_int_equal(kt_timebase_init(&tb, 1000000, 1700000000000000ULL,
					  1000000 + 50000000, 1700000001000000ULL,
					  err, sizeof(err)), 0);
	assert_int_equal(kt_timebase_ns10(&tb, 1000000), 2000000000);
	assert_int_equal(kt_timebase_ns10(&tb, 1000050), 2000000100);
	kt_timebase_string(&tb, s, sizeof(s));
	assert_string_equal(s, "2023-11-14_22:13:00");
	/* A trace 20 minutes long has times beyond 999 s: no limit. */
	assert_true(kt_timebase_ns10(&tb, 1000000 + 60000000000ULL) > 99900000000LL);
	/* 200 ticks per usec is implausible. */
	assert_int_equal(kt_timebase_init(&tb, 0, 1700000000000000ULL, 200000000,
					  1700000001000000ULL, err, sizeof(err)), -1);
	/*
	 * A start counter of 2^63 or more is refused (issue 34: the tick at
	 * the base minute overflowed); just below it, times are sound.
	 */
	assert_int_equal(kt_timebase_init(&tb, 1ULL << 63, 1700000000000000ULL,
					  (1ULL << 63) + 50000000, 1700000001000000ULL,
					  err, sizeof(err)), -1);
	assert_non_null(strstr(err, "2^63 or more"));
	assert_int_equal(kt_timebase_init(&tb, UINT64_MAX, 1700000000000000ULL,
					  UINT64_MAX, 1700000001000000ULL, err, sizeof(err)), -1);
	assert_int_equal(kt_timebase_init(&tb, INT64_MAX - 50000000, 1700000000000000ULL,
					  INT64_MAX, 1700000001000000ULL, err, sizeof(err)), 0);
	/* (doubles near 2^63 are 2048 ticks apart) */
	assert_in_range(kt_timebase_ns10(&tb, INT64_MAX - 50000000), 2000000000 - 8192,
			2000000000 + 8192);
	assert_int_equal(kt_timebase_ns10(&tb, UINT64_MAX), KT_TIME_LIMIT);
}

static void test_names(void **state)
{
	(void)state;
	assert_string_equal(kt_syscall_name(0), "read");
	assert_string_equal(kt_syscall_name(39), "getpid");
	assert_string_equal(kt_errno_name(2), "ENOENT");
	assert_null(kt_syscall_name(100000));
	assert_true(kt_syscall64_count > 300);
	assert_ptr_equal(kt_intern("abc"), kt_intern("abc"));
}

/* The per-CPU merge (merge.c): what leaves, in which order, and when. */
struct got {
	int n;
	int64_t t[16];
	int cpu[16];
	int64_t arg[16];
};

static void take(void *ctx, const struct kt_event *e)
{
	struct got *g = ctx;

	g->t[g->n] = e->t;
	g->cpu[g->n] = e->cpu;
	g->arg[g->n] = e->arg;
	g->n++;
}

static void push(struct kt_merge *m, int64_t t, int cpu, int event, int64_t arg)
{
	struct kt_event e = { .t = t, .cpu = cpu, .event = event, .arg = arg,
			      .name = "" };

	kt_merge_push(m, &e);
}

static void test_merge(void **state)
{
	struct kt_merge *m = kt_merge_new();
	struct got g = { 0 };
	/* CPU 0 in order; CPU 1 with a late store (its 300 after its 400). */
	static const int64_t want_t[] = { 100, 150, 200, 300, 300, 400, 500 };
	static const int want_cpu[] = { 0, 1, 0, 0, 1, 1, 0 };

	(void)state;
	push(m, 100, 0, 0x20A, 1);
	push(m, 200, 0, 0x20A, 2);
	push(m, 150, 1, 0x20A, 3);
	push(m, 400, 1, 0x20A, 4);
	push(m, 300, 1, 0x20A, 5);	/* late store: before CPU 1's 400 */
	push(m, 300, 0, 0x20A, 6);	/* same time as CPU 1's: text order */
	push(m, 500, 0, 0x20A, 7);
	kt_merge_release(m, 300, take, &g);	/* only what is before 300 */
	assert_int_equal(g.n, 3);
	assert_int_equal(kt_merge_buffered(m), 4);
	kt_merge_release(m, INT64_MAX, take, &g);
	assert_int_equal(g.n, 7);
	assert_int_equal(kt_merge_buffered(m), 0);
	for (int i = 0; i < 7; i++) {
		assert_int_equal(g.t[i], want_t[i]);
		assert_int_equal(g.cpu[i], want_cpu[i]);
	}
	/* equal times: "... 0 ..." (CPU 0) sorts before "... 1 ..." as text */
	assert_int_equal(g.arg[3], 6);
	assert_int_equal(g.arg[4], 5);
	kt_merge_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_base40),
		cmocka_unit_test(test_entry_words),
		cmocka_unit_test(test_ipc_code),
		cmocka_unit_test(test_clean_name),
		cmocka_unit_test(test_timebase),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_merge),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: BSD-3-Clause
/*
 * unit_core - cmocka unit tests of the module's trace-buffer core
 * (module/kutrace_core.c), built unchanged in userspace through
 * module/user/ with a clock the tests set (KT_ENV_FAKE_CLOCK): block
 * claim and headers, call/return fusion, TSDELTA chains, abandoned
 * blocks, wraparound and a full buffer.  Expected words are computed
 * from docs/spec/FORMATS.md 1 and 3, never read back from the core.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "kutrace_core.h"
#include "tool.h"
#include "rawwrite.h"

#define W	KUTRACE_BLOCK_WORDS
#define NBLK	4
/* Entries of the first block start after its 12 header words, others after 6. */
#define FIRST0	(KUTRACE_HDR0_PID + 4)
#define FIRSTN	(KUTRACE_HDRN_PID + 4)

static u64 *buf;
static u64 filter[1024];
static void *slots;

static u64 ts(u64 now)
{
	return (now & KUTRACE_TS_MASK) << KUTRACE_TS_SHIFT;
}

/* A buffer of NBLK blocks holding an earlier trace's words (0xA5...). */
static int setup(void **state)
{
	(void)state;
	buf = aligned_alloc(64, NBLK * KUTRACE_BLOCK_BYTES);
	if (!buf)
		return -1;
	memset(buf, 0xA5, NBLK * KUTRACE_BLOCK_BYTES);
	kt_user_set_cpu(0);
	kt_user_set_task(42, "unit_core");
	kt_env_fake_now = 1000;
	kt_core_init(NBLK * KUTRACE_BLOCK_BYTES, buf, filter);
	slots = calloc(1, kt_core_stream_bytes(NBLK * KUTRACE_BLOCK_BYTES));
	if (!slots)
		return -1;
	kt_core_stream_init(slots);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	kt_core_reset(0);
	kt_user_set_cpu(0);
	free(buf);
	free(slots);
	return 0;
}

static void go(unsigned int flags)
{
	kt_core_reset(flags);
	kt_tracing = true;
}

/* Block i of the file: blocks are handed out downward from the top. */
static u64 *block(unsigned int i)
{
	return kt_core_block(i);
}

static void test_first_block(void **state)
{
	u64 *b;

	(void)state;
	go(0);
	kt_env_fake_now = 0x123456789ULL;
	kt_trace_1(KUTRACE_SYSCALL64 + 39, 7);
	assert_int_equal(kt_core_blocks(), 1);
	b = block(0);
	assert_ptr_equal(b, buf + NBLK * W - W);
	assert_true(b[KUTRACE_HDR_CPU_TIME] ==
		    (0x123456789ULL & KUTRACE_HDR_LOW56));
	assert_true(b[KUTRACE_HDR_FLAGS_USEC] == 0);
	for (int i = 2; i < KUTRACE_HDR0_PID; i++)
		assert_true(b[i] == 0);	/* filled in by the dump */
	assert_true(b[KUTRACE_HDR0_PID] == 42);
	assert_string_equal((const char *)&b[KUTRACE_HDR0_PID + 2], "unit_core");
	assert_true(b[FIRST0] == (ts(0x123456789ULL) |
				  kutrace_make_word(KUTRACE_SYSCALL64 + 39, 7)));
	for (int i = W - KUTRACE_BLOCK_TAIL_ZERO; i < W; i++)
		assert_true(b[i] == 0);
}

static void test_cpu_in_header(void **state)
{
	u64 *b;

	(void)state;
	go(0);
	kt_user_set_cpu(3);
	kt_trace_1(KUTRACE_MARKA, 1);
	kt_user_set_cpu(0);
	b = block(0);
	assert_true(b[KUTRACE_HDR_CPU_TIME] >> KUTRACE_HDR_CPU_SHIFT == 3);
}

static void test_fusion(void **state)
{
	unsigned int call = KUTRACE_SYSCALL64 + 39;
	unsigned int ret = KUTRACE_SYSRET64 + 39;
	u64 *b;

	(void)state;
	go(0);
	kt_env_fake_now = 5000;
	kt_trace_1(call, 0);
	kt_env_fake_now = 5010;
	kt_trace_1(ret, 3);		/* fused: delta 10, return value 3 */
	kt_env_fake_now = 6000;
	kt_trace_1(call, 0);
	kt_env_fake_now = 6000 + KUTRACE_FUSE_MAX_DELTA + 1;
	kt_trace_1(ret, 0);		/* too late to fuse: its own word */
	kt_env_fake_now = 7000;
	kt_trace_1(call, 0);
	kt_trace_1(ret, 300);		/* return value > 255: not fused */
	b = block(0);
	assert_true(b[FIRST0] == (ts(5000) | kutrace_make_word(call, 0) |
				  10ULL << KUTRACE_DELTA_SHIFT |
				  3ULL << KUTRACE_RETVAL_SHIFT));
	assert_true(b[FIRST0 + 1] == (ts(6000) | kutrace_make_word(call, 0)));
	assert_true(b[FIRST0 + 2] == (ts(6000 + KUTRACE_FUSE_MAX_DELTA + 1) |
				      kutrace_make_word(ret, 0)));
	assert_true(b[FIRST0 + 3] == (ts(7000) | kutrace_make_word(call, 0)));
	assert_true(b[FIRST0 + 4] == (ts(7000) | kutrace_make_word(ret, 300)));
}

static void test_tsdelta(void **state)
{
	u64 t1 = 2 * KUTRACE_TSDELTA_MAX_STEP + 12345;
	u64 *b;

	(void)state;
	go(0);
	kt_env_fake_now = 100;
	kt_trace_1(KUTRACE_MARKA, 1);
	kt_env_fake_now = 100 + KUTRACE_TSDELTA_THRESHOLD;	/* no TSDELTA yet */
	kt_trace_1(KUTRACE_MARKA, 2);
	kt_env_fake_now += t1;				/* three TSDELTA words */
	kt_trace_1(KUTRACE_MARKA, 3);
	b = block(0);
	assert_true(b[FIRST0 + 1] == (ts(100 + KUTRACE_TSDELTA_THRESHOLD) |
				      kutrace_make_word(KUTRACE_MARKA, 2)));
	for (int i = 0; i < 3; i++) {
		u64 step = i < 2 ? KUTRACE_TSDELTA_MAX_STEP : 12345;

		assert_true(b[FIRST0 + 2 + i] ==
			    (ts(kt_env_fake_now) |
			     kutrace_make_word(KUTRACE_TSDELTA, step)));
	}
	assert_true(b[FIRST0 + 5] == (ts(kt_env_fake_now) |
				      kutrace_make_word(KUTRACE_MARKA, 3)));
}

/* A gap needing more than 8 TSDELTA words starts a block instead. */
static void test_long_gap_new_block(void **state)
{
	u64 t = 100 + (KUTRACE_MAX_ENTRY_WORDS + 1) * KUTRACE_TSDELTA_MAX_STEP;
	u64 *b;

	(void)state;
	go(0);
	kt_env_fake_now = 100;
	kt_trace_1(KUTRACE_MARKA, 1);
	kt_env_fake_now = t;
	kt_trace_1(KUTRACE_MARKA, 2);
	assert_int_equal(kt_core_blocks(), 2);
	b = block(1);
	assert_true((b[KUTRACE_HDR_CPU_TIME] & KUTRACE_HDR_LOW56) == t);
	assert_true(b[FIRSTN] == (ts(t) | kutrace_make_word(KUTRACE_MARKA, 2)));
	/* The first block's unused words are all zero: nothing stale. */
	b = block(0);
	for (int i = FIRST0 + 1; i < W; i++)
		if (b[i] != 0)
			fail_msg("block 0 word %d holds %#llx", i, (unsigned long long)b[i]);
}

/*
 * An entry that does not fit closes the block.  Every word left unused
 * must be zero: the buffer still holds an earlier trace's words there,
 * and a reader would decode them as this trace's entries.
 */
static void test_abandoned_block_zeroed(void **state)
{
	u64 words[KUTRACE_MAX_ENTRY_WORDS] = { 0 };
	int left = 12, i;
	u64 *b;

	(void)state;
	go(0);
	kt_env_fake_now = 100;
	for (i = FIRST0; i < W - left; i++)
		kt_trace_1(KUTRACE_MARKA, (u64)i);
	/* 8 words and 4 TSDELTA words: 12 do not fit in 12 (see kt_claim_fast). */
	kt_env_fake_now = 100 + 3 * KUTRACE_TSDELTA_MAX_STEP + 1;
	kt_trace_many(KUTRACE_PIDNAME, KUTRACE_MAX_ENTRY_WORDS, words, false);
	assert_int_equal(kt_core_blocks(), 2);
	b = block(0);
	assert_true(b[W - left - 1] == (ts(100) |
		    kutrace_make_word(KUTRACE_MARKA, (u64)(W - left - 1))));
	for (i = W - left; i < W; i++)
		if (b[i] != 0)
			fail_msg("abandoned block: word %d holds %#llx", i,
				 (unsigned long long)b[i]);
}

/* Fill CPU 0's blocks with 1-word marks; returns the marks written. */
static long fill(long n)
{
	long i;

	for (i = 0; i < n && kt_tracing; i++)
		kt_trace_1(KUTRACE_MARKA, (u64)i);
	return i;
}

static void test_full_stops(void **state)
{
	(void)state;
	go(0);
	kt_env_fake_now = 100;
	fill((long)NBLK * W * 2);
	assert_false(kt_tracing);
	assert_true(kt_st.full);
	assert_false(kt_st.wrapped);
	assert_int_equal(kt_core_blocks(), NBLK);
}

static void test_wraparound(void **state)
{
	u64 *b0;
	u64 first;

	(void)state;
	go(KUTRACE_RESET_WRAP);
	kt_env_fake_now = 100;
	fill(1);
	b0 = block(0);
	first = b0[FIRST0];
	fill((long)NBLK * W * 3);
	assert_true(kt_tracing);
	assert_true(kt_st.wrapped);
	assert_false(kt_st.full);
	assert_int_equal(kt_core_blocks(), NBLK);
	/* Block 0 keeps the names: never reused. */
	assert_true(b0[FIRST0] == first);
	for (unsigned int i = 0; i < NBLK; i++) {
		u64 *b = block(i);

		assert_true((b[KUTRACE_HDR_FLAGS_USEC] >> KUTRACE_HDR_FLAGS_SHIFT) &
			    KUTRACE_FLAG_WRAP);
	}
}

/*
 * The tests' trace writer (lib/raw/rawwrite.c, behind kutrace_synth and the
 * golden traces) must lay out entries exactly as the core does: the same
 * sequence of calls gives the same entry words, block by block (headers
 * aside: the writer jitters their times as a module's block setup does).
 */
struct step {
	u64 dt;			/* ticks after the previous step */
	unsigned int event;
	u64 arg;
	int repeat;		/* marks to fill a block */
};

static void test_rawwrite_matches_core(void **state)
{
	const unsigned int call = KUTRACE_SYSCALL64 + 39, ret = KUTRACE_SYSRET64 + 39;
	const struct step steps[] = {
		{ 0, call, 0, 1 }, { 10, ret, 0, 1 },		/* fused */
		{ 100, KUTRACE_MARKA, 1, 1 },
		{ 200, call, 0, 1 }, { 400, ret, 0, 1 },	/* too late */
		{ 5, call, 0, 1 }, { 5, ret, 300, 1 },		/* value too big */
		{ 5, call, 0, 1 }, { 5, ret, (u64)-11, 1 },	/* negative: fused */
		{ 5, call, 0, 1 }, { 5, ret, (u64)-128, 1 },	/* the smallest fused */
		{ 5, call, 0, 1 }, { 5, ret, (u64)-129, 1 },	/* 16 bits kept */
		{ 5, call, 0, 1 }, { 5, ret, 100000, 1 },	/* 16 bits kept */
		{ 2 * KUTRACE_TSDELTA_MAX_STEP + 7, KUTRACE_MARKA, 2, 1 },
		/* 4 words left: the mark and its 3 TSDELTAs start block 1 */
		{ 3, KUTRACE_MARKA, 3, W - 31 },
		{ 3 * KUTRACE_TSDELTA_MAX_STEP, KUTRACE_MARKB, 4, 1 },
		{ 3, KUTRACE_MARKA, 5, W - 6 },			/* into block 2 */
		{ 9 * KUTRACE_TSDELTA_MAX_STEP + 1, KUTRACE_MARKC, 6, 1 },
		{ 1, call, 0, 1 }, { 1, ret, 0, 1 },
	};
	struct kt_rw_options o = { .ncpu = 1, .ticks_per_usec = 50.0,
				   .start_ctr = 1000, .start_usec = 1 };
	char path[] = "/tmp/unit_core_XXXXXX", err[256];
	int fd = mkstemp(path);
	struct kt_rw *rw = kt_rw_create(path, &o, err, sizeof(err));
	struct kt_raw r;
	struct kt_block *b = malloc(sizeof(*b));
	u64 t = 1000;
	long nb = 0;

	(void)state;
	assert_true(fd >= 0 && rw && b);
	close(fd);
	go(0);
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		for (int k = 0; k < steps[i].repeat; k++) {
			t += k ? 3 : steps[i].dt;
			kt_env_fake_now = t;
			kt_trace_1(steps[i].event, steps[i].arg);
			kt_rw_trace1(rw, 0, t, steps[i].event, steps[i].arg, 0);
		}
	}
	assert_int_equal(kt_rw_close(rw, t + 100, NULL), 0);
	kt_rw_free(rw);
	kt_core_flush();
	assert_int_equal(kt_raw_open(&r, path), 0);
	while (kt_raw_next(&r, b) > 0) {
		u64 *c = block(nb);

		assert_non_null(c);
		for (int i = b->first_entry; i < W; i++)
			if (b->w[i] != c[i])
				fail_msg("block %ld word %d: writer %#llx, core %#llx", nb, i,
					 (unsigned long long)b->w[i], (unsigned long long)c[i]);
		nb++;
	}
	kt_raw_close(&r);
	unlink(path);
	free(b);
	assert_int_equal(kt_core_blocks(), 4);	/* the long gap: block 3 */
	assert_int_equal(nb, 4);
}

/* Stream mode slot b: trace block b from the top (FORMATS 3.7, 10.1). */
static u64 *slot(unsigned int b)
{
	return kt_st.high - (u64)(b + 1) * W;
}

static u64 take_answer(u64 epoch, u64 b, bool first)
{
	return epoch << KUTRACE_STREAM_EPOCH_SHIFT | (b + 1) |
	       (first ? KUTRACE_STREAM_FIRST : 0);
}

/* STREAM_CUT(0) as the module runs it, CPU 0 calling, CPUs 0 and 1. */
static void cut_all(void)
{
	kt_core_new_epoch();
	kt_user_set_cpu(1);
	kt_core_cut_old_this_cpu();
	kt_user_set_cpu(0);
}

static void test_stream_blocks_complete(void **state)
{
	u64 *b;

	(void)state;
	/* STREAM wins over WRAP. */
	assert_int_equal(kt_core_reset(KUTRACE_RESET_STREAM | KUTRACE_RESET_WRAP),
			 KUTRACE_RESET_STREAM);
	kt_tracing = true;
	kt_env_fake_now = 1000;
	kt_trace_1(KUTRACE_MARKA, 1);
	kt_user_set_cpu(1);
	kt_env_fake_now = 1100;
	kt_trace_1(KUTRACE_MARKA, 2);
	kt_user_set_cpu(0);
	/* Epoch 0's first block (12 header words) went to CPU 0, slot 0. */
	b = slot(0);
	assert_true(b[KUTRACE_HDR_CPU_TIME] == 1000);
	assert_true(b[FIRST0] == (ts(1000) | kutrace_make_word(KUTRACE_MARKA, 1)));
	b = slot(1);
	assert_true(b[KUTRACE_HDR_CPU_TIME] == (1ULL << KUTRACE_HDR_CPU_SHIFT | 1100));
	assert_true(b[FIRSTN] == (ts(1100) | kutrace_make_word(KUTRACE_MARKA, 2)));
	/* Nothing is complete while both CPUs still fill their blocks. */
	assert_true(kt_core_take() == 0);
	assert_true(kt_core_blocks() == 0);
	kt_env_fake_now = 1200;
	cut_all();
	/* Completion order: the caller's CPU 0 was cut first. */
	assert_true(kt_core_take() == take_answer(0, 0, true));
	assert_true(kt_core_take() == take_answer(0, 1, false));
	assert_true(kt_core_take() == 0);
	/* A block of the new epoch is not cut: CPU 1's next one stays open. */
	kt_user_set_cpu(1);
	kt_trace_1(KUTRACE_MARKA, 9);
	kt_core_cut_old_this_cpu();
	kt_user_set_cpu(0);
	assert_true(kt_core_take() == 0);
	/* Closed blocks are zeroed after their last entry. */
	for (int i = FIRST0 + 1; i < W; i++)
		if (slot(0)[i] != 0)
			fail_msg("slot 0 word %d holds %#llx", i,
				 (unsigned long long)slot(0)[i]);
	/*
	 * Epoch 1's first block: CPU 0's, slot 2, with block 0's header and
	 * at once an entry at its time (the caller's pid).
	 */
	b = slot(2);
	assert_true(b[KUTRACE_HDR_CPU_TIME] == 1200);
	assert_true(b[KUTRACE_HDR0_PID] == 42);
	assert_true(b[FIRST0] == (ts(1200) | kutrace_make_word(KUTRACE_USERPID, 42)));
	kt_env_fake_now = 1250;
	kt_trace_1(KUTRACE_MARKB, 3);
	assert_true(b[FIRST0 + 1] == (ts(1250) | kutrace_make_word(KUTRACE_MARKB, 3)));
	assert_int_equal(kt_core_give(0), 0);
	assert_int_equal(kt_core_give(0), -1);	/* not taken (any more) */
	assert_int_equal(kt_core_give(2), -1);	/* still filling */
	assert_int_equal(kt_core_give(NBLK), -1);
	kt_core_cut_this_cpu();
	assert_true(kt_core_take() == take_answer(1, 2, true));
	/* Its next block is the oldest free slot: 0, given back (3 is CPU 1's). */
	kt_env_fake_now = 1300;
	kt_trace_1(KUTRACE_MARKC, 4);
	assert_true(slot(0)[FIRSTN] == (ts(1300) | kutrace_make_word(KUTRACE_MARKC, 4)));
	assert_true(kt_core_lost(KUTRACE_GETLOST_ENTRIES) == 0);
}

/*
 * No free slot: the CPU keeps going, drops and counts, and its next block
 * opens with a LOST entry that says exactly what and when.
 */
static void test_stream_lost_counted(void **state)
{
	const long n = 5L * W;
	long stored = 0;
	u64 r, *b;
	unsigned int got = 0;

	(void)state;
	kt_core_reset(KUTRACE_RESET_STREAM);
	kt_tracing = true;
	for (long i = 0; i < n; i++) {
		kt_env_fake_now = 100 + (u64)i;
		kt_trace_1(KUTRACE_MARKA, (u64)i);
	}
	assert_true(kt_tracing);
	/* All four blocks filled and complete; count what they hold. */
	while ((r = kt_core_take()) != 0) {
		b = slot((unsigned int)((r & KUTRACE_STREAM_SLOT_MASK) - 1));
		for (int i = got ? FIRSTN : FIRST0; i < W; i++)
			if (kutrace_word_event(b[i]) == KUTRACE_MARKA &&
			    (b[i] & KUTRACE_ARG32_MASK) == (u64)stored)
				stored++;
		got++;
	}
	assert_int_equal(got, NBLK);
	assert_int_equal(stored, (W - FIRST0 - 1) + (NBLK - 1) * (W - FIRSTN - 1));
	assert_true(kt_core_lost(KUTRACE_GETLOST_ENTRIES) == (u64)(n - stored));
	assert_true(kt_core_lost(KUTRACE_GETLOST_FIRST) == 100 + (u64)stored);
	assert_true(kt_core_lost(KUTRACE_GETLOST_LAST) == 100 + (u64)n - 1);
	assert_true(kt_core_lost(1 << 2 | KUTRACE_GETLOST_ENTRIES) == 0);
	/* The reader gives slot 2 back: the next entry gets it, after LOST. */
	assert_int_equal(kt_core_give(2), 0);
	kt_env_fake_now = 100 + (u64)n + 50;
	kt_trace_1(KUTRACE_MARKB, 777);
	b = slot(2);
	assert_true(b[FIRSTN] == (ts(kt_env_fake_now) |
		    kutrace_make_word(KUTRACE_LOST_EVENT,
				      KUTRACE_LOST_READER << KUTRACE_LOST_WHY_SHIFT)));
	assert_true(kutrace_entry_words(kutrace_word_event(b[FIRSTN])) ==
		    KUTRACE_LOST_WORDS);
	assert_true(b[FIRSTN + 1] == (u64)(n - stored));
	assert_true(b[FIRSTN + 2] == 100 + (u64)stored);
	assert_true(b[FIRSTN + 3] == 100 + (u64)n - 1);
	assert_true(b[FIRSTN + 4] == (ts(kt_env_fake_now) |
		    kutrace_make_word(KUTRACE_MARKB, 777)));
	/* GETLOST's totals stay; one more loss adds one. */
	kt_core_cut_this_cpu();
	kt_trace_1(KUTRACE_MARKB, 778);
	assert_true(kt_core_lost(KUTRACE_GETLOST_ENTRIES) == (u64)(n - stored) + 1);
}

/* Still losing when the recording ends: the LOST entry in a block alone. */
static void test_stream_lost_at_end(void **state)
{
	u64 r, *b;
	long n = 0;

	(void)state;
	kt_core_reset(KUTRACE_RESET_STREAM);
	kt_tracing = true;
	kt_env_fake_now = 100;
	while (kt_core_lost(KUTRACE_GETLOST_ENTRIES) < 5) {
		kt_trace_1(KUTRACE_MARKA, (u64)n++);
		kt_env_fake_now++;
	}
	kt_tracing = false;
	kt_core_flush();
	kt_core_lost_this_cpu();	/* no free slot yet: nothing */
	while ((r = kt_core_take()) != 0)
		assert_int_equal(kt_core_give((r & KUTRACE_STREAM_SLOT_MASK) - 1), 0);
	kt_env_fake_now = 5000;
	kt_core_lost_this_cpu();
	r = kt_core_take();
	assert_true(r == take_answer(0, 0, false));
	b = slot(0);
	assert_true(b[FIRSTN] == (ts(5000) | kutrace_make_word(KUTRACE_LOST_EVENT,
		    KUTRACE_LOST_READER << KUTRACE_LOST_WHY_SHIFT)));
	assert_true(b[FIRSTN + 1] == 5);
	assert_true(b[FIRSTN + 3] == kt_env_fake_now - 5000 + 100 + (u64)n - 1);
	assert_true(b[FIRSTN + 4] == 0);	/* closed after it */
	assert_true(kt_core_take() == 0);
	kt_core_lost_this_cpu();	/* written once */
	assert_true(kt_core_take() == 0);
}

/* The flight recorder counts the blocks it overwrites, per CPU. */
static void test_wrap_counts_overwrite(void **state)
{
	(void)state;
	go(KUTRACE_RESET_WRAP);
	kt_env_fake_now = 100;
	/* Six blocks' worth: the fifth and sixth reuse two. */
	fill((W - FIRST0 - 1) + 5L * (W - FIRSTN - 1));
	assert_true(kt_st.wrapped);
	assert_true(kt_core_lost(KUTRACE_GETLOST_BLOCKS) == 2);
	assert_true(kt_core_lost(KUTRACE_GETLOST_FIRST) == 100);
	assert_true(kt_core_lost(KUTRACE_GETLOST_ENTRIES) == 0);
}

/* cmocka's table: the same lines in every unit test, as cmocka wants them. */
int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_first_block, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cpu_in_header, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fusion, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tsdelta, setup, teardown),
		cmocka_unit_test_setup_teardown(test_long_gap_new_block, setup, teardown),
		cmocka_unit_test_setup_teardown(test_abandoned_block_zeroed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_full_stops, setup, teardown),
		cmocka_unit_test_setup_teardown(test_wraparound, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rawwrite_matches_core, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stream_blocks_complete, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stream_lost_counted, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stream_lost_at_end, setup, teardown),
		cmocka_unit_test_setup_teardown(test_wrap_counts_overwrite, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

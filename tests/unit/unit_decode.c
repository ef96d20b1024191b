// SPDX-License-Identifier: BSD-3-Clause
/*
 * unit_decode - cmocka unit tests of kt_decode_block (lib/decode/decode.c): raw
 * 64 KiB blocks to events, one test per class of entry.  The traces are
 * written by lib/raw/rawwrite.c (held equal to the module core by unit_core)
 * and read back by lib/raw/raw.c; each event is compared as its line of
 * rawtoevent text (docs/spec/FORMATS.md 4.5), with the expected lines
 * worked out from docs/spec/FORMATS.md 4 and docs/FORMAT.md.
 *
 * Every trace runs at exactly 50 ticks per usec from a start 20 s into a
 * UTC minute, so tick C0 + k is at 2,000,000,000 + 2k nsec10 (4.3).
 *
 * The tests look alike line for line on purpose: each spells out its
 * entries and expected lines in full, so that every line can be checked
 * against the spec by hand; generating them would copy the rules tested.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "tool.h"
#include "rawwrite.h"

#define C0	1000000ULL
#define U0	1700000000000000ULL	/* 2023-11-14 22:13:20 UTC */
#define MAXEV	64
#define MAXBLK	8

static int64_t T(uint64_t ticks)
{
	return 2000000000 + 2 * (int64_t)(ticks - C0);
}

struct got {
	int n;
	char line[MAXEV][200];
};

static struct kt_rw *rw;
static char path[64];
static struct kt_block *blk[MAXBLK];
static int nblk;

static void take(void *ctx, const struct kt_event *e)
{
	struct got *g = ctx;

	if (g->n < MAXEV)
		kt_event_line(g->line[g->n], sizeof(g->line[0]), e);
	g->n++;
}

/* A trace of ncpu CPUs; CPU 0 runs pid 1234 "hello". */
static void begin(int ncpu, int ipc)
{
	struct kt_rw_options o = {
		.ncpu = ncpu, .ipc = ipc, .ticks_per_usec = 50.0,
		.start_ctr = C0, .start_usec = U0, .seed = 7,
	};
	char err[256];
	int fd;

	snprintf(path, sizeof(path), "/tmp/unit_decode_XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	rw = kt_rw_create(path, &o, err, sizeof(err));
	assert_non_null(rw);
	kt_rw_set_task(rw, 0, 1234, "hello");
}

static void t1(int cpu, uint64_t k, unsigned int event, uint64_t arg)
{
	kt_rw_trace1(rw, cpu, C0 + k, event, arg, 0);
}

static void name(int cpu, uint64_t k, unsigned int type, uint32_t arg, const char *s)
{
	kt_rw_name(rw, cpu, C0 + k, type, arg, s);
}

static int keep_block(void *ctx, const struct kt_block *b)
{
	(void)ctx;
	assert_true(nblk < MAXBLK);
	blk[nblk] = malloc(sizeof(*b));
	assert_non_null(blk[nblk]);
	memcpy(blk[nblk++], b, sizeof(*b));
	return 0;
}

/* Close the trace (stop at tick C0 + stop) and read its blocks. */
static void finish(uint64_t stop)
{
	struct kt_raw r;

	stop = (stop + 49) / 50 * 50;	/* a whole number of usec: exactly 50/usec */
	assert_int_equal(kt_rw_close(rw, C0 + stop, NULL), 0);
	kt_rw_free(rw);
	rw = NULL;
	assert_int_equal(kt_raw_open(&r, path), 0);
	nblk = 0;
	assert_int_equal(kt_raw_each(&r, keep_block, NULL), 0);
	kt_raw_close(&r);
	unlink(path);
}

/* Decode the blocks read (prescan first, as the tools do); -1 on damage. */
static int decode(struct got *g, char *err, size_t errlen)
{
	struct kt_raw r;
	struct kt_decoder *d;
	int rc = 0;

	memset(&r, 0, sizeof(r));
	r.path = "unit";
	r.file_flags = blk[0]->flags;
	r.start_ctr = C0;
	r.start_usec = U0;
	r.stop_ctr = blk[0]->w[KUTRACE_HDR_STOP_CTR];
	r.stop_usec = blk[0]->w[KUTRACE_HDR_STOP_USEC];
	d = kt_decoder_new(&r, take, g, err, errlen);
	assert_non_null(d);
	g->n = 0;
	for (int i = 0; i < nblk; i++)
		kt_decoder_prescan(d, blk[i]);
	for (int i = 0; i < nblk && rc == 0; i++) {
		rc = kt_decode_block(d, blk[i]);
		if (rc < 0)
			snprintf(err, errlen, "%s", kt_decoder_err(d));
	}
	kt_decoder_free(d);
	return rc;
}

static void free_blocks(void)
{
	for (int i = 0; i < nblk; i++)
		free(blk[i]);
	nblk = 0;
}

static void expect(const struct got *g, const char *const *want, int n)
{
	int bad = g->n != n;

	for (int i = 0; i < n && i < g->n; i++)
		bad |= strcmp(g->line[i], want[i]) != 0;
	if (!bad)
		return;
	for (int i = 0; i < n || i < g->n; i++)
		print_message("%2d %-60s | %s\n", i, i < g->n ? g->line[i] : "(none)",
			      i < n ? want[i] : "(none)");
	fail_msg("%d events, %d expected (got | want above)", g->n, n);
}

/* The name record a block header gives its task, at the block's time. */
static void header_name(char *buf, size_t len, const struct kt_block *b,
			int ev, int pid, const char *s)
{
	snprintf(buf, len, "%" PRId64 " 1 %d %d %s", T(b->base), ev, pid, s);
}

static struct got g;

/* Decode the blocks read, compare the events with want, free the blocks. */
static void decoded(const char *const *want, int n)
{
	char err[256];

	assert_int_equal(decode(&g, err, sizeof(err)), 0);
	expect(&g, want, n);
	free_blocks();
}

/*
 * Syscalls: fused pairs (duration 2 * delta, retval the sign-extended byte
 * masked to 16 bits), unfused calls and returns (arg 0, retval = the
 * return's arg, name "/" + the call's), returns too big to fuse, and an
 * unnamed call (prefix s32#, number = event & 0x1FF).  The first block
 * opens with the header's name record and, at the block's first time,
 * the switch to its task (4.1 step 3; docs/FORMAT.md: duration 1, arg 0).
 */
static void test_syscalls(void **state)
{
	char h[128];

	(void)state;
	begin(1, 0);
	name(0, 10, KUTRACE_SYSCALL64NAME, 0, "read");
	name(0, 20, KUTRACE_SYSCALL64NAME, 1, "write");
	t1(0, 100, KUTRACE_SYSCALL64 + 0, 3);
	t1(0, 110, KUTRACE_SYSRET64 + 0, (uint64_t)-11);	/* fused, retval byte 0xF5 */
	t1(0, 1000, KUTRACE_SYSCALL64 + 1, 1);
	t1(0, 2000, KUTRACE_SYSRET64 + 1, 12);			/* too late */
	t1(0, 3000, KUTRACE_SYSCALL64 + 0, 4);
	t1(0, 3005, KUTRACE_SYSRET64 + 0, 300);			/* too big */
	t1(0, 4000, KUTRACE_SYSCALL32 + 5, 0);
	t1(0, 4001, KUTRACE_SYSRET32 + 5, 0);			/* fused */
	finish(5000);
	header_name(h, sizeof(h), blk[0], 34, 1234, "hello");
	const char *want[] = {
		h,
		"2000000020 1 40 0 read",
		"2000000040 1 40 1 write",
		"2000000020 1 512 0  1234 0  0 0 0 hello.1234 (200)",
		"2000000200 20 2048 0  1234 0  3 65525 0 read (800)",
		"2000002000 0 2049 0  1234 0  1 0 0 write (801)",
		"2000004000 0 2561 0  1234 0  0 12 0 /write (a01)",
		"2000006000 0 2048 0  1234 0  4 0 0 read (800)",
		"2000006010 0 2560 0  1234 0  0 300 0 /read (a00)",
		"2000008000 2 3077 0  1234 0  0 0 0 s32#5 (c05)",
	};
	decoded(want, 10);
}

/*
 * Traps, interrupts, bottom halves and PC samples (4.4): names from
 * TRAPNAME/INTERRUPTNAME entries, "trp#N" without one; "arch_timer" (or
 * "local_timer...") makes its vector the timer interrupt, and a PC sample moves to just
 * before that interrupt (0x281 for a kernel PC, arg the colour hash
 * (PC >> 6) & 0xFFFF), after a -freq- point with the sample's MHz; a
 * bottom half and its return carry the softirq's name (docs/FORMAT.md 22).
 */
static void test_traps_irqs(void **state)
{
	char h[128];

	(void)state;
	begin(1, 0);
	name(0, 10, KUTRACE_TRAPNAME, 14, "page_fault");
	name(0, 20, KUTRACE_INTERRUPTNAME, 27, "arch_timer");
	t1(0, 100, KUTRACE_TRAP + 14, 0x1234);
	t1(0, 150, KUTRACE_TRAPRET + 14, 0);			/* fused */
	t1(0, 1000, KUTRACE_IRQ + 27, 0);
	t1(0, 1400, KUTRACE_IRQRET + 27, 0);
	kt_rw_trace2(rw, 0, C0 + 1410, KUTRACE_PC_U, 2400, 0xffffffff81234540ULL);
	t1(0, 2000, KUTRACE_IRQ + KUTRACE_IRQ_BH, 3);
	t1(0, 2600, KUTRACE_IRQRET + KUTRACE_IRQ_BH, 0);
	t1(0, 3000, KUTRACE_TRAP + 200, 0);
	t1(0, 3300, KUTRACE_TRAPRET + 200, 0);
	finish(5000);
	header_name(h, sizeof(h), blk[0], 34, 1234, "hello");
	const char *want[] = {
		h,
		"2000000020 1 52 14 page_fault",
		"2000000040 1 53 27 arch_timer",
		"2000000020 1 512 0  1234 0  0 0 0 hello.1234 (200)",
		"2000000200 100 1038 0  1234 0  4660 0 0 page_fault (40e)",
		"2000002000 0 1307 0  1234 0  0 0 0 arch_timer (51b)",
		"2000002800 0 1819 0  1234 0  0 0 0 /arch_timer (71b)",
		"2000002820 1 521 0  1234 0  2400 0 0 -freq- (209)",
		"2000001999 0 641 0  1234 0  36117 0 0 PC=ffffffff81234540 (281)",
		"2000004000 0 1535 0  1234 0  3 0 0 BH:rx (5ff)",
		"2000005200 0 2047 0  1234 0  0 0 0 /BH:rx (7ff)",
		"2000006000 0 1224 0  1234 0  0 0 0 trp#200 (4c8)",
		"2000006600 0 1736 0  1234 0  0 0 0 /trp#200 (6c8)",
	};
	decoded(want, 13);
}

/*
 * The scheduler and context switches: unnamed 0xDFF/0xFFF are -sched- and
 * /-sched-; a switch makes its pid the CPU's (arg = pid, name "name.pid",
 * duration 0); a pid above 16 bits falls back to its low-16-bit name; pid
 * 0 is always -idle-; a name record for pid 0 is passed on but renames
 * nothing; a FreeBSD "idle:" name of another pid is dropped.
 */
static void test_switch_names(void **state)
{
	char h[128];

	(void)state;
	begin(1, 0);
	name(0, 10, KUTRACE_PIDNAME, 77, "worker");
	name(0, 20, KUTRACE_PIDNAME, 100000 & 0xFFFF, "old16");
	t1(0, 100, KUTRACE_SCHED_CALL, 0);
	t1(0, 110, KUTRACE_USERPID, 77);
	t1(0, 120, KUTRACE_SCHED_RET, 0);
	t1(0, 200, KUTRACE_USERPID, 100000);
	t1(0, 300, KUTRACE_USERPID, 0);
	t1(0, 400, KUTRACE_USERPID, 99);
	name(0, 500, KUTRACE_PIDNAME, 0, "swapper");
	name(0, 510, KUTRACE_PIDNAME, 55, "idle:cpu1");
	t1(0, 600, KUTRACE_USERPID, 0);
	t1(0, 700, KUTRACE_USERPID, 55);
	finish(5000);
	header_name(h, sizeof(h), blk[0], 34, 1234, "hello");
	const char *want[] = {
		h,
		"2000000020 1 34 77 worker",
		"2000000040 1 34 34464 old16",
		"2000000020 1 512 0  1234 0  0 0 0 hello.1234 (200)",
		"2000000200 0 3583 0  1234 0  0 0 0 -sched- (dff)",
		"2000000220 0 512 0  77 0  77 0 0 worker.77 (200)",
		"2000000240 0 4095 0  77 0  0 0 0 /-sched- (fff)",
		"2000000400 0 512 0  100000 0  100000 0 0 old16.100000 (200)",
		"2000000600 0 512 0  0 0  0 0 0 -idle-.0 (200)",
		"2000000800 0 512 0  99 0  99 0 0 .99 (200)",
		"2000001000 1 34 0 swapper",
		"2000001200 0 512 0  0 0  0 0 0 -idle-.0 (200)",
		"2000001400 0 512 0  55 0  55 0 0 .55 (200)",
	};
	decoded(want, 13);
}

/*
 * Point events (1.5, 1.6, 4.4): duration 1, all 32 bits of arg; marks
 * with their base-40 label, mark_d a number; runnable.pid; lock events
 * named after the lock (a name entry later in the trace: the prescan),
 * or its number; packet hashes as four hex digits; a reserved special
 * as spl#N; 0x218 once (docs/FORMAT.md 22).
 */
static void test_points(void **state)
{
	char h[128];

	(void)state;
	begin(1, 0);
	t1(0, 100, KUTRACE_MARKA, 39187408);
	t1(0, 110, KUTRACE_MARKB, 79);
	t1(0, 120, KUTRACE_MARKD, 4000000000U);
	t1(0, 130, KUTRACE_RUNNABLE, 77);
	t1(0, 140, KUTRACE_IPI, 1);
	t1(0, 150, KUTRACE_MWAIT, 0x20);
	t1(0, 160, KUTRACE_LOCKNOACQUIRE, 5);
	t1(0, 165, KUTRACE_LOCKACQUIRE, 6);
	t1(0, 170, KUTRACE_RX_PKT, 0x12345678);
	t1(0, 180, 0x220, 9);
	t1(0, 190, KUTRACE_MBIT_SEC, 10000);
	name(0, 200, KUTRACE_LOCKNAME, 5, "biglock");
	finish(5000);
	header_name(h, sizeof(h), blk[0], 34, 1234, "hello");
	const char *want[] = {
		h,
		"2000000199 1 512 0  1234 0  0 0 0 hello.1234 (200)",
		"2000000200 1 522 0  1234 0  39187408 0 0 mark_a=hello (20a)",
		"2000000220 1 523 0  1234 0  79 0 0 mark_b=/a (20b)",
		"2000000240 1 525 0  1234 0  4000000000 0 0 mark_d (20d)",
		"2000000260 1 518 0  1234 0  77 0 0 runnable.77 (206)",
		"2000000280 1 519 0  1234 0  1 0 0 sendipi (207)",
		"2000000300 1 520 0  1234 0  32 0 0 mwait (208)",
		"2000000320 1 528 0  1234 0  5 0 0 try_biglock (210)",
		"2000000330 1 529 0  1234 0  6 0 0 acq_6 (211)",
		"2000000340 1 532 0  1234 0  305419896 0 0 rx.444C (214)",
		"2000000360 1 544 0  1234 0  9 0 0 spl#32 (220)",
		"2000000380 1 536 0  1234 0  10000 0 0 mbs (218)",
		"2000000400 1 39 5 biglock",
	};
	decoded(want, 14);
}

/*
 * RPCs (4.4): a non-zero id becomes the CPU's rpc (16 bits; arg keeps
 * lglen8), named method.rpc from a METHODNAME entry met later (prescan);
 * the end (id 0) still carries the id it ends, and clears it after.
 */
static void test_rpc(void **state)
{
	char h[128];

	(void)state;
	begin(1, 0);
	t1(0, 100, KUTRACE_RPCIDREQ, (100 << 16) | 42);
	t1(0, 110, KUTRACE_MARKA, 1);
	t1(0, 120, KUTRACE_RPCIDRESP, 0);
	t1(0, 130, KUTRACE_MARKA, 1);
	name(0, 200, KUTRACE_METHODNAME, 42, "getUser");
	finish(5000);
	header_name(h, sizeof(h), blk[0], 34, 1234, "hello");
	const char *want[] = {
		h,
		"2000000199 1 512 0  1234 0  0 0 0 hello.1234 (200)",
		"2000000200 1 513 0  1234 42  6553642 0 0 getUser.42 (201)",
		"2000000220 1 522 0  1234 42  1 0 0 mark_a=a (20a)",
		"2000000240 1 514 0  1234 42  0 0 0 .0 (202)",
		"2000000260 1 522 0  1234 0  1 0 0 mark_a=a (20a)",
		"2000000400 1 35 42 getUser",
	};
	decoded(want, 7);
}

/*
 * TSDELTA (1.8, 4.2): a chain of three words carries a gap of 2 maximum
 * steps + 12345 ticks and writes nothing; a gap needing more than 8 words
 * starts a new block instead, whose header has the full time (its name
 * record at the header time, no second switch: not the CPU's first block).
 */
static void test_tsdelta(void **state)
{
	const uint64_t gap = 2 * KUTRACE_TSDELTA_MAX_STEP + 12345;
	const uint64_t far = 9 * KUTRACE_TSDELTA_MAX_STEP + 1;
	char h[128], h1[128], m2[128], m3[128];
	int tsd = 0;

	(void)state;
	begin(1, 0);
	t1(0, 100, KUTRACE_MARKA, 1);
	t1(0, 100 + gap, KUTRACE_MARKA, 2);
	t1(0, 100 + gap + far, KUTRACE_MARKA, 3);
	finish(100 + gap + far + 100);
	assert_int_equal(nblk, 2);
	for (int i = blk[0]->first_entry; i < KUTRACE_BLOCK_WORDS; i++)
		tsd += kutrace_word_event(blk[0]->w[i]) == KUTRACE_TSDELTA;
	assert_int_equal(tsd, 3);	/* the chain is really there */
	header_name(h, sizeof(h), blk[0], 34, 1234, "hello");
	header_name(h1, sizeof(h1), blk[1], 34, 1234, "hello");
	snprintf(m2, sizeof(m2), "%" PRId64 " 1 522 0  1234 0  2 0 0 mark_a=b (20a)",
		 T(C0 + 100 + gap));
	snprintf(m3, sizeof(m3), "%" PRId64 " 1 522 0  1234 0  3 0 0 mark_a=c (20a)",
		 T(C0 + 100 + gap + far));
	const char *want[] = {
		h,
		"2000000199 1 512 0  1234 0  0 0 0 hello.1234 (200)",
		"2000000200 1 522 0  1234 0  1 0 0 mark_a=a (20a)",
		m2,
		h1,
		m3,
	};
	assert_string_equal(m2, "6000024890 1 522 0  1234 0  2 0 0 mark_a=b (20a)");
	decoded(want, 6);
}

/*
 * The IPC column (2.3) is the entry's side byte: the low nibble written
 * with the entry, the high one by the return fused into it.
 */
static void test_ipc(void **state)
{
	char h[128];

	(void)state;
	begin(1, 1);
	kt_rw_trace1(rw, 0, C0 + 100, KUTRACE_TRAP + 14, 0, 3);
	kt_rw_trace1(rw, 0, C0 + 110, KUTRACE_TRAPRET + 14, 0, 5);
	kt_rw_trace1(rw, 0, C0 + 120, KUTRACE_MARKA, 1, 7);
	finish(5000);
	header_name(h, sizeof(h), blk[0], 34, 1234, "hello");
	const char *want[] = {
		h,
		"2000000199 1 512 0  1234 0  0 0 0 hello.1234 (200)",
		"2000000200 20 1038 0  1234 0  0 0 83 trp#14 (40e)",
		"2000000240 1 522 0  1234 0  1 0 7 mark_a=a (20a)",
	};
	decoded(want, 4);
}

/*
 * First blocks of CPUs (4.1 step 3): CPU 1's task is pid 0, named -idle-
 * (its name record passed on), and its header's MHz adds a -freq- point
 * after the switch; CPU 2 holds only a name entry, so its switch comes at
 * the block's end, at its first time.  The architecture named by the
 * backend entry names the calls the trace does not (docs/FORMAT.md).
 */
static void test_first_blocks(void **state)
{
	char h0[128], h1[128], h2[128];

	(void)state;
	begin(3, 0);
	kt_rw_set_task(rw, 2, 300, "idle:2");
	name(0, 10, KUTRACE_BACKEND_NAME, 2, "tracepoint: x");
	t1(0, 100, KUTRACE_SYSCALL64 + 39, 0);
	t1(1, 200, KUTRACE_SYSCALL64 + 39, 0);
	name(2, 300, KUTRACE_PIDNAME, 300, "kworker");
	finish(5000);
	assert_int_equal(nblk, 3);
	blk[1]->mhz = 1800;
	header_name(h0, sizeof(h0), blk[0], 34, 1234, "hello");
	header_name(h1, sizeof(h1), blk[1], 34, 0, "-idle-");
	header_name(h2, sizeof(h2), blk[2], 34, 0, "-idle-");
	assert_int_equal(blk[1]->cpu, 1);
	const char *want[] = {
		h0,
		"2000000020 1 311 2 tracepoint:x",
		"2000000020 1 512 0  1234 0  0 0 0 hello.1234 (200)",
		"2000000200 0 2087 0  1234 0  0 0 0 getpid (827)",
		h1,
		"2000000399 1 512 1  0 0  0 0 0 -idle-.0 (200)",
		"2000000399 1 521 1  0 0  1800 0 0 -freq- (209)",
		"2000000400 0 2087 1  0 0  0 0 0 getpid (827)",
		h2,
		"2000000600 1 34 300 kworker",
		"2000000600 1 512 2  0 0  0 0 0 -idle-.0 (200)",
	};
	decoded(want, 11);
}

/*
 * Damaged and special words (2.2, docs/FORMAT.md): a word with time
 * 0xFFFFF and event 0xFFF is skipped, an all-ones word ends the block;
 * an event no tracer writes or a name entry of length 0 is damage,
 * reported as "block B word W: what" with nothing after it decoded.
 */
static void test_damage(void **state)
{
	char err[256];
	int e;

	(void)state;
	begin(1, 0);
	for (int i = 0; i < 4; i++)
		t1(0, 100 + 10 * (uint64_t)i, KUTRACE_MARKA, (uint64_t)i + 1);
	finish(5000);
	e = blk[0]->first_entry;
	/* skipped word in place of mark 2, all ones in place of mark 4 */
	blk[0]->w[e + 1] = 0xFFFFFFFF00000000ULL | 0x1234;
	blk[0]->w[e + 3] = KUTRACE_WORD_END;
	assert_int_equal(decode(&g, err, sizeof(err)), 0);
	assert_int_equal(g.n, 4);	/* name, switch, marks 1 and 3 */
	assert_string_equal(g.line[2], "2000000200 1 522 0  1234 0  1 0 0 mark_a=a (20a)");
	assert_string_equal(g.line[3], "2000000240 1 522 0  1234 0  3 0 0 mark_a=c (20a)");

	blk[0]->w[e + 1] = (blk[0]->w[e] & ~0xFFFFFFFFFFFULL) | 0x300ULL << 32;
	assert_int_equal(decode(&g, err, sizeof(err)), -1);
	assert_int_equal(g.n, 0);
	char want[160];

	snprintf(want, sizeof(want),
		 "block 0 word %d: garbage word %016" PRIx64
		 " (event 0x300 is never written by a tracer)", e + 1, blk[0]->w[e + 1]);
	assert_string_equal(err, want);

	blk[0]->w[e + 1] = (blk[0]->w[e] & ~0xFFFFFFFFFFFULL) | 0x002ULL << 32 | 7;
	assert_int_equal(decode(&g, err, sizeof(err)), -1);
	snprintf(want, sizeof(want),
		 "block 0 word %d: name entry 0x002 with length nibble 0 (must be 1..8)", e + 1);
	assert_string_equal(err, want);
	free_blocks();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_syscalls),
		cmocka_unit_test(test_traps_irqs),
		cmocka_unit_test(test_switch_names),
		cmocka_unit_test(test_points),
		cmocka_unit_test(test_rpc),
		cmocka_unit_test(test_tsdelta),
		cmocka_unit_test(test_ipc),
		cmocka_unit_test(test_first_blocks),
		cmocka_unit_test(test_damage),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

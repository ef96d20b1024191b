// SPDX-License-Identifier: BSD-3-Clause
/*
 * mkraw - test helper: writes a small, valid raw KUtrace file, or one with
 * exactly one kind of damage, for the checktrace / kutrace_dump tests.
 *
 *   mkraw <damage> > file.trace
 *
 * damage: ok, size (not a multiple of 8 KiB), short (< 64 KiB), version2,
 * startstop (start after stop), gtod (gettimeofday in 2010), order (block 2
 * earlier than block 1), overrun (name entry crossing the block end),
 * notrap, nosyscall, noname, noctxsw, cpu (CPU 200 in a header), rate
 * (counter rate 5 ticks/usec), side (IPC flag but the side block missing).
 *
 * Built by tests/t_tools.sh with `cc -Iinclude`; uses only format.h.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kutrace/format.h"

#define C0 1000000000ULL		/* start counter */
#define U0 1700000000000000ULL		/* 2023-11-14, usec */
#define RATE 50ULL			/* ticks per usec */

static uint64_t blk[KUTRACE_BLOCK_WORDS];
static int pos;

static void put(uint64_t w)
{
	blk[pos++] = w;
}

static void ev(uint64_t t, unsigned int event, uint64_t arg)
{
	put(((t & KUTRACE_TS_MASK) << KUTRACE_TS_SHIFT) | kutrace_make_word(event, arg));
}

static void name(uint64_t t, unsigned int type, uint64_t arg, const char *s)
{
	uint64_t words[8] = { 0 };
	size_t n = strlen(s);
	unsigned int len = 1 + (unsigned int)((n + 7) / 8);

	memcpy(words, s, n);
	ev(t, type + 16 * len, arg);
	for (unsigned int i = 0; i + 1 < len; i++)
		put(words[i]);
}

int main(int argc, char **argv)
{
	const char *d = argc > 1 ? argv[1] : "ok";
	uint64_t rate = strcmp(d, "rate") == 0 ? 5 : RATE;
	uint64_t c1 = C0 + rate * 2000000, u1 = U0 + 2000000;	/* 2 s trace */

	for (int b = 0; b < 3; b++) {
		uint64_t base = C0 + (uint64_t)(b + 1) * rate * 100000;	/* 0.1 s apart */
		uint64_t usec = U0 + (uint64_t)(b + 1) * 100000;
		/* One block per CPU: a CPU leaves a block only when it is full. */
		unsigned int cpu = (unsigned int)b, flags = 0;

		if (strcmp(d, "order") == 0 && b == 2)
			base = C0 + rate * 50000, usec = U0 + 50000;
		if (strcmp(d, "cpu") == 0 && b == 1)
			cpu = 200;
		memset(blk, 0, sizeof(blk));
		if (b == 0) {
			flags = strcmp(d, "version2") == 0 ? 2 : KUTRACE_FILE_VERSION;
			if (strcmp(d, "side") == 0)
				flags |= KUTRACE_FLAG_IPC;
		}
		put(((uint64_t)cpu << KUTRACE_HDR_CPU_SHIFT) | base);
		put(((uint64_t)flags << KUTRACE_HDR_FLAGS_SHIFT) | usec);
		if (b == 0) {
			if (strcmp(d, "startstop") == 0)
				put(c1), put(u1), put(C0), put(U0);
			else if (strcmp(d, "gtod") == 0)
				put(C0), put(1262304000000000ULL), put(c1), put(1262304002000000ULL);
			else
				put(C0), put(U0), put(c1), put(u1);
			put(0), put(0);
		}
		put(1234);				/* pid */
		put(0);					/* reserved */
		put(0x5f6563617274756bULL);		/* "kutrace_" */
		put(0x6c6f72746e6f63ULL);		/* "control" */
		uint64_t t = base;

		if (b == 0 && strcmp(d, "noname") != 0) {
			name(t, KUTRACE_PIDNAME, 1234, "kutrace_control");
			name(t, KUTRACE_SYSCALL64NAME, 0, "read");
		}
		for (int k = 0; k < 20; k++) {
			t += 10;
			if (strcmp(d, "noctxsw") != 0)
				ev(t, KUTRACE_USERPID, 1234);
			if (strcmp(d, "nosyscall") != 0) {
				ev(t + 1, KUTRACE_SYSCALL64, 3);
				ev(t + 2, KUTRACE_SYSRET64, 0);
			}
			if (strcmp(d, "notrap") != 0) {
				ev(t + 3, KUTRACE_TRAP + KUTRACE_TRAP_PAGEFAULT, 0);
				ev(t + 4, KUTRACE_TRAPRET + KUTRACE_TRAP_PAGEFAULT, 0);
			}
			ev(t + 5, KUTRACE_IRQ + KUTRACE_IRQ_LOCAL_TIMER, 0);
			ev(t + 6, KUTRACE_IRQRET + KUTRACE_IRQ_LOCAL_TIMER, 0);
			ev(t + 7, KUTRACE_RUNNABLE, 99);
			ev(t + 8, KUTRACE_PC_U, 2400);
			put(0x00005555555551a9ULL);
		}
		if (strcmp(d, "overrun") == 0 && b == 1) {
			/* A 3-word name entry in the last two words. */
			pos = KUTRACE_BLOCK_WORDS - 2;
			ev(t + 20, KUTRACE_PIDNAME + 16 * 3, 77);
			put(0x41414141);
		}
		if (strcmp(d, "short") == 0) {
			fwrite(blk, sizeof(blk) / 2, 1, stdout);
			return 0;
		}
		fwrite(blk, sizeof(blk), 1, stdout);
		if (flags & KUTRACE_FLAG_SIDE && strcmp(d, "side") != 0) {
			static uint8_t side[KUTRACE_SIDE_BYTES];

			fwrite(side, sizeof(side), 1, stdout);
		}
		pos = 0;
	}
	if (strcmp(d, "size") == 0)
		fwrite(blk, 1000, 1, stdout);
	return 0;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Shared by the libFuzzer targets (tests/fuzz/fuzz_*.c, built by
 * tests/fuzz.mk with -Wl,--wrap=kt_die): a library error ends one input
 * with a longjmp instead of exit(), and inputs become files in memory.
 */
#ifndef KT_FUZZ_H
#define KT_FUZZ_H
#include <setjmp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include "tool.h"

static jmp_buf fz_jmp;
static int fz_armed;

/* kt_die: an error exit of a program is a normal outcome for garbage. */
void __wrap_kt_die(const char *fmt, ...);
void __wrap_kt_die(const char *fmt, ...)
{
	(void)fmt;
	if (!fz_armed)
		abort();
	longjmp(fz_jmp, 1);
}

/*
 * The end of an input: names interned for it go, or the table would grow
 * with every input's names (~0.6 KB per input of fuzz_events) until the
 * RSS limit ends the run short of its executions.
 */
__attribute__((unused)) static void fz_done(void)
{
	kt_intern_reset();
}

/* A memfd holding the input; its /proc path in path (size 64). */
__attribute__((unused)) static int fz_memfd(const uint8_t *d, size_t n, char *path)
{
	int fd = memfd_create("fuzz", 0);

	if (fd < 0)
		abort();
	if (n && write(fd, d, n) != (ssize_t)n)
		abort();
	lseek(fd, 0, SEEK_SET);
	snprintf(path, 64, "/proc/self/fd/%d", fd);
	return fd;
}

/* Every name must come out as valid UTF-8 (docs/FORMAT.md 21). */
__attribute__((unused)) static void fz_assert_utf8(const char *s, size_t n)
{
	for (size_t i = 0; i < n;) {
		size_t k = kt_utf8_seq((const unsigned char *)s + i);

		if (!k) {
			fprintf(stderr, "invalid UTF-8 at byte %zu of %.*s\n", i, (int)n, s);
			abort();
		}
		i += k;
	}
}
#endif

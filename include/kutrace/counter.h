/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * kutrace/counter.h - the time counter the module stamps entries with, as
 * user code reads it (docs/spec/FORMATS.md 3.5): x86-64 rdtsc >> 6, arm64
 * the architected virtual counter CNTVCT_EL0 unshifted (Linux lets EL0
 * read it and CNTFRQ_EL0), riscv64 the time CSR unshifted (rdtime; its
 * rate is the device tree's timebase-frequency, a big-endian 32-bit cell).
 */
#ifndef KUTRACE_COUNTER_H
#define KUTRACE_COUNTER_H

#include <stdint.h>
#include "kutrace/format.h"

#if defined(__aarch64__)
static inline uint64_t kt_counter_now(void)
{
	uint64_t v;

	__asm__ __volatile__("isb; mrs %0, cntvct_el0" : "=r"(v) : : "memory");
	return v;
}

/* Counter ticks per microsecond; 0 if unknown (then guess from the CPU). */
static inline double kt_counter_ticks_per_usec(void)
{
	uint64_t hz;

	__asm__ __volatile__("mrs %0, cntfrq_el0" : "=r"(hz));
	return (double)hz / 1e6;
}
#elif defined(__riscv) && __riscv_xlen == 64
#include <stdio.h>

static inline uint64_t kt_counter_now(void)
{
	uint64_t v;

	__asm__ __volatile__("rdtime %0" : "=r"(v) : : "memory");
	return v;
}

static inline double kt_counter_ticks_per_usec(void)
{
	FILE *f = fopen("/proc/device-tree/cpus/timebase-frequency", "rb");
	unsigned char b[4];
	size_t n = 0;

	if (f) {
		n = fread(b, 1, sizeof(b), f);
		fclose(f);
	}
	if (n != sizeof(b))
		return 0;
	return (double)((uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 |
			(uint32_t)b[2] << 8 | b[3]) / 1e6;
}
#elif defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>

static inline uint64_t kt_counter_now(void)
{
	return __rdtsc() >> KUTRACE_TSC_SHIFT;
}

static inline double kt_counter_ticks_per_usec(void)
{
	return 0;	/* the TSC rate: from the CPU clock */
}
#else
#error "kutrace: no time counter for this architecture (x86-64, arm64, riscv64)"
#endif

#endif /* KUTRACE_COUNTER_H */

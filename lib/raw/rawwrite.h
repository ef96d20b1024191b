/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rawwrite.h - write raw KUtrace files the way the kernel module
 * and the control program would (docs/spec/FORMATS.md 2, 3.2-3.6).
 *
 * The writer owns the per-CPU "module" state: current block, next free
 * word, prior timestamp.  It allocates 64 KiB blocks in allocation order
 * (= file order), fuses returns into their calls with the module's exact
 * rule, prefixes TSDELTA words for long gaps (a new block instead when
 * they would be more than 8, or when the entry does not fit: the header
 * has the full time), fills the IPC side blocks and handles wraparound
 * (allocation restarts at file block 1).  tests/unit/unit_core.c holds its
 * entry words equal to the module core's.  Callers pass full tick values;
 * timestamps are truncated to 20 bits here.
 */
#ifndef KUTRACE_RAWWRITE_H
#define KUTRACE_RAWWRITE_H

#include <stddef.h>
#include <stdint.h>

#include "kutrace/format.h"

struct kt_rw_options {
	int ncpu;
	int ipc;		/* write side blocks, flag 0x80 */
	int wrap;		/* wraparound mode, flag 0x40 */
	long wrap_blocks;	/* buffer size in blocks when wrapping (>= ncpu+2) */
	double ticks_per_usec;
	uint64_t start_ctr;	/* start time pair (block 0 words 2, 3) */
	uint64_t start_usec;
	uint32_t seed;		/* header-time jitter */
};

struct kt_rw;

/* NULL with the one-line reason in err (bad options, cannot create). */
struct kt_rw *kt_rw_create(const char *path, const struct kt_rw_options *o,
			   char *err, size_t errlen);
/* The task a block header records when this CPU gets a new block. */
void kt_rw_set_task(struct kt_rw *w, int cpu, uint32_t pid, const char *comm);
/*
 * One single-word entry (trace_1).  Returns are fused into the previous
 * word when the module would do so (docs/spec/FORMATS.md 1.2); returns 1 then.
 * ipc: the side byte's low nibble (interval ending here).
 */
int kt_rw_trace1(struct kt_rw *w, int cpu, uint64_t now, unsigned int event,
		 uint64_t arg, unsigned int ipc);
/* A PC sample (trace_2): [event | mhz][pc]. */
void kt_rw_trace2(struct kt_rw *w, int cpu, uint64_t now, unsigned int event,
		  uint32_t mhz, uint64_t pc);
/* A name entry: type with zero length nibble, 1..56 name bytes. */
void kt_rw_name(struct kt_rw *w, int cpu, uint64_t now, unsigned int type,
		uint32_t arg, const char *name);
/*
 * A LOST entry (docs/spec/FORMATS.md 10.3) on cpu's stream: lcpu lost
 * entries (or blocks) between full counters first and last.
 */
void kt_rw_lost(struct kt_rw *w, int cpu, uint64_t now, unsigned int lcpu,
		unsigned int reason, uint32_t blocks, uint64_t entries, uint64_t first,
		uint64_t last);
/* Number of wraparounds so far (the module clears its pid filter then). */
long kt_rw_wraps(const struct kt_rw *w);
/* Bytes written to the file so far (whole blocks, side blocks included). */
uint64_t kt_rw_bytes(const struct kt_rw *w);
/*
 * After kt_rw_close: the earliest surviving block of a CPU other than
 * block 0 (header counter and pid); returns 0 if the CPU has none.
 */
int kt_rw_first_block(const struct kt_rw *w, int cpu, uint64_t *ctr,
		      uint32_t *pid);
/* Block 0's CPU and header counter. */
void kt_rw_block0(const struct kt_rw *w, int *cpu, uint64_t *ctr);
/*
 * Flush every CPU's block, write the time pairs; stop pair from stop_ctr.
 * 0, or -1 after any write error (the first one: kt_rw_error()).
 */
int kt_rw_close(struct kt_rw *w, uint64_t stop_ctr, uint64_t *stop_usec);
const char *kt_rw_error(const struct kt_rw *w);
void kt_rw_free(struct kt_rw *w);

#endif /* KUTRACE_RAWWRITE_H */

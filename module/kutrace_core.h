/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kutrace_core.h - interface of the trace-buffer core (kutrace_core.c).
 *
 * The core owns the buffer, the per-CPU block claim, fusion, TSDELTA and
 * wraparound.  It is one source file that builds in the kernel and, with
 * the userspace shims of kutrace_env.h, in a userspace harness.
 * Backends (tracepoints, patched kernel) only call kt_trace_1/2/many.
 */
#ifndef KUTRACE_CORE_H
#define KUTRACE_CORE_H

#include "kutrace/format.h"
#include "kutrace_env.h"

struct kt_cpu {
	u64 *next;		/* next free word of the current block */
	u64 *limit;		/* end of the current block */
	u64 *first;		/* first entry word of the current block */
	u64 prior;		/* full counter of the last entry, 0 = none */
	u64 prior_inst;		/* instructions at the last entry (IPC) */
	int ipc_ok;		/* this CPU has an instruction counter */
	u32 sw_pid;		/* task switched to, while sw_comm is set */
	const char *sw_comm;
};

struct kt_state {
	u64 *base;		/* tracemb MiB */
	u64 *high;		/* base + size: blocks go downward from here */
	u64 *limit;		/* lowest word usable by blocks */
	u64 *next_block;	/* last block handed out */
	unsigned long bytes;
	unsigned int flags;	/* KUTRACE_RESET_* in effect */
	bool wrapped;
	bool full;		/* stopped because the buffer filled */
	bool backend_named;
	u64 *pid_filter;	/* 1024 words = 65536 bits */
};

extern struct kt_state kt_st;
extern bool kt_tracing;

/* buf: bytes of buffer; pid_filter: 8 KiB.  Both owned by the caller. */
int kt_core_init(unsigned long bytes, u64 *buf, u64 *pid_filter);
/* Re-initialise; returns the flags kept (IPC, WRAP). */
unsigned int kt_core_reset(unsigned int flags);
/* Words zeroed at the end of the CPUs' current blocks. */
u64 kt_core_flush(void);
/*
 * Inside a context switch: new block headers name the next task, so that
 * the entries after the switch are not attributed to the previous one.
 */
void kt_switch_begin(u32 pid, const char *comm);
void kt_switch_end(void);
/* Whether this CPU's instruction counter may be read. */
void kt_cpu_set_ipc(unsigned int cpu, bool on);
/* Blocks in use (all of them once wrapped). */
u64 kt_core_blocks(void);
/* File block i in allocation order / its 8 KiB side block, or NULL. */
u64 *kt_core_block(u64 i);
u8 *kt_core_side(u64 i);

/* Entry points.  Callers leave bits 63..44 of words zero. */
void kt_trace_1(unsigned int event, u64 arg);
void kt_trace_2(unsigned int event, u64 arg, u64 word2);
/* Copies len (1..8) words; ORs (event | len << 4) << 32 into word 0. */
int kt_trace_many(unsigned int event, unsigned int len, const u64 *words,
		  bool forced);
/* Prepared words (control INSERT1/INSERTN); forced = even when off. */
int kt_insert_words(const u64 *words, unsigned int len, bool forced);
/* PIDNAME for a task seen for the first time (filter) or always. */
void kt_pidname(u32 pid, const char *comm, bool always);

#endif /* KUTRACE_CORE_H */

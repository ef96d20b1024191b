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
	bool open;		/* stream mode: its block is a filling slot */
	u64 lost;		/* entries lost since its last LOST entry */
	u64 lost_first;		/* their first and last time, 0 = none */
	u64 lost_last;
	u64 lost_total;		/* since RESET, for GETLOST */
	u64 lost_blocks;
	u64 total_first;
	u64 total_last;
};

/*
 * Stream mode (docs/spec/FORMATS.md 10.1): the slots' states and epochs,
 * and two queues of slot numbers, each a ring of n entries (head, count).
 * Memory from the caller (kt_core_stream_bytes).
 */
enum { KT_SLOT_FREE, KT_SLOT_FILLING, KT_SLOT_COMPLETE, KT_SLOT_TAKEN };

struct kt_stream {
	u32 max;		/* slots the tables have room for */
	u32 n;			/* slots in use: those above the side bytes */
	u32 *epoch;		/* epoch of the block in each slot */
	u8 *state;		/* KT_SLOT_* */
	u32 *freeq;		/* free slots, oldest first */
	u32 free_head, free_count;
	u32 *doneq;		/* complete slots, in completion order */
	u32 done_head, done_count;
	u32 cur_epoch;
	bool new_epoch;		/* the next block gets block 0's header */
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
	struct kt_stream st;
	void *stream_mem;	/* NULL: stream mode refused */
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

/*
 * Stream mode.  Bytes of memory the slot tables of a buffer of this size
 * take; handing them over (kt_core_stream_init, before any RESET) lets
 * RESET keep KUTRACE_RESET_STREAM.
 */
unsigned long kt_core_stream_bytes(unsigned long bytes);
void kt_core_stream_init(void *mem);
/* Close this CPU's block (STREAM_CUT(1)). */
void kt_core_cut_this_cpu(void);
/* Close it if it is of an earlier epoch (STREAM_CUT(0), on each CPU). */
void kt_core_cut_old_this_cpu(void);
/*
 * STREAM_CUT(KUTRACE_CUT_LOST), on each CPU: if it lost entries since
 * its last LOST entry, that entry goes into a block of its own, closed.
 */
void kt_core_lost_this_cpu(void);
/*
 * STREAM_CUT(0) is kt_core_new_epoch on the calling CPU, then
 * kt_core_cut_old_this_cpu on every other CPU, the caller staying on its
 * CPU.
 * kt_core_new_epoch closes this CPU's block, starts the new epoch (blocks
 * handed out from then on are its) and, if a slot is free, gives this CPU
 * the epoch's first block (block 0's header) at once.  Returns the epoch.
 */
u32 kt_core_new_epoch(void);
/* STREAM_TAKE's answer (0: none) and STREAM_GIVE (-1: slot not taken). */
u64 kt_core_take(void);
int kt_core_give(u64 slot);
/* GETLOST: arg = cpu << 2 | field. */
u64 kt_core_lost(u64 arg);

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

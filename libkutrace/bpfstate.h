/* SPDX-License-Identifier: (GPL-2.0 OR BSD-3-Clause) */
/*
 * bpfstate.h - the BPF backend's shared state, as the BPF programs
 * (kutrace.bpf.c) and userland (libkutrace/bpfchan.c, record/kt_bpf_load.c)
 * see it.  Not a trace format: the trace blocks are the module's.
 *
 * Two mmap-able arrays, pinned under KT_BPF_PIN while tracing is set up:
 *   "buf"    nblocks elements of one 64 KB block each.  File block i (the
 *            i-th handed out) is element nblocks - 1 - i, so the mapping
 *            reads like the module's buffer (blocks from the top down).
 *   "state"  one struct kt_bpf_state: the tracing flag, the block counter
 *            and per-CPU claim words (word indexes into "buf": element *
 *            8192 + word; 0 = no block yet).
 *   "slot"   nblocks words, stream mode only (docs/spec/FORMATS.md 10.1):
 *            the state of slot b (trace block b, element nblocks - 1 - b),
 *            KT_BPF_SLOT_* | the module's epoch word (epoch, bit 31 the
 *            epoch's first block).
 */
#ifndef KUTRACE_BPFSTATE_H
#define KUTRACE_BPFSTATE_H

#define KT_BPF_PIN		"/sys/fs/bpf/kutrace"
#define KT_BPF_MAX_CPUS		128	/* KUTRACE_MAX_CPUS */
#define KT_BPF_STATE_VERSION	2
#define KT_BPF_PENDING		4	/* closed blocks a CPU may hold back */

/*
 * Slot states.  free -> filling: a program (or the reader, for the
 * blocks it writes itself) claims it with compare-and-exchange; filling ->
 * complete: whoever moved the CPU's next word out of the block, once no
 * write into it is in flight; complete -> taken -> free: the reader.
 */
#define KT_BPF_SLOT_FREE	0ULL
#define KT_BPF_SLOT_FILLING	(1ULL << 62)
#define KT_BPF_SLOT_COMPLETE	(2ULL << 62)
#define KT_BPF_SLOT_TAKEN	(3ULL << 62)
#define KT_BPF_SLOT_STATE	(3ULL << 62)
#define KT_BPF_SLOT_EPOCH	0xFFFFFFFFULL	/* epoch | KUTRACE_STREAM_FIRST */

/*
 * A CPU's whole claim state is the one word next: its block is the one
 * next points into (a claim never fills a block to its very end), so a
 * compare-and-exchange moves it atomically, within a block or to a new
 * one.  spare: a block a program set up but could not install because a
 * nested program switched blocks first; the next switch takes it.
 *
 * Stream mode only: depth counts the writes in flight on the CPU (claims
 * not yet written, fusions not yet checked); a block closed while depth
 * was above the closer's own 1 waits in pending (slot + 1) until depth is
 * 0, so the reader never gets a block a preempted or interrupted program
 * still writes into.  lost*: entries dropped for want of a free slot,
 * since the CPU's last LOST entry and in all (GETLOST).
 */
struct kt_bpf_cpu {
	__u64 next;		/* next free word, 0 = no block yet */
	__u64 spare;		/* end (limit) of a spare block, 0 = none */
	__s64 depth;
	__u64 prior;		/* time of the last entry, 0 = none */
	__u64 pf_pending;	/* a fault entry waits for handle_mm_fault */
	__u64 lost, lost_first, lost_last;
	__u64 lost_total, total_first, total_last;
	__u64 pending[KT_BPF_PENDING];
	__u64 pad[1];
};

struct kt_bpf_state {
	__u64 version;		/* KT_BPF_STATE_VERSION */
	__u64 tracing;		/* 1 = record */
	__u64 flags;		/* KUTRACE_RESET_WRAP (no IPC in BPF) */
	__u64 nblocks;		/* elements of "buf" */
	__u64 handed;		/* blocks handed out so far (grows past nblocks) */
	__u64 wrapped;
	__u64 full;		/* stopped because the buffer filled */
	__u64 lost;		/* entries dropped: no block (buffer full) */
	__u64 nested;		/* blocks a nested program took over */
	__u64 named;		/* the backend name entry is in the trace */
	__u64 retried;		/* claims retried: a nested program came first */
	__u64 epoch;		/* stream: blocks handed out now are this epoch's */
	__u64 new_epoch;	/* stream: the next block handed out is the first */
	__s64 free_count;	/* stream: free slots */
	__u64 hint;		/* stream: where programs look for a free slot */
	__u64 early;		/* stream: closed with no room to wait (pending) */
	char what[64];		/* backend name entry text (loader) */
	struct kt_bpf_cpu cpu[KT_BPF_MAX_CPUS];
	__u64 pid_filter[1024];	/* PIDNAME already written for pid & 0xFFFF */
};

#endif /* KUTRACE_BPFSTATE_H */

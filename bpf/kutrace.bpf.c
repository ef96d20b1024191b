// SPDX-License-Identifier: GPL-2.0
/*
 * kutrace.bpf.c - the BPF backend: the module's tracepoint backend
 * (module/kutrace_tp.c) as BPF programs on BTF raw tracepoints, writing the
 * same 64 KB blocks (module/kutrace_core.c) into one mmap-able array.
 *
 * A program runs with preemption (or migration) off but interrupts on, so
 * an interrupt's program may run inside a system call's on the same CPU.
 * Words are therefore claimed with compare-and-exchange on the CPU's next
 * word, as the module does for NMIs: a nested program takes the words after
 * the ones already claimed and nothing is torn or lost.  A program that
 * finds its block taken over by a nested one while it set up a new block
 * keeps the words it wrote there (counted in state.nested).
 *
 * Time: bpf_ktime_get_ns() >> 6 (CLOCK_MONOTONIC, the counter userland
 * takes its time pairs from when it talks to this backend); programs have
 * no TSC.
 *
 * Stream mode (RESET with KUTRACE_RESET_STREAM, docs/spec/FORMATS.md
 * 10.1) takes blocks from free slots of the "slot" map instead and drops
 * and counts entries when none is free; kt_put_stream below.
 *
 * System call 1023 (the original library's control call) is seen at
 * sys_enter with its arguments: INSERT1/INSERTN (and the forced ones)
 * record their words even though the call itself returns ENOSYS.  The
 * query commands cannot return a value this way; libkutrace answers them
 * from the pinned state map instead (libkutrace/bpfchan.c).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

/* format.h in a BPF build: vmlinux.h has the types, no libc. */
#define __KERNEL__
#define _LINUX_TYPES_H
#define _LINUX_IOCTL_H
#define _IOWR(a, b, c) 0
#include "kutrace/format.h"
#include "bpfstate.h"

char LICENSE[] SEC("license") = "GPL";

#define KT_WORDS	KUTRACE_BLOCK_WORDS
#define KT_WMASK	(KUTRACE_BLOCK_WORDS - 1)

struct kt_block {
	__u64 w[KUTRACE_BLOCK_WORDS];
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, struct kt_block);
	__uint(max_entries, 128);	/* set by the loader */
} buf SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, struct kt_bpf_state);
	__uint(max_entries, 1);
} state SEC(".maps");

/* Stream mode: one state word per slot (bpfstate.h); sized by the loader. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 128);	/* set by the loader */
} slot SEC(".maps");

/* A fault whose entry was traced is in handle_mm_fault (may sleep). */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, __u32);
} pf_task SEC(".maps");

static __always_inline struct kt_bpf_state *kt_state(void)
{
	__u32 k = 0;

	return bpf_map_lookup_elem(&state, &k);
}

/*
 * This CPU's state.  The mask is what the verifier checks (6.1's loses
 * the caller's bound check across a spill); the empty asm keeps clang
 * from dropping it as redundant.
 */
static __always_inline struct kt_bpf_cpu *kt_cpu(struct kt_bpf_state *st,
						  __u32 cpu)
{
	asm volatile("" : "+r"(cpu));
	return &st->cpu[cpu & (KT_BPF_MAX_CPUS - 1)];
}

static __always_inline __u64 *kt_word(__u64 gi)
{
	__u32 k = gi / KT_WORDS;
	struct kt_block *b = bpf_map_lookup_elem(&buf, &k);

	if (!b)
		return 0;
	return &b->w[gi & KT_WMASK];
}

static __always_inline __u64 kt_now(void)
{
	return bpf_ktime_get_ns() >> KUTRACE_TSC_SHIFT;
}

struct kt_who {
	__u32 pid;
	char comm[16];
	const char *src;	/* comm still to be read from here, or 0 */
};

/* Whose block a new block header names: the current task or @next. */
#define KT_WHO_CURRENT	0xFFFFFFFFu	/* looked up only for a new block */
static __always_inline void kt_current(struct kt_who *who)
{
	who->pid = (__u32)bpf_get_current_pid_tgid();
	bpf_get_current_comm(who->comm, sizeof(who->comm));
	who->src = 0;
}

/* Write the header of the block at word base; returns its first entry word. */
static __noinline __u64 kt_head(__u64 base, bool first, __u32 cpu, __u64 now,
				struct kt_who *who)
{
	struct kt_bpf_state *st = kt_state();
	__u64 *w, hdr, flags = 0;
	int c;

	if (who->pid == KT_WHO_CURRENT) {
		kt_current(who);
	} else if (who->src) {
		bpf_probe_read_kernel_str(who->comm, sizeof(who->comm), who->src);
		who->src = 0;
	}
	if (st && (st->flags & KUTRACE_RESET_WRAP))
		flags |= KUTRACE_FLAG_WRAP;
	for (c = 0; c < KUTRACE_BLOCK_TAIL_ZERO; c++) {
		w = kt_word(base + KT_WORDS - KUTRACE_BLOCK_TAIL_ZERO + c);
		if (w)
			*w = 0;
	}
	w = kt_word(base + KUTRACE_HDR_CPU_TIME);
	if (!w)
		return 0;
	*w = ((__u64)cpu << KUTRACE_HDR_CPU_SHIFT) | (now & KUTRACE_HDR_LOW56);
	w = kt_word(base + KUTRACE_HDR_FLAGS_USEC);
	if (w)
		*w = flags << KUTRACE_HDR_FLAGS_SHIFT;
	hdr = base + KUTRACE_HDRN_PID;
	if (first) {
		for (c = 2; c < 8; c++) {
			w = kt_word(base + c);
			if (w)
				*w = 0;
		}
		hdr = base + KUTRACE_HDR0_PID;
	}
	w = kt_word(hdr);
	if (w)
		*w = who->pid;
	w = kt_word(hdr + 1);
	if (w)
		*w = 0;
	w = kt_word(hdr + 2);
	if (w)
		__builtin_memcpy(w, &who->comm[0], 8);
	w = kt_word(hdr + 3);
	if (w)
		__builtin_memcpy(w, &who->comm[8], 8);
	return hdr + 4;
}

/* Is the block ending at word lim the current block of some CPU? */
__noinline int kt_block_busy(__u64 lim)
{
	struct kt_bpf_state *st = kt_state();
	int c;

	if (!st)
		return 0;
	for (c = 0; c < KT_BPF_MAX_CPUS; c++) {
		if ((st->cpu[c].next & ~(__u64)KT_WMASK) + KT_WORDS == lim ||
		    st->cpu[c].spare == lim)
			return 1;
	}
	return 0;
}

/*
 * Hand out the next block to this CPU and write its header; returns the
 * word index of its first entry word, 0 if the buffer is full.
 */
static __noinline __u64 kt_new_block(struct kt_bpf_state *st, __u32 cpu,
				     __u64 now, struct kt_who *who)
{
	__u64 n = st->nblocks, a, idx, el, base;
	int tries;

	if (n < 2)
		return 0;
	for (tries = 0; tries < 8; tries++) {
		a = __sync_fetch_and_add(&st->handed, 1);
		if (a < n) {
			idx = a;
		} else if (!(st->flags & KUTRACE_RESET_WRAP)) {
			st->tracing = 0;
			st->full = 1;
			return 0;
		} else {
			/* Wrap: restart below block 0, which keeps the names. */
			if (!st->wrapped) {
				st->wrapped = 1;
			}
			idx = 1 + (a - n) % (n - 1);
		}
		el = n - 1 - idx;
		base = el * KT_WORDS;
		/* Another CPU still fills it: take the next one. */
		if (st->wrapped && kt_block_busy(base + KT_WORDS))
			continue;
		goto got;
	}
	return 0;
got:
	return kt_head(base, idx == 0, cpu, now, who);
}

/*
 * Stream mode (docs/spec/FORMATS.md 10.1).  Slot b is element
 * nblocks - 1 - b of "buf", as the module's slot b lies below its top.
 * The helpers that loop or touch slots are global functions: the
 * verifier checks each once, not again at every call site (6.1 gives up
 * on kt_sched_switch otherwise: too many instructions).  Their arguments
 * are plain numbers (cpu masked by kt_cpu, word indexes checked by the
 * map lookups), so the verifier needs nothing from the caller.
 */
static __always_inline __u64 *kt_slot(__u64 b)
{
	__u32 k = b;

	return bpf_map_lookup_elem(&slot, &k);
}

static __always_inline __u64 kt_slot_of(struct kt_bpf_state *st, __u64 word)
{
	return st->nblocks - 1 - word / KT_WORDS;
}

/* Filling -> complete: the reader may take it now. */
static __always_inline void kt_complete(__u64 b)
{
	__u64 *sw = kt_slot(b), old;

	if (!sw)
		return;
	old = *sw;
	if ((old & KT_BPF_SLOT_STATE) == KT_BPF_SLOT_FILLING)
		__sync_val_compare_and_swap(sw, old, (old & KT_BPF_SLOT_EPOCH) |
					    KT_BPF_SLOT_COMPLETE);
}

/*
 * The caller moved the CPU's next word out of the block holding word
 * old: complete it, or, while another write of this CPU may still go into
 * it (depth above the caller's own 1), leave it to whoever brings depth
 * to 0.
 */
__noinline int kt_s_close(__u32 cpu, __u64 old)
{
	struct kt_bpf_state *st = kt_state();
	struct kt_bpf_cpu *c;
	__u64 b;
	int i;

	if (!st)
		return 0;
	c = kt_cpu(st, cpu);
	b = kt_slot_of(st, old);
	if (c->depth <= 1) {
		kt_complete(b);
		return 0;
	}
	for (i = 0; i < KT_BPF_PENDING; i++)
		if (!__sync_val_compare_and_swap(&c->pending[i], 0, b + 1))
			return 0;
	__sync_fetch_and_add(&st->early, 1);
	kt_complete(b);
	return 0;
}

/* Leaving a write: at depth 0, complete the blocks held back. */
__noinline int kt_s_leave(__u32 cpu)
{
	struct kt_bpf_state *st = kt_state();
	struct kt_bpf_cpu *c;
	__u64 b;
	int i;

	if (!st)
		return 0;
	c = kt_cpu(st, cpu);
	if (__sync_fetch_and_add(&c->depth, -1) != 1)
		return 0;
	for (i = 0; i < KT_BPF_PENDING; i++) {
		if (!c->pending[i])
			continue;
		b = __sync_lock_test_and_set(&c->pending[i], 0);
		if (!b)
			continue;
		/* A write that began meanwhile may go into it: hold it again. */
		if (c->depth != 0 &&
		    !__sync_val_compare_and_swap(&c->pending[i], 0, b))
			continue;
		kt_complete(b - 1);
	}
	return 0;
}

/*
 * A new block for the CPU: its spare, else a free slot; returns its first
 * entry word (the header written), 0 = no free slot.
 */
__noinline __u64 kt_s_block(__u32 cpu, __u64 now, struct kt_who *who)
{
	struct kt_bpf_state *st = kt_state();
	__u64 n, b, sp, *sw, e;
	bool first = false;
	int tries;

	if (!st || !who)
		return 0;
	n = st->nblocks;
	sp = __sync_lock_test_and_set(&kt_cpu(st, cpu)->spare, 0);
	if (sp) {
		sw = kt_slot(kt_slot_of(st, sp - KT_WORDS));
		first = sw && (*sw & KUTRACE_STREAM_FIRST);
		return kt_head(sp - KT_WORDS, first, cpu, now, who);
	}
	if (n < 2 || st->free_count <= 0)
		return 0;
	for (tries = 0; tries < 32; tries++) {
		b = __sync_fetch_and_add(&st->hint, 1) % n;
		sw = kt_slot(b);
		if (!sw || *sw != KT_BPF_SLOT_FREE)
			continue;
		e = st->epoch & KUTRACE_STREAM_SLOT_MASK;
		if (__sync_val_compare_and_swap(sw, KT_BPF_SLOT_FREE,
						KT_BPF_SLOT_FILLING | e))
			continue;
		__sync_fetch_and_add(&st->free_count, -1);
		/* After RESET, or a cut that found no slot: the epoch's first. */
		if (st->new_epoch &&
		    __sync_val_compare_and_swap(&st->new_epoch, 1, 0) == 1) {
			/* the reader set the epoch before new_epoch */
			first = true;
			*sw = KT_BPF_SLOT_FILLING | KUTRACE_STREAM_FIRST |
			      (st->epoch & KUTRACE_STREAM_SLOT_MASK);
		}
		return kt_head((n - 1 - b) * KT_WORDS, first, cpu, now, who);
	}
	return 0;
}

/* A block set up for nothing (a nested program came first): free again. */
__noinline int kt_s_unuse(__u64 first)
{
	struct kt_bpf_state *st = kt_state();
	__u64 base = first & ~(__u64)KT_WMASK, *w, *sw;
	int i;

	if (!st)
		return 0;
	for (i = 0; i < KUTRACE_HDR0_WORDS; i++) {
		w = kt_word(base + i);
		if (w)
			*w = 0;
	}
	sw = kt_slot(kt_slot_of(st, base));
	if (!sw)
		return 0;
	*sw = KT_BPF_SLOT_FREE;
	__sync_fetch_and_add(&st->free_count, 1);
	return 0;
}

/* An entry dropped: no free slot (the reader fell behind). */
__noinline int kt_s_lost(__u32 cpu, __u64 now)
{
	struct kt_bpf_state *st = kt_state();
	struct kt_bpf_cpu *c;

	if (!st)
		return 0;
	c = kt_cpu(st, cpu);
	if (!__sync_fetch_and_add(&c->lost, 1))
		c->lost_first = now;
	c->lost_last = now;
	if (!__sync_fetch_and_add(&c->lost_total, 1))
		c->total_first = now;
	c->total_last = now;
	__sync_fetch_and_add(&st->lost, 1);
	return 0;
}

/* The LOST entry (10.3) of lost entries at word p; their count restarts. */
__noinline int kt_s_put_lost(__u32 cpu, __u64 p, __u64 now, __u64 lost)
{
	struct kt_bpf_state *st = kt_state();
	struct kt_bpf_cpu *c;
	__u64 *w;

	if (!st)
		return 0;
	c = kt_cpu(st, cpu);
	w = kt_word(p);
	if (w)
		*w = ((now & KUTRACE_TS_MASK) << KUTRACE_TS_SHIFT) |
		     kutrace_make_word(KUTRACE_LOST_EVENT,
				       (cpu & KUTRACE_LOST_CPU_MASK) |
				       (KUTRACE_LOST_READER <<
					KUTRACE_LOST_WHY_SHIFT));
	w = kt_word(p + 1);
	if (w)
		*w = lost;
	w = kt_word(p + 2);
	if (w)
		*w = c->lost_first & KUTRACE_HDR_LOW56;
	w = kt_word(p + 3);
	if (w)
		*w = c->lost_last & KUTRACE_HDR_LOW56;
	/* Drops meanwhile stay for the next LOST entry. */
	if (__sync_fetch_and_add(&c->lost, -lost) != lost)
		c->lost_first = c->lost_last;
	return 0;
}

/* Write len (1..8) words at word p; w[0] gets ts, TSDELTAs first. */
static __always_inline void kt_write(__u64 p, __u64 *src, __u32 len, __u64 now,
				     __u64 delta, __u32 ntsd)
{
	__u64 ts = (now & KUTRACE_TS_MASK) << KUTRACE_TS_SHIFT, step, *w;
	__u32 i;

	for (i = 0; i < KUTRACE_MAX_ENTRY_WORDS; i++) {
		if (i >= ntsd)
			break;
		step = delta > KUTRACE_TSDELTA_MAX_STEP ?
		       KUTRACE_TSDELTA_MAX_STEP : delta;
		delta -= step;
		w = kt_word(p);
		if (w)
			*w = ts | kutrace_make_word(KUTRACE_TSDELTA, step);
		p++;
	}
	for (i = 0; i < KUTRACE_MAX_ENTRY_WORDS; i++) {
		if (i >= len)
			break;
		w = kt_word(p + i);
		if (w)
			*w = i ? src[i] : ts | src[0];
	}
}

/*
 * kt_put in stream mode: blocks come from free slots; none free: the
 * entry is dropped and counted, and the CPU's next block opens with a
 * LOST entry.  The program never waits for the reader.
 */
static __noinline int kt_put_stream(struct kt_bpf_state *st, __u32 cpu,
				    __u64 *src, __u32 len, struct kt_who *who)
{
	struct kt_bpf_cpu *c = kt_cpu(st, cpu);
	__u64 now = 0, delta = 0, old, p = 0, first, lost;
	__u32 ntsd = 0, total, extra;
	bool force;
	int tries, r = 0;

	__sync_fetch_and_add(&c->depth, 1);
	for (tries = 0; tries < 4; tries++) {
		old = c->next;
		now = kt_now();
		delta = 0;
		ntsd = 0;
		force = false;
		if (c->prior && (__s64)(now - c->prior) >
		    (__s64)KUTRACE_TSDELTA_THRESHOLD) {
			delta = now - c->prior;
			ntsd = (delta + KUTRACE_TSDELTA_MAX_STEP - 1) /
			       KUTRACE_TSDELTA_MAX_STEP;
			if (ntsd + len > KUTRACE_MAX_ENTRY_WORDS) {
				ntsd = 0;
				force = true;
			}
		}
		total = len + ntsd;
		if (!force && old && (old & KT_WMASK) + total < KT_WORDS) {
			if (__sync_val_compare_and_swap(&c->next, old,
							old + total) == old) {
				p = old;
				break;
			}
			__sync_fetch_and_add(&st->retried, 1);
			continue;
		}
		ntsd = 0;
		lost = c->lost;
		extra = lost ? KUTRACE_LOST_WORDS : 0;
		first = kt_s_block(cpu, now, who);
		if (!first) {
			/* No free slot: the full block goes to the reader. */
			if (old) {
				if (__sync_val_compare_and_swap(&c->next, old,
								0) != old)
					continue;
				kt_s_close(cpu, old);
			}
			break;
		}
		if (__sync_val_compare_and_swap(&c->next, old,
						first + extra + len) == old) {
			if (old)
				kt_s_close(cpu, old);
			if (extra)
				kt_s_put_lost(cpu, first, now, lost);
			p = first + extra;
			break;
		}
		/* A nested program switched first: keep it for later. */
		if (__sync_val_compare_and_swap(&c->spare, 0,
				(first & ~(__u64)KT_WMASK) + KT_WORDS)) {
			__sync_fetch_and_add(&st->nested, 1);
			kt_s_unuse(first);
		}
	}
	if (p) {
		c->prior = now;
		kt_write(p, src, len, now, delta, ntsd);
		r = len;
	} else {
		kt_s_lost(cpu, now);
	}
	kt_s_leave(cpu);
	return r;
}

/*
 * Append len (1..8) words, w[0] without its timestamp; forced = even when
 * tracing is off (names at init).  Returns the words written.
 */
static __noinline int kt_put(__u64 *src, __u32 len, bool forced,
			     struct kt_who *who)
{
	struct kt_bpf_state *st = kt_state();
	struct kt_bpf_cpu *c;
	__u64 now = 0, delta = 0, ts, step, old, sp, p = 0, first, *w;
	__u32 cpu = bpf_get_smp_processor_id();
	__u32 i, ntsd = 0, total;
	bool force = false;
	int tries;

	if (!st || len < 1 || len > KUTRACE_MAX_ENTRY_WORDS)
		return 0;
	if (!st->tracing && !forced)
		return 0;
	if (cpu >= KT_BPF_MAX_CPUS)
		return 0;
	if (st->flags & KUTRACE_RESET_STREAM)
		return kt_put_stream(st, cpu, src, len, who);
	c = kt_cpu(st, cpu);
	/*
	 * Read the time between reading the CPU's next word and claiming it:
	 * if a nested program claimed meanwhile, the claim fails and the
	 * time is read again, so entries never step back in time within a
	 * block (a program cannot turn interrupts off as the module does).
	 */
	for (tries = 0; tries < 8; tries++) {
		old = c->next;
		now = kt_now();
		delta = 0;
		ntsd = 0;
		force = false;
		if (c->prior && (__s64)(now - c->prior) >
		    (__s64)KUTRACE_TSDELTA_THRESHOLD) {
			/* Chain TSDELTAs of <= MAX_STEP; long gaps: new block. */
			delta = now - c->prior;
			ntsd = (delta + KUTRACE_TSDELTA_MAX_STEP - 1) /
			       KUTRACE_TSDELTA_MAX_STEP;
			if (ntsd + len > KUTRACE_MAX_ENTRY_WORDS) {
				ntsd = 0;
				force = true;
			}
		}
		total = len + ntsd;
		if (force || !old || (old & KT_WMASK) + total >= KT_WORDS) {
			/* New block: its header has the full time, no TSDELTA. */
			ntsd = 0;
			sp = __sync_lock_test_and_set(&c->spare, 0);
			if (sp)
				first = kt_head(sp - KT_WORDS,
						sp == st->nblocks * KT_WORDS,
						cpu, now, who);
			else
				first = kt_new_block(st, cpu, now, who);
			if (!first) {
				__sync_fetch_and_add(&st->lost, 1);
				return 0;
			}
			if (__sync_val_compare_and_swap(&c->next, old,
							first + len) == old) {
				p = first;
				break;
			}
			/* A nested program switched first: keep it for later. */
			if (__sync_val_compare_and_swap(&c->spare, 0,
					(first & ~(__u64)KT_WMASK) + KT_WORDS))
				__sync_fetch_and_add(&st->nested, 1);
			continue;
		}
		if (__sync_val_compare_and_swap(&c->next, old, old + total) == old) {
			p = old;
			break;
		}
		__sync_fetch_and_add(&st->retried, 1);
	}
	if (!p) {
		__sync_fetch_and_add(&st->lost, 1);
		return 0;
	}
	c->prior = now;
	ts = (now & KUTRACE_TS_MASK) << KUTRACE_TS_SHIFT;
	for (i = 0; i < KUTRACE_MAX_ENTRY_WORDS; i++) {
		if (i >= ntsd)
			break;
		step = delta > KUTRACE_TSDELTA_MAX_STEP ?
		       KUTRACE_TSDELTA_MAX_STEP : delta;
		delta -= step;
		w = kt_word(p);
		if (w)
			*w = ts | kutrace_make_word(KUTRACE_TSDELTA, step);
		p++;
	}
	for (i = 0; i < KUTRACE_MAX_ENTRY_WORDS; i++) {
		if (i >= len)
			break;
		w = kt_word(p + i);
		if (w)
			*w = i ? src[i] : ts | src[0];
	}
	return len;
}

/*
 * Merge a return into the call just before it (docs/spec/FORMATS.md 1.2).
 * The same rule as kt_fuse in module/kutrace_core.c, written again on
 * purpose: the core's pointers into a vmalloc'ed buffer cannot pass the BPF
 * verifier, which wants word indexes checked against the map on every
 * access (kt_word), and a nested program cannot be ruled out by disabling
 * interrupts, hence the undo below.  Both are checked against the same
 * format.h masks and decoded by the same tests (t_vm_bpf, t_unit).
 */
static __always_inline bool kt_fuse_in(struct kt_bpf_cpu *c, unsigned int event,
				       long ret, __u64 hdr)
{
	__u64 p, prev, word, now, dt, fused, *w;

	p = c->next;
	/* not into a header word: the block's first entries stay unfused */
	if (!p || (p & KT_WMASK) <= hdr)
		return false;
	w = kt_word(p - 1);
	if (!w)
		return false;
	prev = *w;
	word = kutrace_make_word(event, ret & KUTRACE_ARG0_MASK);
	if (((prev ^ word) & KUTRACE_FUSE_CMP_MASK) != KUTRACE_FUSE_RET_BIT)
		return false;
	now = kt_now();
	dt = (now - (prev >> KUTRACE_TS_SHIFT)) & KUTRACE_TS_MASK;
	if (dt > KUTRACE_FUSE_MAX_DELTA)
		return false;
	if (dt == 0)
		dt = 1;
	fused = prev | (dt << KUTRACE_DELTA_SHIFT) |
		((__u64)(ret & 0xFF) << KUTRACE_RETVAL_SHIFT);
	if (__sync_val_compare_and_swap(w, prev, fused) != prev)
		return false;
	/* A nested program appended after the call: undo, write the return. */
	if (c->next != p) {
		if (__sync_val_compare_and_swap(w, fused, prev) == fused)
			return false;
	}
	c->prior = now;
	return true;
}

/*
 * Stream mode: the fusion is a write in flight (depth), and never into a
 * LOST entry at the block's start, whose last word is a counter.
 */
static __noinline bool kt_fuse_stream(struct kt_bpf_cpu *c, __u32 cpu,
				      unsigned int event, long ret)
{
	bool r;

	__sync_fetch_and_add(&c->depth, 1);
	r = kt_fuse_in(c, event, ret, KUTRACE_HDR0_WORDS + KUTRACE_LOST_WORDS);
	kt_s_leave(cpu);
	return r;
}

static __always_inline bool kt_fuse(unsigned int event, long ret)
{
	struct kt_bpf_state *st = kt_state();
	struct kt_bpf_cpu *c;
	__u32 cpu = bpf_get_smp_processor_id();

	if (!st || cpu >= KT_BPF_MAX_CPUS)
		return false;
	c = kt_cpu(st, cpu);
	if (st->flags & KUTRACE_RESET_STREAM)
		return kt_fuse_stream(c, cpu, event, ret);
	return kt_fuse_in(c, event, ret, KUTRACE_HDR0_WORDS);
}

static __always_inline void kt_1(unsigned int event, __u64 arg)
{
	struct kt_who who;
	__u64 w;

	if (kutrace_is_return(event)) {
		long ret = (long)arg;

		if (((__u64)(ret + 128) & ~0xFFULL) == 0 && kt_fuse(event, ret))
			return;
		arg &= KUTRACE_ARG0_MASK;
	}
	w = kutrace_make_word(event, arg);
	who.pid = KT_WHO_CURRENT;
	who.src = 0;
	kt_put(&w, 1, false, &who);
}

static __always_inline bool kt_on(void)
{
	struct kt_bpf_state *st = kt_state();

	return st && st->tracing;
}

static __always_inline void kt_pidname(struct kt_bpf_state *st, __u32 pid,
				       const char *comm, bool always,
				       struct kt_who *who)
{
	__u64 w[3] = { 0, 0, 0 };
	__u32 bit = pid & 0xFFFF;
	__u64 mask = 1ULL << (bit % 64), *fw = &st->pid_filter[bit / 64];

	if (!always && (*fw & mask))
		return;
	__sync_fetch_and_or(fw, mask);
	w[0] = kutrace_make_word(KUTRACE_PIDNAME | (3 << KUTRACE_LEN_SHIFT),
				 pid & KUTRACE_ARG0_MASK);
	bpf_probe_read_kernel_str(&w[1], 16, comm);
	kt_put(w, 3, false, who);
}

/* A fault that never reached handle_mm_fault: close it (docs/spec/HOOKS.md 2.5 E). */
static __always_inline void kt_pf_close(void)
{
	struct kt_bpf_state *st = kt_state();
	__u32 cpu = bpf_get_smp_processor_id();

	if (!st || cpu >= KT_BPF_MAX_CPUS || !kt_cpu(st, cpu)->pf_pending)
		return;
	kt_cpu(st, cpu)->pf_pending = 0;
	kt_1(KUTRACE_TRAPRET + KUTRACE_TRAP_PAGEFAULT, 0);
}

/* System call 1023 from a user program: the inserts. */
static __always_inline void kt_sys1023(struct pt_regs *regs)
{
	__u64 cmd = regs->di, arg = regs->si;
	bool forced = cmd == KUTRACE_CMD_INSERT1_FORCED ||
		      cmd == KUTRACE_CMD_INSERTN_FORCED;
	__u64 w[KUTRACE_MAX_ENTRY_WORDS] = {};
	struct kt_who who;
	__u32 len = 1;

	kt_current(&who);
	if (cmd == KUTRACE_CMD_INSERT1 || cmd == KUTRACE_CMD_INSERT1_FORCED) {
		w[0] = arg;
	} else if (cmd == KUTRACE_CMD_INSERTN ||
		   cmd == KUTRACE_CMD_INSERTN_FORCED) {
		if (bpf_probe_read_user(w, sizeof(w), (void *)arg))
			return;
		len = (kutrace_word_event(w[0]) >> KUTRACE_LEN_SHIFT) &
		      KUTRACE_LEN_MASK;
		if (len < 1 || len > KUTRACE_MAX_ENTRY_WORDS)
			return;
	} else {
		return;
	}
	w[0] &= ~(KUTRACE_TS_MASK << KUTRACE_TS_SHIFT);
	kt_put(w, len, forced, &who);
}

/*
 * The tracepoints' arguments are BTF-typed kernel pointers: regs->di is a
 * plain load the JIT guards with an exception-table entry, where
 * BPF_CORE_READ would call bpf_probe_read_kernel (copy_from_kernel_nofault
 * and its checks) for every system call.
 */
SEC("tp_btf/sys_enter")
int BPF_PROG(kt_sys_enter, struct pt_regs *regs, long id)
{
	if (id == KUTRACE_CONTROL_SYSCALL) {
		kt_sys1023(regs);
		return 0;
	}
	if (!kt_on() || id < 0 || id >= KUTRACE_MAX_SYSCALL)
		return 0;
	kt_pf_close();
	kt_1(KUTRACE_SYSCALL64 | kutrace_map_syscall(id),
	     regs->di & KUTRACE_ARG0_MASK);
	return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(kt_sys_exit, struct pt_regs *regs, long ret)
{
	long id = regs->orig_ax;

	if (!kt_on() || id < 0 || id >= KUTRACE_MAX_SYSCALL)
		return 0;
	kt_1(KUTRACE_SYSRET64 | kutrace_map_syscall(id), ret);
	return 0;
}

/*
 * A vector's entry and exit programs differ in their section name and
 * event number only; each SEC() needs its own literal, hence two
 * definitions per vector from one macro.
 */
#define KT_VECTOR(name)							\
SEC("tp_btf/" #name "_entry")						\
int BPF_PROG(kt_##name##_entry, int vector)				\
{									\
	if (kt_on())							\
		kt_1(KUTRACE_IRQ + (vector & 0xFF), 0);			\
	return 0;							\
}									\
SEC("tp_btf/" #name "_exit")						\
int BPF_PROG(kt_##name##_exit, int vector)				\
{									\
	if (kt_on())							\
		kt_1(KUTRACE_IRQRET + (vector & 0xFF), 0);		\
	return 0;							\
}

KT_VECTOR(local_timer)
KT_VECTOR(reschedule)
KT_VECTOR(call_function)
KT_VECTOR(call_function_single)
KT_VECTOR(irq_work)
KT_VECTOR(x86_platform_ipi)
KT_VECTOR(spurious_apic)
KT_VECTOR(error_apic)
KT_VECTOR(thermal_apic)
KT_VECTOR(threshold_apic)
KT_VECTOR(deferred_error_apic)

/* Device interrupts: the IRQ number (as /proc/interrupts names it). */
SEC("tp_btf/irq_handler_entry")
int BPF_PROG(kt_irq_entry, int irq, struct irqaction *action)
{
	if (kt_on())
		kt_1(KUTRACE_IRQ + (irq & 0xFF), irq);
	return 0;
}

SEC("tp_btf/irq_handler_exit")
int BPF_PROG(kt_irq_exit, int irq, struct irqaction *action, int ret)
{
	if (kt_on())
		kt_1(KUTRACE_IRQRET + (irq & 0xFF), 0);
	return 0;
}

SEC("tp_btf/softirq_entry")
int BPF_PROG(kt_softirq_entry, unsigned int vec)
{
	if (kt_on())
		kt_1(KUTRACE_IRQ + KUTRACE_IRQ_BH, vec);
	return 0;
}

SEC("tp_btf/softirq_exit")
int BPF_PROG(kt_softirq_exit, unsigned int vec)
{
	if (kt_on())
		kt_1(KUTRACE_IRQRET + KUTRACE_IRQ_BH, 0);
	return 0;
}

static __always_inline void kt_fault(unsigned long address)
{
	struct kt_bpf_state *st = kt_state();
	__u32 cpu = bpf_get_smp_processor_id();

	if (!st || !st->tracing || cpu >= KT_BPF_MAX_CPUS)
		return;
	kt_pf_close();
	kt_1(KUTRACE_TRAP + KUTRACE_TRAP_PAGEFAULT, address & KUTRACE_ARG0_MASK);
	kt_cpu(st, cpu)->pf_pending = 1;
}

SEC("tp_btf/page_fault_user")
int BPF_PROG(kt_pf_user, unsigned long address, struct pt_regs *regs,
	     unsigned long error_code)
{
	kt_fault(address);
	return 0;
}

SEC("tp_btf/page_fault_kernel")
int BPF_PROG(kt_pf_kernel, unsigned long address, struct pt_regs *regs,
	     unsigned long error_code)
{
	kt_fault(address);
	return 0;
}

/* The fault's entry on this CPU now belongs to this task's handle_mm_fault. */
SEC("fentry/handle_mm_fault")
int BPF_PROG(kt_mm_fault_entry)
{
	struct kt_bpf_state *st = kt_state();
	__u32 cpu = bpf_get_smp_processor_id();
	__u32 *mine;

	if (!st || cpu >= KT_BPF_MAX_CPUS || !kt_cpu(st, cpu)->pf_pending)
		return 0;
	kt_cpu(st, cpu)->pf_pending = 0;
	mine = bpf_task_storage_get(&pf_task, bpf_get_current_task_btf(), 0,
				    BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (mine)
		*mine = 1;
	return 0;
}

SEC("fexit/handle_mm_fault")
int BPF_PROG(kt_mm_fault_exit)
{
	__u32 *mine = bpf_task_storage_get(&pf_task, bpf_get_current_task_btf(),
					   0, 0);

	if (mine && *mine) {
		*mine = 0;
		kt_1(KUTRACE_TRAPRET + KUTRACE_TRAP_PAGEFAULT, 0);
	}
	return 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(kt_sched_switch, bool preempt, struct task_struct *prev,
	     struct task_struct *next)
{
	struct kt_bpf_state *st = kt_state();
	struct kt_who who;
	__u64 w;

	if (!st || !st->tracing)
		return 0;
	kt_pf_close();
	kt_1(KUTRACE_SCHED_CALL, 0);
	/* New blocks from here on name the next task. */
	/* its name is read only if one of these entries starts a block */
	who.pid = next->pid;
	who.src = next->comm;
	kt_pidname(st, who.pid, next->comm, false, &who);
	w = kutrace_make_word(KUTRACE_USERPID, who.pid);
	kt_put(&w, 1, false, &who);
	w = kutrace_make_word(KUTRACE_SCHED_RET, 0);
	kt_put(&w, 1, false, &who);
	return 0;
}

SEC("tp_btf/sched_waking")
int BPF_PROG(kt_waking, struct task_struct *p)
{
	if (kt_on())
		kt_1(KUTRACE_RUNNABLE, p->pid);
	return 0;
}

SEC("tp_btf/sched_wakeup_new")
int BPF_PROG(kt_wakeup_new, struct task_struct *p)
{
	if (kt_on())
		kt_1(KUTRACE_RUNNABLE, p->pid);
	return 0;
}

SEC("tp_btf/sched_wake_idle_without_ipi")
int BPF_PROG(kt_wake_idle, int cpu)
{
	if (kt_on())
		kt_1(KUTRACE_MONITORSTORE, cpu);
	return 0;
}

SEC("tp_btf/sched_process_exec")
int BPF_PROG(kt_exec, struct task_struct *p)
{
	struct kt_bpf_state *st = kt_state();
	struct kt_who who;

	if (!st || !st->tracing)
		return 0;
	kt_current(&who);
	kt_pidname(st, p->pid, p->comm, true, &who);
	return 0;
}

SEC("tp_btf/task_rename")
int BPF_PROG(kt_rename, struct task_struct *task, const char *comm)
{
	struct kt_bpf_state *st = kt_state();
	struct kt_who who;

	if (!st || !st->tracing)
		return 0;
	kt_current(&who);
	kt_pidname(st, task->pid, comm, true, &who);
	return 0;
}

SEC("tp_btf/cpu_idle")
int BPF_PROG(kt_cpu_idle, unsigned int state, unsigned int cpu)
{
	if (kt_on() && state != (unsigned int)-1)
		kt_1(KUTRACE_MWAIT, state & 0xFF);
	return 0;
}

SEC("tp_btf/cpu_frequency")
int BPF_PROG(kt_cpu_freq, unsigned int khz, unsigned int cpu)
{
	if (kt_on() && cpu == bpf_get_smp_processor_id())
		kt_1(KUTRACE_PSTATE, khz / 1000);
	return 0;
}

/* IPI sends (docs/spec/HOOKS.md H7-H9): arg = target CPU, 0 for a CPU mask. */
static __always_inline void kt_ipi(unsigned int cpu)
{
	if (kt_on() && cpu != bpf_get_smp_processor_id())
		kt_1(KUTRACE_IPI, cpu);
}

/* One program per way of sending, to one CPU or to a mask of them. */
#define KT_IPI_TO(sec, name)						\
SEC(sec)								\
int BPF_PROG(name, unsigned int cpu)					\
{									\
	kt_ipi(cpu);							\
	return 0;							\
}
#define KT_IPI_MASK(sec, name)						\
SEC(sec)								\
int BPF_PROG(name)							\
{									\
	if (kt_on())							\
		kt_1(KUTRACE_IPI, 0);					\
	return 0;							\
}

KT_IPI_TO("tp_btf/ipi_send_cpu", kt_ipi_cpu)
KT_IPI_MASK("tp_btf/ipi_send_cpumask", kt_ipi_mask)
/* Kernels without the ipi_send_* tracepoints (6.1): the x86 send functions. */
KT_IPI_TO("fentry/native_smp_send_reschedule", kt_ipi_resched)
KT_IPI_TO("fentry/native_send_call_func_single_ipi", kt_ipi_single)
KT_IPI_MASK("fentry/native_send_call_func_ipi", kt_ipi_func)

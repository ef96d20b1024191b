/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUtrace hooks (kutrace project, https://github.com/dicksites/KUtrace
 * re-implemented): one call at every user/kernel transition.
 *
 * With CONFIG_KUTRACE=n every hook is an empty inline function.  With it
 * on and no module loaded a hook is one load of kutrace_tracing and a
 * not-taken branch.  The kutrace module fills kutrace_global_ops, then
 * sets kutrace_tracing; it clears the flag before it clears the ops.
 *
 * Event numbers and limits come from <linux/kutrace_format.h>, the trace
 * format header the module and the userland tools are built with (one
 * file in the kutrace tree, include/kutrace/format.h, copied as is).
 */
#ifndef _LINUX_KUTRACE_H
#define _LINUX_KUTRACE_H

#include <linux/types.h>
#include <linux/compiler.h>
#include <linux/instrumentation.h>
#include <linux/kutrace_format.h>

struct kutrace_ops {
	u64 (*kutrace_trace_1)(u64 event, u64 arg);
	u64 (*kutrace_trace_2)(u64 event, u64 arg1, u64 arg2);
	u64 (*kutrace_trace_many)(u64 event, u64 len, const void *words);
	u64 (*kutrace_trace_control)(u64 command, u64 arg);
};

/* Packet filter built by the module from its pktmask/pktmatch. */
struct kutrace_nf {
	u64 hash_init;
	u64 hash_mask[3];
};

/* Per-CPU state for modules that keep it in the kernel (FORMATS 3.1). */
struct kutrace_traceblock {
	atomic64_t next;
	u64 *limit;
	u64 prior_cycles;
	u64 prior_inst_retired;
	u64 prior_llc_misses;
};

struct task_struct;
struct sk_buff;

#ifdef CONFIG_KUTRACE
#include <linux/percpu.h>

extern bool kutrace_tracing;
extern struct kutrace_ops kutrace_global_ops;
extern u64 *kutrace_pid_filter;
extern struct kutrace_nf kutrace_net_filter;
extern atomic_t kutrace_control_active;
DECLARE_PER_CPU(struct kutrace_traceblock, kutrace_traceblock_per_cpu);

void kutrace_pidname(struct task_struct *t, bool always);
void kutrace_skb(u64 event, const struct sk_buff *skb, int offset);
bool kutrace_control_call(long nr, u64 command, u64 arg, unsigned long *ret);

static __always_inline void kutrace1(u64 event, u64 arg)
{
	if (unlikely(READ_ONCE(kutrace_tracing)))
		kutrace_global_ops.kutrace_trace_1(event, arg);
}

/* Idle entry, also from noinstr code where RCU is not watching. */
static __always_inline void kutrace_idle(u64 hint)
{
	if (unlikely(READ_ONCE(kutrace_tracing))) {
		instrumentation_begin();
		kutrace_global_ops.kutrace_trace_1(KUTRACE_MWAIT, hint);
		instrumentation_end();
	}
}

/* PC sample after the local timer interrupt; the module adds the MHz. */
static __always_inline void kutrace_pc(u64 pc)
{
	if (unlikely(READ_ONCE(kutrace_tracing)))
		kutrace_global_ops.kutrace_trace_2(KUTRACE_PC_U, 0, pc);
}

/* 64-bit syscall numbers 512..1022 go to the 0xC00/0xE00 blocks. */
static __always_inline void kutrace_syscall(unsigned int nr, u64 arg0)
{
	if (unlikely(READ_ONCE(kutrace_tracing)) && nr < KUTRACE_MAX_SYSCALL)
		kutrace_global_ops.kutrace_trace_1(KUTRACE_SYSCALL64 +
						   nr + (nr & 0x200),
						   arg0 & 0xFFFF);
}

static __always_inline void kutrace_sysret(unsigned int nr, u64 ret)
{
	if (unlikely(READ_ONCE(kutrace_tracing)) && nr < KUTRACE_MAX_SYSCALL)
		kutrace_global_ops.kutrace_trace_1(KUTRACE_SYSRET64 +
						   nr + (nr & 0x200), ret);
}

static __always_inline void kutrace_syscall32(unsigned int nr, u64 arg0)
{
	if (unlikely(READ_ONCE(kutrace_tracing)) && nr < KUTRACE_MAX_SYSCALL32)
		kutrace_global_ops.kutrace_trace_1(KUTRACE_SYSCALL32 + nr,
						   arg0 & 0xFFFF);
}

static __always_inline void kutrace_sysret32(unsigned int nr, u64 ret)
{
	if (unlikely(READ_ONCE(kutrace_tracing)) && nr < KUTRACE_MAX_SYSCALL32)
		kutrace_global_ops.kutrace_trace_1(KUTRACE_SYSRET32 + nr,
						   ret);
}

/* PIDNAME on first sight of @t (pid filter), then USERPID. */
static __always_inline void kutrace_switch(struct task_struct *t, u32 pid)
{
	if (unlikely(READ_ONCE(kutrace_tracing))) {
		kutrace_pidname(t, false);
		kutrace_global_ops.kutrace_trace_1(KUTRACE_USERPID, pid);
	}
}

/* PIDNAME always: exec and renames. */
static __always_inline void kutrace_rename(struct task_struct *t)
{
	if (unlikely(READ_ONCE(kutrace_tracing)))
		kutrace_pidname(t, true);
}

static __always_inline void kutrace_packet(u64 event,
					   const struct sk_buff *skb,
					   int offset)
{
	if (unlikely(READ_ONCE(kutrace_tracing)))
		kutrace_skb(event, skb, offset);
}

#else /* !CONFIG_KUTRACE */

static inline void kutrace1(u64 event, u64 arg) { }
static inline void kutrace_idle(u64 hint) { }
static inline void kutrace_pc(u64 pc) { }
static inline void kutrace_syscall(unsigned int nr, u64 arg0) { }
static inline void kutrace_sysret(unsigned int nr, u64 ret) { }
static inline void kutrace_syscall32(unsigned int nr, u64 arg0) { }
static inline void kutrace_sysret32(unsigned int nr, u64 ret) { }
static inline void kutrace_switch(struct task_struct *t, u32 pid) { }
static inline void kutrace_rename(struct task_struct *t) { }
static inline void kutrace_packet(u64 event, const struct sk_buff *skb,
				  int offset) { }
static inline bool kutrace_control_call(long nr, u64 command, u64 arg,
					unsigned long *ret)
{
	return false;
}

#endif /* CONFIG_KUTRACE */
#endif /* _LINUX_KUTRACE_H */

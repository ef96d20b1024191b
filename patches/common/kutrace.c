// SPDX-License-Identifier: GPL-2.0
/*
 * The always-built part of KUtrace: the flag and tables that the kutrace
 * module fills in, and the out-of-line parts of the hooks.  See
 * include/linux/kutrace.h.
 */
#include <linux/atomic.h>
#include <linux/export.h>
#include <linux/kutrace.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/skbuff.h>
#include <linux/string.h>

bool kutrace_tracing __read_mostly;
EXPORT_SYMBOL_GPL(kutrace_tracing);

struct kutrace_ops kutrace_global_ops __read_mostly;
EXPORT_SYMBOL_GPL(kutrace_global_ops);

u64 *kutrace_pid_filter __read_mostly;
EXPORT_SYMBOL_GPL(kutrace_pid_filter);

/* hash_init 1: no packet passes until the module sets a filter. */
struct kutrace_nf kutrace_net_filter __read_mostly = { .hash_init = 1 };
EXPORT_SYMBOL_GPL(kutrace_net_filter);

/* Control calls in progress; the module waits for 0 before unloading. */
atomic_t kutrace_control_active = ATOMIC_INIT(0);
EXPORT_SYMBOL_GPL(kutrace_control_active);

DEFINE_PER_CPU(struct kutrace_traceblock, kutrace_traceblock_per_cpu);
EXPORT_PER_CPU_SYMBOL_GPL(kutrace_traceblock_per_cpu);

/* PIDNAME entry: pid, then the 16-byte command name. */
void kutrace_pidname(struct task_struct *t, bool always)
{
	u64 (*many)(u64 event, u64 len, const void *words);
	u64 *filter = READ_ONCE(kutrace_pid_filter);
	u32 pid = t->pid & 0xFFFF;
	u64 w[3];

	if (!always && filter && (READ_ONCE(filter[pid >> 6]) & BIT_ULL(pid & 63)))
		return;
	many = READ_ONCE(kutrace_global_ops.kutrace_trace_many);
	if (!many)
		return;
	w[0] = pid;
	BUILD_BUG_ON(sizeof(t->comm) != 2 * sizeof(u64));
	memcpy(&w[1], t->comm, sizeof(t->comm));
	many(KUTRACE_PIDNAME, 3, w);
}
EXPORT_SYMBOL_GPL(kutrace_pidname);

#ifdef CONFIG_NET
/*
 * Packet entry for IPv4 TCP/UDP payloads of at least 32 bytes that pass
 * the module's filter.  The payload starts @offset bytes after skb->data;
 * skb_header_pointer() copies it when it is not in the linear part, so
 * nothing past the linear area is read directly.
 */
void kutrace_skb(u64 event, const struct sk_buff *skb, int offset)
{
	const struct kutrace_nf *nf = &kutrace_net_filter;
	u8 buf[32];
	const u8 *p;
	__le64 q[4];
	u64 p0, p1, p2, p3, h;

	if (offset < 0 || skb->len < offset + sizeof(buf))
		return;
	p = skb_header_pointer(skb, offset, sizeof(buf), buf);
	if (!p)
		return;
	memcpy(q, p, sizeof(q));
	p0 = le64_to_cpu(q[0]);
	p1 = le64_to_cpu(q[1]);
	p2 = le64_to_cpu(q[2]);
	p3 = le64_to_cpu(q[3]);
	h = nf->hash_init ^ (p0 & nf->hash_mask[0]) ^
	    (p1 & nf->hash_mask[1]) ^ (p2 & nf->hash_mask[2]);
	h ^= h >> 32;
	if (h & 0xFFFFFFFF)
		return;
	h = p0 ^ p1 ^ p2 ^ p3;
	h ^= h >> 32;
	kutrace1(event, h & 0xFFFFFFFF);
}
#else
void kutrace_skb(u64 event, const struct sk_buff *skb, int offset)
{
}
#endif
EXPORT_SYMBOL_GPL(kutrace_skb);

/*
 * System call KUTRACE_CONTROL_SYSCALL: the original user library's control
 * call, forwarded to the module.  False when it is another number or no
 * module is loaded (the caller then fails it with ENOSYS).
 */
bool kutrace_control_call(long nr, u64 command, u64 arg, unsigned long *ret)
{
	u64 (*ctl)(u64 command, u64 arg);

	if (nr != KUTRACE_CONTROL_SYSCALL)
		return false;
	atomic_inc(&kutrace_control_active);
	/* Pairs with the module clearing the pointer before it waits. */
	smp_mb__after_atomic();
	ctl = READ_ONCE(kutrace_global_ops.kutrace_trace_control);
	if (ctl)
		*ret = ctl(command, arg);
	atomic_dec(&kutrace_control_active);
	return ctl;
}

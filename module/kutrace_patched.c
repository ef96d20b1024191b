// SPDX-License-Identifier: GPL-2.0
/*
 * kutrace_patched.c - event source for kernels built with the kutrace
 * patch (patches/linux-<version>/, CONFIG_KUTRACE=y).
 *
 * The kernel calls the four functions of kutrace_global_ops from a hook at
 * every transition: syscalls (64-bit and ia32), every interrupt vector,
 * page faults and other exceptions, the scheduler, wakeups, idle, exec and
 * renames, packets.  Every call and every return is observed, nothing is
 * reconstructed.  System call 1023 reaches the control commands.
 *
 * Built only when Kbuild finds CONFIG_KUTRACE in the target kernel
 * (KT_HAVE_KUTRACE_PATCH); the kernel's symbols then resolve at load.
 * The hooks and this module take every event number from the same header,
 * the kernel's <linux/kutrace_format.h> (see Kbuild).
 */
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/kutrace.h>
#include <linux/ptrace.h>
#include <linux/delay.h>
#include <linux/rcupdate.h>
#include <linux/sched/task_stack.h>
#include <asm/unistd.h>

#include "kutrace_core.h"
#include "kutrace_backend.h"

/* The control program's own ioctls are not traced. */
static bool kt_pt_control_ioctl(u64 event)
{
	if (event != (KUTRACE_SYSCALL64 | __NR_ioctl) &&
	    event != (KUTRACE_SYSRET64 | __NR_ioctl))
		return false;
	return _IOC_TYPE((unsigned int)current_pt_regs()->si) ==
	       KUTRACE_IOC_MAGIC;
}

static u64 kt_pt_trace_1(u64 event, u64 arg)
{
	if (unlikely(kt_pt_control_ioctl(event)))
		return 0;
	kt_trace_1(event, arg);
	return 0;
}

static u64 kt_pt_trace_2(u64 event, u64 arg1, u64 arg2)
{
	kt_trace_2(event, arg1, arg2);
	return 0;
}

static u64 kt_pt_trace_many(u64 event, u64 len, const void *words)
{
	const u64 *w = words;
	char comm[KUTRACE_HDR_COMM_BYTES + 1];

	if (event == KUTRACE_PIDNAME && len == 3) {
		/* The kernel tested the pid filter; this sets the bit. */
		memcpy(comm, &w[1], KUTRACE_HDR_COMM_BYTES);
		comm[KUTRACE_HDR_COMM_BYTES] = '\0';
		kt_pidname(w[0], comm, true);
		return 0;
	}
	if (len < 1 || len > KUTRACE_MAX_ENTRY_WORDS)
		return 0;
	return kt_trace_many(event, len, w, false);
}

/* The module's pktmask/pktmatch filter into the kernel's packet hooks. */
static void kt_pt_net_filter(void)
{
	struct kutrace_nf nf;

	kt_net_filter(&nf.hash_init, nf.hash_mask);
	kutrace_net_filter = nf;
}

static void kt_pt_set_tracing(bool on)
{
	WRITE_ONCE(kutrace_tracing, on);
}

static int kt_pt_attach(void)
{
	struct kutrace_ops *ops = &kutrace_global_ops;

	if (READ_ONCE(ops->kutrace_trace_1) || READ_ONCE(kutrace_tracing)) {
		pr_err("kutrace: the kernel's hooks are taken by another module\n");
		return -EBUSY;
	}
	kt_pt_net_filter();
	WRITE_ONCE(kutrace_pid_filter, kt_st.pid_filter);
	WRITE_ONCE(ops->kutrace_trace_2, kt_pt_trace_2);
	WRITE_ONCE(ops->kutrace_trace_many, kt_pt_trace_many);
	WRITE_ONCE(ops->kutrace_trace_control, kt_control_call);
	/* Published last: kutrace_tracing stays off until the ON command. */
	smp_wmb();
	WRITE_ONCE(ops->kutrace_trace_1, kt_pt_trace_1);
	pr_info("kutrace: patched-kernel backend (syscall %d controls)\n",
		KUTRACE_CONTROL_SYSCALL);
	return 0;
}

static void kt_pt_detach(void)
{
	struct kutrace_ops *ops = &kutrace_global_ops;

	WRITE_ONCE(kutrace_tracing, false);
	WRITE_ONCE(ops->kutrace_trace_control, NULL);
	/* Pairs with the barrier in kutrace_control_call(). */
	smp_mb();
	while (atomic_read(&kutrace_control_active))
		usleep_range(1000, 2000);
	/*
	 * A system call 1023 that was already inside the module may have
	 * run an ON command after the first write above, turning the flag
	 * back on; with the ops cleared below every hook would then call
	 * NULL.  No caller is left now, so this write is the last.
	 */
	WRITE_ONCE(kutrace_tracing, false);
	/* Hooks that saw the flag on finish before the ops go away. */
	synchronize_rcu();
	msleep(20);
	WRITE_ONCE(ops->kutrace_trace_1, NULL);
	WRITE_ONCE(ops->kutrace_trace_2, NULL);
	WRITE_ONCE(ops->kutrace_trace_many, NULL);
	WRITE_ONCE(kutrace_pid_filter, NULL);
	kutrace_net_filter.hash_init = 1;
}

const struct kt_backend kt_patched_backend = {
	.name		= "patched",
	.id		= KUTRACE_BACKEND_PATCHED,
	.reconstructed	= "patched: nothing reconstructed",
	.attach		= kt_pt_attach,
	.detach		= kt_pt_detach,
	.set_tracing	= kt_pt_set_tracing,
};

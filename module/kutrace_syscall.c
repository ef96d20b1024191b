// SPDX-License-Identifier: GPL-2.0
/*
 * kutrace_syscall.c - system call 1023 on a stock kernel.
 *
 * The original user library talks to the tracer only through
 * syscall(1023, command, arg).  A stock x86-64 kernel has no such call,
 * and do_syscall_64 (noinstr, not probeable) answers numbers beyond its
 * table with -ENOSYS inline.  So the call is routed in two steps:
 *
 * 1. The sys_enter tracepoint probe (kutrace_tp.c, attached from load
 *    to unload while the call is served) changes the number of a 64-bit
 *    call 1023 to KT_SYS1023_CARRIER: bit 32 set, so no program's call
 *    looks like it, over an unassigned number inside the table, which
 *    the kernel (one that re-reads the number after the tracepoint, as
 *    Debian's 6.1 and 6.12 do) dispatches as an int to
 *    __x64_sys_ni_syscall, out of line.
 * 2. A kprobe there sees the carrier, puts 1023 back and sends the CPU
 *    on to kt_sys1023 instead of the function: it runs in the caller's
 *    context, may sleep, and returns its answer to the program.
 *    kt_sys1023 calls kt_control_call, the command switch the patched
 *    kernel's hook calls.
 *
 * Every other system call sees one compare more in each probe; only
 * numbers the kernel does not implement reach the kprobe.  Not attached
 * under confidentiality lockdown; when kprobes are switched off
 * (debugfs kprobes/enabled) the call is left alone and fails with ENOSYS.
 *
 * x86-64 only: on arm64 the number the kernel dispatches is 32 bits, so no
 * carrier is free of programs' calls; there sys1023 reads back
 * unavailable and the library uses /dev/kutrace.
 */
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/kprobes.h>
#include <linux/ptrace.h>
#include <linux/security.h>
#include <linux/sched/task_stack.h>
#include <linux/delay.h>
#include <asm/syscall.h>

#include "kutrace_core.h"
#include "kutrace_backend.h"

static bool sys1023 = true;

static int kt_sys_param_get(char *buf, const struct kernel_param *kp);

static const struct kernel_param_ops kt_sys_param_ops = {
	.set	= param_set_bool,
	.get	= kt_sys_param_get,
};

module_param_cb(sys1023, &kt_sys_param_ops, &sys1023, 0444);
MODULE_PARM_DESC(sys1023,
		 "stock kernel: serve system call 1023 for the original user library (default 1); reads back served or unavailable: REASON");

#ifndef CONFIG_X86
static int kt_sys_param_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "unavailable: x86-64 only\n");
}

void kt_sys1023_attach(void)
{
	pr_info("kutrace: system call 1023 unavailable: x86-64 only\n");
}

void kt_sys1023_detach(void)
{
}

bool kt_sys1023_attached(void)
{
	return false;
}

void kt_sys1023_route(struct pt_regs *regs)
{
}

void kt_sys1023_unroute(struct pt_regs *regs)
{
}
#else
static const char *kt_sys_state = "served by the kernel's kutrace patch";

/* Calls sent to kt_sys1023 and not yet returned. */
static atomic_t kt_sys_active = ATOMIC_INIT(0);
static bool kt_sys_attached;
/* The last routed call did not reach the kprobe (see unroute). */
static bool kt_sys_ignored;

/*
 * Runs instead of __x64_sys_ni_syscall, returning to its caller in the
 * system call dispatcher.  The arguments are the caller's registers.
 */
static noinline long kt_sys1023(void)
{
	struct pt_regs *regs = current_pt_regs();
	long ret = (long)kt_control_call(regs->di, regs->si);

	atomic_dec(&kt_sys_active);
	return ret;
}

static int kt_sys_ni_pre(struct kprobe *p, struct pt_regs *regs)
{
	struct pt_regs *user = current_pt_regs();

	if (user->orig_ax != KT_SYS1023_CARRIER)
		return 0;
	user->orig_ax = KUTRACE_CONTROL_SYSCALL;
	WRITE_ONCE(kt_sys_ignored, false);
	atomic_inc(&kt_sys_active);
	regs->ip = (unsigned long)kt_sys1023;
	return 1;	/* the execution path changed: no single step */
}

/* Never called for 1023; its presence keeps the probe an int3. */
static void kt_sys_ni_post(struct kprobe *p, struct pt_regs *regs,
			   unsigned long flags)
{
}

static struct kprobe kt_sys_kp = {
	.symbol_name	= "__x64_sys_ni_syscall",
	.pre_handler	= kt_sys_ni_pre,
	.post_handler	= kt_sys_ni_post,
};

/* The int3 is in the text unless kprobes are switched off. */
static bool kt_sys_armed(void)
{
	return kt_sys_attached && *(u8 *)kt_sys_kp.addr == 0xCC;
}

#define KT_SYS_NOKPROBES "unavailable: kprobes are disabled (debugfs kprobes/enabled)"
#define KT_SYS_IGNORED "unavailable: calls miss the kprobe (the kernel ignores the sys_enter rewrite?)"

static int kt_sys_param_get(char *buf, const struct kernel_param *kp)
{
	const char *s = kt_sys_state;

	if (kt_sys_attached && READ_ONCE(kt_sys_ignored))
		s = KT_SYS_IGNORED;
	if (kt_sys_attached && !kt_sys_armed())
		s = KT_SYS_NOKPROBES;
	return sysfs_emit(buf, "%s\n", s);
}

void kt_sys1023_route(struct pt_regs *regs)
{
	if (kt_sys_armed() && !in_ia32_syscall())
		regs->orig_ax = KT_SYS1023_CARRIER;
}

/*
 * A routed call that never reached the kprobe (the kernel dispatched it
 * as 1023, or kprobes went off meanwhile) returns ENOSYS with its number.
 */
void kt_sys1023_unroute(struct pt_regs *regs)
{
	regs->orig_ax = KUTRACE_CONTROL_SYSCALL;
	WRITE_ONCE(kt_sys_ignored, true);
}

static void kt_sys_refuse(const char *why)
{
	kt_sys_state = why;
	pr_warn("kutrace: system call 1023 %s; use /dev/kutrace\n", why);
}

void kt_sys1023_attach(void)
{
	static char why[80];
	int ret;

	if (!sys1023) {
		kt_sys_state = "unavailable: sys1023=0";
		pr_info("kutrace: system call 1023 unavailable: sys1023=0\n");
		return;
	}
	if (security_locked_down(LOCKDOWN_KPROBES)) {
		kt_sys_refuse("unavailable: kernel lockdown");
		return;
	}
	ret = register_kprobe(&kt_sys_kp);
	if (ret) {
		snprintf(why, sizeof(why),
			 "unavailable: no kprobe on __x64_sys_ni_syscall (%d)",
			 ret);
		kt_sys_refuse(why);
		return;
	}
	kt_sys_attached = true;
	if (!kt_sys_armed()) {
		kt_sys1023_detach();
		kt_sys_refuse(KT_SYS_NOKPROBES);
		return;
	}
	kt_sys_state = "served (kprobe on __x64_sys_ni_syscall)";
	pr_info("kutrace: system call 1023 served (kprobe on __x64_sys_ni_syscall)\n");
}

bool kt_sys1023_attached(void)
{
	return kt_sys_attached;
}

void kt_sys1023_detach(void)
{
	if (!kt_sys_attached)
		return;
	/* No pre-handler runs after this; no new call reaches kt_sys1023. */
	unregister_kprobe(&kt_sys_kp);
	kt_sys_attached = false;
	while (atomic_read(&kt_sys_active))
		usleep_range(1000, 2000);
	/* A task preempted after its atomic_dec has left kt_sys1023 too. */
	synchronize_rcu_tasks();
}
#endif /* CONFIG_X86 */

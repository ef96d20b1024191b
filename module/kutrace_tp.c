// SPDX-License-Identifier: GPL-2.0
/*
 * kutrace_tp.c - event source for stock kernels: tracepoints found by name
 * (for_each_kernel_tracepoint) plus one kretprobe, and on kernels without
 * the ipi_send_* tracepoints (before 6.6) kprobes on the x86 IPI send
 * functions (arm64: the ipi_raise tracepoint).  See docs/spec/HOOKS.md 2.
 *
 * arm64: the timer and IPIs are ordinary IRQs (irq_handler_entry/exit),
 * numbered as the original's Arm traces are: IRQ number & 0xFF, IPIs (GIC
 * SGIs) at 246 + IPI number (docs/spec/FORMATS.md 1.7).  There are no page
 * fault tracepoints: the kretprobe on handle_mm_fault records both ends of
 * the faults the exception handler sends there.  No ia32 calls; 32-bit
 * (compat) tasks' calls are traced as SYSCALL32 events.
 *
 * riscv64: the timer ("riscv-timer", the hart's local interrupt) and the
 * PLIC's device interrupts are ordinary IRQs, numbered irq & 0xFF; page
 * faults as on arm64.  Its IPIs (6.1) are no IRQs and have no tracepoint:
 * kprobes on the send functions, as on x86-64 6.1, and a kretprobe on
 * handle_IPI for the receiving side, one interrupt number for every
 * reason (KT_RV_IPI_EVENT), as the kernel handles all pending reasons in
 * one call.
 *
 * The probes are attached at ON and detached when tracing stops (see
 * kt_tp_arm): a loaded module that is not tracing costs nothing, except
 * the two system call probes while system call 1023 is served.
 *
 * Reconstructed, not observed: the scheduler span (0xDFF/0xFFF around
 * each context switch, zero length) and page-fault exits (kretprobe on
 * handle_mm_fault, only for faults whose entry was traced on that CPU).
 * System call 1023 (control) is routed to kutrace_syscall.c and, as on
 * the patched kernel, not traced.
 */
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/tracepoint.h>
#include <linux/kprobes.h>
#include <linux/sched.h>
#include <linux/irq.h>
#include <linux/interrupt.h>
#include <linux/ptrace.h>
#include <linux/string.h>
#include <linux/compat.h>
#include <asm/syscall.h>
#include <asm/irq_regs.h>
#include <asm/unistd.h>
#include <trace/events/syscalls.h>
#include <trace/events/sched.h>
#include <trace/events/irq.h>
#include <trace/events/power.h>
#include <trace/events/task.h>
#ifdef CONFIG_X86
#include <asm/hw_irq.h>
#include <asm/trace/irq_vectors.h>
#include <asm/trace/exceptions.h>
#endif
#if defined(KT_HAVE_IPI_TRACEPOINTS) || defined(CONFIG_ARM64)
#include <trace/events/ipi.h>
#endif

#include "kutrace_core.h"
#include "kutrace_backend.h"

/* The system call's arguments at sys_enter, and whether it is a 32-bit one. */
#ifdef CONFIG_X86
#define KT_ARG0(regs)		((regs)->di)
#define KT_ARG1(regs)		((regs)->si)
#define KT_ARG0_32(regs)	((regs)->bx)
#define kt_syscall32()		in_ia32_syscall()
#elif defined(CONFIG_RISCV)
#define KT_ARG0(r)		((r)->orig_a0)
#define KT_ARG1(r)		((r)->a1)
#define KT_ARG0_32(r)		((r)->orig_a0)
#define kt_syscall32()		in_compat_syscall()
#else
#define KT_ARG0(r)		((r)->regs[0])
#define KT_ARG1(r)		((r)->regs[1])
#define KT_ARG0_32(r)		((r)->regs[0])
#define kt_syscall32()		in_compat_syscall()
#endif

static bool kt_is_control_ioctl(struct pt_regs *regs, long id)
{
	return id == __NR_ioctl &&
	       _IOC_TYPE((unsigned int)KT_ARG1(regs)) == KUTRACE_IOC_MAGIC;
}

/* A fault entry on this CPU waiting for handle_mm_fault to claim it. */
static DEFINE_PER_CPU(bool, kt_pf_pending);

/*
 * A fault that never reached handle_mm_fault (bad area, exception-table
 * fixup, spurious) has no exit: close it at the CPU's next syscall, fault
 * or context switch (docs/spec/HOOKS.md 2.5 E).
 */
static __always_inline void kt_pf_close(void)
{
	if (unlikely(this_cpu_read(kt_pf_pending))) {
		this_cpu_write(kt_pf_pending, false);
		kt_trace_1(KUTRACE_TRAPRET + KUTRACE_TRAP_PAGEFAULT, 0);
	}
}

static void kt_sys_enter(void *d, struct pt_regs *regs, long id)
{
	if (unlikely(id == KUTRACE_CONTROL_SYSCALL)) {
		kt_sys1023_route(regs);		/* not traced, as when patched */
		return;
	}
	if (!READ_ONCE(kt_tracing) || id < 0)
		return;
	kt_pf_close();
	if (kt_syscall32()) {
		if (id < KUTRACE_MAX_SYSCALL32)
			kt_trace_1(KUTRACE_SYSCALL32 + id,
				   KT_ARG0_32(regs) & KUTRACE_ARG0_MASK);
		return;
	}
	if (id >= KUTRACE_MAX_SYSCALL || kt_is_control_ioctl(regs, id))
		return;
	kt_trace_1(KUTRACE_SYSCALL64 | kutrace_map_syscall(id),
		   KT_ARG0(regs) & KUTRACE_ARG0_MASK);
}

static void kt_sys_exit(void *d, struct pt_regs *regs, long ret)
{
	long id = syscall_get_nr(current, regs);

	if (unlikely(id == KT_SYS1023_CARRIER))
		kt_sys1023_unroute(regs);
	if (!READ_ONCE(kt_tracing) || id < 0)
		return;
	if (kt_syscall32()) {
		if (id < KUTRACE_MAX_SYSCALL32)
			kt_trace_1(KUTRACE_SYSRET32 + id, ret);
		return;
	}
	if (id >= KUTRACE_MAX_SYSCALL || kt_is_control_ioctl(regs, id))
		return;
	kt_trace_1(KUTRACE_SYSRET64 | kutrace_map_syscall(id), ret);
}

#ifdef CONFIG_X86
static void kt_vec_entry(void *d, int vector)
{
	kt_trace_1(KUTRACE_IRQ + (vector & 0xFF), 0);
}

static void kt_vec_exit(void *d, int vector)
{
	kt_trace_1(KUTRACE_IRQRET + (vector & 0xFF), 0);
}

/* Local timer return, then the PC sample of the interrupted code. */
static void kt_timer_exit(void *d, int vector)
{
	struct pt_regs *regs = get_irq_regs();

	if (!READ_ONCE(kt_tracing))
		return;
	kt_trace_1(KUTRACE_IRQRET + (vector & 0xFF), 0);
	if (regs)
		kt_trace_2(KUTRACE_PC_U, 0, instruction_pointer(regs));
}

static unsigned int kt_irq_vector(int irq)
{
	struct irq_data *data = irq_get_irq_data(irq);
	struct irq_cfg *cfg = data ? irqd_cfg(data) : NULL;

	return cfg ? cfg->vector & 0xFF : irq & 0xFF;
}

static void kt_irq_entry(void *d, int irq, struct irqaction *action)
{
	if (READ_ONCE(kt_tracing))
		kt_trace_1(KUTRACE_IRQ + kt_irq_vector(irq), irq);
}

static void kt_irq_exit(void *d, int irq, struct irqaction *action, int ret)
{
	if (READ_ONCE(kt_tracing))
		kt_trace_1(KUTRACE_IRQRET + kt_irq_vector(irq), 0);
}
#else /* arm64, riscv64 */
#ifdef CONFIG_ARM64
/* GIC: SGIs (INTID 0..15) are the IPIs, PPIs (16..31) per-CPU sources. */
#define KT_ARM_IPI_EVENT	246	/* + IPI number (the original's Arm numbering) */
#define KT_ARM_NR_IPI		(KUTRACE_IRQ_BH - KT_ARM_IPI_EVENT)
#define KT_GIC_NR_SGI		16
#define KT_GIC_NR_PPI_END	32

/* The trace's interrupt number; *timer: the architected timer's PPI. */
static unsigned int kt_irq_vector(int irq, struct irqaction *action,
				  bool *timer)
{
	struct irq_data *data = irq_get_irq_data(irq);

	*timer = false;
	if (data && irqd_is_per_cpu(data)) {
		if (data->hwirq < KT_ARM_NR_IPI)
			return KT_ARM_IPI_EVENT + data->hwirq;
		*timer = data->hwirq >= KT_GIC_NR_SGI &&
			 data->hwirq < KT_GIC_NR_PPI_END && action &&
			 action->name && !strcmp(action->name, "arch_timer");
	}
	return irq & 0xFF;
}
#else
/* The trace's interrupt number; *timer: the hart's timer interrupt. */
static unsigned int kt_irq_vector(int irq, struct irqaction *action,
				  bool *timer)
{
	*timer = action && action->name && !strcmp(action->name, "riscv-timer");
	return irq & 0xFF;
}
#endif

static void kt_irq_entry(void *d, int irq, struct irqaction *action)
{
	bool timer;

	if (READ_ONCE(kt_tracing))
		kt_trace_1(KUTRACE_IRQ + kt_irq_vector(irq, action, &timer),
			   irq);
}

/* After the timer's return, the PC sample of the interrupted code. */
static void kt_irq_exit(void *d, int irq, struct irqaction *action, int ret)
{
	struct pt_regs *regs;
	bool timer;

	if (!READ_ONCE(kt_tracing))
		return;
	kt_trace_1(KUTRACE_IRQRET + kt_irq_vector(irq, action, &timer), 0);
	regs = timer ? get_irq_regs() : NULL;
	if (regs)
		kt_trace_2(KUTRACE_PC_U, 0, instruction_pointer(regs));
}
#endif

static void kt_softirq_entry(void *d, unsigned int vec_nr)
{
	kt_trace_1(KUTRACE_IRQ + KUTRACE_IRQ_BH, vec_nr);
}

static void kt_softirq_exit(void *d, unsigned int vec_nr)
{
	kt_trace_1(KUTRACE_IRQRET + KUTRACE_IRQ_BH, 0);
}

/* A kretprobe's data: the event its return records, 0 for none. */
#define KT_PF_EXIT	(KUTRACE_TRAPRET + KUTRACE_TRAP_PAGEFAULT)

#ifdef CONFIG_X86
static void kt_page_fault(void *d, unsigned long address,
			  struct pt_regs *regs, unsigned long error_code)
{
	if (!READ_ONCE(kt_tracing))
		return;
	kt_pf_close();
	kt_trace_1(KUTRACE_TRAP + KUTRACE_TRAP_PAGEFAULT,
		   address & KUTRACE_ARG0_MASK);
	this_cpu_write(kt_pf_pending, true);
}

static int kt_mm_fault_entry(struct kretprobe_instance *ri,
			     struct pt_regs *regs)
{
	u32 *exit_ev = (u32 *)ri->data;

	*exit_ev = this_cpu_read(kt_pf_pending) ? KT_PF_EXIT : 0;
	this_cpu_write(kt_pf_pending, false);
	return 0;
}
#else
/*
 * handle_mm_fault(vma, address, flags, regs): the exception handler passes
 * its registers, get_user_pages() and other callers in the kernel NULL.
 */
static int kt_mm_fault_entry(struct kretprobe_instance *ri,
			     struct pt_regs *regs)
{
	u32 *exit_ev = (u32 *)ri->data;
	bool mine = READ_ONCE(kt_tracing) && regs_get_kernel_argument(regs, 3);

	*exit_ev = mine ? KT_PF_EXIT : 0;
	if (mine)
		kt_trace_1(KUTRACE_TRAP + KUTRACE_TRAP_PAGEFAULT,
			   regs_get_kernel_argument(regs, 1) &
			   KUTRACE_ARG0_MASK);
	return 0;
}
#endif

/* Every kretprobe's return: the event its entry chose, if any. */
static int kt_krp_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	u32 exit_ev = *(u32 *)ri->data;

	if (exit_ev)
		kt_trace_1(exit_ev, 0);
	return 0;
}

static struct kretprobe kt_mm_fault_krp = {
	.kp.symbol_name	= "handle_mm_fault",
	.entry_handler	= kt_mm_fault_entry,
	.handler	= kt_krp_ret,
	.data_size	= sizeof(u32),
	.maxactive	= 256,
};

#ifdef CONFIG_RISCV
/* IPI receive: handle_IPI(regs), in the hart's interrupt (see the top). */
#define KT_RV_IPI_EVENT	246

static int kt_ipi_recv_entry(struct kretprobe_instance *ri,
			     struct pt_regs *regs)
{
	u32 *exit_ev = (u32 *)ri->data;

	*exit_ev = 0;
	if (READ_ONCE(kt_tracing)) {
		kt_trace_1(KUTRACE_IRQ + KT_RV_IPI_EVENT, 0);
		*exit_ev = KUTRACE_IRQRET + KT_RV_IPI_EVENT;
	}
	return 0;
}

static struct kretprobe kt_ipi_recv_krp = {
	.kp.symbol_name	= "handle_IPI",
	.entry_handler	= kt_ipi_recv_entry,
	.handler	= kt_krp_ret,
	.data_size	= sizeof(u32),
	.maxactive	= 64,
};
#endif

static struct kretprobe *const kt_krps[] = {
	&kt_mm_fault_krp,
#ifdef CONFIG_RISCV
	&kt_ipi_recv_krp,
#endif
};

static bool kt_krp_ok[ARRAY_SIZE(kt_krps)];

static void kt_krp_enable(bool on)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(kt_krps); i++) {
		if (!kt_krp_ok[i])
			continue;
		if (on)
			enable_kretprobe(kt_krps[i]);
		else
			disable_kretprobe(kt_krps[i]);
	}
}

static void kt_sched_switch(void *d, bool preempt, struct task_struct *prev,
			    struct task_struct *next, unsigned int prev_state)
{
	if (!READ_ONCE(kt_tracing))
		return;
	kt_pf_close();
	kt_trace_1(KUTRACE_SCHED_CALL, 0);
	kt_switch_begin(next->pid, next->comm);
	kt_pidname(next->pid, next->comm, false);
	kt_trace_1(KUTRACE_USERPID, next->pid);
	kt_trace_1(KUTRACE_SCHED_RET, 0);
	kt_switch_end();
}

static void kt_waking(void *d, struct task_struct *p)
{
	kt_trace_1(KUTRACE_RUNNABLE, p->pid);
}

static void kt_wake_idle(void *d, int cpu)
{
	kt_trace_1(KUTRACE_MONITORSTORE, cpu);
}

static void kt_exec(void *d, struct task_struct *p, pid_t old_pid,
		    struct linux_binprm *bprm)
{
	kt_pidname(p->pid, p->comm, true);
}

static void kt_rename(void *d, struct task_struct *task, const char *comm)
{
	char buf[TASK_COMM_LEN];

	if (!READ_ONCE(kt_tracing))
		return;
	strscpy_pad(buf, comm, sizeof(buf));
	kt_pidname(task->pid, buf, true);
}

static void kt_cpu_idle(void *d, unsigned int state, unsigned int cpu)
{
	if (state != PWR_EVENT_EXIT)
		kt_trace_1(KUTRACE_MWAIT, state & 0xFF);
}

static void kt_cpu_freq(void *d, unsigned int khz, unsigned int cpu)
{
	if (READ_ONCE(kt_tracing) && cpu == raw_smp_processor_id())
		kt_trace_1(KUTRACE_PSTATE, khz / 1000);
}

/* IPI send (docs/spec/HOOKS.md H7-H9): arg = target CPU, 0 for a CPU mask. */
static __always_inline void kt_ipi_send(unsigned int cpu)
{
	if (READ_ONCE(kt_tracing) && cpu != raw_smp_processor_id())
		kt_trace_1(KUTRACE_IPI, cpu);
}

static __always_inline void kt_ipi_send_mask(void)
{
	if (READ_ONCE(kt_tracing))
		kt_trace_1(KUTRACE_IPI, 0);
}

#if defined(CONFIG_ARM64) && !defined(KT_HAVE_IPI_TRACEPOINTS)
/* arm64 before 6.6: every IPI goes through smp_cross_call's ipi_raise. */
static void kt_ipi_raise(void *d, const struct cpumask *target,
			 const char *reason)
{
	if (cpumask_weight(target) == 1)
		kt_ipi_send(cpumask_first(target));
	else
		kt_ipi_send_mask();
}
#endif

#ifdef KT_HAVE_IPI_TRACEPOINTS
static void kt_ipi_cpu(void *d, const unsigned int cpu, unsigned long site,
		       void *callback)
{
	kt_ipi_send(cpu);	/* not irq_work's self-IPIs */
}

static void kt_ipi_mask(void *d, const struct cpumask *mask,
			unsigned long site, void *callback)
{
	kt_ipi_send_mask();
}
#endif

#if defined(CONFIG_X86) || defined(CONFIG_RISCV)
/*
 * Without the ipi_send_* tracepoints (6.1): kprobes on the functions the
 * x86 smp_ops send through, as the original patch hooks them (riscv64:
 * the functions the scheduler and smp_call_function call).  Pre-handlers
 * only; they run with preemption (int3: interrupts) off, never sleep and
 * allocate nothing.  ipi_kprobes=0 leaves them out (to test the fallback).
 */
static bool ipi_kprobes = true;
module_param(ipi_kprobes, bool, 0444);
MODULE_PARM_DESC(ipi_kprobes,
		 "kprobes for IPI sends when the kernel has no ipi_send_* tracepoints (default 1)");

static int kt_ipi_kp_cpu(struct kprobe *p, struct pt_regs *regs)
{
	kt_ipi_send(regs_get_kernel_argument(regs, 0));
	return 0;
}

static int kt_ipi_kp_mask(struct kprobe *p, struct pt_regs *regs)
{
	kt_ipi_send_mask();
	return 0;
}

#ifdef CONFIG_X86
#define KT_IPI_RESCHED	"native_smp_send_reschedule"
#define KT_IPI_SINGLE	"native_send_call_func_single_ipi"
#define KT_IPI_MASK	"native_send_call_func_ipi"
#else
#define KT_IPI_RESCHED	"smp_send_reschedule"
#define KT_IPI_SINGLE	"arch_send_call_function_single_ipi"
#define KT_IPI_MASK	"arch_send_call_function_ipi_mask"
#endif

static struct kprobe kt_ipi_kps[] = {
	{ .symbol_name = KT_IPI_RESCHED, .pre_handler = kt_ipi_kp_cpu },
	{ .symbol_name = KT_IPI_SINGLE, .pre_handler = kt_ipi_kp_cpu },
	{ .symbol_name = KT_IPI_MASK, .pre_handler = kt_ipi_kp_mask },
};

static bool kt_ipi_kp_ok[ARRAY_SIZE(kt_ipi_kps)];
#endif

struct kt_tp {
	const char *name;
	void *probe;
	struct tracepoint *tp;
	bool attached;
};

#define KT_TP(n, p)	{ .name = n, .probe = (void *)(p) }

static struct kt_tp kt_tps[] = {
	KT_TP("sys_enter", kt_sys_enter),
	KT_TP("sys_exit", kt_sys_exit),
#ifdef CONFIG_X86
	KT_TP("local_timer_entry", kt_vec_entry),
	KT_TP("local_timer_exit", kt_timer_exit),
	KT_TP("reschedule_entry", kt_vec_entry),
	KT_TP("reschedule_exit", kt_vec_exit),
	KT_TP("call_function_entry", kt_vec_entry),
	KT_TP("call_function_exit", kt_vec_exit),
	KT_TP("call_function_single_entry", kt_vec_entry),
	KT_TP("call_function_single_exit", kt_vec_exit),
	KT_TP("irq_work_entry", kt_vec_entry),
	KT_TP("irq_work_exit", kt_vec_exit),
	KT_TP("x86_platform_ipi_entry", kt_vec_entry),
	KT_TP("x86_platform_ipi_exit", kt_vec_exit),
	KT_TP("spurious_apic_entry", kt_vec_entry),
	KT_TP("spurious_apic_exit", kt_vec_exit),
	KT_TP("error_apic_entry", kt_vec_entry),
	KT_TP("error_apic_exit", kt_vec_exit),
	KT_TP("thermal_apic_entry", kt_vec_entry),
	KT_TP("thermal_apic_exit", kt_vec_exit),
	KT_TP("threshold_apic_entry", kt_vec_entry),
	KT_TP("threshold_apic_exit", kt_vec_exit),
	KT_TP("deferred_error_apic_entry", kt_vec_entry),
	KT_TP("deferred_error_apic_exit", kt_vec_exit),
#endif
	KT_TP("irq_handler_entry", kt_irq_entry),
	KT_TP("irq_handler_exit", kt_irq_exit),
	KT_TP("softirq_entry", kt_softirq_entry),
	KT_TP("softirq_exit", kt_softirq_exit),
#ifdef CONFIG_X86
	KT_TP("page_fault_user", kt_page_fault),
	KT_TP("page_fault_kernel", kt_page_fault),
#endif
	KT_TP("sched_switch", kt_sched_switch),
	KT_TP("sched_waking", kt_waking),
	KT_TP("sched_wakeup_new", kt_waking),
	KT_TP("sched_wake_idle_without_ipi", kt_wake_idle),
	KT_TP("sched_process_exec", kt_exec),
	KT_TP("task_rename", kt_rename),
	KT_TP("cpu_idle", kt_cpu_idle),
	KT_TP("cpu_frequency", kt_cpu_freq),
#ifdef KT_HAVE_IPI_TRACEPOINTS
	KT_TP("ipi_send_cpu", kt_ipi_cpu),
	KT_TP("ipi_send_cpumask", kt_ipi_mask),
#elif defined(CONFIG_ARM64)
	KT_TP("ipi_raise", kt_ipi_raise),
#endif
};

/* Costs nothing at run time: checks each probe against its TP_PROTO. */
static void __maybe_unused kt_tp_typecheck(void)
{
	check_trace_callback_type_sys_enter(kt_sys_enter);
	check_trace_callback_type_sys_exit(kt_sys_exit);
#ifdef CONFIG_X86
	check_trace_callback_type_local_timer_entry(kt_vec_entry);
	check_trace_callback_type_local_timer_exit(kt_timer_exit);
	check_trace_callback_type_page_fault_user(kt_page_fault);
#endif
	check_trace_callback_type_irq_handler_entry(kt_irq_entry);
	check_trace_callback_type_irq_handler_exit(kt_irq_exit);
	check_trace_callback_type_softirq_entry(kt_softirq_entry);
	check_trace_callback_type_softirq_exit(kt_softirq_exit);
	check_trace_callback_type_sched_switch(kt_sched_switch);
	check_trace_callback_type_sched_waking(kt_waking);
	check_trace_callback_type_sched_wake_idle_without_ipi(kt_wake_idle);
	check_trace_callback_type_sched_process_exec(kt_exec);
	check_trace_callback_type_task_rename(kt_rename);
	check_trace_callback_type_cpu_idle(kt_cpu_idle);
	check_trace_callback_type_cpu_frequency(kt_cpu_freq);
#ifdef KT_HAVE_IPI_TRACEPOINTS
	check_trace_callback_type_ipi_send_cpu(kt_ipi_cpu);
	check_trace_callback_type_ipi_send_cpumask(kt_ipi_mask);
#elif defined(CONFIG_ARM64)
	check_trace_callback_type_ipi_raise(kt_ipi_raise);
#endif
}

static void kt_tp_lookup(struct tracepoint *tp, void *priv)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(kt_tps); i++)
		if (!kt_tps[i].tp && !strcmp(tp->name, kt_tps[i].name))
			kt_tps[i].tp = tp;
}

/*
 * What the trace's backend entry says (KUTRACE_NAME_MAX bytes at most).
 * The word after the backend's name is the architecture when it is not
 * x86-64, what readers take it from (docs/FORMAT.md).
 */
#ifdef CONFIG_ARM64
#define KT_TP_WHAT	"tracepoint arm64: synth sched span; pf kretprobe"
#define KT_TP_WHAT_NOIPI "tracepoint arm64: synth sched span; pf krp; no IPI send"
#elif defined(CONFIG_RISCV)
#define KT_TP_WHAT	"tracepoint riscv64: synth sched span; pf kretprobe"
#define KT_TP_WHAT_NOIPI "tracepoint riscv64: synth sched span; no IPI send"
#else
#define KT_TP_WHAT	"tracepoint: synth sched span; pf exit kretprobe+heur"
#define KT_TP_WHAT_NOIPI "tracepoint: synth sched span; pf krp+heur; no IPI send"
#endif
static_assert(sizeof(KT_TP_WHAT) <= KUTRACE_NAME_MAX + 1);
static_assert(sizeof(KT_TP_WHAT_NOIPI) <= KUTRACE_NAME_MAX + 1);
static char kt_tp_what[KUTRACE_NAME_MAX + 1] = KT_TP_WHAT;

/* The kernel has this tracepoint (kt_tp_lookup found it). */
static bool kt_tp_found(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(kt_tps); i++)
		if (kt_tps[i].tp && !strcmp(kt_tps[i].name, name))
			return true;
	return false;
}

/*
 * The kprobes (IPI sends before 6.6, the page-fault kretprobe, riscv64's
 * IPI receive) are registered once, at load, disabled, and then enabled
 * at ON and disabled when tracing stops: a disabled probe is not in the
 * kernel's text, and a kprobe registered again after unregistering was
 * seen not to fire (6.1, ftrace-based kprobes).
 */
#if defined(CONFIG_X86) || defined(CONFIG_RISCV)
static void kt_ipi_kp_detach(void)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(kt_ipi_kps); i++) {
		if (kt_ipi_kp_ok[i])
			unregister_kprobe(&kt_ipi_kps[i]);
		kt_ipi_kp_ok[i] = false;
	}
}

static void kt_ipi_kp_enable(bool on)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(kt_ipi_kps); i++) {
		if (!kt_ipi_kp_ok[i])
			continue;
		if (on)
			enable_kprobe(&kt_ipi_kps[i]);
		else
			disable_kprobe(&kt_ipi_kps[i]);
	}
}

/* Returns true if IPI sends are traced: by tracepoint or by kprobes. */
static bool kt_ipi_kp_attach(void)
{
	size_t i, n = 0;
	int ret;

	if (kt_tp_found("ipi_send_cpu"))
		return true;
	if (!ipi_kprobes) {
		pr_info("kutrace: ipi_kprobes=0: IPI sends are not traced\n");
		return false;
	}
	for (i = 0; i < ARRAY_SIZE(kt_ipi_kps); i++) {
		kt_ipi_kps[i].flags = KPROBE_FLAG_DISABLED;
		ret = register_kprobe(&kt_ipi_kps[i]);
		kt_ipi_kp_ok[i] = ret == 0;
		if (ret)
			pr_warn("kutrace: no IPI sends from %s (kprobe: %d)\n",
				kt_ipi_kps[i].symbol_name, ret);
		else
			n++;
	}
	if (n == ARRAY_SIZE(kt_ipi_kps)) {
		pr_info("kutrace: IPI sends through kprobes (no ipi_send_* tracepoints)\n");
		return true;
	}
	/* all or nothing: a partial set would look complete in the trace */
	kt_ipi_kp_detach();
	return false;
}
#else
static void kt_ipi_kp_detach(void)
{
}

static void kt_ipi_kp_enable(bool on)
{
}

static bool kt_ipi_kp_attach(void)
{
	return kt_tp_found("ipi_send_cpu") || kt_tp_found("ipi_raise");
}
#endif

/*
 * Nothing is attached while tracing is off, so that a loaded module costs
 * the traced system nothing (the raw_syscalls probes alone send every
 * system call through the kernel's slow path; the kretprobe traps every
 * page fault).  The exception: while system call 1023 is served, its
 * routing needs sys_enter and sys_exit from load to unload.
 */
static bool kt_tp_routing(const struct kt_tp *t)
{
	return t->probe == (void *)kt_sys_enter ||
	       t->probe == (void *)kt_sys_exit;
}

static bool kt_tp_always(const struct kt_tp *t)
{
	return kt_sys1023_attached() && kt_tp_routing(t);
}

static void kt_tp_register(struct kt_tp *t)
{
	int ret;

	if (t->attached || !t->tp)
		return;
	ret = tracepoint_probe_register(t->tp, t->probe, NULL);
	if (ret)
		pr_warn("kutrace: cannot attach %s: %d\n", t->name, ret);
	else
		t->attached = true;
}

static void kt_tp_unregister(struct kt_tp *t)
{
	if (t->attached)
		tracepoint_probe_unregister(t->tp, t->probe, NULL);
	t->attached = false;
}

static bool kt_tp_armed;	/* under the control mutex */

static void kt_tp_disarm(void)
{
	size_t i;
	int cpu;

	for (i = 0; i < ARRAY_SIZE(kt_tps); i++)
		if (!kt_tp_always(&kt_tps[i]))
			kt_tp_unregister(&kt_tps[i]);
	kt_krp_enable(false);
	kt_ipi_kp_enable(false);
	tracepoint_synchronize_unregister();
	/* a fault entered before OFF gets no exit in the next trace */
	for_each_possible_cpu(cpu)
		per_cpu(kt_pf_pending, cpu) = false;
	kt_tp_armed = false;
}

/* Before ON: every probe, so that tracing starts with all of them. */
static int kt_tp_arm(bool on)
{
	size_t i, n = 0;

	if (on == kt_tp_armed)
		return 0;
	if (!on) {
		kt_tp_disarm();
		return 0;
	}
	for (i = 0; i < ARRAY_SIZE(kt_tps); i++) {
		kt_tp_register(&kt_tps[i]);
		n += kt_tps[i].attached;
	}
	if (!n)
		return -ENOENT;
	kt_krp_enable(true);
	kt_ipi_kp_enable(true);
	kt_tp_armed = true;
	return 0;
}

static void kt_tp_detach(void)
{
	size_t i;

	/* The call no longer served, disarming drops the routing probes too. */
	kt_sys1023_detach();
	kt_tp_disarm();
	for (i = 0; i < ARRAY_SIZE(kt_krps); i++) {
		if (kt_krp_ok[i])
			unregister_kretprobe(kt_krps[i]);
		kt_krp_ok[i] = false;
	}
	kt_ipi_kp_detach();
}

/*
 * At load: find the tracepoints, register the kprobes disabled, and
 * attach only what system call 1023 needs.
 */
static int kt_tp_attach(void)
{
	size_t i, n = 0;
	int ret;

	for_each_kernel_tracepoint(kt_tp_lookup, NULL);
	for (i = 0; i < ARRAY_SIZE(kt_tps); i++) {
		if (kt_tps[i].tp)
			n++;
		else
			pr_info("kutrace: no tracepoint %s\n", kt_tps[i].name);
	}
	if (!n)
		return -ENOENT;
	for (i = 0; i < ARRAY_SIZE(kt_krps); i++) {
		kt_krps[i]->kp.flags = KPROBE_FLAG_DISABLED;
		ret = register_kretprobe(kt_krps[i]);
		kt_krp_ok[i] = ret == 0;
		if (ret)
			pr_warn("kutrace: no %s exits (kretprobe: %d)\n",
				kt_krps[i]->kp.symbol_name, ret);
	}
	strscpy(kt_tp_what, kt_ipi_kp_attach() ? KT_TP_WHAT : KT_TP_WHAT_NOIPI,
		sizeof(kt_tp_what));
	pr_info("kutrace: tracepoint backend, %zu tracepoints, attached while tracing\n",
		n);
	/*
	 * The routing probes first: a call 1023 must not reach the kprobe
	 * unrouted.  Dropped again when the call is not served after all.
	 */
	for (i = 0; i < ARRAY_SIZE(kt_tps); i++)
		if (kt_tp_routing(&kt_tps[i]))
			kt_tp_register(&kt_tps[i]);
	kt_sys1023_attach();
	if (!kt_sys1023_attached()) {
		for (i = 0; i < ARRAY_SIZE(kt_tps); i++)
			kt_tp_unregister(&kt_tps[i]);
		tracepoint_synchronize_unregister();
	}
	return 0;
}

const struct kt_backend kt_tp_backend = {
	.name		= "tracepoint",
	.id		= KUTRACE_BACKEND_TRACEPOINT,
	.reconstructed	= kt_tp_what,
	.attach		= kt_tp_attach,
	.detach		= kt_tp_detach,
	.arm		= kt_tp_arm,
};

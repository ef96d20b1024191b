/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kutrace_env.h - what kutrace_core.c needs from its environment.
 *
 * In the kernel these map to per-CPU data, the time counter (x86: rdtsc
 * shifted, arm64: the architected counter CNTVCT_EL0 at CNTFRQ_EL0,
 * riscv64: the time CSR (rdtime) at the device tree's timebase-frequency,
 * neither shifted; docs/spec/FORMATS.md 3.5), raw spinlocks and the perf counters
 * of kutrace_main.c.  Without __KERNEL__ a userspace harness
 * (benchmarks, unit tests) provides the same names: it defines
 * kt_env_cpu_id(), kt_env_pid() and kt_env_comm() and links
 * kutrace_core.c unchanged.
 */
#ifndef KUTRACE_ENV_H
#define KUTRACE_ENV_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/sched.h>
#include <linux/smp.h>
#include <linux/cpumask.h>
#ifdef CONFIG_ARM64
#include <asm/arch_timer.h>

static __always_inline u64 kt_env_now(void)
{
	return __arch_counter_get_cntvct();
}
#elif defined(CONFIG_RISCV)
#include <asm/csr.h>

static __always_inline u64 kt_env_now(void)
{
	return csr_read(CSR_TIME);
}
#else
#include <asm/msr.h>

static __always_inline u64 kt_env_now(void)
{
	return rdtsc() >> KUTRACE_TSC_SHIFT;
}
#endif

#define kt_env_cpu_id()		smp_processor_id()
#define kt_env_pid()		((u32)current->pid)
#define kt_env_comm()		(current->comm)
#define kt_env_irq_save(fl)	local_irq_save(fl)
#define kt_env_irq_restore(fl)	local_irq_restore(fl)
#define kt_env_cmpxchg(p, o, n)	cmpxchg_local((p), (o), (n))
#define KT_ENV_LOCK_TYPE	raw_spinlock_t
#define KT_ENV_LOCK_INIT(l)	__RAW_SPIN_LOCK_UNLOCKED(l)
#define kt_env_lock(l, fl)	raw_spin_lock_irqsave((l), (fl))
#define kt_env_unlock(l, fl)	raw_spin_unlock_irqrestore((l), (fl))
#define kt_env_for_each_cpu(c)	for_each_possible_cpu(c)

/* Instructions retired on this CPU; false if there is no counter. */
bool kt_env_read_inst(u64 *val);

#else
#include "user/kutrace_env_user.h"
#endif

#endif /* KUTRACE_ENV_H */

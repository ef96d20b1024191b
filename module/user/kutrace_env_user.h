/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kutrace_env_user.h - userspace stand-ins for kutrace_env.h, so that
 * kutrace_core.c builds unchanged in a benchmark or unit-test harness.
 * kutrace_env_user.c defines kt_env_cpu_id(), kt_env_pid(), kt_env_comm()
 * and kt_env_read_inst() for every harness.  Not kernel code: not checked
 * by checkpatch.
 */
#ifndef KUTRACE_ENV_USER_H
#define KUTRACE_ENV_USER_H
#include <stdint.h>
#include <stdbool.h>
#include <string.h>
#include <pthread.h>
#include <x86intrin.h>

typedef uint64_t u64;
typedef uint32_t u32;
typedef uint8_t u8;
#ifndef READ_ONCE
#define READ_ONCE(x)		(*(volatile __typeof__(x) *)&(x))
#define WRITE_ONCE(x, v)	(*(volatile __typeof__(x) *)&(x) = (v))
#endif
#define likely(x)		__builtin_expect(!!(x), 1)
#define unlikely(x)		__builtin_expect(!!(x), 0)
#define KT_ENV_NR_CPUS		256

/*
 * Per-CPU data is per thread here (kt_env_cpu_id() is the harness's
 * thread index).  Each slot gets its own cache line, as each CPU's area
 * does in the kernel: packed slots would make two threads writing their
 * own next pointers fight over one line and measure false sharing.
 */
#define DEFINE_PER_CPU(type, name) \
	struct __attribute__((aligned(64))) { type v; } name[KT_ENV_NR_CPUS]
#define this_cpu_ptr(p)		(&(*(p))[kt_env_cpu_id()].v)
#define per_cpu_ptr(p, c)	(&(*(p))[(c)].v)

/*
 * The trace clock.  Built with KT_ENV_FAKE_CLOCK (the core's unit tests)
 * it is a variable the test sets, so that gaps, fusion windows and
 * TSDELTA chains are exact; otherwise the TSC, as in the kernel.
 */
#ifdef KT_ENV_FAKE_CLOCK
extern u64 kt_env_fake_now;
extern u64 kt_env_fake_inst;
static inline u64 kt_env_now(void)
{
	return kt_env_fake_now;
}
#else
static inline u64 kt_env_now(void)
{
	return __rdtsc() >> KUTRACE_TSC_SHIFT;
}
#endif

/* module/user/kutrace_env_user.c: the calling thread's CPU and task. */
int kt_env_cpu_id(void);
u32 kt_env_pid(void);
const char *kt_env_comm(void);
void kt_user_set_cpu(int cpu);
void kt_user_set_task(u32 pid, const char *comm);
#define kt_env_irq_save(fl)	((void)(fl))
#define kt_env_irq_restore(fl)	((void)(fl))
#define kt_env_cmpxchg(p, o, n)	__sync_val_compare_and_swap((p), (o), (n))
#define KT_ENV_LOCK_TYPE	pthread_mutex_t
#define KT_ENV_LOCK_INIT(l)	PTHREAD_MUTEX_INITIALIZER
#define kt_env_lock(l, fl)	do { (void)(fl); pthread_mutex_lock(l); } while (0)
#define kt_env_unlock(l, fl)	do { (void)(fl); pthread_mutex_unlock(l); } while (0)
#define kt_env_for_each_cpu(c)	for ((c) = 0; (c) < KT_ENV_NR_CPUS; (c)++)
bool kt_env_read_inst(u64 *val);
#endif /* KUTRACE_ENV_USER_H */

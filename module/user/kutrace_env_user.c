// SPDX-License-Identifier: GPL-2.0
/*
 * kutrace_env_user.c - the userspace environment of kutrace_core.c
 * (kutrace_env_user.h): which "CPU" the calling thread is, the task it
 * runs, the instruction counter and, for unit tests, a clock they set.
 * The benchmark (bench/kutrace_bench.c) and the core's unit tests
 * (tests/unit/unit_core.c) link this same file.  Not kernel code.
 */
#include "kutrace/format.h"
#include "kutrace_env.h"

static __thread int user_cpu;
static u32 user_pid = 1;
static const char *user_comm = "kutrace_user";

#ifdef KT_ENV_FAKE_CLOCK
u64 kt_env_fake_now;
#endif

void kt_user_set_cpu(int cpu)
{
	user_cpu = cpu;
}

void kt_user_set_task(u32 pid, const char *comm)
{
	user_pid = pid;
	user_comm = comm;
}

int kt_env_cpu_id(void)
{
	return user_cpu;
}

u32 kt_env_pid(void)
{
	return user_pid;
}

const char *kt_env_comm(void)
{
	return user_comm;
}

/*
 * The kernel reads the instruction counter with rdpmc.  Userspace has no
 * rdpmc without a PMU exposed through perf (a VM often has none), so the
 * TSC stands in: a counter read of similar latency, which is what the
 * benchmark's side-byte path measures.  Unit tests that need exact IPC
 * codes set kt_env_fake_inst instead.
 */
#ifdef KT_ENV_FAKE_CLOCK
u64 kt_env_fake_inst;

bool kt_env_read_inst(u64 *val)
{
	*val = kt_env_fake_inst;
	return true;
}
#else
bool kt_env_read_inst(u64 *val)
{
	*val = __rdtsc();
	return true;
}
#endif

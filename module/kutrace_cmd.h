/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kutrace_cmd.h - the control commands (docs/spec/FORMATS.md 7), one
 * switch for the module (kutrace_main.c: ioctls and system call 1023) and
 * the benchmark's in-process device (bench/fakedev.c).
 *
 * What differs between the kernel and userspace is asked of the
 * environment, which defines these kt_env_cmd_*() functions.
 */
#ifndef KUTRACE_CMD_H
#define KUTRACE_CMD_H

#include "kutrace_core.h"

/*
 * Run command nr (KUTRACE_CMD_* or a forced-insert ioctl number) with
 * arg; *result gets its answer.  0 or -errno.  The caller serialises
 * commands and checks permissions.
 */
long kt_cmd(unsigned int nr, u64 arg, u64 *result);

/* Before ON takes effect (the module names its backend in the trace). */
void kt_env_cmd_on_prepare(void);
/* After ON took effect (the module notes each CPU's current task). */
void kt_env_cmd_on_done(void);
/* After OFF at RESET: wait until no CPU is inside a trace call. */
void kt_env_cmd_quiesce(void);
/* RESET with IPC: whether instruction counters could be set up. */
bool kt_env_cmd_ipc_setup(void);
/* After RESET: which CPUs read their instruction counter. */
void kt_env_cmd_ipc_mark(bool on);
/*
 * STREAM_CUT(0): kt_core_new_epoch() here, then kt_core_cut_old_this_cpu() on
 * every other CPU, each on itself, without leaving this CPU meanwhile.
 */
void kt_env_cmd_cut_all(void);
/* STREAM_CUT(KUTRACE_CUT_LOST): kt_core_lost_this_cpu() on every CPU. */
void kt_env_cmd_lost_all(void);
/* Copy from / to the caller's memory; bytes not copied (copy_*_user). */
unsigned long kt_env_cmd_copy_in(void *dst, u64 uaddr, unsigned long n);
unsigned long kt_env_cmd_copy_out(u64 uaddr, const void *src,
				  unsigned long n);

#endif /* KUTRACE_CMD_H */

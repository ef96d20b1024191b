#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# kutrace on arm64 (issue 17): kutrace_mod.ko, kutrace_control and the test
# workloads cross-built for Debian's arm64 cloud kernels 6.1 and 6.12,
# booted under qemu-system-aarch64 -M virt -cpu cortex-a72 with TCG
# (tests/vm/vm.sh -a aarch64; images and headers from Debian's arm64
# packages, unpacked by tests/vm/setup.sh arm64).  The guests run
# t_vm_basic's scenario and the same checks hold: N getpid calls and
# returns, the SCHED_FIFO ping-pong's switches and wakeups one by one,
# every page fault with its exit, tiling; and the trace names arm64, its
# names are arm64's, this host postprocesses it.  Then t_vm_lifecycle's
# scenario on 6.1 (buffer full, wraparound, rmmod while tracing, reload).
# Times under TCG are emulated, not an arm64 machine's.
# KT_VM_ARM64_KERNELS="6.1 6.12" and KT_VM_ARM64_LIFECYCLE="6.1" select
# kernels; outputs stay in build/vm/*-arm64-*.  Cost on the loaded 2-core
# machine: 30-75 s per basic leg, 130-145 s for a lifecycle one; the
# lifecycle on 6.12 passes too (KT_VM_ARM64_LIFECYCLE="6.1 6.12") and is
# left out of make test for CI's time budget.
rc=0
kernels="" lkernels=""
for k in ${KT_VM_ARM64_KERNELS:-6.1 6.12}; do kernels="$kernels arm64-$k"; done
for k in ${KT_VM_ARM64_LIFECYCLE-6.1}; do lkernels="$lkernels arm64-$k"; done
KT_VM_KERNELS=$kernels bash tests/t_vm_basic.sh || rc=1
[ -z "$lkernels" ] || KT_VM_KERNELS_LIFECYCLE=$lkernels bash tests/t_vm_lifecycle.sh || rc=1
exit $rc

#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# kutrace on riscv64 (issue 33): kutrace_mod.ko, kutrace_control and the
# test workloads cross-built (riscv64-linux-gnu-) for a riscv64 6.1 kernel
# built here from linux-source-6.1 (tests/vm/kbuild.sh 6.1 riscv64:
# tinyconfig + patches/kutrace-riscv64.config, cached; Debian 12 has no
# riscv64 kernel), booted under qemu-system-riscv64 -M virt with OpenSBI
# and TCG (tests/vm/vm.sh -a riscv64).  The guest has no shell (no
# riscv64 busybox in Debian 12): /init is tests/vm/ktinit.c running
# tests/vm/scenarios/basic.run, t_vm_basic's scenario as a run list, and
# t_vm_basic's checks hold: N getpid calls and returns, the SCHED_FIFO
# ping-pong's switches and wakeups one by one, every page fault with its
# exit, tiling, no oops; and the trace names riscv64, its names are
# riscv64's, this host postprocesses it.  Then the demo scenario
# (tests/vm/scenarios/demo.run), as the README shows it.  Times under TCG
# are emulated.  A fresh machine first builds the kernel (about 6 min on
# the loaded 2-core machine, -j2); then about 45 s for each guest.
. tests/lib.sh
. tests/vm/lib.sh
rc=0
KT_VM_KERNELS=riscv64-6.1 bash tests/t_vm_basic.sh || rc=1
vm_ready || exit $rc
k=riscv64-6.1 out=$KT_ROOT/build/vm/demo-riscv64-6.1
vm_arch $k
if vm_run "$k: demo: guest ran the scenario" "$out" $VMOPT tests/vm/scenarios/demo.run; then
	ok "$k: demo: guest ran the scenario ($VM_AFTER)"
	for t in hello_world_trace mixed_workload; do
		if "$KT_BIN/kutrace_postproc" "$out/$t.trace" "riscv64 $t" >/dev/null 2>&1; then
			ok "$k: demo: $t.trace postprocessed here"
		else
			nok "$k: demo: $t.trace postprocessed here"
		fi
		check "$k: demo: $t.html written" test -s "$out/$t.html"
	done
	for name in getpid riscv-timer page_fault; do
		check "$k: demo: the workload's JSON names $name" \
			grep -q "\"$name\"" "$out/mixed_workload.json"
	done
else
	rc=1
fi
exit $rc

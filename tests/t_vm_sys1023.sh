#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# System call 1023 on stock Debian cloud kernels (6.1 and 6.12) in QEMU:
# a static program written the way the original user library works
# (tests/vm/kulib.c: raw syscall(1023, command, arg), no libkutrace)
# traces itself (the library's go and stop) and marks a trace that
# kutrace_control records; every return code is exact, the traces hold
# exactly its inserts (tests/vm/host/ktcheck.c), each mark_d at the time
# of its call; a normal user may only insert while tracing is on.  With
# sys1023=0 or kprobes switched off the module loads, says in dmesg and in
# `kutrace_control status` that system call 1023 is unavailable, and the
# call fails with ENOSYS.  Guest side: tests/vm/scenarios/sys1023.sh.
. tests/lib.sh
. tests/vm/lib.sh
vm_ready || exit 0
N=1000
for k in ${KT_VM_KERNELS:-6.1 6.12}; do
	out=$KT_ROOT/build/vm/sys1023-$k
	vm_run "$k: guest ran the scenario" "$out" -k "$k" tests/vm/scenarios/sys1023.sh || continue
	ok "$k: guest ran the system call 1023 scenario ($VM_AFTER)"
	L=$out/scenario.log
	eq "$k: insmod kutrace_mod.ko" "insmod=0" "$(cat "$out/insmod.status")"
	check "$k: dmesg: system call 1023 served" \
		grep -q "kutrace: system call 1023 served (kprobe on __x64_sys_ni_syscall)" "$out/kutrace.dmesg"
	eq "$k: the sys1023 parameter reads back served" "served (kprobe on __x64_sys_ni_syscall)" \
		"$(cat "$out/param.txt")"
	check "$k: kutrace_control status says served" \
		grep -q "^system call 1023: served (kprobe on __x64_sys_ni_syscall)$" "$out/status.out"

	kulib_checks "$out" "$N"
	check "$k: library go/stop: its trace says tracepoint backend" \
		grep -q "^backend tracepoint: synth sched span" "$TMP/self.f"

	# refused cleanly
	check "$k: insmod sys1023=0 loads" grep -q "insmod_off=0" "$L"
	eq "$k: sys1023=0: the parameter says unavailable" "unavailable: sys1023=0" "$(cat "$out/param_off.txt")"
	check "$k: sys1023=0: ENOSYS" grep -q "^ok - VERSION fails with ENOSYS" "$out/nosys_off.out"
	check "$k: kprobes off: insmod loads" grep -q "insmod_nokprobes=0" "$L"
	eq "$k: kprobes off: one dmesg line says system call 1023 is unavailable" \
		"kutrace: system call 1023 unavailable: kprobes are disabled (debugfs kprobes/enabled); use /dev/kutrace" \
		"$(sed 's/^\[[ 0-9.]*\] //' "$out/nokprobes.dmesg")"
	check "$k: kprobes off: kutrace_control status says unavailable, and why" \
		grep -q "^system call 1023: unavailable: kprobes are disabled (debugfs kprobes/enabled)$" "$out/status_nokprobes.out"
	check "$k: kprobes off: kutrace_control status still answers (exit 0)" grep -q "status_nokprobes=0" "$L"
	check "$k: kprobes off: ENOSYS" grep -q "^ok - VERSION fails with ENOSYS" "$out/nosys_nokprobes.out"
	check "$k: kprobes off: /dev/kutrace still records" grep -q "dev=0" "$L"
	check "$k: kprobes switched off while loaded: status says unavailable" \
		grep -q "^system call 1023: unavailable: kprobes are disabled" "$out/status_off_live.out"
	check "$k: kprobes switched off while loaded: ENOSYS" grep -q "nosys_off_live=0" "$L"
	check "$k: kprobes back on: status says served" \
		grep -q "^system call 1023: served (kprobe on __x64_sys_ni_syscall)$" "$out/status_on_live.out"
	check "$k: kprobes back on: a user's queries answer again" grep -q "user_again=0" "$L"
	check "$k: rmmod" grep -q "rmmod=0" "$L"
	check "$k: after rmmod: ENOSYS again" grep -q "nosys=0" "$L"
	check "$k: no oops in the guest" test ! -s "$out/oops.txt"
done

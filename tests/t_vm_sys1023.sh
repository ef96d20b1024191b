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
# inserted_ok FACTS PID WHAT: N of each insert of kulib, with their args
inserted_ok() {
	local f=$1 p=$2 what=$3 ev n sum
	# event n argsum: marks a/b/c carry base-40 "ka" "kb" "kc"; mark_d i;
	# RPC ids 7000 + i; messages 64 bytes; lock 0x4C4B; queue 3
	while read -r ev sum; do
		eq "$k: $what: exactly N entries $ev with their args" "n $N argsum $sum" \
			"$(fact "$f" pid $p event $ev)"
	done <<-EOF
	0x201 $((7000 * N + N * (N - 1) / 2))
	0x202 $((7000 * N + N * (N - 1) / 2))
	0x204 $((64 * N))
	0x205 $((64 * N))
	0x20a $((51 * N))
	0x20b $((91 * N))
	0x20c $((131 * N))
	0x20d $((N * (N - 1) / 2))
	0x210 $((0x4C4B * N))
	0x211 $((0x4C4B * N))
	0x212 $((0x4C4B * N))
	0x21a $((3 * N))
	0x21b $((3 * N))
	EOF
	eq "$k: $what: no other inserted kind" 13 "$(grep -c "^pid $p event " "$f")"
}
# returns_ok FILE WHAT: every "ok - " / "not ok - " line of kulib
returns_ok() {
	local line n=0
	while read -r line; do
		case $line in
		"ok - "*) ok "$k: $2: ${line#ok - }"; n=$((n + 1)) ;;
		"not ok - "*) nok "$k: $2: ${line#not ok - }"; n=$((n + 1)) ;;
		esac
	done < "$1"
	check "$k: $2: return codes were checked ($n)" test "$n" -gt 5
}
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

	# the library's own go / stop
	check "$k: kulib self: exit 0" grep -q "self=0" "$L"
	returns_ok "$out/self.out" "library go/stop"
	ktcheck "$out/self.trace" marks > "$TMP/self.f"
	pid=$(awk '$1 == "pid" { print $2; exit }' "$out/self.out")
	eq "$k: library go/stop: the trace has the blocks GETCOUNT gave" \
		"$(awk '$1 == "blocks" { print $2 }' "$out/self.out")" "$(fact "$TMP/self.f" blocks)"
	check "$k: library go/stop: tracepoint backend entry" \
		grep -q "^backend tracepoint: synth sched span" "$TMP/self.f"
	inserted_ok "$TMP/self.f" "$pid" "library go/stop"
	for t in "0x003 7000 kulib_method" "0x007 19531 kulib_lock" "0x105 3 kulib_queue"; do
		eq "$k: library go/stop: name entry $t" 1 "$(grep -c "^username $t\$" "$TMP/self.f")"
	done
	eq "$k: library go/stop: no mark_d inserted while off (999999)" 0 \
		"$(awk '$1 == "markd" && $3 == 999999' "$TMP/self.f" | wc -l)"
	# each mark_d stamped between the counter reads around its call
	# (both on CPU 0, where kulib pins itself)
	awk 'NR == FNR { if ($1 == "markd") { lo[$2] = $3; hi[$2] = $4 }; next }
	     $1 == "markd" { n++; if ($5 >= lo[$3] && $5 <= hi[$3] && $4 == 0) in_t++ }
	     END { print n + 0, in_t + 0 }' "$out/self.out" "$TMP/self.f" > "$TMP/when"
	eq "$k: library go/stop: every mark_d carries the time of its call" "$N $N" "$(cat "$TMP/when")"

	# marks into a trace kutrace_control records, a normal user's too
	check "$k: kutrace_control record -- kulib marks: exit 0" grep -q "marks=0" "$L"
	returns_ok "$out/marks.out" "marks in a recorded trace"
	ktcheck "$out/marks.trace" marks > "$TMP/marks.f"
	pid=$(awk '$1 == "pid" { print $2; exit }' "$out/marks.out")
	child=$(awk '$1 == "child" { print $2; exit }' "$out/marks.out")
	inserted_ok "$TMP/marks.f" "$pid" "marks in a recorded trace"
	eq "$k: user 65534: exactly N mark_d of its own (args 100000 + i)" \
		"n $N argsum $((100000 * N + N * (N - 1) / 2))" "$(fact "$TMP/marks.f" pid $child event 0x20d)"
	eq "$k: user 65534: no other inserted kind" 1 "$(grep -c "^pid $child event " "$TMP/marks.f")"
	eq "$k: user 65534: its name entry" 1 "$(grep -c '^username 0x003 7 kulib_user$' "$TMP/marks.f")"

	# a normal user while tracing is off
	check "$k: kulib user: exit 0" grep -q "user=0" "$L"
	returns_ok "$out/user.out" "user, tracing off"

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

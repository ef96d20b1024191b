#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The module's interfaces fuzzed in a guest (issue 20): tests/vm/ifuzz
# from 4 threads issues random ioctl numbers, sizes and arguments on
# /dev/kutrace, random syscall(1023, cmd, arg) (a kprobe serves it on the
# stock kernel, the kernel's hook on the patched one), mmap with odd
# offsets, lengths, protections and flags, concurrent open/close/dup -
# as root, then as user 65534 holding a descriptor root passed on, then
# system call 1023 while the module is unloaded and loaded again.
# Afterwards: 0 splats in the kernel log and on the console (KT_SPLAT), a
# normal go/stop trace decodes (checktrace), rmmod works, and the user
# changed nothing (the state root reads before and after is the same:
# TEST, STAT, GETCOUNT, a hash of the whole buffer and of GET4KB's page)
# and read nothing (every state change, buffer read, mmap and open
# refused with EPERM/EACCES; the 4 KiB it offered GET4KB untouched).
# Execution counts are printed.  Guest side: tests/vm/scenarios/ifuzz.sh.
#
#   KT_IFUZZ_SECS     seconds of the root phase (default 15; the user
#                     phase and the reload race half of it each, >= 6 s)
#   KT_IFUZZ_KERNELS  kernels (default: 6.12; make ifuzz: 6.12 p6.1).
#                     make test's patched-kernel reload race is in
#                     t_kernel_patched (its guest is booted anyway).
#   KT_IFUZZ_SEED     the fuzzer's seed (default: the date, printed)
#
# make ifuzz IFUZZ_SECS=N runs it longer (tests/soak.mk).
. tests/lib.sh
. tests/vm/lib.sh
vm_ready || exit 0
SECS=${KT_IFUZZ_SECS:-15}
USECS=$(( SECS / 2 > 6 ? SECS / 2 : 6 ))
SEED=${KT_IFUZZ_SEED:-$(date +%s)}
echo "# seed $SEED (KT_IFUZZ_SEED=$SEED repeats it, with the same timing)"
sed "s/^SECS=.*/SECS=$SECS USECS=$USECS RSECS=$USECS SEED=$SEED THREADS=4/" \
	tests/vm/scenarios/ifuzz.sh > "$TMP/ifuzz.sh"
# rate ops FILE: "N execs in S s, R/s"
rate() { awk '/^execs / { printf "%d executions in %s s, %d/s", $2, $4, $2 / ($4 > 0 ? $4 : 1) }' "$1"; }
# op FILE NAME: executions of one kind / of them succeeded
op() { awk -v n="$2" '$1 == "op" && $2 == n { print $3 + 0 }' "$1"; }
opok() { awk -v n="$2" '$1 == "op" && $2 == n { print $5 + 0 }' "$1"; }
n() { awk -v k="$2" 'index($0, k " ") == 1 { print $(NF) + 0; exit }' "$1"; }
for k in ${KT_IFUZZ_KERNELS:-6.12}; do
	t0=$(date +%s)
	out=$KT_ROOT/build/vm/ifuzz-$k
	KT_APPEND="tsc=nowatchdog no_timer_check log_buf_len=8M" \
		vm_run "$k: guest ran the interface fuzzer" "$out" -k "$k" -m 1 -t $((SECS * 4 + 600)) \
		"$TMP/ifuzz.sh" || continue
	ok "$k: guest ran the interface fuzzer ($VM_AFTER, $(( $(date +%s) - t0 )) s in all)"
	L=$out/scenario.log
	eq "$k: insmod kutrace_mod.ko" "insmod=0" "$(cat "$out/insmod.status")"
	# root
	check "$k: root: no rule broken (exit 0)" grep -qx "root=0" "$L"
	grep '^violation:' "$out/root.out" | head -5 | sed 's/^/#   /'
	check "$k: root: opened $(basename /dev/kutrace)" grep -qx "open as root: ok" "$out/root.out"
	for o in ioctl sys1023 mmap open fdops; do
		check "$k: root: $o calls ($(op "$out/root.out" $o), $(opok "$out/root.out" $o) succeeded)" \
			test "$(opok "$out/root.out" $o)" -gt 0
	done
	check "$k: root: system call 1023 answered ($(n "$out/root.out" "sys1023 answered") calls)" \
		test "$(n "$out/root.out" "sys1023 answered")" -gt 0
	check "$k: root: the buffer mapped ($(n "$out/root.out" "buffer mapped") times)" \
		test "$(n "$out/root.out" "buffer mapped")" -gt 0
	# a normal user
	check "$k: prep: a trace held while the user runs" grep -qx "prep=0" "$L"
	check "$k: prep: tracing off, blocks in the buffer" eval \
		'grep -qx "test 0" "$out/state0.txt" && ! grep -qx "stat 0" "$out/state0.txt"'
	check "$k: user: ran as uid 65534 with the descriptor root opened" \
		grep -qx "now uid 65534 gid 65534, descriptor kept" "$out/user.out"
	check "$k: user: no rule broken: nothing changed, nothing read (exit 0)" grep -qx "user=0" "$L"
	grep '^violation:' "$out/user.out" | head -5 | sed 's/^/#   /'
	check "$k: user: refused with EPERM/EACCES ($(n "$out/user.out" "user refused") calls)" \
		test "$(n "$out/user.out" "user refused")" -gt 100
	eq "$k: user: mmap of the buffer never succeeded" 0 "$(n "$out/user.out" "buffer mapped")"
	check "$k: user: the state root reads is the same before and after" \
		cmp -s "$out/state0.txt" "$out/state1.txt"
	diff "$out/state0.txt" "$out/state1.txt" | sed 's/^/#   /'
	# the module still answers, loads and unloads
	check "$k: afterwards: go and stop" eval 'grep -qx "go=0" "$L" && grep -qx "stop=0" "$L"'
	if [ -x "$KT_BIN/checktrace" ]; then
		check "$k: afterwards: the trace is well formed (checktrace)" \
			"$KT_BIN/checktrace" "$out/after.trace" -q
	fi
	check "$k: afterwards: ktcheck reads the trace" eval 'ktcheck "$out/after.trace" > "$TMP/after.f" 2>&1'
	check "$k: reload race: no rule broken (exit 0)" grep -qx "sys=0" "$L"
	r=$(sed -n 's/^rmmods=\([0-9]*\) insmods=\([0-9]*\)$/\1 \2/p' "$L")
	check "$k: reload race: rmmod and insmod under system call 1023 (${r:-none})" \
		eval '[ "${r%% *}" -gt 0 ] && [ "${r##* }" -gt 0 ]'
	check "$k: reload race: system call 1023 answered ($(n "$out/sys.out" "sys1023 answered") calls)" \
		test "$(n "$out/sys.out" "sys1023 answered")" -gt 0
	check "$k: rmmod at the end" grep -qx "rmmod_end=0" "$L"
	# the kernel log
	check "$k: the guest's kernel log is complete" grep -q '^\[ *0\.000000\]' "$out/dmesg.all"
	cat "$out/dmesg.all" "$out/console.log" | grep -aE "$KT_SPLAT" > "$out/splats.txt"
	if [ -s "$out/splats.txt" ]; then
		nok "$k: 0 splats in the kernel log and on the console ($(wc -l < "$out/splats.txt") lines)"
		sed 's/^/#   /' "$out/splats.txt" | head -40
	else
		ok "$k: 0 splats in the kernel log and on the console (oops, WARN, BUG, checkers)"
	fi
	echo "# $k: root $(rate "$out/root.out"); user $(rate "$out/user.out"); reload race $(rate "$out/sys.out")"
done

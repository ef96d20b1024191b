#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# kutrace_mod.ko on stock Debian kernels in QEMU (TCG, 2 vCPUs): the cloud
# kernels 6.1 and 6.12, the generic 6.1 (6.1.0-N-amd64) and its PREEMPT_RT
# flavour (6.1.0-N-rt-amd64): the vertical slice, scenario 1 "nothing missing" and
# scenario 5 "permissions and bad ioctls".  Guest side:
# tests/vm/scenarios/basic.sh.  Facts come from tests/vm/host/ktcheck.c
# (independent of the postprocessor) and from kutrace_postproc's JSON.
# KT_VM_KERNELS="6.1 6.12 6.1-generic 6.1-rt" selects kernels; outputs
# stay in build/vm/.  arm64-6.1 and arm64-6.12 are Debian's arm64 cloud
# kernels under qemu-system-aarch64 (tests/t_vm_arm64.sh runs them),
# riscv64-6.1 a riscv64 6.1 kernel built here under qemu-system-riscv64,
# its guest without a shell running tests/vm/scenarios/basic.run
# (tests/t_vm_riscv64.sh).
. tests/lib.sh
. tests/vm/lib.sh
if [ -x /var/cache/kutrace/checkpatch/checkpatch.pl ] || tests/vm/get-checkpatch.sh >/dev/null 2>&1; then
	if /var/cache/kutrace/checkpatch/checkpatch.pl --strict --no-tree --terse \
		-f module/*.c module/*.h > "$TMP/cp.out" 2>&1; then
		ok "module passes checkpatch.pl --strict"
	else
		nok "module passes checkpatch.pl --strict"; sed 's/^/#   /' "$TMP/cp.out" | head -20
	fi
else
	skip "checkpatch.pl: cannot fetch linux-source-6.1"
fi
vm_ready || exit 0
N=100000 M=100 K=1000
# No clocksource watchdog: when it finds the TSC unstable under TCG, the
# switch of clocksource runs stop_machine, and migration/N then preempts
# the SCHED_FIFO ping-pong pair (seen once on p6.12: other_switchin 1).
export KT_APPEND=${KT_APPEND-"tsc=nowatchdog"}
for k in ${KT_VM_KERNELS:-6.1 6.12 6.1-generic 6.1-rt}; do
	out=$KT_ROOT/build/vm/basic-$k
	vm_arch "$k"
	arch=$ARCH tp=tracepoint
	[ $arch = x86 ] || tp="tracepoint $arch"
	# arm64: golden traces of both architectures go into the guest;
	# the input of the interactive prompt for a guest without a shell
	mkdir -p "$TMP/extra/golden"
	[ $arch != arm64 ] || cp tests/golden/basic.trace tests/golden/arm64.trace "$TMP/extra/golden/"
	printf 'go\nstat\nwait 1\nstop prompt\n' > "$TMP/extra/prompt.in"
	KT_VM_EXTRA=$TMP/extra vm_run "$k: guest ran the scenario" "$out" $VMOPT \
		tests/vm/scenarios/basic.$SCEN || continue
	# the shell-less guest leaves its whole kernel log, not the oopses
	[ $SCEN = sh ] || grep -E "Oops|BUG:|general protection|Call Trace|WARNING:" \
		"$out/dmesg.txt" > "$out/oops.txt"
	[ $SCEN = sh ] || check "$k: the guest's kernel log came back" \
		grep -q "kutrace: unloaded" "$out/dmesg.txt"
	ok "$k: guest booted, loaded kutrace_mod.ko and ran the scenario ($VM_AFTER)"
	eq "$k: insmod kutrace_mod.ko" "insmod=0" "$(cat "$out/insmod.status")"
	if [ $arch = arm64 ]; then
		check "$k: the guest is arm64" grep -q "cloud-arm64, 2 cpus" "$out/console.log"
		check "$k: the module's time base is CNTVCT_EL0" \
			grep -q "time counter CNTVCT_EL0 at [0-9]* Hz" "$out/dmesg.txt"
	fi
	if [ $arch = riscv64 ]; then
		check "$k: the guest is riscv64" grep -q "Platform Name *: riscv-virtio,qemu" "$out/console.log"
		check "$k: the module's time base is the time CSR at the timebase" \
			grep -q "time counter time CSR at 10000000 Hz" "$out/dmesg.txt"
	fi
	[ $arch = x86 ] || check "$k: system call 1023 says it is x86-64 only" \
		grep -q "system call 1023 unavailable: x86-64 only" "$out/kutrace.dmesg"
	check "$k: hello_world_trace wrote its trace" grep -q "hello=0" "$out/scenario.log"
	check "$k: kutrace_control record succeeded" grep -q "record=0" "$out/scenario.log"
	check "$k: record says where the file is and how big" \
		grep -q "wrote mixed.trace, [0-9]* blocks, [0-9]* bytes" "$out/record.err" "$out/workload.out"
	check "$k: no oops in the guest" test ! -s "$out/oops.txt"

	ktcheck "$out/hello.trace" > "$TMP/hello.f"
	check "$k: hello trace has the backend name entry" \
		grep -q "^backend $tp: synth sched span" "$TMP/hello.f"

	ktcheck "$out/mixed.trace" > "$TMP/mixed.f" || nok "$k: ktcheck"
	# QEMU virt's counter: 62.5 MHz (a Raspberry Pi 4's: 54 MHz); its
	# riscv64 time CSR: 10 MHz
	[ $arch != arm64 ] || between "$k: time pairs give CNTVCT's rate (ticks/us x 10)" 500 750 \
		"$(awk '$1 == "rate" { printf "%d", $2 * 10 }' "$TMP/mixed.f")"
	[ $arch != riscv64 ] || between "$k: time pairs give the time CSR's rate (ticks/us x 10)" 95 105 \
		"$(awk '$1 == "rate" { printf "%d", $2 * 10 }' "$TMP/mixed.f")"
	pid=$(awk '$1 == "pid" { print $2; exit }' "$out/workload.out")
	child=$(awk '$1 == "child" { print $2 }' "$out/workload.out")
	eq "$k: exactly N getpid calls for the workload pid" "calls $N fused" \
		"$(fact "$TMP/mixed.f" pid $pid sys $NR_getpid | cut -d' ' -f1-3)"
	mixed_counts "$TMP/mixed.f" "$pid" "$child"
	eq "$k: ping-pong parent: K reads" "calls $K" \
		"$(fact "$TMP/mixed.f" pid $pid sys $NR_read | cut -d' ' -f1-2)"
	pingpong_pair $K "$out/mixed.trace" "$pid" "$child" "$out/scenario.log"
	# PREEMPT_RT may switch the exiting child out inside exit_group (after
	# its last write, seen at the tick) and back in when the parent blocks
	# in wait4: one switch-in after the K round trips, no wakeup
	# (ktcheck.c); the pair counts above are exact all the same.
	set -- $(fact "$TMP/mixed.f" pid $child switchin | awk '{ print $1, $3 }')
	case $k in
	*-rt) check "$k: child: K switch-ins (+1 in exit_group on RT: $1) and K wakeups in all" \
		test "$1" -ge $K -a "$1" -le $((K + 1)) -a "$2" = $K ;;
	*) eq "$k: child: K switch-ins and K wakeups in all" "$K $K" "$1 $2" ;;
	esac
	# the parent's other wakeups: its M sleeps and its own fork.  On
	# PREEMPT_RT kernel spinlocks are sleeping rt_mutexes: the parent may
	# block on one that a real-time thread holds and be woken when it is
	# released (seen once: M + 2 on 6.1-rt), so there at least M + 1.
	set -- $(fact "$TMP/pair.f" pair $pid $child | cut -d' ' -f7-8)
	case $k in
	*-rt) check "$k: parent: M + 1 other wakeups (nanosleep, fork; + lock waits on RT: $2)" \
		test "$1" = other_wakeup -a "$2" -ge $((M + 1)) -a "$2" -le $((M + 5)) ;;
	*) eq "$k: parent: M + 1 other wakeups (nanosleep, fork)" "other_wakeup $((M + 1))" "$1 $2" ;;
	esac
	# Before the ping-pong the parent is an ordinary CFS task: its other
	# switch-ins (first run, move to CPU 1, after M sleeps) vary.  More
	# after preemptions; fewer when a sleep's timer fires before the task
	# has switched out (seen on 6.12 under TCG: the vCPU stalled 1.9 ms
	# between clock_nanosleep's entry and schedule(), the wakeup found the
	# task still running, no switch).  Its M + 1 wakeups are exact (above).
	# arm64 under TCG: a getpid takes ~50 us, the N calls ~5 s, ten times
	# x86's, and the parent is preempted more often meanwhile (seen 119, 125).
	# PREEMPT_RT runs timers, RCU callbacks and interrupts in per-CPU
	# threads of real-time priority, each of which preempts the CFS parent
	# during its N getpid calls: ~20 more (seen 119, 120, 121, 122 on 6.1-rt).
	hi=$((M + 21))
	case $arch-$k in
	x86-*-rt) hi=$((M + 40)) ;;
	x86-*) ;;
	*) hi=$((M + 60)) ;;
	esac
	between "$k: parent: other switch-ins ~M" $((M - 20)) $hi \
		"$(fact "$TMP/pair.f" pair $pid $child | cut -d' ' -f6)"
	workload_faults "$k" "$pid"
	check "$k: PC samples present" test "$(fact "$TMP/mixed.f" pcsamples)" -gt 0
	check "$k: backend entry does not say IPI sends are missing" \
		sh -c "grep '^backend tracepoint' '$TMP/mixed.f' | grep -vq 'no IPI send'"

	# IPI sends: 6.1 has no ipi_send_* tracepoint, the module kprobes the
	# x86 send functions (arm64: the ipi_raise tracepoint); 6.6+ uses the
	# ipi_send_* tracepoints.  A ping-pong across
	# CPUs 0 and 1 wakes a task on the other (idle) CPU each time.
	check "$k: cross-CPU ping-pong recorded" grep -q "ipi=0" "$out/scenario.log"
	case $k in 6.1|6.1-*|riscv64-6.1) check "$k: IPI sends through kprobes" \
		grep -q "IPI sends through kprobes" "$out/kutrace.dmesg" ;; esac
	# Loaded and off, the module costs nothing: its kprobes are disabled
	# (not in the kernel's text) until ON and again after stop.
	kp="handle_mm_fault"
	case $k in
	6.1|6.1-*) kp="$kp native_smp_send_reschedule" ;;
	riscv64-6.1) kp="$kp smp_send_reschedule handle_IPI" ;;
	esac
	for p in $kp; do
		check "$k: $p probe disabled while loaded and off" grep -q " $p+0x[0-9a-f]* .*\[DISABLED\]" "$out/kprobes_off.txt"
		check "$k: ... enabled while tracing" eval 'grep " $p+0x[0-9a-f]* " "$out/kprobes_on.txt" | grep -vq DISABLED'
		check "$k: ... disabled again after stop" grep -q " $p+0x[0-9a-f]* .*\[DISABLED\]" "$out/kprobes_stopped.txt"
	done
	ktcheck "$out/ipi.trace" > "$TMP/ipi.f"
	set -- $(fact "$TMP/ipi.f" ipi)	# N self N maxarg N cpus N
	check "$k: IPI send events in the trace (${1:-0})" test "${1:-0}" -gt 0
	eq "$k: IPI send args: none names its own CPU, all < #CPUs" "self 0 cpus 2 ok" \
		"self $3 cpus $7 $([ "${5:--1}" -ge 0 ] && [ "${5:--1}" -lt "${7:-0}" ] && echo ok)"
	check "$k: IPIs from CPU 0 to 1 ($(fact "$TMP/ipi.f" ipiroute 0 1))" \
		test "$(fact "$TMP/ipi.f" ipiroute 0 1)" -gt 0
	check "$k: IPIs from CPU 1 to 0 ($(fact "$TMP/ipi.f" ipiroute 1 0))" \
		test "$(fact "$TMP/ipi.f" ipiroute 1 0)" -gt 0
	if [ -x "$KT_BIN/kutrace_postproc" ]; then
		json_tiles "$k" "$out/mixed.trace" && {
		# arm64 and riscv64 traces on this host: the names the guest's
		# kutrace_control wrote, and the page in Chromium
		if [ $arch != x86 ]; then
			names="getpid clock_nanosleep page_fault arch_timer ipi1_function"
			[ $arch = arm64 ] || names="getpid clock_nanosleep page_fault riscv-timer ipi"
			for name in $names; do
				check "$k: JSON names $name ($arch numbering)" grep -q "\"$name\"" "$TMP/mixed.json"
			done
			check "$k: the trace has a CPU model (CPU part and board)" \
				sh -c "'$KT_BIN/checktrace' '$TMP/mixed.trace' | grep -q 'CPU model present'"
			mkdir -p build/screenshots
			"$KT_BIN/kutrace_postproc" "$TMP/mixed.trace" "$k mixed" >/dev/null 2>&1
			chromium_page "$k: the workload's page in Chromium" "$TMP/mixed.html" \
				"build/screenshots/basic-$k.png" workload
			# either architecture's trace postprocessed on arm64
			if [ $arch = arm64 ]; then
				for g in basic arm64; do
					same_file "$k: on arm64, rawtoevent | sort -n | eventtospan: $g golden JSON" \
						tests/golden/$g.json <(grep -v randomid "$out/golden-$g.json")
				done
			fi
		fi
		}
	else
		skip "$k: postprocessing: no $KT_BIN/kutrace_postproc"
	fi

	check "$k: interactive prompt: go, stat, stop FILE" grep -q "wrote prompt.trace" "$out/prompt.out"
	check "$k: interactive prompt shows 'control> '" grep -q "^control> " "$out/prompt.out"
	check "$k: time_getpid reports off/on/on+IPC" \
		test "$(grep -c '^getpid, tracing' "$out/time_getpid.out")" = 3
	sed 's/^/#   /' "$out/time_getpid.out"

	# scenario 5
	check "$k: /dev/kutrace is mode 0600" grep -q '^crw-------' "$out/devnode.txt"
	check "$k: vmcheck security ran clean" grep -q "vmcheck=0" "$out/scenario.log"
	relay "$k" "$out/security.out"
	check "$k: rmmod kutrace_mod" grep -q "rmmod=0" "$out/scenario.log"
	check "$k: without the module kutrace_control says so" \
		grep -q "module not loaded" "$out/nomod.out"
done

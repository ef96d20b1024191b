#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The BPF backend (bpf/, issue 16) on stock Debian cloud kernels in QEMU
# (TCG, 2 vCPUs), the module unloaded: the exact counts of t_vm_basic.sh's
# scenario (N getpid calls and returns, the SCHED_FIFO ping-pong's switches
# and wakeups, every fault with its exit, TSDELTAs, no backward block),
# an interrupt-heavy stress where programs nest (checktrace clean, counts
# exact), wraparound and a full buffer; streaming (FORMATS 10.1): N getpid
# calls cut into chunks that each pass checktrace and kutrace_postproc
# alone and together hold exactly N, read as one trace too; then the
# reader stopped for 6 s: the loss counted, printed and all in LOST
# entries.  6.12 boots with lockdown=integrity module.sig_enforce=1: the
# module does not load, BPF records all the same.
# Guest side: tests/vm/scenarios/bpf.sh.  KT_VM_BPF_KERNELS selects kernels.
. tests/lib.sh
. tests/vm/lib.sh
vm_ready || exit 0
if ! "$KT_BIN/kutrace_control" --help 2>/dev/null | grep -q '^backends: module bpf'; then
	skip "bpf: kutrace_control built without the BPF backend (tests/deps/bpf.apt)"
	exit 0
fi
N=100000 M=100 K=1000
stream=1	# the first kernel streams (CI's time: the same code on each)
for k in ${KT_VM_BPF_KERNELS:-6.1 6.12}; do
	append="tsc=nowatchdog"
	[ $stream = 1 ] || append="$append ktbpfstream=0"
	[ "$k" = 6.12 ] && append="$append lockdown=integrity module.sig_enforce=1"
	out=$KT_ROOT/build/vm/bpf-$k
	KT_APPEND=$append vm_run "$k bpf: guest ran the scenario" "$out" -k "$k" \
		tests/vm/scenarios/bpf.sh || continue
	ok "$k bpf: guest ran the scenario ($VM_AFTER, $append)"
	check "$k bpf: no oops in the guest" test ! -s "$out/oops.txt"
	case $append in
	*lockdown=integrity*)
		check "$k bpf: lockdown=integrity: the module does not load" \
			grep -qv "insmod=0" "$out/insmod.status"
		check "$k bpf: lockdown=integrity: the kernel says it is locked down" \
			grep -qi "lockdown" "$out/dmesg.txt" ;;
	*) eq "$k bpf: the module loaded (then unloaded for this test)" insmod=0 "$(cat "$out/insmod.status")" ;;
	esac
	check "$k bpf: no /dev/kutrace" grep -q "nodev=0" "$out/scenario.log"
	check "$k bpf: --backend=module without the module: exit != 0" \
		grep -q "forced_module=1" "$out/scenario.log"
	check "$k bpf: --backend=module without the module: the first line says so" \
		sh -c "head -1 '$out/nomodule.out' | grep -q 'module not loaded'"
	check "$k bpf: status names the BPF backend" grep -q "backend: bpf" "$out/status.out"
	check "$k bpf: kutrace_control record succeeded" grep -q "record=0" "$out/scenario.log"

	ktcheck "$out/mixed.trace" > "$TMP/mixed.f" || nok "$k bpf: ktcheck"
	check "$k bpf: the trace names its backend bpf" grep -q "^backend bpf: " "$TMP/mixed.f"
	pid=$(awk '$1 == "pid" { print $2; exit }' "$out/workload.out")
	child=$(awk '$1 == "child" { print $2 }' "$out/workload.out")
	eq "$k bpf: exactly N getpid calls for the workload pid" "calls $N" \
		"$(fact "$TMP/mixed.f" pid $pid sys 39 | cut -d' ' -f1-2)"
	mixed_counts "$TMP/mixed.f" "$pid" "$child"
	# Exact on 6.1.  On 6.12 one or two other tasks now and then ran on
	# the pair's CPU during the ping-pong when the host was loaded (2 runs
	# of 5, never in t_vm_basic's module runs of the same days): the
	# switch-ins from the parent and every wakeup stay exact, the extra
	# switch-ins are allowed there (an open question, see the report).
	if [ "$k" = 6.12 ]; then
		ktcheck "$out/mixed.trace" "$pid" "$child" > "$TMP/pair.f"
		set -- $(fact "$TMP/pair.f" pair $child $pid)
		check "$k bpf: ping-pong: K switches into the child from the parent, K wakeups by it (+${6:-?} other switch-ins, <= 2)" \
			test "$1 $2 $3 $4 $7 $8" = "switchin $K wakeup $K other_wakeup 0" -a "${6:-9}" -le 2
		eq "$k bpf: ping-pong: K switches into the parent from the child, K wakeups by it" \
			"switchin $K wakeup $K" "$(fact "$TMP/pair.f" pair $pid $child | cut -d' ' -f1-4)"
		set -- $(fact "$TMP/mixed.f" pid $child switchin | awk '{ print $1, $3 }')
		check "$k bpf: child: K switch-ins (+<= 2) and K wakeups in all ($1 $2)" \
			test "$1" -ge $K -a "$1" -le $((K + 2)) -a "$2" = $K
	else
		pingpong_pair $K "$out/mixed.trace" "$pid" "$child" "$out/scenario.log"
		set -- $(fact "$TMP/mixed.f" pid $child switchin | awk '{ print $1, $3 }')
		eq "$k bpf: child: K switch-ins and K wakeups in all" "$K $K" "$1 $2"
	fi
	eq "$k bpf: parent: M + 1 other wakeups (nanosleep, fork)" "other_wakeup $((M + 1))" \
		"$(fact "$TMP/pair.f" pair $pid $child | cut -d' ' -f7-8)"
	workload_faults "$k bpf" "$pid"
	[ ! -x "$KT_BIN/kutrace_postproc" ] || json_tiles "$k bpf" "$out/mixed.trace"

	# nesting stress
	check "$k bpf: stress recorded" grep -q "stress=0" "$out/scenario.log"
	if [ -x "$KT_BIN/checktrace" ]; then
		"$KT_BIN/checktrace" "$out/stress.trace" -q > "$TMP/ct" 2>&1
		check "$k bpf: stress: checktrace PASS ($(tail -1 "$TMP/ct"))" grep -q "^PASS" "$TMP/ct"
	fi
	set -- $(sed -n 's/.*bpf: \([0-9]*\) claims retried.*, \([0-9]*\) entries lost/\1 \2/p' "$out/stress.err")
	check "$k bpf: stress: programs nested (claims retried: ${1:-none})" test "${1:-0}" -gt 0
	eq "$k bpf: stress: no entry lost" 0 "${2:-}"
	ktcheck "$out/stress.trace" > "$TMP/stress.f"
	spid=$(awk '$1 == "pid" { print $2; exit }' "$out/stress_getpid.out")
	eq "$k bpf: stress: exactly 200000 getpid calls and returns" "calls 200000" \
		"$(fact "$TMP/stress.f" pid $spid sys 39 | cut -d' ' -f1-2)"
	eq "$k bpf: stress: every getpid returns" "rets 200000" \
		"$(fact "$TMP/stress.f" pid $spid sys 39 | awk '{print $5, $6}')"
	check "$k bpf: stress: entries on both CPUs" test "$(grep -c '^cpu ' "$TMP/stress.f")" -ge 2

	# wraparound and a full buffer (1 MiB = 16 blocks)
	check "$k bpf: wraparound run recorded" grep -q "wrap=0" "$out/scenario.log"
	check "$k bpf: wraparound: the buffer wrapped" grep -q "wrapped around" "$out/wrap.err"
	eq "$k bpf: wraparound: 16 blocks, wrapped flag" "16 1" \
		"$(ktcheck "$out/wrap.trace" | awk '$1 == "blocks" { b = $2 } $1 == "wrapped" { w = $2 } END { print b, w }')"
	check "$k bpf: full buffer: says so" grep -q "filled up" "$out/full.err"
	eq "$k bpf: full buffer: 16 blocks, not wrapped" "16 0" \
		"$(ktcheck "$out/full.trace" | awk '$1 == "blocks" { b = $2 } $1 == "wrapped" { w = $2 } END { print b, w }')"

	if [ $stream = 0 ]; then
		skip "$k bpf: streaming and the flight recorder (run on the first kernel only)"
	else
	stream=0
	# streaming (FORMATS 10.1, the BPF paragraph), the reader stopped later
	check "$k bpf: record --stream exits 0" grep -q "^stream=0" "$out/scenario.log"
	n=$(ls "$out"/st1/kt_*.trace 2>/dev/null | wc -l)
	between "$k bpf: stream: cut into several chunks" 3 1000 "$n"
	spid=$(awk '$1 == "pid" { print $2; exit }' "$out/st1_getpid.out")
	sum=0 named=0 bad=0 nopost=0
	for c in "$out"/st1/kt_*.trace; do
		ktcheck "$c" > "$TMP/c.f"
		v=$(fact "$TMP/c.f" pid "$spid" sys 39 | awk '{ print $2 }')
		sum=$((sum + ${v:-0}))
		grep -q "^backend bpf: " "$TMP/c.f" && named=$((named + 1))
		"$KT_BIN/checktrace" -q -nopf "$c" > "$TMP/ct" 2>&1 ||
			{ bad=$((bad + 1)); diag "$(basename "$c"): $(tail -3 "$TMP/ct")"; }
		"$KT_BIN/kutrace_postproc" "$c" -o "$TMP/one.json" --no-html > "$TMP/pp" 2>&1 ||
			{ nopost=$((nopost + 1)); diag "postproc $(basename "$c"): $(tail -2 "$TMP/pp")"; }
	done
	eq "$k bpf: stream: the chunks hold exactly 100000 getpid calls" 100000 "$sum"
	eq "$k bpf: stream: every chunk names its backend bpf" "$n" "$named"
	eq "$k bpf: stream: every chunk passes checktrace alone" 0 "$bad"
	eq "$k bpf: stream: every chunk postprocesses alone" 0 "$nopost"
	"$KT_BIN/checktrace" -v -nopf "$out/st1" > "$TMP/ctd" 2>&1
	check "$k bpf: stream: checktrace DIR passes" grep -q "^PASS" "$TMP/ctd"
	eq "$k bpf: stream: read as one trace, exactly 100000 getpid calls" 100000 \
		"$("$KT_BIN/rawtoevent" "$out/st1" 2> /dev/null | awk -v p="$spid" '$3 == 2087 && $5 == p' | wc -l)"
	"$KT_BIN/kutrace_postproc" "$out/st1" -o "$TMP/dir.json" --no-html > "$TMP/ppd" 2>&1
	eq "$k bpf: stream: kutrace_postproc DIR exits 0" 0 "$?"
	lost=$(sed -n 's/.*lost: \([0-9]*\) entries.*in all.*/\1/p' "$out/st1.err")
	between "$k bpf: stopped reader: the loss is counted (entries)" 1 1000000000 "${lost:-0}"
	check "$k bpf: stopped reader: the loss is printed per CPU" grep -q "lost: cpu [0-9]*: [1-9]" "$out/st1.err"
	eq "$k bpf: stopped reader: the LOST entries in the chunks hold every entry counted" "${lost:-x}" \
		"$(sed -n 's/.*lost on cpu [0-9]*: \([0-9]*\) entries.*/\1/p' "$TMP/ctd" | awk '{ s += $1 } END { print s + 0 }')"
	# the flight recorder on BPF: exit:workload, three runs
	check "$k bpf: kutrace_flight --backend bpf -- three workload runs exits 0" grep -q "^flight=0" "$out/scenario.log"
	eq "$k bpf: flight: three snapshots, one per run" 3 "$(ls "$out"/fl/snapshot-*-exit-workload.trace 2> /dev/null | wc -l)"
	bad=0 marked=0
	for f in "$out"/fl/snapshot-*-exit-workload.trace; do
		"$KT_BIN/checktrace" -q -nopf "$f" > /dev/null 2>&1 || bad=$((bad + 1))
		"$KT_BIN/kutrace_postproc" "$f" -o "$TMP/fl.json" --no-html > /dev/null 2>&1 &&
			grep -q '"trigger:exit:workload,pid=' "$TMP/fl.json" && marked=$((marked + 1))
	done
	eq "$k bpf: flight: every snapshot passes checktrace" 0 "$bad"
	eq "$k bpf: flight: every snapshot's timeline holds its trigger's mark" 3 "$marked"
	fi
	check "$k bpf: nothing left pinned after the runs" grep -q "unpinned=0" "$out/scenario.log"
done

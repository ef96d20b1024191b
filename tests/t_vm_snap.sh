#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The flight recorder (issue 45, docs/spec/FORMATS.md 11): kutrace_flight
# in a QEMU guest (TCG) on Debian's 6.1 cloud kernel, scenario
# tests/vm/scenarios/snap.sh.  Every snapshot is cut back into its chunks
# (tests/vm/host/snapsplit.c), each of which must pass checktrace and
# kutrace_postproc alone, follow the one before without a gap (and the
# whole snapshot passes both as one trace), and the checks below hold on
# them:
# - on demand (kutrace_flight snapshot, -o FILE and the default name, and
#   SIGUSR2) three snapshots while tracing goes on, each later than the
#   one before;
# - syscall:nanosleep>400ms with K 1 s nanosleep calls 3 s apart among
#   many of 1 ms (--min-interval 0): a snapshot for exactly the calls over
#   400 ms (the K, and any a busy host stalled that long, as the workload
#   measured them), the K long ones each in one from at least
#   --before 1 s before its long call to past its end (the workload's own
#   counter readings), with one trigger mark of that pid, on disk within
#   1 s of the end of its --after;
# - kutrace_trigger("slow-thing") from a program: one snapshot, with --before
#   before the call and the mark;
# - a process killed by SIGSEGV: one snapshot holding its last second;
# - exit:snapload: one snapshot when it exits;
# - rpc:lookup>400ms with 4 slow RPCs (1 s) of 200, two of them lookups
#   (marked through system call 1023 while the recorder holds
#   /dev/kutrace): a snapshot for each lookup over 400 ms, with its mark,
#   none for the stores; `kutrace why SNAPSHOT --slowest 1` names the
#   lookup and the planted sleep;
# - --max-snapshots 1 and --min-interval 60: two long calls, one snapshot;
# - bad input (rpc>, syscall:nosuch>1ms, rpc>-5ms, no module): one line,
#   exit 2, tracing state unchanged; a 1 MB spool cannot hold --before 5:
#   one warning, and the spool is removed at the end.
. tests/lib.sh
. tests/vm/lib.sh
vm_ready || exit 0
K=3
export KT_APPEND=${KT_APPEND-"tsc=nowatchdog"}

quiet() { "$@" > /dev/null 2>&1; }
# snap_ok WHAT SNAPSHOT: split into $TMP/split; the chunks' facts in
# $TMP/split.txt (chunk I BLOCKS START STOP); every chunk alone passes.
snap_ok() {
	local what=$1 s=$2 c bad=0 nopost=0 gaps
	rm -rf "$TMP/split"; mkdir -p "$TMP/split"
	if ! "$KT_BIN/snapsplit" "$s" "$TMP/split" > "$TMP/split.txt"; then
		nok "$what: $(basename "$s") is chunks back to back"; return 1
	fi
	for c in "$TMP/split"/c_*.trace; do
		"$KT_BIN/checktrace" -q -nopf "$c" > "$TMP/ct" 2>&1 ||
			{ bad=$((bad + 1)); diag "$(basename "$c"): $(tail -3 "$TMP/ct")"; }
		"$KT_BIN/kutrace_postproc" "$c" -o "$TMP/one.json" --no-html > "$TMP/pp" 2>&1 ||
			{ nopost=$((nopost + 1)); diag "postproc $(basename "$c"): $(tail -2 "$TMP/pp")"; }
	done
	# chunk n+1 starts (its pair P) before chunk n stops (its pair Q)
	gaps=$(awk '$1 == "chunk" { if (n++ && $4 > stop) g++; stop = $5 } END { print g + 0 }' "$TMP/split.txt")
	eq "$what: $(fact "$TMP/split.txt" chunks) chunks, each passes checktrace alone" 0 "$bad"
	eq "$what: each chunk postprocesses alone" 0 "$nopost"
	eq "$what: no gap between its chunks" 0 "$gaps"
	# and as one trace (FORMATS 10.2, Joining)
	check "$what: the snapshot passes checktrace as one trace" quiet "$KT_BIN/checktrace" -q -nopf "$s"
	check "$what: and postprocesses as one" quiet "$KT_BIN/kutrace_postproc" "$s" -o "$TMP/whole.json" --no-html
}
# the snapshots in $out/DIR in the order written (N of snapshot-DATE-N-WHY)
snaps() {
	ls "$out/$1" | grep '^snapshot-.*\.trace$' | sort -t- -k3,3n | sed "s|^|$out/$1/|"
}
snap_start() { awk '$1 == "chunk" { print $4; exit }' "$TMP/split.txt"; }
snap_stop() { awk '$1 == "chunk" { s = $5 } END { print s }' "$TMP/split.txt"; }
# the trigger marks in the split chunks (rawtoevent: event 645, 0x285)
snap_marks() {
	local c
	for c in "$TMP/split"/c_*.trace; do
		"$KT_BIN/rawtoevent" "$c" 2>/dev/null | awk '$3 == 645'
	done
}
# ticks per usec of the split's first chunk
snap_rate() {
	ktcheck "$TMP/split/c_000.trace" > "$TMP/rate.f"
	fact "$TMP/rate.f" rate
}

snap_checks() {
	local s n i pid a b rate start stop prev
	grep -E "Oops|BUG:|general protection|Call Trace|WARNING:" "$out/console.log" > "$TMP/oops"
	check "$k: no oops in the guest" test ! -s "$TMP/oops"

	# 1. on demand
	check "$k: kutrace_flight snapshot -o FILE exits 0" grep -q "^snap1=0" "$out/scenario.log"
	eq "$k: it prints the file's name" "/out/d1/demand1.trace" "$(cat "$out/snap1.out")"
	check "$k: kutrace_flight snapshot (default name) exits 0" grep -q "^snap2=0" "$out/scenario.log"
	check "$k: the default name is snapshot-DATE-N-demand.trace in -o DIR" \
		grep -qE "^d1/snapshot-[0-9]{8}T[0-9]{6}-[0-9]+-demand\.trace$" "$out/snap2.out"
	check "$k: the recorder ended well" grep -q "^f1=0" "$out/scenario.log"
	eq "$k: three snapshots on demand (two asked, one SIGUSR2)" 3 "$(grep -c '\.trace$' "$out/d1.ls")"
	eq "$k: no temporary file left" 0 "$(grep -c '\.tmp$' "$out/d1.ls")"
	prev=0 i=0
	for s in "$out/d1/demand1.trace" $(snaps d1); do
		i=$((i + 1))
		snap_ok "$k: on demand $i" "$s" || continue
		stop=$(snap_stop)
		check "$k: on demand $i: later than the one before (tracing went on)" test "$stop" -gt "$prev"
		prev=$stop
		between "$k: on demand $i: its on-demand mark" 1 3 "$(snap_marks | grep -c 'trigger:on-demand')"
	done
	eq "$k: three on-demand snapshots checked" 3 "$i"

	# 2. K long nanosleep calls.  A busy host can stall the guest long
	# enough to make a 1 ms call slow too: the truth is what the workload
	# measured ("over N NEAR": calls over the bound, calls within 10 % of it)
	check "$k: syscall trigger run exits 0" grep -q "^f2=0" "$out/scenario.log"
	pid=$(awk '$1 == "pid" { print $2 }' "$out/f2.out")
	between "$k: the workload made many short nanosleep calls" 200 100000 \
		"$(awk '$1 == "short" { print $2 }' "$out/f2.out")"
	read -r over near <<< "$(awk '$1 == "over" { print $2, $3 }' "$out/f2.out")"
	fired=$(grep -c 'trigger syscall:nanosleep>400ms' "$out/f2.out")
	between "$k: the K long calls took over 400 ms ($over calls did)" $K 1000 "${over:-0}"
	between "$k: it fired for exactly the calls over 400 ms ($fired; $over over, $near near)" \
		$((over - near)) $((over + near)) "$fired"
	eq "$k: one snapshot per trigger" "$fired" "$(grep -c '\.trace$' "$out/d2.ls")"
	# the target: on disk within 1 s of the end of --after
	sed -n 's/.*on disk \([0-9]*\) ms after --after ended$/\1/p' "$out/f2.out" > "$TMP/lag"
	eq "$k: each says when it was on disk" "$fired" "$(wc -l < "$TMP/lag")"
	between "$k: the slowest on disk $(sort -n "$TMP/lag" | tail -1) ms after --after ended" 0 999 \
		"$(sort -n "$TMP/lag" | tail -1)"
	check "$k: the recorder's CPU per 10 MB/s is printed" grep -q "of a core per 10 MB/s" "$out/f2.out"
	# each snapshot: its chunks, span, rate, marks of the workload, and
	# what kutrace_flight check finds again on its chunks
	: > "$TMP/facts"
	i=0
	for s in $(snaps d2); do
		snap_ok "$k: nanosleep snapshot $i" "$s" || { i=$((i + 1)); continue; }
		snap_marks > "$TMP/marks"
		echo "$(snap_start) $(snap_stop) $(snap_rate) $(grep -c "trigger:syscall:nanosleep>400ms,pid=$pid" "$TMP/marks")" >> "$TMP/facts"
		between "$k: nanosleep snapshot $i: a trigger mark of the workload" 1 10 \
			"$(grep -c "trigger:syscall:nanosleep>400ms,pid=$pid" "$TMP/marks")"
		"$KT_BIN/kutrace_flight" check --trigger 'syscall:nanosleep>400ms' "$TMP"/split/c_*.trace > "$TMP/check" 2>&1
		between "$k: nanosleep snapshot $i: kutrace_flight check on its chunks finds it again" 1 10 \
			"$(grep -c "^trigger syscall:nanosleep>400ms,pid=$pid ([0-9]*\.[0-9]* ms)$" "$TMP/check")"
		# the mark in the tables (kutrace_sql): kind trigger, arg the kind, the reason
		if [ $i = 0 ] && [ -x "$KT_BIN/kutrace_sql" ]; then
			for c in "$TMP/split"/c_*.trace; do
				"$KT_BIN/rawtoevent" "$c" 2>/dev/null | awk '$3 == 645' | grep -q . || continue
				cp "$c" "$TMP/marked.trace"; rm -rf "$TMP/marked.tables"
				"$KT_BIN/kutrace_sql" "$TMP/marked.trace" --csv \
					-c "SELECT kind, arg, label FROM mark" > "$TMP/mark.csv" 2> "$TMP/sql.err"
				check "$k: nanosleep snapshot $i: the table mark has it" \
					grep -qx "trigger,2,\"syscall:nanosleep>400ms,pid=$pid\"" "$TMP/mark.csv"
			done
		fi
		i=$((i + 1))
	done
	eq "$k: every nanosleep snapshot checked" "$fired" "$i"
	# every long call in a snapshot from --before 1 s before it to its end,
	# with its mark (the workload's own counter readings)
	for i in $(seq 0 $((K - 1))); do
		read -r a b <<< "$(awk -v i=$i '$1 == "long" && $2 == i { print $3, $4 }' "$out/f2.out")"
		check "$k: long call $i ($a..$b): a snapshot holds it and 1 s before" \
			awk -v a="${a:-0}" -v b="${b:-0}" '$1 <= a - 1e6 * $3 && $2 >= b && $4 >= 1 { f = 1 } END { exit !f }' "$TMP/facts"
	done

	# 3. kutrace_trigger()
	check "$k: kutrace_trigger run exits 0" grep -q "^f3=0" "$out/scenario.log"
	read -r pid rc a <<< "$(awk '$1 == "trigger" && NF == 4 { print $2, $3, $4 }' "$out/f3.out")"
	eq "$k: kutrace_trigger() returns 1 (recorded)" 1 "$rc"
	eq "$k: one snapshot for it" 1 "$(grep -c -- '-call-slow-thing\.trace$' "$out/d3.ls")"
	s=$(ls "$out"/d3/snapshot-*-call-slow-thing.trace 2>/dev/null | head -1)
	if [ -n "$s" ] && snap_ok "$k: kutrace_trigger" "$s"; then
		rate=$(snap_rate)
		check "$k: kutrace_trigger: from 1 s before the call" \
			awk -v s="$(snap_start)" -v a="$a" -v r="$rate" 'BEGIN { exit !(s <= a - 1e6 * r) }'
		eq "$k: kutrace_trigger: its mark, of the program" 1 \
			"$(snap_marks | grep -c "trigger:slow-thing")"
	fi

	# 4. a crash.  A kernel without the proc connector (CONFIG_PROC_EVENTS:
	# the patched test kernels are tinyconfig) refuses crash and exit:COMM
	# in one line: that line is the check there.
	if grep -q "the proc connector (process exits) is not available" "$out/f4.err"; then
		check "$k: no proc connector in this kernel: crash refused in one line, exit 2" \
			grep -q "^f4=2" "$out/scenario.log"
		skip "$k: crash and exit:COMM snapshots (no CONFIG_PROC_EVENTS in this kernel)"
	else
	check "$k: crash run exits 0" grep -q "^f4=0" "$out/scenario.log"
	pid=$(awk '$1 == "segv" { print $2 }' "$out/f4.out")
	eq "$k: one snapshot for the SIGSEGV" 1 "$(grep -c -- '-crash-snapload\.trace$' "$out/d4.ls")"
	s=$(ls "$out"/d4/snapshot-*-crash-snapload.trace 2>/dev/null | head -1)
	if [ -n "$s" ] && snap_ok "$k: crash" "$s"; then
		eq "$k: crash: the mark names it" 1 \
			"$(snap_marks | grep -c "trigger:crash:snapload,pid=$pid,sig=11")"
		n=0
		for c in "$TMP/split"/c_*.trace; do
			ktcheck "$c" > "$TMP/k.f"
			v=$(fact "$TMP/k.f" pid "$pid" sys $NR_getpid | awk '{print $2}')
			n=$((n + ${v:-0}))
		done
		between "$k: crash: it holds the process's last half second of getpid calls ($n)" 100 100000000 "$n"
	fi

	# 4a. exit:snapload
	check "$k: exit trigger run exits 0" grep -q "^f9=0" "$out/scenario.log"
	pid=$(awk '$1 == "pid" { print $2 }' "$out/f9.out")
	eq "$k: one snapshot for snapload's exit" 1 "$(grep -c -- '-exit-snapload\.trace$' "$out/d9.ls")"
	s=$(ls "$out"/d9/snapshot-*-exit-snapload.trace 2>/dev/null | head -1)
	if [ -n "$s" ] && snap_ok "$k: exit" "$s"; then
		eq "$k: exit: the mark names it, status 0" 1 \
			"$(snap_marks | grep -c "trigger:exit:snapload,pid=$pid,status=0")"
	fi
	fi

	# 4b. RPCs: 4 slow ones of 200, methods store, lookup, store, lookup
	check "$k: rpc trigger run exits 0" grep -q "^f6=0" "$out/scenario.log"
	pid=$(awk '$1 == "rpc" { print $2 }' "$out/f6.out")
	eq "$k: four slow RPCs made, two lookups" "50 store|100 lookup|150 store|200 lookup" \
		"$(awk '$1 == "slow" { print $2, $3 }' "$out/f6.out" | paste -sd'|')"
	grep -o 'trigger rpc:lookup>400ms,id=[0-9]*' "$out/f6.out" | sed 's/.*=//' > "$TMP/ids"
	read -r over near <<< "$(awk '$1 == "over" { print $2, $3 }' "$out/f6.out")"
	check "$k: rpc:lookup>400ms fired for the slow lookups 100 and 200" \
		test "$(grep -cx '100\|200' "$TMP/ids")" = 2
	eq "$k: not for the slow stores 50 and 150" 0 "$(grep -cx '50\|150' "$TMP/ids")"
	between "$k: for exactly the lookups over 400 ms ($over over, $near near)" \
		$((over - near)) $((over + near)) "$(wc -l < "$TMP/ids")"
	eq "$k: one rpc-lookup snapshot each" "$(wc -l < "$TMP/ids")" "$(grep -c -- '-rpc-lookup\.trace$' "$out/d6.ls")"
	for s in $(snaps d6); do
		snap_ok "$k: rpc $(basename "$s")" "$s" || continue
		id=$(snap_marks | grep -o 'trigger:rpc:lookup>400ms,id=[0-9]*' | sed 's/.*=//' | head -1)
		check "$k: rpc: its mark names a lookup that fired ($id)" grep -qx "${id:-x}" "$TMP/ids"
		n=0
		for c in "$TMP/split"/c_*.trace; do
			ktcheck "$c" > "$TMP/k.f"
			v=$(fact "$TMP/k.f" pid "$pid" event 0x202 | awk '{print $2}')
			n=$((n + ${v:-0}))
		done
		between "$k: rpc: it holds the RPCs before it ($n responses)" 2 200 "$n"
		# kutrace why on the snapshot: the slowest RPC is the one that
		# fired, and its time went to the planted sleep (a timer)
		if [ -x "$KT_BIN/kutrace_why" ] && [ "${why_done:-}" != 1 ]; then
			why_done=1
			cp "$s" "$TMP/rpc.trace"; rm -rf "$TMP/rpc.tables"
			"$KT_BIN/kutrace_why" "$TMP/rpc.trace" --slowest 1 > "$TMP/why" 2> "$TMP/why.err"
			check "$k: kutrace why SNAPSHOT --slowest 1: the lookup that fired ($id)" \
				grep -q "^rpc ${id:-x} lookup: pid $pid " "$TMP/why"
			check "$k: kutrace why: its time went to the timer (the planted sleep)" \
				awk '$1 == "cause" { getline; f = $1 == "timer" && $3 > 90 } END { exit !f }' "$TMP/why"
		fi
	done

	# 4c. --max-snapshots 1, --min-interval 60: two long calls, one snapshot
	for r in 7:max-snapshots 8:min-interval; do
		n=${r%%:*} o=${r#*:}
		check "$k: --$o run exits 0" grep -q "^f$n=0" "$out/scenario.log"
		f=$(grep -c 'trigger syscall:nanosleep>400ms' "$out/f$n.out")
		between "$k: --$o: both long calls fired ($f)" 2 1000 "$f"
		eq "$k: --$o: one snapshot" 1 "$(grep -c '\.trace$' "$out/d$n.ls")"
		eq "$k: --$o: the others said not saved" $((f - 1)) \
			"$(grep -c "not saved (.*--$o" "$out/f$n.out")"
	done

	# 5. bad input
	for b in 1 2 3 4; do
		check "$k: bad input $b exits 2" grep -q "^bad$b=2" "$out/scenario.log"
		eq "$k: bad input $b is one line" 1 "$(wc -l < "$out/bad$b.out")"
	done
	check "$k: rpc> is named" grep -q "'rpc>': no duration after '>'" "$out/bad1.out"
	check "$k: the unknown system call is named" grep -q "no system call named 'nosuch'" "$out/bad2.out"
	check "$k: the negative duration is named" grep -q "'-5ms' is not a positive duration" "$out/bad3.out"
	check "$k: no module is said" grep -q "needs the kutrace module" "$out/bad4.out"
	same_file "$k: tracing state unchanged by bad input" "$out/state0.out" "$out/state1.out"

	# 6. a spool too small for --before
	check "$k: small spool run exits 0" grep -q "^f5=0" "$out/scenario.log"
	eq "$k: one warning that the spool cannot hold --before" 1 \
		"$(grep -c "warning: the spool (--spool-mb 1) holds less than --before 5 s" "$out/f5.err")"
	eq "$k: the spools are removed at the end" 0 "$(grep -c '^kutrace-flight-' "$out/d5.ls")"
}
# KT_SNAP_OUT=DIR: check a guest's output kept from an earlier run;
# KT_SNAP_KERNEL=p6.1 (a patched kernel, tests/vm/vm.sh -k): another kernel.
k=${KT_SNAP_KERNEL:-6.1}
vm_arch "$k"
out=$KT_ROOT/build/vm/snap-$k
if [ -n "${KT_SNAP_OUT:-}" ]; then
	out=$KT_SNAP_OUT
	snap_checks
elif vm_run "$k: guest ran the scenario" "$out" $VMOPT -m 8 tests/vm/scenarios/snap.sh; then
	ok "$k: guest ran the scenario ($VM_AFTER)"
	snap_checks
fi

#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Streaming while tracing (issue 44, docs/spec/FORMATS.md 10), in QEMU
# guests (TCG) on Debian's 6.1 cloud kernels, x86-64 and arm64
# (KT_VM_KERNELS, default "6.1"; "6.1 arm64-6.1" adds arm64, 6 min more), scenario
# tests/vm/scenarios/stream.sh:
# - N getpid calls recorded with --stream, cut every 256 KiB: every chunk
#   passes checktrace and kutrace_postproc alone and names the workload;
#   the chunks together hold exactly N getpid calls, none lost;
# - --max-files 3 keeps the newest three chunks;
# - an unknown unit, a negative size, a missing directory: one line,
#   exit 2, tracing state unchanged;
# - the reader stopped (SIGSTOP) for 5 s: the workload keeps running, the
#   loss is counted per CPU, printed, and recorded as LOST entries whose
#   interval covers the stop; the chunks still pass checktrace;
# - a full 20 MB tmpfs: one warning line, tracing goes on, the loss is
#   counted, and every file left is a trace checktrace passes;
# - the flight recorder (--wrap, no streaming) overwriting its oldest
#   blocks: the stop prints the blocks GETLOST counts per CPU, the trace
#   holds exactly those as LOST entries (checktrace), about as many as
#   the getpid calls missing from it fill, and kutrace_postproc draws
#   each as a -lost- row on its CPU that covers the hole to the CPU's
#   first block left.
# KT_STREAM_SOAK_SECS=S (make soak-stream): the long run below instead.
. tests/lib.sh
. tests/vm/lib.sh
vm_ready || exit 0
N=200000
export KT_APPEND=${KT_APPEND-"tsc=nowatchdog"}
# The host's checks of the guest's /out, in $out.
stream_checks() {
	log=$out/scenario.log
	grep -E "Oops|BUG:|general protection|Call Trace|WARNING:" "$out/console.log" > "$TMP/oops"
	check "$k: no oops in the guest" test ! -s "$TMP/oops"

	# chunk checks: checktrace and kutrace_postproc alone
	chunks_ok() {
		local what=$1 dir=$2 c bad=0 nopost=0
		for c in "$dir"/kt_*.trace; do
			"$KT_BIN/checktrace" -q -nopf "$c" > "$TMP/ct" 2>&1 || { bad=$((bad + 1)); diag "$(basename "$c"): $(tail -3 "$TMP/ct")"; }
			"$KT_BIN/kutrace_postproc" "$c" -o "$TMP/one.json" --no-html > "$TMP/pp" 2>&1 ||
				{ nopost=$((nopost + 1)); diag "postproc $(basename "$c"): $(tail -2 "$TMP/pp")"; }
		done
		eq "$what: every chunk passes checktrace alone" 0 "$bad"
		eq "$what: every chunk postprocesses alone" 0 "$nopost"
	}

	# 1. exact getpid count across the cuts
	check "$k: record --stream exits 0" grep -q "^s1=0" "$log"
	n=$(ls "$out"/s1/kt_*.trace 2>/dev/null | wc -l)
	between "$k: the run was cut into several chunks ($n)" 3 10000 "$n"
	check "$k: record says what it wrote" grep -q "wrote $n chunks in s1" "$out/s1.out"
	check "$k: nothing lost" grep -q "lost: 0 entries, 0 blocks in all" "$out/s1.err"
	pid=$(awk '$1 == "pid" { print $2; exit }' "$out/s1.out")
	sum=0 named=0
	for c in "$out"/s1/kt_*.trace; do
		ktcheck "$c" > "$TMP/k.f"
		v=$(fact "$TMP/k.f" pid "$pid" sys $NR_getpid | awk '{print $2}')
		sum=$((sum + ${v:-0}))
		rawtoevent_out=$("$KT_BIN/rawtoevent" "$c" 2>/dev/null | grep -c "workload")
		[ "$rawtoevent_out" -gt 0 ] && named=$((named + 1))
	done
	eq "$k: the chunks hold exactly N getpid calls" "$N" "$sum"
	eq "$k: every chunk names the workload" "$n" "$named"
	chunks_ok "$k" "$out/s1"

	# 2. --max-files 3
	check "$k: --max-files run exits 0" grep -q "^s3=0" "$log"
	eq "$k: --max-files 3 keeps three chunks" 3 "$(ls "$out"/s3/kt_*.trace | wc -l)"
	last=$(ls "$out"/s3/kt_*.trace | tail -1)
	check "$k: they are the newest" test "$(ls "$out"/s3/kt_*.trace | head -1 | sed 's/.*kt_0*//; s/\.trace//')" -eq \
		"$(( $(basename "$last" | sed 's/kt_0*//; s/\.trace//') - 2 ))"

	# 3. bad input
	for b in 1 2 3; do
		check "$k: bad input $b exits 2" grep -q "^bad$b=2" "$log"
		eq "$k: bad input $b is one line" 1 "$(wc -l < "$out/bad$b.out")"
	done
	check "$k: the unknown unit is named" grep -q "unknown unit 'X'" "$out/bad1.out"
	check "$k: the negative size is named" grep -q -- "-5: not a positive size" "$out/bad2.out"
	check "$k: the missing directory is named" grep -q "/nonexistent: no such directory" "$out/bad3.out"
	same_file "$k: tracing state unchanged by bad input" "$out/state0.out" "$out/state1.out"

	# 4. a reader stopped for 5 s
	check "$k: the workload ran on while the reader was stopped" grep -q "^loop=0" "$log"
	check "$k: the stopped reader ended well" grep -q "^s2=0" "$log"
	lost=$(sed -n 's/.*lost: \([0-9]*\) entries.*in all.*/\1/p' "$out/s2.err")
	between "$k: the loss is counted ($lost entries)" 1 1000000000 "${lost:-0}"
	check "$k: the loss is printed per CPU" grep -q "lost: cpu [0-9]*: [1-9]" "$out/s2.err"
	: > "$TMP/lost"
	for c in "$out"/s2/kt_*.trace; do
		"$KT_BIN/checktrace" -v -nopf "$c" 2>&1 | grep "lost on cpu" >> "$TMP/lost"
	done
	check "$k: LOST entries are in the chunks" test -s "$TMP/lost"
	# the busiest CPU lost one interval of about the stop: the ring filled
	# within a second or two of it, the reader caught up within one after
	# (a CPU that was mostly idle fills its block late and loses less)
	awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^[0-9.]+\.\.[0-9.]+$/) { split($i, a, "\\.\\."); printf "%d\n", (a[2] - a[1]) * 10 } }' \
		"$TMP/lost" | sort -n > "$TMP/lostlen"
	between "$k: the longest lost interval is about the 5 s stop (x 0.1 s)" 20 60 "$(tail -1 "$TMP/lostlen")"
	chunks_ok "$k: starved reader" "$out/s2"

	# 5. a full disk
	check "$k: the full-disk run exits 0" grep -q "^s4=0" "$log"
	eq "$k: one warning line about the disk" 1 "$(grep -c "flight recorder" "$out/s4.err")"
	lost=$(sed -n 's/.*lost: [0-9]* entries, \([0-9]*\) blocks in all.*/\1/p' "$out/s4.err")
	between "$k: the blocks let go are counted ($lost)" 1 1000000 "${lost:-0}"
	chunks_ok "$k: full disk" "$out/s4"

	# 6. the flight recorder's overwritten blocks
	check "$k: the wrap run exits 0" grep -q "^wrap=0" "$log"
	sed -n 's/.*lost: cpu \([0-9]*\): 0 entries, \([0-9]*\) blocks (overwritten)$/\1 \2/p' \
		"$out/wrap.err" > "$TMP/said"
	tb=$(sed -n 's/.*lost: 0 entries, \([0-9]*\) blocks in all$/\1/p' "$out/wrap.err")
	between "$k: wrap: blocks overwritten are printed ($tb)" 1 100000 "${tb:-0}"
	eq "$k: wrap: the per-CPU lines add up" "$tb" "$(awk '{ s += $2 } END { print s + 0 }' "$TMP/said")"
	check "$k: wrap: checktrace passes" "$KT_BIN/checktrace" -q -nopf "$out/wrap.trace"
	"$KT_BIN/checktrace" -v -nopf "$out/wrap.trace" 2>&1 |
		sed -n 's/.*lost on cpu \([0-9]*\): 0 entries, \([0-9]*\) blocks, .* (overwritten)$/\1 \2/p' > "$TMP/intrace"
	same_file "$k: wrap: the trace's LOST entries hold exactly the blocks printed, per CPU" "$TMP/said" "$TMP/intrace"
	# Each lost block held about 8188 / 2 getpid calls (a call and its
	# return, 2 words); other entries share the blocks, so a few more.
	ktcheck "$out/wrap.trace" > "$TMP/w.f"
	wpid=$(awk '$1 == "pid" { print $2; exit }' "$out/wrap.out")
	kept=$(fact "$TMP/w.f" pid "$wpid" sys $NR_getpid | awk '{print $2}')
	est=$(( (2 * N - ${kept:-0}) * 2 / 8188 ))
	between "$k: wrap: the count fits the $((2 * N - ${kept:-0})) calls missing (~$est blocks)" \
		"$est" "$((est * 13 / 10 + 1))" "${tb:-0}"
	"$KT_BIN/kutrace_postproc" "$out/wrap.trace" -o "$TMP/wrap.json" --no-html > /dev/null 2>&1
	python3 - "$TMP/wrap.json" "$TMP/said" > "$TMP/holes" <<'PY'
import json, sys
rows = [e for e in json.load(open(sys.argv[1]))["events"] if e[0] < 999]
for line in open(sys.argv[2]):
    cpu = int(line.split()[0])
    mine = sorted((r for r in rows if r[2] == cpu), key=lambda r: r[0])
    lost = [r for r in mine if r[9] == "-lost-"]
    if not lost:
        print("cpu %d: no -lost- row" % cpu)
        continue
    bad = []
    for l in lost:
        s, e = l[0], l[0] + l[1]
        inside = [r for r in mine if r is not l and s + 1e-7 < r[0] < e - 1e-7]
        after = [r for r in mine if r is not l and r[0] >= e - 1e-7]
        if l[7] != 2:
            bad.append("reason %d, not 2 (overwritten)" % l[7])
        if inside:
            bad.append("%d rows inside the lost interval %.8f..%.8f" % (len(inside), s, e))
        if not after or after[0][0] > e + 1e-6:
            bad.append("the lost interval ends at %.8f, not at the CPU's next row" % e)
    for b in bad:
        print("cpu %d: %s" % (cpu, b))
    if not bad:
        print("cpu %d ok: %d -lost- rows" % (cpu, len(lost)))
PY
	eq "$k: wrap: a -lost- row on each CPU that lost blocks, covering the hole to its next row" \
		"$(wc -l < "$TMP/said")" "$(grep -c " ok: " "$TMP/holes")"
	grep -v " ok: " "$TMP/holes" | head -5 | while read -r l; do diag "$l"; done
}
# The long run (make soak-stream: KT_STREAM_SOAK_SECS=600; instead of the
# checks above): tests/vm/scenarios/stream_soak.sh streams SECS seconds of
# getpid at the guest's full rate, cut every 32 MiB, onto a second disk
# (a sparse image here, its chunks read out with debugfs).  Every chunk
# passes checktrace alone and postprocesses alone with every thread named
# (no ".PID" row); nothing is lost; the workload's pids made exactly
# 100000 getpid calls each and the chunks together hold exactly that many
# calls and returns (ktcheck); and the chunks as one directory give one
# timeline with exactly one returning getpid row per call.  That timeline
# is checked as kutrace_sql build DIR/ writes it (kutrace_postproc's rows,
# the JSON's, into the table store): the JSON of the 10-minute run's
# 3.5 GB would be ~30 GB, its store is under 1 GB.  KT_STREAM_SOAK_KEEP=1 keeps the image and
# the chunks (build/vm/stream-soak-K.img, build/vm/stream-soak-K/run/).
soak_checks() {
	local img=$1 log=$out/scenario.log run=$out/run c n bad=0 nopost=0 bare=0 calls=0 rets=0 mb=0 v r b rows npid
	check "$k: soak: the second disk mounted" grep -q "^mount=0" "$log"
	check "$k: soak: record --stream exits 0" grep -q "^soak=0" "$log"
	check "$k: soak: nothing lost" grep -q "lost: 0 entries, 0 blocks in all" "$out/soak.err"
	npid=$(grep -c "^pid " "$out/pids.txt")
	awk '$1 == "pid" { print $2 }' "$out/pids.txt" > "$TMP/pids"
	awk '{ print $NF }' "$out/chunks.txt" | grep '^kt_.*\.trace$' > "$TMP/chunks"
	n=$(wc -l < "$TMP/chunks")
	rm -rf "$run"
	debugfs -R "rdump /run $out" "$img" > "$TMP/dfs" 2>&1
	[ "${KT_STREAM_SOAK_KEEP:-0}" = 1 ] || rm -f "$img"
	v=$(ls "$run" 2> /dev/null | grep -c '^kt_.*\.trace$')
	eq "$k: soak: every chunk read out of the disk image" "$n" "$v"
	[ "$v" = "$n" ] || { sed 's/^/#   /' "$TMP/dfs" | tail -3; return; }
	: > "$TMP/lostn"
	while read -r c; do
		mb=$((mb + $(stat -c %s "$run/$c") / 1048576))
		"$KT_BIN/checktrace" -q -nopf "$run/$c" > "$TMP/ct" 2>&1 || { bad=$((bad + 1)); diag "$c: $(tail -2 "$TMP/ct")"; }
		"$KT_BIN/checktrace" -v -nopf "$run/$c" 2>&1 | grep "lost on cpu" >> "$TMP/lostn"
		ktcheck "$run/$c" > "$TMP/c.f"
		# ktcheck: "pid P sys NR calls C fused F rets R"
		read -r v r < <(awk -v s=$NR_getpid 'NR == FNR { p[$1]; next }
			$1 == "pid" && ($2 in p) && $3 == "sys" && $4 == s { n += $6; m += $10 }
			END { print n + 0, m + 0 }' "$TMP/pids" "$TMP/c.f")
		calls=$((calls + v)) rets=$((rets + r))
		if "$KT_BIN/kutrace_postproc" "$run/$c" -o "$TMP/c.json" --no-html --quiet > "$TMP/pp" 2>&1; then
			b=$(grep -cE '"\.[0-9]+"\],?$' "$TMP/c.json")
			[ "$b" = 0 ] || { bare=$((bare + 1)); diag "$c: $b rows of a thread without a name"; }
		else
			nopost=$((nopost + 1)); diag "postproc $c: $(tail -1 "$TMP/pp")"
		fi
		rm -f "$TMP/c.json"
	done < "$TMP/chunks"
	ok "$k: soak: $(sed -n 's/^secs=//p' "$log") s, $n chunks, $mb MB, $npid workload runs"
	between "$k: soak: cut into chunks ($n)" 2 100000 "$n"
	eq "$k: soak: every chunk passes checktrace alone" 0 "$bad"
	eq "$k: soak: every chunk postprocesses alone" 0 "$nopost"
	eq "$k: soak: every thread of every chunk is named" 0 "$bare"
	eq "$k: soak: no LOST entry in any chunk" 0 "$(wc -l < "$TMP/lostn")"
	eq "$k: soak: the chunks hold exactly 100000 getpid calls per workload run" "$((npid * 100000))" "$calls"
	eq "$k: soak: and as many returns" "$((npid * 100000))" "$rets"
	# One timeline: an interrupt splits a call into several rows; the one
	# that returns carries the return value, for getpid the caller's pid.
	if "$KT_BIN/kutrace_sql" build "$run/" -o "$TMP/run.tables" > "$TMP/b.out" 2>&1; then
		rows=$("$KT_BIN/kutrace_sql" "$TMP/run.tables" --csv -c "SELECT count(*) FROM span
			WHERE name = 'getpid' AND ret = pid AND pid IN ($(paste -sd, "$TMP/pids"))" | tail -1)
		eq "$k: soak: the chunks joined hold exactly one returning getpid row per call" "$((npid * 100000))" "$rows"
	else
		nok "$k: soak: the chunks join into one timeline: $(tail -1 "$TMP/b.out")"
	fi
	rm -rf "$TMP/run.tables"
	[ "${KT_STREAM_SOAK_KEEP:-0}" = 1 ] || rm -rf "$run"
}
if [ -n "${KT_STREAM_SOAK_SECS:-}" ]; then
	command -v debugfs > /dev/null || { skip "soak: no debugfs (apt-get install e2fsprogs)"; exit 0; }
	[ -x "$KT_BIN/kutrace_sql" ] || { skip "soak: no kutrace_sql (make deps brings DuckDB)"; exit 0; }
	for k in ${KT_VM_KERNELS:-6.1}; do
		vm_arch "$k"
		out=$KT_ROOT/build/vm/stream-soak-$k
		img=$KT_ROOT/build/vm/stream-soak-$k.img
		rm -f "$img"
		truncate -s 16G "$img"
		KT_VM_DRIVE="file=$img,format=raw,if=virtio" KT_APPEND="$KT_APPEND ktsoak=$KT_STREAM_SOAK_SECS" \
			vm_run "$k: guest ran the long streaming run" "$out" $VMOPT \
			-t $((KT_STREAM_SOAK_SECS + 900)) tests/vm/scenarios/stream_soak.sh || continue
		ok "$k: guest ran the long streaming run ($VM_AFTER)"
		soak_checks "$img"
	done
	exit 0
fi
# KT_STREAM_OUT=DIR: check a guest's output kept from an earlier run.
for k in ${KT_VM_KERNELS:-6.1}; do
	vm_arch "$k"
	out=$KT_ROOT/build/vm/stream-$k
	if [ -n "${KT_STREAM_OUT:-}" ]; then
		out=$KT_STREAM_OUT
	else
		# arm64 under TCG is slower: a smaller buffer fills during the stop
		mb=4
		[ "$ARCH" = x86 ] || mb=1
		vm_run "$k: guest ran the scenario" "$out" $VMOPT -m $mb tests/vm/scenarios/stream.sh || continue
		ok "$k: guest ran the scenario ($VM_AFTER)"
	fi
	stream_checks
	[ -z "${KT_STREAM_OUT:-}" ] || break
done

#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The benchmark programs of `make bench` (bench/), in a tiny quick mode:
# they run, print well-formed figures, and what the userspace fast-path
# harness writes (module/kutrace_core.c through the real control library
# and its mmap dump path) decodes with the real decoder to exactly the
# entries it wrote.  Never asserts a timing.
. "$(dirname "$0")/lib.sh"
B=$KT_BIN/kutrace_bench
export LC_ALL=C
if [ ! -x "$B" ]; then nok "kutrace_bench is built"; exit 0; fi

out=$("$B" --help 2>&1); rc=$?
check "kutrace_bench --help" test $rc = 0 -a -n "$(echo "$out" | grep '^usage: kutrace_bench')"
"$B" nosuch >/dev/null 2>&1
check "kutrace_bench rejects an unknown command" test $? = 2
out=$(bash bench/run.sh --help); rc=$?
check "bench/run.sh --help" test $rc = 0 -a -n "$(echo "$out" | grep 'BENCH_QUICK')"
check "bench/report.py parses" python3 -c "import ast, sys; ast.parse(open(sys.argv[1]).read())" bench/report.py

# ---- fast path: every kind, on 1 and 2 threads, numbers > 0
"$B" fastpath -n 20000 -r 3 -t 2 > "$TMP/fp" 2>&1
check "fastpath runs" test $? = 0
for k in off clock plain fused name plain_ipc fused_ipc; do
	for t in 1 2; do
		line=$(grep "^fastpath kind=$k threads=$t " "$TMP/fp")
		if echo "$line" | grep -Eq ' ns=[0-9]+\.[0-9]+ p25=[0-9.]+ p75=[0-9.]+ min=[0-9.]+ max=[0-9.]+ runs=3 entries=20000 ' &&
		   awk -v l="$line" 'BEGIN { split(l, a, " ns="); exit !(a[2] + 0 > 0) }'; then
			ok "fastpath $k on $t thread(s) prints a figure"
		else
			nok "fastpath $k on $t thread(s): '$line'"
		fi
	done
done

# ---- extract: a small buffer through kt_ctl_dump
"$B" extract -m 4 -r 2 -d "$TMP" > "$TMP/ex" 2>&1
check "extract runs" grep -Eq '^extract mb=4 file_mb=4\.0 blocks=64 dir=.* mb_s=[0-9]+ ' "$TMP/ex"
check "extract leaves no file behind" test -z "$(ls "$TMP" | grep kutrace_bench_)"

# ---- check: exact entries through the real decoder
count() { # file awk-condition -> number of matching decoded events
	"$KT_BIN/rawtoevent" "$1" 2>/dev/null | grep -v '^#' | awk "$2 { n++ } END { print n + 0 }"
}
for t in 1 2; do
	for ipc in "" --ipc; do
		f=$TMP/c$t$ipc.trace
		what="check t=$t${ipc:+ ipc}"
		if ! "$B" check -o "$f" -n 700 -t $t $ipc > "$TMP/co" 2>&1; then
			nok "$what runs"; cat "$TMP/co"; continue
		fi
		ok "$what runs"
		# Columns: TS DUR EVENT CPU PID RPC ARG RETVAL IPC NAME
		# plain: read() calls (0x800 = 2048), one per call
		for c in $(seq 0 $((t - 1))); do
			n=$(count "$f" "\$1 >= 0 && \$3 == 2048 && \$4 == $c")
			check "$what: CPU $c has exactly 700 plain entries ($n)" test "$n" = 700
			# getpid pairs: fused (0x827 with a duration) unless the
			# thread was interrupted for > 255 ticks in between; then a
			# plain 0x827 and a 0xA27 (2599).  Either way 700 pairs.
			fu=$(count "$f" "\$1 >= 0 && \$3 == 2087 && \$2 > 0 && \$4 == $c")
			un=$(count "$f" "\$1 >= 0 && \$3 == 2599 && \$4 == $c")
			check "$what: CPU $c has exactly 700 getpid call/return pairs ($fu fused, $un not)" \
				test $((fu + un)) = 700 -a "$fu" -ge 600
			s=$("$KT_BIN/rawtoevent" "$f" 2>/dev/null | awk -v c=$c '$1 >= 0 && $4 == c && ($3 == 2599 || ($3 == 2087 && $2 > 0)) { s += $8 } END { print s + 0 }')
			check "$what: CPU $c return values survive fusion (sum $s)" test "$s" = $((7 * 4950))
			# name lines are "TS DUR EVENT PID NAME": thread c named
			# pids 2000 + 1000 c + i
			lo=$((2000 + 1000 * c))
			n=$(count "$f" "\$1 >= 0 && \$3 == 50 && \$4 >= $lo && \$4 < $lo + 700 && \$NF == \"bench_name\"")
			check "$what: CPU $c has exactly 700 name entries ($n)" test "$n" = 700
		done
		"$B" density "$f" > "$TMP/d" 2>&1
		check "$what: density counts $((2100 * t)) transitions" \
			grep -q " transitions=$((2100 * t)) " "$TMP/d"
		# unfused pairs here are late ones (preempted between call and
		# return): fusing them can only make the trace smaller
		check "$what: density: late returns and the bytes had they fused ($(grep -o 'late=[0-9]*' "$TMP/d"))" \
			awk '{ for (i = 1; i <= NF; i++) { split($i, a, "="); v[a[1]] = a[2] } }
			     END { exit !(v["late"] != "" && v["bytes_if_fused"] + 0 <= v["bytes_per_transition"] + 0) }' "$TMP/d"
		if [ -n "$ipc" ]; then
			check "$what: the trace has IPC side blocks" grep -q 'ipc=1' "$TMP/co"
		fi
	done
done
"$KT_BIN/kutrace_postproc" "$TMP/c2.trace" "bench check" > "$TMP/pp" 2>&1
check "kutrace_postproc accepts the harness trace" test $? = 0

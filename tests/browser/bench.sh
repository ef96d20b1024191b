#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# make bench-viewer: synthetic traces of about 1M and 10M spans, made by
# kutrace_synth (8 CPUs, 200 threads, IPC) + kutrace_postproc --no-html, or
# by tests/browser/gen_trace.js when those are not built (or
# KT_BENCH_GEN=js); embedded with makeself and measured in headless
# Chromium by bench.js: page size, first picture (from the page's summary
# above 262,144 spans), load to the full draw, JS heap, redraws.
# KT_BENCH_SPANS="1000000 10000000 20000000" picks the sizes.
# KT_BENCH_AB=<commit> compares the viewer of that commit with this one on
# the same trace, alternately (old, new, new, old ...; KT_BENCH_RUNS pairs,
# default 5): on a shared machine only figures measured side by side mean
# anything.  Each run's load average is printed with it.  Then the same
# trace through kutrace_view (serve below), with every row in the page and
# without rows (summary mode), up to the 10 M spans of its page;
# KT_BENCH_BIG sizes only through the server.
set -eu
cd "$(dirname "$0")/../.."
BIN=${KT_BIN:-build/bin}
out=build/bench-viewer
mkdir -p $out
gen=${KT_BENCH_GEN:-synth}
[ -x $BIN/kutrace_synth ] && [ -x $BIN/kutrace_postproc ] || gen=js
# The same trace through kutrace_view (KT_BENCH_SERVER=0: not): its store
# built first and timed apart, then from the server's start to the first
# full draw, the same pans and zooms, and the server's peak RSS.
serve() {
	[ -x $BIN/kutrace_view ] && [ "${KT_BENCH_SERVER:-1}" != 0 ] || return 0
	local store=${1%.json}.tables s e
	s=$(date +%s.%N)
	$BIN/kutrace_sql build $1 -o $store >/dev/null
	e=$(date +%s.%N)
	echo "kutrace_view: the store of $2 rows built in $(echo "$e - $s" | bc) s (kutrace_sql build, before the server)"
	view $store $2
	# the page without rows (summary mode, VIEWER 3.4.1) of the same store
	KT_BENCH_QUERY='&summary=1' view $store $2
}
# view STORE ROWS: kutrace_view of STORE, from its start to the first full
# draw, the pans and zooms, the server's peak RSS.
view() {
	local pid url
	: > $out/view.out	# empty before the server starts: its first line is awaited
	t0=$(date +%s%3N)
	$BIN/kutrace_view $1 --no-browser > $out/view.out 2> $out/view.err &
	pid=$!
	while [ ! -s $out/view.out ] && kill -0 $pid 2>/dev/null; do sleep 0.05; done
	url=$(head -1 $out/view.out)${KT_BENCH_QUERY:-}
	KT_BENCH_T0=$t0 node tests/browser/bench.js "$url" $2
	echo "  kutrace_view peak RSS: $(awk '/^VmHWM/ { printf "%.0f MB", $2 / 1024 }' /proc/$pid/status)"
	kill -INT $pid; wait $pid || true
}
# The traces no page holds (KT_BENCH_BIG="50000000 150000000"): kutrace_synth
# straight into a store (kutrace_sql build, timed apart), then kutrace_view,
# which serves them in summary mode.
for n in ${KT_BENCH_BIG:-}; do
	[ -x $BIN/kutrace_view ] && [ -x $BIN/kutrace_synth ] || break
	trace=$out/synth$n.trace store=$out/synth$n.tables
	mb=$(echo "scale=1; $n * 7.2 / 1000000" | bc)
	[ -s $trace ] || $BIN/kutrace_synth -s 7 -c 8 -t 200 -d 1000 -m $mb --ipc -o $trace >/dev/null
	if [ ! -d $store ]; then
		s=$(date +%s.%N)
		$BIN/kutrace_sql build $trace -o $store >/dev/null
		e=$(date +%s.%N)
		echo "kutrace_view: the store of $trace built in $(echo "$e - $s" | bc) s (kutrace_sql build, before the server)"
	fi
	view $store $($BIN/kutrace_sql $store --csv -c "SELECT count(*) FROM span" | tail -1)
done
for n in ${KT_BENCH_SPANS:-1000000 10000000 20000000}; do
	if [ $gen = synth ]; then
		json=$out/synth$n.json
		if [ ! -s $json ]; then
			# about 7.2 raw bytes per span with 8 CPUs and 200 threads
			mb=$(echo "scale=1; $n * 7.2 / 1000000" | bc)
			$BIN/kutrace_synth -s 7 -c 8 -t 200 -d 1000 -m $mb --ipc -o $out/synth$n.trace >/dev/null
			$BIN/kutrace_postproc $out/synth$n.trace "kutrace_synth $n" -o $json.tmp --no-html >/dev/null && mv $json.tmp $json
			rm -f $out/synth$n.trace
		fi
	else
		json=$out/gen$n.json
		if [ ! -s $json ]; then
			node tests/browser/gen_trace.js $n 8 200 > $json.tmp && mv $json.tmp $json
		fi
	fi
	html=${json%.json}.html
	s=$(date +%s.%N)
	$BIN/makeself $BIN/../share/kutrace/viewer.html $json $html
	e=$(date +%s.%N)
	# rows: every line that starts one, but the [999.0, ...] end marker
	rows=$(grep -c '^\[' $json || true); rows=$((rows - 1))
	echo "makeself: $rows rows, $(stat -c %s $json) bytes of JSON in $(echo "$e - $s" | bc) s ($gen)"
	if [ -z "${KT_BENCH_AB:-}" ]; then
		node tests/browser/bench.js $html $rows
		[ $rows -gt 10000000 ] || serve $json $rows
		continue
	fi
	# The old template: its source directory while viewer.js was one
	# file there, else the directory that commit's make assembles.
	old=$out/ab-old; rm -rf $old; mkdir -p $old
	if git cat-file -e "$KT_BENCH_AB:viewer/viewer.js" 2>/dev/null; then
		for f in $(git ls-tree --name-only "$KT_BENCH_AB" viewer/); do
			git show "$KT_BENCH_AB:$f" > $old/$(basename $f)
		done
		oldtpl=$old/viewer.html
	else
		git archive "$KT_BENCH_AB" | tar -x -C $old
		make -s -C $old viewer >/dev/null
		oldtpl=$old/build/share/kutrace/viewer.html
	fi
	$BIN/makeself $oldtpl $json ${html%.html}-old.html
	# Pairs in turn old-new and new-old: of two pages loaded one after the
	# other the second one loads slower on a busy machine, even the same
	# page twice.
	: > $out/ab-first
	for i in $(seq ${KT_BENCH_RUNS:-5}); do
		order="old new"; [ $((i % 2)) = 0 ] && order="new old"
		for v in $order; do
			h=$html; [ $v = old ] && h=${html%.html}-old.html
			echo "== $v run $i (old: $KT_BENCH_AB, new: the working tree), load average $(cut -d' ' -f1-3 /proc/loadavg)"
			node tests/browser/bench.js $h $rows | tee $out/ab-run
			sed -n "s/^  load to first full draw: \([0-9.]*\) ms.* first draw \([0-9.]*\) ms.*/$v \1 \2/p" $out/ab-run >> $out/ab-first
		done
	done
	med() { awk -v v=$1 -v f=$2 '$1 == v { print $f }' $out/ab-first | sort -n | awk '{ a[NR] = $1 } END { if (NR) print a[int((NR + 1) / 2)] }'; }
	for v in old new; do
		echo "== $v, medians of $(grep -c "^$v " $out/ab-first) runs: load to first full draw $(med $v 2) ms, first draw $(med $v 3) ms"
	done
	echo "== frames, old and new pages drawn alternately in one browser, load average $(cut -d' ' -f1-3 /proc/loadavg)"
	node tests/browser/bench_ab.js ${html%.html}-old.html $html
done

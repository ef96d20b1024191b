#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# make bench-viewer: synthetic traces of 1M and 10M spans (kutrace_synth
# when it can write JSON, else tests/browser/gen_trace.js), embedded with
# makeself, measured in headless Chromium by bench.js.
set -eu
cd "$(dirname "$0")/../.."
BIN=${KT_BIN:-build/bin}
out=build/bench-viewer
mkdir -p $out
for n in ${KT_BENCH_SPANS:-1000000 10000000}; do
	if [ ! -s $out/gen$n.json ]; then
		node tests/browser/gen_trace.js $n 8 200 > $out/gen$n.json.tmp && mv $out/gen$n.json.tmp $out/gen$n.json
	fi
	s=$(date +%s.%N)
	$BIN/makeself postprocess/viewer/viewer.html $out/gen$n.json $out/gen$n.html
	e=$(date +%s.%N)
	rows=$(grep -c '^\[ ' $out/gen$n.json || true)
	echo "makeself: $rows rows, $(stat -c %s $out/gen$n.json) bytes of JSON in $(echo "$e - $s" | bc) s"
	node tests/browser/bench.js $out/gen$n.html $rows
done

#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# kutrace_view's page in headless Chromium (tests/browser/server.test.js):
# the real trace (the original KUtrace's hello_world demo) served from its
# store loads without errors, asks only its server, draws in colour, pans
# and zooms; the store removed under the server shows as one error line in
# the page and one in the terminal, and the server keeps answering.  Then
# the pixel fidelity of its page without rows (summary mode) against its
# page with every row, on the real trace and a synthetic one.
. tests/lib.sh
V=$KT_BIN/kutrace_view
if [ ! -x "$V" ]; then skip "kutrace_view in the browser: not built (make deps, libmicrohttpd-dev)"; exit 0; fi
browser_ready "kutrace_view in the browser" || exit 0
"$KT_BIN/kutrace_sql" build "$(real_trace)" -o "$TMP/real.tables" >/dev/null 2>&1 || nok "kutrace_sql build of the real trace"
"$V" "$TMP/real.tables" --no-browser > "$TMP/view.out" 2> "$TMP/view.err" &
PID=$!
for i in $(seq 300); do [ -s "$TMP/view.out" ] && break; sleep 0.1; done
URL=$(head -1 "$TMP/view.out")
mkdir -p build/screenshots
suite server.test.js timeout 300 node tests/browser/server.test.js "$URL" "$TMP/real.tables" build/screenshots/view-server.png
check "the server still answers after the store went" sh -c "curl -s -o /dev/null -w '%{http_code}' '$URL' | grep -q 200"
eq "the store removed: one line in the terminal" 1 "$(grep -c 'the store is gone' "$TMP/view.err")"
kill -INT $PID; wait $PID; eq "SIGINT: exit 0" 0 $?

# The fidelity rule (VIEWER 3.4.1, tests/browser/lod.test.js): the page
# without rows draws every CPU and PID pixel column as the page with every
# row, at five zooms.  The real trace (4 CPUs, 39 K spans) is too sparse
# for the default bins (its rows are walked span by span, from the
# window's rows in summary mode), so also with bins four pixels wide
# (LOD_SUB 0.25); a synthetic trace of 400 K spans uses the default, and
# bins half to a quarter of a pixel (LOD_SUB 2), with which its eight
# threads' PID rows (about 30 K spans each) are drawn from their bins at
# the whole trace; a synthetic trace with RPCs (465 rows, too thin for
# many to be compared) the same with its RPC group open, its first RPC
# rows on screen drawn from their bins at the whole trace; and a
# hand-built one (tests/tools/mkrpcrows.py: ids in no ascending order,
# two RPC rows drawn from their bins at the whole trace, one of them far
# shorter than its bins).
view_fidelity() { # NAME STORE [LOD_SUB,...] [PID rows from bins] [RPC rows from bins]
	local out=$TMP/$1.out
	# the level of detail precomputed (STORE/lod/) however small the store
	"$V" "$2" --no-browser --pyramid-min 0 > "$out" 2> "$TMP/$1.err" &
	local pid=$! i
	for i in $(seq 300); do [ -s "$out" ] && break; sleep 0.1; done
	KT_LOD_SUB=${3:-} KT_LOD_PIDS=${4:-} KT_LOD_RPCS=${5:-} suite "lod.test.js-$1" timeout 600 node tests/browser/lod.test.js "$1" "$(head -1 "$out")"
	kill -INT $pid; wait $pid
}
"$KT_BIN/kutrace_sql" build "$(real_trace)" -o "$TMP/real2.tables" >/dev/null 2>&1 || nok "kutrace_sql build of the real trace"
view_fidelity real "$TMP/real2.tables" 0.25
if [ -x "$KT_BIN/kutrace_synth" ]; then
	"$KT_BIN/kutrace_synth" -s 7 -c 4 -t 8 -d 1000 -m 3 --ipc -o "$TMP/synth.trace" >/dev/null &&
		"$KT_BIN/kutrace_sql" build "$TMP/synth.trace" -o "$TMP/synth.tables" >/dev/null 2>&1 || nok "a synthetic trace's store"
	view_fidelity synth "$TMP/synth.tables" 2 8
	"$KT_BIN/kutrace_synth" -s 7 -c 4 -t 8 -d 1000 -m 3 -x 30,10,10,1 --rpc -o "$TMP/rpc.trace" >/dev/null &&
		"$KT_BIN/kutrace_sql" build "$TMP/rpc.trace" -o "$TMP/rpc.tables" >/dev/null 2>&1 || nok "a synthetic trace with RPCs: its store"
	view_fidelity rpc "$TMP/rpc.tables" 2 1 10
else
	skip "the fidelity rule on a synthetic trace: kutrace_synth not built (make test-progs)"
fi
python3 tests/tools/mkrpcrows.py "$TMP/hand.json" &&
	"$KT_BIN/kutrace_sql" build "$TMP/hand.json" -o "$TMP/hand.tables" >/dev/null 2>&1 || nok "the hand-built RPC trace's store"
view_fidelity hand "$TMP/hand.tables" "" "" 2
exit 0

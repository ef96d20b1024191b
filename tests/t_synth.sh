#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Property tests with kutrace_synth: its raw traces are well formed and
# deterministic, and kutrace_postproc finds 100% of the synthetic CPU spans
# with the right event, start and duration (10 ns), tiling every CPU.
# A failure here means the postprocessor and the simulated truth disagree:
# decide with docs/spec/FORMATS.md which one is right; never loosen spancheck.
. "$(dirname "$0")/lib.sh"
SYNTH=$KT_BIN/kutrace_synth
CHECK=$KT_BIN/spancheck
PP=$KT_BIN/kutrace_postproc

if [ ! -x "$SYNTH" ] || [ ! -x "$CHECK" ]; then
	nok "kutrace_synth and spancheck are built"; exit 0
fi

# Structure, independent of the C reader.
layout() { # name synth-args... [-- rawlayout-flags]
	local name=$1; shift
	local flags=""
	case " $* " in *" --ipc "*) flags="$flags --ipc" ;; esac
	case " $* " in *" --wrap "*) flags="$flags --wrap" ;; esac
	if "$SYNTH" "$@" -o "$TMP/$name.trace" 2>/dev/null &&
	   out=$(python3 tests/tools/rawlayout.py "$TMP/$name.trace" $flags); then
		ok "synth layout $name: $out"
	else
		nok "synth layout $name: $out"
	fi
}
layout plain -s 1 -c 4 -d 0.05
layout ipc -s 2 -c 3 -d 0.05 --ipc
layout wrap -s 3 -c 2 -d 1 --wrap 4
layout ipcwrap -s 4 -c 8 -d 0.5 --wrap 12 --ipc --late --gaps
layout onecpu -s 5 -c 1 -d 0.05 -r 31.25

"$SYNTH" -s 42 -c 4 -d 0.05 --ipc --late -o "$TMP/a.trace" -e "$TMP/a.exp" 2>/dev/null
"$SYNTH" -s 42 -c 4 -d 0.05 --ipc --late -o "$TMP/b.trace" -e "$TMP/b.exp" 2>/dev/null
"$SYNTH" -s 43 -c 4 -d 0.05 --ipc --late -o "$TMP/c.trace" 2>/dev/null
check "synth is deterministic for a seed" cmp -s "$TMP/a.trace" "$TMP/b.trace"
check "synth expected timeline is deterministic" cmp -s "$TMP/a.exp" "$TMP/b.exp"
check "another seed gives another trace" bash -c "! cmp -s $TMP/a.trace $TMP/c.trace"
# The writer must really produce what the scenario asks for.
words() { od -A n -t x8 -v "$1" | tr ' ' '\n' | grep -v '^$'; }
"$SYNTH" -s 7 -c 2 -d 0.2 --gaps -o "$TMP/g.trace" 2>/dev/null
check "--gaps writes TSDELTA words" bash -c "od -A n -t x8 -v $TMP/g.trace | tr ' ' '\n' | grep -q '^.....21d'"
"$SYNTH" -s 7 -c 2 -d 0.05 --long-gap 20 -o "$TMP/l.trace" 2>/dev/null
check "--long-gap chains TSDELTA words" bash -c "[ \$(od -A n -t x8 -v $TMP/l.trace | tr ' ' '\n' | grep -c '^.....21d3b9aca00') -ge 1 ]"
check "fused calls present (delta field set)" bash -c "od -A n -t x8 -v $TMP/a.trace | tr ' ' '\n' | grep -q '^.....[89a-f]..[1-9a-f]'"
"$SYNTH" -s 3 -c 2 -d 1 --wrap 4 -e "$TMP/w.exp" -o "$TMP/w.trace" 2>/dev/null
check "--wrap really wraps" grep -q "wraps [1-9]" "$TMP/w.exp"
# The trace's edges (issue 27): idle CPUs whose blocks open before the
# start pair, noted by a switch to pid 0 outside the scheduler, and odd
# CPUs silent and idle for the last 4 ms before the stop.
"$SYNTH" -s 9 -c 4 -d 0.02 --idle-start --idle-end 0.004 -o "$TMP/e.trace" 2>/dev/null
check "--idle-start opens blocks before the start time pair" \
	bash -c "$KT_BIN/checktrace $TMP/e.trace | grep -q 'block [1-9][0-9]*: counter .* outside the start..stop range'"
"$KT_BIN/rawtoevent" "$TMP/e.trace" 2>/dev/null | LC_ALL=C sort -n > "$TMP/e.events"
check "--idle-start: CPUs 1.. note pid 0 (a switch to 0 before any scheduler call)" \
	bash -c "[ \$(awk '\$3 == 3583 && !(\$4 in s) { s[\$4] = 1 } \$3 == 512 && \$2 == 0 && \$5 == 0 && !(\$4 in s) && !(\$4 in n) { n[\$4] = 1; k++ } END { print k + 0 }' $TMP/e.events) = 3 ]"
check "--idle-end: CPU 1's last event is more than 4 ms before the stop" \
	bash -c "awk '/^# ## STARTSTOP:/ { stop = \$5 } \$4 == 1 && \$1 > 0 { last = \$1 } END { exit !(stop - last > 400000) }' $TMP/e.events"

if [ ! -x "$PP" ]; then
	skip "synth vs kutrace_postproc: $PP not built yet"
	exit 0
fi
# The properties, over seeds and scenarios.
run() { # name synth-args...
	local name=$1; shift
	if ! "$SYNTH" "$@" -o "$TMP/$name.trace" -e "$TMP/$name.exp" 2>/dev/null; then
		nok "synth $name: kutrace_synth failed"; return
	fi
	if ! "$PP" "$TMP/$name.trace" "synth $name" >"$TMP/pp.out" 2>&1 ||
	   [ ! -s "$TMP/$name.json" ]; then
		nok "synth $name: kutrace_postproc failed"
		sed 's/^/#   /' "$TMP/pp.out" | head -5; return
	fi
	if "$CHECK" "$TMP/$name.exp" "$TMP/$name.json" >"$TMP/chk.out" 2>&1; then
		ok "synth $name: $(tail -1 "$TMP/chk.out" | cut -d, -f1-3)"
	else
		nok "synth $name ($*)"
		sed 's/^/#   /' "$TMP/chk.out" | tail -12
	fi
	rm -f "$TMP/$name".*
}
quick=${KT_QUICK:-0}
for c in 1 2 3 4 8; do
	run "cpus$c" -s $((100 + c)) -c $c -d 0.05
done
run ipc -s 201 -c 4 -d 0.05 --ipc
run late -s 202 -c 3 -d 0.08 --late
run gaps -s 203 -c 2 -d 0.3 --gaps
run longgap -s 204 -c 2 -d 0.05 --long-gap 20
run wrap2 -s 205 -c 2 -d 1 --wrap 4
run wrap4ipc -s 206 -c 4 -d 0.8 --wrap 6 --ipc
run wrap8all -s 207 -c 8 -d 0.6 --wrap 12 --ipc --late --gaps
run slowclock -s 208 -c 2 -d 0.05 -r 1.5
run fastclock -s 209 -c 2 -d 0.05 -r 100
run busy -s 210 -c 4 -d 0.05 -x 60,20,15,5
run idle -s 211 -c 6 -t 3 -d 0.2 -x 10,5,40,2 --gaps
# The trace's edges (issue 27): idle from the start time (never before it)
# to the first scheduler call, through the start-of-trace note of pid 0;
# a CPU idle at the end is idle until the stop time.  spancheck fails a
# row before the start, and the expected idle spans end at the stop.
run idlestart -s 220 -c 4 -d 0.02 --idle-start
run idleend -s 221 -c 4 -d 0.03 --idle-end 0.004
run idleedges -s 222 -c 8 -d 0.03 --idle-start --idle-end 0.003 --ipc --late
run idleedgesmw -s 223 -c 3 -d 0.05 --idle-start --idle-end 0.01 -x 10,5,40,2 --gaps
# Regression: late stores crossing a 20-bit rollover (found by this suite).
run lateroll -s 2024 -c 8 -m 4 -x 35,10,10,2 --late
for s in 1 2 3 4 5 6; do
	run "seed$s" -s $((300 + s)) -c $((1 + s % 8)) -d 0.04 --late \
		$([ $((s % 2)) = 0 ] && echo --ipc)
done

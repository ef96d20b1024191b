# SPDX-License-Identifier: BSD-3-Clause
# Helpers for tests/t_vm_*.sh (after tests/lib.sh).
# vm_ready: QEMU usable here (root, x86-64, qemu installed); else skip.
vm_ready() {
	if [ "$(uname -m)" != x86_64 ]; then skip "vm: not an x86-64 host"; return 1; fi
	if [ "$(id -u)" != 0 ] && ! sudo -n true 2>/dev/null; then
		skip "vm: needs root for apt-get (kernel headers)"; return 1
	fi
	if ! command -v qemu-system-x86_64 >/dev/null; then
		skip "vm: qemu-system-x86_64 missing (run tests/install-deps.sh)"; return 1
	fi
	return 0
}
# vm_run NAME OUT [vm.sh options] SCENARIO: run a guest scenario, its /out
# in OUT (emptied first).  On failure "not ok - NAME" with the tail of
# vm.sh's messages, and status 1.  Sets VM_AFTER ("after N s").  Every
# trace the guest left is then checked by both_paths.
vm_run() {
	local name=$1 out=$2; shift 2
	rm -rf "$out"
	if ! tests/vm/vm.sh "$@" "$out" 2>"$TMP/vm.err"; then
		nok "$name"; sed 's/^/#   /' "$TMP/vm.err" | tail -20
		return 1
	fi
	VM_AFTER=$(grep -o 'after [0-9]* s' "$TMP/vm.err")
	both_paths "${name%%:*}" "$out"
}
# both_paths K DIR: on every real trace in DIR, kutrace_postproc and
# rawtoevent | sort -n | eventtospan give byte-identical JSON (issue 13)
both_paths() {
	local t
	[ -x "$KT_BIN/kutrace_postproc" ] && [ -x "$KT_BIN/eventtospan" ] || return 0
	for t in "$2"/*.trace; do
		[ -s "$t" ] || continue
		same_json "$1: both paths give the same JSON on $(basename "$t")" "$t"
	done
}
# ktcheck FILE: build (once) and run the independent raw-trace checker
KTCHECK=$TMP/ktcheck
ktcheck() {
	[ -x "$KTCHECK" ] || cc -O2 -Wall -I"$KT_ROOT/include" -o "$KTCHECK" \
		"$KT_ROOT/tests/vm/host/ktcheck.c" || return 1
	"$KTCHECK" "$@"
}
# fact FILE KEY...: the value after "KEY" in ktcheck output
fact() {
	local f=$1; shift
	awk -v k="$*" 'index($0, k " ") == 1 { print substr($0, length(k) + 2); exit }' "$f"
}
# eq what expected actual
eq() { if [ "$2" = "$3" ]; then ok "$1"; else nok "$1 (expected $2, got $3)"; fi; }
# between what lo hi actual
between() {
	if [ -n "$4" ] && [ "$4" -ge "$2" ] && [ "$4" -le "$3" ]; then ok "$1 ($4)"
	else nok "$1 (expected $2..$3, got ${4:-nothing})"; fi
}
# mixed_counts FACTS PID CHILD: exact call counts of "workload mixed N M K"
# (N getpid, M clock_nanosleep, K ping-pong round trips) from ktcheck.
mixed_counts() {
	local f=$1 pid=$2 child=$3
	eq "$k: every getpid call returns" "rets $N" \
		"$(fact "$f" pid $pid sys 39 | awk '{print $5, $6}')"
	eq "$k: exactly M clock_nanosleep calls" "calls $M" \
		"$(fact "$f" pid $pid sys 230 | cut -d' ' -f1-2)"
	eq "$k: ping-pong child: K reads" "calls $K" \
		"$(fact "$f" pid $child sys 0 | cut -d' ' -f1-2)"
	eq "$k: ping-pong child: K writes" "calls $K" \
		"$(fact "$f" pid $child sys 1 | cut -d' ' -f1-2)"
}
# pingpong_pair K TRACE PID CHILD SCENARIO_LOG: the exact counts of a
# SCHED_FIFO ping-pong pair on a quiet CPU (tests/vm/ktquiet): a write
# never preempts and every read blocks, so each of the K round trips is
# one switch and one wakeup each way and nothing else runs in between (the
# child's first wakeup is its fork, in the parent).  Leaves the pair facts
# in $TMP/pair.f.
pingpong_pair() {
	local K=$1 trace=$2 pid=$3 child=$4 log=$5
	check "$k: guest quiet for the ping-pong (no RT throttling, fair server, watchdog)" \
		grep -Eq "^quiet: rt_runtime=-1 watchdog=(0|none) fair_server=(0|none)$" "$log"
	ktcheck "$trace" "$pid" "$child" > "$TMP/pair.f"
	eq "$k: ping-pong: K switches into the child from the parent, K wakeups by it, no others" \
		"switchin $K wakeup $K other_switchin 0 other_wakeup 0" \
		"$(fact "$TMP/pair.f" pair $child $pid)"
	eq "$k: ping-pong: K switches into the parent from the child, K wakeups by it" \
		"switchin $K wakeup $K" "$(fact "$TMP/pair.f" pair $pid $child | cut -d' ' -f1-4)"
}

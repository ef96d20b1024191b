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
# ktcheck FILE: the independent raw-trace checker (tests/vm/host/ktcheck.c,
# built by make with the other programs, under the sanitizers too)
ktcheck() {
	"$KT_BIN/ktcheck" "$@"
}
# fact FILE KEY...: the value after "KEY" in ktcheck output
fact() {
	local f=$1; shift
	awk -v k="$*" 'index($0, k " ") == 1 { print substr($0, length(k) + 2); exit }' "$f"
}
# chromium_page WHAT PAGE.html PNG NAME...: the page opens in headless
# Chromium without page errors or network requests and names each NAME
# (tests/browser/open_page.js); its checks as "WHAT: ..." lines.
chromium_page() {
	local what=$1; shift
	browser_ready "$what" || return 0
	timeout 300 node tests/browser/open_page.js "$@" > "$TMP/page.out" 2>&1
	relay "$what" "$TMP/page.out"
	grep -q "^ok - page loads" "$TMP/page.out" ||
		{ nok "$what: Chromium opened it"; sed 's/^/#   /' "$TMP/page.out" | tail -5; }
}
# vm_arch K: for a kernel name of the suites (6.1, 6.1-rt, p6.12, ...,
# arm64-6.1, arm64-6.12, riscv64-6.1) sets ARCH (x86, arm64 or riscv64),
# VMOPT (vm.sh's options for it), SCEN (.sh, or .run for riscv64's
# shell-less guest: tests/vm/ktinit.c) and the system call numbers the
# checks name (ktcheck prints the trace's own): x86-64's, or the generic
# table's (arm64, riscv64).
vm_arch() {
	ARCH=x86 VMOPT="-k $1" SCEN=sh
	NR_getpid=39 NR_read=0 NR_write=1 NR_clock_nanosleep=230 NR_exit_group=231
	case $1 in arm64-*|riscv64-*)
		ARCH=${1%%-*} VMOPT="-a aarch64 -k ${1#*-}"
		[ $ARCH = arm64 ] || VMOPT="-a riscv64 -k ${1#*-}" SCEN=run
		NR_getpid=172 NR_read=63 NR_write=64 NR_clock_nanosleep=115 NR_exit_group=94 ;;
	esac
}
vm_arch 6.1
# mixed_counts FACTS PID CHILD: exact call counts of "workload mixed N M K"
# (N getpid, M clock_nanosleep, K ping-pong round trips) from ktcheck.
mixed_counts() {
	local f=$1 pid=$2 child=$3
	eq "$k: every getpid call returns" "rets $N" \
		"$(fact "$f" pid $pid sys $NR_getpid | awk '{print $5, $6}')"
	eq "$k: exactly M clock_nanosleep calls" "calls $M" \
		"$(fact "$f" pid $pid sys $NR_clock_nanosleep | cut -d' ' -f1-2)"
	eq "$k: ping-pong child: K reads" "calls $K" \
		"$(fact "$f" pid $child sys $NR_read | cut -d' ' -f1-2)"
	eq "$k: ping-pong child: K writes" "calls $K" \
		"$(fact "$f" pid $child sys $NR_write | cut -d' ' -f1-2)"
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
# workload_faults LABEL PID: in $TMP/mixed.f (ktcheck), the workload's page
# faults are traced, each with its exit; TSDELTAs and block times agree.
workload_faults() {
	local pf pfr
	pf=$(fact "$TMP/mixed.f" pid "$2" switchin | awk '{print $5}')
	pfr=$(fact "$TMP/mixed.f" pid "$2" switchin | awk '{print $7}')
	check "$1: the workload's page faults are traced ($pf)" test "${pf:-0}" -gt 0
	eq "$1: every page fault of the workload has an exit" "$pf" "$pfr"
	eq "$1: TSDELTAs agree with the following timestamps" "0" \
		"$(awk '$1 == "cpu" { s += $8 } END { print s + 0 }' "$TMP/mixed.f")"
	eq "$1: no block goes back in time on its CPU" "0" \
		"$(awk '$1 == "cpu" { s += $10 } END { print s + 0 }' "$TMP/mixed.f")"
}
# json_tiles LABEL TRACE: kutrace_postproc makes $TMP/mixed.json of TRACE
# and every CPU's timeline in it tiles (tests/vm/host/tile.py).  Status 0
# when the JSON was made.
json_tiles() {
	cp "$2" "$TMP/mixed.trace"
	if ! "$KT_BIN/kutrace_postproc" "$TMP/mixed.trace" --no-html >/dev/null 2>&1; then
		nok "$1: kutrace_postproc turns the trace into JSON"
		return 1
	fi
	ok "$1: kutrace_postproc turns the trace into JSON"
	if python3 tests/vm/host/tile.py "$TMP/mixed.json" > "$TMP/tile.out"; then
		ok "$1: every CPU's timeline tiles without gaps ($(tr '\n' ';' < "$TMP/tile.out"))"
	else
		nok "$1: every CPU's timeline tiles without gaps"; sed 's/^/#   /' "$TMP/tile.out"
	fi
}
# full_and_wrap LABEL OUTDIR BACKEND: scenario 3 as the guest ran it into
# OUTDIR (full.trace of a 1 MiB buffer, wrap.trace with --wrap, of
# "workload getpid"): the full trace keeps the first calls, the wrapped
# one the newest and the names of block 0.  Status of $L: full=0, wrap=0.
full_and_wrap() {
	local fpid wpid
	check "$1: full buffer: record still writes the trace" grep -q "full=0" "$L"
	check "$1: full buffer: says so" grep -q "buffer filled up" "$2/full.err"
	eq "$1: full buffer: 16 blocks of 64 KB" 1048576 "$(stat -c %s "$2/full.trace")"
	ktcheck "$2/full.trace" > "$TMP/full.f"
	fpid=$(awk '$1 == "pid" { print $2; exit }' "$2/full.out")
	between "$1: full buffer: the first getpid calls are kept" 1000 399999 \
		"$(fact "$TMP/full.f" pid "$fpid" sys $NR_getpid | cut -d' ' -f2)"
	check "$1: wraparound: record succeeded" grep -q "wrap=0" "$L"
	check "$1: wraparound: says so" grep -q "wrapped around" "$2/wrap.err"
	ktcheck "$2/wrap.trace" > "$TMP/wrap.f"
	eq "$1: wraparound: WRAP flag in block 0" "1" "$(fact "$TMP/wrap.f" wrapped)"
	wpid=$(awk '$1 == "pid" { print $2; exit }' "$2/wrap.out")
	eq "$1: wraparound: the newest data (exit_group) is kept" "calls 1" \
		"$(fact "$TMP/wrap.f" pid "$wpid" sys $NR_exit_group | cut -d' ' -f1-2)"
	check "$1: wraparound: names from block 0 survive" grep -q "^backend $3" "$TMP/wrap.f"
}
# kulib_inserted FACTS PID WHAT N: N of each insert of kulib, with their args
kulib_inserted() {
	local f=$1 p=$2 what=$3 N=$4 ev sum
	# event n argsum: marks a/b/c carry base-40 "ka" "kb" "kc"; mark_d i;
	# RPC ids 7000 + i; messages 64 bytes; lock 0x4C4B; queue 3
	while read -r ev sum; do
		eq "$k: $what: exactly N entries $ev with their args" "n $N argsum $sum" \
			"$(fact "$f" pid $p event $ev)"
	done <<-EOF
	0x201 $((7000 * N + N * (N - 1) / 2))
	0x202 $((7000 * N + N * (N - 1) / 2))
	0x204 $((64 * N))
	0x205 $((64 * N))
	0x20a $((51 * N))
	0x20b $((91 * N))
	0x20c $((131 * N))
	0x20d $((N * (N - 1) / 2))
	0x210 $((0x4C4B * N))
	0x211 $((0x4C4B * N))
	0x212 $((0x4C4B * N))
	0x21a $((3 * N))
	0x21b $((3 * N))
	EOF
	eq "$k: $what: no other inserted kind" 13 "$(grep -c "^pid $p event " "$f")"
}
# kulib_returns FILE WHAT: every "ok - " / "not ok - " line of kulib
kulib_returns() {
	relay "$k: $2" "$1"
	check "$k: $2: return codes were checked ($RELAYED)" test "$RELAYED" -gt 5
}
# kulib_checks OUT N: tests/vm/kulib.c's runs in a guest (OUT holds
# self.out/.trace: the library's own go and stop; marks.out/.trace: marks in
# a trace kutrace_control recorded, a normal user's among them; user.out:
# a normal user while tracing is off), each insert N times: exact return
# codes and exact entries; the same on stock and patched kernels.
kulib_checks() {
	local out=$1 N=$2 pid child
	# the library's own go / stop
	check "$k: kulib self: exit 0" grep -q "self=0" "$out/scenario.log"
	kulib_returns "$out/self.out" "library go/stop"
	ktcheck "$out/self.trace" marks > "$TMP/self.f"
	pid=$(awk '$1 == "pid" { print $2; exit }' "$out/self.out")
	eq "$k: library go/stop: the trace has the blocks GETCOUNT gave" \
		"$(awk '$1 == "blocks" { print $2 }' "$out/self.out")" "$(fact "$TMP/self.f" blocks)"
	kulib_inserted "$TMP/self.f" "$pid" "library go/stop" "$N"
	for t in "0x003 7000 kulib_method" "0x007 19531 kulib_lock" "0x105 3 kulib_queue"; do
		eq "$k: library go/stop: name entry $t" 1 "$(grep -c "^username $t\$" "$TMP/self.f")"
	done
	eq "$k: library go/stop: no mark_d inserted while off (999999)" 0 \
		"$(awk '$1 == "markd" && $3 == 999999' "$TMP/self.f" | wc -l)"
	# each mark_d stamped between the counter reads around its call
	# (both on CPU 0, where kulib pins itself)
	awk 'NR == FNR { if ($1 == "markd") { lo[$2] = $3; hi[$2] = $4 }; next }
	     $1 == "markd" { n++; if ($5 >= lo[$3] && $5 <= hi[$3] && $4 == 0) in_t++ }
	     END { print n + 0, in_t + 0 }' "$out/self.out" "$TMP/self.f" > "$TMP/when"
	eq "$k: library go/stop: every mark_d carries the time of its call" "$N $N" "$(cat "$TMP/when")"

	# marks into a trace kutrace_control records, a normal user's too
	check "$k: kutrace_control record -- kulib marks: exit 0" grep -q "marks=0" "$out/scenario.log"
	kulib_returns "$out/marks.out" "marks in a recorded trace"
	ktcheck "$out/marks.trace" marks > "$TMP/marks.f"
	pid=$(awk '$1 == "pid" { print $2; exit }' "$out/marks.out")
	child=$(awk '$1 == "child" { print $2; exit }' "$out/marks.out")
	kulib_inserted "$TMP/marks.f" "$pid" "marks in a recorded trace" "$N"
	eq "$k: user 65534: exactly N mark_d of its own (args 100000 + i)" \
		"n $N argsum $((100000 * N + N * (N - 1) / 2))" "$(fact "$TMP/marks.f" pid $child event 0x20d)"
	eq "$k: user 65534: no other inserted kind" 1 "$(grep -c "^pid $child event " "$TMP/marks.f")"
	eq "$k: user 65534: its name entry" 1 "$(grep -c '^username 0x003 7 kulib_user$' "$TMP/marks.f")"

	# a normal user while tracing is off
	check "$k: kulib user: exit 0" grep -q "user=0" "$out/scenario.log"
	kulib_returns "$out/user.out" "user, tracing off"
}
# KT_SPLAT: the first line of every report of the kernel's checkers
# (KASAN, KFENCE, lockdep, UBSAN, atomic sleep, preempt, slub_debug,
# list debugging) and of WARN, BUG and Oops, for grep -E on a kernel log
# (t_vm_soak.sh checks it against samples of each, and against the
# banners a debug kernel prints at boot, which it must not match).
KT_SPLAT='BUG:|BUG [a-z]|WARNING:|KASAN|KFENCE|UBSAN|Oops|general protection|invalid opcode|kernel BUG|Call Trace|sleeping function|lockdep is turned off|locking dependency|lock state|RCU usage|preemptible|stack-protector|list_(add|del) corruption'

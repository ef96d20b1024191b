#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Postprocessing core: golden raw trace -> exact event text and JSON, the
# pipeline and the one-pass program agree, and every kind of damaged input
# gives one line naming file, block and word, and a non-zero exit.
. tests/lib.sh
B=$KT_BIN
G=tests/golden

# --- golden -----------------------------------------------------------------
"$B/mkgolden" basic "$TMP/basic.trace"
same_file "mkgolden regenerates the committed golden trace byte for byte" \
	$G/basic.trace "$TMP/basic.trace"
"$B/rawtoevent" $G/basic.trace 2>/dev/null | LC_ALL=C sort -n > "$TMP/basic.events"
same_file "rawtoevent golden event text" $G/basic.events "$TMP/basic.events"
"$B/kutrace_postproc" $G/basic.trace basic --no-html -o "$TMP/basic.json" 2>/dev/null
grep -v randomid "$TMP/basic.json" > "$TMP/basic.nr.json"
same_file "kutrace_postproc golden JSON" $G/basic.json "$TMP/basic.nr.json"
"$B/rawtoevent" $G/basic.trace 2>/dev/null | LC_ALL=C sort -n |
	"$B/eventtospan" basic 2>/dev/null | grep -v randomid > "$TMP/pipe.json"
same_file "rawtoevent | sort -n | eventtospan gives the same JSON" \
	$G/basic.json "$TMP/pipe.json"

# RPCs, packets and queues (docs/spec/FORMATS.md 5.8 and 5.3 step 7).
"$B/mkgolden" rpc "$TMP/rpc.trace"
same_file "mkgolden regenerates the committed RPC trace byte for byte" \
	$G/rpc.trace "$TMP/rpc.trace"
"$B/kutrace_postproc" $G/rpc.trace rpc --no-html -o "$TMP/rpc.json" 2>/dev/null
grep -v randomid "$TMP/rpc.json" > "$TMP/rpc.nr.json"
same_file "kutrace_postproc RPC golden JSON" $G/rpc.json "$TMP/rpc.nr.json"
"$B/rawtoevent" $G/rpc.trace 2>/dev/null | LC_ALL=C sort -n |
	"$B/eventtospan" rpc 2>/dev/null | grep -v randomid > "$TMP/rpcpipe.json"
same_file "the pipeline gives the same RPC JSON" $G/rpc.json "$TMP/rpcpipe.json"
R=$TMP/rpc.json

# Every golden trace: mkgolden makes it byte for byte, and both paths give
# its golden JSON byte for byte.
for g in exec ipi edges lost; do
	"$B/mkgolden" $g "$TMP/$g.trace"
	same_file "mkgolden regenerates the committed $g trace byte for byte" \
		$G/$g.trace "$TMP/$g.trace"
	"$B/kutrace_postproc" $G/$g.trace $g --no-html -o "$TMP/$g.json" 2>/dev/null
	same_file "kutrace_postproc $g golden JSON" $G/$g.json <(grep -v randomid "$TMP/$g.json")
	"$B/rawtoevent" $G/$g.trace 2>/dev/null | LC_ALL=C sort -n |
		"$B/eventtospan" $g 2>/dev/null | grep -v randomid > "$TMP/$g.pipe.json"
	same_file "rawtoevent | sort -n | eventtospan $g golden JSON" $G/$g.json "$TMP/$g.pipe.json"
done
# --threads: the checks and the decoding in threads of their own change
# no byte.  Every golden trace, and generated traces of 1, 4, 16 and 64
# CPUs (late stores, gaps, RPCs, IPC side blocks, idle edges), at 1, 2, 3
# and 16 threads: 16 threads on two cores prove the hand-over, not speed.
threads_same() { # name trace
	local t base=$TMP/thr.$1
	for t in 1 2 3 16; do
		"$B/kutrace_postproc" "$2" "$1" --no-html --threads $t -o "$base.$t.json" \
			> /dev/null 2> "$base.$t.err" || { echo "threads $t: exit $?"; return 1; }
		grep -v '"randomid"' "$base.$t.json" > "$base.$t.nr"
		sed -i "s|$base.$t.json|OUT|" "$base.$t.err"
		[ $t = 1 ] && continue
		cmp "$base.1.nr" "$base.$t.nr" && cmp "$base.1.err" "$base.$t.err" || return 1
	done
	rm -f "$base".*
}
nthr=0 thrbad=""
for g in $G/*.trace; do
	nthr=$((nthr + 1))
	threads_same "$(basename "$g" .trace)" "$g" > "$TMP/thr.out" 2>&1 || thrbad="$thrbad $(basename "$g")"
done
for spec in "1:-m 1" "4:-m 3 --late --gaps" "4:-m 3 --rpc --ipc" "16:-m 4 --idle-start --idle-end 0.01" \
	    "64:-m 6" "64:-m 4 --late --rpc"; do
	nthr=$((nthr + 1))
	"$B/kutrace_synth" -s 11 -c ${spec%%:*} ${spec#*:} -o "$TMP/thr.trace" > /dev/null 2>&1
	threads_same synth "$TMP/thr.trace" > "$TMP/thr.out" 2>&1 || thrbad="$thrbad synth(-c ${spec%%:*} ${spec#*:})"
done
eq "kutrace_postproc --threads 1, 2, 3, 16: byte-identical JSON and lines on $nthr traces (goldens; synthetic 1, 4, 16, 64 CPUs)" "" "$thrbad"
"$B/kutrace_postproc" $G/basic.trace --threads 0 -o "$TMP/x.json" 2> "$TMP/e"; rc=$?
check "--threads 0: exit 2, one line" eval '[ $rc = 2 ] && [ "$(cat "$TMP/e")" = "kutrace_postproc: --threads 0: from 1 to 256" ]'

# -o into what is not a file is written into, never renamed over (a
# rename over -o /dev/null replaced the device with a file): a FIFO stays
# a FIFO and its reader gets the JSON; a symbolic link stays a link and
# its target gets the JSON.
mkfifo "$TMP/fifo"
cat "$TMP/fifo" > "$TMP/fifo.out" &
"$B/kutrace_postproc" $G/basic.trace basic --no-html -o "$TMP/fifo" > /dev/null 2>&1; rc=$?
wait
check "-o a FIFO: exit 0, still a FIFO, its reader got the JSON" \
	eval '[ $rc = 0 ] && [ -p "$TMP/fifo" ] && cmp -s <(grep -v randomid "$TMP/fifo.out") $G/basic.json'
: > "$TMP/target.json"; ln -s target.json "$TMP/link.json"
"$B/kutrace_postproc" $G/basic.trace basic --no-html -o "$TMP/link.json" > /dev/null 2>&1; rc=$?
check "-o a symbolic link: still the link, its target holds the JSON" \
	eval '[ $rc = 0 ] && [ -L "$TMP/link.json" ] && cmp -s <(grep -v randomid "$TMP/target.json") $G/basic.json'

# Entries lost (FORMATS 10.4): what ran ends at the loss, the loss is a
# row of its own, the header's task runs again after it.
L=$TMP/lost.json
check "lost: prog.700's user code ends where the loss starts (T(300))" \
	grep -qF '[ 20.00000300, 0.00000300, 0, 700, 0, 66236, 0, 700, 0, "prog.700"]' $L
check "lost: one -lost- row over the lost interval, entries and reason" \
	grep -qF '[ 20.00000600, 0.00001000, 0, 0, 0, 644, 12345, 1, 0, "-lost-"]' $L
check "lost: the header's task runs user code again from the LOST entry" \
	grep -qF '[ 20.00001600, 0.00000200, 0, 700, 0, 66236, 0, 0, 0, "prog.700"]' $L
# exec (sh -> cat): the name changes at its time, not for the whole life.
E=$TMP/exec.json
check "exec: user spans before the exec carry the old name" \
	grep -qF '[ 20.00000220, 0.00000180, 0, 800, 0, 66336, 0, 0, 0, "sh.800"]' $E
check "exec: user spans after the exec carry the new name" \
	grep -qF '[ 20.00000600, 0.00000200, 0, 800, 0, 66336, 0, 0, 0, "cat.800"]' $E
check "exec: the row label lists the names in time order" grep -qF '"sh+cat.800"]' $E
check "exec: a row label starts at the trace start, not at the thread's first event" \
	grep -qF '[ 20.00000002, 0.00000001, 0, 901, 0, 526, 0, 0, 0, "bash+ls.901"]' $E

# golden_arch ARCH TRIPLET ROW...: hello_world_trace recorded in the ARCH
# guest, kept as it came out, gives its golden JSON by both paths on any
# host, with ARCH's call numbers and the names the guest's kutrace_control
# wrote, and each ROW.  Without its call names, the postprocessor names
# them from the architecture the trace's backend entry gives (the table
# generated from ARCH's headers, /usr/TRIPLET/include), on either host.
golden_arch() {
	local a=$1 triplet=$2 r n; shift 2
	"$B/kutrace_postproc" $G/$a.trace $a --no-html -o "$TMP/$a.json" 2>/dev/null
	same_file "kutrace_postproc $a golden JSON" $G/$a.json <(grep -v randomid "$TMP/$a.json")
	"$B/rawtoevent" $G/$a.trace 2>/dev/null | LC_ALL=C sort -n |
		"$B/eventtospan" $a 2>/dev/null | grep -v randomid > "$TMP/$a.pipe.json"
	same_file "rawtoevent | sort -n | eventtospan $a golden JSON" $G/$a.json "$TMP/$a.pipe.json"
	for r in "$@"; do
		check "$a: $(echo "$r" | cut -d'"' -f2) at its $a event number" grep -qF "$r]" $G/$a.json
	done
	if [ -d /usr/$triplet/include/asm ] || [ "$(uname -m)" = "${triplet%%-*}" ]; then
		n=$(python3 tests/tools/unname.py $G/$a.trace "$TMP/unnamed.trace")
		"$B/kutrace_postproc" "$TMP/unnamed.trace" $a --no-html -o "$TMP/unnamed.json" 2>/dev/null
		same_file "$a trace without its $n call names: the same golden JSON ($a's names)" \
			$G/$a.json <(grep -v randomid "$TMP/unnamed.json")
		python3 tests/tools/unname.py $G/$a.trace "$TMP/unnamed86.trace" --x86 >/dev/null
		"$B/kutrace_postproc" "$TMP/unnamed86.trace" $a --no-html -o "$TMP/unnamed86.json" 2>/dev/null
		check "... and with the backend entry's $a blanked, x86-64's (call 79 getcwd)" \
			grep -qF '2127, 1, 0, 0, "getcwd"]' "$TMP/unnamed86.json"
	else
		skip "$a names without the trace's: no $a headers here (linux-libc-dev-*-cross)"
	fi
}
# arm64 (issue 17): from tests/t_vm_arm64.sh, 6.1.0-56-cloud-arm64 under
# QEMU: the arch_timer, an IPI (interrupt 246 + 1) and page faults.
golden_arch arm64 aarch64-linux-gnu '2127, 1, 0, 0, "newfstatat"' '2112, 1, 12, 0, "write"' \
	'1291, 11, 0, 0, "arch_timer"' '1527, 2, 0, 0, "ipi1_function"' '1038, 4608, 0, 0, "page_fault"'
# riscv64 (issue 33): from tests/t_vm_riscv64.sh, 6.1.192 built from
# linux-source-6.1 under qemu-system-riscv64 -M virt: the riscv-timer
# (Linux IRQ 5), IPI sends and receives (interrupt 246, ipi) and a
# 10 MHz time CSR.
golden_arch riscv64 riscv64-linux-gnu '2127, 1, 0, 0, "newfstatat"' '2112, 1, 0, 0, "write"' \
	'1285, 5, 0, 0, "riscv-timer"' '1526, 0, 0, 0, "ipi"' '519, 1, 0, 0, "sendipi"'
# IPIs to an idle CPU (issue 13 items 1 and 6) and fork's runnable (item 8).
I=$TMP/ipi.json
check "ipi: the arc to a CPU silent since its first block ends at its reschedule_ipi" \
	grep -qF '[ 20.00000220, 0.00000580, 0, -1, -1, -7, 1, 0, 0, "-ipi-"]' $I
check "ipi: the arc to a CPU in mwait ends where its c-exit starts" \
	grep -qF '[ 20.00004020, 0.00000650, 0, -1, -1, -7, 1, 0, 0, "-ipi-"]' $I
check "ipi: the c-exit (hint 0x20: 13.3 us) ends at the reschedule_ipi" \
	grep -qF '[ 20.00004670, 0.00001330, 1, 0, 0, 131072, 0, 0, 0, "-c-exit-"]' $I
check "ipi: clone's child is \"runnable\" with retval 0 (the original's row)" \
	grep -qF '[ 20.00000180, 0.00000001, 0, 300, 0, 518, 301, 0, 0, "runnable"]' $I
# No row of any golden lasts less than nothing or nothing at all (a
# zero-length kernel row came from a CPU's first event being a return).
for j in "$TMP"/{basic,rpc,exec,ipi,edges}.json; do
	check "$(basename $j): no negative or zero-length CPU rows" \
		bash -c '! grep -E "^\[ *[0-9.]+, (-|0\.00000000,)" "$1"' _ $j
done

# The edges of each CPU's timeline (item 4), against the truth mkgolden
# edges describes: the first span from the block start, the last to the
# trace end (an idle CPU's to the stop time), nothing else lost or added.  Written out row by row, as the
# tools print rows (t_tools' odd names look the same, other data).
cat > "$TMP/edges.want" <<'W'
[ 20.00000020, 0.00000580, 0, 700, 0, 66236, 0, 0, 0, "prog.700"],
[ 20.00000040, 0.00000560, 1, 0, 0, 1516, 0, 0, 0, "local_timer_vector"],
[ 20.00000600, 0.00000001, 0, 700, 0, 522, 52354419, 0, 0, "mark_a=start"],
[ 20.00000600, 0.00001800, 1, 0, 0, 65536, 0, 0, 0, "-idle-"],
[ 20.00000601, 0.00000999, 0, 700, 0, 66236, 0, 0, 0, "prog.700"],
[ 20.00001600, 0.00000200, 0, 700, 0, 2049, 1, 8192, 0, "write"],
[ 20.00001800, 0.00000601, 0, 700, 0, 66236, 0, 8192, 0, "prog.700"],
[ 20.00002400, 0.00000001, 1, 0, 0, 520, 32, 0, 0, "mwait"],
[ 20.00002401, 0.00001599, 1, 0, 0, 65536, 1, 0, 0, "-idlelp-"],
W
same_file "edges: every row, first and last spans included, as the truth says" \
	"$TMP/edges.want" <(grep '^\[ ' "$TMP/edges.json")

# rawtoevent text as the original writes it (item 9).
"$B/rawtoevent" $G/ipi.trace 2>/dev/null > "$TMP/ipi.events"
check "rawtoevent: an idle block header gives a -idle- name line for pid 0" \
	grep -qx '[0-9]* 1 34 0 -idle-' "$TMP/ipi.events"
check "rawtoevent: a CPU's first-block switch has duration 1 and arg 0" \
	grep -qF '2000000002 1 512 0  1234 0  0 0 0 hello.1234 (200)' "$TMP/basic.events"
check "rawtoevent: a context switch has duration 0 and arg = pid" \
	grep -qF '2000004020 0 512 0  1234 0  1234 0 0 hello.1234 (200)' "$TMP/basic.events"
check "rawtoevent: a PC sample has duration 0" \
	grep -qF '2000000599 0 641 0  1234 0  1 0 0 PC=ffffffff81000040 (281)' "$TMP/basic.events"

# The two paths agree on every trace this suite has (goldens, synthetic).
"$B/mkgolden" sched "$TMP/sched.trace"
for t in $G/*.trace "$TMP/sched.trace"; do
	same_json "both paths give the same JSON: $(basename "$t")" "$t"
done
for a in "-s 7 -c 4 -d 0.1 -x 30,10,25,3" "-s 8 -c 3 -d 0.2 --ipc --late --gaps" \
	"-s 9 -c 2 -d 1 --wrap 4" "-s 10 -c 4 -d 0.05 --idle-start --idle-end 0.01"; do
	"$B/kutrace_synth" $a -o "$TMP/both.trace" >/dev/null 2>&1
	same_json "both paths give the same JSON: kutrace_synth $a" "$TMP/both.trace"
done

# Interrupts inside the scheduler span (patched kernels): the interrupt
# nests in the scheduler, which resumes after it, and a switch away from a
# thread preempted on its way to user code leaves no hole.
"$B/mkgolden" sched "$TMP/sched.trace"
"$B/kutrace_postproc" "$TMP/sched.trace" --no-html -o "$TMP/sched.json" 2>/dev/null
if python3 tests/vm/host/tile.py "$TMP/sched.json" > "$TMP/sched.tile"; then
	ok "interrupt inside the scheduler: both CPUs tile ($(tr '\n' ';' < "$TMP/sched.tile"))"
else
	nok "interrupt inside the scheduler: both CPUs tile"; sed 's/^/#   /' "$TMP/sched.tile"
fi
check "the scheduler resumes after a tick taken inside it (CPU 0)" \
	grep -qF '[ 20.00000260, 0.00000040, 0, 100, 0, 3583, 0, 0, 0, "-sched-"]' "$TMP/sched.json"
check "the scheduler resumes after a tick taken inside it (CPU 1)" \
	grep -qF '[ 20.00000480, 0.00000040, 1, 300, 0, 3583, 0, 0, 0, "-sched-"]' "$TMP/sched.json"
check "b runs from the scheduler return until it calls read" \
	grep -qF '[ 20.00000300, 0.00000500, 0, 200, 0, 65736, 0, 0, 0, "b.200"]' "$TMP/sched.json"
check "rx message: 1024 bytes (lglen8 100) at 1000 Mb/s = 8.19 us, ending at the rx packet" \
	grep -qF '[ 19.99999381, 0.00000819, 0, 0, 77, 516, 1024, 0, 0, "getData.77"]' $R
check "tx message: 256 bytes (lglen8 80) = 2.04 us, starting at the tx packet" \
	grep -qF '[ 20.00001040, 0.00000204, 0, 0, 77, 517, 256, 0, 0, "getData.77"]' $R
check "queue span of RPC 77 on workq from enqueue+10 ns to the worker's RPC-10 ns" \
	grep -qF '[ 20.00000421, 0.00000398, -1, -1, 77, 538, 3, 0, 0, "workq"]' $R
check "enqueue and dequeue points are named with their queue" \
	grep -qF '"deq(3)"]' $R
check "an RPC mid row (0x203) carries the method's name, not the thread's" \
	grep -qF '[ 20.00000980, 0.00000001, 1, 600, 77, 515, 77, 0, 0, "getData.77"]' $R
check "an RPC request row has the RPC id the CPU had before it" \
	grep -qF '[ 20.00000320, 0.00000001, 0, 500, 0, 513, 6553677, 0, 0, "getData.77"]' $R
check "an RPC end row is .0 with the RPC id it ends" \
	grep -qF '[ 20.00000420, 0.00000001, 0, 500, 77, 513, 0, 0, 0, ".0"]' $R
check "spantoprof -row names RPC 77's row by its method (the row's arg), not .0" \
	bash -c '"$1/spantoprof" -row < "$2" 2>/dev/null > "$3" && grep -qF ", 526, 0, 0, 0, \"getData.77 \"]" "$3" &&
		! grep -qF "\".0 \"]" "$3"' _ "$B" $R "$TMP/rpc.prof"

# Rows are written while the trace is read, as soon as nothing can come
# before them.  A tiny memory budget forces the writer past sleeping
# threads, so waits and wakeups come after their place was written and
# are merged in by the final copy: the JSON must not change by a byte.
"$B/kutrace_synth" -s 7 -c 4 -d 0.1 -x 30,10,25,3 -o "$TMP/late.trace" >/dev/null 2>&1
"$B/kutrace_postproc" "$TMP/late.trace" late --no-html -o "$TMP/late.json" 2>"$TMP/late0.err"
KT_JSONOUT_STEP=5 KT_JSONOUT_BUDGET=40 "$B/kutrace_postproc" "$TMP/late.trace" late \
	--no-html -o "$TMP/late2.json" 2>"$TMP/late.err"
check "tiny budget: rows really came late (and were placed)" \
	grep -q "rows placed late" "$TMP/late.err"
check "default budget: no row came late on a small trace" \
	bash -c '! grep -q "rows placed late" "$1"' _ "$TMP/late0.err"
same_file "tiny budget gives the same JSON as the default" \
	<(grep -v randomid "$TMP/late.json") <(grep -v randomid "$TMP/late2.json")
"$B/rawtoevent" "$TMP/late.trace" 2>/dev/null | LC_ALL=C sort -n |
	KT_JSONOUT_STEP=3 KT_JSONOUT_BUDGET=20 "$B/eventtospan" late 2>/dev/null |
	grep -v randomid > "$TMP/late3.json"
same_file "eventtospan with a tiny budget gives the same JSON too" \
	<(grep -v randomid "$TMP/late.json") "$TMP/late3.json"
check "no work file is left behind" bash -c '! ls "$1"/late*.tmp* 2>/dev/null' _ "$TMP"

# A thread that blocks at the start and is never named again (this trace
# has one) used to hold every row back until the memory budget ran out:
# the first pass now learns when each thread is last named, so the rows'
# order bound stays milliseconds behind the reading (2,723 ms without).
"$B/kutrace_synth" -s 7 -c 4 -m 2 -o "$TMP/lag.trace" >/dev/null 2>&1
"$B/kutrace_postproc" "$TMP/lag.trace" --no-html --stats -o "$TMP/lag.json" 2>"$TMP/lag.err"
lag=$(sed -n 's/.*rows waited for their order at most \([0-9.]*\) ms.*/\1/p' "$TMP/lag.err")
check "a thread never named again holds no row back (bound lag ${lag:-?} ms < 50 ms)" \
	awk -v l="${lag:-99999}" 'BEGIN { exit !(l < 50) }'

# One pass: kutrace_postproc builds the page from its rows as data, never
# reading its JSON back; the page must be byte for byte the one makeself
# makes from that JSON (same randomid: the same header).  Late rows go
# into the columns by their own merge: the tiny budget checks it.  A name
# with a byte that is not UTF-8 is written, and so reads back, as U+FFFD.
onepass() { # name trace [kutrace_postproc options...]; environment from $OPENV
	local name=$1 tr=$2; shift 2
	rm -f "$TMP/op_$name.json" "$TMP/op_$name.html"
	if env $OPENV "$B/kutrace_postproc" "$tr" "op $name" "$@" -o "$TMP/op_$name.json" \
		>/dev/null 2>"$TMP/op_$name.err" && [ -s "$TMP/op_$name.html" ] &&
	   "$B/makeself" - "$TMP/op_$name.json" "$TMP/op_$name.ms.html" 2>/dev/null; then
		same_file "one pass: postproc's page is makeself's page of its JSON: $name" \
			"$TMP/op_$name.ms.html" "$TMP/op_$name.html"
	else
		nok "one pass: postproc and makeself both write $name's page: $(head -c 300 "$TMP/op_$name.err")"
	fi
}
for g in basic rpc ipi exec edges arm64 riscv64; do onepass $g $G/$g.trace; done
onepass late "$TMP/late.trace"
OPENV="KT_JSONOUT_STEP=5 KT_JSONOUT_BUDGET=40" onepass latetiny "$TMP/late.trace"
check "one pass, tiny budget: rows really came late" grep -q "rows placed late" "$TMP/op_latetiny.err"
# A page of 262,144 rows or more carries its summary (lib/page/pagelod.c), made
# from the columns: the same bytes both ways too.
"$B/kutrace_synth" -s 7 -c 4 -t 40 -d 1000 -m 3 -o "$TMP/big4.trace" >/dev/null 2>&1
onepass summary "$TMP/big4.trace"
check "one pass: the page of 400 K rows carries its summary" grep -q 'id="ktlod"' "$TMP/op_summary.html"
"$B/kutrace_synth" -s 4 -c 2 -d 0.01 -o "$TMP/utf8.trace" >/dev/null 2>&1
python3 -c 'import sys; p=sys.argv[1]; d=open(p,"rb").read(); open(p,"wb").write(d.replace(b"bash", b"b\xffsh", 1))' "$TMP/utf8.trace"
onepass utf8 "$TMP/utf8.trace"
check "one pass: the invalid-UTF-8 names really are in that page" \
	bash -c '"$1/unmakeself" "$2" | grep -q $'"'"'b\xef\xbf\xbdsh'"'"'' _ "$B" "$TMP/op_utf8.html"

# More spans than one timeline page holds: JSON only, and a message.
cp $G/basic.trace "$TMP/big.trace"
"$B/kutrace_postproc" "$G/basic.trace" basic --no-html --stats -o "$TMP/stats.json" 2>"$TMP/stats.err"
check "--stats prints the CPU time of the three threads" \
	grep -qE '^kutrace_postproc: cpu reader [0-9]+\.[0-9]{2} s, orderer [0-9]+\.[0-9]{2} s, writer [0-9]+\.[0-9]{2} s$' "$TMP/stats.err"
same_file "--stats does not change the JSON" "$G/basic.json" <(grep -v randomid "$TMP/stats.json")
"$B/kutrace_postproc" "$TMP/big.trace" big --html-max-spans 5 >/dev/null 2>"$TMP/big.err"; rc=$?
check "--html-max-spans 5: exit 0, JSON written" test $rc = 0 -a -s "$TMP/big.json"
check "--html-max-spans 5: no HTML, and a message saying how to cut a range" \
	bash -c '! test -e "$1/big.html" && grep -q "no HTML written" "$1/big.err" &&
		grep -q spantotrim "$1/big.err"' _ "$TMP"
"$B/kutrace_postproc" "$TMP/big.trace" --html-max-spans >/dev/null 2>"$TMP/bad.err"; rc=$?
check "kutrace_postproc --html-max-spans (no value): usage, exit 2" \
	bash -c 'test "$1" = 2 && grep -q "^usage:" "$2"' _ $rc "$TMP/bad.err"
for bad in x 1k -1 " 5"; do
	"$B/kutrace_postproc" "$TMP/big.trace" --html-max-spans "$bad" >/dev/null 2>"$TMP/bad.err"; rc=$?
	eq "kutrace_postproc --html-max-spans '$bad': one line naming it, exit 2" \
		"2:kutrace_postproc: --html-max-spans $bad: not a number" "$rc:$(cat "$TMP/bad.err")"
done

# Facts of the golden trace, reasoned from docs/spec/FORMATS.md, asserted one by one.
J=$TMP/basic.json
row() { grep -qF -- "$1" $J; }
check "fused getpid: 10 ticks = 100 ns, retval 42" \
	row '[ 20.00000200, 0.00000010, 0, 1234, 0, 2087, 0, 42, 0, "getpid"]'
check "timer IRQ nested inside write splits it" \
	row '[ 20.00000620, 0.00000180, 0, 1234, 0, 2049, 1, 9, 0, "write"]'
check "thread blocked in read() resumes inside read, retval -14 as 65522" \
	row '[ 20.00004040, 0.00000160, 0, 1234, 0, 2048, 0, 65522, 0, "read"]'
check "the waker's write() names the wait wait_pipe" \
	row '"wait_pipe"]'
check "wakeup arc from CPU 1 to thread 1234" \
	row '[ 20.00001440, 0.00002600, 1, 70000, 0, -3, 0, 1234, 0, "-wakeup-"]'
check "c-exit after mwait 0x20: 13.3 us ending at the next event" \
	row '[ 20.00002670, 0.00001330, 0, 0, 0, 131072, 0, 0, 0, "-c-exit-"]'
check "full 32-bit pid 70000 keeps its name from a 16-bit-keyed entry" \
	row '"worker.70000"]'
check "mark_a label decoded" row '"mark_a=hello"]'
check "the span a mark splits keeps its return value (write returned 9)" \
	row '[ 20.00000901, 0.00000099, 0, 1234, 0, 66770, 0, 9, 0, "hello.1234"]'
check "header has kernel, model and host" \
	grep -q '"kernelVersion" : "#1SMPDebian6.1.0"' $J
check "tracebase is the UTC minute" grep -q '"tracebase" : "2023-11-14_22:13:00"' $J

# Per CPU the CPU spans tile time: each starts where the previous ended.
tile() {
	# Kernel/user/idle spans plus the 10 ns point rows that split them
	# (mwait 0x208, marks 0x20A-0x20D, mwait exit 0x21F).
	awk -F'[][, ]+' '/^\[/ && $4 >= 0 && ($7 >= 1024 || $7 == 520 ||
	    ($7 >= 522 && $7 <= 525) || $7 == 543) {
		cpu=$4; s=$2*1e8; d=$3*1e8
		if (cpu in end && (s - end[cpu] > 0.5 || end[cpu] - s > 0.5)) { bad++; print "# gap/overlap cpu " cpu " at " $2 }
		end[cpu]=s+d } END { exit bad > 0 }' "$1"
}
check "CPU spans tile the golden trace with no gap or overlap" tile $J

# Names with quotes, backslashes, </script> and non-ASCII survive, escaped.
check "JSON is valid (python json or node)" \
	node -e 'JSON.parse(require("fs").readFileSync(process.argv[1],"utf8"))' $J

# --- bad input -------------------------------------------------------------------
bad() { # name file expected-regex
	local out rc
	out=$("$B/kutrace_postproc" "$2" --no-html -o "$TMP/bad.json" 2>&1 >/dev/null); rc=$?
	if [ $rc -ne 0 ] && [ "$(printf '%s\n' "$out" | wc -l)" = 1 ] &&
	   printf '%s' "$out" | grep -Eq "$3"; then
		ok "bad input: $1 -> $out"
	else
		nok "bad input: $1 (rc=$rc): $out"
	fi
	[ ! -e "$TMP/bad.json" ] || nok "bad input: $1 left a JSON file behind"
	out=$("$B/rawtoevent" "$2" 2>&1 >/dev/null); rc=$?
	if [ $rc -ne 0 ] && printf '%s' "$out" | grep -Eq "$3"; then
		ok "rawtoevent rejects: $1"
	else
		nok "rawtoevent accepts: $1 (rc=$rc): $out"
	fi
}
patch_word() { # file word-index hex-value(16 digits)
	local v=$3 i s=""
	for i in 14 12 10 8 6 4 2 0; do s="$s\\x${v:$i:2}"; done
	printf "$s" | dd of="$1" bs=8 seek="$2" conv=notrunc status=none
}
: > "$TMP/empty.trace"
bad "empty file" "$TMP/empty.trace" 'empty.trace: block 0: empty file'
head -c 70000 $G/basic.trace > "$TMP/trunc.trace"
bad "truncated block" "$TMP/trunc.trace" 'trunc.trace: block 1 word 558: truncated block'
cp $G/basic.trace "$TMP/ver.trace"; printf '\x02' | dd of="$TMP/ver.trace" bs=1 seek=15 conv=notrunc status=none
bad "wrong version nibble" "$TMP/ver.trace" 'ver.trace: block 0 word 1: trace-file version 2'
cp $G/basic.trace "$TMP/cpu.trace"; printf '\xc8' | dd of="$TMP/cpu.trace" bs=1 seek=7 conv=notrunc status=none
bad "CPU number out of range" "$TMP/cpu.trace" 'cpu.trace: block 0 word 0: CPU number 200 out of range'
cp $G/basic.trace "$TMP/garb.trace"
head -c 32768 /dev/urandom | dd of="$TMP/garb.trace" bs=8 seek=40 conv=notrunc status=none
bad "garbage words" "$TMP/garb.trace" 'garb.trace: block 0 word [0-9]+: (garbage word|name entry|.*crosses|time |entry |block ends)'
# Event 0 in a non-zero word (found by the sanitizer run on random garbage).
cp $G/basic.trace "$TMP/ev0.trace"; patch_word "$TMP/ev0.trace" 40 0000100000000001
bad "non-zero word with event 0" "$TMP/ev0.trace" 'ev0.trace: block 0 word 40: garbage word 0000100000000001'
cp $G/basic.trace "$TMP/cross.trace"; patch_word "$TMP/cross.trace" 8190 0000003200000000
bad "entry crossing the block end" "$TMP/cross.trace" 'cross.trace: block 0 word 8190: 3-word entry 0x032 crosses the block end'
cp $G/basic.trace "$TMP/nib0.trace"; patch_word "$TMP/nib0.trace" 40 0000000200000000
bad "name length nibble 0" "$TMP/nib0.trace" 'nib0.trace: block 0 word 40: name entry 0x002 with length nibble 0'
cp $G/basic.trace "$TMP/nib9.trace"; patch_word "$TMP/nib9.trace" 40 0000009200000000
bad "name length nibble 9" "$TMP/nib9.trace" 'nib9.trace: block 0 word 40: name entry 0x092 with length nibble 9'
# Time running backward: CPU 0's second block starts before its first ended.
"$B/kutrace_synth" -s 1 -c 1 -d 1.5 -o "$TMP/back.trace" >/dev/null 2>&1
w0=$(od -An -tx8 -j $((2 * 65536)) -N8 "$TMP/back.trace" | tr -d ' ')
patch_word "$TMP/back.trace" $((2 * 8192)) "$(printf '%016x' $((0x$w0 - 0x400000)))"
bad "time running backward beyond the late-store window" "$TMP/back.trace" \
	'back.trace: block [12] word [0-9]+: (CPU 0 time runs backward|time runs [0-9]+ ticks past the start of the CPU.s next block)'
# An absurd start/stop time pair (block 0 words 2..5), as the original
# kutrace_control writes when its 32-bit-counter workaround misfires: the
# stop counter gets wrong high bits (A), or the pair no wall-clock time (B,
# tracebase 1970).  Repaired from the blocks' own times, said in one line.
"$B/kutrace_postproc" $G/basic.trace -o "$TMP/pair0.json" --no-html 2>/dev/null
base0=$(grep '"tracebase"' "$TMP/pair0.json")
rows0=$(grep -c '^\[' "$TMP/pair0.json")
cp $G/basic.trace "$TMP/pairA.trace"
w4=$(od -An -tx8 -j 32 -N8 "$TMP/pairA.trace" | tr -d ' ')
patch_word "$TMP/pairA.trace" 4 "$(printf '%016x' $((0x$w4 + (1 << 32))))"
cp $G/basic.trace "$TMP/pairB.trace"
patch_word "$TMP/pairB.trace" 3 0000000000000000; patch_word "$TMP/pairB.trace" 5 0000000000000064
for v in A B; do
	"$B/kutrace_postproc" "$TMP/pair$v.trace" -o "$TMP/pair$v.json" --no-html 2> "$TMP/e"; rc=$?
	check "absurd time pair $v: repaired, one line says so (rc $rc)" \
		sh -c "[ $rc = 0 ] && [ \$(grep -c 'block 0 words 2..5: start/stop time pair .* repaired from their own times' '$TMP/e') = 1 ] && [ \$(wc -l < '$TMP/e') = 2 ]"
	check "absurd time pair $v: tracebase of the real start ($base0), every row kept" \
		sh -c "grep -qxF '$base0' '$TMP/pair$v.json' && [ \$(grep -c '^\[' '$TMP/pair$v.json') = $rows0 ]"
done
same_json() { cmp -s <(grep -v '"randomid"\|"title"' "$1") <(grep -v '"randomid"\|"title"' "$2"); }
check "absurd time pair A: the stop counter's high bits restored (same JSON)" same_json "$TMP/pair0.json" "$TMP/pairA.json"
"$B/checktrace" "$TMP/pairB.trace" > "$TMP/o"
check "checktrace fails the absurd pair and says postprocessing repairs it" \
	sh -c "grep -q '^FAIL block 0: start/stop gettimeofday' '$TMP/o' && grep -q '^info .*(postprocessing repairs it)' '$TMP/o'"
out=$("$B/kutrace_postproc" /nonexistent.trace 2>&1); rc=$?
check "missing file: one-line error" test $rc -ne 0 -a "$out" = "kutrace_postproc: /nonexistent.trace: No such file or directory"
check "--help" "$B/kutrace_postproc" --help
check "rawtoevent --help" "$B/rawtoevent" --help

# ---- outputs written whole or not at all (lib/tool/tool_out.c) ------------------
# Each failure below comes after the output was opened: it must leave no
# final file and no temporary, only what the directory held before.
o=$TMP/out; mkdir -p "$o"
only() { [ "$(cd "$o" && ls -A | sort | tr '\n' ' ')" = "$1" ]; }
"$B/kutrace_postproc" "$TMP/ev0.trace" -o "$o/x.json" 2>"$TMP/e"; rc=$?
check "damaged block after the JSON was opened: exit 1, no x.json, no x.json.tmp (rc $rc)" \
	eval '[ $rc = 1 ] && only ""'
mkdir "$o/x.json"; : > "$o/x.json/keep"
"$B/kutrace_postproc" $G/basic.trace -o "$o/x.json" --no-html 2>"$TMP/e"; rc=$?
check "the JSON cannot be renamed to its name (a directory): one line naming it, no .tmp" \
	eval '[ $rc = 1 ] && only "x.json " && [ $(wc -l < "$TMP/e") = 1 ] &&
	      grep -q "cannot rename .*x.json.tmp to .*x.json: Is a directory" "$TMP/e"'
rm -rf "$o"/*; mkdir "$o/x.html.tmp"
"$B/kutrace_postproc" $G/basic.trace -o "$o/x.json" 2>"$TMP/e"; rc=$?
if grep -q "viewer template not found" "$TMP/e"; then
	skip "the page cannot be created: no viewer template"
else
	check "the page cannot be created: the JSON is kept, no x.html, and the line says so" \
		eval '[ $rc = 1 ] && only "x.html.tmp x.json " &&
		      grep -q "cannot create .*x.html.tmp: Is a directory; .*x.json was written, no HTML" "$TMP/e"'
fi
# Late rows: the draft (x.json.tmp) is copied to x.json.tmp2; when that
# cannot be made, both go.
rm -rf "$o"/*; mkdir "$o/x.json.tmp2"
KT_JSONOUT_STEP=5 KT_JSONOUT_BUDGET=40 "$B/kutrace_postproc" "$TMP/late.trace" \
	--no-html -o "$o/x.json" 2>"$TMP/e"; rc=$?
check "late rows, the copy cannot be created: no x.json, the draft removed" \
	eval '[ $rc = 1 ] && only "x.json.tmp2 " && grep -q "cannot create .*x.json.tmp2" "$TMP/e"'
rm -rf "$o"/*
"$B/rawtoevent" $G/basic.trace | LC_ALL=C sort -n | "$B/eventtospan" t > "$o/ev.json" 2>/dev/null
"$B/makeself" - "$o/ev.json" "$o/p.html" 2>/dev/null; rc=$?
if [ $rc = 0 ]; then
	printf '{"Comment":"x","events":[[1,2,3' > "$o/bad.json"
	"$B/makeself" - "$o/bad.json" "$o/q.html" 2>"$TMP/e"; rc=$?
	check "makeself on damaged JSON: exit 1, no q.html, no q.html.tmp (rc $rc)" \
		eval '[ $rc = 1 ] && only "bad.json ev.json p.html "'
	mkdir "$o/q.html"
	"$B/makeself" - "$o/ev.json" "$o/q.html" 2>"$TMP/e"; rc=$?
	check "makeself, the page cannot be renamed: one line naming it, no .tmp" \
		eval '[ $rc = 1 ] && only "bad.json ev.json p.html q.html " &&
		      grep -q "cannot rename .*q.html.tmp to .*q.html" "$TMP/e"'
else
	skip "makeself: no viewer template"
fi

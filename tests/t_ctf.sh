#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# kutrace export --ctf (issue 47): the CTF that babeltrace2 reads as an
# LTTng kernel trace.  babeltrace2 reads every export without a word on
# stderr; python3-bt2 counts each event kind per CPU, equal to the JSON's
# rows of that kind; a golden text print; thread states from the CTF equal
# to kutrace_sql's thread_state; the field names of lttng-modules' own
# event definitions; bad input, a DIR in the way and a full disk: one
# line, exit 2, nothing left behind.
. "$(dirname "$0")/lib.sh"
B=$KT_BIN
G=$KT_ROOT/tests/golden
PY=/usr/bin/python3	# Debian's, where python3-bt2 lives
R="$PY $KT_ROOT/tests/ctf/ctf_read.py"
export LC_ALL=C TZ=UTC

if ! command -v babeltrace2 > /dev/null || ! $PY -c 'import bt2' 2> /dev/null; then
	nok "babeltrace2 and python3-bt2 are installed (tests/deps/tools.apt)"
	exit 0
fi

# A directory babeltrace2 reads with nothing on stderr; its text in $1.txt.
bt_reads() {
	babeltrace2 "$2" > "$2.txt" 2> "$2.bterr"
	local rc=$?
	if [ $rc = 0 ] && [ ! -s "$2.bterr" ] && [ -s "$2.txt" ]; then ok "$1: babeltrace2 reads it, no warning"
	else nok "$1: babeltrace2 (rc $rc)"; head -5 "$2.bterr" | sed 's/^/#   /'; fi
}

out=$("$B/kutrace_export" --help 2>&1)
check "--help names --ctf" grep -q -- '--ctf DIR' <<< "$out"

# ---- golden: the small hand-made JSON's export as babeltrace2 prints it ----
"$B/kutrace_export" --ctf "$TMP/basic" "$G/basic.json" 2> "$TMP/e"
eq "basic.json exports, silently" "0:" "$?:$(cat "$TMP/e")"
bt_reads "basic" "$TMP/basic"
babeltrace2 --clock-gmt --no-delta "$TMP/basic" > "$TMP/basic.print" 2>&1
same_file "golden ctf_basic.txt" "$G/ctf_basic.txt" "$TMP/basic.print"
check "metadata says an LTTng kernel trace" grep -q 'domain = "kernel";' "$TMP/basic/metadata"
check "clock offset is the tracebase (2023-11-14 22:13:00 UTC)" \
	grep -q "offset_s = $(date -ud 2023-11-14T22:13:00 +%s);" "$TMP/basic/metadata"

# ---- a synthetic trace: counts per CPU against its JSON rows ----------------
"$B/kutrace_synth" -s 7 -c 4 -d 0.05 --ipc --rpc -o "$TMP/s.trace" > /dev/null 2>&1
"$B/kutrace_postproc" "$TMP/s.trace" -o "$TMP/s.json" --no-html --quiet
"$B/kutrace_export" --ctf "$TMP/s.ctf" "$TMP/s.trace" 2> "$TMP/e"
eq "a raw trace exports (through kutrace_postproc), silently" "0:" "$?:$(cat "$TMP/e")"
bt_reads "synthetic trace" "$TMP/s.ctf"
$R count "$TMP/s.ctf" > "$TMP/s.count"
"$B/kutrace_sql" build "$TMP/s.json" -o "$TMP/s.tables" --quiet
"$B/kutrace_sql" "$TMP/s.tables" --csv -c "select cpu, count(*) - 1 from sched_slice group by 1" |
	tail -n +2 | tr , ' ' > "$TMP/s.slices"
$PY - "$TMP/s.json" "$TMP/s.count" "$TMP/s.slices" <<'PYEOF' > "$TMP/s.cmp"
import collections, json, sys
rows = json.load(open(sys.argv[1]))["events"]
want = collections.Counter()
for r in rows:
    cpu, ev = r[2], r[5]
    if r[0] >= 999 and ev == 0 and r[9] == "":
        continue
    if 0x800 <= ev < 0x1000 and ev not in (0x9FF, 0xDFF):
        k = ["syscall_entry", "syscall_exit"]
    elif ev in (0x9FF, 0xDFF):
        k = ["kutrace_sched_entry", "kutrace_sched_exit"]
    elif ev == 0x5FF:
        k = ["irq_softirq_entry", "irq_softirq_exit"]
    elif 0x500 <= ev < 0x5FF:
        k = ["irq_handler_entry", "irq_handler_exit"]
    elif 0x400 <= ev < 0x500:
        k = ["kutrace_trap_entry", "kutrace_trap_exit"]
    elif ev == 0x206:
        k = ["sched_waking"]
    elif ev == -3:
        k = ["sched_wakeup"]
    elif 0x20A <= ev <= 0x20D:
        k = ["kutrace_mark"]
    elif ev in (0x280, 0x281):
        k = ["kutrace_pc_sample"]
    elif 0x300 <= ev < 0x31A:
        k = ["kutrace_wait"]
        cpu = 65536
    else:
        continue
    for x in k:
        want[(cpu, x)] += 1
for line in open(sys.argv[3]):
    cpu, n = map(int, line.split())
    want[(cpu, "sched_switch")] = n
got = collections.Counter()
for line in open(sys.argv[2]):
    f = line.split()
    if f[0] != "back":
        got[(int(f[0]), f[1])] = int(f[2])
bad = [(k, want[k], got[k]) for k in sorted(want) if want[k] != got[k]]
print("kinds", len(want), "bad", bad)
PYEOF
check "every event kind per CPU equals the JSON's rows ($(cut -c1-60 "$TMP/s.cmp"))" grep -q 'bad \[\]$' "$TMP/s.cmp"
between "sched_switch, syscalls, wakeups, irqs, marks all counted (kinds)" 30 200 \
	"$(awk '{print $2}' "$TMP/s.cmp")"
eq "timestamps never go back within a stream" "back 0" "$(tail -1 "$TMP/s.count")"
n=$(grep -c . "$TMP/s.ctf.txt"); t=$(awk '$1!="back"{s+=$3}END{print s}' "$TMP/s.count")
eq "babeltrace2's text and bt2 see the same events" "$n" "$t"

# ---- the JSON and the store give the same CTF as the trace -----------------
same_streams() {
	local f
	for f in "$1"/channel0_* "$1"/kutrace_nocpu "$1"/statedump; do
		cmp -s "$f" "$2/${f##*/}" || { echo "${f##*/} differs"; return; }
	done
	echo same
}
"$B/kutrace_export" --ctf "$TMP/j.ctf" "$TMP/s.json" 2> /dev/null
eq "the JSON's export has the trace's streams, byte for byte" same "$(same_streams "$TMP/s.ctf" "$TMP/j.ctf")"
# A raw trace's rows come through kutrace_postproc's row stream; rows it
# places late come after the rest there, and the export starts again from
# its JSON.  A tiny row budget forces such rows (t_postproc's way).
"$B/kutrace_synth" -s 7 -c 4 -d 0.1 -x 30,10,25,3 -o "$TMP/late.trace" > /dev/null 2>&1
"$B/kutrace_postproc" "$TMP/late.trace" -o "$TMP/late.json" --no-html --quiet 2> /dev/null
"$B/kutrace_export" --ctf "$TMP/late.j" "$TMP/late.json" 2> /dev/null
KT_JSONOUT_STEP=5 KT_JSONOUT_BUDGET=40 "$B/kutrace_export" --ctf "$TMP/late.t" "$TMP/late.trace" 2> "$TMP/e"
eq "rows placed late: the trace's export, silent, has its JSON's streams" ":same" \
	"$(cat "$TMP/e"):$(same_streams "$TMP/late.j" "$TMP/late.t")"
"$B/kutrace_export" --ctf "$TMP/i.ctf" - < "$TMP/s.json" 2> /dev/null
eq "a JSON on standard input: the same streams" same "$(same_streams "$TMP/s.ctf" "$TMP/i.ctf")"
"$B/kutrace_export" --ctf "$TMP/t.ctf" "$TMP/s.tables" 2> "$TMP/e"
eq "a table store exports, silently" "0:" "$?:$(cat "$TMP/e")"
eq "the store's export has the trace's streams, byte for byte" same "$(same_streams "$TMP/s.ctf" "$TMP/t.ctf")"

# ---- streamed: memory stays small whatever the trace's size ---------------
"$B/kutrace_synth" -s 9 -c 4 -m 3 -o "$TMP/m.trace" > /dev/null 2>&1
"$B/kutrace_postproc" "$TMP/m.trace" -o "$TMP/m.json" --no-html --quiet
jmb=$(( $(stat -c %s "$TMP/m.json") >> 20 ))
/usr/bin/time -f %M -o "$TMP/rss" "$B/kutrace_export" --ctf "$TMP/m.ctf" "$TMP/m.json" 2> /dev/null
cmb=$(( $(du -sk "$TMP/m.ctf" | cut -f1) >> 10 ))
if ldd "$B/kutrace_export" 2> /dev/null | grep -q libasan; then
	skip "peak RSS: AddressSanitizer's shadow memory and quarantine are not the program's"
else
	between "peak RSS (MB) of exporting a ${jmb} MB JSON into ${cmb} MB of CTF stays under 16 MB" 1 16 \
		$(( $(tail -1 "$TMP/rss") >> 10 ))
fi
rm -rf "$TMP/m.trace" "$TMP/m.json" "$TMP/m.ctf"

# ---- thread states from the CTF = kutrace_sql's thread_state ----------------
$R states "$TMP/s.ctf" | sort > "$TMP/st.ctf"
# The CTF knows a run only from a switch in to a switch out: each CPU's
# first and last slice have no switch on one side.
"$B/kutrace_sql" "$TMP/s.tables" --csv -c "
	with b as (select cpu, min(ts) lo, max(ts + dur) hi from sched_slice group by cpu)
	select s.pid, 'running', sum(s.dur) from sched_slice s join b using (cpu)
	where s.pid > 0 and s.ts > b.lo and s.ts + s.dur < b.hi group by 1
	union all
	select pid, state, sum(dur) from thread_state where pid > 0 and state <> 'running'
	group by 1, 2" | tail -n +2 | tr , ' ' | sort > "$TMP/st.sql"
join -j1 <(awk '{print $1"/"$2, $3}' "$TMP/st.sql" | sort) \
	<(awk '{print $1"/"$2, $3}' "$TMP/st.ctf" | sort) -a1 -a2 -e MISSING -o 0,1.2,2.2 > "$TMP/st.j"
bad=$(awk '$2=="MISSING"||$3=="MISSING"||$2-$3>1000||$3-$2>1000' "$TMP/st.j" | head -3)
eq "per thread running/runnable/sleeping from the CTF = thread_state, within 1 us ($(wc -l < "$TMP/st.j") sums)" "" "$bad"
total=$(awk '$2 ~ /running/ {s+=$3} END {print s+0}' "$TMP/st.ctf")
cpu_rep=$("$B/kutrace_sql" "$TMP/s.tables" --csv -c "select sum(dur) from sched_slice where pid > 0" | tail -1)
between "running time seen by the CTF within --report cpu's user+kernel time" 1 "$cpu_rep" "$total"

# ---- field names: lttng-modules' own definitions ---------------------------
deb=$(ls /var/cache/kutrace/lttng/*/lttng-modules-dkms_*.deb 2> /dev/null | head -1)
if [ -z "$deb" ]; then
	skip "field names against lttng-modules: no lttng-modules-dkms .deb cached (make bench-peers fetches it)"
else
	mkdir -p "$TMP/lm" && dpkg -x "$deb" "$TMP/lm"
	E=$(echo "$TMP"/lm/usr/src/lttng-modules-*/include/instrumentation/events)
	$R fields "$TMP/s.ctf" > "$TMP/f.ctf"
	$PY - "$E" "$TMP/f.ctf" <<'PYEOF' > "$TMP/f.cmp"
import re, sys
E = sys.argv[1]
def body(path, start):
    src = open(path).read()
    i = src.index(start)
    j = src.index("\n)\n", i)
    return src[i:j]
def names(text):
    pats = [r"ctf_string\(\s*(\w+)", r"ctf_enum\([^,]+,[^,]+,\s*(\w+)",
            r"ctf_(?:integer|integer_hex|array_text)\([^,]+,\s*(\w+)"]
    return [m.group(1) for p in pats for m in re.finditer(p, text)]
def uniq(xs):
    out = []
    for x in xs:
        if x not in out:
            out.append(x)
    return out
ref = {
    "sched_switch": uniq(names(body(E + "/sched.h", "LTTNG_TRACEPOINT_EVENT(sched_switch,"))),
    "sched_waking": uniq(names(body(E + "/sched.h", "LTTNG_TRACEPOINT_EVENT_CLASS(sched_wakeup_template,"))),
    "irq_handler_entry": uniq(names(body(E + "/irq.h", "LTTNG_TRACEPOINT_EVENT(irq_handler_entry,"))),
    "irq_handler_exit": uniq(names(body(E + "/irq.h", "LTTNG_TRACEPOINT_EVENT(irq_handler_exit,"))),
    "irq_softirq_entry": uniq(names(body(E + "/irq.h", "LTTNG_TRACEPOINT_EVENT_CLASS(irq_softirq,"))),
    "x86_exceptions_page_fault_user": uniq(names(body(E + "/arch/x86/exceptions.h", "LTTNG_TRACEPOINT_EVENT_CLASS("))),
    "lttng_statedump_process_state": uniq(names(body(E + "/lttng-statedump.h", "LTTNG_TRACEPOINT_EVENT(lttng_statedump_process_state,"))),
}
ref["sched_wakeup"] = ref["sched_waking"]
ref["irq_softirq_exit"] = ref["irq_softirq_entry"]
ref["x86_exceptions_page_fault_kernel"] = ref["x86_exceptions_page_fault_user"]
ours = {l.split()[0]: l.split()[1:] for l in open(sys.argv[2])}
for ev, want in sorted(ref.items()):
    if ev not in ours:
        print("absent", ev)
        continue
    extra = [f for f in ours[ev] if f not in want]
    print("ok" if not extra else "extra", ev, *extra)
PYEOF
	while read -r st ev rest; do
		case $st in
		ok) ok "field names of $ev are lttng-modules' own" ;;
		absent) skip "$ev: not in this trace" ;;
		*) nok "$ev has fields lttng-modules does not: $rest" ;;
		esac
	done < "$TMP/f.cmp"
	# A real LTTng kernel trace of the same workload: tests/t_vm_debian.sh (ctf_against_lttng).
fi

# ---- bad input: one line, exit 2, nothing left -----------------------------
nothing_left() { ! ls -d "$1" "$1".part* > /dev/null 2>&1; }
bad() {	# what expect-pattern DIR args...
	local what=$1 pat=$2 dir=$3; shift 3
	"$B/kutrace_export" --ctf "$dir" "$@" > "$TMP/o" 2> "$TMP/e"
	local rc=$?
	if [ $rc = 2 ] && [ "$(wc -l < "$TMP/e")" = 1 ] && grep -q "$pat" "$TMP/e"; then
		ok "$what: one line, exit 2 ($(cut -c1-70 "$TMP/e"))"
	else nok "$what (rc $rc): $(head -3 "$TMP/e")"; fi
}
head -c 20000 "$TMP/s.trace" > "$TMP/cut.trace"
printf 'this is not a trace at all, not even close\n%.0s' $(seq 200) > "$TMP/junk.trace"
bad "a damaged (truncated) trace" 'kutrace_postproc' "$TMP/d1" "$TMP/cut.trace"
check "  ... and no directory left" nothing_left "$TMP/d1"
bad "a file that is no trace" 'kutrace_postproc' "$TMP/d2" "$TMP/junk.trace"
check "  ... and no directory left" nothing_left "$TMP/d2"
head -c 3000 "$TMP/s.json" > "$TMP/cut.json"
bad "a truncated JSON" 'cut.json' "$TMP/d3" "$TMP/cut.json"
check "  ... and no directory left" nothing_left "$TMP/d3"
mkdir -p "$TMP/full" && touch "$TMP/full/keep"
bad "an existing non-empty DIR" 'not an empty directory' "$TMP/full" "$G/basic.json"
check "  ... left as it was" test -f "$TMP/full/keep" -a ! -e "$TMP/full/metadata"
mkdir -p "$TMP/empty"
"$B/kutrace_export" --ctf "$TMP/empty" "$G/basic.json" 2> /dev/null
check "an existing empty DIR is filled" test -s "$TMP/empty/metadata"
bad "a missing input" 'nosuch' "$TMP/d4" "$TMP/nosuch.json"
# A full disk: writes fail past a file-size limit as they would on a full
# file system (EFBIG instead of ENOSPC), caught at the same checks.
(trap '' XFSZ; ulimit -f 16; "$B/kutrace_export" --ctf "$TMP/d5" "$TMP/s.json" > "$TMP/o" 2> "$TMP/e"; echo $? > "$TMP/rc")
if [ "$(cat "$TMP/rc")" = 2 ] && [ "$(wc -l < "$TMP/e")" = 1 ]; then
	ok "a full disk: one line, exit 2 ($(cut -c1-70 "$TMP/e"))"
else nok "a full disk: rc $(cat "$TMP/rc"): $(head -2 "$TMP/e")"; fi
check "  ... and no directory left" nothing_left "$TMP/d5"

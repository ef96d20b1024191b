#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# User events without a system call (docs/spec/FORMATS.md 9), on this
# machine without the module: uevgen's threads and processes write
# through libkutrace's fast path into user buffers in a private
# directory, the controller's side appends them to a kernel trace, and
# the readers merge them.  Exact counts; the QEMU suites check the CPU
# and time against a real kernel trace.
. "$(dirname "$0")/lib.sh"
B=$KT_BIN
GEN=$B/uevgen
if [ ! -x "$GEN" ]; then nok "uevgen is built (make test-progs)"; exit 0; fi

# marks FILE.events: "tid arg time" of every mark_d
marks() { awk '$3 == 525 { print $5, $7, $1 }' "$1"; }
# in_order EXPECTED MARKS: every thread's marks 0..n-1 each once, and in
# order: none later than the next (marks closer than a tick share a time)
in_order() {
	awk 'NR == FNR { if ($1 == "thread") { n[$2] = $4; k[$2] = $3 } next }
	     { t = $1; i = $2 - k[t] * 1048576
	       if (!(t in n) || i < 0 || i >= n[t] || ((t, i) in at)) { print "stray " $0; bad = 1; next }
	       at[t, i] = $3; seen[t]++ }
	     END { for (t in n) {
		     if (seen[t] != n[t]) { print "thread " t ": " seen[t] + 0 " of " n[t]; bad = 1 }
		     for (i = 1; i < n[t]; i++) if (at[t, i] < at[t, i - 1]) { print "thread " t ": mark " i " before " i - 1; bad = 1; break } }
		   exit bad }' "$1" "$2"
}

# Many writers: 4 processes x 4 threads, each mark once and in order.
"$GEN" -o "$TMP/m.trace" -p 4 -t 4 -n 20000 -r 65536 > "$TMP/m.exp" 2> "$TMP/m.err"
"$B/rawtoevent" "$TMP/m.trace" 2> "$TMP/m.rerr" | LC_ALL=C sort -n > "$TMP/m.events"
marks "$TMP/m.events" > "$TMP/m.marks"
check "many writers: 16 threads x 20000 marks, each once, in order" in_order "$TMP/m.exp" "$TMP/m.marks"
check "rawtoevent reports the merge in one line" \
	grep -q "user buffers: 16 threads, 320000 events merged, 0 lost (buffer full), 0 dropped (torn or forged), 0 outside the trace$" "$TMP/m.rerr"
"$B/kutrace_postproc" "$TMP/m.trace" m --no-html -o "$TMP/m.json" 2> "$TMP/m.perr"
check "kutrace_postproc reports the same line" grep -q "user buffers: 16 threads, 320000 events merged" "$TMP/m.perr"
eq "kutrace_postproc: every mark a row, named mark_d" 320000 \
	"$(grep -c '^\[ *[0-9.]*, 0.00000001, [0-9]*, [0-9]*, [0-9]*, 525, [0-9]*, 0, 0, "mark_d"\],\?$' "$TMP/m.json")"
"$B/eventtospan" m < "$TMP/m.events" 2>/dev/null | grep -v randomid > "$TMP/m.pipe.json"
grep -v randomid "$TMP/m.json" > "$TMP/m.nr.json"
same_file "rawtoevent | sort -n | eventtospan gives kutrace_postproc's JSON" "$TMP/m.nr.json" "$TMP/m.pipe.json"
"$B/checktrace" "$TMP/m.trace" > "$TMP/m.check" 2>&1
check "checktrace reads the kernel's blocks and reports the user buffers" \
	grep -q "^info user buffers: 16 threads, 320000 events merged, 0 lost" "$TMP/m.check"

# The same events written into the kernel trace (what the system call
# path records, after a switch to the thread) decode to the same lines
# and rows: user events appear exactly as today's.
"$GEN" -o "$TMP/t.trace" -p 2 -t 2 -n 2000 --names --twin "$TMP/tw.trace" > /dev/null 2>&1
for x in t tw; do
	"$B/rawtoevent" "$TMP/$x.trace" 2>/dev/null | awk '$3 > 512 && $3 < 1024' |
		LC_ALL=C sort > "$TMP/$x.pts"
	"$B/kutrace_postproc" "$TMP/$x.trace" --no-html -o "$TMP/$x.json" 2>/dev/null
	grep -E ', (513|514|525), ' "$TMP/$x.json" > "$TMP/$x.rows"
done
eq "twin: 8008 point events (marks, RPCs)" 8008 "$(wc -l < "$TMP/t.pts")"
same_file "twin: the user buffers' events decode as the same entries in the kernel trace" "$TMP/tw.pts" "$TMP/t.pts"
same_file "twin: and give the same JSON rows" "$TMP/tw.rows" "$TMP/t.rows"

# Signal handlers marking in the middle of marks: nothing lost or torn.
"$GEN" -o "$TMP/g.trace" -p 2 -t 4 -n 50000 -r 262144 --signals > "$TMP/g.exp" 2>/dev/null
"$B/rawtoevent" "$TMP/g.trace" 2> "$TMP/g.rerr" | LC_ALL=C sort -n > "$TMP/g.events"
marks "$TMP/g.events" > "$TMP/g.marks"
check "signals: 8 threads x 50000 marks, each once, in order, among the handlers' marks" \
	in_order "$TMP/g.exp" "$TMP/g.marks"
nsig=$(awk '$1 == "signals" { s += $3 } END { print s + 0 }' "$TMP/g.exp")
eq "signals: every mark a handler recorded is there ($nsig)" "$nsig" \
	"$(awk '$3 == 524 && $10 == "mark_c=sig"' "$TMP/g.events" | wc -l)"
check "signals: nothing dropped" grep -q " 0 dropped" "$TMP/g.rerr"

# A process started before the buffers finds them on its next event.
"$GEN" -o "$TMP/l.trace" -p 1 -t 2 -n 3000 --late > "$TMP/l.exp" 2>/dev/null
"$B/rawtoevent" "$TMP/l.trace" 2>/dev/null | LC_ALL=C sort -n > "$TMP/l.events"
marks "$TMP/l.events" > "$TMP/l.marks"
check "a process started before the buffers: all its marks once they came, in order" \
	in_order "$TMP/l.exp" "$TMP/l.marks"

# Names and RPCs through the buffer: the method named, the RPC on its rows.
"$GEN" -o "$TMP/n.trace" -p 2 -t 2 -n 100 --names > "$TMP/n.exp" 2>/dev/null
"$B/kutrace_postproc" "$TMP/n.trace" n --no-html -o "$TMP/n.json" 2>/dev/null
eq "names: the RPC request of each thread named by its method" 4 \
	"$(grep -c '513, [1-4], 0, 0, "method[0-3]\.[1-4]"' "$TMP/n.json")"
# the RPC of a user event is its thread's (rawtoevent's RPC column), not
# whichever thread last set one on that CPU
"$B/rawtoevent" "$TMP/n.trace" 2>/dev/null > "$TMP/n.events"
eq "names: each thread's 100 marks carry its own RPC (k + 1)" 400 \
	"$(awk '$3 == 525 && $6 == int($7 / 1048576) + 1' "$TMP/n.events" | wc -l)"

# 1 M marks a second per thread for 0.2 s, the ring sized for it
# (2 words a mark): none lost.
"$GEN" -o "$TMP/r.trace" -t 4 -n 200000 -r 524288 --rate 1000000 > "$TMP/r.exp" 2>/dev/null
"$B/rawtoevent" "$TMP/r.trace" 2> "$TMP/r.rerr" | LC_ALL=C sort -n > "$TMP/r.events"
marks "$TMP/r.events" > "$TMP/r.marks"
check "1 M marks/s on 4 threads, buffers sized for it: every mark, in order" in_order "$TMP/r.exp" "$TMP/r.marks"
check "1 M marks/s: 0 lost, 0 dropped" grep -q "4 threads, 800000 events merged, 0 lost (buffer full), 0 dropped" "$TMP/r.rerr"

# Too small: the ring fills, the rest is counted as lost, none dropped.
"$GEN" -o "$TMP/s.trace" -n 1000 -r 512 > /dev/null 2>&1
"$B/rawtoevent" "$TMP/s.trace" 2> "$TMP/s.err" > /dev/null
check "a full buffer: 256 marks kept, 744 counted lost" \
	grep -q "1 threads, 256 events merged, 744 lost (buffer full), 0 dropped" "$TMP/s.err"
# Flight recorder: the newest ring's worth kept, the rest overwritten.
"$GEN" -o "$TMP/w.trace" -n 1000 -r 512 --wrap > /dev/null 2>&1
"$B/rawtoevent" "$TMP/w.trace" 2> "$TMP/w.err" | awk '$3 == 525 { print $7 }' | sort -n > "$TMP/w.args"
eq "wraparound: the newest 256 marks kept, in order" "744 999 256" \
	"$(head -1 "$TMP/w.args") $(tail -1 "$TMP/w.args") $(wc -l < "$TMP/w.args")"
check "wraparound: nothing dropped" grep -q "256 events merged, 0 lost (buffer full), 0 dropped" "$TMP/w.err"

# Crash: every mark that returned before SIGKILL is there, no torn one.
"$GEN" -o "$TMP/k.trace" --kill -p 2 -t 1 -n 100 -r 4194304 > "$TMP/k.exp" 2>/dev/null
done=$(awk '$1 == "killed" { print $4 }' "$TMP/k.exp")
ktid=$(awk '$1 == "killed" { print $2 }' "$TMP/k.exp")
"$B/rawtoevent" "$TMP/k.trace" 2>/dev/null | awk -v t="$ktid" '$3 == 525 && $5 == t { print $7 }' | sort -n > "$TMP/k.args"
n=$(wc -l < "$TMP/k.args")
check "crash: marks 0..$done before the kill all there, in order (got $n)" \
	awk -v d="$done" '$1 != NR - 1 { exit 1 } END { exit !(NR == d || NR == d + 1) }' "$TMP/k.args"

# Damage: every word of the user section flipped in turn must not crash
# the reader, must never add a mark, and a forged CPU is dropped.
python3 - "$TMP/n.trace" "$TMP/d" <<'EOF'
import struct, sys
src, out = sys.argv[1], sys.argv[2]
b = bytearray(open(src, 'rb').read())
magic = struct.pack('<Q', 0xFF4B555553455231)
u = b.find(magic)
assert u > 0 and u % 65536 == 0
# a forged CPU: word 8 + 1 of the first user block is the first entry's word 0
f = bytearray(b)
w0 = struct.unpack_from('<Q', f, u + 64)[0]
struct.pack_into('<Q', f, u + 64, (w0 & (2**56 - 1)) | (200 << 56))
open(out + '.cpu.trace', 'wb').write(f)
# a torn entry: the second entry's word 1 (its tag) zeroed (the first is
# the method's 3-word name)
t = bytearray(b)
struct.pack_into('<Q', t, u + 64 + 4 * 8, 0)
open(out + '.torn.trace', 'wb').write(t)
# random damage over the user section
import random
r = random.Random(7)
for i in range(20):
    g = bytearray(b)
    for k in range(8):
        p = r.randrange(u, len(g))
        g[p] ^= 1 << r.randrange(8)
    open('%s.%d.trace' % (out, i), 'wb').write(g)
EOF
"$B/rawtoevent" "$TMP/d.cpu.trace" 2> "$TMP/d.cpu.err" > /dev/null
check "a forged CPU is dropped and reported" grep -q "1 dropped (torn or forged).*on CPU 200, which the trace has not" "$TMP/d.cpu.err"
"$B/rawtoevent" "$TMP/d.torn.trace" 2> "$TMP/d.torn.err" > /dev/null
check "a torn entry is dropped and reported" grep -q "1 dropped (torn or forged).*no sound entry at position 3 " "$TMP/d.torn.err"
bad=0
base=$("$B/rawtoevent" "$TMP/n.trace" 2>/dev/null | grep -c ' 525 ')
for i in $(seq 0 19); do
	n=$("$B/rawtoevent" "$TMP/d.$i.trace" 2>/dev/null | grep -c ' 525 ')
	rc=${PIPESTATUS[0]}
	if [ "$rc" -gt 1 ] || [ "$n" -gt "$base" ]; then bad=$((bad + 1)); fi
done
eq "20 damaged user sections: no crash, no extra mark" 0 $bad

# A user-block name that is not UTF-8 (issue 48, item 7): four bytes of
# one name word changed.  The name is repaired where it enters (U+FFFD for
# each bad byte): the JSON, the page and the tables are written, and the
# other names are as they were.
"$GEN" -o "$TMP/u8.trace" -p 1 -t 1 -n 5 --names > /dev/null 2>&1
python3 - "$TMP/u8.trace" "$TMP/u8bad.trace" <<'PY'
import sys
d = bytearray(open(sys.argv[1], "rb").read())
i = d.find(b"method0")
d[i + 2:i + 6] = b"\xf1\xff\x80\xc0"
open(sys.argv[2], "wb").write(d)
PY
"$B/kutrace_postproc" "$TMP/u8bad.trace" -o "$TMP/u8bad.json" --no-html > /dev/null 2>&1
check "a name that is not UTF-8: the JSON is valid, the name has U+FFFD for each bad byte" \
	python3 -c 'import json,sys; n={r[9] for r in json.load(open(sys.argv[1]))["events"]}; sys.exit(not "me\ufffd\ufffd\ufffd\ufffd0.1" in n)' "$TMP/u8bad.json"
if [ -x "$B/kutrace_sql" ]; then
	"$B/kutrace_postproc" "$TMP/u8bad.trace" --tables -o "$TMP/u8bad.json" > /dev/null 2> "$TMP/u8.err"
	eq "a name that is not UTF-8: --tables writes the store (exit 0, no error)" "0 0" \
		"$? $(grep -c 'not valid UTF8\|no tables' "$TMP/u8.err")"
	"$B/kutrace_sql" "$TMP/u8bad.tables" --csv -c "select distinct name from span where name like 'me%0.1'" > "$TMP/u8.name"
	check "... whose span.name has it repaired" python3 -c 'import sys; sys.exit(open(sys.argv[1], "rb").read().split(b"\n")[1] != "me\ufffd\ufffd\ufffd\ufffd0.1".encode())' "$TMP/u8.name"
else
	skip "a name that is not UTF-8 in the tables: kutrace_sql is not built"
fi

# The fast path's cost on this machine (a figure, not a check).
"$GEN" --bench 2000000 | sed 's/^/# /'

#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Analysis tools around the JSON (issue 6): golden outputs on small inputs,
# round trips, the checktrace bad-input corpus, and malformed JSON giving
# one error line and a non-zero exit (never a crash) for every tool.
# The expected files in tests/data/tools/ were checked by hand against
# docs/spec/FORMATS.md 6.4-6.8 (see the comments in each tool for the rules).
. "$(dirname "$0")/lib.sh"
D=$KT_ROOT/tests/data/tools
B=$KT_BIN
export LC_ALL=C

JSON_TOOLS="spantotrim spantospan spantoprof samptoname_k samptoname_u kutrace_export"
for t in $JSON_TOOLS checktrace kutrace_dump; do
	if [ ! -x "$B/$t" ]; then nok "$t is built"; continue; fi
	out=$("$B/$t" --help 2>&1); rc=$?
	if [ $rc = 0 ] && echo "$out" | grep -q '^usage: '"$t"; then
		ok "$t --help"
	else
		nok "$t --help (rc $rc)"
	fi
done

# ---- spantotrim -------------------------------------------------------
"$B/spantotrim" 0 < "$D/small.json" > "$TMP/o" 2> "$TMP/e"
same_file "spantotrim 0 is the identity" "$D/small.json" "$TMP/o"
check "spantotrim reports the row count" grep -qx 'spantotrim: 23 events' "$TMP/e"
"$B/spantotrim" 0 999 < "$D/small.json" > "$TMP/o" 2>/dev/null
same_file "spantotrim to the whole range is the identity" "$D/small.json" "$TMP/o"
"$B/spantotrim" 1.00003 1.00006 < "$D/small.json" > "$TMP/o" 2>/dev/null
same_file "spantotrim time window" "$D/small_trim_window.json" "$TMP/o"
"$B/spantotrim" hello < "$D/small.json" > "$TMP/o" 2>/dev/null
same_file "spantotrim label hello../hello (mark_a to mark_b)" "$D/small_trim_hello.json" "$TMP/o"
"$B/spantotrim" a < "$D/small.json" > "$TMP/o" 2>/dev/null
same_file "spantotrim one-letter label (short labels match as written)" "$D/small_trim_a.json" "$TMP/o"
"$B/spantotrim" --label a < "$D/small.json" > "$TMP/o2" 2>/dev/null
same_file "spantotrim --label" "$TMP/o" "$TMP/o2"
# unmakeself prints the JSON on one line: same result as one row per line.
tr '\n' ' ' < "$D/small.json" | "$B/spantotrim" 0 > "$TMP/o" 2>/dev/null
same_file "spantotrim reads one-line JSON (no line limits)" "$D/small.json" "$TMP/o"
# Long names (beyond the original's 64-byte names and 256-byte lines) and
# escapes survive.
long=$(printf 'x%.0s' $(seq 1 300))
sed "s/\"write\"/\"$long\\\\\"q\\\\\\\\\"/" "$D/small.json" > "$TMP/long.json"
"$B/spantotrim" 0 < "$TMP/long.json" > "$TMP/o" 2>/dev/null
same_file "long names and escaped quotes round-trip" "$TMP/long.json" "$TMP/o"
# kutrace JSON may run past 999 s: rows there are kept, the sentinel too.
{ sed -n '1,/"events"/p' "$D/small.json"
  echo '[1000.00000000, 0.00001000, 0, 100, 0, 65636, 0, 0, 3, "worker.100"],'
  echo '[1234.50000000, 0.0, 0, 0, 0, 0, 0, 0, 0, ""]'
  echo ']}'; } > "$TMP/late.json"
"$B/spantotrim" 0 < "$TMP/late.json" > "$TMP/o" 2>/dev/null
same_file "rows past 999 s and a late sentinel survive" "$TMP/late.json" "$TMP/o"

# ---- spantospan -------------------------------------------------------
"$B/spantospan" 20 < "$D/small.json" > "$TMP/o"
same_file "spantospan 20 us (grouped: marks, then CPU by CPU)" "$D/small_span20.json" "$TMP/o"
# Grouped as the original writes it: the mark_a rows, then each CPU's rows
# in ascending CPU order, each group in time order (not globally sorted).
check "spantospan output is grouped per CPU, each group time-sorted" python3 -c '
import sys
rows = [l.rstrip(",\n").strip("[]").split(", ") for l in open(sys.argv[1]) if l.startswith("[") and not l.startswith("[999")]
key = [(-1 if r[5] == "522" else int(r[2]), float(r[0])) for r in rows]
assert key == sorted(key), key
assert [float(r[0]) for r in rows] != sorted(float(r[0]) for r in rows)
' "$TMP/o"
"$B/spantospan" 0 < "$D/small.json" > "$TMP/o"
same_file "spantospan 0 copies rows" "$D/small.json" "$TMP/o"
# The original's optional time range: rows starting in [start, stop).
"$B/spantospan" 0 1.00003 1.00008 < "$D/small.json" > "$TMP/o" 2> "$TMP/e"; rc=$?
"$B/spantotrim" 1.00003 1.00008 < "$D/small.json" > "$TMP/o2" 2>/dev/null
check "spantospan RES START STOP accepted (rc $rc)" test $rc = 0 -a ! -s "$TMP/e"
same_file "spantospan 0 START STOP keeps the rows spantotrim START STOP keeps" "$TMP/o2" "$TMP/o"
"$B/spantospan" 20 1.00003 1.00008 < "$D/small.json" > "$TMP/o"
check "spantospan 20 START STOP: only spans from the range" \
	sh -c "[ \$(grep -c '^\[' '$TMP/o') = 5 ] && ! grep -q 'mark_a' '$TMP/o'"
"$B/spantospan" 20 1.00003 < "$D/small.json" > "$TMP/o" 2>/dev/null
check "spantospan RES START (stop defaults to the end)" grep -q 'mark_a=/a' "$TMP/o"
"$B/spantospan" 20 1 x < "$D/small.json" > /dev/null 2> "$TMP/e"
check "spantospan rejects a bad stop time in one line" test $? = 1 -a "$(wc -l < "$TMP/e")" = 1

# ---- spantoprof -------------------------------------------------------
"$B/spantoprof" < "$D/small.json" > "$TMP/o" 2>/dev/null
same_file "spantoprof (default -row)" "$D/small_prof_row.json" "$TMP/o"
"$B/spantoprof" -row < "$D/small.json" > "$TMP/o" 2>/dev/null
same_file "spantoprof -row" "$D/small_prof_row.json" "$TMP/o"
"$B/spantoprof" -group < "$D/small.json" > "$TMP/o" 2>/dev/null
same_file "spantoprof -group" "$D/small_prof_group.json" "$TMP/o"
"$B/spantoprof" -group -all < "$D/small.json" > "$TMP/o" 2>/dev/null
same_file "spantoprof -group -all" "$D/small_prof_group_all.json" "$TMP/o"
check "spantoprof adds presorted" grep -qx ' "presorted" : 1,' "$TMP/o"
# As the original: -group merges CPUs into CPU_AVG only, writes no
# one-member "_AVG (1)" row, says "N events" on stderr; -row writes an
# empty -idle- row and orders equal names by ascending elapsed time, which
# runs from a thread's first row (its 0x20E label) to its last.
"$B/spantoprof" -group < "$D/small.json" > "$TMP/o" 2> "$TMP/e"
check "spantoprof -group: CPUs in CPU_AVG only" \
	sh -c "grep -q '\"CPU_AVG (2) \"' '$TMP/o' && ! grep -q '\"CPU_[0-9]' '$TMP/o'"
check "spantoprof -group: no one-member _AVG (1) rows" sh -c "! grep -q '_AVG (1)' '$TMP/o'"
check "spantoprof says N events on stderr" grep -qx 'spantoprof: 23 events' "$TMP/e"
"$B/spantoprof" -row < "$D/small.json" > "$TMP/o" 2>/dev/null
check "spantoprof -row: an empty -idle- row" python3 -c '
import sys
rows = [l.rstrip(",\n").strip("[]").split(", ") for l in open(sys.argv[1]) if l.startswith("[") and not l.startswith("[999")]
idle = [r for r in rows if r[9] == "\"-idle- \""]
assert len(idle) == 1 and idle[0][5] == "526"
assert [r for r in rows if r[3] == idle[0][3]] == idle
' "$TMP/o"
{ sed -n '1,/"events"/p' "$D/small.json"
  echo '[  0.50000000, 0.00000000, 0, 10, 0, 526, 0, 0, 0, "sh.10"],'
  echo '[  0.90000000, 0.00001000, 1, 11, 0, 65547, 0, 0, 0, "sh.11"],'
  echo '[  1.00000000, 0.00400000, 0, 10, 0, 65546, 0, 0, 0, "sh.10"],'
  echo '[  1.00400000, 0.00400000, 0, 10, 0, 2049, 1, 0, 0, "write"],'
  echo '[  1.00800000, 0.00020000, 0, 0, 0, 65536, 0, 0, 0, "-idle-"],'
  echo '[999.0, 0.0, 0, 0, 0, 0, 0, 0, 0, ""]'; echo ']}'; } > "$TMP/sh.json"
"$B/spantoprof" -row < "$TMP/sh.json" > "$TMP/o" 2>/dev/null
check "spantoprof -row: equal names by ascending elapsed time (sh.11, then sh.10)" \
	sh -c "grep -o '\"sh\.1[01] \"' '$TMP/o' | tr '\n' ' ' | grep -qx '\"sh.11 \" \"sh.10 \" '"
"$B/spantoprof" -group -all < "$TMP/sh.json" > "$TMP/o" 2>/dev/null
check "spantoprof -group: elapsed from the thread's label row (sh_256ms, sh_8us)" \
	sh -c "grep -q '\"sh_256ms (1) \"' '$TMP/o' && grep -q '\"sh_8us (1) \"' '$TMP/o' && grep -q '\"sh_AVG (2) \"' '$TMP/o'"

# ---- samptoname_k -----------------------------------------------------
"$B/samptoname_k" "$D/kallsyms.txt" < "$D/samples.json" > "$TMP/o"
same_file "samptoname_k" "$D/samples_k.json" "$TMP/o"

# ---- samptoname_u -----------------------------------------------------
# A tiny PIE: its text segment sits at file offset 0x1000, so a mapping
# with offset 0x1000 checks that the offset is honoured (the original
# ignored it).
cat > "$TMP/u.c" <<'EOF'
int alpha(int x) { return x * 3 + 1; }
int beta(int x) { return alpha(x) ^ 7; }
int main(int c, char **v) { (void)v; return beta(c); }
EOF
if cc -O1 -fPIE -pie -o "$TMP/u" "$TMP/u.c" 2>/dev/null && command -v readelf >/dev/null; then
	# executable PT_LOAD: offset and vaddr
	read -r xoff xva < <(readelf -lW "$TMP/u" | awk '$1=="LOAD" && / R E / {print $2, $3; exit}')
	base=$((0x555555554000))
	mstart=$((base + xva))
	addr() { printf '%x' $((mstart + 0x$(nm "$TMP/u" | awk -v s="$1" '$3==s {print $1}') - xva + 3)); }
	{ echo "==== /proc/300/maps"
	  printf '%x-%x r--p 00000000 08:01 1 %s\n' $base $((base + xoff)) "$TMP/u"
	  printf '%x-%x r-xp %08x 08:01 1 %s\n' $mstart $((mstart + 0x1000)) $((xoff)) "$TMP/u"
	  echo "==== /proc/400/maps"
	  printf '%x-%x r-xp %08x 08:01 1 %s\n' $mstart $((mstart + 0x1000)) $((xoff)) "$TMP/u"; } > "$TMP/maps.txt"
	{ sed -n '1,/"events"/p' "$D/small.json"
	  echo "[  2.00000000, 0.00400000, 0, 300, 0, 640, 1, 0, 0, \"PC=$(addr alpha)\"],"
	  echo "[  2.00000000, 0.00400000, 0, 305, 0, 640, 1, 0, 0, \"PC=$(addr beta)\"],"
	  echo "[  2.00000000, 0.00400000, 0, 320, 0, 640, 1, 0, 0, \"PC=$(addr beta)\"],"
	  echo "[  2.00000000, 0.00400000, 0, 400, 0, 640, 1, 0, 0, \"PC=$(addr main)\"],"
	  echo "[  2.00000000, 0.00400000, 0, 400, 0, 641, 1, 0, 0, \"PC=$(addr main)\"],"
	  echo '[999.0, 0.0, 0, 0, 0, 0, 0, 0, 0, ""]'; echo ']}'; } > "$TMP/us.json"
	# H(): alpha 55079, beta 56961, main 49510 (docs/spec/FORMATS.md 6.7 hash)
	{ sed -n '1,/"events"/p' "$D/small.json"
	  echo '[  2.00000000, 0.00400000, 0, 300, 0, 640, 55079, 0, 0, "PC=alpha"],'
	  echo '[  2.00000000, 0.00400000, 0, 305, 0, 640, 56961, 0, 0, "PC=beta"],'
	  echo "[  2.00000000, 0.00400000, 0, 320, 0, 640, 1, 0, 0, \"PC=$(addr beta)\"],"
	  echo '[  2.00000000, 0.00400000, 0, 400, 0, 640, 49510, 0, 0, "PC=main"],'
	  echo "[  2.00000000, 0.00400000, 0, 400, 0, 641, 1, 0, 0, \"PC=$(addr main)\"],"
	  echo '[999.0, 0.0, 0, 0, 0, 0, 0, 0, 0, ""]'; echo ']}'; } > "$TMP/us_expect.json"
	"$B/samptoname_u" "$TMP/maps.txt" < "$TMP/us.json" > "$TMP/o"
	same_file "samptoname_u (file offsets, parent pid within 12)" "$TMP/us_expect.json" "$TMP/o"
else
	skip "samptoname_u: no C compiler or readelf"
fi

# ---- kutrace_export ---------------------------------------------------
"$B/kutrace_export" --perfetto "$D/small.json" > "$TMP/pf.json"
same_file "kutrace_export --perfetto golden" "$D/small_perfetto.json" "$TMP/pf.json"
if command -v python3 >/dev/null; then
	# small.json lets CPU 1's idle overlap -sched- (fine for the viewer);
	# Perfetto needs nested slices, so check the structure on a consistent copy.
	sed 's/1.00002000, 0.00003000, 1, 0, 0, 65536/1.00002000, 0.00001000, 1, 0, 0, 65536/' \
		"$D/small.json" | "$B/kutrace_export" --perfetto > "$TMP/pf.json"
	check "perfetto JSON structure" python3 - "$TMP/pf.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
ev = d["traceEvents"]
ph = {}
for e in ev:
    ph.setdefault(e["ph"], []).append(e)
    assert isinstance(e["pid"], int) and "name" in e
    if e["ph"] in "XisfC":
        assert e["ts"] >= 0
    if e["ph"] == "X":
        assert e["dur"] >= 0 and isinstance(e["tid"], int)
names = {(e["pid"], e["tid"]): e["args"]["name"] for e in ph["M"] if e["name"] == "thread_name"}
assert names[(1, 0)] == "CPU 0" and names[(1, 1)] == "CPU 1"       # a track per CPU
assert names[(2, 100)] == "worker.100" and names[(2, 200)] == "other.200"  # per thread
# every X slice lies on a named track; CPU tracks do not overlap
for e in ph["X"]:
    assert (e["pid"], e["tid"]) in names
for cpu in (0, 1):
    xs = sorted((e["ts"], e["ts"] + e["dur"]) for e in ph["X"] if e["pid"] == 1 and e["tid"] == cpu)
    assert all(a[1] <= b[0] + 1e-6 for a, b in zip(xs, xs[1:])), xs
# one wakeup flow 0 -> 1 with matching ids
s, f = ph["s"], ph["f"]
assert len(s) == 1 and len(f) == 1 and s[0]["id"] == f[0]["id"]
assert (s[0]["tid"], f[0]["tid"]) == (1, 1) and f[0]["bp"] == "e"
# marks as global instants, frequency as a counter
marks = [e for e in ph["i"] if e["cat"] == "mark"]
assert len(marks) == 4 and all(m["s"] == "g" for m in marks)
assert ph["C"][0]["args"]["MHz"] == 2400
EOF
else
	skip "perfetto JSON structure: no python3"
fi

# ---- checktrace and kutrace_dump on raw traces ------------------------
if cc -std=c11 -Wall -Werror -I"$KT_ROOT/include" -o "$TMP/mkraw" "$KT_ROOT/tests/tools/mkraw.c"; then
	"$TMP/mkraw" ok > "$TMP/ok.trace"
	"$B/checktrace" "$TMP/ok.trace" > "$TMP/o"; rc=$?
	if [ $rc = 0 ] && [ "$(tail -1 "$TMP/o")" = "PASS $TMP/ok.trace" ] && ! grep -q '^FAIL\|^Warn' "$TMP/o"; then
		ok "checktrace passes a good trace"
	else
		nok "checktrace passes a good trace (rc $rc)"; sed 's/^/#   /' "$TMP/o" | head
	fi
	check "checktrace reports the busiest interval" grep -q '^info busiest 1/10 s' "$TMP/o"
	out=$("$B/checktrace" "$TMP/ok.trace" -q)
	check "checktrace -q prints only the verdict" test "$out" = "PASS $TMP/ok.trace"
	# damage -> the specific message checktrace must print
	while IFS='|' read -r dmg sev msg; do
		"$TMP/mkraw" "$dmg" > "$TMP/bad.trace"
		"$B/checktrace" "$TMP/bad.trace" > "$TMP/o" 2>&1; rc=$?
		if grep -q "^$sev .*$msg" "$TMP/o" && { [ "$sev" = Warn ] || { [ $rc = 1 ] && [ "$(tail -1 "$TMP/o")" = "FAIL $TMP/bad.trace" ]; }; } &&
		   ! grep -q 'Sanitizer\|runtime error' "$TMP/o"; then
			ok "checktrace: $dmg -> $sev $msg"
		else
			nok "checktrace: $dmg -> $sev $msg (rc $rc)"; sed 's/^/#   /' "$TMP/o" | head -8
		fi
	done <<'EOF'
size|FAIL|file size .* multiple of 8 KiB
short|FAIL|file size 32768 bytes
version2|FAIL|version 2 < 3
startstop|FAIL|start time is not before stop time
gtod|FAIL|gettimeofday .* outside 2016..2050
order|FAIL|block 2 word 0: starts 7500000 ticks before the block in front of it
overrun|FAIL|block 1 word 8190: entry 0x032 of 3 words runs past the block end
notrap|FAIL|no trap events
nosyscall|FAIL|no syscall events
noname|FAIL|no name events
noctxsw|FAIL|no context-switch events
cpu|FAIL|block 1 word 0: CPU number 200 out of range
rate|Warn|counter rate 5.00 ticks/usec outside 25..100
side|FAIL|truncated block\|all-zero block header
EOF
	"$TMP/mkraw" notrap > "$TMP/bad.trace"
	check "checktrace -nopf accepts a trace without traps" bash -c "'$B/checktrace' '$TMP/bad.trace' -nopf -q > /dev/null"
	"$B/kutrace_dump" "$TMP/ok.trace" > "$TMP/o"
	check "kutrace_dump shows name entries as text" grep -q 'name type 0x002 arg 1234 "kutrace_control"' "$TMP/o"
	check "kutrace_dump shows two-word PC samples" grep -q 'pc_sample mhz 2400 pc 0x5555555551a9' "$TMP/o"
	check "kutrace_dump decodes syscalls" grep -q 'ev 800  syscall 0 arg0 3' "$TMP/o"
	check "kutrace_dump shows block headers" grep -q '^==== block 2  cpu 2' "$TMP/o"
	"$TMP/mkraw" cpu > "$TMP/bad.trace"
	"$B/kutrace_dump" "$TMP/bad.trace" > /dev/null 2> "$TMP/e"; rc=$?
	check "kutrace_dump: one-line error on a damaged trace" test $rc != 0 -a "$(wc -l < "$TMP/e")" = 1
else
	nok "mkraw test helper builds"
fi

# ---- malformed input: one line on stderr, non-zero exit, no crash -----
mal=$TMP/mal
mkdir -p "$mal"
hdr=$(sed -n '1,/"events"/p' "$D/small.json")
printf '' > "$mal/empty.json"
printf 'not json at all\n' > "$mal/garbage.json"
printf '%s\n' "$hdr" > "$mal/truncated.json"
{ printf '%s\n' "$hdr"; echo '[  1.0, 0.1, 0, 1, 0, 2049, 0, 0, 0, "x"],'; } > "$mal/no_end.json"
{ printf '%s\n' "$hdr"; echo '[  1.0, 0.1, 0, 1, 0, 2049, 0, 0, "x"],'; echo ']}'; } > "$mal/short_row.json"
{ printf '%s\n' "$hdr"; echo '[  1.0, 0.1, 0, 1, 0, "read", 0, 0, 0, "x"],'; echo ']}'; } > "$mal/string_field.json"
{ printf '%s\n' "$hdr"; echo '[  1.0, 0.1, 0, 1, 0, 2049, 0, 0, 0, "x],'; echo ']}'; } > "$mal/open_string.json"
{ printf '%s\n' "$hdr"; echo '[  1.0, 0.1, 0, 1, 0, 2049, 0, 0, 0, "x"]]]'; echo '}'; } > "$mal/extra_bracket.json"
{ printf '%s\n' "$hdr"; echo '{"a": 1},'; echo ']}'; } > "$mal/object_row.json"
{ printf '%s\n' "$hdr"; echo '[999.0, 0.0, 0, 0, 0, 0, 0, 0, 0, ""]'; echo ']} trailing'; } > "$mal/trailing.json"
printf '{"title" : "x" "events" : []}\n' > "$mal/missing_comma.json"
printf '{"title" : "x"}\n' > "$mal/no_events.json"
printf '{"events" : [[1e400, 0, 0, 0, 0, 0, 0, 0, 0, ""]]}\n' > "$mal/huge_number.json"
head -c 3000 "$D/small.json" | tr 'e' '\001' > "$mal/control_chars.json"
printf '\xff\xfe{"events":[]}\n' > "$mal/bad_utf8.json"
args_of() {
	case $1 in
	spantotrim) echo 0 ;; spantospan) echo 10 ;; spantoprof) echo -row ;;
	samptoname_k) echo "$D/kallsyms.txt" ;; samptoname_u) echo "$TMP/maps.txt" ;;
	kutrace_export) echo --perfetto ;;
	esac
}
# (samptoname_u refuses maps without a mapping line; the binary may be missing)
[ -f "$TMP/maps.txt" ] || printf '==== /proc/1/maps\n1000-2000 r-xp 00000000 00:00 0 /nonexistent\n' > "$TMP/maps.txt"
for t in $JSON_TOOLS; do
	bad=""
	for f in "$mal"/*.json; do
		"$B/$t" $(args_of "$t") < "$f" > /dev/null 2> "$TMP/e"; rc=$?
		lines=$(wc -l < "$TMP/e")
		if [ $rc = 0 ] || [ $rc -ge 128 ] || [ "$lines" != 1 ] ||
		   grep -q 'Sanitizer\|runtime error' "$TMP/e" || ! grep -q "^$t: " "$TMP/e"; then
			bad="$bad $(basename "$f")(rc=$rc,lines=$lines)"
		fi
	done
	if [ -z "$bad" ]; then ok "$t: malformed JSON -> one-line error, exit 1"; else nok "$t: malformed JSON:$bad"; fi
done
# bad arguments and unreadable side files
"$B/spantospan" abc < "$D/small.json" > /dev/null 2> "$TMP/e"
check "spantospan rejects a bad resolution" test $? = 1 -a "$(wc -l < "$TMP/e")" = 1
printf 'zzz\n' > "$TMP/badsyms.txt"
"$B/samptoname_k" "$TMP/badsyms.txt" < "$D/samples.json" > /dev/null 2> "$TMP/e"
check "samptoname_k rejects a bad kallsyms file" test $? = 1 -a "$(wc -l < "$TMP/e")" = 1
printf '1000-2000 r-xp 0 0 0 /x\n' > "$TMP/badmaps.txt"
"$B/samptoname_u" "$TMP/badmaps.txt" < "$D/samples.json" > /dev/null 2> "$TMP/e"
check "samptoname_u rejects maps without a pid line" test $? = 1 -a "$(wc -l < "$TMP/e")" = 1
"$B/checktrace" "$TMP/nonexistent.trace" > /dev/null 2> "$TMP/e"
check "checktrace: missing file -> one-line error" test $? = 1 -a "$(wc -l < "$TMP/e")" = 1
# progress indicator: silent when stderr is not a terminal
"$B/spantoprof" < "$D/small.json" > /dev/null 2> "$TMP/e"
check "no progress output when not on a terminal" test "$(cat "$TMP/e")" = "spantoprof: 23 events"
# Deterministic damage: 40 copies of small.json with bytes overwritten or
# cut; every tool must exit 0 or 1 with at most one stderr line, no crash.
if command -v python3 >/dev/null; then
	python3 - "$D/small.json" "$mal" <<'PYEOF'
import random, sys
src = open(sys.argv[1], "rb").read()
rnd = random.Random(6)
for i in range(40):
    b = bytearray(src)
    for _ in range(rnd.randint(1, 4)):
        p = rnd.randrange(len(b))
        b[p] = rnd.choice(b'[]{},"\\: 0123456789.-eE\n\x00\xff')
    if i % 5 == 0:
        b = b[: rnd.randrange(len(b))]
    open("%s/fuzz%02d.dat" % (sys.argv[2], i), "wb").write(b)
PYEOF
	for t in $JSON_TOOLS; do
		bad=""
		for f in "$mal"/fuzz*.dat; do
			"$B/$t" $(args_of "$t") < "$f" > /dev/null 2> "$TMP/e"; rc=$?
			if [ $rc -gt 1 ] || [ "$(wc -l < "$TMP/e")" -gt 1 -a "$t" != spantotrim ] ||
			   grep -q 'Sanitizer\|runtime error' "$TMP/e"; then
				bad="$bad $(basename "$f")(rc=$rc)"
			fi
		done
		if [ -z "$bad" ]; then ok "$t survives damaged JSON"; else nok "$t damaged JSON:$bad"; fi
	done
else
	skip "damaged JSON: no python3"
fi

# ---- makeself with the original's template ----------------------------
# show_cpu.html as shipped: d3 inline after <!-- selfcontained0 -->, the
# JSON spliced in at <!-- selfcontained1 --> as var myString (docs/spec/VIEWER.md).
{ echo '<!DOCTYPE html><html><head><meta charset="utf-8"><title>KUtrace</title>'
  echo '<!-- selfcontained0 -->'
  echo '<script>// https://d3js.org v4.13.0 Copyright 2018 Mike Bostock'
  echo '!function(t,n){"object"==typeof exports?n(exports):n(t.d3=t.d3||{})}(this,function(t){"use strict";t.version="4.13.0"});</script>'
  echo '</head><body><div id="svg"></div><script>'
  echo '<!-- selfcontained1 -->'
  echo "var myString = '';"
  echo '<!-- selfcontained2 -->'
  echo 'var data = JSON.parse(myString);'
  echo '</script></body></html>'; } > "$TMP/show_cpu.html"
"$B/makeself" "$TMP/show_cpu.html" "$D/small.json" "$TMP/orig_tpl.html" 2> "$TMP/e"; rc=$?
check "makeself accepts the original show_cpu.html template (rc $rc)" test $rc = 0 -a -s "$TMP/orig_tpl.html"
check "makeself says in one line that the built-in viewer is used" \
	bash -c "[ \$(wc -l < '$TMP/e') = 1 ] && grep -q 'original KUtrace template.*built-in viewer' '$TMP/e'"
"$B/makeself" "$B/../share/kutrace/viewer.html" "$D/small.json" "$TMP/builtin.html" 2>/dev/null
check "the page is the built-in viewer's page" cmp -s "$TMP/orig_tpl.html" "$TMP/builtin.html"
"$B/unmakeself" "$TMP/orig_tpl.html" > "$TMP/o" 2>/dev/null
same_file "the page holds the trace (unmakeself gives it back)" "$D/small.json" "$TMP/o"
# The book's pages that hold no spans (issue 14): an RPC page and a points
# page are refused in one line naming the kind, with nothing on stdout.
V=$KT_ROOT/tests/data/viewer
for page in "rpc_q:an RPC page" "points_disk:a points page"; do
	f=${page%%:*} kind=${page#*:}
	for t in $JSON_TOOLS; do
		"$B/$t" $(args_of "$t") < "$V/$f.json" > "$TMP/o" 2> "$TMP/e"; rc=$?
		if [ $rc = 1 ] && [ "$(wc -l < "$TMP/e")" = 1 ] && grep -q "^$t: .*: $kind .*$t cannot use it" "$TMP/e" &&
		   [ ! -s "$TMP/o" ]; then
			ok "$t refuses $kind ($f.json) before any output"
		else
			nok "$t on $f.json: rc=$rc, $(wc -c < "$TMP/o") bytes out, stderr: $(head -2 "$TMP/e")"
		fi
	done
done

# ---- one escaper: odd names come out of every tool in the same bytes
# (lib/rows/json.c kt_json_escape_mem): the input spells them in other ways
# (raw '<', \u escapes for DEL and é); every writer gives the canonical
# form: '<' as \u003c, DEL as \u007f, é as UTF-8, \n and \t by letter.
# The rows written out, as the tools print rows (as t_postproc's edges).
sed -n '1,14p' "$D/small.json" > "$TMP/odd.json"
cat >> "$TMP/odd.json" <<'JSON'
[  1.00000000, 0.00000100, 0, 100, 0, 522, 1, 0, 0, "a<b"],
[  1.00000200, 0.00000100, 0, 100, 0, 522, 2, 0, 0, "\u003c/script>"],
[  1.00000400, 0.00000100, 0, 100, 0, 522, 3, 0, 0, "q\"uote\\"],
[  1.00000600, 0.00000100, 0, 100, 0, 522, 4, 0, 0, "tab\tnl\n"],
[  1.00000800, 0.00000100, 0, 100, 0, 522, 5, 0, 0, "\u0001ctl\u007Fdel"],
[  1.00001000, 0.00000100, 0, 100, 0, 522, 6, 0, 0, "caf\u00e9"],
[999.0, 0.0, 0, 0, 0, 0, 0, 0, 0, ""]
]}
JSON
printf '%s\n' 'a\u003cb' '\u003c/script>' 'q\"uote\\' 'tab\tnl\n' '\u0001ctl\u007fdel' "café" > "$TMP/odd.want"
names() { grep '^\[  1\.0000' "$1" | sed 's/^[^"]*"//; s/"\],$//'; }
"$B/spantotrim" 0 < "$TMP/odd.json" > "$TMP/odd.trim" 2>/dev/null
same_file "spantotrim writes odd names in the one escaped form" "$TMP/odd.want" <(names "$TMP/odd.trim")
"$B/spantospan" 0 < "$TMP/odd.json" > "$TMP/odd.span" 2>/dev/null
same_file "spantospan writes them byte for byte as spantotrim" "$TMP/odd.trim" "$TMP/odd.span"
"$B/makeself" - "$TMP/odd.trim" > "$TMP/odd.html" 2>/dev/null
"$B/unmakeself" "$TMP/odd.html" > "$TMP/odd.back" 2>/dev/null
same_file "a page of them gives the same bytes back (unmakeself)" "$TMP/odd.trim" "$TMP/odd.back"
"$B/kutrace_export" --perfetto "$TMP/odd.trim" > "$TMP/odd.exp" 2>/dev/null
miss=""
while IFS= read -r n; do grep -qF "\"$n\"" "$TMP/odd.exp" || miss="$miss [$n]"; done < "$TMP/odd.want"
eq "kutrace_export names them in the same escaped form" "" "$miss"
"$B/samptoname_k" "$D/kallsyms.txt" < "$TMP/odd.trim" > "$TMP/odd.samp" 2>/dev/null
same_file "samptoname_k writes them byte for byte as spantotrim" "$TMP/odd.want" <(names "$TMP/odd.samp")
# The span writer (eventtospan, kutrace_postproc: struct kt_row) gives the
# bytes the tools give (struct kt_jrow): a thread named with a quote, '<',
# a backslash, DEL, UTF-8, a control byte and a byte that is not UTF-8.
sed 's/hello/q"u<o\\te\x7f\xc3\xa9\x01\xff/g' "$KT_ROOT/tests/golden/basic.events" > "$TMP/odd.events"
"$B/eventtospan" odd < "$TMP/odd.events" > "$TMP/odd.ets" 2>/dev/null
eq "eventtospan escapes the odd thread name as the tools do" \
	$'"q\\"u\\u003co\\\\te\\u007f\xc3\xa9\\u0001\xef\xbf\xbd.1234"],' \
	"$(grep -m1 -o '"q[^ ]*$' "$TMP/odd.ets")"
"$B/spantotrim" 0 < "$TMP/odd.ets" > "$TMP/odd.ets.trim" 2>/dev/null
same_file "spantotrim writes eventtospan's rows byte for byte" "$TMP/odd.ets" "$TMP/odd.ets.trim"
"$B/makeself" - "$TMP/odd.ets" > "$TMP/odd.ets.html" 2>/dev/null
"$B/unmakeself" "$TMP/odd.ets.html" > "$TMP/odd.ets.back" 2>/dev/null
same_file "a page of eventtospan's rows gives them back byte for byte" "$TMP/odd.ets" "$TMP/odd.ets.back"

# A time more precise than 10 ns, or spelled otherwise, stays what it says
# until a row is written: the line rounds the double as %12.8f does
# (1.000000005 is just below, so 1.00000000), kutrace_export keeps the
# nanoseconds (why the tools' row holds seconds, not nsec10: jsonrows.h).
{ sed -n '1,14p' "$D/small.json"
  echo '[  1.000000005, 0.0000000149, 0, 100, 0, 2049, 1, 0, 0, "write"],'
  echo '[1.5e0, 1E-8, 0, 100, 0, 2049, 1, 0, 0, "read"],'
  echo '[999.0, 0.0, 0, 0, 0, 0, 0, 0, 0, ""]'; echo ']}'; } > "$TMP/ns.json"
"$B/spantotrim" 0 < "$TMP/ns.json" 2>/dev/null | grep '"write"\|"read"' > "$TMP/ns.trim"
printf '%s\n' '[  1.00000000, 0.00000001, 0, 100, 0, 2049, 1, 0, 0, "write"],' \
	'[  1.50000000, 0.00000001, 0, 100, 0, 2049, 1, 0, 0, "read"],' > "$TMP/ns.want"
same_file "rows print a time's double as %12.8f rounds it" "$TMP/ns.want" "$TMP/ns.trim"
eq "kutrace_export keeps a time's nanoseconds" "1000000.005 0.015" \
	"$("$B/kutrace_export" --perfetto "$TMP/ns.json" 2>/dev/null | grep -o '"name":"write","ts":[0-9.]*,"dur":[0-9.]*' | head -1 | sed 's/.*"ts":\([0-9.]*\),"dur":\([0-9.]*\)/\1 \2/')"

# ---- command lines (lib/tool/tool_args.c) --------------------------------------
# Every program parsed by the one table: an unknown option, or a prefix of
# one (never taken for it), prints the usage to stderr and exits 2 with
# nothing on stdout; -h, --help and -help print it to stdout and exit 0
# (checktrace's -h is the original's hex dump: only --help there).
G=$KT_ROOT/tests/golden
for t in kutrace_postproc rawtoevent eventtospan makeself checktrace kutrace_dump \
	 kutrace_export spantoprof; do
	for bad in -zz --zz -x; do
		"$B/$t" $bad < /dev/null > "$TMP/o" 2> "$TMP/e"; rc=$?
		check "$t $bad: usage on stderr, nothing on stdout, exit 2 (rc $rc)" \
			eval '[ $rc = 2 ] && [ ! -s "$TMP/o" ] && head -1 "$TMP/e" | grep -q "^usage: $t"'
	done
	for h in --help -help $([ $t = checktrace ] || echo -h); do
		"$B/$t" $h < /dev/null > "$TMP/o" 2> "$TMP/e"; rc=$?
		check "$t $h: usage on stdout, exit 0 (rc $rc)" \
			eval '[ $rc = 0 ] && [ ! -s "$TMP/e" ] && head -1 "$TMP/o" | grep -q "^usage: $t"'
	done
done
prefix() { # what program args...: exit 2, usage (a prefix is no option)
	local what=$1; shift
	"$B/$@" < /dev/null > /dev/null 2> "$TMP/e"; rc=$?
	check "$what: refused, exit 2 (rc $rc)" eval '[ $rc = 2 ] && grep -q "^usage:" "$TMP/e"'
}
prefix "kutrace_dump -al (a prefix of -all)" kutrace_dump -al $G/basic.trace
prefix "spantoprof -gr (a prefix of -group)" spantoprof -gr
cp $G/basic.trace "$TMP/pre.trace"
prefix "kutrace_postproc --no-h (a prefix of --no-html)" kutrace_postproc --no-h "$TMP/pre.trace"
prefix "checktrace -nop (a prefix of -nopf)" checktrace -nop $G/basic.trace
prefix "checktrace with two files" checktrace $G/basic.trace $G/basic.trace
prefix "rawtoevent -maxblock without its value" rawtoevent $G/basic.trace -maxblock
prefix "makeself with four arguments" makeself - a b c
# The original spellings still work, anywhere on the line.
"$B/rawtoevent" -maxblock 1 $G/basic.trace > "$TMP/o" 2>/dev/null; rc=$?
check "rawtoevent -maxblock 1 FILE (option first)" eval '[ $rc = 0 ] && grep -q "^# ## VERSION" "$TMP/o"'
"$B/rawtoevent" $G/basic.trace --maxblock=1 > "$TMP/o2" 2>/dev/null
same_file "rawtoevent --maxblock=1: the same events" "$TMP/o" "$TMP/o2"
"$B/rawtoevent" - < $G/basic.trace > "$TMP/o2" 2>/dev/null
"$B/rawtoevent" $G/basic.trace > "$TMP/o" 2>/dev/null
same_file "rawtoevent - reads stdin" "$TMP/o" "$TMP/o2"
"$B/checktrace" -nopf -q $G/basic.trace > "$TMP/o"; rc=$?
eq "checktrace -nopf -q FILE: the verdict only" "0 PASS $G/basic.trace" "$rc $(cat "$TMP/o")"
"$B/checktrace" $G/basic.trace -h > "$TMP/o"
check "checktrace FILE -h: the hex dump" grep -qE '^ +0 +0 [0-9a-f]{16}$' "$TMP/o"
"$B/kutrace_dump" -all $G/basic.trace > "$TMP/o"
check "kutrace_dump -all: zero words shown" bash -c '! grep -q "zero words" "$1"' _ "$TMP/o"
"$B/spantoprof" -group -all -v < "$D/small.json" > "$TMP/o" 2>/dev/null; rc=$?
"$B/spantoprof" -all -v -row -group < "$D/small.json" > "$TMP/o2" 2>/dev/null
check "spantoprof -group -all -v: runs, and the last of -row/-group wins" \
	eval '[ $rc = 0 ] && cmp -s "$TMP/o" "$TMP/o2"'

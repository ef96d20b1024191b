#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Hostile input (issue 20): every fuzz-found input in tests/fuzz/crashes/
# and every hostile case the issue lists ends with a clear one-line error
# and exit != 0, or with correct output - never a crash, a hang, a
# sanitizer report, a half-written output file or invalid JSON.  Under
# `make test-san` the same checks run on the ASan+UBSan build, which is
# what catches the undefined-behaviour cases.  Then the libFuzzer targets
# replay their corpus and run a few seconds each (tests/fuzz/run.sh), and
# a mutation run feeds damaged inputs to every program (mutate.sh).
. "$(dirname "$0")/lib.sh"
B=$(cd "$KT_BIN" && pwd)
C=$KT_ROOT/tests/fuzz/crashes
export LC_ALL=C
# A sanitizer report must not look like a normal error exit (1).
export ASAN_OPTIONS=exitcode=86:detect_leaks=0 UBSAN_OPTIONS=exitcode=87:halt_on_error=1

# run LIMIT_S CMD...: runs in $TMP/w with stdin from $IN (default /dev/null);
# sets rc (124 = timeout) and leaves stdout in $TMP/out, stderr in $TMP/err.
run() {
	local lim=$1; shift
	mkdir -p "$TMP/w"
	(cd "$TMP/w" && timeout -k 2 "$lim" "$@" < "${IN:-/dev/null}" > "$TMP/out" 2> "$TMP/err")
	rc=$?
}
sane() { ! grep -qE 'Sanitizer|runtime error|stack-overflow' "$TMP/err" && [ "$rc" -lt 124 ]; }
# refused "what" PATTERN: exit 1, no sanitizer report, one error line matching PATTERN
refused() {
	if [ "$rc" = 1 ] && sane && [ "$(wc -l < "$TMP/err")" = 1 ] && grep -qE -- "$2" "$TMP/err"; then
		ok "$1"
	else
		nok "$1 (rc $rc)"; head -3 "$TMP/err" | sed 's/^/#   /'
	fi
}
valid_json() { python3 -c 'import json,sys; json.load(open(sys.argv[1], encoding="utf-8"))' "$1" 2>/dev/null; }
no_leftovers() { [ -z "$(cd "$TMP/w" && ls -A | grep -vxF -f <(printf '%s\n' "$@"))" ]; }

# ---- the fuzz-found inputs (issue 20 findings 1-8) ----------------------
w=$TMP/w; mkdir -p "$w"
rm -rf "$w"/*; cp "$C/unmakeself_nglue_heap_overflow.html" "$w/p.html"
run 10 "$B/unmakeself" p.html
refused "1: unmakeself, nglue 0xFFFFFFFF (heap overflow) is refused" 'p.html: embedded data'
cp "$C/unmakeself_nglue_alloc.html" "$w/p.html"
run 10 "$B/unmakeself" p.html
refused "1: unmakeself, nglue makes it allocate 32 GB: refused before allocating" 'p.html: embedded data'
cp "$C/unmakeself_nrows_hang.html" "$w/p.html"
run 10 "$B/unmakeself" p.html
refused "2: unmakeself, 687,865,902 rows claimed by a 2 KB page: refused at once" 'p.html: embedded data'
check "2: ... and nothing written" test ! -s "$TMP/out"
cp "$C/unmakeself_pred_overflow.html" "$w/p.html"
run 10 "$B/unmakeself" p.html
refused "5: unmakeself, signed varint overflow in the page decoder" 'p.html: embedded data'

# A page whose compressed data inflates to 1 GB of zeros after a valid
# header: inflating stops at the size the header declares.
python3 - "$w/zero.html" <<'EOF'
import base64, struct, sys, zlib
hdr = b'KTV2' + struct.pack('<II', 1, 11) + struct.pack('<11I', *([1] * 11))
z = zlib.compressobj(9)
parts = [z.compress(hdr)]
chunk = bytes(1 << 20)
for _ in range(1024):
    parts.append(z.compress(chunk))
parts.append(z.flush())
b = base64.b64encode(b''.join(parts)).decode()
open(sys.argv[1], 'w').write('<html><script type="application/octet-stream" id="ktdata" '
                             'data-enc="deflate" data-rows="1">' + b + '</script></html>\n')
EOF
start=$(date +%s%N)
run 20 "$B/unmakeself" zero.html
ms=$(( ($(date +%s%N) - start) / 1000000 ))
refused "2: a 1 MB page inflating to 1 GB is refused" '(embedded|compressed) data'
check "2: ... without inflating it all (${ms} ms < 3000)" test "$ms" -lt 3000

rm -rf "$w"/*
IN=$C/eventtospan_dur_overflow.events run 10 "$B/eventtospan"
refused "5: eventtospan, duration 2^64: refused" 'line 2: time or duration out of range'
IN=$C/eventtospan_json_int64min.events run 10 "$B/eventtospan"
check "5: eventtospan, arg INT64_MIN: valid JSON, no UB" eval '[ $rc = 0 ] && sane && valid_json "$TMP/out" && grep -q -- "-9223372036854775808" "$TMP/out"'
# fuzz_events, 27 Nov: a lock event whose name is shorter than the
# "acq_"/"rel_" the decoder puts before a lock's name was read past its end
IN=$C/eventtospan_short_lock_name.events run 10 "$B/eventtospan"
check "5: eventtospan, lock events named \"ab\": valid JSON, no overflow, the hold is \"=ab\"" \
	eval '[ $rc = 0 ] && sane && valid_json "$TMP/out" && grep -q "642, 7, 0, 0, \"=ab\"" "$TMP/out"'
IN=$C/eventtospan_nul_bytes.events run 10 "$B/eventtospan"
refused "7: eventtospan, 8 NUL bytes: refused" 'line 1: a NUL byte'
head -c 1M /dev/zero > "$TMP/zero"
IN=$TMP/zero run 10 "$B/eventtospan"
refused "7: eventtospan, 1 MB of /dev/zero: refused" 'NUL byte'
IN=/dev/null run 10 "$B/eventtospan"
refused "7: eventtospan, empty input: refused" 'no event text'
IN=$C/eventtospan_stack_overflow.events run 10 "$B/eventtospan"
check "3: eventtospan, trap-sched-trap-return: no endless recursion, 3 spans" eval '[ $rc = 0 ] && sane && valid_json "$TMP/out" && grep -qx "eventtospan: 3 spans" "$TMP/err"'

cp "$C/postproc_span_recursion.trace" "$w/r.trace"
run 10 "$B/kutrace_postproc" r.trace --no-html
check "3: kutrace_postproc, the same on one CPU: valid JSON" eval '[ $rc = 0 ] && sane && valid_json "$w/r.json"'

rm -rf "$w"/*; cp "$C/raw_timebase_float_cast.trace" "$w/t.trace"
run 10 "$B/kutrace_postproc" t.trace
refused "5: a block time 9.6e18 ticks away: refused, no event at INT64_MIN" 'block 0 word 0: start time .* centuries'
check "4: ... and no JSON, no temporary file left" no_leftovers t.trace
run 10 "$B/rawtoevent" t.trace
refused "5: rawtoevent refuses it too" 'centuries'

# Issue 34 finding 1: block 0's start counter (word 2) is 2^63 + 5 with a
# stop counter at a plausible rate after it, in a one-block trace, so the
# pair repair finds nothing sound and leaves the pair; the tick at the base
# minute then overflowed (UBSan; without it, a wrong "word 0" error).
rm -rf "$w"/*; cp "$C/raw_timebase_start_ctr_2p63.trace" "$w/t.trace"
for t in kutrace_postproc rawtoevent; do
	run 10 "$B/$t" t.trace
	refused "34.1: $t, start counter 2^63 + 5: refused, naming block 0 word 2" \
		'^[a-z_]+: t\.trace: block 0 word 2: start counter 0x8000000000000005 is 2\^63 or more'
	check "34.1: ... no output file left ($t)" no_leftovers t.trace
done

rm -rf "$w"/*; cp "$C/makeself_11digit_overflow.json" "$w/in.json"
run 10 "$B/makeself" - in.json out.html
check "5: makeself, 11-digit numbers: a page, no UB" eval '[ $rc = 0 ] && sane && test -s "$w/out.html"'
run 10 "$B/unmakeself" out.html
check "5: ... whose data comes back byte for byte" cmp -s "$TMP/out" "$w/in.json"

# 64 KB of random bytes that happen to pass the block-0 header check
# (found by the mutation run below): kutrace_dump still dumps it, but
# says the block is damaged and exits 1, as checktrace fails it.
rm -rf "$w"/*; cp "$C/dump_random_bytes.trace" "$w/t.trace"
run 10 "$B/kutrace_dump" t.trace
refused "10: kutrace_dump on random bytes with a plausible header: exit 1" 't.trace: 1 damaged block, dumped anyway \(first: block 0 word 14: garbage word'
check "10: ... the dump marks the block DAMAGED" grep -q '^     DAMAGED block 0 word 14' "$TMP/out"
run 10 "$B/checktrace" t.trace
check "10: ... checktrace fails it too (rc $rc)" test "$rc" = 1

rm -rf "$w"/*; cp "$C/checktrace_busy_alloc.trace" "$w/t.trace"
run 10 "$B/checktrace" t.trace
check "6: checktrace, block 1 a million seconds later: done in < 10 s (rc $rc)" sane

# The fuzz-found trace is damaged besides (kutrace_postproc refuses it);
# the same name byte put into a sound trace shows the rule.
rm -rf "$w"/*; cp "$C/postproc_invalid_utf8_name.trace" "$w/t.trace"
run 20 "$B/kutrace_postproc" t.trace
check "8: the fuzz-found trace: no crash, no invalid JSON (rc $rc)" eval 'sane && { [ $rc != 0 ] || valid_json "$w/t.json"; }'
"$B/kutrace_synth" -s 4 -c 2 -d 0.01 -o "$w/u.trace" >/dev/null 2>&1
python3 -c 'import sys; p=sys.argv[1]; d=open(p,"rb").read(); open(p,"wb").write(d.replace(b"bash", b"b\xffsh", 1))' "$w/u.trace"
run 20 "$B/kutrace_postproc" u.trace
check "8: a thread name with byte 0xFF: valid UTF-8 JSON" eval '[ $rc = 0 ] && sane && valid_json "$w/u.json"'
check "8: ... the byte written as U+FFFD" grep -q $'b\xef\xbf\xbdsh' "$w/u.json"
IN=$w/u.json run 10 "$B/spantotrim" 0
check "8: ... and the JSON tools read it" eval '[ $rc = 0 ] && diff <(grep "^\[" "$TMP/out") <(grep "^\[" "$w/u.json") >/dev/null'

# ---- findings 4, 7, 9: programs on hostile arguments and files ----------
"$B/kutrace_synth" -s 3 -c 2 -d 0.02 -o "$TMP/s.trace" >/dev/null 2>&1
rm -rf "$w"/*; mkdir "$w/d.trace"
run 10 "$B/kutrace_postproc" d.trace
refused "4: kutrace_postproc DIR without chunks: refused" 'd.trace: a directory without chunk files'
check "4: ... no temporary file left" no_leftovers d.trace
run 10 "$B/rawtoevent" d.trace
refused "4: rawtoevent DIR without chunks: refused" 'd.trace: a directory without chunk files'
cp "$TMP/s.trace" "$w/s.trace"
# A bad value is a usage error (exit 2), in one line.
for m in 0 abc -3 0x; do
	run 10 "$B/rawtoevent" s.trace -maxblock $m
	check "4: rawtoevent -maxblock $m: refused in one line, exit 2 (rc $rc)" eval \
		'[ $rc = 2 ] && sane && [ $(wc -l < "$TMP/err") = 1 ] &&
		 grep -q -- "-maxblock $m: not a positive number" "$TMP/err"'
done
run 30 "$B/rawtoevent" s.trace; cp "$TMP/out" "$TMP/file.events"
IN=$TMP/s.trace run 30 "$B/rawtoevent"
check "7: rawtoevent on stdin: the events of the file" eval '[ $rc = 0 ] && cmp -s "$TMP/out" "$TMP/file.events"'
mkfifo "$w/fifo"
(cat "$TMP/s.trace" > "$w/fifo" &)
run 30 "$B/rawtoevent" fifo
check "7: rawtoevent on a FIFO: the events of the file" eval '[ $rc = 0 ] && cmp -s "$TMP/out" "$TMP/file.events"'
(cat "$TMP/s.trace" > "$w/fifo" &)
run 30 "$B/kutrace_postproc" fifo -o f.json --no-html
run 30 "$B/kutrace_postproc" s.trace --no-html
check "7: kutrace_postproc on a FIFO: the spans of the file" eval 'test -s "$w/f.json" && diff <(grep "^\[" "$w/f.json") <(grep "^\[" "$w/s.json") >/dev/null'
IN=/dev/zero run 10 "$B/rawtoevent"
refused "7: rawtoevent < /dev/zero: refused at block 0" 'block 0 word 1: trace-file version 0'

for a in abc nan "" 1e400 inf; do
	IN=$KT_ROOT/tests/data/tools/small.json run 10 "$B/spantotrim" "$a"
	refused "7: spantotrim '$a': refused" "'$a'"
done
rm -rf "$w"/*
for o in "-d nan" "-r nan" "-d inf" "-d abc" "-d 0"; do
	run 10 "$B/kutrace_synth" $o -o x.trace
	refused "7: kutrace_synth $o: refused" '(not a number|must be)'
	check "7: ... and no trace written" no_leftovers
done
mkdir "$w/maps"
IN=$KT_ROOT/tests/data/tools/small.json run 10 "$B/samptoname_u" maps
refused "7: samptoname_u DIR: refused" 'maps: Is a directory'
# Issue 34 finding 2: a maps line starting with a NUL byte passed for a
# blank line, so zeros, or lines that start with one, were an empty maps
# file: the JSON came out unchanged, exit 0.  A NUL byte is refused with
# its line number, and so is a maps file without one mapping line (as
# samptoname_k refuses a kallsyms file without symbols).
S=$KT_ROOT/tests/data/tools/samples.json
cp "$C/samptoname_u_nul_lines.maps" "$w/m.maps"
IN=$S run 10 "$B/samptoname_u" m.maps
refused "34.2: samptoname_u, maps lines starting with NUL bytes: refused at line 1" \
	'^samptoname_u: m\.maps:1: a NUL byte'
check "34.2: ... and no JSON written" test ! -s "$TMP/out"
head -c 64K /dev/zero > "$w/z.maps"
IN=$S run 10 "$B/samptoname_u" z.maps
refused "34.2: samptoname_u, 64 KB of zeros as maps: refused" '^samptoname_u: z\.maps:1: a NUL byte'
{ echo "==== /proc/300/maps"; echo "55d0c000-55d0d000 r-xp 00001000 08:01 1 /bin/sh"; printf 'ab\0cd\n'; } > "$w/late.maps"
IN=$S run 10 "$B/samptoname_u" late.maps
refused "34.2: ... a NUL byte on line 3: names line 3" '^samptoname_u: late\.maps:3: a NUL byte'
echo "==== /proc/300/maps" > "$w/hdr.maps"
for m in hdr.maps empty.maps; do
	touch "$w/$m"
	IN=$S run 10 "$B/samptoname_u" $m
	refused "34.2: samptoname_u, maps without a mapping line ($m): refused" \
		"^samptoname_u: $m: no mapping line"
done
printf 'ffffffff81000000 T startup\n\0\n' > "$w/k.txt"
IN=$S run 10 "$B/samptoname_k" k.txt
refused "34.2: samptoname_k, a NUL line after a symbol: refused at line 2" '^samptoname_k: k\.txt:2: a NUL byte'
# Found by the mutation run once it damaged kallsyms files: lines of
# signed decimal numbers passed for "address type name" (exit 0).
cp "$C/samptoname_k_number_lines.txt" "$w/k.txt"
IN=$S run 10 "$B/samptoname_k" k.txt
refused "34.2: samptoname_k, lines of decimal numbers: refused" '^samptoname_k: k\.txt:1: expected "address type name"'
cp "$TMP/s.trace" "$w/s.trace"
for t in kutrace_dump "checktrace -v"; do
	(cd "$w" && timeout 20 $B/$t s.trace > /dev/full 2> "$TMP/err"); rc=$?
	refused "7: $t > /dev/full: a write error" 'write error on stdout: No space left on device'
done
run 30 "$B/kutrace_postproc" s.trace --no-html
(cd "$w" && timeout 20 "$B/makeself" - s.json > /dev/full 2> "$TMP/err"); rc=$?
refused "7: makeself > /dev/full: names the output and the reason" 'stdout: write error: No space left on device'

rm -rf "$w"/*; cp "$TMP/s.trace" "$w/x.json"
run 10 "$B/kutrace_postproc" x.json
refused "9: kutrace_postproc x.json (a trace named .json): refused" 'x.json: the output would overwrite the input'
check "9: ... the trace is intact" cmp -s "$w/x.json" "$TMP/s.trace"
cp "$TMP/s.trace" "$w/s.trace"
run 10 "$B/kutrace_postproc" s.trace -o s.trace
refused "9: -o equal to the input: refused" 'overwrite the input'
run 10 "$B/kutrace_postproc" s.trace -o ./s.trace
refused "9: -o another name of the input: refused" 'overwrite the input'
check "9: ... the trace is intact" cmp -s "$w/s.trace" "$TMP/s.trace"
run 10 "$B/kutrace_postproc" s.trace -o nodir/s.json
refused "9: cannot create: names the file and the reason" 'cannot create nodir/s.json.tmp: No such file or directory'
run 10 "$B/unmakeself" /dev/zero
refused "9: unmakeself /dev/zero: refused at once" '/dev/zero: not a file or a pipe'
mkdir "$w/dir.html"
run 10 "$B/unmakeself" dir.html
refused "9: unmakeself DIR: a directory, not an empty file" 'dir.html: Is a directory'
run 10 "$B/makeself" - dir.html o.html
refused "9: makeself DIR: a directory" 'dir.html: Is a directory'

# big_refused "what" PATTERN: kutrace_postproc refuses big.trace with
# PATTERN in under 2 s; then kutrace_dump runs on it
big_refused() {
	local start ms
	start=$(date +%s%N)
	run 30 "$B/kutrace_postproc" big.trace
	ms=$(( ($(date +%s%N) - start) / 1000000 ))
	refused "9: $1: refused" "$2"
	check "9: ... in ${ms} ms (< 2000)" test "$ms" -lt 2000
	run 30 "$B/kutrace_dump" big.trace
}
# A 4 GB sparse trace (all zeros) is refused at block 0, at once.
rm -rf "$w"/*; truncate -s 4G "$w/big.trace"
big_refused "a 4 GB sparse trace" 'block 0 word 1: trace-file version 0'
refused "9: kutrace_dump of it: refused" 'trace-file version 0'
check "9: ... printing nothing ($(wc -c < "$TMP/out") bytes)" test ! -s "$TMP/out"
rm -f "$w/big.trace"
# The same size behind a sound trace: the first hole is refused at once.
cp "$TMP/s.trace" "$w/big.trace"; truncate -s 4G "$w/big.trace"
big_refused "a trace followed by a 4 GB hole" 'big.trace: block [0-9]+ word 0: all-zero block header'
check "9: kutrace_dump of it: exit 1 at the hole, $(wc -c < "$TMP/out") bytes (< 1 MB)" \
	eval '[ $rc = 1 ] && sane && [ $(wc -c < "$TMP/out") -lt 1000000 ] && grep -q "all-zero block header" "$TMP/err"'
rm -f "$w/big.trace"

# Full disk: a small tmpfs (needs root and mount; skipped elsewhere).
rm -rf "$w"/*
if mkdir -p "$TMP/full" && mount -t tmpfs -o size=64k tmpfs "$TMP/full" 2>/dev/null; then
	trap 'umount "$TMP/full" 2>/dev/null; rm -rf "$TMP"' EXIT
	run 20 "$B/kutrace_synth" -s 3 -c 2 -d 0.02 -o "$TMP/full/x.trace"
	refused "9: kutrace_synth on a full disk: a write error" 'No space left on device'
	check "9: ... and no partial trace" test ! -e "$TMP/full/x.trace"
	# JSON fits, the page does not: the message says the JSON exists.
	"$B/kutrace_synth" -s 5 -c 1 -d 0.002 -o "$TMP/small.trace" >/dev/null 2>&1
	"$B/kutrace_postproc" "$TMP/small.trace" -o "$TMP/small.json" --no-html 2>/dev/null
	jk=$(( ($(stat -c %s "$TMP/small.json") + 4095) / 4096 * 4 + 8 ))
	umount "$TMP/full"; mount -t tmpfs -o size=${jk}k tmpfs "$TMP/full"
	run 20 "$B/kutrace_postproc" "$TMP/small.trace" -o "$TMP/full/small.json"
	check "9: JSON written, page on a full disk: says which output exists" eval \
		'[ $rc = 1 ] && sane && tail -1 "$TMP/err" | grep -q "No space left on device; .*small.json was written, no HTML"'
	check "9: ... the JSON is complete, no temporary file" eval 'diff <(grep "^\[" "$TMP/full/small.json") <(grep "^\[" "$TMP/small.json") >/dev/null && [ "$(ls "$TMP/full")" = small.json ]'
	run 20 "$B/kutrace_postproc" "$TMP/s.trace" -o "$TMP/full/s.json"
	refused "9: JSON on a full disk: the reason" 'write error .*: No space left on device'
	check "9: ... no temporary file left" eval '[ "$(ls "$TMP/full")" = small.json ]'
	umount "$TMP/full"
else
	skip "9: full-disk cases: cannot mount a tmpfs here"
fi

# kutrace_align's fast row reader: a 19-digit number in a row overflowed
# int64 (UBSan, found by the mutation run); the row is now read the slow
# way, which refuses or takes it, never undefined behaviour.
rm -rf "$w"/*; cp "$C/align_19_digits.json" "$w/a.json"; cp "$KT_ROOT/tests/golden/basic.json" "$w/b.json"
run 20 "$B/kutrace_align" a.json b.json -o m
check "kutrace_align: a 19-digit row number: no undefined behaviour (rc $rc)" sane

# ---- the libFuzzer targets and the mutation run --------------------------
# fuzz_events runs eventtospan with chunks of 64 rows between its threads
# and a 4 KB text buffer (test knobs): the same JSON as with the defaults.
rm -rf "$w"/*
"$B/kutrace_postproc" "$TMP/s.trace" -o "$w/a.json" --no-html 2>/dev/null
KT_JSONOUT_CHUNK=3 KT_JSONOUT_TEXT=300 "$B/kutrace_postproc" "$TMP/s.trace" -o "$w/b.json" --no-html 2>/dev/null
check "KT_JSONOUT_CHUNK=3 KT_JSONOUT_TEXT=300: the same JSON ($(grep -c '^\[' "$w/a.json") rows)" \
	eval 'test -s "$w/a.json" && diff <(grep -v randomid "$w/a.json") <(grep -v randomid "$w/b.json") >/dev/null'
# libFuzzer builds its own ASan+UBSan library (build-fuzz/): run it once,
# in the first pass, not again in the sanitizer pass (make test-san).
case $B in
*/build-san/bin) ;;
*)
	if command -v clang >/dev/null && (cd "$KT_ROOT" && nice -n 10 make -s fuzz-build >/dev/null 2>&1); then
		"$KT_ROOT/tests/fuzz/run.sh" --short
		# the table store's reader links DuckDB: no DuckDB, no target
		[ -x "$KT_ROOT/build-fuzz/fuzz/fuzz_store" ] ||
			skip "libFuzzer fuzz_store: DuckDB is not in /var/cache/kutrace/duckdb (make deps)"
		[ -x "$KT_ROOT/build-fuzz/fuzz/fuzz_view" ] ||
			skip "libFuzzer fuzz_view: no DuckDB or no libmicrohttpd-dev (make deps)"
	else
		nok "libFuzzer targets build (make fuzz-build; clang and libclang-rt-14-dev from tests/deps/fuzz.apt)"
	fi
	;;
esac
# 2 s of damaged and garbage inputs per program
nice -n 10 python3 "$KT_ROOT/tests/fuzz/mutate.py" "$B" "$KT_ROOT" 2

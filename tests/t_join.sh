#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Chunks of one streamed recording read as one trace (issue 44,
# docs/spec/FORMATS.md 10.2 "Joining", lib/raw/raw.c), on chunks the module
# wrote in a QEMU guest (tests/data/stream/README.md):
# - a directory of chunks and the same chunks back to back in one file
#   (`cat`) give the same events and the same JSON, at 1 and 3 threads;
# - the joined trace holds exactly the getpid calls the independent
#   checker (ktcheck) counts chunk by chunk, including the call that
#   returns in the next chunk;
# - checktrace passes it: the blocks the cuts closed early are not damage;
# - the output of `kutrace_postproc DIR/` is DIR.json beside DIR, not in it;
# - an empty chunk file and a chunk cut mid-block are read to where they
#   end; an empty directory, a file that is not a chunk, a chunk missing
#   in the middle and chunks out of order are refused in one line naming
#   the file.
. "$(dirname "$0")/lib.sh"
B=$(cd "$KT_BIN" && pwd)
export LC_ALL=C
R=$TMP/rec
mkdir -p "$R"
tar -xJf "$KT_ROOT/tests/data/stream/vm61_chunks.tar.xz" -C "$R"
eq "three chunks unpacked" 3 "$(ls "$R" | grep -c '^kt_0000[0-9]*\.trace$')"

# The truth, chunk by chunk, from the checker that shares no code with lib/raw.
pid=$("$B/ktcheck" "$R/kt_000008.trace" | awk '$1 == "pid" && $3 == "sys" && $4 == 39 && $6 > n { n = $6; p = $2 } END { print p }')
want=0
for c in "$R"/kt_*.trace; do
	n=$("$B/ktcheck" "$c" | awk -v p="$pid" '$1 == "pid" && $2 == p && $3 == "sys" && $4 == 39 { print $6 }')
	want=$((want + ${n:-0}))
done
eq "ktcheck: the workload's getpid calls across the chunks" 42109 "$want"

cat "$R"/kt_*.trace > "$TMP/all.trace"
getpids() { "$B/rawtoevent" "$1" 2> /dev/null | awk -v p="$pid" '$3 == 2087 && $5 == p' | wc -l; }
eq "rawtoevent DIR: exactly ktcheck's getpid calls" "$want" "$(getpids "$R")"
"$B/rawtoevent" "$R" > "$TMP/dir.ev" 2> /dev/null
"$B/rawtoevent" "$TMP/all.trace" > "$TMP/cat.ev" 2> /dev/null
same_file "rawtoevent: the directory and the chunks back to back give the same events" "$TMP/dir.ev" "$TMP/cat.ev"

"$B/checktrace" -nopf "$R" > "$TMP/ct" 2>&1
check "checktrace DIR passes" grep -q "^PASS $R\$" "$TMP/ct"
eq "checktrace DIR: no block taken for one that ended early" 0 "$(grep -c 'early' "$TMP/ct")"
check "checktrace on the chunks back to back passes" "$B/checktrace" -q -nopf "$TMP/all.trace"

# The JSON: the same from the directory, the file and stdin, at any thread count.
nohdr() { grep -v -e '"randomid"' -e '"title"' "$1"; }
"$B/kutrace_postproc" "$R" -o "$TMP/dir.json" --no-html --threads 1 2> "$TMP/pp.err"
check "kutrace_postproc DIR exits 0" test -s "$TMP/dir.json"
"$B/kutrace_postproc" "$R" -o "$TMP/dir3.json" --no-html --threads 3 2> /dev/null
nohdr "$TMP/dir.json" > "$TMP/a"
nohdr "$TMP/dir3.json" > "$TMP/b"
same_file "kutrace_postproc DIR: the same rows at 1 and 3 threads" "$TMP/a" "$TMP/b"
"$B/kutrace_postproc" "$TMP/all.trace" -o "$TMP/cat.json" --no-html 2> /dev/null
nohdr "$TMP/cat.json" > "$TMP/b"
same_file "kutrace_postproc: the directory and the file give the same rows" "$TMP/a" "$TMP/b"
"$B/kutrace_postproc" - -o "$TMP/in.json" --no-html < "$TMP/all.trace" 2> /dev/null
nohdr "$TMP/in.json" > "$TMP/b"
same_file "kutrace_postproc: the chunks on stdin give the same rows" "$TMP/a" "$TMP/b"
python3 - "$TMP/dir.json" "$pid" > "$TMP/named" <<'EOF'
import json, sys
rows = json.load(open(sys.argv[1]))["events"]
pid = int(sys.argv[2])
# user-mode rows carry the thread's name: none of the workload's is a bare pid
names = {r[-1] for r in rows if r[3] == pid and 0x10000 <= r[5] < 0x20000}
print(" ".join(sorted(names)))
EOF
eq "the workload's user rows are named in every chunk" "workload.$pid" "$(cat "$TMP/named")"

# The default output of DIR/ is DIR.json beside it.
(cd "$TMP" && "$B/kutrace_postproc" rec/ --no-html 2> /dev/null)
check "kutrace_postproc rec/ writes rec.json beside rec" test -s "$TMP/rec.json"
eq "and nothing inside rec" 3 "$(ls -A "$R" | wc -l)"

# A chunk opened but never written, a chunk cut mid-block.
C=$TMP/cut
cp -r "$R" "$C"
: > "$C/kt_000011.trace"
truncate -s -1000 "$C/kt_000010.trace"
"$B/checktrace" -q -nopf "$C" > "$TMP/ct2" 2>&1
check "an empty chunk and a chunk cut mid-block: checktrace passes" grep -q "^PASS" "$TMP/ct2"
eq "and the getpid calls are all there" "$want" "$(getpids "$C")"

# Refusals: one line naming the file, exit 1.
refused() {
	local what=$1 dir=$2 msg=$3
	"$B/kutrace_postproc" "$dir" -o "$TMP/x.json" --no-html > /dev/null 2> "$TMP/e"
	local rc=$?
	eq "$what: exit 1" 1 "$rc"
	eq "$what: one line" 1 "$(wc -l < "$TMP/e")"
	check "$what: it says '$msg'" grep -qF "$msg" "$TMP/e"
	check "$what: no output left" test ! -e "$TMP/x.json"
}
mkdir -p "$TMP/empty"
refused "an empty directory" "$TMP/empty" "$TMP/empty: a directory without chunk files"
N=$TMP/notchunk
mkdir -p "$N"
cp "$R/kt_000008.trace" "$N/"
cp "$KT_ROOT/tests/golden/basic.trace" "$N/kt_000009.trace"
refused "a trace that is not a chunk" "$N" "$N/kt_000009.trace: block 0: not a chunk"
H=$TMP/hole
cp -r "$R" "$H"
rm "$H/kt_000009.trace"
refused "a chunk missing in the middle" "$H" "$H: chunk kt_000009.trace is missing (a hole in the recording)"
O=$TMP/order
cp -r "$R" "$O"
mv "$O/kt_000008.trace" "$O/kt_000011.trace"
refused "chunks out of order" "$O" "$O/kt_000011.trace: block 0 word 2: chunk starts before the chunk in front of it"

# The table programs take the directory as a trace, into a temporary store.
if [ -x "$B/kutrace_sql" ]; then
	(cd "$TMP" && TMPDIR=$TMP "$B/kutrace_sql" rec --csv -c "select count(*) from span where pid = $pid and name = 'getpid'" > "$TMP/sql" 2> "$TMP/sql.err")
	check "kutrace_sql DIR answers: the workload's getpid spans" test "$(tail -1 "$TMP/sql")" -ge "$want"
	check "and leaves no store beside the chunks or in them" test ! -e "$TMP/rec.tables" -a "$(ls -A "$R" | wc -l)" = 3
else
	skip "kutrace_sql DIR (no kutrace_sql in $B)"
fi

#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# A trace's store built once and reused (issue 43, lib/tool/tool_store.c):
# kutrace_sql/why/view X.trace (and kutrace sql/why/view) keep X.tables
# beside the trace, reuse it while its meta.json's source_identity (size,
# mtime in ns, a hash of the first and last 64 KiB) is the trace's, and
# rebuild it when the trace changed, when it is another trace's store or
# says no trace; a directory that is not a store is left alone, and a
# read-only directory gets a temporary store; one line says which.  A
# full disk and a build killed by a signal (SIGPIPE, SIGINT, SIGTERM)
# leave neither a store nor its DIR.tmp.PID.
. "$(dirname "$0")/lib.sh"
unset KUTRACE_STORE
B=$(cd "$KT_BIN" && pwd)
S=$B/kutrace_sql
export LC_ALL=C
MOUNTS=""
trap 'for m in $MOUNTS; do umount "$m"; done; rm -rf "$TMP"' EXIT
# count DIR: the span count kutrace_sql gives for the trace DIR/rpc.trace
# (its stderr in $TMP/e)
count() { "$S" "$1" --csv -c 'select count(*) from span' 2> "$TMP/e" | tail -1; }
# stamp STORE: its meta.json's inode and mtime (a rebuild changes both)
stamp() { stat -c '%i %y' "$1/meta.json" 2>/dev/null; }
# left DIR: what DIR holds besides the trace (no store, no .tmp.*)
left() { ls -A "$1" | grep -v '\.trace$' | tr '\n' ' '; }
mkdir -p "$TMP/tmp"
export TMPDIR=$TMP/tmp

R=$TMP/r
mkdir -p "$R"
cp "$KT_ROOT/tests/golden/rpc.trace" "$R/rpc.trace"

# ---- built once, reused ------------------------------------------------
eq "first run: the trace's 30 spans" 30 "$(count "$R/rpc.trace")"
eq "first run: one line says it builds rpc.tables" \
	"kutrace_sql: building rpc.tables (the store of rpc.trace)" "$(grep '^kutrace_sql' "$TMP/e")"
eq "rpc.tables is a store beside the trace, nothing else there" "rpc.tables " "$(left "$R")"
eq "its meta.json: the trace's size and mtime in ns" \
	"$(stat -c %s "$R/rpc.trace") $(python3 -c 'import os,sys; print(os.stat(sys.argv[1]).st_mtime_ns)' "$R/rpc.trace")" \
	"$(python3 -c 'import json,sys; i=json.load(open(sys.argv[1]))["source_identity"]; print(i["size"], i["mtime_ns"])' "$R/rpc.tables/meta.json")"
s1=$(stamp "$R/rpc.tables")
eq "second run: the same 30 spans" 30 "$(count "$R/rpc.trace")"
eq "second run: one line, it uses rpc.tables" \
	"kutrace_sql: using rpc.tables (the store of rpc.trace)" "$(cat "$TMP/e")"
eq "second run: the store untouched (meta.json's inode and mtime)" "$s1" "$(stamp "$R/rpc.tables")"
eq "the temporary directory holds nothing" "" "$(ls -A "$TMP/tmp")"

# The front door, and kutrace_why and kutrace_view, reuse it too.
"$B/kutrace" sql "$R/rpc.trace" --csv -c 'select count(*) from slice' > /dev/null 2> "$TMP/e"
eq "kutrace sql: uses rpc.tables" "kutrace_sql: using rpc.tables (the store of rpc.trace)" "$(cat "$TMP/e")"
"$B/kutrace" why "$R/rpc.trace" --rpc 77 > "$TMP/why.out" 2> "$TMP/e"
eq "kutrace why: uses rpc.tables" "kutrace_why: using rpc.tables (the store of rpc.trace)" \
	"$(grep '^kutrace_why' "$TMP/e")"
check "kutrace why: rpc 77's answer" grep -q '^rpc 77 getData' "$TMP/why.out"
"$B/kutrace" view "$R/rpc.trace" --no-browser > "$TMP/view.out" 2> "$TMP/view.err" &
pid=$!
for i in $(seq 300); do [ -s "$TMP/view.out" ] && break; sleep 0.1; done
eq "kutrace view: uses rpc.tables" "kutrace_view: using rpc.tables (the store of rpc.trace)" \
	"$(grep '^kutrace_view: using' "$TMP/view.err")"
check "kutrace view: serves the page" sh -c "curl -s \"\$(head -1 '$TMP/view.out')\" | grep -q '<html'"
kill -INT $pid; wait $pid
eq "after them all, the store is the first run's" "$s1" "$(stamp "$R/rpc.tables")"

# ---- a changed trace: rebuilt ------------------------------------------
touch "$R/rpc.trace"
eq "touched: 30 spans" 30 "$(count "$R/rpc.trace")"
eq "touched: stale, rebuilt" "kutrace_sql: rpc.tables is stale (the trace changed): rebuilding" \
	"$(grep '^kutrace_sql' "$TMP/e")"
s2=$(stamp "$R/rpc.tables")
check "touched: a new store" test "$s1" != "$s2"
eq "then reused" "kutrace_sql: using rpc.tables (the store of rpc.trace)" \
	"$(count "$R/rpc.trace" > /dev/null; cat "$TMP/e")"

# The same size and mtime, a byte of the last block changed: a thread's
# name there, "worker" at 0x10025, becomes "workex".
cp -p "$R/rpc.trace" "$TMP/rpc.ref"
printf 'x' | dd of="$R/rpc.trace" bs=1 seek=$((0x10025)) conv=notrunc 2>/dev/null
touch -r "$TMP/rpc.ref" "$R/rpc.trace"
eq "last block changed: same size and mtime" "$(stat -c '%s %y' "$TMP/rpc.ref")" "$(stat -c '%s %y' "$R/rpc.trace")"
eq "last block changed: the new name's 3 spans" 3 \
	"$("$S" "$R/rpc.trace" --csv -c "select count(*) from span where name like 'workex%'" 2> "$TMP/e" | tail -1)"
eq "last block changed: stale, rebuilt" "kutrace_sql: rpc.tables is stale (the trace changed): rebuilding" \
	"$(grep '^kutrace_sql' "$TMP/e")"

# Another trace under the same name and mtime (another size): its rows.
"$B/kutrace_synth" -s 3 -c 4 -d 0.05 -o "$TMP/o.trace" > /dev/null 2>&1
cp "$TMP/o.trace" "$R/rpc.trace"
touch -r "$TMP/rpc.ref" "$R/rpc.trace"
eq "another size: 262144 bytes, not 131072, the same mtime" "262144 $(stat -c %y "$TMP/rpc.ref")" \
	"$(stat -c '%s %y' "$R/rpc.trace")"
want=$("$S" build "$TMP/o.trace" -o "$TMP/o.tables" --quiet 2>/dev/null;
	"$S" "$TMP/o.tables" --csv -c 'select count(*) from span' | tail -1)
got=$(count "$R/rpc.trace")
eq "another size: stale, rebuilt" "kutrace_sql: rpc.tables is stale (the trace changed): rebuilding" \
	"$(grep '^kutrace_sql' "$TMP/e")"
check "another size: the new trace's spans ($want), not the old 30" test "$got" = "$want" -a "$got" != 30
cp "$KT_ROOT/tests/golden/rpc.trace" "$R/rpc.trace"
count "$R/rpc.trace" > /dev/null

# ---- stores that are not this trace's: rebuilt ---------------------------
cp "$TMP/o.tables/meta.json" "$R/rpc.tables/meta.json"
eq "another trace's meta.json: 30 spans" 30 "$(count "$R/rpc.trace")"
eq "another trace's meta.json: rebuilt" \
	"kutrace_sql: rpc.tables is the store of o.trace, not rpc.trace: rebuilding" "$(grep '^kutrace_sql' "$TMP/e")"
rm -rf "$R/rpc.tables"
cp -r "$TMP/o.tables" "$R/rpc.tables"
eq "another trace's whole store: 30 spans" 30 "$(count "$R/rpc.trace")"
eq "another trace's whole store: rebuilt" \
	"kutrace_sql: rpc.tables is the store of o.trace, not rpc.trace: rebuilding" "$(grep '^kutrace_sql' "$TMP/e")"
python3 -c 'import json,sys; m=json.load(open(sys.argv[1])); del m["source_identity"]; json.dump(m, open(sys.argv[1], "w"))' \
	"$R/rpc.tables/meta.json"
eq "a store without the trace's identity: 30 spans" 30 "$(count "$R/rpc.trace")"
eq "a store without the trace's identity: rebuilt" \
	"kutrace_sql: rpc.tables does not say which trace it holds: rebuilding" "$(grep '^kutrace_sql' "$TMP/e")"
rm "$R/rpc.tables/wait.parquet"
eq "a table missing: 30 spans" 30 "$(count "$R/rpc.trace")"
eq "a table missing: rebuilt" "kutrace_sql: rpc.tables is missing a table: rebuilding" \
	"$(grep '^kutrace_sql' "$TMP/e")"
check "a table missing: it is back" test -f "$R/rpc.tables/wait.parquet"
eq "after the rebuilds, nothing else beside the trace" "rpc.tables " "$(left "$R")"

# A directory of that name that is not a store: left alone.
rm -rf "$R/rpc.tables"
mkdir "$R/rpc.tables"
echo mine > "$R/rpc.tables/notes"
eq "not a store: 30 spans" 30 "$(count "$R/rpc.trace")"
eq "not a store: one line, a temporary store" \
	"kutrace_sql: rpc.tables is there and is not a kutrace store: left alone, a temporary store" \
	"$(grep '^kutrace_sql' "$TMP/e")"
eq "not a store: untouched" "notes mine" "$(ls "$R/rpc.tables") $(cat "$R/rpc.tables/notes")"
eq "not a store: nothing else beside the trace, nothing in TMPDIR" "rpc.tables |" "$(left "$R")|$(ls -A "$TMP/tmp")"
rm -rf "$R/rpc.tables"

# A JSON file: its store beside it too.
J=$TMP/j
mkdir -p "$J"
"$B/kutrace_postproc" "$R/rpc.trace" x --no-html -o "$J/rpc.json" 2>/dev/null
eq "a JSON file: 30 spans" 30 "$(count "$J/rpc.json")"
eq "a JSON file: builds rpc.tables" "kutrace_sql: building rpc.tables (the store of rpc.json)" \
	"$(grep '^kutrace_sql' "$TMP/e")"
count "$J/rpc.json" > /dev/null
eq "a JSON file: then uses it" "kutrace_sql: using rpc.tables (the store of rpc.json)" "$(cat "$TMP/e")"

# kutrace_postproc --tables writes the same store, which is then reused.
P=$TMP/p
mkdir -p "$P"
cp "$R/rpc.trace" "$P/"
"$B/kutrace_postproc" "$P/rpc.trace" --tables --no-html > /dev/null 2>&1
eq "kutrace_postproc --tables: its store is reused" "kutrace_sql: using rpc.tables (the store of rpc.trace)" \
	"$(count "$P/rpc.trace" > /dev/null; grep '^kutrace_sql' "$TMP/e")"

# KUTRACE_STORE=temp: a temporary store, nothing beside the trace.
eq "KUTRACE_STORE=temp: 30 spans" 30 "$(KUTRACE_STORE=temp count "$R/rpc.trace")"
eq "KUTRACE_STORE=temp: nothing beside the trace, nothing said, nothing in TMPDIR" "||" \
	"$(left "$R")|$(grep '^kutrace_sql' "$TMP/e")|$(ls -A "$TMP/tmp")"

# ---- read-only, full ---------------------------------------------------
# mount: tmpfs for a read-only directory (root writes to a chmod 555 one)
# and a full disk.
mnt() {
	mkdir -p "$1"
	mount -t tmpfs -o "size=$2" tmpfs "$1" 2>/dev/null || return 1
	MOUNTS="$1 $MOUNTS"
}
if mnt "$TMP/ro" 1m; then
	cp "$R/rpc.trace" "$TMP/ro/"
	mount -o remount,ro "$TMP/ro"
	eq "read-only directory: 30 spans" 30 "$(count "$TMP/ro/rpc.trace")"
	eq "read-only directory: one line, a temporary store" \
		"kutrace_sql: directory not writable: a temporary store" "$(grep '^kutrace_sql' "$TMP/e")"
	eq "read-only directory: nothing left in it or in TMPDIR" "|" "$(left "$TMP/ro")|$(ls -A "$TMP/tmp")"
else
	skip "a read-only directory: cannot mount a tmpfs (not root?)"
fi

F=$TMP/full
"$B/kutrace_synth" -s 7 -c 4 -t 8 -d 1000 -m 3 --ipc -o "$TMP/big.trace" > /dev/null 2>&1
if mnt "$F" 8m; then
	# A 3 MB trace whose store needs about 11 MB.
	cp "$TMP/big.trace" "$F/"
	"$S" "$F/big.trace" -c 'select 1' > /dev/null 2> "$TMP/e"; rc=$?
	eq "full disk, X.tables: exit 1, one line saying so after the one saying it builds" \
		"1 2 1" "$rc $(grep -c '^kutrace_sql' "$TMP/e") $(grep -c 'kutrace_sql: .*No space left on device' "$TMP/e")"
	eq "full disk, X.tables: no store, no .tmp" "" "$(left "$F")"
	"$S" build "$F/big.trace" -o "$F/b.tables" --quiet 2> "$TMP/e"; rc=$?
	eq "full disk, build -o: exit 1, one line saying so" "1 1" \
		"$rc $(grep -c 'kutrace_sql: .*No space left on device' "$TMP/e")"
	eq "full disk, build -o: nothing else from kutrace_sql" 1 "$(grep -c '^kutrace_sql' "$TMP/e")"
	eq "full disk, build -o: no store, no .tmp" "" "$(left "$F")"
else
	skip "a full disk: cannot mount a tmpfs (not root?)"
fi

# ---- two at once -------------------------------------------------------
# Both started on a trace without a store: one builds it, the other waits
# for it and uses it (never two builds renaming over each other).
C=$TMP/c
mkdir -p "$C"
cp "$TMP/big.trace" "$C/"
"$S" "$C/big.trace" --csv -c 'select count(*) from span' > "$TMP/c1" 2> "$TMP/e1" &
p1=$!
"$S" "$C/big.trace" --csv -c 'select count(*) from span' > "$TMP/c2" 2> "$TMP/e2"
wait $p1
eq "two at once: the same span count" "$(tail -1 "$TMP/c1")" "$(tail -1 "$TMP/c2")"
eq "two at once: one built the store, the other waited and used it" \
	"1 building, 1 waiting, 1 using" \
	"$(cat "$TMP/e1" "$TMP/e2" | grep -c ': building big.tables') building, $(cat "$TMP/e1" "$TMP/e2" | grep -c ': waiting for another program building big.tables') waiting, $(cat "$TMP/e1" "$TMP/e2" | grep -c ': using big.tables') using"
eq "two at once: the store and nothing else" "big.tables " "$(left "$C")"

# ---- a build killed ----------------------------------------------------
K=$TMP/k
mkdir -p "$K"
cp "$TMP/big.trace" "$K/"
"$S" build "$K/big.trace" -o "$K/b.tables" --stats 2>&1 | head -1 > /dev/null
eq "SIGPIPE (--stats 2>&1 | head -1): no store, no .tmp" "" "$(sleep 0.2; left "$K")"
# kill_build SIG ARGS...: a build killed by SIG once its DIR.tmp.PID is
# there; prints its exit status.  env: a shell's background job ignores
# SIGINT, and the program keeps what it was given.
kill_build() {
	local sig=$1 pid i; shift
	env --default-signal=INT "$S" "$@" > /dev/null 2>&1 &
	pid=$!
	for i in $(seq 300); do
		ls "$K" | grep -q '\.tmp\.' && break
		sleep 0.01
	done
	sleep 0.1
	kill -"$sig" $pid
	wait $pid
	echo $?
}
eq "SIGINT during build -o: killed by it" 130 "$(kill_build INT build "$K/big.trace" -o "$K/b.tables")"
eq "SIGINT during build -o: no store, no .tmp" "" "$(left "$K")"
eq "SIGTERM during build -o: killed by it" 143 "$(kill_build TERM build "$K/big.trace" -o "$K/b.tables")"
eq "SIGTERM during build -o: no store, no .tmp" "" "$(left "$K")"
eq "SIGTERM while building X.tables: killed by it" 143 \
	"$(kill_build TERM "$K/big.trace" -c 'select 1')"
eq "SIGTERM while building X.tables: no store, no .tmp, nothing in TMPDIR" "|" \
	"$(left "$K")|$(ls -A "$TMP/tmp")"

#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The table store and kutrace_sql (issue 28, docs/TABLES.md):
# - the original KUtrace's own trace (../shared/real, and its published
#   counts in docs/spec/FORMATS.md 5.10.3) against an independent reading
#   of its JSON (tests/tools/tablecheck.py, Python's json, no kutrace code);
# - kutrace's traces (goldens and generated ones) through kutrace_postproc
#   --tables: the same tables as from their JSON, the same counts as the
#   JSON, every CPU and every thread tiled exactly;
# - many stores as one set of tables, the output formats, the reports;
# - bad input: one line, a non-zero exit, nothing partial left behind.
. "$(dirname "$0")/lib.sh"
B=$KT_BIN
S=$B/kutrace_sql
P=$B/kutrace_postproc
export LC_ALL=C
REAL=$(real_trace)

if [ ! -x "$S" ]; then
	nok "kutrace_sql is built (make deps brings DuckDB)"; exit 0
fi
out=$("$S" --help 2>&1); rc=$?
check "kutrace_sql --help" test $rc = 0 -a -n "$(echo "$out" | grep '^usage: kutrace_sql')"
out=$("$S" build --help 2>&1); rc=$?
check "kutrace_sql build --help" test $rc = 0 -a -n "$(echo "$out" | grep '^usage: kutrace_sql build')"
if ldd "$P" | grep -q duckdb; then nok "kutrace_postproc does not link DuckDB"; else
	ok "kutrace_postproc does not link DuckDB"; fi

# The Parquet writer (lib/store/parquet.c): DuckDB reads back exactly what it
# wrote, extremes, wrapping deltas, NULL runs, empty and long strings,
# a constant column, over many row groups.
for seed in 1 2; do
	"$B/pqwrite" "$TMP/p.parquet" 20000 700 $seed > "$TMP/p.exp"
	"$S" --csv -c "select * from read_parquet('$TMP/p.parquet')" "$REAL" > "$TMP/p.got" 2>/dev/null ||
		"$S" --csv -c "select * from read_parquet('$TMP/p.parquet')" "$KT_ROOT/tests/golden/rpc.trace" > "$TMP/p.got"
	same_file "Parquet writer round trip, seed $seed (20000 rows, 29 row groups)" "$TMP/p.exp" "$TMP/p.got"
done

# q STORE SQL: the query's rows as CSV without the header line.
q() { "$S" "$1" --csv -c "$2" | tail -n +2; }

# The keys tablecheck.py prints, from the store.
COUNTS="select 'count:' || t || ' ' || n from (
 select 'span' t, count(*) n from span union all select 'wakeup', count(*) from wakeup
 union all select 'ipi', count(*) from ipi union all select 'wait', count(*) from wait
 union all select 'counter', count(*) from counter union all select 'mark', count(*) from mark
 union all select 'pc_sample', count(*) from pc_sample union all select 'packet', count(*) from packet
 union all select 'lock', count(*) from lock union all select 'sched_slice', count(*) from sched_slice
 union all select 'thread', count(*) from thread union all select 'process', count(*) from process
 union all select 'cpu', count(*) from cpu union all select 'machine', count(*) from machine
 union all select 'slice', count(*) from slice) where n > 0
 union all select 'name_ns:' || name || ' ' || sum(dur) from span group by name
 union all select 'cpu_ns:' || cpu || ' ' || sum(dur) from span
   where cpu >= 0 and ((event between 1024 and 4095) or event >= 65536) group by cpu
 union all select unnest(['cpu_user:' || cpu || ' ' || user_ns, 'cpu_kernel:' || cpu || ' ' ||
   kernel_ns, 'cpu_idle:' || cpu || ' ' || idle_ns, 'cpu_cexit:' || cpu || ' ' || cexit_ns])
   from cpu"

# counts_match WHAT STORE JSON
counts_match() {
	python3 "$KT_ROOT/tests/tools/tablecheck.py" "$3" | sort > "$TMP/exp"
	q "$2" "$COUNTS" | sed 's/^"//;s/"$//;s/""/"/g' | sort > "$TMP/got"
	if [ -s "$TMP/exp" ] && cmp -s "$TMP/exp" "$TMP/got"; then
		ok "$1: every table's count and every name's total time as the JSON says ($(wc -l < "$TMP/exp") keys)"
	else
		nok "$1: counts and totals differ from the JSON's"
		diff "$TMP/exp" "$TMP/got" | head -10 | sed 's/^/#   /'
	fi
}

# Per thread, thread_state tiles its life: no gap, no overlap, and the
# sum is the span from its first slice to its last.
THREAD_TILES="with e as (select pid, ts, dur, lag(ts + dur) over (partition by pid order by ts) pe
 from thread_state) select count(*) filter (where ts <> pe) || ' ' ||
 (select sum(dur) from thread_state) - (select sum(end_ts - start_ts) from thread) ||
 ' ' || count(*) filter (where dur <= 0) from e"
# Per CPU, the execution rows tile it: no overlap, and where one does not
# start as the previous one ends, the gap is one 10 ns point (a mark, an
# mwait, a PC sample's start, an MWAIT exit that makes no row): the JSON's
# own rule (docs/spec/FORMATS.md 5.7, 5.10.3).  sched_slice, their runs,
# tile every CPU exactly, from its first row to its last.
CPU_TILES="with e as (select cpu, ts, dur, lag(ts + dur) over (partition by cpu order by ts, dur) pe
 from span where cpu >= 0 and ((event between 1024 and 4095) or event >= 65536))
 select count(*) filter (where ts < pe or ts > pe + 10) || ' ' ||
 (select sum(dur) from sched_slice) - (select sum(end_ts - start_ts) from cpu) || ' ' ||
 (select count(*) from (select ts, dur, lag(ts + dur) over (partition by cpu order by ts) pe
  from sched_slice) where ts <> pe) from e"
# Every kernel row is in exactly one slice: their own times add up.
SLICE_SELF="select (select coalesce(sum(self_ns), 0) from slice) -
 (select coalesce(sum(dur), 0) from span where cpu >= 0 and event between 1024 and 4095) ||
 ' ' || (select count(*) from slice s left join slice p on p.id = s.parent_id
 where s.depth > 0 and (p.id is null or p.depth <> s.depth - 1 or s.ts < p.ts or
 s.ts + s.dur > p.ts + p.dur))"

# ---- the original KUtrace's trace of hello_world ----------------------
if [ -f "$REAL" ]; then
	cp "$REAL" "$TMP/hw.json"
	if "$S" build "$TMP/hw.json" 2>"$TMP/e"; then
		ok "build a store from the original KUtrace's JSON"
		counts_match "hello_world_demo (original KUtrace)" "$TMP/hw.tables" "$TMP/hw.json"
		# docs/spec/FORMATS.md 5.10.3: 11830 idle spans, 3723 timer
		# interrupts, 3718 kernel PC samples, 259 wakeups, 259 wait_cpu.
		eq "hello_world_demo: the spec's published counts" "11830 3723 3718 259 259" \
			"$(q "$TMP/hw.tables" "select (select count(*) from span where event = 65536) || ' ' ||
			 (select count(*) from slice where name = 'local_timer_vector') || ' ' ||
			 (select count(*) from pc_sample where kernel) || ' ' || (select count(*) from wakeup)
			 || ' ' || (select count(*) from wait where reason = 'cpu')")"
		eq "hello_world_demo: the marks hello and /hello" "a hello 39187408,a /hello 1567496359" \
			"$(q "$TMP/hw.tables" "select kind || ' ' || label || ' ' || arg from mark order by ts" | paste -sd,)"
		eq "hello_world_demo: thread_state tiles every thread" "0 0 0" "$(q "$TMP/hw.tables" "$THREAD_TILES")"
		eq "hello_world_demo: slices nest and hold every kernel row once" "0 0" \
			"$(q "$TMP/hw.tables" "$SLICE_SELF")"
		eq "hello_world_demo: meta.json" "hw unknown 2021-10-28_14:01:00 json 131 38696" \
			"$(python3 -c 'import json,sys; m=json.load(open(sys.argv[1])); print(m["trace_id"], m["machine"], m["tracebase"], m["backend"], m["flags"], m["tables"]["span"])' "$TMP/hw.tables/meta.json")"
	else
		nok "build a store from the original KUtrace's JSON: $(tail -1 "$TMP/e")"
	fi
else
	skip "hello_world_demo: $REAL not found"
fi

# ---- kutrace's traces: goldens and generated ones ----------------------
mkdir -p "$TMP/k"
for g in basic rpc ipi exec edges arm64; do cp "$KT_ROOT/tests/golden/$g.trace" "$TMP/k/"; done
"$B/kutrace_synth" -s 3 -c 4 -d 0.05 --idle-start --idle-end 0.01 -o "$TMP/k/synth3.trace" >/dev/null 2>&1
"$B/kutrace_synth" -s 7 -c 2 -d 0.05 -x 20,10,30,5 -o "$TMP/k/synth7.trace" >/dev/null 2>&1
for t in "$TMP"/k/*.trace; do
	n=$(basename "$t" .trace)
	if ! "$P" "$t" --no-html --tables 2>"$TMP/e"; then
		nok "$n: kutrace_postproc --tables: $(tail -1 "$TMP/e")"; continue
	fi
	st=${t%.trace}.tables
	counts_match "$n" "$st" "${t%.trace}.json"
	# The one pass (rows as data) and the JSON give the same tables.
	"$S" build "${t%.trace}.json" -o "$TMP/k/$n.fromjson" --trace-id "x$n" 2>/dev/null
	same=$("$S" "$st" "$TMP/k/$n.fromjson" --csv -c "
		select (select count(*) from (select * exclude (trace_id, machine) from span where trace_id = '$n'
		 except all select * exclude (trace_id, machine) from span where trace_id <> '$n')) +
		(select count(*) from (select * exclude (trace_id, machine) from span where trace_id <> '$n'
		 except all select * exclude (trace_id, machine) from span where trace_id = '$n')) +
		(select count(*) from (select * exclude (trace_id, machine) from thread_state where trace_id = '$n'
		 except all select * exclude (trace_id, machine) from thread_state where trace_id <> '$n')) +
		(select count(*) from (select * exclude (trace_id, machine, id, parent_id) from slice where trace_id = '$n'
		 except all select * exclude (trace_id, machine, id, parent_id) from slice where trace_id <> '$n'))" | tail -1)
	eq "$n: the store from the row stream is the store from its JSON" 0 "$same"
	eq "$n: every CPU tiled, by rows and by sched_slice" "0 0 0" "$(q "$st" "$CPU_TILES")"
	eq "$n: thread_state tiles every thread" "0 0 0" "$(q "$st" "$THREAD_TILES")"
	eq "$n: slices nest and hold every kernel row once" "0 0" "$(q "$st" "$SLICE_SELF")"
done
eq "rpc golden: the rpc report (method, count, p50, p99, max, slowest)" "getData,1,7400,7400,7400,rpc:77" \
	"$("$S" "$TMP/k/rpc.tables" --report rpc --csv | tail -n +2)"
eq "rpc golden: rpc rows per thread" "77,getData,500,request,990|77,getData,600,request,1880" \
	"$(q "$TMP/k/rpc.tables" "select rpc, method, pid, side, cpu_ns from rpc order by pid" | paste -sd'|')"
# A PC sample's row covers the tick before it, with the RPC id current at
# the sample (a patched guest showed a server's RPC beginning 0.5 ms
# before the client sent it): it does not stretch the RPC's rows.
awk '/^\[ 20.00000820/ { print "[ 19.99999000, 0.00001000, 1, 600, 77, 640, 4204816, 0, 0, \"PC=000000402910\"]," } { print }' \
	"$TMP/k/rpc.json" > "$TMP/k/rpcpc.json"
"$S" build "$TMP/k/rpcpc.json" -o "$TMP/k/rpcpc.tables" 2> /dev/null
eq "rpc golden + a PC sample before the RPC: the same rpc rows, begin and end included" \
	"$(q "$TMP/k/rpc.tables" "select rpc, pid, begin_ts, end_ts, cpu_ns from rpc order by pid" | paste -sd'|')" \
	"$(q "$TMP/k/rpcpc.tables" "select rpc, pid, begin_ts, end_ts, cpu_ns from rpc order by pid" | paste -sd'|')"
eq "... and the sample is in the store" 1 "$(q "$TMP/k/rpcpc.tables" "select count(*) from pc_sample")"
eq "synth3: the trace's backend and base time in machine" "1" \
	"$(q "$TMP/k/synth3.tables" "select count(*) from machine where tracebase like '20%' and cpus = 4")"

# ---- many stores as one set of tables ----------------------------------
mkdir -p "$TMP/fleet/machine=a/trace=t1" "$TMP/fleet/machine=b"
cp -r "$TMP/k/synth3.tables" "$TMP/fleet/machine=a/trace=t1/" 2>/dev/null
"$S" build "$TMP/k/synth7.json" --trace-id t2 --machine b -o "$TMP/fleet/machine=b/trace=t2" 2>/dev/null
rm -rf "$TMP/fleet/machine=a/trace=t1"
"$S" build "$TMP/k/synth3.json" --trace-id t1 --machine a -o "$TMP/fleet/machine=a/trace=t1" 2>/dev/null
n3=$(q "$TMP/k/synth3.tables" "select count(*) from span")
n7=$(q "$TMP/k/synth7.tables" "select count(*) from span")
eq "a fleet glob is one set of tables (rows per trace and machine)" "a t1 $n3|b t2 $n7" \
	"$("$S" "$TMP/fleet/*/*" --csv -c "select machine || ' ' || trace_id || ' ' || n from (select machine, trace_id, count(*) n from span group by all) order by 1" | tail -n +2 | paste -sd'|')"
eq "stores named one by one, a report over both" "2" \
	"$("$S" "$TMP/k/synth3.tables" "$TMP/k/synth7.tables" --report cpu --csv | tail -n +2 | cut -d, -f1 | sort -u | wc -l)"
# A raw trace may begin with the byte '{' (its start counter's low byte):
# it is still a trace, not a JSON file (this seed's does).
"$KT_BIN/kutrace_synth" -s 4 -c 4 --idle-end 0.01 -o "$TMP/brace.trace" > /dev/null 2>&1
eq "a trace whose first byte is '{' is read as a trace (first byte $(head -c1 "$TMP/brace.trace"))" \
	"$("$KT_BIN/kutrace_postproc" "$TMP/brace.trace" --no-html -o "$TMP/brace.json" 2>&1 | grep -o '[0-9]* spans' | cut -d' ' -f1)" \
	"$(q "$TMP/brace.trace" "select count(*) from span")"
# Entries lost (FORMATS 10.4): the lost table holds the golden's one loss.
eq "lost: the table of a trace's LOST entries" "20000006000,10000,0,12345,reader" \
	"$(q tests/golden/lost.trace "select ts, dur, cpu, entries, reason from lost")"
# A temporary directory of its own: another program's store in /tmp is
# not this run's.
mkdir -p "$TMP/tmpd"
eq "a trace file opens directly (its store built for the run)" "$n7" \
	"$(TMPDIR=$TMP/tmpd q "$TMP/k/synth7.trace" "select count(*) from span")"
eq "... and leaves no temporary store behind" "" "$(ls -A "$TMP/tmpd")"

# ---- output formats and reports ---------------------------------------
st=$TMP/k/synth3.tables
"$S" "$st" --json -c "select cpu, busy_ns, 'x\"y' as s, null as n from cpu order by cpu" > "$TMP/o.json"
check "--json is a JSON array of objects with numbers, strings and null" python3 -c '
import json,sys; a=json.load(open(sys.argv[1])); assert len(a)==4 and a[0]["cpu"]==0 and isinstance(a[0]["busy_ns"],int) and a[0]["s"]=="x\"y" and a[0]["n"] is None' "$TMP/o.json"
eq "--csv: a header line, then rows" "cpu,busy_ns|0|1" \
	"$("$S" "$st" --csv -c "select cpu, busy_ns from cpu where cpu < 2 order by cpu" | cut -d, -f1 | sed '1s/.*/cpu,busy_ns/' | paste -sd'|')"
for r in cpu syscalls waits rpc locks; do
	"$S" "$st" --report $r --csv > "$TMP/r.csv" 2>"$TMP/e"
	check "--report $r runs ($(($(wc -l < "$TMP/r.csv") - 1)) rows)" test -s "$TMP/r.csv" -a ! -s "$TMP/e"
done
check "--report NAME --show-sql prints its SQL" sh -c "'$S' --report syscalls --show-sql | grep -q 'FROM slice'"
"$S" "$st" --export tsv "$TMP/x" 2>/dev/null
"$S" "$st" --export jsonl "$TMP/x" 2>/dev/null
bad=0
for t in $(python3 -c 'import json,sys; print(" ".join(json.load(open(sys.argv[1]))["tables"]))' "$st/meta.json"); do
	want=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["tables"][sys.argv[2]])' "$st/meta.json" "$t")
	[ "$(($(wc -l < "$TMP/x/$t.tsv") - 1))" = "$want" ] || bad=$((bad + 1))
	[ "$(wc -l < "$TMP/x/$t.jsonl")" = "$want" ] || bad=$((bad + 1))
done
eq "--export tsv and jsonl: every table, every row" 0 "$bad"
printf '.tables\nselect count(*)\n  from span;\n.quit\n' | HOME=$TMP "$S" "$st" > "$TMP/sh.out" 2>&1
check "the interactive shell: .tables and a statement over two lines" \
	sh -c "grep -qw thread_state '$TMP/sh.out' && grep -qw '$n3' '$TMP/sh.out' && test -s '$TMP/.kutrace_sql_history'"

# ---- bad input: one line, non-zero exit, nothing partial ---------------
# one_line WHAT EXPECT-RE command...: fails with one line matching EXPECT-RE
one_line() {
	local what=$1 re=$2; shift 2
	"$@" > "$TMP/bo" 2> "$TMP/be"
	local rc=$? n
	n=$(wc -l < "$TMP/be")
	if [ $rc != 0 ] && [ "$n" = 1 ] && grep -Eq "$re" "$TMP/be"; then ok "$what"
	else nok "$what (exit $rc, $n lines: $(head -3 "$TMP/be" | tr '\n' '|'))"; fi
}
no_debris() {
	local left
	left=$(ls -d "$1"* 2>/dev/null | tr '\n' ' ')
	eq "$2: nothing left behind" "" "$left"
}
mkdir -p "$TMP/bad"
head -c 100000 "$TMP/k/synth3.json" > "$TMP/bad/cut.json"
one_line "a truncated JSON" "cut.json" "$S" build "$TMP/bad/cut.json"
no_debris "$TMP/bad/cut.tables" "a truncated JSON"
head -c 100000 "$TMP/k/synth3.trace" > "$TMP/bad/dmg.trace"
"$S" build "$TMP/bad/dmg.trace" > "$TMP/bo" 2> "$TMP/be"; rc=$?
check "a damaged trace: non-zero exit naming the trace" sh -c "[ $rc != 0 ] && grep -q 'dmg.trace' '$TMP/be'"
no_debris "$TMP/bad/dmg.tables" "a damaged trace"
"$P" "$TMP/bad/dmg.trace" --tables --no-html > "$TMP/bo" 2> "$TMP/be"; rc=$?
check "kutrace_postproc --tables on a damaged trace: non-zero exit" test $rc != 0
no_debris "$TMP/bad/dmg.tables" "kutrace_postproc --tables on a damaged trace"
cp -r "$st" "$TMP/bad/miss.tables"; rm "$TMP/bad/miss.tables/wakeup.parquet"
one_line "a store with a missing Parquet file" "miss.tables/wakeup.parquet" "$S" "$TMP/bad/miss.tables" -c "select 1"
cp -r "$st" "$TMP/bad/corrupt.tables"
head -c 300 "$st/span.parquet" > "$TMP/bad/corrupt.tables/span.parquet"
one_line "a store with a corrupt Parquet file" "corrupt.tables/span.parquet" "$S" "$TMP/bad/corrupt.tables" -c "select 1"
# A footer that declares a list of 208 M elements in 700 bytes: refused
# before DuckDB sizes anything from it (DuckDB 1.4.4 would allocate
# 32 bytes an element first: 6.5 GB, then say "not a whole Parquet file";
# fuzz_store found it).  No ulimit here: ASan's shadow memory needs more.
cp -r "$st" "$TMP/bad/oom.tables"
python3 - "$TMP/bad/oom.tables/span.parquet" <<'PY'
import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
i = d.rindex(b"\x18\x03ipc")          # path_in_schema of the last column: 1 string
n, v = 208000000, b""
while True:
    b = n & 0x7F; n >>= 7
    v += bytes([b | 0x80 if n else b])
    if not n: break
d[i:i + 1] = bytes([0xF8]) + v
d[-8:-4] = struct.pack("<I", struct.unpack("<I", d[-8:-4])[0] + len(v))
open(sys.argv[1], "wb").write(d)
PY
one_line "a Parquet footer declaring more than it holds" "oom.tables/span.parquet: a damaged footer" \
	"$S" "$TMP/bad/oom.tables" -c 'select 1'
# A column name that is SQL: --export writes it as a name, runs nothing.
cp -r "$st" "$TMP/bad/inj.tables"
echo "secret-7f3a9c" > "$TMP/bad/secret"
"$S" "$st" -c "COPY (SELECT *, 1 AS \"pid\"\", (SELECT content FROM read_text('$TMP/bad/secret')) AS \"\"y\"
	FROM thread) TO '$TMP/bad/inj.tables/thread.parquet' (FORMAT parquet)" > /dev/null
"$S" "$TMP/bad/inj.tables" --export tsv "$TMP/bad/inj.tsv" 2>/dev/null
check "--export quotes column names a store's file gives (no SQL from a store runs)" \
	sh -c "test -s '$TMP/bad/inj.tsv/thread.tsv' && ! grep -q secret-7f3a9c '$TMP/bad/inj.tsv/thread.tsv' && head -1 '$TMP/bad/inj.tsv/thread.tsv' | grep -q read_text"
cp -r "$st" "$TMP/bad/new.tables"
sed -i 's/"store_version": 1/"store_version": 99/' "$TMP/bad/new.tables/meta.json"
one_line "a store written by a newer version" "new.tables: store version 99 is newer" "$S" "$TMP/bad/new.tables" -c "select 1"
one_line "an SQL error" "^kutrace_sql: SQL error: " "$S" "$st" -c "select nosuchcolumn from span"
one_line "no such report" "no such report" "$S" "$st" --report nosuch
mkdir -p "$TMP/bad/notastore"; touch "$TMP/bad/notastore/keep"
one_line "build refuses to replace a directory that is not a store" "not a kutrace store" \
	"$S" build "$TMP/k/rpc.json" -o "$TMP/bad/notastore"
check "... and leaves it as it was" test -f "$TMP/bad/notastore/keep"
"$S" build "$TMP/k/rpc.json" -o "$TMP/k/rpc.again" 2>/dev/null
"$S" build "$TMP/k/basic.json" -o "$TMP/k/rpc.again" 2>/dev/null
eq "build replaces a store that is there" "basic" "$(q "$TMP/k/rpc.again" "select trace_id from machine")"
no_debris "$TMP/k/rpc.again." "replacing a store"

# The row stream (kutrace_sql build --rows-fd, lib/rows/rowpipe.c) with
# times near the limits (issue 48, item 6a): start * 10 and dur * 10 must
# not overflow into the store.  A crafted stream: one name, one row, the
# header, the end mark.  Refused in one line, no store left; a row at the
# bound is taken.
rowpipe() {	# FILE START DUR
	python3 - "$@" <<'PY'
import struct, sys
f, start, dur = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
hdr = b'{"Comment": "crafted", "tracebase": "2024-01-01_00:00:00", "events": ['
out = b"N" + struct.pack("=II", 0, 4) + b"user"
out += b"R" + struct.pack("=8q", start, dur, 0, 0, 0, 42, 0, 0x10000 + 42) + struct.pack("=3i", 0, 0, 0)
out += b"M" + struct.pack("=I", len(hdr)) + hdr + b"E"
open(f, "wb").write(out)
PY
}
rowpipe "$TMP/bad/big.rows" 922337203685477580 10
one_line "row stream: a start near INT64_MAX/10 is refused" "row time out of range" \
	sh -c "exec '$S' build --rows-fd 3 --source crafted -o '$TMP/bad/big.tables' 3< '$TMP/bad/big.rows'"
no_debris "$TMP/bad/big.tables" "row stream: a start out of range"
rowpipe "$TMP/bad/bigdur.rows" 100 -922337203685477580
one_line "row stream: a dur near INT64_MIN/10 is refused" "row time out of range" \
	sh -c "exec '$S' build --rows-fd 3 --source crafted -o '$TMP/bad/bigdur.tables' 3< '$TMP/bad/bigdur.rows'"
no_debris "$TMP/bad/bigdur.tables" "row stream: a dur out of range"
rowpipe "$TMP/bad/edge.rows" 449999999999999990 10
"$S" build --rows-fd 3 --source crafted -o "$TMP/bad/edge.tables" 3< "$TMP/bad/edge.rows" 2>/dev/null
eq "row stream: a row at the bound is taken, exactly" "4499999999999999900,100" \
	"$(q "$TMP/bad/edge.tables" "select ts, dur from span")"

# A name that is not UTF-8 (issue 48, item 7), in a JSON file and in the
# row stream: the store is written, the bad byte U+FFFD.
sed '0,/"-idle-"\]/s//"-id\xf1le-"]/' "$TMP/k/rpc.json" > "$TMP/bad/u8.json"
"$S" build "$TMP/bad/u8.json" -o "$TMP/bad/u8.tables" 2>/dev/null
eq "JSON: a name with a 0xF1 byte: the store, the byte as U+FFFD" "1" \
	"$(q "$TMP/bad/u8.tables" "select count(*) from span where name = '-id' || chr(65533) || 'le-'")"
python3 - "$TMP/bad/u8.rows" <<'PY'
import struct, sys
hdr = b'{"Comment": "crafted", "tracebase": "2024-01-01_00:00:00", "events": ['
name = b"us\xf1er"
out = b"N" + struct.pack("=II", 0, len(name)) + name
out += b"R" + struct.pack("=8q", 100, 10, 0, 0, 0, 42, 0, 0x10000 + 42) + struct.pack("=3i", 0, 0, 0)
out += b"M" + struct.pack("=I", len(hdr)) + hdr + b"E"
open(sys.argv[1], "wb").write(out)
PY
"$S" build --rows-fd 3 --source crafted -o "$TMP/bad/u8r.tables" 3< "$TMP/bad/u8.rows" 2>/dev/null
eq "row stream: a name with a 0xF1 byte: the store, the byte as U+FFFD" "1" \
	"$(q "$TMP/bad/u8r.tables" "select count(*) from span where name = 'us' || chr(65533) || 'er'")"

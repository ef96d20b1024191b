#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# A current ClickHouse reads the table stores' Parquet files as they are
# (docs/TABLES.md, "Storage"): ClickHouse 26.7's engine as a library
# (libchdb.so, pinned by tests/deps/chdb.sh) through file('T.parquet',
# Parquet), by tests/tools/kt_chdb.c.  On stores built from the goldens, a
# generated trace with every kind of work, the original KUtrace's own
# trace and a 10 MB generated trace (7 row groups of span, each column in
# the encoding parquet.c chose for it):
# - the five reports in ClickHouse's SQL (tests/clickhouse/reports/, their
#   tables read from the store's files) give DuckDB's answers
#   (kutrace_sql --report), cell for cell;
# - every row of span and slice, every column, is the same in both
#   engines (the small stores), and per event the sums of every column
#   (the large one).
. "$(dirname "$0")/lib.sh"
export LC_ALL=C
S=$KT_BIN/kutrace_sql
CH=$KT_BIN/kt_chdb
C=$KT_ROOT/tests/clickhouse
REPORTS="cpu syscalls waits rpc locks"
VER=$(sed -n 's/^VER=//p' "$KT_ROOT/tests/deps/chdb.sh")
LIB=${KT_CHDB_LIB:-/var/cache/kutrace/chdb/$VER/lib/libchdb.so}

if [ "$(uname -m)" != x86_64 ]; then
	skip "chdb: no libchdb.so build for $(uname -m) (tests/deps/chdb.sh)"; exit 0
fi
if ! command -v python3 >/dev/null; then
	skip "chdb: python3 not installed (tests/deps/tools.apt)"; exit 0
fi
if [ ! -x "$S" ] || [ ! -x "$CH" ]; then
	nok "kutrace_sql and kt_chdb are built (make test-progs)"; exit 0
fi
if [ ! -f "$LIB" ]; then
	nok "libchdb.so $VER in $(dirname "$LIB") (tests/install-deps.sh brings it)"; exit 0
fi
out=$(echo "SELECT version()" > "$TMP/v.sql" && "$CH" "$LIB" "$TMP/v.sql" 2>&1)
want=$(echo "$VER" | cut -d. -f1-2)
eq "libchdb.so is ClickHouse $want" "$want" "$(echo "$out" | tail -1 | tr -d '"' | cut -d. -f1-2)"

# same_csv WHAT EXPECTED ACTUAL: the same table, cell for cell (samecsv.py)
same_csv() {
	if python3 "$C/samecsv.py" "$2" "$3" > "$TMP/samecsv.out" 2>&1; then ok "$1"; else
		nok "$1"; sed 's/^/#   /' "$TMP/samecsv.out" | head -20
	fi
}
# chq STORE SQLFILE OUT: ClickHouse's answer, every table of the schema
# read from STORE's Parquet files (the reports are in 18.16's SQL, whose
# joined subqueries need no alias)
chq() {
	sed -E "s#\\b(FROM|JOIN) (span|slice|cpu|wait|thread|rpc|lock)\\b#\\1 file('$1/\\2.parquet', Parquet)#g" \
		"$2" | sed -z 's/;[[:space:]]*$/ SETTINGS joined_subquery_requires_alias = 0\n/' > "$TMP/ch.sql"
	"$CH" "$LIB" "$TMP/ch.sql" > "$3" 2> "$TMP/ch.err" || { sed 's/^/#   /' "$TMP/ch.err"; return 1; }
}
# both STORE NAME SQL: the same query in ClickHouse and DuckDB, compared
both() {
	echo "$3" > "$TMP/q.sql"
	if ! chq "$1" "$TMP/q.sql" "$TMP/ch.csv"; then nok "$2: ClickHouse ran it"; return; fi
	if ! "$S" "$1" --csv -c "$3" > "$TMP/dd.csv" 2> "$TMP/dd.err"; then
		nok "$2: DuckDB ran it"; sed 's/^/#   /' "$TMP/dd.err"; return
	fi
	same_csv "$2 ($(($(wc -l < "$TMP/dd.csv") - 1)) rows)" "$TMP/dd.csv" "$TMP/ch.csv"
}

SPAN_COLS="ts, dur, cpu, pid, rpc, event, arg, ret, ipc, name, trace_id, machine"
SLICE_COLS="id, ts, dur, cpu, pid, rpc, event, name, kind, arg, ret, depth, parent_id, self_ns, trace_id, machine"
# Per event, a sum or a count of every column (ClickHouse's and DuckDB's
# SQL alike).
SUMS="SELECT event, count(*) AS n, sum(ts) AS s_ts, sum(dur) AS s_dur, sum(cpu) AS s_cpu,
  sum(pid) AS s_pid, sum(rpc) AS s_rpc, sum(arg) AS s_arg, sum(ret) AS s_ret, sum(ipc) AS s_ipc,
  sum(length(name)) AS name_bytes, count(DISTINCT name) AS names, min(name) AS first,
  max(name) AS last, count(DISTINCT trace_id) AS traces, min(machine) AS s_machine
  FROM span GROUP BY event ORDER BY event"

"$KT_BIN/kutrace_synth" -s 5 -c 4 -d 0.1 -x 30,10,20,5 -o "$TMP/synth5.trace" >/dev/null 2>&1
"$KT_BIN/kutrace_synth" -s 7 -c 4 -m 10 -o "$TMP/big.trace" >/dev/null 2>&1
REAL=$(real_trace)
for t in basic rpc ipi exec edges synth5 hello_world_demo big; do
	src=$KT_ROOT/tests/golden/$t.trace st=$TMP/$t.tables
	case $t in synth5|big) src=$TMP/$t.trace ;; hello_world_demo) src=$REAL ;; esac
	if [ ! -f "$src" ]; then nok "$t: no $src"; continue; fi
	if ! "$S" build "$src" -o "$st" > "$TMP/sql.err" 2>&1; then
		nok "kutrace_sql build $t"; tail -3 "$TMP/sql.err" | sed 's/^/#   /'; continue
	fi
	for r in $REPORTS; do
		if ! "$S" "$st" --report $r --csv > "$TMP/dd-$r.csv" 2> "$TMP/sql.err"; then
			nok "$t: kutrace_sql --report $r"; sed 's/^/#   /' "$TMP/sql.err"; continue
		fi
		if ! chq "$st" "$C/reports/$r.sql" "$TMP/ch-$r.csv"; then
			nok "$t: report $r in ClickHouse"; continue
		fi
		same_csv "$t: report $r, ClickHouse and DuckDB agree ($(($(wc -l < "$TMP/dd-$r.csv") - 1)) rows)" \
			"$TMP/dd-$r.csv" "$TMP/ch-$r.csv"
	done
	if [ $t = big ]; then
		both "$st" "$t: span, per event the sums of every column" "$SUMS"
		both "$st" "$t: slice, per kind the sums of every column" \
			"SELECT kind, count(*) AS n, sum(id) AS s_id, sum(ts) AS s_ts, sum(dur) AS s_dur,
			   sum(cpu) AS s_cpu, sum(pid) AS s_pid, sum(rpc) AS s_rpc, sum(event) AS s_event,
			   sum(length(name)) AS name_bytes, sum(arg) AS s_arg, sum(ret) AS s_ret,
			   sum(depth) AS s_depth, sum(parent_id) AS s_parent, count(parent_id) AS parents,
			   sum(self_ns) AS s_self FROM slice GROUP BY kind ORDER BY kind"
	else
		both "$st" "$t: every row of span" "SELECT $SPAN_COLS FROM span ORDER BY $SPAN_COLS"
		both "$st" "$t: every row of slice" "SELECT $SLICE_COLS FROM slice ORDER BY id"
	fi
done

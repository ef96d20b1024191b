#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The table stores scale out on ClickHouse (docs/TABLES.md, "Other
# engines"): Debian 12's clickhouse-server (18.16, installed by
# tests/clickhouse/ch.sh when missing) as two shards on 127.0.0.1, a
# Distributed table over MergeTree tables per table of the schema
# (tests/clickhouse/schema.sql), loaded from TSV exports, and the five
# reports of docs/TABLES.md in ClickHouse's SQL (tests/clickhouse/reports/).
# On the hand-made stores of tests/clickhouse/data/{a,b} the reports give
# the answers worked out by hand (data/expected/), however the rows are
# spread over the shards; on stores built from the golden traces they give
# the same answers as kutrace_sql's DuckDB.  ch.sh starts and stops its own
# servers: none is left running.
. tests/lib.sh
C=tests/clickhouse
REPORTS="cpu syscalls waits rpc locks"
if ! command -v python3 >/dev/null; then
	skip "clickhouse: python3 not installed (tests/deps/tools.apt)"
	exit 0
fi
export TMPDIR=$TMP/chtmp # ch.sh's servers' directories, to find them after
mkdir -p "$TMPDIR"
rargs=()
for r in $REPORTS; do rargs+=(-r "$r"); done

# no_server WHAT: no process of ch.sh's servers is left (their config files
# live under $TMPDIR)
no_server() {
	if pgrep -f "$TMPDIR/" >/dev/null; then nok "$1"; pgrep -af "$TMPDIR/" | sed 's/^/#   /'
	else ok "$1"; fi
}
# rows T DIR...: the rows of table T in the TSV stores DIR (headers aside)
rows() {
	local t=$1 n=0 d; shift
	for d in "$@"; do [ -f "$d/$t.tsv" ] && n=$((n + $(tail -n +2 "$d/$t.tsv" | wc -l))); done
	echo $n
}
# same_csv WHAT EXPECTED ACTUAL: samecsv.py finds the same table in both
same_csv() {
	if [ ! -f "$3" ]; then nok "$1: no $3"; return; fi
	if python3 $C/samecsv.py "$2" "$3" > "$TMP/samecsv.out" 2>&1; then ok "$1"; else
		nok "$1"; sed 's/^/#   /' "$TMP/samecsv.out"
		sed 's/^/#   got: /' "$3" | head -20
	fi
}

# --- The hand-made stores: a (2 CPUs, 101 futex calls for a p99 below the
# maximum, a user thread 65536 whose event is 0x20000 like -c-exit-,
# escaped names) and b (a 0.005 % busy CPU, rounding half up; ties).
D=$C/data
cat > "$TMP/machine.sql" <<-'EOF'
	SELECT trace_id, machine, kernel, mbit_sec, flags, cpus FROM machine ORDER BY trace_id
EOF
cat > "$TMP/others.sql" <<-'EOF'
	SELECT
	  (SELECT count() FROM wakeup WHERE latency IS NULL AND wakee_cpu IS NULL AND reason IS NULL) AS wakeup_nulls,
	  (SELECT arraySort(groupArray(label)) FROM mark) AS labels,
	  (SELECT sum(kernel) FROM pc_sample) AS kernel_samples,
	  (SELECT max(hash) FROM packet) AS max_hash,
	  (SELECT countIf(hash IS NULL) FROM packet) AS null_hash,
	  (SELECT sum(value) FROM counter) AS mhz,
	  (SELECT countIf(end_state IS NULL) FROM sched_slice) AS null_end
EOF
for split in rows stores; do
	out=$TMP/hand-$split
	$C/ch.sh -o "$out" --split $split "${rargs[@]}" -r "$TMP/machine.sql" -r "$TMP/others.sql" \
		$D/a $D/b > "$TMP/ch.log" 2>&1
	rc=$?
	if [ $rc = 77 ]; then
		skip "clickhouse: $(tail -1 "$TMP/ch.log")"
		exit 0
	fi
	if [ $rc != 0 ]; then
		nok "ch.sh --split $split on the hand-made stores (exit $rc)"
		tail -20 "$TMP/ch.log" | sed 's/^/#   /'
		continue
	fi
	ok "ch.sh --split $split: two servers, schema, the stores loaded, the reports run"
	for r in $REPORTS; do
		same_csv "clickhouse --split $split: report $r as worked out by hand" "$D/expected/$r.csv" "$out/$r.csv"
	done
	# Every row in once, through the shards and through the Distributed
	# table; with --split rows every table of 2 rows or more on both
	# shards, with --split stores store a on shard 1, store b on shard 2.
	bad=""
	while read -r t s1 s2 all; do
		n=$(rows "$t" $D/a $D/b)
		[ "$all" = "$n" ] && [ $((s1 + s2)) = "$n" ] || bad="$bad $t($s1+$s2=$all, not $n)"
		if [ $split = rows ]; then
			[ "$n" -lt 2 ] || { [ "$s1" -gt 0 ] && [ "$s2" -gt 0 ]; } || bad="$bad $t(shards $s1,$s2)"
		else
			[ "$s1" = "$(rows "$t" $D/a)" ] && [ "$s2" = "$(rows "$t" $D/b)" ] || bad="$bad $t(shards $s1,$s2)"
		fi
	done < "$out/counts.tsv"
	eq "clickhouse --split $split: 18 tables, each row on one shard, the Distributed tables see all" \
		"18 " "$(wc -l < "$out/counts.tsv") $bad"
	sums=$(awk '{ a += $2; b += $3 } END { print (a > 0 && b > 0) }' "$out/counts.tsv")
	eq "clickhouse --split $split: both shards hold rows" 1 "$sums"
	# The loader reads columns by the header's names (machine.tsv has
	# trace_id and machine first), NULLs and escapes intact.
	eq "clickhouse --split $split: machine, columns by name, NULLs, a backslash" \
		"$(printf '"trace_id","machine","kernel","mbit_sec","flags","cpus"\n"a","hostA","6.1.0",0.5,0,2\n"b","host\\B",\\N,\\N,\\N,2')" \
		"$(cat "$out/machine.csv")"
	eq "clickhouse --split $split: the other tables: NULLs, a tab, UInt8, a 32-bit hash" \
		"$(printf '"wakeup_nulls","labels","kernel_samples","max_hash","null_hash","mhz","null_end"\n1,"[\x2742\x27,\x27go\x27,\x27tab\\there\x27]",1,4294967295,1,3600.5,3')" \
		"$(cat "$out/others.csv")"
done
no_server "clickhouse: no server left running after ch.sh"

# A failing report stops the servers too.
echo "SELECT no_such_column FROM span" > "$TMP/bad.sql"
mkdir -p "$TMP/empty"
if $C/ch.sh -r "$TMP/bad.sql" "$TMP/empty" > "$TMP/bad.out" 2>&1; then
	nok "ch.sh fails on a bad report"
else
	ok "ch.sh fails on a bad report"
fi
no_server "clickhouse: no server left running after a failed report"

# --- Same answers as DuckDB on the same stores --------------------------
# For each report: kutrace_sql's DuckDB over the stores built from the
# golden traces, against ch.sh over the same stores' TSV exports (two
# shards).  (The lead: the kutrace_sql command lines below follow
# docs/TABLES.md; adjust them to the program, and the traces if need be.)
same_as_duckdb() {
	local st=$TMP/stores tsv=$TMP/tsv out=$TMP/ch-golden dd=$TMP/duckdb t n r stores=() dirs=()
	mkdir -p "$st" "$tsv" "$dd"
	# The goldens, a generated trace with every kind of work, and the
	# original KUtrace's own trace of hello_world (real outside data).
	"$KT_BIN/kutrace_synth" -s 5 -c 4 -d 0.1 -x 30,10,20,5 -o "$TMP/synth5.trace" >/dev/null 2>&1
	local real
	real=$(real_trace)
	for t in basic rpc ipi exec edges synth5 hello_world_demo; do
		local src=tests/golden/$t.trace
		case $t in synth5) src=$TMP/synth5.trace ;; hello_world_demo) src=$real ;; esac
		[ -f "$src" ] || continue
		if ! "$KT_BIN/kutrace_sql" build "$src" -o "$st/$t.tables" > "$TMP/sql.err" 2>&1; then
			nok "kutrace_sql build $t"; tail -3 "$TMP/sql.err" | sed 's/^/#   /'; continue
		fi
		if ! "$KT_BIN/kutrace_sql" "$st/$t.tables" --export tsv "$tsv/$t" > "$TMP/sql.err" 2>&1; then
			nok "kutrace_sql --export tsv ($t)"; tail -3 "$TMP/sql.err" | sed 's/^/#   /'; continue
		fi
		stores+=("$st/$t.tables") dirs+=("$tsv/$t")
	done
	[ ${#stores[@]} -gt 0 ] || { nok "same answers as DuckDB: no store built"; return; }
	n=${#stores[@]}
	if ! $C/ch.sh -o "$out" "${rargs[@]}" "${dirs[@]}" > "$TMP/ch.log" 2>&1; then
		nok "ch.sh on the exports of $n golden stores"; tail -10 "$TMP/ch.log" | sed 's/^/#   /'; return
	fi
	ok "ch.sh loads the exports of $n golden stores"
	for r in $REPORTS; do
		if ! "$KT_BIN/kutrace_sql" "${stores[@]}" --report $r --csv > "$dd/$r.csv" 2> "$TMP/sql.err"; then
			nok "kutrace_sql --report $r"; tail -3 "$TMP/sql.err" | sed 's/^/#   /'; continue
		fi
		same_csv "report $r: ClickHouse (2 shards) and DuckDB agree on $n stores ($(($(wc -l < "$dd/$r.csv") - 1)) rows)" "$dd/$r.csv" "$out/$r.csv"
	done
	no_server "clickhouse: no server left running after the golden stores"
}
if [ -x "$KT_BIN/kutrace_sql" ]; then
	same_as_duckdb
else
	skip "reports in ClickHouse and DuckDB agree: no $KT_BIN/kutrace_sql"
fi

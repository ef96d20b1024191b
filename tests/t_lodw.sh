#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The viewer's level of detail made in the store's own pass (issue 43,
# lib/store/lodw.c): kutrace_sql build writes STORE/lod/ as the rows
# stream in, and every file of it is the one the SQL (kutrace_view
# --prepare on the same store without lod/) makes, row for row and in
# the same order (Parquet files compared in DuckDB with their row
# numbers, meta and levels byte for byte), on synthetic traces of 1, 4
# and 16 CPUs, with RPCs, idle ends and a long gap, and on the real
# trace; rows out of time order leave lod/ to the SQL; a server started
# on a new store serves at once, with the pass's pyramid.
. "$(dirname "$0")/lib.sh"
V=$KT_BIN/kutrace_view
Q=$KT_BIN/kutrace_sql
S=$KT_BIN/kutrace_synth
export LC_ALL=C
if [ ! -x "$V" ] || [ ! -x "$Q" ]; then
	nok "kutrace_view and kutrace_sql are built (make deps brings DuckDB)"; exit 0
fi

# same_lod NAME STORE: STORE/lod (the pass's) against the SQL's, made on
# a copy of STORE (hard links) without lod/.
same_lod() {
	local name=$1 st=$2 c=$2.sql f sql="" n=0
	if [ ! -s "$st/lod/levels" ]; then nok "$name: the build wrote lod/levels"; return; fi
	rm -rf "$c"; cp -al "$st" "$c"; rm -rf "$c/lod"
	if ! "$V" "$c" --prepare --pyramid-min 0 2> "$TMP/prep.err"; then
		nok "$name: kutrace_view --prepare: $(head -1 "$TMP/prep.err")"; return
	fi
	eq "$name: the same files in lod/" "$(cd "$c/lod" && ls)" "$(cd "$st/lod" && ls)"
	for f in meta levels; do
		check "$name: lod/$f the same" cmp -s "$st/lod/$f" "$c/lod/$f"
	done
	# One run, a statement per file: the rows (with their row numbers)
	# of either not in the other, and its rows.
	for f in $(cd "$c/lod" && ls | grep '\.parquet$'); do
		local a="read_parquet('$st/lod/$f', file_row_number = true)"
		local b="read_parquet('$c/lod/$f', file_row_number = true)"
		sql="$sql INSERT INTO r SELECT '$f', (SELECT count(*) FROM (SELECT * FROM $a EXCEPT ALL SELECT * FROM $b))
			+ (SELECT count(*) FROM (SELECT * FROM $b EXCEPT ALL SELECT * FROM $a)), (SELECT count(*) FROM $b);"
		n=$((n + 1))
	done
	"$Q" "$st" --csv -c "CREATE TEMP TABLE r (f VARCHAR, d BIGINT, n BIGINT); $sql
		SELECT string_agg(f, ' ' ORDER BY f) FILTER (WHERE d > 0), sum(n), count(*) FROM r" \
		> "$TMP/cmp.csv" 2> "$TMP/cmp.err"
	IFS=, read -r diff rows files <<< "$(tail -n +2 "$TMP/cmp.csv")"
	eq "$name: every Parquet file of lod/ ($files, $rows rows) the SQL's, row for row" \
		",$n" "$diff,$files"
	check "$name: the files compared hold rows" test "${rows:-0}" -gt 0
	rm -rf "$c"
}

build() { "$Q" build "$1" -o "$2" --quiet 2> "$TMP/build.err" || nok "kutrace_sql build $1: $(head -1 "$TMP/build.err")"; }

if [ -x "$S" ]; then
	for spec in "c1|-s 1 -c 1" "c4rpc|-s 3 -c 4 --rpc" "c16|-s 2 -c 16 -m 2" \
		    "idle-end|-s 1 -c 4 --idle-end 0.01" "long-gap|-s 5 -c 4 --long-gap 2" \
		    "rpc-big|-s 6 -c 4 --rpc -m 8"; do
		n=${spec%%|*}
		# shellcheck disable=SC2086
		"$S" ${spec#*|} -o "$TMP/$n.trace" > /dev/null 2>&1 || nok "kutrace_synth ${spec#*|}"
		build "$TMP/$n.trace" "$TMP/$n.tables"
		same_lod "synthetic ${spec#*|}" "$TMP/$n.tables"
	done
	eq "rpc-big: more than one level of detail, RPC bins" "yes yes" \
		"$([ "$(cut -d' ' -f2 "$TMP/rpc-big.tables/lod/levels")" -gt 1 ] && echo yes) $("$Q" "$TMP/rpc-big.tables" --csv -c "SELECT CASE WHEN count(*) > 1000 THEN 'yes' END FROM read_parquet('$TMP/rpc-big.tables/lod/r0.parquet')" | tail -1)"
	# The server on a new store: no SQL pass before its URL, the pass's
	# pyramid left as it was.
	cp -a "$TMP/rpc-big.tables/lod" "$TMP/lod.before"
	"$V" "$TMP/rpc-big.tables" --prepare > /dev/null 2> "$TMP/prep.err"
	eq "a new store: --prepare finds the level of detail ready" "0 1" "$? $(grep -c 'ready' "$TMP/prep.err")"
	check "a new store: --prepare leaves the pass's lod/ as it was" diff -r "$TMP/lod.before" "$TMP/rpc-big.tables/lod"
else
	skip "t_lodw: no kutrace_synth"
fi

REAL=$(real_trace)
build "$REAL" "$TMP/real.tables"
same_lod "the real trace" "$TMP/real.tables"

# Rows out of time order (a JSON whose two first rows are swapped): no
# lod/ from the pass, the viewer makes it with SQL.
python3 - "$REAL" "$TMP/swapped.json" <<'EOF'
import re, sys
lines = open(sys.argv[1]).read().split('\n')
rows = [i for i, l in enumerate(lines) if re.match(r'^\[ *[0-9]', l) and not l.startswith('[999')]
a, b = rows[0], rows[-2]
lines[a], lines[b] = lines[b], lines[a]
open(sys.argv[2], 'w').write('\n'.join(lines))
EOF
build "$TMP/swapped.json" "$TMP/swapped.tables"
check "rows out of time order: the store is written, without lod/" \
	sh -c "test -s '$TMP/swapped.tables/span.parquet' && test ! -e '$TMP/swapped.tables/lod'"
"$V" "$TMP/swapped.tables" --prepare --pyramid-min 0 2> "$TMP/prep.err"
eq "rows out of time order: kutrace_view --prepare makes lod/" "0 1" "$? $(test -s "$TMP/swapped.tables/lod/levels" && echo 1)"
exit 0

#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# fuzz_store's seeds of NULLs and extreme values (issue 48): for every
# table of the sound store tests/fuzz/store/rpc.tables, its rows and one
# more whose every column is NULL (TABLE.null.store), and its rows and two
# more holding each column's least and greatest value: BIGINT and INTEGER
# at their limits, DOUBLE -inf and nan, BOOLEAN false and true, VARCHAR ''
# and 5,000 bytes with a U+FFFD (TABLE.extreme.store); meta.json's row
# count for that table is the new one, so the store opens and every
# report runs over the values.  Run by mkseeds.sh; alone after it:
#   tests/fuzz/store/mkedge.sh [BIN]     (BIN: build/bin by default)
set -eu
cd "$(dirname "$0")/../../.."
B=${1:-build/bin}
S=tests/fuzz/store/rpc.tables
C=tests/fuzz/corpus/fuzz_store
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
"$B/kutrace_sql" "$S" --csv -c "SELECT table_name, string_agg(column_name || ':' || data_type, ' ' ORDER BY ordinal_position)
	FROM information_schema.columns GROUP BY 1 ORDER BY 1" | tail -n +2 > "$T/cols"
python3 - "$B/kutrace_sql" "$S" "$C" "$T" <<'PY'
import json, re, struct, subprocess, sys
q, store, corpus, tmp = sys.argv[1:]
src = open("lib/store/store.c").read()
tables = re.findall(r'"(\w+)"', src.split("kt_store_tables[] = {")[1].split("NULL")[0])
cols = {}
for line in open(tmp + "/cols"):
    t, c = line.strip().split(",", 1)
    cols[t] = [x.split(":") for x in c.strip('"').split()]
lo = {"BIGINT": "(-9223372036854775808)::BIGINT", "INTEGER": "(-2147483648)::INTEGER",
      "DOUBLE": "'-inf'::DOUBLE", "BOOLEAN": "false", "VARCHAR": "''"}
hi = {"BIGINT": "9223372036854775807::BIGINT", "INTEGER": "2147483647::INTEGER",
      "DOUBLE": "'nan'::DOUBLE", "BOOLEAN": "true", "VARCHAR": "repeat('x', 4997) || chr(65533)"}
meta = json.load(open(store + "/meta.json"))
for i, t in enumerate(tables):
    c = cols[t]
    n = meta["tables"][t]
    for kind, extra in (("null", ["SELECT " + ", ".join("NULL::%s AS %s" % (ty, nm) for nm, ty in c)]),
                        ("extreme", ["SELECT " + ", ".join("%s AS %s" % (v[ty], nm) for nm, ty in c)
                                     for v in (lo, hi)])):
        out = "%s/%s.%s.parquet" % (tmp, t, kind)
        sql = "COPY (SELECT * FROM %s UNION ALL %s) TO '%s' (FORMAT parquet)" % (t, " UNION ALL ".join(extra), out)
        subprocess.run([q, store, "-c", sql], check=True, stdout=subprocess.DEVNULL)
        m = json.loads(json.dumps(meta))
        m["tables"][t] = n + len(extra)
        mj = json.dumps(m, indent=1).encode()
        pq = open(out, "rb").read()
        open("%s/%s.%s.store" % (corpus, t, kind), "wb").write(bytes([i]) + struct.pack("<H", len(mj)) + mj + pq)
PY
ls "$C" | grep -c '\.\(null\|extreme\)\.store$'

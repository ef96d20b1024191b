#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Remakes what fuzz_store (tests/fuzz/fuzz_store.c) starts from, after a
# change to the table store's format: the sound store rpc.tables/ (from
# tests/golden/rpc.trace) whose files stand for the tables an input does
# not replace, and the seeds tests/fuzz/corpus/fuzz_store/TABLE.store:
# byte 0 the table's index in kt_store_tables[] (lib/store/store.c), bytes 1-2
# the length of meta.json, meta.json, then the table's Parquet file.
# Then the seeds of NULLs and extreme values (mkedge.sh).
# Also the row-stream seeds of fuzz_rowpipe (tests/fuzz/corpus/fuzz_rowpipe/).
# A rerun changes some bytes, not the meaning: the row stream's header has
# a random id, and DuckDB writes thread_state's rows in any order.
#   tests/fuzz/store/mkseeds.sh [BIN]     (BIN: build/bin by default)
set -eu
cd "$(dirname "$0")/../../.."
B=${1:-build/bin}
S=tests/fuzz/store/rpc.tables
C=tests/fuzz/corpus/fuzz_store
rm -rf "$S" "$C"
mkdir -p "$C" tests/fuzz/corpus/fuzz_rowpipe
# a relative source path: meta.json does not name this checkout
"$B/kutrace_sql" build tests/golden/rpc.trace -o "$S"
python3 - "$S" "$C" <<'PY'
import re, struct, sys
store, corpus = sys.argv[1:]
# kt_store_tables[], in its order
src = open("lib/store/store.c").read()
tables = re.findall(r'"(\w+)"', src.split("kt_store_tables[] = {")[1].split("NULL")[0])
meta = open(store + "/meta.json", "rb").read()
for i, t in enumerate(tables):
    pq = open("%s/%s.parquet" % (store, t), "rb").read()
    open("%s/%s.store" % (corpus, t), "wb").write(bytes([i]) + struct.pack("<H", len(meta)) + meta + pq)
PY
for t in rpc basic ipi exec; do
	"$B/kutrace_postproc" "tests/golden/$t.trace" --rows-fd 3 --no-json 3> "tests/fuzz/corpus/fuzz_rowpipe/$t.rows" 2>/dev/null
done
# the smallest sound stream: no rows, the header and the end mark
printf 'M\002\000\000\000{}E' > tests/fuzz/corpus/fuzz_rowpipe/empty.rows
tests/fuzz/store/mkedge.sh "$B"
ls -l "$S" "$C" tests/fuzz/corpus/fuzz_rowpipe

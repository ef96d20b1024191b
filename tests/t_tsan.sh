#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# kutrace_postproc hands rows to a writer thread (lib/rows/jsonout.c): build it
# with ThreadSanitizer and run it on a trace big enough for many chunks,
# with the default and with a tiny memory budget (late rows, final copy).
. tests/lib.sh
if ! echo 'int main(void){return 0;}' | gcc -fsanitize=thread -x c - -o "$TMP/t" 2>/dev/null; then
	skip "ThreadSanitizer: gcc -fsanitize=thread does not work here"
	exit 0
fi
gen=$(ls "${KT_BIN%/bin}/gen/kt_tables.c" build/gen/kt_tables.c 2>/dev/null | head -1)
if [ -z "$gen" ]; then
	skip "ThreadSanitizer: build/gen/kt_tables.c missing (run make first)"
	exit 0
fi
# The library without the table store's part (libktstore: DuckDB), as
# query/query.mk lists it.
store=$(sed -n 's/^\$(LIBKTSTORE): //p' query/query.mk | grep -o 'lib/[a-z_]*/[a-z_]*\.o' | sed 's/\.o$/.c/')
inc=$(for d in lib lib/*/; do printf -- '-I%s ' "${d%/}"; done)
if ! gcc -O1 -g -fsanitize=thread -std=c11 -D_GNU_SOURCE -Iinclude $inc -Ilibkutrace -DKT_HAVE_ZLIB=1 $(ls lib/*/*.c | grep -vxF "$store") libkutrace/*.c "$gen" \
	postprocess/kutrace_postproc.c -o "$TMP/pp" -lm -ljansson -lz 2>"$TMP/cc.err"; then
	nok "kutrace_postproc builds with -fsanitize=thread"; sed 's/^/#   /' "$TMP/cc.err"; exit 0
fi
ok "kutrace_postproc builds with -fsanitize=thread"
"$KT_BIN/kutrace_synth" -s 3 -c 4 -m 4 -o "$TMP/s.trace" >/dev/null 2>&1
export TSAN_OPTIONS=halt_on_error=0
"$TMP/pp" --no-html "$TMP/s.trace" t -o "$TMP/a.json" 2>"$TMP/a.err"
check "no data race, default budget ($(grep -o '[0-9]* spans' "$TMP/a.err"))" \
	bash -c '! grep -q ThreadSanitizer "$1"' _ "$TMP/a.err"
# --threads: the block checks and the decoding thread (postproc's own).
for t in 3 16; do
	"$TMP/pp" --no-html --threads $t "$TMP/s.trace" t -o "$TMP/t$t.json" 2>"$TMP/t$t.err"
	check "no data race, --threads $t, and the JSON of one thread" \
		bash -c '! grep -q ThreadSanitizer "$1" && cmp -s <(grep -v randomid "$2") <(grep -v randomid "$3")' \
		_ "$TMP/t$t.err" "$TMP/a.json" "$TMP/t$t.json"
done
# A damaged block named and skipped by the decoding thread's hand-over.
cp "$TMP/s.trace" "$TMP/d.trace"
printf '\xff\xff\xff\xff\xff\xff\xff\xff' | dd of="$TMP/d.trace" bs=1 seek=$((3 * 65536 + 4000)) conv=notrunc 2>/dev/null
"$TMP/pp" --no-html --threads 3 --skip-damaged "$TMP/d.trace" t -o "$TMP/d.json" 2>"$TMP/d.err"
check "no data race, --threads 3 --skip-damaged on a damaged block ($(grep -c 'block skipped' "$TMP/d.err") skipped)" \
	bash -c '! grep -q ThreadSanitizer "$1" && grep -q "block skipped" "$1"' _ "$TMP/d.err"
KT_JSONOUT_STEP=50 KT_JSONOUT_BUDGET=400 "$TMP/pp" --no-html "$TMP/s.trace" t \
	-o "$TMP/b.json" 2>"$TMP/b.err"
check "no data race with late rows ($(grep -o '[0-9]* rows placed late' "$TMP/b.err"))" \
	bash -c '! grep -q ThreadSanitizer "$1" && grep -q "rows placed late" "$1"' _ "$TMP/b.err"
same_file "same JSON both ways" <(grep -v randomid "$TMP/a.json") <(grep -v randomid "$TMP/b.json")

# The Parquet writer's worker thread (lib/store/parquet.c: one per file encodes
# a row group while the caller fills the next), many small row groups.
if [ -f /usr/include/zstd.h ]; then
	if gcc -O1 -g -fsanitize=thread -std=c11 -D_GNU_SOURCE $inc tests/sql/pqwrite.c lib/store/parquet.c \
		-o "$TMP/pqw" -lzstd -lpthread 2>"$TMP/cc.err"; then
		"$TMP/pqw" "$TMP/p.parquet" 20000 300 5 > "$TMP/p.csv" 2>"$TMP/p.err"
		check "Parquet writer: no data race (67 row groups)" \
			bash -c '! grep -q ThreadSanitizer "$1" && [ "$(wc -l < "$2")" = 20001 ]' _ "$TMP/p.err" "$TMP/p.csv"
	else
		nok "the Parquet writer builds with -fsanitize=thread"; sed 's/^/#   /' "$TMP/cc.err"
	fi
else
	skip "Parquet writer under ThreadSanitizer: no zstd.h (make deps)"
fi

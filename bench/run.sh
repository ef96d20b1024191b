#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# `make bench` driver: runs every benchmark and writes the figures into
# docs/PERFORMANCE.md (between its "bench:begin/end" markers).
#
#   bench/run.sh [--help] [SECTION...]
#
# Sections (default: all, in this order):
#   fastpath  kutrace_bench fastpath: ns/entry of the module's fast path
#   user      kutrace_bench user: ns per mark on libkutrace's user fast path
#             (user buffers, no system call) and per getpid, with the ratio
#   extract   kutrace_bench extract: MB/s of kt_ctl_dump, mmap path
#   vm        QEMU/TCG: tests/vm/scenarios/bench.sh on the Debian 6.1 kernel
#             (tracepoint backend, ftrace) and on the patched p6.1 kernel
#             if it is built (tests/vm/kbuild.sh 6.1), bench_dump.sh (1 GB)
#   postproc  kutrace_postproc on a synthetic trace (entries/s, MB/s, RSS)
#   tables    the table store: what --tables costs, reports over 100 M spans
#   ingest    issue 43: postproc against the original side by side (yardstick),
#             1 against 2 threads, raw -> ready store of a 16-CPU trace
#             (~60 M spans), bytes per row, a projection to 64 cores
#   store     the table store's bytes: per table, bytes per row, of a 363 MB
#             16-CPU synthetic trace (59.5 M spans), and the build's time;
#             BENCH_STORE_BEFORE=DIR also runs DIR/kutrace_sql (an older
#             build's bin/) first, back to back, for a before/after
#   why       kutrace_why on a 64 MB trace with RPCs: one RPC, the slowest 100
#   align     kutrace_align of two 64 MB traces against postprocessing them
#   viewer    make bench-viewer (headless Chromium), if it can run
#   ctf       issue 47: kutrace_export --ctf of a 16 MB synthetic trace (MB/s
#             of raw trace, events/s) and babeltrace2 reading the result
#   stream    issue 44: the streaming reader's CPU per MB written, side by
#             side with trace-cmd record in one QEMU guest (not in the default
#             list: make bench-stream; BENCH_STREAM=ROUNDS,N, default 3,1000000)
#   report    bench/report.py: the table into docs/PERFORMANCE.md
# BENCH_QUICK=1: smaller sizes and fewer repeats (minutes, not 15).
# BENCH_OUT (default build/bench) keeps every raw output.
set -u
cd "$(dirname "$0")/.."
BIN=${KT_BIN:-build/bin}
OUT=${BENCH_OUT:-build/bench}
Q=${BENCH_QUICK:-0}
# --help: the comment above, to the first line that is not one.
case ${1:-} in -h|--help) sed -n '3,/^[^#]/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;; esac
sections=${*:-fastpath user extract vm postproc ingest tables store why align viewer ctf report}
mkdir -p "$OUT"
log() { echo "bench: $*" >&2; }

fastpath() {
	local a="-t 2 -r 21 -n 2000000"
	[ "$Q" = 1 ] && a="-t 2 -r 5 -n 300000"
	log "fast path (kutrace_bench fastpath $a)"
	"$BIN/kutrace_bench" fastpath $a | tee "$OUT/fastpath.txt"
}

user() {
	local a="-r 21 -n 2000000"
	[ "$Q" = 1 ] && a="-r 5 -n 300000"
	log "user fast path (kutrace_bench user $a)"
	"$BIN/kutrace_bench" user $a | tee "$OUT/user.txt"
	awk '$2 == "kind=mark_d" { split($3, a, "="); m = a[2] } $2 == "kind=getpid" { split($3, a, "="); g = a[2] }
	     END { if (m > 0) printf "user fast path: %.1f ns per mark, %.1f ns per getpid: a system call costs %.1fx a mark\n", m, g, g / m }' \
		"$OUT/user.txt" | tee -a "$OUT/user.txt"
}

extract() {
	local a="-m 1024 -r 5"
	[ "$Q" = 1 ] && a="-m 128 -r 3"
	log "extraction (kutrace_bench extract $a)"
	"$BIN/kutrace_bench" extract $a | tee "$OUT/extract.txt"
}

vm() {
	local sizes="9,100000,2000" dumpmb=1024 mem=3G d
	[ "$Q" = 1 ] && { sizes="3,30000,600"; dumpmb=256; mem=1536M; }
	rm -rf "$OUT/vm61" "$OUT/vmp61" "$OUT/vmdump"
	if ! command -v qemu-system-x86_64 >/dev/null; then
		log "vm: no qemu-system-x86_64, skipped (make deps installs it)"
		return 0
	fi
	log "vm: Debian 6.1 kernel, tracepoint backend and ftrace ($sizes)"
	KT_APPEND="ktbench=$sizes" tests/vm/vm.sh -k 6.1 -m 64 -t 900 \
		tests/vm/scenarios/bench.sh "$OUT/vm61" >&2 || log "vm: 6.1 run failed"
	d=$(tests/vm/kbuild.sh -n 6.1 2>/dev/null)
	if [ -n "$d" ] && [ -f "$d/bzImage" ] || [ "${BENCH_PATCHED:-0}" = 1 ]; then
		log "vm: patched 6.1 kernel, patched backend and ftrace"
		KT_APPEND="ktbench=$sizes" tests/vm/vm.sh -k p6.1 -m 64 -t 900 \
			tests/vm/scenarios/bench.sh "$OUT/vmp61" >&2 ||
			log "vm: p6.1 run failed"
	else
		log "vm: patched kernel not built (tests/vm/kbuild.sh 6.1, or BENCH_PATCHED=1): skipped"
		mkdir -p "$OUT/vmp61"
		echo "patched kernel not built" > "$OUT/vmp61/unavailable"
	fi
	log "vm: dump of a full ${dumpmb} MB buffer"
	KT_VM_MEM=$mem tests/vm/vm.sh -k 6.1 -m $dumpmb -t 900 \
		tests/vm/scenarios/bench_dump.sh "$OUT/vmdump" >&2 || log "vm: dump run failed"
	for t in "$OUT"/vm61/kt_*.trace "$OUT"/vmp61/kt_*.trace; do
		[ -f "$t" ] && "$BIN/kutrace_bench" density "$t"
	done > "$OUT/density.txt"
	cat "$OUT/density.txt"
}

# One run of kutrace_postproc: "secs rss_kb" into $OUT/time.out, its
# stderr into $OUT/pp.out.  A previous JSON would make the run pay for
# freeing its pages (and ext4 for flushing the replaced file at rename).
pp_run() { # trace args...
	local tr=$1; shift
	rm -f "${tr%.trace}.json" "${tr%.trace}.html"
	/usr/bin/time -f '%e %M' -o "$OUT/time.out" \
		"$BIN/kutrace_postproc" "$tr" bench "$@" > "$OUT/pp.out" 2>&1 ||
		{ cat "$OUT/pp.out"; return 1; }
}

# Against the original pipeline (rawtoevent | sort -n | eventtospan3 |
# sort, built from ../shared/yardstick, never copied into this tree), side
# by side in one run: 5 interleaved triples on a ~10 MB 4-CPU trace of
# kutrace_postproc --no-html, the original, and kutrace_postproc with the
# page; the medians and the median of the 5 pairs' ratios.  A ratio
# measured on another day or machine means nothing, so without the
# yardstick there is none.  The rows are compared too (ys_rows).
YARDSTICK=${KT_YARDSTICK:-../shared/yardstick}
postproc10() {
	local tr=$OUT/bench_10.trace i a b o spans ys=$OUT/yardstick
	[ -s "$tr" ] || "$BIN/kutrace_synth" -s 7 -c 4 -m 10 -o "$tr" >/dev/null 2>&1
	[ -x "$ys/eventtospan3" ] || { [ -x "$YARDSTICK/original.sh" ] &&
		"$YARDSTICK/original.sh" build "$ys" >/dev/null 2>&1; } || ys=""
	: > "$OUT/pp10.nohtml"; : > "$OUT/pp10.html"; : > "$OUT/pp10.orig"; : > "$OUT/pp10.ratio"
	for i in 1 2 3 4 5; do
		pp_run "$tr" --no-html || return 1
		a=$(cut -d' ' -f1 "$OUT/time.out"); echo "$a" >> "$OUT/pp10.nohtml"
		if [ -n "$ys" ]; then
			/usr/bin/time -f '%e' -o "$OUT/time.out" \
				"$YARDSTICK/original.sh" run "$ys" "$tr" > "$OUT/orig10.json" 2>/dev/null || return 1
			o=$(cat "$OUT/time.out"); echo "$o" >> "$OUT/pp10.orig"
			awk -v a="$a" -v o="$o" 'BEGIN { printf "%.2f\n", o / a }' >> "$OUT/pp10.ratio"
		fi
		pp_run "$tr" || return 1
		cut -d' ' -f1 "$OUT/time.out" >> "$OUT/pp10.html"
	done
	rm -f "${tr%.trace}.json" "${tr%.trace}.html" "$OUT/orig10.json"
	a=$(sort -n "$OUT/pp10.nohtml" | sed -n 3p)
	b=$(sort -n "$OUT/pp10.html" | sed -n 3p)
	spans=$(sed -n 's/.* \([0-9]*\) spans ->.*/\1/p' "$OUT/pp.out" | head -1)
	if [ -n "$ys" ]; then
		o="original_s=$(sort -n "$OUT/pp10.orig" | sed -n 3p) ratio=$(sort -n "$OUT/pp10.ratio" | sed -n 3p)"
	else
		o="original_s=none ratio=none"
		log "postproc10: no yardstick at $YARDSTICK: no ratio against the original"
	fi
	awk -v a="$a" -v b="$b" -v s="$spans" -v mb="$(stat -c %s "$tr")" -v o="$o" -v c="$(nproc)" 'BEGIN {
	  printf "postproc10 raw_mb=%.1f spans=%d nohtml_s=%.3f html_s=%.3f cores=%d %s\n",
	    mb / 1048576, s, a, b, c, o }' | tee "$OUT/postproc10.txt"
}

postproc() {
	local mb=256 tr
	[ "$Q" = 1 ] && mb=64
	tr=$OUT/bench_$mb.trace
	command -v /usr/bin/time >/dev/null || { log "postproc: needs /usr/bin/time (apt-get install time)"; return 1; }
	postproc10 || return 1
	[ -s "$tr" ] || "$BIN/kutrace_synth" -s 2024 -c 8 -m $mb -x 35,10,10,2 -o "$tr" >/dev/null
	log "postproc: kutrace_postproc on a $mb MB synthetic trace (best of 3)"
	local bytes entries secs rss best="" i rd od wr load jbytes floor hsecs hrss
	bytes=$(stat -c %s "$tr")
	for i in 1 2 3; do
		pp_run "$tr" --no-html --stats || return 1
		read -r secs rss < "$OUT/time.out"
		if [ -z "$best" ] || awk -v a="$secs" -v b="$best" 'BEGIN { exit !(a < b) }'; then
			best=$secs
			cp "$OUT/pp.out" "$OUT/pp.best"
			echo "$secs $rss" > "$OUT/time.best"
		fi
	done
	pp_run "$tr" --no-html || return 1
	jbytes=$(stat -c %s "$OUT/bench_$mb.json")
	# The floor: the JSON's bytes alone written into the page cache.
	rm -f "$OUT/bench_$mb.json" "$OUT/floor.out"
	/usr/bin/time -f '%e' -o "$OUT/floor.time" dd if=/dev/zero of="$OUT/floor.out" bs=1M \
		count=$((jbytes / 1048576)) 2>/dev/null
	floor=$(tail -1 "$OUT/floor.time")
	rm -f "$OUT/floor.out" "$OUT/floor.time"
	# With the page asked for (above --html-max-spans it is left out).
	pp_run "$tr" || return 1
	read -r hsecs hrss < "$OUT/time.out"
	rm -f "$OUT/bench_$mb.json" "$OUT/bench_$mb.html"
	entries=$(sed -n 's/.*: \([0-9]*\) events.*/\1/p' "$OUT/pp.best" | head -1)
	read -r rd od wr <<< "$(sed -n 's/.*cpu reader \([0-9.]*\) s, orderer \([0-9.]*\) s, writer \([0-9.]*\) s.*/\1 \2 \3/p' "$OUT/pp.best")"
	read -r secs rss < "$OUT/time.best"
	load=$(cut -d' ' -f1 /proc/loadavg)
	# Two free cores: the run takes at least the busiest thread's CPU
	# time and at least half of all three together.
	awk -v b="$bytes" -v e="$entries" -v s="$secs" -v r="$rss" -v rd="${rd:-0}" -v od="${od:-0}" -v wr="${wr:-0}" -v l="$load" \
	    -v j="$jbytes" -v f="${floor:-0}" -v hs="$hsecs" -v hr="$hrss" 'BEGIN {
	  if (s <= 0) s = 0.01
	  c = (rd + od + wr) / 2; if (rd > c) c = rd; if (od > c) c = od; if (wr > c) c = wr
	  if (c <= 0) c = s
	  printf "postproc raw_mb=%.0f events=%d secs=%.2f events_s=%.0f mb_s=%.1f rss_mb=%.1f reader_s=%.2f orderer_s=%.2f writer_s=%.2f free2_mb_s=%.1f load=%s json_mb=%.0f floor_s=%.2f html_secs=%.2f html_mb_s=%.1f html_rss_mb=%.1f\n",
	    b / 1048576, e, s, e / s, b / 1048576 / s, r / 1024, rd, od, wr, b / 1048576 / c, l, j / 1048576, f, hs, b / 1048576 / hs, hr / 1024 }' | tee "$OUT/postproc.txt"
}

# The table store (issue 28, docs/TABLES.md): what --tables adds to
# postprocessing on a 64 MB trace (10.4 M spans; median of 3 each), then
# a 640 MB trace (104 M spans): building its store, and each named report
# over it (time and peak RSS; DuckDB's memory limit is kutrace_sql's
# default, 1500 MB).
tables() {
	local tr=$OUT/bench_64.trace big=$OUT/bench_640.trace i a b spans r mb=640
	[ "$Q" = 1 ] && mb=128
	[ -x "$BIN/kutrace_sql" ] || { log "tables: no kutrace_sql (make deps && make)"; echo "skipped: no kutrace_sql" > "$OUT/tables.txt"; return 0; }
	command -v /usr/bin/time >/dev/null || { log "tables: needs /usr/bin/time"; return 1; }
	[ -s "$tr" ] || "$BIN/kutrace_synth" -s 7 -c 4 -m 64 -o "$tr" >/dev/null 2>&1
	log "tables: kutrace_postproc --no-html with and without --tables, 64 MB trace (median of 3)"
	: > "$OUT/t.plain"; : > "$OUT/t.tables"
	for i in 1 2 3; do
		rm -rf "${tr%.trace}.tables"
		pp_run "$tr" --no-html || return 1
		cut -d' ' -f1 "$OUT/time.out" >> "$OUT/t.plain"
		pp_run "$tr" --no-html --tables || return 1
		cut -d' ' -f1 "$OUT/time.out" >> "$OUT/t.tables"
	done
	spans=$(sed -n 's/.* \([0-9]*\) spans ->.*/\1/p' "$OUT/pp.out" | head -1)
	rm -rf "${tr%.trace}.json" "${tr%.trace}.tables"
	a=$(sort -n "$OUT/t.plain" | sed -n 2p)
	b=$(sort -n "$OUT/t.tables" | sed -n 2p)
	awk -v a="$a" -v b="$b" -v s="$spans" 'BEGIN {
	  printf "tables64 spans=%d postproc_s=%.2f tables_s=%.2f extra_s=%.2f\n", s, a, b, b - a }' | tee "$OUT/tables.txt"
	[ -s "$big" ] || "$BIN/kutrace_synth" -s 11 -c 8 -m $mb -x 30,10,10,3 -o "$big" >/dev/null 2>&1
	log "tables: the store of a $mb MB trace, then each report over it"
	rm -rf "${big%.trace}.tables"
	/usr/bin/time -f '%e %M' -o "$OUT/time.out" "$BIN/kutrace_sql" build "$big" > "$OUT/tb.out" 2>&1 ||
		{ cat "$OUT/tb.out"; return 1; }
	spans=$(sed -n 's/.* \([0-9]*\) spans ->.*/\1/p' "$OUT/tb.out" | head -1)
	local line
	line=$(awk -v s="$spans" -v mb="$(du -sm "${big%.trace}.tables" | cut -f1)" '{
	  printf "tables100 spans=%d build_s=%.2f build_rss_mb=%.0f store_mb=%d", s, $1, $2 / 1024, mb }' "$OUT/time.out")
	for r in cpu syscalls waits rpc locks; do
		/usr/bin/time -f '%e %M' -o "$OUT/time.out" "$BIN/kutrace_sql" "${big%.trace}.tables" --report $r > /dev/null || return 1
		line="$line $(awk -v r=$r '{ printf "%s_s=%.2f %s_rss_mb=%.0f", r, $1, r, $2 / 1024 }' "$OUT/time.out")"
	done
	rm -rf "${big%.trace}.tables"
	echo "$line" | tee -a "$OUT/tables.txt"
}

# The compact store (issue 43): what the store of a trace costs on disk,
# per table in bytes per row, against the raw trace's size; and the time
# of kutrace_sql build (wall, user+sys CPU, peak RSS).  Each Parquet
# file's bytes per column: kutrace_sql STORE -c "select path_in_schema,
# sum(total_compressed_size) from parquet_metadata('STORE/span.parquet')
# group by all".
store_one() { # TAG BINDIR TRACE
	local st=$OUT/bench_store.$1.tables
	rm -rf "$st"
	/usr/bin/time -f '%e %U %S %M' -o "$OUT/time.out" "$2/kutrace_sql" build "$3" -o "$st" \
		> "$OUT/sb.out" 2>&1 || { cat "$OUT/sb.out"; return 1; }
	python3 - "$1" "$st" "$3" "$OUT/time.out" <<-'PY'
	import json, os, sys
	tag, st, tr, tm = sys.argv[1:]
	rows = json.load(open(os.path.join(st, "meta.json")))["tables"]
	total = sum(os.path.getsize(os.path.join(st, f)) for f in os.listdir(st))
	raw = os.path.getsize(tr)
	wall, user, sys_, rss = open(tm).read().split()
	print(f"store {tag} trace_mb={raw / 1e6:.1f} spans={rows['span']} store_mb={total / 1e6:.1f} "
	      f"ratio={total / raw:.2f} build_s={float(wall):.1f} cpu_s={float(user) + float(sys_):.1f} "
	      f"rss_mb={int(rss) / 1024:.0f}")
	for t, n in sorted(rows.items(), key=lambda kv: -os.path.getsize(os.path.join(st, kv[0] + ".parquet"))):
	    b = os.path.getsize(os.path.join(st, t + ".parquet"))
	    if n:
	        print(f"store {tag} table={t} rows={n} mb={b / 1e6:.1f} bytes_row={b / n:.2f}")
	PY
	rm -rf "$st"
}

store() {
	local tr=$OUT/bench_store.trace a="-s 7 -c 16 -m 363"
	[ "$Q" = 1 ] && tr=$OUT/bench_store_q.trace a="-s 7 -c 4 -m 10"
	[ -x "$BIN/kutrace_sql" ] || { log "store: no kutrace_sql (make deps && make)"; echo "skipped: no kutrace_sql" > "$OUT/store.txt"; return 0; }
	command -v /usr/bin/time >/dev/null || { log "store: needs /usr/bin/time"; return 1; }
	[ -s "$tr" ] || "$BIN/kutrace_synth" $a -o "$tr" >/dev/null 2>&1
	: > "$OUT/store.txt"
	if [ -n "${BENCH_STORE_BEFORE:-}" ]; then
		log "store: kutrace_sql build of kutrace_synth $a, $BENCH_STORE_BEFORE (before)"
		store_one before "$BENCH_STORE_BEFORE" "$tr" | tee -a "$OUT/store.txt" || return 1
	fi
	log "store: kutrace_sql build of kutrace_synth $a"
	store_one now "$BIN" "$tr" | tee -a "$OUT/store.txt"
}

# The critical path (issue 29): a 64 MB synthetic trace whose threads
# begin and answer RPCs (kutrace_synth --rpc; 10.7 M spans), its store
# built once (timed on its own), then kutrace_why on the RPC of median
# latency and --slowest 100, median of 3 each, with peak RSS.  Seconds by
# CLOCK_MONOTONIC (python): /usr/bin/time's elapsed was seen off by
# 1000 s on this machine.
why() {
	local tr=$OUT/bench_why.trace st=$OUT/bench_why.tables i id spans rpcs build one slow rss
	[ "$Q" = 1 ] && tr=$OUT/bench_why_q.trace st=$OUT/bench_why_q.tables
	[ -x "$BIN/kutrace_why" ] || { log "why: no kutrace_why (make deps && make)"; echo "skipped: no kutrace_why" > "$OUT/why.txt"; return 0; }
	[ -s "$tr" ] || "$BIN/kutrace_synth" --rpc -s 3 -c 4 -m $([ "$Q" = 1 ] && echo 16 || echo 64) -o "$tr" >/dev/null 2>&1
	log "why: the store of a synthetic trace with RPCs, then kutrace_why"
	rm -rf "$st"
	build=$(secs "$BIN/kutrace_sql" build "$tr" -o "$st") || return 1
	spans=$("$BIN/kutrace_sql" "$st" --csv -c "select count(*) from span" | tail -1)
	rpcs=$("$BIN/kutrace_sql" "$st" --csv -c "select count(distinct rpc) from rpc" | tail -1)
	id=$("$BIN/kutrace_sql" "$st" --csv -c "select rpc from (select rpc, max(end_ts) - min(begin_ts) l from rpc group by rpc) order by l, rpc limit 1 offset $((rpcs / 2))" | tail -1)
	one=$(for i in 1 2 3; do secs "$BIN/kutrace_why" "$st" --rpc "$id"; done | sort -n | sed -n 2p)
	slow=$(for i in 1 2 3; do secs "$BIN/kutrace_why" "$st" --slowest 100; done | sort -n | sed -n 2p)
	/usr/bin/time -f '%M' -o "$OUT/time.out" "$BIN/kutrace_why" "$st" --slowest 100 > /dev/null || return 1
	rss=$(awk '{ printf "%.0f", $1 / 1024 }' "$OUT/time.out")
	rm -rf "$st"
	echo "why64 spans=$spans rpcs=$rpcs build_s=$build rpc_s=$one slowest100_s=$slow slowest100_rss_mb=$rss" | tee "$OUT/why.txt"
}
# Issue 43's figures.  A 16-CPU synthetic trace of ~363 MB (about 60 M
# spans; BENCH_QUICK: 64 MB) goes raw -> ready store: `kutrace_sql build`
# (the tables) then `kutrace_view --prepare` (the viewer's summaries;
# nothing left to do when the build made them), timed and with peak RSS;
# the store's bytes against the raw trace's, and each table's bytes per
# row.  Then one core against two (taskset; KUTRACE_THREADS 1 and 2) on
# the same build and on kutrace_postproc --no-html, interleaved, best of 3.  The
# projection to a 64-core server's busiest minute (200 K transitions/s/core,
# ~770 M spans) is derived by rule from the measured CPU seconds per span:
# the whole run's CPU split over the cores, but never less than the span
# builder's own thread (one thread, Amdahl's serial part).
ingest() {
	local mb=363 tr st spans t1 t2 b1 b2 p1 p2 i build prep rss bytes sbytes cpu serial
	[ "$Q" = 1 ] && mb=64
	tr=$OUT/bench_ingest_$mb.trace st=$OUT/bench_ingest.tables
	[ -x "$BIN/kutrace_sql" ] || { log "ingest: no kutrace_sql (make deps && make)"; return 0; }
	postproc10 || return 1
	[ -s "$tr" ] || "$BIN/kutrace_synth" -s 7 -c 16 -m $mb -o "$tr" >/dev/null 2>&1
	bytes=$(stat -c %s "$tr")
	log "ingest: raw -> ready store of a $mb MB 16-CPU trace"
	rm -rf "$st"
	/usr/bin/time -f '%e %M %U %S' -o "$OUT/time.out" "$BIN/kutrace_sql" build "$tr" -o "$st" \
		> /dev/null 2> "$OUT/ingest.err" || { cat "$OUT/ingest.err"; return 1; }
	read -r build rss cpu serial < "$OUT/time.out"
	cpu=$(awk -v u="$cpu" -v s="$serial" 'BEGIN { print u + s }')
	/usr/bin/time -f '%e %M' -o "$OUT/time.out" "$BIN/kutrace_view" "$st" --prepare > /dev/null 2>&1 || return 1
	read -r prep b1 < "$OUT/time.out"
	[ "$b1" -gt "$rss" ] && rss=$b1
	spans=$("$BIN/kutrace_sql" "$st" --csv -c "select count(*) from span" | tail -1)
	sbytes=$(du -sb "$st" | cut -f1)
	: > "$OUT/ingest.tables"
	for f in "$st"/*.parquet; do
		local n=$(basename "$f" .parquet) rows
		rows=$("$BIN/kutrace_sql" "$st" --csv -c "select count(*) from read_parquet('$f')" | tail -1)
		echo "ingest_table name=$n bytes=$(stat -c %s "$f") rows=$rows" >> "$OUT/ingest.tables"
	done
	# The span builder's thread: kutrace_postproc's reader CPU (--stats).
	serial=$(KUTRACE_THREADS=2 "$BIN/kutrace_postproc" "$tr" --no-html --stats -o "$OUT/ingest.json" 2>&1 |
		sed -n 's/.*cpu reader \([0-9.]*\) s.*/\1/p')
	rm -f "$OUT/ingest.json"
	log "ingest: one core against two (best of 3, interleaved)"
	t1="" t2="" p1="" p2=""
	for i in 1 2 3; do
		for n in 1 2; do
			rm -rf "$st.t"
			# One core: every thread and process of the run on CPU 0.
			local pin="taskset -c 0"
			[ $n = 2 ] && pin="taskset -c 0,1"
			b1=$(KUTRACE_THREADS=$n secs $pin "$BIN/kutrace_sql" build "$tr" -o "$st.t") || return 1
			rm -f "$OUT/ingest.json"
			b2=$(secs $pin "$BIN/kutrace_postproc" "$tr" --no-html --threads $n -o "$OUT/ingest.json") || return 1
			if [ $n = 1 ]; then t1="$t1 $b1"; p1="$p1 $b2"; else t2="$t2 $b1"; p2="$p2 $b2"; fi
		done
	done
	rm -rf "$st.t" "$OUT/ingest.json"
	min() { printf '%s\n' $* | sort -n | head -1; }
	awk -v mb="$mb" -v spans="$spans" -v build="$build" -v prep="$prep" -v rss="$rss" -v bytes="$bytes" \
	    -v sb="$sbytes" -v cpu="$cpu" -v ser="${serial:-0}" -v t1="$(min $t1)" -v t2="$(min $t2)" \
	    -v p1="$(min $p1)" -v p2="$(min $p2)" -v cores="$(nproc)" 'BEGIN {
	  n = 770e6; per = cpu / spans; sp = ser / spans
	  for (c = 16; c <= 64; c *= 4) { t = n * per / c; if (n * sp > t) t = n * sp; proj[c] = t }
	  printf "ingest raw_mb=%.0f spans=%d build_s=%.2f prepare_s=%.2f ready_s=%.2f rss_mb=%.0f store_mb=%.0f store_ratio=%.2f cpu_s=%.2f serial_s=%.2f build1_s=%.2f build2_s=%.2f build_speedup=%.2f pp1_s=%.2f pp2_s=%.2f pp_speedup=%.2f cores=%d proj16_s=%.0f proj64_s=%.0f\n",
	    bytes / 1048576, spans, build, prep, build + prep, rss / 1024, sb / 1048576, sb / bytes, cpu, ser,
	    t1, t2, t1 / t2, p1, p2, p1 / p2, cores, proj[16], proj[64] }' | tee "$OUT/ingest.txt"
	cat "$OUT/ingest.tables"
	rm -rf "$st"
}

# Several hosts (issue 30: aligning and merging two traces within 2x the
# time of postprocessing them): two 64 MB synthetic traces with RPC marks
# (10.7 M spans each; host b is host a's JSON under another name),
# postprocessed, then aligned and merged; median of 3 each.
align() {
	local tr=$OUT/bench_align.trace a=$OUT/bench_align_a.json b=$OUT/bench_align_b.json i pp al
	[ -s "$tr" ] || "$BIN/kutrace_synth" --rpc -s 3 -c 4 -m $([ "$Q" = 1 ] && echo 16 || echo 64) -o "$tr" >/dev/null 2>&1
	log "align: kutrace_postproc of one trace, then kutrace_align of two"
	pp=$(for i in 1 2 3; do secs "$BIN/kutrace_postproc" "$tr" -o "$a" --no-html; done | sort -n | sed -n 2p)
	sed 's/"hostName" : "synth-host"/"hostName" : "synth-b"/' "$a" > "$b"
	al=$(for i in 1 2 3; do secs "$BIN/kutrace_align" "$a" "$b" -o "$OUT/bench_align_m" --html-max-spans 1; done | sort -n | sed -n 2p)
	rm -f "$a" "$b" "$OUT"/bench_align_m.*
	awk -v p="$pp" -v a="$al" 'BEGIN { printf "align64 postproc_s=%.2f align_s=%.2f ratio=%.2f\n", p, a, a / (2 * p) }' | tee "$OUT/align.txt"
}
# secs CMD...: CMD's wall seconds (its output dropped), or failure.
secs() {
	python3 -c 'import subprocess, sys, time
t = time.monotonic()
r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
print("%.2f" % (time.monotonic() - t)) if r.returncode == 0 else sys.exit(1)' "$@"
}

viewer() {
	local spans="1000000 10000000 20000000"
	[ "$Q" = 1 ] && spans=1000000
	if ! command -v chromium >/dev/null || ! command -v node >/dev/null; then
		log "viewer: no chromium/node, skipped (make deps)"
		echo "skipped: no chromium/node" > "$OUT/viewer.txt"
		return 0
	fi
	log "viewer: make bench-viewer ($spans spans)"
	KT_BENCH_SPANS=$spans make -s bench-viewer 2>&1 | tee "$OUT/viewer.txt"
}

# CTF export (issue 47): a 16 MB synthetic trace (4 MB with BENCH_QUICK=1)
# exported end to end (kutrace_postproc into a JSON, then the CTF) and from
# its JSON alone, median of 3; MB/s of raw trace and events/s; then
# babeltrace2 reading the result (its text to /dev/null), median of 3.
ctf() {
	local tr=$OUT/bench_ctf.trace js=$OUT/bench_ctf.json d=$OUT/bench_ctf.d i e2e exp bt ev rows bytes
	if ! command -v babeltrace2 > /dev/null; then
		log "ctf: no babeltrace2, skipped (tests/deps/tools.apt)"
		echo "skipped: no babeltrace2" > "$OUT/ctf.txt"
		return 0
	fi
	[ -s "$tr" ] || "$BIN/kutrace_synth" -s 5 -c 4 -m $([ "$Q" = 1 ] && echo 4 || echo 16) -o "$tr" > /dev/null 2>&1
	log "ctf: kutrace_export --ctf of $(($(stat -c %s "$tr") >> 20)) MB of raw trace, babeltrace2 reading it"
	"$BIN/kutrace_postproc" "$tr" -o "$js" --no-html --quiet 2> /dev/null || return 1
	e2e=$(for i in 1 2 3; do rm -rf "$d"; secs "$BIN/kutrace_export" --ctf "$d" "$tr" || exit 1; done | sort -n | sed -n 2p)
	exp=$(for i in 1 2 3; do rm -rf "$d"; secs "$BIN/kutrace_export" --ctf "$d" "$js" || exit 1; done | sort -n | sed -n 2p)
	[ -n "$e2e" ] && [ -n "$exp" ] || return 1
	rm -rf "$d"
	read -r rows ev bytes < <(KT_CTF_STATS=1 "$BIN/kutrace_export" --ctf "$d" "$js" 2>&1 |
		sed -n 's/.*rows \([0-9]*\) events \([0-9]*\) bytes \([0-9]*\).*/\1 \2 \3/p')
	bt=$(for i in 1 2 3; do secs babeltrace2 "$d" || exit 1; done | sort -n | sed -n 2p)
	awk -v raw="$(stat -c %s "$tr")" -v rows="$rows" -v ev="$ev" -v bytes="$bytes" \
	    -v e2e="$e2e" -v jexp="$exp" -v bt="$bt" 'BEGIN {
	  printf "ctf raw_mb=%.0f rows=%d events=%d ctf_mb=%.0f export_s=%.2f raw_mb_s=%.1f events_s=%.0f json_export_s=%.2f json_events_s=%.0f bt2_read_s=%.2f bt2_events_s=%.0f\n",
	    raw / 1048576, rows, ev, bytes / 1048576, e2e, raw / 1048576 / e2e, ev / e2e, jexp, ev / jexp, bt, ev / bt }' |
		tee "$OUT/ctf.txt"
	rm -rf "$d" "$js"
}

# A dynamically linked host program and every library it loads, under $2
# (for a busybox guest: KT_VM_EXTRA).
. "$(dirname "${BASH_SOURCE[0]}")/copyprog.sh"

# Issue 44: kutrace_control stream and trace-cmd record in turns in one
# busybox guest (tests/vm/scenarios/bench_stream.sh) on Debian's 6.1 cloud
# kernel, the module's default 2 MiB buffer.  Per tracer the median of
# the rounds: MB written, the reader's CPU (it and its children), CPU
# seconds per MB, % of one core per 10 MB/s, and what was lost; then the
# ratio; and, from the last round's files, CPU per million events.
stream() {
	local x=$OUT/stream-extra o=$OUT/stream sizes=${BENCH_STREAM:-3,1000000} f n
	[ "$Q" = 1 ] && sizes=${BENCH_STREAM:-1,100000}
	if ! command -v qemu-system-x86_64 > /dev/null || ! command -v trace-cmd > /dev/null; then
		log "stream: needs qemu-system-x86_64 and trace-cmd (apt-get install trace-cmd), skipped"
		return 0
	fi
	rm -rf "$x" "$o"
	copy_prog trace-cmd "$x" || return 1
	log "stream: kutrace_control stream against trace-cmd record, rounds,getpid calls $sizes"
	KT_VM_EXTRA=$x KT_APPEND="ktstream=$sizes tsc=nowatchdog" tests/vm/vm.sh -k 6.1 -m 2 -t 3600 \
		tests/vm/scenarios/bench_stream.sh "$o" >&2 || { log "stream: guest run failed"; return 1; }
	[ -s "$o/results.txt" ] || { log "stream: no results"; return 1; }
	# events of the last round: kutrace's entries, trace-cmd's records
	n=0
	for f in "$o"/kt*/kt_*.trace; do
		[ -f "$f" ] || continue
		n=$((n + $("$BIN/ktcheck" "$f" | awk '$1 == "cpu" { s += $4 } END { print s + 0 }')))
	done
	echo "tracer=kt events=$n" > "$o/events.txt"
	for f in "$o"/tc*.dat; do
		[ -f "$f" ] && echo "tracer=tc events=$(trace-cmd report -i "$f" 2> /dev/null | grep -cv '^ *cpus=')" >> "$o/events.txt"
	done
	cat "$o/results.txt" "$o/events.txt" | awk -v guest="$(cat "$o/kernel.txt") tracemb=$(cat "$o/tracemb.txt") trace-cmd buffer_size_kb=$(cat "$o/tc_buffer_kb.txt")" '
	function kv(k,   i, a) { for (i = 1; i <= NF; i++) { split($i, a, "="); if (a[1] == k) return a[2] } return "" }
	function med(t, k,   n, i, j, v, x) {
		n = cnt[t]; for (i = 1; i <= n; i++) v[i] = val[t, k, i]
		for (i = 2; i <= n; i++) { x = v[i]; for (j = i - 1; j >= 1 && v[j] > x; j--) v[j + 1] = v[j]; v[j + 1] = x }
		return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2 }
	$1 ~ /^tracer=/ && $2 ~ /^round=/ {
		t = kv("tracer"); i = ++cnt[t]
		val[t, "cpu", i] = kv("cpu_ticks") / kv("hz"); val[t, "mb", i] = kv("bytes") / 1e6
		val[t, "secs", i] = kv("secs"); val[t, "spmb", i] = val[t, "cpu", i] / val[t, "mb", i]
		lost[t] = lost[t] (lost[t] == "" ? "" : ",") kv("lost") }
	$1 ~ /^tracer=/ && $2 ~ /^events=/ { ev[kv("tracer")] = kv("events") }
	END {
		name["kt"] = "kutrace stream"; name["tc"] = "trace-cmd record"
		printf "stream guest: %s; rounds %d\n", guest, cnt["kt"]
		split("kt tc", order, " ")
		for (o = 1; o <= 2; o++) if (cnt[t = order[o]]) {
			cpu[t] = med(t, "cpu"); mb[t] = med(t, "mb"); spm[t] = med(t, "spmb")
			printf "stream tracer=%s mb=%.1f workload_s=%.2f reader_cpu_s=%.2f cpu_s_per_mb=%.4f pct_core_per_10mb_s=%.1f lost=%s", t, mb[t], med(t, "secs"), cpu[t], spm[t], spm[t] * 1000, lost[t]
			if (ev[t] > 0) { printf " events_last=%d cpu_s_per_mevent=%.3f", ev[t], val[t, "cpu", cnt[t]] / (ev[t] / 1e6) }
			printf "  (%s)\n", name[t] }
		if (cnt["kt"] && cnt["tc"])
			printf "stream ratio: trace-cmd/kutrace CPU per MB %.2f, CPU per run %.2f%s\n", spm["tc"] / spm["kt"], cpu["tc"] / cpu["kt"],
				(ev["kt"] > 0 && ev["tc"] > 0) ? sprintf(", CPU per event %.2f", (val["tc", "cpu", cnt["tc"]] / ev["tc"]) / (val["kt", "cpu", cnt["kt"]] / ev["kt"])) : ""
	}' | tee "$OUT/stream.txt"
}

report() {
	python3 bench/report.py "$OUT" docs/PERFORMANCE.md
}

rc=0
for s in $sections; do
	case $s in
	fastpath|user|extract|vm|postproc|ingest|tables|store|why|align|viewer|ctf|stream|report) $s || { log "$s failed"; rc=1; } ;;
	*) log "unknown section $s"; exit 2 ;;
	esac
done
exit $rc

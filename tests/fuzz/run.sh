#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Runs the libFuzzer targets of build-fuzz/fuzz/ (make fuzz-build).
#   run.sh SECONDS   each target SECONDS on its corpus (make fuzz)
#   run.sh --short   each target replays every seed and crash file once,
#                    then mutates for 5 s with a fixed seed (make test)
# Seeds: tests/fuzz/corpus/<target>/ (kutrace_synth traces, golden traces'
# event text, JSON, pages, row streams and stores: tests/fuzz/store/
# mkseeds.sh makes the last two), the golden files, and tests/fuzz/crashes/
# (every input that once crashed a program).  New inputs a run finds go to
# build-fuzz/corpus/<target>/, findings to build-fuzz/artifacts/.
# Prints one "ok - " / "not ok - " line per target with its executions.
set -u
cd "$(dirname "$0")/../.."
R=$PWD
F=$R/build-fuzz
secs=${1:-60}
short=0
if [ "$secs" = --short ]; then short=1; secs=5; fi
export ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=0
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1

# seeds TARGET DIR: the seed files of a target into DIR
seeds() {
	local g
	case $1 in
	fuzz_raw) g="$R/tests/golden/*.trace $R/tests/fuzz/crashes/*.trace" ;;
	fuzz_events) g="$R/tests/golden/*.events $R/tests/fuzz/crashes/*.events" ;;
	fuzz_jsonrows|fuzz_page_codec) g="$R/tests/golden/*.json $R/tests/data/tools/*.json $R/tests/fuzz/crashes/*.json" ;;
	fuzz_page_extract) g="$R/tests/fuzz/crashes/*.html" ;;
	fuzz_align) g="$R/tests/fuzz/crashes/align_*.json" ;;
	fuzz_ubuf) g="$R/tests/fuzz/crashes/ubuf_*" ;;
	*) g= ;;	# fuzz_rowpipe, fuzz_store: their corpus alone
	esac
	cp $g "$R/tests/fuzz/corpus/$1"/* "$2"/ 2>/dev/null
}

fail=0 total=0
for bin in "$F"/fuzz/fuzz_*; do
	[ -x "$bin" ] || continue
	case $bin in *.d|*.o) continue ;; esac
	t=$(basename "$bin")
	rm -rf "$F/seed/$t"; mkdir -p "$F/seed/$t" "$F/corpus/$t" "$F/artifacts"
	seeds "$t" "$F/seed/$t"
	maxlen=65536
	[ "$t" = fuzz_raw ] && maxlen=262144
	# -detect_leaks=0: leaks are no finding (ASAN_OPTIONS above), and
	# libFuzzer's check would run again every input that interns a name
	opts=(-timeout=10 -rss_limit_mb=2048 -max_len=$maxlen -print_final_stats=1
	      -artifact_prefix="$F/artifacts/$t-" -close_fd_mask=3 -detect_leaks=0)
	log=$F/$t.log
	corp=$F/corpus/$t
	# fuzz_store runs ~12 inputs a second (a DuckDB database each): its
	# short run starts from the seeds alone, or replaying the corpus that
	# earlier runs left would make every make test longer
	if [ $short = 1 ] && [ "$t" = fuzz_store ]; then
		corp=$F/corpus/$t.short
		rm -rf "$corp"; mkdir -p "$corp"
	fi
	# fuzz_store: DuckDB's allocations would fill ASan's quarantine
	# (256 MB) and stack depot: with these its RSS is 180 MB after 1,000
	# inputs, not 720 MB: room for long runs under -rss_limit_mb
	asan=$ASAN_OPTIONS
	[ "$t" = fuzz_store ] && asan=$asan:quarantine_size_mb=16:malloc_context_size=5
	start=$(date +%s)
	if [ $short = 1 ]; then
		# every seed and crash once, then a short fixed-seed run
		ASAN_OPTIONS=$asan nice -n 15 "$bin" "${opts[@]}" -runs=0 "$F/seed/$t" > "$log" 2>&1 &&
		ASAN_OPTIONS=$asan nice -n 15 "$bin" "${opts[@]}" -seed=1 -max_total_time=$secs \
			"$corp" "$F/seed/$t" >> "$log" 2>&1
	else
		ASAN_OPTIONS=$asan nice -n 15 "$bin" "${opts[@]}" -max_total_time=$secs \
			"$F/corpus/$t" "$F/seed/$t" > "$log" 2>&1
	fi
	rc=$?
	execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | awk '{s += $2} END {print s + 0}')
	nseed=$(ls "$F/seed/$t" | wc -l)
	total=$((total + execs))
	el=$(( $(date +%s) - start ))
	# coverage of the last run: edges (cov), features (ft), corpus
	cov=$(grep -E '^#[0-9]+.*(DONE|pulse|NEW|REDUCE|INITED)' "$log" | tail -1 |
		sed -n 's/.*cov: \([0-9]*\) ft: \([0-9]*\) corp: \([0-9]*\).*/cov \1, ft \2, corpus \3/p')
	if [ $rc = 0 ]; then
		echo "ok - libFuzzer $t: $execs executions in $el s ($(( execs / (el > 0 ? el : 1) ))/s; $cov; $nseed seeds replayed), no finding"
	elif [ $rc = 72 ]; then
		# libFuzzer's exit status after SIGINT/SIGTERM from outside
		fail=1
		echo "not ok - libFuzzer $t: interrupted by a signal after $execs executions in $el s (no finding; log $log)"
	else
		fail=1
		echo "not ok - libFuzzer $t: finding after $execs executions (log $log)"
		grep -E 'ERROR|runtime error|Test unit written|abort|differs|does not extract' "$log" | head -5 | sed 's/^/#   /'
	fi
done
echo "# libFuzzer: $total executions in all"
exit $fail

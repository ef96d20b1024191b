# SPDX-License-Identifier: BSD-3-Clause
# `make bench`: raw -> JSON speed of kutrace_postproc on a ~256 MB trace
# written by kutrace_synth (8 CPUs, realistic mix).  Prints entries/s, MB/s
# of raw trace and peak RSS (GNU time, package `time`).  Targets on the
# 2-core reference machine: >= 50 MB/s, <= 200 MB RSS.
BENCH_DIR   ?= $(BUILD)/bench
BENCH_MB    ?= 256
BENCH_TRACE := $(BENCH_DIR)/bench_$(BENCH_MB).trace

bench: bench-postproc

$(BENCH_TRACE): $(BIN)/kutrace_synth
	@mkdir -p $(BENCH_DIR)
	$(BIN)/kutrace_synth -s 2024 -c 8 -m $(BENCH_MB) -x 35,10,10,2 -o $@

.PHONY: bench-postproc
bench-postproc: $(BENCH_TRACE) $(BIN)/kutrace_postproc
	@command -v /usr/bin/time >/dev/null || { echo "bench: needs /usr/bin/time (apt-get install time)"; exit 1; }
	@rm -f $(BENCH_DIR)/bench_$(BENCH_MB).json $(BENCH_DIR)/time.out
	/usr/bin/time -f '%e %M' -o $(BENCH_DIR)/time.out \
		$(BIN)/kutrace_postproc $(BENCH_TRACE) bench >$(BENCH_DIR)/pp.out 2>&1 || \
		{ cat $(BENCH_DIR)/pp.out; exit 1; }
	@bytes=$$(stat -c %s $(BENCH_TRACE)); \
	 entries=$$(sed -n 's/.*: \([0-9]*\) events.*/\1/p' $(BENCH_DIR)/pp.out | head -1); \
	 read secs rss < $(BENCH_DIR)/time.out; \
	 awk -v b=$$bytes -v e=$$entries -v s=$$secs -v r=$$rss 'BEGIN { \
	   if (s <= 0) s = 0.01; \
	   printf "bench: %.0f MB raw, %d events, %.2f s: %.0f entries/s, %.1f MB/s, peak RSS %.1f MB\n", \
	     b/1048576, e, s, e/s, b/1048576/s, r/1024; \
	   printf "bench: targets >= 50 MB/s: %s, RSS <= 200 MB: %s\n", \
	     (b/1048576/s >= 50 ? "met" : "NOT met"), (r/1024 <= 200 ? "met" : "NOT met") }'

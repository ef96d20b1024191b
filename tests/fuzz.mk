# SPDX-License-Identifier: BSD-3-Clause
# libFuzzer targets (tests/fuzz/fuzz_*.c), built with clang, ASan and UBSan
# in build-fuzz/ by a second make of the library (CC=clang SAN=1).
# `make fuzz FUZZ_SECONDS=N` runs each target N seconds on its corpus
# (tests/fuzz/run.sh), then feeds damaged inputs to every program of the
# sanitizer build for N seconds each (tests/fuzz/mutate.py); t_fuzz runs
# each target 5 s after replaying every corpus file (run.sh --short) and
# the mutation run 2 s per program.
# fuzz_store and fuzz_view link the table store and DuckDB (query/query.mk):
# they are built only where DuckDB is (KT_HAVE_DUCKDB; fuzz_view also
# needs libmicrohttpd), and t_fuzz says when they are not.
FUZZ_B       := build-fuzz
FUZZ_NAMES    = $(filter-out $(if $(KT_HAVE_DUCKDB),,fuzz_store fuzz_view) $(if $(KT_HAVE_MHD),,fuzz_view),\
		$(patsubst tests/fuzz/%.c,%,$(wildcard tests/fuzz/fuzz_*.c)))
FUZZ_SECONDS ?= 60

.PHONY: fuzz fuzz-build
fuzz-build:
	$(if $(KT_HAVE_DUCKDB),,rm -f $(FUZZ_B)/fuzz/fuzz_store $(FUZZ_B)/fuzz/fuzz_view)
	$(MAKE) CC=clang BUILD=$(FUZZ_B) SAN=1 OPT="-O1 -g -fsanitize=fuzzer-no-link" \
		$(FUZZ_NAMES:%=$(FUZZ_B)/fuzz/%)

fuzz: fuzz-build
	$(MAKE) SAN=1 BUILD=build-san test-progs
	tests/fuzz/run.sh $(FUZZ_SECONDS); r1=$$?; \
	python3 tests/fuzz/mutate.py build-san/bin . $(FUZZ_SECONDS); r2=$$?; \
	[ $$r1 = 0 ] && [ $$r2 = 0 ]

# eventtospan's main, as the event-text reader target calls it.
$(BUILD)/fuzz/eventtospan_main.o: postprocess/eventtospan.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Dmain=tool_main -c -o $@ $<

# It runs in process: what a run that died held is noted and released
# through these wrappers, and the JSON writer's threads come from a pool
# that lives across inputs (tests/fuzz/fuzz_events.c).
$(BUILD)/fuzz/fuzz_events: $(BUILD)/fuzz/eventtospan_main.o
$(BUILD)/fuzz/fuzz_events: FUZZ_WRAP = $(patsubst %,-Wl$(comma)--wrap=%,kt_spans_new \
	kt_spans_free kt_jsonout_new kt_jsonout_free tmpfile getline __getdelim fclose free \
	pthread_create pthread_join)
comma := ,

# The store reader includes kutrace_sql.c (its reports and printer) and
# links libktstore (built here with the sanitizers) and DuckDB (not).
ifeq ($(KT_HAVE_DUCKDB),1)
$(BUILD)/fuzz/fuzz_store: query/kutrace_sql.c $(LIBKTSTORE)
$(BUILD)/fuzz/fuzz_store: FUZZ_CFLAGS = -I$(DUCKDB_DIR)/include \
	-DFZ_STORE='"$(CURDIR)/tests/fuzz/store/rpc.tables"'
$(BUILD)/fuzz/fuzz_store: FUZZ_LIBS = $(LIBKTSTORE)
$(BUILD)/fuzz/fuzz_store: FUZZ_LDLIBS = $(DUCKDB_LDLIBS) -lreadline -lzstd -lpthread
# The local server's requests: kutrace_view.c's handler over the same
# sound store, libmicrohttpd (not instrumented) doing HTTP.
$(BUILD)/fuzz/fuzz_view: query/kutrace_view.c $(LIBKTSTORE)
$(BUILD)/fuzz/fuzz_view: FUZZ_CFLAGS = -I$(DUCKDB_DIR)/include \
	-DFZ_STORE='"$(CURDIR)/tests/fuzz/store/rpc.tables"' \
	-DFZ_TPL='"$(CURDIR)/build/share/kutrace/viewer.html"'
$(BUILD)/fuzz/fuzz_view: FUZZ_LIBS = $(LIBKTSTORE)
$(BUILD)/fuzz/fuzz_view: FUZZ_LDLIBS = $(DUCKDB_LDLIBS) -lmicrohttpd -lzstd -lpthread
endif
# kutrace_align's source is included; its reference host is a file.
$(BUILD)/fuzz/fuzz_align: postprocess/kutrace_align.c
$(BUILD)/fuzz/fuzz_align: FUZZ_CFLAGS = -DFZ_ALIGN_A='"$(CURDIR)/tests/fuzz/align/alpha.json"'
$(BUILD)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz.h $(KT_TOOLS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(FUZZ_CFLAGS) -fsanitize=fuzzer -Wl,--wrap=kt_die $(FUZZ_WRAP) -o $@ $< \
		$(filter %.o,$^) $(FUZZ_LIBS) $(KT_TOOLS) $(KT_TOOLS_LDLIBS) $(FUZZ_LDLIBS) $(LDLIBS)

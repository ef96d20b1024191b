# SPDX-License-Identifier: BSD-3-Clause
# `make bench`: every performance figure of docs/PERFORMANCE.md in one go
# (bench/run.sh), written into that file.  BENCH_QUICK=1: smaller sizes.
#
# kutrace_bench links the module's fast path (module/kutrace_core.c, built
# for userspace through module/user/kutrace_env_user.h) and libkutrace,
# whose device calls go to the in-process device of bench/fakedev.c.
KT_BENCH  := $(BIN)/kutrace_bench
TEST_PROGS += $(KT_BENCH)
KT_BENCH_OBJS := $(OBJ)/bench/kutrace_bench.o $(OBJ)/bench/fakedev.o \
                 $(OBJ)/module/kutrace_core.o $(OBJ)/module/kutrace_cmd.o \
                 $(OBJ)/module/user/kutrace_env_user.o
KT_BENCH_WRAP := -Wl,--wrap=open,--wrap=ioctl,--wrap=mmap,--wrap=munmap,--wrap=fopen

$(OBJ)/bench/%.o $(OBJ)/module/%.o $(OBJ)/module/user/%.o: CFLAGS += -Imodule

$(KT_BENCH): $(KT_BENCH_OBJS) $(KT_TOOLS)
	@mkdir -p $(BIN)
	$(CC) $(LDFLAGS) $(KT_BENCH_WRAP) -o $@ $^ $(KT_TOOLS_LDLIBS) $(LDLIBS) -lpthread

# All figures, written into docs/PERFORMANCE.md (15 min on 2 cores; VM
# parts need QEMU, the viewer part Chromium).  Not part of `make test`.
bench: test-progs
	bench/run.sh

# The postprocessing figure alone (entries/s, MB/s, peak RSS).
.PHONY: bench-postproc
bench-postproc: $(BIN)/kutrace_postproc $(BIN)/kutrace_synth
	bench/run.sh postproc

# kutrace against ftrace (trace-cmd), perf, LTTng and bpftrace in the same
# guests, interleaved (bench/peers.sh): the Debian 12 guest on the stock
# 6.1 kernel and the busybox guest on the patched one; the table goes
# into docs/PERFORMANCE.md.  About 30 min on 2 cores (the first time 12
# more for the image and LTTng's modules); not in `make bench`
# (PEERS_SIZES=ROUNDS,GETPID,MIXED,PINGPONG,FAULTS to shorten it).  Its
# short check (one round, counts only) is part of t_vm_debian.
.PHONY: bench-peers
bench-peers:
	tests/install-deps.sh build vm peers
	bench/peers.sh

# Issue 43's figures alone: the original side by side, raw -> ready store
# of ~60 M spans, 1 against 2 threads, bytes per row, the projection
# (about 6 min on 2 cores).
.PHONY: bench-ingest
bench-ingest: $(BIN)/kutrace_postproc $(BIN)/kutrace_synth
	bench/run.sh ingest

# The table store's figures alone (issue 28): --tables on 10 M spans, the
# reports over 100 M (about 3 min on 2 cores).
.PHONY: bench-tables
bench-tables: $(BIN)/kutrace_postproc $(BIN)/kutrace_synth
	bench/run.sh tables

# kutrace_why's figures alone (issue 29): one RPC and the slowest 100 in
# a 10 M-span store with RPCs (about a minute).
.PHONY: bench-why
bench-why: $(BIN)/kutrace_synth
	bench/run.sh why

# kutrace_align against postprocessing (issue 30), two 10 M-span traces.
.PHONY: bench-align
bench-align: $(BIN)/kutrace_synth
	bench/run.sh align

# The CTF export's figures alone (issue 47): kutrace_export --ctf of a
# 16 MB trace, MB/s of raw trace and events/s, babeltrace2's read beside.
.PHONY: bench-ctf
bench-ctf: $(BIN)/kutrace_export $(BIN)/kutrace_postproc $(BIN)/kutrace_synth
	bench/run.sh ctf

# Issue 44's figures alone: the streaming reader's CPU per MB written and
# per event, side by side with trace-cmd record in one QEMU guest (TCG),
# the ratio, and what each lost (about 2 min; BENCH_STREAM=ROUNDS,N).
.PHONY: bench-stream
bench-stream: test-progs
	bench/run.sh stream

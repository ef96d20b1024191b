# SPDX-License-Identifier: BSD-3-Clause
# Test tools: programs the suites use, built by `make test-progs`, not by
# plain `make` (also in the sanitizer build, so that the checkers
# themselves run under ASan).
TEST_TOOLS := $(patsubst tests/tools/%.c,$(BIN)/%,$(wildcard tests/tools/*.c))
TEST_PROGS += $(TEST_TOOLS)

$(BIN)/%: $(OBJ)/tests/tools/%.o $(KT_TOOLS)
	@mkdir -p $(BIN)
	$(CC) $(LDFLAGS) -o $@ $^ $(KT_TOOLS_LDLIBS) $(LDLIBS)

# The bench workloads (the guests' bench_load) on this machine's own
# kernel too: tests/vm/host/bench_bpf.sh -k host.
TEST_PROGS += $(BIN)/bench_load
$(BIN)/bench_load: $(OBJ)/tests/vm/bench_load.o
	@mkdir -p $(BIN)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# The VM suites' host-side checkers (tests/vm/host/): they read raw traces
# with nothing but format.h, independent of the decoder they check.
VM_HOST_TOOLS := $(patsubst tests/vm/host/%.c,$(BIN)/%,$(wildcard tests/vm/host/*.c))
TEST_PROGS    += $(VM_HOST_TOOLS)

$(VM_HOST_TOOLS): $(BIN)/%: $(OBJ)/tests/vm/host/%.o
	@mkdir -p $(BIN)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

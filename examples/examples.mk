# SPDX-License-Identifier: BSD-3-Clause
# Example programs that trace themselves through the user library.
EX_PROGS := $(patsubst examples/%.c,$(BIN)/%,$(wildcard examples/*.c))
PROGS    += $(EX_PROGS)

$(EX_PROGS): $(BIN)/%: $(OBJ)/examples/%.o $(LIBKT)
	@mkdir -p $(BIN)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# `make demo`: try kutrace without touching your own kernel.  Installs
# the build and QEMU packages it needs (tests/deps/build.apt, vm.apt),
# boots a Debian cloud kernel in QEMU (the kernel and its headers fetched
# on first use, cached in /var/cache/kutrace), traces hello_world_trace
# and a small mixed workload, and leaves demo/*.trace, demo/*.json and
# demo/*.html; and demo/*.tables where DuckDB is installed (`make deps`:
# query/query.mk then adds kutrace_sql to demo-run's prerequisites).
.PHONY: demo demo-run
demo:
	tests/install-deps.sh build vm
	$(MAKE) demo-run
demo-run: $(BIN)/kutrace_postproc
	tests/vm/vm.sh -k $(or $(DEMO_KERNEL),6.1) tests/vm/scenarios/demo.sh $(BUILD)/vm/demo
	@mkdir -p demo
	cp $(BUILD)/vm/demo/*.trace demo/
	tab=; [ -x $(BIN)/kutrace_sql ] && tab=--tables; \
	for t in demo/*.trace; do $(BIN)/kutrace_postproc $$t $$tab || exit 1; done
	@ls -l demo
	@echo "demo: open demo/*.html in a browser (or load demo/*.json in the viewer)"
	@if [ -x $(BIN)/kutrace_sql ]; then \
		echo "demo: SQL over the trace: $(BIN)/kutrace_sql $$(ls -d demo/*.tables | head -1) --report syscalls"; \
	else \
		echo "demo: no demo/*.tables: DuckDB is not installed (make deps, then make demo again)"; \
	fi

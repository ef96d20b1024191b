# SPDX-License-Identifier: BSD-3-Clause
# cmocka unit tests of libkutrace (run by tests/t_unit.sh), built by
# `make test-progs`: plain `make` needs no libcmocka-dev.
UNIT_TESTS := $(patsubst tests/unit/%.c,$(BIN)/%,$(wildcard tests/unit/*.c))
TEST_PROGS += $(UNIT_TESTS)

$(UNIT_TESTS): $(BIN)/%: $(OBJ)/tests/unit/%.o $(KT_TOOLS)
	@mkdir -p $(BIN)
	$(CC) $(LDFLAGS) -o $@ $^ $(KT_TOOLS_LDLIBS) $(LDLIBS) -lcmocka

# unit_core: the module's trace-buffer core, compiled unchanged with the
# userspace environment of module/user/ and a clock the test sets.
KT_CORE_FAKE := $(OBJ)/tests/unit/core/kutrace_core.o \
                $(OBJ)/tests/unit/core/kutrace_env_user.o
$(OBJ)/tests/unit/core/%.o: module/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Imodule -DKT_ENV_FAKE_CLOCK -c -o $@ $<
$(OBJ)/tests/unit/core/%.o: module/user/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Imodule -DKT_ENV_FAKE_CLOCK -c -o $@ $<
$(OBJ)/tests/unit/unit_core.o: CFLAGS += -Imodule -DKT_ENV_FAKE_CLOCK
$(BIN)/unit_core: $(KT_CORE_FAKE)

# SPDX-License-Identifier: BSD-3-Clause
# cmocka unit tests of libkutrace (run by tests/t_unit.sh).
UNIT_TESTS := $(patsubst tests/unit/%.c,$(BIN)/%,$(wildcard tests/unit/*.c))
PROGS += $(UNIT_TESTS)

$(UNIT_TESTS): $(BIN)/%: $(OBJ)/tests/unit/%.o $(KT_TOOLS)
	@mkdir -p $(BIN)
	$(CC) $(LDFLAGS) -o $@ $^ $(KT_TOOLS_LDLIBS) $(LDLIBS) -lcmocka

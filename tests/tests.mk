# SPDX-License-Identifier: BSD-3-Clause
# Test tools: programs the suites use, built with the rest (also in the
# sanitizer build, so that the checkers themselves run under ASan).
TEST_TOOLS := $(patsubst tests/tools/%.c,$(BIN)/%,$(wildcard tests/tools/*.c))
PROGS      += $(TEST_TOOLS)

$(BIN)/%: $(OBJ)/tests/tools/%.o $(KT_TOOLS)
	@mkdir -p $(BIN)
	$(CC) $(LDFLAGS) -o $@ $^ $(KT_TOOLS_LDLIBS) $(LDLIBS)

# SPDX-License-Identifier: BSD-3-Clause
# Example programs that trace themselves through the user library.
EX_PROGS := $(patsubst examples/%.c,$(BIN)/%,$(wildcard examples/*.c))
PROGS    += $(EX_PROGS)

$(EX_PROGS): $(BIN)/%: $(OBJ)/examples/%.o $(LIBKT)
	@mkdir -p $(BIN)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

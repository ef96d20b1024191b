# SPDX-License-Identifier: BSD-3-Clause
# Postprocessing programs: one .c file per program, linked with libkutrace.
PP_PROGS := $(patsubst postprocess/%.c,$(BIN)/%,$(wildcard postprocess/*.c))
PROGS    += $(PP_PROGS)

$(BIN)/%: $(OBJ)/postprocess/%.o $(KT_TOOLS)
	@mkdir -p $(BIN)
	$(CC) $(LDFLAGS) -o $@ $^ $(KT_TOOLS_LDLIBS) $(LDLIBS)

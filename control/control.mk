# SPDX-License-Identifier: BSD-3-Clause
# kutrace_control: the control program (uses libkutrace/control.c in libkutrace).
PROGS += $(BIN)/kutrace_control

$(BIN)/kutrace_control: $(OBJ)/control/kutrace_control.o $(KT_TOOLS)
	@mkdir -p $(BIN)
	$(CC) $(LDFLAGS) -o $@ $^ $(KT_TOOLS_LDLIBS) $(LDLIBS)

# SPDX-License-Identifier: BSD-3-Clause
# kutrace_control: the control program (the control channel of libkutrace, libkutrace/channel.h).
PROGS += $(BIN)/kutrace_control

$(BIN)/kutrace_control: $(OBJ)/control/kutrace_control.o $(KT_TOOLS)
	@mkdir -p $(BIN)
	$(CC) $(LDFLAGS) -o $@ $^ $(KT_TOOLS_LDLIBS) $(LDLIBS)

# kutrace: the front door, one command whose subcommands run the programs
# (control/kutrace.c); it knows the version for --version.
PROGS += $(BIN)/kutrace
$(OBJ)/control/kutrace.o: CFLAGS += -DKUTRACE_TOOL_VERSION='"$(file <VERSION)"'
$(OBJ)/control/kutrace.o: VERSION

$(BIN)/kutrace: $(OBJ)/control/kutrace.o $(KT_TOOLS)
	@mkdir -p $(BIN)
	$(CC) $(LDFLAGS) -o $@ $^ $(KT_TOOLS_LDLIBS) $(LDLIBS)

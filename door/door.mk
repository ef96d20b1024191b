# SPDX-License-Identifier: BSD-3-Clause
# kutrace: the front door, one command whose subcommands run the programs
# (door/kutrace.c); it knows the version for --version.
PROGS += $(BIN)/kutrace
$(OBJ)/door/kutrace.o: CFLAGS += -DKUTRACE_TOOL_VERSION='"$(file <VERSION)"'
$(OBJ)/door/kutrace.o: VERSION

$(BIN)/kutrace: $(OBJ)/door/kutrace.o $(KT_TOOLS)
	@mkdir -p $(BIN)
	$(CC) $(LDFLAGS) -o $@ $^ $(KT_TOOLS_LDLIBS) $(LDLIBS)

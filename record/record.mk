# SPDX-License-Identifier: BSD-3-Clause
# kutrace_control: the control program (the control channel of libkutrace, libkutrace/channel.h).
PROGS += $(BIN)/kutrace_control

$(BIN)/kutrace_control: $(OBJ)/record/kutrace_control.o $(KT_TOOLS)
	@mkdir -p $(BIN)
	$(CC) $(LDFLAGS) -o $@ $^ $(KT_TOOLS_LDLIBS) $(LDLIBS)


# kutrace_flight: the flight recorder (a ring of streamed chunks, snapshots on demand and on triggers).
PROGS += $(BIN)/kutrace_flight

$(BIN)/kutrace_flight: $(OBJ)/record/kutrace_flight.o $(KT_TOOLS)
	@mkdir -p $(BIN)
	$(CC) $(LDFLAGS) -o $@ $^ $(KT_TOOLS_LDLIBS) $(LDLIBS)

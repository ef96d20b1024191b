# SPDX-License-Identifier: BSD-3-Clause
# kutrace_control: the control program (uses lib/kt_control.c in libkutrace).
PROGS += $(BIN)/kutrace_control

$(BIN)/kutrace_control: $(OBJ)/control/kutrace_control.o $(LIBKT)
	@mkdir -p $(BIN)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

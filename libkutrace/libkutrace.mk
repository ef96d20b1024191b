# SPDX-License-Identifier: BSD-3-Clause
# libkutrace: the installed library (static and shared, install.mk) for
# programs that mark themselves (include/kutrace/control.h) and the control
# channel kutrace_control uses (channel.h, private).  Only libc: a program
# that marks itself links -lkutrace and nothing else.
LIBKUT_SRCS := $(wildcard libkutrace/*.c)
LIBKUT_OBJS := $(LIBKUT_SRCS:%.c=$(OBJ)/%.o) $(OBJ)/gen/kt_tables.o

# Name tables generated from the system headers, not typed by hand.
$(BUILD)/gen/kt_tables.c: libkutrace/gen_tables.sh $(wildcard libkutrace/*_vectors.txt)
	@mkdir -p $(dir $@)
	CC="$(CC)" sh libkutrace/gen_tables.sh > $@.tmp && mv $@.tmp $@

$(OBJ)/gen/kt_tables.o: $(BUILD)/gen/kt_tables.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c -o $@ $<

$(LIBKT): $(LIBKUT_OBJS)
	rm -f $@
	$(AR) rcs $@ $^

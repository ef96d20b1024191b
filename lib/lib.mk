# SPDX-License-Identifier: BSD-3-Clause
# libkutrace: the one userland library shared by all programs.
LIB_SRCS := $(wildcard lib/*.c)
LIB_OBJS := $(LIB_SRCS:%.c=$(OBJ)/%.o) $(OBJ)/gen/kt_tables.o

# Name tables generated from the system headers, not typed by hand.
$(BUILD)/gen/kt_tables.c: lib/gen_tables.sh
	@mkdir -p $(dir $@)
	CC="$(CC)" sh lib/gen_tables.sh > $@.tmp && mv $@.tmp $@

$(OBJ)/gen/kt_tables.o: $(BUILD)/gen/kt_tables.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c -o $@ $<

$(LIBKT): $(LIB_OBJS)
	$(AR) rcs $@ $^

# SPDX-License-Identifier: BSD-3-Clause
# libkttools: the private static library of kutrace's programs (trace
# reading, decoding, spans, JSON rows, pages).  Never installed; programs
# link it before libkutrace ($(KT_TOOLS)) with $(KT_TOOLS_LDLIBS).
LIB_SRCS := $(filter-out lib/store/% lib/tool/tool_store.c,$(wildcard $(addprefix lib/,$(addsuffix /*.c,$(KT_LIB_DIRS)))))
LIB_OBJS := $(LIB_SRCS:%.c=$(OBJ)/%.o)

$(LIBKTT): $(LIB_OBJS)
	rm -f $@
	$(AR) rcs $@ $^


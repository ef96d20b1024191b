# SPDX-License-Identifier: BSD-3-Clause
# Analysis tools around the JSON (spantotrim, spantospan, spantoprof,
# samptoname_k/u, checktrace, kutrace_dump, kutrace_export).
# lib/jsonrows.c (inside libkutrace.a) uses jansson, and every program
# links the whole library, so -ljansson is added for all programs: with a
# static archive an unused member costs nothing, a missing library breaks
# the link of whichever program pulls jsonrows.o.
LDLIBS += -ljansson
# samptoname_u reads ELF symbol tables with elfutils' libelf.
$(BIN)/samptoname_u: LDLIBS += -lelf

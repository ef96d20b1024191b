# SPDX-License-Identifier: BSD-3-Clause
# Analysis tools around the JSON (spantotrim, spantospan, spantoprof,
# samptoname_k/u, checktrace, kutrace_dump, kutrace_export).
# samptoname_u reads ELF symbol tables with elfutils' libelf.
$(BIN)/samptoname_u: LDLIBS += -lelf

# SPDX-License-Identifier: BSD-3-Clause
# kutrace top-level build.  `make` builds every userland program and the
# examples, `make test-progs` the programs the test suites and benchmarks
# use (tests/tools, the cmocka unit tests, ...; they need libcmocka-dev,
# which plain `make` must not), `make test` runs every test suite
# (tests/run.sh), `make bench` prints the speed figures.  Sub-directories contribute through their *.mk
# fragments so that one make process sees the whole dependency graph.

CC      ?= cc
# lib/'s stage folders, in the order of the data flow (lib/README.md)
KT_LIB_DIRS := base raw decode spans rows page store tool
KT_LIB_INC  := -Ilib $(addprefix -Ilib/,$(KT_LIB_DIRS))
BUILD   ?= build
OPT     ?= -O2 -g
CFLAGS  += $(OPT) -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror \
           -Iinclude -Ilibkutrace $(KT_LIB_INC) -I$(BUILD)/gen -MMD -MP
LDLIBS  += -lm
# `make SAN=1` builds with AddressSanitizer + UndefinedBehaviorSanitizer.
ifeq ($(SAN),1)
CFLAGS  += -fsanitize=address,undefined -fno-omit-frame-pointer \
           -fno-sanitize-recover=all
LDFLAGS += -fsanitize=address,undefined
endif

# Cross build of the guest programs for another architecture (tests/vm/
# build.sh: make CROSS=aarch64-linux-gnu- BUILD=... LDFLAGS=-static PROGRAMS):
# no build-package probe (it checks the host's), no BPF backend.
ifneq ($(CROSS),)
CC      := $(CROSS)gcc
AR      := $(CROSS)ar
HAVE_BPF := 0
endif

BIN     := $(BUILD)/bin
OBJ     := $(BUILD)/obj
# Two libraries: libkutrace (libkutrace/), installed, for programs that
# mark themselves and for the control channel, with no dependency beyond
# libc; libkttools (lib/), the tools' private static library (trace
# reading, spans, JSON, pages), which needs jansson and, optionally, zlib.
LIBKT   := $(BUILD)/libkutrace.a
LIBKTT  := $(BUILD)/libkttools.a
KT_TOOLS := $(LIBKTT) $(LIBKT)
# PROGS: what `make` (all) builds; TEST_PROGS: what `make test-progs`
# adds for the suites (tests/run.sh finds both in $(BIN), KT_BIN).
PROGS   :=
TEST_PROGS :=

# The one probe for the one optional library: pages are deflated when
# zlib is there (lib/page/html.c tests KT_HAVE_ZLIB, never the header itself).
# A cross build (the guest programs) uses no JSON and no pages: the host's
# jansson and zlib are not the target's.
ifeq ($(CROSS),)
KT_HAVE_ZLIB := $(if $(wildcard /usr/include/zlib.h),1)
endif
ifeq ($(KT_HAVE_ZLIB),1)
CFLAGS  += -DKT_HAVE_ZLIB=1
endif
KT_TOOLS_LDLIBS := $(if $(CROSS),,-ljansson) $(if $(KT_HAVE_ZLIB),-lz) -lm

.PHONY: all test-progs test test-san deps bench clean
all:

# A fresh machine: stop with one line naming the Debian packages that
# provide what is missing (tests/deps/build.apt), not a compiler error.
# Goals that install the packages themselves skip the probe.  Goals that
# build the test programs also probe tests/deps/core.apt (cmocka).
KT_TEST_GOALS := test-progs test-san bench test-kernels soak ifuzz doc-screenshots
ifeq ($(CROSS)$(filter deps demo test deb clean,$(MAKECMDGOALS)),)
KT_MISSING := $(shell tests/install-deps.sh --probe "$(CC)" build \
	$(if $(filter $(KT_TEST_GOALS),$(MAKECMDGOALS)),core))
ifneq ($(KT_MISSING),)
$(error kutrace: missing build packages: apt-get install $(KT_MISSING)  (or: make deps))
endif
endif

# Keep object files of programs (make would delete them as intermediates).
.SECONDARY:

# Every directory's fragment: libkutrace/, lib/, postprocess/*.mk ...,
# then install.mk (install, uninstall, DKMS).
include libkutrace/libkutrace.mk lib/lib.mk viewer/viewer.mk
include $(sort $(filter-out libkutrace/libkutrace.mk lib/lib.mk viewer/viewer.mk,$(wildcard */*.mk)))
include install.mk

all: $(PROGS)
test-progs: $(PROGS) $(TEST_PROGS)

$(OBJ)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c -o $@ $<

# The README's test command: installs what the tests need, then runs all
# suites, the sanitizer build included.
test: deps
	$(MAKE) test-progs
	tests/run.sh
	$(MAKE) test-san

# Installs (apt-get, npm) what the tests need: every tests/deps/*.apt list.
deps:
	tests/install-deps.sh

test-san:
	$(MAKE) SAN=1 BUILD=build-san test-progs
	KT_BIN=build-san/bin tests/run.sh --quick

clean:
	rm -rf build build-san build-fuzz

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)

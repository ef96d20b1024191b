# SPDX-License-Identifier: BSD-3-Clause
# `make install` / `make uninstall` and the DKMS targets.
#
#   make install [PREFIX=/usr/local] [DESTDIR=]   programs, libkutrace (static
#                                  and shared), its three headers
#                                  (control.h, format.h, counter.h),
#                                  kutrace.pc, the viewer
#                                  template, man pages, bash completion,
#                                  docs and examples;
#                                  kutrace_sql with its private libduckdb.so
#                                  when it was built (query/query.mk)
#   make uninstall                 removes exactly what install put there
#   make dkms-install              module source to /usr/src/kutrace-VERSION,
#                                  dkms add + install for DKMS_KERNELS (default:
#                                  the running kernel); rebuilt on kernel upgrades
#   make dkms-uninstall            dkms remove --all, source tree removed
#
# Everything installed is listed here, so uninstall can remove the same set
# (no install manifest to lose).  The layout keeps the viewer template at
# $(PREFIX)/share/kutrace/viewer.html, which is where kutrace_postproc and
# makeself look for it relative to their own binary (lib/page/html.c).
#
# Only what a program that marks itself needs is installed for developers:
# include/kutrace/control.h, format.h and counter.h (the clock entries
# are stamped with, read as kutrace_readtime() does: what a program
# needs to line up its own timestamps with the trace's) and libkutrace,
# whose shared
# object exports exactly the functions libkutrace(3) documents
# (libkutrace/libkutrace.map; tests/t_install.sh holds all three equal).

# The version, for install, kutrace.pc, DKMS, the man pages and the
# Debian packages (make deb): one place, the file VERSION.
KT_VERSION    := $(file <VERSION)
KT_SOVERSION  := 0
PREFIX        ?= /usr/local
BINDIR        ?= $(PREFIX)/bin
LIBDIR        ?= $(PREFIX)/lib
INCLUDEDIR    ?= $(PREFIX)/include
DATADIR       ?= $(PREFIX)/share
MANDIR        ?= $(DATADIR)/man
DOCDIR        ?= $(DATADIR)/doc/kutrace
# Where bash-completion loads a command's completion from when it is first
# completed (the front door's, door/kutrace.bash).
BASHCOMPDIR   ?= $(DATADIR)/bash-completion/completions
PKGCONFIGDIR  ?= $(LIBDIR)/pkgconfig
# kutrace's private libraries (libduckdb.so), never on the linker's path:
# kutrace_sql finds them through its RUNPATH $ORIGIN/../lib/kutrace, so
# this is $(BINDIR)/../lib/kutrace, not under a multiarch LIBDIR.
PKGLIBDIR     ?= $(PREFIX)/lib/kutrace
INSTALL       ?= install

# User-facing programs (the test tools in tests/tools and the examples,
# whose names are generic, are not installed as commands).
INST_PROGS := kutrace kutrace_control kutrace_postproc rawtoevent \
              eventtospan spantotrim spantospan spantoprof samptoname_k \
              samptoname_u makeself unmakeself checktrace kutrace_dump \
              kutrace_export kutrace_align kutrace_flight
INST_HDRS  := control.h format.h counter.h
# man/man3/kutrace_*.3 are ".so man3/libkutrace.3" stubs, one per
# exported function, so that `man kutrace_go` finds libkutrace(3).
INST_MAN   := $(filter-out $(if $(filter 1,$(KT_HAVE_DUCKDB)),,man/man1/kutrace_sql.1 man/man1/kutrace_why.1) \
              $(if $(and $(filter 1,$(KT_HAVE_DUCKDB)),$(KT_HAVE_MHD)),,man/man1/kutrace_view.1),\
              $(wildcard man/man*/*.[0-9]))
INST_VIEW   = $(notdir $(VIEWER_FILES))
INST_DOCS  := README.md $(wildcard docs/*.md)
INST_EX    := $(wildcard examples/*.c examples/*.md examples/*/*)
KT_SONAME  := libkutrace.so.$(KT_SOVERSION)
KT_SOREAL  := libkutrace.so.$(KT_VERSION)
# kutrace_sql (query/query.mk, when DuckDB is there) goes apart: the Debian
# package kutrace-sql carries it, libduckdb.so (64 MB) and DuckDB's MIT
# licence (debian/rules); uninstall removes them whether built or not.
# kutrace_view (libmicrohttpd) goes with them: it links DuckDB too.
INST_SQL_PROGS := kutrace_sql kutrace_why $(if $(KT_HAVE_MHD),kutrace_view)
INST_SQL_LIBS := libduckdb.so
INST_SQL_LIC  := LICENSE.duckdb

# ---------------------------------------------------------------- shared lib
# Position-independent copies of the library objects, kept apart from the
# static objects so that nobody else's build flags change.
PIC_OBJ  := $(BUILD)/pic
PIC_OBJS := $(LIBKUT_SRCS:%.c=$(PIC_OBJ)/%.o) $(PIC_OBJ)/gen/kt_tables.o
LIBKT_SO := $(BUILD)/$(KT_SOREAL)

$(PIC_OBJ)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -fPIC -c -o $@ $<

$(PIC_OBJ)/gen/kt_tables.o: $(BUILD)/gen/kt_tables.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -fPIC -c -o $@ $<

$(LIBKT_SO): $(PIC_OBJS) libkutrace/libkutrace.map
	$(CC) $(LDFLAGS) -shared -Wl,-soname,$(KT_SONAME) -Wl,--no-undefined \
		-Wl,--version-script=libkutrace/libkutrace.map -o $@ $(PIC_OBJS)

.PHONY: lib-shared install uninstall dkms-src dkms-install dkms-uninstall
lib-shared: $(LIBKT_SO)

# ---------------------------------------------------------------- kutrace_sql
# The kutrace_sql of the build tree also looks for libduckdb.so in
# DUCKDB_DIR; the installed one must not (a build directory on an
# installed program's RUNPATH is searched for every library it needs, and
# lintian rejects it): it is linked again, by the same rule of sql.mk
# with BIN=$(BUILD)/inst, with $ORIGIN/../lib/kutrace alone.
ifeq ($(KT_HAVE_DUCKDB),1)
KT_SQL_INST := $(INST_SQL_PROGS:%=$(BUILD)/inst/%)
ifndef KT_SQL_RELINK
KT_SQL_INST_LDLIBS = $(subst $$,\$$\$$,$(subst :$(DUCKDB_DIR)/lib',',$(DUCKDB_LDLIBS)))
$(KT_SQL_INST): $(BUILD)/inst/%: $(BIN)/%
	$(MAKE) --no-print-directory KT_SQL_RELINK=1 BIN=$(BUILD)/inst \
		DUCKDB_LDLIBS="$(KT_SQL_INST_LDLIBS)" $@
	@touch $@
endif
endif

# ------------------------------------------------------------------ install
KT_D := $(DESTDIR)
install: $(INST_PROGS:%=$(BIN)/%) $(LIBKT) $(LIBKT_SO) $(VIEWER_FILES) $(KT_SQL_INST)
	$(INSTALL) -d $(KT_D)$(BINDIR) $(KT_D)$(LIBDIR) $(KT_D)$(PKGCONFIGDIR) \
		$(KT_D)$(INCLUDEDIR)/kutrace $(KT_D)$(DATADIR)/kutrace \
		$(KT_D)$(DOCDIR)/examples
	$(INSTALL) -m 755 $(INST_PROGS:%=$(BIN)/%) $(KT_D)$(BINDIR)/
	$(INSTALL) -m 644 $(LIBKT) $(KT_D)$(LIBDIR)/libkutrace.a
	$(INSTALL) -m 755 $(LIBKT_SO) $(KT_D)$(LIBDIR)/$(KT_SOREAL)
	ln -sf $(KT_SOREAL) $(KT_D)$(LIBDIR)/$(KT_SONAME)
	ln -sf $(KT_SONAME) $(KT_D)$(LIBDIR)/libkutrace.so
	printf '%s\n' 'prefix=$(PREFIX)' 'libdir=$(LIBDIR)' 'includedir=$(INCLUDEDIR)' '' \
	  'Name: kutrace' \
	  'Description: libkutrace: the KUtrace user library (go/stop, marks, names)' \
	  'Version: $(KT_VERSION)' \
	  'Libs: -L$${libdir} -lkutrace' \
	  'Cflags: -I$${includedir}' > $(KT_D)$(PKGCONFIGDIR)/kutrace.pc
	chmod 644 $(KT_D)$(PKGCONFIGDIR)/kutrace.pc
	$(INSTALL) -m 644 $(INST_HDRS:%=include/kutrace/%) $(KT_D)$(INCLUDEDIR)/kutrace/
	$(INSTALL) -m 644 $(VIEWER_FILES) $(KT_D)$(DATADIR)/kutrace/
	$(INSTALL) -d $(KT_D)$(BASHCOMPDIR)
	$(INSTALL) -m 644 door/kutrace.bash $(KT_D)$(BASHCOMPDIR)/kutrace
	for m in $(INST_MAN); do \
		s=$${m##*.}; d=$(KT_D)$(MANDIR)/man$$s/$$(basename $$m); \
		$(INSTALL) -d $(KT_D)$(MANDIR)/man$$s && \
		sed 's/^\(\.TH .*\) "kutrace"/\1 "kutrace $(KT_VERSION)"/' $$m > $$d && \
		chmod 644 $$d || exit 1; \
	done
	$(INSTALL) -m 644 $(INST_DOCS) $(KT_D)$(DOCDIR)/
	$(INSTALL) -d $(KT_D)$(DOCDIR)/img
	$(INSTALL) -m 644 $(wildcard docs/img/*.png) $(KT_D)$(DOCDIR)/img/
	for f in $(INST_EX); do \
		d=$(KT_D)$(DOCDIR)/$$(dirname $$f); $(INSTALL) -d $$d && \
		$(INSTALL) -m 644 $$f $$d/ || exit 1; \
	done
ifeq ($(KT_HAVE_DUCKDB),1)
	$(INSTALL) -d $(KT_D)$(PKGLIBDIR)
	$(INSTALL) -m 755 $(KT_SQL_INST) $(KT_D)$(BINDIR)/
	$(INSTALL) -m 644 $(INST_SQL_LIBS:%=$(DUCKDB_DIR)/lib/%) $(KT_D)$(PKGLIBDIR)/
	$(INSTALL) -m 644 $(DUCKDB_DIR)/LICENSE $(KT_D)$(DOCDIR)/$(INST_SQL_LIC)
endif
	@if [ -z "$(DESTDIR)" ] && [ "$$(id -u)" = 0 ] && command -v ldconfig >/dev/null; then \
		ldconfig; fi
	@echo "install: kutrace $(KT_VERSION) in $(KT_D)$(PREFIX)"

# Removes the listed files only, then the kutrace-owned directories and
# any directory left empty by that (never a non-empty shared one).
uninstall:
	rm -f $(INST_PROGS:%=$(KT_D)$(BINDIR)/%) $(INST_SQL_PROGS:%=$(KT_D)$(BINDIR)/%) $(KT_D)$(BINDIR)/kutrace_view
	rm -f $(INST_SQL_LIBS:%=$(KT_D)$(PKGLIBDIR)/%)
	rm -f $(KT_D)$(LIBDIR)/libkutrace.a $(KT_D)$(LIBDIR)/$(KT_SOREAL) \
		$(KT_D)$(LIBDIR)/$(KT_SONAME) $(KT_D)$(LIBDIR)/libkutrace.so \
		$(KT_D)$(PKGCONFIGDIR)/kutrace.pc
	rm -f $(INST_HDRS:%=$(KT_D)$(INCLUDEDIR)/kutrace/%)
	rm -f $(INST_VIEW:%=$(KT_D)$(DATADIR)/kutrace/%)
	rm -f $(KT_D)$(BASHCOMPDIR)/kutrace
	for m in $(INST_MAN); do rm -f $(KT_D)$(MANDIR)/man$${m##*.}/$$(basename $$m); done
	rm -rf $(KT_D)$(DOCDIR)
	-rmdir $(KT_D)$(INCLUDEDIR)/kutrace $(KT_D)$(DATADIR)/kutrace $(KT_D)$(PKGLIBDIR) 2>/dev/null
	-for d in $(KT_D)$(MANDIR)/man* $(KT_D)$(MANDIR) $(KT_D)$(PKGCONFIGDIR) \
		$(KT_D)$(BASHCOMPDIR) $(KT_D)$(DATADIR)/bash-completion \
		$(KT_D)$(DATADIR)/doc $(KT_D)$(BINDIR) $(KT_D)$(LIBDIR) $(KT_D)$(PREFIX)/lib \
		$(KT_D)$(INCLUDEDIR) $(KT_D)$(DATADIR) $(KT_D)$(PREFIX); do \
		[ -d $$d ] && rmdir --ignore-fail-on-non-empty $$d; done; true
	@echo "uninstall: kutrace removed from $(KT_D)$(PREFIX)"

# --------------------------------------------------------------------- DKMS
# The DKMS source tree is the module as built out of tree: module/*.c,
# module/*.h, Kbuild and include/kutrace/format.h (the one header the
# module shares with userland), plus dkms.conf with the version filled in.
DKMS_SRC     := $(KT_D)/usr/src/kutrace-$(KT_VERSION)
DKMS_KERNELS ?= $(shell uname -r)

dkms-src:
	rm -rf $(DKMS_SRC)
	$(INSTALL) -d $(DKMS_SRC)/include/kutrace
	$(INSTALL) -m 644 module/*.c module/*.h module/Kbuild $(DKMS_SRC)/
	$(INSTALL) -m 644 include/kutrace/format.h $(DKMS_SRC)/include/kutrace/
	sed 's/#MODULE_VERSION#/$(KT_VERSION)/' module/dkms.conf > $(DKMS_SRC)/dkms.conf

# dkms add registers the tree (AUTOINSTALL=yes: rebuilt whenever a kernel's
# headers are installed); dkms install builds and installs it for each
# kernel named.  A kernel without headers is reported, not fatal: the
# registration stays and the next header install builds it.
dkms-install: dkms-src
	@command -v dkms >/dev/null || { echo "dkms-install: dkms is not installed (apt-get install dkms)"; exit 1; }
	dkms status -m kutrace -v $(KT_VERSION) | grep -q . || dkms add -m kutrace -v $(KT_VERSION)
	@for k in $(DKMS_KERNELS); do \
		if [ ! -e /lib/modules/$$k/build ]; then \
			echo "dkms-install: no headers for $$k (apt-get install linux-headers-$$k); kutrace will be built when they are installed"; \
			continue; fi; \
		echo "dkms install -m kutrace -v $(KT_VERSION) -k $$k"; \
		dkms install -m kutrace -v $(KT_VERSION) -k $$k || exit 1; \
	done

dkms-uninstall:
	-dkms remove -m kutrace -v $(KT_VERSION) --all
	rm -rf $(DKMS_SRC)

# For tests/t_man.sh: the programs install puts in $(BINDIR).
.PHONY: print-install-progs
print-install-progs:
	@echo $(INST_PROGS)
# For tests/t_install.sh and t_deb.sh: kutrace_sql when install puts it in.
.PHONY: print-install-sql
print-install-sql:
	@echo $(if $(filter 1,$(KT_HAVE_DUCKDB)),$(INST_SQL_PROGS))

# ---------------------------------------------------------------- docs
# The user guide's screenshots (docs/img/*.png) come from the real viewer
# on a client_server trace taken in the QEMU guest (tests/t_vm_examples.sh,
# tests/browser/screenshots.js).  Rerun after changing the viewer.
.PHONY: doc-screenshots
doc-screenshots: test-progs
	KT_VM_KERNELS=6.1 KT_DOC_IMG=$(CURDIR)/docs/img bash tests/t_vm_examples.sh

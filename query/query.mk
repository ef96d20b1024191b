# SPDX-License-Identifier: BSD-3-Clause
# The programs that answer SQL (docs/TABLES.md): kutrace_sql, on DuckDB.
# DuckDB is not a Debian 12 package: `make deps` (tests/deps/duckdb.sh)
# puts one pinned version in DUCKDB_DIR.  Without it these programs are
# left out of `make` with one line saying so; nothing else links DuckDB.
# The binary finds libduckdb.so next to an installed kutrace
# ($ORIGIN/../lib/kutrace) or else in DUCKDB_DIR (the build tree).
DUCKDB_VERSION := 1.4.4
DUCKDB_DIR ?= /var/cache/kutrace/duckdb/$(DUCKDB_VERSION)
LIBKTSTORE := $(BUILD)/libktstore.a
SQL_PROGS := $(BIN)/kutrace_sql $(BIN)/kutrace_why
KT_HAVE_DUCKDB := $(if $(CROSS),,$(and $(wildcard $(DUCKDB_DIR)/include/duckdb.h),$(wildcard $(DUCKDB_DIR)/lib/libduckdb.so),$(wildcard /usr/include/readline/readline.h),$(wildcard /usr/include/zstd.h),1))
KT_HAVE_MHD := $(if $(CROSS),,$(if $(wildcard /usr/include/microhttpd.h),1))
DUCKDB_LDLIBS := -L$(DUCKDB_DIR)/lib -lduckdb '-Wl,-rpath,$$ORIGIN/../lib/kutrace:$(DUCKDB_DIR)/lib'

ifeq ($(KT_HAVE_DUCKDB),1)
PROGS += $(SQL_PROGS)
# `make demo` leaves the demo traces' tables too (examples/examples.mk).
demo-run: $(BIN)/kutrace_sql
# libktstore: the table store (lib/store/store.c), for these programs only.
$(OBJ)/lib/store/store.o $(OBJ)/lib/tool/tool_store.o: CFLAGS += -I$(DUCKDB_DIR)/include -DKUTRACE_TOOL_VERSION='"$(file <VERSION)"'
$(OBJ)/lib/store/storeview.o $(OBJ)/lib/store/lodw.o: CFLAGS += -I$(DUCKDB_DIR)/include
$(LIBKTSTORE): $(OBJ)/lib/store/store.o $(OBJ)/lib/store/parquet.o $(OBJ)/lib/tool/tool_store.o $(OBJ)/lib/store/storeview.o $(OBJ)/lib/store/lodw.o
	rm -f $@
	$(AR) rcs $@ $^
$(OBJ)/query/%.o: query/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -I$(DUCKDB_DIR)/include -c -o $@ $<
$(BIN)/kutrace_sql: $(OBJ)/query/kutrace_sql.o $(LIBKTSTORE) $(KT_TOOLS)
	@mkdir -p $(BIN)
	$(CC) $(LDFLAGS) -o $@ $^ $(DUCKDB_LDLIBS) -lreadline -lzstd $(KT_TOOLS_LDLIBS) $(LDLIBS)
$(BIN)/kutrace_why: $(OBJ)/query/kutrace_why.o $(LIBKTSTORE) $(KT_TOOLS)
	@mkdir -p $(BIN)
	$(CC) $(LDFLAGS) -o $@ $^ $(DUCKDB_LDLIBS) -lzstd $(KT_TOOLS_LDLIBS) $(LDLIBS)
# kutrace_view, the viewer's local server: HTTP through libmicrohttpd
# (tests/deps/sql.apt); without it the other programs are built alone.
ifeq ($(KT_HAVE_MHD),1)
PROGS += $(BIN)/kutrace_view
$(BIN)/kutrace_view: $(OBJ)/query/kutrace_view.o $(LIBKTSTORE) $(KT_TOOLS) | $(VIEWER_FILES)
	@mkdir -p $(BIN)
	$(CC) $(LDFLAGS) -o $@ $^ $(DUCKDB_LDLIBS) -lmicrohttpd -lzstd $(KT_TOOLS_LDLIBS) $(LDLIBS)
else
all: view-missing
.PHONY: view-missing
view-missing:
	@echo "kutrace: kutrace_view not built: no <microhttpd.h> (apt-get install libmicrohttpd-dev)"
endif
# The Parquet writer under test (tests/t_tables.sh, tests/t_tsan.sh).
TEST_PROGS += $(BIN)/pqwrite
$(OBJ)/tests/sql/%.o: tests/sql/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c -o $@ $<
$(BIN)/pqwrite: $(OBJ)/tests/sql/pqwrite.o $(OBJ)/lib/store/parquet.o
	@mkdir -p $(BIN)
	$(CC) $(LDFLAGS) -o $@ $^ -lzstd -lpthread
else ifeq ($(CROSS),)
all: sql-missing
.PHONY: sql-missing
sql-missing:
	@echo "kutrace: kutrace_sql not built: DuckDB is not in $(DUCKDB_DIR) (make deps)"
endif

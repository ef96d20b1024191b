# SPDX-License-Identifier: BSD-3-Clause
# Timeline viewer: makeself/unmakeself link lib/html.c, which uses zlib and
# jansson when their headers are installed (tests/deps/viewer.apt).
# Programs that call kt_html_write (kutrace_postproc) need $(KT_HTML_LIBS).
KT_HTML_LIBS := $(if $(wildcard /usr/include/zlib.h),-lz) \
                $(if $(wildcard /usr/include/jansson.h),-ljansson)
$(BIN)/makeself $(BIN)/unmakeself: LDLIBS += $(KT_HTML_LIBS)

# The template and its sources, installed side by side.
VIEWER_SRCS := $(wildcard postprocess/viewer/*.html postprocess/viewer/*.js postprocess/viewer/*.css)

.PHONY: bench-viewer
# Load/redraw/size figures for 1M and 10M spans in headless Chromium.
bench-viewer: $(BIN)/makeself $(BIN)/unmakeself
	sh tests/deps/viewer.sh
	bash tests/browser/bench.sh

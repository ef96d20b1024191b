# SPDX-License-Identifier: BSD-3-Clause
# Timeline viewer: the page template and its sources.

# The template and its sources, installed side by side.
VIEWER_SRCS := $(wildcard postprocess/viewer/*.html postprocess/viewer/*.js postprocess/viewer/*.css)

.PHONY: bench-viewer
# Load/redraw/size figures for 1M and 10M spans in headless Chromium.
bench-viewer: $(BIN)/makeself $(BIN)/unmakeself
	sh tests/deps/viewer.sh
	bash tests/browser/bench.sh

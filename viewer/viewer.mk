# SPDX-License-Identifier: BSD-3-Clause
# Timeline viewer: the page template and its sources.
#
# The template directory is built, not the source directory:
# $(BUILD)/share/kutrace/ holds viewer.html, viewer.css, pages.js,
# pages.css and viewer.js, which assemble.sh makes from the event constants
# generated from format.h (gen_format.sh) and the modules data.js, draw.js,
# lod.js, why.js, machines.js and ui.js.  makeself and kutrace_postproc in $(BIN) find it next to
# themselves (../share/kutrace/viewer.html, lib/page/html.c); the tests, bench,
# make install and the .deb take it from there.

VIEWER_DIR   := $(BUILD)/share/kutrace
VIEWER_PARTS := $(addprefix viewer/,data.js draw.js lod.js why.js machines.js ui.js)
VIEWER_COPY  := viewer.html viewer.css pages.js pages.css
VIEWER_FILES := $(VIEWER_COPY:%=$(VIEWER_DIR)/%) $(VIEWER_DIR)/viewer.js

$(BUILD)/gen/viewer-format.js: viewer/gen_format.sh include/kutrace/format.h
	@mkdir -p $(dir $@)
	sh viewer/gen_format.sh include/kutrace/format.h > $@.tmp && mv $@.tmp $@

$(VIEWER_DIR)/viewer.js: viewer/assemble.sh $(BUILD)/gen/viewer-format.js $(VIEWER_PARTS)
	@mkdir -p $(dir $@)
	sh viewer/assemble.sh $(BUILD)/gen/viewer-format.js $(VIEWER_PARTS) > $@.tmp && mv $@.tmp $@

$(VIEWER_DIR)/%: viewer/%
	@mkdir -p $(dir $@)
	cp $< $@

.PHONY: viewer
viewer: $(VIEWER_FILES)
all: viewer
# The programs that look for the template find it next to them.
$(BIN)/makeself $(BIN)/kutrace_postproc: | $(VIEWER_FILES)

.PHONY: bench-viewer
# Load/redraw/size figures for 1M and 10M spans in headless Chromium.
bench-viewer: $(BIN)/makeself $(BIN)/unmakeself
	sh tests/deps/viewer.sh
	bash tests/browser/bench.sh

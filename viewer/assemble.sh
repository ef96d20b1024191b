#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Writes the page's viewer.js on stdout: the files given (the event
# constants generated from format.h, data.js, draw.js, why.js, ui.js, in that
# order) inside one closure.  They share their top-level names there
# without one global of their own, and the page runs them as one script
# (makeself inlines it like any other).  Run by the build (viewer.mk).
set -eu
cat <<'HEAD'
// SPDX-License-Identifier: BSD-3-Clause
// kutrace timeline viewer: draws KUtrace spans on a canvas from typed arrays.
// Data: #ktmeta (JSON header) + #ktdata (base64 of a zlib blob of columns,
// see lib/page/pageenc.c), or a KUtrace JSON file opened/dropped on the page.
// Test hook: window.kutraceState() and window.kutrace (the viewer object).
// Built from viewer/{data,draw,why,machines,ui}.js by assemble.sh.
'use strict';
(function () {
if (window.ktOtherPage) return; // an RPC or points page: pages.js draws it
HEAD
cat "$@"
echo '})();'

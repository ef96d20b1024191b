#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# kutrace_view's page in headless Chromium (tests/browser/server.test.js):
# the real trace (the original KUtrace's hello_world demo) served from its
# store loads without errors, asks only its server, draws in colour, pans
# and zooms; the store removed under the server shows as one error line in
# the page and one in the terminal, and the server keeps answering.
. tests/lib.sh
V=$KT_BIN/kutrace_view
if [ ! -x "$V" ]; then skip "kutrace_view in the browser: not built (make deps, libmicrohttpd-dev)"; exit 0; fi
browser_ready "kutrace_view in the browser" || exit 0
"$KT_BIN/kutrace_sql" build "$(real_trace)" -o "$TMP/real.tables" >/dev/null 2>&1 || nok "kutrace_sql build of the real trace"
"$V" "$TMP/real.tables" --no-browser > "$TMP/view.out" 2> "$TMP/view.err" &
PID=$!
for i in $(seq 300); do [ -s "$TMP/view.out" ] && break; sleep 0.1; done
URL=$(head -1 "$TMP/view.out")
mkdir -p build/screenshots
suite server.test.js timeout 300 node tests/browser/server.test.js "$URL" "$TMP/real.tables" build/screenshots/view-server.png
check "the server still answers after the store went" sh -c "curl -s -o /dev/null -w '%{http_code}' '$URL' | grep -q 200"
eq "the store removed: one line in the terminal" 1 "$(grep -c 'the store is gone' "$TMP/view.err")"
kill -INT $PID; wait $PID; eq "SIGINT: exit 0" 0 $?
exit 0

#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The book's other pages (issue 14) in headless Chromium and Firefox: an
# RPC page ("V4 flat RPCs", one row per RPC) and a points page (scatter
# plot), written by hand in the book's shape (tests/data/viewer/rpc_q.json,
# points_disk.json) and made into pages by makeself.  State and pixels;
# screenshots in build/screenshots/pages_*.png.  About 15 s.
. tests/lib.sh
MS=$KT_BIN/makeself
TPL=postprocess/viewer/viewer.html
if [ ! -x /usr/bin/chromium ] && [ -z "${KT_CHROMIUM:-}" ]; then skip "pages browser tests: no /usr/bin/chromium"; exit 0; fi
if ! command -v node >/dev/null; then skip "pages browser tests: no node"; exit 0; fi
if [ ! -d tests/browser/node_modules/playwright-core ]; then sh tests/deps/viewer.sh || true; fi
if [ ! -d tests/browser/node_modules/playwright-core ]; then skip "pages browser tests: playwright-core not installed"; exit 0; fi
for f in rpc_q points_disk small; do
	$MS $TPL tests/data/viewer/$f.json $TMP/$f.html || nok "makeself $f.json"
done
mkdir -p build/screenshots
# As in t_browser_viewer.sh: a crash without any "ok" line fails too.
suite() {
	local name=$1 rc; shift
	"$@" > "$TMP/$name.out" 2>&1
	rc=$?
	cat "$TMP/$name.out"
	if ! grep -q '^ok ' "$TMP/$name.out"; then
		nok "$name ran no test (exit status $rc)"; grep -v '^ok ' "$TMP/$name.out" | tail -5 | sed 's/^/#   /'
	elif [ $rc != 0 ] && ! grep -q '^not ok ' "$TMP/$name.out"; then
		nok "$name exited with status $rc without a failed test (crash?)"
	fi
}
suite pages-chromium timeout 300 node tests/browser/pages.test.js chromium $TMP build/screenshots
FX=${KT_FIREFOX:-/usr/bin/firefox-esr}
if [ ! -x "$FX" ]; then skip "pages in Firefox: no $FX (apt-get install firefox-esr)"; exit 0; fi
if [ ! -d tests/browser/node_modules/puppeteer-core ]; then skip "pages in Firefox: puppeteer-core not installed"; exit 0; fi
suite pages-firefox env KT_FIREFOX=$FX timeout 300 node tests/browser/pages.test.js firefox $TMP build/screenshots
exit 0

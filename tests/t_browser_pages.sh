#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The book's other pages (issue 14) in headless Chromium and Firefox: an
# RPC page ("V4 flat RPCs", one row per RPC) and a points page (scatter
# plot), written by hand in the book's shape (tests/data/viewer/rpc_q.json,
# points_disk.json) and made into pages by makeself.  State and pixels;
# screenshots in build/screenshots/pages_*.png.  About 15 s.
. tests/lib.sh
MS=$KT_BIN/makeself
# The template make assembles (viewer/viewer.mk), with its files.
TPL=$KT_BIN/../share/kutrace/viewer.html
browser_ready "pages browser tests" || exit 0
for f in rpc_q points_disk small; do
	$MS $TPL tests/data/viewer/$f.json $TMP/$f.html || nok "makeself $f.json"
done
# A queue test of 20000 RPCs (every 1000th fails): rows under a pixel.
node -e '
const m = ["write", "read", "chksum", "sink"], rows = []; let t = 20;
for (let i = 0; i < 20000; i++) {
  const t2 = t + 25e-6, t3 = t2 + 50e-6 + (i % 7) * 40e-6, t4 = t3 + 25e-6;
  rows.push("[" + [t, t2, t3, t4].map(v => v.toFixed(6)).join(", ") + ", \"10.0.0.1:" + (50000 + i % 8) + "\", \"10.0.0.2:12345\", 10, 4, " + (i % 65536) +
    ", 0, \"Req\", \"" + m[i % 4] + "\", \"" + (i % 1000 === 500 ? "Timeout" : "Success") + "\", 16, \"k" + i + "\"]");
  t += 150e-6;
}
process.stdout.write("{\n\"Comment\" : \"V4 flat RPCs\",\n\"title\" : \"20000 RPCs\",\n\"tracebase\" : \"2019-03-21_16:31:00\",\n\"version\" : 4,\n\"events\" : [\n" + rows.join(",\n") + "\n]}\n");
' > $TMP/rpc_big.json && $MS $TPL $TMP/rpc_big.json $TMP/rpc_big.html || nok "makeself rpc_big.json"
# The bare template (no data) with its sources, to open the JSON files in.
cp $KT_BIN/../share/kutrace/*.js $KT_BIN/../share/kutrace/*.css $TMP/ && cp $TPL $TMP/template.html
cp tests/data/viewer/rpc_q.json tests/data/viewer/points_disk.json $TMP/
mkdir -p build/screenshots
suite pages-chromium timeout 300 node tests/browser/pages.test.js chromium $TMP build/screenshots
FX=${KT_FIREFOX:-/usr/bin/firefox-esr}
if [ ! -x "$FX" ]; then skip "pages in Firefox: no $FX (apt-get install firefox-esr)"; exit 0; fi
if [ ! -d tests/browser/node_modules/puppeteer-core ]; then skip "pages in Firefox: puppeteer-core not installed"; exit 0; fi
suite pages-firefox env KT_FIREFOX=$FX timeout 300 node tests/browser/pages.test.js firefox $TMP build/screenshots
exit 0

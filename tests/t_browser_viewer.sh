#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The timeline viewer in headless Chromium (playwright-core, Debian's
# /usr/bin/chromium): pages made by makeself from tests/data/viewer/ and a
# synthetic trace; rows, labels, search, pan/zoom, highlight, save/restore,
# screenshots in build/screenshots/ (docs/spec/VIEWER.md section 6); a big
# page drawn from its summary against its rows; then the same
# pages in Firefox (firefox-esr) when it is installed.
. tests/lib.sh
MS=$KT_BIN/makeself
# The template make assembles (viewer/viewer.mk), with its files.
TPL=$KT_BIN/../share/kutrace/viewer.html
browser_ready "viewer browser tests" || exit 0
# Pass 1 of drawing a row from bins against the division it replaces (node).
suite pixels.test.js node tests/browser/pixels.test.js
for f in small unsafe orig misc; do
	$MS $TPL tests/data/viewer/$f.json $TMP/$f.html || nok "makeself $f.json"
done
cp tests/data/viewer/orig.json $TMP/
# Rows that break every column prediction of the KTV3 encoding: the page
# must decode exactly the values of the JSON.
cp tests/browser/pred_edge.json $TMP/ && $MS $TPL $TMP/pred_edge.json $TMP/pred.html || nok "makeself pred_edge.json"
# Legacy overlays: bracket (-1), oval (-2), dots (-6), and hack mode.
$MS $TPL tests/browser/legacy.json $TMP/legacy.html || nok "makeself legacy.json"
# A wakeup arc across a frequency band, a PC sample and a mark box (3.5 order).
$MS $TPL tests/browser/arcs.json $TMP/arcs.html || nok "makeself arcs.json"
# Entries lost on a CPU (-lost- rows, FORMATS 10.4): a 5 ms hole on CPU 0
# between two spans, a 10 ns one on CPU 2 over a running span.
$MS $TPL tests/browser/lost.json $TMP/lost.html || nok "makeself lost.json"
# The bare template with its sources next to it (no embedded data).
cp $KT_BIN/../share/kutrace/*.js $KT_BIN/../share/kutrace/*.css $TMP/ && cp $TPL $TMP/template.html
node tests/browser/gen_trace.js 50000 4 60 > $TMP/gen.json && $MS $TPL $TMP/gen.json $TMP/gen.html || nok "synthetic page"
# Pages shaped like the book's (original-tool JSON, original saved views):
# the hello-world demo and the chapter 29 queue test.
for p in hello queue; do
	node tests/browser/book_pages.js $p $TMP/$p.json >/dev/null && $MS $TPL $TMP/$p.json $TMP/$p.html || nok "book-shaped page $p"
done
# A kutrace_synth trace (dense marks, 4 CPUs) through kutrace_postproc.
if [ -x $KT_BIN/kutrace_synth ] && [ -x $KT_BIN/kutrace_postproc ]; then
	$KT_BIN/kutrace_synth -s 3 -c 4 -m 0.5 -o $TMP/synth.trace >/dev/null 2>&1 &&
	$KT_BIN/kutrace_postproc $TMP/synth.trace "synth" -o $TMP/synth.json --no-html >/dev/null 2>&1 &&
	$MS $TPL $TMP/synth.json $TMP/synth.html || nok "kutrace_synth page"
fi
mkdir -p build/screenshots
suite viewer.test.js timeout 600 node tests/browser/viewer.test.js $TMP build/screenshots
# A page big enough to carry its summary (VIEWER 3.4.1, lib/page/pagelod.c):
# held on it (?summary=1), every CPU and PID pixel column is drawn as from
# all its rows, at the zooms the summary serves (tests/browser/lod.test.js).
# Eight threads: PID rows of about 30 K spans, drawn from their bins at
# the whole trace with bins half to a quarter of a pixel (LOD_SUB 2; at
# the default a quarter to an eighth they have too few spans a pixel, and
# the page of rows walks them span by span).
if [ -x $KT_BIN/kutrace_synth ] && [ -x $KT_BIN/kutrace_postproc ]; then
	$KT_BIN/kutrace_synth -s 7 -c 4 -t 8 -d 1000 -m 3 --ipc -o $TMP/big.trace >/dev/null 2>&1 &&
	$KT_BIN/kutrace_postproc $TMP/big.trace "synth" -o $TMP/big.json >/dev/null 2>&1 || nok "kutrace_synth page of 400 K spans"
	check "a page of 400 K spans carries its summary" grep -q 'id="ktlod"' $TMP/big.html
	$MS $TPL $TMP/big.json $TMP/big-json.html || nok "makeself of 400 K rows"
	check "the page of 400 K rows and makeself's page of their JSON are the same bytes" cmp -s $TMP/big.html $TMP/big-json.html
	KT_LOD_SUB=2 KT_LOD_PIDS=8 suite lod.test.js-page timeout 600 node tests/browser/lod.test.js page $TMP/big.html "$TMP/big.html?summary=1"
else
	skip "a page's summary: kutrace_synth not built (make test-progs)"
fi
# Firefox (Debian firefox-esr) over WebDriver BiDi with puppeteer-core.
FX=${KT_FIREFOX:-/usr/bin/firefox-esr}
if [ ! -x "$FX" ]; then skip "viewer in Firefox: no $FX (apt-get install firefox-esr)"; exit 0; fi
if [ ! -d tests/browser/node_modules/puppeteer-core ]; then
	(cd tests/browser && npm ci --no-audit --no-fund --loglevel=error >/dev/null 2>&1)
fi
if [ ! -d tests/browser/node_modules/puppeteer-core ]; then skip "viewer in Firefox: puppeteer-core not installed"; exit 0; fi
suite firefox.test.js env KT_FIREFOX=$FX timeout 300 node tests/browser/firefox.test.js $TMP build/screenshots
exit 0

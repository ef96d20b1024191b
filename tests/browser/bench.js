// SPDX-License-Identifier: BSD-3-Clause
// Viewer speed figures (make bench-viewer): node bench.js PAGE.html SPANS
// (or kutrace_view's URL instead of the page; KT_BENCH_T0, the server's
// start in ms since the epoch, then gives server start to first draw)
// Prints load time to first draw, redraw times after pan/zoom (script, the
// frame's script + paint, and until the frame is painted, which adds the
// wait for the next frame) with the CPU rows and with the PID group open,
// and HTML bytes per span.  Lines starting "load to first" / "redraw
// after" go into docs/PERFORMANCE.md (bench/report.py).
'use strict';
const fs = require('fs');
const { launch, open } = require('./lib.js');
const file = process.argv[2], spans = +process.argv[3];

async function frame(page, fn) { // ms from the change until the frame that shows it is painted
  return page.evaluate(fn => new Promise(res => {
    const t = performance.now(); eval(fn); // eslint-disable-line no-eval
    requestAnimationFrame(() => setTimeout(() => res(performance.now() - t), 0)); // the task after that frame
  }), fn);
}
async function work(page, fn) { // ms of the frame that draws the change: script, paint and commit, not the wait for the frame
  return page.evaluate(fn => new Promise(res => requestAnimationFrame(() => {
    const t = performance.now(); eval(fn); window.kutrace.render(); // eslint-disable-line no-eval
    setTimeout(() => res(performance.now() - t), 0); // the task after this frame
  })), fn);
}
async function script(page, fn) { // ms of script for a change that renders synchronously
  return page.evaluate(fn => { const t = performance.now(); eval(fn); return performance.now() - t; }, fn); // eslint-disable-line no-eval
}
// Summary mode: until every tile and window asked for is here, then the
// frame drawn with them (window.ktBenchDone: its end, ms since navigation).
async function complete(page) {
  await page.waitForFunction(() => { const l = window.kutrace.lodState(); return l.pending === 0 && !l.loading && !l.due; }, null, { timeout: 300000, polling: 5 });
  await page.evaluate(() => { window.kutrace.render(); window.ktBenchDone = performance.now(); });
  return page.evaluate(() => window.ktBenchDone);
}
// From the first picture to the rows drawn, how long the page left a
// script asking it every 20 ms without an answer: its longest freeze.
async function freezes(ctx, file) {
  const page = ctx.pages()[0];
  await page.goto('file://' + require('path').resolve(file));
  await page.waitForFunction(() => window.kutraceState && (window.kutraceReady || window.kutraceState().perf.picture), null, { timeout: 300000, polling: 5 });
  const gaps = [];
  for (;;) {
    const t = Date.now(); const done = await page.evaluate(() => !!window.kutraceReady); gaps.push(Date.now() - t);
    if (done) break;
    await new Promise(r => setTimeout(r, 20));
  }
  return gaps;
}
const stats = a => { const s = a.slice().sort((x, y) => x - y); return { median: s[s.length >> 1], p95: s[Math.min(s.length - 1, Math.ceil(s.length * 0.95) - 1)], max: s[s.length - 1] }; };
const f = x => x.toFixed(1);

(async () => {
  const { ctx, cleanup } = await launch();
  try {
    const url = /^https?:/.test(file), bytes = url ? 0 : fs.statSync(file).size;
    const t = Date.now();
    const { page, errors } = await open(ctx, file, { timeout: 300000 });
    const wall = Date.now() - t;
    // A page without rows (summary mode, VIEWER 3.4.1) is fully drawn once
    // the tiles it asked for are here and drawn: then perf.ready is that time.
    const lod = await page.evaluate(() => window.kutrace.lodState && window.kutrace.lodState().on);
    if (lod) await complete(page);
    const s = await page.evaluate(() => window.kutraceState());
    if (lod) s.perf.ready = await page.evaluate(() => window.ktBenchDone);
    // V8's heap and, apart, the typed arrays' backing stores (outside it)
    const hu = await (await page.context().newCDPSession(page)).send('Runtime.getHeapUsage');
    const heap = hu.usedSize / 1e6, stores = (hu.backingStorageSize || 0) / 1e6;
    const pm = await page.evaluate(() => performance.memory ? performance.memory.usedJSHeapSize / 1e6 : 0);
    const origin = await page.evaluate(() => performance.timeOrigin); // the drawing's epoch ms: origin + perf.ready
    if (url) console.log(`${spans} spans from kutrace_view${lod ? ' (summary mode: no rows in the page)' : ''}` + (process.env.KT_BENCH_T0 ? `: server start to first full draw ${f(origin + s.perf.ready - +process.env.KT_BENCH_T0)} ms` : ''));
    else console.log(`${spans} spans: HTML ${(bytes / 1e6).toFixed(1)} MB = ${(bytes / spans).toFixed(2)} bytes/span`);
    if (s.perf.picture) console.log(`  first picture (CPU rows from the page's summary): ${f(s.perf.picture)} ms (navigation start -> painted; script starts ${f(s.perf.script)}, summary decoded ${f(s.perf.lod)} ms later, drawn in ${f(s.perf.pictureDraw)} ms; JS heap ${(s.perf.pictureHeap / 1e6).toFixed(0)} MB)`);
    console.log(`  load to first full draw: ${f(s.perf.ready)} ms (navigation start -> drawn; script starts ${f(s.perf.script)}, base64 ${f(s.perf.b64)}, inflate ${f(s.perf.inflate)}, columns ${f(s.perf.decode)}, rows ${f(s.perf.rows)}, first draw ${f(s.perf.first)} ms; wall ${wall} ms; JS heap ${pm.toFixed(0)} MB: V8's ${heap.toFixed(0)} MB + ${stores.toFixed(0)} MB of typed arrays)`);
    if (s.perf.restDone !== undefined) { // (pages made before this background build had none)
      await page.waitForFunction(() => window.kutraceState().perf.restDone, null, { timeout: 300000 });
      console.log(`  PID and RPC rows and the zoomed-in arrays built after the first draw, in 10 ms steps: ${f((await page.evaluate(() => window.kutraceState().perf.rest)))} ms in all`);
    }
    const t0 = s.t0, t1 = s.t1, W = t1 - t0, c = (t0 + t1) / 2;
    // Redraws after zoom (full view, x10, x100, x1000 ... ) and pans.  In
    // summary mode a window whose tiles are still on their way draws
    // little, so each step's windows are visited and their data awaited
    // first: the times are those of frames that draw everything.
    const steps = async (zooms, js, fr, wk, ph) => {
      for (const z of zooms) {
        for (let p = 0; p < 3; p++) {
          const a = c - W / z / 2 + p * W / z / 10, win = [[a, a + W / z]];
          for (const d of [20, 40]) win.push([a + W / z / d, a + W / z + W / z / d]);
          if (lod) for (const [x, y] of win) { await page.evaluate(([x, y]) => { window.kutrace.setWindow(x, y); window.kutrace.render(); }, [x, y]); await complete(page); }
          if (lod) await page.evaluate(([x, y]) => window.kutrace.setWindow(x, y), win[2]); // (the first window's frame follows another)
          js.push(await page.evaluate(([a, b]) => { window.kutrace.setWindow(a, b); return window.kutrace.render(); }, win[0]));
          if (ph && p === 0) ph.push(`x${z} ` + Object.entries(await page.evaluate(() => window.kutraceState().perf.phase || {})).filter(e => e[1] >= 0.5).map(([k, v]) => k + ' ' + f(v)).join(' '));
          fr.push(await frame(page, `window.kutrace.setWindow(${win[1][0]}, ${win[1][1]})`));
          wk.push(await work(page, `window.kutrace.setWindow(${win[2][0]}, ${win[2][1]})`));
        }
      }
    };
    if (lod) { // the steps, each to its complete picture (tiles and rows fetched from the server), before any is kept
      const full = [];
      for (const z of [1, 2, 10, 30, 100, 1000, 10000]) {
        for (let p = 0; p < 3; p++) {
          const a = c - W / z / 2 + p * W / z / 10 + W / z / 60;
          const t = await page.evaluate(([a, b]) => { window.kutrace.setWindow(a, b); window.kutrace.render(); return performance.now(); }, [a, a + W / z]);
          full.push(await complete(page) - t);
        }
      }
      const u = stats(full), l = await page.evaluate(() => window.kutrace.lodState());
      console.log(`  summary mode: pan/zoom to the complete picture (tiles and window rows from the server): median ${f(u.median)} ms, p95 ${f(u.p95)} ms, max ${f(u.max)} ms; ${l.tiles} tiles kept, ${l.loads} windows of rows loaded` +
        (l.slow.length ? `; requests over 0.5 s: ${l.slow.map(x => x[0].replace(/^(\w+)\?/, '$1 ') + ' ' + x[1] + ' ms').join(', ')}` : ''));
    }
    const js = [], fr = [], wk = [];
    await steps([1, 2, 10, 30, 100, 1000, 10000], js, fr, wk, null);
    let j = stats(js), q = stats(fr), w = stats(wk);
    console.log(`  redraw after pan/zoom (CPU rows): script median ${f(j.median)} ms, max ${f(j.max)} ms; frame (script + paint) median ${f(w.median)} ms, max ${f(w.max)} ms; to painted frame median ${f(q.median)} ms, p95 ${f(q.p95)} ms, max ${f(q.max)} ms`);
    await page.evaluate(([a, b]) => window.kutrace.setWindow(a, b), [t0, t1]);
    const opens = [], openJs = [];
    for (let i = 0; i < 3; i++) { // open, close, ... at full view; the median open
      opens.push(await frame(page, `window.kutrace.toggleGroup('PID')`));
      await frame(page, `window.kutrace.toggleGroup('PID')`);
      openJs.push(await script(page, `window.kutrace.toggleGroup('PID')`));
      await frame(page, `window.kutrace.toggleGroup('PID')`);
    }
    const open1 = stats(opens).median;
    await page.evaluate(() => window.kutrace.toggleGroup('PID'));
    const npid = (await page.evaluate(() => window.kutraceState().visibleRows.length));
    const js2 = [], fr2 = [], wk2 = [], ph = [];
    await steps([1, 3, 10, 30, 100, 1000], js2, fr2, wk2, ph);
    j = stats(js2); q = stats(fr2); w = stats(wk2);
    console.log(`  redraw after opening the PID group (${npid} rows): script median ${f(stats(openJs).median)} ms (of ${openJs.map(f).join(', ')}), median ${f(open1)} ms to the painted frame (of ${opens.map(f).join(', ')})`);
    console.log(`  redraw after pan/zoom with the PID group open (${npid} rows): script median ${f(j.median)} ms, max ${f(j.max)} ms; frame (script + paint) median ${f(w.median)} ms, max ${f(w.max)} ms; to painted frame median ${f(q.median)} ms, p95 ${f(q.p95)} ms, max ${f(q.max)} ms`);
    console.log(`    phases (ms) by zoom: ${ph.join('; ')}`);
    if (process.env.KT_BENCH_SAMPLES) console.log(`    samples in order (script; painted; frame): ${js2.map(f).join(' ')}; ${fr2.map(f).join(' ')}; ${wk2.map(f).join(' ')}`);
    await page.evaluate(([a, b]) => window.kutrace.setWindow(a, b), [t0, t1]);
    // the prefix shared by the most PID rows, and the most common syscall name
    const pre = new Map(); for (const r of s.rows) if (r.group === 'PID') { const p = r.label.replace(/[^A-Za-z_-].*/, ''); pre.set(p, (pre.get(p) || []).concat([r.label])); }
    const best = [...pre.values()].sort((a, b) => b.length - a.length)[0] || [''];
    const plabel = best[0];
    const sname = await page.evaluate(() => { const c = new Map(); const n = window.kutraceState().spans; for (let k = 0; k < n; k += 97) { const sp = window.kutrace.spanAt(k); if (sp.ev >= 0x800 && sp.ev < 0xA00) c.set(sp.name, (c.get(sp.name) || 0) + 1); } return ([...c].sort((a, b) => b[1] - a[1])[0] || ['read'])[0]; });
    const hs = Date.now(); await page.evaluate(l => window.kutrace.prefixHighlight(l), plabel); const hl = Date.now() - hs;
    const nhl = (await page.evaluate(() => window.kutraceState().rows.filter(r => r.highlighted).length));
    await page.evaluate(l => window.kutrace.prefixHighlight(l), plabel); // off again
    const ss = Date.now(); const sum = await page.evaluate(t => window.kutrace.search(t), sname); const se = Date.now() - ss;
    console.log(`  prefix highlight of ${plabel.replace(/[^A-Za-z_-].*/, '')}.* (${nhl} rows): ${hl} ms; search '${sname}' at full view: ${se} ms (${sum})`);
    if (s.perf.picture) {
      const g = await freezes(ctx, file), big = g.filter(x => x > 100);
      console.log(`  from the first picture to the rows: the longest time the page did not answer ${g.reduce((a, b) => Math.max(a, b), 0)} ms; ${big.length} waits over 100 ms, ${big.reduce((a, b) => a + b, 0)} ms in all`);
    }
    if (errors.length) console.log('  page errors: ' + errors.join('; '));
  } finally { await cleanup(); }
})();

// SPDX-License-Identifier: BSD-3-Clause
// make bench-viewer with KT_BENCH_AB: node bench_ab.js OLD.html NEW.html.
// Both pages open in one browser; each view (CPU rows, PID group open; full
// view and 3x, 10x, 100x zoom, 15 pans each) is drawn on one page then the
// other, so both see the same load.  Prints the median frame (script, paint
// and commit, as bench.js's 'frame') of each and new / old.
'use strict';
const { launch, open } = require('./lib.js');
const med = a => { const s = a.slice().sort((x, y) => x - y); return s[s.length >> 1]; };
(async () => {
  const { ctx, cleanup } = await launch();
  const pages = [];
  for (const f of process.argv.slice(2)) { const { page } = await open(ctx, f, { timeout: 300000 }); await page.waitForFunction(() => window.kutraceState().perf.restDone, null, { timeout: 300000 }); pages.push(page); }
  const work = (page, a, b) => page.evaluate(([a, b]) => new Promise(res => requestAnimationFrame(() => {
    const t = performance.now(); window.kutrace.setWindow(a, b); window.kutrace.render(); setTimeout(() => res(performance.now() - t), 0); })), [a, b]);
  const s = await pages[0].evaluate(() => { const s = window.kutraceState(); return { t0: s.t0, t1: s.t1 }; });
  const W = s.t1 - s.t0;
  const R = {};
  for (const grp of ['CPU', 'PID']) {
    if (grp === 'PID') for (const p of pages) await p.evaluate(() => window.kutrace.toggleGroup('PID'));
    for (const z of [1, 3, 10, 100]) {
      const k = grp + ' x' + z; R[k] = pages.map(() => []);
      for (let i = 0; i < 15; i++) for (let j = 0; j < pages.length; j++) { const a = s.t0 + (W - W / z) / 2 + (i - 7) * W / z / 23; await pages[j].bringToFront(); R[k][j].push(await work(pages[j], a, a + W / z)); }
    }
  }
  console.log('  view       old ms  new ms  new/old');
  for (const k in R) console.log('  ' + k.padEnd(9), R[k].map(a => med(a).toFixed(1).padStart(7)).join(' '), '  ' + (med(R[k][1]) / med(R[k][0])).toFixed(2));
  await cleanup();
})();

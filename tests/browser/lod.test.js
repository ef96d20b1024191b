// SPDX-License-Identifier: BSD-3-Clause
// node lod.test.js NAME URL: the fidelity rule of issue 31 (VIEWER 3.4.1)
// in headless Chromium.  kutrace_view at URL serves the page with every
// row (URL) and the page without rows (URL&summary=1) of one trace; the
// same windows, at several zooms, are drawn by both, and in each CPU and
// PID row (the PID group open in both), and each RPC row on screen when
// KT_LOD_RPCS is set (the RPC group open too), every pixel column must show the
// same dominant kind's colour: the
// colour at the row's centre line, where idle, user and kernel glyphs all
// pass.  The overlays that may cross that line (marks, arcs, locks,
// frequency) are off.  Once with the coverage shading off
// (kutrace.setCover), so that a column is its winner's colour, and once
// with it on: the same mixed colour.  KT_LOD_SUB=a,b,... also draws
// with those bin widths (LOD_SUB; a small trace reaches its bins only so,
// and a synthetic trace's PID rows: KT_LOD_PIDS=N checks that N of them
// are drawn from their bins at the whole trace, with some LOD_SUB;
// KT_LOD_RPCS=N the same of the RPC rows).
// node lod.test.js NAME PAGE.html PAGE.html?summary=1: the same rule for a
// page's own summary (#ktlod, lib/page/pagelod.c), held by ?summary=1, against
// the page's rows, at the zooms its summary is fine enough for (the whole
// trace down to about half of it, VIEWER 3.4.1).  A row the summary
// cannot draw as the rows would at a zoom (its bins too coarse, or too few
// spans for bins: the page without rows draws it approximately or not at
// all, and says so) is left out, and counted; a CPU row never is.
'use strict';
const { launch, open, check, failed } = require('./lib');

const settle = page => page.evaluate(() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r))));
// Per CPU, PID and RPC row, the colour of each pixel column at its centre
// line, and how the page without rows drew it (lod: 'bins', 'none', or ''
// from rows); keyed by group, place in it and label, so that a row drawn
// in another place is a row missing.
const CENTRES = `(() => { const L = window.kutrace.layout(), d = window.devicePixelRatio || 1, c = document.getElementById('cv').getContext('2d');
  const s = window.kutraceState(), out = {}, at = {};
  for (const r of s.rows) if ((r.group === 'CPU' || r.group === 'PID' || r.group === 'RPC') && r.visible) { const g = window.kutrace.rowY(r.label); if (!g) continue;
    at[r.group] = (at[r.group] || 0) + 1;
    const y = Math.round(g.yc * d), x0 = Math.round(L.left * d), w = Math.round((L.right - L.left) * d);
    out[r.group + ' ' + at[r.group] + ' ' + r.label] = { lod: r.lod, yc: g.yc, E: g.E, px: Array.from(new Uint32Array(c.getImageData(x0, y, w, 1).data.buffer)) }; }
  return out; })()`;

// The window drawn and settled: in the page without rows, once every tile
// and window asked for is here and no frame has a window still to ask
// for (due: the frame the last tile's arrival asks for is still to be
// drawn, or has yet to decide after it whether to load the window's rows;
// until then a row the page of rows walks span by span is drawn from fine
// bins, "rows to load", and a wait that ended between the tile and that
// frame drew the window without its rows), then one more frame.
async function draw(page, a, b, sum) {
  // (three frames at once, as a loaded machine draws them before a timer
  // runs: what the page decides after them must not depend on how many)
  await page.evaluate(([a, b]) => { window.kutrace.setWindow(a, b); window.kutrace.render(); window.kutrace.render(); }, [a, b]);
  await settle(page);
  if (sum) {
    for (let i = 0; i < 600; i++) {
      const l = await page.evaluate(() => window.kutrace.lodState());
      if (l.pending === 0 && !l.loading && !l.due) break;
      await new Promise(r => setTimeout(r, 50));
    }
    await settle(page);
  }
  await page.evaluate(() => window.kutrace.render());
  return page.evaluate(CENTRES);
}

(async () => {
  const [name, url, sumUrl] = process.argv.slice(2);
  const subs = (process.env.KT_LOD_SUB || '').split(',').filter(Boolean).map(Number);
  const rpc = !!process.env.KT_LOD_RPCS; // the RPC group open too
  const { ctx, cleanup } = await launch();
  try {
    const full = await open(ctx, url);
    const pf = full.page;
    await pf.waitForFunction(() => window.kutraceState().perf.restDone, null, { timeout: 120000 });
    const ctx2 = await launch();
    try {
      const sum = await open(ctx2.ctx, sumUrl || url + '&summary=1');
      const ps = sum.page;
      const ls = await ps.evaluate(() => window.kutrace.lodState());
      check(name + ': the page without rows is in summary mode (' + ls.spans + ' spans in the store)', ls.on && ls.spans > 1000, ls);
      const s = await pf.evaluate(() => window.kutraceState());
      // The same layout in both: the footer (whose status line says more in
      // summary mode, and may wrap) of one fixed height.
      for (const p of [pf, ps]) await p.evaluate(() => { const f = document.getElementById('foot'); f.style.height = '60px'; f.style.overflow = 'hidden';
        window.dispatchEvent(new Event('resize')); window.kutrace.setButtons({ mark: 0, arc: 0, lock: 0, freq: 0 }); window.kutrace.toggleGroup('PID'); });
      if (rpc) for (const p of [pf, ps]) await p.evaluate(() => window.kutrace.toggleGroup('RPC'));
      // The same PID rows, labelled alike, from the summary's meta as from all rows.
      const rowsOf = (p, g) => p.evaluate(g => window.kutraceState().rows.filter(r => r.group === g).map(r => r.id + ' ' + r.label).join('\n'), g);
      for (const g of rpc ? ['PID', 'RPC'] : ['PID']) {
        const f = await rowsOf(pf, g), x = await rowsOf(ps, g);
        check(name + ': the page without rows lays out the ' + g + ' rows of the page with every row, in its order, with their labels (' + f.split('\n').length + ' rows)',
          f === x && f.length > 0, { full: f.slice(0, 300), sum: x.slice(0, 300) });
      }
      const T0 = s.t0, W = s.t1 - s.t0;
      // zooms: the whole trace, then narrower windows around a third of it
      const wins = sumUrl ? [[T0, T0 + W], [T0 + W * 0.1, T0 + W * 0.9], [T0 + W * 0.2, T0 + W * 0.85], [T0 + W * 0.35, T0 + W * 0.35 + W / 1.6]]
        : [[T0, T0 + W], [T0 + W * 0.2, T0 + W * 0.7], [T0 + W * 0.3, T0 + W * 0.425], [T0 + W * 0.33, T0 + W * 0.33 + W / 64],
          [T0 + W * 0.34, T0 + W * 0.34 + W / 1024]];
      const pidBins = [], rpcBins = []; // PID (RPC) rows drawn from bins at the whole trace
      for (const [sub, cover] of [[4, false], [4, true]].concat(subs.map(x => [x, false]))) {
        for (const p of [pf, ps]) await p.evaluate(([x, c]) => { window.kutrace.setLod(true, x); window.kutrace.setCover(c); }, [sub, cover]);
        for (const [a, b] of wins) {
          const A = await draw(pf, a, b, false), B = await draw(ps, a, b, true);
          const st = await ps.evaluate(() => window.kutraceState().perf.lodDrawn);
          let cols = 0, bad = [], painted = 0, pcols = 0, ppainted = 0, pbins = 0, rbins = 0, left = 0; // (painted: of the CPU rows; pcols, ppainted: of the PID and RPC rows)
          for (const row of Object.keys(A)) {
            const x = A[row].px, by = B[row], y = by ? by.px : [], pid = !row.startsWith('CPU ');
            // not drawn as the rows would be, and said so (a CPU row never
            // is at these zooms); nor is a row next to one that is, in rows
            // so thin (many RPC rows: glyphs of at least a pixel, rounded)
            // that their glyphs cross its centre line
            const near = by && by.E < 4 && Object.values(B).some(o => o !== by && o.lod === 'none' && Math.abs(o.yc - by.yc) < 1.5 * by.E);
            if (by && (by.lod === 'none' || near) && pid) { left++; continue; }
            if (pid && by && by.lod === 'bins') { if (row.startsWith('PID ')) pbins++; else rbins++; }
            for (let i = 0; i < x.length; i++) {
              if (pid) { pcols++; if (x[i] !== 0xFFFFFFFF) ppainted++; } else { cols++; if (x[i] !== 0xFFFFFFFF) painted++; }
              if (x[i] !== y[i]) bad.push(row + '@' + i + ':' + (x[i] >>> 0).toString(16) + '/' + ((y[i] || 0) >>> 0).toString(16));
            }
          }
          check(name + ', LOD_SUB ' + sub + (cover ? ', shaded by coverage' : '') + ', window ' + (W / (b - a)).toFixed(W / (b - a) < 4 ? 2 : 0) + 'x: every CPU, PID' + (rpc ? ' and RPC' : '') + ' pixel column the same colour from ' +
            (st ? st + ' rows of summaries' : 'the window\'s rows') + ' as from all rows (CPU rows: ' + cols + ' columns, ' + painted + ' painted; PID' + (rpc ? ' and RPC' : '') + ' rows: ' + pbins + (rpc ? ' and ' + rbins : '') + ' from bins, ' +
            pcols + ' columns, ' + ppainted + ' painted; ' + left + ' rows left to their rows)',
          bad.length === 0 && painted > cols / 8, { bad: bad.length, first: bad.slice(0, 6), lod: bad.length ? await ps.evaluate(() => { const l = window.kutrace.lodState(); delete l.slow; return l; }) : undefined }); // (bins wider than a pixel paint one column each)
          if (a === T0 && b === T0 + W) { pidBins.push(pbins); rpcBins.push(rbins); }
        }
      }
      if (process.env.KT_LOD_PIDS) check(name + ': at the whole trace, PID rows are drawn from their summaries (' + pidBins.join(', ') + ')', Math.max(...pidBins) >= +process.env.KT_LOD_PIDS, pidBins);
      if (rpc) check(name + ': at the whole trace, RPC rows are drawn from their summaries (' + rpcBins.join(', ') + ')', Math.max(...rpcBins) >= +process.env.KT_LOD_RPCS, rpcBins);
      if (sumUrl) { // the page's summary: no rows decoded, no server asked
        const z = await ps.evaluate(() => ({ s: window.kutraceState(), l: window.kutrace.lodState() }));
        check(name + ': the page held on its summary decoded no rows, asked nothing and says so (' + JSON.stringify(z.l.status) + ')',
          z.s.spans === 0 && z.l.local && /drawn from the page's summary/.test(z.l.status) && sum.requests.length === 0, { spans: z.s.spans, status: z.l.status, req: sum.requests });
      } else {
        // What works on rows works on the window's rows: the PID rows, search.
        const w = wins[3]; await draw(ps, w[0], w[1], true);
        const z = await ps.evaluate(() => ({ l: window.kutrace.lodState(), s: window.kutraceState() }));
        const nm = await ps.evaluate(() => { const s = window.kutraceState(); for (let k = 0; k < s.spans; k++) { const x = window.kutrace.spanAt(k); if (x.ev >= 0x800 && x.ev < 0xA00) return x.name; } return ''; });
        const found = nm ? await ps.evaluate(n => window.kutrace.search(n), nm) : '';
        check(name + ': zoomed in, the window\'s rows are loaded (' + z.s.spans + ' of ' + z.l.spans + ' spans): PID rows, and search finds ' + JSON.stringify(nm) + ' (' + found + ')',
          z.l.win && z.s.spans > 0 && z.s.groups[1].count > 0 && /\d/.test(found) && !z.s.searchError, { win: z.l.win, groups: z.s.groups, found, err: z.s.searchError });
      }
      check(name + ': no page errors', full.errors.length === 0 && sum.errors.length === 0, full.errors.concat(sum.errors));
    } finally { await ctx2.cleanup(); }
  } finally {
    await cleanup();
  }
  process.exit(failed() ? 1 : 0);
})().catch(e => { console.log('not ok - lod.test.js: ' + e); process.exit(1); });

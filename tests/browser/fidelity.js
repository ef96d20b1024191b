// SPDX-License-Identifier: BSD-3-Clause
// The viewer against the original's picture (issue 14 items 1-5), on pages
// shaped like the book's (book_pages.js: hello.html, queue.html), by
// pixels and by the page's state.  Driver-neutral: viewer.test.js runs it
// in Chromium (playwright-core), firefox.test.js in Firefox (puppeteer-core).
//   await run({ open(file) -> {page, errors}, resize(page, w, h), check, shots, tag, dir })
'use strict';
const path = require('path');

const settle = page => page.evaluate(() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r))));
const st = page => page.evaluate(() => window.kutraceState());
async function setWin(page, a, b) { await page.evaluate(([a, b]) => window.kutrace.setWindow(a, b), [a, b]); await settle(page); }
async function buttons(page, o) { await page.evaluate(o => window.kutrace.setButtons(o), o); await settle(page); }
// The plot area as little-endian RGBA words (one per device pixel).
const GRAB = `(() => { const L = window.kutrace.layout(), d = window.devicePixelRatio || 1, c = document.getElementById('cv').getContext('2d');
  const x = Math.round(L.left * d), y = Math.round(L.top * d), w = Math.round((L.right - L.left) * d), h = Math.round((L.bottom - L.top) * d);
  return { w, h, d, L, px: new Uint32Array(c.getImageData(x, y, w, h).data.buffer) }; })()`;

// Item 1: no mark is ever invisible.  The expected set is 3.6.8's rule
// worked out here from the span data: per CPU row and type (a, b, c, d;
// text starting with '/' its own type) the first mark, then the next one
// at least 3 px to the right.
async function expectedMarks(page) {
  return page.evaluate(() => {
    const s = window.kutraceState(), K = window.kutrace, out = [];
    const B40 = '_abcdefghijklmnopqrstuvwxyz0123456789-./';
    const text = x => { if (x.ev === 0x20D) return String(x.arg); const i = x.name.indexOf('='); if (i >= 0) return x.name.slice(i + 1);
      let v = x.arg >>> 0, t = ''; while (v > 0 && t.length < 6) { t += B40[v % 40]; v = Math.floor(v / 40); } return t; };
    const by = new Map();
    for (let k = 0; k < s.spans; k++) {
      const x = K.spanAt(k); if (x.ev < 0x20A || x.ev > 0x20D || x.ts < s.t0 || x.ts >= s.t1 || x.cpu < 0) continue;
      const key = x.cpu + ':' + (x.ev - 0x20A) + ':' + (text(x)[0] === '/' && x.ev !== 0x20D ? 1 : 0);
      if (!by.has(key)) by.set(key, []); by.get(key).push([x.ts, k, x.ev, text(x)]);
    }
    let all = 0;
    for (const list of by.values()) {
      all += list.length; list.sort((a, b) => a[0] - b[0] || a[1] - b[1]); let last = -1e9;
      for (const [ts, k, ev, t] of list) { const x = Math.round(K.xOf(ts)); if (x >= last + 3) { out.push({ k, ev, text: t, x }); last = x; } }
    }
    return { kept: out, all };
  });
}
async function testMarks(t) {
  const { check, shots, tag } = t;
  const { page, errors } = await t.open(path.join(t.dir, 'queue.html'));
  await setWin(page, 20.005, 20.0051); // 100 us
  const exp = await expectedMarks(page);
  let s = await st(page);
  const drawn = new Map((s.markList || []).map(m => [m.k, m]));
  const missing = exp.kept.filter(m => !drawn.has(m.k));
  const full = (s.markList || []).filter(m => m.text && !m.text.includes('…')).length, bare = (s.markList || []).filter(m => !m.text).length;
  check(tag + '14.1 queue test, 100 us: all ' + exp.kept.length + ' marks kept by the 3 px rule (' + exp.all + ' in view) are drawn: ' + full + ' with their text, ' +
    (s.markCount - full - bare) + ' shortened, ' + bare + ' as bare markers; no text boxes overlap',
  exp.kept.length >= 50 && missing.length === 0 && s.markCount === exp.kept.length && s.markOverlaps === 0 && full >= exp.kept.length / 2,
  { kept: exp.kept.length, drawn: s.markCount, missing: missing.slice(0, 5), overlaps: s.markOverlaps });
  const closing = exp.kept.filter(m => m.text[0] === '/');
  check(tag + '14.1 every closing mark (' + closing.length + ' /work) is drawn', closing.length >= 10 && closing.every(m => drawn.has(m.k)), closing.filter(m => !drawn.has(m.k)).length);
  // mark_a and mark_c are placed before mark_d: none of them gave way to a number.
  const lost = (s.markList || []).filter(m => (!m.text || m.text.includes('…')) && exp.kept.some(e => e.k === m.k && e.ev !== 0x20D));
  const robbed = lost.filter(m => (s.markList || []).some(d => d.row === m.row && d.text && !d.text.includes('…') && exp.kept.some(e => e.k === d.k && e.ev === 0x20D) && d.a < m.b + 40 && d.b > m.a - 40 && d.line === 0));
  check(tag + '14.1 mark_a and mark_c win over mark_d (' + lost.length + ' a/c marks shortened or bare, none next to a full mark_d box on the first line)', robbed.length === 0, robbed.slice(0, 3));
  await page.screenshot({ path: path.join(shots, tag.replace(/ /g, '_') + 'queue_marks_100us.png') });
  // Search finds a mark by its text, mark_d by its number.
  const nFinish = exp.kept.filter(m => m.text === 'finish').length, allFinish = await page.evaluate(([a, b]) => { let n = 0; for (let k = 0; k < window.kutraceState().spans; k++) { const x = window.kutrace.spanAt(k); if (x.name === 'mark_a=finish' && x.ts >= a && x.ts < b) n++; } return n; }, [20.005, 20.0051]);
  let sum = await page.evaluate(() => window.kutrace.search('^finish$'));
  check(tag + '14.1 search ^finish$ finds the ' + allFinish + ' finish marks in view', allFinish >= 5 && nFinish <= allFinish && sum.startsWith('Matches: ' + allFinish + ','), sum);
  const d0 = exp.kept.find(m => m.ev === 0x20D);
  sum = await page.evaluate(t => window.kutrace.search('^' + t + '$'), d0.text);
  check(tag + '14.1 search ^' + d0.text + '$ finds the mark_d with that number', sum.startsWith('Matches: 1,'), sum);
  await page.evaluate(() => window.kutrace.search(''));
  // A bare marker shows its text on hover.
  s = await st(page);
  const b = (s.markList || []).find(m => !m.text);
  if (b) {
    const o = await page.evaluate(() => { const r = document.getElementById('cv').getBoundingClientRect(); return { x: r.left, y: r.top }; });
    const y = await page.evaluate(l => window.kutrace.rowY(l), b.row), mx = (b.a + b.b) / 2;
    await page.mouse.move(o.x + mx + 30, o.y + y.yc + y.E / 2 + 20); await page.mouse.move(o.x + mx, o.y + y.yc + y.E / 2 + 10);
    await new Promise(r => setTimeout(r, 200)); await settle(page);
    s = await st(page);
    const want = exp.kept.find(e => e.k === b.k);
    check(tag + '14.1 hovering a bare marker shows its text (' + s.hover + ')', want && s.hover.endsWith('=' + want.text), [s.hover, want]);
  } else check(tag + '14.1 hovering a bare marker (none needed in this view)', true);
  // Full view (20 ms): the same rule, thousands of marks, none lost.
  await setWin(page, 20.0, 20.02);
  const expF = await expectedMarks(page); s = await st(page);
  check(tag + '14.1 queue test, full view: ' + s.markCount + ' marks drawn = ' + expF.kept.length + ' kept by the 3 px rule of ' + expF.all, s.markCount === expF.kept.length && s.markOverlaps === 0, [s.markCount, expF.kept.length, s.markOverlaps]);
  check(tag + 'marks: no page errors', errors.length === 0, errors);
  await t.close(page);
  // hello world: hello and /hello back to back, at the full view and zoomed in.
  const h = await t.open(path.join(t.dir, 'hello.html'));
  for (const [a, b, what] of [[null, null, 'full view'], [50.0701, 50.0703, '200 us']]) {
    if (a !== null) await setWin(h.page, a, b);
    s = await st(h.page);
    const m = (s.markList || []).filter(q => q.row === '2').map(q => q.text + '@' + q.line + ':' + Math.round(q.a) + '-' + Math.round(q.b));
    const he = (s.markList || []).find(q => q.text === 'hello'), sl = (s.markList || []).find(q => q.text === '/hello');
    check(tag + '14.1 hello world, ' + what + ': hello and /hello both boxed on CPU 2 (' + m.join(' ') + ')',
      he && sl && (what === '200 us' || (he.line === 0 && sl.line === 0 && Math.abs(sl.b - he.a) <= 3)), m);
  }
  await h.page.screenshot({ path: path.join(shots, tag.replace(/ /g, '_') + 'hello_marks.png') });
  check(tag + 'hello marks: no page errors', h.errors.length === 0, h.errors);
  await t.close(h.page);
}

// Item 2: the frequency wash is beneath the spans.  Every pixel that has
// an exact span colour (palettes, kernel edges and backgrounds, fast
// glyphs, idle black) with Freq off must be identical with Freq on; the
// wash must show.  Marks and arcs (overlays drawn over the spans) are off.
// Pixels of aggregated columns (3.4) are mixed with what is beneath them,
// as the original's sub-pixel glyphs are, and are left out.
const PAL = ['#CC0000', '#CC4700', '#CC8F00', '#BECC00', '#77CC00', '#30CC00', '#00CC18', '#00CC5F', '#00CCA7', '#00A7CC', '#005FCC', '#0018CC', '#3000CC', '#7700CC', '#BE00CC', '#CC008F', '#CC0047',
  '#FF0000', '#FF6600', '#FFCC00', '#CCE000', '#66E000', '#00FF00', '#00FF66', '#00FFCC', '#00CCFF', '#0066FF', '#0000FF', '#6600FF', '#CC00FF', '#FF00CC', '#FF0066',
  '#FFFFE0', '#FFC0C0', '#C0C0FF', '#E0FFE0', '#55AA55', '#000000', '#808080', '#7070A0', '#E0E0E0', '#FFFF70', '#FF6060', '#6060FF', '#70FF70'];
async function testFreq(t) {
  const { check, shots, tag } = t;
  const { page, errors } = await t.open(path.join(t.dir, 'hello.html'));
  const s0 = await st(page);
  for (const [a, b, what] of [[50.0701, 50.0703, '200 us around the hello program'], [s0.t0, s0.t1, 'full view'], [49.9, 50.2, '300 ms']]) {
    await setWin(page, a, b);
    const r = await page.evaluate(`(() => { const K = window.kutrace; K.setButtons({ freq: 0, arc: 0, mark: 0 }); const off = ${GRAB}; K.setButtons({ freq: 2 }); const on = ${GRAB};
      const pal = new Set(${JSON.stringify(PAL)}.map(c => { const v = parseInt(c.slice(1), 16); return (0xFF000000 | ((v & 255) << 16) | (v & 0xFF00) | (v >> 16)) >>> 0; }));
      let span = 0, changed = 0, washed = 0; const W = 0xFFFFFFFF;
      // spans 3 px wide or more: a lone column may be an aggregated pixel mixed over what is beneath (3.4)
      for (let i = 1; i < off.px.length - 1; i++) { if (pal.has(off.px[i]) && off.px[i - 1] === off.px[i] && off.px[i + 1] === off.px[i]) { span++; if (on.px[i] !== off.px[i]) changed++; } else if (off.px[i] === W && on.px[i] !== W) washed++; }
      K.setButtons({ arc: 2, mark: 3 }); return { span, changed, washed }; })()`);
    check(tag + '14.2 Freq on vs off, ' + what + ': ' + r.span + ' span pixels keep their exact colour (' + r.changed + ' changed), the wash shows on ' + r.washed + ' background pixels',
      r.span > 1000 && r.changed === 0 && r.washed > 1000, r);
  }
  await setWin(page, 50.0701, 50.0703);
  await page.screenshot({ path: path.join(shots, tag.replace(/ /g, '_') + 'hello_freq_under.png') });
  check(tag + 'freq: no page errors', errors.length === 0, errors);
  await t.close(page);
}

// Item 3: at the full view the mostly idle CPUs read as idle.  Share of the
// event band pixels of the CPU rows (the idle line excluded) that are
// strongly coloured: a solid column per pixel makes it large.
async function bandInk(page) {
  return page.evaluate(`(() => { const g = ${GRAB}, s = window.kutraceState(); let ink = 0, tot = 0;
    for (const lab of s.visibleRows) { const y = window.kutrace.rowY(lab); if (!y) continue;
      for (let yy = Math.round((y.yc - 0.45 * y.E - g.L.top) * g.d); yy < Math.round((y.yc + 0.45 * y.E - g.L.top) * g.d); yy++) {
        if (Math.abs(yy - (y.yc - g.L.top) * g.d) <= 0.06 * y.E * g.d + 1) continue; // the idle line
        for (let x = 0; x < g.w; x++) { const v = g.px[yy * g.w + x], r = v & 255, gg = (v >> 8) & 255, b = (v >> 16) & 255; tot++; if (Math.min(r, gg, b) < 160) ink++; } } }
    return { ink, tot, share: ink / tot }; })()`);
}
async function testFullView(t) {
  const { check, shots, tag } = t;
  const { page, errors } = await t.open(path.join(t.dir, 'hello.html'));
  let s = await st(page);
  const asShipped = await bandInk(page);
  await buttons(page, { freq: 0 }); const noFreq = await bandInk(page);
  check(tag + '14.3 hello world full view (' + s.spans + ' spans, 4 CPUs, 3.7 s): ' + (100 * asShipped.share).toFixed(2) + ' % of the CPU bands strongly coloured with Freq on, ' +
    (100 * noFreq.share).toFixed(2) + ' % off (mostly idle reads as idle)', asShipped.share < 0.03 && noFreq.share < 0.03, [asShipped, noFreq]);
  await buttons(page, { freq: 2 });
  await page.screenshot({ path: path.join(shots, tag.replace(/ /g, '_') + 'hello_full.png') });
  // A busy stretch still reads as busy: the queue test's CPUs at the full view.
  const q = await t.open(path.join(t.dir, 'queue.html'));
  const busy = await bandInk(q.page);
  check(tag + '14.3 queue test full view (busy CPUs): ' + (100 * busy.share).toFixed(1) + ' % of the CPU bands coloured', busy.share > 0.15, busy);
  await q.page.screenshot({ path: path.join(shots, tag.replace(/ /g, '_') + 'queue_full.png') });
  check(tag + 'full view: no page errors', errors.length === 0 && q.errors.length === 0, [errors, q.errors]);
  await t.close(q.page); await t.close(page);
}

// Item 4: saved views from an original page restore the whole view.
async function testViews(t) {
  const { check, shots, tag } = t;
  const { page, errors } = await t.open(path.join(t.dir, 'queue.html'));
  let s = await st(page);
  check(tag + '14.4 HTML-escaped labels decoded: ' + s.views.map(v => v.label).join(' '), s.views.map(v => v.label).join(' ') === '⇐ fig29.11 ➀', s.views);
  await page.click('#view1'); await settle(page); await new Promise(r => setTimeout(r, 100)); await settle(page);
  s = await st(page);
  const kept = s.annotations.filter(a => / futex\(/.test(a) && /; /.test(a));
  check(tag + '14.4 fig29.11 restores CPU collapsed, only the highlighted PID rows, search futex, annot: style, the kept annotation, 100 us',
    s.groups[0].open === 'closed' && s.groups[1].open === 'hl' && JSON.stringify(s.visibleRows) === '["server.3001","server.3004"]' &&
    await page.evaluate(() => document.getElementById('search').value) === 'futex' && s.summary.startsWith('Matches: ') && s.buttons.annot === 1 &&
    kept.length === 1 && Math.abs(s.t0 - 20.005) < 1e-9 && Math.abs(s.t1 - 20.0051) < 1e-9,
  { groups: s.groups.map(g => g.open), rows: s.visibleRows, summary: s.summary, annot: s.buttons.annot, kept: s.annotations.slice(-2), t: [s.t0, s.t1] });
  await page.screenshot({ path: path.join(shots, tag.replace(/ /g, '_') + 'queue_fig29_11.png') });
  // kutrace saves the same: change everything, save in ➀, reset, restore.
  await page.evaluate(() => { window.kutrace.toggleGroup('RPC'); window.kutrace.setButtons({ mark: 2, arc: 1, cb: 1 }); window.kutrace.search('wait'); });
  await page.evaluate(() => document.getElementById('view2').dispatchEvent(new MouseEvent('click', { shiftKey: true, bubbles: true }))); // shift-click: save
  const saved = await st(page);
  await page.evaluate(() => window.kutrace.setWindow(20.0, 20.02));
  await page.click('#view0'); await settle(page); // back to the view before fig29.11 (the first), then ➀
  await page.click('#view2'); await settle(page);
  s = await st(page);
  const same = ['t0', 't1'].every(k => Math.abs(s[k] - saved[k]) < 1e-12) && JSON.stringify(s.groups) === JSON.stringify(saved.groups) &&
    JSON.stringify(s.buttons) === JSON.stringify(saved.buttons) && JSON.stringify(s.visibleRows) === JSON.stringify(saved.visibleRows) && s.search.text === 'wait' &&
    JSON.stringify(s.rows.filter(r => r.highlighted).map(r => r.label)) === JSON.stringify(saved.rows.filter(r => r.highlighted).map(r => r.label));
  const exp = await page.evaluate(() => window.kutrace.exportText());
  const sv = JSON.parse('{' + exp.slice(2)).savedview, v2 = sv[2][1];
  check(tag + '14.4 kutrace saves the same: a view saved in ➀ restores groups, highlights, buttons, search; exported in the original shape',
    same && v2 && v2.ui_cb === 1 && v2.ui_arc === 1 && v2.searchText === 'wait' && Array.isArray(v2.rowToHilite) && v2.groupExpanded[0] === 0 && v2.xleft_ts > 0,
  { same, v2: v2 && Object.keys(v2).join(',') });
  check(tag + 'views: no page errors', errors.length === 0, errors);
  await t.close(page);
  const h = await t.open(path.join(t.dir, 'hello.html'));
  s = await st(h.page);
  check(tag + '14.4 hello world labels ⇐ ➀ ➁ ➂ ➃', s.views.map(v => v.label).join(' ') === '⇐ ➀ ➁ ➂ ➃', s.views.map(v => v.label));
  await h.page.click('#view2'); await settle(h.page);
  s = await st(h.page);
  check(tag + '14.4 hello world ➁ turns IPC on and Freq off (50.0819..50.0860)', s.buttons.ipc === 3 && s.buttons.freq === 0 && Math.abs(s.t0 - 50.0819) < 1e-9 &&
    await h.page.evaluate(() => document.getElementById('b_ipc').className === 'on' && document.getElementById('b_freq').className === ''), s.buttons);
  check(tag + 'hello views: no page errors', h.errors.length === 0, h.errors);
  await t.close(h.page);
}

// Item 5: the smaller differences.
async function testSmall(t) {
  const { check, shots, tag } = t;
  let { page, errors } = await t.open(path.join(t.dir, 'hello.html'));
  const find = (pred) => page.evaluate(`(() => { const n = window.kutraceState().spans; for (let k = 0; k < n; k++) { const x = window.kutrace.spanAt(k); if (${pred}) return Object.assign({ k }, x); } return null; })()`);
  // PC sample dash colour: light palette A at (arg x 5) mod 17.
  const smp = await find('x.ev === 0x280 && x.cpu === 0 && x.pid > 0 && x.ts > 50.5 && (x.arg * 5) % 17 !== (x.arg * 4) % 17');
  await setWin(page, smp.ts - 0.0005, smp.ts + smp.dur + 0.0005); await buttons(page, { samp: 2, freq: 0 });
  const PA = ['#CC0000', '#CC4700', '#CC8F00', '#BECC00', '#77CC00', '#30CC00', '#00CC18', '#00CC5F', '#00CCA7', '#00A7CC', '#005FCC', '#0018CC', '#3000CC', '#7700CC', '#BE00CC', '#CC008F', '#CC0047'];
  const light = c => { const v = parseInt(c.slice(1), 16); return [16, 8, 0].map(s => 128 + (((v >> s) & 255) >> 1)); };
  const count = rgb => page.evaluate(`(() => { const g = ${GRAB}; let n = 0; for (const v of g.px) if ((v & 255) === ${rgb[0]} && ((v >> 8) & 255) === ${rgb[1]} && ((v >> 16) & 255) === ${rgb[2]}) n++; return n; })()`);
  const want = await count(light(PA[(smp.arg * 5) % 17])), old = await count(light(PA[(smp.arg * 4) % 17]));
  check(tag + '14.5 PC sample dashes in palette A\' (arg x 5) mod 17: ' + want + ' px, (arg x 4) mod 17: ' + old + ' px', want >= 20 && old === 0, [smp.arg, want, old]);
  await buttons(page, { samp: 0 });
  // IPC triangles: 0.67 E from pivot to tip, at the span's true middle even when it runs off screen.
  const u = await find("x.name === 'hello_world_tra.8292'");
  await setWin(page, u.ts + 0.3 * u.dur, u.ts + 2 * u.dur); await buttons(page, { ipc: 3 });
  let s = await st(page);
  const y2 = await page.evaluate(() => window.kutrace.rowY('2')), xm = await page.evaluate(t => window.kutrace.xOf(t), u.ts + u.dur / 2);
  const tri = (s.triPos || []).filter(p => Math.abs(p[1] - 2 * 0.67 * y2.E) < 0.01), L0 = await page.evaluate(() => window.kutrace.layout());
  const vis = (L0.left + await page.evaluate(t => window.kutrace.xOf(t), u.ts + u.dur)) / 2; // the middle of the visible part
  check(tag + '14.5 IPC triangle of a span cut by the left edge sits at its true middle (x ' + xm.toFixed(1) + ', not ' + vis.toFixed(1) + '), 0.67 E pivot to tip; legend in fractions',
    tri.some(p => Math.abs(p[0] - xm) < 0.5) && !(s.triPos || []).some(p => Math.abs(p[0] - vis) < 0.5) && s.ipcLegend.includes('1/8') && s.ipcLegend.includes('7/8') && s.ipcLegend.includes('2.5'),
  { xm, vis, tri: (s.triPos || []).slice(0, 6), legend: s.ipcLegend });
  await page.screenshot({ path: path.join(shots, tag.replace(/ /g, '_') + 'hello_ipc.png') });
  await buttons(page, { ipc: 0 });
  // c-exit: one sine period, E/2 from crest to trough.
  const ce = await find('x.ev === 0x20000 && x.cpu === 1 && x.ts > 50.5');
  await setWin(page, ce.ts - 0.5 * ce.dur, ce.ts + 1.5 * ce.dur);
  const y1 = await page.evaluate(() => window.kutrace.rowY('1'));
  const xa = await page.evaluate(t => window.kutrace.xOf(t), ce.ts + 0.1 * ce.dur), xb = await page.evaluate(t => window.kutrace.xOf(t), ce.ts + 0.9 * ce.dur);
  const ext = await page.evaluate(`(() => { const g = ${GRAB}; let lo = 1e9, hi = -1e9; for (let y = Math.round((${y1.top} - g.L.top) * g.d); y < Math.round((${y1.top + y1.E} - g.L.top) * g.d); y++) for (let x = Math.round((${xa} - g.L.left) * g.d); x < Math.round((${xb} - g.L.left) * g.d); x++) { const v = g.px[y * g.w + x], r = v & 255, gg = (v >> 8) & 255, b = (v >> 16) & 255; if (r > 150 && gg < 60 && b < 60) { if (y < lo) lo = y; if (y > hi) hi = y; } } return (hi - lo + 1) / g.d; })()`);
  check(tag + '14.5 c-exit sine ' + ext.toFixed(1) + ' px tall for E = ' + y1.E.toFixed(1) + ' (E/2 plus the stroke)', ext >= y1.E / 2 - 2 && ext <= y1.E / 2 + 0.07 * y1.E + 3, [ext, y1.E]);
  // packets: rx '\' low (13..21 px under the top), tx '/' high (5..13), staggered.
  const rx = await find("x.ev === 0x214 && x.ts > 50.5");
  await setWin(page, rx.ts - 0.0001, rx.ts + 0.0003);
  const L = await page.evaluate(() => window.kutrace.layout()), xr = await page.evaluate(t => window.kutrace.xOf(t), rx.ts), xt = await page.evaluate(t => window.kutrace.xOf(t), rx.ts + 0.0002);
  const dark = (x0, x1, y0, y1) => page.evaluate(`(() => { const g = ${GRAB}; let n = 0; for (let y = Math.round(${y0} * g.d); y < Math.round(${y1} * g.d); y++) for (let x = Math.round((${x0} - g.L.left) * g.d); x < Math.round((${x1} - g.L.left) * g.d); x++) { const v = g.px[y * g.w + x]; if ((v & 255) < 90 && ((v >> 8) & 255) < 90 && ((v >> 16) & 255) < 90) n++; } return n; })()`);
  const rxLow = await dark(xr - 5, xr + 1, 13, 22), rxHigh = await dark(xr - 5, xr + 1, 0, 12), txHigh = await dark(xt - 1, xt + 5, 4, 14), txLow = await dark(xt - 1, xt + 5, 15, 24);
  check(tag + '14.5 packet ticks: rx \\ 13..21 px under the top (' + rxLow + ' px, ' + rxHigh + ' above), tx / 5..13 px (' + txHigh + ' px, ' + txLow + ' below)', rxLow >= 4 && rxHigh === 0 && txHigh >= 4 && txLow === 0, [rxLow, rxHigh, txHigh, txLow, L.top]);
  check(tag + 'small (hello): no page errors', errors.length === 0, errors);
  await t.close(page);
  // the control bar wraps at 1400 px: the kernel, CPU model and size readout (shown after loading) stay visible
  ({ page } = await t.open(path.join(t.dir, 'hello.html')));
  await t.resize(page, 1400, 1000); await new Promise(r => setTimeout(r, 150)); await settle(page);
  const bar = await page.evaluate(() => { const st = document.getElementById('status').getBoundingClientRect(), b = document.getElementById('bar'); return { right: st.right, bottom: st.bottom, barBottom: b.getBoundingClientRect().bottom, w: window.innerWidth, text: document.getElementById('status').textContent, clipped: b.scrollHeight > b.clientHeight + 1 }; });
  check(tag + '14.5 control bar at 1400 px wraps: the status (' + bar.text + ') ends at ' + Math.round(bar.right) + ' px, inside the window',
    /i3-7100/.test(bar.text) && /\d+x\d+/.test(bar.text) && bar.right <= bar.w && !bar.clipped && bar.bottom <= bar.barBottom + 1, bar);
  await page.screenshot({ path: path.join(shots, tag.replace(/ /g, '_') + 'bar_1400.png') });
  await t.resize(page, 1600, 1000);
  await t.close(page);
  // queue test: Morse at the wait's real end; squeezed rows hide waits and queue lines
  const q = await t.open(path.join(t.dir, 'queue.html'));
  await q.page.evaluate(() => window.kutrace.toggleGroup('PID'));
  const w = await q.page.evaluate(() => { const n = window.kutraceState().spans; for (let k = 0; k < n; k++) { const x = window.kutrace.spanAt(k); if (x.ev === 0x30B && x.pid === 3002 && x.ts > 20.005) return x; } return null; });
  const morseRun = async () => q.page.evaluate(`(() => { const g = ${GRAB}, y = window.kutrace.rowY('server.3002'); let best = 0;
    for (let x = 0; x < g.w; x++) { let run = 0; for (let yy = Math.round((y.top - g.L.top) * g.d); yy < Math.round((y.top + y.E - g.L.top) * g.d); yy++) { const v = g.px[yy * g.w + x];
      if ((v & 255) === 0xFF && ((v >> 8) & 255) === 0x40 && ((v >> 16) & 255) === 0x40) { run++; if (run > best) best = run; } else run = 0; } } return { best: best / g.d, E: y.E }; })()`);
  await setWin(q.page, w.ts - 0.00002, w.ts + w.dur + 0.000002); const whole = await morseRun();
  await setWin(q.page, w.ts - 0.00002, w.ts + w.dur * 0.5); const cut = await morseRun();
  check(tag + '14.5 a wait cut by the right edge shows no Morse at the edge (tallest run ' + cut.best + ' px, line 0.075 E = ' + (0.075 * cut.E).toFixed(1) + '); whole, its Morse shows (' + whole.best + ' px)',
    whole.best >= 0.14 * whole.E - 1 && cut.best <= Math.ceil(0.075 * cut.E) + 1, [whole, cut]);
  let qs = await st(q.page);
  check(tag + '14.5 PID rows tall enough: waits drawn (' + qs.waits + ')', qs.waits > 0, qs.waits);
  await q.page.evaluate(() => { window.kutrace.toggleGroup('PID'); window.kutrace.toggleGroup('RPC'); });
  await setWin(q.page, 20.005, 20.0051);
  qs = await st(q.page);
  const E = await q.page.evaluate(() => { const s = window.kutraceState(); const r = s.visibleRows.find(l => l === 'getuser'); return r ? window.kutrace.rowY(r).E : null; });
  check(tag + '14.5 RPC group open (' + qs.visibleRows.length + ' rows, E ' + (E || 0).toFixed(1) + ' px): no queue lines (' + qs.queues + '), no waits (' + qs.waits + ')', E !== null && E < 7 && qs.queues === 0 && qs.waits === 0, [qs.queues, qs.waits, E]);
  await q.page.screenshot({ path: path.join(shots, tag.replace(/ /g, '_') + 'queue_rpc_open.png') });
  check(tag + 'small (queue): no page errors', q.errors.length === 0, q.errors);
  await t.close(q.page);
}

async function run(t) {
  for (const f of [testMarks, testFreq, testFullView, testViews, testSmall]) {
    try { await f(t); } catch (e) { t.check(t.tag + f.name + ' ran to the end', false, String(e && e.stack || e)); }
  }
}
module.exports = { run };

// SPDX-License-Identifier: BSD-3-Clause
// Browser tests of the timeline viewer (docs/spec/VIEWER.md section 6), run by
// tests/t_browser_viewer.sh:  node viewer.test.js PAGEDIR SHOTDIR
// PAGEDIR holds small.html, unsafe.html, orig.html, gen.html made by
// makeself, and template.html (the bare template).
'use strict';
const fs = require('fs');
const path = require('path');
const { launch, open, check, failed } = require('./lib.js');
const dir = process.argv[2], shots = process.argv[3];
fs.mkdirSync(shots, { recursive: true });
const near = (a, b, eps) => Math.abs(a - b) <= eps;

async function canvasOrigin(page) { return page.evaluate(() => { const r = document.getElementById('cv').getBoundingClientRect(); return { x: r.left, y: r.top }; }); }
async function st(page) { return page.evaluate(() => window.kutraceState()); }
async function settle(page) { await page.evaluate(() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))); }
async function search(page, text) {
  await page.fill('#search', text); await page.press('#search', 'End'); await page.keyboard.up('End');
  await page.waitForTimeout(50); await settle(page); return (await st(page)).summary;
}
// Count canvas pixels inside a CSS-pixel rectangle for which the
// expression over r, g, b holds.
async function countWhere(page, rect, expr) {
  return page.evaluate(([rect, expr]) => {
    const f = new Function('r', 'g', 'b', 'return ' + expr); const d = window.devicePixelRatio || 1;
    const img = document.getElementById('cv').getContext('2d').getImageData(Math.round(rect.x * d), Math.round(rect.y * d), Math.round(rect.w * d), Math.round(rect.h * d)).data;
    let n = 0; for (let i = 0; i < img.length; i += 4) if (f(img[i], img[i + 1], img[i + 2])) n++;
    return n;
  }, [rect, expr]);
}
// Count canvas pixels near an RGB colour inside a CSS-pixel rectangle.
async function countColor(page, rgb, rect) {
  return page.evaluate(([rgb, rect]) => {
    const cv = document.getElementById('cv'); const d = window.devicePixelRatio || 1;
    const r = rect || { x: 0, y: 0, w: cv.width / d, h: cv.height / d };
    const img = cv.getContext('2d').getImageData(Math.round(r.x * d), Math.round(r.y * d), Math.round(r.w * d), Math.round(r.h * d)).data;
    let n = 0; for (let i = 0; i < img.length; i += 4) if (Math.abs(img[i] - rgb[0]) < 12 && Math.abs(img[i + 1] - rgb[1]) < 12 && Math.abs(img[i + 2] - rgb[2]) < 12) n++;
    return n;
  }, [rgb, rect]);
}

// The legend entries of the legacy overlays (docs/spec/VIEWER.md 1.4, 3.6.15).  The
// legend is a fixed key (like Lock, Samp and RPC messages, shown whether or
// not the trace has them), so these are listed for every trace.
const LEGACY_LEGEND = ['bracket (−1): a time range, named', 'oval (−2): spotlight, the rest faded', 'dots (−6): hatching on a CPU row', 'local_timer at least 5 px wide'];
let SMALL_LEGEND = null;

async function testSmall(ctx) {
  const { page, errors, requests } = await open(ctx, path.join(dir, 'small.html'));
  const dialogs = []; page.on('dialog', d => { dialogs.push(d.message()); d.accept('myview'); });
  let s = await st(page);
  check('1 loads over file:// with no network request', requests.length === 0, requests);
  check('1 title is "hello world"', s.title === 'hello world', s.title);
  check('4 header status shows kernel and CPU model', s.status.includes('6.6.0-kutrace') && s.status.includes('i3-7100'), s.status);
  check('5 size readout shown after load', /\d+x\d+/.test(s.status), s.status);
  check('3/6 initial X range is the whole trace 50.000..50.010', near(s.t0, 50.0, 1e-9) && near(s.t1, 50.01, 1e-9), [s.t0, s.t1]);
  check('6 base time 2021-10-28 14:01:50 and msec axis', s.baseText === '2021-10-28 14:01:50' && s.axisTitle === 'Time (msec)', [s.baseText, s.axisTitle]);
  check('6 tick labels run 000.0 .. 010.0', s.tickLabels[0] === '000.0' && s.tickLabels.includes('005.0'), s.tickLabels);
  check('7 initial rows: CPU 0..3 visible, PID and RPC collapsed',
    JSON.stringify(s.visibleRows) === '["0","1","2","3"]' && s.groups[1].open === 'closed' && s.groups[2].open === 'closed', [s.visibleRows, s.groups]);
  check('7 group headers ▼ CPU (4), ▶ PID (6), ▶ RPC (2)', s.groups.map(g => g.header).join('|') === '▼ CPU (4)|▶ PID (6)|▶ RPC (2)', s.groups.map(g => g.header));
  const pidRows = s.rows.filter(r => r.group === 'PID').map(r => r.label);
  check('8 PID rows sorted by pid, renamed by the left mark, no pid 0',
    JSON.stringify(pidRows) === JSON.stringify(['mysqld.1204', 'mysqld.1205', 'sshd.1562', 'small.4464', 'bash+hello_world_tra.8292', 'bigpid.70000']), pidRows);
  check('10 pids 4464 and 70000 (same low 16 bits) get two rows', pidRows.includes('small.4464') && pidRows.includes('bigpid.70000'));
  const rpcRows = s.rows.filter(r => r.group === 'RPC').map(r => r.label);
  check('9 RPC rows in order of arrival', JSON.stringify(rpcRows) === '["getuser.7","putuser.3"]', rpcRows);
  await page.screenshot({ path: path.join(shots, 'small_initial.png') });

  // Group toggle by clicking the header label.
  const o = await canvasOrigin(page);
  const hdrY = await page.evaluate(() => { window.kutrace.layout(); return null; });
  void hdrY;
  const pidHeader = await page.evaluate(() => { const s = window.kutraceState(); return s; });
  void pidHeader;
  const headerPos = await page.evaluate(() => { const L = window.kutrace.layout(); return L; });
  // The PID header sits right below the last CPU row.
  const cpu3 = await page.evaluate(() => window.kutrace.rowY('3'));
  await page.mouse.click(o.x + 30, o.y + cpu3.top + cpu3.h + 5 * ((cpu3.h) / 20));
  await settle(page);
  s = await st(page);
  check('11 clicking the PID header opens it (6 more rows)', s.visibleRows.length === 10 && s.groups[1].open === 'open', s.visibleRows);
  const last = await page.evaluate(() => window.kutrace.rowY('bigpid.70000'));
  check('12 opening a group fits all rows in the window', last && last.top + last.h <= headerPos.bottom + 1, [last, headerPos.bottom]);
  check('13 row labels are drawn (thinned where crowded)', s.labelsShown.length >= 6 && s.labelsShown.length <= 10, s.labelsShown);
  await page.screenshot({ path: path.join(shots, 'small_pid_open.png') });
  // 24 waits: wait_cpu of small.4464 (50.007 + 1 ms) in orange #FFC000 on its PID row only, with Morse -.-. at the right end.
  await page.evaluate(() => window.kutrace.setWindow(50.0069, 50.0081)); await settle(page);
  const w4464 = await page.evaluate(() => window.kutrace.rowY('small.4464')), Lw = await page.evaluate(() => window.kutrace.layout());
  const orangeRow = await countColor(page, [0xFF, 0xC0, 0], { x: Lw.left, y: w4464.top, w: Lw.right - Lw.left, h: w4464.E });
  const orangeAll = await countColor(page, [0xFF, 0xC0, 0], { x: Lw.left, y: Lw.top, w: Lw.right - Lw.left, h: Lw.bottom - Lw.top });
  const xw0 = await page.evaluate(() => window.kutrace.xOf(50.0075)), xw1 = await page.evaluate(() => window.kutrace.xOf(50.008));
  const morseRight = await countColor(page, [0xFF, 0xC0, 0], { x: xw0, y: w4464.top, w: xw1 - xw0, h: w4464.E });
  check('24 wait_cpu drawn orange on the small.4464 row only (' + orangeRow + ' of ' + orangeAll + ' px), thicker Morse at its right end (' + morseRight + ' px in the right half)',
    orangeRow > 300 && orangeRow === orangeAll && morseRight > orangeRow / 2, [orangeRow, orangeAll, morseRight]);
  await page.evaluate(() => window.kutrace.setWindow(50.0, 50.01)); await settle(page);

  // Shift-click highlight on a label.
  const sshd = await page.evaluate(() => window.kutrace.rowY('sshd.1562'));
  await page.keyboard.down('Shift');
  await page.mouse.click(o.x + headerPos.left - 20, o.y + sshd.yc);
  await page.keyboard.up('Shift');
  await settle(page);
  s = await st(page);
  check('14 shift-click on a label highlights the row', s.rows.find(r => r.label === 'sshd.1562').highlighted && s.rows.filter(r => r.highlighted).length === 1, s.rows.filter(r => r.highlighted));
  const greyPixels = await countColor(page, [0xE8, 0xE8, 0xE8]);
  check('14 other spans are drawn grey #E8E8E8', greyPixels > 1000, greyPixels);
  await page.screenshot({ path: path.join(shots, 'small_highlight_sshd.png') });
  let sum = await search(page, 'write');
  check('16 highlight limits search: write -> 1 match', sum === 'Matches: 1, 10.000us [10.0us..10.0us]', sum);
  // Group cycle with highlights: open -> highlighted only -> collapsed -> open.
  const counts = [];
  for (let i = 0; i < 3; i++) { await page.evaluate(() => window.kutrace.toggleGroup('PID')); counts.push((await st(page)).visibleRows.filter(l => !/^\d$/.test(l)).length); }
  check('11 header cycle with a highlight: 6 -> 1 -> 0 -> 6', counts.join(',') === '1,0,6', counts);
  // Prefix highlight (shift-right-click) of mysqld.*
  const mysqld = await page.evaluate(() => window.kutrace.rowY('mysqld.1204'));
  await page.keyboard.down('Shift');
  await page.mouse.click(o.x + headerPos.left - 20, o.y + mysqld.yc, { button: 'right' });
  await page.keyboard.up('Shift');
  await settle(page);
  s = await st(page);
  check('15 shift-right-click highlights every mysqld.* row', JSON.stringify(s.rows.filter(r => r.highlighted).map(r => r.label)) === '["mysqld.1204","mysqld.1205","sshd.1562"]', s.rows.filter(r => r.highlighted).map(r => r.label));

  // Red dot: reset, previous view in the back arrow.
  await page.mouse.click(o.x + headerPos.left, o.y + headerPos.bottom);
  await settle(page);
  s = await st(page);
  check('58 red dot resets: CPU only, no highlights', s.visibleRows.length === 4 && !s.rows.some(r => r.highlighted), s.visibleRows);
  check('58 red dot puts the previous view into ⇐', s.views[0].set, s.views);

  // Searches (full view).
  sum = await search(page, 'write');
  check('38 search write -> Matches: 3, 60.000us [10.0us..30.0us]', sum === 'Matches: 3, 60.000us [10.0us..30.0us]', sum);
  s = await st(page);
  check('38 one annotation per match', s.annotations.length === 3 && s.annotations[0].startsWith('write(3)'), s.annotations);
  await page.screenshot({ path: path.join(shots, 'small_search_write.png') });
  sum = await search(page, 'write\\(1');
  check('42 regex on name(arg): write\\(1 -> 2 matches in Annot: style', sum.startsWith('Matches: 2,'), sum);
  sum = await search(page, 'enoent');
  check('42 a letters-only pattern still matches an errno return (openat(65436)=enoent)', sum.startsWith('Matches: 1,'), sum);
  sum = await search(page, 'read|^openat');
  check('42 alternatives of names: read|^openat -> 2 matches', sum.startsWith('Matches: 2,'), sum);
  sum = await search(page, 'idle');
  check('39 hyphen rule: idle -> Matches: 0, 0', sum === 'Matches: 0, 0', sum);
  sum = await search(page, '-idle');
  check('39 hyphen rule: -idle -> 7 matches', sum.startsWith('Matches: 7,'), sum);
  await page.click('#b_not'); await settle(page);
  s = await st(page);
  check('40 [!] inverts: -idle -> every other visible span', s.summary.startsWith('Matches: ') && s.last.count > 15, s.summary);
  sum = await search(page, 'zzzz');
  const all = (await st(page)).last.count;
  check('40 [!] zzzz matches every visible span', all > s.last.count, [all, s.last.count]);
  await page.click('#b_not');
  await page.click('#units'); // µsec -> nsec
  await page.fill('#smax', '10');
  sum = await search(page, '');
  s = await st(page);
  check('41 units nsec, max 10, empty text -> the 4 point events', s.search.units === 0 && sum.startsWith('Matches: 4,'), [s.search, sum]);
  await page.fill('#smax', ''); await page.click('#units'); await page.click('#units');
  check('41 units cycle back to µsec', (await st(page)).search.units === 1);
  sum = await search(page, '(');
  s = await st(page);
  check('43 invalid regex: no exception, a visible bad-regex cue', errors.length === 0 && /bad regex/.test(s.searchError) &&
    await page.evaluate(() => document.getElementById('search').classList.contains('bad')), [errors, s.searchError]);

  // Time search, @@.
  await search(page, '50.005+');
  s = await st(page);
  check('45 time search 50.005+ -> 4.1 ms window at 50.00295', near(s.t0, 50.00295, 1e-9) && near(s.t1 - s.t0, 0.0041, 1e-9), [s.t0, s.t1]);
  check('45 axis in msec, base 14:01:50', s.baseText === '2021-10-28 14:01:50' && s.axisTitle === 'Time (msec)', s.baseText);
  await search(page, '50.0048');
  s = await st(page);
  check('45 time search 50.0048 -> 1.025 ms', near(s.t1 - s.t0, 0.001025, 1e-9), s.t1 - s.t0);
  const before = [s.t0, s.t1];
  await search(page, '50');
  s = await st(page);
  check('46 "50" is a name search, window unchanged', s.t0 === before[0] && s.t1 === before[1]);
  await page.evaluate(() => window.kutrace.setWindow(50.0795, 50.1365));
  await search(page, '@@');
  s = await st(page);
  const at1 = [s.t0, s.t1, s.search.text];
  await search(page, '@@');
  s = await st(page);
  check('47 @@ writes a time string and goes there', /^\d+\.\d+[+-]*$/.test(at1[2]), at1);
  check('47 @@ repeated is stable', near(s.t0, at1[0], 1e-12) && near(s.t1, at1[1], 1e-12) && s.search.text === at1[2], [at1, s.t0, s.t1, s.search.text]);
  check('74 no page errors from programmatic zoom', errors.length === 0, errors);

  // Recent list.
  await search(page, ''); await page.fill('#search', 'read'); await page.press('#search', 'Enter');
  await page.fill('#search', 'sel'); await page.press('#search', 'Enter');
  await page.fill('#search', ''); await page.type('#search', 'e');
  const rec = await page.evaluate(() => [...document.querySelectorAll('#recent div')].map(d => d.textContent));
  check('48 recent list shows sel, read', JSON.stringify(rec.slice(0, 2)) === '["sel","read"]', rec);
  await page.fill('#search', ''); await search(page, '');

  // Wheel zoom and drag pan.
  await page.click('#b_user'); await page.click('#b_user');
  await page.evaluate(() => window.kutrace.setWindow(50.0, 50.01));
  s = await st(page);
  const w0 = s.t1 - s.t0;
  const L = await page.evaluate(() => window.kutrace.layout());
  await page.mouse.move(o.x + (L.left + L.right) / 2, o.y + (L.top + L.bottom) / 2);
  await page.mouse.wheel(0, -1000);
  await page.waitForTimeout(100); await settle(page);
  s = await st(page);
  check('49 wheel -1000 zooms to 1/4 of the width', near((s.t1 - s.t0) / w0, 0.25, 0.01), (s.t1 - s.t0) / w0);
  check('4 header status gone after zoom', !s.status.includes('6.6.0-kutrace'), s.status);
  const spp = (s.t1 - s.t0) / (L.right - L.left); const t0a = s.t0;
  await page.mouse.move(o.x + 700, o.y + 300); await page.mouse.down(); await page.mouse.move(o.x + 800, o.y + 300, { steps: 4 }); await page.mouse.move(o.x + 900, o.y + 300, { steps: 4 }); await page.mouse.up();
  await settle(page);
  s = await st(page);
  check('50 drag 200 px pans by 200 px of time', near(t0a - s.t0, 200 * spp, spp * 1.5), [t0a - s.t0, 200 * spp]);
  // Y zoom over the labels.
  const tr0 = s.yk;
  await page.mouse.move(o.x + L.left - 40, o.y + 300); await page.mouse.wheel(0, -500); await page.waitForTimeout(100);
  s = await st(page);
  check('51 wheel over the labels zooms rows', near(s.yk / tr0, 2, 0.01), s.yk);
  await page.mouse.click(o.x + L.left, o.y + L.bottom); // reset

  // Wakeup arc at a narrow window, hidden by the Arc button.
  await page.evaluate(() => window.kutrace.setWindow(50.0007, 50.0011)); await settle(page);
  const arcPix = await countColor(page, [0x00, 0x80, 0xFF]);
  await page.screenshot({ path: path.join(shots, 'small_wakeup_arc.png') });
  await page.click('#b_arc'); await page.click('#b_arc'); await settle(page); // 2 -> 1 -> 0
  const arcOff = await countColor(page, [0x00, 0x80, 0xFF]);
  check('25 wakeup arc drawn (blue) when zoomed in; gone with Arc off', arcPix > 20 && arcOff === 0, [arcPix, arcOff]);
  await page.click('#b_arc');

  // Marks: red boxes on CPU 0 near 50.001.
  await page.evaluate(() => window.kutrace.setWindow(50.0008, 50.0017)); await settle(page);
  const plot = { x: L.left + 10, y: L.top, w: L.right - L.left - 20, h: L.bottom - L.top - 12 };
  const red = await countColor(page, [0xFF, 0, 0], plot);
  for (let i = 0; i < 3; i++) await page.click('#b_mark');
  await settle(page);
  const red1 = await countColor(page, [0xFF, 0, 0], plot);
  await page.click('#b_mark');
  check('27 mark_a red boxes shown; hidden at Mark value 0', red > 50 && red1 === 0, [red, red1]);
  await page.screenshot({ path: path.join(shots, 'small_marks.png') });

  // Kernel glyph colours for write on CPU 0 (syscall: grey edge, light-green band).
  await page.evaluate(() => window.kutrace.setWindow(50.00140, 50.00150)); await settle(page);
  const cpu0 = await page.evaluate(() => window.kutrace.rowY('0'));
  const band = { x: L.left + 10, y: cpu0.yc - cpu0.E / 2, w: L.right - L.left - 20, h: cpu0.E };
  const edge = await countColor(page, [0x80, 0x80, 0x80], band), green = await countColor(page, [0xE0, 0xFF, 0xE0], band);
  check('17 syscall glyph: grey edge and light-green band', edge > 100 && green > 100, [edge, green]);
  await page.screenshot({ path: path.join(shots, 'small_write_zoomed.png') });

  // Shift-click annotate (release shift first: kept), then shift-drag measure.
  await page.evaluate(() => window.kutrace.setWindow(50.0, 50.01)); await settle(page);
  await search(page, '');
  const xw = await page.evaluate(() => window.kutrace.xOf(50.0015));
  await page.keyboard.down('Shift'); await page.mouse.move(o.x + xw, o.y + cpu0.yc); await page.mouse.down(); await page.keyboard.up('Shift'); await page.mouse.up();
  await settle(page);
  s = await st(page);
  check('52 shift-click-unshift keeps a long annotation', s.annotations.length === 1 && / s |ms |us /.test(s.annotations[0]) && s.annotations[0].includes(';'), s.annotations);
  await page.keyboard.down('Shift'); await page.mouse.move(o.x + xw, o.y + cpu0.yc); await page.mouse.down(); await page.mouse.up(); await page.keyboard.up('Shift');
  await settle(page);
  s = await st(page);
  check('52 shift-click-unclick clears the annotations', s.annotations.length === 0, s.annotations);
  const xa = await page.evaluate(() => window.kutrace.xOf(50.0005)), xb = await page.evaluate(() => window.kutrace.xOf(50.0070));
  await page.keyboard.down('Shift'); await page.mouse.move(o.x + xa, o.y + cpu0.yc); await page.mouse.down();
  await page.mouse.move(o.x + (xa + xb) / 2, o.y + cpu0.yc, { steps: 3 }); await page.mouse.move(o.x + xb, o.y + cpu0.yc, { steps: 3 });
  await page.keyboard.up('Shift'); await page.mouse.up();
  await settle(page);
  s = await st(page);
  // starts: idlelp at 50.00000 ... covering 50.0005 on CPU 0 is -idlelp- (50.0000); at 50.0070 sshd.1562 (50.006)
  check('54 shift-drag measures the time between the two starts (6.0000ms)', s.measure === '6.0000ms', [s.measure, s.annotations]);
  await page.screenshot({ path: path.join(shots, 'small_measure.png') });

  // Hover readout.
  await page.mouse.click(o.x + L.left, o.y + L.bottom);
  await page.mouse.move(o.x + xw + 40, o.y + cpu0.yc + 3); await page.mouse.move(o.x + xw, o.y + cpu0.yc); await page.waitForTimeout(150); await settle(page);
  s = await st(page);
  check('56 hover shows the long text of the span under the pointer', s.hover.includes('bash+hello_world_tra.8292') || s.hover.includes('write'), s.hover);

  // Save / restore / back.
  await page.evaluate(() => window.kutrace.setWindow(50.001, 50.002));
  await page.keyboard.down('Shift'); await page.click('#view1'); await page.keyboard.up('Shift');
  await page.evaluate(() => window.kutrace.setWindow(50.005, 50.009));
  await page.click('#view1'); await settle(page);
  s = await st(page);
  check('59 shift-click ① saves, click ① restores view A', near(s.t0, 50.001, 1e-12) && near(s.t1, 50.002, 1e-12) && s.views[1].set, [s.t0, s.t1]);
  await page.click('#view0'); await settle(page);
  s = await st(page);
  check('59 ⇐ goes back to view B', near(s.t0, 50.005, 1e-12) && near(s.t1, 50.009, 1e-12), [s.t0, s.t1]);
  await page.click('#viewadd'); await settle(page);
  s = await st(page);
  check('61 ⊕ adds a named view', dialogs.length === 1 && s.views.some(v => v.label === 'myview' && v.set), s.views);
  const exp = await page.evaluate(() => window.kutrace.exportText());
  let expOK = false; try { const j = JSON.parse('{"events":[' + exp.slice(0)); expOK = Array.isArray(j.savedview) && Array.isArray(j.extra) && j.savedview.some(v => v[0] === 'myview'); } catch (e) { expOK = String(e); }
  check('63 export text parses as the tail of the JSON with extra and savedview', expOK === true, expOK);

  // localStorage keyed by randomid: reload, ⇐ set but not applied.
  await page.evaluate(() => window.kutrace.setWindow(50.003, 50.004));
  await page.reload(); await page.waitForFunction(() => window.kutraceReady);
  s = await st(page);
  const key = await page.evaluate(() => Object.keys(localStorage));
  check('62 view stored under the randomid key', key.includes('kutrace:941008671'), key);
  check('62 after reload ⇐ is set but the view is the full range', s.views[0].set && near(s.t0, 50.0, 1e-12) && near(s.t1, 50.01, 1e-12), [s.views[0], s.t0, s.t1]);
  await page.click('#view0'); await settle(page);
  s = await st(page);
  check('62 clicking ⇐ applies the stored view', near(s.t0, 50.003, 1e-12) && near(s.t1, 50.004, 1e-12), [s.t0, s.t1]);

  // Legend: landscape -> portrait -> off, the view kept.
  await page.click('#legendbtn'); await settle(page);
  const sl = await st(page);
  await page.screenshot({ path: path.join(shots, 'legend_landscape.png') });
  await page.click('#legendbtn'); await settle(page);
  const sp = await st(page);
  await page.screenshot({ path: path.join(shots, 'legend_portrait.png') });
  await page.click('#legendbtn'); await settle(page);
  const s2 = await st(page);
  check('65 legend cycles landscape 900x600 -> portrait 650x900 -> off', sl.legend === 1 && sl.canvas.w === 900 && sl.canvas.h === 600 &&
    sp.legend === 2 && sp.canvas.w === 650 && sp.canvas.h === 900 && s2.legend === 0 && s2.canvas.w === 1584, [sl.legend, sl.canvas, sp.legend, sp.canvas, s2.legend, s2.canvas]);
  check('65 legend lists the glyph kinds (31 entries, waits by letter, the legacy and hack-mode overlays too)', sl.legendItems.length === 31 && sl.legendItems.includes('wait for cpu (c: -.-.)') &&
    LEGACY_LEGEND.every(l => sl.legendItems.includes(l)) && JSON.stringify(sl.legendItems) === JSON.stringify(sp.legendItems), sl.legendItems);
  SMALL_LEGEND = sl.legendItems;
  const bottom = Math.max(...sp.legendGeom.map(g => g.y + g.E / 2));
  check('65 portrait legend: every entry on the 650x900 page (lowest glyph bottom ' + Math.round(bottom) + ' px)', bottom <= 900 - 8, sp.legendGeom.slice(-2));
  check('65 after the legend the time window is unchanged', near(s2.t0, 50.003, 1e-12) && near(s2.t1, 50.004, 1e-12), [s2.t0, s2.t1]);

  // Buttons: IPC legend and CB.
  await page.click('#b_ipc'); await settle(page);
  s = await st(page);
  check('32 IPC button turns on (value 3)', s.buttons.ipc === 3, s.buttons);
  await page.click('#b_cb'); await settle(page);
  await page.screenshot({ path: path.join(shots, 'small_ipc_cb.png') });
  check('34 CB turns the red dot cyan', await countColor(page, [0x80, 0xFF, 0xFF], { x: L.left - 6, y: L.bottom - 6, w: 12, h: 12 }) > 10);

  // User / All.
  await page.mouse.click(o.x + L.left, o.y + L.bottom); await settle(page);
  await page.click('#b_user'); await settle(page);
  s = await st(page);
  check('36 User labels the first user span of each thread', s.annotations.length >= 4 && s.annotations.includes('sshd.1562') && s.annotations.includes('bash+he~2'), s.annotations);
  await page.click('#b_all'); await settle(page);
  s = await st(page);
  check('37 All labels many spans, never idle', s.annotations.length > 8 && !s.annotations.some(a => a.startsWith('-idle')), s.annotations.length);
  await page.mouse.move(o.x + 700, o.y + 300); await page.mouse.wheel(0, 200); await page.waitForTimeout(100);
  s = await st(page);
  check('37 All goes off after zoom, one kept annotation at most', s.buttons.all === 0 && s.annotations.length <= 1, s.annotations);

  // Window resize keeps the time window.
  await page.evaluate(() => window.kutrace.setWindow(50.002, 50.004));
  await page.setViewportSize({ width: 1200, height: 800 }); await page.waitForTimeout(200); await settle(page);
  s = await st(page);
  check('70 window resize keeps t0/t1', near(s.t0, 50.002, 1e-12) && near(s.t1, 50.004, 1e-12), [s.t0, s.t1]);
  await page.setViewportSize({ width: 1600, height: 1000 });
  check('74 no page errors in the whole session', errors.length === 0, errors);
}

async function testUnsafe(ctx) {
  const { page, errors } = await open(ctx, path.join(dir, 'unsafe.html'));
  const dialogs = []; page.on('dialog', d => { dialogs.push(d.message()); d.dismiss(); });
  await page.evaluate(() => window.kutrace.toggleGroup('PID'));
  const s = await st(page);
  const want = ["it's.101", 'back\\slash.102', '</script><script>alert(1)</script>.103', 'naïve-日本語-😀.104', 'ctl\u0001\ttab.105'];
  check('2 names with quote, backslash, </script>, non-ASCII shown exactly', JSON.stringify(s.rows.filter(r => r.group === 'PID').map(r => r.label)) === JSON.stringify(want), s.rows.map(r => r.label));
  check('2 title with quotes and </script> shown exactly', s.title === 'quote \' and " backslash \\ </script><!-- é', s.title);
  check('2 no script injected, no errors', dialogs.length === 0 && errors.length === 0, [dialogs, errors]);
  const sum = await search(page, 'wr"ite');
  check('2 search finds wr"ite', sum.startsWith('Matches: 1,'), sum);
  const sum2 = await search(page, 'back\\\\slash');
  check('2 search finds back\\slash on both rows', sum2.startsWith('Matches: 2,'), sum2);
  await page.screenshot({ path: path.join(shots, 'unsafe_names.png') });
}

// Secondary controls (docs/spec/VIEWER.md 4.6 and section 6 rows 63-68) and the ipc= search.
async function testMenu(ctx) {
  const { page, errors } = await open(ctx, path.join(dir, 'small.html'));
  const dialogs = []; let answer = 'look here';
  page.on('dialog', d => { dialogs.push(d.message()); if (d.type() === 'prompt') d.accept(answer); else d.accept(); });
  const o = await canvasOrigin(page);
  let L = await page.evaluate(() => window.kutrace.layout());
  // Shift-click on the red dot shows the menu (once, not twice as in the original).
  await page.keyboard.down('Shift'); await page.mouse.click(o.x + L.left, o.y + L.bottom); await page.keyboard.up('Shift'); await settle(page);
  let s = await st(page);
  check('64 shift-click on the red dot shows the secondary controls', s.menu && await page.isVisible('#menu2') && s.spans === 38 && near(s.t0, 50.0, 1e-12), [s.menu]);
  check('64 x/y readouts: x: 50.000000+10000, y: 0+110', JSON.stringify(s.readout) === '["x: 50.000000+10000","y: 0+110"]', s.readout);
  // Aspect 4:3: height a multiple of 100 px, width 4/3 of it; the view is kept.
  await page.evaluate(() => window.kutrace.setWindow(50.001, 50.003));
  await page.fill('#m_aspect', '4:3'); await page.press('#m_aspect', 'Enter'); await settle(page);
  s = await st(page);
  check('64 Aspect 4:3 -> canvas h multiple of 100, w = 4/3 h, window kept', s.canvas.h % 100 === 0 && s.canvas.h >= 700 && s.canvas.w === Math.round(s.canvas.h * 4 / 3) &&
    near(s.t0, 50.001, 1e-12) && near(s.t1, 50.003, 1e-12), [s.canvas, s.t0, s.t1]);
  await page.screenshot({ path: path.join(shots, 'menu_aspect43.png') });
  await page.fill('#m_aspect', '43'); await page.press('#m_aspect', 'Enter'); await settle(page);
  check('64 a malformed aspect is refused', (await st(page)).cfg.aspect === '4:3' && await page.inputValue('#m_aspect') === '4:3');
  await page.fill('#m_aspect', '0:0'); await page.press('#m_aspect', 'Enter'); await settle(page);
  s = await st(page);
  check('64 Aspect 0:0 fills the window again', s.canvas.w === 1584, s.canvas);
  // Ychars and Ypx set the label column width (Ychars x 0.6 x Ypx) and fonts; <= 4 ignored.
  await page.fill('#m_ychars', '30'); await page.press('#m_ychars', 'Enter'); await settle(page);
  L = await page.evaluate(() => window.kutrace.layout());
  check('64 Ychars 30 -> label column 324 px', L.left === 324, L.left);
  await page.fill('#m_ypx', '12'); await page.press('#m_ypx', 'Enter'); await settle(page);
  L = await page.evaluate(() => window.kutrace.layout());
  check('64 Ypx 12 -> label column 216 px, title band 30 px', L.left === 216 && L.top === 30, [L.left, L.top]);
  await page.fill('#m_ypx', '3'); await page.press('#m_ypx', 'Enter'); await settle(page);
  check('64 Ypx 3 is ignored', (await st(page)).cfg.ypx === 12 && await page.inputValue('#m_ypx') === '12');
  await page.fill('#m_ychars', '18'); await page.press('#m_ychars', 'Enter'); await page.fill('#m_ypx', '18'); await page.press('#m_ypx', 'Enter'); await settle(page);
  // txt / spn: the row splits spn:txt; txt 0 -> spans fill the row.
  let g = await page.evaluate(() => window.kutrace.rowY('0'));
  check('64 default txt 3 spn 3: event band is half the row', near(g.E, g.h / 2, 0.01), g);
  await page.fill('#m_txt', '0'); await page.press('#m_txt', 'Enter'); await settle(page);
  g = await page.evaluate(() => window.kutrace.rowY('0'));
  check('64 txt 0: spans fill the row', near(g.E, g.h, 0.01), g);
  await page.fill('#m_txt', '1'); await page.fill('#m_spn', '5'); await page.press('#m_spn', 'Enter'); await settle(page);
  g = await page.evaluate(() => window.kutrace.rowY('0'));
  check('64 txt 1 spn 5: event band 5/6 of the row', near(g.E, g.h * 5 / 6, 0.01), g);
  await page.fill('#m_txt', '3'); await page.fill('#m_spn', '3'); await page.press('#m_spn', 'Enter'); await settle(page);

  // Fade: spans grey, overlays (the mark) keep their colour.
  await page.evaluate(() => window.kutrace.setWindow(50.0008, 50.0017)); await settle(page);
  L = await page.evaluate(() => window.kutrace.layout());
  const plot = { x: L.left + 10, y: L.top, w: L.right - L.left - 20, h: L.bottom - L.top - 12 };
  const cpu0 = await page.evaluate(() => window.kutrace.rowY('0'));
  const band0 = { x: L.left + 10, y: cpu0.yc - cpu0.E / 2, w: L.right - L.left - 20, h: cpu0.E };
  const user0 = await countColor(page, [0xE8, 0xE8, 0xE8], band0), red0 = await countColor(page, [0xFF, 0, 0], plot);
  await page.click('#m_fade'); await settle(page);
  const user1 = await countColor(page, [0xE8, 0xE8, 0xE8], band0), red1 = await countColor(page, [0xFF, 0, 0], plot);
  check('66 Fade: spans turn #E8E8E8, mark_a stays red', (await st(page)).fade && user1 > user0 + 2000 && red0 > 50 && Math.abs(red1 - red0) < red0 * 0.1, [user0, user1, red0, red1]);
  await page.screenshot({ path: path.join(shots, 'menu_fade.png') });
  await page.click('#m_fade'); await settle(page);

  // Callout: prompt, bubble at the kept annotation, drag the bubble, export.
  const xw = await page.evaluate(() => window.kutrace.xOf(50.00143));
  await page.keyboard.down('Shift'); await page.mouse.move(o.x + xw + 2, o.y + cpu0.yc); await page.mouse.down(); await page.keyboard.up('Shift'); await page.mouse.up(); await settle(page);
  await page.click('#m_callout'); await settle(page);
  s = await st(page);
  check('67 🗨 prompts and adds a callout at the kept annotation (write at 50.00143, CPU 0)', dialogs.includes('New callout name:') && s.callouts.length === 1 &&
    s.callouts[0][9] === 'look here' && near(s.callouts[0][0], 50.00143, 1e-9) && s.callouts[0][2] === 0 && s.callouts[0][6] === 10 && s.callouts[0][7] === -0.4, s.callouts);
  const bubble = await countColor(page, [0, 0, 0xAA], plot);
  await page.screenshot({ path: path.join(shots, 'menu_callout.png') });
  const bx = xw + 10 + 20, by = cpu0.yc - cpu0.E / 2 - 0.4 * cpu0.h;
  await page.mouse.move(o.x + bx, o.y + by); await page.mouse.down(); await page.mouse.move(o.x + bx + 60, o.y + by + cpu0.h * 0.2, { steps: 4 }); await page.mouse.up(); await settle(page);
  s = await st(page);
  check('67 the bubble text is drawn (#0000AA) and dragging moves it (+60 px, +0.2 row)', bubble > 30 && s.callouts[0][6] === 70 && near(s.callouts[0][7], -0.2, 1e-9) && near(s.t0, 50.0008, 1e-12), [bubble, s.callouts[0], s.t0]);
  // Drag the spike's tip onto the mysqld.1205 span on CPU 3 (starts 50.00112, page_fault).
  const cpu3 = await page.evaluate(() => window.kutrace.rowY('3')); const x3 = await page.evaluate(() => window.kutrace.xOf(50.0013));
  await page.mouse.move(o.x + xw, o.y + cpu0.yc - cpu0.E / 2); await page.mouse.down(); await page.mouse.move(o.x + x3, o.y + cpu3.yc, { steps: 4 }); await page.mouse.up(); await settle(page);
  s = await st(page);
  check('67 dragging the spike snaps it to the start of the span under the mouse', near(s.callouts[0][0], 50.00112, 1e-9) && s.callouts[0][2] === 3, s.callouts[0]);
  await page.keyboard.down('Shift'); await page.click('#view2'); await page.keyboard.up('Shift');
  await page.click('#m_export'); await page.waitForTimeout(200);
  s = await st(page);
  let ex = null; try { ex = JSON.parse('{"events":[' + s.lastExport); } catch (e) { ex = String(e); }
  check('63 Export: alert with the counts, text = the JSON tail with the callout and views', dialogs.some(m => /Copied 1 callouts, [1-5] views to clipboard/.test(m)) &&
    ex && ex.extra && ex.extra.length === 1 && ex.extra[0][9] === 'look here' && ex.extra[0][5] === -4 && ex.savedview.length === 5 && ex.savedview[2][1] && near(ex.savedview[2][1].xleft_ts, 50.0008, 1e-12), [dialogs, s.lastExport.slice(0, 200)]);

  // Relative time: a click on the base time.
  await page.mouse.click(o.x + 40, o.y + L.bottom + L.top / 2 + 14); await settle(page);
  s = await st(page);
  check('68 base-time click toggles relative mode', s.baseText === '2021-10-28 relative', s.baseText);
  await page.mouse.click(o.x + 40, o.y + L.bottom + L.top / 2 + 14); await settle(page);
  check('68 clicking again turns it off', (await st(page)).baseText.startsWith('2021-10-28 14:01:50'));

  // Shift-click on the base time clears localStorage.
  await page.evaluate(() => localStorage.setItem('kutrace:probe', '1'));
  await page.keyboard.down('Shift'); await page.mouse.click(o.x + 40, o.y + L.bottom + L.top / 2 + 14); await page.keyboard.up('Shift'); await settle(page);
  s = await st(page);
  check('68 shift-click on the base time clears localStorage (and says so)', await page.evaluate(() => localStorage.length) === 0 && s.status.includes('localStorage cleared') && !s.baseText.includes('relative'), [s.status, s.baseText]);
  // ipc= search (IPC trace, flags 0x80): ' ipc=<v>' of spans with IPC > 0 and longer than 10 ns.
  await page.mouse.click(o.x + L.left, o.y + L.bottom); await settle(page);
  let sum = await search(page, 'ipc=1\\.');
  check('ipc=1\\. matches the 5 spans with IPC 1.0..1.75 (read 1.0, mysqld.1204 1.25 x2, bash 1.5 x2)', sum === 'Matches: 5, 2.5200ms [20.0us..2.0000ms]' || sum.startsWith('Matches: 5,'), sum);
  sum = await search(page, 'ipc=2\\.0');
  check('ipc=2\\.0 matches mysqld.1205 only', sum === 'Matches: 1, 1.0000ms [1.0ms..1.0ms]' || sum.startsWith('Matches: 1,'), sum);
  sum = await search(page, 'ipc=0$');
  check('ipc=0$ matches nothing (only spans with IPC > 0 take part)', sum === 'Matches: 0, 0', sum);
  await search(page, '');
  const xr = await page.evaluate(() => window.kutrace.xOf(50.00011));
  const cpu3b = await page.evaluate(() => window.kutrace.rowY('3'));
  await page.evaluate(() => window.kutrace.setWindow(50.00005, 50.00015)); await settle(page);
  const xr2 = await page.evaluate(() => window.kutrace.xOf(50.00011)); void xr;
  await page.keyboard.down('Shift'); await page.mouse.move(o.x + xr2, o.y + cpu3b.yc); await page.mouse.down(); await page.keyboard.up('Shift'); await page.mouse.up(); await settle(page);
  s = await st(page);
  check('long text shows the IPC value: read(5)=100; 20.0us ipc=1.0', s.annotations.length === 1 && / read\(5\)=100; 20\.0us ipc=1\.0$/.test(s.annotations[0]), s.annotations);
  check('menu: no page errors', errors.length === 0, errors);
}

// IPC+LLC ("Both"), RPC messages, locks, queues: tests/data/viewer/misc.json.
async function testMisc(ctx) {
  const { page, errors } = await open(ctx, path.join(dir, 'misc.html'));
  let s = await st(page);
  check('flags 160: the IPC button reads Both', s.ipcButton === 'Both', s.ipcButton);
  check('RPC row from the request events; PID rows for 501, 502', JSON.stringify(s.rows.map(r => r.label)) === '["0","1","2","server.501","client.502","getuser.7"]', s.rows.map(r => r.label));
  // RPC messages at the top: rx 22.0001 +12 us (dark red), tx 22.00045 +30 us (dark cyan).
  await page.evaluate(() => window.kutrace.setWindow(22.00005, 22.00055)); await settle(page);
  s = await st(page);
  const L = await page.evaluate(() => window.kutrace.layout());
  const strip = { x: L.left, y: L.top + 15, w: L.right - L.left, h: 16 };
  const rx = await countColor(page, [0x80, 0, 0], strip), tx = await countColor(page, [0, 0x80, 0x80], strip);
  check('3.6.7 two RPC messages drawn, rx dark red and tx dark cyan, at the top', s.perf.msgs === 2 && rx > 20 && tx > 60, [s.perf.msgs, rx, tx]);
  await page.click('#b_ipc'); await settle(page);
  s = await st(page);
  check('Both: legend split IPC (1.0-ish 4 levels) and Miss (4 levels)', JSON.stringify(s.ipcLegend) === '["IPC","1/8","5/8","1.25","2.5","Miss","0u","20u","150u","660u"]', s.ipcLegend);
  check('Both: triangles (IPC + LLC) on the 4 wide non-idle spans with data', s.perf.tri === 10, s.perf.tri);
  const orange = await countColor(page, [0xFF, 0xC0, 0x80]);
  check('LLC triangles are orange', orange > 20, orange);
  await page.evaluate(() => window.kutrace.toggleGroup('PID')); await settle(page);
  s = await st(page);
  check('Lock is available; lock lines drawn above the PID rows', s.buttons.lock === 2 && await page.evaluate(() => !document.getElementById('b_lock').classList.contains('na')));
  await page.screenshot({ path: path.join(shots, 'misc_rpc_llc.png') });
  await page.evaluate(() => window.kutrace.setWindow(22.0, 22.001));
  const sum = await search(page, 'llc=3');
  check('ipc= style search on llc=3 matches write and client.502 (miss bucket 3)', sum.startsWith('Matches: 2,'), sum);
  check('misc: no page errors', errors.length === 0, errors);
}

async function testOrig(ctx) {
  const { page, errors } = await open(ctx, path.join(dir, 'orig.html'));
  let s = await st(page);
  check('orig: page from original-tool JSON opens', s.spans === 12 && errors.length === 0, [s.spans, errors]);
  check('orig: savedview buttons from the JSON (② empty, ① set)', s.views.length === 3 && s.views[1].set && !s.views[2].set, s.views);
  await page.click('#view1'); await settle(page);
  s = await st(page);
  check('60 original-format saved view restores its time window', near(s.t0, 49.4189, 1e-9) && near(s.t1, 49.4191, 1e-9), [s.t0, s.t1]);
  await page.click('#b_samp'); await page.evaluate(() => window.kutrace.setWindow(49.421, 49.428)); await settle(page);
  await page.screenshot({ path: path.join(shots, 'orig_samples.png') });
  check('orig: no errors', errors.length === 0, errors);
}

// The KTV3 columns are differences from predictions (lib/page/pageenc.c, struct
// pred); the viewer must undo them exactly, also where they fail.
async function testPred(ctx) {
  const { page, errors } = await open(ctx, path.join(dir, 'pred.html'));
  const rows = JSON.parse(fs.readFileSync(path.join(dir, 'pred_edge.json'), 'utf8')).events.filter(r => !(r[0] >= 999));
  const want = rows.map((r, i) => [r, i]).sort((a, b) => a[0][0] - b[0][0] || a[1] - b[1]).map(x => x[0]); // the viewer sorts by start
  const got = await page.evaluate(n => { const o = []; for (let i = 0; i < n; i++) o.push(window.kutrace.spanAt(i)); return o; }, want.length);
  const bad = [];
  want.forEach((r, i) => {
    const g = got[i];
    const same = g && Math.abs(g.ts - r[0]) < 1e-9 && Math.abs(g.dur - r[1]) < 1e-12 && g.cpu === r[2] && g.pid === r[3] && g.rpc === r[4] &&
      g.ev === r[5] && g.arg === r[6] && g.ret === r[7] && g.ipc === r[8] && g.name === r[9];
    if (!same) bad.push([i, r, g]);
  });
  const s = await st(page);
  check('KTV3 decoding: all ' + want.length + ' rows of pred_edge.json come back exactly (CPU -1/70000, events -20/0x50000, pid 0/-1/70000/2^31-1, times going back)',
    s.spans === want.length && bad.length === 0 && errors.length === 0, [s.spans, bad.slice(0, 3), errors]);
}

// Legacy and hack overlays (docs/spec/VIEWER.md 1.4, 3.6.15): tests/browser/legacy.json
// has a bracket (-1) on CPU 1 over 20.003+2ms "look here", an oval (-2) on
// CPU 0 around app.100 (20.002+2ms), dots (-6) on CPU 3 over 20.006+3ms
// and four 1-us local_timer interrupts on CPU 2 at 20.001, .003, .005, .007.
const ORANGE = 'r > 200 && g > 90 && g < 200 && b < 120';
async function testLegacy(ctx) {
  const { page, errors } = await open(ctx, path.join(dir, 'legacy.html'));
  const o = await canvasOrigin(page);
  const L = await page.evaluate(() => window.kutrace.layout());
  const rows = {}; for (const r of ['0', '1', '2', '3']) rows[r] = await page.evaluate(l => window.kutrace.rowY(l), r);
  const band = async (r, ta, tb) => { const xa = await page.evaluate(t => window.kutrace.xOf(t), ta), xb = await page.evaluate(t => window.kutrace.xOf(t), tb);
    const g = rows[r]; return { x: Math.round(xa), y: Math.round(g.yc - g.E / 2), w: Math.round(xb - xa), h: Math.round(g.E) }; };
  // saturated pixels: span colours that are not faded
  const saturated = rect => page.evaluate(rect => { const d = document.getElementById('cv').getContext('2d').getImageData(rect.x, rect.y, rect.w, rect.h).data;
    let n = 0; for (let i = 0; i < d.length; i += 4) if (Math.max(d[i], d[i + 1], d[i + 2]) - Math.min(d[i], d[i + 1], d[i + 2]) > 100) n++; return n; }, rect);
  let s = await st(page);
  check('legacy: the page opens with 17 spans, the bracket and the oval drawn, dots hidden (hack mode off)', s.spans === 17 && JSON.stringify(s.legacy.brackets) === '["look here"]' &&
    s.legacy.ovals === 1 && s.legacy.dots === 0 && !s.hack && errors.length === 0, [s.spans, s.legacy, errors]);
  // Oval: outside it everything is whitened (idle black -> #BFBFBF), inside the user span keeps its colours.
  const left0 = await band('0', 20.0003, 20.0015), in0 = await band('0', 20.0025, 20.0035), out1 = await band('1', 20.0065, 20.009);
  const black = await countColor(page, [0, 0, 0], left0), faded = await countColor(page, [0xBF, 0xBF, 0xBF], left0);
  const inside = await saturated(in0), outside = await saturated(out1);
  check('legacy oval (-2): idle line on CPU 0 outside it faded (' + faded + ' #BFBFBF, ' + black + ' black), app.100 inside in colour (' + inside + ' px), work.200 on CPU 1 outside faded (' + outside + ' px)',
    black === 0 && faded > 50 && inside > 200 && outside === 0, [black, faded, inside, outside]);
  // Bracket: dotted dark lines at both ends of its range on CPU 1.
  const b0 = await band('1', 20.003, 20.003), b1 = await band('1', 20.005, 20.005);
  const dark = async b => countWhere(page, { x: b.x - 3, y: b.y - 4, w: 7, h: b.h + 8 }, 'r < 80 && g < 80 && b < 80');
  const d0 = await dark(b0), d1 = await dark(b1);
  check('legacy bracket (-1): dotted lines at 20.003 and 20.005 on CPU 1 (' + d0 + ', ' + d1 + ' dark px), named "look here"', d0 > 10 && d1 > 10, [d0, d1]);
  await page.screenshot({ path: path.join(shots, 'legacy_overlays.png') });
  // Hack mode (shift-click CB): dots hatch CPU 3 orange; local_timer drawn 5 px wide.
  const dots3 = await band('3', 20.006, 20.009), orange0 = await countWhere(page, dots3, ORANGE);
  await page.keyboard.down('Shift'); await page.click('#b_cb'); await page.keyboard.up('Shift'); await settle(page);
  s = await st(page);
  const orange1 = await countWhere(page, dots3, ORANGE);
  check('hack mode (shift-click CB): on, CB palette unchanged; dots (-6) hatch CPU 3 orange (' + orange0 + ' -> ' + orange1 + ' px)',
    s.hack && s.buttons.cb === 0 && s.legacy.dots === 1 && orange0 === 0 && orange1 > 100 && s.legacy.timers === 4, [s.hack, s.buttons.cb, s.legacy, orange0, orange1]);
  await page.screenshot({ path: path.join(shots, 'legacy_hack.png') });
  // The local_timer interrupts, away from the oval (which whitens the rest): 1 us at 20.005 and 20.007.
  await page.evaluate(() => window.kutrace.setWindow(20.0045, 20.0095)); await settle(page);
  const cpu2 = await band('2', 20.0045, 20.0095);
  const irq1 = await countColor(page, [0xC0, 0xC0, 0xFF], cpu2);
  await page.keyboard.down('Shift'); await page.click('#b_cb'); await page.keyboard.up('Shift'); await settle(page);
  const irq0 = await countColor(page, [0xC0, 0xC0, 0xFF], cpu2);
  s = await st(page);
  check('hack mode: 1-us local_timer interrupts drawn 5 px wide with the irq glyph (its light-blue band, 0.4 E of 5 px each: ' + irq1 + ' px, ' + irq0 + ' px with hack mode off again)',
    irq1 >= 2 * 5 * 0.25 * rows['2'].E && irq0 === 0 && !s.hack && s.legacy.timers === 0, [irq1, irq0, s.legacy]);
  await page.keyboard.down('Shift'); await page.click('#b_cb'); await page.keyboard.up('Shift'); await settle(page);
  // Panned away from the bracket, the oval and the dots: none drawn.
  await page.evaluate(() => window.kutrace.setWindow(20.0, 20.0019)); await settle(page);
  s = await st(page);
  check('legacy: none of them drawn in a window before them (20.000..20.0019); one local_timer', s.legacy.brackets.length === 0 && s.legacy.ovals === 0 && s.legacy.dots === 0 && s.legacy.timers === 1, s.legacy);
  await page.keyboard.down('Shift'); await page.click('#b_cb'); await page.keyboard.up('Shift'); await settle(page);
  await page.evaluate(() => window.kutrace.setWindow(20.0, 20.01)); await settle(page);
  s = await st(page);
  check('hack mode off again: no dots, no wide local_timer', !s.hack && s.legacy.dots === 0 && s.legacy.timers === 0 && s.legacy.ovals === 1, [s.hack, s.legacy]);
  // Highlighting CPU 2 only: the bracket (CPU 1) and the oval (CPU 0) are not drawn.
  await page.evaluate(() => window.kutrace.highlight('2', true));
  s = await st(page);
  check('legacy overlays follow highlighting: CPU 2 highlighted -> no bracket, no oval', s.legacy.brackets.length === 0 && s.legacy.ovals === 0, s.legacy);
  // The legend (landscape): the four legacy entries, drawn with the same glyph code.
  await page.evaluate(() => window.kutrace.highlight('2', false));
  await page.click('#legendbtn'); await settle(page);
  s = await st(page);
  const lg = l => s.legendGeom.find(g => g.label === l);
  const cell = g => ({ x: Math.round(g.x0), y: Math.round(g.y - g.E / 2 - 4), w: Math.round(g.x1 - g.x0), h: Math.round(g.E + 8) });
  const gB = lg(LEGACY_LEGEND[0]), gO = lg(LEGACY_LEGEND[1]), gD = lg(LEGACY_LEGEND[2]), gT = lg(LEGACY_LEGEND[3]);
  const lgOK = gB && gO && gD && gT;
  // bracket: its dark dotted left end above the idle line; oval: grey rim and the faded (light) user colours outside it;
  // dots: orange hatching; local_timer: the irq glyph's light-blue band in 5 px blips on the idle line
  const bDark = lgOK ? await countWhere(page, { x: Math.round(gB.x0 + 18), y: Math.round(gB.y - gB.E / 2 - 2), w: 8, h: Math.round(gB.E / 2 - 1) }, 'r < 80 && g < 80 && b < 80') : 0;
  const oFaded = lgOK ? await countWhere(page, { x: Math.round(gO.x0 + 2), y: Math.round(gO.y - 3), w: 40, h: 6 }, 'b > 200 && r > 150 && r < 235') : 0;
  const oSat = lgOK ? await countWhere(page, { x: Math.round((gO.x0 + gO.x1) / 2 - 6), y: Math.round(gO.y - 3), w: 12, h: 6 }, 'b > 150 && r < 80') : 0;
  const dOr = lgOK ? await countWhere(page, cell(gD), ORANGE) : 0, tIrq = lgOK ? await countColor(page, [0xC0, 0xC0, 0xFF], cell(gT)) : 0;
  check('legend: bracket (' + bDark + ' dark px at its left end), oval (' + oFaded + ' faded px outside, ' + oSat + ' in colour inside), dots (' + dOr + ' orange px), 5 px local_timer (' + tIrq + ' irq px)',
    lgOK && bDark >= 8 && oFaded > 30 && oSat > 10 && dOr > 100 && tIrq >= 10, [lgOK, bDark, oFaded, oSat, dOr, tIrq]);
  check('legend: the same entries as for a trace without legacy overlays (a fixed key)', SMALL_LEGEND && JSON.stringify(s.legendItems) === JSON.stringify(SMALL_LEGEND), [s.legendItems, SMALL_LEGEND]);
  await page.screenshot({ path: path.join(shots, 'legend_legacy.png') });
  await page.click('#legendbtn'); await page.click('#legendbtn'); await settle(page); // portrait, off
  void o; void L;
  check('legacy: no page errors', errors.length === 0, errors);
}

// Drawing order (docs/spec/VIEWER.md 3.5): wakeup arcs are drawn after the spans and
// every on-row overlay.  tests/browser/arcs.json has an arc from CPU 0 at
// 30.002 to CPU 2 at 30.004 across CPU 1, whose row has a frequency band
// (800 MHz, red at 50 %), a PC sample line and a mark_a box under it.  The
// pixels the arc sets (overlays off) that an overlay also covers (arc off)
// must have the arc's colour with both on.
async function testArcOrder(ctx) {
  const { page, errors } = await open(ctx, path.join(dir, 'arcs.html'));
  const r = await page.evaluate(() => {
    const K = window.kutrace, L = K.layout(), d = window.devicePixelRatio || 1, c = document.getElementById('cv').getContext('2d');
    const grab = o => { K.setButtons(o); return new Uint32Array(c.getImageData(Math.round(L.left * d), Math.round(L.top * d), Math.round((L.right - L.left) * d), Math.round((L.bottom - L.top) * d)).data.buffer); };
    const ARC = 0xFFFF8000, OFF = { arc: 0, freq: 0, mark: 0, samp: 0 }; // #0080FF as a little-endian RGBA word
    const Z = grab(OFF), A = grab(Object.assign({}, OFF, { arc: 2 }));
    const arc = []; for (let i = 0; i < Z.length; i++) if (A[i] !== Z[i] && A[i] === ARC) arc.push(i);
    const out = { arc: arc.length };
    for (const [nm, o] of [['freq', { freq: 2 }], ['mark', { mark: 3 }], ['samp', { samp: 2 }], ['all', { freq: 2, mark: 3, samp: 2 }]]) {
      const B = grab(Object.assign({}, OFF, o)), C = grab(Object.assign({}, OFF, o, { arc: 2 }));
      const both = arc.filter(i => B[i] !== Z[i]); out[nm] = [both.length, both.filter(i => C[i] === ARC).length];
    }
    K.setButtons({ arc: 2, freq: 2, mark: 3, samp: 2 });
    out.arcs = window.kutraceState().perf.arcs;
    return out;
  });
  check('3.5 the wakeup arc is drawn over the overlays it crosses: of its pixels under the frequency band ' + r.freq[1] + '/' + r.freq[0] + ', the mark box ' + r.mark[1] + '/' + r.mark[0] +
    ', the PC sample ' + r.samp[1] + '/' + r.samp[0] + ', all on ' + r.all[1] + '/' + r.all[0] + ' keep the arc colour',
    r.arcs === 1 && r.arc > 100 && r.freq[0] >= 50 && r.mark[0] >= 3 && r.samp[0] >= 1 && r.all[0] >= r.freq[0] &&
    r.freq[1] === r.freq[0] && r.mark[1] === r.mark[0] && r.samp[1] === r.samp[0] && r.all[1] === r.all[0], r);
  await page.screenshot({ path: path.join(shots, 'arcs_over_overlays.png') });
  check('arcs: no page errors', errors.length === 0, errors);
}

// A CPU's lost interval (-lost- row, docs/spec/FORMATS.md 10.4): the
// row's band hatched grey (#C8C8C8 with #707070 lines) with "lost" in
// black where it fits, never idle's thin line nor blank.  tests/browser/
// lost.json: CPU 0 lost 40.002..40.007 between two spans of busy.500;
// CPU 1 idle all along; CPU 2 lost 10 ns at 40.0099 over a running span
// (at least 2 px, whatever the zoom).
async function testLost(ctx) {
  const { page, errors } = await open(ctx, path.join(dir, 'lost.html'));
  const g = await page.evaluate(() => { const K = window.kutrace;
    return { c0: K.rowY('0'), c1: K.rowY('1'), c2: K.rowY('2'), a: K.xOf(40.0025), b: K.xOf(40.0065), l: K.xOf(40.0099) }; });
  const band = (r, a, b) => ({ x: a, y: r.yc - r.E / 2 + 1, w: b - a, h: r.E - 2 }); // canvas CSS pixels
  // neutral greys: the band (200) and its hatch lines (112, smoothed towards 200)
  const neutral = 'Math.abs(r - g) < 8 && Math.abs(g - b) < 8 && r > 90 && r < 215';
  const grey = neutral + ' && r >= 190', hatch = neutral + ' && r < 185';
  const lost0 = band(g.c0, g.a, g.b), area = lost0.w * lost0.h;
  const n = { grey: await countWhere(page, lost0, grey), hatch: await countWhere(page, lost0, hatch),
    black: await countWhere(page, band(g.c0, (g.a + g.b) / 2 - 12, (g.a + g.b) / 2 + 12), 'r + g + b < 60'),
    idle: await countWhere(page, band(g.c1, g.a, g.b), neutral),
    c2: await countWhere(page, { x: g.l - 3, y: g.c2.yc - g.c2.E / 2 + 1, w: 7, h: g.c2.E - 2 }, neutral) };
  check('FORMATS 10.4 a lost interval is a hatched grey band over its CPU row: ' + n.grey + ' grey and ' + n.hatch + ' hatch pixels of ' + Math.round(area),
    n.grey > area * 0.4 && n.hatch > area * 0.1 && n.grey + n.hatch > area * 0.85, n);
  check('FORMATS 10.4 the band says "lost" (' + n.black + ' black text pixels), the idle CPU beside it has none of its grey (' + n.idle + ')', n.black > 10 && n.idle === 0, n);
  check('FORMATS 10.4 a 10 ns loss is still drawn, 2 px at least (' + n.c2 + ' pixels, row ' + Math.round(g.c2.E) + ' px high)', n.c2 >= 2 * (g.c2.E - 4), n);
  await page.screenshot({ path: path.join(shots, 'lost_interval.png') });
  // shift-click on the band (shift released first: kept): its annotation
  // names the entries and the reason
  const o = await canvasOrigin(page);
  await page.keyboard.down('Shift'); await page.mouse.move(o.x + (g.a + g.b) / 2, o.y + g.c0.yc - g.c0.E / 4); await page.mouse.down();
  await page.keyboard.up('Shift'); await page.mouse.up(); await settle(page);
  const ann = (await st(page)).annotations;
  check('FORMATS 10.4 shift-click on the lost band annotates it: ' + JSON.stringify(ann), ann.length === 1 && ann[0].includes('-lost-(12345 entries, reader behind)') && ann[0].includes('5.00'), ann);
  check('lost: no page errors', errors.length === 0, errors);
}

async function testTemplate(ctx) {
  const { page, errors } = await open(ctx, path.join(dir, 'template.html'));
  const ready = await page.evaluate(() => window.kutraceReady);
  check('bare template shows the file opener', ready === 'empty');
  const json = JSON.parse(fs.readFileSync(path.join(dir, 'orig.json'), 'utf8'));
  await page.evaluate(o => window.kutraceLoadJSON(o), json);
  const s = await st(page);
  check('bare template loads original JSON (10-field rows) from a file', s.spans === 12 && s.visibleRows.length === 4 && errors.length === 0, [s.spans, s.visibleRows, errors]);
}

async function testGen(ctx) {
  const { page, errors } = await open(ctx, path.join(dir, 'gen.html'));
  let s = await st(page);
  const full = [s.t0, s.t1];
  check('synthetic trace loads (' + s.spans + ' spans, ' + Math.round(s.perf.load) + ' ms)', s.spans > 10000 && errors.length === 0, errors);
  await page.screenshot({ path: path.join(shots, 'gen_full.png') });
  check('3.6.8 dense marks at full view: boxes drawn, none overlapping on a text line', s.marks >= 4 && s.markOverlaps === 0, [s.marks, s.markOverlaps]);
  await page.evaluate(() => window.kutrace.toggleGroup('PID')); await settle(page);
  s = await st(page);
  const hts = await page.evaluate(labels => labels.map(l => window.kutrace.rowY(l).h), s.markRows);
  check('3.6.8 PID group open (64 rows too low for text): ' + s.ticks + ' marks as 1 px ticks, no boxes (' + s.marks + ')',
    s.ticks >= 4 && s.marks === 0 && hts.length === 0, [s.ticks, s.marks, s.markRows, hts]);
  await page.screenshot({ path: path.join(shots, 'gen_pid_open.png') });
  await page.evaluate(() => window.kutrace.setWindow(10.01, 10.012)); await settle(page);
  await page.screenshot({ path: path.join(shots, 'gen_pid_zoom.png') });
  await page.evaluate(() => window.kutrace.prefixHighlight('mysqld.1000'));
  s = await st(page);
  check('73 prefix highlight on a generated trace marks every mysqld row', s.rows.filter(r => r.highlighted).every(r => r.label.startsWith('mysqld')) && s.rows.filter(r => r.highlighted).length >= 5);
  await page.screenshot({ path: path.join(shots, 'gen_highlight.png') });
  // Zoomed out, rows with 16 or more spans per pixel are drawn from time
  // bins (rowLod) instead of span by span: in a 500 px window the 4 CPU rows
  // (12k spans each) are.  Each pixel column must show the same kind of
  // glyph (idle line, span colour, nothing) as the exact walk.
  await page.evaluate(() => window.kutrace.prefixHighlight('mysqld.1000')); // off
  await page.evaluate(() => window.kutrace.toggleGroup('PID'));
  await page.setViewportSize({ width: 500, height: 700 }); await page.waitForTimeout(100);
  await page.evaluate(([a, b]) => window.kutrace.setWindow(a, b), full); await settle(page);
  const cmp = await page.evaluate(() => {
    const L = window.kutrace.layout(), s = window.kutraceState(), c = document.getElementById('cv').getContext('2d'), d = window.devicePixelRatio || 1;
    const kind = (r, g, b) => (r + g + b < 60 ? 'idle' : r > 235 && g > 235 && b > 235 ? 'none' : 'span');
    const grab = () => s.visibleRows.map(lab => { const y = window.kutrace.rowY(lab); const px = c.getImageData(Math.round(L.left * d), Math.round(y.yc * d), Math.round((L.right - L.left) * d), 1).data;
      const a = []; for (let i = 0; i < px.length; i += 4) a.push(kind(px[i], px[i + 1], px[i + 2]) + (px[i] << 16 | px[i + 1] << 8 | px[i + 2])); return a; });
    window.kutrace.setCover(false); // opaque winners: the colour comparison is about which span wins
    window.kutrace.setLod(true); const lodRows = window.kutraceState().perf.lodDrawn, prims = window.kutraceState().perf.prims, a = grab();
    window.kutrace.setLod(false); const b = grab(); window.kutrace.setLod(true); window.kutrace.setCover(true);
    let tot = 0, k = 0, same = 0;
    for (let r = 0; r < a.length; r++) for (let x = 0; x < a[r].length; x++) { if (a[r][x].startsWith('none') && b[r][x].startsWith('none')) continue; tot++; if (a[r][x].slice(0, 4) === b[r][x].slice(0, 4)) k++; if (a[r][x] === b[r][x]) same++; }
    return { rows: a.length, lodRows, prims, tot, kind: k / tot, same: same / tot, width: L.right - L.left };
  });
  check('3.4 zoomed out, the CPU rows are drawn from time bins (' + cmp.lodRows + ' rows) and agree with the span-by-span walk in ' + (100 * cmp.kind).toFixed(1) + ' % of ' + cmp.tot + ' pixel columns (kind of glyph), ' + (100 * cmp.same).toFixed(1) + ' % (colour)',
    cmp.rows === 4 && cmp.lodRows === 4 && cmp.tot > 500 && cmp.kind >= 0.95 && cmp.same >= 0.7 && cmp.prims <= 4 * 2 * cmp.width + 2000, cmp);
  await page.setViewportSize({ width: 1600, height: 1000 }); await page.waitForTimeout(100);
  check('generated: no errors', errors.length === 0, errors);
}

// A kutrace_synth trace: dense marks stay legible (no overlapping boxes).
async function testSynth(ctx) {
  if (!fs.existsSync(path.join(dir, 'synth.html'))) { console.log('skip - no kutrace_synth page'); return; }
  const { page, errors } = await open(ctx, path.join(dir, 'synth.html'));
  const s = await st(page);
  const nmarks = await page.evaluate(() => { const s = window.kutraceState(); let n = 0; for (let k = 0; k < s.spans; k++) { const e = window.kutrace.spanAt(k).ev; if (e >= 0x20A && e <= 0x20D) n++; } return n; });
  check('3.6.8 synth trace at full view: ' + s.markCount + ' of ' + nmarks + ' marks kept by the 3 px rule are drawn, ' + s.marks + ' with their text, no text boxes overlapping on a text line',
    s.markCount >= 20 && s.marks >= 20 && s.markOverlaps === 0, [s.markCount, s.marks, nmarks, s.markOverlaps]);
  await page.screenshot({ path: path.join(shots, 'synth_full.png') });
  // PID group open: the rows are too low for text, so marks are 1 px ticks
  // (level of detail), never boxes whose text would cover the rows below.
  await page.evaluate(() => window.kutrace.toggleGroup('PID')); await settle(page);
  let p = await st(page);
  const heights = await page.evaluate(labels => labels.map(l => window.kutrace.rowY(l).h), p.markRows);
  check('3.6.8 synth PID group open: boxes (' + p.marks + ') only on rows with a text band, none overlapping; ticks (' + p.ticks + ') elsewhere',
    p.marks > 0 && heights.every(h => h >= 24) && p.markOverlaps === 0, [p.ticks, p.markRows, heights]);
  await page.screenshot({ path: path.join(shots, 'synth_pid_open.png') });
  // Wakeup arcs between PID rows too (waker pid -> woken pid, 3.6.9) when the group is open: in a 4 ms window all arcs show.
  const w = await page.evaluate(() => { const s = window.kutraceState(); for (let k = 0; k < s.spans; k++) { const x = window.kutrace.spanAt(k); if (x.ev === -3 && x.pid > 0 && x.dur < 0.002) return x.ts; } return null; });
  await page.evaluate(t => window.kutrace.setWindow(t - 0.001, t + 0.003), w);
  await page.evaluate(() => window.kutrace.toggleGroup('PID')); await settle(page);
  const arcsCpu = (await st(page)).perf.arcs;
  await page.evaluate(() => window.kutrace.toggleGroup('PID')); await settle(page);
  p = await st(page);
  check('3.6.9 wakeup arcs: ' + arcsCpu + ' between CPU rows, ' + p.perf.arcs + ' with the PID group open (PID to PID added)', w !== null && arcsCpu >= 1 && p.perf.arcs > arcsCpu && p.perf.arcs <= 2 * arcsCpu, [w, arcsCpu, p.perf.arcs]);
  await page.screenshot({ path: path.join(shots, 'synth_pid_arcs.png') });
  check('synth: no errors', errors.length === 0, errors);
}

// Issue 14 on the book-shaped pages (fidelity.js, shared with Firefox).
async function testFidelity(ctx) {
  if (!fs.existsSync(path.join(dir, 'queue.html'))) { console.log('skip - no book-shaped pages'); return; }
  await require('./fidelity.js').run({ open: file => open(ctx, file), close: async () => {}, resize: (page, width, height) => page.setViewportSize({ width, height }),
    check, shots, dir, tag: '' });
}

(async () => {
  const { ctx, cleanup } = await launch();
  try {
    for (const t of [testSmall, testMenu, testMisc, testUnsafe, testOrig, testPred, testLegacy, testArcOrder, testLost, testTemplate, testGen, testSynth, testFidelity]) {
      try { await t(ctx); } catch (e) { check(t.name + ' ran to the end', false, String(e && e.stack || e)); }
    }
  } finally { await cleanup(); }
  process.exit(failed() ? 1 : 0);
})();

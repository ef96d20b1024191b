// SPDX-License-Identifier: BSD-3-Clause
// The book's other pages in a real browser (issue 14): an RPC page
// ("V4 flat RPCs", tests/data/viewer/rpc_q.json) and a points page
// (tests/data/viewer/points_disk.json), both shaped as the book's, made by
// makeself; checked by the page's state and by pixels.  Run by
// tests/t_browser_pages.sh:
//   node pages.test.js chromium|firefox PAGEDIR SHOTDIR
// Chromium through playwright-core (lib.js), Firefox (firefox-esr) through
// puppeteer-core over WebDriver BiDi, as the viewer's own tests.
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const { check, failed } = require('./lib.js');
const [which, dir, shots] = process.argv.slice(2);
fs.mkdirSync(shots, { recursive: true });
const FX = which === 'firefox';
const tag = FX ? 'firefox ' : '';

async function browser() {
  if (!FX) { const { launch } = require('./lib.js'); const b = await launch(); return { newPage: async () => b.ctx.pages()[0] || b.ctx.newPage(), close: b.cleanup }; }
  const puppeteer = require('puppeteer-core');
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'kt-firefox-'));
  const b = await puppeteer.launch({ browser: 'firefox', executablePath: process.env.KT_FIREFOX || '/usr/bin/firefox-esr', headless: true, userDataDir: profile,
    extraPrefsFirefox: { 'browser.shell.checkDefaultBrowser': false, 'datareporting.policy.dataSubmissionEnabled': false, 'app.update.enabled': false } });
  return { newPage: async () => { const p = await b.newPage(); await p.setViewport({ width: 1600, height: 1000 }); return p; },
    close: async () => { await b.close(); fs.rmSync(profile, { recursive: true, force: true }); } };
}
async function open(br, file) {
  const page = await br.newPage();
  const errors = [], requests = [];
  page.on('pageerror', e => errors.push(String(e)));
  page.on('request', r => { const u = r.url(); if (!/^(file|data|blob|about):/.test(u)) requests.push(u); });
  await page.goto('file://' + path.resolve(file));
  await page.waitForFunction(() => window.kutraceReady || window.kutraceError, FX ? { timeout: 60000 } : null, FX ? undefined : { timeout: 60000 });
  const err = await page.evaluate(() => window.kutraceError || null);
  if (err) errors.push(err);
  return { page, errors, requests };
}
const st = page => page.evaluate(() => window.kutraceState());
const settle = page => page.evaluate(() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r))));
const origin = page => page.evaluate(() => { const r = document.getElementById('cv').getBoundingClientRect(); return { x: r.left, y: r.top }; });
async function wheel(page, x, y, dy) {
  const o = await origin(page); await page.mouse.move(o.x + x, o.y + y);
  if (FX) await page.mouse.wheel({ deltaY: dy }); else await page.mouse.wheel(0, dy);
  await new Promise(r => setTimeout(r, 80)); await settle(page);
}
async function drag(page, x0, y0, x1, y1, shift) {
  const o = await origin(page);
  if (shift) await page.keyboard.down('Shift');
  await page.mouse.move(o.x + x0, o.y + y0); await page.mouse.down(); await page.mouse.move(o.x + (x0 + x1) / 2, o.y + (y0 + y1) / 2); await page.mouse.move(o.x + x1, o.y + y1); await page.mouse.up();
  if (shift) await page.keyboard.up('Shift');
  await settle(page);
}
async function click(page, x, y) { const o = await origin(page); await page.mouse.click(o.x + x, o.y + y); await settle(page); }
// The canvas pixel at CSS (x, y), as [r, g, b].
const pixel = (page, x, y) => page.evaluate(([x, y]) => { const d = window.devicePixelRatio || 1; return [...document.getElementById('cv').getContext('2d').getImageData(Math.round(x * d), Math.round(y * d), 1, 1).data].slice(0, 3); }, [x, y]);
// Pixels of a CSS rectangle within 12 of an RGB colour.
const countColor = (page, rgb, r) => page.evaluate(([rgb, r]) => {
  const d = window.devicePixelRatio || 1; const img = document.getElementById('cv').getContext('2d').getImageData(Math.round(r.x * d), Math.round(r.y * d), Math.max(1, Math.round(r.w * d)), Math.max(1, Math.round(r.h * d))).data;
  let n = 0; for (let i = 0; i < img.length; i += 4) if (Math.abs(img[i] - rgb[0]) < 12 && Math.abs(img[i + 1] - rgb[1]) < 12 && Math.abs(img[i + 2] - rgb[2]) < 12) n++; return n; }, [rgb, r]);
const hex = c => [1, 3, 5].map(i => parseInt(c.slice(i, i + 2), 16));
const same = (a, b) => a.every((v, i) => Math.abs(v - b[i]) < 12);
async function search(page, text) {
  await page.evaluate(t => { document.getElementById('search').value = t; }, text);
  await page.focus('#search'); await page.keyboard.press('End'); await new Promise(r => setTimeout(r, 60)); await settle(page);
  return st(page);
}

async function testRpc(br) {
  const { page, errors, requests } = await open(br, path.join(dir, 'rpc_q.html'));
  let s = await st(page);
  check(tag + 'rpc: the page opens as an RPC page from file:// with no network request', s.kind === 'rpc' && requests.length === 0 && errors.length === 0, [s.kind, requests, errors]);
  check(tag + 'rpc: one row per RPC, 40 rows in the order of T1', s.rpcs === 40 && s.rows.length === 40 && s.rows[0] === 'write.4000' && s.rows[1] === 'read.4311' && s.rows[39] === 'ping.12506', s.rows.slice(0, 3));
  check(tag + 'rpc: title, time axis in msec after the base second 2019-03-21 16:31:12', s.title === 'client4 to server, queue test' && s.axisTitle === 'Time (msec)' && s.baseText === '2019-03-21 16:31:12' && s.tickLabels.includes('5'), [s.title, s.axisTitle, s.baseText, s.tickLabels]);
  check(tag + 'rpc: the whole trace in view (first T1 12.000100 .. last T4 12.009696)', s.t0 < 12.0001 && s.t1 > 12.009696 && s.t1 - s.t0 < 0.0102, [s.t0, s.t1]);
  const legend = await page.evaluate(() => [...document.querySelectorAll('#methods .method')].map(e => e.textContent));
  check(tag + 'rpc: method legend with counts', JSON.stringify(legend) === '["chksum (7)","ping (7)","read (7)","sink (7)","write (12)"]', legend);
  check(tag + 'rpc: the status names the deltaT23 shift', s.status === '40 RPCs; T2, T3 shifted by deltaT23 47.0us', s.status);
  check(tag + 'rpc: every row label shown at full view (40 rows fit)', s.labelsShown.length === 40, s.labelsShown.length);
  await page.screenshot({ path: path.join(shots, (FX ? 'firefox_' : '') + 'pages_rpc.png') });

  // read.4311: T1 12.000323, T2 12.000345, T3 12.000656, T4 12.000703.
  await page.evaluate(() => window.kutrace.setWindow(12.000300, 12.000730));
  const g = await page.evaluate(() => window.kutrace.rowY('read.4311'));
  const x = t => page.evaluate(t => window.kutrace.xOf(t), t);
  const read = hex(s.methods.find(m => m.method === 'read').color);
  const xr = (await x(12.000334)), xs = (await x(12.0005)), xp = (await x(12.00068));
  const yc = g.y + g.E / 2, ytop = g.y + g.th / 2, ybot = g.y + g.E - g.th / 2;
  const px = { reqTop: await pixel(page, xr, ytop), reqMid: await pixel(page, xr, yc), srv: await pixel(page, xs, yc), respBot: await pixel(page, xp, ybot), respMid: await pixel(page, xp, yc) };
  check(tag + 'rpc: request on the wire T1->T2 is a line along the top of the row in the method colour, nothing in the middle',
    same(px.reqTop, read) && same(px.reqMid, [255, 255, 255]), px);
  check(tag + 'rpc: server time T2->T3 is a full bar in the method colour', same(px.srv, read), px.srv);
  check(tag + 'rpc: response on the wire T3->T4 is a line along the bottom of the row', same(px.respBot, read) && same(px.respMid, [255, 255, 255]), px);
  const x2 = await x(12.000345), x3 = await x(12.000656);
  const edge = await countColor(page, read, { x: x2 - 3, y: yc - 1, w: 2, h: 2 }), edge2 = await countColor(page, read, { x: x2 + 2, y: yc - 1, w: 2, h: 2 });
  check(tag + 'rpc: the server bar starts at T2 (pixels)', edge === 0 && edge2 > 0, [edge, edge2]);
  const end1 = await countColor(page, read, { x: x3 - 3, y: yc - 1, w: 2, h: 2 }), end2 = await countColor(page, read, { x: x3 + 2, y: yc - 1, w: 2, h: 2 });
  check(tag + 'rpc: the server bar ends at T3 (pixels)', end1 > 0 && end2 === 0, [end1, end2]);
  const o = await origin(page); await page.mouse.move(o.x + xs, o.y + yc); await new Promise(r => setTimeout(r, 60)); await settle(page);
  s = await st(page);
  check(tag + 'rpc: hover names the RPC, its parent and the three times', /^read\.4311 \(parent 4000\) Req Success, 192\.168\.1\.61:52001 -> 192\.168\.1\.62:12345: request 22\.0us, server 311us, response 47\.0us, total 380us/.test(s.hover), s.hover);
  await page.screenshot({ path: path.join(shots, (FX ? 'firefox_' : '') + 'pages_rpc_zoom.png') });

  // A failed RPC (status TooBig) is framed in red.
  await page.evaluate(() => window.kutrace.setWindow(12.0044, 12.0048));
  const f = await page.evaluate(() => window.kutrace.rowY('chksum.8259')); const fr = await page.evaluate(() => window.kutrace.rpc('chksum.8259'));
  const fx2 = await x(fr.t2), fx3 = await x(fr.t3);
  const red = await countColor(page, [255, 0, 0], { x: fx2 - 3, y: f.y - 3, w: fx3 - fx2 + 6, h: f.E + 6 });
  const redOk = await page.evaluate(() => window.kutrace.rowY('sink.8321'));
  const so = await page.evaluate(() => window.kutrace.rpc('sink.8321')); const sx2 = await x(so.t2);
  const red2 = await countColor(page, [255, 0, 0], { x: sx2 - 3, y: redOk.y - 3, w: 20, h: redOk.E + 6 });
  check(tag + 'rpc: status TooBig framed in red, a Success row not', red > 40 && red2 === 0, [red, red2]);

  // Search as on the CPU page: a regex over method, id, status, hosts, data.
  await page.evaluate(() => window.kutrace.setWindow(12.000300, 12.000730));
  s = await search(page, 'write');
  check(tag + 'rpc: search write -> 12 matches with their total and range', s.matches.length === 12 && /^Matches: 12, [\d.]+ms \[[\d.]+us\.\.[\d.]+us\] client time$/.test(s.summary), s.summary);
  const grey = await pixel(page, xs, yc);
  check(tag + 'rpc: a row that does not match is grey', same(grey, [0xD8, 0xD8, 0xD8]), grey);
  s = await search(page, 'TooBig');
  check(tag + 'rpc: search TooBig finds chksum.8259 only', JSON.stringify(s.matches) === '["chksum.8259"]', s.matches);
  await page.click('#b_not'); await settle(page); s = await st(page);
  check(tag + 'rpc: [!] inverts the search (39 matches)', s.matches.length === 39, s.summary);
  await page.click('#b_not');
  s = await search(page, '4311');
  check(tag + 'rpc: search by RPC id finds it', JSON.stringify(s.matches) === '["read.4311"]', s.matches);
  // The client time filter (µs): the slow RPCs, counted from the JSON itself.
  const rows = JSON.parse(fs.readFileSync(path.join(dir, 'rpc_q.json'), 'utf8')).events;
  const slow = rows.filter(r => r[3] - r[0] >= 400e-6).map(r => r[11] + '.' + r[8]);
  await page.evaluate(() => { document.getElementById('smin').value = '400'; });
  s = await search(page, '');
  check(tag + 'rpc: min 400 us keeps the ' + slow.length + ' RPCs of 400 us or more', slow.length >= 3 && JSON.stringify(s.matches) === JSON.stringify(slow), [s.matches, slow]);
  s = await search(page, 'write');
  const slowW = slow.filter(l => l.startsWith('write.'));
  check(tag + 'rpc: write with min 400 us: the slow writes only', JSON.stringify(s.matches) === JSON.stringify(slowW), [s.matches, slowW]);
  await page.evaluate(() => { document.getElementById('smin').value = ''; });
  s = await search(page, '12.0045+');
  check(tag + 'rpc: the time 12.0045+ shows 12.0045 +- 0.205 ms, as on the CPU page', Math.abs(s.t0 - (12.0045 - 2.05e-4)) < 1e-9 && Math.abs(s.t1 - (12.0045 + 2.05e-4)) < 1e-9 && s.matches === null, [s.t0, s.t1]);
  s = await search(page, '(');
  check(tag + 'rpc: a bad regex is reported, no exception', /^bad regex/.test(s.searchError) && errors.length === 0, [s.searchError, errors]);
  s = await search(page, '');

  // Pan and zoom as on the CPU page.
  await click(page, s.layout.left, s.layout.bottom); s = await st(page);
  const full = s.t1 - s.t0, mid = (s.layout.left + s.layout.right) / 2;
  const tm = await page.evaluate(xx => { const s = window.kutraceState(); return s.t0 + (xx - s.layout.left) / (s.layout.right - s.layout.left) * (s.t1 - s.t0); }, mid);
  await wheel(page, mid, 300, -500); s = await st(page);
  const tm2 = s.t0 + (mid - s.layout.left) / (s.layout.right - s.layout.left) * (s.t1 - s.t0);
  check(tag + 'rpc: wheel zooms in about the pointer', s.t1 - s.t0 < full * 0.6 && Math.abs(tm2 - tm) < full * 1e-3, [full, s.t1 - s.t0, tm, tm2]);
  const w0 = s.t1 - s.t0, t00 = s.t0;
  await drag(page, mid, 300, mid - 200, 300); s = await st(page);
  const want = t00 + 200 / (s.layout.right - s.layout.left) * w0;
  check(tag + 'rpc: drag pans time', Math.abs(s.t0 - want) < w0 * 0.01 && Math.abs(s.t1 - s.t0 - w0) < w0 * 1e-6, [s.t0, want]);
  const h0 = s.rowH;
  await wheel(page, 80, 200, -500); s = await st(page);
  check(tag + 'rpc: wheel over the row labels zooms the rows', s.rowH > h0 * 1.5 && s.labelsShown.length < 40, [h0, s.rowH, s.labelsShown.length]);
  await click(page, s.layout.left, s.layout.bottom); s = await st(page);
  check(tag + 'rpc: the red dot resets to the whole trace and all rows', Math.abs(s.t1 - s.t0 - full) < 1e-12 && Math.abs(s.rowH - h0) < 1e-9, [s.t1 - s.t0, full, s.rowH]);
  check(tag + 'rpc: no page error', errors.length === 0, errors);
  await page.close();
}

async function testPoints(br) {
  const { page, errors, requests } = await open(br, path.join(dir, 'points_disk.html'));
  let s = await st(page);
  check(tag + 'points: the page opens as a scatter plot from file:// with no network request', s.kind === 'points' && s.points === 300 && requests.length === 0 && errors.length === 0, [s.kind, s.points, requests, errors]);
  check(tag + 'points: axis titles and ticks from the page (Time (sec), Transfer time (msec))', s.axisTitle === 'Time (sec)' && s.axisLabelY === 'Transfer time (msec)' && s.tickLabels.includes('1.0') && s.yTickLabels.includes('45'), [s.axisTitle, s.axisLabelY, s.tickLabels, s.yTickLabels]);
  check(tag + 'points: all 300 points drawn and summarised', s.drawn === 300 && s.summary === '300 points; 300 in view, Transfer time (msec) 2.08..44.8, median 6.43', s.summary);
  await page.screenshot({ path: path.join(shots, (FX ? 'firefox_' : '') + 'pages_points.png') });
  // The outlier at [0.667424, 44.770]: a dot of radius dotR 3 in dotColor #4080FF.
  const xy = await page.evaluate(() => [window.kutrace.xOf(0.667424), window.kutrace.yOfV(44.770)]);
  const c = await pixel(page, xy[0], xy[1]), out = await pixel(page, xy[0] + 6, xy[1]);
  const n = await countColor(page, [0x40, 0x80, 0xFF], { x: xy[0] - 6, y: xy[1] - 6, w: 12, h: 12 });
  check(tag + 'points: a dot of radius dotR in dotColor at (t, value)', same(c, [0x40, 0x80, 0xFF]) && !same(out, [0x40, 0x80, 0xFF]) && n >= 20 && n <= 40, [c, out, n]);
  // Zoom about the pointer, box zoom, pan, reset.
  const w0 = s.t1 - s.t0, v = [s.v0, s.v1];
  await wheel(page, xy[0], 500, -500); s = await st(page);
  check(tag + 'points: wheel zooms time, fewer points in view', s.t1 - s.t0 < w0 * 0.6 && s.drawn < 300 && s.drawn > 0 && s.v0 === v[0], [s.t1 - s.t0, s.drawn]);
  await wheel(page, 40, 500, -500); s = await st(page);
  check(tag + 'points: wheel over the value axis zooms values', s.v1 - s.v0 < (v[1] - v[0]) * 0.6, [s.v0, s.v1]);
  await click(page, s.layout.left, s.layout.bottom); s = await st(page);
  check(tag + 'points: the red dot resets', Math.abs(s.t1 - s.t0 - w0) < 1e-12 && s.v0 === v[0] && s.v1 === v[1] && s.drawn === 300, [s.t0, s.t1, s.v0, s.v1]);
  // Shift-drag a box around the low band (values under 12) in the first second.
  const b = await page.evaluate(() => ({ x0: window.kutrace.xOf(0), x1: window.kutrace.xOf(1), y0: window.kutrace.yOfV(12), y1: window.kutrace.yOfV(0) }));
  await drag(page, b.x0, b.y0, b.x1, b.y1, true); s = await st(page);
  check(tag + 'points: shift-drag zooms to the box (t 0..1, values 0..12)', Math.abs(s.t0) < 0.01 && Math.abs(s.t1 - 1) < 0.01 && Math.abs(s.v0) < 0.1 && Math.abs(s.v1 - 12) < 0.1 && s.drawn > 90 && s.drawn < 120, [s.t0, s.t1, s.v0, s.v1, s.drawn]);
  const h = await page.evaluate(() => window.kutrace.hoverAt(window.kutrace.xOf(0.017748), window.kutrace.yOfV(5.345) + 2));
  check(tag + 'points: hover gives the point', h === 'Time (sec) 0.017748, Transfer time (msec) 5.345', h);
  await page.screenshot({ path: path.join(shots, (FX ? 'firefox_' : '') + 'pages_points_zoom.png') });
  const t0 = s.t0;
  await drag(page, 700, 400, 500, 400); s = await st(page);
  check(tag + 'points: drag pans', s.t0 > t0 + 0.1, [t0, s.t0]);
  check(tag + 'points: no page error', errors.length === 0, errors);
  await page.close();
}

async function testRpcBig(br) {
  const { page, errors } = await open(br, path.join(dir, 'rpc_big.html'));
  const s = await st(page);
  check(tag + 'rpc 20000: every RPC drawn at the full view, rows under a pixel', s.rpcs === 20000 && s.drawn === 20000 && s.rowH < 0.1, [s.rpcs, s.drawn, s.rowH]);
  // Failed RPCs (Timeout, rows 500, 1500, ...) are red even without room for a frame.
  const f = await page.evaluate(() => { const r = window.kutrace.rpc('write.10500'), g = window.kutrace.rowY('write.10500'); return [window.kutrace.xOf((r.t2 + r.t3) / 2), Math.floor(g.y)]; });
  const red = await countColor(page, [255, 0, 0], { x: f[0] - 2, y: f[1] - 2, w: 4, h: 4 });
  const all = await countColor(page, [255, 0, 0], { x: s.layout.left + 10, y: s.layout.top, w: s.layout.right - s.layout.left - 10, h: s.layout.bottom - s.layout.top });
  check(tag + 'rpc 20000: a failed RPC is a red pixel at its place (20 of them)', red > 0 && all >= 20, [red, all]);
  const last = await page.evaluate(() => { const r = window.kutrace.rpc('sink.19999'); return [Math.floor(window.kutrace.xOf((r.t2 + r.t3) / 2)), Math.floor(window.kutrace.rowY('sink.19999').y)]; }); // the pixel pbRect fills
  const px = await pixel(page, last[0], last[1]);
  check(tag + 'rpc 20000: the last RPC is drawn in its method colour', same(px, hex(s.methods.find(m => m.method === 'sink').color)), px);
  check(tag + 'rpc 20000: no page error', errors.length === 0, errors);
  await page.close();
}

// A JSON file opened in the bare viewer (no embedded data) goes to pages.js.
async function testOpened(br) {
  for (const [f, kind] of [['rpc_q', 'rpc'], ['points_disk', 'points']]) {
    const { page, errors } = await open(br, path.join(dir, 'template.html'));
    const json = JSON.parse(fs.readFileSync(path.join(dir, f + '.json'), 'utf8'));
    await page.evaluate(o => window.kutraceLoadJSON(o), json); await settle(page);
    const s = await st(page);
    let px = null;
    if (kind === 'rpc') {
      await page.evaluate(() => window.kutrace.setWindow(12.000300, 12.000730));
      const g = await page.evaluate(() => window.kutrace.rowY('read.4311')), x = await page.evaluate(() => window.kutrace.xOf(12.0005));
      px = await pixel(page, x, g.y + g.E / 2);
    }
    if (FX) await page.setViewport({ width: 1200, height: 800 }); else await page.setViewportSize({ width: 1200, height: 800 });
    await new Promise(r => setTimeout(r, 100)); await settle(page);
    const s2 = await st(page);
    check(tag + 'bare viewer: an opened ' + f + '.json is drawn as a ' + kind + ' page, and survives a resize',
      s.kind === kind && (kind === 'rpc' ? s.rpcs === 40 && same(px, hex(s.methods.find(m => m.method === 'read').color)) : s.points === 300 && s.drawn === 300) &&
      s2.canvas.w < s.canvas.w && errors.length === 0, [s.kind, s.rpcs, s.points, px, s.canvas, s2.canvas, errors]);
    await page.close();
  }
}

async function testCpuStill(br) {
  const { page, errors } = await open(br, path.join(dir, 'small.html'));
  const s = await st(page);
  check(tag + 'a CPU page still opens in the CPU viewer (pages.js stays out)', Array.isArray(s.groups) && s.spans === 38 && errors.length === 0 && await page.evaluate(() => window.ktOtherPage === undefined), [s.spans, errors]);
  await page.close();
}

(async () => {
  const br = await browser();
  try {
    await testRpc(br);
    await testPoints(br);
    await testRpcBig(br);
    await testOpened(br);
    await testCpuStill(br);
  } catch (e) {
    check(tag + 'pages tests ran to the end', false, String(e && e.stack || e));
  } finally {
    await br.close();
  }
  process.exit(failed() ? 1 : 0);
})();

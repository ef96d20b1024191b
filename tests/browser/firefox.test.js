// SPDX-License-Identifier: BSD-3-Clause
// The viewer in headless Firefox (Debian firefox-esr), driven over WebDriver
// BiDi by puppeteer-core (playwright-core needs its own patched Firefox
// build, which cannot be installed here).  Run by tests/t_browser_viewer.sh:
//   node firefox.test.js PAGEDIR SHOTDIR
// Same pages as viewer.test.js; checks that the page opens from file://
// with no network request and no error, and that rows, search, time search,
// wheel zoom, highlight, the secondary controls and the legend behave.
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const puppeteer = require('puppeteer-core');
const { check, failed } = require('./lib.js');
const dir = process.argv[2], shots = process.argv[3];
const near = (a, b, eps) => Math.abs(a - b) <= eps;

async function openPage(browser, file) {
  const page = await browser.newPage();
  await page.setViewport({ width: 1600, height: 1000 });
  const errors = [], requests = [];
  page.on('pageerror', e => errors.push(String(e)));
  page.on('request', r => { const u = r.url(); if (!/^(file|data|blob|about):/.test(u)) requests.push(u); });
  page.on('dialog', d => d.accept('fx'));
  await page.goto('file://' + path.resolve(file));
  await page.waitForFunction(() => window.kutraceReady || window.kutraceError, { timeout: 60000 });
  const err = await page.evaluate(() => window.kutraceError || null);
  if (err) errors.push(err);
  return { page, errors, requests };
}
const st = page => page.evaluate(() => window.kutraceState());
const settle = page => page.evaluate(() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r))));
async function search(page, text) {
  await page.evaluate(t => { const el = document.getElementById('search'); el.value = t; }, text);
  await page.focus('#search'); await page.keyboard.press('End'); await new Promise(r => setTimeout(r, 60)); await settle(page);
  return (await st(page)).summary;
}

(async () => {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'kt-firefox-'));
  const browser = await puppeteer.launch({
    browser: 'firefox', executablePath: process.env.KT_FIREFOX || '/usr/bin/firefox-esr', headless: true, userDataDir: profile,
    extraPrefsFirefox: { 'browser.shell.checkDefaultBrowser': false, 'datareporting.policy.dataSubmissionEnabled': false, 'app.update.enabled': false },
  });
  try {
    const version = await browser.version();
    check('firefox: ' + version + ' started headless', /firefox/i.test(version), version);
    const { page, errors, requests } = await openPage(browser, path.join(dir, 'small.html'));
    let s = await st(page);
    check('firefox 1: small.html opens from file:// with no network request', requests.length === 0 && s.spans === 38, [requests, s.spans]);
    check('firefox 7: rows CPU 0..3, PID (6) and RPC (2) collapsed', JSON.stringify(s.visibleRows) === '["0","1","2","3"]' && s.groups.map(g => g.header).join('|') === '▼ CPU (4)|▶ PID (6)|▶ RPC (2)', [s.visibleRows, s.groups]);
    check('firefox 6: axis msec, base 2021-10-28 14:01:50', s.axisTitle === 'Time (msec)' && s.baseText === '2021-10-28 14:01:50', [s.axisTitle, s.baseText]);
    const px = await page.evaluate(() => { const c = document.getElementById('cv'); const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data; let n = 0; for (let i = 0; i < d.length; i += 4) if (d[i] < 250 || d[i + 1] < 250 || d[i + 2] < 250) n++; return n; });
    check('firefox: the canvas has drawn pixels', px > 20000, px);
    await page.screenshot({ path: path.join(shots, 'firefox_small.png') });
    let sum = await search(page, 'write');
    check('firefox 38: search write -> Matches: 3, 60.000us [10.0us..30.0us]', sum === 'Matches: 3, 60.000us [10.0us..30.0us]', sum);
    sum = await search(page, '(');
    check('firefox 43: invalid regex shown, no exception', /bad regex/.test((await st(page)).searchError) && errors.length === 0, errors);
    await search(page, '50.005+');
    s = await st(page);
    check('firefox 45: time search 50.005+ -> 4.1 ms window at 50.00295', near(s.t0, 50.00295, 1e-9) && near(s.t1 - s.t0, 0.0041, 1e-9), [s.t0, s.t1]);
    await search(page, '');
    const L = await page.evaluate(() => window.kutrace.layout());
    const r = await page.evaluate(() => { const b = document.getElementById('cv').getBoundingClientRect(); return { x: b.left, y: b.top }; });
    const w0 = s.t1 - s.t0;
    await page.mouse.move(r.x + (L.left + L.right) / 2, r.y + (L.top + L.bottom) / 2);
    await page.mouse.wheel({ deltaY: -500 }); await new Promise(q => setTimeout(q, 150)); await settle(page);
    s = await st(page);
    check('firefox 49: wheel -500 halves the window (pixel deltas)', near((s.t1 - s.t0) / w0, 0.5, 0.02), (s.t1 - s.t0) / w0);
    await page.evaluate(() => { window.kutrace.toggleGroup('PID'); window.kutrace.prefixHighlight('mysqld.1204'); });
    s = await st(page);
    check('firefox 15: PID group open, mysqld.* highlighted', s.groups[1].open === 'open' && s.visibleRows.includes('mysqld.1205') && JSON.stringify(s.rows.filter(q => q.highlighted).map(q => q.label)) === '["mysqld.1204","mysqld.1205"]', s.rows.filter(q => q.highlighted));
    await page.screenshot({ path: path.join(shots, 'firefox_pid_highlight.png') });
    await page.click('#legendbtn'); await settle(page);
    s = await st(page);
    check('firefox 65: legend (landscape) draws its 31 entries (legacy and hack-mode overlays included)', s.legend === 1 && s.legendItems.length === 31 && s.legendItems.includes('dots (−6): hatching on a CPU row'), s.legendItems.length);
    await page.screenshot({ path: path.join(shots, 'firefox_legend.png') });
    await page.click('#legendbtn'); await page.click('#legendbtn');
    await page.click('#menubtn');
    await page.evaluate(() => { const el = document.getElementById('m_aspect'); el.value = '4:3'; el.dispatchEvent(new Event('change')); }); await settle(page);
    s = await st(page);
    check('firefox 64: Aspect 4:3', s.menu && s.canvas.h % 100 === 0 && s.canvas.w === Math.round(s.canvas.h * 4 / 3), s.canvas);
    check('firefox: no page errors on small.html', errors.length === 0, errors);
    await page.close();
    const u = await openPage(browser, path.join(dir, 'unsafe.html'));
    await u.page.evaluate(() => window.kutrace.toggleGroup('PID'));
    s = await st(u.page);
    check('firefox 2: names with quote, backslash, </script>, non-ASCII shown exactly', JSON.stringify(s.rows.filter(q => q.group === 'PID').map(q => q.label)) ===
      JSON.stringify(["it's.101", 'back\\slash.102', '</script><script>alert(1)</script>.103', 'naïve-日本語-😀.104', 'ctl\u0001\ttab.105']) && u.errors.length === 0, [s.rows.map(q => q.label), u.errors]);
    await u.page.close();
    // 3.5: the arc layer composited over the frequency band, mark box and PC sample (as in viewer.test.js).
    const a = await openPage(browser, path.join(dir, 'arcs.html'));
    const ar = await a.page.evaluate(() => {
      const K = window.kutrace, L = K.layout(), d = window.devicePixelRatio || 1, c = document.getElementById('cv').getContext('2d');
      const grab = o => { K.setButtons(o); return new Uint32Array(c.getImageData(Math.round(L.left * d), Math.round(L.top * d), Math.round((L.right - L.left) * d), Math.round((L.bottom - L.top) * d)).data.buffer); };
      const ARC = 0xFFFF8000, OFF = { arc: 0, freq: 0, mark: 0, samp: 0 }, ON = { freq: 2, mark: 3, samp: 2 };
      const Z = grab(OFF), A = grab(Object.assign({}, OFF, { arc: 2 })), B = grab(Object.assign({}, OFF, ON)), C = grab(Object.assign({}, OFF, ON, { arc: 2 }));
      let n = 0, kept = 0; for (let i = 0; i < Z.length; i++) if (A[i] !== Z[i] && A[i] === ARC && B[i] !== Z[i]) { n++; if (C[i] === ARC) kept++; }
      return [n, kept];
    });
    check('firefox 3.5: the wakeup arc over the overlays it crosses (' + ar[1] + ' of ' + ar[0] + ' px keep its colour)', ar[0] >= 50 && ar[1] === ar[0] && a.errors.length === 0, [ar, a.errors]);
    await a.page.close();
    const g = await openPage(browser, path.join(dir, 'gen.html'));
    s = await st(g.page);
    check('firefox: synthetic ' + s.spans + ' spans load in ' + Math.round(s.perf.load) + ' ms, no errors', s.spans > 10000 && g.errors.length === 0, g.errors);
    await g.page.screenshot({ path: path.join(shots, 'firefox_gen.png') });
    await g.page.close();
    // Issue 14 on the book-shaped pages, as in Chromium.
    await require('./fidelity.js').run({ open: file => openPage(browser, file), close: page => page.close(), resize: (page, width, height) => page.setViewport({ width, height }),
      check, shots, dir, tag: 'firefox ' });
  } catch (e) {
    check('firefox tests ran to the end', false, String(e && e.stack || e));
  } finally {
    await browser.close();
    fs.rmSync(profile, { recursive: true, force: true });
  }
  process.exit(failed() ? 1 : 0);
})();

// SPDX-License-Identifier: BSD-3-Clause
// node server.test.js URL STORE PNG: the page kutrace_view serves at URL
// (tests/t_browser_view.sh) in headless Chromium: it loads without page
// errors, asks only its own server, draws the trace (CPU rows in colour),
// pans and zooms; then STORE is removed under the server and the page
// shows the server's one-line error within a few seconds.
'use strict';
const fs = require('fs');
const { launch, check, failed } = require('./lib');

const settle = page => page.evaluate(() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r))));
// Distinct colours in the plot area, white and greys aside.
const COLOURS = `(() => { const L = window.kutrace.layout(), d = window.devicePixelRatio || 1, c = document.getElementById('cv').getContext('2d');
  const px = new Uint32Array(c.getImageData(Math.round(L.left * d), Math.round(L.top * d), Math.round((L.right - L.left) * d), Math.round((L.bottom - L.top) * d)).data.buffer);
  const seen = new Set(); let painted = 0;
  for (const p of px) { const r = p & 255, g = (p >> 8) & 255, b = (p >> 16) & 255; if (r === g && g === b) continue; painted++; seen.add(p); }
  return { colours: seen.size, painted, total: px.length }; })()`;

(async () => {
  const [url, store, png] = process.argv.slice(2);
  const origin = new URL(url).origin;
  const { ctx, cleanup } = await launch();
  try {
    const page = ctx.pages()[0] || await ctx.newPage();
    const errors = [], foreign = [];
    page.on('pageerror', e => errors.push(String(e)));
    page.on('request', r => { if (!r.url().startsWith(origin + '/') && !r.url().startsWith('data:') && !r.url().startsWith('blob:')) foreign.push(r.url()); });
    await page.goto(url);
    await page.waitForFunction(() => window.kutraceReady || window.kutraceError, null, { timeout: 60000 });
    const err = await page.evaluate(() => window.kutraceError || null);
    if (err) errors.push(err);
    check('the served page loads without page errors', errors.length === 0, errors);
    check('the served page asks only its own server', foreign.length === 0, foreign);
    const s = await page.evaluate(() => window.kutraceState());
    check('the served page holds the trace (' + s.spans + ' spans)', s.spans > 1000, s.spans);
    await settle(page);
    let c = await page.evaluate(COLOURS);
    check('the served page draws the timeline in colour (' + c.colours + ' colours, ' + c.painted + ' px)', c.colours >= 5 && c.painted > c.total / 200, c);
    const t0 = s.t0, t1 = s.t1;
    await page.evaluate(([a, b]) => window.kutrace.setWindow(a, b), [t0 + (t1 - t0) * 0.4, t0 + (t1 - t0) * 0.41]);
    await settle(page);
    const z = await page.evaluate(() => window.kutraceState());
    c = await page.evaluate(COLOURS);
    check('zoomed in 100x, still drawn', Math.abs((z.t1 - z.t0) - (t1 - t0) * 0.01) < (t1 - t0) * 1e-4 && c.painted > 0, { w: z.t1 - z.t0, c });
    check('no server error while the store is there', (await page.evaluate(() => window.kutraceServerError || '')) === '');
    const cookie = (await ctx.cookies(origin)).find(k => k.name.startsWith('kutrace_'));
    check('the token cookie is HttpOnly, SameSite=Strict', cookie && cookie.httpOnly && cookie.sameSite === 'Strict', cookie);
    // The critical path of a target the page does not hold, walked by
    // the server (/api/why) and drawn (why.js).
    await page.evaluate(() => window.kutrace.why('pid:8292'));
    let w = null;
    try {
      await page.waitForFunction(() => window.kutraceState().why.on !== null, null, { timeout: 30000 });
      await page.evaluate(() => window.kutrace.render());
      w = await page.evaluate(() => window.kutraceState().why);
    } catch (e) { w = await page.evaluate(() => window.kutraceState().why); }
    check('why pid:8292 through the server: the path drawn', w && w.on === 'pid 8292' && w.steps > 0, w);
    const m = await page.evaluate(() => new Promise(r => { window.kutrace.why('rpc:5');
      const t = setInterval(() => { const s = window.kutraceState().why; if (/rpc:5: /.test(s.msg) && !/asking/.test(s.msg)) { clearInterval(t); r(s.msg); } }, 100);
      setTimeout(() => { clearInterval(t); r(window.kutraceState().why.msg); }, 20000); }));
    check('why rpc:5 (not in the trace): the server\'s line in the panel', /no such RPC in the trace/.test(m), m);
    await page.evaluate(() => window.kutrace.whyClear());
    await page.screenshot({ path: png });
    fs.rmSync(store, { recursive: true, force: true });
    let msg = '';
    try {
      await page.waitForFunction(() => /store is gone/.test(window.kutraceServerError || ''), null, { timeout: 10000 });
      msg = await page.evaluate(() => window.kutraceServerError);
    } catch (e) { msg = ''; }
    const status = await page.evaluate(() => document.getElementById('status').textContent);
    check('the store removed: the page shows the server\'s one line', msg !== '' && !msg.includes('\n') && status.includes(msg), { msg, status });
    check('the store removed: no page errors', errors.length === 0, errors);
  } finally {
    await cleanup();
  }
  process.exit(failed() ? 1 : 0);
})().catch(e => { console.log('not ok - server.test.js: ' + e); process.exit(1); });

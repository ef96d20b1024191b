// SPDX-License-Identifier: BSD-3-Clause
// node align.js PAGE.html PNG HOST_A HOST_B: a page kutrace_align merged,
// in Chromium.  Each host has its sub-header with its CPUs labelled
// host:cpu; the messages between the hosts are drawn as arrows (pixels of
// their colour on the canvas) in a window around the first ones; closing
// a host's sub-header hides its rows and the arrows that end there.
// Saves a screenshot in PNG.
'use strict';
const { launch, open, check, failed } = require('./lib');
const COL = [0xD0, 0x00, 0xD0];

(async () => {
  const [file, png, ha, hb] = process.argv.slice(2);
  const { ctx, cleanup } = await launch();
  try {
    const { page, errors } = await open(ctx, file);
    await page.waitForFunction(() => document.readyState === 'complete');
    const count = () => page.evaluate(c => {
      const cv = document.querySelector('canvas'), d = cv.getContext('2d').getImageData(0, 0, cv.width, cv.height).data;
      let n = 0; for (let i = 0; i < d.length; i += 4) if (d[i] === c[0] && d[i + 1] === c[1] && d[i + 2] === c[2]) n++;
      return n;
    }, COL);
    let s = await page.evaluate(() => window.kutrace.state());
    const m = s.machines;
    check(`two hosts, ${ha} then ${hb}`, m.hosts.length === 2 && m.hosts[0].name === ha && m.hosts[1].name === hb, m);
    const cpuRows = s.rows.filter(r => r.group === 'CPU').map(r => r.label);
    check('CPU rows labelled host:cpu', cpuRows.includes(ha + ':0') && cpuRows.includes(hb + ':0') &&
      cpuRows.every(l => l.startsWith(ha + ':') || l.startsWith(hb + ':')), cpuRows);
    check('the messages are in the page', m.messages > 0, m);
    // A window holding the first few messages (send of the first to 20 ms later).
    const first = await page.evaluate(() => { const a = JSON.parse(document.getElementById('ktmeta').textContent).messages; return a[0][0] / 1e8; });
    await page.evaluate(t => window.kutrace.setWindow(t - 0.0005, t + 0.02), first);
    await page.evaluate(() => window.kutrace.render());
    s = await page.evaluate(() => window.kutrace.state());
    const drawn = await count();
    check(`arrows from one host to the other (${s.machines.arrows}), in their colour (${drawn} pixels)`, s.machines.arrows > 0 && drawn > 50, s.machines);
    await page.screenshot({ path: png });
    await page.evaluate(h => window.kutrace.toggleHost(h), hb);
    s = await page.evaluate(() => window.kutrace.state());
    const left = await count();
    check(`${hb} closed: its rows hidden, no arrows`, s.machines.hosts[1].closed && s.machines.arrows === 0 && left === 0 &&
      !s.visibleRows.some(l => l.startsWith(hb + ':')) && s.visibleRows.some(l => l.startsWith(ha + ':')), { m: s.machines, left });
    check('no page errors', errors.length === 0, errors);
  } finally {
    await cleanup();
  }
  process.exit(failed() ? 1 : 0);
})().catch(e => { console.log('not ok - align: ' + e); process.exit(1); });

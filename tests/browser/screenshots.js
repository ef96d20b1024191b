// SPDX-License-Identifier: BSD-3-Clause
// Screenshots for docs/user-guide.md, taken from the real viewer on a real
// trace: the client_server example traced in the QEMU guest
// (tests/t_vm_examples.sh) and made into a page by kutrace_postproc.
//
//   node tests/browser/screenshots.js PAGE.html OUTDIR SLOW_RPC_ID
//
// Writes OUTDIR/timeline.png (the whole run), rpc.png (the slowest lookup
// and the lock it waited for), search.png (every wait for the table
// lock) and legend.png, and prints ok/not ok lines about what they show.
'use strict';
const path = require('path');
const { launch, open, check, failed } = require('./lib.js');

async function settle(page) {
  await page.evaluate(() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r))));
}

// Cycle a row group (click on its header) until it is in state want.
async function setGroup(page, name, want) {
  for (let i = 0; i < 3; i++) {
    const g = (await page.evaluate(() => window.kutraceState())).groups.find(q => q.name === name);
    if (!g || g.open === want) return;
    await page.evaluate(n => window.kutrace.toggleGroup(n), name);
  }
}

async function main() {
  const [file, outdir, slowArg] = process.argv.slice(2);
  const slow = Number(slowArg);
  const { ctx, cleanup } = await launch();
  try {
    await ctx.pages()[0]?.setViewportSize({ width: 1400, height: 800 });
    const { page, errors } = await open(ctx, file);
    check('page loads without errors', errors.length === 0, errors);
    await page.screenshot({ path: path.join(outdir, 'timeline.png') });
    const st0 = await page.evaluate(() => window.kutraceState());
    // Room for "client_server+server0.147" row labels.
    await page.evaluate(() => { const e = document.getElementById('m_ychars'); e.value = '27'; e.dispatchEvent(new Event('change')); });
    check('timeline.png: CPU, thread and RPC rows', st0.groups.length >= 2, st0.groups);

    // The slowest lookup: its server-side request (the later of its two
    // 0x201 marks), the response, and the lock wait in between.
    const info = await page.evaluate((id) => {
      const K = window.kutrace, n = K.state().spans;
      const name = 'lookup.' + id;
      let req = null, resp = null;
      for (let i = 0; i < n; i++) {
        const s = K.spanAt(i);
        if (s.ev === 0x201 && s.name === name && (!req || s.ts > req.ts)) req = s;
      }
      if (!req) return null;
      for (let i = 0; i < n; i++) {
        const s = K.spanAt(i);
        if (s.ev === 0x202 && s.pid === req.pid && s.ts >= req.ts && (!resp || s.ts < resp.ts)) resp = s;
      }
      return { req, resp };
    }, slow);
    check('the slowest lookup is in the page', info && info.resp, info);
    if (info && info.resp) {
      const a = info.req.ts, b = info.resp.ts, pad = (b - a) * 0.1;
      // Threads open, CPUs and RPCs closed: one row per thread.
      await setGroup(page, 'PID', 'open');
      await setGroup(page, 'CPU', 'closed');
      await setGroup(page, 'RPC', 'closed');
      await page.evaluate(([x, y]) => window.kutrace.setWindow(x, y), [a - pad, b + pad]);
      const rows = (await page.evaluate(() => window.kutraceState())).visibleRows || [];
      const srv = rows.find(l => l.endsWith('.' + info.req.pid));
      await page.evaluate(() => window.kutrace.search('tablelock'));
      await settle(page);
      await page.screenshot({ path: path.join(outdir, 'rpc.png') });
      check('rpc.png: zoomed on the slow lookup, thread rows shown', !!srv, rows.slice(0, 20));
    }

    await page.evaluate(([x, y]) => window.kutrace.setWindow(x, y), [st0.t0, st0.t1]);
    const sum = await page.evaluate(() => window.kutrace.search('~tablelock'));
    await settle(page);
    await page.screenshot({ path: path.join(outdir, 'search.png') });
    check('search.png: the search for ~tablelock matches', sum !== undefined && sum !== null, sum);

    await page.evaluate(() => window.kutrace.search(''));
    await page.click('#legendbtn');
    await settle(page);
    await page.screenshot({ path: path.join(outdir, 'legend.png') });
    check('legend.png taken', true);
  } finally {
    await cleanup();
  }
  process.exit(failed() ? 1 : 0);
}
main().catch(e => { console.log('not ok - screenshots: ' + e); process.exit(2); });

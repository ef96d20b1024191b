// SPDX-License-Identifier: BSD-3-Clause
// node why.js PAGE.html PNG CAUSE SPEC OTHER MISSING: the critical path
// that kutrace_why --html wrote into PAGE, in Chromium.  Opened by the URL
// fragment #why=SPEC: the panel names it, its boxes are drawn (pixels of
// CAUSE's colour on the canvas, none once cleared), the window holds the
// path; "why OTHER" in the search box opens another; "why MISSING" says
// how to add it; the panel's x clears it.  Saves a screenshot in PNG.
'use strict';
const { launch, open, check, failed } = require('./lib');
const COL = { timer: [0xC0, 0x90, 0x00], pipe: [0x55, 0x55, 0x55], disk: [0x55, 0xAA, 0x55], cpu_wait: [0xFF, 0xC0, 0x00] };

(async () => {
  const [file, png, cause, spec, other, missing] = process.argv.slice(2);
  const { ctx, cleanup } = await launch();
  try {
    const { page, errors } = await open(ctx, file, { hash: '#why=' + spec });
    await page.waitForFunction(() => document.readyState === 'complete');
    await page.evaluate(() => window.kutrace.render());
    const count = () => page.evaluate(c => {
      const cv = document.querySelector('canvas'), d = cv.getContext('2d').getImageData(0, 0, cv.width, cv.height).data;
      let n = 0; for (let i = 0; i < d.length; i += 4) if (d[i] === c[0] && d[i + 1] === c[1] && d[i + 2] === c[2]) n++;
      return n;
    }, COL[cause]);
    let s = await page.evaluate(() => window.kutrace.state());
    check(`#why=${spec} opens its path`, s.why.spec === spec && s.why.on !== null, s.why);
    check('its steps are drawn', s.why.steps > 0, s.why);
    const panel = await page.evaluate(() => { const el = document.getElementById('whypanel'); return el ? el.textContent : ''; });
    check(`the panel names the target and its main cause (${cause})`, panel.includes('why: ' + s.why.on) && panel.includes(cause), panel);
    const drawn = await count();
    check(`boxes in ${cause}'s colour on the canvas`, drawn > 40, drawn);
    await page.screenshot({ path: png });
    s = await page.evaluate(o => { window.kutrace.search('why ' + o); return window.kutrace.state(); }, other);
    check(`"why ${other}" in the search box opens that path`, s.why.spec === other && s.why.on !== null, s.why);
    const m = await page.evaluate(o => window.kutrace.why(o), missing);
    check(`"${missing}", not in the page, says how to add it`, /no critical path for .* kutrace_why TRACE .* --html PAGE adds it/.test(m), m);
    await page.evaluate(o => window.kutrace.why(o), spec);
    await page.click('#whyclose');
    await page.evaluate(() => window.kutrace.render());
    s = await page.evaluate(() => window.kutrace.state());
    const left = await count();
    check('one click on x clears it: no panel, no boxes', s.why.on === null && left === 0 &&
      !(await page.evaluate(() => !!document.getElementById('whypanel'))), { why: s.why, left });
    check('no page errors', errors.length === 0, errors);
  } finally {
    await cleanup();
  }
  process.exit(failed() ? 1 : 0);
})().catch(e => { console.log('not ok - why: ' + e); process.exit(1); });

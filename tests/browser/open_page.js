// SPDX-License-Identifier: BSD-3-Clause
// node open_page.js PAGE.html PNG [NAME...]: opens a kutrace page in
// Chromium (tests/browser/lib.js) and checks it loads without page errors
// or network requests and that its process names include each NAME
// (a prefix: "gzip" matches "gzip.412").  Saves a screenshot in PNG.
'use strict';
const { launch, open, check, failed } = require('./lib');

(async () => {
  const [file, png, ...want] = process.argv.slice(2);
  const { ctx, cleanup } = await launch();
  try {
    const { page, errors, requests } = await open(ctx, file);
    check('page loads without page errors', errors.length === 0, errors);
    check('page makes no network requests', requests.length === 0, requests);
    const names = await page.evaluate(() => window.kutrace.names());
    for (const w of want)
      check(`the timeline names ${w}`, names.some(n => n === w || n.startsWith(w + '.')), names.slice(0, 40));
    await page.screenshot({ path: png });
  } finally {
    await cleanup();
  }
  process.exit(failed() ? 1 : 0);
})().catch(e => { console.log('not ok - open_page: ' + e); process.exit(1); });

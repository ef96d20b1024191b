// SPDX-License-Identifier: BSD-3-Clause
// Shared helpers for the viewer browser tests: launch Debian's chromium
// through playwright-core with a fresh profile, open a page over file://
// (or kutrace_view's http:// URL).
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const { chromium } = require('playwright-core');

async function launch() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kt-chromium-'));
  const ctx = await chromium.launchPersistentContext(dir, {
    executablePath: process.env.KT_CHROMIUM || '/usr/bin/chromium',
    headless: true,
    // precise memory info: performance.memory unrounded and not cached (bench.js)
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--no-first-run', '--enable-precise-memory-info'],
    viewport: { width: 1600, height: 1000 },
  });
  const cleanup = async () => { await ctx.close(); fs.rmSync(dir, { recursive: true, force: true }); };
  return { ctx, cleanup };
}

async function open(ctx, file, opts = {}) {
  const page = ctx.pages()[0] || await ctx.newPage();
  for (const ev of ['dialog', 'pageerror', 'request']) page.removeAllListeners(ev); // from the previous test
  const errors = [];
  const requests = [];
  page.on('pageerror', e => errors.push(String(e)));
  page.on('request', r => { if (!r.url().startsWith('file:') && !r.url().startsWith('data:') && !r.url().startsWith('blob:')) requests.push(r.url()); });
  await page.goto((/^https?:/.test(file) ? file : 'file://' + path.resolve(file)) + (opts.hash || '')); // a page, or kutrace_view's URL
  await page.waitForFunction(() => window.kutraceReady || window.kutraceError, null, { timeout: opts.timeout || 60000 });
  const err = await page.evaluate(() => window.kutraceError || null);
  if (err) errors.push(err);
  return { page, errors, requests };
}

let failures = 0;
function check(what, cond, detail) {
  if (cond) console.log('ok - ' + what);
  else { failures++; console.log('not ok - ' + what + (detail !== undefined ? ' # ' + JSON.stringify(detail).slice(0, 300) : '')); }
}
function failed() { return failures; }

module.exports = { launch, open, check, failed };

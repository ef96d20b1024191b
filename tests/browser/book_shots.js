// SPDX-License-Identifier: BSD-3-Clause
// docs/img/book_views.png: three views of the book-shaped pages side by
// side, as the user guide shows them: the hello-world demo at the full
// view, the queue test's marks in a 100 us view, and the hello-world demo
// with the PID group open (arcs, waits, IPC, the frequency wash).
//   node tests/browser/book_pages.js hello D/hello.json; makeself ... D/hello.html (same for queue)
//   node tests/browser/book_shots.js D OUT.png
'use strict';
const path = require('path');
const { launch, open } = require('./lib.js');

const settle = page => page.evaluate(() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r))));

async function main() {
  const [dir, out] = process.argv.slice(2);
  const { ctx, cleanup } = await launch();
  try {
    const shots = [];
    let { page } = await open(ctx, path.join(dir, 'hello.html'));
    await settle(page); shots.push((await page.screenshot()).toString('base64'));
    ({ page } = await open(ctx, path.join(dir, 'queue.html')));
    await page.evaluate(() => window.kutrace.setWindow(20.005, 20.0051)); await settle(page);
    shots.push((await page.screenshot()).toString('base64'));
    ({ page } = await open(ctx, path.join(dir, 'hello.html')));
    // a wakeup arc between two kworkers, in a 2 ms window
    const a = await page.evaluate(() => { const n = window.kutraceState().spans; for (let k = 0; k < n; k++) { const x = window.kutrace.spanAt(k); if (x.ev === -3 && x.ts > 50.5 && x.dur > 0.00008) return x; } return null; });
    await page.evaluate(a => { window.kutrace.toggleGroup('PID'); window.kutrace.setButtons({ ipc: 3 }); window.kutrace.setWindow(a.ts - 0.00003, a.ts + a.dur + 0.00003); }, a); await settle(page);
    shots.push((await page.screenshot()).toString('base64'));
    // side by side at half size, with a caption strip
    await page.setContent('<canvas id="c"></canvas>');
    const png = await page.evaluate(async shots => {
      const imgs = await Promise.all(shots.map(b => new Promise(r => { const i = new Image(); i.onload = () => r(i); i.src = 'data:image/png;base64,' + b; })));
      const w = 800, h = 500, c = document.getElementById('c'); c.width = 3 * w + 20; c.height = h + 28; const x = c.getContext('2d');
      x.fillStyle = '#fff'; x.fillRect(0, 0, c.width, c.height); x.fillStyle = '#000'; x.font = '16px sans-serif';
      ['hello world, full view (3.7 s, Freq on)', 'queue test, 100 µs: every mark', 'hello world, PID group open: arc, waits, IPC'].forEach((s, i) => {
        x.drawImage(imgs[i], i * (w + 10), 28, w, h); x.strokeStyle = '#888'; x.strokeRect(i * (w + 10) + 0.5, 28.5, w - 1, h - 1); x.fillText(s, i * (w + 10) + 6, 19); });
      return c.toDataURL('image/png').split(',')[1];
    }, shots);
    require('fs').writeFileSync(out, Buffer.from(png, 'base64'));
    console.log('wrote ' + out);
  } finally { await cleanup(); }
}
main().catch(e => { console.error(e); process.exit(1); });

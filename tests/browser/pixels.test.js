// SPDX-License-Identifier: BSD-3-Clause
// lodPixels (viewer/draw.js), pass 1 of drawing a row from
// bins, finds each pixel's bins from one boundary a pixel instead of a
// division a bin, and sums them from running sums (lodCumulate).  The
// pixels must be exactly those of the division, including bins that start
// on a pixel boundary, which rounding decides, with the same sums, ties
// and last events: here both are run on random and on boundary-aligned
// bins and their outputs compared entry by entry.  Node only (no
// browser): the functions' texts are taken from data.js and draw.js.
'use strict';
const fs = require('fs'), path = require('path');
const src = f => fs.readFileSync(path.join(__dirname, '../../viewer', f), 'utf8');
const mc = /\nfunction lodCumulate\([^]*?\n}\n/.exec(src('data.js')), mp = /\nfunction lodPixels\([^]*?\n}\n/.exec(src('draw.js'));
let fails = 0, n = 0;
const ok = (c, what) => { n++; if (!c) fails++; console.log((c ? 'ok' : 'not ok') + ' - ' + what); };
ok(!!mc && !!mp, 'data.js defines lodCumulate and draw.js lodPixels');
if (!mc || !mp) process.exit(1);
const [lodCumulate, lodPixels] = new Function(mc[0] + mp[0] + '; return [lodCumulate, lodPixels];')(); // eslint-disable-line no-new-func

// The rule of docs/spec/VIEWER.md 3.4.1 as drawExecLod had it: every bin's
// pixel by its own division, bins of one pixel summed in order.
function reference(lv, j, jEnd, O, t0, P, cols, cov, idl) {
  const { q, base, J, I, U, K, LU, LK } = lv;
  let nc = 0, cur = -1, tI = 0, tU = 0, tK = 0, lU = -1, lK = -1;
  for (; j <= jEnd; j++) {
    let px = 2147483647;
    if (j < jEnd) {
      px = Math.floor((O + (base + J[j]) * q - t0) / P); if (px < 0) px = 0;
      if (px === cur) { tI += I[j]; tU += U[j]; tK += K[j]; if (LU[j] >= 0) lU = LU[j]; if (LK[j] >= 0) lK = LK[j]; continue; }
    }
    if (cur >= 0) {
      const busy = tU + tK; tU *= 10; tK *= 10; let pick;
      if (tU >= tI && tU >= tK && lU >= 0) pick = lU; else if (tK > tU && tK >= tI && lK >= 0) pick = lK; else pick = tI > 0 ? -2 : -1;
      if (pick !== -1) { cov[nc >> 1] = busy * 1e-9 / P; idl[nc >> 1] = tI > 0 ? 1 : 0; cols[nc++] = cur; cols[nc++] = pick; }
    }
    if (j === jEnd) break;
    cur = px; tI = I[j]; tU = U[j]; tK = K[j]; lU = LU[j]; lK = LK[j];
  }
  return nc;
}

// A seeded generator: the same cases every run.
let seed = 12345;
const rnd = () => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed / 2147483648; };
function bins(nb, gap, base) {
  const J = new Float64Array(nb), I = new Float64Array(nb), U = new Float64Array(nb), K = new Float64Array(nb),
    LU = new Int32Array(nb), LK = new Int32Array(nb);
  let b = 0;
  for (let i = 0; i < nb; i++) {
    b += 1 + Math.floor(rnd() * gap); J[i] = b;
    // small sums so that ties (10 x user = idle ...) happen
    I[i] = Math.floor(rnd() * 4) * 10; U[i] = Math.floor(rnd() * 3); K[i] = Math.floor(rnd() * 3);
    LU[i] = rnd() < 0.5 ? 2 * i : -1; LK[i] = rnd() < 0.5 ? 2 * i + 1 : -1;
  }
  return { base, J, I, U, K, LU, LK };
}
function same(lv, j, jEnd, O, t0, P) {
  const w = 4 * (jEnd - j) + 16, a = [new Int32Array(w), new Float32Array(w), new Uint8Array(w)], b = [new Int32Array(w), new Float32Array(w), new Uint8Array(w)];
  const c = lodCumulate({ q: lv.q, base: lv.base, J: lv.J, I: lv.I.slice(), U: lv.U.slice(), K: lv.K.slice(), LU: lv.LU.slice(), LK: lv.LK.slice() });
  const na = lodPixels(c, j, jEnd, O, t0, P, ...a), nb = reference(lv, j, jEnd, O, t0, P, ...b);
  if (na !== nb) return 'entries ' + na + ' != ' + nb;
  for (let i = 0; i < na; i++) if (a[0][i] !== b[0][i]) return 'entry ' + i + ': ' + a[0][i] + ' != ' + b[0][i];
  for (let i = 0; i < na >> 1; i++) if (a[1][i] !== b[1][i] || a[2][i] !== b[2][i]) return 'coverage ' + i;
  return '';
}
const firstAtLeast = (a, lo, hi, v) => { while (lo < hi) { const k = (lo + hi) >> 1; if (a[k] >= v) hi = k; else lo = k + 1; } return lo; };

// Windows as drawExecLod takes them: O the trace's start (s), bins of
// q = 2^k ns, P = (t1 - t0) / width.
let bad = '', cases = 0, aligned = 0;
for (let c = 0; c < 6000 && !bad; c++) {
  const O = [0, 12.345678901, 1700000000.123456, 86399.99999999][c % 4];
  // bins of 1 ns to 33 ms; the smallest with a start time far from 0,
  // where rounding moves boundaries the most
  const q = Math.pow(2, Math.floor(rnd() * 26)) * 1e-9, sub = 4 + rnd() * 4;
  const width = 100 + Math.floor(rnd() * 2000), P = q * sub;
  const lv = Object.assign(bins(200 + Math.floor(rnd() * 3000), 1 + rnd() * 8, Math.floor(rnd() * 1000)), { q });
  // the view's start: anywhere, or on a bin's start (a pixel boundary
  // then falls on bins: P a whole number of bins, or a half)
  let t0 = O + (lv.base + lv.J[0] + rnd() * (lv.J[lv.J.length - 1] - lv.J[0]) / 2) * q;
  let Pc = P;
  if (c % 3 === 0) { t0 = O + (lv.base + lv.J[Math.floor(rnd() * 50)]) * q; Pc = q * [4, 5, 6, 8, 4.5, 7.5][c % 6]; aligned++; }
  const t1 = t0 + Pc * width;
  const j = firstAtLeast(lv.J, 0, lv.J.length, Math.floor((t0 - O) / q) - lv.base);
  const jEnd = firstAtLeast(lv.J, j, lv.J.length, Math.floor((t1 - O) / q) - lv.base + 1);
  const why = same(lv, j, jEnd, O, t0, Pc);
  if (why) bad = `case ${c} (O ${O}, q ${q}, P ${Pc}, t0 ${t0}): ${why}`;
  cases++;
}
ok(!bad, `lodPixels gives the pixels of a division a bin: ${cases} windows, ${aligned} of them starting on a bin` + (bad ? ': ' + bad : ''));
// A case the boundary search must get right by stepping: P exactly 4 bins
// and the view on a bin, every fourth bin on a boundary.
{
  const q = 1024e-9, O = 5.5, lv = Object.assign(bins(4096, 1, 0), { q });
  for (let i = 0; i < 4096; i++) lv.J[i] = i;
  const why = same(lv, 0, 4096, O, O, 4 * q);
  ok(!why, 'bins on every pixel boundary (P = 4 bins exactly)' + (why ? ': ' + why : ''));
}
console.log(`# ${n - fails} of ${n} passed`);
process.exit(fails ? 1 : 0);

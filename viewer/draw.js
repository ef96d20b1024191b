// SPDX-License-Identifier: BSD-3-Clause
// The viewer's drawing: palettes, layout, one frame on the canvas (spans,
// overlays, marks, arcs), span texts, the time axis, annotations, the
// legend and the status line.  Uses data.js (see there).
// ---------------------------------------------------------------- palettes
const PAL_A = ['#CC0000', '#CC4700', '#CC8F00', '#BECC00', '#77CC00', '#30CC00', '#00CC18', '#00CC5F',
  '#00CCA7', '#00A7CC', '#005FCC', '#0018CC', '#3000CC', '#7700CC', '#BE00CC', '#CC008F', '#CC0047'];
const PAL_B = ['#FF0000', '#FF6600', '#FFCC00', '#CCE000', '#66E000', '#00FF00', '#00FF66', '#00FFCC',
  '#00CCFF', '#0066FF', '#0000FF', '#6600FF', '#CC00FF', '#FF00CC', '#FF0066'];
function lighten(c) { const v = parseInt(c.slice(1), 16); const r = (v >> 16) & 255, g = (v >> 8) & 255, b = v & 255;
  const h = x => (128 + (x >> 1)).toString(16).padStart(2, '0'); return '#' + h(r) + h(g) + h(b); }
function rotate(c) { return '#' + c.slice(5, 7) + c.slice(1, 3) + c.slice(3, 5); } // r->g, g->b, b->r
const PALS = [
  { A: PAL_A, B: PAL_B, A2: PAL_A.map(lighten), B2: PAL_B.map(lighten) },
  { A: PAL_A.map(rotate), B: PAL_B.map(rotate), A2: PAL_A.map(rotate).map(lighten), B2: PAL_B.map(rotate).map(lighten) }];
const GREY = '#E8E8E8';
const RGBA = new Map();
function rgba(c) { // '#RRGGBB' -> little-endian ABGR word
  let v = RGBA.get(c); if (v !== undefined) return v;
  const n = parseInt(c.slice(1), 16); v = (0xFF000000 | ((n & 255) << 16) | (n & 0xFF00) | ((n >> 16) & 255)) >>> 0;
  RGBA.set(c, v); return v;
}

const WAIT_COLOR = { 2: '#FFC000', 3: '#55AA55', 11: '#FF4040', 12: '#AA5500', 13: '#8080FF', 15: '#555555', 19: '#E0E0E0' };
const MORSE = ['.-', '-...', '-.-.', '-..', '.', '..-.', '--.', '....', '..', '.---', '-.-', '.-..', '--', '-.', '---',
  '.--.', '--.-', '.-.', '...', '-', '..-', '...-', '.--', '-..-', '-.--', '--..'];
const ERRNO = ['eperm', 'enoent', 'esrch', 'eintr', 'eio', 'enxio', 'e2big', 'enoexec', 'ebadf', 'echild', 'eagain',
  'enomem', 'eacces', 'efault', 'enotblk', 'ebusy', 'eexist', 'exdev', 'enodev', 'enotdir', 'eisdir', 'einval',
  'enfile', 'emfile', 'enotty', 'etxtbsy', 'efbig', 'enospc', 'espipe', 'erofs', 'emlink', 'epipe', 'edom',
  'erange', 'edeadlk', 'enametoolong', 'enolck', 'enosys', 'enotempty', 'eloop'];
const B40 = '_abcdefghijklmnopqrstuvwxyz0123456789-./';
// ---------------------------------------------------------------- layout
// What later modules add to the layout (machines.js), so that drawing
// never calls them by name: a sub-header item before a row, its label
// drawn by subLabel.  (Their drawings go in LATE_OVERLAYS.)
const HOOK = { subHeader: () => null, subLabel: () => {} };
function rowTracks(r) {
  const g = r.group;
  if (g.open === 'closed' || (r.host && r.host.closed)) return 0;
  if (!g.hasHL) return 20;
  if (r.hl) return 20;
  if (r.tmax < S.t0 || r.tmin > S.t1) return 0; // auto-prune
  return g.open === 'hl' ? 0 : 20;
}

// Heights of the control bar and the footer, read from the DOM only when
// they may have changed (reading them forces a style and layout pass).
const CHROME = { h: -1 };
function chromeH() { if (CHROME.h < 0) CHROME.h = document.getElementById('bar').offsetHeight + document.getElementById('foot').offsetHeight; return CHROME.h; }
if (window.ResizeObserver) { const ro = new ResizeObserver(() => { const h = CHROME.h; CHROME.h = -1; if (h >= 0 && chromeH() !== h) redraw(); });
  ro.observe(document.getElementById('bar')); ro.observe(document.getElementById('foot')); }
window.addEventListener('resize', () => { CHROME.h = -1; });
function layout() {
  if (G.some((g, i) => i > 0 && g.open !== 'closed')) ensureRows(); // the PID/RPC rows are built on first use
  const aw = Math.max(300, window.innerWidth - 16), ah = Math.max(240, window.innerHeight - chromeH() - 12);
  let W = aw, H = ah;
  const asp = /^([1-9]):([1-9])$/.exec(S.cfg.aspect);
  if (S.legend === 1) { W = 900; H = 600; } else if (S.legend === 2) { W = 650; H = 900; }
  else if (asp) { // height a multiple of 100 px, width = height x h / v
    H = Math.max(100, Math.floor(ah / 100) * 100); W = Math.round(H * +asp[1] / +asp[2]);
    while (W > aw && H > 100) { H -= 100; W = Math.round(H * +asp[1] / +asp[2]); }
  }
  dpr = window.devicePixelRatio || 1;
  if (cv.width !== Math.round(W * dpr) || cv.height !== Math.round(H * dpr)) {
    cv.width = Math.round(W * dpr); cv.height = Math.round(H * dpr); cv.style.width = W + 'px'; cv.style.height = H + 'px';
  }
  const base = S.cfg.ypx;
  const titleH = 6 + 2 * base, axisH = 6 + 2 * base + 10;
  const labW = Math.round(S.cfg.ychars * 0.6 * base), legW = Math.max(20, Math.min(80, Math.round(W * 0.05)));
  L = { legendItems: L.legendItems, legendGeom: L.legendGeom, ipcLegend: L.ipcLegend, labelsShown: L.labelsShown, tickLabels: L.tickLabels, baseText: L.baseText, axisTitle: L.axisTitle, W, H, base, top: titleH, bottom: H - axisH, left: labW, right: W - legW, legW };
  L.pw = L.right - L.left; L.ph = L.bottom - L.top;
  // tracks
  // A header is 10 tracks, or more when that is too low for its label.
  let hh = 10, tr = 0, items = [];
  for (let pass = 0; pass < 3; pass++) {
    tr = 0; items = [];
    for (const g of G) {
      if (!g.rows.length) continue;
      items.push({ header: g, y: tr, h: hh }); tr += hh;
      for (const r of g.rows) { const mh = g.open !== 'closed' && HOOK.subHeader(r); if (mh) { items.push({ host: mh, y: tr, h: hh }); tr += hh; } const h = rowTracks(r); r.y = tr; r.h = h; if (h) items.push({ row: r, y: tr, h }); tr += h; }
    }
    L.ppt = (L.ph - 10) / Math.max(tr, 1) * S.yk;
    const need = Math.min(60, Math.ceil((base + 6) / L.ppt));
    if (need <= hh) break; hh = need;
  }
  L.items = items; L.tracks = tr; L.hh = hh;
}
function yOf(track) { return L.top + 5 + S.ypan + track * L.ppt; }
function xOf(t) { return L.left + (t - S.t0) / (S.t1 - S.t0) * L.pw; }
function tOf(x) { return S.t0 + (x - L.left) / L.pw * (S.t1 - S.t0); }
function rowGeom(r) { // top, event band E, centre, text band lines & font
  const top = yOf(r.y), px = r.h * L.ppt;
  let txt = S.cfg.txt; const spn = S.cfg.spn;
  while (txt > 0 && px * txt / (spn + txt) / txt < 12) txt--;
  const E = px * spn / (spn + txt);
  const font = txt ? Math.max(12, Math.min(30, (px - E) / txt)) : 12;
  return { top, px, E, yc: top + E / 2, txt, font };
}

// ---------------------------------------------------------------- colours
function pal() { return PALS[S.btn.cb]; }
function colA(e) { return pal().A[((e * 4) % 17 + 17) % 17]; }
function colB(e) { return pal().B[((e * 7 + 6) % 15 + 15) % 15]; }
function fastKernelColor(e) { const h = e >> 8; if (h === 4 || h === 6) return '#FF6060'; if (h === 5 || h === 7) return '#6060FF'; if (h >= 8) return '#70FF70'; return '#FFFF70'; }

// ---------------------------------------------------------------- drawing
// Span strokes are axis-aligned rectangles.  While the rows are drawn they
// go straight into a pixel buffer (PB) covering the plot area, which is put
// on the canvas in one call; everything with paths (dashes, curves,
// triangles) is queued in PB.later and drawn on top afterwards.  Outside
// that pass (the legend) strokes are batched into fillRect calls: a stroke
// that continues the previous one (same colour, same band, touching)
// extends it.
const PB = { on: false, img: null, u32: null, w: 0, h: 0, x0: 0, y0: 0, later: [] };
function pbBegin(x, y, w, h) {
  x = Math.round(x * dpr); y = Math.round(y * dpr); w = Math.max(1, Math.round(w * dpr)); h = Math.max(1, Math.round(h * dpr));
  if (!PB.img || PB.w !== w || PB.h !== h) { PB.img = ctx.createImageData(w, h); PB.u32 = new Uint32Array(PB.img.data.buffer); PB.w = w; PB.h = h; }
  PB.u32.fill(0xFFFFFFFF); PB.x0 = x; PB.y0 = y; PB.on = true; PB.later.length = 0;
}
function pbEnd() {
  PB.on = false; ctx.putImageData(PB.img, PB.x0, PB.y0);
  const later = PB.later; PB.later = [];
  for (const f of later) f();
}
function pbRect(x0, x1, y0, y1, c) { pbRectW(x0, x1, y0, y1, rgba(c)); } // CSS px, colour string
function pbRectW(x0, x1, y0, y1, v) { // CSS px, colour word
  const w = PB.w; let a = Math.round(x0 * dpr) - PB.x0, b = Math.round(x1 * dpr) - PB.x0;
  if (b <= a) b = a + 1; if (a < 0) a = 0; if (b > w) b = w; if (b <= a) return;
  let p = Math.round(y0 * dpr) - PB.y0, q = Math.round(y1 * dpr) - PB.y0;
  if (q <= p) q = p + 1; if (p < 0) p = 0; if (q > PB.h) q = PB.h; if (q <= p) return;
  pbFill(a, b, p, q, v);
}
// Device pixels [a, b) x [p, q) of the pixel buffer; fill() only for long
// runs (a call costs more than a short loop).
function pbFill(a, b, p, q, v) {
  const u = PB.u32, w = PB.w;
  if (b - a === 1) { for (let i = p * w + a, end = q * w; i < end; i += w) u[i] = v; }
  else if (b - a < 48) { for (let y = p; y < q; y++) for (let i = y * w + a, end = y * w + b; i < end; i++) u[i] = v; }
  else for (let y = p; y < q; y++) u.fill(v, y * w + a, y * w + b);
  perf.prims++;
}
// Device rows [out[o], out[o+1]) of a stroke w px tall centred on yc, as pbRectW rounds them.
const FAST_BANDS = new Int32Array(6);
function pbBand(yc, w, out, o) {
  let p = Math.round((yc - w / 2) * dpr) - PB.y0, q = Math.round((yc + w / 2) * dpr) - PB.y0;
  if (q <= p) q = p + 1; if (p < 0) p = 0; if (q > PB.h) q = PB.h; out[o] = p; out[o + 1] = q;
}
// CSS x0..x1 (at least one device pixel) of device rows [p, q).
function pbSpan(x0, x1, p, q, v) {
  const w = PB.w; let a = Math.round(x0 * dpr) - PB.x0, b = Math.round(x1 * dpr) - PB.x0;
  if (b <= a) b = a + 1; if (a < 0) a = 0; if (b > w) b = w; if (b <= a || q <= p) return;
  pbFill(a, b, p, q, v);
}
// One CSS pixel column [x, x+1) of device rows [p, q).
function pbCol(x, p, q, v) {
  const w = PB.w; let a = Math.round(x * dpr) - PB.x0, b = Math.round((x + 1) * dpr) - PB.x0;
  if (a < 0) a = 0; if (b > w) b = w; if (b <= a || q <= p) return;
  pbFill(a, b, p, q, v);
}
// One CSS pixel column of device rows [p, q) in colour word v mixed over
// what is there with opacity a (0..1).
function pbColMix(x, p, q, v, a) {
  if (a >= 1) return pbCol(x, p, q, v);
  const w = PB.w, u = PB.u32; let xa = Math.round(x * dpr) - PB.x0, xb = Math.round((x + 1) * dpr) - PB.x0;
  if (xa < 0) xa = 0; if (xb > w) xb = w; if (xb <= xa || q <= p) return;
  const k = Math.round(a * 256), r1 = v & 255, g1 = (v >> 8) & 255, b1 = (v >> 16) & 255;
  let lo = -1, lv = 0; // a column is mostly one colour underneath: mix it once
  for (let y = p; y < q; y++) for (let i = y * w + xa, e = y * w + xb; i < e; i++) {
    const o = u[i]; if (o === lo) { u[i] = lv; continue; }
    const r0 = o & 255, g0 = (o >> 8) & 255, b0 = (o >> 16) & 255;
    lo = o; lv = u[i] = (0xFF000000 | ((b0 + (((b1 - b0) * k) >> 8)) << 16) | ((g0 + (((g1 - g0) * k) >> 8)) << 8) | (r0 + (((r1 - r0) * k) >> 8))) >>> 0;
  }
  perf.prims++;
}
// Opacity of an aggregated pixel (3.4) whose spans cover the fraction f of
// its time: the original draws the flushed glyph only as long as the time
// it stands for, so a pixel that is a few microseconds of interrupt in
// milliseconds of idle is a faint line, not a solid column (a mostly idle
// CPU reads as idle at the full view).  The square root keeps a little
// activity visible; a pixel at least half covered is opaque (and cheap:
// no mixing).
let COVER_ON = true; // tests compare the winners' colours with it off (kutrace.setCover)
function coverAlpha(f) { return f >= 0.5 || !COVER_ON ? 1 : Math.max(0.08, Math.sqrt(f)); }
// An aggregated pixel: the idle line where there is idle time, then the
// winner (row-local event e) over it, as opaque as its time covers the pixel.
// A faint one over a span drawn in full (a span a pixel or longer shares
// the pixel) would not show, and is skipped.
function aggCol(x, e, grey, tI, busy, P, FB) {
  const WP = W_PAL[S.btn.cb];
  if (e === EV_IDLE || e === EV_CEXIT) return pbCol(x, FB[0], FB[1], grey ? W_GREY : W_BLACK);
  const a = coverAlpha(busy / P);
  if (a < 1) { const xa = Math.round(x * dpr) - PB.x0, m = (FB[4] + FB[5]) >> 1; if (xa >= 0 && xa < PB.w) { const v = PB.u32[m * PB.w + xa]; if (v !== 0xFFFFFFFF && v !== W_BLACK && !WASH.has(v)) return; } }
  if (tI > 0) pbCol(x, FB[0], FB[1], grey ? W_GREY : W_BLACK);
  if (e > EV_IDLE) pbColMix(x, FB[2], FB[3], grey ? W_GREY : WP[((e * 4) % 17 + 17) % 17], a);
  else { const h = e >> 8; pbColMix(x, FB[4], FB[5], grey ? W_GREY : W_FASTK[h === 4 || h === 6 ? 1 : h === 5 || h === 7 ? 2 : h >= 8 ? 3 : 0], a); }
}
// Run a path-drawing function now, or after the pixel buffer is put.
function later(f) { if (PB.on) PB.later.push(f); else f(); }
const RUN = { c: null, x0: 0, x1: 0, y: 0, h: 0 };
function flushRun() { if (RUN.c !== null) { ctx.fillStyle = RUN.c; ctx.fillRect(RUN.x0, RUN.y, RUN.x1 - RUN.x0, RUN.h); perf.prims++; RUN.c = null; } }
function fr(x0, x1, yc, w, c) {
  if (PB.on) return pbRect(x0, x1, yc - w / 2, yc + w / 2, c);
  if (x1 - x0 < 0.6) x1 = x0 + 0.6;
  const y = yc - w / 2;
  if (RUN.c === c && RUN.y === y && RUN.h === w && x0 <= RUN.x1 + 0.05 && x0 >= RUN.x0) { if (x1 > RUN.x1) RUN.x1 = x1; return; }
  flushRun(); RUN.c = c; RUN.x0 = x0; RUN.x1 = x1; RUN.y = y; RUN.h = w;
}

const W_GREY = rgba(GREY), W_BLACK = rgba('#000000'), W_FASTK = ['#FFFF70', '#FF6060', '#6060FF', '#70FF70'].map(rgba);
const W_PAL = PALS.map(p => p.A.map(rgba));
function drawFast(k, x0, x1, yc, E, grey) { drawFastE(D.ev[k], x0, x1, yc, E, grey); }
function drawFastE(e, x0, x1, yc, E, grey) {
  grey = grey || S.fade;
  if (PB.on) { // straight to the pixel buffer
    let w, v;
    if (e === EV_IDLE || e === EV_CEXIT) { w = Math.max(1, 0.07 * E); v = grey ? W_GREY : W_BLACK; }
    else if (e > EV_IDLE) { w = Math.max(1, 0.38 * E); v = grey ? W_GREY : W_PAL[S.btn.cb][((e * 4) % 17 + 17) % 17]; }
    else { w = Math.max(1, 0.93 * E); const h = e >> 8; v = grey ? W_GREY : W_FASTK[h === 4 || h === 6 ? 1 : h === 5 || h === 7 ? 2 : h >= 8 ? 3 : 0]; }
    return pbRectW(x0, x1, yc - w / 2, yc + w / 2, v);
  }
  if (e === EV_IDLE || e === EV_CEXIT) fr(x0, x1, yc, Math.max(1, 0.07 * E), grey ? GREY : '#000');
  else if (e > EV_IDLE) fr(x0, x1, yc, Math.max(1, 0.38 * E), grey ? GREY : colA(e));
  else fr(x0, x1, yc, Math.max(1, 0.93 * E), grey ? GREY : fastKernelColor(e));
}

function drawSpan(k, x0, x1, yc, E, ipcOK) {
  const e = D.ev[k]; const grey = anyHL && !hlSpan[k], xm = (x0 + x1) / 2, wt = x1 - x0; // the span's true middle and width
  if (!S.legend) { if (x0 < L.left - 20) x0 = L.left - 20; if (x1 > L.right + 20) x1 = L.right + 20; }
  if (E < 7) return drawFast(k, x0, x1, yc, E, grey);
  if (e === EV_IDLE) {
    if (D.arg[k] === 1) { // low-power: dashed 8 on 1 off
      const col = grey ? GREY : '#000';
      later(() => { flushRun(); ctx.strokeStyle = col; ctx.lineWidth = Math.max(1, 0.07 * E); ctx.setLineDash([8, 1]);
        ctx.beginPath(); ctx.moveTo(x0, yc); ctx.lineTo(x1, yc); ctx.stroke(); ctx.setLineDash([]); perf.prims++; });
    } else fr(x0, x1, yc, Math.max(1, 0.105 * E), grey ? GREY : '#000');
    return;
  }
  if (e === EV_CEXIT) {
    const col = grey || S.fade ? GREY : '#C00000';
    later(() => { flushRun(); ctx.strokeStyle = col; ctx.lineWidth = Math.max(1, 0.07 * E); ctx.beginPath();
      const w = x1 - x0, steps = Math.max(4, Math.min(40, Math.round(w / 2)));
      for (let i = 0; i <= steps; i++) { const x = x0 + w * i / steps, y = yc - Math.sin(i / steps * 2 * Math.PI) * E / 4; if (i) ctx.lineTo(x, y); else ctx.moveTo(x, y); }
      ctx.stroke(); perf.prims++; });
    return;
  }
  if (S.fade) { fr(x0, x1, yc, e > EV_IDLE ? 0.38 * E : 0.93 * E, GREY); return; }
  if (e > EV_IDLE) { // user
    fr(x0, x1, yc - 0.075 * E, 0.23 * E, grey ? GREY : colA(e));
    fr(x0, x1, yc + 0.115 * E, 0.15 * E, grey ? GREY : colB(e));
  } else { // kernel
    const h = e >> 8;
    let edge = '#55AA55', bg = '#FFFFE0';
    if (h === 4 || h === 6) { edge = '#FFFFFF'; bg = '#FFC0C0'; } else if (h === 5 || h === 7) { edge = '#000000'; bg = '#C0C0FF'; }
    else if (h >= 8) { edge = '#808080'; bg = '#E0FFE0'; }
    let mid = colB(e), core = colA(e);
    if (isSched(e)) { mid = '#7070A0'; core = '#E0E0E0'; }
    if (e === 0x5FF) mid = pal().B2[((D.arg[k] * 7 + 6) % 15 + 15) % 15];
    if (grey) { if (!(h === 4 || h === 6) && edge !== '#55AA55') edge = GREY; bg = mid = core = GREY; }
    fr(x0, x1, yc, E, edge); fr(x0, x1, yc, 0.93 * E, bg); fr(x0, x1, yc, 0.53 * E, mid); fr(x0, x1, yc, 0.2 * E, core);
  }
  if (S.btn.ipc && ipcOK && !grey && wt >= 4) {
    const want = S.btn.ipc === 3 || (S.btn.ipc === 2 && e < EV_IDLE) || (S.btn.ipc === 1 && e > EV_IDLE);
    if (want) { const v = D.ipc[k], w = x1 - x0; later(() => drawIpcSpan(x0, w, yc, E, v, xm)); }
  }
  if (S.overheadHatch && x1 - x0 > 8) {
    const ov = (D.meta.flags & 0xA0 ? 50e-9 : 20e-9) / (S.t1 - S.t0) * L.pw;
    if (ov >= 8) later(() => { flushRun(); ctx.strokeStyle = '#fff'; ctx.lineWidth = 2; ctx.beginPath();
      for (let i = 0; i < 5; i++) { const x = x0 + ov * i / 5; ctx.moveTo(x, yc + E / 2); ctx.lineTo(x + ov / 5, yc - E / 2); } ctx.stroke(); });
  }
}

// IPC / LLC-miss decoration of one span (docs/spec/VIEWER.md 3.6.11).  flags 0x80:
// 4-bit IPC; 0x20: 4-bit LLC-miss bucket; both: 2 bits each (IPC high).
const LLC_US = [0, 1, 2, 5, 10, 20, 40, 60, 80, 100, 150, 200, 300, 400, 500, 660];
const IPC_TXT = ['0', '0.125', '0.25', '0.375', '0.5', '0.625', '0.75', '0.875', '1.0', '1.25', '1.5', '1.75', '2.0', '2.5', '3.0', '3.5'];
const IPC_FRAC = ['0', '1/8', '1/4', '3/8', '1/2', '5/8', '3/4', '7/8', '1.0', '1.25', '1.5', '1.75', '2.0', '2.5', '3.0', '3.5']; // the legend, as the original
function ipcText(k) { // ' ipc=1.25', ' llc=3' or both, as the trace has them
  const p = ipcParts(D.ipc[k]); let s = '';
  if (p.ipc >= 0) s += ' ipc=' + IPC_TXT[p.ipc]; if (p.llc >= 0) s += ' llc=' + (ipcMode() === 'both' ? D.ipc[k] & 3 : D.ipc[k] & 15);
  return s;
}
function ipcMode() { const f = D.meta.flags & 0xA0; return f === 0xA0 ? 'both' : f === 0x80 ? 'ipc' : f === 0x20 ? 'llc' : ''; }
function ipcParts(v) { // {ipc: 0..15 or -1, llc: 0..15 or -1}
  const m = ipcMode();
  if (m === 'ipc') return { ipc: v & 15, llc: -1 };
  if (m === 'llc') return { ipc: -1, llc: v & 15 };
  if (m === 'both') return { ipc: ((v >> 2) & 3) * 4 + 1, llc: (v & 3) * 5 };
  return { ipc: -1, llc: -1 };
}
// The needle is 0.67 E from its pivot to its tip (drawIpc's size is the
// diameter), at the span's middle even when the span runs off screen (xm).
function drawIpcSpan(x0, w, yc, E, v, xm) {
  const p = ipcParts(v), x = xm === undefined ? x0 + w / 2 : xm;
  if (p.ipc >= 0) drawIpc(x, yc, 2 * 0.67 * E, p.ipc);
  if (p.llc >= 0) {
    drawIpc(x + (p.ipc >= 0 ? 0.8 * E : 0), yc, 0.75 * 2 * 0.67 * E, p.llc, '#FFC080');
    const len = LLC_US[p.llc] * 1e-6 / (S.t1 - S.t0) * L.pw; // estimated memory time
    if (len >= 1) { ctx.strokeStyle = len > w ? '#FF4060' : '#FF8000'; ctx.lineWidth = 2; ctx.beginPath(); ctx.moveTo(x0, yc + E / 2 - 1); ctx.lineTo(x0 + Math.min(len, w + 40), yc + E / 2 - 1); ctx.stroke(); }
  }
}
function drawIpcLegend() { // region 4: IPC, LLC or IPC + Miss values
  const m = ipcMode(), x = L.right + 14; ctx.font = '12px sans-serif'; ctx.textBaseline = 'middle'; ctx.textAlign = 'left';
  const ent = [];
  if (m === 'ipc') { ent.push(['IPC']); for (let v = 0; v < 16; v++) ent.push([IPC_FRAC[v], v]); }
  else if (m === 'llc') { ent.push(['LLC']); for (let v = 0; v < 16; v++) ent.push([LLC_US[v] + 'u', v, '#FFC080']); }
  else { ent.push(['IPC']); for (const v of [1, 5, 9, 13]) ent.push([IPC_FRAC[v], v]); ent.push(['Miss']); for (const v of [0, 5, 10, 15]) ent.push([LLC_US[v] + 'u', v, '#FFC080']); }
  const step = Math.min(24, (L.ph - 20) / ent.length); let y = L.top + 10;
  for (const [t, v, fill] of ent) {
    if (v === undefined) { ctx.fillStyle = '#000'; ctx.fillText(t, x - 8, y); } else { drawIpc(x, y, 22, v, fill); ctx.fillStyle = '#000'; ctx.fillText(t, x + 14, y); }
    y += step;
  }
  L.ipcLegend = ent.map(e => e[0]);
}
function drawIpc(x, yc, size, v, fill) {
  flushRun();
  const ang = Math.PI - v * Math.PI / 16, r = size / 2;
  ctx.beginPath(); ctx.moveTo(x + Math.cos(ang) * r, yc - Math.sin(ang) * r);
  ctx.lineTo(x + Math.cos(ang + 2.6) * r * 0.4, yc - Math.sin(ang + 2.6) * r * 0.4);
  if (v & 1) ctx.lineTo(x, yc); // odd values get a notch
  ctx.lineTo(x + Math.cos(ang - 2.6) * r * 0.4, yc - Math.sin(ang - 2.6) * r * 0.4); ctx.closePath();
  ctx.fillStyle = fill || '#fff'; ctx.fill(); ctx.strokeStyle = (v >> 2) < 1 ? '#555555' : (v >> 2) < 3 ? '#0000FF' : '#AA0000'; ctx.lineWidth = 1; ctx.stroke();
  perf.prims++; perf.tri++; if (perf.triPos.length < 1000) perf.triPos.push([x, size, v]);
}

// Execution spans of one row, at most one aggregated glyph per pixel
// (docs/spec/VIEWER.md 3.4): spans shorter than a pixel are summed per pixel (idle,
// 10 x user, 10 x kernel) and the winner's colour is drawn; whole blocks of
// BLK entries that fall inside the pixel are added from their summaries.
function drawExec(r, g) {
  if (SUM.draw && PB.on && SUM.draw(r, g, (S.t1 - S.t0) / L.pw)) return; // CPU, PID and RPC rows from the summaries (lod.js)
  const n = r.ex.length; if (!n) return;
  const rts = r.ts, rdu = r.du, rev = r.ev, list = r.ex, t0 = S.t0, t1 = S.t1;
  const P = (t1 - t0) / L.pw, E = g.E, yc = g.yc;
  // Rows under 7 px draw fast glyphs only: an aggregated pixel is one
  // column of the idle, user or kernel band, written straight into the
  // pixel buffer (device rows of the three bands worked out once).
  const fast = E < 7 && PB.on, FB = FAST_BANDS;
  if (PB.on) { pbBand(yc, Math.max(1, 0.07 * E), FB, 0); pbBand(yc, Math.max(1, 0.38 * E), FB, 2); pbBand(yc, Math.max(1, 0.93 * E), FB, 4); }
  const WP = W_PAL[S.btn.cb], fade = S.fade;
  // The first draw after loading walks the spans (no bins, no blocks: they
  // take longer to build than the walk takes); the background build makes both.
  if (LOD_ON && P >= 2e-6 && n >= 256 && PB.on && (r.lod !== undefined || !S.firstDraw)) { const lod = rowLod(r); if (lod && P >= LOD_SUB * lod.q0) { perf.lodDrawn++; return drawExecLod(r, g, lod, P); } }
  if (!r.blk && !S.firstDraw) rowArrays(r);
  const blk = !!r.blk, B1 = blk ? r.blk[0] : null, B2 = blk ? r.blk[1] : null;
  let i = firstAbove(r.exEnd, t0);
  while (i < n) {
    const s = rts[i]; if (s >= t1) break;
    const d = rdu[i];
    if (s + d <= t0) { i++; continue; }
    if (d >= P) { // a pixel or more: in full (fast rows: one band, from the row-local event)
      if (fast) { const e = rev[i], g2 = fade || (anyHL && !hlSpan[list[i]]), x0 = Math.max(xOf(s), L.left - 20), x1 = Math.min(xOf(s + d), L.right + 20);
        if (e === EV_IDLE || e === EV_CEXIT) pbSpan(x0, x1, FB[0], FB[1], g2 ? W_GREY : W_BLACK);
        else if (e > EV_IDLE) pbSpan(x0, x1, FB[2], FB[3], g2 ? W_GREY : WP[((e * 4) % 17 + 17) % 17]);
        else { const h = e >> 8; pbSpan(x0, x1, FB[4], FB[5], g2 ? W_GREY : W_FASTK[h === 4 || h === 6 ? 1 : h === 5 || h === 7 ? 2 : h >= 8 ? 3 : 0]); }
      } else drawSpan(list[i], xOf(s), xOf(s + d), yc, E, true);
      i++; continue;
    }
    const px = Math.floor((Math.max(s, t0) - t0) / P); const b = t0 + (px + 1) * P;
    let tI = 0, tU = 0, tK = 0, lU = -1, lK = -1, lI = -1, j = i;
    while (j < n) {
      if (blk && (j & (BLK - 1)) === 0 && j + BLK <= n && rts[j + BLK - 1] < b) {
        let B = B1, sh = BLK_SH;
        if ((j & (BLK2 - 1)) === 0 && j + BLK2 <= n && rts[j + BLK2 - 1] < b && B2.M[j >> BLK_SH2] < P) { B = B2; sh = BLK_SH2; }
        const q = j >> sh;
        if (B.M[q] < P) { tI += B.I[q]; tU += B.U[q]; tK += B.K[q]; if (B.LU[q] >= 0) lU = B.LU[q]; if (B.LK[q] >= 0) lK = B.LK[q]; if (B.I[q] > 0) lI = -2; j += 1 << sh; continue; }
      }
      if (rts[j] >= b) break;
      const dd = rdu[j]; if (dd >= P && j > i) break;
      const e = rev[j];
      if (e === EV_IDLE || e === EV_CEXIT) { tI += dd; lI = j; } else if (e > EV_IDLE) { tU += dd; lU = j; } else { tK += dd; lK = j; }
      j++;
    }
    const busy = tU + tK; tU *= 10; tK *= 10;
    let pick;
    if (tU >= tI && tU >= tK && lU >= 0) pick = lU; else if (tK > tU && tK >= tI && lK >= 0) pick = lK; else pick = -1;
    const x = L.left + px;
    if (pick < 0) pick = lI >= 0 ? lI : idleIn(rev, i, j);
    const e = rev[pick], grey = fade || (anyHL && !hlSpan[list[pick]]);
    if (PB.on) aggCol(x, e, grey, tI, busy, P, FB); else drawFastE(e, x, x + 1, yc, E, grey);
    i = j;
  }
}
let LOD_COLS = new Int32Array(2 * 4096); // scratch: pixel, pick
let LOD_COV = new Float32Array(4096), LOD_IDL = new Uint8Array(4096); // scratch: busy share of the pixel, any idle
// The bins used are a quarter to an eighth of a pixel wide, so that a bin
// straddling a pixel boundary moves little time into the wrong pixel; a
// row whose finest bins are wider than that is walked span by span (then
// at most about 16 spans per pixel on average).
let LOD_ON = true, LOD_SUB = 4; // tests compare with the exact walk (kutrace.setLod)
// Pass 1 of drawExecLod: per pixel of bins j..jEnd-1 of level lv
// (lodCumulate's) the winner of its bins (3.4), into cols (pixel, then a
// row-local span index, -2 idle) with its coverage and idle flag; pixels
// with nothing are left out.  Returns the number of entries in cols.  A
// bin belongs to pixel pxOf(its number).  Rather than a division for
// every bin (several a pixel), where the next pixel starts is computed
// once a pixel, as a bin number (bnd); rounding may move the true
// boundary by eps bins at most (a few ulps of the largest magnitude in
// either expression), so only a bin within eps of it is placed by pxOf
// itself, and the pixels are exactly pxOf's (tests/browser/pixels.test.js).
function lodPixels(lv, j, jEnd, O, t0, P, cols, cov, idl) {
  if (j >= jEnd) return 0;
  const q = lv.q, base = lv.base, J = lv.J, I = lv.I, U = lv.U, K = lv.K, LU = lv.LU, LK = lv.LK;
  const pxOf = b => Math.floor((O + (base + b) * q - t0) / P), invq = 1 / q, bnd = p => (p * P + t0 - O) * invq - base;
  const bmax = Math.abs((base + J[jEnd - 1] + 1) * q);
  const epsq = 4 * (3 * Math.abs(O) + 2 * Math.abs(t0) + 2 * bmax) / q + Math.abs(base) + 1, EPS = 8.881784197001252e-16; // 2^-50
  let nc = 0, px = pxOf(J[j]); if (px < 0) px = 0;
  let e = bnd(px + 1);
  // the running values before the pixel's first bin
  let pI = 0, pU = 0, pK = 0, pLU = -1, pLK = -1;
  if (j) { pI = I[j - 1]; pU = U[j - 1]; pK = K[j - 1]; pLU = LU[j - 1]; pLK = LK[j - 1]; }
  for (;;) {
    const eps = EPS * (epsq + Math.abs(e)), lo = e - eps, hi = e + eps;
    for (j++; j < jEnd; j++) { const b = J[j]; if (b >= lo && (b > hi || pxOf(b) > px)) break; }
    const cI = I[j - 1], cU = U[j - 1], cK = K[j - 1], cLU = LU[j - 1], cLK = LK[j - 1];
    // times in whole ns: sums and ties exact
    let tI = cI - pI, tU = cU - pU, tK = cK - pK; const lU = cLU !== pLU ? cLU : -1, lK = cLK !== pLK ? cLK : -1;
    pI = cI; pU = cU; pK = cK; pLU = cLU; pLK = cLK;
    const busy = tU + tK; tU *= 10; tK *= 10; let pick;
    if (tU >= tI && tU >= tK && lU >= 0) pick = lU; else if (tK > tU && tK >= tI && lK >= 0) pick = lK; else pick = tI > 0 ? -2 : -1;
    if (pick !== -1) { cov[nc >> 1] = busy * 1e-9 / P; idl[nc >> 1] = tI > 0 ? 1 : 0; cols[nc++] = px; cols[nc++] = pick; }
    if (j >= jEnd) return nc;
    // the next bin is past px: in px + 1 when before the boundary after it
    const b = J[j], e2 = bnd(px + 2), eps2 = EPS * (epsq + Math.abs(e2));
    if (b < e2 - eps2 || (b <= e2 + eps2 && pxOf(b) <= px + 1)) { px++; e = e2; } else { px = pxOf(b); e = bnd(px + 1); }
  }
}
function drawExecLod(r, g, lod, P) {
  const t0 = S.t0, t1 = S.t1, O = D.t0, E = g.E, yc = g.yc, list = r.ex, rev = r.ev, rts = r.ts, rdu = r.du;
  let l = Math.floor(Math.log2(P / lod.q0 / LOD_SUB) + 1e-9); if (l < 0) l = 0; if (l >= lod.levels.length) l = lod.levels.length - 1;
  const lv = lod.levels[l], q = lv.q, base = lv.base, J = lv.J, nb = J.length;
  // aggregated pixels are fast glyphs (3.4) at any row height: columns of the idle, user or kernel band
  const FB = FAST_BANDS, WP = W_PAL[S.btn.cb], fade = S.fade;
  pbBand(yc, Math.max(1, 0.07 * E), FB, 0); pbBand(yc, Math.max(1, 0.38 * E), FB, 2); pbBand(yc, Math.max(1, 0.93 * E), FB, 4);
  let j = firstAtLeast(J, 0, nb, Math.floor((t0 - O) / q) - base); const jEnd = firstAtLeast(J, j, nb, Math.floor((t1 - O) / q) - base + 1);
  const idleHL = r.hl || S.hlEv.includes(EV_IDLE) || S.hlEv.includes(EV_CEXIT); // idle (pid 0) is on CPU rows only
  if (LOD_COLS.length < 2 * (L.pw + 8)) LOD_COLS = new Int32Array(2 * (L.pw + 8));
  if (LOD_COV.length < L.pw + 8) { LOD_COV = new Float32Array(L.pw + 8); LOD_IDL = new Uint8Array(L.pw + 8); }
  const cols = LOD_COLS, cov = LOD_COV, idl = LOD_IDL, B = L.left;
  const nc = lodPixels(lv, j, jEnd, O, t0, P, cols, cov, idl);
  // pass 2: the columns (device pixel columns written directly at dpr 1).
  // The band and colour of the last event are kept: a thread's row is
  // mostly one user event, and the palette's index costs two divisions.
  const u = PB.u32, W = PB.w, ax = B - PB.x0, one = dpr === 1 && Number.isInteger(ax);
  let ce = NaN, cb = 0, cc = 0;
  for (let c = 0; c < nc; c += 2) {
    const pick = cols[c + 1], e = pick >= 0 ? rev[pick] : EV_IDLE, grey = fade || (anyHL && (pick >= 0 ? !hlSpan[list[pick]] : !idleHL));
    if (e !== ce) {
      ce = e;
      if (e === EV_IDLE || e === EV_CEXIT) { cb = 0; cc = W_BLACK; }
      else if (e > EV_IDLE) { cb = 2; cc = WP[((e * 4) % 17 + 17) % 17]; }
      else { const h = e >> 8; cb = 4; cc = W_FASTK[h === 4 || h === 6 ? 1 : h === 5 || h === 7 ? 2 : h >= 8 ? 3 : 0]; }
    }
    const p = FB[cb], q = FB[cb + 1], v = grey ? W_GREY : cc, a = ax + cols[c];
    if (cb && cov[c >> 1] < 0.5 && COVER_ON) { aggCol(B + cols[c], e, grey, idl[c >> 1], cov[c >> 1] * P, P, FB); continue; } // partly covered: mixed
    if (one && a >= 0 && a < W) { for (let i = p * W + a, end = q * W; i < end; i += W) u[i] = v; perf.prims++; } else pbCol(B + cols[c], p, q, v);
  }
  // spans a pixel or longer, in full
  const lidx = lod.lidx, lend = lod.lend;
  for (let Lv = Math.max(0, Math.floor(Math.log2(P * 1e9)) - 1); Lv <= 40; Lv++) {
    const a = lidx[Lv]; if (!a) continue;
    const n = a.length;
    for (let i = firstAbove(lend[Lv], t0); i < n; i++) {
      const x = a[i], s = rts[x]; if (s >= t1) break;
      const d = rdu[x]; if (d < P || s + d <= t0) continue;
      drawSpan(list[x], xOf(s), xOf(s + d), yc, E, true);
    }
  }
}
// an idle span (row-local index) between i and j, else the last one
function idleIn(rev, i, j) { for (let q = j - 1; q >= i; q--) { const e = rev[q]; if (e === EV_IDLE || e === EV_CEXIT) return q; } return j - 1; }

function morse(x1, y, w, letter, color, E) {
  const code = MORSE[letter] || '', cw = MORSE_W[letter] || 9;
  let nch = Math.max(0, Math.min(3, Math.floor(w / cw - 0.5)));
  let x = x1;
  for (let c = 0; c < nch; c++) {
    x -= 9;
    for (let i = code.length - 1; i >= 0; i--) { const l = code[i] === '.' ? 3 : 9; x -= l; rectFill(x, y - 0.075 * E, l, 0.15 * E, color); x -= 3; }
  }
  return x;
}
const MORSE_W = MORSE.map(c => c.split('').reduce((a, x) => a + (x === '.' ? 6 : 12), 0) + 9);
function rectFill(x, y, w, h, c) { if (PB.on) pbRect(x, x + w, y, y + h, c); else { ctx.fillStyle = c; ctx.fillRect(x, y, w, h); } }

// Overlays of one row (docs/spec/VIEWER.md 3.6): pass 1 the rectangles into the pixel
// buffer (waits, specials), pass 2 the path-drawn ones and packets/messages.
const LOCKS = [];
function drawOverlays(r, g, pass) {
  const t0 = S.t0, t1 = S.t1, P = (t1 - t0) / L.pw;
  if (pass === 1) {
    if (r.ovW && g.E >= 7) drawWaits(r.ovW, g, P); // squeezed rows (E < 7) hide waits and queue lines, as the original
    if (r.ovX) visitLevels(r.ovX, P, r, g, false);
    return;
  }
  if (r.ovL) visitLevels(r.ovL, 0, r, g, true); // every loss, however short: never a silent hole
  if (r.ovS && S.btn.samp) visitLevels(r.ovS, P, r, g, false);
  if (r.ovQ && g.E >= 7) visitLevels(r.ovQ, P, r, g, false);
  if (r.ovK && S.btn.lock) { // stacked in time order: a lock line goes above the ones still held
    LOCKS.length = 0; visitLevels(r.ovK, P * 8, r, g, false, LOCKS);
    if (LOCKS.length) {
      LOCKS.sort((a, b) => a - b); const ends = [], ts = D.ts, dur = D.dur;
      for (const k of LOCKS) { const s = ts[k]; let lvl = 0; for (let j = 0; j < ends.length; j++) if (ends[j] > s) ends[lvl++] = ends[j]; ends.length = lvl; if (drawOverlay(k, r, g, P, lvl)) ends.push(s + dur[k]); }
    }
  }
  if (r.ovPt.length) { // RPC messages reach up to 9 ms before their event (rx)
    const list = r.ovPt, n = list.length, ts = D.ts;
    for (let i = firstTsAtLeast(list, 0, n, t0 - 0.01); i < n && ts[list[i]] < t1; i++) drawOverlay(list[i], r, g, P, 0);
  }
}
// Draw (or collect into out) the spans of a level set that overlap the
// window and can last minDur or more (all of them if every).
function visitLevels(set, minDur, r, g, every, out) {
  const t0 = S.t0, t1 = S.t1, P = (t1 - t0) / L.pw;
  for (let lv = 0; lv <= 40; lv++) {
    const lo = set.off[lv], n = set.off[lv + 1]; if (lo === n || (!every && Math.pow(2, lv + 1) * 1e-9 < minDur)) continue;
    const a = set.idx, lt = set.ts;
    for (let i = firstAboveIn(set.end, lo, n, t0); i < n && lt[i] < t1; i++) { if (out) out.push(a[i]); else drawOverlay(a[i], r, g, P, 0); }
  }
}
// Waits (3.6.1): a thin line E/4 above the centre, up to three Morse
// characters of the letter at its right end; 2 px or more.
const WAIT_W = []; for (let l = 0; l < 32; l++) WAIT_W.push(rgba(WAIT_COLOR[l] || '#808080'));
function drawWaits(set, g, P) {
  const t0 = S.t0, t1 = S.t1, E = g.E, y = g.yc - E / 4;
  const lh = Math.max(1, 0.075 * E), ly0 = y - lh / 2, ly1 = y + lh / 2, xl = L.left - 5, xr = L.right + 5;
  const greyAll = S.fade, sx = L.pw / (t1 - t0), W = PB.w, u = PB.u32;
  // the line's device rows, as pbRectW rounds them
  let p = Math.round(ly0 * dpr) - PB.y0, q = Math.round(ly1 * dpr) - PB.y0; if (q <= p) q = p + 1; if (p < 0) p = 0; if (q > PB.h) q = PB.h;
  for (let lv = 0; lv <= 40; lv++) {
    const lo = set.off[lv], n = set.off[lv + 1]; if (lo === n || Math.pow(2, lv + 1) * 1e-9 < 2 * P) continue;
    const a = set.idx, lt = set.ts, ld = set.du, le = set.ev;
    for (let i = firstAboveIn(set.end, lo, n, t0); i < n && lt[i] < t1; i++) {
      const s = lt[i], d = ld[i]; if (d < 2 * P || s + d <= t0) continue;
      const letter = le[i] - EV_WAIT, grey = greyAll || (anyHL && !hlSpan[a[i]]);
      // the Morse letters at the wait's real end, off screen when it ends there
      const xs = L.left + (s - t0) * sx, xe = xs + d * sx;
      let x0 = xs, x1 = xe; if (x0 < xl) x0 = xl; if (x1 > xr) x1 = xr;
      let xm = x1;
      if (xe - xs >= 1.5 * (MORSE_W[letter] || 9)) { const cw = 3 * (MORSE_W[letter] || 9) + 27; xm = xe - cw > xr ? x1 : Math.min(x1, morse(xe, y, xe - xs, letter, grey ? GREY : (WAIT_COLOR[letter] || '#808080'), E)); }
      if (xm <= x0 || q <= p) continue;
      let xa = Math.round(x0 * dpr) - PB.x0, xb = Math.round(xm * dpr) - PB.x0; if (xb <= xa) xb = xa + 1; if (xa < 0) xa = 0; if (xb > W) xb = W;
      const v = grey ? W_GREY : WAIT_W[letter]; perf.waits++;
      for (let y = p; y < q; y++) for (let o = y * W + xa, e = y * W + xb; o < e; o++) u[o] = v;
      perf.prims++;
    }
  }
}
// CPU frequency (3.6.3): a wash as tall as E under the spans, which keep
// their exact palette colours (drawn first into the pixel buffer; the
// translucent colour is mixed with the white background beforehand).
const FREQ_W = [[0.5, '#E00000'], [0.4, '#E0C000'], [0.3, '#E0C000'], [0.2, '#E0C000'], [0.05, '#00C000']].map(([a, c]) => [0, 0.1].map(b => wash(c, a + b)));
function wash(c, a) { const v = parseInt(c.slice(1), 16), m = x => Math.round(255 * (1 - a) + x * a);
  return rgba('#' + [m(v >> 16), m((v >> 8) & 255), m(v & 255)].map(x => x.toString(16).padStart(2, '0')).join('')); }
const WASH = new Set(FREQ_W.flat());
function freqBucket(f) { const step = Math.max(1, Math.floor((D.fmax - D.fmin) / 8)), bk = Math.floor((f - D.fmin) / step); return bk <= 0 ? 0 : bk <= 2 ? 1 : bk <= 4 ? 2 : bk <= 6 ? 3 : 4; }
function drawFreq(r, g) {
  const set = r.ovF, t0 = S.t0, t1 = S.t1, P = (t1 - t0) / L.pw, bold = S.btn.freq === 1 ? 1 : 0, arg = D.arg;
  const y0 = g.yc - g.E / 2, y1 = g.yc + g.E / 2, xl = L.left - 5, xr = L.right + 5;
  for (let lv = 0; lv <= 40; lv++) {
    const lo = set.off[lv], n = set.off[lv + 1]; if (lo === n || (!bold && Math.pow(2, lv + 1) * 1e-9 < 2 * P)) continue; // bold Freq draws every band
    const a = set.idx, lt = set.ts, ld = set.du;
    for (let i = firstAboveIn(set.end, lo, n, t0); i < n && lt[i] < t1; i++) {
      const s = lt[i], d = ld[i]; if ((!bold && d < 2 * P) || s + d <= t0) continue;
      pbRectW(Math.max(xOf(s), xl), Math.min(xOf(s + d), xr), y0, y1, FREQ_W[freqBucket(arg[a[i]])][bold]);
    }
  }
}
// One overlay span; lvl = stacking level of a lock line.  Returns true if drawn.
function drawOverlay(k, r, g, P, lvl) {
  const ts = D.ts, dur = D.dur, ev = D.ev, arg = D.arg, t0 = S.t0, E = g.E, yc = g.yc;
  const s = ts[k], e = ev[k], d = dur[k]; if (s + d <= t0 && e !== EV_RPCTX && e !== EV_RPCRX) return false;
  const w = d / P;
  const grey = anyHL && !hlSpan[k];
  const x0 = Math.max(xOf(s), L.left - 5), x1 = Math.min(xOf(s + d), L.right + 5);
  if (e === EV_PCU || e === EV_PCK) {
    if (!S.btn.samp || w < 2 || grey) return false;
    if (S.btn.samp === 2 && D.pid[k] === 0) return false; if (S.btn.samp === 1 && D.pid[k] !== 0) return false;
    const y = yc - 0.55 * E;
    ctx.strokeStyle = pal().B2[(arg[k] * 7 + 6) % 15]; ctx.lineWidth = Math.max(1, 0.075 * E);
    ctx.beginPath(); ctx.moveTo(x0, y - 1); ctx.lineTo(x1, y - 6); ctx.stroke();
    if (x1 - x0 >= 15) { ctx.strokeStyle = pal().A2[(arg[k] * 5) % 17]; ctx.setLineDash(e === EV_PCK ? [8, 8] : [5, 10]);
      ctx.lineWidth *= e === EV_PCK ? 2 : 1; ctx.beginPath(); ctx.moveTo(x0, y - 1); ctx.lineTo(x1, y - 6); ctx.stroke(); ctx.setLineDash([]); }
    ctx.strokeStyle = '#000'; ctx.lineWidth = 1; ctx.beginPath(); ctx.moveTo(x1 - 3, y - 9); ctx.lineTo(x1, y - 6); ctx.lineTo(x1 + 3, y - 9); ctx.stroke(); perf.prims++;
  } else if (e === EV_LOCKHELD || e === EV_LOCKTRY) {
    if (!S.btn.lock || w < 8 || grey) return false;
    const lw = Math.max(1, 0.075 * E) * (S.btn.lock === 1 && e === EV_LOCKHELD ? 1.5 : 1);
    const y = yc - 0.55 * E - lvl * 1.5 * lw;
    ctx.strokeStyle = PAL_B[(arg[k] * 7 + 6) % 15]; ctx.lineWidth = lw; ctx.setLineDash(e === EV_LOCKTRY ? [3, 3] : []);
    ctx.beginPath(); ctx.moveTo(x0, y); ctx.lineTo(x1, y); ctx.stroke(); ctx.setLineDash([]);
    ctx.beginPath(); ctx.arc(x0 + 3, y, 3, Math.PI * 0.6, Math.PI * 1.4); ctx.moveTo(x1 - 3 + 3 * Math.cos(-0.4 * Math.PI), y + 3 * Math.sin(-0.4 * Math.PI)); ctx.arc(x1 - 3, y, 3, -0.4 * Math.PI, 0.4 * Math.PI); ctx.stroke(); perf.prims++;
  } else if (e === EV_RPCRX || e === EV_RPCTX) {
    if (grey) return false; drawMessage(k);
  } else if (e === EV_RXPKT || e === EV_TXPKT) {
    const x = xOf(s); if (x < L.left || x > L.right) return false;
    ctx.strokeStyle = '#000'; ctx.lineWidth = 1; ctx.beginPath();
    // staggered like a check mark: rx's back slash ends low at x, tx's slash starts there, higher up
    if (e === EV_RXPKT) { ctx.moveTo(x - 4, L.top + 13); ctx.lineTo(x, L.top + 21); } else { ctx.moveTo(x, L.top + 13); ctx.lineTo(x + 4, L.top + 5); }
    ctx.stroke();
  } else if (e === EV_ENQ) {
    if (w < 2) return false; perf.queues++; ctx.strokeStyle = grey ? GREY : PAL_B[(arg[k] * 7 + 6) % 15]; ctx.lineWidth = Math.max(1, 0.19 * E);
    ctx.setLineDash([3, 5]); ctx.beginPath(); ctx.moveTo(x0, yc - E / 4); ctx.lineTo(x1, yc - E / 4); ctx.stroke(); ctx.setLineDash([]);
  } else if (e === EV_LOST) {
    drawLost(Math.max(xOf(s), L.left), Math.min(xOf(s + d), L.right), yc, E, grey);
  } else if (e >= 0x200 && e < 0x240) {
    if (w < 1) return false;
    fr(x0, x1, yc - E / 3, E, grey ? GREY : colA(e));
  }
  return true;
}
// Entries lost on a CPU (docs/spec/FORMATS.md 10.4): the whole band of the
// row grey, hatched, at least 2 px wide, "lost" written in it where it
// fits.  Nothing is known of the CPU there: not idle (a thin black line),
// not a span, and not blank like a time before the trace.
const LOST_BG = '#C8C8C8', LOST_HATCH = '#707070';
function drawLost(x0, x1, yc, E, grey) {
  flushRun();
  if (x1 < x0 + 2) { x0 = Math.round((x0 + x1) / 2) - 1; x1 = x0 + 2; }
  const h = Math.max(3, E), y0 = yc - h / 2;
  ctx.fillStyle = grey ? GREY : LOST_BG; ctx.fillRect(x0, y0, x1 - x0, h);
  if (!grey) {
    ctx.save(); ctx.beginPath(); ctx.rect(x0, y0, x1 - x0, h); ctx.clip();
    ctx.strokeStyle = LOST_HATCH; ctx.lineWidth = 1; ctx.beginPath();
    for (let x = x0 - h; x < x1; x += 6) { ctx.moveTo(x, y0 + h); ctx.lineTo(x + h, y0); }
    ctx.stroke(); ctx.restore();
  }
  if (x1 - x0 >= 40 && E >= 9) {
    ctx.save(); ctx.font = Math.min(12, Math.round(E * 0.8)) + 'px sans-serif'; ctx.textAlign = 'center'; ctx.textBaseline = 'middle';
    const tw = ctx.measureText('lost').width + 6, th = Math.min(14, h - 2), xm = (x0 + x1) / 2;
    ctx.fillStyle = '#FFFFFF'; ctx.fillRect(xm - tw / 2, yc - th / 2, tw, th);
    ctx.fillStyle = '#000000'; ctx.fillText('lost', xm, yc); ctx.restore();
  }
  perf.prims++;
}

function b40(v) { let s = ''; v = v >>> 0; while (v > 0 && s.length < 6) { s += B40[v % 40]; v = Math.floor(v / 40); } return s; }
function markText(k) { const e = D.ev[k]; if (e === EV_MARKD) return String(D.arg[k]);
  const nm = D.names[D.nm[k]]; const eq = nm.indexOf('='); return eq >= 0 ? nm.slice(eq + 1) : b40(D.arg[k]); }

// Marks of a row, per text line: after a box is drawn, jump past the marks
// whose box would overlap it (binary search), so dense marks cost
// O(boxes drawn x log n).
// Level of detail: a row too low for a line of text (txt 0, e.g. the
// squeezed rows of an open PID group) gets no boxes, whose text would
// cover the rows below; each mark is a 1 px tick across its event band in
// the mark's colour, at most one per pixel and kind (pixel buffer, pass 1).
const MARK_COL = ['#FF0000', '#0000FF', '#008000', '#000000'], MARK_W = MARK_COL.map(rgba);
function markTicks(r, g) {
  const m = S.btn.mark; if (!m) return;
  const y0 = g.yc - g.E / 2 - 1, y1 = g.yc + g.E / 2 + 1, t1 = S.t1;
  for (let j = 0; j < 2; j++) {
    const list = r.mk[j], lts = r.mkTs[j], lty = r.mkT[j], n = list.length; if (!n) continue;
    let i = firstAtLeast(lts, 0, n, S.t0);
    while (i < n && lts[i] < t1) {
      const t = lty[i];
      if ((anyHL && !hlSpan[list[i]]) || (m === 2 && (t === 1 || t === 3)) || (m === 1 && (t === 0 || t === 2))) { i++; continue; }
      const x = Math.floor(xOf(lts[i])); pbRectW(x, x + 1, y0, y1, MARK_W[t]); perf.ticks++;
      const tb = tOf(x + 1); let k = i + 1; // the next pixel: a few steps, else a binary search
      while (k < n && k < i + 8 && lts[k] < tb) k++;
      i = k < n && lts[k] < tb ? firstAtLeast(lts, k, n, tb) : k;
    }
  }
}
// Marks with text (3.6.8).  Of each type (a, b, c, d, closing '/' text
// its own type) one mark per 3 px per row is kept, the first; every kept
// mark is drawn.  Boxes that would collide are laid out: each goes on the
// first text line (mark_a, c, d from the first, mark_b from the second)
// where it overlaps no box, else with its text shortened, else as a bare
// marker (its line and a small box in its colour, the text on hover).
// mark_a, b and c are placed before mark_d, so the numbers give way.
// Occupancy per text line is a bitmap of the plot's pixel columns.
const MK_OCC = { w: 0, lines: [] }, MK_PAD = 256;
function mkFree(occ, a, b) { // the ends and the middle first: in dense views most tries fail there
  a = Math.max(0, Math.floor(a) + MK_PAD - Math.round(L.left)); b = Math.min(occ.length, Math.ceil(b) + MK_PAD - Math.round(L.left));
  if (b <= a) return true; if (occ[a] || occ[b - 1] || occ[(a + b) >> 1]) return false;
  for (let i = a; i < b; i++) if (occ[i]) return false; return true;
}
function mkTake(occ, a, b) { a = Math.max(0, Math.floor(a) + MK_PAD - Math.round(L.left)); b = Math.min(occ.length, Math.ceil(b) + MK_PAD - Math.round(L.left)); occ.fill(1, a, b); }
// Pass 1 (pixel buffer): the layout, each mark's line and the bare
// markers (dense views have thousands); pass 2 (drawMarks): the boxes.
// The kept marks of the types of a pass come in x order by merging the
// per-type lists (each already in time order); the result goes into the
// row's flat arrays r.mkP (no allocation per mark).
function mkPlaced(r, n) {
  let P = r.mkP;
  if (!P || P.cap < n) { const c = Math.max(64, n * 2); P = r.mkP = { cap: c, n: 0, x: new Int32Array(c), k: new Int32Array(c), t: new Uint8Array(c), lv: new Uint8Array(c), a: new Float32Array(c), b: new Float32Array(c), w: new Float32Array(c), s: new Array(c), y0: 0, font: 12, yc: 0, E: 0 }; }
  return P;
}
const MK_CUR = new Int32Array(8), MK_X = new Int32Array(8); // per type: the next candidate and its x
// The next candidate of type key from index i on (grey ones skipped): its x in MK_X, or -1.
function mkNext(K, key, i, t1) {
  const a = K[key], n = a.idx.length;
  while (i < n && a.ts[i] < t1) { if (!anyHL || hlSpan[a.idx[i]]) { MK_X[key] = Math.round(xOf(a.ts[i])); return i; } i++; }
  return -1;
}
function markLayout(r, g) {
  if (r.mkP) r.mkP.n = 0;
  const m = S.btn.mark; if (!m || !g.txt) return;
  const t0 = S.t0, t1 = S.t1, K = r.mkK;
  let total = 0;
  for (let key = 0; key < 8; key++) {
    const t = key >> 1, a = K[key];
    MK_CUR[key] = (m === 2 && (t === 1 || t === 3)) || (m === 1 && (t === 0 || t === 2)) || !a.idx.length ? -1 : firstAtLeast(a.ts, 0, a.idx.length, t0);
    if (MK_CUR[key] >= 0) { total += a.idx.length - MK_CUR[key]; MK_CUR[key] = mkNext(K, key, MK_CUR[key], t1); }
  }
  if (!total) return;
  const font = Math.min(g.font, 18), nl = Math.max(2, g.txt - 1), W = Math.round(L.pw) + 2 * MK_PAD, dw = textWidth('0', font); // mark_d is digits, all one width in sans-serif fonts
  if (MK_OCC.w !== W || MK_OCC.lines.length < nl) { MK_OCC.w = W; MK_OCC.lines = []; for (let i = 0; i < Math.max(nl, 4); i++) MK_OCC.lines.push(new Uint8Array(W)); }
  for (let i = 0; i < nl; i++) MK_OCC.lines[i].fill(0);
  const P = mkPlaced(r, Math.min(total, 8 * (L.pw + 8))); P.font = font; P.yc = g.yc; P.E = g.E; P.y0 = g.yc + g.E / 2;
  const xl = L.left - 2, xr = L.right + 2;
  for (let pass = 0; pass < 2; pass++) { // mark_a, b, c (keys 0..5), then mark_d (6, 7)
    const k0 = pass ? 6 : 0, k1 = pass ? 8 : 6;
    for (;;) {
      let best = -1, bx = 0, bk = 0;
      for (let key = k0; key < k1; key++) {
        const i = MK_CUR[key]; if (i < 0) continue;
        const x = MK_X[key], k = K[key].idx[i];
        if (best < 0 || x < bx || (x === bx && k < bk)) { best = key; bx = x; bk = k; }
      }
      if (best < 0) break;
      const a = K[best], i = MK_CUR[best], n = a.idx.length, tn = tOf(bx + 3 - 0.5); // the next one 3 px on (3.6.8)
      let q = i + 1; while (q < n && q < i + 8 && a.ts[q] < tn) q++;
      MK_CUR[best] = mkNext(K, best, q < n && a.ts[q] < tn ? firstAtLeast(a.ts, q, n, tn) : q, t1);
      if (bx < xl || bx > xr) continue;
      if (P.n >= P.cap) break;
      const t = best >> 1, close = best & 1, first = t === 1 ? 1 : 0, last = Math.max(first, g.txt - 2);
      let text = a.txt[i]; if (text === undefined) text = a.txt[i] = markText(a.idx[i]);
      if (a.wf !== font) { a.w.fill(0); a.wf = font; } // widths at this font, measured once per mark
      let lv = first, str = '', xa = bx - 2, xb = bx + 3, sw = 0;
      place: for (let tr = 0; tr < 2; tr++) { // the text, then shortened (none for numbers), else a bare marker
        const s2 = tr === 0 ? text : t === 3 || text.length <= 2 ? '' : text[0] + '…'; if (!s2) break;
        let tw; if (tr === 0) { tw = a.w[i]; if (!tw) tw = a.w[i] = t === 3 ? s2.length * dw : textWidth(s2, font); } else tw = textWidth(s2, font);
        const w = tw + (t === 3 ? 8 : 10), a0 = close ? bx - w : t === 2 ? bx - w / 2 : bx, b0 = a0 + w;
        for (let l = first; l <= last; l++) { const occ = MK_OCC.lines[l]; if (mkFree(occ, a0, b0)) { mkTake(occ, a0, b0); lv = l; str = s2; xa = a0; xb = b0; sw = tw; break place; } }
      }
      const j = P.n++; P.x[j] = bx; P.k[j] = bk; P.t[j] = t; P.lv[j] = lv; P.a[j] = xa; P.b[j] = xb; P.s[j] = str; P.w[j] = sw;
      const yTxt = P.y0 + font * (1 + lv);
      pbRectW(bx, bx + 1, g.yc, yTxt, MARK_W[t]);
      if (!str) pbRectW(bx - 2, bx + 3, yTxt - 3, yTxt + 3, MARK_W[t]);
    }
  }
  perf.mkRows.push(r);
}
// The boxes of a row are drawn as markGlyph draws one, but batched per
// type: one path for the boxes (filled, then stroked), then the texts, so
// a dense view costs a few canvas calls per colour, not four per mark
// (laid-out boxes do not overlap on a line; where boxes of adjacent lines
// touch, every text stays above every box).
function drawMarks(r, g) {
  const P = r.mkP; if (!P || !P.n) return;
  const font = P.font, h = font + 4; let nt = 0;
  ctx.font = font + 'px sans-serif'; ctx.lineWidth = 1; ctx.textBaseline = 'middle';
  for (let t = 0; t < 4; t++) {
    let any = 0; ctx.beginPath();
    for (let j = 0; j < P.n; j++) {
      const text = P.s[j]; if (P.t[j] !== t || !text) continue;
      const x = P.x[j], yTxt = P.y0 + font * (1 + P.lv[j]); any++;
      if (t === 3) { ctx.moveTo(x, yTxt - 4); ctx.lineTo(x + 4, yTxt); ctx.lineTo(x, yTxt + 4); ctx.closePath(); continue; }
      const tw = P.w[j], bx = t === 2 ? x - tw / 2 - 4 : text[0] === '/' ? x - tw - 8 : x, y0 = yTxt - h / 2;
      ctx.moveTo(bx, y0 + h / 2); ctx.lineTo(bx + 4, y0); ctx.lineTo(bx + tw + 4, y0); ctx.lineTo(bx + tw + 8, y0 + h / 2);
      ctx.lineTo(bx + tw + 4, y0 + h); ctx.lineTo(bx + 4, y0 + h); ctx.closePath();
    }
    if (!any) continue;
    nt += any;
    if (t === 3) { ctx.fillStyle = MARK_COL[3]; ctx.fill(); } else { ctx.fillStyle = 'rgba(255,255,255,0.9)'; ctx.fill(); ctx.strokeStyle = MARK_COL[t]; ctx.stroke(); }
    ctx.fillStyle = MARK_COL[t];
    for (let j = 0; j < P.n; j++) {
      const text = P.s[j]; if (P.t[j] !== t || !text) continue;
      const x = P.x[j], yTxt = P.y0 + font * (1 + P.lv[j]);
      if (t === 3) { ctx.fillText(text, x + 6, yTxt); continue; }
      const tw = P.w[j], bx = t === 2 ? x - tw / 2 - 4 : text[0] === '/' ? x - tw - 8 : x;
      ctx.fillText(text, bx + 4, yTxt);
    }
  }
  perf.prims += P.n + nt;
}
// The marks drawn in this frame, for the hover and the test hook:
// [row index * 64 + text line, box left, box right, span, text ('' bare), x, y0, y1].
function markBoxes() {
  const out = [];
  for (const r of perf.mkRows) { const P = r.mkP; for (let j = 0; j < P.n; j++) out.push([r.idx * 64 + P.lv[j], P.a[j], P.b[j], P.k[j], P.s[j], P.x[j], P.y0, P.y0 + P.font * (1.5 + P.lv[j])]); }
  return out;
}
const TW = new Map();
function textWidth(text, font) { // cached measureText, per font
  let m = TW.get(font); if (!m) { m = new Map(); TW.set(font, m); }
  let w = m.get(text);
  if (w === undefined) {
    ctx.font = font + 'px sans-serif'; w = ctx.measureText(text).width; if (m.size > 5000) m.clear(); m.set(text, w);
  }
  return w;
}
function markGlyph(x, yc, E, t, text, font, yTxt, noLine) { // docs/spec/VIEWER.md 3.6.8; noLine: drawMarks drew it
  const close = text[0] === '/';
  if (ctx.font !== font + 'px sans-serif') ctx.font = font + 'px sans-serif';
  const col = MARK_COL[t];
  if (yTxt === undefined) yTxt = yc + E / 2 + font * (t === 1 ? 2 : 1);
  ctx.strokeStyle = col; ctx.lineWidth = 1;
  if (!noLine) { ctx.beginPath(); ctx.moveTo(x, yc); ctx.lineTo(x, yTxt); ctx.stroke(); }
  const tw = textWidth(text, font);
  let bx = close ? x - tw - 8 : x; if (t === 2) bx = x - tw / 2 - 4;
  if (t !== 3) {
    const h = font + 4, y0 = yTxt - h / 2;
    ctx.beginPath(); ctx.moveTo(bx, y0 + h / 2); ctx.lineTo(bx + 4, y0); ctx.lineTo(bx + tw + 4, y0); ctx.lineTo(bx + tw + 8, y0 + h / 2);
    ctx.lineTo(bx + tw + 4, y0 + h); ctx.lineTo(bx + 4, y0 + h); ctx.closePath(); ctx.fillStyle = 'rgba(255,255,255,0.9)'; ctx.fill(); ctx.stroke();
  } else { ctx.fillStyle = col; ctx.beginPath(); ctx.moveTo(x, yTxt - 4); ctx.lineTo(x + 4, yTxt); ctx.lineTo(x, yTxt + 4); ctx.fill(); bx = x + 2; }
  ctx.fillStyle = col; ctx.textBaseline = 'middle'; ctx.fillText(text, bx + 4, yTxt); perf.prims++;
}

// RPC message (0x204 rx, 0x205 tx): the time on the wire as a line at the
// top of the diagram, cut into 1500-byte packets when wide enough.
function drawMessage(k) {
  const e = D.ev[k], len = Math.max(0, D.arg[k]); let s = D.ts[k], d = D.dur[k];
  if (d <= 1e-8) { d = (len + 88) * 8 / (1000 * 1e6); if (e === EV_RPCRX) s -= d; } // old style: point at the kernel time
  const x0 = xOf(s), x1 = xOf(s + d), w = x1 - x0; if (w < 0.1 || x1 < L.left || x0 > L.right) return;
  const rx = e === EV_RPCRX, y = L.top + 22, col = rx ? '#800000' : '#008080';
  const ya = rx ? y : y + 6, yb = rx ? y + 6 : y;
  ctx.strokeStyle = col; ctx.lineWidth = 2;
  if (w >= 15 && len > 0) { const pk = w * 1500 / (len + 88); if (pk >= 3) ctx.setLineDash([Math.max(1, pk - 2), 2]); }
  ctx.beginPath(); ctx.moveTo(x0, ya); ctx.lineTo(x1, yb); ctx.stroke(); ctx.setLineDash([]);
  ctx.lineWidth = 1; ctx.beginPath(); ctx.moveTo(x0, ya - 3); ctx.lineTo(x0, ya + 3); ctx.moveTo(x1, yb - 3); ctx.lineTo(x1, yb + 3); ctx.stroke();
  if (w >= 15) { const id = String(D.rpc[k] > 0 ? D.rpc[k] : D.names[D.nm[k]]); ctx.font = '11px sans-serif'; ctx.fillStyle = col; ctx.textBaseline = 'middle'; ctx.fillText(id, x1 + 3, y + 3); }
  perf.prims++; perf.msgs++;
}

// Wakeup arcs (-3) and, in bold mode, IPI arcs (-7), stepped into a pixel
// buffer of their own (AL): thousands of dashed curves cost the canvas tens
// of ms to rasterise, stepping along them here a few.  The arcs go on top
// of the spans and of every on-row overlay (docs/spec/VIEWER.md 3.5), so AL is
// transparent: the rectangle the arcs touched is put on a scratch canvas
// and composited over the plot with one drawImage, then cleared again (a
// frame pays for the pixels near its arcs, nothing when none is drawn).
const AL = { cv: null, cx: null, img: null, u32: null, w: 0, h: 0, a: 0, b: 0, p: 0, q: 0 };
function alBegin() {
  if (!AL.img || AL.w !== PB.w || AL.h !== PB.h) {
    if (!AL.cv) { AL.cv = document.createElement('canvas'); AL.cx = AL.cv.getContext('2d'); }
    AL.cv.width = PB.w; AL.cv.height = PB.h; AL.img = AL.cx.createImageData(PB.w, PB.h); AL.u32 = new Uint32Array(AL.img.data.buffer); AL.w = PB.w; AL.h = PB.h;
  }
  AL.a = AL.w; AL.b = 0; AL.p = AL.h; AL.q = 0; // the touched rectangle [a, b) x [p, q), empty
}
function alTouch(xa, xb, ya, yb) { // device px of the buffer, clamped
  if (xa < AL.a) AL.a = Math.max(0, Math.floor(xa)); if (xb > AL.b) AL.b = Math.min(AL.w, Math.ceil(xb));
  if (ya < AL.p) AL.p = Math.max(0, Math.floor(ya)); if (yb > AL.q) AL.q = Math.min(AL.h, Math.ceil(yb));
}
function alEnd() {
  const a = AL.a, b = AL.b, p = AL.p, q = AL.q; if (b <= a || q <= p) return;
  AL.cx.putImageData(AL.img, 0, 0, a, p, b - a, q - p);
  ctx.save(); ctx.setTransform(1, 0, 0, 1, 0, 0); ctx.drawImage(AL.cv, a, p, b - a, q - p, PB.x0 + a, PB.y0 + p, b - a, q - p); ctx.restore();
  const u = AL.u32, W = AL.w; for (let y = p; y < q; y++) u.fill(0, y * W + a, y * W + b);
}
function drawArcs() {
  if (!S.btn.arc || !PB.u32) return;
  alBegin(); const main = PB.u32; PB.u32 = AL.u32; // arcPB and pbDot write to PB.u32
  try { arcsInto(); } finally { PB.u32 = main; }
  alEnd();
}
function arcsInto() {
  const bold = S.btn.arc === 1; const win = S.t1 - S.t0;
  const cpuRows = new Map(G[0].rows.filter(r => r.h).map(r => [r.id, r]));
  const pidRows = G[1].open !== 'closed' ? new Map(G[1].rows.filter(r => r.h).map(r => [r.id, r])) : null;
  const geo = new Map(); const top = r => { let y = geo.get(r); if (y === undefined) { const g = rowGeom(r); y = g.yc - g.E / 2; geo.set(r, y); } return y; };
  const draw = (set, ipi) => {
    if (!set) return;
    const short = !bold && !S.hack && win > 5e-3 && !ipi; // only arcs of 5 % of the width or more show
    const minDur = short ? 0.04 * win : 0, t0 = S.t0, t1 = S.t1;
    const v = rgba(ipi ? '#C0C0C0' : bold ? '#0055AA' : '#0080FF'), lw = ipi ? 2 : bold ? 3 : 2, on = ipi ? 9 : bold ? 4 : 3, off = ipi ? 3 : bold ? 4 : 3;
    for (let lv = 0; lv <= 40; lv++) {
      const lo = set.off[lv], m = set.off[lv + 1]; if (lo === m || Math.pow(2, lv + 1) * 1e-9 < minDur) continue;
      const a = set.idx, lt = set.ts, ld = set.du;
      for (let i = firstAboveIn(set.end, lo, m, t0); i < m && lt[i] <= t1; i++) {
        const k = a[i]; if (anyHL && !hlSpan[k]) continue;
        const x0 = xOf(lt[i]), x1 = xOf(lt[i] + ld[i]);
        if (short && Math.abs(x1 - x0) < 0.05 * L.pw) continue;
        const ra = cpuRows.get(D.cpu[k]), rb = cpuRows.get(D.arg[k]); if (ra && rb) arcPB(x0, top(ra), x1, top(rb), lw, on, off, v);
        if (pidRows && !ipi) { const wa = pidRows.get(D.pid[k]), wb = pidRows.get(D.ret[k]); if (wa && wb) arcPB(x0, top(wa), x1, top(wb), lw, on, off, v); }
      }
    }
  };
  draw(D.arcLv, false);
  if (bold) draw(D.ipiLv, true);
}
// One arc (3.6.9): a quadratic curve whose control point is 30 px to the
// left of the direction of travel, dashed on/off px, lw px wide, and an
// 8 px arrowhead at the end.  The curve is cut into 16 pieces; pieces off
// the plot are skipped (their length still counts for the dashes), the
// others are stepped about every pixel.
function arcPB(x0, y0, x1, y1, lw, on, off, v) {
  const mx = (x0 + x1) / 2, my = (y0 + y1) / 2, dx = x1 - x0, dy = y1 - y0, len = Math.hypot(dx, dy) || 1;
  const cx = mx + dy / len * 30, cy = my - dx / len * 30;
  if (Math.max(x0, x1, cx) < L.left - 10 || Math.min(x0, x1, cx) > L.right + 10) return;
  // device pixels of the pixel buffer; x(t) = ax t^2 + bx t + x0 (same for y)
  const X0 = x0 * dpr - PB.x0, Y0 = y0 * dpr - PB.y0, CX = cx * dpr - PB.x0, CY = cy * dpr - PB.y0, X1 = x1 * dpr - PB.x0, Y1 = y1 * dpr - PB.y0;
  const pad = (lw + 10) * dpr; // the curve stays in the hull of its three points; the arrowhead within 8 px of the end
  alTouch(Math.min(X0, CX, X1) - pad, Math.max(X0, CX, X1) + pad, Math.min(Y0, CY, Y1) - pad, Math.max(Y0, CY, Y1) + pad);
  const ax = X0 - 2 * CX + X1, bx = 2 * (CX - X0), ay = Y0 - 2 * CY + Y1, by = 2 * (CY - Y0);
  const W = PB.w, H = PB.h, u32 = PB.u32, wd = Math.max(1, Math.round(lw * dpr)), half = wd / 2 - 1;
  const ond = on * dpr, per = (on + off) * dpr, N = 16; let ph = 0, xa = X0, ya = Y0;
  for (let sgm = 1; sgm <= N; sgm++) {
    const tb = sgm / N, xb = (ax * tb + bx) * tb + X0, yb = (ay * tb + by) * tb + Y0;
    const sl = Math.sqrt((xb - xa) * (xb - xa) + (yb - ya) * (yb - ya));
    if (Math.max(xa, xb) >= -wd && Math.min(xa, xb) <= W + wd && Math.max(ya, yb) >= -wd && Math.min(ya, yb) <= H + wd) {
      // a step about as long as the line is wide, by forward differences
      const m = Math.max(1, Math.ceil(sl / wd)), h = 1 / N / m, ta = (sgm - 1) / N, dl = sl / m;
      // x, y: the dot's top left corner + 0.5 (rounded by truncation where >= 0)
      let x = xa - half, y = ya - half, ddx = ax * (2 * ta * h + h * h) + bx * h, ddy = ay * (2 * ta * h + h * h) + by * h;
      const d2x = 2 * ax * h * h, d2y = 2 * ay * h * h, Wm = W - wd, Hm = H - wd;
      let q = ph;
      for (let j = 0; j < m; j++) {
        if (q < ond && x >= 0 && y >= 0 && x <= Wm && y <= Hm) {
          const o = (y | 0) * W + (x | 0);
          if (wd === 2) { u32[o] = v; u32[o + 1] = v; u32[o + W] = v; u32[o + W + 1] = v; }
          else for (let r = 0, oo = o; r < wd; r++, oo += W) for (let c = 0; c < wd; c++) u32[oo + c] = v;
        }
        x += ddx; y += ddy; ddx += d2x; ddy += d2y; q += dl; if (q >= per) q -= per;
      }
    }
    ph = (ph + sl) % per; xa = xb; ya = yb;
  }
  if (x1 >= L.left - 10 && x1 <= L.right + 10) {
    const a = Math.atan2(y1 - cy, x1 - cx);
    pbLine(x1 - 8 * Math.cos(a - 0.4), y1 - 8 * Math.sin(a - 0.4), x1, y1, lw, v);
    pbLine(x1 - 8 * Math.cos(a + 0.4), y1 - 8 * Math.sin(a + 0.4), x1, y1, lw, v);
  }
  perf.prims++; perf.arcs++;
}
// A square dot of w CSS px centred on (x, y), and a solid line of them.
function pbDot(x, y, w, v) {
  const wd = w * dpr; let a = Math.round(x * dpr - wd / 2) - PB.x0, p = Math.round(y * dpr - wd / 2) - PB.y0;
  const W = PB.w; let b = a + Math.max(1, Math.round(wd)), q = p + Math.max(1, Math.round(wd));
  if (a < 0) a = 0; if (p < 0) p = 0; if (b > W) b = W; if (q > PB.h) q = PB.h;
  const u = PB.u32; for (let yy = p; yy < q; yy++) for (let i = yy * W + a, e = yy * W + b; i < e; i++) u[i] = v;
}
function pbLine(xa, ya, xb, yb, w, v) {
  const n = Math.max(1, Math.ceil(Math.hypot(xb - xa, yb - ya)));
  for (let i = 0; i <= n; i++) pbDot(xa + (xb - xa) * i / n, ya + (yb - ya) * i / n, w, v);
}

// Legacy and hack overlays (docs/spec/VIEWER.md 1.4, 3.6.15), from hand-edited or
// exported JSON; drawn after the spans and on-row overlays (3.5), on the
// row of their CPU (else PID, else RPC), whatever their width:
//  -2 oval: whitens everything in region 3 outside an oval around the time
//     range and the event band of its row (a spotlight);
//  -6 dots: orange diagonal hatching over the time range on the event band
//     of the CPU row (CPU 0's when cpu is -1), in hack mode only;
//  -1 bracket: a dotted [ ] around the time range and the row's event band,
//     with the name above it.
function legacyRow(k, dots) {
  const find = (gi, id) => { const g = G[gi]; if (!g) return null; for (const r of g.rows) if (r.id === id) return r.h ? r : null; return null; };
  const c = D.cpu[k], p = D.pid[k], q = D.rpc[k];
  return (c >= 0 && find(0, c)) || (dots ? (G[0].rows.length && G[0].rows[0].h ? G[0].rows[0] : null) : (p > 0 && find(1, p)) || (q > 0 && find(2, q))) || null;
}
function drawLegacy() {
  const set = D.legLv; if (!set) return;
  const items = [];
  for (let lv = 0; lv <= 40; lv++) {
    const lo = set.off[lv], m = set.off[lv + 1]; if (lo === m) continue;
    const a = set.idx, lt = set.ts;
    for (let i = firstAboveIn(set.end, lo, m, S.t0); i < m && lt[i] <= S.t1; i++) if (!anyHL || hlSpan[a[i]]) items.push(a[i]);
  }
  if (!items.length) return;
  items.sort((a, b) => a - b);
  const clipX = x => Math.max(L.left - 10, Math.min(L.right + 10, x));
  const geo = k => { const e = D.ev[k], r = legacyRow(k, e === EV_DOTS); if (!r) return null; const g = rowGeom(r);
    const x0 = clipX(xOf(D.ts[k])), x1 = Math.max(x0 + 2, clipX(xOf(D.ts[k] + D.dur[k]))); return { e, g, x0, x1 }; };
  const all = items.map(k => [k, geo(k)]).filter(x => x[1]);
  const ovals = all.filter(x => x[1].e === EV_OVAL).map(x => x[1]);
  if (ovals.length) { ovalsGlyph(L.left, L.top, L.pw, L.ph, ovals); perf.legacy.ovals += ovals.length; perf.prims++; }
  if (S.hack) for (const [, o] of all) { // dots
    if (o.e !== EV_DOTS) continue;
    dotsGlyph(o.x0, o.x1, o.g.yc, o.g.E); perf.legacy.dots++; perf.prims++;
  }
  for (const [k, o] of all) { // brackets
    if (o.e !== EV_BRACKET) continue;
    const text = D.names[D.nm[k]];
    bracketGlyph(o.x0, o.x1, o.g.yc, o.g.E, text, Math.max(12, Math.min(18, o.g.font || 12)));
    perf.legacy.brackets.push(text); perf.prims++;
  }
}
// The legacy glyphs (also drawn by the legend).  Ovals {x0, x1, g: {yc, E}}:
// the rectangle x, y, w, h whitened outside them, one even-odd path.
function ovalsGlyph(x, y, w, h, ovals) {
  const ell = (p, o) => { const cx = (o.x0 + o.x1) / 2, rx = Math.max(8, (o.x1 - o.x0) / 2 + 4), ry = Math.max(8, o.g.E / 2 + 6); p.moveTo(cx + rx, o.g.yc); p.ellipse(cx, o.g.yc, rx, ry, 0, 0, 2 * Math.PI); };
  const fade = new Path2D(); fade.rect(x, y, w, h); const rims = new Path2D();
  for (const o of ovals) { ell(fade, o); ell(rims, o); }
  ctx.fillStyle = 'rgba(255,255,255,0.75)'; ctx.fill(fade, 'evenodd');
  ctx.strokeStyle = '#808080'; ctx.lineWidth = 1; ctx.stroke(rims);
}
function dotsGlyph(x0, x1, yc, E) { // orange diagonal hatching over the event band
  const top = yc - E / 2, h = E;
  ctx.save(); ctx.beginPath(); ctx.rect(x0, top, x1 - x0, h); ctx.clip();
  ctx.strokeStyle = '#FF8000'; ctx.lineWidth = 1.5; ctx.beginPath();
  for (let x = x0 - h; x < x1; x += 6) { ctx.moveTo(x, top + h); ctx.lineTo(x + h, top); }
  ctx.stroke(); ctx.restore();
}
function bracketGlyph(x0, x1, yc, E, text, f) { // a dotted [ ] around the event band, the name above
  const top = Math.round(yc - E / 2 - 3), bot = Math.round(yc + E / 2 + 3), sf = Math.max(2, Math.min(6, (x1 - x0) / 3));
  x0 = Math.round(x0); x1 = Math.round(x1); // crisp 2 px lines
  ctx.strokeStyle = '#000'; ctx.lineWidth = 2; ctx.setLineDash([3, 3]); ctx.beginPath();
  ctx.moveTo(x0 + sf, top); ctx.lineTo(x0, top); ctx.lineTo(x0, bot); ctx.lineTo(x0 + sf, bot);
  ctx.moveTo(x1 - sf, top); ctx.lineTo(x1, top); ctx.lineTo(x1, bot); ctx.lineTo(x1 - sf, bot);
  ctx.stroke(); ctx.setLineDash([]);
  if (text) {
    ctx.font = 'bold ' + f + 'px sans-serif'; const w = ctx.measureText(text).width, xm = (x0 + x1) / 2 - w / 2;
    ctx.globalAlpha = 0.875; ctx.fillStyle = '#fff'; ctx.fillRect(xm - 2, top - f - 2, w + 4, f + 1); ctx.globalAlpha = 1;
    ctx.fillStyle = '#000'; ctx.textBaseline = 'middle'; ctx.fillText(text, xm, top - f / 2 - 1);
  }
}
// Hack mode: local_timer interrupts are never aggregated and are drawn at
// least 5 px wide (docs/spec/VIEWER.md 3.4, 3.6.15), on top of the row's spans.
function hackTimers(r, g) {
  const n = r.ex.length; if (!n) return;
  if (!r.lt) { const a = []; for (let i = 0; i < n; i++) if (r.ev[i] === EV_LTIMER) a.push(i); r.lt = Int32Array.from(a); }
  const lt = r.lt, rts = r.ts, rdu = r.du, t0 = S.t0, t1 = S.t1;
  let lo = 0, hi = lt.length; while (lo < hi) { const m = (lo + hi) >> 1; if (rts[lt[m]] + rdu[lt[m]] > t0) hi = m; else lo = m + 1; }
  for (let i = lo; i < lt.length; i++) {
    const j = lt[i], s = rts[j]; if (s >= t1) break;
    const x0 = xOf(s); drawSpan(r.ex[j], x0, Math.max(x0 + 5, xOf(s + rdu[j])), g.yc, g.E, true); perf.legacy.timers++;
  }
}

// ---------------------------------------------------------------- text
function fmtSI(v, digits) { // 3 significant digits (durations)
  if (v === 0) return '0s';
  const P = ['p', 'n', 'u', 'm', '', 'K']; let i = 0; let x = v * 1e12;
  while (Math.abs(x) >= 1000 && i < P.length - 1) { x /= 1000; i++; }
  return x.toPrecision(digits || 3) + P[i] + 's'; // 3 significant digits: 37.0us
}
function fmt5(v) { // Matches: total
  if (v === 0) return '0';
  const P = ['p', 'n', 'u', 'm', '', 'K', 'M', 'G', 'T']; let i = 0, x = v * 1e12;
  while (x >= 2000 && i < P.length - 1) { x /= 1000; i++; }
  const d = x < 10 ? 4 : x < 100 ? 3 : x < 1000 ? 2 : 1;
  return x.toFixed(d) + (P[i] ? P[i] + 's' : ' s');
}
function fmt4(v) {
  if (v === 0) return '0';
  const P = ['p', 'n', 'u', 'm', '', 'K', 'M', 'G', 'T']; let i = 0, x = v * 1e12;
  while (x >= 2000 && i < P.length - 1) { x /= 1000; i++; }
  return (x < 999.9 ? x.toFixed(1) : x.toFixed(0)) + P[i] + 's';
}
function fmtStart(t) { // 5 significant digits
  const P = ['n', 'u', 'm', ' ']; let i = 3, x = t;
  while (Math.abs(x) < 1 && i > 0 && x !== 0) { x *= 1000; i--; }
  const d = Math.max(0, 4 - Math.floor(Math.log10(Math.max(Math.abs(x), 1))));
  return x.toFixed(d) + (P[i] === ' ' ? ' s' : P[i] + 's');
}
const LOST_WHY = ['', 'reader behind', 'overwritten', 'disk']; // FORMATS 10.3's reasons
function nameArg(k, withRet) {
  const e = D.ev[k], nm = D.names[D.nm[k]];
  if (e === EV_LOST) return nm + '(' + (D.arg[k] ? (D.arg[k] >>> 0) + ' entries, ' : '') + (LOST_WHY[D.ret[k]] || 'reason ' + D.ret[k]) + ')';
  if (isSyscall(e)) {
    let s = nm + '(' + D.arg[k] + ')';
    if (withRet) { const r = D.ret[k]; s += '=' + (r > 65408 && r <= 65535 ? (ERRNO[65535 - r] || String(r - 65536)) : r); }
    return s;
  }
  if (((e >= 0x200 && e < 0x300) || (e >= 0x500 && e < 0x600)) && D.arg[k] !== 0 &&
      !(e >= EV_RPCREQ && e <= EV_RPCTX) && !(e >= 0x210 && e <= 0x21B) && !(e >= EV_MARKA && e <= EV_RIGHT) &&
      !((e === EV_PSTATE || e === EV_PSTATE2) && nm.includes('_')) && e < 0x280) return nm + '(' + D.arg[k] + ')';
  return nm;
}
function shortText(k) {
  let nm = D.names[D.nm[k]];
  if (nm.length > 9) nm = nm.slice(0, 7) + '~' + nm[nm.length - 1];
  const full = nameArg(k, false); const base = D.names[D.nm[k]];
  return full.length > base.length ? nm + full.slice(base.length) : nm;
}
function longText(k) {
  const rel = D.ts[k] - axisBase().sec;
  if (D.ev[k] >= EV_MARKA && D.ev[k] <= EV_MARKD) return fmtStart(rel) + ' ' + 'mark_' + 'abcd'[D.ev[k] - EV_MARKA] + '=' + markText(k);
  let s = fmtStart(rel) + ' ' + nameArg(k, true) + '; ' + fmtSI(D.dur[k]);
  if ((D.meta.flags & 0xA0) && D.ev[k] >= 0x400) s += ipcText(k);
  return s;
}

// ---------------------------------------------------------------- axis
function tbParts() {
  const tb = String(D.meta.tracebase || '1970-01-01_00:00:00');
  const m = /^(\d{4}-\d\d-\d\d)[_ T](\d\d):(\d\d):(\d\d)/.exec(tb);
  if (!m) return { date: tb.slice(0, 10), sod: 0 };
  return { date: m[1], sod: +m[2] * 3600 + +m[3] * 60 + +m[4] };
}
function hms(sod) { sod = Math.floor(sod); const h = Math.floor(sod / 3600) % 24, m = Math.floor(sod / 60) % 60, s = sod % 60;
  return String(h).padStart(2, '0') + ':' + String(m).padStart(2, '0') + ':' + String(s).padStart(2, '0'); }
function axisBase() { // {sec: base in trace seconds, unit, title, text}
  const W = S.t1 - S.t0, tb = tbParts(); const abs0 = tb.sod + S.t0;
  let unit, title, baseAbs, frac = '';
  if (W >= 60) { unit = 60; title = 'Time (mm:ss)'; baseAbs = Math.floor(abs0 / 3600) * 3600; }
  else if (W >= 1) { unit = 1; title = 'Time (sec)'; baseAbs = Math.floor(abs0 / 60) * 60; }
  else if (W >= 1e-3) { unit = 1e-3; title = 'Time (msec)'; baseAbs = Math.floor(abs0 + 1e-9); }
  else if (W >= 1e-6) { unit = 1e-6; title = 'Time (µsec)'; baseAbs = Math.floor(abs0 * 1e3 + 1e-6) / 1e3; frac = '.' + String(Math.round((baseAbs % 1) * 1e3)).padStart(3, '0'); }
  else { unit = 1e-9; title = 'Time (nsec)'; baseAbs = Math.floor(abs0 * 1e6 + 1e-3) / 1e6; frac = '.' + String(Math.round((baseAbs % 1) * 1e6)).padStart(6, '0'); }
  return { sec: baseAbs - tb.sod, unit, title, text: tb.date + ' ' + hms(baseAbs) + frac };
}
function niceStep(w, n) { const raw = w / n, p = Math.pow(10, Math.floor(Math.log10(raw))); const f = raw / p; return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * p; }
function ticks() {
  const ab = axisBase(); const W = S.t1 - S.t0; const step = niceStep(W, 10);
  const out = []; const first = Math.ceil((S.t0 - ab.sec) / step - 1e-9);
  for (let i = first; ; i++) {
    const off = i * step; const t = ab.sec + off; if (t > S.t1 + step * 1e-6) break; if (out.length > 40) break;
    let label;
    if (ab.unit === 60) { const s = Math.round(off); label = String(Math.floor(s / 60)).padStart(2, '0') + ':' + String(s % 60).padStart(2, '0'); }
    else if (ab.unit === 1) label = (Math.round(off * 10) / 10).toFixed(step < 0.1 ? 2 : 1);
    else {
      const v = off / ab.unit; const fine = W < ab.unit * 10;
      const iv = Math.round(v * 10) / 10; const whole = Math.floor(iv + 1e-9);
      const wrapped = ((whole % 1000) + 1000) % 1000; const rest = iv - whole;
      let txt = fine ? (wrapped + rest).toFixed(1).padStart(5, '0') : String(wrapped).padStart(3, '0');
      if (whole >= 1000 && wrapped === 0 && rest < 0.05) { label = higherUnit(ab, whole) + '_' + txt; }
      else label = txt;
    }
    out.push({ t, label });
  }
  return { ab, list: out };
}
function higherUnit(ab, whole) { // digits of the next unit up at a roll-over tick
  const abs = tbParts().sod + ab.sec + whole * ab.unit;
  const v = Math.round(abs / (ab.unit * 1000));
  return ab.unit === 1e-3 ? String(v % 60).padStart(2, '0') : String(v % 1000).padStart(3, '0');
}

// ---------------------------------------------------------------- render
// Drawn over the plot after everything else (why.js: a request's path;
// machines.js: the messages between hosts).
const LATE_OVERLAYS = [];
let pending = false;
function redraw() { if (!pending && !window.ktOtherPage) { pending = true; requestAnimationFrame(() => { if (pending) render(); }); } } // render() clears pending

function render() {
  pending = false;
  const t0p = performance.now(); perf.prims = 0; perf.tri = 0; perf.msgs = 0; perf.arcs = 0; perf.ticks = 0; perf.lodDrawn = 0; perf.mkRows = []; perf.triPos = []; perf.waits = 0; perf.queues = 0; perf.legacy = { brackets: [], ovals: 0, dots: 0, timers: 0 };
  layout();
  S.overheadHatch = (S.t1 - S.t0) < 8e-6;
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.fillStyle = '#fff'; ctx.fillRect(0, 0, L.W, L.H);
  if (S.legend) { drawLegend(); finish(t0p); return; }
  // title
  ctx.fillStyle = '#0000AA'; ctx.font = 'bold ' + 2 * L.base + 'px serif'; ctx.textAlign = 'center'; ctx.textBaseline = 'middle';
  ctx.fillText(String(D.meta.title || ''), (L.left + L.right) / 2, L.top / 2);
  if (SUM.status) { // what is drawn from summaries (lod.js): on the canvas, so that the layout stays
    ctx.font = '12px sans-serif'; ctx.fillStyle = '#A00000'; ctx.textAlign = 'right'; ctx.fillText(SUM.status(), L.W - 4, 9); }
  ctx.textAlign = 'left';
  // region 4 (IPC legend)
  const over = S.btn.ipc ? 4 : L.legW / 2; // spans may run into region 4 unless its legend is shown
  ctx.fillStyle = S.btn.ipc ? '#EEEEEE' : '#F8F8F8'; ctx.fillRect(L.right + over, L.top, L.legW - over, L.ph);
  if (S.btn.ipc) drawIpcLegend();
  // rows
  ctx.save(); ctx.beginPath(); ctx.rect(L.left, L.top, L.pw + over, L.ph); ctx.clip();
  const vis = [];
  for (const it of L.items) {
    if (!it.row) continue; const r = it.row; const sh = S.relative && isFinite(r.tmin) ? r.tmin - D.t0 : 0;
    if (r.tmax < S.t0 + sh || r.tmin > S.t1 + sh) continue; const g = rowGeom(r);
    if (g.top > L.bottom || g.top + g.px < L.top) continue;
    vis.push([r, g, sh]);
  }
  // Relative mode (base-time click): each row's time starts at its first span.
  const T0 = S.t0, T1 = S.t1;
  // Phase times (ms) of this frame for the benchmark: exec spans, pass-1
  // overlays (waits, ticks), putImageData, pass-2 overlays and marks, arcs.
  const ph = perf.phase; ph.exec = ph.ov1 = ph.freq = 0; let tq = performance.now(); ph.pre = tq - t0p;
  pbBegin(L.left, L.top, L.pw + over, L.ph); ph.clear = performance.now() - tq; tq += ph.clear;
  for (const [r, g, sh] of vis) {
    S.t0 = T0 + sh; S.t1 = T1 + sh; if (r.ovF && S.btn.freq && D.hasFreq) drawFreq(r, g); const tf = performance.now(); ph.freq += tf - tq; drawExec(r, g); if (S.hack) hackTimers(r, g); const tr = performance.now(); ph.exec += tr - tq;
    drawOverlays(r, g, 1); if (!g.txt) markTicks(r, g); else if (r.mk) markLayout(r, g); tq = performance.now(); ph.ov1 += tq - tr;
  }
  S.t0 = T0; S.t1 = T1;
  pbEnd(); let tr = performance.now(); ph.put = tr - tq;
  for (const [r, g, sh] of vis) { S.t0 = T0 + sh; S.t1 = T1 + sh; drawOverlays(r, g, 2); if (r.mk) drawMarks(r, g); flushRun(); }
  S.t0 = T0; S.t1 = T1; tq = performance.now(); ph.ov2 = tq - tr;
  // 3.5 step 2: the negative-event overlays after every span and on-row
  // overlay: arcs over frequency, samples, locks and marks, then the legacy ones.
  if (!S.relative) drawArcs();
  tr = performance.now(); ph.arcs = tr - tq;
  if (!S.relative) drawLegacy();
  drawCallouts();
  drawAnnotations();
  for (const f of LATE_OVERLAYS) f();
  ctx.restore();
  // grid + axis
  const tk = ticks();
  ctx.strokeStyle = '#F0F0F0'; ctx.lineWidth = 1;
  for (const t of tk.list) { const x = Math.round(xOf(t.t)) + 0.5; if (x < L.left || x > L.right) continue; ctx.beginPath(); ctx.moveTo(x, L.top); ctx.lineTo(x, L.bottom); ctx.stroke(); }
  ctx.strokeStyle = '#000'; ctx.beginPath(); ctx.moveTo(L.left, L.bottom + 0.5); ctx.lineTo(L.right, L.bottom + 0.5); ctx.moveTo(L.left - 0.5, L.top); ctx.lineTo(L.left - 0.5, L.bottom); ctx.stroke();
  ctx.fillStyle = '#000'; ctx.font = L.base + 'px sans-serif'; ctx.textAlign = 'center'; ctx.textBaseline = 'top';
  let lastX = -1e9; const labels = [];
  for (const t of tk.list) { const x = xOf(t.t); if (x < L.left - 1 || x > L.right + 1) continue;
    ctx.beginPath(); ctx.moveTo(x, L.bottom); ctx.lineTo(x, L.bottom + 4); ctx.stroke();
    const w = ctx.measureText(t.label).width; if (x - w / 2 > lastX + 4) { ctx.fillText(t.label, x, L.bottom + 6); lastX = x + w / 2; labels.push(t.label); } }
  L.tickLabels = labels;
  ctx.fillText(tk.ab.title, (L.left + L.right) / 2, L.bottom + 8 + L.base);
  ctx.textAlign = 'left'; ctx.fillStyle = '#0000AA'; ctx.fillText(S.relative ? tbParts().date + ' relative' : tk.ab.text, 4, L.bottom + 8 + L.base);
  L.baseText = S.relative ? tbParts().date + ' relative' : tk.ab.text; L.axisTitle = tk.ab.title;
  drawLabels();
  // red dot
  ctx.fillStyle = S.btn.cb ? '#80FFFF' : '#FF0000'; ctx.beginPath(); ctx.arc(L.left, L.bottom, 7, 0, 2 * Math.PI); ctx.fill();
  // measurement + hover
  if (S.measure) drawMeasure();
  if (S.hover) { ctx.font = '18px sans-serif'; const w = ctx.measureText(S.hover).width; ctx.fillStyle = 'rgba(255,255,255,0.9)'; ctx.fillRect(L.left + 2, L.bottom - 24, w + 6, 22); ctx.fillStyle = '#000'; ctx.textBaseline = 'middle'; ctx.fillText(S.hover, L.left + 5, L.bottom - 13); }
  finish(t0p);
}
// The status line and the readouts of the secondary controls, after each frame.
function updateStatus() {
  const st = document.getElementById('status');
  let s = S.summary || '';
  if (!s && S.showHeader) s = [D.meta.kernelVersion, D.meta.cpuModelName].filter(Boolean).join(', ');
  if (S.sizeMsg) s += (s ? '  ' : '') + S.sizeMsg;
  if (S.serverErr) s = S.serverErr + (s ? '  ' + s : '');
  if (st.textContent !== s) st.textContent = s;
}
function updateReadouts() {
  if (!S.menu) return;
  const x = 'x: ' + S.t0.toFixed(6) + '+' + Math.round((S.t1 - S.t0) * 1e6);
  const y = 'y: ' + Math.round(-S.ypan / L.ppt) + '+' + Math.round((L.ph - 10) / L.ppt);
  const ex = document.getElementById('m_x'), ey = document.getElementById('m_y');
  if (ex.textContent !== x) ex.textContent = x; if (ey.textContent !== y) ey.textContent = y;
}
function finish(t0p) { perf.lastDraw = performance.now() - t0p; if (perf.phase.ov2 !== undefined) perf.phase.post = perf.lastDraw - Object.keys(perf.phase).reduce((a, k) => (k === 'post' ? a : a + perf.phase[k]), 0); perf.draws++; updateStatus(); updateReadouts(); }


function drawLabels() {
  ctx.font = L.base + 'px sans-serif'; ctx.textBaseline = 'middle'; ctx.textAlign = 'right';
  let lastY = -1e9; let afterHeader = false; L.labelsShown = [];
  const ticks = new Path2D(); let font = ''; // the row ticks in one stroke; the font set only when it changes
  for (const it of L.items) {
    if (it.header) {
      const g = it.header; const y = yOf(it.y) + it.h / 2 * L.ppt;
      if (y < L.top - 10 || y > L.bottom + 10) continue;
      ctx.textAlign = 'left'; ctx.font = 'bold ' + L.base + 'px sans-serif'; ctx.fillStyle = g.rows.length ? '#0000AA' : '#C0C0C0';
      const tri = g.open === 'closed' ? '▶' : g.open === 'hl' ? '▷' : '▼';
      ctx.fillText(tri + ' ' + g.name + ' (' + g.rows.length + ')', 4, y); it.labelY = y; ctx.textAlign = 'right'; font = '';
      lastY = y; afterHeader = true; continue;
    }
    if (it.host) { HOOK.subLabel(it); font = ''; lastY = yOf(it.y) + it.h / 2 * L.ppt; afterHeader = true; continue; }
    const r = it.row; const y = yOf(r.y) + rowGeom(r).E / 2;
    if (y < L.top - 2 || y > L.bottom + 2) continue;
    if (afterHeader || y - lastY >= L.base) {
      ticks.moveTo(L.left - 4, y); ticks.lineTo(L.left, y);
      const f = (r.hl ? 'bold ' : '') + L.base + 'px sans-serif'; if (f !== font) { ctx.font = font = f; ctx.fillStyle = '#000'; }
      ctx.fillText(r.label, L.left - 6, y); lastY = y; afterHeader = false; L.labelsShown.push(r.label);
    } else { ticks.moveTo(L.left - 2, y); ticks.lineTo(L.left, y); }
  }
  ctx.strokeStyle = '#000'; ctx.lineWidth = 1; ctx.stroke(ticks);
  ctx.textAlign = 'left';
}

// ---------------------------------------------------------------- annotations
function annRow(k) { // first visible row among CPU, PID, RPC
  for (const a of [D.cpuRow, D.pidRow, D.rpcRow]) { const ri = a[k]; if (ri >= 0 && ROWS[ri].h) return ROWS[ri]; }
  return null;
}
function drawAnnotations() {
  const counters = new Map();
  for (const a of S.anns) {
    const r = a.row && a.row.h ? a.row : annRow(a.k); if (!r) continue;
    const g = rowGeom(r); const k = a.k;
    let tt = D.ts[k]; if (D.ev[k] === EV_PCU || D.ev[k] === EV_PCK) tt += D.dur[k];
    let x = xOf(tt); if (x > L.right) continue; if (x < L.left) x = L.left + 3;
    const c = counters.get(r) || 0; counters.set(r, c + 1);
    const lines = Math.max(1, g.txt); const font = g.txt ? g.font : 12;
    const line = lines - 1 - (c % lines);
    const yText = g.txt ? g.top + g.E + font * (line + 0.5) : g.yc + g.E / 2 + 7;
    ctx.strokeStyle = '#600090'; ctx.lineWidth = 1.5;
    if (S.btn.annot === 0) {
      ctx.beginPath(); ctx.moveTo(x, g.yc + g.E / 2); ctx.lineTo(x, L.bottom); ctx.stroke();
      ctx.setLineDash([2, 5]); ctx.beginPath(); ctx.moveTo(x, L.top); ctx.lineTo(x, g.yc - g.E / 2); ctx.stroke(); ctx.setLineDash([]);
    } else { ctx.lineWidth = 2; ctx.beginPath(); ctx.moveTo(x, g.yc); ctx.lineTo(x, yText); ctx.lineTo(x + 4, yText); ctx.stroke(); }
    const text = a.long ? longText(k) : shortText(k);
    ctx.font = font + 'px sans-serif'; const w = ctx.measureText(text).width;
    ctx.globalAlpha = 0.875; ctx.fillStyle = '#fff'; ctx.fillRect(x + 2, yText - font / 2, w + 4, font); ctx.globalAlpha = 1;
    ctx.fillStyle = '#600090'; ctx.textBaseline = 'middle'; ctx.fillText(text, x + 4, yText); perf.prims++;
  }
}
function drawMeasure() {
  const m = S.measure; const xa = xOf(m.ta), xb = xOf(m.tb); const y = L.bottom - 4;
  ctx.strokeStyle = '#600090'; ctx.lineWidth = 4; ctx.beginPath(); ctx.moveTo(xa, y); ctx.lineTo(xb, y); ctx.stroke();
  const text = fmt5(Math.abs(m.tb - m.ta)); ctx.font = '16px sans-serif'; const w = ctx.measureText(text).width;
  const xm = (xa + xb) / 2 - w / 2; ctx.fillStyle = '#fff'; ctx.fillRect(xm - 2, y - 22, w + 4, 18); ctx.fillStyle = '#600090'; ctx.textBaseline = 'middle'; ctx.fillText(text, xm, y - 13);
  S.measureText = text;
}
// Callouts (ev -4, in D.extra): the tip at (ts, top of the event band of the
// first visible row among cpu, pid, rpc); the bubble offset by arg px and
// retval rows.  S.coHit keeps the boxes for dragging.
function calloutRow(c) {
  const look = [[0, c[2], c[2] >= 0], [1, c[3], c[3] > 0], [2, c[4], c[4] > 0]];
  for (const [gi, id, ok] of look) { if (!ok || !G[gi]) continue; const r = G[gi].rows.find(q => q.id === id); if (r && r.h) return r; }
  return null;
}
function drawCallouts() {
  S.coHit = [];
  D.extra.forEach((c, i) => {
    const x = xOf(c[0]); if (x < L.left - 2 || x > L.right + 2) return;
    const r = calloutRow(c); if (!r) return;
    const g = rowGeom(r); const y = g.yc - g.E / 2; const bx = x + (+c[6] || 0), by = y + (+c[7] || 0) * g.px;
    const f = Math.max(12, Math.min(27, (g.txt ? g.font : 12) * 1.5)); ctx.font = f + 'px sans-serif'; const text = String(c[9]); const w = ctx.measureText(text).width;
    const bw = w + 12, bh = f + 8, bt = by - bh / 2;
    ctx.strokeStyle = '#000'; ctx.lineWidth = 2; ctx.fillStyle = '#fff';
    ctx.beginPath(); ctx.moveTo(x, y); ctx.lineTo(bx + Math.min(bw / 2, 14) - 5, by); ctx.lineTo(bx + Math.min(bw / 2, 14) + 5, by); ctx.closePath(); ctx.fill(); ctx.stroke();
    ctx.beginPath(); if (ctx.roundRect) ctx.roundRect(bx, bt, bw, bh, 6); else ctx.rect(bx, bt, bw, bh); ctx.fill(); ctx.stroke();
    ctx.fillStyle = '#0000AA'; ctx.textBaseline = 'middle'; ctx.fillText(text, bx + 6, by + 1);
    S.coHit.push({ i, x: bx, y: bt, w: bw, h: bh, tx: x, ty: y, rowPx: g.px });
  });
}

// ---------------------------------------------------------------- legend
// The legend page (docs/spec/VIEWER.md 4.6): landscape 900x600 (two columns) or
// portrait 650x900, drawn with the real glyph code on a scratch span.
function drawLegend() {
  const land = S.legend === 1, colW = land ? 450 : 620; let rh = land ? 29 : 26.5, E = land ? 20 : 18;
  ctx.fillStyle = '#0000AA'; ctx.font = 'bold 26px serif'; ctx.textBaseline = 'middle'; ctx.textAlign = 'left';
  ctx.fillText('KUtrace HTML Legend', 20, 24);
  const saved = { anyHL, fade: S.fade, ov: S.overheadHatch, ipc: S.btn.ipc }; anyHL = false; S.fade = false; S.overheadHatch = false; S.btn.ipc = 0;
  const tmp = ['ev', 'arg', 'ts', 'dur', 'ipc', 'pid', 'nm'].map(key => [key, D[key]]);
  D.ev = new Int32Array([0]); D.arg = new Int32Array([0]); D.ts = new Float64Array([0]); D.dur = new Float64Array([1]); D.ipc = new Uint8Array([8]); D.pid = new Int32Array([1]); D.nm = new Uint32Array([0]);
  const span = (ev, arg, xa, xb, yc) => { D.ev[0] = ev; D.arg[0] = arg || 0; drawSpan(0, xa, xb, yc, E, false); flushRun(); };
  const line = (xa, ya, xb, yb, col, w, dash) => { ctx.strokeStyle = col; ctx.lineWidth = w; ctx.setLineDash(dash || []); ctx.beginPath(); ctx.moveTo(xa, ya); ctx.lineTo(xb, yb); ctx.stroke(); ctx.setLineDash([]); };
  const IPCV = [2, 8, 13];
  const items = [
    ['Execution'],
    ['syscall (write)', (a, b, y) => span(0x801, 0, a, b, y)],
    ['interrupt (local_timer_vector)', (a, b, y) => span(0x5EC, 0, a, b, y)],
    ['fault (page_fault)', (a, b, y) => span(0x40E, 0, a, b, y)],
    ['scheduler (-sched-)', (a, b, y) => span(0xDFF, 0, a, b, y)],
    ['user code (two colours per thread)', (a, b, y) => { span(0x10000 + 1234, 0, a, (a + b) / 2 - 2, y); span(0x10000 + 4321, 0, (a + b) / 2 + 2, b, y); }],
    ['idle, low-power idle', (a, b, y) => { span(EV_IDLE, 0, a, (a + b) / 2 - 4, y); span(EV_IDLE, 1, (a + b) / 2 + 4, b, y); }],
    ['IPC ¼, 1, 2½ (IPC button)', (a, b, y) => { const w = (b - a) / 3; IPCV.forEach((v, i) => { span(0x10000 + 1234, 0, a + i * w, a + (i + 1) * w - 3, y); drawIpc(a + i * w + w / 2, y, 0.9 * E, v); }); }],
    ['wakeup arc (Arc button)', (a, b, y) => { line(a, y + 6, a, y + 6, '#000', 1); ctx.strokeStyle = '#0080FF'; ctx.lineWidth = 2; ctx.setLineDash([3, 3]); ctx.beginPath(); ctx.moveTo(a, y + 8); ctx.quadraticCurveTo((a + b) / 2, y - 16, b, y + 8); ctx.stroke(); ctx.setLineDash([]); ctx.beginPath(); ctx.moveTo(b - 7, y + 1); ctx.lineTo(b, y + 8); ctx.lineTo(b - 9, y + 8); ctx.stroke(); }],
    ['Non-execution (PID and RPC rows)'],
    ...[[2, 'cpu'], [3, 'disk'], [11, 'lock'], [12, 'memory'], [13, 'network'], [15, 'pipe'], [19, 'timer']].map(([l, nm]) =>
      ['wait for ' + nm + ' (' + String.fromCharCode(97 + l) + ': ' + MORSE[l] + ')', (a, b, y) => { const xm = morse(b, y, b - a, l, WAIT_COLOR[l], E); ctx.fillStyle = WAIT_COLOR[l]; ctx.fillRect(a, y - 0.0375 * E, xm - a, Math.max(1, 0.075 * E)); }]),
    ['queued RPC', (a, b, y) => line(a, y, b, y, PAL_B[(1 * 7 + 6) % 15], 0.19 * E, [3, 5])],
    ['Synthesized'],
    ['c-exit: leaving a deep power state', (a, b, y) => span(EV_CEXIT, 0, a, a + 40, y)],
    ['tracing overhead (window < 8 µs)', (a, b, y) => { span(0x801, 0, a, b, y); line(a, y, a, y, '#fff', 0); ctx.strokeStyle = '#fff'; ctx.lineWidth = 2; ctx.beginPath(); for (let i = 0; i < 5; i++) { const x = a + 30 * i / 5; ctx.moveTo(x, y + E / 2); ctx.lineTo(x + 6, y - E / 2); } ctx.stroke(); }],
    ['Time-aligned data'],
    ['frequency: slow, medium, fast (Freq)', (a, b, y) => { const c = ['#E00000', '#E0C000', '#00C000'], al = [0.5, 0.3, 0.1]; const w = (b - a) / 3; for (let i = 0; i < 3; i++) { ctx.globalAlpha = al[i]; ctx.fillStyle = c[i]; ctx.fillRect(a + i * w, y - E / 2, w - 2, E); } ctx.globalAlpha = 1; }],
    ['PC sample, user and kernel (Samp)', (a, b, y) => { const m = (a + b) / 2; [[a, m - 6, [5, 10], 1.5], [m + 6, b, [8, 8], 3]].forEach(([p, q, d, lw]) => { line(p, y + 4, q, y - 2, PALS[0].B2[3], 1.5); line(p, y + 4, q, y - 2, PALS[0].A2[5], lw, d); line(q - 3, y - 5, q, y - 2, '#000', 1); line(q, y - 2, q + 3, y - 5, '#000', 1); }); }],
    ['RPC message received, sent', (a, b, y) => { const m = (a + b) / 2; line(a, y - 3, m - 6, y + 3, '#800000', 2, [12, 2]); line(m + 6, y + 3, b, y - 3, '#008080', 2, [12, 2]); }],
    ['packets rx \\, tx /', (a, b, y) => { line(a + 20, y - 4, a + 26, y + 4, '#000', 1); line(a + 60, y + 4, a + 66, y - 4, '#000', 1); }],
    ['lock held, lock wait (PID rows)', (a, b, y) => { const m = (a + b) / 2; line(a, y, m - 6, y, PAL_B[4], 2); line(m + 6, y, b, y, PAL_B[9], 2, [3, 3]); }],
    ['Manually inserted'],
    ['callout', (a, b, y) => { ctx.strokeStyle = '#000'; ctx.lineWidth = 2; ctx.fillStyle = '#fff'; ctx.beginPath(); ctx.moveTo(a, y + 9); ctx.lineTo(a + 20, y); ctx.lineTo(a + 30, y); ctx.closePath(); ctx.fill(); ctx.stroke(); ctx.beginPath(); ctx.rect(a + 14, y - 10, 90, 18); ctx.fill(); ctx.stroke(); ctx.fillStyle = '#0000AA'; ctx.font = '14px sans-serif'; ctx.fillText('look here', a + 20, y); }],
    // Legacy overlays (1.4, 3.6.15) from hand-edited JSON rows: the same glyphs as on a row.
    ['bracket (−1): a time range, named', (a, b, y) => { span(EV_IDLE, 0, a, b, y); span(0x10000 + 1234, 0, a + 30, b - 30, y); bracketGlyph(a + 22, b - 22, y, E * 0.8, '', 12); }],
    ['oval (−2): spotlight, the rest faded', (a, b, y) => { span(0x10000 + 1234, 0, a, b, y); const m = (a + b) / 2; ovalsGlyph(a, y - E / 2 - 3, b - a, E + 6, [{ x0: m - 12, x1: m + 12, g: { yc: y, E: E * 0.4 } }]); }],
    ['marks a, b, c, d', (a, b, y) => { const w = (b - a) / 4; ['hello', 'b', 'c', '99'].forEach((t, i) => markGlyph(a + i * w + 6, y - 8, 6, i, t, 12)); }, 1.4], // mark b's box hangs lower
    ['Annotations'],
    ['search match, annotated span', (a, b, y) => { line(a + 4, y - E / 2, a + 4, y + E / 2, '#600090', 1.5); ctx.fillStyle = '#600090'; ctx.font = '14px sans-serif'; ctx.fillText('write(3)', a + 8, y); }],
    ['grid: light lines at the time ticks', (a, b, y) => { for (let x = a + 10; x < b; x += 40) line(x + 0.5, y - E / 2, x + 0.5, y + E / 2, '#C8C8C8', 1); }],
    ['Hack mode (shift-click CB)'],
    ['dots (−6): hatching on a CPU row', (a, b, y) => { span(EV_IDLE, 0, a, b, y); dotsGlyph(a + 10, b - 10, y, E); }],
    ['local_timer at least 5 px wide', (a, b, y) => { span(EV_IDLE, 0, a, b, y); for (let x = a + 12; x < b - 8; x += 34) span(EV_LTIMER, 0, x, Math.max(x + 5, x + 0.2), y); }],
  ];
  // Landscape: two columns, split at the section header nearest the middle.
  // The line height (and the glyph height with it) shrinks so that every
  // entry fits on the fixed 900x600 or 650x900 page.
  let split = items.length;
  if (land) { let best = Infinity; items.forEach((it, n) => { if (it.length === 1 && n && Math.abs(n - items.length / 2) < best) { best = Math.abs(n - items.length / 2); split = n; } }); }
  const lines = list => list.reduce((a, it) => a + (it.length === 1 ? 0.9 : it[2] || 1), 0);
  const need = Math.max(lines(items.slice(0, split)), lines(items.slice(split)));
  rh = Math.min(rh, (L.H - 60 - 12) / Math.max(1, need - 0.5)); E = Math.min(E, Math.round(rh * 0.72));
  const drawn = [], geom = [];
  let col = 0, y = 60;
  items.forEach((it, n) => {
    if (n === split) { col = 1; y = 60; }
    const x0 = 20 + col * colW, xa = x0 + 8, xb = x0 + (land ? 150 : 230);
    if (it.length === 1) { ctx.fillStyle = '#0000AA'; ctx.font = 'bold 16px sans-serif'; ctx.textBaseline = 'middle'; ctx.fillText(it[0], x0, y); y += rh * 0.9; return; }
    it[1](xa, xb, y); flushRun();
    ctx.fillStyle = '#000'; ctx.font = '14px sans-serif'; ctx.textBaseline = 'middle'; ctx.textAlign = 'left'; ctx.fillText(it[0], xb + 14, y);
    drawn.push(it[0]); geom.push({ label: it[0], x0: xa, x1: xb, y, E }); y += rh * (it[2] || 1);
  });
  for (const [key, v] of tmp) D[key] = v;
  anyHL = saved.anyHL; S.fade = saved.fade; S.overheadHatch = saved.ov; S.btn.ipc = saved.ipc;
  L.legendItems = drawn; L.legendGeom = geom;
}


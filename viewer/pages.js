// SPDX-License-Identifier: BSD-3-Clause
// kutrace viewer for the book's pages that are not CPU timelines (makeself
// embeds them whole, #ktdata data-kind="rpc" or "points", blob "KTJ1" +
// the JSON text, see lib/page/pageenc.c):
//  - an RPC page ("V4 flat RPCs"): one row per RPC, rows
//    [T1, T2, T3, T4, "client:port", "server:port", lglen1, lglen2, rpcid,
//     parent, "msgtype", "method", "status", datalen, "data"]; drawn as the
//    request on the wire T1->T2 (a thin line along the top of the row), the
//    server time T2->T3 (a full bar), the response on the wire T3->T4 (a
//    thin line along the bottom), in the method's colour;
//  - a points page: "points" : [[t, value], ...] as a scatter plot, dots of
//    radius dotR in dotColor, axis titles axisLabelX / axisLabelY.
// Runs before viewer.js, which stays out of the way when window.ktOtherPage
// is set.  Test hook: window.kutraceState() and window.kutrace, as there.
'use strict';
(function () {
const dataEl = document.getElementById('ktdata');
let KIND = dataEl && dataEl.dataset.kind;
if (KIND !== 'rpc' && KIND !== 'points') KIND = null;
if (KIND) window.ktOtherPage = KIND;
// The kind of a JSON object opened in the bare viewer (viewer.js asks).
function kindOf(obj) {
  if (!obj || typeof obj !== 'object') return null;
  if (Array.isArray(obj.points)) return 'points';
  const ev = Array.isArray(obj.events) ? obj.events : [];
  if (Array.isArray(ev[0]) && ev[0].length === 15 && typeof ev[0][4] === 'string') return 'rpc';
  return !ev.length && obj.version === 4 ? 'rpc' : null;
}
window.ktPages = { kindOf, show: obj => { const k = kindOf(obj); if (!k) return false; KIND = window.ktOtherPage = k; takeOver(); start(obj); return true; } };

// Method colours: no red (red marks a failed status), none too light.
const METHOD_PAL = ['#4E79A7', '#F28E2B', '#59A14F', '#B07AA1', '#EDC948', '#76B7B2', '#9C755F', '#FF9DA7', '#8CD17D', '#499894', '#D4A6C8', '#86BCB6'];
const GREY = '#D8D8D8', FAIL = '#FF0000';
const P = { meta: {}, t0: 0, t1: 1, T0: 0, T1: 1, yk: 1, ypan: 0, summary: '', hover: '', re: null, not: false, match: null, drag: null };
let L = {};
let cv = document.getElementById('cv'), ctx = cv.getContext('2d');

// ---------------------------------------------------------------- loading
function b64bytes(s) {
  s = s.replace(/\s+/g, '');
  const bin = atob(s); const u = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) u[i] = bin.charCodeAt(i);
  return u;
}
async function load() {
  let bytes = b64bytes(dataEl.textContent); dataEl.textContent = '';
  if (dataEl.dataset.enc === 'deflate') {
    const ds = new DecompressionStream('deflate'); const w = ds.writable.getWriter(); w.write(bytes); w.close();
    bytes = new Uint8Array(await new Response(ds.readable).arrayBuffer());
  }
  if (String.fromCharCode(bytes[0], bytes[1], bytes[2], bytes[3]) !== 'KTJ1') throw new Error('embedded data is not KTJ1');
  const obj = JSON.parse(new TextDecoder('utf-8').decode(bytes.subarray(4)));
  start(obj);
}

// ---------------------------------------------------------------- RPC rows
// R: one entry per RPC, in the order of T1 (the file's order when sorted).
const R = [];
const METHODS = new Map(); // method -> {color, n}
function rpcRows(obj) {
  for (const e of obj.events || []) {
    if (!Array.isArray(e) || e.length < 15) continue;
    if (+e[0] >= 999 && e === obj.events[obj.events.length - 1]) continue; // end marker
    const r = { t1: +e[0], t2: +e[1], t3: +e[2], t4: +e[3], client: String(e[4]), server: String(e[5]), lg1: +e[6], lg2: +e[7],
      id: +e[8], parent: +e[9], type: String(e[10]), method: String(e[11]), status: String(e[12]), len: +e[13], data: String(e[14]) };
    r.label = r.method + '.' + r.id;
    r.text = [r.method, r.id, r.status, r.type, r.client, r.server, r.data, r.label].join(' ');
    r.ok = /^(success|ok|)$/i.test(r.status);
    R.push(r);
  }
  R.sort((a, b) => a.t1 - b.t1 || a.id - b.id);
  const names = [...new Set(R.map(r => r.method))].sort();
  names.forEach((m, i) => METHODS.set(m, { color: METHOD_PAL[i % METHOD_PAL.length], n: 0 }));
  for (const r of R) { r.color = METHODS.get(r.method).color; r.word = word(r.color); METHODS.get(r.method).n++; }
  let a = Infinity, b = -Infinity; // (no Math.min(...list): a book page may hold 100k RPCs)
  for (const r of R) { a = Math.min(a, r.t1, r.t2); b = Math.max(b, r.t3, r.t4); }
  if (!(a < b)) { a = 0; b = 1; }
  P.T0 = a - (b - a) * 0.01; P.T1 = b + (b - a) * 0.03;
}

// ---------------------------------------------------------------- points
let PTS = null; // Float64Array pairs t, v
function pointRows(obj) {
  const list = (obj.points || []).filter(p => Array.isArray(p) && isFinite(p[0]) && isFinite(p[1]));
  PTS = new Float64Array(list.length * 2);
  list.forEach((p, i) => { PTS[2 * i] = +p[0]; PTS[2 * i + 1] = +p[1]; });
  let a = Infinity, b = -Infinity, c = Infinity, d = -Infinity;
  for (let i = 0; i < PTS.length; i += 2) { a = Math.min(a, PTS[i]); b = Math.max(b, PTS[i]); c = Math.min(c, PTS[i + 1]); d = Math.max(d, PTS[i + 1]); }
  if (!(a <= b)) { a = 0; b = 1; c = 0; d = 1; }
  const px = (b - a) * 0.02 || 1, py = (d - c) * 0.05 || 1;
  P.T0 = a - px; P.T1 = b + px; P.V0 = Math.min(0, c - py); P.V1 = d + py;
  P.v0 = P.V0; P.v1 = P.V1;
}

// ---------------------------------------------------------------- layout
function layout() {
  const bar = document.getElementById('bar').offsetHeight + document.getElementById('foot').offsetHeight;
  const W = Math.max(300, window.innerWidth - 16), H = Math.max(240, window.innerHeight - bar - 12);
  const dpr = window.devicePixelRatio || 1;
  if (cv.width !== Math.round(W * dpr) || cv.height !== Math.round(H * dpr)) {
    cv.width = Math.round(W * dpr); cv.height = Math.round(H * dpr); cv.style.width = W + 'px'; cv.style.height = H + 'px';
  }
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  const base = 14;
  L = { dpr, tickLabels: L.tickLabels || [], yTickLabels: L.yTickLabels || [], labelsShown: L.labelsShown || [], axisTitle: L.axisTitle, baseText: L.baseText, W, H, base, top: 10 + 2 * base, bottom: H - (3 * base + 16), left: KIND === 'rpc' ? 160 : 90, right: W - 30 };
  L.pw = L.right - L.left; L.ph = L.bottom - L.top;
  if (KIND === 'rpc') { // rows never all panned out of sight
    L.rowH = L.ph / Math.max(R.length, 1) * P.yk;
    P.ypan = Math.min(L.ph / 2, Math.max(P.ypan, L.ph / 2 - R.length * L.rowH));
  }
}
function xOf(t) { return L.left + (t - P.t0) / (P.t1 - P.t0) * L.pw; }
function tOf(x) { return P.t0 + (x - L.left) / L.pw * (P.t1 - P.t0); }
function rowTop(i) { return L.top + P.ypan + i * L.rowH; }
function yOfV(v) { return L.bottom - (v - P.v0) / (P.v1 - P.v0) * L.ph; }
function vOfY(y) { return P.v0 + (L.bottom - y) / L.ph * (P.v1 - P.v0); }

// ---------------------------------------------------------------- text
function niceStep(w, n) { const raw = w / n, p = Math.pow(10, Math.floor(Math.log10(raw))); const f = raw / p; return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * p; }
function decimals(step) { return Math.max(0, -Math.floor(Math.log10(step) + 1e-9)); }
function fmtDur(s) { // 3 significant digits
  const a = Math.abs(s);
  if (a >= 1) return s.toPrecision(3) + 's'; if (a >= 1e-3) return (s * 1e3).toPrecision(3) + 'ms';
  if (a >= 1e-6) return (s * 1e6).toPrecision(3) + 'us'; return (s * 1e9).toPrecision(3) + 'ns';
}
function tbParts() {
  const m = /^(\d{4}-\d\d-\d\d)[_ T](\d\d):(\d\d):(\d\d)/.exec(String(P.meta.tracebase || ''));
  return m ? { date: m[1], sod: +m[2] * 3600 + +m[3] * 60 + +m[4] } : null;
}
// Time axis of an RPC page: ticks in s, ms, us or ns after a whole base
// second (or millisecond), the base written at the lower left.
function timeTicks() {
  const W = P.t1 - P.t0;
  const [unit, name] = W >= 1 ? [1, 'sec'] : W >= 1e-3 ? [1e-3, 'msec'] : W >= 1e-6 ? [1e-6, 'µsec'] : [1e-9, 'nsec'];
  const baseStep = unit <= 1e-6 ? 1e-3 : 1;
  const base = Math.floor(P.t0 / baseStep + 1e-9) * baseStep;
  const step = niceStep(W, 10), d = decimals(step / unit);
  const list = [];
  for (let i = Math.ceil((P.t0 - base) / step - 1e-9); list.length < 40; i++) {
    const t = base + i * step; if (t > P.t1 + step * 1e-6) break;
    list.push({ t, label: ((i * step) / unit).toFixed(d) });
  }
  const tb = tbParts(); let baseText = base.toFixed(baseStep < 1 ? 3 : 0) + ' s';
  if (tb) { const abs = tb.sod + base; const h = Math.floor(abs / 3600) % 24, m = Math.floor(abs / 60) % 60, s = Math.floor(abs % 60);
    baseText = tb.date + ' ' + [h, m, s].map(v => String(v).padStart(2, '0')).join(':') + (baseStep < 1 ? '.' + String(Math.round((abs % 1) * 1000)).padStart(3, '0') : ''); }
  return { list, title: 'Time (' + name + ')', baseText };
}
function numTicks(a, b, n) {
  const step = niceStep(b - a, n), d = decimals(step), list = [];
  for (let i = Math.ceil(a / step - 1e-9); list.length < 40; i++) { const v = i * step; if (v > b + step * 1e-6) break; list.push({ v, label: v.toFixed(d) }); }
  return list;
}

// ---------------------------------------------------------------- drawing
let pending = false;
function redraw() { if (!pending) { pending = true; requestAnimationFrame(render); } }
function render() {
  pending = false; layout();
  ctx.fillStyle = '#fff'; ctx.fillRect(0, 0, L.W, L.H);
  ctx.fillStyle = '#0000AA'; ctx.font = 'bold ' + 2 * L.base + 'px serif'; ctx.textAlign = 'center'; ctx.textBaseline = 'middle';
  ctx.fillText(String(P.meta.title || ''), (L.left + L.right) / 2, L.top / 2);
  pbBegin(); drawGrid();
  const later = KIND === 'rpc' ? drawRpcs() : drawPoints();
  pbEnd();
  ctx.save(); ctx.beginPath(); ctx.rect(L.left, L.top, L.pw, L.ph); ctx.clip(); later(); ctx.restore();
  drawAxes();
  ctx.fillStyle = '#FF0000'; ctx.beginPath(); ctx.arc(L.left, L.bottom, 7, 0, 2 * Math.PI); ctx.fill();
  if (P.box) { ctx.strokeStyle = '#0000AA'; ctx.setLineDash([4, 3]); ctx.strokeRect(P.box.x0, P.box.y0, P.box.x1 - P.box.x0, P.box.y1 - P.box.y0); ctx.setLineDash([]); }
  if (P.hover) { ctx.font = '16px sans-serif'; const w = ctx.measureText(P.hover).width; ctx.fillStyle = 'rgba(255,255,255,0.92)'; ctx.fillRect(L.left + 2, L.bottom - 24, w + 8, 22);
    ctx.fillStyle = '#000'; ctx.textAlign = 'left'; ctx.textBaseline = 'middle'; ctx.fillText(P.hover, L.left + 6, L.bottom - 13); }
  P.draws = (P.draws || 0) + 1;
  updateStatus();
}
// The data go into a pixel buffer over the plot area (device pixels), put
// on the canvas in one call: a page of 50k RPCs or 1M points costs one
// pass over their numbers, not a canvas call each.  Frames and text are
// drawn on top afterwards.
const PB = { img: null, u32: null, w: 0, h: 0, d: 1, ox: 0, oy: 0 };
const WORDS = new Map();
function word(c) { // '#RRGGBB' -> the little-endian RGBA word of ImageData
  let w = WORDS.get(c);
  if (w === undefined) { const v = parseInt(c.slice(1), 16); w = (0xFF000000 | ((v & 255) << 16) | (v & 0xFF00) | ((v >> 16) & 255)) >>> 0; WORDS.set(c, w); }
  return w;
}
function pbBegin() {
  const d = L.dpr, ox = Math.round(L.left * d), oy = Math.round(L.top * d), w = Math.max(1, Math.round(L.right * d) - ox), h = Math.max(1, Math.round(L.bottom * d) - oy);
  if (!PB.img || PB.w !== w || PB.h !== h) { PB.img = ctx.createImageData(w, h); PB.u32 = new Uint32Array(PB.img.data.buffer); PB.w = w; PB.h = h; }
  PB.u32.fill(0xFFFFFFFF); PB.d = d; PB.ox = ox; PB.oy = oy;
}
function pbEnd() { ctx.putImageData(PB.img, PB.ox, PB.oy); }
function pbRect(x0, x1, y0, y1, w) { // CSS px; at least one device pixel each way
  const d = PB.d; let a = Math.floor(x0 * d) - PB.ox, b = Math.floor(x1 * d) - PB.ox, p = Math.floor(y0 * d) - PB.oy, q = Math.floor(y1 * d) - PB.oy;
  if (b <= a) b = a + 1; if (q <= p) q = p + 1;
  if (a < 0) a = 0; if (b > PB.w) b = PB.w; if (p < 0) p = 0; if (q > PB.h) q = PB.h;
  if (a >= b || p >= q) return;
  const u = PB.u32, W = PB.w;
  for (let y = p; y < q; y++) u.fill(w, y * W + a, y * W + b);
}
function pbDisc(x, y, r, w) { // CSS centre and radius; pixels whose centre is inside
  const d = PB.d, cx = x * d - PB.ox, cy = y * d - PB.oy, rr = r * d, u = PB.u32, W = PB.w;
  const p = Math.max(0, Math.ceil(cy - rr - 0.5)), q = Math.min(PB.h - 1, Math.floor(cy + rr - 0.5));
  for (let py = p; py <= q; py++) {
    const dy = py + 0.5 - cy, s = Math.sqrt(rr * rr - dy * dy);
    const a = Math.max(0, Math.ceil(cx - s - 0.5)), b = Math.min(W - 1, Math.floor(cx + s - 0.5));
    if (a <= b) u.fill(w, py * W + a, py * W + b + 1);
  }
}
// Rows in view: the first and last index whose band meets the plot.
function rowRange() { const a = Math.max(0, Math.floor(-P.ypan / L.rowH)); const b = Math.min(R.length, Math.ceil((L.ph - P.ypan) / L.rowH)); return [a, b]; }
function drawRpcs() {
  const [a, b] = rowRange(); let drawn = 0; const texts = [], frames = [];
  const font = Math.min(13, Math.floor(L.rowH * 0.75));
  const E = Math.max(1, L.rowH * 0.8), th = Math.max(1, Math.round(E / 5)), grey = word(GREY), black = word('#000000'), fail = word(FAIL);
  // Where rows share a pixel the last one drawn shows: search misses
  // first, then the hits, then the failed RPCs, which are never hidden.
  for (let pass = 0; pass < 3; pass++) for (let i = a; i < b; i++) {
    const r = R[i]; if (r.t4 < P.t0 || r.t1 > P.t1) continue;
    const on = !P.match || P.match[i];
    if (pass !== (!on ? 0 : r.ok ? 1 : 2)) continue;
    const top = rowTop(i), y = top + (L.rowH - E) / 2;
    // Too low for a frame: a failed RPC is drawn in red instead.
    const c = !on ? grey : !r.ok && E < 3 ? fail : r.word;
    const x1 = xOf(r.t1), x2 = xOf(r.t2), x3 = xOf(r.t3), x4 = xOf(r.t4);
    pbRect(x1, x2, y, y + th, c);            // request on the wire, along the top
    pbRect(x2, x3, y, y + E, c);             // server time
    pbRect(x3, x4, y + E - th, y + E, c);    // response on the wire, along the bottom
    if (E >= 5) { pbRect(x1, x1 + 1, y, y + E, on ? black : grey); pbRect(x4 - 1, x4, y, y + E, on ? black : grey); } // client send, receive
    if (!r.ok && on && E >= 3) frames.push([x2 - 1, y - 1, Math.max(1, x3 - x2) + 2, E + 2]);
    if (font >= 8 && on) texts.push([r, x1, x4, top + L.rowH / 2]);
    drawn++;
  }
  P.drawn = drawn;
  return () => {
    ctx.strokeStyle = FAIL; ctx.lineWidth = 2;
    for (const f of frames) ctx.strokeRect(f[0], f[1], f[2], f[3]);
    ctx.font = font + 'px sans-serif'; ctx.textBaseline = 'middle';
    for (const [r, x1, x4, yc] of texts) { // the RPC's text after its end, or before its start when there is no room
      const txt = r.label + (r.ok ? '' : ' ' + r.status) + '  ' + fmtDur(r.t4 - r.t1);
      const left = x4 + 4 + ctx.measureText(txt).width > L.right && x1 - 4 > L.left + 40;
      ctx.fillStyle = r.ok ? '#000' : FAIL; ctx.textAlign = left ? 'right' : 'left';
      ctx.fillText(txt, left ? x1 - 4 : Math.max(x4 + 4, L.left + 2), yc);
    }
  };
}
function drawPoints() {
  const R_ = +P.meta.dotR > 0 ? +P.meta.dotR : 2, col = /^#[0-9a-fA-F]{6}$/.test(P.meta.dotColor) ? P.meta.dotColor : '#0000AA';
  const w = word(col); let drawn = 0;
  for (let i = 0; i < PTS.length; i += 2) {
    const t = PTS[i], v = PTS[i + 1]; if (t < P.t0 || t > P.t1 || v < P.v0 || v > P.v1) continue;
    pbDisc(xOf(t), yOfV(v), R_, w); drawn++;
  }
  P.drawn = drawn;
  return () => {};
}
function xTicks() { return KIND === 'rpc' ? timeTicks() : { list: numTicks(P.t0, P.t1, 10).map(q => ({ t: q.v, label: q.label })), title: String(P.meta.axisLabelX || ''), baseText: '' }; }
function drawGrid() { // faint lines at the ticks, under the data
  const w = word('#F0F0F0');
  for (const q of xTicks().list) { const x = xOf(q.t); pbRect(x, x, L.top, L.bottom, w); }
  if (KIND === 'points') for (const q of numTicks(P.v0, P.v1, 8)) { const y = yOfV(q.v); pbRect(L.left, L.right, y, y, w); }
}
function drawAxes() {
  ctx.strokeStyle = '#000'; ctx.lineWidth = 1; ctx.beginPath();
  ctx.moveTo(L.left, L.bottom + 0.5); ctx.lineTo(L.right, L.bottom + 0.5); ctx.moveTo(L.left - 0.5, L.top); ctx.lineTo(L.left - 0.5, L.bottom); ctx.stroke();
  ctx.font = L.base + 'px sans-serif'; ctx.fillStyle = '#000'; ctx.textAlign = 'center'; ctx.textBaseline = 'top';
  const tk = xTicks(), xt = tk.list, title = tk.title, baseText = tk.baseText;
  let lastX = -1e9; L.tickLabels = [];
  for (const q of xt) { const x = xOf(q.t); if (x < L.left - 1 || x > L.right + 1) continue;
    ctx.beginPath(); ctx.moveTo(x, L.bottom); ctx.lineTo(x, L.bottom + 4); ctx.stroke();
    const w = ctx.measureText(q.label).width; if (x - w / 2 > lastX + 4) { ctx.fillText(q.label, x, L.bottom + 6); lastX = x + w / 2; L.tickLabels.push(q.label); } }
  ctx.fillText(title, (L.left + L.right) / 2, L.bottom + 8 + L.base); L.axisTitle = title;
  if (baseText) { ctx.textAlign = 'left'; ctx.fillStyle = '#0000AA'; ctx.fillText(baseText, 4, L.bottom + 8 + L.base); } L.baseText = baseText;
  ctx.textBaseline = 'middle'; ctx.textAlign = 'right'; ctx.fillStyle = '#000'; L.labelsShown = [];
  if (KIND === 'rpc') { // row labels, as many as fit
    const [a, b] = rowRange(); const every = Math.max(1, Math.ceil((L.base + 2) / L.rowH));
    for (let i = a; i < b; i++) { if (i % every) continue; const y = rowTop(i) + L.rowH / 2; if (y < L.top || y > L.bottom) continue;
      const r = R[i]; ctx.fillStyle = r.ok ? '#000' : FAIL; ctx.fillText((r.parent ? '↳ ' : '') + r.label, L.left - 6, y); L.labelsShown.push(r.label); }
  } else {
    const yt = numTicks(P.v0, P.v1, 8); L.yTickLabels = [];
    for (const q of yt) { const y = yOfV(q.v); if (y < L.top - 1 || y > L.bottom + 1) continue;
      ctx.beginPath(); ctx.moveTo(L.left - 4, y); ctx.lineTo(L.left, y); ctx.stroke(); ctx.fillText(q.label, L.left - 6, y); L.yTickLabels.push(q.label); }
    ctx.save(); ctx.translate(14, (L.top + L.bottom) / 2); ctx.rotate(-Math.PI / 2); ctx.textAlign = 'center';
    ctx.fillText(String(P.meta.axisLabelY || ''), 0, 0); ctx.restore();
  }
}

// ---------------------------------------------------------------- search (RPC pages)
// A time as on the CPU page (docs/spec/VIEWER.md 4.2): "12.0045" shows +-5 in its
// last digit (x 1.025), each '+' narrows and each '-' widens that.
const NARROW = [1, 0.4, 0.2, 0.1, 0.04, 0.02, 0.01, 0.004, 0.002], WIDEN = [1, 2, 4, 10, 20, 40, 100, 200, 400];
function timeJump(text) {
  const m = /^(\d\d?:)?(\d{1,3})\.(\d+)([+-]*)$/.exec(text); if (!m) return false;
  let t = parseFloat(m[2] + '.' + m[3]);
  const tb = tbParts(); if (m[1] && tb) t += (parseInt(m[1], 10) - Math.floor(tb.sod / 60) % 60) * 60;
  const np = (m[4].match(/\+/g) || []).length, nm = m[4].length - np;
  const half = Math.max(5e-9, 5 * Math.pow(10, -m[3].length) * NARROW[Math.min(8, np)] * WIDEN[Math.min(8, nm)] * 1.025);
  setWindow(t - half, t + half); return true;
}
// The search: a regex over method, id, status, type, hosts and data, and
// the client time T4 - T1 between min and max (µs).
function doSearch() {
  const el = document.getElementById('search'), text = el.value; P.not = document.getElementById('b_not').classList.contains('on');
  el.classList.remove('bad'); P.searchErr = '';
  if (timeJump(text)) { P.match = null; P.summary = ''; redraw(); return; }
  const num = id => { const v = parseFloat(document.getElementById(id).value); return isFinite(v) ? v * 1e-6 : null; };
  const lo = num('smin'), hi = num('smax');
  if (!text && lo === null && hi === null) { P.match = null; P.summary = ''; redraw(); return; }
  let re; try { re = new RegExp(text); } catch (e) { el.classList.add('bad'); P.searchErr = 'bad regex: ' + e.message; P.summary = P.searchErr; updateStatus(); return; }
  P.match = new Uint8Array(R.length); let n = 0, tot = 0, mn = Infinity, mx = 0;
  R.forEach((r, i) => {
    const d = r.t4 - r.t1;
    if (re.test(r.text) === P.not || (lo !== null && d < lo) || (hi !== null && d > hi)) return;
    P.match[i] = 1; n++; tot += d; mn = Math.min(mn, d); mx = Math.max(mx, d);
  });
  P.summary = 'Matches: ' + n + (n ? ', ' + fmtDur(tot) + ' [' + fmtDur(mn) + '..' + fmtDur(mx) + '] client time' : '');
  redraw();
}
function updateStatus() {
  const s = document.getElementById('status'); let t;
  if (KIND === 'rpc') t = P.summary || (R.length + ' RPCs' + (+P.meta.deltaT23 ? '; T2, T3 shifted by deltaT23 ' + fmtDur(+P.meta.deltaT23) : ''));
  else { const vis = visiblePoints(); t = PTS.length / 2 + ' points' + (vis.length ? '; ' + vis.length + ' in view, ' + P.meta.axisLabelY + ' ' + vis[0].toPrecision(3) + '..' + vis[vis.length - 1].toPrecision(3) + ', median ' + vis[vis.length >> 1].toPrecision(3) : ''); P.summary = t; }
  if (s.textContent !== t) s.textContent = t;
}
function visiblePoints() { const v = []; for (let i = 0; i < PTS.length; i += 2) if (PTS[i] >= P.t0 && PTS[i] <= P.t1 && PTS[i + 1] >= P.v0 && PTS[i + 1] <= P.v1) v.push(PTS[i + 1]); return v.sort((a, b) => a - b); }

// ---------------------------------------------------------------- hover
function hoverText(x, y) {
  if (KIND === 'rpc') {
    const i = Math.floor((y - L.top - P.ypan) / L.rowH); const r = R[i]; if (!r || x < L.left) return '';
    const t = tOf(x), slack = (P.t1 - P.t0) / L.pw * 8; if (t < r.t1 - slack || t > r.t4 + slack) return '';
    return r.label + (r.parent ? ' (parent ' + r.parent + ')' : '') + ' ' + r.type + ' ' + r.status + ', ' + r.client + ' -> ' + r.server +
      ': request ' + fmtDur(r.t2 - r.t1) + ', server ' + fmtDur(r.t3 - r.t2) + ', response ' + fmtDur(r.t4 - r.t3) +
      ', total ' + fmtDur(r.t4 - r.t1) + '; lglen ' + r.lg1 + '/' + r.lg2 + ', ' + r.len + ' B "' + r.data + '"';
  }
  let best = -1, bd = 100; // 10 px
  for (let i = 0; i < PTS.length; i += 2) { const dx = xOf(PTS[i]) - x, dy = yOfV(PTS[i + 1]) - y, d = dx * dx + dy * dy; if (d < bd) { bd = d; best = i; } }
  return best < 0 ? '' : (P.meta.axisLabelX || 't') + ' ' + PTS[best] + ', ' + (P.meta.axisLabelY || 'value') + ' ' + PTS[best + 1];
}

// ---------------------------------------------------------------- interaction
function setWindow(a, b) { if (!(b > a)) b = a + 1e-12; P.t0 = a; P.t1 = b; }
function setY(a, b) { if (!(b > a)) b = a + 1e-12; P.v0 = a; P.v1 = b; }
function reset() { setWindow(P.T0, P.T1); P.yk = 1; P.ypan = 0; if (KIND === 'points') setY(P.V0, P.V1); P.box = null; }
function mouse(ev) { const r = cv.getBoundingClientRect(); return [ev.clientX - r.left, ev.clientY - r.top]; }
function listen() {
  cv.addEventListener('wheel', ev => {
    ev.preventDefault(); const [x, y] = mouse(ev); const f = Math.pow(2, ev.deltaY / 500);
    if (x < L.left || ev.shiftKey) { // the Y axis
      if (KIND === 'rpc') { const ny = Math.max(1, P.yk / f); const y0 = y - L.top; P.ypan = y0 - (y0 - P.ypan) * (ny / P.yk); P.yk = ny; }
      else { const v = vOfY(y); setY(v - (v - P.v0) * f, v + (P.v1 - v) * f); }
    } else { const t = tOf(x); setWindow(t - (t - P.t0) * f, t + (P.t1 - t) * f); }
    redraw();
  }, { passive: false });
  cv.addEventListener('mousedown', ev => {
    const [x, y] = mouse(ev);
    if (Math.hypot(x - L.left, y - L.bottom) <= 8) { reset(); redraw(); return; }
    if (ev.shiftKey && KIND === 'points') { P.drag = { kind: 'box', x0: x, y0: y }; return; }
    P.drag = { kind: x < L.left ? 'y' : 'xy', x0: x, y0: y, t0: P.t0, t1: P.t1, v0: P.v0, v1: P.v1, pan0: P.ypan };
  });
  window.addEventListener('mousemove', ev => {
    const [x, y] = mouse(ev); const d = P.drag;
    if (d && d.kind === 'box') { P.box = { x0: Math.min(d.x0, x), x1: Math.max(d.x0, x), y0: Math.min(d.y0, y), y1: Math.max(d.y0, y) }; redraw(); return; }
    if (d) {
      if (d.kind === 'xy') { const dt = (x - d.x0) / L.pw * (d.t1 - d.t0); setWindow(d.t0 - dt, d.t1 - dt); }
      if (KIND === 'rpc' && (d.kind === 'y' || d.kind === 'xy')) P.ypan = d.pan0 + (y - d.y0);
      if (KIND === 'points' && d.kind === 'xy') { const dv = (y - d.y0) / L.ph * (d.v1 - d.v0); setY(d.v0 + dv, d.v1 + dv); }
      redraw(); return;
    }
    if (x >= L.left && x <= L.right && y >= L.top && y <= L.bottom) { const h = hoverText(x, y); if (h !== P.hover) { P.hover = h; redraw(); } }
  });
  window.addEventListener('mouseup', () => {
    const d = P.drag; P.drag = null;
    if (d && d.kind === 'box' && P.box) { const b = P.box; P.box = null;
      if (b.x1 - b.x0 >= 5 && b.y1 - b.y0 >= 5) { const a = tOf(b.x0), c = tOf(b.x1), v1 = vOfY(b.y0), v0 = vOfY(b.y1); setWindow(a, c); setY(v0, v1); }
      redraw(); }
  });
  cv.addEventListener('dblclick', ev => { const [x] = mouse(ev); if (x < L.left) return; const t = tOf(x), f = ev.shiftKey ? 2 : 0.5; setWindow(t - (t - P.t0) * f, t + (P.t1 - t) * f); redraw(); });
  window.addEventListener('resize', redraw);
}
// A page opened in the bare viewer: a canvas of our own, without the
// CPU viewer's handlers.
function takeOver() {
  const c = document.createElement('canvas'); c.id = 'cv'; cv.replaceWith(c); cv = c; ctx = cv.getContext('2d');
  document.getElementById('loading').style.display = 'none';
}

// ---------------------------------------------------------------- page
function bar() {
  const b = document.getElementById('bar'), foot = document.getElementById('foot');
  if (KIND === 'rpc') {
    b.innerHTML = '<span class="lbl">RPCs</span> <span class="lbl">Search:</span> <button id="b_not" title="Invert the search (like grep -v)">[!]</button> ' +
      '<input id="search" type="text" autocomplete="off" spellcheck="false" placeholder="regex, or a time 12.345+"> ' +
      '<span class="lbl" title="Client time T4 - T1 of the matches">µsec:</span> <input id="smin" type="text" size="5"> .. <input id="smax" type="text" size="5"> <span id="status"></span>';
    foot.innerHTML = '<span id="methods"></span> <span id="hint">One row per RPC: request on the wire (top line), server time (bar), response on the wire (bottom line); a red frame: status not Success. ' +
      'Wheel: zoom (over the labels: rows), drag: pan, double-click: zoom in. Red dot: reset.</span>';
    const ms = document.getElementById('methods');
    for (const [m, v] of METHODS) { const s = document.createElement('span'); s.className = 'method'; s.dataset.method = m;
      const sw = document.createElement('i'); sw.style.background = v.color; s.appendChild(sw); s.appendChild(document.createTextNode(m + ' (' + v.n + ')')); ms.appendChild(s); }
    for (const id of ['search', 'smin', 'smax']) document.getElementById(id).addEventListener('keyup', () => doSearch());
    document.getElementById('b_not').addEventListener('click', ev => { ev.target.classList.toggle('on'); doSearch(); });
  } else {
    b.innerHTML = '<span class="lbl">Points</span> <span id="status"></span>';
    foot.innerHTML = '<span id="hint">Wheel: zoom time (over the left axis or with shift: values), drag: pan, shift-drag: zoom to a box, double-click: zoom in. Red dot: reset.</span>';
  }
}
function state() {
  layout();
  const s = { kind: KIND, title: P.meta.title, t0: P.t0, t1: P.t1, summary: P.summary, searchError: P.searchErr || '', hover: P.hover, drawn: P.drawn, draws: P.draws,
    tickLabels: (L.tickLabels || []).slice(), axisTitle: L.axisTitle, baseText: L.baseText, status: document.getElementById('status').textContent,
    canvas: { w: L.W, h: L.H }, layout: { left: L.left, right: L.right, top: L.top, bottom: L.bottom } };
  if (KIND === 'rpc') Object.assign(s, { rpcs: R.length, rows: R.map(r => r.label), labelsShown: L.labelsShown.slice(), rowH: L.rowH,
    methods: [...METHODS].map(([m, v]) => ({ method: m, color: v.color, n: v.n })), matches: P.match ? R.filter((r, i) => P.match[i]).map(r => r.label) : null, deltaT23: P.meta.deltaT23 });
  else Object.assign(s, { points: PTS.length / 2, v0: P.v0, v1: P.v1, yTickLabels: (L.yTickLabels || []).slice(), axisLabelY: P.meta.axisLabelY, dotR: P.meta.dotR, dotColor: P.meta.dotColor });
  return s;
}
function start(obj) {
  P.meta = Object.assign({}, obj); delete P.meta.events; delete P.meta.points;
  document.title = 'KUtrace ' + (P.meta.title || '');
  if (KIND === 'rpc') rpcRows(obj); else pointRows(obj);
  bar(); reset(); listen();
  document.getElementById('loading').style.display = 'none';
  render();
  window.kutraceState = state;
  window.kutrace = {
    state, render: () => { render(); return state(); },
    setWindow: (a, b) => { setWindow(a, b); render(); }, setY: (a, b) => { setY(a, b); render(); },
    setRows: (yk, ypan) => { P.yk = yk; P.ypan = ypan || 0; render(); },
    search: text => { document.getElementById('search').value = text; doSearch(); render(); return P.summary; },
    xOf: t => { layout(); return xOf(t); }, yOfV: v => { layout(); return yOfV(v); },
    rowY: label => { layout(); const i = R.findIndex(r => r.label === label); if (i < 0) return null; const top = rowTop(i), E = Math.max(1, L.rowH * 0.8); return { top, y: top + (L.rowH - E) / 2, E, th: Math.max(1, Math.round(E / 5)), h: L.rowH }; },
    rpc: label => R.find(r => r.label === label) || null,
    hoverAt: (x, y) => hoverText(x, y),
  };
  window.kutraceReady = true;
  document.dispatchEvent(new Event('kutrace-ready'));
}
if (KIND) load().catch(e => { document.getElementById('loading').textContent = 'Cannot load the page: ' + e.message; window.kutraceError = String(e && e.stack || e); });
})();

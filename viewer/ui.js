// SPDX-License-Identifier: BSD-3-Clause
// The viewer's interaction: search, the span under the mouse, pan, zoom,
// highlight and measure, the buttons and secondary controls, saved views,
// export, the test hook (window.kutraceState, window.kutrace) and the
// start of the page.  Uses data.js and draw.js (see data.js).
// ---------------------------------------------------------------- search
function parseNum(s) { if (s === '' || s == null) return null; const v = parseFloat(s); return isFinite(v) ? v : null; }
const TIME_RE = /^(\d\d?:)?(\d{1,3})\.(\d+)([+-]*)$/;
const PLUS = [1, 0.4, 0.2, 0.1, 0.04, 0.02, 0.01, 0.004, 0.002], MINUS = [1, 2, 4, 10, 20, 40, 100, 200, 400];
function timeSearch(text) {
  const m = TIME_RE.exec(text); if (!m) return false;
  const tb = tbParts(); const baseMin = Math.floor(tb.sod / 60) % 60;
  let t = parseFloat(m[2] + '.' + m[3]);
  if (m[1]) { const mm = parseInt(m[1], 10); if (mm < baseMin) return false; t += (mm - baseMin) * 60; }
  const pl = (m[4].match(/\+/g) || []).length, mi = (m[4].match(/-/g) || []).length;
  let half = 5 * Math.pow(10, -m[3].length);
  if (pl) half *= PLUS[Math.min(8, pl)]; if (mi) half *= MINUS[Math.min(8, mi)];
  half *= 1.025; if (half < 5e-9) half = 5e-9;
  setWindow(t - half, t + half); return true;
}
function atat() {
  const c = (S.t0 + S.t1) / 2; const half = (S.t1 - S.t0) / 2 / 1.025 / 1.03;
  const k = Math.floor(Math.log10(half)); let v = 0;
  for (const m of [1, 2, 5, 10]) { if (m * Math.pow(10, k) >= half * (1 - 1e-9)) { v = m * Math.pow(10, k); break; } }
  let d = Math.max(1, Math.round(-Math.log10(v / 5))); // base = 5e-d
  if (5 * Math.pow(10, -d) < v * (1 - 1e-9)) d = Math.max(1, d - 1);
  while (d < 12 && 5 * Math.pow(10, -(d + 1)) >= v * (1 - 1e-9)) d++;
  const ratio = v / (5 * Math.pow(10, -d)); let suf = '';
  if (ratio < 0.9) { const i = PLUS.findIndex(p => Math.abs(p - ratio) < 1e-6); suf = '+'.repeat(Math.max(0, i)); }
  else if (ratio > 1.1) { const i = MINUS.findIndex(p => Math.abs(p - ratio) < 1e-6); suf = '-'.repeat(Math.max(0, i)); }
  const tb = tbParts(); let sec = c; let prefix = '';
  if (sec >= 1000 || sec < 0) { const baseMin = Math.floor(tb.sod / 60) % 60; const mins = Math.floor(sec / 60); prefix = String(baseMin + mins).padStart(2, '0') + ':'; sec -= mins * 60; }
  return prefix + sec.toFixed(d) + suf;
}

function doSearch(fromEnter) {
  const el = document.getElementById('search'); const text = el.value; S.search.text = text;
  S.search.min = document.getElementById('smin').value; S.search.max = document.getElementById('smax').value;
  S.anns = []; S.summary = ''; S.searchErr = ''; el.classList.remove('bad');
  S.btn.user = 0; S.btn.all = 0;
  if (fromEnter && text) { const i = recent.indexOf(text); if (i >= 0) recent.splice(i, 1); recent.unshift(text); if (recent.length > 20) recent.pop(); }
  const why = /^why\s+(\S+)$/.exec(text); // "why rpc:ID": the critical path (why.js)
  if (why) { S.summary = whyOpen(why[1]) || 'why ' + why[1]; syncButtons(); redraw(); return; }
  if (text === '@@') { const s = atat(); el.value = s; S.search.text = s; timeSearch(s); syncButtons(); redraw(); return; }
  if (timeSearch(text)) { syncButtons(); redraw(); return; }
  const unit = UNITS[S.search.units][1];
  const mn = parseNum(S.search.min), mx = parseNum(S.search.max);
  if (text === '' && (mn === null || mn < 1) && (mx === null || mx < 1)) { syncButtons(); redraw(); return; }
  let re;
  try { re = new RegExp(text); } catch (e) { S.searchErr = 'bad regex: ' + e.message.replace(/^Invalid regular expression: /, ''); el.classList.add('bad'); S.summary = S.searchErr; syncButtons(); redraw(); return; }
  const r = runSearch(re, text[0] === '-', mn === null ? 0 : mn * unit, mx === null ? Infinity : mx * unit, S.search.not, true, text[3] === '=' && !!(D.meta.flags & 0xA0));
  S.summary = r.summary; syncButtons(); redraw();
}
function visibleRowSpan(k) {
  const a = D.cpuRow[k], b = D.pidRow[k], c = D.rpcRow[k];
  return (a >= 0 && ROWS[a].h > 0) || (b >= 0 && ROWS[b].h > 0) || (c >= 0 && ROWS[c].h > 0);
}
function runSearch(re, dashOK, mn, mx, not, annotate, ipcS) {
  const ts = D.ts, dur = D.dur, ev = D.ev, nm = D.names, nmi = D.nm;
  layout();
  const t0 = S.t0, t1 = S.t1; const lo = firstGlobal(t0 - 5); // PC samples use end time
  const cache = new Map(); const long = S.btn.annot === 0;
  // A pattern of letters only (alternatives, ^) cannot match across the
  // '(arg)=ret' digits, so the name alone decides unless ret is an errno name.
  const byName = /^\^?[A-Za-z_]+(\|\^?[A-Za-z_]+)*$/.test(re.source);
  let count = 0, total = 0, vmin = Infinity, vmax = 0; let lastX = -1;
  const anns = [];
  const P = (t1 - t0) / L.pw;
  for (let k = lo; k < D.n; k++) {
    const e = ev[k]; if (e < 0) continue;
    let t = ts[k]; if (e === EV_PCU || e === EV_PCK) t += dur[k];
    if (t > t1) { if (ts[k] > t1) break; continue; }
    if (t < t0) continue;
    if (anyHL && !hlSpan[k]) continue;
    if (e === EV_LEFT || e === EV_RIGHT) continue;
    if (!visibleRowSpan(k)) continue;
    const d = dur[k];
    let ok = d >= mn && d <= mx;
    if (ok && ipcS) { // 'ipc=3\.': match ' ipc=<v> llc=<v>' of spans with IPC data
      ok = D.ipc[k] > 0 && d > 1e-8 && re.test(ipcText(k));
    } else if (ok) {
      const name = nm[nmi[k]];
      if (e >= EV_MARKA && e <= EV_MARKD) ok = re.test(name) || re.test(markText(k)); // a mark is found by its text (mark_d: the number)
      else if (name[0] === '-' && !dashOK) ok = false;
      else {
        const simple = !long || !(isSyscall(e) || (e >= 0x200 && e < 0x300) || (e >= 0x500 && e < 0x600)) ||
          (byName && !(isSyscall(e) && D.ret[k] > 65408 && D.ret[k] <= 65535));
        if (simple) { let c = cache.get(nmi[k]); if (c === undefined) { c = re.test(name); cache.set(nmi[k], c); } ok = c; }
        else ok = re.test(nameArg(k, true));
      }
    }
    if (not) ok = !ok;
    if (!ok) continue;
    count++; total += d; if (d < vmin) vmin = d; if (d > vmax) vmax = d;
    if (annotate) { const x = Math.floor((t - t0) / P); if (x > lastX) { anns.push({ k, long: false }); lastX = x; } }
  }
  if (annotate) S.anns = anns.slice(0, 5000);
  const summary = count ? 'Matches: ' + count + ', ' + fmt5(total) + ' [' + fmt4(vmin) + '..' + fmt4(vmax) + ']' : 'Matches: 0, 0';
  S.last = { count, total, min: count ? vmin : 0, max: vmax, summary };
  return S.last;
}
// first global span index with ts >= v
function firstGlobal(v) { const ts = D.ts; let lo = 0, hi = D.n; while (lo < hi) { const m = (lo + hi) >> 1; if (ts[m] >= v) hi = m; else lo = m + 1; } return lo; }

// ---------------------------------------------------------------- nearest span
function rowAtY(y) {
  let best = null;
  for (const it of L.items) { if (!it.row) continue; const g = rowGeom(it.row); if (y >= g.top - g.px / 4 && y < g.top + g.px) best = it.row; }
  return best;
}
// The mark whose line or box is under (x, y), else -1 (hover: the text of
// a mark drawn as a bare marker).
function markAt(x, y) { let best = -1, bd = 4; for (const m of markBoxes()) if (y >= m[6] && y <= m[7] && Math.abs(m[5] - x) < bd) { bd = Math.abs(m[5] - x); best = m[3]; } return best; }
function nearestSpan(r, t, y) {
  if (!r) return -1;
  if (!r.ready) ensureRows();
  const g = rowGeom(r); const above = y < g.yc - g.E / 2, below = y > g.yc + g.E / 2;
  const cand = []; const ts = D.ts, dur = D.dur;
  for (const list of [r.ex, r.ov]) {
    let j = firstTsAtLeast(list, 0, list.length, t + 1e-12) - 1;
    for (let q = j, lim = Math.max(0, j - 2000); q >= lim; q--) {
      const k = list[q]; const e = D.ev[k];
      const samp = e === EV_PCU || e === EV_PCK, lock = e === EV_LOCKHELD || e === EV_LOCKTRY, fq = e === EV_PSTATE || e === EV_PSTATE2;
      if (above && (S.btn.samp || S.btn.lock)) { if (!samp && !lock) continue; }
      else if (below && S.btn.freq) { if (!fq) continue; }
      else if (samp || lock || fq) continue;
      if (ts[k] <= t && ts[k] + dur[k] >= t) { cand.push(k); break; }
    }
  }
  if (!cand.length) return -1;
  return cand.reduce((a, b) => (ts[b] > ts[a] ? b : a));
}

// ---------------------------------------------------------------- interaction
function setWindow(a, b) { if (!(b > a)) b = a + 1e-9; S.t0 = a; S.t1 = b; }
WHY.goTo = (a, b) => { setWindow(a, b); onPanZoomDone(); }; // why.js opens a path's window
let drag = null;
function inPlot(x, y) { return x >= L.left && x <= L.right && y >= L.top && y <= L.bottom + L.base; }
function onPanZoomDone() {
  S.showHeader = false; S.btn.user = 0; S.btn.all = 0;
  if (S.anns.length > 1 || (S.anns.length === 1 && !S.anns[0].long)) {
    const tm = lastMouse.t; let best = null, bd = Infinity;
    for (const a of S.anns) { const d = Math.abs(D.ts[a.k] - tm); if (d < bd) { bd = d; best = a; } }
    S.anns = best ? [{ k: best.k, long: true, row: best.row }] : [];
  }
  syncButtons();
}
const lastMouse = { x: 0, y: 0, t: 0 };
cv.addEventListener('wheel', ev => {
  ev.preventDefault(); const r = cv.getBoundingClientRect(); const x = ev.clientX - r.left, y = ev.clientY - r.top;
  const f = Math.pow(2, ev.deltaY / 500);
  if (x < L.left && x > L.left / 4) { // Y zoom about the pointer
    const ny = S.yk / f; const y0 = y - L.top - 5; S.ypan = y0 - (y0 - S.ypan) * (ny / S.yk); S.yk = ny; redraw(); return;
  }
  const t = tOf(x); setWindow(t - (t - S.t0) * f, t + (S.t1 - t) * f); lastMouse.t = t; onPanZoomDone(); redraw();
}, { passive: false });
cv.addEventListener('contextmenu', ev => ev.preventDefault());
cv.addEventListener('mousedown', ev => {
  const r = cv.getBoundingClientRect(); const x = ev.clientX - r.left, y = ev.clientY - r.top;
  lastMouse.x = x; lastMouse.y = y; lastMouse.t = tOf(x);
  if (Math.hypot(x - L.left, y - L.bottom) <= 8 && !S.legend) { if (ev.shiftKey) toggleMenu(); else { saveView(0); resetView(); } return; }
  if (S.legend) { toggleLegend(); return; }
  for (const h of (S.coHit || []).slice().reverse()) { // callouts: drag the bubble, or the spike's tip
    const tip = Math.hypot(x - h.tx, y - h.ty) <= 6, box = x >= h.x && x <= h.x + h.w && y >= h.y && y <= h.y + h.h;
    if (!tip && !box) continue;
    const c = D.extra[h.i]; drag = { kind: box ? 'bubble' : 'spike', i: h.i, x0: x, y0: y, a0: +c[6] || 0, r0: +c[7] || 0, rowPx: h.rowPx || 1 };
    return;
  }
  if (x < L.left && y > L.bottom + L.base * 0.6) { // the base time: relative mode; shift-click clears localStorage
    if (ev.shiftKey) { try { localStorage.clear(); } catch (e) { /* storage off */ } S.summary = 'localStorage cleared'; updateStatus(); }
    else { S.relative = !S.relative; redraw(); }
    return;
  }
  if (x < L.left) { // labels
    if (machClick(x, y)) { redraw(); return; }
    for (const it of L.items) if (it.header && Math.abs(y - (yOf(it.y) + it.h / 2 * L.ppt)) < L.base / 2 + 2 && x < L.left * 0.75) { toggleGroup(it.header); return; }
    const row = rowAtY(y);
    if (ev.shiftKey && row && x > L.left / 4) {
      if (ev.button === 2) prefixHighlight(row); else { row.hl = !row.hl; recomputeHL(); }
      redraw(); return;
    }
    if (x > L.left / 4) drag = { kind: 'y', y0: y, pan0: S.ypan };
    return;
  }
  if (ev.shiftKey) {
    const row = rowAtY(y); const k = nearestSpan(row, tOf(x), y);
    if (ev.button === 2) { if (k >= 0) eventHighlight(k, row); return; }
    drag = { kind: 'shift', x0: x, y0: y, k0: k, row0: row, moved: false };
    if (k >= 0) { S.anns.push({ k, long: S.btn.annot === 0, row }); redraw(); }
    return;
  }
  if (inPlot(x, y)) drag = { kind: 'x', x0: x, t0: S.t0, t1: S.t1 };
});
window.addEventListener('mousemove', ev => {
  const r = cv.getBoundingClientRect(); const x = ev.clientX - r.left, y = ev.clientY - r.top;
  if (drag && drag.kind === 'x') {
    const dt = (x - drag.x0) / L.pw * (drag.t1 - drag.t0); setWindow(drag.t0 - dt, drag.t1 - dt); drag.moved = true; redraw(); return;
  }
  if (drag && drag.kind === 'y') { S.ypan = drag.pan0 + (y - drag.y0); redraw(); return; }
  if (drag && drag.kind === 'bubble') { const c = D.extra[drag.i]; c[6] = Math.round(drag.a0 + x - drag.x0); c[7] = Math.round((drag.r0 + (y - drag.y0) / drag.rowPx) * 10) / 10; redraw(); return; }
  if (drag && drag.kind === 'spike') { // snap the tip to the start of the nearest span on the row under the mouse
    const row = rowAtY(y); const k = nearestSpan(row, tOf(x), y);
    if (k >= 0 && row) { const c = D.extra[drag.i]; c[0] = D.ts[k]; const gn = row.group.name; c[2] = gn === 'CPU' ? row.id : -1; c[3] = gn === 'PID' ? row.id : 0; c[4] = gn === 'RPC' ? row.id : 0; redraw(); }
    return;
  }
  if (drag && drag.kind === 'shift' && Math.abs(x - drag.x0) >= 5) {
    const row = rowAtY(y); const k = nearestSpan(row, tOf(x), y);
    if (drag.k0 >= 0 && k >= 0) {
      S.measure = { ta: D.ts[drag.k0], tb: D.ts[k] };
      S.anns = S.anns.filter(a => a.k === drag.k0); if (k !== drag.k0) S.anns.push({ k, long: true, row });
      drag.moved = true; redraw();
    }
    return;
  }
  if (Math.hypot(x - lastMouse.hx, y - lastMouse.hy) >= 5 || lastMouse.hx === undefined) {
    lastMouse.hx = x; lastMouse.hy = y; clearTimeout(hoverTimer);
    hoverTimer = setTimeout(() => { if (!inPlot(x, y)) return; const mk = markAt(x, y); const row = rowAtY(y); const k = mk >= 0 ? mk : nearestSpan(row, tOf(x), y); const s = k >= 0 ? longText(k) : ''; if (s !== S.hover) { S.hover = s; redraw(); } }, 50);
  }
});
let hoverTimer = 0;
window.addEventListener('mouseup', ev => {
  if (!drag) return;
  const d = drag; drag = null;
  if (d.kind === 'x' && d.moved) { onPanZoomDone(); redraw(); }
  if (d.kind === 'shift' && !d.moved && ev.shiftKey) { S.anns = []; S.measure = null; if (S.hlEv.length) { S.hlEv = []; recomputeHL(); } redraw(); }
});
cv.addEventListener('dblclick', ev => {
  const r = cv.getBoundingClientRect(); const x = ev.clientX - r.left; if (x < L.left) return;
  const t = tOf(x); const f = ev.shiftKey ? 2 : 0.5; setWindow(t - (t - S.t0) * f, t + (S.t1 - t) * f); onPanZoomDone(); redraw();
});
window.addEventListener('resize', () => redraw());

function toggleGroup(g) {
  if (!g.rows.length) return;
  if (g.hasHL) g.open = g.open === 'open' ? 'hl' : g.open === 'hl' ? 'closed' : 'open';
  else g.open = g.open === 'closed' ? 'open' : 'closed';
  redraw();
}
function prefixOf(label) { const m = /^[A-Za-z_-][A-Za-z_-]*/.exec(label); return m ? m[0] : label; }
function prefixHighlight(row) {
  const p = prefixOf(row.label); const to = !row.hl;
  for (const r of row.group.rows) if (r.label.startsWith(p)) r.hl = to;
  recomputeHL();
}
function eventHighlight(k, row) {
  const e = D.ev[k]; const same = x => x === e || (x === EV_IDLE && e === EV_IDLE);
  if (!S.hlEv.some(same)) { S.hlEv = [e].concat(S.hlEv.slice(0, 1)); }
  recomputeHL();
  S.anns = [{ k, long: true, row }];
  const name = D.names[D.nm[k]]; document.getElementById('search').value = name;
  // count the visible matches of the highlighted event numbers
  const evs = S.hlEv; layout();
  let count = 0, total = 0, mn = Infinity, mx = 0;
  for (let q = 0; q < D.n; q++) { const x = D.ev[q]; if (x !== evs[0] && x !== evs[1]) continue; if (D.ts[q] < S.t0 || D.ts[q] > S.t1 || !visibleRowSpan(q)) continue;
    count++; total += D.dur[q]; mn = Math.min(mn, D.dur[q]); mx = Math.max(mx, D.dur[q]); }
  S.summary = count ? 'Matches: ' + count + ', ' + fmt5(total) + ' [' + fmt4(mn) + '..' + fmt4(mx) + ']' : 'Matches: 0, 0';
  redraw();
}

// ---------------------------------------------------------------- buttons
const BTN = { mark: [3, 2, 1, 0], arc: [2, 1, 0], lock: [2, 1, 0], freq: [2, 1, 0], ipc: [0, 3, 2, 1] };
function avail(name) {
  if (name === 'lock') return D.hasLock; if (name === 'freq') return D.hasFreq; if (name === 'samp') return D.hasSamp;
  if (name === 'ipc') return !!(D.meta.flags & 0xA0); return true;
}
// DOM writes only where something changed (each write invalidates style).
function setCls(id, c) { const el = document.getElementById(id); if (el.className !== c) el.className = c; }
function setText(id, t) { const el = document.getElementById(id); if (el.textContent !== t) el.textContent = t; }
function syncButtons() {
  for (const name of ['user', 'all', 'mark', 'arc', 'lock', 'freq', 'ipc', 'samp', 'cb']) {
    const v = S.btn[name];
    const c = !avail(name) ? 'na' : !v ? '' : (name === 'arc' || name === 'lock' || name === 'freq') && v === 1 ? 'bold' : (name === 'mark' && v < 3) || (name === 'ipc' && v < 3 && v > 0) || (name === 'samp' && v === 1) ? 'part' : 'on';
    setCls('b_' + name, name === 'cb' && S.hack ? (c + ' hack').trim() : c);
  }
  if (D.meta.flags & 0xA0) setText('b_ipc', (D.meta.flags & 0xA0) === 0xA0 ? 'Both' : (D.meta.flags & 0x80) ? 'IPC' : 'LLC');
  setCls('b_not', S.search.not ? 'on' : '');
  setCls('m_fade', S.fade ? 'on' : '');
  setCls('m_legend', S.legend ? 'on' : '');
  setText('annot', S.btn.annot ? 'annot:' : 'Annot:');
  setText('units', UNITS[S.search.units][0] + ':');
  updateStatus();
}
function clickBtn(name, shift) {
  if (!avail(name)) return;
  if (name === 'user' || name === 'all') { S.btn[name] = S.btn[name] ? 0 : 1; S.btn[name === 'user' ? 'all' : 'user'] = 0; labelAll(name); }
  else if (name === 'cb') { if (shift) S.hack = !S.hack; else S.btn.cb ^= 1; } // shift: hack mode (all arcs, dots, local_timer 5 px wide)
  else if (name === 'samp') S.btn.samp = shift ? [2, 1, 0][[0, 2, 1].indexOf(S.btn.samp)] : S.btn.samp ? 0 : 2;
  else { const seq = BTN[name]; const i = seq.indexOf(S.btn[name]); S.btn[name] = seq[(i + 1) % seq.length]; }
  syncButtons(); redraw();
}
function labelAll(name) {
  S.anns = []; if (!S.btn[name]) return; layout();
  const P = (S.t1 - S.t0) / L.pw; const seen = new Set(); const lastX = new Map();
  const lo = firstGlobal(S.t0);
  for (let k = lo; k < D.n && D.ts[k] <= S.t1; k++) {
    const e = D.ev[k]; if (anyHL && !hlSpan[k]) continue; if (!visibleRowSpan(k)) continue;
    if (name === 'user') { if (!isUser(e) || seen.has(e)) continue; const nm = D.names[D.nm[k]]; if (nm[0] === '.' && !nm.startsWith('./')) continue; seen.add(e); }
    else { if (e < 0 || e === EV_IDLE || (e >= EV_MARKA && e <= EV_RIGHT) || e === EV_PCU || e === EV_PCK || e === EV_PSTATE || e === EV_PSTATE2 || e === EV_RPCRX || e === EV_RPCTX) continue; }
    const r = annRow(k); if (!r) continue; const x = Math.floor((D.ts[k] - S.t0) / P);
    if ((lastX.get(r) ?? -1) >= x) continue; lastX.set(r, x);
    S.anns.push({ k, long: false, row: r });
  }
}
for (const name of ['user', 'all', 'mark', 'arc', 'lock', 'freq', 'ipc', 'samp', 'cb'])
  document.getElementById('b_' + name).addEventListener('click', ev => clickBtn(name, ev.shiftKey));
document.getElementById('annot').addEventListener('click', () => { S.btn.annot ^= 1; S.btn.user = S.btn.all = 0; syncButtons(); redraw(); });
document.getElementById('b_not').addEventListener('click', () => { S.search.not = !S.search.not; doSearch(false); });
document.getElementById('units').addEventListener('click', () => { S.search.units = [2, 0, 1][S.search.units]; doSearch(false); });
let searchTimer = 0;
for (const id of ['search', 'smin', 'smax']) {
  document.getElementById(id).addEventListener('keyup', ev => {
    clearTimeout(searchTimer);
    if (ev.key === 'Enter') { hideRecent(); doSearch(true); return; }
    if (id === 'search') showRecent();
    searchTimer = setTimeout(() => doSearch(false), D.n > 300000 ? 150 : 0);
  });
}
function showRecent() {
  const box = document.getElementById('recent'); const q = document.getElementById('search').value;
  const list = recent.filter(s => s.includes(q)).slice(0, 7); box.innerHTML = '';
  for (const s of list) { const d = document.createElement('div'); d.textContent = s; d.addEventListener('mousedown', e => { e.preventDefault(); document.getElementById('search').value = s; hideRecent(); doSearch(true); }); box.appendChild(d); }
  box.style.display = list.length ? 'block' : 'none';
}
function hideRecent() { document.getElementById('recent').style.display = 'none'; }
document.getElementById('search').addEventListener('blur', () => setTimeout(hideRecent, 100));
document.getElementById('more').addEventListener('click', () => { const m = document.getElementById('morehelp'); m.hidden = !m.hidden; document.getElementById('more').textContent = m.hidden ? '[more]' : '[less]'; redraw(); });
document.getElementById('legendbtn').addEventListener('click', () => toggleLegend());
function toggleLegend() { S.legend = (S.legend + 1) % 3; syncButtons(); redraw(); } // landscape -> portrait -> off

// ---------------------------------------------------------------- secondary controls (docs/spec/VIEWER.md 4.6)
const CFG_IN = { aspect: 'm_aspect', ychars: 'm_ychars', ypx: 'm_ypx', txt: 'm_txt', spn: 'm_spn' };
function setCfg(key, text) { // returns true if accepted
  text = String(text).trim(); const v = Number(text);
  let ok = false;
  if (key === 'aspect') ok = /^\d:\d$/.test(text) && (text === '0:0' || (text[0] !== '0' && text[2] !== '0'));
  else if (key === 'ychars' || key === 'ypx') ok = Number.isInteger(v) && v > 4 && v <= 200;
  else if (key === 'txt') ok = Number.isInteger(v) && v >= 0 && v <= 20;
  else if (key === 'spn') ok = Number.isInteger(v) && v > 0 && v <= 20;
  if (ok) S.cfg[key] = key === 'aspect' ? text : v;
  document.getElementById(CFG_IN[key]).value = S.cfg[key];
  redraw(); return ok;
}
for (const key of Object.keys(CFG_IN)) {
  const el = document.getElementById(CFG_IN[key]);
  el.addEventListener('change', () => setCfg(key, el.value));
  el.addEventListener('keyup', ev => { if (ev.key === 'Enter') setCfg(key, el.value); });
}
function toggleMenu(on) { S.menu = on === undefined ? !S.menu : !!on; document.getElementById('menu2').hidden = !S.menu; redraw(); }
document.getElementById('menubtn').addEventListener('click', () => toggleMenu());
document.getElementById('m_legend').addEventListener('click', () => toggleLegend());
document.getElementById('m_fade').addEventListener('click', () => { S.fade = !S.fade; syncButtons(); redraw(); });
document.getElementById('m_callout').addEventListener('click', () => { const t = prompt('New callout name:', ''); if (t) addCallout(t); });
document.getElementById('m_export').addEventListener('click', () => doExport());
function addCallout(text) {
  layout();
  let k = -1; for (let i = S.anns.length - 1; i >= 0; i--) { const a = S.anns[i]; if (D.ts[a.k] >= S.t0 && D.ts[a.k] <= S.t1) { k = a.k; break; } }
  const row = k >= 0 ? [D.ts[k], 0, D.cpu[k], D.pid[k], D.rpc[k], EV_CALLOUT, 10, -0.4, 0, String(text)]
    : [(S.t0 + S.t1) / 2, 0, G[0].rows.length ? G[0].rows[0].id : 0, 0, 0, EV_CALLOUT, 10, -0.4, 0, String(text)];
  D.extra.push(row); redraw(); return D.extra.length - 1;
}
async function doExport() {
  const text = exportText(); S.lastExport = text;
  let copied = false;
  try { if (navigator.clipboard && navigator.clipboard.writeText) { await navigator.clipboard.writeText(text); copied = true; } } catch (e) { /* fall back */ }
  if (!copied) {
    const ta = document.createElement('textarea'); ta.value = text; ta.style.position = 'fixed'; ta.style.left = '-9999px'; document.body.appendChild(ta); ta.select();
    try { copied = document.execCommand('copy'); } catch (e) { copied = false; }
    ta.remove();
  }
  const nv = views.filter(v => v.view).length;
  alert((copied ? 'Copied ' : 'Could not copy (select and copy from the console) ') + D.extra.length + ' callouts, ' + nv + ' views to clipboard' +
    (copied ? '. Paste it in place of the last line ( ]} ) of the JSON and run makeself again.' : ''));
  if (!copied) console.log(text);
}

// ---------------------------------------------------------------- views
// A saved view (docs/spec/VIEWER.md 4.5) in the original viewer's shape, so that
// pages exported by either viewer restore in both: the time window
// (xleft_ts, xright_ts; savedtransformX and rangeX for the original's
// zoom), the Y zoom and pan, per group its length, state (groupExpanded:
// 0 collapsed, 1 open, 2 open with only the highlighted rows) and whether
// it has highlighted rows, every button (ui_*), the search text, [!],
// units, min and max, relative time, the kept annotation (annotIndex, an
// event index) and the per-row highlight flags (rowToHilite: rows in
// CPU, PID, RPC order; a 0 followed by a count stands for that many rows
// off, a final lone 0 for all the rest).  kt_* keys are kutrace's own.
const UI_KEYS = ['annot', 'user', 'all', 'mark', 'arc', 'lock', 'freq', 'ipc', 'samp', 'cb'];
const GSTATE = ['closed', 'open', 'hl'];
function packHL(flags) {
  const out = []; let i = 0;
  while (i < flags.length) {
    if (flags[i]) { out.push(1); i++; continue; }
    let j = i; while (j < flags.length && !flags[j]) j++;
    if (j === flags.length) { out.push(0); break; }
    out.push(0, j - i); i = j;
  }
  return out.length ? out : [0];
}
function unpackHL(a, n) {
  const out = new Uint8Array(n); let p = 0;
  for (let i = 0; i < a.length && p < n; i++) {
    if (a[i]) { out[p++] = 1; continue; }
    if (i + 1 >= a.length) break; // the rest are 0
    p += Math.max(0, +a[++i] || 0);
  }
  return out;
}
function getView() {
  layout();
  const full = Math.max(1e-12, D.t1 - D.t0), k = full / (S.t1 - S.t0);
  const v = { savedtransformX: { k, x: -(S.t0 - D.t0) / full * L.pw * k, y: 0 }, rangeX: L.pw, xleft_ts: S.t0, xright_ts: S.t1,
    savedtransformY: { k: S.yk, x: 0, y: S.ypan }, ytop_track: Math.round(-S.ypan / L.ppt),
    groupLen: G.map(g => g.rows.length), groupExpanded: G.map(g => GSTATE.indexOf(g.open)), groupHasHilite: G.map(g => (g.hasHL ? 1 : 0)) };
  for (const key of UI_KEYS) v['ui_' + key] = S.btn[key];
  Object.assign(v, { searchText: S.search.text, searchNot: S.search.not ? 1 : 0, searchUnits: S.search.units, searchMin: S.search.min, searchMax: S.search.max,
    relativeTime: S.relative ? 1 : 0, annotIndex: S.anns.length ? S.anns[S.anns.length - 1].k : -1, rowToHilite: packHL(ROWS.map(r => (r.hl ? 1 : 0))),
    kt_hlEv: S.hlEv.slice(), kt_fade: S.fade ? 1 : 0, dummy: 0 });
  return v;
}
// kutrace pages saved before this shape: {t0, t1, yk, ypan, btn, search, groups, hl, hlEv, relative, fade, kept}
function fromOldView(v) {
  const o = { xleft_ts: v.t0, xright_ts: v.t1, savedtransformY: { k: v.yk, y: v.ypan }, searchText: v.search && v.search.text, searchNot: v.search && v.search.not,
    searchUnits: v.search && v.search.units, searchMin: v.search && v.search.min, searchMax: v.search && v.search.max, relativeTime: v.relative,
    annotIndex: v.kept, kt_hlEv: v.hlEv, kt_fade: v.fade };
  if (v.btn) for (const key of UI_KEYS) o['ui_' + key] = v.btn[key];
  if (Array.isArray(v.groups)) o.groupExpanded = v.groups.map(x => GSTATE.indexOf(x));
  if (Array.isArray(v.hl)) { const hl = new Set(v.hl); o.rowToHilite = packHL(ROWS.map(r => (hl.has(r.group.name + ':' + r.id) ? 1 : 0))); }
  return o;
}
function applyView(v) {
  if (typeof v === 'string') { try { v = JSON.parse(v); } catch (e) { return; } } // "stored as a JSON string"
  if (!v || typeof v !== 'object') return;
  if (v.xleft_ts === undefined && v.t0 !== undefined) v = fromOldView(v);
  const num = x => (x === undefined || x === null || x === '' ? NaN : +x);
  if (isFinite(num(v.xleft_ts)) && isFinite(num(v.xright_ts)) && +v.xright_ts > +v.xleft_ts) setWindow(+v.xleft_ts, +v.xright_ts);
  const ty = v.savedtransformY; if (ty && isFinite(num(ty.k)) && +ty.k > 0) { S.yk = +ty.k; S.ypan = isFinite(num(ty.y)) ? +ty.y : 0; }
  for (const key of UI_KEYS) { const x = num(v['ui_' + key]); if (isFinite(x)) S.btn[key] = x; }
  for (const key of ['lock', 'freq', 'samp', 'ipc']) if (!avail(key)) S.btn[key] = 0;
  // rows: the flags by group, with the page's group lengths where given
  if (Array.isArray(v.rowToHilite)) {
    const lens = Array.isArray(v.groupLen) && v.groupLen.length === G.length ? v.groupLen.map(x => +x || 0) : G.map(g => g.rows.length);
    const flags = unpackHL(v.rowToHilite, lens.reduce((a, b) => a + b, 0)); let off = 0;
    G.forEach((g, i) => { g.rows.forEach((r, j) => { r.hl = j < lens[i] && flags[off + j] === 1; }); off += lens[i]; });
  }
  S.hlEv = Array.isArray(v.kt_hlEv) ? v.kt_hlEv.slice(0, 2) : []; recomputeHL();
  if (Array.isArray(v.groupExpanded)) G.forEach((g, i) => { const st = GSTATE[+v.groupExpanded[i]]; if (st) g.open = st; if (g.open === 'hl' && !g.hasHL) g.open = 'open'; });
  S.relative = !!+v.relativeTime; S.fade = !!+v.kt_fade; S.summary = ''; S.measure = null;
  S.search.not = !!+v.searchNot; if (isFinite(num(v.searchUnits)) && UNITS[+v.searchUnits]) S.search.units = +v.searchUnits;
  document.getElementById('search').value = v.searchText == null ? '' : String(v.searchText);
  document.getElementById('smin').value = v.searchMin == null ? '' : String(v.searchMin);
  document.getElementById('smax').value = v.searchMax == null ? '' : String(v.searchMax);
  syncButtons();
  const txt = document.getElementById('search').value, lab = S.btn.user ? 'user' : S.btn.all ? 'all' : '';
  if (!TIME_RE.test(txt) && txt !== '@@') doSearch(false); // the saved search, annotated again in the restored window (a time search would move it)
  if (lab && !txt) { S.btn[lab] = 1; labelAll(lab); }
  const kept = num(v.annotIndex);
  if (Number.isInteger(kept) && kept >= 0 && kept < D.n) S.anns.push({ k: kept, long: true });
  syncButtons(); redraw();
}
// Labels of an original page's savedview arrive HTML-escaped (&#x2780;).
function unescapeHTML(t) {
  const named = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };
  return String(t).replace(/&(#[xX][0-9a-fA-F]{1,6}|#[0-9]{1,7}|[a-zA-Z]+);/g, (m, c) => {
    if (c[0] !== '#') return named[c.toLowerCase()] !== undefined ? named[c.toLowerCase()] : m;
    const n = c[1] === 'x' || c[1] === 'X' ? parseInt(c.slice(2), 16) : parseInt(c.slice(1), 10);
    return n > 0 && n <= 0x10FFFF && !(n >= 0xD800 && n <= 0xDFFF) ? String.fromCodePoint(n) : m;
  });
}
function saveView(i) { views[i].view = getView(); renderViews(); }
function restoreView(i) { const v = views[i].view; if (!v) return; if (i !== 0) views[0].view = getView(); applyView(JSON.parse(JSON.stringify(v))); renderViews(); }
function renderViews() {
  const box = document.getElementById('views'); box.innerHTML = '';
  views.forEach((v, i) => {
    const s = document.createElement('span'); s.textContent = v.label; s.className = v.view ? 'set' : ''; s.id = 'view' + i;
    s.title = i ? 'click: restore, shift-click: save' : 'back to the previous view';
    s.addEventListener('click', ev => { if (ev.shiftKey && i) { saveView(i); blink(); } else restoreView(i); });
    box.appendChild(s);
  });
  const add = document.createElement('span'); add.textContent = '⊕'; add.className = 'set'; add.id = 'viewadd'; add.title = 'add a saved view';
  add.addEventListener('click', () => { const name = prompt('New view name: (no spaces)', 'fig1-1'); if (!name) return; views.push({ label: name.replace(/\s+/g, ''), view: getView() }); renderViews(); });
  box.appendChild(add);
}
function blink() { cv.style.opacity = '0.4'; setTimeout(() => { cv.style.opacity = ''; }, 100); }
function resetView() {
  setWindow(D.t0, D.t1); S.yk = 1; S.ypan = 0; G.forEach(g => { g.open = g.name === 'CPU' ? 'open' : 'closed'; }); ROWS.forEach(r => { r.hl = false; });
  S.hlEv = []; recomputeHL(); Object.assign(S.btn, { annot: 0, user: 0, all: 0, mark: 3, arc: 2, lock: 2, freq: 2, ipc: 0, samp: 0, cb: 0 });
  Object.assign(S.search, { text: '', not: false, units: 1, min: '', max: '' }); ['search', 'smin', 'smax'].forEach(id => { document.getElementById(id).value = ''; });
  S.anns = []; S.summary = ''; S.measure = null; S.showHeader = true; S.relative = false; S.legend = 0; S.fade = false;
  syncButtons(); renderViews(); redraw();
}
function storageKey() { return 'kutrace:' + String(D.meta.randomid || D.meta.tracebase || 'none'); }
window.addEventListener('pagehide', () => { try { const v = getView(); views[0].view = v; localStorage.setItem(storageKey(), JSON.stringify(v)); } catch (e) { /* storage may be off */ } });

// ---------------------------------------------------------------- export
function exportText() {
  const sv = views.map(v => [v.label, v.view]);
  return '],\n"extra" : ' + JSON.stringify(D.extra) + ',\n"savedview" : ' + JSON.stringify(sv).slice(0, -1) + '\n]}';
}

// ---------------------------------------------------------------- test hook
function state() {
  layout(); const MB = markBoxes();
  return {
    t0: S.t0, t1: S.t1, width: S.t1 - S.t0, tracks: L.tracks, yk: S.yk,
    rows: ROWS.map(r => ({ label: r.label, group: r.group.name, id: r.id, visible: r.h > 0, highlighted: r.hl,
      lod: r.sumAt === perf.draws - 1 ? r.sumHow : '' })), // summary mode, the last frame: 'bins', or 'none' (not drawn as the rows would be)
    groups: G.map(g => ({ name: g.name, count: g.rows.length, open: g.open, header: (g.open === 'closed' ? '▶ ' : '▼ ') + g.name + ' (' + g.rows.length + ')' })),
    visibleRows: ROWS.filter(r => r.h > 0).map(r => r.label),
    labelsShown: (L.labelsShown || []).slice(), tickLabels: (L.tickLabels || []).slice(), baseText: L.baseText, axisTitle: L.axisTitle,
    buttons: Object.assign({}, S.btn), search: Object.assign({}, S.search), summary: S.summary, last: S.last || null,
    searchError: S.searchErr, annotations: S.anns.map(a => (a.long ? longText(a.k) : shortText(a.k))), measure: S.measureText && S.measure ? S.measureText : '',
    hover: S.hover, status: document.getElementById('status').textContent,
    views: views.map(v => ({ label: v.label, set: !!v.view })), legend: S.legend, legendItems: S.legend ? (L.legendItems || []).slice() : [], legendGeom: S.legend ? (L.legendGeom || []).map(g => Object.assign({}, g)) : [],
    canvas: { w: L.W, h: L.H }, cfg: Object.assign({}, S.cfg), fade: S.fade, menu: S.menu, callouts: D.extra.map(c => c.slice()), lastExport: S.lastExport,
    readout: S.menu ? [document.getElementById('m_x').textContent, document.getElementById('m_y').textContent] : null, spans: D.n, title: D.meta.title,
    ipcLegend: S.btn.ipc ? (L.ipcLegend || []).slice() : [], ipcButton: document.getElementById('b_ipc').textContent,
    hack: !!S.hack, legacy: { brackets: perf.legacy ? perf.legacy.brackets.slice() : [], ovals: perf.legacy ? perf.legacy.ovals : 0, dots: perf.legacy ? perf.legacy.dots : 0, timers: perf.legacy ? perf.legacy.timers : 0 },
    marks: MB.filter(m => m[4]).length, markRows: [...new Set(MB.map(m => ROWS[m[0] >> 6].label))], ticks: perf.ticks,
    markOverlaps: MB.filter((m, i, a) => m[4] && a.slice(0, i).some(q => q[4] && q[0] === m[0] && m[1] < q[2] && m[2] > q[1])).length,
    markCount: MB.length, triPos: (perf.triPos || []).slice(), waits: perf.waits, queues: perf.queues,
    markList: MB.slice(0, 5000).map(m => ({ k: m[3], row: ROWS[m[0] >> 6].label, line: m[0] & 63, text: m[4], a: m[1], b: m[2] })),
    perf: { lodDrawn: perf.lodDrawn, lastDraw: perf.lastDraw, phase: Object.assign({}, perf.phase), rest: perf.rest || 0, restDone: REST.done && !!perf.idleDone, draws: perf.draws, prims: perf.prims, tri: perf.tri, msgs: perf.msgs, arcs: perf.arcs, ticks: perf.ticks, load: perf.load, ready: perf.ready, picture: perf.picture, pictureDraw: perf.pictureDraw, pictureHeap: perf.pictureHeap, lod: perf.lod, decode: perf.decode, rows: perf.rows, script: perf.script, b64: perf.b64, inflate: perf.inflate, first: perf.first },
    names: null, why: whyState(), machines: machState(),
  };
}
window.kutraceState = state;
window.kutrace = {
  state, setWindow: (a, b) => { setWindow(a, b); onPanZoomDone(); redraw(); }, redraw, render: () => { render(); return perf.lastDraw; },
  toggleGroup: name => { const g = G.find(q => q.name === name); if (g) toggleGroup(g); render(); },
  toggleHost: name => { machToggle(name); render(); },
  highlight: (label, on) => { const r = ROWS.find(q => q.label === label); if (r) { r.hl = on === undefined ? !r.hl : !!on; recomputeHL(); render(); } },
  prefixHighlight: label => { const r = ROWS.find(q => q.label === label); if (r) { prefixHighlight(r); render(); } },
  exportText, names: () => D.names.slice(), search: text => { document.getElementById('search').value = text; doSearch(true); render(); return S.summary; },
  rowY: label => { layout(); const r = ROWS.find(q => q.label === label); if (!r || !r.h) return null; const g = rowGeom(r); return { top: g.top, yc: g.yc, E: g.E, h: g.px }; },
  xOf: t => { layout(); return xOf(t); }, layout: () => { layout(); return { left: L.left, right: L.right, top: L.top, bottom: L.bottom, W: L.W, H: L.H }; },
  spanAt: i => ({ ts: D.ts[i], dur: D.dur[i], ev: D.ev[i], name: D.names[D.nm[i]], cpu: D.cpu[i], pid: D.pid[i], rpc: D.rpc[i], arg: D.arg[i], ret: D.ret[i], ipc: D.ipc[i] }),
  setButtons: o => { Object.assign(S.btn, o); syncButtons(); render(); }, // e.g. {arc: 0, freq: 2}
  setLod: (on, sub) => { LOD_ON = !!on; if (sub) LOD_SUB = sub; render(); },
  setCover: on => { COVER_ON = !!on; render(); },
  // summary mode: tiles and windows asked and kept (lod.js); due: a frame
  // is still to decide whether to load the window's rows (its lodWindow
  // timer, or the frame itself: a tile that came asked for one, and until
  // it is drawn nothing has decided on that tile)
  lodState: () => ({ on: SUM.on, pending: LOD.pending, loading: !!LOD.winAsk, due: LOD.check || pending, loads: LOD.loads, win: SUM.win, note: SUM.note, err: LOD.err, tiles: LOD.tiles.size, spans: LOD.spans, slow: LOD.slow.slice(), local: !!LOD.local, status: SUM.status ? SUM.status() : '' }),
  why: spec => { const m = whyOpen(spec); render(); return m; }, whyClear: () => { whyClear(); render(); },
  findSpan: name => { for (let k = 0; k < D.n; k++) if (D.names[D.nm[k]] === name) return k; return -1; },
};

// ---------------------------------------------------------------- start
async function load() {
  const t0 = performance.now();
  const srv = document.getElementById('ktserver'), sj = srv ? JSON.parse(srv.textContent) : null;
  if (sj && sj.summary) { // kutrace_view's page without rows (lod.js)
    await lodStart(sj.api);
    LOD.onLoad = () => { if (S.search.text) doSearch(false); };
  }
  const metaEl = document.getElementById('ktmeta');
  let dataEl = document.getElementById('ktdata'); // a big page's rows come after the viewer (lib/page/html.c)
  if (!metaEl) { showOpener(); return; }
  const meta = JSON.parse(metaEl.textContent);
  perf.script = t0;
  const lodEl = document.getElementById('ktlod');
  if (lodEl && !(sj && sj.summary)) { // a big page's summary: the first picture before the rows are decoded (lod.js)
    let lb = b64bytes(lodEl.textContent);
    if (lodEl.dataset.enc === 'deflate') lb = await inflate(lb);
    lodLocal(lb); perf.lod = performance.now() - t0;
    const e = fromJSON({ events: [] });
    start(meta, 0, e.cols, e.names, t0, true);
    // ?summary=1: the page stays drawn from its summary (tests/browser/lod.test.js)
    if (new URLSearchParams(location.search).get('summary') === '1') { LOD.local.hold = true; updateStatus(); render(); window.kutraceReady = true; return; }
    await new Promise(r => requestAnimationFrame(() => setTimeout(r, 0))); // painted before the rows are decoded
    perf.picture = performance.now(); perf.pictureHeap = performance.memory ? performance.memory.usedJSHeapSize : 0;
  }
  if (!dataEl) {
    if (document.readyState === 'loading') await new Promise(r => document.addEventListener('DOMContentLoaded', r));
    dataEl = document.getElementById('ktdata');
    if (!dataEl) { showOpener(); return; }
  }
  const tb = performance.now();
  let bytes = b64bytes(dataEl.textContent);
  dataEl.textContent = '';
  perf.b64 = performance.now() - tb;
  if (dataEl.dataset.enc === 'deflate') bytes = await inflate(bytes);
  perf.inflate = performance.now() - tb - perf.b64;
  const td = performance.now();
  // drawn from the summary meanwhile: the page answers pan and zoom between the steps
  const b = await decodeBlob(bytes, LOD.local ? () => new Promise(r => setTimeout(r, 0)) : null);
  bytes = null; // the inflated blob (a few hundred MB for 20 M spans) is not kept while the rows are built
  perf.decode = performance.now() - td;
  start(meta, b.n, b.cols, b.names, t0);
}
// picture: only the first picture, drawn from the page's summary; start
// is called again with the rows, which keeps the window shown.
function start(meta, n, cols, names, t0, picture) {
  const win = LOD.local && !picture ? [S.t0, S.t1] : null;
  if (win) lodLocalEnd();
  D.meta = meta || {}; setColumns(n, cols, names); ensureSorted();
  const tr = performance.now(); buildRows(!!win); machInit(); perf.rows = performance.now() - tr;
  document.title = 'KUtrace ' + (D.meta.title || '');
  views.length = 0;
  const sv = Array.isArray(D.meta.savedview) && D.meta.savedview.length ? D.meta.savedview : [['⇐', null], ['①', null], ['②', null], ['③', null], ['④', null]];
  for (const [label, v] of sv) views.push({ label: unescapeHTML(label), view: v || null });
  try { const s = localStorage.getItem(storageKey()); if (s) views[0].view = JSON.parse(s); } catch (e) { /* ignore */ }
  setWindow(win ? win[0] : D.t0, win ? win[1] : D.t1); recomputeHL(); syncButtons(); renderViews();
  document.getElementById('loading').style.display = 'none';
  const tf = performance.now(); S.firstDraw = true; render(); S.firstDraw = false; perf.first = performance.now() - tf;
  if (picture) { perf.pictureDraw = perf.first; return; }
  idleArr = 0; perf.idleDone = false; setTimeout(idleRows, 0); // the PID and RPC rows, in steps
  perf.load = performance.now() - t0;
  const sz = L.W + 'x' + L.H; S.sizeMsg = sz; updateStatus(); setTimeout(() => { S.sizeMsg = ''; updateStatus(); }, 4000);
  perf.ready = performance.now();
  whyAtStart();
  window.kutraceReady = true;
  document.dispatchEvent(new Event('kutrace-ready'));
}
function showOpener() {
  const el = document.getElementById('loading');
  el.innerHTML = 'No trace embedded. Open or drop a KUtrace JSON file: <input type="file" id="openjson" accept=".json,application/json">';
  // An RPC or points page goes to pages.js, which then owns the page.
  const loadJSON = obj => { if (window.ktPages && window.ktPages.show(obj)) return; const o = fromJSON(obj); start(o.meta, o.n, o.cols, o.names, performance.now()); };
  const openFile = f => f.text().then(txt => loadJSON(JSON.parse(txt)))
    .catch(e => { el.textContent = 'Cannot read ' + f.name + ': ' + e.message; });
  document.getElementById('openjson').addEventListener('change', ev => { if (ev.target.files[0]) openFile(ev.target.files[0]); });
  window.addEventListener('dragover', e => e.preventDefault());
  window.addEventListener('drop', e => { e.preventDefault(); if (e.dataTransfer.files[0]) openFile(e.dataTransfer.files[0]); });
  window.kutraceLoadJSON = loadJSON;
  window.kutraceReady = 'empty';
}
// Served by kutrace_view (#ktserver): the page asks its server now and
// then, so that a store removed under it shows here as one error.
function watchServer() {
  const el = document.getElementById('ktserver'); if (!el) return;
  const api = JSON.parse(el.textContent).api;
  const check = () => fetch(api + 'meta', { credentials: 'same-origin', cache: 'no-store' })
    .then(r => r.ok ? '' : r.text()).catch(e => 'kutrace_view: ' + e.message)
    .then(msg => { msg = msg.trim(); if (msg !== S.serverErr) { S.serverErr = msg; window.kutraceServerError = msg; updateStatus(); } });
  S.serverErr = ''; check(); setInterval(() => { if (!document.hidden) check(); }, 3000);
  // The critical path of any target, walked by the server (why.js).
  window.ktWhySource = spec => fetch(api + 'why?spec=' + encodeURIComponent(spec), { credentials: 'same-origin', cache: 'no-store' })
    .then(r => r.ok ? r.json() : r.text().then(t => { throw new Error(t.trim()); }));
}
watchServer();
load().catch(e => { document.getElementById('loading').textContent = 'Cannot load the trace: ' + e.message; window.kutraceError = String(e && e.stack || e); });

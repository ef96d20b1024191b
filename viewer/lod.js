// SPDX-License-Identifier: BSD-3-Clause
// Summary mode (docs/spec/VIEWER.md 3.4.1): a page served by kutrace_view
// without rows.  The CPU, PID and RPC rows are drawn from the server's bins (/api/lod),
// the very bins rowLod would make of the rows, fetched in tiles of TILE
// bins and kept; the rows themselves (/api/window) are loaded for the
// window on screen once it holds at most LOAD_MAX spans, and then
// everything that works on rows (search, marks, arcs, locks,
// the frequency overlay) works on those.  Uses data.js and draw.js.
const TILE = 4096, LOAD_MAX = 300000;
const LOD = { api: '', tiles: new Map(), asked: new Map(), pending: 0, err: '', winAsk: null, spans: 0, sumExec: 0,
  check: false, countAt: -1, onLoad: null, loads: 0, slow: [] };

function lodGet(what) {
  const t = performance.now();
  return fetch(LOD.api + what, { credentials: 'same-origin', cache: 'no-store' })
    .then(r => r.ok ? r.json() : r.text().then(t => { throw new Error(t.trim()); }))
    .finally(() => { const ms = performance.now() - t; if (ms > 500 && LOD.slow.length < 50) LOD.slow.push([what.replace(/&limit=.*/, ''), Math.round(ms)]); });
}
// Times of the server's rows as the page's are (whole 10 ns times 1e-8),
// not as the JSON's decimals parse: the same doubles, the same pixels.
function fix10(x) { return Math.round(x * 1e8) * 1e-8; }

// /api/lodmeta: the CPU, PID and RPC rows of the whole trace and each
// one's finest bin, computed as rowLod computes it from the page's rows; a
// PID or RPC row also has the label the page of rows gives it, and the RPC
// rows come in the page's order (rpcs: null when the summary has none, as
// the page's own: its RPC rows are then those of its rows).
async function lodStart(api) {
  LOD.api = api;
  lodMeta(await lodGet('lodmeta'));
}
function lodMeta(m) {
  SUM.on = true; SUM.cpus = new Map(); LOD.spans = m.n;
  SUM.t0 = m.t0 * 1e-8;
  SUM.t1 = SUM.t0 + 1e-6; if (m.end[0] >= 0) { const e = m.end[0] * 1e-8 + m.end[1] * 1e-8; if (e > SUM.t1) SUM.t1 = e; }
  const row = (n, first, tmin, tts, tdu) => {
    const tmax = tts >= 0 ? tts * 1e-8 + tdu * 1e-8 : -Infinity;
    return { m: n, tmin: tmin >= 0 ? tmin * 1e-8 : Infinity, tmax, q0: n >= 256 ? lodQ0(Math.max(1e-9, tmax - first * 1e-8), n) : Infinity };
  };
  for (const [cpu, n, first, tmin, tts, tdu] of m.cpus) { LOD.sumExec += n; SUM.cpus.set(cpu, row(n, first, tmin, tts, tdu)); }
  SUM.pids = new Map();
  for (const [pid, n, first, tmin, tts, tdu, label] of m.pids || []) SUM.pids.set(pid, Object.assign(row(n, first, tmin, tts, tdu), { label }));
  SUM.rpcs = m.rpcs ? new Map() : null;
  for (const [id, n, first, tmin, tts, tdu, label] of m.rpcs || []) SUM.rpcs.set(id, Object.assign(row(n, first, tmin, tts, tdu), { label }));
  SUM.draw = lodDraw; SUM.status = lodStatus;
}

// One tile of the CPU rows (gb 'cpus'), of the PID rows ('pids', asked
// for only when the PID group is drawn) or of the RPC rows ('rpcs', the
// same): per row the bins (absolute
// numbers from the trace start), their idle, user and kernel ns, last
// user and kernel events and rows; the long spans (two bins or longer) as
// columns D can be swapped for.
function lodTile(qn, ti, gb) {
  const key = gb + ':' + qn + ':' + ti; const t = LOD.tiles.get(key); if (t) return t;
  if (LOD.local) { const lt = lodLocalTile(qn, ti, gb); if (lt) LOD.tiles.set(key, lt); else SUM.note = 'rows loading'; return lt; }
  if (!LOD.asked.has(key)) {
    LOD.pending++;
    LOD.asked.set(key, lodGet('lod?q=' + qn + '&a=' + ti * TILE + '&b=' + (ti + 1) * TILE + (gb === 'pids' ? '&rows=pid' : gb === 'rpcs' ? '&rows=rpc' : '')).then(j => {
      const bins = obj => {
        const out = new Map();
        for (const c of Object.keys(obj || {})) {
          const a = obj[c], n = a.length, o = lodBins(n);
          for (let i = 0; i < n; i++) { const b = a[i]; o.J[i] = b[0]; o.I[i] = b[1]; o.U[i] = b[2]; o.K[i] = b[3]; o.EU[i] = b[4]; o.EK[i] = b[5]; o.C[i] = b[6]; }
          out.set(+c, o);
        }
        return out;
      };
      LOD.tiles.set(key, { [gb]: bins(j[gb]), long: j.long });
    }).catch(e => { LOD.err = 'kutrace_view: ' + e.message; }).finally(() => { LOD.pending--; LOD.asked.delete(key); redraw(); }));
  }
  return null;
}

// The bin width for pixel P of a row with finest bin q0: the level
// drawExecLod would pick (a quarter to an eighth of a pixel).
function lodQ(P, q0) {
  if (q0 === Infinity) q0 = 1e-9;
  let l = Math.floor(Math.log2(P / q0 / LOD_SUB) + 1e-9); if (l < 0) l = 0;
  return q0 * Math.pow(2, l);
}

// Which summaries a row has: its group's in a tile and the row's column
// (cpu, pid or rpc) of a long span.
function lodGroup(r) { return r.group === G[0] ? ['cpus', 2] : r.group === G[1] ? ['pids', 3] : r.group === G[2] ? ['rpcs', 4] : null; }
// A CPU, PID or RPC row from the summaries; false: draw it from the rows in D.
function lodDraw(r, g, P) {
  const grp = lodGroup(r), c = grp && SUM[grp[0]] ? SUM[grp[0]].get(r.id) : null; if (!c) return false;
  if (!LOD.check) { LOD.check = true; setTimeout(lodWindow, 0); }
  // The spans in view counted over one frame: a loaded machine may draw
  // several before lodWindow's timer runs, and their sum would make the
  // window look too big to load, for good.
  if (LOD.countAt !== perf.draws) { LOD.countAt = perf.draws; SUM.viewCount = 0; }
  const rowsHere = SUM.win && SUM.win[0] <= S.t0 && S.t1 <= SUM.win[1];
  const eligible = LOD_ON && P >= 2e-6 && c.m >= 256 && P >= LOD_SUB * c.q0;
  // The long spans come with a tile from two bins up: with bins wider than
  // half a pixel (LOD_SUB < 2, tests only) those of a pixel to two bins
  // are missing, and the rows are drawn instead when they are here.
  const whole = eligible && P >= 2 * lodQ(P, c.q0);
  if (!whole && rowsHere) return false; // the rows would be walked span by span: they are here
  r.sumHow = whole ? 'bins' : 'none'; r.sumAt = perf.draws; // (what the tests compare)
  if (!eligible) SUM.note = 'rows to load';
  const q = lodQ(P, eligible ? c.q0 : Infinity), qn = Math.round(q * 1e9), O = D.t0;
  const ta = Math.floor(Math.max(0, Math.floor((S.t0 - O) / q)) / TILE), tb = Math.floor(Math.max(0, Math.floor((S.t1 - O) / q) + 1) / TILE);
  const gb = grp[0];
  let pr = r.sumRow;
  // A pseudo row serves every view within its tiles, and takes in a tile
  // on either side that is already here: panning to and fro does not
  // make every row's again, which costs more than drawing them.
  if (!pr || pr.key[0] !== qn || pr.key[1] > ta || pr.key[2] < tb) {
    const tiles = [];
    for (let ti = ta; ti <= tb; ti++) { const t = lodTile(qn, ti, gb); if (t) tiles.push(t); }
    if (tiles.length < tb - ta + 1) { SUM.viewCount = NaN; r.sumHow = 'none'; return true; } // drawn when the tiles are here; nothing known of the view yet
    const before = ta > 0 ? LOD.tiles.get(gb + ':' + qn + ':' + (ta - 1)) : null, after = LOD.tiles.get(gb + ':' + qn + ':' + (tb + 1));
    if (before) tiles.unshift(before);
    if (after) tiles.push(after);
    pr = r.sumRow = lodRow(tiles, r.id, q, [qn, before ? ta - 1 : ta, after ? tb + 1 : tb], grp);
  }
  if (gb === 'cpus') SUM.viewCount += lodCount(pr, q, O); // (the PID and RPC rows hold the same spans again)
  // drawExecLod over the tiles' bins; its long spans drawn by drawSpan
  // from the tile's rows, swapped in for D's columns for the while.
  const keep = [D.ts, D.dur, D.cpu, D.pid, D.rpc, D.ev, D.arg, D.ret, D.ipc, D.nm, D.names, hlSpan];
  [D.ts, D.dur, D.cpu, D.pid, D.rpc, D.ev, D.arg, D.ret, D.ipc, D.nm] = pr.cols; D.names = pr.names;
  hlSpan = anyHL ? Uint8Array.from(pr.ev, e => (r.hl || S.hlEv.includes(e) ? 1 : 0)) : pr.hlA; pr.hl = r.hl;
  try { perf.lodDrawn++; drawExecLod(pr, g, pr.lod, P); } finally {
    [D.ts, D.dur, D.cpu, D.pid, D.rpc, D.ev, D.arg, D.ret, D.ipc, D.nm, D.names, hlSpan] = keep;
  }
  return true;
}
// The execution spans in view, from the bins (decides when rows are loaded).
function lodCount(pr, q, O) {
  const lv = pr.lod.levels[0], a = Math.floor((S.t0 - O) / q), b = Math.floor((S.t1 - O) / q); let n = 0;
  for (let j = firstAtLeast(lv.J, 0, lv.J.length, a); j < lv.J.length && lv.J[j] <= b; j++) n += pr.C[j];
  return n;
}
// One row's pseudo row for drawExecLod: entries 0..nl-1 the long spans,
// then two per bin (its last user and last kernel event).  grp: the
// row's bins in a tile and its column in a long span (lodGroup).  Made
// for every row whenever the view reaches another tile, so it allocates
// only what is read: the columns of the long spans (drawSpan's), the
// events of every entry (drawExecLod's picks), and shared arrays for the
// identity list and the highlight of nothing.
function lodRow(tiles, id, q, key, grp) {
  const long = [], [gb, gc] = grp;
  let seen = null; // a long span over two tiles comes with both
  for (const t of tiles) {
    const a = lodLongOf(t, gc).get(id); if (!a) continue;
    if (!seen && long.length) seen = new Set(long.map(x => x[0] + ':' + x[1]));
    for (const x of a) { const k = x[0] + ':' + x[1]; if (!seen || !seen.has(k)) { if (seen) seen.add(k); long.push(x); } }
  }
  long.sort((x, y) => x[0] - y[0]);
  let nb = 0; for (const t of tiles) { const o = t[gb].get(id); if (o) nb += o.J.length; }
  const nl = long.length, n = nl + 2 * nb;
  const cols = [new Float64Array(nl), new Float64Array(nl), new Int32Array(nl), new Int32Array(nl), new Int32Array(nl), new Int32Array(n),
    new Float64Array(nl), new Int32Array(nl), new Uint8Array(nl), new Uint32Array(nl)];
  const names = [], nix = new Map();
  for (let i = 0; i < nl; i++) {
    const x = long[i]; cols[0][i] = fix10(x[0]); cols[1][i] = fix10(x[1]);
    for (let c = 2; c < 9; c++) cols[c][i] = x[c];
    let k = nix.get(x[9]); if (k === undefined) { k = names.length; names.push(x[9]); nix.set(x[9], k); } cols[9][i] = k;
  }
  const J = new Float64Array(nb), I = new Float64Array(nb), U = new Float64Array(nb), K = new Float64Array(nb), C = gb === 'cpus' ? new Float64Array(nb) : null,
    LU = new Int32Array(nb).fill(-1), LK = new Int32Array(nb).fill(-1), ev = cols[5];
  let j = 0;
  for (const t of tiles) {
    const o = t[gb].get(id); if (!o) continue;
    const m = o.J.length;
    J.set(o.J, j); I.set(o.I, j); U.set(o.U, j); K.set(o.K, j); if (C) C.set(o.C, j);
    for (let i = 0; i < m; i++, j++) {
      if (o.EU[i] >= 0) { LU[j] = nl + 2 * j; ev[nl + 2 * j] = o.EU[i]; }
      if (o.EK[i] >= 0) { LK[j] = nl + 2 * j + 1; ev[nl + 2 * j + 1] = o.EK[i]; }
    }
  }
  // the long spans by duration level with their running maximum end, as rowLod's
  const ts = cols[0].slice(0, nl), du = Float32Array.from(cols[1].subarray(0, nl)), lidx = [], lend = [];
  for (let L = 0; L <= 40; L++) { lidx.push(null); lend.push(null); }
  const by = new Map();
  for (let i = 0; i < nl; i++) { const L = lodLevel(du[i]); if (!by.has(L)) by.set(L, []); by.get(L).push(i); }
  for (const [L, a] of by) {
    lidx[L] = Int32Array.from(a); const e = lend[L] = new Float64Array(a.length);
    a.forEach((i, p) => { const x = ts[i] + du[i]; e[p] = p && e[p - 1] > x ? e[p - 1] : x; });
  }
  return { key, cols, names, ev, ts, du, ex: lodShared('ident', n), hlA: lodShared('ones', n), hl: false, C,
    lod: { q0: q, levels: [lodCumulate({ q, base: 0, J, I, U, K, LU, LK })], lidx, lend } };
}
// A tile's long spans by row (column gc of a span: its cpu or pid), made
// once a tile rather than once a row.
function lodLongOf(t, gc) {
  if (!t.longBy) t.longBy = [];
  let m = t.longBy[gc]; if (m) return m;
  m = t.longBy[gc] = new Map();
  for (const x of t.long) { const k = x[gc]; let a = m.get(k); if (!a) m.set(k, a = []); a.push(x); }
  return m;
}
// Arrays every pseudo row reads and none writes, at least n long: the
// identity (a pseudo row's entries are its own list) and all ones.
const LOD_SHARED = { ident: new Int32Array(0), ones: new Uint8Array(0) };
function lodShared(what, n) {
  let a = LOD_SHARED[what]; if (a.length >= n) return a;
  const m = Math.max(n, 2 * a.length);
  a = LOD_SHARED[what] = what === 'ident' ? Int32Array.from({ length: m }, (_, i) => i) : new Uint8Array(m).fill(1);
  return a;
}

// After a frame: the rows of the window once it holds at most LOAD_MAX
// spans (a window three times as wide when that is not too many, so that
// panning finds them here).
function lodWindow() {
  LOD.check = false;
  if (LOD.local) return; // the page's own rows come from its blob
  const v = SUM.viewCount; // the last frame's (NaN: a row's tiles were missing, the count is not known)
  const w = S.t1 - S.t0, here = SUM.win && SUM.win[0] <= S.t0 && S.t1 <= SUM.win[1];
  const est = LOD.sumExec ? v * LOD.spans / LOD.sumExec : 0;
  // (a row left to its rows because its bins would not be used is below
  // 16 spans a pixel in view: such a window is small unless other rows are
  // dense, and then that row stays drawn from bins, the note says so)
  if (!here && !LOD.winAsk && LOD.pending === 0 && est <= LOAD_MAX) { // (false for NaN)
    const m = est * 3 <= LOAD_MAX ? w : w / 20; // a window three times as wide when that is not too many rows
    const a = Math.max(D.t0, S.t0 - m), b = S.t1 + m, ns = x => Math.round(x * 1e9);
    LOD.winAsk = [a, b];
    lodGet('window?t0=' + ns(a) + '&t1=' + ns(b) + '&limit=' + LOAD_MAX).then(j => {
      if (j.more) { SUM.note = 'summaries only: more than ' + LOAD_MAX + ' spans in view'; return; }
      if (S.t1 < a || S.t0 > b) return; // the view moved away meanwhile
      const o = fromJSON({ events: j.rows });
      for (let i = 0; i < o.n; i++) { o.cols[0][i] = fix10(o.cols[0][i]); o.cols[1][i] = fix10(o.cols[1][i]); }
      setColumns(o.n, o.cols, o.names); ensureSorted(); buildRows(true); S.anns = []; recomputeHL();
      SUM.win = [a, b]; SUM.note = ''; LOD.loads++;
      idleArr = 0; perf.idleDone = false; setTimeout(idleRows, 0);
      if (LOD.onLoad) LOD.onLoad();
    }).catch(e => { LOD.err = 'kutrace_view: ' + e.message; }).finally(() => { LOD.winAsk = null; redraw(); });
  }
}
// The status line's account of what is summarised.
function lodStatus() {
  if (!SUM.on) return '';
  if (LOD.local) return '[CPU and PID rows drawn from the page\'s summary' + (LOD.local.hold ? '' : '; decoding ' + LOD.spans + ' rows') + (SUM.note ? '; ' + SUM.note : '') + ']';
  const f = x => x.toFixed(6);
  const rows = SUM.win ? 'rows of ' + f(SUM.win[0]) + '..' + f(SUM.win[1]) + ' s loaded (' + D.n + ' of ' + LOD.spans + ')' : 'no rows loaded';
  return '[CPU, PID and RPC rows drawn from summaries; ' + rows + (SUM.note ? '; ' + SUM.note : '') + (LOD.err ? '; ' + LOD.err : '') + ']';
}

// ---------------------------------------------------------------- the page's own summary
// A big page carries its summary (#ktlod, lib/page/pagelod.c): per CPU row the
// bins rowLod would make of its rows at one width q (ns), per PID row of
// 256 execution spans or more those at a width qp (2 q), and the
// execution spans of 2 q or longer as rows.  The first picture is drawn
// from it, as from the server's bins, while the rows are decoded; tiles
// are cut from it here, and the coarser widths summed as rowLod sums them.
function lodLocal(u) {
  if (String.fromCharCode(u[0], u[1], u[2], u[3]) !== 'KTL2') throw new Error('embedded summary is not KTL2');
  const dv = new DataView(u.buffer, u.byteOffset, u.byteLength); let p = 4;
  const u32 = () => { const v = dv.getUint32(p, true); p += 4; return v; };
  const vr = () => { let b = u[p++], v = b & 127, s = 128; while (b & 128) { b = u[p++]; v += (b & 127) * s; s *= 128; } return v % 2 ? -(v + 1) / 2 : v / 2; };
  const td = new TextDecoder('utf-8'), ml = u32(), m = JSON.parse(td.decode(u.subarray(p, p + ml))); p += ml;
  lodMeta(m);
  const section = () => { // the bins of the CPU (PID) rows: v:id v:nbins, then their columns
    const lv = new Map();
    for (let nc = u32(), c = 0; c < nc; c++) {
      const id = vr(), nb = vr(), o = lodBins(nb);
      for (let i = 0, b = 0; i < nb; i++) { b += vr(); o.J[i] = b; }
      for (const a of [o.I, o.U, o.K]) for (let i = 0; i < nb; i++) a[i] = vr() * 10;
      for (const a of [o.EU, o.EK]) for (let i = 0; i < nb; i++) a[i] = vr() - 1;
      for (let i = 0; i < nb; i++) o.C[i] = vr();
      lv.set(id, o);
    }
    return lv;
  };
  const cpus = section(), pids = section();
  const nl = u32(), lc = [];
  for (let k = 0; k < 9; k++) { const a = new Float64Array(nl); for (let i = 0, x = 0; i < nl; i++) { const v = vr(); x = k ? v : x + v; a[i] = x; } lc.push(a); }
  const long = new Array(nl);
  for (let i = 0; i < nl; i++) { const l = vr(); long[i] = [lc[0][i] * 1e-8, lc[1][i] * 1e-8].concat(lc.slice(2).map(a => a[i]), td.decode(u.subarray(p, p + l))); p += l; }
  LOD.local = { q: { cpus: m.q, pids: m.qp }, t0: m.t0 * 10, levels: { cpus: new Map([[m.q, cpus]]), pids: new Map([[m.qp, pids]]) },
    long, lts: lc[0], ldu: lc[1], hold: false };
  SUM.draw = lodDraw; SUM.status = lodStatus;
}
function lodBins(n) {
  return { J: new Float64Array(n), I: new Float64Array(n), U: new Float64Array(n), K: new Float64Array(n),
    EU: new Int32Array(n).fill(-1), EK: new Int32Array(n).fill(-1), C: new Float64Array(n) };
}
// The bins of width qn of every CPU (gb 'cpus') or PID row ('pids'): the
// page's, or twice as narrow ones summed in pairs (the later one's last
// events win), as rowLod's levels; null finer than the page's.
function lodLocalLevel(gb, qn) {
  const L = LOD.local; let lv = L.levels[gb].get(qn); if (lv) return lv;
  if (!(qn > L.q[gb])) return null;
  const f = lodLocalLevel(gb, qn / 2); if (!f) return null;
  lv = new Map();
  for (const [id, o] of f) {
    const n = o.J.length; let pn = 0, last = -1;
    for (let j = 0; j < n; j++) { const c = Math.floor(o.J[j] / 2); if (c !== last) { pn++; last = c; } }
    const r = lodBins(pn); let p = -1; last = -1;
    for (let j = 0; j < n; j++) {
      const c = Math.floor(o.J[j] / 2); if (c !== last) { r.J[++p] = c; last = c; }
      r.I[p] += o.I[j]; r.U[p] += o.U[j]; r.K[p] += o.K[j]; r.C[p] += o.C[j];
      if (o.EU[j] >= 0) r.EU[p] = o.EU[j]; if (o.EK[j] >= 0) r.EK[p] = o.EK[j];
    }
    lv.set(id, r);
  }
  L.levels[gb].set(qn, lv); return lv;
}
// Tile ti of width qn of the CPU or PID rows (gb) as /api/lod gives it:
// the bins in it, and the long spans (2 qn or longer) that overlap it;
// null when the page's summary is too coarse for qn.
function lodLocalTile(qn, ti, gb) {
  const L = LOD.local, lv = lodLocalLevel(gb, qn); if (!lv) return null;
  const a = ti * TILE, b = a + TILE, cut = lv => {
    const out = new Map();
    for (const [id, o] of lv) {
      const j0 = firstAtLeast(o.J, 0, o.J.length, a), j1 = firstAtLeast(o.J, j0, o.J.length, b);
      out.set(id, { J: o.J.subarray(j0, j1), I: o.I.subarray(j0, j1), U: o.U.subarray(j0, j1), K: o.K.subarray(j0, j1),
        EU: o.EU.subarray(j0, j1), EK: o.EK.subarray(j0, j1), C: o.C.subarray(j0, j1) });
    }
    return out;
  };
  const lo = L.t0 + a * qn, hi = L.t0 + b * qn, long = [];
  for (let i = 0; i < L.long.length; i++) {
    const s = L.lts[i] * 10, d = L.ldu[i] * 10;
    if (d >= 2 * qn && s < hi && s + d > lo) long.push(L.long[i]);
  }
  return { [gb]: cut(lv), long };
}
// The rows are here: drawn from them from now on.
function lodLocalEnd() {
  SUM.on = false; SUM.draw = null; SUM.status = null; SUM.cpus = null; SUM.pids = null; SUM.rpcs = null; SUM.note = '';
  LOD.local = null; LOD.tiles.clear();
}

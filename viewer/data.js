// SPDX-License-Identifier: BSD-3-Clause
// The viewer's data: the page's columns decoded into typed arrays (or a
// KUtrace JSON file opened on the page), the rows built from them with
// their per-row indexes (overlays by kind, blocks, level of detail), and
// the state every module shares (S, L, views, perf).
// assemble.sh runs the modules in one closure, in the order of
// VIEWER_PARTS (viewer/viewer.mk): the event constants generated from
// format.h, this, draw.js, ui.js.  Each uses only the names of the ones
// before it (tests/tools/viewerlayers.py).
// ---------------------------------------------------------------- constants
// The viewer's own drawing codes; the event numbers come from format.h.
const EV_BRACKET = -1, EV_OVAL = -2, EV_ARC = -3, EV_CALLOUT = -4, EV_DOTS = -6, EV_IPI = -7;

// ---------------------------------------------------------------- data
const D = { n: 0, ts: null, dur: null, cpu: null, pid: null, rpc: null, ev: null, arg: null, ret: null, ipc: null,
  nm: null, names: [], meta: {}, t0: 0, t1: 1, fmin: 0, fmax: 0, hasLock: false, hasSamp: false, hasFreq: false,
  hasMark: false, arcs: null, ipis: null, extra: [] };

// Summary mode (a page served by kutrace_view without rows, VIEWER 3.4.1):
// the CPU, PID and RPC rows as the whole trace has them (cpus: Map cpu ->
// {m execution spans, tmin, tmax, q0}; pids: the same per pid, with its
// label; rpcs: the same per RPC id in the page's order, or null when the
// summary has none), D holding only the rows of the window loaded (win:
// [a, b) seconds, or null), and the hook that draws a CPU, PID or RPC row
// from the summaries (set by lod.js).
const SUM = { on: false, cpus: null, pids: null, rpcs: null, win: null, draw: null, status: null, note: '', viewCount: 0, t0: 0, t1: 1 };

function isKernel(e) { return e >= 0 && e < 0x1000 && !(e >= 0x200 && e < 0x400); }
function isSyscall(e) { return (e >= 0x800 && e < 0xA00) || (e >= 0xC00 && e < 0xE00); }
function isUser(e) { return e > EV_IDLE && e < 0x20000; }
function isExec(e) { return isKernel(e) || e >= EV_IDLE; }
function isSched(e) { return e === 0x9FF || e === 0xDFF; }

function b64bytes(s) {
  s = s.replace(/\s+/g, '');
  if (Uint8Array.fromBase64) return Uint8Array.fromBase64(s);
  const bin = atob(s); const n = bin.length; const u = new Uint8Array(n);
  for (let i = 0; i < n; i++) u[i] = bin.charCodeAt(i);
  return u;
}

async function inflate(bytes) {
  const ds = new DecompressionStream('deflate');
  const w = ds.writable.getWriter(); w.write(bytes); w.close();
  return new Uint8Array(await new Response(ds.readable).arrayBuffer());
}

// Zig-zag LEB128 varints of one column; one function per output type so
// that each loop stays monomorphic and on small integers.  A varint of
// five bytes or more (values of 2^27 and up) is redone by vSlow in doubles.
let VQ = 0;
function vSlow(u, q) { // the varint at q; VQ = the position after it
  let v = 0, sh = 0, b; do { b = u[q++]; v += (b & 127) * Math.pow(2, sh); sh += 7; } while (b & 128);
  VQ = q; return v % 2 ? -(v + 1) / 2 : v / 2;
}
// Value i goes to out[ix[i]] (KTV3's columns are grouped by event: ix is
// the row of each value; KTV2's, the identity).
// colI32 and colF64 are the same loop on purpose: one function per typed
// array type keeps each one monomorphic, which V8 optimises better
// than one function fed both Int32Array and Float64Array (load time).
function colI32(u, p, n, out, ix) {
  let q = p;
  for (let i = 0; i < n; i++) {
    let b = u[q++], v = b & 127;
    if (b & 128) {
      b = u[q++]; v |= (b & 127) << 7;
      if (b & 128) { b = u[q++]; v |= (b & 127) << 14;
        if (b & 128) { b = u[q++]; v |= (b & 127) << 21;
          if (b & 128) { out[ix[i]] = vSlow(u, q - 4); q = VQ; continue; } } }
    }
    out[ix[i]] = (v >>> 1) ^ -(v & 1);
  }
  return out;
}
function colF64(u, p, n, out, ix) {
  let q = p;
  for (let i = 0; i < n; i++) {
    let b = u[q++], v = b & 127;
    if (b & 128) {
      b = u[q++]; v |= (b & 127) << 7;
      if (b & 128) { b = u[q++]; v |= (b & 127) << 14;
        if (b & 128) { b = u[q++]; v |= (b & 127) << 21;
          if (b & 128) { out[ix[i]] = vSlow(u, q - 4); q = VQ; continue; } } }
    }
    out[ix[i]] = (v >>> 1) ^ -(v & 1);
  }
  return out;
}
// The KTV2 blob of lib/page/pageenc.c: columns, then the prediction undone in one
// pass (the same rules as pred_row there), then the string table.  pause
// (optional) is awaited after each column and each 2^20 rows of that pass,
// so that a page drawn from its summary answers pan and zoom meanwhile.
async function decodeBlob(u, pause) {
  const step = () => (pause ? pause() : null);
  const dv = new DataView(u.buffer, u.byteOffset, u.byteLength);
  let p = 0;
  const u32 = () => { const v = dv.getUint32(p, true); p += 4; return v; };
  const magic = String.fromCharCode(u[0], u[1], u[2], u[3]);
  if (magic !== 'KTV3' && magic !== 'KTV2') throw new Error('embedded data is not KTV3');
  p = 4;
  const n = u32(), ncols = u32();
  const lens = []; for (let i = 0; i < ncols; i++) lens.push(u32());
  const at = []; for (let i = 0; i < ncols; i++) { at.push(p); p += lens[i]; }
  // arg is a float: it carries unsigned 32-bit arguments (mark_d, packet hashes).
  const c = new Array(10), id = new Uint32Array(n);
  for (let i = 0; i < n; i++) id[i] = i;
  c[5] = colI32(u, at[5], n, new Int32Array(n), id);
  const ix = magic === 'KTV3' ? ktv3Rows(c[5]) : id;
  for (let k = 0; k < 10; k++) {
    if (k === 5) continue;
    let b = u, q = at[k];
    if (magic === 'KTV3' && KTV3_SPLIT[k]) { b = ktv3Join(u, q, n); q = 0; }
    c[k] = k < 2 || k === 6 ? colF64(b, q, n, new Float64Array(n), ix) : colI32(b, q, n, new Int32Array(n), ix);
    await step();
  }
  const [ts, dur, cpu, pid, rpc, ev, arg, ret, ipc32, nmc] = c, ipc = Uint8Array.from(ipc32);
  const nm = new Uint32Array(nmc.buffer); // in place
  const st = { prevTs: 0, cpuEnd: new Float64Array(UNP.NCPU).fill(-Infinity), cpuPid: new Int32Array(UNP.NCPU), evNm: new Int32Array(UNP.EVHI - UNP.EVLO).fill(-1) };
  for (let i = 0; i < n; i += 1 << 20) { unpredict(st, ts, dur, cpu, pid, ev, nmc, nm, i, Math.min(n, i + (1 << 20))); await step(); }
  for (let i = 0; i < n; i++) { ts[i] *= 1e-8; dur[i] *= 1e-8; }
  const cols = [ts, dur, cpu, pid, rpc, ev, arg, ret, ipc, nm];
  const nstr = u32(); const lb = u32(); let q = p; p += lb;
  const dlen = u32(); const dstart = p; p += dlen;
  const td = new TextDecoder('utf-8'); const names = new Array(nstr); let off = dstart;
  for (let i = 0; i < nstr; i++) {
    let b = u[q++], v = b & 127, sh = 7;
    while (b & 128) { b = u[q++]; v += (b & 127) * Math.pow(2, sh); sh += 7; }
    const l = v / 2;
    names[i] = td.decode(u.subarray(off, off + l)); off += l;
  }
  return { n, cols, names };
}
// KTV3 (lib/page/pagecols.c): every column but the event's is grouped by the
// row's class (its event column value 0..4095, else 4096), the rows of
// class 0 first; the row of each value in that order.
function ktv3Rows(ev) {
  const n = ev.length, at = new Uint32Array(4098);
  for (let i = 0; i < n; i++) { const e = ev[i]; at[(e >= 0 && e < 4096 ? e : 4096) + 1]++; }
  for (let k = 1; k < 4098; k++) at[k] += at[k - 1];
  const ix = new Uint32Array(n);
  for (let i = 0; i < n; i++) { const e = ev[i]; ix[at[e >= 0 && e < 4096 ? e : 4096]++] = i; }
  return ix;
}
// Duration, argument and return value are also split by byte position:
// u32 levels, u32 length of each, then every value's first byte, the
// second bytes of those that have one, ...; joined back into varints.
const KTV3_SPLIT = [0, 1, 0, 0, 0, 0, 1, 1, 0, 0];
function ktv3Join(u, p, n) {
  const dv = new DataView(u.buffer, u.byteOffset, u.byteLength), nl = dv.getUint32(p, true), at = [];
  let q = p + 4 + 4 * nl, len = 0;
  for (let k = 0; k < nl; k++) { const l = dv.getUint32(p + 4 + 4 * k, true); at.push(q); q += l; len += l; }
  const o = new Uint8Array(len), a0 = at[0];
  let o0 = 0, j = 0;
  for (let i = 0; i < n; i++) {
    let b = u[a0 + o0++]; o[j++] = b;
    for (let k = 1; b & 128; k++) { b = u[at[k]++]; o[j++] = b; }
  }
  return o;
}
// The prediction undone for rows i0..i1 (st: the state carried between
// steps: last end and pid per CPU, last name per event, previous start).
const UNP = { NCPU: 65536, EVLO: -16, EVHI: 0x40000 };
function unpredict(st, ts, dur, cpu, pid, ev, nmc, nm, i0, i1) {
  const NCPU = UNP.NCPU, EVLO = UNP.EVLO, EVHI = UNP.EVHI, cpuEnd = st.cpuEnd, cpuPid = st.cpuPid, evNm = st.evNm;
  let prevTs = st.prevTs;
  for (let i = i0; i < i1; i++) {
    const c = cpu[i], cok = c >= 0 && c < NCPU;
    const pd = cok ? cpuPid[c] + pid[i] : pid[i]; pid[i] = pd; if (cok) cpuPid[c] = pd;
    const r5 = ev[i], e = r5 === 0 ? 0x10000 + pd : r5 > 0 ? r5 - 1 : r5; ev[i] = e;
    const ex = cok && ((e >= 0 && e < 0x200) || (e >= 0x400 && e < 0x1000) || e >= 0x10000);
    const t = (ex && cpuEnd[c] !== -Infinity ? cpuEnd[c] : prevTs) + ts[i]; ts[i] = t; prevTs = t;
    if (ex) cpuEnd[c] = t + dur[i];
    const eok = e >= EVLO && e < EVHI, r9 = nmc[i];
    const k = r9 === 0 && eok ? evNm[e - EVLO] : r9 - 1; nm[i] = k; if (eok) evNm[e - EVLO] = k;
  }
  st.prevTs = prevTs;
}

function setColumns(n, cols, names) {
  D.n = n; [D.ts, D.dur, D.cpu, D.pid, D.rpc, D.ev, D.arg, D.ret, D.ipc, D.nm] = cols; D.names = names;
}

// Rows of a KUtrace JSON object (original tools: 10-field rows).
function fromJSON(obj) {
  const ev = (obj.events || []).filter(r => Array.isArray(r) && r.length >= 9 && !(r[0] >= 999));
  const n = ev.length;
  const cols = [new Float64Array(n), new Float64Array(n), new Int32Array(n), new Int32Array(n), new Int32Array(n),
    new Int32Array(n), new Int32Array(n), new Int32Array(n), new Uint8Array(n), new Uint32Array(n)];
  const names = [], idx = new Map();
  for (let i = 0; i < n; i++) {
    const r = ev[i];
    for (let c = 0; c < 9; c++) cols[c][i] = +r[c] || 0;
    const s = r.length > 9 ? String(r[9]) : '';
    let k = idx.get(s); if (k === undefined) { k = names.length; names.push(s); idx.set(s, k); }
    cols[9][i] = k;
  }
  const meta = Object.assign({}, obj); delete meta.events;
  return { n, cols, names, meta };
}

// Sort all columns by ts if needed (the nearest-span lookup needs order).
function ensureSorted() {
  const ts = D.ts, n = D.n;
  let sorted = true;
  for (let i = 1; i < n; i++) if (ts[i] < ts[i - 1]) { sorted = false; break; }
  if (sorted) return;
  const perm = new Uint32Array(n); for (let i = 0; i < n; i++) perm[i] = i;
  perm.sort((a, b) => ts[a] - ts[b] || a - b);
  for (const key of ['ts', 'dur', 'cpu', 'pid', 'rpc', 'ev', 'arg', 'ret', 'ipc', 'nm']) {
    const a = D[key], b = new a.constructor(n); for (let i = 0; i < n; i++) b[i] = a[perm[i]]; D[key] = b;
  }
}

// ---------------------------------------------------------------- rows
// A row: {label, group, id, ex (exec span idx), ov (overlay idx), exEnd, ovEnd, ts/du/ev (row-local copies),
//   bI/bU/bK/bMax/bLU/bLK (block summaries), tmin, tmax, hl}
const BLK_SH = 5, BLK = 1 << BLK_SH, BLK_SH2 = 10, BLK2 = 1 << BLK_SH2;
const G = []; // groups: {name, rows, open: 'open'|'hl'|'closed', hasHL}
let ROWS = [];

function buildRows(keepOpen) {
  const n = D.n, ts = D.ts, dur = D.dur, cpu = D.cpu, pid = D.pid, rpc = D.rpc, ev = D.ev, arg = D.arg, nm = D.nm;
  const cpuMap = new Map(), cpuSeen = new Uint8Array(4096), pidSeen = new Uint8Array(1 << 22);
  const pidLabel = new Map(), rpcLabel = new Map(), rpcOrder = [];
  const arcs = [], ipis = [], legacy = [];
  let fmin = Infinity, fmax = -Infinity, t1 = (n ? ts[0] : 0) + 1e-6;
  for (let k = 0; k < n; k++) {
    const e = ev[k];
    if (e === EV_PSTATE || e === EV_PSTATE2) {
      let f = arg[k]; if (f < 100) f *= 100; else if (f > 100000) f = Math.round(f / 1000); arg[k] = f;
      if (f < fmin) fmin = f; if (f > fmax) fmax = f; D.hasFreq = true;
    }
    const end = ts[k] + dur[k]; if (end > t1 && end < 999) t1 = end;
    if (e === EV_ARC) { arcs.push(k); continue; }
    if (e === EV_IPI) { ipis.push(k); continue; }
    if (e === EV_BRACKET || e === EV_OVAL || e === EV_DOTS) { legacy.push(k); continue; }
    if (e < 0) continue;
    const c = cpu[k];
    if (c >= 0) { if (c < 4096) { if (!cpuSeen[c]) { cpuSeen[c] = 1; cpuMap.set(c, null); } } else if (!cpuMap.has(c)) cpuMap.set(c, null); }
    const p = pid[k];
    if (p > 0 && ((e > EV_IDLE && e < EV_CEXIT) || e === EV_LEFT || e === EV_RIGHT)) {
      if (p < pidSeen.length) { if (!pidSeen[p]) { pidSeen[p] = 1; pidLabel.set(p, D.names[nm[k]]); } }
      else if (!pidLabel.has(p)) pidLabel.set(p, D.names[nm[k]]);
    }
    if ((e >= EV_RPCREQ && e <= EV_RPCMID) || ((e === EV_LEFT || e === EV_RIGHT) && rpc[k] > 0)) {
      const id = e === EV_LEFT || e === EV_RIGHT ? rpc[k] : arg[k];
      const name = D.names[nm[k]];
      if (id > 0 && name !== '.0') {
        const old = rpcLabel.get(id);
        if (old === undefined) { rpcOrder.push(id); rpcLabel.set(id, name); } else if (name.length > old.length) rpcLabel.set(id, name);
      }
    }
    if (e === EV_LOCKHELD || e === EV_LOCKTRY) D.hasLock = true;
    if (e === EV_PCU || e === EV_PCK) D.hasSamp = true;
    if (e >= EV_MARKA && e <= EV_MARKD) D.hasMark = true;
  }
  D.fmin = fmin; D.fmax = fmax;
  if (fmax - fmin < 9) D.hasFreq = false;
  // keepOpen (summary mode: the window's rows loaded; the page's rows
  // decoded after its summary): the groups stay open or closed as they were.
  const was = new Map(keepOpen ? G.map(g => [g.name, g.open]) : []);
  G.length = 0; ROWS = [];
  const mk = (gname, list) => {
    const g = { name: gname, rows: [], open: was.get(gname) || (gname === 'CPU' ? 'open' : 'closed'), hasHL: false };
    for (const [id, label] of list) {
      const r = { label, group: g, id, nEx: 0, nOv: 0, hl: false, tmin: Infinity, tmax: -Infinity, idx: ROWS.length };
      g.rows.push(r); ROWS.push(r);
    }
    G.push(g); return g;
  };
  if (SUM.on) for (const c of SUM.cpus.keys()) cpuMap.set(c, null); // every CPU, not only those of the window
  const cpus = [...cpuMap.keys()].sort((a, b) => a - b);
  mk('CPU', cpus.map(c => [c, String(c)]));
  if (SUM.on && SUM.pids) for (const [p, x] of SUM.pids) pidLabel.set(p, x.label); // every PID row, labelled as the whole trace labels it
  const pids = [...pidLabel.keys()].sort((a, b) => a - b);
  mk('PID', pids.map(p => [p, pidLabel.get(p)]));
  // every RPC row in the whole trace's order, labelled as it labels them
  if (SUM.on && SUM.rpcs) { rpcOrder.length = 0; for (const [id, x] of SUM.rpcs) { rpcOrder.push(id); rpcLabel.set(id, x.label); } }
  mk('RPC', rpcOrder.map(id => [id, rpcLabel.get(id)]));
  // id -> row index lookups: a typed table for small ids, a Map beyond.
  const lookup = rows => {
    let mx = 0; for (const r of rows) if (r.id > mx) mx = r.id;
    if (mx < (1 << 22)) { const t = new Int32Array(mx + 2).fill(-1); for (const r of rows) if (r.id >= 0) t[r.id] = r.idx;
      return id => (id >= 0 && id <= mx ? t[id] : -1); }
    const m = new Map(rows.map(r => [r.id, r.idx])); return id => { const v = m.get(id); return v === undefined ? -1 : v; };
  };
  const cL = lookup(G[0].rows), pL = lookup(G[1].rows), rL = lookup(G[2].rows);
  // Row of each span per group (-1 = none), per-row counts (exec, overlay)
  // and time extents.
  const cr = new Int32Array(n), pr = new Int32Array(n), rr = new Int32Array(n), exf = new Uint8Array(n);
  const nR = ROWS.length, cEx = new Int32Array(nR), cOv = new Int32Array(nR);
  const tmin = new Float64Array(nR).fill(Infinity), tmax = new Float64Array(nR).fill(-Infinity);
  for (let k = 0; k < n; k++) {
    const e = ev[k];
    if (e < 0 || e === EV_LEFT || e === EV_RIGHT) { cr[k] = pr[k] = rr[k] = -1; continue; }
    const ex = (e >= 0 && e < 0x200) || (e >= 0x400 && e < 0x1000) || e >= EV_IDLE; exf[k] = ex ? 1 : 0;
    const cnt = ex ? cEx : cOv, s = ts[k], end = s + dur[k];
    let a = cpu[k] >= 0 ? cL(cpu[k]) : -1; cr[k] = a; if (a >= 0) { cnt[a]++; if (s < tmin[a]) tmin[a] = s; if (end > tmax[a]) tmax[a] = end; }
    a = pid[k] > 0 ? pL(pid[k]) : -1; pr[k] = a; if (a >= 0) { cnt[a]++; if (s < tmin[a]) tmin[a] = s; if (end > tmax[a]) tmax[a] = end; }
    a = rpc[k] > 0 ? rL(rpc[k]) : -1; rr[k] = a; if (a >= 0) { cnt[a]++; if (s < tmin[a]) tmin[a] = s; if (end > tmax[a]) tmax[a] = end; }
  }
  for (let i = 0; i < nR; i++) { const r = ROWS[i]; r.tmin = tmin[i]; r.tmax = tmax[i]; r.nEx = cEx[i]; r.nOv = cOv[i]; r.ready = false; }
  if (SUM.on) for (const [g, m] of [[G[0], SUM.cpus], [G[1], SUM.pids], [G[2], SUM.rpcs]]) if (m) for (const r of g.rows) { const c = m.get(r.id); if (c) { r.tmin = c.tmin; r.tmax = c.tmax; } }
  D.cpuRow = cr; D.pidRow = pr; D.rpcRow = rr; D.exf = exf;
  // The CPU rows now (the first view shows them); the PID and RPC rows in
  // the background after the first draw, or at once when needed (ensureRows).
  allocRows(G[0].rows); scatter(cr, 0, n); for (const r of G[0].rows) finishRow(r);
  REST.rows = G[1].rows.concat(G[2].rows); REST.k = 0; REST.m = -1; REST.i = 0; REST.done = !REST.rows.length;
  D.arcs = Int32Array.from(arcs); D.ipis = Int32Array.from(ipis);
  D.arcLv = levelSet(D.arcs); D.ipiLv = levelSet(D.ipis);
  D.legacy = Int32Array.from(legacy); D.legLv = levelSet(D.legacy);
  D.t0 = n ? ts[0] : 0; D.t1 = t1;
  if (SUM.on) { D.t0 = SUM.t0; D.t1 = SUM.t1; }
  D.extra = (D.meta.extra || []).filter(r => Array.isArray(r) && r[5] === EV_CALLOUT);
}

// Per-row arrays: the span indices of execution spans (ex) and overlays
// (ov), and row-local copies of start, duration and event of the execution
// spans (for the per-pixel walk in drawExec), filled in span order.
function allocRows(rows) {
  for (const r of rows) {
    r.ex = new Int32Array(r.nEx); r.ov = new Int32Array(r.nOv); r.ts = new Float64Array(r.nEx); r.du = new Float32Array(r.nEx); r.ev = new Int32Array(r.nEx);
    r.exEnd = new Float64Array(r.nEx); // running maximum end (where a redraw starts)
    r.fEx = 0; r.fOv = 0;
  }
}
function finishRow(r) { r.blk = null; splitOverlays(r); r.ready = true; } // rowArrays() in the background or on the first walk
// Spans k0..k1 into their rows of one group (map: D.cpuRow, pidRow, rpcRow).
function scatter(map, k0, k1) {
  const ts = D.ts, dur = D.dur, ev = D.ev, exf = D.exf;
  for (let k = k0; k < k1; k++) {
    const a = map[k]; if (a < 0) continue;
    const r = ROWS[a];
    if (exf[k]) {
      const p = r.fEx++, s = ts[k], d = dur[k], e = s + d, x = r.exEnd; r.ex[p] = k; r.ts[p] = s; r.du[p] = d; r.ev[p] = ev[k];
      x[p] = p && x[p - 1] > e ? x[p - 1] : e;
    } else r.ov[r.fOv++] = k;
  }
}
// The PID and RPC rows, built in steps of about 'ms' milliseconds.
const REST = { rows: [], k: 0, m: 0, i: 0, done: true };
function buildRest(ms) {
  const t = performance.now(), maps = [D.pidRow, D.rpcRow];
  while (!REST.done && performance.now() - t < ms) {
    if (REST.m < 0) { allocRows(REST.rows); REST.m = 0; continue; }
    if (REST.m < 2) { const k1 = Math.min(D.n, REST.k + 262144); scatter(maps[REST.m], REST.k, k1); REST.k = k1; if (k1 === D.n) { REST.m++; REST.k = 0; } continue; }
    if (REST.i < REST.rows.length) { const r = REST.rows[REST.i++]; finishRow(r); rowLod(r); continue; } // the zoomed-out summaries too
    REST.done = true;
  }
  return REST.done;
}
function ensureRows() { if (!REST.done) { const t = performance.now(); buildRest(Infinity); perf.rest = (perf.rest || 0) + performance.now() - t; } }
// After the first draw, in steps: the CPU rows' time bins (rowLod) and
// blocks (rowArrays), the PID and RPC rows (with their bins), then the
// blocks of those, so that no later frame pays for building them.
let idleArr = 0;
function idleRows() {
  const t = performance.now();
  const cpu = G[0].rows;
  if (idleArr < cpu.length) while (idleArr < cpu.length && performance.now() - t < 10) { const r = cpu[idleArr++]; rowLod(r); if (!r.blk) rowArrays(r); }
  else if (!REST.done) buildRest(10);
  else while (idleArr < ROWS.length && performance.now() - t < 10) { const r = ROWS[idleArr++]; if (r.ready && !r.blk) rowArrays(r); }
  perf.rest = (perf.rest || 0) + performance.now() - t;
  if (!REST.done || idleArr < ROWS.length) setTimeout(idleRows, 0); else perf.idleDone = true;
}
// Overlays of a row by kind, each kind split by duration level: waits
// (ovW) and the generic specials (ovX) go into the pixel buffer; frequency
// (ovF), PC samples (ovS), locks (ovK), queued lines (ovQ) and a CPU's
// lost intervals (ovL, drawn at any row height) are paths.  A
// redraw visits only the kinds that are switched on, and in each only the
// levels that can be a pixel wide (no per-frame lists, no sorting).  Marks
// (mk) and packets/RPC messages (ovPt) are drawn at any width.
// Span indices by duration level (2^L..2^(L+1) ns, L = 0..40), each level a
// segment off[L]..off[L+1] of flat arrays: idx (span), ts, du, ev and end
// (running maximum end within the level), or null when empty.  Row-local
// copies, so that a redraw reads them in order instead of jumping around
// the global columns (cache misses).
function levelSet(list) {
  const n = list.length; if (!n) return null;
  const dur = D.dur, ts = D.ts, ev = D.ev, lv = new Int8Array(n), off = new Int32Array(42);
  for (let i = 0; i < n; i++) { const d = dur[list[i]]; const L = d > 1e-9 ? Math.min(40, Math.floor(Math.log2(d * 1e9))) : 0; lv[i] = L; off[L + 1]++; }
  for (let L = 0; L <= 40; L++) off[L + 1] += off[L];
  const idx = new Int32Array(n), lts = new Float64Array(n), ldu = new Float32Array(n), lev = new Int32Array(n), end = new Float64Array(n), fill = off.slice(0, 41);
  for (let i = 0; i < n; i++) {
    const L = lv[i], k = list[i], p = fill[L]++; idx[p] = k; lts[p] = ts[k]; ldu[p] = dur[k]; lev[p] = ev[k];
    const e = ts[k] + dur[k]; end[p] = p > off[L] && end[p - 1] > e ? end[p - 1] : e;
  }
  return { off, idx, ts: lts, du: ldu, ev: lev, end };
}
// first i in [lo, hi) with a[i] > v
function firstAboveIn(a, lo, hi, v) { while (lo < hi) { const m = (lo + hi) >> 1; if (a[m] > v) hi = m; else lo = m + 1; } return lo; }
// Overlays drawn as plain rectangles (into the pixel buffer, pass 1):
// waits and the generic specials of 3.6.12.
function isRectOverlay(e) {
  if (e >= EV_WAIT && e < EV_WAIT + 32) return true;
  return e >= 0x200 && e < 0x240 && e !== EV_PSTATE && e !== EV_PSTATE2 && !(e >= EV_MARKA && e <= EV_MARKD) &&
    e !== EV_RPCRX && e !== EV_RPCTX && e !== EV_RXPKT && e !== EV_TXPKT && e !== EV_ENQ;
}
function splitOverlays(r) {
  const list = r.ov, n = list.length, ts = D.ts, dur = D.dur, ev = D.ev;
  const W = [], X = [], F = [], Sm = [], K = [], Q = [], Lo = [], pt = [], mk0 = [], mk1 = []; let mx = -Infinity;
  for (let i = 0; i < n; i++) {
    const k = list[i], e = ev[k]; if (ts[k] + dur[k] > mx) mx = ts[k] + dur[k];
    if (e >= EV_MARKA && e <= EV_MARKD) (e === EV_MARKA + 1 ? mk1 : mk0).push(k); // mark_b has its own text line
    else if (e === EV_RXPKT || e === EV_TXPKT || e === EV_RPCRX || e === EV_RPCTX) pt.push(k);
    else if (e >= EV_WAIT && e < EV_WAIT + 32) W.push(k);
    else if (e === EV_PSTATE || e === EV_PSTATE2) F.push(k);
    else if (e === EV_PCU || e === EV_PCK) Sm.push(k);
    else if (e === EV_LOCKHELD || e === EV_LOCKTRY) K.push(k);
    else if (e === EV_LOST) { if (r.group.name === 'CPU') Lo.push(k); } // a CPU's loss, not its thread's
    else if (isRectOverlay(e)) X.push(k); else Q.push(k);
  }
  r.ovMax = mx;
  r.ovW = r.group.name === 'CPU' ? null : levelSet(W); // waits show on PID and RPC rows only
  r.ovX = levelSet(X); r.ovF = levelSet(F); r.ovS = levelSet(Sm); r.ovK = levelSet(K); r.ovQ = levelSet(Q); r.ovL = levelSet(Lo);
  r.ovPt = Int32Array.from(pt); r.mk = [Int32Array.from(mk0), Int32Array.from(mk1)]; r.mkTs = r.mk.map(a => Float64Array.from(a, k => ts[k])); r.mkT = r.mk.map(a => Int8Array.from(a, k => ev[k] - EV_MARKA));
  // The marks again by type for 3.6.8's rule (type x 2 + 1 for closing '/' text).
  // Texts and their widths are made when a mark is first laid out (most
  // marks of a big trace never are), not here at load time.
  const byType = [[], [], [], [], [], [], [], []];
  for (const a of r.mk) for (const k of a) { const t = ev[k] - EV_MARKA; byType[t * 2 + (t !== 3 && markCloses(k) ? 1 : 0)].push(k); }
  r.mkK = byType.map(a => { if (!inTimeOrder(a)) a.sort((x, y) => ts[x] - ts[y] || x - y);
    return { idx: Int32Array.from(a), ts: Float64Array.from(a, k => ts[k]), txt: new Array(a.length), w: new Float32Array(a.length), wf: 0 }; });
}
function inTimeOrder(a) { const ts = D.ts; for (let i = 1; i < a.length; i++) if (ts[a[i]] < ts[a[i - 1]] || (ts[a[i]] === ts[a[i - 1]] && a[i] < a[i - 1])) return false; return true; }
// markText(k)[0] === '/' without making the text: after '=' in the name, else b40's first letter (B40[39] is '/').
// Per name: 1 no '=', 2 text after '=' opens, 3 it closes (0: not looked at yet).
let MK_NAME = new Uint8Array(0), MK_NAMES = null;
function markCloses(k) {
  const j = D.nm[k]; if (MK_NAMES !== D.names || MK_NAME.length !== D.names.length) { MK_NAME = new Uint8Array(D.names.length); MK_NAMES = D.names; }
  let c = MK_NAME[j]; if (!c) { const nm = D.names[j], eq = nm.indexOf('='); c = MK_NAME[j] = eq < 0 ? 1 : nm.charCodeAt(eq + 1) === 47 ? 3 : 2; }
  const v = D.arg[k] >>> 0; return c === 1 ? v > 0 && v % 40 === 39 : c === 3;
}
// Execution spans of a row, in one pass: row-local contiguous copies of
// start, duration and event (for the per-pixel walk in drawExec), the
// running maximum end (exEnd), and per block of 2^BLK_SH and 2^BLK_SH2
// entries the idle/user/kernel time, the longest span and the last user
// and last kernel span (row-local index, or -1), so that runs of spans
// inside one pixel are skipped a block at a time.
function blockArrays(m, sh) {
  const nb = (m + (1 << sh) - 1) >> sh;
  return { I: new Float64Array(nb), U: new Float64Array(nb), K: new Float64Array(nb), M: new Float64Array(nb),
    LU: new Int32Array(nb).fill(-1), LK: new Int32Array(nb).fill(-1) };
}
function rowArrays(r) {
  const m = r.ex.length, rdu = r.du, rev = r.ev;
  const A = blockArrays(m, BLK_SH), B = blockArrays(m, BLK_SH2);
  const AI = A.I, AU = A.U, AK = A.K, AM = A.M, ALU = A.LU, ALK = A.LK, BI = B.I, BU = B.U, BK = B.K, BM = B.M, BLU = B.LU, BLK_ = B.LK;
  for (let i = 0; i < m; i++) {
    const d = rdu[i], e = rev[i], a = i >> BLK_SH, b = i >> BLK_SH2;
    if (e === EV_IDLE || e === EV_CEXIT) { AI[a] += d; BI[b] += d; }
    else if (e > EV_IDLE) { AU[a] += d; BU[b] += d; ALU[a] = i; BLU[b] = i; }
    else { AK[a] += d; BK[b] += d; ALK[a] = i; BLK_[b] = i; }
    if (d > AM[a]) AM[a] = d; if (d > BM[b]) BM[b] = d;
  }
  r.blk = [A, B];
}
// Level of detail for zoomed-out views (a pixel wider than the finest bin
// of the row): the execution spans of a row summed into time bins on a
// power-of-two grid anchored at the trace start (idle, user and kernel
// time in ns and the last user and kernel span of each bin), the finest
// bin about 4 spans wide on average, each coarser level twice as wide.  A
// redraw picks the level whose bins are between half a pixel and a pixel
// wide and applies the aggregation rule of 3.4 per pixel to the 1-2 bins
// starting in it: O(pixels) per row however many spans are in view.
// Spans a pixel or longer are drawn in full on top, from a per-duration
// index of the row's long spans.  Built on the first such redraw.
// The finest bin of a row: a power of two ns about 4 spans wide on
// average (ext: the row's extent, s; m: its execution spans).
// The duration level of a span a pixel or longer (2^L ns .. 2^(L+1)).
function lodLevel(d) { return Math.min(40, Math.max(0, Math.floor(Math.log2(d * 1e9)))); }
function lodQ0(ext, m) { return Math.pow(2, Math.max(0, Math.ceil(Math.log2(4 * ext / m * 1e9)))) * 1e-9; }
// A level of bins as lodPixels reads it, made once (rowLod, lodRow): the
// idle, user and kernel ns as running sums, and the last user and kernel
// entries as the last one so far (-1: none yet), so that a pixel's bins
// are summed by two reads whatever their number.  Sums of whole ns stay
// exact; an entry (a span) is in one bin only, so a last entry that
// differs from the one before a pixel's first bin is in the pixel.
function lodCumulate(lv) {
  const I = lv.I, U = lv.U, K = lv.K, LU = lv.LU, LK = lv.LK, n = I.length;
  for (let j = 1; j < n; j++) {
    I[j] += I[j - 1]; U[j] += U[j - 1]; K[j] += K[j - 1];
    if (LU[j] < 0) LU[j] = LU[j - 1]; if (LK[j] < 0) LK[j] = LK[j - 1];
  }
  return lv;
}
// Bins and times in whole ns (times are whole 10 ns on a page), so that the
// bins and their sums are exactly those kutrace_view's /api/lod makes of
// the same rows: the summary draws what the rows would.
function rowLod(r) {
  if (r.lod !== undefined) return r.lod;
  const sm = !SUM.on ? null : r.group === G[0] ? SUM.cpus : r.group === G[1] ? SUM.pids : r.group === G[2] ? SUM.rpcs : null;
  const sc = sm ? sm.get(r.id) : null; // the whole row's, not the window's
  const m = r.ex.length; r.lod = null; if (m < 256 || (sc && sc.m < 256)) return null;
  const rts = r.ts, rdu = r.du, rev = r.ev, dts = D.ts, ddu = D.dur, ex = r.ex, O = Math.round(D.t0 * 1e9);
  const q0 = sc ? sc.q0 : lodQ0(Math.max(1e-9, r.tmax - rts[0]), m), q0n = Math.round(q0 * 1e9);
  const binOf = i => Math.floor((Math.round(dts[ex[i]] * 1e9) - O) / q0n);
  // Levels are sparse: only bins with spans, by bin number relative to base.
  const levels = [], base0 = binOf(0);
  let nb = 0, last = -1;
  for (let i = 0; i < m; i++) { const b = binOf(i) - base0; if (b !== last) { nb++; last = b; } }
  let J = new Int32Array(nb), I = new Float64Array(nb), U = new Float64Array(nb), K = new Float64Array(nb), LU = new Int32Array(nb).fill(-1), LK = new Int32Array(nb).fill(-1);
  let p = -1; last = -1;
  for (let i = 0; i < m; i++) {
    const b = binOf(i) - base0, e = rev[i], d = Math.round(ddu[ex[i]] * 1e9);
    if (b !== last) { J[++p] = b; last = b; }
    if (e === EV_IDLE || e === EV_CEXIT) I[p] += d; else if (e > EV_IDLE) { U[p] += d; LU[p] = i; } else { K[p] += d; LK[p] = i; }
  }
  let q = q0, base = base0;
  for (;;) {
    levels.push({ q, base, J, I, U, K, LU, LK });
    // up to the level whose one bin from the trace's start holds every
    // span, above which all levels are alike: a row far shorter than a
    // pixel (an RPC's) is drawn with the width the pixel asks for, the
    // width a summary draws it with (lodQ), not with finer bins
    if (base + J[nb - 1] <= 0 || levels.length > 40) break;
    const pb = Math.floor(base / 2); let pn = 0; last = -1;
    for (let j = 0; j < nb; j++) { const c = Math.floor((base + J[j]) / 2) - pb; if (c !== last) { pn++; last = c; } }
    const J2 = new Int32Array(pn), I2 = new Float64Array(pn), U2 = new Float64Array(pn), K2 = new Float64Array(pn), LU2 = new Int32Array(pn).fill(-1), LK2 = new Int32Array(pn).fill(-1);
    p = -1; last = -1;
    for (let j = 0; j < nb; j++) { // children in order: the later one's last spans win
      const c = Math.floor((base + J[j]) / 2) - pb; if (c !== last) { J2[++p] = c; last = c; }
      I2[p] += I[j]; U2[p] += U[j]; K2[p] += K[j]; if (LU[j] >= 0) LU2[p] = LU[j]; if (LK[j] >= 0) LK2[p] = LK[j];
    }
    base = pb; nb = pn; J = J2; I = I2; U = U2; K = K2; LU = LU2; LK = LK2; q *= 2;
  }
  levels.forEach(lodCumulate); // (each level was made from the one below as it was)
  // spans of q0 or longer by duration level (row-local indices, running max end)
  const cnt = new Int32Array(41), lvOf = lodLevel;
  for (let i = 0; i < m; i++) if (rdu[i] >= q0) cnt[lvOf(rdu[i])]++;
  const lidx = [], lend = [], fill = new Int32Array(41);
  for (let L = 0; L <= 40; L++) { lidx.push(cnt[L] ? new Int32Array(cnt[L]) : null); lend.push(cnt[L] ? new Float64Array(cnt[L]) : null); }
  for (let i = 0; i < m; i++) {
    const d = rdu[i]; if (d < q0) continue;
    const L = lvOf(d), p = fill[L]++, e = rts[i] + d, a = lend[L]; lidx[L][p] = i; a[p] = p && a[p - 1] > e ? a[p - 1] : e;
  }
  return (r.lod = { q0, levels, lidx, lend });
}
function endMax(list) {
  const m = list.length, out = new Float64Array(m); let mx = -Infinity;
  for (let i = 0; i < m; i++) { const k = list[i]; const e = D.ts[k] + D.dur[k]; if (e > mx) mx = e; out[i] = mx; }
  return out;
}
// first i in [lo, hi) with a[i] >= v
function firstAtLeast(a, lo, hi, v) { while (lo < hi) { const m = (lo + hi) >> 1; if (a[m] >= v) hi = m; else lo = m + 1; } return lo; }
// first i with a[i] > v
function firstAbove(a, v) { let lo = 0, hi = a.length; while (lo < hi) { const m = (lo + hi) >> 1; if (a[m] > v) hi = m; else lo = m + 1; } return lo; }
// first j in [lo,hi) with ts[list[j]] >= v
function firstTsAtLeast(list, lo, hi, v) { const ts = D.ts; while (lo < hi) { const m = (lo + hi) >> 1; if (ts[list[m]] >= v) hi = m; else lo = m + 1; } return lo; }

// ---------------------------------------------------------------- state
const S = {
  t0: 0, t1: 1, yk: 1, ypan: 0,
  btn: { annot: 0, user: 0, all: 0, mark: 3, arc: 2, lock: 2, freq: 2, ipc: 0, samp: 0, cb: 0 },
  search: { text: '', not: false, units: 1, min: '', max: '' },
  summary: '', searchErr: '', hlEv: [], anns: [], measure: null, hover: '', relative: false,
  showHeader: true, legend: 0, sizeMsg: '', kept: -1, fade: false, menu: false, lastExport: '',
  cfg: { aspect: '0:0', ychars: 18, ypx: 18, txt: 3, spn: 3 },
};
const UNITS = [['nsec', 1e-9], ['µsec', 1e-6], ['msec', 1e-3]];
let hlSpan = null; let anyHL = false;
const views = [];
const recent = [];
let L = {}; // layout
const cv = document.getElementById('cv');
const ctx = cv.getContext('2d');
let dpr = 1;
const perf = { lastDraw: 0, draws: 0, prims: 0, tri: 0, msgs: 0, arcs: 0, ticks: 0, mkRows: [], phase: {} };

function recomputeHL() {
  const n = D.n; anyHL = false;
  if (!hlSpan || hlSpan.length !== n) hlSpan = new Uint8Array(n); else hlSpan.fill(0);
  for (const g of G) { g.hasHL = g.rows.some(r => r.hl); if (g.hasHL) anyHL = true; if (!g.hasHL && g.open === 'hl') g.open = 'open'; }
  if (G.some((g, i) => i > 0 && g.hasHL)) ensureRows();
  for (const r of ROWS) if (r.hl) { for (const k of r.ex) hlSpan[k] = 1; for (const k of r.ov) hlSpan[k] = 1; }
  if (S.hlEv.length) {
    anyHL = true; const ev = D.ev; const set = S.hlEv;
    for (let k = 0; k < n; k++) { const e = ev[k]; if (e === set[0] || e === set[1]) hlSpan[k] = 1; }
  }
  if (anyHL) { // arcs: highlighted if either end's CPU or PID row is
    const hlCpu = new Set(G[0].rows.filter(r => r.hl).map(r => r.id)), hlPid = new Set(G[1].rows.filter(r => r.hl).map(r => r.id));
    for (const k of D.arcs) if (hlCpu.has(D.cpu[k]) || hlCpu.has(D.arg[k]) || hlPid.has(D.pid[k]) || hlPid.has(D.ret[k])) hlSpan[k] = 1;
    for (const k of D.legacy) if (hlCpu.has(D.cpu[k]) || hlPid.has(D.pid[k])) hlSpan[k] = 1; // brackets, ovals, dots: by their row
  }
}
function isHL(k) { return !anyHL || hlSpan[k] === 1; }

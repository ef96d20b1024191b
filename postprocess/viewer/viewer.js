// SPDX-License-Identifier: BSD-3-Clause
// kutrace timeline viewer: draws KUtrace spans on a canvas from typed arrays.
// Data: #ktmeta (JSON header) + #ktdata (base64 of a zlib blob of columns,
// see lib/html.c), or a KUtrace JSON file opened/dropped on the page.
// Test hook: window.kutraceState() and window.kutrace (the viewer object).
'use strict';
(function () {
if (window.ktOtherPage) return; // an RPC or points page: pages.js draws it
// ---------------------------------------------------------------- constants
const EV_USERPID = 0x200, EV_RPCREQ = 0x201, EV_RPCMID = 0x203, EV_RPCRX = 0x204, EV_RPCTX = 0x205;
const EV_PSTATE = 0x209, EV_PSTATE2 = 0x21C, EV_MARKA = 0x20A, EV_MARKD = 0x20D;
const EV_LEFT = 0x20E, EV_RIGHT = 0x20F, EV_RXPKT = 0x214, EV_TXPKT = 0x215, EV_ENQ = 0x21A;
const EV_PCU = 0x280, EV_PCK = 0x281, EV_LOCKHELD = 0x282, EV_LOCKTRY = 0x283;
const EV_WAIT = 0x300, EV_IDLE = 0x10000, EV_CEXIT = 0x20000;
const EV_BRACKET = -1, EV_OVAL = -2, EV_ARC = -3, EV_CALLOUT = -4, EV_DOTS = -6, EV_IPI = -7, EV_LTIMER = 0x5EC;
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

// ---------------------------------------------------------------- data
const D = { n: 0, ts: null, dur: null, cpu: null, pid: null, rpc: null, ev: null, arg: null, ret: null, ipc: null,
  nm: null, names: [], meta: {}, t0: 0, t1: 1, fmin: 0, fmax: 0, hasLock: false, hasSamp: false, hasFreq: false,
  hasMark: false, arcs: null, ipis: null, extra: [] };

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
// colI32 and colF64 are the same loop on purpose: one function per typed
// array type keeps each one monomorphic, which V8 optimises better
// than one function fed both Int32Array and Float64Array (load time).
function colI32(u, p, n, out) {
  let q = p;
  for (let i = 0; i < n; i++) {
    let b = u[q++], v = b & 127;
    if (b & 128) {
      b = u[q++]; v |= (b & 127) << 7;
      if (b & 128) { b = u[q++]; v |= (b & 127) << 14;
        if (b & 128) { b = u[q++]; v |= (b & 127) << 21;
          if (b & 128) { out[i] = vSlow(u, q - 4); q = VQ; continue; } } }
    }
    out[i] = (v >>> 1) ^ -(v & 1);
  }
  return out;
}
function colF64(u, p, n, out) {
  let q = p;
  for (let i = 0; i < n; i++) {
    let b = u[q++], v = b & 127;
    if (b & 128) {
      b = u[q++]; v |= (b & 127) << 7;
      if (b & 128) { b = u[q++]; v |= (b & 127) << 14;
        if (b & 128) { b = u[q++]; v |= (b & 127) << 21;
          if (b & 128) { out[i] = vSlow(u, q - 4); q = VQ; continue; } } }
    }
    out[i] = (v >>> 1) ^ -(v & 1);
  }
  return out;
}
// The KTV2 blob of lib/html.c: columns, then the prediction undone in one
// pass (the same rules as pred_row there), then the string table.
function decodeBlob(u) {
  const dv = new DataView(u.buffer, u.byteOffset, u.byteLength);
  let p = 0;
  const u32 = () => { const v = dv.getUint32(p, true); p += 4; return v; };
  if (String.fromCharCode(u[0], u[1], u[2], u[3]) !== 'KTV2') throw new Error('embedded data is not KTV2');
  p = 4;
  const n = u32(), ncols = u32();
  const lens = []; for (let i = 0; i < ncols; i++) lens.push(u32());
  const at = []; for (let i = 0; i < ncols; i++) { at.push(p); p += lens[i]; }
  const ts = colF64(u, at[0], n, new Float64Array(n)), dur = colF64(u, at[1], n, new Float64Array(n));
  const cpu = colI32(u, at[2], n, new Int32Array(n)), pid = colI32(u, at[3], n, new Int32Array(n));
  const rpc = colI32(u, at[4], n, new Int32Array(n)), ev = colI32(u, at[5], n, new Int32Array(n));
  // arg is a float: it carries unsigned 32-bit arguments (mark_d, packet hashes).
  const arg = colF64(u, at[6], n, new Float64Array(n)), ret = colI32(u, at[7], n, new Int32Array(n));
  const ipc = Uint8Array.from(colI32(u, at[8], n, new Int32Array(n))), nmc = colI32(u, at[9], n, new Int32Array(n));
  const nm = new Uint32Array(nmc.buffer); // in place
  const NCPU = 65536, EVLO = -16, EVHI = 0x40000;
  const cpuEnd = new Float64Array(NCPU).fill(-Infinity), cpuPid = new Int32Array(NCPU), evNm = new Int32Array(EVHI - EVLO).fill(-1);
  let prevTs = 0;
  for (let i = 0; i < n; i++) {
    const c = cpu[i], cok = c >= 0 && c < NCPU;
    const pd = cok ? cpuPid[c] + pid[i] : pid[i]; pid[i] = pd; if (cok) cpuPid[c] = pd;
    const r5 = ev[i], e = r5 === 0 ? 0x10000 + pd : r5 > 0 ? r5 - 1 : r5; ev[i] = e;
    const ex = cok && ((e >= 0 && e < 0x200) || (e >= 0x400 && e < 0x1000) || e >= 0x10000);
    const t = (ex && cpuEnd[c] !== -Infinity ? cpuEnd[c] : prevTs) + ts[i]; ts[i] = t; prevTs = t;
    if (ex) cpuEnd[c] = t + dur[i];
    const eok = e >= EVLO && e < EVHI, r9 = nmc[i];
    const k = r9 === 0 && eok ? evNm[e - EVLO] : r9 - 1; nm[i] = k; if (eok) evNm[e - EVLO] = k;
  }
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

function buildRows() {
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
  G.length = 0; ROWS = [];
  const mk = (gname, list) => {
    const g = { name: gname, rows: [], open: gname === 'CPU' ? 'open' : 'closed', hasHL: false };
    for (const [id, label] of list) {
      const r = { label, group: g, id, nEx: 0, nOv: 0, hl: false, tmin: Infinity, tmax: -Infinity, idx: ROWS.length };
      g.rows.push(r); ROWS.push(r);
    }
    G.push(g); return g;
  };
  const cpus = [...cpuMap.keys()].sort((a, b) => a - b);
  mk('CPU', cpus.map(c => [c, String(c)]));
  const pids = [...pidLabel.keys()].sort((a, b) => a - b);
  mk('PID', pids.map(p => [p, pidLabel.get(p)]));
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
  D.cpuRow = cr; D.pidRow = pr; D.rpcRow = rr; D.exf = exf;
  // The CPU rows now (the first view shows them); the PID and RPC rows in
  // the background after the first draw, or at once when needed (ensureRows).
  allocRows(G[0].rows); scatter(cr, 0, n); for (const r of G[0].rows) finishRow(r);
  REST.rows = G[1].rows.concat(G[2].rows); REST.k = 0; REST.m = -1; REST.i = 0; REST.done = !REST.rows.length;
  D.arcs = Int32Array.from(arcs); D.ipis = Int32Array.from(ipis);
  D.arcLv = levelSet(D.arcs); D.ipiLv = levelSet(D.ipis);
  D.legacy = Int32Array.from(legacy); D.legLv = levelSet(D.legacy);
  D.t0 = n ? ts[0] : 0; D.t1 = t1;
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
// (ovF), PC samples (ovS), locks (ovK) and queued lines (ovQ) are paths.  A
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
function splitOverlays(r) {
  const list = r.ov, n = list.length, ts = D.ts, dur = D.dur, ev = D.ev;
  const W = [], X = [], F = [], Sm = [], K = [], Q = [], pt = [], mk0 = [], mk1 = []; let mx = -Infinity;
  for (let i = 0; i < n; i++) {
    const k = list[i], e = ev[k]; if (ts[k] + dur[k] > mx) mx = ts[k] + dur[k];
    if (e >= EV_MARKA && e <= EV_MARKD) (e === EV_MARKA + 1 ? mk1 : mk0).push(k); // mark_b has its own text line
    else if (e === EV_RXPKT || e === EV_TXPKT || e === EV_RPCRX || e === EV_RPCTX) pt.push(k);
    else if (e >= EV_WAIT && e < EV_WAIT + 32) W.push(k);
    else if (e === EV_PSTATE || e === EV_PSTATE2) F.push(k);
    else if (e === EV_PCU || e === EV_PCK) Sm.push(k);
    else if (e === EV_LOCKHELD || e === EV_LOCKTRY) K.push(k);
    else if (isRectOverlay(e)) X.push(k); else Q.push(k);
  }
  r.ovMax = mx;
  r.ovW = r.group.name === 'CPU' ? null : levelSet(W); // waits show on PID and RPC rows only
  r.ovX = levelSet(X); r.ovF = levelSet(F); r.ovS = levelSet(Sm); r.ovK = levelSet(K); r.ovQ = levelSet(Q);
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

// ---------------------------------------------------------------- layout
function rowTracks(r) {
  const g = r.group;
  if (g.open === 'closed') return 0;
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
      for (const r of g.rows) { const h = rowTracks(r); r.y = tr; r.h = h; if (h) items.push({ row: r, y: tr, h }); tr += h; }
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
// Level of detail for zoomed-out views (a pixel wider than the finest bin
// of the row): the execution spans of a row summed into time bins on a
// power-of-two grid anchored at the trace start (idle, user and kernel
// time and the last user and kernel span of each bin), the finest bin
// about 4 spans wide on average, each coarser level twice as wide.  A
// redraw picks the level whose bins are between half a pixel and a pixel
// wide and applies the aggregation rule of 3.4 per pixel to the 1-2 bins
// starting in it: O(pixels) per row however many spans are in view.
// Spans a pixel or longer are drawn in full on top, from a per-duration
// index of the row's long spans.  Built on the first such redraw.
function rowLod(r) {
  if (r.lod !== undefined) return r.lod;
  const m = r.ex.length; r.lod = null; if (m < 256) return null;
  const rts = r.ts, rdu = r.du, rev = r.ev, O = D.t0;
  const ext = Math.max(1e-9, r.tmax - rts[0]);
  const q0 = Math.pow(2, Math.max(0, Math.ceil(Math.log2(4 * ext / m * 1e9)))) * 1e-9;
  // Levels are sparse: only bins with spans, by bin number relative to base.
  const levels = [], base0 = Math.floor((rts[0] - O) / q0);
  let nb = 0, last = -1;
  for (let i = 0; i < m; i++) { const b = Math.floor((rts[i] - O) / q0) - base0; if (b !== last) { nb++; last = b; } }
  let J = new Int32Array(nb), I = new Float32Array(nb), U = new Float32Array(nb), K = new Float32Array(nb), LU = new Int32Array(nb).fill(-1), LK = new Int32Array(nb).fill(-1);
  let p = -1; last = -1;
  for (let i = 0; i < m; i++) {
    const b = Math.floor((rts[i] - O) / q0) - base0, e = rev[i], d = rdu[i];
    if (b !== last) { J[++p] = b; last = b; }
    if (e === EV_IDLE || e === EV_CEXIT) I[p] += d; else if (e > EV_IDLE) { U[p] += d; LU[p] = i; } else { K[p] += d; LK[p] = i; }
  }
  let q = q0, base = base0;
  for (;;) {
    levels.push({ q, base, J, I, U, K, LU, LK });
    if (nb <= 2 || levels.length > 40) break;
    const pb = Math.floor(base / 2); let pn = 0; last = -1;
    for (let j = 0; j < nb; j++) { const c = Math.floor((base + J[j]) / 2) - pb; if (c !== last) { pn++; last = c; } }
    const J2 = new Int32Array(pn), I2 = new Float32Array(pn), U2 = new Float32Array(pn), K2 = new Float32Array(pn), LU2 = new Int32Array(pn).fill(-1), LK2 = new Int32Array(pn).fill(-1);
    p = -1; last = -1;
    for (let j = 0; j < nb; j++) { // children in order: the later one's last spans win
      const c = Math.floor((base + J[j]) / 2) - pb; if (c !== last) { J2[++p] = c; last = c; }
      I2[p] += I[j]; U2[p] += U[j]; K2[p] += K[j]; if (LU[j] >= 0) LU2[p] = LU[j]; if (LK[j] >= 0) LK2[p] = LK[j];
    }
    base = pb; nb = pn; J = J2; I = I2; U = U2; K = K2; LU = LU2; LK = LK2; q *= 2;
  }
  // spans of q0 or longer by duration level (row-local indices, running max end)
  const cnt = new Int32Array(41), lvOf = L => Math.min(40, Math.max(0, Math.floor(Math.log2(L * 1e9))));
  for (let i = 0; i < m; i++) if (rdu[i] >= q0) cnt[lvOf(rdu[i])]++;
  const lidx = [], lend = [], fill = new Int32Array(41);
  for (let L = 0; L <= 40; L++) { lidx.push(cnt[L] ? new Int32Array(cnt[L]) : null); lend.push(cnt[L] ? new Float64Array(cnt[L]) : null); }
  for (let i = 0; i < m; i++) {
    const d = rdu[i]; if (d < q0) continue;
    const L = lvOf(d), p = fill[L]++, e = rts[i] + d, a = lend[L]; lidx[L][p] = i; a[p] = p && a[p - 1] > e ? a[p - 1] : e;
  }
  return (r.lod = { q0, levels, lidx, lend });
}
let LOD_COLS = new Int32Array(2 * 4096); // scratch: pixel, pick
let LOD_COV = new Float32Array(4096), LOD_IDL = new Uint8Array(4096); // scratch: busy share of the pixel, any idle
// The bins used are a quarter to an eighth of a pixel wide, so that a bin
// straddling a pixel boundary moves little time into the wrong pixel; a
// row whose finest bins are wider than that is walked span by span (then
// at most about 16 spans per pixel on average).
let LOD_ON = true, LOD_SUB = 4; // tests compare with the exact walk (kutrace.setLod)
function drawExecLod(r, g, lod, P) {
  const t0 = S.t0, t1 = S.t1, O = D.t0, E = g.E, yc = g.yc, list = r.ex, rev = r.ev, rts = r.ts, rdu = r.du;
  let l = Math.floor(Math.log2(P / lod.q0 / LOD_SUB) + 1e-9); if (l < 0) l = 0; if (l >= lod.levels.length) l = lod.levels.length - 1;
  const lv = lod.levels[l], q = lv.q, base = lv.base, J = lv.J, I = lv.I, U = lv.U, K = lv.K, LU = lv.LU, LK = lv.LK, nb = I.length;
  // aggregated pixels are fast glyphs (3.4) at any row height: columns of the idle, user or kernel band
  const FB = FAST_BANDS, WP = W_PAL[S.btn.cb], fade = S.fade;
  pbBand(yc, Math.max(1, 0.07 * E), FB, 0); pbBand(yc, Math.max(1, 0.38 * E), FB, 2); pbBand(yc, Math.max(1, 0.93 * E), FB, 4);
  let j = firstAtLeast(J, 0, nb, Math.floor((t0 - O) / q) - base); const jEnd = firstAtLeast(J, j, nb, Math.floor((t1 - O) / q) - base + 1);
  const idleHL = r.hl || S.hlEv.includes(EV_IDLE) || S.hlEv.includes(EV_CEXIT); // idle (pid 0) is on CPU rows only
  if (LOD_COLS.length < 2 * (L.pw + 8)) LOD_COLS = new Int32Array(2 * (L.pw + 8));
  if (LOD_COV.length < L.pw + 8) { LOD_COV = new Float32Array(L.pw + 8); LOD_IDL = new Uint8Array(L.pw + 8); }
  const cols = LOD_COLS, cov = LOD_COV, idl = LOD_IDL, B = L.left; let nc = 0, cur = -1, tI = 0, tU = 0, tK = 0, lU = -1, lK = -1;
  // pass 1: per pixel the winner of its bins (3.4): a row-local span index, -2 idle, -1 none
  for (; j <= jEnd; j++) {
    let px = 2147483647;
    if (j < jEnd) {
      px = Math.floor((O + (base + J[j]) * q - t0) / P); if (px < 0) px = 0;
      if (px === cur) { tI += I[j]; tU += U[j]; tK += K[j]; if (LU[j] >= 0) lU = LU[j]; if (LK[j] >= 0) lK = LK[j]; continue; }
    }
    if (cur >= 0) {
      const busy = tU + tK; tU *= 10; tK *= 10; let pick;
      if (tU >= tI && tU >= tK && lU >= 0) pick = lU; else if (tK > tU && tK >= tI && lK >= 0) pick = lK; else pick = tI > 0 ? -2 : -1;
      if (pick !== -1) { cov[nc >> 1] = busy / P; idl[nc >> 1] = tI > 0 ? 1 : 0; cols[nc++] = cur; cols[nc++] = pick; }
    }
    if (j === jEnd) break;
    cur = px; tI = I[j]; tU = U[j]; tK = K[j]; lU = LU[j]; lK = LK[j];
  }
  // pass 2: the columns (device pixel columns written directly at dpr 1)
  const u = PB.u32, W = PB.w, ax = B - PB.x0, one = dpr === 1;
  for (let c = 0; c < nc; c += 2) {
    const pick = cols[c + 1], e = pick >= 0 ? rev[pick] : EV_IDLE, grey = fade || (anyHL && (pick >= 0 ? !hlSpan[list[pick]] : !idleHL));
    let p, q, v;
    if (e === EV_IDLE || e === EV_CEXIT) { p = FB[0]; q = FB[1]; v = grey ? W_GREY : W_BLACK; }
    else if (cov[c >> 1] < 0.5 && COVER_ON) { aggCol(B + cols[c], e, grey, idl[c >> 1], cov[c >> 1] * P, P, FB); continue; } // partly covered: mixed
    else if (e > EV_IDLE) { p = FB[2]; q = FB[3]; v = grey ? W_GREY : WP[((e * 4) % 17 + 17) % 17]; }
    else { const h = e >> 8; p = FB[4]; q = FB[5]; v = grey ? W_GREY : W_FASTK[h === 4 || h === 6 ? 1 : h === 5 || h === 7 ? 2 : h >= 8 ? 3 : 0]; }
    const a = ax + cols[c];
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
// Overlays drawn as plain rectangles (into the pixel buffer, pass 1):
// waits and the generic specials of 3.6.12.
function isRectOverlay(e) {
  if (e >= EV_WAIT && e < EV_WAIT + 32) return true;
  return e >= 0x200 && e < 0x240 && e !== EV_PSTATE && e !== EV_PSTATE2 && !(e >= EV_MARKA && e <= EV_MARKD) &&
    e !== EV_RPCRX && e !== EV_RPCTX && e !== EV_RXPKT && e !== EV_TXPKT && e !== EV_ENQ;
}

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
  } else if (e >= 0x200 && e < 0x240) {
    if (w < 1) return false;
    fr(x0, x1, yc - E / 3, E, grey ? GREY : colA(e));
  }
  return true;
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
function nameArg(k, withRet) {
  const e = D.ev[k], nm = D.names[D.nm[k]];
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
function updateStatus() {
  const st = document.getElementById('status');
  let s = S.summary || '';
  if (!s && S.showHeader) s = [D.meta.kernelVersion, D.meta.cpuModelName].filter(Boolean).join(', ');
  if (S.sizeMsg) s += (s ? '  ' : '') + S.sizeMsg;
  if (st.textContent !== s) st.textContent = s;
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
function updateReadouts() {
  if (!S.menu) return;
  const x = 'x: ' + S.t0.toFixed(6) + '+' + Math.round((S.t1 - S.t0) * 1e6);
  const y = 'y: ' + Math.round(-S.ypan / L.ppt) + '+' + Math.round((L.ph - 10) / L.ppt);
  const ex = document.getElementById('m_x'), ey = document.getElementById('m_y');
  if (ex.textContent !== x) ex.textContent = x; if (ey.textContent !== y) ey.textContent = y;
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
    rows: ROWS.map(r => ({ label: r.label, group: r.group.name, id: r.id, visible: r.h > 0, highlighted: r.hl })),
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
    perf: { lodDrawn: perf.lodDrawn, lastDraw: perf.lastDraw, phase: Object.assign({}, perf.phase), rest: perf.rest || 0, restDone: REST.done && !!perf.idleDone, draws: perf.draws, prims: perf.prims, tri: perf.tri, msgs: perf.msgs, arcs: perf.arcs, ticks: perf.ticks, load: perf.load, ready: perf.ready, decode: perf.decode, rows: perf.rows, script: perf.script, b64: perf.b64, inflate: perf.inflate, first: perf.first },
    names: null,
  };
}
window.kutraceState = state;
window.kutrace = {
  state, setWindow: (a, b) => { setWindow(a, b); onPanZoomDone(); redraw(); }, redraw, render: () => { render(); return perf.lastDraw; },
  toggleGroup: name => { const g = G.find(q => q.name === name); if (g) toggleGroup(g); render(); },
  highlight: (label, on) => { const r = ROWS.find(q => q.label === label); if (r) { r.hl = on === undefined ? !r.hl : !!on; recomputeHL(); render(); } },
  prefixHighlight: label => { const r = ROWS.find(q => q.label === label); if (r) { prefixHighlight(r); render(); } },
  exportText, names: () => D.names.slice(), search: text => { document.getElementById('search').value = text; doSearch(true); render(); return S.summary; },
  rowY: label => { layout(); const r = ROWS.find(q => q.label === label); if (!r || !r.h) return null; const g = rowGeom(r); return { top: g.top, yc: g.yc, E: g.E, h: g.px }; },
  xOf: t => { layout(); return xOf(t); }, layout: () => { layout(); return { left: L.left, right: L.right, top: L.top, bottom: L.bottom, W: L.W, H: L.H }; },
  spanAt: i => ({ ts: D.ts[i], dur: D.dur[i], ev: D.ev[i], name: D.names[D.nm[i]], cpu: D.cpu[i], pid: D.pid[i], rpc: D.rpc[i], arg: D.arg[i], ret: D.ret[i], ipc: D.ipc[i] }),
  setButtons: o => { Object.assign(S.btn, o); syncButtons(); render(); }, // e.g. {arc: 0, freq: 2}
  setLod: (on, sub) => { LOD_ON = !!on; if (sub) LOD_SUB = sub; render(); },
  setCover: on => { COVER_ON = !!on; render(); },
  findSpan: name => { for (let k = 0; k < D.n; k++) if (D.names[D.nm[k]] === name) return k; return -1; },
};

// ---------------------------------------------------------------- start
async function load() {
  const t0 = performance.now();
  const metaEl = document.getElementById('ktmeta'), dataEl = document.getElementById('ktdata');
  if (!dataEl) { showOpener(); return; }
  const meta = JSON.parse(metaEl.textContent);
  perf.script = t0;
  let bytes = b64bytes(dataEl.textContent);
  dataEl.textContent = '';
  perf.b64 = performance.now() - t0;
  if (dataEl.dataset.enc === 'deflate') bytes = await inflate(bytes);
  perf.inflate = performance.now() - t0 - perf.b64;
  const td = performance.now();
  const b = decodeBlob(bytes);
  perf.decode = performance.now() - td;
  start(meta, b.n, b.cols, b.names, t0);
}
function start(meta, n, cols, names, t0) {
  D.meta = meta || {}; setColumns(n, cols, names); ensureSorted();
  const tr = performance.now(); buildRows(); perf.rows = performance.now() - tr;
  document.title = 'KUtrace ' + (D.meta.title || '');
  views.length = 0;
  const sv = Array.isArray(D.meta.savedview) && D.meta.savedview.length ? D.meta.savedview : [['⇐', null], ['①', null], ['②', null], ['③', null], ['④', null]];
  for (const [label, v] of sv) views.push({ label: unescapeHTML(label), view: v || null });
  try { const s = localStorage.getItem(storageKey()); if (s) views[0].view = JSON.parse(s); } catch (e) { /* ignore */ }
  setWindow(D.t0, D.t1); recomputeHL(); syncButtons(); renderViews();
  document.getElementById('loading').style.display = 'none';
  const tf = performance.now(); S.firstDraw = true; render(); S.firstDraw = false; perf.first = performance.now() - tf;
  idleArr = 0; perf.idleDone = false; setTimeout(idleRows, 0); // the PID and RPC rows, in steps
  perf.load = performance.now() - t0;
  const sz = L.W + 'x' + L.H; S.sizeMsg = sz; updateStatus(); setTimeout(() => { S.sizeMsg = ''; updateStatus(); }, 4000);
  perf.ready = performance.now();
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
load().catch(e => { document.getElementById('loading').textContent = 'Cannot load the trace: ' + e.message; window.kutraceError = String(e && e.stack || e); });
})();

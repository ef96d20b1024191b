// SPDX-License-Identifier: BSD-3-Clause
// Two KUtrace JSON files shaped like the book's pages, written the way the
// original tools write them (10-field rows, byte-sorted, the 999.0
// sentinel, "savedview" entries as the original viewer exports them:
// labels HTML-escaped, views in the original's key names):
//   node book_pages.js hello OUT.json   the hello-world demo: 4 CPUs, 3.7 s,
//     mostly idle (timer interrupts, short bursts), Freq 800..1000 MHz, IPC,
//     the program's mark_a hello and /hello back to back on CPU 2, packets,
//     PC samples; view ② turns IPC on and Freq off.
//   node book_pages.js queue OUT.json   the queue test of chapter 29: server
//     threads working RPCs off a queue, dense colliding marks (mark_d RPC
//     numbers, mark_a work//work and finish, mark_c drop), futex waits,
//     queue lines on hundreds of RPC rows; view fig29.11 collapses CPU,
//     shows only the highlighted PID rows, searches futex and keeps an
//     annotation.
// Deterministic (a fixed-seed generator), so tests can count exactly.
'use strict';
const fs = require('fs');
let seed = 12345;
function rnd() { seed = (seed * 1103515245 + 12345) & 0x7fffffff; return seed / 0x80000000; }
const B40 = '_abcdefghijklmnopqrstuvwxyz0123456789-./';
function b40(s) { let v = 0; for (let i = s.length - 1; i >= 0; i--) v = v * 40 + B40.indexOf(s[i]); return v; }
const ev = [];
function row(ts, dur, cpu, pid, rpc, e, arg, ret, ipc, name) { ev.push([ts, dur, cpu, pid, rpc, e, arg, ret, ipc, name]); }
function mark(ts, cpu, pid, type, text) { // type 0..3 = a..d
  if (type === 3) row(ts, 1e-8, cpu, pid, 0, 0x20D, text, 0, 0, 'mark_d');
  else row(ts, 1e-8, cpu, pid, 0, 0x20A + type, b40(text), 0, 0, 'mark_' + 'abc'[type] + '=' + text);
}
// Original-tool JSON: "%12.8f, %10.8f" fields, rows sorted as bytes (= time).
function write(file, head, views) {
  ev.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const f = (v, w, d) => v.toFixed(d).padStart(w);
  const lines = ev.map(r => '[' + f(r[0], 12, 8) + ', ' + f(r[1], 10, 8) + ', ' + r.slice(2, 9).join(', ') + ', ' + JSON.stringify(r[9]) + '],');
  let out = '{\n';
  for (const [k, v] of Object.entries(head)) out += JSON.stringify(k) + ' : ' + JSON.stringify(v) + ',\n';
  out += '"events" : [\n' + lines.join('\n') + '\n[999.0, 0, 0, 0, 0, 0, 0, 0, 0, ""]\n],\n"extra" : [],\n"savedview" : ' + views + '\n}\n';
  fs.writeFileSync(file, out);
  return ev.length;
}
// The original viewer's saved view (docs/spec/VIEWER.md 4.5) for a window and state.
function origView(o) {
  const v = {
    savedtransformX: { k: 1, x: 0, y: 0 }, rangeX: 1400, xleft_ts: o.t0, xright_ts: o.t1,
    savedtransformY: { k: 1, x: 0, y: 0 }, ytop_track: 0,
    groupLen: o.groupLen, groupExpanded: o.groupExpanded, groupHasHilite: o.groupHasHilite || [0, 0, 0],
    ui_annot: o.annot || 0, ui_user: 0, ui_all: 0, ui_mark: 3, ui_arc: 2, ui_lock: 2, ui_freq: 2, ui_ipc: 0, ui_samp: 0, ui_cb: 0,
    searchText: o.search || '', searchNot: 0, searchUnits: 1, searchMin: '', searchMax: '', relativeTime: 0,
    annotIndex: o.kept === undefined ? -1 : o.kept, rowToHilite: o.rowToHilite || [0], dummy: 0,
  };
  for (const k of Object.keys(o.ui || {})) v['ui_' + k] = o.ui[k];
  return v;
}
// Zero runs compressed: a 0 followed by a count stands for that many 0
// flags; a final lone 0 for all the rest.
function packHL(flags) {
  const out = []; let i = 0;
  while (i < flags.length) {
    if (flags[i]) { out.push(flags[i]); i++; continue; }
    let j = i; while (j < flags.length && !flags[j]) j++;
    if (j === flags.length) { out.push(0); break; }
    out.push(0, j - i); i = j;
  }
  return out.length ? out : [0];
}

function hello(file) {
  const T0 = 49.41, T1 = 53.11; // 3.7 s, as the demo
  const kworker = [7944, 7945, 7946, 7947], daemons = [[262, 'systemd'], [1204, 'mysqld'], [1562, 'sshd'], [8287, 'kutrace_control']];
  for (let c = 0; c < 4; c++) {
    let t = T0 + rnd() * 1e-4;
    // frequency, sampled every 1..6 ms: mostly 900 MHz
    for (let f = T0; f < T1;) { const d = Math.min(T1 - f, 0.001 + rnd() * 0.005), x = rnd(); row(f, d, c, 0, 0, 0x209, x < 0.7 ? 900 : x < 0.85 ? 800 : 1000, 0, 0, 'freq'); f += d; }
    // PC samples every 4 ms
    for (let s = T0 + 0.004 * rnd(); s < T1 - 0.004; s += 0.004) row(s, 0.004, c, rnd() < 0.5 ? 0 : 1204, 0, 0x280, Math.floor(rnd() * 65536), 0, 0, 'PC=' + Math.floor(rnd() * 0xffffff).toString(16));
    while (t < T1 - 0.01) {
      const lp = rnd() < 0.3, d = 0.0005 + rnd() * rnd() * 0.004;
      row(t, d, c, 0, 0, 0x10000, lp ? 1 : 0, 0, 0, lp ? '-idlelp-' : '-idle-'); t += d;
      if (lp) { const x = 0.00002 + rnd() * 0.00002; row(t, x, c, 0, 0, 0x20000, 0, 0, 0, '-c-exit-'); t += x; }
      const i = 0.000002 + rnd() * 0.000003; row(t, i, c, 0, 0, 0x5EC, 0, 0, Math.floor(rnd() * 16), 'local_timer_vector'); t += i;
      if (rnd() < 0.25) { // a short burst of a daemon or kworker
        const [pid, nm] = rnd() < 0.5 ? [kworker[c], 'kworker/u8:' + c] : daemons[Math.floor(rnd() * 4)];
        for (let k = 0; k < 1 + Math.floor(rnd() * 3); k++) {
          const u = 0.000005 + rnd() * 0.00004; row(t, u, c, pid, 0, 0x10000 + pid, 0, 0, Math.floor(rnd() * 16), nm + '.' + pid); t += u;
          const sn = [0, 1, 7, 202, 232][Math.floor(rnd() * 5)], s = 0.000001 + rnd() * 0.00001;
          row(t, s, c, pid, 0, 0x800 + sn, Math.floor(rnd() * 10), 0, Math.floor(rnd() * 16), ['read', 'write', 'poll', 'futex', 'epoll_wait'][[0, 1, 7, 202, 232].indexOf(sn)]); t += s;
        }
        if (rnd() < 0.5) { const w = 0.00001 + rnd() * 0.0004; row(t, w, -1, daemons[1][0], 0, 0x302, 0, 0, 0, 'wait_cpu'); }
        if (rnd() < 0.3 && c !== 3) row(t, 0.00003 + rnd() * 0.0001, c, kworker[c], 0, -3, c + 1, kworker[c + 1], 0, '-wakeup-');
      }
    }
    row(t, T1 - t, c, 0, 0, 0x10000, 0, 0, 0, '-idle-');
  }
  // the program: mark_a hello, writes, mark_a /hello 9 us later on CPU 2
  const h = 50.0702; row(h, 0.00002, 2, 8292, 0, 0x10000 + 8292, 0, 0, 8, 'hello_world_tra.8292');
  mark(h + 0.000001, 2, 8292, 0, 'hello'); row(h + 0.000002, 0.000005, 2, 8292, 0, 0x801, 1, 12, 9, 'write'); mark(h + 0.00001, 2, 8292, 0, '/hello');
  // packets along the top: rx and tx pairs
  for (let p = T0 + 0.2; p < T1; p += 0.25 + rnd() * 0.3) { row(p, 1e-8, 0, 0, 0, 0x214, Math.floor(rnd() * 65536), 0, 0, 'rx_pkt'); row(p + 0.0002, 1e-8, 0, 0, 0, 0x215, Math.floor(rnd() * 65536), 0, 0, 'tx_pkt'); }
  const n = write(file, { Comment: 'V3 hello world shaped as the book demo', axisLabelX: 'Time (sec)', axisLabelY: 'CPU Number', flags: 131, randomid: 24680,
    shortUnitsX: 's', shortMulX: 1, thousandsX: 1000, title: 'hello world', tracebase: '2021-10-28_14:01:00', version: 3,
    kernelVersion: '5.10.66 #8 SMP Mon Sep 20 10:10:25 PDT 2021', cpuModelName: 'Intel(R) Core(TM) i3-7100 CPU @ 3.90GHz', mbit_sec: 1000 },
  '[["&#x21d0;", null], ["&#x2780;", null], ["&#x2781;", ' + JSON.stringify(origView({ t0: 50.0819, t1: 50.0860, groupLen: [4, 9, 0], groupExpanded: [1, 0, 0], ui: { ipc: 3, freq: 0 } })) +
  '], ["&#x2782;", null], ["&#x2783;", null]]');
  return n;
}

function queue(file) {
  const T0 = 20.0, T1 = 20.02, NS = 6; // 20 ms, 6 server threads on 4 CPUs
  const servers = []; for (let i = 0; i < NS; i++) servers.push(3000 + i);
  const cpuFree = [T0, T0, T0, T0];
  let id = 1000, t = T0 + 0.00001;
  const pidRows = servers; // the client has no user span of its own
  while (t < T1 - 0.0001) {
    // the client enqueues an RPC; a server picks it up on the first free CPU
    const rid = id++, c = cpuFree.indexOf(Math.min(...cpuFree)), s = servers[rid % NS];
    const start = Math.max(t + 0.000002, cpuFree[c]), work = 0.000004 + rnd() * 0.000008;
    row(t, 1e-8, 0, 2999, rid, 0x201, rid, 0, 0, 'getuser');
    row(t, start - t, -1, 0, rid, 0x21A, rid % 3, 0, 0, 'enqueue' + (rid % 3));
    row(start, 0.0000005, c, s, rid, 0x8CA, 128, 0, 4, 'futex');
    row(start + 0.0000005, work, c, s, rid, 0x10000 + s, 0, 0, 9, 'server.' + s);
    mark(start + 0.0000004, c, s, 3, rid);
    mark(start + 0.0000008, c, s, 0, 'work');
    mark(start + work - 0.0000002, c, s, 0, '/work');
    if (rid % 5 === 0) mark(start + work - 0.0000001, c, s, 2, 'drop'); else mark(start + work, c, s, 0, 'finish');
    row(start + 0.0000005 + work, 0.0000015, c, s, rid, 0x8CA, 129, 0, 5, 'futex');
    row(start + work + 0.000002, 0.000004, -1, s, 0, 0x30B, 0, 0, 0, 'wait_lock');
    cpuFree[c] = start + work + 0.000002;
    t += 0.000004 + rnd() * 0.000004;
  }
  for (let c = 0; c < 4; c++) row(cpuFree[c], T1 - cpuFree[c], c, 0, 0, 0x10000, 0, 0, 0, '-idle-');
  // fill the CPU gaps with idle so every CPU row is continuous
  const byCpu = [[], [], [], []]; for (const r of ev) if (r[2] >= 0 && (r[5] >= 0x10000 || (r[5] >= 0x800 && r[5] < 0x1000))) byCpu[r[2]].push(r);
  for (let c = 0; c < 4; c++) {
    byCpu[c].sort((a, b) => a[0] - b[0]); let e = T0;
    for (const r of byCpu[c]) { if (r[0] > e + 1e-8) row(e, r[0] - e, c, 0, 0, 0x10000, 0, 0, 0, '-idle-'); e = Math.max(e, r[0] + r[1]); }
  }
  // fig29.11: CPU collapsed, PID rows only the highlighted ones (server.3001, server.3004), futex, kept annotation
  ev.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const w0 = 20.005, w1 = 20.0051; // 100 us
  const kept = ev.findIndex(r => r[0] >= w0 + 0.00003 && r[9] === 'futex' && (r[3] === 3001 || r[3] === 3004));
  const nRpc = id - 1000;
  const hl = new Array(4 + pidRows.length + nRpc).fill(0); hl[4 + 1] = 1; hl[4 + 4] = 1; // rows: CPU 0-3, PID 3000..3005, RPC
  const n = write(file, { Comment: 'V3 queue test shaped as the book, chapter 29', axisLabelX: 'Time (sec)', axisLabelY: 'CPU Number', flags: 3, randomid: 13579,
    shortUnitsX: 's', shortMulX: 1, thousandsX: 1000, title: 'queue test', tracebase: '2021-11-02_09:30:00', version: 3,
    kernelVersion: '5.10.66', cpuModelName: 'Intel(R) Core(TM) i3-7100 CPU @ 3.90GHz', mbit_sec: 1000 },
  '[["&#x21d0;", null], ["fig29.11", ' + JSON.stringify(origView({ t0: w0, t1: w1, groupLen: [4, pidRows.length, nRpc], groupExpanded: [0, 2, 0], groupHasHilite: [0, 1, 0],
    search: 'futex', kept, rowToHilite: packHL(hl), annot: 1 })) + '], ["&#x2780;", null]]');
  return { n, kept, rpcs: nRpc };
}

const [kind, out] = process.argv.slice(2);
if (kind === 'hello') console.log(hello(out));
else if (kind === 'queue') console.log(JSON.stringify(queue(out)));
else { console.error('usage: node book_pages.js hello|queue OUT.json'); process.exit(2); }

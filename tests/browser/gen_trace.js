#!/usr/bin/env node
// SPDX-License-Identifier: BSD-3-Clause
// Synthetic KUtrace JSON (docs/spec/FORMATS.md 5.10) for the viewer tests and the
// speed benchmark, used while kutrace_synth is not available.
//   node gen_trace.js SPANS [CPUS] [PIDS] > trace.json
// Deterministic (seeded).  Per CPU: user code, syscalls, faults, timer
// interrupts, softirqs, the scheduler, idle / low-power idle with c-exit,
// context switches with wakeup arcs and wait_cpu spans, PC samples,
// frequency spans, marks, and RPC request/response points.
'use strict';
const N = parseInt(process.argv[2] || '100000', 10);
const NCPU = parseInt(process.argv[3] || '8', 10);
const NPID = parseInt(process.argv[4] || '200', 10);

let seed = 12345;
function rnd() { seed = (seed * 1103515245 + 12345) & 0x7fffffff; return seed / 0x80000000; }
function ri(a, b) { return a + Math.floor(rnd() * (b - a + 1)); }

const progs = ['mysqld', 'sshd', 'bash', 'proc', 'kworker/u8:0', 'nginx', 'java', 'rcu_sched'];
const pids = [];
for (let i = 0; i < NPID; i++) {
  const pid = 1000 + i * 37 + (i % 7 === 3 ? 65536 : 0);
  pids.push({ pid, name: progs[i % progs.length] + '.' + pid });
}
const sys = [[0, 'read'], [1, 'write'], [7, 'poll'], [202, 'futex'], [257, 'openat'], [3, 'close'], [232, 'epoll_wait'], [9, 'mmap']];

const out = [];
let outBytes = 0;
const chunks = [];
function flushOut(force) {
  if (out.length === 0) return;
  if (!force && out.length < 1000) return;
  chunks.push(out.join(''));
  out.length = 0;
  if (chunks.length >= 64 || force) { process.stdout.write(chunks.join('')); chunks.length = 0; }
}
function f8(v, w) { let s = v.toFixed(8); while (s.length < w) s = ' ' + s; return s; }
let buf = [];
let emitted = 0;
function row(ts, dur, cpu, pid, rpc, ev, arg, ret, ipc, name) {
  buf.push([ts, dur, cpu, pid, rpc, ev, arg, ret, ipc, name]);
}
function drain(watermark) {
  buf.sort((a, b) => a[0] - b[0]);
  let k = 0;
  while (k < buf.length && buf[k][0] < watermark) {
    const r = buf[k++];
    out.push('[' + f8(r[0], 12) + ', ' + f8(r[1], 10) + ', ' + r[2] + ', ' + r[3] + ', ' + r[4] + ', ' +
      r[5] + ', ' + r[6] + ', ' + r[7] + ', ' + r[8] + ', "' + r[9] + '"],\n');
    emitted++;
    if (out.length >= 1000) flushOut(false);
  }
  buf = buf.slice(k);
}

process.stdout.write(' {\n "Comment" : "V2 with IPC field",\n "axisLabelX" : "Time (sec)",\n' +
  ' "axisLabelY" : "CPU Number",\n "cpuModelName" : "Synthetic(R) CPU @ 3.00GHz",\n "flags" : 131,\n' +
  ' "kernelVersion" : "6.6.0-synthetic",\n "mbit_sec" : 1000,\n "randomid" : ' + (1000000 + N) + ',\n' +
  ' "shortMulX" : 1,\n "shortUnitsX" : "s",\n "thousandsX" : 1000,\n "title" : "synthetic ' + N + ' spans",\n' +
  ' "tracebase" : "2026-01-02_03:04:00",\n "version" : 3,\n"events" : [\n');

const T0 = 10.0;
const cpus = [];
for (let c = 0; c < NCPU; c++) cpus.push({ t: T0 + c * 1e-5, cur: pids[ri(0, NPID - 1)], lastPC: T0, lastFreq: T0, state: 0 });
let total = 0;
for (const p of pids) row(T0 - 1e-6, 1e-8, 0, p.pid, 0, 0x20e, 0, 0, 0, p.name);
let rpcid = 1;
while (total < N) {
  let c = 0;
  for (let i = 1; i < NCPU; i++) if (cpus[i].t < cpus[c].t) c = i;
  const C = cpus[c];
  let t = C.t;
  const ipc = ri(0, 15);
  if (t - C.lastPC > 0.004) { row(C.lastPC, t - C.lastPC, c, C.cur ? C.cur.pid : 0, 0, 0x281, ri(0, 65535), 0, 0, 'PC=ffffffff8' + ri(1000000, 9999999).toString(16)); C.lastPC = t; total++; }
  if (t - C.lastFreq > 0.01) { row(t, 0.01, c, 0, 0, 0x209, 800 + 100 * ri(0, 8), 0, 0, 'freq'); C.lastFreq = t; total++; }
  if (!C.cur) {
    const d = ri(10, 3000) * 1e-6; const lp = d > 4e-4 ? 1 : 0;
    row(t, d, c, 0, 0, 0x10000, lp, 0, 0, lp ? '-idlelp-' : '-idle-'); t += d; total++;
    if (lp) { row(t, 3e-5, c, 0, 0, 0x20000, 0, 0, 0, '-c-exit-'); t += 3e-5; total++; }
    const p = pids[ri(0, NPID - 1)];
    const wc = ri(0, NCPU - 1); const wd = ri(5, 50) * 1e-6;
    row(t - wd, wd, wc, 0, 0, -3, c, p.pid, 0, '-wakeup-');
    row(t - wd + 1e-8, wd - 1e-8, -1, p.pid, 0, 0x302, 0, 0, 0, 'wait_cpu');
    C.cur = p; total += 2;
  } else {
    const p = C.cur;
    const r = rnd();
    if (r < 0.45) {
      const d = ri(1, 200) * 1e-6; row(t, d, c, p.pid, 0, 0x10000 + (p.pid & 0xffff), 0, 0, ipc, p.name); t += d;
    } else if (r < 0.8) {
      const s = sys[ri(0, sys.length - 1)]; const d = ri(1, 40) * 1e-6;
      row(t, d, c, p.pid, 0, 0x800 + s[0], ri(0, 20), ri(0, 4096), ipc, s[1]); t += d;
      if (rnd() < 0.03) { row(t, 1e-8, c, p.pid, rpcid, 0x201, rpcid, 0, 0, 'rpc' + (rpcid % 5) + '.' + rpcid); rpcid++; total++; }
    } else if (r < 0.88) {
      const d = ri(2, 8) * 1e-6; row(t, d, c, p.pid, 0, 0x5ec, 0, 0, ipc, 'local_timer_vector'); t += d;
    } else if (r < 0.92) {
      const d = ri(1, 10) * 1e-6; row(t, d, c, p.pid, 0, 0x40e, 0, 0, ipc, 'page_fault'); t += d;
    } else if (r < 0.94) {
      const d = ri(1, 10) * 1e-6; row(t, d, c, p.pid, 0, 0x5ff, 3, 0, ipc, 'BH:rx'); t += d;
    } else if (r < 0.9405) {
      row(t, 1e-8, c, p.pid, 0, 0x20a, 39187408, 0, 0, 'mark_a=hello'); total++;
    } else {
      const d = ri(1, 5) * 1e-6; row(t, d, c, p.pid, 0, 0xdff, 0, 0, 0, '-sched-'); t += d;
      if (rnd() < 0.3) C.cur = null; else {
        const q = pids[ri(0, NPID - 1)];
        const wd = ri(5, 50) * 1e-6;
        const wc = ri(0, NCPU - 1);
        row(t - wd, wd, wc, 0, 0, -3, c, q.pid, 0, '-wakeup-');
        row(t - wd + 1e-8, wd - 1e-8, -1, q.pid, 0, 0x302, 0, 0, 0, 'wait_cpu');
        C.cur = q; total += 2;
      }
    }
    total++;
  }
  C.t = t;
  if (buf.length > 20000) {
    let m = Infinity; for (const x of cpus) m = Math.min(m, x.t);
    drain(m - 0.001);
  }
}
drain(Infinity);
flushOut(true);
process.stdout.write('[999.0, 0.0, 0, 0, 0, 0, 0, 0, 0, ""]\n]}\n');

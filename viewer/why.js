// ---------------------------------------------------------------- why
// The critical path of a slow request (kutrace_why(1)) drawn over the
// timeline: each step a box in its cause's colour on the row of its thread
// (the CPU's when the PID rows are closed), a line from each step to the
// next where the path moves to another row, and a panel with the causes.
// The answers come from the page itself (kutrace_why --html PAGE writes
// them after the page's end, <script id="ktwhy">) or from a server
// (window.ktWhySource(spec) -> Promise of kutrace_why's --json answers).
// Opened by the URL fragment #why=rpc:ID, #why=pid:P:T1:T2 (seconds),
// #why=mark:NAME, or "why rpc:ID" (...) in the search box; one click on
// the panel's x clears it.
const WHY = { on: null, answers: null, msg: '', steps: 0, goTo: null }; // goTo(a, b): set by ui.js
const WHY_COL = { running: '#0060FF', cpu_wait: '#FFC000', idle_exit: '#A0A0A0', lock: '#FF4040', pipe: '#555555', timer: '#C09000',
  disk: '#55AA55', network: '#8080FF', memory: '#AA5500', ipi: '#C000C0', interrupt: '#C000C0', unknown: '#000000' };
function whyAnswers() {
  if (WHY.answers) return WHY.answers;
  const el = document.getElementById('ktwhy'); let a = [];
  try { a = el ? JSON.parse(el.textContent) : []; } catch (e) { a = []; }
  a = Array.isArray(a) ? a : [a];
  if (document.readyState !== 'loading') WHY.answers = a; // the block comes after the viewer's script
  return a;
}
// spec: "rpc:77", "pid:300:1.0:1.006", "mark:lock" (the first of its intervals)
function whyParse(spec) {
  const m = /^(rpc|pid|mark):([^:]+)(?::([-+.\d]+):([-+.\d]+))?$/.exec(String(spec).trim());
  if (!m) return null;
  return { kind: m[1], key: m[2], a: m[3] === undefined ? null : +m[3], b: m[4] === undefined ? null : +m[4] };
}
function whyMatch(q, o) {
  if (q.kind === 'rpc') return o.rpc === +q.key;
  if (q.kind === 'mark') return o.target === 'mark ' + q.key;
  if (o.target !== 'pid ' + q.key) return false;
  return q.a === null || (Math.abs(o.start_ns / 1e9 - q.a) < 1e-6 && Math.abs(o.end_ns / 1e9 - q.b) < 1e-6);
}
function whyHow(spec) {
  const q = whyParse(spec) || { kind: 'rpc', key: 'ID' };
  const opt = q.kind === 'pid' ? '--pid ' + q.key + (q.a === null ? '' : ' --from ' + q.a + ' --to ' + q.b) : '--' + q.kind + ' ' + q.key;
  return 'kutrace_why TRACE ' + opt + ' --html PAGE adds it';
}
// Shows spec's path; returns '' or why it cannot.
function whyOpen(spec) {
  const q = whyParse(spec);
  if (!q) { WHY.msg = 'why: ' + spec + ': rpc:ID, pid:P:T1:T2 or mark:NAME'; whyPanel(); return WHY.msg; }
  const o = whyAnswers().find(a => whyMatch(q, a));
  if (o) return whyShow(spec, o);
  if (window.ktWhySource) {
    WHY.msg = 'why: ' + spec + ': asking the server ...'; whyPanel();
    window.ktWhySource(spec).then(a => { const v = (Array.isArray(a) ? a : [a]).filter(x => x && x.path); if (!v.length) throw new Error('no answer');
      if (WHY.answers) WHY.answers.push(...v); whyShow(spec, v.find(x => whyMatch(q, x)) || v[0]); render(); })
      .catch(e => { WHY.msg = 'why: ' + spec + ': ' + e.message; whyPanel(); });
    return '';
  }
  WHY.msg = 'why: no critical path for ' + spec + ' in this page: ' + whyHow(spec); WHY.on = null; whyPanel(); redraw();
  return WHY.msg;
}
function whyShow(spec, o) {
  WHY.on = o; WHY.msg = ''; WHY.spec = spec;
  const a = o.start_ns / 1e9, b = (o.end_ns !== undefined ? o.end_ns : o.start_ns + o.latency_ns) / 1e9, m = Math.max((b - a) * 0.05, 1e-7);
  if (WHY.goTo) WHY.goTo(a - m, b + m);
  whyPanel(); redraw();
  return '';
}
function whyClear() { WHY.on = null; WHY.msg = ''; whyPanel(); if (location.hash.startsWith('#why=')) history.replaceState(null, '', location.pathname + location.search); redraw(); }
function whyPanel() {
  let el = document.getElementById('whypanel');
  if (!WHY.on && !WHY.msg) { if (el) el.remove(); return; }
  if (!el) { el = document.createElement('div'); el.id = 'whypanel';
    el.style.cssText = 'position:fixed;right:12px;bottom:64px;max-width:46em;background:rgba(255,255,255,0.95);border:1px solid #888;font:13px sans-serif;padding:6px 8px;z-index:5';
    document.body.appendChild(el); }
  el.textContent = '';
  const x = document.createElement('button'); x.id = 'whyclose'; x.textContent = '×'; x.title = 'clear the path'; x.style.cssText = 'float:right;margin-left:8px';
  x.addEventListener('click', whyClear); el.appendChild(x);
  if (!WHY.on) { el.appendChild(document.createTextNode(WHY.msg)); return; }
  const o = WHY.on, lat = o.latency_ns, h = document.createElement('div');
  h.textContent = 'why: ' + o.target + ' (pid ' + o.pid + '): ' + (lat / 1e3).toFixed(3) + ' µs'; h.style.fontWeight = 'bold'; el.appendChild(h);
  for (const c of o.by_cause.slice(0, 6)) {
    const d = document.createElement('div'), sw = document.createElement('span');
    sw.style.cssText = 'display:inline-block;width:10px;height:10px;margin-right:4px;background:' + (WHY_COL[c.cause] || '#000');
    d.appendChild(sw); d.appendChild(document.createTextNode(c.cause + ' ' + (100 * c.ns / lat).toFixed(1) + ' % ' + c.name + (c.pid > 0 ? ' (' + c.pid + ')' : '')));
    el.appendChild(d);
  }
}
// After the spans and arcs (render): the boxes and the lines between them.
function drawWhy() {
  const o = WHY.on; WHY.steps = 0; if (!o) return;
  const cpuRows = new Map(G[0].rows.filter(r => r.h).map(r => [r.id, r]));
  const pidRows = G[1] && G[1].open !== 'closed' ? new Map(G[1].rows.filter(r => r.h).map(r => [r.id, r])) : null;
  const rowOf = p => (pidRows && p.pid > 0 && pidRows.get(p.pid)) || (p.cpu >= 0 && cpuRows.get(p.cpu)) || null;
  let prev = null;
  ctx.save(); ctx.lineWidth = 2;
  for (const p of o.path) {
    const r = rowOf(p); if (!r) { prev = null; continue; }
    const g = rowGeom(r), a = p.start_ns / 1e9, b = a + p.dur_ns / 1e9;
    const x0 = Math.max(L.left - 2, xOf(a)), x1 = Math.min(L.right + 2, Math.max(xOf(b), xOf(a) + 2)), y = g.yc - g.E / 2;
    const c = WHY_COL[p.cause] || '#000';
    if (x1 >= L.left && x0 <= L.right) {
      ctx.globalAlpha = 0.25; ctx.fillStyle = c; ctx.fillRect(x0, y - 3, x1 - x0, g.E + 6);
      ctx.globalAlpha = 1; ctx.strokeStyle = c; ctx.strokeRect(x0, y - 3, x1 - x0, g.E + 6); WHY.steps++;
    }
    if (prev && prev.r !== r) { // the path moves to another row: a line from the end of one step to the next
      ctx.strokeStyle = '#000'; ctx.setLineDash([4, 3]); ctx.beginPath(); ctx.moveTo(prev.x, prev.y); ctx.lineTo(x0, g.yc); ctx.stroke(); ctx.setLineDash([]);
    }
    prev = { r, x: x1, y: g.yc };
  }
  ctx.restore();
}
LATE_OVERLAYS.push(drawWhy);
function whyFromHash() { const m = /^#why=(.+)$/.exec(location.hash); if (m) whyOpen(decodeURIComponent(m[1])); }
function whyAtStart() { if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', whyFromHash); else whyFromHash(); }
window.addEventListener('hashchange', () => { if (D.n) whyFromHash(); });
function whyState() { return { on: WHY.on ? WHY.on.target : null, spec: WHY.on ? WHY.spec : null, msg: WHY.msg, steps: WHY.steps, answers: whyAnswers().length }; }

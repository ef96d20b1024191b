// ---------------------------------------------------------------- machines
// Several hosts on one timeline (kutrace_align(1)): the merged JSON's
// header "machines" gives each host its CPUs (cpu0 .. cpu0 + cpus - 1);
// its CPU rows are labelled host:cpu and sit under a sub-header of their
// own in the CPU group, which a click opens and closes.  "messages" holds
// the matched messages [send, send cpu, receive, receive cpu, rpc] (10 ns
// units after the base minute): each is drawn as an arrow from the send
// on one host's CPU row to the receive on the other's.
const MACH = { hosts: [], msgs: [], arrows: 0 };
const MACH_COL = '#D000D0';
// After buildRows: the hosts of the CPU rows, their labels.
function machInit() {
  MACH.hosts = []; MACH.msgs = []; MACH.arrows = 0;
  const m = D.meta.machines;
  if (!Array.isArray(m) || !G.length) return;
  for (const h of m) if (h && typeof h.name === 'string') MACH.hosts.push({ name: h.name, cpu0: +h.cpu0, cpus: +h.cpus, closed: false, first: null, n: 0 });
  for (const r of G[0].rows) {
    const h = MACH.hosts.find(q => r.id >= q.cpu0 && r.id < q.cpu0 + q.cpus);
    if (!h) continue;
    r.label = h.name + ':' + (r.id - h.cpu0); r.host = h; h.n++;
    if (!h.first) h.first = r;
  }
  const a = Array.isArray(D.meta.messages) ? D.meta.messages : [];
  for (const v of a) if (Array.isArray(v) && v.length >= 4) MACH.msgs.push([v[0] / 1e8, v[1], v[2] / 1e8, v[3], v[4]]);
  MACH.msgs.sort((x, y) => x[0] - y[0]);
}
// layout(): a host's sub-header goes before its first CPU row.
function machHeader(r) { return r.host && r.host.first === r ? r.host : null; }
function machLabel(it) {
  const h = it.host, y = yOf(it.y) + it.h / 2 * L.ppt;
  if (y < L.top - 10 || y > L.bottom + 10) return;
  ctx.textAlign = 'left'; ctx.font = 'bold ' + L.base + 'px sans-serif'; ctx.fillStyle = '#0000AA';
  ctx.fillText((h.closed ? '▶ ' : '▼ ') + h.name + ' (' + h.n + ')', 14, y); it.labelY = y;
  ctx.textAlign = 'right';
}
// A click on a host's sub-header: open or close its rows (ui.js redraws).
function machClick(x, y) {
  for (const it of L.items) if (it.host && Math.abs(y - (yOf(it.y) + it.h / 2 * L.ppt)) < L.base / 2 + 2 && x < L.left * 0.75) {
    it.host.closed = !it.host.closed; return true;
  }
  return false;
}
// After the spans (render): the arrows of the messages in the window whose
// two CPU rows are shown.
function drawMachines() {
  MACH.arrows = 0;
  if (!MACH.msgs.length || S.relative) return;
  const rows = new Map(G[0].rows.filter(r => r.h).map(r => [r.id, r]));
  const t0 = S.t0, t1 = S.t1;
  ctx.save(); ctx.strokeStyle = MACH_COL; ctx.fillStyle = MACH_COL; ctx.lineWidth = 1.5;
  for (const [a, ca, b, cb] of MACH.msgs) {
    if (a > t1) break;
    if (b < t0) continue;
    const ra = rows.get(ca), rb = rows.get(cb);
    if (!ra || !rb || MACH.arrows >= 5000) continue;
    const ga = rowGeom(ra), gb = rowGeom(rb), x0 = xOf(a), x1 = xOf(b), y0 = ga.yc, y1 = gb.yc;
    ctx.beginPath(); ctx.moveTo(x0, y0); ctx.lineTo(x1, y1); ctx.stroke();
    const ang = Math.atan2(y1 - y0, x1 - x0);
    ctx.beginPath(); ctx.moveTo(x1, y1);
    ctx.lineTo(x1 - 8 * Math.cos(ang - 0.4), y1 - 8 * Math.sin(ang - 0.4));
    ctx.lineTo(x1 - 8 * Math.cos(ang + 0.4), y1 - 8 * Math.sin(ang + 0.4)); ctx.fill();
    MACH.arrows++;
  }
  ctx.restore();
}
function machState() { return { hosts: MACH.hosts.map(h => ({ name: h.name, cpus: h.n, closed: h.closed })), messages: MACH.msgs.length, arrows: MACH.arrows }; }
function machToggle(name) { const h = MACH.hosts.find(q => q.name === name); if (h) h.closed = !h.closed; }
HOOK.subHeader = machHeader; HOOK.subLabel = machLabel; LATE_OVERLAYS.push(drawMachines);

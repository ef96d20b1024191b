#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The table of `make bench-peers` (bench/peers.sh).

    bench/peers_report.py OUTDIR [PERFORMANCE.md]

Reads OUTDIR/{stock,patched}/results.txt (one line per guest run:
cfg= load= round= n= ns= [events= lost=]), counts.txt (events, bytes and
losses of the last round's traces, counted on the host) and peers.txt,
prints the table and, given PERFORMANCE.md, replaces what is between its
"peers:begin" and "peers:end" markers.

Per tracer and workload: the fastest run minus the fastest untraced run
(the host only ever adds time to an emulated run), per operation and per
recorded event; the spread is p25-p75 of every run's overhead.
"""
import os
import sys
import time

CFGS = [("none", "untraced"), ("kt_off", "kutrace loaded, off"),
        ("kt_on", "kutrace on"), ("ftrace", "ftrace (trace-cmd record)"),
        ("perf", "perf record -a"), ("lttng", "LTTng kernel session"),
        ("bpftrace", "bpftrace, per-CPU count map")]
PEERS = ["ftrace", "perf", "lttng", "bpftrace"]
LOADS = [("getpid", "getpid()"), ("mixed", "mixed round"),
         ("pingpong", "ping-pong round trip"), ("faults", "page fault")]


def kv(line):
    d = {}
    for f in line.split():
        if "=" in f:
            k, v = f.split("=", 1)
            d[k] = v
    return d


def num(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


def pct(xs, p):
    xs = sorted(xs)
    if not xs:
        return 0.0
    i = (len(xs) - 1) * p
    lo = int(i)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (i - lo)


def read(d):
    runs, counts, peers = {}, {}, {}
    with open(os.path.join(d, "results.txt")) as f:
        for line in f:
            r = kv(line)
            if num(r.get("ns")) is None:
                continue
            runs.setdefault((r["cfg"], r["load"]), []).append(r)
    p = os.path.join(d, "counts.txt")
    if os.path.exists(p):
        for line in open(p):
            r = kv(line)
            counts[(r["cfg"], r["load"])] = r
    p = os.path.join(d, "peers.txt")
    if os.path.exists(p):
        for line in open(p):
            w = line.rstrip("\n").split(" ", 2)
            if len(w) >= 2:
                peers[w[0]] = (w[1] == "yes", w[2] if len(w) > 2 else "")
    return runs, counts, peers


def stats(runs, counts, cfg, load):
    """Figures of one configuration on one workload, or None."""
    rs = runs.get((cfg, load))
    base = runs.get(("none", load))
    if not rs or not base:
        return None
    n = int(rs[0]["n"])
    b = min(num(r["ns"]) for r in base)
    best = min(rs, key=lambda r: num(r["ns"]))
    over = [num(r["ns"]) - b for r in rs]
    s = {"n": n, "base": b / n, "add": (num(best["ns"]) - b) / n,
         "p25": pct(over, .25) / n, "p75": pct(over, .75) / n,
         "rounds": len(rs)}
    c = counts.get((cfg, load), {})
    ev = num(best.get("events")) or num(c.get("events"))
    s["bytes_per"] = num(c.get("bytes")) / num(c.get("events")) if num(c.get("bytes")) and num(c.get("events")) else None
    # minus what the tracer records of its own start and stop (one getpid)
    nr = runs.get((cfg, "null"), [{}])[0]
    nc = counts.get((cfg, "null"), {})
    nev = num(nr.get("events")) or num(nc.get("events"))
    s["events_null"] = nev
    if ev and nev and ev > nev:
        ev -= nev
    s["events"] = ev
    lost = [num(r.get("lost")) for r in rs if num(r.get("lost")) is not None]
    if num(c.get("lost")) is not None:
        lost.append(num(c.get("lost")))
    s["lost"] = max(lost) if lost else None
    s["pe"] = (num(best["ns"]) - b) / ev if ev else None
    return s


def fmt(x, d=0):
    if x is None:
        return "–"
    return f"{x:,.{d}f}"


def section(title, d, kt_name):
    runs, counts, peers = read(d)
    out = []
    kern = open(os.path.join(d, "kernel.txt")).read().strip() if os.path.exists(os.path.join(d, "kernel.txt")) else "?"
    rounds = max((len(v) for v in runs.values()), default=0)
    la = [num(r.get("loadavg")) for v in runs.values() for r in v if num(r.get("loadavg")) is not None]
    out.append(f"#### {title} ({kern}), {rounds} rounds")
    out.append("")
    out.append("| workload | tracer | ns/op added (p25–p75 of runs) | events/op | ns/event | bytes/event | events lost | kutrace ÷ this, per event |")
    out.append("|---|---|---|---|---|---|---|---|")
    ratios = {}
    nulls = []
    for cfg, cname in CFGS:
        s = stats(runs, counts, cfg, "getpid")
        if s and s.get("events_null"):
            nulls.append(f"{cfg} {s['events_null']:.0f}")
    for load, lname in LOADS:
        kt = stats(runs, counts, "kt_on", load)
        for cfg, cname in CFGS:
            s = stats(runs, counts, cfg, load)
            if s is None:
                continue
            if cfg == "kt_on":
                cname = f"kutrace on ({kt_name})"
            if cfg == "none":
                out.append(f"| {lname} | {cname} | {fmt(s['base'])} ns/op untraced | | | | | |")
                continue
            r = ""
            if cfg in PEERS and kt and kt["pe"] and s["pe"] and s["pe"] > 0:
                r = f"{kt['pe'] / s['pe']:.2f}"
                ratios.setdefault(load, {})[cfg] = kt["pe"] / s["pe"]
            evop = s["events"] / s["n"] if s["events"] else None
            bpe = s["bytes_per"]
            if cfg == "bpftrace":
                bpe = None
            out.append(f"| {lname} | {cname} | {s['add']:+,.0f} ({fmt(s['p25'])}–{fmt(s['p75'])}) | "
                       f"{fmt(evop, 2) if cfg != 'kt_off' else ''} | {fmt(s['pe']) if cfg != 'kt_off' else ''} | "
                       f"{'' if cfg == 'kt_off' else 'counter only' if cfg == 'bpftrace' else fmt(bpe, 1)} | {fmt(s['lost']) if cfg != 'kt_off' else ''} | {r} |")
    out.append("")
    p = os.path.join(d, "density.txt")
    if os.path.exists(p):
        out.append("kutrace's traces, bytes per transition (a kernel entry or exit; a fused call+return is two): "
                   "as recorded, and had the returns that came more than 255 ticks after their call "
                   "(late: emulation slowness, fusable by every other rule) fused as a real CPU's durations "
                   "would let them:")
        out.append("")
        for line in open(p):
            r = kv(line)
            w = os.path.basename(r.get("file", "")).replace("kt_", "").replace(".trace", "")
            if w == "null":
                continue
            out.append(f"- {w}: {r.get('bytes_per_transition')} bytes/transition, {r.get('fused')} fused of "
                       f"{int(r.get('fused', 0)) + int(r.get('calls', 0))} calls, {r.get('late')} late; "
                       f"{r.get('bytes_if_fused')} bytes/transition had they fused")
        out.append("")
    if nulls:
        out.append("Events each tracer records of its own start and stop (one getpid under it; subtracted "
                   "from the events above, not from the bytes): " + ", ".join(nulls) + ".")
        out.append("")
    miss = [f"{k}: {v[1]}" for k, v in peers.items() if not v[0]]
    if miss:
        out.append("Not measured in this guest: " + "; ".join(miss) + ".")
        out.append("")
    have = [f"{k}: {v[1]}" for k, v in peers.items() if v[0] and v[1]]
    if have:
        out.append("Tracers: " + "; ".join(have) + ".")
        out.append("")
    if la:
        out.append(f"Guest load average during the runs: {min(la):.1f}–{max(la):.1f}.")
        out.append("")
    return out, ratios


def main():
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    o = sys.argv[1]
    lines = []
    try:
        hl = open("/proc/loadavg").read().split()[0]
    except OSError:
        hl = "?"
    lines.append(f"Measured by `make bench-peers` on {time.strftime('%Y-%m-%d %H:%M')} "
                 f"(QEMU TCG: emulated time, see above); host load average {hl} at the end.")
    lines.append("")
    goals = []
    for sec, title, name in (("stock", "Stock kernel, Debian 12 guest (systemd)", "tracepoint backend"),
                             ("patched", "Patched kernel, busybox guest", "patched backend")):
        d = os.path.join(o, sec)
        if not os.path.exists(os.path.join(d, "results.txt")):
            why = open(os.path.join(d, "unavailable")).read().strip() if os.path.exists(os.path.join(d, "unavailable")) else "no results"
            lines.append(f"#### {title}: not measured ({why})")
            lines.append("")
            continue
        t, ratios = section(title, d, name)
        lines += t
        for load, rs in ratios.items():
            if not rs:
                continue
            cheapest = min(rs, key=lambda k: 1 / rs[k])  # the peer with the largest kt/peer
            worst = rs[cheapest]
            if sec == "patched":
                goals.append(f"- patched backend, {load}: kutrace ÷ cheapest peer ({cheapest}) = {worst:.2f} "
                             f"(goal ≤ 0.10: {'met' if worst <= 0.1 else '**not met**'})")
            else:
                goals.append(f"- tracepoint backend, {load}: kutrace ÷ cheapest peer ({cheapest}) = {worst:.2f} "
                             f"(goal < 1 against every peer: {'met' if worst < 1 else '**not met**'})")
    if goals:
        lines += goals + [""]
    text = "\n".join(lines)
    print(text)
    if len(sys.argv) > 2:
        p = sys.argv[2]
        doc = open(p).read()
        b, e = "<!-- peers:begin -->", "<!-- peers:end -->"
        if b in doc and e in doc:
            doc = doc[:doc.index(b) + len(b)] + "\n" + text + "\n" + doc[doc.index(e):]
            open(p, "w").write(doc)
        else:
            print(f"peers_report: {p} has no {b} / {e} markers", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

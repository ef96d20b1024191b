#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Two hosts' span JSON with RPCs between them and a known clock relation.

  mkrpcpair.py OUTDIR [--offset NS] [--drift PPM] [--rpcs N] [--seed S]
               [--bogus ID] [--ids-from N] [--server-name NAME] [--client-name NAME]
               [--packets] [--early-packet ID]

Host "alpha" (the clients, CPU 0) calls host "beta" (the servers, CPU 1).
True time T is alpha's clock; beta's clock reads T + OFFSET + DRIFT * T.
Each RPC: alpha marks 0x201 at send t1, the request takes a wire time
(20 us + exponential 30 us) to beta, which marks 0x201 at t2, works 5..50 us,
marks 0x202 at t3, and the response's wire time later alpha marks 0x202 at
t4.  --bogus ID puts beta's marks of that RPC 5 ms late (a pair that
contradicts every other).  OUTDIR/truth.json holds, per id, beta's true
t2 and t3 (alpha's clock, ns since its tracebase) and the relation.
--packets: each message also as the kernel's packet entries, a random
hash per message: tx (0x215) 5 us after the sender's mark, rx (0x214)
5 us before the receiver's, as a packet's trip lies inside its RPC's.
--early-packet ID: beta receives that RPC's request packet 5 ms early, a
packet that contradicts every other.
"""
import argparse, json, random

p = argparse.ArgumentParser()
p.add_argument("out")
p.add_argument("--offset", type=int, default=123456789)
p.add_argument("--drift", type=float, default=3.0)
p.add_argument("--rpcs", type=int, default=2000)
p.add_argument("--seed", type=int, default=1)
p.add_argument("--bogus", type=int, default=0)
p.add_argument("--ids-from", type=int, default=1)
p.add_argument("--server-name", default="beta")
p.add_argument("--client-name", default="alpha")
p.add_argument("--packets", action="store_true")
p.add_argument("--early-packet", type=int, default=0)
a = p.parse_args()
rnd = random.Random(a.seed)
hashes = random.Random(a.seed + 1)      # --packets leaves the RPCs' times as they are
T0 = 1_000_000_000                      # 1 s after the tracebase, ns


def beta(t):
    return t + a.offset + a.drift * 1e-6 * t


rows = {"alpha": [], "beta": []}
truth = {}
t = T0
for i in range(a.rpcs):
    rid = a.ids_from + i
    t1 = t
    t2 = t1 + 20_000 + int(rnd.expovariate(1 / 30_000))
    t3 = t2 + rnd.randint(5_000, 50_000)
    t4 = t3 + 20_000 + int(rnd.expovariate(1 / 30_000))
    late = 5_000_000 if rid == a.bogus else 0
    rows["alpha"] += [(t1, 0, 100, 0x201, rid), (t4, 0, 100, 0x202, rid),
                      (t4 + 100, 0, 100, 0x201, 0)]
    rows["beta"] += [(beta(t2) + late, 1, 200, 0x201, rid),
                     (beta(t3) + late, 1, 200, 0x202, rid),
                     (beta(t3) + late + 100, 1, 200, 0x201, 0)]
    if a.packets:
        h1, h2 = hashes.getrandbits(32), hashes.getrandbits(32)
        rows["alpha"] += [(t1 + 5_000, 0, 100, 0x215, h1), (t4 - 5_000, 0, 100, 0x214, h2)]
        early = 5_000_000 if rid == a.early_packet else 0
        rows["beta"] += [(beta(t2 - 5_000) + late - early, 1, 200, 0x214, h1),
                         (beta(t3 + 5_000) + late, 1, 200, 0x215, h2)]
    truth[rid] = [t2, t3]
    t = t4 + rnd.randint(50_000, 500_000)
end = t + 1_000_000
for host, cpu, pid, name in (("alpha", 0, 100, "client"), ("beta", 1, 200, "server")):
    f = beta if host == "beta" else (lambda x: x)
    out = [[round(f(T0 - 500_000) / 10), round((f(end) - f(T0 - 500_000)) / 10),
            cpu, pid, 0, 0x10000 + pid, 0, 0, 0, "%s.%d" % (name, pid)]]
    for (tt, c, pd, ev, arg) in rows[host]:
        out.append([round(tt / 10), 1, c, pd, 0, ev, arg, 0, 0,
                    ("%s.%04X" % ("tx" if ev == 0x215 else "rx", arg & 0xFFFF)) if ev in (0x214, 0x215)
                    else ("lookup.%d" % arg) if arg else ".0"])
    out.sort()
    hn = a.server_name if host == "beta" else a.client_name
    with open("%s/%s.json" % (a.out, host), "w") as fh:
        fh.write('  {\n "Comment" : "V2 with IPC field",\n "flags" : 3,\n'
                 ' "hostName" : "%s",\n "mbit_sec" : 1000,\n "title" : "%s",\n'
                 ' "tracebase" : "2026-11-28_10:00:00",\n "version" : 3,\n'
                 '"events" : [\n' % (hn, host))
        for r in out:
            fh.write('[%d.%08d, %d.%08d, %d, %d, %d, %d, %d, %d, %d, "%s"],\n' % (
                r[0] // 10**8, r[0] % 10**8, r[1] // 10**8, r[1] % 10**8, *r[2:9], r[9]))
        fh.write('[999.0, 0.0, 0, 0, 0, 0, 0, 0, 0, ""]\n]}\n')
with open(a.out + "/truth.json", "w") as fh:
    json.dump({"offset": a.offset, "drift": a.drift, "t2t3": truth}, fh)

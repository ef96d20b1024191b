#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Checks a merged JSON of kutrace_align, reading it independently.

  aligncheck.py MERGED.json [TRUTH.json]

Prints "violations N": RPCs whose receive comes before its send in the
merged clock, found from the rows themselves (per host and id, the earliest
0x201 and the latest 0x202; the host with the longer bracket is the
client).  With the truth of mkrpcpair.py, also "maxerr_us X bound_us B":
the largest distance of beta's marks from their true times.
"""
import json, sys
from datetime import datetime, timezone

m = json.load(open(sys.argv[1]))
hosts = m["machines"]


def host_of(cpu):
    for h in hosts:
        if h["cpu0"] <= cpu < h["cpu0"] + h["cpus"]:
            return h["name"]
    return None


ends = {}                                # (host, id) -> [req, resp] in 10 ns
for r in m["events"]:
    if r[5] not in (0x201, 0x202) or r[6] & 0xFFFF == 0 or r[2] < 0:
        continue
    t = round(r[0] * 1e8)
    k = (host_of(r[2]), r[6] & 0xFFFF)
    e = ends.setdefault(k, [None, None])
    if r[5] == 0x201 and (e[0] is None or t < e[0]):
        e[0] = t
    if r[5] == 0x202 and (e[1] is None or t > e[1]):
        e[1] = t
viol = pairs = 0
names = [h["name"] for h in hosts]
for i, a in enumerate(names):
    for b in names[i + 1:]:
        for (h, rid), ea in ends.items():
            if h != a or (b, rid) not in ends:
                continue
            eb = ends[(b, rid)]
            if None in ea or None in eb:
                continue
            c, s = (ea, eb) if ea[1] - ea[0] >= eb[1] - eb[0] else (eb, ea)
            pairs += 1
            viol += (s[0] < c[0]) + (c[1] < s[1])
print("pairs %d violations %d" % (pairs, viol))
if len(sys.argv) > 2:
    truth = json.load(open(sys.argv[2]))["t2t3"]
    tb = datetime.strptime(m["tracebase"], "%Y-%m-%d_%H:%M:%S").replace(tzinfo=timezone.utc)
    shift = int(tb.timestamp() - datetime(2026, 11, 28, 10, tzinfo=timezone.utc).timestamp())
    worst = 0
    for rid, (t2, t3) in truth.items():
        e = ends.get(("beta", int(rid)))
        if not e or None in e:
            continue
        for got, want in ((e[0], t2), (e[1], t3)):
            worst = max(worst, abs(got * 10 + shift * 10**9 - want))
    beta = [h for h in hosts if h["name"] == "beta"][0]
    print("maxerr_us %.3f bound_us %.3f" % (worst / 1000, beta["bound_us"]))

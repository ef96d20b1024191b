#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""A hand-built trace of RPC rows for the viewer's summaries (t_view,
t_browser_view): mkrpcrows.py OUT.json

Its RPC ids first appear in the order 900, 37, 4100, 5, 260 (not
ascending, so that a summary that sorts them shows a wrong order); 77 is
named ".0" only (no row); 260 comes from a left mark only.  Labels are
the longest name of an id's points, which is not its first.  Three RPC
rows have 256 execution spans or more: 900 (400 spans in 0.4 ms), 37
(300 spans in 6 us: its bins at the whole trace are far wider than the
RPC), 5 (260 spans over 90 ms); 4100 has 50.  The last two spans of RPC
5, the last of CPU 0, end at the same time from different starts: the
row's latest end is the first of them in row order.  Both CPUs idle
between, over 200 ms.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from jsonrows import MS, row, write  # noqa: E402

US = MS // 1000                 # 1 us in 10 ns units
SRV, CLI = 101, 102
USER = 65536                    # user mode of pid p: USER + p
READ, IDLE, LEFT = 0x800 + 0, 65536, 526


def work(t, n, step, rpc, cpu=0, pid=SRV):
    """n execution spans of rpc from t, step long each, user and read in turn."""
    for i in range(n):
        ev, nm = (USER + pid, "srv" if pid == SRV else "cli") if i % 2 == 0 else (READ, "read")
        row(t + i * step, t + (i + 1) * step, cpu, pid, ev, nm, rpc=rpc)
    return t + n * step


def idle(cpu, t0, t1):
    row(t0, t1, cpu, 0, IDLE, "-idle-")


def point(t, ev, rpc_id, name, cpu=0, pid=SRV):
    row(t, t + 1, cpu, pid, ev, name, arg=rpc_id)


idle(0, 0, 1 * MS)
idle(1, 0, 20 * MS)
# 900: 400 spans of 1 us
point(1 * MS, 513, 900, "get")
e = work(1 * MS + 10, 400, 1 * US, 900)
point(e, 514, 900, "get.reply")
point(e + 10, 515, 900, "get")
# 37: 300 spans of 20 ns; its longest name comes last.  At the whole
# trace (1311 pixels) its bins are 32 us wide, and the bin of its start
# lies a pixel left of its start's 4 us bin (the RPC's own last two bins):
# a summary draws it there only if the rows' bins go as high as its.
T37 = 2014023
idle(0, e + 20, T37)
point(T37, 513, 37, "put")
e = work(T37 + 10, 300, 2, 37)
point(e, 514, 37, "put.ack")
point(e + 5, 515, 37, "put.ack.long")
# 77: named ".0" only
point(e + 10, 513, 77, ".0")
idle(0, e + 20, 60 * MS)
idle(1, 20 * MS, 60 * MS)
# 4100: 50 spans on CPU 1
point(60 * MS, 513, 4100, "scan", cpu=1, pid=CLI)
e = work(60 * MS + 10, 50, 20 * US, 4100, cpu=1, pid=CLI)
point(e, 514, 4100, "scan", cpu=1, pid=CLI)
idle(1, e + 10, 100 * MS)
idle(0, 60 * MS, 100 * MS)
# 5: 260 spans over 90 ms, the last two ending together
point(100 * MS, 513, 5, "sync")
t = 100 * MS + 10
for i in range(258):
    work(t, 1, 100 * US, 5)
    idle(0, t + 100 * US, t + 340 * US)
    t += 340 * US
row(t, t + 50 * US, 0, SRV, USER + SRV, "srv", rpc=5)
row(t + 20 * US, t + 50 * US, 0, SRV, READ, "read", rpc=5)
idle(1, 100 * MS, 150 * MS)
# 260: a left mark only
row(150 * MS, 150 * MS + 1, 1, CLI, LEFT, "mk", rpc=260)
work(150 * MS + 10, 10, 10 * US, 260, cpu=1, pid=CLI)
idle(1, 150 * MS + 10 + 100 * US, 200 * MS)
write(sys.argv[1])

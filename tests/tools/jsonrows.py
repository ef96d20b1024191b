# SPDX-License-Identifier: BSD-3-Clause
"""Hand-built KUtrace JSON for tests (t_why): rows as eventtospan writes
them (docs/spec/FORMATS.md 5.10), times in 10 ns units after 1.0 s.

    from jsonrows import MS, row, write
    row(t0, t1, cpu, pid, event, name, arg=0, ret=0, rpc=0)
    write(path)
"""
MS = 100000                     # 1 ms in 10 ns units
rows = []


def row(t0, t1, cpu, pid, ev, name, arg=0, ret=0, rpc=0):
    rows.append((1.0 + t0 / 1e8, (t1 - t0) / 1e8, cpu, pid, rpc, ev, arg, ret, 0, name))


def write(path):
    rows.sort(key=lambda r: (round(r[0] * 1e8), r))
    with open(path, "w") as f:
        f.write('  {\n "Comment" : "V2 with IPC field",\n "tracebase" : "2026-11-28_10:00:00",\n'
                ' "version" : 3,\n"events" : [\n')
        for r in rows:
            f.write('[%12.8f, %10.8f, %d, %d, %d, %d, %d, %d, %d, "%s"],\n' % r)
        f.write('[999.0, 0.0, 0, 0, 0, 0, 0, 0, 0, ""]\n]}\n')

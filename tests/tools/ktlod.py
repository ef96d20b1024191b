#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# ktlod.py PAGE.html JSON: a page's summary (#ktlod, lib/page/pagelod.c) against
# the summary made here from the JSON's rows by the rule of
# docs/spec/VIEWER.md 3.4.1, independently: the extents of /api/lodmeta,
# every bin of every CPU row and of every PID row of 256 execution spans
# or more (idle, user, kernel time, last user and kernel event, spans),
# the PID rows' labels and every long span.  Prints "same: ..." or the
# first difference; "none" when the page carries no summary.
import base64
import json
import struct
import sys
import zlib

page, src = sys.argv[1], sys.argv[2]
html = open(page, 'rb').read()
i = html.find(b'id="ktlod"')
if i < 0:
    print('none')
    sys.exit(0)
head_end = html.index(b'>', i)
enc = b'deflate' if b'data-enc="deflate"' in html[i:head_end] else b'raw'
blob = base64.b64decode(html[head_end + 1:html.index(b'</script>', head_end)])
if enc == b'deflate':
    blob = zlib.decompress(blob)
assert blob[:4] == b'KTL2', blob[:4]
p = 4


def u32():
    global p
    v = struct.unpack_from('<I', blob, p)[0]
    p += 4
    return v


def var():
    global p
    v, sh = 0, 0
    while True:
        b = blob[p]
        p += 1
        v |= (b & 127) << sh
        sh += 7
        if not b & 128:
            break
    return -(v + 1) // 2 if v & 1 else v // 2


ml = u32()
meta = json.loads(blob[p:p + ml])
p += ml


def section():
    out = {}
    for _ in range(u32()):
        cpu, nb = var(), var()
        cols = [[var() for _ in range(nb)] for _ in range(7)]
        b = 0
        for k in range(nb):
            b += cols[0][k]
            cols[0][k] = b
        out[cpu] = [tuple(c[k] for c in cols) for k in range(nb)]
    return out


bins = section()
pbins = section()
nl = u32()
lc = [[var() for _ in range(nl)] for _ in range(9)]
x = 0
for k in range(nl):
    x += lc[0][k]
    lc[0][k] = x
long = []
for k in range(nl):
    n = var()
    long.append(tuple(c[k] for c in lc) + (blob[p:p + n].decode(),))
    p += n
assert p == len(blob), (p, len(blob))

# The same from the JSON, in 10 ns units (times are whole 10 ns there).
rows = [r for r in json.load(open(src))['events'] if r[0] < 999]
t10 = lambda x: round(x * 1e8)
rows = [(t10(r[0]), t10(r[1])) + tuple(r[2:9]) + (r[9],) for r in rows]
# The PID rows as the viewer's buildRows makes them: a pid > 0 with a
# user-mode span or a left/right mark, labelled by the first of those.
label = {}
for r in rows:
    if r[3] > 0 and r[3] not in label and (0x10000 < r[5] < 0x20000 or r[5] in (526, 527)):
        label[r[3]] = r[9]
t0 = min(r[0] for r in rows)
end = None  # the first row of the latest end before 999 s
for r in rows:
    if r[0] + r[1] < 99900000000 and (end is None or r[0] + r[1] > end[0]):
        end = (r[0] + r[1], r[0], r[1])
q = 1
while q < 1 << 40 and ((end[0] if end else t0) - t0) * 10 // q > 1 << 15:
    q *= 2
exe = lambda e: 0 <= e < 0x200 or 0x400 <= e < 0x1000 or e >= 0x10000
cpus, mine, pids, pmine, mlong = {}, {}, {}, {}, []


def extent(c, ts, du, ev):
    if exe(ev):
        c[0] += 1
        if c[1] < 0:
            c[1] = ts
    if ev not in (526, 527):
        if c[2] < 0:
            c[2] = ts
        if c[3] < 0 or ts + du > c[3] + c[4]:
            c[3], c[4] = ts, du


for r in rows:
    ts, du, cpu, pid, ev = r[0], r[1], r[2], r[3], r[5]
    if ev < 0:
        continue
    if pid in label:
        extent(pids.setdefault(pid, [0, -1, -1, -1, 0]), ts, du, ev)
    if cpu >= 0:
        extent(cpus.setdefault(cpu, [0, -1, -1, -1, 0]), ts, du, ev)


def add(a, b, du, ev):
    if not a or a[-1][0] != b:
        a.append([b, 0, 0, 0, 0, 0, 0])
    k = 1 if ev in (0x10000, 0x20000) else 2 if ev > 0x10000 else 3
    a[-1][k] += du
    if k > 1:
        a[-1][k + 2] = ev + 1
    a[-1][6] += 1


for r in rows:
    ts, du, cpu, pid, ev = r[0], r[1], r[2], r[3], r[5]
    if not exe(ev) or (cpu < 0 and pid not in label):
        continue
    if cpu >= 0:
        add(mine.setdefault(cpu, []), (ts - t0) * 10 // q, du, ev)
    if pid in label and pids[pid][0] >= 256:
        add(pmine.setdefault(pid, []), (ts - t0) * 10 // (2 * q), du, ev)
    if du * 10 >= 2 * q:
        mlong.append(r)
want = {'n': len(rows), 't0': t0, 'end': [end[1], end[2]] if end else [-1, 0], 'q': q, 'qp': 2 * q,
        'cpus': [[k] + v for k, v in sorted(cpus.items())],
        'pids': [[k] + v + [label[k]] for k, v in sorted(pids.items())]}
if meta != want:
    print('meta differs:', json.dumps(meta)[:300], json.dumps(want)[:300])
    sys.exit(1)
for cpu in sorted(set(bins) | set(mine)):
    a, b = bins.get(cpu, []), [tuple(x) for x in mine.get(cpu, [])]
    if a != b:
        k = next((k for k in range(min(len(a), len(b))) if a[k] != b[k]), min(len(a), len(b)))
        print('cpu %d: bin %d differs: %s against %s' % (cpu, k, a[k:k + 1], b[k:k + 1]))
        sys.exit(1)
for pid in sorted(set(pbins) | set(pmine)):
    a, b = pbins.get(pid, []), [tuple(x) for x in pmine.get(pid, [])]
    if a != b:
        k = next((k for k in range(min(len(a), len(b))) if a[k] != b[k]), min(len(a), len(b)))
        print('pid %d: bin %d differs: %s against %s' % (pid, k, a[k:k + 1], b[k:k + 1]))
        sys.exit(1)
if long != mlong:
    print('long spans differ: %d against %d' % (len(long), len(mlong)))
    sys.exit(1)
print('same: %d CPU rows, %d bins of %d ns, %d PID rows, %d with %d bins of %d ns, %d long spans' % (
    len(bins), sum(map(len, bins.values())), q, len(meta['pids']), len(pbins), sum(map(len, pbins.values())), 2 * q, len(long)))

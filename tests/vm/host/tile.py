# SPDX-License-Identifier: BSD-3-Clause
# tile.py FILE.json: every CPU's execution spans tile its timeline with no
# gap or overlap beyond 10 ns rounding.  Prints one line per CPU and
# exits 1 if some CPU does not tile.
import json
import sys

d = json.load(open(sys.argv[1]))
by = {}
for r in d["events"]:
    st, du, cpu, e = r[0], r[1], r[2], r[5]
    if cpu < 0 or e < 0x400 and not e >= 0x10000:
        continue
    by.setdefault(cpu, []).append((st, du))
bad = 0
for cpu, spans in sorted(by.items()):
    spans.sort()
    gaps = overlaps = 0
    for a, b in zip(spans, spans[1:]):
        end = a[0] + a[1]
        if b[0] - end > 1.5e-8:
            gaps += 1
        elif end - b[0] > 1.5e-8:
            overlaps += 1
    print("cpu %d spans %d gaps %d overlaps %d" % (cpu, len(spans), gaps, overlaps))
    bad += gaps + overlaps
sys.exit(1 if bad or not by else 0)

#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""jsonshift.py IN.json OUT.json NS10: every row NS10 x 10 ns later, exactly.

The injected clock offset of the alignment tests: the start column is
rewritten as a decimal string (no float rounding); the sentinel row stays.
"""
import re, sys

src, dst, d = sys.argv[1], sys.argv[2], int(sys.argv[3])
row = re.compile(r'^\[\s*(-?)(\d+)\.(\d{8}),(.*)$')
with open(src) as f, open(dst, "w") as g:
    for line in f:
        m = row.match(line)
        if m and not line.startswith("[999.0"):
            v = int(m.group(2)) * 10**8 + int(m.group(3))
            v = (-v if m.group(1) else v) + d
            sign = "-" if v < 0 else ""
            v = abs(v)
            line = "[%s%d.%08d,%s\n" % (sign, v // 10**8, v % 10**8, m.group(4))
        g.write(line)

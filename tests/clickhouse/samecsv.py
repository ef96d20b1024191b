#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""samecsv.py A.csv B.csv: do two CSV files with a header hold the same
table?  Compares cell by cell after parsing (so quoting may differ, e.g.
DuckDB's and ClickHouse's CSVWithNames): the header's names exactly, the
same number of rows in the same order, and each cell: empty or \\N is NULL
(equal only to NULL); integers exactly; numbers with a decimal point or an
exponent to 1e-9 relative; true/false as 1/0; anything else as the same
text.  Prints each difference (at most 20) and exits 1 when there is one,
2 when a file cannot be read."""
import csv
import math
import re
import sys

INT = re.compile(r"[+-]?[0-9]+\Z")
NUM = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?\Z|[+-]?(inf|nan)\Z", re.I)


def cell(s):
    if s in ("", "\\N"):
        return None
    if s in ("true", "false"):
        return int(s == "true")
    if INT.match(s):
        return int(s)
    if NUM.match(s):
        return float(s)
    return s


def same(a, b):
    if a is None or b is None:
        return a is b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        if isinstance(a, int) and isinstance(b, int):
            return a == b
        a, b = float(a), float(b)
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        if a == b:
            return True
        return abs(a - b) <= 1e-9 * max(abs(a), abs(b))
    if isinstance(a, (int, float)) != isinstance(b, (int, float)):
        return False
    return a == b


def read(path):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.reader(f))


def main(argv):
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    csv.field_size_limit(1 << 30)
    try:
        a, b = read(argv[1]), read(argv[2])
    except (OSError, UnicodeDecodeError, csv.Error) as e:
        print("samecsv: %s" % e, file=sys.stderr)
        return 2
    diffs = []
    if not a or not b:
        diffs.append("%s has no header" % (argv[1] if not a else argv[2]))
    elif a[0] != b[0]:
        diffs.append("header: %s vs %s" % (",".join(a[0]), ",".join(b[0])))
    else:
        head = a[0]
        if len(a) != len(b):
            diffs.append("rows: %d vs %d" % (len(a) - 1, len(b) - 1))
        for r, (ra, rb) in enumerate(zip(a[1:], b[1:]), 1):
            if len(ra) != len(rb) or len(ra) != len(head):
                diffs.append("row %d: %d vs %d cells" % (r, len(ra), len(rb)))
                continue
            for c, (x, y) in enumerate(zip(ra, rb)):
                if not same(cell(x), cell(y)):
                    diffs.append("row %d %s: %r vs %r" % (r, head[c], x, y))
    for d in diffs[:20]:
        print(d)
    if len(diffs) > 20:
        print("... %d differences" % len(diffs))
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

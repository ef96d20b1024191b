#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""tablecheck.py JSON - what a table store built from JSON must hold,
computed from the JSON's rows alone (Python's json module, none of
kutrace's code), one "key value" line each, sorted:

  count:TABLE N      rows each table must have (docs/TABLES.md)
  name_ns:NAME N     total duration in ns of the rows with that name
  cpu_ns:CPU N       total duration of the CPU's execution rows
  cpu_K:CPU N        of them user, kernel, idle and c-exit (the cpu table)

tests/t_tables.sh prints the same keys from the store with SQL and diffs
the two.  sched_slice and slice are counted by their own definitions
written again here: runs of one pid per CPU, and a stack per CPU.
"""
import json
import sys
from collections import Counter, defaultdict


def ns(sec):
    # The JSON has 10 ns resolution: round to it exactly.
    return round(sec * 1e8) * 10


def is_exec(r):
    return r[2] >= 0 and (1024 <= r[5] <= 4095 or r[5] >= 65536)


def main():
    with open(sys.argv[1], encoding="utf-8", errors="surrogateescape") as f:
        doc = json.load(f)
    rows = [r for r in doc["events"]
            if not (r[9] == "" and all(v == 0 for v in r[1:9]) and r[0] >= 999.0)]
    count = Counter()
    name_ns = Counter()
    cpu_ns = Counter()
    count["span"] = len(rows)
    kinds = [("wakeup", lambda e: e == -3), ("ipi", lambda e: e == -7),
             ("wait", lambda e: 768 <= e <= 793), ("counter", lambda e: e == 521),
             ("mark", lambda e: 522 <= e <= 525), ("pc_sample", lambda e: e in (640, 641)),
             ("packet", lambda e: e in (516, 517, 532, 533, 534, 535)),
             ("lock", lambda e: e in (528, 529, 530, 642, 643))]
    for r in rows:
        name_ns[r[9]] += ns(r[1])
        for t, f in kinds:
            if f(r[5]):
                count[t] += 1
    ex = sorted((r for r in rows if is_exec(r)),
                key=lambda r: (r[2], ns(r[0]), ns(r[1]), r[3]))
    # sched_slice: runs of one pid on one CPU.
    slices = 0
    prev = None
    threads = set()
    cpus = set()
    for r in ex:
        cpu_ns[r[2]] += ns(r[1])
        cexit = r[5] == 131072 and r[9] == "-c-exit-"
        k = ("idle" if r[5] == 65536 else "cexit" if cexit else
             "user" if r[5] > 65536 else "kernel")
        cpu_ns[(k, r[2])] += ns(r[1])
        cpus.add(r[2])
        if r[3] > 0:
            threads.add(r[3])
        if prev is None or prev[2] != r[2] or prev[3] != r[3]:
            slices += 1
        prev = r
    count["sched_slice"] = slices
    count["thread"] = count["process"] = len(threads)
    count["cpu"] = len(cpus)
    count["machine"] = 1
    # slice: a kernel row continues the call of its event open on the
    # CPU's stack, else opens one; user code, idle or another pid closes.
    calls = 0
    stack = []
    key = None
    for r in ex:
        if key != (r[2], r[3]):
            stack = []
            key = (r[2], r[3])
        if r[5] >= 65536:
            stack = []
            continue
        if r[5] in stack:
            del stack[stack.index(r[5]) + 1:]
            continue
        if len(stack) == 64:
            stack.pop()
        stack.append(r[5])
        calls += 1
    count["slice"] = calls
    out = ["count:%s %d" % kv for kv in count.items()]
    out += ["name_ns:%s %d" % kv for kv in name_ns.items()]
    out += ["cpu_ns:%d %d" % kv for kv in cpu_ns.items() if not isinstance(kv[0], tuple)]
    out += ["cpu_%s:%d %d" % (k, c, cpu_ns[(k, c)])
            for c in cpus for k in ("user", "kernel", "idle", "cexit")]
    for line in sorted(out):
        print(line)


if __name__ == "__main__":
    main()

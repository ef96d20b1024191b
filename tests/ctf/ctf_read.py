# SPDX-License-Identifier: BSD-3-Clause
"""Read a CTF trace with babeltrace2's Python bindings (python3-bt2) for
tests/t_ctf.sh and bench/run.sh.

  ctf_read.py count DIR     "STREAM KIND N" lines (STREAM the stream's
                            instance id: the CPU, 65536 no CPU, 65537 the
                            statedump; KIND the event name, syscall_entry /
                            syscall_exit for every system call), then
                            "back N": events whose time went back in a stream
  ctf_read.py states DIR    "TID STATE NS" lines: per thread the time
                            running, runnable and sleeping, LTTng-style, from
                            sched_switch (prev_state 0 = preempted) and
                            sched_wakeup, between a thread's first switch-in
                            and its last switch-out
  ctf_read.py fields DIR    "EVENT FIELD..." per event class seen
  ctf_read.py time DIR      events and seconds to read them all
"""
import collections
import sys
import time

import bt2


def events(path):
    for msg in bt2.TraceCollectionMessageIterator(path):
        if type(msg) is bt2._EventMessageConst:
            yield msg


def kind(name):
    for p in ("syscall_entry_", "syscall_exit_"):
        if name.startswith(p):
            return p[:-1]
    return name


def count(path):
    c = collections.Counter()
    last = {}
    back = 0
    for m in events(path):
        e = m.event
        sid = e.stream.id
        t = m.default_clock_snapshot.ns_from_origin
        if t < last.get(sid, t):
            back += 1
        last[sid] = t
        c[(sid, kind(e.name))] += 1
    for (sid, k), n in sorted(c.items()):
        print(sid, k, n)
    print("back", back)


def states(path):
    tot = collections.Counter()
    run_since = {}      # tid -> switch-in time
    out = {}            # tid -> (switch-out time, prev_state)
    woke = {}           # tid -> wakeup time within its gap
    for m in events(path):
        e = m.event
        t = m.default_clock_snapshot.ns_from_origin
        if e.name == "sched_wakeup":
            tid = int(e.payload_field["tid"])
            if tid in out and tid not in woke:
                woke[tid] = t
        elif e.name == "sched_switch":
            prev = int(e.payload_field["prev_tid"])
            nxt = int(e.payload_field["next_tid"])
            if prev > 0:
                if prev in run_since:
                    tot[(prev, "running")] += t - run_since.pop(prev)
                out[prev] = (t, int(e.payload_field["prev_state"]))
                woke.pop(prev, None)
            if nxt > 0:
                if nxt in out:
                    t0, st = out.pop(nxt)
                    w = woke.pop(nxt, None)
                    if w is not None:
                        tot[(nxt, "sleeping")] += w - t0
                        tot[(nxt, "runnable")] += t - w
                    else:
                        tot[(nxt, "runnable" if st == 0 else "sleeping")] += t - t0
                run_since[nxt] = t
    for (tid, st), ns in sorted(tot.items()):
        print(tid, st, ns)


def fields(path):
    seen = {}
    for m in events(path):
        e = m.event
        if e.name not in seen:
            seen[e.name] = list(e.payload_field.keys())
    for n in sorted(seen):
        print(n, *seen[n])


def timed(path):
    t = time.monotonic()
    n = sum(1 for _ in events(path))
    print(n, "%.3f" % (time.monotonic() - t))


{"count": count, "states": states, "fields": fields, "time": timed}[sys.argv[1]](sys.argv[2])

#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# kutrace_why (issue 29) on real kernels, where the answer is known by
# construction: examples/slow_cases in a QEMU guest (stock 6.1, tracepoint
# backend; patched 6.1), traced, then explained on the host.
# - lock: A waits for a mutex B holds while B sleeps: A's wait (its
#   sleeping time, followed to the waker) is >= 95 % B's timer sleep, and B
#   is reached through the lock (B's running as "lock").
# - pipe: P1 computes D1 -> P2 sleeps D2 -> P3 waits: P3's wait has P1's
#   time as "pipe" and P2's sleep as "timer", each within 5 % of its delay.
# - hog: a SCHED_FIFO thread spins on the victim's only CPU: the victim's
#   cpu_wait behind the hog is within 5 % of the time the hog measured.
# - disk: O_DIRECT reads of a disk QEMU throttles to 10 requests/s (a real
#   disk's latency; TCG's emulated disk answers at once): each read QEMU
#   held back is >= 95 % "disk", named by the disk's interrupt (patched
#   kernels: "interrupt", unnamed: they record the vector only).
# - every answer's pieces add up to its latency exactly; no oops.
# - the answers written into the trace's timeline page are drawn there
#   (#why=mark:lock, "why mark:pipe" in the search box; Chromium).
# The delays run 10x longer than on a real CPU (slow_cases -s 10): under TCG
# a system call costs ~100x, and the unlock or pipe write around each wait
# (0.5 ms, and up to 2.6 ms more when the host is busy and wakes a vCPU
# late) would otherwise be more than the 5 % the checks allow.
# Guest side: tests/vm/scenarios/why.sh.  KT_VM_KERNELS selects kernels.
. tests/lib.sh
. tests/vm/lib.sh
vm_ready || exit 0
W=$KT_BIN/kutrace_why
[ -x "$W" ] || { skip "kutrace_why: not built (make deps brings DuckDB)"; exit 0; }
img=$TMP/slow.img
truncate -s 16M "$img"
for k in ${KT_VM_KERNELS:-6.1 p6.1}; do
	out=$KT_ROOT/build/vm/why-$k
	KT_VM_DRIVE="file=$img,format=raw,if=virtio,throttling.iops-total=10" \
		vm_run "$k: guest ran slow_cases" "$out" -k "$k" tests/vm/scenarios/why.sh || continue
	ok "$k: guest ran slow_cases ($VM_AFTER)"
	eq "$k: slow_cases exit status" "slow_cases=0" "$(grep '^slow_cases=' "$out/scenario.log")"
	check "$k: no oops" test ! -s "$out/oops.txt"
	sed 's/^/#   /' "$out/slow.out"
	cp "$out/slow.trace" "$TMP/slow.trace" 2>/dev/null
	if ! "$KT_BIN/kutrace_sql" build "$TMP/slow.trace" -o "$TMP/slow.tables" 2>"$TMP/b.err"; then
		nok "$k: slow_cases' tables: $(tail -1 "$TMP/b.err")"; continue
	fi
	for m in lock pipe hog disk; do
		"$W" "$TMP/slow.tables" --mark "$m" --json > "$TMP/$m.json" 2>"$TMP/$m.err" ||
			nok "$k: kutrace_why --mark $m: $(tail -1 "$TMP/$m.err")"
	done
	python3 - "$TMP" "$out/slow.out" "$k" <<'PY'
import json, re, sys
d, truth, k = sys.argv[1], open(sys.argv[2]).read(), sys.argv[3]
def facts(case):
    m = re.search(r"^%s: (.*)$" % case, truth, re.M)
    w = m.group(1).split() if m else []
    return {w[i]: w[i + 1] for i in range(0, len(w) - 1, 2)}
def load(m):
    try:
        o = json.load(open("%s/%s.json" % (d, m)))
    except Exception:
        return []
    return o if isinstance(o, list) else [o]
def res(ok, what):
    print("%s - %s: %s" % ("ok" if ok else "not ok", k, what))
def between(what, lo, hi, v):
    res(v is not None and lo <= v <= hi, "%s (%s in %s..%s)" % (what, v, lo, hi))
def ns(o, cause, pid=None, depth=None):
    return sum(p["dur_ns"] for p in o["path"] if p["cause"] == cause and
               (pid is None or p["pid"] == pid) and (depth is None or p["depth"] >= depth))
every = [o for m in ("lock", "pipe", "hog", "disk") for o in load(m)]
res(len(every) == 1 + 1 + 1 + 8, "one answer per marked interval (%d)" % len(every))
res(all(o["latency_ns"] == sum(b["ns"] for b in o["by_cause"]) ==
        sum(p["dur_ns"] for p in o["path"]) for o in every),
    "every answer's pieces add up to its latency exactly")

f = facts("lock")
for o in load("lock")[:1]:
    b = int(f["b"])
    wait = sum(p["dur_ns"] for p in o["path"] if p["depth"] >= 1)
    between("lock: A's wait is B's timer sleep (% of the wait)", 95, 100,
            wait and 100 * ns(o, "timer", b, 1) // wait)
    res(any(p["cause"] == "lock" and p["pid"] == b and p["depth"] == 1 for p in o["path"]),
        "lock: reached through B, the lock's holder (B's running is \"lock\")")
    top = max(o["by_cause"], key=lambda c: c["ns"])
    res(top["cause"] == "timer" and top["pid"] == b, "lock: the main cause names B (%s)" % top)

f = facts("pipe")
for o in load("pipe")[:1]:
    p1, p2 = int(f["p1"]), int(f["p2"])
    d1, d2 = int(f["d1_ms"]) * 10**6, int(f["d2_ms"]) * 10**6
    between("pipe: P1's computing as \"pipe\" (% of D1)", 95, 105, 100 * ns(o, "pipe", p1) // d1)
    between("pipe: P2's sleep as \"timer\" (% of D2)", 95, 105, 100 * ns(o, "timer", p2) // d2)
    res(ns(o, "pipe", p2) > 0, "pipe: P2's own running as \"pipe\" too")

f = facts("hog")
for o in load("hog")[:1]:
    h, us = int(f["hog"]), int(f["hog_us"])
    between("hog: cpu_wait behind the hog (% of the time it spun)", 95, 105,
            100 * ns(o, "cpu_wait", h) // (us * 1000))

disk = load("disk")
held = [o for o in disk if o["latency_ns"] >= 10**7]
res(len(held) >= 5, "disk: QEMU held back most reads (%d of %d over 10 ms)" % (len(held), len(disk)))
# The patched kernels record a device interrupt by its vector alone, as the
# original's patches do, and /proc/interrupts names irq numbers: there the
# interrupt stays unnamed (irq#VECTOR) and its cause "interrupt".
cause, name = ("interrupt", r"irq#\d+$") if k.startswith("p") else ("disk", r"virtio\d+-req\.\d+$")
for i, o in enumerate(held):
    between("disk: held read %d is \"%s\" (%%)" % (i, cause), 95, 100,
            100 * ns(o, cause) // o["latency_ns"])
# One device, one or more of its queues: blk-mq gives each CPU its own
# queue and interrupt (virtio1-req.0, -req.1), and the reader migrates.
names = {b["name"] for o in held for b in o["by_cause"] if b["cause"] == cause}
devices = {re.sub(r"(-req\.\d+|#\d+)$", "", n) for n in names}
res(names and all(re.match(name, n) for n in names) and len(devices) == 1,
    "disk: named by the disk's interrupt, one device (%s)" % sorted(names))
PY
	# The paths drawn in the timeline page (kutrace_why --html, the
	# viewer's why.js): opened by #why=, by the search box, cleared.
	if browser_ready "$k: why in the timeline"; then
		"$KT_BIN/kutrace_postproc" "$TMP/slow.trace" "slow cases" > /dev/null 2>&1
		for m in lock pipe; do "$W" "$TMP/slow.tables" --mark $m --html "$TMP/slow.html" > /dev/null 2>&1; done
		timeout 300 node tests/browser/why.js "$TMP/slow.html" "$out/why.png" timer mark:lock mark:pipe rpc:5 \
			> "$TMP/page.out" 2>&1
		relay "$k: why in the timeline" "$TMP/page.out"
	fi
	# The text a sysadmin reads: the cause table leads with the answer.
	"$W" "$TMP/slow.tables" --mark lock > "$TMP/lock.txt" 2>&1
	b=$(sed -n 's/^lock: a [0-9]* b \([0-9]*\) .*/\1/p' "$out/slow.out")
	eq "$k: lock: the text's first cause line is B's timer sleep" "timer ($b)" \
		"$(sed -n '3p' "$TMP/lock.txt" | awk '{ print $1, $NF }')"
done

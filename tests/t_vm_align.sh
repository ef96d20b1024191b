#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# kutrace_align (issue 30) on two real guests at once: guest a (stock
# Debian 6.1, tracepoint backend) runs client_server's clients, guest b
# (patched 6.1) its servers, over TCP on a virtio-net card each, joined by
# QEMU's dgram netdev on 127.0.0.1 (tests/vm/vm2.sh); each traces itself.
# The truth: the guests' own clock offset is whatever their boots gave
# (their wall clocks come from the emulated RTC, whole seconds) and no
# shared clock tells it; so the truth is an injected offset: b's JSON
# shifted by exactly 37 ms (tests/tools/jsonshift.py, decimal, no
# rounding) must move the estimate by 37 ms +- 1 us, a shifted reference
# the other way.
# - 0 receives before their send after alignment (tests/tools/aligncheck.py
#   reads the merged JSON on its own);
# - the bound is no tighter than the data allow and not loose: at least
#   half the width of the intersection of every RPC's offset interval (the
#   best any method can say, with a constant offset) and at most twice it;
# - the merged page, one CPU group per host, in Chromium (arrows between
#   the hosts, a host closed);
# - kutrace_why over the merged stores: the slowest RPC's wait on the
#   client guest is the server guest's own path (its lock wait).
# - packets: both kernels record each client_server message by the hash of
#   its first 32 bytes (a's module at the device tracepoints, b's patched
#   TCP), the same hashes on both sides and the ones the bytes give;
#   kutrace_align pairs them into intervals tighter than the RPCs'.
# TCG: the RPCs' round trips are ~2 ms, their slack ~1 ms, a packet's
# trip between the two QEMU processes ~0.1-0.3 ms, so the bound is
# ~150-200 us, not the 50 us a real network would give (printed).
# Guest side: tests/vm/scenarios/align.sh.
. tests/lib.sh
. tests/vm/lib.sh
vm_ready || exit 0
A=$KT_BIN/kutrace_align PP=$KT_BIN/kutrace_postproc
out=$TMP/vm
if ! tests/vm/vm2.sh -t 900 6.1 p6.1 tests/vm/scenarios/align.sh "$out" 2> "$TMP/vm.err"; then
	nok "two guests ran the scenario"; sed 's/^/#   /' "$TMP/vm.err" | tail -20; exit 0
fi
ok "two guests ran the scenario ($(grep -o 'after [0-9]* s' "$TMP/vm.err" | tr '\n' ' '))"
for g in a b; do
	eq "guest $g: client_server finished" "client_server=0" "$(grep '^client_server=' "$out/$g/scenario.log")"
	eq "guest $g: no oops" "" "$(cat "$out/$g/oops.txt")"
done
check "mixed kernels: a stock cloud 6.1, b patched" sh -c \
	"grep -q 'cloud-amd64' '$out/a/release.txt' && ! grep -q 'cloud-amd64' '$out/b/release.txt'"
served=$(grep "^served" "$out/b/cs.out")
eq "the server guest served both client connections" "served 2 connections" "$served"

for g in a b; do "$PP" "$out/$g/$g.trace" -o "$TMP/$g.json" --no-html --quiet 2> /dev/null; done
"$A" "$out/a/a.trace" "$out/b/b.trace" -o "$TMP/ab" > "$TMP/o0" 2> "$TMP/e0"
check "kutrace_align a.trace b.trace" [ -s "$TMP/ab.json" ] && [ -s "$TMP/ab.html" ]
cat "$TMP/o0" "$TMP/e0"
# Messages: the 800 RPCs, and pairs of packets (a request's hash sent on
# a and received on b, with the reply nearest in time sent back).
msgs=$(sed -n 's/.* \([0-9]*\) messages (\([0-9]*\) packet pairs), 8 used, 0 contradicting.*/\1 \2/p' "$TMP/o0")
check "800 RPCs and 790..800 packet pairs matched, none contradicting ($msgs)" \
	awk -v m="${msgs% *}" -v p="${msgs#* }" 'BEGIN { exit !(m != "" && m - p == 800 && p >= 790 && p <= 800) }'
# The packet entries of two implementations: guest a's tracepoint backend
# hashes at net_dev_queue / netif_receive_skb, guest b's patched kernel in
# TCP itself.  Every request's hash is also computed here from the bytes
# client_server sends (FORMATS 3.8: the message's 32-bit words XORed).
python3 - "$TMP/a.json" "$TMP/b.json" > "$TMP/pk" <<'PY'
import json, sys
def packets(f):
    tx, rx = [], []
    for r in json.load(open(f))["events"]:
        if r[5] == 0x215: tx.append(r[6])
        if r[5] == 0x214: rx.append(r[6])
    return tx, rx
(atx, arx), (btx, brx) = packets(sys.argv[1]), packets(sys.argv[2])
M = (1 << 64) - 1
def nonce(rpc, reply):
    z = (((rpc << 1) | reply) + 0x9E3779B97F4A7C15) & M
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M
    return (z ^ (z >> 31)) & 0xFFFFFFFF
want = set()
for rpc in range(1, 801):             # -c 2 -n 400: client i sends ids 1 + 400 i ..
    i, j = divmod(rpc - 1, 400)
    w = [0xD1C517E5, rpc, 1 if j % 4 == 3 else 0, j * 7 + i, j, 0, nonce(rpc, 0), 0]
    g = 0
    for x in w: g ^= x
    want.add(g)
print("a_tx", len(atx), "b_rx", len(brx), "b_tx", len(btx), "a_rx", len(arx))
print("requests", len(want & set(atx)), len(want & set(brx)))
print("same", int(sorted(atx) == sorted(brx)), int(sorted(btx) == sorted(arx)), len(set(atx) | set(btx)))
PY
cat "$TMP/pk"
eq "packets: guest a (tracepoint backend) and guest b (patched) each sent and received 800" \
	"a_tx 800 b_rx 800 b_tx 800 a_rx 800" "$(sed -n 1p "$TMP/pk")"
eq "packets: every request's hash as its bytes give it, sent on a and received on b" \
	"requests 800 800" "$(sed -n 2p "$TMP/pk")"
eq "packets: the same hashes on both sides, each direction; 1600 distinct" "same 1 1 1600" \
	"$(sed -n 3p "$TMP/pk")"
python3 tests/tools/aligncheck.py "$TMP/ab.json" > "$TMP/c0"
eq "0 receives before their send (read independently)" "pairs 800 violations 0" "$(cat "$TMP/c0")"
check "one CPU group per host: guesta CPUs 0-1, guestb 2-3" python3 -c '
import json, sys
m = json.load(open(sys.argv[1]))["machines"]
sys.exit(not ([(h["name"], h["cpu0"], h["cpus"]) for h in m] == [("guesta", 0, 2), ("guestb", 2, 2)]))' "$TMP/ab.json"

# The injected offset.
off() { sed -n 's/^guestb vs guesta: offset \([-+0-9.]*\) us.*/\1/p' "$1"; }
bnd() { sed -n 's/.*bound +-\([0-9.]*\) us.*/\1/p' "$1"; }
python3 tests/tools/jsonshift.py "$TMP/b.json" "$TMP/b37.json" 3700000
python3 tests/tools/jsonshift.py "$TMP/a.json" "$TMP/a37.json" 3700000
"$A" "$TMP/a.json" "$TMP/b.json" -o "$TMP/j0" > "$TMP/o1"
"$A" "$TMP/a.json" "$TMP/b37.json" -o "$TMP/j1" > "$TMP/o2"
"$A" "$TMP/a37.json" "$TMP/b.json" -o "$TMP/j2" > "$TMP/o3"
eq "the trace and its JSON give the same estimate" "$(off "$TMP/o0")" "$(off "$TMP/o1")"
d1=$(awk -v x="$(off "$TMP/o1")" -v y="$(off "$TMP/o2")" 'BEGIN { printf "%.3f", y - x }')
d2=$(awk -v x="$(off "$TMP/o1")" -v y="$(off "$TMP/o3")" 'BEGIN { printf "%.3f", y - x }')
check "b +37 ms: the estimate moves by +37000 +- 1 us ($d1)" awk -v d="$d1" 'BEGIN { exit !(d >= 36999 && d <= 37001) }'
check "the reference +37 ms: by -37000 +- 1 us ($d2)" awk -v d="$d2" 'BEGIN { exit !(d >= -37001 && d <= -36999) }'
b=$(bnd "$TMP/o1")
check "the injected 37 ms recovered within the bound (|$d1 - 37000| <= $b us)" \
	awk -v d="$d1" -v b="$b" 'BEGIN { e = d - 37000; if (e < 0) e = -e; exit !(e <= b) }'
python3 tests/tools/aligncheck.py "$TMP/j1.json" > "$TMP/c1"
eq "shifted: 0 receives before their send" "pairs 800 violations 0" "$(cat "$TMP/c1")"

# What the data allow: the intersection of every message's offset
# interval (in the merged clock, so around 0), half its width: the RPCs'
# and the packets' (a -> b bounds the offset above, b -> a below).
half=$(python3 - "$TMP/ab.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
e, tx, rx = {}, ({}, {}), ({}, {})
for r in m["events"]:
    t = round(r[0] * 1e8) * 10
    if r[5] in (0x201, 0x202) and r[6] & 0xFFFF and r[2] >= 0:
        k = (r[2] >= 2, r[6] & 0xFFFF)
        v = e.setdefault(k, [None, None])
        if r[5] == 0x201 and (v[0] is None or t < v[0]): v[0] = t
        if r[5] == 0x202 and (v[1] is None or t > v[1]): v[1] = t
    if r[5] in (0x214, 0x215) and r[2] >= 0:
        (tx if r[5] == 0x215 else rx)[r[2] >= 2].setdefault(r[6], []).append(t)
lo, hi = [], []
for (srv, i), c in e.items():
    if srv or (True, i) not in e: continue
    s = e[(True, i)]
    lo.append(s[1] - c[1]); hi.append(s[0] - c[0])
for h, t in tx[0].items():
    if len(t) == 1 and len(rx[1].get(h, [])) == 1: hi.append(rx[1][h][0] - t[0])
for h, t in tx[1].items():
    if len(t) == 1 and len(rx[0].get(h, [])) == 1: lo.append(t[0] - rx[0][h][0])
print("%.1f" % ((min(hi) - max(lo)) / 2000))
PY
)
b0=$(bnd "$TMP/o0")
echo "# TCG: bound +-$b0 us; the data allow +-$half us at best (a constant offset)"
check "the bound is no tighter than the data allow ($b0 >= $half us)" awk -v b="$b0" -v h="$half" 'BEGIN { exit !(b >= h) }'
check "and at most twice that ($b0 <= 2 x $half us)" awk -v b="$b0" -v h="$half" 'BEGIN { exit !(b <= 2 * h) }'

# The critical path across the hosts (issue 29 over issue 30's stores).
# The 10 slowest lookups all begin on the client guest, and their pieces
# add up exactly.  Which lookups are slowest depends on the host's load
# (a TCG guest's network stalls of 15-60 ms can outlast every lock wait),
# so the lock case is the lookup whose server thread waited longest for
# the table lock (SQL over the merged stores): its client waits in read
# on guest a until the network card's interrupt wakes it; the walk
# follows the RPC id into the server thread on guest b, whose own path
# (its lock wait, the holder's sleep) explains the wait.
W=$KT_BIN/kutrace_why S=$KT_BIN/kutrace_sql
if [ -x "$W" ] && "$A" "$out/a/a.trace" "$out/b/b.trace" -o "$TMP/abt" --tables > /dev/null 2>&1; then
	"$W" "$TMP/abt.tables/*/*" --slowest 10 --method lookup --json > "$TMP/why.json" 2> "$TMP/why.err"
	lr=$("$S" "$TMP/abt.tables/*/*" --csv -c "select r.rpc from lock l join rpc r on r.machine = l.machine
		and r.pid = l.pid and l.ts between r.begin_ts and r.end_ts where l.kind = 'wait' and
		l.machine = 'guestb' and r.method = 'lookup' order by l.dur desc, r.rpc limit 1" | tail -n +2)
	"$W" "$TMP/abt.tables/*/*" --rpc "${lr:-0}" --json > "$TMP/whyl.json" 2>> "$TMP/why.err"
	python3 - "$TMP/why.json" "$TMP/whyl.json" > "$TMP/why.facts" <<'PY'
import json, sys
v = json.load(open(sys.argv[1]))
try:
    lk = json.load(open(sys.argv[2]))
except ValueError:
    lk = []
lk = [lk] if isinstance(lk, dict) else lk    # one target: one object
def share(o):
    return sum(p["dur_ns"] for p in o["path"] if p.get("machine") == "guestb") / o["latency_ns"]
# guest a's wait running into the table lock on guest b: a server thread
# waited for it while its holder slept
locked = [o for o in lk if any(p.get("machine") == "guestb" and p.get("lock") == "tablelock" and
                               p["depth"] >= 2 and p["cause"] == "timer" for p in o["path"])]
print("exact", all(o["latency_ns"] == sum(b["ns"] for b in o["by_cause"]) == sum(p["dur_ns"] for p in o["path"]) for o in v + lk))
print("client", " ".join(sorted({o.get("machine") for o in v + lk})))
print("locked", len(locked))
print("server_pct", int(100 * max(map(share, locked))) if locked else 0)
PY
	w() { awk -v k="$1" '$1 == k { $1 = ""; sub(/^ /, ""); print }' "$TMP/why.facts"; }
	eq "why across hosts: the 10 slowest lookups and the one that waited longest for the lock begin on the client guest" \
		guesta "$(w client)"
	eq "why across hosts: the lookup behind the longest lock wait (rpc $lr) runs from the client's wait into guest b's table lock, held by a sleeping thread" \
		1 "$(w locked)"
	between "why across hosts: ... where most of the latency is the server guest's own path (%)" 50 100 "$(w server_pct)"
	eq "why across hosts: the pieces add up to each latency exactly" True "$(w exact)"
	sed 's/^/#   /' "$TMP/why.err" | head -3
else
	nok "why across hosts: kutrace_align --tables and kutrace_why are there"
fi

# The merged page in Chromium: a sub-header per host, host:cpu rows, the
# messages' arrows, a host closed (tests/browser/align.js).
if browser_ready "align: the merged page"; then
	timeout 300 node tests/browser/align.js "$TMP/ab.html" "$TMP/align.png" guesta guestb > "$TMP/page.out" 2>&1
	relay "align page" "$TMP/page.out"
	[ "$RELAYED" -gt 0 ] || { nok "align page: the browser script ran"; tail -5 "$TMP/page.out"; }
	mkdir -p build/screenshots && cp "$TMP/align.png" build/screenshots/align.png 2>/dev/null
fi

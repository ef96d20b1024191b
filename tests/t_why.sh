#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# kutrace_why (issue 29): the critical path, where the answer is known.
# - A lock chain written row by row as eventtospan writes it
#   (docs/spec/FORMATS.md 5.6): thread A blocks on a futex that B holds while B
#   sleeps 5 ms on a timer; A's wait must be >= 95 % "timer", naming B,
#   reached through B (the waker), and the rest B's own time with the lock.
# - An RPC whose client a network interrupt wakes: followed by its id to
#   the server thread that worked on it.
# - The original KUtrace's hello_world trace: the program's whole life is
#   its own running time, split by what ran; its marked interval too.
# - Every answer's pieces add up to its latency to the nanosecond.
# - A target that does not exist: one line and exit 2.
. "$(dirname "$0")/lib.sh"
W=$KT_BIN/kutrace_why
export LC_ALL=C
REAL=$(real_trace)
if [ ! -x "$W" ]; then
	nok "kutrace_why is built (make deps brings DuckDB)"; exit 0
fi
check "kutrace_why --help" sh -c "'$W' --help | grep -q '^usage: kutrace_why'"

# The lock chain.  Times in 10 ns units after 1.0 s; rows as eventtospan
# writes them: spans per CPU, the waker's runnable point and -wakeup- arc,
# the sleeper's wait row from its last event to the wakeup.
python3 - "$TMP/lock.json" <<'EOF'
import sys
sys.path.insert(0, "tests/tools")
from jsonrows import MS, row, write
# B (pid 200) on CPU 1 takes the lock, then sleeps 5 ms holding it.
row(-10 * MS, -100, 1, 200, 0x10000 + 200, "holder.200")
row(-100, 0, 1, 200, 0x800 + 230, "clock_nanosleep")
row(0, 10, 1, 200, 0xDFF, "-sched-")
row(10, 5 * MS, 1, 0, 0x10000, "-idle-")
# The timer interrupt on idle CPU 1 wakes B.
row(5 * MS, 5 * MS + 100, 1, 0, 0x5EC, "local_timer_vector")
row(5 * MS + 50, 5 * MS + 51, 1, 0, 0x206, "runnable.200", 200)
row(5 * MS + 50, 5 * MS + 110, 1, 0, -3, "-wakeup-", 1, 200)
row(11, 5 * MS + 50, -1, 200, 0x313, "wait_time")
row(5 * MS + 100, 5 * MS + 110, 1, 0, 0xDFF, "-sched-")
# B runs, releases the lock (futex wake), which wakes A.
row(5 * MS + 110, 5 * MS + 1000, 1, 200, 0x10000 + 200, "holder.200")
row(5 * MS + 1000, 5 * MS + 1100, 1, 200, 0x800 + 202, "futex")
row(5 * MS + 1050, 5 * MS + 1051, 1, 200, 0x206, "runnable.100", 100)
row(5 * MS + 1050, 5 * MS + 1300, 1, 200, -3, "-wakeup-", 0, 100)
row(5 * MS + 1100, 6 * MS, 1, 200, 0x10000 + 200, "holder.200")
# A (pid 100) on CPU 0 tries the lock 1 us after B slept, blocks.
row(-10 * MS, 100, 0, 100, 0x10000 + 100, "waiter.100")
row(100, 200, 0, 100, 0x800 + 202, "futex")
row(200, 300, 0, 100, 0xDFF, "-sched-")
row(300, 5 * MS + 1200, 0, 0, 0x10000, "-idle-")
row(301, 5 * MS + 1050, -1, 100, 0x30B, "wait_lock")
row(5 * MS + 1051, 5 * MS + 1300, -1, 100, 0x302, "wait_cpu")
row(5 * MS + 1200, 5 * MS + 1300, 0, 0, 0xDFF, "-sched-")
row(5 * MS + 1300, 6 * MS, 0, 100, 0x10000 + 100, "waiter.100")
write(sys.argv[1])
EOF
# A's interval: from its futex call (1.000001 s) to when it runs again.
"$W" "$TMP/lock.json" --pid 100 --from 1.000001 --to 1.005013 --json > "$TMP/lock.out" 2>"$TMP/e"
if [ -s "$TMP/lock.out" ]; then
	python3 - "$TMP/lock.out" > "$TMP/lock.facts" <<'EOF'
import json, sys
o = json.load(open(sys.argv[1]))
lat = o["latency_ns"]
c = {}
for b in o["by_cause"]:
    c[(b["cause"], b["pid"])] = c.get((b["cause"], b["pid"]), 0) + b["ns"]
print("latency", lat)
print("sum", sum(b["ns"] for b in o["by_cause"]), sum(p["dur_ns"] for p in o["path"]))
print("timer_b_pct", int(100 * c.get(("timer", 200), 0) / lat))
print("lock_b_ns", c.get(("lock", 200), 0))
print("deep", max(p["depth"] for p in o["path"]))
EOF
	f() { awk -v k="$1" '$1 == k { $1 = ""; sub(/^ /, ""); print }' "$TMP/lock.facts"; }
	eq "lock chain: the interval is 5.012 ms" 5012000 "$(f latency)"
	eq "lock chain: the pieces add up to it exactly (by cause, by step)" "5012000 5012000" "$(f sum)"
	between "lock chain: >= 95 % of A's wait is B's timer sleep (timer, pid 200)" 95 100 "$(f timer_b_pct)"
	eq "lock chain: B's running with the lock, 9.4 us, is 'lock' held by pid 200" 9400 "$(f lock_b_ns)"
	eq "lock chain: found through the waker (depth 1)" 1 "$(f deep)"
else
	nok "lock chain: kutrace_why ran: $(tail -1 "$TMP/e")"
fi
"$W" "$TMP/lock.json" --pid 100 --from 1.000001 --to 1.005013 > "$TMP/lock.txt" 2>&1
check "lock chain: the text names the cause and B" grep -q 'timer .*holder (200)' "$TMP/lock.txt"

# An RPC behind a network card: the client sleeps in read until the NIC's
# interrupt wakes it; meanwhile the server thread worked on the same RPC
# id (its rows carry it).  The walk follows the RPC there: the server's
# work and its 2 ms timer sleep, the rest the network.  --pid over the
# same interval has no RPC to follow: all network.
python3 - "$TMP/rpc.json" <<'EOF'
import sys
sys.path.insert(0, "tests/tools")
from jsonrows import MS, row, write
# The client (pid 300, CPU 0) sends RPC 77 and sleeps in read until the
# network card's interrupt wakes it 5 ms later.
row(-MS, 0, 0, 300, 0x10000 + 300, "client.300")
row(0, 1, 0, 300, 0x201, "lookup.77", 77, rpc=77)
row(1, 100, 0, 300, 0x10000 + 300, "client.300", rpc=77)
row(100, 200, 0, 300, 0x800 + 0, "read", rpc=77)
row(200, 210, 0, 300, 0xDFF, "-sched-", rpc=77)
row(210, 5 * MS, 0, 0, 0x10000, "-idle-")
row(211, 5 * MS + 50, -1, 300, 0x30D, "wait_net", rpc=77)
row(5 * MS, 5 * MS + 100, 0, 0, 0x522, "virtio0-input.0")
row(5 * MS + 50, 5 * MS + 51, 0, 0, 0x206, "runnable.300", 300)
row(5 * MS + 50, 5 * MS + 110, 0, 0, -3, "-wakeup-", 0, 300)
row(5 * MS + 100, 5 * MS + 110, 0, 0, 0xDFF, "-sched-")
row(5 * MS + 110, 6 * MS, 0, 300, 0x10000 + 300, "client.300", rpc=77)
row(6 * MS, 6 * MS + 1, 0, 300, 0x202, "lookup.77", 77, rpc=77)
row(6 * MS + 1, 7 * MS, 0, 300, 0x10000 + 300, "client.300")
# The server (pid 400, CPU 1), behind the network: the request's work 1 ms,
# a 2 ms timer sleep (its log write), 0.5 ms more, the answer sent.
row(-MS, MS, 1, 0, 0x10000, "-idle-")
row(MS, MS + 1, 1, 400, 0x201, "lookup.77", 77, rpc=77)
row(MS + 1, 2 * MS, 1, 400, 0x10000 + 400, "server.400", rpc=77)
row(2 * MS, 2 * MS + 100, 1, 400, 0x800 + 230, "clock_nanosleep", rpc=77)
row(2 * MS + 100, 2 * MS + 110, 1, 400, 0xDFF, "-sched-", rpc=77)
row(2 * MS + 110, 4 * MS, 1, 0, 0x10000, "-idle-")
row(2 * MS + 111, 4 * MS + 50, -1, 400, 0x313, "wait_time", rpc=77)
row(4 * MS, 4 * MS + 100, 1, 0, 0x5EC, "local_timer_vector")
row(4 * MS + 50, 4 * MS + 51, 1, 0, 0x206, "runnable.400", 400)
row(4 * MS + 50, 4 * MS + 110, 1, 0, -3, "-wakeup-", 1, 400)
row(4 * MS + 100, 4 * MS + 110, 1, 0, 0xDFF, "-sched-")
row(4 * MS + 110, 4 * MS + 50000, 1, 400, 0x10000 + 400, "server.400", rpc=77)
row(4 * MS + 50000, 4 * MS + 50100, 1, 400, 0x800 + 44, "sendto", rpc=77)
row(4 * MS + 50100, 4 * MS + 50101, 1, 400, 0x202, "lookup.77", 77, rpc=77)
row(4 * MS + 50101, 7 * MS, 1, 400, 0x10000 + 400, "server.400")
write(sys.argv[1])
EOF
"$W" "$TMP/rpc.json" --rpc 77 --json > "$TMP/rpc.out" 2>"$TMP/e"
"$W" "$TMP/rpc.json" --pid 300 --from 1.0 --to 1.00600001 --json > "$TMP/rpcpid.out" 2>>"$TMP/e"
by() { python3 -c 'import json,sys; o=json.load(open(sys.argv[1])); print(o["latency_ns"], sum(p["dur_ns"] for p in o["path"]), " ".join("%s/%s/%d" % (b["cause"], b["name"], b["ns"]) for b in o["by_cause"][:3]))' "$1" 2>&1; }
eq "rpc behind a NIC: the server's timer sleep, its work (reached by the RPC id), the network; exact" \
	"6000010 6000010 timer/server/1999400 network/server/1501000 network/virtio0-input.0/1497390" "$(by "$TMP/rpc.out")"
eq "... the same interval as --pid: the whole sleep is the network's interrupt" \
	"6000010 6000010 network/virtio0-input.0/4998400 running/user code/999900 running/read/1000" "$(by "$TMP/rpcpid.out")"

# A trace without wakeups (an old JSON): running and blocked time still
# exact, and the answer says which causes it cannot see.
grep -v -e ', -3, ' -e ', 518, ' "$TMP/rpc.json" > "$TMP/nowake.json"
"$W" "$TMP/nowake.json" --pid 300 > "$TMP/nowake.txt" 2>&1
check "no wakeups: the text says which causes it cannot see" \
	grep -q "^note: this trace has no wakeups: a sleep's cause (lock, pipe, timer, disk, network" "$TMP/nowake.txt"
eq "no wakeups: the sleep is unknown, running its own, exact (--json with \"unseen\")" \
	"8000000 8000000 unknown/client/4999000 running/user code/2999900 running/read/1000 True" \
	"$("$W" "$TMP/nowake.json" --pid 300 --json > "$TMP/nowake.out" 2>&1; by "$TMP/nowake.out") $(python3 -c 'import json,sys; print("unseen" in json.load(open(sys.argv[1])))' "$TMP/nowake.out" 2>&1)"

# --html PAGE: the answers after the page's end; the same target again
# replaces its answer, another is added; a file that is not a timeline
# page is refused in one line and left as it was.
"$KT_BIN/makeself" - "$TMP/rpc.json" "$TMP/rpc.html" > /dev/null 2>&1
if [ -s "$TMP/rpc.html" ]; then
	cp "$TMP/rpc.html" "$TMP/rpc0.html"
	"$W" "$TMP/rpc.json" --rpc 77 --html "$TMP/rpc.html" > /dev/null 2>&1
	"$W" "$TMP/rpc.json" --rpc 77 --html "$TMP/rpc.html" > /dev/null 2>&1
	"$W" "$TMP/rpc.json" --pid 400 --html "$TMP/rpc.html" > /dev/null 2>&1
	eq "--html: two targets' answers after the page (the same target once)" "rpc 77 lookup|pid 400" \
		"$(python3 -c 'import json,sys; s=open(sys.argv[1]).read(); t="<script type=\"application/json\" id=\"ktwhy\">"; j=s[s.rindex(t)+len(t):s.rindex("</script>")]; print("|".join(o["target"] for o in json.loads(j)))' "$TMP/rpc.html" 2>&1)"
	eq "--html: the page before it is unchanged" "$(stat -c %s "$TMP/rpc0.html")" \
		"$(cmp "$TMP/rpc0.html" "$TMP/rpc.html" 2>&1 | sed -n 's/.*EOF on [^ ]* after byte \([0-9]*\).*/\1/p')"
else
	nok "--html: makeself wrote rpc.html"
fi
cp "$TMP/rpc.json" "$TMP/notpage.json"
"$W" "$TMP/rpc.json" --rpc 77 --html "$TMP/notpage.json" > /dev/null 2>"$TMP/e"; rc=$?
check "--html on a file that is not a timeline page: one line, exit 1, the file untouched" \
	sh -c "[ $rc = 1 ] && [ \$(wc -l < '$TMP/e') = 1 ] && grep -q 'not a kutrace timeline page' '$TMP/e' && cmp -s '$TMP/rpc.json' '$TMP/notpage.json'"

# A trace as input: its store is temporary, and goes also when the reader
# of the output went first (SIGPIPE: `kutrace_why X.trace ... | head`).
mkdir -p "$TMP/tw"
TMPDIR=$TMP/tw "$W" tests/golden/rpc.trace --slowest 3 | true
eq "a trace's temporary store is removed on SIGPIPE" "" "$(ls -A "$TMP/tw")"

# The original KUtrace's trace of hello_world.
if [ -f "$REAL" ]; then
	cp "$REAL" "$TMP/hw.json"
	"$W" "$TMP/hw.json" --pid 8292 --json > "$TMP/hw.out" 2>"$TMP/e"
	eq "hello_world_demo --pid 8292: its whole life (1700.3 us), all its own running time" \
		"1700300 1700300 running" \
		"$(python3 -c 'import json,sys; o=json.load(open(sys.argv[1])); print(o["latency_ns"], sum(b["ns"] for b in o["by_cause"]), " ".join(sorted({b["cause"] for b in o["by_cause"]})))' "$TMP/hw.out")"
	eq "hello_world_demo: split by what ran (execve, page faults, write, user code ...)" \
		"473460 16660 584980" \
		"$(python3 -c 'import json,sys; o=json.load(open(sys.argv[1])); d={b["name"]: b["ns"] for b in o["by_cause"]}; print(d.get("execve"), d.get("write"), d.get("user code"))' "$TMP/hw.out")"
	eq "hello_world_demo --mark hello: hello to /hello, 154.35 us" 154350 \
		"$("$W" "$TMP/hw.json" --mark hello --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["latency_ns"])')"
	# Every thread's whole life: pieces add up, on a trace with real waits.
	bad=0 n=0
	for p in 7944 1210 1562 8287; do
		"$W" "$TMP/hw.json" --pid $p --json > "$TMP/p.out" 2>/dev/null || { bad=$((bad + 1)); continue; }
		python3 -c 'import json,sys; o=json.load(open(sys.argv[1])); sys.exit(o["latency_ns"] != sum(b["ns"] for b in o["by_cause"]) or o["latency_ns"] != sum(p["dur_ns"] for p in o["path"]))' "$TMP/p.out" || bad=$((bad + 1))
		n=$((n + 1))
	done
	eq "hello_world_demo: 4 threads' whole lives add up exactly" "4 0" "$n $bad"
else
	skip "hello_world_demo: $REAL not found"
fi

# --save: the steps as the store's table critical_path, summed in SQL.
S=$KT_BIN/kutrace_sql
"$S" build "$TMP/lock.json" -o "$TMP/lock.tables" 2>/dev/null
"$W" "$TMP/lock.tables" --pid 100 --from 1.000001 --to 1.005013 --save > /dev/null 2>"$TMP/e"
eq "--save: critical_path in the store; per target its steps sum to the latency" "pid 100,5012000,5012000,4997500" \
	"$("$S" "$TMP/lock.tables" --csv -c "select target, sum(dur), any_value(latency_ns), sum(dur) filter (where cause = 'timer' and pid = 200) from critical_path group by target" | tail -n +2)"
"$W" "$TMP/lock.json" --pid 100 --save > /dev/null 2>"$TMP/e"; rc=$?
check "--save on a JSON file (no store to add to): one line, exit 1" \
	sh -c "[ $rc = 1 ] && [ \$(wc -l < '$TMP/e') = 1 ] && grep -q 'not a table store' '$TMP/e'"

# A target that does not exist: one line, exit 2.
two() {
	local what=$1; shift
	"$@" > /dev/null 2> "$TMP/be"; local rc=$?
	if [ $rc = 2 ] && [ "$(wc -l < "$TMP/be")" = 1 ]; then ok "$what"
	else nok "$what (exit $rc: $(head -2 "$TMP/be" | tr '\n' '|'))"; fi
}
two "no such pid: one line, exit 2" "$W" "$TMP/lock.json" --pid 4242
two "an interval outside the trace: one line, exit 2" "$W" "$TMP/lock.json" --pid 100 --from 50 --to 60
two "no such RPC: one line, exit 2" "$W" "$TMP/lock.json" --rpc 7
two "no such mark: one line, exit 2" "$W" "$TMP/lock.json" --mark nosuch
two "no target: one line, exit 2" "$W" "$TMP/lock.json"

# A store is files anyone can rewrite (issue 48, item 4): every value read
# may be NULL or out of range.  One column of one table rewritten by
# DuckDB; kutrace_why says which table and column in one line, exit 1,
# no signal.
"$S" build "$TMP/rpc.json" -o "$TMP/good.tables" 2>/dev/null
# damaged NAME TABLE EXPR: a copy of the store whose TABLE has EXPR for a column
damaged() {
	rm -rf "$TMP/$1.tables"
	cp -r "$TMP/good.tables" "$TMP/$1.tables"
	"$S" "$TMP/$1.tables" -c "COPY (SELECT * REPLACE ($3) FROM $2) TO '$TMP/$1.parquet' (FORMAT parquet)" > /dev/null &&
		mv "$TMP/$1.parquet" "$TMP/$1.tables/$2.parquet"
}
# bad WHAT MESSAGE ARGS...: one line naming the column, exit 1
bad() {
	local what=$1 msg=$2; shift 2
	"$W" "$@" > /dev/null 2> "$TMP/be"; local rc=$?
	if [ $rc = 1 ] && [ "$(wc -l < "$TMP/be")" = 1 ] && grep -q "$msg" "$TMP/be"; then ok "$what"
	else nok "$what (exit $rc: $(head -2 "$TMP/be" | tr '\n' '|'))"; fi
}
damaged nullstate thread_state "NULL::VARCHAR AS state"
bad "thread_state.state NULL, --pid: one line naming it, exit 1" \
	"nullstate.tables: thread_state.state is NULL in row" "$TMP/nullstate.tables" --pid 300
bad "thread_state.state NULL, --rpc: one line naming it, exit 1" \
	"thread_state.state is NULL" "$TMP/nullstate.tables" --rpc 77 --json
damaged nullname span "NULL::VARCHAR AS name"
bad "span.name NULL, --rpc --json: one line naming it, exit 1" \
	"nullname.tables: span.name is NULL in row" "$TMP/nullname.tables" --rpc 77 --json
damaged nullcpu thread_state "CASE WHEN pid = 400 THEN NULL ELSE cpu END AS cpu"
bad "thread_state.cpu NULL: one line naming it, exit 1" \
	"thread_state.cpu is NULL" "$TMP/nullcpu.tables" --rpc 77
# (a sum that overflows in SQL is DuckDB's own one-line error)
damaged bigdur sched_slice "CAST(4000000000000000000 AS BIGINT) AS dur"
bad "sched_slice.dur of 4e18 ns: out of range, one line, exit 1" \
	"sched_slice.dur is out of range (4000000000000000000)" "$TMP/bigdur.tables" --rpc 77
damaged bigpid rpc "CAST(pid AS BIGINT) + 4294967296 AS pid"
bad "rpc.pid beyond 32 bits: out of range, one line, exit 1" \
	"rpc.pid is out of range" "$TMP/bigpid.tables" --rpc 77
damaged nullwho thread "NULL::INTEGER AS pid"
bad "thread.pid NULL: one line naming it, exit 1" "thread.pid is NULL" "$TMP/nullwho.tables" --rpc 77
"$W" "$TMP/good.tables" --rpc 77 --json > /dev/null 2> "$TMP/be"
eq "the store they were made from is sound" "0" "$?"

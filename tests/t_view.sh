#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# kutrace_view (issue 31), the viewer's local server, with curl:
# - the URL is the first line of output: 127.0.0.1, a port, a 32-hex token;
# - every refusal with its status: no token, a wrong one, a foreign Host
#   (DNS rebinding) or Origin, a path outside its own (../ too), a method
#   other than GET, a connection to a non-loopback address; the token as cookie (set by the page, HttpOnly,
#   SameSite=Strict) and as header are taken;
# - the page's rows are kutrace_postproc's rows of the same trace (basic
#   golden trace), the real trace's page holds every span;
# - the data API against the store's own SQL: table counts, per-CPU tile
#   sums and bucket counts, a window's rows; the level of detail's bins,
#   long spans and windows (lodmeta, lod, window);
# - the store removed under it: one line in the terminal, errors to the
#   page's requests, the server still answering;
# - hostile stores and requests (issue 48): a link or a FIFO as a store's
#   file refused at once (the server, kutrace_sql, kutrace_why), 1,100
#   idle connections, too many arguments, a too long URL, numbers out of
#   range in a request or STORE/lod/meta;
# - a page and a store as inputs; the browser started only without
#   --no-browser ($BROWSER); SIGINT: exit 0, the temporary store removed.
. "$(dirname "$0")/lib.sh"
V=$KT_BIN/kutrace_view
Q=$KT_BIN/kutrace_sql
export LC_ALL=C
if [ ! -x "$V" ]; then
	nok "kutrace_view is built (make deps brings DuckDB; apt-get install libmicrohttpd-dev)"; exit 0
fi
if ! command -v curl >/dev/null; then skip "kutrace_view: no curl"; exit 0; fi
REAL=$(real_trace)
check "kutrace_view --help" sh -c "'$V' --help | grep -q '^usage: kutrace_view'"
check "kutrace_view without input: usage, exit 2" sh -c "'$V' >/dev/null 2>&1; [ \$? = 2 ]"

# start NAME INPUT [ARGS]: a server in the background, its URL in $URL,
# port $PORT, token $TOK, base $B; its output in $TMP/NAME.{out,err}.
start() {
	local name=$1 i; shift
	"$V" "$@" > "$TMP/$name.out" 2> "$TMP/$name.err" &
	PID=$!
	for i in $(seq 600); do
		[ -s "$TMP/$name.out" ] && break
		kill -0 $PID 2>/dev/null || break
		sleep 0.1
	done
	URL=$(head -1 "$TMP/$name.out")
	PORT=${URL#http://127.0.0.1:}; PORT=${PORT%%/*}
	TOK=${URL##*\?t=}
	B=http://127.0.0.1:$PORT
}
# code [CURL ARGS] URL: the status of one request
code() { curl -s -o /dev/null -w '%{http_code}' "$@"; }
get() { curl -s -f "$@"; }
sql() { "$Q" "$STORE" --csv -c "$1" | tail -n +2; }

mkdir -p "$TMP/tmpd"
TMPDIR=$TMP/tmpd start real "$REAL" --no-browser
if ! echo "$URL" | grep -Eq '^http://127\.0\.0\.1:[0-9]+/\?t=[0-9a-f]{32}$'; then
	nok "first line is the URL with its token (got '$URL')"; cat "$TMP/real.err"; kill $PID; exit 0
fi
ok "first line is the URL with its token"
STORE=$(ls -d "$TMP"/tmpd/kutrace_sql.*/0-*.tables 2>/dev/null | head -1)
check "a JSON input gets a temporary store" test -f "$STORE/meta.json"

# Refusals, each with its status.
eq "no token: 403" 403 "$(code "$B/")"
# (its last digit changed: 0 -> 1, else -> 0)
WRONG=${TOK%?}$([ "${TOK: -1}" = 0 ] && echo 1 || echo 0)
eq "a wrong token: 403" 403 "$(code "$B/?t=$WRONG")"
eq "a token one character short: 403" 403 "$(code "$B/?t=${TOK%?}")"
eq "a foreign Host (DNS rebinding): 403" 403 "$(code -H "Host: evil.example:$PORT" "$URL")"
eq "Host 127.0.0.1 on another port: 403" 403 "$(code -H "Host: 127.0.0.1:1" "$URL")"
eq "Host localhost:PORT: 200" 200 "$(code -H "Host: localhost:$PORT" "$URL")"
eq "a foreign Origin: 403" 403 "$(code -H "Origin: http://evil.example" "$URL")"
eq "its own Origin: 200" 200 "$(code -H "Origin: http://127.0.0.1:$PORT" "$URL")"
eq "a path outside its own (/../): 404" 404 "$(code --path-as-is "$B/../etc/passwd?t=$TOK")"
eq "a path outside its own (%2e%2e): 404" 404 "$(code --path-as-is "$B/%2e%2e/%2e%2e/etc/passwd?t=$TOK")"
eq "an unknown path: 404" 404 "$(code "$B/viewer.js?t=$TOK")"
eq "an unknown API: 404" 404 "$(code "$B/api/sql?t=$TOK")"
eq "an unknown path without the token: 403" 403 "$(code "$B/etc/passwd")"
# Another address of this machine is not loopback: nothing listens there.
IP=$(hostname -I 2>/dev/null | tr ' ' '\n' | grep -v '^127\.' | grep -m1 '\.')
if [ -n "$IP" ]; then
	eq "its port on a non-loopback address ($IP): no connection" 000 \
		"$(code --connect-timeout 3 -H "Host: 127.0.0.1:$PORT" "http://$IP:$PORT/?t=$TOK")"
else
	skip "a non-loopback address: this machine has none"
fi
eq "POST: 405" 405 "$(code -X POST "$B/api/meta?t=$TOK")"
eq "the token as header: 200" 200 "$(code -H "X-Kutrace-Token: $TOK" "$B/api/meta")"
eq "the token as the page's cookie: 200" 200 "$(code -H "Cookie: kutrace_$PORT=$TOK" "$B/api/meta")"
eq "a wrong cookie: 403" 403 "$(code -H "Cookie: kutrace_$PORT=x$TOK" "$B/api/meta")"
eq "a bad window: 400" 400 "$(code "$B/api/tiles?t=$TOK&t0=5&t1=5&n=10")"
eq "too many buckets: 400" 400 "$(code "$B/api/tiles?t=$TOK&t0=0&t1=5&n=100001")"
# /api/why: kutrace_why's answer for the viewer (why.js), byte for byte;
# a spec that is not one is refused before anything runs.
W=$KT_BIN/kutrace_why
for sp in pid:8292 mark:hello; do
	"$W" "$STORE" --${sp%%:*} "${sp#*:}" --json > "$TMP/why.want" 2>/dev/null
	get "$B/api/why?t=$TOK&spec=$sp" > "$TMP/why.got"
	check "why $sp: kutrace_why's --json answer" sh -c "[ -s '$TMP/why.want' ] && cmp -s '$TMP/why.want' '$TMP/why.got'"
done
eq "why pid:P:T1:T2: that interval (clipped to the thread's life, 1700.3 us)" 1700300 \
	"$(get "$B/api/why?t=$TOK&spec=pid:8292:0.0:99999.0" | python3 -c 'import json,sys; print(json.load(sys.stdin)["latency_ns"])' 2>&1)"
eq "why of a target not in the trace: 404 and kutrace_why's line" "404 kutrace_why: --rpc 5: no such RPC in the trace" \
	"$(curl -s -w '%{http_code}' -o "$TMP/why.404" "$B/api/why?t=$TOK&spec=rpc:5") $(cat "$TMP/why.404")"
for bad in 'rpc:5;id' 'rpc:abc' 'pid:1:2' 'mark:a%20b' 'sql:1' 'mark:-x' ''; do
	eq "why spec '$bad': 400" 400 "$(code "$B/api/why?t=$TOK&spec=$bad")"
done
eq "why without the token: 403" 403 "$(code "$B/api/why?spec=pid:8292")"
curl -s -D "$TMP/hdr" -o "$TMP/real.html" "$URL"
check "the page sets the token cookie, HttpOnly, SameSite=Strict" \
	grep -qi "^set-cookie: kutrace_$PORT=$TOK; Path=/; HttpOnly; SameSite=Strict" "$TMP/hdr"
check "the page is sent with no-referrer (the token is in its URL)" \
	grep -qi '^referrer-policy: no-referrer' "$TMP/hdr"
check "the page tells the viewer a server is there" grep -q 'id="ktserver"' "$TMP/real.html"
"$KT_BIN/unmakeself" "$TMP/real.html" > "$TMP/real.page.json" 2>/dev/null
N=$(sql "SELECT count(*) FROM span")
eq "the page holds every span of the store" "$N" "$(grep -c '^\[ *[0-9]' "$TMP/real.page.json" | awk '{print $1 - 1}')"

# The data API against the store's own SQL.
get "$B/api/meta?t=$TOK" > "$TMP/meta.json"
eq "meta: span count" "$N" "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["tables"]["span"])' "$TMP/meta.json")"
eq "meta: sched_slice count" "$(sql "SELECT count(*) FROM sched_slice")" \
	"$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["tables"]["sched_slice"])' "$TMP/meta.json")"
EX="cpu >= 0 AND ((event BETWEEN 1024 AND 4095) OR event BETWEEN 65536 AND 131072)"
read -r T0 T1 <<< "$(sql "SELECT min(ts), max(ts) + 1 FROM span WHERE $EX" | tr , ' ')"
# A window inside the trace, so that clipping matters, and 700 buckets.
W0=$((T0 + (T1 - T0) / 5)) W1=$((T1 - (T1 - T0) / 4)) NB=700
get "$B/api/tiles?t=$TOK&t0=$W0&t1=$W1&n=$NB" > "$TMP/tiles.json"
python3 - "$TMP/tiles.json" > "$TMP/tiles.sum" <<'EOF'
import json, sys
t = json.load(open(sys.argv[1]))
for cpu, bs in sorted(t["cpus"].items(), key=lambda kv: int(kv[0])):
    w = lambda b, k: b[3 + k] * (10 if k else 1)
    dom = sum(1 for b in bs if all(w(b, b[1]) >= w(b, k) for k in range(3)))
    print(cpu, len(bs), sum(b[2] for b in bs), sum(b[3] + b[4] + b[5] for b in bs), dom == len(bs))
EOF
sql "SELECT cpu, count(DISTINCT (ts - $W0) * $NB // ($W1 - $W0)), count(*), sum(dur), true
     FROM span WHERE $EX AND ts >= $W0 AND ts < $W1 GROUP BY cpu ORDER BY cpu" |
	tr , ' ' | sed 's/ true$/ True/' > "$TMP/tiles.sql"
same_file "tiles: per CPU, the buckets, rows and time of the store's SQL, each kind the dominant one" "$TMP/tiles.sql" "$TMP/tiles.sum"
check "tiles cover more than one CPU and a hundred buckets" \
	awk '{ n++; b += $2 } END { exit !(n > 1 && b > 100) }' "$TMP/tiles.sum"
# The kind of each bucket, from SQL alone: the largest of idle, 10 x user,
# 10 x kernel time (docs/spec/VIEWER.md 3.4), ties to user, then kernel.
sql "SELECT cpu, b, arg_max(k, CASE k WHEN 0 THEN ns ELSE 10 * ns END * 4 + CASE k WHEN 1 THEN 2 WHEN 2 THEN 1 ELSE 0 END) FROM (SELECT cpu, (ts - $W0) * $NB // ($W1 - $W0) AS b,
       CASE WHEN event IN (65536, 131072) THEN 0 WHEN event > 65536 THEN 1 ELSE 2 END AS k, sum(dur) AS ns
     FROM span WHERE $EX AND ts >= $W0 AND ts < $W1 GROUP BY ALL) GROUP BY cpu, b ORDER BY cpu, b" > "$TMP/dom.sql"
python3 -c '
import json, sys
for cpu, bs in sorted(json.load(open(sys.argv[1]))["cpus"].items(), key=lambda kv: int(kv[0])):
    for b in bs: print("%s,%d,%d" % (cpu, b[0], b[1]))' "$TMP/tiles.json" > "$TMP/dom.api"
same_file "tiles: each bucket's kind is the one the store's SQL picks (VIEWER 3.4)" "$TMP/dom.sql" "$TMP/dom.api"
# The last user and kernel event of each bucket (the colour), by rank.
for k in 1 2; do
	sql "SELECT cpu, b, event FROM (SELECT cpu, (ts - $W0) * $NB // ($W1 - $W0) AS b, event,
	       row_number() OVER (PARTITION BY cpu, b ORDER BY ts DESC) AS rn
	     FROM span WHERE $EX AND ts >= $W0 AND ts < $W1 AND
	       $([ $k = 1 ] && echo 'event > 65536 AND event < 131072' || echo 'event < 65536'))
	     WHERE rn = 1 ORDER BY cpu, b" > "$TMP/last$k.sql"
	python3 -c '
import json, sys
k = int(sys.argv[2])
for cpu, bs in sorted(json.load(open(sys.argv[1]))["cpus"].items(), key=lambda kv: int(kv[0])):
    for b in bs:
        if b[5 + k] >= 0: print("%s,%d,%d" % (cpu, b[0], b[5 + k]))' "$TMP/tiles.json" $k > "$TMP/last$k.api"
	same_file "tiles: each bucket's last $([ $k = 1 ] && echo user || echo kernel) event is the store's" "$TMP/last$k.sql" "$TMP/last$k.api"
done
check "tiles: buckets of each kind" sh -c "cut -d, -f3 '$TMP/dom.api' | sort -u | tr -d '\n' | grep -qx 012"
get "$B/api/rows?t=$TOK&cpu=0&t0=$W0&t1=$W1" > "$TMP/rows.json"
eq "rows: a window of CPU 0 has the store's rows" \
	"$(sql "SELECT count(*) FROM span WHERE cpu = 0 AND ts < $W1 AND ts + dur > $W0")" \
	"$(python3 -c 'import json,sys; r = json.load(open(sys.argv[1])); print(len(r["rows"]) if not r["more"] else -1)' "$TMP/rows.json")"
eq "rows: a limit says there are more" "3 True" \
	"$(get "$B/api/rows?t=$TOK&cpu=0&t0=$W0&t1=$W1&limit=3" | python3 -c 'import json,sys; r = json.load(sys.stdin); print(len(r["rows"]), r["more"])')"

# The level of detail (VIEWER 3.4.1) against the store's own SQL: the
# CPUs and their execution spans, a tile's bins (rows and ns per kind, the
# last user and kernel event), its long spans; a window of every CPU.
LX="cpu >= 0 AND ((event >= 0 AND event < 512) OR (event >= 1024 AND event < 4096) OR event >= 65536)"
get "$B/api/lodmeta?t=$TOK" > "$TMP/lodmeta.json"
eq "lodmeta: spans, first start, per CPU the execution spans" \
	"$N $(sql "SELECT min(ts) // 10 FROM span") $(sql "SELECT string_agg(cpu || ':' || n, ' ' ORDER BY cpu) FROM (SELECT cpu, count(*) FILTER (WHERE $LX) n FROM span WHERE cpu >= 0 AND event >= 0 GROUP BY cpu)")" \
	"$(python3 -c 'import json,sys; m = json.load(open(sys.argv[1])); print(m["n"], m["t0"], " ".join("%d:%d" % (c[0], c[1]) for c in m["cpus"]))' "$TMP/lodmeta.json")"
TS0=$(sql "SELECT min(ts) FROM span") QB=65536
get "$B/api/lod?t=$TOK&q=$QB&a=100&b=2000" > "$TMP/lod.json"
sql "SELECT cpu, (ts - $TS0) // $QB AS b, count(*), coalesce(sum(dur) FILTER (WHERE event IN (65536, 131072)), 0),
	coalesce(sum(dur) FILTER (WHERE event > 65536 AND event <> 131072), 0), coalesce(sum(dur) FILTER (WHERE event < 65536), 0), arg_max(event, ts) FILTER (WHERE event > 65536 AND event <> 131072), arg_max(event, ts) FILTER (WHERE event < 65536)
	FROM span WHERE $LX AND ts >= $TS0 + 100 * $QB AND ts < $TS0 + 2000 * $QB GROUP BY ALL ORDER BY cpu, b" > "$TMP/lod.sql"
python3 -c 'import json,sys
m = json.load(open(sys.argv[1]))
for c in sorted(m["cpus"], key=int):
    for b in m["cpus"][c]:
        print(",".join(str(x) for x in [c, b[0], b[6]] + b[1:4] + [x if x >= 0 else "" for x in b[4:6]]))' "$TMP/lod.json" > "$TMP/lod.api"
same_file "lod: per CPU the bins of the store's SQL (rows, ns per kind, last user and kernel event)" "$TMP/lod.sql" "$TMP/lod.api"
check "lod: bins on more than one CPU, a hundred of them" sh -c "cut -d, -f1 '$TMP/lod.api' | sort -u | wc -l | grep -qv '^1$' && [ \$(wc -l < '$TMP/lod.api') -gt 100 ]"
eq "lod: the long spans (2 bins or longer) overlapping the bins" \
	"$(sql "SELECT count(*) FROM span WHERE $LX AND dur >= 2 * $QB AND ts < $TS0 + 2000 * $QB AND ts + dur > $TS0 + 100 * $QB")" \
	"$(python3 -c 'import json,sys; m = json.load(open(sys.argv[1])); print(len(m["long"]))' "$TMP/lod.json")"
# The PID rows (rows=pid): every pid > 0 of a user-mode span or a
# left/right mark, its execution spans on any CPU, its label the name of
# the first of those; their bins and long spans as the CPU rows'.
PX="pid > 0 AND ((event >= 0 AND event < 512) OR (event >= 1024 AND event < 4096) OR event >= 65536)"
eq "lodmeta: per PID row the execution spans and the label" \
	"$(sql "SELECT string_agg(pid || ':' || n || ':' || l, ' ' ORDER BY pid) FROM (SELECT pid, count(*) FILTER (WHERE $PX) n,
		arg_min(name, rn) FILTER (WHERE (event > 65536 AND event < 131072) OR event IN (526, 527)) l FROM (SELECT *, row_number() OVER () rn FROM span)
		WHERE pid > 0 AND event >= 0 GROUP BY pid HAVING l IS NOT NULL)")" \
	"$(python3 -c 'import json,sys; m = json.load(open(sys.argv[1])); print(" ".join("%d:%d:%s" % (p[0], p[1], p[6]) for p in m["pids"]))' "$TMP/lodmeta.json")"
# lod_rows KIND X: /api/lod?rows=KIND (pid, rpc), bins 100 to 1999 of QB
# ns, against the store's SQL over the spans X: per KIND the bins, and the
# long spans ($TMP/lodKIND.json).
lod_rows() {
	local k=$1 x=$2 f=$TMP/lod$1
	get "$B/api/lod?t=$TOK&q=$QB&a=100&b=2000&rows=$k" > "$f.json"
	sql "SELECT $k, (ts - $TS0) // $QB AS b, count(*), coalesce(sum(dur) FILTER (WHERE event IN (65536, 131072)), 0),
		coalesce(sum(dur) FILTER (WHERE event > 65536 AND event <> 131072), 0), coalesce(sum(dur) FILTER (WHERE event < 65536), 0), arg_max(event, ts) FILTER (WHERE event > 65536 AND event <> 131072), arg_max(event, ts) FILTER (WHERE event < 65536)
		FROM span WHERE $x AND ts >= $TS0 + 100 * $QB AND ts < $TS0 + 2000 * $QB GROUP BY ALL ORDER BY $k, b" > "$f.sql"
	python3 -c 'import json,sys
m = json.load(open(sys.argv[1]))
for c in sorted(m[sys.argv[2]], key=int):
    for b in m[sys.argv[2]][c]:
        print(",".join(str(x) for x in [c, b[0], b[6]] + b[1:4] + [x if x >= 0 else "" for x in b[4:6]]))' "$f.json" "${k}s" > "$f.api"
	same_file "lod, rows=$k: per $k the bins of the store's SQL" "$f.sql" "$f.api"
	eq "lod, rows=$k: the long spans of $k > 0" \
		"$(sql "SELECT count(*) FROM span WHERE $x AND dur >= 2 * $QB AND ts < $TS0 + 2000 * $QB AND ts + dur > $TS0 + 100 * $QB")" \
		"$(python3 -c 'import json,sys; m = json.load(open(sys.argv[1])); print(len(m["long"]))' "$f.json")"
}
lod_rows pid "$PX"
eq "lod, rows=pid: bins of more than one pid, twenty of them, no CPU's" "True True False" \
	"$(python3 -c 'import json,sys; m = json.load(open(sys.argv[1])); print(len(m["pids"]) > 1, sum(map(len, m["pids"].values())) > 20, "cpus" in m)' "$TMP/lodpid.json")"
eq "lod: rows neither cpu, pid nor rpc: 400" 400 "$(code "$B/api/lod?t=$TOK&q=$QB&a=0&b=10&rows=gpu")"
eq "lod: too many bins: 400" 400 "$(code "$B/api/lod?t=$TOK&q=1&a=0&b=65537")"
eq "lod: no width: 400" 400 "$(code "$B/api/lod?t=$TOK&q=0&a=0&b=10")"
eq "window: every CPU's rows of the window" \
	"$(sql "SELECT count(*) FROM span WHERE ts < $W1 AND ts + dur > $W0")" \
	"$(get "$B/api/window?t=$TOK&t0=$W0&t1=$W1" | python3 -c 'import json,sys; r = json.load(sys.stdin); print(len(r["rows"]) if not r["more"] else -1)')"
check "the page without rows (?summary=1) says so" sh -c "curl -s '$URL&summary=1' | grep -q '\"summary\":true'"

kill -INT $PID; wait $PID; eq "SIGINT: exit 0" 0 $?
eq "SIGINT: the temporary store is removed" "" "$(ls "$TMP/tmpd")"
check "SIGINT: the terminal says it stopped" grep -q '^kutrace_view: stopped$' "$TMP/real.err"

# A trace: the page's rows are kutrace_postproc's rows.
start trace tests/golden/basic.trace --no-browser
curl -s -o "$TMP/basic.html" "$URL"
"$KT_BIN/unmakeself" "$TMP/basic.html" 2>/dev/null | grep '^\[ *[0-9]' | grep -v '^\[ *999' > "$TMP/basic.view"
"$KT_BIN/kutrace_postproc" tests/golden/basic.trace x --no-html -o "$TMP/basic.json" 2>/dev/null
grep '^\[ *[0-9]' "$TMP/basic.json" | grep -v '^\[ *999' > "$TMP/basic.rows"
same_file "a trace: the page's rows are kutrace_postproc's" "$TMP/basic.rows" "$TMP/basic.view"
kill $PID; wait $PID; eq "SIGTERM: exit 0" 0 $?

# A page as input: the same rows again.
"$KT_BIN/makeself" - "$TMP/basic.json" "$TMP/basic.page.html" 2>/dev/null
start page "$TMP/basic.page.html" --no-browser
curl -s -o "$TMP/basic2.html" "$URL"
"$KT_BIN/unmakeself" "$TMP/basic2.html" 2>/dev/null | grep '^\[ *[0-9]' | grep -v '^\[ *999' > "$TMP/basic2.view"
same_file "a page as input: the same rows" "$TMP/basic.rows" "$TMP/basic2.view"
kill $PID; wait $PID

# A store removed under the server.
"$Q" build "$REAL" -o "$TMP/st.tables" >/dev/null 2>&1
# The precomputed level of detail (STORE/lod/): made once (--prepare), and
# its tiles are those made from span, at a level of it and at one finer.
"$V" "$TMP/st.tables" --prepare --pyramid-min 0 2> "$TMP/prep.err"
eq "--prepare: exit 0, the levels said" "0 1" "$? $(grep -c 'level of detail ready' "$TMP/prep.err")"
check "--prepare: STORE/lod/ with its levels, no temporary left" sh -c "test -s '$TMP/st.tables/lod/levels' && ! ls -d '$TMP/st.tables'/lod.tmp.* 2>/dev/null"
start store "$TMP/st.tables" --no-browser
# widths whose 4096 bins hold the whole trace, 4 times that, and one
# below the pyramid's finest (its long spans partly from span)
QP=$(cut -d' ' -f1 "$TMP/st.tables/lod/levels") Q1=$(cut -d' ' -f1 "$TMP/st.tables/lod/levels")
DUR=$(get "$B/api/lodmeta?t=$TOK" | python3 -c 'import json,sys; m = json.load(sys.stdin); print((m["end"][0] + m["end"][1] - m["t0"]) * 10)')
while [ $((Q1 * 4096)) -lt "$DUR" ]; do Q1=$((Q1 * 2)); done
QS="$Q1 $((Q1 * 4)) $((QP / 4))"
for q in $QS; do
	get "$B/api/lod?t=$TOK&q=$q&a=0&b=4096" > "$TMP/lod.pyr.$q"
	get "$B/api/lod?t=$TOK&q=$q&a=0&b=4096&rows=pid" > "$TMP/lodp.pyr.$q"
done
read -r LT0 LT1 <<< "$(get "$B/api/lodmeta?t=$TOK" | python3 -c 'import json,sys; m = json.load(sys.stdin); a = m["t0"] * 10; d = (m["end"][0] + m["end"][1]) * 10 - a; print(a + d // 3, a + d // 3 + d // 50)')"
get "$B/api/window?t=$TOK&t0=$LT0&t1=$LT1" > "$TMP/win.pyr"
kill -INT $PID; wait $PID
mv "$TMP/st.tables/lod" "$TMP/lod.saved"
start store "$TMP/st.tables" --no-browser --pyramid-min 1000000000
for q in $QS; do
	get "$B/api/lod?t=$TOK&q=$q&a=0&b=4096" > "$TMP/lod.span.$q"
	check "lod, q $q ns: the pyramid's tile is the one made from span" sh -c "grep -q '\"cpus\":{\"' '$TMP/lod.span.$q' && cmp -s '$TMP/lod.span.$q' '$TMP/lod.pyr.$q'"
	get "$B/api/lod?t=$TOK&q=$q&a=0&b=4096&rows=pid" > "$TMP/lodp.span.$q"
	check "lod, q $q ns, rows=pid: the pyramid's tile is the one made from span" sh -c "grep -q '\"pids\":{\"' '$TMP/lodp.span.$q' && cmp -s '$TMP/lodp.span.$q' '$TMP/lodp.pyr.$q'"
done
get "$B/api/window?t=$TOK&t0=$LT0&t1=$LT1" > "$TMP/win.span"
check "window: with the pyramid (its long rows apart), the same rows in the same order" sh -c "[ \$(wc -l < '$TMP/win.span') -gt 100 ] && cmp -s '$TMP/win.span' '$TMP/win.pyr'"
kill -INT $PID; wait $PID
start store "$TMP/st.tables" --no-browser
eq "a store: the page" 200 "$(code "$URL")"
rm -rf "$TMP/st.tables"
eq "store gone: meta answers 500" 500 "$(code "$B/api/meta?t=$TOK")"
eq "store gone: tiles answer 500" 500 "$(code "$B/api/tiles?t=$TOK&t0=0&t1=10&n=1")"
eq "store gone: the error says so" "$TMP/st.tables: the store is gone (No such file or directory)" \
	"$(curl -s "$B/api/rows?t=$TOK&cpu=0&t0=0&t1=10")"
eq "store gone: the page (already made) still answers" 200 "$(code "$URL")"
check "store gone: the server is still running" kill -0 $PID
eq "store gone: one line in the terminal" 1 "$(grep -c 'the store is gone' "$TMP/store.err")"
kill -INT $PID; wait $PID; eq "store gone: SIGINT still exits 0" 0 $?

# The RPC rows (rows=rpc), on a synthetic trace with RPCs (the real one
# has none), from its pyramid and from span: every id > 0 of an RPC
# point (its arg) or of a left/right mark (its rpc) but those named
# ".0", in the order of the first of those, labelled with the longest
# name of those (the first of the longest); its spans those of rpc = id.
if [ -x "$KT_BIN/kutrace_synth" ]; then
	"$KT_BIN/kutrace_synth" -s 7 -c 4 -t 8 -d 1000 -m 1 --rpc -o "$TMP/rpc.trace" >/dev/null 2>&1 &&
		"$Q" build "$TMP/rpc.trace" -o "$TMP/rpc.tables" >/dev/null 2>&1 || nok "a synthetic trace with RPCs: its store"
	STORE=$TMP/rpc.tables
	"$V" "$STORE" --prepare --pyramid-min 0 2>/dev/null
	start rpc "$STORE" --no-browser
	TS0=$(sql "SELECT min(ts) FROM span") QB=65536
	get "$B/api/lodmeta?t=$TOK" > "$TMP/lodmetar.json"
	RX="rpc > 0 AND ((event >= 0 AND event < 512) OR (event >= 1024 AND event < 4096) OR event >= 65536)"
	eq "lodmeta: per RPC row in the page's order the execution spans and the label" \
		"$(sql "SELECT string_agg(id || ':' || (SELECT count(*) FROM span s WHERE s.rpc = p.id AND $RX) || ':' || l, ' ' ORDER BY o) FROM
			(SELECT id, min(rn) o, first(name ORDER BY length(name) DESC, rn) l FROM (SELECT CASE WHEN event IN (526, 527) THEN rpc ELSE arg END id, name, rn
			FROM (SELECT *, row_number() OVER () rn FROM span) WHERE ((event BETWEEN 513 AND 515) OR (event IN (526, 527) AND rpc > 0)) AND name <> '.0')
			WHERE id > 0 GROUP BY id) p")" \
		"$(python3 -c 'import json,sys; m = json.load(open(sys.argv[1])); print(" ".join("%d:%d:%s" % (p[0], p[1], p[6]) for p in m["rpcs"]))' "$TMP/lodmetar.json")"
	check "lodmeta: RPC rows, more than one of them with spans" python3 -c 'import json,sys; m = json.load(open(sys.argv[1])); sys.exit(sum(r[1] > 0 for r in m["rpcs"]) < 2)' "$TMP/lodmetar.json"
	lod_rows rpc "$RX"
	eq "lod, rows=rpc: bins of more than one RPC, no CPU's or PID's" "True False False" \
		"$(python3 -c 'import json,sys; m = json.load(open(sys.argv[1])); print(len(m["rpcs"]) > 1, "cpus" in m, "pids" in m)' "$TMP/lodrpc.json")"
	QP=$(cut -d' ' -f1 "$STORE/lod/levels")
	for q in $QP $((QP * 4)) $((QP / 4)); do
		get "$B/api/lod?t=$TOK&q=$q&a=0&b=4096&rows=rpc" > "$TMP/lodr.pyr.$q"
	done
	kill -INT $PID; wait $PID
	rm -rf "$STORE/lod"
	start rpc2 "$STORE" --no-browser --pyramid-min 1000000000
	for q in $QP $((QP * 4)) $((QP / 4)); do
		get "$B/api/lod?t=$TOK&q=$q&a=0&b=4096&rows=rpc" > "$TMP/lodr.span.$q"
		check "lod, q $q ns, rows=rpc: the pyramid's tile is the one made from span" sh -c "grep -q '\"rpcs\":{\"' '$TMP/lodr.span.$q' && cmp -s '$TMP/lodr.span.$q' '$TMP/lodr.pyr.$q'"
	done
	kill -INT $PID; wait $PID
else
	skip "the RPC rows' level of detail: kutrace_synth not built (make test-progs)"
fi

# A hand-built trace (tests/tools/mkrpcrows.py): RPC ids first seen in
# no ascending order, one named ".0" only, one from a left mark only; the
# last two spans of RPC 5 and of CPU 0 end together from different
# starts, and a row's latest end is the first of them in row order (as
# the page's summary takes it), its ts and dur from that one row.
python3 tests/tools/mkrpcrows.py "$TMP/hand.json" &&
	"$Q" build "$TMP/hand.json" -o "$TMP/hand.tables" >/dev/null 2>&1 || nok "the hand-built RPC trace's store"
STORE=$TMP/hand.tables
start hand "$STORE" --no-browser
get "$B/api/lodmeta?t=$TOK" > "$TMP/lodmetah.json"
eq "lodmeta, hand-built: the RPC rows in the order first seen, with the longest name, their execution spans" \
	"900:get.reply:400 37:put.ack.long:300 4100:scan:50 5:sync:260 260:mk:10" \
	"$(python3 -c 'import json,sys; m = json.load(open(sys.argv[1])); print(" ".join("%d:%s:%d" % (p[0], p[6], p[1]) for p in m["rpcs"]))' "$TMP/lodmetah.json")"
eq "hand-built: RPC 5's last two spans end together from different starts" "2 2" \
	"$(sql "SELECT count(*), count(DISTINCT ts) FROM span WHERE rpc = 5 AND ts + dur = (SELECT max(ts + dur) FROM span WHERE rpc = 5)" | tr ',' ' ')"
LAST="SELECT ts // 10 || ' ' || dur // 10 FROM (SELECT *, row_number() OVER () rn FROM span) WHERE event >= 0 AND event NOT IN (526, 527)"
eq "lodmeta, hand-built: RPC 5's latest end is the first in row order of those ending last" \
	"$(sql "$LAST AND rpc = 5 ORDER BY ts + dur DESC, rn LIMIT 1")" \
	"$(python3 -c 'import json,sys; m = json.load(open(sys.argv[1])); print(*[p[4:6] for p in m["rpcs"] if p[0] == 5][0])' "$TMP/lodmetah.json")"
eq "lodmeta, hand-built: so is CPU 0's" \
	"$(sql "$LAST AND cpu = 0 ORDER BY ts + dur DESC, rn LIMIT 1")" \
	"$(python3 -c 'import json,sys; m = json.load(open(sys.argv[1])); print(*[p[4:6] for p in m["cpus"] if p[0] == 0][0])' "$TMP/lodmetah.json")"
eq "lodmeta, hand-built: that is the user-mode span's (ts 187.72 ms, 50 us)" "118772010 5000" \
	"$(python3 -c 'import json,sys; m = json.load(open(sys.argv[1])); print(*[p[4:6] for p in m["rpcs"] if p[0] == 5][0])' "$TMP/lodmetah.json")"
kill -INT $PID; wait $PID

# More spans than the page may hold: the page without rows (the viewer
# draws from summaries, VIEWER 3.4.1); the data still answers.
start big tests/golden/basic.trace --no-browser --html-max-spans 10
curl -s "$URL" > "$TMP/big.html"
check "too many spans for a page: the page without rows, in summary mode" grep -q '"summary":true' "$TMP/big.html"
eq "too many spans for a page: no rows in it" 1 "$("$KT_BIN/unmakeself" "$TMP/big.html" 2>/dev/null | grep -c '^\[ *[0-9]')"
eq "too many spans for a page: the data answers" 200 "$(code "$B/api/meta?t=$TOK")"
kill -INT $PID; wait $PID
eq "too many spans for a page: no error in the terminal" 0 "$(grep -c 'too many\|error' "$TMP/big.err")"

# The browser: started with the URL unless --no-browser.
cat > "$TMP/browser" <<EOF
#!/bin/sh
echo "\$1" > "$TMP/opened"
EOF
chmod +x "$TMP/browser"
BROWSER=$TMP/browser start nb tests/golden/basic.trace --no-browser
sleep 0.5; kill $PID; wait $PID
check "--no-browser opens nothing" test ! -e "$TMP/opened"
BROWSER=$TMP/browser start br tests/golden/basic.trace
for i in $(seq 50); do [ -s "$TMP/opened" ] && break; sleep 0.1; done
kill $PID; wait $PID
eq "without --no-browser, \$BROWSER gets the URL" "$URL" "$(cat "$TMP/opened" 2>/dev/null)"

# Hostile stores and requests (issue 48), each on a copy of the basic
# trace's store: the server never serves a file outside the store nor
# waits on one (a link or a FIFO as meta.json), never gives up a new
# client to idle connections, answers every over-long or over-many
# request at once, range-checks the numbers of STORE/lod/meta and of a
# request; kutrace_sql and kutrace_why refuse a FIFO at once.
# unfifo F: a FIFO's reader (were one waiting) gets its end of file.
unfifo() {
	python3 -c 'import os, sys
try: os.close(os.open(sys.argv[1], os.O_WRONLY | os.O_NONBLOCK))
except OSError: pass' "$1"
}
# ms CMD...: the command's output, then its time in ms on the last line
ms() { local a=$(date +%s%N); "$@"; echo; echo $(( ($(date +%s%N) - a) / 1000000 )); }
"$Q" build tests/golden/basic.trace -o "$TMP/h.tables" >/dev/null 2>&1
H=$TMP/h.tables
start hostile "$H" --no-browser
# Requests: the limits, refused at once.
eq "600 query arguments (1.2 KB): 400 at once" 400 \
	"$(code -m 5 "$B/api/meta?t=$TOK$(printf '&a%.0s' $(seq 600))")"
eq "a 5000-byte URL: 414 at once" 414 \
	"$(code -m 5 "$B/api/meta?t=$TOK&x=$(printf 'y%.0s' $(seq 5000))")"
eq "40 arguments (no more than 32): 400" 400 "$(code -m 5 "$B/api/meta?t=$TOK$(printf '&b%.0s' $(seq 40))")"
eq "10 arguments: still 200" 200 "$(code -m 5 "$B/api/meta?t=$TOK$(printf '&c%.0s' $(seq 10))")"
eq "why pid of 39 digits: 400" 400 "$(code -m 10 "$B/api/why?t=$TOK&spec=pid:$(printf '9%.0s' $(seq 39))")"
eq "why rpc 2^31: 400" 400 "$(code -m 10 "$B/api/why?t=$TOK&spec=rpc:2147483648")"
eq "why pid 0: 400" 400 "$(code -m 10 "$B/api/why?t=$TOK&spec=pid:0")"
# meta.json a link to a file outside the store: refused, never served.
echo 'secret outside the store' > "$TMP/outside.json"
mv "$H/meta.json" "$H/meta.real"
ln -s "$TMP/outside.json" "$H/meta.json"
curl -s -m 5 -w '\n%{http_code}' "$B/api/meta?t=$TOK" > "$TMP/h.link"
eq "meta.json a symbolic link: 403, the file not sent" "403 0" \
	"$(tail -1 "$TMP/h.link") $(grep -c secret "$TMP/h.link")"
check "meta.json a symbolic link: the line names it" grep -q 'meta.json: a symbolic link' "$TMP/h.link"
# meta.json a FIFO: an answer at once, and the server goes on.
rm "$H/meta.json"; mkfifo "$H/meta.json"
read -r C1 T1 <<< "$(ms code -m 10 "$B/api/meta?t=$TOK" | tr '\n' ' ')"
eq "meta.json a FIFO: 403" 403 "$C1"
between "meta.json a FIFO: answered in ms" 0 3000 "$T1"
eq "meta.json a FIFO: a later request still answered" 200 "$(code -m 10 "$B/api/lodmeta?t=$TOK")"
unfifo "$H/meta.json"; rm -f "$H/meta.json"; mv "$H/meta.real" "$H/meta.json"
# span.parquet a FIFO: what DuckDB would open, refused before it does.
mv "$H/span.parquet" "$H/span.real"; mkfifo "$H/span.parquet"
eq "span.parquet a FIFO: tiles 403 at once" 403 "$(code -m 10 "$B/api/tiles?t=$TOK&t0=0&t1=10&n=1")"
unfifo "$H/span.parquet"; rm -f "$H/span.parquet"; mv "$H/span.real" "$H/span.parquet"
eq "the store whole again: tiles 200" 200 "$(code -m 10 "$B/api/tiles?t=$TOK&t0=0&t1=10&n=1")"
# 1,100 connections that never finish their request (more than
# select()'s 1,024), all from 127.0.0.1 as the page's own: a new request
# answered at once; the idle ones closed after 10 s.
if [ "$(ulimit -Hn)" != unlimited ] && [ "$(ulimit -Hn)" -lt 1300 ]; then
	skip "1,100 idle connections: only $(ulimit -Hn) descriptors"
else
	python3 - "$PORT" "$TOK" > "$TMP/flood" 2>&1 <<'EOF'
import resource, socket, sys, time
port, tok = int(sys.argv[1]), sys.argv[2]
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 4096) if hard != resource.RLIM_INFINITY else 4096, hard))
idle = []
try:
    for i in range(1100):
        s = socket.create_connection(("127.0.0.1", port), timeout=2)
        s.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        idle.append(s)
except OSError as e:
    print("connect", len(idle), e)
print("idle", len(idle))
time.sleep(0.5)
t = time.time()
try:
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    s.sendall(("GET /api/meta?t=%s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nConnection: close\r\n\r\n" % (tok, port)).encode())
    print("answer", s.recv(12)[9:12].decode() or "none", int((time.time() - t) * 1000))
    s.close()
except OSError as e:
    print("answer none", int((time.time() - t) * 1000))
    print("#", e)
# The idle ones: closed by the server within 10 s (and some slack).
closed, end = 0, time.time() + 13
for s in idle:
    try:
        while True:
            s.settimeout(max(0.01, end - time.time()))
            if s.recv(4096) == b"":
                closed += 1
                break
    except socket.timeout:
        pass
    except OSError:
        closed += 1
    s.close()
print("closed", closed, int(time.time() - t))
EOF
	eq "1,100 idle connections opened" "idle 1100" "$(grep '^idle' "$TMP/flood")"
	read -r _ A AT <<< "$(grep '^answer' "$TMP/flood")"
	eq "1,100 idle connections: a new request answered" 200 "$A"
	between "1,100 idle connections: answered in ms" 0 3000 "$AT"
	eq "1,100 idle connections: closed by the server after 10 s" 1100 "$(awk '/^closed/ {print $2}' "$TMP/flood")"
	eq "after the idle ones: the server answers" 200 "$(code -m 10 "$B/api/meta?t=$TOK")"
fi
check "the server is still running" kill -0 $PID
kill -INT $PID; wait $PID
# STORE/lod/meta with a start near INT64_MAX: t0 + a*q would overflow.
"$V" "$H" --prepare --pyramid-min 0 2>/dev/null
{ echo "9223372036854775000 9223372036854775807"; tail -n +2 "$H/lod/meta"; } > "$TMP/lodmeta.bad"
cp "$TMP/lodmeta.bad" "$H/lod/meta"
start lodbad "$H" --no-browser --pyramid-min 0
curl -s -m 10 -w '\n%{http_code}' "$B/api/lod?t=$TOK&q=1048576&a=0&b=65536" > "$TMP/h.lod"
eq "lod/meta's start out of range: /api/lod answers 500" 500 "$(tail -1 "$TMP/h.lod")"
check "lod/meta's start out of range: one line naming lod/meta" grep -q 'lod/meta: damaged' "$TMP/h.lod"
check "lod/meta's start out of range: said in one line at start" sh -c "head -1 '$TMP/lodbad.err' | grep -q '^kutrace_view: .*lod/meta: damaged.*remove'"
eq "lod/meta's start out of range: other requests answered" 200 "$(code -m 10 "$B/api/meta?t=$TOK")"
check "lod/meta's start out of range: the server is still running" kill -0 $PID
kill -INT $PID; wait $PID
rm -rf "$H/lod"
# kutrace_sql and kutrace_why with a FIFO for span.parquet or meta.json,
# or a link out of the store: exit 1 at once, one line naming the file.
W=$KT_BIN/kutrace_why
for f in span.parquet meta.json; do
	mv "$H/$f" "$TMP/$f.real"; mkfifo "$H/$f"
	timeout 10 "$Q" "$H" --report cpu > /dev/null 2> "$TMP/fifo.sql"; R1=$?
	timeout 10 "$W" "$H" --pid 1 > /dev/null 2> "$TMP/fifo.why"; R2=$?
	unfifo "$H/$f"; rm -f "$H/$f"
	eq "$f a FIFO: kutrace_sql --report cpu exits 1 at once" 1 "$R1"
	eq "$f a FIFO: its one line names the file" "1 1" "$(wc -l < "$TMP/fifo.sql") $(grep -c "h.tables/$f: a FIFO" "$TMP/fifo.sql")"
	eq "$f a FIFO: kutrace_why --pid 1 exits 1 at once" 1 "$R2"
	eq "$f a FIFO: its one line names the file" "1 1" "$(wc -l < "$TMP/fifo.why") $(grep -c "h.tables/$f: a FIFO" "$TMP/fifo.why")"
	ln -s "$TMP/$f.real" "$H/$f"
	timeout 10 "$Q" "$H" --report cpu > /dev/null 2> "$TMP/link.sql"; R1=$?
	eq "$f a link out of the store: kutrace_sql refuses it in one line" "1 1" \
		"$R1 $(grep -c "h.tables/$f: a symbolic link" "$TMP/link.sql")"
	rm "$H/$f"; mv "$TMP/$f.real" "$H/$f"
done
eq "the store whole again: kutrace_sql reads it" 0 "$(timeout 20 "$Q" "$H" --report cpu > /dev/null 2>&1; echo $?)"

# Bad input: one line, exit 1, no server.
"$V" "$TMP/none.trace" --no-browser > "$TMP/bad.out" 2> "$TMP/bad.err"
eq "a missing input: exit 1" 1 $?
eq "a missing input: one line" 1 "$(wc -l < "$TMP/bad.err")"
eq "a missing input: no URL" 0 "$(wc -c < "$TMP/bad.out")"
exit 0

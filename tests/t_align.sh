#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# kutrace_align (issue 30): several hosts on one timeline, where the truth
# is known.  tests/tools/mkrpcpair.py writes two hosts' JSON whose clocks
# differ by a chosen offset and drift, with RPCs of random wire times
# between them; tests/tools/aligncheck.py reads the merged JSON on its own.
# - every mark of the second host within the reported bound of its true
#   time, 0 receives before their send, the bound <= 50 us;
# - the same traces with one shifted by 37 ms: the offset moves by
#   37 ms +- 1 us;
# - a pair that contradicts the others: reported, left out, counted;
# - bad input (no common RPC, the same host twice, absurd rates): one line
#   naming the hosts, exit 1, nothing written;
# - three hosts in a chain (one aligned through another);
# - the merged page and the fleet of table stores;
# - the fast reading of our own row lines against the JSON reader, speed.
# The real traces of two QEMU guests are tests/t_vm_align.sh.
. "$(dirname "$0")/lib.sh"
A=$KT_BIN/kutrace_align
GEN="python3 $KT_ROOT/tests/tools/mkrpcpair.py"
CHK="python3 $KT_ROOT/tests/tools/aligncheck.py"
check "kutrace_align --help" sh -c "'$A' --help | grep -q '^usage: kutrace_align'"

offset_us() { sed -n 's/^beta vs alpha: offset \([-+0-9.]*\) us.*/\1/p' "$1"; }
mkdir -p "$TMP/a" "$TMP/b" "$TMP/c" "$TMP/d" "$TMP/e" "$TMP/f" "$TMP/l"
$GEN "$TMP/a" --offset 123456789 --drift 3
check "two hosts aligned" "$A" "$TMP/a/alpha.json" "$TMP/a/beta.json" -o "$TMP/m1" > "$TMP/o1"
cat "$TMP/o1"
$CHK "$TMP/m1.json" "$TMP/a/truth.json" > "$TMP/c1"
cat "$TMP/c1"
eq "0 receives before their send (an independent reading)" 0 "$(sed -n 's/.*violations //p' "$TMP/c1")"
eq "the program counts 0 too" "causality: 0 of the messages' receives before their send" \
	"$(grep causality "$TMP/o1")"
read -r err bound < <(sed -n 's/maxerr_us \(.*\) bound_us \(.*\)/\1 \2/p' "$TMP/c1")
check "every mark within the bound of its true time ($err <= $bound us)" \
	awk -v e="$err" -v b="$bound" 'BEGIN { exit !(e <= b) }'
check "the bound <= 50 us ($bound)" awk -v b="$bound" 'BEGIN { exit !(b <= 50) }'
check "2000 messages, 8 used, accurate" grep -q '2000 messages, 8 used, 0 contradicting: accurate' "$TMP/o1"
check "drift 3 ppm found within 1 ppm" sh -c "grep -Eq 'drift \\+(2|3)\\.[0-9]+ ppm' '$TMP/o1'"
check "the page and one CPU group per host" sh -c "[ -s '$TMP/m1.html' ] &&
	python3 -c 'import json,sys; m=json.load(open(sys.argv[1]))[\"machines\"];
sys.exit(not ([h[\"name\"] for h in m] == [\"alpha\",\"beta\"] and m[1][\"cpu0\"] == 1))' '$TMP/m1.json'"

# The same RPCs with their packets (each message's hash sent 5 us after
# the sender's mark, received 5 us before the receiver's): 2000 more
# intervals, each 20 us narrower than its RPC's, so a tighter bound.
mkdir -p "$TMP/p"
$GEN "$TMP/p" --offset 123456789 --drift 3 --packets
"$A" "$TMP/p/alpha.json" "$TMP/p/beta.json" -o "$TMP/mp" > "$TMP/op"
cat "$TMP/op"
check "with packets: 4000 messages (2000 packet pairs), 8 used" \
	grep -q '4000 messages (2000 packet pairs), 8 used, 0 contradicting: accurate' "$TMP/op"
$CHK "$TMP/mp.json" "$TMP/p/truth.json" > "$TMP/cp"
read -r perr pbound < <(sed -n 's/maxerr_us \(.*\) bound_us \(.*\)/\1 \2/p' "$TMP/cp")
check "with packets: every mark within the bound ($perr <= $pbound us)" \
	awk -v e="$perr" -v b="$pbound" 'BEGIN { exit !(e <= b) }'
check "with packets: the bound tighter than the RPCs' alone ($pbound < $bound us)" \
	awk -v p="$pbound" -v b="$bound" 'BEGIN { exit !(p < b) }'
$GEN "$TMP/p" --offset 123456789 --drift 3 --packets --early-packet 700
"$A" "$TMP/p/alpha.json" "$TMP/p/beta.json" -o "$TMP/mq" > "$TMP/oq" 2> "$TMP/eq"
check "with packets: a packet received before it was sent is named by its hash, left out" \
	grep -Eq 'alpha and beta: the packets of hash [0-9a-f]{8} contradict the other messages, left out' "$TMP/eq"

# Three hosts in a chain: alpha calls beta, beta calls gamma; gamma shares
# no RPC with alpha, so it is aligned through beta.  beta's one trace holds
# both roles (the rows of two generated files merged in order); beta's
# clock is alpha's + 123.456789 ms, gamma's is beta's - 45.678901 ms (no
# drift), so gamma's offset to alpha is +77.777888 ms.
mkdir -p "$TMP/g1" "$TMP/g2"
$GEN "$TMP/g1" --offset 123456789 --drift 0 --rpcs 1000
$GEN "$TMP/g2" --offset -45678901 --drift 0 --rpcs 1000 --ids-from 5000 --client-name beta --server-name gamma --seed 3
python3 - "$TMP/g1/beta.json" "$TMP/g2/alpha.json" "$TMP/g2/beta.json" > "$TMP/g2/b.json" <<'PY'
import sys
def rows(p):
    return [l for l in open(p) if l.startswith("[") and not l.startswith("[999.0")]
head = [l for l in open(sys.argv[1]) if not l.startswith("[")][:-1]
# both files are in beta's clock (g2's client is beta)
sys.stdout.write("".join(head) + "".join(sorted(rows(sys.argv[1]) + rows(sys.argv[2]),
    key=lambda l: float(l[1:l.index(",")]))) + '[999.0, 0.0, 0, 0, 0, 0, 0, 0, 0, ""]\n]}\n')
PY
mv "$TMP/g2/b.json" "$TMP/g2/beta_both.json"
if "$A" "$TMP/g1/alpha.json" "$TMP/g2/beta_both.json" "$TMP/g2/beta.json" -o "$TMP/m5" > "$TMP/o5" 2> "$TMP/e5"; then
	cat "$TMP/o5"
	check "three hosts: gamma aligned through beta" grep -q '^gamma vs beta: ' "$TMP/o5"
	g=$(python3 -c 'import json,sys; h=json.load(open(sys.argv[1]))["machines"][2]; print("%.3f %.3f" % (h["offset_us"], h["bound_us"]))' "$TMP/m5.json")
	check "gamma's offset to alpha +77777.888 us within its chained bound ($g)" \
		awk -v o="${g% *}" -v b="${g#* }" 'BEGIN { e = o - 77777.888; if (e < 0) e = -e; exit !(e <= b) }'
else
	nok "three hosts aligned: $(cat "$TMP/e5")"
fi

# kutrace's own row lines are read by a fast path; any other layout of
# the same JSON (here all on one line) by the JSON reader: the same output.
python3 -c 'import json,sys; json.dump(json.load(open(sys.argv[1])), open(sys.argv[2], "w"))' \
	"$TMP/a/beta.json" "$TMP/l/beta.json"
"$A" "$TMP/a/alpha.json" "$TMP/l/beta.json" -o "$TMP/m1b" > /dev/null
check "the JSON in another layout: the same merged trace, byte for byte" cmp -s "$TMP/m1.json" "$TMP/m1b.json"

# The same traces, beta 37 ms later: the estimate moves by exactly that.
$GEN "$TMP/b" --offset $((123456789 + 37000000)) --drift 3
"$A" "$TMP/b/alpha.json" "$TMP/b/beta.json" -o "$TMP/m2" > "$TMP/o2"
d=$(awk -v x="$(offset_us "$TMP/o1")" -v y="$(offset_us "$TMP/o2")" 'BEGIN { printf "%.3f", y - x }')
check "shifted by 37 ms: the offset moves by 37000 +- 1 us ($d)" \
	awk -v d="$d" 'BEGIN { exit !(d >= 36999 && d <= 37001) }'
$CHK "$TMP/m2.json" "$TMP/b/truth.json" > "$TMP/c2"
read -r err2 bound2 < <(sed -n 's/maxerr_us \(.*\) bound_us \(.*\)/\1 \2/p' "$TMP/c2")
check "shifted: within the bound ($err2 <= $bound2 us)" \
	awk -v e="$err2" -v b="$bound2" 'BEGIN { exit !(e <= b) }'

# One RPC whose server marks are 5 ms late: it contradicts every other.
$GEN "$TMP/c" --bogus 700
"$A" "$TMP/c/alpha.json" "$TMP/c/beta.json" -o "$TMP/m3" > "$TMP/o3" 2> "$TMP/e3"
eq "a contradicting pair reported, naming the hosts" \
	"kutrace_align: alpha and beta: rpc 700 contradicts the other messages, left out" "$(cat "$TMP/e3")"
check "and counted" grep -q '2000 messages, 8 used, 1 contradicting' "$TMP/o3"
eq "and left out: the offset as without it" "$(offset_us "$TMP/o1")" "$(offset_us "$TMP/o3")"

# Bad input: one line naming the hosts, exit 1, nothing written.
bad() {
	local what=$1 want=$2; shift 2
	"$A" "$@" -o "$TMP/bad" > /dev/null 2> "$TMP/err"
	local rc=$?
	if [ $rc = 1 ] && [ "$(wc -l < "$TMP/err")" = 1 ] && grep -q -- "$want" "$TMP/err" &&
	   ! ls "$TMP"/bad* > /dev/null 2>&1; then ok "$what: $(cat "$TMP/err")"
	else nok "$what (exit $rc: $(cat "$TMP/err"); $(ls "$TMP"/bad* 2>/dev/null))"; fi
}
$GEN "$TMP/d" --ids-from 30000
bad "no common RPC" "beta (.*): no RPC in common with alpha" "$TMP/a/alpha.json" "$TMP/d/beta.json"
$GEN "$TMP/e" --server-name alpha
bad "the same host twice" "are both host alpha" "$TMP/e/alpha.json" "$TMP/e/beta.json"
$GEN "$TMP/f" --drift 5000
bad "absurd rates" "alpha and beta: clocks run at absurdly different rates" "$TMP/f/alpha.json" "$TMP/f/beta.json"
bad "a file that is not there" "nothere.json" "$TMP/a/alpha.json" "$TMP/nothere.json"
bad "a directory (a store): not read" "a directory (a table store?): give its trace or JSON" "$TMP/a/alpha.json" "$TMP/d"
sed 's/"tracebase" : "2026-/"tracebase" : "201-/' "$TMP/a/beta.json" > "$TMP/tb.json"
bad "a tracebase no clock can have (fuzz_align's finding)" "tb.json: tracebase 201-11-28_10:00:00 is not a time of 1970..2100" \
	"$TMP/a/alpha.json" "$TMP/tb.json"
# Numbers before arithmetic (issue 48, item 6b): a CPU the merge would
# overflow renumbering (cpu0 + c), read the slow way (19 digits) and the
# fast way (18); a duration past 1e9 s in a line of ours.
sed '10s/^\(\[[^,]*, [^,]*, \)1,/\19223372036854775807,/' "$TMP/a/beta.json" > "$TMP/cpu.json"
bad "a CPU of 9223372036854775807: refused, naming file and row" \
	"cpu.json:10: cpu 9223372036854775807 is out of range" "$TMP/a/alpha.json" "$TMP/cpu.json"
sed '11s/^\(\[[^,]*, [^,]*, \)1,/\1999999999999999999,/' "$TMP/a/beta.json" > "$TMP/cpu18.json"
bad "a CPU of 18 digits (the fast reader): refused, naming file and row" \
	"cpu18.json:11: cpu 999999999999999999 is out of range" "$TMP/a/alpha.json" "$TMP/cpu18.json"
sed '12s/^\(\[[^,]*, \)[^,]*,/\1-2.00000000,/; 12s/, 1, 200,/, -2, 200,/' "$TMP/a/beta.json" > "$TMP/cpum.json"
bad "a CPU of -2: refused" "cpum.json:12: cpu -2 is out of range" "$TMP/a/alpha.json" "$TMP/cpum.json"
sed '10s/^\(\[[^,]*, \)[^,]*,/\19999999999.99999999,/' "$TMP/a/beta.json" > "$TMP/dur.json"
bad "a duration of 1e10 s: refused, naming file and row" "dur.json:10: event row time out of range" \
	"$TMP/a/alpha.json" "$TMP/dur.json"

# A name that is not UTF-8 (issue 48, item 7): a 0xF1 byte in one of
# beta's names, in a line of ours (the fast reader copies the rest of the
# line) and, with the file's rows in another layout, through the JSON
# reader.  The merged JSON is JSON, the byte U+FFFD.
mkdir -p "$TMP/u8"
sed '11s/"lookup\.1"/"look\xf1up.1"/' "$TMP/a/beta.json" > "$TMP/u8/beta.json"
"$A" "$TMP/a/alpha.json" "$TMP/u8/beta.json" -o "$TMP/u8/m" > /dev/null 2>&1
check "a 0xF1 byte in a name (fast reader): the merged JSON is valid, the name has U+FFFD" \
	python3 -c 'import json,sys; n={r[9] for r in json.load(open(sys.argv[1]))["events"]}; sys.exit("look\ufffdup.1" not in n)' "$TMP/u8/m.json"
sed '11s/, 0.00000001,/, 1e-8,/' "$TMP/u8/beta.json" > "$TMP/u8/slow.json"
"$A" "$TMP/a/alpha.json" "$TMP/u8/slow.json" -o "$TMP/u8/s" > /dev/null 2>&1
check "a 0xF1 byte in a name (JSON reader): the merged JSON is valid, the name has U+FFFD" \
	python3 -c 'import json,sys; n={r[9] for r in json.load(open(sys.argv[1]))["events"]}; sys.exit("look\ufffdup.1" not in n)' "$TMP/u8/s.json"

# The tables: the fleet layout, times in the reference clock.
if [ -x "$KT_BIN/kutrace_sql" ]; then
	"$A" "$TMP/a/alpha.json" "$TMP/a/beta.json" -o "$TMP/m4" --tables > /dev/null
	q=$("$KT_BIN/kutrace_sql" "$TMP/m4.tables/*/*" --csv -c "SELECT machine, count(*), min(ts) FROM span WHERE event = 513 AND arg = 1 GROUP BY ALL ORDER BY 1" 2>&1)
	echo "$q"
	check "fleet of two stores, machine column, rpc 1 on both" sh -c "echo '$q' | grep -q alpha && echo '$q' | grep -q beta"
	a1=$(echo "$q" | sed -n 's/^alpha,1,//p')
	b1=$(echo "$q" | sed -n 's/^beta,1,//p')
	check "in the reference clock: rpc 1 received 20..400 us after it was sent ($a1, $b1)" \
		sh -c "[ -n '$a1' ] && [ -n '$b1' ] && [ \$(( $b1 - $a1 )) -ge 20000 ] && [ \$(( $b1 - $a1 )) -le 400000 ]"
else
	skip "tables: kutrace_sql is not built"
fi

# The speed of aligning and merging is a benchmark (make bench-align), not
# a check here: a busy machine must not decide a test.  What is checked:
# two traces of 1.6 M rows with RPC marks (host b is host a's JSON under
# another name) merge into twice the rows, through the fast row reader.
S=$KT_BIN/kutrace_synth
if [ -x "$S" ]; then
	"$S" -s 7 -c 4 -m 10 --rpc -o "$TMP/s.trace" > /dev/null 2>&1
	"$KT_BIN/kutrace_postproc" "$TMP/s.trace" -o "$TMP/sa.json" --no-html > /dev/null 2>&1
	sed 's/"hostName" : "synth-host"/"hostName" : "synth-b"/' "$TMP/sa.json" > "$TMP/sb.json"
	"$A" "$TMP/sa.json" "$TMP/sb.json" -o "$TMP/ms" --html-max-spans 1 > /dev/null 2>&1
	# rows, the closing [999.0, ...] row aside (the merge has one)
	n=$(( $(grep -c '^\[' "$TMP/sa.json") - 1 ))
	eq "two traces of $n rows merged into twice the rows" "$((2 * n))" \
		"$(( $(grep -c '^\[' "$TMP/ms.json" 2>/dev/null) - 1 ))"
else
	skip "speed: kutrace_synth is not built (make test-progs)"
fi

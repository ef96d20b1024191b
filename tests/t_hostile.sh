#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Hostile names (issue 48, item 1): a path or a name is text to SQL,
# never SQL.  A store whose directory name holds ' " ; -- \ and a newline,
# and one named "i'; COPY (SELECT 42 AS v) TO 'pwned.csv'; --", are opened
# by every program that reads a store (kutrace_sql's reports, -c, export
# and shell, kutrace_why, kutrace_view --prepare and its served requests)
# and written by every one that writes one (kutrace_sql build -o, a
# trace's temporary store under such a TMPDIR, kutrace_postproc --tables
# beside such a trace); a trace id, --mark and --method hold them too.
# Each gives the answers of a plainly named copy, exit 0, and nothing
# appears in the empty directory it runs in (an injected COPY would write
# pwned.csv there).  A store named with *, ? or [ beside a sibling the
# pattern would match: the named store's answers or one line, never the
# sibling's.
. "$(dirname "$0")/lib.sh"
KT_BIN=$(cd "$KT_BIN" && pwd)
Q=$KT_BIN/kutrace_sql
W=$KT_BIN/kutrace_why
V=$KT_BIN/kutrace_view
P=$KT_BIN/kutrace_postproc
export LC_ALL=C
if [ ! -x "$Q" ] || [ ! -x "$W" ] || [ ! -x "$V" ]; then
	nok "kutrace_sql, kutrace_why and kutrace_view are built (make deps brings DuckDB)"; exit 0
fi
TRACE=$KT_ROOT/tests/golden/rpc.trace
NL='
'
N1="a'b\"c;d -- e\\f${NL}g.tables"
N2="i'; COPY (SELECT 42 AS v) TO 'pwned.csv'; --"
# E: where every program runs, which must stay empty.
E=$TMP/cwd
mkdir -p "$E" "$TMP/h1" "$TMP/h2"
PLAIN=$TMP/plain.tables
H1=$TMP/h1/$N1
H2=$TMP/h2/$N2
if ! "$Q" build "$TRACE" -o "$PLAIN" --quiet 2> "$TMP/e"; then
	nok "the plain store is built: $(tail -1 "$TMP/e")"; exit 0
fi
cp -a "$PLAIN" "$H1"
cp -a "$PLAIN" "$H2"
check "the hostile copies are there" test -f "$H1/meta.json" -a -f "$H2/meta.json"

# empty WHAT: ok if nothing appeared in $E (then emptied for the next one)
empty() {
	if [ -z "$(ls -A "$E")" ]; then return 0; fi
	nok "$1: wrote $(ls -A "$E" | head -3 | tr '\n' ' ')where it ran"
	rm -rf "${E:?}"/* "$E"/.[!.]* 2>/dev/null
	return 1
}
# on DIR CMD ARGS...: CMD with each argument @ as DIR, run in $E; its
# output in $TMP/out, its errors in $TMP/err, its status in RC.
on() {
	local d=$1 a args=(); shift
	for a in "$@"; do [ "$a" = @ ] && a=$d; args+=("$a"); done
	(cd "$E" && "${args[@]}") > "$TMP/out" 2> "$TMP/err" < /dev/null
	RC=$?
}
# same WHAT CMD ARGS...: CMD on the plain store and on each hostile copy:
# exit 0 each, the same output, nothing written where it ran.
same() {
	local what=$1 d n=0; shift
	on "$PLAIN" "$@"
	cp "$TMP/out" "$TMP/want"
	if [ $RC != 0 ]; then nok "$what: on the plain store: exit $RC: $(head -1 "$TMP/err")"; return; fi
	for d in "$H1" "$H2"; do
		n=$((n + 1))
		on "$d" "$@"
		if [ $RC != 0 ]; then
			nok "$what (name $n): exit $RC: $(head -1 "$TMP/err")"
		elif ! cmp -s "$TMP/want" "$TMP/out"; then
			nok "$what (name $n): other answers than the plain store's"
			diff "$TMP/want" "$TMP/out" | head -5 | sed 's/^/#   /'
		elif empty "$what (name $n)"; then
			ok "$what (name $n): the plain store's answers, nothing written where it ran"
		fi
	done
	empty "$what (plain)" >/dev/null
}

for r in cpu syscalls waits rpc locks; do
	same "kutrace_sql --report $r" "$Q" @ --report "$r" --csv
done
same "kutrace_sql -c" "$Q" @ --csv -c 'SELECT count(*), sum(dur) FROM span'
same "kutrace_sql -c over every table" "$Q" @ --csv -c \
	"SELECT (SELECT count(*) FROM thread), (SELECT count(*) FROM rpc), (SELECT count(*) FROM machine)"
same "kutrace_sql's shell .schema" sh -c "printf '.schema span\n.schema x'\\'';COPY(SELECT(42))TO('\\''pwned.csv'\\'');--\n.quit\n' | '$Q' \"\$0\" | grep -v '^kutrace'" @
same "kutrace_why --slowest 1" "$W" @ --slowest 1
same "kutrace_why --rpc 77 --json" "$W" @ --rpc 77 --json
same "kutrace_why --pid 500" "$W" @ --pid 500
same "kutrace_why --method getData" "$W" @ --slowest 2 --method getData

# Hostile arguments: no such target (exit 2), never SQL.
for a in "--mark=$N2" "--method=$N2" "--mark=$N1"; do
	on "$PLAIN" "$W" @ "${a%%=*}" "${a#*=}" $([ "${a%%=*}" = --method ] && echo --slowest 1)
	eq "kutrace_why ${a%%=*} holding quotes: no such target, exit 2" "2 1" "$RC $(grep -c 'no such\|no interval' "$TMP/err")"
	empty "kutrace_why ${a%%=*}" && ok "kutrace_why ${a%%=*} holding quotes: nothing written where it ran"
done

# kutrace_view --prepare: the pyramid of each copy is the plain store's,
# each made by the SQL (not the build's, lodw.c) under its own name.
rm -rf "$PLAIN/lod" "$H1/lod" "$H2/lod"
on "$PLAIN" "$V" @ --prepare --pyramid-min 0
eq "kutrace_view --prepare on the plain store: exit 0" 0 "$RC"
n=0
for d in "$H1" "$H2"; do
	n=$((n + 1))
	on "$d" "$V" @ --prepare --pyramid-min 0
	if [ $RC != 0 ]; then nok "kutrace_view --prepare (name $n): exit $RC: $(head -1 "$TMP/err")"
	elif ! diff -r "$PLAIN/lod" "$d/lod" > /dev/null; then nok "kutrace_view --prepare (name $n): another pyramid"
	elif empty "kutrace_view --prepare (name $n)"; then ok "kutrace_view --prepare (name $n): the plain store's pyramid, nothing written where it ran"
	fi
done
# A pyramid made again under a kept summary (the plain store's, with
# another level 0): the statements that COPY TO the store's directory.
rm -rf "$H2/lod"
cp -a "$PLAIN/lod" "$H2/lod"
echo "2 1 4" > "$H2/lod/levels"
on "$H2" "$V" @ --prepare --pyramid-min 0
eq "kutrace_view --prepare, the pyramid made again (name 2): exit 0" 0 "$RC"
check "kutrace_view --prepare, the pyramid made again (name 2): the plain store's" diff -rq "$PLAIN/lod" "$H2/lod"
empty "kutrace_view --prepare again" && ok "kutrace_view --prepare again: nothing written where it ran"
check "no stray file beside the stores" test -z "$(ls "$TMP/h2" | grep -vxF "$N2")"

# Served requests, from the pyramid: the same answers.
if command -v curl > /dev/null; then
	read -r Q0 _ < "$PLAIN/lod/levels" 2> /dev/null
	serve() {
		local d=$1 out=$2 i url port tok
		(cd "$E" && exec "$V" "$d" --no-browser --pyramid-min 0) > "$TMP/srv.out" 2> "$TMP/srv.err" &
		local pid=$!
		for i in $(seq 300); do
			grep -q 't=[0-9a-f]\{32\}$' "$TMP/srv.out" && break
			kill -0 $pid 2>/dev/null || break
			sleep 0.1
		done
		url=$(head -1 "$TMP/srv.out"); port=${url#http://127.0.0.1:}; port=${port%%/*}; tok=${url##*\?t=}
		local b="http://127.0.0.1:$port/api" t0 t1
		: > "$out"
		curl -s -f "$b/lodmeta?t=$tok" >> "$out"
		read -r t0 t1 <<< "$(curl -s "$b/lodmeta?t=$tok" | python3 -c 'import json,sys; m = json.load(sys.stdin); print(m["t0"] * 10, (m["end"][0] + m["end"][1]) * 10 + 10)' 2> /dev/null)"
		for r in cpu pid rpc; do
			curl -s -f "$b/lod?t=$tok&q=$Q0&a=0&b=4096&rows=$r" >> "$out"
			curl -s -f "$b/lod?t=$tok&q=$((Q0 * 4))&a=0&b=4096&rows=$r" >> "$out"
		done
		curl -s -f "$b/rows?t=$tok&cpu=0&t0=$t0&t1=$t1" >> "$out"
		curl -s -f "$b/window?t=$tok&t0=$t0&t1=$t1" >> "$out"
		printf '\nstatus %s\n' $? >> "$out"
		kill -INT $pid 2> /dev/null; wait $pid
	}
	serve "$PLAIN" "$TMP/srv.want"
	n=0
	for d in "$H1" "$H2"; do
		n=$((n + 1))
		serve "$d" "$TMP/srv.got"
		if [ "$(tail -1 "$TMP/srv.got")" != "status 0" ] || ! cmp -s "$TMP/srv.want" "$TMP/srv.got"; then
			nok "kutrace_view's requests (name $n): other answers than the plain store's: $(head -1 "$TMP/srv.err")"
			diff "$TMP/srv.want" "$TMP/srv.got" | cut -c1-200 | head -4 | sed "s/^/#   /"
		elif empty "kutrace_view's requests (name $n)"; then
			ok "kutrace_view's requests (name $n): lodmeta, lod, rows, window as the plain store's"
		fi
	done
else
	skip "kutrace_view's requests: no curl"
fi

# kutrace_why --save adds critical_path to the store, read back by name.
same "kutrace_why --save, then critical_path read" sh -c \
	"'$W' \"\$0\" --slowest 1 --save > /dev/null && '$Q' \"\$0\" --csv -c 'SELECT count(*) FROM critical_path'" @

# Writers: a store into a hostile directory, the same tables.
tables() { "$Q" "$1" --csv -c "SELECT * FROM span ORDER BY ALL" 2>&1; "$Q" "$1" --csv -c "SELECT * FROM thread_state ORDER BY ALL" 2>&1; }
tables "$PLAIN" > "$TMP/tab.want"
n=0
for h in "$TMP/h1" "$TMP/h2"; do
	n=$((n + 1))
	dir=$h/$([ $n = 1 ] && echo "$N1" || echo "$N2")
	on "$dir.build" "$Q" build "$TRACE" -o @ --quiet
	if [ $RC = 0 ] && tables "$dir.build" | cmp -s "$TMP/tab.want" - && empty "build $n"; then
		ok "kutrace_sql build -o (name $n): the plain store's tables, nothing written where it ran"
	else nok "kutrace_sql build -o (name $n): exit $RC: $(head -1 "$TMP/err")"; fi
	# A trace beside which kutrace_postproc --tables writes its store.
	mkdir -p "$dir.d"
	cp "$TRACE" "$dir.d/rpc.trace"
	on "$dir.d/rpc.trace" "$P" @ --tables --no-html --quiet
	if [ $RC = 0 ] && tables "$dir.d/rpc.tables" | cmp -s "$TMP/tab.want" - && empty "postproc $n"; then
		ok "kutrace_postproc --tables beside the trace (name $n): the plain store's tables"
	else nok "kutrace_postproc --tables beside the trace (name $n): exit $RC: $(head -1 "$TMP/err")"; fi
	# A trace as input: its temporary store under TMPDIR.
	mkdir -p "$dir.tmp"
	on "$dir.tmp" env "TMPDIR=$dir.tmp" "$Q" "$TRACE" --csv -c "SELECT * FROM span ORDER BY ALL"
	if [ $RC = 0 ] && head -n "$(wc -l < "$TMP/out")" "$TMP/tab.want" | cmp -s "$TMP/out" - &&
		[ -z "$(ls -A "$dir.tmp")" ] && empty "tmpdir $n"; then
		ok "kutrace_sql on a trace, its temporary store under a hostile TMPDIR (name $n)"
	else nok "kutrace_sql on a trace under a hostile TMPDIR (name $n): exit $RC: $(head -1 "$TMP/err")"; fi
	# --export into a hostile directory: the plain store's files.
	on "$dir.exp" "$Q" "$PLAIN" --export tsv @
	"$Q" "$PLAIN" --export tsv "$TMP/exp.plain" 2> /dev/null
	if [ $RC = 0 ] && diff -r "$TMP/exp.plain" "$dir.exp" > /dev/null && empty "export $n"; then
		ok "kutrace_sql --export into a hostile directory (name $n): the plain store's files"
	else nok "kutrace_sql --export into a hostile directory (name $n): exit $RC: $(head -1 "$TMP/err")"; fi
done

# A hostile trace id: kept exactly, and kutrace_why follows it.
on "$TMP/tid.tables" "$Q" build "$TRACE" -o @ --quiet --trace-id "$N1"
eq "kutrace_sql build --trace-id holding quotes: exit 0" 0 "$RC"
eq "the trace id is kept byte for byte" "$(printf '%s' "$N1" | md5sum | cut -c1-32)" \
	"$("$Q" "$TMP/tid.tables" --csv -c 'SELECT md5(trace_id) FROM machine' | tail -1)"
"$W" "$PLAIN" --slowest 1 > "$TMP/why.want" 2>&1
on "$TMP/tid.tables" "$W" @ --slowest 1
if [ $RC = 0 ] && cmp -s "$TMP/why.want" "$TMP/out" && empty "why tid"; then
	ok "kutrace_why on a trace id holding quotes: the plain store's answer"
else nok "kutrace_why on a trace id holding quotes: exit $RC: $(head -1 "$TMP/err")"; fi
on "$TMP/tid.tables" "$W" @ --pid 500
eq "kutrace_why --pid on a trace id holding quotes: exit 0" 0 "$RC"

# Glob characters (issue 48): DuckDB reads *, ? and [ in a file's path as
# a pattern, so a store named s*.tables would read its sibling sXb.tables
# too, s[i].tables only si.tables.  Each program on a store so named gives
# the named store's answers (the plain store's) or refuses it in one line:
# never the sibling's.  The same for a store written under such a name.
G=$TMP/glob
mkdir -p "$G"
"$Q" build "$KT_ROOT/tests/golden/basic.trace" -o "$G/si.tables" --quiet 2> /dev/null
rm -rf "$G/si.tables/lod"	# made by the build: the check below is that nothing makes it
cp -a "$G/si.tables" "$G/sXb.tables"
# named_or_refused WHAT: the plain store's output ($TMP/want), or exit
# other than 0 with one line and no output.
named_or_refused() {
	if [ $RC = 0 ] && cmp -s "$TMP/want" "$TMP/out"; then
		ok "$1: the named store's answers"
	elif [ $RC != 0 ] && [ "$(wc -l < "$TMP/err")" = 1 ] && [ ! -s "$TMP/out" ]; then
		ok "$1: refused in one line"
	else
		nok "$1: exit $RC, not the named store's answers: $(head -c 200 "$TMP/out" | tr '\n' ' ') $(head -1 "$TMP/err")"
	fi
}
for g in 's*' 's?b' 's[i]'; do
	cp -a "$PLAIN" "$G/$g.tables"
	rm -rf "$G/$g.tables/lod"
	for c in "kutrace_sql -c|$Q|@|--csv|-c|SELECT count(*), sum(dur), min(ts) FROM span" \
		 "kutrace_sql --report cpu|$Q|@|--report|cpu|--csv" \
		 "kutrace_why --slowest 1|$W|@|--slowest|1"; do
		what=${c%%|*}
		IFS='|' read -r -a cmd <<< "${c#*|}"
		on "$PLAIN" "${cmd[@]}"; cp "$TMP/out" "$TMP/want"
		on "$G/$g.tables" "${cmd[@]}"
		named_or_refused "$what on a store named $g.tables beside si.tables and sXb.tables"
	done
	on "$G/$g.tables" "$V" @ --prepare --pyramid-min 0
	if [ $RC = 0 ] && diff -r "$PLAIN/lod" "$G/$g.tables/lod" > /dev/null; then
		ok "kutrace_view --prepare on $g.tables: the named store's pyramid"
	elif [ $RC != 0 ] && [ "$(wc -l < "$TMP/err")" = 1 ]; then
		ok "kutrace_view --prepare on $g.tables: refused in one line"
	else nok "kutrace_view --prepare on $g.tables: exit $RC: $(head -1 "$TMP/err")"; fi
	# A store written under such a name, and a trace's temporary store
	# under such a TMPDIR.
	on "$G/o$g.tables" "$Q" build "$TRACE" -o @ --quiet
	if [ $RC = 0 ]; then
		tables "$G/o$g.tables" > "$TMP/out"
		cp "$TMP/tab.want" "$TMP/want"
	else : > "$TMP/out"; fi
	named_or_refused "kutrace_sql build -o o$g.tables"
	mkdir -p "$G/t$g"
	on "$G/t$g" env "TMPDIR=$G/t$g" "$Q" "$TRACE" --csv -c "SELECT count(*), sum(dur), min(ts) FROM span"
	"$Q" "$PLAIN" --csv -c "SELECT count(*), sum(dur), min(ts) FROM span" > "$TMP/want" 2> /dev/null
	named_or_refused "kutrace_sql on a trace under TMPDIR t$g"
	empty "glob $g" > /dev/null
done
check "the siblings are untouched" sh -c "[ ! -e '$G/si.tables/lod' ] && [ ! -e '$G/sXb.tables/lod' ]"

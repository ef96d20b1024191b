#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The front door, kutrace (door/kutrace.c, issue 31): each command runs
# its program with exactly the arguments after it and gives back its exit
# status; the programs next to kutrace come before PATH; kutrace help
# lists every command of the table; an unknown command or a program not
# installed is one line and exit 2.  The checks of arguments and exit
# status are also run against two broken doors, which they must fail.
# Then the bash completion (door/kutrace.bash) in bash itself, and the
# progress line (lib/base/progress.c) on a pseudo-terminal (script(1)) and its
# absence when standard error is a file.
. "$(dirname "$0")/lib.sh"
B=$(cd "$KT_BIN" && pwd)
K=$B/kutrace
G=$KT_ROOT/tests/golden
export LC_ALL=C
if [ ! -x "$K" ]; then nok "kutrace is built"; exit 0; fi
fails() { ! "$@"; }
# lines FILE: how many lines FILE has
lines() { wc -l < "$1" | tr -d ' '; }

# The table of door/kutrace.c: command, program, verb (or NULL).
sed -n 's/^\t{ "\([a-z]*\)", "\([a-z_]*\)", "\{0,1\}\([A-Za-z]*\)"\{0,1\},.*/\1 \2 \3/p' \
	"$KT_ROOT/door/kutrace.c" > "$TMP/table"
between "the command table read from door/kutrace.c" 10 40 "$(lines "$TMP/table")"

# ---- help, --version, --list-commands --------------------------------
"$K" help > "$TMP/help" 2> "$TMP/e"; rc=$?
eq "kutrace help: exit 0, nothing on stderr" "0 " "$rc $(cat "$TMP/e")"
"$K" --help > "$TMP/help2" 2>&1
same_file "kutrace --help is kutrace help" "$TMP/help" "$TMP/help2"
missing=""
while read -r name prog verb; do
	[ "$verb" = NULL ] && verb=
	grep -q "^  $name  *[^ ].*  *$prog${verb:+ $verb}\( (not installed)\)\{0,1\}\$" "$TMP/help" ||
		missing="$missing $name"
done < "$TMP/table"
eq "kutrace help lists every command of the table with its program, one line each" "" "$missing"
eq "and no other command" "$(lines "$TMP/table")" "$(grep -c '^  [a-z]' "$TMP/help")"
eq "kutrace --list-commands: the table's commands" "$(cut -d' ' -f1 "$TMP/table")" "$("$K" --list-commands)"
eq "kutrace --version" "kutrace $(cat "$KT_ROOT/VERSION")" "$("$K" --version)"
"$K" help postproc > "$TMP/h1" 2>&1; rc1=$?
"$B/kutrace_postproc" --help > "$TMP/h2" 2>&1; rc2=$?
same_file "kutrace help postproc is kutrace_postproc --help" "$TMP/h2" "$TMP/h1"
eq "  and its exit status" "$rc2" "$rc1"

# ---- unknown commands, no command ------------------------------------
"$K" posproc x.trace > "$TMP/o" 2> "$TMP/e"; rc=$?
eq "unknown command: exit 2, nothing on stdout, one line" "2 0 1" "$rc $(lines "$TMP/o") $(lines "$TMP/e")"
check "  naming it, and the near command (did you mean 'postproc')" \
	grep -q "'posproc'.*did you mean 'postproc'" "$TMP/e"
"$K" help sq > "$TMP/o" 2> "$TMP/e"; rc=$?
eq "kutrace help sq: exit 2, one line, did you mean 'sql'" "2 1 1" \
	"$rc $(lines "$TMP/e") $(grep -c "did you mean 'sql'" "$TMP/e")"
"$K" zzzzzzzz > "$TMP/o" 2> "$TMP/e"; rc=$?
eq "a command near none: exit 2, one line, no guess" "2 1 0" \
	"$rc $(lines "$TMP/e") $(grep -c 'did you mean' "$TMP/e")"
"$K" --bogus > "$TMP/o" 2> "$TMP/e"; rc=$?
eq "an unknown option: exit 2, one line naming it" "2 1 1" "$rc $(lines "$TMP/e") $(grep -c -- '--bogus' "$TMP/e")"
"$K" > "$TMP/o" 2> "$TMP/e"; rc=$?
eq "no command: exit 2, the usage on stderr" "2 0 1" "$rc $(lines "$TMP/o") $(grep -c '^usage: kutrace' "$TMP/e")"

# ---- dispatch: arguments and exit status, through stub programs ------
# A copy of kutrace with a stub of every program next to it: the stub
# prints its name and each argument in brackets, and exits $STUB_RC.
S=$TMP/stub
mkdir -p "$S"
cp "$K" "$S/kutrace"
for p in $(cut -d' ' -f2 "$TMP/table" | sort -u); do
	printf '#!/bin/sh\nbasename "$0"\nfor a; do printf "[%%s]\\n" "$a"; done\nexit ${STUB_RC:-0}\n' > "$S/$p"
	chmod +x "$S/$p"
done
# door_ok DOOR: every command runs its program with the verb and exactly
# these arguments, and exit statuses 0, 1, 2, 3 and 77 come back.
ARGS=("a b" "" "--x=1" "*" "-" "--" "é\\n")
door_ok() {
	local door=$1 name prog verb rc want got
	while read -r name prog verb; do
		[ "$verb" = NULL ] && verb=
		want=$(echo "$prog"; [ -n "$verb" ] && echo "[$verb]"; for a in "${ARGS[@]}"; do echo "[$a]"; done)
		got=$("$door" "$name" "${ARGS[@]}" 2>&1)
		if [ "$got" != "$want" ]; then echo "# $name: got $(echo "$got" | tr '\n' ' ')" >> "$TMP/why"; return 1; fi
		for rc in 0 1 2 3 77; do
			STUB_RC=$rc "$door" "$name" x > /dev/null 2>&1
			got=$?
			if [ "$got" != "$rc" ]; then echo "# $name: exit $rc came back as $got" >> "$TMP/why"; return 1; fi
		done
	done < "$TMP/table"
}
: > "$TMP/why"
if door_ok "$S/kutrace"; then
	ok "every command runs its program with its verb and exactly the arguments after it (${#ARGS[@]}: spaces, empty, glob, --), exit status 0 1 2 3 77 back"
else
	nok "every command runs its program with exactly the arguments after it, exit status back"; cat "$TMP/why"
fi
# Two broken doors, in front of the real one: the check must fail them.
printf '#!/bin/bash\nexec "%s" $@\n' "$S/kutrace" > "$S/split"
printf '#!/bin/bash\n"%s" "$@"\nexit 0\n' "$S/kutrace" > "$S/rc0"
chmod +x "$S/split" "$S/rc0"
check "  a door that splits arguments fails that check" fails door_ok "$S/split"
check "  a door that loses the exit status fails it" fails door_ok "$S/rc0"

# Next to kutrace first, then PATH: a checktrace on PATH only where the
# copy has none next to it.
mkdir -p "$TMP/onpath" "$TMP/alone"
printf '#!/bin/sh\necho from-path\n' > "$TMP/onpath/checktrace"
chmod +x "$TMP/onpath/checktrace"
cp "$K" "$TMP/alone/kutrace"
eq "the program next to kutrace comes before PATH" "checktrace" \
	"$(PATH=$TMP/onpath:$PATH "$S/kutrace" check | head -1)"
eq "PATH when there is none next to it" "from-path" "$(PATH=$TMP/onpath "$TMP/alone/kutrace" check)"
PATH=$TMP/nothing "$TMP/alone/kutrace" view x.trace > "$TMP/o" 2> "$TMP/e"; rc=$?
eq "a program not installed: exit 2, one line naming it" "2 0 1 1" \
	"$rc $(lines "$TMP/o") $(lines "$TMP/e") $(grep -c 'kutrace_view is not installed' "$TMP/e")"
PATH=$TMP/nothing "$TMP/alone/kutrace" help > "$TMP/o" 2>&1
eq "kutrace help marks every such command (not installed)" "$(lines "$TMP/table")" \
	"$(grep -c '(not installed)$' "$TMP/o")"

# ---- dispatch to the real programs -----------------------------------
cp "$G/basic.trace" "$G/basic.json" "$TMP/"
head -c 100000 "$G/rpc.trace" > "$TMP/cut.trace"
# same "what" rc1 rc2 out1 out2: same exit status and byte-identical output
same() {
	if [ "$2" = "$3" ] && cmp -s "$4" "$5"; then ok "$1 (exit $2)"; else
		nok "$1 (exit $2 / $3)"; diff "$4" "$5" | head -5 | sed 's/^/#   /'; fi
}
"$K" postproc "$TMP/basic.trace" "a title" -o "$TMP/a.json" --no-html 2> "$TMP/a.err"; r1=$?
"$B/kutrace_postproc" "$TMP/basic.trace" "a title" -o "$TMP/b.json" --no-html 2> "$TMP/b.err"; r2=$?
grep -v '"randomid"' "$TMP/a.json" > "$TMP/a.nr"
grep -v '"randomid"' "$TMP/b.json" > "$TMP/b.nr"
same "kutrace postproc on a golden trace: the JSON of kutrace_postproc (randomid aside)" $r1 $r2 "$TMP/a.nr" "$TMP/b.nr"
sed 's/a\.json/X/' "$TMP/a.err" > "$TMP/a.e2"
sed 's/b\.json/X/' "$TMP/b.err" > "$TMP/b.e2"
same "  and the same lines on stderr" $r1 $r2 "$TMP/a.e2" "$TMP/b.e2"
for c in "check $TMP/basic.trace:checktrace $TMP/basic.trace" "check $TMP/cut.trace:checktrace $TMP/cut.trace" \
	"check:checktrace" "dump $TMP/basic.trace:kutrace_dump $TMP/basic.trace" \
	"dump $TMP/none.trace:kutrace_dump $TMP/none.trace" \
	"export --perfetto $TMP/basic.json:kutrace_export --perfetto $TMP/basic.json" \
	"postproc:kutrace_postproc"; do
	# shellcheck disable=SC2086
	"$K" ${c%%:*} > "$TMP/o1" 2>&1; r1=$?
	# shellcheck disable=SC2086
	"$B/"${c#*:} > "$TMP/o2" 2>&1; r2=$?
	sed -i 's/^kutrace_dump:/X:/; s/^checktrace:/X:/; s/^kutrace_postproc:/X:/' "$TMP/o1" "$TMP/o2"
	same "kutrace ${c%%:*} = ${c#*:}" $r1 $r2 "$TMP/o1" "$TMP/o2"
done
eq "  exit statuses 0, 1 and 2 all came through above" "0 1 2" \
	"$("$K" check "$TMP/basic.trace" > /dev/null 2>&1; echo $?) $("$K" check "$TMP/cut.trace" > /dev/null 2>&1; echo $?) $("$K" check > /dev/null 2>&1; echo $?)"
if [ -x "$B/kutrace_sql" ]; then
	cp "$G/rpc.trace" "$TMP/"
	"$K" sql "$TMP/rpc.trace" --csv -c 'select count(*), sum(dur) from span' > "$TMP/o1" 2>&1; r1=$?
	"$B/kutrace_sql" "$TMP/rpc.trace" --csv -c 'select count(*), sum(dur) from span' > "$TMP/o2" 2>&1; r2=$?
	same "kutrace sql TRACE -c SQL = kutrace_sql" $r1 $r2 "$TMP/o1" "$TMP/o2"
else
	skip "kutrace sql: no kutrace_sql (make deps)"
fi

# ---- bash completion ---------------------------------------------------
# comp DIR WORD...: what _kutrace offers for the last WORD, sorted, in DIR.
comp() {
	local dir=$1
	shift
	PATH=$B:$PATH bash -c '. "$1"; cd "$2" || exit 1; shift 2
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
		_kutrace; printf "%s\n" "${COMPREPLY[@]}"' _ "$KT_ROOT/door/kutrace.bash" "$dir" "$@" | sort
}
mkdir -p "$TMP/c/bdir"
touch "$TMP/c/basic.trace" "$TMP/c/basic.json" "$TMP/c/b.txt" "$TMP/c/x.trace"
eq "complete -F _kutrace kutrace is registered" "complete -F _kutrace kutrace" \
	"$(bash -c '. "$1"; complete -p kutrace' _ "$KT_ROOT/door/kutrace.bash")"
eq "kutrace <TAB>: every command, help, --help, --version" \
	"$( ("$K" --list-commands; printf '%s\n' help --help --version) | sort)" "$(comp "$TMP/c" kutrace '')"
eq "kutrace po<TAB>: postproc" "postproc" "$(comp "$TMP/c" kutrace po)"
eq "kutrace help st<TAB>: status stop" "$(printf 'status\nstop')" "$(comp "$TMP/c" kutrace help st)"
eq "kutrace check b<TAB>: traces and directories only" "$(printf 'basic.trace\nbdir')" "$(comp "$TMP/c" kutrace check b)"
touch "$TMP/c/my run.trace"
eq "kutrace dump my<TAB>: a name with a space is one name" "my run.trace" "$(comp "$TMP/c" kutrace dump my)"
eq "kutrace export b<TAB>: JSON files and directories" "$(printf 'basic.json\nbdir')" "$(comp "$TMP/c" kutrace export b)"
comp "$TMP/c" kutrace postproc -- > "$TMP/o"
"$B/kutrace_postproc" --help | grep -o -- '--[a-z][-a-z]*' | grep -vx -- --help | sort -u > "$TMP/want"
eq "kutrace postproc --<TAB>: the long options of kutrace_postproc --help" "$(cat "$TMP/want")" "$(grep -- '^--' "$TMP/o")"
check "  --quiet and --progress among them" grep -qx -- --progress "$TMP/o"
eq "kutrace record --backend=<TAB>: bpf module" "$(printf 'bpf\nmodule')" "$(comp "$TMP/c" kutrace record --backend =)"
eq "kutrace record -- kutrace_po<TAB>: a command to run" "kutrace_postproc" \
	"$(comp "$TMP/c" kutrace record -o x.trace -- kutrace_po)"
eq "kutrace record -- CMD x<TAB>: its arguments are files" "x.trace" \
	"$(comp "$TMP/c" kutrace record -- ls x)"
if [ -x "$B/kutrace_sql" ]; then
	eq "kutrace sql --report s<TAB>: the report names of kutrace_sql --help" "syscalls" \
		"$(comp "$TMP/c" kutrace sql x.tables --report s)"
	eq "kutrace sql b<TAB>: build, traces, JSON, directories" "$(printf 'basic.json\nbasic.trace\nbdir\nbuild')" \
		"$(comp "$TMP/c" kutrace sql b)"
fi

# ---- the progress line -------------------------------------------------
if ! command -v script > /dev/null || [ ! -x "$B/kutrace_synth" ]; then
	skip "progress: no script(1) (util-linux) or no kutrace_synth (make test-progs)"; exit 0
fi
P=$TMP/p
mkdir -p "$P"
# About 0.3 s of work (2.5 M rows), to the row stream: no JSON on disk.
"$B/kutrace_synth" -m 16 -o "$P/s.trace" > /dev/null 2>&1
PP="$B/kutrace_postproc $P/s.trace --no-json --rows-fd 3 3>/dev/null"
# pty CMD: CMD's stderr (and stdout) through a pseudo-terminal
pty() { script -qec "$1" /dev/null < /dev/null; }
esc=$(printf '\033')
pty "$PP" > "$P/tty" 2>&1
tr '\r' '\n' < "$P/tty" | grep -o "kutrace_postproc: rows [0-9.]* [kM]\{0,1\} *[0-9]* %  [0-9.]* s" > "$P/lines"
between "on a terminal: progress lines 'kutrace_postproc: rows 1.2 M  45 %  0.3 s'" 1 1000 "$(lines "$P/lines")"
check "  the rows and the percentage grow" sh -c "[ \"\$(head -1 '$P/lines')\" != \"\$(tail -1 '$P/lines')\" ] || [ \$(wc -l < '$P/lines') = 1 ]"
secs=$(tail -1 "$P/lines" | awk '{ print $(NF - 1) }')
draws=$(grep -o "${esc}\[Kkutrace_postproc: [rb]" "$P/tty" | wc -l)
check "  at most 10 redraws a second ($draws in ${secs} s)" awk -v d="$draws" -v s="$secs" 'BEGIN { exit !(d <= 10 * s + 2) }'
check "  erased before the closing line (it starts a line of its own)" \
	grep -q "${esc}\[Kkutrace_postproc: [0-9]* events" "$P/tty"
eval "$PP" 2> "$P/file"
eq "stderr a file: no progress, only the closing line" \
	"1 0" "$(lines "$P/file") $(grep -c "$esc\|rows" "$P/file")"
pty "$PP --quiet" > "$P/tty" 2>&1
eq "--quiet on a terminal: no progress line" "0" "$(grep -c "$esc" "$P/tty")"
eval "$PP --progress" 2> "$P/file"
check "--progress into a file: the progress lines" grep -q "kutrace_postproc: rows" "$P/file"
"$B/kutrace_postproc" "$P/s.trace" --quiet --progress > /dev/null 2> "$P/e"; rc=$?
eq "--quiet and --progress together: exit 1, one line" "1 1" "$rc $(lines "$P/e")"
if [ -x "$B/kutrace_sql" ]; then
	pty "$B/kutrace_sql build $P/s.trace -o $P/s.tables" > "$P/tty" 2>&1
	check "kutrace_sql build on a terminal: kutrace_postproc's rows, then its steps" \
		sh -c "grep -q 'kutrace_postproc: rows' '$P/tty' && grep -q 'kutrace_sql: tables: .* done' '$P/tty'"
	check "  the last line erased, then 'tables ->'" grep -q "${esc}\[Kkutrace_sql: tables -> " "$P/tty"
	"$B/kutrace_sql" build "$P/s.trace" -o "$P/s.tables" 2> "$P/file"
	eq "  stderr a file: no progress from either program" "0" "$(grep -c "$esc\|rows\|done" "$P/file")"
fi

# kutrace flight's configuration file (kutrace-recorder.service's): a bad
# line, a missing file and a bad value are one line and exit 2, before
# any backend is touched.
F=$TMP/flight
mkdir -p "$F"
printf 'trigger = crash\nbefore 2\n' > "$F/bad.conf"
flight_refused() {
	local what=$1 msg=$2; shift 2
	(cd "$F" && "$B/kutrace" flight "$@" > out 2> err)
	local rc=$?
	eq "flight: $what: exit 2" 2 "$rc"
	eq "flight: $what: one line" 1 "$(wc -l < "$F/err")"
	check "flight: $what: it says '$msg'" grep -qF -- "$msg" "$F/err"
}
flight_refused "a line that is not key = value" "bad.conf:2: not \`key = value\`" --config bad.conf
flight_refused "a missing configuration file" "--config nosuch.conf: No such file or directory" --config nosuch.conf
flight_refused "--max-disk-mb 0" "--max-disk-mb 0" --max-disk-mb 0
flight_refused "--backend nosuch" "--backend nosuch: module or bpf" --backend nosuch
eq "flight: nothing left behind" "bad.conf err out" "$(ls "$F" | tr '\n' ' ' | sed 's/ $//')"

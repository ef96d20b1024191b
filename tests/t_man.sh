#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Man pages (man/man*/*.N): mandoc -T lint clean, man -l renders each
# without warnings, every installed program has a page, every function
# libkutrace.so exports has a man3 page that resolves to libkutrace(3),
# and every option a program's --help lists appears in its page (so the
# pages stay true).
. tests/lib.sh
pages=$(ls man/man*/*.[0-9])
# A ".so man3/libkutrace.3" stub (one page per function, as Debian does)
# is resolved relative to the top of the man tree, as man(1) does for an
# installed page: the checks run from man/ with the path below it.  The
# one warning mandoc has for any .so ("fragile, better use ln") is
# expected; dh_installman turns such stubs into symlinks in the package.
lint() {
	(cd man && mandoc -T lint -W warning "${1#man/}") 2>&1 |
		grep -v 'WARNING: \.so is fragile, better use ln(1): so man3/libkutrace\.3$'
}
if command -v mandoc >/dev/null; then
	for p in $pages; do
		if ! lint "$p" > "$TMP/lint"; then
			ok "mandoc -T lint $p"
		else
			nok "mandoc -T lint $p"; sed 's/^/#   /' "$TMP/lint" | head
		fi
	done
else
	skip "mandoc lint: mandoc not installed (tests/deps/docs.apt)"
fi
if command -v man >/dev/null; then
	for p in $pages; do
		(cd man && MANWIDTH=80 man -l "${p#man/}") > "$TMP/out" 2> "$TMP/err"
		name=$(basename "$p"); name=${name%.*}
		if [ -s "$TMP/err" ]; then
			nok "man -l $p: warnings"; sed 's/^/#   /' "$TMP/err" | head
		elif grep -q "^NAME" "$TMP/out" && grep -qi "$name" "$TMP/out"; then
			ok "man -l $p renders ($(wc -l < "$TMP/out") lines)"
		else
			nok "man -l $p renders"
		fi
	done
else
	skip "man -l: man not installed"
fi

# Every function libkutrace.so exports (its version script) has a page of
# its own name, `man 3 kutrace_go`, that renders libkutrace(3) with the
# function in its NAME line.  A function without a page fails here.
api=$(sed -n '/global:/,/local:/p' libkutrace/libkutrace.map | grep -o '^[[:space:]]*[a-z_]*;' | tr -d ' \t;')
[ "$(echo $api | wc -w)" -ge 11 ] || nok "libkutrace.map lists the exported functions ($(echo $api | wc -w))"
for f in $api; do
	if [ ! -f "man/man3/$f.3" ]; then
		nok "$f (libkutrace.map) has a man3 page"; continue
	fi
	(cd man && MANWIDTH=200 man -l "man3/$f.3" 2> "$TMP/err") |
		sed -n '/^NAME/,/^[A-Z]/p' > "$TMP/name"
	if [ ! -s "$TMP/err" ] && grep -qw "$f" "$TMP/name"; then
		ok "man 3 $f resolves to a page naming it"
	else
		nok "man 3 $f resolves to a page naming it"; sed 's/^/#   /' "$TMP/err" | head -3
	fi
done

# The programs `make install` installs, from the install fragment.
progs="$(make -s --no-print-directory print-install-progs) $(make -s --no-print-directory print-install-sql)"
[ -n "$progs" ] || nok "make print-install-progs lists the installed programs"
for p in $progs; do
	page=man/man1/$p.1
	if [ ! -f "$page" ]; then
		nok "$p has a man page"; continue
	fi
	if [ ! -x "$KT_BIN/$p" ]; then
		skip "$p: options: no $KT_BIN/$p"; continue
	fi
	# Options named in --help (-x, -word, --long-word), each must be in
	# the page (troff escapes \- removed).
	"$KT_BIN/$p" --help > "$TMP/help" 2>&1
	src=$(sed 's/\\-/-/g; s/\\(aq//g' "$page")
	missing=""
	for o in $(grep -o -- '\(^\|[][ (|]\)--\?[a-zA-Z][-a-zA-Z]*' "$TMP/help" | sed 's/^[][ (|]//' | sort -u); do
		case $o in --help|-h) continue ;; esac
		printf '%s' "$src" | grep -q -- "$o" || missing="$missing $o"
	done
	if [ -z "$missing" ]; then
		ok "$p: man page documents every option of --help"
	else
		nok "$p: man page lacks$missing"
	fi
done

# Cross references: every SEE ALSO page of ours exists.
for p in $pages; do
	for ref in $(sed -n '/^\.SH SEE ALSO/,/^\.SH/p' "$p" | grep -o '^\.BR [a-z_]* ([0-9])' | sed 's/^\.BR //; s/ (/./; s/)//'); do
		case $ref in kutrace*|libkutrace*|rawtoevent*|eventtospan*|span*|samptoname*|makeself*|unmakeself*|checktrace*)
			[ -f "man/man${ref##*.}/$ref" ] || nok "$p refers to missing page $ref" ;;
		esac
	done
done
ok "SEE ALSO references checked"

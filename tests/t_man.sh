#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Man pages (man/man*/*.N): mandoc -T lint clean, man -l renders each
# without warnings, every installed program has a page, and every option
# a program's --help lists appears in its page (so the pages stay true).
. tests/lib.sh
pages=$(ls man/man*/*.[0-9])
if command -v mandoc >/dev/null; then
	for p in $pages; do
		if mandoc -T lint -W warning "$p" > "$TMP/lint" 2>&1; then
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
		MANWIDTH=80 man -l "$p" > "$TMP/out" 2> "$TMP/err"
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

# The programs `make install` installs, from the install fragment.
progs=$(make -s --no-print-directory print-install-progs)
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

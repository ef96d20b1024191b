#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# A fresh machine (issue 15): plain `make` needs exactly the packages of
# tests/deps/build.apt, and without one of them it stops with one line
# naming what to install.  Checked from the build itself: every header the
# compiler opened (the .d files) and every program the build runs belongs
# to a package of build.apt, to one they depend on, or to a minimal Debian
# (Essential / Priority required, what mmdebstrap's minbase holds).
. tests/lib.sh
# Plain `make` builds the programs and examples only; the suites'
# programs (tests/, bench/: the cmocka unit tests, the test tools) come
# from `make test-progs`, so that a user's build needs no libcmocka-dev.
# Both from the commands make would run in an empty build tree.
make -s -nB BUILD="$TMP/nb" HAVE_BPF=0 all > "$TMP/all.n" 2>&1
make -s -nB BUILD="$TMP/nb" HAVE_BPF=0 test-progs > "$TMP/tp.n" 2>&1
tp=$(grep -o -- "-o $TMP/nb/bin/[a-z0-9_]*" "$TMP/tp.n" | sed 's|.*/||' | sort -u | xargs)
check "fresh: plain make links no test program (make test-progs links $(echo $tp | wc -w))" \
	sh -c "grep -q ' $TMP/nb/bin/kutrace_control ' '$TMP/all.n' && ! grep -q 'obj/tests/\|obj/bench/\|-lcmocka' '$TMP/all.n'"
for p in unit_lib unit_core kutrace_synth spancheck ktcheck bench_load kutrace_bench; do
	echo " $tp " | grep -q " $p " || nok "fresh: make test-progs builds $p"
done
if ! command -v dpkg-query >/dev/null || ! command -v apt-cache >/dev/null; then
	skip "fresh: not a Debian system"; exit 0
fi
pkgs=$(sed 's/#.*//' tests/deps/build.apt | xargs)
# the packages build.apt brings (apt's view: the first alternative of
# each dependency is what apt installs)
apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts \
	--no-breaks --no-replaces --no-enhances $pkgs 2>/dev/null |
	grep -v '^ ' | sed 's/:amd64$//' | sort -u > "$TMP/closure"
dpkg-query -W -f='${Package} ${Essential} ${Priority}\n' |
	awk '$2 == "yes" || $3 == "required" { print $1 }' | sort -u > "$TMP/base"
sort -u "$TMP/closure" "$TMP/base" > "$TMP/allowed"
# owner PATH: the package that installed PATH (merged /usr: try both)
owner() {
	local p r
	local f; f=$(readlink -f "$1")
	for p in "$1" "$f" "${1#/usr}" "${f#/usr}"; do
		r=$(dpkg -S "$p" 2>/dev/null | grep -v "^diversion" | head -1)
		[ -n "$r" ] && { echo "${r%%:*}"; return 0; }
	done
	return 1
}

# Every header: a fresh build tree, the compiler listing each header it
# opens (-H; the .d files of -MMD leave the system headers out).
B=$TMP/build
# The BPF backend is optional (tests/deps/bpf.apt): left out here; so are
# the SQL programs, built where `make deps` has put DuckDB (tests/deps/
# sql.apt and duckdb.sh): a plain make on a fresh machine has neither.
if ! make -s -j2 BUILD="$B" CC="cc -H" HAVE_BPF=0 DUCKDB_DIR=/nonexistent all lib-shared > "$TMP/make.out" 2>&1; then
	nok "fresh: make all"; grep -v '^\.' "$TMP/make.out" | tail -20 | sed 's/^/#   /'; exit 0
fi
sed -n 's/^\.\.* \(\/.*\)/\1/p' "$TMP/make.out" | sort -u > "$TMP/headers"
n=0 bad=""
while read -r h; do
	n=$((n + 1))
	p=$(owner "$h") || { bad="$bad $h(no package)"; continue; }
	grep -qx "$p" "$TMP/allowed" || bad="$bad $h($p)"
done < "$TMP/headers"
check "fresh: the $n headers the compiler opened come from build.apt's packages${bad:+:$bad}" \
	test -z "$bad" -a "$n" -gt 20
# Every program: the first word of each command make runs, and the
# commands of the generator script.
make -s -nB BUILD="$B" HAVE_BPF=0 all lib-shared 2>/dev/null | awk '{ print $1 }' |
	grep -E '^[a-z][a-z0-9_.+-]*$' > "$TMP/progs"
grep -ohE '\| *[a-z]+|^[a-z]+' libkutrace/gen_tables.sh | tr -d '| ' >> "$TMP/progs"
bad="" n=0
for c in $(sort -u "$TMP/progs"); do
	case $c in echo|printf|cd|for|if|set|test|exit|true|emit|then|fi|do|done) continue ;; esac
	f=$(command -v "$c") || { bad="$bad $c(not found)"; continue; }
	n=$((n + 1))
	p=$(owner "$f") || { bad="$bad $c(no package)"; continue; }
	grep -qx "$p" "$TMP/allowed" || bad="$bad $c($p)"
done
check "fresh: the $n programs the build runs come from build.apt or a minimal Debian${bad:+:$bad}" \
	test -z "$bad" -a "$n" -gt 3
# The probe names each package whose header or program is missing.  A
# compiler that sees no system headers stands for a machine without them.
make -n all CC="cc -nostdinc" > "$TMP/probe.out" 2>&1
check "fresh: without the headers, make stops with one line" test "$(wc -l < "$TMP/probe.out")" = 1
check "fresh: ... naming the packages: $(cat "$TMP/probe.out")" \
	grep -q "apt-get install libjansson-dev zlib1g-dev libelf-dev " "$TMP/probe.out"
check "fresh: plain make does not ask for cmocka" sh -c "! grep -q cmocka '$TMP/probe.out'"
make -n test-progs CC="cc -nostdinc" > "$TMP/probe.out" 2>&1
check "fresh: make test-progs asks for cmocka too: $(cat "$TMP/probe.out")" \
	grep -q "apt-get install libjansson-dev zlib1g-dev libelf-dev libcmocka-dev " "$TMP/probe.out"
check "fresh: with them, no probe message" sh -c "make -n all 2>&1 | grep -vq 'missing build packages'"

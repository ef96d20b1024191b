#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The kernel patches themselves (no build): each applies with
# `patch -p1 --fuzz=0` to the Debian source it names, passes
# scripts/checkpatch.pl --strict, keeps CONFIG_KUTRACE default n and
# 64-bit only, and patches/pairs.sh turns it into .original/.patched pairs
# that are the source and the patched source.  And the trace format stays
# in one header (issue 2): no tracked file but include/kutrace/format.h
# defines a KUTRACE_ constant; the patches carry that file itself.
. tests/lib.sh
. tests/vm/lib.sh

fmt=include/kutrace/format.h
# kfile PATCH PATH: the new file PATH as PATCH creates it
kfile() {
	awk -v p="b/$2" '/^\+\+\+ / { on = ($2 == p); next }
		on && /^@@/ { next } on && /^\+/ { print substr($0, 2); next } { on = 0 }' "$1"
}
# Every "#define KUTRACE_..." in a tracked file other than format.h (in a
# patch: on a context or added line, except in the kutrace_format.h copy):
# "FILE:LINE: NAME", marked "format.h's" when format.h defines NAME too.
# Include guards (KUTRACE_..._H) are the only other KUTRACE_ macros allowed.
fmt_defs() {
	local names
	names=$(sed -n 's/^[[:space:]]*#[[:space:]]*define[[:space:]]\{1,\}\(KUTRACE_[A-Za-z0-9_]*\).*/\1/p' "$fmt" | tr '\n' ' ')
	{ git -C "$KT_ROOT" ls-files 2>/dev/null ||
	  (cd "$KT_ROOT" && find . -type f ! -path './.git/*' ! -path './build*' | sed 's|^\./||'); } |
	grep -vx "$fmt" | (cd "$KT_ROOT" && xargs -r -d '\n' grep -lIE '#[[:space:]]*define[[:space:]]+KUTRACE_' 2>/dev/null) |
	(cd "$KT_ROOT" && xargs -r -d '\n' awk -v names="$names" '
		BEGIN { n = split(names, a, " "); for (i = 1; i <= n; i++) fmt[a[i]] = 1 }
		FNR == 1 { patch = FILENAME ~ /\.(patch|diff)$/; where = FILENAME; copy = 0 }
		patch && /^\+\+\+ / { t = $2; sub(/^b\//, "", t); where = FILENAME " (" t ")"
			copy = t == "include/linux/kutrace_format.h"; next }
		{ l = $0; if (patch) { if (copy || l !~ /^[+ ]/) next; l = substr(l, 2) } }
		l ~ /^[ \t]*#[ \t]*define[ \t]+KUTRACE_/ {
			sub(/^[ \t]*#[ \t]*define[ \t]+/, "", l); sub(/[^A-Za-z0-9_].*/, "", l)
			if (l in fmt) print FILENAME ":" FNR ": " l " (format.h'"'"'s, in " where ")"
			else if (l !~ /_H$/) print FILENAME ":" FNR ": " l " (not in format.h, in " where ")"
		}')
}
fmt_defs > "$TMP/defs"
if grep -q "format.h's" "$TMP/defs"; then
	nok "no format.h constant is #defined a second time: $(grep -c "format.h's" "$TMP/defs")"
	grep "format.h's" "$TMP/defs" | head -20 | sed 's/^/#   /'
else
	ok "no format.h constant is #defined a second time (whole tree, patches included)"
fi
if grep -q "not in format.h" "$TMP/defs"; then
	nok "KUTRACE_ constants #defined outside $fmt: $(grep -c "not in format.h" "$TMP/defs")"
	grep "not in format.h" "$TMP/defs" | head -20 | sed 's/^/#   /'
else
	ok "no KUTRACE_ constant (include guards aside) is #defined outside $fmt"
fi
for v in 6.1 6.12; do
	p=patches/linux-$v/kutrace.patch
	kfile "$p" include/linux/kutrace_format.h > "$TMP/kf-$v"
	same_file "$v: the patch's include/linux/kutrace_format.h is $fmt" "$fmt" "$TMP/kf-$v"
	kfile "$p" include/linux/kutrace.h > "$TMP/kh-$v"
	same_file "$v: the patch's include/linux/kutrace.h is patches/common/kutrace.h" patches/common/kutrace.h "$TMP/kh-$v"
	kfile "$p" kernel/kutrace/kutrace.c > "$TMP/kc-$v"
	same_file "$v: the patch's kernel/kutrace/kutrace.c is patches/common/kutrace.c" patches/common/kutrace.c "$TMP/kc-$v"
done

for v in 6.1 6.12; do
	p=patches/linux-$v/kutrace.patch
	want=$(sed -n 's/^Source: linux-source-[0-9.]* \([^ ]*\).*/\1/p' patches/linux-$v/README.md)
	check "$v: patches/linux-$v/README.md names the source version" test -n "$want"
	if ! dpkg-query -W -f='${Status}' linux-source-$v 2>/dev/null | grep -q "ok installed"; then
		if [ "$(id -u)" = 0 ]; then
			DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends linux-source-$v >/dev/null 2>&1
		fi
	fi
	have=$(dpkg-query -W -f='${Version}' linux-source-$v 2>/dev/null)
	if [ -z "$have" ]; then
		skip "$v: linux-source-$v not installed (needs root for apt-get)"
		continue
	fi
	files=$(sed -n 's|^+++ b/\([^[:space:]]*\).*|\1|p' "$p")
	# Debian moves a series to new point releases (6.12.117 -> 6.12.118)
	# and drops old ones from the archive: what decides is whether the
	# patch fits the source installed (patches/refresh.sh -n: --fuzz=0, no
	# offsets), never the version it was made for.  The patched-kernel
	# suites then build and boot it.
	if [ "${want%%-*}" = "${have%%-*}" ]; then
		diag "$v: the patch was made for $want; installed $have"
	else
		diag "$v: the patch was made for $want, applied to $have (a newer point release: patches/refresh.sh $v records it)"
	fi
	if patches/refresh.sh -n "$v" > "$TMP/fit" 2>&1; then
		ok "$v: patch -p1 --fuzz=0 applies cleanly to $have ($(echo "$files" | wc -w) files)"
	else
		nok "$v: patch -p1 --fuzz=0 applies cleanly to $have"; sed 's/^/#   /' "$TMP/fit" | head -20
	fi
	# A hooked line that moved: the failure names the file and the hunk.
	awk '/^\+\+\+ b\/arch\/x86\/entry\/common.c/ { f = 1 } f && /^@@/ { h++ }
		f && h == 2 && /^ / && !d { print " a line that moved"; d = 1; next } { print }' "$p" > "$TMP/moved.patch"
	rc=0; patches/refresh.sh -n -p "$TMP/moved.patch" "$v" > "$TMP/moved" 2>&1 || rc=$?
	eq "$v: a patch whose hooked line moved does not fit" 1 "$rc"
	check "$v: ... and the failure names the file and the hunk" \
		grep -qx 'refresh: arch/x86/entry/common.c: Hunk #2 FAILED at [0-9]*\.' "$TMP/moved"
	d=$TMP/src-$v
	mkdir -p "$d"
	# only the files the patch touches (new files do not exist upstream)
	tar -C "$d" -xJf /usr/src/linux-source-$v.tar.xz --wildcards \
		$(for f in $files; do echo "linux-source-$v/$f"; done) 2>/dev/null
	check "$v: CONFIG_KUTRACE: bool, depends on 64BIT, default n" \
		sh -c "grep -A3 '^+config KUTRACE' '$p' | grep -q 'depends on 64BIT' && ! grep -A3 '^+config KUTRACE' '$p' | grep -q 'default y'"
	if [ -x /var/cache/kutrace/checkpatch/checkpatch.pl ] || tests/vm/get-checkpatch.sh >/dev/null 2>&1; then
		(cd "$TMP" && /var/cache/kutrace/checkpatch/checkpatch.pl --no-tree --strict "$KT_ROOT/$p") > "$TMP/cp" 2>&1
		if grep -q 'total: 0 errors, 0 warnings, 0 checks' "$TMP/cp"; then
			ok "$v: checkpatch.pl --strict: no errors, warnings or checks"
		else
			nok "$v: checkpatch.pl --strict"; grep -v '^$' "$TMP/cp" | head -20 | sed 's/^/#   /'
		fi
	else
		skip "$v: checkpatch.pl unavailable"
	fi
	rm -rf "$TMP/pairs"
	if patches/pairs.sh "$d/linux-source-$v" "$p" "$TMP/pairs" > "$TMP/pairs.list" 2>&1; then
		n=$(wc -l < "$TMP/pairs.list")
		eq "$v: pairs.sh writes one .original/.patched pair per file" "$(echo "$files" | wc -w)" "$n"
		cmpok=1
		for f in $files; do
			[ -f "$d/linux-source-$v/$f" ] || continue
			cmp -s "$d/linux-source-$v/$f" "$TMP/pairs/$f.original" || cmpok=0
		done
		eq "$v: every .original is the unpatched source" 1 "$cmpok"
		check "$v: .patched files carry the hooks" grep -q kutrace_syscall "$TMP/pairs/arch/x86/entry/common.c.patched"
	else
		nok "$v: pairs.sh"; sed 's/^/#   /' "$TMP/pairs.list" | head
	fi
done

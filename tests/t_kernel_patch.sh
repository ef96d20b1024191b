#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The kernel patches themselves (no build): each applies with
# `patch -p1 --fuzz=0` to the Debian source it names, passes
# scripts/checkpatch.pl --strict, keeps CONFIG_KUTRACE default n and
# 64-bit only, and patches/pairs.sh turns it into .original/.patched pairs
# that are the source and the patched source.
. tests/lib.sh
. tests/vm/lib.sh
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
	eq "$v: installed linux-source-$v is the version the patch is for" "$want" "$have"
	files=$(sed -n 's|^+++ b/\([^[:space:]]*\).*|\1|p' "$p")
	d=$TMP/src-$v
	mkdir -p "$d"
	# only the files the patch touches (new files do not exist upstream)
	tar -C "$d" -xJf /usr/src/linux-source-$v.tar.xz --wildcards \
		$(for f in $files; do echo "linux-source-$v/$f"; done) 2>/dev/null
	if (cd "$d/linux-source-$v" && patch -p1 --fuzz=0 --dry-run < "$KT_ROOT/$p") > "$TMP/dry" 2>&1 &&
	   ! grep -qi 'fuzz\|offset\|fail' "$TMP/dry"; then
		ok "$v: patch -p1 --fuzz=0 applies cleanly ($(echo "$files" | wc -w) files)"
	else
		nok "$v: patch -p1 --fuzz=0 applies cleanly"; sed 's/^/#   /' "$TMP/dry" | head
	fi
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

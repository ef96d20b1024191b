#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Refreshes patches/linux-SERIES/kutrace.patch to the linux-source-SERIES
# Debian has installed (a new point release, 6.12.117 -> 6.12.118): the
# files the patch touches are unpacked from /usr/src/linux-source-SERIES.tar.xz,
# the patch applied with `patch -p1 --fuzz=0`, and the patch written anew
# by mkdiff.sh with the new release in its subject; the README's
# "Source:" line follows.
#
#   patches/refresh.sh [-n] [-k DIR] [-p PATCH] SERIES      SERIES: 6.1 | 6.12
#     -n        only check that the patch fits (a dry run): write nothing
#     -k DIR    unpack into DIR and keep it (default: a temporary directory)
#     -p PATCH  check or refresh PATCH instead of patches/linux-SERIES/kutrace.patch
#
# When a hunk does not apply (the release moved a hooked line), nothing is
# written: it names each file and hunk that failed and keeps the tree with
# the `.rej` files and every changed file's `FOO.kt-orig`.  Redo those
# hunks by hand in the tree, then run
#   patches/mkdiff.sh DIR/linux-source-SERIES "Debian X.Y.Z" > patches/linux-SERIES/kutrace.patch
# and the checks of patches/README.md ("Refreshing a patch").
set -eu
here=$(cd "$(dirname "$0")" && pwd)
usage="usage: patches/refresh.sh [-n] [-k DIR] [-p PATCH] 6.1|6.12"
keep="" dry=0 p=""
while getopts nk:p: o; do
	case $o in
	n) dry=1 ;;
	k) keep=$OPTARG ;;
	p) p=$OPTARG ;;
	*) echo "$usage" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
series=${1:?$usage}
case $series in 6.1|6.12) ;; *) echo "refresh: unknown series $series (6.1, 6.12)" >&2; exit 2 ;; esac
pkg=linux-source-$series
[ -n "$p" ] || p=$here/linux-$series/kutrace.patch
[ -f "$p" ] || { echo "refresh: no patch $p" >&2; exit 2; }
readme=$here/linux-$series/README.md
tarball=/usr/src/$pkg.tar.xz
ver=$(dpkg-query -W -f='${Version}' "$pkg" 2>/dev/null || true)
[ -n "$ver" ] && [ -f "$tarball" ] ||
	{ echo "refresh: $pkg is not installed (apt-get install $pkg)" >&2; exit 1; }
upstream=${ver%%-*}
old=$(sed -n 's/^Source: [^ ]* \([^ ]*\).*/\1/p' "$readme")

if [ -n "$keep" ]; then
	d=$keep
	mkdir -p "$d"
else
	d=$(mktemp -d)
	trap 'rm -rf "$d"' EXIT
fi
rm -rf "${d:?}/$pkg"
# the files the patch changes (new files are not in the source)
files=$(sed -n 's|^+++ b/\([^[:space:]]*\).*|\1|p' "$p")
tar -C "$d" -xJf "$tarball" --wildcards \
	$(for f in $files; do echo "$pkg/$f"; done) 2>/dev/null || true
t=$d/$pkg
how="-b -z .kt-orig"
[ $dry = 0 ] || how=--dry-run
if ! (cd "$t" && patch -p1 --fuzz=0 $how < "$p") > "$d/apply.log" 2>&1 ||
   grep -qi 'fuzz\|offset\|FAILED' "$d/apply.log"; then
	rm -f "$t"/include/linux/kutrace*.h.kt-orig "$t"/kernel/kutrace/*.kt-orig
	# "patching file F" then "Hunk #N FAILED at L." for the hunks that failed
	awk '/^(patching|checking) file / { f = $3 }
	     /^Hunk #[0-9]+ (FAILED|succeeded)/ { print "refresh: " f ": " $0 }' "$d/apply.log" >&2
	if [ $dry = 1 ]; then
		echo "refresh: the patch made for $old does not fit $pkg $ver (patch -p1 --fuzz=0)" >&2
	else
		echo "refresh: the patch made for $old does not fit $pkg $ver (patch -p1 --fuzz=0): tree kept in $t" >&2
		trap - EXIT
	fi
	exit 1
fi
# mkdiff.sh takes every FOO.kt-orig as a changed file: the new files have none
rm -f "$t"/include/linux/kutrace*.h.kt-orig "$t"/kernel/kutrace/*.kt-orig
if [ $dry = 1 ]; then
	echo "refresh: the patch made for $old fits $pkg $ver ($(echo "$files" | wc -w) files, patch -p1 --fuzz=0, no offsets)"
	exit 0
fi
"$here/mkdiff.sh" "$t" "Debian $upstream" > "$d/kutrace.patch"
mv "$d/kutrace.patch" "$p"
sed -i "s|^Source: $pkg [^ ]*|Source: $pkg $ver|" "$readme"
echo "refresh: patches/linux-$series/kutrace.patch: made for $old, now for $ver"

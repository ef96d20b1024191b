#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# For porters: the original KUtrace distribution shipped each patched
# kernel file as a pair FOO.original / FOO.patched.  This writes those
# pairs for every file a kutrace patch touches:
#
#   patches/pairs.sh KERNEL_TREE PATCH OUTDIR
#   e.g. patches/pairs.sh /usr/src/linux-source-6.1 patches/linux-6.1/kutrace.patch pairs-6.1
#
# KERNEL_TREE is an unpatched tree of the version the patch names.  New
# files get an empty FOO.original.  To port to another version, edit the
# .patched files against that version's sources, or edit a tree in place
# keeping FOO.kt-orig copies and run patches/mkdiff.sh.
set -eu
tree=$(cd "$1" && pwd)
patchf=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
out=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
files=$(sed -n 's|^+++ b/\([^[:space:]]*\).*|\1|p' "$patchf")
mkdir -p "$tmp/a" "$tmp/b"
for f in $files; do
	mkdir -p "$tmp/a/$(dirname "$f")"
	if [ -f "$tree/$f" ]; then cp "$tree/$f" "$tmp/a/$f"; fi
done
cp -a "$tmp/a/." "$tmp/b/"
(cd "$tmp/b" && patch -p1 --fuzz=0 --no-backup-if-mismatch -s < "$patchf")
for f in $files; do
	mkdir -p "$out/$(dirname "$f")"
	if [ -f "$tmp/a/$f" ]; then cp "$tmp/a/$f" "$out/$f.original"
	else : > "$out/$f.original"; fi
	cp "$tmp/b/$f" "$out/$f.patched"
	echo "$out/$f.original $out/$f.patched"
done

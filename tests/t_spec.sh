#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The specification lives in the repository (docs/spec/): every citation of
# it in code, comments, docs, man pages and kernel patches names a file of
# docs/spec/ and a section that file has, nothing points at a spec outside
# the tree or at a numbered "bug N" list that is not here, and the images
# the spec shows exist.  The checker is tests/tools/speccite.py; a small
# tree of bad citations first proves that it reports each kind.
. tests/lib.sh
if ! command -v python3 >/dev/null; then
	skip "spec citations: python3 not installed (tests/deps/tools.apt)"
	exit 0
fi

# The checker must catch each kind of bad citation.  The spec names are
# built from parts so that this file itself cites nothing.
f=FORMATS v=VIEWER h=HOOKS
mkdir -p "$TMP/bad/docs/spec" "$TMP/bad/src"
cp docs/spec/*.md "$TMP/bad/docs/spec/"
printf '/* see %s.md 3.7 */\n' "$f" > "$TMP/bad/src/bare.c"
printf '/* see ../%s/spec/%s.md 3.7 */\n' shared "$f" > "$TMP/bad/src/shared.c"
printf '/* see docs/spec/%s.md 3.99 and docs/spec/%s.md H99 */\n' "$f" "$h" > "$TMP/bad/src/nosec.c"
printf '// docs/spec/%s.md section 6 rows 63-99\n' "$v" > "$TMP/bad/src/norow.js"
printf '# the original got this wrong (bug %d)\n' 24 > "$TMP/bad/src/bug.sh"
printf '/* docs/spec/%s.md 1.4 - 1.10, 8.20; docs/spec/%s.md H7-H9, 2.5 E */\n' "$f" "$h" > "$TMP/bad/src/good.c"
python3 tests/tools/speccite.py "$TMP/bad" > "$TMP/bad.out" 2>/dev/null
for what in "bare.c:1: names $f.md without" "shared.c:1: cites a spec outside" \
	"nosec.c:1: $f.md has no section 3.99" "nosec.c:1: $h.md has no section H99" \
	"norow.js:1: $v.md section 6 has no row 99" "bug.sh:1: \"bug N\""; do
	check "speccite reports $what" grep -qF "$what" "$TMP/bad.out"
done
check "speccite accepts ranges, list items (8.20) and hook numbers" \
	sh -c "! grep -q 'good.c' '$TMP/bad.out'"

# The tree itself.
if python3 tests/tools/speccite.py . > "$TMP/out" 2> "$TMP/count"; then
	ok "every spec citation resolves in docs/spec ($(cat "$TMP/count"))"
else
	nok "every spec citation resolves in docs/spec: $(wc -l < "$TMP/out") problems"
	sed 's/^/#   /' "$TMP/out" | head -30
fi

# Images the spec shows.
missing=""
for img in $(grep -ho 'img/[A-Za-z0-9_.-]*\.png' docs/spec/*.md | sort -u); do
	[ -f "docs/spec/$img" ] || missing="$missing $img"
done
if [ -z "$missing" ]; then ok "every image docs/spec shows is in docs/spec/img"
else nok "docs/spec images missing:$missing"; fi

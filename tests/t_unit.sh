#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# cmocka unit tests, and the rule that format constants live in one header.
. tests/lib.sh
out=$("$KT_BIN/unit_lib" 2>&1); rc=$?
echo "$out" | sed 's/^/# /'
check "cmocka unit tests of the libraries" test $rc -eq 0
# A cmocka program NAME must run and pass exactly N tests.
cmocka() {
	local out
	out=$("$KT_BIN/$1" 2>&1)
	echo "$out" | sed 's/^/# /'
	eq "cmocka unit tests of $3: $2 run, $2 passed" "$2 $2" \
		"$(echo "$out" | sed -n 's/.*\] \([0-9]*\) test(s) run.*/\1/p') $(echo "$out" | sed -n 's/.*PASSED  \] \([0-9]*\) test.*/\1/p')"
}
# The module's trace-buffer core in userspace (module/user/): claim,
# headers, fusion, TSDELTA, abandoned blocks, wraparound, full buffer.
cmocka unit_core 13 "the module core"
# Raw blocks to events (lib/decode/decode.c), one test per class of entry, and
# events to spans (lib/spans/span.c), one per kind of nesting.
cmocka unit_decode 9 "kt_decode_block"
cmocka unit_span 9 "the span builder"
# Row lines (lib/rows/json.c): every writer's bytes, printf's digits, parse back.
cmocka unit_row 5 "the row module and the page from rows"

# format.h compiles alone, strictly, in userland.
check "format.h compiles alone (C11 -pedantic)" \
	sh -c 'echo "#include \"kutrace/format.h\"" | cc -std=c11 -pedantic -Wall -Wextra -Werror -Iinclude -fsyntax-only -x c -'

# No KUTRACE_ constant is defined outside format.h.
dups=$(grep -rn --include='*.c' --include='*.h' -E '^\s*#\s*define\s+KUTRACE_[A-Z0-9_]+' \
	include lib libkutrace bpf postprocess control module examples tests 2>/dev/null |
	grep -v '^include/kutrace/format.h:' | grep -v 'KUTRACE_[A-Z_]*_H\b')
if [ -z "$dups" ]; then ok "format constants defined only in include/kutrace/format.h"
else nok "format constants defined outside format.h:"; echo "$dups" | sed 's/^/#   /'; fi

# One error style: library code returns its errors; only the programs'
# helpers in lib/base/tool.c and lib/tool/ stop the program (and the
# x-allocators in lib/base/util.c, on out of memory).
calls=$(grep -nE '\b(kt_die|exit|_exit|abort)\(' lib/*/*.c libkutrace/*.c |
	grep -vE '^lib/(tool/tool[a-z_]*|base/tool)\.c:' | grep -vE '^lib/base/util\.c:[0-9]+:\s+kt_die\("out of memory')
if [ -z "$calls" ]; then ok "no library code calls kt_die or exit (lib/base/tool.c, lib/tool/ and out of memory aside)"
else nok "library code that ends the program:"; echo "$calls" | sed 's/^/#   /'; fi

# No dependency circle among the files of either library (by the symbols
# each object defines and uses), and lib/'s stage folders in the order of
# lib/README.md: a file uses (by symbol or #include) only its own folder
# and those before it; base/tool.c, which util.c's allocators stop
# through, is at the bottom, the programs' helpers in tool/ at the top.
# The objects are those of the build under test.
for d in lib libkutrace; do
	out=$(python3 tests/tools/objcycles.py "$d" "$(dirname "$KT_BIN")/obj/$d" 2>&1); rc=$?
	check "$d/: no dependency circle between its files$([ $d = lib ] && echo ", no use of a later stage's folder")" test $rc = 0
	echo "$out" | sed 's/^/#   /'
done
# ... and the check sees a use that runs back up: a copy of two stages
# where the first includes the second's header and calls its function.
m=$TMP/stages
mkdir -p "$m/src/one" "$m/src/two" "$m/obj/one" "$m/obj/two"
printf '| `one/` | `one.h` | first |\n| `two/` | `two.h` | second |\n' > "$m/src/README.md"
echo 'int one(void);' > "$m/src/one/one.h"
echo 'int two(void);' > "$m/src/two/two.h"
printf '#include "two.h"\nint one(void) { return two(); }\n' > "$m/src/one/a.c"
printf '#include "one.h"\nint two(void) { return 2; }\n' > "$m/src/two/b.c"
cc -c -I"$m/src/one" -I"$m/src/two" -o "$m/obj/one/a.o" "$m/src/one/a.c" &&
	cc -c -I"$m/src/one" -I"$m/src/two" -o "$m/obj/two/b.o" "$m/src/two/b.c"
out=$(python3 tests/tools/objcycles.py "$m/src" "$m/obj" 2>&1); rc=$?
eq "a file that uses a later stage's folder is named, by symbol and by #include" \
	"1 one/a uses two/b: two/ comes after one/ one/a.c includes two.h: two/ comes after one/" \
	"$rc $(echo "$out" | tr '\n' ' ' | sed 's/ $//')"

# The viewer's event numbers are format.h's (tests/tools/viewerconst.py);
# its modules are layers (tests/tools/viewerlayers.py).
if command -v python3 >/dev/null; then
	out=$(python3 tests/tools/viewerconst.py 2>&1); rc=$?
	check "the viewer's event constants come from format.h ($(echo "$out" | tail -1))" test $rc = 0
	[ $rc = 0 ] || echo "$out" | sed 's/^/#   /'
	out=$(python3 tests/tools/viewerlayers.py 2>&1); rc=$?
	check "the viewer's modules use only the modules before them ($(echo "$out" | tail -1))" test $rc = 0
	[ $rc = 0 ] || echo "$out" | sed 's/^/#   /'
fi


# docs/ARCHITECTURE.md follows the tree: its Layout table names exactly
# the tracked top-level folders, and every path it names in the tree
# exists (a path whose first part is no folder of the tree, as
# `trace_1/2/many`, and the kernel's own include/linux/ are not the tree's).
arch=docs/ARCHITECTURE.md
tree=$(cd "$KT_ROOT" && git ls-files 2>/dev/null | grep / | cut -d/ -f1 | grep -v '^\.' | sort -u | tr '\n' ' ')
[ -n "$tree" ] || tree=$(cd "$KT_ROOT" && find . -mindepth 1 -maxdepth 1 -type d ! -name '.*' ! -name 'build*' ! -name demo | sed 's|^\./||' | sort | tr '\n' ' ')
listed=$(awk '/^## Layout/ { on = 1; next } /^## / { on = 0 } on && /^\| `/' "$arch" |
	sed 's/^| `\([^/`]*\)\/.*/\1/' | sort -u | tr '\n' ' ')
eq "ARCHITECTURE.md's Layout lists every top-level folder, and only those" "$tree" "$listed"
missing=$(grep -o '`[a-z][a-z0-9_./-]*/[a-z0-9_.*/-]*`' "$arch" | tr -d '`' | sort -u |
	while read -r f; do
		case " $tree " in *" ${f%%/*} "*) ;; *) continue ;; esac
		case $f in include/linux/*) continue ;; esac
		case $f in *'*'*) compgen -G "$KT_ROOT/$f" > /dev/null || echo "$f" ;;
		*) [ -e "$KT_ROOT/$f" ] || echo "$f" ;; esac
	done)
check "every path ARCHITECTURE.md names exists ($(grep -o '`[a-z][a-z0-9_./-]*/[a-z0-9_.*/-]*`' "$arch" | sort -u | wc -l) paths)" test -z "$missing"
[ -z "$missing" ] || echo "$missing" | sed 's/^/#   missing: /'

#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# make install / uninstall (install.mk): the staged layout with
# DESTDIR, a program built against the installed library through
# pkg-config (shared and static) and run, the installed tools finding the
# installed viewer and man pages, and uninstall leaving nothing behind.
# When kutrace_sql is built (DuckDB: make deps): it and its private
# libduckdb.so, found through RUNPATH, and kutrace_postproc --tables.
. tests/lib.sh
MK="make -s --no-print-directory"
progs=$($MK print-install-progs)
sqlp=$($MK print-install-sql)

# ---- staged install (DESTDIR), as a package build does
D=$TMP/stage
if $MK install DESTDIR="$D" PREFIX=/usr > "$TMP/inst.log" 2>&1; then
	ok "make install DESTDIR=... PREFIX=/usr"
else
	nok "make install DESTDIR=... PREFIX=/usr"; tail -20 "$TMP/inst.log" | sed 's/^/#   /'
fi
missing=""
for f in lib/libkutrace.a lib/libkutrace.so lib/libkutrace.so.0 lib/pkgconfig/kutrace.pc \
	include/kutrace/control.h include/kutrace/format.h include/kutrace/counter.h \
	share/kutrace/viewer.html share/kutrace/viewer.js share/kutrace/viewer.css share/kutrace/pages.js share/kutrace/pages.css \
	share/man/man7/kutrace.7 share/man/man4/kutrace_mod.4 share/man/man3/libkutrace.3 \
	share/man/man1/kutrace.1 share/bash-completion/completions/kutrace \
	share/doc/kutrace/README.md share/doc/kutrace/user-guide.md share/doc/kutrace/img/rpc.png \
	share/doc/kutrace/examples/client_server.c share/doc/kutrace/examples/client_server.md; do
	[ -e "$D/usr/$f" ] || missing="$missing $f"
done
eq "installed layout: library, header, pkg-config file, viewer, man pages, bash completion, docs" "" "$missing"
eq "the installed headers are control.h, counter.h and format.h, nothing private" "control.h counter.h format.h" \
	"$(ls "$D/usr/include/kutrace" | tr '\n' ' ' | sed 's/ $//')"
# The API: what libkutrace.so exports = what control.h declares = what
# libkutrace(3) names.  A new function missing from one of them fails here.
nm -D --defined-only "$D/usr/lib/libkutrace.so.0" | awk '$2 == "T" { print $3 }' | sort > "$TMP/api.so"
grep -o '^[a-z].* \**\(kutrace_[a-z_]*\)(' "$D/usr/include/kutrace/control.h" |
	grep -o 'kutrace_[a-z_]*' | sort > "$TMP/api.h"
sed -n '/^\.SH NAME/,/^\.SH LIBRARY/p' "$D/usr/share/man/man3/libkutrace.3" |
	grep -o 'kutrace_[a-z_]*' | sort > "$TMP/api.man"
eq "libkutrace.so exports $(wc -l < "$TMP/api.so") functions, exactly those control.h declares" \
	"$(cat "$TMP/api.h")" "$(cat "$TMP/api.so")"
eq "libkutrace(3) documents exactly those" "$(cat "$TMP/api.so")" "$(cat "$TMP/api.man")"
nopage=""
for f in $(cat "$TMP/api.so"); do
	[ -f "$D/usr/share/man/man3/$f.3" ] || nopage="$nopage $f"
done
eq "every exported function has its man3 page installed (man 3 kutrace_go)" "" "$nopage"
check "libkutrace.so needs nothing but libc (no jansson, no zlib)" \
	sh -c "! objdump -p '$D/usr/lib/libkutrace.so.0' | grep NEEDED | grep -v 'libc.so'"
nobin="" noman=""
for p in $progs; do
	[ -x "$D/usr/bin/$p" ] || nobin="$nobin $p"
	[ -f "$D/usr/share/man/man1/$p.1" ] || noman="$noman $p"
done
eq "every program installed ($(echo $progs | wc -w))" "" "$nobin"
eq "every installed program has a man page" "" "$noman"
extra=$(cd "$D/usr/bin" && for f in *; do echo "$progs $sqlp" | grep -qw "$f" || echo "$f"; done)
eq "nothing else in bin (no test tools, no examples)" "" "$extra"
if [ -n "$sqlp" ]; then
	q=$D/usr/bin/kutrace_sql
	check "kutrace_sql installed with libduckdb.so in lib/kutrace and DuckDB's licence" \
		test -x "$q" -a -f "$D/usr/lib/kutrace/libduckdb.so" -a -f "$D/usr/share/doc/kutrace/LICENSE.duckdb"
	eq "installed kutrace_sql: RUNPATH is \$ORIGIN/../lib/kutrace alone (no build directory)" '$ORIGIN/../lib/kutrace' \
		"$(objdump -p "$q" | awk '$1 == "RUNPATH" || $1 == "RPATH" { print $2 }')"
	eq "ldd: the installed kutrace_sql finds the installed libduckdb.so" "$D/usr/lib/kutrace/libduckdb.so" \
		"$(ldd "$q" | awk '$1 == "libduckdb.so" { print $3 }' | xargs -r realpath)"
	check "installed kutrace_sql --help" sh -c "'$q' --help > /dev/null"
else
	check "no kutrace_sql built: none installed, no lib/kutrace" test ! -e "$D/usr/bin/kutrace_sql" -a ! -e "$D/usr/lib/kutrace"
fi
check "kutrace.pc has the real prefix, not DESTDIR" grep -qx 'prefix=/usr' "$D/usr/lib/pkgconfig/kutrace.pc"
check "libkutrace.so.0 has its soname" sh -c "objdump -p '$D/usr/lib/libkutrace.so.0' | grep -q 'SONAME *libkutrace.so.0'"
echo "# install size: $(du -sk "$D" | cut -f1) KB, $(find "$D" -type f | wc -l) files"
$MK uninstall DESTDIR="$D" PREFIX=/usr > "$TMP/uninst.log" 2>&1 || nok "make uninstall exit status"
left=$(find "$D" -mindepth 1 | head -5)
eq "make uninstall leaves nothing behind" "" "$left"

# ---- real prefix: build a program against it, run the installed tools
P=$TMP/prefix
if $MK install PREFIX="$P" > "$TMP/inst2.log" 2>&1; then
	ok "make install PREFIX=$P"
else
	nok "make install PREFIX=$P"; tail -20 "$TMP/inst2.log" | sed 's/^/#   /'
fi
export PKG_CONFIG_PATH=$P/lib/pkgconfig
eq "pkg-config --modversion kutrace" "0.1.0" "$(pkg-config --modversion kutrace 2>&1)"
cat > "$TMP/marks.c" <<'EOF'
#include <stdio.h>
#include <string.h>
#include <kutrace/control.h>
#include <kutrace/counter.h>

/* Uses the library without the module: kutrace_test() fails cleanly
 * where there is no /dev/kutrace, marks are dropped, the clock runs,
 * and the installed counter.h reads the same clock as the library. */
int main(void)
{
	uint64_t t0 = kutrace_readtime();
	uint64_t c = kt_counter_now();

	kutrace_mark_a("hello");
	printf("%d %d %d\n", kutrace_test(), kutrace_addevent(KUTRACE_MARKA, 1),
	       kutrace_readtime() >= c && c >= t0);
	return 0;
}
EOF
if cc -Wall -Werror -o "$TMP/marks" "$TMP/marks.c" $(pkg-config --cflags --libs kutrace) 2> "$TMP/cc.err"; then
	ok "cc \$(pkg-config --cflags --libs kutrace) links against the shared library"
	check "the program needs libkutrace.so.0" sh -c "objdump -p '$TMP/marks' | grep -q 'NEEDED *libkutrace.so.0'"
	out=$(LD_LIBRARY_PATH=$P/lib "$TMP/marks" 2>/dev/null)
	eq "it runs and the library works (kutrace_test, a dropped mark, the clock, counter.h's the same)" "0 -1 1" "$out"
else
	nok "cc against the installed library"; sed 's/^/#   /' "$TMP/cc.err" | head
fi
if cc -static -o "$TMP/marks_s" "$TMP/marks.c" $(pkg-config --static --cflags --libs kutrace) 2> "$TMP/cc.err"; then
	eq "static link with pkg-config --static, and it runs" "0 -1 1" "$("$TMP/marks_s" 2>/dev/null)"
else
	nok "static link with pkg-config --static"; sed 's/^/#   /' "$TMP/cc.err" | head
fi
cp tests/golden/basic.trace "$TMP/basic.trace"
if "$P/bin/kutrace_postproc" "$TMP/basic.trace" > "$TMP/pp.log" 2>&1 && [ -s "$TMP/basic.html" ]; then
	ok "installed kutrace_postproc finds the installed viewer ($P/share/kutrace)"
else
	nok "installed kutrace_postproc finds the installed viewer"; sed 's/^/#   /' "$TMP/pp.log"
fi
if [ -n "$sqlp" ]; then
	cp tests/golden/rpc.trace "$TMP/rpc.trace"
	if env PATH="$TMP/nothing" "$P/bin/kutrace_postproc" "$TMP/rpc.trace" --tables > "$TMP/tb.log" 2>&1 &&
		[ -f "$TMP/rpc.tables/meta.json" ]; then
		eq "installed kutrace_postproc --tables runs the installed kutrace_sql; it reads the store" "30" \
			"$("$P/bin/kutrace_sql" "$TMP/rpc.tables" --csv -c 'select count(*) from span' 2>&1 | tail -1)"
	else
		nok "installed kutrace_postproc --tables (runs the installed kutrace_sql)"; sed 's/^/#   /' "$TMP/tb.log"
	fi
fi
eq "installed kutrace check runs the installed checktrace (nothing on PATH)" "PASS $TMP/basic.trace" \
	"$(env PATH="$TMP/nothing" "$P/bin/kutrace" check -q "$TMP/basic.trace" 2>&1)"
check "installed makeself - finds the viewer too" sh -c "'$P/bin/makeself' - '$TMP/basic.json' > '$TMP/b2.html' && test -s '$TMP/b2.html'"
check "installed makeself - makes an RPC page (pages.js inlined)" sh -c "'$P/bin/makeself' - '$KT_ROOT/tests/data/viewer/rpc_q.json' > '$TMP/q.html' && grep -q 'window.ktOtherPage' '$TMP/q.html'"
check "man finds the installed pages (man -M ... kutrace_control)" \
	sh -c "MANWIDTH=80 man -M '$P/share/man' kutrace_control 2>/dev/null | grep -q 'record'"
check "man -M ... 4 kutrace_mod" sh -c "MANWIDTH=80 man -M '$P/share/man' 4 kutrace_mod 2>/dev/null | grep -q tracemb"
# The installed .so stubs resolve inside the installed tree.
bad=""
for f in $(cat "$TMP/api.so"); do
	MANWIDTH=200 man -M "$P/share/man" 3 "$f" 2>/dev/null | sed -n '/^NAME/,/^[A-Z]/p' |
		grep -qw "$f" || bad="$bad $f"
done
eq "man -M ... 3 FUNCTION shows libkutrace(3) for each of the $(wc -l < "$TMP/api.so") functions" "" "$bad"
$MK uninstall PREFIX="$P" > "$TMP/uninst2.log" 2>&1 || nok "make uninstall PREFIX exit status"
eq "make uninstall PREFIX=... leaves nothing behind" "" "$(find "$P" -mindepth 1 2>/dev/null | head -5)"

# ---- DKMS source tree (staged; the real dkms build is t_vm_dkms)
if $MK dkms-src DESTDIR="$TMP/dk" > "$TMP/dk.log" 2>&1; then
	v=$(ls "$TMP/dk/usr/src")
	eq "dkms-src stages /usr/src/kutrace-VERSION" "kutrace-0.1.0" "$v"
	check "the DKMS tree has Kbuild, the sources, format.h and a dkms.conf with the version" \
		sh -c "cd '$TMP/dk/usr/src/$v' && test -f Kbuild -a -f kutrace_main.c -a -f include/kutrace/format.h && grep -q 'PACKAGE_VERSION=\"0.1.0\"' dkms.conf"
else
	nok "make dkms-src"; sed 's/^/#   /' "$TMP/dk.log"
fi

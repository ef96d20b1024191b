#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# `make deb` (issue 15): the Debian packages kutrace and kutrace-dkms built
# with dpkg-buildpackage, lintian without errors or warnings, their
# contents (programs, library, headers, pkg-config file, viewer, man
# pages; module source, dkms.conf, DKMS maintainer scripts), every version
# equal to VERSION, and the packaged kutrace_postproc making a page from a
# golden trace with the packaged viewer.  When kutrace_sql is built
# (DuckDB: make deps), the third package kutrace-sql (issue 28): kutrace_sql
# and its private libduckdb.so, found through RUNPATH, building and
# querying tables from a golden trace and JSON.  Installing them on a real
# Debian system: tests/t_vm_debian.sh.
. tests/lib.sh
. tests/vm/lib.sh
if ! command -v dpkg-buildpackage >/dev/null || ! command -v dh >/dev/null ||
	! command -v lintian >/dev/null || ! command -v dh_dkms >/dev/null; then
	skip "deb: no debhelper, dh-dkms or lintian (tests/install-deps.sh, tests/deps/deb.apt)"; exit 0
fi
V=$(cat VERSION)
D=build/deb
start=$(date +%s)
if ! nice -n 10 make -s deb > "$TMP/deb.out" 2>&1; then
	nok "make deb"; tail -30 "$TMP/deb.out" | sed 's/^/#   /'; exit 0
fi
ok "make deb ($(( $(date +%s) - start )) s)"
deb=$D/kutrace_${V}_amd64.deb dkms=$D/kutrace-dkms_${V}_all.deb
check "kutrace_${V}_amd64.deb and kutrace-dkms_${V}_all.deb in $D" test -f "$deb" -a -f "$dkms"
check "no .deb in the git tree" test -z "$(git ls-files '*.deb' 2>/dev/null)"
# lintian as a user, as its authors recommend (it warns when run as root)
lintian --fail-on none --tag-display-limit 0 "$D"/kutrace_${V}_amd64.changes > "$TMP/lintian.out" 2>&1
check "lintian: no errors ($(grep -c '^E:' "$TMP/lintian.out"))" sh -c "! grep -q '^E:' '$TMP/lintian.out'"
check "lintian: no warnings ($(grep -c '^W:' "$TMP/lintian.out"))" sh -c "! grep -q '^W:' '$TMP/lintian.out'"
grep -E '^[EW]:' "$TMP/lintian.out" | sed 's/^/#   /'

# contents
dpkg-deb -c "$deb" | awk '{ print $6 }' | sed 's|^\./|/|' > "$TMP/c"
ma=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
missing=""
for f in $(make -s print-install-progs | tr ' ' '\n' | sed 's|^|/usr/bin/|') \
	/usr/lib/$ma/libkutrace.so.0 /usr/lib/$ma/libkutrace.so /usr/lib/$ma/libkutrace.a \
	/usr/lib/$ma/pkgconfig/kutrace.pc /usr/include/kutrace/format.h /usr/include/kutrace/control.h \
	/usr/include/kutrace/counter.h \
	/usr/share/kutrace/viewer.html /usr/share/kutrace/viewer.js \
	/usr/share/man/man1/kutrace_control.1.gz /usr/share/man/man1/kutrace_postproc.1.gz \
	/usr/share/man/man3/libkutrace.3.gz /usr/share/man/man3/kutrace_go.3.gz \
	/usr/share/man/man4/kutrace_mod.4.gz \
	/usr/share/man/man7/kutrace.7.gz /usr/share/man/man1/kutrace.1.gz \
	/usr/share/bash-completion/completions/kutrace /usr/share/doc/kutrace/copyright; do
	grep -qx "$f" "$TMP/c" || missing="$missing $f"
done
check "kutrace: programs (the kutrace front door too), library, headers, kutrace.pc, viewer, man pages, bash completion ($(wc -l < "$TMP/c") entries)${missing:+; missing:$missing}" \
	test -z "$missing"
dpkg-deb -c "$dkms" | awk '{ print $6 }' | sed 's|^\./|/|' > "$TMP/d"
missing=""
for f in /usr/src/kutrace-$V/dkms.conf /usr/src/kutrace-$V/Kbuild /usr/src/kutrace-$V/kutrace_main.c \
	/usr/src/kutrace-$V/include/kutrace/format.h; do
	grep -qx "$f" "$TMP/d" || missing="$missing $f"
done
check "kutrace-dkms: module source and dkms.conf in /usr/src/kutrace-$V${missing:+; missing:$missing}" test -z "$missing"
mkdir -p "$TMP/ctl"
dpkg-deb -e "$dkms" "$TMP/ctl"
check "kutrace-dkms: postinst builds with DKMS (dkms add/build/install)" grep -q "dkms.*kutrace\|common.postinst" "$TMP/ctl/postinst"
check "kutrace-dkms: prerm removes it from DKMS" grep -q "dkms remove" "$TMP/ctl/prerm"
check "kutrace-dkms depends on dkms" sh -c "dpkg-deb -f '$dkms' Depends | grep -q dkms"
check "kutrace has neither kutrace_sql, kutrace_why, kutrace_view nor DuckDB (they are kutrace-sql's)" sh -c "! grep -q 'kutrace_sql\|kutrace_why\|kutrace_view\|duckdb' '$TMP/c'"

# kutrace-sql: kutrace_sql, DuckDB private in /usr/lib/kutrace, its licence
sql=$D/kutrace-sql_${V}_amd64.deb
if [ -n "$(make -s --no-print-directory print-install-sql)" ]; then
	check "kutrace-sql_${V}_amd64.deb in $D ($(( $(stat -c %s "$sql" 2>/dev/null || echo 0) / 1048576 )) MB)" test -f "$sql"
	dpkg-deb -c "$sql" | awk '{ print $6 }' | sed 's|^\./|/|' > "$TMP/s"
	missing=""
	for f in $(make -s --no-print-directory print-install-sql | sed 's|[^ ]*|/usr/bin/&|g') \
		/usr/lib/kutrace/libduckdb.so /usr/share/doc/kutrace-sql/LICENSE.duckdb \
		/usr/share/doc/kutrace-sql/copyright; do
		grep -qx "$f" "$TMP/s" || missing="$missing $f"
	done
	check "kutrace-sql: kutrace_sql, /usr/lib/kutrace/libduckdb.so, DuckDB's licence${missing:+; missing:$missing}" test -z "$missing"
	eq "kutrace-sql: version VERSION, depends on kutrace (= VERSION)" "$V kutrace (= $V)" \
		"$(dpkg-deb -f "$sql" Version) $(dpkg-deb -f "$sql" Depends | tr ',' '\n' | sed 's/^ *//' | grep '^kutrace ')"
	check "kutrace-sql depends on libreadline8 and libstdc++6 (shlibs), not on a libduckdb package" sh -c \
		"dpkg-deb -f '$sql' Depends | grep -q 'libreadline8.*libstdc++6\|libstdc++6.*libreadline8' && ! dpkg-deb -f '$sql' Depends | grep -qi duckdb"
	mkdir -p "$TMP/x" && dpkg-deb -x "$sql" "$TMP/x"
	check "kutrace-sql's copyright has DuckDB's MIT licence" sh -c \
		"grep -q 'Stichting DuckDB Foundation' '$TMP/x/usr/share/doc/kutrace-sql/copyright' && grep -q '^License: MIT' '$TMP/x/usr/share/doc/kutrace-sql/copyright'"
else
	check "no DuckDB (make deps): no kutrace-sql package (build profile nosql)" test ! -e "$sql"
fi

# one version
mkdir -p "$TMP/x"
dpkg-deb -x "$deb" "$TMP/x"
dpkg-deb -x "$dkms" "$TMP/x"
vers="$(dpkg-deb -f "$deb" Version) $(dpkg-deb -f "$dkms" Version)"
vers="$vers $(sed -n 's/^Version: //p' "$TMP/x/usr/lib/$ma/pkgconfig/kutrace.pc")"
vers="$vers $(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$TMP/x/usr/src/kutrace-$V/dkms.conf")"
vers="$vers $(zcat "$TMP/x/usr/share/man/man1/kutrace_control.1.gz" | sed -n 's/^\.TH .*"kutrace \([0-9][^"]*\)".*/\1/p')"

eq "package, kutrace.pc, dkms.conf and man page versions are VERSION ($V)" "$V $V $V $V $V" "$vers"
check "the copyright file names both licenses" sh -c \
	"grep -q 'License: BSD-3-Clause' '$TMP/x/usr/share/doc/kutrace/copyright' && grep -q 'License: GPL-2.0-only' '$TMP/x/usr/share/doc/kutrace/copyright'"

# the packaged programs, unpacked: postproc finds the packaged viewer
cp tests/golden/*.trace "$TMP/" 2>/dev/null
t=$(ls "$TMP"/*.trace | head -1)
if [ -n "$t" ] && "$TMP/x/usr/bin/kutrace_postproc" "$t" > "$TMP/pp.out" 2>&1; then
	check "packaged kutrace_postproc writes the page with the packaged viewer" \
		grep -q "kutrace" "${t%.trace}.html"
else
	nok "packaged kutrace_postproc on $(basename "$t")"; sed 's/^/#   /' "$TMP/pp.out"
fi
# The packaged kutrace_sql, unpacked: libduckdb.so through $ORIGIN, no
# build directory on its RUNPATH, and the packaged kutrace_postproc
# --tables running it from beside itself (no kutrace_sql on PATH).
q=$TMP/x/usr/bin/kutrace_sql
if [ -f "$sql" ]; then
	eq "packaged kutrace_sql: RUNPATH is \$ORIGIN/../lib/kutrace alone" '$ORIGIN/../lib/kutrace' \
		"$(objdump -p "$q" | awk '$1 == "RUNPATH" || $1 == "RPATH" { print $2 }')"
	eq "ldd: libduckdb.so from the package's /usr/lib/kutrace" "$TMP/x/usr/lib/kutrace/libduckdb.so" \
		"$(ldd "$q" | awk '$1 == "libduckdb.so" { print $3 }' | xargs -r realpath)"
	check "packaged kutrace_sql --help" sh -c "'$q' --help > /dev/null"
	if env PATH="$TMP/nothing" "$TMP/x/usr/bin/kutrace_postproc" "$TMP/rpc.trace" --tables > "$TMP/tb.out" 2>&1 &&
		[ -f "$TMP/rpc.tables/meta.json" ]; then
		eq "packaged kutrace_postproc --tables, then kutrace_sql on the store: rpc.trace's 30 spans" "30" \
			"$("$q" "$TMP/rpc.tables" --csv -c 'select count(*) from span' 2>&1 | tail -1)"
	else
		nok "packaged kutrace_postproc --tables (runs the packaged kutrace_sql)"; sed 's/^/#   /' "$TMP/tb.out"
	fi
	cp tests/golden/rpc.json "$TMP/rpcj.json"
	if "$q" build "$TMP/rpcj.json" -o "$TMP/j.tables" > "$TMP/jb.out" 2>&1; then
		eq "packaged kutrace_sql build of a JSON (tests/golden/rpc.json), same span count" "30" \
			"$("$q" "$TMP/j.tables" --csv -c 'select count(*) from span' 2>&1 | tail -1)"
	else
		nok "packaged kutrace_sql build tests/golden/rpc.json"; sed 's/^/#   /' "$TMP/jb.out"
	fi
fi

# The Debian guest (t_vm_debian) installs the package offline: every
# library it depends on must be in the guest image's package list.
missing=""
for p in $(dpkg-deb -f "$deb" Depends | tr ',' '\n' | sed 's/(.*//; s/|.*//' | xargs); do
	[ "$p" = libc6 ] && continue
	grep -qx "$p" tests/vm/debian/packages || missing="$missing $p"
done
eq "the guest image has every library the package depends on (tests/vm/debian/packages)" "" "$missing"

#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# DuckDB for kutrace_sql (docs/TABLES.md): its header and its library, one
# pinned version, from the npm registry's official builds (Debian 12 has no
# DuckDB): the `duckdb` package carries the sources with duckdb.h, the
# `@duckdb/node-bindings-linux-<arch>` package libduckdb.so (MIT).  Each
# tarball is checked against the sha512 pinned here before it is unpacked
# into /var/cache/kutrace/duckdb/VERSION/{include,lib}, where the Makefile
# looks (DUCKDB_DIR).  Does nothing when present.
set -eu
VER=1.4.4
BINDINGS=1.4.4-r.1
SRC_SHA=hEJJ5hyVF0VLj3dmOLpsWrQR0b3d4Ykqtygm6iUXjHJDDnSqg/USKxcb5qvNrOhFYPgktayU6dXCtgPqcmmpog==
case $(uname -m) in
x86_64) ARCH=x64 LIB_SHA=fjYNc+t4/T7mhzZ57oJoIQaWvbYVvxhidcNNansQFiWnd6/JMLCULd4qnt8XI3Tt2BrZsraH690KSBIS3QPt0w== ;;
aarch64) ARCH=arm64 LIB_SHA=wq92/EcTiOTRW1RSDOwjeLyMMXWwNVNwU21TQdfu3sgS86+Ih3raaK68leDgY5cWgf72We3J2W7HYz8GwxcMYw== ;;
*) echo "duckdb.sh: no DuckDB build for $(uname -m); kutrace_sql is not built" >&2; exit 0 ;;
esac
DIR=${DUCKDB_DIR:-/var/cache/kutrace/duckdb/$VER}
[ -f "$DIR/include/duckdb.h" ] && [ -f "$DIR/lib/libduckdb.so" ] && exit 0
command -v npm >/dev/null 2>&1 || { echo "duckdb.sh: npm missing (apt-get install npm)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
fetch() { # package version sha512
	npm pack --silent "$1@$2" >/dev/null 2>npm.err || { cat npm.err >&2; exit 1; }
	f=$(ls ./*.tgz)
	got=$(openssl dgst -sha512 -binary "$f" 2>/dev/null | base64 -w0) ||
		got=$(sha512sum "$f" | cut -d' ' -f1 | xxd -r -p | base64 -w0)
	[ "$got" = "$3" ] || { echo "duckdb.sh: $1@$2: checksum mismatch" >&2; exit 1; }
	mkdir "x$4" && tar xzf "$f" -C "x$4" && rm "$f"
}
echo "duckdb.sh: fetching DuckDB $VER (npm: duckdb, @duckdb/node-bindings-linux-$ARCH)"
fetch duckdb "$VER" "$SRC_SHA" 1
fetch "@duckdb/node-bindings-linux-$ARCH" "$BINDINGS" "$LIB_SHA" 2
mkdir -p "$tmp/out/include" "$tmp/out/lib"
cp x1/package/src/duckdb/src/include/duckdb.h out/include/
cp x1/package/LICENSE out/LICENSE 2>/dev/null || cp x2/package/LICENSE out/LICENSE
cp x2/package/libduckdb.so out/lib/
mkdir -p "$(dirname "$DIR")"
rm -rf "$DIR.tmp" && mv out "$DIR.tmp" && mv "$DIR.tmp" "$DIR"
echo "duckdb.sh: DuckDB $VER in $DIR"

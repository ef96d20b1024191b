#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# ClickHouse's current engine as a library, for t_chdb (a current
# ClickHouse reads the stores' Parquet files): chdb, one pinned version,
# from the npm registry's official builds.  `@chdb/lib-linux-x64-gnu`
# carries libchdb.so (ClickHouse 26.7), `chdb` its licence (Apache-2.0);
# tests/tools/kt_chdb.c dlopens the library and declares the few calls it
# makes (no header is published).  Each tarball is checked against the
# sha512 pinned here before it is unpacked into
# /var/cache/kutrace/chdb/VERSION/lib.  x86-64 only (no arm64 build of
# this version); does nothing when present.
set -eu
VER=26.7.3-stable.1
NODE_VER=3.4.0
NODE_SHA=HMNj4dq3lIrwqxwGSuuEjo9EIlC+k8IjsSQHh1ZStGvV6MRckfvPM2aDqzdW1ti3fldrt9UIntJBm0AbV9nbDQ==
LIB_SHA=XP97mMqnc5tZpKQywR8N7cLTsHNiTmHr30pC5mzo3jWmukjKn2IBa60c2B/gWUNcuFjOMjWoorQICCqBVj5wpw==
[ "$(uname -m)" = x86_64 ] || { echo "chdb.sh: no chdb build for $(uname -m); t_chdb skips" >&2; exit 0; }
DIR=${CHDB_DIR:-/var/cache/kutrace/chdb/$VER}
[ -f "$DIR/lib/libchdb.so" ] && exit 0
command -v npm >/dev/null 2>&1 || { echo "chdb.sh: npm missing (apt-get install npm)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
fetch() { # package version sha512 n
	npm pack --silent "$1@$2" >/dev/null 2>npm.err || { cat npm.err >&2; exit 1; }
	f=$(ls ./*.tgz)
	got=$(openssl dgst -sha512 -binary "$f" 2>/dev/null | base64 -w0) ||
		got=$(sha512sum "$f" | cut -d' ' -f1 | xxd -r -p | base64 -w0)
	[ "$got" = "$3" ] || { echo "chdb.sh: $1@$2: checksum mismatch" >&2; exit 1; }
	mkdir "x$4" && tar xzf "$f" -C "x$4" && rm "$f"
}
echo "chdb.sh: fetching chdb $VER (npm: chdb, @chdb/lib-linux-x64-gnu, 180 MB)"
fetch chdb "$NODE_VER" "$NODE_SHA" 1
fetch @chdb/lib-linux-x64-gnu "$VER" "$LIB_SHA" 2
mkdir -p out/lib
cp x1/package/LICENSE out/LICENSE
cp x2/package/libchdb.so out/lib/
mkdir -p "$(dirname "$DIR")"
rm -rf "$DIR.tmp" && mv out "$DIR.tmp" && mv "$DIR.tmp" "$DIR"
echo "chdb.sh: chdb $VER in $DIR"

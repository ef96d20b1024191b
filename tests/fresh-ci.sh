#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The README's two commands on a fresh machine, for real: a new Debian 12
# chroot (mmdebstrap from the archive) holding only what a new machine of
# this kind has (gcc, make, git, python3, the usual debugging tools, the
# host's Node.js and npm, the host's CA certificates, which npm needs
# behind this network's TLS proxy), an empty /var/cache/kutrace, and a
# clone of the repository at COMMIT; then CMD in it, timed.
#
#   tests/fresh-ci.sh [-k] [COMMIT] [-- CMD...]
#     COMMIT   default HEAD
#     CMD      default: bash .ci/run (what CI runs); e.g. -- make demo
#     -k       keep the chroot (in $KT_FRESH, default /var/tmp/kutrace-fresh)
#
# Root only (chroot, bind mounts).  Prints "fresh: CMD: rc R after S s" and
# leaves the whole output in $KT_FRESH.log.  Its figures are in
# docs/PERFORMANCE.md.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
F=${KT_FRESH:-/var/tmp/kutrace-fresh}
keep=0
[ "${1:-}" = -k ] && { keep=1; shift; }
commit=HEAD
[ $# -gt 0 ] && [ "$1" != -- ] && { commit=$1; shift; }
[ "${1:-}" = -- ] && shift
[ $# -gt 0 ] || set -- bash .ci/run
[ "$(id -u)" = 0 ] || { echo "fresh-ci: needs root (chroot)" >&2; exit 2; }
command -v mmdebstrap > /dev/null || { echo "fresh-ci: apt-get install mmdebstrap" >&2; exit 2; }
rev=$(git -C "$ROOT" rev-parse -q --verify "$commit^{commit}" 2>/dev/null) ||
	{ echo "fresh-ci: no commit $commit" >&2; exit 2; }

umount_all() {
	local m
	for m in dev/shm dev/pts dev sys proc; do
		! mountpoint -q "$F/$m" || umount "$F/$m"
	done
}
cleanup() {
	umount_all
	[ $keep = 1 ] || rm -rf "$F"
}
umount_all
rm -rf "$F"
trap cleanup EXIT
echo "fresh-ci: Debian 12 into $F" >&2
mmdebstrap --variant=apt --include=build-essential,git,python3,make,cmake,gdb,valgrind,strace,linux-perf,clang-format,clang-tidy,cppcheck,ca-certificates,procps,file,less \
	bookworm "$F" "deb http://deb.debian.org/debian bookworm main" \
	"deb http://deb.debian.org/debian bookworm-updates main" \
	"deb http://deb.debian.org/debian-security bookworm-security main" > "$F.log" 2>&1 ||
	{ tail -5 "$F.log" >&2; echo "fresh-ci: mmdebstrap failed" >&2; exit 1; }
# the host's Node.js and npm (this machine kind's, not Debian's), npm's
# settings, and the CA certificates the host trusts
if command -v node > /dev/null; then
	dpkg -L nodejs 2>/dev/null | while read -r p; do [ -f "$p" ] || [ -L "$p" ] && echo "$p"; done |
		tar -C / -cf - -T - 2>/dev/null | tar -C "$F" -xf -
	rm -rf "$F/usr/lib/node_modules/npm"
	cp -a /usr/lib/node_modules/npm "$F/usr/lib/node_modules/"
fi
for p in /root/.npmrc /etc/npmrc /usr/etc/npmrc /root/.gitconfig /etc/resolv.conf; do
	[ -f "$p" ] || continue
	mkdir -p "$F$(dirname "$p")"
	cp "$p" "$F$p"
done
cp /usr/local/share/ca-certificates/* "$F/usr/local/share/ca-certificates/" 2>/dev/null || true
chroot "$F" update-ca-certificates > /dev/null 2>&1
for m in proc sys dev dev/pts; do mount --bind "/$m" "$F/$m"; done
mount -t tmpfs -o size=4g tmpfs "$F/dev/shm"
git clone -q "$ROOT" "$F/root/kutrace"
git -C "$F/root/kutrace" checkout -q "$rev"
echo "fresh-ci: $* at $(git -C "$ROOT" log --oneline -1 "$rev" | cut -c1-60)" >&2
start=$(date +%s)
rc=0
chroot "$F" /usr/bin/env -i HOME=/root LANG=C.UTF-8 \
	PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
	/bin/bash -c 'cd /root/kutrace && "$@"' fresh "$@" >> "$F.log" 2>&1 || rc=$?
echo "fresh: $*: rc $rc after $(( $(date +%s) - start )) s (output: $F.log)"
exit $rc

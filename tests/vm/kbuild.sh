#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Builds a kutrace-patched test kernel and caches it:
#
#   tests/vm/kbuild.sh [-n] SERIES [VARIANT]
#     SERIES   6.1 | 6.12        (Debian linux-source-SERIES)
#     VARIANT  nohz (default: NO_HZ_IDLE, 1000 Hz; booted with nohz=off it
#              ticks periodically, see tests/vm/vm.sh) | debug (nohz +
#              patches/kutrace-debug.config: KASAN, KFENCE, lockdep,
#              DEBUG_ATOMIC_SLEEP, PREEMPT + DEBUG_PREEMPT, UBSAN) |
#              riscv64 (6.1 only: an unpatched riscv64 kernel for the
#              tracepoint backend, tinyconfig + patches/kutrace-riscv64.config,
#              cross-built with riscv64-linux-gnu-; Image instead of bzImage)
#     -n       only print the cache directory, build nothing
#
# Installs linux-source-SERIES and the build tools (tests/deps/kernel.apt)
# with apt-get, unpacks the tarball, applies patches/linux-SERIES/kutrace.patch
# with `patch -p1 --fuzz=0`, configures tinyconfig + patches/kutrace-qemu.config
# (+ the debug fragment), and builds bzImage plus Module.symvers, so
# that kutrace_mod.ko can be built with `make -C DIR/src M=...`.
# Result: /var/cache/kutrace/kbuild/<series>-<variant>-<key>/ with
#   src/                  the configured, built tree (objects and kernel .c
#                         files removed: what `make M=` needs stays)
#   bzImage  release  config.log  build.log  seconds  warnings
# keyed by the source package version + sha of the patch + sha of the
# config fragment(s).  Prints the directory on stdout.
# Build: `nice -n 5 make -j$(nproc)`; KT_JOBS overrides the job count.
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
CACHE=${KT_CACHE:-/var/cache/kutrace}
SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
dry=0
[ "${1:-}" = -n ] && { dry=1; shift; }
series=${1:?usage: kbuild.sh [-n] 6.1|6.12 [nohz|debug]}
variant=${2:-nohz}
case $series in 6.1|6.12) ;; *) echo "kbuild: unknown series $series" >&2; exit 2 ;; esac
case $variant in nohz|debug|riscv64) ;; *) echo "kbuild: unknown variant $variant" >&2; exit 2 ;; esac
patchf=$ROOT/patches/linux-$series/kutrace.patch
frag=$ROOT/patches/kutrace-qemu.config
karch=x86_64 kimage=bzImage kmake=""
if [ "$variant" = riscv64 ]; then
	[ "$series" = 6.1 ] || { echo "kbuild: riscv64: 6.1 only" >&2; exit 2; }
	patchf=/dev/null frag=$ROOT/patches/kutrace-riscv64.config
	karch=riscv kimage=Image kmake="CROSS_COMPILE=riscv64-linux-gnu-"
fi
# the debug variant's extra fragment (only its key includes it)
dfrag=""
[ "$variant" != debug ] || dfrag=$ROOT/patches/kutrace-debug.config
pkg=linux-source-$series

need=""
# riscv64: the cross compiler, and what its guests need (tests/vm/vm.sh,
# build.sh): the emulator, OpenSBI, the C library for static programs
xpkg=""
[ "$variant" != riscv64 ] ||
	xpkg="gcc-riscv64-linux-gnu libc6-dev-riscv64-cross qemu-system-misc opensbi"
for p in $pkg $xpkg $(sed 's/#.*//' "$ROOT/tests/deps/kernel.apt"); do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || need="$need $p"
done
if [ -n "$need" ]; then
	[ $dry = 0 ] || { echo "kbuild: not installed:$need" >&2; exit 1; }
	$SUDO apt-get install -y -qq --no-install-recommends $need >&2 ||
		{ $SUDO apt-get update -qq >&2 && $SUDO apt-get install -y -qq --no-install-recommends $need >&2; }
fi
ver=$(dpkg-query -W -f='${Version}' "$pkg")
key=$( { echo "$pkg $ver $variant"; cat "$patchf" "$frag" $dfrag; } | sha256sum | cut -c1-12)
D=$CACHE/kbuild/$series-$variant-$key
if [ -f "$D/done" ] || [ $dry = 1 ]; then
	echo "$D"
	exit 0
fi

mkdir -p "$CACHE/kbuild"
exec 9>"$CACHE/kbuild/.lock-$series-$variant"
flock 9
[ -f "$D/done" ] && { echo "$D"; exit 0; }
rm -rf "$D"
mkdir -p "$D"
log=$D/build.log
clog=$D/config.log
start=$(date +%s)
echo "kbuild: $pkg $ver ($variant) -> $D" >&2
tar -C "$D" -xJf /usr/src/$pkg.tar.xz
mv "$D/$pkg" "$D/src"
cd "$D/src"
[ "$variant" = riscv64 ] || patch -p1 --fuzz=0 --no-backup-if-mismatch -s < "$patchf"
cp "$frag" "$D/fragment.config"
[ -z "$dfrag" ] || cat "$dfrag" >> "$D/fragment.config"
{
	make ARCH=$karch $kmake tinyconfig
	ARCH=$karch scripts/kconfig/merge_config.sh -m .config "$D/fragment.config"
	make ARCH=$karch $kmake olddefconfig
} > "$clog" 2>&1
# every requested value must survive olddefconfig
bad=0
while read -r l; do
	case $l in
	CONFIG_*=*) grep -qx "$l" .config || { echo "kbuild: $l lost" >&2; bad=1; } ;;
	"# CONFIG_"*" is not set") n=${l#\# }; n=${n%% *}
		! grep -q "^$n=" .config || { echo "kbuild: $n still set" >&2; bad=1; } ;;
	esac
done < "$D/fragment.config"
[ $bad = 0 ] || exit 1
jobs=${KT_JOBS:-$(nproc)}
if ! nice -n 5 make ARCH=$karch $kmake -j"$jobs" $kimage modules > "$log" 2>&1; then
	tail -30 "$log" >&2
	echo "kbuild: build failed, log in $log" >&2
	exit 1
fi
[ "$variant" = riscv64 ] || grep -q 'kutrace_global_ops' Module.symvers ||
	{ echo "kbuild: no kutrace symbols in Module.symvers" >&2; exit 1; }
cp arch/${karch%_64}/boot/$kimage "$D/$kimage"
make -s ARCH=$karch kernelrelease > "$D/release"
# keep what external modules need (headers, scripts, .config,
# Module.symvers, generated files), drop the objects
find . \( -name '*.o' -o -name '*.c' \) ! -path './scripts/*' ! -path './tools/*' -delete
rm -rf vmlinux vmlinux.o arch/*/boot/compressed/vmlinux Documentation
echo $(( $(date +%s) - start )) > "$D/seconds"
grep -c 'warning:' "$log" > "$D/warnings" || true
touch "$D/done"
echo "kbuild: built $(cat "$D/release") in $(cat "$D/seconds") s, $(cat "$D/warnings") warnings" >&2
echo "$D"

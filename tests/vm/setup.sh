#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Installs what the QEMU harness needs and caches Debian kernels with their
# headers under /var/cache/kutrace:
#   kernels/<release>/boot/vmlinuz-<release>   the guest kernel
#   kernels/<release>/lib/modules/...          its modules (virtio for the out disk)
#   /usr/src/linux-headers-<release>           headers for building kutrace_mod.ko
# Kernel images are unpacked with dpkg-deb, not installed on the host.
#   tests/vm/setup.sh           the two cloud kernels (6.1 and 6.12 series)
#   tests/vm/setup.sh generic   Debian's generic 6.1 kernel (6.1.0-N-amd64)
#   tests/vm/setup.sh rt        its PREEMPT_RT flavour (6.1.0-N-rt-amd64)
#   tests/vm/setup.sh arm64     the arm64 cloud kernels (6.1.0-N-cloud-arm64,
#                               6.12.N+deb12-cloud-arm64), see below
# Prints the releases, one per line.  Safe to run repeatedly.
#
# arm64: the image and headers packages of Debian's arm64 architecture
# (dpkg --add-architecture arm64) are downloaded and unpacked, not
# installed, under arm64/<package version>/ (arm64/<release> links there):
# boot/vmlinuz-<release>, lib/modules/..., usr/src/linux-headers-<release>
# and its -common.  The headers' scripts/ and tools/ links point to the
# host's own kbuild tools (usr/lib/linux-kbuild-* -> the installed amd64
# linux-kbuild package of that version), and the module is cross-compiled
# against them (module/module.mk: ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-).
set -eu
CACHE=${KT_CACHE:-/var/cache/kutrace}
SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
mkdir -p "$CACHE/debs" "$CACHE/kernels"

# Installs the host packages named that are missing.
need() {
	n=""
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || n="$n $p"
	done
	[ -z "$n" ] || $SUDO apt-get install -y -qq --no-install-recommends $n >&2
}

if [ "${1:-}" = arm64 ]; then
	if ! dpkg --print-foreign-architectures | grep -qx arm64; then
		$SUDO dpkg --add-architecture arm64
		$SUDO apt-get update -qq >&2
	fi
	apt-cache search --names-only '^linux-headers-.*-cloud-arm64$' | grep -q . ||
		$SUDO apt-get update -qq >&2
	# busybox-static:arm64 would replace the amd64 one: unpacked instead.
	need qemu-system-arm gcc-aarch64-linux-gnu libc6-dev-arm64-cross cpio xz-utils
	A=$CACHE/arm64
	mkdir -p "$A"
	for pat in "6\.1\.0-[0-9]+-cloud-arm64" "6\.12\.[0-9.]+\+deb[0-9]+-cloud-arm64"; do
		rel=$(ls "$A" 2>/dev/null | grep -E "^$pat\$" | sort -V | tail -1)
		if [ -z "$rel" ]; then
			rel=$(apt-cache search --names-only "^linux-headers-$pat\$" |
				awk '{print $1}' | sed 's/^linux-headers-//' | sort -V | tail -1)
			[ -n "$rel" ] || { echo "setup: no linux-headers matching $pat" >&2; exit 1; }
		fi
		info=$(apt-cache show --no-all-versions "linux-headers-$rel" 2>/dev/null || true)
		ver=$(echo "$info" | awk '$1 == "Version:" { print $2; exit }')
		[ -e "$A/$rel" ] && ver=$(readlink "$A/$rel")
		[ -n "$ver" ] || { echo "setup: no package linux-headers-$rel" >&2; exit 1; }
		D=$A/$ver
		if [ ! -f "$D/.unpacked" ]; then
			deps=$(echo "$info" | sed -n 's/^Depends: //p' | tr ',' '\n' |
				sed 's/^ *//; s/ .*//' | grep -E '^linux-(headers-.*-common|kbuild-)')
			common=$(echo "$deps" | grep common)
			kbuild=$(echo "$deps" | grep kbuild)
			need "$kbuild"
			rm -rf "$D" "$D.tmp"
			mkdir -p "$D.tmp/debs"
			(cd "$D.tmp/debs" && apt-get download -qq "linux-headers-$rel" "$common" \
				"linux-image-$rel-unsigned" >&2)
			for d in "$D.tmp"/debs/*.deb; do dpkg-deb -x "$d" "$D.tmp"; done
			rm -rf "$D.tmp/debs"
			mkdir -p "$D.tmp/usr/lib"
			ln -s "/usr/lib/$kbuild" "$D.tmp/usr/lib/$kbuild"
			# the headers' Makefile includes the -common one by absolute path
			sed -i "s|^include /usr/src/|include $D/usr/src/|" \
				"$D.tmp/usr/src/linux-headers-$rel/Makefile"
			touch "$D.tmp/.unpacked"
			mv "$D.tmp" "$D"
		fi
		ln -sfn "$ver" "$A/$rel"
		echo "$rel"
	done
	exit 0
fi

need=""
for p in qemu-system-x86 busybox-static cpio xz-utils; do
	dpkg-query -W -f='${Status}' $p 2>/dev/null | grep -q "ok installed" || need="$need $p"
done
[ -z "$need" ] || $SUDO apt-get install -y -qq --no-install-recommends $need >&2

# Newest kernel of a series and flavour (a release pattern: 6.1.0-N-cloud-amd64,
# 6.12.N+deb12-cloud-amd64, 6.1.0-N-amd64, 6.1.0-N-rt-amd64) that has
# matching headers.
pick() {
	apt-cache search --names-only "^linux-headers-$1\$" |
		awk '{print $1}' | sed 's/^linux-headers-//' | sort -V | tail -1
}
case ${1:-cloud} in
cloud) pats="6\.1\.0-[0-9]+-cloud-amd64 6\.12\.[0-9.]+\+deb[0-9]+-cloud-amd64" ;;
generic) pats="6\.1\.0-[0-9]+-amd64" ;;
rt) pats="6\.1\.0-[0-9]+-rt-amd64" ;;
*) echo "setup: unknown kernel kind $1 (cloud, generic, rt)" >&2; exit 2 ;;
esac
for pat in $pats; do
	rel=$(ls $CACHE/kernels 2>/dev/null | grep -E "^$pat\$" | sort -V | tail -1)
	if [ -z "$rel" ]; then
		rel=$(pick "$pat")
		[ -n "$rel" ] || { echo "setup: no linux-headers matching $pat" >&2; exit 1; }
	fi
	if [ ! -d /usr/src/linux-headers-$rel ]; then
		$SUDO apt-get install -y -qq --no-install-recommends linux-headers-$rel >&2
	fi
	if [ ! -f $CACHE/kernels/$rel/boot/vmlinuz-$rel ]; then
		(cd $CACHE/debs && apt-get download -qq linux-image-$rel-unsigned >&2 2>/dev/null ||
			apt-get download -qq linux-image-$rel >&2)
		mkdir -p $CACHE/kernels/$rel
		dpkg-deb -x $(ls $CACHE/debs/linux-image-${rel}*_amd64.deb | head -1) $CACHE/kernels/$rel
	fi
	echo "$rel"
done

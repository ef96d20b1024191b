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
# Prints the releases, one per line.  Safe to run repeatedly.
set -eu
CACHE=${KT_CACHE:-/var/cache/kutrace}
SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
mkdir -p "$CACHE/debs" "$CACHE/kernels"

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

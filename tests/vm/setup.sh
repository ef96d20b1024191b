#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Installs what the QEMU harness needs and caches two Debian cloud kernels
# (6.1 and 6.12 series) with their headers under /var/cache/kutrace:
#   kernels/<release>/boot/vmlinuz-<release>   the guest kernel
#   kernels/<release>/lib/modules/...          its modules (virtio for the out disk)
#   /usr/src/linux-headers-<release>           headers for building kutrace_mod.ko
# Kernel images are unpacked with dpkg-deb, not installed on the host.
# Prints the two releases, one per line.  Safe to run repeatedly.
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

# Newest cloud kernel of each series that has matching headers.
pick() {
	apt-cache search --names-only "^linux-headers-$1.*-cloud-amd64\$" |
		awk '{print $1}' | sed 's/^linux-headers-//' | grep -v '^6\.1[0-9]*-cloud' |
		sort -V | tail -1
}
for series in 6.1.0- 6.12.; do
	rel=$(ls -d $CACHE/kernels/${series}*-cloud-amd64 2>/dev/null | sort -V | tail -1 | xargs -r basename)
	if [ -z "$rel" ]; then
		rel=$(pick "$series")
		[ -n "$rel" ] || { echo "setup: no linux-headers for $series cloud-amd64" >&2; exit 1; }
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

#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# LTTng's kernel modules for the guest of `make bench-peers`, built on the
# host against Debian's headers of the guest kernel:
#
#   tests/vm/debian/lttng-modules.sh RELEASE     (e.g. 6.1.0-56-amd64)
#
# The source is bookworm's lttng-modules-dkms (apt-get download), built as
# DKMS would, minus the timer probe: 2.13.9 declares hrtimer_start with
# the two arguments of 6.1.0, and 6.1 stable added a third (was_armed),
# which fails the whole build (so the .deb's DKMS build fails in the
# image).  The bench does not use timer events.  Cached in
# /var/cache/kutrace/lttng/<hash of release, package version, this
# script>; prints the path of lttng-modules.tar (the .ko files, to unpack
# in /lib/modules/RELEASE/updates/lttng and depmod in the guest).
set -eu
rel=${1:?usage: lttng-modules.sh RELEASE}
CACHE=${KT_CACHE:-/var/cache/kutrace}
SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
ver=$(apt-cache policy lttng-modules-dkms | sed -n 's/ *Candidate: //p')
[ -n "$ver" ] && [ "$ver" != "(none)" ] || { echo "lttng-modules: apt knows no lttng-modules-dkms" >&2; exit 1; }
key=$( { echo "$rel $ver"; cat "$0"; } | sha256sum | cut -c1-16)
D=$CACHE/lttng/$key
mkdir -p "$CACHE/lttng"
exec 9>"$CACHE/lttng/.lock"
flock 9
[ -f "$D/lttng-modules.tar" ] && { echo "$D/lttng-modules.tar"; exit 0; }
if [ ! -d "/lib/modules/$rel/build" ]; then
	$SUDO apt-get install -y -qq --no-install-recommends "linux-headers-$rel" >&2 ||
		{ echo "lttng-modules: apt-get install linux-headers-$rel failed" >&2; exit 1; }
fi
rm -rf "$D"
mkdir -p "$D"
(cd "$D" && apt-get download -q lttng-modules-dkms >&2 2>/dev/null) ||
	{ echo "lttng-modules: apt-get download lttng-modules-dkms failed" >&2; exit 1; }
dpkg -x "$D"/lttng-modules-dkms_*.deb "$D/x"
src=$(ls -d "$D"/x/usr/src/lttng-modules-* | head -1)
sed -i '/lttng-probe-timer\.o/d' "$src/src/probes/Kbuild"
start=$(date +%s)
nice -n 10 make -C "/lib/modules/$rel/build" M="$src" -j"${KT_JOBS:-2}" modules CONFIG_LTTNG=m \
	> "$D/build.log" 2>&1 || {
	echo "lttng-modules: build failed (see $D/build.log)" >&2; grep -m5 'error' "$D/build.log" >&2; exit 1; }
(cd "$src" && find . -name '*.ko' | tar cf "$D/lttng-modules.tar.tmp" -T -)
mv "$D/lttng-modules.tar.tmp" "$D/lttng-modules.tar"
rm -rf "$D/x"
echo "lttng-modules $ver for $rel: $(tar tf "$D/lttng-modules.tar" | wc -l) modules in $(( $(date +%s) - start )) s" >&2
echo "$D/lttng-modules.tar"

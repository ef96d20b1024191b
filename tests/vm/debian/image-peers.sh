#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The Debian 12 guest of `make bench-peers`: tests/vm/debian/image.sh,
# unchanged, run on ./packages + ./packages-peers (trace-cmd, perf, LTTng
# with its modules built by DKMS for the guest kernel, bpftrace).  Its own
# cache key (the hash of that package list and image.sh), so the image of
# tests/t_vm_debian.sh is neither rebuilt nor touched.  Prints the image
# directory, like image.sh.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp "$HERE/image.sh" "$tmp/image.sh"
cat "$HERE/packages" "$HERE/packages-peers" > "$tmp/packages"
D=$("$tmp/image.sh")
# DKMS runs in mmdebstrap's chroot; a module that failed to build there
# would only show as a missing module in the guest.
grep -q "lttng-probe-sched.ko" "$D/mmdebstrap.log" ||
	{ echo "debian-image: lttng-modules-dkms did not build its modules (see $D/mmdebstrap.log)" >&2; exit 1; }
echo "$D"

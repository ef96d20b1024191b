#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The Debian 12 guest of `make bench-peers`: tests/vm/debian/image.sh,
# unchanged, run on ./packages + ./packages-peers (trace-cmd, perf,
# lttng-tools, bpftrace; LTTng's modules: tests/vm/debian/lttng-modules.sh).  Its own
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
echo "$D"

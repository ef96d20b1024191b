#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Two guests on one virtual network, at once: the two-host tests (issue 30).
#
#   tests/vm/vm2.sh [-t SECS] KERNEL_A KERNEL_B SCENARIO.sh OUTDIR
#
# Runs tests/vm/vm.sh twice in parallel, guest A with -k KERNEL_A into
# OUTDIR/a, guest B with -k KERNEL_B into OUTDIR/b, each with a virtio-net
# card on QEMU's dgram netdev: UDP on 127.0.0.1 only, each guest's frames
# sent to the other's port, so the wire is this machine's loopback and
# nothing else.  The guests learn their part from the kernel command line:
# ktrole=a or ktrole=b (the scenario sets addresses 10.0.30.1 and .2).
# Exit status 0 if both guests finished their scenario.
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
tmo=600
[ "${1:-}" = -t ] && { tmo=$2; shift 2; }
[ $# = 4 ] || { sed -n '3,/^set -eu/p' "$0" | sed '$d'; exit 2; }
ka=$1 kb=$2 scen=$3 out=$4
# two free-looking UDP ports: random, and never bound unless both are free
pa=$((20000 + RANDOM % 20000)) pb=$((pa + 1))
net() { # my-port peer-port mac-suffix
	echo "-netdev dgram,id=n0,local.type=inet,local.host=127.0.0.1,local.port=$1,remote.type=inet,remote.host=127.0.0.1,remote.port=$2 -device virtio-net-pci,netdev=n0,mac=52:54:00:4b:54:$3"
}
mkdir -p "$out"
KT_QEMU_OPTS="$(net $pa $pb 01)" KT_APPEND="ktrole=a" \
	"$ROOT/tests/vm/vm.sh" -t "$tmo" -k "$ka" "$scen" "$out/a" 2> "$out/a.err" &
a=$!
KT_QEMU_OPTS="$(net $pb $pa 02)" KT_APPEND="ktrole=b" \
	"$ROOT/tests/vm/vm.sh" -t "$tmo" -k "$kb" "$scen" "$out/b" 2> "$out/b.err" &
b=$!
rc=0
wait $a || rc=1
wait $b || rc=1
cat "$out/a.err" "$out/b.err" >&2
exit $rc

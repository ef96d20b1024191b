#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Boots the Debian 12 guest (tests/vm/debian/image.sh: systemd on Debian's
# generic kernel) and runs one scenario in it as root:
#
#   tests/vm/debian/run.sh [-t SECS] SCENARIO.sh OUTDIR [FILE...]
#
# SCENARIO.sh and the FILEs reach the guest in /var/tmp/kt-in (a tar on a
# second virtio disk); kt-run.service runs the scenario in /root/out and
# everything left there arrives in OUTDIR (a tar on a third disk), with the
# serial console in OUTDIR/console.log.  The cached image is never written
# (QEMU's snapshot=on).  QEMU under TCG, 2 vCPUs on one host thread (see
# tests/vm/vm.sh), 2 GB.  Exit status 0 if the scenario ran (OUTDIR/status
# holds its exit code).
# KT_DEBIAN_IMAGE: another image script (tests/vm/debian/image-peers.sh);
# KT_DEBIAN_OUTMB: size of the output disk (default 256 MB).
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
tmo=1500
while getopts t: o; do
	case $o in t) tmo=$OPTARG ;; *) exit 2 ;; esac
done
shift $((OPTIND - 1))
[ $# -ge 2 ] || { sed -n '3,/^set -eu/p' "$0" | sed '$d'; exit 2; }
scen=$1 out=$2; shift 2
D=$("${KT_DEBIAN_IMAGE:-$HERE/image.sh}")
mkdir -p "$out"
out=$(cd "$out" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/in"
cp "$scen" "$tmp/in/scenario.sh"
cp "$HERE/guest.sh" "$tmp/in/kt-guest.sh"
[ $# = 0 ] || cp "$@" "$tmp/in/"
tar cf "$tmp/in.tar" -C "$tmp/in" .
truncate -s "${KT_DEBIAN_OUTMB:-256}M" "$tmp/out.img"
start=$(date +%s)
set +e
TMPDIR=$tmp timeout "$tmo" qemu-system-x86_64 -accel tcg,thread=single -smp 2 -m 2G \
	-nographic -no-reboot \
	-kernel "$D/vmlinuz" -initrd "$D/initrd.img" \
	-append "root=/dev/vda rw console=ttyS0 panic=-1 ${KT_APPEND:-}" \
	-drive file="$D/root.img",format=raw,if=virtio,snapshot=on \
	-drive file="$tmp/in.tar",format=raw,if=virtio,readonly=on \
	-drive file="$tmp/out.img",format=raw,if=virtio \
	</dev/null >"$out/console.log" 2>&1
rc=$?
set -e
echo "vm: debian $(cat "$D/release") tcg smp=2: qemu exit $rc after $(( $(date +%s) - start )) s" >&2
(cd "$out" && tar xf "$tmp/out.img" --no-overwrite-dir 2>/dev/null) || true
if [ ! -f "$out/status" ]; then
	echo "vm: the guest did not finish (see $out/console.log)" >&2
	tail -20 "$out/console.log" >&2
	exit 1
fi

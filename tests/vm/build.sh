#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Builds kutrace_mod.ko for kernel RELEASE and the static guest programs, and
# prepares the initramfs tree in /var/cache/kutrace/vm/RELEASE/root.
# An arm64 RELEASE (*-arm64, unpacked by tests/vm/setup.sh arm64): the
# module and the programs are cross-built (aarch64-linux-gnu-), busybox is
# Debian's busybox-static for arm64, unpacked.  A riscv64 RELEASE (the
# kernel tests/vm/kbuild.sh builds, *-riscv64-*): cross-built with
# riscv64-linux-gnu-; no busybox (Debian 12 has none for riscv64): /init
# is tests/vm/ktinit.c, which runs a scenario run list.
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
CACHE=${KT_CACHE:-/var/cache/kutrace}
rel=$1
W=$CACHE/vm/$rel
# One build tree per source tree: make decides by mtimes, so worktrees
# sharing the cache would otherwise get each other's binaries.
SB=$CACHE/build-static/$(printf %s "$ROOT" | md5sum | cut -c1-8)
cd "$ROOT"
# KT_KO=/path/kutrace_mod.ko puts that module (e.g. one DKMS built) in
# the guest instead of the one built from this tree.
ko=${KT_KO:-$SB/module/$rel/kutrace_mod.ko}
[ -n "${KT_KO:-}" ] || make -s module KVERS="$rel" BUILD="$SB" >&2
busybox=/bin/busybox kdir=$CACHE/kernels/$rel cc=cc cross=""
xpat='^$'
case $rel in
*-arm64)
	# userland in its own build tree; x86-only test programs left out
	# (ktexc: x86 exceptions; ifuzz: MAP_32BIT)
	SB=$SB/arm64 kdir=$CACHE/arm64/$rel cross=aarch64-linux-gnu-
	cc=${cross}gcc xpat='/(ktexc|ifuzz)$'
	bbv=$(apt-cache show --no-all-versions busybox-static:arm64 |
		awk '$1 == "Version:" { print $2; exit }')
	busybox=$CACHE/arm64/busybox/$bbv/bin/busybox
	if [ ! -x "$busybox" ]; then
		rm -rf "$CACHE/arm64/busybox/$bbv.tmp"
		mkdir -p "$CACHE/arm64/busybox/$bbv.tmp"
		(cd "$CACHE/arm64/busybox/$bbv.tmp" && apt-get download -qq busybox-static:arm64 >&2 &&
			dpkg-deb -x busybox-static_*.deb . && rm -f busybox-static_*.deb)
		mv "$CACHE/arm64/busybox/$bbv.tmp" "$CACHE/arm64/busybox/$bbv"
	fi
	;;
*-riscv64-*)
	SB=$SB/riscv64 cross=riscv64-linux-gnu- cc=${cross}gcc
	xpat='/(ktexc|ifuzz)$' busybox=""
	;;
esac
# Every example program (examples/*.c) goes into the guest; arm64 guests
# also get the postprocessing pipeline (t_vm_arm64: goldens of both
# architectures postprocessed on arm64).
EX=$(for f in examples/*.c; do echo "$SB/bin/$(basename "$f" .c)"; done)
[ -z "$cross" ] || EX="$EX $SB/bin/rawtoevent $SB/bin/eventtospan"
make -s BUILD="$SB" ${cross:+CROSS=$cross} LDFLAGS=-static $SB/bin/kutrace_control $SB/bin/kutrace_flight $EX $SB/libkutrace.a >&2
mkdir -p "$SB/vm"
for w in tests/vm/*.c; do
	b=$SB/vm/$(basename "$w" .c)
	echo "$b" | grep -qE "$xpat" && continue
	# uevload marks through libkutrace (its user fast path), snapload
	# calls kutrace_trigger(); the others stand alone, as any user
	# program could be written
	case $w in
	*/uevload.c|*/snapload.c)
		[ "$b" -nt "$w" ] && [ "$b" -nt "$SB/libkutrace.a" ] ||
			$cc -O2 -static -Wall -Werror -Iinclude -o "$b" "$w" "$SB/libkutrace.a" -lpthread ;;
	*) [ "$b" -nt "$w" ] || $cc -O2 -static -Wall -Werror -Iinclude -o "$b" "$w" ;;
	esac
done

rm -rf "$W/root"
mkdir -p "$W/root"/{bin,sbin,proc,sys,dev,tmp,out,lib/modules}
if [ -n "$busybox" ]; then
	cp "$busybox" "$W/root/bin/busybox"
	# the applets of the amd64 build of the same busybox-static
	for a in $(/bin/busybox --list); do
		[ -e "$W/root/bin/$a" ] || ln -s busybox "$W/root/bin/$a"
	done
fi
cp "$ko" "$W/root/lib/modules/kutrace_mod.ko"
cp $SB/bin/kutrace_control $SB/bin/kutrace_flight $EX $SB/vm/* tests/vm/ktquiet tests/vm/ktreload tests/vm/ktbench "$W/root/bin/"
# virtio drivers for the output disk and the network of the two-guest
# tests (modules in the cloud kernel; a patched test kernel has them
# built in)
md=$kdir/lib/modules/$rel/kernel
n=0
[ -d "$md" ] || md=""
for m in virtio virtio_ring virtio_mmio virtio_pci_legacy_dev virtio_pci_modern_dev virtio_pci virtio_blk \
	failover net_failover virtio_net; do
	[ -n "$md" ] || break
	f=$(find "$md" -name "$m.ko" -o -name "$m.ko.xz" | head -1)
	[ -n "$f" ] || continue
	n=$((n + 1))
	case $f in
	*.xz) xz -dc "$f" > "$W/root/lib/modules/$(printf %02d $n)-$m.ko" ;;
	*) cp "$f" "$W/root/lib/modules/$(printf %02d $n)-$m.ko" ;;
	esac
done
if [ -n "$busybox" ]; then cp tests/vm/init "$W/root/init"; else cp "$SB/vm/ktinit" "$W/root/init"; fi
# the tracepoint list the bench scenarios give ftrace
cp tests/vm/bench_events "$W/root/bench_events"
chmod +x "$W/root/init"

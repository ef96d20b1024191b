#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Boots a Debian cloud kernel in QEMU with a busybox initramfs holding
# kutrace_mod.ko, kutrace_control, the examples and the test workloads, runs
# one guest scenario script and copies its /out directory to the host.
#
#   tests/vm/vm.sh [-k 6.1|6.12|6.1-generic|6.1-rt|RELEASE|p6.1|p6.12|p6.1-nohz|p6.12-nohz|
#                      p6.1-debug|p6.12-debug]
#                  [-a tcg|kvm|aarch64|riscv64] [-s SMP] [-t SECS] [-m TRACEMB]
#                  SCENARIO.sh OUTDIR
#   tests/vm/vm.sh -b [-k ...] [-a ...]
#
# -b: only make the kernel and the module ready (unpacked, or built and
# cached), boot nothing: to build kernels one at a time before guests run.
#
# -a aarch64: an arm64 guest, Debian's arm64 cloud kernel (-k 6.1 or 6.12,
# unpacked by tests/vm/setup.sh arm64) under qemu-system-aarch64 -M virt
# -cpu cortex-a72 with TCG (emulated: times are not an arm64 machine's),
# the module and programs cross-built, Debian's arm64 busybox.
# -a riscv64: a riscv64 guest under qemu-system-riscv64 -M virt (OpenSBI,
# TCG), -k 6.1 only: Debian 12 has no riscv64 kernel, so tests/vm/kbuild.sh
# builds one from linux-source-6.1 (tinyconfig + patches/kutrace-riscv64.config,
# cached like the patched kernels) and the module against it; no busybox
# either: /init is tests/vm/ktinit.c and the scenario a run list
# (tests/vm/scenarios/*.run, see ktinit.c), not a shell script.
# -k 6.1, 6.12: the Debian cloud kernels (tracepoint backend); 6.1-generic,
# 6.1-rt: Debian's generic 6.1 kernel (6.1.0-N-amd64) and its PREEMPT_RT
# flavour (6.1.0-N-rt-amd64).
# -k p6.1, p6.12: kutrace-patched kernels (patches/linux-*/, tinyconfig +
# patches/kutrace-qemu.config, NO_HZ_IDLE) booted with nohz=off: a
# periodic 1000 Hz tick, in idle too; p6.1-nohz, p6.12-nohz: the same
# kernel with its tick stopping in idle; p6.1-debug, p6.12-debug: with
# KASAN, KFENCE, lockdep and more (patches/kutrace-debug.config).
# They are built on first use by tests/vm/kbuild.sh and cached under
# /var/cache/kutrace/kbuild (a build takes minutes); kutrace_mod.ko is
# built against that tree, so it uses the patched backend.  The guest sees
# the kernel release in uname -r.
#
# The guest runs SCENARIO.sh with /out as working directory after loading
# kutrace_mod.ko (tracemb=TRACEMB); everything it leaves in /out arrives in
# OUTDIR (through a raw second virtio disk holding a tar archive), with
# the serial console log in OUTDIR/console.log.  Exit status 0 if the
# guest finished the scenario (OUTDIR/status holds its exit code).
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
CACHE=${KT_CACHE:-/var/cache/kutrace}
kern=6.1 accel=${KT_ACCEL:-tcg} smp=2 tmo=600 mb=8 tick="" prep=0
while getopts bk:a:s:t:m: o; do
	case $o in
	k) kern=$OPTARG ;; a) accel=$OPTARG ;; s) smp=$OPTARG ;;
	t) tmo=$OPTARG ;; m) mb=$OPTARG ;; b) prep=1 ;; *) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# = $((2 - 2 * prep)) ] || { sed -n '3,/^set -eu/p' "$0" | sed '$d'; exit 2; }
scen=${1-} out=${2-}

arch=x86_64
if [ "$accel" = aarch64 ]; then
	arch=aarch64 accel=tcg
	case $kern in 6.1|6.12) ;; *) echo "vm: -a aarch64: -k 6.1 or 6.12" >&2; exit 2 ;; esac
elif [ "$accel" = riscv64 ]; then
	arch=riscv64 accel=tcg
	[ "$kern" = 6.1 ] || { echo "vm: -a riscv64: -k 6.1" >&2; exit 2; }
	kern=rv6.1
fi
case $arch-$kern in
aarch64-*) rels=$("$ROOT/tests/vm/setup.sh" arm64) ;;
riscv64-*) ;;
*-6.1-generic) rel=$("$ROOT/tests/vm/setup.sh" generic) ;;
*-6.1-rt) rel=$("$ROOT/tests/vm/setup.sh" rt) ;;
*) rels=$("$ROOT/tests/vm/setup.sh") ;;
esac
case $kern in
6.1) rel=$(echo "$rels" | grep '^6\.1\.') ;;
6.12) rel=$(echo "$rels" | grep '^6\.12\.') ;;
6.1-generic|6.1-rt) ;;
*) rel=$kern ;;
esac
kimg=$CACHE/kernels/$rel/boot/vmlinuz-$rel
[ $arch = x86_64 ] || kimg=$CACHE/arm64/$rel/boot/vmlinuz-$rel
case $kern in
p6.1|p6.12|p6.1-nohz|p6.12-nohz|p6.1-debug|p6.12-debug|rv6.1)
	series=${kern#p}; series=${series%-*}
	variant=nohz; case $kern in *-*) variant=${kern#*-} ;; esac
	case $kern in *-*) ;; *) tick=nohz=off ;; esac
	kimage=bzImage kmake=""
	if [ $kern = rv6.1 ]; then
		series=6.1 variant=riscv64 tick="" kimage=Image
		kmake="ARCH=riscv CROSS_COMPILE=riscv64-linux-gnu-"
	fi
	kd=$("$ROOT/tests/vm/kbuild.sh" "$series" "$variant")
	rel=$(basename "$kd")
	kimg=$kd/$kimage
	# the module, built against the patched tree (on a fresh machine
	# the first guest is a patched one: its lock's directory is new)
	ko=$CACHE/build-static/$(printf %s "$ROOT" | md5sum | cut -c1-8)/module/$rel
	mkdir -p "$CACHE/vm"
	(
		flock 9
		make -s -C "$ROOT" module-kdir KDIR="$kd/src" KOUT="$ko" KMAKE="$kmake" >&2
	) 9>"$CACHE/vm/.lock-ko"
	export KT_KO=$ko/kutrace_mod.ko
	;;
esac
[ $prep = 0 ] || exit 0
W=$CACHE/vm/$rel
mkdir -p "$W" "$out"
out=$(cd "$out" && pwd)
# Several test runs may share the cache: the guest tree is rebuilt under a
# lock, and each run keeps its initramfs and disk in its own directory.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ir=$tmp/root
(
	flock 9
	"$ROOT/tests/vm/build.sh" "$rel" >&2
	mkdir -p "$ir"
	cp -a "$W/root/." "$ir/"
) 9>"$CACHE/vm/.lock"

# initramfs: the prepared tree + this scenario
cp "$scen" "$ir/scenario.sh"
[ -z "${KT_VM_EXTRA:-}" ] || cp -a "$KT_VM_EXTRA/." "$ir/"
echo "$mb" > "$ir/tracemb"
(cd "$ir" && find . | cpio -o -H newc --quiet | gzip -1) > "$tmp/initrd.gz"

disk=$tmp/out.img
truncate -s 512M "$disk"
case $accel in
kvm) acc="-accel kvm -cpu host" ;;
# One host thread runs all vCPUs by default: with a thread per vCPU, TCG
# now and then lets a vCPU run a stale int3 while another CPU patches
# kernel text (the module registering tracepoints: "Oops: int3" in
# handle_softirqs on 6.12, hangs on 6.1).  KT_TCG_THREAD=multi: faster.
*) acc="-accel tcg,thread=${KT_TCG_THREAD:-single}" ;;
esac
qemu="qemu-system-x86_64 $acc" con=ttyS0
# arm64: the Cortex-A72 of a Raspberry Pi 4, GIC and timer of QEMU's virt
[ $arch != aarch64 ] || qemu="qemu-system-aarch64 -M virt -cpu cortex-a72 $acc" con=ttyAMA0
[ $arch != riscv64 ] || qemu="qemu-system-riscv64 -M virt $acc" 
odisk="-drive file=$disk,format=raw,if=virtio"
# riscv64's test kernel has no PCI: the output disk on virtio-mmio
[ $arch != riscv64 ] ||
	odisk="-drive file=$disk,format=raw,if=none,id=out -device virtio-blk-device,drive=out"
start=$(date +%s)
set +e
# KT_VM_MEM: guest RAM (a 1 GB trace buffer needs 3G); KT_QEMU_OPTS: extra
# QEMU options (make bench: -icount); KT_VM_DRIVE: a second virtio disk,
# /dev/vdb in the guest (the -drive option's value).
timeout "$tmo" $qemu ${KT_QEMU_OPTS:-} -smp "$smp" -m "${KT_VM_MEM:-1G}" -nographic -no-reboot \
	-kernel "$kimg" -initrd "$tmp/initrd.gz" \
	-append "console=$con loglevel=4 panic=-1 $tick ${KT_APPEND:-}" \
	$odisk \
	${KT_VM_DRIVE:+-drive "$KT_VM_DRIVE"} \
	</dev/null >"$out/console.log" 2>&1
rc=$?
set -e
echo "vm: $rel $arch $accel smp=$smp: qemu exit $rc after $(( $(date +%s) - start )) s" >&2
(cd "$out" && tar xf "$disk" --no-overwrite-dir 2>/dev/null) || true
rm -f "$disk"
if [ ! -f "$out/status" ]; then
	echo "vm: the guest did not finish (see $out/console.log)" >&2
	tail -20 "$out/console.log" >&2
	exit 1
fi

#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Builds (once) the Debian 12 guest of tests/t_vm_debian.sh with Debian's
# own tools: mmdebstrap from the archive into a directory, then an ext4
# image made from that directory with mkfs.ext4 -d (no loop mount).  The
# guest boots systemd on Debian's generic kernel with its initramfs; at
# boot kt-run.service unpacks /dev/vdb (a tar: kt-guest.sh, the scenario
# and files) in /var/tmp/kt-in and runs its kt-guest.sh
# (tests/vm/debian/run.sh, guest.sh).
# Cached in /var/cache/kutrace/debian/<hash of packages + this script>;
# prints that directory (root.img, vmlinuz, initrd.img).
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
CACHE=${KT_CACHE:-/var/cache/kutrace}
key=$(cat "$HERE/packages" "$HERE/image.sh" | sha256sum | cut -c1-16)
D=$CACHE/debian/$key
mkdir -p "$CACHE/debian"
exec 9>"$CACHE/debian/.lock"
flock 9
if [ -f "$D/done" ]; then echo "$D"; exit 0; fi
command -v mmdebstrap >/dev/null || {
	echo "debian-image: mmdebstrap missing (apt-get install mmdebstrap)" >&2; exit 1; }
rm -rf "$D"
mkdir -p "$D"
pkgs=$(sed 's/#.*//' "$HERE/packages" | xargs | tr ' ' ,)
start=$(date +%s)
# The guest's unit: run the scenario once, then power off.
cat > "$D/kt-run" <<'RUN'
#!/bin/sh
# kt-run.service: unpack /dev/vdb, hand over to its kt-guest.sh
# (tests/vm/debian/guest.sh: runs the scenario, writes /dev/vdc, powers off)
mkdir -p /var/tmp/kt-in && cd /var/tmp/kt-in && tar xf /dev/vdb &&
	chmod -R a+rX . && exec sh ./kt-guest.sh
systemctl poweroff --no-block
RUN
cat > "$D/kt-run.service" <<'UNIT'
[Unit]
Description=kutrace test scenario from /dev/vdb
Requires=dev-vdb.device dev-vdc.device
After=dev-vdb.device dev-vdc.device local-fs.target systemd-modules-load.service
[Service]
Type=simple
ExecStart=/usr/local/sbin/kt-run
StandardOutput=journal+console
StandardError=journal+console
[Install]
WantedBy=multi-user.target
UNIT
# A small initramfs (the root disk's drivers only): the generic kernel's
# default one holds most modules and takes a minute to unpack under TCG.
nice -n 10 mmdebstrap --variant=minbase --include="$pkgs" \
	--essential-hook='mkdir -p "$1/etc/initramfs-tools/conf.d" && echo MODULES=list > "$1/etc/initramfs-tools/conf.d/kt.conf"' \
	--essential-hook='mkdir -p "$1/usr/share/initramfs-tools/modules.d" && printf "virtio_pci\nvirtio_blk\next4\n" > "$1/usr/share/initramfs-tools/modules.d/qemu-root-disk"' \
	--aptopt='APT::Install-Recommends "false"' \
	--dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-include=/usr/share/doc/*/copyright' \
	--dpkgopt='path-exclude=/usr/share/locale/*' \
	--customize-hook='echo kt-debian > "$1/etc/hostname"' \
	--customize-hook='echo "LABEL=ktroot / ext4 rw,errors=remount-ro 0 1" > "$1/etc/fstab"' \
	--customize-hook="install -m 755 $D/kt-run \"\$1/usr/local/sbin/kt-run\"" \
	--customize-hook="install -m 644 $D/kt-run.service \"\$1/etc/systemd/system/kt-run.service\"" \
	--customize-hook='chroot "$1" systemctl enable kt-run.service' \
	--customize-hook='chroot "$1" systemctl mask apt-daily.timer apt-daily-upgrade.timer e2scrub_all.timer fstrim.timer man-db.timer 2>/dev/null || true' \
	--customize-hook='chroot "$1" passwd -d root' \
	bookworm "$D/root" >"$D/mmdebstrap.log" 2>&1 || {
	echo "debian-image: mmdebstrap failed (see $D/mmdebstrap.log)" >&2; tail -20 "$D/mmdebstrap.log" >&2; exit 1; }
k=$(ls "$D"/root/boot/vmlinuz-* | sort -V | tail -1)
rel=${k##*/vmlinuz-}
cp "$k" "$D/vmlinuz"
cp "$D/root/boot/initrd.img-$rel" "$D/initrd.img"
echo "$rel" > "$D/release"
# room for the debs, DKMS's build and the traces
size=$(( $(du -sm "$D/root" | cut -f1) + 768 ))
nice -n 10 mkfs.ext4 -q -L ktroot -d "$D/root" "$D/root.img" "${size}M" >&2
rm -rf "$D/root"
echo "debian image: $(cat "$D/release"), ${size} MB, built in $(( $(date +%s) - start )) s" > "$D/done"
cat "$D/done" >&2
echo "$D"

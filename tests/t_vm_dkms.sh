#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# DKMS for real: `make dkms-install` registers the module source with dkms
# and builds + installs it for both cached Debian cloud header sets (6.1
# and 6.12, never the host's running kernel, which has no headers); the
# module DKMS built is then loaded in the QEMU guest of each kernel (KT_KO)
# and traces.  Uses a test version so that it never touches a real
# kutrace install, and removes everything at the end (reruns start clean).
. tests/lib.sh
. tests/vm/lib.sh
vm_ready || exit 0
if ! command -v dkms >/dev/null; then
	skip "dkms: not installed (tests/install-deps.sh, tests/deps/docs.apt)"; exit 0
fi
V=0.0.1test
MK="make -s --no-print-directory KT_VERSION=$V"
rels=$(tests/vm/setup.sh 2>"$TMP/setup.err") || { nok "vm setup"; sed 's/^/#   /' "$TMP/setup.err"; exit 0; }
$MK dkms-uninstall > /dev/null 2>&1
start=$(date +%s)
if $MK dkms-install DKMS_KERNELS="$(echo $rels)" > "$TMP/dkms.log" 2>&1; then
	ok "make dkms-install for $(echo $rels) ($(( $(date +%s) - start )) s)"
else
	nok "make dkms-install"; tail -30 "$TMP/dkms.log" | sed 's/^/#   /'
	for r in $rels; do sed 's/^/#   /' /var/lib/dkms/kutrace/$V/build/make.log 2>/dev/null | tail -20; done
fi
check "/usr/src/kutrace-$V holds the module source and dkms.conf" test -f /usr/src/kutrace-$V/dkms.conf
check "dkms.conf rebuilds on kernel upgrades (AUTOINSTALL)" grep -q '^AUTOINSTALL="yes"' /usr/src/kutrace-$V/dkms.conf
for rel in $rels; do
	case $rel in 6.1.*) k=6.1 ;; 6.12.*) k=6.12 ;; *) k=$rel ;; esac
	check "$k: dkms status says installed" sh -c "dkms status -m kutrace -v $V -k $rel 2>/dev/null | grep -q installed"
	ko=$(ls /var/lib/dkms/kutrace/$V/$rel/x86_64/module/kutrace_mod.ko* 2>/dev/null | head -1)
	if [ -z "$ko" ]; then
		nok "$k: DKMS built kutrace_mod.ko"; continue
	fi
	ok "$k: DKMS built $(basename "$ko")"
	check "$k: installed in /lib/modules/$rel/updates/dkms" test -e "/lib/modules/$rel/updates/dkms/$(basename "$ko")"
	# Debian's 6.12 kernels compress modules; busybox insmod wants a plain .ko.
	case $ko in
	*.xz) xz -dc "$ko" > "$TMP/kutrace_mod-$k.ko" ;;
	*) cp "$ko" "$TMP/kutrace_mod-$k.ko" ;;
	esac
	check "$k: the module carries the DKMS signature" \
		sh -c "tail -c 28 '$TMP/kutrace_mod-$k.ko' | grep -q 'Module signature appended'"
	out=$KT_ROOT/build/vm/dkms-$k
	KT_KO="$TMP/kutrace_mod-$k.ko" vm_run "$k: guest ran the scenario" "$out" \
		-k "$k" tests/vm/scenarios/dkms.sh || continue
	ok "$k: guest booted with the DKMS module ($VM_AFTER)"
	eq "$k: insmod of the DKMS-built module" "insmod=0" "$(cat "$out/insmod.status")"
	eq "$k: the guest loaded exactly the DKMS-built bytes" \
		"$(md5sum < "$TMP/kutrace_mod-$k.ko" | cut -d' ' -f1)" "$(cut -d' ' -f1 "$out/ko.md5")"
	check "$k: /dev/kutrace appeared" grep -q '^crw-------' "$out/devnode.txt"
	check "$k: hello_world_trace traced with it" grep -q "hello=0" "$out/scenario.log"
	check "$k: kutrace_control record traced with it" grep -q "record=0" "$out/scenario.log"
	check "$k: no oops" test ! -s "$out/oops.txt"
	if [ -s "$out/hello.trace" ] && [ -x "$KT_BIN/kutrace_postproc" ]; then
		cp "$out/hello.trace" "$TMP/hello-$k.trace"
		"$KT_BIN/kutrace_postproc" "$TMP/hello-$k.trace" --no-html > /dev/null 2>&1
		check "$k: the trace has the hello marks" grep -q 'mark_a=hello' "$TMP/hello-$k.json"
	fi
	# Secure Boot's lockdown: the kernel refuses a module signed by a key it
	# does not trust (the DKMS key is not enrolled in the guest), and
	# kutrace_control says why and how to enroll it.  One kernel is enough.
	[ "$k" = 6.1 ] || continue
	lo=$KT_ROOT/build/vm/dkms-lockdown-$k
	KT_APPEND="lockdown=integrity" KT_KO="$TMP/kutrace_mod-$k.ko" \
		vm_run "$k lockdown: guest ran the scenario" "$lo" \
		-k "$k" tests/vm/scenarios/dkms.sh || continue
	check "$k lockdown: the guest is in integrity lockdown" grep -q '\[integrity\]' "$lo/lockdown.txt"
	check "$k lockdown: insmod of the DKMS-signed module is refused" sh -c "! grep -q 'insmod=0' '$lo/insmod.status'"
	sed 's/^/#   insmod: /' "$lo/insmod.err"
	check "$k lockdown: kutrace_control explains lockdown and the MOK enrollment" \
		sh -c "grep -q 'integrity lockdown' '$lo/lockdown_diag.out' && grep -q 'mokutil --import /var/lib/dkms/mok.pub' '$lo/lockdown_diag.out'"
	sed 's/^/#   /' "$lo/lockdown_diag.out"
done
$MK dkms-uninstall > "$TMP/rm.log" 2>&1
check "make dkms-uninstall removes it from dkms" sh -c "! dkms status -m kutrace -v $V | grep -q ."
check "make dkms-uninstall removes the modules and the source" \
	sh -c "! ls /lib/modules/*/updates/dkms/kutrace_mod.ko* /usr/src/kutrace-$V >/dev/null 2>&1"

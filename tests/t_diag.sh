#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# kutrace_control's diagnostics (libkutrace/diag.c): for each way kutrace can
# be out of reach, the right "why" and the command that fixes it.  The
# machine is faked under KUTRACE_SYSROOT (a /proc, /sys, /lib/modules,
# /var/lib/dkms and /dev/kutrace of our own); missing capabilities are
# real (setpriv drops them).  The VM suites check the same on a real
# kernel (t_vm_examples: non-root; t_vm_basic: module unloaded).
. tests/lib.sh
KC=$KT_BIN/kutrace_control
R=$TMP/root
export KUTRACE_SYSROOT=$R
fresh() {
	rm -rf "$R"; mkdir -p "$R/proc/sys/kernel" "$R/dev"
	echo "Linux version 6.1.0-test" > "$R/proc/version"
	echo "6.1.0-test" > "$R/proc/sys/kernel/osrelease"
	ln -s /proc/self "$R/proc/self"
}
# expect "what" pattern...: kutrace_control stat fails and prints each pattern
expect() {
	local what=$1; shift
	"${RUN[@]}" "$KC" stat > "$TMP/out" 2>&1
	local rc=$? miss=""
	for p in "$@"; do grep -qF -- "$p" "$TMP/out" || miss="$miss [$p]"; done
	if [ $rc != 0 ] && [ -z "$miss" ]; then ok "$what"; else
		nok "$what (rc $rc, missing$miss)"; sed 's/^/#   /' "$TMP/out"
	fi
}
RUN=()

fresh
expect "no module support: says so, fix is a kernel with CONFIG_MODULES" \
	"module not loaded" "no loadable module support" "CONFIG_MODULES=y"

fresh; : > "$R/proc/modules"
expect "module not installed: fix is make dkms-install or make module + insmod" \
	"no kutrace_mod.ko is installed for kernel 6.1.0-test" "sudo make dkms-install" \
	"sudo insmod build/module/6.1.0-test/kutrace_mod.ko"

mkdir -p "$R/lib/modules/6.1.0-test/updates/dkms"
: > "$R/lib/modules/6.1.0-test/updates/dkms/kutrace_mod.ko.xz"
expect "installed but not loaded: fix is modprobe" \
	"installed for this kernel" "sudo modprobe kutrace_mod"

rm -rf "$R/lib/modules"; mkdir -p "$R/var/lib/dkms/kutrace/0.1.0"
expect "DKMS without a build for this kernel: fix is headers + dkms autoinstall" \
	"DKMS has the kutrace source but no module for kernel 6.1.0-test" \
	"sudo apt-get install linux-headers-6.1.0-test && sudo dkms autoinstall -k 6.1.0-test"

mkdir -p "$R/sys/kernel/security"
echo "none [integrity] confidentiality" > "$R/sys/kernel/security/lockdown"
expect "Secure Boot lockdown: unsigned modules refused, fix is enrolling the DKMS key" \
	"integrity lockdown" "sudo mokutil --import /var/lib/dkms/mok.pub"

fresh; echo "kutrace_mod 20480 0 - Live 0x0000000000000000" > "$R/proc/modules"
mkdir -p "$R/sys/class/misc/kutrace"; echo "10:122" > "$R/sys/class/misc/kutrace/dev"
expect "module loaded but no device node: fix is mknod with the real numbers" \
	"loaded but /dev/kutrace is missing" "sudo mknod -m 600 /dev/kutrace c 10 122"

if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	fresh; : > "$R/proc/modules"
	: > "$R/dev/kutrace"; chmod 600 "$R/dev/kutrace"; chmod 755 "$TMP" "$R" "$R/dev"
	RUN=(setpriv --reuid=65534 --regid=65534 --clear-groups --)
	expect "not root: no permission, fix is sudo" \
		"no permission" "you are uid 65534" "sudo kutrace_control"
	mkdir -p "$R/sys/kernel/security"
	echo "none integrity [confidentiality]" > "$R/sys/kernel/security/lockdown"
	chmod -R a+rX "$R/sys"
	expect "confidentiality lockdown: tracing refused, fix is booting with lockdown=integrity" \
		"confidentiality lockdown" "lockdown=integrity"
	fresh; : > "$R/proc/modules"
	: > "$R/dev/kutrace"; chmod 000 "$R/dev/kutrace"
	RUN=(setpriv --bounding-set=-all --inh-caps=-all --)
	expect "root without CAP_PERFMON/CAP_SYS_ADMIN (a container): fix is --cap-add PERFMON" \
		"neither CAP_PERFMON nor CAP_SYS_ADMIN" "--cap-add PERFMON --device /dev/kutrace"
	RUN=()
else
	skip "permission diagnostics: need root and setpriv to drop privileges"
fi

# The user library says the same (hello_world_trace -> kutrace_test).
fresh; : > "$R/proc/modules"
if [ -x "$KT_BIN/hello_world_trace" ]; then
	hw=$(cd "$KT_BIN" && pwd)/hello_world_trace
	(cd "$TMP" && "$hw" > out 2>&1)
	check "the user library (kutrace_test) explains too" grep -q "sudo make dkms-install" "$TMP/out"
fi

# SPDX-License-Identifier: BSD-3-Clause
# Helpers for tests/t_vm_*.sh (after tests/lib.sh).
# vm_ready: QEMU usable here (root, x86-64, qemu installed); else skip.
vm_ready() {
	if [ "$(uname -m)" != x86_64 ]; then skip "vm: not an x86-64 host"; return 1; fi
	if [ "$(id -u)" != 0 ] && ! sudo -n true 2>/dev/null; then
		skip "vm: needs root for apt-get (kernel headers)"; return 1
	fi
	if ! command -v qemu-system-x86_64 >/dev/null; then
		skip "vm: qemu-system-x86_64 missing (run tests/install-deps.sh)"; return 1
	fi
	return 0
}
# ktcheck FILE: build (once) and run the independent raw-trace checker
KTCHECK=$TMP/ktcheck
ktcheck() {
	[ -x "$KTCHECK" ] || cc -O2 -Wall -I"$KT_ROOT/include" -o "$KTCHECK" \
		"$KT_ROOT/tests/vm/host/ktcheck.c" || return 1
	"$KTCHECK" "$@"
}
# fact FILE KEY...: the value after "KEY" in ktcheck output
fact() {
	local f=$1; shift
	awk -v k="$*" 'index($0, k " ") == 1 { print substr($0, length(k) + 2); exit }' "$f"
}
# eq what expected actual
eq() { if [ "$2" = "$3" ]; then ok "$1"; else nok "$1 (expected $2, got $3)"; fi; }
# between what lo hi actual
between() {
	if [ -n "$4" ] && [ "$4" -ge "$2" ] && [ "$4" -le "$3" ]; then ok "$1 ($4)"
	else nok "$1 (expected $2..$3, got ${4:-nothing})"; fi
}

# SPDX-License-Identifier: BSD-3-Clause
# copy_prog PROG DIR: the host's PROG and the shared libraries it loads
# into DIR (DIR/bin/PROG, DIR/lib/..., DIR/lib64/...), for a guest's
# extra disk (tests/vm/vm.sh KT_VM_EXTRA): a peer tracer run in a guest
# that has none of its own.  Sourced by bench/run.sh and bench/peers.sh.
copy_prog() {
	local p
	p=$(command -v "$1") || return 1
	p=$(readlink -f "$p")
	mkdir -p "$2/bin" "$2/lib64"
	cp "$p" "$2/bin/$1"
	ldd "$p" | awk '/=> \// { print $3 } /^\t\/lib64/ { print $1 }' | while read -r l; do
		mkdir -p "$2$(dirname "$l")"
		cp -L "$l" "$2$l"
	done
}

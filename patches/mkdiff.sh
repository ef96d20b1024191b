#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# For porters: writes the unified diff of a kernel tree edited in place,
# where every changed file FOO has its original beside it as FOO.kt-orig
# (new files: none).  The kutrace core files come from patches/common/,
# the trace format header from include/kutrace/format.h (the one file the
# module, the tools and the kernel share; never edit the kernel's copy).
#
#   patches/mkdiff.sh TREE "Debian 6.1.192" > patches/linux-X.Y/kutrace.patch
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
tree=$1
what=${2:-Linux}
cd "$tree"
cat <<HDR
From: kutrace developers <kutrace@users.noreply.github.com>
Subject: [PATCH] kutrace: hooks at every user/kernel transition ($what)

CONFIG_KUTRACE (x86-64, default n) adds one hook at every system call
(64-bit and ia32), interrupt vector, page fault, the UD, BP, GP, NM
and DB exceptions, context switch, wakeup, idle entry (mwait, hlt,
I/O port), exec and rename, and TCP/UDP packet.  The kutrace module
fills kutrace_global_ops and switches kutrace_tracing on; until then
each hook is one load and a not-taken branch.  System call 1023 is the
control call of the KUtrace user library while the module is loaded.
Event numbers and limits come from include/linux/kutrace_format.h,
kutrace's trace format header, shared as is with the module and the
user tools.

Signed-off-by: kutrace developers <kutrace@users.noreply.github.com>
---
HDR
mkdir -p kernel/kutrace
cp "$here/common/kutrace.h" include/linux/kutrace.h
cp "$root/include/kutrace/format.h" include/linux/kutrace_format.h
cp "$here/common/kutrace.c" kernel/kutrace/kutrace.c
printf '# SPDX-License-Identifier: GPL-2.0\nobj-y := kutrace.o\n' > kernel/kutrace/Makefile
{
	find . -name '*.kt-orig' | sed 's/\.kt-orig$//; s|^\./||'
	echo include/linux/kutrace.h
	echo include/linux/kutrace_format.h
	echo kernel/kutrace/Makefile
	echo kernel/kutrace/kutrace.c
} | LC_ALL=C sort -u | while read -r f; do
	if [ -f "$f.kt-orig" ]; then
		diff -up --label "a/$f" --label "b/$f" "$f.kt-orig" "$f" || true
	else
		diff -up --label /dev/null --label "b/$f" /dev/null "$f" || true
	fi
done

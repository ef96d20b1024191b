#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Scenario 2 (tickless) on the NO_HZ_IDLE variants of the kutrace-patched
# kernels: tests/t_vm_tickless.sh with -k p6.1-nohz / p6.12-nohz.  Only
# when KT_KERNELS_NOHZ names them (`make test-kernels` does); each variant
# is one more kernel build (tests/vm/kbuild.sh, cached).
. tests/lib.sh
if [ -z "${KT_KERNELS_NOHZ:-}" ]; then
	skip "NO_HZ patched kernels: run make test-kernels (KT_KERNELS_NOHZ=\"p6.1-nohz p6.12-nohz\")"
	exit 0
fi
for k in $KT_KERNELS_NOHZ; do
	KT_VM_KERNEL_TICKLESS=$k bash tests/t_vm_tickless.sh
done

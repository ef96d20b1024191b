#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Scenario 2 (tickless) on the NO_HZ_IDLE variant of the kutrace-patched
# kernels: tests/t_vm_tickless.sh with -k p6.1-nohz (KT_KERNELS_NOHZ picks
# the kernels; builds and caches them with tests/vm/kbuild.sh on first use).
for k in ${KT_KERNELS_NOHZ:-p6.1-nohz}; do
	KT_VM_KERNEL_TICKLESS=$k bash tests/t_vm_tickless.sh
done

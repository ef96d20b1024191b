#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Scenario 2 (tickless) on the NO_HZ_IDLE variants of the kutrace-patched
# kernels: tests/t_vm_tickless.sh with -k p6.1-nohz (default, also in CI)
# or the kernels KT_KERNELS_NOHZ names (`make test-kernels`: p6.1-nohz and
# p6.12-nohz).  Each variant is one more kernel build (tests/vm/kbuild.sh,
# cached); the test itself idles CPU 1 for 30 s and 70 s (~2 minutes).
for k in ${KT_KERNELS_NOHZ:-p6.1-nohz}; do
	KT_VM_KERNEL_TICKLESS=$k bash tests/t_vm_tickless.sh
done

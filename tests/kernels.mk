# SPDX-License-Identifier: BSD-3-Clause
# make test-kernels: the kutrace-patched kernels, all of them -- 6.1 and
# 6.12 booted with a periodic tick (t_kernel_patched) and with their tick
# stopping in idle (t_vm_tickless; the same NO_HZ_IDLE builds), plus the
# patch checks (t_kernel_patch).
# Kernels are built on first use by tests/vm/kbuild.sh and cached in
# /var/cache/kutrace/kbuild.  `make test` (and CI) runs the same suites
# without p6.12-nohz (see docs/install-guide.md, "Patched kernel").
.PHONY: test-kernels
test-kernels: test-progs
	KT_KERNELS="p6.1 p6.12" KT_TICKLESS_KERNELS="p6.1-nohz p6.12-nohz" \
	  tests/run.sh t_kernel_patch t_kernel_patched t_vm_tickless

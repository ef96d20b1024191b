# SPDX-License-Identifier: BSD-3-Clause
# make soak: tests/t_vm_soak.sh for SOAK_SECS seconds (default 600) on the
# debug kernel (p6.1-debug: KASAN, KFENCE, lockdep, ...; built on first use,
# ~8 min) and on Debian's 6.12 cloud kernel with its run-time checks
# (slub_debug, KFENCE, a module with trapping UBSan checks).  make test
# runs the same suite for 60 s (see the suite's header).
SOAK_SECS    ?= 600
SOAK_KERNELS ?= p6.1-debug 6.12
.PHONY: soak
soak: all
	KT_SOAK_SECS=$(SOAK_SECS) KT_SOAK_KERNELS="$(SOAK_KERNELS)" tests/run.sh t_vm_soak

# SPDX-License-Identifier: BSD-3-Clause
# make soak: tests/t_vm_soak.sh for SOAK_SECS seconds (default 600) on the
# debug kernel (p6.1-debug: KASAN, KFENCE, lockdep, ...; built on first use,
# ~8 min) and on Debian's 6.12 cloud kernel with its run-time checks
# (slub_debug, KFENCE, a module with trapping UBSan checks).  make test
# runs the same suite for 60 s (see the suite's header).
SOAK_SECS    ?= 600
SOAK_KERNELS ?= p6.1-debug 6.12
.PHONY: soak
soak: test-progs
	KT_SOAK_SECS=$(SOAK_SECS) KT_SOAK_KERNELS="$(SOAK_KERNELS)" tests/run.sh t_vm_soak

# make ifuzz: tests/t_vm_ifuzz.sh (the module's interfaces fuzzed in a
# guest) with a root phase of IFUZZ_SECS seconds (default 300; the user
# phase and the reload race half of it each); make test runs 15 s.
IFUZZ_SECS    ?= 300
IFUZZ_KERNELS ?= 6.12 p6.1
.PHONY: ifuzz
ifuzz: test-progs
	KT_IFUZZ_SECS=$(IFUZZ_SECS) KT_IFUZZ_KERNELS="$(IFUZZ_KERNELS)" tests/run.sh t_vm_ifuzz

# make soak-stream: issue 44's ten minutes: tests/t_vm_stream.sh with
# KT_STREAM_SOAK_SECS=STREAM_SOAK_SECS (default 600) streams getpid at the
# guest's full rate onto a second disk, cut every 32 MiB, and checks every
# chunk alone, the exact call count across the cuts and the chunks joined
# (about 18 min on 2 cores and ~7 GB of disk while it runs; see the
# suite's header; figures in docs/PERFORMANCE.md).  Not part of make test.
STREAM_SOAK_SECS ?= 600
.PHONY: soak-stream
soak-stream: test-progs
	KT_STREAM_SOAK_SECS=$(STREAM_SOAK_SECS) tests/run.sh t_vm_stream

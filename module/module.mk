# SPDX-License-Identifier: BSD-3-Clause
# kutrace_mod.ko, built out of tree against every installed Debian header set
# (or KVERS=...).  Not part of plain `make`: `make module` builds it when
# kernel headers exist and says so when they do not.
# Output: $(BUILD)/module/<kernel-release>/kutrace_mod.ko
KVERS ?= $(notdir $(wildcard /usr/src/linux-headers-*-cloud-amd64))
KVERS := $(patsubst linux-headers-%,%,$(KVERS))
MOD_SRCS := $(wildcard module/*.c module/*.h) module/Kbuild include/kutrace/format.h
# arm64 releases (*-arm64) on another host: the headers tests/vm/setup.sh
# arm64 unpacked under $(KT_CACHE)/arm64/<release>, cross-compiled with the
# host's kbuild.  On an arm64 host, /usr/src as for any release.
KT_CACHE ?= /var/cache/kutrace
kt_xarm64 = $(if $(filter aarch64,$(shell uname -m)),,$(filter %-arm64,$(1)))
kt_kdir = $(if $(kt_xarm64),$(KT_CACHE)/arm64/$(1))/usr/src/linux-headers-$(1)
kt_kcross = $(if $(kt_xarm64),ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-)

.PHONY: module module-kdir checkpatch
module: $(foreach k,$(KVERS),$(BUILD)/module/$(k)/kutrace_mod.ko)
	@[ -n "$(KVERS)" ] || echo "module: no kernel headers in /usr/src (apt-get install linux-headers-cloud-amd64)"

$(BUILD)/module/%/kutrace_mod.ko: $(MOD_SRCS)
	@mkdir -p $(dir $@)include/kutrace
	cp module/*.c module/*.h module/Kbuild $(dir $@)
	cp include/kutrace/format.h $(dir $@)include/kutrace/
	$(MAKE) -C $(call kt_kdir,$*) $(call kt_kcross,$*) M=$(abspath $(dir $@)) modules

# Against any configured kernel tree, e.g. a kutrace-patched one built by
# tests/vm/kbuild.sh:  make module-kdir KDIR=<tree> [KOUT=<dir>]
# [KMAKE="ARCH=riscv CROSS_COMPILE=riscv64-linux-gnu-"] (another arch's tree)
KOUT ?= $(BUILD)/module/kdir
module-kdir:
	@test -n "$(KDIR)" || { echo "module-kdir: give KDIR=<kernel build tree>"; exit 1; }
	@mkdir -p $(KOUT)/include/kutrace
	cp module/*.c module/*.h module/Kbuild $(KOUT)/
	cp include/kutrace/format.h $(KOUT)/include/kutrace/
	$(MAKE) -C $(KDIR) $(KMAKE) M=$(abspath $(KOUT)) modules

# Kernel style check with checkpatch.pl from the kernel source (cached).
checkpatch:
	tests/vm/get-checkpatch.sh
	/var/cache/kutrace/checkpatch/checkpatch.pl --strict --no-tree --terse \
	  --ignore FILE_PATH_CHANGES,SPDX_LICENSE_TAG -f module/*.c module/*.h

# SPDX-License-Identifier: BSD-3-Clause
# The BPF backend (bpf/kutrace.bpf.c), linked into kutrace_control and
# kutrace_flight when
# clang, bpftool and libbpf-dev are installed (tests/deps/bpf.apt);
# without them kutrace_control has the module backend only.  vmlinux.h is
# made at build time from a kernel's BTF (VMLINUX_BTF, default the running
# kernel's; CO-RE relocates to the kernel the programs load on) and cached
# outside the tree, keyed by the BTF's checksum.
VMLINUX_BTF ?= /sys/kernel/btf/vmlinux
BPF_CACHE   ?= $(if $(wildcard /var/cache/kutrace/.),/var/cache/kutrace/bpf,$(BUILD)/gen)
HAVE_BPF    ?= $(shell command -v clang >/dev/null && command -v bpftool >/dev/null && \
		test -r /usr/include/bpf/libbpf.h && test -r $(VMLINUX_BTF) && echo 1)

ifeq ($(HAVE_BPF),1)
BPF_VMLINUX := $(BPF_CACHE)/vmlinux-$(shell md5sum < $(VMLINUX_BTF) | cut -c1-12).h

$(BPF_VMLINUX):
	@mkdir -p $(dir $@)
	bpftool btf dump file $(VMLINUX_BTF) format c > $@.tmp$$$$ && mv $@.tmp$$$$ $@

$(OBJ)/bpf/kutrace.bpf.o: bpf/kutrace.bpf.c include/kutrace/format.h \
		libkutrace/bpfstate.h $(BPF_VMLINUX)
	@mkdir -p $(dir $@)
	ln -sf $(BPF_VMLINUX) $(OBJ)/bpf/vmlinux.h
	clang -g -O2 -target bpf -mcpu=v3 -D__TARGET_ARCH_x86 -Wall -Werror \
		-I$(OBJ)/bpf -Iinclude -Ilibkutrace -c $< -o $@

$(BUILD)/gen/kutrace.skel.h: $(OBJ)/bpf/kutrace.bpf.o
	@mkdir -p $(dir $@)
	bpftool gen skeleton $< name kutrace_bpf > $@.tmp && mv $@.tmp $@

$(OBJ)/record/kt_bpf_load.o: $(BUILD)/gen/kutrace.skel.h
$(OBJ)/record/kutrace_control.o: CFLAGS += -DKT_HAVE_BPF
$(BIN)/kutrace_control: $(OBJ)/record/kt_bpf_load.o
$(BIN)/kutrace_control: LDLIBS += -lbpf -lelf -lz
$(OBJ)/record/kutrace_flight.o: CFLAGS += -DKT_HAVE_BPF
$(BIN)/kutrace_flight: $(OBJ)/record/kt_bpf_load.o
$(BIN)/kutrace_flight: LDLIBS += -lbpf -lelf -lz
endif

// SPDX-License-Identifier: BSD-3-Clause
/* names.c - lookups in the generated name tables. */
#include <stdbool.h>
#include <string.h>

#include "decode.h"

const char *const kt_softirq_names[16] = {
	"hi", "timer", "tx", "rx", "block", "irq_p", "taskl", "sched",
	"hrtim", "rcu", "", "", "", "", "", "ast",
};

static const char *lookup(const struct kt_name_entry *t, size_t n, int nr)
{
	size_t lo = 0, hi = n;

	/* Tables are sorted by number (the generator sorts them). */
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (t[mid].number == nr)
			return t[mid].name;
		if (t[mid].number < nr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

const char *kt_syscall_name(int nr)
{
	return lookup(kt_syscall64_names, kt_syscall64_count, nr);
}

const char *kt_arch_syscall_name(enum kt_arch arch, int nr)
{
	if (arch == KT_ARCH_ARM64)
		return lookup(kt_syscall_names_arm64, kt_syscall_count_arm64, nr);
	if (arch == KT_ARCH_RISCV64)
		return lookup(kt_syscall_names_riscv64, kt_syscall_count_riscv64, nr);
	if (arch == KT_ARCH_X86_64)
		return lookup(kt_syscall_names_x86_64, kt_syscall_count_x86_64, nr);
	return NULL;
}

/* The word before the colon names it: "tracepoint arm64: ..." */
static bool arch_word(const char *text, const char *colon, const char *arch)
{
	size_t n = strlen(arch);

	return (size_t)(colon - text) >= n && strncmp(colon - n, arch, n) == 0;
}

/*
 * "tracepoint arm64: ..." (the module on arm64), "tracepoint riscv64:
 * ...", "tracepoint: ..." (on x86-64; also with the spaces taken out, as
 * the decoder keeps names).
 */
enum kt_arch kt_backend_arch(const char *text)
{
	const char *colon = strchr(text, ':');

	if (colon && arch_word(text, colon, "arm64"))
		return KT_ARCH_ARM64;
	if (colon && arch_word(text, colon, "riscv64"))
		return KT_ARCH_RISCV64;
	return KT_ARCH_X86_64;
}

const char *kt_errno_name(int err)
{
	return lookup(kt_errno_names, kt_errno_count, err);
}

// SPDX-License-Identifier: BSD-3-Clause
/* names.c - lookups in the generated name tables. */
#include "kutrace-local.h"

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

const char *kt_errno_name(int err)
{
	return lookup(kt_errno_names, kt_errno_count, err);
}

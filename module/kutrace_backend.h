/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kutrace_backend.h - how the module core talks to an event source.
 *
 * A backend attaches the hooks that call kt_trace_1/2/many.  The stock
 * kernel backend (kutrace_tp.c) uses tracepoints and probes; the backend
 * for the kutrace-patched kernel (kutrace_patched.c) fills the kernel's
 * hook table instead.  Exactly one backend is active.
 */
#ifndef KUTRACE_BACKEND_H
#define KUTRACE_BACKEND_H

struct kt_backend {
	const char *name;
	unsigned int id;	/* KUTRACE_BACKEND_* */
	/* Recorded in the trace: what this backend reconstructs. */
	const char *reconstructed;
	int (*attach)(void);
	void (*detach)(void);
	/* Optional: mirror the tracing flag into the kernel's hooks. */
	void (*set_tracing)(bool on);
};

extern const struct kt_backend kt_tp_backend;
#ifdef KT_HAVE_KUTRACE_PATCH
extern const struct kt_backend kt_patched_backend;
#endif

/* Control command @cmd (FORMATS.md 3.7 numbering, ~7/~8 forced inserts)
 * as the patched kernel's system call 1023 delivers it; errors are ~0.
 */
u64 kt_control_call(u64 cmd, u64 arg);

#endif /* KUTRACE_BACKEND_H */

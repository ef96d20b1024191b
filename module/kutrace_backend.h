/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kutrace_backend.h - how the module core talks to an event source.
 *
 * A backend attaches the hooks that call kt_trace_1/2/many.  The stock
 * kernel backend (kutrace_tp.c) uses tracepoints and probes; a backend
 * for the kutrace-patched kernel can fill the kernel's hook table
 * instead.  Exactly one backend is active.
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
};

extern const struct kt_backend kt_tp_backend;

#endif /* KUTRACE_BACKEND_H */

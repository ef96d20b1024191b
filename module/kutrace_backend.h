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
	/*
	 * Optional: attach the probes tracing needs (on, before ON) and
	 * detach them (off, once tracing has stopped).  May sleep.
	 */
	int (*arm)(bool on);
};

extern const struct kt_backend kt_tp_backend;
#ifdef KT_HAVE_KUTRACE_PATCH
extern const struct kt_backend kt_patched_backend;
#endif

/*
 * The packet filter of the pktmask and pktmatch parameters (FORMATS 3.8):
 * a payload passes when init ^ (p0 & mask[0]) ^ (p1 & mask[1]) ^
 * (p2 & mask[2]), folded to 32 bits, is 0.  Both backends record packets.
 */
void kt_net_filter(u64 *init, u64 mask[3]);

/* Control command @cmd (docs/spec/FORMATS.md 3.7 numbering, ~7/~8 forced inserts)
 * as system call 1023 delivers it (the patched kernel's hook or
 * kutrace_syscall.c); errors are ~0.
 */
u64 kt_control_call(u64 cmd, u64 arg);

/*
 * System call 1023 on a stock kernel (kutrace_syscall.c): attach logs one
 * line saying whether it is served; the module loads either way.  The
 * sys_enter probe routes each 64-bit call 1023 (its number becomes the
 * carrier), the sys_exit probe restores the number of one that was not
 * served.
 */
/*
 * Bit 32 set: no program's call has this number.  The low 32 bits, which
 * the kernel dispatches, are unassigned on x86-64: 335.. are taken from
 * below by x86-only calls (uretprobe 335, uprobe 336) and 424.. by the
 * common table, so the carrier is the last number before the common table.
 */
#define KT_SYS1023_CARRIER	((1UL << 32) | 423)
void kt_sys1023_attach(void);
void kt_sys1023_detach(void);
/* The call is served: its routing probes stay attached. */
bool kt_sys1023_attached(void);
void kt_sys1023_route(struct pt_regs *regs);
void kt_sys1023_unroute(struct pt_regs *regs);

#endif /* KUTRACE_BACKEND_H */

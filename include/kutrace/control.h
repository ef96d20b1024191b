/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * kutrace/control.h - the user library for programs that mark themselves
 * (libkutrace(3); docs/spec/FORMATS.md 7): kutrace_go/goipc/stop, marks
 * a..d, addname, addevent, readtime.  These are all libkutrace.so exports
 * (libkutrace/libkutrace.map); the control channel under them
 * (/dev/kutrace ioctls, the patched kernel's syscall 1023, BPF) is
 * private to the library and kutrace_control (libkutrace/channel.h).
 *
 * Errors: each function's comment says what it returns (kutrace_go and
 * kutrace_stop a negative errno); none exits the caller.
 */
#ifndef KUTRACE_CONTROL_H
#define KUTRACE_CONTROL_H

#include <stdint.h>
#include <stddef.h>
#include <stdio.h>
#include "kutrace/format.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* User library                                                        */
/* ------------------------------------------------------------------ */

/* Module present and version >= 3 (prints why not).  1 or 0. */
int kutrace_test(void);
/* RESET(0 / IPC); init(name); ON.  0 or -errno. */
int kutrace_go(const char *name);
int kutrace_goipc(const char *name);
/*
 * OFF, dump to fname (NULL: default name), RESET.  Unlike the original
 * this does not exit the caller.  0 or -errno.
 */
int kutrace_stop(const char *fname);
void kutrace_mark_a(const char *label);
void kutrace_mark_b(const char *label);
void kutrace_mark_c(const char *label);
void kutrace_mark_d(uint64_t n);
/* 1 recorded, 0 tracing off, -1 unavailable. */
int kutrace_addevent(unsigned int event, uint64_t arg);
/*
 * Name entry of a zero-length-nibble type, at most 55 bytes of name.
 * -EINVAL for a type with a length, -1 unavailable, else the module's
 * answer: nonzero recorded, 0 tracing off.
 */
int kutrace_addname(unsigned int type, uint64_t number, const char *name);
uint64_t kutrace_readtime(void);
/*
 * Keep this moment: a TRIGGER entry (docs/spec/FORMATS.md 11) with reason
 * (at most 40 bytes kept) that kutrace_flight answers with a snapshot.
 * 1 recorded, 0 tracing off, -1 unavailable.
 */
int kutrace_trigger(const char *reason);

#ifdef __cplusplus
}
#endif

#endif /* KUTRACE_CONTROL_H */

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libkutrace-local.h - what libkutrace's own files share and the tools'
 * library (lib/, base.h and decode.h) reuses: base-40 labels and the name
 * tables generated at build time from the system headers.  Not installed;
 * libkutrace.so exports none of it (libkutrace.map).
 */
#ifndef LIBKUTRACE_LOCAL_H
#define LIBKUTRACE_LOCAL_H

#include <stddef.h>
#include <stdint.h>

#include "channel.h"

/* The channel's state, shared by channel.c, dump.c and markers.c. */
struct kt_ctl_state {
	int fd;				/* /dev/kutrace, or -1 */
	enum kt_ctl_via via;		/* the channel in use */
	enum kt_ctl_via prefer;		/* kt_ctl_prefer() */
	uint64_t start_ctr, start_usec;	/* time pairs (ON, OFF) */
	uint64_t stop_ctr, stop_usec;
};
extern struct kt_ctl_state kt_ctl;

/* Counter and gettimeofday taken within 320 ticks of each other. */
void kt_ctl_time_pair(uint64_t *ctr, uint64_t *usec);
/*
 * INSERT1 or INSERTN of a program's own entry (markers.c, trigger.c):
 * through system call 1023 when another process holds /dev/kutrace.
 * 0 or -errno, as kt_ctl_cmd.
 */
int kt_user_insert(unsigned int nr, uint64_t arg, uint64_t *result);
/*
 * A name entry's words (w: KUTRACE_MAX_ENTRY_WORDS): type with its length
 * nibble, number, then at most max bytes of name.
 */
void kt_name_entry(uint64_t *w, unsigned int type, uint64_t number,
		   const char *name, size_t max);
/* The rest of the first line of path after "key<spaces>: ", or "". */
void kt_first_line_after(const char *path, const char *key, char *out,
			  size_t len);

/* ---------------------------------------------------------------------- */
/* User events without a system call (uev.c, docs/spec/FORMATS.md 9)       */
/* ---------------------------------------------------------------------- */

/*
 * One entry into the calling thread's user buffer: word (event and arg,
 * a trace entry word) and nname name words.  1 written, 0 not (tracing
 * off, or lost: the buffer is full), -1 no user buffers here (the caller
 * takes the control channel).  Async-signal-safe.
 */
int kt_uev_put(uint64_t word, const uint64_t *name, unsigned int nname);

/* ---------------------------------------------------------------------- */
/* Base-40                                                                 */
/* ---------------------------------------------------------------------- */

uint32_t kt_base40_encode(const char *s);
/* Decodes into buf (at least 7 bytes), lower case; returns buf. */
char *kt_base40_decode(uint32_t v, char *buf);

/* ---------------------------------------------------------------------- */
/* Name tables generated from <asm/unistd_64.h> and <errno.h>              */
/* ---------------------------------------------------------------------- */

struct kt_name_entry {
	int number;
	const char *name;
};

/* Each generated table is an array and its count (gen_tables.sh writes both). */
extern const struct kt_name_entry kt_syscall64_names[];
extern const size_t kt_syscall64_count;
extern const struct kt_name_entry kt_errno_names[];
extern const size_t kt_errno_count;
extern const struct kt_name_entry kt_trap_names[];
extern const size_t kt_trap_count;
extern const struct kt_name_entry kt_irq_names[];
extern const size_t kt_irq_count;
/* Both architectures' system calls, for traces of either (empty when the
 * build host lacks the other's headers). */
extern const struct kt_name_entry kt_syscall_names_x86_64[];
extern const size_t kt_syscall_count_x86_64;
extern const struct kt_name_entry kt_syscall_names_arm64[];
extern const size_t kt_syscall_count_arm64;
extern const struct kt_name_entry kt_syscall_names_riscv64[];
extern const size_t kt_syscall_count_riscv64;

#endif /* LIBKUTRACE_LOCAL_H */

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * decode.h - raw blocks to events (rawtoevent, docs/spec/FORMATS.md 4), and
 * the per-CPU events merged into one time-ordered stream
 *
 * names.c: system call, errno and architecture names; timebase.c: ticks to
 * nsec10; decode.c: one block to events; merge.c: per-CPU FIFOs released
 * in time order.
 */
#ifndef KT_LIB_DECODE_H
#define KT_LIB_DECODE_H

#include "raw.h"

/* A trace's architecture, from its backend entry (docs/FORMAT.md). */
enum kt_arch { KT_ARCH_UNKNOWN, KT_ARCH_X86_64, KT_ARCH_ARM64, KT_ARCH_RISCV64 };

/* Syscall and errno names from the tables; NULL if unknown. */
const char *kt_syscall_name(int nr);
const char *kt_errno_name(int err);
extern const char *const kt_softirq_names[16];
/* System call @nr of architecture @arch; NULL if unknown. */
const char *kt_arch_syscall_name(enum kt_arch arch, int nr);
/* The architecture a backend entry's text ("NAME[ ARCH]: ...") names. */
enum kt_arch kt_backend_arch(const char *text);

/* ---------------------------------------------------------------------- */
/* Ticks to time (docs/spec/FORMATS.md 4.3, but UTC and without the 999 s limit) */
/* ---------------------------------------------------------------------- */

struct kt_timebase {
	uint64_t c0;		/* start counter */
	uint64_t u0;		/* start usec */
	double slope_us;	/* usec per tick */
	uint64_t minute_usec;	/* start of the UTC minute holding u0 */
	int64_t cm;		/* tick at that minute */
	int lowres;		/* u74: 1 MHz counter */
};

/* Returns 0, or -1 if the rate is implausible (err set). */
int kt_timebase_init(struct kt_timebase *tb, uint64_t c0, uint64_t u0,
		     uint64_t c1, uint64_t u1, char *err, size_t errlen);
/* nsec10 since the base minute for a full tick value. */
/*
 * Times are saturated at +-KT_TIME_LIMIT (10 ns units, 365 years): sums of
 * a few such times cannot overflow; the decoder refuses blocks there.
 */
#define KT_TIME_LIMIT ((int64_t)1 << 60)
int64_t kt_timebase_ns10(const struct kt_timebase *tb, uint64_t ticks);
/* "YYYY-MM-DD_HH:MM:00" of the base minute, UTC. */
void kt_timebase_string(const struct kt_timebase *tb, char *buf, size_t len);

/* ---------------------------------------------------------------------- */
/* Events: the unit passed from decoding to span building                  */
/* ---------------------------------------------------------------------- */

struct kt_event {
	int64_t t;		/* nsec10 since base minute; -1 for names */
	int64_t dur;		/* nsec10 */
	int event;
	int cpu;
	int pid;
	int rpc;
	int64_t arg;
	int64_t retval;
	int ipc;
	const char *name;	/* interned, valid for the whole run */
};

/* ---------------------------------------------------------------------- */
/* Decoding raw blocks into events (rawtoevent, docs/spec/FORMATS.md 4)    */
/* ---------------------------------------------------------------------- */

struct kt_decoder;
/* Called once per event and once per name record (t = its time). */
typedef void (*kt_event_fn)(void *ctx, const struct kt_event *e);

/*
 * Create a decoder for a trace whose block 0 has been read into r.
 * Returns NULL with err set if block 0's time pairs are implausible.
 */
struct kt_decoder *kt_decoder_new(const struct kt_raw *r, kt_event_fn fn,
				  void *ctx, char *err, size_t errlen);
void kt_decoder_free(struct kt_decoder *d);
/* Decode one block; 0, or -1 with the one-line reason in kt_decoder_err. */
int kt_decode_block(struct kt_decoder *d, const struct kt_block *b);
const char *kt_decoder_err(const struct kt_decoder *d);
/*
 * The caller runs kt_block_check on every block once, keeps the verdict
 * and hands on only blocks that passed it: the decoder does not check
 * them again (kutrace_postproc checks in its first pass).
 */
void kt_decoder_prechecked(struct kt_decoder *d);
const struct kt_timebase *kt_decoder_timebase(const struct kt_decoder *d);
/* Name of a 64-bit key (see decode.c) or NULL; names known so far. */
/* Learn RPC method and lock names of a block ahead of decoding (decode.c). */
void kt_decoder_prescan(struct kt_decoder *d, const struct kt_block *b);
/*
 * During the prescan, fn learns each pid a block names (its header's pid,
 * its context switches and wakeups) with the end of that block (nsec10;
 * INT64_MAX if unknown): no event of the pid comes after the last such
 * time it hears.
 */
typedef void (*kt_named_fn)(void *ctx, uint32_t pid, int64_t until);
void kt_decoder_on_named(struct kt_decoder *d, kt_named_fn fn, void *ctx);
/* e as a line of rawtoevent's text, without the newline (snprintf's result). */
int kt_event_line(char *buf, size_t len, const struct kt_event *e);

/*
 * The per-CPU merge (merge.c): push each CPU's events as decoded (in time
 * order but for late stores); release hands fn, in time order, every
 * buffered event before upto.  Equal times leave in event-text byte order
 * (as `sort -n` orders rawtoevent's lines), then in arrival order.
 */
struct kt_merge;
struct kt_merge *kt_merge_new(void);
void kt_merge_push(struct kt_merge *m, const struct kt_event *e);
void kt_merge_release(struct kt_merge *m, int64_t upto, kt_event_fn fn, void *ctx);
size_t kt_merge_buffered(const struct kt_merge *m);
void kt_merge_free(struct kt_merge *m);
const char *kt_decoder_name(const struct kt_decoder *d, uint64_t key);

/*
 * The events of u's entries, in time order, through fn: what the same
 * entries inserted into the kernel trace would give, with the writing
 * thread as pid and its own RPC.
 */
void kt_decode_user(struct kt_decoder *d, const struct kt_user *u,
		    kt_event_fn fn, void *ctx);
/* Events from another source in time order (user buffers) join the merge. */
void kt_merge_push_user(struct kt_merge *m, const struct kt_event *e);
uint64_t kt_decoder_events(const struct kt_decoder *d);
/* Lowest and highest event time seen (nsec10). */
void kt_decoder_times(const struct kt_decoder *d, int64_t *lo, int64_t *hi);
/* The start and stop time pairs of block 0 (as repaired) in nsec10. */
void kt_decoder_edges(const struct kt_decoder *d, int64_t *start, int64_t *stop);
unsigned int kt_decoder_flags(const struct kt_decoder *d);
/* The trace's backend record ("tracepoint:x86_64", ...), or NULL. */
const char *kt_decoder_backend(const struct kt_decoder *d);

/* Name cleaning shared by every writer of event text (docs/spec/FORMATS.md 4.5). */
void kt_clean_name(const char *in, size_t n, char *out, size_t outlen);

#endif /* KT_LIB_DECODE_H */

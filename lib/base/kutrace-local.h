/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * kutrace-local.h - libkttools, the private static library of kutrace's
 * programs (never installed; programs that mark themselves use the public
 * libkutrace, include/kutrace/control.h).
 *
 *   raw trace reading   kt_raw_*     block by block, with side IPC/LLC blocks
 *   name lookups        kt_*_name    in the tables of libkutrace-local.h
 *   time conversion     kt_timebase_*
 *   decoding            kt_decode_*  raw entries -> events (rawtoevent)
 *   spans               kt_span_*    events -> timespans (eventtospan)
 *   JSON                kt_json_*    timespan rows -> KUtrace JSON
 *
 * All constants of the format come from kutrace/format.h.
 */
#ifndef KUTRACE_LOCAL_H
#define KUTRACE_LOCAL_H

#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <stddef.h>

#include "kutrace/format.h"
#include "libkutrace-local.h"

/* ---------------------------------------------------------------------- */
/* Errors: one line, naming the file, block and word where possible.       */
/* ---------------------------------------------------------------------- */

/* Print "prog: msg" to stderr and exit(1). */
void kt_die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
/* Set the program name used by kt_die (basename of argv[0]). */
void kt_set_progname(const char *argv0);
const char *kt_progname(void);
/*
 * kt_die removes this file (a program's half-written output) before it
 * exits, as it does every file so named (up to 4); NULL forgets them all,
 * kt_unlink_forget one.
 */
void kt_unlink_on_die(const char *path);
void kt_unlink_forget(const char *path);

/*
 * Outputs written whole or not at all (tool_out.c): kt_out_open creates
 * PATH.tmp, which kt_die removes, and kt_out_commit renames it to PATH
 * once it is complete, so a failure never leaves a half file under the
 * final name.  Every error is one line naming the file, followed by note
 * when it is not NULL ("; X.json was written, no HTML").
 */
FILE *kt_out_open(const char *path, const char *note);
/*
 * A second temporary, PATH.tmp2, for the output f is writing: for a
 * writer that copies its first draft into the final form.  f stays open
 * (and is removed by kt_die) until kt_out_commit of the new file removes
 * it.
 */
FILE *kt_out_redo(FILE *f);
/* The temporary's name, for a program's own error lines. */
const char *kt_out_tmpname(FILE *f);
/* Flushed, closed and renamed to PATH, or kt_die with the reason. */
void kt_out_commit(FILE *f);

/*
 * The kutrace program name next to this one, else on PATH, into path:
 * 0, or -1 when there is none (tool_exec.c).
 */
int kt_find_sibling(const char *name, char *path, size_t len);
/*
 * In a child after fork: exec the kutrace program name found next to this
 * one, else on PATH, with args; if neither runs, one line and _exit(127)
 * (tool_exec.c).
 */
void kt_exec_sibling(const char *name, char **args) __attribute__((noreturn));
/*
 * Run that sibling with one end of a new pipe as its descriptor 3 (it
 * writes there if child_writes, else reads); *fd is this side's end.
 * Errors end the program naming what.
 */
pid_t kt_spawn_fd3(const char *name, char **args, int child_writes, int *fd, const char *what);
/*
 * Runs the program name (found as kt_exec_sibling finds it) with args, its
 * standard output into out; 0, or its exit status (128 + signal) with its
 * last line of standard error in err, or -1 when it cannot run.
 */
struct kt_buf;
int kt_run_sibling(const char *name, char **args, struct kt_buf *out, char *err, size_t errlen);

/*
 * Progress on long work (progress.c): one line on stderr redrawn in place,
 * "PROG: rows 12.3 M  45 %  3.2 s", at most 10 times a second, by default
 * only when stderr is a terminal (--quiet and --progress choose).
 */
enum kt_progress_mode { KT_PROGRESS_AUTO, KT_PROGRESS_OFF, KT_PROGRESS_ON };
void kt_progress_mode(enum kt_progress_mode m);
/* Whether lines are drawn: to hand the choice to a program this one runs. */
int kt_progress_on(void);
/* what and its count ("rows", 12345678; what NULL: none), done of total (0: unknown). */
void kt_progress(const char *what, uint64_t count, uint64_t done, uint64_t total);
/* A step of work with no count ("tables: slice done"). */
void kt_progress_step(const char *what);
/* Erase the line if one is drawn (before other output, and at the end). */
void kt_progress_end(void);

/*
 * Command lines (tool_args.c): one table of options per program, parsed
 * by getopt_long_only.  A name of one letter is the option -X; a longer
 * one is -NAME or --NAME (the original KUtrace's spelling is -maxblock,
 * kutrace's --no-html; both work), never abbreviated.  -h and --help
 * print the usage to stdout and exit 0 (unless the table has its own
 * "h"); an unknown option, a missing value or a wrong number of
 * arguments prints the usage to stderr and exits 2; a value that is not
 * a number where one is needed is one line and exit 2.
 */
enum kt_opt_kind {
	KT_OPT_FLAG,	/* int *dst = val */
	KT_OPT_STR,	/* const char **dst = the value */
	KT_OPT_ULL,	/* unsigned long long *dst: decimal digits only */
	KT_OPT_POSLONG,	/* long *dst: a number > 0 (strtol base 0) */
};

struct kt_opt {
	const char *name;	/* NULL ends the table */
	enum kt_opt_kind kind;
	void *dst;
	int val;
};

struct kt_argspec {
	const struct kt_opt *opts;
	void (*usage)(FILE *f);
	int min_pos, max_pos;	/* how many arguments besides the options */
	int last_wins;		/* one more replaces the last (the originals') */
};

/* The arguments, in order, into pos[max_pos]; returns how many. */
int kt_args(const struct kt_argspec *spec, int argc, char **argv, const char **pos);
/* Length (1..4) of the valid UTF-8 sequence at s, 0 if s[0] starts none. */
size_t kt_utf8_seq(const unsigned char *s);
/*
 * Open an input file for reading or die with a one-line reason: a
 * directory or a device (/dev/zero) is refused, a file or a pipe is not.
 */
FILE *kt_xfopen_in(const char *path);
/* The same for library code: NULL and the one-line reason in err. */
FILE *kt_fopen_in(const char *path, char *err, size_t errlen);

void *kt_xmalloc(size_t n);
void *kt_xcalloc(size_t n, size_t size);
void *kt_xrealloc(void *p, size_t n);
char *kt_xstrdup(const char *s);

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
/* Raw trace reading                                                       */
/* ---------------------------------------------------------------------- */

struct kt_block {
	long index;		/* block number in the file, from 0 */
	uint64_t w[KUTRACE_BLOCK_WORDS];
	uint8_t side[KUTRACE_SIDE_BYTES];	/* zero if no side block */
	int has_side;
	unsigned int cpu;
	unsigned int flags;	/* flags byte of word 1 */
	uint64_t base;		/* full counter of word 0 (56 bits) */
	uint64_t usec;		/* gettimeofday usec of word 1 (56 bits) */
	int first_entry;	/* word index of the first entry */
	uint32_t pid;		/* header pid word, low 32 bits */
	uint32_t mhz;		/* header pid word, high 32 bits */
	char comm[KUTRACE_HDR_COMM_BYTES + 1];
	/*
	 * Set when the whole file was indexed (kt_raw_each on a seekable
	 * file), 0 otherwise: no entry of this block may be later than
	 * limit (the start of its CPU's next block, or the stop counter),
	 * and last says no later block of its CPU follows.
	 */
	uint64_t limit;
	int last;
	/* Start of the block before it in the file, when that is allocation
	 * order (no wraparound); 0 if unknown. */
	uint64_t prev_base;
};

struct kt_raw {
	FILE *f;
	const char *path;
	int own_file;
	int indexed;		/* kt_raw_index ran: time pairs from it */
	long next_index;
	int side_in_file;	/* block 0 said side blocks follow */
	unsigned int file_flags;	/* block 0 flags */
	int version;
	/* Block 0 time pairs (docs/spec/FORMATS.md 2.1). */
	uint64_t start_ctr, start_usec, stop_ctr, stop_usec;
	char err[256];
	/* Non-empty when kt_raw_index repaired an absurd time pair: one line
	 * for the program to print. */
	char note[256];
	/* The file mapped (NULL: read through f), and the read position. */
	const unsigned char *map;
	size_t maplen, mpos;
	size_t drop_start, drop_end;	/* read, not yet let go (raw.c) */
	/* kt_raw_each's block index, made once for every pass. */
	struct kt_block_ref *refs;
	long nrefs;
	int each_indexed;
	/* Where the user blocks begin (kt_raw_index), 0 if there are none. */
	long user_off;
};

/*
 * Open a raw trace ("-" or NULL = stdin).  A directory is refused; input
 * that cannot seek (stdin, a FIFO) is copied once to a temporary file, so
 * that the name prescan and the decoding pass both see all of it.
 * Returns 0, or -1 with r->err set.
 */
/*
 * Plausible wall-clock times in a trace header (usec since 1970 UTC):
 * [2016-01-01, 2050-01-01).  The reader repairs a time pair outside it,
 * checktrace fails it.
 */
#define KT_USEC_2016 1451606400000000ULL
#define KT_USEC_2050 2524608000000000ULL

int kt_raw_open(struct kt_raw *r, const char *path);
void kt_raw_close(struct kt_raw *r);
/*
 * Read the next block (and its side block).  Returns 1 for a block,
 * 0 at a clean end of file, -1 on damage with r->err holding one line
 * "FILE: block B word W: what".  Block 0 is validated strictly (version,
 * time pairs).
 */
int kt_raw_next(struct kt_raw *r, struct kt_block *b);

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

/* String interning: one copy of each distinct name for a run. */
const char *kt_intern(const char *s);
/* Drop every interned name (no pointer from kt_intern may be used after). */
void kt_intern_reset(void);

/* ---------------------------------------------------------------------- */
/* Growable string buffer                                                  */
/* ---------------------------------------------------------------------- */

struct kt_buf {
	char *p;
	size_t len, cap;
};
void kt_buf_add(struct kt_buf *b, const char *s, size_t n);
void kt_buf_puts(struct kt_buf *b, const char *s);
void kt_buf_printf(struct kt_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void kt_buf_free(struct kt_buf *b);


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
/* For programs (tool_input.c): the raw file's note printed, dies on error. */
struct kt_decoder *kt_xdecoder_new(struct kt_raw *raw, kt_event_fn fn, void *ctx);
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
 * User buffers (ubuf.c, docs/spec/FORMATS.md 9): the entries user code
 * wrote without a system call, checked, in time order.
 */
struct kt_uevent {
	uint64_t full;		/* time counter */
	uint64_t seq;		/* place in the file: ties keep it */
	uint32_t buf, tid;	/* the buffer (kt_user.bufs) and its thread */
	unsigned int cpu;
	unsigned int nw;	/* words at words[widx]: entry word, name words */
	size_t widx;
};
struct kt_ubuffer {
	uint32_t pid, tid;
	uint64_t ring, lost;
	char comm[17];
};
struct kt_ulimits {
	unsigned char cpu_present[KUTRACE_MAX_CPUS];
	uint64_t cpu_lo[KUTRACE_MAX_CPUS];	/* earliest time per CPU */
	uint64_t hi;				/* latest time; 0: none */
};
struct kt_user {
	struct kt_uevent *ev;
	size_t n, cap;
	uint64_t *words;
	size_t nwords, wcap;
	struct kt_ubuffer *bufs;
	size_t nbufs, bufcap;
	uint64_t lost, dropped, outside;
	char damage[200];	/* the first drop, in one line */
};
/* Parse a user section (the words after the kernel's blocks). */
void kt_user_parse(struct kt_user *u, const uint64_t *w, size_t nwords,
		   const struct kt_ulimits *lim);
/*
 * The user section of a raw file indexed into refs (kt_raw_index),
 * limited to its trace's CPUs and times.  0 or -1 (r->err).
 */
int kt_user_load(struct kt_raw *r, const struct kt_block_ref *refs, long nrefs,
		 struct kt_user *u);
/* One line of counts for the user, "" if the file has no user blocks. */
void kt_user_summary(const struct kt_user *u, char *buf, size_t len);
void kt_user_free(struct kt_user *u);
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

/*
 * Time-ordered block index of a seekable raw trace: wraparound traces are
 * not in time order in the file, and per-CPU merging wants the blocks by
 * allocation time.  Returns the count, or -1 with r->err set.
 */
struct kt_block_ref {
	long index;
	long offset;
	uint64_t base;
	uint64_t usec;
	unsigned int cpu;
	uint64_t limit;		/* see struct kt_block */
	int last;
	uint64_t prev_base;
};
long kt_raw_index(struct kt_raw *r, struct kt_block_ref **out);
/* Read block ref into b (seekable files only).  1 ok, -1 error. */
int kt_raw_read_at(struct kt_raw *r, const struct kt_block_ref *ref,
		   struct kt_block *b);

/*
 * Call fn for every block in time order (kt_raw_index) when the input is
 * a seekable file, else in file order.  Stops at the first non-zero
 * return of fn and returns it; -1 with r->err on a read error; 0 at end.
 */
typedef int (*kt_block_fn)(void *ctx, const struct kt_block *b);
int kt_raw_each(struct kt_raw *r, kt_block_fn fn, void *ctx);

/*
 * Extending the 20-bit entry timestamps of one block to full tick values
 * (docs/spec/FORMATS.md 4.2, with the corrections of docs/FORMAT.md 8.2/8.3): the
 * one implementation used by the decoder and by block validation.
 */
struct kt_tswalk {
	uint64_t hi;		/* multiple of 2^20 */
	uint64_t prior;		/* last 20-bit timestamp */
	int first;		/* no entry seen yet */
};

static inline void kt_tswalk_init(struct kt_tswalk *t, uint64_t base)
{
	t->hi = base & ~KUTRACE_TS_MASK;
	t->prior = base & KUTRACE_TS_MASK;
	t->first = 1;
}

/*
 * Feed entry word w.  Returns 0 with *full set for an entry, or 1 for a
 * TSDELTA, which only moves the time on (a TSDELTA that opens a block is
 * ignored: the header already has the full time).
 */
static inline int kt_tswalk_step(struct kt_tswalk *t, uint64_t w, uint64_t *full)
{
	uint64_t ts = w >> KUTRACE_TS_SHIFT;

	/*
	 * First entry stamped just before a 20-bit rollover that happened
	 * before the header was written: it belongs to the previous period.
	 */
	if (t->first && ts > t->prior + 4096)
		t->hi -= KUTRACE_TS_PERIOD;
	if (kutrace_word_event(w) == KUTRACE_TSDELTA) {
		if (!t->first) {
			uint32_t d = (uint32_t)w;
			uint64_t f = (t->hi | t->prior) +
				(uint64_t)(d < KUTRACE_TSDELTA_NEG_LIMIT ?
					   (int64_t)d : (int64_t)d - (1LL << 32));

			t->hi = f & ~KUTRACE_TS_MASK;
			t->prior = f & KUTRACE_TS_MASK;
		}
		t->first = 0;
		return 1;
	}
	t->first = 0;
	uint64_t back = (t->prior - ts) & KUTRACE_TS_MASK;

	if (ts < t->prior && back >= KUTRACE_LATE_STORE_WINDOW)
		t->hi += KUTRACE_TS_PERIOD;	/* forward across a rollover */
	else if (ts > t->prior && back != 0 && back < KUTRACE_LATE_STORE_WINDOW)
		t->hi -= KUTRACE_TS_PERIOD;	/* late store across a rollover */
	t->prior = ts;
	*full = t->hi | ts;
	return 0;
}

/*
 * Damage detection for one block (lib/raw/blockcheck.c), used by checktrace,
 * kutrace_postproc and rawtoevent: words no tracer writes (event numbers
 * 0x001..0x00F, 0x282..0x3FF), name entries with a length nibble of 0 or
 * more than 8, entries crossing the block end, entries after a run of
 * zero words, times running backward beyond the late-store window or past
 * b->limit, and a block that ends early although its CPU goes on in a
 * later block.  Returns 0 when sound, -1 with one line
 * "block B word W: what" in err, or 1 with a warning in err when the
 * CPU's last block is full (the file may have been cut at a block end).
 */
int kt_block_check(const struct kt_block *b, char *err, size_t errlen);

/* ---------------------------------------------------------------------- */
/* Timespans (eventtospan, docs/spec/FORMATS.md 5)                         */
/* ---------------------------------------------------------------------- */

/*
 * One JSON row as the span builder makes it: times in nsec10, the unit of
 * the trace and of the row line, so writing it is integer formatting;
 * 64 bytes (the tools' row is 88), and kutrace_postproc holds up to a
 * million of them in its lanes and queues.
 * The JSON tools' row (struct kt_jrow, jsonrows.h) is a second type on
 * purpose: it holds any JSON number the tools read, in seconds.
 */
struct kt_row {
	int64_t start;
	int64_t dur;
	int cpu, pid, rpc, event;
	int64_t arg, retval;
	int ipc;
	const char *name;	/* interned */
};

typedef void (*kt_row_fn)(void *ctx, const struct kt_row *row);
struct kt_spans;

struct kt_spans *kt_spans_new(kt_row_fn fn, void *ctx);
/*
 * The trace's start and stop times (nsec10, block 0's time pairs:
 * kt_decoder_edges, or rawtoevent's "# ## STARTSTOP:" line), before the
 * first event.  With them no CPU's first span starts before the start
 * (a block set up shortly before it), and a CPU idle at the end is idle
 * until the stop; without them the CPU timelines run from the first block
 * to the latest event, as before.
 */
void kt_spans_edges(struct kt_spans *s, int64_t start, int64_t stop);
/* Feed one event; events must come in time order (per CPU strictly). */
void kt_spans_event(struct kt_spans *s, const struct kt_event *e);
/* End of input: close frequency spans, write row labels. */
void kt_spans_finish(struct kt_spans *s);
void kt_spans_free(struct kt_spans *s);
struct kt_json_meta;
/* Fill the header facts (kernel, model, host, mbit_sec) of m. */
void kt_spans_meta(const struct kt_spans *s, struct kt_json_meta *m);
/* No row still to come starts before this (see span.c for the exception). */
int64_t kt_spans_low(const struct kt_spans *s, int64_t now, int cpus_only);
/*
 * No event names pid after until (kt_decoder_on_named): once past it, the
 * thread makes no more rows, so its pending wait or wakeup no longer
 * holds kt_spans_low back.  (Were that wrong, a row would only come late,
 * never out of place.)
 */
void kt_spans_named(struct kt_spans *s, uint32_t pid, int64_t until);

/* ---------------------------------------------------------------------- */
/* JSON output (docs/spec/FORMATS.md 5.10) and time-sorting of rows        */
/* ---------------------------------------------------------------------- */

struct kt_json_meta {
	const char *title;
	const char *tracebase;	/* "YYYY-MM-DD_HH:MM:00" */
	const char *kernel, *model, *host;	/* NULL if absent */
	unsigned int flags;
	int mbit;
	int version;
	uint32_t randomid;
};

/* Header lines, already in the byte order the original's `sort` gives. */
void kt_json_header(FILE *f, const struct kt_json_meta *m);
/* The 999.0 sentinel row and the closing "]}". */
void kt_json_footer(FILE *f);
/* The same with the sentinel at start seconds if that is past 999 s. */
void kt_json_footer_at(FILE *f, double start);
/* Write s as a JSON string body (no quotes) with full escaping. */
void kt_json_escape(FILE *f, const char *s);
/* The one escaper (json.c): n bytes of s into buf (room: 6 * n). */
size_t kt_json_escape_mem(char *buf, const char *s, size_t n);

/*
 * One row line (docs/spec/FORMATS.md 5.10.2), formatted only here (json.c):
 * the head "[start, dur, cpu, pid, rpc, event, arg, retval, ipc, \"", the
 * escaped name, "\"]"; a writer adds ",\n".  The head is at most
 * KT_JSON_HEAD_MAX bytes; times are in 10 ns units (1e-8 s).
 */
#define KT_JSON_HEAD_MAX 200
size_t kt_json_head(char *buf, const int64_t t[2], const int64_t v[7]);
size_t kt_json_format_head(char *buf, const struct kt_row *r);
/* n bytes of name escaped, then "\"]" (room: 6 * n + 2). */
size_t kt_json_end(char *buf, const char *name, size_t n);
/* s JSON-escaped into buf (room for 6 * strlen(s)); returns the length. */
size_t kt_json_escape_buf(char *buf, const char *s);
/* One row line and ",\n" into buf; 0 if cap is too small (then retry larger). */
size_t kt_json_format_row(char *buf, size_t cap, const struct kt_row *r);
/* The JSON tools' row (times in seconds) and ",\n" to f. */
void kt_json_put_row_sec(FILE *f, double start, double dur, const int64_t v[7],
			 const char *name);
/*
 * A line kt_json_format_row wrote back into r, the name decoded into
 * name (r->name points there); 0, or -1 if the line is not of that form.
 */
int kt_json_parse_row(const char *line, struct kt_row *r, struct kt_buf *name);
/* The row order of the JSON: time first (byte order of the start field). */
int kt_row_cmp(const struct kt_row *a, const struct kt_row *b);

/*
 * Writes the JSON rows in exact order while the trace is read (jsonout.c).
 * Feed rows in any nearly-sorted order; tell it from time to time that no
 * future row starts before `low` (kt_spans_low) and it writes those rows
 * to the work file, writing the header first.  finish() writes the rest
 * and the footer and returns 1 if the work file is not yet final (rows
 * that came after their place was written, or a header that changed):
 * then kt_jsonout_copy() writes the final JSON to another file.
 */
struct kt_jsonout;
/*
 * Errors: kt_jsonout_new gives NULL (errno set); after any other step,
 * kt_jsonout_error() is the first error's one-line text (NULL if none),
 * and finish and copy return -1 once there is one.
 */
struct kt_jsonout *kt_jsonout_new(FILE *work);
const char *kt_jsonout_error(const struct kt_jsonout *o);
void kt_jsonout_row(struct kt_jsonout *o, const struct kt_row *r);
/* Time to advance: 0 no, 1 yes, 2 yes and over the memory budget (then
 * pass kt_spans_low(..., cpus_only = 1) to move on past long sleepers). */
int kt_jsonout_due(const struct kt_jsonout *o);
void kt_jsonout_advance(struct kt_jsonout *o, int64_t low,
			const struct kt_json_meta *m);
/* 1: the rows need kt_jsonout_copy() into the final file; 0: no; -1. */
int kt_jsonout_finish(struct kt_jsonout *o, const struct kt_json_meta *m);
int kt_jsonout_copy(struct kt_jsonout *o, FILE *dst);
/*
 * The row stream's other sinks: fn gets every row the writer writes, in
 * the order it writes them, on the writer's thread (set it before the
 * first row).  Rows placed late (kt_jsonout_late) are not among them:
 * they are in kt_jsonout_late_rows, sorted, and belong after every
 * written row that kt_row_cmp does not place after them.
 */
void kt_jsonout_tee(struct kt_jsonout *o, kt_row_fn fn, void *ctx);
/* No JSON text at all, only the sinks' rows (kutrace_postproc --no-json). */
void kt_jsonout_no_text(struct kt_jsonout *o);
const struct kt_row *kt_jsonout_late_rows(const struct kt_jsonout *o, size_t *n);
/* The final header text (after finish). */
const char *kt_jsonout_header(const struct kt_jsonout *o);
uint64_t kt_jsonout_rows(const struct kt_jsonout *o);
size_t kt_jsonout_late(const struct kt_jsonout *o);
/* CPU seconds the ordering and the writing thread used (after finish). */
void kt_jsonout_cpu(const struct kt_jsonout *o, double *order, double *write);
void kt_jsonout_free(struct kt_jsonout *o);

/*
 * The row stream between programs (rowpipe.c): kutrace_postproc --tables
 * sends its rows to kutrace_sql as binary records.  Writer: one
 * kt_rowpipe_row per row, then kt_rowpipe_end with the JSON header text
 * and the backend record (NULL if none); -1 on a write error (errno).
 */
struct kt_rowpipe_w;
struct kt_rowpipe_w *kt_rowpipe_w_new(FILE *f);
int kt_rowpipe_row(struct kt_rowpipe_w *w, const struct kt_row *r);
int kt_rowpipe_end(struct kt_rowpipe_w *w, const char *header, const char *backend);
void kt_rowpipe_w_free(struct kt_rowpipe_w *w);
/* Reader: kt_rowpipe_next gives 1 and a row (its name lives until
 * kt_rowpipe_r_free), 0 at the end mark (header and backend then set),
 * -1 with err set on a stream cut short or damaged. */
struct kt_rowpipe_r {
	FILE *f;
	char **names;
	size_t nnames, capnames;
	char *header, *backend;
	unsigned long long rows;
	char err[160];
};
void kt_rowpipe_r_init(struct kt_rowpipe_r *p, FILE *f);
int kt_rowpipe_next(struct kt_rowpipe_r *p, struct kt_row *r);
void kt_rowpipe_r_free(struct kt_rowpipe_r *p);

#endif /* KUTRACE_LOCAL_H */

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * base.h - the bottom of libkttools, the private static library of kutrace's
 * programs (never installed; programs that mark themselves use the public
 * libkutrace, include/kutrace/control.h)
 *
 * What every stage uses: one-line errors and kt_die (tool.c: the programs'
 * end; library code returns its errors), the progress line (progress.c),
 * allocation, interned names, growable buffers and input files (util.c).
 * All constants of the format come from kutrace/format.h.
 */
#ifndef KT_LIB_BASE_H
#define KT_LIB_BASE_H

#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <stddef.h>
#include <stdarg.h>
#include <pthread.h>

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

/* Open an input file for reading: a directory or a device (/dev/zero) is
 * refused, a file or a pipe is not.  NULL and the one-line reason in err. */
FILE *kt_fopen_in(const char *path, char *err, size_t errlen);

void *kt_xmalloc(size_t n);
void *kt_xcalloc(size_t n, size_t size);
void *kt_xrealloc(void *p, size_t n);
char *kt_xstrdup(const char *s);
/*
 * path with its extension replaced by ext, and a file name without its
 * directory and extension (the default trace id); slashes that end path
 * are not part of it ("rec/" is the directory rec).
 */
char *kt_with_ext(const char *path, const char *ext);
char *kt_store_stem(const char *path);
/* The CPU time (user + system) this process has used so far, in seconds. */
double kt_cpu_secs(void);
/* What fmt makes, allocated whole (SQL with a literal of any length):
 * kt_vstrf NULL when out of memory, kt_xstrf and kt_xvstrf never. */
char *kt_vstrf(const char *fmt, va_list ap);
char *kt_xvstrf(const char *fmt, va_list ap);
char *kt_xstrf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * UTF-8 (util.c).  Names come from any bytes (a trace's name entries, a
 * JSON file, a row stream); where they enter, each byte that is not part
 * of valid UTF-8 becomes U+FFFD (EF BF BD), as the JSON escaper and the
 * page do, so one bad name costs that name, not the trace.
 */
/* Length (1..4) of the valid UTF-8 sequence at s, 0 if s[0] starts none
 * (it reads on to the sequence's end or a NUL). */
size_t kt_utf8_seq(const unsigned char *s);
/* 1 if the n bytes of s are valid UTF-8 (NULs aside). */
int kt_utf8_ok(const char *s, size_t n);
/*
 * The n bytes of s into out (outlen bytes, at least 1), each byte that is
 * not part of valid UTF-8 as U+FFFD, whole sequences only (a sequence that
 * does not fit ends the text), NUL-terminated: valid UTF-8 that fits is
 * copied as it is.  3 * n + 1 bytes always suffice.  Returns the length.
 */
size_t kt_utf8_fix(char *out, size_t outlen, const char *s, size_t n);

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
/* Items from one thread to the next in chunks (chq.c)                    */
/* ---------------------------------------------------------------------- */

#define KT_CHQ_N 8		/* chunks in flight */
struct kt_chq {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	void *buf[KT_CHQ_N];
	size_t len[KT_CHQ_N];
	size_t item, chunk;	/* bytes an item, items a chunk */
	uint64_t submitted, done;	/* chunks */
	int stop;		/* the producer has no more */
	int cancel;		/* the consumer takes no more */
	void *cur;		/* producer side: the chunk being filled */
	size_t curlen;
};
void kt_chq_init(struct kt_chq *q, size_t item, size_t chunk);
void kt_chq_free(struct kt_chq *q);
/* Producer: the next free item of the chunk being filled. */
static inline void *kt_chq_slot(struct kt_chq *q)
{
	return (char *)q->cur + q->curlen * q->item;
}
/* Producer: hand the filled chunk on; wait for a free one. */
void kt_chq_submit(struct kt_chq *q);
/* Producer: the item kt_chq_slot gave is filled in. */
static inline void kt_chq_put(struct kt_chq *q)
{
	if (++q->curlen == q->chunk)
		kt_chq_submit(q);
}
/* Producer: no more items. */
void kt_chq_close(struct kt_chq *q);
/* Consumer: the next chunk (n items), NULL once closed and empty. */
const void *kt_chq_take(struct kt_chq *q, size_t *n);
/* Consumer: the chunk kt_chq_take gave is free again. */
void kt_chq_done(struct kt_chq *q);
/* Consumer: it takes no more; the producer never waits again. */
void kt_chq_cancel(struct kt_chq *q);
/* The calling thread's CPU time so far, user and system, in seconds. */
double kt_thread_cpu(void);

#endif /* KT_LIB_BASE_H */

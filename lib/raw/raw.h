/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * raw.h - the raw trace file (docs/spec/FORMATS.md 2): read block by
 * block, checked, and its user section
 *
 * raw.c maps the file and walks its blocks in time order (kt_raw_each),
 * blockcheck.c decides whether a block is sound (the one damage check),
 * ubuf.c reads the user buffers' entries (FORMATS 9), rawwrite.h writes
 * raw entries (the test generators).
 */
#ifndef KT_LIB_RAW_H
#define KT_LIB_RAW_H

#include "base.h"

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
	/* A chunk head (FORMATS 10.2): a streamed chunk's block 0, or in a
	 * joined trace the first block of a later chunk, whose entries start
	 * at word 12 and which holds the chunk's names only. */
	int head;
	/* Its CPU's next block is in a later chunk: a cut closed this one,
	 * so it may end early without anything lost. */
	int cut;
};

/* One chunk file of a joined trace (a directory), mapped in place. */
struct kt_raw_part {
	char *path;
	int fd;
	size_t base, len;	/* where it lies in the joined mapping */
	long first_block;	/* its block 0's index in the joined trace */
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
	int shared;		/* kt_raw_share: another reader's mapping */
	/*
	 * A directory of chunks: its kt_*.trace files in order, mapped side
	 * by side into one reserved range, so that every pass reads them as
	 * one file of chunks back to back (FORMATS 10.2, joining).
	 */
	struct kt_raw_part *parts;
	int nparts;
	int joined;		/* a later chunk head seen: several chunks */
};

/*
 * Open a raw trace ("-" or NULL = stdin).  A directory is the chunks of
 * one streamed recording (its kt_NNNNNN.trace files, joined in number
 * order); input that cannot seek (stdin, a FIFO) is copied once to a
 * temporary file, so that the name prescan and the decoding pass both see
 * all of it.  Returns 0, or -1 with r->err set.
 */
/*
 * Plausible wall-clock times in a trace header (usec since 1970 UTC):
 * [2016-01-01, 2050-01-01).  The reader repairs a time pair outside it,
 * checktrace fails it.
 */
#define KT_USEC_2016 1451606400000000ULL
#define KT_USEC_2050 2524608000000000ULL

int kt_raw_open(struct kt_raw *r, const char *path);
/* 1 when path is a directory holding chunk files (kt_NNNNNN.trace). */
int kt_raw_chunk_dir(const char *path);
void kt_raw_close(struct kt_raw *r);
/*
 * Read the next block (and its side block).  Returns 1 for a block,
 * 0 at a clean end of file, -1 on damage with r->err holding one line
 * "FILE: block B word W: what".  Block 0 is validated strictly (version,
 * time pairs).
 */
int kt_raw_next(struct kt_raw *r, struct kt_block *b);

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
	int head;
	int cut;
	long chunk;		/* which chunk of a joined trace, in file order */
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
 * The index kt_raw_each walks, made now (it makes it on its first call
 * otherwise): 0, or -1 with err set.  A file that cannot seek stays
 * unindexed (each_indexed 0) and is read in file order.
 */
int kt_raw_prepare(struct kt_raw *r);
/*
 * dst reads src's mapping through src's index, from another thread:
 * kt_raw_read_at on dst and src at the same time is safe.  0, or -1 if
 * src is not mapped and indexed.  kt_raw_close(dst) leaves src intact;
 * src must outlive dst.
 */
int kt_raw_share(struct kt_raw *dst, const struct kt_raw *src);

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

#endif /* KT_LIB_RAW_H */

// SPDX-License-Identifier: BSD-3-Clause
/*
 * blockcheck.c - is a raw trace block sound?  The one damage check used by
 * checktrace, kutrace_postproc and rawtoevent.
 *
 * A raw block has no checksum, so damage (a disk error, a bad copy,
 * overwritten bytes) shows only as words no tracer writes.  What every
 * tracer guarantees, and therefore what is checked:
 *
 *  - event numbers: 0x001..0x00F (name types with length 0), 0x282/0x283
 *    (lock spans, made by postprocessing) and 0x284..0x3FF are never
 *    written; a non-zero word with event 0 neither (a NOP is all zero);
 *  - name entries are 1..8 words and no entry crosses the block end;
 *  - entries are claimed contiguously, so zero words are only found after
 *    the last entry; an entry after a zero word means lost entries;
 *  - per CPU, time only runs forward (late stores excepted), so no entry
 *    is later than the start of its CPU's next block, nor than the stop
 *    time of the trace (b->limit), and none is earlier than its own block
 *    header;
 *  - blocks are in allocation order in the file unless the trace wrapped;
 *  - a CPU moves to a new block only when the current one is full (up to
 *    8 + 8 words are left when an entry and its TSDELTA words do not fit),
 *    or, in kutrace's module, after a silence too long for TSDELTA words.
 *
 * Random bytes break one of these within a few words: about one random
 * word in ten has an impossible event number, and half of them step the
 * 20-bit time backward, which reads as a 2^20-tick jump forward.  A few
 * words that happen to look like real entries cannot be told from them.
 */
#include <inttypes.h>
#include <stdarg.h>

#include "raw.h"

/* Unused words at the end of a full block: an entry of up to 8 words plus
 * up to 8 TSDELTA words did not fit (kutrace's module), with margin. */
#define FULL_BLOCK_TAIL	24
/* Slack before the header time: late stores and the first-entry rollover
 * rule (docs/spec/FORMATS.md 4.2). */
#define EARLY_SLACK	(KUTRACE_LATE_STORE_WINDOW + 4096)

static int bad(char *err, size_t errlen, const struct kt_block *b, int word,
	       const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static int bad(char *err, size_t errlen, const struct kt_block *b, int word,
	       const char *fmt, ...)
{
	int n = snprintf(err, errlen, "block %ld word %d: ", b->index, word);
	va_list ap;

	if (n < 0 || (size_t)n >= errlen)
		return -1;
	va_start(ap, fmt);
	vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
	va_end(ap);
	return -1;
}

static int impossible_event(unsigned int ev)
{
	return ev == KUTRACE_NOP ||
	       (ev >= KUTRACE_LOCK_HELD && ev < KUTRACE_CALL_LO);
}

int kt_block_check(const struct kt_block *b, char *err, size_t errlen)
{
	struct kt_tswalk tw;
	uint64_t prev = b->base, last_full = b->base;
	int zeros_at = -1, end = b->first_entry;

	if (b->cpu >= KUTRACE_MAX_CPUS)
		return bad(err, errlen, b, 0, "CPU number %u out of range (max %d)",
			   b->cpu, KUTRACE_MAX_CPUS - 1);
	if (b->base + KUTRACE_LATE_STORE_WINDOW < b->prev_base)
		return bad(err, errlen, b, 0,
			   "starts %" PRIu64 " ticks before the block in front of it (blocks moved or swapped?)",
			   b->prev_base - b->base);
	kt_tswalk_init(&tw, b->base);
	for (int i = b->first_entry; i < KUTRACE_BLOCK_WORDS; i++) {
		uint64_t w = b->w[i], full;

		if (w == KUTRACE_WORD_NOP) {
			if (zeros_at < 0)
				zeros_at = i;
			continue;
		}
		if (w == KUTRACE_WORD_END)
			break;
		unsigned int ev = kutrace_word_event(w);

		if ((w >> KUTRACE_TS_SHIFT) == KUTRACE_TS_MASK && ev == KUTRACE_EVENT_MASK)
			continue;	/* a skipped word (docs/spec/FORMATS.md 2.2) */
		if (impossible_event(ev))
			return bad(err, errlen, b, i,
				   "garbage word %016" PRIx64 " (event 0x%03x is never written by a tracer)",
				   w, ev);
		unsigned int len = ev < KUTRACE_VARLEN_LO ? 0 : kutrace_entry_words(ev);

		if (len == 0 || len > KUTRACE_MAX_ENTRY_WORDS)
			return bad(err, errlen, b, i,
				   "name entry 0x%03x with length nibble %u (must be 1..8)", ev, len);
		if (i + (int)len > KUTRACE_BLOCK_WORDS)
			return bad(err, errlen, b, i, "%u-word entry 0x%03x crosses the block end",
				   len, ev);
		if (zeros_at >= 0)
			return bad(err, errlen, b, i,
				   "entry %016" PRIx64 " after %d zero words from word %d (entries lost)",
				   w, i - zeros_at, zeros_at);
		if (kt_tswalk_step(&tw, w, &full))
			full = tw.hi | tw.prior;	/* a TSDELTA */
		if (full + EARLY_SLACK < b->base)
			return bad(err, errlen, b, i,
				   "time %#" PRIx64 " is before the block start %#" PRIx64, full, b->base);
		if (full + KUTRACE_LATE_STORE_WINDOW < prev)
			return bad(err, errlen, b, i, "time runs backward by %" PRIu64 " ticks",
				   prev - full);
		if (b->limit && full > b->limit + KUTRACE_LATE_STORE_WINDOW)
			return bad(err, errlen, b, i,
				   "time runs %" PRIu64 " ticks past %s (%#" PRIx64 ")",
				   full - b->limit,
				   b->last ? "the trace stop time" : "the start of the CPU's next block",
				   b->limit);
		if (full > prev)
			prev = full;
		last_full = prev;
		i += (int)len - 1;
		end = i + 1;
	}
	/*
	 * Zero words from `end` on: fine for the CPU's last block (flushed at
	 * stop), damage for a block its CPU left early, unless the CPU was
	 * silent for longer than TSDELTA words can bridge.  A streamed chunk's
	 * head holds its names only (the reader closed it at once), and a cut
	 * closed every CPU's block in front of the next chunk
	 * (docs/spec/FORMATS.md 10.2).
	 */
	if (b->limit && !b->last && KUTRACE_BLOCK_WORDS - end > FULL_BLOCK_TAIL &&
	    !b->head && !b->cut &&
	    b->limit - last_full < (uint64_t)KUTRACE_MAX_ENTRY_WORDS * KUTRACE_TSDELTA_MAX_STEP)
		return bad(err, errlen, b, end,
			   "block ends %d words early but CPU %u goes on %" PRIu64
			   " ticks later in another block (entries lost)",
			   KUTRACE_BLOCK_WORDS - end, b->cpu, b->limit - last_full);
	/*
	 * A CPU's last block was flushed at stop and is rarely full, unless
	 * the buffer filled up; else the file was cut at a block boundary.
	 * Only a warning: the two look the same.
	 */
	if (b->limit && b->last && KUTRACE_BLOCK_WORDS - end <= FULL_BLOCK_TAIL) {
		bad(err, errlen, b, end,
		    "the last block of CPU %u is full: the trace buffer filled up, or the file was cut after it",
		    b->cpu);
		return 1;
	}
	return 0;
}

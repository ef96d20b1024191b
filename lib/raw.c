// SPDX-License-Identifier: BSD-3-Clause
/*
 * raw.c - read a raw KUtrace file block by block (FORMATS.md 2).
 *
 * file := block_0 [side_0] block_1 [side_1] ...   64 KiB blocks, each
 * followed by an 8 KiB side block when its flags carry IPC or LLC.  Every
 * problem is reported as one line naming the file, the block and the word.
 */
#include <errno.h>
#include <string.h>

#include "kutrace/kutrace.h"

int kt_raw_open(struct kt_raw *r, const char *path)
{
	memset(r, 0, sizeof(*r));
	if (!path || strcmp(path, "-") == 0) {
		r->f = stdin;
		r->path = "<stdin>";
		return 0;
	}
	r->path = path;
	r->f = fopen(path, "rb");
	if (!r->f) {
		snprintf(r->err, sizeof(r->err), "%s: %s", path,
			 strerror(errno));
		return -1;
	}
	r->own_file = 1;
	return 0;
}

void kt_raw_close(struct kt_raw *r)
{
	if (r->own_file && r->f)
		fclose(r->f);
	r->f = NULL;
}

static int fail(struct kt_raw *r, long block, long word, const char *what)
{
	if (word >= 0)
		snprintf(r->err, sizeof(r->err), "%s: block %ld word %ld: %s",
			 r->path, block, word, what);
	else
		snprintf(r->err, sizeof(r->err), "%s: block %ld: %s",
			 r->path, block, what);
	return -1;
}

/* Read exactly n bytes: 1 done, 0 clean EOF before any byte, -1 short. */
static int read_full(FILE *f, void *buf, size_t n, size_t *got)
{
	*got = fread(buf, 1, n, f);
	if (*got == n)
		return 1;
	return *got == 0 ? 0 : -1;
}

static void load_le(uint64_t *w, size_t n)
{
	/* The format is little-endian; so is every host we build for. */
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
	for (size_t i = 0; i < n; i++)
		w[i] = __builtin_bswap64(w[i]);
#else
	(void)w;
	(void)n;
#endif
}

int kt_raw_next(struct kt_raw *r, struct kt_block *b)
{
	long bi = r->next_index;
	size_t got;
	int rc = read_full(r->f, b->w, KUTRACE_BLOCK_BYTES, &got);

	if (rc == 0) {
		if (bi == 0)
			return fail(r, 0, -1, "empty file, no trace blocks");
		return 0;
	}
	if (rc < 0) {
		char msg[96];

		snprintf(msg, sizeof(msg),
			 "truncated block: %zu of %d bytes", got,
			 KUTRACE_BLOCK_BYTES);
		return fail(r, bi, (long)(got / 8), msg);
	}
	load_le(b->w, KUTRACE_BLOCK_WORDS);
	b->index = bi;
	b->cpu = (unsigned int)(b->w[KUTRACE_HDR_CPU_TIME] >>
				KUTRACE_HDR_CPU_SHIFT);
	b->base = b->w[KUTRACE_HDR_CPU_TIME] & KUTRACE_HDR_LOW56;
	b->flags = (unsigned int)(b->w[KUTRACE_HDR_FLAGS_USEC] >>
				  KUTRACE_HDR_FLAGS_SHIFT);
	b->usec = b->w[KUTRACE_HDR_FLAGS_USEC] & KUTRACE_HDR_LOW56;

	int pidw = bi == 0 ? KUTRACE_HDR0_PID : KUTRACE_HDRN_PID;

	b->pid = (uint32_t)b->w[pidw];
	b->mhz = (uint32_t)(b->w[pidw] >> 32);
	memcpy(b->comm, &b->w[pidw + 2], KUTRACE_HDR_COMM_BYTES);
	b->comm[KUTRACE_HDR_COMM_BYTES] = '\0';
	b->first_entry = bi == 0 ? KUTRACE_HDR0_WORDS : KUTRACE_HDRN_WORDS;

	if (bi == 0) {
		int version = (int)(b->flags & KUTRACE_FLAG_VERSION);
		char msg[96];

		if (version != KUTRACE_FILE_VERSION) {
			snprintf(msg, sizeof(msg),
				 "trace-file version %d, expected %d (not a KUtrace raw trace?)",
				 version, KUTRACE_FILE_VERSION);
			return fail(r, 0, 1, msg);
		}
		r->version = version;
		r->file_flags = b->flags;
		r->start_ctr = b->w[KUTRACE_HDR_START_CTR];
		r->start_usec = b->w[KUTRACE_HDR_START_USEC];
		r->stop_ctr = b->w[KUTRACE_HDR_STOP_CTR];
		r->stop_usec = b->w[KUTRACE_HDR_STOP_USEC];
	} else if (b->flags & KUTRACE_FLAG_VERSION) {
		return fail(r, bi, 1, "version nibble set in a non-first block (garbage header?)");
	}
	if (b->cpu >= KUTRACE_MAX_CPUS) {
		char msg[64];

		snprintf(msg, sizeof(msg), "CPU number %u out of range (max %d)",
			 b->cpu, KUTRACE_MAX_CPUS - 1);
		return fail(r, bi, 0, msg);
	}

	b->has_side = (b->flags & KUTRACE_FLAG_SIDE) != 0;
	if (b->has_side) {
		rc = read_full(r->f, b->side, KUTRACE_SIDE_BYTES, &got);
		if (rc != 1)
			return fail(r, bi, -1, "truncated IPC/LLC side block");
	} else {
		memset(b->side, 0, sizeof(b->side));
	}
	r->next_index = bi + 1;
	return 1;
}

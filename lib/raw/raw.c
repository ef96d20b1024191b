// SPDX-License-Identifier: BSD-3-Clause
/*
 * raw.c - read a raw KUtrace file block by block (docs/spec/FORMATS.md 2).
 *
 * file := block_0 [side_0] block_1 [side_1] ...   64 KiB blocks, each
 * followed by an 8 KiB side block when its flags carry IPC or LLC.  Every
 * problem is reported as one line naming the file, the block and the word.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "raw.h"

/*
 * Copy non-seekable input to an unlinked temporary file.  A first block
 * that is not a trace (version nibble) stops the copy: /dev/zero or a
 * pipe of garbage is refused by the reader instead of filling the disk.
 */
static FILE *spool(FILE *in, char *err, size_t errlen, const char *path)
{
	FILE *t = tmpfile();
	unsigned char *buf = kt_xmalloc(KUTRACE_BLOCK_BYTES);
	size_t n, total = 0;

	if (!t) {
		snprintf(err, errlen, "%s: cannot create a temporary copy: %s",
			 path, strerror(errno));
		free(buf);
		return NULL;
	}
	while ((n = fread(buf, 1, KUTRACE_BLOCK_BYTES, in)) > 0) {
		if (fwrite(buf, 1, n, t) != n) {
			snprintf(err, errlen, "%s: temporary copy: %s", path,
				 strerror(errno));
			goto fail;
		}
		if (total == 0 && n >= 16 &&
		    (buf[8 + KUTRACE_HDR_FLAGS_SHIFT / 8] & KUTRACE_FLAG_VERSION) !=
		    KUTRACE_FILE_VERSION)
			break;
		total += n;
	}
	if (ferror(in)) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		goto fail;
	}
	free(buf);
	if (fflush(t) != 0 || fseek(t, 0, SEEK_SET) != 0) {
		snprintf(err, errlen, "%s: temporary copy: %s", path, strerror(errno));
		fclose(t);
		return NULL;
	}
	return t;
fail:
	free(buf);
	fclose(t);
	return NULL;
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

struct chunk_name {
	unsigned long n;
	char *name;
};

static int cmp_chunk(const void *a, const void *b)
{
	const struct chunk_name *x = a, *y = b;

	return x->n < y->n ? -1 : x->n > y->n;
}

/* "kt_" digits ".trace" (KUTRACE_CHUNK_FMT): its number, or -1. */
static long chunk_number(const char *name)
{
	const char *p = name + 3;
	char *end;
	unsigned long n;

	if (strncmp(name, "kt_", 3) || *p < '0' || *p > '9')
		return -1;
	n = strtoul(p, &end, 10);
	if (strcmp(end, ".trace") || n > 0x7fffffffUL)
		return -1;
	return (long)n;
}

static int part_fail(struct kt_raw *r, const char *path, const char *what)
{
	snprintf(r->err, sizeof(r->err), "%s: %s", path, what);
	return -1;
}

/*
 * One chunk file: open, check that block 0 is a chunk head, and take its
 * whole blocks (a chunk cut short by a crash may end in part of one).
 * 1 taken, 0 empty (a chunk opened but never written), -1 on error.
 */
static int add_part(struct kt_raw *r, char *path)
{
	struct kt_raw_part *p = &r->parts[r->nparts];
	uint64_t hdr[2];
	struct stat st;
	unsigned int flags;
	size_t bsz;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);

	if (fd < 0)
		return part_fail(r, path, strerror(errno));
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return part_fail(r, path, "not a regular file");
	}
	if (st.st_size == 0) {
		close(fd);
		free(path);
		return 0;
	}
	if (pread(fd, hdr, sizeof(hdr), 0) != (ssize_t)sizeof(hdr)) {
		close(fd);
		return part_fail(r, path, "shorter than a block header");
	}
	load_le(hdr, 2);
	flags = (unsigned int)(hdr[KUTRACE_HDR_FLAGS_USEC] >> KUTRACE_HDR_FLAGS_SHIFT);
	if ((flags & KUTRACE_FLAG_VERSION) != KUTRACE_FILE_VERSION ||
	    !(flags & KUTRACE_FLAG_STREAM)) {
		close(fd);
		return part_fail(r, path, "block 0: not a chunk of a streamed recording (no version 3 and STREAM flag)");
	}
	bsz = KUTRACE_BLOCK_BYTES + ((flags & KUTRACE_FLAG_SIDE) ? KUTRACE_SIDE_BYTES : 0);
	p->len = (size_t)st.st_size / bsz * bsz;
	if (p->len == 0) {
		close(fd);
		return part_fail(r, path, "shorter than one block");
	}
	p->path = path;
	p->fd = fd;
	p->base = r->nparts ? r->parts[r->nparts - 1].base + r->parts[r->nparts - 1].len : 0;
	p->first_block = 0;
	r->nparts++;
	return 1;
}

/*
 * A directory of chunks: its kt_NNNNNN.trace files in number order, each
 * mapped at its place in one reserved range.  Block sizes are multiples
 * of the page size, so the files lie back to back exactly as `cat` would
 * put them, without a copy.
 */
static int open_dir(struct kt_raw *r, const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	struct chunk_name *v = NULL;
	size_t n = 0, cap = 0, total = 0;
	int rc = 0;

	if (!d)
		return part_fail(r, path, strerror(errno));
	while ((e = readdir(d)) != NULL) {
		long k = chunk_number(e->d_name);

		if (k < 0)
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			v = kt_xrealloc(v, cap * sizeof(*v));
		}
		v[n].n = (unsigned long)k;
		if (asprintf(&v[n].name, "%s/%s", path, e->d_name) < 0)
			v[n].name = NULL;
		n++;
	}
	closedir(d);
	if (n == 0) {
		free(v);
		return part_fail(r, path, "a directory without chunk files (kt_NNNNNN.trace)");
	}
	qsort(v, n, sizeof(*v), cmp_chunk);
	/*
	 * --max-files deletes the oldest chunks only: a number missing in the
	 * middle is a hole no LOST entry tells of, never joined over.
	 */
	for (size_t i = 1; i < n && rc == 0; i++)
		if (v[i].n != v[i - 1].n + 1) {
			char msg[160];

			snprintf(msg, sizeof(msg), "chunk " KUTRACE_CHUNK_FMT " is missing "
				 "(a hole in the recording): join the chunks on either side apart",
				 v[i - 1].n + 1);
			rc = part_fail(r, path, msg);
		}
	if (rc < 0) {
		for (size_t i = 0; i < n; i++)
			free(v[i].name);
		free(v);
		return -1;
	}
	r->parts = kt_xcalloc(n, sizeof(*r->parts));
	for (size_t i = 0; i < n; i++) {
		if (rc < 0 || !v[i].name) {
			free(v[i].name);
			continue;
		}
		rc = add_part(r, v[i].name);
		if (rc < 0)
			free(v[i].name);
	}
	free(v);
	if (rc < 0)
		return -1;
	if (r->nparts == 0)
		return part_fail(r, path, "every chunk file is empty");
	total = r->parts[r->nparts - 1].base + r->parts[r->nparts - 1].len;
	void *m = mmap(NULL, total, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (m == MAP_FAILED)
		return part_fail(r, path, strerror(errno));
	r->map = m;
	r->maplen = total;
	for (int i = 0; i < r->nparts; i++) {
		struct kt_raw_part *p = &r->parts[i];

		if (mmap((char *)m + p->base, p->len, PROT_READ, MAP_PRIVATE | MAP_FIXED,
			 p->fd, 0) == MAP_FAILED)
			return part_fail(r, p->path, strerror(errno));
	}
	return 0;
}

int kt_raw_chunk_dir(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	int found = 0;

	if (!d)
		return 0;
	while (!found && (e = readdir(d)) != NULL)
		found = chunk_number(e->d_name) >= 0;
	closedir(d);
	return found;
}

int kt_raw_open(struct kt_raw *r, const char *path)
{
	struct stat st;

	memset(r, 0, sizeof(*r));
	if (!path || strcmp(path, "-") == 0) {
		r->f = stdin;
		r->path = "<stdin>";
	} else {
		r->path = path;
		r->f = fopen(path, "rb");
		if (!r->f) {
			snprintf(r->err, sizeof(r->err), "%s: %s", path,
				 strerror(errno));
			return -1;
		}
		r->own_file = 1;
	}
	if (fstat(fileno(r->f), &st) != 0) {
		snprintf(r->err, sizeof(r->err), "%s: %s", r->path, strerror(errno));
		kt_raw_close(r);
		return -1;
	}
	if (S_ISDIR(st.st_mode)) {
		kt_raw_close(r);
		r->path = path;
		if (open_dir(r, path) == 0)
			return 0;
		char err[sizeof(r->err)];

		memcpy(err, r->err, sizeof(err));
		kt_raw_close(r);
		memcpy(r->err, err, sizeof(err));
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		FILE *t = spool(r->f, r->err, sizeof(r->err), r->path);

		kt_raw_close(r);
		if (!t)
			return -1;
		r->f = t;
		r->own_file = 1;
	}
	/*
	 * The file is mapped once and every pass reads the mapping: the
	 * name prescan and the decoding pass read the disk once between
	 * them.  Without a mapping (none possible) stdio reads it.
	 */
	if (fstat(fileno(r->f), &st) == 0 && st.st_size > 0) {
		void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE,
			       fileno(r->f), 0);

		if (m != MAP_FAILED) {
			r->map = m;
			r->maplen = (size_t)st.st_size;
		}
	}
	return 0;
}

void kt_raw_close(struct kt_raw *r)
{
	if (r->shared) {	/* the mapping, index and file are src's */
		r->map = NULL;
		r->refs = NULL;
		r->f = NULL;
		return;
	}
	if (r->map)
		munmap((void *)r->map, r->maplen);
	r->map = NULL;
	for (int i = 0; i < r->nparts; i++) {
		close(r->parts[i].fd);
		free(r->parts[i].path);
	}
	free(r->parts);
	r->parts = NULL;
	r->nparts = 0;
	free(r->refs);
	r->refs = NULL;
	if (r->own_file && r->f)
		fclose(r->f);
	r->f = NULL;
}

/*
 * No block starts at tick 0 and usec 0: such a header is a hole (a sparse
 * or zero-filled file), refused before reading gigabytes of zeros.
 */
#define ZERO_HEADER "all-zero block header (a hole or zero-filled part of the file)"

static int fail(struct kt_raw *r, long block, long word, const char *what)
{
	const char *path = r->path;

	/* In a directory, the chunk file and its own block number. */
	for (int i = r->nparts - 1; i >= 0; i--)
		if (r->parts[i].first_block <= block) {
			path = r->parts[i].path;
			block -= r->parts[i].first_block;
			break;
		}
	if (word >= 0)
		snprintf(r->err, sizeof(r->err), "%s: block %ld word %ld: %s",
			 path, block, word, what);
	else
		snprintf(r->err, sizeof(r->err), "%s: block %ld: %s",
			 path, block, what);
	return -1;
}

/* Let go of the mapped pages read since the last drop. */
static void raw_drop(struct kt_raw *r)
{
	uintptr_t lo = ((uintptr_t)(r->map + r->drop_start) + 4095) & ~(uintptr_t)4095;
	uintptr_t hi = (uintptr_t)(r->map + r->drop_end) & ~(uintptr_t)4095;

	if (hi > lo)
		madvise((void *)lo, hi - lo, MADV_DONTNEED);
	r->drop_start = r->drop_end;
}

/* Up to n bytes from the mapping or the file; the count read. */
static size_t raw_read(struct kt_raw *r, void *buf, size_t n)
{
	if (!r->map)
		return fread(buf, 1, n, r->f);
	size_t k = r->mpos < r->maplen ? r->maplen - r->mpos : 0;

	if (k > n)
		k = n;
	memcpy(buf, r->map + r->mpos, k);
	/*
	 * Copied out, so let the pages go: a pass over a 4 GB trace must
	 * not hold it all as its own memory (the page cache keeps it for
	 * the next pass).  Blocks are read nearly in file order; the range
	 * read since the last drop goes in one call every 4 MB, since each
	 * call stops every thread of the process to flush its TLB.
	 */
	if (r->mpos != r->drop_end) {
		raw_drop(r);
		r->drop_start = r->mpos;
	}
	r->mpos += k;
	r->drop_end = r->mpos;
	if (r->drop_end - r->drop_start >= (4u << 20))
		raw_drop(r);
	return k;
}

static int raw_seek(struct kt_raw *r, long off)
{
	if (!r->map)
		return fseek(r->f, off, SEEK_SET);
	r->mpos = (size_t)off;
	return 0;
}

/* Read exactly n bytes: 1 done, 0 clean EOF before any byte, -1 short. */
static int read_full(struct kt_raw *r, void *buf, size_t n, size_t *got)
{
	*got = raw_read(r, buf, n);
	if (*got == n)
		return 1;
	return *got == 0 ? 0 : -1;
}

/*
 * After block 0, a block with the version and STREAM flags begins the next
 * chunk of a joined trace, when block 0 says the file is a chunk; in any
 * other trace the version nibble there is damage.
 */
static int is_later_head(const struct kt_raw *r, unsigned int flags)
{
	return (r->file_flags & KUTRACE_FLAG_STREAM) &&
	       (flags & KUTRACE_FLAG_VERSION) == KUTRACE_FILE_VERSION &&
	       (flags & KUTRACE_FLAG_STREAM);
}

int kt_raw_next(struct kt_raw *r, struct kt_block *b)
{
	long bi = r->next_index;
	size_t got;
	int rc = read_full(r, b->w, KUTRACE_BLOCK_BYTES, &got);

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
	if (bi > 0 && b->w[0] == KUTRACE_UBLOCK_MAGIC)
		return 0;	/* the user blocks (ubuf.c) end the kernel's */
	if (bi > 0 && b->w[0] == 0 && b->w[1] == 0)
		return fail(r, bi, 0, ZERO_HEADER);
	b->index = bi;
	b->cpu = (unsigned int)(b->w[KUTRACE_HDR_CPU_TIME] >>
				KUTRACE_HDR_CPU_SHIFT);
	b->base = b->w[KUTRACE_HDR_CPU_TIME] & KUTRACE_HDR_LOW56;
	b->flags = (unsigned int)(b->w[KUTRACE_HDR_FLAGS_USEC] >>
				  KUTRACE_HDR_FLAGS_SHIFT);
	b->usec = b->w[KUTRACE_HDR_FLAGS_USEC] & KUTRACE_HDR_LOW56;
	b->head = bi == 0 ? (b->flags & KUTRACE_FLAG_STREAM) != 0 :
		  is_later_head(r, b->flags);
	if (bi > 0 && b->head) {
		/* Read as an ordinary block of its CPU (FORMATS 10.2). */
		b->flags &= ~(unsigned int)(KUTRACE_FLAG_VERSION | KUTRACE_FLAG_STREAM |
					    KUTRACE_FLAG_WRAP);
		r->joined = 1;
	}

	int pidw = b->head || bi == 0 ? KUTRACE_HDR0_PID : KUTRACE_HDRN_PID;

	b->pid = (uint32_t)b->w[pidw];
	b->mhz = (uint32_t)(b->w[pidw] >> 32);
	memcpy(b->comm, &b->w[pidw + 2], KUTRACE_HDR_COMM_BYTES);
	b->comm[KUTRACE_HDR_COMM_BYTES] = '\0';
	b->first_entry = bi == 0 || b->head ? KUTRACE_HDR0_WORDS : KUTRACE_HDRN_WORDS;
	b->limit = 0;
	b->last = 0;
	b->cut = 0;
	b->prev_base = 0;

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
		if (!r->indexed) {
			r->start_ctr = b->w[KUTRACE_HDR_START_CTR];
			r->start_usec = b->w[KUTRACE_HDR_START_USEC];
			r->stop_ctr = b->w[KUTRACE_HDR_STOP_CTR];
			r->stop_usec = b->w[KUTRACE_HDR_STOP_USEC];
		}
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
		rc = read_full(r, b->side, KUTRACE_SIDE_BYTES, &got);
		if (rc != 1)
			return fail(r, bi, -1, "truncated IPC/LLC side block");
	} else {
		memset(b->side, 0, sizeof(b->side));
	}
	r->next_index = bi + 1;
	return 1;
}

/*
 * A time pair is sound when both wall-clock times are plausible, time
 * runs forward at a plausible rate (the original's 0.99..100.1 ticks per
 * usec) and every block starts between the start and the stop counter.
 */
static int pair_ok(uint64_t c0, uint64_t u0, uint64_t c1, uint64_t u1,
		   uint64_t lo, uint64_t hi)
{
	if (u0 < KT_USEC_2016 || u0 >= KT_USEC_2050 || u1 < KT_USEC_2016 || u1 >= KT_USEC_2050 ||
	    c1 <= c0 || u1 <= u0)
		return 0;
	double rate = (double)(c1 - c0) / (double)(u1 - u0);

	return rate >= 0.99 && rate <= 100.1 &&
	       lo + KUTRACE_LATE_STORE_WINDOW >= c0 && hi <= c1 + KUTRACE_LATE_STORE_WINDOW;
}

/* The value congruent to c modulo 2^32 that is nearest to want. */
static uint64_t near32(uint64_t c, uint64_t want)
{
	uint64_t v = (want & ~0xFFFFFFFFULL) | (c & 0xFFFFFFFFULL);

	if (v > want && v - want > 0x80000000ULL && v >= 0x100000000ULL)
		v -= 0x100000000ULL;
	else if (v < want && want - v > 0x80000000ULL)
		v += 0x100000000ULL;
	return v;
}

/*
 * The original kutrace_control re-extends the stop counter as if it were
 * a 32-bit 54 MHz counter whenever both counters are below 2^32, which
 * gives the pair wrong high counter bits (or garbage) on a fresh machine.
 * A pair that disagrees with the blocks is repaired from the blocks' own
 * times: first the counters' high 32 bits from the block counters, else
 * the first and last block headers' (counter, usec) pairs.
 */
static void repair_pairs(struct kt_raw *r, const struct kt_block_ref *refs, long n)
{
	uint64_t lo = UINT64_MAX, hi = 0;
	const struct kt_block_ref *a = NULL, *z = NULL;

	for (long i = 0; i < n; i++) {
		if (refs[i].cpu >= KUTRACE_MAX_CPUS)
			continue;
		if (refs[i].base < lo) {
			lo = refs[i].base;
			a = &refs[i];
		}
		if (refs[i].base >= hi) {
			hi = refs[i].base;
			z = &refs[i];
		}
	}
	if (!a || pair_ok(r->start_ctr, r->start_usec, r->stop_ctr, r->stop_usec, lo, hi))
		return;
	uint64_t c0 = near32(r->start_ctr, lo), c1 = near32(r->stop_ctr, hi);
	uint64_t u0 = r->start_usec, u1 = r->stop_usec;

	if (c0 > lo)
		c0 = lo;
	if (!pair_ok(c0, u0, c1, u1, lo, hi)) {
		c0 = a->base;
		u0 = a->usec;
		c1 = z->base;
		u1 = z->usec;
		if (!pair_ok(c0, u0, c1, u1, lo, hi))
			return;	/* nothing sound: kt_timebase_init says so */
	}
	snprintf(r->note, sizeof(r->note),
		 "%s: block 0 words 2..5: start/stop time pair (counter %#" PRIx64 "..%#" PRIx64
		 ", usec %" PRIu64 "..%" PRIu64 ") disagrees with the blocks; repaired from their own times (counter %#"
		 PRIx64 "..%#" PRIx64 ", usec %" PRIu64 "..%" PRIu64 ")",
		 r->path, r->start_ctr, r->stop_ctr, r->start_usec, r->stop_usec, c0, c1, u0, u1);
	r->start_ctr = c0;
	r->start_usec = u0;
	r->stop_ctr = c1;
	r->stop_usec = u1;
}

/*
 * Per CPU, blocks are allocated in time order: no entry of a block is
 * later than the start of its CPU's next block, and none of the CPU's
 * last block later than the stop counter.  Without wraparound the file is
 * in allocation order: kt_block_check compares each block with the one in
 * front of it (moved or swapped blocks).
 */
static void set_limits(struct kt_raw *r, struct kt_block_ref *refs, long n, int wrap)
{
	long *next = kt_xmalloc(KUTRACE_MAX_CPUS * sizeof(*next));

	for (int c = 0; c < KUTRACE_MAX_CPUS; c++)
		next[c] = -1;
	for (long i = n - 1; i >= 0; i--) {
		unsigned int cpu = refs[i].cpu;

		if (cpu >= KUTRACE_MAX_CPUS)
			continue;	/* kt_raw_next reports it */
		if (next[cpu] >= 0) {
			refs[i].limit = refs[next[cpu]].base;
			refs[i].last = 0;
			refs[i].cut = refs[next[cpu]].chunk != refs[i].chunk;
		} else {
			refs[i].limit = r->stop_ctr;
			refs[i].last = 1;
		}
		next[cpu] = i;
		if (!wrap && i > 0)
			refs[i].prev_base = refs[i - 1].base;
	}
	free(next);
}

static int cmp_base(const void *a, const void *b)
{
	const struct kt_block_ref *x = a, *y = b;

	if (x->base != y->base)
		return x->base < y->base ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

/* Header words at offset off of the (joined) file, through a descriptor. */
static ssize_t hdr_pread(struct kt_raw *r, void *buf, size_t n, long off, int *part)
{
	if (!r->nparts)
		return pread(fileno(r->f), buf, n, off);
	while (*part + 1 < r->nparts && (size_t)off >= r->parts[*part + 1].base)
		(*part)++;
	const struct kt_raw_part *p = &r->parts[*part];

	if ((size_t)off >= p->base + p->len)
		return 0;
	return pread(p->fd, buf, n, (off_t)((size_t)off - p->base));
}

/*
 * A later chunk head of a joined trace: its stop pair becomes the trace's
 * (FORMATS 10.2).  0, or -1 when it starts before the chunk in front of
 * it (not one recording, or files out of order).
 */
static int later_head(struct kt_raw *r, const uint64_t *hdr, long n, uint64_t *prev_start)
{
	uint64_t start = hdr[KUTRACE_HDR_START_CTR];

	if (start < *prev_start)
		return fail(r, n, KUTRACE_HDR_START_CTR,
			    "chunk starts before the chunk in front of it (not one recording, or out of order)");
	*prev_start = start;
	r->stop_ctr = hdr[KUTRACE_HDR_STOP_CTR];
	r->stop_usec = hdr[KUTRACE_HDR_STOP_USEC];
	return 0;
}

long kt_raw_index(struct kt_raw *r, struct kt_block_ref **out)
{
	struct kt_block_ref *refs = NULL;
	long n = 0, cap = 0, off = 0;
	unsigned int flags0 = 0;
	uint64_t prev_start = 0;
	long chunk = 0;
	int part = 0;

	for (;;) {
		uint64_t hdr[6];
		size_t want = sizeof(hdr);

		/*
		 * Headers through the descriptor, not the mapping: touching
		 * each block's first page would map the whole file (the
		 * kernel maps pages around a fault).
		 */
		ssize_t rd = r->map ? hdr_pread(r, hdr, want, off, &part) : 0;

		if (!r->map && fseek(r->f, off, SEEK_SET) != 0)
			break;
		size_t got = r->map ? (rd > 0 ? (size_t)rd : 0) : fread(hdr, 1, want, r->f);

		if (got == 0)
			break;
		if (got < want) {
			free(refs);
			return fail(r, n, 0, "truncated block header");
		}
		load_le(hdr, want / sizeof(hdr[0]));
		if (n > 0 && hdr[0] == KUTRACE_UBLOCK_MAGIC) {
			if (!r->nparts)
				r->user_off = off;
			break;
		}
		if (n > 0 && hdr[0] == 0 && hdr[1] == 0) {
			free(refs);
			return fail(r, n, 0, ZERO_HEADER);
		}
		unsigned int flags = (unsigned int)(hdr[1] >> KUTRACE_HDR_FLAGS_SHIFT);
		int head = 0, file_start = r->nparts && (size_t)off == r->parts[part].base;

		if (file_start)
			r->parts[part].first_block = n;

		if (n == 0) {
			r->start_ctr = hdr[KUTRACE_HDR_START_CTR];
			r->start_usec = hdr[KUTRACE_HDR_START_USEC];
			r->stop_ctr = hdr[KUTRACE_HDR_STOP_CTR];
			r->stop_usec = hdr[KUTRACE_HDR_STOP_USEC];
			prev_start = r->start_ctr;
			flags0 = flags;
			head = (flags & KUTRACE_FLAG_STREAM) != 0;
		} else if ((flags0 & KUTRACE_FLAG_STREAM) &&
			   (flags & KUTRACE_FLAG_VERSION) == KUTRACE_FILE_VERSION &&
			   (flags & KUTRACE_FLAG_STREAM)) {
			head = 1;
			if (later_head(r, hdr, n, &prev_start) < 0) {
				free(refs);
				return -1;
			}
		}
		/* Each file of a directory begins with its chunk head. */
		if (file_start && !head) {
			free(refs);
			return fail(r, n, 1, "not a chunk head where a chunk file begins");
		}
		if (n == cap) {
			cap = cap ? cap * 2 : 256;
			refs = kt_xrealloc(refs, (size_t)cap * sizeof(*refs));
		}
		refs[n].index = n;
		refs[n].offset = off;
		refs[n].base = hdr[0] & KUTRACE_HDR_LOW56;
		refs[n].usec = hdr[1] & KUTRACE_HDR_LOW56;
		refs[n].limit = 0;
		refs[n].last = 0;
		refs[n].prev_base = 0;
		refs[n].head = head;
		refs[n].cut = 0;
		chunk += head && n > 0;
		refs[n].chunk = chunk;
		refs[n].cpu = (unsigned int)(hdr[0] >> KUTRACE_HDR_CPU_SHIFT);
		n++;
		off += KUTRACE_BLOCK_BYTES;
		if (flags & KUTRACE_FLAG_SIDE)
			off += KUTRACE_SIDE_BYTES;
	}
	/*
	 * Allocation order is time order except after a wraparound, when the
	 * buffer restarted at its second block, and in a streamed chunk,
	 * whose blocks are in completion order (FORMATS 10.2): then sort
	 * blocks 1.. by their start time.  Block 0 (the initial names) always
	 * stays first.
	 */
	if ((flags0 & (KUTRACE_FLAG_WRAP | KUTRACE_FLAG_STREAM)) && n > 2)
		qsort(refs + 1, (size_t)(n - 1), sizeof(*refs), cmp_base);
	raw_seek(r, 0);
	if (n > 0) {
		repair_pairs(r, refs, n);
		set_limits(r, refs, n, (flags0 & (KUTRACE_FLAG_WRAP |
						  KUTRACE_FLAG_STREAM)) != 0);
	}
	r->indexed = 1;
	*out = refs;
	return n;
}

int kt_raw_read_at(struct kt_raw *r, const struct kt_block_ref *ref,
		   struct kt_block *b)
{
	if (raw_seek(r, ref->offset) != 0)
		return fail(r, ref->index, -1, "cannot seek");
	r->next_index = ref->index;
	int rc = kt_raw_next(r, b);

	if (rc == 0)
		return fail(r, ref->index, -1, "block vanished (file truncated while reading?)");
	b->limit = ref->limit;
	b->last = ref->last;
	b->cut = ref->cut;
	b->prev_base = ref->prev_base;
	return rc;
}

int kt_raw_prepare(struct kt_raw *r)
{
	if (r->each_indexed || (!r->nparts && fseek(r->f, 0, SEEK_END) != 0))
		return 0;
	long size = r->nparts ? (long)r->maplen : ftell(r->f);

	if (!r->nparts)
		fseek(r->f, 0, SEEK_SET);
	if (size == 0)
		return fail(r, 0, -1, "empty file, no trace blocks");
	struct kt_block *b = kt_xmalloc(sizeof(*b));
	int rc = 0;

	/* Block 0 first: a foreign or zeroed file fails before the index. */
	raw_seek(r, 0);
	r->next_index = 0;
	if (kt_raw_next(r, b) < 0) {
		rc = -1;
		goto out;
	}
	r->next_index = 0;
	/* Once per file: the second pass walks the same index. */
	r->nrefs = kt_raw_index(r, &r->refs);
	if (r->nrefs < 0) {
		r->refs = NULL;
		rc = -1;
		goto out;
	}
	r->each_indexed = 1;
out:
	free(b);
	return rc;
}

int kt_raw_share(struct kt_raw *dst, const struct kt_raw *src)
{
	if (!src->map || !src->each_indexed)
		return -1;
	*dst = *src;
	dst->shared = 1;
	dst->drop_start = dst->drop_end = dst->mpos = 0;
	return 0;
}

int kt_raw_each(struct kt_raw *r, kt_block_fn fn, void *ctx)
{
	if (kt_raw_prepare(r) < 0)
		return -1;
	struct kt_block *b = kt_xmalloc(sizeof(*b));
	int rc = 0;

	if (!r->each_indexed)
		raw_seek(r, 0);
	r->next_index = 0;
	for (long i = 0;; i++) {
		int got;

		if (r->each_indexed) {
			if (i >= r->nrefs)
				break;
			got = kt_raw_read_at(r, &r->refs[i], b);
		} else {
			got = kt_raw_next(r, b);
		}
		if (got < 0) {
			rc = -1;
			break;
		}
		if (got == 0)
			break;
		rc = fn(ctx, b);
		if (rc)
			break;
	}
	free(b);
	return rc;
}

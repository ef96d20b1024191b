// SPDX-License-Identifier: BSD-3-Clause
/*
 * parquet.c - the streaming Parquet writer of parquet.h.
 *
 * Why not DuckDB's own writer for these tables: DuckDB takes rows only
 * through its appender (about 300 ns a row here) into a table it then
 * encodes again; the store's big tables (span, slice) are written here as
 * the rows arrive instead, a row group at a time, and DuckDB reads them
 * back in parallel to derive the rest.
 *
 * The format (Apache Parquet, parquet.thrift): "PAR1", the row groups,
 * the footer (FileMetaData in Thrift's compact protocol), its length, and
 * "PAR1".  Each column chunk here is one data page (v1), after a
 * dictionary page when its encoding is RLE_DICTIONARY.  An OPTIONAL
 * column's page: its definition levels (RLE, bit width 1, with a 4-byte
 * length), then the non-null values PLAIN (little-endian integers;
 * strings as a 4-byte length and the bytes).  A REQUIRED column's page
 * takes the smallest of: DELTA_BINARY_PACKED (integers: times change
 * little from row to row), RLE_DICTIONARY (a name, CPU, thread or event
 * repeats: the page holds bit-packed indexes, a run as one), PLAIN; with
 * or without zstd over its pages (zstd gains nothing on packed times,
 * much on indexes and on durations).  The choice is made by trying each
 * way on one row group in TRIAL_EVERY (encode_group), on the worker.
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#include "parquet.h"

#ifndef KT_PQ_LEVEL
#define KT_PQ_LEVEL 1
#endif

/* Thrift compact protocol type codes. */
enum { T_I32 = 5, T_I64 = 6, T_BINARY = 8, T_LIST = 9, T_STRUCT = 12 };
/* Parquet's enums. */
enum { PQ_INT32 = 1, PQ_INT64 = 2, PQ_BYTE_ARRAY = 6 };
enum { PQ_REQUIRED = 0, PQ_OPTIONAL = 1 };
enum { PQ_UTF8 = 0, PQ_PLAIN = 0, PQ_PLAIN_DICTIONARY = 2, PQ_RLE = 3, PQ_DELTA = 5,
       PQ_RLE_DICTIONARY = 8, PQ_UNCOMPRESSED = 0, PQ_ZSTD = 6, PQ_DATA_PAGE = 0,
       PQ_DICTIONARY_PAGE = 2 };

struct bytes {
	unsigned char *p;
	size_t len, cap;
	int oom;
};

/* Room for n more bytes at b->p + b->len (0), or -1 out of memory. */
static int reserve(struct bytes *b, size_t n)
{
	if (b->len + n <= b->cap)
		return 0;
	size_t cap = b->cap ? b->cap : 4096;

	while (cap < b->len + n)
		cap *= 2;
	unsigned char *p = realloc(b->p, cap);

	if (!p) {
		b->oom = 1;
		return -1;
	}
	b->p = p;
	b->cap = cap;
	return 0;
}

static void put(struct bytes *b, const void *s, size_t n)
{
	if (n == 0 || reserve(b, n) < 0)
		return;
	memcpy(b->p + b->len, s, n);
	b->len += n;
}

static void put_byte(struct bytes *b, unsigned char c)
{
	put(b, &c, 1);
}

static void put_varint(struct bytes *b, uint64_t v)
{
	unsigned char tmp[10];
	int n = 0;

	do {
		tmp[n++] = (unsigned char)((v & 0x7F) | (v > 0x7F ? 0x80 : 0));
		v >>= 7;
	} while (v);
	put(b, tmp, (size_t)n);
}

/* ---- Thrift compact: fields carry their id as a delta from the last ---- */

static void field(struct bytes *b, int *last, int id, int type)
{
	if (id > *last && id - *last <= 15) {
		put_byte(b, (unsigned char)(((id - *last) << 4) | type));
	} else {
		put_byte(b, (unsigned char)type);
		put_varint(b, (uint64_t)((id << 1) ^ (id >> 15)));
	}
	*last = id;
}

/* i32 and i64 alike: a zigzag varint after a field header of their type. */
static void f_int(struct bytes *b, int *last, int id, int type, int64_t v)
{
	field(b, last, id, type);
	put_varint(b, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

static void f_i64(struct bytes *b, int *last, int id, int64_t v)
{
	f_int(b, last, id, T_I64, v);
}

static void f_i32(struct bytes *b, int *last, int id, int32_t v)
{
	f_int(b, last, id, T_I32, v);
}

static void f_bin(struct bytes *b, int *last, int id, const void *s, size_t n)
{
	field(b, last, id, T_BINARY);
	put_varint(b, n);
	put(b, s, n);
}

static void list_head(struct bytes *b, size_t n, int type)
{
	if (n < 15) {
		put_byte(b, (unsigned char)((n << 4) | (size_t)type));
	} else {
		put_byte(b, (unsigned char)(0xF0 | type));
		put_varint(b, n);
	}
}

static void stop(struct bytes *b)
{
	put_byte(b, 0);
}

/* ---------------------------------------------------------------------- */

struct chunk_meta {
	int64_t offset, usize, csize, nvalues, nnull;
	int64_t dict_offset;	/* the chunk's dictionary page, or -1 */
	int64_t min, max;
	int stats;
	int enc;		/* its data page's encoding */
	int zstd;		/* its pages are zstd-compressed */
};

/* A column's values of one row group, and their statistics. */
struct colbuf {
	struct bytes vals;
	unsigned char *defs;	/* OPTIONAL: 1 value, 0 NULL, per row */
	int64_t min, max, nnull;
	int any;
};

struct col {
	struct kt_pq_col def;
	char *constant;		/* its value, for a constant column */
	struct colbuf cur;	/* being filled by the caller */
	struct colbuf out;	/* being encoded by the worker */
	int set;		/* a value was given for the current row */
	int enc, zstd;		/* its encoding and codec, until the next trial */
	int trial;		/* row groups to write before the next trial */
	struct chunk_meta *chunks;
};

/*
 * One worker thread per file encodes and writes each row group while the
 * caller fills the next: the caller swaps a column's cur and out buffers
 * when the worker is idle (job == 0), the only time it touches the file,
 * the offsets and the chunk tables.
 */
struct kt_pq {
	FILE *f;
	char *path;
	struct col *c;
	int ncols;
	pthread_t th;
	int started;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int job, quit;
	size_t job_g, job_n;
	char werr[512];		/* the worker's error, read once it is idle */
	size_t group_rows, rows_in_group;
	uint64_t rows;
	int64_t offset;
	size_t ngroups, capgroups;
	int64_t *group_rows_n, *group_bytes;
	int spill;		/* kt_pq_spill: speed, not size */
	ZSTD_CCtx *zc;
	struct bytes page, z, dict, zd;
	/* The worker's dictionary scratch: an open-addressed table of value
	 * indexes, and each row's index into the dictionary. */
	uint32_t *slot, *idx;
	int64_t *dval;		/* an integer dictionary's values */
	uint32_t *soff, *slen;	/* a string dictionary's entries, in vals */
	char err[512];
};

/* The worker's errors go to werr, the caller's to err. */
static int fail(struct kt_pq *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(struct kt_pq *w, const char *fmt, ...)
{
	int mine = w->started && pthread_equal(pthread_self(), w->th);
	char *e = mine ? w->werr : w->err;
	size_t len = mine ? sizeof(w->werr) : sizeof(w->err);

	if (e[0])
		return -1;
	int n = snprintf(e, len, "%s: ", w->path);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(e + n, len - (size_t)n, fmt, ap);
	va_end(ap);
	return -1;
}

const char *kt_pq_error(const struct kt_pq *w)
{
	return w->err[0] ? w->err : NULL;
}

static void free_w(struct kt_pq *w)
{
	for (int i = 0; i < w->ncols; i++) {
		free(w->c[i].cur.vals.p);
		free(w->c[i].out.vals.p);
		free(w->c[i].constant);
		free(w->c[i].cur.defs);
		free(w->c[i].out.defs);
		free(w->c[i].chunks);
	}
	free(w->c);
	free(w->group_rows_n);
	free(w->group_bytes);
	free(w->page.p);
	free(w->z.p);
	free(w->dict.p);
	free(w->zd.p);
	free(w->slot);
	free(w->idx);
	free(w->dval);
	free(w->soff);
	free(w->slen);
	ZSTD_freeCCtx(w->zc);
	free(w->path);
	free(w);
}

static void *worker(void *p);

struct kt_pq *kt_pq_open(const char *path, const struct kt_pq_col *cols, int ncols,
			 size_t group_rows, char *err, size_t errlen)
{
	struct kt_pq *w = calloc(1, sizeof(*w));

	if (!w || !(w->path = strdup(path)) || !(w->c = calloc((size_t)ncols, sizeof(*w->c))) ||
	    !(w->zc = ZSTD_createCCtx())) {
		snprintf(err, errlen, "%s: out of memory", path);
		if (w)
			free_w(w);
		return NULL;
	}
	w->ncols = ncols;
	w->group_rows = group_rows;
	for (int i = 0; i < ncols; i++) {
		w->c[i].def = cols[i];
		/* Integers: a row group's room at once (strings grow). */
		size_t width = cols[i].type == KT_PQ_I32 ? 4 : cols[i].type == KT_PQ_I64 ? 8 : 16;

		for (int k = 0; k < 2 && !cols[i].constant; k++) {
			struct colbuf *b = k ? &w->c[i].out : &w->c[i].cur;

			b->vals.p = malloc(group_rows * width);
			b->vals.cap = b->vals.p ? group_rows * width : 0;
		}
		if (cols[i].nullable && (!(w->c[i].cur.defs = malloc(group_rows)) ||
					 !(w->c[i].out.defs = malloc(group_rows)))) {
			snprintf(err, errlen, "%s: out of memory", path);
			free_w(w);
			return NULL;
		}
	}
	/* zstd's fast levels: the store is written at the speed of the rows. */
	ZSTD_CCtx_setParameter(w->zc, ZSTD_c_compressionLevel, KT_PQ_LEVEL);
	w->f = fopen(path, "wb");
	if (!w->f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		free_w(w);
		return NULL;
	}
	setvbuf(w->f, NULL, _IOFBF, 1 << 20);
	fwrite("PAR1", 4, 1, w->f);
	w->offset = 4;
	if (pthread_mutex_init(&w->mu, NULL) == 0 && pthread_cond_init(&w->cv, NULL) == 0 &&
	    pthread_create(&w->th, NULL, worker, w) == 0)
		w->started = 1;
	return w;
}

void kt_pq_spill(struct kt_pq *w)
{
	w->spill = 1;
}

static void stat_int(struct colbuf *c, int64_t v)
{
	if (!c->any || v < c->min)
		c->min = v;
	if (!c->any || v > c->max)
		c->max = v;
	c->any = 1;
}

/* A fixed-width value: a store into room reserved a row group ahead. */
static inline void put_fixed(struct bytes *b, const void *v, size_t n)
{
	if (b->len + n <= b->cap) {
		memcpy(b->p + b->len, v, n);
		b->len += n;
	} else {
		put(b, v, n);
	}
}

void kt_pq_i32(struct kt_pq *w, int i, int32_t v)
{
	struct col *c = &w->c[i];

	put_fixed(&c->cur.vals, &v, 4);
	stat_int(&c->cur, v);
	c->set = 1;
}

void kt_pq_i64(struct kt_pq *w, int i, int64_t v)
{
	struct col *c = &w->c[i];

	put_fixed(&c->cur.vals, &v, 8);
	stat_int(&c->cur, v);
	c->set = 1;
}

void kt_pq_str(struct kt_pq *w, int i, const char *s, size_t n)
{
	struct col *c = &w->c[i];
	uint32_t l = (uint32_t)n;

	struct bytes *b = &c->cur.vals;

	if (b->len + 4 + n <= b->cap) {
		memcpy(b->p + b->len, &l, 4);
		memcpy(b->p + b->len + 4, s, n);
		b->len += 4 + n;
	} else {
		put(b, &l, 4);
		put(b, s, n);
	}
	c->set = 1;
}

void kt_pq_null(struct kt_pq *w, int i)
{
	w->c[i].set = 2;
}

/* Definition levels of one page: RLE runs of bit width 1, length first. */
static void put_defs(struct bytes *b, const unsigned char *d, size_t n)
{
	size_t at = b->len;
	uint32_t len = 0;

	put(b, &len, 4);
	for (size_t i = 0; i < n;) {
		size_t j = i;

		while (j < n && d[j] == d[i])
			j++;
		put_varint(b, (uint64_t)(j - i) << 1);
		put_byte(b, d[i]);
		i = j;
	}
	if (!b->oom) {
		len = (uint32_t)(b->len - at - 4);
		memcpy(b->p + at, &len, 4);
	}
}

/* 32 integers of width b (at most 64) packed LSB first, as Parquet packs. */
static void pack32(struct bytes *out, const uint64_t *v, int b)
{
	if (b == 0 || reserve(out, (size_t)4 * (size_t)b) < 0)
		return;
	unsigned char *o = out->p + out->len;
	uint64_t acc = 0;
	int nbits = 0;

	for (int i = 0; i < 32; i++) {
		uint64_t x = b == 64 ? v[i] : v[i] & ((1ull << b) - 1);

		if (b > 56) {
			/* Wide values in two halves, so the shift stays in range. */
			acc |= (x & 0xFFFFFFFFull) << nbits;
			nbits += 32;
			while (nbits >= 8) {
				*o++ = (unsigned char)acc;
				acc >>= 8;
				nbits -= 8;
			}
			x >>= 32;
			acc |= x << nbits;
			nbits += b - 32;
		} else {
			acc |= x << nbits;
			nbits += b;
		}
		while (nbits >= 8) {
			*o++ = (unsigned char)acc;
			acc >>= 8;
			nbits -= 8;
		}
	}
	out->len += (size_t)4 * (size_t)b;
}

/* Value i of a column's INT64 (wide) or INT32 values, as int64. */
static inline int64_t val_at(const unsigned char *vals, size_t i, int wide)
{
	if (wide) {
		int64_t v;

		memcpy(&v, vals + 8 * i, 8);
		return v;
	}
	int32_t v32;

	memcpy(&v32, vals + 4 * i, 4);
	return v32;
}

/*
 * DELTA_BINARY_PACKED: blocks of 128 values in 4 miniblocks of 32; each
 * block stores its smallest delta and packs every delta minus it at the
 * miniblock's bit width.  INT32 deltas wrap at 32 bits, as readers undo.
 */
static void delta_encode(struct bytes *out, const unsigned char *vals, size_t n, int wide)
{
	enum { BLOCK = 128, MINI = 4, PER = BLOCK / MINI };	/* PER: pack32 */
	int64_t prev = 0;

	put_varint(out, BLOCK);
	put_varint(out, MINI);
	put_varint(out, n);
	for (size_t i = 0; i < n; i++) {
		int64_t v = val_at(vals, i, wide);

		if (i == 0) {
			put_varint(out, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
			prev = v;
			continue;
		}
		break;
	}
	for (size_t at = 1; at < n; at += BLOCK) {
		size_t k = n - at < BLOCK ? n - at : BLOCK;
		uint64_t d[BLOCK];
		int64_t mind = INT64_MAX;

		for (size_t j = 0; j < k; j++) {
			int64_t v = val_at(vals, at + j, wide);

			d[j] = wide ? (uint64_t)v - (uint64_t)prev :
			       (uint64_t)(int64_t)(int32_t)((uint32_t)v - (uint32_t)prev);
			prev = v;
			if ((int64_t)d[j] < mind)
				mind = (int64_t)d[j];
		}
		put_varint(out, ((uint64_t)mind << 1) ^ (uint64_t)(mind >> 63));
		unsigned char widths[MINI];
		int nmini = (int)((k + PER - 1) / PER);

		for (int m = 0; m < MINI; m++) {
			uint64_t all = 0;

			for (size_t j = (size_t)m * PER; j < (size_t)(m + 1) * PER && j < k; j++) {
				d[j] -= (uint64_t)mind;
				if (!wide)
					d[j] &= 0xFFFFFFFFull;
				all |= d[j];
			}
			widths[m] = (unsigned char)(m < nmini && all ? 64 - __builtin_clzll(all) : 0);
		}
		put(out, widths, MINI);
		for (int m = 0; m < nmini; m++) {
			/* The last miniblock is packed whole, zeros after the values. */
			for (size_t j = k; j < (size_t)(m + 1) * PER && j < BLOCK; j++)
				d[j] = 0;
			pack32(out, d + (size_t)m * PER, widths[m]);
		}
	}
}

/* Dictionaries: beyond these a row group's values are too varied to pay. */
#define DICT_INT_MAX (1u << 16)
#define DICT_STR_MAX (1u << 16)
#define DICT_STR_BYTES ((size_t)4 << 20)
#define SLOTS (1u << 17)	/* a power of two, twice the entries at least */
#define EMPTY UINT32_MAX
/*
 * A column's encoding is chosen on one row group in TRIAL_EVERY, by
 * writing it each way and keeping the smallest, and kept for the groups
 * after it: the values of a trace change slowly, and trying every way on
 * every group would cost more time than it saves bytes.
 */
#define TRIAL_EVERY 16

static int scratch(struct kt_pq *w)
{
	if (w->slot)
		return 0;
	w->slot = malloc(SLOTS * sizeof(*w->slot));
	w->idx = malloc(w->group_rows * sizeof(*w->idx));
	w->dval = malloc(DICT_INT_MAX * sizeof(*w->dval));
	w->soff = malloc(DICT_STR_MAX * sizeof(*w->soff));
	w->slen = malloc(DICT_STR_MAX * sizeof(*w->slen));
	if (!w->slot || !w->idx || !w->dval || !w->soff || !w->slen)
		return fail(w, "out of memory");
	return 0;
}

/*
 * n integers as indexes into a dictionary (w->idx) and the dictionary's
 * PLAIN page (w->dict): its number of entries, or 0 when more than
 * DICT_INT_MAX are needed (then the column is delta-packed instead).
 */
static size_t dict_ints(struct kt_pq *w, const unsigned char *vals, size_t n, int wide,
			int64_t min, int64_t max)
{
	size_t nd = 0;
	/* Values within SLOTS of each other (CPUs, threads, events) index the
	 * table directly, without a hash or a probe. */
	int direct = (uint64_t)max - (uint64_t)min < SLOTS;

	memset(w->slot, 0xFF, SLOTS * sizeof(*w->slot));
	for (size_t i = 0; i < n; i++) {
		int64_t v = val_at(vals, i, wide);

		if (direct) {
			uint32_t *s = &w->slot[(uint64_t)v - (uint64_t)min];

			if (*s == EMPTY) {
				if (nd == DICT_INT_MAX)
					return 0;
				w->dval[nd] = v;
				*s = (uint32_t)nd++;
			}
			w->idx[i] = *s;
			continue;
		}
		uint32_t h = (uint32_t)(((uint64_t)v * 0x9E3779B97F4A7C15ull) >> 47);

		for (;;) {
			uint32_t s = w->slot[h];

			if (s == EMPTY) {
				if (nd == DICT_INT_MAX)
					return 0;
				w->dval[nd] = v;
				s = w->slot[h] = (uint32_t)nd++;
			} else if (w->dval[s] != v) {
				h = (h + 1) & (SLOTS - 1);
				continue;
			}
			w->idx[i] = s;
			break;
		}
	}
	w->dict.len = 0;
	for (size_t k = 0; k < nd; k++) {
		int32_t v32 = (int32_t)w->dval[k];

		put(&w->dict, wide ? (const void *)&w->dval[k] : (const void *)&v32, wide ? 8 : 4);
	}
	return nd;
}

/* The same for n strings (4-byte length, bytes), to DICT_STR_BYTES. */
static size_t dict_strs(struct kt_pq *w, const unsigned char *vals, size_t n)
{
	size_t nd = 0, bytes = 0, at = 0;

	memset(w->slot, 0xFF, SLOTS * sizeof(*w->slot));
	for (size_t i = 0; i < n; i++) {
		uint32_t l;

		memcpy(&l, vals + at, 4);
		const unsigned char *s = vals + at + 4;
		uint64_t h64 = 0xcbf29ce484222325ull;

		for (uint32_t j = 0; j < l; j++)
			h64 = (h64 ^ s[j]) * 0x100000001b3ull;
		uint32_t h = (uint32_t)((h64 * 0x9E3779B97F4A7C15ull) >> 47);

		for (;;) {
			uint32_t e = w->slot[h];

			if (e == EMPTY) {
				if (nd == DICT_STR_MAX || (bytes += 4 + l) > DICT_STR_BYTES)
					return 0;
				w->soff[nd] = (uint32_t)(at + 4);
				w->slen[nd] = l;
				e = w->slot[h] = (uint32_t)nd++;
			} else if (w->slen[e] != l || memcmp(vals + w->soff[e], s, l) != 0) {
				h = (h + 1) & (SLOTS - 1);
				continue;
			}
			w->idx[i] = e;
			break;
		}
		at += 4 + l;
	}
	w->dict.len = 0;
	for (size_t k = 0; k < nd; k++) {
		put(&w->dict, &w->slen[k], 4);
		put(&w->dict, vals + w->soff[k], w->slen[k]);
	}
	return nd;
}

/* 8 * groups values of bit width b (at most 32) packed LSB first. */
static void pack8(struct bytes *out, const uint32_t *v, size_t count, size_t groups, int b)
{
	size_t nb = groups * (size_t)b;

	if (reserve(out, nb) < 0)
		return;
	unsigned char *o = out->p + out->len;
	uint64_t acc = 0;
	int nbits = 0;

	for (size_t i = 0; i < groups * 8; i++) {
		acc |= (uint64_t)(i < count ? v[i] : 0) << nbits;
		nbits += b;
		while (nbits >= 8) {
			*o++ = (unsigned char)acc;
			acc >>= 8;
			nbits -= 8;
		}
	}
	out->len += nb;
}

/*
 * RLE_DICTIONARY's data: the indexes' bit width, then the RLE/bit-packed
 * hybrid: a run of 8 equal indexes or more as (length, value), the rest
 * bit-packed in groups of 8.
 */
static void rle_indexes(struct bytes *out, const uint32_t *v, size_t n, size_t ndict)
{
	int b = ndict > 1 ? 32 - __builtin_clz((uint32_t)(ndict - 1)) : 1;
	size_t vbytes = ((size_t)b + 7) / 8;

	put_byte(out, (unsigned char)b);
	for (size_t i = 0; i < n;) {
		size_t r = i + 1;

		while (r < n && v[r] == v[i])
			r++;
		if (r - i >= 8) {
			put_varint(out, (uint64_t)(r - i) << 1);
			put(out, &v[i], vbytes);	/* little-endian */
			i = r;
			continue;
		}
		/* Groups of 8 until a run of 8 starts (or the values end). */
		size_t start = i;

		for (;;) {
			i += 8;
			if (i >= n)
				break;
			for (r = i + 1; r < n && r < i + 8 && v[r] == v[i]; r++)
				;
			if (r - i >= 8)
				break;
		}
		size_t end = i < n ? i : n, groups = (i - start) / 8;

		put_varint(out, (uint64_t)groups << 1 | 1);
		pack8(out, v + start, end - start, groups, b);
		i = end;
	}
}

/* src zstd-compressed into dst: 0, or -1. */
static int zstd(struct kt_pq *w, const struct bytes *src, struct bytes *dst)
{
	size_t bound = ZSTD_compressBound(src->len);

	if (dst->cap < bound) {
		free(dst->p);
		dst->p = malloc(bound);
		dst->cap = dst->p ? bound : 0;
		if (!dst->p)
			return fail(w, "out of memory");
	}
	dst->len = ZSTD_compress2(w->zc, dst->p, dst->cap, src->p, src->len);
	if (ZSTD_isError(dst->len))
		return fail(w, "zstd: %s", ZSTD_getErrorName(dst->len));
	return 0;
}

/*
 * Column c's chunk of row group g: the dictionary page (when dict is not
 * NULL, ndict entries) and one data page of n values in encoding enc,
 * both zstd-compressed when z.
 */
static int write_chunk(struct kt_pq *w, struct col *c, size_t g, size_t n,
		       const struct bytes *dict, size_t ndict, const struct bytes *data, int enc,
		       int z, const struct colbuf *st)
{
	struct chunk_meta *m = &c->chunks[g];

	if ((dict && dict->oom) || data->oom)
		return fail(w, "out of memory");
	if (data->len > INT32_MAX || (dict && dict->len > INT32_MAX))
		return fail(w, "a page of more than 2 GB");
	if (z && ((dict && zstd(w, dict, &w->zd) < 0) || zstd(w, data, &w->z) < 0))
		return -1;
	*m = (struct chunk_meta){ .offset = w->offset, .dict_offset = -1, .enc = enc, .zstd = z,
				  .nvalues = (int64_t)n };
	if (st) {
		m->nnull = st->nnull;
		m->min = st->min;
		m->max = st->max;
		m->stats = st->any && c->def.type != KT_PQ_STR;
	}
	for (int k = 0; k < 2; k++) {
		const struct bytes *src = k ? data : dict;
		const struct bytes *out = z ? (k ? &w->z : &w->zd) : src;
		struct bytes h = { 0 };
		int last = 0, l2 = 0;

		if (!src)
			continue;
		f_i32(&h, &last, 1, k ? PQ_DATA_PAGE : PQ_DICTIONARY_PAGE);
		f_i32(&h, &last, 2, (int32_t)src->len);
		f_i32(&h, &last, 3, (int32_t)out->len);
		if (!k) {
			field(&h, &last, 7, T_STRUCT);
			f_i32(&h, &l2, 1, (int32_t)ndict);
			f_i32(&h, &l2, 2, PQ_PLAIN_DICTIONARY);
		} else {
			field(&h, &last, 5, T_STRUCT);
			f_i32(&h, &l2, 1, (int32_t)n);
			f_i32(&h, &l2, 2, enc);
			f_i32(&h, &l2, 3, PQ_RLE);
			f_i32(&h, &l2, 4, PQ_RLE);
		}
		stop(&h);
		stop(&h);
		if (h.oom) {
			free(h.p);
			return fail(w, "out of memory");
		}
		if (k)
			m->offset = w->offset;
		else
			m->dict_offset = w->offset;
		if (fwrite(h.p, h.len, 1, w->f) != 1 || fwrite(out->p, out->len, 1, w->f) != 1) {
			free(h.p);
			return fail(w, "%s", strerror(errno));
		}
		m->usize += (int64_t)(h.len + src->len);
		m->csize += (int64_t)(h.len + out->len);
		w->offset += (int64_t)(h.len + out->len);
		free(h.p);
	}
	return 0;
}

/* zstd's size of src, or (size_t)-1 on an error. */
static size_t zsize(struct kt_pq *w, const struct bytes *src)
{
	return zstd(w, src, &w->z) < 0 ? (size_t)-1 : w->z.len;
}

/*
 * Column c's values of a row group (n rows) in its encoding: w->page or
 * its values as they are (*data), a dictionary in w->dict (the entries
 * returned, or 0).  A REQUIRED integer column: DELTA_BINARY_PACKED (times,
 * counters) or RLE_DICTIONARY (CPUs, threads, events); a REQUIRED string:
 * RLE_DICTIONARY (names repeat), PLAIN beyond a dictionary's limits; an
 * OPTIONAL column: definition levels and PLAIN values.
 */
static size_t encode_col(struct kt_pq *w, struct col *c, size_t n, int enc,
			 const struct bytes **data)
{
	struct colbuf *o = &c->out;
	size_t nd = 0;

	w->page.len = 0;
	*data = &w->page;
	if (c->def.nullable) {
		put_defs(&w->page, o->defs, n);
		put(&w->page, o->vals.p, o->vals.len);
	} else if (enc == PQ_RLE_DICTIONARY &&
		   (nd = c->def.type == KT_PQ_STR ? dict_strs(w, o->vals.p, n) :
		    dict_ints(w, o->vals.p, n, c->def.type == KT_PQ_I64, o->min, o->max)) > 0) {
		rle_indexes(&w->page, w->idx, n, nd);
	} else if (enc != PQ_PLAIN && c->def.type != KT_PQ_STR) {
		delta_encode(&w->page, o->vals.p, n, c->def.type == KT_PQ_I64);
	} else {
		*data = &o->vals;
	}
	return nd;
}

/* The encoding and codec of c's smallest chunk of these n rows. */
static int trial(struct kt_pq *w, struct col *c, size_t n)
{
	static const int encs[] = { PQ_DELTA, PQ_RLE_DICTIONARY, PQ_PLAIN };
	size_t best = (size_t)-1;

	c->enc = PQ_PLAIN;
	c->zstd = 1;
	if (c->def.nullable)
		return 0;
	if (w->spill) {
		if (c->def.type != KT_PQ_STR)
			c->enc = PQ_DELTA, c->zstd = 0;
		return 0;
	}
	for (int k = 0; k < 3; k++) {
		const struct bytes *data;

		if (encs[k] == PQ_DELTA && c->def.type == KT_PQ_STR)
			continue;
		size_t nd = encode_col(w, c, n, encs[k], &data);

		if (encs[k] == PQ_RLE_DICTIONARY && !nd)
			continue;	/* beyond the limits */
		size_t raw = data->len + (nd ? w->dict.len : 0);
		size_t zd = nd ? zsize(w, &w->dict) : 0, z = zsize(w, data);

		if (zd == (size_t)-1 || z == (size_t)-1)
			return -1;
		/* PLAIN is never the smaller uncompressed. */
		if (encs[k] != PQ_PLAIN && raw <= best) {
			best = raw;
			c->enc = encs[k];
			c->zstd = 0;
		}
		/* zstd must save 1/32 to pay for its time. */
		if (z + zd + raw / 32 < best) {
			best = z + zd + raw / 32;
			c->enc = encs[k];
			c->zstd = 1;
		}
	}
	return 0;
}

/* Row group g (n rows) from the columns' out buffers, on the worker. */
static int encode_group(struct kt_pq *w, size_t g, size_t n)
{
	int64_t gbytes = 0;

	if (scratch(w) < 0)
		return -1;
	for (int i = 0; i < w->ncols; i++) {
		struct col *c = &w->c[i];
		struct colbuf *o = &c->out;
		const struct bytes *data;

		if (c->def.constant)
			continue;
		if (o->vals.oom)
			return fail(w, "out of memory");
		if (c->trial-- <= 0) {
			if (trial(w, c, n) < 0)
				return -1;
			c->trial = TRIAL_EVERY - 1;
		}
		size_t nd = encode_col(w, c, n, c->enc, &data);
		int enc = nd ? PQ_RLE_DICTIONARY : data == &o->vals ? PQ_PLAIN :
			  c->def.nullable ? PQ_PLAIN : PQ_DELTA;

		if (c->enc == PQ_RLE_DICTIONARY && !nd)
			c->trial = 0;	/* the values changed: try again */
		if (write_chunk(w, c, g, n, nd ? &w->dict : NULL, nd, data, enc, c->zstd, o) < 0)
			return -1;
		gbytes += c->chunks[g].usize;
		o->vals.len = 0;
		o->nnull = 0;
		o->any = 0;
	}
	w->group_rows_n[g] = (int64_t)n;
	w->group_bytes[g] = gbytes;
	return 0;
}

static void *worker(void *p)
{
	struct kt_pq *w = p;

	pthread_mutex_lock(&w->mu);
	for (;;) {
		while (!w->job && !w->quit)
			pthread_cond_wait(&w->cv, &w->mu);
		if (!w->job)
			break;
		pthread_mutex_unlock(&w->mu);
		/* fail() writes werr here; the caller reads it when idle. */
		if (!w->werr[0])
			encode_group(w, w->job_g, w->job_n);
		pthread_mutex_lock(&w->mu);
		w->job = 0;
		pthread_cond_broadcast(&w->cv);
	}
	pthread_mutex_unlock(&w->mu);
	return NULL;
}

/* Wait for the worker to be idle; its error becomes the caller's. */
static int idle(struct kt_pq *w)
{
	if (!w->started)
		return w->werr[0] ? -1 : 0;
	pthread_mutex_lock(&w->mu);
	while (w->job)
		pthread_cond_wait(&w->cv, &w->mu);
	pthread_mutex_unlock(&w->mu);
	if (w->werr[0]) {
		snprintf(w->err, sizeof(w->err), "%s", w->werr);
		return -1;
	}
	return 0;
}

static int write_group(struct kt_pq *w)
{
	size_t n = w->rows_in_group;

	if (n == 0)
		return 0;
	if (idle(w) < 0)
		return -1;
	if (w->ngroups == w->capgroups) {
		size_t cap = w->capgroups ? 2 * w->capgroups : 16;
		int64_t *a = realloc(w->group_rows_n, cap * sizeof(*a));

		if (a)
			w->group_rows_n = a;
		int64_t *b = a ? realloc(w->group_bytes, cap * sizeof(*b)) : NULL;

		if (b)
			w->group_bytes = b;
		for (int i = 0; b && i < w->ncols; i++) {
			struct chunk_meta *m = realloc(w->c[i].chunks, cap * sizeof(*m));

			if (!m) {
				b = NULL;
				break;
			}
			w->c[i].chunks = m;
		}
		if (!b)
			return fail(w, "out of memory");
		w->capgroups = cap;
	}
	for (int i = 0; i < w->ncols; i++) {
		struct colbuf t = w->c[i].cur;

		w->c[i].cur = w->c[i].out;
		w->c[i].out = t;
	}
	size_t g = w->ngroups++;

	w->rows_in_group = 0;
	if (!w->started) {
		/* No thread (it could not start): encode here. */
		return encode_group(w, g, n);
	}
	pthread_mutex_lock(&w->mu);
	w->job_g = g;
	w->job_n = n;
	w->job = 1;
	pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->mu);
	return 0;
}

static void stop_worker(struct kt_pq *w)
{
	if (!w->started)
		return;
	idle(w);
	pthread_mutex_lock(&w->mu);
	w->quit = 1;
	pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->mu);
	pthread_join(w->th, NULL);
	pthread_mutex_destroy(&w->mu);
	pthread_cond_destroy(&w->cv);
	w->started = 0;
}

int kt_pq_row(struct kt_pq *w)
{
	if (w->err[0])
		return -1;
	for (int i = 0; i < w->ncols; i++) {
		struct col *c = &w->c[i];

		if (c->def.constant)
			continue;
		if (!c->set || (c->set == 2 && !c->def.nullable))
			return fail(w, "column %s: no value", c->def.name);
		if (c->def.nullable) {
			c->cur.defs[w->rows_in_group] = c->set == 1;
			c->cur.nnull += c->set == 2;
		}
		if (c->cur.vals.oom)
			return fail(w, "out of memory");
		c->set = 0;
	}
	w->rows++;
	if (++w->rows_in_group == w->group_rows)
		return write_group(w);
	return 0;
}

uint64_t kt_pq_rows(const struct kt_pq *w)
{
	return w->rows;
}

static void footer(struct kt_pq *w, struct bytes *b)
{
	int last = 0;

	f_i32(b, &last, 1, 1);
	field(b, &last, 2, T_LIST);
	list_head(b, (size_t)w->ncols + 1, T_STRUCT);
	{
		int l = 0;

		f_bin(b, &l, 4, "schema", 6);
		f_i32(b, &l, 5, w->ncols);
		stop(b);
	}
	for (int i = 0; i < w->ncols; i++) {
		const struct kt_pq_col *d = &w->c[i].def;
		int l = 0;

		f_i32(b, &l, 1, d->type == KT_PQ_I32 ? PQ_INT32 :
			     d->type == KT_PQ_I64 ? PQ_INT64 : PQ_BYTE_ARRAY);
		f_i32(b, &l, 3, d->nullable ? PQ_OPTIONAL : PQ_REQUIRED);
		f_bin(b, &l, 4, d->name, strlen(d->name));
		if (d->type == KT_PQ_STR)
			f_i32(b, &l, 6, PQ_UTF8);
		stop(b);
	}
	f_i64(b, &last, 3, (int64_t)w->rows);
	field(b, &last, 4, T_LIST);
	list_head(b, w->ngroups, T_STRUCT);
	for (size_t g = 0; g < w->ngroups; g++) {
		int lg = 0;

		field(b, &lg, 1, T_LIST);
		list_head(b, (size_t)w->ncols, T_STRUCT);
		for (int i = 0; i < w->ncols; i++) {
			const struct kt_pq_col *d = &w->c[i].def;
			const struct chunk_meta *m = &w->c[i].chunks[g];
			int lc = 0, lm = 0;

			f_i64(b, &lc, 2, m->dict_offset >= 0 ? m->dict_offset : m->offset);
			field(b, &lc, 3, T_STRUCT);
			f_i32(b, &lm, 1, d->type == KT_PQ_I32 ? PQ_INT32 :
				      d->type == KT_PQ_I64 ? PQ_INT64 : PQ_BYTE_ARRAY);
			field(b, &lm, 2, T_LIST);
			list_head(b, 2, T_I32);
			put_varint(b, (uint64_t)m->enc << 1);
			put_varint(b, PQ_RLE << 1);
			field(b, &lm, 3, T_LIST);
			list_head(b, 1, T_BINARY);
			put_varint(b, strlen(d->name));
			put(b, d->name, strlen(d->name));
			f_i32(b, &lm, 4, m->zstd ? PQ_ZSTD : PQ_UNCOMPRESSED);
			f_i64(b, &lm, 5, m->nvalues);
			f_i64(b, &lm, 6, m->usize);
			f_i64(b, &lm, 7, m->csize);
			f_i64(b, &lm, 9, m->offset);
			if (m->dict_offset >= 0)
				f_i64(b, &lm, 11, m->dict_offset);
			if (m->stats) {
				int ls = 0;
				size_t sz = d->type == KT_PQ_I32 ? 4 : 8;
				int32_t mn32 = (int32_t)m->min, mx32 = (int32_t)m->max;

				field(b, &lm, 12, T_STRUCT);
				f_i64(b, &ls, 3, m->nnull);
				f_bin(b, &ls, 5, sz == 4 ? (const void *)&mx32 : (const void *)&m->max, sz);
				f_bin(b, &ls, 6, sz == 4 ? (const void *)&mn32 : (const void *)&m->min, sz);
				stop(b);
			}
			stop(b);	/* ColumnMetaData */
			stop(b);	/* ColumnChunk */
		}
		f_i64(b, &lg, 2, w->group_bytes[g]);
		f_i64(b, &lg, 3, w->group_rows_n[g]);
		stop(b);
	}
	f_bin(b, &last, 6, "kutrace", 7);
	stop(b);
}

int kt_pq_const(struct kt_pq *w, int c, const char *s)
{
	free(w->c[c].constant);
	w->c[c].constant = strdup(s);
	return w->c[c].constant ? 0 : fail(w, "out of memory");
}

/*
 * The constant columns' chunks, after every row group: a dictionary of one
 * string, and a data page of n indexes 0 (bit width 1, one RLE run).
 */
static int write_constants(struct kt_pq *w)
{
	for (int i = 0; i < w->ncols; i++) {
		struct col *c = &w->c[i];

		if (!c->def.constant)
			continue;
		if (!c->constant)
			return fail(w, "column %s: no value", c->def.name);
		uint32_t l = (uint32_t)strlen(c->constant);

		for (size_t g = 0; g < w->ngroups; g++) {
			w->dict.len = 0;
			put(&w->dict, &l, 4);
			put(&w->dict, c->constant, l);
			w->page.len = 0;
			put_byte(&w->page, 1);
			put_varint(&w->page, (uint64_t)w->group_rows_n[g] << 1);
			put_byte(&w->page, 0);
			if (write_chunk(w, c, g, (size_t)w->group_rows_n[g], &w->dict, 1, &w->page,
					PQ_RLE_DICTIONARY, 0, NULL) < 0)
				return -1;
			w->group_bytes[g] += c->chunks[g].usize;
		}
	}
	return 0;
}

int kt_pq_close(struct kt_pq *w, char *err, size_t errlen)
{
	struct bytes b = { 0 };
	int rc = w->err[0] ? -1 : write_group(w);

	stop_worker(w);
	if (rc == 0 && w->werr[0])
		rc = -1, snprintf(w->err, sizeof(w->err), "%s", w->werr);
	if (rc == 0)
		rc = write_constants(w);

	if (rc == 0) {
		footer(w, &b);
		uint32_t len = (uint32_t)b.len;

		if (b.oom)
			rc = fail(w, "out of memory");
		else if (fwrite(b.p, b.len, 1, w->f) != 1 || fwrite(&len, 4, 1, w->f) != 1 ||
			 fwrite("PAR1", 4, 1, w->f) != 1)
			rc = fail(w, "%s", strerror(errno));
	}
	if (fclose(w->f) != 0 && rc == 0)
		rc = fail(w, "%s", strerror(errno));
	w->f = NULL;
	if (rc < 0) {
		snprintf(err, errlen, "%s", w->err);
		unlink(w->path);
	}
	free(b.p);
	free_w(w);
	return rc;
}

void kt_pq_abort(struct kt_pq *w)
{
	if (!w)
		return;
	stop_worker(w);
	if (w->f)
		fclose(w->f);
	unlink(w->path);
	free_w(w);
}

/* ---------------------------------------------------------------------- */
/* Checking a file's footer before a reader trusts it                      */
/* ---------------------------------------------------------------------- */

/*
 * Why: a reader sizes its structures from the counts the footer declares
 * (DuckDB 1.4.4 allocates 32 bytes per declared list element before it
 * reads one), so a damaged or hostile 2 KB file can ask for gigabytes.
 * Every count and length here must fit in the bytes left, and nesting is
 * bounded: then no declared size exceeds the footer itself.
 */
struct tin {
	const unsigned char *p, *end;
	int bad;
};

static uint64_t t_varint(struct tin *t)
{
	uint64_t v = 0;

	for (int shift = 0; shift < 64; shift += 7) {
		if (t->p >= t->end) {
			t->bad = 1;
			return 0;
		}
		unsigned char c = *t->p++;

		v |= (uint64_t)(c & 0x7F) << shift;
		if (!(c & 0x80))
			return v;
	}
	t->bad = 1;
	return 0;
}

static void t_skip(struct tin *t, size_t n)
{
	if ((size_t)(t->end - t->p) < n)
		t->bad = 1;
	else
		t->p += n;
}

static void t_value(struct tin *t, int type, int depth, int in_list);

static void t_struct(struct tin *t, int depth)
{
	if (depth > 32) {
		t->bad = 1;
		return;
	}
	while (!t->bad) {
		if (t->p >= t->end) {
			t->bad = 1;
			return;
		}
		unsigned char h = *t->p++;

		if (h == 0)
			return;
		if ((h >> 4) == 0)
			t_varint(t);	/* a long-form field id */
		t_value(t, h & 0x0F, depth, 0);
	}
}

static void t_value(struct tin *t, int type, int depth, int in_list)
{
	uint64_t n;

	switch (type) {
	case 1:
	case 2:			/* a bool: in a field header; a byte in a list */
		if (in_list)
			t_skip(t, 1);
		break;
	case 3:
		t_skip(t, 1);
		break;
	case 4:
	case 5:
	case 6:
		t_varint(t);
		break;
	case 7:
		t_skip(t, 8);
		break;
	case 8:
		n = t_varint(t);
		if (!t->bad)
			t_skip(t, n > SIZE_MAX ? SIZE_MAX : (size_t)n);
		break;
	case 9:
	case 10: {
		if (t->p >= t->end || depth > 32) {
			t->bad = 1;
			break;
		}
		unsigned char h = *t->p++;
		int et = h & 0x0F;

		n = h >> 4;
		if (n == 15)
			n = t_varint(t);
		/* Each element takes a byte at least. */
		if (t->bad || n > (uint64_t)(t->end - t->p)) {
			t->bad = 1;
			break;
		}
		for (uint64_t i = 0; i < n && !t->bad; i++)
			t_value(t, et, depth + 1, 1);
		break;
	}
	case 11: {
		n = t_varint(t);
		if (t->bad || n > (uint64_t)(t->end - t->p) / 2 || depth > 32) {
			t->bad = 1;
			break;
		}
		if (n == 0)
			break;
		if (t->p >= t->end) {
			t->bad = 1;
			break;
		}
		unsigned char kv = *t->p++;

		for (uint64_t i = 0; i < n && !t->bad; i++) {
			t_value(t, kv >> 4, depth + 1, 1);
			t_value(t, kv & 0x0F, depth + 1, 1);
		}
		break;
	}
	case 12:
		t_struct(t, depth + 1);
		break;
	default:
		t->bad = 1;
	}
}

int kt_pq_check_footer(FILE *f, const char *path, char *err, size_t errlen)
{
	unsigned char tail[8], head[4];
	long size;
	int rc = -1;

	if (fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < 12 ||
	    fseek(f, 0, SEEK_SET) != 0 || fread(head, 4, 1, f) != 1 ||
	    fseek(f, size - 8, SEEK_SET) != 0 || fread(tail, 8, 1, f) != 1 ||
	    memcmp(head, "PAR1", 4) != 0 || memcmp(tail + 4, "PAR1", 4) != 0) {
		snprintf(err, errlen, "%s: not a Parquet file (no PAR1 at both ends)", path);
		goto out;
	}
	uint32_t len;

	memcpy(&len, tail, 4);
	if (len == 0 || (long)len > size - 12) {
		snprintf(err, errlen, "%s: a footer of %u bytes in a file of %ld", path, len, size);
		goto out;
	}
	unsigned char *buf = malloc(len);

	if (!buf || fseek(f, size - 8 - (long)len, SEEK_SET) != 0 || fread(buf, len, 1, f) != 1) {
		snprintf(err, errlen, "%s: cannot read its footer", path);
		free(buf);
		goto out;
	}
	struct tin t = { buf, buf + len, 0 };

	t_struct(&t, 0);
	if (t.bad)
		snprintf(err, errlen, "%s: a damaged footer (a size beyond its %u bytes)", path, len);
	else
		rc = 0;
	free(buf);
out:
	fclose(f);
	return rc;
}

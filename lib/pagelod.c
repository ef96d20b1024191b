// SPDX-License-Identifier: BSD-3-Clause
/*
 * pagelod.c - the summary a big CPU page carries next to its rows
 * (docs/spec/VIEWER.md 3.4.1), so that the viewer draws its first picture
 * before it has decoded a single row: per CPU row the bins that rowLod
 * (postprocess/viewer/data.js) would make of the rows, at the finest
 * power-of-two width the page keeps (the whole trace in at most
 * PAGE_LOD_BINS bins; the coarser levels the viewer sums itself, as
 * rowLod does), each CPU row's extent as kutrace_view's /api/lodmeta gives
 * it, and the execution spans of two such bins or longer as rows (drawn
 * in full over the bins).  lod.js draws from it with the code that draws
 * the server's bins.
 *
 * Blob layout ("u" little endian u32, "v" zig-zag LEB128 varint):
 *   "KTL1" u:len, the /api/lodmeta JSON with "q" (the bin width in ns)
 *   u:ncpus, per CPU: v:cpu v:nbins, then nbins varints each of: bin
 *     number (the first from the trace's first start, then the
 *     difference from the previous), idle, user and kernel time (10 ns
 *     units), last user and last kernel event + 1 (0: none), spans
 *   u:nlong, then nlong varints each of: start (the first as it is, then
 *     the difference), duration, cpu, pid, rpc, event, arg, retval, ipc
 *     (10 ns units as in the page), then per row v:len and the name
 * Times are whole ns in the bins and 10 ns in the rows, as the page's.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kutrace-local.h"
#include "page-local.h"

/* The finest level: the whole trace in at most this many bins, 4 to 8 per
 * pixel of a canvas up to 4096 px wide at the full view. */
#define PAGE_LOD_BINS (1 << 15)
#define LOD_NCPU 65536
#define END_MAX 99900000000LL	/* 999 s in 10 ns: the original's end marker */
/* Times and durations past 10^6 s (in 10 ns) get no summary: in ns they
 * stay far from overflowing, and exact in the viewer's doubles. */
#define TIME_MAX 100000000000000LL

struct lodcpu {
	int64_t n, first, tmin, tts, tdu;	/* /api/lodmeta's, -1 when none */
	int64_t nb, bin, prev;	/* bins so far, the current bin's number, the one before */
	/* its idle, user, kernel time, last user, kernel event + 1, spans;
	 * unsigned: overlapping spans of a hostile page may add up past 2^63 */
	uint64_t acc[6];
	struct bv col[7];	/* the bins' varints, column by column */
};

/* Every row in order, decoded from the columns: v[0..9] as in pg_pred_row. */
struct lodrd {
	struct rd col[10];
	struct pred pred;
	uint32_t k, n;
};

static void lodrd_init(struct lodrd *r, const struct trace *t)
{
	for (int i = 0; i < 10; i++)
		r->col[i] = (struct rd){ .p = t->col[i].p, .n = t->col[i].len };
	pg_pred_init(&r->pred);
	r->k = 0;
	r->n = t->nrows;
}

static int lodrd_next(struct lodrd *r, int64_t *v)
{
	int64_t c[10];

	if (r->k == r->n)
		return 0;
	r->k++;
	for (int i = 0; i < 10; i++) {
		c[i] = rd_varint(&r->col[i]);
		if (r->col[i].bad)
			return -1;
	}
	pg_pred_row(&r->pred, v, c, 1);
	return 1;
}

/* The current bin of c into its columns. */
static void bin_out(struct lodcpu *c)
{
	if (c->bin < 0)
		return;
	bv_varint(&c->col[0], c->bin - c->prev);
	c->prev = c->bin;
	for (int i = 0; i < 6; i++)
		bv_varint(&c->col[i + 1], (int64_t)c->acc[i]);
	memset(c->acc, 0, sizeof(c->acc));
	c->nb++;
}

/* Pass 1: the extents, as /api/lodmeta's, into cpu[]; 0 when the rows are
 * in time order, on CPUs below LOD_NCPU and of times within TIME_MAX, 1
 * when not (no summary), -1 on a bad column. */
static int lod_extents(const struct trace *t, struct lodcpu **cpu, int64_t *t0, int64_t *ets,
		       int64_t *edu)
{
	struct lodrd r;
	int64_t v[10], prev_ts = INT64_MIN;
	int got, rc = 1;

	*t0 = INT64_MAX;
	*ets = -1;
	*edu = 0;
	lodrd_init(&r, t);
	while ((got = lodrd_next(&r, v)) > 0) {
		if (v[0] < prev_ts || v[2] >= LOD_NCPU || v[0] < 0 || v[0] > TIME_MAX || v[1] < 0 ||
		    v[1] > TIME_MAX)
			goto out;
		prev_ts = v[0];
		if (v[0] < *t0)
			*t0 = v[0];
		int64_t end = v[0] + v[1];

		if (end < END_MAX && (*ets < 0 || end > *ets + *edu)) {
			*ets = v[0];
			*edu = v[1];
		}
		if (v[2] < 0 || v[5] < 0)
			continue;
		struct lodcpu *c = cpu[v[2]];

		if (!c) {
			c = cpu[v[2]] = kt_xcalloc(1, sizeof(*c));
			c->first = c->tmin = c->tts = c->bin = -1;
		}
		if (pg_exec_event(v[5]) && !c->n++)
			c->first = v[0];
		if (v[5] != KUTRACE_LEFTMARK && v[5] != KUTRACE_RIGHTMARK) {
			if (c->tmin < 0)
				c->tmin = v[0];
			if (c->tts < 0 || end > c->tts + c->tdu) {
				c->tts = v[0];
				c->tdu = v[1];
			}
		}
	}
	rc = got < 0 ? -1 : 0;
out:
	pg_pred_free(&r.pred);
	return rc;
}

int pg_lod_blob(const struct trace *t, uint64_t min_rows, struct bv *out)
{
	struct lodrd r;
	struct lodcpu **cpu;
	struct bv lng[9] = { { 0 } }, names = { 0 };
	struct kt_buf meta = { 0 };
	int64_t v[10], t0, ets, edu, q = 1, lts = 0;
	uint32_t nlong = 0, ncpu = 0;
	int got = -1;

	out->len = 0;
	if (t->nrows == 0 || t->nrows < min_rows)
		return 0;
	cpu = kt_xcalloc(LOD_NCPU, sizeof(*cpu));
	int ext = lod_extents(t, cpu, &t0, &ets, &edu);

	if (ext) {
		got = ext < 0 ? -1 : 0;
		goto out;
	}
	/* The bin width in ns: the whole trace (to its last end) in PAGE_LOD_BINS. */
	while (q < (int64_t)1 << 40 && ((ets >= 0 ? ets + edu : t0) - t0) * 10 / q > PAGE_LOD_BINS)
		q *= 2;
	/* Pass 2: the bins (times in ns, as rowLod's), and the long spans. */
	lodrd_init(&r, t);
	while ((got = lodrd_next(&r, v)) > 0) {
		if (v[2] < 0 || !pg_exec_event(v[5]))
			continue;
		struct lodcpu *c = cpu[v[2]];
		int64_t b = (v[0] - t0) * 10 / q;

		if (b != c->bin) {
			bin_out(c);
			c->bin = b;
		}
		if (v[5] == KUTRACE_IDLE || v[5] == KUTRACE_C_EXIT) {
			c->acc[0] += (uint64_t)v[1];
		} else if (v[5] > KUTRACE_IDLE) {
			c->acc[1] += (uint64_t)v[1];
			c->acc[3] = (uint64_t)v[5] + 1;
		} else {
			c->acc[2] += (uint64_t)v[1];
			c->acc[4] = (uint64_t)v[5] + 1;
		}
		c->acc[5]++;
		if (v[1] * 10 >= 2 * q) {
			uint32_t nm = (uint32_t)v[9];
			size_t sl = nm < t->names.n ? t->names.len[nm] : 0;

			bv_varint(&lng[0], v[0] - lts);
			lts = v[0];
			for (int i = 1; i < 9; i++)
				bv_varint(&lng[i], v[i]);
			bv_varint(&names, (int64_t)sl);
			bv_add(&names, sl ? pg_strtab_at(&t->names, nm) : "", sl);
			nlong++;
		}
	}
	pg_pred_free(&r.pred);
	if (got < 0)
		goto out;
	/* The extents as /api/lodmeta gives them (10 ns units), and q. */
	kt_buf_printf(&meta, "{\"n\":%u,\"t0\":%" PRId64 ",\"end\":[%" PRId64 ",%" PRId64 "],\"q\":%" PRId64
		     ",\"cpus\":[", t->nrows, t0, ets, ets >= 0 ? edu : 0, q);
	for (int i = 0; i < LOD_NCPU; i++) {
		struct lodcpu *c = cpu[i];

		if (!c)
			continue;
		bin_out(c);
		kt_buf_printf(&meta, "%s[%d,%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 "]",
			     ncpu++ ? "," : "", i, c->n, c->first, c->tmin, c->tts, c->tts >= 0 ? c->tdu : 0);
	}
	kt_buf_puts(&meta, "]}");
	bv_add(out, "KTL1", 4);
	bv_u32(out, (uint32_t)meta.len);
	bv_add(out, meta.p, meta.len);
	bv_u32(out, ncpu);
	for (int i = 0; i < LOD_NCPU; i++) {
		if (!cpu[i])
			continue;
		bv_varint(out, i);
		bv_varint(out, cpu[i]->nb);
		for (int k = 0; k < 7; k++)
			bv_add(out, cpu[i]->col[k].p, cpu[i]->col[k].len);
	}
	bv_u32(out, nlong);
	for (int k = 0; k < 9; k++)
		bv_add(out, lng[k].p, lng[k].len);
	bv_add(out, names.p, names.len);
out:
	for (int i = 0; i < LOD_NCPU; i++) {
		if (!cpu[i])
			continue;
		for (int k = 0; k < 7; k++)
			bv_free(&cpu[i]->col[k]);
		free(cpu[i]);
	}
	free(cpu);
	for (int k = 0; k < 9; k++)
		bv_free(&lng[k]);
	bv_free(&names);
	kt_buf_free(&meta);
	return got < 0 ? -1 : 0;
}

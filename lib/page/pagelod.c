// SPDX-License-Identifier: BSD-3-Clause
/*
 * pagelod.c - the summary a big CPU page carries next to its rows
 * (docs/spec/VIEWER.md 3.4.1), so that the viewer draws its first picture
 * before it has decoded a single row: per CPU row the bins that rowLod
 * (viewer/data.js) would make of the rows, at the finest
 * power-of-two width the page keeps (the whole trace in at most
 * PAGE_LOD_BINS bins; the coarser levels the viewer sums itself, as
 * rowLod does), per PID row of PID_LOD_MIN execution spans or more the
 * same at twice that width (about a quarter pixel at the full view of a
 * canvas up to 2048 px wide: a PID row's bins are most of the summary),
 * each CPU and PID row's extent as kutrace_view's /api/lodmeta gives it,
 * and the execution spans of two CPU bins or longer as rows (drawn in
 * full over the bins).  lod.js draws from it with the code that draws
 * the server's bins.
 *
 * Blob layout ("u" little endian u32, "v" zig-zag LEB128 varint):
 *   "KTL2" u:len, the /api/lodmeta JSON with "q" and "qp" (the CPU and
 *     PID bin widths in ns)
 *   u:ncpus, per CPU: v:cpu v:nbins, then nbins varints each of: bin
 *     number (the first from the trace's first start, then the
 *     difference from the previous), idle, user and kernel time (10 ns
 *     units), last user and last kernel event + 1 (0: none), spans
 *   u:npids, per PID row with bins: v:pid v:nbins, then as a CPU's
 *   u:nlong, then nlong varints each of: start (the first as it is, then
 *     the difference), duration, cpu, pid, rpc, event, arg, retval, ipc
 *     (10 ns units as in the page), then per row v:len and the name
 * Times are whole ns in the bins and 10 ns in the rows, as the page's.
 * A PID row (data.js buildRows) is a pid > 0 with a user-mode span or a
 * left/right mark; its spans are those of event >= 0 but the marks, on
 * any CPU; its label the name of the first of those user spans or marks.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rows.h"
#include "page-local.h"

/* The finest level: the whole trace in at most this many bins, 4 to 8 per
 * pixel of a canvas up to 4096 px wide at the full view. */
#define PAGE_LOD_BINS (1 << 15)
/* PID rows get bins from this many execution spans (rowLod's threshold). */
#define PID_LOD_MIN 256
/* A page of more threads than this (pids > 0) gets no summary: a hostile
 * page of a pid per row would otherwise cost a row's state per row. */
#define PID_MAX (1 << 18)
#define LOD_NCPU 65536
#define END_MAX 99900000000LL	/* 999 s in 10 ns: the original's end marker */
/* Times and durations past 10^6 s (in 10 ns) get no summary: in ns they
 * stay far from overflowing, and exact in the viewer's doubles. */
#define TIME_MAX 100000000000000LL

/* A CPU or PID row. */
struct lodrow {
	int64_t n, first, tmin, tts, tdu;	/* /api/lodmeta's, -1 when none */
	int64_t id, label;	/* cpu or pid; a PID row's name index, -1 not a row */
	int64_t nb, bin, prev;	/* bins so far, the current bin's number, the one before */
	/* its idle, user, kernel time, last user, kernel event + 1, spans;
	 * unsigned: overlapping spans of a hostile page may add up past 2^63 */
	uint64_t acc[6];
	struct bv col[7];	/* the bins' varints, column by column */
};

static struct lodrow *row_new(int64_t id)
{
	struct lodrow *c = kt_xcalloc(1, sizeof(*c));

	c->first = c->tmin = c->tts = c->bin = c->label = -1;
	c->id = id;
	return c;
}

static void row_free(struct lodrow *c)
{
	for (int k = 0; k < 7; k++)
		bv_free(&c->col[k]);
	free(c);
}

/* The PID rows: pid -> row, open addressing (pids are sparse 31-bit). */
struct pidtab {
	struct lodrow **slot;
	size_t cap, n;
};

static struct lodrow *pid_get(struct pidtab *t, int64_t pid)
{
	if (2 * (t->n + 1) > t->cap) {
		struct pidtab g = { .cap = t->cap ? 2 * t->cap : 1024 };

		g.slot = kt_xcalloc(g.cap, sizeof(*g.slot));
		for (size_t i = 0; i < t->cap; i++) {
			struct lodrow *c = t->slot[i];
			size_t h;

			if (!c)
				continue;
			for (h = ((uint64_t)c->id * 0x9E3779B97F4A7C15ull) >> 20 & (g.cap - 1); g.slot[h];)
				h = (h + 1) & (g.cap - 1);
			g.slot[h] = c;
		}
		free(t->slot);
		t->slot = g.slot;
		t->cap = g.cap;
	}
	size_t h = ((uint64_t)pid * 0x9E3779B97F4A7C15ull) >> 20 & (t->cap - 1);

	for (; t->slot[h]; h = (h + 1) & (t->cap - 1))
		if (t->slot[h]->id == pid)
			return t->slot[h];
	t->n++;
	return t->slot[h] = row_new(pid);
}

static int by_id(const void *a, const void *b)
{
	const struct lodrow *x = *(struct lodrow *const *)a, *y = *(struct lodrow *const *)b;

	return (x->id > y->id) - (x->id < y->id);
}

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
static void bin_out(struct lodrow *c)
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

/* An execution span (v) into the bin b of c. */
static void bin_add(struct lodrow *c, const int64_t *v, int64_t b)
{
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
}

/* A row's extent (v: a span of it, end its end), as /api/lodmeta's. */
static void extent_add(struct lodrow *c, const int64_t *v, int64_t end)
{
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

/* Pass 1: the extents, as /api/lodmeta's, into cpu[] and pids; 0 when the
 * rows are in time order, on CPUs below LOD_NCPU, of times within
 * TIME_MAX and of at most PID_MAX threads, 1 when not (no summary), -1 on
 * a bad column. */
static int lod_extents(const struct trace *t, struct lodrow **cpu, struct pidtab *pids, int64_t *t0,
		       int64_t *ets, int64_t *edu)
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
		if (v[5] < 0)
			continue;
		if (v[3] > 0) {
			struct lodrow *p = pid_get(pids, v[3]);

			if (pids->n > PID_MAX)
				goto out;
			if (p->label < 0 && ((v[5] > KUTRACE_IDLE && v[5] < KUTRACE_C_EXIT) ||
					     v[5] == KUTRACE_LEFTMARK || v[5] == KUTRACE_RIGHTMARK))
				p->label = v[9];
			extent_add(p, v, end);
		}
		if (v[2] < 0)
			continue;
		if (!cpu[v[2]])
			cpu[v[2]] = row_new(v[2]);
		extent_add(cpu[v[2]], v, end);
	}
	rc = got < 0 ? -1 : 0;
out:
	pg_pred_free(&r.pred);
	return rc;
}

/* s as a JSON string into b. */
static void json_str(struct kt_buf *b, const char *s, size_t n)
{
	char *e = kt_xmalloc(6 * n + 1);

	kt_buf_puts(b, "\"");
	kt_buf_add(b, e, kt_json_escape_mem(e, s, n));
	kt_buf_puts(b, "\"");
	free(e);
}

/* The bins of rows (n of them, those with bins) after u:n. */
static void bins_out(struct bv *out, struct lodrow **rows, size_t n)
{
	bv_u32(out, (uint32_t)n);
	for (size_t i = 0; i < n; i++) {
		bv_varint(out, rows[i]->id);
		bv_varint(out, rows[i]->nb);
		for (int k = 0; k < 7; k++)
			bv_add(out, rows[i]->col[k].p, rows[i]->col[k].len);
	}
}

int pg_lod_blob(const struct trace *t, uint64_t min_rows, struct bv *out)
{
	struct lodrd r;
	struct lodrow **cpu, **prow = NULL;
	struct pidtab pids = { 0 };
	struct bv lng[9] = { { 0 } }, names = { 0 };
	struct kt_buf meta = { 0 };
	int64_t v[10], t0, ets, edu, q = 1, qp, lts = 0;
	uint32_t nlong = 0, ncpu = 0;
	size_t npid = 0, nbin = 0;
	int got = -1;

	out->len = 0;
	if (t->nrows == 0 || t->nrows < min_rows)
		return 0;
	cpu = kt_xcalloc(LOD_NCPU, sizeof(*cpu));
	int ext = lod_extents(t, cpu, &pids, &t0, &ets, &edu);

	if (ext) {
		got = ext < 0 ? -1 : 0;
		goto out;
	}
	/* The PID rows in pid order (as the viewer's), the others dropped. */
	prow = kt_xcalloc(pids.n + 1, sizeof(*prow));
	for (size_t i = 0; i < pids.cap; i++) {
		struct lodrow *p = pids.slot[i];

		if (p && p->label >= 0)
			prow[npid++] = p;
		else if (p)
			row_free(p);
		pids.slot[i] = NULL;
	}
	qsort(prow, npid, sizeof(*prow), by_id);
	for (size_t i = 0; i < npid; i++)
		pids.slot[i] = prow[i];	/* (only a list from here on: looked up by bsearch) */
	/* The bin width in ns: the whole trace (to its last end) in PAGE_LOD_BINS. */
	while (q < (int64_t)1 << 40 && ((ets >= 0 ? ets + edu : t0) - t0) * 10 / q > PAGE_LOD_BINS)
		q *= 2;
	qp = 2 * q;
	/* Pass 2: the bins (times in ns, as rowLod's), and the long spans. */
	lodrd_init(&r, t);
	while ((got = lodrd_next(&r, v)) > 0) {
		if (!pg_exec_event(v[5]))
			continue;
		struct lodrow *p = NULL;

		if (v[3] > 0) {
			struct lodrow key = { .id = v[3] }, *kp = &key, **f;

			f = bsearch(&kp, prow, npid, sizeof(*prow), by_id);
			p = f ? *f : NULL;
		}
		if (v[2] < 0 && !p)
			continue;
		if (v[2] >= 0)
			bin_add(cpu[v[2]], v, (v[0] - t0) * 10 / q);
		if (p && p->n >= PID_LOD_MIN)
			bin_add(p, v, (v[0] - t0) * 10 / qp);
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
		     ",\"qp\":%" PRId64 ",\"cpus\":[", t->nrows, t0, ets, ets >= 0 ? edu : 0, q, qp);
	for (int i = 0; i < LOD_NCPU; i++) {
		struct lodrow *c = cpu[i];

		if (!c)
			continue;
		bin_out(c);
		cpu[ncpu] = c;	/* packed in cpu order: only a list from here on */
		if (ncpu != (uint32_t)i)
			cpu[i] = NULL;
		kt_buf_printf(&meta, "%s[%d,%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 "]",
			     ncpu++ ? "," : "", i, c->n, c->first, c->tmin, c->tts, c->tts >= 0 ? c->tdu : 0);
	}
	kt_buf_puts(&meta, "],\"pids\":[");
	for (size_t i = 0; i < npid; i++) {
		struct lodrow *c = prow[i];
		uint32_t nm = (uint32_t)c->label;

		bin_out(c);
		kt_buf_printf(&meta, "%s[%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",",
			     i ? "," : "", c->id, c->n, c->first, c->tmin, c->tts, c->tts >= 0 ? c->tdu : 0);
		if (nm < t->names.n)
			json_str(&meta, pg_strtab_at(&t->names, nm), t->names.len[nm]);
		else
			kt_buf_puts(&meta, "\"\"");
		kt_buf_puts(&meta, "]");
		if (c->nb)
			prow[nbin++] = c;	/* (the rows without bins stay in pids.slot) */
	}
	kt_buf_puts(&meta, "]}");
	bv_add(out, "KTL2", 4);
	bv_u32(out, (uint32_t)meta.len);
	bv_add(out, meta.p, meta.len);
	bins_out(out, cpu, ncpu);
	bins_out(out, prow, nbin);
	bv_u32(out, nlong);
	for (int k = 0; k < 9; k++)
		bv_add(out, lng[k].p, lng[k].len);
	bv_add(out, names.p, names.len);
out:
	for (int i = 0; i < LOD_NCPU; i++)
		if (cpu[i])
			row_free(cpu[i]);
	free(cpu);
	for (size_t i = 0; i < pids.cap; i++)
		if (pids.slot[i])
			row_free(pids.slot[i]);
	free(pids.slot);
	free(prow);
	for (int k = 0; k < 9; k++)
		bv_free(&lng[k]);
	bv_free(&names);
	kt_buf_free(&meta);
	return got < 0 ? -1 : 0;
}

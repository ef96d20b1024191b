// SPDX-License-Identifier: BSD-3-Clause
/*
 * lodw.c - the viewer's level of detail (STORE/lod/, storeview.c's
 * kt_store_lod_pyramid and kt_store_lod_meta) made as the span rows are
 * written, so that a new store is ready to view without a pass of SQL.
 *
 * The files are those the SQL makes, value for value: the bins of each
 * level, the long rows, meta (t0, t1 and /api/lodmeta's answer) and
 * levels, written last.  That needs the rows in time order (the row
 * stream's): the first start is t0 from the first row on, and a bin is
 * complete once a row starts after it.  q0, the width of level 0, comes
 * from the latest end, known only at the end: the bins are kept at the
 * width the latest end so far asks for, never wider than q0, and merged
 * two into one whenever it doubles (bins are powers of two wide from t0,
 * so a bin of 2q is exactly two of q).  Rows out of time order, or
 * values the SQL would refuse, make the pass give up: no lod/ is
 * written and the viewer makes it with SQL, as for older stores.
 *
 * Ties: a bin's last user and kernel events are those of its latest row
 * of the kind, the later one in the store's order among rows of the same
 * start (the SQL's arg_max over ts and the row number, LOD_BIN_COLS).
 *
 * Memory: the completed bins of level 0 (at most 2^18 per CPU, and per
 * PID or RPC no more than its rows), the rows that may still be long,
 * and one entry per CPU, PID and RPC.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "parquet.h"
#include "store.h"

/* The SQL's constants (storeview.c): the filter of the latest end, the
 * bins of level 0, the widest q0. */
#define END_MAX 999000000000LL
#define BINS_MAX ((int64_t)1 << 18)
#define Q_MAX ((int64_t)1 << 40)
#define T_MAX ((int64_t)1 << 61)
#define GROUP 122880

static int exec_ev(int32_t e)
{
	return (e >= 0 && e < 512) || (e >= 1024 && e < 4096) || e >= 65536;
}

static int mark_ev(int32_t e)
{
	return e == 526 || e == 527;
}

/* ---- int64 -> dense index, in the order of first insertion ---- */
struct idmap {
	int64_t *keys;		/* dense */
	uint32_t *slot_of;	/* dense index -> slot, for a quick clear */
	uint32_t *slots;	/* 0 empty, else dense index + 1 */
	size_t n, cap;		/* dense count, slots (a power of two) */
};

static uint32_t hash64(int64_t k)
{
	uint64_t x = (uint64_t)k * 0x9E3779B97F4A7C15ull;

	return (uint32_t)(x >> 32);
}

static int idmap_grow(struct idmap *m)
{
	size_t cap = m->cap ? m->cap * 2 : 64;
	uint32_t *s = calloc(cap, sizeof(*s));
	int64_t *k = realloc(m->keys, cap / 2 * sizeof(*k));
	uint32_t *so = realloc(m->slot_of, cap / 2 * sizeof(*so));

	if (k)
		m->keys = k;
	if (so)
		m->slot_of = so;
	if (!s || !k || !so) {
		free(s);
		return -1;
	}
	for (size_t i = 0; i < m->n; i++) {
		size_t j = hash64(m->keys[i]) & (cap - 1);

		while (s[j])
			j = (j + 1) & (cap - 1);
		s[j] = (uint32_t)i + 1;
		m->slot_of[i] = (uint32_t)j;
	}
	free(m->slots);
	m->slots = s;
	m->cap = cap;
	return 0;
}

/* The dense index of k, added if new (*added set); -1 out of memory. */
static long idmap_get(struct idmap *m, int64_t k, int *added)
{
	*added = 0;
	if ((m->n + 1) * 2 > m->cap && idmap_grow(m) < 0)
		return -1;
	size_t j = hash64(k) & (m->cap - 1);

	for (; m->slots[j]; j = (j + 1) & (m->cap - 1))
		if (m->keys[m->slots[j] - 1] == k)
			return (long)m->slots[j] - 1;
	m->keys[m->n] = k;
	m->slot_of[m->n] = (uint32_t)j;
	m->slots[j] = (uint32_t)++m->n;
	*added = 1;
	return (long)m->n - 1;
}

/* The dense index of k, or -1. */
static long idmap_find(const struct idmap *m, int64_t k)
{
	if (!m->cap)
		return -1;
	for (size_t j = hash64(k) & (m->cap - 1); m->slots[j]; j = (j + 1) & (m->cap - 1))
		if (m->keys[m->slots[j] - 1] == k)
			return (long)m->slots[j] - 1;
	return -1;
}

static void idmap_clear(struct idmap *m)
{
	for (size_t i = 0; i < m->n; i++)
		m->slots[m->slot_of[i]] = 0;
	m->n = 0;
}

static void idmap_free(struct idmap *m)
{
	free(m->keys);
	free(m->slot_of);
	free(m->slots);
}

/* ---- a row's extent in /api/lodmeta (put_extent's five numbers) ---- */
struct ext {
	int64_t n_exec, min_exec, min_ts, end, end_ts, end_dur;	/* INT64_MAX: none */
	const char *label;	/* PID: the first user-mode span or mark's name */
	int32_t id;
	int pidrow;
};

static void ext_init(struct ext *x, int32_t id)
{
	*x = (struct ext){ .min_exec = INT64_MAX, .min_ts = INT64_MAX, .end_ts = INT64_MAX, .id = id };
}

static void ext_row(struct ext *x, int64_t ts, int64_t dur, int32_t ev)
{
	if (exec_ev(ev)) {
		x->n_exec++;
		if (ts < x->min_exec)
			x->min_exec = ts;
	}
	if (mark_ev(ev))
		return;
	if (ts < x->min_ts)
		x->min_ts = ts;
	/* the first of the rows ending last */
	if (x->end_ts == INT64_MAX || ts + dur > x->end) {
		x->end = ts + dur;
		x->end_ts = ts;
		x->end_dur = dur;
	}
}

/* An RPC row: its id's first point or mark, and the longest name. */
struct rpcl {
	const char *label;
	size_t len;		/* in code points, as DuckDB's length() */
};

/* ---- bins ---- */
struct bin {
	int64_t b, i, u, kn, tu, tk, c;
	int32_t id, eu, ek;	/* eu, ek -1: none (NULL) */
};

/* The later of two pieces of one bin (from a and b, a earlier in time)
 * into a. */
static void bin_add(struct bin *a, const struct bin *l)
{
	a->i += l->i;
	a->u += l->u;
	a->kn += l->kn;
	a->c += l->c;
	if (l->eu >= 0) {
		a->eu = l->eu;
		a->tu = l->tu;
	}
	if (l->ek >= 0) {
		a->ek = l->ek;
		a->tk = l->tk;
	}
}

struct binvec {
	struct bin *v;
	size_t n, cap;
};

static int binvec_push(struct binvec *bv, const struct bin *x)
{
	if (bv->n == bv->cap) {
		size_t cap = bv->cap ? bv->cap * 2 : 4096;
		struct bin *v = realloc(bv->v, cap * sizeof(*v));

		if (!v)
			return -1;
		bv->v = v;
		bv->cap = cap;
	}
	bv->v[bv->n++] = *x;
	return 0;
}

/* One kind of rows (CPU, PID, RPC): the bins done (by b, id) and those
 * of the bin rows go into now (cur). */
struct kindw {
	struct binvec done;
	struct idmap ids;	/* of cur */
	struct bin *cur;
	size_t curcap;
	int64_t b;		/* cur's bin */
};

static int by_id(const void *a, const void *b)
{
	const struct bin *x = a, *y = b;

	return (x->id > y->id) - (x->id < y->id);
}

/* cur, by id, onto done. */
static int kind_flush(struct kindw *k)
{
	qsort(k->cur, k->ids.n, sizeof(*k->cur), by_id);
	for (size_t i = 0; i < k->ids.n; i++)
		if (binvec_push(&k->done, &k->cur[i]) < 0)
			return -1;
	idmap_clear(&k->ids);
	return 0;
}

/* The entry of id in cur (added empty if new); NULL out of memory. */
static struct bin *kind_entry(struct kindw *k, int32_t id)
{
	int added;
	long i = idmap_get(&k->ids, id, &added);

	if (i < 0)
		return NULL;
	if ((size_t)i >= k->curcap) {
		size_t cap = k->curcap ? k->curcap * 2 : 64;
		struct bin *c = realloc(k->cur, cap * sizeof(*c));

		if (!c)
			return NULL;
		k->cur = c;
		k->curcap = cap;
	}
	if (added)
		k->cur[i] = (struct bin){ .b = k->b, .id = id, .eu = -1, .ek = -1 };
	return &k->cur[i];
}

/* done's bins twice as wide (b / 2): each pair of a bin's runs merged by
 * id, in place; scratch holds two runs. */
static int binvec_halve(struct binvec *bv, struct binvec *scratch)
{
	size_t r = 0, w = 0;

	while (r < bv->n) {
		int64_t nb = bv->v[r].b >> 1;
		size_t a0 = r, a1, b1;

		while (r < bv->n && bv->v[r].b == 2 * nb)
			r++;
		a1 = r;
		while (r < bv->n && bv->v[r].b == 2 * nb + 1)
			r++;
		b1 = r;
		scratch->n = 0;
		size_t i = a0, j = a1;

		while (i < a1 || j < b1) {
			struct bin x;

			if (j == b1 || (i < a1 && bv->v[i].id < bv->v[j].id)) {
				x = bv->v[i++];
			} else if (i == a1 || bv->v[j].id < bv->v[i].id) {
				x = bv->v[j++];
			} else {
				x = bv->v[i++];
				bin_add(&x, &bv->v[j++]);
			}
			x.b = nb;
			if (binvec_push(scratch, &x) < 0)
				return -1;
		}
		memcpy(bv->v + w, scratch->v, scratch->n * sizeof(*scratch->v));
		w += scratch->n;
	}
	bv->n = w;
	return 0;
}

/* A row that may be long (dur >= 2 q0): with its row number and name. */
struct longrow {
	struct kt_row r;
	int64_t rn;
};

struct kt_lodw {
	int off;		/* given up: no lod/ (rows out of order, no memory) */
	int64_t rows, t0, last_ts;
	int64_t end, end_ts, end_dur;	/* the latest end below END_MAX; end_ts INT64_MAX: none */
	int shift;		/* the bins are 2^shift ns wide */
	struct kindw kind[3];
	struct binvec scratch;
	struct longrow *lng;
	size_t nlng, caplng;
	struct idmap cpus, pids, rpcx, rpcs;	/* extents by id; RPC labels by id */
	struct ext *cpu_x, *pid_x, *rpc_x;
	struct rpcl *rpc_l;
	size_t cap_cpu, cap_pid, cap_rpcx, cap_rpcl;
};

struct kt_lodw *kt_lodw_new(void)
{
	struct kt_lodw *l = calloc(1, sizeof(*l));

	if (l)
		l->end_ts = INT64_MAX;
	return l;
}

static void give_up(struct kt_lodw *l)
{
	l->off = 1;
	for (int g = 0; g < 3; g++) {
		free(l->kind[g].done.v);
		free(l->kind[g].cur);
		idmap_free(&l->kind[g].ids);
	}
	free(l->scratch.v);
	free(l->lng);
	idmap_free(&l->cpus);
	idmap_free(&l->pids);
	idmap_free(&l->rpcx);
	idmap_free(&l->rpcs);
	free(l->cpu_x);
	free(l->pid_x);
	free(l->rpc_x);
	free(l->rpc_l);
	int64_t rows = l->rows;

	*l = (struct kt_lodw){ .off = 1, .rows = rows };
}

void kt_lodw_free(struct kt_lodw *l)
{
	if (l) {
		give_up(l);
		free(l);
	}
}

/* The extent of id in m (xs, cap: its array); NULL out of memory. */
static struct ext *ext_of(struct idmap *m, struct ext **xs, size_t *cap, int32_t id)
{
	int added;
	long i = idmap_get(m, id, &added);

	if (i < 0)
		return NULL;
	if ((size_t)i >= *cap) {
		size_t c = *cap ? *cap * 2 : 64;
		struct ext *x = realloc(*xs, c * sizeof(*x));

		if (!x)
			return NULL;
		*xs = x;
		*cap = c;
	}
	if (added)
		ext_init(&(*xs)[i], id);
	return &(*xs)[i];
}

/* q0 as kt_store_lod_pyramid computes it from t0 and t1, as a shift. */
static int q_shift(int64_t t0, int64_t t1)
{
	int s = 0;

	while (((int64_t)1 << s) < Q_MAX && (t1 - t0) / ((int64_t)1 << s) > BINS_MAX)
		s++;
	return s;
}

static int64_t t1_of(const struct kt_lodw *l)
{
	return l->end_ts != INT64_MAX ? l->end : l->t0 + 1;
}

/* Every kind's bins at 2^s ns; the rows no longer possibly long dropped. */
static int widen(struct kt_lodw *l, int s)
{
	for (; l->shift < s; l->shift++) {
		for (int g = 0; g < 3; g++) {
			struct kindw *k = &l->kind[g];

			if (binvec_halve(&k->done, &l->scratch) < 0)
				return -1;
			k->b >>= 1;
			for (size_t i = 0; i < k->ids.n; i++)
				k->cur[i].b = k->b;
			/* done's last bin may now be cur's: its rows are earlier */
			while (k->done.n && k->done.v[k->done.n - 1].b == k->b) {
				struct bin last = k->done.v[--k->done.n], *e = kind_entry(k, last.id);

				if (!e)
					return -1;
				bin_add(&last, e);
				*e = last;
			}
		}
	}
	size_t w = 0;

	for (size_t i = 0; i < l->nlng; i++)
		if (l->lng[i].r.dur * 10 >= (int64_t)2 << l->shift)
			l->lng[w++] = l->lng[i];
	l->nlng = w;
	return 0;
}

static int row(struct kt_lodw *l, const struct kt_row *r)
{
	int64_t rn = l->rows, ts = r->start * 10, dur = r->dur * 10, end = ts + dur;
	int32_t ev = r->event;

	if (rn == 0)
		l->t0 = l->last_ts = ts;
	if (ts < l->last_ts)
		return -1;	/* out of time order */
	l->last_ts = ts;
	if (end < END_MAX && (l->end_ts == INT64_MAX || end > l->end)) {
		l->end = end;
		l->end_ts = ts;
		l->end_dur = dur;
	}
	int64_t t1 = t1_of(l);

	/* q0 of the latest end so far: wider only when the trace outgrows
	 * 2^18 bins of the present width (a shift, not q_shift's divisions,
	 * on every row). */
	if (t1 >= l->t0 && t1 <= T_MAX && ((t1 - l->t0) >> l->shift) > BINS_MAX &&
	    ((int64_t)1 << l->shift) < Q_MAX && widen(l, q_shift(l->t0, t1)) < 0)
		return -1;
	/* Bins: the execution rows of a CPU, a PID, an RPC. */
	if (exec_ev(ev)) {
		int32_t ids[3] = { r->cpu, r->pid, r->rpc };
		int64_t b = (ts - l->t0) >> l->shift;
		int kd = ev == 65536 || ev == 131072 ? 0 : ev > 65536 ? 1 : 2;

		for (int g = 0; g < 3; g++) {
			struct kindw *k = &l->kind[g];

			if (g == 0 ? ids[g] < 0 : ids[g] <= 0)
				continue;
			if (b != k->b && k->ids.n && kind_flush(k) < 0)
				return -1;
			k->b = b;
			struct bin *e = kind_entry(k, ids[g]);

			if (!e)
				return -1;
			e->c++;
			if (kd == 0) {
				e->i += dur;
			} else if (kd == 1) {
				e->u += dur;
				e->eu = ev;
				e->tu = ts;
			} else {
				e->kn += dur;
				e->ek = ev;
				e->tk = ts;
			}
		}
	}
	/* Rows that may be long: q0 is 2^shift or wider. */
	if (dur >= (int64_t)2 << l->shift) {
		if (l->nlng == l->caplng) {
			size_t c = l->caplng ? l->caplng * 2 : 1024;
			struct longrow *v = realloc(l->lng, c * sizeof(*v));

			if (!v)
				return -1;
			l->lng = v;
			l->caplng = c;
		}
		l->lng[l->nlng++] = (struct longrow){ .r = *r, .rn = rn };
	}
	/* /api/lodmeta's rows. */
	if (ev < 0)
		return 0;
	if (r->cpu >= 0) {
		struct ext *x = ext_of(&l->cpus, &l->cpu_x, &l->cap_cpu, r->cpu);

		if (!x)
			return -1;
		ext_row(x, ts, dur, ev);
	}
	if (r->pid > 0) {
		struct ext *x = ext_of(&l->pids, &l->pid_x, &l->cap_pid, r->pid);

		if (!x)
			return -1;
		ext_row(x, ts, dur, ev);
		if (!x->pidrow && ((ev > 65536 && ev < 131072) || mark_ev(ev))) {
			x->pidrow = 1;
			x->label = r->name ? r->name : "";
		}
	}
	if (r->rpc > 0) {
		struct ext *x = ext_of(&l->rpcx, &l->rpc_x, &l->cap_rpcx, r->rpc);

		if (!x)
			return -1;
		ext_row(x, ts, dur, ev);
	}
	const char *nm = r->name ? r->name : "";

	if (((ev >= 513 && ev <= 515) || (mark_ev(ev) && r->rpc > 0)) && strcmp(nm, ".0") != 0) {
		int64_t id = mark_ev(ev) ? r->rpc : r->arg;

		if (id <= 0)
			return 0;
		if (id > INT32_MAX)
			return -1;	/* the SQL's id::INTEGER fails on it */
		int added;
		long i = idmap_get(&l->rpcs, id, &added);

		if (i < 0)
			return -1;
		if ((size_t)i >= l->cap_rpcl) {
			size_t c = l->cap_rpcl ? l->cap_rpcl * 2 : 64;
			struct rpcl *v = realloc(l->rpc_l, c * sizeof(*v));

			if (!v)
				return -1;
			l->rpc_l = v;
			l->cap_rpcl = c;
		}
		size_t len = 0;

		for (const char *p = nm; *p; p++)
			len += ((unsigned char)*p & 0xC0) != 0x80;
		if (added || len > l->rpc_l[i].len)
			l->rpc_l[i] = (struct rpcl){ .label = nm, .len = len };
	}
	return 0;
}

void kt_lodw_row(struct kt_lodw *l, const struct kt_row *r)
{
	if (!l->off && row(l, r) < 0)
		give_up(l);
	l->rows++;
}

/* ---- the files ---- */

static void put_ext(struct kt_buf *out, const struct ext *x)
{
	kt_buf_printf(out, ",%" PRId64, x->n_exec);
	const int64_t v[4] = { x->min_exec, x->min_ts, x->end_ts, x->end_dur };

	for (int k = 0; k < 4; k++)
		kt_buf_printf(out, ",%" PRId64, (k < 3 ? v[k] : x->end_ts) == INT64_MAX ? -1 : v[k] / 10);
}

static void put_label(struct kt_buf *out, const char *s)
{
	size_t n = strlen(s);
	char *esc = kt_xmalloc(6 * n + 1);

	kt_buf_puts(out, ",\"");
	kt_buf_add(out, esc, kt_json_escape_mem(esc, s, n));
	kt_buf_puts(out, "\"");
	free(esc);
}

static int by_ext_id(const void *a, const void *b)
{
	const struct ext *x = a, *y = b;

	return (x->id > y->id) - (x->id < y->id);
}

/* kt_store_lod_meta's answer. */
static void meta_json(struct kt_lodw *l, struct kt_buf *out)
{
	int ok = l->end_ts != INT64_MAX;

	kt_buf_printf(out, "{\"n\":%" PRId64 ",\"t0\":%" PRId64 ",\"end\":[%" PRId64 ",%" PRId64 "]",
		      l->rows, l->t0 / 10, ok ? l->end_ts / 10 : -1, ok ? l->end_dur / 10 : 0);
	qsort(l->cpu_x, l->cpus.n, sizeof(*l->cpu_x), by_ext_id);
	kt_buf_puts(out, ",\"cpus\":[");
	for (size_t i = 0; i < l->cpus.n; i++) {
		kt_buf_printf(out, "%s[%d", i ? "," : "", l->cpu_x[i].id);
		put_ext(out, &l->cpu_x[i]);
		kt_buf_puts(out, "]");
	}
	qsort(l->pid_x, l->pids.n, sizeof(*l->pid_x), by_ext_id);
	kt_buf_puts(out, "],\"pids\":[");
	int first = 1;

	for (size_t i = 0; i < l->pids.n; i++) {
		const struct ext *x = &l->pid_x[i];

		if (!x->pidrow)
			continue;
		kt_buf_printf(out, "%s[%d", first ? "" : ",", x->id);
		put_ext(out, x);
		put_label(out, x->label);
		kt_buf_puts(out, "]");
		first = 0;
	}
	kt_buf_puts(out, "],\"rpcs\":[");
	for (size_t i = 0; i < l->rpcs.n; i++) {
		int32_t id = (int32_t)l->rpcs.keys[i];
		long j = idmap_find(&l->rpcx, id);
		struct ext none;

		ext_init(&none, id);
		kt_buf_printf(out, "%s[%d", i ? "," : "", id);
		put_ext(out, j >= 0 ? &l->rpc_x[j] : &none);
		put_label(out, l->rpc_l[i].label);
		kt_buf_puts(out, "]");
	}
	kt_buf_puts(out, "]}");
}

static const char *const kind_col[3] = { "cpu", "pid", "rpc" };
static const char *const kind_pre[3] = { "", "p", "r" };

/* One level of a kind's bins to dir/NAME. */
static int write_bins(const char *dir, int g, int level, const struct binvec *bv, char *err,
		      size_t errlen)
{
	const struct kt_pq_col cols[] = {
		{ kind_col[g], KT_PQ_I32, 0, 0 }, { "b", KT_PQ_I64, 0, 0 }, { "i", KT_PQ_I64, 0, 0 },
		{ "u", KT_PQ_I64, 0, 0 }, { "kn", KT_PQ_I64, 0, 0 }, { "eu", KT_PQ_I32, 1, 0 },
		{ "tu", KT_PQ_I64, 1, 0 }, { "ek", KT_PQ_I32, 1, 0 }, { "tk", KT_PQ_I64, 1, 0 },
		{ "c", KT_PQ_I64, 0, 0 },
	};
	char path[4400];

	snprintf(path, sizeof(path), "%s/%s%d.parquet", dir, kind_pre[g], level);
	struct kt_pq *p = kt_pq_open(path, cols, 10, GROUP, err, errlen);

	if (!p)
		return -1;
	for (size_t i = 0; i < bv->n; i++) {
		const struct bin *x = &bv->v[i];

		kt_pq_i32(p, 0, x->id);
		kt_pq_i64(p, 1, x->b);
		kt_pq_i64(p, 2, x->i);
		kt_pq_i64(p, 3, x->u);
		kt_pq_i64(p, 4, x->kn);
		if (x->eu >= 0) {
			kt_pq_i32(p, 5, x->eu);
			kt_pq_i64(p, 6, x->tu);
		} else {
			kt_pq_null(p, 5);
			kt_pq_null(p, 6);
		}
		if (x->ek >= 0) {
			kt_pq_i32(p, 7, x->ek);
			kt_pq_i64(p, 8, x->tk);
		} else {
			kt_pq_null(p, 7);
			kt_pq_null(p, 8);
		}
		kt_pq_i64(p, 9, x->c);
		if (kt_pq_row(p) < 0)
			break;
	}
	return kt_pq_close(p, err, errlen);
}

/* long.parquet (rn < 0) or longrows.parquet: the rows of 2 q0 or longer. */
static int write_long(struct kt_lodw *l, const char *dir, int with_rn, int64_t q0, char *err,
		      size_t errlen)
{
	static const struct kt_pq_col cols[] = {
		{ "rn", KT_PQ_I64, 0, 0 }, { "ts", KT_PQ_I64, 0, 0 }, { "dur", KT_PQ_I64, 0, 0 },
		{ "cpu", KT_PQ_I32, 0, 0 }, { "pid", KT_PQ_I32, 0, 0 }, { "rpc", KT_PQ_I32, 0, 0 },
		{ "event", KT_PQ_I32, 0, 0 }, { "arg", KT_PQ_I64, 0, 0 }, { "ret", KT_PQ_I64, 0, 0 },
		{ "ipc", KT_PQ_I32, 0, 0 }, { "name", KT_PQ_STR, 0, 0 },
	};
	char path[4400];
	int o = with_rn ? 1 : 0;

	snprintf(path, sizeof(path), "%s/%s.parquet", dir, with_rn ? "longrows" : "long");
	struct kt_pq *p = kt_pq_open(path, cols + 1 - o, 10 + o, GROUP, err, errlen);

	if (!p)
		return -1;
	for (size_t i = 0; i < l->nlng; i++) {
		const struct kt_row *r = &l->lng[i].r;

		if (r->dur * 10 < 2 * q0)
			continue;
		/* long.parquet: of a CPU, PID or RPC row (LOD_LONG) */
		if (!with_rn && !(exec_ev(r->event) && (r->cpu >= 0 || r->pid > 0 || r->rpc > 0)))
			continue;
		const char *nm = r->name ? r->name : "";

		if (with_rn)
			kt_pq_i64(p, 0, l->lng[i].rn);
		kt_pq_i64(p, o + 0, r->start * 10);
		kt_pq_i64(p, o + 1, r->dur * 10);
		kt_pq_i32(p, o + 2, r->cpu);
		kt_pq_i32(p, o + 3, r->pid);
		kt_pq_i32(p, o + 4, r->rpc);
		kt_pq_i32(p, o + 5, r->event);
		kt_pq_i64(p, o + 6, r->arg);
		kt_pq_i64(p, o + 7, r->retval);
		kt_pq_i32(p, o + 8, r->ipc);
		kt_pq_str(p, o + 9, nm, strlen(nm));
		if (kt_pq_row(p) < 0)
			break;
	}
	return kt_pq_close(p, err, errlen);
}

static int put_file(const char *dir, const char *name, const char *a, size_t al, const char *b,
		    size_t bl, char *err, size_t errlen)
{
	char path[4400];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "w");

	if (!f || fwrite(a, 1, al, f) != al || fwrite(b, 1, bl, f) != bl || fclose(f) != 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* One writer thread's work: a kind's levels (g 0..2), or the long rows
 * (g 3); its error in its own err. */
struct job {
	struct kt_lodw *l;
	const char *dir;
	int g, levels;
	int64_t q0;
	struct binvec scratch;
	int rc;
	char err[512];
};

static void *job_run(void *arg)
{
	struct job *j = arg;
	struct kindw *k = &j->l->kind[j->g < 3 ? j->g : 0];

	j->rc = 0;
	if (j->g == 3) {
		if (write_long(j->l, j->dir, 0, j->q0, j->err, sizeof(j->err)) < 0 ||
		    write_long(j->l, j->dir, 1, j->q0, j->err, sizeof(j->err)) < 0)
			j->rc = -1;
		return NULL;
	}
	for (int lv = 0; lv < j->levels && j->rc == 0; lv++) {
		if (lv && binvec_halve(&k->done, &j->scratch) < 0) {
			snprintf(j->err, sizeof(j->err), "%s: out of memory", j->dir);
			j->rc = -1;
		} else if (write_bins(j->dir, j->g, lv, &k->done, j->err, sizeof(j->err)) < 0) {
			j->rc = -1;
		}
	}
	free(j->scratch.v);
	return NULL;
}

int kt_lodw_finish(struct kt_lodw *l, const char *store, char *err, size_t errlen)
{
	char dir[4300], line[128];
	struct kt_buf meta = { 0 };
	int64_t t0 = l->rows ? l->t0 : 0, t1 = l->rows ? t1_of(l) : 1;
	int rc = -1, levels = 0;

	if (l->off || t0 < -T_MAX || t0 > T_MAX || t1 < t0 || t1 > T_MAX)
		return 1;	/* the SQL's to make, or to refuse */
	int s = q_shift(t0, t1);
	int64_t q0 = (int64_t)1 << s;

	/* Widened first: cur may take back the last bin done. */
	if (widen(l, s) < 0)
		goto oom;
	for (int g = 0; g < 3; g++)
		if (l->kind[g].ids.n && kind_flush(&l->kind[g]) < 0)
			goto oom;
	meta_json(l, &meta);
	snprintf(dir, sizeof(dir), "%s/lod", store);
	if (mkdir(dir, 0777) < 0) {
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		goto out;
	}
	/* kt_store_lod_pyramid's levels: one up while the trace is two
	 * bins wide or more. */
	for (int64_t q = q0; levels < 63; q *= 2) {
		levels++;
		if ((t1 - t0) / q < 2)
			break;
	}
	/* The kinds' levels and the long rows written side by side: each
	 * file's writer waits on its own compression. */
	struct job jobs[4];
	pthread_t th[4];
	int started[4] = { 0 };

	for (int g = 0; g < 4; g++) {
		jobs[g] = (struct job){ .l = l, .dir = dir, .g = g, .levels = levels, .q0 = q0 };
		started[g] = pthread_create(&th[g], NULL, job_run, &jobs[g]) == 0;
		if (!started[g])
			job_run(&jobs[g]);
	}
	rc = 0;
	for (int g = 0; g < 4; g++) {
		if (started[g])
			pthread_join(th[g], NULL);
		if (jobs[g].rc < 0 && rc == 0) {
			snprintf(err, errlen, "%s", jobs[g].err);
			rc = -1;
		}
	}
	if (rc < 0)
		goto out;
	rc = -1;
	int n = snprintf(line, sizeof(line), "%" PRId64 " %" PRId64 "\n", t0, t1);

	if (put_file(dir, "meta", line, (size_t)n, meta.p, meta.len, err, errlen) < 0)
		goto out;
	n = snprintf(line, sizeof(line), "%" PRId64 " %d %d\n", q0, levels, KT_LOD_VERSION);
	if (put_file(dir, "levels", line, (size_t)n, "", 0, err, errlen) < 0)
		goto out;
	rc = 0;
	goto out;
oom:
	snprintf(err, errlen, "%s/lod: out of memory", store);
out:
	kt_buf_free(&meta);
	return rc;
}

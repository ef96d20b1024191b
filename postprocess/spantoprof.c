// SPDX-License-Identifier: BSD-3-Clause
/*
 * spantoprof - turn a span JSON into a profile JSON (docs/spec/FORMATS.md 6.6).
 *
 *   spantoprof [-row | -group] [-all] [-v] < in.json > out_prof.json
 *
 * Every row of the timeline (each CPU, each thread, each RPC) becomes one
 * profile row: its items (summed by name) laid end to end from time 0,
 * longest first, so the viewer draws a bar chart of where the time went.
 * The output has the input's header plus ` "presorted" : 1,` so that the
 * viewer and makeself keep this order instead of sorting by time.
 *
 * Accumulation (each input row goes to up to three profile rows):
 *   CPU row (cpu >= 0): events >= 0x400, PC samples, frequency 0x209
 *   PID row (pid > 0) and RPC row (rpc > 0): events >= 0x400, waits
 *     0x300..0x319, PC samples, frequency, lock spans 0x282/0x283
 * Items are summed by name (frequency items are renamed name_MHz): total
 * duration and duration * M[ipc] to average the IPC code.
 *
 * Layout of one profile row: a zero-length 0x20E label item "<row name> ",
 * then kernel/user/PC-sample/lock-held items by decreasing total, then
 * waits and other items by decreasing total, then idle and c-exit.
 * Frequency, PC samples, lock items and everything else each advance their
 * own offset, so the overlays start at 0 again.
 *
 * -row numbers rows from 0x10000: CPU rows by CPU number, then PID rows
 * (idle's "-idle-" row among them, empty) and RPC rows ordered by name
 * base (text before the last '.') and then by ascending elapsed time
 * (first to last row of the timeline row, its 0x20E label included).
 * -group merges rows with the same base into power-of-two elapsed-time
 * buckets "<base>_<time> (n)" and one "<base>_AVG (n)", CPU rows into
 * "CPU_AVG (n)" only, totals divided by n, numbered from 0x20000; a
 * one-row _AVG is dropped, and a one-row bucket unless -all is given or
 * its _AVG row has more than one member.  The number of rows read goes
 * to stderr ("N events").
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tool.h"
#include "jsonrows.h"

enum { K_CPU, K_PID, K_RPC, K_N };
/* Layout order classes and offset classes. */
enum { ORD_FIRST, ORD_SECOND, ORD_LAST };
enum { OFF_MAIN, OFF_FREQ, OFF_PC, OFF_LOCK, OFF_N };

struct item {
	const char *name;
	int64_t event, arg;
	double total, ipcsum;
};

struct prow {
	int kind;
	int64_t id;
	const char *name;	/* NULL until a naming row is seen */
	double first, last;	/* execution and wait extent */
	int have_extent;
	double exec_total;
	struct item *items;
	size_t nitems, capitems;
	/* name -> item index, open addressing on the interned pointer */
	size_t *slot;
	size_t nslot;
	int members;		/* -group: rows merged into this one */
	int order_key;		/* -group: bucket index, 24 = _AVG */
	const char *base;
};

static const int ipc_mult[16] = {
	1, 3, 5, 7, 9, 11, 13, 15, 18, 22, 26, 30, 36, 44, 52, 60
};

static struct prow **rows;
static size_t nrows, caprows;
/* (kind, id) -> row, open addressing */
static struct prow **rtab;
static size_t rtabcap;
static int verbose;

static void usage(FILE *f)
{
	fprintf(f,
		"usage: spantoprof [-row | -group] [-all] [-v] < in.json > out_prof.json\n"
		"Profiles a span JSON: one row per CPU, thread and RPC (-row, the\n"
		"default) or per group of rows with the same name and similar elapsed\n"
		"time (-group; -all keeps single-row groups).  -v: statistics on stderr.\n");
}

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	return x;
}

static struct prow *new_row(int kind, int64_t id)
{
	struct prow *p = kt_xcalloc(1, sizeof(*p));

	p->kind = kind;
	p->id = id;
	if (nrows == caprows) {
		caprows = caprows ? caprows * 2 : 64;
		rows = kt_xrealloc(rows, caprows * sizeof(*rows));
	}
	rows[nrows++] = p;
	return p;
}

/* Open addressing as kt_intern's table (lib/base/util.c), keyed by (kind, id). */
static struct prow *get_row(int kind, int64_t id)
{
	if ((nrows + 1) * 2 > rtabcap) {
		size_t ncap = rtabcap ? rtabcap * 2 : 256;
		struct prow **n = kt_xcalloc(ncap, sizeof(*n));

		for (size_t i = 0; i < rtabcap; i++) {
			if (!rtab[i])
				continue;
			size_t j = mix((uint64_t)rtab[i]->id * 4 + (uint64_t)rtab[i]->kind) & (ncap - 1);

			while (n[j])
				j = (j + 1) & (ncap - 1);
			n[j] = rtab[i];
		}
		free(rtab);
		rtab = n;
		rtabcap = ncap;
	}
	size_t j = mix((uint64_t)id * 4 + (uint64_t)kind) & (rtabcap - 1);

	while (rtab[j]) {
		if (rtab[j]->kind == kind && rtab[j]->id == id)
			return rtab[j];
		j = (j + 1) & (rtabcap - 1);
	}
	rtab[j] = new_row(kind, id);
	return rtab[j];
}

static struct item *get_item(struct prow *p, const char *name, int64_t event, int64_t arg)
{
	if ((p->nitems + 1) * 2 > p->nslot) {
		size_t ncap = p->nslot ? p->nslot * 2 : 16;
		size_t *n = kt_xmalloc(ncap * sizeof(*n));

		for (size_t i = 0; i < ncap; i++)
			n[i] = SIZE_MAX;
		for (size_t i = 0; i < p->nitems; i++) {
			size_t j = mix((uintptr_t)p->items[i].name) & (ncap - 1);

			while (n[j] != SIZE_MAX)
				j = (j + 1) & (ncap - 1);
			n[j] = i;
		}
		free(p->slot);
		p->slot = n;
		p->nslot = ncap;
	}
	size_t j = mix((uintptr_t)name) & (p->nslot - 1);

	while (p->slot[j] != SIZE_MAX) {
		if (p->items[p->slot[j]].name == name)
			return &p->items[p->slot[j]];
		j = (j + 1) & (p->nslot - 1);
	}
	if (p->nitems == p->capitems) {
		p->capitems = p->capitems ? p->capitems * 2 : 16;
		p->items = kt_xrealloc(p->items, p->capitems * sizeof(*p->items));
	}
	struct item *it = &p->items[p->nitems];

	memset(it, 0, sizeof(*it));
	it->name = name;
	it->event = event;
	it->arg = arg;
	p->slot[j] = p->nitems++;
	return it;
}

static int is_exec(int64_t ev)
{
	return ev >= KUTRACE_CALL_LO;
}

static int is_wait(int64_t ev)
{
	return ev >= KUTRACE_WAIT_BASE && ev <= KUTRACE_WAIT_BASE + 25;
}

static int is_pc(int64_t ev)
{
	return ev == KUTRACE_PC_U || ev == KUTRACE_PC_K;
}

static int is_lock(int64_t ev)
{
	return ev == KUTRACE_LOCK_HELD || ev == KUTRACE_LOCK_TRY;
}

static int is_user(int64_t ev)
{
	return ev > KUTRACE_IDLE && ev < KUTRACE_C_EXIT;
}

/* The row's elapsed time runs from its first to its last row's end. */
static void extend(struct prow *p, const struct kt_jrow *w)
{
	double end = w->start + w->dur;

	if (!p->have_extent || w->start < p->first)
		p->first = w->start;
	if (!p->have_extent || end > p->last)
		p->last = end;
	p->have_extent = 1;
}

static void add(struct prow *p, const struct kt_jrow *w, const char *name)
{
	struct item *it = get_item(p, name, w->event, w->arg);

	it->total += w->dur;
	it->ipcsum += w->dur * ipc_mult[w->ipc & 15];
	if (is_exec(w->event) || is_wait(w->event))
		extend(p, w);
	if (is_exec(w->event))
		p->exec_total += w->dur;
}

static void accumulate(const struct kt_jrow *w)
{
	int64_t ev = w->event;
	const char *name = w->name;

	/*
	 * Naming rows contribute no time.  A thread's 0x20E label row counts
	 * for its elapsed time (in the original's JSON it starts at the trace
	 * start).  Idle (pid 0) gets its row, "-idle-", which stays empty as
	 * in the original: only pid > 0 accumulates.
	 */
	if (w->pid >= 0 && (is_user(ev) || ev == KUTRACE_LEFTMARK ||
			    (w->pid == 0 && ev == KUTRACE_IDLE))) {
		struct prow *p = get_row(K_PID, w->pid);

		if (!p->name)
			p->name = w->pid ? w->name : kt_intern("-idle-");
		if (ev == KUTRACE_LEFTMARK && w->pid > 0)
			extend(p, w);
	}
	/* An RPC row's own id is its arg; its rpc column is the CPU's before. */
	if ((w->arg & 0xFFFF) > 0 && ev >= KUTRACE_RPCIDREQ && ev <= KUTRACE_RPCIDMID) {
		struct prow *p = get_row(K_RPC, w->arg & 0xFFFF);

		if (!p->name)
			p->name = w->name;
	}
	if (ev == KUTRACE_PSTATE) {
		char buf[64];
		struct kt_buf b = { 0 };

		snprintf(buf, sizeof(buf), "_%lld", (long long)w->arg);
		kt_buf_puts(&b, w->name);
		kt_buf_puts(&b, buf);
		name = kt_intern(b.p);
		kt_buf_free(&b);
	}
	int freq = ev == KUTRACE_PSTATE;

	if (w->cpu >= 0 && (is_exec(ev) || is_pc(ev) || freq))
		add(get_row(K_CPU, w->cpu), w, name);
	if (is_exec(ev) || is_wait(ev) || is_pc(ev) || freq || is_lock(ev)) {
		if (w->pid > 0)
			add(get_row(K_PID, w->pid), w, name);
		if (w->rpc > 0)
			add(get_row(K_RPC, w->rpc), w, name);
	}
}

static int ipc_code(double ipcsum, double total)
{
	if (total <= 0)
		return 0;
	int v = (int)(ipcsum / total);

	if (v < 0)
		v = 0;
	if (v > 63)
		v = 63;
	if (v < 16)
		return v / 2;
	if (v < 32)
		return 8 + (v - 16) / 4;
	return 12 + (v - 32) / 8;
}

static int ord_class(int64_t ev)
{
	if (ev == KUTRACE_IDLE || ev == KUTRACE_C_EXIT)
		return ORD_LAST;
	if (is_exec(ev) || is_pc(ev) || ev == KUTRACE_LOCK_HELD)
		return ORD_FIRST;
	return ORD_SECOND;
}

static int off_class(int64_t ev)
{
	if (ev == KUTRACE_PSTATE)
		return OFF_FREQ;
	if (is_pc(ev))
		return OFF_PC;
	if (is_lock(ev))
		return OFF_LOCK;
	return OFF_MAIN;
}

static int cmp_items(const void *a, const void *b)
{
	const struct item *x = a, *y = b;
	int cx = ord_class(x->event), cy = ord_class(y->event);

	if (cx != cy)
		return cx - cy;
	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	return strcmp(x->name, y->name);
}

static void write_row(const struct prow *p, int64_t number, int div)
{
	struct kt_jrow w;
	double off[OFF_N] = { 0 };
	int64_t col[K_N] = { -1, -1, -1 };
	struct kt_buf b = { 0 };

	col[p->kind] = number;
	kt_buf_puts(&b, p->name);
	kt_buf_puts(&b, " ");
	memset(&w, 0, sizeof(w));
	w.cpu = col[K_CPU];
	w.pid = col[K_PID];
	w.rpc = col[K_RPC];
	w.event = KUTRACE_LEFTMARK;
	w.name = b.p;
	kt_jw_row(stdout, &w);
	if (p->nitems)
		qsort(p->items, p->nitems, sizeof(*p->items), cmp_items);
	for (size_t i = 0; i < p->nitems; i++) {
		const struct item *it = &p->items[i];
		int oc = off_class(it->event);

		w.start = off[oc];
		w.dur = it->total / div;
		w.event = it->event;
		w.arg = it->arg;
		w.retval = 0;
		w.ipc = ipc_code(it->ipcsum, it->total);
		w.name = it->name;
		kt_jw_row(stdout, &w);
		off[oc] += w.dur;
	}
	kt_buf_free(&b);
}

/* Name base: text before the last '.'. */
static const char *name_base(const char *name)
{
	const char *dot = strrchr(name, '.');
	char *s;

	if (!dot)
		return kt_intern(name);
	s = kt_xstrdup(name);
	s[dot - name] = '\0';
	const char *r = kt_intern(s);

	free(s);
	return r;
}

static double elapsed(const struct prow *p)
{
	return p->have_extent ? p->last - p->first : 0.0;
}

static int cmp_rows(const void *a, const void *b)
{
	const struct prow *x = *(struct prow *const *)a, *y = *(struct prow *const *)b;

	if (x->kind != y->kind)
		return x->kind - y->kind;
	if (x->kind == K_CPU && x->members == 0)
		return (x->id > y->id) - (x->id < y->id);
	int c = strcmp(x->base, y->base);

	if (c)
		return c;
	if (x->order_key != y->order_key)
		return x->order_key - y->order_key;
	/* Equal names: ascending elapsed time, as the original. */
	double ex = elapsed(x), ey = elapsed(y);

	if (ex != ey)
		return ex < ey ? -1 : 1;
	return (x->id > y->id) - (x->id < y->id);
}

static void name_rows(void)
{
	for (size_t i = 0; i < nrows; i++) {
		struct prow *p = rows[i];
		char buf[32];

		if (p->kind == K_CPU || !p->name) {
			snprintf(buf, sizeof(buf), "%lld", (long long)p->id);
			p->name = kt_intern(buf);
		}
		p->base = p->kind == K_CPU ? kt_intern("CPU") : name_base(p->name);
	}
}

static const char *const bucket_label[24] = {
	"_1us", "_2us", "_4us", "_8us", "_16us", "_32us", "_64us", "_125us",
	"_250us", "_500us", "_1ms", "_2ms", "_4ms", "_8ms", "_16ms", "_32ms",
	"_64ms", "_125ms", "_256ms", "_512ms", "_1s", "_2s", "_4s", "_8s"
};

static int bucket_of(const struct prow *p)
{
	double e = elapsed(p) * 1024000.0;

	if (e < 1.0)
		return 0;
	int b = (int)floor(log2(e));

	return b > 23 ? 23 : b;
}

/* Merge the source row into the group row g. */
static void merge(struct prow *g, const struct prow *p)
{
	for (size_t i = 0; i < p->nitems; i++) {
		const struct item *s = &p->items[i];
		struct item *it = get_item(g, s->name, s->event, s->arg);

		it->total += s->total;
		it->ipcsum += s->ipcsum;
	}
	g->exec_total += p->exec_total;
	g->members++;
}

static void free_row(struct prow *p)
{
	free(p->items);
	free(p->slot);
	free(p);
}

static void group_rows(int all)
{
	size_t nsrc = nrows;
	struct prow **src = rows;
	/* group rows are created with new_row(); key: kind, base, bucket */
	struct prow **grp = NULL;
	size_t ngrp = 0;

	rows = NULL;
	nrows = caprows = 0;
	for (size_t i = 0; i < nsrc; i++) {
		const struct prow *p = src[i];
		int keys[2] = { 24, bucket_of(p) };

		/* CPUs are merged into CPU_AVG only. */
		for (int k = 0; k < (p->kind == K_CPU ? 1 : 2); k++) {
			struct prow *g = NULL;

			/* Linear search is fine: groups are few compared with rows. */
			for (size_t j = 0; j < ngrp; j++)
				if (grp[j]->kind == p->kind && grp[j]->base == p->base &&
				    grp[j]->order_key == keys[k]) {
					g = grp[j];
					break;
				}
			if (!g) {
				g = new_row(p->kind, (int64_t)ngrp);
				g->base = p->base;
				g->order_key = keys[k];
				grp = kt_xrealloc(grp, (ngrp + 1) * sizeof(*grp));
				grp[ngrp++] = g;
			}
			merge(g, p);
		}
	}
	/*
	 * Drop one-row _AVG rows (the bucket row says the same), and one-row
	 * buckets unless -all or the base's _AVG has several.
	 */
	size_t out = 0;
	char *keep = kt_xcalloc(nrows ? nrows : 1, 1);

	for (size_t i = 0; i < nrows; i++) {
		const struct prow *g = rows[i];

		keep[i] = 1;
		if (g->order_key == 24 && g->members == 1 && g->kind != K_CPU)
			keep[i] = 0;
		if (g->order_key != 24 && g->members == 1 && !all) {
			keep[i] = 0;
			for (size_t j = 0; j < nrows; j++)
				if (rows[j]->order_key == 24 && rows[j]->kind == g->kind &&
				    rows[j]->base == g->base && rows[j]->members > 1)
					keep[i] = 1;
		}
	}
	for (size_t i = 0; i < nrows; i++) {
		struct prow *g = rows[i];

		if (!keep[i]) {
			free_row(g);
			continue;
		}
		struct kt_buf b = { 0 };

		kt_buf_printf(&b, "%s%s (%d)", g->base,
			      g->order_key == 24 ? "_AVG" : bucket_label[g->order_key],
			      g->members);
		g->name = kt_intern(b.p);
		kt_buf_free(&b);
		rows[out++] = g;
	}
	nrows = out;
	free(keep);
	free(grp);
	for (size_t i = 0; i < nsrc; i++)
		free_row(src[i]);
	free(src);
}

int main(int argc, char **argv)
{
	int group = 0, all = 0;
	const struct kt_opt opts[] = {
		{ "row", KT_OPT_FLAG, &group, 0 },
		{ "group", KT_OPT_FLAG, &group, 1 },
		{ "all", KT_OPT_FLAG, &all, 1 },
		{ "v", KT_OPT_FLAG, &verbose, 1 },
		{ NULL, 0, NULL, 0 },
	};
	const struct kt_argspec spec = { opts, usage, 0, 0, 0 };

	kt_set_progname(argv[0]);
	kt_args(&spec, argc, argv, NULL);

	struct kt_jreader r;
	struct kt_jrow w;
	long n = 0;

	kt_xjr_open(&r, "-");
	while (kt_xjr_next(&r, &w)) {
		accumulate(&w);
		n++;
	}
	name_rows();
	if (group)
		group_rows(all);
	if (nrows)
		qsort(rows, nrows, sizeof(*rows), cmp_rows);
	kt_jw_header(stdout, &r, "presorted", "1");
	for (size_t i = 0; i < nrows; i++)
		write_row(rows[i], (group ? 0x20000 : 0x10000) + (int64_t)i,
			  group ? rows[i]->members : 1);
	kt_jw_end(stdout, &r);
	kt_jr_close(&r);
	fprintf(stderr, "spantoprof: %ld events\n", n);
	if (verbose)
		fprintf(stderr, "spantoprof: %zu profile rows\n", nrows);
	for (size_t i = 0; i < nrows; i++)
		free_row(rows[i]);
	free(rows);
	free(rtab);
	if (fflush(stdout) != 0 || ferror(stdout))
		kt_die("write error on stdout");
	return 0;
}

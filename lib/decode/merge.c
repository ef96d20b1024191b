// SPDX-License-Identifier: BSD-3-Clause
/*
 * merge.c - the per-CPU merge of kutrace_postproc: events arrive CPU by
 * CPU, block by block, and leave in one time-ordered stream.
 *
 * Events wait in one FIFO per CPU until they are released.  A CPU's
 * entries are already in time order apart from late stores, which are
 * slightly early and found by a short insertion from the tail, so the
 * merge costs a few matches in a tree of CPU heads per event instead of a
 * heap of every buffered event.  Events of equal time leave in the byte
 * order of their event-text lines, as `sort -n` puts them in the
 * original's rawtoevent | sort -n | eventtospan, so both give the same
 * JSON; then in arrival order.
 */
#include <stdlib.h>
#include <string.h>

#include "decode.h"

struct item {
	struct kt_event e;
	uint64_t seq;		/* arrival order: ties stay in decode order */
};

struct fifo {
	struct item *q;
	size_t head, n, cap;	/* ring buffer, cap a power of two */
	int64_t t;		/* head item's time and seq, when n > 0: */
	uint64_t seq;		/* the matches in release() read only these */
};

/* The user events' FIFO (kt_merge_push_user) follows the CPUs'. */
#define USER_FIFO	KUTRACE_MAX_CPUS

struct kt_merge {
	struct fifo fifo[KUTRACE_MAX_CPUS + 1];
	struct fifo none;	/* leaves past the last FIFO */
	int ncpu;		/* highest CPU seen + 1 */
	size_t buffered;
	uint64_t seq;
};

static int less(const struct item *a, const struct item *b)
{
	if (a->e.t != b->e.t)
		return a->e.t < b->e.t;
	char la[1024], lb[1024];

	kt_event_line(la, sizeof(la), &a->e);
	kt_event_line(lb, sizeof(lb), &b->e);
	int c = strcmp(la, lb);

	if (c)
		return c < 0;
	return a->seq < b->seq;
}

static struct item *at(struct fifo *f, size_t i)
{
	return &f->q[(f->head + i) & (f->cap - 1)];
}

struct kt_merge *kt_merge_new(void)
{
	return kt_xcalloc(1, sizeof(struct kt_merge));
}

void kt_merge_free(struct kt_merge *m)
{
	if (!m)
		return;
	for (int i = 0; i <= USER_FIFO; i++)
		free(m->fifo[i].q);
	free(m);
}

size_t kt_merge_buffered(const struct kt_merge *m)
{
	return m->buffered;
}

static void push(struct kt_merge *m, struct fifo *f, const struct kt_event *e)
{
	if (f->n == f->cap) {
		size_t nc = f->cap ? f->cap * 2 : 4096;
		struct item *q = kt_xmalloc(nc * sizeof(*q));

		for (size_t i = 0; i < f->n; i++)
			q[i] = *at(f, i);
		free(f->q);
		f->q = q;
		f->head = 0;
		f->cap = nc;
	}
	struct item it = { .e = *e, .seq = m->seq++ };
	size_t i = f->n++;

	while (i > 0 && less(&it, at(f, i - 1))) {
		*at(f, i) = *at(f, i - 1);
		i--;
	}
	*at(f, i) = it;
	if (i == 0)
		f->t = it.e.t, f->seq = it.seq;
	m->buffered++;
}

void kt_merge_push(struct kt_merge *m, const struct kt_event *e)
{
	push(m, &m->fifo[e->cpu], e);
	if (e->cpu >= m->ncpu)
		m->ncpu = e->cpu + 1;
}

/*
 * Another time-ordered source (user buffers) is one more FIFO, the leaf
 * after the CPUs': its events keep their CPU and go out among the CPUs'
 * in time order, each pushed at the tail.
 */
void kt_merge_push_user(struct kt_merge *m, const struct kt_event *e)
{
	push(m, &m->fifo[USER_FIFO], e);
}

static struct fifo *leaf(struct kt_merge *m, int i)
{
	if (i < m->ncpu)
		return &m->fifo[i];
	return i == m->ncpu ? &m->fifo[USER_FIFO] : &m->none;
}

/* a's head goes before b's; an empty FIFO goes after everything. */
static int beats(struct fifo *a, struct fifo *b)
{
	if (!a->n || !b->n)
		return a->n != 0 && b->n == 0;
	if (a->t != b->t)
		return a->t < b->t;
	return less(at(a, 0), at(b, 0));
}

/*
 * A tournament ("loser") tree over the CPU FIFOs: node k holds the CPU that
 * lost the match there, loser[0] the overall winner.  After the winner's
 * head is taken, one walk up its path (log2 CPUs matches) finds the next.
 */
static int build(struct kt_merge *m, int *loser, int k, int leaves)
{
	if (k >= leaves)
		return k - leaves;
	int a = build(m, loser, 2 * k, leaves), b = build(m, loser, 2 * k + 1, leaves);

	if (beats(leaf(m, a), leaf(m, b))) {
		loser[k] = b;
		return a;
	}
	loser[k] = a;
	return b;
}

/*
 * No FIFO grows while this runs (fn must not push), so the tree is built
 * once per call.
 */
void kt_merge_release(struct kt_merge *m, int64_t upto, kt_event_fn fn, void *ctx)
{
	int loser[2 * KUTRACE_MAX_CPUS], leaves = 1;

	if (!m->buffered)
		return;
	while (leaves < m->ncpu + 1)
		leaves *= 2;
	int w = build(m, loser, 1, leaves);

	for (;;) {
		struct fifo *f = leaf(m, w);

		if (!f->n)
			return;		/* the winner is empty: all are */
		struct item *it = at(f, 0);

		if (it->e.t >= upto)
			return;
		fn(ctx, &it->e);
		f->head = (f->head + 1) & (f->cap - 1);
		f->n--;
		m->buffered--;
		if (f->n) {
			f->t = at(f, 0)->e.t;
			f->seq = at(f, 0)->seq;
		}
		for (int k = (w + leaves) / 2; k >= 1; k /= 2) {
			if (beats(leaf(m, loser[k]), leaf(m, w))) {
				int t = loser[k];

				loser[k] = w;
				w = t;
			}
		}
	}
}

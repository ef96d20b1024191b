// SPDX-License-Identifier: BSD-3-Clause
/*
 * jsonout.c - the timespan JSON written in exact row order while the
 * trace is still being read, with bounded memory (docs/spec/FORMATS.md 5.10, 8.20).
 *
 * Rows come from the span builder nearly in time order: a span is written
 * when it ends, so rows of one CPU come in order and rows of different
 * CPUs interleave, while waits, wakeup arcs and lock spans come late.  An
 * ordering thread keeps rows in a few ascending "lanes" (a row joins a lane whose
 * last row is not greater, else the unsorted spare lane) and, whenever the
 * caller says no future row can start before time `low`, merges the lanes
 * and writes every row that starts before it.  Nothing is sorted twice and
 * nothing is spilled.
 *
 * A caller that must move on while a long sleeper pins `low` (memory
 * budget) may pass a later `low`; rows that still arrive before it are
 * "late".  They are kept (at most one per sleeping thread, CPU or lock)
 * and merged in by one copy of the file at the end, found through
 * checkpoints (file offset, all rows before it start before time T), so
 * only the neighbourhood of each late row is parsed again; the rest is
 * copied by the kernel (copy_file_range).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rows.h"

#define NLANES 16		/* lane NLANES is the unsorted spare */
#define STEP	(1 << 16)	/* rows between two looks at the bound */
#define BUDGET	(1 << 20)	/* rows held before moving past sleepers */

struct lane {
	struct kt_row *r;
	size_t head, n, cap;	/* rows r[head .. head+n) */
};

/* kt_row_cmp with the usual case, different start times, inline. */
static inline int row_less(const struct kt_row *a, const struct kt_row *b)
{
	if (a->start != b->start)
		return a->start < b->start;
	return kt_row_cmp(a, b) < 0;
}


/*
 * Three threads in a pipeline, so that two cores share the work evenly
 * whatever its mix: the reader (decoding, spans) hands rows in chunks of
 * CHUNK to the orderer, which keeps the lanes and merges them; the orderer
 * hands the ordered rows, again in chunks, to the writer, which formats
 * them (~70 bytes a row) and writes them into the page cache.  A row with
 * a NULL name is a marker from kt_jsonout_advance: the orderer writes on
 * every row that starts before the marker's time, after the marker, and
 * the writer notes the file offset the marker reached (a checkpoint).
 */
#define CHUNK	16384
#define TEXT	(1 << 20)

struct writer {
	pthread_t order_tid, write_tid;
	int running;
	struct kt_chq in;		/* reader -> orderer */
	struct kt_chq out;		/* orderer -> writer */
	uint64_t emitted;	/* rows ordered (atomic: the reader watches it) */
	double order_cpu;	/* seconds, set when the orderer ends */
	/* Writer thread only (read by the reader after the join). */
	FILE *f;
	int err;
	long off;
	double cpu;
	long *marks;		/* offset at each checkpoint marker */
	size_t nmarks, markcap;
	char *text;
	size_t textlen, textcap;	/* textcap: TEXT */
};

/* Escaped names by interned pointer: a trace has few distinct names. */
#define NCACHE 4096
struct esc {
	const char *name;
	char *esc;		/* escaped, then "\"],\n" */
	size_t len;
};

struct kt_jsonout {
	FILE *f;
	struct esc cache[NCACHE];	/* the writer's, then the final copy's */
	struct writer w;
	struct lane lane[NLANES + 1];	/* the orderer's */
	uint64_t sent, looked;	/* rows handed to the orderer; at the last look */
	size_t step, budget;
	int64_t below;		/* every written row starts before this */
	char *header;		/* as written, NULL before the first write */
	long rows_start, rows_end;
	/*
	 * Checkpoint i: every row before the writer's marks[i] (the file
	 * offset where it met marker i) starts before cpbelow[i].
	 */
	int64_t *cpbelow;
	size_t ncp, cpcap;
	struct kt_row *late;
	size_t nlate, latecap;
	char *buf;		/* formatting */
	size_t bufcap;
	kt_row_fn tee;		/* every row, in order, on the writer thread */
	int no_text;		/* kt_jsonout_no_text: the sinks only */
	void *tee_ctx;
	char err[256];		/* the first error, "" if none */
};

/* Keep the first error; every later step still runs but changes nothing. */
static void fail(struct kt_jsonout *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void fail(struct kt_jsonout *o, const char *fmt, ...)
{
	va_list ap;

	if (o->err[0])
		return;
	va_start(ap, fmt);
	vsnprintf(o->err, sizeof(o->err), fmt, ap);
	va_end(ap);
}

const char *kt_jsonout_error(const struct kt_jsonout *o)
{
	return o->err[0] ? o->err : NULL;
}

static const struct esc *escaped(struct esc *cache, const char *name)
{
	uintptr_t h = (uintptr_t)name;
	struct esc *e = &cache[(h ^ (h >> 12)) & (NCACHE - 1)];

	if (e->name != name) {
		size_t n = strlen(name);

		free(e->esc);
		e->esc = kt_xmalloc(6 * n + 5);
		e->len = kt_json_escape_buf(e->esc, name);
		memcpy(e->esc + e->len, "\"],\n", 4);
		e->len += 4;
		e->name = name;
	}
	return e;
}

static void text_flush(struct writer *w)
{
	if (w->textlen && fwrite(w->text, 1, w->textlen, w->f) != w->textlen && !w->err)
		w->err = errno ? errno : EIO;
	w->textlen = 0;
}

/* One row as text into the writer's buffer. */
static void write_row(struct kt_jsonout *o, const struct kt_row *r)
{
	struct writer *w = &o->w;
	const struct esc *e = escaped(o->cache, r->name);

	if (w->textcap - w->textlen < KT_JSON_HEAD_MAX + e->len)
		text_flush(w);
	if (w->textcap < KT_JSON_HEAD_MAX + e->len) {
		/* A name of more than ~150 KB escaped: on its own. */
		char *big = kt_xmalloc(KT_JSON_HEAD_MAX + e->len);
		size_t k = kt_json_format_head(big, r);

		memcpy(big + k, e->esc, e->len);
		k += e->len;
		if (fwrite(big, 1, k, w->f) != k && !w->err)
			w->err = errno ? errno : EIO;
		free(big);
		w->off += (long)k;
		return;
	}
	char *p = w->text + w->textlen;
	size_t k = kt_json_format_head(p, r);

	memcpy(p + k, e->esc, e->len);
	k += e->len;
	w->textlen += k;
	w->off += (long)k;
}

static void lane_push(struct lane *l, const struct kt_row *r);
static const struct kt_row *lane_tail(const struct lane *l);
static void merge(struct kt_jsonout *o, int64_t low);

/* ---- chunk queues (lib/base/chq.c) ------------------------------------ */

static void rowq_init(struct kt_chq *q)
{
	/*
	 * Test knob (the fuzzer's): KT_JSONOUT_CHUNK rows a chunk, to pass
	 * chunks on in small traces and to save allocating 1 MB for each.
	 */
	const char *e = getenv("KT_JSONOUT_CHUNK");

	kt_chq_init(q, sizeof(struct kt_row),
		    e && atol(e) > 0 && atol(e) < CHUNK ? (size_t)atol(e) : CHUNK);
}

static inline void chq_put(struct kt_chq *q, const struct kt_row *r)
{
	*(struct kt_row *)kt_chq_slot(q) = *r;
	kt_chq_put(q);
}

/* ---- the orderer and the writer thread ---------------------------------- */

static void lane_push(struct lane *l, const struct kt_row *r);
static const struct kt_row *lane_tail(const struct lane *l);
static void merge(struct kt_jsonout *o, int64_t low);

/* A row joins a lane; a marker goes on and lets out what it allows. */
static void order_rows(struct kt_jsonout *o, const struct kt_row *r, size_t n)
{
	for (size_t i = 0; i < n; i++, r++) {
		if (!r->name) {
			chq_put(&o->w.out, r);
			merge(o, r->start);
			continue;
		}
		/* The CPU's own lane first: that is where it almost always fits. */
		int hint = (r->cpu + 1) & (NLANES - 1), k;

		for (k = 0; k < NLANES; k++) {
			struct lane *l = &o->lane[(hint + k) & (NLANES - 1)];
			const struct kt_row *t = lane_tail(l);

			if (!t || !row_less(r, t)) {
				lane_push(l, r);
				break;
			}
		}
		if (k == NLANES)
			lane_push(&o->lane[NLANES], r);
	}
}

static void *order_main(void *p)
{
	struct kt_jsonout *o = p;
	const struct kt_row *r;
	size_t n;

	while ((r = kt_chq_take(&o->w.in, &n))) {
		order_rows(o, r, n);
		kt_chq_done(&o->w.in);
	}
	kt_chq_close(&o->w.out);
	o->w.order_cpu = kt_thread_cpu();
	return NULL;
}

static void *write_main(void *p)
{
	struct kt_jsonout *o = p;
	struct writer *w = &o->w;
	const struct kt_row *r;
	size_t n;

	while ((r = kt_chq_take(&w->out, &n))) {
		for (size_t i = 0; i < n; i++, r++) {
			if (r->name) {
				if (!o->no_text)
					write_row(o, r);
				if (o->tee)
					o->tee(o->tee_ctx, r);
				continue;
			}
			if (w->nmarks == w->markcap) {
				w->markcap = w->markcap ? w->markcap * 2 : 256;
				w->marks = kt_xrealloc(w->marks, w->markcap * sizeof(*w->marks));
			}
			w->marks[w->nmarks++] = w->off;
		}
		kt_chq_done(&w->out);
	}
	text_flush(w);
	w->cpu = kt_thread_cpu();
	return NULL;
}

void kt_jsonout_cpu(const struct kt_jsonout *o, double *order, double *write)
{
	*order = o->w.order_cpu;
	*write = o->w.cpu;
}

/* Everything handed over is in the file and both threads are gone. */
static void stop_writer(struct kt_jsonout *o)
{
	struct writer *w = &o->w;

	if (!w->running)
		return;
	kt_chq_close(&w->in);
	pthread_join(w->order_tid, NULL);
	pthread_join(w->write_tid, NULL);
	w->running = 0;
	if (w->err)
		fail(o, "write error on the JSON output (disk full?): %s",
		     strerror(w->err));
}

struct kt_jsonout *kt_jsonout_new(FILE *work)
{
	struct kt_jsonout *o = kt_xcalloc(1, sizeof(*o));

	o->f = work;
	o->w.f = work;
	rowq_init(&o->w.in);
	rowq_init(&o->w.out);
	/* test knob (the fuzzer's): KT_JSONOUT_TEXT bytes of text buffer */
	const char *t = getenv("KT_JSONOUT_TEXT");

	o->w.textcap = t && atol(t) > 0 && atol(t) < TEXT ? (size_t)atol(t) : TEXT;
	o->w.text = kt_xmalloc(o->w.textcap);
	o->below = INT64_MIN;
	/* Test knobs: tiny values force the late-row path on small traces. */
	const char *e = getenv("KT_JSONOUT_STEP");

	o->step = e && atol(e) > 0 ? (size_t)atol(e) : STEP;
	e = getenv("KT_JSONOUT_BUDGET");
	o->budget = e && atol(e) > 0 ? (size_t)atol(e) : BUDGET;
	o->bufcap = 4096;
	o->buf = kt_xmalloc(o->bufcap);
	if (pthread_create(&o->w.write_tid, NULL, write_main, o) != 0)
		goto fail;
	if (pthread_create(&o->w.order_tid, NULL, order_main, o) != 0) {
		/* The writer alone: closing its queue ends it. */
		kt_chq_close(&o->w.out);
		pthread_join(o->w.write_tid, NULL);
		goto fail;
	}
	o->w.running = 1;
	return o;
fail:
	kt_jsonout_free(o);
	errno = EAGAIN;
	return NULL;
}

void kt_jsonout_no_text(struct kt_jsonout *o)
{
	o->no_text = 1;
}

void kt_jsonout_tee(struct kt_jsonout *o, kt_row_fn fn, void *ctx)
{
	o->tee = fn;
	o->tee_ctx = ctx;
}

const char *kt_jsonout_header(const struct kt_jsonout *o)
{
	return o->header;
}

static void lane_push(struct lane *l, const struct kt_row *r)
{
	if (l->head + l->n == l->cap) {
		if (l->head > l->cap / 2) {
			memmove(l->r, l->r + l->head, l->n * sizeof(*l->r));
			l->head = 0;
		} else {
			l->cap = l->cap ? l->cap * 2 : 1024;
			l->r = kt_xrealloc(l->r, l->cap * sizeof(*l->r));
		}
	}
	l->r[l->head + l->n++] = *r;
}

static const struct kt_row *lane_tail(const struct lane *l)
{
	return l->n ? &l->r[l->head + l->n - 1] : NULL;
}

void kt_jsonout_row(struct kt_jsonout *o, const struct kt_row *r)
{
	if (r->start < o->below) {
		if (o->nlate == o->latecap) {
			o->latecap = o->latecap ? o->latecap * 2 : 64;
			o->late = kt_xrealloc(o->late, o->latecap * sizeof(*o->late));
		}
		o->late[o->nlate++] = *r;
		return;
	}
	chq_put(&o->w.in, r);
	o->sent++;
}

int kt_jsonout_due(const struct kt_jsonout *o)
{
	if (o->sent - o->looked < o->step)
		return 0;
	uint64_t emitted = __atomic_load_n(&o->w.emitted, __ATOMIC_RELAXED);

	return o->sent - emitted >= o->budget ? 2 : 1;
}

/* One row to f (the final copy, after the writer is gone). */
static void put_row(struct kt_jsonout *o, FILE *f, const struct kt_row *r)
{
	const struct esc *e = escaped(o->cache, r->name);

	if (o->bufcap < KT_JSON_HEAD_MAX + e->len) {
		o->bufcap = KT_JSON_HEAD_MAX + e->len;
		o->buf = kt_xrealloc(o->buf, o->bufcap);
	}
	size_t n = kt_json_format_head(o->buf, r);

	memcpy(o->buf + n, e->esc, e->len);
	fwrite(o->buf, 1, n + e->len, f);
}

static char *header_text(const struct kt_json_meta *m)
{
	char *s = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&s, &n);

	if (!f)
		return NULL;
	kt_json_header(f, m);
	if (fclose(f) != 0) {
		free(s);
		return NULL;
	}
	return s;
}

static int row_qcmp(const void *a, const void *b)
{
	return kt_row_cmp(a, b);
}

/*
 * Min-heap of lanes by their head row.  Each entry caches its head's start
 * time, so the sift compares integers in one small array and reads rows
 * only on a tie.
 */
struct hent {
	int64_t start;
	int lane;
};

static const struct kt_row *head(const struct kt_jsonout *o, int k)
{
	return &o->lane[k].r[o->lane[k].head];
}

static int hless(const struct kt_jsonout *o, const struct hent *a, const struct hent *b)
{
	if (a->start != b->start)
		return a->start < b->start;
	return kt_row_cmp(head(o, a->lane), head(o, b->lane)) < 0;
}

static void sift(const struct kt_jsonout *o, struct hent *h, int n, int i)
{
	for (;;) {
		int l = 2 * i + 1, r = l + 1, m = i;

		if (l < n && hless(o, &h[l], &h[m]))
			m = l;
		if (r < n && hless(o, &h[r], &h[m]))
			m = r;
		if (m == i)
			return;
		struct hent t = h[i];

		h[i] = h[m];
		h[m] = t;
		i = m;
	}
}

/* Orderer: pass on, in order, every buffered row that starts before low. */
static void merge(struct kt_jsonout *o, int64_t low)
{
	struct lane *spare = &o->lane[NLANES];
	uint64_t done = 0;

	if (spare->n > 1)
		qsort(spare->r + spare->head, spare->n, sizeof(*spare->r), row_qcmp);
	struct hent h[NLANES + 1];
	int n = 0;

	for (int k = 0; k <= NLANES; k++)
		if (o->lane[k].n && head(o, k)->start < low)
			h[n++] = (struct hent){ head(o, k)->start, k };
	for (int i = n / 2 - 1; i >= 0; i--)
		sift(o, h, n, i);
	while (n) {
		struct lane *l = &o->lane[h[0].lane];

		chq_put(&o->w.out, &l->r[l->head]);
		done++;
		l->head++;
		l->n--;
		if (!l->n) {
			l->head = 0;
			h[0] = h[--n];
		} else if (l->r[l->head].start >= low) {
			h[0] = h[--n];
		} else {
			h[0].start = l->r[l->head].start;
		}
		sift(o, h, n, 0);
	}
	__atomic_add_fetch(&o->w.emitted, done, __ATOMIC_RELAXED);
}

void kt_jsonout_advance(struct kt_jsonout *o, int64_t low,
			const struct kt_json_meta *m)
{
	if (!o->header) {
		/* The writer has written nothing yet: the header goes first. */
		o->header = header_text(m);
		if (!o->header) {
			fail(o, "out of memory");
			o->header = kt_xstrdup("");
		}
		fputs(o->header, o->f);
		if (fflush(o->f) != 0)
			fail(o, "write error on the JSON output (disk full?): %s",
			     strerror(errno));
		o->rows_start = ftell(o->f);
		o->w.off = o->rows_start;	/* read by the writer after kt_chq_submit() */
	}
	o->looked = o->sent;
	if (low <= o->below)
		return;
	if (o->ncp == o->cpcap) {
		o->cpcap = o->cpcap ? o->cpcap * 2 : 256;
		o->cpbelow = kt_xrealloc(o->cpbelow, o->cpcap * sizeof(*o->cpbelow));
	}
	o->cpbelow[o->ncp++] = o->below;
	chq_put(&o->w.in, &(struct kt_row){ .start = low });
	o->below = low;
}

/* ---- the end: late rows and a changed header -------------------------- */

int kt_jsonout_finish(struct kt_jsonout *o, const struct kt_json_meta *m)
{
	kt_jsonout_advance(o, INT64_MAX, m);
	stop_writer(o);
	o->rows_end = o->w.off;
	if (o->w.nmarks != o->ncp)
		fail(o, "internal error: %zu checkpoints, %zu marks", o->ncp,
		     o->w.nmarks);
	fseek(o->f, 0, SEEK_END);
	kt_json_footer(o->f);
	if (fflush(o->f) != 0 || ferror(o->f))
		fail(o, "write error on the JSON output (disk full?): %s",
		     strerror(errno));
	if (o->err[0])
		return -1;
	if (o->nlate)
		qsort(o->late, o->nlate, sizeof(*o->late), row_qcmp);
	char *h = header_text(m);

	if (!h) {
		fail(o, "out of memory");
		return -1;
	}
	int same = !strcmp(h, o->header);

	free(o->header);
	o->header = h;
	return o->nlate || !same;
}

uint64_t kt_jsonout_rows(const struct kt_jsonout *o)
{
	return __atomic_load_n(&o->w.emitted, __ATOMIC_RELAXED) + o->nlate;
}

size_t kt_jsonout_late(const struct kt_jsonout *o)
{
	return o->nlate;
}

/* Copy bytes [*pos, end) of the work file to dst, by the kernel if it can. */
static int copy_range(struct kt_jsonout *o, FILE *dst, long *pos, long end)
{
	if (end <= *pos)
		return 0;
	if (fflush(dst) != 0) {
		fail(o, "write error on the JSON output: %s", strerror(errno));
		return -1;
	}
	int in = fileno(o->f), out = fileno(dst);
	loff_t off = *pos;
	long left = end - *pos;

	while (left > 0) {
		ssize_t k = copy_file_range(in, &off, out, NULL, (size_t)left, 0);

		if (k <= 0)
			break;
		left -= k;
	}
	if (left > 0) {
		char buf[1 << 16];

		if (fseek(o->f, (long)off, SEEK_SET) != 0) {
			fail(o, "cannot seek in the JSON work file: %s", strerror(errno));
			return -1;
		}
		while (left > 0) {
			size_t want = left < (long)sizeof(buf) ? (size_t)left : sizeof(buf);

			if (fread(buf, 1, want, o->f) != want) {
				fail(o, "read error on the JSON work file");
				return -1;
			}
			if (fwrite(buf, 1, want, dst) != want) {
				fail(o, "write error on the JSON output: %s", strerror(errno));
				return -1;
			}
			left -= (long)want;
		}
		if (fflush(dst) != 0) {
			fail(o, "write error on the JSON output: %s", strerror(errno));
			return -1;
		}
	}
	*pos = end;
	return 0;
}

int kt_jsonout_copy(struct kt_jsonout *o, FILE *dst)
{
	long pos = o->rows_start;
	size_t c = 0;
	char *line = NULL;
	size_t cap = 0;
	struct kt_buf name = { 0 };

	fputs(o->header, dst);
	for (size_t i = 0; i < o->nlate; i++) {
		const struct kt_row *late = &o->late[i];

		/* Skip ahead by checkpoints: rows before marks[c] precede it. */
		while (c + 1 < o->ncp && o->cpbelow[c + 1] <= late->start)
			c++;
		if (c < o->ncp && o->w.marks[c] > pos &&
		    copy_range(o, dst, &pos, o->w.marks[c]))
			goto out;
		if (fseek(o->f, pos, SEEK_SET) != 0) {
			fail(o, "cannot seek in the JSON work file: %s", strerror(errno));
			goto out;
		}
		for (;;) {
			if (pos >= o->rows_end)
				break;
			ssize_t n = getline(&line, &cap, o->f);
			struct kt_row r;

			if (n <= 0) {
				fail(o, "read error on the JSON work file");
				goto out;
			}
			if (kt_json_parse_row(line, &r, &name)) {
				fail(o, "damaged row in the JSON work file");
				goto out;
			}
			if (kt_row_cmp(&r, late) > 0)
				break;
			fwrite(line, 1, (size_t)n, dst);
			pos += n;
		}
		put_row(o, dst, late);
	}
	if (copy_range(o, dst, &pos, o->rows_end))
		goto out;
	kt_json_footer(dst);
	if (fflush(dst) != 0 || ferror(dst))
		fail(o, "write error on the JSON output (disk full?): %s",
		     strerror(errno));
out:
	free(line);
	kt_buf_free(&name);
	return o->err[0] ? -1 : 0;
}

void kt_jsonout_free(struct kt_jsonout *o)
{
	if (!o)
		return;
	stop_writer(o);
	kt_chq_free(&o->w.in);
	kt_chq_free(&o->w.out);
	free(o->w.text);
	free(o->w.marks);
	for (int i = 0; i < NCACHE; i++)
		if (o->cache[i].esc)	/* most are empty: skip 4,096 calls */
			free(o->cache[i].esc);
	for (int k = 0; k <= NLANES; k++)
		free(o->lane[k].r);
	free(o->header);
	free(o->cpbelow);
	free(o->late);
	free(o->buf);
	free(o);
}

const struct kt_row *kt_jsonout_late_rows(const struct kt_jsonout *o, size_t *n)
{
	*n = o->nlate;
	return o->late;
}

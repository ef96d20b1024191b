// SPDX-License-Identifier: BSD-3-Clause
/*
 * kutrace_postproc - raw trace to timespan JSON (and HTML) in one process
 * and one pass.
 *
 *   kutrace_postproc FILE.trace ["title"] [-o OUT.json] [--no-html]
 *
 * The original needs rawtoevent | sort -n | eventtospan3 | sort.  Here the
 * per-CPU block streams are merged in memory: blocks come in allocation
 * order (kt_raw_each), which is time order per CPU, and an event is handed
 * to the span builder once no later block can still produce an earlier
 * event (the block start minus the late-store window).  The reorder FIFOs
 * therefore hold about one block per CPU (lib/decode/merge.c), and rows are
 * written in order as they come (lib/rows/jsonout.c), so memory does not grow
 * with the trace.
 *
 * --threads N (default: the machine's cores) spreads the work over threads
 * without changing a byte of the output.  The first pass's block checks
 * run in N-1 threads, each over its own share of the blocks, while this
 * thread learns the names in block order.  In the second pass one thread
 * decodes the blocks and merges the CPUs' events, in the same order as one
 * thread alone does, and hands the merged events on in chunks, with a mark
 * at each block's end; this thread builds the spans, and two more order
 * and write the rows (jsonout.c).  The span builder stays one thread: a wakeup,
 * a wait, a lock or a thread's name joins the timelines of the CPUs, in
 * time order, so the per-CPU streams are only independent until the merge.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tool.h"
#include "page.h"

struct ctx {
	struct kt_raw raw;
	struct kt_decoder *dec;
	int skip_damaged;	/* --skip-damaged: skip and count damaged blocks */
	long skipped;
	char err[256];
	/*
	 * Each block is checked once, in the first pass; the verdict
	 * (kt_block_check's 0, 1 or -1, by block index) and the line of a
	 * non-zero one are kept for the second.
	 */
	signed char *verdict;
	char **vmsg;
	long nverdict;
	struct kt_spans *spans;
	struct kt_jsonout *jo;
	struct kt_json_meta meta;
	struct kt_merge *merge;	/* per-CPU FIFOs -> one time-ordered stream */
	int64_t window;		/* nsec10 */
	int64_t released;	/* highest time handed on */
	uint64_t disorder;	/* events that came after the watermark */
	int64_t lag;		/* the most the order bound fell behind (nsec10) */
	FILE *out;
	/* The user buffers' events (ubuf.c), in time order, and the next. */
	struct kt_user user;
	struct kt_event *uev;
	size_t nuev, ucap, unext;
	char tracebase[32];
	/* For the progress line: rows made, blocks through each pass. */
	uint64_t rows;
	long checked, decoded;
	/* --threads: the decoding thread's items, and what it saw last. */
	int threads;
	struct kt_chq dq;
	int dq_on;		/* the decoder hands its events to dq */
	unsigned int dflags;	/* kt_decoder_flags after the last block taken */
	char derr[256];		/* the decoding thread's fatal line */
	int par_checked;	/* the checks ran in threads of their own */
	double dec_cpu, check_cpu;	/* seconds, for --stats */
};

/*
 * What the decoding thread hands on, in the order one thread makes it:
 * the events as they leave the merge, each block's end, and the lines
 * about damaged blocks, printed here where one thread prints them.
 */
enum { D_EVENT, D_BLOCK, D_WARN, D_SKIP, D_FATAL };
struct ditem {
	int kind;
	unsigned int flags;	/* D_BLOCK: the decoder's flags after it */
	long block;		/* D_WARN, D_SKIP, D_FATAL: its index (-1: derr) */
	struct kt_event e;	/* D_EVENT */
};

/* Header facts: name records may come at any time, so read them late. */
static void set_meta(struct ctx *c)
{
	kt_spans_meta(c->spans, &c->meta);
	c->meta.flags = c->dq_on ? c->dflags : kt_decoder_flags(c->dec);
}

/* One event leaves the merge, in time order: on to the span builder. */
/* One event in time order to the span builder (this thread, always). */
static void span_event(struct ctx *c, const struct kt_event *e)
{
	int due = kt_jsonout_due(c->jo);

	if (due) {
		int64_t low = kt_spans_low(c->spans, e->t, due == 2);

		if (e->t - low > c->lag)
			c->lag = e->t - low;
		set_meta(c);
		kt_jsonout_advance(c->jo, low, &c->meta);
	}
	kt_spans_event(c->spans, e);
}

/*
 * One event leaves the merge, in time order: on to the span builder, or
 * with --threads, from the decoding thread (which merges) to this one.
 */
static void on_release(void *p, const struct kt_event *e)
{
	struct ctx *c = p;

	if (e->t > c->released)
		c->released = e->t;
	if (!c->dq_on) {
		span_event(c, e);
		return;
	}
	struct ditem *d = kt_chq_slot(&c->dq);

	d->kind = D_EVENT;
	d->e = *e;
	kt_chq_put(&c->dq);
}

/* A decoded event joins the merge (the decoding thread's, with --threads). */
static void on_event(void *p, const struct kt_event *e)
{
	struct ctx *c = p;

	/* Name records too: a thread's name changes at its time (exec). */
	if (e->t < c->released)
		c->disorder++;	/* cross-CPU clock drift beyond the window */
	kt_merge_push(c->merge, e);
}

static void on_row(void *p, const struct kt_row *r)
{
	struct ctx *c = p;

	c->rows++;
	kt_jsonout_row(c->jo, r);
}

static void named(void *spans, uint32_t pid, int64_t until)
{
	kt_spans_named(spans, pid, until);
}

static void setup(struct ctx *c)
{
	if (c->dec)
		return;
	c->dec = kt_xdecoder_new(&c->raw, on_event, c);
	kt_decoder_prechecked(c->dec);
	kt_decoder_on_named(c->dec, named, c->spans);
	const struct kt_timebase *tb = kt_decoder_timebase(c->dec);

	kt_timebase_string(tb, c->tracebase, sizeof(c->tracebase));
	c->meta.tracebase = c->tracebase;
	int64_t t0, t1;

	kt_decoder_edges(c->dec, &t0, &t1);
	kt_spans_edges(c->spans, t0, t1);
	/* Late-store window plus the first-entry slack, in nsec10. */
	c->window = (int64_t)((double)(KUTRACE_LATE_STORE_WINDOW + 8192) *
			      tb->slope_us * 100.0) + 1;
}

static void check_one(struct ctx *c, const struct kt_block *b, char *err, size_t errlen)
{
	int rc = kt_block_check(b, err, errlen);

	c->verdict[b->index] = (signed char)rc;
	if (rc)
		c->vmsg[b->index] = kt_xstrdup(err);
}

/* First pass: each block checked, and names that user code may have put in any block. */
static int on_prescan(void *p, const struct kt_block *b)
{
	struct ctx *c = p;

	setup(c);
	if (!c->par_checked) {
		if (b->index >= c->nverdict) {
			long n = c->nverdict ? c->nverdict : 256;

			while (n <= b->index)
				n *= 2;
			c->verdict = kt_xrealloc(c->verdict, (size_t)n);
			c->vmsg = kt_xrealloc(c->vmsg, (size_t)n * sizeof(*c->vmsg));
			memset(c->verdict + c->nverdict, 0, (size_t)(n - c->nverdict));
			memset(c->vmsg + c->nverdict, 0, (size_t)(n - c->nverdict) * sizeof(*c->vmsg));
			c->nverdict = n;
		}
		free(c->vmsg[b->index]);
		c->vmsg[b->index] = NULL;
		check_one(c, b, c->err, sizeof(c->err));
	}
	c->checked++;
	kt_progress("blocks checked", (uint64_t)c->checked, (uint64_t)c->checked,
		    (uint64_t)c->raw.nrefs);
	/* With --skip-damaged the checks are done by now (main). */
	if (c->skip_damaged && b->index < c->nverdict && c->verdict[b->index] < 0)
		return 0;	/* reported by on_block */
	kt_decoder_prescan(c->dec, b);
	return 0;
}

static void on_user_event(void *p, const struct kt_event *e)
{
	struct ctx *c = p;

	if (c->nuev == c->ucap) {
		c->ucap = c->ucap ? c->ucap * 2 : 1024;
		c->uev = kt_xrealloc(c->uev, c->ucap * sizeof(*c->uev));
	}
	c->uev[c->nuev++] = *e;
}

/* The user buffers, checked and decoded once the names are known. */
static void user_load(struct ctx *c)
{
	if (!c->dec)
		return;
	if (kt_user_load(&c->raw, c->raw.refs, c->raw.nrefs, &c->user) < 0)
		kt_die("%s", c->raw.err);
	kt_decode_user(c->dec, &c->user, on_user_event, c);
}

/* Every event before upto leaves the merge, the user's among them. */
static void user_release(struct ctx *c, int64_t upto)
{
	while (c->unext < c->nuev && c->uev[c->unext].t < upto)
		kt_merge_push_user(c->merge, &c->uev[c->unext++]);
	kt_merge_release(c->merge, upto, on_release, c);
}

static int on_block(void *p, const struct kt_block *b)
{
	struct ctx *c = p;
	int rc = b->index < c->nverdict ? c->verdict[b->index] : 0;

	setup(c);
	c->decoded++;
	if (rc)
		kt_progress_end();	/* the line below starts a line of its own */
	if (rc > 0)
		fprintf(stderr, "%s: %s: %s\n", kt_progname(), c->raw.path, c->vmsg[b->index]);
	if (rc < 0) {
		if (!c->skip_damaged)
			kt_die("%s: %s", c->raw.path, c->vmsg[b->index]);
		fprintf(stderr, "%s: %s: %s (block skipped)\n", kt_progname(),
			c->raw.path, c->vmsg[b->index]);
		c->skipped++;
		return 0;
	}
	if (kt_decode_block(c->dec, b) < 0)
		kt_die("%s: %s", c->raw.path, kt_decoder_err(c->dec));
	int64_t t0 = kt_timebase_ns10(kt_decoder_timebase(c->dec), b->base);

	user_release(c, t0 - c->window);
	kt_progress("rows", c->rows, (uint64_t)c->decoded, (uint64_t)c->raw.nrefs);
	return 0;
}

/* ---- --threads: the block checks and the decoding in threads of their own ---- */

struct checker {
	struct ctx *c;
	struct kt_raw r;	/* kt_raw_share of c->raw */
	long k, n;		/* blocks k, k+n, k+2n, ... */
	double cpu;
	pthread_t tid;
	int started;
};

/*
 * A read error is left to the names pass, which reads every block too and
 * stops at the first it cannot read, as one thread does.
 */
static void *check_main(void *p)
{
	struct checker *w = p;
	struct kt_block *b = kt_xmalloc(sizeof(*b));
	char err[256];

	for (long i = w->k; i < w->r.nrefs; i += w->n) {
		if (kt_raw_read_at(&w->r, &w->r.refs[i], b) <= 0 || b->index >= w->c->nverdict)
			break;
		check_one(w->c, b, err, sizeof(err));
	}
	free(b);
	w->cpu = kt_thread_cpu();
	return NULL;
}

/* The checks of every block in n threads; 0, or -1 if they cannot run. */
static int checks_start(struct ctx *c, struct checker *w, int n)
{
	if (kt_raw_prepare(&c->raw) < 0)
		kt_die("%s", c->raw.err);
	if (!c->raw.each_indexed || !c->raw.map)
		return -1;
	long max = 0;

	for (long i = 0; i < c->raw.nrefs; i++)
		if (c->raw.refs[i].index >= max)
			max = c->raw.refs[i].index + 1;
	c->nverdict = max;
	c->verdict = kt_xcalloc((size_t)max + 1, 1);
	c->vmsg = kt_xcalloc((size_t)max + 1, sizeof(*c->vmsg));
	for (int k = 0; k < n; k++) {
		w[k] = (struct checker){ .c = c, .k = k, .n = n };
		if (kt_raw_share(&w[k].r, &c->raw) < 0 ||
		    pthread_create(&w[k].tid, NULL, check_main, &w[k]) != 0)
			kt_die("cannot start the block check threads: %s", strerror(errno));
		w[k].started = 1;
	}
	return 0;
}

static void checks_join(struct checker *w, int n)
{
	for (int k = 0; k < n; k++) {
		if (!w[k].started)
			continue;
		pthread_join(w[k].tid, NULL);
		kt_raw_close(&w[k].r);
		w[k].started = 0;
		w->c->check_cpu += w[k].cpu;
	}
}

static void put_item(struct ctx *c, int kind, long block)
{
	struct ditem *d = kt_chq_slot(&c->dq);

	d->kind = kind;
	d->block = block;
	d->flags = kind == D_BLOCK ? kt_decoder_flags(c->dec) : 0;
	kt_chq_put(&c->dq);
}

/* The decoding thread's on_block: what on_block does but the span side. */
static int decode_block(void *p, const struct kt_block *b)
{
	struct ctx *c = p;
	int rc = b->index < c->nverdict ? c->verdict[b->index] : 0;

	if (rc > 0)
		put_item(c, D_WARN, b->index);
	if (rc < 0) {
		put_item(c, c->skip_damaged ? D_SKIP : D_FATAL, b->index);
		return !c->skip_damaged;
	}
	if (kt_decode_block(c->dec, b) < 0) {
		snprintf(c->derr, sizeof(c->derr), "%s: %s", c->raw.path, kt_decoder_err(c->dec));
		put_item(c, D_FATAL, -1);
		return 1;
	}
	put_item(c, D_BLOCK, b->index);
	user_release(c, kt_timebase_ns10(kt_decoder_timebase(c->dec), b->base) - c->window);
	return 0;
}

static void *decode_main(void *p)
{
	struct ctx *c = p;

	if (kt_raw_each(&c->raw, decode_block, c) < 0) {
		snprintf(c->derr, sizeof(c->derr), "%s", c->raw.err);
		put_item(c, D_FATAL, -1);
	}
	/* The rest leaves the merge here, after the join (main). */
	c->dec_cpu = kt_thread_cpu();
	kt_chq_close(&c->dq);
	return NULL;
}

/* This thread's side of the second pass: the items, in order. */
static void take_items(struct ctx *c)
{
	const struct ditem *d;
	size_t n;

	while ((d = kt_chq_take(&c->dq, &n))) {
		for (size_t i = 0; i < n; i++, d++) {
			switch (d->kind) {
			case D_EVENT:
				span_event(c, &d->e);
				break;
			case D_BLOCK:
				c->decoded++;
				c->dflags = d->flags;
				kt_progress("rows", c->rows, (uint64_t)c->decoded, (uint64_t)c->raw.nrefs);
				break;
			case D_WARN:
				kt_progress_end();
				fprintf(stderr, "%s: %s: %s\n", kt_progname(), c->raw.path, c->vmsg[d->block]);
				break;
			case D_SKIP:
				c->decoded++;
				kt_progress_end();
				fprintf(stderr, "%s: %s: %s (block skipped)\n", kt_progname(),
					c->raw.path, c->vmsg[d->block]);
				c->skipped++;
				break;
			default:
				kt_progress_end();
				if (d->block >= 0)
					kt_die("%s: %s", c->raw.path, c->vmsg[d->block]);
				kt_die("%s", c->derr);
			}
		}
		kt_chq_done(&c->dq);
	}
}

/* The second pass with the decoding in a thread of its own. */
static void decode_threaded(struct ctx *c)
{
	pthread_t tid;

	kt_chq_init(&c->dq, sizeof(struct ditem), 8192);
	c->dflags = kt_decoder_flags(c->dec);
	c->dq_on = 1;
	if (pthread_create(&tid, NULL, decode_main, c) != 0)
		kt_die("cannot start the decoding thread: %s", strerror(errno));
	take_items(c);
	pthread_join(tid, NULL);
	c->dq_on = 0;
	kt_chq_free(&c->dq);
}

static void page_row(void *p, const struct kt_row *r)
{
	kt_pagecols_row(p, r);
}

/*
 * The tables are one more sink: the rows go to kutrace_sql, which links
 * DuckDB (this program does not), through a pipe as binary records
 * (rowpipe.c); kutrace_sql writes the store.  With --rows-fd the rows go
 * to a descriptor given by the caller instead (kutrace_sql build X.trace).
 */
struct tables {
	FILE *f;
	struct kt_rowpipe_w *w;
	pid_t child;		/* the kutrace_sql writing the store, or 0 */
	int err;		/* errno of the first failed write */
	const char *dir;
};

static void tables_row(void *p, const struct kt_row *r)
{
	struct tables *t = p;

	if (!t->err && kt_rowpipe_row(t->w, r) < 0)
		t->err = errno ? errno : EIO;
}

/*
 * When this program ends early (kt_die), kutrace_sql sees the stream end
 * without its end mark and removes its unfinished store: wait for that, so
 * nothing is left behind once this program has exited.
 */
static pid_t tables_child;
static FILE *tables_file;

static void tables_reap(void)
{
	if (!tables_child)
		return;
	if (tables_file)
		fclose(tables_file);
	waitpid(tables_child, NULL, 0);
}

static void tables_start(struct tables *t, const char *dir, const char *source, int fd)
{
	t->dir = dir;
	if (fd < 0) {
		/* It draws its steps on the line this program draws its rows on. */
		char *args[] = { "kutrace_sql", "build", "--rows-fd", "3", "-o", (char *)dir,
				 "--source", (char *)source,
				 kt_progress_on() ? "--progress" : "--quiet", NULL };

		t->child = kt_spawn_fd3("kutrace_sql", args, 0, &fd, dir);
		/* A reader that stopped is reported by its exit status. */
		signal(SIGPIPE, SIG_IGN);
	}
	t->f = fdopen(fd, "w");
	t->w = t->f ? kt_rowpipe_w_new(t->f) : NULL;
	if (!t->w)
		kt_die("%s: %s", dir, strerror(errno));
	if (t->child) {
		tables_child = t->child;
		tables_file = t->f;
		atexit(tables_reap);
	}
	setvbuf(t->f, NULL, _IOFBF, 1 << 20);
}

static void tables_finish(struct tables *t, const struct kt_row *late, size_t nlate,
			  const char *header, const char *backend, const char *json_path)
{
	for (size_t i = 0; i < nlate; i++)
		tables_row(t, &late[i]);
	if (!t->err && kt_rowpipe_end(t->w, header, backend) < 0)
		t->err = errno ? errno : EIO;
	tables_child = 0;
	if (fclose(t->f) != 0 && !t->err)
		t->err = errno ? errno : EIO;
	kt_rowpipe_w_free(t->w);
	int st = 0;

	if (t->child && waitpid(t->child, &st, 0) < 0)
		st = -1;
	if (t->child && (st != 0))
		kt_die("%s: no tables written (kutrace_sql failed); %s was written", t->dir,
		       json_path);
	if (t->err)
		kt_die("%s: %s; %s was written", t->dir, strerror(t->err), json_path);
	if (t->child)
		fprintf(stderr, "kutrace_postproc: tables -> %s\n", t->dir);
}

/* The page from the columns the rows built; the JSON is complete already. */
static void write_page(struct kt_pagecols *cols, const char *tpl, const char *header,
		       const char *hpath, const char *json_path)
{
	char *footer = NULL;
	size_t flen = 0;
	FILE *fm = open_memstream(&footer, &flen);
	char err[256], note[4200];

	snprintf(note, sizeof(note), "; %s was written, no HTML", json_path);
	if (!fm)
		kt_die("out of memory%s", note);
	kt_json_footer(fm);
	if (fclose(fm) != 0)
		kt_die("out of memory%s", note);
	FILE *hout = kt_out_open(hpath, note);

	if (kt_html_write_rows(hout, tpl, cols, header, footer, err, sizeof(err)) != 0)
		kt_die("%s: %s%s", hpath, err, note);
	kt_out_commit(hout);
	kt_progress_end();
	fprintf(stderr, "kutrace_postproc: timeline -> %s\n", hpath);
	free(footer);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: kutrace_postproc FILE.trace [\"title\"] [-o OUT.json] [--no-html]\n"
		"                        [--html-max-spans N] [--stats] [--skip-damaged]\n"
		"                        [--tables] [--rows-fd FD --no-json] [--quiet | --progress]\n"
		"                        [--threads N]\n"
		"Turns a raw kutrace/KUtrace trace into timespans: writes FILE.json (rows of\n"
		"[start, dur, cpu, pid, rpc, event, arg, retval, ipc, name]) and, when the\n"
		"viewer template is installed, the self-contained timeline FILE.html.\n"
		"The title defaults to the file name.  Traces of more than N spans (default\n"
		"20000000, 0 = no limit) get no HTML: a browser page cannot hold them well.\n"
		"--stats prints the CPU time of the reading, ordering and writing threads\n"
		"and how far behind the reading the rows' order bound fell at most.\n"
		"A damaged block stops the program with a line naming file, block and word;\n"
		"--skip-damaged skips such blocks instead (one line each) and counts them.\n"
		"--tables also writes the trace's SQL tables to FILE.tables/ (kutrace_sql,\n"
		"docs/TABLES.md).  --rows-fd hands the rows to descriptor FD (kutrace_sql\n"
		"build does); --no-json then writes no JSON.\n"
		"--threads N: threads for checking and decoding (default: $KUTRACE_THREADS,\n"
		"else the machine's cores; 1: all in one); the output is the same for any N.\n"
		"On a terminal a progress line shows the rows made so far; --quiet: never,\n"
		"--progress: also when standard error is not a terminal.\n");
}

/* Refuse an output that is the input trace itself (x.json, -o x.trace). */
static void not_the_input(const char *in, const char *out)
{
	struct stat a, b;

	if (strcmp(in, out) == 0 || (stat(in, &a) == 0 && stat(out, &b) == 0 &&
				      a.st_dev == b.st_dev && a.st_ino == b.st_ino))
		kt_die("%s: the output would overwrite the input trace; name it with -o", out);
}

struct args {
	const char *path, *title, *jpath;
	int html, stats, tables, json, quiet, progress;
	unsigned long long html_max, rows_fd, threads;
};

static void parse_args(int argc, char **argv, struct args *a, struct ctx *c)
{
	const struct kt_opt opts[] = {
		{ "o", KT_OPT_STR, &a->jpath, 0 },
		{ "no-html", KT_OPT_FLAG, &a->html, 0 },
		{ "stats", KT_OPT_FLAG, &a->stats, 1 },
		{ "skip-damaged", KT_OPT_FLAG, &c->skip_damaged, 1 },
		{ "html-max-spans", KT_OPT_ULL, &a->html_max, 0 },
		{ "tables", KT_OPT_FLAG, &a->tables, 1 },
		{ "rows-fd", KT_OPT_ULL, &a->rows_fd, 0 },
		{ "no-json", KT_OPT_FLAG, &a->json, 0 },
		{ "quiet", KT_OPT_FLAG, &a->quiet, 1 },
		{ "progress", KT_OPT_FLAG, &a->progress, 1 },
		{ "threads", KT_OPT_ULL, &a->threads, 0 },
		{ NULL, 0, NULL, 0 },
	};
	const struct kt_argspec spec = { opts, usage, 1, 2, 0 };
	const char *pos[2];

	if (kt_args(&spec, argc, argv, pos) == 2)
		a->title = pos[1];
	a->path = pos[0];
	if (!a->title)
		a->title = a->path;
	if (a->rows_fd != ~0ULL && (a->rows_fd < 3 || a->rows_fd > INT_MAX))
		kt_die("--rows-fd %llu: a descriptor from 3 up", a->rows_fd);
	if (!a->json && a->rows_fd == ~0ULL)
		kt_die("--no-json is for --rows-fd: the rows must go somewhere");
	if (a->tables && a->rows_fd != ~0ULL)
		kt_die("--tables and --rows-fd: one destination for the rows");
	if (!a->json)
		a->html = 0;
	if (a->quiet && a->progress)
		kt_die("--quiet and --progress: one or the other");
	if (a->threads < 1 || a->threads > 256) {	/* a usage error, as a bad number */
		fprintf(stderr, "%s: --threads %llu: from 1 to 256\n", kt_progname(), a->threads);
		exit(2);
	}
	c->threads = (int)a->threads;
	kt_progress_mode(a->quiet ? KT_PROGRESS_OFF : a->progress ? KT_PROGRESS_ON : KT_PROGRESS_AUTO);
}

/* Bytes the kernel copies mostly: late rows or a changed header. */
static FILE *copy_json(struct ctx *c)
{
	FILE *f2 = kt_out_redo(c->out);

	if (kt_jsonout_copy(c->jo, f2) < 0)
		kt_die("%s: %s", kt_out_tmpname(f2), kt_jsonout_error(c->jo));
	return f2;
}

static void print_summary(struct ctx *c, const char *json_path, int stats)
{
	if (kt_jsonout_late(c->jo))
		fprintf(stderr, "kutrace_postproc: %zu rows placed late (one more copy of %s)\n",
			kt_jsonout_late(c->jo), json_path);
	if (c->skipped)
		fprintf(stderr, "kutrace_postproc: %ld damaged blocks skipped\n", c->skipped);
	char line[512];

	kt_user_summary(&c->user, line, sizeof(line));
	if (line[0])
		fprintf(stderr, "kutrace_postproc: %s\n", line);
	fprintf(stderr, "kutrace_postproc: %" PRIu64 " events, %" PRIu64 " spans -> %s\n",
		kt_decoder_events(c->dec), kt_jsonout_rows(c->jo), json_path);
	if (c->disorder)
		fprintf(stderr, "kutrace_postproc: warning: %" PRIu64
			" events arrived out of order across CPUs (clock drift)\n",
			c->disorder);
	if (stats) {
		/* The reader builds the spans; with --threads the decoder merges. */
		double rd = kt_thread_cpu(), od, wr;

		kt_jsonout_cpu(c->jo, &od, &wr);
		fprintf(stderr, "kutrace_postproc: cpu reader %.2f s, orderer %.2f s, writer %.2f s\n",
			rd, od, wr);
		if (c->threads > 1)
			fprintf(stderr, "kutrace_postproc: cpu decoder %.2f s, block checks %.2f s (--threads %d)\n",
				c->dec_cpu, c->check_cpu, c->threads);
		fprintf(stderr, "kutrace_postproc: rows waited for their order at most %.3f ms of trace time\n",
			c->lag / 1e5);
	}
}

int main(int argc, char **argv)
{
	struct ctx c = { .released = INT64_MIN };
	/* What one page of the viewer holds well (about 7 s to open 10M). */
	/* KUTRACE_THREADS: the default for the programs that run this one. */
	const char *te = getenv("KUTRACE_THREADS");
	long ncpu = te && *te ? atol(te) : sysconf(_SC_NPROCESSORS_ONLN);
	struct args a = { .html = 1, .html_max = 20000000, .json = 1, .rows_fd = ~0ULL,
			  .threads = ncpu > 1 ? (unsigned long long)(ncpu < 256 ? ncpu : 256) : 1 };

	kt_set_progname(argv[0]);
	parse_args(argc, argv, &a, &c);
	const char *path = a.path;
	int html = a.html;
	char *json_path = a.jpath ? kt_xstrdup(a.jpath) : kt_with_ext(path, ".json");
	char *hpath = kt_with_ext(json_path, ".html");

	not_the_input(path, json_path);
	if (html)
		not_the_input(path, hpath);
	if (kt_raw_open(&c.raw, path) < 0)
		kt_die("%s", c.raw.err);
	char *tdir = a.tables ? kt_with_ext(json_path, ".tables") : NULL;
	struct tables tab = { 0 };

	if (tdir)
		not_the_input(path, tdir);
	/* --no-json: the writer's text goes nowhere; only the row sinks count. */
	c.out = a.json ? kt_out_open(json_path, NULL) : fopen("/dev/null", "w");
	if (!c.out)
		kt_die("/dev/null: %s", strerror(errno));
	setvbuf(c.out, NULL, _IOFBF, 1 << 20);
	c.meta.title = a.title;
	c.meta.tracebase = "";
	c.meta.version = KUTRACE_EVENT_TEXT_VERSION;
	c.meta.randomid = (uint32_t)(time(NULL) ^ ((uint32_t)getpid() * 12345678u));
	c.spans = kt_spans_new(on_row, &c);
	c.merge = kt_merge_new();
	c.jo = kt_jsonout_new(c.out);
	if (!c.jo)
		kt_die("cannot start the JSON writer threads: %s", strerror(errno));
	/* The page's columns are one more sink of the row stream. */
	char *tpl = html ? kt_html_find_template(argv[0]) : NULL;
	struct kt_pagecols *cols = tpl ? kt_pagecols_new(a.html_max) : NULL;

	if (cols)
		kt_jsonout_tee(c.jo, page_row, cols);
	if (!a.json)
		kt_jsonout_no_text(c.jo);
	if (tdir || a.rows_fd != ~0ULL) {
		tables_start(&tab, tdir ? tdir : "the row stream", path,
			     tdir ? -1 : (int)a.rows_fd);
		kt_jsonout_tee(c.jo, tables_row, &tab);
	}
	int nw = c.threads - 1;
	struct checker *w = nw > 0 ? kt_xcalloc((size_t)nw, sizeof(*w)) : NULL;

	if (nw > 0 && checks_start(&c, w, nw) == 0) {
		c.par_checked = 1;
		if (c.skip_damaged)
			checks_join(w, nw);	/* the names pass skips damaged blocks */
	}
	if (kt_raw_each(&c.raw, on_prescan, &c) < 0)
		kt_die("%s", c.raw.err);
	checks_join(w, nw);
	free(w);
	user_load(&c);
	if (c.threads > 1 && c.dec)
		decode_threaded(&c);
	else if (kt_raw_each(&c.raw, on_block, &c) < 0)
		kt_die("%s", c.raw.err);
	kt_progress_end();
	if (!c.dec)
		kt_die("%s: no trace blocks", c.raw.path);
	user_release(&c, INT64_MAX);
	kt_spans_finish(c.spans);
	set_meta(&c);
	int copy = kt_jsonout_finish(c.jo, &c.meta);

	if (copy < 0)
		kt_die("%s", kt_jsonout_error(c.jo));
	if (!a.json)
		fclose(c.out);
	else if (copy)
		c.out = copy_json(&c);
	if (a.json)
		kt_out_commit(c.out);
	print_summary(&c, a.json ? json_path : "the row stream", a.stats);

	uint64_t rows = kt_jsonout_rows(c.jo);
	char *header = kt_xstrdup(kt_jsonout_header(c.jo));
	size_t nlate;
	const struct kt_row *late = kt_jsonout_late_rows(c.jo, &nlate);

	if (cols && nlate)
		kt_pagecols_late(cols, late, nlate);
	if (tab.f)
		tables_finish(&tab, late, nlate, header, kt_decoder_backend(c.dec), json_path);
	free(tdir);
	/* Give the row buffers back before the page needs memory. */
	kt_jsonout_free(c.jo);
	kt_spans_free(c.spans);
	kt_merge_free(c.merge);
	c.merge = NULL;
	if (html && a.html_max && rows > a.html_max) {
		fprintf(stderr, "kutrace_postproc: %" PRIu64 " spans are more than one timeline page holds "
			"(--html-max-spans %llu); no HTML written.\n"
			"  Cut a time range first: spantotrim START STOP < %s > part.json; makeself - part.json part.html\n",
			rows, a.html_max, json_path);
		html = 0;
	}
	if (html && !tpl)
		fprintf(stderr, "kutrace_postproc: viewer template not found; no HTML written\n");
	if (html && tpl) {
		kt_progress_step("timeline page");
		write_page(cols, tpl, header, hpath, json_path);
	}
	kt_pagecols_free(cols);
	free(tpl);
	free(header);
	free(hpath);
	free(json_path);
	kt_decoder_free(c.dec);
	kt_user_free(&c.user);
	free(c.uev);
	kt_raw_close(&c.raw);
	for (long i = 0; i < c.nverdict; i++)
		free(c.vmsg[i]);
	free(c.vmsg);
	free(c.verdict);
	return 0;
}

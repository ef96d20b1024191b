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
 * event (the block start minus the late-store window).  The reorder heap
 * therefore holds about one block per CPU, and the output sorter spills to
 * a temporary file, so memory does not grow with the trace.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kutrace/kutrace.h"
#include "kutrace/html.h"

struct item {
	struct kt_event e;
	uint64_t seq;
};

struct ctx {
	struct kt_raw raw;
	struct kt_decoder *dec;
	struct kt_spans *spans;
	struct kt_rowsort *sort;
	struct item *heap;
	size_t n, cap;
	uint64_t seq;
	int64_t window;		/* nsec10 */
	int64_t released;	/* highest time handed on */
	uint64_t disorder;	/* events that came after the watermark */
	FILE *out;
};

static int less(const struct item *a, const struct item *b)
{
	if (a->e.t != b->e.t)
		return a->e.t < b->e.t;
	return a->seq < b->seq;
}

static void heap_push(struct ctx *c, const struct kt_event *e)
{
	if (c->n == c->cap) {
		c->cap = c->cap ? c->cap * 2 : 65536;
		c->heap = kt_xrealloc(c->heap, c->cap * sizeof(*c->heap));
	}
	size_t i = c->n++;

	c->heap[i].e = *e;
	c->heap[i].seq = c->seq++;
	while (i > 0) {
		size_t p = (i - 1) / 2;

		if (!less(&c->heap[i], &c->heap[p]))
			break;
		struct item t = c->heap[i];

		c->heap[i] = c->heap[p];
		c->heap[p] = t;
		i = p;
	}
}

static void heap_pop(struct ctx *c)
{
	c->heap[0] = c->heap[--c->n];
	size_t i = 0;

	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;

		if (l < c->n && less(&c->heap[l], &c->heap[m]))
			m = l;
		if (r < c->n && less(&c->heap[r], &c->heap[m]))
			m = r;
		if (m == i)
			break;
		struct item t = c->heap[i];

		c->heap[i] = c->heap[m];
		c->heap[m] = t;
		i = m;
	}
}

static void release(struct ctx *c, int64_t upto)
{
	while (c->n && c->heap[0].e.t < upto) {
		if (c->heap[0].e.t > c->released)
			c->released = c->heap[0].e.t;
		kt_spans_event(c->spans, &c->heap[0].e);
		heap_pop(c);
	}
}

static void on_event(void *p, const struct kt_event *e)
{
	struct ctx *c = p;

	/* Name records pass straight on: they only fill tables. */
	if (e->event >= KUTRACE_VARLEN_LO && e->event <= KUTRACE_VARLEN_HI) {
		kt_spans_event(c->spans, e);
		return;
	}
	if (e->t < c->released)
		c->disorder++;	/* cross-CPU clock drift beyond the window */
	heap_push(c, e);
}

static void on_row(void *p, const struct kt_row *r)
{
	kt_rowsort_add(((struct ctx *)p)->sort, r);
}

static void write_row(void *p, const struct kt_row *r)
{
	kt_json_row(((struct ctx *)p)->out, r);
}

static int on_block(void *p, const struct kt_block *b)
{
	struct ctx *c = p;
	char err[256];

	if (b->index == 0) {
		c->dec = kt_decoder_new(&c->raw, on_event, c, err, sizeof(err));
		if (!c->dec)
			kt_die("%s", err);
		const struct kt_timebase *tb = kt_decoder_timebase(c->dec);

		/* Late-store window plus the first-entry slack, in nsec10. */
		c->window = (int64_t)((double)(KUTRACE_LATE_STORE_WINDOW + 8192) *
				      tb->slope_us * 100.0) + 1;
	}
	if (kt_decode_block(c->dec, b) < 0)
		kt_die("%s: %s", c->raw.path, kt_decoder_err(c->dec));
	int64_t t0 = kt_timebase_ns10(kt_decoder_timebase(c->dec), b->base);

	release(c, t0 - c->window);
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: kutrace_postproc FILE.trace [\"title\"] [-o OUT.json] [--no-html]\n"
		"Turns a raw kutrace/KUtrace trace into timespans: writes FILE.json (rows of\n"
		"[start, dur, cpu, pid, rpc, event, arg, retval, ipc, name]) and, when the\n"
		"viewer template is installed, the self-contained timeline FILE.html.\n"
		"The title defaults to the file name.\n");
}

static char *replace_ext(const char *path, const char *ext)
{
	size_t n = strlen(path);
	const char *dot = strrchr(path, '.');
	const char *slash = strrchr(path, '/');

	if (dot && (!slash || dot > slash))
		n = (size_t)(dot - path);
	char *out = kt_xmalloc(n + strlen(ext) + 1);

	memcpy(out, path, n);
	strcpy(out + n, ext);
	return out;
}

int main(int argc, char **argv)
{
	struct ctx c = { .released = INT64_MIN };
	const char *path = NULL, *title = NULL, *jpath = NULL;
	int html = 1;

	kt_set_progname(argv[0]);
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(argv[i], "-o") && i + 1 < argc) {
			jpath = argv[++i];
		} else if (!strcmp(argv[i], "--no-html")) {
			html = 0;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			usage(stderr);
			return 2;
		} else if (!path) {
			path = argv[i];
		} else if (!title) {
			title = argv[i];
		} else {
			usage(stderr);
			return 2;
		}
	}
	if (!path) {
		usage(stderr);
		return 2;
	}
	if (!title)
		title = path;
	char *json_path = jpath ? kt_xstrdup(jpath) : replace_ext(path, ".json");

	if (kt_raw_open(&c.raw, path) < 0)
		kt_die("%s", c.raw.err);
	c.spans = kt_spans_new(on_row, &c);
	c.sort = kt_rowsort_new(1 << 20);
	if (kt_raw_each(&c.raw, on_block, &c) < 0)
		kt_die("%s", c.raw.err);
	release(&c, INT64_MAX);
	kt_spans_finish(c.spans);

	/* Write to a temporary name, rename when complete: no half files. */
	char *tmp = kt_xmalloc(strlen(json_path) + 8);

	sprintf(tmp, "%s.tmp", json_path);
	c.out = fopen(tmp, "w");
	if (!c.out)
		kt_die("cannot create %s", tmp);
	char tracebase[32];

	kt_timebase_string(kt_decoder_timebase(c.dec), tracebase, sizeof(tracebase));
	struct kt_json_meta m = {
		.title = title, .tracebase = tracebase,
		.kernel = kt_spans_kernel(c.spans), .model = kt_spans_model(c.spans),
		.host = kt_spans_host(c.spans), .flags = kt_decoder_flags(c.dec),
		.mbit = kt_spans_mbit(c.spans), .version = KUTRACE_EVENT_TEXT_VERSION,
		.randomid = (uint32_t)(time(NULL) ^ ((uint32_t)getpid() * 12345678u)),
	};
	kt_json_header(c.out, &m);
	uint64_t rows = kt_spans_rows(c.spans);

	kt_rowsort_finish(c.sort, write_row, &c);
	kt_json_footer(c.out);
	if (fflush(c.out) != 0 || ferror(c.out) || fclose(c.out) != 0) {
		unlink(tmp);
		kt_die("write error on %s (disk full?)", tmp);
	}
	if (rename(tmp, json_path) != 0)
		kt_die("cannot rename %s to %s", tmp, json_path);
	fprintf(stderr, "kutrace_postproc: %" PRIu64 " events, %" PRIu64 " spans -> %s\n",
		kt_decoder_events(c.dec), rows, json_path);
	if (c.disorder)
		fprintf(stderr, "kutrace_postproc: warning: %" PRIu64
			" events arrived out of order across CPUs (clock drift)\n",
			c.disorder);

	if (html) {
		char *tpl = kt_html_find_template(argv[0]);

		if (!tpl) {
			fprintf(stderr, "kutrace_postproc: viewer template not found; no HTML written\n");
		} else {
			char *hpath = replace_ext(json_path, ".html");
			FILE *jin = fopen(json_path, "r");
			FILE *hout = fopen(tmp, "w");
			char err[256];

			if (!jin || !hout)
				kt_die("cannot open %s or %s", json_path, tmp);
			if (kt_html_write(hout, tpl, jin, err, sizeof(err)) != 0) {
				fclose(hout);
				unlink(tmp);
				kt_die("%s", err);
			}
			fclose(jin);
			if (fclose(hout) != 0 || rename(tmp, hpath) != 0) {
				unlink(tmp);
				kt_die("write error on %s", hpath);
			}
			fprintf(stderr, "kutrace_postproc: timeline -> %s\n", hpath);
			free(hpath);
			free(tpl);
		}
	}
	free(tmp);
	free(json_path);
	free(c.heap);
	kt_spans_free(c.spans);
	kt_decoder_free(c.dec);
	kt_raw_close(&c.raw);
	return 0;
}

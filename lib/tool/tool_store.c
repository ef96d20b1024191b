// SPDX-License-Identifier: BSD-3-Clause
/*
 * tool_store.c - the programs' side of the table store (kutrace_sql,
 * kutrace_why): building a store from a trace (its rows from
 * kutrace_postproc through a pipe) or a JSON file, and opening the inputs
 * a user names (stores, globs of stores, traces and JSON files, whose
 * stores are built in a temporary directory removed at exit).  Like the
 * other tool_*.c files, these end the program with one line on an error.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <glob.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tool.h"
#include "page.h"
#include "jsonrows.h"
#include "store.h"

/* ---------------------------------------------------------------------- */
/* Temporary stores: removed at exit, also when kt_die ends the program.   */
/* ---------------------------------------------------------------------- */

static char *tmp_root;

static int rm_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static void rm_tmp(void)
{
	if (tmp_root)
		nftw(tmp_root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static void on_signal(int sig)
{
	rm_tmp();
	signal(sig, SIG_DFL);
	raise(sig);
}

static const char *tmp_dir(void)
{
	if (!tmp_root) {
		const char *t = getenv("TMPDIR");
		char *p = NULL;

		if (asprintf(&p, "%s/kutrace_sql.XXXXXX", t && *t ? t : "/tmp") < 0 || !mkdtemp(p))
			kt_die("cannot make a temporary directory: %s", strerror(errno));
		tmp_root = p;
		atexit(rm_tmp);
		signal(SIGINT, on_signal);
		signal(SIGTERM, on_signal);
		/* `kutrace_why X.trace ... | head` ends with SIGPIPE: the
		 * temporary store goes with it too. */
		signal(SIGHUP, on_signal);
		if (signal(SIGPIPE, on_signal) == SIG_IGN)
			signal(SIGPIPE, SIG_IGN);
	}
	return tmp_root;
}

/* ---------------------------------------------------------------------- */
/* Building a store                                                        */
/* ---------------------------------------------------------------------- */


/* The file name without directory and extension: the default trace id. */
char *kt_store_stem(const char *path)
{
	const char *b = strrchr(path, '/');
	char *s = kt_xstrdup(b ? b + 1 : path);
	char *dot = strrchr(s, '.');

	if (dot && dot != s)
		*dot = '\0';
	return s;
}

char *kt_with_ext(const char *path, const char *ext)
{
	const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');
	size_t n = dot && (!slash || dot > slash) ? (size_t)(dot - path) : strlen(path);
	char *o = kt_xmalloc(n + strlen(ext) + 1);

	memcpy(o, path, n);
	strcpy(o + n, ext);
	return o;
}

/* The JSON header's facts, as the JSON says them. */
struct hdr {
	json_t *o;
};

static const char *hdr_str(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);

	return json_is_string(v) ? json_string_value(v) : NULL;
}

static void finish_store(struct kt_store_w *w, json_t *h, const char *backend,
			 const struct kt_build *b, const char *dir)
{
	char *id = b->trace_id ? NULL : kt_store_stem(b->source);
	const char *host = hdr_str(h, "hostName");
	json_t *mb = json_object_get(h, "mbit_sec"), *fl = json_object_get(h, "flags");
	struct kt_store_meta m = {
		.trace_id = b->trace_id ? b->trace_id : id,
		.machine = b->machine ? b->machine : host && *host ? host : "unknown",
		.kernel = hdr_str(h, "kernelVersion"),
		.cpu_model = hdr_str(h, "cpuModelName"),
		.tracebase = hdr_str(h, "tracebase"),
		.backend = backend,
		.source = b->source,
		.mbit_sec = json_is_integer(mb) ? (int)json_integer_value(mb) : 1000,
		.flags = json_is_integer(fl) ? (unsigned int)json_integer_value(fl) : 0,
	};

	if (kt_store_w_finish(w, &m) < 0)
		kt_die("%s: %s", dir, kt_store_w_error(w));
	free(id);
}

static int64_t to_ns10(double sec, const char *path, long line)
{
	double v = nearbyint(sec * 1e8);

	if (!(v >= (double)-KT_ROW_TIME_MAX && v <= (double)KT_ROW_TIME_MAX))
		kt_die("%s:%ld: time %g s is out of range", path, line, sec);
	return (int64_t)v;
}

static int fits_int(int64_t v)
{
	return v >= INT32_MIN && v <= INT32_MAX;
}

/* Rows of a JSON file, kutrace's or the original KUtrace's. */
static void build_json(struct kt_store_w *w, const struct kt_build *b, const char *dir)
{
	struct kt_jreader r;
	struct kt_jrow jr;
	int rc;

	if (kt_jr_open(&r, b->source) < 0)
		kt_die("%s", r.err);
	while ((rc = kt_jr_next(&r, &jr)) == 1) {
		if (!fits_int(jr.cpu) || !fits_int(jr.pid) || !fits_int(jr.rpc) ||
		    !fits_int(jr.event) || !fits_int(jr.ipc))
			kt_die("%s:%ld: a row field is out of the 32-bit range", b->source, jr.line);
		struct kt_row row = {
			.start = to_ns10(jr.start, b->source, jr.line),
			.dur = to_ns10(jr.dur, b->source, jr.line),
			.cpu = (int)jr.cpu, .pid = (int)jr.pid, .rpc = (int)jr.rpc,
			.event = (int)jr.event, .arg = jr.arg, .retval = jr.retval,
			.ipc = (int)jr.ipc, .name = jr.name,
		};

		if (kt_store_w_row(w, &row) < 0)
			kt_die("%s: %s", dir, kt_store_w_error(w));
	}
	kt_progress_end();
	if (rc < 0)
		kt_die("%s", r.err);
	/* The header values as JSON, to read them as the JSON says them. */
	json_t *h = json_object();

	for (size_t i = 0; i < r.nhdr; i++) {
		json_t *v = json_loads(r.hdr[i].value_raw, JSON_DECODE_ANY, NULL);

		if (v)
			json_object_set_new(h, r.hdr[i].key, v);
	}
	finish_store(w, h, "json", b, dir);
	json_decref(h);
	kt_jr_close(&r);
}

/* Rows from a descriptor (kutrace_postproc --tables or --rows-fd). */
static void build_pipe(struct kt_store_w *w, int fd, const struct kt_build *b, const char *dir,
		       pid_t child)
{
	FILE *f = fdopen(fd, "r");
	struct kt_rowpipe_r p;
	struct kt_row row;
	int rc;

	if (!f)
		kt_die("descriptor %d: %s", fd, strerror(errno));
	setvbuf(f, NULL, _IOFBF, 1 << 20);
	kt_rowpipe_r_init(&p, f);
	while ((rc = kt_rowpipe_next(&p, &row)) == 1)
		if (kt_store_w_row(w, &row) < 0)
			kt_die("%s: %s", dir, kt_store_w_error(w));
	fclose(f);
	if (child) {
		int st;

		/* kutrace_postproc said why in one line, naming the trace. */
		if (waitpid(child, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
			exit(1);
	}
	/*
	 * A stream cut short from kutrace_postproc --tables: it stopped and
	 * says why itself; this program only removes its unfinished store.
	 */
	if (rc < 0 && !child && !p.header && strstr(p.err, "cut short"))
		exit(1);
	if (rc < 0)
		kt_die("%s: %s", b->source, p.err);
	/* The header text and "]}" make a JSON object with no events. */
	char *text = NULL;

	if (asprintf(&text, "%s]}", p.header) < 0)
		kt_die("out of memory");
	json_t *h = json_loads(text, 0, NULL);

	if (!h)
		kt_die("%s: the row stream's header is not JSON", b->source);
	finish_store(w, h, p.backend ? p.backend : "unknown", b, dir);
	json_decref(h);
	free(text);
	kt_rowpipe_r_free(&p);
}

/* The first byte after blanks: '{' a JSON file, '<' a page, else a trace. */
static int first_byte(const char *path)
{
	FILE *f = fopen(path, "rb");
	int c = EOF;

	if (!f)
		kt_die("%s: %s", path, strerror(errno));
	while ((c = getc(f)) == ' ' || c == '\n' || c == '\t' || c == '\r')
		;
	fclose(f);
	return c;
}

static int is_json(const char *path)
{
	return first_byte(path) == '{';
}

/* The JSON a timeline page carries, into the file json. */
static void page_json(const char *page, const char *json)
{
	FILE *f = kt_xfopen_in(page);
	size_t len = 0;
	char *html = kt_html_slurp(f, &len), err[512];

	if (!html)
		kt_die("%s: %s", page, strerror(errno));
	fclose(f);
	FILE *out = fopen(json, "w");

	if (!out)
		kt_die("%s: %s", json, strerror(errno));
	if (kt_html_extract(out, html, len, err, sizeof(err)) != 0) {
		fclose(out);
		unlink(json);
		kt_die("%s: %s", page, err);
	}
	if (fclose(out) != 0) {
		unlink(json);
		kt_die("%s: %s", json, strerror(errno));
	}
	free(html);
}

/* The store being written: removed if the program ends before it is whole. */
static struct kt_store_w *writing;

static void drop_writing(void)
{
	kt_store_w_free(writing);
	writing = NULL;
}

void kt_xbuild_store(const struct kt_build *b, const char *dir)
{
	char err[512] = "";
	static int once;
	struct kt_store_w *w = kt_store_w_new(dir, b->memory, err, sizeof(err));

	if (!w)
		kt_die("%s", err);
	if (!once++)
		atexit(drop_writing);
	writing = w;
	if (b->stats)
		kt_store_w_stats(w, stderr);
	else
		kt_store_w_progress(w, 1);
	if (b->rows_fd != ~0ULL) {
		build_pipe(w, (int)b->rows_fd, b, dir, 0);
	} else if (is_json(b->source)) {
		build_json(w, b, dir);
	} else {
		/* It draws its rows on the line this program then draws its steps on. */
		char *args[] = { "kutrace_postproc", (char *)b->source, "--no-json", "--rows-fd",
				 "3", kt_progress_on() ? "--progress" : "--quiet", NULL };
		int fd;
		pid_t pid = kt_spawn_fd3("kutrace_postproc", args, 1, &fd, dir);

		build_pipe(w, fd, b, dir, pid);
	}
	writing = NULL;
	kt_store_w_free(w);
}

/* ---------------------------------------------------------------------- */
/* Opening inputs                                                          */
/* ---------------------------------------------------------------------- */


static void add_input(struct kt_inputs *in, char *s)
{
	if (in->n == KT_MAX_INPUTS)
		kt_die("more than %d stores", KT_MAX_INPUTS);
	in->v[in->n++] = s;
}

static int is_dir(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* A file becomes a temporary store; a directory is a store. */
static void add_path(struct kt_inputs *in, const char *p, const char *memory)
{
	if (is_dir(p)) {
		add_input(in, kt_xstrdup(p));
		return;
	}
	if (access(p, R_OK) < 0)
		kt_die("%s: %s", p, strerror(errno));
	char *s = kt_store_stem(p), *dir = NULL, *json = NULL;

	if (asprintf(&dir, "%s/%zu-%s.tables", tmp_dir(), in->n, s) < 0)
		kt_die("out of memory");
	struct kt_build b = { .memory = memory, .rows_fd = ~0ULL, .source = p, .trace_id = s };

	/* A page (makeself's, kutrace_postproc's) gives back its JSON. */
	if (first_byte(p) == '<') {
		if (asprintf(&json, "%s/%zu-%s.json", tmp_dir(), in->n, s) < 0)
			kt_die("out of memory");
		page_json(p, json);
		b.source = json;
	}
	kt_xbuild_store(&b, dir);
	if (json)
		unlink(json);
	free(json);
	free(s);
	add_input(in, dir);
}

void kt_xopen_inputs(struct kt_inputs *in, const char **args, int n, const char *memory)
{
	for (int i = 0; i < n; i++) {
		if (!strpbrk(args[i], "*?[") || access(args[i], F_OK) == 0) {
			add_path(in, args[i], memory);
			continue;
		}
		glob_t g;
		int rc = glob(args[i], 0, NULL, &g);

		if (rc == GLOB_NOMATCH)
			kt_die("%s: no store matches", args[i]);
		if (rc != 0)
			kt_die("%s: cannot expand", args[i]);
		for (size_t j = 0; j < g.gl_pathc; j++)
			add_path(in, g.gl_pathv[j], memory);
		globfree(&g);
	}
}


// SPDX-License-Identifier: BSD-3-Clause
/*
 * tool_store.c - the programs' side of the table store (kutrace_sql,
 * kutrace_why): building a store from a trace (its rows from
 * kutrace_postproc through a pipe) or a JSON file, and opening the inputs
 * a user names (stores, globs of stores, traces and JSON files, whose
 * stores are built in a temporary directory removed at exit).  Like the
 * other tool_*.c files, these end the program with one line on an error.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <glob.h>
#include <inttypes.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tool.h"
#include "page.h"
#include "jsonrows.h"
#include "store.h"

/* ---------------------------------------------------------------------- */
/* What a signal must not leave behind                                     */
/* ---------------------------------------------------------------------- */

/*
 * The directories removed when a signal ends the program (SIGINT, SIGTERM,
 * SIGHUP, SIGPIPE of `kutrace_sql build X.trace --stats 2>&1 | head`):
 * the temporary stores' directory and the store being written
 * (DIR.tmp.PID, store.h).  The handler may interrupt anything, DuckDB's
 * allocator included, so it only walks these fixed buffers and removes
 * with the async-signal-safe calls (openat, getdents64, unlinkat).
 */
enum { DOOMED_TMP_ROOT, DOOMED_WRITING, DOOMED_N };
static char doomed[DOOMED_N][4200];
static volatile sig_atomic_t doomed_on[DOOMED_N];

struct dent64 {
	unsigned long long ino;
	long long off;
	unsigned short reclen;
	unsigned char type;
	char name[];
};

static void safe_rmtree_at(int dfd, const char *name, int depth)
{
	if (unlinkat(dfd, name, 0) == 0 || errno == ENOENT || depth > 8)
		return;
	/* A directory: empty it, a pass at a time (removing while reading
	 * may hide names from the pass), then remove it. */
	for (int pass = 0; pass < 4; pass++) {
		int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		char buf[2048] __attribute__((aligned(8)));
		ssize_t n;

		if (fd < 0)
			return;
		while ((n = getdents64(fd, buf, sizeof(buf))) > 0)
			for (ssize_t off = 0; off < n;) {
				struct dent64 *d = (struct dent64 *)(buf + off);

				off += d->reclen;
				if (strcmp(d->name, ".") != 0 && strcmp(d->name, "..") != 0)
					safe_rmtree_at(fd, d->name, depth + 1);
			}
		close(fd);
		if (unlinkat(dfd, name, AT_REMOVEDIR) == 0 || errno != ENOTEMPTY)
			return;
	}
}

static void on_signal(int sig)
{
	int e = errno;

	for (int i = 0; i < DOOMED_N; i++)
		if (doomed_on[i])
			safe_rmtree_at(AT_FDCWD, doomed[i], 0);
	errno = e;
	signal(sig, SIG_DFL);
	raise(sig);
}

/* path is removed if a signal ends the program, until doom_off(slot). */
static void doom(int slot, const char *path)
{
	static int handled;

	doomed_on[slot] = 0;
	snprintf(doomed[slot], sizeof(doomed[slot]), "%s", path);
	doomed_on[slot] = 1;
	if (handled++)
		return;
	const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE };

	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		struct sigaction sa, old;

		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_signal;
		sigemptyset(&sa.sa_mask);
		/* A signal the caller ignores (nohup, a shell's background job)
		 * stays ignored. */
		if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
			sigaction(sigs[i], &sa, NULL);
	}
}

static void doom_off(int slot)
{
	doomed_on[slot] = 0;
}

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

static const char *tmp_dir(void)
{
	if (!tmp_root) {
		const char *t = getenv("TMPDIR");
		char *p = NULL;

		if (asprintf(&p, "%s/kutrace_sql.XXXXXX", t && *t ? t : "/tmp") < 0 || !mkdtemp(p))
			kt_die("cannot make a temporary directory: %s", strerror(errno));
		tmp_root = p;
		atexit(rm_tmp);
		/* `kutrace_why X.trace ... | head` ends with SIGPIPE: the
		 * temporary store goes with it too. */
		doom(DOOMED_TMP_ROOT, tmp_root);
	}
	return tmp_root;
}

/* ---------------------------------------------------------------------- */
/* Building a store                                                        */
/* ---------------------------------------------------------------------- */


/* The file name without directory and extension: the default trace id. */
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
		.source_size = b->source_size,
		.source_mtime_ns = b->source_mtime_ns,
		.source_hash = b->source_hash,
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

static int is_json(const char *path)
{
	return kt_input_kind(path) == KT_IN_JSON;
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

/*
 * A source file's identity: its size, mtime and a 64-bit FNV-1a hash of
 * its first and last 64 KiB.  A trace grows or is rewritten at its end
 * (a record appends), and its first block holds the trace's start and
 * time base: a changed trace changes at least one of these, at the cost
 * of reading 128 KiB, not the whole (hundreds of MB) file.
 */
struct ident {
	long long size, mtime_ns;
	char hash[17];
};

static int source_ident(const char *path, struct ident *id)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	uint64_t h = 0xcbf29ce484222325ULL;

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return -1;
	}
	const off_t blk = 64 * 1024;
	const off_t at[2] = { 0, st.st_size > blk ? st.st_size - blk : 0 };
	unsigned char *buf = kt_xmalloc((size_t)blk);

	for (int i = 0; i < 2; i++) {
		ssize_t n = pread(fd, buf, (size_t)blk, at[i]);

		if (n < 0) {
			free(buf);
			close(fd);
			return -1;
		}
		for (ssize_t k = 0; k < n; k++)
			h = (h ^ buf[k]) * 0x100000001b3ULL;
	}
	free(buf);
	close(fd);
	id->size = (long long)st.st_size;
	id->mtime_ns = (long long)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
	snprintf(id->hash, sizeof(id->hash), "%016" PRIx64, h);
	return 0;
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
	char err[512] = "", *tmp = NULL;
	static int once;
	struct kt_build bi = *b;
	struct ident id;

	/* kt_store_w_new writes DIR.tmp.PID (store.h): a signal removes it. */
	if (asprintf(&tmp, "%s.tmp.%d", dir, (int)getpid()) < 0)
		kt_die("out of memory");
	doom(DOOMED_WRITING, tmp);
	free(tmp);
	struct kt_store_w *w = kt_store_w_new(dir, b->memory, err, sizeof(err));

	if (!w)
		kt_die("%s", err);
	if (!once++)
		atexit(drop_writing);
	writing = w;
	/* Taken before the rows: a trace changed while they are read makes
	 * the store stale, never a store that claims the new trace. */
	if (b->source && source_ident(b->source, &id) == 0) {
		bi.source_size = id.size;
		bi.source_mtime_ns = id.mtime_ns;
		bi.source_hash = id.hash;
	}
	b = &bi;
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
	doom_off(DOOMED_WRITING);
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

/* What X.tables beside a trace X.trace is to that trace. */
enum beside { B_NONE, B_OURS, B_STALE, B_FOREIGN, B_NO_IDENT, B_PARTIAL, B_ALIEN };

static const char *base_name(const char *p)
{
	const char *b = strrchr(p, '/');

	return b ? b + 1 : p;
}

static enum beside beside_state(const char *dir, const char *src, const struct ident *id,
				char *other, size_t olen)
{
	struct stat st;
	char err[512];

	if (stat(dir, &st) < 0)
		return errno == ENOENT ? B_NONE : B_ALIEN;
	if (!S_ISDIR(st.st_mode))
		return B_ALIEN;
	FILE *f = kt_store_fopen(dir, "meta.json", err, sizeof(err));

	if (!f)
		return B_ALIEN;
	json_t *m = json_loadf(f, 0, NULL);

	fclose(f);
	json_t *tables = json_object_get(m, "tables");

	if (!json_is_integer(json_object_get(m, "store_version")) || !json_is_object(tables)) {
		json_decref(m);
		return B_ALIEN;
	}
	enum beside r = B_OURS;
	const char *msrc = hdr_str(m, "source");
	json_t *i = json_object_get(m, "source_identity");
	const char *hash = hdr_str(i, "ends_fnv1a64");
	json_t *size = json_object_get(i, "size"), *mt = json_object_get(i, "mtime_ns");

	if (msrc && strcmp(base_name(msrc), base_name(src)) != 0) {
		snprintf(other, olen, "%s", base_name(msrc));
		r = B_FOREIGN;
	} else if (!msrc || !hash || !json_is_integer(size) || !json_is_integer(mt)) {
		r = B_NO_IDENT;
	} else if (strcmp(hash, id->hash) != 0 || json_integer_value(size) != id->size ||
		   json_integer_value(mt) != id->mtime_ns) {
		r = B_STALE;
	} else {
		/* Every table meta.json counts is there: never a half store. */
		const char *t;
		json_t *v;
		char rel[300];

		json_object_foreach(tables, t, v) {
			snprintf(rel, sizeof(rel), "%s.parquet", t);
			if (kt_store_file_ok(dir, rel, err, sizeof(err)) < 0)
				r = B_PARTIAL;
		}
	}
	json_decref(m);
	return r;
}

/* Can a new entry be made in path's directory? */
static int dir_writable(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *d = slash ? kt_xstrdup(path) : kt_xstrdup(".");

	if (slash)
		d[slash == path ? 1 : slash - path] = '\0';
	int ok = access(d, W_OK | X_OK) == 0;

	free(d);
	return ok;
}

/*
 * X.tables beside the trace (or JSON file) X.trace, when it is X.trace's
 * store or can be made so: its path, or NULL for a temporary store.  One
 * line says which.  $KUTRACE_STORE=temp: always a temporary store.
 * *lock: the trace, opened and locked (flock) until the caller has built
 * the store and closes it: two programs started at once on one trace
 * build X.tables once, and neither renames it away under the other.
 */
static char *store_beside(const char *p, int *build, int *lock)
{
	const char *env = getenv("KUTRACE_STORE"), *prog = kt_progname();
	char *dir = kt_with_ext(p, ".tables"), other[300] = "";
	const char *d = base_name(dir), *t = base_name(p);
	struct ident id;

	*lock = -1;
	if ((env && strcmp(env, "temp") == 0) || strcmp(dir, p) == 0) {
		free(dir);
		return NULL;
	}
	*lock = open(p, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (*lock >= 0 && flock(*lock, LOCK_EX | LOCK_NB) < 0 && errno == EWOULDBLOCK) {
		fprintf(stderr, "%s: waiting for another program building %s\n", prog, d);
		while (flock(*lock, LOCK_EX) < 0 && errno == EINTR)
			;
	}
	if (source_ident(p, &id) < 0) {
		free(dir);
		return NULL;
	}
	enum beside st = beside_state(dir, p, &id, other, sizeof(other));

	if (st == B_OURS) {
		fprintf(stderr, "%s: using %s (the store of %s)\n", prog, d, t);
		*build = 0;
		return dir;
	}
	if (st == B_ALIEN) {
		fprintf(stderr, "%s: %s is there and is not a kutrace store: left alone, a "
			"temporary store\n", prog, d);
	} else if (!dir_writable(dir)) {
		fprintf(stderr, "%s: directory not writable: a temporary store\n", prog);
	} else {
		if (st == B_NONE)
			fprintf(stderr, "%s: building %s (the store of %s)\n", prog, d, t);
		else if (st == B_STALE)
			fprintf(stderr, "%s: %s is stale (the trace changed): rebuilding\n", prog, d);
		else if (st == B_FOREIGN)
			fprintf(stderr, "%s: %s is the store of %s, not %s: rebuilding\n", prog, d,
				other, t);
		else if (st == B_NO_IDENT)
			fprintf(stderr, "%s: %s does not say which trace it holds: rebuilding\n",
				prog, d);
		else
			fprintf(stderr, "%s: %s is missing a table: rebuilding\n", prog, d);
		*build = 1;
		return dir;
	}
	free(dir);
	return NULL;
}

/*
 * A file becomes its store X.tables (store_beside) or a temporary store;
 * a directory is a store.
 */
static void add_path(struct kt_inputs *in, const char *p, const char *memory)
{
	/* A directory is a store, unless it holds a recording's chunks. */
	int chunks = kt_raw_chunk_dir(p);

	if (is_dir(p) && !chunks) {
		add_input(in, kt_xstrdup(p));
		return;
	}
	if (access(p, R_OK) < 0)
		kt_die("%s: %s", p, strerror(errno));
	char *s = kt_store_stem(p), *dir = NULL, *json = NULL;
	struct kt_build b = { .memory = memory, .rows_fd = ~0ULL, .source = p, .trace_id = s };
	/* A page (makeself's, kutrace_postproc's) gives back its JSON, into a
	 * temporary store. */
	int page = kt_input_kind(p) == KT_IN_PAGE, build = 0, lock = -1;

	/* Chunks have no one file whose identity says the store is theirs. */
	if (!page && !chunks && (dir = store_beside(p, &build, &lock))) {
		if (build)
			kt_xbuild_store(&b, dir);
		if (lock >= 0)
			close(lock);
		free(s);
		add_input(in, dir);
		return;
	}
	if (lock >= 0)
		close(lock);
	if (asprintf(&dir, "%s/%zu-%s.tables", tmp_dir(), in->n, s) < 0)
		kt_die("out of memory");
	if (page) {
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


// SPDX-License-Identifier: BSD-3-Clause
/*
 * libFuzzer: the event-text reader, i.e. eventtospan itself (its main is
 * compiled in as tool_main by tests/fuzz.mk): the input is its stdin, its
 * JSON goes to /dev/null.  Seeds: rawtoevent's text of the golden traces.
 *
 * In process, not one process per input: when the program dies on an
 * input (kt_die longjmps back here), what its main held is released here.
 * tests/fuzz.mk links this target with --wrap for the calls that create
 * it (the span builder, the JSON writer and its threads, its work file,
 * getline's buffers), which note what they return, and for the calls
 * that release it, which forget it; the work file is a memfd instead of
 * a file on disk.
 */
#include "fuzz.h"
#include <fcntl.h>
#include <pthread.h>
#include <stdio_ext.h>
#include <sys/types.h>

int tool_main(int argc, char **argv);

struct kt_spans *__real_kt_spans_new(kt_row_fn fn, void *ctx);
struct kt_jsonout *__real_kt_jsonout_new(FILE *work);
ssize_t __real_getline(char **line, size_t *cap, FILE *f);
struct kt_spans *__wrap_kt_spans_new(kt_row_fn fn, void *ctx);
struct kt_jsonout *__wrap_kt_jsonout_new(FILE *work);
ssize_t __wrap_getline(char **line, size_t *cap, FILE *f);
ssize_t __real___getdelim(char **line, size_t *cap, int delim, FILE *f);
ssize_t __wrap___getdelim(char **line, size_t *cap, int delim, FILE *f);
FILE *__wrap_tmpfile(void);
void __real_kt_spans_free(struct kt_spans *s);
void __real_kt_jsonout_free(struct kt_jsonout *o);
int __real_fclose(FILE *f);
void __real_free(void *p);
void __wrap_kt_spans_free(struct kt_spans *s);
void __wrap_kt_jsonout_free(struct kt_jsonout *o);
int __wrap_fclose(FILE *f);
void __wrap_free(void *p);

/* What the current input's run holds: released if it dies. */
static struct kt_spans *held_spans;
static struct kt_jsonout *held_out;
static FILE *held_work;
static struct {
	char **where;	/* the caller's pointer (its frame is gone after a longjmp) */
	char *buf;
} held_line[4];

struct kt_spans *__wrap_kt_spans_new(kt_row_fn fn, void *ctx)
{
	return held_spans = __real_kt_spans_new(fn, ctx);
}

struct kt_jsonout *__wrap_kt_jsonout_new(FILE *work)
{
	return held_out = __real_kt_jsonout_new(work);
}

FILE *__wrap_tmpfile(void)
{
	int fd = memfd_create("work", 0);

	if (fd < 0)
		return NULL;
	return held_work = fdopen(fd, "w+");
}

static void hold_line(char **line)
{
	size_t i;

	for (i = 0; i < 4 && held_line[i].where && held_line[i].where != line; i++)
		;
	if (i < 4) {
		held_line[i].where = line;
		held_line[i].buf = *line;
	}
}

ssize_t __wrap_getline(char **line, size_t *cap, FILE *f)
{
	ssize_t n = __real_getline(line, cap, f);

	hold_line(line);
	return n;
}

/* glibc's stdio.h makes getline an inline call of __getdelim at -O1 up. */
ssize_t __wrap___getdelim(char **line, size_t *cap, int delim, FILE *f)
{
	ssize_t n = __real___getdelim(line, cap, delim, f);

	hold_line(line);
	return n;
}

void __wrap_kt_spans_free(struct kt_spans *s)
{
	if (s == held_spans)
		held_spans = NULL;
	__real_kt_spans_free(s);
}

void __wrap_kt_jsonout_free(struct kt_jsonout *o)
{
	if (o == held_out)
		held_out = NULL;
	__real_kt_jsonout_free(o);
}

int __wrap_fclose(FILE *f)
{
	if (f == held_work)
		held_work = NULL;
	return __real_fclose(f);
}

void __wrap_free(void *p)
{
	for (int i = 0; p && i < 4; i++)
		if (held_line[i].buf == p)
			held_line[i].buf = NULL;
	__real_free(p);
}

/*
 * The JSON writer starts two threads for every input.  ASan (clang 14)
 * keeps ~1.7 KB for every thread ever created, so a run of millions of
 * inputs would grow by gigabytes and end at the RSS limit.  The threads
 * are kept instead: pthread_create (wrapped, tests/fuzz.mk) hands the
 * start routine to an idle worker of a small pool, and pthread_join waits
 * for that run to end.  The routines still run concurrently with the
 * main thread, as in the program.
 */
#define NPOOL 4
static struct worker {
	pthread_t tid;		/* what pthread_create gives back */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	void *(*fn)(void *);
	void *arg, *ret;
	int running;		/* given fn, which has not returned yet */
} pool[NPOOL];

int __real_pthread_create(pthread_t *t, const pthread_attr_t *a,
			  void *(*fn)(void *), void *arg);
int __real_pthread_join(pthread_t t, void **ret);
int __wrap_pthread_create(pthread_t *t, const pthread_attr_t *a,
			  void *(*fn)(void *), void *arg);
int __wrap_pthread_join(pthread_t t, void **ret);

static void *worker_main(void *p)
{
	struct worker *w = p;

	pthread_mutex_lock(&w->mu);
	for (;;) {
		while (!w->running)
			pthread_cond_wait(&w->cv, &w->mu);
		pthread_mutex_unlock(&w->mu);
		void *r = w->fn(w->arg);

		pthread_mutex_lock(&w->mu);
		w->ret = r;
		w->running = 0;
		pthread_cond_broadcast(&w->cv);
	}
	return NULL;
}

/*
 * Only the main thread creates and joins (the JSON writer's calls), so
 * a worker whose fn is NULL is idle and the main thread alone writes fn;
 * running is written under mu.
 */
int __wrap_pthread_create(pthread_t *t, const pthread_attr_t *a,
			  void *(*fn)(void *), void *arg)
{
	for (int i = 0; i < NPOOL; i++) {
		struct worker *w = &pool[i];

		if (w->fn)
			continue;
		if (!w->tid) {
			pthread_mutex_init(&w->mu, NULL);
			pthread_cond_init(&w->cv, NULL);
			if (__real_pthread_create(&w->tid, a, worker_main, w) != 0) {
				w->tid = 0;
				break;
			}
		}
		pthread_mutex_lock(&w->mu);
		w->fn = fn;
		w->arg = arg;
		w->running = 1;
		pthread_cond_broadcast(&w->cv);
		pthread_mutex_unlock(&w->mu);
		*t = w->tid;
		return 0;
	}
	return __real_pthread_create(t, a, fn, arg);
}

int __wrap_pthread_join(pthread_t t, void **ret)
{
	for (int i = 0; i < NPOOL; i++) {
		struct worker *w = &pool[i];

		if (w->fn == NULL || !pthread_equal(w->tid, t))
			continue;
		pthread_mutex_lock(&w->mu);
		while (w->running)
			pthread_cond_wait(&w->cv, &w->mu);
		if (ret)
			*ret = w->ret;
		w->fn = NULL;
		pthread_mutex_unlock(&w->mu);
		return 0;
	}
	return __real_pthread_join(t, ret);
}

/*
 * Workers with 8 MB stacks (the default, from RLIMIT_STACK) would make
 * ASan clear 1 MB of stack shadow each; 512 KB is plenty for the writer.
 */
int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	pthread_attr_t a;

	(void)argc;
	(void)argv;
	pthread_attr_init(&a);
	pthread_attr_setstacksize(&a, 512 << 10);
	pthread_setattr_default_np(&a);
	pthread_attr_destroy(&a);
	/*
	 * Small chunks between its threads and a small text buffer: passed
	 * on and flushed in small inputs too, and no 1 MB allocated for each.
	 */
	setenv("KT_JSONOUT_CHUNK", "64", 0);
	setenv("KT_JSONOUT_TEXT", "4096", 0);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	char path[64];
	int fd = fz_memfd(d, n, path);
	static int devnull = -1, saved_out = -1;
	char *argv[] = { "eventtospan", NULL };

	if (devnull < 0) {
		devnull = open("/dev/null", O_WRONLY);
		saved_out = dup(1);
	}
	/*
	 * What stdin still buffers of the last input (a run that died
	 * mid-file) must go, or it would be read as the start of this one:
	 * such a mix once gave a finding that its saved input alone did not.
	 */
	__fpurge(stdin);
	dup2(fd, 0);
	clearerr(stdin);
	fflush(stdout);
	dup2(devnull, 1);
	held_spans = NULL;
	held_out = NULL;
	held_work = NULL;
	memset(held_line, 0, sizeof(held_line));
	fz_armed = 1;
	if (setjmp(fz_jmp) == 0) {
		tool_main(1, argv);
	} else {
		/* it died: free what its main would have freed */
		fz_armed = 0;
		if (held_out)
			kt_jsonout_free(held_out);
		if (held_spans)
			kt_spans_free(held_spans);
		if (held_work)
			fclose(held_work);
		for (int i = 0; i < 4; i++)
			free(held_line[i].buf);
	}
	fz_armed = 0;
	fflush(stdout);
	clearerr(stdout);
	dup2(saved_out, 1);
	close(fd);
	fz_done();
	return 0;
}

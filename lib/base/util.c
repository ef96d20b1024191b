// SPDX-License-Identifier: BSD-3-Clause
/*
 * util.c - input files, checked allocation, growable buffers and name
 * interning for the tools' library.  Out of memory is the one error the
 * library does not return: kt_x*alloc() end the program through the
 * programs' stop helper in tool.c, as git's xmalloc does; everything else
 * is returned.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include <errno.h>
#include <sys/stat.h>

#include "base.h"

FILE *kt_fopen_in(const char *path, char *err, size_t errlen)
{
	struct stat st;
	FILE *f = fopen(path, "rb");

	if (!f) {
		snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
		return NULL;
	}
	if (fstat(fileno(f), &st) != 0) {
		snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
	} else if (S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "%s: %s", path, strerror(EISDIR));
	} else if (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode) &&
		   !S_ISSOCK(st.st_mode)) {
		/* /dev/zero and friends never end: only files and pipes are input */
		snprintf(err, errlen, "%s: not a file or a pipe", path);
	} else {
		return f;
	}
	fclose(f);
	return NULL;
}

void *kt_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		kt_die("out of memory (%zu bytes)", n);
	return p;
}

void *kt_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		kt_die("out of memory (%zu x %zu bytes)", n, size);
	return p;
}

void *kt_xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		kt_die("out of memory (%zu bytes)", n);
	return p;
}

char *kt_xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;

	return memcpy(kt_xmalloc(n), s, n);
}

char *kt_vstrf(const char *fmt, va_list ap)
{
	char *s = NULL;

	return vasprintf(&s, fmt, ap) < 0 ? NULL : s;
}

char *kt_xvstrf(const char *fmt, va_list ap)
{
	char *s = kt_vstrf(fmt, ap);

	if (!s)
		kt_die("out of memory");
	return s;
}

char *kt_xstrf(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	char *s = kt_xvstrf(fmt, ap);

	va_end(ap);
	return s;
}

void kt_buf_add(struct kt_buf *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		b->cap = (b->len + n + 1) * 2;
		b->p = kt_xrealloc(b->p, b->cap);
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

void kt_buf_puts(struct kt_buf *b, const char *s)
{
	kt_buf_add(b, s, strlen(s));
}

void kt_buf_printf(struct kt_buf *b, const char *fmt, ...)
{
	char tmp[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n < sizeof(tmp)) {
		kt_buf_add(b, tmp, (size_t)n);
		return;
	}
	char *big = kt_xmalloc((size_t)n + 1);

	va_start(ap, fmt);
	vsnprintf(big, (size_t)n + 1, fmt, ap);
	va_end(ap);
	kt_buf_add(b, big, (size_t)n);
	free(big);
}

void kt_buf_free(struct kt_buf *b)
{
	free(b->p);
	b->p = NULL;
	b->len = b->cap = 0;
}

/*
 * Interning: names repeat millions of times (every "read" span), so each
 * distinct string is stored once in an open-addressing hash table and
 * compared by pointer afterwards.  The table lives for the whole process.
 * The decoding thread and the span builder intern at the same time
 * (kutrace_postproc): a lock, taken only on a cache miss of the callers'
 * own name caches, so a few hundred thousand times in a big trace.
 */
static const char **itab;
static size_t icap, icount;
static pthread_mutex_t imu = PTHREAD_MUTEX_INITIALIZER;

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ULL;	/* FNV-1a */

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ULL;
	return h;
}

/* ---- UTF-8 (base.h) ---------------------------------------------------- */

size_t kt_utf8_seq(const unsigned char *s)
{
	unsigned char c = s[0];
	uint32_t cp, min;
	size_t n;

	if (c < 0x80)
		return 1;
	if (c >= 0xC2 && c <= 0xDF)
		n = 2, cp = c & 0x1F, min = 0x80;
	else if ((c & 0xF0) == 0xE0)
		n = 3, cp = c & 0x0F, min = 0x800;
	else if (c >= 0xF0 && c <= 0xF4)
		n = 4, cp = c & 0x07, min = 0x10000;
	else
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xC0) != 0x80)	/* also stops at the NUL */
			return 0;
		cp = cp << 6 | (s[i] & 0x3F);
	}
	if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
		return 0;
	return n;
}

/* The sequence at s[i] of n bytes, read without passing n: its length or 0. */
static size_t seq_at(const char *s, size_t i, size_t n)
{
	unsigned char u[5] = { 0 };
	size_t k = n - i < 4 ? n - i : 4;

	memcpy(u, s + i, k);	/* a sequence cut at n is invalid */
	return kt_utf8_seq(u);
}

int kt_utf8_ok(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if ((unsigned char)s[i] < 0x80)
			continue;
		size_t k = seq_at(s, i, n);

		if (!k)
			return 0;
		i += k - 1;
	}
	return 1;
}

size_t kt_utf8_fix(char *out, size_t outlen, const char *s, size_t n)
{
	size_t o = 0;

	for (size_t i = 0; i < n; i++) {
		size_t k = (unsigned char)s[i] < 0x80 ? 1 : seq_at(s, i, n);
		const char *from = k ? s + i : "\xEF\xBF\xBD";
		size_t len = k ? k : 3;

		if (o + len >= outlen)
			break;
		memcpy(out + o, from, len);
		o += len;
		i += k ? k - 1 : 0;
	}
	out[o] = '\0';
	return o;
}

/*
 * Open addressing; spantoprof's get_row has a table of the same form for
 * its (kind, id) keys: a shared one would need hash and compare callbacks.
 */
static const char *intern(const char *s)
{
	if (icount * 2 >= icap) {
		size_t ncap = icap ? icap * 2 : 1024;
		const char **n = kt_xcalloc(ncap, sizeof(*n));

		for (size_t i = 0; i < icap; i++) {
			if (!itab[i])
				continue;
			size_t j = hash_str(itab[i]) & (ncap - 1);

			while (n[j])
				j = (j + 1) & (ncap - 1);
			n[j] = itab[i];
		}
		free(itab);
		itab = n;
		icap = ncap;
	}
	size_t j = hash_str(s) & (icap - 1);

	while (itab[j]) {
		if (strcmp(itab[j], s) == 0)
			return itab[j];
		j = (j + 1) & (icap - 1);
	}
	itab[j] = kt_xstrdup(s);
	icount++;
	return itab[j];
}

const char *kt_intern(const char *s)
{
	pthread_mutex_lock(&imu);
	const char *r = intern(s ? s : "");

	pthread_mutex_unlock(&imu);
	return r;
}

/*
 * Forget every name: for a process that runs the library on many inputs
 * in turn (the fuzz targets), where a table kept for the whole process
 * would grow with every input's names.  No interned pointer may be used
 * afterwards.
 */
void kt_intern_reset(void)
{
	for (size_t i = 0; i < icap; i++)
		free((void *)itab[i]);
	free(itab);
	itab = NULL;
	icap = 0;
	icount = 0;
}

/* path without the slashes that end it ("rec/" names the directory rec). */
static char *no_end_slash(const char *path)
{
	char *p = kt_xstrdup(path);
	size_t n = strlen(p);

	while (n > 1 && p[n - 1] == '/')
		p[--n] = '\0';
	return p;
}

char *kt_store_stem(const char *path)
{
	char *p = no_end_slash(path);
	const char *b = strrchr(p, '/');
	char *s = kt_xstrdup(b ? b + 1 : p);
	char *dot = strrchr(s, '.');

	if (dot && dot != s)
		*dot = '\0';
	free(p);
	return s;
}

char *kt_with_ext(const char *path, const char *ext)
{
	char *p = no_end_slash(path);
	const char *dot = strrchr(p, '.'), *slash = strrchr(p, '/');
	size_t n = dot && (!slash || dot > slash) ? (size_t)(dot - p) : strlen(p);
	char *o = kt_xmalloc(n + strlen(ext) + 1);

	memcpy(o, p, n);
	strcpy(o + n, ext);
	free(p);
	return o;
}

double kt_cpu_secs(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru) != 0)
		return 0;
	return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

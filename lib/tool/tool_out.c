// SPDX-License-Identifier: BSD-3-Clause
/*
 * tool_out.c - a program's output file, written whole or not at all: the
 * data go to PATH.tmp, which kt_die removes (tool.c), and only a complete
 * file is renamed to PATH.  A reader of PATH therefore sees the old file
 * or the new one, never half of one, and a failed run leaves nothing.
 * PATH that is not a file (-o /dev/null, a FIFO) or a symbolic link
 * (/dev/stdout) is never renamed over: the data go to an unnamed
 * temporary file and are copied into PATH at the commit (a rename would
 * replace the device node or the link).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tool.h"

/* An open output; few at a time (kt_unlink_on_die holds up to 4 paths). */
struct kt_out {
	FILE *f;
	char *path;	/* the final name */
	char *tmp;	/* where the data go until the commit */
	char *note;	/* appended to every error line, or "" */
	FILE *draft;	/* kt_out_redo: the first draft, dropped at the commit */
	int special;	/* path is not a file: tmp is unnamed, copied at the commit */
};

#define KT_OUT_MAX 4
static struct kt_out outs[KT_OUT_MAX];

static struct kt_out *find(FILE *f)
{
	for (int i = 0; i < KT_OUT_MAX; i++)
		if (f && outs[i].f == f)
			return &outs[i];
	kt_die("internal error: not an output of kt_out_open");
}

static FILE *open_tmp(const char *path, const char *ext, const char *note)
{
	struct kt_out *o = NULL;

	for (int i = 0; i < KT_OUT_MAX && !o; i++)
		if (!outs[i].f)
			o = &outs[i];
	if (!o)
		kt_die("internal error: more than %d outputs open", KT_OUT_MAX);
	o->tmp = kt_xmalloc(strlen(path) + strlen(ext) + 1);
	strcpy(o->tmp, path);
	strcat(o->tmp, ext);
	o->note = kt_xstrdup(note ? note : "");
	struct stat st;

	struct stat lst;

	/* Through a symbolic link too (/dev/stdout): write where it points. */
	o->special = stat(path, &st) == 0 && !S_ISDIR(st.st_mode) &&
		     (!S_ISREG(st.st_mode) || (lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode)));
	/* w+: kutrace_postproc reads its draft back to copy it */
	o->f = o->special ? tmpfile() : fopen(o->tmp, "w+");
	if (!o->f)
		kt_die("cannot create %s: %s%s", o->special ? "a temporary file" : o->tmp,
		       strerror(errno), o->note);
	o->path = kt_xstrdup(path);
	o->draft = NULL;
	if (!o->special)
		kt_unlink_on_die(o->tmp);
	return o->f;
}

FILE *kt_out_open(const char *path, const char *note)
{
	return open_tmp(path, ".tmp", note);
}

FILE *kt_out_redo(FILE *f)
{
	struct kt_out *old = find(f);
	FILE *nf = open_tmp(old->path, ".tmp2", old->note);

	find(nf)->draft = f;
	return nf;
}

const char *kt_out_tmpname(FILE *f)
{
	return find(f)->tmp;
}

static void forget(struct kt_out *o)
{
	if (!o->special)
		kt_unlink_forget(o->tmp);
	free(o->tmp);
	free(o->path);
	free(o->note);
	memset(o, 0, sizeof(*o));
}

/* The whole output into a path that is not a file, then the temporaries go. */
static void copy_out(struct kt_out *o)
{
	int fd = open(o->path, O_WRONLY | O_CLOEXEC);
	char buf[1 << 16];
	size_t n;

	if (fd < 0)
		kt_die("cannot write %s: %s%s", o->path, strerror(errno), o->note);
	rewind(o->f);
	while ((n = fread(buf, 1, sizeof(buf), o->f)) > 0) {
		for (size_t k = 0; k < n;) {
			ssize_t w = write(fd, buf + k, n - k);

			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0)
				kt_die("write error on %s: %s%s", o->path, strerror(errno), o->note);
			k += (size_t)w;
		}
	}
	if (ferror(o->f) || close(fd) != 0)
		kt_die("write error on %s: %s%s", o->path, strerror(errno ? errno : EIO), o->note);
	fclose(o->f);
	if (o->draft) {
		struct kt_out *d = find(o->draft);

		fclose(d->f);
		if (!d->special)
			unlink(d->tmp);
		forget(d);
	}
	forget(o);
}

void kt_out_commit(FILE *f)
{
	struct kt_out *o = find(f);
	int e;

	errno = 0;
	/* ferror too: a failed write before the last flush leaves no trace in fclose */
	if (fflush(f) != 0 || ferror(f)) {
		e = errno ? errno : EIO;
		kt_die("write error on %s: %s%s", o->tmp, strerror(e), o->note);
	}
	if (o->special) {
		copy_out(o);
		return;
	}
	if (fclose(f) != 0) {
		e = errno;
		kt_die("write error on %s: %s%s", o->tmp, strerror(e), o->note);
	}
	if (o->draft) {
		struct kt_out *d = find(o->draft);

		/* Read back and copied: its close can lose nothing. */
		fclose(d->f);
		unlink(d->tmp);
		forget(d);
		o->draft = NULL;
	}
	if (rename(o->tmp, o->path) != 0)
		kt_die("cannot rename %s to %s: %s%s", o->tmp, o->path, strerror(errno),
		       o->note);
	forget(o);
}

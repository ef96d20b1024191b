// SPDX-License-Identifier: BSD-3-Clause
/*
 * tool_out.c - a program's output file, written whole or not at all: the
 * data go to PATH.tmp, which kt_die removes (tool.c), and only a complete
 * file is renamed to PATH.  A reader of PATH therefore sees the old file
 * or the new one, never half of one, and a failed run leaves nothing.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tool.h"

/* An open output; few at a time (kt_unlink_on_die holds up to 4 paths). */
struct kt_out {
	FILE *f;
	char *path;	/* the final name */
	char *tmp;	/* where the data go until the commit */
	char *note;	/* appended to every error line, or "" */
	FILE *draft;	/* kt_out_redo: the first draft, dropped at the commit */
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
	/* w+: kutrace_postproc reads its draft back to copy it */
	o->f = fopen(o->tmp, "w+");
	if (!o->f)
		kt_die("cannot create %s: %s%s", o->tmp, strerror(errno), o->note);
	o->path = kt_xstrdup(path);
	o->draft = NULL;
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
	kt_unlink_forget(o->tmp);
	free(o->tmp);
	free(o->path);
	free(o->note);
	memset(o, 0, sizeof(*o));
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

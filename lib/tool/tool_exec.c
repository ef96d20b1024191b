// SPDX-License-Identifier: BSD-3-Clause
/*
 * tool_exec.c - one kutrace program running another: kutrace_postproc
 * --tables runs kutrace_sql, kutrace_sql build X.trace runs
 * kutrace_postproc, kutrace_view's /api/why runs kutrace_why.  The one next to this program comes first (the build
 * tree, an installed bin/), so a build never mixes with another install
 * on PATH; PATH after that.  The front door, kutrace, finds the programs
 * it dispatches to the same way.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tool.h"

int kt_find_sibling(const char *name, char *path, size_t len)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n > 0) {
		self[n] = '\0';
		char *slash = strrchr(self, '/');

		if (slash) {
			*slash = '\0';
			if ((size_t)snprintf(path, len, "%s/%s", self, name) < len &&
			    access(path, X_OK) == 0)
				return 0;
		}
	}
	/* PATH as execvp walks it; an empty entry is the current directory. */
	const char *p = getenv("PATH");

	for (; p && *p; p += *p == ':') {
		size_t dl = strcspn(p, ":");

		if ((size_t)snprintf(path, len, "%.*s%s%s", (int)dl, p, dl ? "/" : "",
				     name) < len && access(path, X_OK) == 0)
			return 0;
		p += dl;
	}
	return -1;
}

void kt_exec_sibling(const char *name, char **args)
{
	char path[PATH_MAX + 64];

	if (kt_find_sibling(name, path, sizeof(path)) == 0)
		execv(path, args);
	fprintf(stderr, "%s: %s not found next to it or on PATH%s\n", kt_progname(), name,
		strcmp(name, "kutrace_sql") == 0 ?
		" (it is built where DuckDB is installed: make deps && make)" : "");
	_exit(127);
}

pid_t kt_spawn_fd3(const char *name, char **args, int child_writes, int *fd, const char *what)
{
	int p[2];

	if (pipe(p) < 0)
		kt_die("%s: %s", what, strerror(errno));
	pid_t pid = fork();

	if (pid < 0)
		kt_die("%s: %s", what, strerror(errno));
	/* p[1] is the writing end: the child's when it writes. */
	int mine = child_writes ? p[0] : p[1], its = child_writes ? p[1] : p[0];

	if (pid == 0) {
		close(mine);
		if (its != 3) {
			dup2(its, 3);
			close(its);
		}
		kt_exec_sibling(name, args);
	}
	close(its);
	/* A big pipe: each side runs on longer before it waits for the other. */
	fcntl(mine, F_SETPIPE_SZ, 1 << 20);
	*fd = mine;
	return pid;
}

/* All of fd into b; -1 on a read error. */
static int read_all(int fd, struct kt_buf *b)
{
	char chunk[65536];
	ssize_t n;

	while ((n = read(fd, chunk, sizeof(chunk))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		kt_buf_add(b, chunk, (size_t)n);
	}
	return 0;
}

int kt_run_sibling(const char *name, char **args, struct kt_buf *out, char *err, size_t errlen)
{
	int o[2], e[2];

	if (pipe2(o, O_CLOEXEC) < 0 || pipe2(e, O_CLOEXEC) < 0) {
		snprintf(err, errlen, "%s: %s", name, strerror(errno));
		return -1;
	}
	pid_t pid = fork();

	if (pid < 0) {
		snprintf(err, errlen, "%s: %s", name, strerror(errno));
		close(o[0]), close(o[1]), close(e[0]), close(e[1]);
		return -1;
	}
	if (pid == 0) {
		dup2(o[1], 1);
		dup2(e[1], 2);
		kt_exec_sibling(name, args);
	}
	close(o[1]);
	close(e[1]);
	struct kt_buf eb = { 0 };
	/* Its errors are one line: they fit the pipe while we read its
	 * output to the end. */
	int rd = read_all(o[0], out);

	rd |= read_all(e[0], &eb);
	int st = 0;

	close(o[0]);
	close(e[0]);
	pid_t w;

	while ((w = waitpid(pid, &st, 0)) < 0 && errno == EINTR)
		;
	int rc = rd < 0 || w < 0 ? -1 : WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);

	if (rc != 0) {
		/* Its last line says why. */
		while (eb.len && (eb.p[eb.len - 1] == '\n'))
			eb.len--;
		size_t b = eb.len;

		while (b && eb.p[b - 1] != '\n')
			b--;
		snprintf(err, errlen, "%.*s", (int)(eb.len - b), eb.p ? eb.p + b : "");
		if (!*err)
			snprintf(err, errlen, "%s exited with status %d", name, rc);
	}
	kt_buf_free(&eb);
	return rc;
}

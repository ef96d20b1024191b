// SPDX-License-Identifier: BSD-3-Clause
/*
 * tool_exec.c - one kutrace program running another: kutrace_postproc
 * --tables runs kutrace_sql, kutrace_sql build X.trace runs
 * kutrace_postproc.  The one next to this program comes first (the build
 * tree, an installed bin/), so a build never mixes with another install
 * on PATH; PATH after that.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "kutrace-local.h"

void kt_exec_sibling(const char *name, char **args)
{
	char self[PATH_MAX], path[PATH_MAX + 64];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n > 0) {
		self[n] = '\0';
		char *slash = strrchr(self, '/');

		if (slash) {
			*slash = '\0';
			snprintf(path, sizeof(path), "%s/%s", self, name);
			execv(path, args);
		}
	}
	execvp(name, args);
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

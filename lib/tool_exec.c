// SPDX-License-Identifier: BSD-3-Clause
/*
 * tool_exec.c - one kutrace program running another: kutrace_postproc
 * --tables runs kutrace_sql, kutrace_sql build X.trace runs
 * kutrace_postproc.  The one next to this program comes first (the build
 * tree, an installed bin/), so a build never mixes with another install
 * on PATH; PATH after that.
 */
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

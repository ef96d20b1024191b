// SPDX-License-Identifier: BSD-3-Clause
/*
 * kutrace - the front door: one command whose subcommands run kutrace's
 * programs, as git, perf and trace-cmd do.
 *
 *   kutrace COMMAND [ARGS...]   runs the program of COMMAND with ARGS
 *   kutrace help [COMMAND]      the commands, or COMMAND's own --help
 *   kutrace --version
 *
 * Each command is the program of the original's name (kutrace_postproc,
 * checktrace, ...; the book uses those names, and they stay), exec'd in
 * this process with the same arguments, so its output and exit status are
 * the program's own.  The program next to this one comes first, then PATH
 * (kt_find_sibling), as for every kutrace program running another.  A
 * command whose program is not installed is one line and exit 2.  Adding
 * a program is one line of the table below.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tool.h"

static const struct command {
	const char *name;	/* kutrace NAME */
	const char *prog;	/* the program it runs */
	const char *verb;	/* put before the arguments (kutrace_control's), or NULL */
	const char *what;	/* one line for kutrace help */
} commands[] = {
	{ "record", "kutrace_control", "record", "trace one command's run: -- CMD [ARGS]" },
	{ "go", "kutrace_control", "go", "start tracing, and return" },
	{ "stop", "kutrace_control", "stop", "stop tracing, write the trace [FILE]" },
	{ "status", "kutrace_control", "status", "is kutrace there, is it tracing" },
	{ "control", "kutrace_control", NULL, "its commands, or its prompt" },
	{ "flight", "kutrace_flight", NULL, "flight recorder: snapshots on triggers" },
	{ "snapshot", "kutrace_flight", "snapshot", "save what kutrace flight holds [-o FILE]" },
	{ "postproc", "kutrace_postproc", NULL, "trace to JSON, timeline page, tables" },
	{ "check", "checktrace", NULL, "check a raw trace: PASS or FAIL" },
	{ "dump", "kutrace_dump", NULL, "a raw trace's blocks and entries" },
	{ "export", "kutrace_export", NULL, "to Perfetto's JSON or a CTF trace (babeltrace2)" },
	{ "sql", "kutrace_sql", NULL, "SQL over traces: tables, queries, reports" },
	{ "why", "kutrace_why", NULL, "why was it slow: the critical path" },
	{ "view", "kutrace_view", NULL, "any trace in the browser (local server)" },
	{ "align", "kutrace_align", NULL, "line up traces of several machines" },
};

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static const struct command *find_command(const char *name)
{
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (strcmp(commands[i].name, name) == 0)
			return &commands[i];
	return NULL;
}

static void usage(FILE *f)
{
	char path[PATH_MAX + 64];

	fputs("usage: kutrace COMMAND [ARGS...]\n"
	      "       kutrace help [COMMAND]    the commands, or COMMAND's --help\n"
	      "       kutrace --version\n"
	      "Commands (each runs the program named, with the same arguments):\n", f);
	for (size_t i = 0; i < NCOMMANDS; i++) {
		const struct command *c = &commands[i];
		int have = kt_find_sibling(c->prog, path, sizeof(path)) == 0;

		fprintf(f, "  %-9s %-42s %s%s%s%s\n", c->name, c->what, c->prog,
			c->verb ? " " : "", c->verb ? c->verb : "", have ? "" : " (not installed)");
	}
	fputs("The programs' own names work too; man kutrace, man PROGRAM.\n", f);
}

/* Edits from a to b (insert, delete, replace, swap two neighbours). */
static size_t distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	size_t d[16][16];

	if (la >= 16 || lb >= 16)
		return 16;
	for (size_t i = 0; i <= la; i++)
		for (size_t j = 0; j <= lb; j++) {
			if (i == 0 || j == 0) {
				d[i][j] = i + j;
				continue;
			}
			size_t v = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);

			if (d[i - 1][j] + 1 < v)
				v = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < v)
				v = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < v)
				v = d[i - 2][j - 2] + 1;
			d[i][j] = v;
		}
	return d[la][lb];
}

/* One line naming what was typed, and the nearest command if it is near. */
static int unknown(const char *name)
{
	const struct command *best = NULL;
	size_t bd = 3;

	for (size_t i = 0; i < NCOMMANDS; i++) {
		size_t d = distance(name, commands[i].name);
		/* A prefix is near too: "post" for postproc. */
		int prefix = strlen(name) >= 2 && strncmp(name, commands[i].name, strlen(name)) == 0;

		if (prefix)
			d = 1;
		if (d < bd) {
			bd = d;
			best = &commands[i];
		}
	}
	if (best)
		fprintf(stderr, "kutrace: '%s' is not a command; did you mean '%s'? (kutrace help)\n",
			name, best->name);
	else
		fprintf(stderr, "kutrace: '%s' is not a command (kutrace help)\n", name);
	return 2;
}

/* Exec c's program with args (args[0] is overwritten); returns only on failure. */
static int run(const struct command *c, char **args)
{
	char path[PATH_MAX + 64];

	if (kt_find_sibling(c->prog, path, sizeof(path)) < 0) {
		fprintf(stderr, "kutrace: %s: %s is not installed (neither next to kutrace nor on PATH)\n",
			c->name, c->prog);
		return 2;
	}
	args[0] = (char *)c->prog;
	execv(path, args);
	fprintf(stderr, "kutrace: %s: cannot run %s: %s\n", c->name, path, strerror(errno));
	return 126;
}

int main(int argc, char **argv)
{
	kt_set_progname(argv[0]);
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	const char *name = argv[1];

	if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0 ||
	    (strcmp(name, "help") == 0 && argc == 2)) {
		usage(stdout);
		return 0;
	}
	if (strcmp(name, "--version") == 0) {
		printf("kutrace %s\n", KUTRACE_TOOL_VERSION);
		return 0;
	}
	/* For completion scripts: the command names, one a line. */
	if (strcmp(name, "--list-commands") == 0) {
		for (size_t i = 0; i < NCOMMANDS; i++)
			printf("%s\n", commands[i].name);
		return 0;
	}
	if (strcmp(name, "help") == 0) {
		const struct command *c = find_command(argv[2]);

		if (argc > 3) {
			fputs("usage: kutrace help [COMMAND]\n", stderr);
			return 2;
		}
		if (!c)
			return unknown(argv[2]);
		char *args[] = { NULL, "--help", NULL };

		return run(c, args);
	}
	if (name[0] == '-') {
		fprintf(stderr, "kutrace: unknown option %s (kutrace help)\n", name);
		return 2;
	}
	const struct command *c = find_command(name);

	if (!c)
		return unknown(name);
	/*
	 * The program's argv: its name, the verb if the command has one, then
	 * kutrace's arguments after the command, unchanged.
	 */
	char **args = kt_xcalloc((size_t)argc + 2, sizeof(*args));
	int n = 1;

	if (c->verb)
		args[n++] = (char *)c->verb;
	for (int i = 2; i < argc; i++)
		args[n++] = argv[i];
	int rc = run(c, args);	/* only when the program could not be run */

	free(args);
	return rc;
}

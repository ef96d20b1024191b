/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tool.h - the programs' helpers, over every stage below: the top of
 * libkttools
 *
 * These end the program with one line on error (kt_die); library code
 * below never does.  Outputs written whole or not at all (tool_out.c),
 * the other kutrace programs run (tool_exec.c), command lines
 * (tool_args.c), inputs opened or the program ended (tool_input.c).
 */
#ifndef KT_LIB_TOOL_H
#define KT_LIB_TOOL_H

#include "rows.h"

/*
 * Outputs written whole or not at all (tool_out.c): kt_out_open creates
 * PATH.tmp, which kt_die removes, and kt_out_commit renames it to PATH
 * once it is complete, so a failure never leaves a half file under the
 * final name.  Every error is one line naming the file, followed by note
 * when it is not NULL ("; X.json was written, no HTML").
 */
FILE *kt_out_open(const char *path, const char *note);
/*
 * A second temporary, PATH.tmp2, for the output f is writing: for a
 * writer that copies its first draft into the final form.  f stays open
 * (and is removed by kt_die) until kt_out_commit of the new file removes
 * it.
 */
FILE *kt_out_redo(FILE *f);
/* The temporary's name, for a program's own error lines. */
const char *kt_out_tmpname(FILE *f);
/* Flushed, closed and renamed to PATH, or kt_die with the reason. */
void kt_out_commit(FILE *f);

/*
 * The kutrace program name next to this one, else on PATH, into path:
 * 0, or -1 when there is none (tool_exec.c).
 */
int kt_find_sibling(const char *name, char *path, size_t len);
/*
 * In a child after fork: exec the kutrace program name found next to this
 * one, else on PATH, with args; if neither runs, one line and _exit(127)
 * (tool_exec.c).
 */
void kt_exec_sibling(const char *name, char **args) __attribute__((noreturn));
/*
 * Run that sibling with one end of a new pipe as its descriptor 3 (it
 * writes there if child_writes, else reads); *fd is this side's end.
 * Errors end the program naming what.
 */
pid_t kt_spawn_fd3(const char *name, char **args, int child_writes, int *fd, const char *what);
/*
 * Runs the program name (found as kt_exec_sibling finds it) with args, its
 * standard output into out; 0, or its exit status (128 + signal) with its
 * last line of standard error in err, or -1 when it cannot run.
 */
struct kt_buf;
int kt_run_sibling(const char *name, char **args, struct kt_buf *out, char *err, size_t errlen);

/*
 * Command lines (tool_args.c): one table of options per program, parsed
 * by getopt_long_only.  A name of one letter is the option -X; a longer
 * one is -NAME or --NAME (the original KUtrace's spelling is -maxblock,
 * kutrace's --no-html; both work), never abbreviated.  -h and --help
 * print the usage to stdout and exit 0 (unless the table has its own
 * "h"); an unknown option, a missing value or a wrong number of
 * arguments prints the usage to stderr and exits 2; a value that is not
 * a number where one is needed is one line and exit 2.
 */
enum kt_opt_kind {
	KT_OPT_FLAG,	/* int *dst = val */
	KT_OPT_STR,	/* const char **dst = the value */
	KT_OPT_ULL,	/* unsigned long long *dst: decimal digits only */
	KT_OPT_POSLONG,	/* long *dst: a number > 0 (strtol base 0) */
};

struct kt_opt {
	const char *name;	/* NULL ends the table */
	enum kt_opt_kind kind;
	void *dst;
	int val;
};

struct kt_argspec {
	const struct kt_opt *opts;
	void (*usage)(FILE *f);
	int min_pos, max_pos;	/* how many arguments besides the options */
	int last_wins;		/* one more replaces the last (the originals') */
};

/* The arguments, in order, into pos[max_pos]; returns how many. */
int kt_args(const struct kt_argspec *spec, int argc, char **argv, const char **pos);
/*
 * A configuration file as options (a service's /etc/kutrace/recorder.conf):
 * each line `key = value` becomes "--key" "value", a line `key` alone
 * "--key"; '#' starts a comment, blank lines are nothing; a key may repeat.
 * The new argv is argv[0], the file's options, then argv[1..argc), so the
 * command line has the last word; it is never freed (a program's life).
 * Returns the new argc, or -1 with "FILE:LINE: what" in err.
 */
int kt_conf_args(const char *path, int argc, char **argv, char ***out,
		 char *err, size_t errlen);
/*
 * Open an input file for reading or die with a one-line reason: a
 * directory or a device (/dev/zero) is refused, a file or a pipe is not.
 */
FILE *kt_xfopen_in(const char *path);
/*
 * What a file holds, from its first bytes (tool_input.c): '{' a JSON
 * file, '<' a page, else a raw trace, whose first word (a counter)
 * holds control bytes.  A raw trace may begin with the byte '{' or '<'
 * (its counter's low byte), so the opening byte counts only when the
 * 64 bytes that follow are text.  Dies if the file cannot be read.
 */
enum kt_input_kind { KT_IN_TRACE, KT_IN_JSON, KT_IN_PAGE };
enum kt_input_kind kt_input_kind(const char *path);
/* For programs (tool_input.c): the raw file's note printed, dies on error. */
struct kt_decoder *kt_xdecoder_new(struct kt_raw *raw, kt_event_fn fn, void *ctx);

#endif /* KT_LIB_TOOL_H */

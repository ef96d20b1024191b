// SPDX-License-Identifier: BSD-3-Clause
/*
 * tool_args.c - the programs' command lines: a table of options per
 * program over getopt_long_only, which takes the original KUtrace's
 * single-dash words (-maxblock N, -row, -all) as well as kutrace's
 * --long-options.  Declared in tool.h.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "tool.h"

#define KT_ARGS_MAX 32	/* options in one table, --help included */

/* getopt's code for option k of the table: past any character. */
#define CODE(k) (256 + (k))

static void __attribute__((noreturn)) bad_usage(const struct kt_argspec *s)
{
	fflush(stdout);
	s->usage(stderr);
	exit(2);
}

/*
 * getopt accepts any unique prefix of a long option (-al for -all); the
 * tools never did, and a prefix that is unique today is ambiguous once an
 * option is added.  The element getopt took is argv[optind - 1], or the
 * one before when the value came as a separate argument.
 */
static int typed_in_full(char **argv, const struct option *o)
{
	const char *a = argv[optind - 1];

	if (o->has_arg && optarg == a)
		a = argv[optind - 2];
	a += a[1] == '-' ? 2 : 1;
	size_t n = strcspn(a, "=");

	return n == strlen(o->name) && strncmp(a, o->name, n) == 0;
}

/* The option as typed, for an error line: "-maxblock", "--html-max-spans". */
static void typed(char **argv, char *buf, size_t len)
{
	const char *a = argv[optind - 1];

	if (optarg == a && optind >= 2)
		a = argv[optind - 2];
	snprintf(buf, len, "%.*s", (int)strcspn(a, "="), a);
}

static void number(const struct kt_opt *o, char **argv)
{
	char opt[64], *end;
	const char *v = optarg;

	typed(argv, opt, sizeof(opt));
	errno = 0;
	if (o->kind == KT_OPT_ULL) {
		unsigned long long n = strtoull(v, &end, 10);

		if (!isdigit((unsigned char)v[0]) || *end || errno)
			goto bad;
		*(unsigned long long *)o->dst = n;
	} else {
		long n = strtol(v, &end, 0);

		if (!isdigit((unsigned char)v[0]) || *end || errno || n <= 0)
			goto bad;
		*(long *)o->dst = n;
	}
	return;
bad:
	fprintf(stderr, "%s: %s %s: not a%s number\n", kt_progname(), opt, v,
		o->kind == KT_OPT_POSLONG ? " positive" : "");
	exit(2);
}

static void add_pos(const struct kt_argspec *s, const char **pos, int *npos,
		    const char *arg)
{
	if (*npos < s->max_pos)
		pos[(*npos)++] = arg;
	else if (s->last_wins && s->max_pos > 0)
		pos[s->max_pos - 1] = arg;
	else
		bad_usage(s);
}

int kt_args(const struct kt_argspec *s, int argc, char **argv, const char **pos)
{
	/* '-': arguments come back in order (code 1), never permuted. */
	char shorts[2 * KT_ARGS_MAX + 3] = "-:";
	struct option longs[KT_ARGS_MAX + 1];
	int nlong = 0, own_h = 0, npos = 0, k;

	memset(longs, 0, sizeof(longs));
	for (k = 0; s->opts[k].name; k++) {
		const struct kt_opt *o = &s->opts[k];
		int arg = o->kind != KT_OPT_FLAG;

		if (k + 2 > KT_ARGS_MAX)
			kt_die("internal error: more than %d options", KT_ARGS_MAX);
		if (o->name[1] == '\0') {
			/* a letter: getopt returns the letter itself */
			size_t n = strlen(shorts);

			shorts[n] = o->name[0];
			if (arg)
				shorts[++n] = ':';
			shorts[n + 1] = '\0';
			own_h |= o->name[0] == 'h';
		} else {
			longs[nlong++] = (struct option){ o->name, arg, NULL, CODE(k) };
		}
	}
	longs[nlong++] = (struct option){ "help", no_argument, NULL, CODE(k) };
	if (!own_h)
		strcat(shorts, "h");

	opterr = 0;	/* the usage says it all */
	optind = 0;	/* glibc: start afresh */
	for (;;) {
		int li = -1;
		int c = getopt_long_only(argc, argv, shorts, longs, &li);
		const struct kt_opt *o = NULL;

		if (c == -1)
			break;
		if (c == 1) {
			add_pos(s, pos, &npos, optarg);
			continue;
		}
		if (li >= 0 && !typed_in_full(argv, &longs[li]))
			bad_usage(s);
		if (c == CODE(k) || (c == 'h' && !own_h)) {
			s->usage(stdout);
			exit(0);
		}
		if (c >= CODE(0)) {
			o = &s->opts[c - CODE(0)];
		} else {
			for (int j = 0; j < k && !o; j++)
				if (s->opts[j].name[1] == '\0' && s->opts[j].name[0] == c)
					o = &s->opts[j];
		}
		if (!o)		/* '?' unknown, ':' missing value */
			bad_usage(s);
		switch (o->kind) {
		case KT_OPT_FLAG:
			*(int *)o->dst = o->val;
			break;
		case KT_OPT_STR:
			*(const char **)o->dst = optarg;
			break;
		case KT_OPT_ULL:
		case KT_OPT_POSLONG:
			number(o, argv);
			break;
		}
	}
	/* After "--": arguments only, a name that starts with '-' included. */
	for (; optind < argc; optind++)
		add_pos(s, pos, &npos, argv[optind]);
	if (npos < s->min_pos)
		bad_usage(s);
	return npos;
}

static char *trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n' || e[-1] == '\r'))
		*--e = '\0';
	return s;
}

int kt_conf_args(const char *path, int argc, char **argv, char ***out,
		 char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	char line[4096];
	char **v;
	int n = 1, cap = argc + 16, ln = 0;

	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	v = kt_xmalloc((size_t)cap * sizeof(*v));
	v[0] = argv[0];
	while (fgets(line, sizeof(line), f)) {
		char *k, *val = NULL, *eq, *hash = strchr(line, '#');

		ln++;
		if (!strchr(line, '\n') && !feof(f)) {
			snprintf(err, errlen, "%s:%d: line longer than %zu bytes", path, ln,
				 sizeof(line) - 2);
			goto fail;
		}
		if (hash)
			*hash = '\0';
		eq = strchr(line, '=');
		if (eq) {
			*eq = '\0';
			val = trim(eq + 1);
		}
		k = trim(line);
		if (!*k && !val)
			continue;
		if (!*k || strspn(k, "abcdefghijklmnopqrstuvwxyz0123456789-") != strlen(k) ||
		    *k == '-' || (val && !*val)) {
			snprintf(err, errlen, "%s:%d: not `key = value` (a key of a-z, 0-9 and -)",
				 path, ln);
			goto fail;
		}
		if (n + 2 + argc >= cap) {
			cap *= 2;
			v = kt_xrealloc(v, (size_t)cap * sizeof(*v));
		}
		if (asprintf(&v[n], "--%s", k) < 0)
			goto oom;
		n++;
		if (val)
			v[n++] = kt_xstrdup(val);
	}
	if (ferror(f)) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		goto fail;
	}
	fclose(f);
	for (int i = 1; i < argc; i++)
		v[n++] = argv[i];
	v[n] = NULL;
	*out = v;
	return n;
oom:
	snprintf(err, errlen, "%s: out of memory", path);
fail:
	fclose(f);
	for (int i = 1; i < n; i++)
		free(v[i]);
	free(v);
	return -1;
}

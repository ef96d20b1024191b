// SPDX-License-Identifier: BSD-3-Clause
/*
 * samptoname_k - name kernel PC samples from a kallsyms listing
 * (docs/spec/FORMATS.md 6.7).
 *
 *   samptoname_k <kallsyms.txt> < in.json > out.json
 *
 * Every row with event 0x281 (PC_K) whose name is "PC=<hex>" becomes
 * "PC=<symbol>" with arg = H(symbol), the symbol being the one with the
 * greatest address <= PC.  As in the original, a "-dummy-" symbol 4096
 * bytes after the last one catches PCs past the end.  A PC below the first
 * symbol is left unchanged (the original's lookup runs off the front of its
 * table there).  The listing need not be sorted.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "jsonrows.h"

struct sym {
	uint64_t addr;
	size_t seq;		/* file order: first of equal addresses wins */
	const char *name;
};

static struct sym *syms;
static size_t nsyms;

static void usage(FILE *f)
{
	fprintf(f,
		"usage: samptoname_k <kallsyms.txt> < in.json > out.json\n"
		"Replaces kernel PC sample names \"PC=<hex>\" (event 0x281) by\n"
		"\"PC=<symbol>\" from a copy of /proc/kallsyms.\n");
}

static int cmp_sym(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

static void load(const char *path)
{
	FILE *f = kt_xfopen_in(path);
	char *line = NULL;
	size_t cap = 0, nalloc = 0;
	long lineno = 0;

	while (getline(&line, &cap, f) > 0) {
		char *p = line, *end;
		uint64_t a;

		lineno++;
		while (isspace((unsigned char)*p))
			p++;
		if (*p == '\0')
			continue;
		errno = 0;
		a = strtoull(p, &end, 16);
		if (end == p || errno || !isspace((unsigned char)*end))
			kt_die("%s:%ld: expected \"address type name\"", path, lineno);
		/* type letter, then the name (a module in brackets may follow) */
		p = end + strspn(end, " \t");
		p += strcspn(p, " \t\n");
		p += strspn(p, " \t");
		size_t n = strcspn(p, " \t\r\n");

		if (n == 0)
			kt_die("%s:%ld: expected \"address type name\"", path, lineno);
		p[n] = '\0';
		if (nsyms + 1 >= nalloc) {
			nalloc = nalloc ? nalloc * 2 : 4096;
			syms = kt_xrealloc(syms, nalloc * sizeof(*syms));
		}
		syms[nsyms].addr = a;
		syms[nsyms].seq = nsyms;
		syms[nsyms].name = kt_intern(p);
		nsyms++;
	}
	free(line);
	if (ferror(f))
		kt_die("%s: read error", path);
	fclose(f);
	if (nsyms == 0)
		kt_die("%s: no symbols", path);
	qsort(syms, nsyms, sizeof(*syms), cmp_sym);
	syms[nsyms].addr = syms[nsyms - 1].addr + 4096;
	syms[nsyms].seq = nsyms;
	syms[nsyms].name = kt_intern("-dummy-");
	nsyms++;
}

/* Index of the first symbol of the greatest address <= pc, or -1. */
static long lookup(uint64_t pc)
{
	size_t lo = 0, hi = nsyms;	/* first index with addr > pc */

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (syms[mid].addr <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return -1;
	long i = (long)lo - 1;

	while (i > 0 && syms[i - 1].addr == syms[i].addr)
		i--;
	return i;
}

int main(int argc, char **argv)
{
	kt_set_progname(argv[0]);
	if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
		usage(stdout);
		return 0;
	}
	if (argc != 2) {
		usage(stderr);
		return 2;
	}
	load(argv[1]);

	struct kt_jreader r;
	struct kt_jrow w;
	struct kt_buf nb = { 0 };

	kt_xjr_open(&r, "-");
	kt_jw_header(stdout, &r, NULL, NULL);
	while (kt_xjr_next(&r, &w)) {
		uint64_t pc;
		long i;

		if (w.event == KUTRACE_PC_K && kt_parse_pc(w.name, &pc) &&
		    (i = lookup(pc)) >= 0) {
			nb.len = 0;
			kt_buf_printf(&nb, "PC=%s", syms[i].name);
			w.name = kt_intern(nb.p);
			w.arg = kt_name_hash16(syms[i].name);
		}
		kt_jw_row(stdout, &w);
	}
	kt_jw_end(stdout, &r);
	kt_jr_close(&r);
	kt_buf_free(&nb);
	free(syms);
	if (fflush(stdout) != 0 || ferror(stdout))
		kt_die("write error on stdout");
	return 0;
}

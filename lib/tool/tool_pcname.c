// SPDX-License-Identifier: BSD-3-Clause
/*
 * tool_pcname.c - the symbol table and main() of samptoname_k and
 * samptoname_u (pcname.h): the two differ only in where the names come
 * from (a kallsyms listing; process maps and ELF symbol tables).
 */
#include <stdlib.h>
#include <string.h>

#include "tool.h"
#include "pcname.h"

void kt_symtab_add(struct kt_symtab *t, uint64_t addr, uint64_t size, const char *name)
{
	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 4096;
		t->s = kt_xrealloc(t->s, t->cap * sizeof(*t->s));
	}
	t->s[t->n] = (struct kt_sym){ addr, size, t->n, kt_intern(name) };
	t->n++;
}

static int cmp_sym(const void *a, const void *b)
{
	const struct kt_sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->size != y->size)
		return x->size > y->size ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

void kt_symtab_sort(struct kt_symtab *t)
{
	if (t->n)
		qsort(t->s, t->n, sizeof(*t->s), cmp_sym);
}

const struct kt_sym *kt_symtab_find(const struct kt_symtab *t, uint64_t pc)
{
	size_t lo = 0, hi = t->n;	/* first index with addr > pc */

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->s[mid].addr <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	size_t i = lo - 1;

	while (i > 0 && t->s[i - 1].addr == t->s[i].addr)
		i--;
	return &t->s[i];
}

void kt_symtab_free(struct kt_symtab *t)
{
	free(t->s);
	memset(t, 0, sizeof(*t));
}

int kt_pcname_main(int argc, char **argv, const char *usage, int event,
		   void (*load)(const char *path),
		   const char *(*name)(const struct kt_jrow *row, uint64_t pc))
{
	kt_set_progname(argv[0]);
	if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
		fputs(usage, stdout);
		return 0;
	}
	if (argc != 2) {
		fputs(usage, stderr);
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
		const char *s;

		if (w.event == event && kt_parse_pc(w.name, &pc) && (s = name(&w, pc)) != NULL) {
			nb.len = 0;
			kt_buf_printf(&nb, "PC=%s", s);
			w.name = kt_intern(nb.p);
			w.arg = kt_name_hash16(s);
		}
		kt_jw_row(stdout, &w);
	}
	kt_jw_end(stdout, &r);
	kt_jr_close(&r);
	kt_buf_free(&nb);
	if (fflush(stdout) != 0 || ferror(stdout))
		kt_die("write error on stdout");
	return 0;
}

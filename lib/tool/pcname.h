/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pcname.h - what samptoname_k and samptoname_u share (lib/tool/tool_pcname.c):
 * a symbol table looked up by address, and their main(), which renames PC
 * sample rows on their way from stdin to stdout (docs/spec/FORMATS.md 6.7).
 */
#ifndef KUTRACE_PCNAME_H
#define KUTRACE_PCNAME_H

#include <stddef.h>
#include <stdint.h>

#include "jsonrows.h"

struct kt_sym {
	uint64_t addr, size;	/* size 0: unknown */
	size_t seq;		/* order of adding */
	const char *name;	/* interned */
};

struct kt_symtab {
	struct kt_sym *s;
	size_t n, cap;
};

void kt_symtab_add(struct kt_symtab *t, uint64_t addr, uint64_t size, const char *name);
/* By address; among equal addresses the largest size, then the first added. */
void kt_symtab_sort(struct kt_symtab *t);
/* The first of the (sorted) symbols of the greatest address <= pc, or NULL. */
const struct kt_sym *kt_symtab_find(const struct kt_symtab *t, uint64_t pc);
void kt_symtab_free(struct kt_symtab *t);

/*
 * main() of samptoname_k/u: one argument, the file load() reads; then
 * every JSON row of the event given whose name is "PC=<hex>" and whose PC
 * name() names becomes "PC=<name>" with arg H(name).  Returns main's exit
 * status (2 with the usage text on stderr for wrong arguments).
 */
int kt_pcname_main(int argc, char **argv, const char *usage, int event,
		   void (*load)(const char *path),
		   const char *(*name)(const struct kt_jrow *row, uint64_t pc));

#endif /* KUTRACE_PCNAME_H */

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

#include "tool.h"
#include "pcname.h"

static struct kt_symtab syms;

static void load(const char *path)
{
	FILE *f = kt_xfopen_in(path);
	char *line = NULL;
	size_t cap = 0;
	long lineno = 0;
	ssize_t len;

	while ((len = getline(&line, &cap, f)) > 0) {
		char *p = line, *end;
		uint64_t a;

		lineno++;
		/* As samptoname_u: a NUL byte would make a line look blank. */
		if (memchr(line, '\0', (size_t)len))
			kt_die("%s:%ld: a NUL byte (not a kallsyms file)", path, lineno);
		while (isspace((unsigned char)*p))
			p++;
		if (*p == '\0')
			continue;
		/*
		 * kallsyms writes the address in hex digits alone and the type
		 * as one letter: strtoull's sign, "0x" and decimal-looking
		 * words would take lines of numbers for symbols (exit 0 on
		 * text that is no kallsyms, found by tests/fuzz/mutate.py).
		 */
		errno = 0;
		a = strtoull(p, &end, 16);
		if (!isxdigit((unsigned char)*p) || (size_t)(end - p) != strspn(p, "0123456789abcdefABCDEF") ||
		    errno || !isspace((unsigned char)*end))
			kt_die("%s:%ld: expected \"address type name\"", path, lineno);
		/* type letter, then the name (a module in brackets may follow) */
		p = end + strspn(end, " \t");
		if (!isalpha((unsigned char)p[0]) || !isspace((unsigned char)p[1]))
			kt_die("%s:%ld: expected \"address type name\" (type: one letter)", path, lineno);
		p += 1 + strspn(p + 1, " \t");
		size_t n = strcspn(p, " \t\r\n");

		if (n == 0)
			kt_die("%s:%ld: expected \"address type name\"", path, lineno);
		p[n] = '\0';
		kt_symtab_add(&syms, a, 0, p);
	}
	free(line);
	if (ferror(f))
		kt_die("%s: read error", path);
	fclose(f);
	if (syms.n == 0)
		kt_die("%s: no symbols", path);
	kt_symtab_sort(&syms);
	kt_symtab_add(&syms, syms.s[syms.n - 1].addr + 4096, 0, "-dummy-");
}

static const char *name(const struct kt_jrow *row, uint64_t pc)
{
	const struct kt_sym *s = kt_symtab_find(&syms, pc);

	(void)row;
	return s ? s->name : NULL;
}

int main(int argc, char **argv)
{
	int rc = kt_pcname_main(argc, argv,
				"usage: samptoname_k <kallsyms.txt> < in.json > out.json\n"
				"Replaces kernel PC sample names \"PC=<hex>\" (event 0x281) by\n"
				"\"PC=<symbol>\" from a copy of /proc/kallsyms.\n",
				KUTRACE_PC_K, load, name);

	kt_symtab_free(&syms);
	return rc;
}

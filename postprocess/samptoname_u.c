// SPDX-License-Identifier: BSD-3-Clause
/*
 * samptoname_u - name user-mode PC samples from process maps and the
 * mapped binaries' symbol tables (docs/spec/FORMATS.md 6.8).
 *
 *   samptoname_u <maps.txt> < in.json > out.json
 *
 * maps.txt is the concatenation of /proc/<pid>/maps files, each preceded
 * by a line "==== /proc/<pid>/maps".  Executable mappings with a path are
 * kept.  For every row with event 0x280 (PC_U) named "PC=<hex>", the
 * mapping of (row pid, PC) is found - or that of a parent up to 11 pids
 * lower, since children share the parent's maps - and the PC is turned
 * into an ELF virtual address through the mapping's FILE OFFSET and the
 * program headers (the original ignored the offset, which is wrong for
 * every segment not mapped from offset 0).  The symbol
 * comes from .symtab (or .dynsym) read with elfutils' libelf, once per
 * binary, instead of one addr2line process per sample.  The row becomes
 * "PC=<function>" with arg = H(function); unknown addresses give "PC=??"
 * like addr2line.  C++ names are not demangled.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tool.h"
#include "pcname.h"

#define PID_LOOKBACK 12

struct mapping {
	uint64_t pid, start, end, offset;
	const char *path;	/* interned */
};

struct elfinfo {
	const char *path;	/* interned; NULL = free slot */
	int ok;
	struct kt_symtab syms;	/* STT_FUNC and STT_GNU_IFUNC */
	GElf_Phdr *load;	/* PT_LOAD headers */
	size_t nload;
};

static struct mapping *maps;
static size_t nmaps;
static struct elfinfo *elves;
static size_t nelves;

static int cmp_map(const void *a, const void *b)
{
	const struct mapping *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return (x->start > y->start) - (x->start < y->start);
}

static void load_maps(const char *path)
{
	FILE *f = kt_xfopen_in(path);
	char *line = NULL;
	size_t cap = 0, nalloc = 0;
	long lineno = 0, nlines = 0;
	int have_pid = 0;
	uint64_t pid = 0;
	ssize_t n;

	while ((n = getline(&line, &cap, f)) > 0) {
		unsigned long long s, e, off;
		char perms[8];
		int pos = 0;

		lineno++;
		/*
		 * A maps file is text: a NUL byte would end the line early,
		 * and a line starting with one would pass for a blank line
		 * (64 KB of zeros was an empty maps file, exit 0).
		 */
		if (memchr(line, '\0', (size_t)n))
			kt_die("%s:%ld: a NUL byte (not a /proc/<pid>/maps file)", path, lineno);
		line[strcspn(line, "\n")] = '\0';
		if (strncmp(line, "====", 4) == 0) {
			if (sscanf(line, "==== /proc/%" SCNu64 "/maps", &pid) != 1)
				kt_die("%s:%ld: expected \"==== /proc/<pid>/maps\"", path, lineno);
			have_pid = 1;
			continue;
		}
		if (line[0] == '\0')
			continue;
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s%n", &s, &e, perms, &off, &pos) < 4 ||
		    pos == 0)
			kt_die("%s:%ld: expected a /proc/<pid>/maps line", path, lineno);
		if (!have_pid)
			kt_die("%s:%ld: mapping before any \"==== /proc/<pid>/maps\" line", path, lineno);
		const char *p = line + pos;

		nlines++;
		while (isspace((unsigned char)*p))
			p++;
		if (!strchr(perms, 'x') || *p == '\0' || e <= s)
			continue;
		if (nmaps == nalloc) {
			nalloc = nalloc ? nalloc * 2 : 256;
			maps = kt_xrealloc(maps, nalloc * sizeof(*maps));
		}
		maps[nmaps].pid = pid;
		maps[nmaps].start = s;
		maps[nmaps].end = e;
		maps[nmaps].offset = off;
		maps[nmaps].path = kt_intern(p);
		nmaps++;
	}
	free(line);
	if (ferror(f))
		kt_die("%s: read error", path);
	fclose(f);
	/*
	 * Every process maps at least its binary: a file without one
	 * mapping line is not the processes' maps (empty, cut, or the wrong
	 * file), and would leave every sample unnamed without a word.
	 * samptoname_k refuses a kallsyms file without symbols the same way.
	 */
	if (nlines == 0)
		kt_die("%s: no mapping line (an empty maps file, or only \"====\" lines)", path);
	if (nmaps)
		qsort(maps, nmaps, sizeof(*maps), cmp_map);
}

/* Greatest mapping <= (pid, pc) in (pid, start) order, or NULL. */
static const struct mapping *nearest(uint64_t pid, uint64_t pc)
{
	size_t lo = 0, hi = nmaps;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct mapping *m = &maps[mid];

		if (m->pid < pid || (m->pid == pid && m->start <= pc))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? &maps[lo - 1] : NULL;
}

static const struct mapping *find_map(uint64_t pid, uint64_t pc)
{
	const struct mapping *m = nearest(pid, pc);

	/* A thread or child without its own maps: use the parent's. */
	if (m && m->pid != pid && m->pid < pid && pid - m->pid < PID_LOOKBACK)
		m = nearest(m->pid, pc);
	if (!m || m->start > pc || pc >= m->end)
		return NULL;
	if (m->pid != pid && !(m->pid < pid && pid - m->pid < PID_LOOKBACK))
		return NULL;
	return m;
}

static void read_elf(struct elfinfo *ei)
{
	int fd = open(ei->path, O_RDONLY | O_CLOEXEC);
	Elf *e;

	if (fd < 0)
		return;
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e || elf_kind(e) != ELF_K_ELF) {
		if (e)
			elf_end(e);
		close(fd);
		return;
	}
	size_t nph = 0;

	if (elf_getphdrnum(e, &nph) == 0) {
		ei->load = kt_xcalloc(nph ? nph : 1, sizeof(*ei->load));
		for (size_t i = 0; i < nph; i++) {
			GElf_Phdr ph;

			if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD)
				ei->load[ei->nload++] = ph;
		}
	}
	/* .symtab if present (unstripped), else .dynsym. */
	for (int pass = 0; pass < 2 && ei->syms.n == 0; pass++) {
		Elf_Scn *scn = NULL;

		while ((scn = elf_nextscn(e, scn)) != NULL) {
			GElf_Shdr sh;

			if (!gelf_getshdr(scn, &sh) ||
			    sh.sh_type != (pass == 0 ? SHT_SYMTAB : SHT_DYNSYM) ||
			    sh.sh_entsize == 0)
				continue;
			Elf_Data *d = elf_getdata(scn, NULL);
			size_t n = sh.sh_size / sh.sh_entsize;

			for (size_t i = 0; d && i < n; i++) {
				GElf_Sym sym;
				const char *name;
				int t;

				if (!gelf_getsym(d, (int)i, &sym))
					break;
				t = GELF_ST_TYPE(sym.st_info);
				if ((t != STT_FUNC && t != STT_GNU_IFUNC) || sym.st_value == 0 ||
				    sym.st_shndx == SHN_UNDEF)
					continue;
				name = elf_strptr(e, sh.sh_link, sym.st_name);
				if (!name || !*name)
					continue;
				kt_symtab_add(&ei->syms, sym.st_value, sym.st_size, name);
			}
		}
	}
	/* Among aliases the sized symbol comes first. */
	kt_symtab_sort(&ei->syms);
	ei->ok = 1;
	elf_end(e);
	close(fd);
}

static struct elfinfo *get_elf(const char *path)
{
	for (size_t i = 0; i < nelves; i++)
		if (elves[i].path == path)
			return &elves[i];
	elves = kt_xrealloc(elves, (nelves + 1) * sizeof(*elves));
	struct elfinfo *ei = &elves[nelves++];

	memset(ei, 0, sizeof(*ei));
	ei->path = path;
	read_elf(ei);
	return ei;
}

/* Function name for pc in mapping m, or "??". */
static const char *symbolize(const struct mapping *m, uint64_t pc)
{
	struct elfinfo *ei = get_elf(m->path);
	uint64_t foff = pc - m->start + m->offset;
	uint64_t va = foff;

	if (!ei->ok)
		return "??";
	/* File offset -> link-time virtual address via the PT_LOAD headers. */
	for (size_t i = 0; i < ei->nload; i++) {
		const GElf_Phdr *ph = &ei->load[i];

		if (foff >= ph->p_offset && foff < ph->p_offset + ph->p_filesz) {
			va = foff - ph->p_offset + ph->p_vaddr;
			break;
		}
	}
	const struct kt_sym *s = kt_symtab_find(&ei->syms, va);

	if (!s || (s->size && va >= s->addr + s->size))
		return "??";
	return s->name;
}

static void load(const char *path)
{
	if (elf_version(EV_CURRENT) == EV_NONE)
		kt_die("libelf: %s", elf_errmsg(-1));
	load_maps(path);
}

static const char *name(const struct kt_jrow *row, uint64_t pc)
{
	const struct mapping *m;
	char *fn;
	const char *f;

	if (row->pid < 0 || (m = find_map((uint64_t)row->pid, pc)) == NULL)
		return NULL;
	fn = kt_xstrdup(symbolize(m, pc));
	fn[strcspn(fn, "(")] = '\0';
	/* As the original: glibc's memcpy ifunc resolves oddly. */
	f = kt_intern(strcmp(fn, "__nss_passwd_lookup") == 0 ? "memcpy" : fn);
	free(fn);
	return f;
}

int main(int argc, char **argv)
{
	int rc = kt_pcname_main(argc, argv,
				"usage: samptoname_u <maps.txt> < in.json > out.json\n"
				"Replaces user PC sample names \"PC=<hex>\" (event 0x280) by\n"
				"\"PC=<function>\" using the processes' maps (each file preceded by a\n"
				"line \"==== /proc/<pid>/maps\") and the binaries' ELF symbols.\n"
				"A maps file without any mapping line, or with a NUL byte, is refused.\n",
				KUTRACE_PC_U, load, name);

	for (size_t i = 0; i < nelves; i++) {
		kt_symtab_free(&elves[i].syms);
		free(elves[i].load);
	}
	free(elves);
	free(maps);
	return rc;
}

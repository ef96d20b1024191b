// SPDX-License-Identifier: BSD-3-Clause
/*
 * checktrace - validate a raw KUtrace file (docs/spec/FORMATS.md 6.9).
 *
 *   checktrace <file.trace> [-v] [-q] [-h] [-nopf]
 *
 * Prints one line per finding, prefixed "OK  ", "Warn", "FAIL" or "info",
 * each distinct message at most twice unless -v, and ends with
 * "PASS <file>" or "FAIL <file>" (exit status 0 / 1).  -q prints only that
 * verdict, -h also hex-dumps every word, -nopf accepts traces without page
 * faults.
 *
 * Blocks are read with libkutrace's kt_raw_next, so side blocks follow the
 * IPC or LLC flag (the original looked at IPC only and so misread LLC-only
 * traces), and damage the reader cannot get past ends the check with its
 * one-line reason.  Block
 * order is not checked for wraparound traces, whose blocks are not in
 * time order in the file (allocation restarts at the second block when
 * the buffer wraps).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tool.h"

#define MAX_CTR   0x001FFFFFFFFFFFFFULL
#define MAX_CALLS 0x1000

static int verbose, quiet, hexdump, nopf;
static int failed;

/* Message repetition counts, keyed by the format string. */
struct seenmsg {
	const char *fmt;
	long n;
};
static struct seenmsg seen[128];
static size_t nseen;

static void report(const char *tag, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void report(const char *tag, const char *fmt, ...)
{
	size_t i;
	va_list ap;

	if (strcmp(tag, "FAIL") == 0)
		failed = 1;
	if (quiet)
		return;
	for (i = 0; i < nseen; i++)
		if (seen[i].fmt == fmt)
			break;
	if (i == nseen && nseen < sizeof(seen) / sizeof(seen[0]))
		seen[nseen++].fmt = fmt;
	if (i < nseen && ++seen[i].n > 2 && !verbose) {
		if (seen[i].n == 3)
			printf("%s (more of the above; -v shows all)\n", tag);
		return;
	}
	printf("%s ", tag);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: checktrace <file.trace> [-v] [-q] [-h] [-nopf]\n"
		"Validates a raw KUtrace file and prints OK/Warn/FAIL/info lines,\n"
		"ending with \"PASS <file>\" or \"FAIL <file>\".\n"
		"  -v     show every message (default: each at most twice)\n"
		"  -q     print only the verdict\n"
		"  -h     hex-dump every word\n"
		"  -nopf  do not require page-fault (trap) events\n");
}

struct counts {
	long traps, irqs, syscalls, names, ctxsw, wakeups;
	long pcsamples, freq, mwait, rpc, locks, queues, marks;
	int kernel_ver, model, host;
	enum kt_arch arch;	/* from the backend entry */
	long calls[MAX_CALLS], rets[MAX_CALLS];
	long cpu_events[KUTRACE_MAX_CPUS];
};

static struct counts cnt;

/* LOST entries (docs/spec/FORMATS.md 10.3), summed per CPU they name. */
static struct lost {
	uint64_t entries, blocks, first, last, n;
	unsigned int why;	/* 1 << reason, OR of all */
	int bad;		/* an interval running backward */
} lost[256];
static uint64_t trace_start, trace_stop;

static void count_lost(const uint64_t *e)
{
	struct lost *l = &lost[e[0] & KUTRACE_LOST_CPU_MASK];
	unsigned int why = (unsigned int)((e[0] >> KUTRACE_LOST_WHY_SHIFT) &
					  KUTRACE_LOST_WHY_MASK);

	l->entries += e[1];
	l->blocks += (e[0] & KUTRACE_ARG32_MASK) >> KUTRACE_LOST_BLOCKS_SHIFT;
	if (!l->n || e[2] < l->first)
		l->first = e[2];
	if (!l->n || e[3] > l->last)
		l->last = e[3];
	if (e[2] > e[3])
		l->bad = 1;
	l->why |= 1u << (why < 31 ? why : 31);
	l->n++;
}

static void lost_report(double ticks_per_us)
{
	uint64_t te = 0, tb = 0;
	long cpus = 0;

	for (unsigned int c = 0; c < 256; c++) {
		const struct lost *l = &lost[c];
		double t0, t1;

		if (!l->n)
			continue;
		t0 = ticks_per_us > 0 ? (double)(int64_t)(l->first - trace_start) /
			ticks_per_us / 1e6 : 0;
		t1 = ticks_per_us > 0 ? (double)(int64_t)(l->last - trace_start) /
			ticks_per_us / 1e6 : 0;
		report("Warn", "lost on cpu %u: %llu entries, %llu blocks, %.6f..%.6f s (%s%s%s)",
		       c, (unsigned long long)l->entries, (unsigned long long)l->blocks,
		       t0, t1, l->why & 2 ? "reader behind" : "",
		       (l->why & 2) && (l->why & 12) ? ", " : "",
		       l->why & 4 ? "overwritten" : l->why & 8 ? "disk" : "");
		if (l->bad || l->first < trace_start || l->last > trace_stop)
			report("FAIL", "lost on cpu %u: interval runs backward or outside the trace", c);
		te += l->entries;
		tb += l->blocks;
		cpus++;
	}
	if (cpus)
		report("info", "lost: %llu entries, %llu blocks on %ld CPUs",
		       (unsigned long long)te, (unsigned long long)tb, cpus);
}

/*
 * Events per time bucket, for the "busiest interval" lines.  A hash of the
 * buckets that hold events: one block claiming a time far away costs one
 * slot, not every bucket up to it.
 */
struct busy {
	double width;		/* seconds */
	long *key, *ev;		/* bucket number (-1 free), events in it */
	size_t cap, used;
};

static size_t busy_slot(const struct busy *b, long k)
{
	size_t i = ((size_t)k * 0x9E3779B97F4A7C15ull) & (b->cap - 1);

	while (b->key[i] != -1 && b->key[i] != k)
		i = (i + 1) & (b->cap - 1);
	return i;
}

static void busy_add(struct busy *b, double t, unsigned int cpu, long n)
{
	(void)cpu;
	if (t < 0 || t > 1e6)
		return;
	long k = (long)(t / b->width);

	if (2 * (b->used + 1) > b->cap) {
		struct busy o = *b;

		b->cap = o.cap ? 2 * o.cap : 64;
		b->key = kt_xmalloc(b->cap * sizeof(long));
		b->ev = kt_xcalloc(b->cap, sizeof(long));
		memset(b->key, 0xFF, b->cap * sizeof(long));
		for (size_t i = 0; i < o.cap; i++)
			if (o.key[i] != -1) {
				size_t j = busy_slot(b, o.key[i]);

				b->key[j] = o.key[i];
				b->ev[j] = o.ev[i];
			}
		free(o.key);
		free(o.ev);
	}
	size_t i = busy_slot(b, k);

	if (b->key[i] == -1) {
		b->key[i] = k;
		b->used++;
	}
	b->ev[i] += n;
}

static void busy_report(const struct busy *b, const char *label, int ncpus)
{
	long best = -1, bestn = 0;

	/* the earliest of the busiest buckets */
	for (size_t i = 0; i < b->cap; i++)
		if (b->key[i] != -1 && (b->ev[i] > bestn ||
					(b->ev[i] == bestn && bestn > 0 && b->key[i] < best))) {
			bestn = b->ev[i];
			best = b->key[i];
		}
	if (best < 0)
		return;
	report("info", "busiest %s: %.1f..%.1f s, %ld events (%.0f per CPU)", label,
	       best * b->width, (best + 1) * b->width, bestn,
	       ncpus ? (double)bestn / ncpus : 0.0);
}

static int printable(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s > 0x7E)
			return 0;
	return 1;
}

static void count_entry(unsigned int ev, const uint64_t *e, unsigned int len)
{
	unsigned int type = ev & KUTRACE_TYPE_MASK;
	uint64_t w = e[0];

	if (kutrace_is_varlen(ev) && type == KUTRACE_LOST) {
		if (len == KUTRACE_LOST_WORDS)
			count_lost(e);
		return;
	}
	if (kutrace_is_varlen(ev)) {
		cnt.names++;
		if (type == KUTRACE_BACKEND_NAME && len > 1) {
			char text[8 * 8 + 1] = "";

			memcpy(text, e + 1, 8 * (len > 9 ? 8 : len - 1));
			cnt.arch = kt_backend_arch(text);
		} else if (type == KUTRACE_KERNEL_VER)
			cnt.kernel_ver = 1;
		else if (type == KUTRACE_MODEL_NAME)
			cnt.model = 1;
		else if (type == KUTRACE_HOST_NAME)
			cnt.host = 1;
		return;
	}
	if (ev == KUTRACE_PC_U || ev == KUTRACE_PC_K || ev == KUTRACE_PC_TEMP) {
		cnt.pcsamples++;
		return;
	}
	if (ev >= KUTRACE_CALL_LO) {
		unsigned int call = ev & ~(unsigned int)KUTRACE_RET_BIT;
		int fused = ((w >> KUTRACE_DELTA_SHIFT) & KUTRACE_DELTA_MASK) != 0;

		if (kutrace_is_call(ev)) {
			cnt.calls[call]++;
			if (fused)
				cnt.rets[call]++;
		} else {
			cnt.rets[call]++;
		}
		if (call == KUTRACE_SCHED_CALL || call == KUTRACE_SCHED_CALL_OLD)
			return;
		if (call < KUTRACE_IRQ)
			cnt.traps++;
		else if (call < KUTRACE_TRAPRET)
			cnt.irqs++;
		else if (call >= KUTRACE_SYSCALL64)
			cnt.syscalls++;
		return;
	}
	switch (ev) {
	case KUTRACE_USERPID: cnt.ctxsw++; break;
	case KUTRACE_RUNNABLE: cnt.wakeups++; break;
	case KUTRACE_PSTATE: case KUTRACE_PSTATE2: cnt.freq++; break;
	case KUTRACE_MWAIT: cnt.mwait++; break;
	case KUTRACE_RPCIDREQ: case KUTRACE_RPCIDRESP: case KUTRACE_RPCIDMID:
	case KUTRACE_RPCIDRXMSG: case KUTRACE_RPCIDTXMSG: cnt.rpc++; break;
	case KUTRACE_LOCKNOACQUIRE: case KUTRACE_LOCKACQUIRE: case KUTRACE_LOCKWAKEUP:
		cnt.locks++; break;
	case KUTRACE_ENQUEUE: case KUTRACE_DEQUEUE: cnt.queues++; break;
	case KUTRACE_MARKA: case KUTRACE_MARKB: case KUTRACE_MARKC: case KUTRACE_MARKD:
		cnt.marks++; break;
	default: break;
	}
}

/* What the whole file says, after the blocks: printed by summary(). */
struct tally {
	struct busy tenth, second;
	unsigned int orflags;
	double ticks_per_us;	/* from block 0's pair, 0 if it has none */
	int wrap, ncpus;
	long blocks;
};

/*
 * A file of the wrong size or version is not read further: the verdict
 * FAIL now.  Block 0's version nibble first: the reader refuses versions
 * != 3.
 */
static int shape_ok(const char *path)
{
	struct stat st;
	uint64_t w[2] = { 0, 0 };

	if (stat(path, &st) != 0)
		kt_die("cannot open %s: %m", path);
	/* A directory of chunks: the reader checks each file's shape. */
	if (S_ISDIR(st.st_mode))
		return 1;
	if (st.st_size < KUTRACE_BLOCK_BYTES || st.st_size % KUTRACE_SIDE_BYTES != 0) {
		report("FAIL", "file size %lld bytes: must be a multiple of 8 KiB and at least 64 KiB",
		       (long long)st.st_size);
		return 0;
	}
	FILE *f = fopen(path, "rb");

	if (!f)
		kt_die("cannot read %s: %s", path, strerror(errno));
	if (fread(w, sizeof(w[0]), 2, f) != 2)
		kt_die("cannot read %s: %s", path,
		       ferror(f) ? strerror(errno) : "shorter than a block header");
	fclose(f);
	int version = (int)((w[1] >> KUTRACE_HDR_FLAGS_SHIFT) & KUTRACE_FLAG_VERSION);

	if (version < KUTRACE_FILE_VERSION) {
		report("FAIL", "block 0: trace-file version %d < %d (too old or not a trace)",
		       version, KUTRACE_FILE_VERSION);
		return 0;
	}
	if (version != KUTRACE_FILE_VERSION)
		report("Warn", "block 0: trace-file version %d, expected %d",
		       version, KUTRACE_FILE_VERSION);
	return 1;
}

/* Block 0's time pair, as written, not as kt_raw_index repaired it. */
static void check_block0(const struct kt_block *b, struct tally *t)
{
	uint64_t c0 = b->w[KUTRACE_HDR_START_CTR], c1 = b->w[KUTRACE_HDR_STOP_CTR];
	uint64_t u0 = b->w[KUTRACE_HDR_START_USEC], u1 = b->w[KUTRACE_HDR_STOP_USEC];

	t->wrap = (b->flags & KUTRACE_FLAG_WRAP) != 0;
	/* Raspberry Pi counters are 32 bits: skip the range test. */
	if (!(c0 <= 0xFFFFFFFFULL && c1 <= 0xFFFFFFFFULL) &&
	    (c0 > MAX_CTR || c1 > MAX_CTR))
		report("FAIL", "block 0: start/stop counter %#llx/%#llx out of range",
		       (unsigned long long)c0, (unsigned long long)c1);
	if (u0 < KT_USEC_2016 || u0 >= KT_USEC_2050 || u1 < KT_USEC_2016 || u1 >= KT_USEC_2050)
		report("FAIL", "block 0: start/stop gettimeofday %llu/%llu usec outside 2016..2050",
		       (unsigned long long)u0, (unsigned long long)u1);
	if (c0 >= c1 || u0 >= u1) {
		report("FAIL", "block 0: start time is not before stop time");
	} else {
		t->ticks_per_us = (double)(c1 - c0) / (double)(u1 - u0);
	}
	if (b->w[6] || b->w[7])
		report("Warn", "block 0: reserved words 6, 7 not zero");
}

static void check_header(const struct kt_block *b, const struct kt_raw *r)
{
	long bi = b->index;

	if ((b->flags & KUTRACE_FLAG_STREAM) && bi != 0)
		report("Warn", "block %ld: stream flag 0x10 outside block 0", bi);
	if (b->pid >= (1u << 20))
		report("Warn", "block %ld: pid %u >= 2^20", bi, b->pid);
	if (b->mhz && (b->mhz < 25 || b->mhz > 9999))
		report("Warn", "block %ld: header MHz %u outside 25..9999", bi, b->mhz);
	if (b->w[bi == 0 || b->head ? KUTRACE_HDR0_PID + 1 : KUTRACE_HDRN_PID + 1])
		report("Warn", "block %ld: reserved header word not zero", bi);
	if (!printable(b->comm))
		report("Warn", "block %ld: non-printable command name in header", bi);
	if (b->base < r->start_ctr || b->base > r->stop_ctr)
		report("FAIL", "block %ld: counter %#llx outside the start..stop range", bi,
		       (unsigned long long)b->base);
	if (b->usec < r->start_usec || b->usec > r->stop_usec)
		report("FAIL", "block %ld: gettimeofday %llu outside the start..stop range", bi,
		       (unsigned long long)b->usec);
}

/* The block's entries counted (and hex-dumped with -h); returns how many. */
static long count_block(const struct kt_block *b)
{
	long bi = b->index, nev = 0;

	for (int i = 0; i < KUTRACE_BLOCK_WORDS; i++) {
		if (hexdump && !quiet)
			printf("     %4ld %4d %016llx\n", bi, i, (unsigned long long)b->w[i]);
	}
	for (int i = b->first_entry; i < KUTRACE_BLOCK_WORDS;) {
		uint64_t w = b->w[i];

		if (w == KUTRACE_WORD_NOP) {
			i++;
			continue;
		}
		if (w == KUTRACE_WORD_END)
			break;
		unsigned int ev = kutrace_word_event(w);
		unsigned int len = kutrace_entry_words(ev);

		if (len == 0)
			len = 1;
		if ((long)i + len > KUTRACE_BLOCK_WORDS) {
			report("FAIL", "block %ld word %d: entry %#05x of %u words runs past the block end",
			       bi, i, ev, len);
			break;
		}
		count_entry(ev, b->w + i, len);
		nev++;
		i += (int)len;
	}
	return nev;
}

static void check_block(const struct kt_block *b, const struct kt_raw *r, struct tally *t)
{
	char err[256];
	int bad = kt_block_check(b, err, sizeof(err));

	t->blocks++;
	t->orflags |= b->flags;
	if (bad)
		report(bad < 0 ? "FAIL" : "Warn", "%s", err);
	if (b->index == 0)
		check_block0(b, t);
	if (b->cpu < KUTRACE_MAX_CPUS && cnt.cpu_events[b->cpu] == 0) {
		cnt.cpu_events[b->cpu] = -1;	/* marks the CPU as seen */
		t->ncpus++;
	}
	check_header(b, r);

	long nev = count_block(b);

	if (b->cpu < KUTRACE_MAX_CPUS)
		cnt.cpu_events[b->cpu] = nev + (cnt.cpu_events[b->cpu] < 0 ? 0 : cnt.cpu_events[b->cpu]);
	if (t->ticks_per_us > 0 && b->base >= r->start_ctr) {
		double sec = (double)(b->base - r->start_ctr) / t->ticks_per_us / 1e6;

		busy_add(&t->tenth, sec, b->cpu < KUTRACE_MAX_CPUS ? b->cpu : 0, nev);
		busy_add(&t->second, sec, b->cpu < KUTRACE_MAX_CPUS ? b->cpu : 0, nev);
	}
}

/*
 * Every block, in file order.  The index gives each block the time its
 * entries must not run past (kt_block_check).
 */
static void check_blocks(const char *path, struct tally *t)
{
	struct kt_raw r;
	struct kt_block_ref *refs = NULL, **byfile = NULL;
	long nrefs;
	int rc = 0;

	if (kt_raw_open(&r, path) != 0)
		kt_die("%s", r.err);
	nrefs = kt_raw_index(&r, &refs);
	trace_start = r.start_ctr;
	trace_stop = r.stop_ctr;
	if (nrefs < 0) {
		report("FAIL", "%s", r.err);
		nrefs = 0;
	}
	byfile = kt_xcalloc(nrefs ? (size_t)nrefs : 1, sizeof(*byfile));
	for (long i = 0; i < nrefs; i++)
		if (refs[i].index >= 0 && refs[i].index < nrefs)
			byfile[refs[i].index] = &refs[i];
	if (r.note[0])
		report("info", "%s (postprocessing repairs it)", r.note);
	struct kt_block *b = kt_xmalloc(sizeof(*b));

	while (t->blocks < nrefs) {
		rc = kt_raw_read_at(&r, byfile[t->blocks], b);
		if (rc != 1)
			break;
		check_block(b, &r, t);
	}
	if (rc < 0)
		report("FAIL", "%s", r.err);
	/* User buffers (docs/spec/FORMATS.md 9): what the readers will merge. */
	struct kt_user u;
	char line[512];

	if (kt_user_load(&r, refs, nrefs, &u) < 0)
		report("FAIL", "%s", r.err);
	kt_user_summary(&u, line, sizeof(line));
	if (line[0])
		report(u.dropped ? "Warn" : "info", "%s", line);
	kt_user_free(&u);
	kt_raw_close(&r);
	free(refs);
	free(byfile);
	free(b);
}

/*
 * Block 0's counter rate, once the backend entry has said the
 * architecture: riscv64's time CSR runs at 1 MHz (U74) to tens of MHz,
 * the others' counters at 25 to 100 ticks per usec.
 */
static void rate_report(const struct tally *t)
{
	int lo = cnt.arch == KT_ARCH_RISCV64 ? 1 : 25;

	if (t->ticks_per_us <= 0)
		return;
	if (t->ticks_per_us < lo || t->ticks_per_us > 100)
		report("Warn", "block 0: counter rate %.2f ticks/usec outside %d..100",
		       t->ticks_per_us, lo);
	else
		report("OK  ", "block 0: counter rate %.2f ticks/usec", t->ticks_per_us);
}

static void summary(const struct tally *t)
{
	lost_report(t->ticks_per_us);
	report("info", "%ld blocks, %d CPUs, flags %#04x%s%s%s", t->blocks, t->ncpus, t->orflags,
	       t->orflags & KUTRACE_FLAG_IPC ? " IPC" : "",
	       t->orflags & KUTRACE_FLAG_LLC ? " LLC" : "", t->wrap ? " WRAP" : "");
	struct {
		const char *what;
		long n;
		int need;
	} req[] = {
		{ "trap", cnt.traps, !nopf },
		{ "IRQ", cnt.irqs, 1 },
		{ "syscall", cnt.syscalls, 1 },
		{ "name", cnt.names, 1 },
		{ "context-switch", cnt.ctxsw, 1 },
	};
	for (size_t i = 0; i < sizeof(req) / sizeof(req[0]); i++) {
		if (req[i].n)
			report("OK  ", "%ld %s events", req[i].n, req[i].what);
		else if (req[i].need)
			report("FAIL", "no %s events", req[i].what);
		else
			report("Warn", "no %s events (-nopf)", req[i].what);
	}
	if (cnt.wakeups)
		report("OK  ", "%ld wakeup events", cnt.wakeups);
	else
		report("Warn", "no wakeup events");
	for (int c = 0; c < MAX_CALLS; c++) {
		long calls = cnt.calls[c], rets = cnt.rets[c];

		if (calls >= 10 && calls * 100 > (calls + rets) * 55)
			report("Warn", "event %#05x: %ld calls but only %ld returns", c, calls, rets);
	}
	report("info", "kernel version %s, CPU model %s, host name %s",
	       cnt.kernel_ver ? "present" : "absent", cnt.model ? "present" : "absent",
	       cnt.host ? "present" : "absent");
	report("info", "%ld PC samples, %ld frequency, %ld MWAIT, %ld RPC, %ld lock, %ld queue, %ld mark events",
	       cnt.pcsamples, cnt.freq, cnt.mwait, cnt.rpc, cnt.locks, cnt.queues, cnt.marks);
	busy_report(&t->tenth, "1/10 s", t->ncpus);
	busy_report(&t->second, "1 s", t->ncpus);
}

int main(int argc, char **argv)
{
	/* -h is the original's hex dump, so only --help prints the usage. */
	static const struct kt_opt opts[] = {
		{ "v", KT_OPT_FLAG, &verbose, 1 },
		{ "q", KT_OPT_FLAG, &quiet, 1 },
		{ "h", KT_OPT_FLAG, &hexdump, 1 },
		{ "nopf", KT_OPT_FLAG, &nopf, 1 },
		{ NULL, 0, NULL, 0 },
	};
	const struct kt_argspec spec = { opts, usage, 1, 1, 0 };
	const char *path;
	struct tally t = { .tenth = { .width = 0.1 }, .second = { .width = 1.0 } };

	kt_set_progname(argv[0]);
	kt_args(&spec, argc, argv, &path);
	if (shape_ok(path)) {
		check_blocks(path, &t);
		rate_report(&t);
		summary(&t);
	}
	free(t.tenth.key);
	free(t.tenth.ev);
	free(t.second.key);
	free(t.second.ev);
	printf("%s %s\n", failed ? "FAIL" : "PASS", path);
	if (fflush(stdout) != 0 || ferror(stdout))
		kt_die("write error on stdout: %s", strerror(errno));
	return failed;
}

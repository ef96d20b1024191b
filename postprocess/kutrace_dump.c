// SPDX-License-Identifier: BSD-3-Clause
/*
 * kutrace_dump - hex and structure dump of a raw KUtrace file, the
 * original's kuod (docs/spec/FORMATS.md 6.10).
 *
 *   kutrace_dump <file.trace> [-all]
 *
 * Per block: the decoded header (12 words for block 0, 6 otherwise), then
 * one line per entry with its word index, hex value, timestamp and event,
 * and a decoding: name entries as text, two-word PC samples with their PC,
 * fused call/returns with delta and return value.  Runs of zero words are
 * summarised unless -all, which also dumps the IPC/LLC side bytes.
 * Blocks come in file order, or in time order after a wraparound (the
 * order the postprocessors read them in).  A
 * debugging aid: the output has no stable format.
 *
 * A damaged block is still dumped - looking at damage is what the tool is
 * for - but it is marked where kt_block_check (the one damage check that
 * checktrace and kutrace_postproc use) finds it, and the exit status is 1,
 * so that a script never takes a dump of garbage for a sound trace.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tool.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: kutrace_dump <file.trace> [-all]\n"
		"Dumps every block of a raw KUtrace file: header fields, then each\n"
		"entry in hex with its decoding.  -all also shows zero words and the\n"
		"IPC/LLC side bytes.  Damaged blocks are dumped and marked DAMAGED;\n"
		"the exit status is then 1.\n");
}

static const char *special_name(unsigned int ev)
{
	static const char *const names[0x20] = {
		"userpid", "rpcreq", "rpcresp", "rpcmid", "rxmsg", "txmsg",
		"runnable", "sendipi", "mwait", "pstate", "mark_a", "mark_b",
		"mark_c", "mark_d", "leftmark", "rightmark", "lock_try",
		"lock_acq", "lock_rel", "-", "rx_pkt", "tx_pkt", "rx_user",
		"tx_user", "mbit_sec", "resource", "enqueue", "dequeue",
		"pstate2", "tsdelta", "mon_store", "mon_exit"
	};

	if (ev >= KUTRACE_SPECIAL_LO && ev < KUTRACE_SPECIAL_LO + 0x20)
		return names[ev - KUTRACE_SPECIAL_LO];
	return "special";
}

static void print_text(const uint64_t *w, unsigned int nwords)
{
	char s[KUTRACE_NAME_MAX + 1];
	size_t n = nwords * 8 > KUTRACE_NAME_MAX ? KUTRACE_NAME_MAX : nwords * 8;

	memcpy(s, w, n);
	s[n] = '\0';
	putchar('"');
	for (size_t i = 0; i < n && s[i]; i++)
		putchar(isprint((unsigned char)s[i]) ? s[i] : '?');
	putchar('"');
}

static void decode(const struct kt_block *b, int i, unsigned int len)
{
	uint64_t w = b->w[i];
	unsigned int ev = kutrace_word_event(w);
	unsigned int arg = (unsigned int)(w & KUTRACE_ARG32_MASK);
	unsigned int delta = (unsigned int)((w >> KUTRACE_DELTA_SHIFT) & KUTRACE_DELTA_MASK);

	printf("%5d %016llx  ts %05x  ev %03x  ", i, (unsigned long long)w,
	       kutrace_word_ts(w), ev);
	if (ev == KUTRACE_PC_U || ev == KUTRACE_PC_K || ev == KUTRACE_PC_TEMP) {
		printf("pc_sample mhz %u pc %#llx", arg & 0xFFFF,
		       (unsigned long long)b->w[i + 1]);
	} else if (kutrace_is_varlen(ev)) {
		printf("name type %#05x arg %u ", ev & KUTRACE_TYPE_MASK, arg);
		print_text(&b->w[i + 1], len - 1);
	} else if (ev >= KUTRACE_CALL_LO) {
		unsigned int call = ev & ~(unsigned int)KUTRACE_RET_BIT;
		const char *kind = call >= KUTRACE_SYSCALL64 ? "syscall" :
				   call >= KUTRACE_IRQ ? "irq" : "trap";

		unsigned int nr = call & 0xFF;

		if (call >= KUTRACE_SYSCALL64) {
			/* Undo kutrace_map_syscall: 0xC00.. holds numbers 512.. */
			nr = call - KUTRACE_SYSCALL64;
			if (nr >= 0x400)
				nr -= 0x200;
		}
		printf("%s%s %u arg0 %u", kind, kutrace_is_call(ev) ? "" : "_ret",
		       nr, arg & 0xFFFF);
		if (kutrace_is_call(ev) && delta)
			printf(" fused delta %u retval %d", delta,
			       (int)(int8_t)((w >> KUTRACE_RETVAL_SHIFT) & KUTRACE_RETVAL_MASK));
	} else if (ev >= KUTRACE_SPECIAL_LO && ev <= KUTRACE_SPECIAL_HI) {
		printf("%s arg %u", special_name(ev), arg);
	} else {
		printf("event arg %u", arg);
	}
	putchar('\n');
	/* Continuation words in hex as well. */
	for (unsigned int k = 1; k < len; k++)
		printf("%5d %016llx    (continued)\n", i + (int)k,
		       (unsigned long long)b->w[i + (int)k]);
}

struct dump {
	struct kt_raw r;
	int all;
	long ndamaged;
	char first[256];
};

/* One block, in the order kt_raw_each gives (time order after a wrap). */
static int dump_block(void *ctx, const struct kt_block *b)
{
	struct dump *d = ctx;
	char err[256];

	printf("==== block %ld  cpu %u  flags %#04x  counter %#llx  usec %llu\n",
	       b->index, b->cpu, b->flags, (unsigned long long)b->base,
	       (unsigned long long)b->usec);
	if (b->index == 0)
		printf("     start counter %#llx usec %llu  stop counter %#llx usec %llu\n",
		       (unsigned long long)d->r.start_ctr, (unsigned long long)d->r.start_usec,
		       (unsigned long long)d->r.stop_ctr, (unsigned long long)d->r.stop_usec);
	printf("     pid %u  mhz %u  comm ", b->pid, b->mhz);
	print_text((const uint64_t *)b->comm, KUTRACE_HDR_COMM_BYTES / 8);
	putchar('\n');
	int chk = kt_block_check(b, err, sizeof(err));

	if (chk != 0)
		printf("     %s %s\n", chk < 0 ? "DAMAGED" : "note", err);
	if (chk < 0 && d->ndamaged++ == 0)
		snprintf(d->first, sizeof(d->first), "%s", err);
	for (int i = 0; i < b->first_entry; i++)
		printf("%5d %016llx  header\n", i, (unsigned long long)b->w[i]);
	int zeros = 0;

	for (int i = b->first_entry; i < KUTRACE_BLOCK_WORDS;) {
		uint64_t w = b->w[i];

		if (w == KUTRACE_WORD_NOP && !d->all) {
			zeros++;
			i++;
			continue;
		}
		if (zeros) {
			printf("      ... %d zero words\n", zeros);
			zeros = 0;
		}
		if (w == KUTRACE_WORD_NOP || w == KUTRACE_WORD_END) {
			printf("%5d %016llx  %s\n", i, (unsigned long long)w,
			       w ? "end of block data" : "nop");
			i++;
			continue;
		}
		unsigned int len = kutrace_entry_words(kutrace_word_event(w));

		if (len == 0)
			len = 1;
		if (i + (int)len > KUTRACE_BLOCK_WORDS) {
			printf("%5d %016llx  entry of %u words runs past the block end\n",
			       i, (unsigned long long)w, len);
			break;
		}
		decode(b, i, len);
		i += (int)len;
	}
	if (zeros)
		printf("      ... %d zero words\n", zeros);
	if (d->all && b->has_side) {
		printf("     side block:\n");
		for (int j = 0; j < KUTRACE_SIDE_BYTES; j += 32) {
			printf("     %4d", j);
			for (int k = 0; k < 32; k++)
				printf(" %02x", b->side[j + k]);
			putchar('\n');
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *path = NULL;
	struct dump d = { .all = 0 };
	const struct kt_opt opts[] = {
		{ "all", KT_OPT_FLAG, &d.all, 1 },
		{ NULL, 0, NULL, 0 },
	};
	const struct kt_argspec spec = { opts, usage, 1, 1, 1 };

	kt_set_progname(argv[0]);
	kt_args(&spec, argc, argv, &path);
	if (kt_raw_open(&d.r, path) != 0)
		kt_die("%s", d.r.err);
	if (kt_raw_each(&d.r, dump_block, &d) < 0) {
		fflush(stdout);
		kt_die("%s", d.r.err);
	}
	kt_raw_close(&d.r);
	if (fflush(stdout) != 0 || ferror(stdout))
		kt_die("write error on stdout: %s", strerror(errno));
	if (d.ndamaged)
		kt_die("%s: %ld damaged block%s, dumped anyway (first: %s)", path,
		       d.ndamaged, d.ndamaged == 1 ? "" : "s", d.first);
	return 0;
}

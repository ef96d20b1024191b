// SPDX-License-Identifier: BSD-3-Clause
/*
 * libFuzzer: the user-buffer merge (lib/raw/ubuf.c, docs/spec/FORMATS.md 9)
 * as kutrace_postproc runs it: a sound kernel trace of 4 CPUs (made once
 * with rawwrite.h) with the input appended as its user section (its
 * first word made the user block magic), indexed,
 * checked (kt_user_load) and decoded (kt_decode_user).  Inputs shorter
 * than a block are taken as one buffer's words instead, behind a sound
 * block header whose ring and start position the first word chooses
 * (wrap_input), so that the entry checks are reached without 64 KB.
 * Every event handed on must lie on a CPU of the trace, inside it, in
 * time order, with a name (made UTF-8 where rows are written, as the
 * kernel's: fuzz_raw); no more events than entries.
 */
#include "fuzz.h"
#include "rawwrite.h"

static uint8_t *kernel;		/* the kernel trace's bytes */
static size_t kbytes;
static int64_t last_t;
static size_t nevents;

#define T0 1000000ULL
#define T1 50000000ULL

static void make_kernel(void)
{
	char path[] = "/tmp/fuzz_ubufXXXXXX";
	int fd = mkstemp(path);
	struct kt_rw_options o = {
		.ncpu = 4, .ticks_per_usec = 50, .start_ctr = T0,
		.start_usec = KT_USEC_2016 + 1000000,
	};
	char err[256];
	uint64_t su;

	if (fd < 0)
		abort();
	close(fd);
	struct kt_rw *w = kt_rw_create(path, &o, err, sizeof(err));

	if (!w)
		abort();
	for (int c = 0; c < 4; c++) {
		kt_rw_trace1(w, c, T0 + 10, KUTRACE_SYSCALL64 + 39, 0, 0);
		kt_rw_trace1(w, c, T1 - 10, KUTRACE_SYSCALL64 + 39, 0, 0);
	}
	if (kt_rw_close(w, T1, &su) < 0)
		abort();
	kt_rw_free(w);
	FILE *f = fopen(path, "rb");

	if (!f)
		abort();
	fseek(f, 0, SEEK_END);
	kbytes = (size_t)ftell(f);
	rewind(f);
	kernel = malloc(kbytes + 1);
	if (!kernel || fread(kernel, 1, kbytes, f) != kbytes)
		abort();
	fclose(f);
	unlink(path);
}

static void on_event(void *p, const struct kt_event *e)
{
	(void)p;
	if (e->cpu < 0 || e->cpu >= 4 || e->t < last_t)
		abort();
	last_t = e->t;
	if (!e->name)
		abort();
	nevents++;
}

/*
 * The input as one buffer's words behind a sound header: its first word
 * chooses the start position (low 16 bits) and the ring (2^(9 + bits
 * 16..18) words), the rest are the words.
 */
static size_t wrap_input(const uint8_t *d, size_t n, uint64_t *blk)
{
	uint64_t c = 0;

	memcpy(&c, d, n < 8 ? n : 8);
	size_t words = n < 8 ? 0 : (n - 8) / 8;

	if (words > KUTRACE_UBLK_PAYLOAD)
		words = KUTRACE_UBLK_PAYLOAD;
	memset(blk, 0, KUTRACE_BLOCK_BYTES);
	blk[0] = KUTRACE_UBLOCK_MAGIC;
	blk[KUTRACE_UBLK_IDS] = 7ULL << 32 | 8;
	blk[KUTRACE_UBLK_POS] = c & 0xFFFF;
	blk[KUTRACE_UBLK_RING] = KUTRACE_UBUF_MIN_RING << ((c >> 16) & 7);
	blk[KUTRACE_UBLK_COUNT] = words;
	if (words)
		memcpy(&blk[KUTRACE_UBLK_WORDS], d + 8, words * 8);
	return KUTRACE_BLOCK_BYTES;
}

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);
int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	static uint64_t blk[KUTRACE_BLOCK_WORDS];
	char path[64], err[256];

	if (!kernel)
		make_kernel();
	const uint8_t *user = d;
	size_t ulen = n;

	if (n < KUTRACE_BLOCK_BYTES) {
		ulen = wrap_input(d, n, blk);
		user = (const uint8_t *)blk;
	}
	uint8_t *all = malloc(kbytes + ulen);

	memcpy(all, kernel, kbytes);
	memcpy(all + kbytes, user, ulen);
	/* What follows a block without the magic is fuzz_raw's to read. */
	memcpy(all + kbytes, &(uint64_t){ KUTRACE_UBLOCK_MAGIC }, 8);
	int fd = fz_memfd(all, kbytes + ulen, path);
	struct kt_raw r;
	struct kt_block_ref *refs = NULL;
	struct kt_user u;

	free(all);
	if (kt_raw_open(&r, path) < 0)
		abort();
	long nrefs = kt_raw_index(&r, &refs);

	if (nrefs <= 0 || r.user_off != (long)kbytes)
		abort();
	if (kt_user_load(&r, refs, nrefs, &u) < 0)
		abort();
	for (size_t i = 0; i < u.n; i++)
		if (u.ev[i].cpu >= 4 || u.ev[i].full < T0 || u.ev[i].full > T1)
			abort();
	struct kt_decoder *dec = kt_decoder_new(&r, on_event, NULL, err, sizeof(err));

	if (!dec)
		abort();
	last_t = INT64_MIN;
	nevents = 0;
	kt_decode_user(dec, &u, on_event, NULL);
	if (nevents > u.n)
		abort();
	char line[512];

	kt_user_summary(&u, line, sizeof(line));
	kt_decoder_free(dec);
	kt_user_free(&u);
	kt_raw_close(&r);
	free(refs);
	close(fd);
	fz_done();
	return 0;
}

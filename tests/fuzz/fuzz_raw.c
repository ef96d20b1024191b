// SPDX-License-Identifier: BSD-3-Clause
/*
 * libFuzzer: raw reader -> decoder -> span builder -> JSON rows, as
 * kutrace_postproc runs them.  Inputs are raw traces (seeds from
 * kutrace_synth and the golden traces); every row line must be valid
 * UTF-8 and parse back into the same line.
 */
#include "fuzz.h"

struct ctx {
	struct kt_raw raw;
	struct kt_decoder *dec;
	struct kt_spans *spans;
};

/* Each row's line, and the same line again from the row parsed back. */
static void on_row(void *p, const struct kt_row *r)
{
	static char buf[KT_JSON_HEAD_MAX + 6 * 4096 + 4], again[sizeof(buf)];
	static struct kt_buf name;
	struct kt_row back;
	size_t n = kt_json_format_row(buf, sizeof(buf) - 1, r);

	(void)p;
	if (!n)
		return;		/* a name of more than 4 KB */
	fz_assert_utf8(buf, n);
	buf[n] = 0;
	if (kt_json_parse_row(buf, &back, &name) != 0 ||
	    kt_json_format_row(again, sizeof(again), &back) != n ||
	    memcmp(again, buf, n) != 0)
		abort();
}

static void on_event(void *p, const struct kt_event *e)
{
	kt_spans_event(((struct ctx *)p)->spans, e);
}

static int setup(struct ctx *c)
{
	char err[256];

	if (!c->dec)
		c->dec = kt_decoder_new(&c->raw, on_event, c, err, sizeof(err));
	return c->dec ? 0 : -1;
}

static int on_prescan(void *p, const struct kt_block *b)
{
	struct ctx *c = p;

	if (setup(c))
		return -1;
	kt_decoder_prescan(c->dec, b);
	return 0;
}

static int on_block(void *p, const struct kt_block *b)
{
	struct ctx *c = p;

	if (setup(c))
		return -1;
	return kt_decode_block(c->dec, b) < 0 ? -1 : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	static struct ctx c;
	char path[64];
	int fd = fz_memfd(d, n, path);

	memset(&c, 0, sizeof(c));
	fz_armed = 1;
	if (setjmp(fz_jmp) == 0 && kt_raw_open(&c.raw, path) == 0) {
		c.spans = kt_spans_new(on_row, &c);
		if (kt_raw_each(&c.raw, on_prescan, &c) == 0 &&
		    kt_raw_each(&c.raw, on_block, &c) == 0)
			kt_spans_finish(c.spans);
	}
	fz_armed = 0;
	if (c.spans)
		kt_spans_free(c.spans);
	if (c.dec)
		kt_decoder_free(c.dec);
	kt_raw_close(&c.raw);
	close(fd);
	fz_done();
	return 0;
}

// SPDX-License-Identifier: BSD-3-Clause
/*
 * libFuzzer: raw reader -> decoder -> span builder -> JSON rows, as
 * kutrace_postproc runs them.  Inputs are raw traces (seeds from
 * kutrace_synth and the golden traces); every row's name must be valid
 * UTF-8 once escaped.
 */
#include "fuzz.h"

struct ctx {
	struct kt_raw raw;
	struct kt_decoder *dec;
	struct kt_spans *spans;
};

static void on_row(void *p, const struct kt_row *r)
{
	char buf[64 + 6 * 4096];
	size_t n = strlen(r->name);

	(void)p;
	if (n > 4096)
		return;
	size_t k = kt_json_format_head(buf, r);
	size_t e = kt_json_escape_buf(buf + k, r->name);

	fz_assert_utf8(buf + k, e);
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
	return 0;
}

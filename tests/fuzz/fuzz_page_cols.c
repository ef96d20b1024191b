// SPDX-License-Identifier: BSD-3-Clause
/*
 * libFuzzer: KTV3's column order (lib/page/pagecols.c) on hostile columns.
 * Input: u:nrows, then the 11 columns as u:len bytes.  Whatever
 * pg_cols_unpack accepts must pack and unpack again to the same columns:
 * the reader and the writer agree on every input the reader takes.
 */
#include "fuzz.h"
#include "page-local.h"

static int get_u32(const uint8_t **d, size_t *n, uint32_t *v)
{
	if (*n < 4)
		return -1;
	*v = (uint32_t)(*d)[0] | (uint32_t)(*d)[1] << 8 | (uint32_t)(*d)[2] << 16 |
	     (uint32_t)(*d)[3] << 24;
	*d += 4;
	*n -= 4;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	const unsigned char *p[NCOLS];
	size_t len[NCOLS];
	uint32_t nrows;
	struct bv a[NCOLS] = { 0 }, b[NCOLS] = { 0 };
	struct trace t = { 0 };

	if (get_u32(&d, &n, &nrows) || nrows > n)
		return 0;
	for (int i = 0; i < NCOLS; i++) {
		uint32_t l;

		if (get_u32(&d, &n, &l) || l > n)
			return 0;
		p[i] = d;
		len[i] = l;
		d += l;
		n -= l;
	}
	fz_armed = 1;
	if (setjmp(fz_jmp) == 0 && pg_cols_unpack(p, len, nrows, a) == 0) {
		t.nrows = nrows;
		for (int i = 0; i < NCOLS; i++)
			bv_add(&t.col[i], a[i].p, a[i].len);
		if (pg_cols_pack(&t))
			abort();	/* rows the reader took, the writer refuses */
		for (int i = 0; i < NCOLS; i++)
			p[i] = t.col[i].p, len[i] = t.col[i].len;
		if (pg_cols_unpack(p, len, nrows, b))
			abort();	/* the writer's own columns do not read back */
		for (int i = 0; i < NCOLS; i++)
			if (a[i].len != b[i].len || (a[i].len && memcmp(a[i].p, b[i].p, a[i].len)))
				abort();	/* a different row order came back */
	}
	fz_armed = 0;
	for (int i = 0; i < NCOLS; i++) {
		bv_free(&a[i]);
		bv_free(&b[i]);
		bv_free(&t.col[i]);
	}
	fz_done();
	return 0;
}

// SPDX-License-Identifier: BSD-3-Clause
/*
 * libFuzzer: the JSON row reader every analysis tool uses (spantotrim,
 * spantospan, ...), and its writer: what it writes must be valid UTF-8.
 */
#include "fuzz.h"
#include "jsonrows.h"

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	char path[64];
	int fd = fz_memfd(d, n, path);
	static struct kt_jreader r;
	struct kt_jrow w;
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	memset(&r, 0, sizeof(r));
	fz_armed = 1;
	if (setjmp(fz_jmp) == 0) {
		if (kt_jr_open(&r, path) == 0) {
			kt_jw_header(out, &r, NULL, NULL);
			for (int k = 0; k < 100000 && kt_jr_next(&r, &w) > 0; k++)
				kt_jw_row(out, &w);
			kt_jw_end(out, &r);
		}
	}
	fz_armed = 0;
	fclose(out);
	fz_assert_utf8(buf, len);
	free(buf);
	if (r.f)	/* also after an error inside kt_jr_open */
		kt_jr_close(&r);
	close(fd);
	fz_done();
	return 0;
}

// SPDX-License-Identifier: BSD-3-Clause
/*
 * libFuzzer: the page codec.  A JSON text that makeself accepts must come
 * back from the page byte for byte (unmakeself's promise).
 */
#include "fuzz.h"
#include "page.h"

static char tpl[64];

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static const char t[] = "<html><body>\n<!-- kutrace:data -->\n</body></html>\n";
	int fd;

	(void)argc;
	(void)argv;
	fd = fz_memfd((const uint8_t *)t, sizeof(t) - 1, tpl);
	(void)fd;	/* kept open for the whole run */
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	char *page = NULL, *back = NULL, err[512];
	size_t plen = 0, blen = 0;
	FILE *o = open_memstream(&page, &plen);
	int rc;

	fz_armed = 1;
	if (setjmp(fz_jmp) != 0) {
		fz_armed = 0;
		fclose(o);
		free(page);
		fz_done();
		return 0;
	}
	rc = kt_html_write_mem(o, tpl, (const char *)d, n, err, sizeof(err));
	fclose(o);
	if (rc == 0) {
		FILE *b = open_memstream(&back, &blen);

		if (kt_html_extract(b, page, plen, err, sizeof(err)) != 0) {
			fprintf(stderr, "a page makeself wrote does not extract: %s\n", err);
			abort();
		}
		fclose(b);
		if (blen != n || memcmp(back, d, n)) {
			fprintf(stderr, "round trip differs: %zu bytes in, %zu out\n", n, blen);
			abort();
		}
		free(back);
	}
	fz_armed = 0;
	free(page);
	fz_done();
	return 0;
}

// SPDX-License-Identifier: BSD-3-Clause
/*
 * libFuzzer: the page extractor (unmakeself) on hostile pages.  The
 * output goes to /dev/null; its size may not exceed what the page can
 * hold (a bound on the rows a page claims).
 */
#include "fuzz.h"
#include "page.h"

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	static FILE *devnull;
	char err[512];

	if (!devnull)
		devnull = fopen("/dev/null", "w");
	fz_armed = 1;
	if (setjmp(fz_jmp) == 0)
		kt_html_extract(devnull, (const char *)d, n, err, sizeof(err));
	fz_armed = 0;
	fz_done();
	return 0;
}

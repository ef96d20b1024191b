// SPDX-License-Identifier: BSD-3-Clause
/*
 * libFuzzer: the event-text reader, i.e. eventtospan itself (its main is
 * compiled in as tool_main by tests/fuzz.mk): the input is its stdin, its
 * JSON goes to /dev/null.  Seeds: rawtoevent's text of the golden traces.
 */
#include "fuzz.h"
#include <fcntl.h>

int tool_main(int argc, char **argv);

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	char path[64];
	int fd = fz_memfd(d, n, path);
	static int devnull = -1, saved_out = -1;
	char *argv[] = { "eventtospan", NULL };

	if (devnull < 0) {
		devnull = open("/dev/null", O_WRONLY);
		saved_out = dup(1);
	}
	dup2(fd, 0);
	clearerr(stdin);
	fflush(stdout);
	dup2(devnull, 1);
	fz_armed = 1;
	if (setjmp(fz_jmp) == 0)
		tool_main(1, argv);
	fz_armed = 0;
	fflush(stdout);
	clearerr(stdout);
	dup2(saved_out, 1);
	close(fd);
	return 0;
}

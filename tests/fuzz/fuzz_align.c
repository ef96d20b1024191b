// SPDX-License-Identifier: BSD-3-Clause
/*
 * libFuzzer: kutrace_align's reading of its inputs and the alignment they
 * lead to.  The input is host B's span JSON; host A, the reference, is a
 * sound trace of 40 RPC clients with their packets (tests/fuzz/align/
 * alpha.json, made by tests/tools/mkrpcpair.py --rpcs 40 --packets, whose
 * beta.json files are the seeds, with and without packets), so that
 * a mutated B reaches the matching, the contradiction test, the fit and
 * the bound.  Every outcome is an alignment or a kt_die; nothing may
 * crash, hang or read out of bounds.  The program's source is included
 * (its functions are static).
 */
#define main kutrace_align_main
#include "../../postprocess/kutrace_align.c"
#undef main
#include "fuzz.h"

#ifndef FZ_ALIGN_A
#define FZ_ALIGN_A "tests/fuzz/align/alpha.json"
#endif

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	/* the per-pair lines: not the fuzzer's output */
	if (!freopen("/dev/null", "w", stdout))
		abort();
	hosts[0].input = FZ_ALIGN_A;
	hosts[0].json = kt_xstrdup(FZ_ALIGN_A);
	fz_armed = 1;
	if (setjmp(fz_jmp) == 0)
		scan(&hosts[0]);
	else
		abort();	/* the reference must be sound */
	fz_armed = 0;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	char path[64];
	int fd = fz_memfd(d, n, path);

	nhosts = 2;
	nbuckets = 8;
	hosts[1].input = "b.json";
	free(hosts[1].json);
	hosts[1].json = kt_xstrdup(path);
	fz_armed = 1;
	if (setjmp(fz_jmp) == 0) {
		scan(&hosts[1]);
		if (strcmp(hosts[0].name, hosts[1].name) != 0)
			align_all();
	}
	fz_armed = 0;
	if (scan_r.f)	/* left open by a kt_die inside scan */
		kt_jr_close(&scan_r);
	close(fd);
	fz_done();
	return 0;
}

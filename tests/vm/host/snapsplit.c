// SPDX-License-Identifier: BSD-3-Clause
/*
 * snapsplit - a snapshot (chunks back to back, docs/spec/FORMATS.md 10.2
 * "Joining", 11) cut back into its chunks, for tests/t_vm_snap.sh: each
 * chunk can then be checked alone.  Only format.h: an oracle that shares
 * no code with the reader it checks.
 *
 *   snapsplit SNAPSHOT DIR   writes DIR/c_000.trace, c_001.trace, ...
 *
 * Prints one line per chunk: "chunk I BLOCKS START_CTR STOP_CTR" (block 0's
 * time pairs' counters), and "chunks N".  A chunk head is a block whose
 * flags carry the file version and STREAM; the first block must be one.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include "kutrace/format.h"

static int head(const uint64_t *w)
{
	unsigned int f = (unsigned int)(w[KUTRACE_HDR_FLAGS_USEC] >> KUTRACE_HDR_FLAGS_SHIFT);

	return (f & KUTRACE_FLAG_VERSION) == KUTRACE_FILE_VERSION &&
	       (f & KUTRACE_FLAG_STREAM);
}

int main(int argc, char **argv)
{
	static uint64_t w[KUTRACE_BLOCK_WORDS];
	static uint8_t side[KUTRACE_SIDE_BYTES];
	FILE *in, *out = NULL;
	uint64_t start = 0, stop = 0;
	long n = -1, blocks = 0;
	int ipc = -1;
	char path[4096];

	if (argc != 3) {
		fprintf(stderr, "usage: snapsplit SNAPSHOT DIR\n");
		return 2;
	}
	in = fopen(argv[1], "rb");
	if (!in) {
		perror(argv[1]);
		return 1;
	}
	while (fread(w, 1, sizeof(w), in) == sizeof(w)) {
		unsigned int f = (unsigned int)(w[KUTRACE_HDR_FLAGS_USEC] >>
						KUTRACE_HDR_FLAGS_SHIFT);

		if (ipc < 0) {
			if (!head(w)) {
				fprintf(stderr, "snapsplit: %s: block 0 is no chunk head\n", argv[1]);
				return 1;
			}
			ipc = (f & KUTRACE_FLAG_SIDE) != 0;
		}
		if (ipc && fread(side, 1, sizeof(side), in) != sizeof(side)) {
			fprintf(stderr, "snapsplit: %s: side block cut short\n", argv[1]);
			return 1;
		}
		if (head(w)) {
			if (out) {
				printf("chunk %ld %ld %llu %llu\n", n, blocks,
				       (unsigned long long)start, (unsigned long long)stop);
				fclose(out);
			}
			n++;
			blocks = 0;
			start = w[KUTRACE_HDR_START_CTR];
			stop = w[KUTRACE_HDR_STOP_CTR];
			snprintf(path, sizeof(path), "%s/c_%03ld.trace", argv[2], n);
			out = fopen(path, "wb");
			if (!out) {
				perror(path);
				return 1;
			}
		}
		fwrite(w, 1, sizeof(w), out);
		if (ipc)
			fwrite(side, 1, sizeof(side), out);
		blocks++;
	}
	if (out) {
		printf("chunk %ld %ld %llu %llu\n", n, blocks, (unsigned long long)start,
		       (unsigned long long)stop);
		if (fclose(out) != 0) {
			perror(path);
			return 1;
		}
	}
	printf("chunks %ld\n", n + 1);
	return n >= 0 ? 0 : 1;
}

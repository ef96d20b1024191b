/* SPDX-License-Identifier: BSD-3-Clause */
/* bpfchan.h - libkutrace's channel to the BPF backend (bpfchan.c). */
#ifndef KUTRACE_BPFCHAN_H
#define KUTRACE_BPFCHAN_H

#include <stddef.h>
#include <stdint.h>

/* The backend is set up (its pinned maps exist). */
int kt_bpf_chan_present(void);
/* Map the pinned state and buffer.  0 or -errno. */
int kt_bpf_chan_open(void);
void kt_bpf_chan_close(void);
/* A control command (KUTRACE_CMD_* or forced-insert ioctl nr). */
int kt_bpf_chan_cmd(unsigned int nr, uint64_t arg, uint64_t *result);
/* The whole buffer as mapped (blocks from the top down, as the module's). */
const uint8_t *kt_bpf_chan_buffer(size_t *size);
/*
 * Since RESET: claims retried because a nested program (an interrupt's
 * inside a system call's) claimed first; blocks abandoned, set up by a
 * program that a nested one overtook while its CPU already held a spare
 * (they stay in the file with their header only); entries lost (no
 * block: buffer full).
 */
int kt_bpf_chan_stats(uint64_t *retried, uint64_t *abandoned, uint64_t *lost);
/*
 * perm[i] = the block handed out perm[i]-th that goes i-th into the file:
 * in time order, as each CPU's blocks are in the module's buffer.  A
 * program overtaken by a nested one at a block switch keeps its block as
 * the CPU's spare and takes it later, so handing-out order is not always
 * time order here.  A spare block no switch took by the end holds only
 * its header: it is left out, and *nblocks counts the blocks to write.
 */
int kt_bpf_chan_order(uint64_t *nblocks, uint64_t *perm);
/* The backend's time counter: CLOCK_MONOTONIC ns >> 6. */
uint64_t kt_bpf_chan_now(void);

#endif /* KUTRACE_BPFCHAN_H */

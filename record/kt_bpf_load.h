/* SPDX-License-Identifier: BSD-3-Clause */
/* kt_bpf_load.h - set up / tear down the BPF backend (kt_bpf_load.c). */
#ifndef KT_BPF_LOAD_H
#define KT_BPF_LOAD_H

#include <stddef.h>
#include <stdio.h>

/* Why the BPF backend cannot run here (one line), or NULL. */
const char *kt_bpf_missing(void);
/* The backend is set up (its pins exist). */
int kt_bpf_pinned(void);
/* Load, attach and pin with a tracemb MiB buffer; 0 or -errno and why. */
int kt_bpf_attach(unsigned int tracemb, char *why, size_t len);
/* Remove the pins: the programs detach, the buffer goes. */
void kt_bpf_detach(void);
/*
 * When kernel.bpf_stats_enabled is 1: for each attached program, its runs
 * and the mean nanoseconds a run took, to f (one line each).  Nothing
 * otherwise.  Where the BPF backend's time goes.
 */
void kt_bpf_print_stats(FILE *f, const char *prog_name);

#endif /* KT_BPF_LOAD_H */

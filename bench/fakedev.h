/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fakedev.h - an in-process /dev/kutrace over the real trace core
 * (see fakedev.c).  kt_fake_init() allocates and touches an mb MiB buffer
 * and initialises the core on it; libkutrace then reaches it through
 * KUTRACE_DEVICE exactly as it reaches the module.
 */
#ifndef KT_BENCH_FAKEDEV_H
#define KT_BENCH_FAKEDEV_H
#include <stddef.h>

int kt_fake_init(size_t mb);
void kt_fake_free(void);

#endif

// SPDX-License-Identifier: BSD-3-Clause
/*
 * fakedev.c - a /dev/kutrace that lives in this process, so that the
 * real control library (libkutrace/channel.c, dump.c: kt_ctl_reset, kt_ctl_init,
 * kt_ctl_on, kt_ctl_dump and its mmap path) runs unchanged on the host
 * against the real trace core (module/kutrace_core.c built with
 * module/user/).
 *
 * The program is linked with -Wl,--wrap=open,--wrap=ioctl,--wrap=mmap,
 * --wrap=munmap,--wrap=fopen: every call libkutrace makes to those goes
 * through the functions below, which serve KUTRACE_DEVICE, its ioctls,
 * its mmap and the tracemb module parameter, and pass everything else
 * to libc.  The commands run through the module's own switch
 * (module/kutrace_cmd.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

#include "kutrace_core.h"
#include "kutrace_cmd.h"
#include "fakedev.h"

/*
 * The linker's --wrap needs both lists: __real_ names reach libc, the
 * __wrap_ ones stand in for it (declared here, as no header does).
 */
int __real_open(const char *path, int flags, ...);
int __real_ioctl(int fd, unsigned long req, ...);
void *__real_mmap(void *addr, size_t len, int prot, int flags, int fd,
		  off_t off);
int __real_munmap(void *addr, size_t len);
FILE *__real_fopen(const char *path, const char *mode);

int __wrap_open(const char *path, int flags, ...);
int __wrap_ioctl(int fd, unsigned long req, ...);
void *__wrap_mmap(void *addr, size_t len, int prot, int flags, int fd,
		  off_t off);
int __wrap_munmap(void *addr, size_t len);
FILE *__wrap_fopen(const char *path, const char *mode);

#define TRACEMB_PARAM "/sys/module/kutrace_mod/parameters/tracemb"

static u64 *fake_buf;
static size_t fake_bytes;
static u64 fake_filter[1024];
static void *fake_slots;
static int fake_fd = -1;
static char fake_mb[32];

int kt_fake_init(size_t mb)
{
	fake_bytes = mb << 20;
	/* The module's buffer is vmalloc'ed and touched: no faults later. */
	fake_buf = aligned_alloc(4096, fake_bytes);
	if (!fake_buf)
		return -ENOMEM;
	memset(fake_buf, 0, fake_bytes);
	snprintf(fake_mb, sizeof(fake_mb), "%zu\n", mb);
	fake_slots = calloc(1, kt_core_stream_bytes(fake_bytes));
	if (!fake_slots)
		return -ENOMEM;
	kt_core_init(fake_bytes, fake_buf, fake_filter);
	kt_core_stream_init(fake_slots);
	return 0;
}

void kt_fake_free(void)
{
	free(fake_buf);
	fake_buf = NULL;
	free(fake_slots);
	fake_slots = NULL;
}

int __wrap_open(const char *path, int flags, ...)
{
	mode_t mode = 0;
	va_list ap;

	va_start(ap, flags);
	if (flags & (O_CREAT | O_TMPFILE))
		mode = va_arg(ap, mode_t);
	va_end(ap);
	if (fake_buf && !strcmp(path, KUTRACE_DEVICE)) {
		/* A real descriptor, so that close() works. */
		fake_fd = __real_open("/dev/null", O_RDONLY | O_CLOEXEC);
		return fake_fd;
	}
	return __real_open(path, flags, mode);
}

FILE *__wrap_fopen(const char *path, const char *mode)
{
	if (fake_buf && !strcmp(path, TRACEMB_PARAM))
		return fmemopen(fake_mb, strlen(fake_mb), "r");
	return __real_fopen(path, mode);
}

void *__wrap_mmap(void *addr, size_t len, int prot, int flags, int fd,
		  off_t off)
{
	if (fake_buf && fd == fake_fd && fd >= 0) {
		/* The module refuses mmap while tracing, and beyond its size. */
		if (READ_ONCE(kt_tracing) || off != 0 || len > fake_bytes) {
			errno = EINVAL;
			return MAP_FAILED;
		}
		return fake_buf;
	}
	return __real_mmap(addr, len, prot, flags, fd, off);
}

int __wrap_munmap(void *addr, size_t len)
{
	if (fake_buf && addr == fake_buf)
		return 0;
	return __real_munmap(addr, len);
}

/*
 * kutrace_cmd.c's environment in this process: no backend to name, no
 * other CPUs to note or wait for, the "instruction counter" always there
 * (kutrace_env_user.c), the caller's memory is ours.
 */
void kt_env_cmd_on_prepare(void)
{
}

void kt_env_cmd_on_done(void)
{
}

void kt_env_cmd_quiesce(void)
{
}

void kt_env_cmd_lost_all(void)
{
	int self = kt_env_cpu_id();

	for (int c = 0; c < KT_ENV_NR_CPUS; c++) {
		kt_user_set_cpu(c);
		kt_core_lost_this_cpu();
	}
	kt_user_set_cpu(self);
}

/* One thread plays every CPU here: close each other CPU's block in turn. */
void kt_env_cmd_cut_all(void)
{
	int self = kt_env_cpu_id();

	kt_core_new_epoch();
	for (int c = 0; c < KT_ENV_NR_CPUS; c++) {
		if (c == self)
			continue;
		kt_user_set_cpu(c);
		kt_core_cut_old_this_cpu();
	}
	kt_user_set_cpu(self);
}

bool kt_env_cmd_ipc_setup(void)
{
	return true;
}

void kt_env_cmd_ipc_mark(bool on)
{
	for (unsigned int c = 0; c < KT_ENV_NR_CPUS; c++)
		kt_cpu_set_ipc(c, on);
}

unsigned long kt_env_cmd_copy_in(void *dst, u64 uaddr, unsigned long n)
{
	memcpy(dst, (const void *)(uintptr_t)uaddr, n);
	return 0;
}

unsigned long kt_env_cmd_copy_out(u64 uaddr, const void *src, unsigned long n)
{
	memcpy((void *)(uintptr_t)uaddr, src, n);
	return 0;
}

int __wrap_ioctl(int fd, unsigned long req, ...)
{
	struct kutrace_ioc *io;
	u64 result;
	va_list ap;
	long e;

	va_start(ap, req);
	io = va_arg(ap, struct kutrace_ioc *);
	va_end(ap);
	if (!fake_buf || fd != fake_fd || fd < 0)
		return __real_ioctl(fd, req, io);
	if (_IOC_TYPE(req) != KUTRACE_IOC_MAGIC) {
		errno = ENOTTY;
		return -1;
	}
	/* __u64 in the struct, uint64_t here: copy, do not alias */
	result = io->result;
	e = kt_cmd(_IOC_NR(req), io->arg, &result);
	io->result = result;
	if (e) {
		errno = (int)-e;
		return -1;
	}
	return 0;
}

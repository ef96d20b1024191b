// SPDX-License-Identifier: BSD-3-Clause
/*
 * fakedev.c - a /dev/kutrace that lives in this process, so that the
 * real control library (libkutrace/control.c: kt_ctl_reset, kt_ctl_init,
 * kt_ctl_on, kt_ctl_dump and its mmap path) runs unchanged on the host
 * against the real trace core (module/kutrace_core.c built with
 * module/user/kutrace_env_user.h).
 *
 * The program is linked with -Wl,--wrap=open,--wrap=ioctl,--wrap=mmap,
 * --wrap=munmap,--wrap=fopen: every call libkutrace makes to those goes
 * through the functions below, which serve KUTRACE_DEVICE, its ioctls,
 * its mmap and the tracemb module parameter, and pass everything else
 * to libc.  The command switch mirrors kt_do_cmd() in kutrace_main.c for
 * the commands the control library uses.
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
#include "fakedev.h"

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
	return kt_core_init(fake_bytes, fake_buf, fake_filter);
}

void kt_fake_free(void)
{
	free(fake_buf);
	fake_buf = NULL;
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

/* kt_do_cmd() of kutrace_main.c, the commands libkutrace sends. */
static long fake_cmd(unsigned int nr, u64 arg, u64 *result)
{
	u64 w[KUTRACE_MAX_ENTRY_WORDS];
	unsigned int len, ev;

	*result = 0;
	switch (nr) {
	case KUTRACE_CMD_OFF:
		WRITE_ONCE(kt_tracing, false);
		break;
	case KUTRACE_CMD_ON:
		if (kt_st.full)
			return -ENOSPC;
		WRITE_ONCE(kt_tracing, true);
		*result = 1;
		break;
	case KUTRACE_CMD_FLUSH:
		*result = kt_core_flush();
		break;
	case KUTRACE_CMD_RESET:
		if (arg & ~(u64)(KUTRACE_RESET_IPC | KUTRACE_RESET_WRAP |
				 KUTRACE_RESET_LLC))
			return -EINVAL;
		*result = kt_core_reset(arg);
		for (unsigned int c = 0; c < KT_ENV_NR_CPUS; c++)
			kt_cpu_set_ipc(c, *result & KUTRACE_RESET_IPC);
		break;
	case KUTRACE_CMD_STAT:
		*result = kt_core_blocks();
		break;
	case KUTRACE_CMD_GETCOUNT:
		*result = kt_core_blocks() * KUTRACE_BLOCK_WORDS;
		if (kt_st.wrapped)
			*result = ~*result;
		break;
	case KUTRACE_CMD_INSERT1:
	case KUTRACE_IOC_INSERT1_FORCED_NR:
		w[0] = arg;
		*result = kt_insert_words(w, 1,
					  nr == KUTRACE_IOC_INSERT1_FORCED_NR);
		break;
	case KUTRACE_CMD_INSERTN:
	case KUTRACE_IOC_INSERTN_FORCED_NR:
		memcpy(w, (const void *)(uintptr_t)arg, sizeof(w));
		ev = kutrace_word_event(w[0]);
		len = kutrace_is_varlen(ev) ? kutrace_entry_words(ev) : 1;
		if (len < 1 || len > KUTRACE_MAX_ENTRY_WORDS)
			return -EINVAL;
		*result = kt_insert_words(w, len,
					  nr == KUTRACE_IOC_INSERTN_FORCED_NR);
		break;
	case KUTRACE_CMD_TEST:
		*result = READ_ONCE(kt_tracing);
		break;
	case KUTRACE_CMD_VERSION:
		*result = KUTRACE_MODULE_VERSION;
		break;
	default:
		/* GET4KB & co.: the mmap path never needs them. */
		return -ENOTTY;
	}
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
	e = fake_cmd(_IOC_NR(req), io->arg, &result);
	io->result = result;
	if (e) {
		errno = (int)-e;
		return -1;
	}
	return 0;
}

// SPDX-License-Identifier: BSD-3-Clause
/*
 * vmcheck - guest-side checks of /dev/kutrace that need no trace file.
 *
 *   vmcheck security     permissions, exclusive open, bad ioctl arguments
 *
 * Prints "ok - what" / "not ok - what" lines; exit status 1 on failure.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/capability.h>
#include "kutrace/format.h"

static int fails;

static void res(int good, const char *what, int err)
{
	printf("%s - %s", good ? "ok" : "not ok", what);
	if (!good)
		printf(" (errno %d %s)", err, strerror(err));
	printf("\n");
	fails += !good;
}

static int cmd(int fd, unsigned long req, uint64_t arg, uint64_t *out)
{
	struct kutrace_ioc io = { arg, 0 };
	int r = ioctl(fd, req, &io);

	if (out)
		*out = io.result;
	return r < 0 ? -errno : 0;
}

static void drop_caps(void)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];

	memset(d, 0, sizeof(d));
	if (syscall(SYS_capset, &h, d))
		perror("capset");
}

/* Run fn in a child; returns its exit status. */
static int in_child(int (*fn)(void *), void *arg)
{
	int st;
	pid_t p = fork();

	if (p == 0)
		_exit(fn(arg));
	waitpid(p, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 99;
}

static int open_as_nobody(void *a)
{
	(void)a;
	if (setgid(65534) || setuid(65534))
		return 98;
	return open(KUTRACE_DEVICE, O_RDONLY) < 0 ? errno : 0;
}

static int open_without_caps(void *a)
{
	(void)a;
	drop_caps();
	return open(KUTRACE_DEVICE, O_RDONLY) < 0 ? errno : 0;
}

static int use_fd_without_caps(void *a)
{
	int fd = *(int *)a;
	uint64_t v = 0;
	int r1, r2;

	drop_caps();
	r1 = cmd(fd, KUTRACE_IOC(KUTRACE_CMD_RESET), 0, NULL);
	r2 = cmd(fd, KUTRACE_IOC(KUTRACE_CMD_VERSION), 0, &v);
	return (r1 == -EPERM && r2 == 0 && v == KUTRACE_MODULE_VERSION) ? 0 : 1;
}

int main(int argc, char **argv)
{
	int fd, fd2, r;
	uint64_t v = 0;
	uint64_t words[8] = { 0 };
	void *m;

	if (argc < 2 || strcmp(argv[1], "security")) {
		fprintf(stderr, "usage: vmcheck security\n");
		return 2;
	}
	r = in_child(open_as_nobody, NULL);
	res(r == EACCES || r == EPERM, "non-root cannot open /dev/kutrace", r);
	r = in_child(open_without_caps, NULL);
	res(r == EPERM, "root without CAP_PERFMON/CAP_SYS_ADMIN cannot open", r);

	fd = open(KUTRACE_DEVICE, O_RDONLY);
	res(fd >= 0, "root opens /dev/kutrace", errno);
	if (fd < 0)
		return 1;
	fd2 = open(KUTRACE_DEVICE, O_RDONLY);
	res(fd2 < 0 && errno == EBUSY, "second opener gets EBUSY", errno);
	r = in_child(use_fd_without_caps, &fd);
	res(r == 0, "passed fd without caps: RESET EPERM, VERSION ok", r);

	res(cmd(fd, _IOWR('x', 1, struct kutrace_ioc), 0, NULL) == -ENOTTY,
	    "foreign ioctl magic -> ENOTTY", 0);
	res(cmd(fd, KUTRACE_IOC(40), 0, NULL) == -ENOTTY,
	    "command number out of range -> ENOTTY", 0);
	res(cmd(fd, _IOWR(KUTRACE_IOC_MAGIC, KUTRACE_CMD_VERSION, uint64_t), 0,
		NULL) == -ENOTTY, "wrong argument size -> ENOTTY", 0);
	res(ioctl(fd, KUTRACE_IOC(KUTRACE_CMD_VERSION), NULL) < 0 &&
	    errno == EFAULT, "NULL argument -> EFAULT", errno);
	res(ioctl(fd, KUTRACE_IOC(KUTRACE_CMD_VERSION),
		  (void *)0xffffffff81000000UL) < 0 && errno == EFAULT,
	    "kernel-address argument -> EFAULT", errno);
	res(cmd(fd, KUTRACE_IOC(KUTRACE_CMD_RESET), 0x80, NULL) == -EINVAL,
	    "RESET with unknown flags -> EINVAL", 0);
	res(cmd(fd, KUTRACE_IOC(KUTRACE_CMD_RESET), 0, NULL) == 0,
	    "RESET(0) works", 0);
	res(cmd(fd, KUTRACE_IOC(KUTRACE_IOC_INSERTN_FORCED_NR),
		0xffffffff81000000ULL, NULL) == -EFAULT,
	    "INSERTN from a kernel address -> EFAULT (no disclosure)", 0);
	res(cmd(fd, KUTRACE_IOC(KUTRACE_IOC_INSERTN_FORCED_NR), 16, NULL) ==
	    -EFAULT, "INSERTN from an unmapped address -> EFAULT", 0);
	words[0] = kutrace_make_word(0x102, 0);	/* length nibble 0 */
	res(cmd(fd, KUTRACE_IOC(KUTRACE_IOC_INSERTN_FORCED_NR),
		(uintptr_t)words, NULL) == -EINVAL,
	    "INSERTN with length nibble 0 -> EINVAL", 0);
	words[0] = kutrace_make_word(KUTRACE_MARKA, 1);
	r = cmd(fd, KUTRACE_IOC(KUTRACE_IOC_INSERT1_FORCED_NR), words[0], &v);
	res(r == 0 && v == 1, "forced INSERT1 records one word", -r);
	res(cmd(fd, KUTRACE_IOC(KUTRACE_CMD_GETWORD), 1ULL << 40, NULL) ==
	    -EINVAL, "GETWORD beyond the trace -> EINVAL", 0);
	cmd(fd, KUTRACE_IOC(KUTRACE_CMD_SET4KB), 3, NULL);
	res(cmd(fd, KUTRACE_IOC(KUTRACE_CMD_GET4KB), (uintptr_t)words, NULL) ==
	    -EINVAL, "GET4KB at an unaligned index -> EINVAL", 0);
	cmd(fd, KUTRACE_IOC(KUTRACE_CMD_SET4KB), 1ULL << 40, NULL);
	r = cmd(fd, KUTRACE_IOC(KUTRACE_CMD_GET4KB), (uintptr_t)words, &v);
	res(r == 0 && v == 4096, "GET4KB beyond the trace copies nothing", -r);
	cmd(fd, KUTRACE_IOC(KUTRACE_CMD_SET4KB), 0, NULL);
	r = cmd(fd, KUTRACE_IOC(KUTRACE_CMD_GET4KB), 0xffffffff81000000ULL, &v);
	res(r == 0 && v == 4096, "GET4KB to a kernel address copies nothing", -r);
	m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	res(m == MAP_FAILED, "writable mmap refused", errno);
	m = mmap(NULL, 1UL << 34, PROT_READ, MAP_SHARED, fd, 0);
	res(m == MAP_FAILED, "mmap larger than the buffer refused", errno);
	m = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	res(m != MAP_FAILED, "read-only mmap while off works", errno);
	if (m != MAP_FAILED) {
		res(mprotect(m, 4096, PROT_READ | PROT_WRITE) < 0,
		    "mprotect to writable refused", errno);
		munmap(m, 4096);
	}
	cmd(fd, KUTRACE_IOC(KUTRACE_CMD_ON), 0, NULL);
	m = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	res(m == MAP_FAILED && errno == EBUSY, "mmap while tracing -> EBUSY",
	    errno);
	cmd(fd, KUTRACE_IOC(KUTRACE_CMD_OFF), 0, NULL);
	cmd(fd, KUTRACE_IOC(KUTRACE_CMD_RESET), 0, NULL);
	r = cmd(fd, KUTRACE_IOC(KUTRACE_CMD_VERSION), 0, &v);
	res(r == 0 && v == KUTRACE_MODULE_VERSION,
	    "module still answers VERSION 4 afterwards", -r);
	close(fd);
	return fails ? 1 : 0;
}

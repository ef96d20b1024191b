// SPDX-License-Identifier: BSD-3-Clause
/*
 * ktexc - guest workload for the patched-kernel tests
 * (tests/t_kernel_patched.sh, tests/vm/scenarios/kernel.sh).
 *
 *   ktexc exc N   N each of: ia32 getpid (int $0x80), #UD (ud2), #BP
 *                 (int3), #GP (hlt in user mode), #DB (single step); then
 *                 prctl(PR_SET_NAME, "kt-renamed").  Prints "pid P".
 *   ktexc udp N   N UDP datagrams over loopback whose 64-byte payloads
 *                 pass the module's default packet filter (E5 17 C5 D1...)
 *   ktexc tcp N   N round trips of 64-byte messages over loopback TCP
 *                 (TCP_NODELAY): 2N segments each way with such payloads
 *   ktexc sys     system call 1023: VERSION and TEST as root, RESET and
 *                 INSERT1 as user 65534 (must fail with ~0).  Prints
 *                 "ok - ..." / "not ok - ..." lines.
 *   ktexc nosys   without the module: system call 1023 fails with ENOSYS
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <netinet/tcp.h>
#include "kutrace/format.h"

static volatile long ills, traps, segvs;

static void on_sig(int sig, siginfo_t *si, void *uc_)
{
	ucontext_t *uc = uc_;

	(void)si;
	if (sig == SIGILL) {
		ills++;
		uc->uc_mcontext.gregs[REG_RIP] += 2;	/* ud2 */
	} else if (sig == SIGSEGV) {
		segvs++;
		uc->uc_mcontext.gregs[REG_RIP] += 1;	/* hlt */
	} else {
		traps++;
		uc->uc_mcontext.gregs[REG_EFL] &= ~0x100L;	/* TF */
	}
}

static long int80_getpid(void)
{
	long ret;

	__asm__ volatile("int $0x80" : "=a"(ret) : "0"(20L)
			 : "memory", "r8", "r9", "r10", "r11");
	return ret;
}

static int exc(long n)
{
	struct sigaction sa;
	long bad = 0;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_sig;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGILL, &sa, NULL);
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGTRAP, &sa, NULL);
	printf("pid %d\n", getpid());
	for (long i = 0; i < n; i++)
		if (int80_getpid() != getpid())
			bad++;
	for (long i = 0; i < n; i++)
		__asm__ volatile("ud2");
	for (long i = 0; i < n; i++)
		__asm__ volatile("int3");
	for (long i = 0; i < n; i++)
		__asm__ volatile("hlt");
	for (long i = 0; i < n; i++)
		__asm__ volatile("pushfq\n\torq $0x100, (%%rsp)\n\tpopfq\n\tnop"
				 ::: "memory", "cc");
	prctl(PR_SET_NAME, "kt-renamed");
	printf("int80 %ld bad %ld sigill %ld sigsegv %ld sigtrap %ld\n",
	       n, bad, ills, segvs, traps);
	return bad || ills != n || segvs != n || traps != 2 * n;
}

static int udp(long n)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	unsigned char buf[64] = { 0xE5, 0x17, 0xC5, 0xD1 };
	socklen_t al = sizeof(a);
	int r = socket(AF_INET, SOCK_DGRAM, 0);
	int t = socket(AF_INET, SOCK_DGRAM, 0);
	long got = 0;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (r < 0 || t < 0 || bind(r, (struct sockaddr *)&a, sizeof(a)) ||
	    getsockname(r, (struct sockaddr *)&a, &al)) {
		perror("ktexc udp");
		return 1;
	}
	for (long i = 0; i < n; i++) {
		buf[8] = i & 0xFF;
		if (sendto(t, buf, sizeof(buf), 0, (struct sockaddr *)&a,
			   sizeof(a)) == sizeof(buf) &&
		    recv(r, buf + 32, 32, 0) > 0)
			got++;
	}
	printf("udp %ld received %ld\n", n, got);
	return got != n;
}

static int full_io(int fd, unsigned char *buf, size_t n, int wr)
{
	size_t done = 0;

	while (done < n) {
		ssize_t r = wr ? write(fd, buf + done, n - done) :
				 read(fd, buf + done, n - done);

		if (r <= 0)
			return -1;
		done += r;
	}
	return 0;
}

static int tcp(long n)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	unsigned char buf[64] = { 0xE5, 0x17, 0xC5, 0xD1 };
	socklen_t al = sizeof(a);
	int one = 1, l = socket(AF_INET, SOCK_STREAM, 0), c, st;
	long ok = 0;
	pid_t p;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (l < 0 || bind(l, (struct sockaddr *)&a, sizeof(a)) || listen(l, 1) ||
	    getsockname(l, (struct sockaddr *)&a, &al)) {
		perror("ktexc tcp");
		return 1;
	}
	fflush(stdout);
	p = fork();
	if (p == 0) {
		int s = accept(l, NULL, NULL);

		setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		for (long i = 0; i < n; i++)
			if (full_io(s, buf, sizeof(buf), 0) ||
			    full_io(s, buf, sizeof(buf), 1))
				_exit(1);
		_exit(0);
	}
	c = socket(AF_INET, SOCK_STREAM, 0);
	if (connect(c, (struct sockaddr *)&a, sizeof(a))) {
		perror("ktexc tcp connect");
		return 1;
	}
	setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	for (long i = 0; i < n; i++) {
		buf[8] = i & 0xFF;
		if (!full_io(c, buf, sizeof(buf), 1) &&
		    !full_io(c, buf, sizeof(buf), 0))
			ok++;
	}
	close(c);
	waitpid(p, &st, 0);
	printf("tcp %ld round trips %ld\n", n, ok);
	return ok != n;
}

static unsigned long ctl(unsigned long cmd, unsigned long arg)
{
	return (unsigned long)syscall(KUTRACE_CONTROL_SYSCALL, cmd, arg);
}

static int fails;

static void expect(const char *what, int cond)
{
	printf("%s - %s\n", cond ? "ok" : "not ok", what);
	fails += !cond;
}

static int sys(void)
{
	pid_t p;
	int st;

	expect("syscall 1023 VERSION answers 4",
	       ctl(KUTRACE_CMD_VERSION, 0) == KUTRACE_MODULE_VERSION);
	expect("syscall 1023 TEST says tracing is off",
	       ctl(KUTRACE_CMD_TEST, 0) == 0);
	expect("syscall 1023 unknown command returns ~0",
	       ctl(99, 0) == KUTRACE_CMD_ERROR);
	fflush(stdout);
	p = fork();
	if (p == 0) {
		if (setgid(65534) || setuid(65534))
			_exit(2);
		expect("syscall 1023 RESET as a user fails (~0)",
		       ctl(KUTRACE_CMD_RESET, 0) == KUTRACE_CMD_ERROR);
		expect("syscall 1023 INSERT1 as a user fails (~0)",
		       ctl(KUTRACE_CMD_INSERT1, 0x20A00000001ULL) ==
		       KUTRACE_CMD_ERROR);
		expect("syscall 1023 VERSION as a user still answers",
		       ctl(KUTRACE_CMD_VERSION, 0) == KUTRACE_MODULE_VERSION);
		_exit(fails != 0);
	}
	waitpid(p, &st, 0);
	expect("unprivileged child ran", WIFEXITED(st) && WEXITSTATUS(st) == 0);
	return fails != 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 3 && !strcmp(argv[1], "exc"))
		return exc(atol(argv[2]));
	if (argc == 3 && !strcmp(argv[1], "udp"))
		return udp(atol(argv[2]));
	if (argc == 3 && !strcmp(argv[1], "tcp"))
		return tcp(atol(argv[2]));
	if (argc == 2 && !strcmp(argv[1], "sys"))
		return sys();
	if (argc == 2 && !strcmp(argv[1], "nosys")) {
		errno = 0;
		expect("without the module syscall 1023 fails with ENOSYS",
		       syscall(KUTRACE_CONTROL_SYSCALL, KUTRACE_CMD_VERSION, 0) == -1 &&
		       errno == ENOSYS);
		return fails != 0;
	}
	fprintf(stderr, "usage: ktexc exc N | ktexc udp N | ktexc tcp N | ktexc sys | ktexc nosys\n");
	return 2;
}

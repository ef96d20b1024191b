// SPDX-License-Identifier: BSD-3-Clause
/*
 * ktinit - /init of guests that have no shell (riscv64: Debian 12 has no
 * riscv64 busybox).  Does what tests/vm/init does: mounts, loads
 * kutrace_mod.ko (tracemb from /tracemb), runs /scenario.sh with /out as
 * working directory, leaves status, dmesg.txt and scenario.log there,
 * writes /out as a tar archive to /dev/vda and powers off.
 *
 * The scenario is a run list, not a shell script, one command a line:
 *
 *   [LABEL:] [VAR=VALUE...] PROGRAM ARGS... [<FILE] [>FILE] [2>FILE] [2>&1]
 *
 * "LABEL: ..." appends "LABEL=STATUS" to scenario.log (the shell
 * scenarios' `echo "LABEL=$?"`).  Built in: ktquiet on|off (as
 * tests/vm/ktquiet, printing its "quiet: ..." line), copy SRC DST,
 * dmesg FILE [WORD] (the kernel log, lines holding WORD), rmmod MODULE,
 * mode PATH FILE (PATH's type and permissions as ls -l shows them).
 * Words are split at blanks; no quotes, no variables.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <unistd.h>
#include <sys/klog.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#define MAXW 64

static FILE *slog;

static void mnt(const char *type, const char *dir)
{
	mkdir(dir, 0755);
	if (mount(type, dir, type, 0, NULL))
		fprintf(stderr, "ktinit: mount %s: %s\n", dir, strerror(errno));
}

/* The whole file (at most len - 1 bytes) as a string; "" if unreadable. */
static void slurp(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY);
	ssize_t n = fd < 0 ? 0 : read(fd, buf, len - 1);

	buf[n > 0 ? n : 0] = 0;
	if (fd >= 0)
		close(fd);
	buf[strcspn(buf, "\n")] = 0;
}

static int spill(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, text, strlen(text));
	close(fd);
	return n == (ssize_t)strlen(text) ? 0 : -1;
}

static int copy(const char *src, const char *dst)
{
	static char buf[1 << 16];
	int in = open(src, O_RDONLY), out;
	ssize_t n;

	if (in < 0)
		return 1;
	out = open(dst, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (out < 0) {
		close(in);
		return 1;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n)
			break;
	close(in);
	close(out);
	return n != 0;
}

static int dmesg(const char *dst, const char *word)
{
	int len = klogctl(10, NULL, 0);	/* SYSLOG_ACTION_SIZE_BUFFER */
	char *buf = malloc(len > 0 ? (size_t)len + 1 : 1), *l, *save;
	FILE *f = fopen(dst, "w");

	if (!buf || !f || len <= 0 || (len = klogctl(3, buf, len)) < 0) {
		free(buf);
		if (f)
			fclose(f);
		return 1;
	}
	buf[len] = 0;
	for (l = strtok_r(buf, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
		if (!word || strstr(l, word))
			fprintf(f, "%s\n", l);
	fclose(f);
	free(buf);
	return 0;
}

static int mode(const char *path, const char *dst)
{
	struct stat st;
	char m[16] = "?rwxrwxrwx", line[512];

	if (stat(path, &st))
		return 1;
	m[0] = S_ISCHR(st.st_mode) ? 'c' : S_ISBLK(st.st_mode) ? 'b' :
	       S_ISDIR(st.st_mode) ? 'd' : '-';
	for (int i = 0; i < 9; i++)
		if (!(st.st_mode & (0400 >> i)))
			m[1 + i] = '-';
	snprintf(line, sizeof(line), "%s %s\n", m, path);
	return spill(dst, line) ? 1 : 0;
}

/* ktquiet on|off: see tests/vm/ktquiet (no fair server on 6.1). */
static int quiet(const char *how)
{
	static char rt[32], wd[32];
	const char *rtp = "/proc/sys/kernel/sched_rt_runtime_us";
	const char *wdp = "/proc/sys/kernel/watchdog";
	char now[32], w[32];

	if (!strcmp(how, "on")) {
		slurp(rtp, rt, sizeof(rt));
		slurp(wdp, wd, sizeof(wd));
		spill(rtp, "-1\n");
		if (wd[0])
			spill(wdp, "0\n");
		slurp(rtp, now, sizeof(now));
		slurp(wdp, w, sizeof(w));
		fprintf(slog, "quiet: rt_runtime=%s watchdog=%s fair_server=none\n",
			now, w[0] ? w : "none");
		return 0;
	}
	if (rt[0])
		spill(rtp, rt);
	if (wd[0])
		spill(wdp, wd);
	return 0;
}

static int redirect(int fd, const char *path, int flags)
{
	int f = open(path, flags, 0644);

	if (f < 0 || dup2(f, fd) < 0)
		return -1;
	close(f);
	return 0;
}

/* One command of the run list; its exit status. */
static int run(char **w, int n)
{
	char *argv[MAXW + 1];
	int argc = 0, st, i;
	pid_t pid;

	if (!strcmp(w[0], "ktquiet") && n == 2)
		return quiet(w[1]);
	if (!strcmp(w[0], "copy") && n == 3)
		return copy(w[1], w[2]);
	if (!strcmp(w[0], "dmesg") && n >= 2)
		return dmesg(w[1], n > 2 ? w[2] : NULL);
	if (!strcmp(w[0], "mode") && n == 3)
		return mode(w[1], w[2]);
	if (!strcmp(w[0], "rmmod") && n == 2)
		return syscall(SYS_delete_module, w[1], O_NONBLOCK) ? 1 : 0;
	fflush(slog);
	pid = fork();
	if (pid < 0)
		return 127;
	if (pid == 0) {
		for (i = 0; i < n; i++) {
			char *a = w[i];

			if (!argc && strchr(a, '=') && a[0] != '=') {
				putenv(a);
			} else if (!strcmp(a, "2>&1")) {
				dup2(1, 2);
			} else if (a[0] == '<') {
				if (redirect(0, a + 1, O_RDONLY))
					_exit(126);
			} else if (a[0] == '>') {
				if (redirect(1, a + 1, O_WRONLY | O_CREAT | O_TRUNC))
					_exit(126);
			} else if (a[0] == '2' && a[1] == '>') {
				if (redirect(2, a + 2, O_WRONLY | O_CREAT | O_TRUNC))
					_exit(126);
			} else {
				argv[argc++] = a;
			}
		}
		argv[argc] = NULL;
		if (!argc)
			_exit(0);
		execvp(argv[0], argv);
		fprintf(stderr, "ktinit: %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	if (waitpid(pid, &st, 0) < 0)
		return 127;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static void scenario(const char *path)
{
	FILE *f = fopen(path, "r");
	char line[4096], *w[MAXW], *save, *label;
	int n, rc;

	if (!f) {
		fprintf(slog, "ktinit: no %s\n", path);
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		n = 0;
		label = NULL;
		for (char *t = strtok_r(line, " \t\n", &save); t && n < MAXW;
		     t = strtok_r(NULL, " \t\n", &save))
			w[n++] = t;
		if (!n || w[0][0] == '#')
			continue;
		if (w[0][strlen(w[0]) - 1] == ':') {
			label = w[0];
			label[strlen(label) - 1] = 0;
			memmove(w, w + 1, sizeof(w[0]) * (size_t)--n);
			if (!n)
				continue;
		}
		fprintf(slog, "+");
		for (int i = 0; i < n; i++)
			fprintf(slog, " %s", w[i]);
		fprintf(slog, "\n");
		rc = run(w, n);
		if (label)
			fprintf(slog, "%s=%d\n", label, rc);
		fflush(slog);
	}
	fclose(f);
}

/* A ustar header for a regular file NAME of SIZE bytes. */
static void tar_header(char *h, const char *name, unsigned long size,
		       unsigned long mtime)
{
	unsigned int sum = 0;

	memset(h, 0, 512);
	memcpy(h, name, strnlen(name, 99));	/* longer names are not written */
	snprintf(h + 100, 8, "%07o", 0644);
	snprintf(h + 108, 8, "%07o", 0);
	snprintf(h + 116, 8, "%07o", 0);
	snprintf(h + 124, 12, "%011lo", size);
	snprintf(h + 136, 12, "%011lo", mtime);
	memset(h + 148, ' ', 8);
	h[156] = '0';
	memcpy(h + 257, "ustar", 6);
	memcpy(h + 263, "00", 2);
	for (int i = 0; i < 512; i++)
		sum += (unsigned char)h[i];
	snprintf(h + 148, 8, "%06o", sum);
}

/* The regular files of the working directory, as tar, to DEV. */
static void tar_out(const char *dev)
{
	static char blk[1 << 16];
	DIR *d = opendir(".");
	int out = open(dev, O_WRONLY);
	struct dirent *e;

	if (!d || out < 0) {
		fprintf(stderr, "ktinit: cannot write %s\n", dev);
		return;
	}
	while ((e = readdir(d))) {
		struct stat st;
		int in;
		ssize_t n;
		unsigned long left;

		if (strlen(e->d_name) > 99 || stat(e->d_name, &st) ||
		    !S_ISREG(st.st_mode))
			continue;
		in = open(e->d_name, O_RDONLY);
		if (in < 0)
			continue;
		tar_header(blk, e->d_name, (unsigned long)st.st_size,
			   (unsigned long)st.st_mtime);
		if (write(out, blk, 512) != 512)
			break;
		left = (unsigned long)st.st_size;
		while (left && (n = read(in, blk, sizeof(blk))) > 0) {
			size_t m = (size_t)n < left ? (size_t)n : left;
			size_t pad = (512 - m % 512) % 512;

			memset(blk + m, 0, pad);
			if (write(out, blk, m + pad) != (ssize_t)(m + pad))
				break;
			left -= m;
		}
		close(in);
	}
	memset(blk, 0, 1024);
	if (write(out, blk, 1024) != 1024)
		fprintf(stderr, "ktinit: short write on %s\n", dev);
	fsync(out);
	close(out);
	closedir(d);
}

int main(void)
{
	char mb[32], args[64];
	int fd, rc;

	setenv("PATH", "/bin:/sbin", 1);
	mnt("proc", "/proc");
	mnt("sysfs", "/sys");
	mnt("devtmpfs", "/dev");
	mnt("tmpfs", "/tmp");
	mnt("tmpfs", "/out");
	mnt("debugfs", "/sys/kernel/debug");
	if (chdir("/out"))
		return 1;
	slog = fopen("scenario.log", "w");
	if (!slog)
		return 1;
	printf("kutrace-vm: ktinit, %ld cpus\n", sysconf(_SC_NPROCESSORS_ONLN));
	slurp("/tracemb", mb, sizeof(mb));
	snprintf(args, sizeof(args), "tracemb=%s", mb);
	fd = open("/lib/modules/kutrace_mod.ko", O_RDONLY);
	rc = fd < 0 ? -1 : (int)syscall(SYS_finit_module, fd, args, 0);
	snprintf(mb, sizeof(mb), "insmod=%d\n", rc ? 1 : 0);
	spill("insmod.status", mb);
	if (fd >= 0)
		close(fd);
	scenario("/scenario.sh");
	fclose(slog);
	dmesg("dmesg.txt", NULL);
	spill("status", "0\n");
	tar_out("/dev/vda");
	sync();
	printf("kutrace-vm: done\n");
	fflush(stdout);
	reboot(RB_POWER_OFF);
	return 0;
}

// SPDX-License-Identifier: BSD-3-Clause
/*
 * diag.c - say why kutrace cannot be reached, and what fixes it.
 *
 * kt_ctl_strerror() words an errno in one line; kt_ctl_explain() looks at
 * the machine to tell the likely cases apart, because "no such file" for
 * /dev/kutrace has very different fixes: module not installed, installed
 * but not loaded, DKMS lacking headers for this kernel, a kernel without
 * module support, Secure Boot lockdown refusing the unsigned module; and
 * EPERM may be a missing capability or confidentiality lockdown.
 *
 * Every file is read under $KUTRACE_SYSROOT (empty by default), so the
 * tests can present a fake /proc, /sys and /lib/modules on any host.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>

#include "kutrace/control.h"
#include "channel.h"

#define CAP_SYS_ADMIN_BIT	21
#define CAP_PERFMON_BIT		38

const char *kt_sysroot(void)
{
	const char *r = getenv("KUTRACE_SYSROOT");

	return r ? r : "";
}

static const char *rooted(char *buf, size_t len, const char *path)
{
	snprintf(buf, len, "%s%s", kt_sysroot(), path);
	return buf;
}

static int exists(const char *path)
{
	char p[4096];
	struct stat st;

	return stat(rooted(p, sizeof(p), path), &st) == 0;
}

/* First line of a file under the sysroot, without its newline; "" if none. */
static void read_line(const char *path, char *out, size_t len)
{
	char p[4096];
	FILE *f = fopen(rooted(p, sizeof(p), path), "r");

	out[0] = 0;
	if (!f)
		return;
	if (!fgets(out, (int)len, f))
		out[0] = 0;
	out[strcspn(out, "\n")] = 0;
	fclose(f);
}

/* "none [integrity] confidentiality" -> "integrity"; "" if no LSM file. */
static void lockdown_mode(char *out, size_t len)
{
	char line[256], *a, *b;

	read_line("/sys/kernel/security/lockdown", line, sizeof(line));
	out[0] = 0;
	a = strchr(line, '[');
	b = a ? strchr(a, ']') : NULL;
	if (a && b)
		snprintf(out, len, "%.*s", (int)(b - a - 1), a + 1);
}

static int module_loaded(void)
{
	char p[4096], line[512];
	FILE *f = fopen(rooted(p, sizeof(p), "/proc/modules"), "r");
	int found = 0;

	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f))
		found = strncmp(line, "kutrace_mod ", 12) == 0;
	fclose(f);
	return found;
}

/* The kernel release, from the sysroot's /proc when there is one. */
static void kernel_release(char *out, size_t len)
{
	struct utsname u;

	read_line("/proc/sys/kernel/osrelease", out, len);
	if (!out[0] && uname(&u) == 0)
		snprintf(out, len, "%s", u.release);
}

/* An installed kutrace_mod.ko for release rel (where DKMS and
 * `make install`-style installs put it); "" if none. */
static void installed_module(const char *rel, char *out, size_t len)
{
	static const char *const dirs[] = { "updates/dkms", "updates", "extra",
					    "kernel/drivers/misc", "misc" };
	static const char *const ext[] = { "", ".xz", ".zst", ".gz" };

	out[0] = 0;
	for (size_t d = 0; d < sizeof(dirs) / sizeof(dirs[0]); d++)
		for (size_t e = 0; e < sizeof(ext) / sizeof(ext[0]); e++) {
			char p[1024];

			snprintf(p, sizeof(p), "/lib/modules/%s/%s/kutrace_mod.ko%s",
				 rel, dirs[d], ext[e]);
			if (exists(p)) {
				snprintf(out, len, "%s", p);
				return;
			}
		}
}

/* Effective capabilities of this process (CapEff), 0 if unknown. */
static unsigned long long cap_eff(void)
{
	char p[4096], line[256];
	unsigned long long caps = 0;
	FILE *f = fopen(rooted(p, sizeof(p), "/proc/self/status"), "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %llx", &caps) == 1)
			break;
	fclose(f);
	return caps;
}

static void lockdown_advice(FILE *f, const char *mode)
{
	fprintf(f,
		"  why: the kernel is in %s lockdown (usually Secure Boot): it loads\n"
		"       only modules signed by a trusted key.\n"
		"  fix: load a signed module: `sudo make dkms-install` builds it and DKMS\n"
		"       signs it with /var/lib/dkms/mok.key; enroll that key once:\n"
		"         sudo mokutil --import /var/lib/dkms/mok.pub   (reboot, confirm)\n"
		"       then: sudo modprobe kutrace_mod\n", mode);
}

void kt_ctl_explain(int err, FILE *f)
{
	char lock[64], rel[256], ko[1200];

	lockdown_mode(lock, sizeof(lock));
	kernel_release(rel, sizeof(rel));
	switch (-err) {
	case ENOENT:
	case ENODEV:
	case ENXIO:
		if (exists("/proc/version") && !exists("/proc/modules")) {
			fprintf(f,
				"  why: this kernel (%s) has no loadable module support\n"
				"       (built without CONFIG_MODULES), so kutrace_mod cannot be loaded.\n"
				"  fix: boot a kernel with CONFIG_MODULES=y, e.g. Debian's:\n"
				"         sudo apt-get install linux-image-amd64 && sudo reboot\n", rel);
			return;
		}
		if (module_loaded()) {
			char dev[64], *colon;

			/* "10:123" in sysfs; mknod wants "10 123". */
			read_line("/sys/class/misc/kutrace/dev", dev, sizeof(dev));
			colon = strchr(dev, ':');
			if (colon)
				*colon = ' ';
			fprintf(f,
				"  why: kutrace_mod is loaded but " KUTRACE_DEVICE " is missing\n"
				"       (no devtmpfs or udev?).\n"
				"  fix: sudo mknod -m 600 " KUTRACE_DEVICE " c %s\n",
				dev[0] ? dev : "MAJOR MINOR  (from /sys/class/misc/kutrace/dev)");
			return;
		}
		installed_module(rel, ko, sizeof(ko));
		if (lock[0] && strcmp(lock, "none")) {
			lockdown_advice(f, lock);
			return;
		}
		if (ko[0]) {
			fprintf(f,
				"  why: kutrace_mod is installed for this kernel (%s) but not loaded.\n"
				"  fix: sudo modprobe kutrace_mod tracemb=20\n", ko);
		} else if (exists("/var/lib/dkms/kutrace")) {
			fprintf(f,
				"  why: DKMS has the kutrace source but no module for kernel %s\n"
				"       (its headers were missing when the kernel was installed?).\n"
				"  fix: sudo apt-get install linux-headers-%s && sudo dkms autoinstall -k %s\n"
				"       then: sudo modprobe kutrace_mod\n", rel, rel, rel);
		} else {
			fprintf(f,
				"  why: no kutrace_mod.ko is installed for kernel %s.\n"
				"  fix: from the kutrace source tree, install it with DKMS:\n"
				"         sudo make dkms-install && sudo modprobe kutrace_mod\n"
				"       or build and load it once:\n"
				"         make module KVERS=%s\n"
				"         sudo insmod build/module/%s/kutrace_mod.ko tracemb=20\n",
				rel, rel, rel);
		}
		return;
	case EPERM:
	case EACCES: {
		unsigned long long caps = cap_eff();
		int capable = !!(caps & ((1ULL << CAP_PERFMON_BIT) |
					 (1ULL << CAP_SYS_ADMIN_BIT)));

		if (!strcmp(lock, "confidentiality")) {
			fprintf(f,
				"  why: the kernel is in confidentiality lockdown, which forbids\n"
				"       tracing the kernel even for root.\n"
				"  fix: boot with lockdown=integrity (or without lockdown): add it to\n"
				"       GRUB_CMDLINE_LINUX in /etc/default/grub, sudo update-grub, reboot\n");
		} else if (geteuid() != 0) {
			fprintf(f,
				"  why: you are uid %u; " KUTRACE_DEVICE " belongs to root (mode 0600)\n"
				"       and needs CAP_PERFMON or CAP_SYS_ADMIN%s.\n"
				"  fix: run it as root: sudo %s ...\n",
				(unsigned int)geteuid(),
				capable ? "" : ", which you do not have", program_invocation_short_name);
		} else if (!capable) {
			fprintf(f,
				"  why: this root has neither CAP_PERFMON nor CAP_SYS_ADMIN\n"
				"       (a container or a capability bounding set?).\n"
				"  fix: give it the capability and the device, e.g.\n"
				"         docker run --cap-add PERFMON --device " KUTRACE_DEVICE " ...\n");
		}
		return;
	}
	case EBUSY:
		fprintf(f,
			"  why: only one process at a time may have " KUTRACE_DEVICE " open.\n"
			"  fix: find it with  sudo fuser -v " KUTRACE_DEVICE
			"  and stop it (or wait)\n");
		return;
	default:
		return;
	}
}

int kt_ctl_sys1023(char *why, size_t len)
{
	uint64_t v = (uint64_t)syscall(KUTRACE_CONTROL_SYSCALL,
				       KUTRACE_CMD_VERSION, 0);

	read_line("/sys/module/kutrace_mod/parameters/sys1023", why, len);
	return v == KUTRACE_MODULE_VERSION;
}

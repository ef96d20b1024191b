// SPDX-License-Identifier: BSD-3-Clause
/*
 * channel.c - the control channel to the tracer (docs/spec/FORMATS.md 7):
 * /dev/kutrace ioctls, the BPF backend's maps, else the patched kernel's
 * system call 1023; the trace clock, time pairs, RESET, the initial names,
 * ON and OFF.  See channel.h.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/utsname.h>

#include "libkutrace-local.h"
#include "kutrace/control.h"
#include "kutrace/counter.h"
#include "channel.h"
#include "bpfchan.h"

struct kt_ctl_state kt_ctl = {
	.fd = -1,
	.via = KT_CTL_NONE,
	.prefer = KT_CTL_NONE,
};

uint64_t kt_ctl_now(void)
{
	if (kt_ctl.via == KT_CTL_BPF)
		return kt_bpf_chan_now();
	return kt_counter_now();
}

uint64_t kt_ctl_usec(void)
{
	struct timeval tv;

	gettimeofday(&tv, NULL);
	return (uint64_t)tv.tv_sec * 1000000 + (uint64_t)tv.tv_usec;
}

/* Counter and gettimeofday taken within 320 ticks of each other. */
void kt_ctl_time_pair(uint64_t *ctr, uint64_t *usec)
{
	for (int i = 0; i < 100; i++) {
		uint64_t c0 = kt_ctl_now();
		uint64_t u = kt_ctl_usec();
		uint64_t c1 = kt_ctl_now();

		*ctr = c0;
		*usec = u;
		if (c1 - c0 <= 320)
			return;
	}
}

static uint64_t syscall_ctl(uint64_t cmd, uint64_t arg)
{
	return (uint64_t)syscall(KUTRACE_CONTROL_SYSCALL, cmd, arg);
}

void kt_ctl_prefer(enum kt_ctl_via via)
{
	kt_ctl.prefer = via;
}

/* The BPF backend, set up by kutrace_control (its pinned maps). */
static int open_bpf(void)
{
	int e = kt_bpf_chan_open();

	if (!e)
		kt_ctl.via = KT_CTL_BPF;
	return e;
}

int kt_ctl_open(void)
{
	char dev[4096];
	int err;

	if (kt_ctl.via != KT_CTL_NONE)
		return 0;
	if (kt_ctl.prefer == KT_CTL_BPF)
		return open_bpf();
	/* Under $KUTRACE_SYSROOT only in tests (see diag.c). */
	snprintf(dev, sizeof(dev), "%s%s", kt_sysroot(), KUTRACE_DEVICE);
	kt_ctl.fd = open(dev, O_RDONLY | O_CLOEXEC);
	if (kt_ctl.fd >= 0) {
		kt_ctl.via = KT_CTL_DEVICE;
		return 0;
	}
	err = errno;
	if ((err == ENOENT || err == ENODEV || err == ENXIO) &&
	    kt_ctl.prefer != KT_CTL_DEVICE && kt_bpf_chan_present())
		return open_bpf();
	if (err == ENOENT || err == ENODEV || err == ENXIO) {
		/* Patched kernel with the module: syscall 1023. */
		uint64_t v = syscall_ctl(KUTRACE_CMD_VERSION, 0);

		if (v != ~0ULL && v >= 3 && v < 256) {
			kt_ctl.via = KT_CTL_SYSCALL;
			return 0;
		}
		return -ENOENT;
	}
	return -err;
}

void kt_ctl_close(void)
{
	if (kt_ctl.fd >= 0)
		close(kt_ctl.fd);
	kt_bpf_chan_close();
	kt_ctl.fd = -1;
	kt_ctl.via = KT_CTL_NONE;
}

enum kt_ctl_via kt_ctl_via(void)
{
	return kt_ctl.via;
}

const char *kt_ctl_strerror(int err)
{
	switch (-err) {
	case ENOENT:
		return "kutrace module not loaded (no " KUTRACE_DEVICE
		       "; insmod kutrace_mod.ko)";
	case EACCES:
	case EPERM:
		return "no permission: controlling kutrace needs root "
		       "(CAP_PERFMON or CAP_SYS_ADMIN)";
	case EBUSY:
		return "kutrace is busy: another process has " KUTRACE_DEVICE
		       " open";
	case ENOSPC:
		return "no space left (trace buffer or disk full)";
	case ENOTTY:
		return "command not supported by this kutrace module";
	default:
		return strerror(-err);
	}
}

int kt_ctl_cmd(unsigned int nr, uint64_t arg, uint64_t *result)
{
	struct kutrace_ioc io = { .arg = arg, .result = 0 };
	uint64_t r;

	if (kt_ctl.via == KT_CTL_NONE) {
		int e = kt_ctl_open();

		if (e)
			return e;
	}
	if (kt_ctl.via == KT_CTL_DEVICE) {
		if (ioctl(kt_ctl.fd, KUTRACE_IOC(nr), &io) < 0)
			return -errno;
		if (result)
			*result = io.result;
		return 0;
	}
	if (kt_ctl.via == KT_CTL_BPF)
		return kt_bpf_chan_cmd(nr, arg, result);
	if (nr == KUTRACE_IOC_INSERT1_FORCED_NR)
		r = syscall_ctl(KUTRACE_CMD_INSERT1_FORCED, arg);
	else if (nr == KUTRACE_IOC_INSERTN_FORCED_NR)
		r = syscall_ctl(KUTRACE_CMD_INSERTN_FORCED, arg);
	else
		r = syscall_ctl(nr, arg);
	if (r == KUTRACE_CMD_ERROR && nr != KUTRACE_CMD_GETCOUNT &&
	    nr != KUTRACE_CMD_GETWORD)
		return -EIO;
	if (result)
		*result = r;
	return 0;
}

int kt_ctl_reset(unsigned int flags, unsigned int *kept)
{
	uint64_t r = 0;
	int e = kt_ctl_cmd(KUTRACE_CMD_RESET, flags, &r);

	kt_ubuf_reset();
	kt_ctl.start_ctr = kt_ctl.start_usec = kt_ctl.stop_ctr = kt_ctl.stop_usec = 0;
	if (!e && kept)
		*kept = kt_ctl.via == KT_CTL_SYSCALL ? flags : (unsigned int)r;
	return e;
}

/* ------------------------------------------------------------ names */

void kt_name_entry(uint64_t *w, unsigned int type, uint64_t number,
		   const char *name, size_t max)
{
	size_t n = strnlen(name, max);
	unsigned int len = 1 + (unsigned int)((n + 7) / 8);

	memset(w, 0, KUTRACE_MAX_ENTRY_WORDS * sizeof(*w));
	w[0] = kutrace_make_word(type | (len << KUTRACE_LEN_SHIFT),
				 number & KUTRACE_ARG32_MASK);
	memcpy(&w[1], name, n);
}

static int emit_name(unsigned int type, uint64_t number, const char *name)
{
	uint64_t w[KUTRACE_MAX_ENTRY_WORDS];

	if (!name[0])
		return 0;
	kt_name_entry(w, type, number, name, KUTRACE_NAME_MAX);
	return kt_ctl_cmd(KUTRACE_IOC_INSERTN_FORCED_NR,
			  (uint64_t)(uintptr_t)w, NULL);
}

void kt_first_line_after(const char *path, const char *key, char *out,
			  size_t len)
{
	FILE *f = fopen(path, "r");
	char line[512];

	out[0] = 0;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *c = strchr(line, ':');

		if (strncmp(line, key, strlen(key)) || !c)
			continue;
		c++;
		while (*c == ' ' || *c == '\t')
			c++;
		c[strcspn(c, "\n")] = 0;
		snprintf(out, len, "%s", c);
		break;
	}
	fclose(f);
}

#if defined(__aarch64__) || defined(__riscv)
/* The board, as the device tree names it ("linux,dummy-virt"); "" if not. */
static void dt_model(char *out, size_t len)
{
	FILE *dt = fopen("/proc/device-tree/model", "r");

	out[0] = 0;
	if (!dt)
		return;
	if (!fgets(out, (int)len, dt))
		out[0] = 0;
	fclose(dt);
}
#endif

struct irqname {
	int nr;
	char name[64];
};

static int read_proc_irqs(struct irqname *v, int max)
{
	FILE *f = fopen("/proc/interrupts", "r");
	char line[1024];
	int n = 0;

	if (!f)
		return 0;
	while (n < max && fgets(line, sizeof(line), f)) {
		char *end, *sp;
		long nr = strtol(line, &end, 10);

#if defined(__aarch64__)
		/*
		 * "IPI3:  12  34  Timer broadcast interrupts": the module
		 * records IPI n as interrupt 246 + n (docs/spec/FORMATS.md
		 * 1.7); named ipi3_timer.
		 */
		char *p = line + strspn(line, " ");

		if (!strncmp(p, "IPI", 3)) {
			long ipi = strtol(p + 3, &end, 10);

			if (end == p + 3 || *end != ':' || ipi < 0 ||
			    ipi >= KUTRACE_IRQ_BH - 246)
				continue;
			p = end + 1;
			for (;;) {
				p += strspn(p, " \t");
				if (*p < '0' || *p > '9')
					break;
				p += strspn(p, "0123456789");
			}
			p[strcspn(p, " \t\n")] = 0;
			for (char *q = p; *q; q++)
				*q = (char)tolower((unsigned char)*q);
			v[n].nr = 246 + (int)ipi;
			snprintf(v[n].name, sizeof(v[n].name), "ipi%ld_%.40s",
				 ipi, p);
			n++;
			continue;
		}
#endif
		if (end == line || *end != ':')
			continue;
		line[strcspn(line, "\n")] = 0;
		sp = strrchr(line, ' ');
		if (!sp || !sp[1])
			continue;
		v[n].nr = (int)nr;
		snprintf(v[n].name, sizeof(v[n].name), "%s", sp + 1);
		n++;
	}
	fclose(f);
	return n;
}

int kt_ctl_init(const char *process_name)
{
	struct utsname u;
	char model[256], host[256];
	static struct irqname irqs[255];
	int nirq, e = 0;
	uint64_t w;
	unsigned int pid = (unsigned int)getpid();

	/* Gather first: keeps the insertions short and on one CPU. */
	if (uname(&u) != 0)
		memset(&u, 0, sizeof(u));
	kt_first_line_after("/proc/cpuinfo", "model name", model, sizeof(model));
#if defined(__aarch64__)
	/* arm64's cpuinfo names no model: its CPU (implementer:part) and board */
	if (!model[0]) {
		char impl[32], part[32], board[128];

		kt_first_line_after("/proc/cpuinfo", "CPU implementer", impl, sizeof(impl));
		kt_first_line_after("/proc/cpuinfo", "CPU part", part, sizeof(part));
		dt_model(board, sizeof(board));
		snprintf(model, sizeof(model), "arm64 CPU %s:%s%s%.100s", impl, part,
			 board[0] ? " " : "", board);
	}
#endif
#if defined(__riscv)
	/* riscv64's cpuinfo names no model either: its ISA and the board */
	if (!model[0]) {
		char isa[160], board[128];

		kt_first_line_after("/proc/cpuinfo", "isa", isa, sizeof(isa));
		dt_model(board, sizeof(board));
		snprintf(model, sizeof(model), "riscv64 %.100s%s%.100s", isa,
			 board[0] ? " " : "", board);
	}
#endif
	if (gethostname(host, sizeof(host)) != 0)
		host[0] = 0;
	host[sizeof(host) - 1] = 0;
	nirq = read_proc_irqs(irqs, 255);

	kt_ctl_time_pair(&kt_ctl.start_ctr, &kt_ctl.start_usec);
	e |= emit_name(KUTRACE_KERNEL_VER, 0, u.version);
	e |= emit_name(KUTRACE_MODEL_NAME, 0, model);
	e |= emit_name(KUTRACE_HOST_NAME, 0, host);
	e |= emit_name(KUTRACE_PIDNAME, 0, "-idle-");
	for (size_t i = 0; i < kt_trap_count; i++)
		e |= emit_name(KUTRACE_TRAPNAME, kt_trap_names[i].number,
			       kt_trap_names[i].name);
	for (size_t i = 0; i < kt_irq_count; i++)
		e |= emit_name(KUTRACE_INTERRUPTNAME, kt_irq_names[i].number,
			       kt_irq_names[i].name);
	e |= emit_name(KUTRACE_INTERRUPTNAME, KUTRACE_IRQ_BH, "BH");
	for (int i = 0; i < nirq; i++)
		e |= emit_name(KUTRACE_INTERRUPTNAME, irqs[i].nr, irqs[i].name);
	for (size_t i = 0; i < kt_syscall64_count; i++) {
		int nr = kt_syscall64_names[i].number;

		if (nr < 0 || nr >= KUTRACE_MAX_SYSCALL)
			continue;
		e |= emit_name(KUTRACE_SYSCALL64NAME, kutrace_map_syscall(nr),
			       kt_syscall64_names[i].name);
	}
	e |= emit_name(KUTRACE_SYSCALL64NAME,
		       kutrace_map_syscall(KUTRACE_SCHED_NR), "-sched-");
	for (size_t i = 0; i < kt_errno_count; i++)
		e |= emit_name(KUTRACE_ERRNONAME, kt_errno_names[i].number,
			       kt_errno_names[i].name);
	e |= emit_name(KUTRACE_PIDNAME, pid & 0xFFFF, process_name);
	w = kutrace_make_word(KUTRACE_USERPID, pid);
	if (!e)
		e = kt_ctl_cmd(KUTRACE_IOC_INSERT1_FORCED_NR, w, NULL);
	return e;
}

int kt_ctl_on(void)
{
	uint64_t r = 0;
	int e;

	if (!kt_ctl.start_ctr)
		kt_ctl_time_pair(&kt_ctl.start_ctr, &kt_ctl.start_usec);
	e = kt_ctl_cmd(KUTRACE_CMD_ON, 0, &r);
	if (!e && r != 1)
		e = -EIO;
	return e;
}

int kt_ctl_off(void)
{
	kt_ubuf_stop();	/* first: no user entry after the stop pair */
	int e = kt_ctl_cmd(KUTRACE_CMD_OFF, 0, NULL);

	usleep(20000);
	if (!kt_ctl.stop_ctr)
		kt_ctl_time_pair(&kt_ctl.stop_ctr, &kt_ctl.stop_usec);
	return e;
}

/* ------------------------------------------------------------- dump */


// SPDX-License-Identifier: BSD-3-Clause
/*
 * kt_control.c - control channel to the kutrace module and the user
 * library (docs/spec/FORMATS.md 2.5, 2.6, 7).  See kutrace/control.h.
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

#include "kutrace/kutrace.h"
#include "kutrace/control.h"
#include "kutrace/counter.h"
#include "kutrace/bpfchan.h"

static int ctl_fd = -1;
static enum kt_ctl_via ctl_via = KT_CTL_NONE;
static enum kt_ctl_via ctl_prefer = KT_CTL_NONE;
static uint64_t start_ctr, start_usec, stop_ctr, stop_usec;

uint64_t kt_ctl_now(void)
{
	if (ctl_via == KT_CTL_BPF)
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
static void time_pair(uint64_t *ctr, uint64_t *usec)
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
	ctl_prefer = via;
}

/* The BPF backend, set up by kutrace_control (its pinned maps). */
static int open_bpf(void)
{
	int e = kt_bpf_chan_open();

	if (!e)
		ctl_via = KT_CTL_BPF;
	return e;
}

int kt_ctl_open(void)
{
	char dev[4096];
	int err;

	if (ctl_via != KT_CTL_NONE)
		return 0;
	if (ctl_prefer == KT_CTL_BPF)
		return open_bpf();
	/* Under $KUTRACE_SYSROOT only in tests (see kt_diag.c). */
	snprintf(dev, sizeof(dev), "%s%s", kt_sysroot(), KUTRACE_DEVICE);
	ctl_fd = open(dev, O_RDONLY | O_CLOEXEC);
	if (ctl_fd >= 0) {
		ctl_via = KT_CTL_DEVICE;
		return 0;
	}
	err = errno;
	if ((err == ENOENT || err == ENODEV || err == ENXIO) &&
	    ctl_prefer != KT_CTL_DEVICE && kt_bpf_chan_present())
		return open_bpf();
	if (err == ENOENT || err == ENODEV || err == ENXIO) {
		/* Patched kernel with the module: syscall 1023. */
		uint64_t v = syscall_ctl(KUTRACE_CMD_VERSION, 0);

		if (v != ~0ULL && v >= 3 && v < 256) {
			ctl_via = KT_CTL_SYSCALL;
			return 0;
		}
		return -ENOENT;
	}
	return -err;
}

void kt_ctl_close(void)
{
	if (ctl_fd >= 0)
		close(ctl_fd);
	kt_bpf_chan_close();
	ctl_fd = -1;
	ctl_via = KT_CTL_NONE;
}

enum kt_ctl_via kt_ctl_via(void)
{
	return ctl_via;
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

	if (ctl_via == KT_CTL_NONE) {
		int e = kt_ctl_open();

		if (e)
			return e;
	}
	if (ctl_via == KT_CTL_DEVICE) {
		if (ioctl(ctl_fd, KUTRACE_IOC(nr), &io) < 0)
			return -errno;
		if (result)
			*result = io.result;
		return 0;
	}
	if (ctl_via == KT_CTL_BPF)
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

	start_ctr = start_usec = stop_ctr = stop_usec = 0;
	if (!e && kept)
		*kept = ctl_via == KT_CTL_SYSCALL ? flags : (unsigned int)r;
	return e;
}

/* ------------------------------------------------------------ names */

static int emit_name(unsigned int type, uint64_t number, const char *name)
{
	uint64_t w[KUTRACE_MAX_ENTRY_WORDS] = { 0 };
	size_t n = strlen(name);
	unsigned int len;

	if (n == 0)
		return 0;
	if (n > KUTRACE_NAME_MAX)
		n = KUTRACE_NAME_MAX;
	len = 1 + (unsigned int)((n + 7) / 8);
	w[0] = kutrace_make_word(type | (len << KUTRACE_LEN_SHIFT),
				 number & KUTRACE_ARG32_MASK);
	memcpy(&w[1], name, n);
	return kt_ctl_cmd(KUTRACE_IOC_INSERTN_FORCED_NR,
			  (uint64_t)(uintptr_t)w, NULL);
}

static void first_line_after(const char *path, const char *key, char *out,
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
	first_line_after("/proc/cpuinfo", "model name", model, sizeof(model));
#if defined(__aarch64__)
	/* arm64's cpuinfo names no model: its CPU (implementer:part) and board */
	if (!model[0]) {
		char impl[32], part[32], board[128] = "";
		FILE *dt = fopen("/proc/device-tree/model", "r");

		first_line_after("/proc/cpuinfo", "CPU implementer", impl, sizeof(impl));
		first_line_after("/proc/cpuinfo", "CPU part", part, sizeof(part));
		if (dt) {
			if (!fgets(board, sizeof(board), dt))
				board[0] = 0;
			fclose(dt);
		}
		snprintf(model, sizeof(model), "arm64 CPU %s:%s%s%.100s", impl, part,
			 board[0] ? " " : "", board);
	}
#endif
	if (gethostname(host, sizeof(host)) != 0)
		host[0] = 0;
	host[sizeof(host) - 1] = 0;
	nirq = read_proc_irqs(irqs, 255);

	time_pair(&start_ctr, &start_usec);
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

	if (!start_ctr)
		time_pair(&start_ctr, &start_usec);
	e = kt_ctl_cmd(KUTRACE_CMD_ON, 0, &r);
	if (!e && r != 1)
		e = -EIO;
	return e;
}

int kt_ctl_off(void)
{
	int e = kt_ctl_cmd(KUTRACE_CMD_OFF, 0, NULL);

	usleep(20000);
	if (!stop_ctr)
		time_pair(&stop_ctr, &stop_usec);
	return e;
}

/* ------------------------------------------------------------- dump */

static long module_tracemb(void)
{
	FILE *f = fopen("/sys/module/kutrace_mod/parameters/tracemb", "r");
	long mb = 0;

	if (f) {
		if (fscanf(f, "%ld", &mb) != 1)
			mb = 0;
		fclose(f);
	}
	return mb;
}

struct src {
	const uint8_t *map;	/* whole buffer, or NULL: GET4KB */
	const uint64_t *perm;	/* file block i is block perm[i] (BPF) */
	size_t size;
	unsigned int flags;	/* reset flags in effect */
};

static int get_block(struct src *s, uint64_t i, uint64_t *w)
{
	if (s->perm)
		i = s->perm[i];
	if (s->map) {
		memcpy(w, s->map + s->size - (i + 1) * KUTRACE_BLOCK_BYTES,
		       KUTRACE_BLOCK_BYTES);
		return 0;
	}
	for (int k = 0; k < KUTRACE_BLOCK_WORDS; k += 512) {
		uint64_t r = 0;
		int e = kt_ctl_cmd(KUTRACE_CMD_SET4KB,
				   i * KUTRACE_BLOCK_WORDS + k, NULL);

		if (!e)
			e = kt_ctl_cmd(KUTRACE_CMD_GET4KB,
				       (uint64_t)(uintptr_t)(w + k), &r);
		if (e)
			return e;
		if (r)
			return -EIO;
	}
	return 0;
}

static int get_side(struct src *s, uint64_t i, uint8_t *b)
{
	if (s->map) {
		memcpy(b, s->map + s->size / 8 - (i + 1) * KUTRACE_SIDE_BYTES,
		       KUTRACE_SIDE_BYTES);
		return 0;
	}
	for (int k = 0; k < KUTRACE_SIDE_BYTES / 8; k += 512) {
		uint64_t r = 0;
		int e = kt_ctl_cmd(KUTRACE_CMD_SET4KB,
				   i * (KUTRACE_SIDE_BYTES / 8) + k, NULL);

		if (!e)
			e = kt_ctl_cmd(KUTRACE_CMD_GETIPC4KB,
				       (uint64_t)(uintptr_t)(b + 8 * k), &r);
		if (e)
			return e;
		if (r)
			return -EIO;
	}
	return 0;
}

int kt_ctl_dump(const char *fname, struct kt_dump_info *info)
{
	uint64_t count = 0, nblocks, *w = NULL, *perm = NULL, tr = 0;
	uint8_t side[KUTRACE_SIDE_BYTES];
	char tmp[4096];
	struct src s = { 0 };
	double slope;
	FILE *f = NULL;
	int e, wrapped;
	long mb;

	memset(info, 0, sizeof(*info));
	e = kt_ctl_cmd(KUTRACE_CMD_TEST, 0, &tr);
	if (e)
		return e;
	e = kt_ctl_off();
	if (!e)
		e = kt_ctl_cmd(KUTRACE_CMD_FLUSH, 0, NULL);
	if (!e)
		e = kt_ctl_cmd(KUTRACE_CMD_GETCOUNT, 0, &count);
	if (e)
		return e;
	wrapped = (int64_t)count < 0;
	if (wrapped)
		count = ~count;
	nblocks = count / KUTRACE_BLOCK_WORDS;
	info->wrapped = wrapped;
	if (nblocks == 0)
		return -ENODATA;
	mb = module_tracemb();
	if (ctl_via == KT_CTL_BPF) {
		s.map = kt_bpf_chan_buffer(&s.size);	/* the channel's */
		perm = kt_xmalloc(nblocks * sizeof(*perm));
		if (!kt_bpf_chan_order(nblocks, perm))
			s.perm = perm;
	} else if (ctl_via == KT_CTL_DEVICE && mb > 0) {
		s.size = (size_t)mb << 20;
		s.map = mmap(NULL, s.size, PROT_READ, MAP_SHARED, ctl_fd, 0);
		if (s.map == MAP_FAILED)
			s.map = NULL;
	}
	w = kt_xmalloc(KUTRACE_BLOCK_BYTES);
	snprintf(tmp, sizeof(tmp), "%s.tmp%d", fname, (int)getpid());
	f = fopen(tmp, "wb");
	if (!f) {
		e = -errno;
		goto out;
	}
	for (uint64_t i = 0; i < nblocks; i++) {
		unsigned int flags;
		uint64_t bctr;

		e = get_block(&s, i, w);
		if (e)
			goto out;
		if (i == 0) {
			uint64_t c0 = w[KUTRACE_HDR_CPU_TIME] & KUTRACE_HDR_LOW56;

			if (!stop_ctr)
				time_pair(&stop_ctr, &stop_usec);
			if (!start_ctr) {
				/*
				 * Tracing was started by another process
				 * (kutrace_control 1): derive the start pair
				 * from the counter's rate (arm64: CNTFRQ_EL0)
				 * or the CPU clock, ticks = cycles >> 6.
				 */
				char mhz[64];
				double tpu;

				first_line_after("/proc/cpuinfo", "cpu MHz", mhz,
						 sizeof(mhz));
				tpu = atof(mhz) / (1 << KUTRACE_TSC_SHIFT);
				if (kt_counter_ticks_per_usec() > 0)
					tpu = kt_counter_ticks_per_usec();
				if (ctl_via == KT_CTL_BPF)	/* ns >> 6 */
					tpu = 1000.0 / (1 << KUTRACE_TSC_SHIFT);
				if (tpu < 1)
					tpu = 50;
				start_ctr = c0;
				start_usec = stop_usec -
					(uint64_t)((double)(stop_ctr - c0) / tpu);
			}
		}
		flags = (unsigned int)(w[KUTRACE_HDR_FLAGS_USEC] >>
				       KUTRACE_HDR_FLAGS_SHIFT);
		if (i == 0) {
			flags = (flags & ~KUTRACE_FLAG_VERSION) |
				KUTRACE_FILE_VERSION;
			if (!wrapped)
				flags &= ~KUTRACE_FLAG_WRAP;
			w[KUTRACE_HDR_START_CTR] = start_ctr;
			w[KUTRACE_HDR_START_USEC] = start_usec;
			w[KUTRACE_HDR_STOP_CTR] = stop_ctr;
			w[KUTRACE_HDR_STOP_USEC] = stop_usec;
			info->ipc = !!(flags & KUTRACE_FLAG_IPC);
		}
		slope = (double)(stop_usec - start_usec) /
			(double)(stop_ctr > start_ctr ?
				 stop_ctr - start_ctr : 1);
		bctr = w[KUTRACE_HDR_CPU_TIME] & KUTRACE_HDR_LOW56;
		w[KUTRACE_HDR_FLAGS_USEC] = ((uint64_t)flags <<
					     KUTRACE_HDR_FLAGS_SHIFT) |
			((start_usec + (int64_t)((double)((int64_t)(bctr -
				start_ctr)) * slope)) & KUTRACE_HDR_LOW56);
		if (fwrite(w, KUTRACE_BLOCK_BYTES, 1, f) != 1) {
			e = -errno;
			goto out;
		}
		info->bytes += KUTRACE_BLOCK_BYTES;
		if (flags & KUTRACE_FLAG_SIDE) {
			e = get_side(&s, i, side);
			if (e)
				goto out;
			if (fwrite(side, sizeof(side), 1, f) != 1) {
				e = -errno;
				goto out;
			}
			info->bytes += sizeof(side);
		}
	}
	if (fflush(f) != 0 || fsync(fileno(f)) != 0) {
		e = -errno;
		goto out;
	}
	if (fclose(f) != 0) {
		f = NULL;
		e = -errno;
		goto out;
	}
	f = NULL;
	if (rename(tmp, fname) != 0) {
		e = -errno;
		goto out;
	}
	info->blocks = nblocks;
	/* Full: no wrap, and every block handed out. */
	if (!wrapped && s.map &&
	    nblocks >= (s.size - ((info->ipc ? s.size / 8 : 0))) /
		       KUTRACE_BLOCK_BYTES)
		info->full = 1;
	e = 0;
out:
	if (e && e != -ENODATA) {
		if (f)
			fclose(f);
		unlink(tmp);
		if (!e)
			e = -EIO;
	}
	if (s.map && ctl_via != KT_CTL_BPF)
		munmap((void *)s.map, s.size);
	free(perm);
	free(w);
	return e;
}

void kt_ctl_trace_name(const char *stem, char *buf, size_t len)
{
	static time_t t0;
	char host[256] = "";
	struct tm tm;

	if (!t0)
		t0 = time(NULL);
	localtime_r(&t0, &tm);
	if (gethostname(host, sizeof(host)) != 0)
		host[0] = 0;
	host[sizeof(host) - 1] = 0;
	snprintf(buf, len, "%s_%04d%02d%02d_%02d%02d%02d_%s_%d.trace", stem,
		 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
		 tm.tm_min, tm.tm_sec, host, (int)getpid());
}

/* ----------------------------------------------------- user library */

int kutrace_test(void)
{
	uint64_t v = 0;
	int e = kt_ctl_cmd(KUTRACE_CMD_VERSION, 0, &v);

	if (e) {
		fprintf(stderr, "kutrace: %s\n", kt_ctl_strerror(e));
		kt_ctl_explain(e, stderr);
		return 0;
	}
	if (v < 3 || v > 255) {
		fprintf(stderr, "kutrace: module version %llu too old\n",
			(unsigned long long)v);
		return 0;
	}
	return 1;
}

static int go_flags(const char *name, unsigned int flags)
{
	int e = kt_ctl_reset(flags, NULL);

	if (!e)
		e = kt_ctl_init(name);
	if (!e)
		e = kt_ctl_on();
	return e;
}

int kutrace_go(const char *name)
{
	return go_flags(name, 0);
}

int kutrace_goipc(const char *name)
{
	return go_flags(name, KUTRACE_RESET_IPC);
}

int kutrace_stop(const char *fname)
{
	struct kt_dump_info info;
	char def[512];
	int e;

	if (!fname) {
		kt_ctl_trace_name("ku", def, sizeof(def));
		fname = def;
	}
	e = kt_ctl_dump(fname, &info);
	if (!e)
		fprintf(stderr, "kutrace: wrote %s (%llu blocks, %llu bytes)\n",
			fname, (unsigned long long)info.blocks,
			(unsigned long long)info.bytes);
	else
		fprintf(stderr, "kutrace: stop: %s\n", kt_ctl_strerror(e));
	kt_ctl_reset(0, NULL);
	return e;
}

int kutrace_addevent(unsigned int event, uint64_t arg)
{
	uint64_t r = 0;

	if (kt_ctl_cmd(KUTRACE_CMD_INSERT1, kutrace_make_word(event, arg),
		       &r))
		return -1;
	return r ? 1 : 0;
}

void kutrace_mark_a(const char *label)
{
	kutrace_addevent(KUTRACE_MARKA, kt_base40_encode(label));
}

void kutrace_mark_b(const char *label)
{
	kutrace_addevent(KUTRACE_MARKB, kt_base40_encode(label));
}

void kutrace_mark_c(const char *label)
{
	kutrace_addevent(KUTRACE_MARKC, kt_base40_encode(label));
}

void kutrace_mark_d(uint64_t n)
{
	kutrace_addevent(KUTRACE_MARKD, n & KUTRACE_ARG32_MASK);
}

int kutrace_addname(unsigned int type, uint64_t number, const char *name)
{
	uint64_t w[KUTRACE_MAX_ENTRY_WORDS] = { 0 };
	size_t n = strlen(name);
	unsigned int len;
	uint64_t r = 0;

	if (type & (KUTRACE_LEN_MASK << KUTRACE_LEN_SHIFT))
		return -EINVAL;
	if (n > KUTRACE_USER_NAME_MAX)
		n = KUTRACE_USER_NAME_MAX;
	len = 1 + (unsigned int)((n + 7) / 8);
	w[0] = kutrace_make_word(type | (len << KUTRACE_LEN_SHIFT),
				 number & KUTRACE_ARG32_MASK);
	memcpy(&w[1], name, n);
	if (kt_ctl_cmd(KUTRACE_CMD_INSERTN, (uint64_t)(uintptr_t)w, &r))
		return -1;
	return (int)r;
}

uint64_t kutrace_readtime(void)
{
	return kt_ctl_now();
}

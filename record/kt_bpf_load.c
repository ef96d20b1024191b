// SPDX-License-Identifier: BSD-3-Clause
/*
 * kt_bpf_load.c - sets up and tears down the BPF backend for
 * kutrace_control: loads bpf/kutrace.bpf.c (libbpf skeleton), attaches its
 * programs and pins the programs' links and the three maps under KT_BPF_PIN,
 * so that tracing goes on after kutrace_control exits (kutrace_control 1,
 * later kutrace_control 0) and other processes reach the buffer and state
 * through the pins (libkutrace/bpfchan.c).  Removing the pins detaches.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <dirent.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <linux/bpf.h>
#include <bpf/libbpf.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>

#include "kutrace/format.h"
#include "bpfstate.h"
#include "kutrace.skel.h"
#include "kt_bpf_load.h"

#ifndef BPF_FS_MAGIC
#define BPF_FS_MAGIC 0xcafe4a11
#endif

static int quiet_print(enum libbpf_print_level level, const char *fmt,
		       va_list ap)
{
	if (level == LIBBPF_WARN && getenv("KUTRACE_BPF_DEBUG"))
		return vfprintf(stderr, fmt, ap);
	return 0;
}

/* Why BPF cannot be used here, in a few words; NULL if it can. */
const char *kt_bpf_missing(void)
{
	struct stat sb;
	long r;

	if (stat("/sys/kernel/btf/vmlinux", &sb) != 0)
		return "no kernel BTF (/sys/kernel/btf/vmlinux: the kernel needs CONFIG_DEBUG_INFO_BTF=y)";
	/* An invalid command: ENOSYS = no bpf() at all, EPERM = no rights. */
	r = syscall(__NR_bpf, -1, NULL, 0);
	if (r < 0 && errno == ENOSYS)
		return "BPF is disabled in this kernel (no bpf() system call)";
	if (geteuid() != 0)
		return "no permission: the BPF backend needs root (CAP_BPF and CAP_PERFMON)";
	return NULL;
}

int kt_bpf_pinned(void)
{
	struct stat sb;

	return stat(KT_BPF_PIN "/state", &sb) == 0;
}

static int bpffs_ready(void)
{
	struct statfs fs;

	if (statfs("/sys/fs/bpf", &fs) == 0 && fs.f_type == BPF_FS_MAGIC)
		return 0;
	if (mkdir("/sys/fs/bpf", 0700) != 0 && errno != EEXIST)
		return -errno;
	if (mount("bpf", "/sys/fs/bpf", "bpf", 0, "mode=0700") != 0)
		return -errno;
	return 0;
}

/* Does the running kernel have this tracepoint / function? */
static int kernel_has(const struct btf *vb, const char *sec)
{
	char name[128];

	if (!strncmp(sec, "tp_btf/", 7)) {
		snprintf(name, sizeof(name), "btf_trace_%s", sec + 7);
		return btf__find_by_name_kind(vb, name, BTF_KIND_TYPEDEF) > 0;
	}
	if (!strncmp(sec, "fentry/", 7) || !strncmp(sec, "fexit/", 6))
		return btf__find_by_name_kind(vb, strchr(sec, '/') + 1,
					      BTF_KIND_FUNC) > 0;
	return 1;
}

void kt_bpf_detach(void)
{
	DIR *d = opendir(KT_BPF_PIN);
	struct dirent *e;
	char p[512];

	if (!d)
		return;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), "%s/%s", KT_BPF_PIN, e->d_name);
		unlink(p);
	}
	closedir(d);
	rmdir(KT_BPF_PIN);
}

int kt_bpf_attach(unsigned int tracemb, char *why, size_t len)
{
	struct kutrace_bpf *skel = NULL;
	struct btf *vb = NULL;
	struct bpf_program *prog;
	struct kt_bpf_state *st;
	const char *miss = kt_bpf_missing();
	bool ipi_tp;
	size_t stsz;
	char p[512];
	int e = 0, n = 0;

	why[0] = 0;
	if (miss) {
		snprintf(why, len, "%s", miss);
		return -ENOTSUP;
	}
	if (kt_bpf_pinned())
		return 0;
	if (tracemb < 1)
		tracemb = 8;
	libbpf_set_print(quiet_print);
	vb = btf__load_vmlinux_btf();
	if (!vb) {
		snprintf(why, len, "cannot read the kernel BTF: %s",
			 strerror(errno));
		return -ENOTSUP;
	}
	/*
	 * Kernels without BPF trampolines refuse fentry/fexit: then no
	 * page-fault exits (the heuristic closes faults) and no IPI sends
	 * on kernels before the ipi_send_* tracepoints.
	 */
	for (int trampolines = 1; trampolines >= 0; trampolines--) {
		kutrace_bpf__destroy(skel);
		skel = kutrace_bpf__open();
		if (!skel) {
			e = -errno;
			snprintf(why, len, "cannot open the BPF programs: %s",
				 strerror(-e));
			goto out;
		}
		bpf_map__set_max_entries(skel->maps.buf, tracemb *
					 (1u << 20) / KUTRACE_BLOCK_BYTES);
		bpf_map__set_max_entries(skel->maps.slot, tracemb *
					 (1u << 20) / KUTRACE_BLOCK_BYTES);
		ipi_tp = kernel_has(vb, "tp_btf/ipi_send_cpu");
		bpf_object__for_each_program(prog, skel->obj) {
			const char *sec = bpf_program__section_name(prog);
			bool want = kernel_has(vb, sec);

			/* IPI sends: the tracepoints where they exist. */
			if (ipi_tp && !strncmp(sec, "fentry/native_", 14))
				want = false;
			if (!trampolines && strncmp(sec, "tp_btf/", 7))
				want = false;
			bpf_program__set_autoload(prog, want);
		}
		e = kutrace_bpf__load(skel);
		if (!e)
			break;
	}
	if (e) {
		snprintf(why, len, "the kernel refused the BPF programs: %s%s",
			 strerror(-e), e == -EPERM ?
			 " (needs CAP_BPF and CAP_PERFMON; kernel.unprivileged_bpf_disabled or lockdown=confidentiality?)" : "");
		goto out;
	}
	e = bpffs_ready();
	if (e) {
		snprintf(why, len, "cannot mount the BPF file system on /sys/fs/bpf: %s",
			 strerror(-e));
		goto out;
	}
	if (mkdir(KT_BPF_PIN, 0700) != 0 && errno != EEXIST) {
		e = -errno;
		snprintf(why, len, "mkdir %s: %s", KT_BPF_PIN, strerror(-e));
		goto out;
	}
	/* Empty state: nothing recorded until ON. */
	stsz = (sizeof(*st) + 4095) & ~4095UL;
	st = mmap(NULL, stsz, PROT_READ | PROT_WRITE, MAP_SHARED,
		  bpf_map__fd(skel->maps.state), 0);
	if (st == MAP_FAILED) {
		e = -errno;
		snprintf(why, len, "mmap of the BPF state: %s", strerror(-e));
		goto out;
	}
	memset(st, 0, sizeof(*st));
	st->version = KT_BPF_STATE_VERSION;
	st->nblocks = bpf_map__max_entries(skel->maps.buf);
	/* What the trace's backend entry says (FORMAT.md: backend names). */
	snprintf(st->what, sizeof(st->what), "bpf: synth sched span; %s%s",
		 bpf_program__autoload(skel->progs.kt_mm_fault_exit) ?
		 "pf exit fexit+heur" : "pf exit heur only",
		 ipi_tp || bpf_program__autoload(skel->progs.kt_ipi_resched) ?
		 "" : "; no IPI send");
	munmap(st, stsz);
	bpf_object__for_each_program(prog, skel->obj) {
		struct bpf_link *l;

		if (!bpf_program__autoload(prog))
			continue;
		l = bpf_program__attach(prog);
		if (!l) {
			e = -errno;
			snprintf(why, len, "cannot attach %s: %s",
				 bpf_program__section_name(prog), strerror(-e));
			goto out;
		}
		snprintf(p, sizeof(p), "%s/%s", KT_BPF_PIN,
			 bpf_program__name(prog));
		e = bpf_link__pin(l, p);
		bpf_link__destroy(l);	/* the pin keeps it attached */
		if (e) {
			snprintf(why, len, "cannot pin %s: %s", p, strerror(-e));
			goto out;
		}
		n++;
	}
	e = bpf_map__pin(skel->maps.buf, KT_BPF_PIN "/buf");
	if (!e)
		e = bpf_map__pin(skel->maps.slot, KT_BPF_PIN "/slot");
	if (!e)
		e = bpf_map__pin(skel->maps.state, KT_BPF_PIN "/state");
	if (e)
		snprintf(why, len, "cannot pin the BPF maps: %s", strerror(-e));
out:
	if (e)
		kt_bpf_detach();
	kutrace_bpf__destroy(skel);
	btf__free(vb);
	return e;
}

void kt_bpf_print_stats(FILE *f, const char *prog_name)
{
	FILE *sy = fopen("/proc/sys/kernel/bpf_stats_enabled", "r");
	int on = 0;
	DIR *d;
	struct dirent *e;
	char p[512];

	if (sy) {
		if (fscanf(sy, "%d", &on) != 1)
			on = 0;
		fclose(sy);
	}
	if (on != 1 || !(d = opendir(KT_BPF_PIN)))
		return;
	while ((e = readdir(d))) {
		struct bpf_link_info li;
		struct bpf_prog_info pi;
		__u32 ll = sizeof(li), pl = sizeof(pi);
		int lfd, pfd;

		if (e->d_name[0] == '.' || !strcmp(e->d_name, "buf") ||
		    !strcmp(e->d_name, "slot") || !strcmp(e->d_name, "state"))
			continue;
		snprintf(p, sizeof(p), "%s/%s", KT_BPF_PIN, e->d_name);
		lfd = bpf_obj_get(p);
		if (lfd < 0)
			continue;
		memset(&li, 0, sizeof(li));
		memset(&pi, 0, sizeof(pi));
		if (!bpf_obj_get_info_by_fd(lfd, &li, &ll) &&
		    (pfd = bpf_prog_get_fd_by_id(li.prog_id)) >= 0) {
			if (!bpf_obj_get_info_by_fd(pfd, &pi, &pl) && pi.run_cnt)
				fprintf(f, "%s: bpf: %-24s %10llu runs %8.0f ns/run, "
					"%u insns\n", prog_name, e->d_name,
					(unsigned long long)pi.run_cnt,
					(double)pi.run_time_ns / (double)pi.run_cnt,
					pi.xlated_prog_len / 8);
			close(pfd);
		}
		close(lfd);
	}
	closedir(d);
}

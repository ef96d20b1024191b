// SPDX-License-Identifier: BSD-3-Clause
/*
 * kutrace_control - start, stop and save kutrace traces (docs/spec/FORMATS.md 7).
 *
 *   kutrace_control                 interactive "control> " prompt
 *   kutrace_control CMD [CMD ...]   the same commands as arguments
 *   kutrace_control 1 | 0           go and exit / stop and exit
 *   kutrace_control record [-o F] [--ipc] [--wrap] -- CMD ARGS
 *   kutrace_control record --stream -o DIR [--rotate-size S]
 *                   [--rotate-time T] [--max-files N] -- CMD ARGS
 *   kutrace_control stream -o DIR [...]   until SIGINT or SIGTERM
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "tool.h"
#include "kutrace/control.h"
#include "channel.h"
#include "bpfchan.h"
#ifdef KT_HAVE_BPF
#include "kt_bpf_load.h"
#endif

static const char *usage_text =
"usage: kutrace_control [--backend=module|bpf] [--tracemb=MB] [--user-kb=KB] [-force] [COMMAND ...]\n"
"       kutrace_control [--backend=...] record [-o FILE] [--ipc] [--wrap] -- CMD [ARGS]\n"
"       kutrace_control [--backend=...] record --stream -o DIR [--rotate-size SIZE]\n"
"                       [--rotate-time SECONDS] [--max-files N] [--ipc] -- CMD [ARGS]\n"
"       kutrace_control stream -o DIR [--rotate-size ...] (until SIGINT/SIGTERM)\n"
"       (record also takes --backend, --tracemb and --user-kb after it)\n"
"       kutrace_control 1 | 0        (go and exit | stop and exit)\n"
"\n"
"Without COMMAND, reads commands at the \"control> \" prompt.\n"
"Commands:\n"
"  go, goipc, gowrap, goipcwrap   reset (with IPC / wraparound), init, on\n"
"  stop [FILE]     off, flush, write the trace file, reset, exit\n"
"  init, on, off, flush, reset, stat, dump [FILE], test   single steps\n"
"  status          stat, and whether system call 1023 (the original\n"
"                  user library's channel) reaches the module\n"
"  wait N          sleep N seconds\n"
"  quit, exit      off and exit\n"
"  (empty line)    stat\n"
"record traces exactly the run of CMD and writes FILE (default\n"
"ku_<date>_<time>_<host>_<pid>.trace).\n"
"--stream writes the trace to DIR while tracing runs, as chunks\n"
"DIR/kt_000000.trace, kt_000001.trace, ... each a trace of its own, cut\n"
"every SIZE bytes (K, M, G: KiB, MiB, GiB) or SECONDS; --max-files keeps\n"
"the newest N.  Entries the disk or the reader could not keep are\n"
"counted per CPU, recorded in the trace and printed at the end (both backends).\n"
"Backends: the kutrace module when /dev/kutrace exists, else BPF (no\n"
"module: Secure Boot, lockdown, managed kernels; needs kernel BTF and\n"
"root); --backend forces one.  The BPF backend is set up by go/record\n"
"(buffer --tracemb MB, default 8) and removed by stop.\n"
"--user-kb=KB: user events (marks, RPCs, locks, names) go into a buffer of\n"
"KB per thread in shared memory (KUTRACE_USER_DIR, default "
KUTRACE_UDIR_DEFAULT ")\n"
"without a system call, and into the trace file after the kernel's blocks.\n"
#ifdef KT_HAVE_BPF
"backends: module bpf\n";
#else
"backends: module (built without BPF: tests/deps/bpf.apt)\n";
#endif

enum backend { BACKEND_AUTO, BACKEND_MODULE, BACKEND_BPF };
static enum backend backend = BACKEND_AUTO;
static unsigned int tracemb = 8;
static unsigned long user_kb;	/* --user-kb: each thread's user buffer */

static unsigned int cur_flags;
static const char *prog_name = "kutrace_control";

static int fail(const char *what, int e)
{
	fprintf(stderr, "%s: %s: %s\n", prog_name, what, kt_ctl_strerror(e));
	kt_ctl_explain(e, stderr);
	return e ? e : -1;
}

static int do_reset(unsigned int flags)
{
	unsigned int kept = 0;
	int e = kt_ctl_reset(flags, &kept);

	if (e)
		return fail("reset", e);
	if ((flags & KUTRACE_RESET_IPC) && !(kept & KUTRACE_RESET_IPC))
		fprintf(stderr, "%s: no IPC on this machine (no hardware "
			"counters); tracing without IPC\n", prog_name);
	if (flags & KUTRACE_RESET_LLC)
		fprintf(stderr, "%s: LLC misses are not supported; ignored\n",
			prog_name);
	cur_flags = kept;
	return 0;
}

static int do_go(unsigned int flags)
{
	int e = do_reset(flags);

	if (e)
		return e;
	e = kt_ctl_init("kutrace_control");
	if (e)
		return fail("init", e);
	e = kt_ctl_on();
	if (e)
		return fail("on", e);
	if (user_kb) {
		uint64_t words = KUTRACE_UBUF_MIN_RING;

		while (words * 8 < (uint64_t)user_kb * 1024 && words < KUTRACE_UBUF_MAX_RING)
			words *= 2;
		e = kt_ubuf_start(words, (flags & KUTRACE_RESET_WRAP) != 0);
		if (e)
			fprintf(stderr, "%s: no user buffers in %s (%s); user events take "
				"the system call\n", prog_name, kt_ubuf_dir(),
				e == -EPERM ? "not a directory of ours" : strerror(-e));
	}
	return 0;
}

static int do_dump(const char *name)
{
	struct kt_dump_info info;
	char def[512];
	int e;

	if (!name || !*name) {
		kt_ctl_trace_name("ku", def, sizeof(def));
		name = def;
	} else if (!strstr(name, ".trace")) {
		snprintf(def, sizeof(def), "%s.trace", name);
		name = def;
	}
	e = kt_ctl_dump(name, &info);
	if (e == -ENODATA) {
		fprintf(stderr, "%s: the trace buffer is empty; nothing "
			"written\n", prog_name);
		return e;
	}
	if (e) {
		fprintf(stderr, "%s: writing %s failed: %s; no trace file "
			"written\n", prog_name, name, kt_ctl_strerror(e));
		return e;
	}
	if (info.full)
		fprintf(stderr, "%s: the trace buffer filled up; tracing "
			"stopped early (use a larger tracemb or gowrap)\n",
			prog_name);
	if (info.wrapped) {
		uint64_t tb = 0;

		fprintf(stderr, "%s: the buffer wrapped around; the trace "
			"holds the newest data\n", prog_name);
		for (unsigned int c = 0; c < KUTRACE_MAX_CPUS; c++) {
			if (!info.lost_blocks[c])
				continue;
			fprintf(stderr, "%s: lost: cpu %u: 0 entries, %llu blocks "
				"(overwritten)\n", prog_name, c,
				(unsigned long long)info.lost_blocks[c]);
			tb += info.lost_blocks[c];
		}
		fprintf(stderr, "%s: lost: 0 entries, %llu blocks in all\n",
			prog_name, (unsigned long long)tb);
	}
	if (info.user.buffers || info.user.refused)
		fprintf(stderr, "%s: user buffers: %llu threads, %llu events lost "
			"(buffer full: a larger --user-kb), %llu files refused\n",
			prog_name, (unsigned long long)info.user.buffers,
			(unsigned long long)info.user.lost,
			(unsigned long long)info.user.refused);
	if (kt_ctl_via() == KT_CTL_BPF) {
		uint64_t retried = 0, abandoned = 0, lost = 0;

		if (!kt_bpf_chan_stats(&retried, &abandoned, &lost))
			fprintf(stderr, "%s: bpf: %llu claims retried after "
				"nested programs, %llu blocks abandoned, %llu "
				"entries lost\n", prog_name,
				(unsigned long long)retried,
				(unsigned long long)abandoned,
				(unsigned long long)lost);
#ifdef KT_HAVE_BPF
		kt_bpf_print_stats(stderr, prog_name);
#endif
	}
	printf("%s: wrote %s, %llu blocks, %llu bytes%s\n", prog_name, name,
	       (unsigned long long)info.blocks,
	       (unsigned long long)info.bytes, info.ipc ? ", with IPC" : "");
	fflush(stdout);
	return 0;
}

static int do_stat(void)
{
	uint64_t blocks = 0, on = 0;
	int e = kt_ctl_cmd(KUTRACE_CMD_STAT, 0, &blocks);

	if (!e)
		e = kt_ctl_cmd(KUTRACE_CMD_TEST, 0, &on);
	if (e)
		return fail("stat", e);
	printf("%llu blocks (%llu KB) in use, tracing %s\n",
	       (unsigned long long)blocks, (unsigned long long)blocks * 64,
	       on ? "on" : "off");
	fflush(stdout);
	return 0;
}

/* stat, and whether the original library's system call 1023 works. */
static int do_status(void)
{
	char why[256];
	int e = 0;

	if (backend != BACKEND_BPF && access(KUTRACE_DEVICE, F_OK) == 0) {
		printf("backend: module (%s)\n", KUTRACE_DEVICE);
		kt_ctl_prefer(KT_CTL_DEVICE);
	} else if (backend == BACKEND_MODULE) {
		printf("backend: module: not loaded (no %s)\n", KUTRACE_DEVICE);
		e = -ENOENT;
	} else {
#ifdef KT_HAVE_BPF
		const char *miss = kt_bpf_missing();

		kt_ctl_prefer(KT_CTL_BPF);
		if (miss) {
			printf("backend: none: no kutrace module and no BPF: %s\n",
			       miss);
			e = -ENOENT;
		} else if (!kt_bpf_pinned()) {
			printf("backend: bpf (available; go or record sets it up)\n");
			e = 1;
		} else {
			printf("backend: bpf (set up)\n");
		}
#else
		printf("backend: none: no kutrace module (this kutrace_control "
		       "has no BPF backend)\n");
		e = -ENOENT;
#endif
	}
	if (!e) {
		e = kt_ctl_open();
		e = e ? fail("status", e) : do_stat();
	} else if (e == 1) {
		e = 0;
	}

	/* The call answers or not; the module's parameter says how or why. */
	if (kt_ctl_sys1023(why, sizeof(why)))
		printf("system call 1023: %s\n",
		       strncmp(why, "served", 6) ? "served" : why);
	else if (!strncmp(why, "unavailable", 11))
		printf("system call 1023: %s\n", why);
	else
		printf("system call 1023: unavailable%s\n",
		       why[0] ? "" : " (kutrace_mod not loaded)");
	fflush(stdout);
	return e;
}

static int go_flags(const char *cmd, unsigned int *flags)
{
	const char *p;

	if (strncmp(cmd, "go", 2))
		return 0;
	*flags = 0;
	p = cmd + 2;
	while (*p) {
		if (!strncmp(p, "ipc", 3)) {
			*flags |= KUTRACE_RESET_IPC;
			p += 3;
		} else if (!strncmp(p, "llc", 3)) {
			*flags |= KUTRACE_RESET_LLC;
			p += 3;
		} else if (!strncmp(p, "wrap", 4)) {
			*flags |= KUTRACE_RESET_WRAP;
			p += 4;
		} else {
			return 0;
		}
	}
	return 1;
}

/* After stop: the BPF backend's programs and buffer go. */
static void bpf_teardown(void)
{
#ifdef KT_HAVE_BPF
	if (kt_ctl_via() == KT_CTL_BPF) {
		kt_ctl_close();
		kt_bpf_detach();
	}
#endif
}

/*
 * Choose the backend: the module when /dev/kutrace exists (or forced),
 * else BPF, set up here when tracing is to start (starting).  0, or an
 * error already printed in one line naming what is missing.
 */
static int choose_backend(int starting)
{
	char dev[4096];
	int have_dev;

	snprintf(dev, sizeof(dev), "%s%s", kt_sysroot(), KUTRACE_DEVICE);
	have_dev = access(dev, F_OK) == 0;
	/* Under $KUTRACE_SYSROOT (tests of the module's diagnostics): no BPF. */
	if (backend == BACKEND_MODULE ||
	    (backend == BACKEND_AUTO && (have_dev || kt_sysroot()[0]))) {
		kt_ctl_prefer(KT_CTL_DEVICE);
		return 0;
	}
#ifdef KT_HAVE_BPF
	{
		char why[512];
		int e;

		if (kt_bpf_pinned()) {
			kt_ctl_prefer(KT_CTL_BPF);
			return 0;
		}
		if (!starting && backend == BACKEND_AUTO) {
			/* nothing set up: the module's diagnostics say why */
			kt_ctl_prefer(KT_CTL_DEVICE);
			return 0;
		}
		if (!starting) {
			fprintf(stderr, "%s: no BPF backend set up "
				"(kutrace_control go sets it up)\n", prog_name);
			return -ENOENT;
		}
		e = kt_bpf_attach(tracemb, why, sizeof(why));
		if (e && backend == BACKEND_AUTO) {
			fprintf(stderr, "%s: BPF backend unavailable: %s\n",
				prog_name, why);
			kt_ctl_prefer(KT_CTL_DEVICE);	/* and why no module */
			return 0;
		}
		if (e) {
			fprintf(stderr, "%s: BPF backend: %s\n", prog_name, why);
			return e;
		}
		kt_ctl_prefer(KT_CTL_BPF);
		return 0;
	}
#else
	(void)starting;
	if (backend == BACKEND_BPF) {
		fprintf(stderr, "%s: this kutrace_control was built without "
			"the BPF backend (needs clang, bpftool, libbpf-dev)\n",
			prog_name);
		return -ENOTSUP;
	}
	kt_ctl_prefer(KT_CTL_DEVICE);
	return 0;
#endif
}

/* One command.  Returns 0 ok, <0 error, 1 = exit requested. */
static int command(const char *cmd, const char *arg)
{
	unsigned int flags;
	uint64_t r = 0;
	int e;

	if (!*cmd)
		return do_stat();
	if (go_flags(cmd, &flags))
		return do_go(flags);
	if (!strcmp(cmd, "stop")) {
		e = do_dump(arg);
		kt_ctl_reset(0, NULL);
		bpf_teardown();
		return e ? e : 1;
	}
	if (!strcmp(cmd, "dump"))
		return do_dump(arg);
	if (!strcmp(cmd, "init")) {
		e = kt_ctl_init("kutrace_control");
		return e ? fail("init", e) : 0;
	}
	if (!strcmp(cmd, "on")) {
		e = kt_ctl_on();
		return e ? fail("on", e) : 0;
	}
	if (!strcmp(cmd, "off")) {
		e = kt_ctl_off();
		return e ? fail("off", e) : 0;
	}
	if (!strcmp(cmd, "flush")) {
		e = kt_ctl_cmd(KUTRACE_CMD_FLUSH, 0, &r);
		return e ? fail("flush", e) : 0;
	}
	if (!strcmp(cmd, "reset"))
		return do_reset(cur_flags);
	if (!strcmp(cmd, "stat"))
		return do_stat();
	if (!strcmp(cmd, "status"))
		return do_status();
	if (!strcmp(cmd, "test")) {
		e = kt_ctl_cmd(KUTRACE_CMD_TEST, 0, &r);
		if (e)
			return fail("test", e);
		printf("tracing %s\n", r ? "on" : "off");
		return 0;
	}
	if (!strcmp(cmd, "wait")) {
		sleep(arg ? (unsigned int)atoi(arg) : 1);
		return 0;
	}
	if (!strcmp(cmd, "quit") || !strcmp(cmd, "exit")) {
		kt_ctl_cmd(KUTRACE_CMD_OFF, 0, NULL);
		return 1;
	}
	fprintf(stderr, "%s: unknown command '%s' (try --help)\n", prog_name,
		cmd);
	return -EINVAL;
}

static int takes_arg(const char *cmd)
{
	return !strcmp(cmd, "stop") || !strcmp(cmd, "dump") ||
	       !strcmp(cmd, "wait");
}

static int interactive(void)
{
	char line[1024];
	int r = 0;

	for (;;) {
		char *cmd, *arg;

		fputs("control> ", stdout);
		fflush(stdout);
		if (!fgets(line, sizeof(line), stdin))
			break;
		cmd = strtok(line, " \t\n");
		arg = cmd ? strtok(NULL, " \t\n") : NULL;
		r = command(cmd ? cmd : "", arg);
		if (r == 1)
			return 0;
	}
	return r < 0 ? 1 : 0;
}

static int open_or_die(int starting)
{
	int e = choose_backend(starting);
	uint64_t v = 0;

	if (e)
		return e;
	e = kt_ctl_open();
	if (e)
		return fail("cannot control kutrace", e);
	e = kt_ctl_cmd(KUTRACE_CMD_VERSION, 0, &v);
	if (e)
		return fail("version", e);
	if (v < 3) {
		fprintf(stderr, "%s: module version %llu is too old\n",
			prog_name, (unsigned long long)v);
		return -EINVAL;
	}
	return 0;
}

/* --backend=... and --tracemb=N: 1 if arg is one (and taken), else 0. */
static int global_option(const char *arg)
{
	if (!strcmp(arg, "--backend=module"))
		backend = BACKEND_MODULE;
	else if (!strcmp(arg, "--backend=bpf"))
		backend = BACKEND_BPF;
	else if (!strncmp(arg, "--tracemb=", 10) && atoi(arg + 10) > 0)
		tracemb = (unsigned int)atoi(arg + 10);
	else if (!strncmp(arg, "--user-kb=", 10) && atol(arg + 10) >= 0)
		user_kb = (unsigned long)atol(arg + 10);
	else
		return 0;
	return 1;
}

/* SIZE with an optional K, M or G (powers of 1024); -1 and a message if bad. */
static long long parse_size(const char *opt, const char *s)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (end == s || errno || v <= 0) {
		fprintf(stderr, "%s: %s %s: not a positive size\n", prog_name,
			opt, s);
		return -1;
	}
	if (*end && end[1] == 0 && strchr("kKmMgG", *end)) {
		v <<= *end == 'k' || *end == 'K' ? 10 :
		      *end == 'm' || *end == 'M' ? 20 : 30;
	} else if (*end) {
		fprintf(stderr, "%s: %s %s: unknown unit '%s' (use K, M or G)\n",
			prog_name, opt, s, end);
		return -1;
	}
	return v;
}

static long long parse_count(const char *opt, const char *s)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (end == s || *end || errno || v <= 0 || v > 1000000000) {
		fprintf(stderr, "%s: %s %s: not a positive whole number\n",
			prog_name, opt, s);
		return -1;
	}
	return v;
}

/* Stream options; 1 taken (with *i advanced), 0 not ours, -1 bad (printed). */
static int stream_option(int argc, char **argv, int *i,
			 struct kt_stream_opts *o, int *stream)
{
	const char *a = argv[*i];
	long long v;

	if (!strcmp(a, "--stream")) {
		*stream = 1;
		return 1;
	}
	if (strcmp(a, "--rotate-size") && strcmp(a, "--rotate-time") &&
	    strcmp(a, "--max-files"))
		return 0;
	if (*i + 1 >= argc) {
		fprintf(stderr, "%s: %s needs a value\n", prog_name, a);
		return -1;
	}
	if (!strcmp(a, "--rotate-size")) {
		v = parse_size(a, argv[*i + 1]);
		o->rotate_bytes = (uint64_t)v;
	} else {
		v = parse_count(a, argv[*i + 1]);
		if (!strcmp(a, "--rotate-time"))
			o->rotate_sec = (unsigned int)v;
		else
			o->max_files = (unsigned int)v;
	}
	if (v < 0)
		return -1;
	*stream = 1;
	(*i)++;
	return 1;
}

static int check_dir(const char *dir)
{
	struct stat st;

	if (!dir) {
		fprintf(stderr, "%s: --stream needs -o DIR\n", prog_name);
		return -1;
	}
	if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
		fprintf(stderr, "%s: -o %s: %s\n", prog_name, dir,
			stat(dir, &st) != 0 ? "no such directory" : "not a directory");
		return -1;
	}
	if (access(dir, W_OK | X_OK) != 0) {
		fprintf(stderr, "%s: -o %s: not writable\n", prog_name, dir);
		return -1;
	}
	return 0;
}

static volatile sig_atomic_t stream_stop;
static double setup_cpu;	/* s of CPU before streaming (BPF: loading) */

static void on_stop_signal(int sig)
{
	(void)sig;
	stream_stop = 1;
}

/* Reset for streaming and start; 0, or 1 with the reason printed. */
static int stream_go(struct kt_stream_opts *o, unsigned int flags)
{
	int e;

	if (user_kb) {
		fprintf(stderr, "%s: --stream and --user-kb do not go together "
			"yet\n", prog_name);
		return 1;
	}
	if (kt_ctl_via() != KT_CTL_DEVICE && kt_ctl_via() != KT_CTL_BPF) {
		fprintf(stderr, "%s: --stream needs the kutrace module (%s) "
			"or the BPF backend\n", prog_name, KUTRACE_DEVICE);
		return 1;
	}
	if (do_reset(flags | KUTRACE_RESET_STREAM)) {
		bpf_teardown();
		return 1;
	}
	if (!(cur_flags & KUTRACE_RESET_STREAM)) {
		fprintf(stderr, "%s: this %s cannot stream (too old: %s)\n",
			prog_name, kt_ctl_via() == KT_CTL_BPF ?
			"BPF backend" : "kutrace module",
			kt_ctl_via() == KT_CTL_BPF ? "kutrace_control stop, "
			"then again" : "load the one of this kutrace");
		kt_ctl_reset(0, NULL);
		bpf_teardown();
		return 1;
	}
	o->flags = cur_flags;
	o->process_name = "kutrace_control";
	setup_cpu = kt_cpu_secs();
	e = kt_stream_begin(o);
	if (e) {
		fail("stream", e);
		kt_ctl_reset(0, NULL);
		bpf_teardown();
		return 1;
	}
	return 0;
}

/* Stop, write the rest, say what was written and what was lost. */
static int stream_end(const char *dir)
{
	struct kt_stream_info in;
	uint64_t te = 0, tb = 0;
	int e = kt_stream_end(&in);

	for (unsigned int c = 0; c < KT_STREAM_MAX_CPUS; c++) {
		if (!in.lost_entries[c] && !in.lost_blocks[c])
			continue;
		fprintf(stderr, "%s: lost: cpu %u: %llu entries, %llu blocks\n",
			prog_name, c, (unsigned long long)in.lost_entries[c],
			(unsigned long long)in.lost_blocks[c]);
		te += in.lost_entries[c];
		tb += in.lost_blocks[c];
	}
	fprintf(stderr, "%s: lost: %llu entries, %llu blocks in all%s\n",
		prog_name, (unsigned long long)te, (unsigned long long)tb,
		in.disk_full ? " (writing failed: see above)" : "");
	printf("%s: wrote %llu chunks in %s, %llu blocks, %llu bytes\n",
	       prog_name, (unsigned long long)in.chunks, dir,
	       (unsigned long long)in.blocks, (unsigned long long)in.bytes);
	/* The reader's cost: CPU of one core per 10 MB/s written (issue 44),
	 * without the backend's setup (loading the BPF programs). */
	if (in.bytes) {
		double cpu = kt_cpu_secs() - setup_cpu;

		printf("%s: reader: %.3f s of CPU for %.1f MB: %.2f %% of a core "
		       "per 10 MB/s\n", prog_name, cpu, (double)in.bytes / 1e6,
		       cpu * 10 / ((double)in.bytes / 1e6) * 100);
	}
	fflush(stdout);
	kt_ctl_reset(0, NULL);
	bpf_teardown();
	if (e)
		fail("stream", e);
	return e ? 1 : 0;
}

/* Write until the child ends (pid > 0) or a signal asks (pid 0). */
static int stream_loop(pid_t pid, int *st)
{
	struct timespec nap = { 0, 20 * 1000 * 1000 };
	int e = 0;

	for (;;) {
		if (pid > 0) {
			pid_t w = waitpid(pid, st, WNOHANG);

			if (w == pid || (w < 0 && errno != EINTR))
				break;
		} else if (stream_stop) {
			break;
		}
		e = kt_stream_pump();
		if (e) {
			fail("stream", e);
			break;
		}
		nanosleep(&nap, NULL);
	}
	if (e && pid > 0)
		while (waitpid(pid, st, 0) < 0 && errno == EINTR)
			;
	return e;
}

/* kutrace_control stream -o DIR [...]: stream until SIGINT or SIGTERM. */
static int stream_cmd(int argc, char **argv)
{
	struct kt_stream_opts o = { 0 };
	const char *out = NULL;
	int stream = 1, e;

	for (int i = 0; i < argc; i++) {
		int r = stream_option(argc, argv, &i, &o, &stream);

		if (r < 0)
			return 2;
		if (r)
			continue;
		if (!strcmp(argv[i], "-o") && i + 1 < argc) {
			out = argv[++i];
		} else if (!global_option(argv[i])) {
			fprintf(stderr, "%s: stream: unknown option %s\n",
				prog_name, argv[i]);
			return 2;
		}
	}
	o.dir = out;
	if (check_dir(out))
		return 2;
	if (open_or_die(1) || stream_go(&o, 0))
		return 1;
	signal(SIGINT, on_stop_signal);
	signal(SIGTERM, on_stop_signal);
	e = stream_loop(0, NULL);
	return stream_end(out) || e ? 1 : 0;
}

static int record(int argc, char **argv)
{
	struct kt_stream_opts so = { 0 };
	const char *out = NULL;
	unsigned int flags = 0;
	int i, st, e, stream = 0, r;
	pid_t pid;

	for (i = 0; i < argc; i++) {
		r = stream_option(argc, argv, &i, &so, &stream);
		if (r < 0)
			return 2;
		if (r)
			continue;
		if (!strcmp(argv[i], "--")) {
			i++;
			break;
		} else if (!strcmp(argv[i], "-o") && i + 1 < argc) {
			out = argv[++i];
		} else if (!strcmp(argv[i], "--ipc")) {
			flags |= KUTRACE_RESET_IPC;
		} else if (!strcmp(argv[i], "--wrap")) {
			flags |= KUTRACE_RESET_WRAP;
		} else if (global_option(argv[i])) {
			/* also after record: kutrace record --backend=bpf -- CMD */
		} else if (argv[i][0] == '-') {
			fprintf(stderr, "%s: record: unknown option %s\n%s",
				prog_name, argv[i], usage_text);
			return 2;
		} else {
			break;
		}
	}
	if (i >= argc) {
		fprintf(stderr, "%s: record: no command given\n%s", prog_name,
			usage_text);
		return 2;
	}
	if (stream) {
		if ((flags & KUTRACE_RESET_WRAP)) {
			fprintf(stderr, "%s: record: --stream and --wrap do not go "
				"together\n", prog_name);
			return 2;
		}
		so.dir = out;
		if (check_dir(out))
			return 2;
		if (open_or_die(1) || stream_go(&so, flags))
			return 1;
		/* The device stays ours: the program's marks take system call 1023. */
		pid = fork();
		if (pid < 0) {
			perror("fork");
			kt_stream_end(&(struct kt_stream_info){ 0 });
			return 1;
		}
		if (pid == 0) {
			kt_ctl_close();
			execvp(argv[i], argv + i);
			fprintf(stderr, "%s: cannot run %s: %s\n", prog_name,
				argv[i], strerror(errno));
			_exit(127);
		}
		signal(SIGINT, SIG_IGN);
		e = stream_loop(pid, &st);
		if (stream_end(out) || e)
			return 1;
		if (WIFEXITED(st))
			return WEXITSTATUS(st);
		return 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
	}
	if (open_or_die(1))
		return 1;
	if (do_go(flags)) {
		bpf_teardown();
		return 1;
	}
	/* Let the traced program mark itself through /dev/kutrace. */
	kt_ctl_close();
	pid = fork();
	if (pid < 0) {
		perror("fork");
		return 1;
	}
	if (pid == 0) {
		execvp(argv[i], argv + i);
		fprintf(stderr, "%s: cannot run %s: %s\n", prog_name, argv[i],
			strerror(errno));
		_exit(127);
	}
	signal(SIGINT, SIG_IGN);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	e = kt_ctl_open();
	if (e)
		return fail("cannot reopen " KUTRACE_DEVICE, e) ? 1 : 1;
	e = do_dump(out);
	kt_ctl_reset(0, NULL);
	bpf_teardown();
	if (e)
		return 1;
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	return 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

/* Do these commands start tracing (then the BPF backend is set up)? */
static int starts_tracing(int argc, char **argv)
{
	unsigned int f;

	for (int i = 0; i < argc; i++)
		if (go_flags(argv[i], &f) || !strcmp(argv[i], "1") ||
		    !strcmp(argv[i], "on") || !strcmp(argv[i], "init"))
			return 1;
	return 0;
}

int main(int argc, char **argv)
{
	int i, r = 0;

	kt_set_progname(argv[0]);
	if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		fputs(usage_text, stdout);
		return 0;
	}
	while (argc > 1 && !strncmp(argv[1], "--", 2) && argv[1][2]) {
		if (!global_option(argv[1])) {
			fprintf(stderr, "%s: unknown option %s (try --help)\n",
				prog_name, argv[1]);
			return 2;
		}
		argv[1] = argv[0];
		argv++;
		argc--;
	}
	if (argc > 1 && !strcmp(argv[1], "record"))
		return record(argc - 2, argv + 2);
	if (argc > 1 && !strcmp(argv[1], "stream"))
		return stream_cmd(argc - 2, argv + 2);
	/* Also for a user who may not open the device. */
	if (argc == 2 && !strcmp(argv[1], "status"))
		return do_status() ? 1 : 0;
	i = 1;
	if (argc > 1 && !strcmp(argv[1], "-force")) {
		int e = choose_backend(0);

		if (!e)
			e = kt_ctl_open();

		if (e)
			return fail("cannot control kutrace", e) ? 1 : 1;
		kt_ctl_reset(0, NULL);
		i = 2;
	} else if (open_or_die(i >= argc || starts_tracing(argc - i,
							  argv + i))) {
		return 1;
	}
	if (i >= argc)
		return interactive();
	if (argc == i + 1 && !strcmp(argv[i], "1"))
		return command("go", NULL) ? 1 : 0;
	if (argc == i + 1 && !strcmp(argv[i], "0"))
		return command("stop", NULL) == 1 ? 0 : 1;
	for (; i < argc; i++) {
		const char *arg = NULL;

		if (takes_arg(argv[i]) && i + 1 < argc &&
		    (strcmp(argv[i], "wait") || atoi(argv[i + 1]) > 0) &&
		    !go_flags(argv[i + 1], &(unsigned int){ 0 }))
			arg = argv[++i];
		r = command(argv[i - (arg != NULL)], arg);
		if (r == 1)
			return 0;
		if (r < 0)
			return 1;
	}
	return 0;
}

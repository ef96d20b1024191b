// SPDX-License-Identifier: BSD-3-Clause
/*
 * kutrace_flight - the flight recorder: trace without end, keep a ring of
 * the newest chunks, and save snapshots of the moments that matter, on
 * demand and on triggers (docs/spec/FORMATS.md 11, docs/USER.md).
 *
 *   kutrace_flight [--trigger SPEC]... [--before S] [--after S] [-o DIR]
 *                  [--max-snapshots N] [--min-interval S] [--spool DIR]
 *                  [--spool-mb MB] [--chunk-ms MS] [--socket PATH]
 *                  [-- CMD [ARGS]]
 *   kutrace_flight snapshot [-o FILE] [--socket PATH]
 *   kutrace_flight check [--trigger SPEC]... CHUNK...
 *
 * The recorder streams (libkutrace/stream.c) into a spool directory, cut
 * every --chunk-ms; each chunk, as it closes, is decoded here (lib/decode)
 * and the triggers are checked on it, so the traced CPUs pay nothing for
 * them.  Chunks older than any snapshot could want are deleted: the spool
 * is the ring.  A snapshot is the chunks over its window, back to back in
 * one file (FORMATS 10.2 "Joining"), written as a temporary file and
 * renamed.  `snapshot` asks a running recorder over its unix socket and
 * waits for the file's name; SIGUSR2 asks too (as perf record does).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <dirent.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <linux/netlink.h>
#include <linux/connector.h>
#include <linux/cn_proc.h>

#include "tool.h"
#include "channel.h"
#include "libkutrace-local.h"
#ifdef KT_HAVE_BPF
#include "kt_bpf_load.h"
#endif

static const char *usage_text =
"usage: kutrace_flight [--trigger SPEC]... [--before S] [--after S] [-o DIR]\n"
"                      [--max-snapshots N] [--min-interval S] [--spool DIR]\n"
"                      [--spool-mb MB] [--chunk-ms MS] [--socket PATH] [--max-disk-mb MB]\n"
"                      [--config FILE] [--backend module|bpf] [-- CMD [ARGS]]\n"
"       kutrace_flight snapshot [-o FILE] [--socket PATH]\n"
"       kutrace_flight check [--trigger SPEC]... CHUNK...\n"
"\n"
"Traces until SIGINT or SIGTERM (or until CMD ends), keeping the newest\n"
"chunks in a spool (default /dev/shm/kutrace-flight-PID, at most --spool-mb\n"
"MB, default 256), and writes a snapshot, one trace file of the chunks\n"
"over its window, into DIR (default /var/lib/kutrace as root, else .):\n"
"  - on demand: `kutrace_flight snapshot` (or SIGUSR2) saves what the\n"
"    spool holds now; it prints the file's name once it is on disk;\n"
"  - when a program calls kutrace_trigger(\"reason\");\n"
"  - on each --trigger:\n"
"      syscall:NAME>DUR   one system call NAME longer than DUR (entry to\n"
"                         return of one thread)\n"
"      rpc>DUR, rpc:METHOD>DUR   one RPC (request to response) longer\n"
"      crash              a process dying of a signal that dumps core\n"
"                         (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, ...)\n"
"      exit:COMM          a process named COMM exiting\n"
"    DUR is a number with ns, us, ms or s.\n"
"A trigger's snapshot holds --before seconds (default 2) before the\n"
"triggering interval, the interval, and --after seconds (default 1) after\n"
"it; it is cut when --after ends.  --max-snapshots N: at most N snapshots\n"
"of triggers (0: no limit); --min-interval S (default 5) skips triggers\n"
"within S seconds of the last one saved.  --chunk-ms (default 250) is how often the\n"
"trace is cut and the triggers checked.  --socket PATH: where snapshot\n"
"asks (default /run/kutrace-flight.sock as root, else\n"
"/tmp/kutrace-flight-UID.sock).  --max-disk-mb MB: the oldest snapshots in\n"
"DIR go once they hold more.  --config FILE: each line `key = value` is the\n"
"option --key value (/etc/kutrace/recorder.conf, kutrace-recorder.service);\n"
"the command line's options come after it.  --backend: the kutrace module\n"
"(the default where /dev/kutrace is), else the BPF backend, set up for the\n"
"recording and taken down after it.\n"
"check: the triggers on chunks already written (kutrace_control --stream),\n"
"as the recorder checks them: what fires, and the CPU it costs.\n";

#define MAX_TRIGGERS	16
#define TABLE_SLOTS	8192	/* threads with a call or RPC open */

enum { T_SYSCALL = KUTRACE_TRIG_SYSCALL, T_RPC = KUTRACE_TRIG_RPC,
       T_CRASH = KUTRACE_TRIG_CRASH, T_EXIT = KUTRACE_TRIG_EXIT };

struct trigger {
	int kind;
	const char *spec;	/* as given */
	int event;		/* T_SYSCALL: its call event */
	char what[80];		/* syscall name, RPC method or COMM ("" any) */
	double bound_us;
};

/* A closed chunk in the spool. */
struct chunk {
	char *path;
	uint64_t n, bytes, start_ctr, stop_ctr;
};

/* A snapshot waiting for its --after to end. */
struct pending {
	int kind;
	uint64_t from, due;	/* counter: window start, window end */
	uint64_t after_end;	/* the end of --after (due may be later) */
	char reason[KUTRACE_TRIGGER_TEXT + 1];
	char tag[48];		/* for the file name */
	int client;		/* on demand: the asker's socket, -1 none */
	char out[PATH_MAX];	/* on demand: the file asked for, "" default */
};

/* A call or RPC open on a thread (open addressing by pid). */
struct open_call {
	int pid;		/* 0: free */
	int event;
	uint64_t start;		/* counter */
	const char *name;	/* an RPC's request point's "method.id" */
};

static struct {
	struct trigger trig[MAX_TRIGGERS];
	int ntrig;
	double before_s, after_s, min_interval_s;
	long max_snapshots;
	const char *outdir;
	uint64_t disk_cap;	/* --max-disk-mb: bytes of snapshots kept, 0 all */
	const char *backend;	/* --backend: "module", "bpf", NULL either */
	int bpf;		/* the BPF backend was set up here */
	double cpu0;		/* CPU seconds spent before streaming began */
	char spool[PATH_MAX];
	int own_spool;
	uint64_t spool_cap;
	unsigned int chunk_ms;
	char sock_path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	int lsock, nl;
	double ticks_per_us;
	struct chunk *ring;
	size_t nring, ring_cap;
	uint64_t ring_bytes, last_stop;
	struct pending *pend;
	size_t npend, pend_cap;
	long snapshots, seq;
	long trig_saved;	/* snapshots of triggers (--max-snapshots) */
	uint64_t last_fire;
	int fired_once;
	int warned_cap;
	struct open_call sys[TABLE_SLOTS], rpc[TABLE_SLOTS];
	char comm[TABLE_SLOTS][16];
	int comm_pid[TABLE_SLOTS];
	int check_only;		/* kutrace_flight check: say what fires */
} F = { .lsock = -1, .nl = -1 };

static const char *prog = "kutrace_flight";
static volatile sig_atomic_t stop_flag, demand_flag;

static void on_stop(int sig)
{
	(void)sig;
	stop_flag = 1;
}

static void on_usr2(int sig)
{
	(void)sig;
	demand_flag = 1;
}

static int bad(const char *fmt, const char *a, const char *b)
{
	fprintf(stderr, "%s: ", prog);
	fprintf(stderr, fmt, a, b);
	fputc('\n', stderr);
	return -1;
}

/* ------------------------------------------------------------------ */
/* Options                                                              */
/* ------------------------------------------------------------------ */

/* "50ms", "1.5s", "200us", "10ns" in usec; -1 if not that. */
static double parse_dur(const char *s)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || errno || !(v > 0) || !isfinite(v))
		return -1;
	if (!strcmp(end, "s"))
		return v * 1e6;
	if (!strcmp(end, "ms"))
		return v * 1e3;
	if (!strcmp(end, "us"))
		return v;
	if (!strcmp(end, "ns"))
		return v / 1e3;
	return -1;
}

static int syscall_event(const char *name)
{
	for (int nr = 0; nr <= KUTRACE_MAX_SYSCALL; nr++) {
		const char *s = kt_syscall_name(nr);

		if (s && !strcmp(s, name))
			return KUTRACE_SYSCALL64 + (int)kutrace_map_syscall((unsigned int)nr);
	}
	return -1;
}

/* One --trigger SPEC; 0, or -1 with the line printed. */
static int parse_trigger(const char *spec)
{
	struct trigger *t = &F.trig[F.ntrig];
	const char *gt = strchr(spec, '>');
	char head[80];

	if (F.ntrig >= MAX_TRIGGERS)
		return bad("--trigger '%s': at most 16 triggers%s", spec, "");
	memset(t, 0, sizeof(*t));
	t->spec = spec;
	if (!strcmp(spec, "crash")) {
		t->kind = T_CRASH;
	} else if (!strncmp(spec, "exit:", 5)) {
		t->kind = T_EXIT;
		if (!spec[5] || strlen(spec + 5) > 15)
			return bad("--trigger '%s': exit:COMM needs a process name of "
				   "1 to 15 bytes%s", spec, "");
		snprintf(t->what, sizeof(t->what), "%s", spec + 5);
	} else if (gt && (!strncmp(spec, "syscall:", 8) || !strncmp(spec, "rpc", 3))) {
		size_t hl = (size_t)(gt - spec);

		if (hl >= sizeof(head))
			return bad("--trigger '%s': name too long%s", spec, "");
		memcpy(head, spec, hl);
		head[hl] = 0;
		if (!gt[1])
			return bad("--trigger '%s': no duration after '>'%s", spec, "");
		t->bound_us = parse_dur(gt + 1);
		if (t->bound_us < 0)
			return bad("--trigger '%s': '%s' is not a positive duration "
				   "(a number with ns, us, ms or s)", spec, gt + 1);
		if (!strncmp(head, "syscall:", 8)) {
			t->kind = T_SYSCALL;
			snprintf(t->what, sizeof(t->what), "%s", head + 8);
			t->event = syscall_event(t->what);
			if (t->event < 0)
				return bad("--trigger '%s': no system call named '%s'",
					   spec, t->what);
		} else if (!strcmp(head, "rpc") || !strncmp(head, "rpc:", 4)) {
			t->kind = T_RPC;
			snprintf(t->what, sizeof(t->what), "%s", head[3] ? head + 4 : "");
			if (head[3] && !t->what[0])
				return bad("--trigger '%s': rpc: needs a method name%s",
					   spec, "");
		} else {
			return bad("--trigger '%s': unknown trigger '%s' (syscall:NAME>DUR, "
				   "rpc>DUR, rpc:METHOD>DUR, crash, exit:COMM)", spec, head);
		}
	} else {
		return bad("--trigger '%s': unknown trigger (syscall:NAME>DUR, "
			   "rpc>DUR, rpc:METHOD>DUR, crash, exit:COMM)%s", spec, "");
	}
	F.ntrig++;
	return 0;
}

/* Seconds, 0 allowed; -1 with the line printed. */
static double parse_secs(const char *opt, const char *s)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || *end || errno || !(v >= 0) || v > 86400)
		return bad("%s %s: not a number of seconds (0 to 86400)", opt, s);
	return v;
}

static long parse_long(const char *opt, const char *s, long lo, long hi)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (end == s || *end || errno || v < lo || v > hi) {
		fprintf(stderr, "%s: %s %s: not a whole number from %ld to %ld\n",
			prog, opt, s, lo, hi);
		return -1;
	}
	return v;
}

static int is_dir(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static void default_socket(char *buf, size_t len)
{
	if (geteuid() == 0 && is_dir("/run"))
		snprintf(buf, len, "/run/kutrace-flight.sock");
	else
		snprintf(buf, len, "/tmp/kutrace-flight-%u.sock", (unsigned int)geteuid());
}

static int check_dir(const char *opt, const char *dir)
{
	struct stat st;

	if (stat(dir, &st) != 0)
		return bad("%s %s: no such directory", opt, dir);
	if (!S_ISDIR(st.st_mode))
		return bad("%s %s: not a directory", opt, dir);
	if (access(dir, W_OK | X_OK) != 0)
		return bad("%s %s: not writable", opt, dir);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Time                                                                 */
/* ------------------------------------------------------------------ */

static uint64_t secs_ticks(double s)
{
	return (uint64_t)(s * 1e6 * F.ticks_per_us);
}

/* Ticks per usec now, from two time pairs 20 ms apart. */
static void measure_rate(void)
{
	uint64_t c0, u0, c1, u1;
	struct timespec nap = { 0, 20 * 1000 * 1000 };

	kt_ctl_time_pair(&c0, &u0);
	nanosleep(&nap, NULL);
	kt_ctl_time_pair(&c1, &u1);
	F.ticks_per_us = u1 > u0 && c1 > c0 ? (double)(c1 - c0) / (double)(u1 - u0) : 1.0;
}

/* An event time (nsec10 of the decoder's time base) as a counter value. */
static uint64_t ns10_ticks(const struct kt_timebase *tb, int64_t t)
{
	return (uint64_t)((double)tb->cm + (double)t / (tb->slope_us * 100.0));
}

/* ------------------------------------------------------------------ */
/* Firing and snapshots                                                 */
/* ------------------------------------------------------------------ */

static void sanitize(char *s)
{
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '-' || *s == '_' || *s == '.'))
			*s = '_';
}

static struct pending *new_pending(void)
{
	if (F.npend == F.pend_cap) {
		F.pend_cap = F.pend_cap ? 2 * F.pend_cap : 8;
		F.pend = kt_xrealloc(F.pend, F.pend_cap * sizeof(*F.pend));
	}
	memset(&F.pend[F.npend], 0, sizeof(F.pend[0]));
	F.pend[F.npend].client = -1;
	return &F.pend[F.npend++];
}

/* Put the mark into the trace (FORMATS 11.1): the recorder's own kinds. */
static void insert_mark(int kind, uint64_t start, uint64_t end, const char *reason)
{
	uint64_t w[KUTRACE_TRIGGER_WORDS] = { 0 };
	size_t n = strlen(reason);

	w[0] = kutrace_make_word(KUTRACE_TRIGGER_EVENT, (uint64_t)kind);
	w[1] = start & KUTRACE_HDR_LOW56;
	w[2] = end & KUTRACE_HDR_LOW56;
	memcpy(&w[3], reason, n > KUTRACE_TRIGGER_TEXT ? KUTRACE_TRIGGER_TEXT : n);
	kt_ctl_cmd(KUTRACE_IOC_INSERTN_FORCED_NR, (uint64_t)(uintptr_t)w, NULL);
}

/*
 * A trigger fired over [start, end] (counter): a snapshot from --before
 * before start to --after after end, unless the limits say no.
 */
static void fire(int kind, uint64_t start, uint64_t end, const char *tag,
		 const char *reason)
{
	double ms = (double)(end - start) / F.ticks_per_us / 1e3;

	if (F.check_only) {
		printf("trigger %s (%.3f ms)\n", reason, ms);
		return;
	}

	long queued = 0;

	for (size_t i = 0; i < F.npend; i++)
		queued += F.pend[i].kind != KUTRACE_TRIG_DEMAND;
	if (F.max_snapshots && F.trig_saved + queued >= F.max_snapshots) {
		printf("%s: trigger %s: not saved (--max-snapshots %ld reached)\n",
		       prog, reason, F.max_snapshots);
		fflush(stdout);
		return;
	}
	if (F.fired_once && start < F.last_fire + secs_ticks(F.min_interval_s) &&
	    start + secs_ticks(F.min_interval_s) > F.last_fire) {
		printf("%s: trigger %s: not saved (within --min-interval %g s)\n",
		       prog, reason, F.min_interval_s);
		fflush(stdout);
		return;
	}
	F.fired_once = 1;
	F.last_fire = start;
	if (kind != KUTRACE_TRIG_CALL)
		insert_mark(kind, start, end, reason);

	struct pending *p = new_pending();
	uint64_t b = secs_ticks(F.before_s);

	p->kind = kind;
	p->from = start > b ? start - b : 0;
	p->due = end + secs_ticks(F.after_s);
	p->after_end = p->due;
	/* The mark just put in must be in it, however late this was found. */
	uint64_t now = kt_ctl_now();

	if (kind != KUTRACE_TRIG_CALL && p->due < now)
		p->due = now;
	snprintf(p->reason, sizeof(p->reason), "%s", reason);
	snprintf(p->tag, sizeof(p->tag), "%s", tag);
	sanitize(p->tag);
	printf("%s: trigger %s (%.3f ms): snapshot after %g s\n", prog, reason, ms,
	       F.after_s);
	fflush(stdout);
}

static int copy_into(int out, const char *path)
{
	char buf[1 << 16];
	int in = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t k;

	if (in < 0)
		return -errno;
	while ((k = read(in, buf, sizeof(buf))) != 0) {
		if (k < 0) {
			if (errno == EINTR)
				continue;
			close(in);
			return -errno;
		}
		for (ssize_t off = 0; off < k;) {
			ssize_t m = write(out, buf + off, (size_t)(k - off));

			if (m < 0 && errno == EINTR)
				continue;
			if (m <= 0) {
				close(in);
				return m < 0 ? -errno : -ENOSPC;
			}
			off += m;
		}
	}
	close(in);
	return 0;
}

/*
 * Write the chunks over [from, due] as one file, by a temporary file in
 * the same directory and a rename: the name printed, or one line why not.
 */
static void cap_disk(const char *keep);

static int write_snapshot(struct pending *p, char *name, size_t len)
{
	char tmp[PATH_MAX + 16], stamp[32];
	time_t now = time(NULL);
	struct tm tm;
	size_t used = 0;
	int fd, e = 0;

	if (p->out[0]) {
		snprintf(name, len, "%s", p->out);
	} else {
		gmtime_r(&now, &tm);
		strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%S", &tm);
		snprintf(name, len, "%s/snapshot-%s-%ld-%s.trace", F.outdir, stamp,
			 ++F.seq, p->tag);
	}
	snprintf(tmp, sizeof(tmp), "%s.tmp", name);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		e = -errno;
		fprintf(stderr, "%s: snapshot %s: %s\n", prog, tmp, strerror(-e));
		return e;
	}
	for (size_t i = 0; i < F.nring && !e; i++) {
		const struct chunk *c = &F.ring[i];

		if (c->stop_ctr < p->from || c->start_ctr > p->due)
			continue;
		e = copy_into(fd, c->path);
		used++;
	}
	if (!e && !used)
		e = -ENODATA;
	if (!e && fsync(fd) != 0)
		e = -errno;
	if (close(fd) != 0 && !e)
		e = -errno;
	if (!e && rename(tmp, name) != 0)
		e = -errno;
	if (e) {
		unlink(tmp);
		fprintf(stderr, "%s: snapshot %s: %s\n", prog, name,
			e == -ENODATA ? "no trace in the spool yet" : strerror(-e));
		return e;
	}
	F.snapshots++;
	F.trig_saved += p->kind != KUTRACE_TRIG_DEMAND;
	if (F.disk_cap && !p->out[0])
		cap_disk(name);
	if (p->kind == KUTRACE_TRIG_DEMAND) {
		printf("%s: snapshot %s (%s, %zu chunks)\n", prog, name, p->reason, used);
	} else {
		/* The target: on disk within 1 s of the end of --after. */
		uint64_t now = kt_ctl_now();
		double lag = now > p->after_end ?
			     (double)(now - p->after_end) / F.ticks_per_us / 1e3 : 0;

		printf("%s: snapshot %s (%s, %zu chunks), on disk %.0f ms after "
		       "--after ended\n", prog, name, p->reason, used, lag);
	}
	fflush(stdout);
	return 0;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * --max-disk-mb: the oldest snapshots in the output directory go until the
 * rest fit, the one just written always kept.  Their names sort by time
 * (snapshot-YYYYmmddTHHMMSS-N-...), so name order is age order.
 */
static void cap_disk(const char *keep)
{
	DIR *d = opendir(F.outdir);
	struct dirent *e;
	char **v = NULL, path[PATH_MAX];
	size_t n = 0, cap = 0;
	uint64_t total = 0;
	struct stat st;

	if (!d)
		return;
	while ((e = readdir(d)) != NULL) {
		size_t l = strlen(e->d_name);

		if (strncmp(e->d_name, "snapshot-", 9) || l < 6 ||
		    strcmp(e->d_name + l - 6, ".trace"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", F.outdir, e->d_name);
		if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode))
			continue;
		total += (uint64_t)st.st_size;
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			v = kt_xrealloc(v, cap * sizeof(*v));
		}
		v[n++] = kt_xstrdup(path);
	}
	closedir(d);
	qsort(v, n, sizeof(*v), cmp_name);
	for (size_t i = 0; i < n; i++) {
		if (total > F.disk_cap && strcmp(v[i], keep) && lstat(v[i], &st) == 0 &&
		    unlink(v[i]) == 0) {
			total -= (uint64_t)st.st_size;
			printf("%s: --max-disk-mb: removed %s (the oldest)\n", prog, v[i]);
		}
		free(v[i]);
	}
	free(v);
}

static void answer(int fd, const char *line)
{
	if (fd < 0)
		return;
	if (write(fd, line, strlen(line)) < 0)
		(void)0;	/* the asker left: nothing to tell */
	close(fd);
}

/* Write every pending snapshot whose window the closed chunks cover. */
static void flush_pending(int all)
{
	size_t k = 0;

	for (size_t i = 0; i < F.npend; i++) {
		struct pending *p = &F.pend[i];
		char name[PATH_MAX], line[PATH_MAX + 16];

		if (!all && p->due > F.last_stop) {
			F.pend[k++] = *p;
			continue;
		}
		if (write_snapshot(p, name, sizeof(name)) == 0)
			snprintf(line, sizeof(line), "ok %s\n", name);
		else
			snprintf(line, sizeof(line), "error writing %s\n", name);
		answer(p->client, line);
	}
	F.npend = k;
}

/* ------------------------------------------------------------------ */
/* Checking a closed chunk                                              */
/* ------------------------------------------------------------------ */

static struct open_call *slot(struct open_call *tab, int pid, int make)
{
	unsigned int h = (unsigned int)pid * 2654435761u % TABLE_SLOTS;

	for (unsigned int i = 0; i < TABLE_SLOTS; i++, h = (h + 1) % TABLE_SLOTS) {
		if (tab[h].pid == pid)
			return &tab[h];
		if (tab[h].pid == 0) {
			if (!make)
				return NULL;
			tab[h].pid = pid;
			return &tab[h];
		}
	}
	return NULL;	/* full: this call goes unwatched */
}

/* Remove keeping the probe chains whole (backward-shift deletion). */
static void unslot(struct open_call *tab, struct open_call *s)
{
	unsigned int i = (unsigned int)(s - tab), j = i;

	tab[i].pid = 0;
	for (;;) {
		j = (j + 1) % TABLE_SLOTS;
		if (tab[j].pid == 0)
			return;
		unsigned int h = (unsigned int)tab[j].pid * 2654435761u % TABLE_SLOTS;

		if ((j > i && (h <= i || h > j)) || (j < i && h <= i && h > j)) {
			tab[i] = tab[j];
			tab[j].pid = 0;
			i = j;
		}
	}
}

struct scan {
	struct kt_raw raw;
	struct kt_decoder *dec;
	struct kt_merge *merge;
	char err[256];
};

static void on_merged(void *ctx, const struct kt_event *e);

static void collect(void *ctx, const struct kt_event *e)
{
	struct scan *sc = ctx;

	kt_merge_push(sc->merge, e);
}

/* Event numbers a trigger looks at (watch_events). */
static unsigned char watched[KUTRACE_EVENT_MASK + 1];
static int need_names;	/* rpc:METHOD: method names ahead of the RPCs */

/*
 * Whether a block may hold an event a trigger looks at.  A block is
 * decoded alone (its header names its CPU's task), so the blocks without
 * one need no decoding: most of them, for the triggers of a few calls.
 * A name's text may look like such an event: decoded for nothing.
 */
static int interesting(const struct kt_block *b)
{
	for (int i = b->first_entry; i < KUTRACE_BLOCK_WORDS; i++)
		if (b->w[i] && watched[kutrace_word_event(b->w[i])])
			return 1;
	return 0;
}

static int make_decoder(struct scan *sc)
{
	if (!sc->dec)
		sc->dec = kt_decoder_new(&sc->raw, collect, sc, sc->err, sizeof(sc->err));
	return sc->dec ? 0 : -1;
}

static int on_prescan(void *ctx, const struct kt_block *b)
{
	struct scan *sc = ctx;

	if (make_decoder(sc) < 0)
		return -1;
	kt_decoder_prescan(sc->dec, b);
	return 0;
}

static int on_block(void *ctx, const struct kt_block *b)
{
	struct scan *sc = ctx;

	if (make_decoder(sc) < 0)
		return -1;
	if (b->index != 0 && !interesting(b))
		return 0;
	if (kt_decode_block(sc->dec, b) < 0) {
		snprintf(sc->err, sizeof(sc->err), "%s", kt_decoder_err(sc->dec));
		return -1;
	}
	return 0;
}

static const struct kt_timebase *cur_tb;

static void check_syscall(const struct kt_event *e)
{
	for (int i = 0; i < F.ntrig; i++) {
		const struct trigger *t = &F.trig[i];
		struct open_call *s;

		if (t->kind != T_SYSCALL)
			continue;
		if (e->event == t->event && e->dur > 0) {
			/* fused: call and return in one entry, never long */
			if (e->dur / 100.0 > t->bound_us) {
				uint64_t a = ns10_ticks(cur_tb, e->t);
				char r[KUTRACE_TRIGGER_TEXT + 1];

				snprintf(r, sizeof(r), "%s,pid=%d", t->spec, e->pid);
				fire(T_SYSCALL, a, ns10_ticks(cur_tb, e->t + e->dur),
				     t->what, r);
			}
		} else if (e->event == t->event) {
			s = slot(F.sys, e->pid, 1);
			if (s) {
				s->event = e->event;
				s->start = ns10_ticks(cur_tb, e->t);
			}
		} else if (e->event == t->event + KUTRACE_RET_BIT &&
			   (s = slot(F.sys, e->pid, 0)) != NULL && s->event == t->event) {
			uint64_t a = s->start, z = ns10_ticks(cur_tb, e->t);

			unslot(F.sys, s);
			if (z > a && (double)(z - a) / F.ticks_per_us > t->bound_us) {
				char r[KUTRACE_TRIGGER_TEXT + 1];

				snprintf(r, sizeof(r), "%s,pid=%d", t->spec, e->pid);
				fire(T_SYSCALL, a, z, t->what, r);
			}
		}
	}
}

/* Whether the RPC point's name ("method.id") has the method m. */
static int method_is(const char *name, const char *m)
{
	const char *dot = strrchr(name, '.');
	size_t n = dot ? (size_t)(dot - name) : strlen(name);

	return strlen(m) == n && !strncmp(name, m, n);
}

/*
 * An RPC of a thread runs from its request point with an id (0x201) to
 * its response point (0x202) or the point with id 0 that ends it.
 */
static void check_rpc(const struct kt_event *e)
{
	int id = (int)(e->arg & 0xFFFF);
	struct open_call *s = slot(F.rpc, e->pid, 0);

	if (e->event == KUTRACE_RPCIDREQ && id != 0) {
		s = slot(F.rpc, e->pid, 1);
		if (s) {
			s->event = id;
			s->start = ns10_ticks(cur_tb, e->t);
			s->name = e->name;
		}
		return;
	}
	if (!s || (id != 0 && !(e->event == KUTRACE_RPCIDRESP && id == s->event)))
		return;
	uint64_t a = s->start, z = ns10_ticks(cur_tb, e->t);
	int rid = s->event;
	const char *req = s->name;

	unslot(F.rpc, s);
	for (int i = 0; i < F.ntrig; i++) {
		const struct trigger *t = &F.trig[i];
		char r[KUTRACE_TRIGGER_TEXT + 1];

		if (t->kind != T_RPC || z <= a ||
		    (double)(z - a) / F.ticks_per_us <= t->bound_us)
			continue;
		/* the method as the request named it, or else the response */
		if (t->what[0] && !(req && method_is(req, t->what)) &&
		    !(e->name && method_is(e->name, t->what)))
			continue;
		char tag[48];

		snprintf(r, sizeof(r), "%s,id=%d", t->spec, rid);
		snprintf(tag, sizeof(tag), "rpc%s%s", t->what[0] ? "-" : "", t->what);
		fire(T_RPC, a, z, tag, r);
		return;
	}
}

static int watch_rpc;

/*
 * Calls and RPCs open before `before` are forgotten: entries were lost
 * (their return may be among them, and a later return of another call
 * must not close them), or the chunks do not follow each other.
 */
static void forget_open(uint64_t before)
{
	for (int i = 0; i < TABLE_SLOTS; i++) {
		if (F.sys[i].pid && F.sys[i].start < before)
			F.sys[i].pid = 0;
		if (F.rpc[i].pid && F.rpc[i].start < before)
			F.rpc[i].pid = 0;
	}
	/* emptied in place: rebuild the probe chains */
	struct open_call *tabs[2] = { F.sys, F.rpc };

	for (int t = 0; t < 2; t++) {
		static struct open_call keep[TABLE_SLOTS];

		memcpy(keep, tabs[t], sizeof(keep));
		memset(tabs[t], 0, sizeof(keep));
		for (int i = 0; i < TABLE_SLOTS; i++) {
			struct open_call *s = keep[i].pid ? slot(tabs[t], keep[i].pid, 1) : NULL;

			if (s)
				*s = keep[i];
		}
	}
}

static void on_merged(void *ctx, const struct kt_event *e)
{
	(void)ctx;
	if (e->t < 0 || e->pid <= 0)
		return;
	if (e->event == KUTRACE_TRIGGER_MARK && e->rpc == KUTRACE_TRIG_CALL) {
		const char *why = e->name ? e->name + strlen("trigger:") : "";
		char tag[48], r[KUTRACE_TRIGGER_TEXT + 1];

		snprintf(tag, sizeof(tag), "call-%s", why);
		snprintf(r, sizeof(r), "call:%s,pid=%d", why, e->pid);
		fire(KUTRACE_TRIG_CALL, ns10_ticks(cur_tb, e->arg),
		     ns10_ticks(cur_tb, e->retval), tag, r);
		return;
	}
	if (e->event == KUTRACE_LOST_SPAN) {
		forget_open(ns10_ticks(cur_tb, e->retval));
		return;
	}
	if (e->event >= KUTRACE_SYSCALL64)
		check_syscall(e);
	else if (watch_rpc && (e->event == KUTRACE_RPCIDREQ || e->event == KUTRACE_RPCIDRESP ||
			       e->event == KUTRACE_RPCIDMID))
		check_rpc(e);
}

static void watch_events(void)
{
	watched[KUTRACE_TRIGGER_EVENT] = 1;
	watched[KUTRACE_LOST_EVENT] = 1;	/* open calls forgotten there */
	for (int i = 0; i < F.ntrig; i++) {
		const struct trigger *t = &F.trig[i];

		if (t->kind == T_SYSCALL) {
			watched[t->event] = 1;
			watched[t->event + KUTRACE_RET_BIT] = 1;
		} else if (t->kind == T_RPC) {
			watch_rpc = 1;
			need_names |= t->what[0] != 0;
			for (int ev = KUTRACE_RPCIDREQ; ev <= KUTRACE_RPCIDMID; ev++)
				watched[ev] = 1;
		}
	}
}

/* Decode one closed chunk and check the triggers on its events in time order. */
static void scan_chunk(const char *path)
{
	struct scan sc = { .dec = NULL };

	if (kt_raw_open(&sc.raw, path) < 0) {
		fprintf(stderr, "%s: %s (triggers not checked there)\n", prog, sc.raw.err);
		return;
	}
	sc.merge = kt_merge_new();
	if ((need_names && kt_raw_each(&sc.raw, on_prescan, &sc) < 0) ||
	    kt_raw_each(&sc.raw, on_block, &sc) < 0) {
		fprintf(stderr, "%s: %s: %s (triggers not checked there)\n", prog, path,
			sc.err[0] ? sc.err : sc.raw.err);
	} else if (sc.dec) {
		/*
		 * A chunk that does not follow the one before (chunk n+1 starts
		 * before chunk n stops, 10.2): nothing is open any more.
		 */
		static uint64_t last_start, last_stop;

		if (last_stop && (sc.raw.start_ctr < last_start || sc.raw.start_ctr > last_stop))
			forget_open(UINT64_MAX);
		last_start = sc.raw.start_ctr;
		last_stop = sc.raw.stop_ctr;
		cur_tb = kt_decoder_timebase(sc.dec);
		if (F.check_only)
			F.ticks_per_us = 1 / cur_tb->slope_us;
		kt_merge_release(sc.merge, INT64_MAX, on_merged, NULL);
	}
	kt_merge_free(sc.merge);
	if (sc.dec)
		kt_decoder_free(sc.dec);
	kt_raw_close(&sc.raw);
}

/* ------------------------------------------------------------------ */
/* The ring                                                             */
/* ------------------------------------------------------------------ */

static void drop_oldest(void)
{
	unlink(F.ring[0].path);
	free(F.ring[0].path);
	F.ring_bytes -= F.ring[0].bytes;
	memmove(F.ring, F.ring + 1, --F.nring * sizeof(F.ring[0]));
}

/*
 * Keep what a snapshot may still want: --before + --after (and a chunk
 * more) back from now, every pending window, and --before back from the
 * start of every call or RPC still open; over the cap, the oldest go.
 */
static void prune(uint64_t now)
{
	uint64_t keep = secs_ticks(F.before_s + F.after_s) + secs_ticks(F.chunk_ms / 1e3) * 2;
	uint64_t from = now > keep ? now - keep : 0, b = secs_ticks(F.before_s);

	for (size_t i = 0; i < F.npend; i++)
		if (F.pend[i].from < from)
			from = F.pend[i].from;
	for (int i = 0; i < TABLE_SLOTS; i++) {
		if (F.sys[i].pid && F.sys[i].start - b < from && F.sys[i].start > b)
			from = F.sys[i].start - b;
		if (F.rpc[i].pid && F.rpc[i].start - b < from && F.rpc[i].start > b)
			from = F.rpc[i].start - b;
	}
	while (F.nring > 1 && F.ring[0].stop_ctr < from)
		drop_oldest();
	while (F.nring > 1 && F.ring_bytes > F.spool_cap) {
		if (!F.warned_cap && F.ring[0].stop_ctr + b > now) {
			F.warned_cap = 1;
			fprintf(stderr, "%s: warning: the spool (--spool-mb %llu) holds "
				"less than --before %g s of this trace; snapshots get "
				"less before their trigger\n", prog,
				(unsigned long long)(F.spool_cap >> 20), F.before_s);
		}
		drop_oldest();
	}
}

static void on_close(void *ctx, const struct kt_chunk_done *d)
{
	(void)ctx;
	if (F.nring == F.ring_cap) {
		F.ring_cap = F.ring_cap ? 2 * F.ring_cap : 64;
		F.ring = kt_xrealloc(F.ring, F.ring_cap * sizeof(F.ring[0]));
	}
	F.ring[F.nring++] = (struct chunk){
		.path = kt_xstrdup(d->path), .n = d->n, .bytes = d->bytes,
		.start_ctr = d->start_ctr, .stop_ctr = d->stop_ctr,
	};
	F.ring_bytes += d->bytes;
	F.last_stop = d->stop_ctr;
	if (d->stop_usec > d->start_usec + 100000 && d->stop_ctr > d->start_ctr)
		F.ticks_per_us = (double)(d->stop_ctr - d->start_ctr) /
				 (double)(d->stop_usec - d->start_usec);
	scan_chunk(d->path);
}

/* ------------------------------------------------------------------ */
/* Process exits: the proc connector                                    */
/* ------------------------------------------------------------------ */

static int nl_open(void)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = CN_IDX_PROC,
				  .nl_pid = 0 };
	struct {
		struct nlmsghdr h;
		struct cn_msg m;
		enum proc_cn_mcast_op op;
	} __attribute__((packed)) req;
	int s = socket(PF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK,
		       NETLINK_CONNECTOR);

	if (s < 0)
		return -errno;
	if (bind(s, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		int e = -errno;

		close(s);
		return e;
	}
	memset(&req, 0, sizeof(req));
	req.h.nlmsg_len = sizeof(req);
	req.h.nlmsg_type = NLMSG_DONE;
	req.h.nlmsg_pid = (__u32)getpid();
	req.m.id.idx = CN_IDX_PROC;
	req.m.id.val = CN_VAL_PROC;
	req.m.len = sizeof(req.op);
	req.op = PROC_CN_MCAST_LISTEN;
	if (send(s, &req, sizeof(req), 0) < 0) {
		int e = -errno;

		close(s);
		return e;
	}
	return s;
}

static int comm_slot(int pid)
{
	return (int)((unsigned int)pid % TABLE_SLOTS);
}

static void learn_comm(int pid, const char *comm)
{
	char path[64], buf[32] = "";
	int i = comm_slot(pid);

	if (!comm) {
		FILE *f;

		snprintf(path, sizeof(path), "/proc/%d/comm", pid);
		f = fopen(path, "r");
		if (!f)
			return;
		if (fgets(buf, sizeof(buf), f))
			buf[strcspn(buf, "\n")] = 0;
		fclose(f);
		comm = buf;
	}
	F.comm_pid[i] = pid;
	snprintf(F.comm[i], sizeof(F.comm[i]), "%s", comm);
}

static const char *comm_of(int pid)
{
	int i = comm_slot(pid);

	if (F.comm_pid[i] != pid)
		learn_comm(pid, NULL);
	return F.comm_pid[i] == pid ? F.comm[i] : "?";
}

static int core_signal(int sig)
{
	return sig == SIGSEGV || sig == SIGBUS || sig == SIGILL || sig == SIGFPE ||
	       sig == SIGABRT || sig == SIGTRAP || sig == SIGSYS || sig == SIGQUIT ||
	       sig == SIGXCPU || sig == SIGXFSZ;
}

static void nl_read(void)
{
	char buf[4096] __attribute__((aligned(NLMSG_ALIGNTO)));
	ssize_t n;

	while ((n = recv(F.nl, buf, sizeof(buf), 0)) > 0) {
		for (struct nlmsghdr *h = (struct nlmsghdr *)buf; NLMSG_OK(h, (unsigned int)n);
		     h = NLMSG_NEXT(h, n)) {
			struct cn_msg *m = NLMSG_DATA(h);
			struct proc_event *ev = (struct proc_event *)m->data;

			if (h->nlmsg_type == NLMSG_ERROR || h->nlmsg_type == NLMSG_NOOP)
				continue;
			if (ev->what == PROC_EVENT_EXEC) {
				learn_comm(ev->event_data.exec.process_pid, NULL);
			} else if (ev->what == PROC_EVENT_COMM) {
				learn_comm(ev->event_data.comm.process_pid,
					   ev->event_data.comm.comm);
			} else if (ev->what == PROC_EVENT_EXIT &&
				   ev->event_data.exit.process_pid ==
				   ev->event_data.exit.process_tgid) {
				int pid = ev->event_data.exit.process_pid;
				unsigned int code = ev->event_data.exit.exit_code;
				int sig = (int)(code & 0x7F);
				const char *comm = comm_of(pid);
				uint64_t now = kt_ctl_now();
				char r[KUTRACE_TRIGGER_TEXT + 1], tag[48];

				for (int i = 0; i < F.ntrig; i++) {
					const struct trigger *t = &F.trig[i];

					if (t->kind == T_CRASH && core_signal(sig)) {
						snprintf(r, sizeof(r), "crash:%s,pid=%d,sig=%d",
							 comm, pid, sig);
						snprintf(tag, sizeof(tag), "crash-%s", comm);
						fire(T_CRASH, now, now, tag, r);
						break;
					}
					if (t->kind == T_EXIT && !strcmp(t->what, comm)) {
						snprintf(r, sizeof(r), "exit:%s,pid=%d,status=%u",
							 comm, pid, code);
						snprintf(tag, sizeof(tag), "exit-%s", comm);
						fire(T_EXIT, now, now, tag, r);
						break;
					}
				}
			}
		}
	}
}

/* ------------------------------------------------------------------ */
/* The socket: snapshots on demand                                      */
/* ------------------------------------------------------------------ */

static int sock_open(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

	if (s < 0)
		return -errno;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", F.sock_path);
	/* One that answers is another recorder; one that does not is stale. */
	int c = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (c >= 0 && connect(c, (struct sockaddr *)&sa, sizeof(sa)) == 0) {
		close(c);
		close(s);
		return -EADDRINUSE;
	}
	if (c >= 0)
		close(c);
	unlink(F.sock_path);
	if (bind(s, (struct sockaddr *)&sa, sizeof(sa)) != 0 || listen(s, 8) != 0) {
		int e = -errno;

		close(s);
		return e;
	}
	return s;
}

/* Cut now and queue a snapshot of all the spool holds; client gets the name. */
static void demand(int client, const char *out)
{
	uint64_t now = kt_ctl_now();
	struct pending *p;

	insert_mark(KUTRACE_TRIG_DEMAND, now, now, "on-demand");
	p = new_pending();
	p->kind = KUTRACE_TRIG_DEMAND;
	p->from = 0;
	p->due = now;
	p->client = client;
	snprintf(p->reason, sizeof(p->reason), "on-demand");
	snprintf(p->tag, sizeof(p->tag), "demand");
	if (out)
		snprintf(p->out, sizeof(p->out), "%s", out);
}

/* One request line: "snapshot\n" or "snapshot /abs/FILE\n". */
static void sock_request(void)
{
	char line[PATH_MAX + 32];
	int c = accept4(F.lsock, NULL, NULL, SOCK_CLOEXEC);
	ssize_t n;
	struct timeval tv = { 2, 0 };

	if (c < 0)
		return;
	setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	n = read(c, line, sizeof(line) - 1);
	if (n <= 0) {
		close(c);
		return;
	}
	line[n] = 0;
	line[strcspn(line, "\n")] = 0;
	if (!strcmp(line, "snapshot"))
		demand(c, NULL);
	else if (!strncmp(line, "snapshot /", 10))
		demand(c, line + 9);
	else
		answer(c, "error: unknown request\n");
}

/* kutrace_flight snapshot [-o FILE] [--socket PATH] */
static int snapshot_cmd(int argc, char **argv)
{
	char path[sizeof(F.sock_path)], line[PATH_MAX + 32], abs[PATH_MAX];
	const char *out = NULL;
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	size_t got = 0;
	int s;

	default_socket(path, sizeof(path));
	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			fputs(usage_text, stdout);
			return 0;
		} else if (!strcmp(argv[i], "-o") && i + 1 < argc) {
			out = argv[++i];
		} else if (!strcmp(argv[i], "--socket") && i + 1 < argc) {
			snprintf(path, sizeof(path), "%s", argv[++i]);
		} else {
			fprintf(stderr, "%s: snapshot: unknown option %s\n", prog, argv[i]);
			return 2;
		}
	}
	if (out) {
		/* The recorder has another working directory: a full path. */
		char dir[PATH_MAX], *slash;

		snprintf(dir, sizeof(dir), "%s", out);
		slash = strrchr(dir, '/');
		if (slash == dir)
			snprintf(dir, sizeof(dir), "/");
		else if (slash)
			*slash = 0;
		else
			snprintf(dir, sizeof(dir), ".");
		if (!realpath(dir, abs)) {
			fprintf(stderr, "%s: snapshot: -o %s: %s\n", prog, out, strerror(errno));
			return 2;
		}
		snprintf(line, sizeof(line), "snapshot %s/%s\n", strcmp(abs, "/") ? abs : "",
			 slash ? slash + 1 : out);
	} else {
		snprintf(line, sizeof(line), "snapshot\n");
	}
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0 || connect(s, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		fprintf(stderr, "%s: snapshot: no flight recorder at %s (%s)\n", prog, path,
			strerror(errno));
		return 1;
	}
	if (write(s, line, strlen(line)) < 0) {
		fprintf(stderr, "%s: snapshot: %s: %s\n", prog, path, strerror(errno));
		return 1;
	}
	for (ssize_t n; got < sizeof(line) - 1 &&
	     (n = read(s, line + got, sizeof(line) - 1 - got)) != 0;) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		got += (size_t)n;
	}
	close(s);
	line[got] = 0;
	line[strcspn(line, "\n")] = 0;
	if (strncmp(line, "ok ", 3) != 0) {
		fprintf(stderr, "%s: snapshot: %s\n", prog,
			got ? line : "the recorder ended without an answer");
		return 1;
	}
	printf("%s\n", line + 3);
	return 0;
}

/*
 * kutrace_flight check [--trigger SPEC]... CHUNK...: the triggers checked
 * on chunks already written, as the recorder checks them (what would
 * fire, and the CPU that costs per 10 MB/s of trace); no module needed.
 */
static int check_cmd(int argc, char **argv)
{
	uint64_t bytes = 0;
	int files = 0;

	F.check_only = 1;
	F.ticks_per_us = 1;
	for (int i = 0; i < argc; i++) {
		struct stat st;

		if (!strcmp(argv[i], "--trigger") && i + 1 < argc) {
			if (parse_trigger(argv[++i]) < 0)
				return 2;
			continue;
		}
		if (argv[i][0] == '-') {
			fprintf(stderr, "%s: check: unknown option %s\n", prog, argv[i]);
			return 2;
		}
		if (stat(argv[i], &st) != 0 || !S_ISREG(st.st_mode)) {
			fprintf(stderr, "%s: check: %s: no such file\n", prog, argv[i]);
			return 2;
		}
		bytes += (uint64_t)st.st_size;
		files++;
	}
	if (!files) {
		fprintf(stderr, "%s: check: no chunk given\n", prog);
		return 2;
	}
	watch_events();
	double t0 = kt_cpu_secs();

	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--trigger")) {
			i++;
			continue;
		}
		scan_chunk(argv[i]);
	}
	double cpu = kt_cpu_secs() - t0;

	printf("%s: checked %d files, %.1f MB in %.3f s of CPU: %.2f %% of a core "
	       "per 10 MB/s\n", prog, files, (double)bytes / 1e6, cpu,
	       bytes ? cpu * 10 / ((double)bytes / 1e6) * 100 : 0.0);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Recording                                                            */
/* ------------------------------------------------------------------ */

static void remove_spool(void)
{
	while (F.nring)
		drop_oldest();
	if (!F.own_spool)
		return;
	/* What a failed run left: chunks that never closed. */
	DIR *d = opendir(F.spool);
	struct dirent *e;
	char p[PATH_MAX + 300];

	while (d && (e = readdir(d)) != NULL) {
		if (!strncmp(e->d_name, "kt_", 3)) {
			snprintf(p, sizeof(p), "%s/%s", F.spool, e->d_name);
			unlink(p);
		}
	}
	if (d)
		closedir(d);
	rmdir(F.spool);
}

/* Start streaming into the spool; 0, or the exit status with one line said. */
/*
 * The module when /dev/kutrace is there (or --backend module), else the
 * BPF backend, set up here and taken down by drop_backend: the recorder
 * streams the same way through either (FORMATS 10.1).  0, or 2 with one
 * line printed.
 */
static int choose_backend(void)
{
	int dev = access(KUTRACE_DEVICE, F_OK) == 0;

	if ((F.backend && !strcmp(F.backend, "module")) || (!F.backend && dev)) {
		kt_ctl_prefer(KT_CTL_DEVICE);
		return 0;
	}
#ifdef KT_HAVE_BPF
	char why[512];

	if (kt_bpf_pinned()) {
		fprintf(stderr, "%s: the BPF backend is set up already (another "
			"kutrace_control or kutrace_flight)\n", prog);
		return 2;
	}
	/* Its buffer stages blocks on their way to the spool: 16 MiB do. */
	if (kt_bpf_attach(16, why, sizeof(why)) != 0) {
		fprintf(stderr, "%s: %s: %s\n", prog, dev ? "BPF backend" :
			"no kutrace module (/dev/kutrace), and no BPF backend", why);
		return 2;
	}
	F.bpf = 1;
	kt_ctl_prefer(KT_CTL_BPF);
	return 0;
#else
	fprintf(stderr, "%s: needs the kutrace module (%s)%s\n", prog, KUTRACE_DEVICE,
		F.backend ? ": this kutrace_flight was built without the BPF backend" : "");
	return 2;
#endif
}

static void drop_backend(void)
{
#ifdef KT_HAVE_BPF
	if (F.bpf) {
		kt_ctl_close();
		kt_bpf_detach();
		F.bpf = 0;
	}
#endif
}

static int start(void)
{
	struct kt_stream_opts o = {
		.dir = F.spool, .rotate_ms = F.chunk_ms, .process_name = prog,
		.prog = prog, .on_close = on_close,
	};
	unsigned int kept = 0;
	uint64_t v = 0;
	int e;

	e = choose_backend();
	if (e)
		return e;
	e = kt_ctl_open();
	if (!e)
		e = kt_ctl_cmd(KUTRACE_CMD_VERSION, 0, &v);
	if (e || kt_ctl_via() != (F.bpf ? KT_CTL_BPF : KT_CTL_DEVICE)) {
		fprintf(stderr, "%s: needs the kutrace module (%s) or the BPF backend: %s\n",
			prog, KUTRACE_DEVICE, kt_ctl_strerror(e ? e : -ENOENT));
		drop_backend();
		return 2;
	}
	/* Tracing already on belongs to someone else: not ours to reset. */
	uint64_t on = 0;

	if (kt_ctl_cmd(KUTRACE_CMD_TEST, 0, &on) == 0 && on) {
		fprintf(stderr, "%s: kutrace is tracing already (kutrace_control stop "
			"ends it)\n", prog);
		drop_backend();
		return 2;
	}
	e = kt_ctl_reset(KUTRACE_RESET_STREAM, &kept);
	if (e || !(kept & KUTRACE_RESET_STREAM)) {
		fprintf(stderr, "%s: %s\n", prog, e ? kt_ctl_strerror(e) :
			"this kutrace module cannot stream (load the one of this kutrace)");
		kt_ctl_reset(0, NULL);
		drop_backend();
		return 2;
	}
	o.flags = kept;
	measure_rate();
	/* The recorder's cost is what watching costs, not loading BPF. */
	F.cpu0 = kt_cpu_secs();
	e = kt_stream_begin(&o);
	if (e) {
		fprintf(stderr, "%s: stream: %s\n", prog, kt_ctl_strerror(e));
		kt_ctl_reset(0, NULL);
		drop_backend();
		return 1;
	}
	return 0;
}

static int record_loop(pid_t child, int *status)
{
	struct pollfd pf[2];
	int e = 0, child_done = child <= 0;
	uint64_t end_at = 0;

	for (;;) {
		int n = 0;

		if (!child_done) {
			pid_t w = waitpid(child, status, WNOHANG);

			if (w == child || (w < 0 && errno != EINTR)) {
				child_done = 1;
				stop_flag = 1;
			}
		}
		if (stop_flag && !end_at) {
			/*
			 * Whatever fired up to now is found (the exits read, the
			 * chunk open checked), and its snapshot gets its --after.
			 */
			if (F.nl >= 0)
				nl_read();
			e = kt_stream_cut();
			if (e)
				break;
			end_at = kt_ctl_now() + secs_ticks(F.after_s);
		}
		if (end_at && (!F.npend || kt_ctl_now() >= end_at))
			break;
		pf[n++] = (struct pollfd){ .fd = F.lsock, .events = POLLIN };
		if (F.nl >= 0)
			pf[n++] = (struct pollfd){ .fd = F.nl, .events = POLLIN };
		if (poll(pf, (nfds_t)n, 20) > 0) {
			if (pf[0].revents & POLLIN)
				sock_request();
			if (n > 1 && (pf[1].revents & POLLIN))
				nl_read();
		}
		if (demand_flag) {
			demand_flag = 0;
			demand(-1, NULL);
		}
		e = kt_stream_pump();
		if (e) {
			fprintf(stderr, "%s: stream: %s\n", prog, kt_ctl_strerror(e));
			break;
		}
		/* An --after that has ended: cut at once, not at the next chunk. */
		uint64_t now = kt_ctl_now();

		for (size_t i = 0; i < F.npend; i++) {
			if (F.pend[i].due <= now && F.pend[i].due > F.last_stop) {
				e = kt_stream_cut();
				break;
			}
		}
		if (e) {
			fprintf(stderr, "%s: stream: %s\n", prog, kt_ctl_strerror(e));
			break;
		}
		flush_pending(0);
		prune(now);
	}
	return e;
}

static int finish(void)
{
	struct kt_stream_info in;
	uint64_t te = 0;
	int e = kt_stream_end(&in);

	for (unsigned int c = 0; c < KT_STREAM_MAX_CPUS; c++)
		te += in.lost_entries[c] + in.lost_blocks[c];
	flush_pending(1);
	kt_ctl_reset(0, NULL);
	drop_backend();
	if (e)
		fprintf(stderr, "%s: stream: %s\n", prog, kt_ctl_strerror(e));
	printf("%s: %ld snapshots; %llu chunks traced, %llu MB%s\n", prog, F.snapshots,
	       (unsigned long long)in.chunks, (unsigned long long)(in.bytes >> 20),
	       te ? " (some lost: the recorder fell behind)" : "");
	/* The recorder's cost, triggers checked: CPU per 10 MB/s of trace. */
	if (in.bytes) {
		double cpu = kt_cpu_secs() - F.cpu0;

		printf("%s: recorder: %.3f s of CPU for %.1f MB: %.2f %% of a core "
		       "per 10 MB/s\n", prog, cpu, (double)in.bytes / 1e6,
		       cpu * 10 / ((double)in.bytes / 1e6) * 100);
	}
	return e ? 1 : 0;
}

int main(int argc, char **argv)
{
	char **cmd = NULL;
	int e, status = 0;
	pid_t child = 0;

	kt_set_progname(argv[0]);
	if (argc > 1 && !strcmp(argv[1], "snapshot"))
		return snapshot_cmd(argc - 2, argv + 2);
	if (argc > 1 && !strcmp(argv[1], "check"))
		return check_cmd(argc - 2, argv + 2);
	F.before_s = 2;
	F.after_s = 1;
	F.min_interval_s = 5;
	F.chunk_ms = 250;
	F.spool_cap = 256ULL << 20;
	F.outdir = geteuid() == 0 ? "/var/lib/kutrace" : ".";
	default_socket(F.sock_path, sizeof(F.sock_path));
	/* --config FILE: its lines are options, before the command line's. */
	for (int i = 1; i + 1 < argc && strcmp(argv[i], "--"); i++) {
		if (strcmp(argv[i], "--config"))
			continue;
		char err[512];
		const char *conf = argv[i + 1];

		memmove(argv + i, argv + i + 2, (size_t)(argc - i - 1) * sizeof(*argv));
		argc -= 2;
		argc = kt_conf_args(conf, argc, argv, &argv, err, sizeof(err));
		if (argc < 0) {
			fprintf(stderr, "%s: --config %s\n", prog, err);
			return 2;
		}
		break;
	}
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		long l;

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			fputs(usage_text, stdout);
			return 0;
		}
		if (!strcmp(a, "--")) {
			if (i + 1 >= argc) {
				fprintf(stderr, "%s: -- needs a command\n", prog);
				return 2;
			}
			cmd = argv + i + 1;
			break;
		}
		if (!v) {
			fprintf(stderr, "%s: %s: unknown option, or it needs a value "
				"(--help)\n", prog, a);
			return 2;
		}
		i++;
		if (!strcmp(a, "--trigger")) {
			if (parse_trigger(v) < 0)
				return 2;
		} else if (!strcmp(a, "--before") || !strcmp(a, "--after") ||
			   !strcmp(a, "--min-interval")) {
			double s = parse_secs(a, v);

			if (s < 0)
				return 2;
			*(a[2] == 'b' ? &F.before_s : a[2] == 'a' ? &F.after_s :
			  &F.min_interval_s) = s;
		} else if (!strcmp(a, "--max-snapshots")) {
			if ((F.max_snapshots = parse_long(a, v, 0, 1000000000)) < 0)
				return 2;
		} else if (!strcmp(a, "--spool-mb")) {
			if ((l = parse_long(a, v, 1, 1 << 20)) < 0)
				return 2;
			F.spool_cap = (uint64_t)l << 20;
		} else if (!strcmp(a, "--backend")) {
			if (strcmp(v, "module") && strcmp(v, "bpf")) {
				fprintf(stderr, "%s: --backend %s: module or bpf\n", prog, v);
				return 2;
			}
			F.backend = v;
		} else if (!strcmp(a, "--max-disk-mb")) {
			if ((l = parse_long(a, v, 1, 1L << 30)) < 0)
				return 2;
			F.disk_cap = (uint64_t)l << 20;
		} else if (!strcmp(a, "--chunk-ms")) {
			if ((l = parse_long(a, v, 10, 60000)) < 0)
				return 2;
			F.chunk_ms = (unsigned int)l;
		} else if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
			F.outdir = v;
		} else if (!strcmp(a, "--spool")) {
			snprintf(F.spool, sizeof(F.spool), "%s", v);
		} else if (!strcmp(a, "--socket")) {
			if (strlen(v) >= sizeof(F.sock_path)) {
				fprintf(stderr, "%s: --socket %s: path too long\n", prog, v);
				return 2;
			}
			snprintf(F.sock_path, sizeof(F.sock_path), "%s", v);
		} else {
			fprintf(stderr, "%s: %s: unknown option (--help)\n", prog, a);
			return 2;
		}
	}
	/* The default place is made on first use, as a package would. */
	if (!strcmp(F.outdir, "/var/lib/kutrace") && !is_dir(F.outdir))
		mkdir(F.outdir, 0755);
	if (check_dir("-o", F.outdir) < 0 || (F.spool[0] && check_dir("--spool", F.spool) < 0))
		return 2;
	watch_events();
	/* Everything that can refuse refuses before tracing is touched. */
	for (int i = 0; i < F.ntrig; i++) {
		if (F.trig[i].kind != T_CRASH && F.trig[i].kind != T_EXIT)
			continue;
		F.nl = nl_open();
		if (F.nl < 0) {
			fprintf(stderr, "%s: --trigger %s: the proc connector (process "
				"exits) is not available: %s\n", prog, F.trig[i].spec,
				strerror(-F.nl));
			return 2;
		}
		break;
	}
	F.lsock = sock_open();
	if (F.lsock < 0) {
		fprintf(stderr, "%s: --socket %s: %s\n", prog, F.sock_path,
			F.lsock == -EADDRINUSE ? "another kutrace_flight is running there" :
			strerror(-F.lsock));
		return 2;
	}
	if (!F.spool[0]) {
		/* tmpfs where there is one: the ring costs no disk writes */
		snprintf(F.spool, sizeof(F.spool), "%s/kutrace-flight-%d",
			 is_dir("/dev/shm") ? "/dev/shm" : "/tmp", (int)getpid());
		if (mkdir(F.spool, 0700) != 0) {
			fprintf(stderr, "%s: --spool %s: %s\n", prog, F.spool, strerror(errno));
			unlink(F.sock_path);
			return 2;
		}
		F.own_spool = 1;
	}
	struct statvfs vfs;

	if (statvfs(F.spool, &vfs) == 0 &&
	    (uint64_t)vfs.f_bavail * vfs.f_frsize < F.spool_cap) {
		F.spool_cap = (uint64_t)vfs.f_bavail * vfs.f_frsize;
		fprintf(stderr, "%s: warning: the spool %s has room for %llu MB only: "
			"the ring is that\n", prog, F.spool,
			(unsigned long long)(F.spool_cap >> 20));
	}
	e = start();
	if (e) {
		remove_spool();
		unlink(F.sock_path);
		return e;
	}
	signal(SIGINT, on_stop);
	signal(SIGTERM, on_stop);
	signal(SIGUSR2, on_usr2);
	signal(SIGPIPE, SIG_IGN);
	printf("%s: recording into %s; snapshots in %s; ask at %s\n", prog, F.spool,
	       F.outdir, F.sock_path);
	fflush(stdout);
	if (cmd) {
		child = fork();
		if (child == 0) {
			signal(SIGINT, SIG_DFL);
			signal(SIGTERM, SIG_DFL);
			signal(SIGUSR2, SIG_DFL);
			signal(SIGPIPE, SIG_DFL);
			execvp(cmd[0], cmd);
			fprintf(stderr, "%s: %s: %s\n", prog, cmd[0], strerror(errno));
			_exit(127);
		}
		if (child < 0)
			fprintf(stderr, "%s: fork: %s\n", prog, strerror(errno));
	}
	e = record_loop(child, &status);
	e = finish() || e;
	for (size_t i = 0; i < F.npend; i++)
		answer(F.pend[i].client, "error: the recorder stopped\n");
	close(F.lsock);
	unlink(F.sock_path);
	remove_spool();
	if (cmd && child > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 127)
		return 1;
	return e ? 1 : 0;
}

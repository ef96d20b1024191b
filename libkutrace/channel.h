/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * channel.h - libkutrace's control channel, for kutrace_control and the
 * library's own user calls (include/kutrace/control.h): /dev/kutrace
 * ioctls (stock-kernel module), the BPF backend's pinned maps, else the
 * patched kernel's syscall 1023; the initial names, time pairs and the
 * trace-file dump.  Not installed: programs that mark themselves use
 * only control.h.
 *
 * Errors: functions returning int give 0 (or a count) on success and a
 * negative errno on failure; kt_ctl_strerror() words it for users.
 */
#ifndef LIBKUTRACE_CHANNEL_H
#define LIBKUTRACE_CHANNEL_H

#include <stdint.h>
#include <stddef.h>
#include <stdio.h>

#include "kutrace/format.h"

/* ------------------------------------------------------------------ */
/* Control channel                                                     */
/* ------------------------------------------------------------------ */

enum kt_ctl_via { KT_CTL_NONE, KT_CTL_DEVICE, KT_CTL_SYSCALL, KT_CTL_BPF };

/*
 * Open /dev/kutrace, else the BPF backend if kutrace_control set it up
 * (bpf/, its maps pinned under KT_BPF_PIN), else probe syscall 1023.
 * 0 or -errno.
 */
int kt_ctl_open(void);
/* Only the module (KT_CTL_DEVICE) / only BPF (KT_CTL_BPF); NONE: any. */
void kt_ctl_prefer(enum kt_ctl_via via);
void kt_ctl_close(void);
enum kt_ctl_via kt_ctl_via(void);
/* One command (KUTRACE_CMD_* or a forced-insert ioctl nr).  0 or -errno. */
int kt_ctl_cmd(unsigned int nr, uint64_t arg, uint64_t *result);
/* User-facing text for an error from kt_ctl_open/kt_ctl_cmd. */
const char *kt_ctl_strerror(int err);
/*
 * For errors that keep kutrace from being reached (ENOENT, EPERM/EACCES,
 * EBUSY): look at the machine and print to f why, with the command that
 * fixes it ("  why: ..." / "  fix: ..." lines).  Nothing for other errors.
 * Files are read under $KUTRACE_SYSROOT (tests), see kt_sysroot().
 */
void kt_ctl_explain(int err, FILE *f);
/* $KUTRACE_SYSROOT or "": prefix of /dev/kutrace and the files read. */
const char *kt_sysroot(void);
/*
 * Whether system call 1023 (the original library's channel) reaches the
 * module: 1 if it answers VERSION.  why: the module's own word on it
 * (its sys1023 parameter: "served ..." or "unavailable: REASON"), "" if
 * the module is not loaded.
 */
int kt_ctl_sys1023(char *why, size_t len);

/* The module's tracemb parameter (MB of trace buffer), 0 if unknown (dump.c). */
long kt_module_tracemb(void);
/* The trace time counter (x86: TSC >> 6), as the module uses. */
uint64_t kt_ctl_now(void);
uint64_t kt_ctl_usec(void);

/* RESET(flags); returns the flags the module kept (IPC may be dropped). */
int kt_ctl_reset(unsigned int flags, unsigned int *kept);
/*
 * Initial names (docs/spec/FORMATS.md 7, DoInit): kernel version, CPU model, host,
 * trap/IRQ/syscall/errno names, a PIDNAME and context switch for the
 * caller named process_name.  Takes the start time pair.
 */
int kt_ctl_init(const char *process_name);
/* ON (taking the start pair if none); OFF (+20 ms, stop pair). */
int kt_ctl_on(void);
int kt_ctl_off(void);

/*
 * User buffers (uev.c, docs/spec/FORMATS.md 9): the directory
 * ($KUTRACE_USER_DIR, else KUTRACE_UDIR_DEFAULT) where the controller
 * makes the control file and threads their buffers.
 */
const char *kt_ubuf_dir(void);
/*
 * Offer user buffers of ring_words words (2^n) per thread, as a new
 * session, and switch them on.  0 or -errno (-EPERM: the directory is
 * not the caller's).
 */
int kt_ubuf_start(uint64_t ring_words, int wrap);
/* Switch them off (no new entries); kt_ctl_off does it first. */
void kt_ubuf_stop(void);
/* Off, and every buffer removed (kt_ctl_reset); the control file stays. */
void kt_ubuf_reset(void);
/* All gone: buffers, the control file, the directory if empty. */
void kt_ubuf_remove(void);
struct kt_ubuf_info {
	uint64_t buffers;	/* threads' buffers written */
	uint64_t lost;		/* entries they lost: buffer full */
	uint64_t refused;	/* files that are no buffer of this session */
	uint64_t bytes;
};
/* The session's buffers as user blocks appended to f (kt_ctl_dump). */
int kt_ubuf_collect(FILE *f, struct kt_ubuf_info *info);

struct kt_dump_info {
	uint64_t blocks;
	uint64_t bytes;
	int wrapped;
	int full;		/* tracing stopped because the buffer filled */
	int ipc;
	struct kt_ubuf_info user;	/* the user buffers appended */
	/* wrap mode: blocks overwritten per CPU, as LOST entries in the file */
	uint64_t lost_blocks[KUTRACE_MAX_CPUS];
};
/*
 * OFF, FLUSH and write the raw trace file (docs/spec/FORMATS.md 2.5) to fname via
 * a temporary file; nothing is left behind on failure (disk full).
 */
int kt_ctl_dump(const char *fname, struct kt_dump_info *info);
/*
 * Stream mode (stream.c, docs/spec/FORMATS.md 10): chunks in dir, cut at
 * rotate_bytes or rotate_sec (0: never), the newest max_files kept (0:
 * all).  The module only, after RESET with KUTRACE_RESET_STREAM (flags:
 * the flags RESET kept).  kt_stream_begin names the first chunk and turns
 * tracing on; kt_stream_pump, called often (every 10..50 ms), writes what
 * is complete and cuts when due; kt_stream_end turns tracing off, writes
 * the rest and closes the last chunk.  0 or -errno.  A failed write is no
 * error: a warning line, then a flight recorder that counts what it lets
 * go (info.disk_full, lost_blocks).
 */
#define KT_STREAM_MAX_CPUS	KUTRACE_MAX_CPUS
/*
 * A chunk just closed, for on_close: a whole trace from start to stop
 * (counter and usec pairs), path in dir.  on_close may delete it.
 */
struct kt_chunk_done {
	const char *path;
	uint64_t n, bytes;
	uint64_t start_ctr, start_usec, stop_ctr, stop_usec;
};
struct kt_stream_opts {
	const char *dir;
	uint64_t rotate_bytes;
	unsigned int rotate_sec;
	unsigned int rotate_ms;		/* finer than rotate_sec; wins if set */
	unsigned int max_files;
	unsigned int flags;
	const char *process_name;
	const char *prog;		/* warnings' prefix; NULL: kutrace_control */
	void (*on_close)(void *ctx, const struct kt_chunk_done *c);
	void *ctx;
};
struct kt_stream_info {
	uint64_t chunks, blocks, bytes;
	uint64_t lost_disk;	/* blocks let go by the reader */
	int disk_full;
	uint64_t lost_entries[KT_STREAM_MAX_CPUS];	/* GETLOST, per CPU */
	uint64_t lost_blocks[KT_STREAM_MAX_CPUS];
};
int kt_stream_begin(const struct kt_stream_opts *o);
int kt_stream_pump(void);
/* Cut now (the chunk open is closed, on_close called): 0 or -errno. */
int kt_stream_cut(void);
int kt_stream_end(struct kt_stream_info *info);

/* "<stem>_<YYYYMMDD>_<HHMMSS>_<host>_<pid>.trace" (docs/spec/FORMATS.md 2.6). */
void kt_ctl_trace_name(const char *stem, char *buf, size_t len);

#endif /* LIBKUTRACE_CHANNEL_H */

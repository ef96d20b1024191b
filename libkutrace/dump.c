// SPDX-License-Identifier: BSD-3-Clause
/*
 * dump.c - writing the raw trace file (docs/spec/FORMATS.md 2.5, 2.6):
 * OFF, FLUSH, then every block (and side block) through the module's
 * read-only mapping, the BPF backend's array or GETWORD, with the time
 * pairs in block 0, to a temporary file renamed at the end.
 */
#include <errno.h>
#include <sched.h>
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

/*
 * tests/vm/ifuzz.c reads the parameter with its own copy on purpose: that
 * guest program is built alone and reads it as any user could.
 */
long kt_module_tracemb(void)
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

/*
 * The start of CPU cpu's oldest block in the buffer that began after
 * after (56-bit counter times), or 0 when it has none.
 */
static uint64_t next_block_start(struct src *s, uint64_t nblocks,
				 unsigned int cpu, uint64_t after)
{
	uint64_t best = 0, w[1];

	for (uint64_t i = 0; i < nblocks; i++) {
		uint64_t t;

		if (s->map)
			memcpy(w, s->map + s->size - (i + 1) * KUTRACE_BLOCK_BYTES,
			       sizeof(w));
		else if (kt_ctl_cmd(KUTRACE_CMD_GETWORD, i * KUTRACE_BLOCK_WORDS,
				    &w[0]))
			return 0;
		if ((unsigned int)(w[0] >> KUTRACE_HDR_CPU_SHIFT) != cpu)
			continue;
		t = w[0] & KUTRACE_HDR_LOW56;
		if (t > after && (!best || t < best))
			best = t;
	}
	return best;
}

/*
 * A wrapped trace's block 0 gives only its names (FORMATS 8, step 3): an
 * entry inserted there would be lost to readers.  Its CPU may still be
 * filling it (a CPU mostly idle), so the inserts run on another CPU,
 * one that lost nothing if there is one (a LOST entry of the block's own
 * CPU also restarts that CPU's state).  1 if pinned (*old to restore).
 */
static int pin_away(struct src *s, unsigned int ncpu, cpu_set_t *old)
{
	uint64_t w0 = 0, b;
	unsigned int cpu0, pick = ncpu;
	cpu_set_t one;

	if (s->map)
		memcpy(&w0, s->map + s->size - KUTRACE_BLOCK_BYTES, sizeof(w0));
	else if (kt_ctl_cmd(KUTRACE_CMD_GETWORD, 0, &w0))
		return 0;
	cpu0 = (unsigned int)(w0 >> KUTRACE_HDR_CPU_SHIFT);
	if (sched_getaffinity(0, sizeof(*old), old))
		return 0;
	for (unsigned int c = 0; c < ncpu; c++) {
		if (c == cpu0 || !CPU_ISSET(c, old))
			continue;
		b = 0;
		kt_ctl_cmd(KUTRACE_CMD_GETLOST, (uint64_t)c << 2 |
			   KUTRACE_GETLOST_BLOCKS, &b);
		if (pick == ncpu || !b)
			pick = c;
		if (!b)
			break;
	}
	if (pick == ncpu)
		return 0;	/* one CPU: it is past block 0, or lost nothing */
	CPU_ZERO(&one);
	CPU_SET(pick, &one);
	return sched_setaffinity(0, sizeof(one), &one) == 0;
}

/*
 * Flight recorder (FORMATS 10.1, 10.3): one LOST entry (reason OVERWRITE)
 * per CPU whose blocks were overwritten, inserted before the flush, so
 * that the file says where its holes are.  The interval runs from the
 * first overwritten block's start to the start of the CPU's oldest block
 * still held after the last overwritten one.  An insert may itself take a
 * block and overwrite one more: that block gets an entry of its own, so
 * the file holds exactly the blocks GETLOST counts.  Tracing is off.
 */
static void note_overwrites(struct kt_dump_info *info)
{
	static uint64_t done[KUTRACE_MAX_CPUS], end[KUTRACE_MAX_CPUS];
	long n = sysconf(_SC_NPROCESSORS_CONF), mb = kt_module_tracemb();
	unsigned int ncpu = n > 0 && n < KUTRACE_MAX_CPUS ?
			    (unsigned int)n : KUTRACE_MAX_CPUS;
	uint64_t count = 0, nblocks;
	struct src s = { 0 };
	cpu_set_t old;
	int pinned;

	if (kt_ctl_cmd(KUTRACE_CMD_GETCOUNT, 0, &count) || (int64_t)count >= 0)
		return;	/* not wrapped: nothing overwritten */
	nblocks = ~count / KUTRACE_BLOCK_WORDS;
	if (mb > 0) {
		s.size = (size_t)mb << 20;
		s.map = mmap(NULL, s.size, PROT_READ, MAP_SHARED, kt_ctl.fd, 0);
		if (s.map == MAP_FAILED)
			s.map = NULL;
	}
	pinned = pin_away(&s, ncpu, &old);
	memset(done, 0, sizeof(done));
	for (int round = 0; round < 4; round++) {
		int more = 0;

		for (unsigned int c = 0; c < ncpu; c++) {
			uint64_t b = 0, first = 0, last = 0, stop, w[4];

			if (kt_ctl_cmd(KUTRACE_CMD_GETLOST, (uint64_t)c << 2 |
				       KUTRACE_GETLOST_BLOCKS, &b) ||
			    b <= done[c])
				continue;
			kt_ctl_cmd(KUTRACE_CMD_GETLOST, (uint64_t)c << 2 |
				   KUTRACE_GETLOST_FIRST, &first);
			kt_ctl_cmd(KUTRACE_CMD_GETLOST, (uint64_t)c << 2 |
				   KUTRACE_GETLOST_LAST, &last);
			if (done[c])
				first = end[c];
			stop = next_block_start(&s, nblocks, c, last);
			if (!stop)
				stop = last;	/* none left after it */
			w[0] = kutrace_make_word(KUTRACE_LOST_EVENT, c |
				(KUTRACE_LOST_OVERWRITE << KUTRACE_LOST_WHY_SHIFT) |
				((b - done[c] > KUTRACE_LOST_BLOCKS_MAX ?
				  KUTRACE_LOST_BLOCKS_MAX : b - done[c]) <<
				 KUTRACE_LOST_BLOCKS_SHIFT));
			w[1] = 0;
			w[2] = first & KUTRACE_HDR_LOW56;
			w[3] = stop & KUTRACE_HDR_LOW56;
			if (kt_ctl_cmd(KUTRACE_IOC_INSERTN_FORCED_NR,
				       (uint64_t)(uintptr_t)w, NULL))
				break;
			info->lost_blocks[c] = b;
			done[c] = b;
			end[c] = stop;
			more = 1;
		}
		if (!more)
			break;
	}
	if (pinned)
		sched_setaffinity(0, sizeof(old), &old);
	if (s.map)
		munmap((void *)s.map, s.size);
	/* The entries are in the trace: the stop pair comes after them. */
	for (unsigned int c = 0; c < ncpu; c++)
		if (done[c]) {
			kt_ctl_time_pair(&kt_ctl.stop_ctr, &kt_ctl.stop_usec);
			break;
		}
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
	if (!e && kt_ctl.via == KT_CTL_DEVICE)
		note_overwrites(info);
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
	mb = kt_module_tracemb();
	if (kt_ctl.via == KT_CTL_BPF) {
		s.map = kt_bpf_chan_buffer(&s.size);	/* the channel's */
		perm = malloc(nblocks * sizeof(*perm));
		if (perm && !kt_bpf_chan_order(&nblocks, perm))
			s.perm = perm;
	} else if (kt_ctl.via == KT_CTL_DEVICE && mb > 0) {
		s.size = (size_t)mb << 20;
		s.map = mmap(NULL, s.size, PROT_READ, MAP_SHARED, kt_ctl.fd, 0);
		if (s.map == MAP_FAILED)
			s.map = NULL;
	}
	w = malloc(KUTRACE_BLOCK_BYTES);
	snprintf(tmp, sizeof(tmp), "%s.tmp%d", fname, (int)getpid());
	if (!w || (kt_ctl.via == KT_CTL_BPF && !perm)) {
		e = -ENOMEM;
		goto out;
	}
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

			if (!kt_ctl.stop_ctr)
				kt_ctl_time_pair(&kt_ctl.stop_ctr, &kt_ctl.stop_usec);
			if (!kt_ctl.start_ctr) {
				/*
				 * Tracing was started by another process
				 * (kutrace_control 1): derive the start pair
				 * from the counter's rate (arm64: CNTFRQ_EL0)
				 * or the CPU clock, ticks = cycles >> 6.
				 */
				char mhz[64];
				double tpu;

				kt_first_line_after("/proc/cpuinfo", "cpu MHz", mhz,
						 sizeof(mhz));
				tpu = atof(mhz) / (1 << KUTRACE_TSC_SHIFT);
				if (kt_counter_ticks_per_usec() > 0)
					tpu = kt_counter_ticks_per_usec();
				if (kt_ctl.via == KT_CTL_BPF)	/* ns >> 6 */
					tpu = 1000.0 / (1 << KUTRACE_TSC_SHIFT);
				if (tpu < 1)
					tpu = 50;
				kt_ctl.start_ctr = c0;
				kt_ctl.start_usec = kt_ctl.stop_usec -
					(uint64_t)((double)(kt_ctl.stop_ctr - c0) / tpu);
			}
		}
		flags = (unsigned int)(w[KUTRACE_HDR_FLAGS_USEC] >>
				       KUTRACE_HDR_FLAGS_SHIFT);
		if (i == 0) {
			flags = (flags & ~KUTRACE_FLAG_VERSION) |
				KUTRACE_FILE_VERSION;
			if (!wrapped)
				flags &= ~KUTRACE_FLAG_WRAP;
			w[KUTRACE_HDR_START_CTR] = kt_ctl.start_ctr;
			w[KUTRACE_HDR_START_USEC] = kt_ctl.start_usec;
			w[KUTRACE_HDR_STOP_CTR] = kt_ctl.stop_ctr;
			w[KUTRACE_HDR_STOP_USEC] = kt_ctl.stop_usec;
			info->ipc = !!(flags & KUTRACE_FLAG_IPC);
		}
		slope = (double)(kt_ctl.stop_usec - kt_ctl.start_usec) /
			(double)(kt_ctl.stop_ctr > kt_ctl.start_ctr ?
				 kt_ctl.stop_ctr - kt_ctl.start_ctr : 1);
		bctr = w[KUTRACE_HDR_CPU_TIME] & KUTRACE_HDR_LOW56;
		w[KUTRACE_HDR_FLAGS_USEC] = ((uint64_t)flags <<
					     KUTRACE_HDR_FLAGS_SHIFT) |
			((kt_ctl.start_usec + (int64_t)((double)((int64_t)(bctr -
				kt_ctl.start_ctr)) * slope)) & KUTRACE_HDR_LOW56);
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
	/* After the kernel's blocks: the user buffers, kept apart (FORMATS 9). */
	e = kt_ubuf_collect(f, &info->user);
	if (e)
		goto out;
	info->bytes += info->user.bytes;
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
	if (s.map && kt_ctl.via != KT_CTL_BPF)
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


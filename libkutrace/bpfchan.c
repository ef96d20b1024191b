// SPDX-License-Identifier: BSD-3-Clause
/*
 * bpfchan.c - the control channel to the BPF backend (bpf/): the
 * control commands carried out on the pinned state and buffer maps
 * (KT_BPF_PIN), which this file maps with plain bpf(2) calls, so that
 * libkutrace needs no libbpf.  Inserts go through system call 1023, which
 * the backend's sys_enter program sees on the caller's CPU (the call then
 * fails with ENOSYS, as no kernel serves it).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <linux/bpf.h>

#include "kutrace/format.h"
#include "bpfstate.h"
#include "bpfchan.h"

static struct kt_bpf_state *st;
static size_t st_size;
static uint8_t *buf;
static size_t buf_size;

static int obj_get(const char *path)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.pathname = (uint64_t)(uintptr_t)path;
	return (int)syscall(__NR_bpf, BPF_OBJ_GET, &a, sizeof(a));
}

int kt_bpf_chan_present(void)
{
	return access(KT_BPF_PIN "/state", F_OK) == 0;
}

int kt_bpf_chan_open(void)
{
	int sfd, bfd, e = 0;

	if (st)
		return 0;
	sfd = obj_get(KT_BPF_PIN "/state");
	if (sfd < 0)
		return errno == ENOENT ? -ENOENT : -errno;
	bfd = obj_get(KT_BPF_PIN "/buf");
	if (bfd < 0) {
		e = -errno;
		close(sfd);
		return e;
	}
	st_size = (sizeof(*st) + 4095) & ~(size_t)4095;
	st = mmap(NULL, st_size, PROT_READ | PROT_WRITE, MAP_SHARED, sfd, 0);
	if (st == MAP_FAILED) {
		e = -errno;
		st = NULL;
	} else if (st->version != KT_BPF_STATE_VERSION) {
		e = -EPROTO;
	} else {
		buf_size = st->nblocks * KUTRACE_BLOCK_BYTES;
		buf = mmap(NULL, buf_size, PROT_READ | PROT_WRITE, MAP_SHARED,
			   bfd, 0);
		if (buf == MAP_FAILED) {
			e = -errno;
			buf = NULL;
		}
	}
	close(sfd);
	close(bfd);
	if (e)
		kt_bpf_chan_close();
	return e;
}

void kt_bpf_chan_close(void)
{
	if (buf)
		munmap(buf, buf_size);
	if (st)
		munmap(st, st_size);
	buf = NULL;
	st = NULL;
}

const uint8_t *kt_bpf_chan_buffer(size_t *size)
{
	*size = buf_size;
	return buf;
}

int kt_bpf_chan_stats(uint64_t *retried, uint64_t *abandoned, uint64_t *lost)
{
	if (!st)
		return -ENOENT;
	*retried = st->retried;
	*abandoned = st->nested;
	*lost = st->lost;
	return 0;
}

static const uint8_t *order_map;
static size_t order_size;

static uint64_t hdr_time(uint64_t j)
{
	const uint64_t *b = (const uint64_t *)(order_map + order_size -
					       (j + 1) * KUTRACE_BLOCK_BYTES);

	return b[KUTRACE_HDR_CPU_TIME] & KUTRACE_HDR_LOW56;
}

static int by_time(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	uint64_t tx = hdr_time(x), ty = hdr_time(y);

	if (x == 0 || y == 0)		/* block 0 (the names) stays first */
		return x == 0 ? -1 : 1;
	if (tx != ty)
		return tx < ty ? -1 : 1;
	return x < y ? -1 : 1;
}

int kt_bpf_chan_order(uint64_t *nblocks, uint64_t *perm)
{
	uint64_t n = *nblocks, k = 0;

	if (!buf || n > st->nblocks)
		return -EINVAL;
	for (uint64_t i = 0; i < n; i++)
		perm[i] = i;
	/*
	 * A CPU's spare (set up by a program that a nested one overtook at a
	 * block switch, kept for the CPU's next switch) holds only its header
	 * until a switch takes it.  One no switch took by the end is left
	 * out: in the file it would read as a block that ended early while
	 * its CPU went on in another (entries lost).  The spare is kept as the
	 * end (limit) of its words, and blocks lie from the top down; block 0,
	 * the names, always stays.
	 */
	for (int c = 0; c < KT_BPF_MAX_CPUS; c++) {
		uint64_t sp = st->cpu[c].spare, j;

		if (!sp)
			continue;
		j = st->nblocks - sp / KUTRACE_BLOCK_WORDS;
		if (j > 0 && j < n)
			perm[j] = n;	/* marked: dropped below */
	}
	for (uint64_t i = 0; i < n; i++)
		if (perm[i] < n)
			perm[k++] = perm[i];
	*nblocks = k;
	order_map = buf;
	order_size = buf_size;
	qsort(perm, k, sizeof(*perm), by_time);
	return 0;
}

uint64_t kt_bpf_chan_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((uint64_t)ts.tv_sec * 1000000000 + (uint64_t)ts.tv_nsec) >>
	       KUTRACE_TSC_SHIFT;
}

static uint64_t blocks_used(void)
{
	uint64_t h = __atomic_load_n(&st->handed, __ATOMIC_ACQUIRE);

	return st->wrapped || h > st->nblocks ? st->nblocks : h;
}

/* Zero the rest of every CPU's block; later entries take a new block. */
static uint64_t flush(void)
{
	uint64_t n = 0, *w = (uint64_t *)buf;

	__atomic_store_n(&st->tracing, 0, __ATOMIC_RELEASE);
	for (int c = 0; c < KT_BPF_MAX_CPUS; c++) {
		struct kt_bpf_cpu *cp = &st->cpu[c];
		uint64_t p = cp->next;
		uint64_t lim = (p & ~(uint64_t)(KUTRACE_BLOCK_WORDS - 1)) +
			       KUTRACE_BLOCK_WORDS;

		if (!p || lim > buf_size / 8)
			continue;
		memset(w + p, 0, (lim - p) * 8);
		n += lim - p;
		cp->next = 0;
	}
	return n;
}

static uint64_t reset(uint64_t flags)
{
	__atomic_store_n(&st->tracing, 0, __ATOMIC_RELEASE);
	usleep(1000);	/* programs still running finish meanwhile */
	flags &= KUTRACE_RESET_WRAP;	/* no IPC: programs read no counters */
	memset(st->cpu, 0, sizeof(st->cpu));
	memset(st->pid_filter, 0, sizeof(st->pid_filter));
	st->handed = 0;
	st->wrapped = 0;
	st->full = 0;
	st->lost = 0;
	st->nested = 0;
	st->named = 0;
	st->retried = 0;
	st->flags = flags;
	return flags;
}

/* Inserts: the backend's sys_enter program records them. */
static uint64_t insert(uint64_t cmd, uint64_t arg, unsigned int len)
{
	int on = __atomic_load_n(&st->tracing, __ATOMIC_ACQUIRE) != 0;

	syscall(KUTRACE_CONTROL_SYSCALL, cmd, arg);
	if (cmd == KUTRACE_CMD_INSERT1_FORCED ||
	    cmd == KUTRACE_CMD_INSERTN_FORCED)
		return len;
	return on ? len : 0;
}

/* The trace says which backend wrote it (as the module does at ON). */
static void name_backend(void)
{
	uint64_t w[KUTRACE_MAX_ENTRY_WORDS] = { 0 };
	size_t n = strnlen(st->what, KUTRACE_NAME_MAX);
	unsigned int len = 1 + (unsigned int)((n + 7) / 8);

	if (!n)
		return;
	/* arg 0: no backend number of its own (format.h numbers 1 and 2) */
	w[0] = kutrace_make_word(KUTRACE_BACKEND_NAME |
				 (len << KUTRACE_LEN_SHIFT), 0);
	memcpy(&w[1], st->what, n);
	insert(KUTRACE_CMD_INSERTN_FORCED, (uint64_t)(uintptr_t)w, len);
	st->named = 1;
}

int kt_bpf_chan_cmd(unsigned int nr, uint64_t arg, uint64_t *result)
{
	uint64_t r = 0;

	if (!st)
		return -ENOENT;
	switch (nr) {
	case KUTRACE_CMD_OFF:
		__atomic_store_n(&st->tracing, 0, __ATOMIC_RELEASE);
		break;
	case KUTRACE_CMD_ON:
		if (!st->named)
			name_backend();
		__atomic_store_n(&st->tracing, 1, __ATOMIC_RELEASE);
		r = 1;
		break;
	case KUTRACE_CMD_FLUSH:
		r = flush();
		break;
	case KUTRACE_CMD_RESET:
		r = reset(arg);
		break;
	case KUTRACE_CMD_STAT:
		r = blocks_used();
		break;
	case KUTRACE_CMD_GETCOUNT:
		r = blocks_used() * KUTRACE_BLOCK_WORDS;
		if (st->wrapped)
			r = ~r;
		break;
	case KUTRACE_CMD_TEST:
		r = __atomic_load_n(&st->tracing, __ATOMIC_ACQUIRE) != 0;
		break;
	case KUTRACE_CMD_VERSION:
		r = KUTRACE_MODULE_VERSION;
		break;
	case KUTRACE_CMD_INSERT1:
		r = insert(KUTRACE_CMD_INSERT1, arg, 1);
		break;
	case KUTRACE_CMD_INSERTN:
	case KUTRACE_IOC_INSERTN_FORCED_NR: {
		uint64_t w0 = *(const uint64_t *)(uintptr_t)arg;
		unsigned int len = (kutrace_word_event(w0) >> KUTRACE_LEN_SHIFT) &
				   KUTRACE_LEN_MASK;

		r = insert(nr == KUTRACE_CMD_INSERTN ? KUTRACE_CMD_INSERTN :
			   KUTRACE_CMD_INSERTN_FORCED, arg, len);
		break;
	}
	case KUTRACE_IOC_INSERT1_FORCED_NR:
		r = insert(KUTRACE_CMD_INSERT1_FORCED, arg, 1);
		break;
	default:
		/* GETWORD, GET4KB & co.: the buffer is mapped instead. */
		return -ENOTTY;
	}
	if (result)
		*result = r;
	return 0;
}

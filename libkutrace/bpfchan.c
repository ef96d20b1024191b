// SPDX-License-Identifier: BSD-3-Clause
/*
 * bpfchan.c - the control channel to the BPF backend (bpf/): the
 * control commands carried out on the pinned state, buffer and slot maps
 * (KT_BPF_PIN), which this file maps with plain bpf(2) calls, so that
 * libkutrace needs no libbpf.  Inserts go through system call 1023, which
 * the backend's sys_enter program sees on the caller's CPU (the call then
 * fails with ENOSYS, as no kernel serves it).
 */
#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <linux/bpf.h>

#include "kutrace/format.h"
#include "bpfstate.h"
#include "bpfchan.h"

static struct kt_bpf_state *st;
static size_t st_size;
static uint8_t *buf;
static size_t buf_size;
static uint64_t *slots;		/* stream mode's slot states; NULL: none */
static size_t slots_size;
static uint64_t take_at, alloc_at;	/* where the reader's scans go on */

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
	int sfd, bfd, lfd, e = 0;

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
	/* No slot map (set up by an older kutrace_control): no streaming. */
	lfd = obj_get(KT_BPF_PIN "/slot");
	if (!e && lfd >= 0) {
		slots_size = (st->nblocks * 8 + 4095) & ~(size_t)4095;
		slots = mmap(NULL, slots_size, PROT_READ | PROT_WRITE,
			     MAP_SHARED, lfd, 0);
		if (slots == MAP_FAILED)
			slots = NULL;
	}
	if (lfd >= 0)
		close(lfd);
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
	if (slots)
		munmap(slots, slots_size);
	buf = NULL;
	st = NULL;
	slots = NULL;
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
	/* no IPC: programs read no counters */
	flags &= KUTRACE_RESET_WRAP | (slots ? KUTRACE_RESET_STREAM : 0);
	if (flags & KUTRACE_RESET_STREAM)
		flags &= ~(uint64_t)KUTRACE_RESET_WRAP;
	__atomic_store_n(&st->flags, 0, __ATOMIC_SEQ_CST);
	memset(st->cpu, 0, sizeof(st->cpu));
	memset(st->pid_filter, 0, sizeof(st->pid_filter));
	st->handed = 0;
	st->wrapped = 0;
	st->full = 0;
	st->lost = 0;
	st->nested = 0;
	st->named = 0;
	st->retried = 0;
	st->early = 0;
	st->epoch = 0;
	st->hint = 0;
	st->free_count = 0;
	st->new_epoch = 0;
	if (flags & KUTRACE_RESET_STREAM) {
		/* Free slots are all zero: programs write headers and entries only. */
		memset(buf, 0, buf_size);
		memset(slots, 0, st->nblocks * 8);
		st->free_count = (int64_t)st->nblocks;
		st->new_epoch = 1;
		take_at = 0;
		alloc_at = 0;
	}
	__atomic_store_n(&st->flags, flags, __ATOMIC_SEQ_CST);
	return flags;
}

/*
 * Stream mode (docs/spec/FORMATS.md 10.1) over the maps.  A CPU's block
 * is closed by whoever moves the CPU's next word out of it, a program or
 * this reader (compare-and-exchange), and made complete once no write
 * into it is in flight on that CPU (its depth seen at 0 after the move).
 * This reader cannot run code on another CPU as the module's IPI does; it
 * closes a silent CPU's block from here instead.
 */
static uint64_t *slot_block(uint64_t b)
{
	return (uint64_t *)(buf + buf_size - (b + 1) * KUTRACE_BLOCK_BYTES);
}

static uint64_t slot_of(uint64_t word)
{
	return st->nblocks - 1 - word / KUTRACE_BLOCK_WORDS;
}

static uint64_t cur_epoch(void)
{
	return __atomic_load_n(&st->epoch, __ATOMIC_SEQ_CST) &
	       KUTRACE_STREAM_SLOT_MASK;
}

/*
 * Wait until no write is in flight on the CPU.  Programs never sleep, so
 * this takes microseconds (a preempted program: milliseconds); after a
 * second something is wrong: go on, counted in early.
 */
static void quiet(struct kt_bpf_cpu *cp)
{
	struct timespec t0, t, nap = { 0, 20000 };

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int i = 0; __atomic_load_n(&cp->depth, __ATOMIC_SEQ_CST) > 0; i++) {
		if (i < 64)
			continue;
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (t.tv_sec - t0.tv_sec > 1) {
			__atomic_fetch_add(&st->early, 1, __ATOMIC_SEQ_CST);
			return;
		}
		nanosleep(&nap, NULL);
	}
}

static void complete(uint64_t b)
{
	uint64_t old = __atomic_load_n(&slots[b], __ATOMIC_SEQ_CST);

	if ((old & KT_BPF_SLOT_STATE) == KT_BPF_SLOT_FILLING)
		__atomic_compare_exchange_n(&slots[b], &old,
					    (old & KT_BPF_SLOT_EPOCH) |
					    KT_BPF_SLOT_COMPLETE, 0,
					    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}

/* A slot the reader is done with, or one never used: zeroed, free. */
static void free_slot(uint64_t b)
{
	memset(slot_block(b), 0, KUTRACE_BLOCK_BYTES);
	__atomic_store_n(&slots[b], KT_BPF_SLOT_FREE, __ATOMIC_SEQ_CST);
	__atomic_fetch_add(&st->free_count, 1, __ATOMIC_SEQ_CST);
}

/* A free slot labelled label (epoch word) for a block written here, or -1. */
static int64_t alloc_slot(uint64_t label)
{
	for (uint64_t i = 0; i < st->nblocks; i++) {
		uint64_t b = (alloc_at + i) % st->nblocks, v = KT_BPF_SLOT_FREE;

		if (__atomic_compare_exchange_n(&slots[b], &v,
						KT_BPF_SLOT_FILLING | label, 0,
						__ATOMIC_SEQ_CST,
						__ATOMIC_SEQ_CST)) {
			__atomic_fetch_sub(&st->free_count, 1, __ATOMIC_SEQ_CST);
			alloc_at = b + 1;
			return (int64_t)b;
		}
	}
	return -1;
}

/* Which blocks retire() closes. */
enum { ANY_BLOCK, OLD_EPOCH, FIRST_BLOCK };

/* Close the CPU's block, if it is of the kind asked for. */
static void retire(struct kt_bpf_cpu *cp, int which)
{
	__u64 old;
	uint64_t b, v;

	for (;;) {
		old = __atomic_load_n(&cp->next, __ATOMIC_SEQ_CST);
		if (!old)
			return;
		b = slot_of(old);
		if (b >= st->nblocks)
			return;
		v = __atomic_load_n(&slots[b], __ATOMIC_SEQ_CST);
		if (which == OLD_EPOCH &&
		    (v & KUTRACE_STREAM_SLOT_MASK) == cur_epoch())
			return;
		if (which == FIRST_BLOCK && !(v & KUTRACE_STREAM_FIRST))
			return;
		if (__atomic_compare_exchange_n(&cp->next, &old, 0, 0,
						__ATOMIC_SEQ_CST,
						__ATOMIC_SEQ_CST))
			break;
	}
	quiet(cp);
	complete(b);
}

/* What programs hold back (kt_close), and a spare nobody installed. */
static void settle(struct kt_bpf_cpu *cp)
{
	uint64_t b;

	quiet(cp);
	b = __atomic_exchange_n(&cp->spare, 0, __ATOMIC_SEQ_CST);
	if (b)
		free_slot(slot_of(b - KUTRACE_BLOCK_WORDS));
	for (int i = 0; i < KT_BPF_PENDING; i++) {
		b = __atomic_exchange_n(&cp->pending[i], 0, __ATOMIC_SEQ_CST);
		if (!b)
			continue;
		quiet(cp);
		complete(b - 1);
	}
}

/* A block header as kt_head writes it; returns its first entry word. */
static unsigned int put_header(uint64_t *w, unsigned int cpu, uint64_t now,
			       int first, uint32_t pid, const char *comm)
{
	unsigned int h = first ? KUTRACE_HDR0_PID : KUTRACE_HDRN_PID;

	w[KUTRACE_HDR_CPU_TIME] = ((uint64_t)cpu << KUTRACE_HDR_CPU_SHIFT) |
				  (now & KUTRACE_HDR_LOW56);
	w[KUTRACE_HDR_FLAGS_USEC] = 0;
	w[h] = pid;
	w[h + 1] = 0;
	memset(&w[h + 2], 0, KUTRACE_HDR_COMM_BYTES);
	memcpy(&w[h + 2], comm, strnlen(comm, KUTRACE_HDR_COMM_BYTES));
	return h + 4;
}

/* A LOST entry (10.3) at w for n entries the CPU lost. */
static unsigned int put_lost(struct kt_bpf_cpu *cp, uint64_t *w,
			     unsigned int cpu, uint64_t now, uint64_t n)
{
	w[0] = ((now & KUTRACE_TS_MASK) << KUTRACE_TS_SHIFT) |
	       kutrace_make_word(KUTRACE_LOST_EVENT,
				 (cpu & KUTRACE_LOST_CPU_MASK) |
				 (KUTRACE_LOST_READER << KUTRACE_LOST_WHY_SHIFT));
	w[1] = n;
	w[2] = cp->lost_first & KUTRACE_HDR_LOW56;
	w[3] = cp->lost_last & KUTRACE_HDR_LOW56;
	return KUTRACE_LOST_WORDS;
}

/* n entries are in a LOST entry now; drops meanwhile stay for the next. */
static void lost_told(struct kt_bpf_cpu *cp, uint64_t n)
{
	if (__atomic_fetch_sub(&cp->lost, n, __ATOMIC_SEQ_CST) != n)
		cp->lost_first = cp->lost_last;
}

/*
 * Before a cut: each CPU that lost entries and has no block (a program
 * writes the LOST entry when it gets one) gets a block holding its LOST
 * entry, so that the loss is recorded in the chunk it happened in.  The
 * block is installed as the CPU's own with compare-and-exchange from 0: a
 * program that meanwhile got a block first wins and writes the entry
 * itself; one that read the counts before this finds its claim failed and
 * reads them again.  The cut closes the block as any other.
 */
static void lost_before_cut(void)
{
	for (unsigned int c = 0; c < KT_BPF_MAX_CPUS; c++) {
		struct kt_bpf_cpu *cp = &st->cpu[c];
		uint64_t n = __atomic_load_n(&cp->lost, __ATOMIC_SEQ_CST);
		uint64_t *w, now, word;
		__u64 zero = 0;
		unsigned int p;
		int64_t b;

		if (!n || __atomic_load_n(&cp->next, __ATOMIC_SEQ_CST))
			continue;
		b = alloc_slot(cur_epoch());
		if (b < 0)
			return;
		w = slot_block((uint64_t)b);
		now = kt_bpf_chan_now();
		p = put_header(w, c, now, 0, 0, "");
		p += put_lost(cp, w + p, c, now, n);
		word = (st->nblocks - 1 - (uint64_t)b) * KUTRACE_BLOCK_WORDS + p;
		cp->prior = now;
		if (__atomic_compare_exchange_n(&cp->next, &zero, word, 0,
						__ATOMIC_SEQ_CST,
						__ATOMIC_SEQ_CST))
			lost_told(cp, n);
		else
			free_slot((uint64_t)b);
	}
}

static uint64_t stream_take(void)
{
	for (uint64_t i = 0; i < st->nblocks; i++) {
		uint64_t b = (take_at + i) % st->nblocks;
		uint64_t v = __atomic_load_n(&slots[b], __ATOMIC_SEQ_CST);

		if ((v & KT_BPF_SLOT_STATE) != KT_BPF_SLOT_COMPLETE ||
		    !__atomic_compare_exchange_n(&slots[b], &v,
						 (v & KT_BPF_SLOT_EPOCH) |
						 KT_BPF_SLOT_TAKEN, 0,
						 __ATOMIC_SEQ_CST,
						 __ATOMIC_SEQ_CST))
			continue;
		take_at = b + 1;
		return ((v & KUTRACE_STREAM_SLOT_MASK) <<
			KUTRACE_STREAM_EPOCH_SHIFT) |
		       (v & KUTRACE_STREAM_FIRST) | (b + 1);
	}
	return 0;
}

static int stream_give(uint64_t b)
{
	if (b >= st->nblocks || (__atomic_load_n(&slots[b], __ATOMIC_SEQ_CST) &
				 KT_BPF_SLOT_STATE) != KT_BPF_SLOT_TAKEN)
		return -EINVAL;
	free_slot(b);
	return 0;
}

static void name_backend(void);

/*
 * CUT_ALL: the caller's CPU gets the new epoch's first block, written
 * here (12-word header, then the CPU's LOST entry if any and a USERPID at
 * the header's time, as the module's); then every CPU's older block is
 * closed.  Blocks a program set up before it saw the new epoch are
 * installed or held back before depth is 0, so settle() sees them.
 */
static uint64_t cut_all(void)
{
	int cpu = sched_getcpu();
	uint64_t e = (cur_epoch() + 1) & KUTRACE_STREAM_SLOT_MASK;
	int64_t b;

	lost_before_cut();
	b = cpu >= 0 && cpu < KT_BPF_MAX_CPUS ?
	    alloc_slot(e | KUTRACE_STREAM_FIRST) : -1;

	if (b >= 0) {
		struct kt_bpf_cpu *cp = &st->cpu[cpu];
		uint64_t *w = slot_block((uint64_t)b), now = kt_bpf_chan_now();
		uint32_t tid = (uint32_t)syscall(SYS_gettid);
		char comm[17] = "";
		unsigned int p;
		__u64 old;
		uint64_t word, n;

		prctl(PR_GET_NAME, comm);
		p = put_header(w, (unsigned int)cpu, now, 1, tid, comm);
		n = __atomic_load_n(&cp->lost, __ATOMIC_SEQ_CST);
		if (n)
			p += put_lost(cp, w + p, (unsigned int)cpu, now, n);
		w[p++] = ((now & KUTRACE_TS_MASK) << KUTRACE_TS_SHIFT) |
			 kutrace_make_word(KUTRACE_USERPID,
					   tid & KUTRACE_ARG0_MASK);
		cp->prior = now;
		word = (st->nblocks - 1 - (uint64_t)b) * KUTRACE_BLOCK_WORDS + p;
		old = __atomic_load_n(&cp->next, __ATOMIC_SEQ_CST);
		while (!__atomic_compare_exchange_n(&cp->next, &old, word, 0,
						    __ATOMIC_SEQ_CST,
						    __ATOMIC_SEQ_CST))
			;
		if (n)
			lost_told(cp, n);
		if (old) {
			quiet(cp);
			complete(slot_of(old));
		}
		__atomic_store_n(&st->epoch, e, __ATOMIC_SEQ_CST);
	} else {
		/* No slot free: the next block handed out is the first. */
		__atomic_store_n(&st->epoch, e, __ATOMIC_SEQ_CST);
		__atomic_store_n(&st->new_epoch, 1, __ATOMIC_SEQ_CST);
	}
	/* Every task seen in the new chunk is named in it again. */
	memset(st->pid_filter, 0, sizeof(st->pid_filter));
	for (int c = 0; c < KT_BPF_MAX_CPUS; c++) {
		settle(&st->cpu[c]);
		retire(&st->cpu[c], OLD_EPOCH);
		settle(&st->cpu[c]);
	}
	/* Each chunk names its backend (FORMATS 10.2): into the first block. */
	name_backend();
	return e;
}

/* CUT_LOST: each CPU's pending LOST entry, alone in a block of its own. */
static void cut_lost(void)
{
	for (unsigned int c = 0; c < KT_BPF_MAX_CPUS; c++) {
		struct kt_bpf_cpu *cp = &st->cpu[c];
		uint64_t now, *w, n;
		unsigned int p;
		int64_t b;

		if (!__atomic_load_n(&cp->lost, __ATOMIC_SEQ_CST))
			continue;
		b = alloc_slot(cur_epoch());
		if (b < 0)
			return;
		w = slot_block((uint64_t)b);
		now = kt_bpf_chan_now();
		p = put_header(w, c, now, 0, 0, "");
		n = __atomic_load_n(&cp->lost, __ATOMIC_SEQ_CST);
		put_lost(cp, w + p, c, now, n);
		lost_told(cp, n);
		complete((uint64_t)b);
	}
}

/* FLUSH in stream mode: every CPU's block goes to the reader. */
static void stream_flush(void)
{
	for (int c = 0; c < KT_BPF_MAX_CPUS; c++) {
		settle(&st->cpu[c]);
		retire(&st->cpu[c], ANY_BLOCK);
	}
}

static uint64_t getlost(uint64_t arg)
{
	uint64_t c = arg / KUTRACE_GETLOST_FIELDS;
	struct kt_bpf_cpu *cp;

	if (c >= KT_BPF_MAX_CPUS)
		return 0;
	cp = &st->cpu[c];
	switch (arg % KUTRACE_GETLOST_FIELDS) {
	case KUTRACE_GETLOST_ENTRIES:
		return cp->lost_total;
	case KUTRACE_GETLOST_BLOCKS:
		return 0;	/* no flight recorder counts here */
	case KUTRACE_GETLOST_FIRST:
		return cp->total_first;
	default:
		return cp->total_last;
	}
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
	int stream;

	if (!st)
		return -ENOENT;
	stream = slots && (st->flags & KUTRACE_RESET_STREAM);
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
		if (stream) {
			__atomic_store_n(&st->tracing, 0, __ATOMIC_SEQ_CST);
			stream_flush();
		} else {
			r = flush();
		}
		break;
	case KUTRACE_CMD_RESET:
		r = reset(arg);
		break;
	case KUTRACE_CMD_STAT:
		r = stream ? 0 : blocks_used();
		break;
	case KUTRACE_CMD_GETCOUNT:
		if (stream)
			break;	/* the file is the chunks */
		r = blocks_used() * KUTRACE_BLOCK_WORDS;
		if (st->wrapped)
			r = ~r;
		break;
	case KUTRACE_CMD_STREAM_TAKE:
		r = stream ? stream_take() : 0;
		break;
	case KUTRACE_CMD_STREAM_GIVE:
		if (!stream || stream_give(arg))
			return -EINVAL;
		break;
	case KUTRACE_CMD_STREAM_CUT:
		if (!stream)
			return -EINVAL;
		if (arg == KUTRACE_CUT_ALL) {
			r = cut_all();
		} else if (arg == KUTRACE_CUT_SELF) {
			int cpu = sched_getcpu();

			/*
			 * The names' block only: when other tasks of this CPU
			 * filled it meanwhile, it is complete already, and
			 * closing their next block early would read as loss.
			 */
			if (cpu >= 0 && cpu < KT_BPF_MAX_CPUS)
				retire(&st->cpu[cpu], FIRST_BLOCK);
			r = cur_epoch();
		} else if (arg == KUTRACE_CUT_LOST) {
			cut_lost();
			r = cur_epoch();
		} else {
			return -EINVAL;
		}
		break;
	case KUTRACE_CMD_GETLOST:
		r = getlost(arg);
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

// SPDX-License-Identifier: GPL-2.0
/*
 * kutrace_core.c - the trace buffer: per-CPU 64 KB blocks, lock-free claim,
 * call/return fusion, TSDELTA, wraparound, IPC side bytes.
 *
 * This is the whole fast path.  It uses only what kutrace_env.h provides
 * so that it compiles unchanged into a userspace benchmark harness.
 *
 * Buffer layout (docs/spec/FORMATS.md 3.3): blocks are handed out downward from
 * kt_st.high; with IPC on, the low eighth of the buffer holds one side
 * byte per word (byte for word w at byte offset w from the base).
 */
#include "kutrace_core.h"

struct kt_state kt_st;
bool kt_tracing;
static KT_ENV_LOCK_TYPE kt_lock = KT_ENV_LOCK_INIT(kt_lock);

/* Userspace: kutrace_env_user.h gives each "CPU" its own cache line. */
static DEFINE_PER_CPU(struct kt_cpu, kt_cpus);
#define KT_THIS()	this_cpu_ptr(&kt_cpus)
#define KT_CPU(c)	per_cpu_ptr(&kt_cpus, (c))

#define KT_WORDS	KUTRACE_BLOCK_WORDS

static inline u8 *kt_side_byte(const u64 *p)
{
	return (u8 *)kt_st.base + (p - kt_st.base);
}

#define KT_STREAM	(kt_st.flags & KUTRACE_RESET_STREAM)

static u32 kt_slot_of(const u64 *blk_end)
{
	return (u32)((kt_st.high - blk_end) / KT_WORDS);
}

/* Queue operations; kt_lock held. */
static void kt_q_push(u32 *q, u32 head, u32 *count, u32 slot)
{
	q[(head + *count) % kt_st.st.n] = slot;
	(*count)++;
}

static u32 kt_q_pop(u32 *q, u32 *head, u32 *count)
{
	u32 slot = q[*head];

	*head = (*head + 1) % kt_st.st.n;
	(*count)--;
	return slot;
}

/* A free slot for a new block (stream mode, kt_lock held), or NULL. */
static u64 *kt_stream_slot(bool *first)
{
	struct kt_stream *s = &kt_st.st;
	u32 slot;

	if (!s->free_count)
		return NULL;
	slot = kt_q_pop(s->freeq, &s->free_head, &s->free_count);
	s->state[slot] = KT_SLOT_FILLING;
	s->epoch[slot] = s->cur_epoch |
			 (s->new_epoch ? (u32)KUTRACE_STREAM_FIRST : 0);
	*first = s->new_epoch;
	s->new_epoch = false;
	return kt_st.high - (u64)(slot + 1) * KT_WORDS;
}

/*
 * Flight recorder: blk, a block of CPU c's, is about to be reused.  Count
 * it lost on c, with its start time (docs/spec/FORMATS.md 10.1).
 */
static void kt_count_overwrite(const u64 *blk)
{
	unsigned int cpu = blk[KUTRACE_HDR_CPU_TIME] >> KUTRACE_HDR_CPU_SHIFT;
	u64 t = blk[KUTRACE_HDR_CPU_TIME] & KUTRACE_HDR_LOW56;
	unsigned int i;

	kt_env_for_each_cpu(i) {
		struct kt_cpu *o = KT_CPU(i);

		if (i != cpu)
			continue;
		o->lost_blocks++;
		if (!o->total_first)
			o->total_first = t;
		o->total_last = t;
	}
}

/* Is the block starting at blk the current block of some CPU? */
static bool kt_block_in_use(const u64 *blk)
{
	unsigned int cpu;

	kt_env_for_each_cpu(cpu) {
		if (READ_ONCE(KT_CPU(cpu)->limit) == blk + KT_WORDS)
			return true;
	}
	return false;
}

/*
 * Hand out the next block and write its header.  Called with kt_lock held
 * and interrupts off.  Returns the first entry word, or NULL when the
 * buffer is full (tracing is then switched off).
 */
static u64 *kt_new_block(struct kt_cpu *c, u64 now)
{
	u64 *blk;
	u64 *hdr;
	bool first = kt_st.next_block == kt_st.high;
	unsigned int flags = 0;
	unsigned int tries = 0;
	const char *comm = c->sw_comm ? c->sw_comm : kt_env_comm();
	u32 pid = c->sw_comm ? c->sw_pid : kt_env_pid();

	if (KT_STREAM) {
		blk = kt_stream_slot(&first);
		if (!blk)
			return NULL;	/* the caller counts the loss */
		goto header;
	}
	blk = kt_st.next_block - KT_WORDS;
	while (blk < kt_st.limit || (kt_st.wrapped && kt_block_in_use(blk))) {
		if (!(kt_st.flags & KUTRACE_RESET_WRAP) || tries++ > 1024) {
			WRITE_ONCE(kt_tracing, false);
			kt_st.full = true;
			return NULL;
		}
		if (blk < kt_st.limit) {
			/* Wrap: restart below block 0, which keeps the names. */
			if (!kt_st.wrapped)
				memset(kt_st.pid_filter, 0, 8192);
			kt_st.wrapped = true;
			blk = kt_st.high - 2 * KT_WORDS;
			first = false;
		} else {
			blk -= KT_WORDS;	/* another CPU still fills it */
		}
	}
	kt_st.next_block = blk;
	if (kt_st.wrapped)
		kt_count_overwrite(blk);
header:
	if (kt_st.flags & KUTRACE_RESET_IPC)
		flags |= KUTRACE_FLAG_IPC;
	if (kt_st.flags & KUTRACE_RESET_WRAP)
		flags |= KUTRACE_FLAG_WRAP;
	memset(blk + KT_WORDS - KUTRACE_BLOCK_TAIL_ZERO, 0,
	       KUTRACE_BLOCK_TAIL_ZERO * sizeof(u64));
	blk[KUTRACE_HDR_CPU_TIME] =
		((u64)kt_env_cpu_id() << KUTRACE_HDR_CPU_SHIFT) |
		(now & KUTRACE_HDR_LOW56);
	blk[KUTRACE_HDR_FLAGS_USEC] = (u64)flags << KUTRACE_HDR_FLAGS_SHIFT;
	if (first) {
		memset(blk + 2, 0, 6 * sizeof(u64));
		hdr = blk + KUTRACE_HDR0_PID;
	} else {
		hdr = blk + KUTRACE_HDRN_PID;
	}
	hdr[0] = pid;
	hdr[1] = 0;
	memset(&hdr[2], 0, KUTRACE_HDR_COMM_BYTES);
	memcpy(&hdr[2], comm, strnlen(comm, KUTRACE_HDR_COMM_BYTES));
	c->first = hdr + 4;
	c->open = KT_STREAM;
	WRITE_ONCE(c->limit, blk + KT_WORDS);
	return c->first;
}

/* Lock-free claim of len words in this CPU's block; NULL = slow path. */
static inline u64 *kt_claim_fast(struct kt_cpu *c, unsigned int len)
{
	u64 *old;
	u64 *lim;

	for (;;) {
		old = READ_ONCE(c->next);
		lim = READ_ONCE(c->limit);
		if (unlikely(!old || old + len >= lim))
			return NULL;
		/* Fails if an interrupt on this CPU claimed in between. */
		if (kt_env_cmpxchg(&c->next, old, old + len) == old)
			return old;
	}
}

/*
 * Close this CPU's block: claim its remaining words, so that no nested
 * entry lands there any more, and zero them.  They hold an earlier trace's
 * (or lap's) entries, which a reader would take for this block's.
 */
static void kt_close_block(struct kt_cpu *c)
{
	u64 *old = READ_ONCE(c->next);
	u64 *lim = READ_ONCE(c->limit);
	struct kt_stream *s = &kt_st.st;
	u32 slot;

	while (old && old < lim) {
		if (kt_env_cmpxchg(&c->next, old, lim) == old) {
			memset(old, 0, (lim - old) * sizeof(u64));
			break;
		}
		old = READ_ONCE(c->next);
	}
	if (!c->open)
		return;
	/* Stream mode: the reader may have it now; nothing fuses into it. */
	c->open = false;
	c->first = lim;
	slot = kt_slot_of(lim);
	s->state[slot] = KT_SLOT_COMPLETE;
	kt_q_push(s->doneq, s->done_head, &s->done_count, slot);
}

/*
 * The LOST entry (docs/spec/FORMATS.md 10.3) that opens a CPU's first
 * block after it lost entries; returns the word after it.
 */
static u64 *kt_put_lost(struct kt_cpu *c, u64 *p, u64 now)
{
	p[0] = ((now & KUTRACE_TS_MASK) << KUTRACE_TS_SHIFT) |
	       kutrace_make_word(KUTRACE_LOST_EVENT,
				 (kt_env_cpu_id() & KUTRACE_LOST_CPU_MASK) |
				 (KUTRACE_LOST_READER <<
				  KUTRACE_LOST_WHY_SHIFT));
	p[1] = c->lost;
	p[2] = c->lost_first & KUTRACE_HDR_LOW56;
	p[3] = c->lost_last & KUTRACE_HDR_LOW56;
	c->lost = 0;
	c->lost_first = 0;
	c->lost_last = 0;
	c->prior = now;	/* a TSDELTA after it counts from it */
	c->first = p + KUTRACE_LOST_WORDS;
	return c->first;
}

/* An entry stream mode could not keep: no free slot. */
static void kt_count_lost(struct kt_cpu *c, u64 now)
{
	if (!c->lost)
		c->lost_first = now;
	c->lost_last = now;
	c->lost++;
	if (!c->total_first)
		c->total_first = now;
	c->total_last = now;
	c->lost_total++;
}

/*
 * Slow path: retry under the lock, else start a new block.  A new block's
 * header carries the full time, so the TSDELTA words are dropped then.
 */
static u64 *kt_claim_slow(struct kt_cpu *c, unsigned int len,
			  unsigned int *ntsd, bool force, u64 now)
{
	unsigned long fl = 0;
	u64 *p = NULL;

	kt_env_lock(&kt_lock, fl);
	if (!force)
		p = kt_claim_fast(c, len + *ntsd);
	if (!p) {
		kt_close_block(c);
		*ntsd = 0;
		p = kt_new_block(c, now);
		if (p && c->lost)
			p = kt_put_lost(c, p, now);
		if (p)
			WRITE_ONCE(c->next, p + len);
	}
	kt_env_unlock(&kt_lock, fl);
	return p;
}

static inline unsigned int kt_ipc_code(struct kt_cpu *c, u64 now)
{
	u64 inst;
	u64 ticks = now - c->prior;
	u64 v;

	if (!c->ipc_ok || !kt_env_read_inst(&inst))
		return 0;
	v = (inst - c->prior_inst) & ((1ULL << 40) - 1);
	c->prior_inst = inst;
	if (!c->prior || ticks < 2 || ticks > (1ULL << 32))
		return 0;
	return kutrace_ipc_code(v / (8 * ticks));
}

/*
 * Append len words (w[0] without timestamp).  Returns words written
 * (0 if tracing is off or the buffer is full).
 *
 * The counter is read with interrupts off, just before the claim, so no
 * entry of this CPU can slip in between: there are no late stores, and
 * time never steps backward within a CPU's blocks even when a virtual
 * CPU is descheduled for milliseconds.  The cmpxchg claim stays for NMIs.
 */
static int kt_put(const u64 *w, unsigned int len, bool forced, bool ipc)
{
	struct kt_cpu *c;
	u64 now, delta = 0, ts, step, *p;
	unsigned int i, ntsd = 0, code = 0;
	bool force = false;
	unsigned long fl = 0;

	if (unlikely(len < 1 || len > KUTRACE_MAX_ENTRY_WORDS))
		return 0;
	kt_env_irq_save(fl);
	if (unlikely(!READ_ONCE(kt_tracing) && !forced))
		goto out;
	c = KT_THIS();
	now = kt_env_now();
	if (c->prior && (long long)(now - c->prior) >
	    (long long)KUTRACE_TSDELTA_THRESHOLD) {
		/* Chain TSDELTAs of <= MAX_STEP; very long gaps: new block. */
		delta = now - c->prior;
		ntsd = (delta + KUTRACE_TSDELTA_MAX_STEP - 1) /
		       KUTRACE_TSDELTA_MAX_STEP;
		if (ntsd > KUTRACE_MAX_ENTRY_WORDS) {
			ntsd = 0;
			force = true;
		}
	}
	p = force ? NULL : kt_claim_fast(c, len + ntsd);
	if (unlikely(!p)) {
		/* Starved of slots: count without taking the lock. */
		if (KT_STREAM && !c->open && !READ_ONCE(kt_st.st.free_count)) {
			kt_count_lost(c, now);
			goto out;
		}
		p = kt_claim_slow(c, len, &ntsd, force, now);
		if (!p) {
			if (KT_STREAM)
				kt_count_lost(c, now);
			goto out;
		}
	}
	if (ipc && (kt_st.flags & KUTRACE_RESET_IPC))
		code = kt_ipc_code(c, now);
	c->prior = now;
	ts = (now & KUTRACE_TS_MASK) << KUTRACE_TS_SHIFT;
	for (i = 0; i < ntsd; i++) {
		step = delta > KUTRACE_TSDELTA_MAX_STEP ?
		       KUTRACE_TSDELTA_MAX_STEP : delta;
		delta -= step;
		*p++ = ts | kutrace_make_word(KUTRACE_TSDELTA, step);
	}
	p[0] = ts | w[0];
	for (i = 1; i < len; i++)
		p[i] = w[i];
	if (ipc && (kt_st.flags & KUTRACE_RESET_IPC))
		*kt_side_byte(p) = code;
	kt_env_irq_restore(fl);
	return len;
out:
	kt_env_irq_restore(fl);
	return 0;
}

/*
 * Try to merge a return into the call just before it (docs/spec/FORMATS.md
 * 1.2).  The BPF backend states the same rule again in bpf/kutrace.bpf.c
 * (kt_fuse): BPF C cannot include this file, its buffer is a map indexed
 * word by word, and it undoes a fusion a nested program overtook.
 */
static bool kt_fuse(unsigned int event, long long ret)
{
	struct kt_cpu *c = KT_THIS();
	u64 *p = READ_ONCE(c->next);
	u64 prev, word, now, dt, fused;

	if (!p || p <= c->first || p > READ_ONCE(c->limit))
		return false;
	prev = READ_ONCE(p[-1]);
	word = kutrace_make_word(event, ret & KUTRACE_ARG0_MASK);
	if (((prev ^ word) & KUTRACE_FUSE_CMP_MASK) != KUTRACE_FUSE_RET_BIT)
		return false;
	now = kt_env_now();
	dt = (now - (prev >> KUTRACE_TS_SHIFT)) & KUTRACE_TS_MASK;
	if (dt > KUTRACE_FUSE_MAX_DELTA)
		return false;
	if (dt == 0)
		dt = 1;
	fused = prev | (dt << KUTRACE_DELTA_SHIFT) |
		((u64)(ret & 0xFF) << KUTRACE_RETVAL_SHIFT);
	if (kt_env_cmpxchg(&p[-1], prev, fused) != prev)
		return false;
	if (kt_st.flags & KUTRACE_RESET_IPC) {
		u8 *b = kt_side_byte(p - 1);

		*b = (*b & 0x0F) | (kt_ipc_code(c, now) << 4);
	}
	return true;
}

void kt_trace_1(unsigned int event, u64 arg)
{
	u64 w;

	if (!READ_ONCE(kt_tracing))
		return;
	if (kutrace_is_return(event)) {
		long long ret = (long long)arg;
		bool done = false;

		if (((u64)(ret + 128) & ~0xFFULL) == 0) {
			unsigned long fl = 0;

			kt_env_irq_save(fl);
			done = kt_fuse(event, ret);
			kt_env_irq_restore(fl);
		}
		if (done)
			return;
		arg &= KUTRACE_ARG0_MASK;
	}
	w = kutrace_make_word(event, arg);
	kt_put(&w, 1, false, true);
}

void kt_trace_2(unsigned int event, u64 arg, u64 word2)
{
	u64 w[2];

	if (!READ_ONCE(kt_tracing))
		return;
	w[0] = kutrace_make_word(event, arg);
	w[1] = word2;
	kt_put(w, 2, false, false);
}

/* Copy an entry, put head into its first word's event field, store it. */
static int kt_put_copy(const u64 *words, unsigned int len, u64 head,
		       bool forced, bool may_fuse)
{
	u64 w[KUTRACE_MAX_ENTRY_WORDS];
	unsigned int i;

	if (len < 1 || len > KUTRACE_MAX_ENTRY_WORDS)
		return 0;
	for (i = 0; i < len; i++)
		w[i] = words[i];
	w[0] &= ~(KUTRACE_TS_MASK << KUTRACE_TS_SHIFT);
	w[0] |= head;
	return kt_put(w, len, forced, may_fuse);
}

int kt_trace_many(unsigned int event, unsigned int len, const u64 *words,
		  bool forced)
{
	return kt_put_copy(words, len,
			   (u64)((event | (len << KUTRACE_LEN_SHIFT)) &
				 KUTRACE_EVENT_MASK) << KUTRACE_EVENT_SHIFT,
			   forced, false);
}

/* A user's entry, its event field already set by the library. */
int kt_insert_words(const u64 *words, unsigned int len, bool forced)
{
	return kt_put_copy(words, len, 0, forced, len == 1);
}

void kt_pidname(u32 pid, const char *comm, bool always)
{
	u64 w[3] = { pid & KUTRACE_ARG0_MASK, 0, 0 };
	unsigned int bit = pid & 0xFFFF;
	u64 *fw = &kt_st.pid_filter[bit / 64];
	u64 mask = 1ULL << (bit % 64);

	if (!READ_ONCE(kt_tracing))
		return;
	if (!always && (READ_ONCE(*fw) & mask))
		return;
	WRITE_ONCE(*fw, READ_ONCE(*fw) | mask);
	memcpy(&w[1], comm, strnlen(comm, KUTRACE_HDR_COMM_BYTES));
	kt_trace_many(KUTRACE_PIDNAME, 3, w, false);
}

int kt_core_init(unsigned long bytes, u64 *buf, u64 *pid_filter)
{
	kt_st.base = buf;
	kt_st.bytes = bytes;
	kt_st.pid_filter = pid_filter;
	kt_core_reset(0);
	return 0;
}

unsigned int kt_core_reset(unsigned int flags)
{
	unsigned int cpu;
	struct kt_stream *s = &kt_st.st;
	u32 i;

	WRITE_ONCE(kt_tracing, false);
	flags &= KUTRACE_RESET_IPC | KUTRACE_RESET_WRAP |
		 (kt_st.stream_mem ? KUTRACE_RESET_STREAM : 0);
	if (flags & KUTRACE_RESET_STREAM)
		flags &= ~KUTRACE_RESET_WRAP;
	kt_st.flags = flags;
	kt_st.high = kt_st.base + kt_st.bytes / sizeof(u64);
	kt_st.limit = kt_st.base;
	if (flags & KUTRACE_RESET_IPC)
		kt_st.limit += kt_st.bytes / sizeof(u64) / 8;
	kt_st.next_block = kt_st.high;
	kt_st.wrapped = false;
	kt_st.full = false;
	kt_st.backend_named = false;
	memset(kt_st.pid_filter, 0, 8192);
	s->n = (u32)((kt_st.high - kt_st.limit) / KT_WORDS);
	s->free_head = 0;
	s->free_count = 0;
	s->done_head = 0;
	s->done_count = 0;
	s->cur_epoch = 0;
	s->new_epoch = true;
	if (flags & KUTRACE_RESET_STREAM) {
		for (i = 0; i < s->n; i++) {
			s->state[i] = KT_SLOT_FREE;
			s->freeq[i] = i;
		}
		s->free_count = s->n;
	}
	kt_env_for_each_cpu(cpu) {
		struct kt_cpu *c = KT_CPU(cpu);

		c->next = NULL;
		c->limit = NULL;
		c->first = NULL;
		c->prior = 0;
		c->prior_inst = 0;
		c->sw_comm = NULL;
		c->open = false;
		c->lost = 0;
		c->lost_first = 0;
		c->lost_last = 0;
		c->lost_total = 0;
		c->lost_blocks = 0;
		c->total_first = 0;
		c->total_last = 0;
	}
	return flags;
}

/* Zero the rest of every CPU's block; later entries take a new block. */
u64 kt_core_flush(void)
{
	unsigned int cpu;
	u64 n = 0;
	unsigned long fl = 0;

	WRITE_ONCE(kt_tracing, false);
	kt_env_for_each_cpu(cpu) {
		struct kt_cpu *c = KT_CPU(cpu);
		u64 *p = c->next;

		if (c->open) {
			/* Stream mode: tracing is off, so closing it here is safe. */
			if (p && p < c->limit)
				n += c->limit - p;
			kt_env_lock(&kt_lock, fl);
			kt_close_block(c);
			kt_env_unlock(&kt_lock, fl);
			continue;
		}
		if (!p || p >= c->limit)
			continue;
		n += c->limit - p;
		memset(p, 0, (c->limit - p) * sizeof(u64));
		c->next = c->limit;
	}
	return n;
}

unsigned long kt_core_stream_bytes(unsigned long bytes)
{
	unsigned long n = bytes / KUTRACE_BLOCK_BYTES;

	return n * (3 * sizeof(u32) + sizeof(u8));
}

void kt_core_stream_init(void *mem)
{
	struct kt_stream *s = &kt_st.st;

	s->max = (u32)(kt_st.bytes / KUTRACE_BLOCK_BYTES);
	s->epoch = mem;
	s->freeq = s->epoch + s->max;
	s->doneq = s->freeq + s->max;
	s->state = (u8 *)(s->doneq + s->max);
	kt_st.stream_mem = mem;
}

void kt_core_cut_this_cpu(void)
{
	unsigned long fl = 0;

	kt_env_lock(&kt_lock, fl);
	kt_close_block(KT_THIS());
	kt_env_unlock(&kt_lock, fl);
}

/*
 * A block this CPU took after the epoch began is the new epoch's already:
 * closing it too would end it early for nothing.
 */
void kt_core_cut_old_this_cpu(void)
{
	struct kt_stream *s = &kt_st.st;
	unsigned long fl = 0;
	struct kt_cpu *c;

	kt_env_lock(&kt_lock, fl);
	c = KT_THIS();
	if (c->open && (s->epoch[kt_slot_of(c->limit)] &
			KUTRACE_STREAM_SLOT_MASK) != s->cur_epoch)
		kt_close_block(c);
	kt_env_unlock(&kt_lock, fl);
}

/*
 * One hold of the lock: no block of the new epoch is handed out before
 * its first, so on this CPU the first block follows the old epoch's.
 */
u32 kt_core_new_epoch(void)
{
	unsigned long fl = 0;
	struct kt_cpu *c;
	u64 now, *p;
	u32 e;

	kt_env_lock(&kt_lock, fl);
	c = KT_THIS();
	kt_close_block(c);
	e = ++kt_st.st.cur_epoch;
	/* Every task seen in the new chunk is named in it again. */
	memset(kt_st.pid_filter, 0, 8192);
	kt_st.st.new_epoch = true;	/* if no slot is free: the next one */
	now = kt_env_now();
	p = kt_new_block(c, now);
	if (p && c->lost)
		p = kt_put_lost(c, p, now);
	if (p) {
		/*
		 * An entry at the header's time: readers place a block's first
		 * entry more than 4096 ticks after it in the period before
		 * (docs/FORMAT.md item 3), and the other CPUs' cut takes longer.
		 */
		*p++ = ((now & KUTRACE_TS_MASK) << KUTRACE_TS_SHIFT) |
		       kutrace_make_word(KUTRACE_USERPID, kt_env_pid());
		c->prior = now;
		c->first = p;
		WRITE_ONCE(c->next, p);
	}
	kt_env_unlock(&kt_lock, fl);
	return e;
}

void kt_core_lost_this_cpu(void)
{
	unsigned long fl = 0;
	struct kt_cpu *c;
	u64 now, *p;

	kt_env_lock(&kt_lock, fl);
	c = KT_THIS();
	if (KT_STREAM && c->lost) {
		kt_close_block(c);
		now = kt_env_now();
		p = kt_new_block(c, now);
		if (p) {
			p = kt_put_lost(c, p, now);
			WRITE_ONCE(c->next, p);
			kt_close_block(c);
		}
	}
	kt_env_unlock(&kt_lock, fl);
}

u64 kt_core_take(void)
{
	struct kt_stream *s = &kt_st.st;
	unsigned long fl = 0;
	u64 r = 0;
	u32 slot;

	if (!KT_STREAM)
		return 0;
	kt_env_lock(&kt_lock, fl);
	if (s->done_count) {
		slot = kt_q_pop(s->doneq, &s->done_head, &s->done_count);
		s->state[slot] = KT_SLOT_TAKEN;
		r = ((u64)(s->epoch[slot] & KUTRACE_STREAM_SLOT_MASK) <<
		     KUTRACE_STREAM_EPOCH_SHIFT) | (slot + 1) |
		    (s->epoch[slot] & KUTRACE_STREAM_FIRST);
	}
	kt_env_unlock(&kt_lock, fl);
	return r;
}

int kt_core_give(u64 slot)
{
	struct kt_stream *s = &kt_st.st;
	unsigned long fl = 0;
	int r = -1;

	if (!KT_STREAM)
		return -1;
	kt_env_lock(&kt_lock, fl);
	if (slot < s->n && s->state[slot] == KT_SLOT_TAKEN) {
		s->state[slot] = KT_SLOT_FREE;
		kt_q_push(s->freeq, s->free_head, &s->free_count, (u32)slot);
		r = 0;
	}
	kt_env_unlock(&kt_lock, fl);
	return r;
}

u64 kt_core_lost(u64 arg)
{
	unsigned int cpu;

	kt_env_for_each_cpu(cpu) {
		struct kt_cpu *c = KT_CPU(cpu);

		if (cpu != arg / KUTRACE_GETLOST_FIELDS)
			continue;
		switch (arg % KUTRACE_GETLOST_FIELDS) {
		case KUTRACE_GETLOST_ENTRIES:
			return c->lost_total;
		case KUTRACE_GETLOST_BLOCKS:
			return c->lost_blocks;
		case KUTRACE_GETLOST_FIRST:
			return c->total_first;
		default:
			return c->total_last;
		}
	}
	return 0;
}

u64 kt_core_blocks(void)
{
	if (KT_STREAM)
		return 0;
	if (kt_st.wrapped)
		return (kt_st.high - kt_st.limit) / KT_WORDS;
	return (kt_st.high - kt_st.next_block) / KT_WORDS;
}

/* File block i (allocation order from the top), or NULL. */
u64 *kt_core_block(u64 i)
{
	if (i >= kt_core_blocks())
		return NULL;
	return kt_st.high - (i + 1) * KT_WORDS;
}

/* Side block i (8 KiB), or NULL. */
u8 *kt_core_side(u64 i)
{
	if (!(kt_st.flags & KUTRACE_RESET_IPC) || i >= kt_core_blocks())
		return NULL;
	return kt_side_byte(kt_core_block(i));
}

void kt_switch_begin(u32 pid, const char *comm)
{
	struct kt_cpu *c = KT_THIS();

	c->sw_pid = pid;
	WRITE_ONCE(c->sw_comm, comm);
}

void kt_switch_end(void)
{
	WRITE_ONCE(KT_THIS()->sw_comm, NULL);
}

void kt_cpu_set_ipc(unsigned int cpu, bool on)
{
	KT_CPU(cpu)->ipc_ok = on;
}

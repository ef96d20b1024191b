// SPDX-License-Identifier: BSD-3-Clause
/*
 * decode.c - raw trace blocks to events: the heart of rawtoevent
 * (docs/spec/FORMATS.md 4), shared by rawtoevent and kutrace_postproc.
 *
 * Differences from the original, all deliberate (docs/FORMAT.md):
 *  - the first entry of a block stamped just before a 20-bit rollover is
 *    placed before the block start instead of a wrap period late;
 *  - a TSDELTA that opens a block is ignored (the header has full time);
 *  - a backward step of exactly 1/8 period is a wrap, not a late store;
 *  - times are not limited to 999 s and the base minute is UTC;
 *  - pids, marks, lock numbers and other 32-bit arguments keep 32 bits;
 *  - a bottom-half return carries the name of the softirq it ends;
 *  - errno names do not collide with syscall-return names;
 *  - 0x218 is emitted once; special names do not wrap past 0x21F;
 *  - the low-resolution (1-tick = 350 ns) rule applies only to u74 cores.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "decode.h"

/* Name-table keys: a kind in the upper 32 bits, the number below. */
#define KEY(kind, n)	(((uint64_t)(kind) << 32) | (uint32_t)(n))
enum {
	K_EVENT = 0, K_PID = 1, K_LOCK = 2, K_METHOD = 3, K_KERNEL = 4,
	K_MODEL = 5, K_HOST = 6, K_QUEUE = 7, K_RES = 8, K_ERRNO = 9,
	K_BACKEND = 10,
};

struct cpu_state {
	int seen;		/* a block of this CPU was decoded */
	int64_t pid;
	int64_t rpc;
	int64_t last_timer_t;	/* nsec10 of the last timer IRQ, -1 none */
	int last_bh;		/* softirq number of the open BH */
	uint64_t last_full;	/* last full tick value */
};

struct name_slot {
	uint64_t key;
	const char *name;
};

struct kt_decoder {
	kt_event_fn fn;
	void *ctx;
	struct kt_timebase tb;
	uint64_t stop_ctr;	/* block 0's stop counter */
	unsigned int file_flags;
	unsigned int all_flags;
	int wrapped;
	int timer_event;
	enum kt_arch arch;	/* from the backend entry; names unnamed calls */
	const char *backend;	/* that entry's text (interned), or NULL */
	int irq_by_arg;		/* device interrupts named by arg (below) */
	struct cpu_state cpu[KUTRACE_MAX_CPUS];
	struct name_slot *names;
	size_t ncap, ncount;
	uint64_t events;
	int64_t t_lo, t_hi;
	int prechecked;		/* kt_decoder_prechecked: blocks come checked */
	kt_named_fn named;	/* kt_decoder_on_named */
	void *named_ctx;
	char err[256];
	/*
	 * Interned names of calls/returns by event number and of context
	 * switches by pid: building them with snprintf and interning them
	 * for every event was a fifth of the run time.  Any new name record
	 * empties both: it moves gen on, and an entry counts only while it
	 * holds the current gen (clearing the 112 KB of the three caches for
	 * every name record instead took 10% of a decode, more in traces
	 * that start with a thousand names).
	 */
	uint32_t gen;
	struct { const char *name; uint32_t gen; } evname[KUTRACE_EVENT_MASK + 1];
	struct { int64_t pid; const char *name; uint32_t gen; } swname[1024];
	/*
	 * Point-event and bottom-half names by (event, argument): marks,
	 * runnable.pid, locks, packets, RPCs, BH:x.  Emptied like the others.
	 */
	struct ptname {
		unsigned int ev;
		uint32_t arg, gen;
		const char *name;
	} ptname[4096];
	/* PC sample names by PC: timer ticks keep hitting the same places. */
	struct { uint64_t pc; const char *name; } pcname[1024];
	const char *freq;	/* "-freq-" */
	const char *lost;	/* "-lost-" */
};

static const char *const special_names[32] = {
	"userpid", "rpcreq", "rpcresp", "rpcmid", "rxmsg", "txmsg",
	"runnable", "sendipi", "mwait", "-freq-", "mark_a", "mark_b",
	"mark_c", "mark_d", "", "", "try_", "acq_", "rel_", "-",
	"rx", "tx", "urx", "utx", "mbs", "res", "enq", "deq",
	"pstate2", "tsdelta", "mon_st", "mon_ex",
};

static const char *const unnamed_prefix[16] = {
	"nam#", "nam#", "spl#", "spl#", "trp#", "irq#", "/trp#", "/irq#",
	"sys#", "sys#", "/sys#", "/sys#", "s32#", "s32#", "/s32#", "/s32#",
};

/* ---- name table ------------------------------------------------------ */

static uint64_t mix(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	return k;
}

/*
 * Open addressing, as kt_intern's table (lib/base/util.c) and span.c's lock
 * table (lock_ent): each holds its own slot type, and a shared one would
 * need hash and compare callbacks.
 */
static void set_name(struct kt_decoder *d, uint64_t key, const char *name)
{
	if (++d->gen == 0) {	/* wrapped: entries of gen 1 and on may be old */
		memset(d->evname, 0, sizeof(d->evname));
		memset(d->swname, 0, sizeof(d->swname));
		memset(d->ptname, 0, sizeof(d->ptname));
		d->gen = 1;
	}
	if (d->ncount * 2 >= d->ncap) {
		size_t ncap = d->ncap ? d->ncap * 2 : 1024;
		struct name_slot *n = kt_xcalloc(ncap, sizeof(*n));

		for (size_t i = 0; i < d->ncap; i++) {
			if (!d->names[i].name)
				continue;
			size_t j = mix(d->names[i].key) & (ncap - 1);

			while (n[j].name)
				j = (j + 1) & (ncap - 1);
			n[j] = d->names[i];
		}
		free(d->names);
		d->names = n;
		d->ncap = ncap;
	}
	size_t j = mix(key) & (d->ncap - 1);

	while (d->names[j].name && d->names[j].key != key)
		j = (j + 1) & (d->ncap - 1);
	if (!d->names[j].name)
		d->ncount++;
	d->names[j].key = key;
	d->names[j].name = kt_intern(name);
}

const char *kt_decoder_name(const struct kt_decoder *d, uint64_t key)
{
	if (!d->ncap)
		return NULL;
	size_t j = mix(key) & (d->ncap - 1);

	while (d->names[j].name) {
		if (d->names[j].key == key)
			return d->names[j].name;
		j = (j + 1) & (d->ncap - 1);
	}
	return NULL;
}

/*
 * Thread names are keyed by the full pid; traces from the original module
 * carry pid & 0xFFFF in name entries, so fall back to the 16-bit key.
 */
static const char *pid_name(const struct kt_decoder *d, int64_t pid)
{
	const char *s = kt_decoder_name(d, KEY(K_PID, pid));

	if (!s && pid > 0xFFFF)
		s = kt_decoder_name(d, KEY(K_PID, pid & 0xFFFF));
	return s;
}

/*
 * docs/spec/FORMATS.md 4.5: names become one whitespace-free token.  Spaces go away
 * (a space between two digits becomes '_', the first and last characters
 * stay), control bytes become '_'.  Unlike the original, quotes,
 * backslashes and non-ASCII bytes are kept: the JSON writer escapes them.
 * A byte that is not part of valid UTF-8 becomes U+FFFD (kt_utf8_fix): a
 * name is text in every output and table.
 */
void kt_clean_name(const char *in, size_t n, char *out, size_t outlen)
{
	size_t o = 0;

	for (size_t i = 0; i < n && in[i] && o + 1 < outlen; i++) {
		unsigned char c = (unsigned char)in[i];

		if (c == ' ' && i > 0 && i + 1 < n && in[i + 1]) {
			unsigned char p = (unsigned char)in[i - 1];
			unsigned char q = (unsigned char)in[i + 1];

			if (p >= '0' && p <= '9' && q >= '0' && q <= '9')
				out[o++] = '_';
			continue;
		}
		out[o++] = (c <= 0x20 || c == 0x7F) ? '_' : (char)c;
	}
	out[o] = '\0';
	if (!kt_utf8_ok(out, o)) {
		char *raw = kt_xmalloc(o + 1);

		memcpy(raw, out, o + 1);
		kt_utf8_fix(out, outlen, raw, o);
		free(raw);
	}
}

/*
 * One event as a line of rawtoevent's text (docs/spec/FORMATS.md 4.5), without the
 * newline.  The line's bytes also order events of equal time: that is
 * what `sort -n` does with them in the original pipeline.
 */
int kt_event_line(char *buf, size_t len, const struct kt_event *e)
{
	if (kutrace_is_varlen((unsigned int)e->event))
		return snprintf(buf, len, "%" PRId64 " 1 %d %d %s", e->t, e->event,
				(int32_t)e->arg, e->name);
	return snprintf(buf, len, "%" PRId64 " %" PRId64 " %d %d  %d %d  %" PRId64
			" %" PRId64 " %d %s (%x)", e->t, e->dur, e->event, e->cpu,
			e->pid, e->rpc, e->arg, e->retval, e->ipc,
			e->name[0] ? e->name : "-", (unsigned int)e->event);
}

/* ---- decoder --------------------------------------------------------- */

/* The cache slot of (ev, arg): its name is NULL on a miss, to be filled. */
static struct ptname *pt_slot(struct kt_decoder *d, unsigned int ev, uint32_t arg)
{
	struct ptname *p = &d->ptname[((arg * 0x9E3779B1u) ^ (ev * 0x85EBCA6Bu)) >> 20];

	if (p->name && (p->ev != ev || p->arg != arg || p->gen != d->gen))
		p->name = NULL;
	p->ev = ev;
	p->arg = arg;
	p->gen = d->gen;
	return p;
}

static const char *pc_name(struct kt_decoder *d, uint64_t pc)
{
	size_t i = (size_t)((pc ^ (pc >> 10)) & 1023);

	if (!d->pcname[i].name || d->pcname[i].pc != pc) {
		char buf[32];

		snprintf(buf, sizeof(buf), "PC=%012" PRIx64, pc);
		d->pcname[i].pc = pc;
		d->pcname[i].name = kt_intern(buf);
	}
	return d->pcname[i].name;
}

struct kt_decoder *kt_decoder_new(const struct kt_raw *r, kt_event_fn fn,
				  void *ctx, char *err, size_t errlen)
{
	struct kt_decoder *d = kt_xcalloc(1, sizeof(*d));

	d->gen = 1;
	d->freq = kt_intern("-freq-");
	d->lost = kt_intern("-lost-");

	if (kt_timebase_init(&d->tb, r->start_ctr, r->start_usec, r->stop_ctr,
			     r->stop_usec, err, errlen) < 0) {
		char tmp[256];

		snprintf(tmp, sizeof(tmp), "%s: block 0 word 2: %s", r->path, err);
		snprintf(err, errlen, "%s", tmp);
		free(d);
		return NULL;
	}
	d->fn = fn;
	d->ctx = ctx;
	d->stop_ctr = r->stop_ctr;
	d->file_flags = r->file_flags;
	d->wrapped = (r->file_flags & KUTRACE_FLAG_WRAP) != 0;
	d->timer_event = KUTRACE_IRQ + KUTRACE_IRQ_LOCAL_TIMER;
	d->t_lo = INT64_MAX;
	d->t_hi = INT64_MIN;
	for (int i = 0; i < KUTRACE_MAX_CPUS; i++)
		d->cpu[i].last_timer_t = -1;
	return d;
}

void kt_decoder_free(struct kt_decoder *d)
{
	if (!d)
		return;
	free(d->names);
	free(d);
}

const char *kt_decoder_err(const struct kt_decoder *d)
{
	return d->err;
}

const struct kt_timebase *kt_decoder_timebase(const struct kt_decoder *d)
{
	return &d->tb;
}

uint64_t kt_decoder_events(const struct kt_decoder *d)
{
	return d->events;
}

void kt_decoder_times(const struct kt_decoder *d, int64_t *lo, int64_t *hi)
{
	*lo = d->t_lo == INT64_MAX ? 0 : d->t_lo;
	*hi = d->t_hi == INT64_MIN ? 0 : d->t_hi;
}

void kt_decoder_edges(const struct kt_decoder *d, int64_t *start, int64_t *stop)
{
	*start = kt_timebase_ns10(&d->tb, d->tb.c0);
	*stop = kt_timebase_ns10(&d->tb, d->stop_ctr);
}

unsigned int kt_decoder_flags(const struct kt_decoder *d)
{
	return d->all_flags;
}

static void emit(struct kt_decoder *d, struct kt_event *e)
{
	if (e->t >= 0) {
		if (e->t < d->t_lo)
			d->t_lo = e->t;
		if (e->t + e->dur > d->t_hi)
			d->t_hi = e->t + e->dur;
	}
	d->events++;
	d->fn(d->ctx, e);
}

/* The cleaned text of a name entry's len - 1 name words. */
static void entry_text(const uint64_t *words, unsigned int len,
		       char clean[KUTRACE_NAME_MAX + 1])
{
	char raw[KUTRACE_NAME_MAX + 1];
	size_t n = (len - 1) * 8;

	memcpy(raw, words, n);
	raw[n] = '\0';
	kt_clean_name(raw, n, clean, KUTRACE_NAME_MAX + 1);
}

/*
 * The name-table key a name entry of this type fills: these types have
 * name spaces of their own (method numbers have 16 bits; a trace has one
 * kernel, model and host), any other names the event number it carries.
 */
static uint64_t name_key(unsigned int type, uint32_t arg)
{
	static const struct { unsigned int type; int kind; uint32_t mask; } own[] = {
		{ KUTRACE_PIDNAME, K_PID, ~0u }, { KUTRACE_LOCKNAME, K_LOCK, ~0u },
		{ KUTRACE_METHODNAME, K_METHOD, 0xFFFF }, { KUTRACE_KERNEL_VER, K_KERNEL, 0 },
		{ KUTRACE_MODEL_NAME, K_MODEL, 0 }, { KUTRACE_HOST_NAME, K_HOST, 0 },
		{ KUTRACE_QUEUE_NAME, K_QUEUE, ~0u }, { KUTRACE_RES_NAME, K_RES, ~0u },
		{ KUTRACE_ERRNONAME, K_ERRNO, ~0u }, { KUTRACE_BACKEND_NAME, K_BACKEND, ~0u },
	};

	for (size_t i = 0; i < sizeof(own) / sizeof(own[0]); i++)
		if (own[i].type == type)
			return KEY(own[i].kind, arg & own[i].mask);
	return KEY(K_EVENT, ((type & 0xF) << 8) | arg);
}

/*
 * The entry word of b at word *i or after it, with *i moved onto it: zero
 * words are passed over; 0 at the end word or the block's end.
 */
static uint64_t next_word(const struct kt_block *b, int *i)
{
	for (; *i < KUTRACE_BLOCK_WORDS; (*i)++) {
		uint64_t w = b->w[*i];

		if (w == KUTRACE_WORD_END)
			break;
		if (w != KUTRACE_WORD_NOP)
			return w;
	}
	return KUTRACE_WORD_NOP;
}

/*
 * RPC method and lock names are inserted by user code at any time, often
 * in another CPU's block than the events that use them, and blocks are
 * decoded in file order: a pass over the name entries of every block
 * first (kt_decoder_prescan) gives every event its name.  Only keys not
 * yet known are taken, and only these two kinds: thread names must change
 * at their real time (exec).
 */
void kt_decoder_on_named(struct kt_decoder *d, kt_named_fn fn, void *ctx)
{
	d->named = fn;
	d->named_ctx = ctx;
}

void kt_decoder_prescan(struct kt_decoder *d, const struct kt_block *b)
{
	uint64_t w;
	/* Every entry of the block is before its limit (or the stop time). */
	uint64_t end = b->limit ? b->limit : d->stop_ctr > b->base ? d->stop_ctr : 0;
	int64_t until = end ? kt_timebase_ns10(&d->tb, end) : INT64_MAX;

	if (d->named)
		d->named(d->named_ctx, b->pid, until);

	for (int i = b->first_entry; (w = next_word(b, &i)) != 0; i++) {
		unsigned int ev = kutrace_word_event(w);
		unsigned int len = kutrace_entry_words(ev);

		if (len == 0 || len > KUTRACE_MAX_ENTRY_WORDS ||
		    i + (int)len > KUTRACE_BLOCK_WORDS)
			return;	/* damage: the real pass reports it */
		unsigned int type = ev & KUTRACE_TYPE_MASK;

		if (d->named && (ev == KUTRACE_USERPID || ev == KUTRACE_RUNNABLE))
			d->named(d->named_ctx, (uint32_t)w, until);
		if (kutrace_is_varlen(ev) &&
		    (type == KUTRACE_METHODNAME || type == KUTRACE_LOCKNAME)) {
			uint64_t key = name_key(type, (uint32_t)w);
			char clean[KUTRACE_NAME_MAX + 1];

			entry_text(&b->w[i + 1], len, clean);
			if (clean[0] && !kt_decoder_name(d, key))
				set_name(d, key, clean);
		}
		i += (int)len - 1;
	}
}

/* A name entry: record it and pass a name record on. */
static void name_entry(struct kt_decoder *d, int64_t t, int cpu,
		       unsigned int event, uint32_t arg, const uint64_t *words,
		       unsigned int len)
{
	char clean[KUTRACE_NAME_MAX + 1];
	unsigned int type = event & KUTRACE_TYPE_MASK;

	entry_text(words, len, clean);
	if (!clean[0])
		return;

	uint64_t key = name_key(type, arg);

	if (type == KUTRACE_PIDNAME && arg != 0 && strncmp(clean, "idle:", 5) == 0)
		return;	/* FreeBSD idle threads are pid 0 */
	/* Pid 0 is always "-idle-"; its name records are passed on as text. */
	if (type != KUTRACE_PIDNAME || arg != 0)
		set_name(d, key, clean);
	if (type == KUTRACE_MODEL_NAME)
		d->tb.lowres = strncmp(clean, "u74-mc", 6) == 0;
	if (type == KUTRACE_BACKEND_NAME) {
		d->arch = kt_backend_arch(clean);
		d->backend = kt_intern(clean);
		/* The module's x86 tracepoint backend records a device
		 * interrupt under its vector, which /proc/interrupts does not
		 * name, with the Linux irq number, which it does, as arg. */
		d->irq_by_arg = strncmp(clean, "tracepoint:", 11) == 0;
	}
	/* x86 local_timer_vector; arm64 the architected timer's IRQ;
	 * riscv64 the hart's timer interrupt */
	if (type == KUTRACE_INTERRUPTNAME && (strncmp(clean, "local_timer", 11) == 0 ||
					      strcmp(clean, "arch_timer") == 0 ||
					      strcmp(clean, "riscv-timer") == 0))
		d->timer_event = (int)(KUTRACE_IRQ + (arg & 0xFF));

	size_t l = strlen(clean);
	struct kt_event e = {
		.t = t, .dur = 1, .cpu = cpu, .pid = 0, .rpc = 0,
		.event = (int)((type & KUTRACE_TYPE_MASK) |
			       ((1 + (l + 7) / 8) << KUTRACE_LEN_SHIFT)),
		.arg = (int32_t)arg, .name = kt_intern(clean),
	};
	emit(d, &e);
}

static const char *event_name(struct kt_decoder *d, unsigned int ev,
			      char *buf, size_t len)
{
	unsigned int call = ev;
	int ret = ev >= KUTRACE_CALL_LO && (ev & KUTRACE_RET_BIT);

	if (ret)
		call = ev - KUTRACE_RET_BIT;
	const char *s = kt_decoder_name(d, KEY(K_EVENT, call));

	if (s) {
		snprintf(buf, len, "%s%s", ret ? "/" : "", s);
		return buf;
	}
	if (call == KUTRACE_SCHED_CALL || call == KUTRACE_SCHED_CALL_OLD)
		return ret ? "/-sched-" : "-sched-";
	/* A call the trace names not: the name its architecture gives it. */
	if (call >= KUTRACE_SYSCALL64 && call < KUTRACE_SYSRET64 &&
	    (s = kt_arch_syscall_name(d->arch, (int)(call - KUTRACE_SYSCALL64)))) {
		snprintf(buf, len, "%s%s", ret ? "/" : "", s);
		return buf;
	}
	snprintf(buf, len, "%s%u", unnamed_prefix[(ev >> 8) & 0xF],
		 ev >= KUTRACE_SYSCALL64 ? ev & 0x1FF : ev & 0xFF);
	return buf;
}

static const char *cached_name(struct kt_decoder *d, unsigned int ev,
			       char *buf, size_t len)
{
	if (!d->evname[ev].name || d->evname[ev].gen != d->gen) {
		d->evname[ev].name = kt_intern(event_name(d, ev, buf, len));
		d->evname[ev].gen = d->gen;
	}
	return d->evname[ev].name;
}

/*
 * The context switch that opens a CPU's first block (4.1 step 3).  As in
 * the original it has duration 1 and arg 0 (a real switch: 0 and the pid),
 * which tells the span builder that the thread was already running.
 */
static void block_switch(struct kt_decoder *d, const struct kt_block *b,
			 int64_t hpid, int64_t t)
{
	char nbuf[128];
	const char *pn = hpid ? pid_name(d, hpid) : "-idle-";
	struct kt_event e = {
		.t = t, .dur = 1, .event = KUTRACE_USERPID,
		.cpu = (int)b->cpu, .pid = (int)hpid, .arg = 0,
	};

	snprintf(nbuf, sizeof(nbuf), "%s.%" PRId64, pn ? pn : "", hpid);
	e.name = kt_intern(nbuf);
	emit(d, &e);
	if (b->mhz > 0) {
		struct kt_event f = {
			.t = t, .dur = 1, .event = KUTRACE_PSTATE,
			.cpu = (int)b->cpu, .pid = (int)hpid,
			.arg = b->mhz, .name = kt_intern("-freq-"),
		};
		emit(d, &f);
	}
}

/*
 * One single-word entry (or a PC sample) being decoded: its event, its
 * 32-bit argument, its full tick value and its words in the block.
 */
struct entry {
	unsigned int ev;
	uint32_t argall;
	uint64_t full;
	const uint64_t *w;
};

/*
 * Emit e under name: an interned name as it is, any other interned now
 * and, with a slot pt, kept there for the next entry of the same kind.
 */
static void emit_named(struct kt_decoder *d, struct kt_event *e,
		       const char *name, int interned, struct ptname *pt)
{
	if (!interned) {
		e->name = kt_intern(name ? name : "");
		if (pt)
			pt->name = e->name;
	} else {
		e->name = name;
	}
	emit(d, e);
}

/*
 * A PC sample (4.4): the -freq- point its MHz gives, then the sample,
 * moved to just before the CPU's last timer interrupt.
 */
static void pc_sample(struct kt_decoder *d, const struct cpu_state *cs,
		      const struct entry *x, struct kt_event *e)
{
	uint64_t pc = x->w[1];

	if ((x->argall & KUTRACE_ARG0_MASK) > 0) {
		struct kt_event f = *e;

		f.event = KUTRACE_PSTATE;
		f.dur = 1;
		f.ipc = 0;
		f.name = d->freq;
		emit(d, &f);
	}
	e->event = (pc >> 63) ? KUTRACE_PC_K : KUTRACE_PC_U;
	if (cs->last_timer_t >= 0)
		e->t = cs->last_timer_t - 1;
	e->arg = (int64_t)((pc >> 6) & 0xFFFF);
	e->ipc = 0;
	e->name = pc_name(d, pc);
	emit(d, e);
}

/* A context switch: its pid becomes the CPU's; named "name.pid". */
static void context_switch(struct kt_decoder *d, struct cpu_state *cs,
			   const struct entry *x, struct kt_event *e)
{
	uint32_t pid = x->argall;
	int sw = (int)(pid & 1023);
	char nbuf[128];

	cs->pid = pid;
	e->pid = (int)pid;
	e->arg = pid;
	if (!d->swname[sw].name || d->swname[sw].pid != (int64_t)pid ||
	    d->swname[sw].gen != d->gen) {
		const char *name = pid_name(d, pid);

		snprintf(nbuf, sizeof(nbuf), "%s.%u",
			 pid == 0 ? "-idle-" : name ? name : "", pid);
		d->swname[sw].pid = pid;
		d->swname[sw].name = kt_intern(nbuf);
		d->swname[sw].gen = d->gen;
	}
	emit_named(d, e, d->swname[sw].name, 1, NULL);
}

/*
 * RPC points 0x201..0x205: a non-zero id becomes the CPU's RPC; the end
 * of an RPC (id 0) still carries the id it ends, and clears it after.
 */
static void rpc_point(struct kt_decoder *d, struct cpu_state *cs,
		      const struct entry *x, struct kt_event *e)
{
	int64_t rpc = x->argall & 0xFFFF;
	struct ptname *pt;
	char nbuf[128];

	if (rpc != 0)
		cs->rpc = rpc;
	e->rpc = (int)cs->rpc;
	e->arg = x->argall;
	e->dur = 1;
	pt = pt_slot(d, x->ev, x->argall);
	if (pt->name) {
		emit_named(d, e, pt->name, 1, pt);
	} else {
		const char *m = kt_decoder_name(d, KEY(K_METHOD, rpc));

		snprintf(nbuf, sizeof(nbuf), "%s.%" PRId64, m ? m : "", rpc);
		emit_named(d, e, nbuf, 0, pt);
	}
	if (rpc == 0)
		cs->rpc = 0;
}

/*
 * Specials and reserved point events 0x200..0x3FF: marks with their
 * label, locks with their name, packets with their hash, runnable.pid.
 */
static void special_point(struct kt_decoder *d, const struct entry *x,
			  struct kt_event *e)
{
	unsigned int ev = x->ev;
	uint32_t argall = x->argall;
	struct ptname *pt = pt_slot(d, ev, argall);
	const char *name;
	char nbuf[128];

	e->dur = 1;
	e->arg = argall;
	if (pt->name) {
		emit_named(d, e, pt->name, 1, pt);
		return;
	}
	if (ev <= KUTRACE_MONITOREXIT)
		name = special_names[ev - KUTRACE_SPECIAL_LO];
	else
		snprintf(nbuf, sizeof(nbuf), "spl#%u", ev & 0x1FF), name = nbuf;
	if (ev >= KUTRACE_MARKA && ev <= KUTRACE_MARKC) {
		char lab[8];

		snprintf(nbuf, sizeof(nbuf), "%s=%s", name, kt_base40_decode(argall, lab));
		name = nbuf;
	} else if (ev >= KUTRACE_LOCKNOACQUIRE && ev <= KUTRACE_LOCKWAKEUP) {
		const char *ln = kt_decoder_name(d, KEY(K_LOCK, argall));

		snprintf(nbuf, sizeof(nbuf), "%s%s", name, ln ? ln : "");
		if (!ln)
			snprintf(nbuf, sizeof(nbuf), "%s%u", name, argall);
		name = nbuf;
	} else if (ev >= KUTRACE_RX_PKT && ev <= KUTRACE_TX_USER) {
		snprintf(nbuf, sizeof(nbuf), "%s.%04X", name,
			 ((argall >> 16) ^ argall) & 0xFFFF);
		name = nbuf;
	} else if (ev == KUTRACE_RUNNABLE) {
		snprintf(nbuf, sizeof(nbuf), "runnable.%u", argall);
		name = nbuf;
	}
	emit_named(d, e, name, 0, pt);
}

/*
 * A trap, interrupt or syscall entry; fused with its return, it lasts
 * delta ticks and carries the return value's byte.  A bottom half is
 * named after its softirq, which its return will need.
 */
static void kernel_call(struct kt_decoder *d, struct cpu_state *cs,
			const struct entry *x, struct kt_event *e)
{
	unsigned int ev = x->ev;
	uint32_t argall = x->argall;
	unsigned int delta = (argall >> KUTRACE_DELTA_SHIFT) & KUTRACE_DELTA_MASK;
	char nbuf[128];

	if ((int)ev == d->timer_event)
		cs->last_timer_t = e->t;
	if (delta) {
		int64_t dur = kt_timebase_ns10(&d->tb, x->full + delta) - e->t;

		if (d->tb.lowres && delta == 1)
			dur = 35;
		e->dur = dur < 1 ? 1 : dur;
		e->retval = (int8_t)((argall >> KUTRACE_RETVAL_SHIFT) & 0xFF) & 0xFFFF;
	}
	if (d->irq_by_arg && ev >= KUTRACE_IRQ && ev < KUTRACE_IRQ + KUTRACE_IRQ_BH &&
	    (argall & 0xFFFF) != 0) {
		const char *s = kt_decoder_name(d, KEY(K_EVENT, KUTRACE_IRQ | (argall & 0xFF)));

		if (s) {
			emit_named(d, e, s, 1, NULL);
			return;
		}
	}
	if (ev != KUTRACE_IRQ + KUTRACE_IRQ_BH) {
		emit_named(d, e, cached_name(d, ev, nbuf, sizeof(nbuf)), 1, NULL);
		return;
	}
	cs->last_bh = (int)(argall & 0xF);
	struct ptname *pt = pt_slot(d, ev, argall & 0xF);

	if (!pt->name)
		snprintf(nbuf, sizeof(nbuf), "BH:%s", kt_softirq_names[argall & 0xF]);
	emit_named(d, e, pt->name ? pt->name : nbuf, pt->name != NULL, pt);
}

/* An unfused return: its value in retval, named "/" + its call's name. */
static void kernel_return(struct kt_decoder *d, const struct cpu_state *cs,
			  const struct entry *x, struct kt_event *e)
{
	char nbuf[128];

	e->retval = x->argall & KUTRACE_ARG0_MASK;
	e->arg = 0;
	if (x->ev != KUTRACE_IRQRET + KUTRACE_IRQ_BH) {
		emit_named(d, e, cached_name(d, x->ev, nbuf, sizeof(nbuf)), 1, NULL);
		return;
	}
	struct ptname *pt = pt_slot(d, x->ev, (uint32_t)cs->last_bh & 0xF);

	if (!pt->name)
		snprintf(nbuf, sizeof(nbuf), "/BH:%s", kt_softirq_names[cs->last_bh & 0xF]);
	emit_named(d, e, pt->name ? pt->name : nbuf, pt->name != NULL, pt);
}

/* One single-word entry or PC sample, by its class (4.4). */
static void decode_entry(struct kt_decoder *d, struct cpu_state *cs,
			 const struct entry *x, struct kt_event *e)
{
	unsigned int ev = x->ev;

	if (ev == KUTRACE_PC_U || ev == KUTRACE_PC_K || ev == KUTRACE_PC_TEMP)
		pc_sample(d, cs, x, e);
	else if (ev == KUTRACE_USERPID)
		context_switch(d, cs, x, e);
	else if (ev >= KUTRACE_RPCIDREQ && ev <= KUTRACE_RPCIDTXMSG)
		rpc_point(d, cs, x, e);
	else if (ev < KUTRACE_CALL_LO)
		special_point(d, x, e);
	else if (kutrace_is_call(ev))
		kernel_call(d, cs, x, e);
	else
		kernel_return(d, cs, x, e);
}

/*
 * What a block must satisfy before its entries are read: sound words
 * (kt_block_check), a start time in range, and no start well before the
 * previous block of its CPU ended.
 */
static int block_sound(struct kt_decoder *d, const struct kt_block *b,
		       const struct cpu_state *cs, int wrapped_block0, int64_t t0)
{
	if (!d->prechecked && kt_block_check(b, d->err, sizeof(d->err)) < 0)
		return -1;
	if (t0 <= -KT_TIME_LIMIT || t0 >= KT_TIME_LIMIT) {
		snprintf(d->err, sizeof(d->err),
			 "block %ld word 0: start time %" PRIu64 " ticks is centuries from the trace start",
			 b->index, b->base);
		return -1;
	}
	/*
	 * Per CPU, blocks are allocated in time order, so a block that starts
	 * well before the previous one of its CPU ended is damage, not a late
	 * store (wraparound traces are re-ordered by kt_raw_index first).
	 */
	if (cs->seen && !wrapped_block0 &&
	    b->base + KUTRACE_LATE_STORE_WINDOW < cs->last_full) {
		snprintf(d->err, sizeof(d->err),
			 "block %ld word 0: CPU %u time runs backward by %" PRIu64
			 " ticks (beyond the late-store window)",
			 b->index, b->cpu, cs->last_full - b->base);
		return -1;
	}
	return 0;
}

/* The header's pid and name (4.1 step 3): pid 0 and "idle:" are -idle-. */
static int64_t header_task(struct kt_decoder *d, const struct kt_block *b, int64_t t0)
{
	int64_t hpid = b->pid;

	if (hpid == 0 || strncmp(b->comm, "idle:", 5) == 0)
		hpid = 0;
	if (hpid == 0 || b->comm[0]) {
		uint64_t words[3] = { 0, 0, 0 };

		if (hpid == 0)
			memcpy(&words[0], "-idle-", 6);
		else
			memcpy(&words[0], b->comm, KUTRACE_HDR_COMM_BYTES);
		name_entry(d, t0, (int)b->cpu, KUTRACE_PIDNAME, (uint32_t)hpid,
			   words, 3);
	}
	return hpid;
}

/*
 * A LOST entry: one event KUTRACE_LOST_SPAN at the entry's time, arg and
 * retval the lost interval (nsec10), pid the reason, rpc the entries
 * lost (low 32 bits), ipc 1 when the CPU is the block's own: then its
 * state is the block header's task again, and the switch to it follows
 * at the same time (dur 1 sorts after the loss's dur 0).  Returns 1 if
 * it switched.
 */
static int lost_entry(struct kt_decoder *d, const struct kt_block *b, int64_t hpid,
		      uint32_t arg, const uint64_t *w, int64_t t)
{
	unsigned int cpu = arg & KUTRACE_LOST_CPU_MASK;
	int64_t ls = kt_timebase_ns10(&d->tb, w[2] & KUTRACE_HDR_LOW56);
	int64_t le = kt_timebase_ns10(&d->tb, w[3] & KUTRACE_HDR_LOW56);

	if (cpu >= KUTRACE_MAX_CPUS || le < ls)
		return 0;	/* checktrace names it */
	int own = cpu == b->cpu;
	struct kt_event e = {
		.t = t, .dur = 0, .event = KUTRACE_LOST_SPAN, .cpu = (int)cpu,
		.pid = (int)((arg >> KUTRACE_LOST_WHY_SHIFT) & KUTRACE_LOST_WHY_MASK),
		.rpc = (int)(uint32_t)w[1], .arg = ls, .retval = le, .ipc = own,
		.name = d->lost,
	};

	emit(d, &e);
	if (!own)
		return 0;
	struct cpu_state *cs = &d->cpu[cpu];

	cs->pid = hpid;
	cs->rpc = 0;
	block_switch(d, b, hpid, t);
	return 1;
}

/*
 * A TRIGGER entry (FORMATS 11.1): one event KUTRACE_TRIGGER_MARK at the
 * entry's time, arg and retval the triggering interval (nsec10), rpc the
 * kind, name "trigger:" and the reason; the span builder makes the mark
 * row over the interval.
 */
static void trigger_entry(struct kt_decoder *d, const struct kt_block *b,
			  const struct cpu_state *cs, uint32_t arg,
			  const uint64_t *w, int64_t t)
{
	char text[KUTRACE_NAME_MAX + 1], name[KUTRACE_NAME_MAX + 16];

	entry_text(w + 3, KUTRACE_TRIGGER_WORDS - 2, text);
	snprintf(name, sizeof(name), "trigger:%s", text);
	struct kt_event e = {
		.t = t, .dur = 0, .event = KUTRACE_TRIGGER_MARK, .cpu = (int)b->cpu,
		.pid = (int)cs->pid, .rpc = (int)(arg & KUTRACE_TRIG_KIND_MASK),
		.arg = kt_timebase_ns10(&d->tb, w[1] & KUTRACE_HDR_LOW56),
		.retval = kt_timebase_ns10(&d->tb, w[2] & KUTRACE_HDR_LOW56),
		.name = kt_intern(name),
	};

	emit(d, &e);
}

int kt_decode_block(struct kt_decoder *d, const struct kt_block *b)
{
	struct cpu_state *cs = &d->cpu[b->cpu];
	int wrapped_block0 = d->wrapped && b->index == 0;
	int64_t t0 = kt_timebase_ns10(&d->tb, b->base);

	d->all_flags |= b->flags;
	if (block_sound(d, b, cs, wrapped_block0, t0) < 0)
		return -1;

	int64_t hpid = header_task(d, b, t0);
	/*
	 * The first block of a CPU starts with a context switch to the task
	 * its header names; it is emitted just before the block's first
	 * entry (entries can precede the header time slightly), so that it
	 * never lands after real events.
	 */
	int pending_switch = !cs->seen && !wrapped_block0;
	int64_t start = t0;	/* the block's first time: header or first entry */

	if (!wrapped_block0) {
		cs->seen = 1;
		cs->pid = hpid;
	}

	struct kt_tswalk tw;
	uint64_t w;

	kt_tswalk_init(&tw, b->base);
	for (int i = b->first_entry; (w = next_word(b, &i)) != 0; i++) {
		unsigned int ev = kutrace_word_event(w);

		if ((w >> KUTRACE_TS_SHIFT) == KUTRACE_TS_MASK && ev == KUTRACE_EVENT_MASK)
			continue;
		unsigned int len = kutrace_entry_words(ev);
		struct entry x = { .ev = ev, .argall = (uint32_t)w, .w = &b->w[i] };

		/* kt_block_check above vouches for ev and len. */
		if (kt_tswalk_step(&tw, w, &x.full))
			continue;	/* TSDELTA */
		int64_t t = kt_timebase_ns10(&d->tb, x.full);

		cs->last_full = x.full;
		if (t < start)
			start = t;	/* stamped before the header was written */
		if (pending_switch && !kutrace_is_varlen(ev)) {
			/*
			 * Strictly before the first event: at equal times the
			 * sort of the event text could put it after that event.
			 */
			block_switch(d, b, hpid, t <= start ? t - 1 : start);
			pending_switch = 0;
		}
		i += (int)len - 1;
		if (kutrace_is_varlen(ev) && (ev & KUTRACE_TYPE_MASK) == KUTRACE_LOST) {
			/* Entries lost (FORMATS 10.3, 10.4): no name. */
			if (len == KUTRACE_LOST_WORDS && !wrapped_block0 &&
			    lost_entry(d, b, hpid, x.argall, x.w, t))
				pending_switch = 0;	/* lost_entry switched */
			continue;
		}
		if (kutrace_is_varlen(ev) && (ev & KUTRACE_TYPE_MASK) == KUTRACE_TRIGGER) {
			if (len == KUTRACE_TRIGGER_WORDS && !wrapped_block0)
				trigger_entry(d, b, cs, x.argall, x.w, t);
			continue;
		}
		if (kutrace_is_varlen(ev)) {
			name_entry(d, t, (int)b->cpu, ev, x.argall, x.w + 1, len);
			continue;
		}
		if (wrapped_block0 && ev != KUTRACE_MBIT_SEC)
			continue;

		struct kt_event e = {
			.t = t, .dur = 0, .event = (int)ev, .cpu = (int)b->cpu,
			.pid = (int)cs->pid, .rpc = (int)cs->rpc,
			.arg = x.argall & KUTRACE_ARG0_MASK, .retval = 0,
			.ipc = b->side[x.w - b->w],
		};

		decode_entry(d, cs, &x, &e);
	}
	if (pending_switch)
		block_switch(d, b, hpid, start);
	return 0;
}

void kt_decoder_prechecked(struct kt_decoder *d)
{
	d->prechecked = 1;
}

const char *kt_decoder_backend(const struct kt_decoder *d)
{
	return d->backend;
}

void kt_decode_user(struct kt_decoder *d, const struct kt_user *u,
		    kt_event_fn fn, void *ctx)
{
	kt_event_fn fn0 = d->fn;
	void *ctx0 = d->ctx;
	int64_t *rpc = kt_xcalloc(u->nbufs ? u->nbufs : 1, sizeof(*rpc));

	d->fn = fn;
	d->ctx = ctx;
	for (size_t i = 0; i < u->n; i++) {
		const struct kt_uevent *ue = &u->ev[i];
		const uint64_t *w = &u->words[ue->widx];
		unsigned int ev = kutrace_word_event(w[0]);
		int64_t t = kt_timebase_ns10(&d->tb, ue->full);

		if (kutrace_is_varlen(ev)) {
			name_entry(d, t, (int)ue->cpu, ev, (uint32_t)w[0], w + 1, ue->nw);
			continue;
		}
		struct cpu_state cs = { .pid = ue->tid, .rpc = rpc[ue->buf] };
		struct entry x = { .ev = ev, .argall = (uint32_t)w[0], .full = ue->full, .w = w };
		struct kt_event e = {
			.t = t, .dur = 0, .event = (int)ev, .cpu = (int)ue->cpu,
			.pid = (int)ue->tid, .rpc = (int)cs.rpc,
			.arg = x.argall & KUTRACE_ARG0_MASK,
		};

		decode_entry(d, &cs, &x, &e);
		rpc[ue->buf] = cs.rpc;
	}
	free(rpc);
	d->fn = fn0;
	d->ctx = ctx0;
}

// SPDX-License-Identifier: BSD-3-Clause
/*
 * uev.c - user events without a system call (docs/spec/FORMATS.md 9):
 * the writer behind kutrace_mark_* and kutrace_addevent/addname, and the
 * controller's side (the directory, the on switch, collecting buffers
 * into the trace file).
 *
 * One buffer per thread, not per CPU: a thread is its buffer's only
 * writer, so an entry needs no lock and no atomic instruction against
 * other threads, a process killed mid-write damages nothing but its own
 * unfinished entry, and the buffers need no owner for CPUs the process
 * never ran on.  Each entry carries the CPU it was made on, taken with
 * the time in one restartable sequence (rseq, registered by glibc): a
 * preemption, migration or signal between reading the CPU and storing
 * CPU and time restarts it, so the pair is always consistent.  Signal
 * handlers may mark too: the words are reserved with one instruction
 * that a signal cannot split (xadd; arm64 an atomic add), and an entry
 * is vouched for by its last store (word 1's tag).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/rseq.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "libkutrace-local.h"
#include "kutrace/counter.h"

/* ------------------------------------------------------------ writer */

struct uthread {
	uint64_t *hdr;		/* the buffer file's header page */
	uint64_t *ring;
	uint64_t mask;		/* ring words - 1 */
	uint64_t state;		/* the control state it was made for */
	struct rseq *rs;	/* glibc's rseq area of the thread, or NULL */
	unsigned int shift;	/* log2 ring words */
	int wrap;
	int busy;		/* making the buffer: a signal's event takes the syscall */
};

/*
 * glibc's rseq area (2.35+), in its loader: weak, so that libkutrace.so
 * needs no more than libc and still runs where they are missing.
 */
extern const ptrdiff_t __rseq_offset __attribute__((weak));
extern const unsigned int __rseq_size __attribute__((weak));

static __thread struct uthread ut __attribute__((tls_model("initial-exec")));
static const volatile uint64_t *uctl;	/* the control file, mapped */
static uint64_t next_look;		/* counter time of the next look for it */
static int atfork_done;

const char *kt_ubuf_dir(void)
{
	const char *d = getenv("KUTRACE_USER_DIR");

	return d && d[0] ? d : KUTRACE_UDIR_DEFAULT;
}

/* The control file, mapped read-only; NULL if the controller made none. */
static const volatile uint64_t *find_ctl(void)
{
	char path[4096];
	uint64_t now = kt_counter_now();
	const volatile uint64_t *c = __atomic_load_n(&uctl, __ATOMIC_ACQUIRE);

	if (c)
		return c;
	/*
	 * After a look that found none, the next no sooner than 2^15 ticks
	 * (0.3..1 ms) later; threads that start together all look.
	 */
	if (now < __atomic_load_n(&next_look, __ATOMIC_RELAXED))
		return NULL;
	snprintf(path, sizeof(path), "%s/%s", kt_ubuf_dir(), KUTRACE_UCTL_NAME);
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);

	if (fd < 0) {
		__atomic_store_n(&next_look, now + (1ULL << 15), __ATOMIC_RELAXED);
		return NULL;
	}
	struct stat st;
	void *m = MAP_FAILED;

	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size >= KUTRACE_UCTL_BYTES)
		m = mmap(NULL, KUTRACE_UCTL_BYTES, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (m == MAP_FAILED)
		return NULL;
	if (((const uint64_t *)m)[KUTRACE_UCTL_MAGIC_W] != KUTRACE_UCTL_MAGIC) {
		munmap(m, KUTRACE_UCTL_BYTES);
		return NULL;
	}
	const volatile uint64_t *none = NULL;

	/* Another thread (or a signal handler) may have been quicker. */
	if (!__atomic_compare_exchange_n(&uctl, &none, m, 0, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE)) {
		munmap(m, KUTRACE_UCTL_BYTES);
		return none;
	}
	return m;
}

/* In a forked child the parent's buffers are not this thread's. */
static void forget_buffer(void)
{
	memset(&ut, 0, sizeof(ut));
}

/* The thread's rseq area if glibc registered one, else NULL. */
static struct rseq *rseq_area(void)
{
#if defined(__x86_64__) || defined(__aarch64__)
	if (&__rseq_size && __rseq_size >= 20) {
		struct rseq *rs = (struct rseq *)((char *)__builtin_thread_pointer() +
						  __rseq_offset);

		if ((int32_t)rs->cpu_id >= 0)
			return rs;
	}
#endif
	return NULL;
}

/* This thread's buffer for control state s (syscalls: once per session). */
static int make_buffer(const volatile uint64_t *ctl, uint64_t s)
{
	char path[4096], comm[17] = "";
	uint64_t ring = ctl[KUTRACE_UCTL_RING];
	pid_t pid = getpid(), tid = (pid_t)syscall(SYS_gettid);
	int fd;

	if (ring < KUTRACE_UBUF_MIN_RING || ring > KUTRACE_UBUF_MAX_RING ||
	    (ring & (ring - 1)))
		return -1;
	/* First: a signal handler's event meanwhile takes the system call. */
	ut.busy = 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	/*
	 * A signal that came after the caller saw the old state and before
	 * busy was set may have made this session's buffer already: making it
	 * again would find its file (O_EXCL) and leave the thread with none,
	 * every later event of it lost.
	 */
	if (ut.state == s) {
		ut.busy = 0;
		return ut.hdr ? 0 : -1;
	}
	if (!__atomic_exchange_n(&atfork_done, 1, __ATOMIC_ACQ_REL))
		pthread_atfork(NULL, NULL, forget_buffer);
	if (ut.hdr)
		munmap(ut.hdr, KUTRACE_UBUF_HDR_BYTES + (ut.mask + 1) * 8);
	ut.hdr = NULL;
	ut.rs = NULL;
	ut.shift = 0;
	snprintf(path, sizeof(path), "%s/t%d.%d.%llu", kt_ubuf_dir(), (int)pid,
		 (int)tid, (unsigned long long)(s >> 1));
	fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		goto fail;
	size_t bytes = KUTRACE_UBUF_HDR_BYTES + ring * 8;
	void *m = MAP_FAILED;

	if (ftruncate(fd, (off_t)bytes) == 0)
		m = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (m == MAP_FAILED) {
		unlink(path);
		goto fail;
	}
	uint64_t *h = m;

	prctl(PR_GET_NAME, comm, 0, 0, 0);
	h[KUTRACE_UBUF_IDS] = (uint64_t)(uint32_t)pid << 32 | (uint32_t)tid;
	h[KUTRACE_UBUF_RING] = ring;
	h[KUTRACE_UBUF_SESSION] = s >> 1;
	h[KUTRACE_UBUF_FLAGS] = ctl[KUTRACE_UCTL_FLAGS];
	memcpy(&h[KUTRACE_UBUF_COMM], comm, 16);
	__atomic_store_n(&h[KUTRACE_UBUF_MAGIC_W], KUTRACE_UBUF_MAGIC, __ATOMIC_RELEASE);
	ut.hdr = h;
	ut.ring = h + KUTRACE_UBUF_HDR_BYTES / 8;
	ut.mask = ring - 1;
	while ((1ULL << ut.shift) < ring)
		ut.shift++;
	ut.wrap = (h[KUTRACE_UBUF_FLAGS] & KUTRACE_UFLAG_WRAP) != 0;
	ut.rs = rseq_area();
	ut.state = s;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	ut.busy = 0;
	return 0;
fail:
	/* Not again this session: the syscall path serves this thread. */
	ut.state = s;
	ut.busy = 0;
	return -1;
}

/* Words handed out so far, plus n: one instruction no signal splits. */
static inline uint64_t reserve(uint64_t *r, uint64_t n)
{
#if defined(__x86_64__)
	__asm__ __volatile__("xaddq %0, %1" : "+r"(n), "+m"(*r) : : "memory");
	return n;
#else
	return __atomic_fetch_add(r, n, __ATOMIC_RELAXED);
#endif
}

#if defined(__x86_64__) || defined(__aarch64__)
/*
 * Store CPU << 56 | time at slot, the CPU read and the time taken in one
 * restartable sequence: 0, or -1 if the kernel aborted it (preemption,
 * migration, signal); the caller simply tries again.
 */
/*
 * The critical section's descriptor (struct rseq_cs: version, flags, start
 * 1:, length to the commit's end 2:, abort handler 4:), at label 3:.
 */
#define RSEQ_CS_TABLE \
	".pushsection __rseq_cs, \"aw\"\n\t" \
	".balign 32\n\t" \
	"3:\n\t" \
	".long 0x0, 0x0\n\t" \
	".quad 1f, (2f - 1f), 4f\n\t" \
	".popsection\n\t"

static inline int stamp_rseq(struct rseq *rs, uint64_t *slot)
{
#if defined(__x86_64__)
	__asm__ __volatile__ goto(
		RSEQ_CS_TABLE
		"leaq 3b(%%rip), %%rax\n\t"
		"movq %%rax, %[cs]\n\t"
		"1:\n\t"
		"movl %[cpu], %%ecx\n\t"
		"rdtsc\n\t"
		"shlq $32, %%rdx\n\t"
		"orq %%rdx, %%rax\n\t"
		"shrq %[shift], %%rax\n\t"
		"shlq $56, %%rcx\n\t"
		"orq %%rcx, %%rax\n\t"
		"movq %%rax, %[slot]\n\t"
		"2:\n\t"
		".pushsection __rseq_failure, \"ax\"\n\t"
		".long 0x53053053\n\t"
		"4:\n\t"
		"jmp %l[aborted]\n\t"
		".popsection\n\t"
		:
		: [cs] "m"(rs->rseq_cs), [cpu] "m"(rs->cpu_id), [slot] "m"(*slot),
		  [shift] "i"(KUTRACE_TSC_SHIFT)
		: "rax", "rcx", "rdx", "memory", "cc"
		: aborted);
#else
	__asm__ __volatile__ goto(
		RSEQ_CS_TABLE
		"adrp x9, 3b\n\t"
		"add x9, x9, :lo12:3b\n\t"
		"str x9, %[cs]\n\t"
		"1:\n\t"
		"ldr w10, %[cpu]\n\t"
		"isb\n\t"
		"mrs x11, cntvct_el0\n\t"
		"orr x11, x11, x10, lsl #56\n\t"
		"str x11, %[slot]\n\t"
		"2:\n\t"
		".pushsection __rseq_failure, \"ax\"\n\t"
		".long 0xd428bc00\n\t"
		"4:\n\t"
		"b %l[aborted]\n\t"
		".popsection\n\t"
		:
		: [cs] "Q"(rs->rseq_cs), [cpu] "Q"(rs->cpu_id), [slot] "Q"(*slot)
		: "x9", "x10", "x11", "memory"
		: aborted);
#endif
	return 0;
aborted:
	return -1;
}
#endif

/* CPU << 56 | time into slot, the two taken on the same CPU. */
static inline void stamp(struct rseq *rs, uint64_t *slot)
{
#if defined(__x86_64__) || defined(__aarch64__)
	if (__builtin_expect(rs != NULL, 1)) {
		while (stamp_rseq(rs, slot))
			;
		return;
	}
#else
	(void)rs;
#endif
	/* No rseq (an old glibc, or turned off): the CPU twice around the time. */
	for (;;) {
		int c0 = sched_getcpu();
		uint64_t t = kt_counter_now();
		int c1 = sched_getcpu();

		if (c0 == c1 || c0 < 0) {
			*slot = (uint64_t)(c0 < 0 ? 0 : c0) << KUTRACE_UENTRY_CPU_SHIFT |
				(t & KUTRACE_UENTRY_TIME_MASK);
			return;
		}
	}
}

int kt_uev_put(uint64_t word, const uint64_t *name, unsigned int nname)
{
	const volatile uint64_t *ctl = __atomic_load_n(&uctl, __ATOMIC_ACQUIRE);

	if (__builtin_expect(!ctl, 0) && !(ctl = find_ctl()))
		return -1;
	uint64_t s = ctl[KUTRACE_UCTL_STATE];

	if (!s)
		return -1;	/* no buffers offered: the system call serves */
	if (!(s & 1))
		return 0;	/* tracing is off */
	if (__builtin_expect(s != ut.state, 0)) {
		if (ut.busy)
			return -1;	/* a signal while the buffer is made */
		if (make_buffer(ctl, s) < 0)
			return -1;
	}
	if (__builtin_expect(!ut.hdr, 0))
		return -1;
	uint64_t n = 2 + nname;
	uint64_t pos = reserve(&ut.hdr[KUTRACE_UBUF_RESERVED], n);

	if (!ut.wrap && pos + n > ut.mask + 1) {
		__atomic_fetch_add(&ut.hdr[KUTRACE_UBUF_LOST], 1, __ATOMIC_RELAXED);
		return 0;
	}
	for (unsigned int i = 0; i < nname; i++)
		ut.ring[(pos + 2 + i) & ut.mask] = name[i];
	stamp(ut.rs, &ut.ring[pos & ut.mask]);
	/* Word 1 last: its tag vouches for the words before it. */
	__atomic_store_n(&ut.ring[(pos + 1) & ut.mask],
			 (word & ~(KUTRACE_TS_MASK << KUTRACE_TS_SHIFT)) |
			 kutrace_utag(pos, ut.shift) << KUTRACE_TS_SHIFT,
			 __ATOMIC_RELEASE);
	return 1;
}

/* -------------------------------------------------------- controller */

static uint64_t *ctl_w;		/* the controller's mapping, writable */

static int ctl_path(char *buf, size_t len, const char *name)
{
	return snprintf(buf, len, "%s/%s", kt_ubuf_dir(), name) >= (int)len ? -ENAMETOOLONG : 0;
}

static const volatile uint64_t *map_ctl(int writable)
{
	char path[4096];
	int fd;

	if (ctl_w)
		return ctl_w;
	if (ctl_path(path, sizeof(path), KUTRACE_UCTL_NAME))
		return NULL;
	fd = open(path, (writable ? O_RDWR : O_RDONLY) | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0)
		return NULL;
	struct stat st;
	void *m = MAP_FAILED;

	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size >= KUTRACE_UCTL_BYTES &&
	    st.st_uid == geteuid())
		m = mmap(NULL, KUTRACE_UCTL_BYTES, PROT_READ | (writable ? PROT_WRITE : 0),
			 MAP_SHARED, fd, 0);
	close(fd);
	if (m == MAP_FAILED)
		return NULL;
	if (((uint64_t *)m)[KUTRACE_UCTL_MAGIC_W] != KUTRACE_UCTL_MAGIC) {
		munmap(m, KUTRACE_UCTL_BYTES);
		return NULL;
	}
	if (writable)
		ctl_w = m;
	return m;
}

/* Remove every buffer file. */
static void clear_dir(void)
{
	DIR *d = opendir(kt_ubuf_dir());
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		if (e->d_name[0] == 't')
			unlinkat(dirfd(d), e->d_name, 0);
	}
	closedir(d);
}

/*
 * The control file is made once and then only rewritten in place: a
 * process keeps its mapping for good, and sees every later session.
 */
static uint64_t *make_ctl(void)
{
	char path[4096], tmp[4096];
	int fd;

	if (map_ctl(1))
		return ctl_w;
	if (ctl_path(path, sizeof(path), KUTRACE_UCTL_NAME) ||
	    ctl_path(tmp, sizeof(tmp), "ctl.new"))
		return NULL;
	unlink(path);	/* not ours (or no control file): replaced */
	fd = open(tmp, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		return NULL;
	fchmod(fd, 0644);
	uint64_t *m = MAP_FAILED;

	if (ftruncate(fd, KUTRACE_UCTL_BYTES) == 0)
		m = mmap(NULL, KUTRACE_UCTL_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (m != MAP_FAILED)
		m[KUTRACE_UCTL_MAGIC_W] = KUTRACE_UCTL_MAGIC;
	if (m == MAP_FAILED || rename(tmp, path) != 0) {
		if (m != MAP_FAILED)
			munmap(m, KUTRACE_UCTL_BYTES);
		unlink(tmp);
		return NULL;
	}
	ctl_w = m;
	return m;
}

int kt_ubuf_start(uint64_t ring_words, int wrap)
{
	const char *dir = kt_ubuf_dir();
	struct stat st;

	if (ring_words < KUTRACE_UBUF_MIN_RING || ring_words > KUTRACE_UBUF_MAX_RING ||
	    (ring_words & (ring_words - 1)))
		return -EINVAL;
	/* The directory is the controller's: a user's own would be a trap. */
	if (mkdir(dir, 01777) == 0)
		chmod(dir, 01777);
	if (lstat(dir, &st) != 0)
		return -errno;
	if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid())
		return -EPERM;
	kt_ubuf_stop();
	clear_dir();
	uint64_t *m = make_ctl();

	if (!m)
		return errno ? -errno : -EIO;
	m[KUTRACE_UCTL_RING] = ring_words;
	m[KUTRACE_UCTL_FLAGS] = wrap ? KUTRACE_UFLAG_WRAP : 0;
	/* A new session: buffers of an older one are never taken for it. */
	uint64_t old = m[KUTRACE_UCTL_STATE] >> 1;
	uint64_t session = (old + 1 + (kt_counter_now() & 0xFFFF)) & (KUTRACE_HDR_LOW56 >> 1);

	if (!session)
		session = 1;

	__atomic_store_n(&m[KUTRACE_UCTL_STATE], session << 1 | 1, __ATOMIC_RELEASE);
	return 0;
}

void kt_ubuf_stop(void)
{
	uint64_t *m = (uint64_t *)map_ctl(1);

	if (m)
		__atomic_and_fetch(&m[KUTRACE_UCTL_STATE], ~1ULL, __ATOMIC_SEQ_CST);
}

void kt_ubuf_reset(void)
{
	uint64_t *m = (uint64_t *)map_ctl(1);

	if (!m)
		return;
	/* State 0: none offered, until the next kt_ubuf_start. */
	__atomic_store_n(&m[KUTRACE_UCTL_STATE], 0, __ATOMIC_SEQ_CST);
	clear_dir();
}

void kt_ubuf_remove(void)
{
	char path[4096];

	kt_ubuf_reset();
	if (ctl_w)
		munmap(ctl_w, KUTRACE_UCTL_BYTES);
	ctl_w = NULL;
	if (!ctl_path(path, sizeof(path), KUTRACE_UCTL_NAME))
		unlink(path);
	rmdir(kt_ubuf_dir());
}

/* One buffer file into user blocks (docs/spec/FORMATS.md 9). */
static int collect_one(int dfd, const char *name, uint64_t session, FILE *f,
		       struct kt_ubuf_info *info)
{
	int fd = openat(dfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	struct stat st;
	int e = 0;

	if (fd < 0)
		return 0;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
	    st.st_size < KUTRACE_UBUF_HDR_BYTES + KUTRACE_UBUF_MIN_RING * 8) {
		close(fd);
		info->refused++;
		return 0;
	}
	size_t size = (size_t)st.st_size;
	const uint64_t *h = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);

	close(fd);
	if (h == MAP_FAILED)
		return 0;
	uint64_t ring = h[KUTRACE_UBUF_RING];

	if (h[KUTRACE_UBUF_MAGIC_W] != KUTRACE_UBUF_MAGIC ||
	    h[KUTRACE_UBUF_SESSION] != session || ring < KUTRACE_UBUF_MIN_RING ||
	    ring > KUTRACE_UBUF_MAX_RING || (ring & (ring - 1)) ||
	    KUTRACE_UBUF_HDR_BYTES + ring * 8 > size) {
		munmap((void *)h, size);
		info->refused++;
		return 0;
	}
	const uint64_t *r = h + KUTRACE_UBUF_HDR_BYTES / 8;
	int wrap = (h[KUTRACE_UBUF_FLAGS] & KUTRACE_UFLAG_WRAP) != 0;
	uint64_t r1 = __atomic_load_n(&h[KUTRACE_UBUF_RESERVED], __ATOMIC_ACQUIRE);
	uint64_t hi = wrap || r1 < ring ? r1 : ring;
	uint64_t lo = wrap && r1 > ring ? r1 - ring : 0;
	uint64_t blk[KUTRACE_BLOCK_WORDS];
	uint64_t lost = h[KUTRACE_UBUF_LOST];

	if (hi - lo > KUTRACE_UBUF_MAX_RING)
		hi = lo;
	uint64_t *copy = malloc((hi - lo + 1) * 8);

	if (!copy) {
		munmap((void *)h, size);
		return -ENOMEM;
	}
	for (uint64_t p = lo; p < hi; p++)
		copy[p - lo] = r[p & (ring - 1)];
	/* A writer still going may have overwritten the oldest words. */
	uint64_t r2 = __atomic_load_n(&h[KUTRACE_UBUF_RESERVED], __ATOMIC_ACQUIRE);
	uint64_t skip = wrap && r2 > ring && r2 - ring > lo ? r2 - ring - lo : 0;

	if (skip > hi - lo)
		skip = hi - lo;
	info->buffers++;
	info->lost += lost;
	for (uint64_t p = lo + skip, first = 1; p < hi || first; first = 0) {
		uint64_t n = hi - p < KUTRACE_UBLK_PAYLOAD ? hi - p : KUTRACE_UBLK_PAYLOAD;

		memset(blk, 0, sizeof(blk));
		blk[0] = KUTRACE_UBLOCK_MAGIC;
		blk[KUTRACE_UBLK_IDS] = h[KUTRACE_UBUF_IDS];
		blk[KUTRACE_UBLK_POS] = p;
		blk[KUTRACE_UBLK_RING] = ring;
		blk[KUTRACE_UBLK_COUNT] = n;
		blk[KUTRACE_UBLK_LOST] = first ? lost : 0;
		memcpy(&blk[KUTRACE_UBLK_COMM], &h[KUTRACE_UBUF_COMM], 16);
		memcpy(&blk[KUTRACE_UBLK_WORDS], &copy[p - lo], n * 8);
		if (fwrite(blk, sizeof(blk), 1, f) != 1) {
			e = -errno;
			break;
		}
		info->bytes += sizeof(blk);
		p += n;
	}
	free(copy);
	munmap((void *)h, size);
	return e;
}

int kt_ubuf_collect(FILE *f, struct kt_ubuf_info *info)
{
	const volatile uint64_t *c = map_ctl(0);
	DIR *d;
	struct dirent *e;
	int err = 0;

	memset(info, 0, sizeof(*info));
	if (!c)
		return 0;
	uint64_t session = c[KUTRACE_UCTL_STATE] >> 1;

	if (c != ctl_w)
		munmap((void *)c, KUTRACE_UCTL_BYTES);
	d = opendir(kt_ubuf_dir());
	if (!d)
		return 0;
	while (!err && (e = readdir(d)))
		if (e->d_name[0] == 't')
			err = collect_one(dirfd(d), e->d_name, session, f, info);
	closedir(d);
	return err;
}

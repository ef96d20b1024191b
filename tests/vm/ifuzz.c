// SPDX-License-Identifier: BSD-3-Clause
/*
 * ifuzz - fuzzes the module's interfaces from inside a guest (issue 20):
 * random ioctl numbers, sizes and arguments on /dev/kutrace, random
 * syscall(1023, cmd, arg), mmap with odd offsets, lengths, protections
 * and flags (then mprotect, mremap, madvise, partial munmap of what was
 * mapped), concurrent open/close/dup and plain file operations, from
 * several threads at once.  Each call is one execution; the counts are
 * printed at the end.
 *
 *   ifuzz root SECS THREADS SEED   as root: everything, state changes too
 *   ifuzz user SECS THREADS SEED   opens /dev/kutrace as root (if it can:
 *                      a descriptor passed on), then becomes user 65534
 *                      and does the same; every state change, every
 *                      read of the buffer (GETWORD, GET*4KB, mmap) and
 *                      every open must be refused
 *   ifuzz sys SECS THREADS SEED    as root, system call 1023 only (run
 *                      while the module is unloaded and loaded again)
 *   ifuzz state        as root, the state a user must not change: TEST,
 *                      STAT, GETCOUNT, VERSION, a hash of the whole buffer
 *                      (mmap) and of what GET4KB copies; tracing must be off
 *   ifuzz prep         the same after making a trace to keep (RESET, ON,
 *                      20000 system calls, OFF, SET4KB into block 1)
 *
 * Prints "execs N", "op NAME N ok M" and one "violation: ..." line per
 * broken rule (at most 20), then "violations N".  A rule broken: exit 1.
 * Rules: a root mapping is never writable nor larger than the buffer; two
 * opens never succeed at once; a user (above) is refused; the memory the
 * module copies to never lies outside the buffers given to it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <grp.h>
#include <sys/ioctl.h>
#include <linux/fs.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "kutrace/format.h"

typedef uint64_t u64;
typedef uint8_t u8;

#define NOBODY		65534
#define MAXT		16
#define PG		4096UL
/* per thread: guard page, SCRATCH bytes, guard page, PROT_NONE, read-only */
#define SCRATCH		(4 * PG)

enum op { OP_IOCTL, OP_SYS, OP_MMAP, OP_OPEN, OP_FDOPS, OP_N };
static const char *op_name[OP_N] = { "ioctl", "sys1023", "mmap", "open", "fdops" };

struct thr {
	pthread_t t;
	int id;
	u64 rng;
	u8 *scratch, *none, *ro;
	u64 n[OP_N], ok[OP_N];
	u64 sys_answered, mapped, sigbus, user_refused;
};

static int mode_user, mode_sys;
static size_t bufsize;			/* the module's buffer, bytes */
static atomic_int g_fd = -1;		/* the shared descriptor */
static atomic_int g_live;		/* successful opens not yet closed */
static atomic_int g_stop;
static atomic_long g_viol;
static pthread_mutex_t g_print = PTHREAD_MUTEX_INITIALIZER;

static __thread sigjmp_buf t_jmp;
static __thread volatile int t_touching;

static void violation(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void violation(const char *fmt, ...)
{
	va_list ap;

	if (atomic_fetch_add(&g_viol, 1) >= 20)
		return;
	pthread_mutex_lock(&g_print);
	va_start(ap, fmt);
	printf("violation: ");
	vprintf(fmt, ap);
	printf("\n");
	fflush(stdout);
	va_end(ap);
	pthread_mutex_unlock(&g_print);
}

static u64 rnd(struct thr *t)
{
	t->rng ^= t->rng >> 12;
	t->rng ^= t->rng << 25;
	t->rng ^= t->rng >> 27;
	return t->rng * 0x2545F4914F6CDD1DULL;
}

static u64 pick(struct thr *t, u64 n)
{
	return n ? rnd(t) % n : 0;
}

/*
 * An argument: numbers the commands take (indices, flags, words) and
 * addresses (the thread's scratch, its edges and guard pages, a PROT_NONE
 * and a read-only page, NULL, kernel and non-canonical addresses).  No
 * value names other memory of this program: a copy to it would go
 * unnoticed (a static binary has nothing mapped below 0x400000).
 */
static u64 rarg(struct thr *t)
{
	u64 v, words = bufsize / 8;

	switch (pick(t, 16)) {
	case 0: return 0;
	case 1: return 1 + pick(t, 64);
	case 2: return pick(t, 0x400000);
	case 3: return ~(u64)0 - pick(t, 4);
	case 4: return 0xffffffff81000000ULL + pick(t, 1 << 24);
	case 5: return 0x8000000000000000ULL | rnd(t);
	case 6: return (u64)(uintptr_t)t->scratch + pick(t, SCRATCH);
	case 7: return (u64)(uintptr_t)t->scratch + SCRATCH - pick(t, 64);
	case 8: return (u64)(uintptr_t)t->scratch - pick(t, 64);
	case 9: return (u64)(uintptr_t)t->none + pick(t, PG);
	case 10: return (u64)(uintptr_t)t->ro + pick(t, 64);
	case 11: /* block and 4 KiB edges of the buffer's words */
		v = pick(t, words / KUTRACE_BLOCK_WORDS + 2) * KUTRACE_BLOCK_WORDS;
		return v + (u64[]){ 0, 511, 512, 4096, 8191, 7680, 1, 1024 }[pick(t, 8)];
	case 12: return (u64)1 << pick(t, 64) | (rnd(t) & 0x8000000000000000ULL);
	case 13: return KUTRACE_RESET_WRAP * pick(t, 2) | KUTRACE_RESET_IPC * pick(t, 2) |
			KUTRACE_RESET_LLC * pick(t, 2);
	case 14: return words + pick(t, 4) - 2;
	default:
		v = rnd(t);
		if (v >= 0x400000 && v < (1ULL << 47))
			v |= 1ULL << 63;
		return v;
	}
}

static void fill_scratch(struct thr *t)
{
	u64 *w = (u64 *)t->scratch;

	for (size_t i = 0; i < SCRATCH / 8; i++)
		w[i] = pick(t, 4) ? rnd(t) : pick(t, 0x1000) << 52 | pick(t, 1 << 20);
}

static int ioc_state_changing(unsigned int nr)
{
	return !(nr == KUTRACE_CMD_STAT || nr == KUTRACE_CMD_TEST ||
		 nr == KUTRACE_CMD_VERSION || nr == KUTRACE_CMD_GETCOUNT);
}

/* ---- ioctl ------------------------------------------------------------ */

static void do_ioctl(struct thr *t)
{
	int fd = atomic_load(&g_fd);
	unsigned int nr = pick(t, KUTRACE_IOC_INSERTN_FORCED_NR + 4), cmd;
	struct kutrace_ioc *io = NULL;
	int valid = 0;
	void *p;
	long r;

	switch (pick(t, 10)) {
	case 0: /* the right number with another direction or size */
		cmd = _IOC(pick(t, 4), KUTRACE_IOC_MAGIC, nr, pick(t, 4) ? pick(t, 64) : pick(t, 1 << 14));
		break;
	case 1:
		cmd = (unsigned int)rnd(t);
		break;
	case 2: { /* generic ones the VFS or the tty layer answers first */
		static const unsigned int gen[] = { FIONREAD, FIONBIO, FIOCLEX, FIONCLEX,
						    FIOASYNC, FIOQSIZE, TCGETS, TIOCGWINSZ, FIGETBSZ };
		cmd = gen[pick(t, sizeof(gen) / sizeof(gen[0]))];
		break;
	}
	default:
		cmd = KUTRACE_IOC(nr);
		valid = nr <= KUTRACE_IOC_INSERTN_FORCED_NR;
		break;
	}
	if (pick(t, 8)) {
		/* a struct in the scratch area, anywhere (unaligned too) */
		p = t->scratch + pick(t, SCRATCH - sizeof(*io) + 1);
		if (!pick(t, 8))
			p = t->scratch + SCRATCH - pick(t, sizeof(*io));
		io = p;
		if ((u8 *)p + sizeof(*io) <= t->scratch + SCRATCH) {
			u64 a = rarg(t);

			memcpy(&io->arg, &a, 8);
		}
	} else {
		p = (void *)(uintptr_t)rarg(t);
	}
	if (pick(t, 16) == 0)
		fill_scratch(t);
	/* a user's GET4KB target must stay as it is */
	if (mode_user)
		memset(t->scratch, 0x5A, SCRATCH);
	r = ioctl(fd, cmd, p);
	t->n[OP_IOCTL]++;
	if (r >= 0)
		t->ok[OP_IOCTL]++;
	if (!mode_user || fd < 0 || !valid)
		return;
	if (ioc_state_changing(nr)) {
		if (r >= 0)
			violation("user: ioctl nr %u (state change or buffer read) succeeded", nr);
		else if (errno != EPERM && errno != EBADF)
			violation("user: ioctl nr %u refused with %s, not EPERM", nr, strerror(errno));
		else
			t->user_refused++;
	}
	for (size_t i = 0; i < SCRATCH; i++) {
		/* a query's answer (any address the struct can be at) */
		if (!ioc_state_changing(nr) && r >= 0 && t->scratch + i >= (u8 *)p &&
		    t->scratch + i < (u8 *)p + sizeof(*io))
			continue;
		if (t->scratch[i] != 0x5A) {
			violation("user: ioctl nr %u wrote scratch byte %zu", nr, i);
			break;
		}
	}
}

/* ---- system call 1023 --------------------------------------------------- */

static void do_sys(struct thr *t)
{
	u64 cmd, arg = rarg(t);
	long r;

	switch (pick(t, 8)) {
	case 0: cmd = rnd(t); break;
	case 1: cmd = pick(t, 2) ? KUTRACE_CMD_INSERT1_FORCED : KUTRACE_CMD_INSERTN_FORCED; break;
	case 2: cmd = KUTRACE_CMD_MAX + 1 + pick(t, 4); break;
	default: cmd = pick(t, KUTRACE_CMD_MAX + 1); break;
	}
	/*
	 * While the module unloads: half cheap queries, a quarter ON and OFF
	 * (an ON still inside the module when it unloads once left the
	 * patched kernel's hook flag on, with the hooks cleared).
	 */
	if (mode_sys && cmd != KUTRACE_CMD_RESET) {
		unsigned int k = pick(t, 8);

		if (k < 4)
			cmd = KUTRACE_CMD_VERSION;
		else if (k < 6)
			cmd = k == 4 ? KUTRACE_CMD_ON : KUTRACE_CMD_OFF;
	}
	if (pick(t, 16) == 0)
		fill_scratch(t);
	if (mode_user)
		memset(t->scratch, 0x5A, SCRATCH);
	errno = 0;
	r = syscall(KUTRACE_CONTROL_SYSCALL, cmd, arg);
	t->n[OP_SYS]++;
	if (r != -1 || errno != ENOSYS)
		t->sys_answered++;
	if (r != -1)
		t->ok[OP_SYS]++;
	if (!mode_user)
		return;
	if (cmd == KUTRACE_CMD_STAT || cmd == KUTRACE_CMD_TEST || cmd == KUTRACE_CMD_VERSION ||
	    cmd == KUTRACE_CMD_GETCOUNT)
		return;
	/* KUTRACE_CMD_ERROR is -1 to the C library: errno EPERM */
	if (r != -1)
		violation("user: syscall(1023, %#llx, %#llx) answered %#lx", (unsigned long long)cmd,
			  (unsigned long long)arg, r);
	else if (errno == EPERM)
		t->user_refused++;
	for (size_t i = 0; i < SCRATCH; i++) {
		if (t->scratch[i] != 0x5A) {
			violation("user: syscall(1023, %llu) wrote scratch byte %zu",
				  (unsigned long long)cmd, i);
			break;
		}
	}
}

/* ---- mmap ------------------------------------------------------------- */

static void on_fault(int sig)
{
	if (t_touching)
		siglongjmp(t_jmp, sig);
	signal(sig, SIG_DFL);
	raise(sig);
}

/* Reads the first, last and one random byte; 0 or the signal. */
static int touch(struct thr *t, const volatile u8 *p, size_t len)
{
	volatile u8 sink = 0;
	int sig;

	if (!len)
		return 0;
	sig = sigsetjmp(t_jmp, 1);
	if (sig) {
		t_touching = 0;
		return sig;
	}
	t_touching = 1;
	sink ^= p[0];
	sink ^= p[len - 1];
	sink ^= p[pick(t, len)];
	t_touching = 0;
	(void)sink;
	return 0;
}

static void do_mmap(struct thr *t)
{
	static const int prots[] = { PROT_READ, PROT_READ, PROT_READ | PROT_WRITE, PROT_WRITE,
				     PROT_READ | PROT_EXEC, PROT_NONE, PROT_READ | PROT_WRITE | PROT_EXEC };
	static const int types[] = { MAP_SHARED, MAP_SHARED, MAP_PRIVATE, MAP_SHARED_VALIDATE };
	static const int extra[] = { 0, 0, 0, MAP_POPULATE, MAP_LOCKED, MAP_NORESERVE, MAP_32BIT,
				     MAP_SYNC, MAP_HUGETLB, MAP_GROWSDOWN, MAP_ANONYMOUS };
	int fd = atomic_load(&g_fd);
	size_t len, l2;
	off_t off;
	int prot, flags, sig;
	u8 *m, *m2;

	switch (pick(t, 10)) {
	case 0: len = pick(t, 3); break;
	case 1: len = PG - 1 + pick(t, 3); break;
	case 2: len = bufsize - PG + PG * pick(t, 3); break;
	case 3: len = bufsize * 2; break;
	case 4: len = (size_t)1 << (20 + pick(t, 30)); break;
	case 5: len = ~(size_t)0 - pick(t, PG); break;
	case 6: len = pick(t, bufsize + PG); break;
	default: len = PG * (1 + pick(t, 16)); break;
	}
	switch (pick(t, 10)) {
	case 0: off = pick(t, PG); break;
	case 1: off = bufsize - PG * pick(t, 3); break;
	case 2: off = bufsize + PG * pick(t, 3); break;
	case 3: off = (off_t)(PG * (rnd(t) >> 12)); break;
	case 4: off = -(off_t)PG * (1 + pick(t, 4)); break;
	case 5: off = (off_t)PG << (20 + pick(t, 24)); break;
	default: off = PG * pick(t, bufsize / PG); break;
	}
	prot = prots[pick(t, sizeof(prots) / sizeof(prots[0]))];
	flags = types[pick(t, sizeof(types) / sizeof(types[0]))] |
		extra[pick(t, sizeof(extra) / sizeof(extra[0]))];
	t->n[OP_MMAP]++;
	m = mmap(NULL, len, prot, flags, fd, off);
	if (m == MAP_FAILED) {
		if (mode_user && fd >= 0 && (errno == EPERM || errno == EACCES))
			t->user_refused++;
		return;
	}
	t->ok[OP_MMAP]++;
	if (flags & MAP_ANONYMOUS) {
		munmap(m, len);
		return;
	}
	t->mapped++;
	if (mode_user)
		violation("user: mmap(len %zu, prot %#x, flags %#x, offset %lld) of the buffer succeeded",
			  len, prot, flags, (long long)off);
	if (prot & PROT_WRITE)
		violation("%s: writable mapping (prot %#x flags %#x)", mode_user ? "user" : "root",
			  prot, flags);
	if (off < 0 || (size_t)off > bufsize || len > bufsize - (size_t)off)
		violation("mapping beyond the buffer: offset %lld length %zu (buffer %zu)",
			  (long long)off, len, bufsize);
	if ((prot & PROT_READ) && (sig = touch(t, m, len))) {
		violation("mapping (offset %lld length %zu) faults when read: signal %d",
			  (long long)off, len, sig);
		t->sigbus++;
	}
	switch (pick(t, 8)) {
	case 0:
		if (mprotect(m, PG, PROT_READ | PROT_WRITE) == 0)
			violation("mprotect made the buffer writable");
		t->n[OP_MMAP]++;
		break;
	case 1: /* grow in place or moving: VM_DONTEXPAND */
		l2 = len + PG * (1 + pick(t, 4));
		m2 = mremap(m, len, l2, pick(t, 2) ? MREMAP_MAYMOVE : 0);
		t->n[OP_MMAP]++;
		if (m2 != MAP_FAILED) {
			violation("mremap grew the mapping from %zu to %zu bytes", len, l2);
			m = m2, len = l2;
		}
		break;
	case 2: /* move it whole (and keep the old range too) */
		l2 = pick(t, 2);
		m2 = mremap(m, len, len, MREMAP_MAYMOVE | (l2 ? MREMAP_DONTUNMAP : 0));
		t->n[OP_MMAP]++;
		if (m2 != MAP_FAILED) {
			t->ok[OP_MMAP]++;
			if (touch(t, m2, len))
				t->sigbus++;
			if (l2 && m2 != m)
				munmap(m, len);
			m = m2;
		}
		break;
	case 3: /* dropped pages are not refaulted (no fault handler): SIGBUS is fine */
		madvise(m, len, pick(t, 2) ? MADV_DONTNEED : MADV_REMOVE);
		t->n[OP_MMAP]++;
		if (touch(t, m, len))
			t->sigbus++;
		break;
	case 4: /* split it (each part unmapped on its own: the hole may be
		 * another thread's mapping by then) */
		if (len > 2 * PG) {
			munmap(m + PG, PG);
			t->n[OP_MMAP]++;
			touch(t, m, PG);
			munmap(m, PG);
			munmap(m + 2 * PG, len - 2 * PG);
			return;
		}
		break;
	case 5:
		mlock(m, len);
		msync(m, len, MS_SYNC);
		t->n[OP_MMAP] += 2;
		break;
	case 6: /* a child inherits it and reads it */
		if (pick(t, 32) == 0) {
			pid_t c = fork();

			if (c == 0) {
				touch(t, m, len);
				_exit(0);
			}
			if (c > 0)
				waitpid(c, NULL, 0);
			t->n[OP_MMAP]++;
		}
		break;
	default:
		break;
	}
	munmap(m, len);
}

/* ---- open / close / dup, plain file operations --------------------------- */

static void do_open(struct thr *t)
{
	static const int fl[] = { O_RDONLY, O_RDONLY, O_RDWR, O_WRONLY, O_RDONLY | O_NONBLOCK,
				  O_RDONLY | O_CLOEXEC, O_PATH, O_RDWR | O_TRUNC | O_APPEND,
				  O_RDONLY | O_EXCL, O_RDONLY | O_DIRECTORY, O_RDWR | O_NOCTTY | O_SYNC };
	int fd, old, live;

	t->n[OP_OPEN]++;
	switch (pick(t, 4)) {
	case 0: /* close the shared one, then open (a user keeps it) */
		if (mode_user)
			break;
		old = atomic_exchange(&g_fd, -1);
		if (old >= 0) {
			atomic_fetch_sub(&g_live, 1);
			close(old);
		}
		break;
	case 1: /* dup and close the duplicate */
		old = atomic_load(&g_fd);
		fd = dup(old);
		if (fd >= 0) {
			t->ok[OP_OPEN]++;
			close(fd);
		}
		return;
	default:
		break;
	}
	fd = open(KUTRACE_DEVICE, fl[pick(t, sizeof(fl) / sizeof(fl[0]))], 0600);
	if (fd < 0) {
		if (mode_user && (errno == EPERM || errno == EACCES))
			t->user_refused++;
		return;
	}
	t->ok[OP_OPEN]++;
	if (fcntl(fd, F_GETFL) & O_PATH) {
		close(fd);
		return;
	}
	if (mode_user)
		violation("user: open(%s) succeeded", KUTRACE_DEVICE);
	live = atomic_fetch_add(&g_live, 1);
	if (live)
		violation("open succeeded while %d other open(s) of %s were not closed", live,
			  KUTRACE_DEVICE);
	old = -1;
	if (!atomic_compare_exchange_strong(&g_fd, &old, fd)) {
		atomic_fetch_sub(&g_live, 1);
		close(fd);
	}
}

static void do_fdops(struct thr *t)
{
	int fd = atomic_load(&g_fd);
	struct pollfd pfd = { .fd = fd, .events = POLLIN | POLLOUT };
	struct stat st;
	char b[64];
	long r = -1;

	switch (pick(t, 7)) {
	case 0: r = read(fd, b, pick(t, sizeof(b))); break;
	case 1: r = write(fd, b, pick(t, sizeof(b))); break;
	case 2: r = lseek(fd, (off_t)rarg(t), pick(t, 5)); break;
	case 3: r = poll(&pfd, 1, 0); break;
	case 4: r = fstat(fd, &st); break;
	case 5: r = fcntl(fd, F_SETFL, pick(t, 2) ? O_NONBLOCK : 0); break;
	default: r = pread(fd, b, sizeof(b), (off_t)pick(t, bufsize)); break;
	}
	t->n[OP_FDOPS]++;
	if (r >= 0)
		t->ok[OP_FDOPS]++;
}

/* ---- threads and phases ------------------------------------------------- */

static void *worker(void *arg)
{
	struct thr *t = arg;

	while (!atomic_load_explicit(&g_stop, memory_order_relaxed)) {
		unsigned int w = pick(t, 100);

		if (mode_sys || w < 30)
			do_sys(t);
		else if (w < 70)
			do_ioctl(t);
		else if (w < 82)
			do_mmap(t);
		else if (w < 90)
			do_open(t);
		else
			do_fdops(t);
	}
	return NULL;
}

static u8 *map_or_die(size_t len, int prot)
{
	void *p = mmap(NULL, len, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		perror("ifuzz: mmap");
		exit(2);
	}
	return p;
}

/*
 * As module_tracemb in libkutrace/dump.c: this guest program is built
 * alone (tests/vm/build.sh: one file, no library), and reads the buffer
 * size the way any user could, not through kutrace's code.
 */
static size_t read_tracemb(void)
{
	FILE *f = fopen("/sys/module/kutrace_mod/parameters/tracemb", "r");
	long mb = 0;

	if (f) {
		if (fscanf(f, "%ld", &mb) != 1)
			mb = 0;
		fclose(f);
	}
	return mb > 0 ? (size_t)mb << 20 : 1 << 20;
}

static int ioc(int fd, unsigned int nr, u64 arg, u64 *res)
{
	struct kutrace_ioc io = { .arg = arg };
	int r = ioctl(fd, KUTRACE_IOC(nr), &io);

	*res = io.result;
	return r;
}

static u64 fnv(const u8 *p, size_t n)
{
	u64 h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3ULL;
	return h;
}

/*
 * The state a user must not change, one line each.  prep: first a trace
 * that holds something (RESET, ON, system calls, OFF without a flush) and
 * GET4KB pointed into its second block.
 */
static int print_state(int prep)
{
	int fd = open(KUTRACE_DEVICE, O_RDONLY);
	static u8 page[PG];
	u64 v;
	u8 *m;

	if (fd < 0) {
		perror("ifuzz: " KUTRACE_DEVICE);
		return 2;
	}
	if (prep) {
		if (ioc(fd, KUTRACE_CMD_RESET, 0, &v) || ioc(fd, KUTRACE_CMD_ON, 0, &v)) {
			perror("ifuzz: RESET, ON");
			return 2;
		}
		for (int i = 0; i < 20000; i++)
			getppid();
		ioc(fd, KUTRACE_CMD_OFF, 0, &v);
		ioc(fd, KUTRACE_CMD_SET4KB, KUTRACE_BLOCK_WORDS + 512, &v);
	}
	ioc(fd, KUTRACE_CMD_TEST, 0, &v);
	printf("test %llu\n", (unsigned long long)v);
	ioc(fd, KUTRACE_CMD_STAT, 0, &v);
	printf("stat %llu\n", (unsigned long long)v);
	ioc(fd, KUTRACE_CMD_GETCOUNT, 0, &v);
	printf("getcount %#llx\n", (unsigned long long)v);
	ioc(fd, KUTRACE_CMD_VERSION, 0, &v);
	printf("version %llu\n", (unsigned long long)v);
	memset(page, 0, sizeof(page));
	v = 0;
	printf("get4kb %d %llu %#llx\n", ioc(fd, KUTRACE_CMD_GET4KB, (uintptr_t)page, &v),
	       (unsigned long long)v, (unsigned long long)fnv(page, PG));
	m = mmap(NULL, bufsize, PROT_READ, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED) {
		printf("buffer unmapped: %s\n", strerror(errno));
	} else {
		printf("buffer %#llx\n", (unsigned long long)fnv(m, bufsize));
		munmap(m, bufsize);
	}
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	static struct thr th[MAXT];
	struct sigaction sa = { .sa_handler = on_fault };
	u64 tot[OP_N] = { 0 }, tok[OP_N] = { 0 }, execs = 0, answered = 0, mapped = 0;
	u64 sigbus = 0, refused = 0;
	struct timespec t0, t1;
	int secs, nt, fd0 = -1;
	u64 seed;

	bufsize = read_tracemb();
	if (argc == 2 && !strcmp(argv[1], "state"))
		return print_state(0);
	if (argc == 2 && !strcmp(argv[1], "prep"))
		return print_state(1);
	if (argc != 5 || (strcmp(argv[1], "root") && strcmp(argv[1], "user") &&
			  strcmp(argv[1], "sys"))) {
		fprintf(stderr, "usage: ifuzz root|user|sys SECS THREADS SEED | ifuzz state|prep\n");
		return 2;
	}
	mode_user = !strcmp(argv[1], "user");
	mode_sys = !strcmp(argv[1], "sys");
	secs = atoi(argv[2]);
	nt = atoi(argv[3]);
	seed = strtoull(argv[4], NULL, 0);
	if (nt < 1 || nt > MAXT || secs < 1) {
		fprintf(stderr, "ifuzz: 1..%d threads, at least 1 s\n", MAXT);
		return 2;
	}
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (!mode_sys) {
		fd0 = open(KUTRACE_DEVICE, O_RDONLY);
		printf("open as root: %s\n", fd0 >= 0 ? "ok" : strerror(errno));
		if (fd0 >= 0)
			atomic_store(&g_live, 1);
		atomic_store(&g_fd, fd0);
	}
	if (mode_user) {
		if (setgroups(0, NULL) || setgid(NOBODY) || setuid(NOBODY)) {
			perror("ifuzz: setuid");
			return 2;
		}
		printf("now uid %d gid %d, descriptor %s\n", (int)getuid(), (int)getgid(),
		       fd0 >= 0 ? "kept" : "none");
	}
	printf("ifuzz %s: %d threads, %d s, seed %#llx, buffer %zu bytes\n", argv[1], nt, secs,
	       (unsigned long long)seed, bufsize);
	fflush(stdout);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int i = 0; i < nt; i++) {
		struct thr *t = &th[i];
		u8 *a = map_or_die(SCRATCH + 4 * PG, PROT_NONE);

		t->id = i;
		t->rng = seed * 0x9E3779B97F4A7C15ULL + i + 1;
		t->scratch = a + PG;
		mprotect(t->scratch, SCRATCH, PROT_READ | PROT_WRITE);
		t->none = a + SCRATCH + 2 * PG;
		t->ro = a + SCRATCH + 3 * PG;
		mprotect(t->ro, PG, PROT_READ);
		fill_scratch(t);
		if (pthread_create(&t->t, NULL, worker, t)) {
			perror("ifuzz: pthread_create");
			return 2;
		}
	}
	sleep(secs);
	atomic_store(&g_stop, 1);
	for (int i = 0; i < nt; i++) {
		pthread_join(th[i].t, NULL);
		for (int o = 0; o < OP_N; o++) {
			tot[o] += th[i].n[o];
			tok[o] += th[i].ok[o];
		}
		answered += th[i].sys_answered;
		mapped += th[i].mapped;
		sigbus += th[i].sigbus;
		refused += th[i].user_refused;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	/* leave tracing off for what follows */
	if (!mode_user && !mode_sys) {
		int fd = atomic_exchange(&g_fd, -1);
		u64 v;

		if (fd >= 0)
			close(fd);
		fd = open(KUTRACE_DEVICE, O_RDONLY);
		if (fd < 0 || ioc(fd, KUTRACE_CMD_OFF, 0, &v))
			violation("root: %s does not answer after the run (%s)", KUTRACE_DEVICE,
				  strerror(errno));
		close(fd);
	}
	for (int o = 0; o < OP_N; o++) {
		printf("op %s %llu ok %llu\n", op_name[o], (unsigned long long)tot[o],
		       (unsigned long long)tok[o]);
		execs += tot[o];
	}
	printf("sys1023 answered %llu\n", (unsigned long long)answered);
	printf("buffer mapped %llu\n", (unsigned long long)mapped);
	printf("faults after madvise or move %llu\n", (unsigned long long)sigbus);
	if (mode_user)
		printf("user refused %llu\n", (unsigned long long)refused);
	printf("execs %llu in %.1f s\n", (unsigned long long)execs,
	       (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9);
	printf("violations %ld\n", atomic_load(&g_viol));
	return atomic_load(&g_viol) ? 1 : 0;
}

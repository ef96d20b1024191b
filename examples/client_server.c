// SPDX-License-Identifier: BSD-3-Clause
/*
 * client_server - a tiny RPC server and its clients, marked for kutrace.
 *
 * The book-style example of RPC and lock annotations.  One process runs
 * C client threads and, for each, one server thread (thread per
 * connection), talking over a UNIX socketpair.  Every request names an
 * RPC id (1..65535) and a method:
 *
 *   lookup   takes the table lock, ~20 us of work, releases it
 *   update   takes the table lock, ~100 us of work, releases it; every
 *            SLOW-th update also "writes its log" (sleeps HOLD ms, default
 *            2) while holding the lock: the bug the user guide hunts down
 *
 * Both sides mark each RPC the way KUtrace's RPC library does:
 *   addname(METHODNAME, id, "lookup")  so the id gets a name; each side
 *                                      names what it handles, as a real
 *                                      server on another machine must
 *   addevent(RPCIDREQ, id)             this thread now works for rpc id
 *   addevent(RPCIDRESP, id)            the response is sent / received
 *   addevent(RPCIDREQ, 0)              back to no rpc
 * and the table lock the way KUtrace's traced locks do:
 *   addname(LOCKNAME, hash, "tablelock") once
 *   LOCKNOACQUIRE  a try that found the lock held (the wait starts)
 *   LOCKACQUIRE    got it (the hold starts)
 *   LOCKWAKEUP     released it
 * kutrace_postproc turns these into per-RPC rows, "~tablelock" (waiting)
 * and "=tablelock" (holding) spans.
 *
 * A single process because /dev/kutrace is opened exclusively: every
 * thread marks through the one file descriptor of its process.
 *
 * Over TCP, the two sides run on two hosts, each tracing itself:
 * --listen PORT runs only the servers (one per accepted connection, until
 * CLIENTS connections have ended), --connect ADDR:PORT only the clients.
 * Both traces then hold the same RPC ids, which kutrace_align matches to
 * line the two hosts' clocks up.
 *
 *   client_server [-n REQUESTS] [-c CLIENTS] [-s SLOW] [-l HOLD]
 *                 [-o FILE.trace] [--no-trace]
 *                 [--listen PORT | --connect ADDR:PORT]
 *
 * Prints per-method latency (median, 99th percentile, max) and the id of
 * the slowest request of each method, to look up in the timeline.  Needs the kutrace
 * module and root (or CAP_PERFMON), unless --no-trace.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>

#include "kutrace/control.h"

enum { M_LOOKUP = 0, M_UPDATE = 1 };
static const char *const method_name[] = { "lookup", "update" };

/* One request or response on the wire. */
/*
 * 32 bytes that begin with KUtrace's RPC signature (bytes E5 17 C5 D1):
 * the kernel's packet filter (pktmask/pktmatch, default) records such
 * payloads of at least 32 bytes by a hash of those 32 bytes, on TCP's
 * send and receive, so that kutrace_align can match each message's two
 * ends on two hosts.  The hash XORs the message's 32-bit words, so
 * fields that differ little (ids, keys) collide often; `nonce`, mixed
 * from the id and `reply`, gives every request and every reply a hash of
 * its own.
 */
#define MSG_SIGNATURE 0xD1C517E5u

struct msg {
	uint32_t signature;
	uint32_t rpcid;
	uint32_t method;
	uint32_t key;
	uint32_t value;
	uint32_t reply;
	uint32_t nonce;
	uint32_t pad;
};

static uint32_t msg_nonce(uint32_t rpcid, uint32_t reply)
{
	uint64_t z = ((uint64_t)rpcid << 1 | reply) + 0x9E3779B97F4A7C15ull;

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return (uint32_t)(z ^ (z >> 31));
}

static int tracing = 1;
static int slow_every = 25;
static int hold_ms = 2;
static const uint32_t table_lock_hash = 0x7AB1E;	/* any 32-bit number */
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static uint32_t table[1024];

static double now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

/* Busy work that the compiler cannot remove: about us microseconds. */
static uint32_t work(double us, uint32_t x)
{
	double end = now_us() + us;

	while (now_us() < end)
		for (int i = 0; i < 200; i++)
			x = x * 1103515245u + 12345u;
	return x;
}

static void mark(unsigned int event, uint64_t arg)
{
	if (tracing)
		kutrace_addevent(event, arg);
}

/*
 * The traced lock.  Uncontended: LOCKACQUIRE at once.  Contended: the
 * failed try is marked, so the trace shows how long the wait lasted.
 */
static void table_acquire(void)
{
	if (pthread_mutex_trylock(&table_lock) != 0) {
		mark(KUTRACE_LOCKNOACQUIRE, table_lock_hash);
		pthread_mutex_lock(&table_lock);
	}
	mark(KUTRACE_LOCKACQUIRE, table_lock_hash);
}

static void table_release(void)
{
	mark(KUTRACE_LOCKWAKEUP, table_lock_hash);
	pthread_mutex_unlock(&table_lock);
}

/*
 * read_full and write_full are one loop twice on purpose: read() fills the
 * buffer and write() only reads it, so one function would cast const away.
 */
static int read_full(int fd, void *p, size_t n)
{
	char *c = p;

	while (n > 0) {
		ssize_t r = read(fd, c, n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		c += r;
		n -= (size_t)r;
	}
	return 0;
}

/* read_full's loop, for a buffer that is only read (see there). */
static int write_full(int fd, const void *p, size_t n)
{
	const char *c = p;

	while (n > 0) {
		ssize_t r = write(fd, c, n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		c += r;
		n -= (size_t)r;
	}
	return 0;
}

/* ------------------------------------------------------------- server */

struct server_arg {
	int fd;
	int index;
};

static void *server(void *p)
{
	struct server_arg *a = p;
	unsigned int updates = 0;
	char name[16];
	struct msg m;

	snprintf(name, sizeof(name), "server%d", a->index);
	pthread_setname_np(pthread_self(), name);
	while (read_full(a->fd, &m, sizeof(m)) == 0) {
		if (tracing)
			kutrace_addname(KUTRACE_METHODNAME, m.rpcid,
					method_name[m.method & 1]);
		mark(KUTRACE_RPCIDREQ, m.rpcid);
		table_acquire();
		if (m.method == M_LOOKUP) {
			m.value = work(20, table[m.key % 1024]);
		} else {
			table[m.key % 1024] = work(100, m.value);
			/* The bug: a slow write done while holding the lock. */
			if (slow_every > 0 && ++updates % (unsigned int)slow_every == 0)
				usleep((useconds_t)hold_ms * 1000);
		}
		table_release();
		mark(KUTRACE_RPCIDRESP, m.rpcid);
		m.reply = 1;
		m.nonce = msg_nonce(m.rpcid, 1);
		if (write_full(a->fd, &m, sizeof(m)))
			break;
		mark(KUTRACE_RPCIDREQ, 0);
	}
	close(a->fd);
	return NULL;
}

/* ------------------------------------------------------------- client */

struct client_arg {
	int fd;
	int index;
	int requests;
	uint32_t first_id;	/* ids first_id .. first_id + requests - 1 */
	double *lat;		/* per request, microseconds */
	int *method;
};

static void *client(void *p)
{
	struct client_arg *a = p;
	char name[16];

	snprintf(name, sizeof(name), "client%d", a->index);
	pthread_setname_np(pthread_self(), name);
	for (int i = 0; i < a->requests; i++) {
		struct msg m = {
			.signature = MSG_SIGNATURE,
			.nonce = msg_nonce(a->first_id + (uint32_t)i, 0),
			.rpcid = a->first_id + (uint32_t)i,
			.method = (i % 4 == 3) ? M_UPDATE : M_LOOKUP,
			.key = (uint32_t)(i * 7 + a->index),
			.value = (uint32_t)i,
		};
		double t0 = now_us();

		/* Name the id once; the decoder then shows "lookup.17". */
		if (tracing)
			kutrace_addname(KUTRACE_METHODNAME, m.rpcid,
					method_name[m.method]);
		mark(KUTRACE_RPCIDREQ, m.rpcid);
		if (write_full(a->fd, &m, sizeof(m)) ||
		    read_full(a->fd, &m, sizeof(m))) {
			fprintf(stderr, "client_server: client%d: connection "
				"lost\n", a->index);
			break;
		}
		mark(KUTRACE_RPCIDRESP, m.rpcid);
		mark(KUTRACE_RPCIDREQ, 0);
		a->lat[i] = now_us() - t0;
		a->method[i] = (int)m.method;
		usleep(50);	/* think time between requests */
	}
	close(a->fd);
	return NULL;
}

/* "ADDR:PORT", an IPv4 address: all the two-host test needs. */
static int parse_peer(const char *s, struct sockaddr_in *sin)
{
	char addr[64];
	const char *colon = strrchr(s, ':');
	int port = colon ? atoi(colon + 1) : 0;

	if (!colon || (size_t)(colon - s) >= sizeof(addr) || port < 1 || port > 65535) {
		fprintf(stderr, "client_server: --connect: ADDR:PORT, not %s\n", s);
		return -1;
	}
	memcpy(addr, s, (size_t)(colon - s));
	addr[colon - s] = '\0';
	if (inet_pton(AF_INET, addr, &sin->sin_addr) != 1) {
		fprintf(stderr, "client_server: --connect: %s is not an IPv4 address\n", addr);
		return -1;
	}
	sin->sin_port = htons((uint16_t)port);
	return 0;
}

/*
 * One client-server connection: sv[1] the client's end, sv[0] the
 * server's.  In one process a socketpair; over TCP only the local side's
 * end is real (the other is -1).  TCP_NODELAY: each small request goes out
 * at once, not after the previous one's ACK, so the RPC marks bracket the
 * wire closely.
 */
static int connect_pair(int lfd, const struct sockaddr_in *peer, int sv[2])
{
	int one = 1, fd;

	if (lfd < 0 && !peer) {
		if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv)) {
			perror("client_server: socketpair");
			return -1;
		}
		return 0;
	}
	if (peer) {
		fd = socket(AF_INET, SOCK_STREAM, 0);
		/* The server may still be starting: try for 30 s. */
		for (int tries = 0; fd >= 0 && connect(fd, (const struct sockaddr *)peer,
						       sizeof(*peer)); tries++) {
			if (tries == 300) {
				perror("client_server: connect");
				close(fd);
				return -1;
			}
			close(fd);
			usleep(100000);
			fd = socket(AF_INET, SOCK_STREAM, 0);
		}
	} else {
		fd = accept(lfd, NULL, NULL);
	}
	if (fd < 0) {
		perror(peer ? "client_server: socket" : "client_server: accept");
		return -1;
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	sv[0] = peer ? -1 : fd;
	sv[1] = peer ? fd : -1;
	return 0;
}

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return a < b ? -1 : a > b;
}

static void report(const char *what, double *v, int n)
{
	if (n == 0)
		return;
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	printf("%-7s %5d requests  median %7.1f us  p99 %7.1f us  max %7.1f us\n",
	       what, n, v[n / 2], v[(n * 99) / 100], v[n - 1]);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: client_server [-n REQUESTS] [-c CLIENTS] [-s SLOW] [-l HOLD]\n"
		"                     [-o FILE.trace] [--no-trace]\n"
		"Runs CLIENTS (default 3) client threads, each sending REQUESTS (default\n"
		"200) lookup/update RPCs to its own server thread; a server holds the\n"
		"table lock for each request and sleeps HOLD ms (default 2) while\n"
		"holding it on every SLOW-th update (default 25, 0 = never).  Traces\n"
		"the run into FILE.trace (default client_server.trace) with RPC and\n"
		"lock marks, and prints the latencies and the slowest RPC ids.\n"
		"--no-trace: run without kutrace.\n"
		"--listen PORT: only the servers, on TCP port PORT (all addresses), one per\n"
		"connection, until CLIENTS connections have ended.  --connect ADDR:PORT:\n"
		"only the clients, to that server (an IPv4 address).  Each side traces\n"
		"itself; kutrace_align lines the two traces up from their RPC ids.\n");
}

int main(int argc, char **argv)
{
	int n = 200, nc = 3, rc = 0, port = 0;
	const char *out = "client_server.trace", *peer = NULL;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(argv[i], "-n") && i + 1 < argc) {
			n = atoi(argv[++i]);
		} else if (!strcmp(argv[i], "-c") && i + 1 < argc) {
			nc = atoi(argv[++i]);
		} else if (!strcmp(argv[i], "-s") && i + 1 < argc) {
			slow_every = atoi(argv[++i]);
		} else if (!strcmp(argv[i], "-l") && i + 1 < argc) {
			hold_ms = atoi(argv[++i]);
		} else if (!strcmp(argv[i], "-o") && i + 1 < argc) {
			out = argv[++i];
		} else if (!strcmp(argv[i], "--listen") && i + 1 < argc) {
			port = atoi(argv[++i]);
			if (port < 1 || port > 65535) {
				fprintf(stderr, "client_server: --listen: a port 1..65535\n");
				return 2;
			}
		} else if (!strcmp(argv[i], "--connect") && i + 1 < argc) {
			peer = argv[++i];
		} else if (!strcmp(argv[i], "--no-trace")) {
			tracing = 0;
		} else {
			usage(stderr);
			return 2;
		}
	}
	/* RPC ids are 16 bits in the trace, and 0 means "no RPC". */
	if (n < 1 || nc < 1 || nc > 64 || (long)n * nc > 65535 ||
	    hold_ms < 0 || hold_ms > 10000) {
		fprintf(stderr, "client_server: need 1 <= CLIENTS <= 64, "
			"1 <= REQUESTS * CLIENTS <= 65535, 0 <= HOLD <= 10000\n");
		return 2;
	}

	if (port && peer) {
		fprintf(stderr, "client_server: --listen or --connect, not both\n");
		return 2;
	}
	struct sockaddr_in sin = { .sin_family = AF_INET };
	int lfd = -1;

	if (peer && parse_peer(peer, &sin))
		return 2;
	if (port) {
		int one = 1;

		sin.sin_port = htons((uint16_t)port);
		lfd = socket(AF_INET, SOCK_STREAM, 0);
		if (lfd < 0 || setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
		    bind(lfd, (struct sockaddr *)&sin, sizeof(sin)) || listen(lfd, 64)) {
			perror("client_server: listen");
			return 1;
		}
	}
	pthread_t st[64], ct[64];
	struct server_arg sa[64];
	struct client_arg ca[64];

	if (tracing) {
		/* Opens /dev/kutrace once, before any thread marks. */
		if (!kutrace_test())
			return 1;
		if (kutrace_go("client_server")) {
			fprintf(stderr, "client_server: cannot start tracing\n");
			return 1;
		}
		kutrace_addname(KUTRACE_LOCKNAME, table_lock_hash, "tablelock");
		kutrace_mark_a("run");
	}
	for (int i = 0; i < nc; i++) {
		int sv[2];

		if (connect_pair(lfd, peer ? &sin : NULL, sv))
			return 1;
		sa[i] = (struct server_arg){ .fd = sv[0], .index = i };
		ca[i] = (struct client_arg){
			.fd = sv[1], .index = i, .requests = n,
			.first_id = 1 + (uint32_t)(i * n),
			.lat = calloc((size_t)n, sizeof(double)),
			.method = calloc((size_t)n, sizeof(int)),
		};
		if (!ca[i].lat || !ca[i].method) {
			fprintf(stderr, "client_server: out of memory\n");
			return 1;
		}
		if (!peer)
			pthread_create(&st[i], NULL, server, &sa[i]);
		if (!port)
			pthread_create(&ct[i], NULL, client, &ca[i]);
	}
	for (int i = 0; i < nc; i++) {
		if (!port)
			pthread_join(ct[i], NULL);
		if (!peer)
			pthread_join(st[i], NULL);
	}
	if (tracing) {
		kutrace_mark_a("/run");
		if (kutrace_stop(out))
			rc = 1;
	}

	/* Latencies per method, and the one request to look at. */
	double *lk = calloc((size_t)(n * nc), sizeof(double));
	double *up = calloc((size_t)(n * nc), sizeof(double));
	double worst[2] = { -1, -1 };
	uint32_t worst_id[2] = { 0, 0 };
	int nl = 0, nu = 0;

	if (!lk || !up)
		return 1;
	for (int i = 0; i < nc; i++)
		for (int j = 0; j < n; j++) {
			double l = ca[i].lat[j];
			int m = ca[i].method[j];

			if (m == M_LOOKUP)
				lk[nl++] = l;
			else
				up[nu++] = l;
			if (l > worst[m]) {
				worst[m] = l;
				worst_id[m] = ca[i].first_id + (uint32_t)j;
			}
		}
	if (port) {
		printf("served %d connections\n", nc);
		return rc;
	}
	report("lookup", lk, nl);
	report("update", up, nu);
	for (int m = 0; m < 2; m++)
		if (worst[m] >= 0)
			printf("slowest %s: rpc %u (%s.%u in the trace), %.1f us\n",
			       method_name[m], worst_id[m], method_name[m],
			       worst_id[m], worst[m]);
	return rc;
}

// SPDX-License-Identifier: BSD-3-Clause
/*
 * libFuzzer: the requests kutrace_view answers (issue 31's local server).
 * Its source is included below, and its request handler serves a sound
 * store (tests/fuzz/store/rpc.tables) from libmicrohttpd's thread, as
 * the program does.  An input is the raw bytes of one request; in it "@T"
 * becomes this run's token and "@P"
 * the port, so that mutations can reach past the token check.  Requests
 * come on socket pairs handed to libmicrohttpd as connections from
 * 127.0.0.1.
 *
 * Checked on every answer (besides ASan/UBSan in the handler):
 * - it is an HTTP response with a status the server gives: 200, 400,
 *   403, 404, 405, 413 or 500 (or libmicrohttpd's own for garbage);
 * - a 200 only for a request that carries the token and names no other
 *   host or origin: anything else answered 200 would be a hole;
 * - an answer within 5 s, or the connection closed (a request of 500
 *   arguments once got none at all, issue 48);
 * - the server still answers a sound request afterwards.
 * An input that begins "@F" and a byte k makes one of the store's files
 * hostile for that request (issue 48; the store is a copy, in a
 * temporary directory): meta.json (k % 10 < 5) or span.parquet a link
 * (to /etc/passwd, or to a sound copy outside the store), a FIFO, a
 * directory, or gone; then an /api/meta answered 200 with meta.json
 * hostile, or any /api/ answered 200 with span.parquet hostile, is a
 * finding (a FIFO would also hold the answer past 5 s).  The file is put
 * back before the next input.
 * libmicrohttpd is a prebuilt library: coverage and the sanitizers see
 * kutrace_view's handler, not its HTTP parser.
 */
#define main kutrace_view_main
#include "../../query/kutrace_view.c"
#undef main
#include "fuzz.h"
#include <sys/stat.h>

#ifndef FZ_STORE
#define FZ_STORE "tests/fuzz/store/rpc.tables"
#endif
#ifndef FZ_TPL
#define FZ_TPL "build/share/kutrace/viewer.html"
#endif

static struct server fz_s;
static struct MHD_Daemon *fz_d;
static char fz_dir[64];	/* the store's copy */

/* The store's copy, and a sound span.parquet outside it (a link's aim). */
static void fz_copy_store(void)
{
	char cmd[512];

	snprintf(fz_dir, sizeof(fz_dir), "/tmp/fuzz_view.XXXXXX");
	if (!mkdtemp(fz_dir))
		abort();
	snprintf(cmd, sizeof(cmd), "cp -r '%s' '%s/s' && cp '%s/span.parquet' '%s/outside.parquet'",
		 FZ_STORE, fz_dir, FZ_STORE, fz_dir);
	if (system(cmd) != 0) {
		fprintf(stderr, "fuzz_view: cannot copy %s\n", FZ_STORE);
		abort();
	}
}

static void fz_rm_copy(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", fz_dir);
	if (system(cmd) != 0)
		fprintf(stderr, "fuzz_view: %s left behind\n", fz_dir);
}

/* Store file k % 10 made hostile (1), or put back (0). */
static void fz_hostile(unsigned int k, int on)
{
	const char *name = k % 10 < 5 ? "meta.json" : "span.parquet";
	char f[128], keep[128], out[128];

	snprintf(f, sizeof(f), "%s/s/%s", fz_dir, name);
	snprintf(keep, sizeof(keep), "%s/%s.keep", fz_dir, name);
	snprintf(out, sizeof(out), "%s/outside.parquet", fz_dir);
	if (!on) {
		if (unlink(f) < 0 && rmdir(f) < 0 && errno != ENOENT)
			abort();
		if (rename(keep, f) < 0)
			abort();
		return;
	}
	if (rename(f, keep) < 0)
		abort();
	switch (k % 5) {
	case 0: if (symlink("/etc/passwd", f) < 0) abort(); break;
	case 1: if (symlink(out, f) < 0) abort(); break;
	case 2: if (mkfifo(f, 0600) < 0) abort(); break;
	case 3: if (mkdir(f, 0700) < 0) abort(); break;
	default: break;	/* gone */
	}
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char err[512];
	static char store[80];
	char *in[1] = { store };
	(void)argc;
	(void)argv;
	signal(SIGPIPE, SIG_IGN);
	fz_copy_store();
	atexit(fz_rm_copy);
	snprintf(store, sizeof(store), "%s/s", fz_dir);
	fz_s.store = store;
	fz_s.page_max = KT_PAGE_MAX;
	/* The page: the viewer template of the normal build, if it is there
	 * (else the page's request answers 500, which is fine too). */
	fz_s.tpl = FZ_TPL;
	if (!(fz_s.db = kt_db_open(in, 1, KT_MEMORY, err, sizeof(err)))) {
		fprintf(stderr, "fuzz_view: %s\n", err);
		abort();
	}
	make_token(fz_s.token);
	/* No listening socket: each request comes on a socket pair handed to
	 * the daemon as a connection from 127.0.0.1 (a TCP connection per
	 * input would run out of ports in TIME_WAIT after ~60 k inputs). */
	fz_d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_NO_LISTEN_SOCKET, 0,
				accept_peer, NULL, handle, &fz_s, MHD_OPTION_CONNECTION_TIMEOUT, 2u,
				MHD_OPTION_CONNECTION_MEMORY_LIMIT, KT_CONN_MEM,
				MHD_OPTION_URI_LOG_CALLBACK, uri_seen, NULL,
				MHD_OPTION_END);
	if (!fz_d) {
		fprintf(stderr, "fuzz_view: cannot serve\n");
		abort();
	}
	fz_s.port = 8123;	/* what the Host header must name */
	snprintf(fz_s.host1, sizeof(fz_s.host1), "127.0.0.1:%u", fz_s.port);
	snprintf(fz_s.host2, sizeof(fz_s.host2), "localhost:%u", fz_s.port);
	snprintf(fz_s.origin1, sizeof(fz_s.origin1), "http://%s", fz_s.host1);
	snprintf(fz_s.origin2, sizeof(fz_s.origin2), "http://%s", fz_s.host2);
	snprintf(fz_s.cookie, sizeof(fz_s.cookie), "kutrace_%u", fz_s.port);
	return 0;
}

/* One request's bytes to the server, its answer (up to cap) back; none
 * within 5 s (the connection neither answered nor closed) is a finding. */
static size_t fz_ask(const char *req, size_t n, char *ans, size_t cap)
{
	ssize_t r = 0;
	int sv[2];
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(40000),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct timeval tv = { 5, 0 };
	size_t got = 0;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0 ||
	    MHD_add_connection(fz_d, sv[0], (struct sockaddr *)&sa, sizeof(sa)) != MHD_YES)
		abort();	/* the server is gone: a finding */
	setsockopt(sv[1], SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	for (size_t off = 0; off < n;) {
		ssize_t w = send(sv[1], req + off, n - off, MSG_NOSIGNAL);

		if (w <= 0)
			break;	/* it may close on garbage before reading it all */
		off += (size_t)w;
	}
	shutdown(sv[1], SHUT_WR);
	while (got < cap && (r = recv(sv[1], ans + got, cap - got, 0)) > 0)
		got += (size_t)r;
	if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) && !got) {
		fprintf(stderr, "fuzz_view: no answer within 5 s to:\n%.400s\n", req);
		abort();
	}
	close(sv[1]);
	return got;
}

/*
 * Whether the request's (first) header name, a well-formed line that a
 * browser could send, gives another host or origin than the server's.  A
 * line with bytes outside printable ASCII, or folded onto the next, may be
 * dropped by libmicrohttpd: the server then never saw that header, and no
 * browser sends one.
 */
static int fz_foreign(const char *req, const char *name)
{
	const char *p = strcasestr(req, name);

	if (!p)
		return 0;
	const char *v = p + strlen(name), *e;

	v += strspn(v, " \t");
	/* A NUL is a byte of the input too (the line ends with \n). */
	for (e = v; *e != '\r' && *e != '\n'; e++)
		if (*e < 0x20 || *e > 0x7e)
			return 0;
	if (*e == '\r' && e[1] != '\n')
		return 0;	/* a bare CR */
	e += *e == '\r' ? 2 : 1;
	if (*e == ' ' || *e == '\t')
		return 0;	/* folded */
	return strncmp(v, fz_s.host1, strlen(fz_s.host1)) &&
	       strncmp(v, fz_s.host2, strlen(fz_s.host2)) &&
	       strncmp(v, fz_s.origin1, strlen(fz_s.origin1)) &&
	       strncmp(v, fz_s.origin2, strlen(fz_s.origin2));
}

/* The statuses kutrace_view gives, and libmicrohttpd's for garbage. */
static int fz_known(unsigned int st)
{
	static const unsigned int ok[] = { 200, 400, 403, 404, 405, 413, 414, 431, 500, 501, 505 };

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		if (st == ok[i])
			return 1;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char req[70000], ans[1 << 16];
	char port[8];
	size_t n = 0;

	if (size > 60000)
		return -1;
	/* "@F" k: a hostile store file for this request */
	int hostile = size >= 3 && data[0] == '@' && data[1] == 'F';
	unsigned int hk = hostile ? data[2] : 0;

	if (hostile) {
		data += 3;
		size -= 3;
		fz_hostile(hk, 1);
	}
	snprintf(port, sizeof(port), "%u", fz_s.port);
	for (size_t i = 0; i < size; i++) {
		const char *sub = i + 1 < size && data[i] == '@' ?
				  data[i + 1] == 'T' ? fz_s.token : data[i + 1] == 'P' ? port : NULL :
				  NULL;

		if (sub) {
			memcpy(req + n, sub, strlen(sub));
			n += strlen(sub);
			i++;
		} else {
			req[n++] = (char)data[i];
		}
	}
	req[n] = 0;
	size_t got = fz_ask(req, n, ans, sizeof(ans) - 1);
	unsigned int status = 0;

	ans[got] = 0;
	if (hostile)
		fz_hostile(hk, 0);
	if (got && (sscanf(ans, "HTTP/1.%*1[01] %u ", &status) != 1 || !fz_known(status))) {
		fprintf(stderr, "fuzz_view: not an answer it gives: %.80s\n", ans);
		abort();
	}
	/* 200 only with the token, and never for another host or origin
	 * (strlen: the request as the handler saw it ends at a NUL). */
	/* The headers end at the first empty line; what follows is a body. */
	char *end1 = strstr(req, "\n\n"), *end2 = strstr(req, "\n\r\n");
	char *end = end1 && (!end2 || end1 < end2) ? end1 : end2;

	if (end)
		end[1] = 0;
	if (status == 200 && (!memmem(req, n, fz_s.token, strlen(fz_s.token)) ||
			      fz_foreign(req, "\nHost:") ||
			      fz_foreign(req, "\nOrigin:"))) {
		fprintf(stderr, "fuzz_view: 200 for a request without the token or from "
			"elsewhere:\n%.400s\n", req);
		abort();
	}
	/* A hostile file is never served, nor anything read through it. */
	if (hostile && status == 200 &&
	    (hk % 10 < 5 ? strncmp(req, "GET /api/meta?", 14) == 0 || strncmp(req, "GET /api/meta ", 14) == 0 :
			   strncmp(req, "GET /api/", 9) == 0)) {
		fprintf(stderr, "fuzz_view: 200 with %s %s:\n%.400s\n",
			hk % 10 < 5 ? "meta.json" : "span.parquet",
			(const char *[]){ "a link out", "a link to a copy", "a FIFO", "a directory", "gone" }[hk % 5],
			req);
		abort();
	}
	/* The server still answers. */
	char sound[256];
	int m = snprintf(sound, sizeof(sound), "GET /api/meta HTTP/1.1\r\nHost: %s\r\n"
			 "X-Kutrace-Token: %s\r\n\r\n", fz_s.host1, fz_s.token);

	if (size % 64 == 0) {	/* now and then: it costs a connection */
		got = fz_ask(sound, (size_t)m, ans, sizeof(ans) - 1);
		ans[got] = 0;
		if (strncmp(ans, "HTTP/1.1 200", 12) != 0) {
			fprintf(stderr, "fuzz_view: the server stopped answering: %.80s\n", ans);
			abort();
		}
	}
	fz_done();
	return 0;
}

// SPDX-License-Identifier: BSD-3-Clause
/*
 * kutrace_view - look at a trace in the browser through a local server.
 *
 *   kutrace_view TRACE|JSON|STORE|HTML [--no-browser] [--port N]
 *
 * Serves the timeline page of the trace's table store (docs/TABLES.md;
 * built first in a temporary directory for a trace, JSON or page) and
 * its data on 127.0.0.1 only.  Every request must carry the random token
 * of this run: in the URL (?t=TOKEN; the page then sets a cookie for the
 * requests it makes itself) or an X-Kutrace-Token header.  Requests from
 * another Host or Origin (DNS rebinding, other pages), from a peer that is
 * not loopback, or for a path the server does not serve, are refused.
 * HTTP is libmicrohttpd's: no request parser of our own.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <microhttpd.h>

#include "tool.h"
#include "page.h"
#include "store.h"

#define KT_MEMORY "1500MB"
/* A page that carries every span; past this many the page served carries
 * none: the viewer draws from summaries and loads the rows of the window
 * it shows (docs/spec/VIEWER.md 3.4.1), which opens faster than a page the
 * server would first encode from every row (half kutrace_postproc's
 * --html-max-spans, docs/PERFORMANCE.md). */
#define KT_PAGE_MAX 10000000ULL
/* Stores of this many spans or more get the level of detail precomputed
 * (STORE/lod/): below it a whole trace's bins come from span fast enough. */
#define KT_PYRAMID_MIN 1000000ULL
/* Rows of one window at most (/api/rows). */
#define KT_ROWS_MAX 1000000L
/*
 * What one client may hold (issue 48): a request's URL at most
 * KT_URL_MAX bytes (else 414) with at most KT_ARGS_MAX arguments (else
 * 400; the viewer sends a handful); a connection idle for KT_IDLE_S
 * seconds is closed; at most KT_CONN_MAX connections (fewer if the
 * descriptors do not allow it), half of them from one address.  Each
 * connection's memory is KT_CONN_MEM bytes (libmicrohttpd's pool: the
 * request, its headers and arguments).
 */
#define KT_URL_MAX 4096
#define KT_ARGS_MAX 32
#define KT_IDLE_S 10u
#define KT_CONN_MAX 16384u
#define KT_CONN_MEM ((size_t)64 * 1024)

struct server {
	const char *store, *tpl;
	unsigned long long page_max;
	struct kt_db *db;
	char token[33];
	char cookie[32];	/* the cookie's name: ports share cookies, names do not */
	char host1[32], host2[32], origin1[48], origin2[48];
	unsigned short port;
	char *page[2];		/* built on the first request, then kept: with rows, without */
	size_t page_len[2];
	struct kt_buf lodmeta;	/* /api/lodmeta, made once */
	int64_t t0, t1;		/* the first start (ns), the origin of the bins of /api/lod; the end */
	struct kt_lodpyr pyr;	/* the precomputed bins, when levels > 0 */
	char page_err[512];	/* why the page cannot be made (said once) */
	int gone;		/* the store's absence was reported */
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: kutrace_view TRACE|JSON|STORE|HTML [--no-browser] [--port N] [--memory SIZE]\n"
		"                    [--html-max-spans N] [--pyramid-min N] [--prepare]\n"
		"Serves the trace's timeline on http://127.0.0.1:PORT/ (a random port unless\n"
		"--port) and opens it in the browser ($BROWSER, else xdg-open).  The URL holds\n"
		"a random token; requests without it are refused.  A trace, a JSON file or a\n"
		"page gets its table store built first, in a temporary directory removed at\n"
		"exit.  --no-browser prints the URL as the first line of output and opens\n"
		"nothing.  Ctrl-C ends the server.  From another machine:\n"
		"  ssh -L 8080:127.0.0.1:8080 HOST kutrace_view X.trace --port 8080 --no-browser\n"
		"then open the printed URL here.  --memory caps DuckDB (default 1500MB).\n"
		"The page holds at most N spans (default 10000000, half kutrace_postproc's);\n"
		"a bigger trace's page holds none, and the viewer draws it from summaries,\n"
		"loading the rows of the window it shows.  Stores of --pyramid-min spans\n"
		"(default 1000000; 0: all) get the summaries precomputed once, in STORE/lod/;\n"
		"--prepare makes them and exits.\n");
}

/* ---------------------------------------------------------------------- */
/* Who may ask                                                             */
/* ---------------------------------------------------------------------- */

static int loopback(const struct sockaddr *sa)
{
	if (!sa)
		return 0;
	if (sa->sa_family == AF_INET)
		return (ntohl(((const struct sockaddr_in *)sa)->sin_addr.s_addr) >> 24) == 127;
	if (sa->sa_family == AF_INET6) {
		const struct in6_addr *a = &((const struct sockaddr_in6 *)sa)->sin6_addr;

		return IN6_IS_ADDR_LOOPBACK(a) ||
		       (IN6_IS_ADDR_V4MAPPED(a) && a->s6_addr[12] == 127);
	}
	return 0;
}

static enum MHD_Result accept_peer(void *cls, const struct sockaddr *sa, socklen_t len)
{
	(void)cls;
	(void)len;
	return loopback(sa) ? MHD_YES : MHD_NO;
}

/* Equal strings, in time that does not tell how much of them matched. */
static int same_secret(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	unsigned char d = la != lb;

	for (size_t i = 0; i < la && i < lb; i++)
		d |= (unsigned char)(a[i] ^ b[i]);
	return d == 0;
}

static const char *header(struct MHD_Connection *c, enum MHD_ValueKind k, const char *name)
{
	return MHD_lookup_connection_value(c, k, name);
}

/* NULL if the request may be answered, else why not (a 403's body). */
static const char *refusal(struct server *s, struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	const char *host = header(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_HOST);
	const char *origin = header(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_ORIGIN);
	const char *tok = header(c, MHD_GET_ARGUMENT_KIND, "t");

	if (!ci || !loopback(ci->client_addr))
		return "not a loopback peer";
	if (!host || (strcmp(host, s->host1) != 0 && strcmp(host, s->host2) != 0))
		return "foreign Host";
	if (origin && strcmp(origin, s->origin1) != 0 && strcmp(origin, s->origin2) != 0)
		return "foreign Origin";
	if (!tok)
		tok = header(c, MHD_HEADER_KIND, "X-Kutrace-Token");
	if (!tok)
		tok = header(c, MHD_COOKIE_KIND, s->cookie);
	if (!tok || !same_secret(tok, s->token))
		return "no valid token";
	return NULL;
}

/* ---------------------------------------------------------------------- */
/* Answers                                                                 */
/* ---------------------------------------------------------------------- */

static enum MHD_Result reply(struct MHD_Connection *c, unsigned int status, const char *type,
			     void *body, size_t len, enum MHD_ResponseMemoryMode mode,
			     const char *cookie)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(len, body, mode);

	if (!r) {
		if (mode == MHD_RESPMEM_MUST_FREE)
			free(body);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
	/* The token is in the page's URL: let no link carry it elsewhere. */
	MHD_add_response_header(r, "Referrer-Policy", "no-referrer");
	MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
	MHD_add_response_header(r, "X-Frame-Options", "DENY");
	if (cookie)
		MHD_add_response_header(r, MHD_HTTP_HEADER_SET_COOKIE, cookie);
	enum MHD_Result rc = MHD_queue_response(c, status, r);

	MHD_destroy_response(r);
	return rc;
}

static enum MHD_Result text(struct MHD_Connection *c, unsigned int status, const char *msg)
{
	char *b = NULL;
	int n = asprintf(&b, "%s\n", msg);

	if (n < 0)
		return MHD_NO;
	return reply(c, status, "text/plain; charset=utf-8", b, (size_t)n, MHD_RESPMEM_MUST_FREE,
		     NULL);
}

/* A data error: one line in the terminal (once while the store is gone)
 * and the same line to the page. */
static enum MHD_Result failure(struct server *s, struct MHD_Connection *c, const char *err);

/* A store file refused (kt_store_open: a link, or not a regular file,
 * which is never served): 403 and the line; any other error a failure. */
static enum MHD_Result refused(struct server *s, struct MHD_Connection *c, int e, const char *err)
{
	if (e != ELOOP && e != EINVAL)
		return failure(s, c, err);
	fprintf(stderr, "kutrace_view: %s\n", err);
	return text(c, MHD_HTTP_FORBIDDEN, err);
}

static enum MHD_Result failure(struct server *s, struct MHD_Connection *c, const char *err)
{
	char e2[512];
	int present = kt_store_present(s->store, e2, sizeof(e2)) == 0;

	if (!present)
		err = e2;
	if (present || !s->gone)
		fprintf(stderr, "kutrace_view: %s\n", err);
	s->gone = !present;
	return text(c, MHD_HTTP_INTERNAL_SERVER_ERROR, err);
}

/* The trace's rows, from /api/lodmeta's {"n":N,... */
static long long lod_rows(const struct kt_buf *m)
{
	return m->len > 5 ? strtoll(m->p + 5, NULL, 10) : 0;
}

/* /api/lodmeta, made once: also the trace's size and first start. */
static int lod_meta(struct server *s, char *err, size_t errlen)
{
	if (s->lodmeta.len)
		return 0;
	return kt_store_lod_meta(kt_db_conn(s->db), s->store, &s->t0, &s->t1, &s->lodmeta, err, errlen);
}

/* The page, with a marker telling the viewer that a server is there (and
 * whether the page carries the rows or the viewer asks for summaries). */
static int build_page(struct server *s, int summary, char *err, size_t errlen)
{
	char *p = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&p, &n);

	if (!f) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (kt_store_file_ok(s->store, "span.parquet", err, errlen) < 0) {
		fclose(f);
		free(p);
		return -1;
	}
	int rc = kt_store_page(kt_db_conn(s->db), s->store, s->tpl, s->page_max, summary, f, err,
			       errlen);

	if (fclose(f) != 0 && rc == 0) {
		snprintf(err, errlen, "out of memory");
		rc = -1;
	}
	char *body = rc == 0 ? strstr(p, "<body>\n") : NULL;

	if (rc == 0 && !body) {
		snprintf(err, errlen, "%s: no <body> line", s->tpl);
		rc = -1;
	}
	if (rc < 0) {
		free(p);
		return -1;
	}
	char mark[128];
	int ml = snprintf(mark, sizeof(mark), "<script type=\"application/json\" id=\"ktserver\">"
			  "{\"api\":\"api/\",\"summary\":%s}</script>\n", summary ? "true" : "false");
	size_t head = (size_t)(body - p) + 7;
	char *page = kt_xmalloc(n + (size_t)ml);

	memcpy(page, p, head);
	memcpy(page + head, mark, (size_t)ml);
	memcpy(page + head + ml, p + head, n - head);
	s->page[summary] = page;
	s->page_len[summary] = n + (size_t)ml;
	free(p);
	return 0;
}

static int arg_i64(struct MHD_Connection *c, const char *k, int64_t lo, int64_t hi, int64_t *v)
{
	const char *s = header(c, MHD_GET_ARGUMENT_KIND, k);
	char *end;

	if (!s || !*s)
		return -1;
	errno = 0;
	long long x = strtoll(s, &end, 10);

	if (errno || *end || x < lo || x > hi)
		return -1;
	*v = x;
	return 0;
}

static enum MHD_Result api(struct server *s, struct MHD_Connection *c, const char *what)
{
	char err[4400];
	struct kt_buf b = { 0 };
	int64_t t0, t1, n = 0, cpu = 0, limit = KT_ROWS_MAX;
	int rc;

	if (kt_store_present(s->store, err, sizeof(err)) < 0)
		return failure(s, c, err);
	/* What DuckDB reads (the span view's file): the store's own, a
	 * regular file, or nothing is read. */
	if (kt_store_file_ok(s->store, "span.parquet", err, sizeof(err)) < 0)
		return refused(s, c, errno, err);
	if (strcmp(what, "meta") == 0) {
		char path[4200];
		FILE *f;

		snprintf(path, sizeof(path), "%s/meta.json", s->store);
		if (!(f = kt_store_fopen(s->store, "meta.json", err, sizeof(err))))
			return refused(s, c, errno, err);
		size_t len = 0;
		char *m = kt_html_slurp(f, &len);

		fclose(f);
		if (!m) {
			snprintf(err, sizeof(err), "%s: cannot read", path);
			return failure(s, c, err);
		}
		return reply(c, MHD_HTTP_OK, "application/json", m, len,
			     MHD_RESPMEM_MUST_FREE, NULL);
	}
	if (strcmp(what, "lodmeta") == 0) {
		if (lod_meta(s, err, sizeof(err)) < 0)
			return failure(s, c, err);
		return reply(c, MHD_HTTP_OK, "application/json", s->lodmeta.p, s->lodmeta.len,
			     MHD_RESPMEM_MUST_COPY, NULL);
	}
	if (strcmp(what, "lod") == 0) {
		int64_t q, a, b2;
		const char *rows = header(c, MHD_GET_ARGUMENT_KIND, "rows");	/* cpu (the default), pid or rpc */

		if (rows && strcmp(rows, "cpu") != 0 && strcmp(rows, "pid") != 0 && strcmp(rows, "rpc") != 0)
			return text(c, MHD_HTTP_BAD_REQUEST, "rows: cpu, pid or rpc");
		if (arg_i64(c, "q", 1, INT64_MAX / 4, &q) < 0 || arg_i64(c, "a", 0, INT64_MAX / 4, &a) < 0 ||
		    arg_i64(c, "b", 1, INT64_MAX / 4, &b2) < 0 || b2 <= a || b2 - a > 65536 ||
		    a > INT64_MAX / 4 / q || b2 > INT64_MAX / 4 / q)
			return text(c, MHD_HTTP_BAD_REQUEST, "give q ns and bins a < b, at most 65536 of them");
		if (lod_meta(s, err, sizeof(err)) < 0)
			return failure(s, c, err);
		/* The bins' times from the trace's start: every sum checked. */
		int64_t bq, hi, q2;

		if (__builtin_mul_overflow(b2, q, &bq) || __builtin_add_overflow(s->t0, bq, &hi) ||
		    __builtin_mul_overflow(q, 2, &q2))
			return text(c, MHD_HTTP_BAD_REQUEST, "q and b: bins beyond the range of times");
		if (
		    kt_store_lod(kt_db_conn(s->db), s->pyr.levels ? &s->pyr : NULL, s->t0, q, a, b2,
				 !rows ? 0 : rows[0] == 'p' ? 1 : rows[0] == 'r' ? 2 : 0, &b, err, sizeof(err)) < 0) {
			kt_buf_free(&b);
			return failure(s, c, err);
		}
		s->gone = 0;
		return reply(c, MHD_HTTP_OK, "application/json", b.p, b.len, MHD_RESPMEM_MUST_FREE, NULL);
	}
	if (arg_i64(c, "t0", INT64_MIN / 4, INT64_MAX / 4, &t0) < 0 ||
	    arg_i64(c, "t1", INT64_MIN / 4, INT64_MAX / 4, &t1) < 0 || t1 <= t0)
		return text(c, MHD_HTTP_BAD_REQUEST, "give t0 < t1 in ns");
	if (strcmp(what, "tiles") == 0) {
		if (arg_i64(c, "n", 1, 100000, &n) < 0)
			return text(c, MHD_HTTP_BAD_REQUEST, "give n buckets, 1..100000");
		rc = kt_store_tiles(kt_db_conn(s->db), t0, t1, (int)n, &b, err, sizeof(err));
	} else {
		/* /api/window: the rows of every CPU */
		if (strcmp(what, "window") == 0)
			cpu = -1;
		else if (arg_i64(c, "cpu", 0, INT32_MAX, &cpu) < 0)
			return text(c, MHD_HTTP_BAD_REQUEST, "give a cpu");
		if (header(c, MHD_GET_ARGUMENT_KIND, "limit") &&
		    arg_i64(c, "limit", 1, KT_ROWS_MAX, &limit) < 0)
			return text(c, MHD_HTTP_BAD_REQUEST, "limit: 1..1000000");
		rc = kt_store_rows(kt_db_conn(s->db), s->pyr.levels ? &s->pyr : NULL, (int)cpu, t0, t1,
				   (long)limit, &b, err, sizeof(err));
	}
	if (rc < 0) {
		kt_buf_free(&b);
		return failure(s, c, err);
	}
	s->gone = 0;
	return reply(c, MHD_HTTP_OK, "application/json", b.p, b.len, MHD_RESPMEM_MUST_FREE, NULL);
}

/*
 * /api/why?spec=rpc:ID|pid:P[:T1:T2]|mark:NAME: kutrace_why's answers
 * (--json) for the viewer's why.js.  The spec is checked here, character
 * by character, and goes to kutrace_why as arguments, never through a
 * shell.
 */
static enum MHD_Result api_why(struct server *s, struct MHD_Connection *c)
{
	const char *spec = header(c, MHD_GET_ARGUMENT_KIND, "spec");
	char kind[8] = "", a[40] = "", t1[40] = "", t2[40] = "", flag[16], err[512];
	int n = 0;

	if (!spec || strlen(spec) > 100 ||
	    sscanf(spec, "%7[a-z]:%39[0-9A-Za-z_./-]%n", kind, a, &n) != 2 ||
	    (spec[n] && sscanf(spec + n, ":%39[0-9.]:%39[0-9.]", t1, t2) != 2) ||
	    (strcmp(kind, "rpc") && strcmp(kind, "pid") && strcmp(kind, "mark")) ||
	    (strcmp(kind, "mark") && strspn(a, "0123456789") != strlen(a)) ||
	    (*t1 && strcmp(kind, "pid")) || a[0] == '-')
		return text(c, MHD_HTTP_BAD_REQUEST, "spec: rpc:ID, pid:P[:T1:T2] or mark:NAME");
	/* An id or a pid as kutrace_why takes it: 1 to 2^31 - 1. */
	if (strcmp(kind, "mark") != 0) {
		char *end;

		errno = 0;
		long long v = strtoll(a, &end, 10);

		if (errno || *end || v < 1 || v > INT32_MAX)
			return text(c, MHD_HTTP_BAD_REQUEST, "spec: an id or a pid from 1 to 2147483647");
	}
	snprintf(flag, sizeof(flag), "--%s", kind);
	char *args[] = { "kutrace_why", (char *)s->store, flag, a, "--json",
			 *t1 ? "--from" : NULL, t1, "--to", t2, NULL };
	struct kt_buf out = { 0 };
	int rc = kt_run_sibling("kutrace_why", args, &out, err, sizeof(err));

	if (rc != 0) {
		kt_buf_free(&out);
		/* 2: no such target, which is an answer, not a failure. */
		if (rc == 2)
			return text(c, MHD_HTTP_NOT_FOUND, err);
		return failure(s, c, err);
	}
	return reply(c, MHD_HTTP_OK, "application/json", out.p, out.len, MHD_RESPMEM_MUST_FREE,
		     NULL);
}

/*
 * Every request's URL, before libmicrohttpd parses its arguments: one of
 * more than KT_URL_MAX bytes or KT_ARGS_MAX arguments is marked (the
 * handler then answers 414 or 400) and its arguments cut off here.  For
 * libmicrohttpd 0.9.75 answers a request whose arguments overflow its
 * memory pool never at all: the client waits (issue 48); the pool then
 * only ever holds a few.  The URL is in the connection's own read buffer,
 * where libmicrohttpd parses it in place next.
 */
static char url_too_long, too_many_args;

static void *uri_seen(void *cls, const char *uri, struct MHD_Connection *c)
{
	char *q = strchr(uri, '?');
	size_t n = 1;
	void *mark = NULL;

	(void)cls;
	(void)c;
	for (const char *p = q; p && (p = strchr(p + 1, '&'));)
		n++;
	if (strlen(uri) > KT_URL_MAX)
		mark = &url_too_long;
	else if (q && n > KT_ARGS_MAX)
		mark = &too_many_args;
	if (mark && q)
		q[1] = '\0';
	return mark;
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url,
			      const char *method, const char *version, const char *upload,
			      size_t *upload_size, void **state)
{
	struct server *s = cls;

	(void)version;
	(void)upload;
	/* Refused before its arguments were parsed (uri_seen). */
	if (*state == &url_too_long)
		return text(c, MHD_HTTP_URI_TOO_LONG, "a URL of at most 4096 bytes");
	if (*state == &too_many_args ||
	    MHD_get_connection_values(c, MHD_GET_ARGUMENT_KIND, NULL, NULL) > KT_ARGS_MAX)
		return text(c, MHD_HTTP_BAD_REQUEST, "at most 32 arguments");
	const char *why = refusal(s, c);

	if (why)
		return text(c, MHD_HTTP_FORBIDDEN, why);
	if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0)
		return text(c, MHD_HTTP_METHOD_NOT_ALLOWED, "GET only");
	if (*upload_size)
		return text(c, MHD_HTTP_BAD_REQUEST, "no body expected");
	if (strcmp(url, "/api/why") == 0)
		return api_why(s, c);
	if (strncmp(url, "/api/", 5) == 0 &&
	    (strcmp(url + 5, "meta") == 0 || strcmp(url + 5, "tiles") == 0 ||
	     strcmp(url + 5, "rows") == 0 || strcmp(url + 5, "window") == 0 ||
	     strcmp(url + 5, "lodmeta") == 0 || strcmp(url + 5, "lod") == 0))
		return api(s, c, url + 5);
	if (strcmp(url, "/") != 0)
		return text(c, MHD_HTTP_NOT_FOUND, "no such path");
	/* ?summary=1, or a trace of more spans than a page holds: the page
	 * without rows. */
	const char *sum = header(c, MHD_GET_ARGUMENT_KIND, "summary");
	int summary = sum && strcmp(sum, "0") != 0;
	char err[512];

	if (!summary && !s->page[0]) {
		if (kt_store_present(s->store, err, sizeof(err)) < 0 || lod_meta(s, err, sizeof(err)) < 0)
			return failure(s, c, err);
		summary = s->page_max && (unsigned long long)lod_rows(&s->lodmeta) > s->page_max;
	}
	if (!s->page[summary] && *s->page_err)
		return text(c, MHD_HTTP_INTERNAL_SERVER_ERROR, s->page_err);
	if (!s->page[summary]) {
		if (kt_store_present(s->store, err, sizeof(err)) < 0)
			return failure(s, c, err);
		if (build_page(s, summary, err, sizeof(err)) < 0) {
			/* A page that cannot be made stays so: not read again. */
			if (kt_store_present(s->store, s->page_err, sizeof(s->page_err)) == 0)
				snprintf(s->page_err, sizeof(s->page_err), "%s", err);
			return failure(s, c, err);
		}
	}
	char cookie[128];

	snprintf(cookie, sizeof(cookie), "%s=%s; Path=/; HttpOnly; SameSite=Strict", s->cookie,
		 s->token);
	return reply(c, MHD_HTTP_OK, "text/html; charset=utf-8", s->page[summary],
		     s->page_len[summary], MHD_RESPMEM_PERSISTENT, cookie);
}

/* ---------------------------------------------------------------------- */

static void open_browser(const char *url)
{
	const char *b = getenv("BROWSER");
	pid_t pid;

	if (!b || !*b)
		b = "xdg-open";
	/* Twice: the launcher's child is reaped at once, the launcher itself
	 * by init, and no zombie is left (SIGCHLD stays as it is, so that
	 * /api/why can wait for kutrace_why). */
	pid = fork();
	if (pid == 0) {
		if (fork() != 0)
			_exit(0);
		/* The browser's own chatter is not ours. */
		if (!freopen("/dev/null", "w", stdout) || !freopen("/dev/null", "w", stderr))
			_exit(127);
		execlp(b, b, url, (char *)NULL);
		_exit(127);
	}
	if (pid < 0)
		fprintf(stderr, "kutrace_view: cannot start %s (%s): open the URL yourself\n", b,
			strerror(errno));
	else
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
}

/* The connections served at once: KT_CONN_MAX, or what the descriptors
 * allow (raised to the hard limit) less some for DuckDB and kutrace_why. */
static unsigned int conn_limit(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return 512;
	if (rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		if (rl.rlim_cur > KT_CONN_MAX + 512)
			rl.rlim_cur = KT_CONN_MAX + 512;
		setrlimit(RLIMIT_NOFILE, &rl);
		getrlimit(RLIMIT_NOFILE, &rl);
	}
	if (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur >= KT_CONN_MAX + 512)
		return KT_CONN_MAX;
	return rl.rlim_cur > 512 + 64 ? (unsigned int)rl.rlim_cur - 512 : 64;
}

static void make_token(char *out)
{
	unsigned char r[16];

	if (getrandom(r, sizeof(r), 0) != (ssize_t)sizeof(r))
		kt_die("no random numbers for the token: %s", strerror(errno));
	for (size_t i = 0; i < sizeof(r); i++)
		sprintf(out + 2 * i, "%02x", r[i]);
}

int main(int argc, char **argv)
{
	const char *memory = KT_MEMORY;
	unsigned long long port = 0, page_max = KT_PAGE_MAX, pyr_min = KT_PYRAMID_MIN;
	int no_browser = 0, prepare = 0;
	const struct kt_opt opts[] = {
		{ "no-browser", KT_OPT_FLAG, &no_browser, 1 },
		{ "port", KT_OPT_ULL, &port, 0 },
		{ "memory", KT_OPT_STR, &memory, 0 },
		{ "html-max-spans", KT_OPT_ULL, &page_max, 0 },
		{ "pyramid-min", KT_OPT_ULL, &pyr_min, 0 },
		{ "prepare", KT_OPT_FLAG, &prepare, 1 },
		{ NULL, 0, NULL, 0 },
	};
	const struct kt_argspec spec = { opts, usage, 1, 1, 0 };
	const char *pos[1] = { NULL };
	static struct server s;
	static struct kt_inputs in;
	char err[512] = "";

	kt_set_progname(argv[0]);
	kt_args(&spec, argc, argv, pos);
	if (port > 65535)
		kt_die("--port %llu: 0..65535", port);
	if (!(s.tpl = kt_html_find_template(argv[0])))
		kt_die("no viewer template (../share/kutrace/viewer.html next to the program, "
		       "or $KUTRACE_VIEWER)");
	kt_xopen_inputs(&in, pos, 1, memory);
	s.store = in.v[0];
	s.page_max = page_max;
	if (!(s.db = kt_db_open(in.v, in.n, memory, err, sizeof(err))))
		kt_die("%s", err);
	make_token(s.token);

	/* Signals are taken by sigwait below, in no thread of the server. */
	sigset_t sigs;

	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);
	signal(SIGPIPE, SIG_IGN);

	/* After the mask: DuckDB's threads, started by the first query, inherit
	 * it, and a SIGINT is then left to sigwait.  The pyramid of the level
	 * of detail is made once next to the store
	 * (a store that cannot take it is served without: tiles from span). */
	if (lod_meta(&s, err, sizeof(err)) < 0) {
		if (prepare)
			kt_die("%s", err);
		fprintf(stderr, "kutrace_view: %s\n", err);
	} else {
		if ((unsigned long long)lod_rows(&s.lodmeta) >= pyr_min &&
		    kt_store_lod_pyramid(kt_db_conn(s.db), s.store, s.t0, s.t1, &s.lodmeta, &s.pyr,
					 err, sizeof(err)) < 0) {
			if (prepare)
				kt_die("%s", err);
			fprintf(stderr, "kutrace_view: %s (served without the precomputed level of detail)\n", err);
		}
	}
	if (prepare) {
		kt_db_close(s.db);
		fprintf(stderr, "kutrace_view: %s: level of detail ready (%d levels from %" PRId64 " ns)\n",
			s.store, s.pyr.levels, s.pyr.q0);
		return 0;
	}

	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	unsigned int conns = conn_limit();
	/* epoll (else poll): select's 1024 descriptors would be the limit. */
	struct MHD_Daemon *d = MHD_start_daemon(MHD_USE_AUTO_INTERNAL_THREAD, (uint16_t)port,
						accept_peer, NULL, handle, &s,
						MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sa,
						MHD_OPTION_CONNECTION_TIMEOUT, KT_IDLE_S,
						MHD_OPTION_CONNECTION_LIMIT, conns,
						MHD_OPTION_PER_IP_CONNECTION_LIMIT, conns / 2,
						MHD_OPTION_CONNECTION_MEMORY_LIMIT, KT_CONN_MEM,
						MHD_OPTION_URI_LOG_CALLBACK, uri_seen, NULL,
						MHD_OPTION_END);

	if (!d)
		kt_die("cannot serve on 127.0.0.1:%llu%s", port,
		       port ? " (in use? another --port, or none for a random one)" : "");
	const union MHD_DaemonInfo *di = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);

	s.port = di ? di->port : (unsigned short)port;
	snprintf(s.host1, sizeof(s.host1), "127.0.0.1:%u", s.port);
	snprintf(s.host2, sizeof(s.host2), "localhost:%u", s.port);
	snprintf(s.origin1, sizeof(s.origin1), "http://%s", s.host1);
	snprintf(s.origin2, sizeof(s.origin2), "http://%s", s.host2);
	snprintf(s.cookie, sizeof(s.cookie), "kutrace_%u", s.port);

	char url[128];

	snprintf(url, sizeof(url), "http://127.0.0.1:%u/?t=%s", s.port, s.token);
	printf("%s\n", url);
	fflush(stdout);
	fprintf(stderr, "kutrace_view: serving %s (Ctrl-C ends)\n", pos[0]);
	if (!no_browser)
		open_browser(url);
	int sig = 0;

	while (sigwait(&sigs, &sig) != 0)
		;
	MHD_stop_daemon(d);
	kt_db_close(s.db);
	free(s.page[0]);
	free(s.page[1]);
	kt_buf_free(&s.lodmeta);
	for (size_t i = 0; i < in.n; i++)
		free(in.v[i]);
	fprintf(stderr, "kutrace_view: stopped\n");
	return 0;
}

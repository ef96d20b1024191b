// SPDX-License-Identifier: BSD-3-Clause
/*
 * kutrace_align - put the traces of several hosts on one timeline.
 *
 *   kutrace_align A B ... -o MERGED [--tables] [--buckets N] [--html-max-spans N]
 *
 * Inputs are raw traces (turned into JSON by kutrace_postproc first) or
 * span JSON.  The first input is the reference host: every time of the
 * output is in its clock.
 *
 * Messages seen on both sides are RPCs: the RPC marks 0x201 (request, "this
 * thread now works for id") and 0x202 (response) carry the same 16-bit id
 * on the client and on the server.  Per host and id, the earliest 0x201 and
 * the latest 0x202 bracket the RPC: on the client from the send of the
 * request to the receipt of the response (t1..t4), on the server from the
 * receipt of the request to the send of the response (t2..t3).  The one
 * with the longer bracket is the client.  Causality alone then bounds the
 * clock offset theta = server clock - client clock:
 *     t3 - t4  <=  theta  <=  t2 - t1
 * (each message takes a time >= 0 on the wire).
 *
 * Packets are the second kind of message: the kernel records a TCP or UDP
 * message of a pktmask-selected kind (client_server's) by a hash of its
 * first 32 payload bytes at send (0x215, tx) and at receive (0x214, rx),
 * near the wire, on stock and patched kernels alike.  A hash sent once by
 * one host and received once by the other bounds theta on one side
 * (p -> q: theta <= t_rx - t_tx; q -> p: theta >= t_tx - t_rx); each
 * upper bound is paired with the lower bound nearest in time (within
 * PKT_PAIR_NS, where drift moves nothing) into one more interval.  These
 * are tighter than the RPC marks' (no system call or wakeup inside), so
 * they are what the least-slack picks take when there are any.
 *
 * The method is the original KUtrace's timealign: the time range is cut
 * into buckets (8), the RPC of least slack (hi - lo) is kept in each, and
 * offset and drift are fitted to those intervals' midpoints by least
 * squares.  Chosen over Trace Compass's convex hull as the estimate
 * because it is simple, needs no geometry, and uses only the tightest
 * message of each stretch of time, so queueing on a busy server (wide
 * intervals) does not pull it.  The fitted line is then moved, if need be,
 * into every interval, so that no receive comes before its send after
 * alignment.
 *
 * The bound: the truth lies in every message's interval.  If the two clocks
 * are linear in each other (offset + drift), the true line is one of the
 * lines through every interval (the band between the convex hulls of the
 * intervals' ends, Trace Compass's picture), and the error of ours is
 * linear in time, so over the span of the messages it is at most its
 * largest distance to that band at the first and the last message.  When
 * the line through the middle of the band at those two ends also passes
 * through every interval, it has the least such bound and is taken.
 *
 * A message that contradicts the others (its interval meets fewer than
 * half of the intervals of its bucket, or misses the fitted line by more
 * than the bound) is reported (one line naming the hosts and the id), left
 * out and counted; the merge is still written, as one damaged message
 * among thousands should not cost the timeline.  Hosts are chained:
 * each host is aligned to a host already aligned with which it shares
 * messages, starting from the reference.
 *
 * Errors (one line naming the hosts, exit 1, nothing written): the same
 * host twice, a host with no RPC in common with the others, clocks whose
 * rates must differ by more than 1000 ppm (or 100 years apart), every
 * common message contradicting another.
 *
 * Output: MERGED.json and MERGED.html, one group of CPUs per host: host k's
 * CPU c is CPU cpu0_k + c, and the header's "machines" names each host
 * with its first CPU, CPU count, offset, drift and bound; "messages" lists
 * the matched messages as [send, send cpu, receive, receive cpu, rpc] in
 * 10 ns units of the merged clock, for the viewer's arcs (machines.js).
 * --tables: MERGED.tables/machine=H/trace=ID/, one store per host (kutrace_sql
 * build) with its own CPU numbers, its times in the reference clock: the
 * fleet layout of docs/TABLES.md, which kutrace_sql opens as one set of
 * tables (a quoted glob of its stores).
 */
#include <errno.h>
#include <ftw.h>
#include <inttypes.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "tool.h"
#include "page.h"
#include "jsonrows.h"

#define MAX_HOSTS 64
#define NIDS 65536
#define NO_T INT64_MIN
#define MAX_PPM 1000.0
#define PKT_PAIR_NS 10000000

/* A packet entry: its hash, tx or rx, its time (ns since the epoch), CPU. */
struct pkt {
	uint32_t hash;
	int tx, cpu;
	int64_t t;
};

/* One RPC id on one host: the bracket of its marks, in ns since the epoch. */
struct ends {
	int64_t req, resp;	/* earliest 0x201, latest 0x202 */
	int req_cpu, resp_cpu;
};

/* A host's clock mapped onto the reference: ref = t - off(t). */
struct clockmap {
	int64_t c, x;		/* off(t) = c + (t - x) * d */
	double d;
};

struct host {
	const char *input;
	char *json;		/* the JSON read (input, or kutrace_postproc's) */
	char *name;		/* hostName, else the file's stem */
	char *trace_id;
	int64_t base;		/* tracebase, ns since the epoch (UTC) */
	int64_t first;		/* the earliest row's start, the same */
	int fast;		/* its rows are kutrace's own lines (fast_row) */
	int ncpu, cpu0;
	struct ends *rpc;
	struct pkt *pk;		/* sorted by (tx, hash, t) after the scan */
	size_t npk, cappk;
	int aligned;
	struct clockmap map;
	double bound_us;	/* accumulated along the chain */
};

struct msg {
	int64_t x;		/* the message's time in the new host's clock */
	int64_t lo, hi;		/* theta = new host's clock - aligned host's */
	int id, bad;		/* id: the RPC id; 0: a pair of packets (hash) */
	uint32_t hash;
};

static struct host hosts[MAX_HOSTS];
static int nhosts, nbuckets = 8;
static char tmpdir[] = "/tmp/kutrace_align.XXXXXX";
static int have_tmpdir;
static char *tables_tmp;

static void usage(FILE *f)
{
	fprintf(f,
		"usage: kutrace_align A B ... -o MERGED [--tables] [--buckets N] [--html-max-spans N]\n"
		"Aligns the traces of several hosts (raw traces or span JSON; the first is\n"
		"the reference clock) from the RPCs seen on both sides, prints for each host\n"
		"pair the offset, the drift (ppm), the bound (+- us), the messages used and a\n"
		"quality word (accurate, approximate, incomplete), and writes MERGED.json and\n"
		"MERGED.html: one CPU group per host, every time in the reference clock.\n"
		"--tables also writes MERGED.tables/machine=H/trace=ID/ (kutrace_sql).\n"
		"--buckets: time buckets of the least-slack fit (default 8).\n"
		"--html-max-spans: no page for more spans than N (default 20000000, 0 = no limit).\n");
}

static char *stem(const char *path)
{
	const char *b = strrchr(path, '/');
	char *s = kt_xstrdup(b ? b + 1 : path);
	char *dot = strrchr(s, '.');

	if (dot && dot != s)
		*dot = '\0';
	return s;
}

static int ends_with(const char *s, const char *suf)
{
	size_t a = strlen(s), b = strlen(suf);

	return a >= b && strcmp(s + a - b, suf) == 0;
}

/* A header string value (raw JSON text) decoded, or NULL. */
static char *hdr_string(const struct kt_jreader *r, const char *key)
{
	const char *raw = kt_jr_header_value(r, key);
	json_t *v = raw ? json_loads(raw, JSON_DECODE_ANY, NULL) : NULL;
	char *s = json_is_string(v) ? kt_xstrdup(json_string_value(v)) : NULL;

	json_decref(v);
	return s;
}

static int64_t tracebase_ns(const char *tb, const char *path)
{
	struct tm tm = { 0 };

	if (!tb || sscanf(tb, "%d-%d-%d_%d:%d", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
			  &tm.tm_hour, &tm.tm_min) != 5)
		kt_die("%s: no tracebase in the JSON header", path);
	/* Nanoseconds since 1970 in an int64 with room for any row (1e9 s) and
	 * any offset between hosts: found by fuzz_align. */
	if (tm.tm_year < 1970 || tm.tm_year > 2100 || tm.tm_mon < 1 || tm.tm_mon > 12 ||
	    tm.tm_mday < 1 || tm.tm_mday > 31 || tm.tm_hour < 0 || tm.tm_hour > 23 ||
	    tm.tm_min < 0 || tm.tm_min > 59)
		kt_die("%s: tracebase %s is not a time of 1970..2100", path, tb);
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	return (int64_t)timegm(&tm) * 1000000000;
}

/* Seconds of a row to 10 ns units, exactly as the JSON prints them. */
static int64_t t10(double s)
{
	return llround(s * 1e8);
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path);
}

/* At exit, also after kt_die: our temporaries, and a tables directory half made. */
static void cleanup_tmp(void)
{
	if (tables_tmp)
		nftw(tables_tmp, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	if (have_tmpdir)
		nftw(tmpdir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static void run(const char *prog, char **args, const char *what)
{
	struct kt_buf out = { 0 };
	char err[512];

	if (kt_run_sibling(prog, args, &out, err, sizeof(err)) != 0)
		kt_die("%s: %s", what, err);
	free(out.p);
}

/* A raw trace becomes JSON first, in our temporary directory. */
static void to_json(struct host *h, int i)
{
	struct stat st;

	/* Stores hold no RPC marks kutrace_align could read without DuckDB. */
	if (stat(h->input, &st) == 0 && S_ISDIR(st.st_mode))
		kt_die("%s: a directory (a table store?): give its trace or JSON", h->input);
	if (ends_with(h->input, ".json")) {
		h->json = kt_xstrdup(h->input);
		return;
	}
	if (asprintf(&h->json, "%s/in%d.json", tmpdir, i) < 0)
		kt_die("out of memory");
	char *args[] = { "kutrace_postproc", (char *)h->input, "-o", h->json,
			 "--no-html", "--quiet", NULL };

	run("kutrace_postproc", args, h->input);
}

/*
 * The fast path.  kutrace's JSON writes one row a line, "[%12.8f, %10.8f,
 * %d, ... "name"],"; read as any JSON (jansson per row) 10 M rows take
 * ~25 s, as these lines ~2 s.  Such a line gives start and duration in
 * 10 ns units exactly, the CPU, and the rest of the line, copied to the
 * output as it is (only start, duration and CPU change).  A file with any
 * other line among its rows is read the slow way (fast = 0).
 */
struct fast_row {
	int64_t start, dur;	/* 10 ns units */
	int64_t cpu;
	const char *rest;	/* from the space after the CPU's comma */
};

/*
 * Spaces, an optional "-", then digits into *x (its magnitude): how many
 * digits (at most 19 read, so 19 means too many for a row's number).
 * strtoll was a fifth of the time.
 */
static int lead_int(const char **pp, int64_t *x, int *neg)
{
	const char *p = *pp;
	uint64_t u = 0;	/* 19 digits fit here, not always in an int64_t */
	int n = 0;

	*neg = 0;
	while (*p == ' ')
		p++;
	if (*p == '-')
		*neg = 1, p++;
	for (; *p >= '0' && *p <= '9' && n < 19; p++, n++)
		u = u * 10 + (uint64_t)(*p - '0');
	*x = n < 19 ? (int64_t)u : INT64_MAX;
	*pp = p;
	return n;
}

/* "[-]D+.DDDDDDDD" after spaces, as 10 ns units; NULL if not that. */
static const char *fixed8(const char *p, int64_t *v)
{
	int64_t x;
	int neg, n = lead_int(&p, &x, &neg);

	if (!n || n > 10 || *p++ != '.')
		return NULL;
	for (n = 0; n < 8; n++, p++) {
		if (*p < '0' || *p > '9')
			return NULL;
		x = x * 10 + (*p - '0');
	}
	*v = neg ? -x : x;
	return p;
}

/* ", [-]digits" (up to 18); NULL if not that. */
static const char *int_field(const char *p, int64_t *v)
{
	int64_t x;
	int neg, n;

	if (*p++ != ',')
		return NULL;
	n = lead_int(&p, &x, &neg);
	if (!n || n > 18)
		return NULL;
	*v = neg ? -x : x;
	return p;
}

/* 1: a row line, 0: the sentinel, -1: not a line of ours. */
static int fast_row(const char *line, size_t len, struct fast_row *w)
{
	const char *p = line;

	if (len < 2 || line[len - 1] != '\n')
		return -1;
	if (strncmp(line, "[999.0, 0.0, 0, 0, 0, 0, 0, 0, 0, \"\"]\n", len) == 0)
		return 0;
	if (*p++ != '[' || !(p = fixed8(p, &w->start)) || *p++ != ',' ||
	    !(p = fixed8(p, &w->dur)) || !(p = int_field(p, &w->cpu)) || *p != ',')
		return -1;
	/* the row's end: `"],` or `"]` and the newline, the name a string */
	if (!(len >= 4 && line[len - 2] == ',' && line[len - 3] == ']' && line[len - 4] == '"'))
		return -1;
	w->rest = p + 1;
	return 1;
}

/* pid, rpc, event, arg of the rest of a fast row. */
static int fast_fields(const char *rest, int64_t v[4])
{
	const char *p = rest - 1;

	for (int i = 0; i < 4; i++)
		if (!(p = int_field(p, &v[i])))
			return -1;
	return 0;
}

/* A fast reader: the file after its `"events" : [` line. */
struct fast_in {
	FILE *f;
	char *line;
	size_t cap;
	ssize_t len;
	long lineno;		/* of line */
};

static int fast_open(struct fast_in *in, const char *path)
{
	in->f = fopen(path, "r");
	if (!in->f)
		return -1;
	setvbuf(in->f, NULL, _IOFBF, 1 << 20);
	in->lineno = 0;
	while ((in->len = getline(&in->line, &in->cap, in->f)) > 0 && ++in->lineno)
		if (strcmp(in->line, "\"events\" : [\n") == 0)
			return 0;
	return -1;
}

static void fast_close(struct fast_in *in)
{
	if (in->f)
		fclose(in->f);
	free(in->line);
	*in = (struct fast_in){ 0 };
}

/*
 * The CPUs a host's rows may name: -1 (no CPU), 0..MAX_CPU - 1.  Each
 * host's CPU c becomes cpu0 + c in the merge: a number read from a file
 * is checked before that sum (fuzz_align's CPU 9223372036854775807).
 */
#define MAX_CPU 4096

/* One RPC mark (pass 1), as either path reads it; line: the row's line. */
static void note_row(struct host *h, int64_t start, int64_t cpu, int64_t event, int64_t arg,
		     long line)
{
	int64_t t = h->base + start * 10;

	if (cpu < -1 || cpu >= MAX_CPU)
		kt_die("%s:%ld: cpu %" PRId64 " is out of range (-1, 0..%d)", h->json, line, cpu,
		       MAX_CPU - 1);

	h->first = t < h->first ? t : h->first;
	if (cpu >= h->ncpu)
		h->ncpu = (int)cpu + 1;
	if (event == KUTRACE_RX_PKT || event == KUTRACE_TX_PKT) {
		if (h->npk == h->cappk) {
			h->cappk = h->cappk ? 2 * h->cappk : 1024;
			h->pk = kt_xrealloc(h->pk, h->cappk * sizeof(*h->pk));
		}
		h->pk[h->npk++] = (struct pkt){ (uint32_t)arg, event == KUTRACE_TX_PKT,
						(int)cpu, t };
		return;
	}
	if (event != KUTRACE_RPCIDREQ && event != KUTRACE_RPCIDRESP)
		return;
	int id = (int)(arg & 0xFFFF);
	struct ends *e = &h->rpc[id];

	if (!id)
		return;
	if (event == KUTRACE_RPCIDREQ && (e->req == NO_T || t < e->req)) {
		e->req = t;
		e->req_cpu = (int)cpu;
	} else if (event == KUTRACE_RPCIDRESP && (e->resp == NO_T || t > e->resp)) {
		e->resp = t;
		e->resp_cpu = (int)cpu;
	}
}

/* Pass 1 the fast way: 1 if every row was a line of ours up to "]}". */
static int scan_fast(struct host *h)
{
	struct fast_in in = { 0 };
	struct fast_row w;
	int64_t v[4];
	int ok = 0, k;

	if (fast_open(&in, h->json) == 0) {
		while ((in.len = getline(&in.line, &in.cap, in.f)) > 0 && ++in.lineno &&
		       (k = fast_row(in.line, (size_t)in.len, &w)) == 1) {
			/* rows are bounded to 1e9 s, as the JSON reader bounds them
			 * (which then says which row is not) */
			if (w.start > 100000000000000000LL || w.start < -100000000000000000LL ||
			    w.dur > 100000000000000000LL || w.dur < -100000000000000000LL ||
			    fast_fields(w.rest, v) < 0)
				break;
			note_row(h, w.start, w.cpu, v[2], v[3], in.lineno);
		}
		ok = in.len > 0 && k == 0 && (in.len = getline(&in.line, &in.cap, in.f)) > 0 &&
		     strcmp(in.line, "]}\n") == 0 && getline(&in.line, &in.cap, in.f) < 0;
	}
	fast_close(&in);
	return ok;
}

static int cmp_pkt(const void *x, const void *y)
{
	const struct pkt *a = x, *b = y;

	if (a->tx != b->tx)
		return a->tx - b->tx;
	if (a->hash != b->hash)
		return (a->hash > b->hash) - (a->hash < b->hash);
	return (a->t > b->t) - (a->t < b->t);
}

/*
 * Pass 1: the header, the CPU count, every RPC mark and packet.  The reader is
 * file-wide and h's buffers are reused so that the fuzz target
 * (tests/fuzz/fuzz_align.c), which runs this again after a kt_die, can
 * close what was left open and does not grow.
 */
static struct kt_jreader scan_r;

static void scan(struct host *h)
{
	struct kt_jreader *rp = &scan_r;
	struct kt_jrow row;

	free(h->name), free(h->trace_id);
	h->name = h->trace_id = NULL;
	h->ncpu = 0;
	memset(rp, 0, sizeof(*rp));
	kt_xjr_open(rp, h->json);
	/* static: tracebase_ns may kt_die, and the fuzz target comes back */
	static char *tb;

	free(tb);
	tb = hdr_string(rp, "tracebase");

	h->name = hdr_string(rp, "hostName");
	h->trace_id = stem(h->input);
	if (!h->name || !*h->name) {
		free(h->name);
		h->name = kt_xstrdup(h->trace_id);
	}
	h->base = tracebase_ns(tb, h->json);
	free(tb);
	tb = NULL;
	if (!h->rpc)
		h->rpc = kt_xmalloc(NIDS * sizeof(*h->rpc));
	for (int i = 0; i < NIDS; i++)
		h->rpc[i] = (struct ends){ NO_T, NO_T, -1, -1 };
	h->first = INT64_MAX;
	h->npk = 0;
	kt_jr_close(rp);
	memset(rp, 0, sizeof(*rp));
	h->fast = scan_fast(h);
	if (h->fast)
		goto sort;
	/* not our lines: every row through the JSON reader */
	for (int i = 0; i < NIDS; i++)
		h->rpc[i] = (struct ends){ NO_T, NO_T, -1, -1 };
	h->first = INT64_MAX;
	h->ncpu = 0;
	h->npk = 0;
	kt_xjr_open(rp, h->json);
	while (kt_xjr_next(rp, &row))
		note_row(h, t10(row.start), row.cpu, row.event, row.arg, row.line);
	kt_jr_close(rp);
	memset(rp, 0, sizeof(*rp));
sort:
	if (h->npk)
		qsort(h->pk, h->npk, sizeof(*h->pk), cmp_pkt);
}

static int64_t off_at(const struct clockmap *m, int64_t t)
{
	return m->c + llround((double)(t - m->x) * m->d);
}

/* The time t of host h in the reference clock. */
static int64_t to_ref(const struct host *h, int64_t t)
{
	return t - off_at(&h->map, t);
}

static int have(const struct ends *e)
{
	return e->req != NO_T && e->resp != NO_T && e->resp >= e->req;
}

/* The entries [*i, end) of h's packets with the hash and direction of pk[*i]. */
static size_t run_end(const struct host *h, size_t i)
{
	size_t j = i + 1;

	while (j < h->npk && h->pk[j].tx == h->pk[i].tx && h->pk[j].hash == h->pk[i].hash)
		j++;
	return j;
}

/* The first of h's packets with direction tx and hash, or h->npk. */
static size_t find_pkt(const struct host *h, int tx, uint32_t hash)
{
	size_t a = 0, b = h->npk;

	while (a < b) {
		size_t c = a + (b - a) / 2;
		const struct pkt *k = &h->pk[c];

		if (k->tx < tx || (k->tx == tx && k->hash < hash))
			a = c + 1;
		else
			b = c;
	}
	return a < h->npk && h->pk[a].tx == tx && h->pk[a].hash == hash ? a : h->npk;
}

/*
 * One side of theta = q's clock - p's from each hash sent once by one
 * host and received once by the other (a retransmission or a repeated
 * payload is ambiguous: left out).  p -> q: theta <= rx - tx; q -> p:
 * theta >= tx - rx; x is the end of it in q's clock.
 */
struct side {
	int64_t x, v;
	uint32_t hash;
};

static size_t one_way(const struct host *from, const struct host *to, int to_q, struct side *out)
{
	size_t n = 0, j;

	for (size_t i = 0; i < from->npk; i = j) {
		j = run_end(from, i);
		if (!from->pk[i].tx || j != i + 1)
			continue;
		size_t k = find_pkt(to, 0, from->pk[i].hash);

		if (k == to->npk || run_end(to, k) != k + 1)
			continue;
		int64_t tx = from->pk[i].t, rx = to->pk[k].t;

		out[n++] = to_q ? (struct side){ rx, rx - tx, from->pk[i].hash } :
				  (struct side){ tx, tx - rx, from->pk[i].hash };
	}
	return n;
}

static int cmp_side(const void *x, const void *y)
{
	const struct side *a = x, *b = y;

	return (a->x > b->x) - (a->x < b->x);
}

/*
 * Each upper bound with the lower bound nearest in time, into m[n..];
 * returns the new count.
 */
static size_t pair_packets(const struct host *p, const struct host *q, struct msg *m, size_t n)
{
	struct side *up = kt_xmalloc((p->npk + 1) * sizeof(*up));
	struct side *lo = kt_xmalloc((q->npk + 1) * sizeof(*lo));
	size_t nu = one_way(p, q, 1, up), nl = one_way(q, p, 0, lo), k = 0;

	qsort(up, nu, sizeof(*up), cmp_side);
	qsort(lo, nl, sizeof(*lo), cmp_side);
	for (size_t i = 0; i < nu && nl; i++) {
		while (k + 1 < nl && llabs(lo[k + 1].x - up[i].x) <= llabs(lo[k].x - up[i].x))
			k++;
		if (llabs(lo[k].x - up[i].x) > PKT_PAIR_NS)
			continue;
		m[n++] = (struct msg){ up[i].x + (lo[k].x - up[i].x) / 2, lo[k].v, up[i].v, 0, 0,
				       up[i].hash };
	}
	free(up);
	free(lo);
	return n;
}

/* The matched messages of aligned host p and new host q. */
static size_t match(const struct host *p, const struct host *q, struct msg *m)
{
	size_t n = 0;

	for (int id = 1; id < NIDS; id++) {
		const struct ends *a = &p->rpc[id], *b = &q->rpc[id];

		if (!have(a) || !have(b))
			continue;
		struct msg *g = &m[n++];

		g->id = id;
		g->bad = 0;
		g->x = b->req + (b->resp - b->req) / 2;
		if (b->resp - b->req >= a->resp - a->req) {
			/* q the client: q sent before p received, p sent before q received */
			g->lo = b->req - a->req;
			g->hi = b->resp - a->resp;
		} else {
			g->lo = b->resp - a->resp;
			g->hi = b->req - a->req;
		}
	}
	return pair_packets(p, q, m, n);
}

static int bucket_of(int64_t x, int64_t x0, int64_t x1)
{
	if (x1 <= x0)
		return 0;
	int b = (int)((double)(x - x0) / (double)(x1 - x0) * nbuckets);

	return b < 0 ? 0 : b >= nbuckets ? nbuckets - 1 : b;
}

static int cmp_i64(const void *x, const void *y)
{
	int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;

	return (a > b) - (a < b);
}

/* How many of v[0..n) (sorted) are < k, and how many are > k. */
static size_t count_lt(const int64_t *v, size_t n, int64_t k)
{
	size_t a = 0, b = n;

	while (a < b) {
		size_t mid = (a + b) / 2;

		if (v[mid] < k)
			a = mid + 1;
		else
			b = mid;
	}
	return a;
}

static size_t count_gt(const int64_t *v, size_t n, int64_t k)
{
	size_t a = 0, b = n;

	while (a < b) {
		size_t mid = (a + b) / 2;

		if (v[mid] <= k)
			a = mid + 1;
		else
			b = mid;
	}
	return n - a;
}

/*
 * Within a bucket drift is negligible, so every sound interval holds the
 * same true offset and meets every other; one that meets fewer than half
 * of them contradicts the rest.
 */
static void mark_contradicting(struct msg *m, size_t n, int64_t x0, int64_t x1)
{
	int64_t *lo = kt_xmalloc((n + 1) * sizeof(*lo)), *hi = kt_xmalloc((n + 1) * sizeof(*hi));

	/*
	 * An empty interval (a packet pair whose bounds cross: one of them was
	 * received before it was sent) fits no offset: out, before it can
	 * count against the others.
	 */
	for (size_t i = 0; i < n; i++)
		if (m[i].lo > m[i].hi)
			m[i].bad = 1;
	for (int b = 0; b < nbuckets; b++) {
		size_t k = 0;

		for (size_t i = 0; i < n; i++)
			if (!m[i].bad && bucket_of(m[i].x, x0, x1) == b) {
				lo[k] = m[i].lo;
				hi[k] = m[i].hi;
				k++;
			}
		if (k < 3)
			continue;
		qsort(lo, k, sizeof(*lo), cmp_i64);
		qsort(hi, k, sizeof(*hi), cmp_i64);
		for (size_t i = 0; i < n; i++) {
			if (m[i].bad || bucket_of(m[i].x, x0, x1) != b)
				continue;
			/* the others that lie wholly above or wholly below it */
			size_t miss = count_gt(lo, k, m[i].hi) + count_lt(hi, k, m[i].lo);

			if (2 * (k - 1 - miss) < k - 1)
				m[i].bad = 1;
		}
	}
	free(lo);
	free(hi);
}

struct fit {
	struct clockmap pq;	/* off(t) = q's clock - p's clock at q's time t */
	double bound_us;
	size_t n, used, contradicting, shown;
	const char *quality;
};

/* Distance from the line's value v to the interval's far end. */
static double err_at(const struct msg *g, double v)
{
	double a = v - (double)g->lo, b = (double)g->hi - v;

	return a > b ? a : b;
}

static void say_bad(const struct host *p, const struct host *q, struct fit *f,
		    const struct msg *g)
{
	if (f->shown++ >= 5)
		return;
	if (g->id)
		fprintf(stderr, "%s: %s and %s: rpc %d contradicts the other messages, left out\n",
			kt_progname(), p->name, q->name, g->id);
	else
		fprintf(stderr, "%s: %s and %s: the packets of hash %08x contradict the other "
			"messages, left out\n", kt_progname(), p->name, q->name, g->hash);
}


/*
 * The bound from every message, not only the picks: the lines L(x) =
 * u + v * x that pass through every interval form a convex set (the
 * region between the convex hulls of the intervals' ends, as Trace Compass
 * draws it).  For a slope v, u lies between Lo(v) = max(lo - v x) and
 * Up(v) = min(hi - v x); Up is concave and Lo convex in v, so each
 * question below is a search over one concave (or convex) function.
 */
struct lines {
	const struct msg *m;
	size_t n;
	int64_t xr, th;		/* x and theta origins, as in fit_pair */
};

static double up_at(const struct lines *l, double v)
{
	double u = INFINITY;

	for (size_t i = 0; i < l->n; i++)
		if (!l->m[i].bad)
			u = fmin(u, (double)(l->m[i].hi - l->th) - v * (double)(l->m[i].x - l->xr));
	return u;
}

static double lo_at(const struct lines *l, double v)
{
	double u = -INFINITY;

	for (size_t i = 0; i < l->n; i++)
		if (!l->m[i].bad)
			u = fmax(u, (double)(l->m[i].lo - l->th) - v * (double)(l->m[i].x - l->xr));
	return u;
}

static double gap(const struct lines *l, double v)
{
	return up_at(l, v) - lo_at(l, v);
}

/* From a feasible slope in towards out: the last feasible one (the gap is concave). */
static double feasible_end(const struct lines *l, double in, double out)
{
	for (int k = 0; k < 100; k++) {
		double mid = (in + out) / 2;

		if (gap(l, mid) >= 0)
			in = mid;
		else
			out = mid;
	}
	return in;
}

/* sign +1: max over v in [a, b] of Up(v) + v t; -1: min of Lo(v) + v t. */
static double extreme(const struct lines *l, double a, double b, double t, int sign)
{
	for (int k = 0; k < 200; k++) {
		double p = a + (b - a) / 3, q = b - (b - a) / 3;
		double fp = sign > 0 ? up_at(l, p) + p * t : -(lo_at(l, p) + p * t);
		double fq = sign > 0 ? up_at(l, q) + q * t : -(lo_at(l, q) + q * t);

		if (fp < fq)
			a = p;
		else
			b = q;
	}
	double v = (a + b) / 2;

	return sign > 0 ? up_at(l, v) + v * t : lo_at(l, v) + v * t;
}

/*
 * The largest distance between the line a + b x and any line through every
 * interval, at the messages' first and last x (in between it is no larger:
 * the difference of two lines is linear).  -1 when no line passes through
 * every interval (the clocks are not linear in each other).
 */
static int hull_band(const struct lines *l, double x0, double x1, double band[4])
{
	double lim = 2 * MAX_PPM * 1e-6, va = -lim, vb = lim;

	/* the slope of the widest gap Up - Lo, concave */
	for (int k = 0; k < 200; k++) {
		double p = va + (vb - va) / 3, q = vb - (vb - va) / 3;

		if (gap(l, p) < gap(l, q))
			va = p;
		else
			vb = q;
	}
	double vs = (va + vb) / 2;

	if (gap(l, vs) < 0)
		return -1;
	/* the feasible slopes: where the gap is >= 0, either side of vs */
	double lo = feasible_end(l, vs, -lim), hi = feasible_end(l, vs, lim);

	band[0] = extreme(l, lo, hi, x0, -1);
	band[1] = extreme(l, lo, hi, x0, 1);
	band[2] = extreme(l, lo, hi, x1, -1);
	band[3] = extreme(l, lo, hi, x1, 1);
	return 0;
}

/* The largest distance from a + b x to the band's ends at x0 and x1. */
static double band_err(const double band[4], double a, double b, double x0, double x1)
{
	double f0 = a + b * x0, f1 = a + b * x1;

	return fmax(fmax(band[1] - f0, f0 - band[0]), fmax(band[3] - f1, f1 - band[2]));
}

/* Does a + b x pass through every interval? */
static int through_all(const struct lines *l, double a, double b)
{
	for (size_t i = 0; i < l->n; i++) {
		const struct msg *g = &l->m[i];
		double v = a + b * (double)(g->x - l->xr);

		if (!g->bad && (v < (double)(g->lo - l->th) || v > (double)(g->hi - l->th)))
			return 0;
	}
	return 1;
}

/*
 * Least slack per bucket, least squares over those, the slope kept where
 * the intervals allow it, the line moved into every interval (see the top).
 */
static void fit_pair(const struct host *p, const struct host *q, struct msg *m, size_t n,
		     struct fit *f)
{
	int64_t x0 = m[0].x, x1 = m[0].x;
	struct msg *pick[256];
	int np = 0;

	for (size_t i = 1; i < n; i++) {
		x0 = m[i].x < x0 ? m[i].x : x0;
		x1 = m[i].x > x1 ? m[i].x : x1;
	}
	mark_contradicting(m, n, x0, x1);
	for (int b = 0; b < nbuckets; b++) {
		struct msg *best = NULL;

		for (size_t i = 0; i < n; i++)
			if (!m[i].bad && bucket_of(m[i].x, x0, x1) == b &&
			    (!best || m[i].hi - m[i].lo < best->hi - best->lo))
				best = &m[i];
		if (best)
			pick[np++] = best;
	}
	if (np == 0)
		kt_die("%s and %s: every common message contradicts another", p->name, q->name);
	/* Doubles relative to the first pick: epoch nanoseconds lose bits. */
	int64_t xr = pick[0]->x, th = pick[0]->lo;
	double sx = 0, sy = 0, sxx = 0, sxy = 0;

	for (int k = 0; k < np; k++) {
		double x = (double)(pick[k]->x - xr);
		double y = ((double)(pick[k]->lo - th) + (double)(pick[k]->hi - th)) / 2;

		sx += x, sy += y, sxx += x * x, sxy += x * y;
	}
	double den = np * sxx - sx * sx;
	double b = np > 1 && den > 0 ? (np * sxy - sx * sy) / den : 0;
	/* Slopes every pair of picks allows (a line through all must obey them). */
	double bmin = -INFINITY, bmax = INFINITY;

	for (int j = 0; j < np; j++)
		for (int k = j + 1; k < np; k++) {
			double dx = (double)(pick[k]->x - pick[j]->x);

			if (dx <= 0)
				continue;
			bmin = fmax(bmin, (double)(pick[k]->lo - pick[j]->hi) / dx);
			bmax = fmin(bmax, (double)(pick[k]->hi - pick[j]->lo) / dx);
		}
	if (bmin > MAX_PPM * 1e-6 || bmax < -MAX_PPM * 1e-6)
		kt_die("%s and %s: clocks run at absurdly different rates (at least %.0f ppm apart)",
		       p->name, q->name, fabs(bmin > 0 ? bmin : bmax) * 1e6);
	if (bmin <= bmax)
		b = fmin(fmax(b, bmin), bmax);
	if (fabs(b) > MAX_PPM * 1e-6)
		kt_die("%s and %s: clocks run at absurdly different rates (%.0f ppm)",
		       p->name, q->name, fabs(b) * 1e6);
	/* 2^63 ns is 292 years: offsets of more than 100 are no clocks' */
	if (th > 3155760000000000000LL || th < -3155760000000000000LL)
		kt_die("%s and %s: clocks more than 100 years apart", p->name, q->name);
	double a = (sy - b * sx) / np;

	/* Into every interval; what still misses by more than the bound contradicts. */
	for (int round = 0; round < 3; round++) {
		double alo = -INFINITY, ahi = INFINITY;

		for (size_t i = 0; i < n; i++) {
			if (m[i].bad)
				continue;
			double bx = b * (double)(m[i].x - xr);

			alo = fmax(alo, (double)(m[i].lo - th) - bx);
			ahi = fmin(ahi, (double)(m[i].hi - th) - bx);
		}
		if (alo <= ahi) {
			a = fmin(fmax(a, alo), ahi);
			break;
		}
		double e0 = err_at(pick[0], (double)(pick[0]->x - xr) * b + a + (double)th);
		double e1 = err_at(pick[np - 1], (double)(pick[np - 1]->x - xr) * b + a + (double)th);
		double bound = fmax(e0, e1);

		for (size_t i = 0; i < n; i++) {
			double v = a + b * (double)(m[i].x - xr) + (double)th;

			if (!m[i].bad && (v < (double)m[i].lo - bound || v > (double)m[i].hi + bound))
				m[i].bad = 1;
		}
	}
	double e0 = err_at(pick[0], a + (double)th);
	double e1 = err_at(pick[np - 1], a + b * (double)(pick[np - 1]->x - xr) + (double)th);
	const struct lines l = { m, n, xr, th };
	double band[4], X0 = (double)(x0 - xr), X1 = (double)(x1 - xr), bound = fmax(e0, e1);

	/*
	 * The picks' bound holds whatever; every message's is tighter.  And
	 * where the line through the middle of the band at both ends passes
	 * through every interval, it is the one with the least bound.
	 */
	if (hull_band(&l, X0, X1, band) == 0) {
		bound = fmin(bound, band_err(band, a, b, X0, X1));
		double c0 = (band[0] + band[1]) / 2, c1 = (band[2] + band[3]) / 2;
		double cb = X1 > X0 ? (c1 - c0) / (X1 - X0) : 0, ca = c0 - cb * X0;
		double cerr = band_err(band, ca, cb, X0, X1);

		if (cerr < bound && fabs(cb) <= MAX_PPM * 1e-6 && through_all(&l, ca, cb))
			a = ca, b = cb, bound = cerr;
	}
	f->bound_us = bound / 1000;
	f->n = n;
	f->used = (size_t)np;
	f->contradicting = 0;
	f->shown = 0;
	for (size_t i = 0; i < n; i++)
		if (m[i].bad) {
			f->contradicting++;
			say_bad(p, q, f, &m[i]);
		}
	if (f->shown > 5)
		fprintf(stderr, "%s: %s and %s: %zu more contradicting messages\n", kt_progname(),
			p->name, q->name, f->shown - 5);
	/* Said at the first message, whichever bucket's pick came first. */
	f->pq = (struct clockmap){ th + llround(a + b * (double)(x0 - xr)), x0, b };
	f->quality = np == nbuckets && f->bound_us <= 100 ? "accurate" :
		     np >= 2 ? "approximate" : "incomplete";
}

/* q's map onto the reference: through p's (off_q(t) = off_pq(t) + off_p(t - off_pq(t))). */
static void chain(struct host *q, const struct host *p, const struct fit *f)
{
	int64_t x = f->pq.x, o = off_at(&f->pq, x);

	q->map = (struct clockmap){ o + off_at(&p->map, x - o), x,
				    f->pq.d + p->map.d * (1 - f->pq.d) };
	q->bound_us = p->bound_us + f->bound_us;
	q->aligned = 1;
}

static void align_all(void)
{
	static struct msg *m;	/* kept: kt_die may leave this function (fuzz_align) */
	static size_t cap;
	size_t need = NIDS;

	for (int i = 0; i < nhosts; i++)
		need = NIDS + hosts[i].npk > need ? NIDS + hosts[i].npk : need;
	if (need > cap) {
		m = kt_xrealloc(m, need * sizeof(*m));
		cap = need;
	}
	for (int i = 0; i < nhosts; i++)
		hosts[i].aligned = 0;
	hosts[0].aligned = 1;
	hosts[0].map = (struct clockmap){ 0, 0, 0 };
	hosts[0].bound_us = 0;
	for (int done = 1; done < nhosts; done++) {
		int bp = -1, bq = -1;
		size_t best = 0;

		for (int q = 0; q < nhosts; q++)
			for (int p = 0; p < nhosts && !hosts[q].aligned; p++) {
				if (!hosts[p].aligned)
					continue;
				size_t k = match(&hosts[p], &hosts[q], m);

				if (k > best)
					best = k, bp = p, bq = q;
			}
		if (bq < 0) {
			for (int q = 0; q < nhosts; q++)
				if (!hosts[q].aligned)
					kt_die("%s (%s): no RPC in common with %s%s", hosts[q].name,
					       hosts[q].input, hosts[0].name,
					       done > 1 ? " or the hosts aligned to it" : "");
		}
		struct host *p = &hosts[bp], *q = &hosts[bq];
		struct fit f;

		match(p, q, m);
		fit_pair(p, q, m, best, &f);
		chain(q, p, &f);
		double off = (double)off_at(&f.pq, f.pq.x) / 1000;
		size_t npairs = 0;
		char pairs[64] = "";

		for (size_t i = 0; i < best; i++)
			npairs += m[i].id == 0;
		if (npairs)
			snprintf(pairs, sizeof(pairs), " (%zu packet pairs)", npairs);
		printf("%s vs %s: offset %+.3f us, drift %+.3f ppm, bound +-%.1f us, "
		       "%zu messages%s, %zu used, %zu contradicting: %s\n",
		       q->name, p->name, off, f.pq.d * 1e6, f.bound_us, f.n, pairs, f.used,
		       f.contradicting, f.quality);
	}
}

/* ------------------------------------------------------------ writing */

struct cursor {
	struct kt_jreader r;	/* the header; the rows too unless fast */
	struct fast_in in;
	struct kt_jrow row;	/* slow: the row, transformed */
	int64_t start, dur, cpu;	/* either way: transformed, 10 ns units */
	const char *rest;	/* fast: the rest of the line */
	int live;
	struct host *h;
	FILE *own;		/* the host's own aligned JSON (--tables) */
};

static int64_t out_base;

/* A host's start and duration (10 ns units) in the reference clock. */
static void shift(const struct host *h, int64_t *start, int64_t *dur)
{
	int64_t s = h->base + *start * 10, e = s + *dur * 10;
	int64_t s2 = to_ref(h, s) - out_base, e2 = to_ref(h, e) - out_base;
	/* Round to the JSON's 10 ns, half away from zero as llround does. */
	int64_t s10 = llround((double)s2 / 10), e10 = llround((double)e2 / 10);

	*start = s10;
	*dur = e10 - s10;
}

/*
 * v (10 ns units) as printf's "%W.8f" of v / 1e8 would print it, ending
 * at end (the buffer before it has room); returns the first byte.
 * fprintf was a quarter of the time.
 */
static char *fixed8_put(char *end, int64_t v, int width)
{
	uint64_t a = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
	char *p = end;

	for (int i = 0; i < 8; i++, a /= 10)
		*--p = (char)('0' + a % 10);
	*--p = '.';
	do
		*--p = (char)('0' + a % 10);
	while ((a /= 10) > 0);
	if (v < 0)
		*--p = '-';
	while (end - p < width)
		*--p = ' ';
	return p;
}

/* "[%12.8f, %10.8f, %d," of json.c, then the rest of the line. */
static void fast_write(FILE *f, int64_t start, int64_t dur, int64_t cpu, const char *rest)
{
	char buf[96], *e = buf + sizeof(buf), *p;
	uint64_t c = cpu < 0 ? 0 - (uint64_t)cpu : (uint64_t)cpu;

	/* built backwards: "," CPU ", " duration ", " start "[" */
	*--e = ',';
	do
		*--e = (char)('0' + c % 10);
	while ((c /= 10) > 0);
	if (cpu < 0)
		*--e = '-';
	*--e = ' ', *--e = ',';
	e = fixed8_put(e, dur, 10);
	*--e = ' ', *--e = ',';
	p = fixed8_put(e, start, 12);
	*--p = '[';
	fwrite_unlocked(p, (size_t)(buf + sizeof(buf) - p), 1, f);
	size_t n = strlen(rest);

	if (kt_utf8_ok(rest, n)) {
		fwrite_unlocked(rest, n, 1, f);
		return;
	}
	/* A name's bytes that are not UTF-8 as U+FFFD, as the JSON writer
	 * does: the merged JSON stays JSON. */
	char *fixed = kt_xmalloc(3 * n + 1);

	n = kt_utf8_fix(fixed, 3 * n + 1, rest, n);
	fwrite_unlocked(fixed, n, 1, f);
	free(fixed);
}

/* kt_row_cmp's order: start, duration, CPU, then pid, event, rpc, arg, ... */
static int cursor_cmp(const struct cursor *a, const struct cursor *b)
{
	int64_t x[3] = { a->start, a->dur, a->cpu }, y[3] = { b->start, b->dur, b->cpu };

	for (int i = 0; i < 3; i++)
		if (x[i] != y[i])
			return x[i] < y[i] ? -1 : 1;
	/* equal CPUs of two hosts are -1 (no CPU) rows: rare, parsed here */
	int64_t u[4] = { 0 }, v[4] = { 0 };

	if (a->rest)
		fast_fields(a->rest, u);
	else
		u[0] = a->row.pid, u[1] = a->row.rpc, u[2] = a->row.event, u[3] = a->row.arg;
	if (b->rest)
		fast_fields(b->rest, v);
	else
		v[0] = b->row.pid, v[1] = b->row.rpc, v[2] = b->row.event, v[3] = b->row.arg;
	static const int order[4] = { 0, 2, 1, 3 };

	for (int i = 0; i < 4; i++)
		if (u[order[i]] != v[order[i]])
			return u[order[i]] < v[order[i]] ? -1 : 1;
	return a < b ? -1 : 1;
}

static void advance(struct cursor *c)
{
	const struct host *h = c->h;

	if (h->fast) {
		struct fast_row w;

		c->in.len = getline(&c->in.line, &c->in.cap, c->in.f);
		/* pass 1 saw every line: a change since is a row no longer there */
		c->live = c->in.len > 0 && fast_row(c->in.line, (size_t)c->in.len, &w) == 1;
		if (!c->live)
			return;
		c->start = w.start, c->dur = w.dur, c->cpu = w.cpu, c->rest = w.rest;
		/* pass 1 checked these: a change since is refused */
		if (w.start > 100000000000000000LL || w.start < -100000000000000000LL ||
		    w.dur > 100000000000000000LL || w.dur < -100000000000000000LL)
			kt_die("%s: a row's time out of range (the file changed while read)",
			       h->json);
		shift(h, &c->start, &c->dur);
		if (c->own)
			fast_write(c->own, c->start, c->dur, c->cpu, c->rest);
	} else {
		c->live = kt_xjr_next(&c->r, &c->row);
		if (!c->live)
			return;
		c->start = t10(c->row.start), c->dur = t10(c->row.dur), c->cpu = c->row.cpu;
		shift(h, &c->start, &c->dur);
		c->row.start = (double)c->start / 1e8;
		c->row.dur = (double)c->dur / 1e8;
		if (c->own)
			kt_jw_row(c->own, &c->row);
	}
	if (c->cpu < -1 || c->cpu >= MAX_CPU)
		kt_die("%s: cpu %" PRId64 " is out of range (-1, 0..%d)", h->json, c->cpu,
		       MAX_CPU - 1);
	if (c->cpu >= 0)
		c->cpu += h->cpu0;
	if (!h->fast)
		c->row.cpu = c->cpu;
}

static void put_row(FILE *f, const struct cursor *c)
{
	if (c->h->fast)
		fast_write(f, c->start, c->dur, c->cpu, c->rest);
	else
		kt_jw_row(f, &c->row);
}

static void base_string(char *buf, size_t len)
{
	time_t t = (time_t)(out_base / 1000000000);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, len, "%Y-%m-%d_%H:%M:00", &tm);
}

/* The reader's header with some keys replaced or added (values as JSON text). */
static void header(FILE *f, const struct kt_jreader *r, const char *const *kv)
{
	fputs("  {\n", f);
	for (size_t i = 0; i < r->nhdr; i++) {
		int skip = 0;

		for (const char *const *p = kv; *p; p += 2)
			skip |= strcmp(r->hdr[i].key, *p) == 0;
		if (!skip)
			fprintf(f, " %s : %s,\n", r->hdr[i].key_raw, r->hdr[i].value_raw);
	}
	for (const char *const *p = kv; *p; p += 2)
		fprintf(f, " \"%s\" : %s,\n", p[0], p[1]);
	fputs("\"events\" : [\n", f);
}

static char *json_text(json_t *v)
{
	char *s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);

	if (!s)
		kt_die("out of memory");
	json_decref(v);
	return s;
}

static char *machines_json(void)
{
	json_t *a = json_array();

	for (int i = 0; i < nhosts; i++) {
		const struct host *h = &hosts[i];

		json_array_append_new(a, json_pack("{s:s, s:s, s:i, s:i, s:f, s:f, s:f}",
			"name", h->name, "trace_id", h->trace_id, "cpu0", h->cpu0, "cpus", h->ncpu,
			"offset_us", (double)off_at(&h->map, h->map.x) / 1000,
			"drift_ppm", h->map.d * 1e6, "bound_us", h->bound_us));
	}
	return json_text(a);
}

/* Both directions of every RPC two hosts share, in the merged clock. */
static char *messages_json(size_t *violations)
{
	json_t *a = json_array();
	size_t n = 0;

	*violations = 0;
	for (int i = 0; i < nhosts; i++)
		for (int j = i + 1; j < nhosts; j++)
			for (int id = 1; id < NIDS; id++) {
				const struct host *c = &hosts[i], *s = &hosts[j];
				const struct ends *ce = &c->rpc[id], *se = &s->rpc[id];

				if (!have(ce) || !have(se))
					continue;
				if (se->resp - se->req > ce->resp - ce->req) {
					const struct host *t = c;
					const struct ends *te = ce;

					c = s, s = t, ce = se, se = te;
				}
				int64_t t1 = to_ref(c, ce->req), t2 = to_ref(s, se->req);
				int64_t t3 = to_ref(s, se->resp), t4 = to_ref(c, ce->resp);

				*violations += (t2 < t1) + (t4 < t3);
				if (n++ >= 100000)
					continue;
				json_array_append_new(a, json_pack("[I,i,I,i,i]",
					(json_int_t)((t1 - out_base) / 10), c->cpu0 + ce->req_cpu,
					(json_int_t)((t2 - out_base) / 10), s->cpu0 + se->req_cpu, id));
				json_array_append_new(a, json_pack("[I,i,I,i,i]",
					(json_int_t)((t3 - out_base) / 10), s->cpu0 + se->resp_cpu,
					(json_int_t)((t4 - out_base) / 10), c->cpu0 + ce->resp_cpu, id));
			}
	return json_text(a);
}

static void tables(const char *outbase)
{
	char *dir, *tmp;

	if (asprintf(&dir, "%s.tables", outbase) < 0 || asprintf(&tmp, "%s.tables.tmp", outbase) < 0)
		kt_die("out of memory");
	struct stat st;

	if (stat(dir, &st) == 0)
		kt_die("%s exists; remove it first", dir);
	if (mkdir(tmp, 0777) < 0)
		kt_die("cannot create %s: %s", tmp, strerror(errno));
	tables_tmp = tmp;
	for (int i = 0; i < nhosts; i++) {
		char *m, *store, *json;

		if (asprintf(&m, "%s/machine=%s", tmp, hosts[i].name) < 0 ||
		    asprintf(&store, "%s/trace=%s", m, hosts[i].trace_id) < 0 ||
		    asprintf(&json, "%s/h%d.json", tmpdir, i) < 0)
			kt_die("out of memory");
		if (mkdir(m, 0777) < 0)
			kt_die("cannot create %s: %s", m, strerror(errno));
		char *args[] = { "kutrace_sql", "build", json, "-o", store, "--machine",
				 hosts[i].name, "--trace-id", hosts[i].trace_id, NULL };

		run("kutrace_sql", args, hosts[i].input);
		free(m), free(store), free(json);
	}
	if (rename(tmp, dir) < 0)
		kt_die("cannot rename %s: %s", tmp, strerror(errno));
	tables_tmp = NULL;
	free(dir), free(tmp);
}

static void write_merged(const char *outbase, const char *argv0, int want_tables, long max_spans)
{
	struct cursor *c = kt_xcalloc((size_t)nhosts, sizeof(*c));
	char tb[32], *path, *html, *names = NULL;
	size_t viol;
	long nrows = 0;

	/* A minute base at or before every host's first time. */
	out_base = hosts[0].base;
	for (int i = 0; i < nhosts; i++)
		while (hosts[i].first != INT64_MAX && to_ref(&hosts[i], hosts[i].first) < out_base)
			out_base -= 60 * 1000000000LL;
	base_string(tb, sizeof(tb));
	for (int i = 0, cpu = 0; i < nhosts; i++) {
		hosts[i].cpu0 = cpu;
		cpu += hosts[i].ncpu;
		char *n2;

		if (asprintf(&n2, "%s%s%s", names ? names : "", names ? "+" : "", hosts[i].name) < 0)
			kt_die("out of memory");
		free(names);
		names = n2;
	}
	char *mach = machines_json(), *msgs = messages_json(&viol);
	json_t *jtb = json_string(tb), *jn = json_string(names);
	char *tbq = json_text(jtb), *nq = json_text(jn);
	const char *kv[] = { "tracebase", tbq, "title", nq, "hostName", nq,
			     "machines", mach, "messages", msgs, NULL };

	if (asprintf(&path, "%s.json", outbase) < 0 || asprintf(&html, "%s.html", outbase) < 0)
		kt_die("out of memory");
	FILE *out = kt_out_open(path, NULL);

	for (int i = 0; i < nhosts; i++) {
		c[i].h = &hosts[i];
		kt_xjr_open(&c[i].r, hosts[i].json);
		if (hosts[i].fast && fast_open(&c[i].in, hosts[i].json) < 0)
			kt_die("%s: %s", hosts[i].json, strerror(errno ? errno : EIO));
		if (want_tables) {
			char *own;
			json_t *jt = json_string(tb);
			char *q = json_text(jt);
			const char *kv2[] = { "tracebase", q, NULL };

			if (asprintf(&own, "%s/h%d.json", tmpdir, i) < 0)
				kt_die("out of memory");
			c[i].own = fopen(own, "w");
			if (!c[i].own)
				kt_die("cannot create %s: %s", own, strerror(errno));
			header(c[i].own, &c[i].r, kv2);
			free(own);
			free(q);
		}
		advance(&c[i]);
	}
	header(out, &c[0].r, kv);
	for (;;) {
		struct cursor *best = NULL;

		for (int i = 0; i < nhosts; i++)
			if (c[i].live && (!best || cursor_cmp(&c[i], best) < 0))
				best = &c[i];
		if (!best)
			break;
		put_row(out, best);
		nrows++;
		advance(best);
	}
	kt_jw_end(out, NULL);
	for (int i = 0; i < nhosts; i++) {
		fast_close(&c[i].in);
		if (c[i].own) {
			kt_jw_end(c[i].own, NULL);
			if (fclose(c[i].own) != 0)
				kt_die("writing host %s's JSON: %s", hosts[i].name, strerror(errno));
		}
		kt_jr_close(&c[i].r);
	}
	if (fflush(out) != 0)
		kt_die("%s: %s", path, strerror(errno));
	char *tpl = max_spans && nrows > max_spans ? NULL : kt_html_find_template(argv0);
	FILE *page = NULL;

	if (max_spans && nrows > max_spans) {
		fprintf(stderr, "%s: no page: %ld spans, more than %ld (--html-max-spans): "
			"a browser page cannot hold them well\n", kt_progname(), nrows, max_spans);
	} else if (tpl) {
		char err[512];

		page = kt_out_open(html, NULL);
		rewind(out);
		if (kt_html_write(page, tpl, out, err, sizeof(err)) != 0)
			kt_die("%s: %s", html, err);
	} else {
		fprintf(stderr, "%s: viewer.html not found, no page written\n", kt_progname());
	}
	if (want_tables)
		tables(outbase);
	kt_out_commit(out);
	if (page)
		kt_out_commit(page);
	printf("causality: %zu of the messages' receives before their send\n", viol);
	printf("wrote %s%s%s%s\n", path, page ? " " : "", page ? html : "",
	       want_tables ? " and the tables" : "");
	free(tpl), free(path), free(html), free(mach), free(msgs), free(tbq), free(nq);
	free(names), free(c);
}

int main(int argc, char **argv)
{
	const char *outp = NULL;
	int want_tables = 0;
	unsigned long long max_ull = ULLONG_MAX;
	long buckets = 8, max_spans = 20000000;
	static const char *pos[MAX_HOSTS + 1];
	const struct kt_opt opts[] = {
		{ "o", KT_OPT_STR, &outp, 0 },
		{ "tables", KT_OPT_FLAG, &want_tables, 1 },
		{ "buckets", KT_OPT_POSLONG, &buckets, 0 },
		{ "html-max-spans", KT_OPT_ULL, &max_ull, 0 },
		{ NULL, 0, NULL, 0 },
	};
	const struct kt_argspec spec = { opts, usage, 2, MAX_HOSTS, 0 };

	kt_set_progname(argv[0]);
	nhosts = kt_args(&spec, argc, argv, pos);
	if (max_ull != ULLONG_MAX)
		max_spans = max_ull > LONG_MAX ? LONG_MAX : (long)max_ull;
	if (!outp) {
		usage(stderr);	/* a wrong command line: 2, as kt_args says */
		return 2;
	}
	if (buckets > 256)
		kt_die("--buckets: at most 256");
	nbuckets = (int)buckets;
	char *outbase = kt_xstrdup(outp);

	if (ends_with(outbase, ".json"))
		outbase[strlen(outbase) - 5] = '\0';
	if (!mkdtemp(tmpdir))
		kt_die("cannot create %s: %s", tmpdir, strerror(errno));
	have_tmpdir = 1;
	atexit(cleanup_tmp);
	for (int i = 0; i < nhosts; i++) {
		hosts[i].input = pos[i];
		to_json(&hosts[i], i);
		scan(&hosts[i]);
		for (int j = 0; j < i; j++)
			if (strcmp(hosts[i].name, hosts[j].name) == 0)
				kt_die("%s and %s are both host %s", hosts[j].input, hosts[i].input,
				       hosts[i].name);
	}
	align_all();
	write_merged(outbase, argv[0], want_tables, max_spans);
	for (int i = 0; i < nhosts; i++) {
		free(hosts[i].json), free(hosts[i].name), free(hosts[i].trace_id);
		free(hosts[i].rpc);
	}
	free(outbase);
	return 0;
}

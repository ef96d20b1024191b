// SPDX-License-Identifier: BSD-3-Clause
/*
 * json.c - the KUtrace JSON (docs/spec/FORMATS.md 5.10): header, rows, footer, and
 * the row order (the ordered writer is jsonout.c).
 *
 * The one place a row line is formatted and escaped, for every writer:
 * kutrace_postproc's rows (kt_row, times in 10 ns units), the JSON tools'
 * (kt_jw_row: kt_jrow, times as doubles), the page codec's canonical
 * rows (int64 columns); and the one place our own row line is parsed back
 * (kt_json_parse_row).  The times print as printf's "%12.8f"/"%10.8f"
 * would, with integers only.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rows.h"

static char *esc_name(char *p, const char *s);

void kt_json_escape(FILE *f, const char *s)
{
	char buf[1024];
	size_t n = strlen(s);
	char *b = 6 * n + 1 <= sizeof(buf) ? buf : kt_xmalloc(6 * n + 1);

	fwrite(b, 1, (size_t)(esc_name(b, s) - b), f);
	if (b != buf)
		free(b);
}

/* Header values: printable ASCII kept, everything else '?' (as original). */
static void header_string(FILE *f, const char *key, const char *v)
{
	fprintf(f, " \"%s\" : \"", key);
	kt_json_escape(f, v);
	fputs("\",\n", f);
}

void kt_json_header(FILE *f, const struct kt_json_meta *m)
{
	fputs("  {\n", f);
	fputs(" \"Comment\" : \"V2 with IPC field\",\n", f);
	fputs(" \"axisLabelX\" : \"Time (sec)\",\n", f);
	fputs(" \"axisLabelY\" : \"CPU Number\",\n", f);
	if (m->model)
		header_string(f, "cpuModelName", m->model);
	fprintf(f, " \"flags\" : %u,\n", m->flags);
	if (m->host)
		header_string(f, "hostName", m->host);
	if (m->kernel)
		header_string(f, "kernelVersion", m->kernel);
	fprintf(f, " \"mbit_sec\" : %d,\n", m->mbit);
	fprintf(f, " \"randomid\" : %u,\n", m->randomid & 0x7FFFFFFF);
	fputs(" \"shortMulX\" : 1,\n", f);
	fputs(" \"shortUnitsX\" : \"s\",\n", f);
	fputs(" \"thousandsX\" : 1000,\n", f);
	header_string(f, "title", m->title ? m->title : "");
	header_string(f, "tracebase", m->tracebase ? m->tracebase : "");
	fprintf(f, " \"version\" : %d,\n", m->version);
	fputs("\"events\" : [\n", f);
}

static const char digits2[201] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

/* "0000".."9999": the 8 decimals of a time are two lookups. */
static char digits4[10000][4];

__attribute__((constructor)) static void digits4_init(void)
{
	for (int i = 0; i < 10000; i++) {
		digits4[i][0] = (char)('0' + i / 1000);
		digits4[i][1] = (char)('0' + i / 100 % 10);
		digits4[i][2] = (char)('0' + i / 10 % 10);
		digits4[i][3] = (char)('0' + i % 10);
	}
}

/*
 * A time column: sign and magnitude in 10 ns units, printed exactly as
 * "%W.8f" prints that many seconds (sign and magnitude, so that the whole
 * 64-bit range and a -0 that a tool's arithmetic gives print as printf
 * does), with integers only: this and put_int are a quarter of
 * kutrace_postproc's time with printf.
 */
static char *put_fixed8(char *p, int neg, uint64_t mag, int width)
{
	if (!neg && mag < 100000000000ULL) {
		/* Under 1000 s: no division loop, no temporary. */
		uint32_t ip = (uint32_t)(mag / 100000000);
		uint32_t fp = (uint32_t)(mag - (uint64_t)ip * 100000000);
		int il = ip >= 100 ? 3 : ip >= 10 ? 2 : 1;

		for (int i = il + 9; i < width; i++)
			*p++ = ' ';
		memcpy(p, digits4[ip] + 4 - il, (size_t)il);
		p += il;
		*p++ = '.';
		memcpy(p, digits4[fp / 10000], 4);
		memcpy(p + 4, digits4[fp % 10000], 4);
		return p + 8;
	}
	char tmp[32];
	uint64_t ip = mag / 100000000;
	uint32_t fp = (uint32_t)(mag % 100000000);
	int n = 32 - 9;

	tmp[n] = '.';
	memcpy(tmp + n + 1, digits4[fp / 10000], 4);
	memcpy(tmp + n + 5, digits4[fp % 10000], 4);
	do {
		tmp[--n] = (char)('0' + ip % 10);
		ip /= 10;
	} while (ip);
	if (neg)
		tmp[--n] = '-';
	for (int i = 32 - n; i < width; i++)
		*p++ = ' ';
	memcpy(p, tmp + n, (size_t)(32 - n));
	return p + (32 - n);
}

static char *put_int(char *p, int64_t v)
{
	char tmp[24];
	int n = 24;
	uint64_t u = v < 0 ? -(uint64_t)v : (uint64_t)v;

	if (v < 0)
		*p++ = '-';
	if (u < 10) {
		*p++ = (char)('0' + u);
		return p;
	}
	if (u < 10000) {
		int n = u >= 1000 ? 4 : u >= 100 ? 3 : 2;

		memcpy(p, digits4[u] + 4 - n, (size_t)n);
		return p + n;
	}
	while (u >= 100) {
		uint32_t d = (uint32_t)(u % 100);

		u /= 100;
		tmp[--n] = digits2[2 * d + 1];
		tmp[--n] = digits2[2 * d];
	}
	if (u >= 10) {
		tmp[--n] = digits2[2 * u + 1];
		tmp[--n] = digits2[2 * u];
	} else {
		tmp[--n] = (char)('0' + u);
	}
	memcpy(p, tmp + n, (size_t)(24 - n));
	return p + (24 - n);
}

/*
 * Seconds held as a double (the JSON tools') to the sign and magnitude in
 * 10 ns units that printf("%.8f") shows.  The double is m * 2^-s exactly,
 * so m * 1e8 (below 2^80) is divided by 2^s in 128-bit integers and
 * rounded half to even, as glibc rounds an exact tie (x = k / 512 is
 * one).  0 if the result needs more than 64 bits (over 5,800 years) or x
 * is not finite.
 */
static int sec_fixed8(double x, int *neg, uint64_t *mag)
{
	int e;

	if (!isfinite(x))
		return 0;
	*neg = signbit(x) != 0;
	*mag = 0;
	if (x == 0)
		return 1;
	uint64_t m = (uint64_t)ldexp(frexp(fabs(x), &e), 53);
	int s = 53 - e;
	unsigned __int128 p = (unsigned __int128)m * 100000000u;

	if (s <= 0) {
		if (-s >= 48)
			return 0;
		p <<= -s;
	} else if (s >= 100) {
		return 1;	/* below 2^-20 units: rounds to 0 */
	} else {
		unsigned __int128 q = p >> s, r = p - (q << s);
		unsigned __int128 half = (unsigned __int128)1 << (s - 1);

		p = q + (r > half || (r == half && (q & 1)));
	}
	if (p >> 64)
		return 0;
	*mag = (uint64_t)p;
	return 1;
}

/*
 * The one JSON string escaper (every tool's names, the page codec's
 * canonical rows): ", \ and controls escaped, \n and \t by letter; '<' as
 * \u003c so that "</script>" is harmless in a page, DEL as \u007f; valid
 * UTF-8 kept; a byte that is not part of valid UTF-8 becomes U+FFFD
 * (docs/FORMAT.md): names come from any bytes.  At most 6 bytes out per
 * byte in; returns the bytes written.
 */
size_t kt_json_escape_mem(char *buf, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *q = (const unsigned char *)s;
	char *p = buf;

	for (size_t i = 0; i < n; i++) {
		unsigned char ch = q[i];

		if (ch >= 0x80) {
			unsigned char u[4] = { 0 };
			size_t k = n - i < 4 ? n - i : 4;

			/* bounded copy: a sequence cut at n is invalid */
			memcpy(u, q + i, k);
			k = kt_utf8_seq(u);
			if (k) {
				memcpy(p, q + i, k);
				p += k;
				i += k - 1;
			} else {
				memcpy(p, "\xEF\xBF\xBD", 3);
				p += 3;
			}
			continue;
		}
		if (ch >= 0x20 && ch != '"' && ch != '\\' && ch != '<' && ch != 0x7F) {
			*p++ = (char)ch;
			continue;
		}
		*p++ = '\\';
		switch (ch) {
		case '"':
		case '\\':
			*p++ = (char)ch;
			break;
		case '\n':
			*p++ = 'n';
			break;
		case '\t':
			*p++ = 't';
			break;
		default:
			*p++ = 'u';
			*p++ = '0';
			*p++ = '0';
			*p++ = hex[ch >> 4];
			*p++ = hex[ch & 15];
		}
	}
	return (size_t)(p - buf);
}

static char *esc_name(char *p, const char *s)
{
	return p + kt_json_escape_mem(p, s, strlen(s));
}

size_t kt_json_escape_buf(char *buf, const char *s)
{
	return (size_t)(esc_name(buf, s) - buf);
}

/* ---- one row line -------------------------------------------------------- */

/* ", cpu, pid, rpc, event, arg, retval, ipc, \"" */
static char *put_cols(char *p, const int64_t v[7])
{
	for (int i = 0; i < 7; i++) {
		*p++ = ',';
		*p++ = ' ';
		p = put_int(p, v[i]);
	}
	*p++ = ',';
	*p++ = ' ';
	*p++ = '"';
	return p;
}

static inline uint64_t mag64(int64_t v)
{
	return v < 0 ? -(uint64_t)v : (uint64_t)v;
}

size_t kt_json_head(char *buf, const int64_t t[2], const int64_t v[7])
{
	char *p = buf;

	*p++ = '[';
	p = put_fixed8(p, t[0] < 0, mag64(t[0]), 12);
	*p++ = ',';
	*p++ = ' ';
	p = put_fixed8(p, t[1] < 0, mag64(t[1]), 10);
	return (size_t)(put_cols(p, v) - buf);
}

size_t kt_json_format_head(char *buf, const struct kt_row *r)
{
	return kt_json_head(buf, (const int64_t[2]){ r->start, r->dur },
			    (const int64_t[7]){ r->cpu, r->pid, r->rpc, r->event,
						r->arg, r->retval, r->ipc });
}

size_t kt_json_end(char *buf, const char *name, size_t n)
{
	size_t k = kt_json_escape_mem(buf, name, n);

	buf[k++] = '"';
	buf[k++] = ']';
	return k;
}

size_t kt_json_format_row(char *buf, size_t cap, const struct kt_row *r)
{
	size_t nlen = strlen(r->name);

	if (cap < KT_JSON_HEAD_MAX + 6 * nlen + 4)
		return 0;
	size_t k = kt_json_format_head(buf, r);

	k += kt_json_end(buf + k, r->name, nlen);
	buf[k++] = ',';
	buf[k++] = '\n';
	return k;
}

/*
 * A time in seconds: sec_fixed8's exact digits; a time it cannot hold
 * (over 5,800 years, not finite: no input has one, the reader bounds each
 * time to 1e9 s, but a tool's sum could) takes printf's own.
 */
static char *put_sec(char *p, double x, int width)
{
	uint64_t mag;
	int neg;

	if (sec_fixed8(x, &neg, &mag))
		return put_fixed8(p, neg, mag, width);
	return p + sprintf(p, "%*.8f", width, x);
}

void kt_json_put_row_sec(FILE *f, double start, double dur, const int64_t v[7],
			 const char *name)
{
	/* A double's "%.8f" is at most 309 + 10 bytes. */
	char buf[1024];
	size_t n = strlen(name);
	char *b = 800 + 6 * n + 4 <= sizeof(buf) ? buf : kt_xmalloc(800 + 6 * n + 4);
	char *p = b;

	*p++ = '[';
	p = put_sec(p, start, 12);
	*p++ = ',';
	*p++ = ' ';
	p = put_sec(p, dur, 10);
	p = put_cols(p, v);
	p += kt_json_end(p, name, n);
	*p++ = ',';
	*p++ = '\n';
	fwrite(b, 1, (size_t)(p - b), f);
	if (b != buf)
		free(b);
}

/*
 * Our own row line back into a row: only what kt_json_format_row writes
 * (kutrace_postproc's work file), so it checks the layout but trusts the
 * rest.  JSON from outside goes through jsonrows.c (the tools) or the
 * page code's strict scanner (jscan.c) instead, which accept any JSON
 * spelling and report every error by line.
 */
static int get_fixed8(const char **pp, int64_t *out)
{
	const char *p = *pp;
	int neg = 0, nd = 0;
	uint64_t v = 0;

	while (*p == ' ')
		p++;
	if (*p == '-')
		neg = 1, p++;
	for (; *p >= '0' && *p <= '9'; nd++)
		v = v * 10 + (uint64_t)(*p++ - '0');
	if (!nd || *p++ != '.')
		return -1;
	for (int i = 0; i < 8; i++, p++) {
		if (*p < '0' || *p > '9')
			return -1;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	*pp = p;
	*out = (int64_t)(neg ? -v : v);
	return 0;
}

static int get_int(const char **pp, int64_t *out)
{
	const char *p = *pp;
	int neg = 0, nd = 0;
	uint64_t v = 0;

	if (*p == '-')
		neg = 1, p++;
	for (; *p >= '0' && *p <= '9'; nd++)
		v = v * 10 + (uint64_t)(*p++ - '0');
	*pp = p;
	*out = (int64_t)(neg ? -v : v);
	return nd ? 0 : -1;
}

static int hex4(const char *p)
{
	int v = 0;

	for (int i = 0; i < 4; i++) {
		int c = p[i];
		int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;

		if (d < 0)
			return -1;
		v = v * 16 + d;
	}
	return v;
}

int kt_json_parse_row(const char *line, struct kt_row *r, struct kt_buf *name)
{
	const char *p = line;
	int64_t t[2], v[7];

	if (*p++ != '[' || get_fixed8(&p, &t[0]) || *p++ != ',' ||
	    get_fixed8(&p, &t[1]))
		return -1;
	for (int i = 0; i < 7; i++)
		if (*p++ != ',' || *p++ != ' ' || get_int(&p, &v[i]))
			return -1;
	if (*p++ != ',' || *p++ != ' ' || *p++ != '"')
		return -1;
	name->len = 0;
	kt_buf_add(name, "", 0);
	for (;;) {
		const char *q = p;

		while (*q && *q != '"' && *q != '\\')
			q++;
		kt_buf_add(name, p, (size_t)(q - p));
		p = q;
		if (*p == '"')
			break;
		if (*p++ != '\\')
			return -1;
		char ch = *p++;
		int u;

		switch (ch) {
		case '"':
		case '\\':
			break;
		case 'n':
			ch = '\n';
			break;
		case 't':
			ch = '\t';
			break;
		case 'u':
			/* the escaper writes \u only for bytes below 0x80 */
			u = hex4(p);
			if (u < 1 || u >= 0x80)
				return -1;
			ch = (char)u;
			p += 4;
			break;
		default:
			return -1;
		}
		kt_buf_add(name, &ch, 1);
	}
	if (p[1] != ']')
		return -1;
	r->start = t[0];
	r->dur = t[1];
	r->cpu = (int)v[0];
	r->pid = (int)v[1];
	r->rpc = (int)v[2];
	r->event = (int)v[3];
	r->arg = v[4];
	r->retval = v[5];
	r->ipc = (int)v[6];
	r->name = name->p;
	return 0;
}

void kt_json_footer_at(FILE *f, double start)
{
	char buf[400];
	char *p = buf;

	/* A sentinel a kutrace trace put past 999 s keeps its time: it sorts last. */
	if (start > 999.0) {
		*p++ = '[';
		p = put_sec(p, start, 0);
		fwrite(buf, 1, (size_t)(p - buf), f);
		fputs(", 0.0, 0, 0, 0, 0, 0, 0, 0, \"\"]\n]}\n", f);
	} else {
		fputs("[999.0, 0.0, 0, 0, 0, 0, 0, 0, 0, \"\"]\n]}\n", f);
	}
}

void kt_json_footer(FILE *f)
{
	kt_json_footer_at(f, 999.0);
}

/* ---- row order --------------------------------------------------------- */

int kt_row_cmp(const struct kt_row *a, const struct kt_row *b)
{
#define CMP(x) if (a->x != b->x) return a->x < b->x ? -1 : 1
	CMP(start);
	CMP(dur);
	CMP(cpu);
	CMP(pid);
	CMP(event);
	CMP(rpc);
	CMP(arg);
	CMP(retval);
	CMP(ipc);
#undef CMP
	return strcmp(a->name, b->name);
}

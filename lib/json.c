// SPDX-License-Identifier: BSD-3-Clause
/*
 * json.c - the KUtrace JSON (docs/spec/FORMATS.md 5.10): header, rows, footer, and
 * the row order (the ordered writer is jsonout.c).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "kutrace-local.h"

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

/*
 * Seconds with 8 decimals from nsec10, formatted with integers: exactly
 * what "%W.8f" prints for these values, several times faster (this and
 * fmt_int are a quarter of kutrace_postproc's time).
 */
/* "0000".."9999": the 8 decimals are two lookups. */
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

static char *fmt_sec(char *p, int64_t ns10, int width)
{
	if (ns10 >= 0 && ns10 < 100000000000LL) {
		/* Under 1000 s: no division loop, no temporary. */
		uint32_t ip = (uint32_t)((uint64_t)ns10 / 100000000);
		uint32_t fp = (uint32_t)((uint64_t)ns10 - (uint64_t)ip * 100000000);
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
	int neg = ns10 < 0;
	uint64_t v = neg ? (uint64_t)-ns10 : (uint64_t)ns10;
	uint64_t ip = v / 100000000;
	uint32_t fp = (uint32_t)(v % 100000000);
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

static char *fmt_int(char *p, int64_t v)
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

size_t kt_utf8_seq(const unsigned char *s)
{
	unsigned char c = s[0];
	uint32_t cp, min;
	size_t n;

	if (c < 0x80)
		return 1;
	if (c >= 0xC2 && c <= 0xDF)
		n = 2, cp = c & 0x1F, min = 0x80;
	else if ((c & 0xF0) == 0xE0)
		n = 3, cp = c & 0x0F, min = 0x800;
	else if (c >= 0xF0 && c <= 0xF4)
		n = 4, cp = c & 0x07, min = 0x10000;
	else
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xC0) != 0x80)	/* also stops at the NUL */
			return 0;
		cp = cp << 6 | (s[i] & 0x3F);
	}
	if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
		return 0;
	return n;
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

size_t kt_json_format_head(char *buf, const struct kt_row *r)
{
	char *p = buf;

	*p++ = '[';
	p = fmt_sec(p, r->start, 12);
	*p++ = ',';
	*p++ = ' ';
	p = fmt_sec(p, r->dur, 10);
	int64_t v[7] = { r->cpu, r->pid, r->rpc, r->event, r->arg, r->retval, r->ipc };

	for (int i = 0; i < 7; i++) {
		*p++ = ',';
		*p++ = ' ';
		p = fmt_int(p, v[i]);
	}
	*p++ = ',';
	*p++ = ' ';
	*p++ = '"';
	return (size_t)(p - buf);
}

size_t kt_json_escape_buf(char *buf, const char *s)
{
	return (size_t)(esc_name(buf, s) - buf);
}

size_t kt_json_format_row(char *buf, size_t cap, const struct kt_row *r)
{
	size_t nlen = strlen(r->name);

	/* 2 * 12 + 7 * 21 + separators: < 200 bytes before the name. */
	if (cap < KT_JSON_HEAD_MAX + 6 * nlen + 8)
		return 0;
	char *p = buf + kt_json_format_head(buf, r);

	p = esc_name(p, r->name);
	memcpy(p, "\"],\n", 4);
	return (size_t)(p + 4 - buf);
}

void kt_json_footer(FILE *f)
{
	fputs("[999.0, 0.0, 0, 0, 0, 0, 0, 0, 0, \"\"]\n]}\n", f);
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

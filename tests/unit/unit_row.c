// SPDX-License-Identifier: BSD-3-Clause
/*
 * unit_row - cmocka tests of the one row module (lib/rows/json.c): every
 * writer's row line is the same bytes, the times are printf's "%12.8f" /
 * "%10.8f" digits, and kt_json_parse_row reads a line back byte for byte;
 * and the page built from rows as data (lib/page/pageenc.c, kutrace_postproc's
 * one pass) is the page the JSON front end makes of those rows' text.
 */
#include <inttypes.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "tool.h"
#include "jsonrows.h"
#include "page.h"

/* The longest name an entry carries (docs/spec/FORMATS.md 1.3): 56 bytes. */
#define LONG56 "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRST"

static const char *const odd[] = {
	"", "plain", "a\"b", "back\\slash\\", "\\\"", "tab\tnl\n", "\x01\x02\x1f",
	"a<b", "</script>", "del\x7f", "caf\xc3\xa9", "\xe2\x82\xac\xf0\x9f\x98\x80",
	"bad\xff" "utf8", "cut\xe2\x82", "\xed\xa0\x80surrogate", "\xc0\xafoverlong",
	"sp ace", "-wakeup-", "PC=ffffffffb1721e8f", LONG56,
};

static const int64_t times[][2] = {
	{ 0, 0 }, { 1, 1 }, { 4941830734, 1 }, { 99999999999, 100000000000 },
	{ 100000000000, 99999999999 }, { -1, -100000000 }, { -4941830734, 3000 },
	{ INT64_MAX, INT64_MIN }, { INT64_MIN, INT64_MAX }, { 123456789012345, 7 },
};

static const int64_t ints[][7] = {
	{ 0, 0, 0, 0, 0, 0, 0 },
	{ 3, 8287, 0, 2049, 1, 9, 15 },
	{ -1, -1, -1, -3, 2, 7944, 0 },
	{ INT32_MAX, INT32_MIN, INT32_MAX, INT32_MIN, INT64_MAX, INT64_MIN, 9 },
	{ INT32_MIN, INT32_MAX, -7, 131072, INT64_MIN, INT64_MAX, -15 },
	{ 9, 99, 999, 9999, 99999, 4294967295LL, 10000 },
};

static struct kt_row mkrow(const int64_t t[2], const int64_t v[7], const char *name)
{
	return (struct kt_row){
		.start = t[0], .dur = t[1], .cpu = (int)v[0], .pid = (int)v[1],
		.rpc = (int)v[2], .event = (int)v[3], .arg = v[4], .retval = v[5],
		.ipc = (int)v[6], .name = name,
	};
}

/* "%W.8f" of t 10 ns units, worked out with integer printf only. */
static void want_fixed(char *out, int64_t t, int width)
{
	uint64_t a = t < 0 ? -(uint64_t)t : (uint64_t)t;
	char s[40];

	snprintf(s, sizeof(s), "%s%" PRIu64 ".%08" PRIu64, t < 0 ? "-" : "",
		 a / 100000000, a % 100000000);
	sprintf(out, "%*s", width, s);
}

/* The row's line as the spec prints it, the name escaped by the one escaper. */
static size_t want_line(char *out, const struct kt_row *r)
{
	char a[40], b[40];
	size_t k;

	want_fixed(a, r->start, 12);
	want_fixed(b, r->dur, 10);
	k = (size_t)sprintf(out, "[%s, %s, %d, %d, %d, %d, %" PRId64 ", %" PRId64 ", %d, \"",
			    a, b, r->cpu, r->pid, r->rpc, r->event, r->arg, r->retval, r->ipc);
	k += kt_json_escape_mem(out + k, r->name, strlen(r->name));
	memcpy(out + k, "\"],\n", 4);
	return k + 4;
}

static int valid_utf8(const char *s)
{
	for (size_t k; *s; s += k)
		if (!(k = kt_utf8_seq((const unsigned char *)s)))
			return 0;
	return 1;
}

/* Format, parse back, format again: the same bytes and the same row. */
static void test_roundtrip(void **state)
{
	static char line[KT_JSON_HEAD_MAX + 6 * 65536 + 4], again[sizeof(line)], want[sizeof(line)];
	struct kt_buf name = { 0 };
	char *big = malloc(65537);
	int n = 0;

	(void)state;
	/* the longest name a JSON tool may hold: no limit; 64 KB of escapes */
	for (int i = 0; i < 65536; i++)
		big[i] = "\"\\<\x7f\x01\n"[i % 6];
	big[65536] = 0;
	for (size_t ti = 0; ti < sizeof(times) / sizeof(times[0]); ti++)
		for (size_t vi = 0; vi < sizeof(ints) / sizeof(ints[0]); vi++)
			for (size_t ni = 0; ni <= sizeof(odd) / sizeof(odd[0]); ni++) {
				const char *nm = ni < sizeof(odd) / sizeof(odd[0]) ? odd[ni] : big;
				struct kt_row r = mkrow(times[ti], ints[vi], nm), back;
				size_t k = kt_json_format_row(line, sizeof(line), &r);

				assert_true(k > 0);
				assert_int_equal(want_line(want, &r), k);
				assert_memory_equal(line, want, k);
				line[k] = 0;
				assert_int_equal(kt_json_parse_row(line, &back, &name), 0);
				assert_int_equal(kt_json_format_row(again, sizeof(again), &back), k);
				assert_memory_equal(again, line, k);
				assert_true(back.start == r.start && back.dur == r.dur &&
					    back.cpu == r.cpu && back.pid == r.pid &&
					    back.rpc == r.rpc && back.event == r.event &&
					    back.arg == r.arg && back.retval == r.retval &&
					    back.ipc == r.ipc);
				/* bytes that are not UTF-8 come back as U+FFFD */
				if (valid_utf8(nm))
					assert_string_equal(back.name, nm);
				n++;
			}
	assert_int_equal(n, 10 * 6 * 21);
	/* too small a buffer: 0, nothing written past it */
	struct kt_row r = mkrow(times[0], ints[0], "x");

	assert_int_equal(kt_json_format_row(line, KT_JSON_HEAD_MAX + 6, &r), 0);
	kt_buf_free(&name);
	free(big);
}

/* Lines that are not our row: -1, never a row. */
static void test_parse_refuses(void **state)
{
	static const char *const bad[] = {
		"", "[", "[999.0, 0.0, 0, 0, 0, 0, 0, 0, 0, \"\"]",
		"[  1.00000000, 0.00000001, 0, 1, 0, 2, 3, 4, 5]",
		"[  1.00000000, 0.00000001, 0, 1, 0, 2, 3, 4, 5, \"a\"",
		"[  1.00000000, 0.00000001, 0, 1, 0, 2, 3, 4, 5, \"a\\q\"],",
		"[  1.00000000, 0.00000001, 0, 1, 0, 2, 3, 4, 5, \"a\\u00e9\"],",
		"[  1.00000000, 0.00000001, 0, 1, 0, 2, 3, 4, 5, \"a\\u0000\"],",
		"[  1.0000000, 0.00000001, 0, 1, 0, 2, 3, 4, 5, \"a\"],",
		"[  1.00000000, 0.00000001, 0, 1, x, 2, 3, 4, 5, \"a\"],",
		" {", "\"events\" : [",
	};
	struct kt_buf name = { 0 };
	struct kt_row r;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(kt_json_parse_row(bad[i], &r, &name), -1);
	assert_int_equal(kt_json_parse_row("[  1.00000000, 0.00000001, 0, 1, 0, 2, 3, 4, 5, "
					   "\"a\\u003c\\u007f\\\"\"],\n", &r, &name), 0);
	assert_string_equal(r.name, "a<\x7f\"");
	kt_buf_free(&name);
}

/* The JSON tools' rows (kt_jw_row, seconds as doubles): fprintf's bytes. */
static void printf_row(FILE *f, const struct kt_jrow *w)
{
	fprintf(f, "[%12.8f, %10.8f, %" PRId64 ", %" PRId64 ", %" PRId64 ", %" PRId64
		", %" PRId64 ", %" PRId64 ", %" PRId64 ", \"", w->start, w->dur, w->cpu,
		w->pid, w->rpc, w->event, w->arg, w->retval, w->ipc);
	kt_json_escape(f, w->name);
	fputs("\"],\n", f);
}

static void test_seconds(void **state)
{
	char *a = NULL, *b = NULL;
	size_t alen = 0, blen = 0;
	FILE *fa = open_memstream(&a, &alen), *fb = open_memstream(&b, &blen);
	static const double special[] = {
		0.0, -0.0, 1e-8, 5e-9, -5e-9, 1.5e-8, 2.5e-8, -1e-10, 0.1, 0.3,
		49.41830734, 999.0, 1e9, -1e9, 1.8446744073709552e11, 2e11, 1e19,
		1e300, -1e300, INFINITY, -INFINITY, NAN, 4.9e-324, 0.000000005,
		0.123456785, 0.123456795, 92233720368.54775807,
	};
	struct kt_jrow w = { .cpu = -1, .pid = 1 << 20, .rpc = INT64_MIN, .event = 0x10000,
			     .arg = INT64_MAX, .retval = -2, .ipc = 15 };
	uint64_t x = 88172645463325252ULL;
	int n = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(special) / sizeof(special[0]); i++)
		for (size_t j = 0; j < sizeof(special) / sizeof(special[0]); j++, n++) {
			w.start = special[i];
			w.dur = special[j];
			w.name = odd[n % (sizeof(odd) / sizeof(odd[0]))];
			kt_jw_row(fa, &w);
			printf_row(fb, &w);
		}
	/* exact ties (odd k / 512, / 1024 ...) round half to even, like glibc */
	for (int k = -4099; k < 4099; k += 2, n++) {
		w.start = k / 512.0;
		w.dur = k / 65536.0;
		w.name = "tie";
		kt_jw_row(fa, &w);
		printf_row(fb, &w);
	}
	/* random doubles of every size, and times as the tools read them */
	for (int k = 0; k < 200000; k++, n++) {
		double d;

		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		if (k & 1) {
			memcpy(&d, &x, sizeof(d));
		} else {
			d = (double)(int64_t)(x >> 20) / (k & 2 ? 1e8 : 1e9);
		}
		w.start = d;
		w.dur = ldexp((double)(x & 0xFFFFFFFF), (int)(x >> 58) - 40);
		w.name = "r";
		kt_jw_row(fa, &w);
		printf_row(fb, &w);
	}
	fclose(fa);
	fclose(fb);
	assert_true(n > 200000);
	assert_int_equal(alen, blen);
	for (size_t i = 0, ln = 1; i < alen; i++) {
		if (a[i] != b[i]) {
			const char *la = memrchr(a, '\n', i), *lb = memrchr(b, '\n', i);

			fail_msg("line %zu: %.*s vs %.*s", ln, 60, la ? la + 1 : a, 60, lb ? lb + 1 : b);
		}
		ln += a[i] == '\n';
	}
	free(a);
	free(b);
}

/* The three writers: kutrace_postproc's, the tools', the page codec's. */
static void test_same_bytes(void **state)
{
	char l1[KT_JSON_HEAD_MAX + 6 * 64 + 4], l3[sizeof(l1)];

	(void)state;
	for (size_t i = 0; i < sizeof(odd) / sizeof(odd[0]); i++) {
		int64_t t[2] = { 4941830734 + (int64_t)i, 1508 }, v[7] = { 0, 8287, 0, 2049, 1, 9, 0 };
		struct kt_row r = mkrow(t, v, odd[i]);
		struct kt_jrow w = { .start = (double)t[0] / 1e8, .dur = (double)t[1] / 1e8,
				     .cpu = 0, .pid = 8287, .event = 2049, .arg = 1,
				     .retval = 9, .name = odd[i] };
		char *l2 = NULL;
		size_t n2 = 0;
		FILE *f = open_memstream(&l2, &n2);
		size_t n1 = kt_json_format_row(l1, sizeof(l1), &r);
		size_t n3 = kt_json_head(l3, t, v);

		kt_jw_row(f, &w);
		fclose(f);
		n3 += kt_json_end(l3 + n3, odd[i], strlen(odd[i]));
		assert_int_equal(n1, n2);
		assert_memory_equal(l1, l2, n1);
		assert_int_equal(n3 + 2, n1);
		assert_memory_equal(l1, l3, n3);
		free(l2);
	}
}

static int rowq(const void *a, const void *b)
{
	return kt_row_cmp(a, b);
}

static char *memtext(void (*put)(FILE *, const void *), const void *arg, size_t *len)
{
	char *s = NULL;
	FILE *f = open_memstream(&s, len);

	assert_non_null(f);
	put(f, arg);
	assert_int_equal(fclose(f), 0);
	return s;
}

static void put_header(FILE *f, const void *m)
{
	kt_json_header(f, m);
}

static void put_footer(FILE *f, const void *unused)
{
	(void)unused;
	kt_json_footer(f);
}

/*
 * Every odd row (names that are not UTF-8 or need escapes, times out of
 * sc_number's exact range, integers outside 32 bits) through both ways
 * to a page: kt_pagecols from the rows, kt_html_write_mem from the JSON
 * text of the same rows; then again with every 5th row held back and
 * merged in late, as kutrace_postproc's JSON writer hands them over.
 */
static void test_page_from_rows(void **state)
{
	(void)state;
	size_t nt = sizeof(times) / sizeof(times[0]), ni = sizeof(ints) / sizeof(ints[0]);
	size_t no = sizeof(odd) / sizeof(odd[0]), n = 0;
	struct kt_row *rows = calloc(nt * ni * no, sizeof(*rows));
	char tpl[] = "/tmp/unit_row_tplXXXXXX";
	int fd = mkstemp(tpl);

	assert_true(fd >= 0);
	const char *html = "<html>\n<!-- kutrace:data -->\n</html>\n";

	assert_int_equal(write(fd, html, strlen(html)), (ssize_t)strlen(html));
	close(fd);
	for (size_t i = 0; i < nt; i++)
		for (size_t j = 0; j < ni; j++)
			for (size_t k = 0; k < no; k++)
				/* Odd times with plain values, odd values with plain times. */
				if ((i < 3 || j < 2) && (k % 3 == (i + j) % 3 || i + j == 0))
					rows[n++] = mkrow(times[i], ints[j], kt_intern(odd[k]));
	qsort(rows, n, sizeof(*rows), rowq);
	struct kt_json_meta m = { .title = "unit <row>", .tracebase = "2024-07-09_15:29:00",
				  .version = 3, .randomid = 7 };
	size_t hl, fl;
	char *header = memtext(put_header, &m, &hl), *footer = memtext(put_footer, NULL, &fl);
	char line[8192];
	struct kt_buf name = { 0 };

	for (int late = 0; late < 2; late++) {
		char *a = NULL, *b = NULL, err[256];
		size_t al, bl;
		FILE *fa = open_memstream(&a, &al), *fb = open_memstream(&b, &bl);
		struct kt_buf json = { 0 };
		struct kt_row *held = calloc(n, sizeof(*held));
		size_t nh = 0, li = 0;

		for (size_t i = 0; late && i < n; i++)
			if (i % 5 == 2)
				held[nh++] = rows[i];
		/*
		 * The JSON as jsonout.c's final copy makes it: each late row
		 * after every written row that, read back from its text, does
		 * not compare after it.
		 */
		kt_buf_add(&json, header, hl);
		for (size_t i = 0; i < n; i++) {
			if (late && i % 5 == 2)
				continue;
			size_t k = kt_json_format_row(line, sizeof(line), &rows[i]);
			struct kt_row back;

			assert_int_equal(kt_json_parse_row(line, &back, &name), 0);
			while (li < nh && kt_row_cmp(&back, &held[li]) > 0)
				kt_buf_add(&json, line + k, kt_json_format_row(line + k, sizeof(line) - k,
									   &held[li++]));
			kt_buf_add(&json, line, k);
		}
		while (li < nh)
			kt_buf_add(&json, line, kt_json_format_row(line, sizeof(line), &held[li++]));
		kt_buf_add(&json, footer, fl);
		assert_int_equal(kt_html_write_mem(fa, tpl, json.p, json.len, err, sizeof(err)), 0);
		kt_buf_free(&json);
		struct kt_pagecols *pc = kt_pagecols_new(0);

		for (size_t i = 0; i < n; i++)
			if (!late || i % 5 != 2)
				kt_pagecols_row(pc, &rows[i]);
		if (late)
			kt_pagecols_late(pc, held, nh);
		assert_int_equal(kt_pagecols_rows(pc), n);
		assert_int_equal(kt_html_write_rows(fb, tpl, pc, header, footer, err, sizeof(err)), 0);
		fclose(fa);
		fclose(fb);
		assert_int_equal(al, bl);
		assert_memory_equal(a, b, al);
		kt_pagecols_free(pc);
		free(held);
		free(a);
		free(b);
	}
	unlink(tpl);
	kt_buf_free(&name);
	free(header);
	free(footer);
	free(rows);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_parse_refuses),
		cmocka_unit_test(test_seconds),
		cmocka_unit_test(test_same_bytes),
		cmocka_unit_test(test_page_from_rows),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

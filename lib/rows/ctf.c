// SPDX-License-Identifier: BSD-3-Clause
/*
 * ctf.c - a CTF 1.8 trace writer (docs/CTF.md): one binary stream file per
 * stream instance, written packet by packet as events come, and the TSDL
 * metadata text last, so a directory without a metadata file is never
 * a trace that babeltrace2 would read.
 *
 * Every integer is byte-aligned and little-endian, so a payload is the
 * caller's bytes as they are; a packet is sized to its content (no
 * padding).  Event classes are declared on first use (system calls are
 * only known by name when the rows arrive).  The trace's uuid may come
 * last too (a row stream gives its header at its end): packets are
 * written with zeros there and patched when the trace is finished.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rows.h"

#define PKT_HDR 32		/* magic, uuid, stream_id, stream_instance_id */
#define PKT_CTX 52		/* ts begin/end, sizes, seq, discarded, cpu_id */
#define PKT_MAX (256 * 1024)	/* bytes of a packet before it is written */

struct ctf_class {
	char *name, *fields;
	uint32_t hash;
};

struct ctf_stream {
	FILE *f;
	char *path;
	uint64_t instance;
	uint32_t cpu_id;
	unsigned char *buf;
	size_t len, cap;
	uint64_t ts_begin, ts_last, seq;
	uint64_t events;
	int any;
	uint64_t off;		/* bytes written */
	uint64_t *poff;		/* where each packet starts, for the uuid */
	size_t npoff;
};

struct kt_ctf {
	char *dir;
	struct ctf_stream *st;
	size_t nst;
	struct ctf_class *cls;
	size_t ncls, capcls;
	uint32_t *tab;		/* class index + 1 by name hash; 0 empty */
	size_t tabcap;
	uint64_t bytes;
	char err[512];
};

static uint32_t fnv(const char *s)
{
	uint32_t h = 2166136261u;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

static int fail(struct kt_ctf *c, const char *what, const char *why)
{
	if (!c->err[0])
		snprintf(c->err, sizeof(c->err), "%s: %s", what, why);
	return -1;
}

struct kt_ctf *kt_ctf_new(const char *dir)
{
	struct kt_ctf *c = kt_xmalloc(sizeof(*c));

	memset(c, 0, sizeof(*c));
	c->dir = kt_xstrdup(dir);
	return c;
}

const char *kt_ctf_error(const struct kt_ctf *c)
{
	return c->err[0] ? c->err : NULL;
}

static void tab_put(struct kt_ctf *c, size_t i)
{
	size_t j = c->cls[i].hash & (c->tabcap - 1);

	while (c->tab[j])
		j = (j + 1) & (c->tabcap - 1);
	c->tab[j] = (uint32_t)i + 1;
}

int kt_ctf_class(struct kt_ctf *c, const char *name, const char *fields)
{
	uint32_t h = fnv(name);

	if (c->tabcap) {
		for (size_t j = h & (c->tabcap - 1); c->tab[j]; j = (j + 1) & (c->tabcap - 1)) {
			struct ctf_class *k = &c->cls[c->tab[j] - 1];

			if (k->hash == h && strcmp(k->name, name) == 0)
				return (int)(c->tab[j] - 1);
		}
	}
	if (c->ncls == c->capcls) {
		c->capcls = c->capcls ? c->capcls * 2 : 64;
		c->cls = kt_xrealloc(c->cls, c->capcls * sizeof(*c->cls));
	}
	c->cls[c->ncls] = (struct ctf_class){ kt_xstrdup(name), kt_xstrdup(fields), h };
	c->ncls++;
	if (c->ncls * 2 > c->tabcap) {
		free(c->tab);
		c->tabcap = c->tabcap ? c->tabcap * 2 : 128;
		c->tab = kt_xmalloc(c->tabcap * sizeof(*c->tab));
		memset(c->tab, 0, c->tabcap * sizeof(*c->tab));
		for (size_t i = 0; i < c->ncls; i++)
			tab_put(c, i);
	} else {
		tab_put(c, c->ncls - 1);
	}
	return (int)c->ncls - 1;
}

static void put_le(unsigned char *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static int flush_packet(struct kt_ctf *c, struct ctf_stream *s)
{
	unsigned char *p = s->buf;

	if (!s->any)
		return 0;
	put_le(p, 0xC1FC1FC1u, 4);
	memset(p + 4, 0, 16);
	put_le(p + 20, 0, 4);
	put_le(p + 24, s->instance, 8);
	p += PKT_HDR;
	put_le(p, s->ts_begin, 8);
	put_le(p + 8, s->ts_last, 8);
	put_le(p + 16, (uint64_t)s->len * 8, 8);
	put_le(p + 24, (uint64_t)s->len * 8, 8);
	put_le(p + 32, s->seq++, 8);
	put_le(p + 40, 0, 8);
	put_le(p + 48, s->cpu_id, 4);
	if (fwrite(s->buf, 1, s->len, s->f) != s->len)
		return fail(c, s->path, strerror(errno));
	if ((s->npoff & (s->npoff - 1)) == 0)
		s->poff = kt_xrealloc(s->poff, (s->npoff ? 2 * s->npoff : 1) * sizeof(*s->poff));
	s->poff[s->npoff++] = s->off;
	s->off += s->len;
	c->bytes += s->len;
	s->len = PKT_HDR + PKT_CTX;
	s->any = 0;
	return 0;
}

int kt_ctf_stream(struct kt_ctf *c, const char *file, uint64_t instance, uint32_t cpu_id)
{
	struct ctf_stream *s;

	c->st = kt_xrealloc(c->st, (c->nst + 1) * sizeof(*c->st));
	s = &c->st[c->nst];
	memset(s, 0, sizeof(*s));
	if (asprintf(&s->path, "%s/%s", c->dir, file) < 0)
		return fail(c, file, "out of memory");
	s->f = fopen(s->path, "wbx");
	if (!s->f) {
		fail(c, s->path, strerror(errno));
		free(s->path);
		return -1;
	}
	s->instance = instance;
	s->cpu_id = cpu_id;
	s->cap = PKT_MAX;
	s->buf = kt_xmalloc(s->cap);
	s->len = PKT_HDR + PKT_CTX;
	return (int)c->nst++;
}

int kt_ctf_event(struct kt_ctf *c, int stream, uint64_t ts, int id,
		 const void *payload, size_t n)
{
	struct ctf_stream *s = &c->st[stream];
	size_t need = 12 + n;

	if (c->err[0])
		return -1;
	if (s->any && s->len + need > PKT_MAX && flush_packet(c, s) < 0)
		return -1;
	if (s->len + need > s->cap) {
		s->cap = s->len + need;
		s->buf = kt_xrealloc(s->buf, s->cap);
	}
	if (!s->any) {
		/* A packet begins where the last one ended: no time uncovered. */
		s->ts_begin = s->seq ? s->ts_last : ts;
		s->any = 1;
	}
	put_le(s->buf + s->len, (uint32_t)id, 4);
	put_le(s->buf + s->len + 4, ts, 8);
	memcpy(s->buf + s->len + 12, payload, n);
	s->len += need;
	s->ts_last = ts;
	s->events++;
	return 0;
}

uint64_t kt_ctf_bytes(const struct kt_ctf *c)
{
	return c->bytes;
}

static void uuid_str(char *out, const unsigned char *u)
{
	char *p = out;

	for (int i = 0; i < 16; i++) {
		p += sprintf(p, "%02x", u[i]);
		if (i == 3 || i == 5 || i == 7 || i == 9)
			*p++ = '-';
	}
	*p = 0;
}

/* s as a TSDL string literal body: quotes and backslashes escaped. */
static void tsdl_str(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', f);
		if ((unsigned char)*s < 0x20)
			fputc('?', f);
		else
			fputc(*s, f);
	}
}

int kt_ctf_finish(struct kt_ctf *c, const unsigned char uuid[16], const char *env,
		  const char *clock_name, const char *clock_desc, int64_t offset_s)
{
	char u[40], *path = NULL;
	FILE *f;

	for (size_t i = 0; i < c->nst; i++) {
		struct ctf_stream *s = &c->st[i];

		if (flush_packet(c, s) < 0)
			return -1;
		if (fflush(s->f) != 0)
			return fail(c, s->path, strerror(errno));
		for (size_t k = 0; k < s->npoff; k++)
			if (pwrite(fileno(s->f), uuid, 16, (off_t)s->poff[k] + 4) != 16)
				return fail(c, s->path, strerror(errno ? errno : EIO));
		if (fclose(s->f) != 0) {
			s->f = NULL;
			return fail(c, s->path, strerror(errno));
		}
		s->f = NULL;
	}
	if (c->err[0])
		return -1;
	uuid_str(u, uuid);
	if (asprintf(&path, "%s/metadata", c->dir) < 0)
		return fail(c, "metadata", "out of memory");
	f = fopen(path, "wx");
	if (!f) {
		fail(c, path, strerror(errno));
		free(path);
		return -1;
	}
	fprintf(f, "/* CTF 1.8 */\n\n"
		"typealias integer { size = 8; align = 8; signed = false; } := uint8_t;\n"
		"typealias integer { size = 16; align = 8; signed = false; } := uint16_t;\n"
		"typealias integer { size = 32; align = 8; signed = false; } := uint32_t;\n"
		"typealias integer { size = 64; align = 8; signed = false; } := uint64_t;\n"
		"typealias integer { size = 64; align = 8; signed = false; base = 16; } := uint64_hex_t;\n"
		"typealias integer { size = 8; align = 8; signed = true; } := int8_t;\n"
		"typealias integer { size = 32; align = 8; signed = true; } := int32_t;\n"
		"typealias integer { size = 64; align = 8; signed = true; } := int64_t;\n"
		"typealias integer { size = 8; align = 8; signed = false; encoding = UTF8; } := char_t;\n\n"
		"trace {\n\tmajor = 1;\n\tminor = 8;\n\tuuid = \"%s\";\n\tbyte_order = le;\n"
		"\tpacket.header := struct {\n\t\tuint32_t magic;\n\t\tuint8_t uuid[16];\n"
		"\t\tuint32_t stream_id;\n\t\tuint64_t stream_instance_id;\n\t};\n};\n\n"
		"env {\n%s};\n\n", u, env);
	fprintf(f, "clock {\n\tname = \"%s\";\n\tuuid = \"%s\";\n\tdescription = \"", clock_name, u);
	tsdl_str(f, clock_desc);
	fprintf(f, "\";\n\tfreq = 1000000000;\n\tprecision = 10;\n\toffset_s = %" PRId64 ";\n"
		"\toffset = 0;\n\tabsolute = TRUE;\n};\n\n"
		"typealias integer { size = 64; align = 8; signed = false; map = clock.%s.value; }"
		" := uint64_clock_t;\n\n"
		"stream {\n\tid = 0;\n"
		"\tevent.header := struct {\n\t\tuint32_t id;\n\t\tuint64_clock_t timestamp;\n\t};\n"
		"\tpacket.context := struct {\n\t\tuint64_clock_t timestamp_begin;\n"
		"\t\tuint64_clock_t timestamp_end;\n\t\tuint64_t content_size;\n"
		"\t\tuint64_t packet_size;\n\t\tuint64_t packet_seq_num;\n"
		"\t\tuint64_t events_discarded;\n\t\tuint32_t cpu_id;\n\t};\n};\n",
		offset_s, clock_name);
	for (size_t i = 0; i < c->ncls; i++) {
		fprintf(f, "\nevent {\n\tname = \"");
		tsdl_str(f, c->cls[i].name);
		fprintf(f, "\";\n\tid = %zu;\n\tstream_id = 0;\n\tfields := struct {\n%s\t};\n};\n",
			i, c->cls[i].fields);
	}
	if (fflush(f) != 0 || ferror(f)) {
		fail(c, path, strerror(errno ? errno : EIO));
		fclose(f);
		free(path);
		return -1;
	}
	if (fclose(f) != 0) {
		fail(c, path, strerror(errno));
		free(path);
		return -1;
	}
	free(path);
	return 0;
}

void kt_ctf_free(struct kt_ctf *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->nst; i++) {
		if (c->st[i].f)
			fclose(c->st[i].f);
		free(c->st[i].buf);
		free(c->st[i].path);
		free(c->st[i].poff);
	}
	for (size_t i = 0; i < c->ncls; i++) {
		free(c->cls[i].name);
		free(c->cls[i].fields);
	}
	free(c->cls);
	free(c->tab);
	free(c->st);
	free(c->dir);
	free(c);
}

// SPDX-License-Identifier: BSD-3-Clause
/* base40.c - the packed 6-character labels of marks (docs/spec/FORMATS.md 1.5). */
#include <string.h>

#include "kutrace/format.h"
#include "libkutrace-local.h"

static const char alphabet[KUTRACE_BASE40_RADIX] = KUTRACE_BASE40_CHARS;

static unsigned int code_of(unsigned char c)
{
	if (c >= 'A' && c <= 'Z')
		c = (unsigned char)(c - 'A' + 'a');
	for (unsigned int i = 1; i < KUTRACE_BASE40_RADIX; i++)
		if (alphabet[i] == (char)c)
			return i;
	return KUTRACE_BASE40_DOT;
}

uint32_t kt_base40_encode(const char *s)
{
	size_t n = strlen(s);
	uint32_t v = 0, mul = 1;

	if (n > KUTRACE_BASE40_MAXLEN)
		n = KUTRACE_BASE40_MAXLEN;
	/* The first character is the least-significant digit. */
	for (size_t i = 0; i < n; i++) {
		v += code_of((unsigned char)s[i]) * mul;
		mul *= KUTRACE_BASE40_RADIX;
	}
	return v;
}

char *kt_base40_decode(uint32_t v, char *buf)
{
	int n = 0;

	while (v != 0 && n < KUTRACE_BASE40_MAXLEN) {
		buf[n++] = alphabet[v % KUTRACE_BASE40_RADIX];
		v /= KUTRACE_BASE40_RADIX;
	}
	buf[n] = '\0';
	return buf;
}

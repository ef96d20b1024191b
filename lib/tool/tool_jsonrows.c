// SPDX-License-Identifier: BSD-3-Clause
/*
 * tool_jsonrows.c - the JSON row reader for programs' main(): it ends the
 * program with the reader's one-line error (tool.c).  Apart from tool.c so
 * that a program that never reads JSON does not link jansson.
 */
#include "tool.h"
#include "jsonrows.h"

void kt_xjr_open(struct kt_jreader *r, const char *path)
{
	if (kt_jr_open(r, path) < 0)
		kt_die("%s", r->err);
}

int kt_xjr_next(struct kt_jreader *r, struct kt_jrow *row)
{
	int k = kt_jr_next(r, row);

	if (k < 0)
		kt_die("%s", r->err);
	return k;
}

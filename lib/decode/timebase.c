// SPDX-License-Identifier: BSD-3-Clause
/*
 * timebase.c - trace ticks to time (docs/spec/FORMATS.md 4.3).
 *
 * Times are nsec10 (10 ns units) since the start of the minute holding the
 * trace start, like the original, but the minute is a UTC minute (the
 * original leaked the local time zone into "tracebase") and nothing here is
 * limited to 999 s.
 */
#include <stdio.h>
#include <time.h>

#include "decode.h"

#define USEC_PER_MINUTE 60000000ULL

int kt_timebase_init(struct kt_timebase *tb, uint64_t c0, uint64_t u0,
		     uint64_t c1, uint64_t u1, char *err, size_t errlen)
{
	/*
	 * No counter reaches 2^63 (2,900 years at 100 ticks per usec), and
	 * the tick at the base minute below is signed: such a start is
	 * damage.  The pair repair (kt_raw_index) leaves a pair it finds no
	 * sound replacement for as it is, so it arrives here.
	 */
	if (c0 > (uint64_t)INT64_MAX) {
		snprintf(err, errlen,
			 "start counter %#llx is 2^63 or more (no real counter gets there)",
			 (unsigned long long)c0);
		return -1;
	}
	if (c1 <= c0)
		c1 = c0 + 1;
	double rate = (double)(c1 - c0) / ((double)u1 - (double)u0);

	tb->c0 = c0;
	tb->u0 = u0;
	tb->lowres = 0;
	/* The original rejects rates outside 0.99 .. 100.1 ticks per usec. */
	if (u1 <= u0 || rate < 0.99 || rate > 100.1) {
		snprintf(err, errlen,
			 "implausible time pairs: %llu ticks in %lld usec",
			 (unsigned long long)(c1 - c0),
			 (long long)(u1 - u0));
		return -1;
	}
	tb->slope_us = ((double)u1 - (double)u0) / (double)(c1 - c0);
	tb->minute_usec = (u0 / USEC_PER_MINUTE) * USEC_PER_MINUTE;
	/*
	 * The ticks from the base minute to the start: under a minute of
	 * usec at most 100.1 ticks per usec, so below 2^33, and c0 is below
	 * 2^63 - the difference cannot overflow.
	 */
	int64_t back = (int64_t)(((double)u0 - (double)tb->minute_usec) / tb->slope_us);

	tb->cm = (int64_t)c0 - back;
	return 0;
}

int64_t kt_timebase_ns10(const struct kt_timebase *tb, uint64_t ticks)
{
	/* Signed difference without overflow; the product saturates. */
	double v = ((double)ticks - (double)tb->cm) * (tb->slope_us * 100.0);

	if (!(v > -KT_TIME_LIMIT))
		return -KT_TIME_LIMIT;
	if (v > KT_TIME_LIMIT)
		return KT_TIME_LIMIT;
	return (int64_t)v;
}

void kt_timebase_string(const struct kt_timebase *tb, char *buf, size_t len)
{
	time_t secs = (time_t)(tb->minute_usec / 1000000);
	struct tm tm;

	gmtime_r(&secs, &tm);
	strftime(buf, len, "%Y-%m-%d_%H:%M:00", &tm);
}

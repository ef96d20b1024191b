// SPDX-License-Identifier: BSD-3-Clause
/*
 * markers.c - the user library for programs that mark themselves
 * (include/kutrace/control.h, libkutrace(3)): go/stop, marks, names and
 * events, over the control channel.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/utsname.h>

#include "libkutrace-local.h"
#include "kutrace/control.h"
#include "kutrace/counter.h"
#include "channel.h"
#include "bpfchan.h"

int kutrace_test(void)
{
	uint64_t v = 0;
	int e = kt_ctl_cmd(KUTRACE_CMD_VERSION, 0, &v);

	if (e) {
		fprintf(stderr, "kutrace: %s\n", kt_ctl_strerror(e));
		kt_ctl_explain(e, stderr);
		return 0;
	}
	if (v < 3 || v > 255) {
		fprintf(stderr, "kutrace: module version %llu too old\n",
			(unsigned long long)v);
		return 0;
	}
	return 1;
}

static int go_flags(const char *name, unsigned int flags)
{
	int e = kt_ctl_reset(flags, NULL);

	if (!e)
		e = kt_ctl_init(name);
	if (!e)
		e = kt_ctl_on();
	return e;
}

int kutrace_go(const char *name)
{
	return go_flags(name, 0);
}

int kutrace_goipc(const char *name)
{
	return go_flags(name, KUTRACE_RESET_IPC);
}

int kutrace_stop(const char *fname)
{
	struct kt_dump_info info;
	char def[512];
	int e;

	if (!fname) {
		kt_ctl_trace_name("ku", def, sizeof(def));
		fname = def;
	}
	e = kt_ctl_dump(fname, &info);
	if (!e)
		fprintf(stderr, "kutrace: wrote %s (%llu blocks, %llu bytes)\n",
			fname, (unsigned long long)info.blocks,
			(unsigned long long)info.bytes);
	else
		fprintf(stderr, "kutrace: stop: %s\n", kt_ctl_strerror(e));
	kt_ctl_reset(0, NULL);
	return e;
}

int kutrace_addevent(unsigned int event, uint64_t arg)
{
	uint64_t r = 0;
	uint64_t w = kutrace_make_word(event, arg);

	/* Events user buffers hold go there when the controller offers them. */
	if (kutrace_uentry_words(event) == 2) {
		int u = kt_uev_put(w, NULL, 0);

		if (u >= 0)
			return u;
	}

	if (kt_user_insert(KUTRACE_CMD_INSERT1, w, &r))
		return -1;
	return r ? 1 : 0;
}

void kutrace_mark_a(const char *label)
{
	kutrace_addevent(KUTRACE_MARKA, kt_base40_encode(label));
}

void kutrace_mark_b(const char *label)
{
	kutrace_addevent(KUTRACE_MARKB, kt_base40_encode(label));
}

void kutrace_mark_c(const char *label)
{
	kutrace_addevent(KUTRACE_MARKC, kt_base40_encode(label));
}

void kutrace_mark_d(uint64_t n)
{
	kutrace_addevent(KUTRACE_MARKD, n & KUTRACE_ARG32_MASK);
}

int kutrace_addname(unsigned int type, uint64_t number, const char *name)
{
	uint64_t w[KUTRACE_MAX_ENTRY_WORDS];
	uint64_t r = 0;

	if (type & (KUTRACE_LEN_MASK << KUTRACE_LEN_SHIFT))
		return -EINVAL;
	kt_name_entry(w, type, number, name, KUTRACE_USER_NAME_MAX);
	unsigned int len = kutrace_entry_words(kutrace_word_event(w[0]));

	if (kutrace_uentry_words(kutrace_word_event(w[0]))) {
		int u = kt_uev_put(w[0], w + 1, len - 1);

		if (u >= 0)
			return u;
	}
	if (kt_user_insert(KUTRACE_CMD_INSERTN, (uint64_t)(uintptr_t)w, &r))
		return -1;
	return (int)r;
}

uint64_t kutrace_readtime(void)
{
	return kt_ctl_now();
}


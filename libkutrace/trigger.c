// SPDX-License-Identifier: BSD-3-Clause
/*
 * trigger.c - kutrace_trigger(): a program says "keep this moment" by
 * putting a TRIGGER entry (docs/spec/FORMATS.md 11.1) into the trace; the
 * flight recorder (kutrace_flight), reading the trace as it is written,
 * saves a snapshot around it.  The call costs one insert and never
 * waits for the recorder.  kt_user_insert: how a program's own entries
 * (these and markers.c's) get in while the recorder holds the device.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "libkutrace-local.h"
#include "kutrace/control.h"
#include "channel.h"

int kt_user_insert(unsigned int nr, uint64_t arg, uint64_t *result)
{
	static int via1023;	/* found busy once: no open() per mark after */
	int e = via1023 ? -EBUSY : kt_ctl_cmd(nr, arg, result);
	uint64_t r;

	/*
	 * A recorder (kutrace_flight, kutrace_control record --stream) holds
	 * /dev/kutrace, which one process may have open; the module also
	 * answers system call 1023 (FORMATS 3.7), where inserts need no
	 * descriptor.  Where nothing answers it, the call stays refused.
	 */
	if (e != -EBUSY)
		return e;
	r = (uint64_t)syscall(KUTRACE_CONTROL_SYSCALL, (uint64_t)nr, arg);
	if (r == KUTRACE_CMD_ERROR)
		return e;
	via1023 = 1;
	if (result)
		*result = r;
	return 0;
}

int kutrace_trigger(const char *reason)
{
	uint64_t w[KUTRACE_TRIGGER_WORDS] = { 0 };
	uint64_t r = 0, now = kt_ctl_now() & KUTRACE_HDR_LOW56;
	size_t n = reason ? strlen(reason) : 0;

	w[0] = kutrace_make_word(KUTRACE_TRIGGER_EVENT, KUTRACE_TRIG_CALL);
	w[1] = now;
	w[2] = now;
	if (n > KUTRACE_TRIGGER_TEXT)
		n = KUTRACE_TRIGGER_TEXT;
	memcpy(&w[3], reason ? reason : "", n);
	/*
	 * Through the kernel's insert even where user buffers are on: the
	 * recorder streams, and streaming takes no user buffers (FORMATS 10).
	 */
	if (kt_user_insert(KUTRACE_CMD_INSERTN, (uint64_t)(uintptr_t)w, &r))
		return -1;
	return r ? 1 : 0;
}

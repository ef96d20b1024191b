// SPDX-License-Identifier: GPL-2.0
/*
 * kutrace_cmd.c - the control commands (docs/spec/FORMATS.md 7): the one
 * switch the module (kutrace_main.c) and the benchmark's in-process
 * device (bench/fakedev.c) both run, so that what the benchmark measures
 * is what the module does.  Builds in the kernel and, through
 * kutrace_env.h, in userspace.
 */
#include "kutrace_cmd.h"

#ifdef __KERNEL__
#include <linux/errno.h>
#else
#include <errno.h>
#endif

/* GET4KB's block: SET4KB sets it, the next GET4KB reads it. */
static u64 kt_4kb_index;

/*
 * Copy 4 KiB of block words (or, with side, of side bytes counted in
 * 8-byte words) from index on.  Returns the bytes not copied: 4096 for a
 * block that does not exist, as the original module does.
 */
static long kt_copy_4kb(u64 index, u64 uaddr, bool side)
{
	u64 blk = index / KUTRACE_BLOCK_WORDS;
	u64 off = index % KUTRACE_BLOCK_WORDS;
	const void *src;

	if (off % 512)
		return -EINVAL;
	if (side) {
		/* index counts 8-byte side words: 1024 per side block */
		blk = index / (KUTRACE_SIDE_BYTES / 8);
		off = index % (KUTRACE_SIDE_BYTES / 8);
		if (off % 512 || !kt_core_side(blk))
			return 4096;
		src = kt_core_side(blk) + off * 8;
	} else {
		if (!kt_core_block(blk))
			return 4096;
		src = kt_core_block(blk) + off;
	}
	return kt_env_cmd_copy_out(uaddr, src, 4096);
}

long kt_cmd(unsigned int nr, u64 arg, u64 *result)
{
	u64 w[KUTRACE_MAX_ENTRY_WORDS];
	unsigned int len, ev;
	long ret;
	u64 *blk;
	u8 *side;

	*result = 0;
	switch (nr) {
	case KUTRACE_CMD_OFF:
		WRITE_ONCE(kt_tracing, false);
		break;
	case KUTRACE_CMD_ON:
		kt_env_cmd_on_prepare();
		if (kt_st.full)
			return -ENOSPC;
		WRITE_ONCE(kt_tracing, true);
		kt_env_cmd_on_done();
		*result = 1;
		break;
	case KUTRACE_CMD_FLUSH:
		*result = kt_core_flush();
		break;
	case KUTRACE_CMD_RESET:
		if (arg & ~(u64)(KUTRACE_RESET_IPC | KUTRACE_RESET_WRAP |
				 KUTRACE_RESET_LLC | KUTRACE_RESET_STREAM))
			return -EINVAL;
		WRITE_ONCE(kt_tracing, false);
		kt_env_cmd_quiesce();
		if ((arg & KUTRACE_RESET_IPC) && !kt_env_cmd_ipc_setup())
			arg &= ~(u64)KUTRACE_RESET_IPC;
		*result = kt_core_reset(arg);
		kt_env_cmd_ipc_mark(*result & KUTRACE_RESET_IPC);
		break;
	case KUTRACE_CMD_STAT:
		*result = kt_core_blocks();
		break;
	case KUTRACE_CMD_GETCOUNT:
		*result = kt_core_blocks() * KUTRACE_BLOCK_WORDS;
		if (kt_st.wrapped)
			*result = ~*result;
		break;
	case KUTRACE_CMD_GETWORD:
		if (READ_ONCE(kt_tracing))
			return -EBUSY;
		blk = kt_core_block(arg / KUTRACE_BLOCK_WORDS);
		if (!blk)
			return -EINVAL;
		*result = blk[arg % KUTRACE_BLOCK_WORDS];
		break;
	case KUTRACE_CMD_GETIPCWORD:
		if (READ_ONCE(kt_tracing))
			return -EBUSY;
		side = kt_core_side(arg / (KUTRACE_SIDE_BYTES / 8));
		if (!side)
			return -EINVAL;
		memcpy(result, side + (arg % (KUTRACE_SIDE_BYTES / 8)) * 8, 8);
		break;
	case KUTRACE_CMD_INSERT1:
	case KUTRACE_IOC_INSERT1_FORCED_NR:
		w[0] = arg;
		*result = kt_insert_words(w, 1,
					  nr == KUTRACE_IOC_INSERT1_FORCED_NR);
		break;
	case KUTRACE_CMD_INSERTN:
	case KUTRACE_IOC_INSERTN_FORCED_NR:
		if (kt_env_cmd_copy_in(w, arg, sizeof(w)))
			return -EFAULT;
		ev = kutrace_word_event(w[0]);
		len = kutrace_is_varlen(ev) ? kutrace_entry_words(ev) : 1;
		if (len < 1 || len > KUTRACE_MAX_ENTRY_WORDS)
			return -EINVAL;
		*result = kt_insert_words(w, len,
					  nr == KUTRACE_IOC_INSERTN_FORCED_NR);
		break;
	case KUTRACE_CMD_TEST:
		*result = READ_ONCE(kt_tracing);
		break;
	case KUTRACE_CMD_VERSION:
		*result = KUTRACE_MODULE_VERSION;
		break;
	case KUTRACE_CMD_SET4KB:
		kt_4kb_index = arg;
		break;
	case KUTRACE_CMD_GET4KB:
	case KUTRACE_CMD_GETIPC4KB:
		if (READ_ONCE(kt_tracing))
			return -EBUSY;
		ret = kt_copy_4kb(kt_4kb_index, arg,
				  nr == KUTRACE_CMD_GETIPC4KB);
		if (ret < 0)
			return ret;
		*result = ret;
		break;
	case KUTRACE_CMD_STREAM_TAKE:
		*result = kt_core_take();
		break;
	case KUTRACE_CMD_STREAM_GIVE:
		if (kt_core_give(arg))
			return -EINVAL;
		break;
	case KUTRACE_CMD_STREAM_CUT:
		if (!(kt_st.flags & KUTRACE_RESET_STREAM))
			return -EINVAL;
		if (arg == KUTRACE_CUT_ALL) {
			/* The caller's CPU gets the new epoch's first block. */
			kt_env_cmd_cut_all();
			*result = kt_st.st.cur_epoch;
			/* Each chunk names its backend (FORMATS 10.2). */
			kt_st.backend_named = false;
			kt_env_cmd_on_prepare();
		} else if (arg == KUTRACE_CUT_LOST) {
			kt_env_cmd_lost_all();
			*result = kt_st.st.cur_epoch;
		} else if (arg == KUTRACE_CUT_SELF) {
			kt_core_cut_this_cpu();
			*result = kt_st.st.cur_epoch;
		} else {
			return -EINVAL;
		}
		break;
	case KUTRACE_CMD_GETLOST:
		*result = kt_core_lost(arg);
		break;
	default:
		return -ENOTTY;
	}
	return 0;
}

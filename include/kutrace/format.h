/* SPDX-License-Identifier: (GPL-2.0 OR BSD-3-Clause) */
/*
 * kutrace/format.h - the KUtrace raw trace format, in exactly one place.
 *
 * Everything that the kernel module, the control program, the user library
 * and the postprocessors must agree on lives here: the bit layout of an
 * 8-byte entry, every event number and range, the block header layout and
 * flag bits, the control command numbers and ioctl encoding, and the
 * base-40 alphabet used by marks.  Nothing else in the tree may define
 * these constants again (tests/t_kernel_patch.sh greps for violations).
 *
 * The file compiles in kernel code (__KERNEL__, no libc) and in userland
 * (C11).  It holds only macros and small static inline helpers without
 * side effects, so that it costs nothing where it is not used.  The kernel
 * patches (patches/mkdiff.sh) ship this very file as <linux/kutrace_format.h>,
 * where the hooks take their event numbers from it, so it must also pass the
 * kernel's scripts/checkpatch.pl --strict.
 *
 * Reference: docs/spec/FORMATS.md sections 1-3; deliberate differences
 * from the original KUtrace are listed in docs/FORMAT.md.
 */
#ifndef KUTRACE_FORMAT_H
#define KUTRACE_FORMAT_H

/*
 * <linux/types.h> gives __u64 & co. in the kernel and, as a uapi header, in
 * userland (unsigned long long there, which is not uint64_t's unsigned long
 * on 64-bit: take results into uint64_t by value, not by pointer).
 */
#include <linux/types.h>
#include <linux/ioctl.h>
#ifndef __KERNEL__
#include <stdint.h>	/* userland users have always had it from here */
#endif
typedef __u64 kutrace_u64;
typedef __u32 kutrace_u32;
typedef __s64 kutrace_s64;

/* ---------------------------------------------------------------------- */
/* Versions                                                                */
/* ---------------------------------------------------------------------- */

#define KUTRACE_MODULE_VERSION		4	/* answer to KUTRACE_CMD_VERSION */
#define KUTRACE_FILE_VERSION		3	/* low nibble of block 0 flags */
#define KUTRACE_EVENT_TEXT_VERSION	3	/* "# ## VERSION: 3" */

/* ---------------------------------------------------------------------- */
/* One entry (docs/spec/FORMATS.md 1.1)                                    */
/*                                                                         */
/*   63..44 timestamp (20 bits) | 43..32 event | 31..24 delta |            */
/*   23..16 retval | 15..0 arg0                                            */
/* ---------------------------------------------------------------------- */

#define KUTRACE_TS_SHIFT	44
#define KUTRACE_TS_BITS		20
#define KUTRACE_TS_MASK		0xFFFFFULL		/* after shifting down */
#define KUTRACE_TS_PERIOD	(KUTRACE_TS_MASK + 1)	/* 2^KUTRACE_TS_BITS */
#define KUTRACE_EVENT_SHIFT	32
#define KUTRACE_EVENT_MASK	0xFFFULL
#define KUTRACE_DELTA_SHIFT	24
#define KUTRACE_DELTA_MASK	0xFFULL
#define KUTRACE_RETVAL_SHIFT	16
#define KUTRACE_RETVAL_MASK	0xFFULL
#define KUTRACE_ARG0_MASK	0xFFFFULL
#define KUTRACE_ARG32_MASK	0xFFFFFFFFULL

/* Fields compared when fusing a return into its call (1.2 test 3). */
#define KUTRACE_FUSE_CMP_MASK	0x00000FFFFFFF0000ULL
#define KUTRACE_FUSE_RET_BIT	0x0000020000000000ULL
#define KUTRACE_FUSE_MAX_DELTA	255	/* ticks */

#define KUTRACE_WORD_NOP	0x0000000000000000ULL
#define KUTRACE_WORD_END	0xFFFFFFFFFFFFFFFFULL

/*
 * Timestamp reconstruction: a forward step larger than 7/8 of the 20-bit
 * period gets a TSDELTA prefix from the writer; a backward step of at most
 * 1/8 period is a late store, anything else is a forward wrap.  The two
 * thresholds are complementary (docs/spec/FORMATS.md 3.6).
 */
#define KUTRACE_TSDELTA_THRESHOLD	0xE0000ULL
#define KUTRACE_LATE_STORE_WINDOW	0x20000ULL
/* TSDELTA args at or above this are negative (sign-extended 32 bits). */
#define KUTRACE_TSDELTA_NEG_LIMIT	2000000000ULL
/*
 * Writers split longer gaps into several TSDELTA words of at most this many
 * ticks each, so that no single one is misread as negative.
 */
#define KUTRACE_TSDELTA_MAX_STEP	1000000000ULL

/* Time counter: x86 TSC shifted right by this (docs/spec/FORMATS.md 3.5). */
#define KUTRACE_TSC_SHIFT	6

/* ---------------------------------------------------------------------- */
/* Event numbers (docs/spec/FORMATS.md 1.4 - 1.10)                         */
/* ---------------------------------------------------------------------- */

#define KUTRACE_NOP		0x000

/* Variable-length entries: 0x010..0x1FF, length nibble in bits 7..4. */
#define KUTRACE_VARLEN_LO	0x010
#define KUTRACE_VARLEN_HI	0x1FF
#define KUTRACE_LEN_SHIFT	4
#define KUTRACE_LEN_MASK	0xF
#define KUTRACE_TYPE_MASK	0xF0F	/* event without its length nibble */
#define KUTRACE_NAME_MAX	56	/* bytes in an 8-word name entry */
#define KUTRACE_USER_NAME_MAX	55	/* addname() truncates here */
#define KUTRACE_MAX_ENTRY_WORDS	8

/* Name entry types (length nibble zero). */
#define KUTRACE_FILENAME	0x001
#define KUTRACE_PIDNAME		0x002
#define KUTRACE_METHODNAME	0x003
#define KUTRACE_TRAPNAME	0x004
#define KUTRACE_INTERRUPTNAME	0x005
#define KUTRACE_TIMEPAIR	0x006
#define KUTRACE_LOCKNAME	0x007
#define KUTRACE_SYSCALL64NAME	0x008
#define KUTRACE_SYSCALL32NAME	0x00C
#define KUTRACE_ERRNONAME	0x00E
#define KUTRACE_PACKETNAME	0x100
#define KUTRACE_PC_TEMP		0x101	/* historic 2-word PC sample */
#define KUTRACE_KERNEL_VER	0x102
#define KUTRACE_MODEL_NAME	0x103
#define KUTRACE_HOST_NAME	0x104
#define KUTRACE_QUEUE_NAME	0x105
#define KUTRACE_RES_NAME	0x106
/*
 * kutrace extension: which backend wrote the trace and which events it
 * reconstructed rather than observed (arg = KUTRACE_BACKEND_*, name = text).
 * Unknown name types are ignored by the original readers.
 */
#define KUTRACE_BACKEND_NAME	0x107
/*
 * kutrace extension: entries lost on one CPU (docs/spec/FORMATS.md 10.3),
 * KUTRACE_LOST_WORDS words, event 0x148:
 *   word 0: arg 7..0 the CPU that lost them, 15..8 KUTRACE_LOST_*,
 *           31..16 whole blocks lost (saturating at 0xFFFF)
 *   word 1: entries lost (0: unknown, only blocks counted)
 *   word 2: full counter (55..0) of the first lost entry or block start
 *   word 3: full counter (55..0) of the last lost entry or block end
 */
#define KUTRACE_LOST		0x108
#define KUTRACE_LOST_WORDS	4
#define KUTRACE_LOST_EVENT	(KUTRACE_LOST | \
				 (KUTRACE_LOST_WORDS << KUTRACE_LEN_SHIFT))
#define KUTRACE_LOST_CPU_MASK	0xFFULL
#define KUTRACE_LOST_WHY_SHIFT	8
#define KUTRACE_LOST_WHY_MASK	0xFFULL
#define KUTRACE_LOST_BLOCKS_SHIFT 16
#define KUTRACE_LOST_BLOCKS_MAX	0xFFFFULL
#define KUTRACE_LOST_READER	1	/* stream: no free block, reader behind */
#define KUTRACE_LOST_OVERWRITE	2	/* wrap: blocks overwritten in flight */
#define KUTRACE_LOST_DISK	3	/* stream: blocks the reader let go */

#define KUTRACE_BACKEND_PATCHED		1
#define KUTRACE_BACKEND_TRACEPOINT	2

/* Point events 0x200..0x27F. */
#define KUTRACE_SPECIAL_LO	0x200
#define KUTRACE_USERPID		0x200
#define KUTRACE_RPCIDREQ	0x201
#define KUTRACE_RPCIDRESP	0x202
#define KUTRACE_RPCIDMID	0x203
#define KUTRACE_RPCIDRXMSG	0x204
#define KUTRACE_RPCIDTXMSG	0x205
#define KUTRACE_RUNNABLE	0x206
#define KUTRACE_IPI		0x207
#define KUTRACE_MWAIT		0x208
#define KUTRACE_PSTATE		0x209
#define KUTRACE_MARKA		0x20A
#define KUTRACE_MARKB		0x20B
#define KUTRACE_MARKC		0x20C
#define KUTRACE_MARKD		0x20D
#define KUTRACE_LEFTMARK	0x20E
#define KUTRACE_RIGHTMARK	0x20F
#define KUTRACE_LOCKNOACQUIRE	0x210
#define KUTRACE_LOCKACQUIRE	0x211
#define KUTRACE_LOCKWAKEUP	0x212
#define KUTRACE_RX_PKT		0x214
#define KUTRACE_TX_PKT		0x215
#define KUTRACE_RX_USER		0x216
#define KUTRACE_TX_USER		0x217
#define KUTRACE_MBIT_SEC	0x218
#define KUTRACE_RESOURCE	0x219
#define KUTRACE_ENQUEUE		0x21A
#define KUTRACE_DEQUEUE		0x21B
#define KUTRACE_PSTATE2		0x21C
#define KUTRACE_TSDELTA		0x21D
#define KUTRACE_MONITORSTORE	0x21E
#define KUTRACE_MONITOREXIT	0x21F
#define KUTRACE_SPECIAL_HI	0x27F

#define KUTRACE_PC_U		0x280	/* kernel writes every sample as this */
#define KUTRACE_PC_K		0x281	/* postprocessing relabel: PC bit 63 */
#define KUTRACE_LOCK_HELD	0x282	/* postprocessing only */
#define KUTRACE_LOCK_TRY	0x283	/* postprocessing only */
#define KUTRACE_LOST_SPAN	0x284	/* postprocessing only: "-lost-" */
#define KUTRACE_WAIT_BASE	0x300	/* + letter - 'a', postprocessing only */

/* Kernel execution events: a return is its call plus 0x200. */
#define KUTRACE_TRAP		0x400
#define KUTRACE_IRQ		0x500
#define KUTRACE_TRAPRET		0x600
#define KUTRACE_IRQRET		0x700
#define KUTRACE_SYSCALL64	0x800
#define KUTRACE_SYSRET64	0xA00
#define KUTRACE_SYSCALL32	0xC00
#define KUTRACE_SYSRET32	0xE00
#define KUTRACE_RET_BIT		0x200
#define KUTRACE_CALL_LO		0x400
#define KUTRACE_MAX_SYSCALL	1023	/* numbers >= 1024 cannot be traced */
#define KUTRACE_MAX_SYSCALL32	512	/* ia32 numbers >= 512 are not traced */

#define KUTRACE_TRAP_PAGEFAULT	14
#define KUTRACE_TRAP_DEVNOTAVAIL 7
#define KUTRACE_IRQ_LOCAL_TIMER	0xEC
#define KUTRACE_IRQ_BH		0xFF	/* softirq; arg0 = softirq number */
#define KUTRACE_SCHED_NR	1023	/* scheduler pseudo-syscall */
#define KUTRACE_SCHED_CALL	0xDFF
#define KUTRACE_SCHED_RET	0xFFF
#define KUTRACE_SCHED_CALL_OLD	0x9FF	/* 4.19 / 5.10 kernels used 511 */
#define KUTRACE_SCHED_RET_OLD	0xBFF

/* MWAIT hints with special meaning. */
#define KUTRACE_MWAIT_IOPORT	255
#define KUTRACE_MWAIT_WFI	254
#define KUTRACE_MWAIT_HLT	KUTRACE_MWAIT_WFI	/* x86 hlt idle: as Arm WFI */

/* Postprocessing-only event numbers (JSON rows). */
#define KUTRACE_USER_BASE	0x10000	/* + pid: user-mode execution */
#define KUTRACE_IDLE		0x10000
#define KUTRACE_C_EXIT		0x20000
#define KUTRACE_ARC_BRACKET	(-1)
#define KUTRACE_ARC_OVAL	(-2)
#define KUTRACE_ARC_WAKEUP	(-3)
#define KUTRACE_ARC_CALLOUT	(-4)
#define KUTRACE_ARC_IPI		(-7)

/* Map a syscall number 0..1023 to its mapped number (docs/spec/FORMATS.md 1.7). */
static inline unsigned int kutrace_map_syscall(unsigned int nr)
{
	return nr + (nr & 0x200);
}

static inline int kutrace_is_varlen(unsigned int event)
{
	return event >= KUTRACE_VARLEN_LO && event <= KUTRACE_VARLEN_HI &&
	       event != KUTRACE_PC_TEMP;
}

/* Total words of the entry that starts with this event number. */
static inline unsigned int kutrace_entry_words(unsigned int event)
{
	if (event == KUTRACE_PC_U || event == KUTRACE_PC_K ||
	    event == KUTRACE_PC_TEMP)
		return 2;
	if (kutrace_is_varlen(event))
		return (event >> KUTRACE_LEN_SHIFT) & KUTRACE_LEN_MASK;
	return 1;
}

/* A kernel call event (trap, IRQ, syscall entry), not a return. */
static inline int kutrace_is_call(unsigned int event)
{
	return event >= KUTRACE_CALL_LO && !(event & KUTRACE_RET_BIT);
}

/* A return eligible for fusion (1.2 test 1). */
static inline int kutrace_is_return(unsigned int event)
{
	return (event & KUTRACE_RET_BIT) && (event & 0xC00);
}

static inline int kutrace_is_syscall(unsigned int event)
{
	return event >= KUTRACE_SYSCALL64;
}

static inline kutrace_u64 kutrace_make_word(unsigned int event,
					    kutrace_u64 arg)
{
	return ((kutrace_u64)(event & KUTRACE_EVENT_MASK) <<
		KUTRACE_EVENT_SHIFT) | (arg & KUTRACE_ARG32_MASK);
}

static inline unsigned int kutrace_word_event(kutrace_u64 w)
{
	return (unsigned int)((w >> KUTRACE_EVENT_SHIFT) & KUTRACE_EVENT_MASK);
}

static inline kutrace_u32 kutrace_word_ts(kutrace_u64 w)
{
	return (kutrace_u32)(w >> KUTRACE_TS_SHIFT);
}

/* ---------------------------------------------------------------------- */
/* Blocks and the trace file (docs/spec/FORMATS.md 2)                      */
/* ---------------------------------------------------------------------- */

#define KUTRACE_BLOCK_SHIFT	16
#define KUTRACE_BLOCK_BYTES	65536
#define KUTRACE_BLOCK_WORDS	8192
#define KUTRACE_SIDE_BYTES	8192	/* one IPC/LLC byte per block word */
#define KUTRACE_BLOCK_TAIL_ZERO	8	/* last words zeroed at block setup */

/* Header word indexes. */
#define KUTRACE_HDR_CPU_TIME	0	/* 63..56 CPU, 55..0 counter */
#define KUTRACE_HDR_FLAGS_USEC	1	/* 63..56 flags, 55..0 usec */
#define KUTRACE_HDR_START_CTR	2	/* block 0 only */
#define KUTRACE_HDR_START_USEC	3
#define KUTRACE_HDR_STOP_CTR	4
#define KUTRACE_HDR_STOP_USEC	5
#define KUTRACE_HDR0_PID	8	/* first block: pid word (+MHz high) */
#define KUTRACE_HDR0_WORDS	12
#define KUTRACE_HDRN_PID	2	/* other blocks */
#define KUTRACE_HDRN_WORDS	6
#define KUTRACE_HDR_COMM_BYTES	16	/* comm follows pid word + reserved */

/* CPUs a trace may name (the header byte allows 255; the original: 80). */
#define KUTRACE_MAX_CPUS	128

#define KUTRACE_HDR_CPU_SHIFT	56
#define KUTRACE_HDR_FLAGS_SHIFT	56
#define KUTRACE_HDR_LOW56	0x00FFFFFFFFFFFFFFULL

/* Flags byte (bits 63..56 of header word 1). */
#define KUTRACE_FLAG_IPC	0x80
#define KUTRACE_FLAG_WRAP	0x40
#define KUTRACE_FLAG_LLC	0x20
#define KUTRACE_FLAG_STREAM	0x10	/* block 0: a streamed chunk (10.2) */
#define KUTRACE_FLAG_UNUSED	KUTRACE_FLAG_STREAM	/* older name */
#define KUTRACE_FLAG_VERSION	0x0F
#define KUTRACE_FLAG_SIDE	(KUTRACE_FLAG_IPC | KUTRACE_FLAG_LLC)

/* RESET flags (control command argument). */
#define KUTRACE_RESET_IPC	1
#define KUTRACE_RESET_WRAP	2
#define KUTRACE_RESET_LLC	4
#define KUTRACE_RESET_STREAM	8	/* ring drained while tracing (10.1) */

/* IPC code for v = floor(8 * instructions / cycles), docs/spec/FORMATS.md 2.3. */
static inline unsigned int kutrace_ipc_code(kutrace_u64 v)
{
	v &= 63;
	if (v < 8)
		return (unsigned int)v;
	if (v < 16)
		return 8 + (unsigned int)(v - 8) / 2;
	if (v < 28)
		return 12 + (unsigned int)(v - 16) / 4;
	return 15;
}

/* ---------------------------------------------------------------------- */
/* Control commands (docs/spec/FORMATS.md 3.7) and their ioctl encoding    */
/* ---------------------------------------------------------------------- */

#define KUTRACE_CONTROL_SYSCALL	1023

#define KUTRACE_CMD_OFF		0
#define KUTRACE_CMD_ON		1
#define KUTRACE_CMD_FLUSH	2
#define KUTRACE_CMD_RESET	3
#define KUTRACE_CMD_STAT	4
#define KUTRACE_CMD_GETCOUNT	5
#define KUTRACE_CMD_GETWORD	6
#define KUTRACE_CMD_INSERT1	7
#define KUTRACE_CMD_INSERTN	8
#define KUTRACE_CMD_GETIPCWORD	9
#define KUTRACE_CMD_TEST	10
#define KUTRACE_CMD_VERSION	11
#define KUTRACE_CMD_SET4KB	12
#define KUTRACE_CMD_GET4KB	13
#define KUTRACE_CMD_GETIPC4KB	14
#define KUTRACE_CMD_MAX		14
/*
 * Streaming (docs/spec/FORMATS.md 10.1).  A backend that streams keeps
 * KUTRACE_RESET_STREAM in RESET's answer; 15 and 16 are the forced
 * inserts' ioctl numbers, so these start at 17.
 */
#define KUTRACE_CMD_STREAM_TAKE	17	/* -> 0, or epoch << 32 | slot + 1 */
#define KUTRACE_CMD_STREAM_GIVE	18	/* arg slot: the reader is done */
#define KUTRACE_CMD_STREAM_CUT	19	/* arg KUTRACE_CUT_*: close blocks */
#define KUTRACE_CMD_GETLOST	20	/* arg cpu << 2 | KUTRACE_GETLOST_* */
#define KUTRACE_CMD_STREAM_LO	KUTRACE_CMD_STREAM_TAKE
#define KUTRACE_CMD_STREAM_HI	KUTRACE_CMD_GETLOST
#define KUTRACE_STREAM_SLOT_MASK	0x7FFFFFFFULL
#define KUTRACE_STREAM_FIRST	0x80000000ULL	/* the epoch's first block */
#define KUTRACE_STREAM_EPOCH_SHIFT	32
#define KUTRACE_CUT_ALL		0	/* every CPU's block; a new epoch */
#define KUTRACE_CUT_SELF	1	/* the caller's CPU's block only */
#define KUTRACE_CUT_LOST	2	/* each CPU's pending LOST entry, alone */
#define KUTRACE_GETLOST_ENTRIES	0
#define KUTRACE_GETLOST_BLOCKS	1
#define KUTRACE_GETLOST_FIRST	2	/* full counter, 0: none lost */
#define KUTRACE_GETLOST_LAST	3
#define KUTRACE_GETLOST_FIELDS	4
/* Chunk files of one recording: DIR/KUTRACE_CHUNK_FMT, n = 0, 1, ... */
#define KUTRACE_CHUNK_FMT	"kt_%06lu.trace"
#define KUTRACE_CMD_INSERT1_FORCED	(~(kutrace_u64)KUTRACE_CMD_INSERT1)
#define KUTRACE_CMD_INSERTN_FORCED	(~(kutrace_u64)KUTRACE_CMD_INSERTN)
#define KUTRACE_CMD_ERROR	(~(kutrace_u64)0)	/* in-band error */

/*
 * /dev/kutrace ioctl: the command number is the ioctl nr, the argument is
 * a struct kutrace_ioc in/out (arg in, result out).  Forced inserts use
 * nr KUTRACE_CMD_MAX + 1 / + 2.
 */
#define KUTRACE_DEVICE		"/dev/kutrace"
#define KUTRACE_IOC_MAGIC	0xCE
#define KUTRACE_IOC_INSERT1_FORCED_NR	(KUTRACE_CMD_MAX + 1)
#define KUTRACE_IOC_INSERTN_FORCED_NR	(KUTRACE_CMD_MAX + 2)

struct kutrace_ioc {
	kutrace_u64 arg;
	kutrace_u64 result;
};

#define KUTRACE_IOC(nr)	_IOWR(KUTRACE_IOC_MAGIC, (nr), struct kutrace_ioc)

/* ---------------------------------------------------------------------- */
/* Base-40 labels for marks (docs/spec/FORMATS.md 1.5)                     */
/* ---------------------------------------------------------------------- */

#define KUTRACE_BASE40_CHARS	"\0abcdefghijklmnopqrstuvwxyz0123456789-./"
#define KUTRACE_BASE40_RADIX	40
#define KUTRACE_BASE40_MAXLEN	6
#define KUTRACE_BASE40_DOT	38	/* code for bytes outside the alphabet */

/* ---------------------------------------------------------------------- */
/* User buffers: events written by user code without a system call        */
/* (docs/spec/FORMATS.md 9)                                                */
/* ---------------------------------------------------------------------- */

/*
 * A directory (default below, or $KUTRACE_USER_DIR) that the controller
 * makes while tracing is on: a control file it alone writes, and one
 * buffer file per thread that the thread makes on its first event.
 */
#define KUTRACE_UDIR_DEFAULT	"/dev/shm/kutrace"
#define KUTRACE_UCTL_NAME	"ctl"

/* The control file: KUTRACE_UCTL_BYTES, words by these indexes. */
#define KUTRACE_UCTL_BYTES	4096
#define KUTRACE_UCTL_MAGIC_W	0
#define KUTRACE_UCTL_STATE	1	/* session << 1 | on; 0: none offered */
#define KUTRACE_UCTL_RING	2	/* ring words of a new buffer, 2^n */
#define KUTRACE_UCTL_FLAGS	3	/* KUTRACE_UFLAG_* */
#define KUTRACE_UCTL_MAGIC	0x4C5443554B54554BULL	/* "KUTUKCTL" */
#define KUTRACE_UFLAG_WRAP	1	/* flight recorder: overwrite the oldest */

/* A thread's buffer file: a header page, then the ring of words. */
#define KUTRACE_UBUF_HDR_BYTES	4096
#define KUTRACE_UBUF_MAGIC_W	0
#define KUTRACE_UBUF_IDS	1	/* pid << 32 | tid */
#define KUTRACE_UBUF_RING	2	/* ring words, 2^n */
#define KUTRACE_UBUF_RESERVED	3	/* words handed out so far, ever */
#define KUTRACE_UBUF_LOST	4	/* entries not written: ring full */
#define KUTRACE_UBUF_SESSION	5	/* the control file's session */
#define KUTRACE_UBUF_FLAGS	6	/* KUTRACE_UFLAG_* at creation */
#define KUTRACE_UBUF_COMM	8	/* 16 bytes, words 8 and 9 */
#define KUTRACE_UBUF_MAGIC	0x4655425554554B55ULL	/* "UKUTUBUF" */
#define KUTRACE_UBUF_MIN_RING	512
#define KUTRACE_UBUF_MAX_RING	0x8000000ULL	/* 2^27 words: 1 GiB */

/*
 * One entry at absolute word position p (ring slot p mod ring):
 *   word 0: 63..56 CPU | 55..0 time counter (the kernel trace's)
 *   word 1: 63..44 tag(p) | 43..32 event | 31..0 arg (a trace entry word)
 *   words 2..: a name entry's name words (event's length nibble - 1)
 * The writer stores the name words and word 0 before word 1: a word 1
 * with the right tag vouches for the rest; a stale one (an older lap,
 * or a writer killed mid-entry) has another tag.
 */
#define KUTRACE_UENTRY_CPU_SHIFT	56
#define KUTRACE_UENTRY_TIME_MASK	KUTRACE_HDR_LOW56
#define KUTRACE_UTAG_MUL		0x9E3779B1ULL

static inline kutrace_u64 kutrace_utag(kutrace_u64 pos, unsigned int ring_shift)
{
	return (pos + (pos >> ring_shift) * KUTRACE_UTAG_MUL) & KUTRACE_TS_MASK;
}

/* Words of a user entry whose word 1 carries this event; 0: not allowed. */
static inline unsigned int kutrace_uentry_words(unsigned int event)
{
	unsigned int type = event & KUTRACE_TYPE_MASK;

	if (kutrace_is_varlen(event)) {
		unsigned int len = kutrace_entry_words(event);

		if (len < 2 || len > KUTRACE_MAX_ENTRY_WORDS)
			return 0;
		if (type != KUTRACE_PIDNAME && type != KUTRACE_METHODNAME &&
		    type != KUTRACE_LOCKNAME && type != KUTRACE_QUEUE_NAME &&
		    type != KUTRACE_RES_NAME && type != KUTRACE_PACKETNAME &&
		    type != KUTRACE_FILENAME)
			return 0;
		return 1 + len;
	}
	if ((event >= KUTRACE_RPCIDREQ && event <= KUTRACE_RPCIDTXMSG) ||
	    (event >= KUTRACE_MARKA && event <= KUTRACE_LOCKWAKEUP) ||
	    (event >= KUTRACE_RX_PKT && event <= KUTRACE_TX_USER) ||
	    (event >= KUTRACE_RESOURCE && event <= KUTRACE_DEQUEUE) ||
	    (event > KUTRACE_MONITOREXIT && event <= KUTRACE_SPECIAL_HI))
		return 2;
	return 0;
}

/*
 * In the trace file, after the kernel's blocks: user blocks of
 * KUTRACE_BLOCK_BYTES, each a run of one buffer's words in position
 * order.  Word 0's top byte (255) is no CPU: older readers stop there.
 */
#define KUTRACE_UBLOCK_MAGIC	0xFF4B555553455231ULL
#define KUTRACE_UBLK_IDS	1	/* pid << 32 | tid */
#define KUTRACE_UBLK_POS	2	/* absolute position of word 8 */
#define KUTRACE_UBLK_RING	3	/* the buffer's ring words */
#define KUTRACE_UBLK_COUNT	4	/* payload words in this block */
#define KUTRACE_UBLK_LOST	5	/* the buffer's lost entries (first block) */
#define KUTRACE_UBLK_COMM	6	/* 16 bytes, words 6 and 7 */
#define KUTRACE_UBLK_WORDS	8	/* header words */
#define KUTRACE_UBLK_PAYLOAD	(KUTRACE_BLOCK_WORDS - KUTRACE_UBLK_WORDS)

/* ---------------------------------------------------------------------- */
/* Snapshots and triggers (docs/spec/FORMATS.md 11)                        */
/* ---------------------------------------------------------------------- */

/*
 * kutrace extension: a trigger fired (a program's kutrace_trigger(), or
 * one the flight recorder found), KUTRACE_TRIGGER_WORDS words, event 0x189:
 *   word 0: arg 7..0 KUTRACE_TRIG_*
 *   word 1: full counter (55..0) of the triggering interval's start
 *   word 2: full counter (55..0) of its end (= word 1 for an instant)
 *   words 3..7: the reason, text, NUL-padded (KUTRACE_TRIGGER_TEXT bytes)
 */
#define KUTRACE_TRIGGER		0x109
#define KUTRACE_TRIGGER_WORDS	8
#define KUTRACE_TRIGGER_EVENT	(KUTRACE_TRIGGER | \
				 (KUTRACE_TRIGGER_WORDS << KUTRACE_LEN_SHIFT))
#define KUTRACE_TRIGGER_TEXT	40
#define KUTRACE_TRIG_KIND_MASK	0xFFULL
#define KUTRACE_TRIG_CALL	1	/* a program called kutrace_trigger() */
#define KUTRACE_TRIG_SYSCALL	2	/* one system call longer than a bound */
#define KUTRACE_TRIG_RPC	3	/* one RPC longer than a bound */
#define KUTRACE_TRIG_CRASH	4	/* a process died of a signal */
#define KUTRACE_TRIG_EXIT	5	/* a named process exited */
#define KUTRACE_TRIG_DEMAND	6	/* a snapshot asked for (kutrace snapshot) */
#define KUTRACE_TRIGGER_MARK	0x285	/* postprocessing only: the mark row */

#endif /* KUTRACE_FORMAT_H */

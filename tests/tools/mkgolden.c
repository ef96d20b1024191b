// SPDX-License-Identifier: BSD-3-Clause
/*
 * mkgolden - writes the small hand-designed raw traces behind the golden
 * tests (the tests/golden traces are committed; this program documents how
 * they were made and lets anyone regenerate them).
 *
 *   mkgolden basic OUT.trace     two CPUs: fused and unfused syscalls, an
 *                                interrupt inside a syscall, a thread that
 *                                blocks in read() and resumes inside it
 *                                after a wakeup, idle with mwait, a mark,
 *                                a page fault, PC samples, the 4.19-era
 *                                scheduler number 0x9FF and a name entry
 *                                keyed by pid & 0xFFFF (original layout).
 *
 *   mkgolden sched OUT.trace     interrupts inside the scheduler span
 *                                (tests/t_postproc.sh, not committed).
 *
 *   mkgolden rpc OUT.trace       an RPC arrives as a packet, is queued by
 *                                the server thread and taken off the queue
 *                                by a worker, which blocks and resumes
 *                                (RPC mid row) and whose reply leaves as a
 *                                packet: message rows (5.8) and a queue
 *                                span (5.3 step 7).
 *
 *   mkgolden exec|ipi|edges|lost OUT  a thread renamed by exec; IPI arcs to an
 *                                idle CPU; the first and last span of each
 *                                CPU against a known timeline (see below).
 *
 * Every time is an offset in ticks (50 ticks/usec, 1 tick = 2 nsec10) from
 * the start counter; the expected JSON is tests/golden/basic.json.
 *
 * The traces look alike line for line on purpose: each writes out every
 * entry, time and all, one call per entry in the order written, so that a
 * golden row can be traced to the entries that made it; helpers for the
 * recurring steps (a switch, a fused call) would hide the times.
 */
#include <stdio.h>
#include <string.h>

#include "tool.h"
#include "rawwrite.h"

#define C0 1000000000000ULL
#define T(x) (C0 + (x))

/* Every golden trace: two CPUs, 50 ticks/usec, the same start. */
static struct kt_rw *two_cpus(const char *path)
{
	struct kt_rw_options o = {
		.ncpu = 2, .ticks_per_usec = 50.0, .start_ctr = C0,
		.start_usec = 1700000000000000ULL,	/* 2023-11-14 22:13:20 UTC */
	};

	char err[256];
	struct kt_rw *w = kt_rw_create(path, &o, err, sizeof(err));

	if (!w)
		kt_die("%s", err);
	return w;
}

static void close_trace(struct kt_rw *w, uint64_t stop)
{
	if (kt_rw_close(w, stop, NULL) < 0)
		kt_die("%s", kt_rw_error(w));
	kt_rw_free(w);
}

static void basic(const char *path)
{
	struct kt_rw *w = two_cpus(path);

	kt_rw_set_task(w, 0, 1234, "hello");
	kt_rw_set_task(w, 1, 70000, "worker");
	kt_rw_name(w, 0, T(1), KUTRACE_KERNEL_VER, 0, "#1 SMP Debian 6.1.0");
	kt_rw_name(w, 0, T(1), KUTRACE_MODEL_NAME, 0, "Test CPU @ 3.20GHz");
	kt_rw_name(w, 0, T(1), KUTRACE_HOST_NAME, 0, "golden");
	kt_rw_name(w, 0, T(1), KUTRACE_SYSCALL64NAME, 0, "read");
	kt_rw_name(w, 0, T(1), KUTRACE_SYSCALL64NAME, 1, "write");
	kt_rw_name(w, 0, T(1), KUTRACE_SYSCALL64NAME, 39, "getpid");
	kt_rw_name(w, 0, T(1), KUTRACE_TRAPNAME, 14, "page_fault");
	kt_rw_name(w, 0, T(1), KUTRACE_INTERRUPTNAME, 236, "local_timer_vector");
	kt_rw_name(w, 0, T(1), KUTRACE_PIDNAME, 1234, "hello");
	/* The original module keys thread names by pid & 0xFFFF. */
	kt_rw_name(w, 0, T(1), KUTRACE_PIDNAME, 70000 & 0xFFFF, "worker");
	kt_rw_trace1(w, 0, T(2), KUTRACE_USERPID, 1234, 0);

	/* CPU 0: hello.1234 */
	kt_rw_trace1(w, 0, T(100), KUTRACE_SYSCALL64 + 39, 0, 0);	/* getpid */
	kt_rw_trace1(w, 0, T(105), KUTRACE_SYSRET64 + 39, 42, 0);	/* fused */
	kt_rw_trace1(w, 0, T(200), KUTRACE_SYSCALL64 + 1, 1, 0);	/* write(1) */
	kt_rw_trace1(w, 0, T(300), KUTRACE_IRQ + 236, 0, 0);
	kt_rw_trace1(w, 0, T(310), KUTRACE_IRQRET + 236, 0, 0);	/* fused */
	kt_rw_trace2(w, 0, T(311), KUTRACE_PC_U, 0, 0xffffffff81000040ULL);
	kt_rw_trace1(w, 0, T(400), KUTRACE_SYSRET64 + 1, 9, 0);
	kt_rw_trace1(w, 0, T(450), KUTRACE_MARKA, kt_base40_encode("hello"), 0);
	kt_rw_trace1(w, 0, T(500), KUTRACE_SYSCALL64 + 0, 3, 0);	/* read(3) */
	kt_rw_trace1(w, 0, T(510), KUTRACE_SCHED_CALL_OLD, 0, 0);
	kt_rw_trace1(w, 0, T(520), KUTRACE_USERPID, 0, 0);		/* -> idle */
	kt_rw_trace1(w, 0, T(530), KUTRACE_SCHED_RET_OLD, 0, 0);
	kt_rw_trace1(w, 0, T(600), KUTRACE_MWAIT, 0x20, 0);
	/* CPU 1: worker.70000 wakes hello */
	kt_rw_trace1(w, 1, T(150), KUTRACE_USERPID, 70000, 0);
	kt_rw_trace1(w, 1, T(160), KUTRACE_SCHED_RET_OLD, 0, 0);
	kt_rw_trace1(w, 1, T(700), KUTRACE_SYSCALL64 + 1, 5, 0);	/* write(5) */
	kt_rw_trace1(w, 1, T(720), KUTRACE_RUNNABLE, 1234, 0);
	kt_rw_trace1(w, 1, T(740), KUTRACE_SYSRET64 + 1, 1, 0);
	kt_rw_trace1(w, 1, T(900), KUTRACE_TRAP + 14, 0x1000, 0);
	kt_rw_trace1(w, 1, T(910), KUTRACE_TRAPRET + 14, 0, 0);	/* fused */
	/* CPU 0: hello resumes inside read() */
	kt_rw_trace1(w, 0, T(2000), KUTRACE_SCHED_CALL_OLD, 0, 0);
	kt_rw_trace1(w, 0, T(2010), KUTRACE_USERPID, 1234, 0);
	kt_rw_trace1(w, 0, T(2020), KUTRACE_SCHED_RET_OLD, 0, 0);
	kt_rw_trace1(w, 0, T(2100), KUTRACE_SYSRET64 + 0, 0xFFF2, 0);	/* -14 */
	kt_rw_trace1(w, 0, T(3000), KUTRACE_SYSCALL64 + 39, 0, 0);
	kt_rw_trace1(w, 1, T(3000), KUTRACE_SYSCALL64 + 39, 0, 0);
	close_trace(w, T(5000));
}

static void rpc(const char *path)
{
	struct kt_rw *w = two_cpus(path);

	kt_rw_set_task(w, 0, 500, "server");
	kt_rw_set_task(w, 1, 600, "worker");
	kt_rw_name(w, 0, T(1), KUTRACE_PIDNAME, 500, "server");
	kt_rw_name(w, 0, T(1), KUTRACE_PIDNAME, 600, "worker");
	/* On the other CPU: its block is decoded after the request uses it. */
	kt_rw_name(w, 1, T(1), KUTRACE_METHODNAME, 77, "getData");
	kt_rw_name(w, 0, T(1), KUTRACE_QUEUE_NAME, 3, "workq");
	kt_rw_name(w, 0, T(1), KUTRACE_SYSCALL64NAME, 0, "read");
	kt_rw_trace1(w, 0, T(2), KUTRACE_USERPID, 500, 0);
	kt_rw_trace1(w, 1, T(2), KUTRACE_USERPID, 600, 0);
	/* Request: packet at T(100), 1024 bytes (lglen8 100) for RPC 77. */
	kt_rw_trace1(w, 0, T(100), KUTRACE_RX_PKT, 0x12345678, 0);
	kt_rw_trace1(w, 0, T(150), KUTRACE_RX_USER, 0x12345678, 0);
	kt_rw_trace1(w, 0, T(160), KUTRACE_RPCIDREQ, 100 << 16 | 77, 0);
	/* The server queues it on queue 3 and goes back to no RPC. */
	kt_rw_trace1(w, 0, T(200), KUTRACE_ENQUEUE, 3, 0);
	kt_rw_trace1(w, 0, T(210), KUTRACE_RPCIDREQ, 0, 0);
	/* A worker takes it off and works on RPC 77. */
	kt_rw_trace1(w, 1, T(400), KUTRACE_DEQUEUE, 3, 0);
	kt_rw_trace1(w, 1, T(410), KUTRACE_RPCIDREQ, 77, 0);
	/* It blocks in read() and resumes: an RPC mid row "getData.77". */
	kt_rw_trace1(w, 1, T(450), KUTRACE_SYSCALL64 + 0, 3, 0);
	kt_rw_trace1(w, 1, T(455), KUTRACE_SCHED_CALL, 0, 0);
	kt_rw_trace1(w, 1, T(460), KUTRACE_USERPID, 0, 0);
	kt_rw_trace1(w, 1, T(465), KUTRACE_SCHED_RET, 0, 0);
	kt_rw_trace1(w, 1, T(480), KUTRACE_SCHED_CALL, 0, 0);
	kt_rw_trace1(w, 1, T(485), KUTRACE_USERPID, 600, 0);
	kt_rw_trace1(w, 1, T(490), KUTRACE_SCHED_RET, 0, 0);
	kt_rw_trace1(w, 1, T(495), KUTRACE_SYSRET64 + 0, 64, 0);
	/* Reply: 256 bytes (lglen8 80), sent as a packet at T(520). */
	kt_rw_trace1(w, 1, T(500), KUTRACE_RPCIDRESP, 80 << 16 | 77, 0);
	kt_rw_trace1(w, 1, T(510), KUTRACE_TX_USER, 0xCAFE0001, 0);
	kt_rw_trace1(w, 1, T(520), KUTRACE_TX_PKT, 0xCAFE0001, 0);
	kt_rw_trace1(w, 1, T(530), KUTRACE_RPCIDRESP, 0, 0);
	close_trace(w, T(1000));
}

/*
 * Patched kernels hook __schedule() before it disables interrupts, so a
 * timer tick can land inside the scheduler span.  CPU 0: thread a is
 * preempted on its way back to user code (scheduler entered with no
 * syscall open), takes a tick inside the scheduler and switches to b; b
 * later blocks in read() and a comes back.  CPU 1: c takes a tick inside
 * the scheduler entered from read() and switches to idle.
 */
static void sched(const char *path)
{
	struct kt_rw *w = two_cpus(path);

	kt_rw_set_task(w, 0, 100, "a");
	kt_rw_set_task(w, 1, 300, "c");
	kt_rw_name(w, 0, T(1), KUTRACE_SYSCALL64NAME, 0, "read");
	kt_rw_name(w, 0, T(1), KUTRACE_INTERRUPTNAME, 236, "local_timer_vector");
	kt_rw_name(w, 0, T(1), KUTRACE_PIDNAME, 100, "a");
	kt_rw_name(w, 0, T(1), KUTRACE_PIDNAME, 200, "b");
	kt_rw_name(w, 0, T(1), KUTRACE_PIDNAME, 300, "c");
	kt_rw_trace1(w, 0, T(2), KUTRACE_USERPID, 100, 0);
	kt_rw_trace1(w, 0, T(100), KUTRACE_IRQ + 236, 0, 0);
	kt_rw_trace1(w, 0, T(105), KUTRACE_IRQRET + 236, 0, 0);
	kt_rw_trace1(w, 0, T(110), KUTRACE_SCHED_CALL, 0, 0);
	kt_rw_trace1(w, 0, T(120), KUTRACE_IRQ + 236, 0, 0);		/* in sched */
	kt_rw_trace1(w, 0, T(130), KUTRACE_IRQRET + 236, 0, 0);
	kt_rw_trace1(w, 0, T(140), KUTRACE_USERPID, 200, 0);
	kt_rw_trace1(w, 0, T(150), KUTRACE_SCHED_RET, 0, 0);
	kt_rw_trace1(w, 0, T(400), KUTRACE_SYSCALL64 + 0, 3, 0);
	kt_rw_trace1(w, 0, T(410), KUTRACE_SCHED_CALL, 0, 0);
	kt_rw_trace1(w, 0, T(420), KUTRACE_USERPID, 100, 0);
	kt_rw_trace1(w, 0, T(430), KUTRACE_SCHED_RET, 0, 0);
	kt_rw_trace1(w, 0, T(600), KUTRACE_IRQ + 236, 0, 0);

	kt_rw_trace1(w, 1, T(50), KUTRACE_USERPID, 300, 0);
	kt_rw_trace1(w, 1, T(60), KUTRACE_SCHED_RET, 0, 0);
	kt_rw_trace1(w, 1, T(200), KUTRACE_SYSCALL64 + 0, 4, 0);
	kt_rw_trace1(w, 1, T(210), KUTRACE_SCHED_CALL, 0, 0);
	kt_rw_trace1(w, 1, T(220), KUTRACE_IRQ + 236, 0, 0);		/* in sched */
	kt_rw_trace1(w, 1, T(240), KUTRACE_IRQRET + 236, 0, 0);
	kt_rw_trace1(w, 1, T(250), KUTRACE_USERPID, 0, 0);
	kt_rw_trace1(w, 1, T(260), KUTRACE_SCHED_RET, 0, 0);
	kt_rw_trace1(w, 1, T(600), KUTRACE_IRQ + 236, 0, 0);
	close_trace(w, T(1000));
}

/*
 * A thread execs (sh -> cat): the module writes the new name at the exec.
 * Spans before it carry the old name, spans after it the new one, and a
 * row label names the thread "sh+cat".  The other CPU keeps running, so
 * its events interleave with the rename.
 */
static void exec(const char *path)
{
	struct kt_rw *w = two_cpus(path);

	kt_rw_set_task(w, 0, 800, "sh");
	kt_rw_set_task(w, 1, 900, "worker");
	kt_rw_name(w, 0, T(1), KUTRACE_SYSCALL64NAME, 0, "read");
	kt_rw_name(w, 0, T(1), KUTRACE_SYSCALL64NAME, 1, "write");
	kt_rw_name(w, 0, T(1), KUTRACE_SYSCALL64NAME, 39, "getpid");
	kt_rw_name(w, 0, T(1), KUTRACE_SYSCALL64NAME, 59, "execve");
	kt_rw_name(w, 0, T(1), KUTRACE_PIDNAME, 800, "sh");
	kt_rw_name(w, 0, T(1), KUTRACE_PIDNAME, 900, "worker");
	kt_rw_trace1(w, 0, T(2), KUTRACE_USERPID, 800, 0);
	kt_rw_trace1(w, 1, T(3), KUTRACE_USERPID, 900, 0);
	kt_rw_trace1(w, 0, T(100), KUTRACE_SYSCALL64 + 1, 1, 0);	/* write */
	kt_rw_trace1(w, 0, T(110), KUTRACE_SYSRET64 + 1, 12, 0);
	kt_rw_trace1(w, 1, T(150), KUTRACE_SYSCALL64 + 39, 0, 0);
	kt_rw_trace1(w, 1, T(155), KUTRACE_SYSRET64 + 39, 900, 0);
	kt_rw_trace1(w, 0, T(200), KUTRACE_SYSCALL64 + 59, 0, 0);	/* execve */
	kt_rw_name(w, 0, T(250), KUTRACE_PIDNAME, 800, "cat");
	kt_rw_trace1(w, 0, T(300), KUTRACE_SYSRET64 + 59, 0, 0);
	kt_rw_trace1(w, 1, T(320), KUTRACE_SYSCALL64 + 39, 0, 0);
	kt_rw_trace1(w, 1, T(325), KUTRACE_SYSRET64 + 39, 900, 0);
	kt_rw_trace1(w, 0, T(400), KUTRACE_SYSCALL64 + 0, 3, 0);	/* read */
	kt_rw_trace1(w, 0, T(450), KUTRACE_SYSRET64 + 0, 4096, 0);
	/* bash.901, first seen at T(500), execs ls: its label starts with the trace */
	kt_rw_name(w, 1, T(480), KUTRACE_PIDNAME, 901, "bash");
	kt_rw_trace1(w, 1, T(490), KUTRACE_SCHED_CALL, 0, 0);
	kt_rw_trace1(w, 1, T(500), KUTRACE_USERPID, 901, 0);
	kt_rw_trace1(w, 1, T(510), KUTRACE_SCHED_RET, 0, 0);
	kt_rw_trace1(w, 1, T(520), KUTRACE_SYSCALL64 + 59, 0, 0);
	kt_rw_name(w, 1, T(550), KUTRACE_PIDNAME, 901, "ls");
	kt_rw_trace1(w, 1, T(580), KUTRACE_SYSRET64 + 59, 0, 0);
	kt_rw_trace1(w, 0, T(600), KUTRACE_SYSCALL64 + 1, 1, 0);
	kt_rw_trace1(w, 1, T(600), KUTRACE_SYSCALL64 + 39, 0, 0);
	close_trace(w, T(1000));
}

/*
 * IPIs to an idle CPU.  CPU 1 idles from its first block on, silent until
 * the first IPI: the arc ends at its reschedule_ipi.  Its first entry, a
 * switch to pid 0 outside the scheduler, is the module's note of the task
 * at the trace start (kt_note_current): CPU 1 stays idle through it.
 * Later CPU 1 idles after an mwait: the second arc ends where the c-exit
 * before the reschedule_ipi starts.  CPU 0 forks a child (runnable).
 */
static void ipi(const char *path)
{
	struct kt_rw *w = two_cpus(path);

	kt_rw_set_task(w, 0, 300, "ping");
	kt_rw_set_task(w, 1, 0, "swapper/1");
	kt_rw_name(w, 0, T(1), KUTRACE_SYSCALL64NAME, 0, "read");
	kt_rw_name(w, 0, T(1), KUTRACE_SYSCALL64NAME, 1, "write");
	kt_rw_name(w, 0, T(1), KUTRACE_SYSCALL64NAME, 56, "clone");
	kt_rw_name(w, 0, T(1), KUTRACE_INTERRUPTNAME, 253, "reschedule_ipi");
	kt_rw_name(w, 0, T(1), KUTRACE_PIDNAME, 300, "ping");
	kt_rw_name(w, 0, T(1), KUTRACE_PIDNAME, 301, "pong");
	kt_rw_trace1(w, 0, T(2), KUTRACE_USERPID, 300, 0);
	kt_rw_trace1(w, 1, T(3), KUTRACE_USERPID, 0, 0);
	/* ping forks pong (clone returns its pid) and wakes it on CPU 1 */
	kt_rw_trace1(w, 0, T(50), KUTRACE_SYSCALL64 + 56, 0, 0);
	kt_rw_trace1(w, 0, T(90), KUTRACE_SYSRET64 + 56, 301, 0);
	kt_rw_trace1(w, 0, T(100), KUTRACE_SYSCALL64 + 1, 1, 0);
	kt_rw_trace1(w, 0, T(110), KUTRACE_IPI, 1, 0);
	kt_rw_trace1(w, 0, T(130), KUTRACE_SYSRET64 + 1, 1, 0);
	kt_rw_trace1(w, 1, T(400), KUTRACE_IRQ + 253, 0, 0);
	kt_rw_trace1(w, 1, T(410), KUTRACE_IRQRET + 253, 0, 0);
	kt_rw_trace1(w, 1, T(420), KUTRACE_SCHED_CALL, 0, 0);
	kt_rw_trace1(w, 1, T(430), KUTRACE_USERPID, 301, 0);
	kt_rw_trace1(w, 1, T(440), KUTRACE_SCHED_RET, 0, 0);
	/* pong blocks in read; CPU 1 idles in mwait 0x20 */
	kt_rw_trace1(w, 1, T(600), KUTRACE_SYSCALL64 + 0, 3, 0);
	kt_rw_trace1(w, 1, T(610), KUTRACE_SCHED_CALL, 0, 0);
	kt_rw_trace1(w, 1, T(620), KUTRACE_USERPID, 0, 0);
	kt_rw_trace1(w, 1, T(630), KUTRACE_SCHED_RET, 0, 0);
	kt_rw_trace1(w, 1, T(640), KUTRACE_MWAIT, 0x20, 0);
	/* second IPI: c-exit (13.3 us) starts at T(2335), after the send */
	kt_rw_trace1(w, 0, T(2000), KUTRACE_SYSCALL64 + 1, 1, 0);
	kt_rw_trace1(w, 0, T(2010), KUTRACE_IPI, 1, 0);
	kt_rw_trace1(w, 0, T(2020), KUTRACE_SYSRET64 + 1, 1, 0);
	kt_rw_trace1(w, 1, T(3000), KUTRACE_IRQ + 253, 0, 0);
	kt_rw_trace1(w, 1, T(3010), KUTRACE_IRQRET + 253, 0, 0);
	kt_rw_trace1(w, 1, T(3020), KUTRACE_SCHED_CALL, 0, 0);
	kt_rw_trace1(w, 1, T(3030), KUTRACE_USERPID, 301, 0);
	kt_rw_trace1(w, 1, T(3040), KUTRACE_SCHED_RET, 0, 0);
	kt_rw_trace1(w, 1, T(3050), KUTRACE_SYSRET64 + 0, 0, 0);
	kt_rw_trace1(w, 0, T(3100), KUTRACE_SYSCALL64 + 0, 4, 0);
	close_trace(w, T(4000));
}

/*
 * The edges of each CPU's timeline, with a known truth.  CPU 0's first
 * block is opened by a name entry at T(10) while prog.700 runs user code;
 * it marks at T(300) and calls write at T(800): prog.700 is in user code
 * from T(10) to T(800) (the mark splits it).  CPU 1's first block is
 * opened at T(20) inside an interrupt handler taken in idle, whose return
 * at T(300) is CPU 1's first event: the handler runs from T(20).  The
 * trace's last event is CPU 1's at T(1200): CPU 0 runs prog.700's user
 * code from the write's return at T(900) to T(1200), CPU 1 idles from
 * T(300) on, in MWAIT from T(1200) to the stop time T(2000).
 */
static void edges(const char *path)
{
	struct kt_rw *w = two_cpus(path);

	kt_rw_set_task(w, 0, 700, "prog");
	kt_rw_set_task(w, 1, 0, "swapper/1");
	kt_rw_name(w, 0, T(10), KUTRACE_SYSCALL64NAME, 1, "write");
	kt_rw_name(w, 1, T(20), KUTRACE_INTERRUPTNAME, 236, "local_timer_vector");
	kt_rw_trace1(w, 0, T(300), KUTRACE_MARKA, kt_base40_encode("start"), 0);
	kt_rw_trace1(w, 1, T(300), KUTRACE_IRQRET + 236, 0, 0);
	kt_rw_trace1(w, 0, T(800), KUTRACE_SYSCALL64 + 1, 1, 0);
	kt_rw_trace1(w, 0, T(900), KUTRACE_SYSRET64 + 1, 0x2000, 0);
	kt_rw_trace1(w, 1, T(1200), KUTRACE_MWAIT, 0x20, 0);
	close_trace(w, T(2000));
}

/*
 * Entries lost on a CPU (docs/spec/FORMATS.md 10.4), with a known truth.
 * CPU 0's prog.700 calls getpid at T(100) (returns at T(150)) and runs
 * user code until T(300); then CPU 0 loses 12345 entries until T(800),
 * where its next entries begin with the LOST entry; it calls getpid
 * again at T(900) (returns at T(950)).  CPU 1 idles and marks at T(500).
 * prog.700's user span ends at T(300), -lost- covers T(300)..T(800), and
 * the header's task (prog.700) runs user code again from T(800).
 */
static void lost(const char *path)
{
	struct kt_rw *w = two_cpus(path);

	kt_rw_set_task(w, 0, 700, "prog");
	kt_rw_set_task(w, 1, 0, "swapper/1");
	kt_rw_name(w, 0, T(10), KUTRACE_SYSCALL64NAME, 39, "getpid");
	kt_rw_trace1(w, 0, T(100), KUTRACE_SYSCALL64 + 39, 0, 0);
	kt_rw_trace1(w, 0, T(150), KUTRACE_SYSRET64 + 39, 700, 0);
	kt_rw_trace1(w, 1, T(500), KUTRACE_MARKA, kt_base40_encode("tick"), 0);
	kt_rw_lost(w, 0, T(800), 0, KUTRACE_LOST_READER, 0, 12345, T(300), T(800));
	kt_rw_trace1(w, 0, T(900), KUTRACE_SYSCALL64 + 39, 0, 0);
	kt_rw_trace1(w, 0, T(950), KUTRACE_SYSRET64 + 39, 700, 0);
	close_trace(w, T(2000));
}

int main(int argc, char **argv)
{
	kt_set_progname(argv[0]);
	if (argc == 3 && !strcmp(argv[1], "basic")) {
		basic(argv[2]);
	} else if (argc == 3 && !strcmp(argv[1], "rpc")) {
		rpc(argv[2]);
	} else if (argc == 3 && !strcmp(argv[1], "sched")) {
		sched(argv[2]);
	} else if (argc == 3 && !strcmp(argv[1], "exec")) {
		exec(argv[2]);
	} else if (argc == 3 && !strcmp(argv[1], "ipi")) {
		ipi(argv[2]);
	} else if (argc == 3 && !strcmp(argv[1], "edges")) {
		edges(argv[2]);
	} else if (argc == 3 && !strcmp(argv[1], "lost")) {
		lost(argv[2]);
	} else {
		fprintf(stderr, "usage: mkgolden basic|rpc|sched|exec|ipi|edges|lost OUT.trace\n");
		return 2;
	}
	return 0;
}

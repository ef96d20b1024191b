// SPDX-License-Identifier: BSD-3-Clause
/*
 * unit_span - cmocka unit tests of the span builder (lib/spans/span.c): events,
 * as kt_decode_block passes them on, to timespan rows, one test per kind
 * of nesting.  Each row is compared, in the order the builder hands them
 * out, as "start dur cpu pid rpc event arg retval ipc name" (event in
 * hex), with the expected rows worked out from docs/spec/FORMATS.md 5 and
 * the differences docs/FORMAT.md lists.
 *
 * The tests look alike line for line on purpose: each spells out its
 * events and expected rows in full, so that every row can be checked
 * against the spec by hand; generating them would copy the rules tested.
 */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "tool.h"

#define MAXROW	32

struct got {
	int n;
	char row[MAXROW][160];
};

static struct got g;
static struct kt_spans *S;

static void take(void *ctx, const struct kt_row *r)
{
	struct got *x = ctx;

	if (x->n < MAXROW) {
		char ev[16];

		/* an event in hex; the negative ones (-wakeup- ...) in decimal */
		snprintf(ev, sizeof(ev), r->event >= 0 ? "%#x" : "%d", r->event);
		snprintf(x->row[x->n], sizeof(x->row[0]),
			 "%" PRId64 " %" PRId64 " %d %d %d %s %" PRId64 " %" PRId64 " %d %s",
			 r->start, r->dur, r->cpu, r->pid, r->rpc, ev,
			 r->arg, r->retval, r->ipc, r->name);
	}
	x->n++;
}

static int setup(void **state)
{
	(void)state;
	memset(&g, 0, sizeof(g));
	S = kt_spans_new(take, &g);
	return S ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	kt_spans_free(S);
	return 0;
}

/* One event; name records (0x010..0x1FF) carry the named number in arg. */
static void E(int64_t t, int64_t dur, int event, int cpu, int pid, int64_t arg,
	      int64_t retval, int ipc, const char *name)
{
	struct kt_event e = {
		.t = t, .dur = dur, .event = event, .cpu = cpu, .pid = pid,
		.arg = arg, .retval = retval, .ipc = ipc, .name = kt_intern(name),
	};

	kt_spans_event(S, &e);
}

/* A thread's name record, as the decoder passes it on (L = 2 or 3). */
static void pidname(int64_t t, int pid, const char *name)
{
	E(t, 1, KUTRACE_PIDNAME | (strlen(name) > 8 ? 3 : 2) << KUTRACE_LEN_SHIFT,
	  0, 0, pid, 0, 0, name);
}

static void expect(const char *const *want, int n)
{
	int bad;

	kt_spans_finish(S);
	bad = g.n != n;
	for (int i = 0; i < n && i < g.n; i++)
		bad |= strcmp(g.row[i], want[i]) != 0;
	if (!bad)
		return;
	for (int i = 0; i < n || i < g.n; i++)
		print_message("%2d %-50s | %s\n", i, i < g.n ? g.row[i] : "(none)",
			      i < n ? want[i] : "(none)");
	fail_msg("%d rows, %d expected (got | want above)", g.n, n);
}

#define USER(pid)	(KUTRACE_USER_BASE + (pid))
#define READ		(KUTRACE_SYSCALL64 + 0)
#define WRITE		(KUTRACE_SYSCALL64 + 1)
#define FUTEX		(KUTRACE_SYSCALL64 + 202)
#define PF		(KUTRACE_TRAP + 14)
#define TIMER		(KUTRACE_IRQ + 0xEC)
#define RET		KUTRACE_RET_BIT

/*
 * Calls and returns nest (5.4 rule 10): the first switch of a CPU starts
 * its thread's user span; a call closes the span below it, a return
 * closes its own (retval = the return's, ipc = the return's low nibble)
 * and restarts the one below with the return's arg and retval; a fused
 * call is its own row (ipc = the high nibble) and the span below resumes
 * after it; a mark splits the open span with a point row.
 */
static void test_nesting(void **state)
{
	(void)state;
	pidname(900, 10, "a");
	E(1000, 1, KUTRACE_USERPID, 0, 10, 0, 0, 0, "a.10");
	E(1100, 0, READ, 0, 10, 3, 0, 0, "read");
	E(1150, 0, PF, 0, 10, 0x1234, 0, 0, "page_fault");
	E(1180, 0, PF + RET, 0, 10, 0, 0, 0, "/page_fault");
	E(1200, 0, READ + RET, 0, 10, 0, 5, 0x35, "/read");
	E(1300, 40, WRITE, 0, 10, 1, 12, 0x72, "write");
	E(1500, 1, KUTRACE_MARKA, 0, 10, 1, 0, 0, "mark_a=a");
	const char *want[] = {
		"1000 100 0 10 0 0x1000a 0 0 0 a.10",
		"1100 50 0 10 0 0x800 3 0 0 read",
		"1150 30 0 10 0 0x40e 4660 0 0 page_fault",
		"1180 20 0 10 0 0x800 0 5 5 read",
		"1200 100 0 10 0 0x1000a 0 5 2 a.10",
		"1300 40 0 10 0 0x801 1 12 7 write",
		"1340 160 0 10 0 0x1000a 0 5 0 a.10",
		"1500 1 0 10 0 0x20a 1 0 0 mark_a=a",
	};
	expect(want, 8);
}

/*
 * An interrupt inside a syscall nests above it (level 3 over 1) and the
 * syscall resumes after it; a thread made runnable there gets a wakeup
 * arc to its next event (on another CPU: arg = that CPU, retval = its
 * pid, from the waker's CPU and pid, 5.6).  The last span of each CPU
 * lasts to the end of the trace.
 */
static void test_irq_in_syscall(void **state)
{
	(void)state;
	E(1000, 1, KUTRACE_USERPID, 0, 20, 0, 0, 0, "b.20");
	E(1100, 0, READ, 0, 20, 0, 0, 0, "read");
	E(1150, 0, TIMER, 0, 20, 0, 0, 0, "local_timer_vector");
	E(1160, 1, KUTRACE_RUNNABLE, 0, 20, 30, 0, 0, "runnable.30");
	E(1170, 0, TIMER + RET, 0, 20, 0, 0, 0, "/local_timer_vector");
	E(1200, 0, READ + RET, 0, 20, 0, 7, 0, "/read");
	E(1300, 1, KUTRACE_USERPID, 1, 30, 0, 0, 0, "c.30");
	E(1400, 0, READ, 1, 30, 0, 0, 0, "read");
	const char *want[] = {
		"1000 100 0 20 0 0x10014 0 0 0 b.20",
		"1100 50 0 20 0 0x800 0 0 0 read",
		"1160 1 0 20 0 0x206 30 0 0 runnable.30",
		"1150 20 0 20 0 0x5ec 0 0 0 local_timer_vector",
		"1170 30 0 20 0 0x800 0 7 0 read",
		"1300 100 1 30 0 0x1001e 0 0 0 c.30",
		"1160 240 0 20 0 -3 1 30 0 -wakeup-",
		"1200 200 0 20 0 0x10014 0 7 0 b.20",
	};
	expect(want, 8);
}

/*
 * A context switch inside a call (5.4 rule 5, 5.5): thread 10 blocks in
 * futex; thread 20, never seen, starts inside the scheduler and runs user
 * code after its return; when 10 comes back its saved stack resumes the
 * scheduler and then futex (a return is kernel-only: the ambiguity goes;
 * an interrupt there nests in futex), and its time off the CPU is a
 * wait_cpu row (5.4 rule 10d).  The
 * scheduler span in which the switch happened belongs to the old thread.
 */
static void test_switch_in_call(void **state)
{
	(void)state;
	E(1000, 1, KUTRACE_USERPID, 0, 10, 0, 0, 0, "a.10");
	E(1100, 0, FUTEX, 0, 10, 0, 0, 0, "futex");
	E(1120, 0, KUTRACE_SCHED_CALL, 0, 10, 0, 0, 0, "-sched-");
	E(1130, 0, KUTRACE_USERPID, 0, 20, 20, 0, 0, "b.20");
	E(1140, 0, KUTRACE_SCHED_RET, 0, 20, 0, 0, 0, "/-sched-");
	E(1300, 0, KUTRACE_SCHED_CALL, 0, 20, 0, 0, 0, "-sched-");
	E(1310, 0, KUTRACE_USERPID, 0, 10, 10, 0, 0, "a.10");
	E(1320, 0, KUTRACE_SCHED_RET, 0, 10, 0, 0, 0, "/-sched-");
	E(1350, 0, TIMER, 0, 10, 0, 0, 0, "local_timer_vector");
	E(1360, 0, TIMER + RET, 0, 10, 0, 0, 0, "/local_timer_vector");
	E(1400, 0, FUTEX + RET, 0, 10, 0, 0, 0, "/futex");
	E(1500, 1, KUTRACE_MARKA, 0, 10, 1, 0, 0, "mark_a=a");
	const char *want[] = {
		"1000 100 0 10 0 0x1000a 0 0 0 a.10",
		"1100 20 0 10 0 0x8ca 0 0 0 futex",
		"1120 20 0 10 0 0xdff 0 0 0 -sched-",
		"1140 160 0 20 0 0x10014 0 0 0 b.20",
		"1300 20 0 20 0 0xdff 0 0 0 -sched-",
		"1141 179 -1 10 0 0x302 0 0 0 wait_cpu",
		"1320 30 0 10 0 0x8ca 0 0 0 futex",
		"1350 10 0 10 0 0x5ec 0 0 0 local_timer_vector",
		"1360 40 0 10 0 0x8ca 0 0 0 futex",
		"1400 100 0 10 0 0x1000a 0 0 0 a.10",
		"1500 1 0 10 0 0x20a 1 0 0 mark_a=a",
	};
	expect(want, 11);
}

/*
 * Idle (5.7): pid 0 is -idle-; an MWAIT splits it, the rest is -idlelp-
 * with arg 1; the next event inserts a -c-exit- ending at it (hint 0x01:
 * 10 * 10 nsec10 by the default table), after which idle resumes as
 * -idle- arg 0; an interrupt from idle returns to idle.
 */
static void test_idle(void **state)
{
	(void)state;
	E(1000, 1, KUTRACE_USERPID, 0, 0, 0, 0, 0, "-idle-.0");
	E(1500, 1, KUTRACE_MWAIT, 0, 0, 0x01, 0, 0, "mwait");
	E(2000, 0, TIMER, 0, 0, 0, 0, 0, "local_timer_vector");
	E(2050, 0, TIMER + RET, 0, 0, 0, 0, 0, "/local_timer_vector");
	E(2200, 1, KUTRACE_MARKA, 0, 0, 1, 0, 0, "mark_a=a");
	const char *want[] = {
		"1000 500 0 0 0 0x10000 0 0 0 -idle-",
		"1500 1 0 0 0 0x208 1 0 0 mwait",
		"1501 399 0 0 0 0x10000 1 0 0 -idlelp-",
		"1900 100 0 0 0 0x20000 0 0 0 -c-exit-",
		"2000 50 0 0 0 0x5ec 0 0 0 local_timer_vector",
		"2050 150 0 0 0 0x10000 0 0 0 -idle-",
		"2200 1 0 0 0 0x20a 1 0 0 mark_a=a",
	};
	expect(want, 7);
}

/*
 * An interrupt taken inside the scheduler nests above it, and the
 * scheduler resumes after it (docs/FORMAT.md, "Other differences"; 5.3
 * step 4 would pop it): the rest of the scheduler, in which the switch
 * happens, is not shown as the syscall below it.
 */
static void test_irq_in_sched(void **state)
{
	(void)state;
	E(1000, 1, KUTRACE_USERPID, 0, 10, 0, 0, 0, "a.10");
	E(1100, 0, FUTEX, 0, 10, 0, 0, 0, "futex");
	E(1200, 0, KUTRACE_SCHED_CALL, 0, 10, 0, 0, 0, "-sched-");
	E(1300, 0, TIMER, 0, 10, 0, 0, 0, "local_timer_vector");
	E(1400, 0, TIMER + RET, 0, 10, 0, 0, 0, "/local_timer_vector");
	E(1450, 0, KUTRACE_USERPID, 0, 20, 20, 0, 0, "b.20");
	E(1500, 0, KUTRACE_SCHED_RET, 0, 20, 0, 0, 0, "/-sched-");
	const char *want[] = {
		"1000 100 0 10 0 0x1000a 0 0 0 a.10",
		"1100 100 0 10 0 0x8ca 0 0 0 futex",
		"1200 100 0 10 0 0xdff 0 0 0 -sched-",
		"1300 100 0 10 0 0x5ec 0 0 0 local_timer_vector",
		"1400 100 0 10 0 0xdff 0 0 0 -sched-",
	};
	expect(want, 5);
}

/*
 * A return without its call (5.3 step 1): the call is put back at the
 * open span's start, which it replaces; a return of a call deeper in the
 * stack first returns from what is above it, at the return's time.
 */
static void test_return_without_call(void **state)
{
	(void)state;
	E(1000, 1, KUTRACE_USERPID, 0, 30, 0, 0, 0, "c.30");
	E(1200, 0, READ + RET, 0, 30, 0, 9, 0, "/read");
	E(1300, 0, WRITE, 0, 30, 0, 0, 0, "write");
	E(1400, 0, PF + RET, 0, 30, 0, 0, 0, "/page_fault");
	E(1500, 0, TIMER, 0, 30, 0, 0, 0, "local_timer_vector");
	E(1550, 0, WRITE + RET, 0, 30, 0, 0, 0, "/write");
	const char *want[] = {
		"1000 200 0 30 0 0x800 0 9 0 read",
		"1200 100 0 30 0 0x1001e 0 9 0 c.30",
		"1300 100 0 30 0 0x40e 0 0 0 page_fault",
		"1400 100 0 30 0 0x801 0 0 0 write",
		"1500 50 0 30 0 0x5ec 0 0 0 local_timer_vector",
	};
	expect(want, 5);
}

/*
 * Issue 20, finding 3: trap 14, the scheduler, trap 14 again (it nests in
 * the scheduler) and a trap-14 return: the return ends the nearest trap
 * 14.  Ending the deeper one recursed through process() and synth()
 * until the stack overflowed.
 */
static void test_trap_in_sched(void **state)
{
	(void)state;
	E(1000, 1, KUTRACE_USERPID, 0, 40, 0, 0, 0, "d.40");
	E(1100, 0, PF, 0, 40, 0, 0, 0, "page_fault");
	E(1200, 0, KUTRACE_SCHED_CALL, 0, 40, 0, 0, 0, "-sched-");
	E(1300, 0, PF, 0, 40, 0, 0, 0, "page_fault");
	E(1400, 0, PF + RET, 0, 40, 0, 0, 0, "/page_fault");
	E(1500, 0, KUTRACE_SCHED_RET, 0, 40, 0, 0, 0, "/-sched-");
	E(1600, 0, PF + RET, 0, 40, 0, 0, 0, "/page_fault");
	const char *want[] = {
		"1000 100 0 40 0 0x10028 0 0 0 d.40",
		"1100 100 0 40 0 0x40e 0 0 0 page_fault",
		"1200 100 0 40 0 0xdff 0 0 0 -sched-",
		"1300 100 0 40 0 0x40e 0 0 0 page_fault",
		"1400 100 0 40 0 0xdff 0 0 0 -sched-",
		"1500 100 0 40 0 0x40e 0 0 0 page_fault",
	};
	expect(want, 6);
}

/*
 * Names count from their time on (5.1, docs/FORMAT.md): an exec's new
 * name relabels the thread's user span from then on, and at the end the
 * thread's row label joins its names with "+" (a LEFTMARK at its first
 * time); copies at time -1 change nothing; "./" is dropped and
 * "kutrace_contro..." becomes kutrace_control.
 */
static void test_rename(void **state)
{
	(void)state;
	pidname(900, 10, "sh");
	pidname(950, 11, "./kutrace_contro");
	E(1000, 1, KUTRACE_USERPID, 0, 10, 0, 0, 0, "sh.10");
	E(1000, 1, KUTRACE_USERPID, 1, 11, 0, 0, 0, "x.11");
	E(1100, 0, KUTRACE_SYSCALL64 + 59, 0, 10, 0, 0, 0, "execve");
	E(1100, 1, KUTRACE_MARKA, 1, 11, 1, 0, 0, "mark_a=a");
	pidname(1150, 10, "cat");
	pidname(-1, 10, "zzz");
	E(1200, 0, KUTRACE_SYSRET64 + 59, 0, 10, 0, 0, 0, "/execve");
	E(1300, 1, KUTRACE_MARKA, 0, 10, 1, 0, 0, "mark_a=a");
	const char *want[] = {
		"1000 100 0 10 0 0x1000a 0 0 0 sh.10",
		"1000 100 1 11 0 0x1000b 0 0 0 kutrace_control.11",
		"1100 1 1 11 0 0x20a 1 0 0 mark_a=a",
		"1100 100 0 10 0 0x83b 0 0 0 execve",
		"1200 100 0 10 0 0x1000a 0 0 0 cat.10",
		"1300 1 0 10 0 0x20a 1 0 0 mark_a=a",
		"1101 200 1 11 0 0x1000b 0 0 0 kutrace_control.11",
		"900 1 0 10 0 0x20e 0 0 0 sh+cat.10",
	};
	expect(want, 8);
}

/* cmocka's table: the same lines in every unit test, as cmocka wants them. */
/*
 * The trace's edges (issue 27), with start 1000 and stop 9000.  CPU 0's
 * block starts before the start: idle from the start, through the
 * module's note of pid 0 (a switch to 0 outside the scheduler), to its
 * first scheduler call.  CPU 1 is noted inside the IPI handler, which
 * keeps its frame and arg; idle at the end, it idles (after its MWAIT) to
 * the stop, while CPU 0's user code ends at the last event.  CPU 2's
 * block starts before the start too, but a mark before the start says
 * its thread ran then: its first span keeps the block start.
 */
static void test_edges(void **state)
{
	(void)state;
	kt_spans_edges(S, 1000, 9000);
	E(800, 1, KUTRACE_USERPID, 2, 600, 0, 0, 0, "p.600");
	E(850, 1, KUTRACE_MARKA, 2, 600, 1, 0, 0, "mark_a=a");
	E(900, 1, KUTRACE_USERPID, 0, 0, 0, 0, 0, "-idle-.0");
	E(960, 0, KUTRACE_USERPID, 0, 0, 0, 0, 0, "-idle-.0");
	E(1100, 1, KUTRACE_USERPID, 1, 0, 0, 0, 0, "-idle-.0");
	E(1105, 0, KUTRACE_IRQ + 0xFB, 1, 0, 2, 0, 0, "call_function");
	E(1110, 0, KUTRACE_USERPID, 1, 0, 0, 0, 0, "-idle-.0");
	E(1120, 0, KUTRACE_IRQ + 0xFB + RET, 1, 0, 0, 0, 0, "/call_function");
	E(2000, 1, KUTRACE_MWAIT, 1, 0, 0x01, 0, 0, "mwait");
	E(3000, 0, KUTRACE_SCHED_CALL, 0, 0, 0, 0, 0, "-sched-");
	E(3010, 0, KUTRACE_USERPID, 0, 700, 700, 0, 0, "q.700");
	E(3020, 0, KUTRACE_SCHED_RET, 0, 700, 0, 0, 0, "/-sched-");
	E(4000, 0, WRITE, 0, 700, 1, 0, 0, "write");
	E(4100, 0, WRITE + RET, 0, 700, 1, 0, 0, "/write");
	E(5000, 1, KUTRACE_MARKA, 2, 600, 1, 0, 0, "mark_a=a");
	const char *want[] = {
		"800 50 2 600 0 0x10258 0 0 0 p.600",
		"850 1 2 600 0 0x20a 1 0 0 mark_a=a",
		"1100 5 1 0 0 0x10000 0 0 0 -idle-",
		"1105 15 1 0 0 0x5fb 2 0 0 call_function",
		"1120 880 1 0 0 0x10000 0 0 0 -idle-",
		"2000 1 1 0 0 0x208 1 0 0 mwait",
		"1000 2000 0 0 0 0x10000 0 0 0 -idle-",
		"3000 20 0 0 0 0xdff 0 0 0 -sched-",
		"3020 980 0 700 0 0x102bc 0 0 0 q.700",
		"4000 100 0 700 0 0x801 1 0 0 write",
		"851 4149 2 600 0 0x10258 0 0 0 p.600",
		"5000 1 2 600 0 0x20a 1 0 0 mark_a=a",
		"4100 901 0 700 0 0x102bc 1 0 0 q.700",
		"2001 6999 1 0 0 0x10000 1 0 0 -idlelp-",
	};
	expect(want, 14);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_nesting, setup, teardown),
		cmocka_unit_test_setup_teardown(test_irq_in_syscall, setup, teardown),
		cmocka_unit_test_setup_teardown(test_switch_in_call, setup, teardown),
		cmocka_unit_test_setup_teardown(test_irq_in_sched, setup, teardown),
		cmocka_unit_test_setup_teardown(test_idle, setup, teardown),
		cmocka_unit_test_setup_teardown(test_return_without_call, setup, teardown),
		cmocka_unit_test_setup_teardown(test_trap_in_sched, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rename, setup, teardown),
		cmocka_unit_test_setup_teardown(test_edges, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

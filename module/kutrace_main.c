// SPDX-License-Identifier: GPL-2.0
/*
 * kutrace_main.c - kutrace loadable module: buffer, /dev/kutrace control
 * device (ioctl + read-only mmap), IPC counters through perf, and the
 * choice of backend.  The fast path lives in kutrace_core.c.
 *
 * Control: docs/spec/FORMATS.md 3.7 commands as ioctls KUTRACE_IOC(nr) on
 * /dev/kutrace (mode 0600).  Opening needs CAP_PERFMON or CAP_SYS_ADMIN
 * and is exclusive; state-changing commands and mmap check the capability
 * again.
 */
#include <linux/module.h>
#include <linux/kernel.h>
#include <linux/init.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/vmalloc.h>
#include <linux/mm.h>
#include <linux/uaccess.h>
#include <linux/capability.h>
#include <linux/string.h>
#include <linux/smp.h>
#include <linux/security.h>
#include <linux/perf_event.h>
#include <linux/delay.h>
#ifdef CONFIG_X86
#include <asm/tsc.h>
#include <asm/cpufeature.h>
#endif
#ifdef CONFIG_RISCV
#include <asm/delay.h>		/* riscv_timebase */
#endif

#include "kutrace_core.h"
#include "kutrace_cmd.h"
#include "kutrace_backend.h"

static long tracemb = 2;
module_param(tracemb, long, 0444);
MODULE_PARM_DESC(tracemb, "trace buffer size in MiB (1..4096, default 2)");

#define KT_MAX_MB	4096

static char *backend = "auto";
module_param(backend, charp, 0444);
MODULE_PARM_DESC(backend,
		 "auto (patched kernel hooks when the kernel has them), patched or tracepoint");

static long pktmask = 0x0000000F;
module_param(pktmask, long, 0444);
MODULE_PARM_DESC(pktmask,
		 "payload bytes 0..23 the packet filter compares (0 none, -1 all packets)");
static long pktmatch = 0xD1C517E5;
module_param(pktmatch, long, 0444);
MODULE_PARM_DESC(pktmatch, "expected XOR of the masked payload");

/* docs/spec/FORMATS.md 3.8: byte i of the payload takes part iff bit i is set. */
void kt_net_filter(u64 *init, u64 mask[3])
{
	unsigned int i;

	*init = (u32)pktmatch;
	memset(mask, 0, 3 * sizeof(*mask));
	for (i = 0; i < 24; i++)
		if (pktmask & (1L << i))
			mask[i / 8] |= 0xFFULL << (8 * (i % 8));
	if (pktmask == 0)
		*init = 1;
	if (pktmask == -1) {
		memset(mask, 0, 3 * sizeof(*mask));
		*init = 0;
	}
}

static const struct kt_backend *kt_backend = &kt_tp_backend;
static u64 *kt_buf;
static u64 *kt_filter;
static void *kt_slots;		/* stream mode: the slot tables */
static unsigned long kt_open_flag;
static DEFINE_MUTEX(kt_ctl_mutex);
static bool kt_unloading;	/* under kt_ctl_mutex */

/* ---------------------------------------------------------------- IPC */

static DEFINE_PER_CPU(struct perf_event *, kt_inst_ev);
static bool kt_ipc_ready;

bool kt_env_read_inst(u64 *val)
{
#ifdef CONFIG_X86
	struct perf_event *ev = this_cpu_read(kt_inst_ev);
	int idx;

	if (!ev || ev->state != PERF_EVENT_STATE_ACTIVE)
		return false;
	idx = ev->hw.event_base_rdpmc;
	*val = native_read_pmc(idx);
	return true;
#else
	return false;	/* the PMU is read with rdpmc, x86 only */
#endif
}

static void kt_ipc_release(void)
{
	unsigned int cpu;

	kt_ipc_ready = false;
	for_each_possible_cpu(cpu) {
		struct perf_event *ev = per_cpu(kt_inst_ev, cpu);

		per_cpu(kt_inst_ev, cpu) = NULL;
		if (ev)
			perf_event_release_kernel(ev);
	}
}

/* Instructions-retired counters on every CPU; false if there is no PMU. */
static bool kt_ipc_setup(void)
{
	struct perf_event_attr attr = {
		.type		= PERF_TYPE_HARDWARE,
		.config		= PERF_COUNT_HW_INSTRUCTIONS,
		.size		= sizeof(attr),
		.pinned		= 1,
	};
	unsigned int cpu;

	if (kt_ipc_ready)
		return true;
	if (!IS_ENABLED(CONFIG_X86)) {
		pr_info("kutrace: no IPC: x86 only\n");
		return false;
	}
	for_each_online_cpu(cpu) {
		struct perf_event *ev;

		ev = perf_event_create_kernel_counter(&attr, cpu, NULL, NULL,
						      NULL);
		if (IS_ERR(ev)) {
			pr_info("kutrace: no IPC on cpu %u (perf: %ld)\n",
				cpu, PTR_ERR(ev));
			kt_ipc_release();
			return false;
		}
		per_cpu(kt_inst_ev, cpu) = ev;
	}
	kt_ipc_ready = true;
	return true;
}

static void kt_ipc_mark_cpus(bool on)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		/* Set after the reset that cleared the per-CPU state. */
		kt_cpu_set_ipc(cpu, on && per_cpu(kt_inst_ev, cpu));
	}
}

/* ------------------------------------------------------------ control */

static bool kt_allowed(void)
{
	if (security_locked_down(LOCKDOWN_PERF))
		return false;
	return perfmon_capable();
}

static void kt_name_backend(void)
{
	u64 w[KUTRACE_MAX_ENTRY_WORDS] = { 0 };
	size_t n = strnlen(kt_backend->reconstructed, KUTRACE_NAME_MAX);
	unsigned int len = 1 + (n + 7) / 8;

	w[0] = kt_backend->id;
	memcpy(&w[1], kt_backend->reconstructed, n);
	kt_trace_many(KUTRACE_BACKEND_NAME, len, w, true);
	kt_st.backend_named = true;
}

static bool kt_state_changing(unsigned int nr)
{
	switch (nr) {
	case KUTRACE_CMD_STAT:
	case KUTRACE_CMD_TEST:
	case KUTRACE_CMD_VERSION:
	case KUTRACE_CMD_GETCOUNT:
		return false;
	default:
		return true;
	}
}

/*
 * Each CPU records the task it runs when tracing starts.  A CPU's first
 * block may have been opened by a forced insert (kutrace_control's names)
 * while tracing was off; its header then names a task that may since have
 * left that CPU without a traced switch.
 */
static void kt_note_current(void *unused)
{
	kt_switch_begin(current->pid, current->comm);
	kt_pidname(current->pid, current->comm, false);
	kt_trace_1(KUTRACE_USERPID, current->pid);
	kt_switch_end();
}

/* kutrace_cmd.c's environment in the kernel. */
void kt_env_cmd_on_prepare(void)
{
	if (!kt_st.backend_named)
		kt_name_backend();
}

void kt_env_cmd_on_done(void)
{
	on_each_cpu(kt_note_current, NULL, 1);
}

static void kt_cut_one(void *unused)
{
	kt_core_cut_old_this_cpu();
}

static void kt_lost_one(void *unused)
{
	kt_core_lost_this_cpu();
}

void kt_env_cmd_lost_all(void)
{
	on_each_cpu(kt_lost_one, NULL, 1);
}

void kt_env_cmd_cut_all(void)
{
	preempt_disable();
	kt_core_new_epoch();
	smp_call_function(kt_cut_one, NULL, 1);
	preempt_enable();
}

void kt_env_cmd_quiesce(void)
{
	synchronize_rcu();
}

bool kt_env_cmd_ipc_setup(void)
{
	return kt_ipc_setup();
}

void kt_env_cmd_ipc_mark(bool on)
{
	kt_ipc_mark_cpus(on);
}

unsigned long kt_env_cmd_copy_in(void *dst, u64 uaddr, unsigned long n)
{
	return copy_from_user(dst, u64_to_user_ptr(uaddr), n);
}

unsigned long kt_env_cmd_copy_out(u64 uaddr, const void *src,
				  unsigned long n)
{
	return copy_to_user(u64_to_user_ptr(uaddr), src, n);
}

/* Run one command; the kernel's hook flag follows the module's. */
static long kt_cmd_locked(unsigned int nr, u64 arg, u64 *result)
{
	long ret;

	mutex_lock(&kt_ctl_mutex);
	if (kt_unloading) {
		mutex_unlock(&kt_ctl_mutex);
		return -ENODEV;
	}
	ret = 0;
	if (nr == KUTRACE_CMD_ON && kt_backend->arm)
		ret = kt_backend->arm(true);
	if (!ret)
		ret = kt_cmd(nr, arg, result);
	if (kt_backend->set_tracing)
		kt_backend->set_tracing(READ_ONCE(kt_tracing));
	if (kt_backend->arm && !READ_ONCE(kt_tracing))
		kt_backend->arm(false);
	mutex_unlock(&kt_ctl_mutex);
	return ret;
}

/*
 * Any user may add entries (marks, names, RPC ids, locks) to a trace that
 * is running, as the original library does from the traced program; only
 * a privileged caller may insert while tracing is off or change state.
 */
static bool kt_user_insert(unsigned int nr)
{
	return (nr == KUTRACE_CMD_INSERT1 || nr == KUTRACE_CMD_INSERTN) &&
	       READ_ONCE(kt_tracing);
}

u64 kt_control_call(u64 cmd, u64 arg)
{
	unsigned int nr;
	u64 result;

	if (cmd == KUTRACE_CMD_INSERT1_FORCED)
		nr = KUTRACE_IOC_INSERT1_FORCED_NR;
	else if (cmd == KUTRACE_CMD_INSERTN_FORCED)
		nr = KUTRACE_IOC_INSERTN_FORCED_NR;
	else if (cmd <= KUTRACE_CMD_MAX ||
		 (cmd >= KUTRACE_CMD_STREAM_LO && cmd <= KUTRACE_CMD_STREAM_HI))
		nr = cmd;
	else
		return KUTRACE_CMD_ERROR;
	if (kt_state_changing(nr) && !kt_allowed() && !kt_user_insert(nr))
		return KUTRACE_CMD_ERROR;
	if (kt_cmd_locked(nr, arg, &result))
		return KUTRACE_CMD_ERROR;
	return result;
}

static long kt_ioctl(struct file *f, unsigned int cmd, unsigned long uarg)
{
	struct kutrace_ioc io;
	unsigned int nr = _IOC_NR(cmd);
	long ret;

	if (nr > KUTRACE_CMD_STREAM_HI || cmd != KUTRACE_IOC(nr))
		return -ENOTTY;
	if (kt_state_changing(nr) && !kt_allowed())
		return -EPERM;
	if (copy_from_user(&io, (void __user *)uarg, sizeof(io)))
		return -EFAULT;
	ret = kt_cmd_locked(nr, io.arg, &io.result);
	if (ret)
		return ret;
	if (copy_to_user((void __user *)uarg, &io, sizeof(io)))
		return -EFAULT;
	return 0;
}

static int kt_mmap(struct file *f, struct vm_area_struct *vma)
{
	unsigned long size = vma->vm_end - vma->vm_start;

	/* A descriptor passed on to a user must not read the trace either. */
	if (!kt_allowed())
		return -EPERM;
	/* Stream mode: the reader reads the blocks it took while tracing. */
	if (READ_ONCE(kt_tracing) && !(kt_st.flags & KUTRACE_RESET_STREAM))
		return -EBUSY;
	if (vma->vm_flags & VM_WRITE)
		return -EPERM;
	if (vma->vm_pgoff > (tracemb << 20) >> PAGE_SHIFT ||
	    size > (tracemb << 20) - (vma->vm_pgoff << PAGE_SHIFT))
		return -EINVAL;
#ifdef KT_HAVE_VM_FLAGS_MOD
	vm_flags_mod(vma, VM_DONTEXPAND, VM_MAYWRITE);
#else
	vma->vm_flags &= ~VM_MAYWRITE;
	vma->vm_flags |= VM_DONTEXPAND;
#endif
	return remap_vmalloc_range(vma, kt_buf, vma->vm_pgoff);
}

static int kt_open(struct inode *inode, struct file *f)
{
	if (!kt_allowed())
		return -EPERM;
	if (test_and_set_bit(0, &kt_open_flag))
		return -EBUSY;
	return 0;
}

static int kt_release(struct inode *inode, struct file *f)
{
	clear_bit(0, &kt_open_flag);
	return 0;
}

static const struct file_operations kt_fops = {
	.owner		= THIS_MODULE,
	.open		= kt_open,
	.release	= kt_release,
	.unlocked_ioctl	= kt_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
	.mmap		= kt_mmap,
	.llseek		= noop_llseek,
};

static struct miscdevice kt_misc = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "kutrace",
	.fops	= &kt_fops,
	.mode	= 0600,
};

static int kt_pick_backend(void)
{
#ifdef KT_HAVE_KUTRACE_PATCH
	if (sysfs_streq(backend, "auto") || sysfs_streq(backend, "patched")) {
		kt_backend = &kt_patched_backend;
		return 0;
	}
#else
	if (sysfs_streq(backend, "auto"))
		return 0;
	if (sysfs_streq(backend, "patched")) {
		pr_err("kutrace: backend=patched: this module was built for a kernel without the kutrace patch\n");
		return -EINVAL;
	}
#endif
	if (sysfs_streq(backend, "tracepoint"))
		return 0;
	pr_err("kutrace: backend=%s is invalid: use auto, patched or tracepoint\n",
	       backend);
	return -EINVAL;
}

static int __init kt_init(void)
{
	int ret;

	ret = kt_pick_backend();
	if (ret)
		return ret;

	if (tracemb < 1 || tracemb > KT_MAX_MB) {
		pr_err("kutrace: tracemb=%ld is invalid: use 1..%d (MiB)\n",
		       tracemb, KT_MAX_MB);
		return -EINVAL;
	}
	kt_buf = vmalloc_user(tracemb << 20);
	kt_filter = vzalloc(8192);
	kt_slots = vzalloc(kt_core_stream_bytes(tracemb << 20));
	if (!kt_buf || !kt_filter || !kt_slots) {
		pr_err("kutrace: cannot allocate %ld MiB of trace buffer\n",
		       tracemb);
		ret = -ENOMEM;
		goto fail;
	}
	kt_core_init(tracemb << 20, kt_buf, kt_filter);
	kt_core_stream_init(kt_slots);
#ifdef CONFIG_X86
	if (!boot_cpu_has(X86_FEATURE_CONSTANT_TSC) || check_tsc_unstable())
		pr_warn("kutrace: TSC is not constant/stable; cross-CPU times are approximate\n");
#elif defined(CONFIG_ARM64)
	pr_info("kutrace: time counter CNTVCT_EL0 at %u Hz (CNTFRQ_EL0)\n",
		arch_timer_get_cntfrq());
#elif defined(CONFIG_RISCV)
	pr_info("kutrace: time counter time CSR at %lu Hz (timebase-frequency)\n",
		riscv_timebase);
#endif
	ret = kt_backend->attach();
	if (ret) {
		pr_err("kutrace: %s backend failed: %d\n", kt_backend->name,
		       ret);
		goto fail;
	}
	ret = misc_register(&kt_misc);
	if (ret) {
		kt_backend->detach();
		goto fail;
	}
	pr_info("kutrace: %ld MiB buffer, %s backend, /dev/kutrace ready\n",
		tracemb, kt_backend->name);
	return 0;
fail:
	vfree(kt_buf);
	vfree(kt_filter);
	vfree(kt_slots);
	return ret;
}

static void __exit kt_exit(void)
{
	/*
	 * System call 1023 holds no reference on the module: a call already
	 * past the kernel's hook may be waiting for the mutex with an ON
	 * command.  It must find the module going, not start tracing again.
	 */
	mutex_lock(&kt_ctl_mutex);
	kt_unloading = true;
	WRITE_ONCE(kt_tracing, false);
	if (kt_backend->set_tracing)
		kt_backend->set_tracing(false);
	mutex_unlock(&kt_ctl_mutex);
	misc_deregister(&kt_misc);
	kt_backend->detach();
	msleep(20);
	kt_ipc_release();
	vfree(kt_buf);
	vfree(kt_filter);
	vfree(kt_slots);
	pr_info("kutrace: unloaded\n");
}

module_init(kt_init);
module_exit(kt_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("kutrace: every user/kernel transition on every CPU");
MODULE_AUTHOR("kutrace developers");

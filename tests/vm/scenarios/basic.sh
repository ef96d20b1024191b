# Guest part of tests/t_vm_basic.sh: the vertical slice, scenario 1
# (nothing missing) and scenario 5 (permissions, bad ioctls).
N=100000 M=100 K=1000
hello_world_trace hello.trace > hello.out 2>&1
echo "hello=$?"
# The ping-pong pair runs SCHED_FIFO on CPU 1 (workload.c): exact switch
# and wakeup counts as long as nothing else runs on that CPU meanwhile.
# Keep out what would: RT throttling and, on 6.12, the fair deadline
# server (both let CFS tasks in, e.g. kworkers), and the soft-lockup
# watchdog (its stop-machine work preempts every CPU every 4 s).
rt=$(cat /proc/sys/kernel/sched_rt_runtime_us)
wd=$(cat /proc/sys/kernel/watchdog)
echo -1 > /proc/sys/kernel/sched_rt_runtime_us
echo 0 > /proc/sys/kernel/watchdog
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
fs=/sys/kernel/debug/sched/fair_server
for c in $fs/cpu*; do
	[ -f "$c/runtime" ] && cat "$c/runtime" > "/tmp/fs.${c##*/}" && echo 0 > "$c/runtime"
done
echo "quiet: rt_runtime=$(cat /proc/sys/kernel/sched_rt_runtime_us)" \
	"watchdog=$(cat /proc/sys/kernel/watchdog)" \
	"fair_server=$(cat $fs/cpu1/runtime 2>/dev/null || echo none)"
PIN=1 FIFO=10 kutrace_control record -o mixed.trace -- workload mixed $N $M $K \
	> workload.out 2> record.err
echo "record=$?"
echo "$rt" > /proc/sys/kernel/sched_rt_runtime_us
echo "$wd" > /proc/sys/kernel/watchdog
for c in $fs/cpu*; do
	[ -f "/tmp/fs.${c##*/}" ] && cat "/tmp/fs.${c##*/}" > "$c/runtime"
done
# cross-CPU ping-pong: wakeups send IPIs (6.1: kprobes, 6.6+: tracepoints)
kutrace_control record -o ipi.trace -- workload xpingpong 200 > ipi.out 2> ipi.err
echo "ipi=$?"
dmesg | grep "kutrace:" > kutrace.dmesg
# the interactive prompt, and time_getpid (off / on / on+IPC)
printf 'go\nstat\nwait 1\nstop prompt\n' | kutrace_control > prompt.out 2>&1
echo "prompt=$?"
time_getpid 20000 > time_getpid.out 2>&1
echo "time_getpid=$?"
ls -l /dev/kutrace > devnode.txt
vmcheck security > security.out 2>&1
echo "vmcheck=$?"
# no kutrace device without the module, clear message
rmmod kutrace_mod; echo "rmmod=$?"
kutrace_control stat > nomod.out 2>&1; echo "nomod=$?"
dmesg | grep -E "Oops|BUG:|general protection|Call Trace|WARNING:" > oops.txt
true

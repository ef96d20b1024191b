# Guest part of tests/t_vm_basic.sh: the vertical slice, scenario 1
# (nothing missing) and scenario 5 (permissions, bad ioctls).
N=100000 M=100 K=1000
hello_world_trace hello.trace > hello.out 2>&1
echo "hello=$?"
# The ping-pong pair runs SCHED_FIFO on CPU 1 (workload.c): exact switch
# and wakeup counts as long as nothing else runs on that CPU meanwhile
# (tests/vm/ktquiet).
ktquiet on
PIN=1 FIFO=10 kutrace_control record -o mixed.trace -- workload mixed $N $M $K \
	> workload.out 2> record.err
echo "record=$?"
ktquiet off
# cross-CPU ping-pong: wakeups send IPIs (6.1: kprobes, 6.6+: tracepoints)
kutrace_control record -o ipi.trace -- workload xpingpong 200 > ipi.out 2> ipi.err
echo "ipi=$?"
dmesg | grep "kutrace:" > kutrace.dmesg
# the module's kprobes: registered at load, in the kernel's text only
# while tracing (its tracepoint probes follow the same rule, unseen here)
mount -t debugfs none /sys/kernel/debug 2>/dev/null
cat /sys/kernel/debug/kprobes/list > kprobes_off.txt
kutrace_control go > /dev/null 2>&1
cat /sys/kernel/debug/kprobes/list > kprobes_on.txt
kutrace_control stop kprobes.trace > /dev/null 2>&1
cat /sys/kernel/debug/kprobes/list > kprobes_stopped.txt
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
# arm64 guests (t_vm_arm64): golden traces of both architectures
# (/golden) postprocessed here as on the x86-64 host
for g in /golden/*.trace; do
	[ -f "$g" ] || continue
	n=$(basename "$g" .trace)
	rawtoevent "$g" 2>/dev/null | LC_ALL=C sort -n | eventtospan "$n" > "golden-$n.json" 2>/dev/null
done
true

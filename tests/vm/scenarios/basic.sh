# Guest part of tests/t_vm_basic.sh: the vertical slice, scenario 1
# (nothing missing) and scenario 5 (permissions, bad ioctls).
N=100000 M=100 K=1000
hello_world_trace hello.trace > hello.out 2>&1
echo "hello=$?"
PIN=1 kutrace_control record -o mixed.trace -- workload mixed $N $M $K \
	> workload.out 2> record.err
echo "record=$?"
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

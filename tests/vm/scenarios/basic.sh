# Guest part of tests/t_vm_basic.sh: the vertical slice, scenario 1
# (nothing missing) and scenario 5 (permissions, bad ioctls).
N=100000 M=100 K=1000
hello_world_trace hello.trace > hello.out 2>&1
echo "hello=$?"
PIN=1 kutrace_control record -o mixed.trace -- workload mixed $N $M $K \
	> workload.out 2> record.err
echo "record=$?"
ls -l /dev/kutrace > devnode.txt
vmcheck security > security.out 2>&1
echo "vmcheck=$?"
# no kutrace device without the module, clear message
rmmod kutrace; echo "rmmod=$?"
kutrace_control stat > nomod.out 2>&1; echo "nomod=$?"
dmesg | grep -E "Oops|BUG:|general protection|Call Trace|WARNING:" > oops.txt
true

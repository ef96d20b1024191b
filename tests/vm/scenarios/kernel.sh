# Guest part of tests/t_kernel_patched.sh, on a kutrace-patched kernel:
# scenario 1 (nothing missing), the transitions the original patch never
# saw (ia32 syscalls, #UD/#BP/#GP/#DB, prctl rename), packets, system call
# 1023, scenario 5 (permissions), rmmod while tracing, scenario 3 (buffer
# full, wraparound), backend=tracepoint, then unload and reload while four
# threads send ON, OFF and queries through system call 1023 (ktreload).
N=100000 M=100 K=1000 X=200
KO=/lib/modules/kutrace_mod.ko
ip link set lo up 2>/dev/null || ifconfig lo 127.0.0.1 up
# the tick: local timer interrupts per CPU over 2 s of idle (vm.sh boots
# p6.1 and p6.12 with nohz=off: ~2,000 each; the tick stops when nohz)
cat /proc/cmdline > cmdline.txt
awk '$1 == "LOC:" { for (i = 2; $i ~ /^[0-9]+$/; i++) printf " %s", $i; print "" }' /proc/interrupts > loc0.txt
sleep 2
awk '$1 == "LOC:" { for (i = 2; $i ~ /^[0-9]+$/; i++) printf " %s", $i; print "" }' /proc/interrupts > loc1.txt
# exact ping-pong counts: the pair at SCHED_FIFO on a quiet CPU 1
ktquiet on
PIN=1 FIFO=10 kutrace_control record -o mixed.trace -- workload mixed $N $M $K \
	> workload.out 2> record.err
echo "record=$?"
ktquiet off
kutrace_control record -o exc.trace -- ktexc exc $X > exc.out 2> exc.err
echo "exc=$?"
kutrace_control record -o udp.trace -- ktexc udp $X > udp.out 2> udp.err
echo "udp=$?"
kutrace_control record -o tcp.trace -- ktexc tcp $X > tcp.out 2> tcp.err
echo "tcp=$?"
ktexc sys > sys.out 2>&1; echo "sys=$?"
# the original library's way, as on stock kernels (tests/t_vm_sys1023.sh)
kulib self 200 self.trace > self.out 2>&1; echo "self=$?"
kutrace_control record -o marks.trace -- kulib marks 200 > marks.out 2> marks.err
echo "marks=$?"
kulib user > user.out 2>&1; echo "user=$?"
# kutrace_control through system call 1023 when there is no /dev/kutrace
mv /dev/kutrace /dev/kutrace.hidden
kutrace_control record -o sys.trace -- workload getpid 1000 > sysrec.out 2> sysrec.err
echo "sysrec=$?"
mv /dev/kutrace.hidden /dev/kutrace
ls -l /dev/kutrace > devnode.txt
vmcheck security > security.out 2>&1; echo "vmcheck=$?"
# rmmod while tracing, reload, trace again
kutrace_control go > go.out 2>&1; echo "go=$?"
workload getpid 1000 > /dev/null
rmmod kutrace_mod; echo "rmmod_tracing=$?"
insmod $KO tracemb=8; echo "reinsmod=$?"
kutrace_control record -o again.trace -- workload getpid 1000 > again.out 2>&1
echo "again=$?"
rmmod kutrace_mod; echo "rmmod=$?"
# scenario 3: buffer full (1 MiB = 16 blocks), wraparound
insmod $KO tracemb=1; echo "insmod1=$?"
kutrace_control record -o full.trace -- workload getpid 400000 > full.out 2> full.err
echo "full=$?"
kutrace_control record --wrap -o wrap.trace -- workload getpid 400000 > wrap.out 2> wrap.err
echo "wrap=$?"
rmmod kutrace_mod
# the tracepoint backend on the same kernel
insmod $KO tracemb=8 backend=tracepoint; echo "insmod_tp=$?"
kutrace_control record -o tp.trace -- workload getpid 1000 > tp.out 2>&1
echo "tp=$?"
rmmod kutrace_mod
# System call 1023 holds no reference on the module: an ON command still
# inside it while it unloads once turned the kernel's hook flag back on
# after the hooks were cleared (the guest died at the first rmmod).
insmod $KO tracemb=8
ifuzz sys 8 4 23 > reload.out 2>&1 &
f=$!
ktreload $f 1 0.3 0.7 tracemb=8
wait $f; echo "reload_race=$?"
grep -q '^kutrace_mod ' /proc/modules && rmmod kutrace_mod
insmod $KO backend=bogus 2> bogus.err; echo "bogus=$?"
kutrace_control stat > nomod.out 2>&1; echo "nomod=$?"
ktexc nosys > nosys.out 2>&1
dmesg | grep -E "Oops|BUG:|general protection|Call Trace|WARNING:" > oops.txt
true

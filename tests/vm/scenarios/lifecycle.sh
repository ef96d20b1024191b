# Guest part of tests/t_vm_lifecycle.sh: scenario 3 (buffer full,
# wraparound) and 4 (rmmod while tracing, reload, trace again).
KO=/lib/modules/kutrace_mod.ko
# bad parameter
rmmod kutrace_mod
insmod $KO tracemb=0 2> badparam.err; echo "badparam=$?"
dmesg | grep "kutrace: tracemb" > badparam.dmesg
# scenario 3: a 1 MiB buffer (16 blocks)
insmod $KO tracemb=1; echo "insmod1=$?"
kutrace_control record -o full.trace -- workload getpid 400000 > full.out 2> full.err
echo "full=$?"
kutrace_control record --wrap -o wrap.trace -- workload getpid 400000 > wrap.out 2> wrap.err
echo "wrap=$?"
# scenario 4: rmmod while tracing, reload, trace again
kutrace_control go > go.out 2>&1; echo "go=$?"
workload getpid 1000 > /dev/null
kutrace_control test > test.out 2>&1
sleep 10 | kutrace_control > holder.out 2>&1 &
sleep 2
rmmod kutrace_mod 2> busy.err; echo "rmmod_busy=$?"
wait
rmmod kutrace_mod; echo "rmmod_tracing=$?"
insmod $KO tracemb=8; echo "reinsmod=$?"
kutrace_control record -o again.trace -- workload getpid 1000 > again.out 2>&1
echo "again=$?"
# disk full while dumping: an error that says so, and no file left behind
mkdir -p /mnt/small && mount -t tmpfs -o size=32k tmpfs /mnt/small
kutrace_control record -o /mnt/small/x.trace -- workload getpid 1000 > diskfull.out 2> diskfull.err
echo "diskfull=$?"
ls -a /mnt/small > diskfull.ls
umount /mnt/small
# tracing owned by another process (an interactive prompt holds the device)
sleep 6 | kutrace_control > owner.out 2>&1 &
sleep 2
kutrace_control record -o owned.trace -- workload getpid 10 > owned.out 2> owned.err
echo "owned=$?"
wait
# IPI sends after the reload (6.1: kprobes registered again)
kutrace_control record -o ipi_again.trace -- workload xpingpong 100 > ipi_again.out 2>&1
echo "ipi_again=$?"
# go and stop from two separate kutrace_control runs
kutrace_control 1 > one.out 2>&1; echo "one=$?"
workload getpid 500 > split.out
kutrace_control 0 > zero.out 2>&1; echo "zero=$?"
rmmod kutrace_mod; echo "rmmod_end=$?"
# without kprobes for IPI sends (ipi_kprobes=0): the module still loads
# and, on a kernel without ipi_send_* tracepoints, the trace says so
insmod $KO tracemb=8 ipi_kprobes=0; echo "noipi_insmod=$?"
kutrace_control record -o noipi.trace -- workload xpingpong 100 > noipi.out 2>&1
echo "noipi=$?"
rmmod kutrace_mod; echo "noipi_rmmod=$?"
dmesg | grep -E "Oops|BUG:|general protection|Call Trace|WARNING:" > oops.txt
true

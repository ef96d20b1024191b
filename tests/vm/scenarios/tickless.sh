# Guest part of tests/t_vm_tickless.sh: CPU 1 idle for 30 s, then 70 s,
# on the NO_HZ cloud kernel; markers before and after each idle period.
S1=${S1:-30} S2=${S2:-70}
PIN=1 kutrace_control record -o idle.trace -- workload idle $S1 $S2 > idle.out 2> idle.err
echo "record=$?"

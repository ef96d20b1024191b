# Guest part of tests/t_vm_ifuzz.sh: the module's interfaces fuzzed by
# tests/vm/ifuzz (THREADS threads, seed SEED):
#   root.out   SECS s as root: ioctls, system call 1023, mmap, open/close
#   user.out   USECS s as user 65534 with a descriptor root opened and
#              passed on, /dev/kutrace mode 0666 (so that the module's own
#              check is what refuses); state0.txt / state1.txt: the state
#              before and after, read as root (must be equal)
#   after.trace  a normal go / stop afterwards: the module still answers
#   sys.out    RSECS s of system call 1023 while the module is unloaded
#              and loaded again (after 2 s, then every 3 s)
# then rmmod; dmesg.all: the whole kernel log.
SECS=20 USECS=10 RSECS=10 SEED=1 THREADS=4
KO=/lib/modules/kutrace_mod.ko
MB=$(cat /tracemb)
cat /sys/module/kutrace_mod/parameters/sys1023 > param.txt 2>/dev/null
ifuzz root $SECS $THREADS $SEED > root.out 2>&1; echo "root=$?"
ifuzz prep > state0.txt 2>&1; echo "prep=$?"
chmod 0666 /dev/kutrace
ifuzz user $USECS $THREADS $SEED > user.out 2>&1; echo "user=$?"
chmod 0600 /dev/kutrace
ifuzz state > state1.txt 2>&1; echo "state=$?"
kutrace_control go > go.out 2>&1; echo "go=$?"
workload getpid 2000 > /dev/null
kutrace_control stop after.trace > stop.out 2>&1; echo "stop=$?"
ifuzz sys $RSECS $THREADS $SEED > sys.out 2>&1 &
f=$!
ktreload $f 2 1 2 tracemb=$MB
wait $f; echo "sys=$?"
grep -q '^kutrace_mod ' /proc/modules || insmod $KO tracemb=$MB
rmmod kutrace_mod; echo "rmmod_end=$?"
dmesg > dmesg.all
true

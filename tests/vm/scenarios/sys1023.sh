# Guest part of tests/t_vm_sys1023.sh: system call 1023 on a stock kernel,
# used the way the original user library uses it (tests/vm/kulib.c).
N=1000
KO=/lib/modules/kutrace_mod.ko
cat /sys/module/kutrace_mod/parameters/sys1023 > param.txt
kutrace_control status > status.out 2>&1; echo "status=$?"
# the library's own go / stop (as hello_world_trace), no kutrace_control
kulib self $N self.trace > self.out 2>&1; echo "self=$?"
# marks into a trace kutrace_control records, a normal user's among them
kutrace_control record -o marks.trace -- kulib marks $N > marks.out 2> marks.err
echo "marks=$?"
# a normal user while tracing is off
kulib user > user.out 2>&1; echo "user=$?"
# refused: sys1023=0, and kprobes switched off; the module loads anyway
rmmod kutrace_mod
insmod $KO sys1023=0; echo "insmod_off=$?"
cat /sys/module/kutrace_mod/parameters/sys1023 > param_off.txt
kulib nosys > nosys_off.out 2>&1; echo "nosys_off=$?"
rmmod kutrace_mod
mount -t debugfs none /sys/kernel/debug
echo 0 > /sys/kernel/debug/kprobes/enabled
dmesg -c > /dev/null
insmod $KO; echo "insmod_nokprobes=$?"
dmesg | grep "kutrace: system call 1023" > nokprobes.dmesg
kutrace_control status > status_nokprobes.out 2>&1; echo "status_nokprobes=$?"
kulib nosys > nosys_nokprobes.out 2>&1; echo "nosys_nokprobes=$?"
kutrace_control record -o dev.trace -- kulib nosys > dev.out 2>&1; echo "dev=$?"
rmmod kutrace_mod
echo 1 > /sys/kernel/debug/kprobes/enabled
# kprobes switched off and on while the module is loaded
insmod $KO; echo "insmod_again=$?"
echo 0 > /sys/kernel/debug/kprobes/enabled
kutrace_control status > status_off_live.out 2>&1
kulib nosys > nosys_off_live.out 2>&1; echo "nosys_off_live=$?"
echo 1 > /sys/kernel/debug/kprobes/enabled
kutrace_control status > status_on_live.out 2>&1
kulib user > user_again.out 2>&1; echo "user_again=$?"
rmmod kutrace_mod; echo "rmmod=$?"
kulib nosys > nosys.out 2>&1; echo "nosys=$?"
dmesg | grep "kutrace:" > kutrace.dmesg
dmesg | grep -E "Oops|BUG:|general protection|Call Trace|WARNING:" > oops.txt
true

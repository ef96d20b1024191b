# Guest part of tests/t_vm_dkms.sh: the module DKMS built (KT_KO) was
# loaded by /init; show what got loaded, then trace with it.
md5sum /lib/modules/kutrace_mod.ko > ko.md5
grep '^kutrace_mod ' /proc/modules > proc_modules.txt
cat /sys/module/kutrace_mod/parameters/tracemb > tracemb.txt
ls -l /dev/kutrace > devnode.txt
hello_world_trace hello.trace > hello.out 2>&1
echo "hello=$?"
kutrace_control record -o ls.trace -- ls -l / > record.out 2>&1
echo "record=$?"
dmesg | grep -i kutrace > dmesg_kutrace.txt
dmesg | grep -E "Oops|BUG:|general protection|Call Trace|WARNING:" > oops.txt
true

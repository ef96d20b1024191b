# Guest part of tests/t_vm_dkms.sh: the module DKMS built (KT_KO) was
# loaded by /init; show what got loaded, then trace with it.  Booted with
# lockdown=integrity (KT_APPEND), the kernel must refuse it: the DKMS key
# is not enrolled in the guest, and kutrace_control must say so.
mount -t securityfs securityfs /sys/kernel/security 2>/dev/null
cat /sys/kernel/security/lockdown > lockdown.txt 2>&1
if grep -q '\[integrity\]' lockdown.txt; then
	kutrace_control stat > lockdown_diag.out 2>&1
	echo "diag=$?"
	exit 0
fi
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

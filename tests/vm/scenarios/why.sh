# Guest part of tests/t_vm_why.sh: examples/slow_cases, four delays whose
# cause is known by construction, traced; the disk case reads the guest's
# disk /dev/vdb, throttled by QEMU to a real disk's speed (t_vm_why.sh) with O_DIRECT.
slow_cases -s 10 -o slow.trace -d /dev/vdb > slow.out 2>&1
echo "slow_cases=$?"
cat /proc/interrupts > interrupts.txt
dmesg | grep -E "Oops|BUG:|general protection|Call Trace|WARNING:" > oops.txt
true

# Guest part of tests/t_vm_examples.sh: every example program, then the
# diagnostics a non-root user and a machine without the module get.
hello_world_trace hello.trace > hello.out 2>&1
echo "hello=$?"
time_getpid 20000 > time_getpid.out 2>&1
echo "time_getpid=$?"
client_server -n 100 -c 3 -s 10 -l 100 -o cs.trace > cs.out 2>&1
echo "client_server=$?"
for p in hello_world_trace time_getpid client_server; do
	$p --help > help_$p.out 2>&1; echo "help_$p=$?"
done
# Not root: kutrace_control and the user library say why and what to do.
mkdir -p /etc
echo 'root:x:0:0:root:/:/bin/sh' > /etc/passwd
echo 'nobody:x:65534:65534:nobody:/tmp:/bin/sh' >> /etc/passwd
printf 'root:x:0:\nnogroup:x:65534:\n' > /etc/group
su nobody -c 'kutrace_control stat' > nonroot.out 2>&1; echo "nonroot=$?"
su nobody -c 'cd /tmp && client_server -n 5' > nonroot_cs.out 2>&1; echo "nonroot_cs=$?"
# No module: the fix names the kernel release.
rmmod kutrace_mod; echo "rmmod=$?"
uname -r > release.txt
kutrace_control stat > nomod.out 2>&1; echo "nomod=$?"
dmesg | grep -E "Oops|BUG:|general protection|Call Trace|WARNING:" > oops.txt
true

# Guest part of tests/t_vm_uev.sh: user events through libkutrace's fast
# path (docs/spec/FORMATS.md 9) in traces kutrace_control records with
# --user-kb.  The buffers live in tmpfs, as /dev/shm on any system.
mkdir -p /dev/shm && mount -t tmpfs none /dev/shm
kutrace_control --user-kb=256 record -o many.trace -- uevload many 8 4 5000 > many.out 2> many.err
echo "many=$?"
kutrace_control --user-kb=1024 record -o order.trace -- uevload order 10000 > order.out 2> order.err
echo "order=$?"
# a user who is not root marks too, and cannot change the tracing state
kutrace_control --user-kb=64 record -o nobody.trace -- uevload nobody 1000 /dev/shm/kutrace \
	> nobody.out 2> nobody.err
echo "nobody=$?"
kutrace_control --user-kb=64 record -o rpc.trace -- uevload rpc 200 > rpc.out 2> rpc.err
echo "rpc=$?"
kutrace_control --user-kb=16384 record -o crash.trace -- uevload crash > crash.out 2> crash.err
echo "crash=$?"
# the book's programs (system call 1023, x86-64 only) beside the fast path
if [ "$(uname -m)" = x86_64 ]; then
	kutrace_control --user-kb=64 record -o book.trace -- \
		sh -c 'kulib marks 1000 > kulib.out 2>&1 & uevload many 1 2 1000; wait' > book.out 2> book.err
	echo "book=$?"
fi
# too small: the ring keeps the first 1024 marks, the trace counts the rest;
# flight recorder: each thread's newest 1024 kept
kutrace_control --user-kb=16 record -o small.trace -- uevload many 1 1 5000 > small.out 2> small.err
echo "small=$?"
kutrace_control --user-kb=16 record --wrap -o wrap.trace -- uevload many 1 2 5000 > wrap.out 2> wrap.err
echo "wrap=$?"
kutrace_control --user-kb=16384 record -o bench.trace -- uevload bench 200000 > bench.out 2> bench.err
echo "bench=$?"
ls /dev/shm/kutrace > shm.txt
dmesg | grep -E "Oops|BUG:|general protection|Call Trace|WARNING:" > oops.txt
true

# Guest part of tests/t_vm_snap.sh: kutrace_flight (FORMATS 11).
# Snapshots on demand while tracing goes on; syscall:nanosleep>400ms with
# K long calls among many short ones; kutrace_trigger(); a SIGSEGV; bad
# input; a spool too small for --before.
K=3
mkdir -p d1 d2 d3 d4 d5 d6 d7 d8 d9
kutrace_control test > state0.out 2>&1
# waits until the recorder in $1's output says it records
ready() {
	i=0
	while ! grep -q "recording into" "$1" && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
}
# 1. on demand, twice, while tracing goes on
kutrace_flight -o d1 --before 1 --after 0 > f1.out 2> f1.err &
F=$!
ready f1.out
workload getpid 20000 > /dev/null
kutrace_flight snapshot -o /out/d1/demand1.trace > snap1.out 2> snap1.err
echo "snap1=$?"
workload getpid 20000 > /dev/null
kill -USR2 $F
sleep 1
workload getpid 20000 > /dev/null
kutrace_flight snapshot > snap2.out 2> snap2.err
echo "snap2=$?"
kill -INT $F
wait $F
echo "f1=$?"
ls d1 > d1.ls
# 2. K nanosleep calls of 1 s among 1 ms ones, 3 s apart (a bound far above
# what a busy host makes of 1 ms under TCG)
kutrace_flight -o d2 --trigger 'syscall:nanosleep>400ms' --before 1 --after 0.5 \
	--min-interval 0 -- snapload sleeps $K 1000 3 400 > f2.out 2> f2.err
echo "f2=$?"
ls d2 > d2.ls
# 3. a program's kutrace_trigger()
kutrace_flight -o d3 --before 1 --after 0.5 -- snapload trigger slow-thing > f3.out 2> f3.err
echo "f3=$?"
ls d3 > d3.ls
# 4. a crash: SIGSEGV
kutrace_flight -o d4 --trigger crash --before 1 --after 0.5 -- sh -c 'snapload segv; true' \
	> f4.out 2> f4.err
echo "f4=$?"
ls d4 > d4.ls
# 4a. a named process exiting (normally): exit:snapload
kutrace_flight -o d9 --trigger exit:snapload --before 0.5 --after 0.2 -- \
	sh -c 'snapload sleeps 0 1 1 400; true' > f9.out 2> f9.err
echo "f9=$?"
ls d9 > d9.ls
# 4b. RPCs: 1 in 50 takes 1 s; only the slow lookups fire
kutrace_flight -o d6 --trigger 'rpc:lookup>400ms' --before 0.5 --after 0.2 --min-interval 0 \
	-- snapload rpc 200 50 1000 400 > f6.out 2> f6.err
echo "f6=$?"
ls d6 > d6.ls
# 4c. the limits: two long calls, --max-snapshots 1, then --min-interval 60
kutrace_flight -o d7 --trigger 'syscall:nanosleep>400ms' --before 0.5 --after 0.2 \
	--max-snapshots 1 --min-interval 0 -- snapload sleeps 2 1000 1 400 > f7.out 2> f7.err
echo "f7=$?"
kutrace_flight -o d8 --trigger 'syscall:nanosleep>400ms' --before 0.5 --after 0.2 \
	--min-interval 60 -- snapload sleeps 2 1000 1 400 > f8.out 2> f8.err
echo "f8=$?"
ls d7 > d7.ls
ls d8 > d8.ls
# 5. bad input: one line, exit 2, tracing state unchanged
kutrace_flight --trigger 'rpc>' -o d5 > bad1.out 2>&1; echo "bad1=$?"
kutrace_flight --trigger 'syscall:nosuch>1ms' -o d5 > bad2.out 2>&1; echo "bad2=$?"
kutrace_flight --trigger 'rpc>-5ms' -o d5 > bad3.out 2>&1; echo "bad3=$?"
KUTRACE_SYSROOT=/nonexistent kutrace_flight -o d5 > bad4.out 2>&1; echo "bad4=$?"
kutrace_control test > state1.out 2>&1
# 6. a spool of 1 MB cannot hold --before 5 of a busy trace: one warning
kutrace_flight -o d5 --spool-mb 1 --before 5 -- workload getpid 2000000 > f5.out 2> f5.err
echo "f5=$?"
ls d5 /tmp > d5.ls
true

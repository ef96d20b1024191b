# Guest part of tests/t_vm_stream.sh: kutrace_control --stream (FORMATS 10).
# N getpid calls across chunk cuts; --max-files; bad input; a reader
# stopped for 5 s; a full 20 MB tmpfs; the flight recorder's overwritten
# blocks.
N=${N:-200000}
mkdir -p s1 s2 s3 s4
kutrace_control test > state0.out 2>&1
kutrace_control record --stream -o s1 --rotate-size 256K -- workload getpid $N \
	> s1.out 2> s1.err
echo "s1=$?"
kutrace_control record --stream -o s3 --rotate-size 128K --max-files 3 -- \
	workload getpid $N > s3.out 2> s3.err
echo "s3=$?"
# bad input: one line, exit 2, tracing state unchanged
kutrace_control record --stream -o s1 --rotate-size 5X -- true > bad1.out 2>&1; echo "bad1=$?"
kutrace_control record --stream -o s1 --rotate-size -5 -- true > bad2.out 2>&1; echo "bad2=$?"
kutrace_control record --stream -o /nonexistent -- true > bad3.out 2>&1; echo "bad3=$?"
kutrace_control test > state1.out 2>&1
# a starved reader: SIGSTOP for 5 s while getpid loops run, and 3 s more
# of them after it goes on (it catches up: each CPU's next block opens
# with its LOST entry)
kutrace_control stream -o s2 --rotate-size 1M > s2.out 2> s2.err &
R=$!
sleep 1
( while [ ! -f s2.done ]; do workload getpid 20000 > /dev/null; done ) &
L=$!
sleep 1
kill -STOP $R
sleep 5
kill -CONT $R
sleep 3
touch s2.done
wait $L
echo "loop=$?"
kill -INT $R
wait $R
echo "s2=$?"
# a full disk: 20 MB of tmpfs
mount -t tmpfs -o size=20m none s4
kutrace_control record --stream -o s4 --rotate-size 4M -- sh -c \
	'i=0; while [ $i -lt 150 ]; do workload getpid 20000 > /dev/null; i=$((i + 1)); done' \
	> s4.out 2> s4.err
echo "s4=$?"
ls -l s4 > s4.ls
# the flight recorder (no streaming): 2 N getpid calls overwrite the
# oldest blocks of the buffer; the dump writes their LOST entries
kutrace_control record --wrap -o wrap.trace -- workload getpid $((2 * N)) \
	> wrap.out 2> wrap.err
echo "wrap=$?"
true

# Guest part of `make bench-stream` (bench/run.sh stream): the streaming
# reader's CPU side by side with trace-cmd's, one guest, the same workload
# (workload getpid N, one process at the guest's full rate), ROUNDS times
# interleaved so that drift of the host load hits both alike:
#   kt   kutrace_control stream -o ktR --rotate-size 16M (the module's
#        buffer as loaded: its default 2 MiB unless vm.sh -m says more)
#   tc   trace-cmd record of the tracepoints kutrace uses
#        (tests/vm/bench_events), per-CPU buffers as the kernel sets them,
#        --compression none: its recorders copy the ring buffers to disk as
#        kutrace's reader copies its blocks (by default trace-cmd 3
#        compresses the file with zstd at the end, more CPU on top)
# Each reader runs in the background across the workload and stops on
# SIGINT; its CPU (with its children's: trace-cmd's per-CPU recorders) is
# read from its parent shell's /proc/PID/stat once it has been waited for.
# Sizes: ktstream=ROUNDS,N on the kernel command line.  Output:
# results.txt, one line per run: "tracer=kt round=R cpu_ticks=T hz=HZ
# bytes=B secs=S lost=L" (bytes: the trace data written, for trace-cmd
# its per-CPU data without the file's fixed part, kallsyms and formats),
# and the files of the last round.
set -u
R=3 N=1000000
for a in $(cat /proc/cmdline); do
	case $a in
	ktstream=*) v=${a#ktstream=}; R=${v%,*}; N=${v#*,} ;;
	esac
done
T=/sys/kernel/tracing
[ -e $T/events ] || mount -t tracefs nodev $T
EV=""
for e in $(sed 's/#.*//' /bench_events); do
	[ -e $T/events/$e ] && EV="$EV -e ${e%%/*}:${e#*/}"
done
command -v trace-cmd > /dev/null || echo "no trace-cmd in this guest" > missing.txt
uname -r > kernel.txt
cat /sys/module/kutrace_mod/parameters/tracemb > tracemb.txt
cat $T/buffer_size_kb > tc_buffer_kb.txt
HZ=$(getconf CLK_TCK 2>/dev/null || echo 100)

# bg NAME CMD...: CMD in the background with its output in NAME.out and
# NAME.err, its pid in NAME.pid; when it has ended, NAME.cpu holds the
# clock ticks of CPU it and its children used (utime + stime + cutime +
# cstime of the shell that waited for it: the shell itself does nothing).
bg() {
	n=$1; shift
	rm -f $n.pid $n.cpu
	sh -c '"$@" > '$n'.out 2> '$n'.err & echo $! > '$n'.pid; wait $!
		set -- $(cat /proc/$$/stat)
		echo $((${14} + ${15} + ${16} + ${17})) > '$n'.cpu' sh "$@" &
	while [ ! -s $n.pid ]; do sleep 0.1; done
}
# run TRACER ROUND: the tracer across one workload run
run() {
	t=$1 r=$2
	case $t in
	kt) rm -rf kt$r; mkdir kt$r; bg kt kutrace_control stream -o kt$r --rotate-size 16M ;;
	tc) rm -f tc$r.dat; bg tc trace-cmd record --compression none $EV -o tc$r.dat ;;
	esac
	sleep 2
	read s0 x < /proc/uptime
	workload getpid $N > /dev/null
	read s1 x < /proc/uptime
	sleep 1
	kill -INT $(cat $t.pid)
	wait
	case $t in
	kt) b=$(cat kt$r/kt_*.trace | wc -c)
	    lost=$(sed -n 's/.*lost: \([0-9]*\) entries, \([0-9]*\) blocks in all.*/\1entries+\2blocks/p' kt.err) ;;
	tc) b=$(awk '/bytes in size/ { s += $1 } END { print s + 0 }' tc.out tc.err)
	    lost=$(awk '/^overrun:|^dropped events:/ { l += $NF } END { print l + 0 "overruns" }' tc.out tc.err) ;;
	esac
	echo "tracer=$t round=$r cpu_ticks=$(cat $t.cpu) hz=$HZ bytes=$b secs=$(echo "$s1 $s0" | awk '{ print $1 - $2 }') lost=${lost:-?}" >> results.txt
	cat $t.out $t.err > $t$r.log
	[ $r = $R ] || rm -rf kt$r tc$r.dat
}
: > results.txt
i=1
while [ $i -le $R ]; do
	run kt $i
	command -v trace-cmd > /dev/null && run tc $i
	i=$((i + 1))
done
cat results.txt

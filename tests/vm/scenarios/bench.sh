# Guest part of `make bench` (bench/vm.sh): cost of tracing per workload
# run, in four configurations, ROUNDS times interleaved so that drift of
# the host load hits them alike:
#   none     no tracer (kutrace_mod unloaded, ftrace off)
#   ftrace   tracefs recording the events kutrace records (module unloaded)
#   kt_off   kutrace_mod loaded, tracing off (only the system call 1023
#            routing probes attached: sys_enter, sys_exit)
#   kt_off_nosys  the same with sys1023=0: nothing attached while off
#   kt_on    kutrace_control record around the workload
# Workloads: bench_load getpid N, bench_load mixed M.  Sizes come from the
# kernel command line (KT_APPEND="ktbench=ROUNDS,N,M").
# Output: results.txt (one line per run), traces of the last round.
set -u
read R N M <<EOF
$(ktbench sizes 7,100000,2000)
EOF
T=/sys/kernel/tracing
# The kutrace_tp.c tracepoints (tests/vm/bench_events, one list for every
# bench scenario), where this kernel has them.
n=$(ktbench ftrace /bench_events)
echo "ftrace events enabled: $n" > ftrace_events.txt
cat $T/set_event >> ftrace_events.txt
load() { bench_load "$1" "$2" | sed -n 's/.*ns=\([0-9]*\).*/\1/p'; }
size() { case $1 in getpid) echo $N ;; mixed) echo $M ;; esac; }
loaded=1
rmmod_kt() { [ $loaded = 1 ] && rmmod kutrace_mod && loaded=0; }
insmod_kt() { [ $loaded = 0 ] && insmod /lib/modules/kutrace_mod.ko tracemb=$(cat /tracemb) && loaded=1; }
: > results.txt
# Warm-up: TCG translates each code path on first use.
for w in getpid mixed; do load $w $(size $w) > /dev/null; done
for r in $(seq 1 $R); do
	for w in getpid mixed; do
		s=$(size $w)
		insmod_kt
		echo "cfg=kt_off load=$w round=$r n=$s ns=$(load $w $s)" >> results.txt
		kutrace_control record -o kt_$w.trace -- bench_load $w $s > kt.out 2> kt.err
		ns=$(sed -n 's/.*ns=\([0-9]*\).*/\1/p' kt.out)
		echo "cfg=kt_on load=$w round=$r n=$s ns=$ns trace=kt_$w.trace" >> results.txt
		rmmod_kt
		insmod /lib/modules/kutrace_mod.ko tracemb=$(cat /tracemb) sys1023=0 &&
			echo "cfg=kt_off_nosys load=$w round=$r n=$s ns=$(load $w $s)" >> results.txt &&
			rmmod kutrace_mod
		echo "cfg=none load=$w round=$r n=$s ns=$(load $w $s)" >> results.txt
		echo > $T/trace
		echo 1 > $T/tracing_on
		ns=$(load $w $s)
		echo 0 > $T/tracing_on
		echo "cfg=ftrace load=$w round=$r n=$s ns=$ns events=$(ktbench count)" >> results.txt
		echo > $T/trace
	done
done
# What reading the time counter costs in this guest (every entry does it).
for i in 1 2 3; do bench_load rdtsc 1000000; done > rdtsc.txt
# The ftrace buffer as text, for the density comparison (last mixed run).
echo 1 > $T/tracing_on; bench_load mixed $M > /dev/null; echo 0 > $T/tracing_on
echo "ftrace mixed events=$(ktbench count) per_cpu_bytes=$(cat $T/per_cpu/cpu*/stats | awk '/^bytes:/ { s += $2 } END { print s + 0 }')" >> results.txt
uname -r > kernel.txt
insmod_kt
true

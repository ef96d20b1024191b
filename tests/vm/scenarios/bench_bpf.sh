# Guest part of bench/run.sh's "bpf" section: the BPF backend against the
# module's tracepoint backend and ftrace (the same tracepoints), the same
# workloads, interleaved over ROUNDS so that host load hits them alike:
#   none     no tracer
#   kt_on    kutrace_control record, module (tracepoint backend)
#   bpf_on   kutrace_control --backend=bpf record, module unloaded
#   ftrace   tracefs recording the events kutrace records
# Sizes from the kernel command line: ktbench=ROUNDS,N,M (as bench.sh).
# Output: results.txt, one line per run; the traces of the last round.
#
# Also runs on the machine's own kernel (tests/vm/host/bench_bpf.sh -k
# host): KT_BENCH=ROUNDS,N,M, KT_BENCH_EVENTS and KT_TRACEMB instead of
# the guest's files; without the module kt_on is left out, and the
# tracefs settings it changes are put back at the end.
set -u
read R N M <<EOF
$(ktbench sizes 5,100000,2000)
EOF
T=/sys/kernel/tracing
# The kutrace_tp.c tracepoints (tests/vm/bench_events, one list for every
# bench scenario), where this kernel has them.
ktbench ftrace "${KT_BENCH_EVENTS:-/bench_events}" > /dev/null
trap 'ktbench restore' EXIT
# The module is there (a guest) or not (this machine's own kernel).
kt=0
[ -e /lib/modules/kutrace_mod.ko ] && kt=1
ns_of() { sed -n 's/.*ns=\([0-9]*\).*/\1/p' "$1"; }
size() { case $1 in getpid) echo $N ;; mixed) echo $M ;; esac; }
mb=${KT_TRACEMB:-$(cat /tracemb)}
: > results.txt
for w in getpid mixed; do bench_load $w $(size $w) > /dev/null; done
for r in $(seq 1 $R); do
	for w in getpid mixed; do
		s=$(size $w)
		if [ $kt = 1 ]; then
			kutrace_control record -o kt_$w.trace -- bench_load $w $s > o 2> e
			echo "cfg=kt_on load=$w round=$r n=$s ns=$(ns_of o) trace=kt_$w.trace" >> results.txt
			rmmod kutrace_mod
		fi
		kutrace_control --backend=bpf --tracemb=$mb record -o bpf_$w.trace -- \
			bench_load $w $s > o 2> e
		echo "cfg=bpf_on load=$w round=$r n=$s ns=$(ns_of o) trace=bpf_$w.trace" >> results.txt
		bench_load $w $s > o
		echo "cfg=none load=$w round=$r n=$s ns=$(ns_of o)" >> results.txt
		echo > $T/trace
		echo 1 > $T/tracing_on
		bench_load $w $s > o
		echo 0 > $T/tracing_on
		echo "cfg=ftrace load=$w round=$r n=$s ns=$(ns_of o) events=$(ktbench count)" >> results.txt
		echo > $T/trace
		[ $kt = 0 ] || insmod /lib/modules/kutrace_mod.ko tracemb=$mb
	done
done
# Where the BPF backend's time goes: one more run of each workload with
# the kernel's per-program statistics on (they cost time themselves, so
# not in the timed rounds); kutrace_control prints runs and ns per run.
[ $kt = 0 ] || rmmod kutrace_mod
st0=$(cat /proc/sys/kernel/bpf_stats_enabled)
if echo 1 > /proc/sys/kernel/bpf_stats_enabled; then
	for w in getpid mixed; do
		kutrace_control --backend=bpf --tracemb=$mb record -o stats.trace -- \
			bench_load $w $(size $w) > o 2> e
		grep ' runs ' e | sed 's/^[^:]*: bpf: //' > bpfstats_$w.txt
		rm -f stats.trace
	done
	echo "$st0" > /proc/sys/kernel/bpf_stats_enabled
fi
uname -r > kernel.txt
true

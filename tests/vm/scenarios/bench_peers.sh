# Guest part of `make bench-peers` (bench/peers.sh): kutrace against the
# tracers a user would pick instead, in one guest, on the same fixed
# workloads (tests/vm/bench_load.c: getpid, mixed, pingpong, faults),
# ROUNDS times interleaved so that drift of the host load hits them alike:
#   none      no tracer (kutrace_mod unloaded)
#   kt_off    kutrace_mod loaded, tracing off
#   kt_on     kutrace_control record (the kernel's backend: tracepoint on a
#             stock kernel, patched on a kutrace-patched one)
#   ftrace    trace-cmd record of the tracepoints kutrace uses (raw tracefs
#             where trace-cmd is missing: the busybox guest)
#   perf      perf record -a on the same tracepoints
#   lttng     an LTTng kernel session: every system call (--syscall -a)
#             and the same sched/irq/fault/power tracepoints
#   bpftrace  bpftrace counting the same tracepoints into a per-CPU map
# Peers that this guest lacks are skipped (peers.txt says which and why).
# Runs in the Debian guest (tests/vm/debian/run.sh: files in /var/tmp/kt-in,
# kutrace from its .debs, DKMS; one round within t_vm_debian's scenario)
# and in the busybox guest of tests/vm/vm.sh (module in /lib/modules).  Sizes: ktbench=ROUNDS,GETPID,MIXED,PINGPONG,FAULTS
# on the kernel command line.  Output: results.txt (one line per run; the
# workload's own loop time, so starting and stopping a tracer do not
# count), the traces of the last round, peers.txt, events.txt.
set -u
R=5 N=50000 M=1000 P=4000 F=8000
for a in $(cat /proc/cmdline); do
	case $a in
	ktbench=*) v=${a#ktbench=}; IFS=, read R N M P F <<EOF
$v
EOF
	;;
	esac
done
in=/var/tmp/kt-in
[ -d $in ] && PATH=$in:$PATH && chmod +x $in/bench_load
MB=64
T=/sys/kernel/tracing
[ -e $T/events ] || mount -t tracefs nodev $T
uname -r > kernel.txt
# The kutrace_tp.c tracepoints (tests/vm/bench_events), where this kernel
# has them.
ef=$in/bench_events
[ -f $ef ] || ef=/bench_events
EVENTS=$(sed 's/#.*//' $ef)
EV=""
for e in $EVENTS; do [ -e $T/events/$e ] && EV="$EV $e"; done
echo "tracepoints:$EV" > events.txt

# kutrace: the Debian packages (DKMS builds the module), or a module and
# kutrace_control given in $in, or the module of the busybox guest's
# /lib/modules
if ls $in/kutrace_*.deb > /dev/null 2>&1; then
	DEBIAN_FRONTEND=noninteractive apt-get install -y $in/kutrace_*.deb $in/kutrace-dkms_*.deb > apt-install.log 2>&1
	echo "kutrace install=$?"
fi
KO=/lib/modules/kutrace_mod.ko
[ -f $in/kutrace_mod.ko ] && KO=$in/kutrace_mod.ko
kt_load() { modprobe kutrace_mod tracemb=$MB 2>/dev/null || insmod $KO tracemb=$MB; }
kt_unload() { rmmod kutrace_mod; }
grep -q '^kutrace_mod ' /proc/modules && kt_unload

: > peers.txt
have() { echo "$1 yes ${2:-}" >> peers.txt; CFGS="$CFGS $1"; }
hasnt() { echo "$1 no $2" >> peers.txt; }
CFGS="none"
if kt_load 2> kt_load.err; then
	kt_unload; have kt_off; have kt_on
else
	hasnt kt_on "kutrace_mod does not load: $(head -1 kt_load.err)"
fi
# ftrace: trace-cmd where it exists
TCEV=""
for e in $EV; do TCEV="$TCEV -e ${e%%/*}:${e#*/}"; done
if command -v trace-cmd > /dev/null; then
	have ftrace "trace-cmd record $(trace-cmd --version 2>&1 | sed -n 's/.*version \([^ ]*\).*/\1/p' | head -1)"
	FTRACE=trace-cmd
else
	have ftrace "raw tracefs (no trace-cmd in this guest)"
	FTRACE=tracefs
	echo 0 > $T/tracing_on
	echo 32768 > $T/buffer_size_kb
fi
PEV=""
for e in $EV; do PEV="$PEV${PEV:+,}${e%%/*}:${e#*/}"; done
# perf refuses some tracepoints ("No permission to enable
# irq_vectors:irq_work_exit" on 6.1): drop each one it names and try
# again; perf.txt says which.
if command -v perf > /dev/null; then
	for i in $(seq 1 40); do
		perf record -a -q -o /tmp/p.data -e "$PEV" -- true > perf.probe 2>&1 && break
		bad=$(sed -n 's|.*/events/\([^/]*\)/\([^/]*\)/id.*|\1:\2|p; s/.*permission to enable \([^ ]*:[^ ]*\) event.*/\1/p' perf.probe | head -1)
		[ -n "$bad" ] || break
		echo "perf dropped $bad: $(grep . perf.probe | tr '\n' ' ')" >> perf.txt
		PEV=$(echo "$PEV" | tr , '\n' | grep -vx "$bad" | awk '{ printf "%s%s", s, $0; s = "," }')
	done
	rm -f /tmp/p.data
fi
if command -v perf > /dev/null && perf record -a -q -o /tmp/p.data -e "$PEV" -- true > perf.probe 2>&1; then
	have perf "$(perf --version 2>&1 | head -1), $(echo "$PEV" | tr , '\n' | wc -l) tracepoints"
	echo "perf events: $PEV" >> events.txt
else
	hasnt perf "$(command -v perf > /dev/null && head -1 perf.probe || echo 'no perf in this guest')"
fi
# LTTng: its session daemon loads the modules of
# tests/vm/debian/lttng-modules.sh (built on the host for this kernel).
LTEV=""
if [ -f $in/lttng-modules.tar ]; then
	mkdir -p /lib/modules/$(uname -r)/updates/lttng
	tar xf $in/lttng-modules.tar -C /lib/modules/$(uname -r)/updates/lttng && depmod -a
fi
if command -v lttng > /dev/null; then
	lttng-sessiond -d > lttng-sessiond.log 2>&1
	sleep 1
	lttng list -k > lttng-list.txt 2>&1
	for e in $EV; do
		s=${e%%/*} n=${e#*/}
		[ $s = raw_syscalls ] && continue
		for c in $n ${s}_$n x86_${s}_$n; do
			grep -q "^ *$c (loglevel" lttng-list.txt && { LTEV="$LTEV${LTEV:+,}$c"; break; }
		done
	done
	echo "lttng events: --syscall -a + $LTEV" >> events.txt
	if [ -n "$LTEV" ]; then
		have lttng "$(lttng --version 2>&1 | head -1)"
	else
		hasnt lttng "lttng list -k lists no kernel events: $(head -3 lttng-list.txt | tr '\n' ' ')"
	fi
else
	hasnt lttng "no lttng in this guest"
fi
BT=""
for e in $EV; do BT="$BT${BT:+,}tracepoint:${e%%/*}:${e#*/}"; done
BT="$BT { @n = count(); }"
if command -v bpftrace > /dev/null; then
	have bpftrace "$(bpftrace --version 2>&1 | head -1)"
else
	hasnt bpftrace "no bpftrace in this guest"
fi

size() { case $1 in getpid) echo $N ;; mixed) echo $M ;; pingpong) echo $P ;; faults) echo $F ;; null) echo 1 ;; esac; }
ns_of() { sed -n 's/^load=.* ns=\([0-9]*\).*/\1/p' "$1" | head -1; }
ftrace_stat() { # entries + overrun, overrun over all CPUs
	cat $T/per_cpu/cpu*/stats | awk '/^entries:/ { e += $2 } /^overrun:/ { o += $2 } END { print e + o, o + 0 }'
}
# one run of workload $1 under $2: prints "ns=... [events=... lost=...]";
# workload null: one getpid
run() {
	w=$1 c=$2 s=$(size $1) f="" wl=$1
	[ $w = null ] && wl=getpid
	case $c in
	none|kt_off) bench_load $wl $s > o 2> e ;;
	kt_on) kutrace_control record -o kt_$w.trace -- bench_load $wl $s > o 2> e ;;
	ftrace)
		if [ $FTRACE = trace-cmd ]; then
			rm -f tc_$w.dat
			trace-cmd record -b 32768 -o tc_$w.dat $TCEV bench_load $wl $s > o 2> e
			cat o e > tc_$w.out
			f=" $(awk '/^overrun:|^dropped events:/ { l += $NF } END { printf "lost=%d", l }' o e)"
		else
			echo > $T/trace
			echo 1 > $T/tracing_on
			bench_load $wl $s > o 2> e
			echo 0 > $T/tracing_on
			set -- $(ftrace_stat)
			f=" events=$1 lost=$2"
			echo > $T/trace
		fi ;;
	perf)
		rm -f perf_$w.data
		perf record -a -m 8M -o perf_$w.data -e "$PEV" -- bench_load $wl $s > o 2> e
		f=" $(sed -n 's/.*(\([0-9]*\) samples).*/events=\1/p' e | head -1) lost=$(sed -n 's/.*lost \([0-9]*\) chunks.*/\1/p' e | head -1)" ;;
	lttng)
		rm -rf lt_$w
		{ lttng create ktpeers -o "$PWD/lt_$w" &&
			lttng enable-channel -k --subbuf-size=4M --num-subbuf=4 ch &&
			lttng enable-event -k -c ch --syscall -a &&
			lttng enable-event -k -c ch "$LTEV" && lttng start; } > lttng.setup 2>&1
		bench_load $wl $s > o 2> e
		lttng stop > lttng.stop 2>&1
		lttng destroy ktpeers >> lttng.stop 2>&1
		f=" lost=$(sed -n 's/.*Warning: \([0-9]*\) events were discarded.*/\1/p' lttng.stop | head -1)" ;;
	bpftrace)
		bpftrace -e "$BT" -c "$(command -v bench_load) $wl $s" > o 2> e
		f=" $(sed -n 's/^@n: \([0-9]*\)/events=\1/p' o) lost=0" ;;
	esac
	echo "ns=$(ns_of o)$f"
}
: > results.txt
# Warm-up: TCG translates each code path on first use.
for w in getpid mixed pingpong faults; do bench_load $w $(size $w) > /dev/null; done
for r in $(seq 1 $R); do
	for w in getpid mixed pingpong faults; do
		for c in $CFGS; do
			case $c in kt_off) kt_load ;; esac
			t0=$(cut -d' ' -f1 /proc/uptime)
			x=$(run $w $c)
			echo "cfg=$c load=$w round=$r n=$(size $w) $x secs=$(awk -v a=$t0 -v b="$(cut -d' ' -f1 /proc/uptime)" 'BEGIN { print b - a }') loadavg=$(cut -d' ' -f1 /proc/loadavg)" >> results.txt
			case $c in kt_on) kt_unload ;; esac
		done
	done
done
# What each tracer records besides the workload (its own start and stop,
# exec and exit of the workload's process): one getpid under each, whose
# count the host subtracts from the others.
for c in $CFGS; do
	[ $c = kt_off ] && kt_load
	echo "cfg=$c load=null round=$R n=1 $(run null $c)" >> results.txt
	[ $c = kt_on ] && kt_unload
done
# Where the time of a getpid goes under each tracer: perf's cpu-clock
# samples of the workload's process (kernel symbols from kallsyms), 10 N
# calls.  Not in one round (t_vm_debian's short check: counts only).
if [ $R -gt 1 ] && grep -q '^perf yes' peers.txt; then
	for c in none kt_off kt_on bpftrace; do
		case " $CFGS " in *" $c "*) ;; *) continue ;; esac
		[ $c = kt_off ] && kt_load
		pre=""
		[ $c = kt_on ] && pre="kutrace_control record -o prof.trace --"
		if [ $c = bpftrace ]; then
			perf record -a -e cpu-clock -F 4000 -g -o prof_$c.data -- bpftrace -e "$BT" -c "$(command -v bench_load) getpid $((10 * N))" > prof_$c.out 2>&1
		else
			perf record -a -e cpu-clock -F 4000 -g -o prof_$c.data -- $pre bench_load getpid $((10 * N)) > prof_$c.out 2>&1
		fi
		# -g, but the flat profile by symbol (the call chains stay in
		# the .data for a closer look)
		perf report -i prof_$c.data --stdio --no-children -g none --comm bench_load --percentage relative --sort sym 2> /dev/null |
			grep '%' | grep -v '^#' | head -40 > prof_$c.txt
		rm -f prof.trace
		[ $c = kt_on ] && kt_unload
	done
	grep -q '^kutrace_mod ' /proc/modules && kt_unload
fi
# What reading the time counter costs in this guest (every entry does it).
[ $R -gt 1 ] && for i in 1 2 3; do bench_load rdtsc 1000000; done > rdtsc.txt
[ -z "$(pgrep lttng-sessiond)" ] || kill $(pgrep lttng-sessiond | head -1)
true

# Guest part of tests/t_vm_soak.sh: SECS seconds of wraparound tracing
# under stress-ng (from the host's Debian, with its shared libraries, in
# /soak) and tests/vm/ktexc, in cycles of CYCLE seconds:
#   gowrap, load + 150000 getpid, stop FILE (off, flush, dump, reset)
#                                                       -> cN.trace
#   every second cycle a second gowrap, then rmmod while tracing and
#   under load, insmod again                            -> "rmmod N=0"
# The load runs all the time, also across unloads.  At the end: the
# kernel's own checkers' reports (KASAN, KFENCE, lockdep, atomic sleep,
# UBSAN, WARN/BUG/Oops) are in the kernel log, dmesg.all.
SECS=60 CYCLE=12 MB=1
KO=/lib/modules/kutrace_mod.ko
export LD_LIBRARY_PATH=/soak/lib
ip link set lo up 2>/dev/null || ifconfig lo 127.0.0.1 up
cat /proc/cmdline > cmdline.txt
cat /sys/kernel/debug/kfence/stats > kfence0.txt 2>/dev/null ||
	{ mount -t debugfs none /sys/kernel/debug 2>/dev/null &&
	  cat /sys/kernel/debug/kfence/stats > kfence0.txt 2>/dev/null; }
grep -q '^kutrace_mod ' /proc/modules || insmod $KO tracemb=$MB
rmmod kutrace_mod && insmod $KO tracemb=$MB
echo "insmod0=$?"
mkdir -p /tmp/sng
# Every hook: system calls (get), page faults (fault, mmap,
# brk, sigsegv), context switches (switch, pipe, futex, yield), timers
# (timer, hrtimers, nanosleep, timerfd, clock), loopback TCP/UDP (sock,
# udp), IPIs (affinity, tlb-shootdown, membarrier), #BP (sigtrap), fork,
# renames (prctl); idle between them.  (Its exec stressor refuses root:
# the loop below execs.)  The load runs at nice 10 so that the cycles keep
# their pace on a slow 2-vCPU guest (busybox has renice, no nice).
renice 10 $$ > /dev/null
/soak/stress-ng --temp-path /tmp/sng --timeout "${SECS}s" --metrics-brief \
	--get 1 --fault 1 --mmap 1 --mmap-bytes 4M --brk 1 \
	--sigsegv 1 --switch 1 --pipe 1 --futex 1 --yield 1 \
	--timer 1 --timer-freq 20000 --hrtimers 1 --nanosleep 1 --timerfd 1 \
	--clock 1 --sock 1 --udp 1 --affinity 1 --tlb-shootdown 1 \
	--membarrier 1 --sigtrap 1 --fork 1 --prctl 1 \
	> stress.out 2>&1 &
sng=$!
# ia32 system calls, #UD, #GP, #DB, packets that pass the filter, system
# call 1023 (VERSION and TEST as root, refusals as a user), exec
( while kill -0 $sng 2>/dev/null; do
	ktexc exc 20; ktexc udp 20; ktexc tcp 10; ktexc sys
	sleep 1
done ) > ktexc.out 2>&1 &
renice 0 $$ > /dev/null
t0=$(cut -d. -f1 /proc/uptime)
i=0 rm=0
# at least two cycles (one rmmod), however slow the guest
while [ $i -lt 2 ] || [ $(( $(cut -d. -f1 /proc/uptime) - t0 + CYCLE )) -le "$SECS" ]; do
	i=$((i + 1))
	kutrace_control gowrap > go.$i.out 2>&1; echo "go $i=$?"
	echo "t_go $i $(cut -d' ' -f1 /proc/uptime)"
	# 150000 getpid calls, at least one word each: more than the
	# 131072 words of 1 MiB, so the buffer wraps however slow the guest
	workload getpid 150000 > /dev/null
	sleep $((CYCLE / 2))
	echo "t_stop $i $(cut -d' ' -f1 /proc/uptime)"
	kutrace_control stop c$i.trace > stop.$i.out 2>&1; echo "stop $i=$?"
	if [ $((i % 2)) = 0 ]; then
		kutrace_control gowrap > go2.$i.out 2>&1; echo "go2 $i=$?"
		sleep $((CYCLE / 2))
		rm=$((rm + 1))
		rmmod kutrace_mod; echo "rmmod $rm=$?"
		insmod $KO tracemb=$MB; echo "insmod $rm=$?"
	else
		sleep $((CYCLE / 2))
	fi
done
echo "cycles=$i rmmods=$rm"
wait $sng; echo "stress=$?"
wait
rmmod kutrace_mod; echo "rmmod_end=$?"
cat /sys/kernel/debug/kfence/stats > kfence.txt 2>/dev/null
grep -E '^ *debug_locks:' /proc/lockdep_stats > lockdep.txt 2>/dev/null
dmesg > dmesg.all
true

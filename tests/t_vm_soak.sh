#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Soak: wraparound tracing under stress-ng (every hook: system calls,
# faults, context switches, timers, loopback TCP/UDP, IPIs, fork/exec,
# renames; tests/vm/ktexc adds ia32 calls, #UD/#GP/#DB, filtered packets
# and system call 1023) in cycles of go / load / stop+dump, every second
# cycle an rmmod while tracing under load and an insmod; the load never
# stops.  Guest side: tests/vm/scenarios/soak.sh.  0 splats: nothing from
# the kernel's checkers (KASAN, KFENCE, lockdep, atomic sleep, preempt,
# UBSAN) nor WARN/BUG/Oops in the guest's kernel log.
#
#   KT_SOAK_SECS    seconds of load per kernel (default 60; make soak: 600)
#   KT_SOAK_KERNELS kernels (default 6.12; make soak: p6.1-debug 6.12)
#
# make test runs the 60-s version on the stock kernel, which costs no
# build; the debug kernel (a build of ~8 min on an idle 2-core machine,
# more than a 3-min budget) is make soak's.
# p6.1-debug (patches/kutrace-debug.config): KASAN (slab, stack, globals,
# vmalloc: the trace buffer and the module), KFENCE, lockdep,
# DEBUG_ATOMIC_SLEEP, PREEMPT + DEBUG_PREEMPT, UBSAN bounds, DEBUG_LIST;
# the module is built against it, so instrumented too.
# Stock kernels (6.1, 6.12: Debian's cloud kernels, tracepoint backend) have
# none of these built in; what they offer at run time is used instead:
# slub_debug=FZPU (red zones, poisoning, free checks of every slab object),
# init_on_free, page_poison (where built), kfence.sample_interval=1 (6.12
# has KFENCE, off by default; 6.1 cloud has none) and DEBUG_LIST, and the
# module is built with -fsanitize=bounds,shift,... and
# -fsanitize-undefined-trap-on-error (a check that fails is an
# invalid-opcode Oops: no runtime library needed).
. tests/lib.sh
. tests/vm/lib.sh
vm_ready || exit 0
SECS=${KT_SOAK_SECS:-60}
CYCLE=12 MB=1
SNG=$(command -v stress-ng) || { nok "soak: stress-ng installed (tests/deps/soak.apt)"; exit 0; }
# stress-ng and its shared libraries for the busybox guest
X=$TMP/extra
mkdir -p "$X/soak/lib" "$X/lib64"
cp "$SNG" "$X/soak/stress-ng"
ldd "$SNG" | awk '$2 == "=>" && $3 ~ /^\// { print $3 }' | xargs -r cp -L -t "$X/soak/lib"
cp -L /lib64/ld-linux-x86-64.so.2 "$X/lib64/"
export KT_VM_EXTRA=$X
# The module for stock kernels, with UBSan checks that trap
UBFLAGS="-fsanitize=bounds,shift,integer-divide-by-zero,unreachable,vla-bound,bool,enum,null,builtin -fsanitize-undefined-trap-on-error"
# The first line of each report of the kernel's checkers (and WARN, BUG,
# Oops, slub_debug; KT_SPLAT in tests/vm/lib.sh), checked against samples
# of each as 6.1 and 6.12 print them: a pattern that misses one fails here.
SPLAT=$KT_SPLAT
n=0 miss=0
while read -r l; do
	n=$((n + 1))
	echo "$l" | grep -qE "$SPLAT" || { miss=$((miss + 1)); echo "# misses: $l"; }
done <<-'EOF'
[   12.345678] BUG: KASAN: slab-out-of-bounds in kt_new_block+0x1c/0x1f0 [kutrace_mod]
[   12.345678] BUG: KASAN: use-after-free in kutrace_trace_1+0x10/0x80
[   12.345678] BUG: KASAN: vmalloc-out-of-bounds in kt_claim_fast+0x1/0x2 [kutrace_mod]
[   12.345678] BUG: KFENCE: out-of-bounds read in kt_ioctl+0x2/0x3 [kutrace_mod]
[   12.345678] WARNING: possible circular locking dependency detected
[   12.345678] WARNING: inconsistent lock state
[   12.345678] WARNING: possible recursive locking detected
[   12.345678] WARNING: suspicious RCU usage
[   12.345678] BUG: sleeping function called from invalid context at mm/slab.h:123
[   12.345678] BUG: using smp_processor_id() in preemptible [00000000] code: sh/1
[   12.345678] BUG: scheduling while atomic: sh/1/0x00000002
[   12.345678] UBSAN: array-index-out-of-bounds in kernel/kutrace/kutrace.c:88:5
[   12.345678] invalid opcode: 0000 [#1] PREEMPT SMP KASAN
[   12.345678] Oops: invalid opcode: 0000 [#1] PREEMPT SMP NOPTI
[   12.345678] general protection fault, probably for non-canonical address 0xdead: 0000 [#1]
[   12.345678] WARNING: CPU: 1 PID: 99 at module/kutrace_core.c:60 kt_new_block+0x1/0x2 [kutrace_mod]
[   12.345678] kernel BUG at mm/slub.c:123!
[   12.345678] BUG kmalloc-64 (Not tainted): Redzone overwritten
[   12.345678] BUG kmalloc-128 (Tainted: G O): Poison overwritten
[   12.345678] list_add corruption. prev->next should be next (ffff8880), but was 0000
EOF
eq "soak: the splat pattern finds each of $n report headers" 0 "$miss"
# ... and none of the checkers' boot banners (p6.1-debug's, as printed)
n=0 hit=0
while read -r l; do
	n=$((n + 1))
	echo "$l" | grep -qE "$SPLAT" && { hit=$((hit + 1)); echo "# matches: $l"; }
done <<-'EOF'
[    0.898207] kasan: KernelAddressSanitizer initialized
[    1.663899] rcu: 	RCU lockdep checking is enabled.
[    1.804630] kfence: initialized - using 2097152 bytes for 255 objects at 0x(____ptrval____)-0x(____ptrval____)
[    1.829660] ... MAX_LOCKDEP_SUBCLASSES:  8
[    1.829782] ... MAX_LOCKDEP_ENTRIES:     32768
[    1.829600] Lock dependency validator: Copyright (c) 2006 Red Hat, Inc., Ingo Molnar
EOF
eq "soak: ... and matches none of $n boot banners of a debug kernel" 0 "$hit"
sed "s/^SECS=.*/SECS=$SECS CYCLE=$CYCLE MB=$MB/" tests/vm/scenarios/soak.sh > "$TMP/soak.sh"
for k in ${KT_SOAK_KERNELS:-6.12}; do
	t0=$(date +%s)
	unset KT_KO
	case $k in
	p*)
		append="" ;;
	*)
		rel=$(tests/vm/setup.sh | grep "^${k//./\\.}\.")
		# (make passes KCFLAGS on to the kernel's build)
		if ! KCFLAGS="$UBFLAGS" make -s module KVERS="$rel" BUILD="$TMP/ub-$k" > "$TMP/ub-$k.log" 2>&1; then
			nok "$k: module builds with trapping UBSan checks"; sed 's/^/#   /' "$TMP/ub-$k.log" | tail -10
			continue
		fi
		M=$TMP/ub-$k/module/$rel
		n=$(objdump -d "$M/kutrace_mod.ko" | grep -c 'ud2')
		check "$k: module built with trapping UBSan checks ($n ud2)" test "$n" -gt 20
		export KT_KO=$M/kutrace_mod.ko
		append="slub_debug=FZPU init_on_free=1 page_poison=1 kfence.sample_interval=1"
		;;
	esac
	out=$KT_ROOT/build/vm/soak-$k
	# log_buf_len: the whole log survives to the end of the run;
	# no_timer_check: on a loaded host TCG fails the IO-APIC timer check
	# ("IO-APIC + timer doesn't work!", a panic at boot)
	KT_VM_MEM=2G KT_APPEND="tsc=nowatchdog no_timer_check log_buf_len=8M $append" \
		vm_run "$k: guest ran the soak" "$out" -k "$k" -m $MB -t $((SECS + 900)) "$TMP/soak.sh" || continue
	ok "$k: guest ran the ${SECS}-s soak ($VM_AFTER, $(( $(date +%s) - t0 )) s in all)"
	L=$out/scenario.log
	eq "$k: insmod kutrace_mod.ko tracemb=$MB" "insmod0=0" "$(grep '^insmod0=' "$L")"
	cycles=$(sed -n 's/^cycles=\([0-9]*\) .*/\1/p' "$L")
	rms=$(sed -n 's/^cycles=.* rmmods=\([0-9]*\)/\1/p' "$L")
	# a cycle is CYCLE seconds plus what its commands take, which on a
	# loaded host can be a lot more (seen: 150000 getpid calls in 45 s)
	between "$k: cycles run (at least 2)" 2 $(( SECS / CYCLE > 2 ? SECS / CYCLE : 2 )) "$cycles"
	eq "$k: an rmmod/insmod every second cycle" $(( ${cycles:-0} / 2 )) "$rms"
	eq "$k: every gowrap succeeded" "" "$(grep -E '^go2? [0-9]+=' "$L" | grep -v '=0$')"
	eq "$k: every stop (off, flush, dump) succeeded" "" "$(grep -E '^stop [0-9]+=' "$L" | grep -v '=0$')"
	eq "$k: every rmmod while tracing under load and insmod succeeded" \
		"" "$(grep -E '^(rmmod|insmod) [0-9]+=' "$L" | grep -v '=0$')"
	eq "$k: rmmod at the end" "rmmod_end=0" "$(grep '^rmmod_end=' "$L")"
	eq "$k: stress-ng ran every stressor to the end" "stress=0" "$(grep '^stress=' "$L")"
	# every cycle's trace: wrapped, well formed, its events counted
	events=0 wrapped=0 bad=0 laps=0
	for ((i = 1; i <= ${cycles:-0}; i++)); do
		t=$out/c$i.trace
		if ! ktcheck "$t" > "$TMP/c.f" 2>&1; then bad=$((bad + 1)); echo "# c$i: ktcheck failed"; continue; fi
		events=$((events + $(awk '$1 == "cpu" { s += $4 } END { print s + 0 }' "$TMP/c.f")))
		if [ -x "$KT_BIN/checktrace" ] && ! "$KT_BIN/checktrace" "$t" -q > "$TMP/ct" 2>&1; then
			bad=$((bad + 1)); echo "# c$i: checktrace: $(tail -1 "$TMP/ct")"
		fi
		if [ "$(fact "$TMP/c.f" wrapped)" != 1 ] || [ "$(fact "$TMP/c.f" blocks)" != $((MB * 16)) ]; then
			echo "# c$i: wrapped $(fact "$TMP/c.f" wrapped), $(fact "$TMP/c.f" blocks) blocks"
			continue
		fi
		wrapped=$((wrapped + 1))
		# laps of the buffer, roughly: traced time / time the kept
		# blocks cover (the shortest CPU span: block 0's CPU reaches
		# back to the start)
		laps=$(awk -v i=$i -v r="$(fact "$TMP/c.f" rate)" -v l=$laps '
			$1 == "t_go" && $2 == i { g = $3 } $1 == "t_stop" && $2 == i { s = $3 }
			$1 == "cpu" && $4 > 0 { if (m == "" || $12 < m) m = $12 }
			END { if (m > 0 && r > 0) l += (s - g) * 1e6 * r / m; printf "%.1f", l }' "$L" "$TMP/c.f")
	done
	eq "$k: every cycle's trace wrapped around (WRAP flag, all $((MB * 16)) blocks)" "${cycles:-?}" "$wrapped"
	eq "$k: every cycle's trace is well formed (ktcheck, checktrace)" 0 "$bad"
	check "$k: events recorded ($events)" test "$events" -gt 0
	# the kernel's checkers: the whole log (from 0.000000 on), no report
	check "$k: the guest's kernel log is complete" grep -q '^\[ *0\.000000\]' "$out/dmesg.all"
	grep -E "$SPLAT" "$out/dmesg.all" > "$out/splats.txt"
	if [ -s "$out/splats.txt" ]; then
		nok "$k: 0 splats in the guest's kernel log ($(wc -l < "$out/splats.txt") lines)"
		sed 's/^/#   /' "$out/splats.txt" | head -40
	else
		ok "$k: 0 splats in the guest's kernel log (KASAN, KFENCE, lockdep, UBSAN, sleep/preempt checks, WARN, BUG, Oops)"
	fi
	case $k in
	p*-debug)
		kd=$(tests/vm/kbuild.sh -n "$(echo "$k" | sed 's/^p//; s/-debug$//')" debug)
		for c in KASAN KFENCE PROVE_LOCKING DEBUG_ATOMIC_SLEEP DEBUG_PREEMPT; do
			check "$k: CONFIG_$c=y" grep -q "^CONFIG_$c=y" "$kd/src/.config"
		done
		check "$k: KASAN active in the guest" grep -q "KernelAddressSanitizer initialized" "$out/dmesg.all"
		eq "$k: lockdep still on at the end (no earlier report turned it off)" \
			"debug_locks: 1" "$(sed 's/^ *//; s/  */ /g' "$out/lockdep.txt")"
		;;
	esac
	if [ -s "$out/kfence.txt" ]; then
		a=$(awk -F: '/total allocations/ { print $2 + 0 }' "$out/kfence.txt")
		check "$k: KFENCE sampled allocations (${a:-0})" test "${a:-0}" -gt 0
	fi
	echo "# $k: soak ${SECS} s: $cycles cycles, $wrapped wrapped (~$laps laps of the buffer), $events events in the traces, $rms rmmod/insmod under load"
	grep -E '^stress-ng: (info|metrc).*(stressor|bogo ops)' "$out/stress.out" | head -3 | sed 's/^/# /'
done

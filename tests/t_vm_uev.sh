#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# User events without a system call (docs/spec/FORMATS.md 9) on a stock
# Debian cloud kernel in QEMU: tests/vm/uevload.c marks through
# libkutrace's fast path while kutrace_control --user-kb records, and the
# host checks the merged traces against the kernel's own events:
#  - many writers: 8 processes x 4 threads moving between CPUs, every
#    mark once, in order, each on the CPU that was running its thread;
#  - ordering: mark_a("before"); getpid(); mark_a("after") 10,000 times,
#    the getpid between its two marks on the same CPU every time;
#  - a user who is not root marks, and cannot write the control file;
#  - a client and a server process marking the same 200 RPCs;
#  - SIGKILL mid-loop: every mark that returned is there, no torn one;
#  - a ring too small: the loss counted; with wraparound the newest kept;
#  - the book's system call 1023 (tests/vm/kulib.c) beside the fast path
#    (x86-64 only: arm64 has no system call 1023);
#  - figures: ns per mark on the fast path and through system call 1023.
# Guest side: tests/vm/scenarios/uev.sh (uev.run without a shell).
# KT_VM_KERNELS: default 6.1 6.12 arm64-6.1 p6.1 (about 20, 20, 70 and
# 25 s; the patched kernel's marks take its own system call 1023 hook;
# tests/vm/lib.sh vm_arch); riscv64-6.1 too.
. tests/lib.sh
. tests/vm/lib.sh
vm_ready || exit 0
B=$KT_BIN
for k in ${KT_VM_KERNELS:-6.1 6.12 arm64-6.1 p6.1}; do
	vm_arch "$k"
	out=$KT_ROOT/build/vm/uev-$k
	vm_run "$k: guest ran the scenario" "$out" $VMOPT tests/vm/scenarios/uev.$SCEN || continue
	[ $SCEN = sh ] || grep -E "Oops|BUG:|general protection|Call Trace|WARNING:" \
		"$out/dmesg.txt" > "$out/oops.txt"
	ok "$k: guest ran the user-events scenario ($VM_AFTER)"
	L=$out/scenario.log
	scen="many order nobody rpc crash small wrap bench"
	[ $ARCH = x86 ] && scen="$scen book"
	for s in $scen; do
		check "$k: $s: kutrace_control record exits 0" grep -q "^$s=0" "$L"
		"$B/rawtoevent" "$out/$s.trace" 2> "$TMP/$s.rerr" | LC_ALL=C sort -n > "$TMP/$s.ev"
	done

	# many writers: exact counts, in order, each on its thread's CPU
	check "$k: many: 32 buffers collected, none lost" \
		grep -q "user buffers: 32 threads, 0 events lost" "$out/many.err"
	check "$k: many: 160000 marks merged, none dropped" \
		grep -q "user buffers: 32 threads, 160000 events merged, 0 lost (buffer full), 0 dropped (torn or forged), 0 outside" "$TMP/many.rerr"
	awk 'NR == FNR { if ($1 == "thread") { n[$2] = $4; k[$2] = $3 } next }
	     $3 == 512 { cur[$4] = $5 }
	     $3 == 525 && ($5 in n) { t = $5; i = $7 - k[t] * 1048576
		if (i != seen[t]++) order++
		if (cur[$4] != t) where++
		cpus[t, $4] = 1 }
	     END { for (t in n) if (seen[t] != n[t]) count++
		   for (x in cpus) { split(x, a, SUBSEP); nc[a[1]]++ }
		   for (t in n) if (nc[t] > 1) moved++
		   printf "count %d order %d where %d moved %d\n", count, order, where, moved }' \
		"$out/many.out" "$TMP/many.ev" > "$TMP/many.f"
	eq "$k: many: 32 threads x 5000 marks, each once, in order, each on its thread's CPU (all 32 moved)" \
		"count 0 order 0 where 0 moved 32" "$(cat "$TMP/many.f")"

	# ordering: getpid's call and return between the two marks, one CPU
	tid=$(awk '$1 == "order" { print $2 }' "$out/order.out")
	awk -v t="$tid" -v call=$((0x800 + NR_getpid)) -v ret=$((0xA00 + NR_getpid)) '$5 != t { next }
	     $3 == 522 && $10 == "mark_a=before" { b = 1; bc = $4; g = 0; next }
	     ($3 == call || $3 == ret) && b { if ($4 == bc) g++; next }
	     $3 == 522 && $10 == "mark_a=after" { if (b && $4 == bc && g >= 1) good++; else bad++; b = 0 }
	     END { printf "good %d bad %d\n", good, bad }' "$TMP/order.ev" > "$TMP/order.f"
	eq "$k: order: 10000 x getpid between mark_a(before) and mark_a(after) on one CPU" \
		"good 10000 bad 0" "$(cat "$TMP/order.f")"

	# a user who is not root
	read -r _ npid nctl < <(grep '^nobody' "$out/nobody.out")
	eq "$k: nobody: user 65534's 1000 marks through the fast path" "1000 $((200000 * 1000 + 999 * 1000 / 2))" \
		"$(awk -v p="$npid" '$3 == 525 && $5 == p { n++; s += $7 } END { print n + 0, s + 0 }' "$TMP/nobody.ev")"
	check "$k: nobody: all from its user buffer" grep -q "user buffers: 1 threads, 1000 events merged" "$TMP/nobody.rerr"
	eq "$k: nobody: the control file (tracing state) is not writable to it" "ctl_writable=0" "$nctl"

	# RPCs from two processes in one trace, named by their method
	for side in client server; do
		p=$(awk -v s=$side '$1 == "rpc" && $2 == s { print $3 }' "$out/rpc.out")
		eq "$k: rpc: the $side (pid $p) marks 200 requests, ids 1..200" "200 20100" \
			"$(awk -v p="$p" '$3 == 513 && $5 == p { n++; s += $7 } END { print n + 0, s + 0 }' "$TMP/rpc.ev")"
	done
	"$B/kutrace_postproc" "$out/rpc.trace" --no-html -o "$TMP/rpc.json" 2>/dev/null
	eq "$k: rpc: both sides' requests are rows named ping.ID (the client's names)" 400 \
		"$(grep -c ', 513, [0-9]*, 0, 0, "ping\.[0-9]*"\]' "$TMP/rpc.json")"

	# SIGKILL mid-loop
	read -r _ ktid kdone < <(grep '^killed' "$out/crash.out")
	awk -v t="$ktid" '$3 == 525 && $5 == t { print $7 }' "$TMP/crash.ev" | sort -n > "$TMP/crash.args"
	check "$k: crash: the $kdone marks that returned before SIGKILL all there, in order ($(wc -l < "$TMP/crash.args") kept)" \
		awk -v d="$kdone" '$1 != NR - 1 { exit 1 } END { exit !(NR == d || NR == d + 1) }' "$TMP/crash.args"
	check "$k: crash: at most the one entry in flight dropped" \
		grep -Eq "user buffers: 1 threads, [0-9]+ events merged, 0 lost \(buffer full\), [01] dropped" "$TMP/crash.rerr"

	# the book's system call path beside the fast path
	if [ $ARCH != x86 ]; then
		skip "$k: book: system call 1023 is x86-64 only"
	else
		child=$(awk '$1 == "child" { print $2; exit }' "$out/kulib.out")
		eq "$k: book: kulib's user marks through system call 1023 (args 100000 + i)" \
			"1000 $((100000 * 1000 + 999 * 1000 / 2))" \
			"$(awk -v p="$child" '$3 == 525 && $5 == p { n++; s += $7 } END { print n + 0, s + 0 }' "$TMP/book.ev")"
		eq "$k: book: and uevload's 2 x 1000 through the fast path, in the same trace" "2000" \
			"$(awk 'NR == FNR { if ($1 == "thread") n[$2] = 1; next } $3 == 525 && ($5 in n) { c++ } END { print c + 0 }' \
				"$out/book.out" "$TMP/book.ev")"
	fi

	# a ring too small, without and with wraparound
	check "$k: small: kutrace_control says 3976 events lost" \
		grep -q "user buffers: 1 threads, 3976 events lost" "$out/small.err"
	check "$k: small: the first 1024 marks merged, 3976 counted lost" \
		grep -q "user buffers: 1 threads, 1024 events merged, 3976 lost (buffer full), 0 dropped" "$TMP/small.rerr"
	eq "$k: small: they are marks 0..1023" "1024 0 1023" \
		"$(awk '$3 == 525 { n++; if (!n0++) lo = $7; hi = $7 } END { print n + 0, lo + 0, hi + 0 }' "$TMP/small.ev")"
	check "$k: wrap: 2 x the newest 1024 marks, nothing lost or dropped" \
		grep -q "user buffers: 2 threads, 2048 events merged, 0 lost (buffer full), 0 dropped" "$TMP/wrap.rerr"
	eq "$k: wrap: each thread's are marks 3976..4999, in order" "2 2" \
		"$(awk 'NR == FNR { if ($1 == "thread") { k[$2] = $3 } next }
			$3 == 525 && ($5 in k) { i = $7 - k[$5] * 1048576; if (i != 3976 + seen[$5]++) bad[$5] = 1 }
			END { for (t in k) { n++; if (!bad[t] && seen[t] == 1024) good++ } print n + 0, good + 0 }' \
			"$out/wrap.out" "$TMP/wrap.ev")"

	[ $SCEN = run ] ||
		eq "$k: the buffers are gone after each trace (the control file stays)" "ctl" "$(cat "$out/shm.txt")"
	check "$k: no oops in the guest" test ! -s "$out/oops.txt"
	sed 's/^/# '"$k"': /' "$out/bench.out"
done

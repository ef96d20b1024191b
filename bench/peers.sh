#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# `make bench-peers`: kutrace's cost against ftrace (trace-cmd), perf,
# LTTng and bpftrace, one guest boot per kernel, the same workloads in
# interleaved rounds (tests/vm/scenarios/bench_peers.sh), and the table
# into docs/PERFORMANCE.md (bench/peers_report.py).
#
#   bench/peers.sh [--help] [SECTION...]
#
# Sections (default: all, in this order):
#   stock    the Debian 12 guest (tests/vm/debian/image-peers.sh: every peer;
#            LTTng's modules from tests/vm/debian/lttng-modules.sh) on
#            Debian's generic 6.1 kernel, kutrace from `make deb` (DKMS in
#            the guest; PEERS_KT=host: the module and kutrace_control built
#            here, minutes quicker)
#   patched  the kutrace-patched 6.1 kernel (tests/vm/vm.sh -k p6.1, built by
#            tests/vm/kbuild.sh 6.1): its busybox guest, with trace-cmd and
#            perf copied from the host with their libraries (the patched
#            test kernel cannot boot the Debian image: tinyconfig, no
#            systemd requirements; no BPF, no LTTng modules)
#   count    events, bytes and losses of each last-round trace, on the host
#   report   the table (stdout, and docs/PERFORMANCE.md)
# PEERS_SIZES=ROUNDS,GETPID,MIXED,PINGPONG,FAULTS (default 5,50000,1000,4000,8000).
# PEERS_OUT (default build/bench/peers) keeps every raw output.
set -u
cd "$(dirname "$0")/.."
OUT=${PEERS_OUT:-build/bench/peers}
SIZES=${PEERS_SIZES:-5,50000,1000,4000,8000}
case ${1:-} in -h|--help) sed -n '3,24p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;; esac
sections=${*:-stock patched count report}
mkdir -p "$OUT"
log() { echo "bench-peers: $*" >&2; }

stock() {
	local V deb dkms img ltt rel kt
	V=$(cat VERSION)
	deb=build/deb/kutrace_${V}_amd64.deb dkms=build/deb/kutrace-dkms_${V}_all.deb
	cc -O2 -static -Wall -Werror -Iinclude -o "$OUT/bench_load" tests/vm/bench_load.c || return 1
	img=$(tests/vm/debian/image-peers.sh) || return 1
	rel=$(cat "$img/release")
	ltt=$(tests/vm/debian/lttng-modules.sh "$rel") || { log "stock: no LTTng modules"; ltt=""; }
	if [ "${PEERS_KT:-deb}" = host ]; then
		# quicker (the short test): the module built here against the
		# guest kernel's headers (lttng-modules.sh installed them), and
		# this tree's kutrace_control (Debian 12's libraries, as the guest)
		make -s module KVERS="$rel" BUILD="$OUT/mod" >&2 && make -s build/bin/kutrace_control >&2 || return 1
		kt="$OUT/mod/module/$rel/kutrace_mod.ko build/bin/kutrace_control"
	else
		# as a user installs it: the packages of make deb (DKMS builds the
		# module in the guest), when they are newer than every file of the tree
		if [ ! -f "$deb" ] || [ ! -f "$dkms" ] ||
			[ -n "$(git ls-files -z 2>/dev/null | xargs -0 sh -c 'find "$@" -newer '"$deb"' -print -quit' sh)" ]; then
			nice -n 10 make -s deb > "$OUT/deb.out" 2>&1 || { tail -5 "$OUT/deb.out" >&2; log "make deb failed"; return 1; }
		fi
		kt="$deb $dkms"
	fi
	rm -rf "$OUT/stock"
	log "stock: Debian generic 6.1 guest, sizes $SIZES"
	KT_APPEND="ktbench=$SIZES tsc=nowatchdog" KT_DEBIAN_IMAGE=tests/vm/debian/image-peers.sh KT_DEBIAN_OUTMB=1024 \
		tests/vm/debian/run.sh -t "${PEERS_TIMEOUT:-5400}" tests/vm/scenarios/bench_peers.sh \
		"$OUT/stock" "$OUT/bench_load" tests/vm/bench_events $kt $ltt || return 1
	[ "$(cat "$OUT/stock/status")" = 0 ] || { log "stock: scenario exit $(cat "$OUT/stock/status")"; return 1; }
}

# A dynamically linked host program and every library it loads, under $2.
. "$(dirname "${BASH_SOURCE[0]}")/copyprog.sh"

patched() {
	local d x=$OUT/p61-extra
	d=$(tests/vm/kbuild.sh -n 6.1 2>/dev/null)
	if [ -z "$d" ] || [ ! -f "$d/bzImage" ]; then
		log "patched: p6.1 not built (tests/vm/kbuild.sh 6.1): skipped"
		rm -rf "$OUT/patched"; mkdir -p "$OUT/patched"
		echo "patched 6.1 kernel not built" > "$OUT/patched/unavailable"
		return 0
	fi
	rm -rf "$x" "$OUT/patched"
	mkdir -p "$x"
	cp tests/vm/bench_events "$x/"
	copy_prog trace-cmd "$x" || log "patched: no trace-cmd on the host (apt-get install trace-cmd)"
	copy_prog perf "$x" || log "patched: no perf on the host (apt-get install linux-perf)"
	log "patched: p6.1 busybox guest, sizes $SIZES"
	KT_VM_EXTRA=$x KT_VM_MEM=2G KT_APPEND="ktbench=$SIZES tsc=nowatchdog" tests/vm/vm.sh -k p6.1 -m 64 \
		-t "${PEERS_TIMEOUT:-5400}" tests/vm/scenarios/bench_peers.sh "$OUT/patched" >&2 || return 1
}

# events, bytes, lost per tracer and workload of the last round's files
count() {
	local k w f n b l
	mkdir -p build/bench
	make -s build/bin/ktcheck build/bin/kutrace_bench >&2 || return 1
	for k in stock patched; do
		[ -f "$OUT/$k/results.txt" ] || continue
		for w in getpid mixed pingpong faults null; do
			f=$OUT/$k/kt_$w.trace
			# the buffer (64 MB) never fills: nothing lost
			[ -f "$f" ] && build/bin/ktcheck "$f" | awk -v w=$w -v b="$(stat -c %s "$f")" \
				'$1 == "cpu" { s += $4 } END { print "cfg=kt_on load=" w " events=" s " bytes=" b " lost=" (b < 64 * 1048576 ? 0 : "full") }'
			f=$OUT/$k/tc_$w.dat
			if [ -f "$f" ] && command -v trace-cmd > /dev/null; then
				n=$(trace-cmd report -i "$f" 2>/dev/null | grep -cv '^ *cpus=')
				# the ring buffers' overruns and drops, saved in the file
				l=$(trace-cmd report --stat -i "$f" 2>/dev/null | awk '/^overrun:|^dropped events:/ { s += $NF } END { print s + 0 }')
				echo "cfg=ftrace load=$w events=$n bytes=$(stat -c %s "$f") lost=$l"
			fi
			f=$OUT/$k/perf_$w.data
			if [ -f "$f" ] && command -v perf > /dev/null; then
				perf report -f --stats -i "$f" > "$OUT/$k/perf_$w.stats" 2>&1
				n=$(awk '$1 == "SAMPLE" && $2 == "events:" { print $3; exit }' "$OUT/$k/perf_$w.stats")
				# LOST and LOST_SAMPLES records (absent when none)
				l=$(awk '/^ *LOST(_SAMPLES)? events:/ { s += $3 } END { print s + 0 }' "$OUT/$k/perf_$w.stats")
				echo "cfg=perf load=$w events=${n:-0} bytes=$(stat -c %s "$f") lost=$l"
			fi
			f=$OUT/$k/lt_$w
			if [ -d "$f" ] && command -v babeltrace2 > /dev/null; then
				n=$(babeltrace2 "$f" 2> "$OUT/$k/lt_$w.bt.err" | wc -l)
				l=$(sed -n 's/.*discarded \([0-9]*\) events.*/\1/p' "$OUT/$k/lt_$w.bt.err" | awk '{ s += $1 } END { print s + 0 }')
				b=$(find "$f" -type f -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }')
				echo "cfg=lttng load=$w events=$n bytes=$b lost=$l"
			fi
		done > "$OUT/$k/counts.txt"
		cat "$OUT/$k/counts.txt"
		build/bin/kutrace_bench density "$OUT/$k"/kt_*.trace > "$OUT/$k/density.txt"
	done
}

report() {
	python3 bench/peers_report.py "$OUT" docs/PERFORMANCE.md
}

rc=0
for s in $sections; do
	case $s in
	stock|patched|count|report) $s || { log "$s failed"; rc=1; } ;;
	*) log "unknown section $s"; exit 2 ;;
	esac
done
exit $rc

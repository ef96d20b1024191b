#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The BPF backend's cost against the module's tracepoint backend and
# ftrace, in one guest, interleaved (tests/vm/scenarios/bench_bpf.sh):
#   tests/vm/host/bench_bpf.sh [-k 6.1|6.12|host] [ROUNDS,N,M] [OUTDIR]
# -k host runs the same rounds on this machine's own kernel (a real CPU,
# no emulation; root, kernel BTF): the BPF backend and ftrace only, as a
# kernel that cannot load the module is the BPF backend's reason to be.
# Prints per workload the fastest run of each configuration over the
# rounds (host load only adds time), the overhead over the fastest
# untraced run and ns per recorded event (kutrace: entries of its trace;
# ftrace: entries + overrun of its ring buffer).
set -eu
cd "$(dirname "$0")/../../.."
k=6.1
[ "${1:-}" = -k ] && { k=$2; shift 2; }
sizes=${1:-5,50000,1000} out=${2:-build/bench/bpf-$k}
if [ "$k" = host ]; then
	make -s build/bin/bench_load build/bin/kutrace_control
	rm -rf "$out" && mkdir -p "$out"
	(cd "$out" && PATH=$OLDPWD/build/bin:$OLDPWD/tests/vm:$PATH KT_BENCH=$sizes KT_TRACEMB=64 \
		KT_BENCH_EVENTS=$OLDPWD/tests/vm/bench_events \
		bash "$OLDPWD/tests/vm/scenarios/bench_bpf.sh") >&2
else
	KT_APPEND="ktbench=$sizes tsc=nowatchdog" tests/vm/vm.sh -k "$k" -m 64 -t 1500 \
		tests/vm/scenarios/bench_bpf.sh "$out" >&2
fi
make -s build/bin/ktcheck
for w in getpid mixed; do
	for c in kt bpf; do
		[ -f "$out/${c}_$w.trace" ] || continue
		printf '%s %s %s\n' "$c" "$w" "$(build/bin/ktcheck "$out/${c}_$w.trace" |
			awk '$1 == "cpu" { s += $4 } END { print s }')"
	done
done > "$out/events.txt"
echo "kernel $(cat "$out/kernel.txt"), rounds/sizes $sizes$([ "$k" = host ] && echo ", this machine's own kernel (not emulated), load average $(cut -d' ' -f1-3 /proc/loadavg)")"
awk 'NR == FNR { ev[$1 "_on " $2] = $3; next }
     { for (i = 1; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
       key = f["cfg"] " " f["load"]
       if (!(key in best) || f["ns"] + 0 < best[key]) {
               best[key] = f["ns"] + 0; if (f["cfg"] == "ftrace") ev[key] = f["events"] }
       n[f["load"]] = f["n"] }
     END {
       split("getpid mixed", L, " ")
       for (j = 1; j <= 2; j++) {
         w = L[j]; base = best["none " w]
         printf "%s: untraced %.0f ns/op", w, base / n[w]
         split("kt_on bpf_on ftrace", C, " ")
         for (c = 1; c <= 3; c++) {
           k = C[c] " " w; pe[c] = 0
           if (!(k in best)) continue
           o = best[k] - base
           pe[c] = ev[k] ? o / ev[k] : 0
           printf "; %s +%.0f ns/op %.0f ns/event (%d events)", C[c], o / n[w], pe[c], ev[k]
         }
         if (pe[1] > 0) printf "; bpf/module %.2fx", pe[2] / pe[1]
         if (pe[2] > 0) printf "; ftrace/bpf %.2fx", pe[3] / pe[2]
         printf " per event\n"
       } }' "$out/events.txt" "$out/results.txt"
# The BPF programs' own cost (kernel.bpf_stats_enabled), busiest first.
for w in getpid mixed; do
	[ -s "$out/bpfstats_$w.txt" ] || continue
	echo "BPF programs during $w (runs, mean ns per run, instructions):"
	sort -k2,2nr "$out/bpfstats_$w.txt" | head -8 | sed 's/^/  /'
done

#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Scenarios 3 and 4 in QEMU (Debian 6.1 cloud kernel by default):
# invalid tracemb, buffer full stops cleanly and says so, wraparound keeps
# the newest data and still postprocesses, rmmod while tracing, rmmod
# refused while /dev/kutrace is open, reload and trace again; disk full
# while dumping and a device held by another process give clear errors.
# KT_VM_KERNELS_LIFECYCLE="6.1 arm64-6.1 ..." selects kernels.
. tests/lib.sh
. tests/vm/lib.sh
vm_ready || exit 0
for k in ${KT_VM_KERNELS_LIFECYCLE:-6.1}; do
	out=$KT_ROOT/build/vm/lifecycle-$k
	vm_arch "$k"
	vm_run "$k: guest ran the scenario" "$out" $VMOPT tests/vm/scenarios/lifecycle.sh || continue
	ok "$k: guest ran the lifecycle scenario ($VM_AFTER)"
	L=$out/scenario.log
	check "$k: insmod tracemb=0 fails" grep -q "badparam=[1-9]" "$L"
	check "$k: ... with a clear message" grep -q "tracemb=0 is invalid" "$out/badparam.dmesg"
	check "$k: insmod tracemb=1" grep -q "insmod1=0" "$L"
	full_and_wrap "$k" "$out" tracepoint
	if [ -x "$KT_BIN/kutrace_postproc" ]; then
		cp "$out/wrap.trace" "$out/full.trace" "$TMP/"
		check "$k: wraparound trace postprocesses" \
			"$KT_BIN/kutrace_postproc" "$TMP/wrap.trace" --no-html -o "$TMP/wrap.json"
		check "$k: full trace postprocesses" \
			"$KT_BIN/kutrace_postproc" "$TMP/full.trace" --no-html -o "$TMP/full.json"
	else
		skip "$k: postprocessing: no $KT_BIN/kutrace_postproc"
	fi
	check "$k: 'kutrace_control go' leaves tracing on" grep -q "tracing on" "$out/test.out"
	check "$k: rmmod refused while /dev/kutrace is open" grep -q "rmmod_busy=[1-9]" "$L"
	check "$k: rmmod while tracing" grep -q "rmmod_tracing=0" "$L"
	check "$k: reload" grep -q "reinsmod=0" "$L"
	check "$k: trace again after reload" grep -q "again=0" "$L"
	ktcheck "$out/again.trace" > "$TMP/again.f"
	apid=$(awk '$1 == "pid" { print $2; exit }' "$out/again.out")
	eq "$k: after reload: exactly 1000 getpid calls" "calls 1000" \
		"$(fact "$TMP/again.f" pid $apid sys $NR_getpid | cut -d' ' -f1-2)"
	check "$k: disk full while dumping: record fails" grep -q "diskfull=[1-9]" "$L"
	check "$k: ... and says the disk is full" grep -qi "no space left\|disk full" "$out/diskfull.err"
	sed 's/^/#   /' "$out/diskfull.err"
	eq "$k: ... and leaves no file behind" ". .." "$(tr '\n' ' ' < "$out/diskfull.ls" | sed 's/ $//')"
	check "$k: device held by another process: record fails" grep -q "owned=[1-9]" "$L"
	check "$k: ... and says who has it" grep -q "another process" "$out/owned.err"
	sed 's/^/#   /' "$out/owned.err"
	check "$k: after reload: cross-CPU ping-pong recorded" grep -q "ipi_again=0" "$L"
	ktcheck "$out/ipi_again.trace" > "$TMP/ipia.f"
	n=$(fact "$TMP/ipia.f" ipi | cut -d' ' -f1)
	check "$k: after reload: IPI sends traced (${n:-0})" test "${n:-0}" -gt 0
	check "$k: 'kutrace_control 1' then '0' writes ku_<date>_<time>_<host>_<pid>.trace" \
		sh -c "ls '$out'/ku_[0-9]*_[0-9]*_*_[0-9]*.trace >/dev/null"
	ktcheck "$(ls "$out"/ku_*.trace | head -1)" > "$TMP/split.f"
	spid=$(awk '$1 == "pid" { print $2; exit }' "$out/split.out")
	eq "$k: ... holding exactly the 500 getpid calls made in between" "calls 500" \
		"$(fact "$TMP/split.f" pid $spid sys $NR_getpid | cut -d' ' -f1-2)"
	if [ -x "$KT_BIN/kutrace_postproc" ]; then
		cp "$(ls "$out"/ku_*.trace | head -1)" "$TMP/split.trace"
		check "$k: ... and it postprocesses" \
			"$KT_BIN/kutrace_postproc" "$TMP/split.trace" --no-html -o "$TMP/split.json"
	fi
	check "$k: final rmmod" grep -q "rmmod_end=0" "$L"
	check "$k: insmod ipi_kprobes=0" grep -q "noipi_insmod=0" "$L"
	check "$k: ipi_kprobes=0: record succeeded" grep -q "noipi=0" "$L"
	ktcheck "$out/noipi.trace" > "$TMP/noipi.f"
	n=$(fact "$TMP/noipi.f" ipi | cut -d' ' -f1)
	case $k in
	6.1)	# no ipi_send_* tracepoints: without kprobes IPI sends are missing
		check "$k: ipi_kprobes=0: the backend entry says IPI sends are missing" \
			grep -q "^backend tracepoint: .*; no IPI send$" "$TMP/noipi.f"
		eq "$k: ipi_kprobes=0: no IPI send events" "0" "$n" ;;
	*)	# 6.6+: the tracepoints, kprobes not needed (arm64: no such
		# parameter, ipi_raise before 6.6)
		check "$k: ipi_kprobes=0: IPI sends still traced (tracepoints, ${n:-0})" \
			test "${n:-0}" -gt 0 ;;
	esac
	check "$k: rmmod after ipi_kprobes=0" grep -q "noipi_rmmod=0" "$L"
	check "$k: no oops in the guest" test ! -s "$out/oops.txt"
done

#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Runs every test suite tests/t_*.sh and prints one closing line
# "N passed, N failed".  Each suite prints "ok - what" / "not ok - what"
# lines (and may print "skip - what: why").  --quick runs only the suites
# that run the programs of $KT_BIN and need neither a VM nor a browser
# (the sanitizer pass).
# KT_BIN selects the directory holding the programs (default build/bin).
set -u
cd "$(dirname "$0")/.."
export KT_BIN=${KT_BIN:-build/bin}
export KT_ROOT=$PWD
# Suites run make as a user does, from a shell: under `make test` the
# inherited MAKELEVEL/MAKEFLAGS would add "Entering directory" lines to
# the output of every make a suite runs and parses.
unset MAKELEVEL MAKEFLAGS MFLAGS
# kutrace_sql/why/view X.trace keep X.tables beside the trace; the suites
# run them on tests/golden/ and must not write there (nor reuse a store an
# earlier run or another build left): a temporary store, unless a suite
# (t_reuse) asks otherwise.
export KUTRACE_STORE=temp
quick=0
only=""
for a in "$@"; do
	case $a in
	--quick) quick=1 ;;
	*) only="$only $a" ;;
	esac
done
pass=0 fail=0 skip=0
log=$(mktemp)
for t in tests/t_*.sh; do
	name=$(basename "$t" .sh)
	if [ -n "$only" ] && ! echo "$only" | grep -qw "$name"; then continue; fi
	# --quick (make test-san): the programs under the sanitizers, without
	# the guests and browsers, and without the packaging suites, which
	# build and install from the tree themselves and never run $KT_BIN: a
	# second pass would test the same thing again.  t_chdb's reader loads
	# ClickHouse's 570 MB libchdb.so, which does not run under
	# AddressSanitizer (the stores it reads are t_tables' under it).
	if [ $quick = 1 ]; then
		case $name in t_vm*|t_browser*|t_kernel*|t_fresh|t_deb|t_install|t_clickhouse|t_chdb) continue ;; esac
	fi
	echo "=== $name"
	start=$(date +%s)
	bash "$t" 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	p=$(grep -c '^ok - ' "$log")
	f=$(grep -c '^not ok - ' "$log")
	s=$(grep -c '^skip - ' "$log")
	if [ "$rc" != 0 ] && [ "$f" = 0 ]; then
		echo "not ok - $name exited with status $rc"
		f=1
	fi
	pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s))
	echo "--- $name: $p passed, $f failed, $s skipped ($(( $(date +%s) - start )) s)"
done
rm -f "$log"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ] && [ "$pass" -gt 0 ]

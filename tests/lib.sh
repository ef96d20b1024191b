# SPDX-License-Identifier: BSD-3-Clause
# Helpers sourced by the test suites.
KT_BIN=${KT_BIN:-build/bin}
KT_ROOT=${KT_ROOT:-$PWD}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
ok()   { echo "ok - $*"; }
nok()  { echo "not ok - $*"; }
skip() { echo "skip - $*"; }
# check "what" command...: ok if the command succeeds
check() { local what=$1; shift; if "$@"; then ok "$what"; else nok "$what"; fi; }
# same_file "what" expected actual: ok if identical, else show a diff
same_file() {
	if cmp -s "$2" "$3"; then ok "$1"; else
		nok "$1"; diff -u "$2" "$3" | head -40 | sed 's/^/#   /'
	fi
}

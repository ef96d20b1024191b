# SPDX-License-Identifier: BSD-3-Clause
# Helpers sourced by the test suites.
KT_BIN=${KT_BIN:-build/bin}
KT_ROOT=${KT_ROOT:-$PWD}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
ok()   { echo "ok - $*"; }
nok()  { echo "not ok - $*"; }
skip() { echo "skip - $*"; }
diag() { echo "# $*"; }
# check "what" command...: ok if the command succeeds
check() { local what=$1; shift; if "$@"; then ok "$what"; else nok "$what"; fi; }
# between what lo hi actual: ok if lo <= actual <= hi (integers)
between() {
	if [ -n "$4" ] && [ "$4" -ge "$2" ] && [ "$4" -le "$3" ]; then ok "$1 ($4)"
	else nok "$1 (expected $2..$3, got ${4:-nothing})"; fi
}
# real_trace: the path of the original KUtrace's hello_world JSON, real
# outside input (tests/data/real/README.md): ../shared/real/ when there,
# else the copy in the tree, unpacked into $TMP.
real_trace() {
	local s=$KT_ROOT/../shared/real/hello_world_demo.json
	if [ -f "$s" ]; then echo "$s"; return; fi
	[ -f "$TMP/hello_world_demo.json" ] ||
		gzip -dc "$KT_ROOT/tests/data/real/hello_world_demo.json.gz" > "$TMP/hello_world_demo.json"
	echo "$TMP/hello_world_demo.json"
}
# eq what expected actual
eq() { if [ "$2" = "$3" ]; then ok "$1"; else nok "$1 (expected '$2', got '$3')"; fi; }
# relay PREFIX FILE: the "ok - " / "not ok - " lines a guest or a browser
# script wrote to FILE, as this suite's own under PREFIX; RELAYED = their count
relay() {
	local line
	RELAYED=0
	while read -r line; do
		case $line in
		"ok - "*) ok "$1: ${line#ok - }"; RELAYED=$((RELAYED + 1)) ;;
		"not ok - "*) nok "$1: ${line#not ok - }"; RELAYED=$((RELAYED + 1)) ;;
		esac
	done < "$2"
}
# same_file "what" expected actual: ok if identical, else show a diff
same_file() {
	if cmp -s "$2" "$3"; then ok "$1"; else
		nok "$1"; diff -u "$2" "$3" | head -40 | sed 's/^/#   /'
	fi
}
# suite NAME command...: run a test program that prints ok/not ok lines and
# exits 1 when one is "not ok"; a crash (e.g. a syntax error) also exits 1
# but prints none, so that must fail too.
suite() {
	local name=$1 rc; shift
	"$@" > "$TMP/$name.out" 2>&1
	rc=$?
	cat "$TMP/$name.out"
	if ! grep -q '^ok ' "$TMP/$name.out"; then
		nok "$name ran no test (exit status $rc)"; grep -v '^ok ' "$TMP/$name.out" | tail -5 | sed 's/^/#   /'
	elif [ $rc != 0 ] && ! grep -q '^not ok ' "$TMP/$name.out"; then
		nok "$name exited with status $rc without a failed test (crash?)"
	fi
}
# same_json "what" TRACE: kutrace_postproc and rawtoevent | sort -n |
# eventtospan give byte-identical JSON (randomid aside) on TRACE
same_json() {
	local d=$TMP/same_json
	mkdir -p "$d"
	if ! "$KT_BIN/kutrace_postproc" "$2" x --no-html -o "$d/a.json" 2>"$d/a.err"; then
		nok "$1: kutrace_postproc: $(tail -1 "$d/a.err")"; return
	fi
	"$KT_BIN/rawtoevent" "$2" 2>/dev/null | LC_ALL=C sort -n | "$KT_BIN/eventtospan" x 2>/dev/null |
		grep -v '"randomid"' > "$d/b.json"
	grep -v '"randomid"' "$d/a.json" > "$d/a.nr.json"
	same_file "$1" "$d/a.nr.json" "$d/b.json"
}

# browser_ready WHAT: true when headless Chromium, node and playwright-core
# are here (installing playwright-core if need be); else says why WHAT is
# skipped and fails, so that a suite can `browser_ready "x" || exit 0`.
browser_ready() {
	if [ ! -x /usr/bin/chromium ] && [ -z "${KT_CHROMIUM:-}" ]; then skip "$1: no /usr/bin/chromium"; return 1; fi
	if ! command -v node >/dev/null; then skip "$1: no node"; return 1; fi
	[ -d tests/browser/node_modules/playwright-core ] || sh tests/deps/viewer.sh || true
	if [ ! -d tests/browser/node_modules/playwright-core ]; then skip "$1: playwright-core not installed"; return 1; fi
}

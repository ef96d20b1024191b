#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Damaged raw traces never pass silently (issue 20 item 10, issue 13 §3).
# Real traces (stock Debian 6.1 and kutrace-patched 6.1 in QEMU, kept as
# recorded in tests/data/damage/), the golden traces and kutrace_synth
# traces (IPC side blocks, wraparound, TSDELTA gaps, late stores) are
# damaged at seeded random offsets: runs of 32..512 random words, runs of
# zero words followed by surviving entries, two blocks swapped, the file
# cut anywhere.  For each, checktrace must say FAIL (exit 1), kutrace_dump
# must exit 1 with one line, and
# kutrace_postproc must refuse with one line naming the file, the block
# and the word; with --skip-damaged it skips and counts the damaged blocks.  A cut at a block
# boundary may leave a sound trace; it must then at least warn.
. "$(dirname "$0")/lib.sh"
B=$KT_BIN
S=$TMP/src
mkdir -p "$S"
for f in "$KT_ROOT"/tests/data/damage/*.trace.gz; do
	gzip -dc "$f" > "$S/$(basename "$f" .gz)"
done
cp "$KT_ROOT"/tests/golden/*.trace "$S/"
"$B/kutrace_synth" -s 3 -c 4 -d 0.3 -o "$S/synth.trace" >/dev/null 2>&1
"$B/kutrace_synth" -s 4 -c 2 -d 0.3 --ipc --gaps --late -o "$S/synth_ipc.trace" >/dev/null 2>&1
"$B/kutrace_synth" -s 5 -c 3 -d 0.5 --wrap 6 -o "$S/synth_wrap.trace" >/dev/null 2>&1

# Every source is sound to begin with.
mkdir -p "$TMP/ref"
for f in "$S"/*.trace; do
	n=$(basename "$f")
	"$B/kutrace_postproc" "$f" -o "$TMP/ref/${n%.trace}.json" --no-html > /dev/null 2> "$TMP/e"; rc=$?
	check "undamaged $n: postprocessed without a warning" \
		test $rc = 0 -a "$(grep -vc ' events, \|rows placed late' "$TMP/e")" = 0
	"$B/checktrace" "$f" -nopf > "$TMP/o"
	check "undamaged $n: checktrace finds no damage" \
		sh -c "! grep -q '^\(FAIL\|Warn\) block' '$TMP/o'"
done

python3 - "$S" "$TMP/d" <<'EOF'
import os, random, struct, sys
src, out = sys.argv[1], sys.argv[2]
os.makedirs(out)
BLK, SIDE = 65536, 8192

def blocks(d):
    """(offset, length incl. side block) of every block."""
    res, off = [], 0
    while off + BLK <= len(d):
        flags = d[off + 15]
        n = BLK + (SIDE if flags & 0xA0 else 0)
        res.append((off, n))
        off += n
    return res

def last_entry(d, off, first):
    """Word index after the last non-zero word of a block."""
    w = struct.unpack_from("<8192Q", d, off)
    for i in range(8191, first - 1, -1):
        if w[i]:
            return i + 1
    return first

for name in sorted(os.listdir(src)):
    d = open(os.path.join(src, name), "rb").read()
    bl = blocks(d)
    rnd = random.Random(name)
    cases = []
    for k in range(12):                      # random words
        bi = rnd.randrange(len(bl))
        off, _ = bl[bi]
        first = 12 if bi == 0 else 6
        nw = rnd.randint(32, 512)
        wi = rnd.randrange(first, 8192 - 32)
        nw = min(nw, 8192 - wi)
        b = bytearray(d)
        b[off + 8 * wi: off + 8 * (wi + nw)] = rnd.randbytes(8 * nw)
        cases.append(("random%02d_b%d_w%d_n%d" % (k, bi, wi, nw), b))
    for k in range(8):                       # zeros, entries after them
        bi = rnd.randrange(len(bl))
        off, _ = bl[bi]
        first = 12 if bi == 0 else 6
        end = last_entry(d, off, first)
        if end - first < 64:
            continue
        wi = rnd.randrange(first, end - 33)
        nw = rnd.randint(32, max(32, min(512, end - 1 - wi)))
        nw = min(nw, end - 1 - wi)
        b = bytearray(d)
        b[off + 8 * wi: off + 8 * (wi + nw)] = bytes(8 * nw)
        cases.append(("zeros%02d_b%d_w%d_n%d" % (k, bi, wi, nw), b))
    for k in range(5):                       # two blocks swapped
        if len(bl) < 2:
            break
        i, j = sorted(rnd.sample(range(len(bl)), 2))
        (oi, ni), (oj, nj) = bl[i], bl[j]
        if ni != nj:
            continue
        b = bytearray(d)
        b[oi:oi + ni], b[oj:oj + nj] = d[oj:oj + nj], d[oi:oi + ni]
        cases.append(("swap%02d_b%d_b%d" % (k, i, j), b))
    for k in range(6):                       # cut anywhere, or at a block end
        if k % 2 and len(bl) > 1:
            c = rnd.randrange(1, len(bl))
            cut = bl[c][0]
            cpus = [d[o + 7] for o, _ in bl]
            # Blocks that were their CPU's only ones leave no trace behind.
            tag = "cutblock" if set(cpus[c:]) & set(cpus[:c]) else "cutcpus"
        else:
            cut = rnd.randrange(len(d))
            tag = "cut"
        cases.append(("%s%02d_at%d" % (tag, k, cut), d[:cut]))
    for tag, b in cases:
        if bytes(b) != d:
            open(os.path.join(out, "%s__%s" % (name[:-6], tag)), "wb").write(b)
EOF

# Same JSON as the undamaged trace: the damage lost nothing (two blocks of
# different CPUs that started within the late-store window, swapped).
harmless() {
	cmp -s <(grep -v '"randomid"\|"title"' "$TMP/t.json") \
	       <(grep -v '"randomid"\|"title"' "$TMP/ref/${1%%__*}.json")
}
total=0 threads="" silent="" unclear="" left="" crashed="" noskip="" nharmless=0 ncpus=0
for f in "$TMP"/d/*; do
	total=$((total + 1))
	n=$(basename "$f")
	cp "$f" "$TMP/t.trace"
	"$B/checktrace" "$TMP/t.trace" -nopf > "$TMP/ct" 2>&1; crc=$?
	rm -f "$TMP/t.json" "$TMP/t.json.tmp"
	"$B/kutrace_postproc" "$TMP/t.trace" -o "$TMP/t.json" --no-html --threads 3 > /dev/null 2> "$TMP/pe"; prc=$?
	# One thread gives the same lines, status and rows as three.
	rm -f "$TMP/t1.json"
	"$B/kutrace_postproc" "$TMP/t.trace" -o "$TMP/t1.json" --no-html --threads 1 > /dev/null 2> "$TMP/pe1"; prc1=$?
	if [ $prc1 != $prc ] || ! cmp -s "$TMP/pe" <(sed 's/t1\.json/t.json/' "$TMP/pe1") ||
	   { [ $prc = 0 ] && ! cmp -s <(grep -v '"randomid"' "$TMP/t.json") <(grep -v '"randomid"' "$TMP/t1.json"); }; then
		threads="$threads $n"
	fi
	# --skip-damaged on every third case (the sanitizer build is slow).
	src=0; : > "$TMP/se"; skipcase=$((total % 3 == 0))
	if [ $skipcase = 1 ]; then
		"$B/kutrace_postproc" "$TMP/t.trace" -o "$TMP/s.json" --no-html --skip-damaged > /dev/null 2> "$TMP/se"; src=$?
		"$B/kutrace_postproc" "$TMP/t.trace" -o "$TMP/s1.json" --no-html --skip-damaged --threads 1 > /dev/null 2> "$TMP/se1"; src1=$?
		if [ $src1 != $src ] || ! cmp -s "$TMP/se" <(sed 's/s1\.json/s.json/' "$TMP/se1") ||
		   { [ $src = 0 ] && ! cmp -s <(grep -v '"randomid"' "$TMP/s.json") <(grep -v '"randomid"' "$TMP/s1.json"); }; then
			threads="$threads $n(skip)"
		fi
	fi
	if [ $crc -ge 2 ] || [ $prc -ge 2 ] || [ $src -ge 2 ] ||
	   grep -q 'Sanitizer\|runtime error' "$TMP/ct" "$TMP/pe" "$TMP/se"; then
		crashed="$crashed $n"
		continue
	fi
	if [ $prc = 0 ] && harmless "$n"; then
		nharmless=$((nharmless + 1))
		continue
	fi
	case $n in
	*cutcpus*)
		# Cut where the lost blocks were their CPUs' only ones: a sound
		# trace of fewer CPUs that no reader can tell (counted only).
		ncpus=$((ncpus + 1))
		continue ;;
	*cutblock*)
		# A cut at a block end may leave a sound, shorter trace: then both
		# tools must at least warn that the CPU's last block is full.
		if [ $crc = 0 ] && ! grep -q '^Warn block .*file was cut after it' "$TMP/ct"; then
			silent="$silent $n(checktrace)"
		fi
		if [ $prc = 0 ] && ! grep -q 't.trace: block [0-9]* word [0-9]*: .*file was cut after it' "$TMP/pe"; then
			silent="$silent $n(postproc)"
		fi
		continue ;;
	esac
	if [ $crc != 1 ] || [ "$(tail -1 "$TMP/ct")" != "FAIL $TMP/t.trace" ]; then
		silent="$silent $n(checktrace)"
	fi
	# kutrace_dump shows the damage but must not exit 0 on it.
	"$B/kutrace_dump" "$TMP/t.trace" > /dev/null 2> "$TMP/de"; drc=$?
	if [ $drc = 0 ]; then
		silent="$silent $n(kutrace_dump)"
	elif [ $drc -ge 2 ] || [ "$(wc -l < "$TMP/de")" != 1 ]; then
		unclear="$unclear $n(kutrace_dump)"
	fi
	if [ $prc = 0 ]; then
		silent="$silent $n(postproc)"
	elif [ "$(wc -l < "$TMP/pe")" != 1 ] || ! grep -q '^kutrace_postproc: .*t.trace: block [0-9]*\( word [0-9]*\)\?: ' "$TMP/pe"; then
		unclear="$unclear $n"
	fi
	# --skip-damaged: exit 0 having named and counted the skipped blocks,
	# or (damage the reader cannot get past: header, size) exit 1.
	if [ $skipcase = 1 ] && [ $src = 0 ] && ! grep -q 'block [0-9]* word [0-9]*: .*(block skipped)' "$TMP/se"; then
		noskip="$noskip $n"
	fi
	if [ $skipcase = 1 ] && [ $src = 0 ] && ! grep -q 'kutrace_postproc: [1-9][0-9]* damaged blocks skipped' "$TMP/se"; then
		noskip="$noskip $n(count)"
	fi
done
check "damaged traces made ($total; $nharmless with the undamaged JSON, $ncpus cut to fewer CPUs)" \
	test "$total" -ge 250 -a "$nharmless" -le 20
eq "no tool crashes on $total damaged traces" "" "$crashed"
eq "no damaged trace passes silently ($total: random words, zeros, swapped blocks, cuts)" "" "$silent"
eq "kutrace_postproc and kutrace_dump refuse with one line (postproc: naming file, block and word)" "" "$unclear"
eq "kutrace_postproc --skip-damaged names and counts the skipped blocks" "" "$noskip"
eq "kutrace_postproc --threads 1 and 3 (and --skip-damaged): the same lines, exit status and JSON on every damaged trace" "" "$threads"

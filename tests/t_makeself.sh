#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# makeself / unmakeself without a browser: the page embeds the trace
# safely, unmakeself gives the JSON back byte for byte, and bad input gives
# one line of error and a non-zero exit, never a crash or a half page.
. tests/lib.sh
MS=$KT_BIN/makeself UM=$KT_BIN/unmakeself
# The template make assembles (viewer/viewer.mk), with its files.
TPL=$KT_BIN/../share/kutrace/viewer.html
D=tests/data/viewer

for f in small unsafe orig; do
	if $MS $TPL $D/$f.json $TMP/$f.html 2>$TMP/err; then
		$UM $TMP/$f.html > $TMP/$f.json
		same_file "round trip makeself/unmakeself is identity: $f.json" $D/$f.json $TMP/$f.json
	else
		nok "makeself $f.json: $(cat $TMP/err)"
	fi
done

# The page is one file: no external script, style or data reference.
check "page has no external src/href" sh -c "! grep -Eq '<script src=|<link rel=\"stylesheet\" href=|https?://' $TMP/small.html"
check "page inlines viewer.js" grep -q 'window.kutraceState' $TMP/small.html
# Unsafe names are never in the page as text (only inside base64), and
# the header's '<' is escaped.
check "no raw </script> from the data" sh -c "[ \$(grep -c '</script>.103' $TMP/unsafe.html) = 0 ]"
check "header '<' escaped as \\u003c" grep -q 'u003c/script>' $TMP/unsafe.html
n=$(grep -o '<script' $TMP/unsafe.html | wc -l)
m=$(grep -o '<script' $TMP/small.html | wc -l)
check "unsafe trace adds no <script elements ($n vs $m)" [ "$n" = "$m" ]

# Argument forms of the original: 1 argument (stdin -> stdout), 2 (stdin -> file).
$MS $TPL < $D/small.json > $TMP/a1.html 2>/dev/null
check "1-argument form writes the same page" cmp -s $TMP/a1.html $TMP/small.html
$MS $TPL $TMP/a2.html < $D/small.json 2>/dev/null
check "2-argument form writes the same page" cmp -s $TMP/a2.html $TMP/small.html
$UM < $TMP/small.html > $TMP/s2.json
same_file "unmakeself reads stdin" $D/small.json $TMP/s2.json
KUTRACE_VIEWER=$(readlink -f $TPL) $MS - $D/small.json $TMP/a3.html 2>/dev/null
check "template '-' uses KUTRACE_VIEWER" cmp -s $TMP/a3.html $TMP/small.html
$MS - $D/small.json $TMP/a4.html 2>/dev/null
check "template '-' found next to the program" cmp -s $TMP/a4.html $TMP/small.html
# The source directory has no viewer.js (make assembles it): one line.
$MS viewer/viewer.html $D/small.json $TMP/a5.html 2>$TMP/a5.err; rc=$?
check "the source directory's viewer.html: exit 1, one line naming build/share/kutrace" \
	bash -c "[ $rc = 1 ] && [ \$(wc -l < $TMP/a5.err) = 1 ] && grep -q 'viewer.js.*build/share/kutrace' $TMP/a5.err"

# A larger synthetic trace, when node is there to make it.
if command -v node >/dev/null; then
	node tests/browser/gen_trace.js 20000 4 50 > $TMP/gen.json
	$MS $TPL $TMP/gen.json $TMP/gen.html && $UM $TMP/gen.html > $TMP/gen2.json
	same_file "round trip identity on a 20000-span synthetic trace" $TMP/gen.json $TMP/gen2.json
	spans=$(grep -c '^\[ ' $TMP/gen.json)
	bytes=$(stat -c %s $TMP/gen.html)
	check "page size $bytes bytes for $spans rows (< 16 bytes/span + 200 KB)" [ $bytes -lt $((spans * 16 + 200000)) ]
else
	skip "synthetic round trip: no node"
fi

# The columns are stored as differences from predictions (lib/page/html.c,
# struct pred): rows that break every prediction still round trip.
E=tests/browser/pred_edge.json
$MS $TPL $E $TMP/pe.html 2>$TMP/err && $UM $TMP/pe.html > $TMP/pe.json
same_file "prediction edge cases round trip (CPU -1 and >= 65536, events outside the table, pid 0/-1/2^31-1, start times going back)" $E $TMP/pe.json
# A kutrace_postproc trace (what the predictions are made for) round trips.
if [ -x $KT_BIN/kutrace_synth ] && [ -x $KT_BIN/kutrace_postproc ]; then
	$KT_BIN/kutrace_synth -s 5 -c 4 -m 1 --ipc -o $TMP/sy.trace >/dev/null 2>&1 &&
	$KT_BIN/kutrace_postproc $TMP/sy.trace "synth" -o $TMP/sy.json --no-html >/dev/null 2>&1 &&
	$MS $TPL $TMP/sy.json $TMP/sy.html && $UM $TMP/sy.html > $TMP/sy2.json
	same_file "round trip identity on a kutrace_synth trace" $TMP/sy.json $TMP/sy2.json
	spans=$(grep -c '^\[ ' $TMP/sy.json); bytes=$(stat -c %s $TMP/sy.html)
	check "kutrace_synth page: $bytes bytes for $spans spans (< 10 bytes/span + 200 KB)" [ $bytes -lt $((spans * 10 + 200000)) ]
else
	skip "kutrace_synth round trip: not built"
fi
# A page made before the KTV2 encoding (a KTV1 blob, here just its data
# element) still gives its JSON back.
cat > $TMP/ktv1.html <<'KTV1'
<html><body>
<script type="application/octet-stream" id="ktdata" data-enc="deflate" data-rows="38">eJyNVN1r21YUv1ZdRdWMJ4RJ3TBaYdKQrJYqya4dBwoDU7ZuSwgjDR2lM7J1HYvow9VH0nUMVNOHDToo2Rjb8IP3D6x5yGCPeRnkqc1gD330yh6CH0YH29tod+6Vk1DoQ6/O0bnn66dz7rn2Byur2gxC6A3gJeBPgIn+/lgSvQR8Yawfcrz3cHAekTXopwbnhr+l9988mBj+fuJJGjGp7T7zTEH791Pbf54YnIPt4Ov04HuGxD5YerDNo/ivk7t/nIXs3R8yQAxw/OWdwVds/HOeAoLhCDANcD/1ScwzhYn/TsdPTxFQBmJJ3kilsPsvFIbZfTwN+hEl6AgxTJplWYauFAOfZUnlTBoWy5INm2L37qYQ2smjA/FAHIk7+cMHUQe8gEZiIhMaB6MRxJNMNPyVG14ZXkGvtfpcHHNb3M53RB5scbE02uJ60pPTYHlevc+dvJcBRxwL33B7d0/1hZ7Uk+gW/D0eEnrT4O/BAyJBAYIS7mXghZgvsvARnnZKO4BJPX54npzFIyr/+ZFFvzyfQFmWAdtRWXsp1EHHOQjl81T892LipfJ5JAr5LMuN1Vw6k0E5DolU4whx5Fw5PpMVRDY3mZ/i3jqLJEEoIHaan+Fm32ZgIMUp5fVO68yYdYETM5PcJD+dnRIEIZ+bmsmIYj6H/gVn0wg6FzrYtr3GpufbZiP0DWVer+myZdrY7sptH98Kgo6paJcqiVF2Pg1u2WDQ1bKPDfNYvbTpWyG2vZZhN0LLwX5jA7dCz5eDVgebsh+5rtG0cYK/aazjqAvCChutbiS3ZHzbCmXH8NcbxmVaUtdYw422Ednh2HqRmpfrl9vj1dSquobn214Xu0a4hsMowL5S7UbJptS01rqWqVRVWIFj2LZSLlfK38KcJOkzXirUPcfBbliQFqTCqi5tWmFHurpcl9oWts1CESKM21bwodHE9nUatAJtSbMBbs297P2YeuvL16SlyGlin3qhrUXPxPaS4WDqv+rC8cx+NFf3fDy7sjhnleSqpqqQ9k5JqanvvneH5rVtYy0gCVpJI/o69l1sr2I/sDyXAlWUiqLK6xFMq4VpjtOEc4S6aBp0S2y+4ZqeY5nEViuDdb5SpYBBx/PDxSjp6dhyzbXCIOkzoKBhx4sCAEmMh7ChFdpJP3QcEr04STwpB65U4tVVXZM1VdbnG1p5QdUWVJVGbRw3UiryBbwBE6Dt3uDJf2aRv1Gr1RS1KKn09SoqFG7yNz/nye+NoSnkwv8PHgFycw==</script>
</body></html>
KTV1
$UM $TMP/ktv1.html > $TMP/ktv1.json
same_file "unmakeself reads a KTV1 page (small.json)" $D/small.json $TMP/ktv1.json

# A page made before the KTV3 column order (a KTV2 blob, by kutrace at
# 48a91ef) still gives its JSON back.
cat > $TMP/ktv2.html <<'KTV2'
<html><body>
<script type="application/octet-stream" id="ktdata" data-enc="deflate" data-rows="38">eF6FVN2LG1UUP5mms+MYYghhHRexQ1iXXZsZZyZpPhYXhCBadZdFtotSaphkbjbDzmTS+djUipAuoeiDsg9SUJYS/wFb7BZ87Etxn2wffCg+LX3pIggV1Ccxnnsn3UURenLPvff8zjk353fvnfvO2roxBwDPor6G+iEqtZcm49s4FlFPT2zqozrYvzF6Gccn8iAJHMBjldrY75wYfYU27NwUAca/njw4nIPBI/3O16nxnsThMPjs8uhzfnBbGu0mRqcQuP/c4dTBTyceJJM3d7lvd2nMY5Ub/JYcPHxmdIpOb0s07xcNM3ZW7o9Vjrtzbxbto4ZubAAcl+R5nmOSoFXwtCouicLjFL0Jfv9K4ocrCdiT4DBLK0e5JSEIwDoqse9RFgAj96RbEvz5nXDwxng8Ffuf1l8XtgfClwJgD9syDOWfn4dB9Qvh5NUUQtuDzDUBrmeG8lDGCQxFGM4iPsQfy6AhwsO7wlXK6NM0/pvIiEzqG927gfvPcT+y8fdvePj+7ylI8xxiR5XtJ6BDjSNOksR8f/2HgwjZjJTmsQwmuWQqBTkBkDoKogIIuGuCmEpnsjmYlmZehJdkLg8wS2/DPLxSSGKgClqc/7T+BQygamSEbGpamBZn0zOZTEbKzcylslkpB3+gs2kGndMd4jheo+/5jtUIfVOtGjVDsS2HOD2l7ZOLQdCxVP1MOQYV96PgooOAoZV8YlrH5pm+b4fE8Vqm0whtl/iNLdIKPV8JWh1iKX7U7ZpNh8Tr981NEvWUvmmHjVYvUloKuWSHimv6mw1ziZXUMzdIo21GTjhBX2Xwan2pPZGmXjF0Um17PdI1ww0SRgHx1UoviifFpr3Rsy21oqEEruk4aqlULl3DuyfLH4tyvu65LumGeXlRzq8bct8OO/LZ1brctolj5QsYYV6yg3fNJnHeZ0FrSEueD0hr4d/eD5i3vnpOXoncJvGZF2ktexZxVkyXMP/ZLm7P/HsLdc8n82vLC3ZRqeiahmmvF9Wa9uZbl1le2zE3ApqgF3VqbxK/S5x14ge212ULldWyqimbEZ5Wi7Act4n7iHWxNGRLMd/sWp5rWxSrlRCtlitswaDj+eFyFHM6Rs517TCIeQZs0bDjRQEuEoNPlg3t0In5sOOQ2cWJ42k5eKVir6EZuqJrilFt6KVFTV/UNBa1dUykWBDzZAtPgNE9L9IHsCCer9VqqlaQNdb9X8vnL4gXPhHpG0K/wwK+fwD/ADQLTQA=</script>
</body></html>
KTV2
$UM $TMP/ktv2.html > $TMP/ktv2.json
same_file "unmakeself reads a KTV2 page (small.json)" $D/small.json $TMP/ktv2.json

# Original-makeself pages: unmakeself gives back the JSON string.
{ echo '<html><script>'; echo '<!-- selfcontained1 -->'; printf "var myString = '"; tr '\n' ' ' < $D/small.json; echo "';"; echo '<!-- selfcontained2 -->'; echo '</script></html>'; } > $TMP/old.html
$UM $TMP/old.html > $TMP/old.json
check "unmakeself reads an original makeself page" cmp -s $TMP/old.json <(tr '\n' ' ' < $D/small.json)

# Bad input: one line on stderr, exit status 1, no output file.
bad() {
	local what=$1 input=$2
	printf '%s' "$input" > $TMP/bad.json
	rm -f $TMP/bad.html
	$MS $TPL $TMP/bad.json $TMP/bad.html 2>$TMP/err
	local rc=$?
	if [ $rc = 1 ] && [ "$(wc -l < $TMP/err)" = 1 ] && [ ! -e $TMP/bad.html ] && ! ls $TMP/bad.html.tmp* >/dev/null 2>&1; then
		ok "bad input rejected: $what ($(cat $TMP/err))"
	else
		nok "bad input: $what: rc=$rc stderr: $(head -3 $TMP/err)"
	fi
}
bad "empty file" ""
bad "not an object" "[1,2,3]"
bad "truncated" '{"title":"x","events":[[1.0, 0.1, 0, 1, 0, 65537, 0, 0, 0, "a"],'
bad "missing events" '{"title":"x"}'
bad "row with 3 fields" '{"events":[[1.0, 2.0, 3]]}'
bad "string in a number field" '{"events":[[1.0, "x", 0, 1, 0, 65537, 0, 0, 0, "a"]]}'
bad "11 fields" '{"events":[[1.0, 0.1, 0, 1, 0, 65537, 0, 0, 0, "a", 7]]}'
bad "unterminated string" '{"events":[[1.0, 0.1, 0, 1, 0, 65537, 0, 0, 0, "a]]}'
bad "bad escape" '{"events":[[1.0, 0.1, 0, 1, 0, 65537, 0, 0, 0, "a\q"]]}'
bad "trailing garbage" '{"events":[]} xyz'
bad "bad header value" '{"title": tru, "events":[]}'
bad "leading zero number" '{"events":[[01.0, 0.1, 0, 1, 0, 65537, 0, 0, 0, "a"]]}'
bad "events not an array" '{"events": 5}'
bad "raw control char in a name" "$(printf '{"events":[[1.0, 0.1, 0, 1, 0, 65537, 0, 0, 0, "a\001b"]]}')"
bad "deep nesting" "{\"x\":$(printf '[%.0s' $(seq 2000))1$(printf ']%.0s' $(seq 2000)),\"events\":[]}"
bad "NUL byte" "$(printf '{"events":[]}')$(printf '\001')"
printf '{"events":[]}\0' > $TMP/nul.json
$MS $TPL $TMP/nul.json $TMP/nul.html 2>$TMP/err; rc=$?
check "NUL byte rejected ($(cat $TMP/err))" [ $rc = 1 -a ! -e $TMP/nul.html ]

# Edge cases that must work.
printf '{"events":[]}' > $TMP/e.json
$MS $TPL $TMP/e.json $TMP/e.html 2>$TMP/err && $UM $TMP/e.html > $TMP/e2.json
same_file "empty events array round trip" $TMP/e.json $TMP/e2.json
printf '{"events":[[999.0, 0.0, 0, 0, 0, 0, 0, 0, 0, ""]]}\n' > $TMP/e.json
$MS $TPL $TMP/e.json $TMP/e.html 2>$TMP/err && $UM $TMP/e.html > $TMP/e2.json
same_file "sentinel-only round trip" $TMP/e.json $TMP/e2.json
printf '{"events":[[1.5e0, 1E-8, 0, 70000, 0, 70000, 4294967295, -1, 0],[0.5,0.1,0,1,0,65537,0,0,0,"\\ud83d\\ude00\\u00e9"]], "extra":[]}' > $TMP/e.json
$MS $TPL $TMP/e.json $TMP/e.html 2>$TMP/err && $UM $TMP/e.html > $TMP/e2.json
same_file "non-canonical rows (exponents, 9 fields, big ints, escapes, unsorted) round trip" $TMP/e.json $TMP/e2.json

# Template and page errors.
$MS /nonexistent.html $D/small.json $TMP/x.html 2>$TMP/err; rc=$?
check "missing template: error ($(cat $TMP/err))" [ $rc = 1 -a ! -e $TMP/x.html ]
echo '<html></html>' > $TMP/t.html
$MS $TMP/t.html $D/small.json $TMP/x.html 2>$TMP/err; rc=$?
check "template without the data marker: error ($(cat $TMP/err))" [ $rc = 1 ]
$UM $TPL > /dev/null 2>$TMP/err; rc=$?
check "unmakeself on a page without data: error ($(cat $TMP/err))" [ $rc = 1 ]
off=$(grep -bo 'id="ktdata"' $TMP/small.html | cut -d: -f1)
head -c $((off + 300)) $TMP/small.html > $TMP/trunc.html
$UM $TMP/trunc.html > /dev/null 2>$TMP/err
rc=$?
check "unmakeself on a truncated page: error, no crash (rc=$rc)" [ $rc = 1 ]
sed 's/id="ktdata" data-enc="deflate" data-rows="[0-9]*">AAAA/id="ktdata" data-enc="deflate">AAAB/; s/\(id="ktdata"[^>]*>\)\(.\{100\}\)./\1\2A/' $TMP/small.html > $TMP/dam.html
$UM $TMP/dam.html > /dev/null 2>$TMP/err
rc=$?
check "unmakeself on damaged data: error, no crash (rc=$rc)" [ $rc = 1 ]

# A page of 262,144 rows or more carries the summary of its CPU and PID
# rows (lib/page/pagelod.c, VIEWER 3.4.1): exactly the bins, extents, labels and long spans
# tests/tools/ktlod.py makes of the JSON by the rule, on its own; a page
# of fewer rows, of rows out of time order, with a CPU past 65535 or of
# more than 2^18 threads has
# none (the viewer then decodes the rows first); the rows still read
# back byte for byte.
python3 - $TMP/lod.json 262144 <<'PY'
import random, sys
random.seed(5)
t, n = [100000000] * 4, int(sys.argv[2])
rows = []
for i in range(n):
    c = i % 4; k = random.random()
    e, nm, d = (65536 + 300 + c, 'w.%d' % (300 + c), 1 + int(random.expovariate(1 / 80))) if k < 0.5 else \
        (0x800 + 3, 'read', 1 + int(random.expovariate(1 / 30))) if k < 0.97 else (65536, '-idle-', 40000 + random.randrange(90000))
    rows.append((t[c], d, c, e - 65536 if e > 65536 else 0, e, nm)); t[c] += d
rows.sort(key=lambda r: r[0])
out = open(sys.argv[1], 'w')
out.write('{"title" : "lod", "tracebase" : "2024-01-01_00:00:00", "version" : 3,\n"events" : [\n')
for ts, d, c, p, e, nm in rows:
    out.write('[%12.8f, %10.8f, %d, %d, 0, %d, 0, 0, 0, "%s"],\n' % (ts / 1e8, d / 1e8, c, p, e, nm))
out.write('[999.0, 0.0, 0, 0, 0, 0, 0, 0, 0, ""]\n]}\n')
PY
$MS $TPL $TMP/lod.json $TMP/lod.html || nok "makeself of 262,144 rows"
eq "a page of 262,144 rows carries the summary the rule makes of its rows" \
	"same: 4 CPU rows, 4 PID rows, 4 with bins" "$(python3 tests/tools/ktlod.py $TMP/lod.html $TMP/lod.json | cut -d, -f1,3,4 | sed 's/ with [0-9]* bins.*/ with bins/')"
$UM $TMP/lod.html > $TMP/lod.rt.json
same_file "the page of 262,144 rows reads back byte for byte" $TMP/lod.json $TMP/lod.rt.json
head -n -2 $TMP/lod.json | sed '$d' > $TMP/lod1.json && tail -n 2 $TMP/lod.json >> $TMP/lod1.json
sed '5s/^\[\( *[0-9.]*\), \([0-9.]*\), [0-9]*,/[\1, \2, 70000,/' $TMP/lod.json > $TMP/lod2.json
awk 'NR == 5 { keep = $0; next } NR == 7 { print; print keep; next } { print }' $TMP/lod.json > $TMP/lod3.json
# 262,145 threads (a pid per row, one row more): more than a summary takes
python3 -c 'import sys
rows = [l for l in open(sys.argv[1]) if l.startswith("[")]
head = [l for l in open(sys.argv[1]) if not l.startswith("[")]
rows = rows[:-1] + [rows[-2]] + rows[-1:]
out = open(sys.argv[2], "w"); out.write(head[0] + head[1])
for n, l in enumerate(rows[:-1]):
    f = l.split(", "); f[3] = str(n + 1); out.write(", ".join(f))
out.write(rows[-1] + head[-1])' $TMP/lod.json $TMP/lod4.json
for c in "1:262,143 rows" "2:a CPU of 70000" "3:two rows out of time order" "4:262,145 threads"; do
	$MS $TPL $TMP/lod${c%%:*}.json $TMP/lodx.html || nok "makeself: ${c#*:}"
	eq "no summary in a page of ${c#*:}" none "$(python3 tests/tools/ktlod.py $TMP/lodx.html $TMP/lod${c%%:*}.json)"
done

# The book's other page kinds (issue 14): a queue-test RPC page (15-field
# rows, "V4 flat RPCs") and a disk scatter page ("points"); both go into
# the page whole and come back byte for byte.
for f in rpc_q points_disk; do
	kind=$([ $f = rpc_q ] && echo rpc || echo points)
	if $MS $TPL $D/$f.json $TMP/$f.html 2>$TMP/err; then
		check "$f.json makes a page of kind $kind" grep -q "id=\"ktdata\" data-enc=\"[a-z]*\" data-kind=\"$kind\"" $TMP/$f.html
		$UM $TMP/$f.html > $TMP/$f.rt.json
		same_file "round trip makeself/unmakeself is identity: $f.json" $D/$f.json $TMP/$f.rt.json
	else
		nok "makeself $f.json: $(cat $TMP/err)"
	fi
done
printf '{"Comment" : "V4 flat RPCs", "version" : 4, "events" : []}' > $TMP/e.json
$MS $TPL $TMP/e.json $TMP/e.html 2>$TMP/err && $UM $TMP/e.html > $TMP/e2.json
same_file "empty V4 RPC page round trip" $TMP/e.json $TMP/e2.json
check "an empty V4 page is an RPC page" grep -q 'data-kind="rpc"' $TMP/e.html
R='[1.0, 1.1, 1.2, 1.3, "a:1", "b:2", 10, 20, 7, 0, "Req", "m", "Success", 5, "d"]'
printf '{"version" : 4, "events" : [%s,\n[999.0, 0, 0, 0, "", "", 0, 0, 0, 0, "", "", "", 0, ""]]}' "$R" > $TMP/e.json
$MS $TPL $TMP/e.json $TMP/e.html 2>$TMP/err && $UM $TMP/e.html > $TMP/e2.json
same_file "RPC page with an end marker round trip" $TMP/e.json $TMP/e2.json
bad "RPC row with 14 fields" '{"version" : 4, "events" : [[1.0, 1.1, 1.2, 1.3, "a:1", "b:2", 10, 20, 7, 0, "Req", "m", "Success", 5]]}'
bad "RPC row with a number as method" '{"events" : [[1.0, 1.1, 1.2, 1.3, "a:1", "b:2", 10, 20, 7, 0, "Req", 3, "Success", 5, "d"]]}'
bad "RPC row with 16 fields" "{\"events\" : [${R%]}, 1]]}"
bad "RPC page with a CPU row after RPC rows" "{\"events\" : [$R, [1.0, 0.1, 0, 1, 0, 65537, 0, 0, 0, \"a\"]]}"
bad "RPC end marker not last" "{\"events\" : [$R, [999.0], $R]}"
bad "point with a string value" '{"points" : [[1.0, 2.0], [1.5, "x"]]}'
bad "point with one number" '{"points" : [[1.0]]}'
bad "points not an array" '{"points" : 3}'
bad "points page with broken JSON after the points" '{"points" : [[1.0, 2.0]], "title" : }'

# ---- zlib is optional, decided by one probe (the Makefile's KT_HAVE_ZLIB):
# without it the library builds, its pages are stored uncompressed and
# read anywhere, and a compressed page is refused in one line.
if make -s BUILD="$TMP/nz" KT_HAVE_ZLIB= "$TMP/nz/bin/makeself" "$TMP/nz/bin/unmakeself" > "$TMP/nz.log" 2>&1; then
	ok "makeself and unmakeself build without zlib"
	"$TMP/nz/bin/makeself" - tests/data/tools/small.json > "$TMP/nz.html" 2>/dev/null
	"$KT_BIN/unmakeself" "$TMP/nz.html" > "$TMP/nz.json" 2>/dev/null
	same_file "a page made without zlib reads back with zlib" tests/data/tools/small.json "$TMP/nz.json"
	"$KT_BIN/makeself" - tests/data/tools/small.json > "$TMP/z.html" 2>/dev/null
	"$TMP/nz/bin/unmakeself" "$TMP/z.html" > "$TMP/nz.out" 2> "$TMP/nz.err"; rc=$?
	check "a compressed page without zlib: one line, exit 1, no output" \
		bash -c "[ $rc = 1 ] && [ \$(wc -l < '$TMP/nz.err') = 1 ] && grep -q 'built without zlib' '$TMP/nz.err' && [ ! -s '$TMP/nz.out' ]"
else
	nok "makeself and unmakeself build without zlib"; tail -5 "$TMP/nz.log" | sed 's/^/#   /'
fi

#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Program-level mutation run over every postprocessing tool.

    mutate.py BIN_DIR ROOT SECONDS_PER_TOOL [SEED]

Each tool gets its real inputs (a kutrace_synth trace, the golden traces,
their event text, span JSON, a page, and the side files: kallsyms, process
maps, the viewer template) damaged at random, one input file at a time
while the others stay sound - byte flips,
random runs, zeroed runs, truncation, duplicated or dropped pieces - and
pure garbage (random bytes, zeros, text).  Each run happens in a fresh
directory with the input as a temporary file.  Every run must end within
10 s without a signal or a sanitizer report; an error exit must leave no
output file behind; a JSON the tool says it wrote must parse (as UTF-8);
garbage must never give exit 0.  One "ok - " / "not ok - " line per tool
with the number of runs.
"""
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

B, ROOT, SECS = os.path.abspath(sys.argv[1]), sys.argv[2], float(sys.argv[3])
rng = random.Random(int(sys.argv[4]) if len(sys.argv) > 4 else 1)
G = os.path.join(ROOT, 'tests', 'golden')
D = os.path.join(ROOT, 'tests', 'data', 'tools')
CORP = os.path.join(ROOT, 'tests', 'fuzz', 'corpus')
ENV = dict(os.environ, ASAN_OPTIONS='exitcode=86:detect_leaks=0',
           UBSAN_OPTIONS='exitcode=87:halt_on_error=1', LC_ALL='C')


def rd(p):
    with open(p, 'rb') as f:
        return f.read()


def files(d, ext):
    return [rd(os.path.join(d, n)) for n in sorted(os.listdir(d)) if n.endswith(ext)]


traces = files(G, '.trace') + files(os.path.join(CORP, 'fuzz_raw'), '.trace')
events = files(os.path.join(CORP, 'fuzz_events'), '.events')
jsons = files(D, '.json') + files(G, '.json')
pages = files(os.path.join(CORP, 'fuzz_page_extract'), '.html')
kallsyms = [rd(os.path.join(D, 'kallsyms.txt'))]
SAMPLES = os.path.join(D, 'samples.json')

# The side inputs that stay sound while another input is damaged, in a
# directory of their own: maps of this very process as pid 300 (its
# binaries exist, so samptoname_u reads their ELF symbols), and span JSON
# with user PC samples of pid 300 inside its executable mappings.
SIDE = tempfile.mkdtemp(prefix='ktmut-side')
with open('/proc/self/maps', 'rb') as f:
    own_maps = f.read()
maps = [b'==== /proc/300/maps\n' + own_maps,
        b'==== /proc/299/maps\n' + own_maps + b'==== /proc/400/maps\n' + own_maps[:2000]]
MAPS = os.path.join(SIDE, 'maps.txt')
with open(MAPS, 'wb') as f:
    f.write(maps[0])
pcs = []
for ln in own_maps.decode('ascii', 'replace').splitlines():
    f = ln.split()
    if len(f) >= 6 and 'x' in f[1] and f[5].startswith('/'):
        lo, hi = (int(x, 16) for x in f[0].split('-'))
        pcs += [lo, lo + (hi - lo) // 3, hi - 1]
rows = b''.join(b'[  2.01300000, 0.00400000, 0, %d, 0, 640, 9, 0, 0, "PC=%x"],\n' % (300 + i % 3, pc)
                for i, pc in enumerate(pcs[:60]))
usamples = rd(SAMPLES).replace(b'[999.0,', rows + b'[999.0,', 1)
USAMPLES = os.path.join(SIDE, 'usamples.json')
with open(USAMPLES, 'wb') as f:
    f.write(usamples)
# makeself reads the template's files from its directory: they are linked
# into each run's directory next to the damaged template.
SHARE = os.path.join(os.path.dirname(B), 'share', 'kutrace')
templates = [rd(os.path.join(SHARE, 'viewer.html'))] if os.path.exists(os.path.join(SHARE, 'viewer.html')) else []
VIEWER_FILES = {n: os.path.join(SHARE, n) for n in ('viewer.css', 'pages.css', 'pages.js', 'viewer.js')}


def mutate(data):
    b = bytearray(data)
    for _ in range(rng.randint(1, 6)):
        k = rng.randrange(6)
        n = len(b)
        if n == 0:
            b += bytes(rng.randrange(256) for _ in range(16))
            continue
        i = rng.randrange(n)
        if k == 0:      # flip bits in one byte
            b[i] ^= 1 << rng.randrange(8)
        elif k == 1:    # a random run
            ln = rng.randint(1, 64)
            b[i:i + ln] = bytes(rng.randrange(256) for _ in range(ln))
        elif k == 2:    # a zeroed run
            ln = rng.randint(1, 4096)
            b[i:i + ln] = bytes(min(ln, n - i))
        elif k == 3:    # truncation
            del b[i:]
        elif k == 4:    # a piece duplicated elsewhere
            ln = rng.randint(1, 512)
            j = rng.randrange(n)
            b[j:j] = b[i:i + ln]
        else:           # an interesting word
            v = rng.choice([0, 0xFF, 0x7F, 0x80, 0xFFFFFFFF, 0x7FFFFFFF, 2 ** 63, 2 ** 64 - 1])
            w = v.to_bytes(8, 'little')
            b[i:i + 8] = w
        if rng.random() < 0.3 and data[:1] in (b'{', b' ', b'#', b'<', b'=', b'f', b'0') and b:
            # text: a digit run or a non-ASCII byte
            j = rng.randrange(len(b))
            b[j:j] = rng.choice([b'99999999999999999999', b'-', b'\xff', b'nan', b'1e400', b'"'])
    return bytes(b)


def garbage():
    k = rng.randrange(4)
    n = rng.choice([0, 1, 8, 100, 65536, 70000, 200000])
    if k == 0:
        return bytes(n)
    if k == 1:
        return bytes(rng.randrange(256) for _ in range(min(n, 70000)))
    if k == 2:
        return b'\n'.join(b' '.join(str(rng.randrange(-10 ** 6, 10 ** 6)).encode()
                                    for _ in range(10)) for _ in range(50))
    return b'{"events": [' + b'[1, 2, 3]' * rng.randrange(5)


def valid_json(p):
    try:
        with open(p, encoding='utf-8') as f:
            json.load(f)
        return True
    except Exception:
        return False


# tool: (seed inputs, input file name, argv after the tool, stdin (True:
#        the damaged input, False: none, a path: that sound file), output
#        file checked as JSON on success, files an error must not leave
#        [, files linked into the run directory])
# Every input file of every program is damaged by one line here.
TOOLS = [
    ('kutrace_postproc', traces, 'in.trace', ['in.trace', '--no-html'], False, 'in.json', ['in.json', 'in.json.tmp']),
    ('kutrace_postproc', traces, 'p.trace', ['p.trace'], False, 'p.json', ['p.json', 'p.html', 'p.json.tmp']),
    ('rawtoevent', traces, 'in.trace', ['in.trace'], False, None, []),
    ('checktrace', traces, 'in.trace', ['in.trace'], False, None, []),
    ('kutrace_dump', traces, 'in.trace', ['in.trace'], False, None, []),
    ('eventtospan', events, 'in.events', [], True, 'STDOUT', []),
    ('makeself', jsons, 'in.json', ['-', 'in.json', 'out.html'], False, None, ['out.html']),
    ('unmakeself', pages, 'in.html', ['in.html'], False, None, []),
    ('spantotrim', jsons, 'in.json', ['0'], True, 'STDOUT', []),
    ('spantospan', jsons, 'in.json', ['20'], True, 'STDOUT', []),
    ('spantoprof', jsons, 'in.json', [], True, 'STDOUT', []),
    ('samptoname_k', jsons, 'in.json', [os.path.join(D, 'kallsyms.txt')], True, 'STDOUT', []),
    ('samptoname_k', kallsyms, 'kallsyms.txt', ['kallsyms.txt'], SAMPLES, 'STDOUT', []),
    ('samptoname_u', jsons + [usamples], 'in.json', [MAPS], True, 'STDOUT', []),
    ('samptoname_u', maps, 'maps.txt', ['maps.txt'], USAMPLES, 'STDOUT', []),
    ('makeself', templates, 'tpl.html', ['tpl.html', os.path.join(D, 'small.json'), 'out.html'], False,
     None, ['out.html'], VIEWER_FILES),
    ('kutrace_export', jsons, 'in.json', ['--perfetto', 'in.json'], False, 'STDOUT', []),
    # The table store (issue 28) from a damaged JSON or trace: nothing left
    # but a whole store; and the critical path over a damaged JSON.
    ('kutrace_sql', jsons, 'in.json', ['build', 'in.json', '-o', 'in.tables'], False, None, ['in.tables']),
    ('kutrace_sql', traces, 'in.trace', ['build', 'in.trace', '-o', 'in.tables'], False, None, ['in.tables']),
    ('kutrace_why', jsons, 'in.json', ['in.json', '--pid', '1234'], False, None, []),
    # Two hosts (issue 30): a sound reference and a damaged second host.
    ('kutrace_align', jsons + [rd(os.path.join(CORP, 'fuzz_align', 'beta.json'))], 'in.json',
     [os.path.abspath(os.path.join(ROOT, 'tests', 'fuzz', 'align', 'alpha.json')), 'in.json', '-o', 'm'],
     False, 'm.json', ['m.json', 'm.html', 'm.json.tmp', 'm.html.tmp', 'm.tables']),
]

bad_total = 0
for name, seeds, fname, args, use_stdin, jout, outs, *links in TOOLS:
    exe = os.path.join(B, name)
    if not os.access(exe, os.X_OK):
        print('not ok - mutation run: %s is built' % name)
        bad_total += 1
        continue
    if not seeds:
        print('not ok - mutation run: %s %s: no seed input (is build/share/kutrace built?)' % (name, fname))
        bad_total += 1
        continue
    runs = bad = exit0_garbage = 0
    first = None
    end = time.time() + SECS
    while time.time() < end or runs < 4:
        g = runs % 4 == 3
        data = garbage() if g else mutate(rng.choice(seeds))
        w = tempfile.mkdtemp(prefix='ktmut')
        stdin = None
        try:
            p = os.path.join(w, fname)
            with open(p, 'wb') as f:
                f.write(data)
            for ln, src in (links[0] if links else {}).items():
                os.symlink(src, os.path.join(w, ln))
            if use_stdin is True:
                stdin = open(p, 'rb')
            else:
                stdin = open(use_stdin, 'rb') if use_stdin else subprocess.DEVNULL
            t0 = time.time()
            try:
                r = subprocess.run([exe] + args, cwd=w, env=ENV, timeout=10,
                                   stdin=stdin,
                                   stdout=open(os.path.join(w, 'STDOUT'), 'wb'),
                                   stderr=subprocess.PIPE)
                rc, err = r.returncode, r.stderr.decode('utf-8', 'replace')
            except subprocess.TimeoutExpired:
                rc, err = 'hang', ''
            problem = None
            if rc == 'hang':
                problem = 'no end after 10 s'
            elif rc < 0 or rc >= 86 or 'Sanitizer' in err or 'runtime error' in err:
                problem = 'crash (rc %s): %s' % (rc, err.strip().splitlines()[-1:] if err.strip() else '')
            elif rc != 0:
                left = [o for o in outs if os.path.exists(os.path.join(w, o))]
                if left:
                    problem = 'error exit left %s' % left
                elif err.count('\n') > 1 and name not in ('checktrace', 'kutrace_postproc'):
                    pass    # several lines are allowed; the last one says it
            else:
                if jout and not valid_json(os.path.join(w, jout)):
                    problem = 'exit 0 with invalid JSON'
                if g and len(data) > 0:
                    exit0_garbage += 1
                    problem = problem or 'exit 0 on garbage'
            runs += 1
            if problem:
                bad += 1
                if not first:
                    keep = os.path.join(tempfile.gettempdir(), 'ktmut-%s-%d' % (name, runs))
                    shutil.copy(p, keep)
                    first = '%s (input kept in %s)' % (problem, keep)
        finally:
            if stdin not in (None, subprocess.DEVNULL):
                stdin.close()
            shutil.rmtree(w, ignore_errors=True)
    label = '%s %s' % (name, ' '.join(a for a in args if '/' not in a))
    if use_stdin is True:
        label += ' < (damaged)'
    if bad:
        bad_total += 1
        print('not ok - mutation run: %s: %d of %d runs failed: %s' % (label, bad, runs, first))
    else:
        print('ok - mutation run: %s: %d runs, no crash, hang, leftover, bad JSON or exit 0 on garbage' % (label, runs))
shutil.rmtree(SIDE, ignore_errors=True)
sys.exit(1 if bad_total else 0)

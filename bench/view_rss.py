#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""kutrace_view's memory over many ordinary requests (issue 48, "Also").

usage: view_rss.py KUTRACE_VIEW STORE [N [EVERY]] [-- SERVER ARGS...]

Starts KUTRACE_VIEW STORE --no-browser (and SERVER ARGS), sends N
(10000) requests of the viewer's mix on one kept-alive connection, as
viewer/lod.js and data.js send them: /api/meta, /api/lodmeta, /api/lod
tiles (4096 bins) at several widths, of the CPU, PID and RPC rows,
/api/window and /api/rows of random windows; prints the server's VmRSS
(MB) before the first request and after every EVERY (500), then the
peak (VmHWM).  Exit 1 if a request is not answered 200.

Measured on a 10.7 M span store (kutrace_synth -s 7 -c 4 -m 64 --rpc,
kutrace_sql build, kutrace_view --prepare; 455 MB), 2 cores, DuckDB
1.4.4: 40 MB before the first request, 101 after 500, 108 after 10,000
(peak 133), flat from the first 500 on; with windows of a tenth of the
trace in the mix, 39 / 134 / ~150 (peak 202).  No leak: valgrind
--leak-check=full over 200 requests of the mix finds 0 bytes lost.
DuckDB's own memory (duckdb_memory()) stays under 10 MB; the rest is
its allocator's and the C library's free memory kept for reuse, bounded
by --memory (DuckDB's memory_limit, 1500MB) for DuckDB's buffers.
"""
import http.client, json, random, subprocess, sys, time

args = sys.argv[1:]
extra = []
if '--' in args:
    extra = args[args.index('--') + 1:]
    args = args[:args.index('--')]
view, store = args[0], args[1]
n = int(args[2]) if len(args) > 2 else 10000
every = int(args[3]) if len(args) > 3 else 500

p = subprocess.Popen([view, store, '--no-browser'] + extra,
                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
url = p.stdout.readline().strip()
if not url.startswith('http://127.0.0.1:'):
    sys.exit('no URL from %s' % view)
port = int(url.split(':')[2].split('/')[0])
tok = url.split('?t=')[1]


def rss(key='VmRSS'):
    with open('/proc/%d/status' % p.pid) as f:
        for line in f:
            if line.startswith(key + ':'):
                return int(line.split()[1]) // 1024
    return -1


c = http.client.HTTPConnection('127.0.0.1', port, timeout=120)


def get(path):
    global c
    for attempt in range(2):
        try:
            c.request('GET', path, headers={'X-Kutrace-Token': tok})
            r = c.getresponse()
            body = r.read()
            break
        except (http.client.HTTPException, OSError):
            if attempt:
                raise
            c.close()
            c = http.client.HTTPConnection('127.0.0.1', port, timeout=120)
    if r.status != 200:
        print('%s: %d %s' % (path, r.status, body[:200]), file=sys.stderr)
        p.terminate()
        sys.exit(1)
    return body


try:
    lm = json.loads(get('/api/lodmeta'))
    t0 = lm['t0'] * 10
    dur = max(1, (lm['end'][0] + lm['end'][1]) * 10 - t0)
    # widths of the whole trace in one tile, and 4, 16, 64, 256 times finer
    qw = 1
    while qw * 4096 < dur:
        qw *= 2
    widths = [max(1, qw >> s) for s in (0, 2, 4, 6, 8)]
    rnd = random.Random(48)
    print('requests rss_mb')
    print('0 %d' % rss(), flush=True)
    start = time.time()
    for i in range(1, n + 1):
        k = i % 10
        if k == 0:
            get('/api/meta')
        elif k == 1:
            get('/api/lodmeta')
        elif k <= 6:
            q = rnd.choice(widths)
            tiles = max(1, dur // (q * 4096) + 1)
            ti = rnd.randrange(tiles)
            rows = rnd.choice(['', '', '&rows=pid', '&rows=rpc'])
            get('/api/lod?q=%d&a=%d&b=%d%s' % (q, ti * 4096, (ti + 1) * 4096, rows))
        elif k <= 8:
            w = dur // rnd.choice([10, 50, 200, 1000])
            a = t0 + rnd.randrange(max(1, dur - w))
            get('/api/window?t0=%d&t1=%d&limit=300000' % (a, a + w))
        else:
            w = dur // rnd.choice([20, 100])
            a = t0 + rnd.randrange(max(1, dur - w))
            get('/api/rows?cpu=%d&t0=%d&t1=%d' % (rnd.randrange(4), a, a + w))
        if i % every == 0:
            print('%d %d' % (i, rss()), flush=True)
    print('peak_mb %d seconds %.0f' % (rss('VmHWM'), time.time() - start))
finally:
    c.close()
    p.terminate()
    p.wait()

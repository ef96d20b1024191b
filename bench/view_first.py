#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""kutrace_view's time to the first picture of a store (issue 43).

usage: view_first.py KUTRACE_VIEW STORE [-- SERVER ARGS...]

Starts KUTRACE_VIEW STORE --no-browser and asks what the viewer asks
for its first picture of the whole trace: the page (/), /api/lodmeta,
then one /api/lod tile of 4096 bins over the whole trace for the CPU,
PID and RPC rows.  Prints the seconds from the start to the URL (the
server's own preparation: the level of detail made if the store has
none) and to the last of those answers.  Exit 1 if one is not 200.
"""
import http.client, json, subprocess, sys, time

args = sys.argv[1:]
extra = args[args.index('--') + 1:] if '--' in args else []
view, store = args[0], args[1]
start = time.time()
p = subprocess.Popen([view, store, '--no-browser'] + extra,
                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
url = p.stdout.readline().strip()
t_url = time.time() - start
if not url.startswith('http://127.0.0.1:'):
    sys.exit('no URL from %s' % view)
port = int(url.split(':')[2].split('/')[0])
tok = url.split('?t=')[1]
c = http.client.HTTPConnection('127.0.0.1', port, timeout=600)


def get(path):
    c.request('GET', path, headers={'X-Kutrace-Token': tok})
    r = c.getresponse()
    body = r.read()
    if r.status != 200:
        p.terminate()
        sys.exit('%s: %d %s' % (path, r.status, body[:200]))
    return body


try:
    get('/?t=' + tok)
    lm = json.loads(get('/api/lodmeta'))
    t0 = lm['t0'] * 10
    dur = max(1, (lm['end'][0] + lm['end'][1]) * 10 - t0)
    q = 1
    while q * 4096 < dur:
        q *= 2
    for rows in ('', '&rows=pid', '&rows=rpc'):
        get('/api/lod?q=%d&a=0&b=4096%s' % (q, rows))
    print('url_s %.2f first_picture_s %.2f' % (t_url, time.time() - start))
finally:
    c.close()
    p.terminate()
    p.wait()

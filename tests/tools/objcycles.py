#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The files of a library form layers, not circles: file A depends on
file B when A's object uses a symbol B's object defines (nm), and no file
may reach itself that way.  A circle means neither file can be
understood, tested or linked without the other (lib/'s was decode.c ->
util.c -> tool.c -> decode.c: out of memory ended the program through a
file that also made decoders).

    objcycles.py SRCDIR OBJDIR

checks the object OBJDIR/X.o of every SRCDIR/X.c (and OBJDIR/D/X.o of
SRCDIR/D/X.c) (a missing object is an
error: run make first).  Prints each circle, one line each, and exits 1
if there is any; else prints the files in layer order, bottom first.

Where SRCDIR/README.md has a table whose rows start with a folder
("| `base/` | `base.h` | ..."), those folders are stages in that order:
then a file may use (by symbol or by #include of a header that lives in
SRCDIR) only its own folder and the folders before it, every folder must
be in the table and every folder of the table must hold its interface
header; each fault is one line, and exit 1."""
import re
import os
import subprocess
import sys


def symbols(obj):
    """(defined, undefined) global symbols of one object file."""
    out = subprocess.run(['nm', obj], capture_output=True, text=True, check=True).stdout
    defs, uses = set(), set()
    for line in out.splitlines():
        f = line.split()
        if len(f) == 2 and f[0] == 'U':
            uses.add(f[1])
        elif len(f) == 3 and f[1] in 'TDBRCGSVW':
            defs.add(f[2])
    return defs, uses


def circles(graph):
    """The strongly connected components of more than one file (or one
    file using itself, which cannot happen with nm), Tarjan's algorithm."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def layers(graph):
    """Files in an order where each uses only files before it."""
    done, order = set(), []
    while len(done) < len(graph):
        ready = sorted(v for v in graph if v not in done and set(graph[v]) <= done)
        done.update(ready)
        order.append(' '.join(ready))
    return order


def sources(srcdir):
    """Every X.c under srcdir, as the path "X" or "FOLDER/X" below it."""
    out = []
    for top, _, files in os.walk(srcdir):
        rel = os.path.relpath(top, srcdir)
        out += [os.path.normpath(os.path.join(rel, f[:-2])) for f in files if f.endswith('.c')]
    return sorted(out)


def stages(srcdir):
    """[(folder, header)] from SRCDIR/README.md's table, in order; [] if none."""
    path = os.path.join(srcdir, 'README.md')
    if not os.path.exists(path):
        return []
    rows = re.findall(r'^\| `([\w-]+)/` \| `([\w.-]+\.h)` \|', open(path).read(), re.M)
    return rows


def folder_faults(srcdir, graph, order):
    """One line for each use of a later folder, by symbol or by #include."""
    rank = {f: i for i, (f, _) in enumerate(order)}
    out = []
    dirs = sorted(d for d in os.listdir(srcdir) if os.path.isdir(os.path.join(srcdir, d)))
    for d in dirs:
        if d not in rank:
            out.append('%s/: a folder not in %s/README.md' % (d, srcdir))
    for f, h in order:
        if not os.path.exists(os.path.join(srcdir, f, h)):
            out.append('%s/: no interface header %s' % (f, h))
    home = {}
    for d in dirs:
        for n in os.listdir(os.path.join(srcdir, d)):
            if n.endswith('.h'):
                home[n] = d
    for v in sorted(graph):
        a = v.split('/')[0]
        for w in graph[v]:
            b = w.split('/')[0]
            if a in rank and b in rank and rank[b] > rank[a]:
                out.append('%s uses %s: %s/ comes after %s/' % (v, w, b, a))
    for d in dirs:
        for n in sorted(os.listdir(os.path.join(srcdir, d))):
            if not n.endswith(('.c', '.h')):
                continue
            text = open(os.path.join(srcdir, d, n)).read()
            for inc in re.findall(r'^\s*#\s*include\s+"([^"]+)"', text, re.M):
                b = home.get(inc)
                if b and d in rank and rank[b] > rank[d]:
                    out.append('%s/%s includes %s: %s/ comes after %s/' % (d, n, inc, b, d))
    return out


def main(srcdir, objdir):
    names = sources(srcdir)
    defs, uses = {}, {}
    for n in names:
        obj = os.path.join(objdir, n + '.o')
        if not os.path.exists(obj):
            print('%s: no object (run make)' % obj)
            return 1
        defs[n], uses[n] = symbols(obj)
    owner = {s: n for n in names for s in defs[n]}
    graph = {n: sorted({owner[s] for s in uses[n] if s in owner} - {n}) for n in names}
    bad = circles(graph)
    for comp in bad:
        # one path around the circle, for the message: the edges inside it
        edges = ['%s->%s' % (a, b) for a in comp for b in graph[a] if b in comp]
        print('circle: %s (%s)' % (' '.join(comp), ', '.join(edges)))
    order = stages(srcdir)
    faults = folder_faults(srcdir, graph, order) if order else []
    for f in faults:
        print(f)
    if bad or faults:
        return 1
    if order:
        print('%d folders in order: %s' % (len(order), ' '.join(f + '/' for f, _ in order)))
    print('%d files, layers: %s' % (len(names), ' | '.join(layers(graph))))
    return 0


if __name__ == '__main__':
    sys.exit(main(*sys.argv[1:3]))

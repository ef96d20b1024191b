#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The viewer's modules are layers: assemble.sh puts them in one closure
in the order of VIEWER_PARTS (viewer/viewer.mk: data.js, draw.js,
ui.js), and each may use only the top-level names of the modules before
it, so that data never reaches into drawing and drawing never into the
controls.  Prints one line per name used against that order; exit 1 if
any."""
import re
import sys


def code(js):
    """The text without comments, strings and regular expressions."""
    js = re.sub(r'//[^\n]*', '', js)
    js = re.sub(r"'(?:\\.|[^'\\\n])*'|\"(?:\\.|[^\"\\\n])*\"|`(?:\\.|[^`\\])*`", "''", js)
    return re.sub(r'(?<=[=(,:;!&|?{}\[])\s*/(?:\\.|\[[^\]\n]*\]|[^/\\\n\[])+/[gimsuy]*', ' 0', js)


def main(root='.'):
    mk = open(root + '/viewer/viewer.mk').read()
    parts = re.search(r'^VIEWER_PARTS\s*:=\s*\$\(addprefix viewer/,([^)]*)\)', mk, re.M).group(1).split()
    owner = {}
    src = {}
    for i, p in enumerate(parts):
        src[p] = code(open(root + '/viewer/' + p).read())
        for line in src[p].split('\n'):
            m = re.match(r'(?:async )?function (\w+)', line)
            names = [m.group(1)] if m else []
            m = re.match(r'(?:const|let) (.*)', line)
            if m:
                names = re.findall(r'(?:^|,\s*)(\w+)\s*=', m.group(1))
            for n in names:
                owner.setdefault(n, i)
    bad = 0
    for i, p in enumerate(parts):
        seen = set()
        for m in re.finditer(r'(?<![.\w$])([A-Za-z_$][\w$]*)(?!\w|:(?!:))', src[p]):
            n = m.group(1)
            if owner.get(n, -1) > i and n not in seen:
                seen.add(n)
                line = src[p].count('\n', 0, m.start()) + 1
                print(f'viewer/{p}:{line}: uses {n} of the later module {parts[owner[n]]}')
                bad += 1
    print(f'{len(parts)} modules, {len(owner)} top-level names, {bad} used against the order', file=sys.stderr)
    return 1 if bad or len(parts) < 2 else 0


if __name__ == '__main__':
    sys.exit(main(*sys.argv[1:]))

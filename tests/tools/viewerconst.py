#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The viewer's event numbers are the format's: the build generates them
from include/kutrace/format.h (viewer/gen_format.sh).  Checks
that the generator runs on today's format.h, that no viewer module
(viewer/*.js) defines an event number of its own (only the
negative drawing codes of the viewer) and that every EV_ name the modules
use is defined by one of the two.  Prints one line per problem; exit 1 if
any."""
import glob
import re
import subprocess
import sys


def main(root='.'):
    gen = subprocess.run(['sh', root + '/viewer/gen_format.sh',
                          root + '/include/kutrace/format.h'],
                         capture_output=True, text=True)
    bad = 0
    if gen.returncode:
        print('gen_format.sh: ' + gen.stderr.strip())
        bad += 1
    defined = set(re.findall(r'^const (EV_\w+) = 0x[0-9A-F]+;$', gen.stdout, re.M))
    used = {}
    for path in sorted(glob.glob(root + '/viewer/*.js')):
        name = path[len(root) + 1:]
        js = open(path).read()
        for m in re.finditer(r'\b(EV_\w+)\s*=\s*(-?(?:0x[0-9A-Fa-f]+|\d+))\b', js):
            if int(m.group(2), 0) >= 0:
                print(f'{name}: {m.group(1)} = {m.group(2)} is an event number: '
                      f'generate it from format.h (viewer/gen_format.sh)')
                bad += 1
            else:
                defined.add(m.group(1))
        for n in re.findall(r'\bEV_\w+\b', js):
            used.setdefault(n, name)
    for n, name in sorted(used.items()):
        if n not in defined:
            print(f'{name}: {n} is defined neither by gen_format.sh nor as a drawing code')
            bad += 1
    print(f'{len(used)} viewer constants, {bad} problems', file=sys.stderr)
    return 1 if bad or not used else 0


if __name__ == '__main__':
    sys.exit(main(*sys.argv[1:]))

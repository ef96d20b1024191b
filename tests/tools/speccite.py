#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Check that every citation of the specification points into the tree.

    speccite.py [ROOT]

Reads every tracked file under ROOT (git ls-files, else a walk without
build/ and .git/) and prints one line per problem, exit status 1 if any:

  * a spec file (FORMATS, VIEWER or HOOKS, each .md) named without its
    directory docs/spec/ (files inside docs/spec/ may name their siblings
    bare), or a path into the shared directory beside the repository,
    which a clone does not have;
  * a "bug N" reference to a numbered list of somebody else's bugs: the
    reason belongs in the comment itself;
  * a cited section that docs/spec/<file> does not have.  A citation is
    the file name followed by an optional "§" or "section(s)" and a list
    of numbers ("3.7", "1.4 - 1.10", "2-3", "8.20", "H7-H9", "section 6
    rows 63-68"); a number exists when the file has a heading for it
    ("## 3.", "### 3.7", "**3.6.8"), a numbered item N under heading S
    for "S.N", a table row "| H7 |" for hook numbers, or a checklist row
    "| 63 |" in section 6 for "rows".
"""
import os
import re
import subprocess
import sys

SPEC_DIR = 'docs/spec'
NAMES = ('FORMATS', 'VIEWER', 'HOOKS')
# Built by concatenation so that this file does not cite itself.
NAME_RE = '(' + '|'.join(NAMES) + r')\.md'
ANY = re.compile(r'((?:[\w.-]+/)*)' + NAME_RE)
SHARED = re.compile(r'shared/' + 'spec')
BUG = re.compile(r'\b[Bb]ugs?\s+#?\d+')
NUM = r'(?:H\d+|\d+(?:\.\d+)*)(?![\w])'
DASH = r'\s*(?:-|–|\.\.|to)\s*'
ITEM = NUM + r'(?:' + DASH + NUM + r')?'
LIST = re.compile(r'\s*(?:§\s*|sections?\s+)?(' + ITEM + r'(?:\s*(?:,|and)\s*(?:§\s*)?' + ITEM + r')*)'
                  r'(?:\s+rows\s+(\d+)(?:' + DASH + r'(\d+))?)?')
LEADER = re.compile(r'^\s*(?:\+\s*)?(?:\*|#+|//|--|;|\.\\")?\s*')


def tracked(root):
    try:
        out = subprocess.run(['git', '-C', root, 'ls-files', '-z'], capture_output=True, check=True)
        files = [f for f in out.stdout.decode().split('\0') if f]
        if files:
            return files
    except (OSError, subprocess.CalledProcessError):
        pass
    files = []
    for d, dirs, names in os.walk(root):
        dirs[:] = [x for x in dirs if x not in ('.git', 'build', 'build-san', 'node_modules')]
        for n in names:
            files.append(os.path.relpath(os.path.join(d, n), root))
    return files


class Spec:
    """The section numbers one spec file has."""

    def __init__(self, path):
        self.ok = os.path.isfile(path)
        self.heads = set()      # "3", "3.7", "3.6.8", "H7"
        self.items = {}         # heading -> set of numbered items under it
        self.rows = set()       # checklist rows of section 6
        if not self.ok:
            return
        cur = None
        top = None
        for line in open(path, encoding='utf-8', errors='replace'):
            m = re.match(r'#+\s+(\d+(?:\.\d+)*)\.?\s', line) or re.match(r'\*\*(\d+(?:\.\d+)+)\s', line)
            if m:
                cur = m.group(1)
                self.heads.add(cur)
                if line.startswith('## '):
                    top = cur
                continue
            m = re.match(r'\|\s*(H\d+)\s*\|', line)
            if m:
                self.heads.add(m.group(1))
            m = re.match(r'(\d+)\.\s', line)
            if m and cur is not None:
                self.items.setdefault(cur, set()).add(m.group(1))
            m = re.match(r'\|\s*(\d+)\s*\|', line)
            if m and top == '6':
                self.rows.add(m.group(1))

    def has(self, num):
        if num in self.heads:
            return True
        sec, _, item = num.rpartition('.')
        return bool(sec) and item in self.items.get(sec, ())


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else '.'
    specs = {n: Spec(os.path.join(root, SPEC_DIR, n + '.md')) for n in NAMES}
    problems = []
    count = 0
    for rel in tracked(root):
        path = os.path.join(root, rel)
        if not os.path.isfile(path):
            continue
        try:
            data = open(path, 'rb').read()
        except OSError:
            continue
        if b'\0' in data:
            continue
        lines = data.decode('utf-8', errors='replace').split('\n')
        inside = rel.startswith(SPEC_DIR + '/')
        for i, line in enumerate(lines):
            where = '%s:%d' % (rel, i + 1)
            if SHARED.search(line):
                problems.append(where + ': cites a spec outside the repository: ' + line.strip())
            if BUG.search(line):
                problems.append(where + ': "bug N" of a list that is not here; give the reason: ' + line.strip())
            for m in ANY.finditer(line):
                prefix, name = m.group(1), m.group(2)
                if prefix.endswith('spec/') and not prefix.endswith(SPEC_DIR + '/') and 'shared' in prefix:
                    continue  # reported above
                if prefix == '':
                    if not inside:
                        problems.append(where + ': names %s.md without %s/' % (name, SPEC_DIR))
                        continue
                elif not prefix.endswith(SPEC_DIR + '/'):
                    continue  # some other file of that name
                count += 1
                spec = specs[name]
                if not spec.ok:
                    problems.append(where + ': %s/%s.md does not exist' % (SPEC_DIR, name))
                    continue
                rest = line[m.end():]
                if rest.strip() == '' and i + 1 < len(lines):
                    rest = LEADER.sub('', lines[i + 1], count=1)
                c = LIST.match(rest)
                if not c:
                    continue
                nums = re.findall(NUM, c.group(1))
                for n in nums:
                    if not spec.has(n):
                        problems.append(where + ': %s.md has no section %s' % (name, n))
                for r in (c.group(2), c.group(3)):
                    if r and r not in spec.rows:
                        problems.append(where + ': %s.md section 6 has no row %s' % (name, r))
    for p in problems:
        print(p)
    print('%d citations of %s/, %d problems' % (count, SPEC_DIR, len(problems)), file=sys.stderr)
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())

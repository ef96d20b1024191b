#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""unname.py IN OUT [--x86]: a copy of raw trace IN without its system call
names: every SYSCALL64NAME entry (0x008) becomes a FILENAME entry (0x001,
which nothing reads), so postprocessing must name the calls itself from the
trace's architecture (docs/FORMAT.md).  --x86 also blanks "arm64" or
"riscv64" in the backend entry (0x107), making the trace look like an
x86-64 one.  Prints
how many names it took out."""
import struct
import sys

data = open(sys.argv[1], 'rb').read()
nw = len(data) // 8
w = list(struct.unpack('<%dQ' % nw, data))
blank = '--x86' in sys.argv[3:]
n = 0
for b in range(nw // 8192):          # no side blocks: flags without IPC/LLC
    i, end = b * 8192 + (12 if b == 0 else 6), (b + 1) * 8192
    while i < end and w[i] != 0xFFFFFFFFFFFFFFFF:
        ev = (w[i] >> 32) & 0xFFF
        size = 1
        if ev in (0x280, 0x281, 0x101):
            size = 2
        elif 0x010 <= ev <= 0x1FF:
            size = max(1, (ev >> 4) & 0xF)
            if ev & 0xF0F == 0x008:
                w[i] = (w[i] & ~(0xF0F << 32)) | (0x001 << 32)
                n += 1
            elif ev & 0xF0F == 0x107 and blank:
                text = struct.pack('<%dQ' % (size - 1), *w[i + 1:i + size])
                for arch in (b'arm64', b'riscv64'):
                    text = text.replace(arch, b' ' * len(arch))
                w[i + 1:i + size] = struct.unpack('<%dQ' % (size - 1), text)
        i += size
open(sys.argv[2], 'wb').write(struct.pack('<%dQ' % nw, *w))
print(n)

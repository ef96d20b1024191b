#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""rawlayout.py FILE [--ipc] [--wrap] - structural check of a raw trace
written by kutrace_synth, independent of the C reader (docs/spec/FORMATS.md 2):
size a multiple of the block (+side) size, block 0 with version 3 and
plausible time pairs, CPU numbers in range, header pid/comm, flags
consistent across blocks, entries not crossing the block end, name length
nibbles 1..8.  Prints one line per problem and "layout ok N blocks"."""
import struct, sys

path = sys.argv[1]
want_ipc = '--ipc' in sys.argv
want_wrap = '--wrap' in sys.argv
data = open(path, 'rb').read()
BLK, SIDE = 65536, 8192
stride = BLK + (SIDE if want_ipc else 0)
bad = []
if len(data) == 0 or len(data) % stride:
    print("size %d not a multiple of %d" % (len(data), stride)); sys.exit(1)
n = len(data) // stride
for b in range(n):
    w = struct.unpack_from('<8192Q', data, b * stride)
    cpu = w[0] >> 56
    flags = w[1] >> 56
    if cpu >= 64:
        bad.append("block %d: cpu %d" % (b, cpu))
    if bool(flags & 0x80) != want_ipc:
        bad.append("block %d: IPC flag %02x" % (b, flags))
    if b == 0:
        if flags & 0x0F != 3:
            bad.append("block 0: version %d" % (flags & 0xF))
        c0, u0, c1, u1 = w[2:6]
        rate = (c1 - c0) / max(1, (u1 - u0))
        if not (c1 > c0 and u1 > u0 and 0.99 <= rate <= 100.1):
            bad.append("block 0: time pairs %d %d %d %d" % (c0, u0, c1, u1))
        if not (1420070400e6 < u0 < 2524608000e6):
            bad.append("block 0: start usec %d" % u0)
        first, pidw = 12, 8
    else:
        if flags & 0x0F:
            bad.append("block %d: version nibble in a later block" % b)
        if bool(flags & 0x40) != want_wrap:
            bad.append("block %d: WRAP flag %02x" % (b, flags))
        first, pidw = 6, 2
    comm = data[b * stride + 8 * (pidw + 2): b * stride + 8 * (pidw + 4)]
    if w[pidw] >> 32 or not comm.rstrip(b'\0') or \
            any(c < 0x20 or c > 0x7e for c in comm.rstrip(b'\0')):
        bad.append("block %d: header pid/comm %x %r" % (b, w[pidw], comm))
    i = first
    while i < 8192:
        x = w[i]
        if x == 0xFFFFFFFFFFFFFFFF:
            break
        if x == 0:
            i += 1
            continue
        ev = (x >> 32) & 0xFFF
        ln = 1
        if ev in (0x280, 0x281, 0x101):
            ln = 2
        elif 0x010 <= ev <= 0x1FF:
            ln = (ev >> 4) & 0xF
            if ln < 2 or ln > 8:
                bad.append("block %d word %d: name length %d" % (b, i, ln))
                ln = 1
        if i + ln >= 8192:
            bad.append("block %d word %d: entry crosses the block end" % (b, i))
        i += ln
for m in bad[:10]:
    print(m)
if bad:
    sys.exit(1)
print("layout ok %d blocks" % n)

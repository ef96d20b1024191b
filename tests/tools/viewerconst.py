#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The viewer's event numbers are the format's: every EV_ constant that
postprocess/viewer/viewer.js defines with a number must equal the
KUTRACE_ constant of include/kutrace/format.h it stands for (the map
below); one that is neither in the map nor a viewer-only drawing code
(negative) is reported.  Prints one line per problem; exit 1 if any."""
import re
import sys

# viewer name -> format.h name
MAP = {
    'EV_USERPID': 'USERPID', 'EV_RPCREQ': 'RPCIDREQ', 'EV_RPCMID': 'RPCIDMID',
    'EV_RPCRX': 'RPCIDRXMSG', 'EV_RPCTX': 'RPCIDTXMSG', 'EV_PSTATE': 'PSTATE',
    'EV_PSTATE2': 'PSTATE2', 'EV_MARKA': 'MARKA', 'EV_MARKD': 'MARKD',
    'EV_LEFT': 'LEFTMARK', 'EV_RIGHT': 'RIGHTMARK', 'EV_RXPKT': 'RX_PKT',
    'EV_TXPKT': 'TX_PKT', 'EV_ENQ': 'ENQUEUE', 'EV_PCU': 'PC_U', 'EV_PCK': 'PC_K',
    'EV_LOCKHELD': 'LOCK_HELD', 'EV_LOCKTRY': 'LOCK_TRY', 'EV_WAIT': 'WAIT_BASE',
    'EV_IDLE': 'IDLE', 'EV_CEXIT': 'C_EXIT',
}
# the local timer's interrupt event: KUTRACE_IRQ + its x86 vector 0xEC
DERIVED = {'EV_LTIMER': ('IRQ', 0xEC)}


def main(root='.'):
    fmt = {}
    for m in re.finditer(r'^#define\s+KUTRACE_(\w+)\s+(0x[0-9A-Fa-f]+|\d+)\b',
                         open(root + '/include/kutrace/format.h').read(), re.M):
        fmt[m.group(1)] = int(m.group(2), 0)
    js = open(root + '/postprocess/viewer/viewer.js').read()
    bad = 0
    seen = 0
    for m in re.finditer(r'\b(EV_\w+)\s*=\s*(-?(?:0x[0-9A-Fa-f]+|\d+))\b', js):
        name, val = m.group(1), int(m.group(2), 0)
        seen += 1
        if val < 0:
            continue                    # drawing codes of the viewer's own
        if name in DERIVED:
            base, off = DERIVED[name]
            if fmt.get(base, -1) + off != val:
                print(f'viewer.js: {name} = {val:#x} but KUTRACE_{base} + {off:#x} = '
                      f'{fmt.get(base, -1) + off:#x}')
                bad += 1
            continue
        want = MAP.get(name)
        if want is None:
            print(f'viewer.js: {name} = {val:#x} stands for no format.h constant (add it to tests/tools/viewerconst.py)')
            bad += 1
        elif fmt.get(want) != val:
            have = f'{fmt[want]:#x}' if want in fmt else 'missing'
            print(f'viewer.js: {name} = {val:#x} but format.h KUTRACE_{want} = {have}')
            bad += 1
    print(f'{seen} viewer constants, {bad} problems', file=sys.stderr)
    return 1 if bad or not seen else 0


if __name__ == '__main__':
    sys.exit(main(*sys.argv[1:]))

#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Caches scripts/checkpatch.pl (+ its data files) from linux-source-6.1
# in /var/cache/kutrace/checkpatch.
set -eu
C=${KT_CACHE:-/var/cache/kutrace}
[ -x $C/checkpatch/checkpatch.pl ] && exit 0
mkdir -p $C/debs $C/checkpatch
cd $C/debs
ls linux-source-6.1_*.deb >/dev/null 2>&1 || apt-get download -qq linux-source-6.1
dpkg-deb --fsys-tarfile linux-source-6.1_*.deb |
	tar xO --wildcards './usr/src/linux-source-6.1.tar.xz' |
	tar xJ -C $C/checkpatch --strip-components=2 --wildcards \
		'linux-source-6.1/scripts/checkpatch.pl' \
		'linux-source-6.1/scripts/spelling.txt' \
		'linux-source-6.1/scripts/const_structs.checkpatch'
chmod +x $C/checkpatch/checkpatch.pl

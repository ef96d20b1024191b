#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Guest side of tests/vm/debian/run.sh, started by kt-run.service in
# /var/tmp/kt-in: runs scenario.sh in /root/out, writes /root/out as a tar
# to /dev/vdc and powers off.
mkdir -p /root/out
cd /root/out
cut -d' ' -f1 /proc/uptime > uptime.start
sh -x /var/tmp/kt-in/scenario.sh > scenario.log 2>&1 &
spid=$!
# progress on the console (kt-run.service's output goes there)
( while kill -0 $spid 2>/dev/null; do sleep 30; echo "kt-guest: $(cut -d' ' -f1 /proc/uptime) s: $(grep -v '^+' scenario.log | tail -1)"; done ) &
wait $spid
echo $? > status
journalctl -b --no-pager > journal.txt 2>&1
dmesg > dmesg.txt
tar cf /dev/vdc . && sync
echo "kt-guest: done"
systemctl poweroff --no-block

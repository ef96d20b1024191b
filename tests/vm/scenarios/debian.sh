# Guest part of tests/t_vm_debian.sh, on the Debian 12 guest (systemd,
# generic kernel): what docs/install-guide.md tells a sysadmin, step by
# step.  The packages from `make deb` are in /var/tmp/kt-in.
in=/var/tmp/kt-in
systemctl is-system-running --wait > system.txt 2>&1
cat /proc/1/comm > init.txt
uname -r > uname.txt
systemd-analyze > boot.txt 2>&1
# apt installs both packages; kutrace-dkms's postinst has DKMS build the
# module for the running kernel
t0=$(date +%s)
DEBIAN_FRONTEND=noninteractive apt-get install -y $in/kutrace_*.deb $in/kutrace-dkms_*.deb > apt-install.log 2>&1
echo "install=$?"
echo "apt_install_s=$(( $(date +%s) - t0 ))" > times.txt
dkms status > dkms-status.txt 2>/dev/null
# DKMS's build alone: from the start date make.log opens with to its
# last write
ml=$(find /var/lib/dkms/kutrace -name make.log | head -1)
if [ -n "$ml" ]; then
	cp "$ml" dkms-make.log
	echo "dkms_build_s=$(( $(stat -c %Y "$ml") - $(date -d "$(sed -n 2p "$ml")" +%s) ))" >> times.txt
fi
modinfo -n kutrace_mod > modinfo.txt 2>&1
modprobe kutrace_mod tracemb=16 > modprobe.err 2>&1
echo "modprobe=$?"
udevadm settle
stat -c '%A %U %G %t:%T' /dev/kutrace > devnode.txt 2>&1
udevadm info --query=property --name=/dev/kutrace > udev.txt 2>&1
cat /sys/module/kutrace_mod/parameters/tracemb > tracemb.txt 2>&1
# a multi-process workload from Debian's own programs: a shell pipeline
# over /usr (find, xargs, cat, gzip, wc), xz, and sqlite3 inserting and
# querying in a transaction
cat > work.sh <<'WORK'
find /usr/share/perl /usr/lib/python3* -type f -name '*.p[ym]' 2>/dev/null | head -400 | xargs cat | gzip -6 | wc -c
head -c 2000000 /usr/bin/dpkg /usr/lib/x86_64-linux-gnu/libc.so.6 | xz -1 -T1 | wc -c
sqlite3 /tmp/bench.db 'create table t(a integer primary key, b text); begin; with recursive c(x) as (select 1 union all select x+1 from c where x < 20000) insert into t(b) select hex(randomblob(16)) from c; commit; select count(*), count(distinct substr(b,1,2)) from t;'
WORK
t0=$(date +%s)
kutrace_control record -o debian.trace -- sh work.sh > record.out 2> record.err
echo "record=$?"
echo "record_s=$(( $(date +%s) - t0 ))" >> times.txt
t0=$(date +%s)
kutrace_postproc debian.trace "Debian 12 guest: find|xargs cat|gzip, xz, sqlite3" > postproc.out 2>&1
echo "postproc=$?"
echo "postproc_s=$(( $(date +%s) - t0 ))" >> times.txt
ls -l debian.* > files.txt
# t_vm_debian's short round of the peers bench (bench_peers.sh, given as
# peers.sh): trace-cmd, perf, LTTng and bpftrace beside kutrace, while
# kutrace is installed; its output where bench/peers.sh count looks
# (PEERS_OUT/stock).  It unloads the module; loaded again as it was.
if [ -f $in/peers.sh ]; then
	mkdir -p peers/stock
	t0=$(date +%s)
	(cd peers/stock && sh $in/peers.sh > scenario.log 2>&1)
	echo "peers=$?"
	echo "peers_s=$(( $(date +%s) - t0 ))" >> times.txt
	grep -q '^kutrace_mod ' /proc/modules || modprobe kutrace_mod tracemb=16
fi
# kutrace-recorder.service (issue 45): installed, not enabled by the
# package; enabled as the guide says, it records from then on, and a
# process dying of SIGSEGV gives a snapshot in /var/lib/kutrace with one
# journal line; `kutrace snapshot` saves one on demand.
systemctl is-enabled kutrace-recorder > svc-enabled0.txt 2>&1
cat > /etc/kutrace/recorder.conf <<'CONF'
# the test's: a crash, with 1 s before it and 0.5 s after
trigger = crash
before = 1
after = 0.5
min-interval = 0
spool-mb = 64
max-disk-mb = 64
CONF
systemctl enable --now kutrace-recorder > svc-enable.txt 2>&1; echo "svc_enable=$?"
for i in $(seq 1 90); do [ -S /run/kutrace-flight.sock ] && break; sleep 1; done
systemctl is-active kutrace-recorder > svc-active.txt 2>&1
sleep 3
cp /bin/dash /tmp/ktcrash
/tmp/ktcrash -c 'kill -SEGV $$'; echo "crash_status=$?"
for i in $(seq 1 90); do ls /var/lib/kutrace/snapshot-*crash*.trace > /dev/null 2>&1 && break; sleep 1; done
kutrace snapshot -o /var/lib/kutrace/demand.trace > svc-snap.out 2>&1; echo "svc_snap=$?"
systemctl disable --now kutrace-recorder > svc-disable.txt 2>&1; echo "svc_disable=$?"
systemctl is-active kutrace-recorder > svc-active2.txt 2>&1
journalctl -u kutrace-recorder --no-pager -o cat > svc-journal.txt 2>&1
ls /var/lib/kutrace > svc-ls.txt
cp /var/lib/kutrace/snapshot-*crash*.trace svc-crash.trace 2> /dev/null
cp /var/lib/kutrace/demand.trace svc-demand.trace 2> /dev/null
dmesg | grep -E "Oops|BUG:|general protection|Call Trace|WARNING:" > oops.txt
# removal: module unloaded, packages removed (the configuration file
# stays, as Debian keeps every package's), then purged: nothing of kutrace
# left
modprobe -r kutrace_mod; echo "rmmod=$?"
DEBIAN_FRONTEND=noninteractive apt-get remove -y kutrace kutrace-dkms > apt-remove.log 2>&1
echo "remove=$?"
test -f /etc/kutrace/recorder.conf; echo "conf_kept=$?"
find / -xdev \( -path /root/out -o -path /var/tmp/kt-in -o -path /proc -o -path /sys \) -prune -o \
	-name '*kutrace*' -print > left-files-remove.txt 2>/dev/null
DEBIAN_FRONTEND=noninteractive apt-get purge -y kutrace kutrace-dkms > apt-purge.log 2>&1
echo "purge=$?"
grep kutrace /proc/modules > left-modules.txt
find / -xdev \( -path /root/out -o -path /var/tmp/kt-in -o -path /proc -o -path /sys \) -prune -o \
	-name '*kutrace*' -print > left-files.txt 2>/dev/null
dpkg -l 'kutrace*' 2>/dev/null | grep '^[a-z][a-z] ' > left-dpkg.txt
modinfo kutrace_mod > left-modinfo.txt 2>&1; echo "modinfo_after=$?"
true

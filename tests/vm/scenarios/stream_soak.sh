# Guest part of the long streaming run of tests/t_vm_stream.sh (make
# soak-stream): kutrace_control record --stream, cut every 32 MiB, for
# SECS seconds (ktsoak=SECS on the kernel command line, default 600) of
# getpid at the guest's full rate, onto /dev/vdb (ext2, made here; the
# host reads the chunks out of the image with debugfs).  The workload is
# "workload getpid 100000" again and again until SECS have passed, each
# run's pid in pids.txt: every pid there made exactly 100000 calls.
SECS=600
for a in $(cat /proc/cmdline); do
	case $a in ktsoak=*) SECS=${a#ktsoak=} ;; esac
done
mke2fs -F -b 4096 -i 1048576 /dev/vdb > mkfs.out 2>&1
mkdir -p /mnt/s && mount -t ext2 /dev/vdb /mnt/s
echo "mount=$?"
mkdir -p /mnt/s/run
read t0 x < /proc/uptime
kutrace_control record --stream -o /mnt/s/run --rotate-size 32M -- sh -c '
	end=$((${1%.*} + $2))
	while :; do
		read now x < /proc/uptime
		[ ${now%.*} -ge $end ] && break
		workload getpid 100000 >> pids.txt || exit 1
	done' sh "$t0" "$SECS" > soak.out 2> soak.err
echo "soak=$?"
read t1 x < /proc/uptime
echo "$t0 $t1" | awk '{ printf "secs=%.1f\n", $2 - $1 }'
ls -l /mnt/s/run > chunks.txt
df -k /mnt/s > df.txt
umount /mnt/s
echo "umount=$?"

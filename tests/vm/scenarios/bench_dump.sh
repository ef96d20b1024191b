# Guest part of `make bench` (bench/vm.sh): time to write a full trace
# buffer (tracemb, 1024 in make bench) to a trace file with kutrace_control,
# the mmap path.  The buffer is filled with 8-word entries by bench_load
# fill; the file goes to /tmp (tmpfs, guest RAM: run with KT_VM_MEM=3G)
# and is deleted, only its size is kept.
set -u
kutrace_control go > go.out 2>&1
bench_load fill > fill.txt 2>&1
bench_load run kutrace_control stop /tmp/full.trace > dump.txt 2>&1
ls -l /tmp/full.trace | awk '{ print "bytes=" $5 }' >> dump.txt
rm -f /tmp/full.trace
free -m > free.txt
true

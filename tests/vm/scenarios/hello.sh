# Vertical slice: hello_world_trace and a recorded getpid loop.
set -x
hello_world_trace hello.trace
kutrace_control record -o getpid.trace -- workload getpid 1000
ls -l

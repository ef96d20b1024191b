# Guest part of `make demo`: hello_world_trace and a small mixed workload.
hello_world_trace hello_world_trace.trace
kutrace_control record -o mixed_workload.trace -- sh -c \
	'workload mixed 2000 20 200; ls -l / > /dev/null; cat /proc/cpuinfo > /dev/null'

# Guest part of tests/t_vm_align.sh (two guests, tests/vm/vm2.sh): guest
# a runs client_server's clients, guest b its servers, over TCP on the
# virtual network; each traces itself, so both traces hold the same RPC ids.
role=$(sed -n 's/.*ktrole=\([ab]\).*/\1/p' /proc/cmdline)
echo "role=$role"
# Host names tell the traces apart (the JSON's hostName).
hostname "guest$role"
ip link set lo up
ip link set eth0 up
if [ "$role" = a ]; then ip addr add 10.0.30.1/24 dev eth0; else ip addr add 10.0.30.2/24 dev eth0; fi
ip addr > net.out 2>&1
uname -r > release.txt
if [ "$role" = b ]; then
	client_server --listen 7000 -c 2 -n 400 -s 20 -l 5 -o b.trace > cs.out 2>&1
else
	# the other guest may still be booting: client_server retries 30 s
	ping -c 2 -W 10 10.0.30.2 > ping.out 2>&1
	client_server --connect 10.0.30.2:7000 -c 2 -n 400 -s 20 -l 5 -o a.trace > cs.out 2>&1
fi
echo "client_server=$?"
dmesg | grep -E "Oops|BUG:|general protection|Call Trace|WARNING:" > oops.txt
true

#!/bin/sh
# 10-demo (make demo, not a test): what an operator sees on a host. Loads kvmchurn,
# runs `kvmchurn load -n 100 -j 4 --run --end kill` with a progress line a second from the
# module's own counts, then prints the load's summary, `kvmchurn show`, `summary` and
# `check`, and hands back `kvmchurn plot`'s timeline of the 100 VMs (gzipped: the serial
# line is slow), which tests/demo/run.sh writes beside the log. Lines for the terminal
# start with "demo| "; run.sh prints them.
# shellcheck source=../../lib/guest/lib.sh
. /kvmchurn/lib.sh
# the kernel's own lines stay in dmesg, out of the terminal's way
echo 1 >/proc/sys/kernel/printk
say() { sed 's/^/demo| /'; }
LOAD="kvmchurn load -n 100 -j 4 --run --end kill"

if insmod "$KVMCHURN_KO"; then
	ok "insmod kvmchurn.ko"
else
	not_ok "insmod kvmchurn.ko"
	exit 1
fi
echo "$(uname -r) $(uname -m), $(grep -c '^processor' /proc/cpuinfo) CPUs, KVM nested in QEMU" | say
echo "\$ $LOAD" | say
t0=$(cut -d' ' -f1 /proc/uptime)
$LOAD >/tmp/load.out 2>/tmp/load.err &
pid=$!
# progress: what the module has counted so far, about once a second
while kill -0 $pid 2>/dev/null; do
	echo "$(awk -v t="$t0" '{ printf "%5.1f s", $1 - t }' /proc/uptime): $(raw_field hist kvm_create_vm 3) VMs created, $(raw_field hist kvm_destroy_vm 3) destroyed (kvmchurn.ko's counts)" | say
	sleep 1
done
if wait $pid; then
	ok "$LOAD"
else
	not_ok "$LOAD: exit $?"
	say </tmp/load.err
fi
say </tmp/load.out
for c in show summary check; do
	echo | say
	echo "\$ kvmchurn $c" | say
	kvmchurn $c >/tmp/out 2>&1
	rc=$?
	say </tmp/out
	# check exits 1 when one of the seed's checks warns: that is its answer, not a failure
	if [ $rc = 0 ] || { [ $c = check ] && [ $rc = 1 ]; }; then ok "kvmchurn $c"; else not_ok "kvmchurn $c: exit $rc"; fi
done
if kvmchurn plot -o /tmp/timeline.svg && gzip -c /tmp/timeline.svg | kvmchurn-put timeline.svg.gz; then
	ok "kvmchurn plot"
else
	not_ok "kvmchurn plot: exit $?"
fi
rmmod kvmchurn

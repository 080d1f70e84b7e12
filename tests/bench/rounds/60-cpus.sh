#!/bin/sh
# 60-cpus (make bench, not a test): what the module holds on a host of another
# number of possible CPUs, the module's own account (its memory file, whose
# per-CPU and objpool terms are computed for num_possible_cpus()) beside the
# kernel's: meminfo's Percpu, and the objpools' and the module's vmalloc areas
# in /proc/vmallocinfo, each before insmod and loaded. x86 takes
# possible_cpus=; nr_cpus=1 makes a 1-CPU host of any. The 2-CPU numbers are
# 50-bench's. Busybox sh.
# boot: nr_cpus=1
# boot: nr_cpus=2
# boot: possible_cpus=256
# shellcheck source=../../lib/guest/lib.sh
. /kvmchurn/lib.sh

percpu() { awk '$1 == "Percpu:" { print $2 * 1024 }' /proc/meminfo; }
# each read once it stands still (still): the kernel's boot may still be freeing
p0=$(still 60 percpu) v0=$(still 60 vmpools)
if insmod "$KVMCHURN_KO"; then
	p1=$(still 60 percpu) v1=$(still 60 vmpools) m=$(vmmodule)
	echo "# bench cpus $(tr '\n' ' ' <$D/memory)kernel_percpu $((p1 - p0)) kernel_pools $((v1 - v0)) kernel_vmalloc $m probes $(awk 'NR > 1 && $4 == "attached" { n[$2]++ } END { for (k in n) printf "%s%s:%d", s++ ? "," : "", k, n[k] }' $D/probes)"
	rmmod kvmchurn
	ok "memory on $(cat /sys/devices/system/cpu/possible) possible CPUs"
else
	not_ok "insmod kvmchurn.ko"
fi
exit 0

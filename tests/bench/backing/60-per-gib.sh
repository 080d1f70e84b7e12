#!/bin/sh
# 60-per-gib (make bench-backing): what exit_mmap and kvm_destroy_vm cost per GiB
# of guest memory, for each backing of `kvmchurn load --backing`. For each,
# BACKING_VMS VMs of BACKING_MIB MiB, one at a time (-j 1, one vCPU, no irqfds),
# every page written once (read once for file), SIGKILLed: the two metrics' sums
# and counts from two raw snapshots, printed as "# backing KIND MIB VMS exit_mmap
# SUM COUNT kvm_destroy_vm SUM COUNT" for backing/report.awk (tests/bench/bench.sh
# backing), which writes BACKING_VMS and BACKING_MIB in /kvmchurn/bench.conf. A
# backing the kernel lacks is said so. Busybox sh.
# shellcheck source=../../lib/guest/lib.sh
. /kvmchurn/lib.sh
# shellcheck source=/dev/null
. /kvmchurn/bench.conf # BACKING_VMS BACKING_MIB


# per_gib KIND [OPTIONS...]
per_gib() {
	kind=$1
	shift
	load_deltas "$kind" "$BACKING_VMS" -n "$BACKING_VMS" -j 1 --vcpus 1 --irqfds 0 --mem "$BACKING_MIB" \
		--timeout 3600 --end kill --backing "$kind" "$@"
	grep -q "$BACKING_VMS completed, 0 failed" /tmp/kc.load || { sed 's/^/# /' /tmp/kc.load; return; }
	echo "# backing $kind $BACKING_MIB $BACKING_VMS exit_mmap $(val_sum exit_mmap) $(delta hist exit_mmap)" \
		"kvm_destroy_vm $(val_sum kvm_destroy_vm) $(delta hist kvm_destroy_vm)"
}
# val_sum METRIC: the sum the load added (raw's hist field 4)
val_sum() {
	awk -F '\t' -v m="$1" '$1 == "hist" && $2 == m { s[FILENAME] = $4 }
		END { print s["/tmp/kc.raw1"] - s["/tmp/kc.raw0"] }' /tmp/kc.raw0 /tmp/kc.raw1
}

if ! insmod "$KVMCHURN_KO"; then bail_out "insmod kvmchurn.ko"; fi
echo "# bench clock: $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource), unit $(raw_field unit - 2)"
per_gib anon
if [ -e /sys/kernel/mm/transparent_hugepage/enabled ]; then
	per_gib thp
else
	echo "# backing thp absent: no transparent huge pages in this kernel"
fi
if [ -w /proc/sys/vm/nr_hugepages ]; then
	echo $((BACKING_MIB / 2 + 4)) >/proc/sys/vm/nr_hugepages
	if [ "$(meminfo HugePages_Total)" -ge $((BACKING_MIB / 2)) ]; then
		per_gib hugetlb
	else
		echo "# backing hugetlb absent: $((BACKING_MIB / 2)) huge pages asked, $(meminfo HugePages_Total) reserved"
	fi
	echo 0 >/proc/sys/vm/nr_hugepages
else
	echo "# backing hugetlb absent: no hugetlbfs in this kernel"
fi
per_gib memfd
dd if=/dev/zero of=/tmp/snapshot.mem bs=1048576 count="$BACKING_MIB" 2>/dev/null
per_gib file --mem-file /tmp/snapshot.mem
rm -f /tmp/snapshot.mem
rmmod kvmchurn || not_ok "rmmod kvmchurn"
exit 0

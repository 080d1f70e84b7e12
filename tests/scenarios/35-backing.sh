#!/bin/sh
# shellcheck disable=SC2086 # $LOAD holds several options
# 35-backing: guest memory backed as fleets back it (`kvmchurn load
# --backing`): anonymous memory, THP, 2 MiB hugetlbfs pages, a sealed memfd
# and a snapshot file mapped private. For each, 8 VMs of 16 MiB killed at
# -j 4: every metric counts each VM as a VM of that kind has it, and the
# kernel's own accounting shows that the backing was used and given back.
# A backing this kernel lacks (the debug kernel has neither THP nor
# hugetlbfs) is said so and skipped. Busybox sh; leaves the module unloaded.
# shellcheck source=../lib/guest/lib.sh
. /kvmchurn/lib.sh
N=8
MIB=16
LOAD="-n $N -j 4 --vcpus 2 --irqfds 0 --mem $MIB --end kill"
PAGES=$((N * MIB / 2))	# 2 MiB pages of all N VMs (4 live at most)

vmstat() { awk -v k="$1" '$1 == k { print $2; f = 1 } END { if (!f) print 0 }' /proc/vmstat; }

# backing KIND [OPTIONS...]: one load, each metric's count checked.
backing() {
	kind=$1
	shift
	load_deltas "$kind" $N $LOAD --backing "$kind" "$@"
	bad=""
	for m in $(kvmchurn show --list | awk -F '\t' '{ print $1 ":" $2 }'); do
		g=${m#*:} m=${m%:*}
		case $m in
		vcpu_create) c=2 ;;
		irqbypass_register | irqbypass_unregister | first_run_setup | reclaim_direct | reclaim_memcg) c=0 ;;
		*) c=$(per_vm "$m") ;;
		esac
		# its vCPUs never run: no start-up
		[ "$g" != startup ] || c=0
		[ "$(delta hist "$m")" = $((c * N)) ] || bad="$bad $m=$(delta hist "$m"),want$((c * N))"
	done
	is "$kind: every metric, $N VMs" "${bad:-exact}" exact
	for c in exit reap sigkill; do is "$kind: counter $c" "$(delta counter "$c")" $N; done
	no_misses "$kind: kretprobe misses"
	is "$kind: pairing drops" "$(raw_field pairs - 4)" 0
}

kernel_has
if insmod "$KVMCHURN_KO"; then ok "insmod kvmchurn.ko"; else bail_out "insmod kvmchurn.ko"; fi

backing anon

# THP: each VM's memory is 2 MiB aligned, so that its first write to each
# 2 MiB is a huge page fault, allocated or fallen back to small pages
if [ -e /sys/kernel/mm/transparent_hugepage/enabled ]; then
	echo "# THP: $(cat /sys/kernel/mm/transparent_hugepage/enabled)"
	a0=$(vmstat thp_fault_alloc) f0=$(vmstat thp_fault_fallback)
	backing thp
	a=$(($(vmstat thp_fault_alloc) - a0)) f=$(($(vmstat thp_fault_fallback) - f0))
	echo "# thp: $a huge pages allocated, $f faults fell back to small pages"
	# with THP [always], the VMs' other anonymous memory (thread stacks) may
	# take huge pages too; with [madvise] only the guest memory asks
	if grep -q '\[always\]' /sys/kernel/mm/transparent_hugepage/enabled; then
		check "thp: a huge page fault for each 2 MiB of each VM, at least: $((a + f)) >= $PAGES" [ $((a + f)) -ge $PAGES ]
	else
		is "thp: a huge page fault for each 2 MiB of each VM" $((a + f)) $PAGES
	fi
	check "thp: huge pages were allocated: $a" [ "$a" -gt 0 ]
else
	echo "# no transparent huge pages in this kernel: --backing thp skipped"
fi

# hugetlb: 2 MiB pages reserved for the 4 live VMs, all given back after
if [ -w /proc/sys/vm/nr_hugepages ]; then
	want=$((4 * MIB / 2 + 4))
	echo $want >/proc/sys/vm/nr_hugepages
	got=$(meminfo HugePages_Total)
	if [ "$got" -ge $((4 * MIB / 2)) ]; then
		backing hugetlb
		is "hugetlb: every huge page free again" "$(meminfo HugePages_Free)" "$got"
	else
		not_ok "hugetlb: $want huge pages asked, $got reserved"
	fi
	echo 0 >/proc/sys/vm/nr_hugepages
else
	echo "# no hugetlbfs in this kernel: --backing hugetlb skipped"
fi

# memfd: shared memory while the VMs live (Shmem), given back with them
s0=$(meminfo Shmem)
backing memfd
left=$(($(meminfo Shmem) - s0))
check "memfd: Shmem given back (within a VM's $MIB MiB): ${left} KiB" [ $left -lt $((MIB * 1024)) ]

# file: a snapshot's memory file, each page read from it, none written back
dd if=/dev/zero of=/tmp/kc.snapshot bs=1M count=$MIB 2>/dev/null
sum0=$(md5sum </tmp/kc.snapshot)
backing file --mem-file /tmp/kc.snapshot
is "file: the snapshot is unchanged" "$(md5sum </tmp/kc.snapshot)" "$sum0"
rm -f /tmp/kc.snapshot

check "rmmod kvmchurn" rmmod kvmchurn
exit 0

#!/bin/sh
# 10-module-churn: the module's exact counts under a real KVM churn load.
# Runs inside the guest (busybox sh). Loads kvmchurn.ko, runs 40 VMs whose vCPUs
# run once, then are SIGKILLed (boot.sh's --vms, in the guest's KVMCHURN_METRICS_VMS:
# make check's 20 on the kernels of core depth, the debug tier's 4, where a VM is ten
# times as slow), checks that exit_mmap, exit_to_reap and the start-up
# each saw exactly that many, that
# another comm adds nothing, reads every debugfs file, and unloads; then the same
# with fprobes=1 (exit_mmap and exit_files by fprobe where the kernel has it).
# shellcheck source=../lib/guest/lib.sh
. /kvmchurn/lib.sh
VMS=${KVMCHURN_METRICS_VMS:-40}

dmesg -c >/dev/null
if ! insmod "$KVMCHURN_KO"; then
	not_ok "insmod kvmchurn.ko"
	exit 0
fi
ok "insmod kvmchurn.ko"

for f in all probes raw memory; do
	check "debugfs $f is read-only, 0444 (readable under lockdown)" [ "$(stat -c %a "$D/$f")" = 444 ]
done
check "raw starts with its version" [ "$(head -n 1 "$D/raw")" = "kvmchurn-raw 1" ]
for p in exit_mmap sched_process_exit sched_process_free; do
	check "probe on $p attached" \
		[ "$(awk -F '\t' -v p="$p" '$1 == "probe" && $4 == p { print $5 }' "$D/raw")" = attached ]
done

# kind: kretprobes by default; with fprobes=1 (below), exit_mmap and exit_files by
# fprobe where the kernel has it (x86_64 6.12 and 7.x, arm64 7.x); the release, which
# only marks the reap, a plain kprobe always
kind() { awk -F '\t' -v p="$1" '$1 == "probe" && $4 == p { print $3 }' "$D/raw"; }
for p in exit_mmap exit_files kvm_vm_release; do
	is "probe on $p: its kind" "$(kind $p)" kretprobe
done
release=$(awk -F '\t' '$1 == "probe" && $2 == "exit_to_reaped" && $5 == "attached" { print $4 }' "$D/raw")
is "probe on the release ($release): its kind" "$(kind "$release")" kprobe

if kvmchurn load -n "$VMS" -j 2 --run --end kill >/tmp/load.out 2>&1; then
	ok "kvmchurn load -n $VMS -j 2 --run --end kill"
else
	not_ok "kvmchurn load -n $VMS -j 2 --run --end kill: exit $?"
fi
sed 's/^/# /' /tmp/load.out

# sched_process_free runs after an RCU grace period
check "reap counter reaches $VMS" wait_for "$KC_WAIT" counter_is reap "$VMS"
check "exit counter is $VMS" [ "$(raw_field counter exit 3)" = "$VMS" ]
check "exit_mmap count is $VMS" [ "$(raw_field hist exit_mmap 3)" = "$VMS" ]
check "exit_to_reap count is $VMS" [ "$(raw_field hist exit_to_reap 3)" = "$VMS" ]
check "exit_files count is $VMS" [ "$(raw_field hist exit_files 3)" = "$VMS" ]
check "startup count is $VMS: each VM ran" [ "$(raw_field hist startup 3)" = "$VMS" ]
check "no kretprobe missed" [ -z "$(awk -F '\t' '$1 == "probe" && $7 != 0' "$D/raw")" ]
check "no pairing drops" [ "$(awk -F '\t' '$1 == "pairs" { print $4 + $5 }' "$D/raw")" = 0 ]
# The bpftrace text: its bucket counts add up to the same $VMS.
check "all: @us_exit_mmap buckets sum to $VMS" [ "$(awk '
	/^@/ { cur = $1 }
	/^\[/ && cur == "@us_exit_mmap:" { split($0, a, "|"); n = split(a[1], f, " "); sum += f[n] }
	END { print sum + 0 }' "$D/all")" = "$VMS" ]
check "all: @n_exit: $VMS" grep -qx "@n_exit: $VMS" "$D/all"
# Which VM was slow: every VM of the load in vms, the slowest five shown.
check "vms: the $VMS VMs finished" [ "$(awk -F '\t' '$1 == "vm" && $2 == "last"' "$D/vms" | wc -l)" = "$VMS" ]
echo "# ---- kvmchurn vms --slowest -n 5"
kvmchurn vms --slowest -n 5 >/tmp/vms.out 2>&1 || not_ok "kvmchurn vms --slowest -n 5: exit $?"
sed 's/^/# /' /tmp/vms.out
check "kvmchurn vms --slowest -n 5: 5 VMs" [ "$(awk '$1 ~ /^[0-9]+$/' /tmp/vms.out | wc -l)" = 5 ]
# The same VMs drawn (a row each) and as Trace Event JSON (a process each), from the
# module's own file: the host's tests check the pictures' numbers on the captures.
kvmchurn plot -o /tmp/vms.svg 2>/tmp/plot.err || not_ok "kvmchurn plot: exit $? ($(cat /tmp/plot.err))"
check "kvmchurn plot: a row for each of the $VMS VMs" [ "$(grep -c '^<g class="vm" ' /tmp/vms.svg)" = "$VMS" ]
kvmchurn vms --trace-event >/tmp/vms.json 2>/tmp/plot.err || not_ok "kvmchurn vms --trace-event: exit $?"
check "kvmchurn vms --trace-event: a process named for each of the $VMS VMs" \
	[ "$(grep -o '"name":"process_name"' /tmp/vms.json | wc -l)" = "$VMS" ]

check "a tracefs instance counts the frees of processes named other" fence_arm other
kvmchurn load -n 10 -j 2 --end kill --comm other >/tmp/load2.out 2>&1 ||
	not_ok "kvmchurn load --comm other: exit $?"
check "the 10 VMs named other were freed" fence_wait 10
check "--comm other adds nothing to exit_mmap" [ "$(raw_field hist exit_mmap 3)" = "$VMS" ]
check "--comm other adds nothing to exit_to_reap" [ "$(raw_field hist exit_to_reap 3)" = "$VMS" ]
check "--comm other adds nothing to the exit counter" [ "$(raw_field counter exit 3)" = "$VMS" ]

# Every readable file, into the log and back to the host.
for f in all summary counters probes checks raw memory vms filter enable $(cd "$D" && echo hist/*); do
	[ -f "$D/$f" ] || continue
	echo "# ---- $D/$f"
	sed 's/^/# /' "$D/$f"
	kvmchurn-put "module-churn/$f" "$D/$f" || not_ok "hand back $f"
done

check "rmmod kvmchurn" rmmod kvmchurn
check "debugfs folder removed" [ ! -e "$D" ]

# fprobes=1: fprobes where the kernel has them, and the same exact counts.
N=10
fkind=kretprobe
kc_fprobe && fkind=fprobe
if insmod "$KVMCHURN_KO" fprobes=1; then
	for p in exit_mmap exit_files; do
		is "fprobes=1: probe on $p: its kind" "$(kind $p)" $fkind
	done
	is "fprobes=1: probe on kvm_vm_release: its kind" "$(kind kvm_vm_release)" kretprobe
	is "fprobes=1: probe on the release ($release): its kind" "$(kind "$release")" kprobe
	kvmchurn load -n $N -j 2 --end kill >/tmp/load3.out 2>&1 ||
		not_ok "fprobes=1: kvmchurn load -n $N: exit $?"
	check "fprobes=1: reap counter reaches $N" wait_for "$KC_WAIT" counter_is reap $N
	for m in exit_mmap exit_files exit_to_reap; do
		check "fprobes=1: $m count is $N" [ "$(raw_field hist $m 3)" = $N ]
	done
	check "fprobes=1: nothing missed" [ -z "$(awk -F '\t' '$1 == "probe" && $7 != 0' "$D/raw")" ]
	check "rmmod kvmchurn (fprobes=1)" rmmod kvmchurn
else
	not_ok "insmod kvmchurn.ko fprobes=1"
fi
bad=$(dmesg | grep -E 'WARNING|BUG|Oops|lockdep|kretprobe|circular locking|KASAN|UBSAN')
check "dmesg has no warning, oops, lockdep or kretprobe report" [ -z "$bad" ]
[ -n "$bad" ] && echo "$bad" | sed 's/^/# /'
exit 0

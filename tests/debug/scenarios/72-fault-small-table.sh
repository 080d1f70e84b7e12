#!/bin/sh
# 72-fault-small-table (debug kernel): a pairing table of 8 entries, and VM
# records for 4 live VMs, under 50 VMs at -j 8. Both overflow: the drops and
# evictions are counted (checks flags the drops), and nothing else breaks:
# what needs no pairing is still exact, no count exceeds what happened, every
# VM is either finished or evicted, and both tables are empty again at rest.
# shellcheck source=../../lib/guest/lib.sh
. /kvmchurn/lib.sh
N=50
IRQFDS=8
LOAD="-n $N -j 8 --vcpus 2 --irqfds $IRQFDS --mem 16 --end kill"

P="pairs=8 vms_live=4 vms_last=16 vms_slowest=4"
# shellcheck disable=SC2086 # the parameters
if ! insmod "$KVMCHURN_KO" $P; then bail_out "insmod kvmchurn.ko $P"; fi
ok "insmod kvmchurn.ko $P"
is "table capacity" "$(raw_field pairs - 2)" 8
# shellcheck disable=SC2086 # LOAD is the load's arguments, split on purpose
if kvmchurn load $LOAD >/tmp/kc.load 2>&1; then ok "kvmchurn load $LOAD"; else not_ok "kvmchurn load $LOAD: exit $?"; fi
sed 's/^/# /' /tmp/kc.load
check "the load lost no VM" grep -q "$N completed, 0 failed" /tmp/kc.load
quiet
dropped=$(raw_field pairs - 4)
check "drops counted: $dropped" [ "$dropped" -gt 0 ]
check "checks flag the drops" grep -q '^WARN.*drop' "$D/checks"
grep -v -e '^OK ' -e '^INFO ' "$D/checks" | sed 's/^/# checks: /'
for m in kvm_create_vm exit_mmap kvm_vm_release kvm_mmu_teardown; do
	is "$m, which needs no pairing" "$(raw_field hist $m 3)" $N
done
is "exit counter, which needs no pairing" "$(raw_field counter exit 3)" $N
is "vcpu_create, which needs no pairing" "$(raw_field hist vcpu_create 3)" $((2 * N))
is "mmu_notifier_unregister, which needs no pairing" "$(raw_field hist mmu_notifier_unregister 3)" $N
vstat() { awk -F '\t' -v c="$1" '$1 == "stats" { print $c }' "$D/vms"; }
evicted=$(vstat 4)
check "vms: 4 live records under -j 8 evicted some: $evicted" [ "$evicted" -gt 0 ]
is "vms: every VM finished or evicted" $(($(vstat 2) + evicted)) $N
is "vms: no VM live at rest" "$(vstat 5)" 0
fin=$(vstat 2)
is "vms: the last min(16, $fin finished)" "$(grep -c '^vm	last	' "$D/vms")" $((fin < 16 ? fin : 16))
# the slowest by exit_to_reap are of the VMs that have one (a dropped exit
# pairing leaves a VM without it); with all finished VMs in the last 16 that
# number is known
reaped=$(awk -F '\t' '$1 == "fields" { for (i = 1; i <= NF; i++) if ($i == "exit_to_reap") c = i }
	$1 == "vm" && $2 == "last" && $c != "-" { n++ } END { print n + 0 }' "$D/vms")
slowest=$(grep -c '^vm	slowest	' "$D/vms")
if [ "$fin" -le 16 ]; then
	is "vms: the slowest min(4, the $reaped of $fin finished with an exit_to_reap)" "$slowest" $((reaped < 4 ? reaped : 4))
else
	check "vms: the slowest at least min(4, $reaped of the last 16 with an exit_to_reap), at most 4: $slowest" \
		[ "$slowest" -ge $((reaped < 4 ? reaped : 4)) -a "$slowest" -le 4 ]
fi
for m in signal_to_exit exit_to_reap exit_files; do
	v=$(raw_field hist $m 3)
	check "$m at most $N: $v" [ "$v" -le $N ]
done
for c in reap sigkill; do
	v=$(raw_field counter $c 3)
	check "$c at most $N: $v" [ "$v" -le $N ]
done
v=$(raw_field hist irqbypass_unregister 3)
check "irqbypass_unregister at most $((N * IRQFDS)): $v" [ "$v" -le $((N * IRQFDS)) ]
is "entries in use at rest" "$(raw_field pairs - 3)" 0
slots_whole "every histogram's slots add up to its count"
sed 's/^/# /' "$D/summary"
check "rmmod kvmchurn" rmmod kvmchurn
exit 0

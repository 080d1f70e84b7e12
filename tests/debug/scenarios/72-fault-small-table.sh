#!/bin/sh
# 72-fault-small-table (debug kernel): a pairing table of 8 entries under 100
# VMs at -j 8. It overflows: the drops are counted and flagged by checks, and
# nothing else breaks: what needs no pairing is still exact, no count exceeds
# what happened, and the table is empty again at rest.
# shellcheck source=../../vm/guest/tap.sh
. /kvmchurn/tap.sh
N=100
IRQFDS=8
LOAD="-n $N -j 8 --vcpus 2 --irqfds $IRQFDS --mem 16 --end kill"

if ! insmod "$KVMCHURN_KO" pairs=8; then not_ok "insmod kvmchurn.ko pairs=8"; exit 0; fi
ok "insmod kvmchurn.ko pairs=8"
is "table capacity" "$(rec pairs 2)" 8
if kvmchurn load $LOAD >/tmp/kc.load 2>&1; then ok "kvmchurn load $LOAD"; else not_ok "kvmchurn load $LOAD: exit $?"; fi
sed 's/^/# /' /tmp/kc.load
check "the load lost no VM" grep -q "$N completed, 0 failed" /tmp/kc.load
quiet
dropped=$(rec pairs 4)
check "drops counted: $dropped" [ "$dropped" -gt 0 ]
check "checks flag the drops" grep -q '^WARN.*drop' "$D/checks"
grep -v -e '^OK ' -e '^INFO ' "$D/checks" | sed 's/^/# checks: /'
for m in kvm_create_vm exit_mmap kvm_vm_release kvm_mmu_teardown; do
	is "$m, which needs no pairing" "$(val hist $m)" $N
done
is "exit counter, which needs no pairing" "$(val counter exit)" $N
for m in signal_to_exit exit_to_reap exit_files; do
	v=$(val hist $m)
	check "$m at most $N: $v" [ "$v" -le $N ]
done
for c in reap sigkill; do
	v=$(val counter $c)
	check "$c at most $N: $v" [ "$v" -le $N ]
done
v=$(val hist irqbypass_unregister)
check "irqbypass_unregister at most $((N * IRQFDS)): $v" [ "$v" -le $((N * IRQFDS)) ]
is "entries in use at rest" "$(rec pairs 3)" 0
slots_whole "every histogram's slots add up to its count"
sed 's/^/# /' "$D/summary"
check "rmmod kvmchurn" rmmod kvmchurn
exit 0

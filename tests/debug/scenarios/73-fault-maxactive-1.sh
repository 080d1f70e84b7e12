#!/bin/sh
# 73-fault-maxactive-1 (debug kernel): one kretprobe instance a probe under
# 100 VMs at -j 8. Calls that find the instance busy are missed: each is
# counted (hits + missed equals the kernel's own count of calls, from tracefs
# kprobe events), shown in probes and in summary's nmissed column, and flagged
# by checks; nothing else breaks (a missed kvm_vm_release, or destroy uevent,
# leaves its VM's mark in the pairing table until it ages out, and no other
# entry is left).
# shellcheck source=../../lib/guest/lib.sh
. /kvmchurn/lib.sh
N=100
LOAD="-n $N -j 8 --vcpus 2 --irqfds 8 --mem 16 --end kill"

# probe_field SYMBOL COLUMN: hits (6) or missed (7) of a probe, from raw.
probe_field() {
	awk -F '\t' -v s="$1" -v c="$2" '$1 == "probe" && $4 == s { print $c; f = 1 } END { if (!f) print "missing" }' "$D/raw"
}
# metric_missed METRIC: missed calls of METRIC's probes, from raw.
metric_missed() {
	awk -F '\t' -v m="$1" '$1 == "probe" && $2 == m { s += $7 } END { print s + 0 }' "$D/raw"
}
# leftover_marks: what missed calls may leave in the pairing table, a mark
# each: kvm_vm_release's (its VM's irqfd mark) and the destroy uevent's (its
# creator's pid)
leftover_marks() { echo $(($(probe_field kvm_vm_release 7) + $(metric_missed uevent_destroy))); }

tracefs || not_ok "tracefs is available"
# only the load's processes call these: their counts are free of other noise
kp kct_ioctl kvm_dev_ioctl || not_ok "tracefs event on kvm_dev_ioctl"
kp kct_release kvm_vm_release || not_ok "tracefs event on kvm_vm_release"
echo >"$TR/trace"
if ! insmod "$KVMCHURN_KO" maxactive=1; then not_ok "insmod kvmchurn.ko maxactive=1"; kp_clear; exit 0; fi
ok "insmod kvmchurn.ko maxactive=1"
# shellcheck disable=SC2086 # LOAD is the load's arguments, split on purpose
if kvmchurn load $LOAD >/tmp/kc.load 2>&1; then ok "kvmchurn load $LOAD"; else not_ok "kvmchurn load $LOAD: exit $?"; fi
sed 's/^/# /' /tmp/kc.load
check "the load lost no VM" grep -q "$N completed, 0 failed" /tmp/kc.load
# at rest: the VMs gone, and in the pairing table only the marks that a
# missed call leaves (below), which stay until they age out (10 minutes)
left_at_most() { [ "$(vms_alive)" = 0 ] && [ "$(raw_field pairs - 3)" -le "$(leftover_marks)" ]; }
wait_for "$KC_WAIT" left_at_most ||
	echo "# not at rest after $KC_WAIT s: $(vms_alive) VM processes, $(raw_field pairs - 3) pairing entries in use"
sed 's/^/# /' "$D/probes"
for f in kvm_dev_ioctl:kct_ioctl kvm_vm_release:kct_release; do
	s=${f%%:*}
	h=$(probe_field "$s" 6)
	m=$(probe_field "$s" 7)
	is "$s: hits $h + missed $m = the kernel's calls" $((h + m)) "$(tcount "${f#*:}")"
done
total=$(awk -F '\t' '$1 == "probe" { s += $7 } END { print s + 0 }' "$D/raw")
check "misses counted: $total" [ "$total" -gt 0 ]
# summary: nmissed (column 8) of a metric is the sum over its probes (0 for
# a part that has none of its own)
want=$(awk -F '\t' '$1 == "hist" { m[$2] += 0 } $1 == "probe" { m[$2] += $7 } END { for (k in m) print k, m[k] }' "$D/raw" | sort)
got=$(awk 'NR > 1 { print $1, $8 }' "$D/summary" | sort)
is "summary's nmissed column is the probes' missed" "$(echo "$got" | tr '\n' ' ')" "$(echo "$want" | tr '\n' ' ')"
check "checks flag the misses" grep -q '^WARN nmissed' "$D/checks"
v=$(raw_field hist kvm_create_vm 3)
check "kvm_create_vm at most $N: $v" [ "$v" -le $N ]
slots_whole "every histogram's slots add up to its count"
# a missed kvm_vm_release cannot let go of its VM's mark: it stays until it
# ages out (KC_PAIR_MAX_AGE); nothing else is left behind
used=$(raw_field pairs - 3)
check "entries in use at rest ($used) at most the missed kvm_vm_release and destroy uevent calls ($(leftover_marks))" \
	[ "$used" -le "$(leftover_marks)" ]
sed 's/^/# /' "$D/summary"
check "rmmod kvmchurn" rmmod kvmchurn
kp_clear
exit 0

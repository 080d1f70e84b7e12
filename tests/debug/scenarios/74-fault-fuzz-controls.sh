#!/bin/sh
# shellcheck disable=SC2086 # $LOAD holds several options
# 74-fault-fuzz-controls (debug kernel): 4 writers send random writes that the
# module must refuse (guest/ctlfuzz.c: 0 to 8 KiB of random bytes, NUL bytes,
# tails of a buffer, runs of one-byte writes) to filter, enable and reset,
# FUZZ writes each, while 4 readers read every file and a load of N VMs runs.
# Every write is refused with EINVAL and changes nothing (ctlfuzz reads filter
# and enable after each); the load's counts stay exact; the kernel's detectors
# stay silent (the host reads the log).
# shellcheck source=../../lib/guest/lib.sh
. /kvmchurn/lib.sh
N=40
FUZZ=1500
LOAD="-n $N -j 4 --vcpus 2 --irqfds 8 --mem 16 --end kill"
rm -f /tmp/kc.stop /tmp/kc.rerr

kernel_has
check "insmod kvmchurn.ko" insmod "$KVMCHURN_KO"
echo "# on $(grep -c '^processor' /proc/cpuinfo) CPUs"
cp "$D/raw" /tmp/kc.raw0
kvmchurn load $LOAD >/tmp/kc.bg 2>&1 &
bg=$!
readers=''
for _ in 1 2 3 4; do
	(while [ ! -e /tmp/kc.stop ]; do read_all; done) &
	readers="$readers $!"
done
writers=''
for w in 1 2 3 4; do
	ctlfuzz "$D" $((w * 7919)) $FUZZ >/tmp/kc.fuzz.$w 2>&1 &
	writers="$writers $!"
done
w=1
for p in $writers; do
	if wait "$p"; then ok "writer $w: every random write refused, nothing changed"; else not_ok "writer $w: exit $?"; fi
	sed 's/^/# /' /tmp/kc.fuzz.$w | head -n 8
	w=$((w + 1))
done
if wait $bg; then ok "kvmchurn load $LOAD beside them"; else not_ok "the load: exit $?"; fi
sed 's/^/# /' /tmp/kc.bg
check "the load lost no VM" grep -q "$N completed, 0 failed" /tmp/kc.bg
touch /tmp/kc.stop
wait $readers
check "no read failed" [ ! -s /tmp/kc.rerr ]
[ ! -s /tmp/kc.rerr ] || head -n 5 /tmp/kc.rerr | sed 's/^/# /'
is "filter" "$(cat "$D/filter")" firecracker
is "enable" "$(cat "$D/enable")" 1

quiet
cp "$D/raw" /tmp/kc.raw1
deltas /tmp/kc.raw0 /tmp/kc.raw1 >"$KC_DELTA"
for m in kvm_create_vm exit_mmap exit_to_reap kvm_vm_release kvm_destroy_vm kvm_destroy_vcpus signal_to_exit; do
	is "the load's $m" "$(delta hist $m)" $((N * $(per_vm $m)))
done
for c in exit reap sigkill; do is "the load's counter $c" "$(delta counter $c)" $N; done
is "the load's irqbypass_unregister" "$(delta hist irqbypass_unregister)" $((8 * N))
no_misses "kretprobe misses"
is "pairing drops" "$(raw_field pairs - 4)" 0
check "rmmod kvmchurn" rmmod kvmchurn
exit 0

#!/bin/sh
# 70-fault-insmod-loop (debug kernel): kvmchurn.ko is loaded and unloaded 6
# times (at each of the five times it stays loaded, the first twice; by kretprobes
# and with fprobes=1 in turn; a round is ~25 s under KASAN and lockdep) while a
# -j 4 load creates and kills VMs without pause; while loaded, every file is read.
# Every insmod and rmmod succeeds, the load loses no VM, and the kernel's detectors
# stay silent (the host reads the log).
# shellcheck source=../../lib/guest/lib.sh
. /kvmchurn/lib.sh
ROUNDS=6

kvmchurn load -t 3600 -j 4 --vcpus 2 --irqfds 8 --mem 16 >/tmp/kc.bg 2>&1 &
bg=$!
wait_for "$KC_WAIT" vms_at_least 2
echo "# load running: $(vms_alive) VM processes alive"

r=1
while [ $r -le $ROUNDS ]; do
	why='' kind=kretprobes opt=''
	# the even rounds with fprobes=1: exit_mmap's and exit_files' fprobes attached and
	# detached under load too
	[ $((r % 2)) = 1 ] || kind=fprobes opt=fprobes=1
	if ! insmod "$KVMCHURN_KO" $opt 2>/tmp/kc.err; then
		why="insmod: $(cat /tmp/kc.err)"
	else
		# 0.1 to 0.5 s loaded, so that unloads meet probes in every phase
		sleep "0.$((r % 5 + 1))"
		for f in "$D"/all "$D"/summary "$D"/counters "$D"/probes "$D"/checks \
			"$D"/raw "$D"/vms "$D"/memory "$D"/filter "$D"/enable "$D"/hist/*; do
			cat "$f" >/dev/null || why="read $f"
		done
		fp=$(awk 'NR > 1 && $2 == "fprobe" && $4 == "attached" { n++ } END { print n + 0 }' "$D/probes")
		if [ -n "$opt" ] && [ "$fp" = 0 ]; then why="${why:+$why; }no fprobe attached"; fi
		if [ -z "$opt" ] && [ "$fp" != 0 ]; then why="${why:+$why; }$fp fprobes attached"; fi
		rmmod kvmchurn 2>/tmp/kc.err || why="${why:+$why; }rmmod: $(cat /tmp/kc.err)"
	fi
	if [ -z "$why" ]; then
		ok "round $r: insmod (by $kind), read every file, rmmod under load"
	else
		not_ok "round $r ($kind): $why"
	fi
	r=$((r + 1))
done

kill -INT $bg
wait $bg
sed 's/^/# /' /tmp/kc.bg
check "the load lost no VM (0 failed)" grep -q ' 0 failed' /tmp/kc.bg
completed=$(sed -n 's/.* \([0-9]*\) completed.*/\1/p' /tmp/kc.bg)
check "the load kept going: $completed VMs completed" [ "${completed:-0}" -ge $ROUNDS ]
check "kvmchurn is not loaded" sh -c '! grep -q "^kvmchurn " /proc/modules'
no_vms
is "no VM process left" "$(vms_alive)" 0
exit 0

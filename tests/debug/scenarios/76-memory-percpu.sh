#!/bin/sh
# 76-memory-percpu (debug kernel, CONFIG_PERCPU_STATS): the memory file's
# percpu_per_cpu against the per-CPU allocator's own account. Loading the
# module takes that many bytes of every chunk's units (the free_bytes of
# /sys/kernel/debug/percpu_stats, summed, while the chunks stay the same), up to
# the alignment of each allocation (nr_cur_alloc's rise), and unloading gives
# them back.
# The allocator is the whole kernel's: a module unloaded just before (the
# previous scenario's) frees after a grace period, and any other part of a busy
# kernel allocates too. So each account is read once it stands still, and a try
# counts only when unloading brought every number back to where it was (a
# clean try): the first clean try that agrees with the module passes; three
# clean tries that disagree fail, as do eight tries of which none was clean (the
# module kept something). Busybox sh; leaves the module unloaded.
# shellcheck source=../../lib/guest/lib.sh
. /kvmchurn/lib.sh
S=/sys/kernel/debug/percpu_stats

if [ ! -r $S ]; then bail_out "no $S: CONFIG_PERCPU_STATS is off"; fi
# stats: "chunks allocations free-bytes" of the allocator
stats() {
	awk '$1 == "nr_chunks" && $2 == ":" { c = $3 } $1 == "nr_cur_alloc" && $2 == ":" { a = $3 }
		$1 == "free_bytes" { f += $3 } END { print c + 0, a + 0, f + 0 }' "$S"
}
between() { [ "$1" -ge "$2" ] && [ "$1" -le "$3" ]; }
try=0 clean=0 disagree=0 back=0 verdict=''
while [ -z "$verdict" ] && [ $try -lt 8 ]; do
	try=$((try + 1))
	# shellcheck disable=SC2046 # three numbers
	set -- $(still 60 stats)
	c0=$1 a0=$2 f0=$3
	if ! insmod "$KVMCHURN_KO"; then bail_out "insmod kvmchurn.ko"; fi
	# shellcheck disable=SC2046
	set -- $(still 60 stats)
	c1=$1 allocs=$(($2 - a0)) taken=$((f0 - $3))
	claim=$(awk '$1 == "percpu_per_cpu" { print $2 }' $D/memory)
	rmmod kvmchurn
	after=$(still 60 stats)
	# shellcheck disable=SC2086 # three numbers
	set -- $after
	[ "$2" != "$a0" ] || back=$((back + 1))
	said="try $try: loading took $taken bytes of each unit in $allocs allocations; the module says $claim"
	if [ "$after" != "$c0 $a0 $f0" ] || [ "$c1" != "$c0" ]; then
		diag "$said; not clean: chunks, allocations, free bytes $c0 $a0 $f0 before, $c1 loaded, $after after"
		continue
	fi
	clean=$((clean + 1))
	# each allocation is aligned to 8 bytes, in units of 4: at most 4 bytes of padding
	if between "$taken" "$claim" $((claim + 4 * allocs)); then
		verdict=ok
		ok "$said"
	else
		diag "$said (clean, disagrees)"
		disagree=$((disagree + 1))
		[ $disagree -lt 3 ] || { verdict=not; not_ok "$said: 3 clean tries disagree"; }
	fi
done
[ -n "$verdict" ] || not_ok "no clean try agreed with the module in $try ($clean clean, $disagree of them disagreeing)"
check "unloading gives back every allocation (in $back of $try tries)" [ $back -gt 0 ]
check "and every byte (in $clean of $try tries)" [ $clean -gt 0 ]
exit 0

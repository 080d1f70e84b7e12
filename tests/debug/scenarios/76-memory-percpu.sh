#!/bin/sh
# 76-memory-percpu (debug kernel, CONFIG_PERCPU_STATS): the memory file's
# percpu_per_cpu against the per-CPU allocator's own account. Loading the
# module takes that many bytes of every chunk's units (the free_bytes of
# /sys/kernel/debug/percpu_stats, summed, while the chunks stay the same), up to
# the alignment of each allocation (nr_cur_alloc's rise), and unloading gives
# them back. Busybox sh; leaves the module unloaded.
# shellcheck source=../../vm/guest/tap.sh
. /kvmchurn/tap.sh
S=/sys/kernel/debug/percpu_stats

if [ ! -r $S ]; then not_ok "no $S: CONFIG_PERCPU_STATS is off"; exit 0; fi
# stat NAME: a global number; free: the free bytes of all chunks
stat() { awk -v k="$1" '$1 == k && $2 == ":" { print $3; exit }' $S; }
free() { awk '$1 == "free_bytes" { n += $3 } END { print n + 0 }' $S; }
between() { [ "$1" -ge "$2" ] && [ "$1" -le "$3" ]; }
chunks_before=$(stat nr_chunks) allocs_before=$(stat nr_cur_alloc) free_before=$(free)
if ! insmod "$KVMCHURN_KO"; then not_ok "insmod kvmchurn.ko"; exit 0; fi
chunks=$(stat nr_chunks) allocs=$(($(stat nr_cur_alloc) - allocs_before)) taken=$((free_before - $(free)))
claim=$(awk '$1 == "percpu_per_cpu" { print $2 }' $D/memory)
rmmod kvmchurn
if [ "$chunks" != "$chunks_before" ]; then
	ok "# SKIP the allocator made a chunk meanwhile ($chunks_before, then $chunks): free bytes not comparable"
else
	# each allocation is aligned to 8 bytes, in units of 4: at most 4 bytes of padding
	check "loading took $taken bytes of each unit in $allocs allocations; the module says $claim" \
		between "$taken" "$claim" $((claim + 4 * allocs))
fi
is "unloading gives back every allocation" "$(stat nr_cur_alloc)" "$allocs_before"
is "and every byte" "$(free)" "$free_before"
exit 0

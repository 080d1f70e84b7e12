#!/bin/sh
# 50-reclaim: reclaim stalls of a traced process, counted exactly.
# The guest has no swap and no disk, so what reclaim frees must be made: a RAM
# disk (brd, never written, so it holds no memory of its own) whose reads leave
# clean page cache. The traced process is the reclaim helper (guest/reclaim.c)
# under the name firecracker; every allocation that reclaims is its own read:
#  - memcg: in a cgroup v2, it reads 32 MiB, sets memory.high (then memory.max)
#    1 MiB above memory.current and reads on until memory.events counts it:
#    its own page cache is what the cgroup reclaims;
#  - direct: in the root cgroup, it turns three quarters of the free memory
#    into page cache, raises vm.min_free_kbytes until the largest zone's min
#    mark is a quarter above its free pages, reads on until /proc/vmstat's
#    allocstall moves and puts the old value back (reclaim.c says why that
#    never runs reclaim short).
# Each step ends when the helper exits: its stalls are over by then. The
# module's counts must equal the vmscan tracepoints' own, filtered on the same
# comm in tracefs, and no OOM killer may run. Busybox sh; leaves the module
# and brd unloaded.
# shellcheck source=../lib/guest/lib.sh
. /kvmchurn/lib.sh
CGROOT=/sys/fs/cgroup
CG=$CGROOT/kvmchurn-reclaim
FC=/tmp/kcbin/firecracker
RD=/dev/ram0

events() { # events on|off: the vmscan reclaim-begin events, for firecracker only
	for e in mm_vmscan_memcg_reclaim_begin mm_vmscan_direct_reclaim_begin; do
		if [ "$1" = on ]; then
			echo 'comm == "firecracker"' >"$TR/events/vmscan/$e/filter" || return 1
			echo 1 >"$TR/events/vmscan/$e/enable" || return 1
		else
			echo 0 >"$TR/events/vmscan/$e/enable"
			echo 0 >"$TR/events/vmscan/$e/filter"
		fi
	done
}
cgstat() { awk -v k="$1" '$1 == k { print $2 }' "$CG/memory.$2"; }
# traced NAME ARGS...: run the helper as firecracker between two raw snapshots,
# with an empty trace buffer; one line for its exit status.
traced() {
	name=$1
	shift
	echo >"$TR/trace"
	cp "$D/raw" /tmp/kc.raw0
	"$FC" "$@"
	rc=$?
	cp "$D/raw" /tmp/kc.raw1
	deltas /tmp/kc.raw0 /tmp/kc.raw1 >"$KC_DELTA"
	is "$name: the helper stalled in reclaim (exit status)" "$rc" 0
}

n0=$(dmesg | wc -l)
mkdir -p /tmp/kcbin
cp /kvmchurn/bin/reclaim $FC
# twice the memory: the reads never come back to a page still cached
check "insmod brd, a RAM disk of $((2 * $(meminfo MemTotal))) KiB" \
	insmod /kvmchurn/modules/brd.ko rd_nr=1 rd_size=$((2 * $(meminfo MemTotal))) max_part=1
check "$RD is there" [ -b $RD ]
tracefs || bail_out "tracefs is available"
if insmod "$KVMCHURN_KO"; then ok "insmod kvmchurn.ko"; else bail_out "insmod kvmchurn.ko"; fi
is "probe reclaim_memcg" "$(state reclaim_memcg)" attached
is "probe reclaim_direct" "$(state reclaim_direct)" attached
check "tracefs vmscan events, filtered on comm" events on

# ---- memcg ----------------------------------------------------------------
mounted=
if ! grep -q " $CGROOT cgroup2 " /proc/mounts; then
	mount -t cgroup2 none $CGROOT && mounted=1
fi
echo +memory >$CGROOT/cgroup.subtree_control 2>/dev/null
mkdir -p $CG
check "cgroup v2 with the memory controller" [ -f $CG/memory.max ]
for lim in high max; do
	traced "memory.$lim" memcg $CG $lim $RD
	truth=$(tcount mm_vmscan_memcg_reclaim_begin)
	check "memory.$lim: the firecracker helper reclaimed in its cgroup (tracefs: $truth)" [ "$truth" -gt 0 ]
	is "memory.$lim: reclaim_memcg equals the kernel's count" "$(delta hist reclaim_memcg)" "$truth"
	is "memory.$lim: reclaim_direct" "$(delta hist reclaim_direct)" "$(tcount mm_vmscan_direct_reclaim_begin)"
	is "memory.$lim: cgroup OOM kills" "$(cgstat oom_kill events)" 0
done
echo $$ >$CGROOT/cgroup.procs
rmdir $CG || not_ok "rmdir $CG"
[ -n "$mounted" ] && umount $CGROOT

# ---- direct ---------------------------------------------------------------
old=$(cat /proc/sys/vm/min_free_kbytes)
echo "# MemFree $(meminfo MemFree) kB, Cached $(meminfo Cached) kB, min_free_kbytes $old"
traced direct direct $RD
is "direct: min_free_kbytes put back" "$(cat /proc/sys/vm/min_free_kbytes)" "$old"
echo "$old" >/proc/sys/vm/min_free_kbytes # had the helper died before it could
truth=$(tcount mm_vmscan_direct_reclaim_begin)
check "direct: the firecracker helper reclaimed directly (tracefs: $truth)" [ "$truth" -gt 0 ]
is "direct: reclaim_direct equals the kernel's count" "$(delta hist reclaim_direct)" "$truth"
is "direct: reclaim_memcg" "$(delta hist reclaim_memcg)" "$(tcount mm_vmscan_memcg_reclaim_begin)"
events off

no_misses "kretprobe misses"
is "pairing drops" "$(raw_field pairs - 4)" 0
grep -E '^reclaim' "$D/summary" | sed 's/^/# /'
check "rmmod kvmchurn" rmmod kvmchurn
check "rmmod brd" rmmod brd
bad=$(dmesg | tail -n +$((n0 + 1)) | grep -E 'WARNING|BUG|Oops|lockdep|circular locking|Call Trace|oom-killer|kretprobe')
check "dmesg: no warning, oops, OOM or lockdep report" [ -z "$bad" ]
[ -z "$bad" ] || echo "$bad" | sed 's/^/# /'
exit 0

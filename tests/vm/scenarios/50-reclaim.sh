#!/bin/sh
# 50-reclaim: reclaim stalls of a traced process, counted exactly.
# The guest has 1 GiB, no swap and no disk: anonymous and tmpfs memory cannot
# be reclaimed, so an allocation that needs reclaim and finds nothing ends in
# the OOM killer (whose report would fail the run). What can be reclaimed is
# slab: `ls -lR /sys` leaves ~10-20 MiB of unused dentries and inodes behind.
# The traced process is a shell script named firecracker (a script's comm is
# its file name) that allocates with builtins only, so every allocation is
# its own:
#  - memcg: in a cgroup v2 holding that slab, the script writes tmpfs pages
#    past memory.high (reclaim on the way back to user space), then past a
#    small memory.max (reclaim in the charge), and stops at the first event;
#  - direct: the script raises vm.min_free_kbytes just above the free memory
#    that unmovable allocations may use (64 pages short), so its next fork
#    reclaims directly, and puts the old value back as soon as /proc/vmstat's
#    allocstall moved. (Not more: on arm64, 64 MiB of CMA are free only for
#    movable pages, and counting them would leave unmovable allocations short
#    by more than the slab there is to reclaim.) kswapd, woken first, may
#    free all there is to reclaim before the script stalls, lifting free
#    memory above the mark again: the script goes on writing 64 KiB chunks
#    (512 at most, more than that slab) until it stalls.
# The module's counts must equal the vmscan tracepoints' own, filtered on the
# same comm in tracefs. Busybox sh; leaves the module unloaded.
# shellcheck source=../guest/tap.sh
. /kvmchurn/tap.sh
CGROOT=/sys/fs/cgroup
CG=$CGROOT/kvmchurn-reclaim
FC=/tmp/kcbin/firecracker

hist() { # hist METRIC [RAW]: its count
	awk -F '\t' -v m="$1" '$1 == "hist" && $2 == m { print $3 }' "${2:-$D/raw}"
}
delta() { echo $(($(hist "$1" /tmp/kc.raw1) - $(hist "$1" /tmp/kc.raw0))); }
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
tcount() { grep -c " $1: " "$TR/trace"; }
kb() { awk -v k="$1:" '$1 == k { print $2 }' /proc/meminfo; }
cgstat() { awk -v k="$1" '$1 == k { print $2 }' "$CG/memory.$2"; }

# The traced process. Builtins only: no child does its allocations.
mkdir -p /tmp/kcbin
cat >$FC <<'EOF'
#!/bin/sh
# firecracker memcg-high|memcg-max CGROUP, or firecracker direct OLD_MIN_FREE_KBYTES
chunk=x
i=0
while [ $i -lt 16 ]; do chunk=$chunk$chunk; i=$((i + 1)); done # 64 KiB
event() { # event FILE KEY: sets v to KEY's value in FILE
	v=0
	while read -r k n; do [ "$k" = "$2" ] && v=$n; done <"$1"
}
stall() { # sets s to the sum of /proc/vmstat's allocstall_* (direct reclaims)
	s=0
	while read -r k n; do case $k in allocstall*) s=$((s + n)) ;; esac; done </proc/vmstat
}
case $1 in
memcg-high | memcg-max)
	lim=memory.${1#memcg-}
	echo $$ >"$2/cgroup.procs"
	read -r cur <"$2/memory.current"
	echo $((cur + 1048576)) >"$2/$lim"
	i=0
	while [ $i -lt 64 ]; do
		printf '%s' "$chunk" >>/tmp/kc.fill
		i=$((i + 1))
		event "$2/memory.events" "${1#memcg-}"
		[ "$v" -gt 0 ] && break
	done
	echo max >"$2/$lim"
	echo "# $1: $lim $((cur + 1048576)) reached after $i chunks of 64 KiB, memory.events ${1#memcg-} $v"
	;;
direct)
	# The zone with the most pages; its free pages that unmovable
	# allocations may use (not CMA); all managed pages.
	z= big=0 tot=0 zf=0 f=0 c=0 m=0 zn=
	while read -r a b c2 d; do
		case "$a $b" in
		"Node 0,")
			if [ -n "$z" ]; then
				tot=$((tot + m))
				[ "$m" -gt "$big" ] && big=$m zf=$((f - c)) zn=$z
			fi
			z=$d f=0 c=0 m=0
			;;
		"pages free") f=$c2 ;;
		"managed "*) m=$b ;;
		"nr_free_cma "*) c=$b ;;
		esac
	done </proc/zoneinfo
	tot=$((tot + m))
	[ "$m" -gt "$big" ] && big=$m zf=$((f - c)) zn=$z
	read -r k memtotal unit </proc/meminfo
	pkb=$(((memtotal + tot / 2) / tot)) # the page size in KiB
	new=$(((zf + 64) * tot / big * pkb + pkb))
	stall
	s0=$s
	echo "$new" >/proc/sys/vm/min_free_kbytes
	wm=$(awk -v z="$zn" '$1 == "Node" { in_z = ($4 == z) } in_z && ($1 == "min" || $1 == "low" || $1 == "free" || $2 == "free") { printf "%s ", $0 }' /proc/zoneinfo)
	i=0
	while [ $i -lt 512 ]; do
		# unmovable pages (a fork's page tables and task) and movable
		# ones (tmpfs; CMA pages, if any, are free memory only for these)
		(:)
		printf '%s' "$chunk" >>/tmp/kc.fill
		i=$((i + 1))
		stall
		[ "$s" != "$s0" ] && break
	done
	echo "$2" >/proc/sys/vm/min_free_kbytes
	echo "# direct: zone $zn: $zf usable free of $big pages ($tot managed, $pkb KiB a page); min_free_kbytes $2 -> $new -> $2; $i chunks; allocstall $s0 -> $s; zone then: $wm; min_free_kbytes read back $(cat /proc/sys/vm/min_free_kbytes)"
	;;
esac
EOF
chmod 755 $FC

n0=$(dmesg | wc -l)
tracefs || { not_ok "tracefs is available"; exit 0; }
if insmod "$KVMCHURN_KO"; then ok "insmod kvmchurn.ko"; else not_ok "insmod kvmchurn.ko"; exit 0; fi
is "probe reclaim_memcg" "$(awk -F '\t' '$1 == "probe" && $2 == "reclaim_memcg" { print $5 }' "$D/raw" | sort -u)" attached
is "probe reclaim_direct" "$(awk -F '\t' '$1 == "probe" && $2 == "reclaim_direct" { print $5 }' "$D/raw" | sort -u)" attached
check "tracefs vmscan events, filtered on comm" events on
check "the traced script is named firecracker" sh -c "$FC >/dev/null; exit 0"

# ---- memcg ----------------------------------------------------------------
mounted=
if ! grep -q " $CGROOT cgroup2 " /proc/mounts; then
	mount -t cgroup2 none $CGROOT && mounted=1
fi
echo +memory >$CGROOT/cgroup.subtree_control 2>/dev/null
mkdir -p $CG
check "cgroup v2 with the memory controller" [ -f $CG/memory.max ]
# memcg LIMIT: the script passes memory.LIMIT (high or max) of a cgroup that
# holds reclaimable slab; one reclaim in the cgroup frees some of it.
memcg() {
	sh -c "echo \$\$ >$CG/cgroup.procs; exec ls -lR /sys >/dev/null 2>&1"
	slab=$(cgstat slab_reclaimable stat)
	echo "# memory.$1: cgroup memory.current $(cat $CG/memory.current), slab_reclaimable $slab"
	if [ "${slab:-0}" -lt 2097152 ]; then
		not_ok "memory.$1: under 2 MiB of reclaimable slab in the cgroup; not risking its OOM killer"
		return
	fi
	echo >"$TR/trace"
	cp "$D/raw" /tmp/kc.raw0
	$FC "memcg-$1" $CG
	sleep 0.5
	cp "$D/raw" /tmp/kc.raw1
	rm -f /tmp/kc.fill
	truth=$(tcount mm_vmscan_memcg_reclaim_begin)
	check "memory.$1: the firecracker script reclaimed in its cgroup (tracefs: $truth)" [ "$truth" -gt 0 ]
	is "memory.$1: reclaim_memcg equals the kernel's count" "$(delta reclaim_memcg)" "$truth"
	is "memory.$1: reclaim_direct" "$(delta reclaim_direct)" "$(tcount mm_vmscan_direct_reclaim_begin)"
	is "memory.$1: cgroup OOM kills" "$(cgstat oom_kill events)" 0
}
memcg high
memcg max
echo $$ >$CGROOT/cgroup.procs
rmdir $CG || not_ok "rmdir $CG"
[ -n "$mounted" ] && umount $CGROOT

# ---- direct ---------------------------------------------------------------
ls -lR /sys >/dev/null 2>&1
rec=$(kb SReclaimable)
echo "# MemFree $(kb MemFree) kB, SReclaimable $rec kB, min_free_kbytes $(cat /proc/sys/vm/min_free_kbytes)"
if [ "$KVMCHURN_KERNEL" = x86_64-debug ]; then
	# KASAN's kernel stacks are order 3: below the raised mark a fork there
	# ended in the OOM killer in 2 of 4 runs (and, killed before it put the
	# mark back, took the rest of the boot with it)
	ok "direct: not forced on the debug kernel # SKIP order-3 kernel stacks of the sanitizer build"
elif [ "${rec:-0}" -lt 8192 ]; then
	not_ok "direct: under 8 MiB of reclaimable slab; not risking the OOM killer"
else
	old=$(cat /proc/sys/vm/min_free_kbytes)
	echo >"$TR/trace"
	cp "$D/raw" /tmp/kc.raw0
	$FC direct "$old"
	sleep 0.5
	cp "$D/raw" /tmp/kc.raw1
	rm -f /tmp/kc.fill
	is "direct: min_free_kbytes put back" "$(cat /proc/sys/vm/min_free_kbytes)" "$old"
	echo "$old" >/proc/sys/vm/min_free_kbytes # had the script died before it could
	truth=$(tcount mm_vmscan_direct_reclaim_begin)
	check "direct: the firecracker script reclaimed directly (tracefs: $truth)" [ "$truth" -gt 0 ]
	is "direct: reclaim_direct equals the kernel's count" "$(delta reclaim_direct)" "$truth"
	is "direct: reclaim_memcg" "$(delta reclaim_memcg)" "$(tcount mm_vmscan_memcg_reclaim_begin)"
fi
events off

no_misses "kretprobe misses"
is "pairing drops" "$(rec pairs 4)" 0
grep -E '^reclaim' "$D/summary" | sed 's/^/# /'
check "rmmod kvmchurn" rmmod kvmchurn
bad=$(dmesg | tail -n +$((n0 + 1)) | grep -E 'WARNING|BUG|Oops|lockdep|circular locking|Call Trace|oom-killer|kretprobe')
check "dmesg: no warning, oops, OOM or lockdep report" [ -z "$bad" ]
[ -z "$bad" ] || echo "$bad" | sed 's/^/# /'
exit 0

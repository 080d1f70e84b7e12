#!/bin/sh
# 50-bench (make bench, not a test): what loading kvmchurn costs the guest, the
# configurations alternated round by round so that the machine's drift cancels.
#   A: nothing loaded;
#   F: the floor, kvmchurn_floor.ko: kvmchurn's kretprobes (the symbols its
#      round attached) and tracepoints with handlers that return at once, so
#      F - A is the kernel's probe mechanism and B - F kvmchurn's handlers;
#   B: kvmchurn, filter=firecracker (no exit of forkexit matches; the load's do);
#   K and L, where the kernel has fprobe: kvmchurn with fprobes=1 (exit_mmap
#      and exit_files by fprobe), and its floor, so that K - B is what fprobe
#      costs against kretprobes and K - L the handlers behind fprobes;
#   C: kvmchurn, filter=* (every exit recorded);
#   P: the tracefs peer, filtered like B: kprobe and kretprobe events on
#      exit_mmap and exit_files, hist triggers pairing them into a synthetic
#      latency event with a log2 histogram, if the thread is the VMM or one
#      of its vCPU threads (tracefs sees the thread's comm, not the leader's);
#   Q: the same peer unfiltered, like C;
#   S: the seed, bpftrace 0.17 (bookworm's, from the read-only root on the
#      guest's disk) running kvm_churn_breakdown.bt as written, less the
#      probes on symbols this kernel does not have (arm64's stage 2 on x86);
#      where its kfunc probes cannot attach (arm64 6.1), the same script with
#      kfunc/kretfunc as kprobe/kretprobe, its only change. Its start-up, from
#      exec to its BEGIN line, is measured each time.
# Per round: forkexit's ns per fork + exit + waitpid in A F B C P Q S, and the
# VMs a second of `kvmchurn load --end kill` (on CPU 0, as forkexit) in A F B P S with the CPU time they
# took (the tasks' run time of /proc/schedstat, all CPUs: what the idle waits
# of a VM's teardown do not blur), and that less what khugepaged and the RCU
# kthreads ran meanwhile (background work that a round may or may not catch), and
# the VMMs' own CPU time (cputime: the load and the VMMs it reaped; every probe of a
# VM runs in them but the free of their tasks, and no other task's work is in it), and
# the memory work of /proc/vmstat in it (THP faults and fallbacks, compactions,
# reclaim scans), so that a slow round shows whether the kernel's memory did it; the
# churn configurations too in an order reversed every other round.
# Address space randomization is off while it runs, so
# that each round's forkexit has the same layout to copy. Then the misses (256 VMs killed
# together, by maxactive) and the memory the module holds
# against what the kernel reports. One "# bench ..." line a measurement;
# rounds/report.awk (tests/bench/bench.sh rounds) makes the report. Busybox sh.
# shellcheck source=../../lib/guest/lib.sh
. /kvmchurn/lib.sh
# shellcheck source=/dev/null
. /kvmchurn/config # KVMCHURN_VMM_MODULES: what mounts the seed's root
. /kvmchurn/bench.conf # BENCH_ROUNDS BENCH_EXITS BENCH_VMS BENCH_STORM BENCH_STORM_MIB BENCH_WAVE_MAX BENCH_ALIVE BENCH_ALIVE_ROUNDS BENCH_ONLY
T=/sys/kernel/tracing
[ -e $T/kprobe_events ] || mount -t tracefs nodev $T
PEER_FNS="exit_mmap exit_files"

# busy: ns that tasks ran on all CPUs (the idle task not counted)
busy() { awk '$1 ~ /^cpu[0-9]/ { n += $8 } END { printf "%.0f\n", n }' /proc/schedstat; }
# background: ns that khugepaged and the RCU kthreads have run
background() {
	for c in /proc/[0-9]*/comm; do
		case $(cat "$c" 2>/dev/null) in
		khugepaged | rcu_* | rcuog/* | rcuop/* | rcuos/*) cat "${c%comm}schedstat" 2>/dev/null ;;
		esac
	done | awk '{ n += $1 } END { printf "%.0f\n", n }'
}
unload() {
	! kc_loaded || rmmod kvmchurn
	[ ! -d /sys/module/kvmchurn_floor ] || rmmod kvmchurn_floor
	seed_stop
}

# The seed: bpftrace from the root image on /dev/vda, chrooted.
BT=/tmp/bt.root
SEED_PID=''
# seed_ready: the seed's root mounted and its variant chosen; else says why, returns 1
seed_ready() {
	# /sys with what is mounted below it: tracefs, debugfs, the BPF file system
	disk_root $BT rbind || { echo "its root: $DISK_WHY" >/tmp/seed.why; return 1; }
	echo "bpftrace did not start: $(tail -n 3 /tmp/seed.out 2>/dev/null | tr '\n' ' ')" >/tmp/seed.why
	# the stage-2 probes only where the kernel has their symbol, as the seed's author ran it
	if grep -q ' kvm_pgtable_stage2_destroy$' /proc/kallsyms; then
		cp /kvmchurn/seed.bt /tmp/seed.bt
	else
		awk '/^k(ret)?func:kvm_pgtable_stage2_destroy$/ { skip = 1 } !skip { print } skip && /^}/ { skip = 0 }' \
			/kvmchurn/seed.bt >/tmp/seed.bt
	fi
	SEED_VARIANT=as-written
	seed_start || {
		grep -i -m 3 error /tmp/seed.out | sed 's/^/# seed as written: /'
		sed -i 's/^kfunc:/kprobe:/; s/^kretfunc:/kretprobe:/' /tmp/seed.bt
		SEED_VARIANT=kprobe
		seed_start
	} || return 1
	echo "# bench seed variant $SEED_VARIANT $(chroot $BT bpftrace --version)"
	seed_stop
}
seed_up() { grep -q '^Tracing KVM churn' /tmp/seed.out || ! kill -0 "$SEED_PID" 2>/dev/null; }
# seed_start: bpftrace running the seed, attached; its start-up in guest ns
seed_start() {
	t0=$(uptime_ns)
	chroot $BT bpftrace /tmp/seed.bt >/tmp/seed.out 2>&1 &
	SEED_PID=$!
	wait_for "$KC_WAIT" seed_up
	grep -q '^Tracing KVM churn' /tmp/seed.out || { wait "$SEED_PID"; SEED_PID=''; return 1; }
	echo "# bench seedstart $(($(uptime_ns) - t0))"
}
seed_stop() {
	[ -n "$SEED_PID" ] || return 0
	kill -INT "$SEED_PID"
	wait "$SEED_PID"
	SEED_PID=''
}
# seed_hits MAP: the values in one of the seed's histograms, as it printed them at exit
seed_hits() {
	awk -v m="@$1:" '$1 == m { on = 1; next } on && /^\[/ { sub(/ *\|.*$/, ""); n += $NF; next } { on = 0 }
		END { print n + 0 }' /tmp/seed.out
}
# seed_count MAP: one of the seed's counters, as it printed it at exit
seed_count() { awk -v m="@$1:" '$1 == m { print $2; f = 1 } END { if (!f) print 0 }' /tmp/seed.out; }
uptime_ns() { awk '{ printf "%.0f\n", $1 * 1e9 }' /proc/uptime; }

# The peer: what a user could set up with tracefs alone. Synthetic events and
# hist triggers where the kernel has them, else only the kprobe events.
peer_on() { # peer_on CONDITION ("" for every process)
	cond=${1:+ if $1}
	for f in $PEER_FNS; do
		echo "p:kprobes/kc_${f}_in $f" >>$T/kprobe_events || return 1
		echo "r512:kprobes/kc_${f}_out $f" >>$T/kprobe_events || return 1
		if [ -e $T/synthetic_events ]; then
			echo "kc_${f}_lat u64 lat" >>$T/synthetic_events || return 1
			# keyed by pid, whose entries stay: room for every exit of a round
			echo "hist:keys=common_pid:ts0=common_timestamp.usecs:size=32768$cond" \
				>$T/events/kprobes/kc_"${f}"_in/trigger || return 1
			echo "hist:keys=common_pid:lat=common_timestamp.usecs-\$ts0:size=32768:onmatch(kprobes.kc_${f}_in).kc_${f}_lat(\$lat)$cond" \
				>$T/events/kprobes/kc_"${f}"_out/trigger || return 1
			echo "hist:keys=lat.log2" >$T/events/synthetic/kc_"${f}"_lat/trigger || return 1
		else
			echo "hist:keys=comm$cond" >$T/events/kprobes/kc_"${f}"_out/trigger || return 1
			echo 1 >$T/events/kprobes/kc_"${f}"_in/enable || return 1
		fi
	done
}
# peer_hits FN: what the peer's histogram for FN recorded ("Hits: N").
peer_hits() {
	if [ -e $T/events/synthetic/kc_"${1}"_lat/hist ]; then
		sed -n 's/^ *Hits: //p' $T/events/synthetic/kc_"${1}"_lat/hist
	else
		sed -n 's/^ *Hits: //p' $T/events/kprobes/kc_"${1}"_out/hist
	fi
}
peer_off() {
	[ -n "$(cat $T/kprobe_events)" ] || return 0
	for f in $PEER_FNS; do
		for t in $T/events/synthetic/kc_${f}_lat $T/events/kprobes/kc_${f}_out $T/events/kprobes/kc_${f}_in; do
			[ -e "$t/trigger" ] || continue
			grep -v '^#' "$t/trigger" | sed 's/ \[active\]$//; s/^/!/' | while read -r tr; do
				echo "$tr" >>"$t/trigger"
			done
		done
	done
	echo 0 >$T/events/kprobes/enable 2>/dev/null
	for f in $PEER_FNS; do
		[ ! -e $T/synthetic_events ] || echo "!kc_${f}_lat" >>$T/synthetic_events 2>/dev/null
	done
	echo >$T/kprobe_events
}

config() { # config A|B|C|P|Q
	unload
	peer_off || return 1
	case $1 in
	F) insmod /kvmchurn/kvmchurn_floor.ko "kretprobes=$FLOOR_SYMS" "kprobes=$FLOOR_PSYMS" ;;
	L) insmod /kvmchurn/kvmchurn_floor.ko "kretprobes=$FLOOR_KSYMS" "kprobes=$FLOOR_PSYMS" "fprobes=$FLOOR_FSYMS" ;;
	B) insmod "$KVMCHURN_KO" filter=firecracker ;;
	K) insmod "$KVMCHURN_KO" filter=firecracker fprobes=1 ;;
	C) insmod "$KVMCHURN_KO" 'filter=*' ;;
	P) peer_on 'comm == "firecracker" || comm ~ "fc_vcpu*"' ;;
	Q) peer_on "" ;;
	S) seed_start ;;
	esac
}
# recorded CONFIG: what the configuration recorded of exit_mmap, to show that it worked;
# the seed's once seed_stop has made it print (here, not in the $(...) that calls this:
# a subshell cannot wait for bpftrace, and read its output before it was written).
recorded() {
	case $1 in
	B | C | K) raw_field hist exit_mmap 3 ;;
	P | Q) peer_hits exit_mmap ;;
	S) echo "$(seed_hits us_exit_mmap)/$(seed_count n_exit)" ;;
	*) echo 0 ;;
	esac
}

echo "# bench peer $([ -e $T/synthetic_events ] && echo synthetic || echo kprobe-only)"
# the floor's kretprobes, plain kprobes and fprobes: where kvmchurn's attached, one for
# each of its
insmod "$KVMCHURN_KO" && FLOOR_SYMS=$(attached_syms kretprobe) && FLOOR_PSYMS=$(attached_syms kprobe)
unload
# and with fprobes=1: the symbols by kretprobe (FLOOR_KSYMS) and by fprobe then
insmod "$KVMCHURN_KO" fprobes=1 && FLOOR_KSYMS=$(attached_syms kretprobe) && FLOOR_FSYMS=$(attached_syms fprobe)
unload
echo "# bench floor $FLOOR_SYMS${FLOOR_FSYMS:+ fprobes $FLOOR_FSYMS}${FLOOR_PSYMS:+ kprobes $FLOOR_PSYMS}"
EXIT_CONFIGS="A F B C P Q"
[ -z "$FLOOR_FSYMS" ] || EXIT_CONFIGS="$EXIT_CONFIGS K L"
CHURN_CONFIGS="A F B P"
if seed_ready; then
	EXIT_CONFIGS="$EXIT_CONFIGS S" CHURN_CONFIGS="$CHURN_CONFIGS S"
else
	not_ok "the seed: $(cat /tmp/seed.why)"
fi
aslr=$(cat /proc/sys/kernel/randomize_va_space)
echo 0 >/proc/sys/kernel/randomize_va_space
r=1
# order N LIST: the configurations of LIST, reversed in even rounds: a drift that
# is linear in time adds to each the same over two rounds
order() { if [ $(($1 % 2)) = 1 ]; then echo "$2"; else echo "$2" | tr ' ' '\n' | sed '1!G;h;$!d'; fi; }
# vmev: the memory work of /proc/vmstat a churn round may or may not catch, whatever
# is loaded: THP faults that got a huge page and that fell back to small pages, direct
# compactions, pages scanned by kswapd and by direct reclaim, page faults
VMEV="thp_fault_alloc thp_fault_fallback compact_stall pgscan_kswapd pgscan_direct pgfault"
vmev() { awk -v keys="$VMEV" 'BEGIN { n = split(keys, k) } { v[$1] = $2 } END { for (i = 1; i <= n; i++) printf "%d ", v[k[i]]; print "" }' /proc/vmstat; }
# vmev_delta BEFORE AFTER: "key=delta" of each
vmev_delta() { echo "$VMEV" "$1" "$2" | awk '{ n = NF / 3; for (i = 1; i <= n; i++) printf "%s%s=%d", (i > 1 ? " " : ""), $i, $(2 * n + i) - $(n + i); print "" }'; }
while [ "$r" -le "$BENCH_ROUNDS" ]; do
	for c in $(order "$r" "$EXIT_CONFIGS"); do
		if ! config "$c"; then
			not_ok "round $r: configuration $c"
			continue
		fi
		if ns=$(forkexit "$BENCH_EXITS"); then
			echo "# bench exit $c $r $ns"
			[ "$c" != S ] || seed_stop
			echo "# bench recorded exit $c $r $(recorded "$c")"
		else
			not_ok "round $r $c: forkexit"
		fi
	done
	for c in $(order "$r" "$CHURN_CONFIGS"); do
		config "$c" || { not_ok "round $r: configuration $c"; continue; }
		m0=$(vmev) g0=$(background) b0=$(busy)
		# on CPU 0 alone, as forkexit: under TCG one thread runs the vCPUs in turn,
		# and a wait for the other CPU (an IPI's answer, a TLB shootdown) spins for
		# as long as that vCPU's turn, which the host's timing decides: unpinned,
		# a VM took 6.2 M to 8.9 M instructions from one round to the next on
		# arm64 6.1, pinned 6.00 M to 6.04 M
		if taskset 1 cputime /tmp/bench.cpu kvmchurn load -n "$BENCH_VMS" -j 2 --mem 16 --end kill --json >/tmp/bench.json 2>/tmp/bench.err; then
			b1=$(busy) g1=$(background) m1=$(vmev)
			rate=$(sed -n 's/.*"rate_per_s": *\([0-9.]*\).*/\1/p' /tmp/bench.json)
			echo "# bench churn $c $r $rate"
			echo "# bench churncpu $c $r $(awk -v a="$b0" -v b="$b1" -v n="$BENCH_VMS" 'BEGIN { printf "%.0f", (b - a) / n }')"
			echo "# bench churnfg $c $r $(awk -v a="$b0" -v b="$b1" -v g="$((g1 - g0))" -v n="$BENCH_VMS" 'BEGIN { printf "%.0f", (b - a - g) / n }')"
			echo "# bench churnvmm $c $r $(awk -v n="$BENCH_VMS" '{ printf "%.0f", $1 / n }' /tmp/bench.cpu)"
			echo "# bench churnvm $c $r $(vmev_delta "$m0" "$m1")"
			[ "$c" != S ] || seed_stop
			echo "# bench recorded churn $c $r $(recorded "$c")"
		else
			not_ok "round $r $c: kvmchurn load: $(cat /tmp/bench.err)"
		fi
	done
	ok "round $r"
	r=$((r + 1))
done
config A
echo "$aslr" >/proc/sys/kernel/randomize_va_space
# BENCH_ONLY=rounds: the rounds alone (many of them, for the churn's interval)
[ "$BENCH_ONLY" != rounds ] || exit 0

# Misses: BENCH_STORM VMs (kvmchurn load --together: traced VMMs, 1 vCPU and
# BENCH_STORM_MIB MiB each) killed together, as a fleet kills a pool; nmissed
# summed over the kretprobes, for the default maxactive, then by maxactive down
# to the smallest that misses none.
storm() { # storm MAXACTIVE [VMS]: prints "MISSED METRIC:MISSED...", or "error"
	wave=${2:-$BENCH_STORM}
	insmod "$KVMCHURN_KO" ${1:+maxactive=$1} || { echo error; return; }
	if kvmchurn load -n "$wave" -j "$wave" --together --vcpus 1 \
		--mem "$BENCH_STORM_MIB" --end kill --timeout 900 >/tmp/storm.out 2>&1; then
		awk 'NR > 1 && ($2 == "kretprobe" || $2 == "fprobe") { m += $NF; if ($NF) by = by " " $1 ":" $NF }
			END { print m + 0 by }' $D/probes
		# none missed: every VM's destruction was timed
		[ "$(awk 'NR > 1 && ($2 == "kretprobe" || $2 == "fprobe") { m += $NF } END { print m + 0 }' $D/probes)" != 0 ] ||
			[ "$(raw_field hist kvm_destroy_vm 3)" = "$wave" ] ||
			not_ok "storm: kvm_destroy_vm recorded $(raw_field hist kvm_destroy_vm 3), want $wave" >&2
		raw_field pairs - 4 >/tmp/storm.drops
	else
		echo error
		sed 's/^/# storm: /' /tmp/storm.out >&2
	fi
	rmmod kvmchurn
}
echo "# bench misses default $(storm '')"
lo=0 hi=''
for m in 1 2 4 8 16 32 64 128 256 512 1024; do
	n=$(storm $m)
	echo "# bench misses $m $n"
	[ "${n%% *}" = error ] && break
	[ "${n%% *}" = 0 ] && { hi=$m; break; }
	lo=$m
done
# between the last power of two that missed and the first that did not
while [ -n "$hi" ] && [ $((hi - lo)) -gt 1 ]; do
	m=$(((lo + hi) / 2))
	n=$(storm $m)
	echo "# bench misses $m $n"
	case ${n%% *} in
	0) hi=$m ;;
	error) break ;;
	*) lo=$m ;;
	esac
done
echo "# bench misses smallest ${hi:-none}"

# The largest wave that the defaults take whole: no kretprobe missed, no pairing
# entry dropped; by halving below kvmchurn load's largest -j.
clean() { # clean VMS: 0 when a wave of VMS missed and dropped nothing
	echo - >/tmp/storm.drops
	n=$(storm '' "$1")
	drops=$(cat /tmp/storm.drops)
	echo "# bench wave $1 $n drops:$drops"
	[ "${n%% *}" = 0 ] && [ "$drops" = 0 ]
}
lo=0 hi=$BENCH_WAVE_MAX
if clean "$hi"; then
	lo=$hi
else
	while [ $((hi - lo)) -gt $((BENCH_WAVE_MAX / 32)) ]; do
		m=$(((lo + hi) / 2))
		if clean $m; then lo=$m; else hi=$m; fi
	done
fi
echo "# bench wave largest $lo of $BENCH_WAVE_MAX"

# The cost of an unmatched exit with no traced VM alive and with BENCH_ALIVE of
# them alive at once (two loads, as -j stops at 512; SIGTERM ignored, so they
# stay until the load is interrupted): the pairing table and the live records
# busy. Each with kvmchurn (B) and, the same VMs still there, without it (A):
# what kvmchurn adds, apart from what so many processes cost the kernel.
# a VM of 1 vCPU and 1 MiB holds about 1.5 MiB of the guest (its process and KVM's)
avail=$(awk '$1 == "MemAvailable:" { print int($2 / 1024) }' /proc/meminfo)
r=1
if [ "$avail" -lt $((BENCH_ALIVE * 2)) ]; then
	not_ok "alive: $avail MiB available, $((BENCH_ALIVE * 2)) wanted for $BENCH_ALIVE VMs (--mem)"
	r=$((BENCH_ALIVE_ROUNDS + 1))
fi
echo 0 >/proc/sys/kernel/randomize_va_space
while [ "$r" -le "$BENCH_ALIVE_ROUNDS" ]; do
	insmod "$KVMCHURN_KO" filter=firecracker
	b0=$(forkexit "$BENCH_EXITS")
	rmmod kvmchurn
	a0=$(forkexit "$BENCH_EXITS")
	insmod "$KVMCHURN_KO" filter=firecracker
	alive_start "$BENCH_ALIVE"
	if wait_for 3600 held "$BENCH_ALIVE"; then
		bn=$(forkexit "$BENCH_EXITS")
		info="pairs:$(raw_field pairs - 3) live:$(awk -F '\t' '$1 == "stats" { print $5 }' $D/vms)"
		rmmod kvmchurn
		an=$(forkexit "$BENCH_EXITS")
		# still all there: both were measured with them
		if held "$BENCH_ALIVE"; then
			echo "# bench alive $BENCH_ALIVE $r $a0 $b0 $an $bn $info"
		else
			not_ok "alive round $r: the VMs did not stay for the exits"
		fi
	else
		not_ok "alive round $r: $(vms_alive) of $BENCH_ALIVE VMs came up"
	fi
	alive_stop
	wait_for "$KC_WAIT" vms_gone || not_ok "alive round $r: VMs left"
	unload
	r=$((r + 1))
done
echo "$aslr" >/proc/sys/kernel/randomize_va_space
ok "alive"

# Memory: what the kernel reports before insmod, loaded and after rmmod, with
# the module's own account; with maxactive=512 and =1 in turn, so that the
# kretprobe instances (kmalloc-SIZE objects before 6.7) can be told from the
# fixed cost of loading a module. Each account is read once it stands still
# (still): the previous unload's instances and pages go after a grace period.
# kernel_mem: the kernel's own memory lines that a module's load moves
kernel_mem() { awk '$1 == "Percpu:" || $1 == "SUnreclaim:" || $1 == "VmallocUsed:" { printf " %s %s", $1, $2 }' /proc/meminfo; }
insmod "$KVMCHURN_KO" && size=$(awk '$1 == "kretprobes" { b = $2 } $1 == "kretprobe_instances" { n = $2 }
	END { print n ? b / n : 0 }' $D/memory) && rmmod kvmchurn
cache=kmalloc-$size
# from 6.7 an objpool holds them, in vmalloc'd pages: VmallocUsed tells
! kc_objpool || cache=none
for m in 512 1 512 1 512 1; do
	before="$(still 60 kernel_mem) $cache: $(still 60 slabobjs "$cache")"
	insmod "$KVMCHURN_KO" maxactive=$m || { not_ok "memory: insmod maxactive=$m"; continue; }
	echo "# bench mem $m before$before"
	echo "# bench mem $m loaded$(still 60 kernel_mem) $cache: $(still 60 slabobjs "$cache") vmpairs: $(vmmodule)"
	echo "# bench mem $m module $(tr '\n' ' ' <$D/memory)"
	rmmod kvmchurn
	echo "# bench mem $m after$(still 60 kernel_mem) $cache: $(still 60 slabobjs "$cache")"
done
# SLUB counts a CPU's cached free objects as in use: how many it may hold
sys=/sys/kernel/slab/$cache
echo "# bench mem cache $cache cpu_partial $(cat "$sys"/cpu_partial 2>/dev/null || echo 0) objs_per_slab $(cat "$sys"/objs_per_slab 2>/dev/null || echo 0)"
ok "memory"
exit 0

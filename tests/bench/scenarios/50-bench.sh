#!/bin/sh
# 50-bench (make bench, not a test): what loading kvmchurn costs the guest, the
# configurations alternated round by round so that the machine's drift cancels.
#   A: nothing loaded;
#   B: kvmchurn, filter=firecracker (no exit of forkexit matches; the load's do);
#   C: kvmchurn, filter=* (every exit recorded);
#   P: the tracefs peer, filtered like B: kprobe and kretprobe events on
#      exit_mmap and exit_files, hist triggers pairing them into a synthetic
#      latency event with a log2 histogram, if the thread is the VMM or one
#      of its vCPU threads (tracefs sees the thread's comm, not the leader's);
#   Q: the same peer unfiltered, like C.
# Per round: forkexit's ns per fork + exit + waitpid in A B C P Q, and the VMs a
# second of `kvmchurn load --end kill` in A B P with the CPU time they took (the
# tasks' run time of /proc/schedstat, all CPUs: what the idle waits of a VM's
# teardown do not blur). Address space randomization is off while it runs, so
# that each round's forkexit has the same layout to copy. Then the misses (256 VMs killed
# together, by maxactive) and the memory the module holds
# against what the kernel reports. One "# bench ..." line a measurement;
# tests/bench/run.sh makes the report. Busybox sh.
# shellcheck source=../../vm/guest/tap.sh
. /kvmchurn/tap.sh
. /kvmchurn/bench.conf # BENCH_ROUNDS BENCH_EXITS BENCH_VMS BENCH_STORM BENCH_STORM_MIB
T=/sys/kernel/tracing
[ -e $T/kprobe_events ] || mount -t tracefs nodev $T
PEER_FNS="exit_mmap exit_files"

# busy: ns that tasks ran on all CPUs (the idle task not counted)
busy() { awk '$1 ~ /^cpu[0-9]/ { n += $8 } END { printf "%.0f\n", n }' /proc/schedstat; }
unload() { ! kc_loaded || rmmod kvmchurn; }

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
				>$T/events/kprobes/kc_${f}_in/trigger || return 1
			echo "hist:keys=common_pid:lat=common_timestamp.usecs-\$ts0:size=32768:onmatch(kprobes.kc_${f}_in).kc_${f}_lat(\$lat)$cond" \
				>$T/events/kprobes/kc_${f}_out/trigger || return 1
			echo "hist:keys=lat.log2" >$T/events/synthetic/kc_${f}_lat/trigger || return 1
		else
			echo "hist:keys=comm$cond" >$T/events/kprobes/kc_${f}_out/trigger || return 1
			echo 1 >$T/events/kprobes/kc_${f}_in/enable || return 1
		fi
	done
}
# peer_hits FN: what the peer's histogram for FN recorded ("Hits: N").
peer_hits() {
	if [ -e $T/events/synthetic/kc_${1}_lat/hist ]; then
		sed -n 's/^ *Hits: //p' $T/events/synthetic/kc_${1}_lat/hist
	else
		sed -n 's/^ *Hits: //p' $T/events/kprobes/kc_${1}_out/hist
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
	B) insmod "$KVMCHURN_KO" filter=firecracker ;;
	C) insmod "$KVMCHURN_KO" 'filter=*' ;;
	P) peer_on 'comm == "firecracker" || comm ~ "fc_vcpu*"' ;;
	Q) peer_on "" ;;
	esac
}
# recorded CONFIG: what the configuration recorded of exit_mmap, to show that it worked.
recorded() {
	case $1 in
	B | C) val hist exit_mmap ;;
	P | Q) peer_hits exit_mmap ;;
	*) echo 0 ;;
	esac
}

echo "# bench peer $([ -e $T/synthetic_events ] && echo synthetic || echo kprobe-only)"
aslr=$(cat /proc/sys/kernel/randomize_va_space)
echo 0 >/proc/sys/kernel/randomize_va_space
r=1
while [ "$r" -le "$BENCH_ROUNDS" ]; do
	for c in A B C P Q; do
		if ! config $c; then
			not_ok "round $r: configuration $c"
			continue
		fi
		if ns=$(forkexit "$BENCH_EXITS"); then
			echo "# bench exit $c $r $ns"
			echo "# bench recorded exit $c $r $(recorded $c)"
		else
			not_ok "round $r $c: forkexit"
		fi
	done
	for c in A B P; do
		config $c || { not_ok "round $r: configuration $c"; continue; }
		b0=$(busy)
		if kvmchurn load -n "$BENCH_VMS" -j 2 --mem 16 --end kill --json >/tmp/bench.json 2>/tmp/bench.err; then
			b1=$(busy)
			rate=$(sed -n 's/.*"rate_per_s": *\([0-9.]*\).*/\1/p' /tmp/bench.json)
			echo "# bench churn $c $r $rate"
			echo "# bench churncpu $c $r $(awk -v a="$b0" -v b="$b1" -v n="$BENCH_VMS" 'BEGIN { printf "%.0f", (b - a) / n }')"
			echo "# bench recorded churn $c $r $(recorded $c)"
		else
			not_ok "round $r $c: kvmchurn load: $(cat /tmp/bench.err)"
		fi
	done
	ok "round $r"
	r=$((r + 1))
done
config A
echo "$aslr" >/proc/sys/kernel/randomize_va_space

# Misses: BENCH_STORM VMs (kvmchurn load --together: traced VMMs, 1 vCPU and
# BENCH_STORM_MIB MiB each) killed together, as a fleet kills a pool; nmissed
# summed over the kretprobes, for the default maxactive, then by maxactive down
# to the smallest that misses none.
storm() { # storm MAXACTIVE: prints "MISSED METRIC:MISSED...", or "error"
	insmod "$KVMCHURN_KO" ${1:+maxactive=$1} || { echo error; return; }
	if kvmchurn load -n "$BENCH_STORM" -j "$BENCH_STORM" --together --vcpus 1 \
		--mem "$BENCH_STORM_MIB" --end kill --timeout 900 >/tmp/storm.out 2>&1; then
		awk 'NR > 1 && $2 == "kretprobe" { m += $NF; if ($NF) by = by " " $1 ":" $NF }
			END { print m + 0 by }' $D/probes
		# none missed: every VM's destruction was timed
		[ "$(awk 'NR > 1 && $2 == "kretprobe" { m += $NF } END { print m + 0 }' $D/probes)" != 0 ] ||
			[ "$(val hist kvm_destroy_vm)" = "$BENCH_STORM" ] ||
			not_ok "storm: kvm_destroy_vm recorded $(val hist kvm_destroy_vm), want $BENCH_STORM" >&2
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

# Memory: what the kernel reports before insmod, loaded and after rmmod, with
# the module's own account; with maxactive=512 and =1 in turn, so that the
# kretprobe instances (kmalloc-SIZE objects before 6.7) can be told from the
# fixed cost of loading a module.
meminfo() { awk '$1 == "Percpu:" || $1 == "SUnreclaim:" || $1 == "VmallocUsed:" { printf " %s %s", $1, $2 }' /proc/meminfo; }
insmod "$KVMCHURN_KO" && size=$(awk '$1 == "kretprobes" { b = $2 } $1 == "kretprobe_instances" { n = $2 }
	END { print n ? b / n : 0 }' $D/memory) && rmmod kvmchurn
cache=kmalloc-$size
# from 6.7 an objpool holds them, in vmalloc'd pages: VmallocUsed tells
! kc_objpool || cache=none
for m in 512 1 512 1 512 1; do
	before="$(meminfo) $cache: $(slabobjs "$cache")"
	insmod "$KVMCHURN_KO" maxactive=$m || { not_ok "memory: insmod maxactive=$m"; continue; }
	echo "# bench mem $m before$before"
	echo "# bench mem $m loaded$(meminfo) $cache: $(slabobjs "$cache") vmpairs: $(vmpairs)"
	echo "# bench mem $m module $(tr '\n' ' ' <$D/memory)"
	rmmod kvmchurn
	echo "# bench mem $m after$(meminfo) $cache: $(slabobjs "$cache")"
done
# SLUB counts a CPU's cached free objects as in use: how many it may hold
sys=/sys/kernel/slab/$cache
echo "# bench mem cache $cache cpu_partial $(cat $sys/cpu_partial 2>/dev/null || echo 0) objs_per_slab $(cat $sys/objs_per_slab 2>/dev/null || echo 0)"
ok "memory"
exit 0

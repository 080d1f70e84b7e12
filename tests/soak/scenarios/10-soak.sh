#!/bin/sh
# 10-soak (make soak, the debug kernel): SOAK_VMS VMs of `kvmchurn load`, in waves of
# SOAK_WAVE, each wave a third SIGKILLed, a third SIGTERMed (the VM's handler
# exits, as Firecracker's) and the rest exiting by themselves, each VM 2 vCPUs that
# ran once, IRQFDS irqfds, MEM MiB. The filter changes from wave to wave (the
# default firecracker; soakvm, the VMs named so; nosuchvmm, which traces none of
# them: that wave adds exactly nothing), and reset is written before every fifth.
# Two waves in four add a QEMU (bookworm's, from the VMM's root on the guest's disk,
# 2 vCPUs, paused: created and never run, as a manager's spare) to the filter and
# end it by SIGKILL, SIGTERM or QMP's quit in turn. QMP is on QEMU's stdio: the
# debug kernel has no CONFIG_NET, so no unix socket.
# Every wave: each histogram and counter moved by exactly what its VMs make (two
# raw snapshots), no kretprobe missed, no pairing entry dropped, the pairing table
# back to empty. Every checkpoint (SOAK_CHECKS over the run, after a warm-up of
# SOAK_WARMUP waves that takes the memory baseline): the counts since the last reset
# (the reset's baseline) are the waves' sums, the VM records finished are the VMs
# counted (QEMU's among them) and none is live or evicted, the module's own memory unchanged; slab,
# vmalloc and per-CPU memory within a stated bound of the baseline; a kmemleak scan
# finds nothing and the kernel log has no leak report. Each checkpoint prints a
# "# soak-checkpoint" line of its numbers (tests/soak/report.awk). Busybox sh;
# leaves the module unloaded.
# shellcheck source=../../lib/guest/lib.sh
. /kvmchurn/lib.sh
# shellcheck source=/dev/null
. /kvmchurn/soak.conf # SOAK_VMS SOAK_WAVE SOAK_CHECKS SOAK_WARMUP (tests/soak/tier.sh)
P=/sys/kernel/debug/percpu_stats
VCPUS=2 IRQFDS=4 MEM=4
LOAD="-j 4 --vcpus $VCPUS --irqfds $IRQFDS --mem $MEM --run --timeout 600"
WAVES=$(((SOAK_VMS + SOAK_WAVE - 1) / SOAK_WAVE))
EVERY=$(((WAVES - SOAK_WARMUP + SOAK_CHECKS - 1) / SOAK_CHECKS))
[ "$EVERY" -ge 1 ] || EVERY=1

# The bounds of growth over the baseline, at rest, after every slab cache was shrunk
# (which also empties KASAN's quarantine of the cache's freed objects) and the
# reclaimable caches dropped (measured, 2026-12-07, 3,000 VMs: slab -64 to +264 KiB
# until the 1,530th VM, when 6 MiB of the baseline went for good, then -6.5 to -4.7
# MiB; vmalloc and per-CPU allocations 0 at every checkpoint). Growth is judged, not
# a fall, and the slab baseline follows the lowest reading since the warm-up: what the
# kernel gave back for good is no credit for a later leak.
# - slab: 2 MiB. What the shrink cannot hold still: each CPU's KASAN quarantine
#   refills with what the measuring shell's own children free (1 MiB a CPU at most,
#   QUARANTINE_PERCPU_SIZE, before it goes to the global one), and the CPUs' partial
#   slabs. A leak of 100 bytes a VM is 2 MB by 20,000 VMs (700 by 3,000).
# - vmalloc: 64 KiB (16 pages): the module allocates none after its load, KVM frees a
#   VM's vmalloc'd struct kvm at once in process context, and no stack is vmalloc'd
#   here (no VMAP_STACK under KASAN); a page leaked every 1,000 VMs fails 20,000.
# - per-CPU: 4 allocations and 1 KiB a unit: KVM's per-VM SRCU and statistics go
#   with the VM, nothing else in the guest allocates per-CPU memory at rest.
SLAB_KB=2048 VMALLOC_KB=64 PCPU_ALLOCS=4 PCPU_BYTES=1024

# expect N KILL TERM FR REG IRQFDS RAN: "hist METRIC COUNT" and "counter NAME COUNT"
# lines, what N VMs (KILL SIGKILLed, TERM SIGTERMed, the rest ended otherwise) of IRQFDS
# irqfds each make: every metric of the table (kvmchurn show --list) its per-VM count
# (pervm's, made once) times N, irqbypass_unregister IRQFDS a VM, the start-up's only
# if they ran (RAN 1), first_run_setup FR and irqbypass_register REG (the kernel's
# own, from tracefs). A wave's load is "N K T FR REG $IRQFDS 1", a paused QEMU
# "1 K T 0 0 0 0".
expect() {
	awk -F '\t' -v OFS='\t' -v n="$1" -v k="$2" -v t="$3" -v fr="$4" -v reg="$5" -v irqfds="$6" -v ran="$7" '
		{ c = $2 * n }
		$1 == "first_run_setup" { c = fr }
		$1 == "irqbypass_register" { c = reg }
		$1 == "irqbypass_unregister" { c = irqfds * n }
		$3 == "startup" && ran == 0 { c = 0 }
		$1 == "signal_to_exit" { c = k + t }
		{ print "hist", $1, c }
		END {
			print "counter", "sigkill", k; print "counter", "sigterm", t
			print "counter", "exit", n; print "counter", "reap", n
			print "counter", "irqbypass_register", reg; print "counter", "irqbypass_unregister", irqfds * n
		}' /tmp/soak.pervm
}
# pervm: "METRIC TIMES GROUP" a VM, for expect: a vCPU's metric VCPUS times, reclaim
# never, the functions this kernel lacks never, the rest once (an irqfd's: expect's);
# GROUP is the window a metric belongs to (kvmchurn show --list)
pervm() {
	kvmchurn show --list | while IFS='	' read -r m g _; do
		case $m in
		vcpu_create) c=$VCPUS ;;
		reclaim_direct | reclaim_memcg) c=0 ;;
		*) c=$(per_vm "$m") ;;
		esac
		printf '%s\t%s\t%s\n' "$m" "$c" "$g"
	done
}
# qemu_vm END: a paused QEMU, its VM made (QMP's query-status answers "prelaunch"), then
# ended by END and reaped; QEMU's exit status on stdout
qemu_vm() {
	rm -f $W/qmp.in $W/qmp.out
	mkfifo $W/qmp.in
	$QEMU -S -smp $VCPUS -accel kvm -cpu host -m 64 -nodefaults -no-user-config -display none \
		-name guest=soak,debug-threads=on -qmp stdio <$W/qmp.in >$W/qmp.out 2>$W/qemu.err &
	qpid=$!
	exec 7>$W/qmp.in
	printf '%s\n' '{"execute":"qmp_capabilities"}' '{"execute":"query-status"}' >&7
	wait_for "$KC_WAIT" qemu_made
	case $1 in
	kill) kill -KILL $qpid ;;
	term) kill -TERM $qpid ;;
	quit) echo '{"execute":"quit"}' >&7 ;;
	esac
	wait $qpid 2>/dev/null
	echo $?
	exec 7>&-
}
qemu_made() { grep -q '"status": "prelaunch"' "$W/qmp.out" || ! kill -0 "$qpid" 2>/dev/null; }
# differ WANT GOT: the records whose counts differ, "tag name got, want N"; GOT is
# deltas' output (or raw itself: column 3 is a count in both).
differ() {
	awk -F '\t' 'FNR == 1 { f++ }
		f == 1 { want[$1 " " $2] = $3; next }
		($1 == "hist" || $1 == "counter") && ($1 " " $2) in want {
			k = $1 " " $2; seen[k] = 1
			if ($3 != want[k]) o = o (o ? "; " : "") k " " $3 ", want " want[k] }
		END { for (k in want) if (!(k in seen)) o = o (o ? "; " : "") k " missing"; printf "%s", o }' "$1" "$2"
}
# add A B: the sum of two expect tables, into stdout
add() {
	awk -F '\t' -v OFS='\t' '{ k = $1 OFS $2; if (!(k in s)) o[++n] = k; s[k] += $3 }
		END { for (i = 1; i <= n; i++) print o[i], s[o[i]] }' "$1" "$2"
}

# mem: "slab_kb sunreclaim_kb vmalloc_kb percpu_kb percpu_allocs percpu_used", at rest:
# the reclaimable caches dropped, every slab cache shrunk, then read; percpu_used is
# the per-CPU allocator's bytes in use a unit, but for a constant (each chunk's units
# less their free bytes: the first chunk's static part is in every reading)
mem() {
	echo 2 >/proc/sys/vm/drop_caches
	for s in /sys/kernel/slab/*/shrink; do echo 1 >"$s" 2>/dev/null; done
	awk 'FILENAME ~ /meminfo/ { v[$1] = $2; next }
		$2 != ":" { next }
		$1 == "unit_size" { u = $3 }
		$1 == "nr_cur_alloc" { a = $3 }
		$1 == "nr_chunks" { c = $3 }
		$1 == "free_bytes" { fb += $3 }
		END { print v["Slab:"] + 0, v["SUnreclaim:"] + 0, v["VmallocUsed:"] + 0, v["Percpu:"] + 0, a + 0, c * u - fb }' \
		/proc/meminfo $P
}

# QEMU's root (tests/soak/tier.sh gives the guest the VMM's root as its disk)
R=/vmm W=/tmp/soak-qemu
mkdir -p $W
disk_root $R || bail_out "the VMM's root: $DISK_WHY"
QEMU="chroot $R qemu-system-x86_64" QCOMM=qemu-system-x86
echo "# VMM: $($QEMU --version | head -n 1)"

# the waves' truth from tracefs: the NX task's starts (first_run_setup) and the
# irqbypass consumers KVM registers
tracefs || bail_out "tracefs"
kp_clear
echo 1 >"$TR/options/record-tgid" 2>/dev/null
echo 4096 >"$TR/buffer_size_kb"
echo 1 >"$TR/tracing_on"
kernel_has
[ -z "$(first_run_fn)" ] || first_run_probe || not_ok "tracefs events on $(first_run_fn)"
kp kct_reg irq_bypass_register_consumer || not_ok "tracefs event on irq_bypass_register_consumer"
fr_truth() {
	case $(first_run_fn) in
	kvm_mmu_post_init_vm) nx_starts ;;
	'') echo 0 ;;
	*) tcount kct_first ;;
	esac
}

check "kmemleak is on" [ -w $KMEMLEAK ]
check "kmemleak: what it suspects from boot forgotten" kmemleak_forget
if ! insmod "$KVMCHURN_KO"; then bail_out "insmod kvmchurn.ko"; fi
pervm >/tmp/soak.pervm
modmem() { awk '{ printf "%s%s=%s", n++ ? " " : "", $1, $2 }' "$D/memory"; }
MODMEM=$(modmem)
echo "# soak: $SOAK_VMS VMs in $WAVES waves of $SOAK_WAVE ($LOAD) and a QEMU in two waves of four, a checkpoint every $EVERY waves after $SOAK_WARMUP of warm-up; $(grep -c '^processor' /proc/cpuinfo) CPUs; module memory: $MODMEM"
echo "# bounds over the baseline: slab $SLAB_KB KiB, vmalloc $VMALLOC_KB KiB, per-CPU $PCPU_ALLOCS allocations and $PCPU_BYTES bytes a unit"

T0=$(now) vms=0 counted=0 w=0 base='' ck=0 qemus=0
: >/tmp/soak.since # the counts since the last reset, as expect's lines
while [ $w -lt $WAVES ]; do
	w=$((w + 1))
	n=$((SOAK_VMS - vms))
	[ $n -le "$SOAK_WAVE" ] || n=$SOAK_WAVE
	nk=$((n / 3)) nt=$((n / 3))
	ne=$((n - nk - nt))
	# the filter: firecracker, soakvm (the VMs named so), nosuchvmm (none traced); with
	# QEMU's name in two of four, whose QEMU ends by kill, term and quit in turn
	case $((w % 4)) in
	1) filter=firecracker,$QCOMM comm=firecracker nq=1 ;;
	2) filter=soakvm,$QCOMM comm=soakvm nq=1 ;;
	3) filter=nosuchvmm comm=firecracker nq=0 ;;
	*) filter=firecracker comm=firecracker nq=0 ;;
	esac
	case $((qemus % 3)) in 0) qend='kill' qk=1 qt=0 ;; 1) qend='term' qk=0 qt=1 ;; *) qend='quit' qk=0 qt=0 ;; esac
	echo "$filter" >"$D/filter" || not_ok "wave $w: write the filter $filter"
	if [ $((w % 5)) = 0 ]; then
		echo 1 >"$D/reset" || not_ok "wave $w: write reset"
		: >/tmp/soak.since
		z=$(awk -F '\t' '($1 == "hist" || $1 == "counter") && $3 != 0 { printf "%s %s=%s ", $1, $2, $3 }' "$D/raw")
		is "wave $w: reset: every count 0" "${z:-all 0}" "all 0"
	fi
	label="wave $w (filter $filter, $nk kill, $nt term, $ne exit as $comm)"
	[ $nq = 0 ] || label="$label and a QEMU, $qend"
	echo >"$TR/trace"
	[ "$filter" != nosuchvmm ] || fence_arm "$comm" || not_ok "$label: the fence"
	cp "$D/raw" /tmp/soak.raw0
	bad='' walls=''
	for e in kill:$nk term:$nt exit:$ne; do
		[ "${e#*:}" != 0 ] || continue
		# shellcheck disable=SC2086 # LOAD holds several options
		kvmchurn load -n "${e#*:}" $LOAD --end "${e%:*}" --comm "$comm" >/tmp/soak.load 2>&1 ||
			bad="$bad ${e%:*}: exit $? ($(grep 'VMs:' /tmp/soak.load))"
		walls="$walls${walls:+ + }$(awk '$1 == "wall:" { print $2 }' /tmp/soak.load)"
	done
	is "$label: the loads" "${bad:-all completed}" "all completed"
	if [ $nq = 1 ]; then
		[ $qend = kill ] && want=137 || want=0
		is "$label: QEMU's exit status" "$(qemu_vm $qend)" "$want"
		[ -s $W/qemu.err ] && sed 's/^/# qemu: /' $W/qemu.err
		qemus=$((qemus + 1))
	fi
	if [ "$filter" = nosuchvmm ]; then
		check "$label: its $n VMs freed (tracefs)" fence_wait "$n"
		expect 0 0 0 0 0 0 0 >/tmp/soak.want
	else
		settle /tmp/soak.raw0 $((n + nq)) || not_ok "$label: reap counter did not settle at +$((n + nq))"
		expect "$n" "$nk" "$nt" "$(fr_truth)" "$(tcount kct_reg)" $IRQFDS 1 >/tmp/soak.want
		if [ $nq = 1 ]; then
			expect 1 $qk $qt 0 0 0 0 >/tmp/soak.qemu
			add /tmp/soak.want /tmp/soak.qemu >/tmp/soak.sum
			mv /tmp/soak.sum /tmp/soak.want
		fi
		counted=$((counted + n + nq))
	fi
	cp "$D/raw" /tmp/soak.raw1
	deltas /tmp/soak.raw0 /tmp/soak.raw1 >"$KC_DELTA"
	bad=$(differ /tmp/soak.want "$KC_DELTA")
	is "$label: every count moved by exactly its VMs" "${bad:-exact}" exact
	add /tmp/soak.since /tmp/soak.want >/tmp/soak.sum
	mv /tmp/soak.sum /tmp/soak.since
	vms=$((vms + n))
	miss=$(awk -F '\t' '$1 == "probe" && $7 != 0 { printf "%s/%s=%s ", $2, $4, $7 }' /tmp/soak.raw1)
	drops=$(raw_field pairs - 4 /tmp/soak.raw1)
	is "$label: kretprobe misses and pairing drops" "${miss:-0} $drops" "0 0"
	wait_for "$KC_WAIT" at_rest || not_ok "$label: at rest: $(vms_alive) VMs, $(raw_field pairs - 3) pairing entries"
	echo "# wave $w: $vms VMs and $qemus QEMUs ($counted counted) in $(($(now) - T0)) s; its loads' wall: $walls s"

	# a checkpoint: after the warm-up (the baseline), every EVERY waves, the last
	[ $w -ge "$SOAK_WARMUP" ] || continue
	[ $w = "$SOAK_WARMUP" ] || [ $w = "$WAVES" ] || [ $(((w - SOAK_WARMUP) % EVERY)) = 0 ] || continue
	ck=$((ck + 1))
	c="checkpoint $ck (wave $w, $vms VMs, $qemus QEMUs)"
	wait_for "$KC_WAIT" at_rest
	cp "$D/raw" /tmp/soak.raw
	bad=$(differ /tmp/soak.since /tmp/soak.raw)
	is "$c: the counts since the last reset are the waves' sums" "${bad:-exact}" exact
	miss=$(awk -F '\t' '$1 == "probe" && $7 != 0 { printf "%s/%s=%s ", $2, $4, $7 }' /tmp/soak.raw)
	# pairs: capacity, in use, dropped, aged out, not reaped
	pairs=$(awk -F '\t' '$1 == "pairs" { print $3, $4, $5, $6 }' /tmp/soak.raw)
	is "$c: kretprobe misses" "${miss:-0}" 0
	is "$c: the pairing table: in use, dropped, aged out, exits not reaped" "$pairs" "0 0 0 0"
	# vms' stats: finished, no longer in the last, evicted while live, live
	since=$(awk -F '\t' '$1 == "counter" && $2 == "reap" { print $3 }' /tmp/soak.since)
	stats=$(awk -F '\t' '$1 == "stats" { print $2, $4, $5 }' "$D/vms")
	is "$c: VM records: finished (the VMs counted since the reset), evicted, live" "$stats" "$since 0 0"
	is "$c: the module's memory" "$(modmem)" "$MODMEM"
	# shellcheck disable=SC2046 # six numbers
	set -- $(mem)
	if [ -z "$base" ]; then
		base="$*"
		ok "$c: the memory baseline: slab $1 KiB (unreclaimable $2), vmalloc $3 KiB, per-CPU $4 KiB ($5 allocations, $6 bytes a unit in use)"
		dslab=0 dvm=0 dpk=0 dpa=0 dpb=0
	else
		# shellcheck disable=SC2086 # six numbers
		set -- "$@" $base
		dslab=$(($1 - $7)) dvm=$(($3 - $9)) dpk=$(($4 - ${10})) dpa=$(($5 - ${11})) dpb=$(($6 - ${12}))
		check "$c: slab $1 KiB, $dslab over the baseline (at most $SLAB_KB)" [ $dslab -le $SLAB_KB ]
		check "$c: vmalloc $3 KiB, $dvm over the baseline (at most $VMALLOC_KB)" [ $dvm -le $VMALLOC_KB ]
		check "$c: per-CPU: $5 allocations, $dpa over the baseline (at most $PCPU_ALLOCS)" [ $dpa -le $PCPU_ALLOCS ]
		check "$c: per-CPU: $dpb bytes a unit more in use than the baseline (at most $PCPU_BYTES)" [ $dpb -le $PCPU_BYTES ]
		[ $dslab -ge 0 ] || base="$1 ${base#* }"
	fi
	# the last wave's objects older than 5 s
	[ $w != "$WAVES" ] || sleep 6
	leaks=$(kmemleak_suspects /tmp/soak.leaks)
	is "$c: kmemleak: objects suspected" "$leaks" 0
	head -n 40 /tmp/soak.leaks | sed 's/^/# /'
	reports=$(dmesg | grep -c 'kmemleak:.*suspected')
	is "$c: kernel log: kmemleak reports" "$reports" 0
	secs=$(($(now) - T0))
	echo "# soak-checkpoint $ck wave=$w vms=$vms qemus=$qemus counted=$counted since_reset=$since secs=$secs" \
		"slab_kb=$1 sunreclaim_kb=$2 vmalloc_kb=$3 percpu_kb=$4 percpu_allocs=$5 percpu_used=$6" \
		"d_slab_kb=$dslab d_vmalloc_kb=$dvm d_percpu_kb=$dpk d_percpu_allocs=$dpa d_percpu_bytes=$dpb" \
		"misses=${miss:-0} pairs=$(echo "$pairs" | tr ' ' /) vms_stats=$(echo "$stats" | tr ' ' /) leaks=$leaks"
done
kp_clear
check "rmmod kvmchurn" rmmod kvmchurn
echo "# soak: $vms VMs ($counted counted) in $(($(now) - T0)) s"
exit 0

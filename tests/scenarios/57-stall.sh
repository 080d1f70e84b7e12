#!/bin/sh
# shellcheck disable=SC2016 # the single-quoted programs are awk's, given to check
# 57-stall: teardowns held for real, and kvmchurn's live view of them. The tests'
# stall module (tests/stall) holds the teardowns of chosen VMMs (guest/kvmhold.c, a VM
# each, traced): each waits in exit_mmap(), in its MMU notifier's release, inside the
# MMU notifiers' global SRCU read section, until release. Meanwhile every other VM's
# destroy waits in mmu_notifier_unregister()'s synchronize_srcu(): VMMs of kvmchurn
# load that close their fds pile up behind the held readers, while VMs are still made,
# as in the incident that asked for stall detection. kvmchurn (stall_ms=$STALL) must
# show both, a cause each, in vms --live, the checks file, check (exit 1, the stacks)
# and export, with ages that grow, while readers hammer its views; after the release
# every count is exact, the long samples are in their histograms and VM records, and
# the WARN is gone. Then the stall module's own bounds. Every wait is for an event.
# Busybox sh; leaves both modules unloaded.
# shellcheck source=../lib/guest/lib.sh
. /kvmchurn/lib.sh
S=/sys/kernel/debug/kvmchurn_stall
P=/sys/module/kvmchurn/parameters
N=8		# VMMs held at once, and VMMs of the load behind them
STALL=1500	# stall_ms=: above any stage of this guest's churn, TCG or not
W=/tmp/kc-stall

insmod /kvmchurn/kvmchurn_stall.ko || bail_out "insmod kvmchurn_stall.ko"
insmod "$KVMCHURN_KO" filter=kvmhold,firecracker stall_ms=$STALL ||
	bail_out "insmod kvmchurn.ko filter=kvmhold,firecracker stall_ms=$STALL"
is "filter" "$(cat "$D/filter")" "kvmhold firecracker"
mkdir -p $W

# bad writes change nothing: a pid that is not there, no pid, a kernel thread (no mm)
refused() { # refused FILE VALUE WHY: the write fails
	if printf '%s' "$2" >"$1" 2>/dev/null; then not_ok "$1 $3 refused"; else ok "$1 $3 refused"; fi
}
refused $S/hold 999999 "of a pid that is not there"
refused $S/hold abc "of no number"
refused $S/hold 0 "of pid 0"
refused $S/hold 2 "of a kernel thread (kthreadd)"
refused $S/release 2 "of 2"
is "nothing waits" "$(cat $S/waiting)" 0
refused $P/stall_ms 0 "of 0"
refused $P/stall_ms 86400001 "past a day"
refused $P/stall_ms 1s "of no number"
is "stall_ms after refused writes" "$(cat $P/stall_ms)" $STALL

# live_n COMM STAGE MIN: live VMs of COMM whose stage, innermost, is STAGE ("-": none),
# MIN us or longer (the unit is us)
live_n() {
	awk -F '\t' -v c="$1" -v s="$2" -v min="$3" '
		$1 == "live" && $3 == c { n = split($6, st, ">"); if (st[n] == s && $9 >= min) k++ }
		END { print k + 0 }' "$D/vms"
}
stalled_is() { [ "$(live_n "$1" "$2" $((STALL * 1000)))" = "$3" ]; }
# age_of TGID: its live record's age; older_than TGID AGE
age_of() { awk -F '\t' -v t="$1" '$1 == "live" && $2 == t { print $9 }' "$D/vms"; }
older_than() { [ "$(age_of "$1")" -gt "$2" ]; }
# stack_has GROUP FRAME: the stack under check's WARN line of GROUP holds FRAME
stack_has() {
	awk -v g="$1" -v f="$2" '
		/^WARN/ { in_g = index($0, " VMs in " g " ") || index($0, " VM in " g " ") }
		in_g && /^       / && index($0, f) { found = 1 }
		END { exit !found }' $W/check
}

# Readers hammer the views from now to the end: none may stall a probe (every count
# below is exact, nmissed 0) or be stalled by one.
hammer() {
	h=0
	while [ ! -e $W/stop ]; do
		cat "$D/vms" "$D/checks" >/dev/null || break
		kvmchurn vms --live >/dev/null 2>&1
		h=$((h + 1))
	done
	echo $h >"$W/hammered.$1"
}
hammer 1 &
hp1=$!
hammer 2 &
hp2=$!

# N + 1 VMMs, each with its VM: the first N held, the last one not
raw0=$(raw_field hist kvm_create_vm 3)
i=0
while [ $i -le $N ]; do
	/kvmchurn/bin/kvmhold $W/ready.$i &
	echo $! >$W/pid.$i
	i=$((i + 1))
done
all_ready() {
	n=0
	for f in "$W"/ready.*; do [ -e "$f" ] && n=$((n + 1)); done
	[ $n = $((N + 1)) ]
}
wait_for "$KC_WAIT" all_ready || bail_out "$((N + 1)) kvmholds ready"
held=''
i=0
while [ $i -lt $N ]; do
	held="$held $(cat $W/pid.$i)"
	i=$((i + 1))
done
free=$(cat $W/pid.$N)
for p in $held; do
	echo "$p" >$S/hold || not_ok "hold $p"
done
ok "$N VMMs held:$held"

# The load's VMMs will wait in D state, on purpose, longer than a slow guest's
# hung-task timeout may be: the kernel's watchdog is not under test.
hto=/proc/sys/kernel/hung_task_timeout_secs
[ -w $hto ] && { hto_was=$(cat $hto); echo 0 >$hto; }

# the held ones end: each waits in its release, in exit_mmap()
for p in $held; do kill -TERM "$p"; done
waiting_n() { [ "$(cat $S/waiting)" = "$1" ]; }
if wait_for "$KC_WAIT" waiting_n $N; then ok "all $N wait in their release"; else not_ok "waiting: $(cat $S/waiting), want $N"; fi

# detection: in the first read where they are stall_ms in exit_mmap, every view says so
if wait_for "$KC_WAIT" stalled_is kvmhold exit_mmap $N; then
	ok "vms: $N kvmholds in exit_mmap for stall_ms or longer"
else
	not_ok "vms: $(live_n kvmhold exit_mmap $((STALL * 1000))) kvmholds stalled in exit_mmap, want $N"
	awk -F '\t' '$1 == "live"' "$D/vms" | sed 's/^/# /'
fi
kvmchurn vms --live >$W/live
sed 's/^/# /' $W/live
is "vms --live: kvmholds STALLED in exit_mmap" "$(grep -c ' kvmhold .* STALLED exit_mmap$' $W/live)" $N
kvmchurn check >$W/check
is "check exits 1 in a stall" $? 1
sed 's/^/# /' $W/check
check "check: WARN $N VMs in exit_mmap" grep -q "^WARN stalls: $N VMs in exit_mmap for stall_ms=$STALL or longer, the oldest for " $W/check
cat "$D/checks" >$W/checks
check "checks: WARN $N VMs in exit_mmap" grep -q "^WARN stalls: $N VMs in exit_mmap for stall_ms=$STALL or longer" $W/checks
if kc_kernel_from 6 7; then
	check "check: the held task's stack is in exit_mmap()" stack_has exit_mmap exit_mmap
	check "checks: the module took the held task's stack" sh -c "grep -A 20 '^WARN stalls: $N VMs in exit_mmap' $W/checks | grep -q '^       exit_mmap+'"
else
	for f in $W/check $W/checks; do
		check "${f##*/}: before 6.7 the stack is /proc's" grep -q '^     stack of task [0-9]*: /proc/[0-9]*/stack has it' "$f"
	done
fi
kvmchurn export >$W/prom
check "export: kvmchurn_stalled_vms $N" grep -q "^kvmchurn_stalled_vms $N\$" $W/prom
check "export: the oldest in exit_mmap past stall_ms" awk -v min="$STALL" '
	/^kvmchurn_inflight_oldest_seconds\{stage="exit_mmap"\} / { if ($2 * 1000 >= min) f = 1 }
	END { exit !f }' $W/prom
p=${held# }
p=${p%% *}
a1=$(age_of "$p")
if wait_for "$KC_WAIT" older_than "$p" "$a1"; then ok "the stall's age grows: $a1 us, then $(age_of "$p")"; else not_ok "the age of $p stays $a1"; fi
# the one not held is in its start-up, its VMM's own time: no stage, never a stall
check "the VMM not held: its start-up, nothing in flight, not stalled" awk -F '\t' -v t="$free" '
	$1 == "live" && $2 == t { print; if ($5 == "startup" && $6 == "-" && $9 == 0) f = 1 }
	END { exit !f }' "$D/vms"

# VMs are still made while the readers are held, and their teardowns pile up: the
# load's VMMs close their fds, and each VM's destroy waits in mmu_notifier_unregister()
raw1=$(raw_field hist kvm_create_vm 3)
kvmchurn load -n $N -j $N --vcpus 1 --mem 16 --end close --timeout 3600 >$W/load.out 2>&1 &
lp=$!
if wait_for "$KC_WAIT" stalled_is firecracker mmu_notifier_unregister $N; then
	ok "vms: $N VMs of the load in mmu_notifier_unregister for stall_ms or longer"
else
	not_ok "vms: $(live_n firecracker mmu_notifier_unregister $((STALL * 1000))) stalled in mmu_notifier_unregister, want $N"
	awk -F '\t' '$1 == "live"' "$D/vms" | sed 's/^/# /'
fi
is "VMs made during the hold" $(($(raw_field hist kvm_create_vm 3) - raw1)) $N
kvmchurn check >$W/check
is "check exits 1" $? 1
sed 's/^/# /' $W/check
check "check: WARN $N VMs in mmu_notifier_unregister, one cause" grep -q "^WARN stalls: $N VMs in mmu_notifier_unregister for stall_ms=$STALL or longer" $W/check
check "check: still WARN $N VMs in exit_mmap" grep -q "^WARN stalls: $N VMs in exit_mmap " $W/check
if kc_kernel_from 6 7; then
	check "check: the waiting destroy's stack is in synchronize_srcu()" stack_has mmu_notifier_unregister synchronize_srcu
fi
# kvm_destroy_vm is inlined in some kernels (the debug one): then its probe is absent
destroy=$(state kvm_destroy_vm)
if [ "$destroy" = attached ]; then nested=' kvm_destroy_vm > mmu_notifier_unregister for '; else nested=': kvm_vm_release > mmu_notifier_unregister for '; fi
check "check: the waiting destroy's stage, nested (kvm_destroy_vm $destroy)" grep -q "$nested" $W/check
cat "$D/checks" >$W/checks
check "checks: WARN $N VMs in mmu_notifier_unregister" grep -q "^WARN stalls: $N VMs in mmu_notifier_unregister " $W/checks
kvmchurn export >$W/prom
check "export: kvmchurn_stalled_vms $((2 * N))" grep -q "^kvmchurn_stalled_vms $((2 * N))\$" $W/prom
check "export: both stages' oldest" sh -c "grep -q '^kvmchurn_inflight_oldest_seconds{stage=\"exit_mmap\"} ' $W/prom &&
	grep -q '^kvmchurn_inflight_oldest_seconds{stage=\"mmu_notifier_unregister\"} ' $W/prom"
grep '^kvmchurn_\(stalled\|inflight\|live\|stall_\)' $W/prom | sed 's/^/# /'
kvmchurn watch -i 0.5 -c 1 >$W/watch
check "watch shows both stalls" sh -c "grep -q '^WARN stalls: $N VMs in exit_mmap ' $W/watch && grep -q '^WARN stalls: $N VMs in mmu_notifier_unregister ' $W/watch"
# the module's files during the stall, back to the host: tests/fixtures/ID-stall
for f in all summary counters probes checks raw memory vms filter enable $(cd "$D" && echo hist/*); do
	kvmchurn-put "stall/$f" "$D/$f" || not_ok "hand back $f"
done
alive=0
for p in $held $free; do kill -0 "$p" 2>/dev/null && alive=$((alive + 1)); done
is "VMMs still there before the release" $alive $((N + 1))

# recovery: the release ends every one of them, as a VMM that exits ends
check "release" sh -c "echo 1 >$S/release"
rcs=''
for p in $held; do
	wait "$p"
	rcs="$rcs $?"
done
wait $lp
lrc=$?
kill -TERM "$free"
wait "$free"
rcs="$rcs $?"
zeros=''
for p in $held $free; do zeros="$zeros 0"; done
is "the kvmholds' exit statuses" "${rcs# }" "${zeros# }"
is "the load's exit status" $lrc 0
[ $lrc = 0 ] || sed 's/^/# /' $W/load.out
[ -n "${hto_was:-}" ] && echo "$hto_was" >$hto
is "nothing waits after the release" "$(cat $S/waiting)" 0
all=$((2 * N + 1))
wait_for "$KC_WAIT" counter_is reap "$all" || not_ok "reaps: $(raw_field counter reap 3), want $all"
is "VMs made" $(($(raw_field hist kvm_create_vm 3) - raw0)) $all
for m in exit_mmap kvm_destroy_vm mmu_notifier_unregister exit_to_reap; do
	want=$all
	[ $m != kvm_destroy_vm ] || [ "$destroy" = attached ] || want=0
	is "$m: one a VM" "$(raw_field hist $m 3)" $want
done
is "exits" "$(raw_field counter exit 3)" $all
check "exit_mmap's longest sample is the hold" test "$(raw_field hist exit_mmap 5)" -ge $((STALL * 1000))
check "mmu_notifier_unregister's longest is the wait" test "$(raw_field hist mmu_notifier_unregister 5)" -ge $((STALL * 1000))
check "a kvmhold's VM record has its long exit_mmap" awk -F '\t' -v min=$((STALL * 1000)) '
	$1 == "fields" { for (i = 1; i <= NF; i++) if ($i == "exit_mmap") c = i }
	$1 == "vm" && $4 == "kvmhold" { split($c, v, ":"); if (v[2] >= min) f = 1 }
	END { exit !f }' "$D/vms"
kvmchurn check >$W/check
is "check exits 0 after the release" $? 0
sed 's/^/# /' $W/check
check "check: no stall" grep -q '^OK   stalls: none of 0 live VMs ' $W/check
check "checks: no stall" grep -q '^OK   stalls: none of 0 live VMs ' "$D/checks"
check "checks: nmissed = 0" grep -q '^OK   nmissed = 0' "$D/checks"
kvmchurn export >$W/prom
check "export: kvmchurn_stalled_vms 0, none in flight" sh -c "grep -q '^kvmchurn_stalled_vms 0\$' $W/prom && ! grep -q '^kvmchurn_inflight_oldest_seconds{' $W/prom"

: >$W/stop
wait $hp1
wait $hp2
check "the readers read all along" test "$(cat $W/hammered.1)" -gt 0 -a "$(cat $W/hammered.2)" -gt 0
echo "# reads of vms and checks: $(cat $W/hammered.1) and $(cat $W/hammered.2)"
check "rmmod kvmchurn" rmmod kvmchurn

# the stall module's bound: 64 holds a load (the N above count), the 65th refused (a
# process alive meanwhile, held over and over; released before it ends). It is held once
# its exec is done (its ready file): a hold of the mm an exec is dropping would make the
# writer put it last, and wait at the closed gate itself.
/kvmchurn/bin/kvmhold $W/ready.bound &
sl=$!
bound_ready() { [ -e $W/ready.bound ]; }
wait_for "$KC_WAIT" bound_ready || bail_out "a kvmhold ready for the bound"
n=$N
while [ $n -lt 64 ] && echo $sl >$S/hold; do n=$((n + 1)); done
is "holds taken up to the bound" $n 64
refused $S/hold $sl "past 64"
check "release" sh -c "echo 1 >$S/release"
kill "$sl"
wait "$sl"
check "rmmod kvmchurn_stall" rmmod kvmchurn_stall
rm -rf $W
tap_done

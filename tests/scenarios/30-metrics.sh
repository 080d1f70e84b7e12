#!/bin/sh
# shellcheck disable=SC2086 # $LOAD and $OTHER hold several options
# 30-metrics: every metric and counter of the module, exact, for each way a VM
# can end (and a pool's SIGTERM, then SIGKILL). For each --end mode, `kvmchurn load -n N -j 4 --vcpus 2 --irqfds 8`
# --run (each vCPU runs once) and the deltas of two raw snapshots, compared
# with what the load did and with
# the true number of calls, counted in the same run by tracefs kprobe events
# on the same kernel functions. Then the filter: another comm adds nothing,
# '*' and a list of names count it. Busybox sh; leaves the module unloaded.
# shellcheck source=../lib/guest/lib.sh
. /kvmchurn/lib.sh
# N: 40, or what the tier asks (20 at make check's core depth; the debug kernel's
# 4: the same paths, exact all the same, where KASAN and lockdep make each VM ten
# times as slow)
N=${KVMCHURN_METRICS_VMS:-40}
VCPUS=2
IRQFDS=8
LOAD="-n $N -j 4 --vcpus $VCPUS --irqfds $IRQFDS --mem 16 --run"

ge() { # ge DESCRIPTION GOT MIN: GOT is a number >= MIN
	case $2 in
	'' | *[!0-9]*) not_ok "$1: $2, want >= $3" ;;
	*) if [ "$2" -ge "$3" ]; then ok "$1: $2 (>= $3)"; else not_ok "$1: $2, want >= $3"; fi ;;
	esac
}

# ttgids NAME: distinct thread groups (processes) that hit kct/NAME.
ttgids() {
	awk -v e=" $1: " 'index($0, e) && match($0, /\( *[0-9]+\)/) {
			t = substr($0, RSTART + 1, RLENGTH - 2); gsub(/ /, "", t); s[t] = 1 }
		END { n = 0; for (t in s) n++; print n }' "$TR/trace"
}
# A VM process's threads: the leader and its vCPUs; for exit_mmap also, from
# x86 6.12 once a vCPU ran, KVM's NX huge page recovery task, a thread of the
# VMM (vhost_task) that can be the last to drop the mm (on 5.10 and 6.1 it is
# a kthread of its own, with no mm, that the VMM's filter must not count).
VMCOMM='comm == "firecracker" || comm ~ "fc_vcpu*"'
VMMM="$VMCOMM"' || comm ~ "kvm-nx-lpage*"'

# uev_start / uev_stop: KVM's uevents as user space receives them, counted by
# guest/uevents.c (tracefs cannot probe kobject_uevent_env, a notrace
# function); uev create|destroy reads the count.
uev_start() {
	rm -f /tmp/kc.uev /tmp/kc.uev.ready
	/kvmchurn/bin/uevents /tmp/kc.uev &
	UEV=$!
	wait_for "$KC_WAIT" uev_up || not_ok "uevents listener ready"
	[ -e /tmp/kc.uev.ready ] || not_ok "uevents listener ready (it exited)"
}
# uev_up: the listener is ready, or gone (an error: no use waiting longer)
uev_up() { [ -e /tmp/kc.uev.ready ] || ! kill -0 "$UEV" 2>/dev/null; }
uev_stop() {
	kill -TERM "$UEV" 2>/dev/null	# gone already without netlink
	wait "$UEV" || not_ok "uevents listener: exit $?"
}
uev() { awk -v k="$1" '$1 == k { print $2; f = 1 } END { if (!f) print "none" }' /tmp/kc.uev 2>/dev/null; }

# vms_want SIGNALLED REGISTERS FIRST_RUNS: sets want, "METRIC=TIMES " a VM in this mode, for vms_check
vms_want() {
	want=""
	for m in $(kvmchurn show --list | cut -f1); do
		case $m in
		vcpu_create) c=$VCPUS ;;
		irqbypass_unregister) c=$IRQFDS ;;
		irqbypass_register) c=$2 ;;
		first_run_setup) c=$3 ;;
		signal_to_exit) c=$1 ;;
		reclaim_direct | reclaim_memcg) c=0 ;;
		*) c=$(per_vm "$m") ;;
		esac
		want="$want$m=$c "
	done
}

# vms_wrong PIDS WANT: what vms and the raw snapshots disagree on, one a line, for vms_check
vms_wrong() {
	awk -F '\t' -v pids="$1" -v want="$2" '
		function slot(v,   p, t) {
			if (v < 4) return v
			p = 0; t = v
			while (t >= 2) { t = int(t / 2); p++ }
			return 4 + 4 * (p - 2) + int(v / 2 ^ (p - 2)) % 4
		}
		BEGIN {
			n = split(pids, pl, " "); for (i = 1; i <= n; i++) mine[pl[i]] = 1
			k = split(want, wl, " ")
			for (i = 1; i <= k; i++) { split(wl[i], kv, "="); wc[kv[1]] = kv[2] }
		}
		FILENAME == ARGV[1] && $1 == "fields" { for (i = 6; i <= NF; i++) col[i] = $i; next }
		FILENAME == ARGV[1] && $1 == "vm" && $2 == "last" && ($3 in mine) {
			seen[$3]++
			for (i = 6; i <= NF; i++) {
				m = col[i]
				if ($i == "-") c = 0; else { split($i, cs, ":"); c = cs[1]; s = cs[2] }
				if (c != wc[m]) print "pid " $3 ": " m " " (c ? c " times" : "absent") ", want " (wc[m] ? wc[m] " times" : "absent")
				if (!c) continue
				cnt[m] += c; sum[m] += s
				if (c == 1) vslot[m, slot(s)]++
			}
			next
		}
		FILENAME != ARGV[1] && $1 == "hist" {
			f = (FILENAME == ARGV[2]) ? 0 : 1
			hc[f, $2] = $3; hs[f, $2] = $4
			ns = split($6, sl, ",")
			for (i = 1; i <= ns; i++) if (sl[i] != "-") { split(sl[i], q, ":"); hsl[f, $2, q[1]] = q[2] }
			if (f) metrics[$2] = 1
		}
		END {
			for (p in mine) if (seen[p] != 1) print "pid " p " is in vms " seen[p] + 0 " times, want once"
			for (m in metrics) {
				dc = hc[1, m] - hc[0, m]; ds = hs[1, m] - hs[0, m]
				if (cnt[m] + 0 != dc) print m ": " cnt[m] + 0 " values in vms, the histogram " dc
				if (sum[m] + 0 != ds) print m ": sum " sum[m] + 0 " in vms, the histogram " ds
				if (cnt[m] != n || !(m in wc) || wc[m] != 1) continue
				for (j = 0; j < 252; j++)
					if (vslot[m, j] + 0 != hsl[1, m, j] - hsl[0, m, j])
						print m ": slot " j " holds " vslot[m, j] + 0 " VMs, the histogram " hsl[1, m, j] - hsl[0, m, j]
			}
		}' /tmp/kc.vms /tmp/kc.raw0 /tmp/kc.raw1
}

# vms_check LABEL SIGNALLED REGISTERS FIRST_RUNS: the vms file after a load of
# $N VMs. Each pid the load printed is there exactly once; each of its stages
# is there as the mode implies (signal_to_exit when SIGNALLED is 1, irqbypass
# register REGISTERS times, first_run_setup FIRST_RUNS times, those this kernel
# lacks never, reclaim never), with the count the load made; and each metric's
# values over these VMs are its histogram's delta: the same counts, the same
# sum, and each single value in the slot where its sample went.
vms_check() {
	cp "$D/vms" /tmp/kc.vms
	pids=$(awk '$1 == "pids:" { for (i = 2; i <= NF; i++) printf "%s ", $i }' /tmp/kc.load)
	is "$1: the load printed $N pids" "$(echo $pids | wc -w)" $N
	vms_want "$2" "$3" "$4"
	bad=$(vms_wrong "$pids" "$want")
	is "$1: vms: each VM once, its stages as the mode makes them, the histograms' values" "${bad:-none wrong}" "none wrong"
	[ -z "$bad" ] || echo "$bad" | head -n 20 | sed 's/^/# /'
}

# uev_metrics LABEL VMS: uevent_create and _destroy are the VMS VMs' uevents.
uev_metrics() {
	if [ "$(uev create)" = - ]; then
		echo "# $1: no netlink in this kernel (no CONFIG_NET): the uevents have no listener to count them"
		is "$1: uevent_create" "$(delta hist uevent_create)" "$2"
		is "$1: uevent_destroy" "$(delta hist uevent_destroy)" "$2"
		return
	fi
	is "$1: KVM's create uevents (netlink)" "$(uev create)" "$2"
	is "$1: uevent_create equals them" "$(delta hist uevent_create)" "$(uev create)"
	is "$1: KVM's destroy uevents (netlink)" "$(uev destroy)" "$2"
	is "$1: uevent_destroy equals them" "$(delta hist uevent_destroy)" "$(uev destroy)"
}

# vm_metric LABEL METRIC EVENT PER_VM VMS: METRIC counted PER_VM times a VM.
# With a tracefs event on the same function, the kernel's own count is the
# truth the module must equal; without one (symbol absent), the probe state
# decides: attached counts PER_VM * VMS, absent counts nothing.
vm_metric() {
	want=$(($4 * $5))
	st=$(state "$2")
	got=$(delta hist "$2")
	truth=$(tcount "$3")
	if [ "$truth" != - ]; then
		is "$1: kernel calls of $2's function (tracefs)" "$truth" "$want"
		is "$1: $2 equals the kernel's count" "$got" "$truth"
	elif [ "$st" = absent ]; then
		is "$1: $2 (absent) counts nothing" "$got" 0
	else
		is "$1: $2" "$got" "$want"
	fi
}

# mode_load LOAD-OPTIONS...: $label's load of $N VMs, reaped, its counts in $KC_DELTA for delta
mode_load() {
	echo >"$TR/trace"
	uev_start
	cp "$D/raw" /tmp/kc.raw0
	if kvmchurn load $LOAD "$@" >/tmp/kc.load 2>&1; then
		ok "$label: kvmchurn load $LOAD $*"
	else
		not_ok "$label: kvmchurn load $LOAD $*: exit $?"
		sed 's/^/# /' /tmp/kc.load
	fi
	grep -q "$N completed, 0 failed" /tmp/kc.load || not_ok "$label: load summary: $(grep VMs: /tmp/kc.load)"
	settle /tmp/kc.raw0 $N || not_ok "$label: reap counter did not settle at +$N"
	cp "$D/raw" /tmp/kc.raw1
	uev_stop
	deltas /tmp/kc.raw0 /tmp/kc.raw1 >"$KC_DELTA"
}

# mode_vm_metrics: the metrics a VM (or a vCPU, an irqfd) against the kernel's calls (tracefs)
mode_vm_metrics() {
	vm_metric "$label" kvm_create_vm kct_create 1 $N
	vm_metric "$label" exit_mmap kct_mmap 1 $N
	vm_metric "$label" kvm_vm_release kct_release 1 $N
	vm_metric "$label" kvm_destroy_vm kct_destroy 1 $N
	vm_metric "$label" kvm_destroy_vcpus kct_vcpus 1 $N
	vm_metric "$label" kvm_mmu_teardown kct_flush 1 $N
	vm_metric "$label" stage2_destroy kct_s2 1 $N
	vm_metric "$label" irqbypass_unregister kct_unreg $IRQFDS $N
	is "$label: counter irqbypass_unregister" "$(delta counter irqbypass_unregister)" $((IRQFDS * N))
	vm_metric "$label" vcpu_create kct_vcpu $VCPUS $N
	uev_metrics "$label" $N
	vm_metric "$label" mmu_notifier_unregister kct_mnu 1 $N
}

# mode_first_run: first_run_setup against the kernel's first KVM_RUNs; sets fr for vms_check
mode_first_run() {
	# first_run_setup: each vCPU's first KVM_RUN (arm64) or the VM's (x86),
	# of the kernel's calls: one a KVM_RUN, as each vCPU runs once
	fr=$(first_runs $VCPUS)
	if [ "$(first_run_fn)" = kvm_mmu_post_init_vm ]; then
		# the kernel's starts of the NX task, as the module times them: a
		# start that fails leaves it to the next KVM_RUN, timed again
		want=$(nx_starts)
		echo "# $label: kvm_mmu_post_init_vm failed $(grep -c ' kct_first_r: .* ret=-' "$TR/trace") times"
		is "$label: first_run_setup: the kernel's starts of the NX task, each timed (tracefs)" \
			"$(delta hist first_run_setup)" "$want"
		check "$label: first_run_setup at least once a VM: $want" [ "$want" -ge $((fr * N)) ]
	else
		is "$label: first_run_setup ($fr a VM)" "$(delta hist first_run_setup)" $((fr * N))
	fi
	if [ "$fr" != 0 ]; then
		is "$label: kernel calls of $(first_run_fn) (tracefs)" "$(tcount kct_first)" $((VCPUS * N))
	fi
}

# mode_irqbypass: irqbypass_register against the kernel's registrations; sets reg for vms_check
mode_irqbypass() {
	# register: only where the host can post interrupts; the kernel decides.
	reg=$(tcount kct_reg)
	case $reg in
	0)
		echo "# $label: irq_bypass_register_consumer was not called: this host does not post interrupts"
		ok "$label: kernel registered no irqbypass consumer (no posted interrupts)"
		;;
	-) not_ok "$label: no tracefs event on irq_bypass_register_consumer" ;;
	*) is "$label: kernel calls of irq_bypass_register_consumer (tracefs)" "$reg" $((IRQFDS * N)) ;;
	esac
	is "$label: irqbypass_register equals the kernel's count" "$(delta hist irqbypass_register)" "$reg"
	is "$label: counter irqbypass_register" "$(delta counter irqbypass_register)" "$reg"
}

# mode_exits: exit_files, exit and reap, and the teardown and start-up windows with their parts
mode_exits() {
	# exit_files: one a process, though every thread of a VM calls it (the
	# module keeps one call a process); tracefs shows the calls and callers.
	calls=$(tcount kct_files)
	procs=$(ttgids kct_files)
	echo "# $label: exit_files called $calls times by $procs VM processes"
	is "$label: processes that called exit_files (tracefs)" "$procs" $N
	is "$label: exit_files, one a process" "$(delta hist exit_files)" "$procs"

	is "$label: counter exit" "$(delta counter exit)" $N
	is "$label: counter reap" "$(delta counter reap)" $N
	is "$label: exit_to_reap" "$(delta hist exit_to_reap)" $N
	# the teardown, partitioned once a process (a VM a process here), and
	# the reap that its parent's wait returned on
	is "$label: exit_to_reaped" "$(delta hist exit_to_reaped)" $N
	for m in teardown $(kvmchurn show --list | awk -F '\t' '$2 == "teardown" && $1 != "teardown" { print $1 }'); do
		is "$label: $m, one a process" "$(delta hist $m)" $N
	done
	# and its parts' sums add up to the windows', exactly (the raw sums)
	is "$label: the parts' sums add up to the teardowns'" \
		"$(awk -F '\t' 'FNR == 1 { f++ } $1 == "hist" && $2 == "teardown" { w += f == 1 ? -$4 : $4 }
			$1 == "hist" && ($2 ~ /^td_/ || $2 == "reap_wait" || $2 == "rcu_free") { p += f == 1 ? -$4 : $4 }
			END { print p - w }' /tmp/kc.raw0 /tmp/kc.raw1)" 0
	# each VM ran: its start-up, partitioned once a VM, the same way
	for m in $(kvmchurn show --list | awk -F '\t' '$2 == "startup" { print $1 }'); do
		is "$label: $m, one a VM" "$(delta hist $m)" $N
	done
	is "$label: the start-up's parts' sums add up to the start-ups'" \
		"$(awk -F '\t' 'FNR == 1 { f++ } $1 == "hist" && $2 == "startup" { w += f == 1 ? -$4 : $4 }
			$1 == "hist" && $2 ~ /^st_/ { p += f == 1 ? -$4 : $4 }
			END { print p - w }' /tmp/kc.raw0 /tmp/kc.raw1)" 0
}

# mode_signals: the signal stages and counters, as the mode ends its VMs; sets sig for vms_check
mode_signals() {
	case $label in
	# grace: the SIGTERM a VM ignores is never delivered; the SIGKILL is
	kill | term-default | grace) sig=$N kill=$N term=0 ;;
	term) sig=$N kill=0 term=$N ;;
	*) sig=0 kill=0 term=0 ;;
	esac
	is "$label: signal_to_exit" "$(delta hist signal_to_exit)" $sig
	is "$label: counter sigkill" "$(delta counter sigkill)" $kill
	is "$label: counter sigterm" "$(delta counter sigterm)" $term
	is "$label: reclaim_direct (no pressure)" "$(delta hist reclaim_direct)" 0
	is "$label: reclaim_memcg (no pressure)" "$(delta hist reclaim_memcg)" 0
}

# mode_after: the vms file, kretprobe misses, the pairing table and checks after the load
mode_after() {
	vms_check "$label" $((sig / N)) $((reg / N)) "$fr"
	no_misses "$label: kretprobe misses"
	is "$label: pairing drops" "$(raw_field pairs - 4)" 0
	is "$label: pairing entries aged out" "$(raw_field pairs - 5)" 0
	is "$label: exits not reaped (raw's pairs)" "$(raw_field pairs - 6)" 0
	is "$label: kvmchurn check is the module's checks" "$(kvmchurn check)" "$(cat "$D/checks")"
	warn=$(grep -v -e '^OK ' -e '^INFO ' "$D/checks")
	if [ -z "$warn" ]; then ok "$label: checks has no WARN"; else not_ok "$label: checks: $warn"; fi
	grep '^INFO ' "$D/checks" | sed "s/^/# $label: /"
}

# one_mode LABEL LOAD-OPTIONS...: one load, every metric and counter checked.
one_mode() {
	label=$1
	shift
	mode_load "$@"
	mode_vm_metrics
	mode_first_run
	mode_irqbypass
	mode_exits
	mode_signals
	mode_after
}

n0=$(dmesg | wc -l)
if ! tracefs; then
	not_ok "tracefs is available"
	exit 0
fi
ok "tracefs at $TR"
kp_clear
echo 1 >"$TR/options/record-tgid" 2>/dev/null || not_ok "tracefs option record-tgid"
echo 8192 >"$TR/buffer_size_kb"
echo 1 >"$TR/tracing_on"

kernel_has

if insmod "$KVMCHURN_KO"; then ok "insmod kvmchurn.ko"; else bail_out "insmod kvmchurn.ko"; fi
for f in all summary counters probes checks raw; do
	is "mode of $f" "$(stat -c %a "$D/$f")" 444
done
for f in filter enable; do is "mode of $f" "$(stat -c %a "$D/$f")" 600; done
is "mode of reset" "$(stat -c %a "$D/reset")" 200
is "raw version" "$(head -n 1 "$D/raw")" "kvmchurn-raw 1"
# the metric table, as the client was built with it, is the module's
metrics=$(kvmchurn show --list | cut -f1 | tr '\n' ' ')
is "kvmchurn show --list is the module's metrics, in order" "$metrics" \
	"$(awk -F '\t' '$1 == "hist" { printf "%s ", $2 }' "$D/raw")"
unit=$(raw_field unit - 2)
for m in $metrics; do
	st=$(state $m)
	if [ "$st" = missing ]; then
		# a window or a part with no probe of its own: what it rests on
		# (KC_RESTS_ON) is attached, so its summary line has no note
		is "probe $m: none of its own, the summary notes nothing" \
			"$(awk -v m="$m" '$1 == m { print $NF }' "$D/summary")" "$unit"
	elif [ "$(per_vm $m)" = 1 ]; then
		is "probe $m" "$st" attached
	else
		is "probe $m (the kernel lacks its function)" "$st" absent
	fi
	[ "$(raw_field hist $m 3)" != missing ] || not_ok "raw has no hist record for $m"
	[ -r "$D/hist/$m" ] || not_ok "hist/$m is missing"
	grep -q "^$m " "$D/summary" || not_ok "summary has no line for $m"
done
for c in sigterm sigkill exit reap irqbypass_register irqbypass_unregister; do
	[ "$(raw_field counter $c 3)" != missing ] || not_ok "raw has no counter $c"
	grep -q "^$c [0-9]" "$D/counters" || not_ok "counters has no $c"
done

# The kernel's own counts. kvm_dev_ioctl is kept only for KVM_CREATE_VM (0xae01).
# shellcheck disable=SC2016 # $arg2 is tracefs syntax
kp kct_create 'kvm_dev_ioctl ioctl=$arg2:u32' 'ioctl == 44545' || not_ok "tracefs event on kvm_dev_ioctl"
kp kct_mmap exit_mmap "$VMMM" || not_ok "tracefs event on exit_mmap"
kp kct_files exit_files "$VMCOMM" || not_ok "tracefs event on exit_files"
kp kct_release kvm_vm_release || echo "# no tracefs event on kvm_vm_release"
kp kct_destroy kvm_destroy_vm || echo "# no tracefs event on kvm_destroy_vm"
kp kct_vcpus kvm_destroy_vcpus || echo "# no tracefs event on kvm_destroy_vcpus"
kp kct_flush kvm_arch_flush_shadow_all || echo "# no tracefs event on kvm_arch_flush_shadow_all"
s2=$(stage2_fn)
if [ -n "$s2" ]; then
	kp kct_s2 "$s2" || not_ok "tracefs event on $s2"
	is "probe stage2_destroy is on $s2" "$(attached_to stage2_destroy)" "$s2"
else
	echo "# no stage-2 teardown function on this kernel"
fi
kp kct_reg irq_bypass_register_consumer || not_ok "tracefs event on irq_bypass_register_consumer"
kp kct_unreg irq_bypass_unregister_consumer || not_ok "tracefs event on irq_bypass_unregister_consumer"
# shellcheck disable=SC2016 # tracefs syntax
kp kct_vcpu 'kvm_vm_ioctl ioctl=$arg2:u32' 'ioctl == 44609' || not_ok "tracefs event on kvm_vm_ioctl"
# What the seed's author found: tracefs (and so bpftrace) refuses the function
# the module's kretprobe is on.
if kp kct_uevent kobject_uevent_env; then
	echo "# tracefs can probe kobject_uevent_env on this kernel"
	echo "-:kct/kct_uevent" >>"$TR/kprobe_events"
else
	echo "# tracefs cannot probe kobject_uevent_env here: $(dmesg | grep -o 'Could not probe notrace function kobject_uevent_env' | tail -n 1)"
fi
is "uevent_create's probe (a kernel kretprobe) is attached" "$(state uevent_create)" attached
kp kct_mnu mmu_notifier_unregister || not_ok "tracefs event on mmu_notifier_unregister"
fn=$(first_run_fn)
echo "# first_run_setup: ${fn:-no function here}, $(first_runs $VCPUS) a VM of $VCPUS vCPUs"
if [ -n "$fn" ]; then
	first_run_probe || not_ok "tracefs events on $fn"
	is "first_run_setup's probe is on $fn" "$(attached_to first_run_setup)" "$fn"
fi

one_mode kill --end kill
one_mode term --end term
one_mode term-default --end term --term-default
one_mode exit --end exit
one_mode close --end close
# a pool's stop: SIGTERM, and SIGKILL a second later for VMs that ignore it
one_mode grace --end term --ignore-term --kill-after 1
is "grace: VMs the load SIGKILLed after the grace" "$(awk '$1 == "grace:" { print $2 }' /tmp/kc.load)" $N
echo "# ---- summary after $((6 * N)) VMs"
sed 's/^/# /' "$D/summary"
is "summary: column 8 is nmissed" "$(awk 'NR == 1 { print $8 }' "$D/summary")" nmissed
is "summary: nmissed 0 for every metric" "$(awk 'NR > 1 && $8 != "0" { print $1 "=" $8 }' "$D/summary")" ""
sed 's/^/# /' "$D/checks"

# Every histogram of raw is consistent: its slots add up to its count.
slots_whole "raw: every histogram's slots add up to its count"
is "all: @n_exit" "$(sed -n 's/^@n_exit: //p' "$D/all")" $((6 * N))

# ---- the filter -------------------------------------------------------------
OTHER="-n 10 -j 4 --vcpus $VCPUS --irqfds $IRQFDS --mem 16 --comm other"
echo >"$TR/trace"
cp "$D/raw" /tmp/kc.raw0
fence_arm other || not_ok "--comm other: a tracefs instance for the frees"
kvmchurn load $OTHER >/tmp/kc.load 2>&1 || not_ok "load --comm other: exit $?"
fence_wait 10 || not_ok "--comm other: the 10 VMs were freed"
cp "$D/raw" /tmp/kc.raw1
deltas /tmp/kc.raw0 /tmp/kc.raw1 >"$KC_DELTA"
moved=$(awk -F '\t' '$3 != 0 { printf "%s:%s=%s ", $1, $2, $3 }' "$KC_DELTA")
is "--comm other with filter firecracker: nothing counted" "${moved:-nothing}" nothing

# '*': every process counts, so the load's VMs count fully; the scenario's own
# commands (awk, sleep...) add exits, so those counters are lower bounds.
check "filter '*' accepted" sh -c "echo '*' >$D/filter"
is "filter reads back" "$(cat "$D/filter")" "*"
echo >"$TR/trace"
uev_start
cp "$D/raw" /tmp/kc.raw0
fence_arm other || not_ok "filter '*': a tracefs instance for the frees"
kvmchurn load $OTHER >/tmp/kc.load 2>&1 || not_ok "filter '*': load --comm other: exit $?"
fence_wait 10 || not_ok "filter '*': the 10 VMs were freed"
cp "$D/raw" /tmp/kc.raw1
uev_stop
deltas /tmp/kc.raw0 /tmp/kc.raw1 >"$KC_DELTA"
vm_metric "filter '*'" kvm_create_vm kct_create 1 10
vm_metric "filter '*'" kvm_vm_release kct_release 1 10
vm_metric "filter '*'" kvm_destroy_vm kct_destroy 1 10
vm_metric "filter '*'" kvm_destroy_vcpus kct_vcpus 1 10
vm_metric "filter '*'" kvm_mmu_teardown kct_flush 1 10
vm_metric "filter '*'" stage2_destroy kct_s2 1 10
vm_metric "filter '*'" irqbypass_unregister kct_unreg $IRQFDS 10
is "filter '*': irqbypass_register equals the kernel's count" "$(delta hist irqbypass_register)" "$(tcount kct_reg)"
vm_metric "filter '*'" vcpu_create kct_vcpu $VCPUS 10
uev_metrics "filter '*'" 10
vm_metric "filter '*'" mmu_notifier_unregister kct_mnu 1 10
ge "filter '*': exit_mmap" "$(delta hist exit_mmap)" 10
ge "filter '*': exit_files" "$(delta hist exit_files)" 10
ge "filter '*': counter exit" "$(delta counter exit)" 10
ge "filter '*': counter reap" "$(delta counter reap)" 10
ge "filter '*': counter sigkill" "$(delta counter sigkill)" 10
ge "filter '*': signal_to_exit" "$(delta hist signal_to_exit)" 10

# Several names: exactly the VMs named by one of them.
check "filter 'foo other' accepted" sh -c "echo 'foo other' >$D/filter"
is "filter reads back" "$(cat "$D/filter")" "foo other"
is "raw filter record" "$(raw_field filter - 2)" "foo other"
echo >"$TR/trace"
cp "$D/raw" /tmp/kc.raw0
kvmchurn load $OTHER >/tmp/kc.load 2>&1 || not_ok "filter 'foo other': load --comm other: exit $?"
settle /tmp/kc.raw0 10 || not_ok "filter 'foo other': reap did not settle at +10"
cp "$D/raw" /tmp/kc.raw1
deltas /tmp/kc.raw0 /tmp/kc.raw1 >"$KC_DELTA"
vm_metric "filter 'foo other'" kvm_create_vm kct_create 1 10
vm_metric "filter 'foo other'" irqbypass_unregister kct_unreg $IRQFDS 10
is "filter 'foo other': uevent_create" "$(delta hist uevent_create)" 10
is "filter 'foo other': uevent_destroy" "$(delta hist uevent_destroy)" 10
is "filter 'foo other': exit_mmap" "$(delta hist exit_mmap)" 10
is "filter 'foo other': exit_files" "$(delta hist exit_files)" 10
is "filter 'foo other': counter exit" "$(delta counter exit)" 10
is "filter 'foo other': counter sigkill" "$(delta counter sigkill)" 10
is "filter 'foo other': signal_to_exit" "$(delta hist signal_to_exit)" 10
check "filter back to firecracker" sh -c "echo firecracker >$D/filter"
is "filter reads back" "$(cat "$D/filter")" firecracker

kp_clear
echo 0 >"$TR/options/record-tgid" 2>/dev/null
for f in summary probes checks raw; do kvmchurn-put "metrics/$f" "$D/$f" || not_ok "hand back $f"; done
check "rmmod kvmchurn" rmmod kvmchurn
bad=$(dmesg | tail -n +$((n0 + 1)) | grep -E 'WARNING|BUG|Oops|lockdep|circular locking|Call Trace|kretprobe')
check "dmesg: no warning, oops or lockdep report" [ -z "$bad" ]
[ -z "$bad" ] || echo "$bad" | sed 's/^/# /'
exit 0

#!/bin/sh
# 45-qemu: Debian's QEMU (bookworm's 7.2, a fleet host's) as the VMM, run from
# its root on a read-only disk (tests/lib/vmm.sh) with the filter the kernel's
# name for it (qemu-system-x86, qemu-system-aar: 15 bytes of the executable's).
# VMs one at a time, paused (-S: created, never run) and booted (this kernel
# with a small initramfs, a virtio disk on an iothread, so that QEMU wires its
# interrupts through irqfds), each ended by SIGKILL, SIGTERM (QEMU exits
# cleanly) or QMP quit. Every VM is checked by itself, from two raw snapshots
# around it: +1 in each per-VM metric, signal stages and counters only for a
# signal, irqbypass = the irqfds QEMU made (kvm_irqfd calls without
# KVM_IRQFD_FLAG_DEASSIGN, counted by tracefs), one record in vms, with its
# teardown partitioned and, when it ran, its start-up, the parts of each
# adding up to it exactly. Beside it,
# tracefs peers with the seed's own filter (the thread's comm) count the same
# VMs, for Documentation/kvmchurn.rst. Busybox sh; leaves the module unloaded.
# shellcheck source=../lib/guest/lib.sh
. /kvmchurn/lib.sh
# shellcheck source=/dev/null
. /kvmchurn/config
R=/vmm
W=/tmp/vmm
case $KVMCHURN_ARCH in
x86_64) QBIN=qemu-system-x86_64 QCOMM=qemu-system-x86 QMACH="" CONSOLE=ttyS0 ;;
*) QBIN=qemu-system-aarch64 QCOMM=qemu-system-aar QMACH="-M virt,gic-version=3" CONSOLE=ttyAMA0 ;;
esac

if [ -z "${KVMCHURN_VMM_MODULES:-}" ]; then
	skip "QEMU as the VMM" "no VMM root for $KVMCHURN_KERNEL: its kernel has no virtio disk or squashfs modules (the debug kernel also has no CONFIG_NET for QMP)"
	exit 0
fi

# the VMM's root: its disk, mounted, with what QEMU needs of the guest bound in
if ! disk_root $R; then bail_out "the VMM's root: $DISK_WHY"; fi
mkdir -p $W
QEMU="chroot $R $QBIN"
echo "# VMM: $($QEMU --version | head -n 1)"
dd if=/dev/zero of=$W/disk.img bs=1024 count=1024 2>/dev/null

# one VM held for the whole scenario: guest/kvmhold.c says why
rm -f $W/hold.ready
/kvmchurn/bin/kvmhold $W/hold.ready &
HOLD=$!
hold_up() { [ -e "$W"/hold.ready ] || ! kill -0 "$HOLD" 2>/dev/null; }
wait_for "$KC_WAIT" hold_up
check "kvmhold holds a VM" [ -e $W/hold.ready ]

tracefs || bail_out "tracefs is available"
kp_clear
echo 1 >"$TR/options/record-tgid" 2>/dev/null || not_ok "tracefs option record-tgid"
echo 8192 >"$TR/buffer_size_kb"
echo 1 >"$TR/tracing_on"
kernel_has
if ! insmod "$KVMCHURN_KO" filter=$QCOMM; then bail_out "insmod kvmchurn.ko filter=$QCOMM"; fi
is "filter" "$(cat $D/filter)" $QCOMM

# The truth: the irqfds QEMU assigns (struct kvm_irqfd's flags at +8; bit 0 is
# DEASSIGN) and the consumers KVM registers; the seed's filter as tracefs peers.
# shellcheck disable=SC2016 # tracefs syntax
kp kct_irqfd 'kvm_irqfd flags=+8($arg2):u32' || not_ok "tracefs event on kvm_irqfd"
kp kct_reg irq_bypass_register_consumer || not_ok "tracefs event on irq_bypass_register_consumer"
# QEMU retries a KVM_CREATE_VM (0xae01) that fails with EINTR, and a create that
# fails unwinds through kvm_destroy_vcpus: those two are the kernel's calls
# shellcheck disable=SC2016 # tracefs syntax
kp kct_create 'kvm_dev_ioctl ioctl=$arg2:u32' 'ioctl == 44545' || not_ok "tracefs event on kvm_dev_ioctl"
kp kct_vcpus kvm_destroy_vcpus || echo "# no tracefs event on kvm_destroy_vcpus"
kp kct_release kvm_vm_release || echo "# no tracefs event on kvm_vm_release"
# shellcheck disable=SC2016 # tracefs syntax: KVM_CREATE_VCPU (0xae41)
kp kct_vcpu 'kvm_vm_ioctl ioctl=$arg2:u32' 'ioctl == 44609' || not_ok "tracefs event on kvm_vm_ioctl"
# shellcheck disable=SC2016 # tracefs syntax
kr kct_dfail 'kvm_dev_ioctl ret=$retval:s32' 'ret < 0' || echo "# no tracefs event on kvm_dev_ioctl's return"
[ -z "$(first_run_fn)" ] || first_run_probe || not_ok "tracefs events on $(first_run_fn)"
SEED="comm == \"$QCOMM\""
kp kct_sfiles exit_files "$SEED" || not_ok "tracefs event on exit_files"
kp kct_smmap exit_mmap "$SEED" || not_ok "tracefs event on exit_mmap"
kp kct_srel kvm_vm_release "$SEED" || echo "# no tracefs event on kvm_vm_release"
SIG=$TR/events/signal/signal_deliver
{ echo "$SEED && sig == 9" >$SIG/filter && echo 1 >$SIG/enable; } || not_ok "tracefs signal_deliver"
assigns() { awk '/ kct_irqfd: / && / flags=0$/ { n++ } END { print n + 0 }' "$TR/trace"; }

# qemu_start NAME paused|booted: a QEMU in the background (QPID), as a manager
# starts it: a QMP socket, debug-threads=on (libvirt's: vCPU threads are named)
qemu_start() {
	QSOCK=$W/$1.qmp QLOG=$W/$1.serial
	rm -f "$QSOCK" "$QLOG"
	if [ "$2" = paused ]; then
		VCPUS=2
		set -- -S -smp $VCPUS
	else
		VCPUS=1
		set -- -smp $VCPUS -kernel /kvmchurn/vmm/vmlinuz -initrd /kvmchurn/vmm/initrd.gz \
			-append "console=$CONSOLE quiet panic=-1" -serial "file:$QLOG" \
			-object iothread,id=io0 -drive "file=$W/disk.img,if=none,id=d0,format=raw" \
			-device virtio-blk-pci,drive=d0,iothread=io0
	fi
	# shellcheck disable=SC2086 # $QMACH: options or none
	$QEMU $QMACH -accel kvm -cpu host -m 128 -nodefaults -no-user-config -display none \
		-name guest=kc,debug-threads=on -qmp "unix:$QSOCK,server=on,wait=off" "$@" \
		</dev/null >$W/qemu.out 2>&1 &
	QPID=$!
}
gone() { ! kill -0 "$QPID" 2>/dev/null; }
# ready: QMP answers (the VM and its vCPUs exist); booted, the guest said so
paused_ready() { gone || /kvmchurn/bin/qmp "$QSOCK" query-status >/dev/null 2>&1; }
booted_ready() { gone || grep -q '@@VMM-GUEST' "$QLOG" 2>/dev/null; }

# td_of PID: of PID's VMs in vms, "VMS PARTITIONED EXACT STARTED EXACT" (the
# teardowns, then the start-ups), and a comment line a VM with how much of
# each window the parts name
td_of() {
	awk -F '\t' -v p="$1" '
		function v(f, a) { split(f, a, ":"); return a[2] + 0 }
		$1 == "fields" { for (i = 1; i <= NF; i++) col[$i] = i }
		$1 == "td-fields" { for (i = 6; i <= NF; i++) part[++np] = $i }
		$1 == "st-fields" { for (i = 2; i <= NF; i++) spart[++ns] = $i }
		$1 == "vm" {
			cur = $2 == "last" && $3 == p
			if (!cur) next
			n++; win = v($(col["teardown"])); sum = 0
			for (k = 1; k <= np; k++) sum += v($(col[part[k]]))
			if ($(col["startup"]) ~ /^1:/) {
				sw = v($(col["startup"])); ssum = 0
				for (k = 1; k <= ns; k++) ssum += v($(col[spart[k]]))
				st++; sexact += ssum == sw
				printf "# startup %d, accounted %.3f (st_other %d, st_kernel %d, st_user %d)\n", sw,
					sw ? 1 - v($(col["st_other"])) / sw : 1, v($(col["st_other"])),
					v($(col["st_kernel"])), v($(col["st_user"]))
			}
			# the two seed stages round their differences down, the
			# partition its instants: 0 to 2 units apart
			d = win - v($(col["signal_to_exit"])) - v($(col["exit_to_reap"]))
			ok = $(col["teardown"]) ~ /^1:/ && sum == win && d >= 0 && d <= 2
			other = v($(col["td_other"]))
			next
		}
		$1 == "td" && cur {
			td++; exact += ok
			printf "# teardown %d, accounted %.3f (td_other %d)\n", win, win ? 1 - other / win : 1, other
		}
		END { print n + 0, td + 0, exact + 0, st + 0, sexact + 0 }' "$D/vms"
}

# vm_run (one_vm's arguments): QEMU started, ended and reaped, the deltas for d; 1 if it did not start
vm_run() {
	echo >"$TR/trace"
	cp "$D/raw" /tmp/kc.raw0
	qemu_start "$1-$3" "$2"
	wait_for "$KC_WAIT" "$2_ready"
	if gone; then
		not_ok "$label: QEMU started"
		sed 's/^/# /' $W/qemu.out
		return 1
	fi
	[ "$2" = paused ] || is "$label: the guest booted and read its disk" \
		"$(grep -o '@@VMM-GUEST [A-Z-]*' "$QLOG")" "@@VMM-GUEST READY"
	case $3 in
	kill) kill -KILL "$QPID" ;;
	term) kill -TERM "$QPID" ;;
	quit) is "$label: QMP quit" "$(/kvmchurn/bin/qmp "$QSOCK" quit)" '{"return": {}}' ;;
	esac
	wait "$QPID"
	rc=$?
	case $3 in kill) want=137 ;; *) want=0 ;; esac
	is "$label: QEMU's exit status" $rc $want
	settle /tmp/kc.raw0 1 || not_ok "$label: reap counter did not settle at +1"
	cp "$D/raw" /tmp/kc.raw1
	deltas /tmp/kc.raw0 /tmp/kc.raw1 >"$KC_DELTA"
}

# vm_counts (the same): the kernel's counts for this QEMU (tracefs), in irqfds creates reg sig fr vms
vm_counts() {
	irqfds=$(assigns)
	creates=$(tcount kct_create)
	if [ "$creates" != 1 ]; then
		echo "# $label: QEMU called KVM_CREATE_VM $creates times (each, and what it returned if it failed):"
		awk '/ kct_create: / { c = 1; print; next } c && / kct_dfail: / { print } { c = 0 }' "$TR/trace" |
			sed 's/^ */#   /'
	fi
	check "$label: KVM_CREATE_VM called: $creates" [ "$creates" -ge 1 ]
	reg=$(tcount kct_reg)
	case $3 in kill | term) sig=1 ;; *) sig=0 ;; esac
	# paused, no vCPU ever runs; x86's NX task may take more than one start
	if [ "$(first_run_fn)" = kvm_mmu_post_init_vm ]; then
		fr=$(nx_starts)
	elif [ "$2" = booted ]; then
		fr=$(first_runs $VCPUS)
	else
		fr=0
	fi
	# the VMs this QEMU made: its VM, and on arm64 the scratch VMs (with a vCPU
	# each) it makes to probe the host's CPU and address size before it
	vms=$(tcount kct_release)
	[ "$vms" != - ] || vms=$creates
	[ "$vms" = 1 ] || echo "# $label: QEMU made $vms VMs"
}

# vm_want (the same): want, a "KEY COUNT" line for each metric and counter this QEMU must move
vm_want() {
	want=""
	for m in $(kvmchurn show --list | awk -F '\t' '{ print $1 ($2 == "teardown" || $2 == "startup" ? ":" $2 : "") }'); do
		case $m in
		vcpu_create) c=$(tcount kct_vcpu) ;;
		kvm_create_vm) c=$creates ;;
		kvm_destroy_vcpus) c=$(tcount kct_vcpus) && [ "$c" != - ] || c=$(($(per_vm "$m") * vms)) ;;
		irqbypass_unregister) c=$irqfds ;;
		irqbypass_register) c=$reg ;;
		first_run_setup) c=$fr ;;
		# the process's, once whatever its VMs
		signal_to_exit) c=$sig ;;
		exit_to_reap | exit_to_reaped | exit_files | exit_mmap) c=1 ;;
		*:teardown) m=${m%:teardown} c=1 ;;
		# a VM's that ran, once: not a paused one's, nor arm64's scratch VMs
		*:startup) m=${m%:startup} c=1 && [ "$2" = booted ] || c=0 ;;
		reclaim_direct | reclaim_memcg) c=0 ;;
		*) c=$(($(per_vm "$m") * vms)) ;;
		esac
		want="${want}hist:$m $c
"
	done
	[ "$3" = kill ] && k=1 || k=0
	[ "$3" = term ] && t=1 || t=0
	want="${want}counter:sigkill $k
counter:sigterm $t
counter:exit 1
counter:reap 1
counter:irqbypass_register $reg
counter:irqbypass_unregister $irqfds"
}

# vm_moved (the same): the deltas are want; its irqfds, their consumers; its VMs in vms as $QCOMM
vm_moved() {
	bad=$(echo "$want" | while read -r key v; do
		got=$(delta "${key%%:*}" "${key#*:}")
		[ "$got" = "$v" ] || echo "$key +$got, want +$v"
	done)
	is "$label: every metric and counter moved by this VM's own count" "${bad:-all as expected}" "all as expected"
	[ -z "$bad" ] || echo "$bad" | sed 's/^/# /'
	if [ "$2" = booted ]; then
		check "$label: QEMU made irqfds: $irqfds" [ "$irqfds" -gt 0 ]
	else
		is "$label: a VM that never ran made no irqfd" "$irqfds" 0
	fi
	case $reg in
	0) echo "# $label: no irqbypass consumer registered: this host does not post interrupts" ;;
	*) is "$label: KVM registered a consumer for each irqfd" "$reg" "$irqfds" ;;
	esac
	is "$label: vms holds each of its VMs once, as $QCOMM" \
		"$(awk -F "\t" -v p=$QPID '$1 == "vm" && $2 == "last" && $3 == p { n++; c = $4 } END { print n + 0, c }' $D/vms)" "$vms $QCOMM"
}

# vm_parts (the same): its VM's teardown and start-up in vms, partitioned, the parts adding up
vm_parts() {
	# each of them with its process's teardown partitioned, the parts
	# summing to it exactly, and it to signal_to_exit + exit_to_reap (but
	# for rounding)
	td_of $QPID >/tmp/kc.td
	grep '^#' /tmp/kc.td
	# (not arm64's scratch VMs, destroyed before the teardown began)
	is "$label: its VM's teardown partitioned, the parts adding up to it exactly" \
		"$(grep -v '^#' /tmp/kc.td | cut -d ' ' -f 2-3)" "1 1"
	[ "$2" = paused ] && st="0 0" || st="1 1"
	is "$label: its VM's start-up partitioned if it ran, the parts adding up to it exactly" \
		"$(grep -v '^#' /tmp/kc.td | cut -d ' ' -f 4-)" "$st"
}

# vm_seed: what the seed's comm filter counts of this QEMU (tracefs peers), into the seed_* sums
vm_seed() {
	# the seed's filter, on the same VM
	s_files=$(tcount kct_sfiles) s_mmap=$(tcount kct_smmap) s_rel=$(tcount kct_srel)
	s_kill=$(grep -c ' signal_deliver: ' "$TR/trace")
	echo "# $label: the seed's comm filter counts exit_files $s_files, exit_mmap $s_mmap, kvm_vm_release $s_rel, sigkill $s_kill"
	seed_files=$((seed_files + s_files)) seed_mmap=$((seed_mmap + s_mmap))
	seed_kill=$((seed_kill + s_kill)) nvm=$((nvm + 1)) kills=$((kills + k)) allvms=$((allvms + vms))
	[ "$s_rel" = - ] || seed_rel=$((seed_rel + s_rel))
}

# one_vm LABEL paused|booted kill|term|quit: a VM from start to reap, checked
one_vm() {
	label="$1 VM, $3"
	vm_run "$@" || return
	vm_counts "$@"
	vm_want "$@"
	vm_moved "$@"
	vm_parts "$@"
	vm_seed
}

seed_files=0 seed_mmap=0 seed_rel=0 seed_kill=0 nvm=0 kills=0 allvms=0
for end in kill term quit; do
	one_vm paused paused $end
	one_vm booted booted $end
done
echo "# the seed's comm filter over $nvm QEMUs ($allvms VMs, $kills SIGKILLed): exit_files $seed_files, exit_mmap $seed_mmap, kvm_vm_release $seed_rel, sigkill $seed_kill"
warn=$(grep -v -e '^OK ' -e '^INFO ' "$D/checks")
if [ -z "$warn" ]; then ok "checks has no WARN for a QEMU load"; else not_ok "checks: $warn"; fi
sed 's/^/# /' "$D/checks"
no_misses "kretprobe misses"
is "pairing drops" "$(raw_field pairs - 4)" 0

echo 0 >$SIG/enable
echo 0 >$SIG/filter
kp_clear
rmmod kvmchurn || not_ok "rmmod kvmchurn"
kill -TERM $HOLD
wait $HOLD || not_ok "kvmhold: exit $?"
umount $R/proc $R/kvmchurn $R/tmp $R/sys $R/dev $R
exit 0

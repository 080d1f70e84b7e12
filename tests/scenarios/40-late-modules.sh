#!/bin/sh
# shellcheck disable=SC2086 # $LOAD and $OTHER hold several options
# 40-late-modules: kvm, kvm_amd and irqbypass loading after kvmchurn, and
# leaving while it stays loaded (x86 only: on Debian arm64 KVM is built in).
# kvmchurn is loaded first: its probes on kvm and irqbypass functions wait
# for their modules; once those load, a load counts exactly; the modules are
# removed under kvmchurn (its probes must let go), loaded again, and a second
# load counts exactly again. Busybox sh; leaves the host modules loaded and
# kvmchurn unloaded, as the scenarios before it found them.
# shellcheck source=../lib/guest/lib.sh
. /kvmchurn/lib.sh
N=10
IRQFDS=8
LOAD="-n $N -j 4 --vcpus 2 --irqfds $IRQFDS --mem 16 --end kill"
# the metrics whose probes are on functions of kvm.ko or irqbypass.ko
MODMETRICS="kvm_create_vm irqbypass_register kvm_vm_release kvm_destroy_vm kvm_destroy_vcpus kvm_mmu_teardown irqbypass_unregister vcpu_create first_run_setup"

if [ "$KVMCHURN_ARCH" != x86_64 ]; then
	skip "late modules" "KVM is built into the $KVMCHURN_ARCH kernel"
	exit 0
fi

modname() { # modname FILE: kvm-amd.ko -> kvm_amd
	m=${1%.ko}
	echo "$m" | tr - _
}
# host_load WHEN: insmod the host modules that are not loaded, in the order
# tests/lib/guest/init uses.
host_load() {
	for f in $KVMCHURN_HOST_MODULES; do
		loaded "$(modname "$f")" && continue
		check "$1: insmod $f" insmod "/kvmchurn/modules/$f"
	done
}
host_unload() { # host_unload WHEN
	for m in kvm_amd kvm irqbypass; do
		loaded $m || continue
		if rmmod $m 2>/tmp/kc.err; then ok "$1: rmmod $m"; else not_ok "$1: rmmod $m: $(cat /tmp/kc.err)"; fi
	done
}
# states WHEN WANT: every probe on a kvm/irqbypass function is in state WANT
# (absent once kvm is loaded, where this kernel lacks the function).
states() {
	for m in $MODMETRICS; do
		st=$(state $m)
		if [ "$2" = attached ] && [ "$(per_vm $m)" = 0 ]; then
			is "$1: probe $m (the kernel lacks its function)" "$st" absent
		else
			is "$1: probe $m" "$st" "$2"
		fi
	done
}

# count WHEN: one load, counted exactly by the probes that attached late.
count() {
	kp kct_reg irq_bypass_register_consumer || not_ok "$1: tracefs event on irq_bypass_register_consumer"
	echo >"$TR/trace"
	load_deltas "$1" $N $LOAD
	for m in kvm_create_vm kvm_vm_release kvm_destroy_vm kvm_destroy_vcpus kvm_mmu_teardown exit_mmap exit_to_reap; do
		is "$1: $m" "$(delta hist $m)" $((N * $(per_vm $m)))
	done
	is "$1: vcpu_create" "$(delta hist vcpu_create)" $((N * 2))
	for m in uevent_create uevent_destroy mmu_notifier_unregister; do
		is "$1: $m" "$(delta hist $m)" $N
	done
	is "$1: irqbypass_unregister" "$(delta hist irqbypass_unregister)" $((N * IRQFDS))
	is "$1: counter irqbypass_unregister" "$(delta counter irqbypass_unregister)" $((N * IRQFDS))
	reg=$(tcount kct_reg)
	[ "$reg" = 0 ] && echo "# $1: the kernel registered no irqbypass consumer (no posted interrupts)"
	is "$1: irqbypass_register equals the kernel's count (tracefs)" "$(delta hist irqbypass_register)" "$reg"
	is "$1: counter irqbypass_register" "$(delta counter irqbypass_register)" "$reg"
	is "$1: counter sigkill" "$(delta counter sigkill)" $N
	no_misses "$1: kretprobe misses"
	is "$1: pairing drops" "$(raw_field pairs - 4)" 0
	kp_clear
}

# init reads the host modules' load order from its config, but does not export it
# shellcheck source=/dev/null
[ -n "$KVMCHURN_HOST_MODULES" ] || . /kvmchurn/config
n0=$(dmesg | wc -l)
tracefs || not_ok "tracefs is available"
kp_clear
kernel_has
echo "# host modules: $KVMCHURN_HOST_MODULES"

host_unload "before kvmchurn"
check "/dev/kvm is gone" [ ! -e /dev/kvm ]
if insmod "$KVMCHURN_KO"; then ok "insmod kvmchurn.ko without kvm"; else not_ok "insmod kvmchurn.ko without kvm"; host_load restore; exit 0; fi
states "kvm not loaded" "waiting for module"
for m in exit_mmap exit_files signal_to_exit exit_to_reap reclaim_direct uevent_create uevent_destroy mmu_notifier_unregister; do
	is "kvm not loaded: probe $m" "$(state $m)" attached
done
# stage2_destroy's function would be in kvm.ko: which kvm has none of it
# only shows once kvm is loaded
is "kvm not loaded: probe stage2_destroy" "$(state stage2_destroy)" "waiting for module"
sed -n '/waiting/s/^/# /p' "$D/probes"

host_load "after kvmchurn"
check "/dev/kvm is back" [ -c /dev/kvm ]
states "kvm loaded after kvmchurn" attached
is "kvm loaded after kvmchurn: probe stage2_destroy" "$(state stage2_destroy)" absent
count "kvm loaded after kvmchurn"

host_unload "under kvmchurn"
states "kvm removed under kvmchurn" "waiting for module"
check "raw still readable" [ "$(head -n 1 "$D/raw")" = "kvmchurn-raw 1" ]
host_load "again"
states "kvm loaded again" attached
is "kvm loaded again: probe stage2_destroy" "$(state stage2_destroy)" absent
count "kvm loaded again"

check "rmmod kvmchurn" rmmod kvmchurn
host_load restore
check "kvm_amd is loaded at the end" loaded kvm_amd
bad=$(dmesg | tail -n +$((n0 + 1)) | grep -E 'WARNING|BUG|Oops|lockdep|circular locking|Call Trace|kretprobe')
check "dmesg: no warning, oops or lockdep report" [ -z "$bad" ]
[ -z "$bad" ] || echo "$bad" | sed 's/^/# /'
exit 0

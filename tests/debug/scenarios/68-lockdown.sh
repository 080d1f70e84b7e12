#!/bin/sh
# shellcheck disable=SC2086 # $LOAD holds several options
# 68-lockdown (debug kernel, a boot of its own for each "# boot:" line): a
# Secure Boot host, whose kernel runs locked down (lockdown=integrity): only
# signed modules load, debugfs refuses every write, kprobes and tracepoints
# still work; and one locked down further (lockdown=confidentiality), where
# tracefs, perf's kprobes and BPF's reads of the kernel are refused too, so
# that bpftrace cannot run the seed, while kvmchurn's own kprobes (a signed
# module's register_kprobe() asks no one) still count.
#  - the kernel is locked down at that level and says so; its own modules
#    (irqbypass, kvm, kvm_amd, signed by its build) were loaded by /init;
#  - kvmchurn.ko unsigned, and signed with a key the kernel does not trust,
#    are refused (EPERM) with the line Documentation/secure-boot.rst quotes;
#  - signed with the kernel's key (make module SIGN_KEY= SIGN_CERT=) it loads,
#    and nothing is tainted as unsigned;
#  - every read-only file reads; every open of filter, enable and reset is
#    refused (EPERM: to write, and for filter and enable, which can be
#    written, to read too), and nothing changes: counts, filter, enable;
#  - a load is counted exactly, before and after those writes (the truth is
#    the load's own: its VMs, their vCPUs and irqfds);
#  - the client reads;
#  - the module parameters filter, enable and reset, writable at run time,
#    control the module here, with the same validation as the debugfs files,
#    and the client's controls write them, saying so on stderr;
#  - confidentiality: tracefs was refused its files at boot, and bpftrace
#    (bookworm's, from the seed's root on the guest's disk) running the seed's
#    kind of program (kprobe, kretprobe, tracepoint) fails; what it and the
#    kernel say is in the log.
# tests/debug/tier.sh boots it once for each line below, with its words on
# the kernel's command line (tests/lib/boot.sh's --boot-args); make check
# boots confidentiality, check-full both (tests/lib/matrix.sh).
# boot: lockdown=integrity
# boot: lockdown=confidentiality
# shellcheck source=../../lib/guest/lib.sh
. /kvmchurn/lib.sh
P=/sys/module/kvmchurn/parameters
SEC=/sys/kernel/security
N=8
LOAD="-n $N -j 2 --vcpus 2 --irqfds 8 --mem 16 --end kill"
REFUSED='Lockdown: insmod: unsigned module loading is restricted; see man kernel_lockdown.7'
LEVEL=$(tr ' ' '\n' </proc/cmdline | sed -n 's/^lockdown=//p')
case $LEVEL in
integrity) LEVELS="none [integrity] confidentiality" ;;
*) LEVELS="none integrity [confidentiality]" ;;
esac

# taint BIT: one bit of the kernel's taint (12 O: out-of-tree, 13 E: unsigned)
taint() { echo $(($(cat /proc/sys/kernel/tainted) >> $1 & 1)); }
# params_control: the parameters filter, enable and reset are controls (filter and
# enable 0644, reset 0200: module/control.c); root may write any file, whatever its
# mode says, so the modes are checked
params_control() {
	[ "$(stat -c %a $P/filter)" = 644 ] && [ "$(stat -c %a $P/enable)" = 644 ] &&
		[ "$(stat -c %a $P/reset)" = 200 ]
}
# lockdown_lines: the kernel's "Lockdown:" lines since the last dmesg -c
lockdown_lines() { dmesg | sed -n 's/.*\] \(Lockdown: \)/\1/p'; }

# refused_insmod LABEL KO: insmod fails with EPERM, loads nothing, and the
# kernel says why, in one line a try: busybox's insmod tries finit_module(),
# then init_module() (kmod's modprobe and insmod try once)
refused_insmod() {
	dmesg -c >/dev/null
	if insmod "$2" 2>/tmp/kc.err; then
		not_ok "$1: insmod loaded it"
		rmmod kvmchurn
		return
	fi
	sed 's/^/# /' /tmp/kc.err
	check "$1: insmod refused (Operation not permitted)" grep -q 'Operation not permitted' /tmp/kc.err
	if loaded kvmchurn; then not_ok "$1: loaded all the same"; else ok "$1: not loaded"; fi
	dmesg | sed 's/^/# dmesg: /'
	is "$1: the kernel's lines, one a try" "$(lockdown_lines | tr '\n' '|')" "$REFUSED|$REFUSED|"
}

# refused HOW FILE [VALUE]: opening FILE of the module's debugfs folder to read
# it (HOW read) or to write VALUE (HOW write) fails with EPERM
refused() {
	what="$1 $2"
	[ $# -lt 3 ] || what="$what '$3'"
	if [ "$1" = read ]; then
		cat "$D/$2" >/dev/null 2>/tmp/kc.err && r=0 || r=1
	else
		sh -c "echo '$3' >'$D/$2'" 2>/tmp/kc.err && r=0 || r=1
	fi
	if [ $r = 0 ]; then
		not_ok "$what: taken"
	elif grep -q 'Operation not permitted' /tmp/kc.err; then
		ok "$what: refused (Operation not permitted)"
	else
		not_ok "$what: $(cat /tmp/kc.err)"
	fi
}

# controls_state: what a refused control must leave as it was: every count, the
# filter and enable records of raw, and the parameters
controls_state() {
	awk -F '\t' '$1 == "hist" || $1 == "counter" { print $1, $2, $3 }
		$1 == "filter" || $1 == "enabled"' "$D/raw"
	echo "parameter filter $(cat $P/filter)"
	echo "parameter enable $(cat $P/enable)"
}

# same LABEL A B: files A and B are the same; their differences otherwise
same() {
	if cmp -s "$2" "$3"; then
		ok "$1"
	else
		not_ok "$1"
		diff "$2" "$3" | sed 's/^/#   /'
	fi
}

# counted LABEL TOTAL: the load of load_deltas ($N VMs) counted exactly, and
# exit_mmap's total TOTAL (what every load so far made)
counted() {
	grep -q "$N completed, 0 failed" /tmp/kc.load || not_ok "$1: load summary: $(grep VMs: /tmp/kc.load)"
	for m in kvm_create_vm kvm_vm_release exit_mmap exit_to_reap signal_to_exit; do
		is "$1: $m" "$(delta hist "$m")" $N
	done
	is "$1: vcpu_create, 2 a VM" "$(delta hist vcpu_create)" $((2 * N))
	is "$1: irqbypass_unregister, 8 a VM" "$(delta hist irqbypass_unregister)" $((8 * N))
	for c in exit reap sigkill; do
		is "$1: counter $c" "$(delta counter "$c")" $N
	done
	is "$1: exit_mmap in all" "$(raw_field hist exit_mmap 3)" "$2"
	no_misses "$1: no kretprobe missed"
}

# ---- the kernel --------------------------------------------------------------
[ -f $SEC/lockdown ] || mount -t securityfs securityfs $SEC
is "lockdown=$LEVEL" "$(cat $SEC/lockdown)" "$LEVELS"
check "the kernel says it is locked down" \
	sh -c "dmesg | grep -qF 'Kernel is locked down from command line; see man kernel_lockdown.7'"
# confidentiality: tracefs makes none of its files at boot (it is mounted empty; and on
# 6.12.118 unmounting it then is a KASAN slab-out-of-bounds in tracefs_drop_inode(), so
# this does not mount it)
[ "$LEVEL" != confidentiality ] || check "confidentiality: the kernel refused tracefs its files at boot" \
	sh -c "dmesg | grep -qF 'Lockdown: swapper/0: use of tracefs is restricted; see man kernel_lockdown.7'"
for m in irqbypass kvm kvm_amd; do
	check "$m, signed by the kernel's build, is loaded" grep -q "^$m " /proc/modules
done
is "no unsigned module (taint E)" "$(taint 13)" 0

# ---- signatures --------------------------------------------------------------
kc_loaded && rmmod kvmchurn
refused_insmod "unsigned" "$KVMCHURN_KO"
refused_insmod "signed with a key the kernel does not trust" /kvmchurn/foreign/kvmchurn.ko
dmesg -c >/dev/null
if ! insmod /kvmchurn/signed/kvmchurn.ko 2>/tmp/kc.err; then
	not_ok "signed with the kernel's key: insmod kvmchurn.ko: $(cat /tmp/kc.err)"
	dmesg | sed 's/^/# dmesg: /'
	exit 0
fi
ok "signed with the kernel's key: insmod kvmchurn.ko"
is "signed: the kernel's Lockdown lines" "$(lockdown_lines)" ""
check "signed: no 'module verification failed'" sh -c '! dmesg | grep -q "module verification failed"'
is "signed: no unsigned module (taint E)" "$(taint 13)" 0
is "signed: an out-of-tree module (taint O)" "$(taint 12)" 1

# ---- the files (module/debugfs.c) ----------------------------------------------
is "the files" "$(cd $D && echo *)" "all checks counters enable filter hist memory probes raw reset summary vms"
is "hist/: a file a metric" "$(cd $D/hist && echo *)" "$(kvmchurn show --list | cut -f1 | sort | tr '\n' ' ' | sed 's/ $//')"
# only the controls can be written: the modes debugfs.c gives (a write bit)
is "the files that can be written" \
	"$(cd $D && for f in * hist/*; do [ -f "$f" ] && echo "$f $(stat -c %a "$f")"; done | awk '$2 ~ /[2367]/' | tr '\n' ' ')" \
	"enable 600 filter 600 reset 200 "
n=0
for f in all summary counters probes checks raw memory vms $(cd $D && echo hist/*); do
	if cat "$D/$f" >/dev/null 2>/tmp/kc.err; then n=$((n + 1)); else not_ok "read $f: $(cat /tmp/kc.err)"; fi
done
is "read-only files that read" $n $((8 + $(kvmchurn show --list | wc -l)))

# ---- a load, counted exactly ---------------------------------------------------
load_deltas "load" $N $LOAD
counted "load" $N
quiet

# ---- debugfs refuses every control, and nothing changes ------------------------
controls_state >/tmp/kc.state0
dmesg -c >/dev/null
refused write filter '*'
is "debugfs's refusal: the kernel's line" "$(lockdown_lines | head -n 1)" \
	"Lockdown: sh: debugfs access is restricted; see man kernel_lockdown.7"
refused write filter other
refused write filter 'bad,,name-longer-than-fifteen'
refused write enable 0
refused write enable 1
refused write reset 1
refused read filter
refused read enable
refused read reset
controls_state >/tmp/kc.state1
same "nothing changed: counts, filter, enable" /tmp/kc.state0 /tmp/kc.state1
for c in show summary probes dump vms filter "export --prometheus"; do
	# shellcheck disable=SC2086 # $c holds the command and its arguments
	kvmchurn $c >/tmp/kc.out 2>&1
	is "kvmchurn $c reads: exit status" $? 0
done
# still enabled, still the same filter, nothing reset: counted on top
load_deltas "load after the refused writes" $N $LOAD
counted "load after the refused writes" $((2 * N))
quiet

# ---- the parameters: the controls of a locked-down host ------------------------
if ! params_control; then
	not_ok "parameters filter, enable (0644) and reset (0200): $(stat -c %a $P/filter) $(stat -c %a $P/enable) $(stat -c %a $P/reset 2>&1)"
else
	check "parameter filter 'other' taken" sh -c "echo other >$P/filter"
	is "parameter filter reads back" "$(cat $P/filter)" other
	is "raw filter record" "$(raw_field filter - 2)" other
	if sh -c "echo 0123456789abcdef >$P/filter" 2>/tmp/kc.err; then
		not_ok "parameter filter '0123456789abcdef' (16 characters) taken"
	else
		check "parameter filter '0123456789abcdef' (16 characters) refused (Invalid argument)" \
			grep -q 'Invalid argument' /tmp/kc.err
	fi
	is "parameter filter after the refusal" "$(cat $P/filter)" other
	load_deltas "filter other" $N $LOAD --comm other
	is "filter other: kvm_create_vm" "$(delta hist kvm_create_vm)" $N
	is "filter other: exit_mmap" "$(delta hist exit_mmap)" $N
	is "filter other: counter reap" "$(delta counter reap)" $N
	quiet
	check "parameter filter 'firecracker other' taken" sh -c "echo 'firecracker,other' >$P/filter"
	is "parameter filter reads back, space separated" "$(cat $P/filter)" "firecracker other"
	check "parameter enable 0 taken" sh -c "echo 0 >$P/enable"
	is "parameter enable reads back" "$(cat $P/enable)" 0
	is "raw enabled record" "$(raw_field enabled - 2)" 0
	if sh -c "echo 2 >$P/enable" 2>/tmp/kc.err; then
		not_ok "parameter enable 2 taken"
	else
		check "parameter enable 2 refused (Invalid argument)" grep -q 'Invalid argument' /tmp/kc.err
	fi
	# disabled: a load adds nothing (the fence: each VM freed, so nothing of it is left
	# to count; confidentiality refuses tracefs, so there only what the VMs' exits do,
	# which is over when the load has reaped them)
	cp "$D/raw" /tmp/kc.raw0
	fence=0
	if [ "$LEVEL" = integrity ]; then
		check "a tracefs instance counts the frees of the firecracker processes" fence_arm firecracker
		fence=1
	fi
	kvmchurn load $LOAD >/tmp/kc.load 2>&1 || not_ok "disabled: kvmchurn load: exit $?"
	[ $fence = 0 ] || check "disabled: the $N VMs were freed" fence_wait $N
	cp "$D/raw" /tmp/kc.raw1
	deltas /tmp/kc.raw0 /tmp/kc.raw1 >"$KC_DELTA"
	is "disabled: exit_mmap" "$(delta hist exit_mmap)" 0
	is "disabled: kvm_vm_release" "$(delta hist kvm_vm_release)" 0
	[ $fence = 0 ] || is "disabled: counter reap" "$(delta counter reap)" 0
	check "parameter enable 1 taken" sh -c "echo 1 >$P/enable"
	load_deltas "enabled again" $N $LOAD
	is "enabled again: exit_mmap" "$(delta hist exit_mmap)" $N
	quiet
	if sh -c "echo 2 >$P/reset" 2>/tmp/kc.err; then
		not_ok "parameter reset 2 taken"
	else
		check "parameter reset 2 refused (Invalid argument)" grep -q 'Invalid argument' /tmp/kc.err
	fi
	check "parameter reset 1 taken" sh -c "echo 1 >$P/reset"
	is "after reset: every count" \
		"$(awk -F '\t' '($1 == "hist" || $1 == "counter") && $3 != 0 { print $2 "=" $3 }' "$D/raw" | tr '\n' ' ')" ""
	check "kvmchurn filter firecracker (debugfs locked down: the parameter)" sh -c 'kvmchurn filter firecracker 2>/tmp/kc.err'
	sed 's/^/# /' /tmp/kc.err
	check "kvmchurn filter: one stderr line, naming the parameter it wrote" \
		sh -c "[ \$(wc -l </tmp/kc.err) = 1 ] && grep -q 'wrote $P/filter\$' /tmp/kc.err"
	is "parameter filter after kvmchurn filter" "$(cat $P/filter)" firecracker
	check "kvmchurn disable" kvmchurn disable
	is "parameter enable after kvmchurn disable" "$(cat $P/enable)" 0
	check "kvmchurn enable" kvmchurn enable
	is "parameter enable after kvmchurn enable" "$(cat $P/enable)" 1
fi

# ---- what confidentiality refuses the others ------------------------------------
if [ "$LEVEL" = confidentiality ]; then
	# the seed's kind of program: kprobe and kretprobe on exit_mmap, a tracepoint
	BT=/tmp/kc.bt
	if disk_root $BT rbind; then
		echo "# $(chroot $BT bpftrace --version)"
		dmesg -c >/dev/null
		timeout 120 chroot $BT bpftrace -e 'kprobe:exit_mmap { @s[tid] = nsecs; }
			kretprobe:exit_mmap /@s[tid]/ { @us = hist((nsecs - @s[tid]) / 1000); delete(@s[tid]); }
			tracepoint:sched:sched_process_exit { @n = count(); }' >/tmp/kc.bt.out 2>&1
		r=$?
		sed 's/^/# bpftrace: /' /tmp/kc.bt.out
		lockdown_lines | sort -u | sed 's/^/# kernel: /'
		# 124 or 143: still running when timeout ended it, so it attached
		check "bpftrace refused: exit status $r" sh -c "[ $r != 0 ] && [ $r != 124 ] && [ $r != 143 ]"
		check "bpftrace refused: it counted nothing (no map printed)" sh -c '! grep -q "^@" /tmp/kc.bt.out'
	else
		not_ok "the seed's root on the guest's disk: $DISK_WHY"
	fi
fi

check "rmmod kvmchurn" rmmod kvmchurn
check "debugfs folder removed" [ ! -e "$D" ]
exit 0

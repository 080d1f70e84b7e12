#!/bin/sh
# 95-lockdown: a Secure Boot host, where the kernel is locked down
# (lockdown=integrity, raised here through securityfs: it can never be
# lowered again, nor can an unsigned module be loaded then, so this runs
# last, with the module loaded before). Every view reads; every control
# file refuses to open, to write or to read, with EPERM; the parameters
# take filter, enable and reset; the client falls back to them, says so in
# one line and exits 0; `kvmchurn filter` and the views still read; a small
# load is counted exactly, the filter, enable and reset written through the
# parameters have their effect. Busybox sh; leaves the module unloaded.
# shellcheck source=../lib/guest/lib.sh
. /kvmchurn/lib.sh
P=/sys/module/kvmchurn/parameters
L=/sys/kernel/security/lockdown
IRQFDS=8

[ -e $L ] || mount -t securityfs securityfs /sys/kernel/security 2>/dev/null
if [ ! -w $L ]; then
	skip "lockdown" "no $L: this kernel has no lockdown LSM"
	exit 0
fi
n0=$(dmesg | wc -l)
kernel_has
kc_loaded && rmmod kvmchurn
if ! insmod "$KVMCHURN_KO"; then
	not_ok "insmod kvmchurn.ko"
	exit 0
fi
ok "insmod kvmchurn.ko"
is "lockdown before" "$(cat $L)" "[none] integrity confidentiality"
if echo integrity >$L; then ok "lockdown raised to integrity"; else not_ok "lockdown raised to integrity"; fi
is "lockdown now" "$(cat $L)" "none [integrity] confidentiality"

# ---- debugfs under lockdown ----------------------------------------------------------
n=0
for f in "$D"/* "$D"/hist/*; do
	[ -f "$f" ] || continue
	name=${f#"$D"/}
	case $name in
	filter | enable | reset)
		for how in read write; do
			if [ $how = read ]; then
				cat "$f" >/dev/null 2>/tmp/kc.err && r=0 || r=1
			else
				sh -c "echo 1 >'$f'" 2>/tmp/kc.err && r=0 || r=1
			fi
			if [ "$r" = 0 ]; then
				not_ok "locked down: $how $name accepted"
			else
				check "locked down: $how $name refused with EPERM ($(sed 's/.*: //' /tmp/kc.err))" \
					grep -q 'Operation not permitted' /tmp/kc.err
			fi
		done
		;;
	*)
		n=$((n + 1))
		if cat "$f" >/dev/null 2>/tmp/kc.err; then ok "locked down: $name reads"; else not_ok "locked down: $name: $(cat /tmp/kc.err)"; fi
		;;
	esac
done
check "locked down: every view tried ($n)" [ "$n" -ge 20 ]

# ---- the client falls back to the parameters ---------------------------------------
said() { echo "kvmchurn $1: debugfs is locked down; wrote $P/$2"; }
client "filter other" "$(said filter filter)" filter other
is "parameter filter" "$(cat $P/filter)" other
is "kvmchurn filter (from raw)" "$(kvmchurn filter 2>&1)" other
client disable "$(said disable enable)" disable
is "parameter enable" "$(cat $P/enable)" 0
is "raw enabled" "$(raw_field enabled - 2)" 0
client enable "$(said enable enable)" enable
is "raw enabled" "$(raw_field enabled - 2)" 1
kvmchurn filter '*' a >/tmp/kc.out 2>&1
is "kvmchurn filter '*' a: exit status (usage)" $? 64
is "parameter filter unchanged" "$(cat $P/filter)" other

# ---- what the parameters do, counted -------------------------------------------------
cp "$D/raw" /tmp/kc.raw0
fence_arm firecracker || not_ok "filter other: a tracefs instance for the frees"
if kvmchurn load -n 4 -j 2 --mem 16 >/tmp/kc.load 2>&1; then ok "filter other: kvmchurn load -n 4"; else not_ok "filter other: kvmchurn load: exit $?"; fi
fence_wait 4 || not_ok "filter other: the 4 VMs were freed"
cp "$D/raw" /tmp/kc.raw1
deltas /tmp/kc.raw0 /tmp/kc.raw1 >"$KC_DELTA"
moved=$(awk -F '\t' '$3 != 0 { printf "%s:%s=%s ", $1, $2, $3 }' "$KC_DELTA")
is "filter other: firecracker's VMs not counted" "${moved:-nothing}" nothing
client "filter firecracker" "$(said filter filter)" filter firecracker
mark=/tmp/kc.raw1
if kvmchurn load -n 4 -j 2 --mem 16 --irqfds $IRQFDS >/tmp/kc.load 2>&1; then ok "kvmchurn load -n 4"; else not_ok "kvmchurn load: exit $?"; fi
settle "$mark" 4 || not_ok "reap counter did not reach 4"
cp "$D/raw" /tmp/kc.raw2
deltas /tmp/kc.raw1 /tmp/kc.raw2 >"$KC_DELTA"
for m in hist:kvm_create_vm hist:exit_mmap hist:exit_to_reap hist:kvm_destroy_vm counter:exit counter:reap; do
	is "locked down: $m" "$(delta "${m%%:*}" "${m#*:}")" $((4 * $(per_vm ${m#*:})))
done
is "locked down: hist:irqbypass_unregister" "$(delta hist irqbypass_unregister)" $((4 * IRQFDS))
kvmchurn summary >/tmp/kc.out 2>&1
is "kvmchurn summary: exit status" $? 0
check "kvmchurn summary: kvm_create_vm 4" grep -Eq '^kvm_create_vm +4 ' /tmp/kc.out
client reset "$(said reset reset)" reset
left=$(awk -F '\t' '($1 == "hist" || $1 == "counter") && $3 != 0 { print $1 ":" $2 "=" $3 }' "$D/raw")
is "after kvmchurn reset every count is 0" "${left:-all 0}" "all 0"

check "rmmod kvmchurn" rmmod kvmchurn
splat=$(dmesg | tail -n +$((n0 + 1)) | grep -E 'WARNING|BUG|Oops|lockdep|circular locking|Call Trace|kretprobe')
check "dmesg: no warning, oops or lockdep report" [ -z "$splat" ]
[ -z "$splat" ] || echo "$splat" | sed 's/^/# /'
exit 0

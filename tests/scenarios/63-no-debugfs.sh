#!/bin/sh
# 63-no-debugfs (boots of their own: debugfs=off and debugfs=no-mount): a host
# hardened without debugfs. debugfs cannot be mounted, and the module's
# debugfs_create_dir() fails (off: -EPERM; no-mount: debugfs was never
# registered, -ENOENT up to 6.12, -EPERM on 7.x); it says so in one line. Then:
#  - kvmchurn.ko loads, /proc/kvmchurn holds every view and hist/METRIC (each
#    0444, in folders 0500: root's), the same names as debugfs' views, and
#    no control;
#  - not root, nothing there opens;
#  - the client finds /proc/kvmchurn by itself (no -d): every command that
#    reads works; filter, disable, enable and reset write the module's
#    parameters and say so in one line;
#  - a churn is counted exactly, and another comm adds nothing;
#  - a view held open across rmmod: rmmod works (procfs files hold no
#    reference on the module: proc_remove() waits for a read in flight and
#    cuts the file off), the held file reads no more, /proc/kvmchurn goes;
#  - the kernel log has no warning.
# tests/vm/tier.sh boots it once for each line below (tests/lib/boot.sh's
# --arg-boots), with that line's words on the kernel's command line: make
# check off on x86_64-6.1 and no-mount on arm64-7.x, check-full both on
# every kernel (tests/lib/matrix.sh's KC_CHECK_ARG_BOOTS).
# boot: debugfs=off
# boot: debugfs=no-mount
# shellcheck source=../lib/guest/lib.sh
. /kvmchurn/lib.sh
D=/proc/kvmchurn
P=/sys/module/kvmchurn/parameters
N=8
IRQFDS=8
UID_OTHER=65534

mode=$(tr ' ' '\n' </proc/cmdline | sed -n 's/^debugfs=//p')
case $mode in
off | no-mount) ok "booted with debugfs=$mode" ;;
*) not_ok "booted with debugfs=off or no-mount: the command line has '$mode'"; exit 0 ;;
esac
mkdir -p /tmp/kc.mnt
check "debugfs refuses to be mounted" sh -c '! mount -t debugfs none /tmp/kc.mnt 2>/dev/null'
check "debugfs is mounted nowhere" sh -c '! grep -q " debugfs " /proc/mounts'

kernel_has
kc_loaded && rmmod kvmchurn
dmesg -c >/dev/null
if ! insmod "$KVMCHURN_KO"; then
	not_ok "insmod kvmchurn.ko"
	exit 0
fi
ok "insmod kvmchurn.ko"
said=$(dmesg | sed -n 's/.*\] kvmchurn: \(no debugfs.*\)/\1/p')
# off: debugfs_create_dir() is refused (-EPERM); no-mount: debugfs was never registered,
# so it fails too (-ENOENT up to 6.12, -EPERM on 7.x)
case $mode in off) errs='-1' ;; *) errs='-1|-2' ;; esac
echo "# the module said: $said"
said_it() {
	echo "$said" | grep -Eqx "no debugfs \(error ($errs)\): the views are in /proc/kvmchurn, the controls are the module's parameters"
}
check "the module says it has no debugfs, and where the views are" said_it

# ---- the folder ----------------------------------------------------------------------
is "$D: root's (0500)" "$(stat -c %a $D) $(stat -c %a $D/hist)" "500 500"
# names: the folder's entries, sorted, on one line
names() { (cd "$1" && for f in *; do echo "$f"; done) | sort | tr '\n' ' '; }
is "$D: the views" "$(names $D)" "all checks counters hist memory probes raw summary vms "
is "$D/hist: a file a metric of raw" "$(names $D/hist)" \
	"$(awk -F '\t' '$1 == "hist" { print $2 }' $D/raw | sort | tr '\n' ' ')"
n=0
for f in "$D"/* "$D"/hist/*; do
	[ -f "$f" ] || continue
	n=$((n + 1))
	[ "$(stat -c %a "$f")" = 444 ] || not_ok "${f#"$D"/}: mode $(stat -c %a "$f"), not 0444"
	cat "$f" >/tmp/kc.view 2>/tmp/kc.err || not_ok "${f#"$D"/}: $(cat /tmp/kc.err)"
	# a histogram with no count yet prints nothing, as bpftrace's does
	[ -s /tmp/kc.view ] || case $f in $D/hist/*) ;; *) not_ok "${f#"$D"/} is empty" ;; esac
done
check "every view reads, 0444 ($n)" [ "$n" -ge 20 ]
check "raw starts with its version" [ "$(head -n 1 $D/raw)" = "kvmchurn-raw 1" ]
for f in raw vms hist/exit_mmap; do
	if asuser $UID_OTHER cat "$D/$f" >/dev/null 2>/tmp/kc.err; then
		not_ok "uid $UID_OTHER may read $f"
	else
		check "uid $UID_OTHER: $f refused ($(sed 's/.*: //' /tmp/kc.err))" grep -q 'Permission denied' /tmp/kc.err
	fi
done

# ---- the client, without -d, and its controls ---------------------------------------------
said() { echo "kvmchurn $1: $D has no controls; wrote $P/$2"; }
client "filter other" "$(said filter filter)" filter other
is "parameter filter" "$(cat $P/filter)" other
is "kvmchurn filter (from raw)" "$(kvmchurn filter 2>&1)" other
client disable "$(said disable enable)" disable
is "raw enabled" "$(raw_field enabled - 2)" 0
client enable "$(said enable enable)" enable
is "raw enabled" "$(raw_field enabled - 2)" 1

check "filter other: a tracefs instance counts the frees of firecracker" fence_arm firecracker
cp $D/raw /tmp/kc.raw0
kvmchurn load -n 4 -j 2 --mem 16 >/tmp/kc.load 2>&1 || not_ok "filter other: kvmchurn load -n 4: exit $?"
check "filter other: the 4 VMs were freed" fence_wait 4
deltas /tmp/kc.raw0 $D/raw >"$KC_DELTA"
moved=$(awk -F '\t' '$3 != 0 { printf "%s:%s=%s ", $1, $2, $3 }' "$KC_DELTA")
is "filter other: firecracker's VMs not counted" "${moved:-nothing}" nothing

client "filter firecracker" "$(said filter filter)" filter firecracker
load_deltas churn $N -n $N -j 2 --vcpus 2 --irqfds $IRQFDS --mem 16 --run --end kill
for m in hist:kvm_create_vm hist:exit_mmap hist:exit_to_reap hist:exit_files hist:kvm_destroy_vm \
	hist:startup counter:exit counter:reap counter:sigkill; do
	is "churn: $m" "$(delta "${m%%:*}" "${m#*:}")" $((N * $(per_vm "${m#*:}")))
done
is "churn: hist:irqbypass_unregister" "$(delta hist irqbypass_unregister)" $((N * IRQFDS))
check "churn: hist/exit_mmap's buckets sum to $N" [ "$(awk '/^\[/ { split($0, a, "|"); n = split(a[1], f, " "); s += f[n] }
	END { print s + 0 }' $D/hist/exit_mmap)" = $N ]
check "churn: all: @n_exit: $N" grep -qx "@n_exit: $N" $D/all
no_misses "churn: no kretprobe missed"
is "churn: no pairing drops" "$(awk -F '\t' '$1 == "pairs" { print $4 + $5 }' $D/raw)" 0

# every reading command, from /proc/kvmchurn
for c in show summary "summary --json" check probes dump "export --prometheus" vms "vms --json" \
	"vms --trace-event" "snapshot -o /tmp/kc.snap"; do
	# shellcheck disable=SC2086 # $c: a command and its options
	kvmchurn $c >/tmp/kc.out 2>/tmp/kc.err
	r=$?
	# check's status is 1 when one of the seed's checks warns
	case $c in check) [ $r != 1 ] || r=0 ;; esac
	if [ $r = 0 ] && [ ! -s /tmp/kc.err ]; then ok "kvmchurn $c"; else not_ok "kvmchurn $c: exit $r: $(head -n 3 /tmp/kc.err)"; fi
done
check "kvmchurn summary: kvm_create_vm $N" sh -c "kvmchurn summary | grep -Eq '^kvm_create_vm +$N '"
check "kvmchurn vms: the $N VMs finished" [ "$(awk -F '\t' '$1 == "vm" && $2 == "last"' $D/vms | wc -l)" = $N ]
kvmchurn plot -o /tmp/kc.svg 2>/tmp/kc.err || not_ok "kvmchurn plot: exit $? ($(cat /tmp/kc.err))"
check "kvmchurn plot: a row for each of the $N VMs" [ "$(grep -c '^<g class="vm" ' /tmp/kc.svg)" = $N ]
check "kvmchurn plot: its header names this host's kernel" grep -q "$(uname -r)" /tmp/kc.svg
check "kvmchurn diff of the snapshot and now" sh -c 'kvmchurn diff /tmp/kc.snap /proc/kvmchurn >/dev/null'
client reset "$(said reset reset)" reset
left=$(awk -F '\t' '($1 == "hist" || $1 == "counter") && $3 != 0 { print $1 ":" $2 "=" $3 }' $D/raw)
is "after kvmchurn reset every count is 0" "${left:-all 0}" "all 0"

# ---- rmmod with a view held open ------------------------------------------------------
exec 3<$D/raw
check "rmmod kvmchurn while raw is held open" rmmod kvmchurn
check "the held raw reads no more" sh -c '! cat <&3 >/dev/null 2>&1'
exec 3<&-
check "$D is gone" [ ! -e $D ]
splat=$(dmesg | grep -E 'WARNING|BUG|Oops|lockdep|circular locking|Call Trace|kretprobe|KASAN|UBSAN')
check "dmesg: no warning, oops or lockdep report" [ -z "$splat" ]
[ -z "$splat" ] || echo "$splat" | sed 's/^/# /'
exit 0

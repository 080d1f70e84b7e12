#!/bin/sh
# 02-kprobes-int3 (debug kernel): kprobe optimization off for the rest of the
# boot. A kprobe on a function without ftrace (kobject_uevent_env is notrace:
# the uevent metrics) then always traps with int3, which x86 runs as an NMI,
# instead of only until the optimizer swaps it for a jump; lockdep checks
# each such handler, in every scenario after this one, for what NMI context
# must not do (wait for a lock, read the timekeeper's seqcount), and the
# host fails the log if it reports one.
# shellcheck source=../../lib/guest/lib.sh
. /kvmchurn/lib.sh
OPT=/proc/sys/debug/kprobes-optimization
LIST=/sys/kernel/debug/kprobes/list

is "kprobe optimization is on at boot" "$(cat $OPT)" 1
echo 0 >$OPT
is "kprobe optimization is off" "$(cat $OPT)" 0

if ! insmod "$KVMCHURN_KO"; then bail_out "insmod kvmchurn.ko"; fi
ok "insmod kvmchurn.ko"
# kprobes/list: "ADDRESS TYPE SYMBOL+OFFSET [FLAGS]": [FTRACE] for one on
# ftrace, [OPTIMIZED] for a jump; neither is an int3
grep kobject_uevent_env $LIST | sed 's/^/# /'
is "kobject_uevent_env's kprobes, both int3" \
	"$(awk '$3 ~ /^kobject_uevent_env\+/ && !/FTRACE|OPTIMIZED/ { n++ } END { print n + 0 }' $LIST)" 2
is "a kprobe on ftrace stays on it (kvm_vm_release)" \
	"$(awk '$3 ~ /^kvm_vm_release\+/ && /FTRACE/ { n++ } END { print n + 0 }' $LIST)" 1
if kvmchurn load -n 4 -j 2 --mem 16 >/tmp/kc.load 2>&1; then ok "kvmchurn load -n 4 -j 2"; else not_ok "kvmchurn load: exit $?"; fi
quiet
is "uevent_create, timed from the int3" "$(raw_field hist uevent_create 3)" 4
is "uevent_destroy, timed from the int3" "$(raw_field hist uevent_destroy 3)" 4
check "rmmod kvmchurn" rmmod kvmchurn
exit 0

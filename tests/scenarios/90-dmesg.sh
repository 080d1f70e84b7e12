#!/bin/sh
# 90-dmesg: after every scenario, the kernel log holds no warning, oops, BUG,
# lockdep or OOM report, and kvmchurn is not left loaded. (10-module-churn
# clears the log once; this reads what has come since.) Busybox sh.
# shellcheck source=../lib/guest/lib.sh
. /kvmchurn/lib.sh

if grep -q '^kvmchurn ' /proc/modules; then not_ok "kvmchurn is not left loaded"; else ok "kvmchurn is not left loaded"; fi
# (a debug kernel says at boot that "RCU lockdep checking is enabled")
# (the kernel's own races, known-splats.awk's, are not reports of this)
dmesg >/tmp/kc.dmesg
awk -f /kvmchurn/known-splats.awk /tmp/kc.dmesg >/tmp/kc.dmesg.judged
splat=$(grep -E 'WARNING|BUG:|Oops|lockdep|possible circular locking|Call Trace|oom-killer|kretprobe' /tmp/kc.dmesg.judged |
	grep -v 'lockdep checking is enabled')
known=$(($(wc -l </tmp/kc.dmesg) - $(wc -l </tmp/kc.dmesg.judged)))
[ "$known" = 0 ] || echo "# $known lines of the kernel's own races left out (known-splats.awk)"
if [ -z "$splat" ]; then
	ok "dmesg: no warning, bug, oops, lockdep or OOM report"
else
	not_ok "dmesg: no warning, bug, oops, lockdep or OOM report"
	echo "$splat" | sed 's/^/# /'
fi
exit 0

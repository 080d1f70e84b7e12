#!/bin/sh
# 85-fault-kmemleak (debug kernel): after every scenario before it has loaded
# and unloaded kvmchurn.ko (and the KUnit module) many times, a kmemleak scan
# finds nothing new since 01-kmemleak-clear.
# shellcheck source=../../lib/guest/lib.sh
. /kvmchurn/lib.sh
K=/sys/kernel/debug/kmemleak
check "kvmchurn is unloaded" sh -c '! grep -q "^kvmchurn" /proc/modules'
# kmemleak reports objects older than 5 s, seen unreferenced by a scan
sleep 6
echo scan >$K
echo scan >$K
cat $K >/tmp/kc.leaks
n=$(grep -c '^unreferenced object' /tmp/kc.leaks)
is "kmemleak: objects leaked since boot" "$n" 0
head -n 40 /tmp/kc.leaks | sed 's/^/# /'
exit 0

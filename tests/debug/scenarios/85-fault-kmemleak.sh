#!/bin/sh
# 85-fault-kmemleak (debug kernel): after every scenario before it has loaded
# and unloaded kvmchurn.ko (and the KUnit module) many times, a kmemleak scan
# finds nothing new since 01-kmemleak-clear.
# shellcheck source=../../lib/guest/lib.sh
. /kvmchurn/lib.sh
check "kvmchurn is unloaded" sh -c '! grep -q "^kvmchurn" /proc/modules'
# the last module unloaded just before: its objects older than 5 s
sleep 6
is "kmemleak: objects leaked since boot" "$(kmemleak_suspects /tmp/kc.leaks)" 0
head -n 40 /tmp/kc.leaks | sed 's/^/# /'
exit 0

#!/bin/sh
# 01-kmemleak-clear (debug kernel): before any kvmchurn code is loaded, scan
# and forget what kmemleak suspects from boot, so that 85-fault-kmemleak sees
# only what came after.
# shellcheck source=../../lib/guest/lib.sh
. /kvmchurn/lib.sh
K=/sys/kernel/debug/kmemleak
check "kmemleak is on" [ -w $K ]
echo scan >$K
n=$(grep -c '^unreferenced object' $K)
echo "# kmemleak suspects $n objects from boot; forgotten"
check "kmemleak clear" sh -c "echo clear >$K"
exit 0

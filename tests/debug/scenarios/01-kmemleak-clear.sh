#!/bin/sh
# 01-kmemleak-clear (debug kernel): before any kvmchurn code is loaded, scan
# and forget what kmemleak suspects from boot, so that 85-fault-kmemleak sees
# only what came after.
# shellcheck source=../../lib/guest/lib.sh
. /kvmchurn/lib.sh
check "kmemleak is on" [ -w $KMEMLEAK ]
check "kmemleak: what it suspects from boot forgotten" kmemleak_forget
exit 0

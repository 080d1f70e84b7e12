#!/bin/sh
# 57-stall: the tests' stall module (tests/stall) holds VMM teardowns for real, as the
# stalls kvmchurn is to detect happen: VMMs (guest/kvmhold.c, a VM each) whose pids
# were written to its hold file wait in exit_mmap(), inside the MMU notifiers'
# global SRCU read section, until release; meanwhile a VMM not held waits behind
# them in synchronize_srcu(). Every wait is for an event (the module's waiting
# count, a stack); kvmchurn itself is not loaded. Busybox sh; leaves the stall
# module unloaded.
# shellcheck source=../lib/guest/lib.sh
. /kvmchurn/lib.sh
S=/sys/kernel/debug/kvmchurn_stall
N=4	# VMMs held at once
W=/tmp/kc-stall

insmod /kvmchurn/kvmchurn_stall.ko || bail_out "insmod kvmchurn_stall.ko"
mkdir -p $W

# bad writes change nothing: a pid that is not there, no pid, a kernel thread (no mm)
refused() { # refused FILE VALUE WHY: the write fails
	if printf '%s' "$2" >"$S/$1" 2>/dev/null; then not_ok "$1 $3 refused"; else ok "$1 $3 refused"; fi
}
refused hold 999999 "of a pid that is not there"
refused hold abc "of no number"
refused hold 0 "of pid 0"
refused hold 2 "of a kernel thread (kthreadd)"
refused release 2 "of 2"
is "nothing waits" "$(cat $S/waiting)" 0

# N + 1 VMMs, each with its VM: the first N held
i=0
while [ $i -le $N ]; do
	/kvmchurn/bin/kvmhold $W/ready.$i &
	echo $! >$W/pid.$i
	i=$((i + 1))
done
all_ready() {
	n=0
	for f in "$W"/ready.*; do [ -e "$f" ] && n=$((n + 1)); done
	[ $n = $((N + 1)) ]
}
wait_for "$KC_WAIT" all_ready || bail_out "$((N + 1)) kvmholds ready"
held=''
i=0
while [ $i -lt $N ]; do
	held="$held $(cat $W/pid.$i)"
	i=$((i + 1))
done
free=$(cat $W/pid.$N)
for p in $held; do
	echo "$p" >$S/hold || not_ok "hold $p"
done
ok "$N VMMs held:$held"

# the held ones end: each waits in its release, in exit_mmap()
for p in $held; do kill -TERM "$p"; done
waiting_n() { [ "$(cat $S/waiting)" = "$1" ]; }
if wait_for "$KC_WAIT" waiting_n $N; then ok "all $N wait in their release"; else not_ok "waiting: $(cat $S/waiting), want $N"; fi
p=${held# }
p=${p%% *}
sed 's/^/# held VMM: /' "/proc/$p/stack"
check "a held VMM waits in exit_mmap()" grep -q exit_mmap "/proc/$p/stack"

# one not held ends too: it waits for the held readers, in synchronize_srcu()
kill -TERM "$free"
in_srcu() { grep -q synchronize_srcu "/proc/$free/stack" 2>/dev/null; }
if wait_for "$KC_WAIT" in_srcu; then ok "the VMM not held waits in synchronize_srcu()"; else not_ok "the VMM not held waits in synchronize_srcu()"; fi
sed 's/^/# VMM not held: /' "/proc/$free/stack"
alive=0
for p in $held $free; do kill -0 "$p" 2>/dev/null && alive=$((alive + 1)); done
is "VMMs still there before the release" $alive $((N + 1))

# the release: every one of them ends, as a VMM that exits ends
check "release" sh -c "echo 1 >$S/release"
rcs=''
for p in $held $free; do
	wait "$p"
	rcs="$rcs $?"
done
zeros=''
for p in $held $free; do zeros="$zeros 0"; done
is "the VMMs' exit statuses" "${rcs# }" "${zeros# }"
is "nothing waits after the release" "$(cat $S/waiting)" 0

# its table's bound: 64 holds a load, the 65th refused (a process alive meanwhile,
# held over and over; released before it ends)
sleep 3600 &
sl=$!
n=$N
while [ $n -lt 64 ] && echo $sl >$S/hold; do n=$((n + 1)); done
is "holds taken up to the bound" $n 64
refused hold $sl "past 64"
check "release" sh -c "echo 1 >$S/release"
kill "$sl"
wait "$sl"
check "rmmod kvmchurn_stall" rmmod kvmchurn_stall
rm -rf $W
tap_done

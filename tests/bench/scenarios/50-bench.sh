#!/bin/sh
# 50-bench (make bench, not a test): what loading kvmchurn costs the guest, the
# configurations alternated round by round so that the machine's drift cancels.
#   A: no module; B: kvmchurn, filter=firecracker (nothing of the load matches);
#   C: kvmchurn, filter=* (every exit recorded).
# Per round: forkexit's ns per fork + exit + waitpid in A, B, C; and the VMs a
# second of `kvmchurn load --end kill` in A and B. One "# bench KIND CFG ROUND VALUE"
# line a measurement; tests/bench/run.sh computes the ratios. Busybox sh.
# shellcheck source=../../vm/guest/tap.sh
. /kvmchurn/tap.sh
. /kvmchurn/bench.conf	# BENCH_ROUNDS BENCH_EXITS BENCH_VMS
kc_loaded() { grep -q "^kvmchurn " /proc/modules; }
unload() { ! kc_loaded || rmmod kvmchurn; }
config() { # config A|B|C
	unload
	case $1 in
	B) insmod "$KVMCHURN_KO" filter=firecracker ;;
	C) insmod "$KVMCHURN_KO" 'filter=*' ;;
	esac
}
r=1
while [ $r -le "$BENCH_ROUNDS" ]; do
	for c in A B C; do
		if ! config $c; then
			not_ok "round $r: configuration $c"
			continue
		fi
		ns=$(forkexit "$BENCH_EXITS") && echo "# bench exit $c $r $ns" ||
			not_ok "round $r $c: forkexit"
	done
	for c in A B; do
		config $c || { not_ok "round $r: configuration $c"; continue; }
		if kvmchurn load -n "$BENCH_VMS" -j 2 --mem 16 --end kill --json >/tmp/bench.json 2>/tmp/bench.err; then
			rate=$(sed -n 's/.*"rate_per_s": *\([0-9.]*\).*/\1/p' /tmp/bench.json)
			echo "# bench churn $c $r $rate"
		else
			not_ok "round $r $c: kvmchurn load: $(cat /tmp/bench.err)"
		fi
	done
	ok "round $r"
	r=$((r + 1))
done
unload
exit 0

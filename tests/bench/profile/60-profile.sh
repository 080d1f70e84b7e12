#!/bin/sh
# 60-profile (make bench-profile, not a test): where the unmatched exits' added
# cost goes. perf (Debian's, run through its own dynamic loader from
# /kvmchurn/perf) samples the whole guest on cpu-clock while forkexit runs,
# without the module (A) and with it (B, filter=firecracker); under QEMU's
# icount a sample is every PERIOD instructions. One "# profile CFG SAMPLES
# SYMBOL" line a symbol; tests/bench/profile.sh compares the two.
# shellcheck source=../../vm/guest/tap.sh
. /kvmchurn/tap.sh
. /kvmchurn/bench.conf # PROFILE_EXITS PROFILE_PERIOD
P=/kvmchurn/perf
perf() { "$P"/lib/ld-linux-* --library-path "$P/lib" "$P/perf" "$@"; }

aslr=$(cat /proc/sys/kernel/randomize_va_space)
echo 0 >/proc/sys/kernel/randomize_va_space # as make bench
for c in A B A B; do
	! kc_loaded || rmmod kvmchurn
	[ $c = A ] || insmod "$KVMCHURN_KO" filter=firecracker || { not_ok "insmod"; continue; }
	if ! perf record -q -e cpu-clock -c "$PROFILE_PERIOD" -a -o /tmp/perf.data \
		-- forkexit "$PROFILE_EXITS" >/tmp/perf.out 2>&1; then
		not_ok "perf record ($c): $(tail -n 3 /tmp/perf.out)"
		continue
	fi
	sed "s/^/# profile $c ns /" /tmp/perf.out
	# samples by symbol, kernel and user
	perf report -i /tmp/perf.data --stdio --no-children --sort sym -F sample,sym \
		2>/dev/null | awk -v c=$c '$1 ~ /^[0-9]+$/ && NF >= 3 { print "# profile " c " " $1 " " $3 }'
	ok "profile $c"
done
! kc_loaded || rmmod kvmchurn
echo "$aslr" >/proc/sys/kernel/randomize_va_space
exit 0

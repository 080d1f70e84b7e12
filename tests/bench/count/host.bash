# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2154 # opt, WORK, GUEST, KC_BENCH: bench.sh's, which sources this
# count/host.bash: make bench-count (bench.sh count), the host's half; sourced by
# bench.sh. The cost that make bench measures on unmatched exits, counted instruction by
# instruction instead of sampled: the kernel's probe mechanism against kvmchurn's
# handlers, exactly. Each kernel boots under QEMU's icount, as make bench does, with a
# TCG plugin (insncount.c) that counts every kernel instruction the guest executes, by
# address, between the marks that `forkexit -m` sets around --exits fork + exit +
# waitpid, in A (nothing loaded), F (the floor), B (kvmchurn, filter=firecracker), V (B
# with --alive traced VMs alive; 0: no V and W) and W (F with the same VMs alive)
# (60-count.sh). The report (kosyms.awk, syms.awk, report.awk) takes each address to the
# last symbol at or below it of those the guest printed, and its class: kvmchurn's or
# the floor's handlers (their modules' text), the mechanism (mechanism.sh's functions,
# and the kernel's code outside its text and its modules: the trampolines of ftrace and
# kprobes), the rest (the kernel's other functions and the other modules). Printed,
# instructions an exit: each class by configuration, F - A and B - F and their ratio,
# W - A and V - W (the same with VMs alive), and where F's mechanism and B's handlers go,
# by symbol. Nothing is sampled, so nothing has an interval: what varies from run to run
# is what the rest of the kernel does beside the exits (timers, RCU, the other CPU),
# which the total shows and the classes of the probes do not see.

# kc_bench_count ID...: make bench-count on each kernel; a boot that failed has its FAIL
# line (why) and no report
kc_bench_count() {
	local id rc=0
	for id; do
		kc_load_env "$id"
		kc_bench_work count "$id"
		# QEMU runs on the host, or in the trixie chroot that sees the cache at its path
		gcc -std=c11 -O2 -fPIC -shared -Wall -Wextra -Werror -o "$WORK/insncount.so" \
			"$KC_BENCH/count/insncount.c" || kc_die "$id: the plugin did not build"
		kc_guest_cc "$GUEST/bin/forkexit" "$KC_BENCH/forkexit.c"
		cp "$KC_BENCH/configs.sh" "$GUEST/"
		kc_bench_conf "$GUEST" COUNT exits alive
		printf "COUNT_MECH='%s'\n" "$KC_BENCH_MECH" >>"$GUEST/bench.conf"
		kc_bench_boot "$WORK/verdict" --guest-dir "$GUEST" --qemu-arg -plugin \
			--qemu-arg "$WORK/insncount.so,out=$WORK/counts,arch=$KC_ARCH" \
			--silence 3600 --timeout 7200 "$id" || { rc=1 && continue; }
		echo "$id $KC_KREL, $(date -u +%Y-%m-%d): every kernel instruction counted, ${opt[exits]} exits, A F B, V and W with ${opt[alive]} VMs alive"
		# where boot.sh built the modules (kc_build_dir)
		kc_count_report "$(kc_verdict_log "$WORK/verdict" "$id")" "$WORK/counts" "${KC_CHROOT:-$KVMCHURN_CACHE}/build/vm/$id"
	done
	return "$rc"
}

# kc_count_report LOG COUNTS BUILD: the report of the guest's LOG and the plugin's COUNTS;
# BUILD holds the modules the guest loaded, whose functions the report places
kc_count_report() {
	local log=$1 counts=$2 build=$3 ko mod
	for ko in kvmchurn.ko tests/bench/floor/kvmchurn_floor.ko; do
		mod=${ko##*/} && mod="[${mod%.ko}]"
		{ readelf -SW "$build/$ko" && readelf -sW "$build/$ko"; } | awk -v mod="$mod" -f "$KC_BENCH/count/kosyms.awk"
	done >"$counts.kosyms"
	tr -d '\r' <"$log" | awk -v counts="$counts" -f "$KC_BENCH/goals.awk" -f "$KC_BENCH/addr.awk" \
		-f "$KC_BENCH/count/syms.awk" -f "$KC_BENCH/count/report.awk" "$counts.kosyms" -
	rm -f "$counts.kosyms" "$counts".syms-*
}

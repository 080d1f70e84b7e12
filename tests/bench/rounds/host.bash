# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2154 # opt, WORK, GUEST, KC_BENCH: bench.sh's, which sources this
# rounds/host.bash: make bench (bench.sh rounds), the host's half; sourced by bench.sh.
# In the guest (50-bench.sh), --rounds rounds of the configurations A (nothing), F
# (kvmchurn's probes with empty handlers: floor/), B (kvmchurn, filter=firecracker), C
# (filter=*), P and Q (the tracefs peer, filtered and not), S (the seed, the user's copy
# of kvm_churn_breakdown.bt given by --seed, which kvmchurn does not ship, run by
# bookworm's bpftrace from a root image on the guest's disk, made once and cached as the
# kernels are), and where the kernel has fprobe K and L (kvmchurn and the floor with
# fprobes=1), in an order reversed every other round so that a linear drift cancels;
# each round --exits fork + exit + waitpid and a churn of --vms VMs; then the misses of
# --storm VMs killed at once, the largest wave taken whole, --alive VMs alive over
# --alive-rounds rounds, and the module's memory against the kernel's numbers. Then
# short boots of 60-cpus.sh with nr_cpus=1, nr_cpus=2 and (x86_64 before 6.9) 256
# possible CPUs: the module's memory there, and 256 computed from 1 and 2. The report
# (report.awk): min, median and max of each ratio over the rounds, whether each goal is
# met, and for the churn's CPU whether the median is resolved from 1 (an interval of the
# rounds' order statistics, which a slow round cannot drag), beside the kernel's memory
# work of each configuration's churn rounds; then the memory by CPUs (cpus.awk).

# kc_bench_rounds ID...: make bench on each kernel
kc_bench_rounds() {
	local id rc=0
	for id; do
		kc_load_env "$id"
		kc_bench_work rounds "$id"
		kc_guest_cc "$GUEST/bin/forkexit" "$KC_BENCH/forkexit.c"
		kc_guest_cc "$GUEST/bin/cputime" "$KC_BENCH/cputime.c"
		[[ -z ${opt[seed]} ]] || cp "${opt[seed]}" "$GUEST/seed.bt"
		kc_bench_conf "$GUEST" BENCH rounds exits vms storm storm-mib wave-max alive alive-rounds only
		if [[ ${opt[only]} != cpus ]]; then
			kc_rounds_boot "$id" || rc=1
		else
			echo "$id $KC_KREL, $(date -u +%Y-%m-%d): the memory by possible CPUs only (--only cpus)"
		fi
		[[ ${opt[only]} == rounds ]] || kc_rounds_cpus "$id" || rc=1
	done
	return "$rc"
}

# kc_rounds_boot ID: the boot of the rounds, with the seed's root as its disk, and its report
kc_rounds_boot() {
	local id=$1 debarch disk log rc=0
	debarch=$(kc_vmm_debarch)
	disk=$(kc_seed_root_of "$debarch")
	kc_seed_root "$debarch" || kc_die "the seed's root (bpftrace, bookworm, $debarch) could not be made: $disk.log"
	# the boot's verdict (not ok lines: a scenario step that did not work) stays
	kc_bench_boot "$WORK/verdict" --guest-dir "$GUEST" --disk "$disk" --silence 7200 --timeout 7200 "$id" || rc=1
	log=$(kc_verdict_log "$WORK/verdict" "$id")
	[[ -n $log ]] || kc_die "$id: the boot named no log (its verdict: $WORK/verdict)"
	echo "$id $KC_KREL, $(date -u +%Y-%m-%d): ${opt[rounds]} rounds of A F B C P Q S (K L where fprobe), ${opt[exits]} exits and ${opt[vms]} VMs each (log: $log)"
	tr -d '\r' <"$log" | awk -v clock="${opt[clock]}" -v only="${opt[only]}" -v storm="${opt[storm]}" \
		-v storm_mib="${opt[storm-mib]}" -f "$KC_BENCH/goals.awk" -f "$KC_BENCH/rounds/report.awk"
	return "$rc"
}

# kc_rounds_before KREL X.Y: whether the kernel release KREL is older than X.Y
kc_rounds_before() {
	local v=${1%%[-+]*}
	[[ $v != "$2" && $(printf '%s\n' "$v" "$2" | sort -V | head -n 1) == "$v" ]]
}

# kc_rounds_cpus ID: the same module on 1 and 2 possible CPUs, and on 256 where the kernel
# takes possible_cpus= (x86_64 before 6.9; from 6.9 it only lowers what the firmware
# lists, and QEMU lists hotpluggable CPUs without ACPI's online-capable bit, which 6.9
# needs; 256 CPUs present do not boot under TCG in ten minutes); their report
kc_rounds_cpus() {
	local id=$1 boot boots log rc=0
	: >"$WORK/cpus"
	boots=(nr_cpus=1 nr_cpus=2)
	[[ $KC_ARCH != x86_64 ]] || ! kc_rounds_before "$KC_KREL" 6.9 || boots+=(possible_cpus=256)
	for boot in "${boots[@]}"; do
		# a boot that did not come to its log leaves no line (its verdict says why)
		kc_bench_boot "$WORK/verdict-$boot" --boot-args "$boot" --guest-dir "$GUEST" "$id" || rc=1
		log=$(kc_verdict_log "$WORK/verdict-$boot" "$id")
		[[ -z $log ]] || tr -d '\r' <"$log" | sed -n 's/^# bench cpus //p' >>"$WORK/cpus"
	done
	awk -f "$KC_BENCH/rounds/cpus.awk" "$WORK/cpus"
	return "$rc"
}

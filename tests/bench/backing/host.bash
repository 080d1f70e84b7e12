# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2154 # opt, WORK, GUEST, KC_BENCH: bench.sh's, which sources this
# backing/host.bash: make bench-backing (bench.sh backing), the host's half; sourced by
# bench.sh. What exit_mmap and kvm_destroy_vm cost per GiB of guest memory for each
# `kvmchurn load --backing`. One boot a kernel with --mem MiB of memory (60-per-gib.sh:
# --vms VMs of --mib MiB a backing, one at a time, SIGKILLed); here, a table a kernel
# (report.awk): the mean per VM of each metric, divided by the VM's GiB.

# kc_bench_backing ID...: make bench-backing, the kernels booted by one boot.sh
kc_bench_backing() {
	local id rc=0 log
	kc_bench_work backing all
	kc_bench_conf "$GUEST" BACKING vms mib
	kc_bench_boot "$WORK/verdict" --guest-dir "$GUEST" --silence 3600 --timeout 3600 "$@" || rc=$?
	for id; do
		log=$(kc_verdict_log "$WORK/verdict" "$id")
		echo "== $id: exit_mmap and kvm_destroy_vm per GiB of guest memory, by backing"
		[[ -f $log ]] && tr -d '\r' <"$log" | awk -v clock="${opt[clock]}" -f "$KC_BENCH/backing/report.awk" || rc=1
	done
	return "$rc"
}

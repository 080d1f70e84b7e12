#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# backing.sh [ID...]: make bench-backing, what exit_mmap and kvm_destroy_vm cost per GiB
# of guest memory for each `kvmchurn load --backing` (default x86_64-6.1 and arm64-6.1,
# from the vm tier's cache). One boot a kernel with BENCH_GUEST_MIB of memory
# (backing/60-per-gib.sh: BENCH_VMS VMs of BENCH_MIB MiB a backing, one at a time,
# SIGKILLed); here, a table a kernel: the mean per VM of each metric, divided by the
# VM's GiB. Not a test: it fails only on a broken run.
#
# The clock, as make bench's: by default QEMU counts instructions (-icount shift=0,
# one TCG thread), so a guest us is 1000 guest instructions and the numbers do not
# depend on what else the host runs; BENCH_CLOCK=wall boots without icount (real time
# under TCG: it moves with the host's load). Knobs: BENCH_VMS (3), BENCH_MIB (2048,
# at most 3072), BENCH_GUEST_MIB (BENCH_MIB * 2 + 1024), BENCH_CLOCK (icount, wall).
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=../lib/core.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/core.sh"

BENCH_VMS=${BENCH_VMS:-3}
BENCH_MIB=${BENCH_MIB:-2048}
BENCH_GUEST_MIB=${BENCH_GUEST_MIB:-$((BENCH_MIB * 2 + 1024))}
BENCH_CLOCK=${BENCH_CLOCK:-icount}
[[ $BENCH_VMS =~ ^[1-9][0-9]?$ ]] || kc_die "BENCH_VMS=$BENCH_VMS: give 1 to 99 VMs"
if ! [[ $BENCH_MIB =~ ^[0-9]+$ ]] || ((BENCH_MIB < 2 || BENCH_MIB > 3072 || BENCH_MIB % 2)); then
	kc_die "BENCH_MIB=$BENCH_MIB: give an even number of MiB, 2 to 3072 (hugetlb's 2 MiB pages)"
fi
KC_ICOUNT=()
case $BENCH_CLOCK in
icount) KC_ICOUNT=(--icount 0) ;;
wall) ;;
*) kc_die "BENCH_CLOCK=$BENCH_CLOCK: icount or wall" ;;
esac

# kc_backing_report LOG: the table of one boot's "# backing" lines.
kc_backing_report() {
	tr -d '\r' <"$1" | awk -v clock="$BENCH_CLOCK" '
		$1 == "#" && $2 == "backing" && $4 == "absent" { sub(/^# backing /, ""); absent = absent "  " $0 "\n"; next }
		$1 != "#" || $2 != "backing" || NF < 11 { next }
		{
			gib = $4 / 1024; n++
			row[n] = sprintf("%-8s %6d %4d %14.0f %14.0f", $3, $4, $5,
				$8 ? $7 / $8 / gib : -1, $11 ? $10 / $11 / gib : -1)
		}
		END {
			if (!n) { print "  no measurement in the log"; exit 1 }
			printf "%-8s %6s %4s %14s %14s   (%s)\n", "backing", "MiB", "VMs", "exit_mmap/GiB", "destroy_vm/GiB",
				clock == "icount" ? "us of the guest clock: 1000 guest instructions each" : "us, real time under TCG"
			for (i = 1; i <= n; i++) print row[i]
			printf "%s", absent
		}'
}

main() {
	local ids id rc=0 log
	ids=("$@")
	((${#ids[@]})) || ids=(x86_64-6.1 arm64-6.1)
	local conf verdict
	conf=$(mktemp -d) verdict=$(mktemp)
	printf 'VMS=%s\nMIB=%s\n' "$BENCH_VMS" "$BENCH_MIB" >"$conf/backing.conf"
	"$KC_LIB/boot.sh" --scenarios "$KC_TOP/tests/bench/backing" --guest-dir "$conf" "${KC_ICOUNT[@]}" \
		--mem "$BENCH_GUEST_MIB" --silence 3600 --timeout 3600 --no-verdict "${ids[@]}" | tee "$verdict" || rc=$?
	rm -rf "$conf"
	for id in "${ids[@]}"; do
		log=$(kc_verdict_log "$verdict" "$id")
		echo "== $id: exit_mmap and kvm_destroy_vm per GiB of guest memory, by backing"
		[[ -f $log ]] && kc_backing_report "$log" || rc=1
	done
	rm -f "$verdict"
	return "$rc"
}

main "$@"

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# run.sh --seed PATH [ID...]: make bench, what loading kvmchurn costs, measured inside one boot of
# each kernel (default x86_64-6.1 and arm64-6.1, from the vm tier's cache). In the guest
# (scenarios/50-bench.sh), rounds of the configurations A (nothing), F (kvmchurn's probes
# with empty handlers: floor/), B (kvmchurn, filter=firecracker), C (filter=*), P and Q
# (the tracefs peer, filtered and not), S (the seed, the user's copy of
# kvm_churn_breakdown.bt given by --seed, which kvmchurn does not ship, run by bookworm's
# bpftrace from a root image on the guest's disk, made once and cached as the kernels
# are), and where the kernel has fprobe K and L (kvmchurn and the floor with
# fprobes=1), in an order reversed every other round so that a linear drift cancels;
# then the misses of 256 VMs killed at once, and the module's memory against the
# kernel's numbers. Then short boots of scenarios/60-cpus.sh with nr_cpus=1, nr_cpus=2
# and (x86_64 before 6.9) 256 possible CPUs: the module's memory there, and 256 computed
# from 1 and 2. Here: min, median and max of each ratio over the rounds, whether each
# goal is met, and for the churn's CPU whether the median is resolved from 1 (an
# interval of the rounds' order statistics, which a slow round cannot drag), beside the
# kernel's memory work of each configuration's churn rounds. Not a test: nothing here fails
# on a number (a goal not met is printed as such); a broken run fails.
#
# The clock: by default QEMU counts instructions (-icount shift=0, one TCG thread), so a
# guest "ns" is one guest instruction and a round's cost does not depend on what else
# the host runs: the ratios are of instructions executed. BENCH_CLOCK=wall boots
# without icount: real time under TCG, which varies by tens of per cent between rounds.
# Knobs: BENCH_ROUNDS (7), BENCH_EXITS (20000 fork+exit a round), BENCH_VMS (100 a round),
# BENCH_STORM (256 VMs killed together), BENCH_STORM_MIB (1 MiB of guest memory each),
# BENCH_WAVE_MAX (512: the largest wave tried whole), BENCH_ALIVE (1000 traced VMs held
# alive beside the exits), BENCH_ALIVE_ROUNDS (3), BENCH_MEM (the guest's MiB, 3072),
# BENCH_CLOCK (icount, wall), BENCH_ONLY (cpus: only the boots of the memory by CPUs;
# rounds: only the rounds, no misses, waves, VMs alive or memory, for many rounds).
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=../lib/core.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/core.sh"
# shellcheck source-path=SCRIPTDIR source=../lib/vmm.sh
. "$KC_LIB/vmm.sh"
# shellcheck source-path=SCRIPTDIR source=goals.sh
. "$KC_TOP/tests/bench/goals.sh"

BENCH_ROUNDS=${BENCH_ROUNDS:-7}
BENCH_EXITS=${BENCH_EXITS:-20000}
BENCH_VMS=${BENCH_VMS:-100}
BENCH_STORM=${BENCH_STORM:-256}
BENCH_STORM_MIB=${BENCH_STORM_MIB:-1}
BENCH_WAVE_MAX=${BENCH_WAVE_MAX:-512}
BENCH_ALIVE=${BENCH_ALIVE:-1000}
BENCH_ALIVE_ROUNDS=${BENCH_ALIVE_ROUNDS:-3}
# the guest's memory: 1,000 VMs alive at once need about 1.5 GiB of it
BENCH_MEM=${BENCH_MEM:-3072}
BENCH_CLOCK=${BENCH_CLOCK:-icount}
BENCH_ONLY=${BENCH_ONLY:-}
[[ -z $BENCH_ONLY || $BENCH_ONLY == cpus || $BENCH_ONLY == rounds ]] ||
	kc_die "BENCH_ONLY=$BENCH_ONLY: cpus (the memory boots alone), rounds (the rounds alone), or unset"
# The seed's root: bookworm's bpftrace (0.17) and what it needs, a /bin/sh among it (it
# popen()s clang for include paths, and dies when sh is not there); bump when that changes.
KC_BENCH_ROOT_RECIPE=2
KC_BENCH_ROOT_PKGS="bpftrace dash"
KC_BENCH_SEED=

kc_bench_usage() {
	cat <<-'EOF'
		usage: tests/bench/run.sh --seed PATH [ID...]   (make bench SEED=PATH [KERNELS=...])
		  --seed PATH  your copy of the seed script, kvm_churn_breakdown.bt (v3), run beside
		               kvmchurn as configuration S; kvmchurn does not ship it (it carries no
		               licence). Not needed with BENCH_ONLY=cpus.
		  ID           kernels of the matrix (default x86_64-6.1 arm64-6.1)
		Knobs: the BENCH_* variables in this script's header.
	EOF
}

# kc_bench_args ARG...: the flags, into KC_BENCH_SEED; the kernels left in KC_BENCH_IDS.
# Exit 2, before anything is fetched or booted, when the seed is not given or unreadable.
kc_bench_args() {
	KC_BENCH_IDS=()
	while (($#)); do
		case $1 in
		--seed)
			(($# >= 2)) || { echo "run.sh: --seed needs a path" >&2; exit 2; }
			KC_BENCH_SEED=$2
			shift 2
			;;
		--seed=*) KC_BENCH_SEED=${1#--seed=} && shift ;;
		-h | --help) kc_bench_usage && exit 0 ;;
		-*) echo "run.sh: unknown option $1" >&2 && kc_bench_usage >&2 && exit 2 ;;
		*) KC_BENCH_IDS+=("$1") && shift ;;
		esac
	done
	[[ $BENCH_ONLY == cpus || -n $KC_BENCH_SEED ]] || {
		echo "run.sh: make bench runs the seed script beside kvmchurn, and kvmchurn does not ship it (it carries no licence): give your copy, make bench SEED=/path/to/kvm_churn_breakdown.bt" >&2
		exit 2
	}
	[[ $BENCH_ONLY == cpus || (-f $KC_BENCH_SEED && -r $KC_BENCH_SEED && -s $KC_BENCH_SEED) ]] || {
		echo "run.sh: the seed script $KC_BENCH_SEED is not a readable, non-empty file: give your copy of kvm_churn_breakdown.bt" >&2
		exit 2
	}
	return 0
}

# kc_bench_report LOG: the report of one boot's "# bench" lines.
kc_bench_report() {
	tr -d '\r' <"$1" | awk -v clock="$BENCH_CLOCK" -v only="$BENCH_ONLY" -v storm="$BENCH_STORM" -v storm_mib="$BENCH_STORM_MIB" \
		-v goal_share="$KC_BENCH_GOAL_SHARE" -v goal_growth="$KC_BENCH_GOAL_GROWTH" -f "$KC_TOP/tests/bench/report.awk"
}

# kc_bench_before KREL X.Y: whether the kernel release KREL is older than X.Y
kc_bench_before() {
	local v=${1%%[-+]*}
	[[ $v != "$2" && $(printf '%s\n' "$v" "$2" | sort -V | head -n 1) == "$v" ]]
}

# kc_bench_cpus FILE: the memory by possible CPUs, from 60-cpus's "# bench cpus" lines;
# then 256 CPUs by the line through the 1- and 2-CPU files, beside the file of a 256-CPU
# boot where there is one. Exact where each term of the module's formula is fixed or so
# much a CPU (the per-CPU data; return instances before 6.7); from 6.7 an objpool slot
# a CPU holds that CPU's share of the instances, page-rounded, and the line is an upper
# bound (by 2 % at 256 CPUs on x86_64 7.x: 2 pages a slot where the line says 2.03)
kc_bench_cpus() {
	awk '
		function kib(b) { return sprintf("%.1f KiB", b / 1024) }
		# at K N: the value of key K on N CPUs, by the line through 1 and 2 CPUs
		function at(k, n) { return one[k] + (two[k] - one[k]) * (n - 1) }
		BEGIN { printf "  memory by possible CPUs (defaults; the module'\''s memory file, then the kernel'\''s own account, loaded less before):\n" }
		{
			delete f
			for (i = 1; i < NF; i += 2) f[$i] = $(i + 1)
			for (k in f) if (f["possible_cpus"] == 1) one[k] = f[k]; else if (f["possible_cpus"] == 2) two[k] = f[k]; else if (f["possible_cpus"] == 256) big[k] = f[k]
			printf "    %3d CPUs: per-CPU %s a CPU, %s in all; return instances %d, %s; total %s\n", f["possible_cpus"], kib(f["percpu_per_cpu"]), kib(f["percpu"]), f["kretprobe_instances"], kib(f["kretprobes"]), kib(f["total"])
			printf "              kernel: Percpu %+.1f KiB (whole pages a chunk, populated as needed), objpools %s%s, vmalloc areas %s%s (%s)\n", f["kernel_percpu"] / 1024, kib(f["kernel_pools"]), f["kernel_pools"] == 0 ? "" : f["kernel_pools"] == f["kretprobes"] ? " = the module'\''s" : " (module " kib(f["kretprobes"]) ")", kib(f["kernel_vmalloc"]), f["kernel_vmalloc"] == f["vmalloc"] ? " = the module'\''s" : " (module " kib(f["vmalloc"]) ")", f["probes"]
		}
		END {
			if (!NR) { printf "    no data (the boots'\'' not ok lines say why)\n"; exit }
			if (!("total" in one) || !("total" in two)) exit
			bound = two["kretprobes"] != one["kretprobes"] ? "at most " : ""
			printf "    256 CPUs, computed from the 1- and 2-CPU files: per-CPU %s in all; return instances %d, %s%s; total %s%s\n", kib(at("percpu", 256)), at("kretprobe_instances", 256), bound, kib(at("kretprobes", 256)), bound, kib(at("total", 256))
			if ("total" in big)
				printf "              the memory file on 256 possible CPUs: total %s, %s\n", kib(big["total"]), big["total"] == at("total", 256) ? "equal" : sprintf("%+d bytes off", big["total"] - at("total", 256))
			else
				printf "              (no 256-CPU boot: possible_cpus= raises the count before 6.9 only, on x86_64)\n"
		}' "$1"
}

main() {
	local list ids id work log rc=0 debarch disk boot boots
	kc_bench_args "$@"
	list=$(kc_ids "${KC_BENCH_IDS[@]:-x86_64-6.1 arm64-6.1}")
	mapfile -t ids <<<"$list"
	kc_lock
	"$KC_LIB/fetch.sh" "${ids[@]}"
	local -a engine=("$KC_LIB/boot.sh" --scenarios "$KC_TOP/tests/bench/scenarios" --mem "$BENCH_MEM" --no-verdict)
	case $BENCH_CLOCK in
	icount) engine+=(--icount 0) ;;
	wall) ;;
	*) kc_die "BENCH_CLOCK=$BENCH_CLOCK: icount or wall" ;;
	esac
	for id in "${ids[@]}"; do
		kc_load_env "$id"
		work=$KVMCHURN_CACHE/bench/$id
		rm -rf "$work"
		mkdir -p "$work/bin"
		kc_guest_cc "$work/bin/forkexit" "$KC_TOP/tests/bench/forkexit.c"
		kc_guest_cc "$work/bin/cputime" "$KC_TOP/tests/bench/cputime.c"
		[[ -z $KC_BENCH_SEED ]] || cp "$KC_BENCH_SEED" "$work/seed.bt"
		debarch=$(kc_vmm_debarch)
		disk=$KVMCHURN_CACHE/roots/bpftrace-bookworm-$debarch.sqfs
		# shellcheck disable=SC2086 # the packages are words
		kc_root_image "$disk" "$debarch" "$KC_BENCH_ROOT_RECIPE" $KC_BENCH_ROOT_PKGS ||
			kc_die "the seed's root (bpftrace, bookworm, $debarch) could not be made: $disk.log"
		printf 'BENCH_ROUNDS=%s\nBENCH_EXITS=%s\nBENCH_VMS=%s\nBENCH_STORM=%s\nBENCH_STORM_MIB=%s\nBENCH_WAVE_MAX=%s\nBENCH_ALIVE=%s\nBENCH_ALIVE_ROUNDS=%s\nBENCH_ONLY=%s\n' \
			"$BENCH_ROUNDS" "$BENCH_EXITS" "$BENCH_VMS" "$BENCH_STORM" "$BENCH_STORM_MIB" \
			"$BENCH_WAVE_MAX" "$BENCH_ALIVE" "$BENCH_ALIVE_ROUNDS" "$BENCH_ONLY" >"$work/bench.conf"
		if [[ $BENCH_ONLY != cpus ]]; then
			# the boot's verdict (not ok lines: a scenario step that did not work) stays
			"${engine[@]}" --guest-dir "$work" --disk "$disk" --silence 7200 --timeout 7200 \
				"$id" >"$work/verdict" || rc=1
			grep -v ' passed, ' "$work/verdict" || true
			log=$(kc_verdict_log "$work/verdict" "$id")
			[[ -n $log ]] || kc_die "$id: the boot named no log (its verdict: $work/verdict)"
			echo "$id $KC_KREL, $(date -u +%Y-%m-%d): $BENCH_ROUNDS rounds of A F B C P Q S (K L where fprobe), $BENCH_EXITS exits and $BENCH_VMS VMs each (log: $log)"
			kc_bench_report "$log"
		else
			echo "$id $KC_KREL, $(date -u +%Y-%m-%d): the memory by possible CPUs only (BENCH_ONLY=cpus)"
		fi
		# the same module on 1 and 2 possible CPUs, and on 256 where the kernel takes
		# possible_cpus= (x86_64 before 6.9; from 6.9 it only lowers what the firmware
		# lists, and QEMU lists hotpluggable CPUs without ACPI's online-capable bit, which
		# 6.9 needs; 256 CPUs present do not boot under TCG in ten minutes)
		[[ $BENCH_ONLY != rounds ]] || continue
		: >"$work/cpus"
		boots=(nr_cpus=1 nr_cpus=2)
		[[ $KC_ARCH != x86_64 ]] || ! kc_bench_before "$KC_KREL" 6.9 || boots+=(possible_cpus=256)
		for boot in "${boots[@]}"; do
			# a boot that did not come to its log leaves no line (its verdict says why)
			"${engine[@]}" --boot-args "$boot" --guest-dir "$work" "$id" >"$work/verdict-$boot" || rc=1
			grep -v ' passed, ' "$work/verdict-$boot" || true
			log=$(kc_verdict_log "$work/verdict-$boot" "$id")
			[[ -z $log ]] || tr -d '\r' <"$log" | sed -n 's/^# bench cpus //p' >>"$work/cpus"
		done
		kc_bench_cpus "$work/cpus"
	done
	return "$rc"
}

main "$@"

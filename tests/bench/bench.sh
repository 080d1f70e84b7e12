#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# bench.sh MODE [OPTION...] [ID...]: the benchmark, what loading kvmchurn costs, measured
# inside one boot of each kernel ID (default x86_64-6.1 and arm64-6.1, from the vm tier's
# cache) under QEMU. Not a test: nothing here fails on a number (a goal not met is
# printed as such); a broken run fails. `bench.sh --help` lists the modes and options.
#
# One folder a mode, tests/bench/MODE/: host.bash, the host's half (kc_bench_MODE ID...:
# what it builds, the boots, the report), sourced here; the guest's scenarios, *.sh,
# which boot.sh runs in the guest (--scenarios MODE/: every *.sh there, so the host's
# half is not one); the report's .awk programs, which host.bash runs on the boot's log
# (and the unit tier, tests/unit/bench.sh, on saved or made-up logs); the mode's own
# sources (count/insncount.c). Shared, here: goals.awk (the goals the reports judge),
# mechanism.sh (the kernel's probe mechanism, as function names), configs.sh (the
# configurations of the profile and count guests), forkexit.c and cputime.c (the guests'
# programs), addr.awk (kernel addresses, for count), floor/ (the module of configuration
# F). The options are flags, never the environment; the guest gets the values it needs in
# /kvmchurn/bench.conf (MODE_NAME=VALUE lines, written here).
#
# The clock: QEMU counts instructions (-icount shift=0, one TCG thread), so a guest "ns"
# is one guest instruction and a round's cost does not depend on what else the host
# runs; rounds and backing take --clock wall, without icount: real time under TCG, which
# varies by tens of per cent between rounds.
# Exit status: 2 on bad usage (before anything is fetched or booted), 1 when a kernel's
# boot failed (its FAIL or not ok lines say why).
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=../lib/core.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/core.sh"
# shellcheck source-path=SCRIPTDIR source=../lib/vmm.sh
. "$KC_LIB/vmm.sh"
# shellcheck source-path=SCRIPTDIR source=mechanism.sh
. "$KC_TOP/tests/bench/mechanism.sh"
KC_BENCH=$KC_TOP/tests/bench
# opt[NAME]: the value of --NAME; its keys are the options of the mode (kc_bench_defaults)
declare -A opt=()

kc_bench_usage() {
	cat <<-'EOF'
		usage: tests/bench/bench.sh MODE [OPTION...] [ID...]
		       make bench SEED=PATH | bench-profile | bench-count | bench-backing [BENCH='OPTION...'] [KERNELS='ID...']
		Not a test: what loading kvmchurn costs, in one boot of each kernel ID (default
		x86_64-6.1 arm64-6.1) under QEMU; a report a kernel.
		MODE (each a folder tests/bench/MODE/: the guest's scenarios, the report's .awk):
		  rounds   make bench: rounds of A (nothing), F (kvmchurn's probes with empty handlers),
		           B (kvmchurn), C, P, Q (the tracefs peer), S (the seed) and K L (fprobe);
		           misses, waves, VMs alive, memory; then the memory by possible CPUs
		  profile  make bench-profile: where B's cost on unmatched exits goes, by perf's samples
		  count    make bench-count: the same, every kernel instruction counted (a TCG plugin)
		  backing  make bench-backing: exit_mmap and kvm_destroy_vm per GiB, by backing
		OPTION (the modes that take it: its default there):
		  --seed PATH          rounds (needed unless --only cpus): your copy of the seed,
		                       kvm_churn_breakdown.bt (v3), run beside kvmchurn as S; kvmchurn
		                       does not ship it (it carries no licence)
		  --rounds N           rounds: 7 rounds of the configurations; profile: 1 of A F B
		  --exits N            fork + exit + waitpid a run: rounds 20000, profile 10000, count 2000
		  --vms N              rounds: 100 VMs a churn round; backing: 3 VMs a backing (1 to 99)
		  --alive N            traced VMs held alive beside the exits: rounds 1000; profile and
		                       count 1000 (0: no V and W)
		  --alive-rounds N     rounds: 3 rounds with VMs alive
		  --alive-exits N      profile: V's and W's exits (--exits)
		  --storm N            rounds: 256 VMs killed together, for the misses
		  --storm-mib N        rounds: 1 MiB of guest memory each
		  --wave-max N         rounds: 512, the largest wave tried whole
		  --only cpus|rounds   rounds: cpus, only the boots of the memory by CPUs; rounds, only
		                       the rounds (no misses, waves, VMs alive or memory)
		  --period N           profile: 10007 instructions between samples (10000 at the least)
		  --mib N              backing: 2048 MiB a VM, even, 2 to 3072 (hugetlb's 2 MiB pages)
		  --mem MIB            the guest's memory: rounds, profile, count 3072; backing 2 x --mib + 1024
		  --clock icount|wall  rounds, backing: icount, the guest clock counts instructions;
		                       wall, real time under TCG
		  -h, --help           this
		Every option is also --NAME=VALUE.
	EOF
}

# kc_bench_usage_error MESSAGE: MESSAGE, and exit 2
kc_bench_usage_error() {
	echo "bench.sh: $1" >&2
	exit 2
}

# kc_bench_defaults MODE: opt's keys, the options MODE takes, with their defaults ("":
# none, or one computed from another option's value by kc_bench_check)
kc_bench_defaults() {
	case $1 in
	rounds) opt=([seed]="" [rounds]=7 [exits]=20000 [vms]=100 [alive]=1000 [alive-rounds]=3 [storm]=256
		[storm-mib]=1 [wave-max]=512 [only]="" [mem]=3072 [clock]=icount) ;;
	profile) opt=([rounds]=1 [exits]=10000 [alive]=1000 [alive-exits]="" [period]=10007 [mem]=3072) ;;
	count) opt=([exits]=2000 [alive]=1000 [mem]=3072) ;;
	backing) opt=([vms]=3 [mib]=2048 [mem]="" [clock]=icount) ;;
	*) kc_bench_usage_error "no mode '$1': rounds, profile, count or backing (tests/bench/bench.sh --help)" ;;
	esac
}

# kc_bench_old_env: refuse the environment knobs that the options replaced, which a run
# would otherwise ignore
kc_bench_old_env() {
	local v flag
	for v in BENCH_ROUNDS BENCH_EXITS BENCH_VMS BENCH_STORM BENCH_STORM_MIB BENCH_WAVE_MAX BENCH_ALIVE \
		BENCH_ALIVE_ROUNDS BENCH_MEM BENCH_CLOCK BENCH_ONLY BENCH_MIB BENCH_GUEST_MIB PROFILE_EXITS \
		PROFILE_PERIOD PROFILE_ROUNDS PROFILE_ALIVE PROFILE_ALIVE_EXITS PROFILE_MEM COUNT_EXITS \
		COUNT_ALIVE COUNT_MEM; do
		[[ -n ${!v+set} ]] || continue
		flag=${v#*_} && flag=${flag,,} && flag=--${flag//_/-}
		[[ $v != BENCH_GUEST_MIB ]] || flag=--mem
		kc_bench_usage_error "$v is not read any more: give the option $flag ${!v} (make: BENCH='$flag ${!v}'; tests/bench/bench.sh --help)"
	done
}

# kc_bench_args MODE ARG...: MODE into KC_BENCH_MODE, the options into opt, the kernels
# into KC_BENCH_IDS. Exit 2 on a mode or an option that is not one.
kc_bench_args() {
	local name value
	case ${1:-} in
	-h | --help) kc_bench_usage && exit 0 ;;
	"" | -*) kc_bench_usage >&2 && exit 2 ;;
	esac
	KC_BENCH_MODE=$1 KC_BENCH_IDS=()
	kc_bench_defaults "$1"
	shift
	while (($#)); do
		case $1 in
		-h | --help) kc_bench_usage && exit 0 ;;
		--*=*) name=${1%%=*} value=${1#*=} && shift ;;
		--*)
			name=$1
			[[ ${opt[${name#--}]+set} != set || $# -ge 2 ]] || kc_bench_usage_error "$name needs $(kc_bench_what "$name")"
			value=${2:-} && shift $(($# >= 2 ? 2 : 1))
			;;
		-*) kc_bench_usage_error "unknown option $1" ;;
		*) KC_BENCH_IDS+=("$1") && shift && continue ;;
		esac
		[[ ${opt[${name#--}]+set} == set ]] || kc_bench_not_mine "$name"
		opt[${name#--}]=$value
	done
}

# kc_bench_what --NAME: what the option takes
kc_bench_what() {
	case $1 in
	--seed) echo "a path" ;;
	--clock) echo "icount or wall" ;;
	--only) echo "cpus or rounds" ;;
	*) echo "a number" ;;
	esac
}

# kc_bench_not_mine --NAME: exit 2: an option of another mode, or of none
kc_bench_not_mine() {
	local m modes=
	for m in rounds profile count backing; do
		(kc_bench_defaults "$m" && [[ ${opt[${1#--}]+set} == set ]]) && modes+="${modes:+, }$m"
	done
	[[ -n $modes ]] || kc_bench_usage_error "unknown option $1"
	kc_bench_usage_error "$1 is not an option of $KC_BENCH_MODE (the modes that take it: $modes; tests/bench/bench.sh --help)"
}

# kc_bench_number NAME MIN [MAX]: --NAME's value is a whole number from MIN (to MAX); else exit 2
kc_bench_number() {
	local v=${opt[$1]}
	if ! [[ $v =~ ^[0-9]{1,9}$ ]] || ((10#$v < $2 || (${3:-0} > 0 && 10#$v > ${3:-0}))); then
		[[ -z ${3:-} ]] && kc_bench_usage_error "--$1 $v: give a whole number, $2 or more"
		kc_bench_usage_error "--$1 $v: give a whole number, $2 to $3"
	fi
	opt[$1]=$((10#$v))
}

# kc_bench_check: each option's value is one it takes (exit 2 when not), and the defaults
# computed from others; rounds' seed is given and readable, but with --only cpus.
kc_bench_check() {
	local n
	for n in rounds exits vms alive-rounds storm storm-mib wave-max alive-exits; do
		[[ -z ${opt[$n]+set} || ($n == alive-exits && -z ${opt[$n]}) ]] || kc_bench_number "$n" 1
	done
	[[ -z ${opt[alive]+set} ]] || kc_bench_number alive "$([[ $KC_BENCH_MODE == rounds ]] && echo 1 || echo 0)"
	[[ -z ${opt[period]+set} ]] || kc_bench_number period 10000
	[[ $KC_BENCH_MODE != backing ]] || kc_bench_check_backing
	[[ -z ${opt[alive-exits]+set} || -n ${opt[alive-exits]} ]] || opt[alive-exits]=${opt[exits]}
	kc_bench_number mem 256
	[[ -z ${opt[clock]+set} || ${opt[clock]} == icount || ${opt[clock]} == wall ]] ||
		kc_bench_usage_error "--clock ${opt[clock]}: icount or wall"
	[[ $KC_BENCH_MODE == rounds ]] || return 0
	[[ -z ${opt[only]} || ${opt[only]} == cpus || ${opt[only]} == rounds ]] ||
		kc_bench_usage_error "--only ${opt[only]}: cpus (the memory boots alone) or rounds (the rounds alone)"
	[[ ${opt[only]} == cpus || -n ${opt[seed]} ]] ||
		kc_bench_usage_error "make bench runs the seed script beside kvmchurn, and kvmchurn does not ship it (it carries no licence): give your copy, make bench SEED=/path/to/kvm_churn_breakdown.bt"
	[[ ${opt[only]} == cpus || (-f ${opt[seed]} && -r ${opt[seed]} && -s ${opt[seed]}) ]] ||
		kc_bench_usage_error "the seed script ${opt[seed]} is not a readable, non-empty file: give your copy of kvm_churn_breakdown.bt"
}

# kc_bench_check_backing: --vms 1 to 99; --mib even, 2 to 3072; --mem by default 2 x --mib + 1024
kc_bench_check_backing() {
	kc_bench_number vms 1 99
	kc_bench_number mib 2 3072
	((opt[mib] % 2 == 0)) || kc_bench_usage_error "--mib ${opt[mib]}: give an even number of MiB (hugetlb's 2 MiB pages)"
	[[ -n ${opt[mem]} ]] || opt[mem]=$((opt[mib] * 2 + 1024))
}

# kc_bench_conf DIR PREFIX NAME...: DIR/bench.conf, the guest's PREFIX_NAME=VALUE of each
# option NAME (upper case, - as _)
kc_bench_conf() {
	local dir=$1 prefix=$2 n var
	shift 2
	for n; do
		var=${n^^}
		printf '%s_%s=%s\n' "$prefix" "${var//-/_}" "${opt[$n]}"
	done >"$dir/bench.conf"
}

# kc_bench_work MODE ID: WORK, $KVMCHURN_CACHE/bench/MODE/ID afresh, and GUEST, its guest/
# (boot.sh's --guest-dir: copied into the guest's /kvmchurn) with an empty bin/
kc_bench_work() {
	WORK=$KVMCHURN_CACHE/bench/$1/$2 GUEST=$KVMCHURN_CACHE/bench/$1/$2/guest
	rm -rf "$WORK"
	mkdir -p "$GUEST/bin"
}

# kc_bench_boot VERDICT ARG...: boot.sh with MODE's scenarios, the guest's memory and
# clock, and ARGs (its options, then the kernels), its output into VERDICT; prints what is
# not the closing count (a scenario step that did not work, a FAIL, where each log is),
# returns boot.sh's status
kc_bench_boot() {
	local verdict=$1 rc=0
	shift
	local -a clock=(--icount 0)
	[[ ${opt[clock]:-icount} == icount ]] || clock=()
	"$KC_LIB/boot.sh" --scenarios "$KC_BENCH/$KC_BENCH_MODE" --mem "${opt[mem]}" "${clock[@]}" \
		--no-verdict "$@" >"$verdict" || rc=$?
	grep -v ' passed, ' "$verdict" || true
	return "$rc"
}

# each mode's host half: kc_bench_MODE ID..., and what it alone needs
# shellcheck source-path=SCRIPTDIR source=rounds/host.bash
. "$KC_BENCH/rounds/host.bash"
# shellcheck source-path=SCRIPTDIR source=profile/host.bash
. "$KC_BENCH/profile/host.bash"
# shellcheck source-path=SCRIPTDIR source=count/host.bash
. "$KC_BENCH/count/host.bash"
# shellcheck source-path=SCRIPTDIR source=backing/host.bash
. "$KC_BENCH/backing/host.bash"

main() {
	local list ids
	kc_bench_old_env
	kc_bench_args "$@"
	kc_bench_check
	list=$(kc_ids "${KC_BENCH_IDS[@]:-x86_64-6.1 arm64-6.1}")
	mapfile -t ids <<<"$list"
	kc_lock
	"$KC_LIB/fetch.sh" "${ids[@]}"
	"kc_bench_$KC_BENCH_MODE" "${ids[@]}"
}

main "$@"

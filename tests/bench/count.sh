#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# count.sh [ID...]: make bench-count, the cost that make bench measures on unmatched
# exits, counted instruction by instruction instead of sampled: the kernel's probe
# mechanism against kvmchurn's handlers, exactly. Each kernel (default x86_64-6.1 and
# arm64-6.1) boots under QEMU's icount, as make bench does, with a TCG plugin
# (count/insncount.c) that counts every kernel instruction the guest executes, by
# address, between the marks that `forkexit -m` sets around COUNT_EXITS fork + exit +
# waitpid, in A (nothing loaded), F (the floor), B (kvmchurn, filter=firecracker), V
# (B with COUNT_ALIVE traced VMs alive) and W (F with the same VMs alive)
# (count/60-count.sh). Here each address goes to the last symbol at or below it of those
# the guest printed, and its class: kvmchurn's or the floor's handlers (their modules'
# text), the mechanism (tests/bench/mechanism.sh's functions, and the kernel's code
# outside its text and its modules: the trampolines of ftrace and kprobes), the rest
# (the kernel's other functions and the other modules).
# Printed, instructions an exit: each class by configuration, F - A and B - F and their
# ratio, W - A and V - W (the same with VMs alive), and where F's mechanism and B's
# handlers go, by symbol.
# Nothing is sampled, so nothing has an interval: what varies from run to run is what
# the rest of the kernel does beside the exits (timers, RCU, the other CPU), which the
# total shows and the classes of the probes do not see.
# Knobs: COUNT_EXITS (2000), COUNT_ALIVE (1000; 0: no V and W), COUNT_MEM (the
# guest's MiB, 3072: room for the VMs alive).
# Exit status: 1 when a kernel's boot failed (its FAIL line says why; no report for it).
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=../lib/core.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/core.sh"
# shellcheck source-path=SCRIPTDIR source=mechanism.sh
. "$KC_TOP/tests/bench/mechanism.sh"
# shellcheck source-path=SCRIPTDIR source=goals.sh
. "$KC_TOP/tests/bench/goals.sh"

COUNT_EXITS=${COUNT_EXITS:-2000}
COUNT_ALIVE=${COUNT_ALIVE:-1000}
COUNT_MEM=${COUNT_MEM:-3072}
[[ $COUNT_EXITS =~ ^[1-9][0-9]*$ ]] || kc_die "COUNT_EXITS=$COUNT_EXITS: give a number of exits, 1 or more"
[[ $COUNT_ALIVE =~ ^[0-9]+$ ]] || kc_die "COUNT_ALIVE=$COUNT_ALIVE: give a number of VMs, 0 for none"

# kc_count_kosyms KO MODULE: the functions of a module file, "MODULE SECTION OFFSET NAME",
# and where each of its text sections ends, "MODULE SECTION SIZE [end]".
kc_count_kosyms() {
	{ readelf -SW "$1" && readelf -sW "$1"; } | awk -v mod="$2" '
		/^ *\[ *[0-9]+\] / {
			gsub(/[][]/, " "); sec[$1] = $2
			if ($2 ~ /^\.text/) print mod, $2, $6, "[end]"
			next
		}
		$4 == "FUNC" && $7 ~ /^[0-9]+$/ { print mod, sec[$7], $2, $8 }'
}

# kc_count_syms LOG CFG KOSYMS: the symbols of CFG's run, "ADDRESS ORDER NAME CLASS"
# sorted by address (addr(), in decimal), then ORDER, so that where one thing ends where another
# begins, the one that begins is last: what the guest printed of the kernel's text, each
# module's core (kvmchurn's and the floor's, the handlers, their functions from KOSYMS
# where the guest said their sections are), and after the kernel's text and each
# module's end whatever is outside them: the kernel's trampolines, the mechanism (also
# after the end of each of kvmchurn's and the floor's text sections, and where the guest
# printed a trampoline: from 6.4 a module's core is not one block, and its size in
# /proc/modules runs past its text, over what the kernel put after it).
kc_count_syms() {
	tr -d '\r' <"$1" | awk -v c="$2" -f "$KC_TOP/tests/bench/addr.awk" -f "$KC_TOP/tests/bench/count-syms.awk" "$3" - |
		sort -k1,1n -k2,2n
}

# kc_count_report LOG COUNTS BUILD: instructions an exit by class and configuration, the
# ratios, and where B's handlers go; BUILD holds the modules the guest loaded.
kc_count_report() {
	local log=$1 counts=$2 build=$3 c tables=()
	{
		kc_count_kosyms "$build/kvmchurn.ko" "[kvmchurn]"
		kc_count_kosyms "$build/tests/bench/floor/kvmchurn_floor.ko" "[kvmchurn_floor]"
	} >"$counts.kosyms"
	for c in $(tr -d '\r' <"$log" | awk '$1 == "#" && $2 == "count" && $3 == "run" { print $4 }'); do
		kc_count_syms "$log" "$c" "$counts.kosyms" >"$counts.syms-$c"
		tables+=("$counts.syms-$c")
	done
	((${#tables[@]})) || { echo "  no run was counted (the boot's not ok lines say why)"; return 0; }
	tr -d '\r' <"$log" | awk -v counts="$counts" -v goal_share="$KC_BENCH_GOAL_SHARE" -v goal_growth="$KC_BENCH_GOAL_GROWTH" -f "$KC_TOP/tests/bench/addr.awk" -f "$KC_TOP/tests/bench/count-report.awk"
	rm -f "${tables[@]}" "$counts.kosyms"
}

main() {
	local list ids id work rc=0 ok
	list=$(kc_ids "${@:-x86_64-6.1 arm64-6.1}")
	mapfile -t ids <<<"$list"
	kc_lock
	"$KC_LIB/fetch.sh" "${ids[@]}"
	for id in "${ids[@]}"; do
		kc_load_env "$id"
		ok=1 work=$KVMCHURN_CACHE/bench/count-$id
		rm -rf "$work"
		mkdir -p "$work/guest/bin"
		# QEMU runs on the host, or in the trixie chroot that sees the cache at its path
		gcc -std=c11 -O2 -fPIC -shared -Wall -Wextra -Werror -o "$work/insncount.so" \
			"$KC_TOP/tests/bench/count/insncount.c" || kc_die "$id: the plugin did not build"
		kc_guest_cc "$work/guest/bin/forkexit" "$KC_TOP/tests/bench/forkexit.c"
		cp "$KC_TOP/tests/bench/configs.sh" "$work/guest/"
		printf "COUNT_EXITS=%s\nCOUNT_ALIVE=%s\nCOUNT_MECH='%s'\n" "$COUNT_EXITS" "$COUNT_ALIVE" "$KC_BENCH_MECH" >"$work/guest/bench.conf"
		"$KC_LIB/boot.sh" --scenarios "$KC_TOP/tests/bench/count" --guest-dir "$work/guest" --icount 0 \
			--mem "$COUNT_MEM" --qemu-arg -plugin --qemu-arg "$work/insncount.so,out=$work/counts,arch=$KC_ARCH" \
			--silence 3600 --timeout 7200 --no-verdict "$id" >"$work/verdict" || ok=0
		grep -v ' passed, ' "$work/verdict" || true
		((ok)) || { rc=1; continue; }
		echo "$id $KC_KREL, $(date -u +%Y-%m-%d): every kernel instruction counted, $COUNT_EXITS exits, A F B, V and W with $COUNT_ALIVE VMs alive"
		# where boot.sh built the modules (kc_build_dir)
		kc_count_report "$(kc_verdict_log "$work/verdict" "$id")" "$work/counts" "${KC_CHROOT:-$KVMCHURN_CACHE}/build/vm/$id"
	done
	return "$rc"
}

# sourced by tests/unit/bench.sh, which tests the report on logs of its own
[[ ${BASH_SOURCE[0]} != "$0" ]] || main "$@"

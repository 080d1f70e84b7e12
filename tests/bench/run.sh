#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# run.sh [ID...]: make bench, what loading kvmchurn costs, measured inside one boot of
# each kernel (default x86_64-6.1 and arm64-6.1, from the vm tier's cache): rounds of
# configurations A (no module), B (kvmchurn, filter=firecracker: nothing matches) and
# C (filter=*), alternated so that drift cancels (scenarios/50-bench.sh); prints min,
# median and max of each ratio over the rounds. Not a test: nothing here fails on a
# number; a goal not met is printed as such.
# Knobs: BENCH_ROUNDS (5), BENCH_EXITS (20000 fork+exit a round), BENCH_VMS (100 a round).
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=../vm/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../vm/lib.sh"

BENCH_ROUNDS=${BENCH_ROUNDS:-5}
BENCH_EXITS=${BENCH_EXITS:-20000}
BENCH_VMS=${BENCH_VMS:-100}

# kc_bench_report LOG: the ratios of one boot's "# bench" lines.
kc_bench_report() {
	tr -d '\r' <"$1" | awk '
		$1 == "#" && $2 == "bench" { v[$3, $4, $5] = $6; if ($5 > rounds) rounds = $5 }
		function stats(name, n, a, goal, f,   i, j, t, med) {
			if (!n) { printf "  %-44s no data\n", name; return }
			for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
			med = n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
			if (f == "") f = "%9.4f"
			printf "  %-44s min " f "  median " f "  max " f, name, a[1], med, a[n]
			if (goal != "") printf "  goal <= %s: %s", goal, med <= goal ? "met" : "NOT met"
			printf "\n"
		}
		END {
			for (r = 1; r <= rounds; r++) {
				if (v["exit", "A", r] && v["exit", "B", r]) { nb++; b[nb] = v["exit", "B", r] / v["exit", "A", r]; db[nb] = v["exit", "B", r] - v["exit", "A", r] }
				if (v["exit", "A", r] && v["exit", "C", r]) { nc++; c[nc] = v["exit", "C", r] / v["exit", "A", r]; dc[nc] = v["exit", "C", r] - v["exit", "A", r] }
				if (v["churn", "A", r] && v["churn", "B", r]) { nk++; k[nk] = v["churn", "A", r] / v["churn", "B", r] }
				if (v["exit", "A", r]) { na++; ea[na] = v["exit", "A", r] }
				if (v["churn", "A", r]) { nr++; ra[nr] = v["churn", "A", r] }
			}
			printf "  %d rounds\n", rounds
			stats("fork+exit+waitpid without the module, ns", na, ea, "", "%9.0f")
			stats("unmatched exits: with (filter=firecracker) / without", nb, b, "1.01", "")
			stats("  added ns an exit", nb, db, "", "%9.0f")
			stats("every exit recorded (filter=*) / without", nc, c, "", "")
			stats("  added ns an exit", nc, dc, "", "%9.0f")
			stats("kvmchurn load VMs/s without the module", nr, ra, "", "%9.2f")
			stats("churn: VMs/s without / with the module", nk, k, "1.02", "")
		}'
}

main() {
	local list ids id work arch cc log
	list=$(kc_ids "${@:-x86_64-6.1 arm64-6.1}")
	mapfile -t ids <<<"$list"
	kc_lock
	"$KC_VM_DIR/fetch.sh" "${ids[@]}"
	for id in "${ids[@]}"; do
		kc_load_env "$id"
		work=$KVMCHURN_CACHE/bench/$id
		rm -rf "$work"
		mkdir -p "$work/bin"
		[[ $KC_ARCH == arm64 ]] && cc=aarch64-linux-gnu-gcc || cc=gcc
		"$cc" -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O2 -static \
			-o "$work/bin/forkexit" "$KC_TOP/tests/bench/forkexit.c"
		printf 'BENCH_ROUNDS=%s\nBENCH_EXITS=%s\nBENCH_VMS=%s\n' \
			"$BENCH_ROUNDS" "$BENCH_EXITS" "$BENCH_VMS" >"$work/bench.conf"
		KVMCHURN_SCENARIO_DIR=$KC_TOP/tests/bench/scenarios KVMCHURN_GUEST_DIR=$work \
			KVMCHURN_VM_TIMEOUT=${KVMCHURN_VM_TIMEOUT:-7200} "$KC_VM_DIR/run.sh" "$id" | grep -v ' passed, ' || true
		log=$KVMCHURN_CACHE/logs/$id-latest.log
		echo "$id $KC_KREL: $BENCH_ROUNDS rounds of A B C, $BENCH_EXITS exits and $BENCH_VMS VMs each (log: $log)"
		kc_bench_report "$log"
	done
}

main "$@"

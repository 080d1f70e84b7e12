#!/usr/bin/env bash
# tier.sh [ID]: the debug tier (`make check-debug`; ID x86_64-debug-rt: check-debug-rt,
# x86_64-debug-7: check-debug-7). On the debug kernel that lib/debug-kernel/kernel.sh
# builds (KASAN, UBSAN, lockdep, kmemleak, DEBUG_PREEMPT, KUnit, no BTF): the kernel's own checkpatch
# on our kernel code, the build tier (module and KUnit suites, W=1 C=1), then the vm
# tier with the KUnit scenario, the fault scenarios of scenarios/ and, of the other
# kernels' scenarios, 30-metrics, 40-late-modules, 57-stall and the cheap ones
# (lib/matrix.sh's KC_DEBUG_SCENARIOS; all of them with FULL=1). Each of those is a named test with a verdict; the last line is
# "N passed, N failed", and the exit status is 1 if any failed. A scenario with a
# "# boot: ARGS" line (68-lockdown: lockdown=integrity) runs in a boot of its own, with
# ARGS on the kernel's command line and kvmchurn.ko also signed (signed/: with the
# kernel's own key; foreign/: with a key the kernel does not trust).
# Knobs: KVMCHURN_CACHE, SCENARIOS, STRESS (tests/README.md).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../lib/core.sh
. "$here/../lib/core.sh"
# shellcheck source=boots.sh
. "$here/boots.sh"

# shellcheck disable=SC2153 # KC_DEBUG_IDS: lib/matrix.sh's
kc_ids_only "usage: tests/debug/tier.sh [${KC_DEBUG_IDS// /|}]   (make check-debug, check-debug-rt, check-debug-7)" "$@"
KC_DEBUG_ID=${1:-x86_64-debug}
kc_is_debug "$KC_DEBUG_ID" || { kc_log "error: $KC_DEBUG_ID is not a debug kernel ($KC_DEBUG_IDS)"; exit 2; }

kc_lock
kc_stress_start
# the guards against a hang (tests/lib/boot.sh): everything runs 3-5 times slower here, and
# twice that again beside STRESS's hogs, so the scenarios may be quiet for longer (a
# kmemleak scan, a KASAN load), and the boot (1,650 s idle) may take far longer in all
# 10-module-churn's and 30-metrics' loads of 4 VMs, not 40: each end mode takes the same
# paths, counted as exactly, and a VM is ten times as slow under KASAN and lockdep (40,
# then 8, made make check outgrow CI's 90 minutes). The scenarios: SCENARIOS's, else the debug
# kernel's depth.
engine=("$KC_LIB/boot.sh" --silence $((${KC_STRESSING:-0} > 0 ? 2400 : 1200)) --timeout 7200 --vms 4
	--scenarios "$KC_TOP/tests/scenarios" --scenarios "$here/scenarios")
if [[ -n ${SCENARIOS:-} ]]; then engine+=(--only "$SCENARIOS"); else engine+=(--depth); fi
kc_apt_setup
kc_apt_update # once for the three tiers below
out=$(mktemp)
trap 'rm -f "$out" "$out".boot*' EXIT

"$KC_TOP/tests/lib/fetch.sh" "$KC_DEBUG_ID" || kc_die "the debug kernel could not be built"
kc_load_env "$KC_DEBUG_ID"

{
	# the kernel's coding style, with the kernel's own checkpatch.pl
	if make -s -C "$KC_TOP" style CHECKPATCH="$KC_KDIR/scripts/checkpatch.pl" >"$out.style" 2>&1; then
		echo "PASS style: checkpatch.pl --strict of $KC_KREL on the module and the KUnit suites"
	else
		sed 's/^/    /' "$out.style" | head -n 30
		echo "FAIL style: checkpatch.pl --strict of $KC_KREL"
	fi
	rm -f "$out.style"
	"$KC_LIB/compile.sh" "$KC_DEBUG_ID" |
		sed -n "s/^\(PASS\|FAIL\) $KC_DEBUG_ID /\1 build: /p; /^    /p" || true
	n=0
	while read -r b; do
		n=$((n + 1))
		# stdin is the list of boots: nothing of a boot may read it
		boot "$b" </dev/null | grep -v ' passed, .* failed$' | tee "$out.boot$n" || true
	done < <(boots)
} | tee "$out"
# The named tests: style, build, each scenario and the kernel log of each boot. The vm
# tier's own verdict line is not one of them, unless a boot never got as far as the
# scenarios.
tests=$(grep -E '^ *(PASS|FAIL) ' "$out" | grep -vE "^(PASS|FAIL) $KC_DEBUG_ID " || true)
for f in "$out".boot*; do
	grep -qE '^    (PASS|FAIL) kernel log' "$f" || tests+=$'\n'$(grep -E "^FAIL $KC_DEBUG_ID " "$f" || true)
done
kc_summary "$(grep -cE '^ *PASS ' <<<"$tests" || true)" "$(grep -cE '^ *FAIL ' <<<"$tests" || true)"

#!/usr/bin/env bash
# run.sh: the debug tier (`make check-debug`). On the debug kernel that kernel.sh
# builds (KASAN, UBSAN, lockdep, kmemleak, KUnit, no BTF): the kernel's own checkpatch
# on our kernel code, the build tier (module and KUnit suites, W=1 C=1), then the vm
# tier with the KUnit scenario, the fault scenarios of scenarios/ and every scenario of
# the other kernels. Each of those is a named test with a verdict; the last line is
# "N passed, N failed", and the exit status is 1 if any failed.
# Knobs: KVMCHURN_CACHE, KVMCHURN_SCENARIOS, KVMCHURN_VM_TIMEOUT, KVMCHURN_METRICS_VMS (8),
# STRESS (tests/vm/README.md).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../vm/lib.sh
. "$here/../vm/lib.sh"

kc_lock
kc_stress_start
# the guards against a hang (tests/vm/run.sh): everything runs 3-5 times slower here, and
# twice that again beside STRESS's hogs, so the scenarios may be quiet for longer (a
# kmemleak scan, a KASAN load), and the boot (1,650 s idle) may take far longer in all
KVMCHURN_VM_SILENCE=${KVMCHURN_VM_SILENCE:-$((${KC_STRESSING:-0} > 0 ? 2400 : 1200))}
KVMCHURN_VM_TIMEOUT=${KVMCHURN_VM_TIMEOUT:-7200}
export KVMCHURN_VM_SILENCE KVMCHURN_VM_TIMEOUT
# 30-metrics' loads of 8 VMs, not 40: each end mode takes the same paths, counted as
# exactly, and a VM is ten times as slow under KASAN and lockdep (40 made the tier
# outgrow CI's 90 minutes)
KVMCHURN_METRICS_VMS=${KVMCHURN_METRICS_VMS:-8}
export KVMCHURN_METRICS_VMS
kc_apt_setup
kc_apt_update # once for the three tiers below
out=$(mktemp)
trap 'rm -f "$out"' EXIT

"$KC_TOP/tests/vm/fetch.sh" "$KC_DEBUG_ID" || kc_die "the debug kernel could not be built"
kc_load_env "$KC_DEBUG_ID"
{
	# the kernel's coding style, with the kernel's own checkpatch.pl
	if make -s -C "$KVMCHURN_SRC" style CHECKPATCH="$KC_KDIR/scripts/checkpatch.pl" >"$out.style" 2>&1; then
		echo "PASS style: checkpatch.pl --strict of $KC_KREL on the module and the KUnit suites"
	else
		sed 's/^/    /' "$out.style" | head -n 30
		echo "FAIL style: checkpatch.pl --strict of $KC_KREL"
	fi
	rm -f "$out.style"
	"$KC_TOP/tests/build/run.sh" "$KC_DEBUG_ID" |
		sed -n "s/^\(PASS\|FAIL\) $KC_DEBUG_ID /\1 build: /p; /^    /p" || true
	"$KC_TOP/tests/vm/run.sh" "$KC_DEBUG_ID" | grep -v ' passed, .* failed$' || true
} | tee "$out"
# The named tests: style, build, each scenario and the kernel log. The vm tier's own
# verdict line is not one of them, unless the boot never got as far as the scenarios.
tests=$(grep -E '^ *(PASS|FAIL) ' "$out" | grep -vE "^(PASS|FAIL) $KC_DEBUG_ID " || true)
grep -qE '^    (PASS|FAIL) kernel log' "$out" || tests+=$'\n'$(grep -E "^FAIL $KC_DEBUG_ID " "$out" || true)
kc_summary "$(grep -cE '^ *PASS ' <<<"$tests" || true)" "$(grep -cE '^ *FAIL ' <<<"$tests" || true)"

#!/usr/bin/env bash
# tier.sh [OPTION...] [ID]: the soak (`make soak`, not in `make check`). On the debug
# kernel (x86_64-debug; x86_64-debug-rt by name), two CPUs, one boot: scenarios/10-soak.sh
# runs --vms VMs in waves of --wave, their ends mixed (SIGKILL, SIGTERM, exit; and
# bookworm's QEMU, from the VMM's root as the guest's disk, killed, termed or quit), the
# filter changed and reset written now and then, and checks at each of --checks
# checkpoints, after a warm-up of --warmup waves, that the counts are exact, nothing
# missed or dropped, the pairing table and the VM records idle, slab, vmalloc and per-CPU
# memory flat, kmemleak clean. Prints the boot's verdict lines, report.awk's table of
# the checkpoints, then "N passed, N failed"; exit 1 if it failed, 2 for a usage error.
# Knobs: SOAK_VMS, SOAK_WAVE, SOAK_CHECKS, SOAK_WARMUP (make soak's flags), KVMCHURN_CACHE,
# STRESS (tests/README.md).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../lib/core.sh
. "$here/../lib/core.sh"

usage="usage: tests/soak/tier.sh [--vms N] [--wave N] [--checks N] [--warmup WAVES] [x86_64-debug|x86_64-debug-rt]
  --vms N         VMs in all (default 20000)
  --wave N        VMs a wave, a third of each end (default 90)
  --checks N      checkpoints after the warm-up (default 10)
  --warmup WAVES  waves before the memory baseline (default 5: each filter and a reset)"
vms=20000 wave=90 checks=10 warmup=5 ids=()
while (($#)); do
	case $1 in
	--help) echo "$usage"; exit 0 ;;
	--vms | --wave | --checks | --warmup)
		[[ ${2:-} =~ ^[1-9][0-9]{0,6}$ ]] || { printf '%s: %s needs a number\n%s\n' "${0##*/}" "$1" "$usage" >&2; exit 2; }
		printf -v "${1#--}" '%s' "$2"
		shift 2 ;;
	-*) printf '%s: unknown option %s\n%s\n' "${0##*/}" "$1" "$usage" >&2; exit 2 ;;
	*) ids+=("$1"); shift ;;
	esac
done
id=${ids[0]:-x86_64-debug}
if ! kc_is_debug "$id" || ((${#ids[@]} > 1)); then printf 'one debug kernel id\n%s\n' "$usage" >&2; exit 2; fi
((wave >= 3 && vms >= wave * (warmup + 1))) ||
	{ echo "tests/soak/tier.sh: --wave 3 or more, and --vms at least a wave more than the warm-up's" >&2; exit 2; }

kc_lock
kc_stress_start
# the VMM's root (tests/lib/vmm.sh), the guest's disk: bookworm's QEMU, one of the ends
# shellcheck source=../lib/vmm.sh
. "$KC_LIB/vmm.sh"
if ! kc_vmm_image amd64; then
	echo "FAIL $id: the VMM's root could not be made (log: $(kc_vmm_image_of amd64).log)"
	kc_summary 0 1
	exit 1
fi
guest=$KVMCHURN_CACHE/build/guest-soak/$id
rm -rf "$guest"
mkdir -p "$guest"
printf 'SOAK_VMS=%s\nSOAK_WAVE=%s\nSOAK_CHECKS=%s\nSOAK_WARMUP=%s\n' "$vms" "$wave" "$checks" "$warmup" >"$guest/soak.conf"
# The guards against a hang (tests/lib/boot.sh): a wave prints its lines, a checkpoint
# (every slab cache shrunk, two kmemleak scans of 2 GB) is the longest quiet part: the
# debug tier's silence. The whole boot: 2 s a VM, twice what one took beside two other
# guests and a kernel build (1 s, report.awk's rate), and an hour for the boot.
out=$(mktemp)
trap 'rm -f "$out"' EXIT
set +e
"$KC_LIB/boot.sh" --scenarios "$here/scenarios" --guest-dir "$guest" --smp 2 --disk "$(kc_vmm_image_of amd64)" \
	--silence $((${KC_STRESSING:-0} > 0 ? 2400 : 1200)) --timeout $((3600 + 2 * vms)) \
	--out "$KVMCHURN_CACHE/out/soak" --no-verdict "$id" | tee "$out" | grep -v ' passed, .* failed$'
set -e
log=$(sed -n 's/^    log: //p' "$out" | tail -n 1)
[[ -n $log && -f $log ]] || log=$KVMCHURN_CACHE/logs/$id-latest.log
echo "    the soak's checkpoints ($log):"
awk -f "$here/report.awk" "$log" | sed 's/^/      /'
# the named tests: the scenario and the kernel log (the debug kernel's verdict lines)
tests=$(grep -E '^    (PASS|FAIL) ' "$out" || true)
[[ -n $tests ]] || tests=$(grep -E "^FAIL $id" "$out" || echo "FAIL $id: no verdict")
kc_summary "$(grep -cE '^ *PASS ' <<<"$tests" || true)" "$(grep -cE '^ *FAIL ' <<<"$tests" || true)"

#!/usr/bin/env bash
# tier.sh [ID]: the debug tier (`make check-debug`; ID x86_64-debug-rt: check-debug-rt). On the debug kernel that lib/debug-kernel/kernel.sh
# builds (KASAN, UBSAN, lockdep, kmemleak, DEBUG_PREEMPT, KUnit, no BTF): the kernel's own checkpatch
# on our kernel code, the build tier (module and KUnit suites, W=1 C=1), then the vm
# tier with the KUnit scenario, the fault scenarios of scenarios/ and the scenarios of
# the other kernels that run module code of their own (lib/matrix.sh's KC_DEBUG_SCENARIOS; all
# of them with FULL=1). Each of those is a named test with a verdict; the last line is
# "N passed, N failed", and the exit status is 1 if any failed. A scenario with a
# "# boot: ARGS" line (68-lockdown: lockdown=integrity) runs in a boot of its own, with
# ARGS on the kernel's command line and kvmchurn.ko also signed (signed/: with the
# kernel's own key; foreign/: with a key the kernel does not trust).
# Knobs: KVMCHURN_CACHE, SCENARIOS, STRESS (tests/README.md).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../lib/core.sh
. "$here/../lib/core.sh"

kc_ids_only "usage: tests/debug/tier.sh [x86_64-debug|x86_64-debug-rt]   (make check-debug, check-debug-rt)" "$@"
KC_DEBUG_ID=${1:-x86_64-debug}
kc_is_debug "$KC_DEBUG_ID" || { kc_log "error: $KC_DEBUG_ID is not a debug kernel (x86_64-debug, x86_64-debug-rt)"; exit 2; }

kc_lock
kc_stress_start
# the guards against a hang (tests/lib/boot.sh): everything runs 3-5 times slower here, and
# twice that again beside STRESS's hogs, so the scenarios may be quiet for longer (a
# kmemleak scan, a KASAN load), and the boot (1,650 s idle) may take far longer in all
# 10-module-churn's and 30-metrics' loads of 8 VMs, not 40: each end mode takes the same
# paths, counted as exactly, and a VM is ten times as slow under KASAN and lockdep (40
# made the tier outgrow CI's 90 minutes). The scenarios: SCENARIOS's, else the debug
# kernel's depth.
engine=("$KC_LIB/boot.sh" --silence $((${KC_STRESSING:-0} > 0 ? 2400 : 1200)) --timeout 7200 --vms 8
	--scenarios "$KC_TOP/tests/scenarios" --scenarios "$here/scenarios")
if [[ -n ${SCENARIOS:-} ]]; then engine+=(--only "$SCENARIOS"); else engine+=(--depth); fi
kc_apt_setup
kc_apt_update # once for the three tiers below
out=$(mktemp)
trap 'rm -f "$out" "$out".boot*' EXIT

"$KC_TOP/tests/lib/fetch.sh" "$KC_DEBUG_ID" || kc_die "the debug kernel could not be built"
kc_load_env "$KC_DEBUG_ID"

# boots: one line a boot that the scenarios asked for (SCENARIOS) need: "-" for
# those without a "# boot:" line, else the line's ARGS; the first boot when none matched.
boots() {
	local f n g b sel list='' globs=()
	# read, not word-split: a glob such as "*" must not expand against the current folder
	read -r -a globs <<<"${SCENARIOS:-}"
	for f in "$KC_TOP"/tests/scenarios/*.sh "$here"/scenarios/*.sh; do
		n=${f##*/} sel=${SCENARIOS:+0}
		for g in "${globs[@]}"; do
			# shellcheck disable=SC2053 # $g is a glob on purpose
			if [[ $n == $g ]]; then sel=1; break; fi
		done
		[[ ${sel:-1} == 1 ]] || continue
		b=$(sed -n 's/^# boot: //p' "$f")
		list+="${b:--}"$'\n'
	done
	sort -u <<<"${list:--}" | sed '/^$/d'
}

# signed_guest DIR: what a boot of its own adds to the guest's /kvmchurn (boot.sh's
# --guest-dir): signed/kvmchurn.ko, signed with the key the kernel's build made
# and trusts (make module SIGN_KEY= SIGN_CERT=), and foreign/kvmchurn.ko, signed the
# same way with a key made here, that the kernel does not know.
signed_guest() {
	local g=$1 log=$KVMCHURN_CACHE/logs/$KC_DEBUG_ID-build-signed.log
	rm -rf "$g"
	mkdir -p "$g/signed" "$g/foreign"
	[[ -n ${KC_SIGN_KEY:-} && -r $KC_SIGN_KEY && -r $KC_SIGN_CERT ]] ||
		{ kc_log "the debug kernel has no signing key (kernels/$KC_DEBUG_ID/env: KC_SIGN_KEY)"; return 1; }
	if ! kc_build "$KC_DEBUG_ID" vm-signed "$log" module SIGN_KEY="$KC_SIGN_KEY" SIGN_CERT="$KC_SIGN_CERT"; then
		tail -n 20 "$log" >&2
		return 1
	fi
	cp "$KC_BUILD_DIR/kvmchurn.ko" "$g/signed/"
	if ! openssl req -new -x509 -nodes -days 2 -subj "/CN=kvmchurn tests: a key no kernel trusts" \
		-newkey rsa:2048 -keyout "$g/foreign.pem" -outform DER -out "$g/foreign.der" >"$log.foreign" 2>&1 ||
		! kc_build "$KC_DEBUG_ID" vm-signed "$log.foreign" module SIGN_KEY="$g/foreign.pem" SIGN_CERT="$g/foreign.der"; then
		tail -n 20 "$log.foreign" >&2
		return 1
	fi
	cp "$KC_BUILD_DIR/kvmchurn.ko" "$g/foreign/"
	rm -f "$g/foreign.pem" "$g/foreign.der"
}

# boot ARGS|-: the vm tier on the debug kernel, one boot; "-": the scenarios without a
# "# boot:" line, with the out/ files the rest of the project reads (compatibility.sh).
boot() {
	local g=$KVMCHURN_CACHE/build/guest-signed/$KC_DEBUG_ID
	if [[ $1 == - ]]; then
		"${engine[@]}" "$KC_DEBUG_ID"
	elif signed_guest "$g"; then
		"${engine[@]}" --boot-args "$1" --guest-dir "$g" \
			--out "$KVMCHURN_CACHE/out/boot/${1//[^A-Za-z0-9._=-]/_}" "$KC_DEBUG_ID"
	else
		echo "FAIL $KC_DEBUG_ID $KC_KREL (booted with $1): kvmchurn.ko could not be signed"
	fi
}

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

#!/usr/bin/env bash
# run.sh [ID...]: the build tier. Builds kvmchurn.ko against each kernel of the matrix
# (fetched by tests/vm/fetch.sh) with W=1 C=1 (arm64 with the cross compiler, 7.x in the
# trixie chroot) and fails a kernel on any compiler, sparse or modpost warning or error.
# Ids: arguments, else $KERNELS, else all. Build logs: $KVMCHURN_CACHE/logs/<id>-build.log.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR/../vm source=../vm/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../vm/lib.sh"

KC_FAIL=3 # kc_build_one's status for a judged failure; anything else is a harness error

kc_build_one() {
	local id=$1 log t0 warnings n unchecked
	kc_load_env "$id" || { echo "FAIL $id: not fetched"; return "$KC_FAIL"; }
	kc_spec "$id" # KC_CHECK: the sparse this kernel needs, if not the host's
	mkdir -p "$KVMCHURN_CACHE/logs"
	log=$KVMCHURN_CACHE/logs/$id-build.log
	t0=$SECONDS
	if ! kc_build "$id" build "$log" module W=1 C=1 ${KC_CHECK:+"CHECK=$KC_CHECK"} ||
		[[ ! -f $KC_BUILD_DIR/kvmchurn.ko ]]; then
		grep -iE '(warning|error)' "$log" | head -n 30 | sed 's/^/    /' || tail -n 20 "$log" | sed 's/^/    /'
		echo "FAIL $id $KC_KREL: build failed ($((SECONDS - t0)) s, log: $log)"
		return "$KC_FAIL"
	fi
	# gcc and sparse say "warning:"/"error:", modpost "WARNING: modpost:"
	warnings=$(grep -iE '(warning|error):' "$log" || true)
	if [[ -n $warnings ]]; then
		n=$(wc -l <<<"$warnings")
		head -n 30 <<<"$warnings" | sed 's/^/    /'
		echo "FAIL $id $KC_KREL: $n warning lines ($((SECONDS - t0)) s, log: $log)"
		return "$KC_FAIL"
	fi
	# C=1 must have checked every file it compiled. Kernels from 6.19 on turn it off, with
	# only a make message, when scripts/checker-valid.sh does not vouch for the sparse.
	unchecked=$(comm -23 <(sed -nE 's#^ +CC \[M\] +(.*/)?(module/[^ ]+)\.o$#\2.c#p' "$log" | sort) \
		<(sed -nE 's#^ +CHECK +(.*/)?(module/[^ ]+\.c)$#\2#p' "$log" | sort))
	if [[ -n $unchecked ]] || ! grep -qE '^ +CHECK +' "$log"; then
		grep -E 'not available or not up to date|checker-valid' "$log" | sed 's/^/    /' || true
		unchecked=${unchecked//$'\n'/ }
		echo "FAIL $id $KC_KREL: C=1 but sparse did not check ${unchecked:-anything} ($((SECONDS - t0)) s, log: $log)"
		return "$KC_FAIL"
	fi
	echo "PASS $id $KC_KREL: no warnings, sparse run ($((SECONDS - t0)) s)"
}

kc_run_tier kc_build_one "$@"

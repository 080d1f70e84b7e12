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
	local id=$1 log t0 warnings n note=''
	kc_load_env "$id" || { echo "FAIL $id: not fetched"; return "$KC_FAIL"; }
	mkdir -p "$KVMCHURN_CACHE/logs"
	log=$KVMCHURN_CACHE/logs/$id-build.log
	t0=$SECONDS
	if ! kc_build "$id" build "$log" module W=1 C=1 || [[ ! -f $KC_BUILD_DIR/kvmchurn.ko ]]; then
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
	# C=1 must have checked every file. Kernels from 6.19 on refuse a sparse without
	# __typeof_unqual__ (Debian has none newer than 0.6.4) with a make warning and go
	# on without it: say so in the verdict rather than pass as if it had run.
	if grep -q 'is not available or not up to date' "$log"; then
		note=", sparse NOT run (the kernel refuses sparse $(sparse --version 2>/dev/null | cut -d' ' -f1))"
	elif ! grep -qE '^ +CHECK +' "$log"; then
		echo "FAIL $id $KC_KREL: C=1 but sparse checked nothing ($((SECONDS - t0)) s, log: $log)"
		return "$KC_FAIL"
	fi
	echo "PASS $id $KC_KREL: no warnings$note ($((SECONDS - t0)) s)"
}

main() {
	local list ids id rc passed=0 failed=0
	list=$(kc_ids "$@") # not in <(...): a bad id must stop the run
	mapfile -t ids <<<"$list"
	kc_lock
	"$KC_VM_DIR/fetch.sh" "${ids[@]}" || kc_log "some kernels could not be fetched"
	for id in "${ids[@]}"; do
		set +e
		(set -e; kc_build_one "$id")
		rc=$?
		set -e
		case $rc in
		0) passed=$((passed + 1)) ;;
		"$KC_FAIL") failed=$((failed + 1)) ;;
		*)
			echo "FAIL $id: harness error (exit $rc)"
			failed=$((failed + 1))
			;;
		esac
	done
	kc_summary "$passed" "$failed"
}

main "$@"

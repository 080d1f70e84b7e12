#!/usr/bin/env bash
# compile.sh [ID...]: the build tier's test, and the debug tier's build step. Builds kvmchurn.ko, make bench's floor module
# (tests/bench/floor) and the tests' stall module (tests/stall), against each kernel of the matrix (fetched by tests/lib/fetch.sh)
# with W=1 C=1 (arm64 with the cross compiler, 7.x in the trixie chroot) and fails a
# kernel on any compiler, sparse or modpost warning or error.
# Ids: arguments, else $KERNELS, else all. Build logs: $KVMCHURN_CACHE/logs/<id>-build.log.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=core.sh
. "$(dirname "${BASH_SOURCE[0]}")/core.sh"

# kc_build_target ID TARGET KO DIR LOG: make TARGET with W=1 C=1 and judge it. KO is the
# module it must leave, DIR the folder (module or tests/kunit) whose files sparse must
# have checked. When not clean: prints what is wrong, the last line a summary; returns 1.
kc_build_target() {
	local id=$1 target=$2 ko=$3 dir=$4 log=$5 warnings n unchecked
	if ! kc_build "$id" build "$log" "$target" W=1 C=1 ${KC_CHECK:+"CHECK=$KC_CHECK"} ||
		[[ ! -f $KC_BUILD_DIR/$ko ]]; then
		grep -iE '(warning|error)' "$log" | head -n 30 | sed 's/^/    /' || tail -n 20 "$log" | sed 's/^/    /'
		echo "build of $ko failed (log: $log)"
		return 1
	fi
	# gcc and sparse say "warning:"/"error:", modpost "WARNING: modpost:"
	warnings=$(grep -iE '(warning|error):' "$log" || true)
	if [[ -n $warnings ]]; then
		n=$(wc -l <<<"$warnings")
		head -n 30 <<<"$warnings" | sed 's/^/    /'
		echo "$ko: $n warning lines (log: $log)"
		return 1
	fi
	# C=1 must have checked every file it compiled. Kernels from 6.19 on turn it off, with
	# only a make message, when scripts/checker-valid.sh does not vouch for the sparse.
	# (what kbuild generates, *.mod.c and .module-common.c, is not ours to check)
	unchecked=$(comm -23 <(sed -nE "s#^ +CC \[M\] +(.*/)?($dir/[^ .][^ ]*)\.o\$#\2.c#p" "$log" | grep -v '\.mod\.c$' | sort) \
		<(sed -nE "s#^ +CHECK +(.*/)?($dir/[^ ]+\.c)\$#\2#p" "$log" | sort))
	if [[ -n $unchecked ]] || ! grep -qE '^ +CHECK +' "$log"; then
		grep -E 'not available or not up to date|checker-valid' "$log" | sed 's/^/    /' || true
		unchecked=${unchecked//$'\n'/ }
		echo "$ko: C=1 but sparse did not check ${unchecked:-anything} (log: $log)"
		return 1
	fi
}

# kc_build_undef ID LOG: kvmchurn.ko built with kernel options undefined, as a kernel
# without them would have it: each build that must stop does, with compat.h's message;
# the one that must build (without debugfs: on matrix.sh's KC_CHECK_NO_DEBUGFS_BUILDS,
# FULL=1 every kernel) does, without a warning. Prints what went wrong; returns 1.
kc_build_undef() {
	local id=$1 log=$2 cfgs cfg undef l all=(CONFIG_KRETPROBES "CONFIG_DEBUG_FS CONFIG_PROC_FS")
	local msg='error: #error "kvmchurn needs a kernel built with CONFIG_KRETPROBES, and CONFIG_DEBUG_FS or CONFIG_PROC_FS"'
	! kc_no_debugfs_build_depth "$id" || all+=(CONFIG_DEBUG_FS)
	for cfgs in "${all[@]}"; do
		undef=$KVMCHURN_CACHE/build/undef-${cfgs// /-}.h
		l=$log.no-${cfgs// /-}
		mkdir -p "${undef%/*}"
		for cfg in $cfgs; do printf '#undef %s\n' "$cfg"; done >"$undef"
		if [[ $cfgs == CONFIG_DEBUG_FS ]]; then
			if ! kc_build "$id" build "$l" module W=1 KCFLAGS="-include $undef" ||
				[[ ! -f $KC_BUILD_DIR/kvmchurn.ko ]] || grep -qiE '(warning|error):' "$l"; then
				grep -iE '(warning|error):' "$l" | head -n 10 | sed 's/^/    /' || :
				echo "a build without CONFIG_DEBUG_FS (its views in procfs) failed (log: $l)"
				return 1
			fi
		elif kc_build "$id" build "$l" module KCFLAGS="-include $undef" || ! grep -qF "$msg" "$l"; then
			echo "a build without ${cfgs// / and } did not stop with compat.h's message (log: $l)"
			return 1
		fi
	done
}

kc_build_one() {
	local id=$1 log t0 why
	kc_load_env "$id" || { echo "FAIL $id: not fetched"; return "$KC_FAIL"; }
	kc_spec "$id" # KC_CHECK: the sparse this kernel needs, if not the host's
	mkdir -p "$KVMCHURN_CACHE/logs"
	log=$KVMCHURN_CACHE/logs/$id-build.log
	t0=$SECONDS
	local what="no warnings, sparse run (module, bench floor, stall)"
	if ! why=$(kc_build_target "$id" module kvmchurn.ko module "$log"); then
		:
	elif ! why=$(kc_build_target "$id" bench-floor tests/bench/floor/kvmchurn_floor.ko tests/bench/floor "$log.floor"); then
		:
	elif ! why=$(kc_build_target "$id" stall tests/stall/kvmchurn_stall.ko tests/stall "$log.stall"); then
		:
	elif kc_is_debug "$id"; then
		# the debug kernel has KUnit: its suites must build as cleanly
		what+="; KUnit suites too"
		why=$(kc_build_target "$id" kunit tests/kunit/kvmchurn_test.ko tests/kunit "$log.kunit") || :
	fi
	# a kernel without kretprobes, or without both debugfs and procfs: compat.h must stop
	# the build and say why; without debugfs alone it builds as cleanly, its views in
	# procfs only (the options undefined after autoconf.h; chroot kernels' paths are the
	# chroot's)
	if [[ -z $why && -z $KC_CHROOT ]]; then
		why=$(kc_build_undef "$id" "$log") || :
		[[ -n $why ]] || what+="; without kretprobes, or debugfs and procfs, it refuses to build"
		[[ -n $why ]] || ! kc_no_debugfs_build_depth "$id" || what+="; without debugfs it builds"
	fi
	if [[ -n $why ]]; then
		sed '$d' <<<"$why"
		echo "FAIL $id $KC_KREL: $(tail -n1 <<<"$why") ($((SECONDS - t0)) s)"
		return "$KC_FAIL"
	fi
	echo "PASS $id $KC_KREL: $what ($((SECONDS - t0)) s)"
}

kc_ids_only "usage: tests/lib/compile.sh [ID...]   (ids: $KC_ALL_IDS $KC_OPTIN_IDS $KC_DEBUG_IDS;
       none: \$KERNELS, else the default matrix)" "$@"
kc_run_tier kc_build_one "$@"

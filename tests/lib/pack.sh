# shellcheck shell=bash
# What goes into a guest (sourced by boot.sh): the scenarios a boot runs, the modules and
# programs they need, all packed into an initramfs. Reads boot.sh's options (KC_OPT_*).

# kc_scenario_globs ID: the globs that choose ID's scenarios, none for all of them:
# --only's, else with --depth make check's depth for ID (matrix.sh's kc_depth).
kc_scenario_globs() {
	if [[ -n $KC_OPT_ONLY ]]; then
		echo "$KC_OPT_ONLY"
	elif ((KC_OPT_DEPTH)); then
		kc_depth "$1"
	fi
}

# kc_vms ID: the VMs of 10-module-churn's load and each of 30-metrics' on ID: --vms's,
# else with --depth make check's (matrix.sh's kc_depth_vms), else KC_VMS.
kc_vms() {
	if [[ -n $KC_OPT_VMS ]]; then
		echo "$KC_OPT_VMS"
	elif ((KC_OPT_DEPTH)); then
		kc_depth_vms "$1"
	else
		echo "$KC_VMS"
	fi
}

# kc_scenarios ID: the scenario files for ID (paths): those of the --scenarios folders
# that kc_scenario_globs chooses, of this boot: those with a "# boot: ARGS" line only when --boot-args is
# ARGS, the others only without it; those with a "# clock: icount" line only with
# --icount, and in kc_vm_kernel's icount boot, KC_ICOUNT_BOOT=1, only they.
kc_scenarios() {
	local f n g globs=() d
	# read, not word-split: a glob such as "*" must not expand against the current folder
	read -r -a globs <<<"$(kc_scenario_globs "$1")"
	for d in "${KC_OPT_SCENARIOS[@]}"; do ls "$d"/*.sh; done | while read -r f; do
		n=${f##*/}
		# one "# boot: ARGS" line for each boot the scenario runs in
		if [[ -n $KC_OPT_ARGS ]]; then
			grep -qxF "# boot: $KC_OPT_ARGS" "$f" || continue
		else
			! grep -q '^# boot: ' "$f" || continue
		fi
		# "# clock: icount": only where the guest's clocks count instructions
		if grep -qxF '# clock: icount' "$f"; then
			[[ -n $KC_OPT_ICOUNT ]] || continue
		else
			[[ -z ${KC_ICOUNT_BOOT:-} ]] || continue
		fi
		kc_chosen "$n" "${globs[@]}" || continue
		echo "$f"
	done
}

# kc_chosen NAME GLOB...: do the GLOBs choose NAME? None: every name. A glob with a
# leading ! leaves out what it matches; when all of them do, the others are chosen.
kc_chosen() {
	local n=$1 g in=0 want=0
	shift
	for g; do
		# shellcheck disable=SC2053 # $g is a glob on purpose
		if [[ $g == '!'* ]]; then
			[[ $n != ${g#!} ]] || return 1
		else
			want=1
			[[ $n != $g ]] || in=1
		fi
	done
	((!want || in))
}

# kc_build_for ID SCENARIO TARGET KO LOG WHAT: make TARGET (in ID's vm build folder) when
# SCENARIO is among ID's, and KO must come of it; on failure says so, for WHAT, and
# returns KC_FAIL.
kc_build_for() {
	local id=$1 scenario=$2 target=$3 ko=$4 log=$5 what=$6
	kc_scenarios "$id" | grep "/${scenario//./\\.}\$" >/dev/null || return 0
	kc_build "$id" vm "$log" "$target" && [[ -f $KC_BUILD_DIR/$ko ]] && return 0
	tail -n 20 "$log" | sed 's/^/    /'
	echo "FAIL $id $KC_KREL: $what build failed (log: $log)"
	return "$KC_FAIL"
}

# kc_guest_tools DIR: the scenarios' helper programs (guest/*.c), static, for the guest's
# architecture, into DIR.
kc_guest_tools() {
	local f
	rm -rf "$1"
	mkdir -p "$1"
	for f in "$KC_LIB"/guest/*.c; do
		kc_guest_cc "$1/$(basename "$f" .c)" "$f" || return 1
	done
}

# kc_guest_programs ID LOG: the static client and the guest's programs into KC_BUILD_DIR
# (userspace/kvmchurn, guest-bin/). Nothing of them depends on the kernel, only on its
# architecture: the first boot of the run (this boot.sh, KC_RUN) builds them for an
# architecture, the others copy them from $KVMCHURN_CACHE/build/guest/ARCH (7 to 9 s of
# each boot's preparation). On failure says what failed and returns KC_FAIL.
kc_guest_programs() {
	local id=$1 blog=$2 memo=$KVMCHURN_CACHE/build/guest/$KC_ARCH
	if [[ $(cat "$memo/run" 2>/dev/null) != "$KC_RUN" ]]; then
		rm -rf "$memo"
		if ! kc_build "$id" vm "$blog.client" client STATIC=1 || [[ ! -f $KC_BUILD_DIR/userspace/kvmchurn ]]; then
			tail -n 20 "$blog.client" | sed 's/^/    /'
			echo "FAIL $id $KC_KREL: client build failed (log: $blog.client)"
			return "$KC_FAIL"
		fi
		if ! kc_guest_tools "$KC_BUILD_DIR/guest-bin" >"$blog.guest" 2>&1; then
			sed 's/^/    /' "$blog.guest" | tail -n 20
			echo "FAIL $id $KC_KREL: guest tools build failed (log: $blog.guest)"
			return "$KC_FAIL"
		fi
		mkdir -p "$memo"
		cp -r "$KC_BUILD_DIR/userspace/kvmchurn" "$KC_BUILD_DIR/guest-bin" "$memo/"
		echo "$KC_RUN" >"$memo/run"
		return
	fi
	echo "# built for $KC_ARCH by this run's first boot of it: $memo" | tee "$blog.client" >"$blog.guest"
	cp "$memo/kvmchurn" "$KC_BUILD_DIR/userspace/kvmchurn"
	rm -rf "$KC_BUILD_DIR/guest-bin"
	cp -r "$memo/guest-bin" "$KC_BUILD_DIR/guest-bin"
}

# kc_build_guest ID LOG: what ID's guest runs, built into KC_BUILD_DIR: the module (or
# --module-dir's), the static client, the guest's programs, and the test modules of the
# scenarios that load them; on failure says what failed and returns KC_FAIL.
kc_build_guest() {
	local id=$1 blog=$2
	if [[ -n $KC_OPT_MODULE_DIR ]]; then
		kc_build_dir "$id" vm
		if ! cp "$KC_OPT_MODULE_DIR/$id/kvmchurn.ko" "$KC_BUILD_DIR/kvmchurn.ko"; then
			echo "FAIL $id $KC_KREL: no $KC_OPT_MODULE_DIR/$id/kvmchurn.ko"
			return "$KC_FAIL"
		fi
	elif [[ -n ${KC_VM_BUILT:-} ]] && kc_build_path "$id" vm && [[ -f $KC_BUILD_DIR/kvmchurn.ko ]]; then
		: # kc_vm_kernel's icount boot: the module its first boot built, not built again
	elif ! kc_build "$id" vm "$blog" module || [[ ! -f $KC_BUILD_DIR/kvmchurn.ko ]]; then
		tail -n 20 "$blog" | sed 's/^/    /'
		echo "FAIL $id $KC_KREL: module build failed (log: $blog)"
		return "$KC_FAIL"
	fi
	kc_guest_programs "$id" "$blog" || return
	# the test modules, each when the scenario that loads it is to run
	kc_build_for "$id" 05-kunit.sh kunit tests/kunit/kvmchurn_test.ko "$blog.kunit" "KUnit module" || return
	kc_build_for "$id" 50-bench.sh bench-floor tests/bench/floor/kvmchurn_floor.ko "$blog.floor" "the bench's floor module" || return
	kc_build_for "$id" 60-profile.sh bench-floor tests/bench/floor/kvmchurn_floor.ko "$blog.floor" "the bench's floor module" || return
	kc_build_for "$id" 60-count.sh bench-floor tests/bench/floor/kvmchurn_floor.ko "$blog.floor" "the bench's floor module" || return
	kc_build_for "$id" 57-stall.sh stall tests/stall/kvmchurn_stall.ko "$blog.stall" "the stall module" || return
}

# kc_initramfs ID BUILD_DIR OUT [VMM]: the guest's root filesystem as a gzipped newc
# cpio; with VMM 1, what 45-qemu needs too (vmm.sh).
kc_initramfs() {
	local id=$1 build=$2 out=$3 vmm=${4:-0} st m
	st=$KVMCHURN_CACHE/initramfs/$id
	rm -rf "$st"
	mkdir -p "$st"/{bin,sbin,usr/bin,usr/sbin,proc,sys,dev,tmp,root,scenarios,kvmchurn/bin,kvmchurn/modules}
	cp "$KC_BUSYBOX" "$st/bin/busybox"
	ln -s busybox "$st/bin/sh" # without it: "Failed to execute /init (error -2)"
	cp "$KC_LIB/guest/init" "$st/init"
	cp "$KC_LIB/guest/kvmchurn-put" "$st/kvmchurn/bin/"
	# the same names as on the host: tap.sh the dialect, lib.sh the guest's library
	cp "$KC_LIB/tap.sh" "$KC_LIB/guest/lib.sh" "$KC_LIB/guest/known-splats.awk" "$st/kvmchurn/"
	cp "$build/kvmchurn.ko" "$st/kvmchurn/"
	cp "$build/userspace/kvmchurn" "$st/kvmchurn/bin/"
	for m in $KC_MODULES ${KC_EXTRA_MODULES:-}; do cp "$KVMCHURN_CACHE/kernels/$id/modules/$m" "$st/kvmchurn/modules/"; done
	cp "$build"/guest-bin/* "$st/kvmchurn/bin/"
	kc_scenarios "$id" | xargs cp -t "$st/scenarios/"
	[[ ! -f $build/tests/kunit/kvmchurn_test.ko ]] || cp "$build/tests/kunit/kvmchurn_test.ko" "$st/kvmchurn/"
	[[ ! -f $build/tests/bench/floor/kvmchurn_floor.ko ]] || cp "$build/tests/bench/floor/kvmchurn_floor.ko" "$st/kvmchurn/"
	[[ ! -f $build/tests/stall/kvmchurn_stall.ko ]] || cp "$build/tests/stall/kvmchurn_stall.ko" "$st/kvmchurn/"
	[[ -z $KC_OPT_GUEST_DIR ]] || cp -r "$KC_OPT_GUEST_DIR"/. "$st/kvmchurn/"
	chmod 755 "$st/init" "$st/kvmchurn/bin/kvmchurn-put"
	printf 'KVMCHURN_KERNEL=%s\nKVMCHURN_ARCH=%s\nKVMCHURN_HOST_MODULES="%s"\nKVMCHURN_METRICS_VMS=%s\n' \
		"$id" "$KC_ARCH" "$KC_MODULES" "$(kc_vms "$id")" >"$st/kvmchurn/config"
	if ((vmm)); then
		kc_vmm_pack "$id" "$st"
	elif [[ -n $KC_OPT_DISK ]]; then
		kc_disk_pack "$st"
	fi
	# the kernel opens /dev/console before /init runs; init reopens it after devtmpfs
	mknod -m 600 "$st/dev/console" c 5 1 2>/dev/null || true
	(cd "$st" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) | gzip -1 >"$out"
}

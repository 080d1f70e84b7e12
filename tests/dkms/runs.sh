# shellcheck shell=bash disable=SC2034 # KC_DKMS_* are read by tier.sh
# SPDX-License-Identifier: GPL-2.0
# runs.sh: the dkms tier's runs, sourced by tier.sh. Each copies the tree into a folder
# that a throwaway overlay of a cached chroot (chroot.sh) sees as /kvmchurn, runs one of
# inside-dkms.sh and inside-deb.sh there, judges its TAP log (kc_tap_verdict) and leaves
# the counts in $KC_DKMS_CACHE/results for tests/lib/compatibility.sh.

KC_DKMS_DIR=$KC_TOP/tests/dkms
# What of the tree the chroots get: all of it, as the source package ("3.0 (native)")
# is all of it. A chosen subset went stale once already: debian/rules runs check-unit,
# whose suites source files from anywhere under tests/.
KC_DKMS_TREE=$(cd "$KC_TOP" && ls -A)

# kc_dkms_work NAME: a new work folder NAME under the dkms cache, the tree in its bind/src,
# and no results/NAME until the run writes it; prints its path.
kc_dkms_work() {
	local work=$KC_DKMS_CACHE/work/$1
	rm -rf "$work" "$KC_DKMS_CACHE/results/$1"
	mkdir -p "$work/bind/out"
	# shellcheck disable=SC2086 # a list of items, none with a space
	kc_copy_tree "$work/bind/src" $KC_DKMS_TREE
	cp "$KC_DKMS_DIR"/inside-*.sh "$work/bind/"
	echo "$work"
}

# kc_dkms_step NAME LOG ROOT WORK SCRIPT ARG...: bash /kvmchurn/SCRIPT ARG... in a
# throwaway overlay of the chroot ROOT, WORK/bind as /kvmchurn, its TAP in LOG; the
# verdict line, named NAME. False on FAIL.
kc_dkms_step() {
	local name=$1 log=$2 root=$3 work=$4 t0=$SECONDS rc=0
	shift 4
	kc_overlay_exec "$root" "$work/ovl" "$work/bind" bash "/kvmchurn/$1" "${@:2}" >"$log" 2>&1 || rc=$?
	kc_tap_verdict "$name" "$log" "$rc" $((SECONDS - t0))
}

# kc_dkms_result NAME VERDICT [FIELD...] -- LOG...: results/NAME, a line of VERDICT (PASS
# or FAIL), the FIELDs, and the ok and not ok counts of the LOGs, tab-separated.
kc_dkms_result() {
	local name=$1 fields=() ok nok
	shift
	while (($#)) && [[ $1 != -- ]]; do fields+=("$1"); shift; done
	shift
	read -r ok nok < <(kc_tap_count "$@")
	mkdir -p "$KC_DKMS_CACHE/results"
	(IFS=$'\t'; echo "${fields[*]}"$'\t'"$ok"$'\t'"$nok") >"$KC_DKMS_CACHE/results/$name"
}

# kc_dkms_one ID [once]: DKMS of the tree for one kernel; leaves the module in modules/ID.
# once: a single build (inside-dkms.sh), for a chroot whose dkms and Makefile another
# kernel already took through every step, or an emulated one.
kc_dkms_one() {
	local id=$1 once=${2:-} work log=$KVMCHURN_CACHE/logs/dkms-$1.log dver v=PASS
	kc_load_env "$id"
	rm -rf "$KC_DKMS_CACHE/modules/$id"
	work=$(kc_dkms_work "$id")
	# the chroot's dkms, as inside-dkms.sh reads it there
	# shellcheck disable=SC2016 # dpkg-query's format, not the shell's
	dver=$(dpkg-query --admindir="$KC_DKMS_ROOT/var/lib/dpkg" -W -f '${Version}' dkms 2>/dev/null) || dver=none
	kc_dkms_step "dkms $id $KC_KREL (dkms $dver${once:+, one build})" "$log" "$KC_DKMS_ROOT" "$work" \
		inside-dkms.sh "$KC_KREL" ${once:+"$once"} || v=FAIL
	cp "$work/bind/out/make.log" "$KVMCHURN_CACHE/logs/dkms-$id-make.log" 2>/dev/null || true
	if [[ -s $work/bind/out/kvmchurn.ko ]]; then
		mkdir -p "$KC_DKMS_CACHE/modules/$id"
		cp "$work/bind/out/kvmchurn.ko" "$KC_DKMS_CACHE/modules/$id/"
	fi
	rm -rf "$work"
	kc_dkms_result "$id" "$v" "$dver" -- "$log"
	[[ $v == PASS ]]
}

# kc_dkms_service WORK: the packages installed in a booted bookworm (systemd as init), for
# kvmchurn-export.timer, its journal and node_exporter (inside-deb.sh service).
kc_dkms_service() {
	local work=$1 log=$KVMCHURN_CACHE/logs/dkms-packages-service.log t0=$SECONDS rc=0
	kc_overlay_boot "$KC_DKMS_ROOT" "$work/ovl" "$work/bind" 900 inside-deb.sh service || rc=$?
	cp "$work/bind/boot.log" "$log" 2>/dev/null || echo "not ok 1 - no output (the console: $log.console)" >"$log"
	cp "$work/bind/console.log" "$log.console" 2>/dev/null || true
	((rc != 124)) || echo "not ok - the boot did not end in 900 s (the console: $log.console)" >>"$log"
	kc_tap_verdict "packages: kvmchurn-export.timer under systemd, booted bookworm with node_exporter" \
		"$log" "$rc" $((SECONDS - t0))
}

# kc_dkms_packages: build the Debian packages, then install and purge them, then the
# service (bookworm); each step only after the one before passed. Leaves the packages
# in debs/.
kc_dkms_packages() {
	local work logs=$KVMCHURN_CACHE/logs/dkms-packages v=PASS
	rm -f "$logs"-*.log*
	work=$(kc_dkms_work packages)
	kc_dkms_step "packages: dpkg-buildpackage -us -uc -b on bookworm" "$logs-build.log" \
		"$KC_DKMS_ROOT" "$work" inside-deb.sh build &&
		kc_dkms_step "packages: install into bookworm with linux-headers-amd64, purge" "$logs-install.log" \
			"$KC_DKMS_ROOT" "$work" inside-deb.sh install &&
		kc_dkms_service "$work" || v=FAIL
	kc_dkms_result packages "$v" -- "$logs"-{build,install,service}.log
	mkdir -p "$KC_DKMS_CACHE/debs"
	rm -f "$KC_DKMS_CACHE"/debs/*.deb
	cp "$work"/bind/*.deb "$KC_DKMS_CACHE/debs/" 2>/dev/null || true
	rm -rf "$work"
	[[ $v == PASS ]]
}

# kc_dkms_package_on REL: kvmchurn-dkms (built on bookworm; arch all) installed and purged
# on another release, whose kernels' headers its chroot has.
kc_dkms_package_on() {
	local rel=$1 work log=$KVMCHURN_CACHE/logs/dkms-packages-$1.log v=PASS
	work=$(kc_dkms_work "packages-$rel")
	cp "$KC_DKMS_CACHE"/debs/*.deb "$work/bind/"
	kc_dkms_step "packages: kvmchurn-dkms installed into $rel, purged" "$log" \
		"$KC_DKMS_CACHE/chroot/$rel" "$work" inside-deb.sh install-dkms || v=FAIL
	rm -rf "$work"
	kc_dkms_result "packages-$rel" "$v" -- "$log"
	[[ $v == PASS ]]
}

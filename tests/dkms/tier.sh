#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# tier.sh [ID...]: the dkms tier (make check-dkms). For each x86_64 kernel of the matrix, in
# a chroot of its Debian release (bullseye, bookworm, trixie) where its headers are
# installed as packages with apt: dkms add, build, install, status, autoinstall and remove
# of the working tree, and make dkms-install / dkms-remove (inside-dkms.sh). On bookworm,
# the Debian packages: dpkg-buildpackage -us -uc -b, install both into the chroot (which
# has linux-headers-amd64), DKMS builds the module for every kernel with headers, purge
# leaves nothing (inside-deb.sh); then the same chroot boots with systemd as init
# (systemd-nspawn) for kvmchurn-export.timer, its journal and Debian's node_exporter
# (inside-deb.sh service). For arm64-5.10 and arm64-6.1, the same in an arm64 bullseye or
# bookworm chroot that the host runs through qemu-user-static (chroot.sh's
# kc_foreign_ready): one dkms build, install, remove, then kvmchurn-dkms installed and
# purged.
# Then the vm tier boots each kernel with the module that
# DKMS built, not one that make built, for the scenarios that show it loads and counts a
# churn exactly (KC_DKMS_SCENARIOS): the same sources as the vm tier's module, which
# that tier takes through every scenario.
# Every test runs in a throwaway overlay of the cached chroot. Ids: arguments, else
# $KERNELS (the ids it has no chroot for are left out), else KC_DKMS_IDS: the x86_64
# ones and arm64-5.10, and arm64-6.1 too with FULL=1 (make check-full) or asked
# for by name (an emulated chroot costs a cold cache 10 minutes: CI's 90 have room for one,
# the oldest kernel's).
# Knobs: KERNELS, KVMCHURN_CACHE, SCENARIOS (for the boots with its modules; default
# KC_DKMS_SCENARIOS).
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=../lib/core.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/core.sh"
# shellcheck source-path=SCRIPTDIR source=chroot.sh
. "$KC_TOP/tests/dkms/chroot.sh"

KC_DKMS_DIR=$KC_TOP/tests/dkms
KC_DKMS_IDS="x86_64-5.10 x86_64-6.1 x86_64-6.12 x86_64-7.x arm64-5.10 arm64-6.1"
KC_DKMS_SCENARIOS="00-* 10-* 90-*"
# What of the tree the chroots get: all of it, as the source package ("3.0 (native)")
# is all of it. A chosen subset went stale once already: debian/rules runs check-unit,
# whose suites source files from anywhere under tests/.
KC_DKMS_TREE=$(cd "$KC_TOP" && ls -A)

# kc_tap_count LOG: "OK NOTOK" of a TAP log.
kc_tap_count() {
	echo "$(grep -c '^ok ' "$1" || true) $(grep -c '^not ok ' "$1" || true)"
}

# kc_verdict NAME LOG RC SECS: print the verdict of one test from its TAP log; returns 1 on FAIL.
kc_verdict() {
	local name=$1 log=$2 rc=$3 secs=$4 ok nok
	read -r ok nok < <(kc_tap_count "$log")
	if ((rc == 0 && nok == 0 && ok > 0)); then
		echo "PASS $name: $ok ok, 0 not ok ($secs s)"
		return 0
	fi
	grep -A3 '^not ok ' "$log" | sed 's/^/    /' | head -n 30
	echo "    log: $log"
	echo "FAIL $name: $ok ok, $nok not ok ($secs s)$( ((rc == 0)) || echo ", exit $rc")"
	return 1
}

# kc_tree_copy DIR: the tree, without build products, in DIR/src.
kc_tree_copy() {
	local dir=$1
	# shellcheck disable=SC2086 # a list of items, none with a space
	kc_copy_tree "$dir/src" $KC_DKMS_TREE
	cp "$KC_DKMS_DIR"/inside-*.sh "$dir/"
}

# kc_dkms_one ID [once]: DKMS of the tree for one kernel; leaves the module in modules/ID.
# once: a single build (inside-dkms.sh), for a chroot whose dkms and Makefile another
# kernel already took through every step, or an emulated one.
kc_dkms_one() {
	local id=$1 once=${2:-} work=$KC_DKMS_CACHE/work/$1 log=$KVMCHURN_CACHE/logs/dkms-$1.log t0=$SECONDS rc=0
	kc_load_env "$id"
	rm -rf "$work" "$KC_DKMS_CACHE/modules/$id"
	mkdir -p "$work/bind/out"
	kc_tree_copy "$work/bind"
	kc_overlay_exec "$KC_DKMS_ROOT" "$work/ovl" "$work/bind" \
		bash /kvmchurn/inside-dkms.sh "$KC_KREL" ${once:+"$once"} >"$log" 2>&1 || rc=$?
	cp "$work/bind/out/make.log" "$KVMCHURN_CACHE/logs/dkms-$id-make.log" 2>/dev/null || true
	if [[ -s $work/bind/out/kvmchurn.ko ]]; then
		mkdir -p "$KC_DKMS_CACHE/modules/$id"
		cp "$work/bind/out/kvmchurn.ko" "$KC_DKMS_CACHE/modules/$id/"
	fi
	rm -rf "$work"
	local dver v=PASS ok nok
	dver=$(sed -n 's/^# dkms \([^,]*\),.*/\1/p' "$log")
	kc_verdict "dkms $id $KC_KREL (dkms $dver${once:+, one build})" "$log" "$rc" $((SECONDS - t0)) || v=FAIL
	# for tests/lib/compatibility.sh
	read -r ok nok < <(kc_tap_count "$log")
	mkdir -p "$KC_DKMS_CACHE/results"
	printf '%s\t%s\t%s\t%s\n' "$v" "$dver" "$ok" "$nok" >"$KC_DKMS_CACHE/results/$id"
	[[ $v == PASS ]]
}

# kc_dkms_packages: build the Debian packages, then install and purge them (bookworm).
kc_dkms_packages() {
	local work=$KC_DKMS_CACHE/work/packages log t0=$SECONDS rc=0 verdict=0
	rm -rf "$work" "$KVMCHURN_CACHE"/logs/dkms-packages-*.log*
	mkdir -p "$work/bind"
	kc_tree_copy "$work/bind"
	log=$KVMCHURN_CACHE/logs/dkms-packages-build.log
	kc_overlay_exec "$KC_DKMS_ROOT" "$work/ovl" "$work/bind" \
		bash /kvmchurn/inside-deb.sh build >"$log" 2>&1 || rc=$?
	kc_verdict "packages: dpkg-buildpackage -us -uc -b on bookworm" "$log" "$rc" $((SECONDS - t0)) || verdict=1
	if ((verdict == 0)); then
		t0=$SECONDS rc=0
		log=$KVMCHURN_CACHE/logs/dkms-packages-install.log
		kc_overlay_exec "$KC_DKMS_ROOT" "$work/ovl" "$work/bind" \
			bash /kvmchurn/inside-deb.sh install >"$log" 2>&1 || rc=$?
		kc_verdict "packages: install into bookworm with linux-headers-amd64, purge" "$log" "$rc" $((SECONDS - t0)) || verdict=1
	fi
	if ((verdict == 0)); then
		t0=$SECONDS rc=0
		log=$KVMCHURN_CACHE/logs/dkms-packages-service.log
		kc_overlay_boot "$KC_DKMS_ROOT" "$work/ovl" "$work/bind" 900 inside-deb.sh service || rc=$?
		cp "$work/bind/boot.log" "$log" 2>/dev/null || echo "not ok 1 - no output (the console: $log.console)" >"$log"
		cp "$work/bind/console.log" "$log.console" 2>/dev/null || true
		((rc != 124)) || echo "not ok - the boot did not end in 900 s (the console: $log.console)" >>"$log"
		kc_verdict "packages: kvmchurn-export.timer under systemd, booted bookworm with node_exporter" "$log" "$rc" $((SECONDS - t0)) || verdict=1
	fi
	local ok=0 nok=0 o n f
	for f in "$KVMCHURN_CACHE"/logs/dkms-packages-{build,install,service}.log; do
		[[ -f $f ]] || continue
		read -r o n < <(kc_tap_count "$f")
		ok=$((ok + o)) nok=$((nok + n))
	done
	mkdir -p "$KC_DKMS_CACHE/results"
	printf '%s\t%s\t%s\n' "$( ((verdict == 0)) && echo PASS || echo FAIL)" "$ok" "$nok" >"$KC_DKMS_CACHE/results/packages"
	mkdir -p "$KC_DKMS_CACHE/debs"
	rm -f "$KC_DKMS_CACHE"/debs/*.deb
	cp "$work"/bind/*.deb "$KC_DKMS_CACHE/debs/" 2>/dev/null || true
	rm -rf "$work"
	return "$verdict"
}

# kc_dkms_package_on REL: kvmchurn-dkms (built on bookworm; arch all) installed and purged
# on another release, whose kernels' headers its chroot has.
kc_dkms_package_on() {
	local rel=$1 work=$KC_DKMS_CACHE/work/packages-$1 log=$KVMCHURN_CACHE/logs/dkms-packages-$1.log
	local t0=$SECONDS rc=0 v=PASS ok nok
	rm -rf "$work"
	mkdir -p "$work/bind"
	kc_tree_copy "$work/bind"
	cp "$KC_DKMS_CACHE"/debs/*.deb "$work/bind/"
	kc_overlay_exec "$KC_DKMS_CACHE/chroot/$rel" "$work/ovl" "$work/bind" \
		bash /kvmchurn/inside-deb.sh install-dkms >"$log" 2>&1 || rc=$?
	rm -rf "$work"
	kc_verdict "packages: kvmchurn-dkms installed into $rel, purged" "$log" "$rc" $((SECONDS - t0)) || v=FAIL
	read -r ok nok < <(kc_tap_count "$log")
	printf '%s\t%s\t%s\n' "$v" "$ok" "$nok" >"$KC_DKMS_CACHE/results/packages-$rel"
	[[ $v == PASS ]]
}

main() {
	local list ids=() id rel rels spec passed=0 failed=0 vm_ids=() line debs=0
	list=$(kc_ids "$@")
	for id in $list; do
		case " $KC_DKMS_IDS " in
		*" $id "*)
			# the full run's only, unless asked for by name
			[[ -n ${FULL:-} || $# -gt 0 || -n ${KERNELS:-} || " $KC_DKMS_FULL_ONLY " != *" $id "* ]] || continue
			ids+=("$id")
			;;
		*) [[ $# -eq 0 ]] || kc_die "the dkms tier runs on $KC_DKMS_IDS, not $id" ;;
		esac
	done
	((${#ids[@]})) || { kc_log "dkms: none of $KC_DKMS_IDS asked for"; kc_summary 0 0; return; }
	kc_lock
	mkdir -p "$KVMCHURN_CACHE/logs"
	"$KC_LIB/fetch.sh" "${ids[@]}" || kc_log "some kernels could not be fetched"
	kc_read_sources
	rels=$(for id in "${ids[@]}"; do kc_release "$id"; done | awk '!seen[$0]++')
	for rel in $rels; do
		local specs=() rel_ids=()
		for id in "${ids[@]}"; do
			[[ $(kc_release "$id") == "$rel" ]] || continue
			rel_ids+=("$id")
			kc_load_env "$id" || continue
			spec=linux-headers-$KC_KREL=$KC_PKGVER
			[[ $KC_SUITES != *-backports* ]] || spec=${KC_SUITES%% *}/$spec
			specs+=("$spec")
		done
		local t0=$SECONDS
		if ! (kc_dkms_chroot "$rel" "${specs[@]}"); then
			for id in "${rel_ids[@]}"; do echo "FAIL dkms $id: no $rel chroot with its headers"; done
			failed=$((failed + ${#rel_ids[@]}))
			continue
		fi
		KC_DKMS_ROOT=$KC_DKMS_CACHE/chroot/$rel
		kc_log "dkms: $rel chroot ready with ${specs[*]} ($((SECONDS - t0)) s)"
		for id in "${rel_ids[@]}"; do
			# every step on the release's first kernel, one build on the others and
			# on the emulated arm64 chroot (where a build takes minutes)
			if kc_dkms_one "$id" "$([[ ${rel_ids[0]} == "$id" && $(kc_chroot_arch "$rel") == amd64 ]] || echo once)"; then
				passed=$((passed + 1))
				vm_ids+=("$id")
			else
				failed=$((failed + 1))
			fi
		done
		if [[ $rel == bookworm ]]; then
			if kc_dkms_packages; then passed=$((passed + 1)) debs=1; else failed=$((failed + 1)); fi
		fi
	done
	# the dkms package on the other releases, once bookworm has built it
	if ((debs)); then
		for rel in $rels; do
			[[ $rel != bookworm && -f $KC_DKMS_CACHE/chroot/$rel/.kvmchurn-ok ]] || continue
			if kc_dkms_package_on "$rel"; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
		done
	fi
	if ((${#vm_ids[@]})); then
		# the vm tier, with the modules DKMS installed; its files apart from the
		# vm tier's own, which compatibility.sh reads
		while read -r line; do
			case $line in
			PASS*) passed=$((passed + 1)) ;;
			FAIL*) failed=$((failed + 1)) ;;
			*" passed, "*" failed") continue ;;
			esac
			echo "$line"
		done < <("$KC_LIB/boot.sh" --only "${SCENARIOS:-$KC_DKMS_SCENARIOS}" \
			--module-dir "$KC_DKMS_CACHE/modules" --out "$KC_DKMS_CACHE/out" "${vm_ids[@]}" || true)
	fi
	kc_summary "$passed" "$failed"
}

main "$@"

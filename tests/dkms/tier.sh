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
# purged (on the emulated chroots with FULL=1 only: the package is arch all).
# Then the vm tier boots kernels with the module that DKMS built, not one that make
# built (KC_DKMS_BOOT_IDS: one a DKMS version, and the emulated build; all with
# FULL=1), for the scenarios that show it loads and counts a churn exactly
# (KC_DKMS_SCENARIOS): the same sources as the vm tier's module, which that tier takes
# through every scenario.
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
# shellcheck source-path=SCRIPTDIR source=runs.sh
. "$KC_TOP/tests/dkms/runs.sh"

KC_DKMS_IDS="x86_64-5.10 x86_64-6.1 x86_64-6.12 x86_64-7.x arm64-5.10 arm64-6.1"
KC_DKMS_SCENARIOS="00-* 10-* 90-*"
KC_DKMS_VMS=10
# The kernels booted with DKMS's module (FULL=1, or ids asked for by name: each that
# passed): the oldest and newest DKMS and releases (bullseye's 2.8, trixie's 3.2, which
# signs what it builds) and the emulated arm64 build; bookworm's modules are built by the
# same gcc and headers as the vm tier's (45 s of CI a boot).
KC_DKMS_BOOT_IDS="x86_64-5.10 x86_64-7.x arm64-5.10"

# release REL ID...: REL's chroot with the IDs' headers, DKMS for each ID (every step on
# the first amd64 one, one build on the others and on an emulated chroot, where a build
# takes minutes), and on bookworm the packages. The IDs that passed join vm_ids; debs is
# 1 once the packages are built and pass.
release() {
	local rel=$1 specs=() id spec t0=$SECONDS
	shift
	for id; do
		kc_load_env "$id" || continue
		spec=linux-headers-$KC_KREL=$KC_PKGVER
		[[ $KC_SUITES != *-backports* ]] || spec=${KC_SUITES%% *}/$spec
		specs+=("$spec")
	done
	if ! (kc_dkms_chroot "$rel" "${specs[@]}"); then
		for id; do echo "FAIL dkms $id: no $rel chroot with its headers"; done
		failed=$((failed + $#))
		return
	fi
	KC_DKMS_ROOT=$KC_DKMS_CACHE/chroot/$rel
	kc_log "dkms: $rel chroot ready with ${specs[*]} ($((SECONDS - t0)) s)"
	for id; do
		kc_count kc_dkms_one "$id" "$([[ $1 == "$id" && $(kc_chroot_arch "$rel") == amd64 ]] || echo once)"
		if [[ $(cat "$KC_DKMS_CACHE/results/$id" 2>/dev/null) == PASS* ]]; then vm_ids+=("$id"); fi
	done
	if [[ $rel == bookworm ]]; then
		kc_count kc_dkms_packages
		if [[ $(cat "$KC_DKMS_CACHE/results/packages" 2>/dev/null) == PASS* ]]; then debs=1; fi
	fi
}

main() {
	local list ids=() rel_ids=() id rel rels passed=0 failed=0 vm_ids=() debs=0 all=0
	list=$(kc_ids "$@") # an assignment, not a for's word list: a bad id must stop the run
	# the full run, or ids asked for by name: each of them, and each boot
	[[ -z ${FULL:-} && $# -eq 0 && -z ${KERNELS:-} ]] || all=1
	for id in $list; do
		case " $KC_DKMS_IDS " in
		*" $id "*)
			# the full run's only, unless asked for by name
			((all)) || [[ " $KC_DKMS_FULL_ONLY " != *" $id "* ]] || continue
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
		mapfile -t rel_ids < <(for id in "${ids[@]}"; do [[ $(kc_release "$id") != "$rel" ]] || echo "$id"; done)
		release "$rel" "${rel_ids[@]}"
	done
	# the dkms package on the other releases, once bookworm has built it. Not on an
	# emulated chroot but with FULL=1: the package is arch all, so all that differs there
	# is DKMS's build, which release() took through already (2 to 3 minutes each).
	for rel in $rels; do
		[[ $debs == 1 && $rel != bookworm && -f $KC_DKMS_CACHE/chroot/$rel/.kvmchurn-ok ]] || continue
		[[ -n ${FULL:-} || $(kc_chroot_arch "$rel") == amd64 ]] || continue
		kc_count kc_dkms_package_on "$rel"
	done
	# the vm tier, with the modules DKMS installed; its files apart from the vm tier's
	# own, which compatibility.sh reads. A churn of KC_DKMS_VMS VMs: what is on trial is
	# the module DKMS built, which loads and counts exactly or not; the vm tier's 40
	# try the same code for races.
	((all)) ||
		mapfile -t vm_ids < <(for id in "${vm_ids[@]}"; do [[ " $KC_DKMS_BOOT_IDS " != *" $id "* ]] || echo "$id"; done)
	((${#vm_ids[@]} == 0)) || kc_count "$KC_LIB/boot.sh" --only "${SCENARIOS:-$KC_DKMS_SCENARIOS}" \
		--vms "$KC_DKMS_VMS" --module-dir "$KC_DKMS_CACHE/modules" --out "$KC_DKMS_CACHE/out" "${vm_ids[@]}"
	kc_summary "$passed" "$failed"
}

main "$@"

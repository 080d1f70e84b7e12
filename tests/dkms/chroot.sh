# shellcheck shell=bash disable=SC2034 # KC_DKMS_ROOT is read by run.sh
# Helpers sourced by tests/dkms/run.sh: the chroots of Debian releases in which dkms, the
# kernels' headers and the build tools are really installed with apt. Each test runs in a
# throwaway overlay of one (tests/vm/chroot.sh), so that a test never leaves anything in
# the chroot it started from. Needs root (mount, chroot).
# shellcheck source-path=SCRIPTDIR source=../vm/chroot.sh
. "$KC_TOP/tests/vm/chroot.sh"

KC_DKMS_CACHE=$KVMCHURN_CACHE/dkms
# What every chroot has, besides minbase: dkms with what it needs to build and sign (gcc,
# make, kmod, openssl), and what the package test builds with.
KC_DKMS_BASE_PKGS="dkms make gcc libc6-dev kmod openssl xz-utils zstd ca-certificates"
KC_DKMS_DEB_PKGS="build-essential dpkg-dev debhelper dh-dkms fakeroot python3"
# The package test builds and installs on bookworm only (bullseye has no dh-dkms).
kc_release_pkgs() { echo "$KC_DKMS_BASE_PKGS$([[ $1 == bookworm ]] && echo " $KC_DKMS_DEB_PKGS")"; }

# kc_release ID: the Debian release whose chroot builds ID's module.
kc_release() {
	case $1 in
	x86_64-5.10) echo bullseye ;;
	x86_64-6.1 | x86_64-6.12) echo bookworm ;;
	x86_64-7.x) echo trixie ;;
	*) return 1 ;;
	esac
}

# kc_dkms_chroot RELEASE HEADERS...: leave $KC_DKMS_CACHE/chroot/RELEASE ready with the base
# packages and these headers (each PKG=VERSION, or SUITE/PKG=VERSION for a package of a
# suite apt does not take by default, such as -backports) installed, and no other kernel's
# headers: so that "every kernel with headers" is known. Sets KC_DKMS_ROOT.
kc_dkms_chroot() {
	local rel=$1 d=$KC_DKMS_CACHE/chroot/$1 t=$SECONDS h cmd
	shift
	KC_DKMS_ROOT=$d
	if [[ ! -f $d/.kvmchurn-ok ]]; then
		kc_log "dkms: creating the $rel chroot in $d (debootstrap and dkms, a few minutes)"
		kc_debootstrap "$d" "$rel" || kc_die "debootstrap $rel failed (log: $d.log)"
		kc_chroot_apt_config "$d" "$rel"
		kc_chroot_exec "$d" sh -c "apt-get -q update && apt-get -q -y install $(kc_release_pkgs "$rel")" \
			>>"$d.log" 2>&1 || { tail -n 20 "$d.log" >&2; kc_die "$rel chroot: installing dkms failed (log: $d.log)"; }
		touch "$d/.kvmchurn-ok"
		kc_log "dkms: $rel chroot ready ($((SECONDS - t)) s)"
	fi
	kc_chroot_apt_config "$d" "$rel"
	# headers of earlier runs are marked automatic, and go unless asked for again (or
	# needed by linux-headers-amd64, which the package test installs on bookworm)
	cmd="apt-get -q update && hs=\$(dpkg-query -W -f '\${db:Status-Abbrev} \${Package}\\n' 'linux-headers-*' 2>/dev/null | awk '/^ii/ { print \$2 }') && { [ -z \"\$hs\" ] || apt-mark auto \$hs >/dev/null; }"
	# a package list that grew since the chroot was made
	cmd+=" && apt-get -q -y install $(kc_release_pkgs "$rel")"
	for h in "$@"; do
		if [[ $h == */* ]]; then
			cmd+=" && apt-get -q -y install -t ${h%%/*} ${h#*/}"
		else
			cmd+=" && apt-get -q -y install $h"
		fi
	done
	[[ $rel != bookworm ]] || cmd+=" && apt-get -q -y install linux-headers-amd64"
	cmd+=" && apt-get -q -y autoremove --purge && apt-get clean"
	kc_chroot_exec "$d" sh -c "$cmd" >"$d.log" 2>&1 ||
		{ tail -n 20 "$d.log" >&2; kc_die "$rel chroot: installing the headers failed (log: $d.log)"; }
}

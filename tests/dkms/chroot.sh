# shellcheck shell=bash disable=SC2034 # KC_DKMS_ROOT is read by run.sh
# Helpers sourced by tests/dkms/run.sh: chroots of Debian releases in which packages are
# really installed with apt (dkms, the kernels' headers, the build tools), kept in the
# cache, and throwaway overlays of them in which each test runs, so that a test never
# leaves anything in the chroot it started from. Needs root (mount, chroot).

KC_DKMS_CACHE=$KVMCHURN_CACHE/dkms
# What every chroot has, besides minbase: dkms with what it needs to build and sign (gcc,
# make, kmod, openssl), and what the package test builds with.
KC_DKMS_BASE_PKGS="dkms make gcc libc6-dev kmod openssl xz-utils zstd ca-certificates"
KC_DKMS_DEB_PKGS="build-essential dpkg-dev debhelper dh-dkms fakeroot"
# The package test builds and installs on bookworm only (bullseye has no dh-dkms).
kc_release_pkgs() { echo "$KC_DKMS_BASE_PKGS$([[ $1 == bookworm ]] && echo " $KC_DKMS_DEB_PKGS")"; }
# Paths of the release's archive, after the host's main and security URIs.
kc_release_suites() {
	case $1 in
	bullseye) echo "main:bullseye main:bullseye-updates security:bullseye-security" ;;
	*) echo "main:$1 main:$1-updates security:$1-security main:$1-backports" ;;
	esac
}

# kc_release ID: the Debian release whose chroot builds ID's module.
kc_release() {
	case $1 in
	x86_64-5.10) echo bullseye ;;
	x86_64-6.1 | x86_64-6.12) echo bookworm ;;
	x86_64-7.x) echo trixie ;;
	*) return 1 ;;
	esac
}

# kc_chroot_exec ROOT CMD...: run CMD in ROOT with /proc mounted and a clean environment,
# in a private mount namespace (the mounts go away with it, whatever happens).
kc_chroot_exec() {
	local root=$1
	shift
	# shellcheck disable=SC2016 # expanded by the inner sh
	unshare -m --propagation private -- sh -c 'mount -t proc proc "$0/proc" && exec chroot "$0" "$@"' \
		"$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LC_ALL=C.UTF-8 \
		DEBIAN_FRONTEND=noninteractive "$@"
}

# kc_overlay_exec ROOT WORK BIND CMD...: run CMD in a throwaway overlay of ROOT (its
# changes go to WORK/upper, which the caller removes), with the host folder BIND mounted
# at /kvmchurn inside.
kc_overlay_exec() {
	local root=$1 work=$2 bind=$3
	shift 3
	rm -rf "$work"
	mkdir -p "$work"/{upper,work,merged}
	# shellcheck disable=SC2016 # expanded by the inner sh
	unshare -m --propagation private -- sh -c '
		w=$0 root=$1 bind=$2; shift 2
		mount -t overlay overlay -o "lowerdir=$root,upperdir=$w/upper,workdir=$w/work" "$w/merged" &&
		mount -t proc proc "$w/merged/proc" &&
		mkdir -p "$w/merged/kvmchurn" && mount --bind "$bind" "$w/merged/kvmchurn" &&
		exec chroot "$w/merged" "$@"' "$work" "$root" "$bind" \
		/usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LC_ALL=C.UTF-8 \
		DEBIAN_FRONTEND=noninteractive "$@"
}

# kc_chroot_apt_config ROOT RELEASE: sources (the host's URIs and keyring) and the host's
# Acquire settings that reaching the archive may need (proxies, snapshot dates).
kc_chroot_apt_config() {
	local root=$1 rel=$2 s kind suite uri
	install -D -m 0644 "$KC_KEYRING" "$root/etc/apt/keyrings/kvmchurn-debian.gpg"
	for s in $(kc_release_suites "$rel"); do
		kind=${s%%:*} suite=${s#*:}
		[[ $kind == security ]] && uri=$KC_SECURITY || uri=$KC_MIRROR
		printf 'deb [signed-by=/etc/apt/keyrings/kvmchurn-debian.gpg] %s %s main\n' "$uri" "$suite"
	done >"$root/etc/apt/sources.list"
	{
		echo '// written by kvmchurn tests/dkms: what the host needs to reach its archive'
		apt-config dump | grep -E '^Acquire::(https?::Proxy|Check-Valid-Until|Check-Date)' || true
		echo 'APT::Install-Recommends "false";'
		echo 'Acquire::Languages "none";'
	} >"$root/etc/apt/apt.conf.d/90kvmchurn"
	cp -L /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
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

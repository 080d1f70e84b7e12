# shellcheck shell=bash
# Helpers sourced by the tiers that run things in a Debian release other than the host's
# (tests/dkms, tests/qemu, and the x86 guests' QEMU, tests/lib/qemu.sh): chroots made with
# debootstrap (kc_debootstrap, lib.sh) and kept in the cache, apt in them pointed at the
# host's own archive, and throwaway overlays of them. Needs root (mount, chroot).

# kc_release_suites RELEASE [ARCH]: paths of the release's archive, after the host's main
# and security URIs. bullseye-security's index lists arm64 packages whose files its pool
# does not serve here (404): an arm64 bullseye chroot goes without it.
kc_release_suites() {
	case $1-${2:-amd64} in
	bullseye-arm64) echo "main:bullseye main:bullseye-updates" ;;
	bullseye-*) echo "main:bullseye main:bullseye-updates security:bullseye-security" ;;
	*) echo "main:$1 main:$1-updates security:$1-security main:$1-backports" ;;
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

# kc_chroot_apt_config ROOT RELEASE [ARCH]: sources (the host's URIs and keyring) and the
# host's Acquire settings that reaching the archive may need (proxies, snapshot dates).
kc_chroot_apt_config() {
	local root=$1 rel=$2 arch=${3:-amd64} s kind suite uri
	install -D -m 0644 "$KC_KEYRING" "$root/etc/apt/keyrings/kvmchurn-debian.gpg"
	for s in $(kc_release_suites "$rel" "$arch"); do
		kind=${s%%:*} suite=${s#*:}
		[[ $kind == security ]] && uri=$KC_SECURITY || uri=$KC_MIRROR
		printf 'deb [signed-by=/etc/apt/keyrings/kvmchurn-debian.gpg] %s %s main\n' "$uri" "$suite"
	done >"$root/etc/apt/sources.list"
	{
		echo '// written by kvmchurn tests/lib/chroot.sh: what the host needs to reach its archive'
		apt-config dump | grep -E '^Acquire::(https?::Proxy|Check-Valid-Until|Check-Date)' || true
		echo 'APT::Install-Recommends "false";'
		echo 'Acquire::Languages "none";'
	} >"$root/etc/apt/apt.conf.d/90kvmchurn"
	cp -L /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
}

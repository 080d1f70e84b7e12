# shellcheck shell=bash disable=SC2034 # KC_DKMS_ROOT is read by tier.sh
# Helpers sourced by tests/dkms/tier.sh: the chroots of Debian releases in which dkms, the
# kernels' headers and the build tools are really installed with apt. Each test runs in a
# throwaway overlay of one (tests/lib/chroot.sh), so that a test never leaves anything in
# the chroot it started from. Needs root (mount, chroot).
# shellcheck source-path=SCRIPTDIR source=../lib/chroot.sh
. "$KC_TOP/tests/lib/chroot.sh"

KC_DKMS_CACHE=$KVMCHURN_CACHE/dkms
# What every chroot has, besides minbase: dkms with what it needs to build and sign (gcc,
# make, kmod, openssl), and what the package test builds with: debian/control's
# Build-Depends (tests/unit/packaging.sh checks it: promtool and systemd-analyze for the
# unit tier that the build runs).
KC_DKMS_BASE_PKGS="dkms make gcc libc6-dev kmod openssl xz-utils zstd ca-certificates"
KC_DKMS_DEB_PKGS="build-essential dpkg-dev debhelper dh-dkms fakeroot python3 prometheus systemd"
# ... and what the service test boots with (kc_overlay_boot): systemd as init, and the
# node_exporter whose textfile folder the service writes to.
KC_DKMS_DEB_PKGS+=" prometheus-node-exporter"
# The package test builds and installs on bookworm only (bullseye has no dh-dkms); the
# arm64 chroot only installs the arch-all kvmchurn-dkms that bookworm built.
kc_release_pkgs() { echo "$KC_DKMS_BASE_PKGS$([[ $1 == bookworm ]] && echo " $KC_DKMS_DEB_PKGS")"; }
# The headers metapackage the package test installs (on amd64 bookworm, a second kernel
# beside 6.12 for DKMS to build for; on arm64, the one kernel).
kc_release_meta() { echo "linux-headers-$(kc_chroot_arch "$1")"; }

# kc_release ID: the chroot that builds ID's module: its Debian release, and -arm64 for an
# arm64 one (run by the host through qemu-user-static: kc_foreign_ready).
kc_release() {
	case $1 in
	x86_64-5.10) echo bullseye ;;
	x86_64-6.1 | x86_64-6.12) echo bookworm ;;
	x86_64-7.x) echo trixie ;;
	arm64-5.10) echo bullseye-arm64 ;;
	arm64-6.1) echo bookworm-arm64 ;;
	*) return 1 ;;
	esac
}

# kc_chroot_arch CHROOT: its Debian architecture; kc_chroot_rel CHROOT: its release.
kc_chroot_arch() { [[ $1 == *-arm64 ]] && echo arm64 || echo amd64; }
kc_chroot_rel() { echo "${1%-arm64}"; }

# kc_foreign_ready: the host runs arm64 programs (a chroot's dpkg, gcc, dkms) through
# qemu-user-static's binfmt_misc entry. A Debian host with systemd registers it when the
# package is installed; elsewhere (a container, a VM without systemd) the entry is
# registered here from the package's own binfmt.d file, with its F flag (the interpreter
# is opened now, so it works inside chroots).
kc_foreign_ready() {
	local bm=/proc/sys/fs/binfmt_misc conf=/usr/lib/binfmt.d/qemu-aarch64.conf
	[[ $(head -n1 "$bm/qemu-aarch64" 2>/dev/null) != enabled ]] || return 0
	[[ -r $conf ]] || kc_die "arm64 chroots need qemu-user-static (apt-get install qemu-user-static): no $conf"
	[[ -e $bm/register ]] || mount -t binfmt_misc binfmt_misc "$bm" ||
		kc_die "binfmt_misc could not be mounted on $bm (arm64 chroots need it)"
	[[ -e $bm/qemu-aarch64 ]] || grep -v '^#' "$conf" >"$bm/register" ||
		kc_die "registering $conf in $bm failed"
	[[ $(head -n1 "$bm/qemu-aarch64" 2>/dev/null) == enabled ]] ||
		kc_die "$bm/qemu-aarch64 is there but not enabled (echo 1 >$bm/qemu-aarch64)"
	kc_log "dkms: arm64 programs run through qemu-user-static ($bm/qemu-aarch64 registered)"
}

# kc_dkms_chroot RELEASE HEADERS...: leave $KC_DKMS_CACHE/chroot/RELEASE ready with the base
# packages and these headers (each PKG=VERSION, or SUITE/PKG=VERSION for a package of a
# suite apt does not take by default, such as -backports) installed, and no other kernel's
# headers: so that "every kernel with headers" is known. Sets KC_DKMS_ROOT.
kc_dkms_chroot() {
	local rel=$1 d=$KC_DKMS_CACHE/chroot/$1 t=$SECONDS h cmd arch dist
	shift
	KC_DKMS_ROOT=$d
	arch=$(kc_chroot_arch "$rel") dist=$(kc_chroot_rel "$rel")
	[[ $arch == amd64 ]] || kc_foreign_ready
	if [[ ! -f $d/.kvmchurn-ok ]]; then
		kc_log "dkms: creating the $rel chroot in $d (debootstrap and dkms, a few minutes$([[ $arch == amd64 ]] || echo "; emulated, ten or more"))"
		kc_debootstrap "$d" "$dist" --arch="$arch" || kc_die "debootstrap $rel failed (log: $d.log)"
		kc_chroot_apt_config "$d" "$dist" "$arch"
		kc_chroot_exec "$d" sh -c "apt-get -q update && apt-get -q -y install $(kc_release_pkgs "$rel")" \
			>>"$d.log" 2>&1 || { tail -n 20 "$d.log" >&2; kc_die "$rel chroot: installing dkms failed (log: $d.log)"; }
		touch "$d/.kvmchurn-ok"
		kc_log "dkms: $rel chroot ready ($((SECONDS - t)) s)"
	fi
	kc_chroot_apt_config "$d" "$dist" "$arch"
	# headers of earlier runs are marked automatic, and go unless asked for again (or
	# needed by linux-headers-amd64 or -arm64, which the package test installs on bookworm)
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
	[[ $dist != bookworm ]] || cmd+=" && apt-get -q -y install $(kc_release_meta "$rel")"
	cmd+=" && apt-get -q -y autoremove --purge && apt-get clean"
	kc_chroot_exec "$d" sh -c "$cmd" >"$d.log" 2>&1 ||
		{ tail -n 20 "$d.log" >&2; kc_die "$rel chroot: installing the headers failed (log: $d.log)"; }
}

# kc_overlay_boot ROOT WORK BIND SECS SCRIPT ARG: boot a throwaway overlay of ROOT with its
# own systemd as init (systemd-nspawn -b: a container on the host's kernel, the loopback
# its only network), BIND at /kvmchurn, and run "bash /kvmchurn/SCRIPT ARG" as a unit
# once the boot is up; its output goes to BIND/boot.log, and it powers the container off
# when it ends. SECS bounds the whole boot (a hang); the console is in BIND/console.log.
# Returns the script's exit status, 124 for a boot killed at SECS.
kc_overlay_boot() {
	local root=$1 work=$2 bind=$3 secs=$4 script=$5 arg=$6 rc=0
	command -v systemd-nspawn >/dev/null ||
		kc_die "booting a chroot needs systemd-nspawn: apt-get install systemd-container (tests/install-deps.sh)"
	rm -rf "$work" "$bind/boot.rc"
	mkdir -p "$work"/{upper,work,merged}
	# shellcheck disable=SC2016 # expanded by the inner sh
	timeout -k 10 "$secs" unshare -m --propagation private -- sh -c '
		w=$0 root=$1 bind=$2 script=$3 arg=$4 m=$0/merged
		mount -t overlay overlay -o "lowerdir=$root,upperdir=$w/upper,workdir=$w/work" "$m" || exit 1
		u=$m/etc/systemd/system
		cat >"$u/kvmchurn-test.service" <<-EOF || exit 1
		[Unit]
		Description=kvmchurn test: $script $arg
		After=multi-user.target
		[Service]
		Type=oneshot
		ExecStart=/bin/sh -c "bash /kvmchurn/$script $arg >/kvmchurn/boot.log 2>&1; echo \$\$? >/kvmchurn/boot.rc; systemctl --no-block poweroff"
		[Install]
		WantedBy=multi-user.target
		EOF
		mkdir -p "$u/multi-user.target.wants" &&
		ln -sf ../kvmchurn-test.service "$u/multi-user.target.wants/" &&
		# what the test does not use: the Prometheus server (here for promtool), apt timers
		for x in prometheus.service apt-daily.timer apt-daily-upgrade.timer; do
			ln -sf /dev/null "$u/$x" || exit 1
		done &&
		exec systemd-nspawn -q --register=no --keep-unit --private-network --console=read-only \
			-D "$m" --bind="$bind:/kvmchurn" -b' "$work" "$root" "$bind" "$script" "$arg" \
		>"$bind/console.log" 2>&1 </dev/null || rc=$?
	rm -rf "$work"
	((rc != 124 && rc != 137)) || return 124
	[[ -s $bind/boot.rc ]] || return 1
	return "$(cat "$bind/boot.rc")"
}

# shellcheck shell=bash
# Helpers sourced by tests/lib/boot.sh: Debian's QEMU as the VMM inside a guest
# (scenarios/45-qemu.sh), and any other Debian root a guest runs programs from (make
# bench's bpftrace: boot.sh's --disk). Two parts:
# - the VMM's root: bookworm's QEMU (7.2, what a Debian 12 fleet host runs) and what
#   it needs, for the guest's architecture, unpacked by mmdebstrap (--variant=extract:
#   no maintainer script runs, so the host needs no emulator for arm64) once and kept
#   in the cache as a squashfs image, which the guest sees as a read-only virtio disk
#   and runs QEMU chrooted in;
# - the VMs that QEMU boots: the guest's own kernel with a small initramfs
#   (guest/vmm-guest-init and the virtio modules), packed per kernel.
# Needs root, mmdebstrap and mksquashfs (squashfs-tools).

# The scenario that needs them; the recipe of the images (bump it when what an
# image holds changes: a cached image of another recipe is made again).
KC_VMM_SCENARIO=45-qemu.sh
KC_VMM_RECIPE=2

# kc_vmm_pkgs DEBARCH: the VMM's packages.
kc_vmm_pkgs() {
	case $1 in
	amd64) echo qemu-system-x86 ;;
	arm64) echo qemu-system-arm ;;
	esac
}

# kc_vmm_debarch: the Debian architecture of the kernel whose env is loaded.
kc_vmm_debarch() { [[ $KC_ARCH == x86_64 ]] && echo amd64 || echo "$KC_ARCH"; }

# kc_vmm_image_of DEBARCH: the image's path.
kc_vmm_image_of() { echo "$KVMCHURN_CACHE/vmm/bookworm-$1.sqfs"; }

# kc_vmm_wanted ID: does ID's run boot a VMM root? Its scenario is to run, and the
# kernel is a Debian one with the modules to mount it (the debug kernel has no
# virtio and no CONFIG_NET for QMP: the scenario says so and skips).
kc_vmm_wanted() {
	[[ -n ${KC_VMM_MODULES:-} && -n $(kc_vmm_pkgs "$(kc_vmm_debarch)") ]] &&
		kc_scenarios "$1" | grep "/$KC_VMM_SCENARIO\$" >/dev/null # not -q: no SIGPIPE under pipefail
}

# kc_root_image IMG DEBARCH RECIPE PKG...: a bookworm root of DEBARCH holding PKGs and
# what they need, unpacked by mmdebstrap (--variant=extract: no maintainer script runs,
# so the host needs no emulator for arm64) and kept as the squashfs image IMG, which a
# guest mounts from a read-only virtio disk and runs the programs chrooted in. Made once:
# IMG.recipe holds RECIPE. 1 (the log in IMG.log) when it cannot be made.
kc_root_image() {
	local img=$1 arch=$2 recipe=$3 d t=$SECONDS c
	shift 3
	d=${img%.sqfs}.root
	[[ $(cat "$img.recipe" 2>/dev/null) != "$recipe" ]] || return 0
	mkdir -p "${img%/*}"
	for c in mmdebstrap:mmdebstrap mksquashfs:squashfs-tools; do
		command -v "${c%%:*}" >/dev/null ||
			{ echo "${c%%:*} not found: apt-get install ${c#*:}" | tee "$img.log" >&2; return 1; }
	done
	[[ -n ${KC_MIRROR:-} ]] || kc_read_sources
	kc_log "making a root of $* (bookworm, $arch) in $img"
	rm -rf "$img" "$img.recipe" "$d"
	mmdebstrap --variant=extract --architectures="$arch" --include="$(
		IFS=,
		echo "$*"
	)" \
		--aptopt='Acquire::Languages "none"' bookworm "$d" \
		"deb [signed-by=$KC_KEYRING] $KC_MIRROR bookworm main" \
		"deb [signed-by=$KC_KEYRING] $KC_MIRROR bookworm-updates main" \
		"deb [signed-by=$KC_KEYRING] $KC_SECURITY bookworm-security main" >"$img.log" 2>&1 ||
		{ tail -n 20 "$img.log" >&2; return 1; }
	# what a program never reads; mount points for what the guest binds in
	rm -rf "$d"/usr/share/{doc,man,locale,info} "$d"/var/cache/apt/* "$d"/var/lib/apt/lists/*
	# /bin/sh, which dash's maintainer script would have made (popen() needs it)
	[[ ! -e $d/bin/dash || -e $d/bin/sh ]] || ln -s dash "$d/bin/sh"
	mkdir -p "$d"/{dev,proc,sys,tmp,kvmchurn}
	mksquashfs "$d" "$img.tmp" -noappend -comp gzip -quiet >>"$img.log" 2>&1 || return 1
	mv "$img.tmp" "$img"
	echo "$recipe" >"$img.recipe"
	kc_log "root of $* for $arch ready ($((SECONDS - t)) s, $(du -h "$img" | cut -f1))"
	rm -rf "$d"
}

# The seed's root: bookworm's bpftrace (0.17) and what it needs, a /bin/sh among it (it
# popen()s clang for include paths, and dies when sh is not there); bump when that
# changes. make bench runs the seed from it; the debug tier shows bpftrace refused under
# lockdown=confidentiality (68-lockdown).
KC_SEED_ROOT_RECIPE=2
KC_SEED_ROOT_PKGS="bpftrace dash"

# kc_seed_root_of DEBARCH: the seed's root image for DEBARCH (a path).
kc_seed_root_of() { echo "$KVMCHURN_CACHE/roots/bpftrace-bookworm-$1.sqfs"; }

# kc_seed_root DEBARCH: leave that architecture's seed root ready (kc_root_image).
kc_seed_root() {
	# shellcheck disable=SC2086 # the packages are words
	kc_root_image "$(kc_seed_root_of "$1")" "$1" "$KC_SEED_ROOT_RECIPE" $KC_SEED_ROOT_PKGS
}

# kc_vmm_image DEBARCH: leave that architecture's VMM root ready (kc_root_image).
kc_vmm_image() {
	# shellcheck disable=SC2046 # the packages are words
	kc_root_image "$(kc_vmm_image_of "$1")" "$1" "$KC_VMM_RECIPE" $(kc_vmm_pkgs "$1")
}

# kc_disk_pack ROOT: into the guest's ROOT (an initramfs being made), the modules that
# mount a root image (virtio, squashfs), named in its config as KVMCHURN_VMM_MODULES;
# none for a kernel that has them built in (the debug kernels).
kc_disk_pack() {
	local root=$1 m mods=$KVMCHURN_CACHE/kernels/$KC_ID/modules
	for m in ${KC_VMM_MODULES:-}; do cp "$mods/$m" "$root/kvmchurn/modules/"; done
	printf 'KVMCHURN_VMM_MODULES="%s"\n' "${KC_VMM_MODULES:-}" >>"$root/kvmchurn/config"
}

# kc_vmm_pack ID ROOT: into the guest's ROOT (an initramfs being made), what the
# scenario needs: the modules that mount the image, and for the VMs QEMU boots the
# kernel and their initramfs, in ROOT/kvmchurn/vmm/.
kc_vmm_pack() {
	local id=$1 root=$2 st m mods=$KVMCHURN_CACHE/kernels/$1/modules
	st=$KVMCHURN_CACHE/initramfs/$id-vmm-guest
	rm -rf "$st"
	mkdir -p "$st"/{bin,proc,sys,dev,modules} "$root/kvmchurn/vmm"
	cp "$KC_BUSYBOX" "$st/bin/busybox"
	ln -s busybox "$st/bin/sh"
	cp "$KC_LIB/guest/vmm-guest-init" "$st/init"
	chmod 755 "$st/init"
	kc_disk_pack "$root"
	for m in $KC_VMM_MODULES; do
		# the VMs QEMU boots have a disk, not the image's file system
		[[ $m == squashfs.ko ]] && continue
		cp "$mods/$m" "$st/modules/"
		echo "$m" >>"$st/modules/order"
	done
	mknod -m 600 "$st/dev/console" c 5 1 2>/dev/null || true
	(cd "$st" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) | gzip -1 >"$root/kvmchurn/vmm/initrd.gz"
	cp "$KC_VMLINUZ" "$root/kvmchurn/vmm/vmlinuz"
}

# kc_vmm_drive ARRAY [IMAGE]: IMAGE (default: the VMM's root), read-only, as the guest's
# first virtio disk.
kc_vmm_drive() {
	local -n kc_vd=$1 # a name no caller uses
	kc_vd+=(-drive "file=${2:-$(kc_vmm_image_of "$(kc_vmm_debarch)")},if=none,id=vmmroot,format=raw,readonly=on"
		-device "virtio-blk-pci,drive=vmmroot")
}

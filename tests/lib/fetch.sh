#!/usr/bin/env bash
# fetch.sh [ID...]: leave each kernel of the matrix ready under
# $KVMCHURN_CACHE/kernels/<id>/: vmlinuz, the headers to build against (KDIR), the host
# modules the guest loads (plain .ko, in load order) and an `env` file for the other
# scripts. The newest version is resolved from the package indexes on every run; a kernel
# already unpacked at that version is not downloaded again. Without network, cached
# kernels are used as they are. Ids: arguments, else $KERNELS, else the whole matrix.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=core.sh
. "$(dirname "${BASH_SOURCE[0]}")/core.sh"

# Modules the x86 guest needs for nested KVM (what they depend on is added from modules.dep).
KC_WANT_MODULES="rng-core ccp irqbypass kvm kvm-amd"
# Bump when what a cached kernel holds changes (a kernel of an older recipe is fetched again).
# 2: KC_EXTRA_MODULES (brd); 3: x86 guests on two vCPUs (tests/lib/qemu.sh);
# 4: KC_VMM_MODULES (tests/lib/vmm.sh); 5: System.map (tests/lib/hang-dump.py);
# 6: QEMU's -cpu per kernel id (KC_QEMU_CPU)
KC_FETCH_RECIPE=6

# kc_idx_has PKG ARCH VERSION: is that exact package in the index held in $idx?
kc_idx_has() {
	awk -F'\t' -v p="$1" -v a="$2" -v v="$3" '$1 == p && $2 == a && $3 == v { f = 1 } END { exit !f }' <<<"$idx"
}

# kc_resolve [SKIP]: the newest ABI of the kernel's suites whose headers, common headers,
# kbuild and image all exist at one version, but the ABIs of SKIP (words: those an index
# lists but the archive does not serve). Sets KC_ABI KC_KREL KC_PKGVER KC_KBUILD KC_SPECS.
kc_resolve() {
	local name ver abi deps flav=$KC_FLAVOUR arch=$KC_DEBARCH skip=" ${1:-} "
	idx=$(kc_index "$KC_SUITES" "$(printf '%s\n' "$arch" amd64 | sort -u)")
	while IFS=$'\t' read -r name ver; do
		abi=${name#linux-headers-} abi=${abi%-"$flav"}
		[[ $skip != *" $abi "* ]] || continue
		deps=$(awk -F'\t' -v p="$name" -v v="$ver" '$1 == p && $3 == v { print $4; exit }' <<<"$idx")
		KC_KBUILD=$(grep -oE 'linux-kbuild-[^ ,]+' <<<"$deps" | head -n1) || continue
		kc_idx_has "linux-headers-$abi-$KC_COMMON" all "$ver" || continue
		# the arm64 headers' scripts are the amd64 kbuild's host tools
		kc_idx_has "$KC_KBUILD" amd64 "$ver" || continue
		KC_SPECS=("$name:$arch=$ver" "linux-headers-$abi-$KC_COMMON:all=$ver" "$KC_KBUILD:amd64=$ver")
		if kc_idx_has "linux-image-$abi-$flav-unsigned" "$arch" "$ver"; then
			KC_SPECS+=("linux-image-$abi-$flav-unsigned:$arch=$ver")
		elif kc_idx_has "linux-binary-unsigned-$abi-$flav" "$arch" "$ver" &&
			kc_idx_has "linux-modules-$abi-$flav" "$arch" "$ver"; then
			# 7.2+: the image is split into kernel, modules and base
			KC_SPECS+=("linux-binary-unsigned-$abi-$flav:$arch=$ver" "linux-modules-$abi-$flav:$arch=$ver")
		else
			continue
		fi
		KC_ABI=$abi KC_KREL=$abi-$flav KC_PKGVER=$ver
		return 0
	done < <(RE="^linux-headers-(${KC_ABI_RE})-$flav\$" awk -F'\t' -v a="$arch" \
		'$1 ~ ENVIRON["RE"] && $2 == a { print $1 "\t" $3 }' <<<"$idx" | sort -t$'\t' -k1,1Vr -k2,2Vr)
	kc_die "$KC_ID: no complete kernel in $KC_SUITES"
}

# kc_fetch_bin PKG SUITE ARCH PATHS DIR: PATHS (files inside the package, spaces between)
# of the newest PKG:ARCH of SUITE, kept unpacked as DIR/<each one's name> with DIR/version.
# Offline, the cached ones are used as they are.
kc_fetch_bin() {
	local pkg=$1 suite=$2 arch=$3 paths=$4 dir=$5 ver tmp f have=1
	for f in $paths; do
		[[ -x $dir/${f##*/} ]] || have=0
	done
	if [[ $KC_ONLINE == 0 ]]; then
		((have)) || kc_die "offline and no cached $pkg:$arch"
		return 0
	fi
	ver=$(kc_index "$suite" "$arch" | awk -F'\t' -v p="$pkg" -v a="$arch" '$1 == p && $2 == a { print $3 }' | sort -V | tail -n1)
	[[ -n $ver ]] || kc_die "$pkg:$arch not in $suite"
	((have)) && [[ $(cat "$dir/version" 2>/dev/null) == "$ver" ]] && return 0
	kc_download "$dir/deb" "$pkg:$arch=$ver"
	tmp=$(mktemp -d "$KVMCHURN_CACHE/tmp.XXXXXX")
	dpkg -x "$dir/deb/$(kc_deb_file "$pkg" "$arch" "$ver")" "$tmp"
	for f in $paths; do
		cp "$tmp/$f" "$dir/"
	done
	echo "$ver" >"$dir/version"
	rm -rf "$tmp" "$dir/deb"
}

# What the trixie chroot holds: gcc-14 and its arm64 cross compiler, the tools kbuild runs.
KC_CHROOT_PKGS="gcc-14,gcc-14-aarch64-linux-gnu,make,binutils,libelf1t64,pahole,kmod"

# kc_chroot_current: is the trixie chroot made, and of today's package list?
kc_chroot_current() { [[ $(cat "$KC_CHROOT_DIR/.kvmchurn-ok" 2>/dev/null) == "$KC_CHROOT_PKGS" ]]; }

# kc_chroot_ensure: the trixie chroot that builds modules for gcc-14 kernels (its sparse
# comes from sid, see kc_check_ready). Made once, kept in the cache; made again when its
# package list changes (the kernels unpacked in it are then fetched again).
kc_chroot_ensure() {
	local d=$KC_CHROOT_DIR t=$SECONDS
	kc_chroot_current && return 0
	[[ $KC_ONLINE == 1 ]] || kc_die "offline and no trixie chroot in $d"
	kc_log "creating the trixie chroot in $d (debootstrap, ~2 min)"
	kc_debootstrap "$d" trixie --include="$KC_CHROOT_PKGS" ||
		kc_die "debootstrap failed (log: $d.log)"
	echo "$KC_CHROOT_PKGS" >"$d/.kvmchurn-ok"
	kc_log "trixie chroot ready ($((SECONDS - t)) s, $(du -sh "$d" | cut -f1))"
}

# kc_chroot_shared PATH: does another cached kernel of the chroot hold PATH (the -common
# headers and kbuild of an ABI serve both architectures)?
kc_chroot_shared() {
	local env
	for env in "$KVMCHURN_CACHE"/kernels/*/env; do
		[[ $env != "$KVMCHURN_CACHE/kernels/$KC_ID/env" ]] || continue
		# shellcheck source=/dev/null
		(. "$env" && [[ " $KC_CHROOT_PATHS " == *" $1 "* ]]) && return 0
	done
	return 1
}

# kc_host_modules IMGROOT KREL OUTDIR NAMES: decompress the modules named in NAMES and their
# dependencies into OUTDIR; print them in load order.
kc_host_modules() {
	local root=$1 krel=$2 out=$3 names=$4 mdir rel
	if [[ ! -d $root/lib/modules/$krel && -d $root/usr/lib/modules/$krel ]]; then
		ln -s usr/lib "$root/lib" # depmod -b looks under lib/modules only
	fi
	mdir=$root/lib/modules/$krel
	[[ -d $mdir ]] || kc_die "no modules folder for $krel"
	# the split 7.2+ packages leave these out; depmod only needs them for ordering
	touch "$mdir/modules.order" "$mdir/modules.builtin" "$mdir/modules.builtin.modinfo"
	[[ -f $mdir/modules.dep ]] || depmod -b "$root" "$krel"
	mkdir -p "$out"
	# depth first through modules.dep: every module after what it depends on
	awk -v want="$names" '
		function norm(p) { sub(/.*\//, "", p); sub(/\.ko(\.[a-z]+)?$/, "", p); gsub(/-/, "_", p); return p }
		function visit(n,   a, c, i) {
			if (n in seen) return
			seen[n] = 1
			c = split(deps[n], a, " ")
			for (i = c; i >= 1; i--) visit(a[i])
			print path[n]
		}
		{ k = $1; sub(/:$/, "", k); n = norm(k); path[n] = k; deps[n] = ""
		  for (i = 2; i <= NF; i++) deps[n] = deps[n] " " norm($i) }
		END { c = split(want, w, " "); for (i = 1; i <= c; i++) { n = norm(w[i]); if (n in path) visit(n) } }
	' "$mdir/modules.dep" | while read -r rel; do
		local base=${rel##*/}
		case $base in
		*.ko.xz) xz -dc "$mdir/$rel" >"$out/${base%.xz}" ;;
		*.ko.zst) zstd -qdc "$mdir/$rel" >"$out/${base%.zst}" ;;
		*.ko.gz) gzip -dc "$mdir/$rel" >"$out/${base%.gz}" ;;
		*) cp "$mdir/$rel" "$out/$base" ;;
		esac
		echo "${base%.ko*}.ko"
	done
}

# kc_check_ready ID: what the build tier's C=1 needs, for a kernel new or cached.
# - Kernels from 6.19 on turn C=1 off, with only a make message, unless
#   scripts/checker-valid.sh prints 1, and Debian's 7.x headers (linux-kbuild) lack that
#   script: ours (checker-valid.sh beside this file, same contract) goes in its place.
# - KC_CHECK: sid's sparse, copied into the chroot (its /usr/bin/sparse needs only libc).
kc_check_ready() {
	kc_spec "$1"
	kc_load_env "$1" || kc_die "$1: not fetched"
	local root=${KC_CHROOT:-$KVMCHURN_CACHE/kernels/$1/root} ours=$KC_LIB/checker-valid.sh src f
	src=$root/usr/src/linux-headers-${KC_KREL%-"$KC_FLAVOUR"}-$KC_COMMON
	f=$src/scripts/checker-valid.sh
	# a real one is kept; ours is refreshed when it changes
	if grep -q 'scripts/checker-valid\.sh' "$src/Makefile" && { [[ ! -e $f ]] || grep -q kvmchurn "$f"; }; then
		cmp -s "$ours" "$f" || install -m 0755 "$ours" "$f"
	fi
	[[ -n $KC_CHECK ]] || return 0
	[[ -n $KC_CHROOT ]] || kc_die "$1: KC_CHECK is a path inside the chroot, and $1 has none"
	kc_fetch_bin sparse sid amd64 usr/bin/sparse "$KVMCHURN_CACHE/sparse-sid"
	f=$KVMCHURN_CACHE/sparse-sid/sparse
	cmp -s "$f" "$KC_CHROOT$KC_CHECK" || install -D -m 0755 "$f" "$KC_CHROOT$KC_CHECK"
}

# kc_sparse_host: KC_SID_SPARSE_HOST, sid's sparse for a kernel whose modules the host
# builds (x86_64-debug-7: 7.x's headers want it, kc_check_ready). sid's binary wants glibc
# 2.38 and bookworm has 2.36: the wrapper runs it with sid's own C library, unpacked
# beside it (sparse needs no other), through that library's dynamic loader.
kc_sparse_host() {
	local d=${KC_SID_SPARSE_HOST%/*}
	kc_fetch_bin sparse sid amd64 usr/bin/sparse "$d"
	kc_fetch_bin libc6 sid amd64 "usr/lib/x86_64-linux-gnu/libc.so.6 usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2" "$d/libc"
	# shellcheck disable=SC2016 # expanded when the wrapper runs
	printf '%s\n' '#!/bin/sh' '# written by kvmchurn tests/lib/fetch.sh: sid'"'"'s sparse with sid'"'"'s C library' \
		'd=$(dirname "$0")' 'exec "$d/libc/ld-linux-x86-64.so.2" --library-path "$d/libc" "$d/sparse" "$@"' \
		>"$KC_SID_SPARSE_HOST.tmp"
	chmod 0755 "$KC_SID_SPARSE_HOST.tmp"
	mv "$KC_SID_SPARSE_HOST.tmp" "$KC_SID_SPARSE_HOST"
}

# kc_fetch_debs KDIR DEBS: the packages of the newest version the archive serves into
# DEBS, unless KDIR holds that version already whole (then KC_FETCH_CACHED=1). An index
# can list what its pool lacks (bullseye-security lists arm64 kernels whose files answer
# 404), and an older ABI of the suites is as good.
kc_fetch_debs() {
	local kdir=$1 debs=$2 old='' skip=''
	KC_FETCH_CACHED=0
	if [[ -f $kdir/env ]]; then
		# headers that a chroot made afresh lost make it stale too (paths as kc_load_env
		# gives them: a cache moved elsewhere is still current)
		old=$(unset KC_FETCH_RECIPE && kc_load_env "$KC_ID" && if [[ -f $KC_CHROOT$KC_KDIR/Makefile ]]; then
			echo "$KC_KREL $KC_PKGVER ${KC_FETCH_RECIPE:-1}"
		else echo "$KC_KREL $KC_PKGVER (its headers gone)"; fi)
	fi
	while :; do
		kc_resolve "$skip"
		if [[ $old == "$KC_KREL $KC_PKGVER $KC_FETCH_RECIPE" ]] && { ((KC_USE_CHROOT == 0)) || kc_chroot_current; }; then
			kc_log "$KC_ID: $KC_KREL ($KC_PKGVER) cached"
			KC_FETCH_CACHED=1
			return 0
		fi
		kc_log "$KC_ID: fetching $KC_KREL ($KC_PKGVER)"
		if kc_download "$debs" "${KC_SPECS[@]}"; then
			[[ -z $old ]] || kc_log "$KC_ID: it replaces $old"
			return 0
		fi
		# kc_download left nothing of it
		kc_log "$KC_ID: $KC_KREL ($KC_PKGVER) is listed but could not be downloaded: trying an older one"
		skip+=" $KC_ABI"
	done
}

# kc_fetch_unpack KDIR DEBS ROOT IMG: KDIR made afresh (a previous version's headers
# inside the chroot go with it, but what another kernel there still uses), the headers
# and kbuild unpacked into ROOT, the image and modules into IMG.
kc_fetch_unpack() {
	local kdir=$1 debs=$2 root=$3 img=$4 spec pkg arch ver f
	if [[ -f $kdir/env ]]; then
		(
			# shellcheck source=/dev/null
			. "$kdir/env"
			for f in $KC_CHROOT_PATHS; do
				kc_chroot_shared "$f" || rm -rf "${KC_CHROOT:?}$f"
			done
		)
	fi
	rm -rf "$kdir"
	mkdir -p "$kdir"
	for spec in "${KC_SPECS[@]}"; do
		pkg=${spec%%:*} arch=${spec#*:} arch=${arch%%=*} ver=${spec#*=}
		f=$debs/$(kc_deb_file "$pkg" "$arch" "$ver")
		case $pkg in
		linux-headers-* | linux-kbuild-*) dpkg -x "$f" "$root" ;;
		*) dpkg -x "$f" "$img" ;;
		esac
	done
}

# kc_fetch_image KDIR IMG: from the unpacked image IMG, KDIR's vmlinuz, System.map and
# modules/; sets KC_FETCH_MODULES, KC_FETCH_EXTRA, KC_FETCH_VMM (the files of each kind).
kc_fetch_image() {
	local kdir=$1 img=$2 vmlinuz f
	for vmlinuz in "$img/boot/vmlinuz-$KC_KREL" "$img/usr/lib/modules/$KC_KREL/vmlinuz.unsigned" \
		"$img/usr/lib/modules/$KC_KREL/vmlinuz" ""; do
		[[ -z $vmlinuz || -f $vmlinuz ]] && break
	done
	[[ -n $vmlinuz ]] || kc_die "$KC_ID: no kernel image in the packages"
	cp "$vmlinuz" "$kdir/vmlinuz"
	# for tests/lib/hang-dump.py: where a hung guest's vCPUs are
	for f in "$img/boot/System.map-$KC_KREL" "$img/usr/lib/modules/$KC_KREL/System.map"; do
		[[ ! -f $f ]] || { cp "$f" "$kdir/System.map"; break; }
	done
	KC_FETCH_MODULES=''
	if [[ $KC_ARCH == x86_64 ]]; then
		KC_FETCH_MODULES=$(kc_host_modules "$img" "$KC_KREL" "$kdir/modules" "$KC_WANT_MODULES" | tr '\n' ' ')
		[[ $KC_FETCH_MODULES == *kvm-amd.ko* ]] || kc_die "$KC_ID: kvm-amd not found among the modules"
	fi
	KC_FETCH_EXTRA=$(kc_host_modules "$img" "$KC_KREL" "$kdir/modules" "$KC_EXTRA_WANT" | tr '\n' ' ')
	for f in $KC_EXTRA_WANT; do
		[[ " $KC_FETCH_EXTRA " == *" $f.ko "* ]] || kc_die "$KC_ID: $f not found among the modules"
	done
	# what a kernel builds in is not among them, and needs no loading
	KC_FETCH_VMM=$(kc_host_modules "$img" "$KC_KREL" "$kdir/modules" "$KC_VMM_WANT" | tr '\n' ' ')
}

# kc_fetch_env KDIR ROOT: KDIR/env, what the other scripts know of the kernel (kc_load_env):
# its headers (under ROOT, or in the chroot), compiler, QEMU's command line, modules.
kc_fetch_env() {
	local kdir=$1 root=$2 kdir_hdr chroot='' make_arch='' cross='' qemu console append
	if ((KC_USE_CHROOT)); then
		chroot=$KC_CHROOT_DIR
		kdir_hdr=/usr/src/linux-headers-$KC_KREL
		[[ -f $chroot$kdir_hdr/Makefile ]] || kc_die "$KC_ID: headers missing in the chroot"
	else
		kdir_hdr=$root/usr/src/linux-headers-$KC_KREL
		[[ -f $kdir_hdr/Makefile ]] || kc_die "$KC_ID: headers missing"
		# `include /usr/src/linux-headers-X-common/Makefile` must name the unpacked copy
		sed -i "s#\(^\|[ =]\)/usr/src/#\1$root/usr/src/#g" "$kdir_hdr/Makefile"
	fi
	if [[ $KC_ARCH == arm64 ]]; then
		make_arch=arm64 cross=aarch64-linux-gnu-
		qemu=(qemu-system-aarch64 -M 'virt,virtualization=on,gic-version=3' -cpu "$KC_QEMU_CPU"
			-smp 2 -m 1G -accel 'tcg,thread=multi' -nographic -no-reboot)
		console=ttyAMA0
	else
		# two vCPUs, a TCG thread each: tests/lib/qemu.sh picks a QEMU that can
		qemu=(qemu-system-x86_64 -accel 'tcg,thread=multi' -cpu "$KC_QEMU_CPU" -smp 2 -m 1G
			-no-reboot -nodefaults -display none -monitor none -serial stdio)
		console=ttyS0
	fi
	append="console=$console panic=-1 oops=panic"
	{
		printf '# written by tests/lib/fetch.sh for %s\n' "$KC_ID"
		printf 'KC_ID=%q\nKC_ARCH=%q\nKC_KREL=%q\nKC_PKGVER=%q\nKC_SUITES=%q\n' \
			"$KC_ID" "$KC_ARCH" "$KC_KREL" "$KC_PKGVER" "$KC_SUITES"
		printf 'KC_KDIR=%q\nKC_CHROOT=%q\nKC_CC=%q\nKC_MAKE_ARCH=%q\nKC_CROSS_COMPILE=%q\n' \
			"$kdir_hdr" "$chroot" "$KC_CC" "$make_arch" "$cross"
		printf 'KC_CHROOT_PATHS=%q\n' "${chroot:+$kdir_hdr /usr/src/linux-headers-$KC_ABI-$KC_COMMON /usr/lib/$KC_KBUILD /usr/src/$KC_KBUILD}"
		printf 'KC_VMLINUZ=%q\nKC_MODULES=%q\nKC_EXTRA_MODULES=%q\nKC_BUSYBOX=%q\n' \
			"$kdir/vmlinuz" "$KC_FETCH_MODULES" "${KC_FETCH_EXTRA% }" "$KVMCHURN_CACHE/busybox/$KC_DEBARCH/busybox"
		printf 'KC_VMM_MODULES=%q\n' "${KC_FETCH_VMM% }"
		printf 'KC_FETCH_RECIPE=%q\n' "$KC_FETCH_RECIPE"
		printf 'KC_QEMU=(%s)\nKC_APPEND=%q\n' "${qemu[*]@Q}" "$append"
	} >"$kdir/env.tmp"
	mv "$kdir/env.tmp" "$kdir/env"
}

# kc_fetch_one ID: resolve, download, unpack, write env. Runs in a subshell of its own.
kc_fetch_one() {
	kc_spec "$1"
	local kdir=$KVMCHURN_CACHE/kernels/$KC_ID t=$SECONDS debs=$KVMCHURN_CACHE/debs/$KC_ID root
	if [[ $KC_ONLINE == 0 ]]; then
		kc_load_env "$KC_ID" || kc_die "$KC_ID: offline and not cached"
		kc_log "$KC_ID: offline, using the cached $KC_KREL ($KC_PKGVER)"
		return 0
	fi
	kc_fetch_debs "$kdir" "$debs"
	((KC_FETCH_CACHED == 0)) || return 0
	((KC_USE_CHROOT == 0)) || kc_chroot_ensure
	root=$kdir/root
	((KC_USE_CHROOT == 0)) || root=$KC_CHROOT_DIR
	kc_fetch_unpack "$kdir" "$debs" "$root" "$kdir/.image"
	kc_fetch_image "$kdir" "$kdir/.image"
	rm -rf "$kdir/.image"
	kc_fetch_env "$kdir" "$root"
	rm -rf "$debs"
	kc_log "$KC_ID: $KC_KREL ready ($((SECONDS - t)) s)"
}

main() {
	local list ids id rc failed=0 arch
	list=$(kc_ids "$@") # not in <(...): a bad id must stop the run
	mapfile -t ids <<<"$list"
	kc_lock
	kc_apt_setup
	kc_apt_update
	for arch in $(for id in "${ids[@]}"; do kc_spec "$id" && echo "$KC_DEBARCH"; done | sort -u); do
		set +e
		(set -e; kc_fetch_bin busybox-static bookworm "$arch" bin/busybox "$KVMCHURN_CACHE/busybox/$arch")
		rc=$?
		set -e
		((rc == 0)) || failed=1
	done
	for id in "${ids[@]}"; do
		# one kernel failing does not stop the others
		set +e
		if kc_is_debug "$id"; then
			(set -e; "$KC_LIB/debug-kernel/kernel.sh" "$id"; kc_spec "$id"
				if [[ $KC_CHECK == "$KC_SID_SPARSE_HOST" ]]; then kc_sparse_host; fi)
		else
			(set -e; kc_fetch_one "$id"; kc_check_ready "$id")
		fi
		rc=$?
		set -e
		((rc == 0)) || { kc_log "$id: fetch FAILED"; failed=1; }
	done
	return "$failed"
}

kc_ids_only "usage: tests/lib/fetch.sh [ID...]   (ids: $KC_ALL_IDS $KC_OPTIN_IDS $KC_DEBUG_IDS;
       none: \$KERNELS, else the default matrix)" "$@"
main "$@"

# shellcheck shell=bash disable=SC2034 # the variables set here are read by the sourcing scripts
# Building for one kernel of the matrix (sourced by core.sh): the module, the client and
# the guest's programs, in a per-kernel copy of the tree, with the kernel's compiler.

# What of the source tree a module or client build needs (copied, never built in place).
KC_TREE_ITEMS="Kbuild Makefile build.mk dkms.conf module userspace tests/kunit tests/bench/floor tests/stall"

# kc_load_env ID: source the env file that fetch.sh left; fails if there is none. Its
# paths name the cache folder it was written in; a cache moved or copied elsewhere (a
# second one, for runs side by side; a CI cache restored to another path) has them
# rewritten to $KVMCHURN_CACHE, found from where the kernel's vmlinuz was then.
kc_load_env() {
	local f=$KVMCHURN_CACHE/kernels/$1/env at v
	[[ -f $f ]] || return 1
	# shellcheck source=/dev/null
	. "$f"
	at=${KC_VMLINUZ%/kernels/"$1"/vmlinuz}
	[[ $at != "$KC_VMLINUZ" && $at != "$KVMCHURN_CACHE" ]] || return 0
	for v in KC_KDIR KC_VMLINUZ KC_BUSYBOX KC_CHROOT KC_SIGN_KEY KC_SIGN_CERT; do
		[[ ${!v:-} == "$at"/* ]] && printf -v "$v" '%s' "$KVMCHURN_CACHE${!v#"$at"}"
	done
	return 0
}

# kc_build_path ID TIER: set KC_BUILD_DIR, the per-kernel build folder of TIER, as it is.
kc_build_path() {
	local id=$1 tier=$2
	kc_load_env "$id" || return 1
	if [[ -n $KC_CHROOT ]]; then
		KC_BUILD_DIR=$KC_CHROOT/build/$tier/$id
	else
		KC_BUILD_DIR=$KVMCHURN_CACHE/build/$tier/$id
	fi
}

# kc_build_dir ID TIER: set KC_BUILD_DIR, the per-kernel build folder of TIER, and copy
# the source tree into it afresh.
kc_build_dir() {
	kc_build_path "$1" "$2" || return 1
	# shellcheck disable=SC2086 # a list of items
	kc_copy_tree "$KC_BUILD_DIR" $KC_TREE_ITEMS
}

# kc_copy_tree DEST ITEM...: those items of the source tree that exist, copied afresh into
# DEST, without the products of an in-place build: a host client or test binary, or
# objects of another kernel, must not look up to date there.
kc_copy_tree() {
	local dest=$1 item items=()
	shift
	rm -rf "$dest"
	mkdir -p "$dest"
	for item in "$@"; do
		if [[ -e $KC_TOP/$item ]]; then items+=("$item"); fi
	done
	local -a excl
	read -ra excl <<<"$(make -s --no-print-directory -C "$KC_TOP" products)"
	tar -C "$KC_TOP" --exclude-vcs "${excl[@]/#/--exclude=}" -cf - "${items[@]}" | tar -C "$dest" -xf -
}

# kc_guest_cc OUT SRC: SRC built into OUT, a static program for the guest's architecture
# (KC_ARCH), with the flags of every userspace program of the project (build.mk).
kc_guest_cc() {
	local cc=gcc
	[[ $KC_ARCH != arm64 ]] || cc=aarch64-linux-gnu-gcc
	# shellcheck disable=SC2046 # the flags are words
	"$cc" $(make -s --no-print-directory -C "$KC_TOP" cflags) -D_GNU_SOURCE -O2 -static -o "$1" "$2"
}

# kc_build ID TIER LOG TARGET [MAKE-ARGS...]: run make TARGET in the per-kernel build
# folder of TIER (KC_BUILD_DIR; target module starts it afresh from the source tree) with
# the kernel's ARCH/CROSS_COMPILE/CC; output goes to LOG.
# The module of a chroot kernel is built inside the chroot (its gcc and headers paths).
kc_build() {
	local id=$1 tier=$2 log=$3 target=$4 inner=/build/$2/$1
	shift 4
	if [[ $target == module ]]; then
		kc_build_dir "$id" "$tier" || return 1
	else
		kc_build_path "$id" "$tier" || return 1
	fi
	local args=(-j"$(nproc)" "$target") kmod=0
	# the targets that build kernel modules (Makefile): against the kernel's headers
	case $target in module | kunit | bench-floor | stall) kmod=1 ;; esac
	if ((kmod)); then
		args+=(KDIR="$KC_KDIR")
		if [[ -n $KC_CC ]]; then args+=(CC="$KC_CC"); fi
	fi
	if [[ -n $KC_MAKE_ARCH ]]; then args+=(ARCH="$KC_MAKE_ARCH"); fi
	if [[ -n $KC_CROSS_COMPILE ]]; then args+=(CROSS_COMPILE="$KC_CROSS_COMPILE"); fi
	args+=("$@")
	{
		echo "# make ${args[*]}"
		if [[ -n $KC_CHROOT ]] && ((kmod)); then
			# objtool reads /proc; a private mount namespace drops that mount by itself
			# shellcheck disable=SC2016 # expanded by the inner sh
			unshare -m --propagation private -- sh -c 'mount -t proc proc "$0/proc" && exec chroot "$0" "$@"' \
				"$KC_CHROOT" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
				HOME=/root LC_ALL=C.UTF-8 make -C "$inner" "${args[@]}"
		else
			# a parent make (make check) must not leak its flags or variables into this one
			env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS -u ARCH -u CROSS_COMPILE LC_ALL=C \
				make -C "$KC_BUILD_DIR" "${args[@]}"
		fi
	} >"$log" 2>&1
}

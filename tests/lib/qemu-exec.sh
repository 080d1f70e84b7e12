#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# qemu-exec.sh ROOT DIR QEMU [ARG...]: run QEMU, a command of the chroot ROOT, with DIR
# (the cache: the kernel, the initramfs) and /tmp seen at their own paths inside, in a
# private mount namespace that goes away with it. Every step execs, so that the signals
# of the timeout around it reach QEMU itself (tests/lib/qemu.sh says why this QEMU).
[ $# -ge 3 ] || { echo "usage: $0 ROOT DIR QEMU [ARG...]" >&2; exit 2; }
root=$1 dir=$2
shift 2
mkdir -p "$root$dir" "$root/tmp" || exit 1
# shellcheck disable=SC2016 # expanded by the inner sh
exec unshare -m --propagation private -- sh -c '
	root=$1 dir=$2
	shift 2
	mount --bind "$dir" "$root$dir" && mount --bind /tmp "$root/tmp" &&
		mount -t proc proc "$root/proc" && exec chroot "$root" "$@"' sh "$root" "$dir" "$@"

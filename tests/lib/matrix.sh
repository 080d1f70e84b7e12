# shellcheck shell=bash disable=SC2034 # the variables set here are read by the sourcing scripts
# The kernel matrix (sourced by core.sh): which kernels there are, what each one is
# (series, flavour, suites, compiler, QEMU's CPU), and how deep make check goes on each.

# The default matrix: Debian's generic kernels of each series, and the flavours fleets run.
KC_ALL_IDS="x86_64-5.10 x86_64-6.1 x86_64-6.12 x86_64-7.x arm64-5.10 arm64-6.1 arm64-6.12 arm64-7.x"
KC_ALL_IDS+=" x86_64-6.12-rt arm64-6.12-rt arm64-6.1-cloud"
# Known, but only when asked for by name: x86_64-6.12-cloud (bookworm-security's build;
# bookworm-backports' 6.12.95 cloud image double-faults under TCG before any module is
# loaded, tests/lib/README.md), kept out of the default to hold CI's time.
KC_OPTIN_IDS="x86_64-6.12-cloud"
# How deep `make check` goes on each kernel: CI has 90 minutes on 2 cores, and a kernel
# takes 4 to 10 minutes there with every scenario (tests/lib/README.md). Every scenario on
# the ids of KC_WIDE_IDS: Debian 12's x86_64 kernel and the newest arm64 one. On the
# others, KC_CORE_SCENARIOS: what depends on the kernel (every probe attaches where it
# should and counts a churn exactly, against tracefs; a stall held for real, seen live,
# in the MMU notifiers' SRCU and the stacks each kernel lets a module take; the
# parameters under lockdown; a clean log). Left out there is what runs the same module code on every kernel (the
# client's load modes, backings, a module loaded before kvm, QEMU as the VMM, reclaim,
# the controls, the readers, memory): make check-full (FULL=1) runs it on every
# kernel too.
# SCENARIOS chooses for every id instead.
KC_WIDE_IDS="x86_64-6.1 arm64-7.x"
# The slowest scenarios of the wide kernels, each on one of them (FULL=1: on both), as
# ID=!GLOB: 45-qemu on x86_64-6.1 only (its QEMU boots a guest nested in the guest: 153 s
# on arm64-7.x, 78 s there), 55-teardown on arm64-7.x only (its boot of its own, where
# the guest's clock counts instructions: 26 s there, 126 s on x86_64-6.1, whose icount
# runs one vCPU thread), 60-control on arm64-7.x only (58 s on x86_64-6.1). What each
# checks is the module's and the client's (the VMM's threads by name, its downtime by
# QMP; the teardown's parts; the controls), the same on both.
KC_WIDE_ONCE="x86_64-6.1=!55-* x86_64-6.1=!60-* arm64-7.x=!45-*"
# The dkms tier's ids that only make check-full (or asking by name) runs: the emulated
# arm64 chroot costs a cold cache 10 minutes (tests/dkms/tier.sh, compatibility.sh).
KC_DKMS_FULL_ONLY="arm64-6.1"
KC_CORE_SCENARIOS="00-* 10-* 30-* 57-* 90-* 95-*"
# The VMs of 10-module-churn's load and of each of 30-metrics' (boot.sh --vms): 40, so
# that the module's pairing and unloading meet races; at core depth 20, where what is on
# trial is the kernel's side (each probe attaches and counts exactly, whatever the
# count): 20 cost the vm tier 3 minutes less of CI's 90.
KC_VMS=40
KC_CORE_VMS=20
# The debug kernels: every scenario of their own (tests/debug/scenarios), and of the
# others' 30-metrics (each end mode's handlers under KASAN and lockdep), 57-stall (the
# stall watch's timer and locks) and 40-late-modules (probes attached from a module
# notifier, kvm unloaded under them). A VM is ten times as slow there, and the debug
# boot is CI's longest part (21 to 26 minutes with all of these, December 2026), so not
# the rest: 10-module-churn's load and unload under a churn, its fprobes=1 among them,
# are 70-fault-insmod-loop's; the readers' code (62-access, 65-memory) is
# 71-fault-readers-writers' and 76-memory-percpu's; 50-reclaim's handlers are the
# pairing code of every probe; 20-load-modes, 35-backing and 55-teardown take
# 30-metrics' probe paths again; 60-control's writes are 74-fault-fuzz-controls', 95's
# and 68-lockdown's. make check-full runs them all there too.
KC_DEBUG_SCENARIOS="0* 30-* 40-* 57-* 68-* 7* 8* 9*"
# The debug kernels we build ourselves (debug-kernel/kernel.sh, for tests/debug): asked for
# by name, never by default; x86_64-debug-rt is the same with PREEMPT_RT (make
# check-debug-rt), x86_64-debug-7 the same on the newest 7.x source, whose tracepoint
# probes run preemptible (make check-debug-7).
KC_DEBUG_IDS="x86_64-debug x86_64-debug-rt x86_64-debug-7"
# Modules of the guest kernel that scenarios load themselves, with their parameters
# (fetch.sh and tests/lib/debug-kernel/kernel.sh copy them to kernels/<id>/modules/, env's
# KC_EXTRA_MODULES): brd, the RAM disk whose page cache 50-reclaim reclaims.
KC_EXTRA_WANT="brd"
# Modules the guest needs to run Debian's QEMU as a VMM (tests/lib/vmm.sh), and the VMs of
# that QEMU to boot with a virtio disk: the disk of the VMM's root, and its file system.
KC_VMM_WANT="virtio_pci virtio_blk squashfs"

# kc_ids [ID...]: the ids asked for (arguments, else $KERNELS, else all), one a line.
# Ids may be separated by spaces or commas; an unknown one exits 2.
kc_ids() {
	local list=${*:-${KERNELS:-}} ids id
	read -r -a ids <<<"${list//,/ }"
	((${#ids[@]})) || read -r -a ids <<<"$KC_ALL_IDS"
	for id in "${ids[@]}"; do
		case " $KC_ALL_IDS $KC_OPTIN_IDS $KC_DEBUG_IDS " in
		*" $id "*) printf '%s\n' "$id" ;;
		*) kc_log "error: unknown kernel id '$id' (known: $KC_ALL_IDS $KC_OPTIN_IDS $KC_DEBUG_IDS)"
			exit 2 ;; # a usage error
		esac
	done
}

# kc_is_debug ID: is ID one of the debug kernels?
kc_is_debug() { [[ " $KC_DEBUG_IDS " == *" $1 "* ]]; }

# The boots of their own that `make check` gives the "# boot: ARGS" lines of the scenarios
# (boot.sh --arg-boots, debug/boots.sh), as ID=ARGS. 63-no-debugfs's debugfs=off and
# debugfs=no-mount: each on one kernel, an x86_64 one and an arm64 one between them (a
# boot costs CI 2 to 3 minutes). 68-lockdown's: lockdown=confidentiality on the debug
# kernel (what integrity refuses, it refuses too; 95-lockdown raises every kernel of the
# matrix to integrity), integrity on the RT one. FULL=1, or SCENARIOS, boots every line
# on every kernel.
KC_CHECK_ARG_BOOTS="x86_64-6.1=debugfs=off arm64-7.x=debugfs=no-mount"
KC_CHECK_ARG_BOOTS+=" x86_64-debug=lockdown=confidentiality x86_64-debug-rt=lockdown=integrity"

# The kernels on which `make check`'s build tier also builds the module as for a kernel
# without debugfs (a full build, 20 s; the builds that must stop at compat.h's #error
# take 2 s and run on every kernel): the oldest of each architecture. FULL=1: all.
KC_CHECK_NO_DEBUGFS_BUILDS="x86_64-5.10 arm64-5.10"

# kc_no_debugfs_build_depth ID: does `make check`'s build tier build ID as without debugfs?
kc_no_debugfs_build_depth() { [[ -n ${FULL:-} || " $KC_CHECK_NO_DEBUGFS_BUILDS " == *" $1 "* ]]; }

# kc_arg_boot_depth ID ARGS: does `make check`'s depth boot ID with ARGS?
kc_arg_boot_depth() {
	[[ -n ${FULL:-} || " $KC_CHECK_ARG_BOOTS " == *" $1=$2 "* ]]
}

# kc_depth ID: the scenario globs `make check` runs on ID (pack.sh's kc_chosen), none for
# every one.
kc_depth() {
	local w once globs=()
	[[ -z ${FULL:-} ]] || return 0
	if [[ " $KC_WIDE_IDS " == *" $1 "* ]]; then
		read -r -a once <<<"$KC_WIDE_ONCE" # not a for's word list: no file name expansion
		for w in "${once[@]}"; do
			[[ ${w%%=*} != "$1" ]] || globs+=("${w#*=}")
		done
		echo "${globs[*]}"
		return 0
	fi
	if kc_is_debug "$1"; then echo "$KC_DEBUG_SCENARIOS"; else echo "$KC_CORE_SCENARIOS"; fi
}

# kc_depth_vms ID: the VMs of make check's depth on ID: KC_CORE_VMS where kc_depth
# chooses the core scenarios, else KC_VMS.
kc_depth_vms() {
	if [[ $(kc_depth "$1") == "$KC_CORE_SCENARIOS" ]]; then
		echo "$KC_CORE_VMS"
	else
		echo "$KC_VMS"
	fi
}

# kc_spec ID: what the matrix says about one kernel. An id is ARCH-SERIES[-FLAVOUR]; the
# ABI pattern matches the part of the package names between "linux-headers-" and
# "-<flavour>" (KC_FLAVOUR: rt-amd64, cloud-arm64, ..., the Debian architecture alone for
# the generic kernels); the newest one wins. KC_COMMON is the suffix of the headers that
# every flavour of an ABI shares (RT has its own). KC_QEMU_CPU is QEMU's -cpu for it.
# KC_CHECK, when set, is the sparse that C=1 must use instead of the host's.
kc_spec() {
	KC_ID=$1
	KC_CC='' KC_USE_CHROOT=0 KC_CHECK='' KC_COMMON=common
	local series=${1#*-} flavour=''
	case $KC_ID in
	x86_64-*) KC_ARCH=x86_64 KC_DEBARCH=amd64 KC_QEMU_CPU=max ;;
	arm64-*) KC_ARCH=arm64 KC_DEBARCH=arm64 KC_QEMU_CPU=max,pauth-impdef=on ;;
	*) kc_die "no spec for '$KC_ID'" ;;
	esac
	case $series in
	*-rt | *-cloud) flavour=${series##*-} series=${series%-*} ;;
	esac
	KC_FLAVOUR=${flavour:+$flavour-}$KC_DEBARCH
	case $flavour in
	rt) # RT headers do not share -common with the other flavours
		KC_COMMON=common-rt
		# x86 RT kvm wants a constant TSC ("RT requires X86_FEATURE_CONSTANT_TSC"), a bit
		# TCG filters out of -cpu max unless forced
		[[ $KC_ARCH != x86_64 ]] || KC_QEMU_CPU=max,+invtsc,x-force-features=on ;;
	esac
	case $KC_ARCH-$series in
	*-5.10) # the headers name gcc-10 (aarch64-linux-gnu-gcc-10), which bookworm lacks
		KC_SUITES="bullseye bullseye-security" KC_ABI_RE='5\.10\.0-[0-9]+' KC_CC=gcc
		[[ $KC_ARCH != arm64 ]] || KC_CC=aarch64-linux-gnu-gcc ;;
	*-6.1) KC_SUITES="bookworm bookworm-security" KC_ABI_RE='6\.1\.0-[0-9]+' ;;
	x86_64-6.12) KC_SUITES="bookworm-backports" KC_ABI_RE='6\.12\.[0-9]+\+deb12(\.[0-9]+)?'
		# bookworm-backports' cloud build double-faults under TCG (tests/lib/README.md)
		[[ $flavour != cloud ]] || KC_SUITES="bookworm-security" ;;
	arm64-6.12) KC_SUITES="bookworm-security" KC_ABI_RE='6\.12\.[0-9]+\+deb12(\.[0-9]+)?' ;;
	*-7.x) # gcc-14 and glibc 2.38+ tools: built inside a trixie chroot. Its headers use
		# __typeof_unqual__, which only sid's sparse knows (Debian's others are 0.6.4)
		KC_SUITES="trixie-backports" KC_ABI_RE='7\.[0-9]+\.[0-9]+\+deb13(\.[0-9]+)?' KC_USE_CHROOT=1
		KC_CHECK=$KC_SID_SPARSE ;;
	x86_64-debug) # x86_64-debug and x86_64-debug-rt (series debug, flavour rt): built
		# from linux-source by tests/lib/debug-kernel/kernel.sh, not downloaded
		KC_SUITES="bookworm-security bookworm-backports" KC_ABI_RE='' ;;
	x86_64-debug-7) # the same from 7.x's source, with the host's gcc; C=1 of its headers
		# wants sid's sparse, run on the host with sid's C library (fetch.sh)
		KC_SUITES="trixie-backports sid" KC_ABI_RE='' KC_CHECK=$KC_SID_SPARSE_HOST ;;
	*) kc_die "no spec for '$KC_ID'" ;;
	esac
}

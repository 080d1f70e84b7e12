# shellcheck shell=bash disable=SC2034 # the variables set here are read by the sourcing scripts
# Helpers sourced by tests/vm/*.sh and tests/build/run.sh: the kernel matrix, the cache
# layout, logging, the private apt configuration, and building the module for one kernel.
# Nothing here installs anything on the host: kernels are unpacked with dpkg -x.

KC_VM_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
KC_TOP=$(cd "$KC_VM_DIR/../.." && pwd)
# The tree whose module and client are built (a throwaway tree can be tested instead).
KVMCHURN_SRC=${KVMCHURN_SRC:-$KC_TOP}
KVMCHURN_CACHE=${KVMCHURN_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kvmchurn}
# The default matrix: Debian's generic kernels of each series, and the flavours fleets run.
KC_ALL_IDS="x86_64-5.10 x86_64-6.1 x86_64-6.12 x86_64-7.x arm64-5.10 arm64-6.1 arm64-6.12 arm64-7.x"
KC_ALL_IDS+=" x86_64-6.12-rt arm64-6.12-rt arm64-6.1-cloud"
# Known, but only when asked for by name: x86_64-6.12-cloud (bookworm-security's build;
# bookworm-backports' 6.12.95 cloud image double-faults under TCG before any module is
# loaded, tests/vm/README.md), kept out of the default to hold CI's time.
KC_OPTIN_IDS="x86_64-6.12-cloud"
# How deep `make check` goes on each kernel: CI has 90 minutes on 2 cores, and a kernel
# takes 4 to 10 minutes there with every scenario (tests/vm/README.md). Every scenario on
# the ids of KC_WIDE_IDS: Debian 12's x86_64 kernel and the newest arm64 one. On the
# others, KC_CORE_SCENARIOS: what depends on the kernel (every probe attaches where it
# should and counts a churn exactly, against tracefs; the parameters under lockdown; a
# clean log). Left out there is what runs the same module code on every kernel (the
# client's load modes, backings, a module loaded before kvm, QEMU as the VMM, reclaim,
# the controls, the readers, memory): make check-full (KVMCHURN_FULL=1) runs it on every
# kernel too.
# KVMCHURN_SCENARIOS chooses for every id instead.
KC_WIDE_IDS="x86_64-6.1 arm64-7.x"
# The dkms tier's ids that only make check-full (or asking by name) runs: the emulated
# arm64 chroot costs a cold cache 10 minutes (tests/dkms/run.sh, compatibility.sh).
KC_DKMS_FULL_ONLY="arm64-6.1"
KC_CORE_SCENARIOS="00-* 10-* 30-* 90-* 95-*"
# The debug kernels: every scenario of their own (tests/debug/scenarios) and each of the
# vm tier's that runs module code the others do not. Not 20-load-modes and 35-backing
# (the client's end modes and the guest's backings take 30-metrics' probe paths again)
# nor 60-control (its writes are 74-fault-fuzz-controls', 95's and 68-lockdown's, its
# rmmod under load 70-fault-insmod-loop's), nor 55-teardown (every traced VM's teardown
# is partitioned, in 10's and 30's churns too; 55 times it against tracefs, in a boot of
# its own): a VM is ten times as slow there.
KC_DEBUG_SCENARIOS="0* 10-* 30-* 4* 50-* 62-* 65-* 68-* 7* 8* 9*"
# The debug kernel we build ourselves (tests/debug): asked for by name, never by default.
# KVMCHURN_DEBUG_ID=x86_64-debug-rt: the same with PREEMPT_RT (make check-debug-rt).
KC_DEBUG_ID=${KVMCHURN_DEBUG_ID:-x86_64-debug}
# Modules of the guest kernel that scenarios load themselves, with their parameters
# (fetch.sh and tests/debug/kernel.sh copy them to kernels/<id>/modules/, env's
# KC_EXTRA_MODULES): brd, the RAM disk whose page cache 50-reclaim reclaims.
KC_EXTRA_WANT="brd"
# Modules the guest needs to run Debian's QEMU as a VMM (tests/vm/vmm.sh), and the VMs of
# that QEMU to boot with a virtio disk: the disk of the VMM's root, and its file system.
KC_VMM_WANT="virtio_pci virtio_blk squashfs"
# What of the source tree a module or client build needs (copied, never built in place).
KC_TREE_ITEMS="Kbuild Makefile build.mk dkms.conf module userspace tests/kunit tests/bench/floor"
KC_DEBIAN_SOURCES=/etc/apt/sources.list.d/debian.sources
KC_APT=$KVMCHURN_CACHE/apt
KC_CHROOT_DIR=$KVMCHURN_CACHE/chroot/trixie
# Where fetch.sh puts sid's sparse inside the chroot (see KC_CHECK).
KC_SID_SPARSE=/usr/local/bin/sparse-sid

kc_log() { printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
kc_die() { kc_log "error: $*"; exit 1; }

# kc_lock: one test run at a time per cache (they share the apt state and build folders).
# Scripts that a locked run starts inherit the lock.
kc_lock() {
	[[ ${KVMCHURN_LOCKED:-} == 1 ]] && return 0
	mkdir -p "$KVMCHURN_CACHE"
	exec 9>"$KVMCHURN_CACHE/.lock"
	flock -n 9 || kc_die "another kvmchurn test run holds $KVMCHURN_CACHE/.lock"
	export KVMCHURN_LOCKED=1
}

# kc_stress_start: with STRESS=N (`make check-vm STRESS=2`), N CPU hogs and a memory hog
# (stress-ng: --cpu N, and --vm 1 writing 1 GiB over and over) run beside the tier until
# it ends, however it ends: a verdict must not depend on an idle host. Scripts that a
# stressed run starts do not start more.
kc_stress_start() {
	local n=${STRESS:-0} pid
	[[ $n != 0 && -z ${KC_STRESSING:-} ]] || return 0
	[[ $n =~ ^[1-9][0-9]*$ ]] || kc_die "STRESS=$n: give the number of CPU hogs, such as STRESS=2"
	command -v stress-ng >/dev/null || kc_die "STRESS needs stress-ng: apt-get install stress-ng"
	setsid stress-ng --cpu "$n" --vm 1 --vm-bytes 1G --quiet </dev/null >/dev/null 2>&1 &
	pid=$!
	# the hogs end with this script: a watcher, since a trap would be any script's to replace
	(
		while kill -0 "$$" 2>/dev/null; do sleep 1; done
		kill -TERM -- "-$pid" 2>/dev/null
	) </dev/null >/dev/null 2>&1 &
	export KC_STRESSING=$n
	kc_log "STRESS=$n: stress-ng runs $n CPU hogs and a 1 GiB memory hog beside the tier"
}

# kc_ids [ID...]: the ids asked for (arguments, else $KERNELS, else all), one a line.
# Ids may be separated by spaces or commas.
kc_ids() {
	local list=${*:-${KERNELS:-}} ids id
	read -r -a ids <<<"${list//,/ }"
	((${#ids[@]})) || read -r -a ids <<<"$KC_ALL_IDS"
	for id in "${ids[@]}"; do
		case " $KC_ALL_IDS $KC_OPTIN_IDS $KC_DEBUG_ID " in
		*" $id "*) printf '%s\n' "$id" ;;
		*) kc_die "unknown kernel id '$id' (known: $KC_ALL_IDS $KC_OPTIN_IDS $KC_DEBUG_ID)" ;;
		esac
	done
}

# kc_depth ID: the scenario globs `make check` runs on ID (KC_WIDE_IDS), none for every one.
kc_depth() {
	[[ -z ${KVMCHURN_FULL:-} && " $KC_WIDE_IDS " != *" $1 "* ]] || return 0
	case $1 in
	x86_64-debug | x86_64-debug-rt) echo "$KC_DEBUG_SCENARIOS" ;;
	*) echo "$KC_CORE_SCENARIOS" ;;
	esac
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
		# bookworm-backports' cloud build double-faults under TCG (tests/vm/README.md)
		[[ $flavour != cloud ]] || KC_SUITES="bookworm-security" ;;
	arm64-6.12) KC_SUITES="bookworm-security" KC_ABI_RE='6\.12\.[0-9]+\+deb12(\.[0-9]+)?' ;;
	*-7.x) # gcc-14 and glibc 2.38+ tools: built inside a trixie chroot. Its headers use
		# __typeof_unqual__, which only sid's sparse knows (Debian's others are 0.6.4)
		KC_SUITES="trixie-backports" KC_ABI_RE='7\.[0-9]+\.[0-9]+\+deb13(\.[0-9]+)?' KC_USE_CHROOT=1
		KC_CHECK=$KC_SID_SPARSE ;;
	x86_64-debug) # x86_64-debug and x86_64-debug-rt (series debug, flavour rt): built
		# from linux-source by tests/debug/kernel.sh, not downloaded
		KC_SUITES="bookworm-security bookworm-backports" KC_ABI_RE='' ;;
	*) kc_die "no spec for '$KC_ID'" ;;
	esac
}

# kc_read_sources: the archive and security URIs and the keyring, from the host's own
# deb822 file, so that no mirror name is ever written into the project.
kc_read_sources() {
	[[ -r $KC_DEBIAN_SOURCES ]] || kc_die "$KC_DEBIAN_SOURCES not readable"
	local kind uri key
	KC_MIRROR='' KC_SECURITY='' KC_KEYRING=''
	while read -r kind uri key; do
		[[ $kind == security ]] && KC_SECURITY=$uri || KC_MIRROR=$uri
		KC_KEYRING=${KC_KEYRING:-$key}
	done < <(awk 'BEGIN { RS = ""; FS = "\n" }
		{
			uris = suites = key = types = ""; enabled = "yes"
			for (i = 1; i <= NF; i++) {
				if ($i ~ /^#/ || $i !~ /:/) continue
				k = tolower(substr($i, 1, index($i, ":") - 1))
				v = substr($i, index($i, ":") + 1); gsub(/^[ \t]+|[ \t]+$/, "", v)
				if (k == "uris") uris = v; else if (k == "suites") suites = v
				else if (k == "signed-by") key = v; else if (k == "types") types = v
				else if (k == "enabled") enabled = tolower(v)
			}
			if (types !~ /(^| )deb( |$)/ || enabled == "no" || uris == "") next
			split(uris, u, /[ \t]+/)
			print (suites ~ /-security/ ? "security" : "main"), u[1], key
		}' "$KC_DEBIAN_SOURCES")
	[[ -n $KC_MIRROR && -n $KC_SECURITY ]] ||
		kc_die "$KC_DEBIAN_SOURCES lacks a debian or a debian-security stanza"
	[[ -f $KC_KEYRING ]] || kc_die "Signed-By '$KC_KEYRING' is not a keyring file"
}

# kc_apt_setup: a private apt configuration under the cache (sources, lists, archives,
# status): apt-get update/download never touch the host's apt state.
kc_apt_setup() {
	kc_read_sources
	mkdir -p "$KC_APT/lists/partial" "$KC_APT/cache/archives/partial" "$KC_APT/preferences.d"
	: >>"$KC_APT/status"
	local s k=$KC_KEYRING
	{
		for s in bullseye bookworm bookworm-backports trixie-backports; do
			# arm64 kernels come from bullseye(-security), bookworm(-security) and
			# trixie-backports, busybox-static:arm64 from bookworm
			printf 'deb [arch=%s signed-by=%s] %s %s main\n' \
				"$([[ $s != bookworm-backports ]] && echo amd64,arm64 || echo amd64)" \
				"$k" "$KC_MIRROR" "$s"
		done
		printf 'deb [arch=amd64,arm64 signed-by=%s] %s bullseye-security main\n' "$k" "$KC_SECURITY"
		printf 'deb [arch=amd64,arm64 signed-by=%s] %s bookworm-security main\n' "$k" "$KC_SECURITY"
		# only sparse is taken from sid (see KC_CHECK); amd64 alone keeps the update small
		printf 'deb [arch=amd64 signed-by=%s] %s sid main\n' "$k" "$KC_MIRROR"
	} >"$KC_APT/sources.list"
	cat >"$KC_APT/apt.conf" <<EOF
Dir::Etc::sourcelist "$KC_APT/sources.list";
Dir::Etc::sourceparts "/dev/null";
Dir::Etc::preferences "$KC_APT/preferences";
Dir::Etc::preferencesparts "$KC_APT/preferences.d";
Dir::State::Lists "$KC_APT/lists";
Dir::Cache "$KC_APT/cache";
Dir::State::status "$KC_APT/status";
APT::Architectures { "amd64"; "arm64"; };
Acquire::Languages "none";
Acquire::IndexTargets::deb::DEP-11::DefaultEnabled "false";
Acquire::IndexTargets::deb::DEP-11-icons::DefaultEnabled "false";
Acquire::IndexTargets::deb::DEP-11-icons-small::DefaultEnabled "false";
// the cache may sit under /root, which the _apt user cannot enter
APT::Sandbox::User "root";
EOF
	export APT_CONFIG=$KC_APT/apt.conf
}

# kc_apt_update: refresh the indexes once per run. KC_ONLINE=1 after a clean update,
# 0 when it failed (cached kernels are then used as they are).
kc_apt_update() {
	if [[ ${KVMCHURN_APT_UPDATED:-} == 1 ]]; then
		KC_ONLINE=1
		return
	fi
	local t=$SECONDS
	rm -f "$KC_APT/targets"
	if apt-get -q update >"$KC_APT/update.log" 2>&1 &&
		! grep -qE '^(W|E): (Failed|Some index files failed)' "$KC_APT/update.log"; then
		KC_ONLINE=1
		export KVMCHURN_APT_UPDATED=1 # child scripts of this run skip it
		kc_log "package indexes refreshed ($((SECONDS - t)) s)"
	else
		KC_ONLINE=0
		kc_log "apt-get update failed (see $KC_APT/update.log): offline, only cached kernels are used"
	fi
}

# kc_index SUITES ARCHS: "package<TAB>arch<TAB>version<TAB>depends" for the kernel
# packages, busybox-static and sparse of those suites, read from the private lists.
kc_index() {
	local s a f files=()
	if [[ ! -s $KC_APT/targets ]]; then
		# one indextargets call a run: each takes seconds
		# shellcheck disable=SC2016 # $(...) is apt's template, not a shell expansion
		apt-get indextargets --format '$(CODENAME) $(ARCHITECTURE) $(FILENAME)' \
			"Created-By: Packages" >"$KC_APT/targets"
	fi
	for s in $1; do
		for a in $2; do
			while read -r f; do
				[[ -e $f ]] && files+=("$f")
			done < <(awk -v s="$s" -v a="$a" '$1 == s && $2 == a { print $3 }' "$KC_APT/targets")
		done
	done
	((${#files[@]})) || return 0
	/usr/lib/apt/apt-helper cat-file "${files[@]}" | awk '
		function out() { if (p ~ /^(linux-(headers|image|binary-unsigned|modules|kbuild|source)-|busybox-static$|sparse$)/) print p "\t" a "\t" v "\t" d; p = "" }
		/^Package: / { out(); p = $2; a = v = d = "" }
		/^Architecture: / { a = $2 }
		/^Version: / { v = $2 }
		/^Depends: / { d = substr($0, 10) }
		END { out() }'
}

# kc_deb_file PKG ARCH VERSION: the name apt-get download gives the file.
kc_deb_file() { printf '%s_%s_%s.deb' "$1" "${3//:/%3a}" "$2"; }

# kc_download DIR PKG:ARCH=VERSION...: download what is not there yet. apt-get writes
# into a folder of its own, moved in whole once it verified every file: a run killed
# mid-download (CI's time limit) must not leave a truncated .deb that later runs trust.
kc_download() {
	local dir=$1 spec pkg arch ver want=() part=$1/.partial
	shift
	mkdir -p "$dir"
	for spec in "$@"; do
		pkg=${spec%%:*} arch=${spec#*:} arch=${arch%%=*} ver=${spec#*=}
		[[ -s $dir/$(kc_deb_file "$pkg" "$arch" "$ver") ]] ||
			want+=("$([[ $arch == all ]] && echo "$pkg=$ver" || echo "$spec")")
	done
	((${#want[@]})) || return 0
	kc_log "downloading ${want[*]}"
	rm -rf "$part" && mkdir "$part" || return 1
	(cd "$part" && apt-get -q download "${want[@]}" >/dev/null) || { rm -rf "$part"; return 1; }
	mv "$part"/*.deb "$dir/" && rmdir "$part"
}

# kc_verdict_log VERDICT ID: the serial log of ID's last boot, as run.sh's output VERDICT
# names it ("    log: ..."); empty if it names none. A tier reads its boot's log so, not
# through logs/ID-latest.log, which another run of the same kernel moves meanwhile.
kc_verdict_log() {
	sed -n "s|^    log: \(.*/$2-[0-9]\{8\}-[0-9]\{6\}\.log\)\$|\1|p" "$1" | tail -n 1
}

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
		if [[ -e $KVMCHURN_SRC/$item ]]; then items+=("$item"); fi
	done
	local -a excl
	read -ra excl <<<"$(make -s --no-print-directory -C "$KVMCHURN_SRC" products)"
	tar -C "$KVMCHURN_SRC" --exclude-vcs "${excl[@]/#/--exclude=}" -cf - "${items[@]}" | tar -C "$dest" -xf -
}

# kc_guest_cc OUT SRC: SRC built into OUT, a static program for the guest's architecture
# (KC_ARCH), with the flags of every userspace program of the project (build.mk).
kc_guest_cc() {
	local cc=gcc
	[[ $KC_ARCH != arm64 ]] || cc=aarch64-linux-gnu-gcc
	# shellcheck disable=SC2046 # the flags are words
	"$cc" $(make -s --no-print-directory -C "$KC_TOP" cflags) -D_GNU_SOURCE -O2 -static -o "$1" "$2"
}

# kc_debootstrap DIR RELEASE [DEBOOTSTRAP-ARGS...]: a minbase RELEASE made afresh in DIR
# (whatever was there, a run killed half-way, removed first), from the host's mirror and
# keyring; its log is DIR.log. Returns 1 when debootstrap fails.
kc_debootstrap() {
	local d=$1 rel=$2
	shift 2
	if [[ -e $d ]]; then
		# never rm -rf through a leftover mount (a debootstrap killed half-way)
		! grep -q " $d/" /proc/mounts || kc_die "something is mounted under $d: unmount it first"
		rm -rf "$d"
	fi
	mkdir -p "$d"
	debootstrap --variant=minbase "$@" --keyring="$KC_KEYRING" "$rel" "$d" "$KC_MIRROR" >"$d.log" 2>&1 ||
		{ tail -n 20 "$d.log" >&2; return 1; }
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
	case $target in module | kunit | bench-floor) kmod=1 ;; esac
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

# kc_summary PASSED FAILED: the closing line, and the exit status to use.
kc_summary() {
	echo "$1 passed, $2 failed"
	(($2 == 0))
}

# kc_run_tier FUNC [ID...]: fetch the kernels, run FUNC ID for each in a subshell of its
# own (one failing does not stop the others; FUNC returns KC_FAIL for a verdict of FAIL),
# then print the closing line.
kc_run_tier() {
	local fn=$1 list ids id rc passed=0 failed=0
	shift
	list=$(kc_ids "$@") # not in <(...): a bad id must stop the run
	mapfile -t ids <<<"$list"
	kc_lock
	kc_stress_start
	"$KC_VM_DIR/fetch.sh" "${ids[@]}" || kc_log "some kernels could not be fetched"
	for id in "${ids[@]}"; do
		set +e
		(set -e; "$fn" "$id")
		rc=$?
		set -e
		case $rc in
		0) passed=$((passed + 1)) ;;
		"$KC_FAIL") failed=$((failed + 1)) ;;
		*)
			echo "FAIL $id: harness error (exit $rc)"
			failed=$((failed + 1))
			;;
		esac
	done
	kc_summary "$passed" "$failed"
}

# kc_vcpus_spin WHERE: whether hang-dump.py's output WHERE shows every vCPU at one
# program counter in all of at least two samples.
kc_vcpus_spin() {
	awk '/^sample [0-9]+ vCPU [0-9]+: pc / {
		if (!($4 in pc)) pc[$4] = $6; else if (pc[$4] != $6) moved = 1
		if ($2 > samples) samples = $2 }
		END { exit !(samples >= 2 && !moved) }' "$1"
}

#!/usr/bin/env bash
# debug-kernel/kernel.sh: leave the debug kernel ready as kernel id x86_64-debug, the way fetch.sh
# leaves a Debian one: $KVMCHURN_CACHE/kernels/x86_64-debug/{vmlinuz,modules/,env}.
# It is built from Debian's linux-source-6.12 (the newest of bookworm-security and
# bookworm-backports) with allnoconfig plus kernel.config beside this script, and kept
# in $KVMCHURN_CACHE/debug/<key>/, the key being a hash of the config's option lines
# (not its comments), the source version, the compiler and KC_DEBUG_RECIPE: any change
# builds afresh, the older one goes.
# With the id x86_64-debug-rt (build.sh x86_64-debug-rt): the same kernel with
# PREEMPT_RT, kernel-rt.config over that .config, kept in $KVMCHURN_CACHE/debug-rt/.
# With the id x86_64-debug-7: the same fragment on the newest 7.x source Debian has
# (linux-source-7.N of trixie-backports or sid, whichever is newer; trixie's own kernel,
# and so trixie-security's, is 6.12), where tracepoint probes run preemptible; kept in
# $KVMCHURN_CACHE/debug-7/. Host gcc 12 builds it (7.x wants gcc 8.1 or later).
# fetch.sh runs it (with the cache lock held); it can also run alone.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../core.sh
. "$here/../core.sh"

# the source package: a regular expression, the newest version of any match wins
KC_DEBUG_SOURCE_RE='linux-source-6\.12'
KC_DEBUG_SUITES="bookworm-security bookworm-backports"
# Bump when the build steps below change what they produce.
KC_DEBUG_RECIPE=1
config=$here/kernel.config
# a kernel's own lines over kernel.config's: RT's go over the .config that allnoconfig
# made (olddefconfig), 7.x's into allnoconfig's input
over='' rt=0
kc_ids_only "usage: tests/lib/debug-kernel/kernel.sh [x86_64-debug|x86_64-debug-rt|x86_64-debug-7]" "$@"
KC_DEBUG_ID=${1:-x86_64-debug}
case $KC_DEBUG_ID in
x86_64-debug) ;;
x86_64-debug-rt) over=$here/kernel-rt.config rt=1 ;;
x86_64-debug-7) over=$here/kernel-7.config KC_DEBUG_SOURCE_RE='linux-source-7\.[0-9]+'
	KC_DEBUG_SUITES="trixie-backports sid" ;;
*) # shellcheck disable=SC2153 # KC_DEBUG_IDS: matrix.sh's
	kc_log "error: $KC_DEBUG_ID: the debug kernels are $KC_DEBUG_IDS"; exit 2 ;;
esac
kdir=$KVMCHURN_CACHE/kernels/$KC_DEBUG_ID
builds=$KVMCHURN_CACHE/${KC_DEBUG_ID#x86_64-} # debug/, debug-rt/, debug-7/

# fragment: the option lines the final .config must hold: kernel.config's, and those of
# the kernel's own file (kernel-rt.config, kernel-7.config) in place of those of the same
# options; its "# CONFIG_X is gone ..." lines drop X (an option that kernel lacks).
fragment() {
	# shellcheck disable=SC2016 # awk's $0
	awk 'function opt(s) { sub(/^# /, "", s); sub(/[= ].*/, "", s); return s }
		ARGC == 3 && FILENAME == ARGV[1] && /^# CONFIG_[A-Z0-9_]+ is gone/ { over[opt($0)] = 1; next }
		!/^(CONFIG_|# CONFIG_.* is not set$)/ { next }
		ARGC == 3 && FILENAME == ARGV[1] { over[opt($0)] = 1; print; next }
		!(opt($0) in over)' ${over:+"$over"} "$config"
}

# check_config DOTCONFIG: every line of the fragment holds in the final .config.
check_config() {
	local line opt bad=()
	while IFS= read -r line; do
		case $line in
		CONFIG_*=*) grep -qxF -- "$line" "$1" || bad+=("$line") ;;
		"# CONFIG_"*" is not set")
			opt=${line#\# } opt=${opt%% *}
			! grep -qE "^$opt=[ym]" "$1" || bad+=("$opt off") ;;
		esac
	done < <(fragment)
	((${#bad[@]} == 0)) && return 0
	kc_log "$KC_DEBUG_ID: the kernel's Kconfig did not take: ${bad[*]}"
	return 1
}

# build VERSION DIR: unpack the source into DIR/src, configure and build it.
build() {
	local ver=$1 dir=$2 debs=$KVMCHURN_CACHE/debs/$KC_DEBUG_ID tmp t=$SECONDS
	local log=$KVMCHURN_CACHE/logs/$KC_DEBUG_ID-kernel.log
	rm -rf "$dir"
	mkdir -p "$dir/src" "$KVMCHURN_CACHE/logs"
	kc_download "$debs" "$KC_DEBUG_SOURCE:all=$ver"
	tmp=$(mktemp -d "$KVMCHURN_CACHE/tmp.XXXXXX")
	dpkg -x "$debs/$(kc_deb_file "$KC_DEBUG_SOURCE" all "$ver")" "$tmp"
	tar -xJf "$tmp/usr/src/$KC_DEBUG_SOURCE.tar.xz" -C "$dir/src" --strip-components=1
	rm -rf "$tmp" "$debs"
	kc_log "$KC_DEBUG_ID: building $KC_DEBUG_SOURCE $ver (6 to 7 min on 2 idle cores; log: $log)"
	local mk=(env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS -u ARCH -u CROSS_COMPILE LC_ALL=C
		nice make -C "$dir/src" ARCH=x86_64)
	# RT: kernel-rt.config over the .config that allnoconfig made, then olddefconfig, which
	# keeps what that .config says of every option (EXPERT, which PREEMPT_RT needs, would
	# otherwise turn off what allnoconfig leaves on without it). 7.x: allnoconfig of the
	# fragment, kernel-7.config's lines in it.
	local all=$config
	if [[ -n $over ]] && ((!rt)); then
		all=$dir/allnoconfig.config
		fragment >"$all"
	fi
	{
		"${mk[@]}" KCONFIG_ALLCONFIG="$all" allnoconfig &&
			{ ((!rt)) || { cat "$over" >>"$dir/src/.config" && "${mk[@]}" olddefconfig; }; } &&
			check_config "$dir/src/.config" &&
			"${mk[@]}" -j"$(nproc)" bzImage modules &&
			"${mk[@]}" INSTALL_MOD_PATH="$dir/stage" modules_install
	} >"$log" 2>&1 || {
		tail -n 30 "$log" >&2
		kc_die "$KC_DEBUG_ID: kernel build failed (log: $log)"
	}
	"${mk[@]}" -s kernelrelease >"$dir/release"
	touch "$dir/.done"
	kc_log "$KC_DEBUG_ID: cold build took $((SECONDS - t)) s ($(du -sh "$dir" | cut -f1))"
}

# signed MODULE: does MODULE end with the kernel's signature marker?
signed() { tail -c 28 "$1" | grep -qx '~Module signature appended~'; }

# staged STAGE NAME: NAME.ko of the build's installed modules (STAGE: its lib/modules/KREL)
# copied into kernels/ID/modules/, after checking that it was built and is signed
# (MODULE_SIG_ALL, so that a boot with lockdown=integrity loads it too).
staged() {
	local f
	f=$(find "$1" -name "$2.ko" | head -n1)
	[[ -n $f ]] || kc_die "$KC_DEBUG_ID: $2.ko not built"
	signed "$f" || kc_die "$KC_DEBUG_ID: $2.ko is not signed (CONFIG_MODULE_SIG_ALL)"
	cp "$f" "$kdir/modules/"
}

# install_kernel VERSION DIR: kernels/x86_64-debug/ from the build in DIR.
install_kernel() {
	local ver=$1 dir=$2 krel m modules='' extra=''
	krel=$(cat "$dir/release")
	rm -rf "$kdir"
	mkdir -p "$kdir/modules"
	cp "$dir/src/arch/x86/boot/bzImage" "$kdir/vmlinuz"
	# KVM's, loaded at boot; then those the scenarios that need them load, with their
	# parameters
	for m in irqbypass kvm kvm-amd; do
		staged "$dir/stage/lib/modules/$krel" "$m"
		modules+="$m.ko "
	done
	for m in $KC_EXTRA_WANT; do
		staged "$dir/stage/lib/modules/$krel" "$m"
		extra+="$m.ko "
	done
	# the key the build made and signed its modules with (certs/signing_key.pem: the
	# private key and its certificate, PEM) and the certificate the kernel trusts (DER):
	# the tests sign kvmchurn.ko with them (make module SIGN_KEY= SIGN_CERT=)
	cp "$dir/src/certs/signing_key.pem" "$dir/src/certs/signing_key.x509" "$kdir/"
	# four vCPUs, two online (maxcpus=2), a TCG thread each (tests/lib/qemu.sh): per-CPU
	# data spans four possible CPUs, of which two run the probes at the same time
	# (RT: KVM wants a constant TSC, which TCG filters out unless forced; QEMU warns)
	local cpu=max
	((!rt)) || cpu=max,+invtsc,x-force-features=on
	# 7.x has no X86_5LEVEL to leave off (6.12's allnoconfig does): on -cpu max, which has
	# LA57, it pages with 5 levels, and under TCG KASAN then reports a wild access in the
	# first interrupt (handle_edge_irq, during identify_cpu) and panics. 4 levels, as 6.12.
	local paging=''
	[[ $KC_DEBUG_ID != x86_64-debug-7 ]] || paging=no5lvl
	local qemu=(qemu-system-x86_64 -accel 'tcg,thread=multi' -cpu "$cpu" -smp 4 -m 2G
		-no-reboot -nodefaults -display none -monitor none -serial stdio)
	{
		printf '# written by tests/lib/debug-kernel/kernel.sh\n'
		printf 'KC_ID=%q\nKC_ARCH=x86_64\nKC_KREL=%q\nKC_PKGVER=%q\nKC_SUITES=%q\n' \
			"$KC_DEBUG_ID" "$krel" "$ver" "$KC_DEBUG_SUITES"
		printf 'KC_KDIR=%q\nKC_CHROOT=\nKC_CC=\nKC_MAKE_ARCH=\nKC_CROSS_COMPILE=\nKC_CHROOT_PATHS=\n' "$dir/src"
		printf 'KC_VMLINUZ=%q\nKC_MODULES=%q\nKC_EXTRA_MODULES=%q\nKC_BUSYBOX=%q\n' \
			"$kdir/vmlinuz" "${modules% }" "${extra% }" "$KVMCHURN_CACHE/busybox/amd64/busybox"
		printf 'KC_QEMU=(%s)\n' "${qemu[*]@Q}"
		# any WARN panics, any KASAN report panics: the log then fails the run.
		# allnoconfig leaves KUNIT_DEFAULT_ENABLED off: kunit.enable=1 runs the suites.
		printf 'KC_APPEND=%q\n' "console=ttyS0 panic=-1 oops=panic panic_on_warn=1 kasan.fault=panic maxcpus=2 kunit.enable=1${paging:+ $paging}"
		printf 'KC_BUILD_KEY=%q\n' "${dir##*/}"
		printf 'KC_SIGN_KEY=%q\nKC_SIGN_CERT=%q\n' "$kdir/signing_key.pem" "$kdir/signing_key.x509"
	} >"$kdir/env.tmp"
	mv "$kdir/env.tmp" "$kdir/env"
}

main() {
	local ver key dir old pick
	kc_lock
	kc_apt_setup
	kc_apt_update
	if [[ $KC_ONLINE == 0 ]]; then
		kc_load_env "$KC_DEBUG_ID" || kc_die "$KC_DEBUG_ID: offline and not cached"
		kc_log "$KC_DEBUG_ID: offline, using the cached $KC_KREL ($KC_PKGVER)"
		return 0
	fi
	# "package version" of the newest match
	pick=$(kc_index "$KC_DEBUG_SUITES" amd64 | RE="^$KC_DEBUG_SOURCE_RE\$" awk -F'\t' \
		'$1 ~ ENVIRON["RE"] { print $3 "\t" $1 }' | sort -V | tail -n1)
	[[ -n $pick ]] || kc_die "no $KC_DEBUG_SOURCE_RE in $KC_DEBUG_SUITES"
	ver=${pick%%$'\t'*} KC_DEBUG_SOURCE=${pick#*$'\t'}
	key=$( {
		fragment
		echo "$KC_DEBUG_RECIPE $ver"
		gcc --version | head -n1
	} | sha256sum | cut -c1-16)
	dir=$builds/$key
	if [[ ! -f $dir/.done ]]; then
		build "$ver" "$dir"
	fi
	for old in "$builds"/*/; do
		old=${old%/}
		[[ $old == "$dir" ]] || { kc_log "$KC_DEBUG_ID: removing the older build ${old##*/}"; rm -rf "$old"; }
	done
	old=$(kc_load_env "$KC_DEBUG_ID" 2>/dev/null && echo "${KC_BUILD_KEY:-}") || old=''
	# always: the boot line and QEMU's options below may have changed
	install_kernel "$ver" "$dir"
	if [[ $old == "$key" ]]; then
		kc_log "$KC_DEBUG_ID: $(cat "$dir/release") ($KC_DEBUG_SOURCE $ver) cached"
	else
		kc_log "$KC_DEBUG_ID: $(cat "$dir/release") ready"
	fi
}

main "$@"

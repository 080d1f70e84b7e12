# shellcheck shell=bash disable=SC2034 # KC_QEMU_SAYS is read by the sourcing scripts
# Helpers sourced by tests/lib/boot.sh and tests/qemu/tier.sh: the QEMU that boots a guest.
# x86_64 guests run on two vCPUs, each its own TCG thread (MTTCG), so that the module's
# per-CPU data and pairing table are used by two CPUs at the same time. QEMU before 8.1
# hangs such a guest in KVM churn: creating and destroying VMs flips KVM's static keys
# (preempt_notifier_key), text_poke_bp() patches the text with an int3 while the other
# vCPU runs it, and 7.2 keeps executing stale translations of it (fixed by QEMU commit
# deba78709ae8, in 8.1). Bookworm has 7.2, so x86 guests boot Debian trixie's QEMU, from
# a chroot kept in the cache (the one the qemu tier runs in); where that chroot cannot
# be made, the host's QEMU with one TCG thread for both vCPUs (thread=single), which
# never hung. arm64 guests boot the host's QEMU, whose MTTCG has no such bug there.
# 10.0 still runs a stale int3 now and then (tests/lib/README.md): scenarios that flip
# the keys with every VM hold one VM (guest/kvmhold.c).
# shellcheck source-path=SCRIPTDIR source=chroot.sh
. "$KC_LIB/chroot.sh"

KC_QEMU_ROOT=$KVMCHURN_CACHE/qemu/chroot/trixie
KC_QEMU_PKGS="qemu-system-x86 qemu-utils socat"
# The first QEMU whose x86 MTTCG boots the guests (see above).
KC_QEMU_X86_MTTCG=8.1

# kc_qemu_version CMD...: the version QEMU (run as CMD) reports, such as 7.2.19.
kc_qemu_version() { "$@" --version 2>/dev/null | sed -n '1s/.*version \([0-9.]*\).*/\1/p'; }

# kc_qemu_older VERSION THAN: is VERSION older than THAN?
kc_qemu_older() { [[ $1 != "$2" ]] && printf '%s\n%s\n' "$1" "$2" | sort -V -C; }

# kc_qemu_chroot ensure|refresh: leave the trixie chroot with QEMU ready, made once; with
# refresh (the qemu tier, every run), its packages are brought up to date with apt.
# Returns 1, the log in $KC_QEMU_ROOT.log, when it cannot be made.
kc_qemu_chroot() {
	local d=$KC_QEMU_ROOT t=$SECONDS
	[[ ! -f $d/.kvmchurn-ok || $1 == refresh ]] || return 0
	[[ -n ${KC_MIRROR:-} ]] || kc_read_sources
	if [[ ! -f $d/.kvmchurn-ok ]]; then
		kc_log "qemu: creating the trixie chroot in $d (debootstrap and QEMU, a few minutes)"
		kc_debootstrap "$d" trixie || return 1
	fi
	kc_chroot_apt_config "$d" trixie
	kc_chroot_exec "$d" sh -c "apt-get -q update && apt-get -q -y install $KC_QEMU_PKGS && apt-get clean" \
		>>"$d.log" 2>&1 || { tail -n 20 "$d.log" >&2; return 1; }
	[[ -f $d/.kvmchurn-ok ]] || { touch "$d/.kvmchurn-ok"; kc_log "qemu: trixie chroot ready ($((SECONDS - t)) s)"; }
}

# kc_qemu_argv ARRAY: turn ARRAY, a kernel's KC_QEMU, into the command that boots it
# (x86: trixie's QEMU through qemu-exec.sh, else the host's, with thread=single if it
# is older than 8.1); KC_QEMU_SAYS names the QEMU and its threads, for the log.
kc_qemu_argv() {
	local -n kc_qv=$1 # a name no caller uses
	local ver
	# x86 with one TCG thread too (-icount): 7.2's icount hangs 6.1.0-57's SMP bring-up
	if [[ ${kc_qv[0]} != qemu-system-x86_64 ]]; then
		KC_QEMU_SAYS="QEMU $(kc_qemu_version "${kc_qv[0]}") (host)"
		return 0
	fi
	if kc_qemu_chroot ensure && ver=$(kc_qemu_version kc_chroot_exec "$KC_QEMU_ROOT" "${kc_qv[0]}") &&
		! kc_qemu_older "$ver" "$KC_QEMU_X86_MTTCG"; then
		kc_qv=("$KC_LIB/qemu-exec.sh" "$KC_QEMU_ROOT" "$KVMCHURN_CACHE" "${kc_qv[@]}")
		KC_QEMU_SAYS="QEMU $ver (trixie chroot)"
		return 0
	fi
	ver=$(kc_qemu_version "${kc_qv[0]}")
	KC_QEMU_SAYS="QEMU $ver (host)"
	if kc_qemu_older "$ver" "$KC_QEMU_X86_MTTCG"; then
		kc_qv=("${kc_qv[@]/#tcg,thread=multi/tcg,thread=single}")
		KC_QEMU_SAYS+=", one TCG thread: no trixie chroot (log: $KC_QEMU_ROOT.log)"
	fi
}

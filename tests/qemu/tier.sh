#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# tier.sh: the qemu tier (make check-qemu), `kvmchurn downtime` against live QEMUs.
# QEMU 10 comes from Debian trixie, installed with apt into a trixie chroot kept in the
# cache (the host's bookworm has 7.2, which predates the downtime events); the test runs
# in a throwaway overlay of it (inside.sh): two TCG QEMUs migrate over 127.0.0.1 while
# `kvmchurn downtime --follow` reads the source's log, the events switched on over QMP.
# Then, on the host, `--qmp --enable` against the host's own QEMU 7.2 must say that it
# has no such events. Each part is skipped, with the reason, where its QEMU cannot be had.
# Knobs: KVMCHURN_CACHE.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=../lib/core.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/core.sh"
# shellcheck source-path=SCRIPTDIR source=../lib/qemu.sh
. "$KC_TOP/tests/lib/qemu.sh"

# kc_qemu_old: --qmp --enable against the host's QEMU (7.2 on bookworm) must fail
# with the message that it has no downtime events.
kc_qemu_old() {
	local tmp qemu=/usr/bin/qemu-system-x86_64 ver pid out rc=0 i
	if [[ ! -x $qemu ]]; then
		echo "SKIP qemu-host: no $qemu on the host"
		return 0
	fi
	ver=$(kc_qemu_version "$qemu")
	if ! kc_qemu_older "$ver" 8.2; then
		echo "SKIP qemu-host: the host's QEMU is $ver, which has the events (only an older one tests the refusal)"
		return 0
	fi
	tmp=$(mktemp -d)
	"$qemu" -accel tcg -machine pc -m 64 -nographic -nodefaults -display none \
		-qmp "unix:$tmp/qmp,server=on,wait=off" >"$tmp/qemu.out" 2>&1 &
	pid=$!
	for ((i = 0; i < 50; i++)); do [[ -S $tmp/qmp ]] && break; sleep 0.1; done
	out=$("$KC_QEMU_CLIENT" downtime --qmp "$tmp/qmp" --enable 2>&1) || rc=$?
	kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null || true
	rm -rf "$tmp"
	if ((rc == 2)) && [[ $out == *"has no vmstate_downtime_* trace events: they came with QEMU 8.2"* ]]; then
		echo "PASS qemu-host: QEMU $ver: --qmp --enable says it has no downtime events (exit 2)"
	else
		echo "    $out"
		echo "FAIL qemu-host: QEMU $ver: --qmp --enable gave exit $rc"
		return 1
	fi
}

# kc_qemu_live WORK: the migration in a throwaway overlay of the trixie chroot (inside.sh),
# WORK/bind as /kvmchurn; its files kept in out/qemu-live.
kc_qemu_live() {
	local work=$1 log=$KVMCHURN_CACHE/logs/qemu-live.log t0=$SECONDS rc=0
	kc_read_sources
	if ! (kc_qemu_chroot refresh); then
		echo "SKIP qemu-live: no trixie chroot with QEMU 10 could be made (log: $KC_QEMU_ROOT.log)"
		return 0
	fi
	kc_overlay_exec "$KC_QEMU_ROOT" "$work/ovl" "$work/bind" bash /kvmchurn/inside.sh >"$log" 2>&1 || rc=$?
	# the logs of the migration, for a look afterwards
	mkdir -p "$KVMCHURN_CACHE/out/qemu-live"
	cp "$work"/bind/out/* "$KVMCHURN_CACHE/out/qemu-live/" 2>/dev/null || true
	kc_tap_verdict "qemu-live: $(sed -n 's/^# qemu //p' "$log" | head -n1)" "$log" "$rc" $((SECONDS - t0))
}

main() {
	local work=$KVMCHURN_CACHE/qemu/work passed=0 failed=0
	kc_lock
	mkdir -p "$KVMCHURN_CACHE/logs" "$KVMCHURN_CACHE/qemu"
	rm -rf "$work"
	mkdir -p "$work/bind"
	# the client, built for the host: it runs in the (newer) chroot as well
	env -u MAKEFLAGS -u MAKELEVEL make -s -C "$KC_TOP" client >/dev/null
	cp "$KC_TOP/userspace/kvmchurn" "$KC_TOP/tests/qemu/inside.sh" "$KC_LIB/tap.sh" "$work/bind/"
	KC_QEMU_CLIENT=$work/bind/kvmchurn
	kc_count kc_qemu_old
	kc_count kc_qemu_live "$work"
	rm -rf "$work"
	kc_summary "$passed" "$failed"
}

main "$@"

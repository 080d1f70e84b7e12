#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# run.sh [ID]: make demo. kvmchurn on one kernel of the matrix (default x86_64-6.1;
# KERNEL= or an argument chooses) without touching this host: the vm tier fetches the
# kernel, builds the module and the client, boots the kernel under QEMU with nested KVM
# and runs scenarios/10-demo.sh in it, whose lines this prints as they come: the load's
# progress, its summary, `kvmchurn show`, `summary` and `check`; last, where the
# timeline of its VMs that `kvmchurn plot` drew in the guest is (an SVG, for a browser). Nothing is installed or
# loaded on the host; downloads go to $KVMCHURN_CACHE as for make check.
# Exit status: 0; 1 when the demo ran and something in it failed; 2 when something it
# needs is missing here.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=../lib/core.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/core.sh"

id=${1:-${KERNEL:-x86_64-6.1}}
id=$(kc_ids "$id")
[[ $id != *$'\n'* ]] || kc_die "make demo boots one kernel: KERNEL=ID"
# kc_ids takes the debug kernel too, which only make check-debug builds
! kc_is_debug "$id" || kc_die "make demo boots the kernels of the matrix, not $id (make check-debug builds and boots it)"

# kc_demo_needs: the commands the vm tier runs on this host for $id, with their
# packages; says what is missing and exits 2
kc_demo_needs() {
	local want=(make:make gcc:gcc cpio:cpio gzip:gzip xz:xz-utils zstd:zstd python3:python3
		dpkg:dpkg apt-get:apt flock:util-linux timeout:coreutils)
	case $id in
	# QEMU 10 from a trixie chroot that debootstrap makes (as root), else the host's
	x86_64-*) want+=(qemu-system-x86_64:qemu-system-x86) ;;
	arm64-*) want+=(qemu-system-aarch64:qemu-system-arm aarch64-linux-gnu-gcc:gcc-aarch64-linux-gnu) ;;
	esac
	local w missing=() pkgs=()
	for w in "${want[@]}"; do
		command -v "${w%%:*}" >/dev/null || { missing+=("${w%%:*}") pkgs+=("${w#*:}"); }
	done
	[[ $id != arm64-* || -e /usr/aarch64-linux-gnu/lib/libc.a ]] ||
		{ missing+=("arm64's static libc") pkgs+=(libc6-dev-arm64-cross); }
	[[ -e /usr/lib/x86_64-linux-gnu/libc.a || -e /usr/lib/aarch64-linux-gnu/libc.a ]] ||
		{ missing+=("the static libc") pkgs+=(libc6-dev); }
	((${#missing[@]})) || return 0
	echo "make demo: missing here: ${missing[*]}." >&2
	echo "Install them as root: apt-get install ${pkgs[*]} (or tests/install-deps.sh, which installs all that make check needs)" >&2
	exit 2
}
kc_demo_needs

t0=$SECONDS
log=$KVMCHURN_CACHE/logs/$id-latest.log
mkdir -p "$KVMCHURN_CACHE/logs"
rm -f "$log" "$KVMCHURN_CACHE/out/demo/$id/timeline.svg"*
verdict=$(mktemp)
trap 'rm -f "$verdict"' EXIT
# The core's boot engine: fetch, build, boot; a hung or failed boot ends with its reason
# (--silence: the demo's VMs take seconds, not minutes). Not a test: no verdict file.
"$KC_LIB/boot.sh" --scenarios "$KC_TOP/tests/demo/scenarios" --silence 300 --timeout 900 \
	--out "$KVMCHURN_CACHE/out/demo" --no-verdict "$id" >"$verdict" &
run=$!
# the guest's lines for the terminal, while they come: the serial log from the start of
# the boot (boot.sh links it once QEMU starts) until the run ends
until [[ -e $log ]] || ! kill -0 "$run" 2>/dev/null; do sleep 1; done
if [[ -e $log ]]; then
	tail --pid="$run" -n +1 -F "$log" 2>/dev/null | tr -d '\r' |
		awk '/^demo\| / { print substr($0, 7); fflush() } /^not ok / { print "demo: " $0; fflush() }'
fi
rc=0
wait "$run" || rc=$?
svg=$KVMCHURN_CACHE/out/demo/$id/timeline.svg
if ((rc == 0)); then
	if [[ -s $svg.gz ]] && gzip -dc "$svg.gz" >"$svg"; then
		echo "demo: the timeline of its VMs, as kvmchurn plot drew it in the guest: $svg"
	else
		echo "make demo: the guest handed back no timeline ($svg.gz)" >&2
		rc=1
	fi
fi
if ((rc == 0)); then
	echo "demo: done in $((SECONDS - t0)) s on $id ($(sed -n 's/^PASS [^ ]* \([^ :]*\).*/\1/p' "$verdict")); the guest's whole log: $(readlink -f "$log")"
	exit 0
fi
grep -v ' passed, ' "$verdict" >&2 || true
echo "make demo: the demo did not run through (above: why; the serial log: $(readlink -f "$log" 2>/dev/null || echo none))" >&2
exit 1

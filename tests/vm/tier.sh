#!/usr/bin/env bash
# tier.sh [ID...]: the vm tier (make check-vm). The module in each real Debian kernel of
# the matrix, booted under QEMU with nested KVM (the core's boot engine, lib/boot.sh):
# the scenarios of tests/scenarios, every one on some kernels and the kernel-dependent
# ones on the others (lib/matrix.sh's depth; FULL=1: every one everywhere), or those
# SCENARIOS names ('30-* 60-*'); a scenario with "# boot: ARGS" lines (63-no-debugfs:
# debugfs=off, debugfs=no-mount) in a boot of its own for each. Ids: arguments, else
# KERNELS, else the matrix.
set -euo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
args=(--scenarios "$top/tests/scenarios" --arg-boots)
if [[ -n ${SCENARIOS:-} ]]; then args+=(--only "$SCENARIOS"); else args+=(--depth); fi
exec "$top/tests/lib/boot.sh" "${args[@]}" "$@"

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# tier.sh [OPTION...]: the unit tier (make check-unit, after make has built the client
# and the test programs). Runs each suite with the options it is given (tests/unit/lib.sh's
# unit_options: --client, --version, --fakekvm, --tests, --no-promtool, ...), every suite
# even after one failed. Each suite's TAP goes through, then its verdict line
# (kc_tap_verdict: "PASS unit NAME: N ok, 0 not ok"), and last "N passed, N failed";
# exit 1 if any failed. Its logs are kept, and named, only when one failed. It writes
# nothing to the cache: the Debian package's build runs it.
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../lib/core.sh
. "$here/../lib/core.sh"
# shellcheck source=lib.sh
. "$here/lib.sh"
# a bad option, or no client, stops the tier before any suite runs (exit 2)
unit_options "$@"
unit_client >/dev/null
logs=$(mktemp -d) || exit 2
passed=0 failed=0
trap '((failed)) || rm -rf "$logs"' EXIT

# suite NAME CMD...: CMD's TAP, then its verdict.
suite() {
	local name=$1 t0=$SECONDS rc
	shift
	"$@" | tee "$logs/$name.log"
	rc=${PIPESTATUS[0]}
	kc_tap_verdict "unit $name" "$logs/$name.log" "$rc" $((SECONDS - t0))
}

kc_count suite abi "$here/abi_test"
for s in packaging table harness bench downtime run; do
	kc_count suite "$s" "$here/$s.sh" "$@"
done
kc_summary "$passed" "$failed"

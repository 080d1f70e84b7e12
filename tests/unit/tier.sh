#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# tier.sh [OPTION...]: the unit tier (make check-unit, after make has built the client
# and the test programs). Runs each suite with the options it is given (tests/unit/lib.sh's
# unit_options: --client, --version, --fakekvm, --tests, --no-promtool, ...), every suite
# even after one failed; exit 1 if any failed. Each suite prints its own TAP and a line
# "NAME: N passed, N failed".
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
rc=0
"$here/abi_test" || rc=1
for suite in packaging table harness bench downtime run; do
	"$here/$suite.sh" "$@" || rc=1
done
exit "$rc"

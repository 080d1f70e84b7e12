#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# tier.sh [--client PATH] [--timeout S]: the prometheus tier (make check-prometheus).
# kvmchurn's textfile as the real node_exporter and Prometheus read it: Debian 12's prometheus-node-exporter (1.5) and
# prometheus (2.42), started here on 127.0.0.1 on free ports, their data in a temporary
# folder, stopped at exit: no service of the host is used, started or left.
#   - a node_exporter a host: each capture of tests/fixtures (and hand/known), exported
#     with `kvmchurn -d CAPTURE export -o DIR/kvmchurn.prom` into a folder that its
#     textfile collector alone reads (node_textfile_scrape_error 0); one more for a host
#     without the module, whose textfile kvmchurn-export.service's command wrote
#     (kvmchurn_up 0)
#   - Prometheus scrapes them every second: for each capture, histogram_quantile(0.5 |
#     0.9 | 0.99) lies in the power-of-two bucket of `kvmchurn summary`'s p50/p90/p99 for
#     every metric with data, and _count and _sum are the summary's count and sum; the
#     buckets summed over the hosts (sum by (le, metric)) are those of `kvmchurn merge` of
#     their snapshots
#   - examples/prometheus: promtool check rules and test rules; the rules loaded by this
#     Prometheus, evaluated and healthy, KvmchurnNotLoaded pending for the host without
#     the module, and KvmchurnExportStale's selector matching each host's textfile
# Every wait is for an event (a port listening, the first scrape of every target, the
# rules' first evaluation), bounded by --timeout seconds (default 60); the numbers are
# asked at the time of that first scrape (prom.py: PROM_AT). One TAP line a test, the
# verdict, "N passed, N failed"; the log, with the servers' own, in
# $KVMCHURN_CACHE/logs/prometheus*.log. --client: default userspace/kvmchurn, which make
# check-prometheus builds. Knob: KVMCHURN_CACHE. The servers: servers.sh; the tests: checks.sh.
set -uo pipefail
export LC_ALL=C
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../lib/core.sh
. "$here/../lib/core.sh"
# shellcheck source-path=SCRIPTDIR source=../lib/tap.sh
. "$KC_LIB/tap.sh"
# shellcheck source-path=SCRIPTDIR source=servers.sh
. "$here/servers.sh"
# shellcheck source-path=SCRIPTDIR source=checks.sh
. "$here/checks.sh"
top=$KC_TOP client=$KC_TOP/userspace/kvmchurn limit=60
while (($#)); do
	case $1 in
	--client) (($# >= 2)) || { echo "tier.sh: --client needs a path" >&2; exit 2; }; client=$2 ;;
	--timeout) [[ ${2:-} =~ ^[1-9][0-9]*$ ]] || { echo "tier.sh: --timeout needs seconds" >&2; exit 2; }; limit=$2 ;;
	--help) echo "usage: tests/prometheus/tier.sh [--client PATH] [--timeout SECONDS]"; exit 0 ;;
	*) echo "tier.sh: unknown argument $1 (--help)" >&2; exit 2 ;;
	esac
	shift 2
done
logs=$KVMCHURN_CACHE/logs examples=$KC_TOP/examples/prometheus fixtures=$KC_TOP/tests/fixtures
# python3 itself, not a wrapper of it (a pyenv shim costs more than the program)
python=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null) || python=
prompy() { "$python" "$here/prom.py" "$@"; }

# tier: the steps of checks.sh and servers.sh in order; the hosts' lists are its locals,
# which the steps share.
tier() {
	local hosts=() dirs=() ports=() targets=() free=() prometheus node_exporter promtool prom
	tmp=$(mktemp -d)
	trap cleanup EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
	prometheus=$(command -v prometheus) node_exporter=$(command -v prometheus-node-exporter || command -v node_exporter)
	promtool=$(command -v promtool)
	tier_needs "$prometheus" "$node_exporter" "$promtool"

	test_promtool "$promtool"
	# the hosts: a textfile folder and a node_exporter each, on a port each
	export_hosts
	export_no_module
	mapfile -t free < <(prompy ports $((${#hosts[@]} + 2)))
	((${#free[@]} == ${#hosts[@]} + 2)) || bail_out "free ports on 127.0.0.1"
	serve_nodes "$node_exporter" "${free[@]}"
	test_textfiles
	# Prometheus, scraping them; then each capture, the fleet, the rules
	serve_prometheus "$prometheus" "${free[${#free[@]} - 1]}"
	prom=http://127.0.0.1:$port
	wait_scraped "$prom"
	test_quantiles "$prom"
	test_fleet "$prom"
	test_rules "$prom"
	tap_done
}

main() {
	trap 'exit 130' INT
	trap 'exit 143' TERM
	kc_tier_logged prometheus tier
}

main "$@"

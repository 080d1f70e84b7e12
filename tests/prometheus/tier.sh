#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# tier.sh [--client PATH] [--timeout S]: the prometheus tier (make check-prometheus). kvmchurn's textfile as the real
# node_exporter and Prometheus read it: Debian 12's prometheus-node-exporter (1.5) and
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
# rules' first evaluation), bounded by --timeout seconds (default 60); the
# numbers are asked at the time of that first scrape (prom.py: PROM_AT). One TAP line a test
# (tests/lib/tap.sh), the verdict, then "N passed, N failed"; the log, with the servers'
# own, in $KVMCHURN_CACHE/logs/prometheus*.log.
# --client: default userspace/kvmchurn, which make check-prometheus builds. Knob:
# KVMCHURN_CACHE.
set -uo pipefail
export LC_ALL=C
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)
# shellcheck source-path=SCRIPTDIR source=../lib/tap.sh
. "$top/tests/lib/tap.sh"
client=$top/userspace/kvmchurn
limit=60
while (($#)); do
	case $1 in
	--client) (($# >= 2)) || { echo "tier.sh: --client needs a path" >&2; exit 2; }; client=$2 ;;
	--timeout) [[ ${2:-} =~ ^[1-9][0-9]*$ ]] || { echo "tier.sh: --timeout needs seconds" >&2; exit 2; }; limit=$2 ;;
	--help) echo "usage: tests/prometheus/tier.sh [--client PATH] [--timeout SECONDS]"; exit 0 ;;
	*) echo "tier.sh: unknown argument $1 (--help)" >&2; exit 2 ;;
	esac
	shift 2
done
logs=${KVMCHURN_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kvmchurn}/logs
examples=$top/examples/prometheus
fixtures=$top/tests/fixtures
# python3 itself, not a wrapper of it (a pyenv shim costs more than the program)
python=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null) || python=
prompy() { "$python" "$here/prom.py" "$@"; }

# verdict LOG SECS: the verdict of the TAP log and the closing line; false on FAIL. A
# log without its plan (1..N: the tier stopped before its end) is a FAIL.
verdict() {
	local ok nok
	ok=$(grep -c '^ok ' "$1")
	nok=$(grep -c '^not ok ' "$1")
	if ((nok == 0 && ok > 0)) && grep -qx "1\.\.$ok" "$1"; then
		echo "PASS prometheus: $ok ok, 0 not ok ($2 s)"
		echo "1 passed, 0 failed"
		return 0
	fi
	grep -A3 '^not ok ' "$1" | sed 's/^/    /' | head -n 60
	grep -qx "1\.\.$((ok + nok))" "$1" || echo "    the tier stopped before its end (no plan 1..$((ok + nok)))"
	echo "    log: $1"
	echo "FAIL prometheus: $ok ok, $nok not ok ($2 s)"
	echo "0 passed, 1 failed"
	return 1
}

# wait_for's condition (tests/lib/tap.sh): a process that listens on PORT, or has ended
# (the caller tells which). Prometheus' events are waited for by prom.py wait, in one
# process (a Python started every 0.1 s would cost a busy host more than the wait).
listens_or_ended() { ! kill -0 "$1" 2>/dev/null || { : <"/dev/tcp/127.0.0.1/$2"; } 2>/dev/null; }

# The servers started, stopped at exit; their logs kept as $logs/prometheus-NAME.log.
pids=()
tmp=
cleanup() {
	local p f
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
	pids=()
	[[ -n $tmp ]] || return 0
	for f in "$tmp"/*.log; do
		[[ -f $f ]] && cp "$f" "$logs/prometheus-${f##*/}"
	done
	rm -rf "$tmp"
}

# serve NAME LOG PORT CMD...: start CMD (a server to listen on 127.0.0.1, given the port
# as @PORT@) on PORT, until it listens; sets port. A port taken between its choice and
# the bind (by another program) is tried again with another, three times.
serve() {
	local name=$1 log=$2 p=$3 try pid
	shift 3
	for try in 1 2 3; do
		"${@//@PORT@/$p}" >"$log" 2>&1 &
		pid=$!
		pids+=("$pid")
		if ! wait_for "$limit" listens_or_ended "$pid" "$p"; then
			echo "# $name: not listening on 127.0.0.1:$p within $limit s"
			return 1
		fi
		if kill -0 "$pid" 2>/dev/null; then
			port=$p
			return 0
		fi
		echo "# $name ended (try $try, port $p):"
		tail -n 3 "$log" | sed 's/^/#   /'
		grep -q 'address already in use' "$log" || return 1
		p=$(prompy ports 1) || return 1
	done
	return 1
}

# report NAME FILE RC: ok NAME with FILE as "#" lines, or not ok with them as its diagnosis.
report() {
	local lines=()
	if [[ $3 == 0 ]]; then
		ok "$1"
		sed 's/^/# /' "$2"
	else
		not_ok "$1"
		mapfile -t lines <"$2"
		diag "${lines[@]}"
	fi
}

# tier_needs PROMETHEUS NODE_EXPORTER PROMTOOL: their versions, or not ok if one is missing.
tier_needs() {
	local n
	for n in "prometheus:$1" "prometheus-node-exporter:$2" "promtool:$3" "python3:$python"; do
		[[ -n ${n#*:} ]] && continue
		not_ok "${n%%:*} installed"
		diag "apt-get install prometheus prometheus-node-exporter python3 (.ci/run does)"
		return 1
	done
	if [[ ! -x $client ]]; then
		not_ok "the client, $client"
		diag "make client (make check-prometheus builds it)"
		return 1
	fi
	echo "# $("$1" --version 2>&1 | head -n1); $("$2" --version 2>&1 | head -n1)"
}

# export_hosts: a textfile folder a capture, listed in tier's hosts and dirs.
export_hosts() {
	local d h
	for d in "$fixtures"/*/ "$fixtures/hand/known/"; do
		[[ -f $d/raw ]] || continue
		h=${d%/}
		h=${h#"$fixtures"/}
		hosts+=("$h")
		dirs+=("${d%/}")
		mkdir -p "$tmp/tf/$h"
		"$client" -d "$d" export -o "$tmp/tf/$h/kvmchurn.prom" >"$tmp/out" 2>&1 ||
			{ not_ok "$h: kvmchurn export -o"; diag "$(cat "$tmp/out")"; }
	done
	((${#hosts[@]} >= 2)) || { not_ok "two captures or more in tests/fixtures"; return 1; }
	ok "${#hosts[@]} captures exported: ${hosts[*]}"
}

# serve_nodes NODE_EXPORTER PORT...: a node_exporter a host (tier's ports and targets).
serve_nodes() {
	local node_exporter=$1 free=("${@:2}") h i
	for h in "${hosts[@]}" no-module; do
		i=${#ports[@]}
		if ! serve "node_exporter $h" "$tmp/node-exporter-${h//\//-}.log" "${free[i]}" "$node_exporter" \
			--web.listen-address=127.0.0.1:@PORT@ --collector.disable-defaults \
			--collector.textfile --collector.textfile.directory="$tmp/tf/$h"; then
			not_ok "node_exporter for $h started"
			return 1
		fi
		ports+=("$port")
		targets+=("127.0.0.1:$port")
	done
}

# test_textfiles: each node_exporter serves its host's textfile, read without error.
test_textfiles() {
	local errs=() fetch=() h i
	for i in "${!ports[@]}"; do
		fetch+=("$tmp/metrics.$i=http://127.0.0.1:${ports[i]}/metrics")
	done
	prompy fetch "${fetch[@]}" >"$tmp/out" 2>&1 || errs+=("fetching their /metrics:" "$(cat "$tmp/out")")
	for i in "${!ports[@]}"; do
		h=${hosts[i]:-no-module}
		grep -qx 'node_textfile_scrape_error 0' "$tmp/metrics.$i" ||
			errs+=("$h: $(grep '^node_textfile_scrape_error' "$tmp/metrics.$i")")
		if [[ $h == no-module ]]; then
			grep -qx 'kvmchurn_up 0' "$tmp/metrics.$i" || errs+=("$h: no kvmchurn_up 0")
		else
			grep -q '^kvmchurn_duration_seconds_count{metric="kvm_create_vm"} ' "$tmp/metrics.$i" ||
				errs+=("$h: no kvmchurn_duration_seconds_count of kvm_create_vm")
		fi
	done
	if ((${#errs[@]} == 0)); then
		ok "${#targets[@]} node_exporters (textfile collector alone) serve the textfiles, node_textfile_scrape_error 0"
	else
		not_ok "${#targets[@]} node_exporters serve the textfiles, node_textfile_scrape_error 0"
		diag "${errs[@]}"
	fi
}

# serve_prometheus PROMETHEUS PORT: scraping tier's targets every second; sets port.
serve_prometheus() {
	{
		echo "global: {scrape_interval: 1s, scrape_timeout: 1s, evaluation_interval: 1s}"
		echo "rule_files: ['$examples/kvmchurn.rules.yml']"
		echo "scrape_configs:"
		echo "  - job_name: node"
		echo "    static_configs:"
		echo "      - targets: [$(printf "'%s', " "${targets[@]}" | sed 's/, $//')]"
	} >"$tmp/prometheus.yml"
	sed 's/^/# /' "$tmp/prometheus.yml"
	# listening at once; its API answers once the TSDB is open (scraped, below)
	if ! serve prometheus "$tmp/server.log" "$2" "$1" \
		--config.file="$tmp/prometheus.yml" --storage.tsdb.path="$tmp/data" \
		--web.listen-address=127.0.0.1:@PORT@; then
		not_ok "prometheus started"
		return 1
	fi
}

# wait_scraped PROM: every target scraped once, the time all numbers are asked at.
wait_scraped() {
	local prom=$1
	if prompy wait "$limit" scraped "$prom" "${#targets[@]}" >"$tmp/at" 2>&1; then
		# the numbers are asked at that time (prom.py)
		PROM_AT=$(cat "$tmp/at")
		export PROM_AT
		ok "prometheus on ${prom#http://} scraped all ${#targets[@]} targets (up == 1 at $PROM_AT)"
	else
		not_ok "prometheus scraped all ${#targets[@]} targets within $limit s"
		diag "$(cat "$tmp/at")" "$(prompy targets "$prom" 2>&1)"
		return 1
	fi
}

# test_quantiles PROM: each capture's histogram, in PromQL, against kvmchurn summary.
test_quantiles() {
	local args=() i
	for i in "${!hosts[@]}"; do
		"$client" -d "${dirs[i]}" summary --json >"$tmp/summary.$i.json"
		args+=("127.0.0.1:${ports[i]}" "$tmp/summary.$i.json" "$tmp/q.$i")
	done
	prompy quantiles "$1" "${args[@]}" >"$tmp/out" 2>&1 || diag "$(cat "$tmp/out")"
	for i in "${!hosts[@]}"; do
		report "${hosts[i]}: histogram_quantile(0.5|0.9|0.99) in the bucket of kvmchurn summary's p50/p90/p99; _count and _sum are its count and sum" \
			"$tmp/q.$i" "$(cat "$tmp/q.$i.rc" 2>/dev/null)"
	done
}

# test_fleet PROM: PromQL's sum over the real captures' hosts is kvmchurn merge of them.
test_fleet() {
	# the real captures (a hand-made one's sums are past what a merge may add up)
	local fleet=() instances=() i rc
	for i in "${!hosts[@]}"; do
		[[ ${hosts[i]} == hand/* ]] && continue
		fleet+=("${dirs[i]}")
		instances+=("127.0.0.1:${ports[i]}")
	done
	local what="sum by (le, metric) of the buckets (and _count) over ${#fleet[@]} hosts is kvmchurn merge of their snapshots"
	mkdir -p "$tmp/merged"
	if ! "$client" merge --help >/dev/null 2>&1; then
		not_ok "$what"
		diag "this client has no merge command"
	elif ! "$client" merge -o "$tmp/merged/raw" "${fleet[@]}" >"$tmp/out" 2>&1 ||
		! "$client" -d "$tmp/merged" export -o "$tmp/merged.prom" >>"$tmp/out" 2>&1; then
		not_ok "kvmchurn merge of ${#fleet[@]} snapshots, exported"
		diag "$(cat "$tmp/out")"
	else
		rc=0
		prompy summed "$1" "$(IFS=,; echo "${instances[*]}")" "$tmp/merged.prom" >"$tmp/q" 2>&1 || rc=$?
		report "$what" "$tmp/q" "$rc"
	fi
}

# test_rules PROM: the examples' rules and alerts, live, on tier's targets.
test_rules() {
	local prom=$1 rc sel n
	rc=0
	prompy wait "$limit" rules "$prom" kvmchurn >"$tmp/q" 2>&1 || rc=$?
	report "examples' rules loaded by prometheus, evaluated and healthy" "$tmp/q" "$rc"
	rc=0
	prompy wait "$limit" alert "$prom" KvmchurnNotLoaded "${targets[${#targets[@]} - 1]}" >"$tmp/q" 2>&1 || rc=$?
	report "KvmchurnNotLoaded for the host without the module" "$tmp/q" "$rc"
	sel=$(grep -o 'node_textfile_mtime_seconds{[^}]*}' "$examples/kvmchurn.rules.yml")
	n=$(prompy value "$prom" "count($sel)")
	if [[ $n == "${#targets[@]}" ]]; then
		ok "KvmchurnExportStale's $sel matches each host's textfile ($n)"
	else
		not_ok "KvmchurnExportStale's $sel matches each host's textfile: $n of ${#targets[@]}"
		diag "$(grep -h '^node_textfile_mtime_seconds' "$tmp"/metrics.*)"
	fi
}

# tier: the steps above in order; the hosts' lists are its locals, which the steps share.
tier() {
	local hosts=() dirs=() ports=() targets=() free=() prometheus node_exporter promtool prom
	tmp=$(mktemp -d)
	trap cleanup EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
	prometheus=$(command -v prometheus) node_exporter=$(command -v prometheus-node-exporter || command -v node_exporter)
	promtool=$(command -v promtool)
	tier_needs "$prometheus" "$node_exporter" "$promtool" || return 1

	# ---- the examples, by promtool ------------------------------------------------
	check "promtool check rules examples/prometheus/kvmchurn.rules.yml" \
		"$promtool" check rules "$examples/kvmchurn.rules.yml"
	check "promtool test rules examples/prometheus/kvmchurn.rules.test.yml" \
		"$promtool" test rules "$examples/kvmchurn.rules.test.yml"

	# ---- the hosts: a textfile folder and a node_exporter each --------------------
	export_hosts || return 1
	# the host without the module: what kvmchurn-export.service's command leaves there
	mkdir -p "$tmp/tf/no-module" "$tmp/empty"
	KVMCHURN_EXPORT_DIR=$tmp/empty KVMCHURN_EXPORT_FILE=$tmp/tf/no-module/kvmchurn.prom \
		check "no-module: systemd/export-textfile writes kvmchurn_up 0" \
		"$top/systemd/export-textfile" "$client"

	# a port each, and Prometheus'
	mapfile -t free < <(prompy ports $((${#hosts[@]} + 2)))
	((${#free[@]} == ${#hosts[@]} + 2)) || { not_ok "free ports on 127.0.0.1"; return 1; }
	serve_nodes "$node_exporter" "${free[@]}" || return 1
	test_textfiles

	# ---- Prometheus ---------------------------------------------------------------
	serve_prometheus "$prometheus" "${free[${#free[@]} - 1]}" || return 1
	prom=http://127.0.0.1:$port
	wait_scraped "$prom" || return 1

	# ---- each capture: quantiles, _count, _sum --------------------------------------
	test_quantiles "$prom"

	# ---- the fleet: PromQL's sum against kvmchurn merge ------------------------------
	test_fleet "$prom"

	# ---- the rules, live ---------------------------------------------------------
	test_rules "$prom"
	tap_done
}

main() {
	trap 'exit 130' INT
	trap 'exit 143' TERM
	mkdir -p "$logs"
	tier 2>&1 | tee "$logs/prometheus.log"
	verdict "$logs/prometheus.log" "$SECONDS"
}

main "$@"

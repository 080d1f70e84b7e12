# shellcheck shell=bash disable=SC2154 # the variables of tier.sh, which sources this
# SPDX-License-Identifier: GPL-2.0
# checks.sh: the prometheus tier's tests (sourced by tier.sh), in the order tier.sh runs
# them, each one or more TAP lines (tests/lib/tap.sh). They share tier.sh's variables:
# the captures (hosts, dirs), their node_exporters (ports, targets), client, examples,
# fixtures, limit and tmp.

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

# tier_needs PROMETHEUS NODE_EXPORTER PROMTOOL: their versions; bails out if one is missing.
tier_needs() {
	local n
	for n in "prometheus:$1" "prometheus-node-exporter:$2" "promtool:$3" "python3:$python"; do
		[[ -n ${n#*:} ]] ||
			bail_out "${n%%:*} installed" "apt-get install prometheus prometheus-node-exporter python3 (.ci/run does)"
	done
	[[ -x $client ]] || bail_out "the client, $client" "make client (make check-prometheus builds it)"
	echo "# $("$1" --version 2>&1 | head -n1); $("$2" --version 2>&1 | head -n1)"
}

# test_promtool PROMTOOL: the examples' rules, and their unit tests, by promtool.
test_promtool() {
	check "promtool check rules examples/prometheus/kvmchurn.rules.yml" \
		"$1" check rules "$examples/kvmchurn.rules.yml"
	check "promtool test rules examples/prometheus/kvmchurn.rules.test.yml" \
		"$1" test rules "$examples/kvmchurn.rules.test.yml"
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
	((${#hosts[@]} >= 2)) || bail_out "two captures or more in tests/fixtures"
	ok "${#hosts[@]} captures exported: ${hosts[*]}"
}

# export_no_module: the textfile folder of a host without the module, as
# kvmchurn-export.service's command leaves it.
export_no_module() {
	mkdir -p "$tmp/tf/no-module" "$tmp/empty"
	KVMCHURN_EXPORT_DIR=$tmp/empty KVMCHURN_EXPORT_FILE=$tmp/tf/no-module/kvmchurn.prom \
		check "no-module: systemd/export-textfile writes kvmchurn_up 0" \
		"$top/systemd/export-textfile" "$client"
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

# wait_scraped PROM: every target scraped once, the time all numbers are asked at; else
# it bails out.
wait_scraped() {
	local prom=$1
	if prompy wait "$limit" scraped "$prom" "${#targets[@]}" >"$tmp/at" 2>&1; then
		# the numbers are asked at that time (prom.py)
		PROM_AT=$(cat "$tmp/at")
		export PROM_AT
		ok "prometheus on ${prom#http://} scraped all ${#targets[@]} targets (up == 1 at $PROM_AT)"
	else
		bail_out "prometheus scraped all ${#targets[@]} targets within $limit s" \
			"$(cat "$tmp/at")" "$(prompy targets "$prom" 2>&1)"
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

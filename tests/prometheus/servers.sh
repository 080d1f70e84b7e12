# shellcheck shell=bash disable=SC2154 # the variables of tier.sh, which sources this
# SPDX-License-Identifier: GPL-2.0
# servers.sh: the prometheus tier's servers (sourced by tier.sh): node_exporters and a
# Prometheus started on free ports of 127.0.0.1 with their data in $tmp, each waited for
# until it listens, all stopped at exit (cleanup) with their logs kept in $logs. Reads
# tier.sh's limit, tmp, logs, hosts, targets and prompy.

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

# serve_nodes NODE_EXPORTER PORT...: a node_exporter a host (tier's ports and targets);
# bails out if one does not start.
serve_nodes() {
	local node_exporter=$1 free=("${@:2}") h i
	for h in "${hosts[@]}" no-module; do
		i=${#ports[@]}
		if ! serve "node_exporter $h" "$tmp/node-exporter-${h//\//-}.log" "${free[i]}" "$node_exporter" \
			--web.listen-address=127.0.0.1:@PORT@ --collector.disable-defaults \
			--collector.textfile --collector.textfile.directory="$tmp/tf/$h"; then
			bail_out "node_exporter for $h started"
		fi
		ports+=("$port")
		targets+=("127.0.0.1:$port")
	done
}

# serve_prometheus PROMETHEUS PORT: scraping tier's targets every second; sets port, or
# bails out.
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
		bail_out "prometheus started"
	fi
}

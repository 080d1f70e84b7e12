#!/bin/sh
# shellcheck disable=SC2086 # $args holds several options
# 55-teardown: each VM's teardown, partitioned. For each way a VM ends (kill,
# term, exit, kill with vCPUs that ran), N VMs: per VM the parts sum to the
# teardown exactly; at least 90 % of the VMs are 95 % accounted (1 - td_other
# / teardown) and none is below 80 %; and the phases that reap_wait and
# rcu_free fill (each less what intervals in it take) equal, within a
# histogram slot, what tracefs records in the same run at the same kernel
# functions: the parent's SIGCHLD (signal_generate, sig 17), the leader's
# release (a kprobe event on the function the module's exit_to_reaped probe
# is on, the one its parent's wait4 calls just before it returns the VM's
# pid), the leader's sched_process_free. It prints each part's share of all
# the teardowns and the accounted p50, p10 and min (Documentation/kvmchurn.rst).
# The start-up, partitioned too: only the VMs whose vCPUs ran (--run) have one,
# each; its parts sum to it exactly, and at least 90 % of them are 95 %
# accounted (1 - st_other / startup); each part's share is printed.
# A host that stalls the TCG vCPU must not move the guest's clocks (between
# two probes, the stall would land in td_other): it runs in a boot whose
# guest clock counts instructions (tests/lib/README.md).
# clock: icount
# shellcheck source=../lib/guest/lib.sh
. /kvmchurn/lib.sh
N=${KVMCHURN_METRICS_VMS:-20}
PARTS="td_destroy td_release td_task_work td_exit_mmap td_exit_files td_threads reap_wait rcu_free td_wake td_runq td_other"
ST_PARTS="st_create st_first_run st_vcpus st_ioctls st_user st_kernel st_runq st_blocked st_other"

# most_accounted WHAT GOOD WINDOWS LEAST: at least 90 % of the N windows are
# 95 % accounted (GOOD of them are).
most_accounted() {
	if [ $(($2 * 10)) -ge $((N * 9)) ]; then
		ok "$1: $2 of $N $3 are 95 % accounted (least: $4)"
	else
		not_ok "$1: only $2 of $N $3 are 95 % accounted (least: $4)"
	fi
}

# The start-ups of the last VMs: "vms started bad good minacc", and the shares
# and accounted p50, p10 and min as comments.
startups() {
	awk -F '\t' -v parts="$ST_PARTS" '
		$1 == "fields" { for (i = 1; i <= NF; i++) col[$i] = i; np = split(parts, pn, " ") }
		$1 == "vm" && $2 == "last" {
			vms++
			split($(col["startup"]), w, ":")
			if (w[1] != 1) next
			started++
			sum = 0
			for (p = 1; p <= np; p++) { split($(col[pn[p]]), v, ":"); part[pn[p]] = v[2]; sum += v[2] }
			if (sum != w[2]) { bad++; print "#   vm " $3 ": start-up parts sum to " sum ", startup " w[2] }
			acc = w[2] ? 1 - part["st_other"] / w[2] : 1
			if (acc >= 0.95) good++
			if (started == 1 || acc < minacc) minacc = acc
			accs[started] = acc; total += w[2]
			for (p = 1; p <= np; p++) share[pn[p]] += part[pn[p]]
		}
		END {
			for (i = 2; i <= started; i++) { v = accs[i]; for (j = i - 1; j >= 1 && accs[j] > v; j--) accs[j + 1] = accs[j]; accs[j + 1] = v }
			if (started) {
				printf "# start-up accounted: p50 %.3f, p10 %.3f, min %.3f of %d VMs\n", accs[int(started / 2) + 1], accs[int(started / 10) + 1], accs[1], started
				printf "# shares of %d us of start-ups:", total
				for (p = 1; p <= np; p++) printf " %s %.1f%%", pn[p], 100 * share[pn[p]] / (total ? total : 1)
				printf "\n"
			}
			printf "%d %d %d %d %.3f\n", vms, started, bad, good, minacc
		}' "$D/vms"
}

tracefs || bail_out "tracefs"

# the function the module's exit_to_reaped probe is on: 7.x's cgroup_task_release,
# before it cgroup_release (the module's probes file says the same, below)
REL=$(awk '$3 == "cgroup_task_release" || $3 == "cgroup_release" { print $3 }' /proc/kallsyms | sort | head -n 1)

# The events are enabled before the module loads, so that at each shared
# tracepoint and kprobe tracefs's probe runs first: its time is not the
# module's handler's later.
trace_start() {
	echo 0 >"$TR/tracing_on"
	echo mono >"$TR/trace_clock"
	echo 1 >"$TR/options/record-tgid"
	echo 'sig == 17' >"$TR/events/signal/signal_generate/filter"
	echo 'comm == "firecracker"' >"$TR/events/sched/sched_process_free/filter"
	for e in signal/signal_generate sched/sched_process_free syscalls/sys_exit_wait4; do
		echo 1 >"$TR/events/$e/enable"
	done
	kp rel "$REL" || not_ok "kprobe event on $REL"
}
trace_stop() {
	echo 0 >"$TR/tracing_on"
	for e in signal/signal_generate sched/sched_process_free syscalls/sys_exit_wait4; do
		echo 0 >"$TR/events/$e/enable"
	done
	echo 0 >"$TR/events/signal/signal_generate/filter"
	echo 0 >"$TR/events/sched/sched_process_free/filter"
}

trace_start
if ! insmod "$KVMCHURN_KO"; then
	not_ok "insmod kvmchurn.ko"
	exit 0
fi
ok "insmod kvmchurn.ko"
is "the module's release probe is on $REL" \
	"$(awk -F '\t' '$1 == "probe" && $2 == "exit_to_reaped" { print $4 " " $5 }' "$D/raw")" "$REL attached"

# tracefs's times per VM, "tgid notified reaped freed" in us (mono clock)
traced() {
	awk '
		function ts(   i) { for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) return substr($i, 1, length($i) - 1) * 1000000; return -1 }
		function hex(s,   i, n) { n = 0; s = tolower(substr(s, 3)); for (i = 1; i <= length(s); i++) n = n * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1; return n }
		function tgid(   s) { if (!match($0, /\( *[0-9]+\)/)) return -1; s = substr($0, RSTART + 1, RLENGTH - 2); gsub(/ /, "", s); return s + 0 }
		/ signal_generate: / && / sig=17 / { t = tgid(); if (!(t in n)) n[t] = ts() }
		function tid(   s) { s = $1; sub(/.*-/, "", s); return s + 0 }
		/ rel: / { rel[tid()] = ts() }
		/ sys_wait4 -> / { v = $NF; v = v ~ /^0x/ ? hex(v) : v + 0; if (v > 0 && (tid() in rel)) r[v] = rel[tid()] }
		/ sched_process_free: / { if (match($0, /pid=[0-9]+/)) f[substr($0, RSTART + 4, RLENGTH - 4) + 0] = ts() }
		END { for (t in f) if ((t in n) && (t in r)) printf "%d %.0f %.0f %.0f\n", t, n[t], r[t], f[t] }' "$TR/trace"
}

for args in "--end kill" "--end term" "--end exit" "--end kill --run"; do
	echo 1 >"$D/reset"
	echo >"$TR/trace"
	echo 1 >"$TR/tracing_on"
	kvmchurn load -n $N -j 2 --mem 16 $args >/tmp/load.out 2>&1 || not_ok "kvmchurn load $args: exit $?"
	wait_for "$KC_WAIT" counter_is reap $N || not_ok "$args: reap counter reaches $N"
	echo 0 >"$TR/tracing_on"
	traced >/tmp/traced
	echo "# tracefs saw $(wc -l </tmp/traced) VMs notified, reaped and freed"
	[ -s /tmp/traced ] || grep -m 3 -e signal_generate -e sys_wait4 -e sched_process_free "$TR/trace" | sed 's/^/# /'
	awk -F '\t' -v parts="$PARTS" -v what="$args" '
		# the histograms slot: a power of two, cut in four
		function bucket(v,   k, p) {
			if (v < 4) return v
			k = 0; p = 1
			while (p * 2 <= v) { p = p * 2; k++ }
			return k * 4 + int((v - p) * 4 / p)
		}
		# within a slot of the histogram, or 50 us: the two sides take their
		# instants from probes on one event that run one after the other,
		# and in TCG each takes tens of us
		function near(a, b,   d) {
			d = bucket(a) - bucket(b)
			return (d >= -1 && d <= 1) || (a - b <= 50 && b - a <= 50)
		}
		FILENAME == "/tmp/traced" { split($0, a, " "); tn[a[1]] = a[2]; tr[a[1]] = a[3]; tf[a[1]] = a[4]; next }
		$1 == "fields" { for (i = 1; i <= NF; i++) col[$i] = i; np = split(parts, pn, " ") }
		$1 == "td-fields" { for (i = 1; i <= NF; i++) tcol[$i] = i }
		$1 == "vm" { cur = $2 == "last" ? $3 + 0 : "" }
		$1 == "vm" && $2 == "last" {
			vms++
			split($(col["teardown"]), w, ":")
			win[cur] = w[2]
			if (w[1] != 1) { nowin++; next }
			sum = 0
			for (p = 1; p <= np; p++) { split($(col[pn[p]]), v, ":"); part[cur, pn[p]] = v[2]; sum += v[2] }
			if (sum != w[2]) { bad++; print "#   " what ": vm " cur ": parts sum to " sum ", teardown " w[2] }
			acc = w[2] ? 1 - part[cur, "td_other"] / w[2] : 1
			if (acc >= 0.95) good++
			if (acc < 0.80) low++
			if (vms == 1 || acc < minacc) minacc = acc
			accs[vms] = acc; total += w[2]
			for (p = 1; p <= np; p++) share[pn[p]] += part[cur, pn[p]]
		}
		$1 == "td" && cur != "" {
			t = cur; nt = $(tcol["notified"]); rt = $(tcol["reaped"])
			if (!(t in tn) || !nt || !rt) { untraced++; next }
			# the phases, the module against tracefs: notified -> reaped -> freed
			m[1] = rt - nt; x[1] = tr[t] - tn[t]; nm[1] = "notified -> reaped"
			m[2] = win[t] - (rt - 1); x[2] = tf[t] - tr[t]; nm[2] = "reaped -> freed"
			for (c = 1; c <= 2; c++) {
				compared++
				if (!near(m[c], x[c])) { off++; print "#   " what ": vm " t ": " nm[c] " " m[c] ", tracefs " x[c] }
			}
			# and each part no more than its phase (the intervals in it take their share)
			if (part[t, "reap_wait"] > m[1] || part[t, "rcu_free"] > m[2]) {
				over++; print "#   " what ": vm " t ": reap_wait " part[t, "reap_wait"] " rcu_free " part[t, "rcu_free"] " beyond their phases " m[1] " " m[2]
			}
		}
		END {
			# accounted p50 and p10 as kvmchurn vms ranks them, least first
			n = 0
			for (i = 1; i <= vms; i++) if (i in accs) sorted[++n] = accs[i]
			for (i = 2; i <= n; i++) { v = sorted[i]; for (j = i - 1; j >= 1 && sorted[j] > v; j--) sorted[j + 1] = sorted[j]; sorted[j + 1] = v }
			if (n) printf "# accounted: p50 %.3f, p10 %.3f, min %.3f of %d VMs\n", sorted[int(n / 2) + 1], sorted[int(n / 10) + 1], sorted[1], n
			printf "# shares of %d us of teardowns:", total
			for (p = 1; p <= np; p++) printf " %s %.1f%%", pn[p], total ? 100 * share[pn[p]] / total : 0
			printf "\n"
			printf "vms=%d nowin=%d bad=%d good=%d minacc=%.3f compared=%d off=%d untraced=%d over=%d low=%d\n",
				vms, nowin, bad, good, minacc, compared, off, untraced, over, low
		}' /tmp/traced "$D/vms" >/tmp/judge 2>&1
	grep "^#" /tmp/judge
	# shellcheck disable=SC2046 # the judge's numbers, one a word
	set -- $(tail -n 1 /tmp/judge | sed 's/[a-z]*=//g')
	is "$args: VMs whose teardown was partitioned" "$1 $2" "$N 0"
	is "$args: VMs whose parts do not sum to their teardown" "$3" 0
	most_accounted "$args" "$4" "VMs' teardowns" "$5"
	is "$args: VMs below 80 % accounted" "${10}" 0
	# a share, not every VM: a host that stalls the guest between two probes
	# of one event moves one side's instant (tests/lib/README.md)
	is "$args: every VM's phases compared with tracefs" "$6 $8" "$((2 * N)) 0"
	if [ $(($7 * 10)) -le $((2 * N)) ]; then
		ok "$args: notified -> reaped -> freed within a slot of tracefs's for $((2 * N - $7)) of $((2 * N))"
	else
		not_ok "$args: notified -> reaped -> freed within a slot of tracefs's for only $((2 * N - $7)) of $((2 * N))"
	fi
	is "$args: reap_wait and rcu_free within their phases" "$9" 0
	startups >/tmp/startups
	grep "^#" /tmp/startups
	# shellcheck disable=SC2046 # the judge's numbers, one a word
	set -- $(tail -n 1 /tmp/startups)
	case $args in
	*--run*)
		is "$args: VMs that ran, each with its start-up partitioned" "$1 $2" "$N $N"
		is "$args: VMs whose start-up parts do not sum to it" "$3" 0
		most_accounted "$args" "$4" "start-ups" "$5"
		;;
	*) is "$args: VMs that never ran have no start-up" "$1 $2" "$N 0" ;;
	esac
done
rmmod kvmchurn
trace_stop
kp_clear

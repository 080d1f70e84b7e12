#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# count.sh [ID...]: make bench-count, the cost that make bench measures on unmatched
# exits, counted instruction by instruction instead of sampled: the kernel's probe
# mechanism against kvmchurn's handlers, exactly. Each kernel (default x86_64-6.1 and
# arm64-6.1) boots under QEMU's icount, as make bench does, with a TCG plugin
# (count/insncount.c) that counts every kernel instruction the guest executes, by
# address, between the marks that `forkexit -m` sets around COUNT_EXITS fork + exit +
# waitpid, in A (nothing loaded), F (the floor), B (kvmchurn, filter=firecracker), V
# (B with COUNT_ALIVE traced VMs alive) and W (F with the same VMs alive)
# (count/60-count.sh). Here each address goes to the last symbol at or below it of those
# the guest printed, and its class: kvmchurn's or the floor's handlers (their modules'
# text), the mechanism (tests/bench/mechanism.sh's functions, and the kernel's code
# outside its text and its modules: the trampolines of ftrace and kprobes), the rest
# (the kernel's other functions and the other modules).
# Printed, instructions an exit: each class by configuration, F - A and B - F and their
# ratio, W - A and V - W (the same with VMs alive), and where F's mechanism and B's
# handlers go, by symbol.
# Nothing is sampled, so nothing has an interval: what varies from run to run is what
# the rest of the kernel does beside the exits (timers, RCU, the other CPU), which the
# total shows and the classes of the probes do not see.
# Knobs: COUNT_EXITS (2000), COUNT_ALIVE (1000; 0: no V and W), COUNT_MEM (the
# guest's MiB, 3072: room for the VMs alive).
# Exit status: 1 when a kernel's boot failed (its FAIL line says why; no report for it).
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=../vm/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../vm/lib.sh"
# shellcheck source-path=SCRIPTDIR source=mechanism.sh
. "$KC_TOP/tests/bench/mechanism.sh"
# shellcheck source-path=SCRIPTDIR source=goals.sh
. "$KC_TOP/tests/bench/goals.sh"

COUNT_EXITS=${COUNT_EXITS:-2000}
COUNT_ALIVE=${COUNT_ALIVE:-1000}
COUNT_MEM=${COUNT_MEM:-3072}
[[ $COUNT_EXITS =~ ^[1-9][0-9]*$ ]] || kc_die "COUNT_EXITS=$COUNT_EXITS: give a number of exits, 1 or more"
[[ $COUNT_ALIVE =~ ^[0-9]+$ ]] || kc_die "COUNT_ALIVE=$COUNT_ALIVE: give a number of VMs, 0 for none"

# addr(H): the low 48 bits of the hex address H, as a number (kernel addresses share the
# top 16, and a double holds 48 exactly); an awk function of both programs below
# shellcheck disable=SC2016 # awk
KC_COUNT_ADDR='
	function addr(h, i, v) {
		h = tolower(substr(h, length(h) - 11)); v = 0
		for (i = 1; i <= length(h); i++) v = v * 16 + index("0123456789abcdef", substr(h, i, 1)) - 1
		return v
	}'

# kc_count_kosyms KO MODULE: the functions of a module file, "MODULE SECTION OFFSET NAME",
# and where each of its text sections ends, "MODULE SECTION SIZE [end]".
kc_count_kosyms() {
	{ readelf -SW "$1" && readelf -sW "$1"; } | awk -v mod="$2" '
		/^ *\[ *[0-9]+\] / {
			gsub(/[][]/, " "); sec[$1] = $2
			if ($2 ~ /^\.text/) print mod, $2, $6, "[end]"
			next
		}
		$4 == "FUNC" && $7 ~ /^[0-9]+$/ { print mod, sec[$7], $2, $8 }'
}

# kc_count_syms LOG CFG KOSYMS: the symbols of CFG's run, "ADDRESS ORDER NAME CLASS"
# sorted by address (addr(), in decimal), then ORDER, so that where one thing ends where another
# begins, the one that begins is last: what the guest printed of the kernel's text, each
# module's core (kvmchurn's and the floor's, the handlers, their functions from KOSYMS
# where the guest said their sections are), and after the kernel's text and each
# module's end whatever is outside them: the kernel's trampolines, the mechanism (also
# after the end of each of kvmchurn's and the floor's text sections, and where the guest
# printed a trampoline: from 6.4 a module's core is not one block, and its size in
# /proc/modules runs past its text, over what the kernel put after it).
kc_count_syms() {
	tr -d '\r' <"$1" | awk -v c="$2" "$KC_COUNT_ADDR"'
		function handler(m) { return m ~ /^\[kvmchurn(_floor)?\]$/ }
		FILENAME != "-" { n[$1, $2]++; ko[$1, $2, n[$1, $2]] = addr($3); kn[$1, $2, n[$1, $2]] = $4; next }
		$1 != "#" || $2 != "count" { next }
		$3 == "sym" { printf "%.0f %d %s %s\n", addr($4), $6 == "outside" ? 0 : 1, $5, $6 == "outside" ? "mechanism" : $6; next }
		$3 == "module" && $4 == c {
			printf "%.0f 1 %s %s\n", addr($5), $7, handler($7) ? "handler" : "rest"
			printf "%.0f 0 [outside] mechanism\n", addr($5) + $6
			next
		}
		$3 == "section" && $4 == c {
			for (i = 1; i <= n[$5, $6]; i++)
				if (kn[$5, $6, i] == "[end]") printf "%.0f 0 [outside] mechanism\n", addr($7) + ko[$5, $6, i]
				else printf "%.0f 1 %s%s handler\n", addr($7) + ko[$5, $6, i], kn[$5, $6, i], $5
			next
		}
		$3 == "tramp" && $4 == c { printf "%.0f 2 %s mechanism\n", addr($5), $6 }
	' "$3" - | sort -k1,1n -k2,2n
}

# kc_count_report LOG COUNTS BUILD: instructions an exit by class and configuration, the
# ratios, and where B's handlers go; BUILD holds the modules the guest loaded.
kc_count_report() {
	local log=$1 counts=$2 build=$3 c tables=()
	{
		kc_count_kosyms "$build/kvmchurn.ko" "[kvmchurn]"
		kc_count_kosyms "$build/tests/bench/floor/kvmchurn_floor.ko" "[kvmchurn_floor]"
	} >"$counts.kosyms"
	for c in $(tr -d '\r' <"$log" | awk '$1 == "#" && $2 == "count" && $3 == "run" { print $4 }'); do
		kc_count_syms "$log" "$c" "$counts.kosyms" >"$counts.syms-$c"
		tables+=("$counts.syms-$c")
	done
	((${#tables[@]})) || { echo "  no run was counted (the boot's not ok lines say why)"; return 0; }
	tr -d '\r' <"$log" | awk -v counts="$counts" -v goal_share="$KC_BENCH_GOAL_SHARE" -v goal_growth="$KC_BENCH_GOAL_GROWTH" "$KC_COUNT_ADDR"'
		# find C A: the index in C'\''s table of the last symbol at or below A (0: none)
		function find(c, a, lo, hi, mid) {
			lo = 1; hi = ns[c]
			if (!hi || a < sa[c, 1]) return 0
			while (lo < hi) { mid = int((lo + hi + 1) / 2); if (sa[c, mid] <= a) lo = mid; else hi = mid - 1 }
			return lo
		}
		function per(c, n) { return n / exits[c] }
		function row(name, c) {
			printf "    %-40s %9.1f\n", name, per(c, cl[c, name])
		}
		$1 == "#" && $2 == "count" && $3 == "run" { cfg[$5] = $4; exits[$4] = $6; order = order " " $4; next }
		$1 == "#" && $2 == "count" && $3 == "alive" { alive = $4 " VMs alive (" $5 " " $6 ")"; next }
		END {
			for (m in cfg) {
				c = cfg[m]; f = counts ".syms-" c
				while ((getline line < f) > 0) { split(line, p, " "); ns[c]++; sa[c, ns[c]] = p[1] + 0; sn[c, ns[c]] = p[3]; sc[c, ns[c]] = p[4] }
				close(f)
			}
			while ((getline line < counts) > 0) {
				split(line, p, " ")
				if (p[1] == "mark") seen[p[2]] = 1
				if (p[1] == "mark" || p[1] == "end") { c = p[1] == "mark" && (p[2] in cfg) ? cfg[p[2]] : ""; continue }
				if (p[1] == "full") { full = 1; continue }
				if (c == "") continue
				# below everything is outside the kernel'\''s text and its modules too
				i = find(c, addr(p[1]))
				k = i ? sc[c, i] : "mechanism"
				cl[c, k] += p[2]; tot[c] += p[2]
				if (k != "rest") hs[c, i ? sn[c, i] : "[outside]"] += p[2]
			}
			if (full) print "  the plugin ran out of counters: some instructions were not counted"
			# a run whose mark the plugin never wrote has no counts: it is left out
			for (m in cfg) if (!(m in seen)) { printf "  %s: the plugin wrote no mark %d, so no counts\n", cfg[m], m; delete exits[cfg[m]] }
			n = split(order, cs, " ")
			printf "  kernel instructions an exit, counted%s:\n", alive == "" ? "" : " (V and W: " alive ")"
			for (j = 1; j <= n; j++) {
				c = cs[j]
				if (!exits[c]) continue
				printf "  %s (%d exits, %.0f kernel instructions an exit):\n", c, exits[c], per(c, tot[c])
				row("handler", c); row("mechanism", c); row("rest", c)
			}
			if (!exits["A"] || !exits["F"] || !exits["B"]) exit
			# as bench-profile: the mechanism is what F adds over A in its functions, with
			# its empty handlers; the handlers what kvmchurn'\''s add to those
			fa = per("F", cl["F", "mechanism"] + cl["F", "handler"]) - per("A", cl["A", "mechanism"])
			bf = per("B", cl["B", "handler"]) - per("F", cl["F", "handler"])
			printf "  F - A, the mechanism with empty handlers:          %9.1f\n", fa
			printf "  B - F, kvmchurn'\''s handlers less the empty ones:   %9.1f\n", bf
			printf "  (B - F) / (F - A):                                 %9.3f  goal <= %s: %s\n", bf / fa, goal_share, bf / fa <= goal_share ? "met" : "NOT met"
			printf "  the mechanism in B against F (the same probes):    %9.1f against %.1f\n", per("B", cl["B", "mechanism"]), per("F", cl["F", "mechanism"])
			printf "  A in those classes (what an exit runs there without probes): %.1f\n", per("A", cl["A", "mechanism"])
			if (exits["W"]) {
				wa = per("W", cl["W", "mechanism"] + cl["W", "handler"]) - per("A", cl["A", "mechanism"])
				printf "  W - A, the mechanism with VMs alive:               %9.1f  against F - A %.1f\n", wa, fa
			}
			if (exits["V"] && exits["W"]) {
				vw = per("V", cl["V", "handler"]) - per("W", cl["W", "handler"])
				printf "  V - W, kvmchurn'\''s handlers with VMs alive:         %9.1f  against B - F %.1f: %s\n", vw, bf, vw <= bf * goal_growth ? "does not grow (goal <= " goal_growth " times)" : "GROWS"
			}
			printf "  where F'\''s mechanism goes, instructions an exit over A'\''s (W beside, with VMs alive):\n"
			for (k in hs) {
				split(k, p, SUBSEP)
				d = per("F", hs[k]) - per("A", hs["A", p[2]])
				if (p[1] == "F" && (d >= 0.5 || d <= -0.5)) printf "    %7.1f  %7.1f  %s\n", d, exits["W"] ? per("W", hs["W", p[2]]) - per("A", hs["A", p[2]]) : 0, p[2] | "sort -k1,1nr"
			}
			close("sort -k1,1nr")
			printf "  where B'\''s handlers go, instructions an exit (V beside, with VMs alive):\n"
			for (k in hs) {
				split(k, p, SUBSEP)
				if (p[1] == "B" && p[2] ~ /\[kvmchurn\]$/ && per("B", hs[k]) >= 0.5) printf "    %7.1f  %7.1f  %s\n", per("B", hs[k]), exits["V"] ? per("V", hs["V", p[2]]) : 0, p[2] | "sort -k1,1nr"
			}
			close("sort -k1,1nr")
		}'
	rm -f "${tables[@]}" "$counts.kosyms"
}

main() {
	local list ids id work rc=0 ok
	list=$(kc_ids "${@:-x86_64-6.1 arm64-6.1}")
	mapfile -t ids <<<"$list"
	kc_lock
	"$KC_VM_DIR/fetch.sh" "${ids[@]}"
	export KVMCHURN_ICOUNT=0
	for id in "${ids[@]}"; do
		kc_load_env "$id"
		ok=1 work=$KVMCHURN_CACHE/bench/count-$id
		rm -rf "$work"
		mkdir -p "$work/guest/bin"
		# QEMU runs on the host, or in the trixie chroot that sees the cache at its path
		gcc -std=c11 -O2 -fPIC -shared -Wall -Wextra -Werror -o "$work/insncount.so" \
			"$KC_TOP/tests/bench/count/insncount.c" || kc_die "$id: the plugin did not build"
		kc_guest_cc "$work/guest/bin/forkexit" "$KC_TOP/tests/bench/forkexit.c"
		cp "$KC_TOP/tests/bench/configs.sh" "$work/guest/"
		printf "COUNT_EXITS=%s\nCOUNT_ALIVE=%s\nCOUNT_MECH='%s'\n" "$COUNT_EXITS" "$COUNT_ALIVE" "$KC_BENCH_MECH" >"$work/guest/bench.conf"
		KVMCHURN_SCENARIO_DIR=$KC_TOP/tests/bench/count KVMCHURN_GUEST_DIR=$work/guest KVMCHURN_VM_MEM=$COUNT_MEM \
			KVMCHURN_QEMU_ARGS="-plugin $work/insncount.so,out=$work/counts,arch=$KC_ARCH" \
			KVMCHURN_VM_SILENCE=${KVMCHURN_VM_SILENCE:-3600} KVMCHURN_VM_TIMEOUT=${KVMCHURN_VM_TIMEOUT:-7200} \
			"$KC_VM_DIR/run.sh" "$id" >"$work/verdict" || ok=0
		grep -v ' passed, ' "$work/verdict" || true
		((ok)) || { rc=1; continue; }
		echo "$id $KC_KREL, $(date -u +%Y-%m-%d): every kernel instruction counted, $COUNT_EXITS exits, A F B, V and W with $COUNT_ALIVE VMs alive"
		# where run.sh built the modules (kc_build_dir)
		kc_count_report "$KVMCHURN_CACHE/logs/$id-latest.log" "$work/counts" "${KC_CHROOT:-$KVMCHURN_CACHE}/build/vm/$id"
	done
	return "$rc"
}

# sourced by tests/unit/bench.sh, which tests the report on logs of its own
[[ ${BASH_SOURCE[0]} != "$0" ]] || main "$@"

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# profile.sh [ID...]: make bench-profile, where the cost that make bench measures on
# unmatched exits goes, split by call chain into what the kernel's probe mechanism
# costs and what kvmchurn's handlers cost. Each kernel (default x86_64-6.1 and
# arm64-6.1) boots under QEMU's icount (as make bench does), and Debian's perf of
# that release samples the guest's kernel on cpu-clock with call chains, every
# PROFILE_PERIOD instructions, while forkexit runs PROFILE_EXITS fork + exit + waitpid
# in A (nothing loaded), F (the floor), B (kvmchurn, filter=firecracker), PROFILE_ROUNDS
# times each, then in V (B with PROFILE_ALIVE traced VMs alive) and W (F with the same
# VMs alive) (profile/60-profile.sh).
# Printed: each class's instructions an exit with the interval its sample count gives,
# (B - F) / (F - A) from them, V against B and W against F (the handlers and the
# mechanism with VMs alive), and the symbols B adds most samples in.
# perf and the shared libraries it needs come from the package archive (the private
# apt of the vm tier, bookworm), unpacked under $KVMCHURN_CACHE/bench/perf/<arch>.
# Knobs: PROFILE_EXITS (10000), PROFILE_PERIOD (10007: a prime, so that no loop of an
# exit beats with it; cpu-clock takes 10000 at the least), PROFILE_ROUNDS (1),
# PROFILE_ALIVE (1000; 0: no V), PROFILE_ALIVE_EXITS (V's and W's exits: PROFILE_EXITS;
# with fewer than B's, V against B was not settled), PROFILE_MEM (the guest's MiB, 3072:
# room for the VMs alive).
# Exit status: 1 when a kernel's boot failed (its FAIL line says why; no report for it).
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=../lib/core.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/core.sh"

PROFILE_EXITS=${PROFILE_EXITS:-10000}
PROFILE_PERIOD=${PROFILE_PERIOD:-10007}
PROFILE_ROUNDS=${PROFILE_ROUNDS:-1}
PROFILE_ALIVE=${PROFILE_ALIVE:-1000}
PROFILE_ALIVE_EXITS=${PROFILE_ALIVE_EXITS:-$PROFILE_EXITS}
PROFILE_MEM=${PROFILE_MEM:-3072}
# shellcheck source-path=SCRIPTDIR source=mechanism.sh
. "$KC_TOP/tests/bench/mechanism.sh"
PROFILE_MECH=$KC_BENCH_MECH
# shellcheck source-path=SCRIPTDIR source=goals.sh
. "$KC_TOP/tests/bench/goals.sh"

# kc_perf_root DEBARCH DIR: linux-perf and its dependencies of bookworm, unpacked in DIR/root.
kc_perf_root() {
	local a=$1 d=$2 deb
	[[ -x $d/root/usr/bin/perf ]] && return 0
	rm -rf "$d"
	mkdir -p "$d/debs/partial" "$d/root"
	apt-get -q -t bookworm install --download-only --no-install-recommends -y \
		-o Dir::Cache::archives="$d/debs" "linux-perf:$a" >"$d/download.log" 2>&1 ||
		{ tail -n 5 "$d/download.log" >&2; return 1; }
	for deb in "$d"/debs/*_"$a".deb "$d"/debs/*_all.deb; do
		[[ -e $deb ]] && dpkg -x "$deb" "$d/root"
	done
	[[ -x $d/root/usr/bin/perf ]]
}

# kc_perf_guest ROOT OUT: perf, its dynamic loader and the libraries it needs
# (DT_NEEDED, followed), flat in OUT/lib.
kc_perf_guest() {
	local root=$1 out=$2 lib f todo=() seen=" "
	mkdir -p "$out/lib"
	cp "$root/usr/bin/perf" "$out/perf"
	todo=("$out/perf")
	while ((${#todo[@]})); do
		f=${todo[0]} todo=("${todo[@]:1}")
		for lib in $(readelf -d "$f" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p') \
			$(readelf -l "$f" | sed -n 's/.*interpreter: .*\/\([^/]*\)\]/\1/p'); do
			[[ $seen == *" $lib "* ]] && continue
			seen+="$lib "
			local src
			src=$(find "$root/lib" "$root/usr/lib" -name "$lib" \( -type f -o -type l \) | head -n1)
			[[ -n $src ]] || kc_die "perf needs $lib, which no package unpacked holds"
			cp -L "$src" "$out/lib/$lib"
			todo+=("$out/lib/$lib")
		done
	done
}

# kc_profile_report LOG: the classes' instructions an exit by configuration, the
# ratios from them, then the symbols B gained most samples in.
kc_profile_report() {
	# shellcheck disable=SC2016 # an awk program
	local prog='$1 == "#" && $2 == "profile" && $3 ~ /^[A-Z]$/ && $4 ~ /^[0-9]+$/ {
		c = $3; n = $4; sym = $6
		class = $5 ~ /^k[cf]_/ ? "handler" : $5 != "[other]" ? "mechanism" : sym ~ /^0xffff/ ? "nosym" : "rest"
		cl[c, class] += n; t[c] += n; s[c, sym] += n; syms[sym] = 1
		if (class == "handler" || class == "mechanism") by[c, class, $5] += n
		next
	}
	$1 == "#" && $2 == "profile" && $4 == "ns" && $5 ~ /^[0-9]+$/ { runs[$3]++ }
	$1 == "#" && $2 == "profile" && $4 == "plain" { plain[$3] += $5; nplain[$3]++ }
	$1 == "#" && $2 == "profile" && $3 == "alive" { alive = $4 " (" $5 " " $6 ")" }
	$1 == "#" && $2 == "profile" && $3 == "kprobes" { kprobes = $4 }
	# per C N: N samples of C as instructions an exit: their share of all of C'\''s
	# samples, of what an exit took without perf
	function per(c, n) { return t[c] && nplain[c] ? n / t[c] * plain[c] / nplain[c] : 0 }'
	tr -d '\r' <"$1" | awk -v goal_share="$KC_BENCH_GOAL_SHARE" -v goal_growth="$KC_BENCH_GOAL_GROWTH" "$prog"'
		# lo C N, hi C N: the 95 % interval of a Poisson count of N, an exit
		function lo(c, n) { return per(c, n > 0 ? n - 1.96 * sqrt(n) : 0) }
		function hi(c, n) { return per(c, n + 1.96 * sqrt(n + 1)) }
		# at C N S: per(), or the interval'\''s lo() (S < 0) or hi() (S > 0)
		function at(c, n, s) { return s < 0 ? lo(c, n) : s > 0 ? hi(c, n) : per(c, n) }
		# over_a C S: the mechanism of C (a floor), what it adds in its frames and
		# unnamed code over what A has there, with its empty handlers; S as at()
		function over_a(c, s) {
			return at(c, cl[c, "mechanism"] + cl[c, "nosym"], s) - at("A", cl["A", "mechanism"] + cl["A", "nosym"], -s) + at(c, cl[c, "handler"], s)
		}
		# less X Y S: what the handlers of X add to those of Y; S as at()
		function less(x, y, s) { return at(x, cl[x, "handler"], s) - at(y, cl[y, "handler"], -s) }
		function show(name, c, n) {
			printf "    %-44s %7.0f  [%7.0f, %7.0f]  (%d samples)\n", name, per(c, n), lo(c, n), hi(c, n), n
		}
		BEGIN { split("A F B V W", cfgs) }
		END {
			printf "  instructions an exit by call chain (95 %% interval from the sample count):\n"
			for (i = 1; i <= 5; i++) {
				c = cfgs[i]
				if (!t[c]) continue
				printf "  %s (%d runs, %d samples, %.0f instructions an exit without perf)%s:\n", c, runs[c], t[c], per(c, t[c]), c == "V" || c == "W" ? ", alive " alive : ""
				show("handlers (a kc_ or kf_ frame first)", c, cl[c, "handler"])
				show("mechanism (a probe machinery frame first)", c, cl[c, "mechanism"])
				show("kernel code without a symbol (trampolines)", c, cl[c, "nosym"])
			}
			if (kprobes == "trap")
				printf "  kprobes trap here (a break and a single step): their handlers and the trap run with interrupts\n  masked, so a sample waits until they end and lands after them; neither the mechanism nor the\n  kretprobes'\'' handlers are seen by call chain (the tracepoints'\'' are). make bench'\''s F - A and B - F say it.\n"
			else if (runs["F"] && runs["B"] && runs["A"]) {
				# the mechanism: what F adds in its frames and unnamed code over what A
				# has there (an exit calls rethook_flush_task and ftrace_graph_exit_task
				# whatever is loaded), with the empty handlers of F; the handlers: what
				# those of kvmchurn add to them
				mf = cl["F", "mechanism"] + cl["F", "nosym"]; ma = cl["A", "mechanism"] + cl["A", "nosym"]
				fa = over_a("F", 0); fal = over_a("F", -1); fah = over_a("F", 1)
				bf = less("B", "F", 0); bfl = less("B", "F", -1); bfh = less("B", "F", 1)
				printf "  F - A, the mechanism with empty handlers:          %7.0f  [%7.0f, %7.0f]\n", fa, fal, fah
				printf "  B - F, kvmchurn'\''s handlers less the empty ones:   %7.0f  [%7.0f, %7.0f]\n", bf, bfl, bfh
				printf "  (B - F) / (F - A):                                 %7.3f  [%7.3f, %7.3f]  goal <= %s: %s\n", bf / fa, bfl / fah, bfh / fal, goal_share, (bfh / fal <= goal_share ? "met" : bfl / fah > goal_share ? "NOT met" : "not resolved")
				mb = cl["B", "mechanism"] + cl["B", "nosym"]
				printf "  the mechanism in B against F (the same probes):    %7.0f against %.0f\n", per("B", mb) - per("A", ma), per("F", mf) - per("A", ma)
				printf "  A'\''s samples in those frames (what an exit runs there without probes): %d\n", ma
				if (t["W"]) {
					# the same with VMs alive: W - A against F - A, V - W against B - F
					wa = over_a("W", 0); wal = over_a("W", -1); wah = over_a("W", 1)
					printf "  W - A, the mechanism with %s alive:              %7.0f  [%7.0f, %7.0f]  against F - A %.0f\n", substr(alive, 1, index(alive, " ") - 1), wa, wal, wah, fa
					if (t["V"]) {
						vw = less("V", "W", 0); vwl = less("V", "W", -1); vwh = less("V", "W", 1)
						printf "  V - W, kvmchurn'\''s handlers with them alive:        %7.0f  [%7.0f, %7.0f]  against B - F %.0f\n", vw, vwl, vwh, bf
						printf "  (V - W) / (W - A):                                 %7.3f  [%7.3f, %7.3f]\n", vw / wa, vwl / wah, vwh / wal
					}
				}
			}
			if (t["V"] && t["B"]) {
				v = per("V", cl["V", "handler"]); b = per("B", cl["B", "handler"])
				printf "  handlers with %s alive / none alive:  %.3f  [%.3f, %.3f]  goal <= %s (must not grow): %s\n", substr(alive, 1, index(alive, " ") - 1), v / b,
					lo("V", cl["V", "handler"]) / hi("B", cl["B", "handler"]), hi("V", cl["V", "handler"]) / lo("B", cl["B", "handler"]),
					goal_growth, (hi("V", cl["V", "handler"]) / lo("B", cl["B", "handler"]) <= goal_growth ? "met" : lo("V", cl["V", "handler"]) / hi("B", cl["B", "handler"]) > goal_growth ? "NOT met" : "not resolved")
			}
			printf "  where B'\''s handler and mechanism samples start (first matching frame):\n"
			for (k in by) {
				split(k, p, SUBSEP)
				if (p[1] == "B" && by[k] * 100 >= cl["B", p[2]]) printf "    %-9s %6d  %6.0f an exit  %s\n", p[2], by[k], per("B", by[k]), p[3] | "sort -k2,2nr"
			}
			close("sort -k2,2nr")
		}'
	# the first 25, read to the end: head would leave sort a broken pipe, fatal under pipefail
	echo "  symbols B gains most in over A (the sampled instruction's), instructions an exit:"
	tr -d '\r' <"$1" | awk "$prog"'
		END { for (f in syms) if (per("B", s["B", f]) > per("A", s["A", f])) print per("B", s["B", f]) - per("A", s["A", f]), s["A", f] + 0, s["B", f] + 0, f }' |
		sort -k1,1nr | awk 'NR <= 25 { printf "  %+8.0f  (samples: A %d, B %d)  %s\n", $1, $2, $3, $4 }'
}

main() {
	local list ids id work rc=0 ok
	list=$(kc_ids "${@:-x86_64-6.1 arm64-6.1}")
	mapfile -t ids <<<"$list"
	kc_lock
	"$KC_LIB/fetch.sh" "${ids[@]}"
	kc_apt_setup
	for id in "${ids[@]}"; do
		kc_load_env "$id"
		kc_spec "$id"
		ok=1 work=$KVMCHURN_CACHE/bench/profile-$id
		rm -rf "$work"
		mkdir -p "$work/bin"
		kc_perf_root "$KC_DEBARCH" "$KVMCHURN_CACHE/bench/perf/$KC_DEBARCH" ||
			kc_die "$id: could not get Debian's perf for $KC_DEBARCH"
		kc_perf_guest "$KVMCHURN_CACHE/bench/perf/$KC_DEBARCH/root" "$work/perf"
		kc_guest_cc "$work/bin/forkexit" "$KC_TOP/tests/bench/forkexit.c"
		cp "$KC_TOP/tests/bench/configs.sh" "$work/"
		printf "PROFILE_EXITS=%s\nPROFILE_PERIOD=%s\nPROFILE_ROUNDS=%s\nPROFILE_ALIVE=%s\nPROFILE_ALIVE_EXITS=%s\nPROFILE_MECH='%s'\n" \
			"$PROFILE_EXITS" "$PROFILE_PERIOD" "$PROFILE_ROUNDS" "$PROFILE_ALIVE" "$PROFILE_ALIVE_EXITS" "$PROFILE_MECH" >"$work/bench.conf"
		"$KC_LIB/boot.sh" --scenarios "$KC_TOP/tests/bench/profile" --guest-dir "$work" --icount 0 \
			--mem "$PROFILE_MEM" --silence 3600 --timeout 7200 --no-verdict "$id" >"$work/verdict" || ok=0
		grep -v ' passed, ' "$work/verdict" || true
		# a boot that failed has its FAIL line (above: why), and no report
		((ok)) || { rc=1; continue; }
		echo "$id $KC_KREL, $(date -u +%Y-%m-%d): perf samples every $PROFILE_PERIOD instructions, $PROFILE_EXITS exits, A F B $PROFILE_ROUNDS times, V and W with $PROFILE_ALIVE VMs alive over $PROFILE_ALIVE_EXITS exits"
		kc_profile_report "$(kc_verdict_log "$work/verdict" "$id")"
	done
	return "$rc"
}

main "$@"

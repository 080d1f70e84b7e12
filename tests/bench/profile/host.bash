# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2154 # opt, WORK, GUEST, KC_BENCH: bench.sh's, which sources this
# profile/host.bash: make bench-profile (bench.sh profile), the host's half; sourced by
# bench.sh. Where the cost that make bench measures on unmatched exits goes, split by
# call chain into what the kernel's probe mechanism costs and what kvmchurn's handlers
# cost. Each kernel boots under QEMU's icount (as make bench does), and Debian's perf of
# that release samples the guest's kernel on cpu-clock with call chains, every --period
# instructions (10007 by default: a prime, so that no loop of an exit beats with it;
# cpu-clock takes 10000 at the least), while forkexit runs --exits fork + exit + waitpid
# in A (nothing loaded), F (the floor), B (kvmchurn, filter=firecracker), --rounds times
# each, then in V (B with --alive traced VMs alive; 0: no V) and W (F with the same VMs
# alive), --alive-exits each (--exits by default; with fewer than B's, V against B was
# not settled) (60-profile.sh). The report (report.awk): each class's instructions an
# exit with the interval its sample count gives, (B - F) / (F - A) from them, V against
# B and W against F (the handlers and the mechanism with VMs alive), and the symbols B
# adds most samples in. perf and the shared libraries it needs come from the package
# archive (the private apt of the vm tier, bookworm), unpacked under
# $KVMCHURN_CACHE/bench/perf/<arch>.

# kc_bench_profile ID...: make bench-profile on each kernel; a boot that failed has its
# FAIL line (why) and no report
kc_bench_profile() {
	local id rc=0 perf
	kc_apt_setup
	for id; do
		kc_load_env "$id"
		kc_spec "$id"
		kc_bench_work profile "$id"
		perf=$KVMCHURN_CACHE/bench/perf/$KC_DEBARCH
		kc_perf_root "$KC_DEBARCH" "$perf" || kc_die "$id: could not get Debian's perf for $KC_DEBARCH"
		kc_perf_guest "$perf/root" "$GUEST/perf"
		kc_guest_cc "$GUEST/bin/forkexit" "$KC_BENCH/forkexit.c"
		cp "$KC_BENCH/configs.sh" "$GUEST/"
		kc_bench_conf "$GUEST" PROFILE exits period rounds alive alive-exits
		printf "PROFILE_MECH='%s'\n" "$KC_BENCH_MECH" >>"$GUEST/bench.conf"
		kc_bench_boot "$WORK/verdict" --guest-dir "$GUEST" --silence 3600 --timeout 7200 "$id" || { rc=1 && continue; }
		echo "$id $KC_KREL, $(date -u +%Y-%m-%d): perf samples every ${opt[period]} instructions, ${opt[exits]} exits, A F B ${opt[rounds]} times, V and W with ${opt[alive]} VMs alive over ${opt[alive-exits]} exits"
		tr -d '\r' <"$(kc_verdict_log "$WORK/verdict" "$id")" | awk -f "$KC_BENCH/goals.awk" -f "$KC_BENCH/profile/report.awk"
	done
	return "$rc"
}

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

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# profile.sh [ID...]: make bench-profile, where the cost that make bench measures on
# unmatched exits goes. Each kernel (default x86_64-6.1 and arm64-6.1) boots under
# QEMU's icount (as make bench does), and Debian's perf of that release samples the
# guest on cpu-clock, every PROFILE_PERIOD instructions, while forkexit runs
# PROFILE_EXITS fork + exit + waitpid without the module (A) and with it
# (B, filter=firecracker), twice each (profile/60-profile.sh). Printed: the symbols
# whose samples B adds, with the instructions that makes per exit.
# perf and the shared libraries it needs come from the package archive (the private
# apt of the vm tier, bookworm), unpacked under $KVMCHURN_CACHE/bench/perf/<arch>.
# Knobs: PROFILE_EXITS (5000), PROFILE_PERIOD (10000).
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=../vm/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../vm/lib.sh"

PROFILE_EXITS=${PROFILE_EXITS:-5000}
PROFILE_PERIOD=${PROFILE_PERIOD:-10000}

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

# kc_profile_report LOG: the totals, then the symbols B gained most samples in.
kc_profile_report() {
	local prog='$1 == "#" && $2 == "profile" && $4 ~ /^[0-9]+$/ { s[$3, $5] += $4; t[$3] += $4; sym[$5] = 1 }'
	tr -d '\r' <"$1" | awk -v period="$PROFILE_PERIOD" -v exits="$PROFILE_EXITS" "$prog"'
		END { printf "  samples: A %d, B %d (two runs each): B adds %.0f instructions an exit\n",
			t["A"], t["B"], (t["B"] - t["A"]) * period / exits / 2 }'
	tr -d '\r' <"$1" | awk "$prog"'
		END { for (f in sym) if (s["B", f] > s["A", f]) print s["B", f] - s["A", f], s["A", f], s["B", f], f }' |
		sort -k1,1nr | head -n 25 | awk -v period="$PROFILE_PERIOD" -v exits="$PROFILE_EXITS" '
		{ printf "  %+6d samples (A %d, B %d)  %5.0f instructions an exit  %s\n", $1, $2, $3, $1 * period / exits / 2, $4 }'
}

main() {
	local list ids id work
	list=$(kc_ids "${@:-x86_64-6.1 arm64-6.1}")
	mapfile -t ids <<<"$list"
	kc_lock
	"$KC_VM_DIR/fetch.sh" "${ids[@]}"
	kc_apt_setup
	export KVMCHURN_ICOUNT=0
	for id in "${ids[@]}"; do
		kc_load_env "$id"
		kc_spec "$id"
		work=$KVMCHURN_CACHE/bench/profile-$id
		rm -rf "$work"
		mkdir -p "$work/bin"
		kc_perf_root "$KC_DEBARCH" "$KVMCHURN_CACHE/bench/perf/$KC_DEBARCH" ||
			kc_die "$id: could not get Debian's perf for $KC_DEBARCH"
		kc_perf_guest "$KVMCHURN_CACHE/bench/perf/$KC_DEBARCH/root" "$work/perf"
		kc_guest_cc "$work/bin/forkexit" "$KC_TOP/tests/bench/forkexit.c"
		printf 'PROFILE_EXITS=%s\nPROFILE_PERIOD=%s\n' "$PROFILE_EXITS" "$PROFILE_PERIOD" >"$work/bench.conf"
		KVMCHURN_SCENARIO_DIR=$KC_TOP/tests/bench/profile KVMCHURN_GUEST_DIR=$work \
			KVMCHURN_VM_SILENCE=${KVMCHURN_VM_SILENCE:-3600} KVMCHURN_VM_TIMEOUT=${KVMCHURN_VM_TIMEOUT:-3600} "$KC_VM_DIR/run.sh" "$id" | grep -v ' passed, ' || true
		echo "$id $KC_KREL: perf samples every $PROFILE_PERIOD instructions, $PROFILE_EXITS exits, A and B twice"
		kc_profile_report "$KVMCHURN_CACHE/logs/$id-latest.log"
	done
}

main "$@"

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The metric table (module/kvmchurn_abi.h), walked as the client prints it
# (`kvmchurn show --list`): every row in every view of the client, read from a
# real capture; every row in the documents that list the metrics; each metric
# name written in one source file only. tests/kunit/render_test.c walks the
# same table through the module's own files.
#
# Options: tests/unit/lib.sh's unit_options (--client).
#
# One TAP line a test (tests/lib/tap.sh), then "table: N passed, N failed".

set -u
export LC_ALL=C
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$here/lib.sh"
suite_setup "$@" || exit 2

capture=$top/tests/fixtures/x86_64-6.12-kill
"$client" show --list >"$tmp/list" 2>"$tmp/err"
rc=$?
want_rc 0
want_same err empty
# name, group, unit, map, span, probes, origin: seven fields, none empty
want_eq "rows of seven fields" "" "$(awk -F '\t' 'NF != 7 || $1 == "" || $5 == "" || $6 == "" || ($7 != "seed" && $7 != "added")' "$tmp/list")"
# the seed's 13 histograms, and kvmchurn's additions (printed after them in `all`)
want_eq "added metrics" "kvm_mmu_teardown vcpu_create first_run_setup uevent_create uevent_destroy mmu_notifier_unregister exit_to_reaped startup st_create st_first_run st_vcpus st_ioctls st_user st_kernel st_runq st_blocked st_other teardown td_destroy td_release td_task_work td_exit_mmap td_exit_files td_threads reap_wait rcu_free td_wake td_runq td_other" \
	"$(awk -F '\t' '$7 == "added" { printf "%s%s", n++ ? " " : "", $1 }' "$tmp/list")"
want_eq "the seed's metrics" 13 "$(awk -F '\t' '$7 == "seed"' "$tmp/list" | wc -l)"
# the module that made the capture had the same table: a hist record a row
want_eq "rows" "$(cut -f2 < <(grep '^hist	' "$capture/raw") | tr '\n' ' ')" "$(cut -f1 "$tmp/list" | tr '\n' ' ')"
finish "show --list: the table, one row a metric, as the capture's module had it"

mapfile -t names < <(cut -f1 "$tmp/list")
mapfile -t groups < <(cut -f2 "$tmp/list")
mapfile -t maps < <(cut -f4 "$tmp/list")
mapfile -t probes < <(cut -f6 "$tmp/list")

# view NAME ARGS...: `kvmchurn -d CAPTURE ARGS` into $tmp/NAME
view() {
	local name=$1

	shift
	"$client" -d "$capture" "$@" >"$tmp/$name" 2>"$tmp/err.$name" ||
		problems+=("kvmchurn $*: exit status $?")
}
view show show
view show-json show --json
view summary summary
view summary-json summary --json
view dump dump
view dump-json dump --json
view export export
view probes probes
view probes-json probes --json
view watch watch -i 0.1 -c 1
view vms vms
view vms-json vms --json
finish "every view runs on $(basename "$capture")"

for i in "${!names[@]}"; do
	m=${names[i]} map=${maps[i]}
	has_line "$tmp/show" "^${map//[][]/\\&}: " || problems+=("show: no $map")
	grep -qF "\"name\":\"$m\",\"map\":\"$map\",\"group\":\"${groups[i]}\"" "$tmp/show-json" ||
		problems+=("show --json: no $m in group ${groups[i]}")
	has_line "$tmp/summary" "^$m " || problems+=("summary: no $m")
	grep -qF "\"name\":\"$m\"" "$tmp/summary-json" || problems+=("summary --json: no $m")
	has_line "$tmp/dump" "^metric	$m	" || problems+=("dump: no $m")
	grep -qF "\"name\":\"$m\"" "$tmp/dump-json" || problems+=("dump --json: no $m")
	grep -qF "metric=\"$m\"" "$tmp/export" || problems+=("export: no $m")
	own=0
	for p in ${probes[i]}; do	# kind:symbol@home, candidates joined by '|'; on:METRIC
		if [[ $p == on:* ]]; then
			[[ " ${names[*]} " == *" ${p#on:} "* ]] || problems+=("show --list: $m rests on ${p#on:}, not a metric")
			continue
		fi
		own=1
		syms=${p#*:} syms=${syms%@*}
		has_line "$tmp/probes" "^$m +${p%%:*} +($syms) " || problems+=("probes: no ${p%%:*} of $m on one of $syms")
	done
	((own == 0)) || grep -qF "\"metric\":\"$m\"" "$tmp/probes-json" || problems+=("probes --json: no $m")
	has_line "$tmp/watch" "^$m " || problems+=("watch: no $m")
	grep -qF "\"$m\":" "$tmp/vms-json" || problems+=("vms --json: no $m")
	"$client" -d "$capture" show "$m" >"$tmp/one" 2>&1 || problems+=("show $m: exit status $?")
	has_line "$tmp/one" "^${map//[][]/\\&}: " || problems+=("show $m: no $map")
done
finish "every row in every view"

# ---- the documents ---------------------------------------------------------

# shellcheck disable=SC2016 # the backquotes are reStructuredText's
abi=$(awk '/^The metrics, in the seed script.s reading order:/ { on = 1 } on { print } /The counters:/ { exit }' \
	"$top/Documentation/ABI.rst" | sed 's/The counters:.*//' | grep -o '``[a-z0-9_]*``' | tr -d '`' | tr '\n' ' ')
want_eq "Documentation/ABI.rst's list" "${names[*]} " "$abi"
finish "ABI.rst lists the metrics in the table's order"

for i in "${!names[@]}"; do
	m=${names[i]}
	grep '^``' "$top/Documentation/kvmchurn.rst" | grep -F "\`\`$m\`\`" | grep -qF "\`\`@us_${maps[i]#@us_}\`\`" ||
		problems+=("kvmchurn.rst: no section \`\`$m\`\` (\`\`${maps[i]}\`\`)")
	case ${groups[i]} in
	create) row='create path' ;;
	exit) row='exit path' ;;
	*) row=${groups[i]} ;;
	esac
	grep "^| $row |" "$top/README.md" | grep -qE "[ ,]${m}[ ,(]" ||
		problems+=("README.md: $m not in the $row row")
done
finish "kvmchurn.rst has a section and README.md a row for each metric"

# ---- each name in one source file ------------------------------------------

for m in "${names[@]}"; do
	files=$(cd "$top" && grep -lE "(^|[^\\])\"$m\"" module/*.[ch] userspace/*.[ch] userspace/*/*.[ch] \
		completion/kvmchurn.bash | tr '\n' ' ')
	want_eq "the files that write \"$m\"" "module/kvmchurn_abi.h " "$files"
done
finish "each metric's name is a string in module/kvmchurn_abi.h only"

done_suite table

# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# shellcheck disable=SC2154 # here, client, tmp, expected, rc: run.sh's
#
# Sourced by run.sh: the commands that read and write the module's files, run
# against the fixture folders of tests/fixtures (-d):
#   ID-kill/      the module's files as the VM tier handed them back (40 VMs,
#                 SIGKILL); refreshed by tests/fixtures/refresh.sh
#   hand/NAME/    made by hand for what real captures lack: known
#                 distributions, an empty module, absent probes, bad raw files
# Against a capture the client must agree byte for byte with the module's own
# files (all, hist/*, summary, checks, counters, filter); its other outputs
# are compared with expected/fixtures/ID/*, which run.sh --regen rewrites
# after a refresh. Outputs of hand fixtures are in expected/hand/, written and
# checked by hand, never rewritten.

fixtures=$(cd "$here/../fixtures" && pwd)
hand=$fixtures/hand
regen=$opt_regen

# in_fixtures ARGS...: the client run from tests/fixtures, so that paths in
# its messages are the relative ones given.
in_fixtures() {
	(cd "$fixtures" && "$client" "$@") >"$tmp/out" 2>"$tmp/err"
	rc=$?
}

# golden ID NAME ARGS...: `kvmchurn -d ID ARGS` must print
# expected/fixtures/ID/NAME; with --regen that file is written.
golden() {
	local id=$1 name=$2 want

	shift 2
	want=$expected/fixtures/$id/$name
	run -d "$fixtures/$id" "$@"
	want_rc 0
	want_same err empty
	if [ -n "$regen" ]; then
		mkdir -p "$(dirname "$want")"
		cp "$tmp/out" "$want"
	elif [ -f "$want" ]; then
		want_same out "$want"
	else
		problems+=("${want#"$here"/} is missing: run tests/fixtures/refresh.sh or $0 --regen")
	fi
	finish "$id: $name"
}

# plot_golden NAME ARGS...: kvmchurn ARGS, with -o after plot, run in tests/fixtures
# (the header names the folders as given: relative, the same in every checkout), writes
# expected/NAME, byte for byte.
plot_golden() {
	local name=$1 a args=()
	shift
	for a; do
		args+=("$a")
		[[ $a == plot ]] && args+=(-o "$tmp/plot.svg")
	done
	(cd "$fixtures" && "$client" "${args[@]}") >"$tmp/out" 2>"$tmp/err"
	rc=$?
	want_rc 0
	want_same out empty
	want_same err empty
	if [ -n "$regen" ]; then
		mkdir -p "$(dirname "$expected/$name")"
		cp "$tmp/plot.svg" "$expected/$name"
	else
		want_same plot.svg "$expected/$name"
	fi
	finish "plot: $name"
}

# ---- every reading command against each capture ----------------------------

for dir in "$fixtures"/*-kill; do
	[ -f "$dir/raw" ] || continue
	id=$(basename "$dir")

	run -d "$dir" show --bpftrace
	want_rc 0
	want_same err empty
	want_same out "$dir/all"
	finish "$id: show --bpftrace is the module's all"

	for f in "$dir"/hist/*; do
		m=$(basename "$f")
		run -d "$dir" show "$m"
		want_rc 0
		if [ -s "$f" ]; then
			want_same out "$f"
		else
			grep -q '^@us_[a-z0-9_[]*]*: (no data' "$tmp/out" ||
				problems+=("empty $m: $(head -c 200 "$tmp/out")")
		fi
	done
	finish "$id: show METRIC is the module's hist/METRIC"

	run -d "$dir" summary
	want_rc 0
	want_same out "$dir/summary"
	finish "$id: summary is the module's summary"

	run -d "$dir" check
	if grep -q '^WARN' "$dir/checks"; then want_rc 1; else want_rc 0; fi
	want_same out "$dir/checks"
	finish "$id: check is the module's checks"

	run -d "$dir" dump
	want_rc 0
	awk -F '\t' '$1 == "counter" { print $2, $3 }' "$tmp/out" >"$tmp/counters"
	cmp -s "$tmp/counters" "$dir/counters" || problems+=("dump's counters differ from the module's")
	# Counts: the raw file's, the dump's, and the sums of show's buckets.
	awk -F '\t' '$1 == "hist" { print $2, $3 }' "$dir/raw" >"$tmp/raw-counts"
	awk -F '\t' '$1 == "metric" { print $2, $3 }' "$tmp/out" >"$tmp/dump-counts"
	cmp -s "$tmp/raw-counts" "$tmp/dump-counts" || problems+=("dump's counts are not the raw file's")
	"$client" -d "$dir" show --json | "$python" -c '
import json, sys
for m in json.load(sys.stdin)["metrics"]:
    print(m["name"], sum(b["count"] for b in m["buckets"]))' >"$tmp/bucket-counts"
	cmp -s "$tmp/raw-counts" "$tmp/bucket-counts" ||
		problems+=("show's buckets do not add up to the counts" "$(diff "$tmp/raw-counts" "$tmp/bucket-counts")")
	finish "$id: dump's counters and counts are the module's"

	run -d "$dir" filter
	want_rc 0
	want_same out "$dir/filter"
	finish "$id: filter is the module's filter"

	for args in "show --json" "show --fine --json" "show --unit ms --json" "summary --json" \
		"check --json" "probes --json" "dump --json" "filter --json"; do
		# shellcheck disable=SC2086 # the command and its options
		run -d "$dir" $args
		json_ok
	done
	finish "$id: every --json parses as JSON"

	golden "$id" show show
	golden "$id" show-fine show --fine
	golden "$id" show-ms show --unit ms
	golden "$id" summary summary
	golden "$id" probes probes
	golden "$id" dump dump
	golden "$id" export export
	if [ -f "$dir/vms" ]; then
		golden "$id" vms vms
		golden "$id" vms-slowest vms --slowest -n 5
		golden "$id" vms-json vms --json -n 3
		json_ok
		plot_golden "fixtures/$id/plot.svg" -d "$id" plot -n 3
		golden "$id" vms-trace.json vms --trace-event -n 3
		json_ok
	fi

	for cmd in show summary check probes dump filter; do
		run -d "$dir" "$cmd" --json
		[ "$rc" -le 1 ] || problems+=("$cmd --json: exit status $rc")
		json_ok
	done
	finish "$id: --json of every reading command parses"

	run -d "$dir" export --prometheus
	want_rc 0
	prom_ok "$tmp/out"
	finish "$id: export is Prometheus' text format"
done

# Every fixture's export, the hand-made ones too where the client reads them (the
# others are refused with exit 2 and a message, tested below): promtool and
# promcheck.py take them.
for dir in "$fixtures"/*/ "$hand"/*/; do
	[ -f "$dir/raw" ] || continue
	run -d "$dir" export --prometheus
	case $rc in
	0)
		nprob=${#problems[@]}
		prom_ok "$tmp/out"
		[ ${#problems[@]} -eq "$nprob" ] || problems+=("(the export of ${dir#"$fixtures"/})")
		;;
	2) grep -q '^kvmchurn export: ' "$tmp/err" || problems+=("${dir#"$fixtures"/}: exit 2 without a message") ;;
	*) problems+=("${dir#"$fixtures"/}: exit status $rc") ;;
	esac
done
finish "export of every fixture is Prometheus' text format (promtool check metrics)"

# The Prometheus checker itself must reject what is wrong (promtool takes both: it
# does not check that a histogram adds up).
if [ -n "$python" ]; then
	"$client" -d "$hand/known" export |
		sed 's/^\(kvmchurn_duration_seconds_bucket{metric="exit_mmap",le="+Inf"}\) 100$/\1 99/' >"$tmp/bad.prom"
	"$python" "$here/promcheck.py" "$tmp/bad.prom" >/dev/null && problems+=("promcheck.py took a wrong +Inf bucket")
	printf '# TYPE a counter\na{x="1} 3\n' >"$tmp/bad.prom"
	"$python" "$here/promcheck.py" "$tmp/bad.prom" >/dev/null && problems+=("promcheck.py took a bad label")
	finish "promcheck.py rejects broken files"
fi

# ---- known distributions (hand/known), answers worked out by hand ------------

# p50 of 1..100 is 50, p90 90, p99 106 in its sub-bucket, clamped to max 100;
# one value 1000 is 960, the middle of [896, 1024); ten 0s are 0; one U64_MAX
# is the middle of the last slot, 7<<61 + (2^61 - 1) / 2.
run -d "$hand/known" summary
want_rc 0
want_same out "$hand/known/summary"
finish "known: summary"

run -d "$hand/known" show --bpftrace
want_same out "$hand/known/all"
finish "known: show --bpftrace is bpftrace's text, written by hand"

run -d "$hand/known" show exit_mmap irqbypass_unregister
want_same out "$expected/hand/known-show-two.out"
finish "known: show METRIC METRIC"

run -d "$hand/known" show --fine exit_mmap
want_same out "$expected/hand/known-show-fine.out"
finish "known: show --fine, labelled as bpftrace's hist(n, 2)"

# 5 and 6 us are 5000 and 6000 ns, both in [4K, 8K); 1000 us, in
# [896, 1024), is moved at 960 us: 0 ms.
run -d "$hand/known" show --unit ns irqbypass_unregister
want_same out "$expected/hand/known-show-ns.out"
finish "known: show --unit ns"
run -d "$hand/known" show --unit ms kvm_create_vm
want_same out "$expected/hand/known-show-ms.out"
finish "known: show --unit ms"

run -d "$hand/known" show
want_rc 0
want_same out "$expected/hand/known-show.out"
finish "known: show, grouped with titles"

run -d "$hand/known" show --json exit_mmap
want_rc 0
want_same out "$expected/hand/known-show.json"
json_ok
finish "known: show --json"

for args in "summary --json" "dump" "dump --json" "probes" "check --json" "export"; do
	name=known-${args// /}
	# shellcheck disable=SC2086 # the command and its option
	run -d "$hand/known" $args
	want_rc 0
	want_same out "$expected/hand/$name.out"
	finish "known: $args"
done

run -d "$hand/known" check
want_rc 0
want_same out "$hand/known/checks"
finish "known: check"

# The irqfd range is Firecracker's: judged for the filter firecracker alone, told
# as INFO for another VMM, a list with one, or "*" (kvmchurn_rules.h, as the module)
mkdir -p "$tmp/vmm"
for f in qemu-system-x86 'firecracker qemu-system-x86' '*' firecrackers; do
	awk -F '\t' -v f="$f" 'BEGIN { OFS = FS } $1 == "filter" { $2 = f } { print }' "$hand/known/raw" >"$tmp/vmm/raw"
	run -d "$tmp/vmm" check
	want_rc 0
	sed "s/^OK   \(irqbypass unregister per VM in 8-11: 10 for 1 VMs\)\$/INFO \1: not judged, the range is firecracker's and the filter traces another VMM/" \
		"$hand/known/checks" >"$tmp/want"
	want_same out "$tmp/want"
	finish "known, filter '$f': check tells the irqfds per VM, does not judge them"
done

# ---- an empty module ---------------------------------------------------------

run -d "$hand/empty" show --bpftrace
want_rc 0
printf '@n_exit: 0\n@n_reap: 0\n@n_sigkill: 0\n@n_sigterm: 0\n' >"$tmp/want"
want_same out "$tmp/want"
finish "empty: show --bpftrace prints the counters without a key at 0, as bpftrace and the module's all"

run -d "$hand/empty" show
want_rc 0
want_same out "$expected/hand/empty-show.out"
finish "empty: show says no data"

run -d "$hand/empty" summary
want_rc 0
want_same out "$hand/empty/summary"
finish "empty: summary"

run -d "$hand/empty" check
want_rc 0
want_same out "$hand/empty/checks"
finish "empty: check"

run -d "$hand/empty" export
want_rc 0
prom_ok "$tmp/out"
grep -q '^kvmchurn_duration_seconds_count{metric="exit_mmap"} 0$' "$tmp/out" ||
	problems+=("no zero count for exit_mmap")
finish "empty: export"

# ---- probes absent, waiting, failed; misses, drops --------------------------

run -d "$hand/absent" summary
want_rc 0
want_same out "$expected/hand/absent-summary.out"
finish "absent: summary names why a metric cannot count"

run -d "$hand/absent" check
want_rc 1
want_same out "$expected/hand/absent-check.out"
finish "absent: check warns, exit status 1"

run -d "$hand/absent" check --json
want_rc 1
want_same out "$expected/hand/absent-check.json"
json_ok
finish "absent: check --json"

run -d "$hand/absent" probes
want_rc 0
want_same out "$expected/hand/absent-probes.out"
finish "absent: probes"

run -d "$hand/absent" show kvm_create_vm exit_files stage2_destroy exit_mmap
want_rc 0
want_same out "$expected/hand/absent-show.out"
finish "absent: show says why there is no data"

run -d "$hand/absent" filter --json
want_rc 0
printf '{"filter":["firecracker","qemu-system-x86"]}\n' >"$tmp/want"
want_same out "$tmp/want"
finish "absent: filter --json"

run -d "$hand/absent" dump
want_rc 0
want_same out "$expected/hand/absent-dump.out"
finish "absent: dump"

# ---- the vms file (hand/vms: three VMs, two of them among the slowest) ----

run -d "$hand/vms" vms
want_rc 0
want_same err empty
want_same out "$expected/hand/vms.out"
finish "vms: the last VMs, oldest first, the largest stage of each marked"

run -d "$hand/vms" vms -n 2
want_rc 0
want_same out "$expected/hand/vms-n2.out"
finish "vms -n 2: the two newest"

run -d "$hand/vms" vms --slowest
want_rc 0
want_same out "$expected/hand/vms-slowest.out"
finish "vms --slowest: slowest first, the stages none has left out"

run -d "$hand/vms" vms --slowest -n 1 --json
want_rc 0
want_same out "$expected/hand/vms-slowest.json"
json_ok
finish "vms --slowest -n 1 --json: every metric, null when it did not happen"

run -d "$hand/known" vms
want_rc 2
want_same out empty
printf 'kvmchurn vms: there is no %s/vms: the module loaded is older than this client: load the kvmchurn.ko of the same version\n' "$hand/known" >"$tmp/want"
want_same err "$tmp/want"
finish "vms: a folder without vms (an older module)"

# ---- teardowns partitioned (hand/vms-td: a killed process of two VMs, one
# without a partition, one that exited and was autoreaped) ----

run -d "$hand/vms-td" vms
want_rc 0
want_same err empty
want_same out "$expected/hand/vms-td.out"
finish "vms: the parts as columns, the stages they cover left out, acc and its p50, p10, min"

run -d "$hand/vms-td" vms --stages
want_rc 0
want_same out "$expected/hand/vms-td-stages.out"
finish "vms --stages: every stage a column"

run -d "$hand/vms-td" vms 2001
want_rc 0
want_same err empty
want_same out "$expected/hand/vms-td-2001.out"
finish "vms PID: each VM of the process part by part, before and after the exit, the largest marked"

run -d "$hand/vms-td" vms 2007
want_rc 0
want_grep out '^accounted 80\.0 %; parent not notified \(SIGCHLD ignored, or no parent\), reaped at \+39000 us$'
want_grep out '^td_exit_mmap  *\+10000  *0  *20000  *20000  *40\.0 % \*$'
finish "vms PID: no notification said as such, the largest part marked"

run -d "$hand/vms-td" vms 2005
want_rc 0
want_grep out '^its teardown was not partitioned'
finish "vms PID of a VM without a partition: said so"

run -d "$hand/vms-td" vms --json 2001
want_rc 0
json_ok
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
vms = d["vms"]
assert [v["tgid"] for v in vms] == [2001, 2001], vms
for v in vms:
    t = v["teardown"]
    assert sum(p["duration"] for p in t["parts"]) == t["window"] == 98000, t
    assert t["window"] == v["stages"]["signal_to_exit"]["sum"] + v["stages"]["exit_to_reap"]["sum"]
    assert sum(p["before_exit"] for p in t["parts"]) == v["stages"]["signal_to_exit"]["sum"]
    assert t["notified"] == 78900 and t["reaped"] == 80200 and t["destroyed_by"] == "vm"
    assert t["accounted_permille"] == 986 and v["largest"] == "td_destroy"
    assert {p["part"]: p["start"] for p in t["parts"]}["td_runq"] == 500
' "$tmp/out" || problems+=("vms --json 2001: the parts do not add up as the file says")
finish "vms --json PID: its VMs only, each part's start and duration summing to the window"

run -d "$hand/vms-td" vms --json -n 2
want_rc 0
json_ok
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert [v["teardown"] and v["teardown"]["window"] for v in d["vms"]] == [None, 50000], d
assert d["vms"][1]["teardown"]["notified"] is None and d["vms"][1]["teardown"]["destroyed_by"] == "vcpu"
' "$tmp/out" || problems+=("vms --json -n 2: teardown null without a partition, notified null when not seen")
finish "vms --json: teardown null without a partition"

run -d "$hand/vms-td" vms 4242
want_rc 1
want_same out empty
printf 'kvmchurn vms: no finished VM of pid 4242 among the last ones in %s/vms\n' "$hand/vms-td" >"$tmp/want"
want_same err "$tmp/want"
finish "vms PID that finished no VM: exit 1, said so"

# ---- start-ups partitioned (hand/vms-st: a process that ran its VM and one
# killed before it did, both torn down) ----

run -d "$hand/vms-st" vms
want_rc 0
want_same err empty
want_same out "$expected/hand/vms-st.out"
finish "vms: both windows' parts as columns, the create path's stages left out, st_acc and td_acc"

run -d "$hand/vms-st" vms 3001
want_rc 0
want_same err empty
want_same out "$expected/hand/vms-st-3001.out"
finish "vms PID: the start-up part by part, then the teardown, the largest of each marked"

run -d "$hand/vms-st" vms 3002
want_rc 0
want_grep out '^its start-up was not partitioned \(it never ran, or was made before kvmchurn traced it\)$'
want_grep out '^teardown 98000 us from '
finish "vms PID of a VM that never ran: no start-up, said so, its teardown"

run -d "$hand/vms-st" vms --json
want_rc 0
json_ok
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
a, b = d["vms"]
s = a["startup"]
assert sum(p["duration"] for p in s["parts"]) == s["window"] == a["stages"]["startup"]["sum"] == 50000, s
assert s["accounted_permille"] == 980 and s["largest"] == "st_kernel" and a["largest"] == "td_destroy", s
starts = {p["part"]: p["start"] for p in s["parts"]}
assert starts["st_create"] == 0 and starts["st_first_run"] == 48000, starts
assert b["startup"] is None and b["teardown"]["window"] == 98000, b
' "$tmp/out" || problems+=("vms --json: the start-up parts do not add up as the file says")
finish "vms --json: startup with its parts, start and duration summing to the window; null where it never ran"

# ---- pictures (plot) and Trace Event JSON (vms --trace-event) ----------------
# The SVGs' bytes are fixed by their input (TZ=UTC here): a change of the picture
# is seen in the goldens, and looked at (tests/browser renders them all).

for dir in "$fixtures"/*/ "$hand"/vms/ "$hand"/vms-td/ "$hand"/vms-st/; do
	dir=${dir%/}
	if [[ ! -f $dir/vms ]] || ! grep -q "^vm	last	" "$dir/vms"; then
		continue
	fi
	for args in "" "--slowest -n 2"; do
		# shellcheck disable=SC2086 # the options
		run -d "$dir" vms --trace-event $args
		want_rc 0
		cp "$tmp/out" "$tmp/trace.json"
		# shellcheck disable=SC2086
		run -d "$dir" vms --json $args
		"$python" "$here/tracecheck.py" "$tmp/trace.json" "$tmp/out" >"$tmp/found" ||
			problems+=("vms --trace-event $args:" "$(cat "$tmp/found")")
	done
	finish "${dir#"$fixtures"/}: vms --trace-event is the format's and vms --json's numbers, exactly"
done

plot_golden hand/plot-vms-td.svg -d hand/vms-td plot
plot_golden hand/plot-vms-st.svg -d hand/vms-st plot
plot_golden hand/plot-vms-slowest.svg -d hand/vms plot --slowest
plot_golden hand/plot-hist.svg -d hand/known plot --hist
plot_golden hand/plot-hist-file.svg plot --hist hand/known/raw
plot_golden hand/plot-diff.svg plot --diff hand/diff-a hand/diff-b

run -d "$hand/vms-td" plot -n 1
grep -c '<g class="vm"' "$tmp/out" >"$tmp/rows"
echo 1 >"$tmp/want"
want_same rows "$tmp/want"
grep -q 'data-tgid="2007"' "$tmp/out" || problems+=("plot -n 1 did not draw the newest VM, of pid 2007")
finish "plot -n 1: the newest VM alone"

mkdir -p "$tmp/novms"
sed '/^vm/d;/^td	/d;/^st	/d' "$hand/vms-td/vms" >"$tmp/novms/vms"
(cd "$tmp" && "$client" -d novms plot) >"$tmp/out" 2>"$tmp/err"
rc=$?
want_rc 1
want_same out empty
# shellcheck disable=SC2016 # the backquotes are the message's
echo 'kvmchurn plot: novms/vms: no finished VM to draw (last): run a load, or see `kvmchurn vms`' >"$tmp/want"
want_same err "$tmp/want"
finish "plot: no finished VM: exit 1, said so"

run -d "$hand/vms-td" plot -o "$tmp/no/such/folder/x.svg"
want_rc 2
grep -q "^kvmchurn plot: writing $tmp/no/such/folder/x.svg: " "$tmp/err" || problems+=("no message naming the file: $(cat "$tmp/err")")
finish "plot -o into a folder that does not exist: exit 2, the file named"

run plot --diff -o "$tmp/x.svg" "$hand/diff-a" "$tmp/nothing-here"
want_rc 2
[ -e "$tmp/x.svg" ] && problems+=("a picture written from a snapshot that could not be read")
finish "plot --diff of a snapshot that is not there: exit 2, nothing written"

# A comm is bytes, not text: markup, a control, bytes that are not UTF-8 (a lone
# 0xff, a surrogate, a character cut at 15 bytes) must not make the SVG ill-formed.
mkdir -p "$tmp/comm"
sed '7s/\tfirecracker\t/\tfi<r\&\xff\xc3\xa9\xed\xa0\x80\x01\xf0\x9f\x98\t/' "$hand/vms-td/vms" >"$tmp/comm/vms"
run -d "$tmp/comm" plot -o "$tmp/comm.svg"
want_rc 0
"$python" -c 'import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])' "$tmp/comm.svg" 2>"$tmp/found" ||
	problems+=("not well-formed XML:" "$(tail -n 1 "$tmp/found")")
grep -q '>2001 fi&lt;r&amp;?é???????<' "$tmp/comm.svg" || problems+=("the comm is not as escaped: $(grep -o '>2001 [^<]*<' "$tmp/comm.svg" | head -n 1)")
finish "plot: a comm of markup, controls and bytes that are not UTF-8 is escaped, the SVG well-formed"

# on a terminal that script(1) gives, where there is one (a package build's chroot has
# no /dev/pts)
if command -v script >/dev/null && script -qec true /dev/null >/dev/null 2>&1; then
	script -qec "$client -d $hand/vms-td plot" /dev/null >"$tmp/out" 2>&1
	rc=$?
	want_rc 64
	grep -q "standard output is a terminal" "$tmp/out" || problems+=("a terminal was not refused: $(head -c 300 "$tmp/out")")
	finish "plot to a terminal: refused, -o FILE.svg named"
fi

# bad_vms_of FIXTURE NAME SED-SCRIPT MESSAGE: hand/FIXTURE/vms edited by
# SED-SCRIPT is refused, and says which line and why.
bad_vms_of() {
	mkdir -p "$tmp/badvms"
	sed "$3" "$hand/$1/vms" >"$tmp/badvms/vms"
	(cd "$tmp" && "$client" -d badvms vms) >"$tmp/out" 2>"$tmp/err"
	rc=$?
	want_rc 2
	want_same out empty
	printf 'kvmchurn vms: badvms/vms, line %s: is the module of the same version as the client?\n' "$4" >"$tmp/want"
	want_same err "$tmp/want"
	finish "bad vms ($1): $2"
}
bad_vms_of vms-td no-td-fields '/^td-fields/d' "7: a td record unlike the td-fields record"
bad_vms_of vms-td short-td '8s/\t[^\t]*$//' "8: a td record unlike the td-fields record"
bad_vms_of vms-td part '8s/\t1:500\t/\t1;500\t/' "8: a td record of other than a time, numbers and FIRST:BEFORE parts"
bad_vms_of vms-td notified '8s/\t78901\t/\tx\t/' "8: a td record of other than a time, numbers and FIRST:BEFORE parts"
bad_vms_of vms-td began '8s/\t1764677010.500000000\t/\t1764677010.5\t/' "8: a td record of other than a time, numbers and FIRST:BEFORE parts"
bad_vms_of vms-td began-sign '8s/\t1764677010.500000000\t/\t-1764677010.500000000\t/' "8: a td record of other than a time, numbers and FIRST:BEFORE parts"
bad_vms_of vms-td few-td-fields '6s/\tdestroyed_by.*//' "6: too few fields"
bad_vms_of vms-st no-st-fields '/^st-fields/d' "8: an st record unlike the st-fields record"
bad_vms_of vms-st short-st '9s/\t[^\t]*$//' "9: an st record unlike the st-fields record"
bad_vms_of vms-st st-part '9s/\t48001\t/\t48001x\t/' "9: an st record of other than numbers"

for args in "-n 0" "-n x" "--slowest=1" "extra"; do
	# shellcheck disable=SC2086 # the options
	run -d "$hand/vms" vms $args
	want_rc 64
	want_same out empty
	finish "vms $args: usage error"
done

# bad_vms NAME SED-SCRIPT MESSAGE: hand/vms/vms edited by SED-SCRIPT is refused.
bad_vms() {
	bad_vms_of vms "$@"
}
bad_vms magic '1s/.*/kvmchurn-vms 2/' "1: not a kvmchurn-vms 1 file"
bad_vms no-fields '/^fields/d' "5: a vm record unlike the fields record"
bad_vms short-vm '6s/\t[^\t]*$//' "6: a vm record unlike the fields record"
bad_vms stage '6s/\t1:4001\t/\t1;4001\t/' "6: a stage that is neither - nor COUNT:SUM"
bad_vms zero-count '6s/\t1:4001\t/\t0:4001\t/' "6: a stage that is neither - nor COUNT:SUM"
bad_vms tgid '6s/^vm\tlast\t1187/vm\tlast\tx/' "6: a tgid that is not a number"
bad_vms created '6s/\t\([0-9]*\)\.\([0-9]*\)\t/\t\1,\2\t/' "6: a creation time that is not SECONDS.NANOSECONDS"
bad_vms created-short '6s/\t\([0-9]*\)\.\([0-9]*\)[0-9]\t/\t\1.\2\t/' "6: a creation time that is not SECONDS.NANOSECONDS"
bad_vms created-huge '6s/\t\([0-9]*\)\.\([0-9]*\)\t/\t99999999999999999999.\2\t/' "6: a creation time that is not SECONDS.NANOSECONDS"
bad_vms unit '2s/.*/unit\tfortnights/' "2: a unit other than ns, us and ms"
bad_vms no-vm-fields '/^vm/d;/^fields/d' "4: no fields record"
bad_vms nul '6s/firecracker/fire\x00cracker/' "6: a NUL byte: not a text file"
bad_vms empty-line '3s/.*//' "3: an empty line"
bad_vms unit-twice '2p' "3: a record that comes once, twice"
bad_vms fields-twice '5p' "6: a record that comes once, twice"
bad_vms unit-short '2s/.*/unit/' "2: too few fields"
bad_vms params '3s/\t32\t/\t3x\t/' "3: a params record of other than numbers"
bad_vms params-huge '3s/\t32\t/\t18446744073709551616\t/' "3: a params record of other than numbers"
bad_vms stats '4s/\t3\t/\t-3\t/' "4: a stats record of other than numbers"
bad_vms comm-long '6s/\tfirecracker\t/\tfirecracker-vm-12\t/' "6: a comm empty or longer than 15 bytes"
bad_vms comm-empty '6s/\tfirecracker\t/\t\t/' "6: a comm empty or longer than 15 bytes"
bad_vms sum-huge '6s/\t1:4001\t/\t1:18446744073709551616\t/' "6: a stage that is neither - nor COUNT:SUM"
bad_vms_of vms-td destroyed-by '8s/\tvm\t78901\t/\tvmx\t78901\t/' "8: a td record of other than a time, numbers and FIRST:BEFORE parts"
bad_vms_of vms-td td-twice '8p' "9: a td record not after its vm record"
bad_vms_of vms-st st-twice '9p' "10: an st record not after its vm record"
mkdir -p "$tmp/badvms"
head -c -1 "$hand/vms/vms" >"$tmp/badvms/vms"
(cd "$tmp" && "$client" -d badvms vms) >"$tmp/out" 2>"$tmp/err"
rc=$?
want_rc 2
printf 'kvmchurn vms: badvms/vms, line %s: cut short (no newline at its end): is the module of the same version as the client?\n' "$(wc -l <"$hand/vms/vms")" >"$tmp/want"
want_same err "$tmp/want"
finish "bad vms: cut short, no newline at its end"
# a newer module's record, between a VM's records too, is skipped
sed '5a future\tx\ty' "$hand/vms-td/vms" | sed '8a future-vm\t1' >"$tmp/badvms/vms"
run -d "$tmp/badvms" vms
want_rc 0
want_same out "$expected/hand/vms-td.out"
finish "vms: a newer module's records are skipped"
mkdir -p "$tmp/badvms"
: >"$tmp/badvms/vms"
(cd "$tmp" && "$client" -d badvms vms) >"$tmp/out" 2>"$tmp/err"
rc=$?
want_rc 2
printf 'kvmchurn vms: badvms/vms is empty: not a kvmchurn-vms file\n' >"$tmp/want"
want_same err "$tmp/want"
finish "bad vms: empty"

# ---- reader_fuzz: the readers of files from other hosts under ASan and UBSan --
# Every raw and vms file of the fixtures and each kept finding (tests/unit/fuzz/), as
# they are, then 10000 mutants of them (seeded: the same anywhere), through the raw,
# vms and live readers and what plot and vms --trace-event draw of what they accept.

if [[ ! -x $here/reader_fuzz ]]; then
	problems+=("$here/reader_fuzz not found: make check-unit builds it")
else
	mapfile -t seeds < <(find "$fixtures" "$here/fuzz" -type f \( -name raw -o -name vms -o -path "$here/fuzz/*" \) | sort)
	ASAN_OPTIONS=abort_on_error=1:detect_leaks=1 \
	UBSAN_OPTIONS=halt_on_error=1:abort_on_error=1:print_stacktrace=1 \
		"$here/reader_fuzz" 20261207 10000 "${seeds[@]}" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	want_rc 0
	want_same err empty
	grep -q ': ok$' "$tmp/out" || problems+=("no summary line: $(head -c 300 "$tmp/out")")
	[[ -s $tmp/out ]] && echo "# $(cat "$tmp/out")"
fi
finish "reader_fuzz: ${#seeds[@]} files and their mutants: no crash, no sanitizer report, invariants hold"

# ---- raw files: skipped records, versions, damage ---------------------------

# A newer module's records, metric, counter and field are skipped: the
# output is that of the file without them.
mkdir -p "$tmp/base"
grep -v -e '^latency_budget' -e '^hist	kvm_future_metric' -e '^counter	future_counter' \
	-e '^pairs_by_kind' "$hand/future/raw" | sed 's/	some-future-field$//' >"$tmp/base/raw"
cmp -s "$tmp/base/raw" "$hand/future/raw" && problems+=("hand/future/raw has nothing to skip")
for args in show "show --json" summary check probes dump export; do
	# shellcheck disable=SC2086 # the command and its option
	"$client" -d "$tmp/base" $args >"$tmp/want" 2>&1
	# shellcheck disable=SC2086
	run -d "$hand/future" $args
	want_same out "$tmp/want"
	want_same err empty
done
finish "future records are skipped"

# Each reading command refuses a version it does not know, exit status 2.
for cmd in show summary watch check probes filter dump export snapshot; do
	in_fixtures -d hand/v2 "$cmd"
	want_rc 2
	want_same out empty
	sed -i "s/^kvmchurn $cmd: /kvmchurn show: /" "$tmp/err"
	want_same err "$expected/hand/v2.err"
	finish "raw version 2: $cmd refuses it"
done

in_fixtures diff hand/known hand/v2
want_rc 2
want_same out empty
printf "kvmchurn diff: hand/v2/raw is version 2 of the raw format, and this client reads only version 1: use the kvmchurn client of the module's release\n" >"$tmp/want"
want_same err "$tmp/want"
finish "raw version 2: diff refuses it"

in_fixtures -d hand/truncated show
want_rc 2
want_same out empty
printf 'kvmchurn show: hand/truncated/raw: line 24: cut short (no newline at its end): the file is truncated\n' >"$tmp/want"
want_same err "$tmp/want"
finish "truncated raw"

in_fixtures -d hand/garbled summary
want_rc 2
want_same out empty
printf "kvmchurn summary: hand/garbled/raw: line 11: hist record of exit_mmap: '2;1' is not slot:count\n" >"$tmp/want"
want_same err "$tmp/want"
finish "garbled raw"

# bad NAME SED-SCRIPT MESSAGE: hand/known/raw edited by SED-SCRIPT must be
# refused by `kvmchurn -d bad show` with exactly MESSAGE.
bad() {
	local name=$1

	mkdir -p "$tmp/bad"
	sed "$2" "$hand/known/raw" >"$tmp/bad/raw"
	(cd "$tmp" && "$client" -d bad show) >"$tmp/out" 2>"$tmp/err"
	rc=$?
	want_rc 2
	want_same out empty
	printf 'kvmchurn show: %s\n' "$3" >"$tmp/want"
	want_same err "$tmp/want"
	finish "bad raw: $name"
}
bad first-line '1s/.*/kvmchurn raw 1/' \
	"bad/raw: line 1: not a kvmchurn raw file: the first line is not 'kvmchurn-raw VERSION'"
bad version-not-a-number '1s/.*/kvmchurn-raw 1.1/' \
	"bad/raw: line 1: not a kvmchurn raw file: the first line is not 'kvmchurn-raw VERSION'"
bad count '6s/\t1\t1000\t/\tone\t1000\t/' \
	"bad/raw: line 6: hist record: count 'one' is not a number"
bad negative-sum '6s/\t1000\t1000\t/\t-1000\t1000\t/' \
	"bad/raw: line 6: hist record: sum '-1000' is not a number"
bad overflow '6s/\t1000\t35:1/\t18446744073709551616\t35:1/' \
	"bad/raw: line 6: hist record: max '18446744073709551616' is not a number"
bad slot-past-the-end '6s/35:1/252:1/' \
	"bad/raw: line 6: hist record of kvm_create_vm: slot 252 is past the last one, 251"
bad slot-list-empty-item '6s/35:1/35:1,/' \
	"bad/raw: line 6: hist record of kvm_create_vm: '' is not slot:count"
bad short-hist '6s/\t35:1$//' \
	"bad/raw: line 6: hist record: 4 fields, expected 5"
bad second-hist '6p' \
	"bad/raw: line 7: a second hist record of kvm_create_vm"
bad second-counter '/^counter\tsigkill/p' \
	"bad/raw: line 50: a second counter record of sigkill"
bad counter-value 's/^counter\treap\t1$/counter\treap\t1 /' \
	"bad/raw: line 51: counter record: reap '1 ' is not a number"
bad slots '5s/252/300/' \
	"bad/raw: line 5: histograms of 300 slots: this client knows only 252"
bad unit '2s/us/ms/' \
	"bad/raw: line 2: unit record: unknown unit 'ms' (this client knows us and ns)"
bad no-unit '2d' \
	"bad/raw: no unit record: the file is incomplete"
bad enabled '3s/1/yes/' \
	"bad/raw: line 3: enabled record: 'yes' is not 0 or 1"
bad empty-line '4s/$/\n/' \
	"bad/raw: line 5: empty line"
bad probe-short '/^probe\tkvm_create_vm/s/\t0$//' \
	"bad/raw: line 54: probe record: 5 fields, expected 6"
bad pairs 's/^pairs\t.*/pairs\t4096\t0\t-\t0/' \
	"bad/raw: line 82: pairs record: dropped '-' is not a number"
bad pairs-not-reaped '/^pairs\t/s/$/\tmany/' \
	"bad/raw: line 82: pairs record: not reaped 'many' is not a number"
bad accounted-short '/^accounted\t/s/\t.*//' \
	"bad/raw: line 84: accounted record: 0 fields, expected 1"
bad accounted-item '/^accounted\t/s/995:1/99.5:1/' \
	"bad/raw: line 84: accounted record: '99.5:1' is not per-mille:count"
bad accounted-count '/^accounted\t/s/995:1/995:4294967296/' \
	"bad/raw: line 84: accounted record: '995:4294967296' is not per-mille:count"
bad accounted-above '/^accounted\t/s/995:1/1001:1/' \
	"bad/raw: line 84: accounted record: 1001 is above 1000 per mille"
bad accounted-startup-item '/^accounted-startup\t/s/1000:1/1000:x/' \
	"bad/raw: line 83: accounted-startup record: '1000:x' is not per-mille:count"
bad accounted-startup-short '/^accounted-startup\t/s/\t.*//' \
	"bad/raw: line 83: accounted-startup record: 0 fields, expected 1"
bad empty-file 'd' \
	"bad/raw is empty: not a kvmchurn raw file"

# The pairs record's sixth field, the exits not reaped yet (added within raw
# v1): check counts them as the module's checks does. A raw file without it
# gives only the pairing entries in use, a bound ("up to").
mkdir -p "$tmp/pending"
sed -e 's/^counter\texit\t1$/counter\texit\t3/' -e 's/^pairs\t.*/pairs\t4096\t2\t0\t0\t2/' \
	"$hand/known/raw" >"$tmp/pending/raw"
run -d "$tmp/pending" check --json
want_rc 0
json_ok "$tmp/out"
want_grep out '^\{"status":"ok","checks":\[\{"check":"exit = reap","verdict":"OK","text":"exit 3, reap 1, 2 not reaped yet","values":\{"exit":3,"reap":1,"not_reaped":2\}\}'
finish "pairs' sixth field: check counts the exits not reaped, exactly"
sed -i '/^pairs\t/s/\t2$/\t1/' "$tmp/pending/raw"
run -d "$tmp/pending" check
want_rc 1
want_grep out '^WARN exit = reap: exit 3, reap 1, 1 not reaped yet$'
finish "pairs' sixth field: one exit too many warns, where the bound would not"
sed -i '/^pairs\t/s/\t1$//' "$tmp/pending/raw"
run -d "$tmp/pending" check
want_rc 0
want_grep out '^OK   exit = reap: exit 3, reap 1, up to 2 not reaped yet$'
finish "pairs without the sixth field: the entries in use are the bound"

printf 'kvmchurn-raw 1\nunit\tus\0\n' >"$tmp/bad/raw"
(cd "$tmp" && "$client" -d bad show) >"$tmp/out" 2>"$tmp/err"
rc=$?
want_rc 2
printf 'kvmchurn show: bad/raw: line 2: a NUL byte: not a text file\n' >"$tmp/want"
want_same err "$tmp/want"
finish "bad raw: NUL byte"

# ---- where the files are not: the messages that say what to do ---------------

run -d /nonexistent/kvmchurn summary
want_rc 2
want_same out empty
printf "kvmchurn summary: there is no folder /nonexistent/kvmchurn: -d names the module's folder (default /sys/kernel/debug/kvmchurn, or /proc/kvmchurn without debugfs)\n" >"$tmp/want"
want_same err "$tmp/want"
finish "no such folder"

mkdir -p "$tmp/notmodule"
in_fixtures -d "$tmp/notmodule" show
want_rc 2
printf "kvmchurn show: cannot open %s/notmodule/raw: No such file or directory: %s/notmodule is not the module's folder (default /sys/kernel/debug/kvmchurn, or /proc/kvmchurn without debugfs)\n" "$tmp" "$tmp" >"$tmp/want"
want_same err "$tmp/want"
finish "a folder without a raw file"

# In a mount namespace of its own (skipped where unshare or mount is not
# allowed): debugfs not mounted, with and without the module's parameters (a
# module loaded, too old to have /proc/kvmchurn); mounted without the module;
# and no debugfs but /proc/kvmchurn (a tmpfs on /proc holding a fixture folder
# there), which the client finds by itself.
# ns SETUP ARG...: the client run with ARGs after the shell commands SETUP.
ns() {
	local setup=$1
	shift
	# shellcheck disable=SC2016 # $0 and $@ of the inner sh
	unshare -m sh -c "$setup"' && exec "$0" "$@"' "$client" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
}
nodebugfs='mount -t tmpfs none /sys/kernel/debug'
if [ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null &&
   unshare -m sh -c "$nodebugfs" 2>/dev/null; then
	ns "$nodebugfs" check
	want_rc 2
	printf "kvmchurn check: the kvmchurn module is not loaded (there is no /proc/kvmchurn, and debugfs is not mounted on /sys/kernel/debug): load it with 'modprobe kvmchurn'\n" >"$tmp/want"
	want_same err "$tmp/want"
	finish "debugfs not mounted, no module"

	mkdir -p "$tmp/loaded-params"
	KVMCHURN_PARAMS=$tmp/loaded-params ns "$nodebugfs" check
	want_rc 2
	printf "kvmchurn check: debugfs is not mounted on /sys/kernel/debug, and the module loaded is too old to have /proc/kvmchurn: mount it with 'mount -t debugfs none /sys/kernel/debug'\n" >"$tmp/want"
	want_same err "$tmp/want"
	finish "debugfs not mounted, an older module"

	if unshare -m sh -c 'mount -t debugfs none /sys/kernel/debug && [ ! -e /sys/kernel/debug/kvmchurn ]' 2>/dev/null; then
		ns 'mount -t debugfs none /sys/kernel/debug' show
		want_rc 2
		printf "kvmchurn show: the kvmchurn module is not loaded (there is no /sys/kernel/debug/kvmchurn): load it with 'modprobe kvmchurn'\n" >"$tmp/want"
		want_same err "$tmp/want"
		finish "module not loaded"
	else
		echo "# module-not-loaded test skipped: cannot mount debugfs, or kvmchurn is loaded"
	fi

	# /proc/kvmchurn: every view reads as with -d on the same folder
	k=$fixtures/x86_64-6.12-kill
	procfs="$nodebugfs && mount -t tmpfs none /proc && cp -r $k /proc/kvmchurn"
	procfs+=" && rm /proc/kvmchurn/filter /proc/kvmchurn/enable" # no controls there
	for v in show summary "summary --json" probes check filter vms "vms --json" dump "export --prometheus"; do
		# shellcheck disable=SC2086 # $v: a command and its options
		ns "$procfs" $v
		cp "$tmp/out" "$tmp/out.proc"
		prc=$rc
		# shellcheck disable=SC2086
		in_fixtures -d "$k" $v
		want_eq "exit status as with -d" "$rc" "$prc"
		want_same out "$tmp/out.proc"
		want_grep out .
		finish "no debugfs: kvmchurn $v reads /proc/kvmchurn"
	done
	mkdir -p "$tmp/proc-params"
	printf 'firecracker\n' >"$tmp/proc-params/filter"
	KVMCHURN_PARAMS=$tmp/proc-params ns "$procfs" filter qemu-system-x86
	want_rc 0
	printf 'kvmchurn filter: cannot open /proc/kvmchurn/filter: No such file or directory; wrote %s/proc-params/filter\n' "$tmp" >"$tmp/want"
	want_same err "$tmp/want"
	want_eq "the parameter" qemu-system-x86 "$(cat "$tmp/proc-params/filter")"
	finish "no debugfs: filter writes the parameter"
else
	echo "# debugfs tests skipped: needs root and unshare -m"
fi

# Not root: as nobody, the module's files (0400/0600 root) cannot be opened.
nobody() {
	setpriv --reuid=65534 --regid=65534 --clear-groups "$client" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
}
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null &&
   setpriv --reuid=65534 --regid=65534 --clear-groups true 2>/dev/null; then
	mkdir -p "$tmp/root"
	chmod 755 "$tmp" "$tmp/root"
	cp "$hand/known/raw" "$tmp/root/raw"
	printf '1\n' >"$tmp/root/enable"
	chmod 400 "$tmp/root/raw"
	chmod 600 "$tmp/root/enable"
	nobody -d "$tmp/root" summary
	want_rc 2
	printf "kvmchurn summary: cannot open %s/root/raw: Permission denied: the module's files are root-only: run kvmchurn as root (sudo kvmchurn summary)\n" "$tmp" >"$tmp/want"
	want_same err "$tmp/want"
	finish "not root: reading"
	nobody -d "$tmp/root" disable
	want_rc 2
	printf "kvmchurn disable: cannot open %s/root/enable: Permission denied: the module's files are root-only: run kvmchurn as root (sudo kvmchurn disable)\n" "$tmp" >"$tmp/want"
	want_same err "$tmp/want"
	finish "not root: writing"
	chmod 700 "$tmp"
else
	echo "# not-root tests skipped: needs root and setpriv"
fi

# ---- controls, against a copy of a folder -----------------------------------

ctl=$tmp/ctl
mkdir -p "$ctl"
cp "$hand/known/raw" "$ctl/raw"
printf '1\n' >"$ctl/enable"
printf 'firecracker\n' >"$ctl/filter"
: >"$ctl/reset"

# control NAME WANT-FILE WANT-CONTENT ARGS...
control() {
	local name=$1 file=$2 content=$3

	shift 3
	run -d "$ctl" "$@"
	want_rc 0
	want_same out empty
	want_same err empty
	printf '%s' "$content" >"$tmp/want"
	want_same "ctl/$file" "$tmp/want"
	finish "control: $name"
}
control disable enable $'0\n' disable
control enable enable $'1\n' enable
control reset reset $'1\n' reset
control "filter NAME NAME" filter $'firecracker qemu-system-x86\n' filter firecracker qemu-system-x86
control "filter '*'" filter $'*\n' filter '*'
control "filter -- -name" filter $'-vmm\n' filter -- -vmm

ln -sf /dev/full "$ctl/reset"
in_fixtures -d "$ctl" reset
want_rc 2
printf "kvmchurn reset: writing '1' to %s/reset: No space left on device\n" "$ctl" >"$tmp/want"
want_same err "$tmp/want"
finish "control: a failed write says so"

rm -f "$ctl/enable"
run -d "$ctl" enable
want_rc 2
printf "kvmchurn enable: cannot open %s/enable: No such file or directory: %s is not the module's folder (default /sys/kernel/debug/kvmchurn, or /proc/kvmchurn without debugfs)\n" "$ctl" "$ctl" >"$tmp/want"
want_same err "$tmp/want"
finish "control: no such control file"

# ---- controls under lockdown: the module parameters --------------------------
# Under lockdown debugfs refuses to open a control for writing, with EPERM; an
# immutable file (chattr +i) refuses root the same way. The client then writes
# the parameter of the same name ($KVMCHURN_PARAMS, default
# /sys/module/kvmchurn/parameters) and says so in one line; exit 0.
prm=$tmp/params
lockdown_ok=
if [ "$(id -u)" = 0 ] && command -v chattr >/dev/null; then
	printf '1\n' >"$ctl/enable"
	if chattr +i "$ctl/enable" 2>/dev/null; then
		chattr -i "$ctl/enable"
		lockdown_ok=1
	fi
fi
# fresh_params: the parameters folder, as the module has it
fresh_params() {
	chattr -R -i "$prm" 2>/dev/null
	rm -rf "$prm"
	mkdir -p "$prm"
	printf 'firecracker\n' >"$prm/filter"
	printf '1\n' >"$prm/enable"
	: >"$prm/reset"
	printf 'us\n' >"$prm/unit"
}
# locked FILE...: those control files of $ctl refuse to be opened for writing
locked() {
	local f

	for f in filter enable reset; do chattr -i "$ctl/$f" 2>/dev/null; done
	printf 'firecracker\n' >"$ctl/filter"
	printf '1\n' >"$ctl/enable"
	rm -f "$ctl/reset"
	: >"$ctl/reset"
	for f in "$@"; do chattr +i "$ctl/$f"; done
}
# fallback NAME FILE WANT-CONTENT ARGS...: debugfs's FILE locked, the
# parameter FILE takes the write; stderr is exactly the one line
fallback() {
	local name=$1 file=$2 content=$3 cmd=$4 before

	shift 3
	fresh_params
	locked "$file"
	before=$(cat "$ctl/$file")
	KVMCHURN_PARAMS=$prm run -d "$ctl" "$@"
	want_rc 0
	want_same out empty
	printf 'kvmchurn %s: debugfs is locked down; wrote %s/%s\n' "$cmd" "$prm" "$file" >"$tmp/want"
	want_same err "$tmp/want"
	printf '%s' "$content" >"$tmp/want"
	want_same "params/$file" "$tmp/want"
	want_eq "the debugfs file" "$before" "$(cat "$ctl/$file")"
	finish "lockdown: $name goes to the parameter"
}
if [ -n "$lockdown_ok" ]; then
	fallback "filter NAME NAME" filter $'firecracker qemu-system-x86\n' filter firecracker qemu-system-x86
	fallback "filter '*'" filter $'*\n' filter '*'
	fallback disable enable $'0\n' disable
	fallback enable enable $'1\n' enable
	fallback reset reset $'1\n' reset

	# both refuse: a clear error, exit 2, nothing written
	fresh_params
	locked filter
	chattr +i "$prm/filter"
	KVMCHURN_PARAMS=$prm run -d "$ctl" filter qemu-system-x86
	want_rc 2
	want_same out empty
	printf 'kvmchurn filter: debugfs is locked down; cannot open %s/filter either: Operation not permitted\n' "$prm" >"$tmp/want"
	want_same err "$tmp/want"
	want_eq "the parameter" firecracker "$(cat "$prm/filter")"
	want_eq "the debugfs file" firecracker "$(cat "$ctl/filter")"
	finish "lockdown: debugfs and the parameter refuse: exit 2"

	# the parameter opens but its write fails
	fresh_params
	locked reset
	ln -sf /dev/full "$prm/reset"
	KVMCHURN_PARAMS=$prm run -d "$ctl" reset
	want_rc 2
	printf "kvmchurn reset: debugfs is locked down; writing '1' to %s/reset: No space left on device\n" "$prm" >"$tmp/want"
	want_same err "$tmp/want"
	finish "lockdown: the parameter's write fails: exit 2"

	# no such parameter (a module older than the client): debugfs's error alone
	fresh_params
	rm -f "$prm/reset"
	locked reset
	KVMCHURN_PARAMS=$prm run -d "$ctl" reset
	want_rc 2
	printf 'kvmchurn reset: cannot open %s/reset: Operation not permitted: is the kernel locked down (/sys/kernel/security/lockdown)?\n' "$ctl" >"$tmp/want"
	want_same err "$tmp/want"
	finish "lockdown: no parameter: debugfs's error, exit 2"

	# the default folder when KVMCHURN_PARAMS is unset or empty
	locked enable
	KVMCHURN_PARAMS='' run -d "$ctl" disable
	want_rc 2
	if [ -e /sys/module/kvmchurn/parameters/enable ]; then
		skip_test "lockdown: the parameters' folder is /sys/module/kvmchurn/parameters by default" "kvmchurn is loaded here"
	else
		printf 'kvmchurn disable: cannot open %s/enable: Operation not permitted: is the kernel locked down (/sys/kernel/security/lockdown)?\n' "$ctl" >"$tmp/want"
		want_same err "$tmp/want"
		finish "lockdown: the parameters' folder is /sys/module/kvmchurn/parameters by default"
	fi
	locked
else
	for t in "filter NAME NAME" "filter '*'" disable enable reset; do
		skip_test "lockdown: $t goes to the parameter" "needs root and chattr +i in $tmp"
	done
fi

# A control that cannot be opened for writing at all (debugfs not mounted,
# or not a file) goes to the parameter too, saying why.
fresh_params
mkdir -p "$tmp/ctl-dir/enable"
KVMCHURN_PARAMS=$prm run -d "$tmp/ctl-dir" disable
want_rc 0
want_same out empty
printf 'kvmchurn disable: cannot open %s/ctl-dir/enable: Is a directory; wrote %s/enable\n' "$tmp" "$prm" >"$tmp/want"
want_same err "$tmp/want"
want_eq "the parameter" 0 "$(cat "$prm/enable")"
finish "control: a file that is not a file goes to the parameter"
fresh_params
KVMCHURN_PARAMS=$prm run -d "$tmp/no-debugfs/kvmchurn" filter other
want_rc 0
printf 'kvmchurn filter: cannot open %s/no-debugfs/kvmchurn/filter: No such file or directory; wrote %s/filter\n' "$tmp" "$prm" >"$tmp/want"
want_same err "$tmp/want"
want_eq "the parameter" other "$(cat "$prm/filter")"
finish "control: no debugfs folder, the parameter written"

usage filter-too-long filter firecracker-vm-1
usage filter-space filter 'fc vcpu'
usage filter-comma filter a,b
usage filter-empty filter ''
usage filter-star-and-names filter '*' firecracker
usage filter-nine-names filter a b c d e f g h i
usage filter-json-with-names filter --json firecracker
usage enable-operand enable now
usage reset-option reset --json

# ---- snapshot and diff ------------------------------------------------------

run -d "$hand/known" snapshot -o "$tmp/snap/known.raw"
want_rc 2
printf 'kvmchurn snapshot: writing %s/snap/known.raw: No such file or directory\n' "$tmp" >"$tmp/want"
want_same err "$tmp/want"
finish "snapshot: a folder that does not exist"

mkdir -p "$tmp/snap"
(umask 022 && "$client" -d "$hand/known" snapshot -o "$tmp/snap/known.raw") >"$tmp/out" 2>"$tmp/err"
rc=$?
want_rc 0
want_same out empty
want_same err empty
cmp -s "$tmp/snap/known.raw" "$hand/known/raw" || problems+=("the snapshot is not the raw file")
[ "$(ls "$tmp/snap")" = known.raw ] || problems+=("left in the folder: $(ls "$tmp/snap")")
[ "$(stat -c %a "$tmp/snap/known.raw")" = 644 ] || problems+=("mode $(stat -c %a "$tmp/snap/known.raw"), expected 644")
finish "snapshot -o FILE"

run -d "$hand/known" snapshot
want_rc 0
want_same out "$hand/known/raw"
finish "snapshot to standard output"

in_fixtures -d hand/v2 snapshot -o "$tmp/snap/v2.raw"
want_rc 2
[ -e "$tmp/snap/v2.raw" ] && problems+=("a snapshot of an unknown version was written")
finish "snapshot refuses a raw file it cannot read"

in_fixtures diff hand/diff-a hand/diff-b
want_rc 0
want_same err empty
want_same out "$expected/hand/diff.out"
finish "diff A B"

in_fixtures diff --json hand/diff-a hand/diff-b
want_rc 0
want_same out "$expected/hand/diff.json"
json_ok
finish "diff --json A B"

# A snapshot file against a folder, the same numbers: no change anywhere.
run diff "$tmp/snap/known.raw" "$hand/known"
want_rc 0
grep -E '^exit_mmap +100 +100 +50 +50 +\+0\.0% +50 +50 +\+0\.0% +100 +100 +\+0\.0%  us$' "$tmp/out" >/dev/null ||
	problems+=("exit_mmap is not unchanged:" "$(grep ^exit_mmap "$tmp/out")")
finish "diff of a snapshot file and a folder"

# Units: A in us, B the same numbers in ns: shown in ns, B 1000 times less.
mkdir -p "$tmp/ns"
sed '2s/us/ns/' "$hand/known/raw" >"$tmp/ns/raw"
run diff "$hand/known" "$tmp/ns"
want_rc 0
grep -q '^(A is in us and B in ns: both shown in ns)$' "$tmp/out" || problems+=("no note on the units")
grep -E '^exit_mmap +100 +100 +50000 +50 +-99\.9% ' "$tmp/out" >/dev/null ||
	problems+=("exit_mmap not converted:" "$(grep ^exit_mmap "$tmp/out")")
finish "diff of snapshots in two units"

usage diff-one-operand diff a
usage diff-three-operands diff a b c
run diff "$tmp/none" "$hand/known"
want_rc 2
printf 'kvmchurn diff: cannot open %s/none: No such file or directory\n' "$tmp" >"$tmp/want"
want_same err "$tmp/want"
finish "diff: a snapshot that does not exist"

# ---- merge ------------------------------------------------------------------

# A merge of one snapshot is that snapshot, byte for byte, as `kvmchurn
# snapshot` writes it: the module's own raw file for a capture.
for dir in "$fixtures"/*-kill "$hand"/known "$hand"/absent "$hand"/empty "$hand"/diff-a; do
	id=${dir#"$fixtures"/}
	"$client" -d "$dir" snapshot >"$tmp/one.raw"
	cmp -s "$tmp/one.raw" "$dir/raw" || problems+=("snapshot is not $id/raw")
	run merge "$dir"
	want_rc 0
	want_same err empty
	want_same out "$tmp/one.raw"
	run merge "$tmp/one.raw"
	want_rc 0
	want_same out "$tmp/one.raw"
	finish "merge of $id alone is its snapshot"
done

# merge_sums RAW...: what a merge must hold, added up here from the raw files
# themselves: each hist (count, sum, max, buckets), counter and pairs record
# in the module's order, then the probes sorted, each attached when it is
# anywhere. Exact below 2^53 (awk's doubles): the captures' numbers are.
merge_sums() {
	awk -F '\t' '
	function rank(s) {
		if (s == "attached") return 0
		if (s == "waiting for module") return 1
		if (s ~ /^error /) return 2
		return s == "absent" ? 3 : s == "off" ? 4 : 5
	}
	$1 == "hist" {
		if (!($2 in count)) { hists[++nh] = $2; max[$2] = 0 }
		count[$2] += $3; sum[$2] += $4
		if ($5 + 0 > max[$2]) max[$2] = $5 + 0
		if ($6 != "-") {
			n = split($6, items, ",")
			for (i = 1; i <= n; i++) { split(items[i], sc, ":"); slot[$2, sc[1] + 0] += sc[2] }
		}
	}
	$1 == "counter" { if (!($2 in counter)) counters[++nc] = $2; counter[$2] += $3 }
	$1 == "probe" {
		k = $2 "\t" $3 "\t" $4
		if (!(k in hits) || rank($5) < rank(state[k]) || (rank($5) == rank(state[k]) && $5 < state[k]))
			state[k] = $5
		hits[k] += $6; missed[k] += $7
	}
	$1 == "pairs" { np++; for (i = 2; i <= 6; i++) pairs[i] += $i }
	END {
		for (h = 1; h <= nh; h++) {
			m = hists[h]; list = ""
			for (i = 0; i < 252; i++)
				if (slot[m, i]) list = list (list == "" ? "" : ",") i ":" sprintf("%.0f", slot[m, i])
			printf "hist\t%s\t%.0f\t%.0f\t%.0f\t%s\n", m, count[m], sum[m], max[m], list == "" ? "-" : list
		}
		for (c = 1; c <= nc; c++) printf "counter\t%s\t%.0f\n", counters[c], counter[counters[c]]
		printf "pairs\t%.0f\t%.0f\t%.0f\t%.0f\t%.0f\n", pairs[2], pairs[3], pairs[4], pairs[5], pairs[6]
		fflush()
		for (k in hits) printf "probe\t%s\t%s\t%.0f\t%.0f\n", k, state[k], hits[k], missed[k] | "sort"
		close("sort")
	}' "$@"
}
# merge_records RAW: the same records of a merge's output, probes sorted likewise
merge_records() {
	grep -E '^(hist|counter|pairs)	' "$1"
	grep '^probe	' "$1" | sort
}

caps=("$fixtures"/*-kill)
# want_merge_sums NAME SNAP...: a merge of the SNAPs (folders) holds their sums
want_merge_sums() {
	local name=$1 d raws=()

	shift
	for d in "$@"; do raws+=("$d/raw"); done
	run merge "$@"
	want_rc 0
	want_same err empty
	cp "$tmp/out" "$tmp/merged.raw"
	merge_sums "${raws[@]}" >"$tmp/want"
	merge_records "$tmp/merged.raw" >"$tmp/got"
	want_same got "$tmp/want"
	# the header: version, unit, enabled, filter and slots as every capture has them
	head -n 5 "${raws[0]}" >"$tmp/want"
	head -n 5 "$tmp/merged.raw" >"$tmp/got"
	want_same got "$tmp/want"
	finish "merge of $name: every count, sum, bucket, counter, probe and pair is the sum of the inputs'"
}
want_merge_sums "two captures" "${caps[0]}" "${caps[3]}"
want_merge_sums "three captures" "${caps[2]}" "${caps[1]}" "${caps[5]}"
want_merge_sums "the six captures" "${caps[@]}"

# The order of the snapshots changes no byte, nor does merging in steps.
run merge "${caps[0]}" "${caps[3]}"
cp "$tmp/out" "$tmp/ab.raw"
run merge "${caps[3]}" "${caps[0]}"
want_rc 0
want_same out "$tmp/ab.raw"
finish "merge: A B is B A, byte for byte"
run merge "${caps[@]}"
cp "$tmp/out" "$tmp/all.raw"
run merge "${caps[5]}" "${caps[3]}" "${caps[1]}" "${caps[4]}" "${caps[2]}" "${caps[0]}"
want_same out "$tmp/all.raw"
"$client" merge "${caps[2]}" "${caps[4]}" "${caps[0]}" >"$tmp/half1.raw"
"$client" merge "${caps[1]}" "$tmp/half1.raw" "${caps[5]}" >"$tmp/half2.raw"
run merge "$tmp/half2.raw" "${caps[3]}"
want_same out "$tmp/all.raw"
finish "merge: any order of six captures, and a merge of merges, is the same bytes"
run merge "$hand/absent" "$hand/known" "$hand/diff-a"
cp "$tmp/out" "$tmp/abc.raw"
for order in "diff-a known absent" "known diff-a absent" "absent diff-a known"; do
	read -r x y z <<<"$order"
	run merge "$hand/$x" "$hand/$y" "$hand/$z"
	want_rc 0
	want_same out "$tmp/abc.raw"
done
finish "merge: three snapshots of other states, filters and pairs, in every order"

# hand/known cut in two, each bucket to one half, the sums and every other
# number split: the merge of the halves is hand/known again, and so is its
# summary, whose percentiles were worked out by hand. The halves' own are not.
mkdir -p "$tmp/half-a" "$tmp/half-b"
awk -F '\t' -v OFS='\t' -v a="$tmp/half-a/raw" -v b="$tmp/half-b/raw" '
	# half(v): the first half of v, when awk holds it exactly; else all of it
	function half(v) { return length(v) < 16 ? int(v / 2) : v }
	function rest(v, h) { return length(v) < 16 ? v - h : 0 }
	$1 == "hist" && $6 != "-" {
		n = split($6, items, ","); la = lb = ""; ca = 0
		for (i = 1; i <= n; i++) {
			if (i % 2) { la = la (la == "" ? "" : ",") items[i]; split(items[i], sc, ":"); ca += sc[2] }
			else lb = lb (lb == "" ? "" : ",") items[i]
		}
		h = half($4)
		print $1, $2, ca, h, $5, la >a
		print $1, $2, $3 - ca, rest($4, h), $5, (lb == "" ? "-" : lb) >b
		next
	}
	$1 == "counter" { h = half($3); print $1, $2, h >a; print $1, $2, $3 - h >b; next }
	$1 == "probe" { h = half($6); print $1, $2, $3, $4, $5, h, $7 >a; print $1, $2, $3, $4, $5, $6 - h, 0 >b; next }
	$1 == "pairs" { print $1, 2048, 0, 0, 0 >a; print $1, 2048, 0, 0, 0 >b; next }
	# the windows: the first share to one half, the others to the other
	$1 ~ /^accounted/ { i = index($2, ","); print $1, substr($2, 1, i - 1) >a; print $1, substr($2, i + 1) >b; next }
	{ print >a; print >b }' "$hand/known/raw"
cmp -s "$tmp/half-a/raw" "$hand/known/raw" && problems+=("the first half is the whole")
run merge "$tmp/half-b" "$tmp/half-a"
want_rc 0
want_same err empty
want_same out "$hand/known/raw"
mkdir -p "$tmp/whole"
cp "$tmp/out" "$tmp/whole/raw"
run -d "$tmp/whole" summary
want_same out "$hand/known/summary"
run -d "$tmp/half-a" summary
cmp -s "$tmp/out" "$hand/known/summary" && problems+=("a half has the summary of the whole: the test proves nothing")
finish "merge: hand/known's two halves add up to it, and summary's percentiles to those worked out by hand"

# Totals past 2^53 add exactly, up to 2^64 - 1; one more is refused, not wrapped.
mkdir -p "$tmp/big-a" "$tmp/big-b" "$tmp/big-c"
sed 's/^hist\texit_mmap\t100\t5050\t/hist\texit_mmap\t100\t9223372036854775807\t/' "$hand/known/raw" >"$tmp/big-a/raw"
sed -e 's/^hist\texit_mmap\t100\t5050\t/hist\texit_mmap\t100\t9223372036854775808\t/' \
	-e 's/^hist\tsignal_to_exit\t.*/hist\tsignal_to_exit\t0\t0\t0\t-/' "$hand/known/raw" >"$tmp/big-b/raw"
run merge "$tmp/big-a" "$tmp/big-b"
want_rc 0
want_grep out '^hist	exit_mmap	200	18446744073709551615	100	1:2,2:2,'
want_grep out '^hist	signal_to_exit	1	18446744073709551615	18446744073709551615	251:1$'
finish "merge: sums past 2^53 add exactly, to 2^64 - 1"

# ---- merge: what it decides where numbers do not add -------------------------

# hand/known and hand/absent: a probe attached in either is attached (hits and
# misses added), enabled only if both are, the filters' names together, the
# pairs added up, five fields as both have. Checked by hand.
in_fixtures merge hand/known hand/absent
want_rc 0
want_same err empty
want_same out "$expected/hand/merge-known-absent.raw"
finish "merge: known and absent, checked by hand"

# The state nearest to attached: waiting for module, error, absent, off.
mkdir -p "$tmp/states"
sed -e 's/^\(probe\tkvm_create_vm\tkretprobe\tkvm_dev_ioctl\t\)waiting for module/\1absent/' \
	-e 's/^\(probe\texit_files\tkretprobe\texit_files\t\)error -22/\1absent/' \
	-e 's/^\(probe\tstage2_destroy\tkretprobe\tkvm_pgtable_stage2_destroy\t\)absent/\1off/' \
	-e 's/^\(probe\tfirst_run_setup\tkretprobe\tkvm_arch_vcpu_run_pid_change\t\)absent/\1error -2/' \
	"$hand/absent/raw" >"$tmp/states/raw"
for order in "$hand/absent $tmp/states" "$tmp/states $hand/absent"; do
	# shellcheck disable=SC2086 # two operands
	run merge $order
	want_rc 0
	grep '^probe	\(kvm_create_vm	kretprobe	kvm_dev_ioctl\|exit_files\|stage2_destroy\|first_run_setup\)	' "$tmp/out" >"$tmp/got"
	printf 'probe\t%s\n' "kvm_create_vm	kretprobe	kvm_dev_ioctl	waiting for module	0	0" \
		"exit_files	kretprobe	exit_files	error -22	0	0" \
		"stage2_destroy	kretprobe	kvm_pgtable_stage2_destroy	absent	0	0" \
		"first_run_setup	kretprobe	kvm_arch_vcpu_run_pid_change	error -2	0	0" >"$tmp/want"
	want_same got "$tmp/want"
done
finish "merge: a probe attached nowhere takes the state nearest to attached, in either order"

# A stage probed under two symbols (x86 6.1: kvm_arch_vcpu_run_pid_change
# absent; 6.12: kvm_mmu_post_init_vm attached) is two probes.
run merge "$fixtures/x86_64-6.1-kill" "$fixtures/x86_64-6.12-kill"
want_grep out '^probe	first_run_setup	kretprobe	kvm_arch_vcpu_run_pid_change	absent	0	0$'
want_grep out '^probe	first_run_setup	kretprobe	kvm_mmu_post_init_vm	attached	[0-9]+	0$'
finish "merge: one stage under two symbols is two probes"

# The filter: one text kept as it is; different ones, every name once, sorted,
# and check then tells the irqfds per VM without judging them; '*' from one
# is '*'; a snapshot without the record leaves it out.
mkdir -p "$tmp/fq" "$tmp/fq2" "$tmp/fall" "$tmp/fnone" "$tmp/fnone2"
awk -F '\t' -v OFS='\t' '$1 == "filter" { $2 = "qemu-system-x86 firecracker" } 1' "$hand/known/raw" >"$tmp/fq/raw"
awk -F '\t' -v OFS='\t' '$1 == "filter" { $2 = "qemu-system-x86 firecracker" } $1 == "hist" && $2 == "signal_to_exit" { $3 = $4 = $5 = 0; $6 = "-" } 1' \
	"$hand/known/raw" >"$tmp/fq2/raw"
awk -F '\t' -v OFS='\t' '$1 == "filter" { $2 = "*" } 1' "$hand/diff-a/raw" >"$tmp/fall/raw"
grep -v '^filter	' "$hand/diff-a/raw" >"$tmp/fnone/raw"
grep -v -e '^filter	' -e '^enabled	' -e '^pairs	' "$hand/diff-b/raw" >"$tmp/fnone2/raw"
run merge "$tmp/fq" "$tmp/fq2"
want_grep out '^filter	qemu-system-x86 firecracker$'
run merge "$tmp/fq2" "$hand/known"
want_grep out '^filter	firecracker qemu-system-x86$'
mkdir -p "$tmp/fmerged"
cp "$tmp/out" "$tmp/fmerged/raw"
run -d "$tmp/fmerged" check
want_grep out "^INFO irqbypass unregister per VM in 8-11: .*: not judged, the range is firecracker's and the filter traces another VMM$"
run merge "$hand/diff-b" "$tmp/fall" "$hand/absent"
want_grep out '^filter	\*$'
run merge "$hand/diff-b" "$tmp/fnone"
want_rc 0
grep -q '^filter' "$tmp/out" && problems+=("a filter record where a snapshot had none")
finish "merge: the filter kept, joined, '*', or left out"

# enabled: 0 when one was not recording, left out when one does not say; the
# pairs left out when one lacks them, the sixth field when one lacks it.
run merge "$hand/diff-a" "$hand/diff-b"
want_grep out '^enabled	1$'
want_grep out '^pairs	8192	2	0	0$'
run merge "${caps[0]}" "$hand/diff-b"
want_grep out '^pairs	36864	0	0	0$'
run merge "${caps[0]}" "${caps[1]}"
want_grep out '^pairs	65536	0	0	0	0$'
run merge "$hand/diff-a" "$tmp/fnone2"
want_rc 0
grep -q -e '^enabled' -e '^pairs' "$tmp/out" && problems+=("enabled or pairs where a snapshot had none")
finish "merge: enabled and pairs when every snapshot has them"

# A metric a snapshot lacks counts from the others; records of a newer module
# are left out.
mkdir -p "$tmp/older"
grep -v '^hist	exit_mmap	' "$hand/diff-a/raw" >"$tmp/older/raw"
run merge "$tmp/older" "$hand/diff-b"
grep "^hist	exit_mmap	" "$hand/diff-b/raw" >"$tmp/want"
grep "^hist	exit_mmap	" "$tmp/out" >"$tmp/got"
want_same got "$tmp/want"
run merge "$tmp/older"
grep -q '^hist	exit_mmap	' "$tmp/out" && problems+=("a metric no snapshot has")
run merge "$hand/future"
want_rc 0
"$client" merge "$tmp/base" >"$tmp/want"
want_same out "$tmp/want"
finish "merge: a metric one lacks counts from the others; a newer module's records are left out"

# Every reader takes a merge, as a file and as a folder's raw.
mkdir -p "$tmp/fleet-a" "$tmp/fleet-b"
"$client" merge "$fixtures/x86_64-6.1-kill" "$fixtures/arm64-6.1-kill" >"$tmp/fleet-a/raw"
"$client" merge "$fixtures/x86_64-6.12-kill" "$fixtures/arm64-6.12-kill" >"$tmp/fleet-b/raw"
for args in show "show --json" summary "summary --json" check probes dump "dump --json" filter export; do
	# shellcheck disable=SC2086 # the command and its option
	run -d "$tmp/fleet-a" $args
	[ "$rc" -le 1 ] || problems+=("$args: exit status $rc")
	[[ $args == *--json ]] && json_ok
	[[ $args == export ]] && prom_ok "$tmp/out"
done
run diff "$tmp/fleet-a/raw" "$tmp/fleet-b"
want_rc 0
want_same err empty
want_grep out '^kvm_create_vm +80 +80 '
finish "merge: every reader takes a merge, diff compares two fleets"

# -o: written aside and renamed, before or after the snapshots; '-' is stdout.
mkdir -p "$tmp/mo"
(umask 022 && "$client" merge "$hand/known" -o "$tmp/mo/fleet.raw") >"$tmp/out" 2>"$tmp/err"
rc=$?
want_rc 0
want_same out empty
want_same err empty
want_same mo/fleet.raw "$hand/known/raw"
[ "$(ls "$tmp/mo")" = fleet.raw ] || problems+=("left in the folder: $(ls "$tmp/mo")")
[ "$(stat -c %a "$tmp/mo/fleet.raw")" = 644 ] || problems+=("mode $(stat -c %a "$tmp/mo/fleet.raw"), expected 644")
run merge -o "$tmp/mo/fleet2.raw" "$hand/diff-a" "$hand/diff-b"
want_rc 0
"$client" merge "$hand/diff-a" "$hand/diff-b" >"$tmp/want"
want_same mo/fleet2.raw "$tmp/want"
run merge -o - "$hand/known"
want_same out "$hand/known/raw"
run merge -- "$hand/known"
want_same out "$hand/known/raw"
finish "merge -o FILE, before or after the snapshots"

# ---- merge: refusals, exit status 2 and the exact message -------------------

mkdir -p "$tmp/m/ns" "$tmp/m/big" "$tmp/m/out"
for f in known absent diff-a v2 garbled truncated; do cp -r "$hand/$f" "$tmp/m/"; done
sed '2s/us/ns/' "$hand/known/raw" >"$tmp/m/ns/raw"
cp "$tmp/big-a/raw" "$tmp/m/big/raw"
mkdir -p "$tmp/m/huge"
sed -e 's/^hist\tkvm_create_vm\t1\t1000\t1000\t35:1$/hist\tkvm_create_vm\t18446744073709551615\t1000\t1000\t35:18446744073709551615/' \
	-e 's/^hist\tsignal_to_exit\t.*/hist\tsignal_to_exit\t0\t0\t0\t-/' "$hand/known/raw" >"$tmp/m/huge/raw"
: >"$tmp/m/empty.raw"
# merge_refused NAME ARGS...: `kvmchurn merge -o out/merged.raw ARGS`, run in
# $tmp/m, exits 2 with stderr exactly expected/merge-NAME.err, writing nothing
merge_refused() {
	local name=$1

	shift
	(cd "$tmp/m" && "$client" merge -o out/merged.raw "$@") >"$tmp/out" 2>"$tmp/err"
	rc=$?
	want_rc 2
	want_same out empty
	want_same err "$expected/merge-$name.err"
	[ -z "$(ls "$tmp/m/out")" ] || problems+=("written: $(ls "$tmp/m/out")")
	finish "merge refuses $name"
}
merge_refused unit known absent ns
merge_refused version known v2
merge_refused garbled absent garbled known
merge_refused truncated truncated
merge_refused empty-file known empty.raw
merge_refused missing known none.raw
merge_refused overflow big known
merge_refused overflow-count absent diff-a huge
(cd "$tmp/m" && "$client" merge -o nowhere/merged.raw known) >"$tmp/out" 2>"$tmp/err"
rc=$?
want_rc 2
want_same out empty
want_same err "$expected/merge-no-folder.err"
finish "merge refuses -o into a folder that does not exist"

usage merge-no-operand merge
usage merge-only-output merge -o fleet.raw
usage merge-output-empty merge -o '' a
usage merge-unknown-option merge --json a

# ---- export -----------------------------------------------------------------

(umask 022 && "$client" -d "$hand/known" export --prometheus -o "$tmp/snap/kvmchurn.prom") >"$tmp/out" 2>"$tmp/err"
rc=$?
want_rc 0
want_same out empty
"$client" -d "$hand/known" export >"$tmp/want"
want_same snap/kvmchurn.prom "$tmp/want"
[ "$(ls "$tmp/snap")" = "$(printf 'known.raw\nkvmchurn.prom')" ] || problems+=("left in the folder: $(ls "$tmp/snap")")
[ "$(stat -c %a "$tmp/snap/kvmchurn.prom")" = 644 ] || problems+=("mode $(stat -c %a "$tmp/snap/kvmchurn.prom"), expected 644")
finish "export -o FILE, renamed into place"

# ---- watch ------------------------------------------------------------------

# Interval headers carry the measured seconds: normalized.
normalize_watch() {
	sed -E 's/^(interval [0-9]+: )[0-9.]+ s/\1S s/' "$tmp/out"
}

run -d "$hand/empty" watch -i 0.1 -c 2
want_rc 0
want_same err empty
normalize_watch >"$tmp/normal"
want_same normal "$expected/hand/watch-empty.out"
finish "watch: nothing happens"

# closed PATH: no process has PATH open.
closed() {
	local fd

	for fd in /proc/[0-9]*/fd/*; do
		[[ $(readlink "$fd" 2>/dev/null) == "$1" ]] && return 1
	done
	return 0
}

# raw as a FIFO: the first read gets one snapshot, the second the next. The
# second writer waits until the first read has ended (the reader closed the
# FIFO), or both would land in that read.
# watch_fifo FIRST SECOND ARGS...
watch_fifo() {
	local first=$1 second=$2 fifo

	shift 2
	rm -rf "$tmp/w"
	mkdir -p "$tmp/w"
	mkfifo "$tmp/w/raw"
	fifo=$(readlink -f "$tmp/w/raw")
	(cat "$first" >"$fifo" && wait_for 60 closed "$fifo" && cat "$second" >"$fifo") &
	local feeder=$!
	run -d "$tmp/w" watch -i 0.5 -c 1 "$@"
	# A writer still waiting for a reader (the test failed) is let go.
	if kill -0 "$feeder" 2>/dev/null; then
		timeout 2 cat "$tmp/w/raw" >/dev/null
	fi
	wait "$feeder" 2>/dev/null
}

# Ten exit_mmap values of 1000 in [896, 1024): p50 at rank 5 of 10 is
# 896 + 128 * 5 / 11 = 954; p99 is 1012, clamped to the max, 1000.
watch_fifo "$hand/known/raw" "$hand/known-later/raw"
want_rc 0
want_same err empty
# the rate (its value checked below) as R at the right of its column, whatever its digits
normalize_watch | awk 'match($0, /^[a-z_0-9]+ +[0-9]+ +[0-9.]+ /) {
		head = substr($0, 1, RLENGTH - 1); tail = substr($0, RLENGTH); n = match(head, /[0-9.]+$/)
		pad = substr(head, n); gsub(/./, " ", pad)
		$0 = substr(head, 1, n - 1) substr(pad, 2) "R" tail } 1' >"$tmp/normal"
want_same normal "$expected/hand/watch-delta.out"
# The rate is the count over the interval's measured seconds, as far as their
# printed digits tell (the rate's one decimal, the seconds' two), however long a
# busy host made the interval.
awk 'NR == 1 { s = $3 } $1 == "exit_mmap" { r = $3 } END {
	d = r * s - 10; e = 0.05 * s + 0.005 * r + 0.001; exit !(s > 0 && d <= e && d >= -e) }' "$tmp/out" ||
	problems+=("exit_mmap's rate is not 10 over the seconds:" "$(head -1 "$tmp/out")" "$(grep ^exit_mmap "$tmp/out")")
finish "watch: the interval's counts, rate and percentiles"

watch_fifo "$hand/known/raw" "$hand/known-later/raw" --json
want_rc 0
json_ok
grep -q '{"name":"exit_mmap","count":10,"rate_per_s":[0-9.]*,"p50":954,"p99":1000}' "$tmp/out" ||
	problems+=("exit_mmap: $(head -c 300 "$tmp/out")")
finish "watch --json"

# Counts going down: a reset came in between, and the interval counts from it.
watch_fifo "$hand/diff-a/raw" "$hand/diff-b/raw"
want_rc 0
grep -q '^interval 1: [0-9.]* s, counted from a reset during it$' "$tmp/out" || problems+=("no reset noticed")
grep -Eq '^kvm_create_vm +20 ' "$tmp/out" || problems+=("not counted from the reset: $(grep ^kvm_create_vm "$tmp/out")")
finish "watch: a reset by someone else"

"$client" -d "$hand/empty" watch -i 30 >"$tmp/out" 2>"$tmp/err" &
watcher=$!
# once it catches SIGINT, not after a guess at how long that takes
wait_for 60 catches "$watcher" 2
kill -INT "$watcher"
wait "$watcher"
rc=$?
want_rc 0
want_same out empty
finish "watch: SIGINT ends it, status 0"

usage watch-i-zero watch -i 0
usage watch-i-small watch -i 0.05
usage watch-i-large watch -i 86401
usage watch-i-word watch -i soon
usage watch-i-suffix watch -i 1s
usage watch-i-empty watch -i ''
usage watch-c-zero watch -c 0
usage watch-operand watch exit_mmap

# ---- show's arguments -------------------------------------------------------

usage show-unknown-metric show exit_mmap bogus
usage show-unit show --unit s
usage show-fine-bpftrace show --fine --bpftrace
usage show-bpftrace-metric show --bpftrace exit_mmap
usage summary-operand summary extra
usage check-json-value check --json=yes

# ---- colour: only on a terminal, never with NO_COLOR -------------------------

if command -v script >/dev/null && script -qec true /dev/null >/dev/null 2>&1; then
	TERM=xterm NO_COLOR='' script -qec "'$client' -d '$hand/absent' check" /dev/null >"$tmp/out" 2>&1
	grep -q $'\033\\[' "$tmp/out" || problems+=("no colour on a terminal")
	TERM=xterm NO_COLOR=1 script -qec "'$client' -d '$hand/absent' check" /dev/null >"$tmp/out" 2>&1
	grep -q $'\033' "$tmp/out" && problems+=("colour with NO_COLOR=1")
	grep -q '^WARN nmissed = 0: 3 (raise maxactive=)' <(tr -d '\r' <"$tmp/out") ||
		problems+=("not the check's text: $(head -c 200 "$tmp/out")")
	finish "colour on a terminal, none with NO_COLOR"
else
	echo "# colour test skipped: script(1) not found"
fi
run -d "$hand/absent" check
grep -q $'\033' "$tmp/out" && problems+=("colour into a file")
finish "no colour into a file"

# ---- help for every command ---------------------------------------------------

# the commands, as kvmchurn --help lists them
mapfile -t commands < <(sed -n 's/^  \([a-z][a-z]*\) .*/\1/p' "$expected/help.txt")

for cmd in "${commands[@]}"; do
	run help "$cmd"
	want_rc 0
	cp "$tmp/out" "$tmp/help"
	run "$cmd" --help
	want_rc 0
	want_same out "$tmp/help"
	grep -q "^Usage: kvmchurn $cmd" "$tmp/out" || problems+=("no usage line")
	finish "help $cmd is $cmd --help"
done

# ---- the manual page --------------------------------------------------------

man8=$here/../../Documentation/kvmchurn.8
for cmd in "${commands[@]}"; do
	grep -Eq "^\.SS (.*[ ,])?$cmd([ ,]|$)" "$man8" || problems+=("no section for $cmd")
done
mapfile -t codes < <(sed -n 's/^  \([0-9][0-9]*\) .*/\1/p' "$expected/help.txt")
for code in "${codes[@]}"; do
	grep -A1 '^\.TP' "$man8" | grep -qx "\.B $code" || problems+=("exit status $code missing")
done
if [ -n "$opt_version" ]; then
	grep -q "^\.TH KVMCHURN 8 [0-9-]* \"kvmchurn $opt_version\"" "$man8" ||
		problems+=("the .TH line is not of version $opt_version")
fi
finish "man page: every command and exit status"

# The options of each command in the man page are those of its usage, which
# is the source: the first words of the option lines of `kvmchurn help CMD`
# (as tests/unit/packaging.sh reads them; their descriptions name other
# programs' options, QEMU's -D) against every -x and --long of the command's
# section of kvmchurn.8: its .SS line, and the bold of its text (.B, .BR, .BI,
# .RB, .IB lines and \fB...\fP), where the page sets kvmchurn's options. -h,
# --help, which every command takes, are said once, before the sections.
# help_opts [CMD]: the options of CMD's usage, or of kvmchurn's own
help_opts() {
	"$client" help "$@" | awk '/^  +-/ { for (i = 1; i <= NF; i++) { w = $i; sub(/,$/, "", w)
		if (w ~ /^--?[A-Za-z][A-Za-z0-9-]*$/) print w; else break } }' | sort -u
}
# man_opts [CMD]: the options kvmchurn.8 lists for CMD, or in OPTIONS without
man_opts() {
	awk -v cmd="${1:-}" '
	function tokens(s,   t) {
		gsub(/\\-/, "-", s)
		while (match(s, /(^|[^A-Za-z0-9-])--?[A-Za-z][A-Za-z0-9-]*/)) {
			t = substr(s, RSTART, RLENGTH)
			s = substr(s, RSTART + RLENGTH)
			sub(/^[^-]/, "", t)
			if (t ~ /^-[A-Za-z]$/ || t ~ /^--[A-Za-z]/)
				print t
		}
	}
	/^\.S[HS] / { on = 0 }
	/^\.SH OPTIONS/ { on = cmd == ""; next }
	/^\.SS / && cmd != "" {
		h = substr($0, 5)
		match(h, /^[a-z]+(, [a-z]+)*/)
		n = split(substr(h, 1, RLENGTH), names, /, /)
		for (i = 1; i <= n; i++)
			if (names[i] == cmd)
				on = 1
		if (on)
			tokens(h)
		next
	}
	!on { next }
	/^\.(B|BR|BI|RB|IB) / { tokens($0); next }
	{
		s = $0
		while (match(s, /\\fB([^\\]|\\[^f])*\\f[PR]/)) {
			tokens(substr(s, RSTART, RLENGTH))
			s = substr(s, RSTART + RLENGTH)
		}
	}' "$man8" | sort -u
}
words() { tr '\n' ' ' | sed 's/ $//'; }
result "man page: the global options are kvmchurn --help's" "$(help_opts | words)" "$(man_opts | words)"
no_help=()
for cmd in "${commands[@]}"; do
	help_opts "$cmd" >"$tmp/opts"
	grep -qx -- -h "$tmp/opts" && grep -qx -- --help "$tmp/opts" || no_help+=("kvmchurn help $cmd lists no -h, --help")
	result "man page: the options of $cmd are those of kvmchurn help $cmd" \
		"$(grep -vx -e -h -e --help "$tmp/opts" | words)" "$(man_opts "$cmd" | grep -vx -e -h -e --help | words)"
done
problems=("${no_help[@]}")
sed -n '/^\.SH COMMANDS/,/^\.SS /p' "$man8" | grep -q '^\.BR \\-h ", " \\-\\-help ,$' ||
	problems+=("COMMANDS does not say that every command takes -h, --help")
finish "man page: every command takes -h, --help"

if command -v man >/dev/null; then
	MANWIDTH=80 man --warnings -l "$man8" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	want_rc 0
	want_same err empty
	grep -q '^EXIT STATUS' "$tmp/out" || problems+=("man -l rendered no EXIT STATUS")
	finish "man -l renders kvmchurn.8 without warnings"
else
	echo "# man -l test skipped: man not found"
fi

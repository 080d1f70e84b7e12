#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The vm tier's own judgements that need no boot, against what hang-dump.py
# printed for real guests (tests/fixtures/hang/):
#   x86_64-7.x-boot-spin.where     the CI boot of 2026-12-04 that hung after
#                                  "hpet0: 3 comparators", before /init
#   x86_64-5.10-paused.where       QEMU started with -S: both vCPUs at the
#                                  reset vector (real mode, EIP)
#   x86_64-7.x-255cpus-moving.where  vCPUs 0 to 7 of a 255-vCPU boot that only
#                                  crawled: four of them moved
# tests/lib/compatibility/branches.tsv, the audit of module/compat.h's branches that
# compatibility.sh prints, against compat.h's own versions; and the core's rules for a
# verdict: judge.awk on a serial log, kc_tap_verdict on a TAP log, kc_count's tally;
# make soak's table (tests/soak/report.awk) of tests/fixtures/soak/'s real checkpoints.
#
# One TAP line a test (tests/lib/tap.sh), then "harness: N passed, N failed".

set -u
export LC_ALL=C
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$here/lib.sh"
unit_options "$@"
# shellcheck source=tests/lib/core.sh
. "$here/../lib/core.sh"
# shellcheck source=tests/lib/watch.sh
. "$here/../lib/watch.sh"
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
fix=$here/../fixtures/hang

# spins NAME FILE WANT: the test NAME, kc_vcpus_spin's answer for FILE (yes or no) is WANT
spins() {
	local got=no

	kc_vcpus_spin "$2" && got=yes
	want_eq "kc_vcpus_spin ${2##*/}" "$3" "$got"
	finish "$1"
}

spins "a kernel hung before /init spins" "$fix/x86_64-7.x-boot-spin.where" yes
spins "a paused guest (EIP, real mode) spins" "$fix/x86_64-5.10-paused.where" yes
spins "a crawling guest whose vCPUs move does not" "$fix/x86_64-7.x-255cpus-moving.where" no
: >"$tmp/empty"
spins "no sample (the monitor did not answer) is not a spin" "$tmp/empty" no
echo "the monitor did not answer: [Errno 111] Connection refused" >"$tmp/refused"
spins "a monitor error is not a spin" "$tmp/refused" no
grep '^sample 1 ' "$fix/x86_64-7.x-boot-spin.where" >"$tmp/one"
spins "one sample is not enough to call a spin" "$tmp/one" no
sed '$s/pc [0-9a-f]*/pc ffffffff9d6e04c7/' "$fix/x86_64-7.x-boot-spin.where" >"$tmp/last-moved"
spins "the last vCPU moving in the last sample is not a spin" "$tmp/last-moved" no

# compat-branches.tsv (Documentation/compatibility.rst's audit of compat.h): every version
# compat.h tests is a side's from= or below= (a side may also flip where compat.h asks
# the kernel itself, as vcpu_has_run_once at 5.16)
tsv=$here/../lib/compatibility/branches.tsv
versions() { sed -nE 's/.*KERNEL_VERSION\(([0-9]+), ([0-9]+), 0\).*/\1.\2/p' "$here/../../module/compat.h" | sort -u; }
flips() { grep -v '^#' "$tsv" | cut -f3 | grep -oE '(from|below)=[0-9.]+' | cut -d= -f2 | sort -u; }
want_eq "versions compat.h tests that compat-branches.tsv lacks" "" "$(comm -23 <(versions) <(flips) | tr '\n' ' ')"
want_eq "rows of four fields" "" "$(grep -v '^#' "$tsv" | awk -F '\t' 'NF != 4 { print NR ": " $0 }')"
# each decision has two sides at least
want_eq "decisions of one side" "" "$(grep -v '^#' "$tsv" | cut -f1 | sort | uniq -u)"
finish "compat-branches.tsv has a row for every version compat.h tests"

# kc_load_env on a cache that moved: the paths fetch.sh wrote under the old folder are
# rewritten to the new one, the others (headers inside a chroot) kept; in the cache
# they were written in, nothing changes
mkdir -p "$tmp/cache/kernels/arm64-7.x" "$tmp/cache/kernels/x86_64-6.1"
cat >"$tmp/cache/kernels/arm64-7.x/env" <<'EOF2'
KC_ID=arm64-7.x
KC_KDIR=/usr/src/linux-headers-7.3.4+deb13-arm64
KC_CHROOT=/old/cache/chroot/trixie
KC_VMLINUZ=/old/cache/kernels/arm64-7.x/vmlinuz
KC_BUSYBOX=/old/cache/busybox/arm64/busybox
EOF2
printf 'KC_KDIR=%s\nKC_CHROOT=\nKC_VMLINUZ=%s\nKC_BUSYBOX=/bin/busybox\n' \
	"$tmp/cache/kernels/x86_64-6.1/root/usr/src/linux-headers" "$tmp/cache/kernels/x86_64-6.1/vmlinuz" >"$tmp/cache/kernels/x86_64-6.1/env"
# shellcheck disable=SC2030 # the cache of this subshell only, not of pack.sh's below
envof() { (KVMCHURN_CACHE=$tmp/cache && kc_load_env "$1" && echo "$KC_KDIR|$KC_CHROOT|$KC_VMLINUZ|$KC_BUSYBOX"); }
want_eq "moved" "/usr/src/linux-headers-7.3.4+deb13-arm64|$tmp/cache/chroot/trixie|$tmp/cache/kernels/arm64-7.x/vmlinuz|$tmp/cache/busybox/arm64/busybox" "$(envof arm64-7.x)"
want_eq "in place" "$tmp/cache/kernels/x86_64-6.1/root/usr/src/linux-headers||$tmp/cache/kernels/x86_64-6.1/vmlinuz|/bin/busybox" "$(envof x86_64-6.1)"
want_eq "not fetched" "" "$(envof arm64-6.1)"
finish "a kernel's env in a cache moved elsewhere names the new folder"

# kc_verdict_log: the boot's own log, from boot.sh's output, per kernel; not a build's
# log, not another kernel's whose id begins the same
cat >"$tmp/verdict" <<'EOF2'
[12:00:00] arm64-6.1: built and packed (20 s), booting 6.1.0-57-arm64 on QEMU 7.2.22 (host)
PASS arm64-6.1 6.1.0-57-arm64: 7 ok, 0 not ok (2476 s, 2 CPUs)
    log: /c/logs/arm64-6.1-20261206-172715.log
FAIL arm64-6.1-cloud 6.1.0-57-cloud-arm64: module build failed (log: /c/logs/arm64-6.1-cloud-build-vm.log)
    not ok 3 - a check
    log: /c/logs/arm64-6.12-20261206-180000.log
FAIL arm64-6.12 6.12.118+deb12-arm64: 2 ok, 1 not ok (20 s, 2 CPUs)
EOF2
want_eq "arm64-6.1" /c/logs/arm64-6.1-20261206-172715.log "$(kc_verdict_log "$tmp/verdict" arm64-6.1)"
want_eq "arm64-6.12" /c/logs/arm64-6.12-20261206-180000.log "$(kc_verdict_log "$tmp/verdict" arm64-6.12)"
want_eq "arm64-6.1-cloud (only a build log)" "" "$(kc_verdict_log "$tmp/verdict" arm64-6.1-cloud)"
want_eq "x86_64-6.1 (not there)" "" "$(kc_verdict_log "$tmp/verdict" x86_64-6.1)"
finish "a boot's log is the one boot.sh named for that kernel"

# the core's entry points: --help, and every kind of bad input refused with exit 2
# before anything runs
lib=$here/../lib
refused() {	# WHAT MESSAGE-REGEX ENTRY ARG...
	local what=$1 re=$2 rc=0
	shift 2
	KVMCHURN_CACHE=$tmp/cache "$@" >"$tmp/out" 2>&1 || rc=$?
	want_eq "$what: status" 2 "$rc"
	grep -Eq -- "$re" "$tmp/out" || problems+=("$what: no line matching '$re' in: $(head -n 2 "$tmp/out")")
}
for e in boot.sh fetch.sh compile.sh; do
	rc=0
	KVMCHURN_CACHE=$tmp/cache "$lib/$e" --help >"$tmp/out" 2>&1 || rc=$?
	want_eq "$e --help: status" 0 "$rc"
	grep -q "^usage: tests/lib/$e " "$tmp/out" || problems+=("$e --help: no usage line")
	refused "$e --bogus" "^$e: unknown option --bogus\$" "$lib/$e" --bogus
done
refused "an option without its value" '^boot.sh: --only needs a value$' "$lib/boot.sh" --only
refused "no such scenario folder" '^boot.sh: --scenarios /nonexistent: no such folder$' "$lib/boot.sh" --scenarios /nonexistent
refused "no such guest folder" '^boot.sh: --guest-dir /nonexistent: no such folder$' "$lib/boot.sh" --guest-dir /nonexistent
refused "no such disk" '^boot.sh: --disk /nonexistent: no such file$' "$lib/boot.sh" --disk /nonexistent
for bad in "--vms 0" "--vms 10000" "--vms x" "--icount 11" "--icount -1" "--mem 99" "--mem 1000000" \
	"--smp 0" "--smp 2,max=4" "--silence 0" "--boot-silence 1.5" "--timeout ''"; do
	eval "set -- $bad"
	refused "boot.sh $bad" "^boot.sh: $1 .*: not a valid value \\(--help\\)\$" "$lib/boot.sh" "$@"
done
refused "an unknown kernel id" "unknown kernel id 'x86_64-2.6'" "$lib/boot.sh" x86_64-2.6
for e in run downtime packaging table; do
	refused "$e.sh without its client" "^$e.sh: the client /nonexistent is not there: run make client" \
		"$here/$e.sh" --client /nonexistent
	refused "$e.sh --bogus" "^$e.sh: unknown option --bogus " "$here/$e.sh" --bogus
done
refused "dkms/tier.sh of an unknown kernel id" "unknown kernel id 'x86_64-2.6'" "$here/../dkms/tier.sh" x86_64-2.6
for t in prometheus/tier.sh unit/tier.sh; do
	refused "$t --bogus" "unknown (argument|option) --bogus" "$here/../$t" --bogus
done
finish "the core's entry points and the unit suites refuse bad input with status 2"

# judge.awk: what a serial log says of its scenarios, counted only inside their blocks
cat >"$tmp/serial" <<'EOF2'
[    1.000000] ok 1 - a kernel line is never counted
@@KVMCHURN BEGIN init
ok 1 - init
@@KVMCHURN END init rc=0 cpus=2 secs=1
@@KVMCHURN BEGIN 00-boot.sh
ok 1 - one
not ok 2 - two
@@KVMCHURN FILE-DATA x ok 3 - a file line
# KUnit: 3 passed, 0 failed, 0 skipped
ok 3 - three
@@KVMCHURN END 00-boot.sh rc=1 cpus=2 secs=7
ok 9 - between blocks, not counted
@@KVMCHURN BEGIN 30-metrics.sh
ok 1 - cut short
EOF2
printf '%s\n' "notok 00-boot.sh: not ok 2 - two" "kunit KUnit: 3 passed, 0 failed, 0 skipped" \
	"scen init 1 0 0 2 1" "scen 00-boot.sh 2 1 1 2 7" "scen 30-metrics.sh 1 0 none ? ?" "scen 90-dmesg.sh 0 0 none ? ?" \
	"reason 00-boot.sh exited 1" "reason no end marker for 30-metrics.sh" "reason no end marker for 90-dmesg.sh" \
	"reason no final marker" "ok 4" "nok 1" "cpus 2" >"$tmp/judged.want"
awk -v names="init 00-boot.sh 30-metrics.sh 90-dmesg.sh" -f "$lib/judge.awk" "$tmp/serial" >"$tmp/judged"
want_eq "a log cut short" "$(cat "$tmp/judged.want")" "$(cat "$tmp/judged")"
printf '@@KVMCHURN BEGIN init\r\nok 1 - init\r\n@@KVMCHURN END init rc=0\r\n@@KVMCHURN DONE\r\n' >"$tmp/serial"
awk -v names="init" -f "$lib/judge.awk" "$tmp/serial" >"$tmp/judged"
want_eq "a whole log, CRLF" "$(printf '%s\n' "scen init 1 0 0 ? ?" "ok 1" "nok 0" "cpus 0")" "$(cat "$tmp/judged")"
printf '%s\n' "@@KVMCHURN BEGIN init" "not ok 1 - insmod" "Bail out! insmod" "Bail out! twice" \
	"@@KVMCHURN END init rc=1" "@@KVMCHURN DONE" >"$tmp/serial"
awk -v names="init" -f "$lib/judge.awk" "$tmp/serial" >"$tmp/judged"
want_eq "a scenario that bailed out" "$(printf '%s\n' "notok init: not ok 1 - insmod" "scen init 0 1 1 ? ?" \
	"reason init bailed out: insmod" "reason init exited 1" "ok 0" "nok 1" "cpus 0")" "$(cat "$tmp/judged")"
finish "judge.awk counts a scenario's lines only inside its block, and says what is missing"

# kc_tap_verdict: one rule for a TAP log, every case of it
verdict_of() {	# WANT-STATUS WANT-LAST-LINE RC LOG-LINE...: one log judged
	local want=$1 last=$2 rc=$3 got=0
	shift 3
	printf '%s\n' "$@" >"$tmp/tap.log"
	kc_tap_verdict step "$tmp/tap.log" "$rc" 5 >"$tmp/verdict" || got=$?
	want_eq "${*//$'\n'/|} (exit $rc): status" "$want" "$got"
	want_eq "${*//$'\n'/|} (exit $rc): last line" "$last" "$(tail -n 1 "$tmp/verdict")"
}
verdict_of 0 "PASS step: 2 ok, 0 not ok (5 s)" 0 "ok 1 - a" "ok 2 - b # SKIP why" "1..2"
verdict_of 1 "FAIL step: 1 ok, 1 not ok (5 s)" 0 "ok 1 - a" "not ok 2 - b" "#   why" "1..2"
want_eq "a failed test's lines" "$(printf '    %s\n' "not ok 2 - b" "#   why" "1..2" "log: $tmp/tap.log")" \
	"$(head -n 4 "$tmp/verdict")"
verdict_of 1 "FAIL step: 2 ok, 0 not ok (5 s), no plan 1..2: it stopped before its end" 0 "ok 1 - a" "ok 2 - b"
verdict_of 1 "FAIL step: 1 ok, 0 not ok (5 s), no plan 1..1: it stopped before its end" 0 "ok 1 - a" "1..2"
verdict_of 1 "FAIL step: 1 ok, 0 not ok (5 s), exit 7" 7 "ok 1 - a" "1..1"
verdict_of 1 "FAIL step: 0 ok, 0 not ok (5 s)" 0 "1..0"
verdict_of 1 "FAIL step: 1 ok, 1 not ok (5 s), exit 1, bailed out: no server" 1 "ok 1 - a" "not ok 2 - no server" \
	"Bail out! no server"
# shellcheck source=tests/lib/tap.sh
(. "$lib/tap.sh" && ok a && bail_out "no server" && ok never) >"$tmp/tap.log"
rc=0
# shellcheck source=tests/lib/tap.sh
(. "$lib/tap.sh" && bail_out x "why" "and how") >"$tmp/tap2.log" || rc=$?
want_eq "bail_out's lines and status" "ok 1 - a|not ok 2 - no server|Bail out! no server" \
	"$(paste -sd '|' "$tmp/tap.log")"
want_eq "bail_out WHY LINE...: its lines and status" "not ok 1 - x|#   why|#   and how|Bail out! x|1" \
	"$(paste -sd '|' "$tmp/tap2.log")|$rc"
rm -f "$tmp/tap.log"
got=0
kc_tap_verdict step "$tmp/tap.log" 0 5 >"$tmp/verdict" || got=$?
want_eq "no log: status" 1 "$got"
want_eq "no log" "FAIL step: 0 ok, 0 not ok (5 s), no plan 1..0: it stopped before its end" "$(tail -n 1 "$tmp/verdict")"
finish "kc_tap_verdict: PASS only for exit 0, a test passed, none failed, and the plan; a bail-out"

# kc_count: verdict lines counted, a sub-tier's closing line dropped, a step that fails
# without a verdict counted as one more FAIL
steps() {	# RC LINE...: print the LINEs, exit RC (in kc_count's subshell)
	local rc=$1
	shift
	printf '%s\n' "$@"
	return "$rc"
}
count_of() {	# WANT-PASSED WANT-FAILED WANT-OUTPUT RC LINE...
	local passed=0 failed=0 want=("$1" "$2" "$3")
	shift 3
	kc_count steps "$@" >"$tmp/counted"
	want_eq "kc_count steps $*" "${want[*]}" "$passed $failed $(paste -sd '|' "$tmp/counted")"
}
count_of 2 1 "PASS a|    not ok 1 - x|FAIL b|SKIP c|PASS d" 1 "PASS a" "    not ok 1 - x" "FAIL b" "SKIP c" "PASS d" "2 passed, 1 failed"
count_of 1 0 "PASS a" 0 "PASS a"
count_of 1 1 "PASS a|FAIL steps: exit 3, with no verdict (a harness error)" 3 "PASS a"
count_of 0 0 "" 0
finish "kc_count: PASS and FAIL lines counted, a harness error is a FAIL"

# make check's depth: which scenarios each kind of kernel runs (matrix.sh's kc_depth,
# pack.sh's kc_scenarios and kc_chosen) and its loads (kc_depth_vms), on the tree's own
# scenarios; FULL=1 runs them all
# shellcheck source=tests/lib/pack.sh
. "$here/../lib/pack.sh"
chosen() {	# WANT ID [VAR=VALUE...]: the numbers of ID's scenarios at depth, and its VMs
	local expect=$1 id=$2
	shift 2
	got=$(
		for v; do export "${v?}"; done
		KC_OPT_SCENARIOS=("$here/../scenarios") KC_OPT_ONLY=${ONLY:-} KC_OPT_DEPTH=1 KC_OPT_ARGS=${ARGS:-}
		KC_OPT_ICOUNT=${ICOUNT:-} KC_OPT_VMS=''
		echo "$(kc_scenarios "$id" | sed 's#.*/\(..\)-.*#\1#' | paste -sd ' ') vms=$(kc_vms "$id")"
	)
	want_eq "$id $*" "$expect" "$got"
}
# every scenario without a boot or a clock of its own (55-teardown, 63-no-debugfs)
all=''
for f in "$here"/../scenarios/*.sh; do
	f=${f##*/}
	[[ $f == 55-* || $f == 63-* ]] || all+="${all:+ }${f:0:2}"
done
chosen "00 10 30 57 90 95 vms=20" x86_64-5.10
chosen "00 10 30 57 90 95 vms=20" arm64-6.12-rt
chosen "${all/ 60/} vms=40" x86_64-6.1
chosen "${all/ 45/} vms=40" arm64-7.x
chosen "55 vms=40" arm64-7.x KC_ICOUNT_BOOT=1 ICOUNT=0
chosen " vms=40" x86_64-6.1 KC_ICOUNT_BOOT=1 ICOUNT=0
chosen "63 vms=40" x86_64-6.1 ARGS=debugfs=off
chosen "$all vms=40" x86_64-5.10 FULL=1
chosen "55 vms=40" x86_64-5.10 FULL=1 KC_ICOUNT_BOOT=1 ICOUNT=0
chosen "00 30 40 57 90 95 vms=40" x86_64-debug
chosen "10 30 60 62 65 vms=20" x86_64-5.10 "ONLY=1* 3* 6* !35-* !63-*"
chosen "${all/ 45/} vms=20" x86_64-5.10 "ONLY=!45-*"
chosen " vms=20" x86_64-5.10 "ONLY=!*"
finish "make check's depth: the scenarios and loads of a core, wide, debug and full kernel; ! leaves out"

# make soak's table (tests/soak/report.awk) of a real soak's lines (a short one of
# 2026-12-07: 180 VMs and 4 QEMUs), byte for byte; a log without a checkpoint says so
soak=$here/../soak/report.awk
cat >"$tmp/want" <<'EOF2'
ck    wave    VMs QEMUs counted   secs  slab MiB (+KiB)  unrecl    vmalloc (+)   percpu    allocs   pairs      misses leaks
1        2     60     2      62    111  22.9 (0)         20.9      10044 (0)     608k      380(0)   0/0/0/0    0 0
2        4    120     2      92    193  22.9 (4)         20.8      10044 (0)     608k      380(0)   0/0/0/0    0 0
3        6    180     4     154    318  22.8 (-128)      20.8      10044 (0)     608k      380(0)   0/0/0/0    0 0
180 VMs and 4 QEMUs in 321 s: 0.56 VMs/s
EOF2
want_eq "the table" "$(cat "$tmp/want")" "$(awk -f "$soak" "$here/../fixtures/soak/x86_64-debug-180.log")"
want_eq "a serial log's CRs" "$(cat "$tmp/want")" "$(sed 's/$/\r/' "$here/../fixtures/soak/x86_64-debug-180.log" | awk -f "$soak")"
want_eq "no checkpoint" "no checkpoint in the log" "$(grep -v checkpoint "$here/../fixtures/soak/x86_64-debug-180.log" | awk -f "$soak")"
finish "make soak's table of its checkpoints"

done_suite harness

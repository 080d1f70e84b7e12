#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The benchmark's reports (tests/bench/MODE/*.awk, which tests/bench/bench.sh runs on a
# boot's log), run here as awk programs on inputs made up here or saved from a boot,
# each with one right answer; no bench script is sourced. make bench-count's report
# (count/), on a guest log and a plugin's counts with numbers chosen so that each
# class, each difference and each verdict has one right value: where each address goes
# (the kernel's mechanism and the rest, kvmchurn's and the floor's functions in two
# sections, read from a module file assembled here, a trampoline), which mark ends which
# run, and what a short or broken run prints. make bench's (rounds/) on a saved boot.
# Then bench.sh itself: its refusals, before anything is fetched.
#
# One TAP line a test (tests/lib/tap.sh), then "bench: N passed, N failed".

set -u
export LC_ALL=C
here=$(cd "$(dirname "$0")" && pwd)
bench=$here/../bench
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$here/lib.sh"
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT

# kosyms KO MODULE: count/kosyms.awk on the module file KO
kosyms() { { readelf -SW "$1" && readelf -sW "$1"; } | awk -v mod="$2" -f "$bench/count/kosyms.awk"; }

# count_report LOG COUNTS BUILD: make bench-count's report, as count/host.bash makes it:
# the module files' functions of BUILD, then the report of the guest's LOG and COUNTS
count_report() {
	{
		kosyms "$3/kvmchurn.ko" "[kvmchurn]"
		kosyms "$3/tests/bench/floor/kvmchurn_floor.ko" "[kvmchurn_floor]"
	} >"$2.kosyms"
	awk -v counts="$2" -f "$bench/goals.awk" -f "$bench/addr.awk" -f "$bench/count/syms.awk" \
		-f "$bench/count/report.awk" "$2.kosyms" - <"$1"
}

# mod FILE FUNCTION...: a module file whose .text holds each FUNCTION, 32 bytes
# each in order, and whose .text.unlikely holds FUNCTION_cold, 16 bytes
mod() {
	local f=$1 fn
	shift
	mkdir -p "$(dirname "$f")"
	{
		echo "	.text"
		for fn; do printf '\t.type %s, @function\n%s:\n\t.fill 32, 1, 0x90\n\t.size %s, 32\n' "$fn" "$fn" "$fn"; done
		echo '	.section .text.unlikely,"ax",@progbits'
		printf '\t.type %s_cold, @function\n%s_cold:\n\t.fill 16, 1, 0x90\n\t.size %s_cold, 16\n' "$1" "$1" "$1"
	} >"$f.s"
	gcc -c -o "$f" "$f.s"
}
mod "$tmp/build/kvmchurn.ko" kc_exit kc_free
mod "$tmp/build/tests/bench/floor/kvmchurn_floor.ko" kf_entry

# The guest's lines: the kernel's text from ...1000, its mechanism from ...1000 to
# ...1100, then the rest, to ...f000; kvm's core at c0000000 (64 KiB); the floor
# at c0100000 in F and W (64 KiB, its .text.unlikely at c0108000), kvmchurn at
# c0200000 in B (64 KiB, its .text.unlikely at c0208000) and c0300000 in V;
# anything else, outside them (a trampoline at c0400000), is the mechanism.
# 10 exits a run.
log() {
	cat <<-'EOF'
		# count sym ffffffff81001000 _stext rest
		# count sym ffffffff81001000 kprobe_ftrace_handler mechanism
		# count sym ffffffff81001100 do_exit rest
		# count sym ffffffff8100f000 _etext outside
		# count module A 0xffffffffc0000000 65536 [kvm]
		# count run A 2 10 250000
		# count module F 0xffffffffc0000000 65536 [kvm]
		# count module F 0xffffffffc0100000 65536 [kvmchurn_floor]
		# count section F [kvmchurn_floor] .text 0xffffffffc0100000
		# count section F [kvmchurn_floor] .text.unlikely 0xffffffffc0108000
		# count run F 4 10 250500
		# count module B 0xffffffffc0000000 65536 [kvm]
		# count module B 0xffffffffc0200000 65536 [kvmchurn]
		# count section B [kvmchurn] .text 0xffffffffc0200000
		# count section B [kvmchurn] .text.unlikely 0xffffffffc0208000
		# count run B 6 10 250600
	EOF
}
# The counts: mark 1 (before A) and the odd marks are what ran between runs;
# in A 15 an exit in the mechanism (rethook_flush_task, whatever is loaded);
# F adds 400 of mechanism (300 in the kernel, 100 in the trampoline) and 10
# of the floor's handler; B the same 400 and 110 of its handlers (kc_exit 60,
# kc_free 40, kc_exit_cold 10).
counts() {
	cat <<-'EOF'
		mark 1
		ffffffff81001010 999999
		mark 2
		ffffffff81001010 150
		ffffffff81002000 2000000
		mark 3
		ffffffffc0200000 77777
		mark 4
		ffffffff81001010 3150
		ffffffffc0400010 1000
		ffffffffc0100004 100
		ffffffff81002000 2005000
		mark 5
		mark 6
		ffffffff81001010 3150
		ffffffffc0400010 1000
		ffffffffc0200004 400
		ffffffffc0200010 200
		ffffffffc0200020 400
		ffffffffc0208002 100
		ffffffffc0000040 50
		ffffffff81002000 2006000
		end 6
	EOF
}

log >"$tmp/log"
counts >"$tmp/counts"
count_report "$tmp/log" "$tmp/counts" "$tmp/build" >"$tmp/out" 2>&1
cat >"$tmp/want" <<'EOF'
  kernel instructions an exit, counted:
  A (10 exits, 200015 kernel instructions an exit):
    handler                                        0.0
    mechanism                                     15.0
    rest                                      200000.0
  F (10 exits, 200925 kernel instructions an exit):
    handler                                       10.0
    mechanism                                    415.0
    rest                                      200500.0
  B (10 exits, 201130 kernel instructions an exit):
    handler                                      110.0
    mechanism                                    415.0
    rest                                      200605.0
  F - A, the mechanism with empty handlers:              410.0
  B - F, kvmchurn's handlers less the empty ones:       100.0
  (B - F) / (F - A):                                     0.244  goal <= 0.25: met
  the mechanism in B against F (the same probes):        415.0 against 415.0
  A in those classes (what an exit runs there without probes): 15.0
  where F's mechanism goes, instructions an exit over A's (W beside, with VMs alive):
      300.0      0.0  kprobe_ftrace_handler
      100.0      0.0  [outside]
       10.0      0.0  kf_entry[kvmchurn_floor]
  where B's handlers go, instructions an exit (V beside, with VMs alive):
       60.0      0.0  kc_exit[kvmchurn]
       40.0      0.0  kc_free[kvmchurn]
       10.0      0.0  kc_exit_cold[kvmchurn]
EOF
want_same out "$tmp/want"
finish "A F B: each address to its class, the ratio met"

# V and W: the same VMs alive under kvmchurn (at c0300000) and the floor; W's
# mechanism is F's, V's handlers 10 more than B's: 10 %, within the goal
{
	log
	cat <<-'EOF'
		# count alive 1000 pairs:1000 live:1000
		# count module V 0xffffffffc0300000 65536 [kvmchurn]
		# count section V [kvmchurn] .text 0xffffffffc0300000
		# count run V 8 10 251000
		# count module W 0xffffffffc0100000 65536 [kvmchurn_floor]
		# count section W [kvmchurn_floor] .text 0xffffffffc0100000
		# count run W 10 10 250900
	EOF
} >"$tmp/log"
{
	counts
	cat <<-'EOF'
		mark 7
		mark 8
		ffffffff81001010 4150
		ffffffffc0300000 1200
		mark 9
		mark 10
		ffffffff81001010 4150
		ffffffffc0100000 100
	EOF
} >"$tmp/counts"
count_report "$tmp/log" "$tmp/counts" "$tmp/build" >"$tmp/out" 2>&1
want_eq "the heading" "  kernel instructions an exit, counted (V and W: 1000 VMs alive (pairs:1000 live:1000)):" "$(head -n 1 "$tmp/out")"
want_eq "W - A" "  W - A, the mechanism with VMs alive:                   410.0  against F - A 410.0" "$(grep '^  W - A' "$tmp/out")"
want_eq "V - W" "  V - W, kvmchurn's handlers with VMs alive:             110.0  against B - F 100.0: does not grow (goal <= 1.1 times)" "$(grep '^  V - W' "$tmp/out")"
want_eq "V beside B" "       60.0    120.0  kc_exit[kvmchurn]" "$(grep 'kc_exit\[' "$tmp/out")"
finish "V and W: 10 % more handlers with VMs alive does not grow"

sed -i 's/^ffffffffc0300000 1200$/ffffffffc0300000 1300/' "$tmp/counts"
count_report "$tmp/log" "$tmp/counts" "$tmp/build" >"$tmp/out" 2>&1
want_eq "V - W" "  V - W, kvmchurn's handlers with VMs alive:             120.0  against B - F 100.0: GROWS" "$(grep '^  V - W' "$tmp/out")"
finish "V and W: 20 % more handlers with VMs alive grows"

# B's handlers at 120 an exit against a mechanism of 410: not met; the plugin full
log >"$tmp/log"
counts | sed 's/^ffffffffc0200020 400$/ffffffffc0200020 500/; s/^end 6$/full\nend 6/' >"$tmp/counts"
count_report "$tmp/log" "$tmp/counts" "$tmp/build" >"$tmp/out" 2>&1
want_eq "the ratio" "  (B - F) / (F - A):                                     0.268  goal <= 0.25: NOT met" "$(grep '^  (B - F)' "$tmp/out")"
want_eq "the warning" "  the plugin ran out of counters: some instructions were not counted" "$(head -n 1 "$tmp/out")"
finish "a ratio above 0.25 is not met, and a full plugin says so"

# the plugin's file ends after A's mark: F and B have no counts, and no ratio
counts | sed '/^mark 3$/,$d' >"$tmp/counts"
count_report "$tmp/log" "$tmp/counts" "$tmp/build" >"$tmp/out" 2>&1
want_eq "the missing runs" "  F: the plugin wrote no mark 4, so no counts|  B: the plugin wrote no mark 6, so no counts" \
	"$(grep 'no mark' "$tmp/out" | sort -k1,1r | paste -sd '|')"
grep -q '^  A (10 exits, 200015 ' "$tmp/out" || problems+=("A's counts are not reported")
! grep -q '^  F - A\|^  (B - F)' "$tmp/out" || problems+=("a ratio is printed without F and B")
finish "a run whose mark the plugin never wrote is left out"

# outside the kernel's text and the modules: right after kvm's core, below the
# kernel's text, after _etext; inside them: kvm's last byte, the text's last
log >"$tmp/log"
counts | sed 's/^ffffffff81002000 2000000$/ffffffffc0010000 10\nffffffff81000fff 20\nffffffff8100f000 40\nffffffffc000ffff 1000\nffffffff8100efff 2000/' >"$tmp/counts"
count_report "$tmp/log" "$tmp/counts" "$tmp/build" >"$tmp/out" 2>&1
want_eq "A's mechanism" "    mechanism                                     22.0" "$(sed -n '/^  A (/,/^  F (/p' "$tmp/out" | grep "^    mechanism")"
want_eq "A's rest" "    rest                                         300.0" "$(sed -n '/^  A (/,/^  F (/p' "$tmp/out" | grep "^    rest")"
finish "code outside the kernel's text and the modules is the mechanism"

# a boot that counted nothing
printf '# count sym ffffffff81001000 kprobe_ftrace_handler mechanism\n' >"$tmp/log"
count_report "$tmp/log" "$tmp/counts" "$tmp/build" >"$tmp/out" 2>&1
want_eq "the report" "  no run was counted (the boot's not ok lines say why)" "$(cat "$tmp/out")"
finish "no run, no report"

# the module files' functions, by section and offset
kosyms "$tmp/build/kvmchurn.ko" "[kvmchurn]" | sort >"$tmp/out"
want_eq "kvmchurn.ko" "[kvmchurn] .text 0000000000000000 kc_exit|[kvmchurn] .text 0000000000000020 kc_free|[kvmchurn] .text 000040 [end]|[kvmchurn] .text.unlikely 0000000000000000 kc_exit_cold|[kvmchurn] .text.unlikely 000010 [end]" \
	"$(paste -sd '|' "$tmp/out")"
finish "a module file's functions and text sections' ends"

# within kvmchurn's core but past its text sections: the end of .text, the end
# of .text.unlikely, a trampoline the kernel put there (as 7.x does): mechanism
{
	log
	echo "# count tramp B ffffffffc0209000 ftrace_trampoline[__builtin__ftrace]"
} >"$tmp/log"
counts | sed 's/^ffffffffc0000040 50$/ffffffffc0200040 50\nffffffffc0208010 30\nffffffffc0209010 100/' >"$tmp/counts"
count_report "$tmp/log" "$tmp/counts" "$tmp/build" >"$tmp/out" 2>&1
want_eq "B's handlers" "    handler                                      110.0" "$(sed -n '/^  B (/,/^  F - A/p' "$tmp/out" | grep "^    handler")"
want_eq "B's mechanism" "    mechanism                                    433.0" "$(sed -n '/^  B (/,/^  F - A/p' "$tmp/out" | grep "^    mechanism")"
want_eq "B's rest" "    rest                                      200600.0" "$(sed -n '/^  B (/,/^  F - A/p' "$tmp/out" | grep "^    rest")"
finish "past kvmchurn's text sections, in its core, is the mechanism"

# make bench's report (rounds/report.awk) on the "# bench" lines of a real boot (arm64
# 6.1, 2026-12-06, --only rounds: 3 rounds of 2,000 exits and 60 VMs, icount), the bytes
# it printed then
awk -v clock=icount -v only=rounds -v storm=256 -v storm_mib=1 -f "$bench/goals.awk" \
	-f "$bench/rounds/report.awk" "$here/../fixtures/bench/arm64-6.1-rounds.log" >"$tmp/out" 2>&1
want_eq "the report" "" "$(diff "$here/expected/bench/arm64-6.1-rounds.report" "$tmp/out")"
finish "make bench's report of a saved boot is the one it printed"

# make bench without the seed, which kvmchurn does not ship: a refusal that says what to
# give, exit 2, before anything is fetched or booted (the cache folder stays unmade)
bench_run() { KVMCHURN_CACHE=$tmp/nocache bash "$bench/bench.sh" rounds "$@" >"$tmp/out" 2>&1; echo $?; }
: >"$tmp/empty.bt"
echo 'BEGIN { }' >"$tmp/seed.bt"
chmod 0 "$tmp/seed.bt"
want_eq "no seed: exit" 2 "$(bench_run x86_64-6.1)"
want_eq "no seed: the message" "bench.sh: make bench runs the seed script beside kvmchurn, and kvmchurn does not ship it (it carries no licence): give your copy, make bench SEED=/path/to/kvm_churn_breakdown.bt" "$(cat "$tmp/out")"
want_eq "--seed without a path: exit" 2 "$(bench_run --seed)"
want_eq "--seed without a path: the message" "bench.sh: --seed needs a path" "$(cat "$tmp/out")"
for bad in "$tmp/none.bt" "$tmp/empty.bt" "$tmp"; do
	want_eq "--seed $bad: exit" 2 "$(bench_run --seed "$bad" x86_64-6.1)"
	want_eq "--seed $bad: the message" "bench.sh: the seed script $bad is not a readable, non-empty file: give your copy of kvm_churn_breakdown.bt" "$(cat "$tmp/out")"
done
# root reads any file: unreadable only for others
if ((EUID != 0)); then
	want_eq "--seed unreadable: exit" 2 "$(bench_run "--seed=$tmp/seed.bt")"
fi
want_eq "an unknown flag: exit" 2 "$(bench_run --seeds x)"
want_eq "an unknown flag: the message" "bench.sh: unknown option --seeds" "$(head -n 1 "$tmp/out")"
want_eq "--help: exit" 0 "$(bench_run --help)"
want_eq "--help: the usage" "usage: tests/bench/bench.sh MODE [OPTION...] [ID...]" "$(head -n 1 "$tmp/out")"
want_eq "nothing fetched" "" "$(ls -A "$tmp/nocache" 2>/dev/null)"
finish "make bench refuses to run without the user's seed, before it fetches"

done_suite bench

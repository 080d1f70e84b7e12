#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Unit tests of the kvmchurn client on the host: no KVM, no root. Builds
# nothing: `make check-unit` builds the client first.
#
# Options: tests/unit/lib.sh's unit_options (--client, --version, --fakekvm,
# --regen, --tests, --no-promtool).
#
# One TAP line a test (tests/lib/tap.sh; the difference as "#" lines), then
# "client: N passed, N failed"; the exit status is 1 if any failed.

set -u
export LC_ALL=C
# `kvmchurn vms` prints local times
export TZ=UTC

here=$(cd "$(dirname "$0")" && pwd)
expected=$here/expected
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$here/lib.sh"
unit_options "$@"
client=$(unit_client) || exit 2
fakekvm=$opt_fakekvm
tmp=$(mktemp -d) || exit 1
trap 'chattr -R -i "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
# The module's parameters (the controls' fallback under lockdown): none here,
# unless a test makes a folder of them; never the host's.
export KVMCHURN_PARAMS=$tmp/no-params

# run ARGS...: the client's status in $rc, its output in $tmp/out, $tmp/err.
run() {
	"$client" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
}

# Processes named COMM, zombies included: there must be none once the
# client has returned.
want_no_process() {
	named "$1" 0 || problems+=("processes named $1 left behind")
}

# usage NAME ARGS...: exit status 64, nothing on stdout, and stderr exactly
# expected/NAME.err.
usage() {
	local name=$1

	shift
	run "$@"
	want_rc 64
	want_same out empty
	want_same err "$expected/$name.err"
	finish "$name"
}

comm=kc-unit-$$		# the VMs' name in the tests that start some

# ---- output of the frame ---------------------------------------------------

run --version
want_rc 0
want_same err empty
if [ -n "$opt_version" ]; then
	printf 'kvmchurn %s\n' "$opt_version" >"$tmp/version"
	want_same out "$tmp/version"
else
	want_grep out '^kvmchurn [^ ]+$'
fi
finish version

run --help
want_rc 0
want_same out "$expected/help.txt"
want_same err empty
finish help

run help
want_rc 0
want_same out "$expected/help.txt"
want_same err empty
finish help-without-command

run help load
want_rc 0
want_same out "$expected/help-load.txt"
want_same err empty
finish help-load

run load --help
want_rc 0
want_same out "$expected/help-load.txt"
finish load-help-option

# No command runs show, with the global options (as `wg` alone is `wg show`):
# the same output, and the same error with show's name.
for dir in "$here"/../fixtures/*-kill "$here"/../fixtures/hand/absent; do
	id=$(basename "$dir")
	run -d "$dir" show
	cp "$tmp/out" "$tmp/show"
	run -d "$dir"
	want_rc 0
	want_same err empty
	want_same out "$tmp/show"
	[ -s "$tmp/out" ] || problems+=("nothing shown")
	finish "no command is show: $id"
done
run -d /nonexistent/kvmchurn
want_rc 2
want_same out empty
want_same err "$expected/no-command.err"
finish "no command is show: its error"

# ---- usage errors: exit status 64 and the exact message ------------------

usage unknown-command bogus
usage plot-diff-one-operand plot --diff a
usage plot-diff-and-hist plot --diff --hist a b
usage plot-extra-operand plot extra
usage plot-hist-two-operands plot --hist a b
usage plot-diff-slowest plot --diff --slowest a b
usage plot-n-zero plot -n 0
usage vms-trace-event-live vms --trace-event --live
usage unknown-global-option --bogus
usage help-unknown-command help bogus
usage unknown-option load --bogus
usage option-needs-value load -n
usage flag-takes-no-value load --run=yes
usage unexpected-argument load extra
usage n-not-a-number load -n abc
usage n-zero load -n 0
usage n-negative load -n -5
usage j-zero load -j 0
usage vcpus-zero load --vcpus 0
usage mem-too-large load --mem 3073
usage comm-too-long load --comm firecracker-vm-1
usage comm-empty load --comm ''
usage end-bogus load --end bogus
usage n-and-t load -n 5 -t 10
usage term-default-without-term load --term-default
usage term-default-with-kill load --end kill --term-default
usage together-with-exit load --together --end exit
usage together-with-close load --together --end close
usage backing-bogus load --backing bogus
usage backing-file-without-mem-file load --backing file
usage mem-file-without-backing-file load --mem-file /etc/hostname
usage hugetlb-odd-mem load --backing hugetlb --mem 3
usage kill-after-without-term load --kill-after 2
usage kill-after-with-kill load --end kill --kill-after 2
usage kill-after-zero load --end term --kill-after 0
usage kill-after-not-below-timeout load --end term --kill-after 60
usage ignore-term-without-kill-after load --end term --ignore-term
usage ignore-term-with-term-default load --end term --kill-after 2 --ignore-term --term-default

# ---- the commands that read and write the module's files ------------------

# shellcheck source=tests/unit/reading.sh
. "$here/reading.sh"
# shellcheck source=tests/unit/live.sh
. "$here/live.sh"

# ---- cannot start: exit status 2, the exact message, nothing left ---------

run load --dev /nonexistent --comm "$comm" -j 4 -n 20
want_rc 2
want_same out empty
want_same err "$expected/dev-nonexistent.err"
want_no_process "$comm"
finish dev-nonexistent

run load --dev /dev/null --comm "$comm" -j 4 -n 20 --json
want_rc 2
want_same out empty
want_same err "$expected/dev-null.err"
want_no_process "$comm"
finish dev-null

# ---- VMs against a fake /dev/kvm (LD_PRELOAD) -----------------------------

# fake ENV=VALUE... -- ARGS...: runs `kvmchurn load --dev FAKE ARGS` with
# fakekvm.so preloaded and the environment given.
fake() {
	local env=()

	while [ "$1" != -- ]; do env+=("$1"); shift; done
	shift
	: >"$tmp/counter"
	env LD_PRELOAD="$fakekvm" FAKEKVM_DEV="$tmp/kvm" \
		FAKEKVM_COUNTER="$tmp/counter" "${env[@]}" \
		"$client" load --dev "$tmp/kvm" --comm "$comm" --mem 4 "$@" \
		>"$tmp/out" 2>"$tmp/err"
	rc=$?
}

# fake-json, fake-end-*: a run's JSON, all of it, and each way its VMs can end.
fake_output_tests() {
	local end

	fake -- -n 6 -j 3 --json
	want_rc 0
	want_same err empty
	want_grep out '^\{"version":"[^"]+","arch":"(x86_64|arm64)","comm":"'"$comm"'","end":"kill","term_default":false,"kill_after":null,"ignore_term":false,"vcpus":2,"mem_mib":4,"backing":"anon","mem_file":null,"irqfds":8,"run":false,"parallel":3,"together":false,"count":6,"seconds":null,'
	want_grep out '"started":6,"completed":6,"failed":0,"aborted":0,"interrupted":false,"waves":null,"killed_after":null,'
	want_grep out '"create_ms":\{"count":6,"p50":[0-9.]+,"p99":[0-9.]+,"max":[0-9.]+\},'
	want_grep out '"teardown_ms":\{"count":6,"p50":[0-9.]+,"p99":[0-9.]+,"max":[0-9.]+\},"rate_per_s":[0-9.]+,"wall_s":[0-9.]+,"pids":\[[1-9][0-9]*(,[1-9][0-9]*){5}\]\}$'
	python3 -c 'import json, sys; json.load(sys.stdin)' <"$tmp/out" 2>/dev/null ||
		problems+=("stdout is not valid JSON")
	want_no_process "$comm"
	finish fake-json

	for end in exit term kill close; do
		fake -- -n 4 -j 2 --run --vcpus 3 --end "$end"
		want_rc 0
		want_same err empty
		want_grep out '^VMs: +4 started, 4 completed, 0 failed$'
		# the 4 VMs' pids, each once
		want_eq "pids of 4 VMs" 4 "$(awk '$1 == "pids:" { for (i = 2; i <= NF; i++) if ($i ~ /^[1-9][0-9]*$/ && !s[$i]++) n++ } END { print n + 0 }' "$tmp/out")"
		want_no_process "$comm"
		finish "fake-end-$end"
	done

	fake -- -n 3 --end term --term-default
	want_rc 0
	want_grep out '^teardown: +p50 .* \(SIGTERM to reaped\)$'
	finish fake-end-term-default
}

# fake-backing-*: each --backing, and a --mem-file too short or missing.
fake_backing_tests() {
	local backing

	# --backing: each kind maps and touches the guest memory its own way
	for backing in anon thp memfd; do
		fake -- -n 3 -j 3 --run --backing "$backing" --json
		want_rc 0
		want_same err empty
		want_grep out '"mem_mib":4,"backing":"'"$backing"'","mem_file":null,"irqfds":8,'
		want_grep out '"started":3,"completed":3,"failed":0,'
		want_no_process "$comm"
		finish "fake-backing-$backing"
	done
	head -c $((4 << 20)) /dev/zero >"$tmp/snapshot"
	fake -- -n 3 -j 3 --run --backing file --mem-file "$tmp/snapshot" --json
	want_rc 0
	want_same err empty
	want_grep out '"backing":"file","mem_file":"'"$tmp/snapshot"'",'
	want_grep out '"started":3,"completed":3,"failed":0,'
	finish fake-backing-file
	# a snapshot file smaller than the guest: the first VM says so, exit 2
	head -c $((2 << 20)) /dev/zero >"$tmp/snapshot"
	fake -- -n 3 --backing file --mem-file "$tmp/snapshot"
	want_rc 2
	want_same out empty
	want_grep err "^kvmchurn load: VM 1: $tmp/snapshot: not a file of 4 MiB or more\$"
	want_no_process "$comm"
	finish fake-backing-file-short
	fake -- -n 3 --backing file --mem-file "$tmp/none"
	want_rc 2
	want_grep err "^kvmchurn load: VM 1: open $tmp/none: No such file or directory\$"
	finish fake-backing-file-missing
	# hugetlb: only where 2 MiB pages are reserved; without, the hint
	if [ "$(cat /proc/sys/vm/nr_hugepages 2>/dev/null || echo 0)" -ge 6 ]; then
		fake -- -n 3 -j 3 --backing hugetlb
		want_rc 0
		want_grep out '^VMs: +3 started, 3 completed, 0 failed$'
	else
		fake -- -n 3 --backing hugetlb
		want_rc 2
		want_grep err '^kvmchurn load: VM 1: mmap of 4 MiB of 2 MiB huge pages: reserve them first \(/proc/sys/vm/nr_hugepages\): Cannot allocate memory$'
	fi
	want_no_process "$comm"
	finish fake-backing-hugetlb
}

# fake-kill-after-*: --kill-after's SIGKILL, when it is needed and when not.
fake_kill_after_tests() {
	# --kill-after: VMs that ignore SIGTERM all end by the SIGKILL, a grace later
	fake -- -n 4 -j 2 --end term --ignore-term --kill-after 1
	want_rc 0
	want_same err empty
	want_grep out '^VMs: +4 started, 4 completed, 0 failed$'
	want_grep out '^grace: +4 SIGKILLed, still there 1 s after SIGTERM$'
	want_grep out '^teardown: +p50 [0-9.]+ ms, p99 [0-9.]+ ms, max [0-9.]+ ms \(SIGTERM to reaped, SIGKILL after the grace\)$'
	# the grace is kept: no VM went before it
	want_eq "teardown p50 at least the grace" 1 \
		"$(awk '$1 == "teardown:" { print ($3 >= 1000) ? 1 : 0 }' "$tmp/out")"
	want_no_process "$comm"
	finish fake-kill-after-ignored

	# ... and VMs that leave on SIGTERM never see it
	fake -- -n 4 -j 2 --end term --kill-after 30 --json
	want_rc 0
	want_same err empty
	want_grep out '"end":"term","term_default":false,"kill_after":30,"ignore_term":false,'
	want_grep out '"started":4,"completed":4,"failed":0,"aborted":0,"interrupted":false,"waves":null,"killed_after":0,'
	want_no_process "$comm"
	finish fake-kill-after-unused
}

# fake-together-*: --together's waves, and a wave that waits for a hung VM.
fake_together_tests() {
	# --together: waves of -j (the first VM starts alone, then waits for its wave)
	fake -- -n 7 -j 3 --together --json
	want_rc 0
	want_same err empty
	want_grep out '"parallel":3,"together":true,"count":7,'
	want_grep out '"started":7,"completed":7,"failed":0,"aborted":0,"interrupted":false,"waves":3,'
	want_no_process "$comm"
	finish fake-together-waves

	fake -- -n 6 -j 3 --together --end term
	want_rc 0
	want_same err empty
	want_grep out '^VMs: +6 started, 6 completed, 0 failed$'
	want_grep out '^waves: +2 \(every VM alive ended at once\)$'
	finish fake-together-term

	# The third VM to open the device (VM 2 or 3: they start together) never
	# gets ready: VM 1 and the other, ready, wait for it (alive, not killed)
	# until its timeout; then VM 4 takes its place and the wave of three ends
	# together.
	: >"$tmp/counter"
	env LD_PRELOAD="$fakekvm" FAKEKVM_DEV="$tmp/kvm" FAKEKVM_HANG=KVM_RUN \
		FAKEKVM_EVERY=3 FAKEKVM_COUNTER="$tmp/counter" \
		"$client" load --dev "$tmp/kvm" --comm "$comm" --mem 4 --run -n 4 -j 3 \
		--together --timeout 15 >"$tmp/out" 2>"$tmp/err" &
	local tpid=$!
	wait_for 60 grep -q 3 "$tmp/counter"
	# the three of the wave, while the third hangs (its 15 s are the margin: on a
	# busy host 5 were not)
	wait_for 12 named "$comm" 3 || problems+=("not 3 VM processes alive while one hangs")
	wait "$tpid"
	rc=$?
	want_rc 1
	want_grep err '^kvmchurn load: VM [23]: not ready after 15 s$'
	want_grep out '^VMs: +4 started, 3 completed, 1 failed$'
	want_grep out '^waves: +1 '
	want_no_process "$comm"
	finish fake-together-wait
}

# fake-seconds, then failures: counted and reported, or fatal at the first.
fake_failure_tests() {
	fake -- -t 1 -j 2
	want_rc 0
	want_grep out '^VMs: +[1-9][0-9]* started, [1-9][0-9]* completed, 0 failed$'
	finish fake-seconds

	# Later failures are counted and reported; the run goes on.
	fake FAKEKVM_FAIL=KVM_IRQFD FAKEKVM_EVERY=3 -- -n 7
	want_rc 1
	want_same err "$expected/fake-later-failures.err"
	want_grep out '^VMs: +7 started, 5 completed, 2 failed$'
	want_no_process "$comm"
	finish fake-later-failures

	fake FAKEKVM_FAIL=KVM_CREATE_VM FAKEKVM_ERRNO=16 -- -n 5 -j 3
	want_rc 2
	want_same out empty
	want_same err "$expected/fake-first-failure.err"
	want_no_process "$comm"
	finish fake-first-failure

	fake FAKEKVM_HANG=KVM_RUN FAKEKVM_EVERY=2 -- -n 3 --run --timeout 1
	want_rc 1
	want_same err "$expected/fake-timeout.err"
	want_grep out '^VMs: +3 started, 2 completed, 1 failed$'
	want_no_process "$comm"
	finish fake-timeout
}

# fake-sigint: an interrupted run leaves no VM behind and still sums up.
fake_sigint_test() {
	# SIGINT: the client kills and reaps its VMs, then sums up.
	: >"$tmp/counter"
	env LD_PRELOAD="$fakekvm" FAKEKVM_DEV="$tmp/kvm" FAKEKVM_HANG=KVM_RUN \
		FAKEKVM_EVERY=2 FAKEKVM_COUNTER="$tmp/counter" \
		"$client" load --dev "$tmp/kvm" --comm "$comm" --mem 4 --run -n 3 \
		>"$tmp/out" 2>"$tmp/err" &
	local pid=$!
	# VM 2 opened the device: VM 1 has completed (-j 1), VM 2 hangs.
	wait_for 60 grep -q 2 "$tmp/counter"
	kill -INT "$pid"
	wait "$pid"
	rc=$?
	want_rc 1
	want_same err empty
	want_grep out '^VMs: +2 started, 1 completed, 0 failed, 1 aborted \(interrupted by SIGINT\)$'
	want_no_process "$comm"
	finish fake-sigint
}

# The tests against the fake /dev/kvm, kind by kind, in the order they report.
fake_tests() {
	fake_output_tests
	fake_backing_tests
	fake_kill_after_tests
	fake_together_tests
	fake_failure_tests
	fake_sigint_test
}

touch "$tmp/kvm"
if [ -z "$fakekvm" ]; then
	echo "# fake-KVM tests skipped: no --fakekvm"
else
	fake -- -n 1
	if grep -q 'is not a KVM device' "$tmp/err"; then
		echo "# fake-KVM tests skipped: the client is static, LD_PRELOAD cannot reach it"
	else
		fake_tests
	fi
fi

done_suite client

# shellcheck shell=sh
# SPDX-License-Identifier: GPL-2.0
#
# tap.sh: how every test of kvmchurn reports, in one dialect, as kselftest's
# ktap_helpers.sh does for the kernel's. Sourced by the guest's scenarios (busybox
# sh: as /kvmchurn/tap.sh, through tests/lib/guest/lib.sh), the chroot scripts of
# the dkms and qemu tiers, the prometheus tier and the unit tier (bash); plain POSIX sh.
#
#   ok N - NAME                 a test passed
#   not ok N - NAME             a test failed; "#" lines after it say why
#   ok N - NAME # SKIP WHY      a test that could not run here, and why
#   1..N                        the plan, at the end (tap_done)
#   Bail out! WHY               the script cannot go on: the tests after it never ran
#
# ok, not_ok, skip, diag, check, is and bail_out write them, everywhere: no layer
# renames them.
#
# The harnesses count the "ok" and "not ok" lines; N numbers the tests of one
# script.

tap_n=0
tap_failed=0
tap_skipped=0

# ok NAME: a test passed.
ok() {
	tap_n=$((tap_n + 1))
	echo "ok $tap_n - $*"
}

# not_ok NAME: a test failed; diag's lines after it say why.
not_ok() {
	tap_n=$((tap_n + 1))
	tap_failed=$((tap_failed + 1))
	echo "not ok $tap_n - $*"
}

# skip NAME WHY: a test that cannot run here.
skip() {
	tap_n=$((tap_n + 1))
	tap_skipped=$((tap_skipped + 1))
	echo "ok $tap_n - $1 # SKIP $2"
}

# diag LINE...: "#" lines, after a not ok or for the log.
diag() {
	for tap_line in "$@"; do
		echo "#   $tap_line"
	done
}

# check NAME COMMAND [ARG...]: one test, ok when COMMAND succeeds (run in this shell:
# a function's variables stay set), else "not ok NAME (exit N)"; what it printed
# follows as "#" lines either way. Returns COMMAND's status.
check() {
	tap_name=$1
	shift
	tap_out=${TMPDIR:-/tmp}/tap-check.$$
	"$@" >"$tap_out" 2>&1
	tap_rc=$?
	sed 's/^/# /' "$tap_out"
	rm -f "$tap_out"
	if [ "$tap_rc" -eq 0 ]; then ok "$tap_name"; else not_ok "$tap_name (exit $tap_rc)"; fi
	return "$tap_rc"
}

# is NAME GOT WANT: one test of one value, named with what it got.
is() {
	if [ "$2" = "$3" ]; then ok "$1: $2"; else not_ok "$1: $2, want $3"; fi
}

# bail_out WHY [LINE...]: the script cannot go on (a module that will not load, a server
# that will not start): a failed test named WHY, diag's LINEs, TAP's "Bail out! WHY", and
# exit 1. Every judge of a log (kc_tap_verdict, judge.awk) says that it bailed out, and why.
bail_out() {
	tap_why=$1
	shift
	not_ok "$tap_why"
	[ $# -eq 0 ] || diag "$@"
	echo "Bail out! $tap_why"
	exit 1
}

# tap_done: the plan; false if a test failed.
tap_done() {
	echo "1..$tap_n"
	[ "$tap_failed" -eq 0 ]
}

# now: seconds since boot (the guest's own clock, in a guest).
now() {
	read -r tap_up _ </proc/uptime
	echo "${tap_up%.*}"
}

# wait_for SECONDS COMMAND [ARG...]: run COMMAND (a function, so that what it
# looks at is read again each time) every 0.1 s until it succeeds; false if
# SECONDS pass first. A test waits for an event, never for a time: SECONDS only
# guards against a hang, far above what the event takes on a loaded host
# (tests/README.md).
wait_for() {
	tap_end=$(($(now) + $1))
	shift
	until "$@"; do
		[ "$(now)" -lt "$tap_end" ] || return 1
		sleep 0.1
	done
}

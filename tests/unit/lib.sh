# shellcheck shell=bash disable=SC2034,SC2154 # problems and rc are the suite's, here, tmp and rc set by it
# SPDX-License-Identifier: GPL-2.0
#
# lib.sh: the harness of the unit suites (run.sh with reading.sh, downtime.sh,
# packaging.sh), in the TAP of tests/lib/tap.sh. A test is a stretch of code
# that adds what it finds wrong to problems[], then `finish NAME`.
#
# Every suite takes the options of unit_options; tests/unit/tier.sh runs them all.
#
# The sourcing suite sets here (its folder) and tmp (a scratch folder) first.

# shellcheck source-path=SCRIPTDIR source=../lib/tap.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/tap.sh"

problems=()	# what the current test found wrong

# unit_options ARG...: a suite's options, all optional (tests/unit/tier.sh passes them):
#   --client PATH     the client (opt_client; default: userspace/kvmchurn of this tree)
#   --version V       --version must print exactly this version (opt_version)
#   --fakekvm PATH    tests/unit/fakekvm.so: the tests that run VMs against a fake
#                     /dev/kvm (opt_fakekvm)
#   --qtrace-gen PATH, --qtrace-fuzz PATH   downtime.sh's programs (default: beside it)
#   --regen           rewrite the expected outputs derived from the captured fixtures
#                     (tests/fixtures/refresh.sh does)
#   --tests 'GLOB...' only the tests whose names match report and count, such as
#                     'fake-* *--follow*'
#   --no-promtool     check Prometheus outputs with promcheck.py alone
# A bad one exits 2.
unit_options() {
	opt_client='' opt_version='' opt_fakekvm='' opt_gen='' opt_fuzz='' opt_regen='' opt_tests=''
	opt_no_promtool=''
	while (($#)); do
		case $1 in
		--regen) opt_regen=1; shift; continue ;;
		--no-promtool) opt_no_promtool=1; shift; continue ;;
		--client | --version | --fakekvm | --qtrace-gen | --qtrace-fuzz | --tests)
			(($# >= 2)) || { echo "$(basename "$0"): $1 needs a value" >&2; exit 2; } ;;
		*) echo "$(basename "$0"): unknown option $1 (tests/unit/lib.sh's unit_options lists them)" >&2; exit 2 ;;
		esac
		case $1 in
		--client) opt_client=$2 ;;
		--version) opt_version=$2 ;;
		--fakekvm) opt_fakekvm=$2 ;;
		--qtrace-gen) opt_gen=$2 ;;
		--qtrace-fuzz) opt_fuzz=$2 ;;
		--tests) opt_tests=$2 ;;
		esac
		shift 2
	done
}

# unit_client: the client the suite runs (--client, else this tree's userspace/kvmchurn);
# exits 2 when it is not there (a test that talks to it through a FIFO would wait for it
# for ever).
unit_client() {
	local c=${opt_client:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/userspace/kvmchurn}
	[[ -x $c && -f $c ]] || { echo "$(basename "$0"): the client $c is not there: run make client, or give --client PATH" >&2; exit 2; }
	echo "$c"
}

# suite_setup ARG...: for a suite that needs no more: its options (unit_options), top
# (the tree), client (--client, default this tree's userspace/kvmchurn, which must have
# been built) and tmp, a scratch folder removed at exit.
suite_setup() {
	unit_options "$@"
	top=$(cd "$here/../.." && pwd)
	client=$(unit_client) || exit 2
	tmp=$(mktemp -d) || return 1
	# shellcheck disable=SC2064 # tmp is fixed now
	trap "rm -rf '$tmp'" EXIT
}

# picked NAME: is NAME one of the tests asked for (all, without --tests)?
picked() {
	local g

	[[ -z ${opt_tests:-} ]] && return 0
	for g in $opt_tests; do
		# shellcheck disable=SC2053 # $g is a glob on purpose
		[[ $1 == $g ]] && return 0
	done
	return 1
}

# finish NAME: the test's line, ok when it found nothing wrong.
finish() {
	if picked "$1"; then
		if ((${#problems[@]} == 0)); then
			ok "$1"
		else
			not_ok "$1"
			diag "${problems[@]}"
		fi
	fi
	problems=()
}

# skip_test NAME WHY: a test that cannot run here (tap.sh's skip, when --tests picks it).
skip_test() {
	picked "$1" && skip "$1" "$2"
	problems=()
}

# result NAME WANT GOT: a test of one comparison, the difference word by word.
result() {
	[[ $2 == "$3" ]] ||
		mapfile -t problems < <(diff <(tr ' ' '\n' <<<"$2") <(tr ' ' '\n' <<<"$3"))
	finish "$1"
}

# done_suite SUITE: the plan (tap_done) and "SUITE: N passed, N failed"; false if any failed.
done_suite() {
	local rc=0

	tap_done || rc=1
	echo "$1: $((tap_n - tap_failed)) passed, $tap_failed failed"
	return "$rc"
}

want_rc() {
	((rc == $1)) || problems+=("exit status $rc, expected $1")
}

# want_same STREAM FILE|empty: $tmp/STREAM (out, err, or another file) is byte for byte FILE
want_same() {
	local got=$tmp/$1 line

	if [[ $2 == empty ]]; then
		[[ -s $got ]] && problems+=("std$1 is not empty:" "$(head -c 600 "$got")")
	elif [[ ! -f $2 ]]; then
		problems+=("${2#"$here"/} is missing")
	elif ! cmp -s "$got" "$2"; then
		problems+=("std$1 differs from ${2#"$here"/}:")
		while IFS= read -r line; do problems+=("$line"); done < <(diff "$2" "$got" | head -20)
	fi
}

want_grep() {	# STREAM EXTENDED-REGEX
	grep -Eq -- "$2" "$tmp/$1" || problems+=("std$1 lacks /$2/:" "$(head -c 600 "$tmp/$1")")
}

want_eq() {	# WHAT EXPECTED GOT
	[[ $2 == "$3" ]] || problems+=("$1: $3, expected $2")
}

# Conditions for wait_for (tests/lib/tap.sh), which each test waits on with a 60 s guard.
# has_line FILE EXTENDED-REGEX: FILE has a matching line.
has_line() { grep -Eq -- "$2" "$1" 2>/dev/null; }
# gone PID: the process has ended.
gone() { ! kill -0 "$1" 2>/dev/null; }
# catches PID SIGNAL-NUMBER: the process has a handler for the signal (SigCgt).
catches() {
	local mask

	mask=$(awk '$1 == "SigCgt:" { print $2 }' "/proc/$1/status" 2>/dev/null)
	[[ -n $mask ]] && (((16#$mask >> ($2 - 1)) & 1))
}
# named COMM N: exactly N processes are named COMM, zombies included.
named() {
	local p n=0

	for p in /proc/[0-9]*; do
		[[ $(cat "$p/comm" 2>/dev/null) == "$1" ]] && n=$((n + 1))
	done
	((n == $2))
}

# The parser of every JSON and Prometheus output: a real one, or no verdict.
python=$(command -v python3) ||
	{ echo "tests/unit: python3 is needed to parse the JSON outputs: apt-get install python3" >&2; exit 2; }

# json_ok [FILE]: FILE (default $tmp/out) parses as JSON, by Python's own parser.
json_ok() {
	"$python" -m json.tool <"${1:-$tmp/out}" >/dev/null 2>&1 ||
		problems+=("not JSON:" "$(head -c 300 "${1:-$tmp/out}")")
}

# prom_ok FILE: FILE is Prometheus' text format, by Prometheus' own parser (promtool
# check metrics: package prometheus; CI has it, the package build too, by
# Build-Depends) and by promcheck.py, which also checks that each histogram is whole
# (le increasing, counts cumulative, +Inf equal to _count), which promtool does not.
# Without promtool the test fails, unless --no-promtool says to do without.
prom_ok() {
	if command -v promtool >/dev/null; then
		promtool check metrics <"$1" >"$tmp/prom" 2>&1 ||
			problems+=("promtool check metrics:" "$(head -c 600 "$tmp/prom")")
	elif [[ -z ${opt_no_promtool:-} ]]; then
		problems+=("no promtool to check $(basename "$1"): apt-get install prometheus (or NO_PROMTOOL=1: promcheck.py alone)")
	fi
	"$python" "$here/promcheck.py" "$1" >"$tmp/prom" 2>&1 ||
		problems+=("not Prometheus' text format:" "$(head -c 600 "$tmp/prom")")
}

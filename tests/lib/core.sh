# shellcheck shell=bash disable=SC2034 # the variables set here are read by the sourcing scripts
# The core of the test harness, sourced by every tier's tier.sh and the core's entry
# points: where things are, logging, one run a cache, STRESS, and the loop over kernels.
# The kernel matrix, the archive and the builds are its parts (matrix.sh, apt.sh,
# build.sh), sourced here. Nothing here installs anything on the host.

KC_LIB=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
KC_TOP=$(cd "$KC_LIB/../.." && pwd)
KVMCHURN_CACHE=${KVMCHURN_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kvmchurn}
KC_FAIL=3 # a kernel's status for a judged failure (kc_run_tier); others: a harness error
# SCRIPTDIR, to shellcheck, is the folder of the script it checks, and it looks there first:
# a script that sources core.sh must not sit beside a file named as one of these three
# (tests/lib/debug-kernel/ once had a build.sh: it followed itself, 14 GB and 3 minutes).
# shellcheck source-path=SCRIPTDIR source=matrix.sh
. "$KC_LIB/matrix.sh"
# shellcheck source-path=SCRIPTDIR source=apt.sh
. "$KC_LIB/apt.sh"
# shellcheck source-path=SCRIPTDIR source=build.sh
. "$KC_LIB/build.sh"

kc_log() { printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
kc_die() { kc_log "error: $*"; exit 1; }

# kc_lock: one test run at a time per cache (they share the apt state and build folders).
# Scripts that a locked run starts inherit the lock.
kc_lock() {
	[[ ${KC_LOCKED:-} == 1 ]] && return 0
	mkdir -p "$KVMCHURN_CACHE"
	exec 9>"$KVMCHURN_CACHE/.lock"
	flock -n 9 || kc_die "another kvmchurn test run holds $KVMCHURN_CACHE/.lock"
	export KC_LOCKED=1
}

# kc_stress_start: with STRESS=N (`make check-vm STRESS=2`), N CPU hogs and a memory hog
# (stress-ng: --cpu N, and --vm 1 writing 1 GiB over and over) run beside the tier until
# it ends, however it ends: a verdict must not depend on an idle host. Scripts that a
# stressed run starts do not start more.
kc_stress_start() {
	local n=${STRESS:-0} pid
	[[ $n != 0 && -z ${KC_STRESSING:-} ]] || return 0
	[[ $n =~ ^[1-9][0-9]*$ ]] || kc_die "STRESS=$n: give the number of CPU hogs, such as STRESS=2"
	command -v stress-ng >/dev/null || kc_die "STRESS needs stress-ng: apt-get install stress-ng"
	setsid stress-ng --cpu "$n" --vm 1 --vm-bytes 1G --quiet </dev/null >/dev/null 2>&1 &
	pid=$!
	# the hogs end with this script: a watcher, since a trap would be any script's to replace
	(
		while kill -0 "$$" 2>/dev/null; do sleep 1; done
		kill -TERM -- "-$pid" 2>/dev/null
	) </dev/null >/dev/null 2>&1 &
	export KC_STRESSING=$n
	kc_log "STRESS=$n: stress-ng runs $n CPU hogs and a 1 GiB memory hog beside the tier"
}

# kc_verdict_log VERDICT ID: the serial log of ID's last boot, as boot.sh's output VERDICT
# names it ("    log: ..."); empty if it names none. A tier reads its boot's log so, not
# through logs/ID-latest.log, which another run of the same kernel moves meanwhile.
kc_verdict_log() {
	sed -n "s|^    log: \(.*/$2-[0-9]\{8\}-[0-9]\{6\}\.log\)\$|\1|p" "$1" | tail -n 1
}

# kc_tap_count LOG...: "OK NOTOK", the ok and not ok lines of TAP logs (tests/lib/tap.sh)
# summed; a missing log counts none.
kc_tap_count() {
	cat "$@" 2>/dev/null | awk '/^ok / { o++ } /^not ok / { n++ } END { print o + 0, n + 0 }'
}

# kc_tap_verdict NAME LOG RC SECS: the verdict line of a TAP log whose script exited RC,
# every tier's that runs one: PASS when RC is 0, a test passed and none failed, and the
# plan (1..N) counts them all, else FAIL after the failed tests and the log's path. A
# log without its plan is a script that stopped before its end, or bailed out (its
# "Bail out!" line says why). False on FAIL.
kc_tap_verdict() {
	local name=$1 log=$2 rc=$3 secs=$4 ok nok why='' bail
	read -r ok nok < <(kc_tap_count "$log")
	bail=$(sed -n 's/^Bail out! *//p' "$log" 2>/dev/null | head -n 1)
	if [[ -n $bail ]]; then
		why=", bailed out: $bail"
	elif ! grep -qx "1\.\.$((ok + nok))" "$log" 2>/dev/null; then
		why=", no plan 1..$((ok + nok)): it stopped before its end"
	fi
	if ((rc == 0 && nok == 0 && ok > 0)) && [[ -z $why ]]; then
		echo "PASS $name: $ok ok, 0 not ok ($secs s)"
		return 0
	fi
	{ grep -A3 '^not ok ' "$log" | sed 's/^/    /' | head -n 60; } 2>/dev/null || true
	echo "    log: $log"
	echo "FAIL $name: $ok ok, $nok not ok ($secs s)$( ((rc == 0)) || echo ", exit $rc")$why"
	return 1
}

# kc_count CMD...: CMD's verdict lines passed through, each PASS and FAIL one counted in
# the caller's passed and failed (a tier's closing line of its own dropped). A CMD that
# fails without a FAIL line failed in the harness: that is one more FAIL.
kc_count() {
	local line rc=0 before=$failed
	while IFS= read -r line; do
		case $line in
		PASS*) passed=$((passed + 1)) ;;
		FAIL*) failed=$((failed + 1)) ;;
		*[0-9]" passed, "*[0-9]" failed") continue ;;
		esac
		printf '%s\n' "$line"
	done < <("$@")
	wait $! || rc=$?
	if ((rc != 0 && failed == before)); then
		echo "FAIL ${1##*/}: exit $rc, with no verdict (a harness error)"
		failed=$((failed + 1))
	fi
}

# kc_summary PASSED FAILED: the closing line, and the exit status to use.
kc_summary() {
	echo "$1 passed, $2 failed"
	(($2 == 0))
}

# kc_tier_logged NAME FUNC: a host tier of one TAP script (prometheus, browser): FUNC's
# output into a log of this run's own, $KVMCHURN_CACHE/logs/NAME-DATE-PID.log (another
# run on the same cache writes its own: each judges only its lines), NAME.log linking to
# the newest; then the verdict and the closing line, and their exit status.
kc_tier_logged() {
	local name=$1 fn=$2 logs=$KVMCHURN_CACHE/logs log rc
	mkdir -p "$logs"
	log=$logs/$name-$(date +%Y%m%d-%H%M%S)-$$.log
	ln -sfn "${log##*/}" "$logs/$name.log"
	"$fn" 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	if kc_tap_verdict "$name" "$log" "$rc" "$SECONDS"; then kc_summary 1 0; else kc_summary 0 1; fi
}

# kc_ids_only USAGE ARG...: for an entry point that takes kernel ids alone: --help prints
# USAGE and exits 0; any other option is refused, with USAGE, exit 2.
kc_ids_only() {
	local usage=$1 a
	shift
	for a in "$@"; do
		case $a in
		--help) echo "$usage"; exit 0 ;;
		-*) printf '%s: unknown option %s\n%s\n' "${0##*/}" "$a" "$usage" >&2; exit 2 ;;
		esac
	done
}

# kc_run_tier FUNC [ID...]: fetch the kernels, run FUNC ID for each in a subshell of its
# own (one failing does not stop the others; FUNC returns KC_FAIL for a verdict of FAIL),
# then print the closing line.
kc_run_tier() {
	local fn=$1 list ids id rc passed=0 failed=0
	shift
	list=$(kc_ids "$@") # not in <(...): a bad id must stop the run
	mapfile -t ids <<<"$list"
	kc_lock
	kc_stress_start
	"$KC_LIB/fetch.sh" "${ids[@]}" || kc_log "some kernels could not be fetched"
	for id in "${ids[@]}"; do
		set +e
		(set -e; "$fn" "$id")
		rc=$?
		set -e
		case $rc in
		0) passed=$((passed + 1)) ;;
		"$KC_FAIL") failed=$((failed + 1)) ;;
		*)
			echo "FAIL $id: harness error (exit $rc)"
			failed=$((failed + 1))
			;;
		esac
	done
	kc_summary "$passed" "$failed"
}

#!/bin/sh
# 05-kunit: the KUnit suites of kvmchurn_test.ko (tests/kunit), which run when it is
# loaded. Prints one TAP line per test case from /sys/kernel/debug/kunit/kvmchurn_*/results
# (KTAP), then "# KUnit: N passed, N failed, N skipped" over those suites, hands each
# suite's KTAP back as kunit/<suite>.ktap and unloads the module.
# shellcheck source-path=SCRIPTDIR source=../../lib/guest/lib.sh
. /kvmchurn/lib.sh
KO=/kvmchurn/kvmchurn_test.ko
K=/sys/kernel/debug/kunit

# cases RESULTS: "STATUS NAME [REASON]" per test case (STATUS ok, fail or skip), then
# "plan N" with the number the suite announced. Test cases are the KTAP lines indented
# by exactly four spaces; deeper ones are the parameters of a case.
cases() {
	awk '
		/^    1\.\.[0-9]+$/ { sub(/^    1\.\./, ""); plan = $0; next }
		/^    (not )?ok [0-9]+ / {
			line = substr($0, 5)
			st = "ok"
			if (line ~ /^not /) { st = "fail"; line = substr(line, 5) }
			sub(/^ok [0-9]+ /, "", line)
			why = ""
			i = index(line, " # SKIP")
			if (i) {
				why = substr(line, i + 7)
				sub(/^ /, "", why)
				line = substr(line, 1, i - 1)
				if (st == "ok") st = "skip"
			}
			print st, line, why
		}
		END { print "plan", plan + 0 }' "$1"
}

dmesg -c >/dev/null
if [ ! -f "$KO" ]; then
	not_ok "kvmchurn_test.ko is in the guest"
	exit 0
fi
if ! insmod "$KO"; then
	not_ok "insmod kvmchurn_test.ko"
	exit 0
fi
ok "insmod kvmchurn_test.ko"

pass=0 fail=0 skip=0 suites=0
for d in "$K"/kvmchurn_*; do
	[ -d "$d" ] || continue
	s=${d##*/}
	suites=$((suites + 1))
	# a debugfs file says it is empty: read it to know
	cat "$d/results" >"/tmp/$s.ktap" 2>/dev/null
	if [ ! -s "/tmp/$s.ktap" ]; then
		not_ok "kunit $s: no results"
		continue
	fi
	n=0 plan=0 bad=0
	cases "/tmp/$s.ktap" >/tmp/kunit.cases
	while read -r st name why; do
		case $st in
		plan) plan=$name ;;
		ok) ok "kunit $s.$name"; pass=$((pass + 1)) n=$((n + 1)) ;;
		skip) ok "kunit $s.$name # SKIP ${why:-skipped}"; skip=$((skip + 1)) n=$((n + 1)) ;;
		*) not_ok "kunit $s.$name"; fail=$((fail + 1)) n=$((n + 1)) bad=1 ;;
		esac
	done </tmp/kunit.cases
	if [ "$n" = 0 ]; then
		not_ok "kunit $s: no test case results"
		bad=1
	elif [ "$n" != "$plan" ]; then
		not_ok "kunit $s: $n test case results, the suite planned $plan"
		bad=1
	fi
	# the failures' messages are in the suite's KTAP
	[ "$bad" = 0 ] || sed 's/^/# /' "/tmp/$s.ktap"
	kvmchurn-put "kunit/$s.ktap" "/tmp/$s.ktap" || not_ok "hand back kunit/$s.ktap"
done
[ "$suites" -gt 0 ] || not_ok "kunit: no kvmchurn_* suite in $K"
echo "# KUnit: $pass passed, $fail failed, $skip skipped"
# the debug kernel is made for these suites: a case that skips lacks something
is "KUnit: no case skipped" "$skip" 0

# What the suites allocated and never freed, while the module's symbols still name it.
# kmemleak reports an object older than 5 s that two scans in a row found unreferenced
# and unchanged.
ML=/sys/kernel/debug/kmemleak
if [ -w "$ML" ]; then
	sleep 5
	echo scan >"$ML"
	echo scan >"$ML"
	awk '/^unreferenced object/ { if (ours) printf "%s", rec; rec = ""; ours = 0 }
		{ rec = rec $0 "\n" } /\[kvmchurn_test\]/ { ours = 1 }
		END { if (ours) printf "%s", rec }' "$ML" >/tmp/kunit.leaks
	check "kmemleak: nothing the suites allocated leaked" [ ! -s /tmp/kunit.leaks ]
	sed 's/^/# /' /tmp/kunit.leaks
else
	ok "kmemleak: nothing the suites allocated leaked # SKIP no $ML"
fi

check "rmmod kvmchurn_test" rmmod kvmchurn_test
check "kunit results removed with the module" [ -z "$(ls -d "$K"/kvmchurn_* 2>/dev/null)" ]
bad=$(dmesg | grep -E 'WARNING|BUG|Oops|KASAN|UBSAN|lockdep|circular locking|inconsistent lock|suspicious RCU|ODEBUG')
check "dmesg holds no report of the debug checkers" [ -z "$bad" ]
[ -n "$bad" ] && echo "$bad" | sed 's/^/# /'
exit 0

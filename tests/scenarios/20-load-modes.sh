#!/bin/sh
# 20-load-modes: every way `kvmchurn load` can end a VM, on this kernel's real
# KVM, counted by the module: each VM must add exactly one exit_mmap and one
# exit_to_reap whatever the mode, and no VM process may be left behind.
# shellcheck source=../lib/guest/lib.sh
. /kvmchurn/lib.sh

# settled N: the reap counter reached N (frees run after an RCU grace period).

# leftovers: processes still named like a VM of this scenario.
leftovers() {
	for c in /proc/[0-9]*/comm; do
		read -r name <"$c" 2>/dev/null && [ "$name" = firecracker ] && echo "${c%/comm}"
	done
}

total=0
# mode N DESCRIPTION OPTIONS...: run N VMs and check what the module saw.
mode() {
	n=$1
	desc=$2
	shift 2
	if kvmchurn load -n "$n" "$@" >/tmp/mode.out 2>&1; then
		ok "load $desc"
	else
		not_ok "load $desc: exit $?"
		sed 's/^/# /' /tmp/mode.out
	fi
	total=$((total + n))
	if settle - "$total"; then ok "$desc: $n reaped"; else not_ok "$desc: reap counter $(raw_field counter reap 3), want $total"; fi
	if [ "$(raw_field hist exit_mmap 3)" = $total ]; then
		ok "$desc: $n exit_mmap"
	else
		not_ok "$desc: exit_mmap count $(raw_field hist exit_mmap 3), want $total"
	fi
	if [ "$(raw_field hist exit_to_reap 3)" = $total ]; then
		ok "$desc: $n exit_to_reap"
	else
		not_ok "$desc: exit_to_reap count $(raw_field hist exit_to_reap 3), want $total"
	fi
	left=$(leftovers)
	if [ -z "$left" ]; then ok "$desc: no VM process left"; else not_ok "$desc: left behind: $left"; fi
}

if ! insmod "$KVMCHURN_KO"; then
	not_ok "insmod kvmchurn.ko"
	exit 0
fi
ok "insmod kvmchurn.ko"

mode 3 "--end exit" --end exit --mem 16
mode 3 "--end term (handled)" --end term --mem 16
mode 3 "--end term --term-default" --end term --term-default --mem 16
mode 3 "--end close" --end close --mem 16
mode 3 "--end term --ignore-term --kill-after 1" -j 3 --end term --ignore-term --kill-after 1 --mem 16
mode 3 "--end kill --run --vcpus 2" --end kill --run --vcpus 2 --mem 16
mode 8 "-j 4 --json" -j 4 --json --mem 16
if grep -q '"completed":8,' /tmp/mode.out && grep -q '"failed":0,' /tmp/mode.out; then
	ok "--json reports 8 completed, 0 failed"
else
	not_ok "--json reports 8 completed, 0 failed"
	sed 's/^/# /' /tmp/mode.out
fi

# A refused ioctl, for real: the step and the errno are named, exit 2, no child left.
kvmchurn load -n 2 --dev /dev/null >/tmp/err.out 2>&1
rc=$?
if [ $rc = 2 ] && grep -q KVM_GET_API_VERSION /tmp/err.out; then
	ok "--dev /dev/null: exit 2 naming KVM_GET_API_VERSION"
else
	not_ok "--dev /dev/null: exit $rc"
	sed 's/^/# /' /tmp/err.out
fi
if [ -z "$(leftovers)" ]; then ok "--dev /dev/null: no VM process left"; else not_ok "--dev /dev/null: VM process left"; fi

if rmmod kvmchurn; then ok "rmmod kvmchurn"; else not_ok "rmmod kvmchurn"; fi
exit 0

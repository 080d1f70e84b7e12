#!/bin/sh
# 62-access: every way into the module's files that is not a plain root read.
#  - a user that is not root: every file of the debugfs folder refuses it
#    (EACCES or EPERM, file by file, to read and, for the controls, to write),
#    nor may it write the parameters filter, enable and reset,
#    and every kvmchurn command that reads or writes them exits 2 and says how
#    to run it;
#  - files held open across rmmod: while all, raw and filter are open (filter
#    read-write), rmmod is refused (each open file holds a reference on the
#    module, so the files can never outlive it), the held files still read and
#    write; once closed rmmod works, and the paths are gone (ENOENT);
#  - opens racing rmmod and insmod: a reader and a writer open the files in a
#    loop through 10 unload/load cycles; they may only get errors, the kernel
#    log stays clean (the host judges it; on the debug kernel, with KASAN), and
#    each insmod works. An open that meets the instant an rmmod begins gets
#    debugfs's own WARN (known-splats.awk), which on the debug kernel's
#    panic_on_warn would end the boot: it is off for the race, and the log,
#    judged whole, still shows any other WARN.
# Busybox sh; leaves the module unloaded.
# shellcheck source=../lib/guest/lib.sh
. /kvmchurn/lib.sh
UID_OTHER=65534

as_user() { asuser $UID_OTHER "$@"; }
# refused HOW FILE: one line, ok when the non-root open (HOW read or write)
# fails with EACCES or EPERM
refused() {
	if [ "$1" = read ]; then
		as_user cat "$2" >/dev/null 2>/tmp/kc.err && r=0 || r=1
	else
		as_user sh -c "echo 1 >'$2'" 2>/tmp/kc.err && r=0 || r=1
	fi
	if [ "$r" = 0 ]; then
		not_ok "uid $UID_OTHER may $1 ${2#"$D"/}"
	elif grep -qE 'Permission denied|Operation not permitted' /tmp/kc.err; then
		ok "uid $UID_OTHER: $1 ${2#"$D"/} refused ($(sed 's/.*: //' /tmp/kc.err))"
	else
		not_ok "uid $UID_OTHER: $1 ${2#"$D"/}: $(cat /tmp/kc.err)"
	fi
}

kc_loaded && rmmod kvmchurn
if ! insmod "$KVMCHURN_KO"; then
	not_ok "insmod kvmchurn.ko"
	exit 0
fi
ok "insmod kvmchurn.ko"

# ---- not root ---------------------------------------------------------------
check "asuser runs a command as uid $UID_OTHER" [ "$(as_user id -u)" = $UID_OTHER ]
n=0
for f in "$D"/* "$D"/hist/*; do
	[ -f "$f" ] || continue
	n=$((n + 1))
	case ${f##*/} in
	reset) refused write "$f" ;;
	filter | enable)
		refused read "$f"
		refused write "$f"
		;;
	*) refused read "$f" ;;
	esac
done
check "every file tried ($n)" [ "$n" -ge 20 ]
# the parameters that stand in for the controls under lockdown are root's too
for f in filter enable reset; do refused write "/sys/module/kvmchurn/parameters/$f"; done
for c in show summary watch check probes filter "filter firecracker" reset enable disable \
	"snapshot -o /tmp/kc.snap" dump "export --prometheus" "vms --live"; do
	# shellcheck disable=SC2086 # $c holds the command and its arguments
	as_user timeout "$KC_WAIT" kvmchurn $c >/tmp/kc.out 2>&1
	rc=$?
	is "uid $UID_OTHER: kvmchurn $c: exit status" $rc 2
	check "uid $UID_OTHER: kvmchurn $c says to run it as root" grep -q 'run kvmchurn as root' /tmp/kc.out
done
sed 's/^/# /' /tmp/kc.out
is "nothing changed: filter" "$(cat $D/filter)" firecracker
is "nothing changed: enable" "$(cat $D/enable)" 1

# ---- files held open across rmmod -----------------------------------------------
exec 3<"$D/all" 4<"$D/raw" 5<>"$D/filter"
if rmmod kvmchurn 2>/tmp/kc.err; then
	not_ok "rmmod with all, raw and filter open: unloaded"
	insmod "$KVMCHURN_KO"
else
	ok "rmmod with all, raw and filter open: refused ($(sed 's/.*: //' /tmp/kc.err))"
fi
# (all is empty while every count is 0, as bpftrace prints no empty map)
held_all() { cat <&3 >/tmp/kc.held && cat "$D/all" >/tmp/kc.fresh && cmp -s /tmp/kc.held /tmp/kc.fresh; }
check "the held all still reads, what a new open reads" held_all
head -n 1 <&4 >/tmp/kc.held 2>&1
check "the held raw still reads: $(cat /tmp/kc.held)" grep -q '^kvmchurn-raw ' /tmp/kc.held
check "the held filter takes a write" sh -c 'echo other >&5'
is "filter after that write" "$(cat $D/filter)" other
echo firecracker >"$D/filter"
exec 3<&- 4<&- 5<&-
check "rmmod once they are closed" rmmod kvmchurn
gone() { ! cat "$D/$1" >/dev/null 2>/tmp/kc.err && grep -q 'No such file or directory' /tmp/kc.err; }
for f in all raw filter; do
	check "after rmmod, $f: No such file or directory" gone $f
done

# ---- opens racing unload and load ---------------------------------------------------
pow=$(cat /proc/sys/kernel/panic_on_warn)
echo 0 >/proc/sys/kernel/panic_on_warn
(
	while [ ! -e /tmp/kc.stop ]; do
		for f in all raw probes summary memory; do cat "$D/$f"; done >/dev/null 2>&1
	done
) &
reader=$!
(
	while [ ! -e /tmp/kc.stop ]; do
		{
			echo other >"$D/filter"
			echo 0 >"$D/enable"
			echo 1 >"$D/enable"
			echo firecracker >"$D/filter"
		} 2>/dev/null
	done
) &
writer=$!
loads=0 unloads=0
rmmod_ok() { rmmod kvmchurn 2>/dev/null; }
r=0
while [ $r -lt 10 ]; do
	insmod "$KVMCHURN_KO" && loads=$((loads + 1))
	# refused while the loops hold a file open: until they do not
	wait_for "$KC_WAIT" rmmod_ok && unloads=$((unloads + 1))
	r=$((r + 1))
done
touch /tmp/kc.stop
wait $reader $writer
rm -f /tmp/kc.stop
echo "$pow" >/proc/sys/kernel/panic_on_warn
is "insmod under racing opens" $loads 10
is "rmmod under racing opens" $unloads 10
check "insmod afterwards" insmod "$KVMCHURN_KO"
is "filter afterwards" "$(cat $D/filter)" firecracker
check "rmmod" rmmod kvmchurn
exit 0

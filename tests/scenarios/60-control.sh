#!/bin/sh
# shellcheck disable=SC2086 # $LOAD and $OTHER hold several options
# 60-control: the module's controls. Module parameters (and refused ones);
# every bad write to filter, enable and reset fails with EINVAL and changes
# nothing, through the debugfs file and through the module parameter of the
# same name alike (which lockdown leaves writable), and logs nothing; the
# modes that keep the views readable under lockdown; a good write to a
# parameter does what the file's does (filter, enable and reset, counted on
# small loads); enable stops and restarts recording; reset zeroes every count,
# also in the middle of a running load, where what is counted afterwards is
# what happened after the reset; rmmod in the middle of a running -j 4 load
# succeeds, and the guest keeps creating VMs; the errors of writing a view,
# reading reset, unloading with a file open, reading after rmmod. Busybox sh; leaves the module
# unloaded.
# shellcheck source=../lib/guest/lib.sh
. /kvmchurn/lib.sh
P=/sys/module/kvmchurn/parameters
mark=-
N=40
J=4
IRQFDS=8
LOAD="-n $N -j $J --vcpus 2 --irqfds $IRQFDS --mem 16 --end kill"

# counts_in RAW LO HI: every hist count and counter of RAW is an integer in [LO, HI]
counts_in() {
	awk -F '\t' -v lo="$2" -v hi="$3" '($1 == "hist" || $1 == "counter") &&
		($3 !~ /^[0-9]+$/ || $3 + 0 < lo || $3 + 0 > hi) { print $1 ":" $2 "=" $3 }' "$1"
}
# wr FILE DATA: one write(2) of DATA to the control FILE of the debugfs
# folder, or to the path FILE (a parameter, $P/NAME); dd: a single write, the
# error message kept in /tmp/kc.werr.
wr() {
	case $1 in
	/*) wr_to=$1 ;;
	*) wr_to=$D/$1 ;;
	esac
	printf '%b' "$2" >/tmp/kc.w
	dd if=/tmp/kc.w of="$wr_to" bs=4096 count=1 conv=notrunc 2>/tmp/kc.werr
}
# label FILE: FILE as the lines name it ("filter", "parameter filter")
label() {
	case $1 in
	"$P"/*) echo "parameter ${1#"$P"/}" ;;
	*) echo "$1" ;;
	esac
}
# controls: what a bad write must not change, the kernel log included (a
# refused write logs nothing, through the file or the parameter).
controls() {
	cat "$D/filter" "$D/enable" "$P/filter" "$P/enable"
	grep -E '^(hist|counter|filter|enabled|unit)	' "$D/raw"
	echo "last kernel log line: $(dmesg | tail -n 1)"
}
# bad FILE DATA DESCRIPTION: the write fails with EINVAL and changes nothing.
bad() {
	bd_l=$(label "$1")
	controls >/tmp/kc.before
	if wr "$1" "$2"; then
		not_ok "$bd_l: $3 accepted"
	elif grep -q 'Invalid argument' /tmp/kc.werr; then
		ok "$bd_l: $3 refused with EINVAL"
	else
		not_ok "$bd_l: $3 refused, but not with EINVAL: $(cat /tmp/kc.werr)"
	fi
	controls >/tmp/kc.after
	if cmp -s /tmp/kc.before /tmp/kc.after; then
		ok "$bd_l: $3 changed nothing"
	else
		not_ok "$bd_l: $3 changed something"
		diff /tmp/kc.before /tmp/kc.after | sed 's/^/# /'
	fi
}
# bad2 NAME DATA DESCRIPTION: bad, through the debugfs file NAME and then
# the parameter NAME
bad2() {
	bad "$1" "$2" "$3"
	bad "$P/$1" "$2" "$3"
}
good() { # good FILE DATA DESCRIPTION
	if wr "$1" "$2"; then ok "$(label "$1"): $3 accepted"; else not_ok "$(label "$1"): $3: $(cat /tmp/kc.werr)"; fi
}
# nothing_counted DESCRIPTION COMM LOAD-OPTIONS...: a load whose 4 processes
# named COMM must count nothing: waited for by their frees (tracefs), as no
# count can say it
nothing_counted() {
	nc_desc=$1 nc_comm=$2
	shift 2
	cp $D/raw /tmp/kc.raw0
	fence_arm "$nc_comm" || not_ok "$nc_desc: a tracefs instance for the frees"
	load "$nc_desc" "$@"
	fence_wait 4 || not_ok "$nc_desc: the 4 VMs were freed"
	cp $D/raw /tmp/kc.raw1
	deltas /tmp/kc.raw0 /tmp/kc.raw1 >"$KC_DELTA"
	nc_moved=$(awk -F '\t' '$3 != 0 { printf "%s:%s=%s ", $1, $2, $3 }' "$KC_DELTA")
	is "$nc_desc: nothing counted" "${nc_moved:-nothing}" nothing
}
# counted DESCRIPTION LOAD-OPTIONS...: a load of 4 VMs, each counted exactly
counted() {
	ct_desc=$1
	shift
	cp "$D/raw" /tmp/kc.raw0
	load "$ct_desc" -n 4 -j 2 --mem 16 --irqfds $IRQFDS "$@"
	settle /tmp/kc.raw0 4 || not_ok "$ct_desc: reap counter did not reach 4"
	cp $D/raw /tmp/kc.raw1
	deltas /tmp/kc.raw0 /tmp/kc.raw1 >"$KC_DELTA"
	for m in hist:kvm_create_vm hist:exit_mmap hist:exit_to_reap hist:kvm_destroy_vm counter:exit counter:reap; do
		is "$ct_desc: $m" "$(delta "${m%%:*}" "${m#*:}")" $((4 * $(per_vm ${m#*:})))
	done
	is "$ct_desc: hist:irqbypass_unregister" "$(delta hist irqbypass_unregister)" $((4 * IRQFDS))
}
load() { # load DESCRIPTION OPTIONS...
	desc=$1
	shift
	if kvmchurn load "$@" >/tmp/kc.load 2>&1; then
		ok "$desc: kvmchurn load $*"
	else
		not_ok "$desc: kvmchurn load $*: exit $?"
		sed 's/^/# /' /tmp/kc.load
	fi
}

n0=$(dmesg | wc -l)
kernel_has
kc_loaded && rmmod kvmchurn

# ---- module parameters --------------------------------------------------------
# Out of range is refused, never clamped, and the kernel log names the
# parameter and its range (Documentation/ABI.rst).
names=$(i=0; while [ $i -lt 1000 ]; do printf 'n%d,' $i; i=$((i + 1)); done)
range_of() { # range_of PARAM=VALUE: what the kernel log must say of it
	case $1 in
	unit=*) echo "${1%%=*}=.*: must be us or ns" ;;
	filter=*) echo 'filter=".*": must be 1 to 8 names of 1 to 15 characters, space or comma separated, or \*' ;;
	enable=*) echo "${1%%=*}=.*: must be 0 or 1" ;;
	reset=*) echo "${1%%=*}=.*: must be 1" ;;
	maxactive=*) echo "${1%%=*}=.*: must be a number from 1 to 4096" ;;
	pairs=*) echo "${1%%=*}=.*: must be a number from 8 to 16777216" ;;
	vms_*) echo "${1%%=*}=.*: must be a number from 1 to 65536" ;;
	fprobes=*) echo "${1%%=*}=.*: must be a number from 0 to 1" ;;
	stall_ms=*) echo "${1%%=*}=.*: must be a number from 1 to 86400000" ;;
	esac
}
for p in unit=ms unit= unit=xs filter=0123456789abcdef "filter=a,b,c,d,e,f,g,h,i" "filter=$names" \
	filter= "filter=*,firecracker" enable=2 enable=y enable=on reset=0 reset=2 pairs=0 pairs=4 pairs=2147483648 pairs=4294967296 \
	pairs=16777217 maxactive=0 maxactive=4097 maxactive=100000000 maxactive=x maxactive=-1 \
	vms_last=0 vms_slowest=65537 vms_live=-1 vms_live=x fprobes=2 fprobes=y fprobes=-1 \
	stall_ms=0 stall_ms=86400001 stall_ms=x; do
	short=$(echo "$p" | cut -c1-40)
	m0=$(dmesg | wc -l)
	if insmod "$KVMCHURN_KO" "$p" 2>/tmp/kc.err; then
		not_ok "insmod kvmchurn.ko $short accepted"
		rmmod kvmchurn
	else
		ok "insmod kvmchurn.ko $short refused"
		check "insmod $short: Invalid argument" grep -q 'Invalid argument' /tmp/kc.err
	fi
	said=$(dmesg | tail -n +$((m0 + 1)) | grep -m1 -E "$(range_of "$p")")
	check "insmod $short: the kernel log says why: ${said#*] }" [ -n "$said" ]
	check "after insmod $short: no debugfs folder" [ ! -e $D ]
done
# the bounds themselves are taken
for p in "maxactive=1 pairs=8" "maxactive=4096 pairs=16777216" "filter=0123456789abcde,b,c,d,e,f,g,h" \
	"vms_last=1 vms_slowest=1 vms_live=1" "vms_last=65536 vms_slowest=65536 vms_live=65536" fprobes=0 fprobes=1 \
	stall_ms=1 stall_ms=86400000; do
	# shellcheck disable=SC2086 # two parameters
	if insmod "$KVMCHURN_KO" $p; then
		ok "insmod kvmchurn.ko $p"
		for kv in $p; do
			# the filter reads as its debugfs file: names space separated
			is "$p: /sys/module/kvmchurn/parameters/${kv%%=*}" \
				"$(cat /sys/module/kvmchurn/parameters/${kv%%=*})" "$(echo "${kv#*=}" | tr , ' ')"
		done
		rmmod kvmchurn
	else
		not_ok "insmod kvmchurn.ko $p"
	fi
done

# enable alone is enable=1, as for any bool parameter; reset=1 does nothing
if insmod "$KVMCHURN_KO" reset=1 enable; then
	ok "insmod kvmchurn.ko reset=1 enable"
	is "insmod enable: the enable parameter" "$(cat $P/enable)" 1
	rmmod kvmchurn
else
	not_ok "insmod kvmchurn.ko reset=1 enable"
fi

if insmod "$KVMCHURN_KO" unit=ns filter=other pairs=64 maxactive=64 enable=0; then
	ok "insmod kvmchurn.ko unit=ns filter=other pairs=64 maxactive=64 enable=0"
	is "raw unit" "$(raw_field unit - 2)" ns
	is "raw filter" "$(raw_field filter - 2)" other
	is "filter file" "$(cat $D/filter)" other
	is "raw enabled" "$(raw_field enabled - 2)" 0
	is "enable file" "$(cat $D/enable)" 0
	is "pairing table capacity" "$(raw_field pairs - 2)" 64
	is "parameter enable reads" "$(cat $P/enable)" 0
	is "parameter filter reads" "$(cat $P/filter)" other
	nothing_counted "enable=0" other -n 4 -j 2 --mem 16 --comm other
	good enable '1\n' "1"
	is "raw enabled" "$(raw_field enabled - 2)" 1
	counted "enabled" --comm other
	is "enabled: counter:sigkill" "$(delta counter sigkill)" $((4 * $(per_vm sigkill)))
	check "unit=ns: all names its maps @ns_" grep -q '^@ns_exit_mmap: $' $D/all
	# exit_mmap of a 16 MiB VM takes more than a microsecond
	mx=$(raw_field hist exit_mmap 5)
	check "unit=ns: exit_mmap's max $mx is in ns (>= 1000)" [ "${mx:-0}" -ge 1000 ]
	grep '^exit_mmap ' $D/summary | sed 's/^/# /'
	check "rmmod kvmchurn" rmmod kvmchurn
else
	not_ok "insmod kvmchurn.ko unit=ns filter=other pairs=64 maxactive=64 enable=0"
fi

if ! insmod "$KVMCHURN_KO"; then
	not_ok "insmod kvmchurn.ko"
	exit 0
fi
ok "insmod kvmchurn.ko"
is "default unit" "$(raw_field unit - 2)" us
is "default filter" "$(cat $D/filter)" firecracker
is "default enable" "$(cat $D/enable)" 1

# ---- modes ----------------------------------------------------------------------
# Under lockdown debugfs opens a file only to read it, only with no ioctl or
# mmap, and only with the mode 0444 exactly before 5.10.94, a subset of 0444
# from then on (debugfs_locked_down()): every view is 0444, and the controls,
# which lockdown shuts whatever their mode, have their parameters.
wrong=
n=0
for f in "$D"/* "$D"/hist/*; do
	[ -f "$f" ] || continue
	n=$((n + 1))
	case ${f##*/} in
	filter | enable) want=600 ;;
	reset) want=200 ;;
	*) want=444 ;;
	esac
	m=$(stat -c %a "$f")
	[ "$m" = $want ] || wrong="$wrong ${f#"$D"/}=$m"
done
is "debugfs modes: every view 0444, filter and enable 0600, reset 0200 ($n files)" "${wrong:-so}" so
wrong=
for f in "$P"/*; do
	case ${f##*/} in
	filter | enable | stall_ms) want=644 ;;
	reset) want=200 ;;
	*) want=444 ;;
	esac
	m=$(stat -c %a "$f")
	[ "$m" = $want ] || wrong="$wrong ${f##*/}=$m"
done
is "parameter modes: filter, enable and stall_ms 0644, reset 0200, the others 0444" "${wrong:-so}" so
is "parameter filter reads as the file" "$(cat $P/filter)" "$(cat $D/filter)"
is "parameter enable reads as the file" "$(cat $P/enable)" "$(cat $D/enable)"
if cat $P/reset >/dev/null 2>/tmp/kc.rerr; then
	not_ok "a read of parameter reset accepted"
else
	# sysfs opens a file without a read bit for no one to read (kernfs_fop_open)
	check "a read of parameter reset: EACCES ($(sed 's/.*: //' /tmp/kc.rerr))" grep -q 'Permission denied' /tmp/kc.rerr
fi

# ---- bad writes ----------------------------------------------------------------
long=a
i=0
while [ $i -lt 254 ]; do long="$long "; i=$((i + 1)); done
long="${long}b" # two names, 256 bytes
bad2 filter '\n' "an empty write"
bad2 filter '   \n' "only spaces"
bad2 filter '0123456789abcdef\n' "a 16-character name"
bad2 filter 'a b c d e f g h i\n' "9 names"
bad2 filter "$long" "256 bytes (two names)"
bad2 filter '* firecracker\n' "'*' with a name"
bad2 enable '2\n' "2"
bad2 enable '10\n' "10"
bad2 enable '-1\n' "-1"
bad2 enable 'abc\n' "abc"
bad2 enable '\n' "an empty write"
bad2 enable '1x\n' "1x"
bad2 reset '0\n' "0"
bad2 reset '2\n' "2"
bad2 reset 'abc\n' "abc"
bad2 reset '\n' "an empty write"
bad2 reset '1x\n' "1x"
# a NUL byte does not cut a write short
bad reset '1\0x' "1, NUL, x"
bad reset '1\0' "1, NUL"
bad enable '0\0\n' "0, NUL"
bad filter 'fire\0cracker\n' "fire, NUL, cracker"
# sysfs hands a parameter a string, not the write's length: a parameter's
# text ends at a NUL (module/main.c, Documentation/ABI.rst)
good "$P/enable" '0\0\n' "0, NUL (read as 0)"
is "enable reads" "$(cat $D/enable)" 0
good "$P/filter" 'fire\0cracker\n' "fire, NUL, cracker (read as fire)"
is "filter reads" "$(cat $D/filter)" fire
bad "$P/reset" '0\0\n' "0, NUL"
good "$P/enable" '1\n' "1"
good "$P/filter" 'firecracker\n' "firecracker"

# ---- good writes -----------------------------------------------------------------
good filter 'x,y\n' "'x,y'"
is "filter 'x,y' reads" "$(cat $D/filter)" "x y"
good filter '0123456789abcde 1 2 3 4 5 6 7\n' "8 names, one of 15 characters"
is "filter of 8 names reads" "$(cat $D/filter)" "0123456789abcde 1 2 3 4 5 6 7"
good filter '*\n' "'*'"
is "filter '*' reads" "$(cat $D/filter)" "*"
good filter 'firecracker' "firecracker without a newline"
is "filter reads" "$(cat $D/filter)" firecracker
good enable '0\n' 0
is "enable reads" "$(cat $D/enable)" 0
good enable '1' "1 without a newline"
is "enable reads" "$(cat $D/enable)" 1
# the same through the parameters, read back through both
good "$P/filter" 'x,y\n' "'x,y'"
is "filter 'x,y' reads" "$(cat $D/filter)" "x y"
is "parameter filter 'x,y' reads" "$(cat $P/filter)" "x y"
is "raw filter" "$(raw_field filter - 2)" "x y"
good "$P/filter" '0123456789abcde 1 2 3 4 5 6 7\n' "8 names, one of 15 characters"
is "filter of 8 names reads" "$(cat $D/filter)" "0123456789abcde 1 2 3 4 5 6 7"
good "$P/filter" '*\n' "'*'"
is "parameter filter '*' reads" "$(cat $P/filter)" "*"
good "$P/filter" 'firecracker' "firecracker without a newline"
is "filter reads" "$(cat $D/filter)" firecracker
is "parameter filter reads" "$(cat $P/filter)" firecracker
good "$P/enable" '0\n' 0
is "enable reads" "$(cat $D/enable)" 0
is "raw enabled" "$(raw_field enabled - 2)" 0
good "$P/enable" '1' "1 without a newline"
is "enable reads" "$(cat $D/enable)" 1
is "parameter enable reads" "$(cat $P/enable)" 1

# ---- reset -------------------------------------------------------------------------
# after_reset LABEL: every count is 0 after a reset, and a load of 4 VMs then counts 4.
after_reset() {
	left=$(counts_in $D/raw 0 0)
	is "$1 every count is 0" "${left:-all 0}" "all 0"
	# as bpftrace: only the counters without a key, at 0
	is "$1 all prints the counters at 0" "$(tr '\n' ' ' <$D/all)" \
		"@n_exit: 0 @n_reap: 0 @n_sigkill: 0 @n_sigterm: 0 "
	is "$1 hist/exit_mmap is empty" "$(wc -c <$D/hist/exit_mmap)" 0
	mark=-
	load "$1" -n 4 -j 2 --mem 16
	settle "$mark" 4 || not_ok "$1: reap counter did not reach 4"
	for m in kvm_create_vm exit_mmap exit_to_reap kvm_vm_release; do
		is "$1: $m" "$(raw_field hist $m 3)" 4
	done
	is "$1: counter exit" "$(raw_field counter exit 3)" 4
}

cp "$D/raw" /tmp/kc.mark && mark=/tmp/kc.mark
load "before reset" -n 4 -j 2 --mem 16
settle "$mark" 4 || not_ok "before reset: reap counter did not reach 4"
good reset '1\n' 1
after_reset "after reset"

# ---- the same effects through the parameters ----------------------------------
# (each load that counts also shows the enable 1 written before it; the one
# after the reset, the filter firecracker)
good "$P/enable" '0\n' "0"
nothing_counted "parameter enable 0" firecracker -n 4 -j 2 --mem 16
good "$P/enable" '1\n' "1"
good "$P/filter" 'other\n' "other"
nothing_counted "parameter filter other, firecracker's VMs" firecracker -n 4 -j 2 --mem 16
counted "parameter enable 1, filter other, other's VMs" --comm other
good "$P/filter" 'firecracker\n' "firecracker"
good "$P/reset" '1\n' 1
after_reset "after a reset by the parameter"

# A reset in the middle of a load: counted afterwards is what happened after
# it. A VM (k events each) that was in flight at the reset may fall on either
# side, so each count lies in [k * (N - before - J), k * (N - before)],
# before being the VMs counted before the reset. The load is stopped from the
# snapshot to the reset, so that no VM starts or is killed between them (on a
# busy host the shell may wait long between two commands): only the J in
# flight can end there, in neither.
good reset 1 "reset before the load"
kvmchurn load $LOAD >/tmp/kc.bg 2>&1 &
bg=$!
wait_hist kvm_create_vm 12
kill -STOP $bg
cp $D/raw /tmp/kc.before
wr reset 1 || not_ok "reset during the load: $(cat /tmp/kc.werr)"
cp $D/raw /tmp/kc.after
kill -CONT $bg
if wait $bg; then ok "reset during: kvmchurn load $LOAD"; else not_ok "reset during: load exit $?"; sed 's/^/# /' /tmp/kc.bg; fi
quiet
cp $D/raw /tmp/kc.final
echo "# reset during the load: before it $(raw_field hist kvm_create_vm 3 /tmp/kc.before) VMs created, $(raw_field counter exit 3 /tmp/kc.before) exited"
left=$(counts_in /tmp/kc.after 0 $((IRQFDS * J)))
is "right after the reset: counts in [0, $((IRQFDS * J))]" "${left:-yes}" yes
wrong=$(counts_in /tmp/kc.final 0 $((IRQFDS * N)))
is "after the load: counts in [0, $((IRQFDS * N))]" "${wrong:-yes}" yes
between() { # between TAG NAME K: K events a VM
	b=$(raw_field "$1" "$2" 3 /tmp/kc.before)
	a=$(raw_field "$1" "$2" 3 /tmp/kc.final)
	hi=$(($3 * N - b))
	lo=$((hi - $3 * J))
	[ $lo -lt 0 ] && lo=0
	if [ "$a" -ge $lo ] && [ "$a" -le $hi ]; then
		ok "reset during: $1 $2 $a in [$lo, $hi] ($b before)"
	else
		not_ok "reset during: $1 $2 $a not in [$lo, $hi] ($b before)"
	fi
}
for m in kvm_create_vm exit_files exit_mmap kvm_vm_release kvm_destroy_vm kvm_mmu_teardown exit_to_reap signal_to_exit; do
	between hist $m "$(per_vm $m)"
done
between hist irqbypass_unregister $IRQFDS
for c in exit reap sigkill; do between counter $c 1; done
between counter irqbypass_unregister $IRQFDS
slots_whole "reset during: every histogram's slots add up to its count" /tmp/kc.final
is "reset during: pairing entries in use at the end" "$(raw_field pairs - 3)" 0
is "reset during: pairing drops" "$(raw_field pairs - 4)" 0
grep -v -e '^OK ' -e '^INFO ' $D/checks | sed 's/^/# checks: /'

# ---- rmmod during a load ---------------------------------------------------------
kvmchurn load $LOAD >/tmp/kc.bg 2>&1 &
bg=$!
wait_hist kvm_create_vm 8
# with several VM processes alive if they come (a VM ends faster than one
# starts): the rmmod is checked however many there are
wait_for 5 vms_at_least 3
echo "# rmmod with $(vms_alive) VM processes alive, $(raw_field hist kvm_create_vm 3) VMs created"
if rmmod kvmchurn 2>/tmp/kc.err; then ok "rmmod during a -j $J load"; else not_ok "rmmod during a -j $J load: $(cat /tmp/kc.err)"; fi
check "debugfs folder removed" [ ! -e $D ]
if wait $bg; then ok "the load went on: kvmchurn load $LOAD"; else not_ok "the load went on: exit $?"; fi
grep -q "$N completed, 0 failed" /tmp/kc.bg || { not_ok "the load's summary"; sed 's/^/# /' /tmp/kc.bg; }
load "without the module" -n 8 -j $J --mem 16
if insmod "$KVMCHURN_KO"; then
	ok "insmod kvmchurn.ko again"
	mark=-
	load "loaded again" -n 4 -j 2 --mem 16
	settle "$mark" 4 || not_ok "loaded again: reap counter did not reach 4"
	is "loaded again: kvm_create_vm" "$(raw_field hist kvm_create_vm 3)" 4
	is "loaded again: exit_mmap" "$(raw_field hist exit_mmap 3)" 4
	# the errors Documentation/ABI.rst promises
	if wr summary 1; then
		not_ok "a write to a view accepted"
	else
		check "a write to a view: EINVAL" grep -q 'Invalid argument' /tmp/kc.werr
	fi
	if dd if="$D/reset" of=/dev/null bs=64 count=1 2>/tmp/kc.rerr; then
		not_ok "a read of reset accepted"
	else
		check "a read of reset: EINVAL" grep -q 'Invalid argument' /tmp/kc.rerr
	fi
	exec 3<"$D/summary"
	if rmmod kvmchurn 2>/tmp/kc.err; then
		not_ok "rmmod with summary held open: unloaded"
	else
		ok "rmmod with summary held open: refused ($(cat /tmp/kc.err))"
	fi
	check "the module is still there" [ -e "$D/summary" ]
	exec 3<&-
	check "rmmod kvmchurn once it is closed" rmmod kvmchurn
	if cat "$D/summary" >/dev/null 2>/tmp/kc.rerr; then
		not_ok "summary readable after rmmod"
	else
		check "after rmmod: ENOENT" grep -q 'No such file' /tmp/kc.rerr
	fi
else
	not_ok "insmod kvmchurn.ko again"
fi
is "no VM process left" "$(vms_alive)" 0

splat=$(dmesg | tail -n +$((n0 + 1)) | grep -E 'WARNING|BUG|Oops|lockdep|circular locking|Call Trace|kretprobe')
check "dmesg: no warning, oops or lockdep report" [ -z "$splat" ]
[ -z "$splat" ] || echo "$splat" | sed 's/^/# /'
exit 0

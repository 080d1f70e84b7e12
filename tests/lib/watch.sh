# shellcheck shell=bash disable=SC2034 # KC_BOOT_* are what kc_vm_boot tells its caller
# Watching a boot (sourced by boot.sh, and by the unit tier's harness.sh, which tests the
# hang judgement on real captures): QEMU runs until it ends, or until the watcher finds
# the guest hung (boot.sh's --silence, --boot-silence, --timeout) and ends it.

# kc_vcpus_spin WHERE: whether hang-dump.py's output WHERE shows every vCPU at one
# program counter in all of at least two samples.
kc_vcpus_spin() {
	awk '/^sample [0-9]+ vCPU [0-9]+: pc / {
		if (!($4 in pc)) pc[$4] = $6; else if (pc[$4] != $6) moved = 1
		if ($2 > samples) samples = $2 }
		END { exit !(samples >= 2 && !moved) }' "$1"
}

# The deadline reason of a kernel that hung in its own boot, before the initramfs's /init
# printed anything: kc_vm_run boots such a kernel once more.
KC_EARLY_HANG="the kernel hung in its own boot, before /init"

# kc_vm_boot ID INITRD APPEND QEMU...: one boot of ID, its serial log watched until QEMU
# ends. Sets KC_BOOT_LOG (the log; LOG.deadline holds why the watcher ended it, LOG.where
# where the vCPUs were then), KC_BOOT_QRC (QEMU's status) and KC_BOOT_SECS.
# Hung: no line from the scenarios for KC_OPT_SILENCE s; or, before /init began,
# no byte at all for KC_OPT_BOOT_SILENCE s and every vCPU at one program counter in
# each of hang-dump.py's samples (kc_vcpus_spin: a kernel that only boots slowly moves;
# one that waits for a timer wakes within that time).
kc_vm_boot() {
	local id=$1 initrd=$2 append=$3 ts log t0 mondir qpid wpid
	shift 3
	ts=$(date +%Y%m%d-%H%M%S)
	log=$KVMCHURN_CACHE/logs/$id-$ts.log
	[[ ! -e $log ]] || log=$KVMCHURN_CACHE/logs/$id-$ts-2.log
	ln -sfn "${log##*/}" "$KVMCHURN_CACHE/logs/$id-latest.log"
	t0=$SECONDS
	# a monitor, for the dump of a guest that reaches a deadline (hang-dump.py)
	mondir=$(mktemp -d /tmp/kvmchurn-mon.XXXXXX)
	KC_BOOT_QRC=0
	# the watcher below ends it; timeout(1) only if the watcher could not
	timeout -k 10 $((KC_OPT_TIMEOUT + 60)) "$@" -monitor "unix:$mondir/m,server=on,wait=off" \
		-kernel "$KC_VMLINUZ" -initrd "$initrd" -append "$append" </dev/null >"$log" 2>&1 &
	qpid=$!
	rm -f "$log.where" "$log.deadline"
	(
		local lines last=-1 heard=$SECONDS size lastsize=-1 grew=$SECONDS why
		while kill -0 "$qpid" 2>/dev/null; do
			sleep 2
			why=''
			# the scenarios' lines: all but the kernel's "[  12.345678] ..."
			lines=$(grep -acv '^\[ *[0-9]*\.[0-9]*\]' "$log" || true)
			((lines == last)) || { last=$lines heard=$SECONDS; }
			((SECONDS - heard < KC_OPT_SILENCE)) ||
				why="no line from the scenarios for $KC_OPT_SILENCE s (hung)"
			if [[ -z $why ]] && ! grep -aq '@@KVMCHURN BEGIN init' "$log"; then
				size=$(stat -c %s "$log")
				((size == lastsize)) || { lastsize=$size grew=$SECONDS; }
				if ((SECONDS - grew >= KC_OPT_BOOT_SILENCE)); then
					"$KC_LIB/hang-dump.py" "$mondir/m" "$log" "$KVMCHURN_CACHE/kernels/$id/System.map" >"$log.where" 2>&1 || true
					if kc_vcpus_spin "$log.where"; then
						why="$KC_EARLY_HANG (no byte for $KC_OPT_BOOT_SILENCE s, every vCPU at one PC)"
					else
						grew=$SECONDS # a vCPU moves: slow, not hung
					fi
				fi
			fi
			((SECONDS - t0 < KC_OPT_TIMEOUT)) || why=${why:-"timed out after $KC_OPT_TIMEOUT s"}
			[[ -n $why ]] || continue
			[[ $why == "$KC_EARLY_HANG"* ]] ||
				"$KC_LIB/hang-dump.py" "$mondir/m" "$log" "$KVMCHURN_CACHE/kernels/$id/System.map" >"$log.where" 2>&1
			echo "$why" >"$log.deadline"
			kill -TERM "$qpid" 2>/dev/null
			exit 0
		done
	) &
	wpid=$!
	wait "$qpid" || KC_BOOT_QRC=$?
	wait "$wpid" || true
	rm -rf "$mondir"
	KC_BOOT_LOG=$log KC_BOOT_SECS=$((SECONDS - t0))
}

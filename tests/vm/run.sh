#!/usr/bin/env bash
# run.sh [ID...]: the vm tier. For each kernel: build kvmchurn.ko and a static client,
# pack an initramfs (busybox, guest/init, the host KVM modules, scenarios/*.sh), boot it
# under QEMU TCG and judge the serial log (never QEMU's exit code: with panic=-1
# -no-reboot it exits 0 after a panic). Ids: arguments, else $KERNELS, else all.
# The debug kernel (x86_64-debug, tests/debug) also gets the KUnit module and the
# scenarios of tests/debug/scenarios, and its log is also judged for lockdep and kmemleak.
# Knobs: KERNELS, KVMCHURN_CACHE, KVMCHURN_VM_SILENCE (seconds the scenarios may print
# nothing before the guest is taken as hung, 600), KVMCHURN_VM_BOOT_SILENCE (seconds the
# kernel may print nothing before /init begins, 120, then hung if its vCPUs spin: such a
# boot is tried once more), KVMCHURN_VM_TIMEOUT (seconds a boot may take in all, 3600),
# KVMCHURN_SCENARIOS (globs of scenario file names to run, e.g. "00-* 30-*"; default make
# check's depth, lib.sh's kc_depth: all on some kernels, KVMCHURN_FULL=1 all on every one),
# KVMCHURN_MODULE_DIR (boot DIR/<id>/kvmchurn.ko instead of building one: the dkms tier),
# KVMCHURN_SCENARIO_DIR (run its *.sh instead of scenarios/: make bench), KVMCHURN_GUEST_DIR
# (its contents copied into the guest's /kvmchurn, e.g. bin/forkexit: make bench),
# KVMCHURN_METRICS_VMS (VMs of 10-module-churn's load and each of 30-metrics', default 40:
# the debug tier's 8),
# KVMCHURN_OUT (where the handed-back files and verdicts go, default $KVMCHURN_CACHE/out),
# KVMCHURN_ICOUNT (QEMU's -icount shift: the guest clock counts instructions, one vCPU
# thread; make bench, the icount boot below), KVMCHURN_VM_MEM (the guest's memory in MiB
# instead of the kernel's -m: make bench-backing), KVMCHURN_VM_SMP (QEMU's -smp instead
# of the kernel's, CPUS or CPUS,maxcpus=N: hotpluggable CPUs that the guest counts as
# possible; make bench),
# KVMCHURN_QEMU_ARGS (more of QEMU's arguments, space-separated: make bench-count's
# -plugin), KVMCHURN_DISK (a root image, vmm.sh's kc_root_image, as the guest's
# read-only virtio disk, with the modules that mount it: make bench's bpftrace),
# KVMCHURN_BOOT (kernel arguments of a boot of its own: only the
# scenarios with a "# boot: ARGS" line that says exactly these run (one line a boot), and ARGS is added to the
# kernel's command line; without it, those scenarios are left out: the debug tier's
# lockdown=integrity boot).
# A scenario with a "# clock: icount" line (55-teardown: a host that stalls the TCG vCPU
# must not move the guest's clocks) runs only with KVMCHURN_ICOUNT. Unless it is set, a
# kernel whose scenarios include such ones boots a second time after the first, with
# KVMCHURN_ICOUNT=0 and only those (the same module; files and verdict in
# $KVMCHURN_OUT/icount/<id>, so the first boot's stay; a verdict line of its own, "(the
# icount boot: ...)"); the kernel passes only if both boots did. Not every boot: with one
# TCG thread the vCPUs never run at once, which the other scenarios want.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
# shellcheck source-path=SCRIPTDIR source=qemu.sh
. "$KC_VM_DIR/qemu.sh"
# shellcheck source-path=SCRIPTDIR source=vmm.sh
. "$KC_VM_DIR/vmm.sh"

# A hung guest is one whose scenarios print nothing for KVMCHURN_VM_SILENCE seconds (the
# kernel's own lines do not count: a hung kernel can go on printing), or, before /init,
# a kernel silent for KVMCHURN_VM_BOOT_SILENCE seconds with its vCPUs spinning (kc_vm_boot);
# a busy host only makes a guest slower, and a boot may take up to KVMCHURN_VM_TIMEOUT in all.
KVMCHURN_VM_SILENCE=${KVMCHURN_VM_SILENCE:-600}
KVMCHURN_VM_BOOT_SILENCE=${KVMCHURN_VM_BOOT_SILENCE:-120}
KVMCHURN_VM_TIMEOUT=${KVMCHURN_VM_TIMEOUT:-3600}
[[ $KVMCHURN_VM_SILENCE =~ ^[1-9][0-9]*$ && $KVMCHURN_VM_BOOT_SILENCE =~ ^[1-9][0-9]*$ &&
	$KVMCHURN_VM_TIMEOUT =~ ^[1-9][0-9]*$ ]] ||
	kc_die "KVMCHURN_VM_SILENCE=$KVMCHURN_VM_SILENCE KVMCHURN_VM_BOOT_SILENCE=$KVMCHURN_VM_BOOT_SILENCE KVMCHURN_VM_TIMEOUT=$KVMCHURN_VM_TIMEOUT: give seconds"
# where each kernel's handed-back files and verdict go (compatibility.sh reads them)
KC_OUT=${KVMCHURN_OUT:-$KVMCHURN_CACHE/out}
[[ ${KVMCHURN_METRICS_VMS:-40} =~ ^[1-9][0-9]{0,3}$ ]] ||
	kc_die "KVMCHURN_METRICS_VMS=$KVMCHURN_METRICS_VMS: give a number of VMs, 1 to 9999"
[[ -z ${KVMCHURN_VM_MEM:-} || ${KVMCHURN_VM_MEM} =~ ^[1-9][0-9]{2,5}$ ]] ||
	kc_die "KVMCHURN_VM_MEM=$KVMCHURN_VM_MEM: give the guest's memory in MiB, 100 to 999999"
[[ -z ${KVMCHURN_VM_SMP:-} || ${KVMCHURN_VM_SMP} =~ ^[1-9][0-9]*(,maxcpus=[1-9][0-9]*)?$ ]] ||
	kc_die "KVMCHURN_VM_SMP=$KVMCHURN_VM_SMP: give QEMU's -smp as CPUS or CPUS,maxcpus=N"
# Kernel text that fails a run, and the known harmless lines (notes/kernel-matrix.md);
# the known harmless warnings, whole blocks, are guest/known-splats.awk's.
KC_BAD='Kernel panic|BUG:|Oops|WARNING:|Call Trace|KASAN|UBSAN|possible circular locking'
# What only the debug kernel's detectors print.
KC_BAD_DEBUG='possible recursive locking|inconsistent lock state|suspicious RCU usage|unreferenced object|DEBUG_LOCKS_WARN|BUG: sleeping function|ODEBUG:'
KC_HARMLESS='loading out-of-tree module taints kernel|module verification failed|Skipping BTF generation|hrtimer: interrupt took|user requested TSC rate below hardware speed'
KC_FAIL=3 # kc_vm_one's status for a judged failure; anything else non-zero is a harness error

# kc_scenario_globs ID: the globs that choose ID's scenarios, none for all of them:
# KVMCHURN_SCENARIOS, else make check's depth (lib.sh's kc_depth), which is for the vm
# tier's own scenarios, not a KVMCHURN_SCENARIO_DIR's.
kc_scenario_globs() {
	if [[ -n ${KVMCHURN_SCENARIOS:-} ]]; then
		echo "$KVMCHURN_SCENARIOS"
	elif [[ -z ${KVMCHURN_SCENARIO_DIR:-} ]]; then
		kc_depth "$1"
	fi
}

# kc_scenarios ID: the scenario files for ID (paths), after KVMCHURN_SCENARIOS, of this
# boot (those with a "# boot: ARGS" line only when KVMCHURN_BOOT is ARGS, the others only
# without it; those with a "# clock: icount" line only when KVMCHURN_ICOUNT is set, and
# in kc_vm_kernel's icount boot, KC_ICOUNT_BOOT=1, only they).
kc_scenarios() {
	local f n g globs=()
	# read, not word-split: a glob such as "*" must not expand against the current folder
	read -r -a globs <<<"$(kc_scenario_globs "$1")"
	{
		ls "${KVMCHURN_SCENARIO_DIR:-$KC_VM_DIR/scenarios}"/*.sh
		[[ $1 != "$KC_DEBUG_ID" || -n ${KVMCHURN_SCENARIO_DIR:-} ]] || ls "$KC_TOP"/tests/debug/scenarios/*.sh
	} | while read -r f; do
		n=${f##*/}
		# one "# boot: ARGS" line for each boot the scenario runs in
		if [[ -n ${KVMCHURN_BOOT:-} ]]; then
			grep -qxF "# boot: $KVMCHURN_BOOT" "$f" || continue
		else
			! grep -q '^# boot: ' "$f" || continue
		fi
		# "# clock: icount": only where the guest's clocks count instructions
		if grep -qxF '# clock: icount' "$f"; then
			[[ -n ${KVMCHURN_ICOUNT:-} ]] || continue
		else
			[[ -z ${KC_ICOUNT_BOOT:-} ]] || continue
		fi
		((${#globs[@]})) || { echo "$f"; continue; }
		for g in "${globs[@]}"; do
			# shellcheck disable=SC2053 # $g is a glob on purpose
			if [[ $n == $g ]]; then echo "$f"; break; fi
		done
	done
}

# kc_build_for ID SCENARIO TARGET KO LOG WHAT: make TARGET (in ID's vm build folder) when
# SCENARIO is among ID's, and KO must come of it; on failure says so, for WHAT, and
# returns KC_FAIL.
kc_build_for() {
	local id=$1 scenario=$2 target=$3 ko=$4 log=$5 what=$6
	kc_scenarios "$id" | grep "/${scenario//./\\.}\$" >/dev/null || return 0
	kc_build "$id" vm "$log" "$target" && [[ -f $KC_BUILD_DIR/$ko ]] && return 0
	tail -n 20 "$log" | sed 's/^/    /'
	echo "FAIL $id $KC_KREL: $what build failed (log: $log)"
	return "$KC_FAIL"
}

# kc_initramfs ID BUILD_DIR OUT [VMM]: the guest's root filesystem as a gzipped newc
# cpio; with VMM 1, what 45-qemu needs too (vmm.sh).
kc_initramfs() {
	local id=$1 build=$2 out=$3 vmm=${4:-0} st m
	st=$KVMCHURN_CACHE/initramfs/$id
	rm -rf "$st"
	mkdir -p "$st"/{bin,sbin,usr/bin,usr/sbin,proc,sys,dev,tmp,root,scenarios,kvmchurn/bin,kvmchurn/modules}
	cp "$KC_BUSYBOX" "$st/bin/busybox"
	ln -s busybox "$st/bin/sh" # without it: "Failed to execute /init (error -2)"
	cp "$KC_VM_DIR/guest/init" "$st/init"
	cp "$KC_VM_DIR/guest/kvmchurn-put" "$st/kvmchurn/bin/"
	cp "$KC_VM_DIR/guest/tap.sh" "$st/kvmchurn/tap.sh"
	cp "$KC_VM_DIR/guest/known-splats.awk" "$st/kvmchurn/"
	cp "$KC_TOP/tests/lib/tap.sh" "$st/kvmchurn/lib-tap.sh"
	cp "$build/kvmchurn.ko" "$st/kvmchurn/"
	cp "$build/userspace/kvmchurn" "$st/kvmchurn/bin/"
	for m in $KC_MODULES ${KC_EXTRA_MODULES:-}; do cp "$KVMCHURN_CACHE/kernels/$id/modules/$m" "$st/kvmchurn/modules/"; done
	cp "$build"/guest-bin/* "$st/kvmchurn/bin/"
	kc_scenarios "$id" | xargs cp -t "$st/scenarios/"
	[[ ! -f $build/tests/kunit/kvmchurn_test.ko ]] || cp "$build/tests/kunit/kvmchurn_test.ko" "$st/kvmchurn/"
	[[ ! -f $build/tests/bench/floor/kvmchurn_floor.ko ]] || cp "$build/tests/bench/floor/kvmchurn_floor.ko" "$st/kvmchurn/"
	[[ -z ${KVMCHURN_GUEST_DIR:-} ]] || cp -r "$KVMCHURN_GUEST_DIR"/. "$st/kvmchurn/"
	chmod 755 "$st/init" "$st/kvmchurn/bin/kvmchurn-put"
	printf 'KVMCHURN_KERNEL=%s\nKVMCHURN_ARCH=%s\nKVMCHURN_HOST_MODULES="%s"\nKVMCHURN_METRICS_VMS=%s\n' \
		"$id" "$KC_ARCH" "$KC_MODULES" "${KVMCHURN_METRICS_VMS:-40}" >"$st/kvmchurn/config"
	if ((vmm)); then
		kc_vmm_pack "$id" "$st"
	elif [[ -n ${KVMCHURN_DISK:-} ]]; then
		kc_disk_pack "$st"
	fi
	# the kernel opens /dev/console before /init runs; init reopens it after devtmpfs
	mknod -m 600 "$st/dev/console" c 5 1 2>/dev/null || true
	(cd "$st" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) | gzip -1 >"$out"
}

# kc_guest_tools DIR: the scenarios' helper programs (guest/*.c), static, for the guest's
# architecture, into DIR.
kc_guest_tools() {
	local f
	rm -rf "$1"
	mkdir -p "$1"
	for f in "$KC_VM_DIR"/guest/*.c; do
		kc_guest_cc "$1/$(basename "$f" .c)" "$f" || return 1
	done
}

# kc_handback LOG OUTDIR: extract the files the guest sent with kvmchurn-put; print one
# line per file that did not arrive whole.
kc_handback() {
	local log=$1 out=$2 tmp meta n name kind size sum
	tmp=$(mktemp -d "$KVMCHURN_CACHE/tmp.XXXXXX")
	# the same name checks as the guest's: no empty part, none starting with a dot
	awk -v dir="$tmp" '
		{ sub(/\r$/, ""); i = index($0, "@@KVMCHURN FILE-"); if (!i) next; $0 = substr($0, i) }
		$3 !~ /^[A-Za-z0-9_-][A-Za-z0-9._-]*(\/[A-Za-z0-9_-][A-Za-z0-9._-]*)*$/ { next }
		$2 == "FILE-BEGIN" { if (!($3 in num)) num[$3] = ++n; f = dir "/" num[$3]
			print $3, $4, $5, $6 > (f ".meta"); close(f ".meta")
			close(f ".b64"); printf "" > (f ".b64"); next }
		!($3 in num) { next }
		$2 == "FILE-DATA" { print $4 > (dir "/" num[$3] ".b64"); next }
		$2 == "FILE-END" { f = dir "/" num[$3] ".end"; printf "" > f; close(f) }
	' "$log"
	for meta in "$tmp"/*.meta; do
		[[ -e $meta ]] || continue
		n=${meta%.meta}
		read -r name kind size sum <"$meta"
		if [[ ! -e $n.end ]]; then
			echo "file $name cut short"
		elif ! base64 -d <"$n.b64" >"$n.data" 2>/dev/null ||
			[[ $(stat -c %s "$n.data") != "$size" || $(md5sum <"$n.data" | cut -d' ' -f1) != "$sum" ]]; then
			echo "file $name damaged"
		else
			mkdir -p "$(dirname "$out/$name")"
			rm -rf "${out:?}/$name"
			if [[ $kind == tar ]]; then
				mkdir "$out/$name"
				tar -xmf "$n.data" -C "$out/$name" --no-same-owner # -m: the guest clock is not ours
			else
				mv "$n.data" "$out/$name"
			fi
		fi
	done
	rm -rf "$tmp"
}

# kc_vm_one ID: build, boot, judge one kernel; print its verdict.
# The deadline reason of a kernel that hung in its own boot, before the initramfs's /init
# printed anything: kc_vm_one boots such a kernel once more.
KC_EARLY_HANG="the kernel hung in its own boot, before /init"

# kc_vm_boot ID INITRD APPEND QEMU...: one boot of ID, its serial log watched until QEMU
# ends. Sets KC_BOOT_LOG (the log; LOG.deadline holds why the watcher ended it, LOG.where
# where the vCPUs were then), KC_BOOT_QRC (QEMU's status) and KC_BOOT_SECS.
# Hung: no line from the scenarios for KVMCHURN_VM_SILENCE s; or, before /init began,
# no byte at all for KVMCHURN_VM_BOOT_SILENCE s and every vCPU at one program counter in
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
	timeout -k 10 $((KVMCHURN_VM_TIMEOUT + 60)) "$@" -monitor "unix:$mondir/m,server=on,wait=off" \
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
			((SECONDS - heard < KVMCHURN_VM_SILENCE)) ||
				why="no line from the scenarios for $KVMCHURN_VM_SILENCE s (hung)"
			if [[ -z $why ]] && ! grep -aq '@@KVMCHURN BEGIN init' "$log"; then
				size=$(stat -c %s "$log")
				((size == lastsize)) || { lastsize=$size grew=$SECONDS; }
				if ((SECONDS - grew >= KVMCHURN_VM_BOOT_SILENCE)); then
					"$KC_VM_DIR/hang-dump.py" "$mondir/m" "$log" "$KVMCHURN_CACHE/kernels/$id/System.map" >"$log.where" 2>&1 || true
					if kc_vcpus_spin "$log.where"; then
						why="$KC_EARLY_HANG (no byte for $KVMCHURN_VM_BOOT_SILENCE s, every vCPU at one PC)"
					else
						grew=$SECONDS # a vCPU moves: slow, not hung
					fi
				fi
			fi
			((SECONDS - t0 < KVMCHURN_VM_TIMEOUT)) || why=${why:-"timed out after $KVMCHURN_VM_TIMEOUT s"}
			[[ -n $why ]] || continue
			[[ $why == "$KC_EARLY_HANG"* ]] ||
				"$KC_VM_DIR/hang-dump.py" "$mondir/m" "$log" "$KVMCHURN_CACHE/kernels/$id/System.map" >"$log.where" 2>&1
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

kc_vm_one() {
	local id=$1 log blog initrd ts t0 secs qrc=0 reasons=() ok nok cpus line bad scen
	local -a expected notok
	kc_load_env "$id" || { echo "FAIL $id: not fetched"; return "$KC_FAIL"; }
	mkdir -p "$KVMCHURN_CACHE/logs" "$KVMCHURN_CACHE/initramfs"
	blog=$KVMCHURN_CACHE/logs/$id-build-vm.log
	t0=$SECONDS
	local from=''
	if [[ -n ${KVMCHURN_MODULE_DIR:-} ]]; then
		from=" (module from $KVMCHURN_MODULE_DIR)"
		kc_build_dir "$id" vm
		if ! cp "$KVMCHURN_MODULE_DIR/$id/kvmchurn.ko" "$KC_BUILD_DIR/kvmchurn.ko"; then
			echo "FAIL $id $KC_KREL: no $KVMCHURN_MODULE_DIR/$id/kvmchurn.ko"
			return "$KC_FAIL"
		fi
	elif [[ -n ${KC_VM_BUILT:-} ]] && kc_build_path "$id" vm && [[ -f $KC_BUILD_DIR/kvmchurn.ko ]]; then
		: # kc_vm_kernel's icount boot: the module its first boot built, not built again
	elif ! kc_build "$id" vm "$blog" module || [[ ! -f $KC_BUILD_DIR/kvmchurn.ko ]]; then
		tail -n 20 "$blog" | sed 's/^/    /'
		echo "FAIL $id $KC_KREL: module build failed (log: $blog)"
		return "$KC_FAIL"
	fi
	if ! kc_build "$id" vm "$blog.client" client STATIC=1 || [[ ! -f $KC_BUILD_DIR/userspace/kvmchurn ]]; then
		tail -n 20 "$blog.client" | sed 's/^/    /'
		echo "FAIL $id $KC_KREL: client build failed (log: $blog.client)"
		return "$KC_FAIL"
	fi
	if ! kc_guest_tools "$KC_BUILD_DIR/guest-bin" >"$blog.guest" 2>&1; then
		sed 's/^/    /' "$blog.guest" | tail -n 20
		echo "FAIL $id $KC_KREL: guest tools build failed (log: $blog.guest)"
		return "$KC_FAIL"
	fi
	# the test modules, each when the scenario that loads it is to run
	kc_build_for "$id" 05-kunit.sh kunit tests/kunit/kvmchurn_test.ko "$blog.kunit" "KUnit module" || return
	kc_build_for "$id" 50-bench.sh bench-floor tests/bench/floor/kvmchurn_floor.ko "$blog.floor" "the bench's floor module" || return
	kc_build_for "$id" 60-profile.sh bench-floor tests/bench/floor/kvmchurn_floor.ko "$blog.floor" "the bench's floor module" || return
	kc_build_for "$id" 60-count.sh bench-floor tests/bench/floor/kvmchurn_floor.ko "$blog.floor" "the bench's floor module" || return
	initrd=$KVMCHURN_CACHE/initramfs/$id.cpio.gz
	# decided once: the initramfs and QEMU's disk must agree
	local vmm=0
	! kc_vmm_wanted "$id" || vmm=1
	kc_initramfs "$id" "$KC_BUILD_DIR" "$initrd" "$vmm"
	local -a qemu=("${KC_QEMU[@]}")
	if ((vmm)); then
		if ! kc_vmm_image "$(kc_vmm_debarch)"; then
			echo "FAIL $id $KC_KREL: the VMM's root for $KC_VMM_SCENARIO could not be made (log: $(kc_vmm_image_of "$(kc_vmm_debarch)").log)"
			return "$KC_FAIL"
		fi
		kc_vmm_drive qemu
	elif [[ -n ${KVMCHURN_DISK:-} ]]; then
		kc_vmm_drive qemu "$KVMCHURN_DISK"
	fi
	if [[ -n ${KVMCHURN_ICOUNT:-} ]]; then
		# icount needs one TCG thread; sleep=off: an idle guest's clock jumps, it does not wait
		qemu=("${qemu[@]/tcg,thread=multi/tcg,thread=single}" -icount "shift=$KVMCHURN_ICOUNT,sleep=off")
	fi
	local i
	for ((i = 0; i < ${#qemu[@]} - 1; i++)); do
		# the guest's memory: the element after -m; its CPUs: after -smp
		[[ -z ${KVMCHURN_VM_MEM:-} || ${qemu[i]} != -m ]] || qemu[i + 1]=${KVMCHURN_VM_MEM}M
		[[ -z ${KVMCHURN_VM_SMP:-} || ${qemu[i]} != -smp ]] || qemu[i + 1]=$KVMCHURN_VM_SMP
	done
	# more of QEMU's arguments, words without spaces: make bench-count's plugin
	local -a extra
	read -ra extra <<<"${KVMCHURN_QEMU_ARGS:-}"
	qemu+=("${extra[@]}")
	# x86's default machine (pc) takes 255 CPUs at most; q35 takes more
	local smp=${KVMCHURN_VM_SMP:-0}
	[[ $KC_ARCH != x86_64 || (${smp%%,*} -le 255 && ${smp##*=} -le 255) ]] || qemu+=(-machine q35)
	kc_qemu_argv qemu
	local append=$KC_APPEND
	if [[ -n ${KVMCHURN_BOOT:-} ]]; then
		append+=" $KVMCHURN_BOOT"
		from+=" (booted with $KVMCHURN_BOOT)"
	fi
	[[ -z ${KC_ICOUNT_BOOT:-} ]] || from+=" (the icount boot: -icount shift=$KVMCHURN_ICOUNT)"
	kc_log "$id: built and packed ($((SECONDS - t0)) s), booting $KC_KREL on $KC_QEMU_SAYS${KVMCHURN_BOOT:+, with $KVMCHURN_BOOT}${KVMCHURN_ICOUNT:+, -icount shift=$KVMCHURN_ICOUNT}"
	# for kc_vm_kernel: this one got as far as a boot
	[[ -z ${KC_VM_BOOTED:-} ]] || : >"$KC_VM_BOOTED"

	kc_vm_boot "$id" "$initrd" "$append" "${qemu[@]}"
	if [[ $(cat "$KC_BOOT_LOG.deadline" 2>/dev/null) == "$KC_EARLY_HANG"* ]]; then
		# nothing of kvmchurn ran yet: the kernel's own boot, under TCG, failed once
		# (notes/kernel-matrix.md); a second such hang fails the kernel
		local first=$KC_BOOT_LOG
		sed 's/^/    | hung: /' "$first.where"
		kc_log "$id: $(cat "$first.deadline") (log: $first): booting it again"
		from+=" (booted twice: the first boot hung before /init, $first)"
		kc_vm_boot "$id" "$initrd" "$append" "${qemu[@]}"
	fi
	log=$KC_BOOT_LOG qrc=$KC_BOOT_QRC secs=$KC_BOOT_SECS
	# keep the last 10 logs of each kernel
	find "$KVMCHURN_CACHE/logs" -maxdepth 1 -name "$id-2*.log" | sort -r | tail -n +11 |
		while read -r f; do rm -f "$f" "$f.where" "$f.hang" "$f.deadline"; done

	rm -rf "${KC_OUT:?}/$id"
	while read -r line; do reasons+=("$line"); done < <(kc_handback "$log" "$KC_OUT/$id")

	mapfile -t expected < <(echo init && kc_scenarios "$id" | sed 's#.*/##' | LC_ALL=C sort)
	# counts come only from inside scenario blocks, never from kernel or dmesg lines
	local judged
	judged=$(awk -v names="${expected[*]}" '
		{ sub(/\r$/, "") }
		index($0, "@@KVMCHURN FILE-") { next }
		match($0, /@@KVMCHURN BEGIN [^ ]+/) { cur = substr($0, RSTART + 17, RLENGTH - 17); next }
		match($0, /@@KVMCHURN END [^ ]+ rc=[0-9]+/) {
			split(substr($0, RSTART, RLENGTH), f, " "); rc[f[3]] = substr(f[4], 4); cur = ""
			if (match($0, / cpus=[0-9]+ secs=[0-9]+/)) {
				split(substr($0, RSTART + 1, RLENGTH - 1), g, /[ =]/); cpus[f[3]] = g[2]; secs[f[3]] = g[4]
				if (g[2] > maxcpus) maxcpus = g[2]
			}
			next }
		index($0, "@@KVMCHURN DONE") { done = 1; next }
		cur != "" && /^ok( |$)/ { ok++; sok[cur]++ }
		cur != "" && /^not ok( |$)/ { nok++; snok[cur]++; print "notok " cur ": " $0 }
		cur != "" && /^# KUnit: / { print "kunit " substr($0, 3) }
		END {
			n = split(names, w, " ")
			for (i = 1; i <= n; i++)
				print "scen " w[i] " " sok[w[i]] + 0 " " snok[w[i]] + 0 " " (w[i] in rc ? rc[w[i]] : "none") \
					" " (w[i] in cpus ? cpus[w[i]] " " secs[w[i]] : "? ?")
			for (i = 1; i <= n; i++)
				if (!(w[i] in rc)) print "reason no end marker for " w[i]
				else if (rc[w[i]] != 0) print "reason " w[i] " exited " rc[w[i]]
			if (!done) print "reason no final marker"
			print "ok " ok + 0; print "nok " nok + 0; print "cpus " maxcpus + 0
		}' "$log")
	ok=$(sed -n 's/^ok //p' <<<"$judged")
	nok=$(sed -n 's/^nok //p' <<<"$judged")
	cpus=$(sed -n 's/^cpus //p' <<<"$judged")
	mapfile -t notok < <(sed -n 's/^notok //p' <<<"$judged")
	if [[ -s $log.deadline ]]; then
		reasons=("$(cat "$log.deadline")" "${reasons[@]}")
		# where the vCPUs were at the deadline (the registers: $log.where.hang)
		[[ ! -s $log.where ]] || sed 's/^/    | hung: /' "$log.where"
	else
		case $qrc in
		0) ;;
		124 | 137) reasons=("timed out after $((KVMCHURN_VM_TIMEOUT + 60)) s, and the watcher did not end it" "${reasons[@]}") ;;
		*) reasons=("qemu exited $qrc" "${reasons[@]}") ;;
		esac
	fi
	while read -r line; do reasons+=("$line"); done < <(sed -n 's/^reason //p' <<<"$judged")
	((nok == 0)) || reasons+=("$nok not ok")
	((ok > 0)) || reasons+=("no ok line")
	local badre=$KC_BAD
	[[ $id != "$KC_DEBUG_ID" ]] || badre+="|$KC_BAD_DEBUG"
	bad=$(tr -d '\r' <"$log" | grep -v '@@KVMCHURN FILE-DATA' | awk -f "$KC_VM_DIR/guest/known-splats.awk" |
		grep -E "$badre" | grep -vE "$KC_HARMLESS" | awk '!seen[$0]++' || true)
	[[ -z $bad ]] || reasons+=("kernel says: $(grep -oE "$badre" <<<"$bad" | head -n1)")

	if [[ $id == "$KC_DEBUG_ID" ]]; then
		# one verdict a scenario: the fault scenarios are named tests of their own
		sed -n 's/^scen //p' <<<"$judged" | while read -r scen sok snok src scpus ssecs; do
			[[ $snok == 0 && $src == 0 ]] && line=PASS || line=FAIL
			echo "    $line $scen: $sok ok, $snok not ok ($scpus CPUs, $ssecs s)"
		done
		local klog="kernel log${KVMCHURN_BOOT:+ ($KVMCHURN_BOOT)}${KC_ICOUNT_BOOT:+ (icount)}"
		if [[ -n $bad ]]; then
			echo "    FAIL $klog: $(grep -oE "$badre" <<<"$bad" | head -n1)"
		elif [[ $qrc != 0 ]]; then
			echo "    FAIL $klog: qemu exited $qrc"
		else
			echo "    PASS $klog: no KASAN, UBSAN, lockdep, kmemleak, WARNING or BUG report"
		fi
	fi
	local kunit depth
	kunit=$(sed -n 's/^kunit //p' <<<"$judged" | tail -n1)
	# which scenarios ran: "all", or their numbers where make check's depth left some out
	# (and always in the icount boot, which runs a few)
	depth=all
	[[ -z $(kc_scenario_globs "$id") && -z ${KC_ICOUNT_BOOT:-} ]] ||
		depth=$(kc_scenarios "$id" | sed 's|.*/||; s|-.*||' | sort | paste -sd ' ')
	# the verdict stays with the files handed back (tests/vm/compatibility.sh reads it);
	# not a bench's, which runs no test scenario
	mkdir -p "$KC_OUT/$id"
	[[ -n ${KVMCHURN_SCENARIO_DIR:-} ]] || printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$id" "$KC_KREL" "$KC_PKGVER" "${KC_SUITES%% *}" \
		"$( ((${#reasons[@]} == 0)) && echo PASS || echo FAIL)" "$ok" "$nok" "$depth" >"$KC_OUT/$id/verdict"
	local how="$secs s, $cpus CPUs"
	[[ $depth == all ]] || how+="; scenarios $depth"
	if ((${#reasons[@]} == 0)); then
		echo "PASS $id $KC_KREL$from: $ok ok, 0 not ok ($how)${kunit:+; $kunit}"
		echo "    log: $log"
		return 0
	fi
	for scen in "${notok[@]}"; do echo "    $scen"; done
	[[ -z $bad ]] || head -n 10 <<<"$bad" | sed 's/^/    | /'
	echo "    log: $log"
	line=$(printf '%s; ' "${reasons[@]}")
	echo "FAIL $id $KC_KREL$from: $ok ok, $nok not ok ($how)${kunit:+; $kunit} (${line%; })"
	return "$KC_FAIL"
}

# kc_vm_kernel ID: kc_vm_one's boots of ID. Its scenarios with a "# clock: icount" line
# (kc_scenarios) need a guest clock that counts instructions: unless KVMCHURN_ICOUNT is
# set (then one boot runs them all), they run in a second boot of their own, with
# KVMCHURN_ICOUNT=0, the module of the first, their files in $KC_OUT/icount/ID (the
# first boot's $KC_OUT/ID and verdict stay) and a verdict line of their own. Passed
# only if each boot passed; a harness error of either is the status, and a first boot
# that failed before booting (a build) is the only one.
kc_vm_kernel() {
	local id=$1 rc=0 rc2=0 built='' booted=$KVMCHURN_CACHE/logs/$1.booted
	if [[ -n ${KVMCHURN_ICOUNT:-} || -z $(KC_ICOUNT_BOOT=1 KVMCHURN_ICOUNT=0 kc_scenarios "$id") ]]; then
		kc_vm_one "$id"
		return
	fi
	# the first boot, unless the scenarios asked for are all of the icount boot
	if [[ -n $(kc_scenarios "$id") ]]; then
		rm -f "$booted"
		set +e
		(set -e; KC_VM_BOOTED=$booted; kc_vm_one "$id")
		rc=$?
		set -e
		[[ $rc == 0 || $rc == "$KC_FAIL" ]] || return "$rc"
		[[ -e $booted ]] || return "$rc"
		rm -f "$booted"
		built=1
	fi
	set +e
	(
		set -e
		KC_OUT=$KC_OUT/icount KVMCHURN_ICOUNT=0 KC_ICOUNT_BOOT=1 KC_VM_BUILT=$built
		kc_vm_one "$id"
	)
	rc2=$?
	set -e
	[[ $rc2 == 0 || $rc2 == "$KC_FAIL" ]] || return "$rc2"
	((rc == 0 && rc2 == 0)) || return "$KC_FAIL"
}

kc_run_tier kc_vm_kernel "$@"

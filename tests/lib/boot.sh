#!/usr/bin/env bash
# boot.sh [OPTION...] ID...: the boot engine of the test harness. For each kernel id:
# build kvmchurn.ko, a static client and the guest's programs, pack an initramfs
# (busybox, guest/init, the host KVM modules, the scenarios), boot it under QEMU TCG and
# judge the serial log (never QEMU's exit code: with panic=-1 -no-reboot it exits 0
# after a panic). Prints a verdict line a kernel (PASS/FAIL ID ...: N ok, N not ok
# (...), then "    log: SERIAL-LOG") and "N passed, N failed"; exit 1 if any failed.
# --help lists the options. Tiers run it with theirs; KERNELS, STRESS and
# KVMCHURN_CACHE are read as everywhere (tests/README.md).
#
# A scenario with a "# clock: icount" line (55-teardown: a host that stalls the TCG vCPU
# must not move the guest's clocks) runs only with --icount. Without it, a kernel whose
# scenarios include such ones boots a second time after the first, with --icount 0 and
# only those (the same module; files and verdict in OUT/icount/ID, so the first boot's
# stay; a verdict line of its own, "(the icount boot: ...)"); the kernel passes only if
# both boots did. Not every boot: with one TCG thread the vCPUs never run at once, which
# the other scenarios want.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=core.sh
. "$(dirname "${BASH_SOURCE[0]}")/core.sh"
# shellcheck source-path=SCRIPTDIR source=qemu.sh
. "$KC_LIB/qemu.sh"
# shellcheck source-path=SCRIPTDIR source=vmm.sh
. "$KC_LIB/vmm.sh"
# shellcheck source-path=SCRIPTDIR source=pack.sh
. "$KC_LIB/pack.sh"
# shellcheck source-path=SCRIPTDIR source=watch.sh
. "$KC_LIB/watch.sh"
# shellcheck source-path=SCRIPTDIR source=judge.sh
. "$KC_LIB/judge.sh"


kc_boot_usage() {
	cat <<EOF
usage: tests/lib/boot.sh [OPTION...] ID...   (ids: $KC_ALL_IDS $KC_OPTIN_IDS $KC_DEBUG_IDS;
       none: \$KERNELS, else the default matrix)
  --scenarios DIR    run DIR/*.sh in the guest (more than once: each folder's);
                     default: tests/scenarios
  --only 'GLOB...'   only the scenarios whose file names match a glob, e.g. '00-* 30-*';
                     a glob with a leading ! leaves out what it matches ('!45-*')
  --depth            without --only: make check's depth on each kernel (every scenario
                     on some kernels, the kernel-dependent ones on the others; FULL=1:
                     every one everywhere; tests/lib/matrix.sh)
  --boot-args ARGS   a boot of its own: ARGS added to the kernel's command line, and only
                     the scenarios with a "# boot: ARGS" line run (without it, those never do)
  --arg-boots        without --boot-args: after the other boots of a kernel, one boot a
                     "# boot: ARGS" line of its chosen scenarios, with those ARGS
  --module-dir DIR   boot DIR/ID/kvmchurn.ko instead of building one (the dkms tier)
  --guest-dir DIR    DIR's contents copied into the guest's /kvmchurn
  --out DIR          where the guest's files and each verdict go (default
                     \$KVMCHURN_CACHE/out); --no-verdict: no verdict file (not a test)
  --vms N            VMs of 10-module-churn's load and each of 30-metrics' (default 40;
                     with --depth, make check's: 20 on the kernels of core depth)
  --icount SHIFT     QEMU's -icount shift: the guest clock counts instructions, one
                     vCPU thread; every boot of the run, no second icount boot
  --mem MIB          the guest's memory instead of the kernel's default
  --smp SPEC         QEMU's -smp instead of the kernel's: CPUS or CPUS,maxcpus=N
  --qemu-arg ARG     one more argument of QEMU (more than once: each)
  --disk IMAGE       a root image (vmm.sh's kc_root_image) as the guest's read-only
                     virtio disk, with the modules that mount it
  --silence S        seconds the scenarios may print nothing before the guest is taken
                     as hung (default 600)
  --boot-silence S   seconds the kernel may print nothing before /init begins, then hung
                     if its vCPUs spin: such a boot is tried once more (default 120)
  --timeout S        seconds a boot may take in all (default 3600)
EOF
}

# kc_boot_options ARG...: boot.sh's options into KC_OPT_*; the ids left into KC_OPT_IDS.
kc_boot_options() {
	KC_OPT_SCENARIOS=() KC_OPT_ONLY='' KC_OPT_DEPTH=0 KC_OPT_ARGS='' KC_OPT_MODULE_DIR=''
	KC_OPT_GUEST_DIR='' KC_OPT_OUT=$KVMCHURN_CACHE/out KC_OPT_VERDICT=1 KC_OPT_VMS=''
	KC_OPT_ICOUNT='' KC_OPT_MEM='' KC_OPT_SMP='' KC_OPT_QEMU=() KC_OPT_DISK=''
	KC_OPT_SILENCE=600 KC_OPT_BOOT_SILENCE=120 KC_OPT_TIMEOUT=3600 KC_OPT_IDS=() KC_OPT_ARG_BOOTS=0
	local re
	while (($#)); do
		case $1 in
		--help) kc_boot_usage; exit 0 ;;
		--depth) KC_OPT_DEPTH=1; shift; continue ;;
		--no-verdict) KC_OPT_VERDICT=0; shift; continue ;;
		--arg-boots) KC_OPT_ARG_BOOTS=1; shift; continue ;;
		--scenarios | --only | --boot-args | --module-dir | --guest-dir | --out | --vms | --icount | \
			--mem | --smp | --qemu-arg | --disk | --silence | --boot-silence | --timeout)
			(($# >= 2)) || kc_usage_error "$1 needs a value" ;;
		-*) kc_usage_error "unknown option $1" ;;
		*) KC_OPT_IDS+=("$1"); shift; continue ;;
		esac
		re='.+'
		case $1 in
		--scenarios) [[ -d $2 ]] || kc_usage_error "--scenarios $2: no such folder"
			KC_OPT_SCENARIOS+=("$(cd "$2" && pwd)") ;;
		--only) KC_OPT_ONLY=$2 ;;
		--boot-args) KC_OPT_ARGS=$2 ;;
		--module-dir) KC_OPT_MODULE_DIR=$2 ;;
		--guest-dir) [[ -d $2 ]] || kc_usage_error "--guest-dir $2: no such folder"
			KC_OPT_GUEST_DIR=$2 ;;
		--out) KC_OPT_OUT=$2 ;;
		--vms) KC_OPT_VMS=$2 re='[1-9][0-9]{0,3}' ;;
		--icount) KC_OPT_ICOUNT=$2 re='[0-9]|10' ;;
		--mem) KC_OPT_MEM=$2 re='[1-9][0-9]{2,5}' ;;
		--smp) KC_OPT_SMP=$2 re='[1-9][0-9]*(,maxcpus=[1-9][0-9]*)?' ;;
		--qemu-arg) KC_OPT_QEMU+=("$2") ;;
		--disk) [[ -f $2 ]] || kc_usage_error "--disk $2: no such file"
			KC_OPT_DISK=$2 ;;
		--silence) KC_OPT_SILENCE=$2 re='[1-9][0-9]*' ;;
		--boot-silence) KC_OPT_BOOT_SILENCE=$2 re='[1-9][0-9]*' ;;
		--timeout) KC_OPT_TIMEOUT=$2 re='[1-9][0-9]*' ;;
		esac
		[[ $2 =~ ^($re)$ ]] || kc_usage_error "$1 $2: not a valid value (--help)"
		shift 2
	done
	((${#KC_OPT_SCENARIOS[@]})) || KC_OPT_SCENARIOS=("$KC_TOP/tests/scenarios")
}

kc_usage_error() {
	echo "boot.sh: $1" >&2
	kc_boot_usage >&2
	exit 2
}

# kc_vm_qemu ID VMM: QEMU's command line for ID into KC_VM_QEMU (kc_qemu_argv's: the
# kernel's machine, the options' memory, CPUs, icount and arguments, and with VMM 1 the
# VMM's root as a disk, else --disk's); returns KC_FAIL if the VMM's root failed.
kc_vm_qemu() {
	local id=$1 vmm=$2 i smp=${KC_OPT_SMP:-0}
	local -a qemu=("${KC_QEMU[@]}")
	if ((vmm)); then
		if ! kc_vmm_image "$(kc_vmm_debarch)"; then
			echo "FAIL $id $KC_KREL: the VMM's root for $KC_VMM_SCENARIO could not be made (log: $(kc_vmm_image_of "$(kc_vmm_debarch)").log)"
			return "$KC_FAIL"
		fi
		kc_vmm_drive qemu
	elif [[ -n $KC_OPT_DISK ]]; then
		kc_vmm_drive qemu "$KC_OPT_DISK"
	fi
	if [[ -n $KC_OPT_ICOUNT ]]; then
		# icount needs one TCG thread; sleep=off: an idle guest's clock jumps, it does not wait
		qemu=("${qemu[@]/tcg,thread=multi/tcg,thread=single}" -icount "shift=$KC_OPT_ICOUNT,sleep=off")
	fi
	for ((i = 0; i < ${#qemu[@]} - 1; i++)); do
		# the guest's memory: the element after -m; its CPUs: after -smp
		[[ -z $KC_OPT_MEM || ${qemu[i]} != -m ]] || qemu[i + 1]=${KC_OPT_MEM}M
		[[ -z $KC_OPT_SMP || ${qemu[i]} != -smp ]] || qemu[i + 1]=$KC_OPT_SMP
	done
	qemu+=("${KC_OPT_QEMU[@]}")
	# x86's default machine (pc) takes 255 CPUs at most; q35 takes more
	[[ $KC_ARCH != x86_64 || (${smp%%,*} -le 255 && ${smp##*=} -le 255) ]] || qemu+=(-machine q35)
	kc_qemu_argv qemu
	KC_VM_QEMU=("${qemu[@]}")
}

# kc_vm_run ID INITRD APPEND: boot ID (kc_vm_boot), once more if the kernel hung in its
# own boot; sets what kc_vm_boot sets, and keeps the last 10 logs of ID.
kc_vm_run() {
	local id=$1 initrd=$2 append=$3 first f
	kc_vm_boot "$id" "$initrd" "$append" "${KC_VM_QEMU[@]}"
	if [[ $(cat "$KC_BOOT_LOG.deadline" 2>/dev/null) == "$KC_EARLY_HANG"* ]]; then
		# nothing of kvmchurn ran yet: the kernel's own boot, under TCG, failed once
		# (notes/kernel-matrix.md); a second such hang fails the kernel
		first=$KC_BOOT_LOG
		sed 's/^/    | hung: /' "$first.where"
		kc_log "$id: $(cat "$first.deadline") (log: $first): booting it again"
		KC_VM_FROM+=" (booted twice: the first boot hung before /init, $first)"
		kc_vm_boot "$id" "$initrd" "$append" "${KC_VM_QEMU[@]}"
	fi
	find "$KVMCHURN_CACHE/logs" -maxdepth 1 -name "$id-2*.log" | sort -r | tail -n +11 |
		while read -r f; do rm -f "$f" "$f.where" "$f.hang" "$f.deadline"; done
}

# kc_vm_one ID: build, pack, boot and judge one kernel; print its verdict.
kc_vm_one() {
	local id=$1 blog initrd t0=$SECONDS vmm=0 append
	kc_load_env "$id" || { echo "FAIL $id: not fetched"; return "$KC_FAIL"; }
	mkdir -p "$KVMCHURN_CACHE/logs" "$KVMCHURN_CACHE/initramfs"
	blog=$KVMCHURN_CACHE/logs/$id-build-vm.log
	KC_VM_FROM=''
	[[ -z $KC_OPT_MODULE_DIR ]] || KC_VM_FROM=" (module from $KC_OPT_MODULE_DIR)"
	kc_build_guest "$id" "$blog" || return
	initrd=$KVMCHURN_CACHE/initramfs/$id.cpio.gz
	# decided once: the initramfs and QEMU's disk must agree
	! kc_vmm_wanted "$id" || vmm=1
	kc_initramfs "$id" "$KC_BUILD_DIR" "$initrd" "$vmm"
	kc_vm_qemu "$id" "$vmm" || return
	append=$KC_APPEND${KC_OPT_ARGS:+ $KC_OPT_ARGS}
	[[ -z $KC_OPT_ARGS ]] || KC_VM_FROM+=" (booted with $KC_OPT_ARGS)"
	[[ -z ${KC_ICOUNT_BOOT:-} ]] || KC_VM_FROM+=" (the icount boot: -icount shift=$KC_OPT_ICOUNT)"
	kc_log "$id: built and packed ($((SECONDS - t0)) s), booting $KC_KREL on $KC_QEMU_SAYS${KC_OPT_ARGS:+, with $KC_OPT_ARGS}${KC_OPT_ICOUNT:+, -icount shift=$KC_OPT_ICOUNT}"
	# for kc_vm_kernel: this one got as far as a boot
	[[ -z ${KC_VM_BOOTED:-} ]] || : >"$KC_VM_BOOTED"
	kc_vm_run "$id" "$initrd" "$append"
	kc_vm_judge "$id" "$KC_BOOT_LOG" "$KC_BOOT_QRC" "$KC_BOOT_SECS"
}

# kc_arg_boots ID: with --arg-boots (and no --boot-args), one line a boot of its own that
# ID's scenarios ask for: the ARGS of each "# boot: ARGS" line of a scenario chosen for ID;
# with --depth and no --only, those of make check's depth (matrix.sh's KC_CHECK_ARG_BOOTS).
kc_arg_boots() {
	local d a
	((KC_OPT_ARG_BOOTS)) && [[ -z $KC_OPT_ARGS ]] || return 0
	for d in "${KC_OPT_SCENARIOS[@]}"; do sed -n 's/^# boot: //p' "$d"/*.sh; done | sort -u |
		while IFS= read -r a; do
			[[ -n $KC_OPT_ONLY ]] || ((!KC_OPT_DEPTH)) || kc_arg_boot_depth "$1" "$a" || continue
			[[ -z $(KC_OPT_ARGS=$a kc_scenarios "$1") ]] || echo "$a"
		done
}

# kc_vm_again ID SUBDIR VAR=VALUE...: kc_vm_one's boot of ID once more, with the VARs set
# (KC_OPT_* as if given), the module of the first boot when it built one ($built), its
# files and verdict in OUT/SUBDIR/ID; its status.
kc_vm_again() {
	local id=$1 sub=$2 v
	shift 2
	(
		set -e
		KC_OPT_OUT=$KC_OPT_OUT/$sub KC_VM_BUILT=$built
		for v in "$@"; do declare "$v"; done
		kc_vm_one "$id"
	)
}

# kc_vm_kernel ID: kc_vm_one's boots of ID. Its scenarios with a "# clock: icount" line
# (kc_scenarios) need a guest clock that counts instructions: unless --icount is given
# (then one boot runs them all), they run in a second boot of their own, with icount
# shift 0, its files in OUT/icount/ID. With --arg-boots, each "# boot: ARGS" line of its
# scenarios is a boot of its own after those, with ARGS, its files in
# OUT/boot/ARGS/ID. Every boot after the first takes the module of the first (the first
# boot's OUT/ID and verdict stay) and has a verdict line of its own. Passed only if each
# boot passed; a harness error of one is the status, and a first boot that failed before
# booting (a build) is the only one.
kc_vm_kernel() {
	local id=$1 rc=0 r a built='' icount='' booted=$KVMCHURN_CACHE/logs/$1.booted
	local -a args
	[[ -n $KC_OPT_ICOUNT || -z $(KC_ICOUNT_BOOT=1 KC_OPT_ICOUNT=0 kc_scenarios "$id") ]] || icount=1
	mapfile -t args < <(kc_arg_boots "$id")
	if [[ -z $icount && ${#args[@]} == 0 ]]; then
		kc_vm_one "$id"
		return
	fi
	# the first boot, unless the scenarios asked for are all of the other boots
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
	if [[ -n $icount ]]; then
		r=0
		kc_vm_again "$id" icount KC_OPT_ICOUNT=0 KC_ICOUNT_BOOT=1 || r=$?
		[[ $r == 0 || $r == "$KC_FAIL" ]] || return "$r"
		((r == 0)) || rc=$r
	fi
	for a in "${args[@]}"; do
		r=0
		kc_vm_again "$id" "boot/${a//[^A-Za-z0-9._=-]/_}" "KC_OPT_ARGS=$a" || r=$?
		[[ $r == 0 || $r == "$KC_FAIL" ]] || return "$r"
		((r == 0)) || rc=$r
	done
	return "$rc"
}

kc_boot_options "$@"
# this run, for what its boots share (pack.sh's kc_guest_programs)
KC_RUN=$$-$(date +%s%N)
kc_run_tier kc_vm_kernel "${KC_OPT_IDS[@]}"

# shellcheck shell=sh
# lib.sh: what every scenario needs, sourced as /kvmchurn/lib.sh (busybox sh).
# A scenario reports in the TAP of tests/lib/tap.sh (/kvmchurn/tap.sh here, which
# this sources); the host judges the serial log.
# shellcheck source=../../lib/tap.sh
. /kvmchurn/tap.sh
D=/sys/kernel/debug/kvmchurn
TR=

# ok, not_ok, skip, diag, check, is, wait_for, now: tests/lib/tap.sh.

# raw_field TAG NAME COLUMN [RAW]: the guest's one reader of the module's raw file: a
# field (columns from 1) of the first record whose tag is TAG and, unless NAME is "-",
# whose name (column 2) is NAME, such as "hist exit_mmap 3" (a count) or "pairs - 2";
# "missing" when there is none. RAW: a saved copy, or deltas' records, instead
# of the live $D/raw.
raw_field() {
	awk -F '\t' -v t="$1" -v n="$2" -v c="$3" \
		'$1 == t && (n == "-" || $2 == n) { print $c; found = 1; exit }
		END { if (!found) print "missing" }' "${4:-$D/raw}"
}

# deltas OLD NEW: what moved between two raw snapshots, as raw records of their own
# ("hist", "counter": TAG, NAME, NEW - OLD, tab-separated; "missing" for a record that
# NEW lost), for raw_field to read like the live file. A scenario keeps the last in
# $KC_DELTA (load_deltas does), which delta reads.
KC_DELTA=/tmp/kc.delta
deltas() {
	awk -F '\t' -v OFS='\t' '
		FNR == 1 { f++ }
		$1 == "hist" || $1 == "counter" {
			k = $1 OFS $2
			if (f == 1) { old[k] = $3; next }
			print k, $3 - old[k]
			seen[k] = 1
		}
		END { for (k in old) if (!(k in seen)) print k, "missing" }' "$1" "$2"
}

# delta TAG NAME: how far TAG NAME moved in $KC_DELTA, "missing" if absent.
delta() { raw_field "$1" "$2" 3 "$KC_DELTA"; }

# meminfo KEY: KEY's kB (or count) in /proc/meminfo, 0 when the kernel has no such line.
meminfo() { awk -v k="$1:" '$1 == k { print $2; f = 1 } END { if (!f) print 0 }' /proc/meminfo; }

# loaded MODULE: is MODULE (its name in /proc/modules) loaded?
loaded() { grep -q "^$1 " /proc/modules; }

# read_all: every file of the module's folder read once to its end; what failed goes to
# /tmp/kc.rerr (the readers of the fault scenarios, beside writers and loads).
read_all() {
	for f in "$D"/all "$D"/summary "$D"/counters "$D"/probes "$D"/checks \
		"$D"/raw "$D"/vms "$D"/memory "$D"/filter "$D"/enable "$D"/hist/*; do
		cat "$f" >/dev/null 2>>/tmp/kc.rerr || echo "read $f failed" >>/tmp/kc.rerr
	done
}

# attached_syms KIND: the symbols of the attached probes of KIND (kretprobe, kprobe,
# fprobe), comma-separated, in raw's order, repeats and all: where the bench's floor
# attaches its own.
attached_syms() {
	awk -F '\t' -v k="$1" '$1 == "probe" && $3 == k && $5 == "attached" { printf "%s%s", n++ ? "," : "", $4 }' "$D/raw"
}

# vms_alive: VM processes (comm firecracker) still there.
vms_alive() {
	n=0
	for c in /proc/[0-9]*/comm; do
		{ read -r name <"$c"; } 2>/dev/null && [ "$name" = firecracker ] && n=$((n + 1))
	done
	echo $n
}

# wait_for and now: tests/lib/tap.sh. KC_WAIT, the deadline of the waits below,
# is far above what any event takes on a loaded host (tests/lib/README.md).
KC_WAIT=300

# settle BASE N: wait until the reap counter is N above its value in BASE, a raw
# snapshot, or N when BASE is "-" (sched_process_free, which counts a reap, runs
# after an RCU grace period).
settle() {
	if [ "$1" = - ]; then st_base=0; else st_base=$(raw_field counter reap 3 "$1"); fi
	wait_for "$KC_WAIT" counter_is reap $((st_base + $2))
}

# load_deltas LABEL N OPTIONS...: `kvmchurn load OPTIONS` (its output in
# /tmp/kc.load), N reaps waited for, and the counts it added in $KC_DELTA.
load_deltas() {
	ld_label=$1 ld_n=$2
	shift 2
	cp "$D/raw" /tmp/kc.raw0
	if kvmchurn load "$@" >/tmp/kc.load 2>&1; then
		ok "$ld_label: kvmchurn load $*"
	else
		not_ok "$ld_label: kvmchurn load $*: exit $?"
		sed 's/^/# /' /tmp/kc.load
	fi
	settle /tmp/kc.raw0 "$ld_n" || not_ok "$ld_label: reap counter did not settle at +$ld_n"
	cp "$D/raw" /tmp/kc.raw1
	deltas /tmp/kc.raw0 /tmp/kc.raw1 >"$KC_DELTA"
}

# Conditions for wait_for.
vms_gone() { [ "$(vms_alive)" = 0 ]; }
vms_at_least() { [ "$(vms_alive)" -ge "$1" ]; }
hist_at_least() { [ "$(raw_field hist "$1" 3)" -ge "$2" ]; }
counter_is() { [ "$(raw_field counter "$1" 3)" = "$2" ]; }
# at_rest: no VM process left, and no traced exit the module still waits to see
# reaped (sched_process_free runs after an RCU grace period).
at_rest() { vms_gone && [ "$(raw_field pairs - 3)" = 0 ]; }

# no_vms: wait until no VM process is left.
no_vms() { wait_for "$KC_WAIT" vms_gone || echo "# still $(vms_alive) VM processes after $KC_WAIT s"; }

# quiet: wait until no VM process is left and every traced exit was reaped.
quiet() {
	wait_for "$KC_WAIT" at_rest ||
		echo "# not at rest after $KC_WAIT s: $(vms_alive) VM processes, $(raw_field pairs - 3) pairing entries in use"
}

# still SECS COMMAND...: COMMAND's output once five reads in a row, 0.2 s apart,
# gave the same; returns 1 (printing the last) when it still moved after SECS. For
# the kernel's own accounts, which another part of the kernel moves too: a
# module unloaded just before frees per-CPU and slab memory after a grace period.
still() {
	st_slack=''
	reads_settle "$@"
}

# steady SLACK SECS COMMAND...: as still, for a count that other work moves a little
# all the time (the objects in use of a kmalloc cache): COMMAND's number once five
# reads in a row, 0.2 s apart, are within SLACK of the first of them.
steady() {
	st_slack=$1
	shift
	reads_settle "$@"
}

# reads_settle SECS COMMAND...: still's and steady's reads; st_slack empty: the same
# output, else numbers within st_slack of the first of the run.
reads_settle() {
	st_end=$(($(now) + $1)) st_same=-1 st_first=''
	shift
	while :; do
		st_cur=$("$@")
		if [ "$st_same" -ge 0 ] && reads_near; then
			st_same=$((st_same + 1))
		else
			st_same=0 st_first=$st_cur
		fi
		[ "$st_same" -lt 4 ] || break
		[ "$(now)" -lt "$st_end" ] || { echo "$st_cur"; return 1; }
		sleep 0.2
	done
	echo "$st_cur"
}
reads_near() {
	if [ -z "$st_slack" ]; then
		[ "$st_cur" = "$st_first" ]
	else
		[ $((st_cur - st_first)) -le "$st_slack" ] && [ $((st_first - st_cur)) -le "$st_slack" ]
	fi
}

# wait_hist METRIC N: wait until METRIC has counted N.
wait_hist() { wait_for "$KC_WAIT" hist_at_least "$1" "$2"; }

# fence_arm COMM, then fence_wait N: wait until N processes named COMM have been
# freed (sched_process_free, counted in a tracefs instance of its own) since
# fence_arm. After it, nothing of those processes is left for a probe to count:
# what a filter must not count can be checked as soon as it returns.
fence_arm() {
	tracefs || return 1
	FENCE=$TR/instances/kvmchurn-fence
	mkdir -p "$FENCE" || return 1
	echo "comm == \"$1\"" >"$FENCE/events/sched/sched_process_free/filter" || return 1
	echo >"$FENCE/trace"
	echo 1 >"$FENCE/events/sched/sched_process_free/enable"
}
fence_count() { grep -c ' sched_process_free: ' "$FENCE/trace"; }
fence_reached() { [ "$(fence_count)" -ge "$1" ]; }
fence_wait() {
	wait_for "$KC_WAIT" fence_reached "$1"
	fw_rc=$?
	[ $fw_rc = 0 ] || echo "# fence: $(fence_count) of $1 processes freed after $KC_WAIT s"
	echo 0 >"$FENCE/events/sched/sched_process_free/enable"
	rmdir "$FENCE"
	return $fw_rc
}

# client NAME WANT-STDERR ARGS...: kvmchurn ARGS exits 0, prints nothing on stdout
# and exactly WANT-STDERR (one line) on stderr: a control that went to the module's
# parameter, and said so (lockdown, no debugfs).
client() {
	cl_name=$1 cl_want=$2
	shift 2
	kvmchurn "$@" >/tmp/kc.out 2>/tmp/kc.err
	is "kvmchurn $cl_name: exit status" $? 0
	is "kvmchurn $cl_name: stdout" "$(cat /tmp/kc.out)" ""
	is "kvmchurn $cl_name: stderr" "$(cat /tmp/kc.err)" "$cl_want"
	is "kvmchurn $cl_name: stderr is one line" "$(wc -l </tmp/kc.err)" 1
}

# no_misses DESCRIPTION: one line, ok when no kretprobe missed a call.
no_misses() {
	missed=$(awk -F '\t' '$1 == "probe" && $7 != 0 { print $2 "/" $4 "=" $7 }' "$D/raw")
	is "$1" "${missed:-none}" none
}

# slots_whole DESCRIPTION [RAW]: one line, ok when every histogram's slots
# add up to its count (a torn or negative count would not).
slots_whole() {
	bad=$(awk -F '\t' '$1 == "hist" {
		s = 0; n = split($6, a, ","); for (i = 1; i <= n; i++) { split(a[i], b, ":"); s += b[2] }
		if ($6 == "-" && $3 != 0 || $6 != "-" && s != $3) print $2 }' "${2:-$D/raw}")
	is "$1" "${bad:-all}" all
}

# state METRIC: the states of its probes, distinct, joined by commas.
state() {
	awk -F '\t' -v m="$1" '$1 == "probe" && $2 == m && !s[$5]++ { o = o (o ? "," : "") $5 }
		END { print o ? o : "missing" }' "$D/raw"
}

# attached_to METRIC: the symbols its attached probes are on, one a line.
attached_to() {
	awk -F '\t' -v m="$1" '$1 == "probe" && $2 == m && $5 == "attached" { print $4 }' "$D/raw"
}

# kernel_has: which of the functions that some kernels lack (not there yet, or
# inlined: kvm_destroy_vm in the debug kernel) this one has, in KC_HAS. One pass
# over kallsyms (slow under TCG); kvm must be loaded.
kernel_has() {
	KC_HAS=" $(awk '$3 ~ /^(kvm_destroy_vm|kvm_destroy_vcpus|kvm_pgtable_stage2_destroy|kvm_stage2_destroy|kvm_arch_vcpu_run_pid_change|kvm_mmu_post_init_vm)($|\.)/ {
		sub(/\..*/, "", $3); print $3 }' /proc/kallsyms | sort -u | tr '\n' ' ')"
	echo "# this kernel has:$KC_HAS"
}

# kver_ge MAJOR MINOR: the running kernel is MAJOR.MINOR or later.
kver_ge() {
	v=$(uname -r)
	maj=${v%%.*} v=${v#*.} min=${v%%[!0-9]*}
	[ "$maj" -gt "$1" ] || { [ "$maj" -eq "$1" ] && [ "$min" -ge "$2" ]; }
}

# stage2_fn: the function that tears a VM's stage 2 down here, or "": arm64's
# kvm_pgtable_stage2_destroy, split in 6.19 into ranges and the PGD with
# kvm_stage2_destroy over them (the old one is then EL2's only). After kernel_has.
stage2_fn() {
	case $KC_HAS in
	*" kvm_stage2_destroy "*) echo kvm_stage2_destroy ;;
	*" kvm_pgtable_stage2_destroy "*) kver_ge 6 19 || echo kvm_pgtable_stage2_destroy ;;
	esac
}

# first_run_fn: the function that stands for first_run_setup here, or "": arm64's
# kvm_arch_vcpu_run_pid_change; x86's kvm_mmu_post_init_vm where it starts the NX
# recovery task at the first KVM_RUN (6.13, and Debian's 6.12 with the backport;
# before, it ran in KVM_CREATE_VM). After kernel_has.
first_run_fn() {
	case $KC_HAS in
	*" kvm_arch_vcpu_run_pid_change "*) echo kvm_arch_vcpu_run_pid_change ;;
	*" kvm_mmu_post_init_vm "*) kver_ge 6 12 && echo kvm_mmu_post_init_vm ;;
	esac
}

# first_runs VCPUS: first_run_setup's count for a VM whose VCPUS vCPUs each ran:
# one a vCPU on arm64, one a VM on x86 (the NX task is the VM's), 0 without.
first_runs() {
	case $(first_run_fn) in
	kvm_arch_vcpu_run_pid_change) echo "$1" ;;
	kvm_mmu_post_init_vm) echo 1 ;;
	*) echo 0 ;;
	esac
}

# first_run_probe: tracefs events on first_run_fn (kct_first); for x86's
# kvm_mmu_post_init_vm with its struct kvm, and its returns (kct_first_r), for
# nx_starts. After tracefs and kernel_has.
first_run_probe() {
	fn=$(first_run_fn)
	[ "$fn" = kvm_mmu_post_init_vm ] || { kp kct_first "$fn"; return; }
	kp kct_first "$fn kvm=\$arg1:x64" && kr kct_first_r "$fn ret=\$retval:s32"
}

# nx_starts: the calls of kvm_mmu_post_init_vm that start a VM's NX recovery
# task, as the module times them: one entering while the VM's task is not
# started and no other call of the VM is under way (a call that fails leaves
# it not started), from the entries (kct_first, with the struct kvm) and the
# returns (kct_first_r) of each thread. A VM is its struct kvm and its
# process (record-tgid): a freed struct kvm's address is soon another VM's.
nx_starts() {
	awk '
		!match($0, /-[0-9]+ +(\( *[0-9-]+\) +)?\[/) { next }
		{
			f = substr($0, RSTART + 1, RLENGTH - 1)
			t = f; sub(/[^0-9].*/, "", t)
			g = t; if (match(f, /\( *[0-9]+\)/)) { g = substr(f, RSTART + 1, RLENGTH - 2); gsub(/ /, "", g) }
		}
		/ kct_first: / && match($0, /kvm=0x[0-9a-f]+/) {
			k = substr($0, RSTART + 4, RLENGTH - 4) "/" g
			if (!(k in started) && !(k in busy)) { n++; busy[k] = 1; of[t] = k }
			next
		}
		/ kct_first_r: / && (t in of) {
			k = of[t]; delete of[t]; delete busy[k]
			if ($0 ~ / ret=0$/) started[k] = 1
		}
		END { print n + 0 }' "$TR/trace"
}

# per_vm METRIC: 1 if the metric's function is called once a VM, 0 if this
# kernel lacks it (after kernel_has).
per_vm() {
	case $1 in
	kvm_destroy_vm | kvm_destroy_vcpus) f=$1 ;;
	stage2_destroy) f=$(stage2_fn) ;;
	first_run_setup) f=$(first_run_fn) ;;
	*) echo 1 && return ;;
	esac
	case $KC_HAS in *" $f "*) echo 1 ;; *) echo 0 ;; esac
}

# tracefs: sets TR to the mounted tracefs (mounting it if needed).
tracefs() {
	for t in /sys/kernel/tracing /sys/kernel/debug/tracing; do
		[ -f "$t/kprobe_events" ] && { TR=$t; return 0; }
	done
	mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null || return 1
	[ -f /sys/kernel/tracing/kprobe_events ] && TR=/sys/kernel/tracing
}

# kp NAME 'SYMBOL [ARGS]' [FILTER]: an enabled kprobe event kct/NAME; kr the
# same on the function's return ($retval among the ARGS).
kp() { kevent p "$@"; }
kr() { kevent r "$@"; }
kevent() {
	echo "$1:kct/$2 $3" >>"$TR/kprobe_events" 2>/dev/null || return 1
	if [ -n "$4" ] && ! echo "$4" >"$TR/events/kct/$2/filter"; then
		echo "-:kct/$2" >>"$TR/kprobe_events"
		return 1
	fi
	echo 1 >"$TR/events/kct/$2/enable"
}
# kp_clear: remove every kct event (before the modules that hold their functions leave).
kp_clear() {
	[ -d "$TR/events/kct" ] || return 0
	echo 0 >"$TR/events/kct/enable"
	for e in "$TR"/events/kct/*/; do
		e=${e%/}
		echo "-:kct/${e##*/}" >>"$TR/kprobe_events"
	done
}
# tcount NAME: events NAME (kct's kprobes, or a tracepoint such as vmscan's) in the
# trace buffer; "-" where the kernel has no such event.
tcount() {
	if ls -d "$TR"/events/*/"$1" >/dev/null 2>&1; then grep -c " $1: " "$TR/trace"; else echo -; fi
}

# alive_start N: N traced VMs of 1 vCPU and 1 MiB that stay until alive_stop (two
# loads, as -j stops at 512; SIGTERM ignored, so they stay until the load is
# interrupted); held N: N of them are there (make bench, make bench-profile).
alive_start() {
	ALIVE_PIDS=''
	alive_half=$(($1 / 2))
	for alive_n in $alive_half $(($1 - alive_half)); do
		kvmchurn load -n "$alive_n" -j "$alive_n" --together --vcpus 1 --mem 1 --end term \
			--ignore-term --kill-after 3500 --timeout 3600 >>/tmp/alive.out 2>&1 &
		ALIVE_PIDS="$ALIVE_PIDS $!"
	done
}
held() { [ "$(vms_alive)" -ge "$1" ]; }
alive_stop() {
	# shellcheck disable=SC2086 # a list of pids
	kill -INT $ALIVE_PIDS
	# shellcheck disable=SC2086
	wait $ALIVE_PIDS
}

# kc_loaded: kvmchurn.ko is loaded.
kc_loaded() { grep -q '^kvmchurn ' /proc/modules; }

# kc_kernel_from MAJOR MINOR: this kernel is MAJOR.MINOR or later
kc_kernel_from() {
	major=$(uname -r | cut -d. -f1) minor=$(uname -r | cut -d. -f2)
	[ "$major" -gt "$1" ] || { [ "$major" = "$1" ] && [ "$minor" -ge "$2" ]; }
}
# kc_objpool: this kernel (6.7 on) keeps kretprobe instances in an objpool,
# whole vmalloc'd pages a CPU, not one kmalloc object each.
kc_objpool() { kc_kernel_from 6 7; }
# kc_fprobe: kvmchurn attaches exit_mmap and exit_files by fprobe here: fprobe
# whose entry can decline the return and is given ret_ip (6.5 on), built in
kc_fprobe() { kc_kernel_from 6 5 && grep -q ' register_fprobe_syms$' /proc/kallsyms; }
# kc_fprobe_pooled: its returns in a rethook's pool of maxactive, as a
# kretprobe's; from 6.14 on each task's function graph stack
kc_fprobe_pooled() { kc_fprobe && ! kc_kernel_from 6 14; }

# vmpairs: the pages of kc_pairs_init()'s vmalloc areas (the table, and beyond
# a page the array of its pages), in bytes: their pages=N (the size counts a
# guard page).
vmpairs() { vmareas kc_pairs_init; }

# vmareas FUNCTION: the same for the vmalloc areas FUNCTION made (kc_vms_init: the
# VM records).
vmareas() {
	awk -v f="$1" 'index($0, f) { for (i = 1; i <= NF; i++) if ($i ~ /^pages=/) n += substr($i, 7) }
		END { print n * 4096 }' /proc/vmallocinfo
}

# vmpools: the pages, in bytes, of the objpools that hold return instances (6.7 on): a
# possible CPU's slot each, in /proc/vmallocinfo under the caller that made the pool
# (register_kretprobe, or rethook_alloc where kretprobes and fprobes ride on rethook)
vmpools() {
	awk '$3 ~ /^(register_kretprobe|rethook_alloc|objpool_init)\+/ {
		for (i = 4; i <= NF; i++) if ($i ~ /^pages=/) n += substr($i, 7) }
		END { print n * 4096 }' /proc/vmallocinfo
}

# vmmodule: the pages of all the module's vmalloc areas, as its memory file's vmalloc
# counts them: the pairing table's and the VM records'.
vmmodule() { echo $(($(vmpairs) + $(vmareas kc_vms_init))); }

# disk_root DIR [rbind]: the read-only root image on the guest's disk (boot.sh's
# boot.sh's --disk, or 45-qemu's VMM root) mounted at DIR, with /dev, /sys, /tmp and
# /kvmchurn bound in and a proc; rbind: /sys with what is mounted below it (tracefs,
# debugfs). 1, the step that failed in $DISK_WHY, when it cannot be had. Loads
# KVMCHURN_VMM_MODULES (/kvmchurn/config) first; none: the kernel has them built in (the
# debug kernels).
# shellcheck disable=SC2034 # DISK_WHY is the caller's to read
disk_root() {
	DISK_WHY=''
	for m in ${KVMCHURN_VMM_MODULES:-}; do
		[ -d "/sys/module/${m%.ko}" ] || insmod "/kvmchurn/modules/$m" || { DISK_WHY="insmod $m"; return 1; }
	done
	wait_for "$KC_WAIT" disk_there || { DISK_WHY="no disk (/dev/vda)"; return 1; }
	mkdir -p "$1"
	mount -t squashfs -o ro /dev/vda "$1" || { DISK_WHY="mount /dev/vda"; return 1; }
	for p in dev tmp kvmchurn; do mount --bind /$p "$1/$p" || { DISK_WHY="bind /$p"; return 1; }; done
	if [ "${2:-}" = rbind ]; then mount -o rbind /sys "$1/sys"; else mount --bind /sys "$1/sys"; fi ||
		{ DISK_WHY="bind /sys"; return 1; }
	mount -t proc proc "$1/proc" || { DISK_WHY="proc"; return 1; }
}
disk_there() { [ -b /dev/vda ]; }

# slabobjs CACHE: the objects in use of a slab cache (/proc/slabinfo), 0 without it.
slabobjs() { awk -v c="$1" '$1 == c { print $2; f = 1 } END { if (!f) print 0 }' /proc/slabinfo; }

# The debug kernels' kmemleak. It suspects an object once it is older than 5 s and two
# scans in a row found nothing pointing to it.
KMEMLEAK=/sys/kernel/debug/kmemleak
# kmemleak_forget: scan, say how many objects it suspects (from boot: none of ours), and
# forget them, so that a later kmemleak_suspects sees only what came after; for check.
kmemleak_forget() {
	echo scan >$KMEMLEAK || return 1
	echo "kmemleak suspects $(grep -c '^unreferenced object' $KMEMLEAK) objects from boot"
	echo clear >$KMEMLEAK
}
# kmemleak_suspects OUT: two scans, the report into OUT; prints the objects suspected.
kmemleak_suspects() {
	if ! { echo scan >$KMEMLEAK && echo scan >$KMEMLEAK && cat $KMEMLEAK >"$1"; }; then
		echo "no kmemleak"
		return 1
	fi
	grep -c '^unreferenced object' "$1"
}

# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# shellcheck disable=SC2154 # here, client, tmp, expected, rc, fixtures, hand: run.sh's
#
# Sourced by run.sh: the live view (module/kvmchurn_live.h, userspace/lib/live.c)
#   ID-stall/     the module's files as 57-stall handed them back during its hold (8
#                 VMMs held in exit_mmap, 8 destroys behind them in
#                 mmu_notifier_unregister): check, vms --live, watch and export on them
#   hand/live/    live records made by hand: every window, a stage of each kind, each
#                 source of a stack; the expected outputs are expected/hand/live-*,
#                 written and checked by hand; then every kind of bad record

# ---- captures taken during a stall ----------------------------------------------

for dir in "$fixtures"/*-stall; do
	[ -f "$dir/vms" ] || continue
	id=$(basename "$dir")

	run -d "$dir" check
	want_rc 1
	want_same err empty
	# the module's checks and the client's, but for the ages: two reads, apart in time
	grep -v '^     ' "$dir/checks" | sed 's/, the oldest for .*//' >"$tmp/want"
	grep -v '^     ' "$tmp/out" | sed 's/, the oldest for .*//' >"$tmp/got"
	cmp -s "$tmp/want" "$tmp/got" || problems+=("check's verdicts are not the module's:" "$(diff "$tmp/want" "$tmp/got")")
	want_grep out '^WARN stalls: 8 VMs in exit_mmap for stall_ms=1500 or longer, the oldest for '
	want_grep out '^WARN stalls: 8 VMs in mmu_notifier_unregister for stall_ms=1500 or longer, the oldest for '
	want_grep out '^     (kvmhold|firecracker) [0-9]+, task [0-9]+: kvm_vm_release > kvm_destroy_vm > mmu_notifier_unregister for '
	want_grep out '^       .*synchronize_srcu'
	want_grep out '^       exit_mmap\+'
	finish "$id: check warns, exit 1, one line a stall's cause as the module's checks, the stacks"

	run -d "$dir" check --json
	want_rc 1
	json_ok
	want_grep out '"status":"warn"'
	want_grep out '"stalls":\{"unit":"us","stall_ms":1500,"live":17,"stalled":16,"groups":\[\{"stage":"exit_mmap","vms":8,'
	finish "$id: check --json gives the stalls"

	run -d "$dir" vms --live
	want_rc 0
	want_eq "STALLED in exit_mmap" 8 "$(grep -c ' kvmhold .* STALLED exit_mmap$' "$tmp/out")"
	want_eq "STALLED in mmu_notifier_unregister" 8 \
		"$(grep -c ' firecracker .* STALLED kvm_vm_release > kvm_destroy_vm > mmu_notifier_unregister$' "$tmp/out")"
	want_eq "the one not held" 1 "$(grep -c ' kvmhold .* startup  *0 -  *- -  *-$' "$tmp/out")"
	want_grep out '^17 live VMs, 16 stalled \(in one stage for stall_ms=1500 or longer\)$'
	finish "$id: vms --live shows the stall"

	run -d "$dir" vms --live --json
	want_rc 0
	json_ok
	want_grep out '^\{"unit":"us","stall_ms":1500,"stalled":16,"live":\['
	finish "$id: vms --live --json"

	run -d "$dir" export
	want_rc 0
	prom_ok "$tmp/out"
	want_grep out '^kvmchurn_live_vms 17$'
	want_grep out '^kvmchurn_stalled_vms 16$'
	want_grep out '^kvmchurn_stall_threshold_seconds 1.5$'
	want_grep out '^kvmchurn_inflight_oldest_seconds\{stage="exit_mmap"\} [0-9.e+]+$'
	want_grep out '^kvmchurn_inflight_oldest_seconds\{stage="mmu_notifier_unregister"\} [0-9.e+]+$'
	finish "$id: export has the stall's gauges"

	run -d "$dir" watch -i 0.1 -c 1
	want_rc 0
	want_grep out '^WARN stalls: 8 VMs in exit_mmap '
	want_grep out '^WARN stalls: 8 VMs in mmu_notifier_unregister '
	finish "$id: watch shows the stalls"
done

# ---- hand-made live records -------------------------------------------------------

live=$hand/live
run -d "$live" check
want_rc 1
want_same out "$expected/hand/live-check.out"
finish "hand live: check, every kind of stack"

run -d "$live" check --json
want_rc 1
want_same out "$expected/hand/live-check.json"
json_ok
finish "hand live: check --json"

run -d "$live" vms --live
want_rc 0
want_same out "$expected/hand/live-vms.out"
finish "hand live: vms --live, every window"

run -d "$live" vms --live --json 1270
want_rc 0
want_same out "$expected/hand/live-vms-1270.json"
json_ok
finish "hand live: vms --live --json PID"

run -d "$live" vms --live 999
want_rc 1
want_grep err '^kvmchurn vms: no live VM of pid 999 in '
finish "hand live: vms --live of a pid with no live VM: exit 1"

for args in "--live --slowest" "--live -n 3" "--live --stages"; do
	# shellcheck disable=SC2086 # the options
	run -d "$live" vms $args
	want_rc 64
	want_grep err '^kvmchurn vms: --live takes only --json and a PID'
done
finish "hand live: --live with an option of the finished VMs: usage error"

run -d "$live" export
want_rc 0
prom_ok "$tmp/out"
sed -n '/^# HELP kvmchurn_live_vms /,$p' "$tmp/out" >"$tmp/live-prom"
want_same live-prom "$expected/hand/live-export.out"
finish "hand live: export's gauges"

# no stall: stall_ms above every age
mkdir -p "$tmp/calm"
cp "$live/raw" "$tmp/calm/raw"
sed 's/^params\t256\t32\t1024\t10000$/params\t256\t32\t1024\t86400000/' "$live/vms" >"$tmp/calm/vms"
run -d "$tmp/calm" check
want_rc 0
want_grep out '^OK   stalls: none of 6 live VMs in one stage for stall_ms=86400000 or longer$'
run -d "$tmp/calm" export
want_grep out '^kvmchurn_stalled_vms 0$'
finish "hand live: stall_ms above every age: OK, exit 0, 0 stalled"

# a module before the live records: no stall line, and vms --live says why
mkdir -p "$tmp/old"
cp "$hand/known/raw" "$hand/vms/vms" "$tmp/old/"
run -d "$tmp/old" check
want_rc 0
want_same out "$hand/known/checks"
run -d "$tmp/old" vms --live
want_rc 2
want_grep err 'has no live records: the module loaded is older than this client'
finish "a vms file without live records: no stall line; vms --live refused"

# bad records: each refused with exit 2 and the line that is wrong
bad_live() { # bad_live WHAT SED-EXPRESSION LINE
	mkdir -p "$tmp/bad"
	cp "$live/raw" "$tmp/bad/raw"
	sed "$2" "$live/vms" >"$tmp/bad/vms"
	cmp -s "$live/vms" "$tmp/bad/vms" && problems+=("$1: the sed changed nothing")
	for cmd in check "vms --live" export; do
		# shellcheck disable=SC2086 # the command and its option
		run -d "$tmp/bad" $cmd
		want_rc 2
		want_grep err "^kvmchurn ${cmd%% *}: .*/vms, line $3: "
	done
	finish "a bad live record refused: $1"
}
bad_live "too few fields" '9s/\t2832000000$//' 9
bad_live "a tgid that is no number" '9s/^live\t1230/live\tx/' 9
bad_live "a comm of 16 characters" '9s/firecracker/firecracker12345/' 9
bad_live "a created that is no time" '9s/1796630400.000000001/1796630400.1/' 9
bad_live "an unknown window" '9s/\tteardown\t/\tlater\t/' 9
bad_live "a stage of 5 calls" '9s/\tkvm_vm_release>/\ta>b>c>d>/' 9
bad_live "a stage with a since of -" '9s/\t1796630460.500000000\t/\t-\t/' 9
bad_live "no stage with a since" '15s/\t-\t0$/\t1796630403.000000001\t0/' 15
bad_live "an age that is no number" '9s/\t2832000000$/\t-1/' 9
bad_live "a stack of an unknown source" '10s/^stack\tkernel/stack\tguess/' 10
bad_live "a stack after no live record" '8a stack\tnone' 9
bad_live "two stacks of one record" '10a stack\tnone' 11
bad_live "stall_ms 0" 's/^params\t256\t32\t1024\t10000$/params\t256\t32\t1024\t0/' 3
bad_live "unknown live-fields" 's/^live-fields\ttgid/live-fields\tpid/' 8
bad_live "not a vms file" '1s/^kvmchurn-vms 1$/kvmchurn-raw 1/' 1

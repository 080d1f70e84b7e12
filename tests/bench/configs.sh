# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# configs.sh: the configurations of make bench-profile's and make bench-count's guests
# (profile/60-profile.sh, count/60-count.sh), which source it from /kvmchurn after
# lib.sh; tests/bench/bench.sh copies it there. Sourcing it loads kvmchurn once, to
# learn where its kretprobes and plain kprobes attached (FLOOR_SYMS and FLOOR_PSYMS,
# the floor's, one for each of its).

unload() {
	! kc_loaded || rmmod kvmchurn
	[ ! -d /sys/module/kvmchurn_floor ] || rmmod kvmchurn_floor
}
# config A|F|B|V: nothing loaded, the floor, kvmchurn (V: with VMs alive beside)
config() {
	unload
	case $1 in
	F) insmod /kvmchurn/kvmchurn_floor.ko "kretprobes=$FLOOR_SYMS" "kprobes=$FLOOR_PSYMS" ;;
	B | V) insmod "$KVMCHURN_KO" filter=firecracker ;;
	esac
}

insmod "$KVMCHURN_KO" && FLOOR_SYMS=$(attached_syms kretprobe) && FLOOR_PSYMS=$(attached_syms kprobe)
unload

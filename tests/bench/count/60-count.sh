#!/bin/sh
# 60-count (make bench-count, not a test): the unmatched exits' kernel
# instructions, counted one by one by QEMU (count/insncount.c, loaded by
# tests/bench/bench.sh count), in A (nothing loaded), F (the floor: kvmchurn's
# probes with empty handlers, tests/bench/floor), B (kvmchurn,
# filter=firecracker), V (B with COUNT_ALIVE traced VMs alive, the pairing
# table and the records busy) and W (F with the same VMs alive).
# `forkexit -m` marks where its exits begin and end; the plugin writes the
# counts at each mark, numbered from 1, so the marks here must be the only
# ones: once a forkexit fails, not knowing how many it set, nothing more is
# counted. Before each run the symbols of the classes are printed (syms).
# "# count run CFG MARK EXITS NS" says which mark ends CFG's exits.
# shellcheck source=../../lib/guest/lib.sh
. /kvmchurn/lib.sh
. /kvmchurn/bench.conf # COUNT_EXITS COUNT_ALIVE COUNT_MECH
# shellcheck source=../configs.sh
. /kvmchurn/configs.sh # unload, config, FLOOR_SYMS

marks=0 synced=1 symsonce=

# syms CFG: the symbols that the counts of CFG's run are read with, and their
# classes. /proc/kallsyms is read once (under TCG busybox awk matches a regex
# a line for minutes: grep finds the mechanism's lines):
# - the kernel's text from _stext to _etext, and in it the mechanism's
#   functions (COUNT_MECH), each run of them followed by the symbol that ends
#   it (kallsyms lists the kernel's in address order): "sym ADDRESS NAME CLASS";
# - each run, every module's core, from /proc/modules, the kernel's trampolines
#   (kallsyms' last lines, by grep), and where kvmchurn's and the floor's
#   sections are (the host reads their functions from the .ko): "module CFG
#   ADDRESS SIZE [MODULE]", "tramp CFG ADDRESS NAME", "section CFG [MODULE]
#   SECTION ADDRESS".
# Kernel code outside the kernel's text and the modules is the kernel's
# trampolines for ftrace and kprobes: the mechanism, on the host.
syms() {
	if [ -z "$symsonce" ]; then
		cat /proc/kallsyms >/tmp/kallsyms
		grep -nE "^[0-9a-f]+ [tT] ${COUNT_MECH#^}" /tmp/kallsyms | cut -d: -f1 >/tmp/mech.lines
		awk '
			NR == FNR { m[$1] = 1; next }
			NF != 3 { next }
			$3 == "_stext" || $3 == "_etext" { print "# count sym " $1 " " $3 " " ($3 == "_stext" ? "rest" : "outside") }
			FNR in m { print "# count sym " $1 " " $3 " mechanism"; last = 1; next }
			last { print "# count sym " $1 " " $3 " rest" }
			{ last = 0 }' /tmp/mech.lines /tmp/kallsyms
		rm -f /tmp/kallsyms /tmp/mech.lines
		symsonce=1
	fi
	awk -v c="$1" '{ print "# count module " c " " $6 " " $2 " [" $1 "]" }' /proc/modules
	grep -E '\[(__builtin__[a-z_]+|bpf)\]$' /proc/kallsyms |
		awk -v c="$1" '{ print "# count tramp " c " " $1 " " $3 $4 }'
	for m in kvmchurn kvmchurn_floor; do
		for f in "/sys/module/$m/sections/".text*; do
			[ -e "$f" ] && echo "# count section $1 [$m] ${f##*/} $(cat "$f")"
		done
	done
}
# count CFG: forkexit -m over COUNT_EXITS exits in CFG's state
count() {
	[ "$synced" = 1 ] || return 1
	syms "$1"
	if ns=$(forkexit -m "$COUNT_EXITS"); then
		marks=$((marks + 2))
		echo "# count run $1 $marks $COUNT_EXITS $ns"
		ok "count $1"
	else
		synced=0
		not_ok "forkexit -m ($1): the marks it set are not known, nothing after is counted"
	fi
}

aslr=$(cat /proc/sys/kernel/randomize_va_space)
echo 0 >/proc/sys/kernel/randomize_va_space # as make bench
for c in A F B; do
	config $c || { not_ok "configuration $c"; continue; }
	count $c
done

# V: B with COUNT_ALIVE traced VMs alive; W: the same VMs, the floor instead
if [ "$COUNT_ALIVE" -gt 0 ]; then
	config V
	alive_start "$COUNT_ALIVE"
	if wait_for 3600 held "$COUNT_ALIVE"; then
		echo "# count alive $COUNT_ALIVE pairs:$(raw_field pairs - 3) live:$(awk -F '\t' '$1 == "stats" { print $5 }' $D/vms)"
		count V
		if config F; then
			count W
		else
			not_ok "alive: configuration W"
		fi
		held "$COUNT_ALIVE" || not_ok "alive: the VMs did not stay for the exits"
	else
		not_ok "alive: $(vms_alive) of $COUNT_ALIVE VMs came up"
	fi
	alive_stop
	wait_for "$KC_WAIT" vms_gone || not_ok "alive: VMs left"
fi
unload
echo "$aslr" >/proc/sys/kernel/randomize_va_space
exit 0

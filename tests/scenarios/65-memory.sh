#!/bin/sh
# 65-memory: the memory file against what the kernel itself says. possible_cpus
# is /sys/devices/system/cpu/possible; vmalloc is the pages of the areas
# kc_pairs_init() made (/proc/vmallocinfo), for the default table and for
# pairs=262144; kretprobe_instances is maxactive times the attached kretprobes of
# `probes`, for maxactive=512 and 64; percpu and total are their parts. Before
# 6.7 each instance is one kmalloc object of the size the file implies: the
# objects in use of that cache (/proc/slabinfo, read just after the cache is
# shrunk) move by the count of instances when the module loads and back when it
# unloads, within what SLUB may hold on each CPU and 1/32; from 6.7 the objpools'
# pages in /proc/vmallocinfo move by what the file says, between maxactive=512
# and 1, within 32 KiB. Each of the kernel's accounts is read once it stands
# still (still; the slab count, which other work moves by a few objects all the
# time, within half the margin: steady): the instances of a module unloaded just
# before go after a grace period. Busybox sh; leaves the module unloaded.
# shellcheck source=../lib/guest/lib.sh
. /kvmchurn/lib.sh

mem() { awk -v k="$1" '$1 == k { print $2; f = 1 } END { if (!f) print "missing" }' $D/memory; }
# within A B SLACK: A and B differ by at most SLACK
within() { [ $(($1 - $2)) -le "$3" ] && [ $(($2 - $1)) -le "$3" ]; }
# the probes that hold maxactive return instances: kretprobes, and fprobes before 6.14
pooled=$(kc_fprobe_pooled && echo 1)
attached() {
	awk -v pooled="$pooled" 'NR > 1 && $4 == "attached" && ($2 == "kretprobe" || ($2 == "fprobe" && pooled)) { n++ }
		END { print n + 0 }' $D/probes
}
# the possible CPUs, from a list such as 0-1,4
possible=$(tr ',' '\n' </sys/devices/system/cpu/possible |
	awk -F- '{ n += NF == 2 ? $2 - $1 + 1 : 1 } END { print n }')

# common MAXACTIVE: what holds for any parameters
common() {
	is "possible_cpus" "$(mem possible_cpus)" "$possible"
	is "kretprobe_instances: maxactive times the $(attached) attached kretprobes (and pooled fprobes)" \
		"$(mem kretprobe_instances)" $(($1 * $(attached)))
	is "percpu: percpu_per_cpu times possible_cpus" "$(mem percpu)" $(($(mem percpu_per_cpu) * possible))
	is "total: the sum of the parts" "$(mem total)" \
		$(($(mem percpu) + $(mem slab) + $(mem vmalloc) + $(mem kretprobes)))
	v=$(vmmodule)
	grep -e kc_pairs_init -e kc_vms_init /proc/vmallocinfo | sed 's/^/# vmallocinfo: /'
	is "vmalloc: kc_pairs_init()'s and kc_vms_init()'s areas in /proc/vmallocinfo" "$(mem vmalloc)" "$v"
}

if ! insmod "$KVMCHURN_KO"; then bail_out "insmod kvmchurn.ko"; fi
common 512
check "percpu_per_cpu at most 64 KiB: $(mem percpu_per_cpu)" [ "$(mem percpu_per_cpu)" -le 65536 ]
default_pairs=$(vmpairs)
default_vms=$(vmareas kc_vms_init)
size=$(($(mem kretprobes) / $(mem kretprobe_instances)))
rmmod kvmchurn

if ! insmod "$KVMCHURN_KO" pairs=262144 maxactive=64; then bail_out "insmod pairs=262144 maxactive=64"; fi
common 64
# 8 times the buckets of the default 32768, each table rounded up to whole pages
check "pairs=262144 takes 8 times the default table: $(vmpairs), $default_pairs" \
	within "$(vmpairs)" $((default_pairs * 8)) $((8 * 4096))
is "the VM records do not move with pairs=" "$(vmareas kc_vms_init)" "$default_vms"
rmmod kvmchurn

# Before 6.7 the kprobe core kmallocs each instance; from 6.7 an objpool holds them.
cache=kmalloc-$size
if kc_objpool; then
	# an objpool: vmalloc'd pages a possible CPU (vmpools). Their pages, not
	# VmallocUsed, which kernel stacks (vmalloc'd too) move whenever a thread is
	# made or freed. The difference between two maxactive cancels what any load
	# of the module takes.
	# objpool_load MAXACTIVE: "BYTES BYTES", the pools' rise and the file's kretprobes
	objpool_load() {
		v=$(still 60 vmpools)
		insmod "$KVMCHURN_KO" maxactive="$1" || { echo "0 0"; return; }
		echo "$(($(still 60 vmpools) - v)) $(mem kretprobes)"
		rmmod kvmchurn
	}
	# shellcheck disable=SC2046 # two numbers
	set -- $(objpool_load 512) $(objpool_load 1)
	v512=$1 k512=$2 v1=$3 k1=$4
	check "objpool: the pools take $((v512 - v1)) bytes more at maxactive=512 than at 1; the module says $((k512 - k1))" \
		within $((v512 - v1)) $((k512 - k1)) 32768
elif ! grep -q "^$cache " /proc/slabinfo; then
	not_ok "instances of $size bytes, but no $cache in /proc/slabinfo"
else
	# SLUB counts the free objects of each CPU's slab and partial slabs as in
	# use, so new instances first fill objects already counted: shrinking the
	# cache flushes every CPU's slabs (flush_all()) and makes the count the
	# objects really allocated. What other work takes and frees between the
	# shrink and the read stays: a CPU's slab and cpu_partial refilled on each
	# possible CPU, and 1/32 of the instances (a kretprobe fewer is 1/9 or less)
	s=/sys/kernel/slab/$cache
	inuse() { echo 1 >"$s/shrink" && slabobjs "$cache"; }
	slack=$((possible * (2 * $(cat $s/cpu_partial) + $(cat $s/objs_per_slab))))
	# the count stands still within half the margin: it never stands still
	# exactly while other work allocates from the same cache
	before=$(steady $((slack / 2)) 60 inuse)
	insmod "$KVMCHURN_KO" maxactive=4096 || bail_out "insmod kvmchurn.ko maxactive=4096"
	n=$(mem kretprobe_instances)
	loaded=$(steady $((slack / 2)) 60 inuse)
	rmmod kvmchurn
	slack=$((slack + n / 32))
	# unregister_kretprobe() may free the instances after an RCU grace period
	slab_back() { within "$(inuse)" "$before" "$slack"; }
	wait_for "$KC_WAIT" slab_back
	after=$(inuse)
	d=$((loaded - before))
	check "loading: $cache objects in use +$d, $n instances (margin $slack)" \
		within "$d" "$n" "$slack"
	check "unloading gives them back: $cache objects in use $before before, $after after" \
		within "$after" "$before" "$slack"
fi
exit 0

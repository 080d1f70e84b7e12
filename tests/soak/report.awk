# report.awk SERIAL-LOG: the soak's checkpoints as a table (tests/soak/tier.sh), from the
# "# soak-checkpoint N key=value..." lines of scenarios/10-soak.sh, and the rate from its
# last line "# soak: N VMs (N counted) in S s"; the QEMUs are the last checkpoint's.
{ sub(/\r$/, "") }
/^# soak-checkpoint / {
	n++
	for (i = 4; i <= NF; i++) { split($i, kv, "="); v[n, kv[1]] = kv[2] }
	next
}
/^# soak: [0-9]+ VMs \([0-9]+ counted\) in [0-9]+ s$/ { total = $3; secs = $(NF - 1) }
function kb(x) { return sprintf("%.1f", x / 1024) }
END {
	if (!n) { print "no checkpoint in the log"; exit }
	printf "%-3s %6s %6s %5s %7s %6s  %-16s %-9s %-13s %-9s %-8s %-10s %s\n", "ck", "wave", "VMs",
		"QEMUs", "counted", "secs", "slab MiB (+KiB)", "unrecl", "vmalloc (+)", "percpu", "allocs", "pairs", "misses leaks"
	for (i = 1; i <= n; i++)
		printf "%-3d %6s %6s %5s %7s %6s  %-16s %-9s %-13s %-9s %-8s %-10s %s %s\n", i, v[i, "wave"],
			v[i, "vms"], v[i, "qemus"], v[i, "counted"], v[i, "secs"],
			kb(v[i, "slab_kb"]) " (" v[i, "d_slab_kb"] ")", kb(v[i, "sunreclaim_kb"]),
			v[i, "vmalloc_kb"] " (" v[i, "d_vmalloc_kb"] ")", v[i, "percpu_kb"] "k",
			v[i, "percpu_allocs"] "(" v[i, "d_percpu_allocs"] ")", v[i, "pairs"], v[i, "misses"], v[i, "leaks"]
	if (secs > 0)
		printf "%d VMs and %d QEMUs in %d s: %.2f VMs/s\n", total, v[n, "qemus"], secs, total / secs
}

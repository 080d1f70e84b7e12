# SPDX-License-Identifier: GPL-2.0
# backing/report.awk: make bench-backing's table (tests/bench/bench.sh backing), from one
# boot's "# backing KIND MIB VMS exit_mmap SUM COUNT kvm_destroy_vm SUM COUNT" lines
# (backing/60-per-gib.sh; CRs already dropped): the mean per VM of each metric, divided
# by the VM's GiB, and the backings the kernel lacks. Variable (-v): clock (--clock:
# icount or wall). Exit status 1 when the log holds no measurement.
$1 == "#" && $2 == "backing" && $4 == "absent:" { sub(/^# backing /, ""); absent = absent "  " $0 "\n"; next }
$1 != "#" || $2 != "backing" || NF < 11 { next }
{
	gib = $4 / 1024; n++
	row[n] = sprintf("%-8s %6d %4d %14.0f %14.0f", $3, $4, $5,
		$8 ? $7 / $8 / gib : -1, $11 ? $10 / $11 / gib : -1)
}
END {
	if (!n) { print "  no measurement in the log"; exit 1 }
	printf "%-8s %6s %4s %14s %14s   (%s)\n", "backing", "MiB", "VMs", "exit_mmap/GiB", "destroy_vm/GiB",
		clock == "icount" ? "us of the guest clock: 1000 guest instructions each" : "us, real time under TCG"
	for (i = 1; i <= n; i++) print row[i]
	printf "%s", absent
}

# SPDX-License-Identifier: GPL-2.0
# rounds/cpus.awk: make bench's memory by possible CPUs (tests/bench/bench.sh rounds),
# from the "KEY VALUE ..." pairs of rounds/60-cpus.sh's "# bench cpus" lines, one line a
# boot; then 256 CPUs by the line through the 1- and 2-CPU lines, beside the line of a
# 256-CPU boot where there is one. Exact where each term of the module's formula is fixed
# or so much a CPU (the per-CPU data; return instances before 6.7); from 6.7 an objpool
# slot a CPU holds that CPU's share of the instances, page-rounded, and the line is an
# upper bound (by 2 % at 256 CPUs on x86_64 7.x: 2 pages a slot where the line says 2.03).
function kib(b) { return sprintf("%.1f KiB", b / 1024) }
# at K N: the value of key K on N CPUs, by the line through 1 and 2 CPUs
function at(k, n) { return one[k] + (two[k] - one[k]) * (n - 1) }
BEGIN { printf "  memory by possible CPUs (defaults; the module's memory file, then the kernel's own account, loaded less before):\n" }
{
	delete f
	for (i = 1; i < NF; i += 2) f[$i] = $(i + 1)
	for (k in f) if (f["possible_cpus"] == 1) one[k] = f[k]; else if (f["possible_cpus"] == 2) two[k] = f[k]; else if (f["possible_cpus"] == 256) big[k] = f[k]
	printf "    %3d CPUs: per-CPU %s a CPU, %s in all; return instances %d, %s; total %s\n", f["possible_cpus"], kib(f["percpu_per_cpu"]), kib(f["percpu"]), f["kretprobe_instances"], kib(f["kretprobes"]), kib(f["total"])
	printf "              kernel: Percpu %+.1f KiB (whole pages a chunk, populated as needed), objpools %s%s, vmalloc areas %s%s (%s)\n", f["kernel_percpu"] / 1024, kib(f["kernel_pools"]), f["kernel_pools"] == 0 ? "" : f["kernel_pools"] == f["kretprobes"] ? " = the module's" : " (module " kib(f["kretprobes"]) ")", kib(f["kernel_vmalloc"]), f["kernel_vmalloc"] == f["vmalloc"] ? " = the module's" : " (module " kib(f["vmalloc"]) ")", f["probes"]
}
END {
	if (!NR) { printf "    no data (the boots' not ok lines say why)\n"; exit }
	if (!("total" in one) || !("total" in two)) exit
	bound = two["kretprobes"] != one["kretprobes"] ? "at most " : ""
	printf "    256 CPUs, computed from the 1- and 2-CPU files: per-CPU %s in all; return instances %d, %s%s; total %s%s\n", kib(at("percpu", 256)), at("kretprobe_instances", 256), bound, kib(at("kretprobes", 256)), bound, kib(at("total", 256))
	if ("total" in big)
		printf "              the memory file on 256 possible CPUs: total %s, %s\n", kib(big["total"]), big["total"] == at("total", 256) ? "equal" : sprintf("%+d bytes off", big["total"] - at("total", 256))
	else
		printf "              (no 256-CPU boot: possible_cpus= raises the count before 6.9 only, on x86_64)\n"
}

# SPDX-License-Identifier: GPL-2.0
# rounds/report.awk: make bench's report (tests/bench/bench.sh rounds), from one boot's
# "# bench" lines (rounds/50-bench.sh prints them; CRs already dropped), after goals.awk
# (goal_share, goal_growth). Variables (-v): clock (--clock: icount or wall), only
# (--only), storm and storm_mib (--storm, --storm-mib). The unit tier runs it on a saved
# log (tests/fixtures/bench/).
$1 != "#" || $2 != "bench" { next }
$3 == "exit" || $3 == "churn" || $3 == "churncpu" || $3 == "churnfg" || $3 == "churnvmm" { v[$3, $4, $5] = $6; if ($5 > rounds) rounds = $5; next }
$3 == "recorded" { rec[$4, $5, $6] = $7; next }
$3 == "churnvm" {
	if (!($4 in vmcfg)) { vmcfg[$4] = 1; vmcfgs = vmcfgs " " $4 }
	for (i = 6; i <= NF; i++) {
		split($i, kv, "=")
		if (!(kv[1] in vmkey)) { vmkey[kv[1]] = 1; vmkeys = vmkeys " " kv[1] }
		vmsum[$4, kv[1]] += kv[2]
		if ((kv[1] == "compact_stall" || kv[1] == "pgscan_direct" || kv[1] == "thp_fault_fallback") && kv[2] > 0 && !vmslow[$4, $5]++)
			vmslows = vmslows " " $4 $5
	}
	next
}
$3 == "peer" { peer = $4; next }
$3 == "floor" && $5 == "fprobes" { fsyms = $6; next }
$3 == "seed" && $4 == "variant" { seedvar = $5; seedver = $6 " " $7; next }
$3 == "seedstart" { seedstart[++nseedstart] = $4 / 1e9; next }
$3 == "misses" && $4 == "default" { mdef = $5; mby = $0; sub(/^# bench misses default [^ ]+ ?/, "", mby); next }
$3 == "misses" && $4 == "smallest" { msmall = $5; next }
$3 == "misses" { tried = tried " " $4 ":" $5; next }
$3 == "wave" && $4 == "largest" { wave = $5; wavemax = $7; next }
$3 == "wave" { waves = waves " " $4 ":" ($5 == "error" ? "error" : $5 "/" substr($NF, 7)); next }
$3 == "alive" { nalive = $4; na++; al0[na] = $7 - $6; aln[na] = $9 - $8; alr[na] = al0[na] > 0 ? aln[na] / al0[na] : 0; aliveinfo = $10 " " $11; next }
$3 == "mem" && $4 == "cache" { cache = $5; cpu_partial = $7; per_slab = $9; next }
$3 == "mem" {
	m = $4; st = $5; n = ++nmem[m, st]
	for (i = 6; i < NF; i += 2) { k = $i; sub(/:$/, "", k); mem[m, st, n, k] = $(i + 1) }
	next
}
function sort(n, a,   i, j, t) {
	for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
}
function median(n, a) { sort(n, a); return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
# stats NAME N A GOAL F: min, median, max; with a goal, whether the median meets it
function stats(name, n, a, goal, f,   med) {
	if (!n) { printf "  %-52s no data\n", name; return }
	med = median(n, a)
	if (f == "") f = "%9.4f"
	printf "  %-52s min " f "  median " f "  max " f, name, a[1], med, a[n]
	if (goal != "") printf "  goal <= %s: %s", goal, med <= goal ? "met" : "NOT met"
	printf "\n"
}
# ratio KIND X Y OUT INV: per round, X / Y (INV: Y / X), into OUT; returns the count
function ratio(kind, x, y, out, inv,   r, n) {
	for (r = 1; r <= rounds; r++)
		if (v[kind, x, r] && v[kind, y, r]) out[++n] = inv ? v[kind, y, r] / v[kind, x, r] : v[kind, x, r] / v[kind, y, r]
	return n
}
# added X OUT [Y]: per round, exits of X less exits of Y (default A), into OUT
function added(x, out, y,   r, n) {
	if (y == "") y = "A"
	for (r = 1; r <= rounds; r++)
		if (v["exit", x, r] && v["exit", y, r]) out[++n] = v["exit", x, r] - v["exit", y, r]
	return n
}
# diff KIND X Y OUT: per round, X less Y, into OUT; returns the count
function diff(kind, x, y, out,   r, n) {
	for (r = 1; r <= rounds; r++)
		if (v[kind, x, r] && v[kind, y, r]) out[++n] = v[kind, x, r] - v[kind, y, r]
	return n
}
# share OUT: per round, (B - F) / (F - A): what the handlers add against the mechanism
function share(out,   r, n, b, f, a) {
	for (r = 1; r <= rounds; r++) {
		b = v["exit", "B", r]; f = v["exit", "F", r]; a = v["exit", "A", r]
		if (b && f && a && f > a) out[++n] = (b - f) / (f - a)
	}
	return n
}
# resolved N A: whether a ratio's median is resolved from 1: the interval
# [a(k), a(n+1-k)] of the sorted rounds holds the median with a confidence of
# 1 - 2 P(X < k), X ~ Binomial(n, 1/2), whatever the rounds' distribution (a round
# a THP compaction or a kthread slowed counts as one round, not by how much);
# k is the largest with a confidence of at least 95 %; 6 rounds are the fewest
function resolved(n, a,   k, p, cdf, i) {
	if (!n) return "no data"
	sort(n, a)
	# cdf: P(X <= i); p: P(X = i)
	p = 0.5 ^ n; cdf = p; k = 0
	for (i = 0; i < n / 2 && 2 * cdf <= 0.05; i++) { k = i + 1; conf = 1 - 2 * cdf; p = p * (n - i) / (i + 1); cdf += p }
	if (!k) return sprintf("NOT resolved: %d rounds cannot bound the median with 95 %% confidence (6 can)", n)
	return sprintf("%s: the median lies in [%.4f, %.4f] with %.1f %% confidence", a[n + 1 - k] < 1 ? "resolved, below 1" : a[k] > 1 ? "resolved, above 1" : "NOT resolved, 1 is in it", a[k], a[n + 1 - k], 100 * conf)
}
# ratio_added X Y OUT: per round, (X - A) / (Y - A) of the exits
function ratio_added(x, y, out,   r, n, a) {
	for (r = 1; r <= rounds; r++) {
		a = v["exit", "A", r]
		if (v["exit", x, r] && v["exit", y, r] > a && a) out[++n] = (v["exit", x, r] - a) / (v["exit", y, r] - a)
	}
	return n
}
function values(kind, x, out,   r, n) {
	for (r = 1; r <= rounds; r++) if (v[kind, x, r]) out[++n] = v[kind, x, r]
	return n
}
function recorded(kind, x,   r, s) {
	for (r = 1; r <= rounds; r++) s = s (r > 1 ? " " : "") (rec[kind, x, r] == "" ? "-" : rec[kind, x, r])
	return s
}
# memm M STATE KEY: the median over the cycles of one meminfo or module value
function memm(m, st, k,   i, n, a) {
	for (i = 1; i <= nmem[m, st]; i++) if ((m, st, i, k) in mem) a[++n] = mem[m, st, i, k]
	return n ? median(n, a) : ""
}
# memd M KEY: the median over the cycles of loaded - before, in bytes (meminfo: kB)
function memd(m, k, st,   i, n, a) {
	if (st == "") st = "loaded"
	for (i = 1; i <= nmem[m, st]; i++) a[++n] = (mem[m, st, i, k] - mem[m, "before", i, k]) * 1024
	return n ? median(n, a) : ""
}
function kib(b) { return sprintf("%.1f KiB", b / 1024) }
END {
	unit = clock == "icount" ? "instructions" : "ns"
	printf "  %d rounds; the clock: %s\n", rounds, clock == "icount" ? "instructions executed (QEMU icount: 1 guest ns = 1 instruction)" : "real time under TCG"
	printf "  unmatched exits (fork + exit + waitpid of processes the filter does not name):\n"
	stats("A, nothing loaded: " unit " an exit", values("exit", "A", a), a, "", "%9.0f")
	stats("F the probes, handlers that return at once / A", ratio("exit", "F", "A", f), f, "")
	stats("  added " unit " an exit (F - A: the mechanism)", added("F", df), df, "", "%9.0f")
	stats("B kvmchurn, filter=firecracker / A", ratio("exit", "B", "A", b), b, "1.01")
	stats("  added " unit " an exit", added("B", db), db, "", "%9.0f")
	stats("  B - F: kvmchurn's handlers, " unit " an exit", added("B", dbf, "F"), dbf, "", "%9.0f")
	stats("  (B - F) / (F - A): handlers against mechanism", share(sh), sh, goal_share)
	if (fsyms != "") {
		printf "  with fprobes=1, %s by fprobe: K is kvmchurn so, L its floor (fprobe cheaper: K / B and L / F below 1):\n", fsyms
		stats("L the probes with fprobes, empty handlers / A", ratio("exit", "L", "A", rl), rl, "")
		stats("  added " unit " an exit (L - A: the mechanism)", added("L", rdl), rdl, "", "%9.0f")
		stats("K kvmchurn, fprobes=1 / A", ratio("exit", "K", "A", rk), rk, "")
		stats("  added " unit " an exit", added("K", rdk), rdk, "", "%9.0f")
		stats("  K - L: kvmchurn's handlers behind fprobes", added("K", rdkl, "L"), rdkl, "", "%9.0f")
		stats("K / B: fprobe against kretprobe, kvmchurn", ratio("exit", "K", "B", rbk), rbk, "1")
		stats("  K - B: " unit " an exit", added("K", rdbk, "B"), rdbk, "", "%9.0f")
		stats("L / F: fprobe against kretprobe, empty handlers", ratio("exit", "L", "F", rfl), rfl, "1")
	}
	stats("C kvmchurn, filter=* (every exit recorded) / A", ratio("exit", "C", "A", c), c, "")
	stats("  added " unit " an exit", added("C", dc), dc, "", "%9.0f")
	stats("P tracefs peer (" peer "), filtered / A", ratio("exit", "P", "A", p), p, "")
	stats("  added " unit " an exit", added("P", dp), dp, "", "%9.0f")
	stats("Q tracefs peer, every exit recorded / A", ratio("exit", "Q", "A", q), q, "")
	stats("  added " unit " an exit", added("Q", dq), dq, "", "%9.0f")
	if (seedvar != "") {
		stats("S the seed (bpftrace, " seedvar ") / A", ratio("exit", "S", "A", sa), sa, "")
		stats("  added " unit " an exit", added("S", ds), ds, "", "%9.0f")
		stats("B / S: kvmchurn against the seed", ratio("exit", "B", "S", bs), bs, "1")
		stats("  (S - A) / (B - A): the seed's cost in kvmchurn's", ratio_added("S", "B", sb), sb, "")
	} else
		printf "  S the seed: did not run (the boot's not ok lines say why)\n"
	stats("B / P: kvmchurn against the peer, filtered", ratio("exit", "B", "P", bp), bp, "1")
	stats("C / Q: kvmchurn against the peer, recording", ratio("exit", "C", "Q", cq), cq, "1")
	printf "  exit_mmap recorded a round: B %s; C %s; P %s; Q %s; S (exit_mmap/n_exit) %s\n", recorded("exit", "B"), recorded("exit", "C"), recorded("exit", "P"), recorded("exit", "Q"), recorded("exit", "S")
	printf "  churn (kvmchurn load --end kill; its VMMs are named firecracker, so B and P trace them):\n"
	stats("A, nothing loaded: VMs a second", values("churn", "A", ca), ca, "", "%9.2f")
	stats("A / B: time a VM, kvmchurn against nothing", ratio("churn", "B", "A", kb, 1), kb, "1.02")
	stats("A / P: time a VM, the peer against nothing", ratio("churn", "P", "A", kp, 1), kp, "")
	stats("P / B: time a VM, kvmchurn against the peer", ratio("churn", "B", "P", kbp, 1), kbp, "1")
	stats("A, nothing loaded: CPU " unit " a VM (all tasks)", values("churncpu", "A", cca), cca, "", "%9.0f")
	n = ratio("churncpu", "B", "A", ckb)
	stats("B / A: CPU a VM, kvmchurn against nothing", n, ckb, "1.02")
	printf "    %s\n", resolved(n, ckb)
	stats("P / A: CPU a VM, the peer against nothing", ratio("churncpu", "P", "A", ckp), ckp, "")
	stats("B / P: CPU a VM, kvmchurn against the peer", ratio("churncpu", "B", "P", ckbp), ckbp, "1")
	n = ratio("churncpu", "F", "A", ckf)
	stats("F / A: CPU a VM, the probes with empty handlers", n, ckf, "")
	printf "    %s\n", resolved(n, ckf)
	stats("A, less khugepaged and RCU kthreads: CPU a VM", values("churnfg", "A", cga), cga, "", "%9.0f")
	stats("B / A: CPU a VM less background", ratio("churnfg", "B", "A", cgb), cgb, "")
	stats("A: the VMMs' own CPU " unit " a VM", values("churnvmm", "A", cva), cva, "", "%9.0f")
	n = ratio("churnvmm", "B", "A", cvb)
	stats("B / A: the VMMs' CPU, kvmchurn against nothing", n, cvb, "1.02")
	printf "    %s\n", resolved(n, cvb)
	stats("  B - A: " unit " a VM", diff("churnvmm", "B", "A", dvb), dvb, "", "%9.0f")
	n = ratio("churnvmm", "F", "A", cvf)
	stats("F / A: the VMMs' CPU, empty handlers", n, cvf, "")
	printf "    %s\n", resolved(n, cvf)
	stats("  F - A: " unit " a VM", diff("churnvmm", "F", "A", dvf), dvf, "", "%9.0f")
	stats("P / A: the VMMs' CPU, the peer", ratio("churnvmm", "P", "A", cvp), cvp, "")
	if (seedvar != "") {
		stats("A / S: time a VM, the seed against nothing", ratio("churn", "S", "A", ks, 1), ks, "")
		stats("S / A: CPU a VM, the seed against nothing", ratio("churncpu", "S", "A", cks), cks, "")
		n = ratio("churncpu", "B", "S", ckbs)
		stats("B / S: CPU a VM, kvmchurn against the seed", n, ckbs, "1")
		printf "    %s\n", resolved(n, ckbs)
		n = ratio("churnfg", "B", "S", cgbs)
		stats("B / S: the same, less background", n, cgbs, "1")
		printf "    %s\n", resolved(n, cgbs)
		stats("S / A: the VMMs' CPU, the seed", ratio("churnvmm", "S", "A", cvs), cvs, "")
		stats("  S - A: " unit " a VM", diff("churnvmm", "S", "A", dvs), dvs, "", "%9.0f")
		n = ratio("churnvmm", "B", "S", cvbs)
		stats("B / S: the VMMs' CPU, kvmchurn against the seed", n, cvbs, "1")
		printf "    %s\n", resolved(n, cvbs)
		stats("bpftrace start-up, exec to BEGIN (guest s)", nseedstart, seedstart, "", "%9.2f")
		printf "    %s, the seed %s\n", seedver, seedvar == "kprobe" ? "with kfunc/kretfunc as kprobe/kretprobe (its kfunc probes cannot attach here)" : "as written"
	}
	if (vmcfgs != "") {
		printf "  the kernel's memory work in the churn rounds, summed over them (/proc/vmstat):\n"
		nc = split(vmcfgs, cs, " "); nk = split(vmkeys, ks, " ")
		for (i = 1; i <= nc; i++) {
			line = ""
			for (j = 1; j <= nk; j++) line = line " " ks[j] " " vmsum[cs[i], ks[j]]
			printf "    %s:%s\n", cs[i], line
		}
		printf "    rounds that compacted, reclaimed directly or fell back from a huge page: %s\n", vmslows == "" ? "none" : substr(vmslows, 2)
	}
	printf "  exit_mmap recorded a round: B %s; P %s; S (exit_mmap/n_exit: its exit_mmap is the thread's comm, and the last thread out may be a vCPU) %s\n", recorded("churn", "B"), recorded("churn", "P"), recorded("churn", "S")
	if (only == "rounds") {
		printf "  misses, waves, VMs alive and memory: not run (--only rounds)\n"
		exit
	}
	printf "  misses (%d traced VMs of 1 vCPU and %d MiB, killed together: kvmchurn load --together):\n", storm, storm_mib
	printf "    with the default maxactive: %s missed%s  goal 0: %s\n", mdef, mby == "" ? "" : " (" mby ")", mdef == "0" ? "met" : "NOT met"
	printf "    smallest maxactive that misses none: %s (maxactive:missed%s)\n", msmall, tried
	printf "    the largest wave the defaults take whole (0 missed, 0 pairing drops): %s (VMs:missed/drops%s)\n", wave == wavemax ? wave " or more (kvmchurn load's largest -j)" : wave == 0 ? "below " int(wavemax / 32) : wave, waves
	printf "  what kvmchurn adds to an unmatched exit (B - A) with traced VMs alive (%s with them):\n", aliveinfo
	stats("none alive: " unit " an exit", na, al0, "", "%9.0f")
	stats(nalive " alive: " unit " an exit", na, aln, "", "%9.0f")
	stats(nalive " alive / none alive (must not grow)", na, alr, goal_growth)
	printf "  memory (median of %d load/unload cycles; meminfo counts whole pages, in kB):\n", nmem[512, "loaded"]
	cpus = memm(512, "module", "possible_cpus")
	ppc = memm(512, "module", "percpu_per_cpu")
	tot = memm(512, "module", "total")
	printf "    the module says: per-CPU %s on each of %d possible CPUs = %s; slab %s; vmalloc %s;\n", kib(ppc), cpus, kib(memm(512, "module", "percpu")), kib(memm(512, "module", "slab")), kib(memm(512, "module", "vmalloc"))
	printf "      %d kretprobe instances, %s; total %s (maxactive=512)\n", memm(512, "module", "kretprobe_instances"), kib(memm(512, "module", "kretprobes")), kib(tot)
	printf "    goal: per possible CPU <= 64 KiB: %s of per-CPU data a CPU: %s\n", kib(ppc), ppc <= 65536 ? "met" : "NOT met"
	printf "      (everything, shared too, over %d CPUs: %s a CPU; the instances do not grow with CPUs before 6.7)\n", cpus, kib(tot / cpus)
	vp = memm(512, "loaded", "vmpairs"); vm = memm(512, "module", "vmalloc")
	printf "    pairing table and VM records: /proc/vmallocinfo %d bytes in pages, module %d: %s\n", vp, vm, (vp == vm ? "equal" : "DIFFERENT")
	oi = memd(512, cache) / 1024 - memd(1, cache) / 1024
	ni = memm(512, "module", "kretprobe_instances") - memm(1, "module", "kretprobe_instances")
	# SLUB keeps up to 2 x cpu_partial objects in the partial slabs of a CPU, and a slab
	# on the CPU, and counts their free objects as in use (set_cpu_partial())
	slack = cpus * (2 * cpu_partial + per_slab)
	if (cache != "none")
		printf "    instances: %s objects in use, maxactive=512 less maxactive=1: %+d; module: %+d (%.3f): %s\n", cache, oi, ni, oi / ni, (oi - ni <= slack && ni - oi <= slack ? "equal within the " slack " objects SLUB may hold per CPU" : "DIFFERENT by more than the " slack " objects SLUB may hold per CPU")
	else {
		# an objpool (6.7 on): pages from vmalloc, but for kernel stacks made or freed meanwhile
		ov = memd(512, "VmallocUsed") - memd(1, "VmallocUsed")
		mv = memm(512, "module", "kretprobes") - memm(1, "module", "kretprobes")
		printf "    instances (an objpool): VmallocUsed maxactive=512 less maxactive=1: %+d bytes; module: %+d: %s\n", ov, mv, (ov - mv <= 32768 && mv - ov <= 32768 ? "equal within two kernel stacks" : "DIFFERENT by more than two kernel stacks")
	}
	printf "    SUnreclaim: +%s at maxactive=512, +%s at 1 (slab pages: objects fill the free room of pages already there first)\n", kib(memd(512, "SUnreclaim")), kib(memd(1, "SUnreclaim"))
	dpc = memd(512, "Percpu"); mp = memm(512, "module", "percpu")
	# the allocator populates whole pages, on every CPU, as it needs them
	printf "    per-CPU: meminfo Percpu %+.0f KiB, module %s: %s\n", dpc / 1024, kib(mp), (dpc <= mp + cpus * 4096 ? "consistent (no more than its pages; pages populated before hold the rest; Debian kernels have no CONFIG_PERCPU_STATS to say more)" : "MORE than its pages")
	printf "    after rmmod, against before insmod: SUnreclaim %+d KiB, Percpu %+d KiB, VmallocUsed %+d KiB", memd(512, "SUnreclaim", "after") / 1024, memd(512, "Percpu", "after") / 1024, memd(512, "VmallocUsed", "after") / 1024
	if (cache != "none") printf ", %s %+d objects", cache, memd(512, cache, "after") / 1024
	printf "\n"
}

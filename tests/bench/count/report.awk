# SPDX-License-Identifier: GPL-2.0
# count/report.awk: make bench-count's report (tests/bench/bench.sh count), after
# goals.awk, addr.awk and count/syms.awk, from the guest's "# count" lines and the
# plugin's counts (-v counts=its file; each run's symbol table goes beside it, to
# COUNTS.syms-CFG): instructions an exit by class and configuration, the ratios, and
# where F's mechanism and B's handlers go.
# find C A: the index in C's table of the last symbol at or below A (0: none)
function find(c, a, lo, hi, mid) {
	lo = 1; hi = ns[c]
	if (!hi || a < sa[c, 1]) return 0
	while (lo < hi) { mid = int((lo + hi + 1) / 2); if (sa[c, mid] <= a) lo = mid; else hi = mid - 1 }
	return lo
}
function per(c, n) { return n / exits[c] }
function row(name, c) {
	printf "    %-40s %9.1f\n", name, per(c, cl[c, name])
}
$1 == "#" && $2 == "count" && $3 == "run" { cfg[$5] = $4; exits[$4] = $6; order = order " " $4; runs++; next }
$1 == "#" && $2 == "count" && $3 == "alive" { alive = $4 " VMs alive (" $5 " " $6 ")"; next }
END {
	if (!runs) { print "  no run was counted (the boot's not ok lines say why)"; exit }
	for (m in cfg) table(cfg[m], counts ".syms-" cfg[m])
	while ((getline line < counts) > 0) {
		split(line, p, " ")
		if (p[1] == "mark") seen[p[2]] = 1
		if (p[1] == "mark" || p[1] == "end") { c = p[1] == "mark" && (p[2] in cfg) ? cfg[p[2]] : ""; continue }
		if (p[1] == "full") { full = 1; continue }
		if (c == "") continue
		# below everything is outside the kernel's text and its modules too
		i = find(c, addr(p[1]))
		k = i ? sc[c, i] : "mechanism"
		cl[c, k] += p[2]; tot[c] += p[2]
		if (k != "rest") hs[c, i ? sn[c, i] : "[outside]"] += p[2]
	}
	if (full) print "  the plugin ran out of counters: some instructions were not counted"
	# a run whose mark the plugin never wrote has no counts: it is left out
	for (m in cfg) if (!(m in seen)) { printf "  %s: the plugin wrote no mark %d, so no counts\n", cfg[m], m; delete exits[cfg[m]] }
	n = split(order, cs, " ")
	printf "  kernel instructions an exit, counted%s:\n", alive == "" ? "" : " (V and W: " alive ")"
	for (j = 1; j <= n; j++) {
		c = cs[j]
		if (!exits[c]) continue
		printf "  %s (%d exits, %.0f kernel instructions an exit):\n", c, exits[c], per(c, tot[c])
		row("handler", c); row("mechanism", c); row("rest", c)
	}
	if (!exits["A"] || !exits["F"] || !exits["B"]) exit
	# as bench-profile: the mechanism is what F adds over A in its functions, with
	# its empty handlers; the handlers what kvmchurn's add to those
	fa = per("F", cl["F", "mechanism"] + cl["F", "handler"]) - per("A", cl["A", "mechanism"])
	bf = per("B", cl["B", "handler"]) - per("F", cl["F", "handler"])
	printf "  F - A, the mechanism with empty handlers:          %9.1f\n", fa
	printf "  B - F, kvmchurn's handlers less the empty ones:   %9.1f\n", bf
	printf "  (B - F) / (F - A):                                 %9.3f  goal <= %s: %s\n", bf / fa, goal_share, bf / fa <= goal_share ? "met" : "NOT met"
	printf "  the mechanism in B against F (the same probes):    %9.1f against %.1f\n", per("B", cl["B", "mechanism"]), per("F", cl["F", "mechanism"])
	printf "  A in those classes (what an exit runs there without probes): %.1f\n", per("A", cl["A", "mechanism"])
	if (exits["W"]) {
		wa = per("W", cl["W", "mechanism"] + cl["W", "handler"]) - per("A", cl["A", "mechanism"])
		printf "  W - A, the mechanism with VMs alive:               %9.1f  against F - A %.1f\n", wa, fa
	}
	if (exits["V"] && exits["W"]) {
		vw = per("V", cl["V", "handler"]) - per("W", cl["W", "handler"])
		printf "  V - W, kvmchurn's handlers with VMs alive:         %9.1f  against B - F %.1f: %s\n", vw, bf, vw <= bf * goal_growth ? "does not grow (goal <= " goal_growth " times)" : "GROWS"
	}
	printf "  where F's mechanism goes, instructions an exit over A's (W beside, with VMs alive):\n"
	for (k in hs) {
		split(k, p, SUBSEP)
		d = per("F", hs[k]) - per("A", hs["A", p[2]])
		if (p[1] == "F" && (d >= 0.5 || d <= -0.5)) printf "    %7.1f  %7.1f  %s\n", d, exits["W"] ? per("W", hs["W", p[2]]) - per("A", hs["A", p[2]]) : 0, p[2] | "sort -k1,1nr"
	}
	close("sort -k1,1nr")
	printf "  where B's handlers go, instructions an exit (V beside, with VMs alive):\n"
	for (k in hs) {
		split(k, p, SUBSEP)
		if (p[1] == "B" && p[2] ~ /\[kvmchurn\]$/ && per("B", hs[k]) >= 0.5) printf "    %7.1f  %7.1f  %s\n", per("B", hs[k]), exits["V"] ? per("V", hs["V", p[2]]) : 0, p[2] | "sort -k1,1nr"
	}
	close("sort -k1,1nr")
}

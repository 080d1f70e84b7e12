# SPDX-License-Identifier: GPL-2.0
# profile/report.awk: make bench-profile's report (tests/bench/bench.sh profile), after
# goals.awk, from one boot's "# profile" lines (profile/60-profile.sh; CRs already
# dropped): each class's instructions an exit by configuration with the interval its
# sample count gives, (B - F) / (F - A) from them, V against B and W against F, where B's
# handler and mechanism samples start, and the symbols B gains most samples in over A.
# "# profile CFG SAMPLES PARENT SYMBOL": SAMPLES samples of CFG whose first matching
# frame is PARENT (a kc_ or kf_ handler, a function of the mechanism, or [other]) at
# the sampled SYMBOL (0xffff...: kernel code without a symbol)
$1 == "#" && $2 == "profile" && $3 ~ /^[A-Z]$/ && $4 ~ /^[0-9]+$/ {
	c = $3; n = $4; sym = $6
	class = $5 ~ /^k[cf]_/ ? "handler" : $5 != "[other]" ? "mechanism" : sym ~ /^0xffff/ ? "nosym" : "rest"
	cl[c, class] += n; t[c] += n; s[c, sym] += n; syms[sym] = 1
	if (class == "handler" || class == "mechanism") by[c, class, $5] += n
	next
}
$1 == "#" && $2 == "profile" && $4 == "ns" && $5 ~ /^[0-9]+$/ { runs[$3]++ }
$1 == "#" && $2 == "profile" && $4 == "plain" { plain[$3] += $5; nplain[$3]++ }
$1 == "#" && $2 == "profile" && $3 == "alive" { alive = $4 " (" $5 " " $6 ")" }
$1 == "#" && $2 == "profile" && $3 == "kprobes" { kprobes = $4 }
# per C N: N samples of C as instructions an exit: their share of all of C's samples,
# of what an exit took without perf
function per(c, n) { return t[c] && nplain[c] ? n / t[c] * plain[c] / nplain[c] : 0 }
# lo C N, hi C N: the 95 % interval of a Poisson count of N, an exit
function lo(c, n) { return per(c, n > 0 ? n - 1.96 * sqrt(n) : 0) }
function hi(c, n) { return per(c, n + 1.96 * sqrt(n + 1)) }
# at C N S: per(), or the interval's lo() (S < 0) or hi() (S > 0)
function at(c, n, s) { return s < 0 ? lo(c, n) : s > 0 ? hi(c, n) : per(c, n) }
# over_a C S: the mechanism of C (a floor), what it adds in its frames and unnamed code
# over what A has there, with its empty handlers; S as at()
function over_a(c, s) {
	return at(c, cl[c, "mechanism"] + cl[c, "nosym"], s) - at("A", cl["A", "mechanism"] + cl["A", "nosym"], -s) + at(c, cl[c, "handler"], s)
}
# less X Y S: what the handlers of X add to those of Y; S as at()
function less(x, y, s) { return at(x, cl[x, "handler"], s) - at(y, cl[y, "handler"], -s) }
# verdict LO HI GOAL: whether the interval [LO, HI] is within GOAL (met), above it (NOT
# met) or across it (not resolved)
function verdict(l, h, goal) { return h <= goal ? "met" : l > goal ? "NOT met" : "not resolved" }
function show(name, c, n) {
	printf "    %-44s %7.0f  [%7.0f, %7.0f]  (%d samples)\n", name, per(c, n), lo(c, n), hi(c, n), n
}
# each configuration's classes
function classes(   i, c, cfgs) {
	split("A F B V W", cfgs)
	printf "  instructions an exit by call chain (95 %% interval from the sample count):\n"
	for (i = 1; i <= 5; i++) {
		c = cfgs[i]
		if (!t[c]) continue
		printf "  %s (%d runs, %d samples, %.0f instructions an exit without perf)%s:\n", c, runs[c], t[c], per(c, t[c]), c == "V" || c == "W" ? ", alive " alive : ""
		show("handlers (a kc_ or kf_ frame first)", c, cl[c, "handler"])
		show("mechanism (a probe machinery frame first)", c, cl[c, "mechanism"])
		show("kernel code without a symbol (trampolines)", c, cl[c, "nosym"])
	}
}
# the mechanism: what F adds in its frames and unnamed code over what A has there (an
# exit calls rethook_flush_task and ftrace_graph_exit_task whatever is loaded), with the
# empty handlers of F; the handlers: what those of kvmchurn add to them
function ratios(   mf, ma, mb, fa, fal, fah, bf, bfl, bfh) {
	mf = cl["F", "mechanism"] + cl["F", "nosym"]; ma = cl["A", "mechanism"] + cl["A", "nosym"]
	fa = over_a("F", 0); fal = over_a("F", -1); fah = over_a("F", 1)
	bf = less("B", "F", 0); bfl = less("B", "F", -1); bfh = less("B", "F", 1)
	printf "  F - A, the mechanism with empty handlers:          %7.0f  [%7.0f, %7.0f]\n", fa, fal, fah
	printf "  B - F, kvmchurn's handlers less the empty ones:   %7.0f  [%7.0f, %7.0f]\n", bf, bfl, bfh
	printf "  (B - F) / (F - A):                                 %7.3f  [%7.3f, %7.3f]  goal <= %s: %s\n", bf / fa, bfl / fah, bfh / fal, goal_share, verdict(bfl / fah, bfh / fal, goal_share)
	mb = cl["B", "mechanism"] + cl["B", "nosym"]
	printf "  the mechanism in B against F (the same probes):    %7.0f against %.0f\n", per("B", mb) - per("A", ma), per("F", mf) - per("A", ma)
	printf "  A's samples in those frames (what an exit runs there without probes): %d\n", ma
	if (t["W"]) alive_ratios(fa, bf)
}
# alive_ratios FA BF: the same with VMs alive: W - A against F - A, V - W against B - F
function alive_ratios(fa, bf,   wa, wal, wah, vw, vwl, vwh) {
	wa = over_a("W", 0); wal = over_a("W", -1); wah = over_a("W", 1)
	printf "  W - A, the mechanism with %s alive:              %7.0f  [%7.0f, %7.0f]  against F - A %.0f\n", substr(alive, 1, index(alive, " ") - 1), wa, wal, wah, fa
	if (!t["V"]) return
	vw = less("V", "W", 0); vwl = less("V", "W", -1); vwh = less("V", "W", 1)
	printf "  V - W, kvmchurn's handlers with them alive:        %7.0f  [%7.0f, %7.0f]  against B - F %.0f\n", vw, vwl, vwh, bf
	printf "  (V - W) / (W - A):                                 %7.3f  [%7.3f, %7.3f]\n", vw / wa, vwl / wah, vwh / wal
}
# the handlers with VMs alive against none alive
function growth(   v, b, l, h) {
	v = per("V", cl["V", "handler"]); b = per("B", cl["B", "handler"])
	l = lo("V", cl["V", "handler"]) / hi("B", cl["B", "handler"]); h = hi("V", cl["V", "handler"]) / lo("B", cl["B", "handler"])
	printf "  handlers with %s alive / none alive:  %.3f  [%.3f, %.3f]  goal <= %s (must not grow): %s\n", substr(alive, 1, index(alive, " ") - 1), v / b, l, h, goal_growth, verdict(l, h, goal_growth)
}
# where B's handler and mechanism samples start: each first matching frame with 1 % of
# its class or more
function starts(   k, p) {
	printf "  where B's handler and mechanism samples start (first matching frame):\n"
	for (k in by) {
		split(k, p, SUBSEP)
		if (p[1] == "B" && by[k] * 100 >= cl["B", p[2]]) printf "    %-9s %6d  %6.0f an exit  %s\n", p[2], by[k], per("B", by[k]), p[3] | "sort -k2,2nr"
	}
	close("sort -k2,2nr")
}
# the 25 sampled symbols B gains most in over A, instructions an exit
function gains(   f, g, i, top) {
	printf "  symbols B gains most in over A (the sampled instruction's), instructions an exit:\n"
	for (f in syms) if (per("B", s["B", f]) > per("A", s["A", f])) g[f] = per("B", s["B", f]) - per("A", s["A", f])
	for (i = 1; i <= 25; i++) {
		top = ""
		for (f in g) if (top == "" || g[f] > g[top] || (g[f] == g[top] && f < top)) top = f
		if (top == "") break
		printf "  %+8.0f  (samples: A %d, B %d)  %s\n", g[top], s["A", top], s["B", top], top
		delete g[top]
	}
}
END {
	classes()
	if (kprobes == "trap")
		printf "  kprobes trap here (a break and a single step): their handlers and the trap run with interrupts\n  masked, so a sample waits until they end and lands after them; neither the mechanism nor the\n  kretprobes' handlers are seen by call chain (the tracepoints' are). make bench's F - A and B - F say it.\n"
	else if (runs["F"] && runs["B"] && runs["A"])
		ratios()
	if (t["V"] && t["B"]) growth()
	starts()
	gains()
}

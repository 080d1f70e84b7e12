# SPDX-License-Identifier: GPL-2.0
# count-syms.awk: kc_count_syms()'s program (tests/bench/count.sh), with addr.awk:
# the guest's symbols of one run (-v c=CFG), from the module files' KOSYMS (the
# first file) and the guest's log (the second, "-").
function handler(m) { return m ~ /^\[kvmchurn(_floor)?\]$/ }
FILENAME != "-" { n[$1, $2]++; ko[$1, $2, n[$1, $2]] = addr($3); kn[$1, $2, n[$1, $2]] = $4; next }
$1 != "#" || $2 != "count" { next }
$3 == "sym" { printf "%.0f %d %s %s\n", addr($4), $6 == "outside" ? 0 : 1, $5, $6 == "outside" ? "mechanism" : $6; next }
$3 == "module" && $4 == c {
	printf "%.0f 1 %s %s\n", addr($5), $7, handler($7) ? "handler" : "rest"
	printf "%.0f 0 [outside] mechanism\n", addr($5) + $6
	next
}
$3 == "section" && $4 == c {
	for (i = 1; i <= n[$5, $6]; i++)
		if (kn[$5, $6, i] == "[end]") printf "%.0f 0 [outside] mechanism\n", addr($7) + ko[$5, $6, i]
		else printf "%.0f 1 %s%s handler\n", addr($7) + ko[$5, $6, i], kn[$5, $6, i], $5
	next
}
$3 == "tramp" && $4 == c { printf "%.0f 2 %s mechanism\n", addr($5), $6 }

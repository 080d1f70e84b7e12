# SPDX-License-Identifier: GPL-2.0
# count/syms.awk: the symbols of each counted run, for count/report.awk (after addr.awk,
# before report.awk): the module files' functions (the first file, count/kosyms.awk's
# lines) and the guest's log (the second, "-"). table(C, FILE) writes C's table to FILE,
# "ADDRESS ORDER NAME CLASS" sorted by address (addr(), in decimal), then ORDER, so that
# where one thing ends where another begins, the one that begins is last: what the guest
# printed of the kernel's text, each module's core (kvmchurn's and the floor's, the
# handlers, their functions from the module files where the guest said their sections
# are), and after the kernel's text and each module's end whatever is outside them: the
# kernel's trampolines, the mechanism (also after the end of each of kvmchurn's and the
# floor's text sections, and where the guest printed a trampoline: from 6.4 a module's
# core is not one block, and its size in /proc/modules runs past its text, over what the
# kernel put after it); then reads it back into sa, sn and sc (address, name, class).
function handler(m) { return m ~ /^\[kvmchurn(_floor)?\]$/ }
# put C LINE: one more line of C's table
function put(c, line) { tl[c, ++nt[c]] = line }
function table(c, f,   cmd, i, line, p) {
	cmd = "sort -k1,1n -k2,2n >'" f "'"
	for (i = 1; i <= nsym; i++) print sym[i] | cmd
	for (i = 1; i <= nt[c]; i++) print tl[c, i] | cmd
	close(cmd)
	while ((getline line < f) > 0) { split(line, p, " "); ns[c]++; sa[c, ns[c]] = p[1] + 0; sn[c, ns[c]] = p[3]; sc[c, ns[c]] = p[4] }
	close(f)
}
FILENAME != "-" { nko[$1, $2]++; ko[$1, $2, nko[$1, $2]] = addr($3); kn[$1, $2, nko[$1, $2]] = $4; next }
$1 != "#" || $2 != "count" { next }
$3 == "sym" { sym[++nsym] = sprintf("%.0f %d %s %s", addr($4), $6 == "outside" ? 0 : 1, $5, $6 == "outside" ? "mechanism" : $6); next }
$3 == "module" {
	put($4, sprintf("%.0f 1 %s %s", addr($5), $7, handler($7) ? "handler" : "rest"))
	put($4, sprintf("%.0f 0 [outside] mechanism", addr($5) + $6))
	next
}
$3 == "section" {
	for (i = 1; i <= nko[$5, $6]; i++)
		if (kn[$5, $6, i] == "[end]") put($4, sprintf("%.0f 0 [outside] mechanism", addr($7) + ko[$5, $6, i]))
		else put($4, sprintf("%.0f 1 %s%s handler", addr($7) + ko[$5, $6, i], kn[$5, $6, i], $5))
	next
}
$3 == "tramp" { put($4, sprintf("%.0f 2 %s mechanism", addr($5), $6)); next }

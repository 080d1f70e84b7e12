# SPDX-License-Identifier: GPL-2.0
# addr(H): the low 48 bits of the hex address H, as a number (kernel addresses share the
# top 16, and a double holds 48 exactly): count/syms.awk's and count/report.awk's
function addr(h, i, v) {
	h = tolower(substr(h, length(h) - 11)); v = 0
	for (i = 1; i <= length(h); i++) v = v * 16 + index("0123456789abcdef", substr(h, i, 1)) - 1
	return v
}

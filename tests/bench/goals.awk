# SPDX-License-Identifier: GPL-2.0
# goals.awk: the goals of the unmatched exit that the rounds, profile and count reports
# all judge (issue 20), each by its own measure. Given before each of those reports'
# programs (awk -f goals.awk -f MODE/report.awk), as the unit tier does.
BEGIN {
	# (B - F) / (F - A): kvmchurn's handlers at most this share of the kernel's mechanism
	goal_share = 0.25
	# the handlers with traced VMs alive at most this many times those with none alive
	goal_growth = 1.1
}

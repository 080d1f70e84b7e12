# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Sourced by run.sh, profile.sh and count.sh: the goals of the unmatched exit that all
# three judge (issue 20), each by its own measure.
# shellcheck disable=SC2034 # used by the scripts that source it
# (B - F) / (F - A): kvmchurn's handlers at most this share of the kernel's mechanism
KC_BENCH_GOAL_SHARE=0.25
# the handlers with traced VMs alive at most this many times those with none alive
KC_BENCH_GOAL_GROWTH=1.1

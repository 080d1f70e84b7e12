// SPDX-License-Identifier: GPL-2.0
/*
 * module.c - kvmchurn_test.ko: the KUnit suites of kvmchurn, run when the
 * module loads (results in /sys/kernel/debug/kunit/kvmchurn_*). Each suite
 * is in the file named after what it tests; the module's own sources are
 * built in beside them (Kbuild).
 */
#include <linux/module.h>

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("KUnit suites of kvmchurn");
MODULE_VERSION(KVMCHURN_VERSION);

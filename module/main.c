// SPDX-License-Identifier: GPL-2.0
/*
 * main.c - kvmchurn.ko: where the kernel spends its time when KVM virtual
 * machines are created and destroyed at a high rate. This file owns the
 * module parameters and the order in which the parts start and stop.
 */
#include <linux/module.h>
#include <linux/moduleparam.h>

#include "kvmchurn.h"

static char *filter = "firecracker";
module_param(filter, charp, 0444);
MODULE_PARM_DESC(filter, "Leader comm names to trace, space or comma separated; * for all (default: firecracker)");

static char *unit = "us";
module_param(unit, charp, 0444);
MODULE_PARM_DESC(unit, "Histogram unit: us (default, as the seed script) or ns");

static unsigned int maxactive = 512;
module_param(maxactive, uint, 0444);
MODULE_PARM_DESC(maxactive, "Concurrent calls each kretprobe can follow (default: 512)");

static unsigned int pairs = 4096;
module_param(pairs, uint, 0444);
MODULE_PARM_DESC(pairs, "Entries of the start/end pairing table (default: 4096)");

module_param_named(enable, kc_enabled, bool, 0444);
MODULE_PARM_DESC(enable, "Record events (default: 1)");

static int __init kc_init(void)
{
	int err;

	if (kc_parse_unit(unit, &kc_unit_ns)) {
		pr_err("unit=%s: must be us or ns\n", unit);
		return -EINVAL;
	}
	if (!maxactive) {
		pr_err("maxactive=0: must be at least 1\n");
		return -EINVAL;
	}

	err = kc_filter_init(filter);
	if (err) {
		pr_err("filter=\"%s\": expected up to 8 names of at most %d characters, or *\n",
		       filter, TASK_COMM_LEN - 1);
		return err;
	}
	err = kc_pairs_init(pairs);
	if (err) {
		pr_err("pairs=%u: cannot set up the pairing table: error %d\n",
		       pairs, err);
		goto err_filter;
	}
	err = kc_hist_init();
	if (err)
		goto err_pairs;
	err = kc_tracepoints_init();
	if (err)
		goto err_hist;
	err = kc_kretprobes_init(maxactive);
	if (err)
		goto err_tracepoints;
	/* Last: a reader may look at everything set up before. */
	err = kc_debugfs_init();
	if (err) {
		pr_err("cannot create debugfs files: error %d\n", err);
		goto err_kretprobes;
	}

	pr_info("version %s loaded, filter \"%s\", unit %s\n", KVMCHURN_VERSION,
		filter, kc_unit_name());
	return 0;

err_kretprobes:
	kc_kretprobes_exit();
err_tracepoints:
	kc_tracepoints_exit();
err_hist:
	kc_hist_exit();
err_pairs:
	kc_pairs_exit();
err_filter:
	kc_filter_exit();
	return err;
}

static void __exit kc_exit(void)
{
	/* Readers first, then probes (which wait for running handlers). */
	kc_debugfs_exit();
	kc_kretprobes_exit();
	kc_tracepoints_exit();
	kc_hist_exit();
	kc_pairs_exit();
	kc_filter_exit();
}

module_init(kc_init);
module_exit(kc_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Where the kernel spends its time in KVM VM churn");
MODULE_VERSION(KVMCHURN_VERSION);

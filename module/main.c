// SPDX-License-Identifier: GPL-2.0
/*
 * main.c - kvmchurn.ko: where the kernel spends its time when KVM virtual
 * machines are created and destroyed at a high rate. This file owns the
 * module parameters and the order in which the parts start and stop.
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/stringify.h>
#include <linux/sysfs.h>

#include "kvmchurn.h"

/*
 * Every parameter is checked when it is given: a value out of its range
 * fails insmod or modprobe with -EINVAL and a line in the kernel log that
 * names the parameter and the range. Nothing is clamped.
 */
#define KC_MAXACTIVE_MAX	4096	/* as tracefs allows a kretprobe event */
#define KC_FILTER_SPEC_LEN	256

static char filter[KC_FILTER_SPEC_LEN] = "firecracker";
static unsigned int maxactive = 512;
static unsigned int pairs = 4096;
static struct kc_vms_params vms = { .last = 256, .slowest = 32, .live = 1024 };

static int kc_param_filter_set(const char *val, const struct kernel_param *kp)
{
	if (strlen(val) >= sizeof(filter) || kc_filter_check(val)) {
		pr_err("filter=\"%.40s%s\": must be 1 to %d names of 1 to %d characters, space or comma separated, or *\n",
		       val, strlen(val) > 40 ? "..." : "", KC_FILTER_MAX_NAMES,
		       KC_NAME_MAX);
		return -EINVAL;
	}
	strscpy(filter, val, sizeof(filter));
	return 0;
}

static int kc_param_filter_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%s\n", filter);
}

static const struct kernel_param_ops kc_param_filter_ops = {
	.set = kc_param_filter_set,
	.get = kc_param_filter_get,
};

static int kc_param_unit_set(const char *val, const struct kernel_param *kp)
{
	if (kc_parse_unit(val, &kc_unit_ns)) {
		pr_err("unit=%.16s: must be us or ns\n", val);
		return -EINVAL;
	}
	return 0;
}

static int kc_param_unit_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%s\n", kc_unit_name());
}

static const struct kernel_param_ops kc_param_unit_ops = {
	.set = kc_param_unit_set,
	.get = kc_param_unit_get,
};

/* An unsigned int from @lo to @hi, in any base kstrtouint() reads. */
static int kc_param_range(const char *val, const struct kernel_param *kp,
			  unsigned int lo, unsigned int hi)
{
	unsigned int v;

	if (kstrtouint(val, 0, &v) || v < lo || v > hi) {
		pr_err("%s=%.24s: must be a number from %u to %u\n", kp->name,
		       val, lo, hi);
		return -EINVAL;
	}
	*(unsigned int *)kp->arg = v;
	return 0;
}

static int kc_param_maxactive_set(const char *val, const struct kernel_param *kp)
{
	return kc_param_range(val, kp, 1, KC_MAXACTIVE_MAX);
}

static const struct kernel_param_ops kc_param_maxactive_ops = {
	.set = kc_param_maxactive_set,
	.get = param_get_uint,
};

static int kc_param_pairs_set(const char *val, const struct kernel_param *kp)
{
	return kc_param_range(val, kp, KC_PAIRS_MIN, KC_PAIRS_MAX);
}

static const struct kernel_param_ops kc_param_pairs_ops = {
	.set = kc_param_pairs_set,
	.get = param_get_uint,
};

module_param_cb(filter, &kc_param_filter_ops, NULL, 0444);
MODULE_PARM_DESC(filter,
		 "Leader comm names to trace, space or comma separated, 1 to "
		 __stringify(KC_FILTER_MAX_NAMES)
		 " of 1 to " __stringify(KC_NAME_MAX)
		 " characters; * for all (default: firecracker)");
module_param_cb(unit, &kc_param_unit_ops, NULL, 0444);
MODULE_PARM_DESC(unit, "Histogram unit: us (default, as the seed script) or ns");
module_param_cb(maxactive, &kc_param_maxactive_ops, &maxactive, 0444);
MODULE_PARM_DESC(maxactive,
		 "Concurrent calls each kretprobe can follow, 1 to "
		 __stringify(KC_MAXACTIVE_MAX) " (default: 512)");
module_param_cb(pairs, &kc_param_pairs_ops, &pairs, 0444);
MODULE_PARM_DESC(pairs,
		 "Entries of the start/end pairing table, "
		 __stringify(KC_PAIRS_MIN) " to " __stringify(KC_PAIRS_MAX)
		 " (default: 4096)");
static int kc_param_vms_set(const char *val, const struct kernel_param *kp)
{
	return kc_param_range(val, kp, KC_VMS_MIN, KC_VMS_MAX);
}

static const struct kernel_param_ops kc_param_vms_ops = {
	.set = kc_param_vms_set,
	.get = param_get_uint,
};

module_param_cb(vms_last, &kc_param_vms_ops, &vms.last, 0444);
MODULE_PARM_DESC(vms_last,
		 "VMs that finished kept in the vms file, newest last, "
		 __stringify(KC_VMS_MIN) " to " __stringify(KC_VMS_MAX)
		 " (default: 256)");
module_param_cb(vms_slowest, &kc_param_vms_ops, &vms.slowest, 0444);
MODULE_PARM_DESC(vms_slowest,
		 "Slowest VMs by exit_to_reap kept in the vms file, "
		 __stringify(KC_VMS_MIN) " to " __stringify(KC_VMS_MAX)
		 " (default: 32)");
module_param_cb(vms_live, &kc_param_vms_ops, &vms.live, 0444);
MODULE_PARM_DESC(vms_live,
		 "VMs followed at once from creation to reap, "
		 __stringify(KC_VMS_MIN) " to " __stringify(KC_VMS_MAX)
		 " (default: 1024); beyond, the oldest is evicted");

static int kc_param_enable_set(const char *val, const struct kernel_param *kp)
{
	if (param_set_bool(val, kp)) {
		pr_err("enable=%.16s: must be 0 or 1\n", val);
		return -EINVAL;
	}
	return 0;
}

static const struct kernel_param_ops kc_param_enable_ops = {
	.flags = KERNEL_PARAM_OPS_FL_NOARG,
	.set = kc_param_enable_set,
	.get = param_get_bool,
};

module_param_cb(enable, &kc_param_enable_ops, &kc_enabled, 0444);
MODULE_PARM_DESC(enable, "Record events (default: 1)");

static int __init kc_init(void)
{
	int err;

	/* The parameters were checked as they were given. */
	err = kc_filter_init(filter);
	if (err)
		return err;
	err = kc_pairs_init(pairs);
	if (err) {
		pr_err("pairs=%u: cannot allocate the pairing table: error %d\n",
		       pairs, err);
		goto err_filter;
	}
	err = kc_vms_init(&vms);
	if (err) {
		pr_err("vms_live=%u vms_last=%u vms_slowest=%u: cannot allocate the VM records: error %d\n",
		       vms.live, vms.last, vms.slowest, err);
		goto err_pairs;
	}
	err = kc_hist_init();
	if (err)
		goto err_vms;
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
err_vms:
	kc_vms_exit();
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
	kc_vms_exit();
	kc_pairs_exit();
	kc_filter_exit();
}

module_init(kc_init);
module_exit(kc_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Where the kernel spends its time in KVM VM churn");
MODULE_VERSION(KVMCHURN_VERSION);

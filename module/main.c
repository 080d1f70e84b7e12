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

#include "kret.h"
#include "kvmchurn.h"

/*
 * Every parameter is checked when it is given: a value out of its range
 * fails insmod or modprobe with -EINVAL and a line in the kernel log that
 * names the parameter and the range. Nothing is clamped.
 *
 * filter, enable and reset are also the module's controls at run time: a
 * write to /sys/module/kvmchurn/parameters/<name> takes the same text as the
 * debugfs file of that name, refuses the same text with the same -EINVAL,
 * and does the same, through the same code and locks (control.c). Under
 * lockdown=integrity debugfs refuses every write; sysfs does not.
 * One difference sysfs makes: it hands set() a string, not the write's
 * length, so a NUL in a write to a parameter ends the text there (a debugfs
 * file refuses it), and a write of no bytes never reaches the module.
 *
 * sysfs calls set() and get() under kernel_param_lock(THIS_MODULE). kc_init()
 * holds it from start to end, and kc_exit() while it stops the controls, so
 * a value comes either before the module is up (insmod's, or a write before
 * kc_init(): checked and kept for kc_init()) or while it is up (applied),
 * never half-way. A run-time write refused logs nothing, as a refused
 * debugfs write; insmod, which can only say -EINVAL, logs one line.
 */
#define KC_MAXACTIVE_MAX	4096	/* as tracefs allows a kretprobe event */

static char filter[KC_WRITE_MAX] = "firecracker";
static unsigned int maxactive = 512;
/*
 * Room for the default vms_live killed in one wave: up to five entries a VM
 * then (its mark, its creator's uevents, its signal, exit and exit_files),
 * 5,120 in buckets of 8 ways filled at random; at 4,096 entries a wave of
 * 256 VMs already dropped some (make bench).
 */
static unsigned int pairs = 32768;
static unsigned int fprobes;
static struct kc_vms_params vms = { .last = 256, .slowest = 32, .live = 1024 };

static enum {
	KC_PARAMS_LOADING,	/* insmod's values: checked and kept */
	KC_PARAMS_LIVE,		/* kc_init() done: the controls are applied */
	KC_PARAMS_GONE,		/* kc_exit(): checked, kept, not applied */
} kc_params;

/*
 * A parameter's value made the text a control takes, as kc_parse_text()
 * makes a debugfs write: empty or KC_WRITE_MAX bytes and more refused, one
 * trailing newline (echo's) dropped. @buf has KC_WRITE_MAX bytes.
 */
static int kc_param_text(const char *val, char *buf)
{
	size_t len = strnlen(val, KC_WRITE_MAX);

	if (len < KC_WRITE_MAX)
		memcpy(buf, val, len);
	return kc_parse_text(buf, len, KC_WRITE_MAX);
}

static int kc_param_filter_set(const char *val, const struct kernel_param *kp)
{
	char buf[KC_WRITE_MAX];
	int err;

	err = kc_param_text(val, buf);
	if (!err && kc_params == KC_PARAMS_LIVE)
		return kc_control_filter(buf);
	if (!err)
		err = kc_filter_check(buf);
	if (!err)
		strscpy(filter, buf, sizeof(filter));
	else if (kc_params == KC_PARAMS_LOADING)
		pr_err("filter=\"%.40s%s\": must be " KC_FILTER_RULE "\n", val,
		       strlen(val) > 40 ? "..." : "");
	return err;
}

/* The filter as the debugfs file shows it: its names, space separated. */
static int kc_param_filter_get(char *buf, const struct kernel_param *kp)
{
	int n;

	if (kc_params != KC_PARAMS_LIVE)
		return sysfs_emit(buf, "%s\n", filter);
	n = kc_filter_format(buf, PAGE_SIZE - 1);
	return n + sysfs_emit_at(buf, n, "\n");
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

/* 0 or 1, as enable= takes it: y or on are refused there too. */
static int kc_param_fprobes_set(const char *val, const struct kernel_param *kp)
{
	return kc_param_range(val, kp, 0, 1);
}

static const struct kernel_param_ops kc_param_fprobes_ops = {
	.set = kc_param_fprobes_set,
	.get = param_get_uint,
};

module_param_cb(filter, &kc_param_filter_ops, NULL, 0644);
MODULE_PARM_DESC(filter,
		 "Leader comm names to trace: " KC_FILTER_RULE
		 " for all (default: firecracker); writable at run time, as the debugfs file filter");
module_param_cb(unit, &kc_param_unit_ops, NULL, 0444);
MODULE_PARM_DESC(unit, "Histogram unit: us (default, as the seed script) or ns");
module_param_cb(maxactive, &kc_param_maxactive_ops, &maxactive, 0444);
MODULE_PARM_DESC(maxactive,
		 "Concurrent calls each kretprobe can follow, 1 to "
		 __stringify(KC_MAXACTIVE_MAX) " (default: 512)");
module_param_cb(fprobes, &kc_param_fprobes_ops, &fprobes, 0444);
MODULE_PARM_DESC(fprobes,
		 "1: exit_mmap and exit_files by fprobe where the kernel has it (6.5 and later, CONFIG_FPROBE); 0: by kretprobe, as every other function (default: 0, the cheaper on every kernel measured)");
module_param_cb(pairs, &kc_param_pairs_ops, &pairs, 0444);
MODULE_PARM_DESC(pairs,
		 "Entries of the start/end pairing table, "
		 __stringify(KC_PAIRS_MIN) " to " __stringify(KC_PAIRS_MAX)
		 " (default: 32768)");
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

static int kc_param_stall_set(const char *val, const struct kernel_param *kp)
{
	unsigned int v;

	if (kc_params != KC_PARAMS_LIVE)
		return kc_param_range(val, kp, KC_STALL_MS_MIN, KC_STALL_MS_MAX);
	/* at run time, refused as a control is: without a line in the log */
	if (kstrtouint(val, 0, &v) || v < KC_STALL_MS_MIN ||
	    v > KC_STALL_MS_MAX)
		return -EINVAL;
	WRITE_ONCE(kc_stall_ms, v);
	return 0;
}

static const struct kernel_param_ops kc_param_stall_ops = {
	.set = kc_param_stall_set,
	.get = param_get_uint,
};

/* Read by the readers alone: a write takes effect at the next read. */
module_param_cb(stall_ms, &kc_param_stall_ops, &kc_stall_ms, 0644);
MODULE_PARM_DESC(stall_ms,
		 "A stage in flight this long is a stall (checks warns), "
		 __stringify(KC_STALL_MS_MIN) " to " __stringify(KC_STALL_MS_MAX)
		 " ms (default: " __stringify(KC_STALL_MS_DEFAULT)
		 "); writable at run time");

static int kc_param_enable_set(const char *val, const struct kernel_param *kp)
{
	char buf[KC_WRITE_MAX];
	int err;

	/* "insmod kvmchurn.ko enable", as for any bool parameter: 1 */
	err = kc_param_text(val ? val : "1", buf);
	if (!err)
		err = kc_control_enable(buf);
	if (err && kc_params == KC_PARAMS_LOADING)
		pr_err("enable=%.16s: must be " KC_ENABLE_RULE "\n", val);
	return err;
}

/* As the debugfs file: 0 or 1. */
static int kc_param_enable_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", READ_ONCE(kc_enabled));
}

static const struct kernel_param_ops kc_param_enable_ops = {
	.flags = KERNEL_PARAM_OPS_FL_NOARG,
	.set = kc_param_enable_set,
	.get = kc_param_enable_get,
};

module_param_cb(enable, &kc_param_enable_ops, NULL, 0644);
MODULE_PARM_DESC(enable,
		 "Record events: " KC_ENABLE_RULE
		 " (default: 1); writable at run time, as the debugfs file enable");

/* At insmod, reset=1 is taken and does nothing: every count starts at 0. */
static int kc_param_reset_set(const char *val, const struct kernel_param *kp)
{
	char buf[KC_WRITE_MAX];
	int err;

	err = kc_param_text(val, buf);
	if (!err && kc_params == KC_PARAMS_LIVE)
		return kc_control_reset(buf);
	if (!err)
		err = kc_parse_reset(buf);
	if (err && kc_params == KC_PARAMS_LOADING)
		pr_err("reset=%.16s: must be " KC_RESET_RULE "\n", val);
	return err;
}

/* Write-only, as the debugfs file: 0200, which sysfs opens for no reader. */
static const struct kernel_param_ops kc_param_reset_ops = {
	.set = kc_param_reset_set,
};

module_param_cb(reset, &kc_param_reset_ops, NULL, 0200);
MODULE_PARM_DESC(reset,
		 "Write " KC_RESET_RULE
		 " at run time: every count starts again from 0, as the debugfs file reset");

static int __init kc_init(void)
{
	int err, debugfs_err;

	/* The parameters were checked as they were given. */
	kernel_param_lock(THIS_MODULE);
	err = kc_filter_init(filter);
	if (err)
		goto err_unlock;
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
	err = kc_kretprobes_init(kc_kret_hooks, maxactive, fprobes);
	if (err)
		goto err_tracepoints;
	/*
	 * Last: a reader may look at everything set up before. Either folder
	 * is enough; a host without debugfs reads /proc/kvmchurn.
	 */
	err = kc_procfs_init();
	debugfs_err = kc_debugfs_init();
	if (err && debugfs_err) {
		pr_err("cannot create /proc/%s (error %d) nor debugfs files (error %d)\n",
		       KBUILD_MODNAME, err, debugfs_err);
		goto err_kretprobes;
	}
	if (err)
		pr_warn("cannot create /proc/%s: error %d: the views are in debugfs only\n",
			KBUILD_MODNAME, err);
	if (debugfs_err)
		pr_info("no debugfs (error %d): the views are in /proc/%s, the controls are the module's parameters\n",
			debugfs_err, KBUILD_MODNAME);

	pr_info("version %s loaded, filter \"%s\", unit %s\n", KVMCHURN_VERSION,
		filter, kc_unit_name());
	kc_params = KC_PARAMS_LIVE;
	kernel_param_unlock(THIS_MODULE);
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
err_unlock:
	kernel_param_unlock(THIS_MODULE);
	return err;
}

static void __exit kc_exit(void)
{
	/* The parameters first: from now on they are only kept. */
	kernel_param_lock(THIS_MODULE);
	kc_filter_format(filter, sizeof(filter));
	kc_params = KC_PARAMS_GONE;
	kernel_param_unlock(THIS_MODULE);
	/* Readers, then probes (which wait for running handlers). */
	kc_debugfs_exit();
	kc_procfs_exit();
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

// SPDX-License-Identifier: GPL-2.0
/*
 * debugfs.c - the files under /sys/kernel/debug/kvmchurn/, all root-only:
 * the read-only views (render.c makes their text) and the three controls,
 * filter, enable and reset. A write that is not understood returns -EINVAL
 * and changes nothing.
 */
#include <linux/debugfs.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "kvmchurn.h"

static struct dentry *kc_dir;
static DEFINE_MUTEX(kc_control_lock);	/* serializes enable and reset */

/* A show function that needs a histogram snapshot (2 KiB: not on the stack). */
#define KC_SNAP_SHOW(name, call)					\
static int name##_show(struct seq_file *m, void *unused)		\
{									\
	struct kc_hist_snap *snap = kmalloc(sizeof(*snap), GFP_KERNEL);	\
									\
	if (!snap)							\
		return -ENOMEM;						\
	call;								\
	kfree(snap);							\
	return 0;							\
}									\
DEFINE_SHOW_ATTRIBUTE(name)

KC_SNAP_SHOW(kc_all, kc_show_all(m, snap));
KC_SNAP_SHOW(kc_summary, kc_show_summary(m, snap));
KC_SNAP_SHOW(kc_raw, kc_show_raw(m, snap));
KC_SNAP_SHOW(kc_hist, kc_show_hist(m, (uintptr_t)m->private, snap));

static int kc_counters_show(struct seq_file *m, void *unused)
{
	kc_show_counters(m);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(kc_counters);

static int kc_probes_show(struct seq_file *m, void *unused)
{
	kc_show_probes(m);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(kc_probes);

static int kc_checks_show(struct seq_file *m, void *unused)
{
	kc_show_checks(m);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(kc_checks);

static int kc_memory_show(struct seq_file *m, void *unused)
{
	kc_show_memory(m);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(kc_memory);

#define KC_WRITE_MAX	256

/* A control file: read through name##_show(), written by name##_write(). */
#define KC_CONTROL_FOPS(name)						\
static int name##_open(struct inode *inode, struct file *file)		\
{									\
	return single_open(file, name##_show, NULL);			\
}									\
static const struct file_operations name##_fops = {			\
	.owner = THIS_MODULE,						\
	.open = name##_open,						\
	.read = seq_read,						\
	.llseek = seq_lseek,						\
	.release = single_release,					\
	.write = name##_write,						\
}

/* Copies a write into @buf (KC_WRITE_MAX bytes) and makes it a string. */
static int kc_read_write(const char __user *ubuf, size_t count, char *buf)
{
	if (copy_from_user(buf, ubuf, min_t(size_t, count, KC_WRITE_MAX - 1)))
		return -EFAULT;
	return kc_parse_text(buf, count, KC_WRITE_MAX);
}

/* Reads a write of "0" or "1". */
static int kc_read_bit(const char __user *ubuf, size_t count, bool *bit)
{
	char buf[KC_WRITE_MAX];
	int err;

	err = kc_read_write(ubuf, count, buf);
	return err ? err : kc_parse_bit(buf, bit);
}

static int kc_filter_show(struct seq_file *m, void *unused)
{
	char buf[KC_FILTER_MAX_NAMES * TASK_COMM_LEN];

	kc_filter_format(buf, sizeof(buf));
	seq_printf(m, "%s\n", buf);
	return 0;
}

static ssize_t kc_filter_write(struct file *file, const char __user *ubuf,
			       size_t count, loff_t *ppos)
{
	char buf[KC_WRITE_MAX];
	int err;

	err = kc_read_write(ubuf, count, buf);
	if (!err)
		err = kc_filter_set(buf);
	return err ? err : count;
}

KC_CONTROL_FOPS(kc_filter);

static int kc_enable_show(struct seq_file *m, void *unused)
{
	seq_printf(m, "%d\n", READ_ONCE(kc_enabled));
	return 0;
}

static ssize_t kc_enable_write(struct file *file, const char __user *ubuf,
			       size_t count, loff_t *ppos)
{
	bool on;
	int err;

	err = kc_read_bit(ubuf, count, &on);
	if (err)
		return err;
	mutex_lock(&kc_control_lock);
	WRITE_ONCE(kc_enabled, on);
	mutex_unlock(&kc_control_lock);
	return count;
}

KC_CONTROL_FOPS(kc_enable);

/* "1": from now on, every count starts from zero. */
static ssize_t kc_reset_write(struct file *file, const char __user *ubuf,
			      size_t count, loff_t *ppos)
{
	bool on;
	int err;

	err = kc_read_bit(ubuf, count, &on);
	if (err)
		return err;
	if (!on)
		return -EINVAL;
	mutex_lock(&kc_control_lock);
	kc_hist_reset();
	kc_kretprobes_reset();
	kc_tracepoints_reset();
	mutex_unlock(&kc_control_lock);
	return count;
}

static const struct file_operations kc_reset_fops = {
	.owner = THIS_MODULE,
	.write = kc_reset_write,
	.llseek = noop_llseek,
};

int kc_debugfs_init(void)
{
	struct dentry *hist;
	unsigned int i;

	kc_render_init();
	kc_dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	if (IS_ERR_OR_NULL(kc_dir))
		return kc_dir ? PTR_ERR(kc_dir) : -ENODEV;
	debugfs_create_file("all", 0400, kc_dir, NULL, &kc_all_fops);
	debugfs_create_file("summary", 0400, kc_dir, NULL, &kc_summary_fops);
	debugfs_create_file("counters", 0400, kc_dir, NULL, &kc_counters_fops);
	debugfs_create_file("probes", 0400, kc_dir, NULL, &kc_probes_fops);
	debugfs_create_file("checks", 0400, kc_dir, NULL, &kc_checks_fops);
	debugfs_create_file("raw", 0400, kc_dir, NULL, &kc_raw_fops);
	debugfs_create_file("memory", 0400, kc_dir, NULL, &kc_memory_fops);
	debugfs_create_file("filter", 0600, kc_dir, NULL, &kc_filter_fops);
	debugfs_create_file("enable", 0600, kc_dir, NULL, &kc_enable_fops);
	debugfs_create_file("reset", 0200, kc_dir, NULL, &kc_reset_fops);
	hist = debugfs_create_dir("hist", kc_dir);
	for (i = 0; i < KC_NR_METRICS; i++)
		debugfs_create_file(kc_metric_name(i), 0400, hist,
				    (void *)(uintptr_t)i, &kc_hist_fops);
	return 0;
}

void kc_debugfs_exit(void)
{
	debugfs_remove_recursive(kc_dir);
	kc_dir = NULL;
}

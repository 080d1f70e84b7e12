// SPDX-License-Identifier: GPL-2.0
/*
 * debugfs.c - the files under /sys/kernel/debug/kvmchurn/: the read-only
 * views (render.c makes their text) and the three controls, filter, enable
 * and reset (control.c says what a write means; the module parameters of the
 * same names, main.c, do the same). A write that is not understood returns
 * -EINVAL and changes nothing.
 *
 * Under lockdown (LOCKDOWN_DEBUGFS, lockdown=integrity and up) debugfs opens
 * a file only for reading, only if it has no ioctl or mmap, and only if its
 * mode is 0444 exactly on kernels before 5.10.94 (debugfs_locked_down():
 * (i_mode & 07777) == 0444), a subset of 0444 from 5.10.94 and 5.17 on
 * ((i_mode & 07777 & ~0444) == 0: 6.1, 6.12, 7.x, which also checks
 * mmap_prepare). So every view is 0444 and has seq_file's fops only: it
 * reads under lockdown on every kernel of the matrix. The controls cannot be
 * opened at all there (even to read: their mode has a write bit); the
 * parameters stand in for them. The folder stays root's: debugfs is mounted
 * 0700.
 */
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "kvmchurn.h"

/* A view: read-only, no ioctl, no mmap, readable under lockdown. */
#define KC_VIEW_MODE	0444

static struct dentry *kc_dir;

typedef int (*kc_show_fn)(struct seq_file *m, struct kc_read *rd);

/* Runs @show with buffers of its own for this read (struct kc_read). */
static int kc_read_show(struct seq_file *m, kc_show_fn show)
{
	struct kc_read *rd = kvmalloc(sizeof(*rd), GFP_KERNEL);
	int err;

	if (!rd)
		return -ENOMEM;
	err = show(m, rd);
	kvfree(rd);
	return err;
}

/* A read-only view: kc_<name>_fops, whose text is kc_show_<name>(). */
#define KC_VIEW(name)							\
static int kc_##name##_show(struct seq_file *m, void *unused)		\
{									\
	return kc_read_show(m, kc_show_##name);				\
}									\
DEFINE_SHOW_ATTRIBUTE(kc_##name)

KC_VIEW(all);
KC_VIEW(summary);
KC_VIEW(counters);
KC_VIEW(probes);
KC_VIEW(checks);
KC_VIEW(raw);
KC_VIEW(memory);

/* vms: its records are copied into buffers of their own (render.c). */
static int kc_show_vms_file(struct seq_file *m, struct kc_read *rd)
{
	return kc_show_vms(m, rd);
}

KC_VIEW(vms_file);

/* hist/<metric>: the metric is the file's private data. */
static int kc_show_hist_file(struct seq_file *m, struct kc_read *rd)
{
	return kc_show_hist(m, (uintptr_t)m->private, rd);
}

KC_VIEW(hist_file);

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

/* A write to a control: kc_control_<name>() of its text. */
static ssize_t kc_control_write(const char __user *ubuf, size_t count,
				int (*control)(const char *text))
{
	char buf[KC_WRITE_MAX];
	int err;

	err = kc_read_write(ubuf, count, buf);
	if (!err)
		err = control(buf);
	return err ? err : count;
}

static int kc_filter_show(struct seq_file *m, void *unused)
{
	char buf[KC_FILTER_MAX_NAMES * KC_COMM_LEN];

	kc_filter_format(buf, sizeof(buf));
	seq_printf(m, "%s\n", buf);
	return 0;
}

static ssize_t kc_filter_write(struct file *file, const char __user *ubuf,
			       size_t count, loff_t *ppos)
{
	return kc_control_write(ubuf, count, kc_control_filter);
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
	return kc_control_write(ubuf, count, kc_control_enable);
}

KC_CONTROL_FOPS(kc_enable);

/* "1": from now on, every count starts from zero. */
static ssize_t kc_reset_write(struct file *file, const char __user *ubuf,
			      size_t count, loff_t *ppos)
{
	return kc_control_write(ubuf, count, kc_control_reset);
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

	kc_dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	if (IS_ERR_OR_NULL(kc_dir))
		return kc_dir ? PTR_ERR(kc_dir) : -ENODEV;
	debugfs_create_file("all", KC_VIEW_MODE, kc_dir, NULL, &kc_all_fops);
	debugfs_create_file("summary", KC_VIEW_MODE, kc_dir, NULL, &kc_summary_fops);
	debugfs_create_file("counters", KC_VIEW_MODE, kc_dir, NULL, &kc_counters_fops);
	debugfs_create_file("probes", KC_VIEW_MODE, kc_dir, NULL, &kc_probes_fops);
	debugfs_create_file("checks", KC_VIEW_MODE, kc_dir, NULL, &kc_checks_fops);
	debugfs_create_file("raw", KC_VIEW_MODE, kc_dir, NULL, &kc_raw_fops);
	debugfs_create_file("memory", KC_VIEW_MODE, kc_dir, NULL, &kc_memory_fops);
	debugfs_create_file("vms", KC_VIEW_MODE, kc_dir, NULL, &kc_vms_file_fops);
	debugfs_create_file("filter", 0600, kc_dir, NULL, &kc_filter_fops);
	debugfs_create_file("enable", 0600, kc_dir, NULL, &kc_enable_fops);
	debugfs_create_file("reset", 0200, kc_dir, NULL, &kc_reset_fops);
	hist = debugfs_create_dir("hist", kc_dir);
	for (i = 0; i < KC_NR_METRICS; i++)
		debugfs_create_file(kc_metric_name(i), KC_VIEW_MODE, hist,
				    (void *)(uintptr_t)i, &kc_hist_file_fops);
	return 0;
}

void kc_debugfs_exit(void)
{
	debugfs_remove_recursive(kc_dir);
	kc_dir = NULL;
}

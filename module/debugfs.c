// SPDX-License-Identifier: GPL-2.0
/*
 * debugfs.c - the files under /sys/kernel/debug/kvmchurn/: the read-only
 * views (views.c, also under /proc/kvmchurn: procfs.c) and the three
 * controls, filter, enable and reset (control.c says what a write means;
 * the module parameters of the same names, main.c, do the same). A write
 * that is not understood returns -EINVAL and changes nothing.
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
#include <linux/uaccess.h>

#include "kvmchurn.h"

static struct dentry *kc_dir;

/* A view (views.c): the file's private data is its struct kc_view. */
static int kc_view_open(struct inode *inode, struct file *file)
{
	const struct kc_view *view = inode->i_private;

	return single_open(file, view->show, NULL);
}

static const struct file_operations kc_view_fops = {
	.owner = THIS_MODULE,
	.open = kc_view_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
};

/* hist/<metric>: the metric is the file's private data. */
static int kc_hist_open(struct inode *inode, struct file *file)
{
	return single_open(file, kc_view_hist, inode->i_private);
}

static const struct file_operations kc_hist_fops = {
	.owner = THIS_MODULE,
	.open = kc_hist_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
};

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

/*
 * The folder, or an error: -EPERM when debugfs is off (debugfs=off,
 * CONFIG_DEBUG_FS_ALLOW_NONE); with debugfs=no-mount it was never
 * registered (-ENOENT; -EPERM on 7.x); -ENODEV without CONFIG_DEBUG_FS. Then
 * /proc/kvmchurn (procfs.c) is the only one.
 */
int kc_debugfs_init(void)
{
	struct dentry *dir, *hist;
	unsigned int i;

	dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	if (IS_ERR_OR_NULL(dir))
		return dir ? PTR_ERR(dir) : -ENODEV;
	kc_dir = dir;
	for (i = 0; i < KC_NR_VIEWS; i++)
		debugfs_create_file(kc_views[i].name, KC_VIEW_MODE, kc_dir,
				    (void *)&kc_views[i], &kc_view_fops);
	debugfs_create_file("filter", 0600, kc_dir, NULL, &kc_filter_fops);
	debugfs_create_file("enable", 0600, kc_dir, NULL, &kc_enable_fops);
	debugfs_create_file("reset", 0200, kc_dir, NULL, &kc_reset_fops);
	hist = debugfs_create_dir("hist", kc_dir);
	for (i = 0; i < KC_NR_METRICS; i++)
		debugfs_create_file(kc_metric_name(i), KC_VIEW_MODE, hist,
				    (void *)(uintptr_t)i, &kc_hist_fops);
	return 0;
}

void kc_debugfs_exit(void)
{
	debugfs_remove_recursive(kc_dir);
	kc_dir = NULL;
}

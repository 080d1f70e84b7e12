// SPDX-License-Identifier: GPL-2.0
/*
 * stall.c - a VMM's teardown held on purpose, for the tests of stalls.
 *
 * Writing a process's pid to hold registers an MMU notifier on its mm. When
 * the process exits, exit_mmap() calls the notifier's release, which waits
 * until 1 is written to release. It waits inside the MMU notifiers' global
 * SRCU read section (mn_hlist_release() in mm/mmu_notifier.c, 5.10 to 7.x),
 * so that meanwhile every other process's mmu_notifier_unregister(), which
 * every VM's kvm_destroy_vm() calls, waits in synchronize_srcu(): one held
 * reader stalls every VM teardown on the host, as in the incident that
 * asked for stall detection. waiting says how many releases wait now.
 *
 * Not part of kvmchurn: a test's module, never installed. At most
 * KS_MAX_HOLDS holds a load; unloading lets every release go first.
 */
#include <linux/atomic.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/mmu_notifier.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/pid.h>
#include <linux/sched/mm.h>
#include <linux/sched/task.h>
#include <linux/uaccess.h>
#include <linux/wait.h>

#define KS_MAX_HOLDS	64

struct ks_hold {
	struct mmu_notifier mn;
	struct mm_struct *mm;	/* kept by mmu_notifier_register() */
};

static struct ks_hold ks_holds[KS_MAX_HOLDS];
static unsigned int ks_nr_holds;	/* under ks_lock */
static DEFINE_MUTEX(ks_lock);
static DECLARE_WAIT_QUEUE_HEAD(ks_wq);
static bool ks_open = true;		/* the gate: a release passes */
static atomic_t ks_waiting = ATOMIC_INIT(0);
static struct dentry *ks_dir;

/*
 * The held process's exit_mmap(): wait at the gate. TASK_IDLE, not plain
 * uninterruptible: a hold that the test itself ends is no hung task, and no
 * load. A fatal signal is pending here, so a killable wait would not wait.
 */
static void ks_release(struct mmu_notifier *mn, struct mm_struct *mm)
{
	atomic_inc(&ks_waiting);
	wait_event_idle(ks_wq, READ_ONCE(ks_open));
	atomic_dec(&ks_waiting);
}

static const struct mmu_notifier_ops ks_ops = {
	.release = ks_release,
};

/* The mm of process @nr, with a reference; NULL if it has none. */
static struct mm_struct *ks_mm_of(pid_t nr)
{
	struct task_struct *t;
	struct mm_struct *mm;
	struct pid *pid;

	pid = find_get_pid(nr);
	t = get_pid_task(pid, PIDTYPE_PID);
	put_pid(pid);
	if (!t)
		return NULL;
	mm = get_task_mm(t);
	put_task_struct(t);
	return mm;
}

/* hold: a pid, whose exit_mmap() will wait at the gate, which closes. */
static ssize_t ks_hold_write(struct file *f, const char __user *buf,
			     size_t len, loff_t *pos)
{
	struct mm_struct *mm;
	struct ks_hold *h;
	int nr, err;

	err = kstrtoint_from_user(buf, len, 10, &nr);
	if (err)
		return err;
	if (nr <= 0)
		return -EINVAL;
	mm = ks_mm_of(nr);
	if (!mm)
		return -ESRCH;
	mutex_lock(&ks_lock);
	if (ks_nr_holds == KS_MAX_HOLDS) {
		err = -ENOSPC;
	} else {
		h = &ks_holds[ks_nr_holds];
		h->mn.ops = &ks_ops;
		err = mmu_notifier_register(&h->mn, mm);
		if (!err) {
			h->mm = mm;
			ks_nr_holds++;
			WRITE_ONCE(ks_open, false);
		}
	}
	mutex_unlock(&ks_lock);
	/* The last reference, if the process exited meanwhile: it waits too. */
	mmput(mm);
	return err ? err : len;
}

/* release: 1 opens the gate; every release waiting goes on. */
static ssize_t ks_release_write(struct file *f, const char __user *buf,
				size_t len, loff_t *pos)
{
	unsigned int v;
	int err;

	err = kstrtouint_from_user(buf, len, 10, &v);
	if (err)
		return err;
	if (v != 1)
		return -EINVAL;
	WRITE_ONCE(ks_open, true);
	wake_up_all(&ks_wq);
	return len;
}

/* waiting: how many held processes wait at the gate now. */
static ssize_t ks_waiting_read(struct file *f, char __user *buf, size_t len,
			       loff_t *pos)
{
	char text[16];
	int n;

	n = scnprintf(text, sizeof(text), "%d\n", atomic_read(&ks_waiting));
	return simple_read_from_buffer(buf, len, pos, text, n);
}

static const struct file_operations ks_hold_fops = {
	.owner = THIS_MODULE,
	.write = ks_hold_write,
	.llseek = noop_llseek,
};

static const struct file_operations ks_release_fops = {
	.owner = THIS_MODULE,
	.write = ks_release_write,
	.llseek = noop_llseek,
};

static const struct file_operations ks_waiting_fops = {
	.owner = THIS_MODULE,
	.read = ks_waiting_read,
	.llseek = default_llseek,
};

static int __init ks_init(void)
{
	ks_dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	if (IS_ERR(ks_dir))
		return PTR_ERR(ks_dir);
	debugfs_create_file("hold", 0200, ks_dir, NULL, &ks_hold_fops);
	debugfs_create_file("release", 0200, ks_dir, NULL, &ks_release_fops);
	debugfs_create_file("waiting", 0400, ks_dir, NULL, &ks_waiting_fops);
	return 0;
}

/*
 * The gate opens before the notifiers go: mmu_notifier_unregister() runs
 * the release of a process that is still alive, and waits for those running
 * (synchronize_srcu()) before this module's text goes.
 */
static void __exit ks_exit(void)
{
	unsigned int i;

	debugfs_remove_recursive(ks_dir);
	WRITE_ONCE(ks_open, true);
	wake_up_all(&ks_wq);
	for (i = 0; i < ks_nr_holds; i++)
		mmu_notifier_unregister(&ks_holds[i].mn, ks_holds[i].mm);
}

module_init(ks_init);
module_exit(ks_exit);
MODULE_DESCRIPTION("kvmchurn's tests: a VMM's teardown held in exit_mmap on purpose");
MODULE_LICENSE("GPL");

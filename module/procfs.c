// SPDX-License-Identifier: GPL-2.0
/*
 * procfs.c - the read-only views again, under /proc/kvmchurn/, for hosts
 * whose debugfs is off: debugfs=off or debugfs=no-mount on the command line,
 * CONFIG_DEBUG_FS_ALLOW_NONE or _DISALLOW_MOUNT, or a container that has
 * /proc and no debugfs. The same files as in debugfs (views.c), the same
 * text; no controls: the module parameters are those (main.c), as under
 * lockdown. A folder of files, not a character device: every view and
 * every reader (cat, the client's -d, a copy with cp -r) works unchanged,
 * procfs is mounted wherever a system runs, and nothing in it is refused
 * by lockdown, even confidentiality.
 *
 * The folder is root's, as debugfs's is (mounted 0700): 0500, with the
 * views 0444 inside.
 */
#include <linux/proc_fs.h>

#include "kvmchurn.h"

#define KC_PROC_DIR_MODE	0500

static struct proc_dir_entry *kc_proc;

int kc_procfs_init(void)
{
	struct proc_dir_entry *hist;
	unsigned int i;

	kc_proc = proc_mkdir_mode(KBUILD_MODNAME, KC_PROC_DIR_MODE, NULL);
	if (!kc_proc)
		return -ENOMEM;
	for (i = 0; i < KC_NR_VIEWS; i++)
		if (!proc_create_single(kc_views[i].name, KC_VIEW_MODE, kc_proc,
					kc_views[i].show))
			goto err;
	hist = proc_mkdir_mode("hist", KC_PROC_DIR_MODE, kc_proc);
	if (!hist)
		goto err;
	for (i = 0; i < KC_NR_METRICS; i++)
		if (!proc_create_single_data(kc_metric_name(i), KC_VIEW_MODE,
					     hist, kc_view_hist,
					     (void *)(uintptr_t)i))
			goto err;
	return 0;

err:
	kc_procfs_exit();
	return -ENOMEM;
}

/* Waits for the readers in a view's show function, as debugfs does. */
void kc_procfs_exit(void)
{
	proc_remove(kc_proc);
	kc_proc = NULL;
}

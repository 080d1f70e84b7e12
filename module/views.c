// SPDX-License-Identifier: GPL-2.0
/*
 * views.c - the read-only views, as seq_file show functions, and their names:
 * the one list that debugfs.c and procfs.c both publish, so the two folders
 * hold the same files with the same text. render.c makes the text.
 */
#include <linux/mm.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include "kvmchurn.h"

typedef int (*kc_render_fn)(struct seq_file *m, struct kc_read *rd);

/* Runs @render with buffers of its own for this read (struct kc_read). */
static int kc_read_render(struct seq_file *m, kc_render_fn render)
{
	struct kc_read *rd = kvmalloc(sizeof(*rd), GFP_KERNEL);
	int err;

	if (!rd)
		return -ENOMEM;
	err = render(m, rd);
	kvfree(rd);
	return err;
}

/* kc_view_<name>(): the view of that name, whose text is kc_show_<name>(). */
#define KC_VIEW(name)							\
static int kc_view_##name(struct seq_file *m, void *unused)		\
{									\
	return kc_read_render(m, kc_show_##name);			\
}

KC_VIEW(all)
KC_VIEW(summary)
KC_VIEW(counters)
KC_VIEW(probes)
KC_VIEW(checks)
KC_VIEW(raw)
KC_VIEW(memory)
KC_VIEW(vms)

const struct kc_view kc_views[KC_NR_VIEWS] = {
	{ "all", kc_view_all },
	{ "summary", kc_view_summary },
	{ "counters", kc_view_counters },
	{ "probes", kc_view_probes },
	{ "checks", kc_view_checks },
	{ "raw", kc_view_raw },
	{ "memory", kc_view_memory },
	{ "vms", kc_view_vms },
};

/* hist/<metric>: the metric is the seq_file's private data. */
static int kc_show_hist_private(struct seq_file *m, struct kc_read *rd)
{
	return kc_show_hist(m, (uintptr_t)m->private, rd);
}

int kc_view_hist(struct seq_file *m, void *unused)
{
	return kc_read_render(m, kc_show_hist_private);
}

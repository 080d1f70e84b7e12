// SPDX-License-Identifier: GPL-2.0
/*
 * debugfs.c - the files under /sys/kernel/debug/kvmchurn/ (root only):
 *   all     every non-empty histogram and counter, as bpftrace prints them
 *   probes  one line a probe: what it is on and how it is doing
 *   raw     the versioned snapshot that the client reads (kvmchurn_abi.h)
 */
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/sort.h>

#include "kvmchurn.h"

static struct dentry *kc_dir;

static void kc_seq_emit(void *ctx, const char *line)
{
	seq_puts(ctx, line);
}

/* A map of the seed script: a histogram or a counter, printed by name. */
struct kc_map {
	char name[48];
	bool is_hist;
	unsigned int index;
};

/* Sorted by name once at load: names depend only on the unit parameter. */
static struct kc_map kc_maps[KC_NR_METRICS + KC_NR_COUNTERS];

static int kc_map_cmp(const void *a, const void *b)
{
	return strcmp(((const struct kc_map *)a)->name,
		      ((const struct kc_map *)b)->name);
}

static void kc_maps_init(void)
{
	unsigned int i, n = 0;

	for (i = 0; i < KC_NR_METRICS; i++, n++) {
		kc_maps[n].is_hist = true;
		kc_maps[n].index = i;
		snprintf(kc_maps[n].name, sizeof(kc_maps[n].name), "@%s_%s",
			 kc_unit_name(), kc_metric_seed(i));
	}
	for (i = 0; i < KC_NR_COUNTERS; i++, n++) {
		kc_maps[n].is_hist = false;
		kc_maps[n].index = i;
		snprintf(kc_maps[n].name, sizeof(kc_maps[n].name), "@n_%s",
			 kc_counter_name(i));
	}
	sort(kc_maps, n, sizeof(kc_maps[0]), kc_map_cmp, NULL);
}

/*
 * bpftrace prints its maps in the order of their names at exit; empty maps
 * (never written) are left out here.
 */
static int kc_all_show(struct seq_file *m, void *unused)
{
	struct kc_hist_snap *snap;
	unsigned int i;

	snap = kmalloc(sizeof(*snap), GFP_KERNEL);
	if (!snap)
		return -ENOMEM;
	for (i = 0; i < ARRAY_SIZE(kc_maps); i++) {
		const struct kc_map *map = &kc_maps[i];

		if (!map->is_hist) {
			u64 v = kc_counter_read(map->index);

			if (v)
				seq_printf(m, "%s: %llu\n", map->name, v);
			continue;
		}
		kc_hist_snapshot(map->index, snap);
		if (!snap->count)
			continue;
		/* bpftrace's header line ends in ": " before the newline. */
		seq_printf(m, "%s: ", map->name);
		seq_putc(m, '\n');
		kc_render_hist(snap->slots, kc_seq_emit, m);
		seq_putc(m, '\n');
	}
	kfree(snap);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(kc_all);

static void kc_probe_info(unsigned int i, struct kc_probe_info *info)
{
	unsigned int nk = kc_kretprobes_count();

	if (i < nk)
		kc_kretprobe_info(i, info);
	else
		kc_tracepoint_info(i - nk, info);
}

static unsigned int kc_nr_probes(void)
{
	return kc_kretprobes_count() + kc_tracepoints_count();
}

/* "attached", "absent", "error -22"... */
static const char *kc_probe_state_str(const struct kc_probe_info *info,
				      char *buf, size_t len)
{
	if (info->state != KC_PROBE_ERROR)
		return kc_probe_state_name(info->state);
	snprintf(buf, len, "error %d", info->err);
	return buf;
}

static int kc_probes_show(struct seq_file *m, void *unused)
{
	struct kc_probe_info info;
	struct kc_pair_stats ps;
	char state[24];
	unsigned int i;

	seq_printf(m, "%-20s %-10s %-28s %-10s %12s %8s\n", "metric", "kind",
		   "symbol", "state", "hits", "missed");
	for (i = 0; i < kc_nr_probes(); i++) {
		kc_probe_info(i, &info);
		seq_printf(m, "%-20s %-10s %-28s %-10s %12llu %8llu\n",
			   kc_metric_name(info.metric), info.kind, info.symbol,
			   kc_probe_state_str(&info, state, sizeof(state)),
			   info.hits, info.missed);
	}
	kc_pairs_stats(&ps);
	seq_printf(m, "pairs: %u of %u in use, %llu dropped, %llu aged out\n",
		   ps.used, ps.capacity, ps.dropped, ps.aged);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(kc_probes);

static void kc_raw_hist(struct seq_file *m, unsigned int metric,
			struct kc_hist_snap *snap)
{
	bool first = true;
	unsigned int i;

	kc_hist_snapshot(metric, snap);
	seq_printf(m, "hist\t%s\t%llu\t%llu\t%llu\t", kc_metric_name(metric),
		   snap->count, snap->sum, snap->max);
	for (i = 0; i < KC_NR_SLOTS; i++) {
		if (!snap->slots[i])
			continue;
		seq_printf(m, "%s%u:%llu", first ? "" : ",", i, snap->slots[i]);
		first = false;
	}
	seq_puts(m, first ? "-\n" : "\n");
}

static int kc_raw_show(struct seq_file *m, void *unused)
{
	struct kc_hist_snap *snap;
	struct kc_probe_info info;
	struct kc_pair_stats ps;
	char filter[256];
	char state[24];
	unsigned int i;

	snap = kmalloc(sizeof(*snap), GFP_KERNEL);
	if (!snap)
		return -ENOMEM;
	kc_filter_format(filter, sizeof(filter));
	seq_printf(m, "%s %d\n", KC_RAW_MAGIC, KC_RAW_VERSION);
	seq_printf(m, "unit\t%s\n", kc_unit_name());
	seq_printf(m, "enabled\t%d\n", READ_ONCE(kc_enabled));
	seq_printf(m, "filter\t%s\n", filter);
	seq_printf(m, "slots\t%d\n", KC_NR_SLOTS);
	for (i = 0; i < KC_NR_METRICS; i++)
		kc_raw_hist(m, i, snap);
	for (i = 0; i < KC_NR_COUNTERS; i++)
		seq_printf(m, "counter\t%s\t%llu\n", kc_counter_name(i),
			   kc_counter_read(i));
	for (i = 0; i < kc_nr_probes(); i++) {
		kc_probe_info(i, &info);
		seq_printf(m, "probe\t%s\t%s\t%s\t%s\t%llu\t%llu\n",
			   kc_metric_name(info.metric), info.kind, info.symbol,
			   kc_probe_state_str(&info, state, sizeof(state)),
			   info.hits, info.missed);
	}
	kc_pairs_stats(&ps);
	seq_printf(m, "pairs\t%u\t%u\t%llu\t%llu\n", ps.capacity, ps.used,
		   ps.dropped, ps.aged);
	kfree(snap);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(kc_raw);

int kc_debugfs_init(void)
{
	kc_maps_init();
	kc_dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	if (IS_ERR_OR_NULL(kc_dir))
		return kc_dir ? PTR_ERR(kc_dir) : -ENODEV;
	debugfs_create_file("all", 0400, kc_dir, NULL, &kc_all_fops);
	debugfs_create_file("probes", 0400, kc_dir, NULL, &kc_probes_fops);
	debugfs_create_file("raw", 0400, kc_dir, NULL, &kc_raw_fops);
	return 0;
}

void kc_debugfs_exit(void)
{
	debugfs_remove_recursive(kc_dir);
	kc_dir = NULL;
}

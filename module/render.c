// SPDX-License-Identifier: GPL-2.0
/*
 * render.c - the text of the read-only debugfs files: bpftrace's format
 * (all, hist/<metric>), the summary, counters, probes, checks and the
 * versioned raw snapshot. Snapshots are taken here, in process context.
 */
#include <linux/cpumask.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/sort.h>

#include "kvmchurn.h"

static void kc_seq_emit(void *ctx, const char *line)
{
	seq_puts(ctx, line);
}

/* One element of a seed map: a histogram or a counter, maybe keyed. */
struct kc_map {
	char map[32];		/* "@us_irqbypass" */
	char key[16];		/* "register", or "" */
	bool is_hist;
	unsigned int index;
	u64 total;		/* filled in when printed */
};

#define KC_NR_MAPS (KC_NR_METRICS + KC_NR_COUNTERS)
static struct kc_map kc_maps[KC_NR_MAPS];

static void kc_map_init(struct kc_map *map, const char *prefix,
			const char *seed, bool is_hist, unsigned int index)
{
	const char *bracket = strchr(seed, '[');
	size_t len = bracket ? bracket - seed : strlen(seed);

	snprintf(map->map, sizeof(map->map), "@%s_%.*s", prefix, (int)len,
		 seed);
	if (bracket)
		snprintf(map->key, sizeof(map->key), "%.*s",
			 (int)(strlen(bracket) - 2), bracket + 1);
	map->is_hist = is_hist;
	map->index = index;
}

void kc_render_init(void)
{
	unsigned int i, n = 0;

	for (i = 0; i < KC_NR_METRICS; i++)
		kc_map_init(&kc_maps[n++], kc_unit_name(), kc_metric_seed(i),
			    true, i);
	for (i = 0; i < KC_NR_COUNTERS; i++)
		kc_map_init(&kc_maps[n++], "n", kc_counter_seed(i), false, i);
}

/*
 * bpftrace prints its maps in the order of their names, and the keys of one
 * map by their total count, smallest first.
 */
static int kc_map_cmp(const void *a, const void *b)
{
	const struct kc_map *x = a, *y = b;
	int c = strcmp(x->map, y->map);

	if (c)
		return c;
	if (x->total != y->total)
		return x->total < y->total ? -1 : 1;
	return strcmp(x->key, y->key);
}

static void kc_show_map_hist(struct seq_file *m, const struct kc_map *map,
			     const struct kc_hist_snap *snap)
{
	/* bpftrace's header line ends in ": " before the newline. */
	if (map->key[0])
		seq_printf(m, "%s[%s]: ", map->map, map->key);
	else
		seq_printf(m, "%s: ", map->map);
	seq_putc(m, '\n');
	kc_render_hist(snap->slots, kc_seq_emit, m);
	seq_putc(m, '\n');
}

/* Every map that recorded something; bpftrace prints an empty line for the rest. */
void kc_show_all(struct seq_file *m, struct kc_hist_snap *snap)
{
	struct kc_map *maps;
	unsigned int i;

	maps = kmemdup(kc_maps, sizeof(kc_maps), GFP_KERNEL);
	if (!maps)
		return;
	for (i = 0; i < KC_NR_MAPS; i++) {
		if (maps[i].is_hist) {
			kc_hist_snapshot(maps[i].index, snap);
			maps[i].total = snap->count;
		} else {
			maps[i].total = kc_counter_read(maps[i].index);
		}
	}
	sort(maps, KC_NR_MAPS, sizeof(maps[0]), kc_map_cmp, NULL);
	for (i = 0; i < KC_NR_MAPS; i++) {
		const struct kc_map *map = &maps[i];

		if (!map->total)
			continue;
		if (map->is_hist) {
			kc_hist_snapshot(map->index, snap);
			kc_show_map_hist(m, map, snap);
		} else if (map->key[0]) {
			seq_printf(m, "%s[%s]: %llu\n", map->map, map->key,
				   map->total);
		} else {
			seq_printf(m, "%s: %llu\n", map->map, map->total);
		}
	}
	kfree(maps);
}

/* The histograms come first in kc_maps, in metric order. */
void kc_show_hist(struct seq_file *m, enum kc_metric metric,
		  struct kc_hist_snap *snap)
{
	kc_hist_snapshot(metric, snap);
	if (snap->count)
		kc_show_map_hist(m, &kc_maps[metric], snap);
}

static unsigned int kc_probes_count(void)
{
	return kc_kretprobes_count() + kc_tracepoints_count();
}

static void kc_probe_info(unsigned int i, struct kc_probe_info *info)
{
	unsigned int nk = kc_kretprobes_count();

	if (i < nk)
		kc_kretprobe_info(i, info);
	else
		kc_tracepoint_info(i - nk, info);
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

/*
 * What stands between a metric and its numbers: the state of its first probe
 * that is not attached ("" when all are); and the calls its kretprobes missed.
 */
static const char *kc_metric_probes(enum kc_metric metric, u64 *missed,
				    char *buf, size_t len)
{
	const char *note = "";
	struct kc_probe_info info;
	unsigned int i;

	*missed = 0;
	for (i = 0; i < kc_probes_count(); i++) {
		kc_probe_info(i, &info);
		if (info.metric != metric)
			continue;
		*missed += info.missed;
		if (!*note && info.state != KC_PROBE_ATTACHED)
			note = kc_probe_state_str(&info, buf, len);
	}
	return note;
}

void kc_show_summary(struct seq_file *m, struct kc_hist_snap *snap)
{
	static const unsigned int pcts[] = { 500, 900, 990 };
	unsigned int i, p;
	char state[24];
	const char *note;
	u64 missed;

	seq_printf(m, "%-21s %9s %11s %11s %11s %11s %11s %8s  %s\n", "metric",
		   "count", "avg", "p50", "p90", "p99", "max", "nmissed",
		   "unit");
	for (i = 0; i < KC_NR_METRICS; i++) {
		note = kc_metric_probes(i, &missed, state, sizeof(state));
		kc_hist_snapshot(i, snap);
		seq_printf(m, "%-21s %9llu", kc_metric_name(i), snap->count);
		if (!snap->count) {
			seq_printf(m, " %11s %11s %11s %11s %11s", "-", "-",
				   "-", "-", "-");
		} else {
			seq_printf(m, " %11llu",
				   div64_u64(snap->sum, snap->count));
			for (p = 0; p < ARRAY_SIZE(pcts); p++)
				seq_printf(m, " %11llu",
					   kc_percentile(snap->slots,
							 snap->count, pcts[p],
							 snap->max));
			seq_printf(m, " %11llu", snap->max);
		}
		seq_printf(m, " %8llu  %s%s%s\n", missed, kc_unit_name(),
			   *note ? "  " : "", note);
	}
}

void kc_show_counters(struct seq_file *m)
{
	unsigned int i;

	for (i = 0; i < KC_NR_COUNTERS; i++)
		seq_printf(m, "%s %llu\n", kc_counter_name(i),
			   kc_counter_read(i));
}

void kc_show_probes(struct seq_file *m)
{
	struct kc_probe_info info;
	struct kc_pair_stats ps;
	char state[24];
	unsigned int i;

	seq_printf(m, "%-21s %-10s %-31s %-18s %12s %8s\n", "metric", "kind",
		   "symbol", "state", "hits", "missed");
	for (i = 0; i < kc_probes_count(); i++) {
		kc_probe_info(i, &info);
		seq_printf(m, "%-21s %-10s %-31s %-18s %12llu %8llu\n",
			   kc_metric_name(info.metric), info.kind, info.symbol,
			   kc_probe_state_str(&info, state, sizeof(state)),
			   info.hits, info.missed);
	}
	kc_pairs_stats(&ps);
	seq_printf(m, "pairs: %u of %u in use, %llu dropped, %llu aged out\n",
		   ps.used, ps.capacity, ps.dropped, ps.aged);
}

/*
 * What the module holds, by allocator. The kretprobe instances are the
 * kprobe core's, allocated for the module's probes when they attach.
 */
void kc_show_memory(struct seq_file *m)
{
	struct kc_mem mem = { 0 };
	unsigned int cpus = num_possible_cpus();

	kc_hist_mem(&mem);
	kc_pairs_mem(&mem);
	kc_filter_mem(&mem);
	kc_kretprobes_mem(&mem);
	kc_tracepoints_mem(&mem);
	seq_printf(m, "possible_cpus %u\n", cpus);
	seq_printf(m, "percpu_per_cpu %zu\n", mem.percpu);
	seq_printf(m, "percpu %zu\n", mem.percpu * cpus);
	seq_printf(m, "slab %zu\n", mem.slab);
	seq_printf(m, "vmalloc %zu\n", mem.vmalloc);
	seq_printf(m, "kretprobe_instances %lu\n", mem.kretprobe_instances);
	seq_printf(m, "kretprobes %zu\n", mem.kretprobes);
	seq_printf(m, "total %zu\n", mem.percpu * cpus + mem.slab +
		   mem.vmalloc + mem.kretprobes);
}

static const char *kc_verdict(bool ok)
{
	return ok ? "OK  " : "WARN";
}

/* The seed script's END checks, with the numbers behind each verdict. */
void kc_show_checks(struct seq_file *m)
{
	u64 exits = kc_counter_read(KC_C_EXIT);
	u64 reaps = kc_counter_read(KC_C_REAP);
	u64 reg = kc_counter_read(KC_C_IRQBYPASS_REGISTER);
	u64 unreg = kc_counter_read(KC_C_IRQBYPASS_UNREGISTER);
	unsigned int pending = kc_pairs_count(KC_PAIR_EXIT);
	struct kc_hist_snap *snap;
	struct kc_probe_info info;
	struct kc_pair_stats ps;
	u64 vms, missed = 0;
	unsigned int i;

	snap = kmalloc(sizeof(*snap), GFP_KERNEL);
	if (!snap)
		return;
	kc_hist_snapshot(KC_M_KVM_CREATE_VM, snap);
	vms = snap->count;
	kfree(snap);

	/* Exits still waiting for their reap are in the pairing table. */
	seq_printf(m, "%s exit = reap: exit %llu, reap %llu, %u not reaped yet\n",
		   kc_verdict(exits <= reaps + pending && reaps <= exits + pending),
		   exits, reaps, pending);

	if (!reg && unreg)
		seq_printf(m, "INFO irqbypass register = unregister: register 0, unregister %llu: this host does not post interrupts (no APICv/AVIC or IOMMU posting), so KVM registers no consumer\n",
			   unreg);
	else
		seq_printf(m, "%s irqbypass register = unregister: register %llu, unregister %llu\n",
			   kc_verdict(reg == unreg), reg, unreg);

	if (!vms)
		seq_puts(m, "OK   irqbypass unregister per VM in 8-11: no VM created\n");
	else
		seq_printf(m, "%s irqbypass unregister per VM in 8-11: %llu for %llu VMs\n",
			   kc_verdict(unreg >= 8 * vms && unreg <= 11 * vms),
			   unreg, vms);

	for (i = 0; i < kc_probes_count(); i++) {
		kc_probe_info(i, &info);
		missed += info.missed;
	}
	seq_printf(m, "%s nmissed = 0: %llu%s\n", kc_verdict(!missed), missed,
		   missed ? " (raise maxactive=)" : "");

	kc_pairs_stats(&ps);
	seq_printf(m, "%s pairing drops = 0: %llu%s\n", kc_verdict(!ps.dropped),
		   ps.dropped, ps.dropped ? " (raise pairs=)" : "");
}

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

void kc_show_raw(struct seq_file *m, struct kc_hist_snap *snap)
{
	struct kc_probe_info info;
	struct kc_pair_stats ps;
	char filter[KC_FILTER_MAX_NAMES * TASK_COMM_LEN];
	char state[24];
	unsigned int i;

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
	for (i = 0; i < kc_probes_count(); i++) {
		kc_probe_info(i, &info);
		seq_printf(m, "probe\t%s\t%s\t%s\t%s\t%llu\t%llu\n",
			   kc_metric_name(info.metric), info.kind, info.symbol,
			   kc_probe_state_str(&info, state, sizeof(state)),
			   info.hits, info.missed);
	}
	kc_pairs_stats(&ps);
	seq_printf(m, "pairs\t%u\t%u\t%llu\t%llu\n", ps.capacity, ps.used,
		   ps.dropped, ps.aged);
}

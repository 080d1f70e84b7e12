// SPDX-License-Identifier: GPL-2.0
/*
 * render.c - the text of the read-only debugfs files: bpftrace's format
 * (all, hist/<metric>), the summary, counters, probes, checks, the
 * versioned raw snapshot and the per-VM records (vms). What a file shows is
 * read once, here, in process context, into the reader's struct kc_read;
 * the rules of the text are kvmchurn_rules.h's, which the client applies too.
 */
#include <linux/cpumask.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/rcupdate.h>
#include <linux/sched/task.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include "kvmchurn.h"

static void kc_seq_emit(void *ctx, const char *line)
{
	seq_puts(ctx, line);
}

/* Every probe's status, once for the whole read. */
static void kc_read_probes(struct kc_read *rd)
{
	unsigned int i;

	for (i = 0; i < KC_NR_KRETPROBES; i++)
		kc_kretprobe_status(i, &rd->probes[i]);
	for (i = 0; i < KC_NR_TRACEPOINTS; i++)
		kc_tracepoint_status(i, &rd->probes[KC_NR_KRETPROBES + i]);
}

static void kc_show_map_hist(struct seq_file *m, const struct kc_map *map,
			     const struct kc_hist_snap *snap)
{
	char label[sizeof(map->map) + sizeof(map->key) + 2];

	/* bpftrace's header line ends in ": " before the newline. */
	kc_map_label(label, sizeof(label), map);
	seq_printf(m, "%s: ", label);
	seq_putc(m, '\n');
	kc_render_hist(snap->slots, kc_seq_emit, m);
	seq_putc(m, '\n');
}

/* Every map that recorded something; bpftrace prints an empty line for the rest. */
int kc_show_all(struct seq_file *m, struct kc_read *rd)
{
	char label[sizeof(rd->maps[0].map) + sizeof(rd->maps[0].key) + 2];
	unsigned int i;

	kc_maps_init(rd->maps, kc_unit_name());
	for (i = 0; i < KC_NR_MAPS; i++) {
		struct kc_map *map = &rd->maps[i];

		if (map->is_hist) {
			kc_hist_snapshot(map->index, &rd->snap);
			map->total = rd->snap.count;
		} else {
			map->total = kc_counter_read(map->index);
		}
	}
	kc_maps_sort(rd->maps, KC_NR_MAPS);
	for (i = 0; i < KC_NR_MAPS; i++) {
		const struct kc_map *map = &rd->maps[i];

		if (!kc_map_printed(map))
			continue;
		if (map->is_hist) {
			kc_hist_snapshot(map->index, &rd->snap);
			kc_show_map_hist(m, map, &rd->snap);
		} else {
			kc_map_label(label, sizeof(label), map);
			seq_printf(m, "%s: %llu\n", label, map->total);
		}
	}
	return 0;
}

/* The histograms come first among the maps, in metric order. */
int kc_show_hist(struct seq_file *m, enum kc_metric metric,
		 struct kc_read *rd)
{
	kc_maps_init(rd->maps, kc_unit_name());
	kc_hist_snapshot(metric, &rd->snap);
	if (rd->snap.count)
		kc_show_map_hist(m, &rd->maps[metric], &rd->snap);
	return 0;
}

int kc_show_summary(struct seq_file *m, struct kc_read *rd)
{
	char cells[KC_SUMMARY_LEN];
	const char *note;
	unsigned int i;

	kc_read_probes(rd);
	kc_summary_head(cells, sizeof(cells));
	seq_printf(m, "%s\n", cells);
	for (i = 0; i < KC_NR_METRICS; i++) {
		note = kc_metric_note(rd->probes, KC_NR_PROBES, i);
		kc_hist_snapshot(i, &rd->snap);
		kc_summary_cells(cells, sizeof(cells), kc_metric_name(i),
				 rd->snap.count, rd->snap.sum, rd->snap.max,
				 rd->snap.slots);
		seq_printf(m, "%s %*llu  %s%s%s\n", cells, KC_SUMMARY_MISSED,
			   kc_metric_missed(rd->probes, KC_NR_PROBES, i),
			   kc_unit_name(), *note ? "  " : "", note);
	}
	return 0;
}

int kc_show_counters(struct seq_file *m, struct kc_read *rd)
{
	unsigned int i;

	for (i = 0; i < KC_NR_COUNTERS; i++)
		seq_printf(m, "%s %llu\n", kc_counter_name(i),
			   kc_counter_read(i));
	return 0;
}

int kc_show_probes(struct seq_file *m, struct kc_read *rd)
{
	struct kc_pair_stats ps;
	unsigned int i;

	kc_read_probes(rd);
	seq_printf(m, "%-*s %-10s %-31s %-18s %12s %8s\n", KC_METRIC_COL,
		   "metric", "kind", "symbol", "state", "hits", "missed");
	for (i = 0; i < KC_NR_PROBES; i++) {
		const struct kc_probe_status *st = &rd->probes[i];

		seq_printf(m, "%-*s %-10s %-31s %-18s %12llu %8llu\n",
			   KC_METRIC_COL, st->metric, st->kind, st->symbol, st->state,
			   st->hits, st->missed);
	}
	kc_pairs_stats(&ps);
	seq_printf(m, "pairs: %u of %u in use, %llu dropped, %llu aged out\n",
		   ps.used, ps.capacity, ps.dropped, ps.aged);
	return 0;
}

/*
 * What the module holds, by allocator. The kretprobe instances are the
 * kprobe core's, allocated for the module's probes when they attach.
 */
int kc_show_memory(struct seq_file *m, struct kc_read *rd)
{
	struct kc_mem mem = { 0 };
	unsigned int cpus = num_possible_cpus();

	kc_hist_mem(&mem);
	kc_pairs_mem(&mem);
	kc_filter_mem(&mem);
	kc_kretprobes_mem(&mem);
	kc_tracepoints_mem(&mem);
	kc_vms_mem(&mem);
	seq_printf(m, "possible_cpus %u\n", cpus);
	seq_printf(m, "percpu_per_cpu %zu\n", mem.percpu);
	seq_printf(m, "percpu %zu\n", mem.percpu * cpus);
	seq_printf(m, "slab %zu\n", mem.slab);
	seq_printf(m, "vmalloc %zu\n", mem.vmalloc);
	seq_printf(m, "kretprobe_instances %lu\n", mem.kretprobe_instances);
	seq_printf(m, "kretprobes %zu\n", mem.kretprobes);
	seq_printf(m, "total %zu\n", mem.percpu * cpus + mem.slab +
		   mem.vmalloc + mem.kretprobes);
	return 0;
}

/* A line of the stalls' text: under a verdict's, indented as its text. */
static void kc_seq_verdict(void *ctx, unsigned int verdict, const char *text)
{
	seq_printf(ctx, "%-4s %s\n",
		   verdict < KC_LINE_UNDER ? kc_verdict_name(verdict) : "",
		   text);
}

/*
 * The live VMs, now, into rd->live (allocated here: vms_live= of them;
 * kc_live_free() frees it); their count, or -ENOMEM. A VM waiting for its
 * parent's reap is shown with the parent, whose wait is what it waits for.
 */
static int kc_live_take(struct kc_read *rd)
{
	struct kc_vms_params p;
	unsigned int i, n;

	kc_vms_params(&p);
	rd->live = kvmalloc_array(p.live, sizeof(*rd->live), GFP_KERNEL);
	if (!rd->live)
		return -ENOMEM;
	n = kc_vms_live_snapshot(rd->live, p.live);
	for (i = 0; i < n; i++) {
		struct kc_live *v = &rd->live[i];
		struct task_struct *t;

		if (v->depth != 1 || v->stage[0] != KC_M_REAP_WAIT)
			continue;
		rcu_read_lock();
		t = pid_task(find_pid_ns(v->tgid, &init_pid_ns), PIDTYPE_PID);
		if (t)
			v->task = rcu_dereference(t->real_parent)->tgid;
		rcu_read_unlock();
	}
	return n;
}

static void kc_live_free(struct kc_read *rd)
{
	kvfree(rd->live);
	rd->live = NULL;
}

/*
 * The stack of live VM @v's task, taken now, in the reader's context:
 * what the task is blocked in while it stalls.
 */
static const struct kc_live_stack *kc_live_stack(void *ctx,
						 const struct kc_live *v)
{
	struct kc_read *rd = ctx;
	struct kc_live_stack *st = &rd->stack;
	struct task_struct *t;
	int i, n;

	st->nr = 0;
	st->source = KC_STACK_NONE;
	rcu_read_lock();
	t = pid_task(find_pid_ns(v->task, &init_pid_ns), PIDTYPE_PID);
	if (t)
		get_task_struct(t);
	rcu_read_unlock();
	if (!t)
		return st;
	n = kc_task_stack(t, rd->entries, KC_STACK_DEPTH);
	put_task_struct(t);
	if (n == -EOPNOTSUPP)
		st->source = KC_STACK_PROC;
	if (n <= 0)
		return st;
	st->source = KC_STACK_KERNEL;
	/* %pB, as /proc/<pid>/stack prints a return address */
	for (i = 0; i < n; i++)
		snprintf(st->frame[i], KC_FRAME_LEN, "%pB",
			 (void *)rd->entries[i]);
	st->nr = n;
	return st;
}

static void kc_live_emit(void *ctx, unsigned int verdict, const char *text)
{
	kc_seq_verdict(((struct kc_read *)ctx)->m, verdict, text);
}

/* The stalls, after the seed's checks: kvmchurn_live.h's lines. */
static int kc_show_stalls(struct seq_file *m, struct kc_read *rd)
{
	const struct kc_stall_out out = {
		.emit = kc_live_emit, .stack = kc_live_stack, .ctx = rd,
		.buf = &rd->text,
	};
	u64 ms = READ_ONCE(kc_stall_ms);
	unsigned int ng;
	int n;

	n = kc_live_take(rd);
	if (n < 0)
		return n;
	rd->m = m;
	ng = kc_stall_groups(rd->live, n,
			     kc_stall_age(ms, kc_unit_nsec()), rd->stalls);
	kc_stalls_render(rd->live, n, rd->stalls, ng, ms, kc_unit_nsec(),
			 &out);
	kc_live_free(rd);
	return 0;
}

/* The seed script's END checks, with the numbers behind each verdict. */
int kc_show_checks(struct seq_file *m, struct kc_read *rd)
{
	struct kc_check_in in = { .pending_exact = true };
	char filter[KC_FILTER_MAX_NAMES * KC_COMM_LEN];
	struct kc_pair_stats ps;
	unsigned int i;

	kc_filter_format(filter, sizeof(filter));
	in.firecracker = kc_filter_firecracker(filter);
	in.exits = kc_counter_read(KC_C_EXIT);
	in.reaps = kc_counter_read(KC_C_REAP);
	in.pending = kc_pairs_count(KC_PAIR_EXIT);
	in.registers = kc_counter_read(KC_C_IRQBYPASS_REGISTER);
	in.unregisters = kc_counter_read(KC_C_IRQBYPASS_UNREGISTER);
	kc_hist_snapshot(KC_M_KVM_CREATE_VM, &rd->snap);
	in.vms = rd->snap.count;
	kc_read_probes(rd);
	in.missed = kc_metric_missed(rd->probes, KC_NR_PROBES, -1);
	kc_pairs_stats(&ps);
	in.dropped = ps.dropped;
	for (i = 0; i < KC_NR_WINDOWS; i++) {
		kc_vms_accounted(i, rd->accounted);
		kc_accounted_stats(rd->accounted, &in.accounted[i]);
	}
	kc_checks_eval(&in, rd->checks);
	for (i = 0; i < KC_NR_CHECKS; i++)
		seq_printf(m, "%-4s %s: %s\n",
			   kc_verdict_name(rd->checks[i].verdict),
			   rd->checks[i].name, rd->checks[i].text);
	return kc_show_stalls(m, rd);
}

static void kc_raw_hist(struct seq_file *m, unsigned int metric,
			struct kc_hist_snap *snap)
{
	bool first = true;
	unsigned int i;

	kc_hist_snapshot(metric, snap);
	seq_printf(m, KC_RAW_HIST "\t%s\t%llu\t%llu\t%llu\t",
		   kc_metric_name(metric), snap->count, snap->sum, snap->max);
	for (i = 0; i < KC_NR_SLOTS; i++) {
		if (!snap->slots[i])
			continue;
		seq_printf(m, "%s%u:%llu", first ? "" : ",", i, snap->slots[i]);
		first = false;
	}
	seq_puts(m, first ? "-\n" : "\n");
}

/* A window's accounted shares: per mille:count, the non-empty ones. */
static void kc_raw_accounted(struct seq_file *m, struct kc_read *rd,
			     enum kc_window w)
{
	bool any = false;
	unsigned int v;

	kc_vms_accounted(w, rd->accounted);
	seq_printf(m, "%s\t", kc_window_desc(w)->tag);
	for (v = 0; v <= KC_PERMILLE; v++) {
		if (!rd->accounted[v])
			continue;
		seq_printf(m, "%s%u:%u", any ? "," : "", v, rd->accounted[v]);
		any = true;
	}
	seq_puts(m, any ? "\n" : "-\n");
}

int kc_show_raw(struct seq_file *m, struct kc_read *rd)
{
	char filter[KC_FILTER_MAX_NAMES * KC_COMM_LEN];
	struct kc_pair_stats ps;
	unsigned int i;

	kc_filter_format(filter, sizeof(filter));
	seq_printf(m, "%s %d\n", KC_RAW_MAGIC, KC_RAW_VERSION);
	seq_printf(m, KC_RAW_UNIT "\t%s\n", kc_unit_name());
	seq_printf(m, KC_RAW_ENABLED "\t%d\n", READ_ONCE(kc_enabled));
	seq_printf(m, KC_RAW_FILTER "\t%s\n", filter);
	seq_printf(m, KC_RAW_SLOTS "\t%d\n", KC_NR_SLOTS);
	for (i = 0; i < KC_NR_METRICS; i++)
		kc_raw_hist(m, i, &rd->snap);
	for (i = 0; i < KC_NR_COUNTERS; i++)
		seq_printf(m, KC_RAW_COUNTER "\t%s\t%llu\n", kc_counter_name(i),
			   kc_counter_read(i));
	kc_read_probes(rd);
	for (i = 0; i < KC_NR_PROBES; i++) {
		const struct kc_probe_status *st = &rd->probes[i];

		seq_printf(m, KC_RAW_PROBE "\t%s\t%s\t%s\t%s\t%llu\t%llu\n",
			   st->metric, st->kind, st->symbol, st->state,
			   st->hits, st->missed);
	}
	kc_pairs_stats(&ps);
	seq_printf(m, KC_RAW_PAIRS "\t%u\t%u\t%llu\t%llu\t%u\n", ps.capacity,
		   ps.used, ps.dropped, ps.aged, kc_pairs_count(KC_PAIR_EXIT));
	for (i = 0; i < KC_NR_WINDOWS; i++)
		kc_raw_accounted(m, rd, i);
	return 0;
}

/* Which release ran a VM's destroy, as the td record says it. */
static const char *kc_destroyed_by(u32 flags)
{
	if (flags & KC_VM_DESTROY_BY_VM)
		return KC_VMS_BY_VM;
	if (flags & KC_VM_DESTROY_BY_VCPU)
		return KC_VMS_BY_VCPU;
	if (flags & KC_VM_DESTROY_BY_OTHER)
		return KC_VMS_BY_OTHER;
	return KC_VMS_ABSENT;
}

/* The teardown's parts' places, on the line after the VM's record. */
static void kc_show_vm_td(struct seq_file *m, const struct kc_vm *vm)
{
	u32 nsec;
	u64 sec = div_u64_rem(vm->td_began, NSEC_PER_SEC, &nsec);
	unsigned int i;

	seq_printf(m, KC_VMS_TD "\t%llu.%09u\t%s\t%llu\t%llu", sec, nsec,
		   kc_destroyed_by(vm->flags), vm->td_notified, vm->td_reaped);
	for (i = 0; i < KC_NR_TD_PARTS; i++)
		seq_printf(m, "\t%llu:%llu", vm->td_first[i],
			   vm->td_before_exit[i]);
	seq_putc(m, '\n');
}

/* The start-up's parts' places, on a line after the VM's record. */
static void kc_show_vm_st(struct seq_file *m, const struct kc_vm *vm)
{
	unsigned int i;

	seq_puts(m, KC_VMS_ST);
	for (i = 0; i < KC_NR_ST_PARTS; i++)
		seq_printf(m, "\t%llu", vm->st_first[i]);
	seq_putc(m, '\n');
}

static void kc_show_vm(struct seq_file *m, const char *list,
		       const struct kc_vm *vm)
{
	u32 nsec;
	u64 sec = div_u64_rem(vm->created, NSEC_PER_SEC, &nsec);
	unsigned int i;

	seq_printf(m, KC_VMS_VM "\t%s\t%d\t%s\t%llu.%09u", list, vm->tgid,
		   vm->comm, sec, nsec);
	for (i = 0; i < KC_NR_METRICS; i++) {
		if (vm->count[i])
			seq_printf(m, "\t%u:%llu", vm->count[i], vm->sum[i]);
		else
			seq_puts(m, "\t" KC_VMS_ABSENT);
	}
	seq_putc(m, '\n');
	if (vm->flags & KC_VM_STARTED)
		kc_show_vm_st(m, vm);
	if (vm->flags & KC_VM_TORN_DOWN)
		kc_show_vm_td(m, vm);
}

/* A CLOCK_REALTIME time as the vms file gives it. */
static void kc_show_real(struct seq_file *m, u64 ns)
{
	u32 nsec;
	u64 sec = div_u64_rem(ns, NSEC_PER_SEC, &nsec);

	seq_printf(m, "\t%llu.%09u", sec, nsec);
}

/* A live VM's record, and after a stalled one's, its task's stack. */
static void kc_show_live(struct seq_file *m, struct kc_read *rd,
			 const struct kc_live *v, u64 stall)
{
	const struct kc_live_stack *st;
	char *stage = rd->text.stage;
	unsigned int i;

	kc_live_stage_text(stage, sizeof(rd->text.stage), v, KC_VMS_STAGE_SEP);
	seq_printf(m, KC_VMS_LIVE "\t%d\t%s", v->tgid, v->comm);
	kc_show_real(m, v->created);
	seq_printf(m, "\t%s\t%s\t%d", kc_live_window_name(v->window), stage,
		   v->task);
	if (v->depth)
		kc_show_real(m, v->since);
	else
		seq_puts(m, "\t" KC_VMS_ABSENT);
	seq_printf(m, "\t%llu\n", v->age);
	if (!kc_live_stalled(v, stall))
		return;
	st = kc_live_stack(rd, v);
	seq_printf(m, KC_VMS_STACK "\t%s", kc_stack_source_name(st->source));
	for (i = 0; i < st->nr; i++)
		seq_printf(m, "\t%s", st->frame[i]);
	seq_putc(m, '\n');
}

/* The live VMs, after the finished ones. */
static int kc_show_vms_live(struct seq_file *m, struct kc_read *rd)
{
	u64 stall = kc_stall_age(READ_ONCE(kc_stall_ms), kc_unit_nsec());
	int i, n;

	n = kc_live_take(rd);
	if (n < 0)
		return n;
	for (i = 0; i < n; i++)
		kc_show_live(m, rd, &rd->live[i], stall);
	kc_live_free(rd);
	return 0;
}

int kc_show_vms(struct seq_file *m, struct kc_read *rd)
{
	struct kc_vms_params p;
	struct kc_vms_stats st;
	unsigned int i, nlast, nslow;
	struct kc_vm *vms;

	kc_vms_params(&p);
	vms = kvmalloc_array(p.last + p.slowest, sizeof(*vms), GFP_KERNEL);
	if (!vms)
		return -ENOMEM;
	kc_vms_snapshot(vms, &nlast, &nslow, &st);
	seq_printf(m, "%s %d\n", KC_VMS_MAGIC, KC_VMS_VERSION);
	seq_printf(m, KC_VMS_UNIT "\t%s\n", kc_unit_name());
	seq_printf(m, KC_VMS_PARAMS "\t%u\t%u\t%u\t%u\n", p.last, p.slowest,
		   p.live, READ_ONCE(kc_stall_ms));
	seq_printf(m, KC_VMS_STATS "\t%llu\t%llu\t%llu\t%u\n", st.finished,
		   st.last_evicted, st.live_evicted, st.live);
	seq_puts(m, KC_VMS_FIELDS "\tlist\ttgid\tcomm\tcreated");
	for (i = 0; i < KC_NR_METRICS; i++)
		seq_printf(m, "\t%s", kc_metric_name(i));
	seq_puts(m, "\n" KC_VMS_TD_FIELDS "\tbegan\tdestroyed_by\tnotified\treaped");
	for (i = 0; i < KC_NR_TD_PARTS; i++)
		seq_printf(m, "\t%s", kc_metric_name(KC_TD_METRIC(i)));
	seq_puts(m, "\n" KC_VMS_ST_FIELDS);
	for (i = 0; i < KC_NR_ST_PARTS; i++)
		seq_printf(m, "\t%s", kc_metric_name(KC_ST_METRIC(i)));
	seq_puts(m, "\n" KC_VMS_LIVE_FIELDS
		 "\ttgid\tcomm\tcreated\twindow\tstage\ttask\tsince\tage\n");
	for (i = 0; i < nlast; i++)
		kc_show_vm(m, KC_VMS_LAST, &vms[i]);
	for (i = 0; i < nslow; i++)
		kc_show_vm(m, KC_VMS_SLOWEST, &vms[nlast + i]);
	kvfree(vms);
	return kc_show_vms_live(m, rd);
}

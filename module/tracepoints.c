// SPDX-License-Identifier: GPL-2.0
/*
 * tracepoints.c - the tracepoint probes: signal_to_exit, exit_to_reap and
 * the reclaim stalls, each a start event paired with its end event through
 * the pairing table, and the signal and exit counters.
 *
 * Tracepoints are found by name with for_each_kernel_tracepoint() and
 * attached with tracepoint_probe_register(). A probe is registered as a
 * void *, so each one's prototype is checked here at build time against the
 * kernel's own register_trace_<name>() inline.
 */
#include <linux/percpu.h>
#include <linux/sched/signal.h>
#include <linux/timekeeping.h>
#include <linux/tracepoint.h>
#include <trace/events/sched.h>
#include <trace/events/signal.h>
#include <trace/events/vmscan.h>

#include "compat.h"
#include "kvmchurn.h"

struct kc_tp {
	const char *name;	/* the table's */
	enum kc_metric metric;
	void *probe;
	struct tracepoint *tp;
	enum kc_probe_state state;
	int err;
	u64 __percpu *hits;
	u64 base_hits;
};

static void kc_tp_signal_deliver(void *data, int sig,
				 struct kernel_siginfo *info,
				 struct k_sigaction *ka);
static void kc_tp_sched_process_exit(KC_SCHED_PROCESS_EXIT_PROTO);
static void kc_tp_sched_process_free(void *data, struct task_struct *p);
static void kc_tp_mm_vmscan_direct_reclaim_begin(KC_RECLAIM_BEGIN_PROTO);
static void kc_tp_mm_vmscan_direct_reclaim_end(KC_RECLAIM_END_PROTO);
static void kc_tp_mm_vmscan_memcg_reclaim_begin(KC_RECLAIM_BEGIN_PROTO);
static void kc_tp_mm_vmscan_memcg_reclaim_end(KC_RECLAIM_END_PROTO);

KC_TP_TYPECHECK(signal_deliver, kc_tp_signal_deliver);
KC_TP_TYPECHECK(sched_process_exit, kc_tp_sched_process_exit);
KC_TP_TYPECHECK(sched_process_free, kc_tp_sched_process_free);
KC_TP_TYPECHECK(mm_vmscan_direct_reclaim_begin, kc_tp_mm_vmscan_direct_reclaim_begin);
KC_TP_TYPECHECK(mm_vmscan_direct_reclaim_end, kc_tp_mm_vmscan_direct_reclaim_end);
KC_TP_TYPECHECK_MEMCG(mm_vmscan_memcg_reclaim_begin, kc_tp_mm_vmscan_memcg_reclaim_begin);
KC_TP_TYPECHECK_MEMCG(mm_vmscan_memcg_reclaim_end, kc_tp_mm_vmscan_memcg_reclaim_end);

/* One per row of KC_TRACEPOINTS, its handler named after the tracepoint. */
#define KC_TP_ROW(id, m, tp) \
	[KC_TP_##id] = { .metric = KC_M_##m, .probe = kc_tp_##tp },

static struct kc_tp kc_tps[KC_NR_TRACEPOINTS] = {
	KC_TRACEPOINTS(KC_TP_ROW)
};

/*
 * A hit, preemption off: a plain per-CPU add (this_cpu_inc() is an
 * exclusive loop on arm64), since no tracepoint here fires in two contexts
 * of one CPU at once (task context, or for sched_process_free an RCU
 * callback). @preemptible: whether the tracepoint leaves preemption on
 * (compat.h).
 */
static __always_inline void kc_tp_count_hit(unsigned int id)
{
	__this_cpu_inc(*kc_tps[id].hits);
}

static __always_inline void kc_tp_hit(unsigned int id, bool preemptible)
{
	kc_tp_preempt_disable(preemptible);
	kc_tp_count_hit(id);
	kc_tp_preempt_enable(preemptible);
}

/* The group is dying of a signal: its exit code's signal (WTERMSIG) is set. */
static bool kc_group_killed(struct task_struct *t)
{
	return READ_ONCE(t->signal->group_exit_code) & 0x7f;
}

/*
 * The first SIGTERM or SIGKILL delivered to a traced process starts
 * signal_to_exit. A fatal signal reaches every thread as SIGKILL, and so
 * does the process's own exit_group(): only a group that dies from a signal
 * (group_exit_code holds its number) was signalled. A default-action SIGTERM
 * is fatal, so it is seen, and counted, as SIGKILL.
 */
static void kc_tp_signal_deliver(void *data, int sig,
				 struct kernel_siginfo *info,
				 struct k_sigaction *ka)
{
	kc_tp_hit(KC_TP_SIGNAL_DELIVER, KC_TP_PREEMPTIBLE);
	if ((sig != SIGKILL && sig != SIGTERM) || !READ_ONCE(kc_enabled) ||
	    !kc_filter_match(current))
		return;
	if (sig == SIGKILL && !kc_group_killed(current))
		return;
	if (kc_pair_add(KC_PAIR_SIGNAL, current->tgid, kc_now(), false) !=
	    KC_PAIR_ADDED)
		return;
	kc_count(sig == SIGKILL ? KC_C_SIGKILL : KC_C_SIGTERM);
}

/*
 * A traced leader starts to exit: counted, its signal_to_exit ends, and when
 * it started to exit is kept, by pid, until it is freed.
 */
static noinline void kc_leader_exits(void)
{
	struct task_struct *p = current;
	u64 now = kc_now(), start;

	kc_count(KC_C_EXIT);
	/* The signal entry stays until the free, so later threads are not first. */
	if (kc_pair_get(KC_PAIR_SIGNAL, p->tgid, KC_PAIR_CLAIM, &start)) {
		u64 v = kc_to_unit(now > start ? now - start : 0);

		kc_hist_record(KC_M_SIGNAL_TO_EXIT, v);
		kc_vm_stage_tgid(p->tgid, KC_M_SIGNAL_TO_EXIT, v);
	}
	kc_pair_add(KC_PAIR_EXIT, p->pid, now, true);
}

/*
 * Runs in every exiting task on the host, with p current (do_exit()): the
 * filter's answer is kept for exit_files, which asks next. The hit and the
 * memo share one stretch with preemption off, which 7.0's tracepoints no
 * longer guarantee. The work takes current, so that this path keeps
 * nothing across the memo.
 */
static void kc_tp_sched_process_exit(KC_SCHED_PROCESS_EXIT_PROTO)
{
	bool traced;

	kc_tp_preempt_disable(KC_TP_PREEMPTIBLE);
	kc_tp_count_hit(KC_TP_SCHED_PROCESS_EXIT);
	traced = READ_ONCE(kc_enabled) && thread_group_leader(p) &&
		 kc_filter_exiting();
	kc_tp_preempt_enable(KC_TP_PREEMPTIBLE);
	if (traced)
		kc_leader_exits();
}

/*
 * Whether the process of a leader being freed may hold anything: asked
 * inline, without a lookup, since nearly no process on the host does (the
 * lookups of kc_leader_freed() ask the same each, before they look).
 */
static __always_inline bool kc_leader_may_hold(pid_t tgid)
{
	return !kc_pair_none(KC_PAIR_SIGNAL) || !kc_pair_none(KC_PAIR_EXIT) ||
	       !kc_pair_none(KC_PAIR_FILES) || !kc_vms_none_of(tgid);
}

/*
 * What a freed leader's process held ends: its signal entry, its threads'
 * longest exit_files, its exit_to_reap, its VMs' records. Whatever enable or
 * the filter say now, so that no entry or record outlives its process.
 */
static noinline void kc_leader_freed(struct task_struct *p)
{
	u64 start, v;

	kc_pair_get(KC_PAIR_SIGNAL, p->tgid, KC_PAIR_TAKE, NULL);
	if (kc_pair_take_max(KC_PAIR_FILES, p->tgid, &v) &&
	    READ_ONCE(kc_enabled)) {
		kc_hist_record(KC_M_EXIT_FILES, v);
		kc_vm_stage_tgid(p->tgid, KC_M_EXIT_FILES, v);
	}
	if (kc_pair_get(KC_PAIR_EXIT, p->pid, KC_PAIR_TAKE, &start) &&
	    READ_ONCE(kc_enabled)) {
		v = kc_to_unit(kc_since(start));
		kc_count(KC_C_REAP);
		kc_hist_record(KC_M_EXIT_TO_REAP, v);
		kc_vm_stage_tgid(p->tgid, KC_M_EXIT_TO_REAP, v);
	}
	kc_vm_reaped(p->tgid);
}

/*
 * Runs from an RCU callback for every task on the host: keep it short. Only
 * a leader's free ends anything (an exit entry is a leader's, by its pid),
 * and the leader goes last: its threads have all been through exit_files,
 * and its VMs' records are complete.
 */
static void kc_tp_sched_process_free(void *data, struct task_struct *p)
{
	kc_tp_hit(KC_TP_SCHED_PROCESS_FREE, KC_TP_PREEMPTIBLE_BH);
	if (p->pid == p->tgid && kc_leader_may_hold(p->tgid))
		kc_leader_freed(p);
}

static void kc_reclaim_begin(unsigned int id, enum kc_pair_kind kind)
{
	kc_tp_hit(id, KC_TP_PREEMPTIBLE);
	if (READ_ONCE(kc_enabled) && kc_filter_match(current))
		kc_pair_add(kind, current->pid, kc_now(), true);
}

static void kc_reclaim_end(unsigned int id, enum kc_pair_kind kind,
			   enum kc_metric metric)
{
	u64 start, v;

	kc_tp_hit(id, KC_TP_PREEMPTIBLE);
	if (!kc_pair_get(kind, current->pid, KC_PAIR_TAKE, &start) ||
	    !READ_ONCE(kc_enabled))
		return;
	v = kc_to_unit(kc_since(start));
	kc_hist_record(metric, v);
	kc_vm_stage_tgid(current->tgid, metric, v);
}

static void kc_tp_mm_vmscan_direct_reclaim_begin(KC_RECLAIM_BEGIN_PROTO)
{
	kc_reclaim_begin(KC_TP_DIRECT_BEGIN, KC_PAIR_RECLAIM_DIRECT);
}

static void kc_tp_mm_vmscan_direct_reclaim_end(KC_RECLAIM_END_PROTO)
{
	kc_reclaim_end(KC_TP_DIRECT_END, KC_PAIR_RECLAIM_DIRECT,
		       KC_M_RECLAIM_DIRECT);
}

static void kc_tp_mm_vmscan_memcg_reclaim_begin(KC_RECLAIM_BEGIN_PROTO)
{
	kc_reclaim_begin(KC_TP_MEMCG_BEGIN, KC_PAIR_RECLAIM_MEMCG);
}

static void kc_tp_mm_vmscan_memcg_reclaim_end(KC_RECLAIM_END_PROTO)
{
	kc_reclaim_end(KC_TP_MEMCG_END, KC_PAIR_RECLAIM_MEMCG,
		       KC_M_RECLAIM_MEMCG);
}

static void kc_tp_lookup(struct tracepoint *tp, void *priv)
{
	unsigned int i;

	for (i = 0; i < KC_NR_TRACEPOINTS; i++)
		if (!strcmp(tp->name, kc_tps[i].name))
			kc_tps[i].tp = tp;
}

void kc_tracepoints_exit(void)
{
	bool synced = false;
	unsigned int i;

	for (i = 0; i < KC_NR_TRACEPOINTS; i++) {
		struct kc_tp *t = &kc_tps[i];

		if (t->state == KC_PROBE_ATTACHED) {
			tracepoint_probe_unregister(t->tp, t->probe, NULL);
			synced = true;
		}
		t->state = KC_PROBE_OFF;
	}
	/* No probe may still be running when the module text goes away. */
	if (synced)
		tracepoint_synchronize_unregister();
	for (i = 0; i < KC_NR_TRACEPOINTS; i++) {
		free_percpu(kc_tps[i].hits);
		kc_tps[i].hits = NULL;
	}
}

int kc_tracepoints_init(void)
{
	unsigned int i;

	for (i = 0; i < KC_NR_TRACEPOINTS; i++) {
		kc_tps[i].name = kc_probe_desc(KC_NR_KRETPROBES + i)->symbols[0];
		kc_tps[i].hits = alloc_percpu(u64);
		if (!kc_tps[i].hits) {
			kc_tracepoints_exit();
			return -ENOMEM;
		}
	}
	for_each_kernel_tracepoint(kc_tp_lookup, NULL);
	for (i = 0; i < KC_NR_TRACEPOINTS; i++) {
		struct kc_tp *t = &kc_tps[i];

		if (!t->tp) {
			t->state = KC_PROBE_ABSENT;
			t->err = -ENOENT;
			continue;
		}
		t->err = tracepoint_probe_register(t->tp, t->probe, NULL);
		t->state = t->err ? KC_PROBE_ERROR : KC_PROBE_ATTACHED;
		if (t->err)
			pr_warn("%s: cannot attach to tracepoint %s: error %d\n",
				kc_metric_name(t->metric), t->name, t->err);
	}
	return 0;
}

unsigned int kc_tracepoints_count(void)
{
	return KC_NR_TRACEPOINTS;
}

static u64 kc_tp_hits(const struct kc_tp *t)
{
	return kc_percpu_sum(t->hits);
}

void kc_tracepoint_status(unsigned int i, struct kc_probe_status *st)
{
	const struct kc_probe_desc *desc = kc_probe_desc(KC_NR_KRETPROBES + i);
	const struct kc_tp *t = &kc_tps[i];

	strscpy(st->metric, kc_metric_name(t->metric), sizeof(st->metric));
	st->m = t->metric;
	strscpy(st->kind, desc->kind, sizeof(st->kind));
	strscpy(st->symbol, desc->symbols[0], sizeof(st->symbol));
	kc_probe_state_text(st->state, sizeof(st->state), t->state, t->err);
	st->hits = kc_tp_hits(t) - READ_ONCE(t->base_hits);
	/* A tracepoint probe cannot miss an event. */
	st->missed = 0;
}

void kc_tracepoints_mem(struct kc_mem *mem)
{
	mem->percpu += KC_NR_TRACEPOINTS * sizeof(u64);
}

/* Called with the reset lock held (debugfs.c). */
void kc_tracepoints_reset(void)
{
	unsigned int i;

	for (i = 0; i < KC_NR_TRACEPOINTS; i++)
		WRITE_ONCE(kc_tps[i].base_hits, kc_tp_hits(&kc_tps[i]));
}

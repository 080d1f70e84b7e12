// SPDX-License-Identifier: GPL-2.0
/*
 * tracepoints.c - the tracepoint probes: exit_to_reap, from a leader's
 * sched_process_exit to its sched_process_free.
 *
 * Tracepoints are found by name with for_each_kernel_tracepoint() and
 * attached with tracepoint_probe_register(). A probe is registered as a
 * void *, so each one's prototype is checked here at build time against the
 * kernel's own register_trace_<name>() inline.
 */
#include <linux/build_bug.h>
#include <linux/percpu.h>
#include <linux/sched/signal.h>
#include <linux/timekeeping.h>
#include <linux/tracepoint.h>
#include <trace/events/sched.h>

#include "compat.h"
#include "kvmchurn.h"

/* Fails the build if @probe does not have the type that @event expects. */
#define KC_TP_TYPECHECK(event, probe)					\
	static_assert(__builtin_types_compatible_p(			\
		typeof(register_trace_##event) *,			\
		int (*)(typeof(probe) *, void *)),			\
		"prototype of " #probe " does not match " #event)

struct kc_tp {
	const char *name;
	enum kc_metric metric;
	void *probe;
	struct tracepoint *tp;
	enum kc_probe_state state;
	int err;
	u64 __percpu *hits;
};

static void kc_tp_sched_process_exit(KC_SCHED_PROCESS_EXIT_PROTO);
static void kc_tp_sched_process_free(void *data, struct task_struct *p);

KC_TP_TYPECHECK(sched_process_exit, kc_tp_sched_process_exit);
KC_TP_TYPECHECK(sched_process_free, kc_tp_sched_process_free);

enum { KC_TP_SCHED_PROCESS_EXIT, KC_TP_SCHED_PROCESS_FREE, KC_NR_TPS };

static struct kc_tp kc_tps[KC_NR_TPS] = {
	[KC_TP_SCHED_PROCESS_EXIT] = {
		.name = "sched_process_exit",
		.metric = KC_M_EXIT_TO_REAP,
		.probe = kc_tp_sched_process_exit,
	},
	[KC_TP_SCHED_PROCESS_FREE] = {
		.name = "sched_process_free",
		.metric = KC_M_EXIT_TO_REAP,
		.probe = kc_tp_sched_process_free,
	},
};

/* The leader starts to exit: remember when, by pid, until it is freed. */
static void kc_tp_sched_process_exit(KC_SCHED_PROCESS_EXIT_PROTO)
{
	this_cpu_inc(*kc_tps[KC_TP_SCHED_PROCESS_EXIT].hits);
	if (!READ_ONCE(kc_enabled) || !thread_group_leader(p) ||
	    !kc_filter_match(p))
		return;
	kc_count(KC_C_EXIT);
	kc_pair_insert(KC_PAIR_EXIT, p->pid, ktime_get_ns());
}

/* Runs from an RCU callback for every task on the host: keep it short. */
static void kc_tp_sched_process_free(void *data, struct task_struct *p)
{
	u64 start;

	this_cpu_inc(*kc_tps[KC_TP_SCHED_PROCESS_FREE].hits);
	if (!kc_pair_take(KC_PAIR_EXIT, p->pid, &start))
		return;
	if (!READ_ONCE(kc_enabled))
		return;
	kc_count(KC_C_REAP);
	kc_hist_record(KC_M_EXIT_TO_REAP, kc_to_unit(ktime_get_ns() - start));
}

static void kc_tp_lookup(struct tracepoint *tp, void *priv)
{
	unsigned int i;

	for (i = 0; i < KC_NR_TPS; i++)
		if (!strcmp(tp->name, kc_tps[i].name))
			kc_tps[i].tp = tp;
}

void kc_tracepoints_exit(void)
{
	bool synced = false;
	unsigned int i;

	for (i = 0; i < KC_NR_TPS; i++) {
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
	for (i = 0; i < KC_NR_TPS; i++) {
		free_percpu(kc_tps[i].hits);
		kc_tps[i].hits = NULL;
	}
}

int kc_tracepoints_init(void)
{
	unsigned int i;

	for (i = 0; i < KC_NR_TPS; i++) {
		kc_tps[i].hits = alloc_percpu(u64);
		if (!kc_tps[i].hits) {
			kc_tracepoints_exit();
			return -ENOMEM;
		}
	}
	for_each_kernel_tracepoint(kc_tp_lookup, NULL);
	for (i = 0; i < KC_NR_TPS; i++) {
		struct kc_tp *t = &kc_tps[i];

		if (!t->tp) {
			t->state = KC_PROBE_ABSENT;
			t->err = -ENOENT;
		} else {
			t->err = tracepoint_probe_register(t->tp, t->probe, NULL);
			t->state = t->err ? KC_PROBE_ERROR : KC_PROBE_ATTACHED;
		}
		if (t->state != KC_PROBE_ATTACHED)
			pr_warn("%s: cannot attach to tracepoint %s: error %d\n",
				kc_metric_name(t->metric), t->name, t->err);
	}
	return 0;
}

unsigned int kc_tracepoints_count(void)
{
	return KC_NR_TPS;
}

void kc_tracepoint_info(unsigned int i, struct kc_probe_info *info)
{
	const struct kc_tp *t = &kc_tps[i];
	int cpu;

	info->metric = t->metric;
	info->kind = "tracepoint";
	info->symbol = t->name;
	info->state = t->state;
	info->err = t->err;
	info->hits = 0;
	for_each_possible_cpu(cpu)
		info->hits += *per_cpu_ptr(t->hits, cpu);
	/* A tracepoint probe cannot miss an event. */
	info->missed = 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * tracepoints.c - the tracepoint probes, attached, and the reclaim stalls,
 * each a begin paired with its end through the pairing table. The exit
 * path's handlers (signal_deliver, sched_process_exit and _free) are
 * exit.c's.
 *
 * Tracepoints are found by name with for_each_kernel_tracepoint() and
 * attached with tracepoint_probe_register(). A probe is registered as a
 * void *, so each one's prototype is checked here at build time against the
 * kernel's own register_trace_<name>() inline.
 */
#include <linux/percpu.h>
#include <linux/tracepoint.h>
#include <trace/events/vmscan.h>

#include "exit.h"

struct kc_tp {
	const char *name;	/* the table's */
	enum kc_metric metric;
	void *probe;
	struct tracepoint *tp;
	enum kc_probe_state state;
	int err;
	u64 base_hits;
};

static void kc_tp_mm_vmscan_direct_reclaim_begin(KC_RECLAIM_BEGIN_PROTO);
static void kc_tp_mm_vmscan_direct_reclaim_end(KC_RECLAIM_END_PROTO);
static void kc_tp_mm_vmscan_memcg_reclaim_begin(KC_RECLAIM_BEGIN_PROTO);
static void kc_tp_mm_vmscan_memcg_reclaim_end(KC_RECLAIM_END_PROTO);

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

/* Each tracepoint's hits (kc_tp_hit()), apart: exit.c counts them too. */
u64 __percpu *kc_tp_hits[KC_NR_TRACEPOINTS];

static void kc_reclaim_begin(enum kc_tp_id id, enum kc_pair_kind kind)
{
	kc_tp_hit(id, KC_TP_PREEMPTIBLE);
	if (kc_traced())
		kc_pair_add(kind, current->pid, kc_now(), true);
}

static void kc_reclaim_end(enum kc_tp_id id, enum kc_pair_kind kind,
			   enum kc_metric metric)
{
	u64 start;

	kc_tp_hit(id, KC_TP_PREEMPTIBLE);
	if (kc_pair_get(kind, current->pid, KC_PAIR_TAKE, &start) &&
	    READ_ONCE(kc_enabled))
		kc_record(metric, kc_to_unit(kc_since(start)), KC_VM_BY_TGID,
			  current->tgid);
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
		free_percpu(kc_tp_hits[i]);
		kc_tp_hits[i] = NULL;
	}
}

int kc_tracepoints_init(void)
{
	unsigned int i;

	for (i = 0; i < KC_NR_TRACEPOINTS; i++) {
		kc_tps[i].name = kc_probe_desc(KC_NR_KRETPROBES + i)->symbols[0];
		kc_tp_hits[i] = alloc_percpu(u64);
		if (!kc_tp_hits[i]) {
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

static u64 kc_tp_hits_sum(unsigned int i)
{
	return kc_percpu_sum(kc_tp_hits[i]);
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
	st->hits = kc_tp_hits_sum(i) - READ_ONCE(t->base_hits);
	/* A tracepoint probe cannot miss an event. */
	st->missed = 0;
}

void kc_tracepoints_mem(struct kc_mem *mem)
{
	mem->percpu += KC_NR_TRACEPOINTS * sizeof(u64);
}

/* Called with the reset lock held (control.c). */
void kc_tracepoints_reset(void)
{
	unsigned int i;

	for (i = 0; i < KC_NR_TRACEPOINTS; i++)
		WRITE_ONCE(kc_tps[i].base_hits, kc_tp_hits_sum(i));
}

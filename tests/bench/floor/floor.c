// SPDX-License-Identifier: GPL-2.0
/*
 * floor.c - make bench's configuration F: the probes kvmchurn attaches, with
 * handlers that return at once. What F costs over nothing loaded is the
 * kernel's probe mechanism; what kvmchurn costs over F is its handlers.
 *
 * kretprobes= names the kretprobes' symbols, repeats and all, as kvmchurn's
 * `raw` lists the attached ones (the bench reads them from a round of
 * kvmchurn in the same boot, so that F attaches exactly where it did); the
 * tracepoints are kvmchurn's table's, each with an empty probe of its own
 * prototype. Not part of kvmchurn: a benchmark's module, never installed.
 */
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include <trace/events/sched.h>
#include <trace/events/signal.h>
#include <trace/events/vmscan.h>

#include "compat.h"
#include "kvmchurn_abi.h"

#define KF_MAX_KRETPROBES	32

static char *kretprobes;
module_param(kretprobes, charp, 0444);
MODULE_PARM_DESC(kretprobes, "the kretprobes' symbols, comma-separated (kvmchurn's attached ones)");

static unsigned int maxactive = 512;
module_param(maxactive, uint, 0444);
MODULE_PARM_DESC(maxactive, "instances a kretprobe (kvmchurn's default)");

static struct kretprobe kf_krets[KF_MAX_KRETPROBES];
static unsigned int kf_nr_krets;

/* Declines every call, as kvmchurn's entry handler does for an untraced one. */
static int kf_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	return 1;
}

NOKPROBE_SYMBOL(kf_entry);

static int kf_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	return 0;
}

NOKPROBE_SYMBOL(kf_return);

static void kf_tp_signal_deliver(void *data, int sig,
				 struct kernel_siginfo *info,
				 struct k_sigaction *ka)
{
}

static void kf_tp_sched_process_exit(KC_SCHED_PROCESS_EXIT_PROTO)
{
}

static void kf_tp_sched_process_free(void *data, struct task_struct *p)
{
}

static void kf_tp_mm_vmscan_direct_reclaim_begin(KC_RECLAIM_BEGIN_PROTO)
{
}

static void kf_tp_mm_vmscan_direct_reclaim_end(KC_RECLAIM_END_PROTO)
{
}

static void kf_tp_mm_vmscan_memcg_reclaim_begin(KC_RECLAIM_BEGIN_PROTO)
{
}

static void kf_tp_mm_vmscan_memcg_reclaim_end(KC_RECLAIM_END_PROTO)
{
}

KC_TP_TYPECHECK(signal_deliver, kf_tp_signal_deliver);
KC_TP_TYPECHECK(sched_process_exit, kf_tp_sched_process_exit);
KC_TP_TYPECHECK(sched_process_free, kf_tp_sched_process_free);
KC_TP_TYPECHECK(mm_vmscan_direct_reclaim_begin, kf_tp_mm_vmscan_direct_reclaim_begin);
KC_TP_TYPECHECK(mm_vmscan_direct_reclaim_end, kf_tp_mm_vmscan_direct_reclaim_end);
KC_TP_TYPECHECK_MEMCG(mm_vmscan_memcg_reclaim_begin, kf_tp_mm_vmscan_memcg_reclaim_begin);
KC_TP_TYPECHECK_MEMCG(mm_vmscan_memcg_reclaim_end, kf_tp_mm_vmscan_memcg_reclaim_end);

struct kf_tp {
	const char *name;
	enum kc_metric metric;	/* kvmchurn's, for the messages */
	void *probe;
	struct tracepoint *tp;
	bool attached;
};

#define KF_TP_ROW(id, m, tp) \
	[KC_TP_##id] = { .name = #tp, .metric = KC_M_##m, .probe = kf_tp_##tp },

static struct kf_tp kf_tps[KC_NR_TRACEPOINTS] = {
	KC_TRACEPOINTS(KF_TP_ROW)
};

static void kf_tp_lookup(struct tracepoint *tp, void *priv)
{
	unsigned int i;

	for (i = 0; i < KC_NR_TRACEPOINTS; i++)
		if (!strcmp(tp->name, kf_tps[i].name))
			kf_tps[i].tp = tp;
}

static void kf_detach(void)
{
	bool synced = false;
	unsigned int i;

	for (i = 0; i < KC_NR_TRACEPOINTS; i++) {
		if (!kf_tps[i].attached)
			continue;
		tracepoint_probe_unregister(kf_tps[i].tp, kf_tps[i].probe, NULL);
		kf_tps[i].attached = false;
		synced = true;
	}
	if (synced)
		tracepoint_synchronize_unregister();
	for (i = 0; i < kf_nr_krets; i++) {
		unregister_kretprobe(&kf_krets[i]);
		kfree(kf_krets[i].kp.symbol_name);
	}
	kf_nr_krets = 0;
}

/* One kretprobe on @sym (a copy of @len bytes). */
static int kf_kret_attach(const char *sym, size_t len)
{
	struct kretprobe *rp = &kf_krets[kf_nr_krets];
	int err;

	if (kf_nr_krets == KF_MAX_KRETPROBES)
		return -E2BIG;
	memset(rp, 0, sizeof(*rp));
	rp->kp.symbol_name = kstrndup(sym, len, GFP_KERNEL);
	if (!rp->kp.symbol_name)
		return -ENOMEM;
	rp->entry_handler = kf_entry;
	rp->handler = kf_return;
	rp->maxactive = maxactive;
	err = register_kretprobe(rp);
	if (err) {
		pr_err("kretprobe on %s: error %d\n", rp->kp.symbol_name, err);
		kfree(rp->kp.symbol_name);
		return err;
	}
	kf_nr_krets++;
	return 0;
}

static int __init kf_init(void)
{
	const char *p = kretprobes;
	unsigned int i, tps = 0;
	int err = 0;

	if (!p || !*p) {
		pr_err("kretprobes= is empty: give the symbols kvmchurn attached\n");
		return -EINVAL;
	}
	while (*p && !err) {
		size_t len = strcspn(p, ",");

		if (len)
			err = kf_kret_attach(p, len);
		p += len + !!p[len];
	}
	for_each_kernel_tracepoint(kf_tp_lookup, NULL);
	for (i = 0; i < KC_NR_TRACEPOINTS && !err; i++) {
		if (!kf_tps[i].tp)
			continue;	/* as kvmchurn: absent here */
		err = tracepoint_probe_register(kf_tps[i].tp, kf_tps[i].probe,
						NULL);
		if (err)
			pr_err("tracepoint %s (kvmchurn's %s): error %d\n",
			       kf_tps[i].name, kc_metric_name(kf_tps[i].metric),
			       err);
		kf_tps[i].attached = !err;
		tps += !err;
	}
	if (err) {
		kf_detach();
		return err;
	}
	pr_info("%u kretprobes and %u tracepoints, empty handlers\n",
		kf_nr_krets, tps);
	return 0;
}

static void __exit kf_exit(void)
{
	kf_detach();
}

module_init(kf_init);
module_exit(kf_exit);
MODULE_DESCRIPTION("make bench's floor: kvmchurn's probes with empty handlers");
MODULE_LICENSE("GPL");

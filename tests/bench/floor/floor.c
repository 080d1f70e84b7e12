// SPDX-License-Identifier: GPL-2.0
/*
 * floor.c - make bench's configuration F: the probes kvmchurn attaches, with
 * handlers that return at once. What F costs over nothing loaded is the
 * kernel's probe mechanism; what kvmchurn costs over F is its handlers.
 *
 * kretprobes= names the kretprobes' symbols, repeats and all, as kvmchurn's
 * `raw` lists the attached ones (the bench reads them from a round of
 * kvmchurn in the same boot, so that F attaches exactly where it did),
 * kprobes= those kvmchurn attached as plain kprobes, and fprobes= those
 * kvmchurn attached by fprobe, with the same entry data; the
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

static char *fprobes;
module_param(fprobes, charp, 0444);
MODULE_PARM_DESC(fprobes, "the fprobes' symbols, comma-separated (kvmchurn's attached ones)");

static char *kprobes;
module_param(kprobes, charp, 0444);
MODULE_PARM_DESC(kprobes, "the plain kprobes' symbols, comma-separated (kvmchurn's attached ones)");

static struct kretprobe kf_krets[KF_MAX_KRETPROBES];
static unsigned int kf_nr_krets;
static struct kprobe kf_kprobes[KF_MAX_KRETPROBES];
static unsigned int kf_nr_kprobes;
static struct kc_fprobe kf_fprobes[KF_MAX_KRETPROBES];
static unsigned int kf_nr_fprobes;

/* kvmchurn's entry data, which fprobe keeps for each followed call */
#define KF_DATA_SIZE	32

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

static int kf_pre(struct kprobe *kp, struct pt_regs *regs)
{
	return 0;
}

NOKPROBE_SYMBOL(kf_pre);

static int kf_fentry(KC_FPROBE_ARGS)
{
	return 1;
}

static void kf_fexit(KC_FPROBE_ARGS)
{
}

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

static void kf_tp_signal_generate(void *data, int sig,
				  struct kernel_siginfo *info,
				  struct task_struct *task, int group, int result)
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
KC_TP_TYPECHECK(signal_generate, kf_tp_signal_generate);

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
	for (i = 0; i < kf_nr_kprobes; i++) {
		unregister_kprobe(&kf_kprobes[i]);
		kfree(kf_kprobes[i].symbol_name);
	}
	kf_nr_kprobes = 0;
	for (i = 0; i < kf_nr_fprobes; i++)
		kc_fprobe_unregister(&kf_fprobes[i]);
	if (kf_nr_fprobes)
		synchronize_rcu();	/* as kvmchurn: a handler may still run */
	kf_nr_fprobes = 0;
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

/* One plain kprobe on @sym (a copy of @len bytes). */
static int kf_kprobe_attach(const char *sym, size_t len)
{
	struct kprobe *kp = &kf_kprobes[kf_nr_kprobes];
	int err;

	if (kf_nr_kprobes == KF_MAX_KRETPROBES)
		return -E2BIG;
	memset(kp, 0, sizeof(*kp));
	kp->symbol_name = kstrndup(sym, len, GFP_KERNEL);
	if (!kp->symbol_name)
		return -ENOMEM;
	kp->pre_handler = kf_pre;
	err = register_kprobe(kp);
	if (err) {
		pr_err("kprobe on %s: error %d\n", kp->symbol_name, err);
		kfree(kp->symbol_name);
		return err;
	}
	kf_nr_kprobes++;
	return 0;
}

/* One fprobe on @sym (@len bytes of it). */
static int kf_fprobe_attach(const char *sym, size_t len)
{
	char name[KC_SYMBOL_LEN];
	int err;

	if (kf_nr_fprobes == KF_MAX_KRETPROBES)
		return -E2BIG;
	if (len >= sizeof(name))
		return -ENAMETOOLONG;
	memcpy(name, sym, len);
	name[len] = '\0';
	err = kc_fprobe_register(&kf_fprobes[kf_nr_fprobes], name, kf_fentry,
				 kf_fexit, KF_DATA_SIZE, maxactive);
	if (err) {
		pr_err("fprobe on %s: error %d\n", name, err);
		return err;
	}
	kf_nr_fprobes++;
	return 0;
}

/* Each name of the comma-separated @list, to @attach; stops at an error. */
static int kf_each(const char *list, int (*attach)(const char *, size_t))
{
	int err = 0;

	while (list && *list && !err) {
		size_t len = strcspn(list, ",");

		if (len)
			err = attach(list, len);
		list += len + !!list[len];
	}
	return err;
}

static int __init kf_init(void)
{
	unsigned int i, tps = 0;
	int err;

	if ((!kretprobes || !*kretprobes) && (!fprobes || !*fprobes)) {
		pr_err("kretprobes= and fprobes= are empty: give the symbols kvmchurn attached\n");
		return -EINVAL;
	}
	err = kf_each(kretprobes, kf_kret_attach);
	if (!err)
		err = kf_each(kprobes, kf_kprobe_attach);
	if (!err)
		err = kf_each(fprobes, kf_fprobe_attach);
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
	pr_info("%u kretprobes, %u kprobes, %u fprobes and %u tracepoints, empty handlers\n",
		kf_nr_krets, kf_nr_kprobes, kf_nr_fprobes, tps);
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

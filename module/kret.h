/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kret.h - the kretprobes: between probes.c, which attaches them, and the
 * files that say what each one means, a row of hooks a probe (hooks.c's
 * table, with exit.c's three). A row of kind KPROBE only marks an instant:
 * it is a plain kprobe, which takes no return instance.
 *
 * A followed call keeps its start time in the instance's own data
 * (data_size), so nothing is shared between concurrent calls. The want hook
 * decides at entry whether the call is followed; a call that is not costs
 * its test and nothing else. The done hook runs at return, before the time
 * is recorded. Whether recording is on is the want hook's to test, so that
 * one that forgets state (kvm_vm_release) can do so while it is off.
 */
#ifndef KVMCHURN_KRET_H
#define KVMCHURN_KRET_H

#include <linux/kprobes.h>
#include <linux/ptrace.h>

#include "kvmchurn.h"

struct kc_kret;

/* What a followed call keeps from its entry to its return. */
struct kc_kret_data {
	u64 start;
	unsigned long arg;
	u64 vm;			/* kc_record()'s id, where vm_by needs one */
	/* a start-up's timed call: its thread's times at entry (ns) */
	u64 ran, waited;
	u32 slept;
	u8 vm_by;		/* enum kc_vm_by */
	u8 live;		/* 1 + the metric it is in flight as; 0: none */
	bool timed;
	u8 st_part;		/* 1 + its start-up part; 0: none (kc_st_enter()) */
};

/*
 * Decides at entry whether this call is followed to its return (true). @regs
 * is NULL for a probe attached by fprobe (kc_kret_ops::fentry).
 */
typedef bool (*kc_want_fn)(struct kc_kret *k, struct kc_kret_data *d,
			   struct pt_regs *regs);
/*
 * Runs at return with the call's time in the module's unit; returns whether
 * that time is recorded now.
 */
typedef bool (*kc_done_fn)(struct kc_kret *k, struct kc_kret_data *d,
			   struct pt_regs *regs, u64 value);

/*
 * Whether candidate @c of the table's symbols stands for the metric on this
 * kernel: a function may exist and do something else (kvm_mmu_post_init_vm).
 */
typedef bool (*kc_stands_fn)(unsigned int c);

/*
 * How a kretprobe decides and records; a row of kind KPROBE (the table's)
 * gives @pre alone.
 */
struct kc_kret_ops {
	kc_want_fn want;	/* required of a kretprobe */
	kc_done_fn done;	/* NULL: record */
	kc_stands_fn stands;	/* NULL: every candidate */
	kretprobe_handler_t entry;	/* NULL: kc_kret_entry() */
	/*
	 * An fprobe's entry where the kernel has fprobe: for hooks that read
	 * no registers. NULL: a kretprobe only.
	 */
	kc_fentry_fn fentry;
	/* A plain kprobe's handler, which marks an instant: it returns 0. */
	kprobe_pre_handler_t pre;
};

/* The hooks of every kretprobe, by enum kc_kret_id (hooks.c). */
extern const struct kc_kret_ops *const kc_kret_hooks[KC_NR_KRETPROBES];

struct kc_kret {
	enum kc_metric metric;
	const char *const *symbols;	/* the table's candidates */
	const char *module;	/* the module that holds it on this kernel */
	struct kc_kret_ops ops;
	/* state, under probes.c's lock */
	char symbol[KC_SYMBOL_LEN];	/* the one attached, or the one tried */
	unsigned int cand;	/* the candidate attached: symbols[cand] */
	enum kc_probe_state state;
	bool by_fprobe;		/* attached as fp, not as rp */
	bool by_kprobe;		/* the table's kind: rp.kp alone */
	int err;
	u64 __percpu *hits;
	u64 missed_before;	/* nmissed of earlier attachments */
	u64 base_hits, base_missed;	/* at the last reset */
	struct kretprobe rp;
	struct kc_fprobe fp;
};

/* One a row of KC_KRETPROBES (probes.c). */
extern struct kc_kret kc_krets[KC_NR_KRETPROBES];

/*
 * The call is in flight as stage @m of its VM (KC_VM_BY_KVM or _TGID),
 * from its entry to its return, in the live view (vms.c).
 */
static inline void kc_live(struct kc_kret_data *d, enum kc_metric m)
{
	d->live = m + 1;
}

/* This call's time goes to the record of the VM @kvm. */
static inline void kc_for_vm(struct kc_kret_data *d, const void *kvm)
{
	d->vm = (unsigned long)kvm;
	d->vm_by = KC_VM_BY_KVM;
}

/*
 * A followed call starts (probes.c): its start time, its VM, its flight.
 * Out of line, so that the entries of the calls that are not followed (an
 * unmatched exit's) save no register for it. Returns 0.
 */
int kc_kret_start(struct kc_kret_data *d);

/*
 * A call's entry: counted, then @want decides whether it is timed (0) or let
 * go (1). Inlined into each entry handler, so that a constant @want is a
 * direct call. d->vm is read only where a hook set it; by default the
 * calling process's VMs, whose tgid is known here. A call the hook put in
 * flight (kc_live()) enters its VM's. The hit is a plain
 * per-CPU add: every entry runs with preemption off (exit.h says why that
 * is enough).
 */
static __always_inline int kc_kret_enter(struct kc_kret *k,
					 struct kc_kret_data *d,
					 struct pt_regs *regs, kc_want_fn want)
{
	__this_cpu_inc(*k->hits);
	d->vm_by = KC_VM_BY_TGID;
	d->live = 0;
	if (!want(k, d, regs))
		return 1;
	return kc_kret_start(d);
}

/*
 * A plain kprobe's hit: its row, counted. Its handler runs with preemption
 * off, as a kretprobe's entry does.
 */
static __always_inline struct kc_kret *kc_kprobe_hit(struct kprobe *kp)
{
	struct kc_kret *k = container_of(kp, struct kc_kret, rp.kp);

	__this_cpu_inc(*k->hits);
	return k;
}

/* The exit path's, in exit.c. */
extern const struct kc_kret_ops kc_exit_mmap_hooks;
extern const struct kc_kret_ops kc_exit_files_hooks;
extern const struct kc_kret_ops kc_task_release_hooks;

#endif /* KVMCHURN_KRET_H */

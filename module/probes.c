// SPDX-License-Identifier: GPL-2.0
/*
 * probes.c - the kretprobes: one per timed kernel function, and the module
 * notifier that attaches those in kvm and irqbypass when they load after
 * kvmchurn and detaches them before they unload.
 *
 * The entry handler applies the filter and keeps the start time in the
 * instance's own data (data_size), so nothing is shared between concurrent
 * calls; returning non-zero from it skips the instance, so a call that does
 * not match costs one filter test. The return handler only records.
 * Whether recording is on is the want() function's to test, so that one
 * that forgets state (kvm_vm_release) can do so while it is off.
 */
#include <linux/kobject.h>
#include <linux/kprobes.h>
#include <linux/kvm.h>
#include <linux/kvm_host.h>
#include <linux/kvm_irqfd.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/ptrace.h>
#include <linux/string.h>
#include <linux/timekeeping.h>

#include "compat.h"
#include "kvmchurn.h"

struct kc_kret;

/* What a followed call keeps from its entry to its return. */
struct kc_kret_data {
	u64 start;
	unsigned long arg;
	u64 vm;
	u8 vm_by;		/* enum kc_vm_by */
	bool timed;
};

/*
 * Decides at entry whether this call is followed to its return (true). @regs
 * is NULL for a probe attached by fprobe (kc_kret_ops::fentry).
 */
typedef bool (*kc_want_fn)(struct kc_kret *k, struct kc_kret_data *d,
			   struct pt_regs *regs);
/*
 * Runs at return with the call's time in the module's unit; returns whether
 * that time goes into the metric's histogram now.
 */
typedef bool (*kc_done_fn)(struct kc_kret *k, struct kc_kret_data *d,
			   struct pt_regs *regs, u64 value);

/*
 * Whether candidate @c of the table's symbols stands for the metric on this
 * kernel: a function may exist and do something else (kvm_mmu_post_init_vm).
 */
typedef bool (*kc_stands_fn)(unsigned int c);

/* How a kretprobe of the table decides and records: the default is traced. */
struct kc_kret_ops {
	kc_want_fn want;
	kc_done_fn done;
	kc_stands_fn stands;	/* NULL: every candidate */
	kretprobe_handler_t entry;	/* NULL: kc_kret_entry() */
	/*
	 * An fprobe's entry where the kernel has fprobe: for hooks that read
	 * no registers. NULL: a kretprobe only.
	 */
	kc_fentry_fn fentry;
};

struct kc_kret {
	enum kc_metric metric;
	const char *const *symbols;	/* the table's candidates */
	const char *module;	/* the module that holds it on this kernel */
	struct kc_kret_ops ops;
	/* state, under kc_probes_lock */
	char symbol[KC_SYMBOL_LEN];	/* the one attached, or the one tried */
	unsigned int cand;	/* the candidate attached: symbols[cand] */
	enum kc_probe_state state;
	bool by_fprobe;		/* attached as fp, not as rp */
	int err;
	u64 __percpu *hits;
	u64 missed_before;	/* nmissed of earlier attachments */
	u64 base_hits, base_missed;	/* at the last reset */
	struct kretprobe rp;
	struct kc_fprobe fp;
};

/* Which VM record a call's time also goes to (vms.c). */
enum kc_vm_by {
	KC_VM_BY_TGID,		/* the calling process's VMs: the default */
	KC_VM_BY_KVM,		/* kc_kret_data::vm, a struct kvm * */
	KC_VM_BY_CREATING,	/* the VM the calling process is creating */
	KC_VM_BY_CREATOR,	/* kc_kret_data::vm, its creator's pid */
	KC_VM_BY_NONE,		/* the done hook saw to it */
};

/* This call's time goes to the record of the VM @kvm. */
static void kc_for_vm(struct kc_kret_data *d, const void *kvm)
{
	d->vm = (unsigned long)kvm;
	d->vm_by = KC_VM_BY_KVM;
}

static unsigned int kc_maxactive;
static bool kc_fprobes;
static DEFINE_MUTEX(kc_probes_lock);

/*
 * The module that holds a probe's symbols on this kernel, NULL for vmlinux:
 * KVM and the irqbypass manager are modules on Debian x86, built in on arm64.
 */
static const char *kc_home_module(enum kc_home home)
{
	switch (home) {
	case KC_HOME_KVM:
		return IS_MODULE(CONFIG_KVM) ? kc_home_name(home) : NULL;
	case KC_HOME_IRQBYPASS:
		return IS_MODULE(CONFIG_IRQ_BYPASS_MANAGER) ?
		       kc_home_name(home) : NULL;
	default:
		return NULL;
	}
}

/* Recording is on and current belongs to a traced process. */
static bool kc_traced(void)
{
	return READ_ONCE(kc_enabled) && kc_filter_match(current);
}

static bool kc_want_traced(struct kc_kret *k, struct kc_kret_data *d,
			   struct pt_regs *regs)
{
	return kc_traced();
}

/*
 * exit_mmap(mm) in a traced process that exits: its address space going away.
 * An exec drops the old image's address space through exit_mmap() too, in a
 * task that is not exiting; on 7.3 that task has its new comm by then, so a
 * VMM started by exec (QEMU under a manager) counted it as a second teardown.
 */
static __always_inline bool kc_want_exit_mmap(struct kc_kret *k,
					      struct kc_kret_data *d,
					      struct pt_regs *regs)
{
	return (current->flags & PF_EXITING) && READ_ONCE(kc_enabled) &&
	       kc_filter_exiting();
}

/*
 * exit_files(tsk) in a traced process: current is the exiting task (or,
 * when a fork fails, its parent, which kc_filter_exiting() also answers).
 */
static __always_inline bool kc_want_exit_files(struct kc_kret *k,
					       struct kc_kret_data *d,
					       struct pt_regs *regs)
{
	return READ_ONCE(kc_enabled) && kc_filter_exiting();
}

/* The default, for a function whose first argument is the struct kvm *. */
static bool kc_want_traced_kvm(struct kc_kret *k, struct kc_kret_data *d,
			       struct pt_regs *regs)
{
	if (!kc_traced())
		return false;
	kc_for_vm(d, (void *)regs_get_kernel_argument(regs, 0));
	return true;
}

/* kvm_dev_ioctl(filp, ioctl, arg): only KVM_CREATE_VM, as the seed does. */
static bool kc_want_create_vm(struct kc_kret *k, struct kc_kret_data *d,
			      struct pt_regs *regs)
{
	return regs_get_kernel_argument(regs, 1) == KVM_CREATE_VM &&
	       kc_traced();
}

/*
 * The ioctl's time, whatever it returned, as the seed; the VM's record gets
 * it if a VM was made, and goes if not.
 */
static bool kc_done_create_vm(struct kc_kret *k, struct kc_kret_data *d,
			      struct pt_regs *regs, u64 value)
{
	bool ok = (long)regs_return_value(regs) >= 0;

	if (ok)
		kc_vm_stage_creating(current->tgid, KC_M_KVM_CREATE_VM, value);
	kc_vm_created(current->tgid, ok);
	d->vm_by = KC_VM_BY_NONE;
	return true;
}

/*
 * kvm_arch_init_vm(kvm, type), inside KVM_CREATE_VM: not timed. It is where
 * a traced process's VM gets its record, by its struct kvm *.
 */
static bool kc_want_init_vm(struct kc_kret *k, struct kc_kret_data *d,
			    struct pt_regs *regs)
{
	if (kc_traced())
		kc_vm_begin(regs_get_kernel_argument(regs, 0), current);
	return false;
}

/*
 * kvm_irqfd(kvm, args): not timed. It marks the VM as a traced process's,
 * so that its irqfds' unregister, which runs in a kworker, can be counted.
 */
static bool kc_want_irqfd(struct kc_kret *k, struct kc_kret_data *d,
			  struct pt_regs *regs)
{
	if (kc_traced())
		kc_pair_add(KC_PAIR_VM, regs_get_kernel_argument(regs, 0),
			    kc_now(), true);
	return false;
}

/*
 * kvm_vm_release(inode, filp): timed for a traced process; and a marked VM is
 * forgotten when its fd is released (its irqfds are gone by then), whatever
 * the filter or enable say now, so that no mark outlives its struct kvm.
 */
static bool kc_want_vm_release(struct kc_kret *k, struct kc_kret_data *d,
			       struct pt_regs *regs)
{
	struct file *filp = (struct file *)regs_get_kernel_argument(regs, 1);

	d->arg = (unsigned long)filp->private_data;
	d->timed = kc_traced();
	kc_for_vm(d, filp->private_data);
	return d->timed || kc_pair_get(KC_PAIR_VM, d->arg, KC_PAIR_PEEK, NULL);
}

static bool kc_done_vm_release(struct kc_kret *k, struct kc_kret_data *d,
			       struct pt_regs *regs, u64 value)
{
	kc_pair_get(KC_PAIR_VM, d->arg, KC_PAIR_TAKE, NULL);
	return d->timed;
}

/*
 * exit_files(tsk) runs in every exiting thread; only the one that drops the
 * last reference to the shared fd table closes the files, and which one that
 * is cannot be told at entry without a race. So each thread's time is kept
 * in the pairing table, by process, and the longest goes into the histogram
 * when the leader is freed (tracepoints.c): one value a process.
 */
static bool kc_done_exit_files(struct kc_kret *k, struct kc_kret_data *d,
			       struct pt_regs *regs, u64 value)
{
	kc_pair_max(KC_PAIR_FILES, current->tgid, d->start, value);
	return false;
}

/* An irq_bypass_consumer is KVM's irqfd's: its VM. */
static struct kvm *kc_consumer_kvm(struct pt_regs *regs)
{
	struct irq_bypass_consumer *cons =
		(struct irq_bypass_consumer *)regs_get_kernel_argument(regs, 0);

	return READ_ONCE(container_of(cons, struct kvm_kernel_irqfd,
				      consumer)->kvm);
}

static bool kc_want_register(struct kc_kret *k, struct kc_kret_data *d,
			     struct pt_regs *regs)
{
	if (!kc_traced())
		return false;
	kc_for_vm(d, kc_consumer_kvm(regs));
	return true;
}

static bool kc_done_register(struct kc_kret *k, struct kc_kret_data *d,
			     struct pt_regs *regs, u64 value)
{
	kc_count(KC_C_IRQBYPASS_REGISTER);
	return true;
}

/*
 * irq_bypass_unregister_consumer(consumer) runs in a kworker: count it when
 * the filter is "*", as the seed does, or when its irqfd's VM was marked by
 * kvm_irqfd() in a traced process. KVM's irqfds are the only consumers.
 */
static bool kc_want_unregister(struct kc_kret *k, struct kc_kret_data *d,
			       struct pt_regs *regs)
{
	struct kvm *kvm;

	if (!READ_ONCE(kc_enabled))
		return false;
	kvm = kc_consumer_kvm(regs);
	kc_for_vm(d, kvm);
	return kc_filter_all() ||
	       kc_pair_get(KC_PAIR_VM, (unsigned long)kvm, KC_PAIR_PEEK, NULL);
}

static bool kc_done_unregister(struct kc_kret *k, struct kc_kret_data *d,
			       struct pt_regs *regs, u64 value)
{
	kc_count(KC_C_IRQBYPASS_UNREGISTER);
	return true;
}

/* kvm_vm_ioctl(filp, ioctl, arg): only KVM_CREATE_VCPU. */
static bool kc_want_vcpu_create(struct kc_kret *k, struct kc_kret_data *d,
				struct pt_regs *regs)
{
	struct file *filp = (struct file *)regs_get_kernel_argument(regs, 0);

	if (regs_get_kernel_argument(regs, 1) != KVM_CREATE_VCPU ||
	    !kc_traced())
		return false;
	kc_for_vm(d, filp->private_data);
	return true;
}

/* The candidates of the first KVM_RUN's setup, in the table's order. */
enum kc_first_run {
	KC_FIRST_RUN_PID_CHANGE,	/* kvm_arch_vcpu_run_pid_change(vcpu) */
	KC_FIRST_RUN_NX,		/* kvm_mmu_post_init_vm(kvm), x86 */
};

static bool kc_first_run_stands(unsigned int c)
{
	return c != KC_FIRST_RUN_NX || KC_NX_AT_FIRST_RUN;
}

/*
 * arm64: kvm_arch_vcpu_run_pid_change(vcpu) runs whenever another thread
 * runs the vCPU; only its first KVM_RUN does the one-time setup (under
 * vcpu->mutex, so once a vCPU).
 * x86: kvm_mmu_post_init_vm(kvm) runs at every KVM_RUN; the first of the VM
 * starts its NX recovery task in call_once(). Several vCPUs can enter before
 * it is done: the first to enter is timed, and marks the VM until it returns.
 */
static bool kc_want_first_run(struct kc_kret *k, struct kc_kret_data *d,
			      struct pt_regs *regs)
{
	unsigned long arg = regs_get_kernel_argument(regs, 0);

	if (k->cand == KC_FIRST_RUN_PID_CHANGE) {
		struct kvm_vcpu *vcpu = (struct kvm_vcpu *)arg;

		if (!kc_vcpu_never_ran(vcpu) || !kc_traced())
			return false;
		kc_for_vm(d, vcpu->kvm);
		return true;
	}
	if (!kc_nx_once_pending((struct kvm *)arg) || !kc_traced())
		return false;
	kc_for_vm(d, (void *)arg);
	d->arg = arg;
	d->timed = kc_pair_add(KC_PAIR_FIRST_RUN, arg, kc_now(),
			       false) == KC_PAIR_ADDED;
	/*
	 * The check and the add are two steps: a vCPU stalled between them (a
	 * host that preempts the guest) adds after another vCPU's start has
	 * completed and its return took the entry. Its call starts nothing.
	 */
	if (d->timed && kc_nx_once_done((struct kvm *)arg)) {
		kc_pair_get(KC_PAIR_FIRST_RUN, arg, KC_PAIR_TAKE, NULL);
		d->timed = false;
	}
	return d->timed;
}

static bool kc_done_first_run(struct kc_kret *k, struct kc_kret_data *d,
			      struct pt_regs *regs, u64 value)
{
	if (k->cand == KC_FIRST_RUN_NX)
		kc_pair_get(KC_PAIR_FIRST_RUN, d->arg, KC_PAIR_TAKE, NULL);
	return true;
}

/* kvm_uevent_notify_change() builds 5 variables; more are not KVM's. */
#define KC_UEVENT_VARS	8

/*
 * kobject_uevent_env(kobj, action, envp) is KVM's @event ("EVENT=create")
 * when kobj is /dev/kvm's (the misc device "kvm") and the action
 * KOBJ_CHANGE; *pid is then the VM's creator, from "PID=", or 0.
 */
static bool kc_kvm_uevent(struct pt_regs *regs, const char *event, pid_t *pid)
{
	struct kobject *kobj =
		(struct kobject *)regs_get_kernel_argument(regs, 0);
	char **envp = (char **)regs_get_kernel_argument(regs, 2);
	const char *name, *parent;
	bool found = false;
	unsigned int i;

	if (regs_get_kernel_argument(regs, 1) != KOBJ_CHANGE || !envp ||
	    !kobj->parent)
		return false;
	name = kobject_name(kobj);
	parent = kobject_name(kobj->parent);
	if (!name || strcmp(name, "kvm") || !parent || strcmp(parent, "misc"))
		return false;
	*pid = 0;
	for (i = 0; i < KC_UEVENT_VARS && envp[i]; i++) {
		if (!strcmp(envp[i], event))
			found = true;
		else if (str_has_prefix(envp[i], "PID=") &&
			 kstrtoint(envp[i] + 4, 10, pid))
			*pid = 0;
	}
	return found;
}

/*
 * kobject_uevent_env() is notrace: its kprobe traps with int3, and x86 runs
 * a kernel int3 as an NMI (so does lockdep), where no lock may be waited
 * for. Its entry hooks only read and note; the pairing table is used from
 * the return hooks, which run in the caller's context.
 *
 * The create uevent of a traced process's VM: its creator's pid is marked,
 * once for each such VM, for the destroy uevent to find.
 */
static bool kc_want_uevent_create(struct kc_kret *k,
				  struct kc_kret_data *d,
				  struct pt_regs *regs)
{
	pid_t pid;

	if (!kc_kvm_uevent(regs, "EVENT=create", &pid) || !kc_traced())
		return false;
	d->arg = pid;
	d->vm_by = KC_VM_BY_CREATING;
	return true;
}

static bool kc_done_uevent_create(struct kc_kret *k, struct kc_kret_data *d,
				  struct pt_regs *regs, u64 value)
{
	if (d->arg)
		kc_pair_inc(KC_PAIR_UEVENT, d->arg, kc_now());
	return true;
}

/*
 * The destroy uevent runs in whichever task puts the VM's last reference,
 * a kworker as well as the VMM: it is a traced VM's if its creator's pid
 * was marked. Every one of KVM's is timed, for the return hook to decide;
 * the mark goes whatever enable says, as kvm_vm_release's.
 */
static bool kc_want_uevent_destroy(struct kc_kret *k,
				   struct kc_kret_data *d,
				   struct pt_regs *regs)
{
	pid_t pid;

	if (!kc_kvm_uevent(regs, "EVENT=destroy", &pid))
		return false;
	d->vm = pid;
	d->vm_by = KC_VM_BY_CREATOR;
	return true;
}

static bool kc_done_uevent_destroy(struct kc_kret *k, struct kc_kret_data *d,
				   struct pt_regs *regs, u64 value)
{
	bool marked = d->vm && kc_pair_dec(KC_PAIR_UEVENT, d->vm);

	return READ_ONCE(kc_enabled) && (marked || kc_filter_all());
}

/*
 * mmu_notifier_unregister(mn, mm), KVM's in kvm_destroy_vm: the notifier is
 * embedded in the struct kvm (only compared, never read, if it is another's),
 * and the VM is destroyed once it returns.
 */
static bool kc_want_mn_unregister(struct kc_kret *k,
				  struct kc_kret_data *d,
				  struct pt_regs *regs)
{
	struct mmu_notifier *mn =
		(struct mmu_notifier *)regs_get_kernel_argument(regs, 0);

	if (!kc_traced())
		return false;
	kc_for_vm(d, container_of(mn, struct kvm, mmu_notifier));
	return true;
}

static bool kc_done_mn_unregister(struct kc_kret *k, struct kc_kret_data *d,
				  struct pt_regs *regs, u64 value)
{
	kc_vm_destroyed(d->vm);
	return true;
}

/* The candidates of the stage-2 teardown, in the table's order. */
enum kc_stage2 {
	KC_STAGE2_SPLIT_BODY,		/* kvm_stage2_destroy(), 6.19 */
	KC_STAGE2_WHOLE,		/* kvm_pgtable_stage2_destroy() */
};

/* From the split, the old function is there and never called by the host. */
static bool kc_stage2_stands(unsigned int c)
{
	return c != KC_STAGE2_WHOLE || !KC_STAGE2_SPLIT;
}

/* One per row of KC_KRETPROBES, filled from the table by kc_krets_init(). */
static struct kc_kret kc_krets[KC_NR_KRETPROBES];

/*
 * A call's entry: counted, then @want decides whether it is timed (0) or let
 * go (1). Inlined into each entry handler, so that a constant @want is a
 * direct call. d->vm is read only where a hook set it.
 *
 * The hit is a plain per-CPU add, not this_cpu_inc(), which on arm64 is a
 * preemption toggle around an exclusive loop: every entry handler runs with
 * preemption off, and no probe's handler interrupts itself on one CPU (a
 * kprobe hit inside a kprobe's handler is counted missed; the fprobes' two
 * functions are never called from an interrupt).
 */
static __always_inline int kc_kret_enter(struct kc_kret *k,
					 struct kc_kret_data *d,
					 struct pt_regs *regs, kc_want_fn want)
{
	__this_cpu_inc(*k->hits);
	d->vm_by = KC_VM_BY_TGID;
	if (!want(k, d, regs))
		return 1;
	d->start = kc_now();
	return 0;
}

static int kc_kret_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct kc_kret *k = container_of(kc_kretprobe_of(ri), struct kc_kret, rp);

	return kc_kret_enter(k, (struct kc_kret_data *)ri->data, regs,
			     k->ops.want);
}

NOKPROBE_SYMBOL(kc_kret_entry);

/*
 * Every exit on the host passes exit_mmap and exit_files, nearly always in a
 * process that is not traced: entries of their own, which know their probe
 * and call their hook without an indirect call; and fprobe's where the
 * kernel has it, which does not trap.
 */
static int kc_exit_mmap_entry(struct kretprobe_instance *ri,
			      struct pt_regs *regs)
{
	return kc_kret_enter(&kc_krets[KC_KRET_EXIT_MMAP],
			     (struct kc_kret_data *)ri->data, regs,
			     kc_want_exit_mmap);
}

NOKPROBE_SYMBOL(kc_exit_mmap_entry);

static int kc_exit_files_entry(struct kretprobe_instance *ri,
			       struct pt_regs *regs)
{
	return kc_kret_enter(&kc_krets[KC_KRET_EXIT_FILES],
			     (struct kc_kret_data *)ri->data, regs,
			     kc_want_exit_files);
}

NOKPROBE_SYMBOL(kc_exit_files_entry);

static int kc_exit_mmap_fentry(KC_FPROBE_ARGS)
{
	return kc_kret_enter(&kc_krets[KC_KRET_EXIT_MMAP], data, NULL,
			     kc_want_exit_mmap);
}

static int kc_exit_files_fentry(KC_FPROBE_ARGS)
{
	return kc_kret_enter(&kc_krets[KC_KRET_EXIT_FILES], data, NULL,
			     kc_want_exit_files);
}

/* The kretprobes whose hooks are not kc_want_traced() alone. */
static const struct kc_kret_ops kc_kret_ops[KC_NR_KRETPROBES] = {
	[KC_KRET_KVM_DEV_IOCTL] = { kc_want_create_vm, kc_done_create_vm },
	[KC_KRET_KVM_ARCH_INIT_VM] = { kc_want_init_vm, NULL },
	[KC_KRET_IRQ_BYPASS_REGISTER] = { kc_want_register, kc_done_register },
	[KC_KRET_KVM_DESTROY_VM] = { kc_want_traced_kvm, NULL },
	[KC_KRET_KVM_DESTROY_VCPUS] = { kc_want_traced_kvm, NULL },
	[KC_KRET_KVM_MMU_TEARDOWN] = { kc_want_traced_kvm, NULL },
	[KC_KRET_STAGE2_DESTROY] = { kc_want_traced, NULL, kc_stage2_stands },
	[KC_KRET_EXIT_MMAP] = { kc_want_exit_mmap, NULL, NULL,
				kc_exit_mmap_entry, kc_exit_mmap_fentry },
	[KC_KRET_EXIT_FILES] = { kc_want_exit_files, kc_done_exit_files, NULL,
				 kc_exit_files_entry, kc_exit_files_fentry },
	[KC_KRET_KVM_VM_RELEASE] = { kc_want_vm_release, kc_done_vm_release },
	[KC_KRET_KVM_IRQFD] = { kc_want_irqfd, NULL },
	[KC_KRET_IRQ_BYPASS_UNREGISTER] = { kc_want_unregister,
					    kc_done_unregister },
	[KC_KRET_KVM_VM_IOCTL] = { kc_want_vcpu_create, NULL },
	[KC_KRET_FIRST_RUN] = { kc_want_first_run, kc_done_first_run,
				kc_first_run_stands },
	[KC_KRET_UEVENT_CREATE] = { kc_want_uevent_create,
				    kc_done_uevent_create },
	[KC_KRET_UEVENT_DESTROY] = { kc_want_uevent_destroy,
				     kc_done_uevent_destroy },
	[KC_KRET_MMU_NOTIFIER_UNREGISTER] = { kc_want_mn_unregister,
					      kc_done_mn_unregister },
};

static void kc_krets_init(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(kc_krets); i++) {
		const struct kc_probe_desc *desc = kc_probe_desc(i);
		struct kc_kret *k = &kc_krets[i];

		k->metric = desc->metric;
		k->symbols = desc->symbols;
		k->module = kc_home_module(desc->home);
		k->ops = kc_kret_ops[i];
		if (!k->ops.want)
			k->ops.want = kc_want_traced;
		if (!k->ops.entry)
			k->ops.entry = kc_kret_entry;
	}
}

/* A followed call's return, by either mechanism: its time recorded. */
static void kc_kret_finish(struct kc_kret *k, struct kc_kret_data *d,
			   struct pt_regs *regs)
{
	u64 value = kc_to_unit(kc_since(d->start));

	if (k->ops.done && !k->ops.done(k, d, regs, value))
		return;
	kc_hist_record(k->metric, value);
	/* The same value, to the VM's record. */
	switch (d->vm_by) {
	case KC_VM_BY_TGID:
		kc_vm_stage_tgid(current->tgid, k->metric, value);
		break;
	case KC_VM_BY_KVM:
		kc_vm_stage_kvm(d->vm, k->metric, value);
		break;
	case KC_VM_BY_CREATING:
		kc_vm_stage_creating(current->tgid, k->metric, value);
		break;
	case KC_VM_BY_CREATOR:
		kc_vm_stage_creator(d->vm, k->metric, value);
		break;
	}
}

static int kc_kret_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	kc_kret_finish(container_of(kc_kretprobe_of(ri), struct kc_kret, rp),
		       (struct kc_kret_data *)ri->data, regs);
	return 0;
}

NOKPROBE_SYMBOL(kc_kret_return);

static void kc_fprobe_return(KC_FPROBE_ARGS)
{
	kc_kret_finish(container_of(kc_fprobe_of(fp), struct kc_kret, fp),
		       data, NULL);
}

/* Where GCC cloned a function, only the clone has a symbol. */
static const char *const kc_clone_suffixes[] = {
	"", ".isra.0", ".constprop.0", ".part.0",
};

/*
 * Registers @k on k->symbol: by fprobe if it has an fprobe entry and the
 * kernel fprobe (kc_fprobes), else by kretprobe; 0, or the kretprobe's error.
 */
static int kc_kret_register(struct kc_kret *k)
{
	k->by_fprobe = k->ops.fentry && kc_fprobes &&
		       !kc_fprobe_register(&k->fp, k->symbol, k->ops.fentry,
					   kc_fprobe_return,
					   sizeof(struct kc_kret_data),
					   kc_maxactive);
	if (k->by_fprobe)
		return 0;
	memset(&k->rp, 0, sizeof(k->rp));
	k->rp.kp.symbol_name = k->symbol;
	k->rp.entry_handler = k->ops.entry;
	k->rp.handler = kc_kret_return;
	k->rp.data_size = sizeof(struct kc_kret_data);
	k->rp.maxactive = kc_maxactive;
	return register_kretprobe(&k->rp);
}

/*
 * Tries each candidate symbol of @k, in the table's order, under each of its
 * names; the first that is not -ENOENT decides. The result is in k->state.
 */
static int kc_kret_attach(struct kc_kret *k)
{
	unsigned int c, i;
	int err = -ENOENT;

	for (c = 0; k->symbols[c] && err == -ENOENT; c++) {
		if (k->ops.stands && !k->ops.stands(c))
			continue;
		k->cand = c;
		for (i = 0; i < ARRAY_SIZE(kc_clone_suffixes); i++) {
			snprintf(k->symbol, sizeof(k->symbol), "%s%s",
				 k->symbols[c], kc_clone_suffixes[i]);
			err = kc_kret_register(k);
			if (err != -ENOENT)
				break;
		}
	}
	/* Absent under every name: show the first candidate's own name. */
	if (err == -ENOENT)
		strscpy(k->symbol, k->symbols[0], sizeof(k->symbol));
	k->err = err;
	if (!err)
		k->state = KC_PROBE_ATTACHED;
	else if (err == -ENOENT)
		k->state = KC_PROBE_ABSENT;
	else
		k->state = KC_PROBE_ERROR;
	return err;
}

static void kc_kret_detach(struct kc_kret *k, enum kc_probe_state state)
{
	if (k->state == KC_PROBE_ATTACHED && k->by_fprobe) {
		kc_fprobe_unregister(&k->fp);
		/*
		 * A return handler may still run, preemption off: unlike
		 * unregister_kretprobe(), fprobe's does not wait for it.
		 */
		synchronize_rcu();
		k->missed_before += kc_fprobe_missed(&k->fp);
	} else if (k->state == KC_PROBE_ATTACHED) {
		unregister_kretprobe(&k->rp);
		/* nmissed goes with the probe: keep what it counted. */
		k->missed_before += k->rp.nmissed;
	}
	k->state = state;
}

/* @k's symbols are in @module (NULL: in vmlinux). */
static bool kc_kret_in(const struct kc_kret *k, const char *module)
{
	if (!module || !k->module)
		return module == k->module;
	return !strcmp(k->module, module);
}

/*
 * A module's probes are attached together. Whether the module is loaded is
 * told by the probes themselves: if none of its functions can be found, it
 * is not (kallsyms and find_module() are not exported to modules).
 */
static void kc_attach_module(const char *module)
{
	bool loaded = false;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(kc_krets); i++) {
		struct kc_kret *k = &kc_krets[i];

		if (k->state == KC_PROBE_ATTACHED || !kc_kret_in(k, module))
			continue;
		if (kc_kret_attach(k) != -ENOENT)
			loaded = true;
	}
	for (i = 0; i < ARRAY_SIZE(kc_krets); i++) {
		struct kc_kret *k = &kc_krets[i];

		if (module && kc_kret_in(k, module) &&
		    k->state == KC_PROBE_ABSENT && !loaded)
			k->state = KC_PROBE_WAITING;
		else if (k->state == KC_PROBE_ERROR)
			pr_warn("%s: cannot probe %s: error %d\n",
				kc_metric_name(k->metric), k->symbol, k->err);
	}
}

static int kc_module_event(struct notifier_block *nb, unsigned long action,
			   void *data)
{
	struct module *mod = data;
	unsigned int i;

	if (action != MODULE_STATE_LIVE && action != MODULE_STATE_GOING)
		return NOTIFY_DONE;
	mutex_lock(&kc_probes_lock);
	for (i = 0; i < ARRAY_SIZE(kc_krets); i++) {
		struct kc_kret *k = &kc_krets[i];

		if (!k->module || !kc_kret_in(k, mod->name))
			continue;
		if (action == MODULE_STATE_GOING) {
			kc_kret_detach(k, KC_PROBE_WAITING);
			continue;
		}
		/* LIVE: try once, below, for the whole module. */
		if (k->state != KC_PROBE_ATTACHED)
			k->state = KC_PROBE_OFF;
	}
	if (action == MODULE_STATE_LIVE)
		kc_attach_module(mod->name);
	mutex_unlock(&kc_probes_lock);
	return NOTIFY_DONE;
}

static struct notifier_block kc_module_nb = {
	.notifier_call = kc_module_event,
};

static void kc_kretprobes_free(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(kc_krets); i++) {
		free_percpu(kc_krets[i].hits);
		kc_krets[i].hits = NULL;
	}
}

int kc_kretprobes_init(unsigned int maxactive, bool fprobes)
{
	unsigned int i;
	int err;

	kc_maxactive = maxactive;
	kc_fprobes = fprobes;
	kc_krets_init();
	for (i = 0; i < ARRAY_SIZE(kc_krets); i++) {
		kc_krets[i].hits = alloc_percpu(u64);
		if (!kc_krets[i].hits) {
			kc_kretprobes_free();
			return -ENOMEM;
		}
	}
	/* First, so that a module loading meanwhile is not missed. */
	err = register_module_notifier(&kc_module_nb);
	if (err) {
		kc_kretprobes_free();
		return err;
	}
	mutex_lock(&kc_probes_lock);
	kc_attach_module(NULL);
	kc_attach_module(kc_home_name(KC_HOME_KVM));
	kc_attach_module(kc_home_name(KC_HOME_IRQBYPASS));
	mutex_unlock(&kc_probes_lock);
	/* A probe that cannot attach is reported in `probes`, not fatal. */
	return 0;
}

void kc_kretprobes_exit(void)
{
	unsigned int i;

	unregister_module_notifier(&kc_module_nb);
	mutex_lock(&kc_probes_lock);
	for (i = 0; i < ARRAY_SIZE(kc_krets); i++)
		kc_kret_detach(&kc_krets[i], KC_PROBE_OFF);
	mutex_unlock(&kc_probes_lock);
	kc_kretprobes_free();
}

unsigned int kc_kretprobes_count(void)
{
	return ARRAY_SIZE(kc_krets);
}

static u64 kc_kret_hits(const struct kc_kret *k)
{
	return kc_percpu_sum(k->hits);
}

/* Misses since load: this attachment's and those of earlier ones. */
static u64 kc_kret_missed(const struct kc_kret *k)
{
	u64 missed = k->missed_before;

	/* Written by the kprobe core without a lock: a counter, read once. */
	if (k->state == KC_PROBE_ATTACHED)
		missed += k->by_fprobe ? kc_fprobe_missed(&k->fp) :
			  READ_ONCE(k->rp.nmissed);
	return missed;
}

void kc_kretprobe_status(unsigned int i, struct kc_probe_status *st)
{
	const struct kc_probe_desc *desc = kc_probe_desc(i);
	const struct kc_kret *k = &kc_krets[i];

	/* From the table, which is there before kc_kretprobes_init(). */
	strscpy(st->metric, kc_metric_name(desc->metric), sizeof(st->metric));
	st->m = desc->metric;
	mutex_lock(&kc_probes_lock);
	/* How it is attached: an fprobe stands for the table's kretprobe. */
	strscpy(st->kind, k->state == KC_PROBE_ATTACHED && k->by_fprobe ?
		KC_KIND_FPROBE : desc->kind, sizeof(st->kind));
	strscpy(st->symbol, k->symbol[0] ? k->symbol : desc->symbols[0],
		sizeof(st->symbol));
	kc_probe_state_text(st->state, sizeof(st->state), k->state, k->err);
	st->hits = kc_kret_hits(k) - k->base_hits;
	st->missed = kc_kret_missed(k) - k->base_missed;
	mutex_unlock(&kc_probes_lock);
}

/*
 * Each attached kretprobe holds maxactive instances, used or not, and so
 * does an fprobe before 6.14, in a rethook of its own; from 6.14 an fprobe's
 * returns are kept on the tasks' own stacks, which are the kernel's.
 */
void kc_kretprobes_mem(struct kc_mem *mem)
{
	size_t size = sizeof(struct kretprobe_instance) +
		      sizeof(struct kc_kret_data);
	size_t fsize = KC_FPROBE_NODE_SIZE(sizeof(struct kc_kret_data));
	unsigned int i;

	mem->percpu += ARRAY_SIZE(kc_krets) * sizeof(u64);
	mutex_lock(&kc_probes_lock);
	for (i = 0; i < ARRAY_SIZE(kc_krets); i++) {
		if (kc_krets[i].state != KC_PROBE_ATTACHED ||
		    (kc_krets[i].by_fprobe && !KC_FPROBE_POOLED))
			continue;
		mem->kretprobe_instances += kc_maxactive;
		mem->kretprobes += kc_kretprobe_pool_bytes(kc_maxactive,
				   kc_krets[i].by_fprobe ? fsize : size);
	}
	mutex_unlock(&kc_probes_lock);
}

void kc_kretprobes_reset(void)
{
	unsigned int i;

	mutex_lock(&kc_probes_lock);
	for (i = 0; i < ARRAY_SIZE(kc_krets); i++) {
		struct kc_kret *k = &kc_krets[i];

		k->base_hits = kc_kret_hits(k);
		k->base_missed = kc_kret_missed(k);
	}
	mutex_unlock(&kc_probes_lock);
}

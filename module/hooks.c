// SPDX-License-Identifier: GPL-2.0
/*
 * hooks.c - what each kretprobe of KVM's and the irqbypass manager's means:
 * which calls it follows (want), what it does at their return (done), and
 * which VM's record the time goes to. probes.c attaches them and runs the
 * hooks; the exit path's two are exit.c's.
 */
#include <linux/kobject.h>
#include <linux/kvm.h>
#include <linux/kvm_host.h>
#include <linux/kvm_irqfd.h>
#include <linux/sched/clock.h>
#include <linux/string.h>

#include "exit.h"
#include "kret.h"

/*
 * A timed call of a VM's start-up, of part @part, begins: its thread's
 * times are kept to tell the call's own apart. Returns whether the VM
 * @kvm is starting. Every hook whose done calls kc_st_leave() calls this
 * first, or clears d->st_part itself: the exit path's entries never pay
 * for it.
 */
static bool kc_st_enter(struct kc_kret_data *d, const void *kvm,
			unsigned int part)
{
	struct kc_vmm_time t;

	d->st_part = 0;
	if (kc_vms_none_starting())
		return false;
	kc_vmm_time_task(current, local_clock(), &t);
	if (!kc_vm_st_interval((unsigned long)kvm, part, true, kc_now_unit(),
			       NULL))
		return false;
	d->ran = t.ran;
	d->waited = t.waited;
	d->slept = (u32)t.slept;
	d->st_part = part + 1;
	return true;
}

/*
 * The call returns: its part's interval closes, or with @ready, the VM's
 * start-up ends, and its parts go into the histograms.
 */
static void kc_st_leave(struct kc_kret_data *d, bool ready)
{
	struct kc_vmm_time t, end;
	struct kc_st_result st;
	u64 now_ns = local_clock();

	if (!d->st_part)
		return;
	kc_vmm_time_task(current, now_ns, &t);
	t.ran = t.ran > d->ran ? t.ran - d->ran : 0;
	t.waited = t.waited > d->waited ? t.waited - d->waited : 0;
	t.slept = (u32)((u32)t.slept - d->slept);
	if (!ready) {
		kc_vm_st_interval(d->vm, d->st_part - 1, false, kc_now_unit(),
				  &t);
		return;
	}
	kc_vmm_time_group(current, now_ns, &end);
	kc_vm_st_ready(d->vm, kc_now_unit(), &t, &end, &st);
	if (!st.valid || !READ_ONCE(kc_enabled))
		return;
	kc_record_window(KC_WIN_STARTUP, st.window, st.part);
}

/* The default: a call of a traced process, to its VMs' records. */
static bool kc_want_traced(struct kc_kret *k, struct kc_kret_data *d,
			   struct pt_regs *regs)
{
	if (!kc_traced())
		return false;
	kc_live(d, k->metric);
	return true;
}

/* The default, for a function whose first argument is the struct kvm *. */
static bool kc_want_traced_kvm(struct kc_kret *k, struct kc_kret_data *d,
			       struct pt_regs *regs)
{
	if (!kc_traced())
		return false;
	kc_for_vm(d, (void *)regs_get_kernel_argument(regs, 0));
	kc_live(d, k->metric);
	return true;
}

/* kvm_dev_ioctl(filp, ioctl, arg): only KVM_CREATE_VM, as the seed does. */
static bool kc_want_create_vm(struct kc_kret *k, struct kc_kret_data *d,
			      struct pt_regs *regs)
{
	if (regs_get_kernel_argument(regs, 1) != KVM_CREATE_VM || !kc_traced())
		return false;
	/* the VM it makes; in flight from its record's beginning (vms.c) */
	d->vm = current->tgid;
	d->vm_by = KC_VM_BY_CREATING;
	return true;
}

/*
 * The ioctl's time, whatever it returned, as the seed; the VM's record gets
 * it if a VM was made, and goes if not.
 */
static bool kc_done_create_vm(struct kc_kret *k, struct kc_kret_data *d,
			      struct pt_regs *regs, u64 value)
{
	bool ok = (long)regs_return_value(regs) >= 0;

	if (ok) {
		struct kc_vmm_time at;

		kc_vm_stage_creating(current->tgid, KC_M_KVM_CREATE_VM, value);
		kc_vmm_time_group(current, local_clock(), &at);
		kc_vm_st_begin(current->tgid, kc_to_unit(d->start),
			       kc_now_unit(), &at);
	}
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
 * Wherever it runs, it is a part of its process's teardown (vms.c), the
 * destroy within it apart.
 */
static bool kc_want_vm_release(struct kc_kret *k, struct kc_kret_data *d,
			       struct pt_regs *regs)
{
	struct file *filp = (struct file *)regs_get_kernel_argument(regs, 1);
	bool part;

	d->arg = (unsigned long)filp->private_data;
	d->timed = kc_traced();
	kc_for_vm(d, filp->private_data);
	kc_live(d, KC_M_KVM_VM_RELEASE);
	kc_vm_releasing(d->arg, KC_VM_REL_VM, true);
	part = kc_vm_td_interval(KC_VM_BY_KVM, d->arg,
				 KC_TD_PART(KC_M_TD_RELEASE), true,
				 kc_now_unit());
	return d->timed || part ||
	       kc_pair_get(KC_PAIR_VM, d->arg, KC_PAIR_PEEK, NULL);
}

static bool kc_done_vm_release(struct kc_kret *k, struct kc_kret_data *d,
			       struct pt_regs *regs, u64 value)
{
	kc_vm_td_interval(KC_VM_BY_KVM, d->arg, KC_TD_PART(KC_M_TD_RELEASE),
			  false, kc_now_unit());
	kc_vm_releasing(d->arg, KC_VM_REL_VM, false);
	kc_pair_get(KC_PAIR_VM, d->arg, KC_PAIR_TAKE, NULL);
	return d->timed;
}

/*
 * kvm_destroy_vm(kvm): timed for a traced process, as the seed; and a part
 * of its process's teardown wherever it runs (the last vCPU fd's release,
 * another holder's fput, a kworker), once a VM.
 */
static bool kc_want_destroy_vm(struct kc_kret *k, struct kc_kret_data *d,
			       struct pt_regs *regs)
{
	unsigned long kvm = regs_get_kernel_argument(regs, 0);

	d->arg = kc_vm_destroying(kvm, true, kc_now_unit());
	d->timed = kc_traced();
	kc_for_vm(d, (void *)kvm);
	kc_live(d, KC_M_KVM_DESTROY_VM);
	return d->timed || d->arg;
}

static bool kc_done_destroy_vm(struct kc_kret *k, struct kc_kret_data *d,
			       struct pt_regs *regs, u64 value)
{
	if (d->arg)
		kc_vm_destroying(d->vm, false, kc_now_unit());
	return d->timed;
}

/*
 * kvm_vcpu_release(inode, filp): a vCPU fd's release, which puts a
 * reference to the VM and runs its destroy if it was the last. Not timed:
 * it says under which release the destroy ran.
 */
static bool kc_want_vcpu_release(struct kc_kret *k, struct kc_kret_data *d,
				 struct pt_regs *regs)
{
	struct file *filp = (struct file *)regs_get_kernel_argument(regs, 1);
	struct kvm_vcpu *vcpu = filp->private_data;

	d->arg = (unsigned long)READ_ONCE(vcpu->kvm);
	return kc_vm_releasing(d->arg, KC_VM_REL_VCPU, true);
}

static bool kc_done_vcpu_release(struct kc_kret *k, struct kc_kret_data *d,
				 struct pt_regs *regs, u64 value)
{
	kc_vm_releasing(d->arg, KC_VM_REL_VCPU, false);
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
	kc_live(d, KC_M_IRQBYPASS_REGISTER);
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
	kc_live(d, KC_M_IRQBYPASS_UNREGISTER);
	/* the mark is looked up only when the filter does not answer */
	return kc_filter_all() ||
	       kc_pair_get(KC_PAIR_VM, (unsigned long)kvm, KC_PAIR_PEEK, NULL);
}

static bool kc_done_unregister(struct kc_kret *k, struct kc_kret_data *d,
			       struct pt_regs *regs, u64 value)
{
	kc_count(KC_C_IRQBYPASS_UNREGISTER);
	return true;
}

/*
 * kvm_vm_ioctl(filp, ioctl, arg): KVM_CREATE_VCPU is timed for a traced
 * process; and every ioctl of a VM that is starting is a part of its
 * start-up, the vCPU creates apart from the others.
 */
static bool kc_want_vm_ioctl(struct kc_kret *k, struct kc_kret_data *d,
			     struct pt_regs *regs)
{
	struct file *filp = (struct file *)regs_get_kernel_argument(regs, 0);
	bool vcpu = regs_get_kernel_argument(regs, 1) == KVM_CREATE_VCPU;
	bool part;

	d->timed = vcpu && kc_traced();
	kc_for_vm(d, filp->private_data);
	kc_live(d, vcpu ? KC_M_VCPU_CREATE : KC_M_ST_IOCTLS);
	part = kc_st_enter(d, filp->private_data,
			   KC_ST_PART(vcpu ? KC_M_ST_VCPUS : KC_M_ST_IOCTLS));
	return d->timed || part;
}

static bool kc_done_vm_ioctl(struct kc_kret *k, struct kc_kret_data *d,
			     struct pt_regs *regs, u64 value)
{
	kc_st_leave(d, false);
	return d->timed;
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

	d->st_part = 0;
	if (k->cand == KC_FIRST_RUN_PID_CHANGE) {
		struct kvm_vcpu *vcpu = (struct kvm_vcpu *)arg;

		if (!kc_vcpu_never_ran(vcpu) || !kc_traced())
			return false;
		kc_for_vm(d, vcpu->kvm);
		kc_live(d, KC_M_FIRST_RUN_SETUP);
		/* the start-up's part is the ready probe's, on this function */
		return true;
	}
	if (!kc_nx_once_pending((struct kvm *)arg) || !kc_traced())
		return false;
	kc_for_vm(d, (void *)arg);
	kc_live(d, KC_M_FIRST_RUN_SETUP);
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
	if (d->timed)
		kc_st_enter(d, (void *)arg, KC_ST_PART(KC_M_ST_FIRST_RUN));
	return d->timed;
}

static bool kc_done_first_run(struct kc_kret *k, struct kc_kret_data *d,
			      struct pt_regs *regs, u64 value)
{
	if (k->cand == KC_FIRST_RUN_NX)
		kc_pair_get(KC_PAIR_FIRST_RUN, d->arg, KC_PAIR_TAKE, NULL);
	kc_st_leave(d, false);
	return true;
}

/*
 * The VM is ready when its first vCPU's first KVM_RUN has done its
 * one-time setup, about to enter the guest; none of these runs on every
 * entry. x86: kvm_mmu_load(vcpu), which loads the MMU's root when it has
 * none, before an entry. arm64: kvm_arch_vcpu_run_pid_change(vcpu), the
 * first run's setup from 5.16, and kvm_timer_enable(vcpu) in that setup
 * before (its last step but the PMU's). The call's time is the start-up's
 * first run part; its return ends the window.
 */
static bool kc_want_ready(struct kc_kret *k, struct kc_kret_data *d,
			  struct pt_regs *regs)
{
	struct kvm_vcpu *vcpu =
		(struct kvm_vcpu *)regs_get_kernel_argument(regs, 0);
	struct kvm *kvm;

	if (kc_vms_none_starting())
		return false;	/* not followed: its done does not run */
	kvm = READ_ONCE(vcpu->kvm);
	kc_for_vm(d, kvm);
	return kc_st_enter(d, kvm, KC_ST_PART(KC_M_ST_FIRST_RUN));
}

static bool kc_done_ready(struct kc_kret *k, struct kc_kret_data *d,
			  struct pt_regs *regs, u64 value)
{
	kc_st_leave(d, true);
	return false;
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
	d->vm = current->tgid;
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
	kc_live(d, KC_M_MMU_NOTIFIER_UNREGISTER);
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

#define KC_HOOKS(name, ...) \
	static const struct kc_kret_ops kc_hooks_##name = { __VA_ARGS__ }

KC_HOOKS(traced_kvm, .want = kc_want_traced_kvm);
KC_HOOKS(create_vm, .want = kc_want_create_vm, .done = kc_done_create_vm);
KC_HOOKS(init_vm, .want = kc_want_init_vm);
KC_HOOKS(register, .want = kc_want_register, .done = kc_done_register);
KC_HOOKS(stage2, .want = kc_want_traced, .stands = kc_stage2_stands);
KC_HOOKS(vm_release, .want = kc_want_vm_release,
	 .done = kc_done_vm_release);
KC_HOOKS(destroy_vm, .want = kc_want_destroy_vm, .done = kc_done_destroy_vm);
KC_HOOKS(vcpu_release, .want = kc_want_vcpu_release,
	 .done = kc_done_vcpu_release);
KC_HOOKS(irqfd, .want = kc_want_irqfd);
KC_HOOKS(unregister, .want = kc_want_unregister,
	 .done = kc_done_unregister);
KC_HOOKS(vm_ioctl, .want = kc_want_vm_ioctl, .done = kc_done_vm_ioctl);
KC_HOOKS(ready, .want = kc_want_ready, .done = kc_done_ready);
KC_HOOKS(first_run, .want = kc_want_first_run, .done = kc_done_first_run,
	 .stands = kc_first_run_stands);
KC_HOOKS(uevent_create, .want = kc_want_uevent_create,
	 .done = kc_done_uevent_create);
KC_HOOKS(uevent_destroy, .want = kc_want_uevent_destroy,
	 .done = kc_done_uevent_destroy);
KC_HOOKS(mn_unregister, .want = kc_want_mn_unregister,
	 .done = kc_done_mn_unregister);

/* A row of hooks for each row of KC_KRETPROBES. */
const struct kc_kret_ops *const kc_kret_hooks[KC_NR_KRETPROBES] = {
	[KC_KRET_KVM_DEV_IOCTL] = &kc_hooks_create_vm,
	[KC_KRET_KVM_ARCH_INIT_VM] = &kc_hooks_init_vm,
	[KC_KRET_IRQ_BYPASS_REGISTER] = &kc_hooks_register,
	[KC_KRET_KVM_DESTROY_VM] = &kc_hooks_destroy_vm,
	[KC_KRET_KVM_DESTROY_VCPUS] = &kc_hooks_traced_kvm,
	[KC_KRET_KVM_MMU_TEARDOWN] = &kc_hooks_traced_kvm,
	[KC_KRET_STAGE2_DESTROY] = &kc_hooks_stage2,
	[KC_KRET_EXIT_MMAP] = &kc_exit_mmap_hooks,
	[KC_KRET_EXIT_FILES] = &kc_exit_files_hooks,
	[KC_KRET_KVM_VM_RELEASE] = &kc_hooks_vm_release,
	[KC_KRET_KVM_IRQFD] = &kc_hooks_irqfd,
	[KC_KRET_IRQ_BYPASS_UNREGISTER] = &kc_hooks_unregister,
	[KC_KRET_KVM_VM_IOCTL] = &kc_hooks_vm_ioctl,
	[KC_KRET_FIRST_RUN] = &kc_hooks_first_run,
	[KC_KRET_UEVENT_CREATE] = &kc_hooks_uevent_create,
	[KC_KRET_UEVENT_DESTROY] = &kc_hooks_uevent_destroy,
	[KC_KRET_MMU_NOTIFIER_UNREGISTER] = &kc_hooks_mn_unregister,
	[KC_KRET_KVM_VCPU_RELEASE] = &kc_hooks_vcpu_release,
	[KC_KRET_TASK_RELEASE] = &kc_task_release_hooks,
	[KC_KRET_VCPU_READY] = &kc_hooks_ready,
};

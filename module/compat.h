/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compat.h - every difference between the kernels kvmchurn supports, and
 * nothing else. The rest of the module is written against one API and
 * includes this header instead of testing versions itself.
 *
 * Tracepoint prototypes are also checked against the kernel's own
 * <trace/events/...> headers at build time (KC_TP_TYPECHECK), so a
 * prototype that changes in a kernel not listed here fails the build instead
 * of corrupting arguments at run time.
 */
#ifndef KVMCHURN_COMPAT_H
#define KVMCHURN_COMPAT_H

#include <linux/build_bug.h>
#include <linux/compiler.h>
#include <linux/cpumask.h>
#include <linux/errno.h>
#include <linux/log2.h>
#include <linux/sched.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/version.h>

/*
 * Without kretprobes the module times nothing, without both debugfs and
 * procfs nothing can read it: such a kernel fails the build (DKMS reports
 * it) rather than get a module that loads and does nothing. Without debugfs
 * alone the views are in /proc/kvmchurn (procfs.c).
 */
#if !IS_ENABLED(CONFIG_KRETPROBES) || \
	!(IS_ENABLED(CONFIG_DEBUG_FS) || IS_ENABLED(CONFIG_PROC_FS))
#error "kvmchurn needs a kernel built with CONFIG_KRETPROBES, and CONFIG_DEBUG_FS or CONFIG_PROC_FS"
#endif

/* 6.16 added group_dead to sched_process_exit (and moved it before exit_mm). */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 16, 0)
#define KC_SCHED_PROCESS_EXIT_PROTO \
	void *data, struct task_struct *p, bool group_dead
#else
#define KC_SCHED_PROCESS_EXIT_PROTO void *data, struct task_struct *p
#endif

/* A sched_process_exit probe, declared without naming its arguments. */
typedef void (kc_sched_process_exit_fn)(KC_SCHED_PROCESS_EXIT_PROTO);

/*
 * A tracepoint's probes run with preemption off until 7.0, which calls them
 * under SRCU-fast, preemptible (RT or not): a probe that uses per-CPU data
 * turns preemption off itself there, and pays nothing before. One that an
 * RCU callback fires runs with bottom halves off, which keeps preemption
 * off too, but on PREEMPT_RT.
 */
#include <linux/preempt.h>

#define KC_TP_PREEMPTIBLE (LINUX_VERSION_CODE >= KERNEL_VERSION(7, 0, 0))
#define KC_TP_PREEMPTIBLE_BH (KC_TP_PREEMPTIBLE && IS_ENABLED(CONFIG_PREEMPT_RT))

static __always_inline void kc_tp_preempt_disable(bool preemptible)
{
	if (preemptible)
		preempt_disable_notrace();
}

static __always_inline void kc_tp_preempt_enable(bool preemptible)
{
	if (preemptible)
		preempt_enable_notrace();
}

/*
 * sched_info, which the scheduler brings up to date each time a task gets
 * a CPU: how long @t has waited on a run queue so far, in ns; when it last
 * got a CPU, and when it was queued (0: it is not), by the run queue's
 * clock, local_clock()'s. All 0 without CONFIG_SCHED_INFO (Debian's
 * kernels and the debug kernel have it).
 */
#ifdef CONFIG_SCHED_INFO
static inline u64 kc_run_delay(const struct task_struct *t)
{
	return READ_ONCE(t->sched_info.run_delay);
}

static inline u64 kc_last_arrival(const struct task_struct *t)
{
	return READ_ONCE(t->sched_info.last_arrival);
}

static inline u64 kc_last_queued(const struct task_struct *t)
{
	return READ_ONCE(t->sched_info.last_queued);
}
#else
static inline u64 kc_run_delay(const struct task_struct *t) { return 0; }
static inline u64 kc_last_arrival(const struct task_struct *t) { return 0; }
static inline u64 kc_last_queued(const struct task_struct *t) { return 0; }
#endif

/* 7.1 swapped order and gfp_flags and added the memcg to the vmscan events. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(7, 1, 0)
#define KC_RECLAIM_BEGIN_PROTO \
	void *data, gfp_t gfp_flags, int order, struct mem_cgroup *memcg
#define KC_RECLAIM_END_PROTO \
	void *data, unsigned long nr_reclaimed, struct mem_cgroup *memcg
#else
#define KC_RECLAIM_BEGIN_PROTO void *data, int order, gfp_t gfp_flags
#define KC_RECLAIM_END_PROTO void *data, unsigned long nr_reclaimed
#endif

/* 5.11 replaced kretprobe_instance::rp with get_kretprobe(). */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(5, 11, 0)
#define kc_kretprobe_of(ri) get_kretprobe(ri)
#else
#define kc_kretprobe_of(ri) ((ri)->rp)
#endif

/*
 * The bytes kmalloc(@size) takes: 6.1 has the allocator's own answer. Before,
 * mm/slab_common.c decides as here: nothing below KMALLOC_MIN_SIZE, powers of
 * two, and the 96 and 192 caches only where that minimum leaves them aligned
 * (create_kmalloc_caches(), setup_kmalloc_cache_index_table()): arm64 before
 * 6.5 has a minimum of ARCH_DMA_MINALIGN, 128, and neither.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 1, 0)
#define kc_kmalloc_size(size) kmalloc_size_roundup(size)
#else
static inline size_t kc_kmalloc_size(size_t size)
{
	size = max_t(size_t, size, KMALLOC_MIN_SIZE);
	if (KMALLOC_MIN_SIZE <= 32 && size > 64 && size <= 96)
		return 96;
	if (KMALLOC_MIN_SIZE <= 64 && size > 128 && size <= 192)
		return 192;
	return roundup_pow_of_two(size);
}
#endif

/*
 * One zeroed object of @p's type (a type, or an object such as *ptr): 7.x's
 * kzalloc_obj(), whose checkpatch asks for it over kzalloc(sizeof(...)), or
 * that kzalloc() where there is none.
 */
#ifndef kzalloc_obj
#define kzalloc_obj(p, gfp) kzalloc(sizeof(p), gfp)
#endif

/*
 * What the kprobe core allocates for @maxactive instances of @size bytes:
 * before 6.7 one kmalloc() each; from 6.7 an objpool, which vmallocs one
 * slot a possible CPU: a ring of roundup_pow_of_two(@maxactive) entries and
 * that CPU's share of the objects, each aligned to a long (objpool_init()).
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 7, 0)
#include <linux/mm.h>
#include <linux/objpool.h>
static inline size_t kc_kretprobe_pool_bytes(unsigned int maxactive,
					     size_t size)
{
	unsigned int cpus = num_possible_cpus(), i;
	size_t ring = struct_size_t(struct objpool_slot, entries,
				    roundup_pow_of_two(maxactive));
	size_t obj = ALIGN(size, sizeof(long)), bytes = 0;

	for (i = 0; i < cpus; i++)
		bytes += PAGE_ALIGN(ring + obj * (maxactive / cpus +
						  (i < maxactive % cpus)));
	return bytes;
}
#else
static inline size_t kc_kretprobe_pool_bytes(unsigned int maxactive,
					     size_t size)
{
	return (size_t)maxactive * kc_kmalloc_size(size);
}
#endif

/*
 * fprobe: a function's entry and return by ftrace, where a kretprobe without
 * kprobes on ftrace (arm64) traps twice a call. Used from 6.5, whose entry
 * handler can decline the return (6.3) and is given the return address
 * (6.5); 6.14 moved fprobe onto the function graph tracer, which passes
 * ftrace_regs and keeps returns on each task's own stack, not in a pool.
 * Without it (5.10, or no CONFIG_FPROBE: Debian's 6.1 and arm64 6.12) every
 * probe is a kretprobe, and these stubs are never called. Only fprobes=1
 * asks for it: on every kernel measured an unmatched exit costs more by
 * fprobe than by kretprobe (Documentation/performance.rst).
 */
#if IS_ENABLED(CONFIG_FPROBE) && LINUX_VERSION_CODE >= KERNEL_VERSION(6, 5, 0)
#include <linux/fprobe.h>
#define KC_HAVE_FPROBE	true
struct kc_fprobe {
	struct fprobe fp;
};

#define kc_fprobe_of(p) container_of(p, struct kc_fprobe, fp)
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 14, 0)
#define KC_FPROBE_ARGS struct fprobe *fp, unsigned long ip, \
	unsigned long ret_ip, struct ftrace_regs *regs, void *data
#define KC_FPROBE_POOLED	false
#define kc_fprobe_set_maxactive(fp, n) ((void)(fp), (void)(n))
#else
#define KC_FPROBE_ARGS struct fprobe *fp, unsigned long ip, \
	unsigned long ret_ip, struct pt_regs *regs, void *data
#define KC_FPROBE_POOLED	true
#define kc_fprobe_set_maxactive(fp, n) ((fp)->nr_maxactive = (n))
#endif
typedef int (*kc_fentry_fn)(KC_FPROBE_ARGS);
typedef void (*kc_fexit_fn)(KC_FPROBE_ARGS);

/* One fprobe on @sym, @size bytes of entry data: 0 or the kernel's error. */
static inline int kc_fprobe_register(struct kc_fprobe *f, const char *sym,
				     kc_fentry_fn entry, kc_fexit_fn exit,
				     size_t size, unsigned int maxactive)
{
	memset(f, 0, sizeof(*f));
	f->fp.entry_handler = entry;
	f->fp.exit_handler = exit;
	f->fp.entry_data_size = size;
	kc_fprobe_set_maxactive(&f->fp, maxactive);
	return register_fprobe_syms(&f->fp, &sym, 1);
}

static inline void kc_fprobe_unregister(struct kc_fprobe *f)
{
	unregister_fprobe(&f->fp);
}

/* Calls it let go: recursion, or (before 6.14) no free return instance. */
static inline unsigned long kc_fprobe_missed(const struct kc_fprobe *f)
{
	return READ_ONCE(f->fp.nmissed);
}

/* Each return's node in its rethook (fprobe.c's fprobe_rethook_node). */
#define KC_FPROBE_NODE_SIZE(size) \
	(sizeof(struct rethook_node) + 2 * sizeof(unsigned long) + (size))
#else
#define KC_HAVE_FPROBE	false
struct kc_fprobe {
	unsigned long nmissed;
};

#define kc_fprobe_of(p) (p)
#define KC_FPROBE_ARGS struct kc_fprobe *fp, unsigned long ip, \
	unsigned long ret_ip, struct pt_regs *regs, void *data
#define KC_FPROBE_POOLED	false
typedef int (*kc_fentry_fn)(KC_FPROBE_ARGS);
typedef void (*kc_fexit_fn)(KC_FPROBE_ARGS);

static inline int kc_fprobe_register(struct kc_fprobe *f, const char *sym,
				     kc_fentry_fn entry, kc_fexit_fn exit,
				     size_t size, unsigned int maxactive)
{
	return -EOPNOTSUPP;
}

static inline void kc_fprobe_unregister(struct kc_fprobe *f)
{
}

static inline unsigned long kc_fprobe_missed(const struct kc_fprobe *f)
{
	return 0;
}

#define KC_FPROBE_NODE_SIZE(size) (size)
#endif

/*
 * A vCPU that has not entered the guest yet, so that this KVM_RUN is its
 * first. arm64 has the kernel's own test from 5.16, a macro that follows
 * vcpu->pid from RCU to a rwlock; before, a flag that the first run sets
 * (and kvm_arch_vcpu_run_pid_change() is inline there, so that nothing
 * probes it: the test only has to compile). x86 keeps -1 in
 * last_vmentry_cpu until the first VM entry (unsigned before 5.13).
 */
#if defined(CONFIG_ARM64)
#include <linux/kvm_host.h>
#ifdef vcpu_has_run_once
#define kc_vcpu_never_ran(vcpu) (!vcpu_has_run_once(vcpu))
#else
#define kc_vcpu_never_ran(vcpu) (!READ_ONCE((vcpu)->arch.has_run_once))
#endif
#elif defined(CONFIG_X86)
#define kc_vcpu_never_ran(vcpu) \
	((int)READ_ONCE((vcpu)->arch.last_vmentry_cpu) == -1)
#else
#define kc_vcpu_never_ran(vcpu) ((void)(vcpu), false)
#endif

/*
 * x86 starts a VM's NX huge page recovery task with call_once() in
 * kvm_mmu_post_init_vm() at each KVM_RUN from 6.13 and 6.12.y's backport
 * (which brought <linux/call_once.h>); before, kvm_mmu_post_init_vm() ran
 * once, in KVM_CREATE_VM, and is part of kvm_create_vm's time.
 */
#if defined(CONFIG_X86) && defined(__has_include)	/* not in sparse 0.6.4 */
#if __has_include("linux/call_once.h")
#include <linux/call_once.h>
#endif
#endif
#ifdef ONCE_NOT_STARTED
#define KC_NX_AT_FIRST_RUN	true
#define kc_nx_once_pending(kvm) \
	(atomic_read(&(kvm)->arch.nx_once.state) == ONCE_NOT_STARTED)
#define kc_nx_once_done(kvm) \
	(atomic_read(&(kvm)->arch.nx_once.state) == ONCE_COMPLETED)
#else
#define KC_NX_AT_FIRST_RUN	false
#define kc_nx_once_pending(kvm) ((void)(kvm), false)
#define kc_nx_once_done(kvm) ((void)(kvm), true)
#endif

/*
 * arm64 6.19 split kvm_pgtable_stage2_destroy(): the host tears stage 2 down
 * in kvm_stage2_destroy(), range by range with cond_resched() between, then
 * the PGD; the old function stays in vmlinux, but only EL2 calls it.
 */
#define KC_STAGE2_SPLIT (LINUX_VERSION_CODE >= KERNEL_VERSION(6, 19, 0))

/*
 * Another task's kernel stack, for a stall's report: stack_trace_save_tsk()
 * is exported to modules from 6.7 (for bcachefs). Before, -EOPNOTSUPP, and
 * the report names /proc/<pid>/stack, which has it. As get_wchan() does, a
 * task is walked only while it is blocked and its pi_lock keeps it so: a
 * running task's stack is garbage, and unwinding it through a kretprobe's
 * trampoline warns (rethook_find_ret_addr()). 0 frames: it was running.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 7, 0) && IS_ENABLED(CONFIG_STACKTRACE)
#include <linux/stacktrace.h>
static inline int kc_task_stack(struct task_struct *t, unsigned long *store,
				unsigned int size)
{
	unsigned long flags;
	unsigned int state;
	int n = 0;

	raw_spin_lock_irqsave(&t->pi_lock, flags);
	state = READ_ONCE(t->__state);
	smp_rmb(); /* as try_to_wake_up() orders __state and on_rq */
	if (state != TASK_RUNNING && state != TASK_WAKING &&
	    !READ_ONCE(t->on_rq))
		n = stack_trace_save_tsk(t, store, size, 0);
	raw_spin_unlock_irqrestore(&t->pi_lock, flags);
	return n;
}
#else
static inline int kc_task_stack(struct task_struct *t, unsigned long *store,
				unsigned int size)
{
	return -EOPNOTSUPP;
}
#endif

/* Fails the build if @probe does not have the type that @event expects. */
#define KC_TP_TYPECHECK(event, probe)					\
	static_assert(__builtin_types_compatible_p(			\
		typeof(register_trace_##event) *,			\
		int (*)(typeof(probe) *, void *)),			\
		"prototype of " #probe " does not match " #event)

/* The memcg reclaim events exist only with CONFIG_MEMCG. */
#ifdef CONFIG_MEMCG
#define KC_TP_TYPECHECK_MEMCG(event, probe) KC_TP_TYPECHECK(event, probe)
#else
#define KC_TP_TYPECHECK_MEMCG(event, probe) \
	static_assert(__builtin_types_compatible_p(typeof(probe), typeof(probe)), \
		      #event " needs CONFIG_MEMCG")
#endif

#endif /* KVMCHURN_COMPAT_H */

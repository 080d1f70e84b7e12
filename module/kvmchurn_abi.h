/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kvmchurn_abi.h - the names and numbers that the module and the client must
 * agree on, each written once: the metric table, the probes, the counters,
 * the histogram slot layout, the `raw` file's records, the probe states, the
 * filter's limits and the END checks' bounds.
 *
 * This header compiles in the kernel and in userspace (C11). It holds no
 * logic but table lookups; the rules both sides apply to these numbers are in
 * kvmchurn_rules.h.
 */
#ifndef KVMCHURN_ABI_H
#define KVMCHURN_ABI_H

#ifdef __KERNEL__
#include <linux/kernel.h>
#include <linux/types.h>
#else
#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#endif

/*
 * The metric table, one row a metric, in the seed script's reading order,
 * kvmchurn's additions (stages the seed could not time) where they read
 * (kvm_mmu_teardown) or after the seed's:
 *   X(id, name, seed, origin, group, unit, label, span)
 * seed is the map's name after "@us_" ("irqbypass[register]" is the key
 * "register" of the map @us_irqbypass): the seed's own for a SEED row, in
 * its style for an ADDED one; group is the seed's reading guide's; unit is
 * what the value measures; label heads its column in `kvmchurn vms` (at
 * most KC_LABEL_MAX characters); span what starts and ends it. The module's
 * probes for a row are in KC_KRETPROBES and KC_TRACEPOINTS.
 */
#define KC_METRICS(X)							\
	X(KVM_CREATE_VM, "kvm_create_vm", "kvm_create_vm",		\
	  SEED, CREATE, TIME, "create",					\
	  "KVM_CREATE_VM ioctl entry -> return")			\
	X(IRQBYPASS_REGISTER, "irqbypass_register", "irqbypass[register]", \
	  SEED, CREATE, TIME, "irq_reg",				\
	  "irq_bypass_register_consumer() entry -> return")		\
	X(SIGNAL_TO_EXIT, "signal_to_exit", "signal_to_exit",		\
	  SEED, EXIT, TIME, "sig2exit",					\
	  "first SIGTERM/SIGKILL delivery -> leader sched_process_exit") \
	X(EXIT_TO_REAP, "exit_to_reap", "exit_to_reap",			\
	  SEED, EXIT, TIME, "ex2reap",					\
	  "leader sched_process_exit -> sched_process_free")		\
	X(EXIT_FILES, "exit_files", "exit_files",			\
	  SEED, EXIT, TIME, "files",					\
	  "exit_files() of the thread that closed the files (else the longest)") \
	X(EXIT_MMAP, "exit_mmap", "exit_mmap",				\
	  SEED, EXIT, TIME, "mmap",					\
	  "exit_mmap() entry -> return")				\
	X(KVM_VM_RELEASE, "kvm_vm_release", "kvm_vm_release",		\
	  SEED, EXIT, TIME, "release",					\
	  "kvm_vm_release() entry -> return")				\
	X(KVM_DESTROY_VM, "kvm_destroy_vm", "kvm_destroy_vm",		\
	  SEED, EXIT, TIME, "destroy",					\
	  "kvm_destroy_vm() entry -> return")				\
	X(KVM_DESTROY_VCPUS, "kvm_destroy_vcpus", "kvm_destroy_vcpus",	\
	  SEED, EXIT, TIME, "vcpus_d",					\
	  "kvm_destroy_vcpus() entry -> return")			\
	X(STAGE2_DESTROY, "stage2_destroy", "stage2_destroy",		\
	  SEED, EXIT, TIME, "stage2",					\
	  "kvm_pgtable_stage2_destroy(), from 6.19 kvm_stage2_destroy(): " \
	  "entry -> return")						\
	X(KVM_MMU_TEARDOWN, "kvm_mmu_teardown", "kvm_mmu_teardown",	\
	  ADDED, EXIT, TIME, "mmu_td",					\
	  "kvm_arch_flush_shadow_all() entry -> return")		\
	X(IRQBYPASS_UNREGISTER, "irqbypass_unregister", "irqbypass[unregister]", \
	  SEED, EXIT, TIME, "irq_unr",					\
	  "irq_bypass_unregister_consumer() entry -> return (kworker)")	\
	X(RECLAIM_DIRECT, "reclaim_direct", "reclaim_direct",		\
	  SEED, RECLAIM, TIME, "rcl_dir",				\
	  "mm_vmscan_direct_reclaim_begin -> _end, same task")		\
	X(RECLAIM_MEMCG, "reclaim_memcg", "reclaim_memcg",		\
	  SEED, RECLAIM, TIME, "rcl_mcg",				\
	  "mm_vmscan_memcg_reclaim_begin -> _end, same task")		\
	X(VCPU_CREATE, "vcpu_create", "vcpu_create",			\
	  ADDED, CREATE, TIME, "vcpus_c",				\
	  "KVM_CREATE_VCPU ioctl entry -> return")			\
	X(FIRST_RUN_SETUP, "first_run_setup", "first_run_setup",	\
	  ADDED, CREATE, TIME, "1st_run",				\
	  "the first KVM_RUN's one-time setup (arm64: a vCPU's, x86: the VM's)") \
	X(UEVENT_CREATE, "uevent_create", "uevent_create",		\
	  ADDED, CREATE, TIME, "uev_c",					\
	  "kobject_uevent_env() of /dev/kvm, EVENT=create")		\
	X(UEVENT_DESTROY, "uevent_destroy", "uevent_destroy",		\
	  ADDED, EXIT, TIME, "uev_d",					\
	  "kobject_uevent_env() of /dev/kvm, EVENT=destroy")		\
	X(MMU_NOTIFIER_UNREGISTER, "mmu_notifier_unregister", "mmu_notifier_unregister", \
	  ADDED, EXIT, TIME, "mn_unreg",				\
	  "mmu_notifier_unregister() in kvm_destroy_vm")		\
	X(EXIT_TO_REAPED, "exit_to_reaped", "exit_to_reaped",		\
	  ADDED, EXIT, TIME, "ex2rpd",					\
	  "leader sched_process_exit -> reaped (what the parent's wait waits)") \
	X(STARTUP, "startup", "startup",				\
	  ADDED, STARTUP, TIME, "startup",				\
	  "KVM_CREATE_VM ioctl entry -> ready: its first vCPU's first KVM_RUN, " \
	  "set up, about to enter the guest")				\
	KC_STARTUP_PARTS(X)						\
	X(TEARDOWN, "teardown", "teardown",				\
	  ADDED, TEARDOWN, TIME, "teardown",				\
	  "first SIGTERM/SIGKILL delivery (or the leader's exit) -> leader freed") \
	KC_TEARDOWN_PARTS(X)

/*
 * The start-up's parts, which fill its window as the teardown's fill
 * theirs: the first KC_ST_NR_INTERVALS are the timed calls, by priority;
 * the time none of them holds is the VMM's own, split after the window by
 * what its threads' CPU accounting says they did (vmm_time.c).
 */
#define KC_STARTUP_PARTS(X)						\
	X(ST_CREATE, "st_create", "st_create",				\
	  ADDED, STARTUP, TIME, "s_create",				\
	  "its KVM_CREATE_VM ioctl")					\
	X(ST_FIRST_RUN, "st_first_run", "st_first_run",			\
	  ADDED, STARTUP, TIME, "s_1st",				\
	  "the first KVM_RUN's one-time setup, to ready")		\
	X(ST_VCPUS, "st_vcpus", "st_vcpus",				\
	  ADDED, STARTUP, TIME, "s_vcpus",				\
	  "its KVM_CREATE_VCPU ioctls")					\
	X(ST_IOCTLS, "st_ioctls", "st_ioctls",				\
	  ADDED, STARTUP, TIME, "s_ioctl",				\
	  "its other VM ioctls: memory slots, irqchip, irqfds")		\
	X(ST_USER, "st_user", "st_user",				\
	  ADDED, STARTUP, TIME, "s_user",				\
	  "the VMM's threads in user mode, the above apart")		\
	X(ST_KERNEL, "st_kernel", "st_kernel",				\
	  ADDED, STARTUP, TIME, "s_kernel",				\
	  "the VMM's threads in the kernel outside those ioctls: page faults") \
	X(ST_RUNQ, "st_runq", "st_runq",				\
	  ADDED, STARTUP, TIME, "s_runq",				\
	  "the VMM's threads waiting on a run queue")			\
	X(ST_BLOCKED, "st_blocked", "st_blocked",			\
	  ADDED, STARTUP, TIME, "s_block",				\
	  "none of its threads on a CPU or a run queue, one having slept") \
	X(ST_OTHER, "st_other", "st_other",				\
	  ADDED, STARTUP, TIME, "s_other",				\
	  "the rest: what the VMM's accounting does not place")

#define KC_ST_NR_INTERVALS	4

/*
 * The teardown's parts, which fill its window: every instant of it is in
 * exactly one. The first KC_TD_NR_INTERVALS are intervals, in priority
 * order (the first of those open holds the instant); the rest hold the
 * instants no interval does, by where the process is.
 */
#define KC_TEARDOWN_PARTS(X)						\
	X(TD_DESTROY, "td_destroy", "td_destroy",			\
	  ADDED, TEARDOWN, TIME, "t_destr",				\
	  "kvm_destroy_vm() of the process's VMs, wherever it runs")	\
	X(TD_RELEASE, "td_release", "td_release",			\
	  ADDED, TEARDOWN, TIME, "t_relea",				\
	  "kvm_vm_release() of its VMs, the destroy apart")		\
	X(TD_TASK_WORK, "td_task_work", "td_task_work",			\
	  ADDED, TEARDOWN, TIME, "t_twork",				\
	  "the closing thread, exit_files() -> its release: the deferred fputs") \
	X(TD_EXIT_MMAP, "td_exit_mmap", "td_exit_mmap",			\
	  ADDED, TEARDOWN, TIME, "t_mmap",				\
	  "its exiting threads' exit_mmap(), the above apart")		\
	X(TD_EXIT_FILES, "td_exit_files", "td_exit_files",		\
	  ADDED, TEARDOWN, TIME, "t_files",				\
	  "its exiting threads' exit_files(), the above apart")		\
	X(TD_THREADS, "td_threads", "td_threads",			\
	  ADDED, TEARDOWN, TIME, "t_thrds",				\
	  "the leader's exit_files() returned -> parent notified: the other threads") \
	X(REAP_WAIT, "reap_wait", "reap_wait",				\
	  ADDED, TEARDOWN, TIME, "t_reapw",				\
	  "parent notified (its SIGCHLD) -> reaped (release of the leader)") \
	X(RCU_FREE, "rcu_free", "rcu_free",				\
	  ADDED, TEARDOWN, TIME, "t_rcu",				\
	  "reaped -> leader freed (sched_process_free): an RCU grace period") \
	X(TD_WAKE, "td_wake", "td_wake",				\
	  ADDED, TEARDOWN, TIME, "t_wake",				\
	  "first fatal signal -> the leader takes one: it was not running") \
	X(TD_RUNQ, "td_runq", "td_runq",				\
	  ADDED, TEARDOWN, TIME, "t_runq",				\
	  "the leader on a run queue, from taking the signal to its exit") \
	X(TD_OTHER, "td_other", "td_other",				\
	  ADDED, TEARDOWN, TIME, "t_other",				\
	  "the rest: threads not yet dying, do_exit()'s own work")

#define KC_TD_NR_INTERVALS	5

/*
 * What a metric's numbers need besides its own probes (the rows below whose
 * metric it is): X(metric, on) says the probes of metric @on too, and what
 * @on rests on in turn (KC_RESTS_DEPTH deep). The teardown's window rests
 * on the events that bound it, and each part on the window and on the
 * probes whose events open and close its intervals; a part whose probe is
 * missing gives its time to the part that holds the instants none does.
 * The start-up's the same, but st_first_run, which the ready probe (the
 * window's own) times where first_run_setup has no probe.
 */
#define KC_RESTS_ON(X)							\
	X(EXIT_TO_REAPED, EXIT_TO_REAP)					\
	X(TEARDOWN, SIGNAL_TO_EXIT)					\
	X(TEARDOWN, EXIT_TO_REAP)					\
	X(TD_DESTROY, KVM_DESTROY_VM)					\
	X(TD_DESTROY, TEARDOWN)						\
	X(TD_RELEASE, KVM_VM_RELEASE)					\
	X(TD_RELEASE, TEARDOWN)						\
	X(TD_TASK_WORK, EXIT_FILES)					\
	X(TD_TASK_WORK, EXIT_TO_REAPED)					\
	X(TD_TASK_WORK, TEARDOWN)					\
	X(TD_EXIT_MMAP, EXIT_MMAP)					\
	X(TD_EXIT_MMAP, TEARDOWN)					\
	X(TD_EXIT_FILES, EXIT_FILES)					\
	X(TD_EXIT_FILES, TEARDOWN)					\
	X(TD_THREADS, EXIT_FILES)					\
	X(TD_THREADS, REAP_WAIT)					\
	X(TD_THREADS, TEARDOWN)						\
	X(REAP_WAIT, EXIT_TO_REAPED)					\
	X(REAP_WAIT, TEARDOWN)						\
	X(RCU_FREE, EXIT_TO_REAPED)					\
	X(RCU_FREE, TEARDOWN)						\
	X(TD_WAKE, TEARDOWN)						\
	X(TD_RUNQ, TEARDOWN)						\
	X(TD_OTHER, TEARDOWN)						\
	X(STARTUP, KVM_CREATE_VM)					\
	X(ST_CREATE, STARTUP)						\
	X(ST_FIRST_RUN, STARTUP)					\
	X(ST_VCPUS, VCPU_CREATE)					\
	X(ST_VCPUS, STARTUP)						\
	X(ST_IOCTLS, VCPU_CREATE)					\
	X(ST_IOCTLS, STARTUP)						\
	X(ST_USER, STARTUP)						\
	X(ST_KERNEL, STARTUP)						\
	X(ST_RUNQ, STARTUP)						\
	X(ST_BLOCKED, STARTUP)						\
	X(ST_OTHER, STARTUP)

#define KC_RESTS_DEPTH	2

/*
 * The kretprobes, in the order the `probes` file lists them:
 *   X(id, kind, metric, home, symbol...)
 * kind is how the probe is attached: KRETPROBE, or KPROBE for one whose
 * hooks only mark an instant and never follow a call to its return (no
 * return instance is taken); home is where the symbols live (KERNEL, KVM,
 * IRQBYPASS); the symbols are the candidates, tried in order until one
 * attaches. Probes of a metric that only mark state (kvm_arch_init_vm,
 * kvm_irqfd) time nothing (probes.c).
 */
#define KC_KRETPROBES(X)						\
	X(KVM_DEV_IOCTL, KRETPROBE, KVM_CREATE_VM, KVM,			\
	  "kvm_dev_ioctl")						\
	X(KVM_ARCH_INIT_VM, KRETPROBE, KVM_CREATE_VM, KVM,		\
	  "kvm_arch_init_vm")						\
	X(IRQ_BYPASS_REGISTER, KRETPROBE, IRQBYPASS_REGISTER, IRQBYPASS, \
	  "irq_bypass_register_consumer")				\
	X(EXIT_MMAP, KRETPROBE, EXIT_MMAP, KERNEL, "exit_mmap")		\
	X(EXIT_FILES, KRETPROBE, EXIT_FILES, KERNEL, "exit_files")	\
	X(KVM_VM_RELEASE, KRETPROBE, KVM_VM_RELEASE, KVM,		\
	  "kvm_vm_release")						\
	X(KVM_DESTROY_VM, KRETPROBE, KVM_DESTROY_VM, KVM,		\
	  "kvm_destroy_vm")						\
	X(KVM_DESTROY_VCPUS, KRETPROBE, KVM_DESTROY_VCPUS, KVM,		\
	  "kvm_destroy_vcpus")						\
	X(STAGE2_DESTROY, KRETPROBE, STAGE2_DESTROY, KVM,		\
	  "kvm_stage2_destroy", "kvm_pgtable_stage2_destroy")		\
	X(KVM_MMU_TEARDOWN, KRETPROBE, KVM_MMU_TEARDOWN, KVM,		\
	  "kvm_arch_flush_shadow_all")					\
	X(KVM_IRQFD, KRETPROBE, IRQBYPASS_UNREGISTER, KVM, "kvm_irqfd")	\
	X(IRQ_BYPASS_UNREGISTER, KRETPROBE, IRQBYPASS_UNREGISTER, IRQBYPASS, \
	  "irq_bypass_unregister_consumer")				\
	X(KVM_VM_IOCTL, KRETPROBE, VCPU_CREATE, KVM, "kvm_vm_ioctl")	\
	X(FIRST_RUN, KRETPROBE, FIRST_RUN_SETUP, KVM,			\
	  "kvm_arch_vcpu_run_pid_change", "kvm_mmu_post_init_vm")	\
	X(UEVENT_CREATE, KRETPROBE, UEVENT_CREATE, KERNEL,		\
	  "kobject_uevent_env")						\
	X(UEVENT_DESTROY, KRETPROBE, UEVENT_DESTROY, KERNEL,		\
	  "kobject_uevent_env")						\
	X(MMU_NOTIFIER_UNREGISTER, KRETPROBE, MMU_NOTIFIER_UNREGISTER, KERNEL, \
	  "mmu_notifier_unregister")					\
	X(KVM_VCPU_RELEASE, KRETPROBE, TD_DESTROY, KVM,			\
	  "kvm_vcpu_release")						\
	X(TASK_RELEASE, KPROBE, EXIT_TO_REAPED, KERNEL,			\
	  "cgroup_task_release", "cgroup_release")			\
	X(VCPU_READY, KRETPROBE, STARTUP, KVM, "kvm_mmu_load",		\
	  "kvm_arch_vcpu_run_pid_change", "kvm_timer_enable")

/*
 * The tracepoints, listed after the kretprobes: X(id, metric, tracepoint).
 * The tracepoint is a token: tracepoints.c names its handler after it.
 */
#define KC_TRACEPOINTS(X)						\
	X(SIGNAL_DELIVER, SIGNAL_TO_EXIT, signal_deliver)		\
	X(SCHED_PROCESS_EXIT, EXIT_TO_REAP, sched_process_exit)		\
	X(SCHED_PROCESS_FREE, EXIT_TO_REAP, sched_process_free)		\
	X(DIRECT_BEGIN, RECLAIM_DIRECT, mm_vmscan_direct_reclaim_begin)	\
	X(DIRECT_END, RECLAIM_DIRECT, mm_vmscan_direct_reclaim_end)	\
	X(MEMCG_BEGIN, RECLAIM_MEMCG, mm_vmscan_memcg_reclaim_begin)	\
	X(MEMCG_END, RECLAIM_MEMCG, mm_vmscan_memcg_reclaim_end)	\
	X(SIGNAL_GENERATE, REAP_WAIT, signal_generate)

/* Event counters, X(id, name, seed): printed as the seed's @n_<seed>. */
#define KC_COUNTERS(X)							\
	X(SIGTERM, "sigterm", "sigterm")				\
	X(SIGKILL, "sigkill", "sigkill")				\
	X(EXIT, "exit", "exit")						\
	X(REAP, "reap", "reap")						\
	X(IRQBYPASS_REGISTER, "irqbypass_register", "irqbypass[register]") \
	X(IRQBYPASS_UNREGISTER, "irqbypass_unregister",			\
	  "irqbypass[unregister]")

/* The three groups of the seed's reading guide: X(id, name, title). */
#define KC_GROUPS(X)							\
	X(CREATE, "create", "create path: once per VM (load or snapshot restore)") \
	X(EXIT, "exit", "exit path: after the VMM is signalled")	\
	X(RECLAIM, "reclaim", "reclaim: stalls on either path")		\
	X(STARTUP, "startup", "start-up: each VM's, every instant in one part") \
	X(TEARDOWN, "teardown", "teardown: each VM's, every instant in one part")

/* Whose a metric is: X(id, name). */
#define KC_ORIGINS(X)							\
	X(SEED, "seed")		/* one of the seed script's maps */	\
	X(ADDED, "added")	/* kvmchurn's, in the seed's style */

/* What a metric's values measure: X(id, name). */
#define KC_UNITS(X)							\
	X(TIME, "time")	/* an interval, in the module's unit= (us or ns) */

/* Where a probe's symbols live: X(id, name), name as the kernel calls it. */
#define KC_HOMES(X)							\
	X(KERNEL, "vmlinux")						\
	X(KVM, "kvm")							\
	X(IRQBYPASS, "irqbypass")

/*
 * A probe's state, as `probes`, `summary` and `raw` print it: X(id, name).
 * An error is printed with its number: "error -22".
 */
#define KC_PROBE_STATES(X)						\
	X(OFF, "off")							\
	X(ATTACHED, "attached")						\
	X(WAITING, "waiting for module")				\
	X(ABSENT, "absent")						\
	X(ERROR, "error")

/* The percentiles of every summary, both sides: X(id, permille, name). */
#define KC_PCTS(X)							\
	X(P50, 500, "p50")						\
	X(P90, 900, "p90")						\
	X(P99, 990, "p99")

/* Each table's ids, pasted before the argument can expand (KVM_CREATE_VM). */
#define KC_ENUM_M(id, ...)	KC_M_##id,
#define KC_ENUM_KRET(id, ...)	KC_KRET_##id,
#define KC_ENUM_TP(id, ...)	KC_TP_##id,
#define KC_ENUM_C(id, ...)	KC_C_##id,
#define KC_ENUM_G(id, ...)	KC_G_##id,
#define KC_ENUM_O(id, ...)	KC_ORIGIN_##id,
#define KC_ENUM_U(id, ...)	KC_UNIT_##id,
#define KC_ENUM_H(id, ...)	KC_HOME_##id,
#define KC_ENUM_S(id, ...)	KC_PROBE_##id,
#define KC_ENUM_P(id, ...)	KC_PCT_##id,

enum kc_metric { KC_METRICS(KC_ENUM_M) KC_NR_METRICS };

/* The teardown's parts are rows in a run: part p is row KC_M_TD_DESTROY + p. */
#define KC_NR_TD_PARTS		(KC_M_TD_OTHER - KC_M_TD_DESTROY + 1)
#define KC_TD_METRIC(part)	((enum kc_metric)(KC_M_TD_DESTROY + (part)))
#define KC_TD_PART(m)		((m) - KC_M_TD_DESTROY)
/* The start-up's the same: part p is row KC_M_ST_CREATE + p. */
#define KC_NR_ST_PARTS		(KC_M_ST_OTHER - KC_M_ST_CREATE + 1)
#define KC_ST_METRIC(part)	((enum kc_metric)(KC_M_ST_CREATE + (part)))
#define KC_ST_PART(m)		((m) - KC_M_ST_CREATE)
enum kc_kret_id { KC_KRETPROBES(KC_ENUM_KRET) KC_NR_KRETPROBES };
enum kc_tp_id { KC_TRACEPOINTS(KC_ENUM_TP) KC_NR_TRACEPOINTS };
enum kc_counter { KC_COUNTERS(KC_ENUM_C) KC_NR_COUNTERS };
enum kc_group { KC_GROUPS(KC_ENUM_G) KC_NR_GROUPS };
enum kc_origin { KC_ORIGINS(KC_ENUM_O) KC_NR_ORIGINS };
enum kc_unit { KC_UNITS(KC_ENUM_U) KC_NR_UNITS };
enum kc_home { KC_HOMES(KC_ENUM_H) KC_NR_HOMES };
enum kc_probe_state { KC_PROBE_STATES(KC_ENUM_S) KC_NR_PROBE_STATES };
enum kc_pct { KC_PCTS(KC_ENUM_P) KC_NR_PCTS };

/* Every probe the module has: the kretprobes, then the tracepoints. */
#define KC_NR_PROBES		(KC_NR_KRETPROBES + KC_NR_TRACEPOINTS)

struct kc_metric_desc {
	const char *name;
	const char *seed;
	enum kc_origin origin;
	enum kc_group group;
	enum kc_unit unit;
	const char *label;
	const char *span;
};

/*
 * A probe's kind in `probes` and raw: how it is attached. The table's
 * kretprobes on exit_mmap and exit_files are fprobes where the kernel has
 * fprobe with return handlers (the module's fprobes parameter).
 */
#define KC_KIND_KRETPROBE	"kretprobe"
#define KC_KIND_KPROBE		"kprobe"
#define KC_KIND_FPROBE		"fprobe"
#define KC_KIND_TRACEPOINT	"tracepoint"

struct kc_probe_desc {
	enum kc_metric metric;
	const char *kind;		/* KC_KIND_KRETPROBE, _KPROBE, _TRACEPOINT */
	enum kc_home home;
	const char *const *symbols;	/* NULL after the last */
};

static inline const struct kc_metric_desc *kc_metric_desc(unsigned int m)
{
#define KC_DESC_M(id, name, seed, origin, group, unit, label, span)	\
	[KC_M_##id] = { name, seed, KC_ORIGIN_##origin, KC_G_##group,	\
			KC_UNIT_##unit, label, span },
	static const struct kc_metric_desc descs[KC_NR_METRICS] = {
		KC_METRICS(KC_DESC_M)
	};
	static const struct kc_metric_desc unknown = {
		"?", "?", 0, 0, 0, "?", "?" };
#undef KC_DESC_M

	return m < KC_NR_METRICS ? &descs[m] : &unknown;
}

/* Probe @p: the kretprobes first, then the tracepoints. */
static inline const struct kc_probe_desc *kc_probe_desc(unsigned int p)
{
#define KC_SYMS_KRET(id, k_, m_, h_, ...)				\
	static const char *const kc_kret_syms_##id[] = { __VA_ARGS__, NULL };
#define KC_SYMS_TP(id, m_, tp)						\
	static const char *const kc_tp_syms_##id[] = { #tp, NULL };
#define KC_DESC_KRET(id, k_, m_, h_, ...)				\
	[KC_KRET_##id] = { .metric = KC_M_##m_,			\
			   .kind = KC_KIND_##k_,			\
			   .home = KC_HOME_##h_,			\
			   .symbols = kc_kret_syms_##id },
#define KC_DESC_TP(id, m_, tp)						\
	[KC_NR_KRETPROBES + KC_TP_##id] = {				\
		.metric = KC_M_##m_, .kind = KC_KIND_TRACEPOINT,	\
		.home = KC_HOME_KERNEL, .symbols = kc_tp_syms_##id },
	KC_KRETPROBES(KC_SYMS_KRET)
	KC_TRACEPOINTS(KC_SYMS_TP)
	static const char *const unknown_syms[] = { "?", NULL };
	static const struct kc_probe_desc descs[KC_NR_PROBES] = {
		KC_KRETPROBES(KC_DESC_KRET)
		KC_TRACEPOINTS(KC_DESC_TP)
	};
	static const struct kc_probe_desc unknown = {
		.metric = KC_NR_METRICS, .kind = "?", .symbols = unknown_syms };
#undef KC_SYMS_KRET
#undef KC_SYMS_TP
#undef KC_DESC_KRET
#undef KC_DESC_TP

	return p < KC_NR_PROBES ? &descs[p] : &unknown;
}

/* The rows of KC_RESTS_ON: { metric, on }. */
struct kc_rests_on {
	enum kc_metric m, on;
};

#define KC_ENUM_RESTS(m_, on_)	KC_RESTS_##m_##_ON_##on_,
enum { KC_RESTS_ON(KC_ENUM_RESTS) KC_NR_RESTS_ON };

/* Row @i of KC_RESTS_ON, i < KC_NR_RESTS_ON. */
static inline const struct kc_rests_on *kc_rests_on(unsigned int i)
{
#define KC_RESTS_ROW(m_, on_)	{ KC_M_##m_, KC_M_##on_ },
	static const struct kc_rests_on rows[KC_NR_RESTS_ON] = {
		KC_RESTS_ON(KC_RESTS_ROW)
	};
#undef KC_RESTS_ROW

	return &rows[i];
}

#define KC_NAME_OF(id, name, ...)	name,

/* The name of entry @i of a table of @n names, "?" past its end. */
static inline const char *kc_name_in(const char *const *names, unsigned int n,
				     unsigned int i)
{
	return i < n ? names[i] : "?";
}

static inline const char *kc_metric_name(unsigned int m)
{
	return kc_metric_desc(m)->name;
}

static inline const char *kc_metric_seed(unsigned int m)
{
	return kc_metric_desc(m)->seed;
}

static inline const char *kc_counter_name(unsigned int c)
{
	static const char *const names[] = { KC_COUNTERS(KC_NAME_OF) };

	return kc_name_in(names, KC_NR_COUNTERS, c);
}

static inline const char *kc_counter_seed(unsigned int c)
{
#define KC_SEED_OF(id, name, seed)	seed,
	static const char *const seeds[] = { KC_COUNTERS(KC_SEED_OF) };
#undef KC_SEED_OF

	return kc_name_in(seeds, KC_NR_COUNTERS, c);
}

static inline const char *kc_group_name(unsigned int g)
{
	static const char *const names[] = { KC_GROUPS(KC_NAME_OF) };

	return kc_name_in(names, KC_NR_GROUPS, g);
}

static inline const char *kc_group_title(unsigned int g)
{
#define KC_TITLE_OF(id, name, title)	title,
	static const char *const titles[] = { KC_GROUPS(KC_TITLE_OF) };
#undef KC_TITLE_OF

	return kc_name_in(titles, KC_NR_GROUPS, g);
}

static inline const char *kc_origin_name(unsigned int o)
{
	static const char *const names[] = { KC_ORIGINS(KC_NAME_OF) };

	return kc_name_in(names, KC_NR_ORIGINS, o);
}

static inline const char *kc_metric_unit_name(unsigned int u)
{
	static const char *const names[] = { KC_UNITS(KC_NAME_OF) };

	return kc_name_in(names, KC_NR_UNITS, u);
}

static inline const char *kc_home_name(unsigned int h)
{
	static const char *const names[] = { KC_HOMES(KC_NAME_OF) };

	return kc_name_in(names, KC_NR_HOMES, h);
}

static inline const char *kc_probe_state_name(unsigned int s)
{
	static const char *const names[] = { KC_PROBE_STATES(KC_NAME_OF) };

	return kc_name_in(names, KC_NR_PROBE_STATES, s);
}

static inline unsigned int kc_pct_permille(unsigned int p)
{
#define KC_PERMILLE_OF(id, permille, name)	permille,
	static const unsigned int permille[] = { KC_PCTS(KC_PERMILLE_OF) };
#undef KC_PERMILLE_OF

	return p < KC_NR_PCTS ? permille[p] : 0;
}

static inline const char *kc_pct_name(unsigned int p)
{
#define KC_PCT_NAME_OF(id, permille, name)	name,
	static const char *const names[] = { KC_PCTS(KC_PCT_NAME_OF) };
#undef KC_PCT_NAME_OF

	return kc_name_in(names, KC_NR_PCTS, p);
}

/*
 * Slot layout. Values 0..3 each have their own slot; a value v >= 4 with
 * p = floor(log2(v)) goes to slot 4 + 4 * (p - 2) + the two bits below the
 * leading one. Slot 251 holds [7 << 61, U64_MAX]. That is the layout of
 * bpftrace's hist(n, 2); summing the 4 sub-buckets of a power gives its plain
 * hist() exactly.
 */
#define KC_SUB_BITS	2
#define KC_SUBS		4	/* 1 << KC_SUB_BITS */
#define KC_NR_SLOTS	(KC_SUBS + KC_SUBS * (64 - KC_SUB_BITS))
/* bpftrace's plain hist(): [0], [1], then [2^p, 2^(p+1)) for p = 1..63. */
#define KC_NR_PLAIN	65

/*
 * The filter: up to KC_FILTER_MAX_NAMES names of thread-group leaders, each
 * of 1 to KC_NAME_MAX characters (a comm), split at KC_FILTER_SEPS; "*"
 * alone traces every process.
 */
#define KC_FILTER_MAX_NAMES	8
#define KC_NAME_MAX		15
#define KC_COMM_LEN		16	/* TASK_COMM_LEN: KC_NAME_MAX and a NUL */
#define KC_FILTER_SEPS		" ,\t\n"
#define KC_FILTER_ALL		"*"

/* A macro's value as a string literal. */
#define KC_STR_(x)	#x
#define KC_STR(x)	KC_STR_(x)

/*
 * The controls: files filter, enable and reset of the debugfs folder, and
 * the module parameters of the same names in KC_PARAMS_DIR, which take the
 * same text (Documentation/ABI.rst). What each takes, as the module's log
 * and parameter descriptions and the client say it:
 */
#define KC_FILTER_RULE	"1 to " KC_STR(KC_FILTER_MAX_NAMES) " names of 1 to " \
			KC_STR(KC_NAME_MAX) " characters, space or comma separated, or " \
			KC_FILTER_ALL
#define KC_ENABLE_RULE	"0 or 1"
#define KC_RESET_RULE	"1"
#define KC_PARAMS_DIR	"/sys/module/kvmchurn/parameters"

/*
 * The seed's END check of irqfds per VM: a Firecracker VM has 8 to 11. It is
 * judged only when the filter names that VMM alone (kvmchurn_rules.h).
 */
#define KC_IRQFDS_PER_VM_MIN	8
#define KC_IRQFDS_PER_VM_MAX	11
#define KC_IRQFDS_VMM		"firecracker"

/* The longest label of a metric (the vms table's column heads). */
#define KC_LABEL_MAX		8

/* The width of the metric column of every table: the longest name's. */
#define KC_METRIC_COL		23	/* mmu_notifier_unregister */

/* Probe symbols and their kinds, as `probes` and `raw` print them. */
#define KC_SYMBOL_LEN		128
#define KC_KIND_LEN		16
#define KC_STATE_LEN		32
#define KC_METRIC_LEN		32

/*
 * The `raw` file. First line "kvmchurn-raw <version>", then one record a
 * line, a tag and fields separated by one tab:
 *   unit	us|ns
 *   enabled	0|1
 *   filter	<names, space separated>
 *   slots	<KC_NR_SLOTS>
 *   hist	<metric>	<count>	<sum>	<max>	<slot>:<n>,...   ("-" if empty)
 *   counter	<name>	<value>
 *   probe	<metric>	<kind>	<symbol>	<state>	<hits>	<missed>
 *   pairs	<capacity>	<in use>	<dropped>	<aged out>	<exits not reaped>
 *   accounted	<per mille>:<teardowns>,...   ("-" if none; since reset)
 *   accounted-startup	<per mille>:<start-ups>,...   (the same)
 * Readers skip record tags they do not know, and fields past those they
 * know: a field added at the end of a record keeps the version (the pairs
 * record's fifth came so); any other change to a record bumps it.
 */
#define KC_RAW_MAGIC	"kvmchurn-raw"
#define KC_RAW_VERSION	1

#define KC_RAW_UNIT	"unit"
#define KC_RAW_ENABLED	"enabled"
#define KC_RAW_FILTER	"filter"
#define KC_RAW_SLOTS	"slots"
#define KC_RAW_HIST	"hist"
#define KC_RAW_COUNTER	"counter"
#define KC_RAW_PROBE	"probe"
#define KC_RAW_PAIRS	"pairs"
#define KC_RAW_ACCOUNTED	"accounted"
#define KC_RAW_ST_ACCOUNTED	"accounted-startup"

/*
 * The partitioned windows, each with its record of accounted shares:
 *   X(id, window's metric, the part nothing names, raw record's tag,
 *     the title of its accounted shares (checks, vms), their count's key)
 */
#define KC_WINDOWS(X)							\
	X(STARTUP, STARTUP, ST_OTHER, KC_RAW_ST_ACCOUNTED,		\
	  "startup accounted (1 - st_other/startup)", "startups")	\
	X(TEARDOWN, TEARDOWN, TD_OTHER, KC_RAW_ACCOUNTED,		\
	  "teardown accounted (1 - td_other/teardown)", "teardowns")

#define KC_ENUM_WIN(id, ...)	KC_WIN_##id,
enum kc_window { KC_WINDOWS(KC_ENUM_WIN) KC_NR_WINDOWS };

/* A window: its metric, its part "other" and its raw record's tag. */
struct kc_window_desc {
	enum kc_metric metric, other;
	const char *tag;
	const char *title;	/* what its accounted shares are, as printed */
	const char *key;	/* the windows, plural: its check's count */
};

static inline const struct kc_window_desc *kc_window_desc(unsigned int w)
{
#define KC_DESC_WIN(id, m_, o_, tag, title, key)			\
	[KC_WIN_##id] = { KC_M_##m_, KC_M_##o_, tag, title, key },
	static const struct kc_window_desc descs[KC_NR_WINDOWS] = {
		KC_WINDOWS(KC_DESC_WIN)
	};
	static const struct kc_window_desc unknown = {
		KC_NR_METRICS, KC_NR_METRICS, "?", "?", "?" };
#undef KC_DESC_WIN

	return w < KC_NR_WINDOWS ? &descs[w] : &unknown;
}

/* Fields of each record, its tag included; pairs had 5 before its sixth. */
#define KC_RAW_HIST_FIELDS	6
#define KC_RAW_COUNTER_FIELDS	3
#define KC_RAW_PROBE_FIELDS	7
#define KC_RAW_PAIRS_FIELDS_V1	5
#define KC_RAW_PAIRS_FIELDS	6
#define KC_RAW_ACCOUNTED_FIELDS	2

/*
 * The `vms` file. First line "kvmchurn-vms <version>", then one record a
 * line, a tag and fields separated by one tab:
 *   unit	us|ns
 *   params	<last>	<slowest>	<live>	   (vms_last=, vms_slowest=, vms_live=)
 *   stats	<finished>	<last evicted>	<live evicted>	<live now>
 *   fields	list	tgid	comm	created	<metric>...	   (the table's order)
 *   vm	last|slowest	<tgid>	<comm>	<created>	<stage>...
 * A VM's created is CLOCK_REALTIME as <seconds>.<nanoseconds, 9 digits>;
 * each stage is "<count>:<sum>" in the unit, or "-" when it did not happen.
 * The `last` VMs come oldest first, then the `slowest`, slowest first by
 * exit_to_reap. Readers map stage columns by the names of `fields`, and
 * skip tags and fields they do not know, as in `raw`.
 * A VM whose process's teardown was partitioned has, on the line after its
 * vm record, the parts' places (the sums are the vm record's):
 *   td-fields	began	destroyed_by	notified	reaped	<part>...   (once)
 *   td	<began>	vm|vcpu|other|-	<notified>	<reaped>	<first>:<before_exit>...
 * began is when the window opened, CLOCK_REALTIME as created is; notified
 * and reaped are 1 + the offset from the window's start of the parent's
 * notification and of the reap (0: not seen); each part's first is 1 + the
 * offset of its first instant (0: the part is empty), and before_exit its
 * share before the leader's exit (signal_to_exit's), all in the unit.
 * A VM whose start-up was partitioned has, on the line after its vm
 * record (before its td record), its parts' first instants:
 *   st-fields	<part>...   (once, after td-fields)
 *   st	<first>...
 * each 1 + the offset from the window's start (its KVM_CREATE_VM's entry)
 * of the part's first instant, 0: the part is empty; in the unit.
 */
#define KC_VMS_MAGIC	"kvmchurn-vms"
#define KC_VMS_VERSION	1

#define KC_VMS_UNIT	"unit"
#define KC_VMS_PARAMS	"params"
#define KC_VMS_STATS	"stats"
#define KC_VMS_FIELDS	"fields"
#define KC_VMS_VM	"vm"
#define KC_VMS_LAST	"last"
#define KC_VMS_SLOWEST	"slowest"
#define KC_VMS_ABSENT	"-"
#define KC_VMS_TD_FIELDS	"td-fields"
#define KC_VMS_TD	"td"
#define KC_VMS_ST_FIELDS	"st-fields"
#define KC_VMS_ST	"st"
#define KC_VMS_BY_VM	"vm"
#define KC_VMS_BY_VCPU	"vcpu"
#define KC_VMS_BY_OTHER	"other"

/* A vm record's fields before its stages: tag, list, tgid, comm, created. */
#define KC_VMS_VM_HEAD	5

#endif /* KVMCHURN_ABI_H */

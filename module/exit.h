/* SPDX-License-Identifier: GPL-2.0 */
/*
 * exit.h - the exit path: what every exiting task on the host runs while
 * kvmchurn is loaded, traced or not, and the predicates that let it return
 * at once. The handlers are exit.c's; the predicates are here, inline, with
 * the data they read, which filter.c, pairs.c and vms.c own and write.
 *
 * The path, as do_exit() and the parent's wait take it:
 *
 *   signal_deliver       a fatal signal (exit.c); not on every exit
 *   exit_mm: exit_mmap   kretprobe or fprobe, kc_exit_mmap_entry()
 *   sched_process_exit   tracepoint (before exit_mm() from 6.16)
 *   exit_files           kretprobe or fprobe, kc_exit_files_entry()
 *   signal_generate      tracepoint, the parent's SIGCHLD (and every signal)
 *   release_task: cgroup_release (cgroup_task_release from 7.0)
 *                        plain kprobe, kc_task_release_pre(): the reap
 *   ... then after an RCU grace period:
 *   sched_process_free   tracepoint, from an RCU callback
 *
 * Budget: nearly every exit is of a process that is not traced, and its
 * handlers must cost at most a quarter of what the kernel's probe mechanism
 * costs for them (`make bench-count`: B - F against F - A). So each handler
 * answers "not traced" or "nothing held" inline, from per-CPU or read-only
 * data, before it makes any call.
 *
 * Invariants:
 * - Context. The kretprobe and fprobe entries run in the exiting task with
 *   preemption off (the kprobe core's and ftrace's), and so does the
 *   release's kprobe, in the task that releases (the parent's wait, or the
 *   exiting thread itself). sched_process_exit runs
 *   in the exiting task; a tracepoint's probes run with preemption off until
 *   7.0, which calls them under SRCU-fast, preemptible: the handler turns it
 *   off itself around its per-CPU work (KC_TP_PREEMPTIBLE, compat.h), and
 *   pays nothing before 7.0. sched_process_free runs from an RCU callback,
 *   bottom halves off, which keeps preemption off too except on PREEMPT_RT
 *   from 7.0 (KC_TP_PREEMPTIBLE_BH).
 * - Hits are plain per-CPU adds (__this_cpu_inc()), not this_cpu_inc(),
 *   which on arm64 is a preemption toggle around an exclusive loop. That is
 *   safe because preemption is off and no counter is added to from two
 *   contexts of one CPU: each probe has its own, a kprobe hit inside a
 *   kprobe's handler is counted missed instead of run, exit_mmap and
 *   exit_files are never called from an interrupt, and each tracepoint here
 *   fires in one kind of context only.
 * - The filter's memo (kc_exiting) holds the answer for the last exiting
 *   task each CPU asked about, by address and start time (an address is
 *   reused). It is written only in task context with preemption off, for a
 *   task that is exiting (whose comm no longer changes). A new filter drops
 *   it on every CPU, with no sequence number: an exit that asked under the
 *   old filter may keep that answer for the rest of the exit.
 * - The live counts (kc_pairs_live, kc_vms_live) and the VM records' heads
 *   by tgid are read without a lock. They are exact where they say "none":
 *   a process gains entries and records only from its own threads, none of
 *   which lives when its leader is freed; a head of one record that is not
 *   the process's own means the process has none.
 * - Whatever a process holds ends at its leader's free, whatever enable or
 *   the filter say then, so that nothing outlives the process.
 */
#ifndef KVMCHURN_EXIT_H
#define KVMCHURN_EXIT_H

#include "kvmchurn.h"

/*
 * The filter's answer for the last exiting task each CPU asked about
 * (filter.c writes it, kc_exiting_ask(), and drops it).
 */
struct kc_exiting {
	const struct task_struct *task;
	u64 start_time;
	bool match;
};

DECLARE_PER_CPU(struct kc_exiting, kc_exiting);
bool kc_exiting_ask(void);

/*
 * kc_filter_match(current) on the exit path, preemption off. Every exit
 * asks up to three times: the first computes, the others read the memo.
 */
static __always_inline bool kc_filter_exiting(void)
{
	const struct task_struct *t = current;

	if (__this_cpu_read(kc_exiting.task) == t &&
	    __this_cpu_read(kc_exiting.start_time) == t->start_time)
		return __this_cpu_read(kc_exiting.match);
	return kc_exiting_ask();
}

/* Recording is on and current belongs to a traced process: the one test. */
static __always_inline bool kc_traced(void)
{
	return READ_ONCE(kc_enabled) && kc_filter_match(current);
}

/* kc_traced() for an exiting current, with preemption off. */
static __always_inline bool kc_traced_exiting(void)
{
	return READ_ONCE(kc_enabled) && kc_filter_exiting();
}

/* The live entries of each kind of the pairing table (pairs.c). */
extern atomic_t kc_pairs_live[KC_NR_PAIR_KINDS];

static __always_inline bool kc_pair_none(enum kc_pair_kind kind)
{
	return !atomic_read(&kc_pairs_live[kind]);
}

/*
 * How many VMs have a live record, and the heads of the records' chains by
 * their process's tgid (vms.c): KC_VMS_HEAD_NONE, or the first record's
 * tgid (the high half), KC_VMS_HEAD_MORE if others follow, and its index.
 * Read in one load.
 */
#define KC_VMS_HEAD_NONE	U64_MAX
#define KC_VMS_HEAD_MORE	BIT_ULL(31)
extern unsigned int kc_vms_live;
extern u64 *kc_vms_by_tgid;
extern unsigned int kc_vms_tgid_heads;	/* a power of 2, four a slot */

/*
 * hash_32()'s bucket, the product's top bits, taken by a multiply instead
 * of a shift by a variable, which a kernel with UBSAN checks on each call.
 */
static __always_inline unsigned int kc_vms_tgid_hash(pid_t tgid)
{
	return ((u64)((u32)tgid * GOLDEN_RATIO_32) * kc_vms_tgid_heads) >> 32;
}

/* No VM has a live record. */
static __always_inline bool kc_vms_none(void)
{
	return !READ_ONCE(kc_vms_live);
}

/* The process @tgid has no live VM record. */
static __always_inline bool kc_vms_none_of(pid_t tgid)
{
	u64 h;

	if (kc_vms_none())
		return true;
	h = READ_ONCE(kc_vms_by_tgid[kc_vms_tgid_hash(tgid)]);
	return h == KC_VMS_HEAD_NONE ||
	       ((u32)(h >> 32) != (u32)tgid && !(h & KC_VMS_HEAD_MORE));
}

/*
 * Whether the process of a leader being freed may hold anything: its
 * signal, its exit, its threads' longest exit_files, its VMs' records.
 */
static __always_inline bool kc_leader_may_hold(pid_t tgid)
{
	return !kc_pair_none(KC_PAIR_SIGNAL) || !kc_pair_none(KC_PAIR_EXIT) ||
	       !kc_pair_none(KC_PAIR_FILES) || !kc_vms_none_of(tgid);
}

#endif /* KVMCHURN_EXIT_H */

// SPDX-License-Identifier: GPL-2.0
/*
 * exit.c - a traced process's exit, from its fatal signal to its leader's
 * free: signal_to_exit, exit_mmap, exit_files and exit_to_reap, and the
 * signal, exit and reap counters. These handlers run for every exit on the
 * host; exit.h has the path, its budget and the invariants they rely on.
 */
#include <linux/fdtable.h>
#include <linux/kprobes.h>
#include <linux/sched/signal.h>
#include <linux/tracepoint.h>
#include <trace/events/sched.h>
#include <trace/events/signal.h>

#include "exit.h"
#include "kret.h"

KC_TP_TYPECHECK(signal_deliver, kc_tp_signal_deliver);
KC_TP_TYPECHECK(sched_process_exit, kc_tp_sched_process_exit);
KC_TP_TYPECHECK(sched_process_free, kc_tp_sched_process_free);
KC_TP_TYPECHECK(signal_generate, kc_tp_signal_generate);

/* The group is dying of a signal: its exit code's signal (WTERMSIG) is set. */
static bool kc_group_killed(struct task_struct *t)
{
	return READ_ONCE(t->signal->group_exit_code) & 0x7f;
}

/*
 * The first SIGTERM or SIGKILL delivered to a traced process starts
 * signal_to_exit. A fatal signal reaches every thread as SIGKILL, and so
 * does the process's own exit_group(): only a group that dies from a signal
 * (group_exit_code holds its number) was signalled. A default-action SIGTERM
 * is fatal, so it is seen, and counted, as SIGKILL.
 */
void kc_tp_signal_deliver(void *data, int sig, struct kernel_siginfo *info,
			  struct k_sigaction *ka)
{
	u64 now;

	kc_tp_hit(KC_TP_SIGNAL_DELIVER, KC_TP_PREEMPTIBLE);
	if ((sig != SIGKILL && sig != SIGTERM) || !kc_traced())
		return;
	if (sig == SIGKILL && !kc_group_killed(current))
		return;
	now = kc_now();
	if (kc_pair_add(KC_PAIR_SIGNAL, current->tgid, now, false) ==
	    KC_PAIR_ADDED) {
		kc_count(sig == SIGKILL ? KC_C_SIGKILL : KC_C_SIGTERM);
		kc_vm_td_event(current->tgid, KC_TD_SIGNALLED,
			       kc_to_unit(now), 0);
	}
	/* Each thread takes the group's SIGKILL itself: the leader runs. */
	if (thread_group_leader(current))
		kc_vm_td_event(current->tgid, KC_TD_LEADER_RUNS,
			       kc_to_unit(now), kc_to_unit(kc_run_delay(current)));
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
	if (!(current->flags & PF_EXITING) || !kc_traced_exiting())
		return false;
	kc_live(d, KC_M_EXIT_MMAP);
	kc_vm_td_interval(KC_VM_BY_TGID, current->tgid,
			  KC_TD_PART(KC_M_TD_EXIT_MMAP), true, kc_now_unit());
	return true;
}

static bool kc_done_exit_mmap(struct kc_kret *k, struct kc_kret_data *d,
			      struct pt_regs *regs, u64 value)
{
	kc_vm_td_interval(KC_VM_BY_TGID, current->tgid,
			  KC_TD_PART(KC_M_TD_EXIT_MMAP), false, kc_now_unit());
	return true;
}

/*
 * exit_files(tsk) in a traced process: current is the exiting task (or,
 * when a fork fails, its parent, which kc_filter_exiting() also answers).
 * Only the thread that drops the last reference to the fd table closes the
 * files (close_files(), inlined everywhere): a count of one at entry says
 * this call is that thread's. A thread that drops its reference between
 * another's entry and its own leaves none told: the longest stands for it.
 */
static __always_inline bool kc_want_exit_files(struct kc_kret *k,
					       struct kc_kret_data *d,
					       struct pt_regs *regs)
{
	struct files_struct *files;

	if (!kc_traced_exiting())
		return false;
	files = current->files;
	d->timed = files && atomic_read(&files->count) == 1;
	kc_live(d, KC_M_EXIT_FILES);
	kc_vm_td_interval(KC_VM_BY_TGID, current->tgid,
			  KC_TD_PART(KC_M_TD_EXIT_FILES), true, kc_now_unit());
	return true;
}

/* A kept exit_files time that is the closing thread's: it wins the max. */
#define KC_FILES_CLOSED	BIT_ULL(63)

/*
 * exit_files(tsk) runs in every exiting thread: each thread's time is kept
 * in the pairing table, by process, the closing thread's marked so that it
 * is the one recorded when the leader is freed (else the longest): one
 * value a process.
 */
static bool kc_done_exit_files(struct kc_kret *k, struct kc_kret_data *d,
			       struct pt_regs *regs, u64 value)
{
	u64 now = kc_now_unit();

	kc_pair_max(KC_PAIR_FILES, current->tgid, d->start,
		    min(value, KC_FILES_CLOSED - 1) |
		    (d->timed ? KC_FILES_CLOSED : 0));
	kc_vm_td_interval(KC_VM_BY_TGID, current->tgid,
			  KC_TD_PART(KC_M_TD_EXIT_FILES), false, now);
	/* The files it closed are put by its task work, which runs next. */
	if (d->timed)
		kc_vm_td_closed(current, now);
	/* The leader is done but for its task work: the others are waited for. */
	if (thread_group_leader(current))
		kc_vm_td_event(current->tgid, KC_TD_LEADER_DONE, now, 0);
	return false;
}

/*
 * The entries of exit_mmap and exit_files: their own, which know their
 * probe and call their hook without an indirect call; and fprobe's where
 * the kernel has it, which does not trap.
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

const struct kc_kret_ops kc_exit_mmap_hooks = {
	.want = kc_want_exit_mmap,
	.done = kc_done_exit_mmap,
	.entry = kc_exit_mmap_entry,
	.fentry = kc_exit_mmap_fentry,
};

const struct kc_kret_ops kc_exit_files_hooks = {
	.want = kc_want_exit_files,
	.done = kc_done_exit_files,
	.entry = kc_exit_files_entry,
	.fentry = kc_exit_files_fentry,
};

/* A leader's reap: exit_to_reaped ends, the teardown's rcu_free begins. */
static noinline void kc_leader_released(struct task_struct *p)
{
	u64 now = kc_now(), start;

	if (kc_pair_get(KC_PAIR_EXIT, p->pid, KC_PAIR_PEEK, &start) &&
	    READ_ONCE(kc_enabled))
		kc_record(KC_M_EXIT_TO_REAPED,
			  kc_to_unit(kc_between(start, now)),
			  KC_VM_BY_TGID, p->tgid);
	kc_vm_td_event(p->tgid, KC_TD_REAPED, kc_to_unit(now), 0);
}

/*
 * A task is released (release_task(), which calls this first for each task
 * it releases, the leader it zaps too): a leader's release is its reap.
 * Another thread is released by itself at the end of its exit, which ends
 * its task work if it closed the files. A plain kprobe: nothing is timed,
 * so no return instance is taken on any exit.
 */
static int kc_task_release_pre(struct kprobe *kp, struct pt_regs *regs)
{
	struct task_struct *p =
		(struct task_struct *)regs_get_kernel_argument(regs, 0);

	kc_kprobe_hit(kp);
	/*
	 * A traced leader's exit is kept until its free, and its threads exit
	 * after it began to: none kept, none of theirs.
	 */
	if (kc_pair_none(KC_PAIR_EXIT))
		return 0;
	if (p->pid != p->tgid) {
		if (!kc_vms_none_of(p->tgid))
			kc_vm_td_released(p, kc_now_unit());
		return 0;
	}
	kc_leader_released(p);
	return 0;
}

NOKPROBE_SYMBOL(kc_task_release_pre);

const struct kc_kret_ops kc_task_release_hooks = {
	.pre = kc_task_release_pre,
};

/*
 * A traced leader starts to exit: counted, its signal_to_exit ends, and when
 * it started to exit is kept, by pid, until it is freed.
 */
static noinline void kc_leader_exits(void)
{
	struct task_struct *p = current;
	u64 now = kc_now(), start;

	kc_count(KC_C_EXIT);
	/* The signal entry stays until the free, so later threads are not first. */
	if (kc_pair_get(KC_PAIR_SIGNAL, p->tgid, KC_PAIR_CLAIM, &start))
		kc_record(KC_M_SIGNAL_TO_EXIT,
			  kc_to_unit(kc_between(start, now)),
			  KC_VM_BY_TGID, p->tgid);
	kc_pair_add(KC_PAIR_EXIT, p->pid, now, true);
	kc_vm_td_event(p->tgid, KC_TD_EXITS, kc_to_unit(now),
		       kc_to_unit(kc_run_delay(p)));
}

/*
 * Runs in every exiting task on the host, with p current (do_exit()): the
 * filter's answer is kept for exit_files, which asks next. The hit and the
 * memo share one stretch with preemption off. The work takes current, so
 * that this path keeps nothing across the memo.
 */
void kc_tp_sched_process_exit(KC_SCHED_PROCESS_EXIT_PROTO)
{
	bool traced;

	kc_tp_preempt_disable(KC_TP_PREEMPTIBLE);
	kc_tp_count_hit(KC_TP_SCHED_PROCESS_EXIT);
	traced = thread_group_leader(p) && kc_traced_exiting();
	kc_tp_preempt_enable(KC_TP_PREEMPTIBLE);
	if (traced)
		kc_leader_exits();
}

/*
 * What a freed leader's process held ends: its signal entry, its threads'
 * longest exit_files, its exit_to_reap, its VMs' records.
 */
static noinline void kc_leader_freed(struct task_struct *p)
{
	struct kc_td_result td;
	u64 now = kc_now(), start, v;

	kc_pair_get(KC_PAIR_SIGNAL, p->tgid, KC_PAIR_TAKE, NULL);
	if (kc_pair_take_max(KC_PAIR_FILES, p->tgid, &v) &&
	    READ_ONCE(kc_enabled))
		kc_record(KC_M_EXIT_FILES, v & ~KC_FILES_CLOSED, KC_VM_BY_TGID,
			  p->tgid);
	if (kc_pair_get(KC_PAIR_EXIT, p->pid, KC_PAIR_TAKE, &start) &&
	    READ_ONCE(kc_enabled)) {
		kc_count(KC_C_REAP);
		kc_record(KC_M_EXIT_TO_REAP,
			  kc_to_unit(kc_between(start, now)),
			  KC_VM_BY_TGID, p->tgid);
	}
	/* The teardown ends where exit_to_reap does. */
	kc_vm_freed(p->tgid, kc_to_unit(now), &td);
	if (!td.valid || !READ_ONCE(kc_enabled))
		return;
	/* One value a process, as exit_to_reap: its VMs' records have it. */
	kc_record_window(KC_WIN_TEARDOWN, td.window, td.part);
}

/*
 * The leader's parent is sent its exit signal, by the leader itself or by
 * the last thread to go (do_notify_parent()): the process is a zombie that
 * waits for its reap. Runs for every signal on the host: asked in the order
 * that lets nearly all go at once.
 */
void kc_tp_signal_generate(void *data, int sig, struct kernel_siginfo *info,
			   struct task_struct *task, int group, int result)
{
	struct task_struct *leader;

	kc_tp_hit(KC_TP_SIGNAL_GENERATE, KC_TP_PREEMPTIBLE);
	/* Its leader's exit is kept: with none kept, nothing is notified. */
	if (kc_pair_none(KC_PAIR_EXIT) || !(current->flags & PF_EXITING) ||
	    kc_vms_none_of(current->tgid))
		return;
	leader = current->group_leader;
	if (sig == READ_ONCE(leader->exit_signal) &&
	    task == rcu_access_pointer(leader->parent))
		kc_vm_td_event(current->tgid, KC_TD_NOTIFIED, kc_now_unit(), 0);
}

/*
 * Runs from an RCU callback for every task on the host: keep it short. Only
 * a leader's free ends anything (an exit entry is a leader's, by its pid),
 * and the leader goes last: its threads have all been through exit_files,
 * and its VMs' records are complete.
 */
void kc_tp_sched_process_free(void *data, struct task_struct *p)
{
	kc_tp_hit(KC_TP_SCHED_PROCESS_FREE, KC_TP_PREEMPTIBLE_BH);
	if (p->pid == p->tgid && kc_leader_may_hold(p->tgid))
		kc_leader_freed(p);
}

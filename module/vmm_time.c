// SPDX-License-Identifier: GPL-2.0
/*
 * vmm_time.c - what a VMM's threads did while its VM started, from the
 * scheduler's own accounting of them: no probe on a scheduler path.
 *
 * At an instant, a thread's time so far: on a CPU (sum_exec_runtime), on
 * a run queue (sched_info's run_delay), its sleeps (voluntary context
 * switches), and the ticks' samples of user and system time. The scheduler
 * brings the first two up to date only when the thread stops or gets a
 * CPU, so a running thread's current stint and a queued thread's current
 * wait are added here from when they began.
 *
 * Over a start-up window, the time no timed call held is split by what
 * the threads did outside those calls: in the kernel, in user mode (the
 * CPU time cut as the ticks' samples cut it, as getrusage() does), on a
 * run queue, and blocked, which is claimed only where a thread slept. What
 * is left is the part nothing names.
 */
#include <linux/math64.h>
#include <linux/rcupdate.h>
#include <linux/sched/clock.h>
#include <linux/sched/signal.h>

#include "kvmchurn.h"

/* At most this many threads a process are read at an instant. */
#define KC_VMM_THREADS_MAX	1024

/* A running thread's time on a CPU, to @now (local_clock()). */
static u64 kc_task_ran(const struct task_struct *t, u64 now)
{
	u64 ran = READ_ONCE(t->se.sum_exec_runtime);
	u64 arrived = kc_last_arrival(t), stint;

	if (!READ_ONCE(t->on_cpu) || !arrived || now <= arrived)
		return ran;
	/* the stint began at the last arrival, from prev_sum_exec_runtime */
	stint = READ_ONCE(t->se.prev_sum_exec_runtime) + (now - arrived);
	return max(ran, stint);
}

/* A queued thread's run-queue wait, to @now. */
static u64 kc_task_waited(const struct task_struct *t, u64 now)
{
	u64 queued = kc_last_queued(t), waited = kc_run_delay(t);

	return queued && now > queued ? waited + (now - queued) : waited;
}

/* Thread @t's times so far, at @now (local_clock()): its ticks' aside. */
void kc_vmm_time_task(const struct task_struct *t, u64 now,
		      struct kc_vmm_time *out)
{
	out->ran = kc_task_ran(t, now);
	out->waited = kc_task_waited(t, now);
	out->user = 0;
	out->system = 0;
	out->slept = READ_ONCE(t->nvcsw);
}

/*
 * The times so far of @p's process, at @now: its live threads' (up to
 * KC_VMM_THREADS_MAX) and its dead ones' (but their run-queue waits, which
 * the process does not keep).
 */
void kc_vmm_time_group(struct task_struct *p, u64 now,
		       struct kc_vmm_time *out)
{
	const struct signal_struct *sig = p->signal;
	struct task_struct *t;
	unsigned int n = 0;

	out->ran = READ_ONCE(sig->sum_sched_runtime);
	out->waited = 0;
	out->user = READ_ONCE(sig->utime);
	out->system = READ_ONCE(sig->stime);
	out->slept = READ_ONCE(sig->nvcsw);
	rcu_read_lock();
	for_each_thread(p, t) {
		if (n++ == KC_VMM_THREADS_MAX)
			break;
		out->ran += kc_task_ran(t, now);
		out->waited += kc_task_waited(t, now);
		out->user += READ_ONCE(t->utime);
		out->system += READ_ONCE(t->stime);
		out->slept += READ_ONCE(t->nvcsw);
	}
	rcu_read_unlock();
}

/* @a - @b, or 0: a thread that died takes its run-queue waits along. */
static u64 kc_sub(u64 a, u64 b)
{
	return a > b ? a - b : 0;
}

/*
 * @v * @num / @den, @num < @den: the ratio is cut to 32 bits first, which
 * keeps it to one part in 2^31.
 */
static u64 kc_scale(u64 v, u64 num, u64 den)
{
	while (den > U32_MAX) {
		num >>= 1;
		den >>= 1;
	}
	return mul_u64_u32_div(v, (u32)num, (u32)den);
}

/*
 * How @idle, the time of a window no timed call held, splits: @d is what
 * the VMM's threads did over the window, @in what the timed calls took of
 * it (their threads' own times from their entry to their return), @total
 * the threads' times at the window's end, for the ticks' ratio where none
 * fell in the window. All in one unit, the same as @idle's.
 *
 * Kernel, user and run queue take their amounts in that order, each as
 * much as is left (the threads overlap one another); blocked takes the
 * rest if a thread slept outside the calls, else the rest is nobody's.
 */
void kc_vmm_split(u64 idle, const struct kc_vmm_time *d,
		  const struct kc_vmm_time *in,
		  const struct kc_vmm_time *total, struct kc_vmm_split *out)
{
	u64 on = kc_sub(d->ran, in->ran), user;
	u64 ticks = d->user + d->system;
	u64 left = idle;

	/* the CPU time the ticks call user, and what the calls did not take */
	if (ticks)
		user = kc_scale(d->ran, d->user, ticks);
	else if (total->user + total->system)
		user = kc_scale(d->ran, total->user,
				total->user + total->system);
	else
		user = 0;	/* no tick yet: the kernel's, as a start's are */
	user = min(user, on);
	out->kernel = min(on - user, left);
	left -= out->kernel;
	out->user = min(user, left);
	left -= out->user;
	out->runq = min(kc_sub(d->waited, in->waited), left);
	left -= out->runq;
	out->blocked = d->slept > in->slept ? left : 0;
}

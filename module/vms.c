// SPDX-License-Identifier: GPL-2.0
/*
 * vms.c - which VM was slow: a record for each VM of a traced process, from
 * its creation to its process's reap, with every stage's time (the same
 * value its histogram got) and its two windows partitioned (partition.c):
 * its start-up, KVM_CREATE_VM to ready, and its process's teardown; then
 * the last vms_last VMs that finished, and the vms_slowest slowest by
 * exit_to_reap.
 *
 * Everything is allocated at load time. A VM being created or torn down
 * ("live") takes a slot of the live table, found by its struct kvm * or by
 * its process's tgid through two hash tables of chains; a full live table
 * evicts its oldest record, and counts it. The tgid table has four heads a
 * slot and is read without the lock (kc_vms_none_of()): the free of every
 * task on the host asks it, and with the live table full three chains in
 * four are still empty. All of it is under one raw
 * spinlock taken with interrupts off: probes update records from process,
 * softirq (RCU: sched_process_free) and kworker context, and work under it
 * is bounded by the live table's size.
 */
#include <linux/hash.h>
#include <linux/log2.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/vmalloc.h>

#include "exit.h"

#define KC_NONE	(-1)

/*
 * A timed call in flight for a VM (kc_vm_fly()): the live view's stage,
 * the task in it and since when. A few a VM: its nested calls, and calls
 * of other tasks (a kworker's irqbypass unregister); when they are full the
 * oldest are kept, which are what a stall is.
 */
#define KC_VM_FLY	4

/* Records copied a batch at a time, so that interrupts wait for little. */
#define KC_VMS_BATCH	16

struct kc_fly {
	u64 since;		/* kc_now() at the call's entry */
	pid_t pid;
	u8 metric;		/* KC_NR_METRICS: free */
	u8 by;			/* enum kc_vm_by: how its VM was named */
};

/* A live record's links, beside the record that readers see. */
struct kc_vm_slot {
	struct kc_vm vm;
	u64 seq;		/* when it was begun: the oldest is evicted */
	int next_kvm;		/* chains of the two hash tables, KC_NONE */
	int next_tgid;
	int next_free;
	bool used;
	bool by_kvm;		/* in its struct kvm *'s chain */
	struct kc_part td;	/* its process's teardown, as it goes */
	/* the task in each release of its files, while it runs */
	const struct task_struct *releaser[KC_VM_NR_REL];
	/* at LEADER_RUNS: the leader's run-queue wait, and td_other's time */
	u64 waited;
	u64 other;
	bool leader_ran;
	/* destroyed before its process's teardown, another VM alive: not its */
	bool destroyed_before;
	pid_t closer;		/* the thread in its task work after closing */
	struct kc_part st;	/* its start-up, as it goes */
	struct kc_vmm_time st_at;	/* the VMM's times when it opened, ns */
	struct kc_vmm_time st_in;	/* what the timed calls took since, ns */
	struct kc_fly fly[KC_VM_FLY];	/* its calls in flight */
};

static DEFINE_RAW_SPINLOCK(kc_vms_lock);
/* How many windows were each per mille accounted, since the last reset. */
static u32 kc_accounted[KC_NR_WINDOWS][KC_PERMILLE + 1];
static void *kc_vms_area;		/* one vzalloc for all that follows */
static struct kc_vm_slot *kc_slots;	/* kc_vms_p.live */
static int *kc_by_kvm;			/* heads, 1 << kc_hash_bits */
static unsigned int kc_hash_bits;
u64 *kc_vms_by_tgid;			/* kc_vms_tgid_heads heads */
unsigned int kc_vms_tgid_heads;
static struct kc_vm *kc_last;		/* ring of kc_vms_p.last */
static struct kc_vm *kc_slowest;	/* kc_vms_p.slowest, unsorted */
static struct kc_vms_params kc_vms_p;
static struct kc_vms_stats kc_st;	/* under the lock */
static unsigned int kc_last_head, kc_last_len, kc_slowest_len;
static int kc_free = KC_NONE;
static u64 kc_seq;
unsigned int kc_vms_live;		/* read without the lock: a hint */
unsigned int kc_vms_starting;		/* the same */
/* stall_ms=: the readers' threshold of a stall (kvmchurn_live.h) */
unsigned int kc_stall_ms = KC_STALL_MS_DEFAULT;

static unsigned int kc_hash(u64 key)
{
	return kc_hash_bits ? hash_64(key, kc_hash_bits) : 0;
}

/* The first slot from @i on in its tgid chain that is @tgid's, or KC_NONE. */
static int kc_tgid_from(int i, pid_t tgid)
{
	while (i != KC_NONE && kc_slots[i].vm.tgid != tgid)
		i = kc_slots[i].next_tgid;
	return i;
}

/* The first slot of a tgid chain, from its head. */
static int kc_tgid_first(u64 head)
{
	return head == KC_VMS_HEAD_NONE ? KC_NONE :
	       (int)(head & (KC_VMS_HEAD_MORE - 1));
}

/* The head of a tgid chain whose first slot is @i, KC_NONE when empty. */
static u64 kc_tgid_head(int i)
{
	const struct kc_vm_slot *s;

	if (i == KC_NONE)
		return KC_VMS_HEAD_NONE;
	s = &kc_slots[i];
	return (u64)(u32)s->vm.tgid << 32 |
	       (s->next_tgid != KC_NONE ? KC_VMS_HEAD_MORE : 0) | (u32)i;
}

/* @tgid's live VMs, newest first: kc_first_of(), then kc_next_of(). */
static int kc_first_of(pid_t tgid)
{
	return kc_tgid_from(kc_tgid_first(kc_vms_by_tgid[kc_vms_tgid_hash(tgid)]),
			    tgid);
}

static int kc_next_of(int i)
{
	return kc_tgid_from(kc_slots[i].next_tgid, kc_slots[i].vm.tgid);
}

static void kc_link(int i)
{
	struct kc_vm_slot *s = &kc_slots[i];
	int *kh = &kc_by_kvm[kc_hash(s->vm.kvm)];
	u64 *th = &kc_vms_by_tgid[kc_vms_tgid_hash(s->vm.tgid)];

	s->next_kvm = *kh;
	*kh = i;
	s->by_kvm = true;
	s->next_tgid = kc_tgid_first(*th);
	WRITE_ONCE(*th, kc_tgid_head(i));
}

/* Removes slot @i from the chain that starts at @head, linked by @next. */
static void kc_unlink_from(int *head, int i, size_t next)
{
	int *p = head;

	while (*p != KC_NONE) {
		int *n = (int *)((char *)&kc_slots[*p] + next);

		if (*p == i) {
			*p = *n;
			return;
		}
		p = n;
	}
}

/* Removes slot @i from its tgid chain; the chain's head is made anew. */
static void kc_unlink_tgid(int i)
{
	u64 *th = &kc_vms_by_tgid[kc_vms_tgid_hash(kc_slots[i].vm.tgid)];
	int first = kc_tgid_first(*th);

	kc_unlink_from(&first, i, offsetof(struct kc_vm_slot, next_tgid));
	WRITE_ONCE(*th, kc_tgid_head(first));
}

/* Slot @s's calls in flight that were named @by end. */
static void kc_fly_end(struct kc_vm_slot *s, enum kc_vm_by by)
{
	unsigned int f;

	for (f = 0; f < KC_VM_FLY; f++)
		if (s->fly[f].by == by)
			s->fly[f].metric = KC_NR_METRICS;
}

/*
 * Slot @i can no longer be found by its struct kvm *: the VM was freed and
 * the address is another's now. Its stages by process are still to come.
 */
static void kc_unlink_kvm(int i)
{
	struct kc_vm_slot *s = &kc_slots[i];

	if (!s->by_kvm)
		return;
	kc_unlink_from(&kc_by_kvm[kc_hash(s->vm.kvm)], i,
		       offsetof(struct kc_vm_slot, next_kvm));
	s->by_kvm = false;
	/*
	 * Its calls named by the struct kvm return into another's record, if
	 * any, now: they end here.
	 */
	kc_fly_end(s, KC_VM_BY_KVM);
}

/* Slot @s's start-up ends without the VM ready: no partition. */
static void kc_st_abandon(struct kc_vm_slot *s)
{
	if (!(s->st.flags & KC_PART_OPEN))
		return;
	kc_part_end(&s->st, s->st.last);
	WRITE_ONCE(kc_vms_starting, kc_vms_starting - 1);
}

static void kc_slot_free(int i)
{
	struct kc_vm_slot *s = &kc_slots[i];

	kc_st_abandon(s);
	kc_unlink_kvm(i);
	kc_unlink_tgid(i);
	s->used = false;
	s->next_free = kc_free;
	kc_free = i;
	WRITE_ONCE(kc_vms_live, kc_vms_live - 1);
}

static u64 kc_reap_time(const struct kc_vm *vm)
{
	return vm->count[KC_M_EXIT_TO_REAP] ? vm->sum[KC_M_EXIT_TO_REAP] : 0;
}

/* Into the last ones, and the slowest if it is. */
static void kc_vm_keep(const struct kc_vm *vm)
{
	unsigned int i, low = 0;
	u64 t = kc_reap_time(vm);

	kc_st.finished++;
	if (kc_last_len == kc_vms_p.last)
		kc_st.last_evicted++;
	else
		kc_last_len++;
	kc_last[kc_last_head] = *vm;
	kc_last_head = (kc_last_head + 1) % kc_vms_p.last;

	if (!vm->count[KC_M_EXIT_TO_REAP])
		return;
	if (kc_slowest_len < kc_vms_p.slowest) {
		kc_slowest[kc_slowest_len++] = *vm;
		return;
	}
	for (i = 1; i < kc_slowest_len; i++)
		if (kc_reap_time(&kc_slowest[i]) < kc_reap_time(&kc_slowest[low]))
			low = i;
	if (t > kc_reap_time(&kc_slowest[low]))
		kc_slowest[low] = *vm;
}

static void kc_slot_finish(int i)
{
	kc_vm_keep(&kc_slots[i].vm);
	kc_slot_free(i);
}

static int kc_find_kvm(u64 kvm)
{
	int i;

	for (i = kc_by_kvm[kc_hash(kvm)]; i != KC_NONE; i = kc_slots[i].next_kvm)
		if (kc_slots[i].vm.kvm == kvm)
			return i;
	return KC_NONE;
}

/* A free slot, or the oldest live record's, evicted. */
static int kc_slot_take(void)
{
	unsigned int i;
	int old = KC_NONE;

	if (kc_free != KC_NONE) {
		int f = kc_free;

		kc_free = kc_slots[f].next_free;
		return f;
	}
	for (i = 0; i < kc_vms_p.live; i++)
		if (old == KC_NONE || kc_slots[i].seq < kc_slots[old].seq)
			old = i;
	kc_st.live_evicted++;
	kc_slot_free(old);
	kc_free = kc_slots[old].next_free;
	return old;
}

/* A leader comm as one field of the vms file: no tab, no control byte. */
static void kc_comm_copy(char *dst, const char *src)
{
	unsigned int i;

	for (i = 0; i < KC_COMM_LEN - 1 && src[i]; i++)
		dst[i] = src[i] < ' ' || src[i] == 0x7f ? '?' : src[i];
	dst[i] = '\0';
}

/* A call of metric @m, by @pid since @since, enters slot @s's flight. */
static void kc_fly_add(struct kc_vm_slot *s, enum kc_vm_by by,
		       unsigned int m, pid_t pid, u64 since)
{
	unsigned int f;

	for (f = 0; f < KC_VM_FLY; f++) {
		if (s->fly[f].metric != KC_NR_METRICS)
			continue;
		s->fly[f].since = since;
		s->fly[f].pid = pid;
		s->fly[f].metric = m;
		s->fly[f].by = by;
		return;
	}
}

/* That call returned. */
static void kc_fly_drop(struct kc_vm_slot *s, unsigned int m, pid_t pid,
			u64 since)
{
	unsigned int f;

	for (f = 0; f < KC_VM_FLY; f++) {
		struct kc_fly *e = &s->fly[f];

		if (e->metric == m && e->pid == pid && e->since == since) {
			e->metric = KC_NR_METRICS;
			return;
		}
	}
}

static void kc_fly_clear(struct kc_vm_slot *s)
{
	unsigned int f;

	for (f = 0; f < KC_VM_FLY; f++)
		s->fly[f].metric = KC_NR_METRICS;
}

void kc_vm_begin(u64 kvm, struct task_struct *t)
{
	unsigned long flags;
	int i, j;

	raw_spin_lock_irqsave(&kc_vms_lock, flags);
	/*
	 * A struct kvm freed and made again while the old VM's process is not
	 * reaped yet (a VMM's exit frees its VM well before the reap): the
	 * old record waits for its reap, found by its process alone.
	 */
	i = kc_find_kvm(kvm);
	if (i != KC_NONE)
		kc_unlink_kvm(i);
	/* A VMM that makes a VM after destroying one: that one is done. */
	for (j = kc_first_of(t->tgid); j != KC_NONE; j = i) {
		i = kc_next_of(j);
		if (kc_slots[j].vm.flags & KC_VM_DESTROYED)
			kc_slot_finish(j);
	}
	i = kc_slot_take();
	memset(&kc_slots[i].vm, 0, sizeof(kc_slots[i].vm));
	kc_slots[i].vm.kvm = kvm;
	kc_slots[i].vm.tgid = t->tgid;
	kc_slots[i].vm.creator = t->pid;
	kc_slots[i].vm.created = ktime_get_real_fast_ns();
	kc_slots[i].vm.flags = KC_VM_CREATING;
	kc_comm_copy(kc_slots[i].vm.comm, t->group_leader->comm);
	kc_slots[i].seq = ++kc_seq;
	kc_slots[i].used = true;
	kc_part_init(&kc_slots[i].td, KC_TD_NR_INTERVALS,
		     KC_M_TD_OTHER - KC_M_TD_DESTROY);
	kc_part_init(&kc_slots[i].st, KC_ST_NR_INTERVALS,
		     KC_ST_PART(KC_M_ST_OTHER));
	memset(kc_slots[i].releaser, 0, sizeof(kc_slots[i].releaser));
	kc_slots[i].leader_ran = false;
	kc_slots[i].destroyed_before = false;
	kc_slots[i].closer = 0;
	/* its KVM_CREATE_VM is in flight, until kc_vm_created() */
	kc_fly_clear(&kc_slots[i]);
	kc_fly_add(&kc_slots[i], KC_VM_BY_CREATING, KC_M_KVM_CREATE_VM, t->pid,
		   kc_now());
	kc_link(i);
	WRITE_ONCE(kc_vms_live, kc_vms_live + 1);
	raw_spin_unlock_irqrestore(&kc_vms_lock, flags);
}

static void kc_vm_add(struct kc_vm *vm, enum kc_metric m, u64 value)
{
	vm->sum[m] += value;
	vm->count[m]++;
}

/*
 * The live record of @kvm, if any, gains stage @m's @value (none when @m
 * is KC_NR_METRICS) and the flags @set.
 */
static void kc_vm_of_kvm(u64 kvm, enum kc_metric m, u64 value, u32 set)
{
	unsigned long flags;
	int i;

	if (kc_vms_none())
		return;
	raw_spin_lock_irqsave(&kc_vms_lock, flags);
	i = kc_find_kvm(kvm);
	if (i != KC_NONE) {
		if (m < KC_NR_METRICS)
			kc_vm_add(&kc_slots[i].vm, m, value);
		kc_slots[i].vm.flags |= set;
	}
	raw_spin_unlock_irqrestore(&kc_vms_lock, flags);
}

void kc_vm_stage_kvm(u64 kvm, enum kc_metric m, u64 value)
{
	kc_vm_of_kvm(kvm, m, value, 0);
}

/*
 * A timed call of metric @m enters (@enter) or leaves the flight of the VM
 * it is for: the VM @id (KC_VM_BY_KVM) or every VM of the process @id
 * (KC_VM_BY_TGID). @since is its entry's kc_now(), which with current's
 * pid tells it from the calls of other tasks. The probes call this only
 * for calls they time: an exit that is not traced never gets here.
 */
void kc_vm_fly(enum kc_vm_by by, u64 id, unsigned int m, u64 since,
	       bool enter)
{
	unsigned long flags;
	pid_t pid = current->pid;
	int i;

	if (by == KC_VM_BY_KVM ? kc_vms_none() : kc_vms_none_of((pid_t)id))
		return;
	raw_spin_lock_irqsave(&kc_vms_lock, flags);
	i = by == KC_VM_BY_KVM ? kc_find_kvm(id) : kc_first_of((pid_t)id);
	while (i != KC_NONE) {
		if (enter)
			kc_fly_add(&kc_slots[i], by, m, pid, since);
		else
			kc_fly_drop(&kc_slots[i], m, pid, since);
		i = by == KC_VM_BY_KVM ? KC_NONE : kc_next_of(i);
	}
	raw_spin_unlock_irqrestore(&kc_vms_lock, flags);
}

/*
 * Slot @s's calls in flight: the task whose innermost call began first
 * (the longest in one stage), and its calls, outermost first, into @v;
 * *@since is when its innermost began. Returns false if none is.
 */
static bool kc_live_calls(const struct kc_vm_slot *s, struct kc_live *v,
			  u64 *since)
{
	const struct kc_fly *e = s->fly, *in = NULL;
	unsigned int f, g, k, n = 0, idx[KC_VM_FLY];

	for (f = 0; f < KC_VM_FLY; f++) {
		bool inner = e[f].metric != KC_NR_METRICS;

		for (g = 0; g < KC_VM_FLY && inner; g++)
			inner = g == f || e[g].metric == KC_NR_METRICS ||
				e[g].pid != e[f].pid || e[g].since < e[f].since;
		if (inner && (!in || e[f].since < in->since))
			in = &e[f];
	}
	if (!in)
		return false;
	/* its calls, outermost (the earliest) first, by insertion */
	for (f = 0; f < KC_VM_FLY; f++) {
		if (e[f].metric == KC_NR_METRICS || e[f].pid != in->pid)
			continue;
		for (k = n++; k > 0 && e[idx[k - 1]].since > e[f].since; k--)
			idx[k] = idx[k - 1];
		idx[k] = f;
	}
	for (k = 0; k < n && k < KC_LIVE_DEPTH; k++)
		v->stage[k] = e[idx[k]].metric;
	v->depth = k;
	v->task = in->pid;
	*since = in->since;
	return true;
}

/*
 * Slot @s as the live view sees it at @now (kc_now()) and @real (its
 * CLOCK_REALTIME): its calls in flight, or in a teardown where none is,
 * the part that holds the instant; in a start-up the VMM's own time is
 * no stage.
 */
static void kc_slot_live(const struct kc_vm_slot *s, u64 now, u64 real,
			 struct kc_live *v)
{
	const struct kc_part *p = NULL;
	u64 since, age = 0;
	unsigned int h;

	memset(v, 0, sizeof(*v));
	v->tgid = s->vm.tgid;
	memcpy(v->comm, s->vm.comm, sizeof(v->comm));
	v->created = s->vm.created;
	v->window = s->td.flags & KC_PART_OPEN ? KC_LIVE_TEARDOWN :
		    s->st.flags & KC_PART_OPEN ? KC_LIVE_STARTUP :
		    s->vm.flags & KC_VM_DESTROYED ? KC_LIVE_DESTROYED :
		    KC_LIVE_RUN;
	if (kc_live_calls(s, v, &since))
		age = kc_between(since, now);
	else if (v->window == KC_LIVE_TEARDOWN)
		p = &s->td;
	else if (v->window == KC_LIVE_STARTUP)
		p = &s->st;
	if (p) {
		h = kc_part_holding(p, &since);
		/* a start-up's time that no timed call holds is the VMM's own */
		if (p == &s->st && h >= KC_ST_NR_INTERVALS)
			return;
		v->stage[v->depth++] = p == &s->td ? KC_TD_METRIC(h) :
						     KC_ST_METRIC(h);
		v->task = s->vm.tgid;
		age = kc_between(since, kc_to_unit(now)) * kc_unit_nsec();
	}
	if (!v->depth)
		return;
	v->age = kc_to_unit(age);
	v->since = real > age ? real - age : 0;
}

/*
 * The live VMs, at most @max, into @out, a batch at a time so that the
 * probes wait for little: a reader never holds the lock for the whole
 * table. Returns how many.
 */
unsigned int kc_vms_live_snapshot(struct kc_live *out, unsigned int max)
{
	unsigned int i, j, n = 0;
	unsigned long flags;

	for (i = 0; i < kc_vms_p.live && n < max; i += KC_VMS_BATCH) {
		u64 now, real;

		raw_spin_lock_irqsave(&kc_vms_lock, flags);
		now = kc_now();
		real = ktime_get_real_fast_ns();
		for (j = i; j < i + KC_VMS_BATCH && j < kc_vms_p.live &&
		     n < max; j++)
			if (kc_slots[j].used)
				kc_slot_live(&kc_slots[j], now, real, &out[n++]);
		raw_spin_unlock_irqrestore(&kc_vms_lock, flags);
	}
	return n;
}

/* The slot of the VM @tgid is creating (the newest that is), or KC_NONE. */
static int kc_creating_of(pid_t tgid)
{
	int i;

	for (i = kc_first_of(tgid); i != KC_NONE; i = kc_next_of(i))
		if (kc_slots[i].vm.flags & KC_VM_CREATING)
			return i;
	return KC_NONE;
}

/* A stage of the process: every live VM of @tgid has it. */
void kc_vm_stage_tgid(pid_t tgid, enum kc_metric m, u64 value)
{
	unsigned long flags;
	int i;

	if (kc_vms_none_of(tgid))
		return;
	raw_spin_lock_irqsave(&kc_vms_lock, flags);
	for (i = kc_first_of(tgid); i != KC_NONE; i = kc_next_of(i))
		kc_vm_add(&kc_slots[i].vm, m, value);
	raw_spin_unlock_irqrestore(&kc_vms_lock, flags);
}

/* A stage of the VM @tgid is creating (KVM_CREATE_VM and its uevent). */
void kc_vm_stage_creating(pid_t tgid, enum kc_metric m, u64 value)
{
	unsigned long flags;
	int i;

	if (kc_vms_none_of(tgid))
		return;
	raw_spin_lock_irqsave(&kc_vms_lock, flags);
	i = kc_creating_of(tgid);
	if (i != KC_NONE)
		kc_vm_add(&kc_slots[i].vm, m, value);
	raw_spin_unlock_irqrestore(&kc_vms_lock, flags);
}

/* The destroy uevent names the VM by its creator's pid alone. */
void kc_vm_stage_creator(pid_t pid, enum kc_metric m, u64 value)
{
	unsigned long flags;
	unsigned int i;

	if (kc_vms_none())
		return;
	raw_spin_lock_irqsave(&kc_vms_lock, flags);
	for (i = 0; i < kc_vms_p.live; i++) {
		struct kc_vm *vm = &kc_slots[i].vm;

		if (kc_slots[i].used && vm->creator == pid &&
		    !(vm->flags & KC_VM_DESTROYED) && !vm->count[m]) {
			kc_vm_add(vm, m, value);
			break;
		}
	}
	raw_spin_unlock_irqrestore(&kc_vms_lock, flags);
}

/*
 * KVM_CREATE_VM returned: the VM being created by @tgid is made (@ok), or
 * its record goes (the ioctl failed).
 */
void kc_vm_created(pid_t tgid, bool ok)
{
	unsigned long flags;
	int i;

	if (kc_vms_none_of(tgid))
		return;
	raw_spin_lock_irqsave(&kc_vms_lock, flags);
	i = kc_creating_of(tgid);
	if (i != KC_NONE && ok) {
		kc_slots[i].vm.flags &= ~KC_VM_CREATING;
		kc_fly_end(&kc_slots[i], KC_VM_BY_CREATING);
	} else if (i != KC_NONE) {
		kc_slot_free(i);
	}
	raw_spin_unlock_irqrestore(&kc_vms_lock, flags);
}

void kc_vm_destroyed(u64 kvm)
{
	kc_vm_of_kvm(kvm, KC_NR_METRICS, 0, KC_VM_DESTROYED);
}

static_assert(KC_NR_TD_PARTS <= KC_PART_MAX);

/* The part that idle time goes to after each event of a teardown. */
static const u8 kc_td_idle[] = {
	[KC_TD_SIGNALLED] = KC_M_TD_WAKE - KC_M_TD_DESTROY,
	[KC_TD_LEADER_RUNS] = KC_M_TD_OTHER - KC_M_TD_DESTROY,
	[KC_TD_EXITS] = KC_M_TD_OTHER - KC_M_TD_DESTROY,
	[KC_TD_LEADER_DONE] = KC_M_TD_THREADS - KC_M_TD_DESTROY,
	[KC_TD_NOTIFIED] = KC_M_REAP_WAIT - KC_M_TD_DESTROY,
	[KC_TD_REAPED] = KC_M_RCU_FREE - KC_M_TD_DESTROY,
};

#define KC_TD_OTHER	KC_TD_PART(KC_M_TD_OTHER)

/* The closing thread's task work ends at @now, if it has not. */
static void kc_td_closer_done(struct kc_vm_slot *s, u64 now)
{
	if (!s->closer)
		return;
	kc_part_close(&s->td, now, KC_TD_PART(KC_M_TD_TASK_WORK));
	s->closer = 0;
}

static void kc_td_event(struct kc_vm_slot *s, enum kc_td_event ev, u64 now,
			u64 waited)
{
	struct kc_part *p = &s->td;

	switch (ev) {
	case KC_TD_SIGNALLED:
		if (!(p->flags & KC_PART_OPEN))
			s->vm.td_began = ktime_get_real_fast_ns();
		kc_part_begin(p, now);
		break;
	case KC_TD_LEADER_RUNS:
		/* only while the leader is waited for */
		if (p->idle != KC_TD_PART(KC_M_TD_WAKE))
			return;
		kc_part_idle(p, now, KC_TD_OTHER);
		s->waited = waited;
		s->other = p->sum[KC_TD_OTHER];
		s->leader_ran = true;
		return;
	case KC_TD_NOTIFIED:
		/* the last thread is past its exit: no task work is left */
		kc_td_closer_done(s, now);
		if ((p->flags & KC_PART_OPEN) && !s->vm.td_notified)
			s->vm.td_notified = max(now, p->start) - p->start + 1;
		break;
	case KC_TD_REAPED:
		kc_td_closer_done(s, now);
		if ((p->flags & KC_PART_OPEN) && !s->vm.td_reaped)
			s->vm.td_reaped = max(now, p->start) - p->start + 1;
		break;
	case KC_TD_EXITS:
		if (!(p->flags & KC_PART_OPEN))
			s->vm.td_began = ktime_get_real_fast_ns();
		kc_part_begin(p, now);
		kc_part_idle(p, now, KC_TD_OTHER);
		/*
		 * Of the time no stage held since the leader took the signal,
		 * as much as it waited on a run queue was that wait.
		 */
		if (s->leader_ran && waited > s->waited)
			kc_part_move(p, KC_TD_OTHER, KC_TD_PART(KC_M_TD_RUNQ),
				     min(waited - s->waited,
					 p->sum[KC_TD_OTHER] - s->other));
		kc_part_mark(p, now);
		break;
	default:
		break;
	}
	kc_part_idle(p, now, kc_td_idle[ev]);
}

/* An event of @tgid's teardown: every live VM of the process sees it. */
void kc_vm_td_event(pid_t tgid, enum kc_td_event ev, u64 now, u64 waited)
{
	unsigned long flags;
	int i;

	if (kc_vms_none_of(tgid) || ev >= ARRAY_SIZE(kc_td_idle))
		return;
	raw_spin_lock_irqsave(&kc_vms_lock, flags);
	for (i = kc_first_of(tgid); i != KC_NONE; i = kc_next_of(i))
		kc_td_event(&kc_slots[i], ev, now, waited);
	raw_spin_unlock_irqrestore(&kc_vms_lock, flags);
}

/*
 * An interval of teardown part @part opens or closes: in the process @id
 * (KC_VM_BY_TGID), or in the process of the VM @id (KC_VM_BY_KVM), whatever
 * task it runs in. Every live VM of that process sees it. Returns whether
 * there was one.
 */
bool kc_vm_td_interval(enum kc_vm_by by, u64 id, unsigned int part,
		       bool open, u64 now)
{
	unsigned long flags;
	bool found = false;
	pid_t tgid = id;
	int i;

	if (by == KC_VM_BY_KVM ? kc_vms_none() : kc_vms_none_of(tgid))
		return false;
	raw_spin_lock_irqsave(&kc_vms_lock, flags);
	if (by == KC_VM_BY_KVM) {
		i = kc_find_kvm(id);
		tgid = i == KC_NONE ? 0 : kc_slots[i].vm.tgid;
	}
	for (i = tgid ? kc_first_of(tgid) : KC_NONE; i != KC_NONE;
	     i = kc_next_of(i)) {
		if (open)
			kc_part_open(&kc_slots[i].td, now, part);
		else
			kc_part_close(&kc_slots[i].td, now, part);
		found = true;
	}
	raw_spin_unlock_irqrestore(&kc_vms_lock, flags);
	return found;
}

/*
 * @t closed its process's files (its exit_files() returned): the deferred
 * fputs of those files run in its task work next, and with the rest of its
 * exit are the part td_task_work (the releases and destroy they run apart)
 * until it is released (kc_vm_td_released()) or notifies the parent. Cheaper
 * than a kretprobe on task_work_run(), which every close() on the host runs.
 */
void kc_vm_td_closed(const struct task_struct *t, u64 now)
{
	unsigned long flags;
	int i;

	if (kc_vms_none_of(t->tgid))
		return;
	raw_spin_lock_irqsave(&kc_vms_lock, flags);
	for (i = kc_first_of(t->tgid); i != KC_NONE; i = kc_next_of(i)) {
		if (kc_slots[i].closer)
			continue;
		kc_part_open(&kc_slots[i].td, now,
			     KC_TD_PART(KC_M_TD_TASK_WORK));
		kc_slots[i].closer = t->pid;
	}
	raw_spin_unlock_irqrestore(&kc_vms_lock, flags);
}

/*
 * @t, a thread other than the leader, is released at the end of its exit:
 * if it closed the files, its task work is over; if the leader did, and is
 * past its exit (a zombie), so is the leader's, by this instant at the
 * latest (the leader's exit has no later event of its own when it is not
 * the last thread).
 */
void kc_vm_td_released(const struct task_struct *t, u64 now)
{
	unsigned long flags;
	pid_t closer;
	int i;

	raw_spin_lock_irqsave(&kc_vms_lock, flags);
	for (i = kc_first_of(t->tgid); i != KC_NONE; i = kc_next_of(i)) {
		closer = kc_slots[i].closer;
		if (closer == t->pid ||
		    (closer == t->tgid && READ_ONCE(t->group_leader->exit_state)))
			kc_td_closer_done(&kc_slots[i], now);
	}
	raw_spin_unlock_irqrestore(&kc_vms_lock, flags);
}

/*
 * current begins or ends a release of the VM @kvm's files (@rel): where
 * kvm_destroy_vm runs under one, the record says which. Returns whether
 * the VM has a record.
 */
bool kc_vm_releasing(u64 kvm, enum kc_vm_release rel, bool begins)
{
	unsigned long flags;
	int i;

	if (kc_vms_none() || rel >= KC_VM_NR_REL)
		return false;
	raw_spin_lock_irqsave(&kc_vms_lock, flags);
	i = kc_find_kvm(kvm);
	if (i != KC_NONE)
		kc_slots[i].releaser[rel] = begins ? current : NULL;
	raw_spin_unlock_irqrestore(&kc_vms_lock, flags);
	return i != KC_NONE;
}

#define KC_VM_DESTROY_BY_ANY \
	(KC_VM_DESTROY_BY_VM | KC_VM_DESTROY_BY_VCPU | KC_VM_DESTROY_BY_OTHER)

/* Whether a VM of slot @i's process other than its own is not destroyed. */
static bool kc_other_vm_alive(int i)
{
	int j;

	for (j = kc_first_of(kc_slots[i].vm.tgid); j != KC_NONE;
	     j = kc_next_of(j))
		if (j != i && !(kc_slots[j].vm.flags & KC_VM_DESTROY_BY_ANY))
			return true;
	return false;
}

/*
 * The VM @kvm's destroy begins or ends at @now, in whatever task: a part
 * of its process's teardown, and at its beginning, the release it runs
 * under. A VM destroyed before the teardown began while another of its
 * process lives on (arm64 QEMU's scratch VMs) gets no partition: the
 * process's teardown is not its own. The last VM, which a VMM may close
 * before it exits, keeps it: the process's exit frees its memory. Returns
 * whether the VM has a record.
 */
bool kc_vm_destroying(u64 kvm, bool begins, u64 now)
{
	struct kc_vm *vm;
	unsigned long flags;
	int i;

	if (begins && !kc_vms_none()) {
		raw_spin_lock_irqsave(&kc_vms_lock, flags);
		i = kc_find_kvm(kvm);
		if (i != KC_NONE) {
			vm = &kc_slots[i].vm;
			kc_st_abandon(&kc_slots[i]);
			kc_slots[i].destroyed_before =
				!(kc_slots[i].td.flags & KC_PART_OPEN) &&
				kc_other_vm_alive(i);
			if (kc_slots[i].releaser[KC_VM_REL_VM] == current)
				vm->flags |= KC_VM_DESTROY_BY_VM;
			else if (kc_slots[i].releaser[KC_VM_REL_VCPU] == current)
				vm->flags |= KC_VM_DESTROY_BY_VCPU;
			else
				vm->flags |= KC_VM_DESTROY_BY_OTHER;
		}
		raw_spin_unlock_irqrestore(&kc_vms_lock, flags);
	}
	return kc_vm_td_interval(KC_VM_BY_KVM, kvm, KC_TD_PART(KC_M_TD_DESTROY),
				 begins, now);
}

static_assert(KC_NR_ST_PARTS <= KC_PART_MAX);

#define KC_ST_OTHER	KC_ST_PART(KC_M_ST_OTHER)

/* @a += @b, each field. */
static void kc_vmm_time_add(struct kc_vmm_time *a, const struct kc_vmm_time *b)
{
	a->ran += b->ran;
	a->waited += b->waited;
	a->slept += b->slept;
}

/*
 * The VM @tgid is creating has its KVM_CREATE_VM's return: its start-up's
 * window opened at the ioctl's entry, @start, and the ioctl is its first
 * part. @at is the VMM's times at the return, where the ioctl's end.
 */
void kc_vm_st_begin(pid_t tgid, u64 start, u64 now,
		    const struct kc_vmm_time *at)
{
	struct kc_vm_slot *s;
	unsigned long flags;
	int i;

	if (kc_vms_none_of(tgid))
		return;
	raw_spin_lock_irqsave(&kc_vms_lock, flags);
	i = kc_creating_of(tgid);
	s = i != KC_NONE ? &kc_slots[i] : NULL;
	if (s && !(s->st.flags & (KC_PART_OPEN | KC_PART_ENDED))) {
		kc_part_begin(&s->st, start);
		kc_part_open(&s->st, start, KC_ST_PART(KC_M_ST_CREATE));
		kc_part_close(&s->st, now, KC_ST_PART(KC_M_ST_CREATE));
		s->st_at = *at;
		memset(&s->st_in, 0, sizeof(s->st_in));
		WRITE_ONCE(kc_vms_starting, kc_vms_starting + 1);
	}
	raw_spin_unlock_irqrestore(&kc_vms_lock, flags);
}

/*
 * A timed call of the VM @kvm's start-up, of part @part, opens or closes
 * at @now; a closing one gives its thread's own times @in. Returns whether
 * the VM is starting.
 */
bool kc_vm_st_interval(u64 kvm, unsigned int part, bool open, u64 now,
		       const struct kc_vmm_time *in)
{
	unsigned long flags;
	bool found = false;
	int i;

	if (kc_vms_none_starting())
		return false;
	raw_spin_lock_irqsave(&kc_vms_lock, flags);
	i = kc_find_kvm(kvm);
	if (i != KC_NONE && (kc_slots[i].st.flags & KC_PART_OPEN)) {
		struct kc_vm_slot *s = &kc_slots[i];

		if (open) {
			kc_part_open(&s->st, now, part);
		} else {
			kc_part_close(&s->st, now, part);
			if (in)
				kc_vmm_time_add(&s->st_in, in);
		}
		found = true;
	}
	raw_spin_unlock_irqrestore(&kc_vms_lock, flags);
	return found;
}

/* @a - @b in the module's unit, or 0. */
static u64 kc_unit_sub(u64 a, u64 b)
{
	return a > b ? kc_to_unit(a - b) : 0;
}

/* Slot @s's start-up ends at @now, the VMM's times @end: its parts. */
static void kc_st_end(struct kc_vm_slot *s, u64 now,
		      const struct kc_vmm_time *end, struct kc_st_result *st)
{
	struct kc_vmm_time d, in;
	struct kc_part *p = &s->st;
	struct kc_vm *vm = &s->vm;
	struct kc_vmm_split split;
	unsigned int i;

	kc_part_end(p, now);
	WRITE_ONCE(kc_vms_starting, kc_vms_starting - 1);
	d.ran = kc_unit_sub(end->ran, s->st_at.ran);
	d.waited = kc_unit_sub(end->waited, s->st_at.waited);
	d.user = end->user > s->st_at.user ? end->user - s->st_at.user : 0;
	d.system = end->system > s->st_at.system ?
		   end->system - s->st_at.system : 0;
	d.slept = end->slept > s->st_at.slept ? end->slept - s->st_at.slept : 0;
	in.ran = kc_to_unit(s->st_in.ran);
	in.waited = kc_to_unit(s->st_in.waited);
	in.slept = s->st_in.slept;
	kc_vmm_split(p->sum[KC_ST_OTHER], &d, &in, end, &split);
	kc_part_move(p, KC_ST_OTHER, KC_ST_PART(KC_M_ST_KERNEL), split.kernel);
	kc_part_move(p, KC_ST_OTHER, KC_ST_PART(KC_M_ST_USER), split.user);
	kc_part_move(p, KC_ST_OTHER, KC_ST_PART(KC_M_ST_RUNQ), split.runq);
	kc_part_move(p, KC_ST_OTHER, KC_ST_PART(KC_M_ST_BLOCKED),
		     split.blocked);
	vm->flags |= KC_VM_STARTED;
	vm->sum[KC_M_STARTUP] = kc_part_window(p);
	vm->count[KC_M_STARTUP] = 1;
	for (i = 0; i < KC_NR_ST_PARTS; i++) {
		vm->sum[KC_ST_METRIC(i)] = p->sum[i];
		vm->count[KC_ST_METRIC(i)] = 1;
		vm->st_first[i] = p->first[i];
	}
	st->valid = true;
	st->window = kc_part_window(p);
	memcpy(st->part, p->sum, sizeof(st->part));
}

/*
 * The VM @kvm is ready at @now, the end of its first vCPU's first KVM_RUN's
 * setup, whose own times are @in: its start-up ends, and *@st gets its
 * parts for the histograms.
 */
void kc_vm_st_ready(u64 kvm, u64 now, const struct kc_vmm_time *in,
		    const struct kc_vmm_time *end, struct kc_st_result *st)
{
	unsigned long flags;
	int i;

	st->valid = false;
	if (kc_vms_none_starting())
		return;
	raw_spin_lock_irqsave(&kc_vms_lock, flags);
	i = kc_find_kvm(kvm);
	if (i != KC_NONE && (kc_slots[i].st.flags & KC_PART_OPEN)) {
		struct kc_vm_slot *s = &kc_slots[i];

		kc_part_close(&s->st, now, KC_ST_PART(KC_M_ST_FIRST_RUN));
		kc_vmm_time_add(&s->st_in, in);
		kc_st_end(s, now, end, st);
	}
	raw_spin_unlock_irqrestore(&kc_vms_lock, flags);
}

/* Slot @s's teardown ends at @now: its parts go into its record. */
static void kc_td_end(struct kc_vm_slot *s, u64 now, struct kc_td_result *td)
{
	struct kc_part *p = &s->td;
	struct kc_vm *vm = &s->vm;
	unsigned int i;

	kc_part_end(p, now);
	if (!(p->flags & KC_PART_ENDED) || s->destroyed_before)
		return;
	vm->flags |= KC_VM_TORN_DOWN;
	vm->sum[KC_M_TEARDOWN] = kc_part_window(p);
	vm->count[KC_M_TEARDOWN] = 1;
	for (i = 0; i < KC_NR_TD_PARTS; i++) {
		vm->sum[KC_TD_METRIC(i)] = p->sum[i];
		vm->count[KC_TD_METRIC(i)] = 1;
		vm->td_first[i] = p->first[i];
		if (p->flags & KC_PART_MARKED)
			vm->td_before_exit[i] = p->mark[i];
	}
	if (td && !td->valid) {
		td->valid = true;
		td->window = kc_part_window(p);
		memcpy(td->part, p->sum, sizeof(td->part));
	}
}

/*
 * The process's leader is freed (its exit_to_reap is in): its teardown
 * ends at @now, its VMs are done, and *@td (if not NULL) gets the
 * teardown's parts once, for the histograms.
 */
void kc_vm_freed(pid_t tgid, u64 now, struct kc_td_result *td)
{
	unsigned long flags;
	int i, n;

	if (td)
		td->valid = false;
	if (kc_vms_none_of(tgid))
		return;
	raw_spin_lock_irqsave(&kc_vms_lock, flags);
	for (i = kc_first_of(tgid); i != KC_NONE; i = n) {
		n = kc_next_of(i);
		kc_td_end(&kc_slots[i], now, td);
		kc_slot_finish(i);
	}
	raw_spin_unlock_irqrestore(&kc_vms_lock, flags);
}

/* Forgets the finished VMs (reset); the live ones go on. */
void kc_vms_reset(void)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&kc_vms_lock, flags);
	kc_last_head = 0;
	kc_last_len = 0;
	kc_slowest_len = 0;
	kc_st.finished = 0;
	kc_st.last_evicted = 0;
	kc_st.live_evicted = 0;
	memset(kc_accounted, 0, sizeof(kc_accounted));
	raw_spin_unlock_irqrestore(&kc_vms_lock, flags);
}

/*
 * A window @w (a VM's start-up, a process's teardown) is in the
 * histograms: its accounted share is kept.
 */
void kc_vm_accounted(enum kc_window w, u64 window, u64 other)
{
	unsigned int pm = kc_accounted_permille(window, other);
	unsigned long flags;

	if (w >= KC_NR_WINDOWS)
		return;
	raw_spin_lock_irqsave(&kc_vms_lock, flags);
	if (kc_accounted[w][pm] < U32_MAX)
		kc_accounted[w][pm]++;
	raw_spin_unlock_irqrestore(&kc_vms_lock, flags);
}

/*
 * How many windows @w since the last reset were each per mille accounted,
 * into @count (KC_PERMILLE + 1 of them).
 */
void kc_vms_accounted(enum kc_window w, u32 *count)
{
	unsigned long flags;

	if (w >= KC_NR_WINDOWS) {
		memset(count, 0, sizeof(kc_accounted[0]));
		return;
	}
	raw_spin_lock_irqsave(&kc_vms_lock, flags);
	memcpy(count, kc_accounted[w], sizeof(kc_accounted[w]));
	raw_spin_unlock_irqrestore(&kc_vms_lock, flags);
}

/* Swaps two records a word at a time: one is too big for the stack. */
static void kc_vm_swap(struct kc_vm *a, struct kc_vm *b)
{
	u64 *x = (u64 *)a, *y = (u64 *)b;
	size_t i;

	static_assert(sizeof(*a) % sizeof(u64) == 0);
	for (i = 0; i < sizeof(*a) / sizeof(u64); i++)
		swap(x[i], y[i]);
}

/*
 * Copies the finished VMs into @out (room for kc_vms_p.last +
 * kc_vms_p.slowest): the last ones oldest first, then the slowest,
 * slowest first. Sets *nlast and *nslow; *st gets the counts.
 */
void kc_vms_snapshot(struct kc_vm *out, unsigned int *nlast,
		     unsigned int *nslow, struct kc_vms_stats *st)
{
	unsigned int i, j, n, len, first;
	unsigned long flags;

	raw_spin_lock_irqsave(&kc_vms_lock, flags);
	len = kc_last_len;
	first = (kc_last_head + kc_vms_p.last - len) % kc_vms_p.last;
	*st = kc_st;
	st->live = kc_vms_live;
	raw_spin_unlock_irqrestore(&kc_vms_lock, flags);
	/* Newer VMs may land while this copies: the ring may move on. */
	for (i = 0; i < len; i += n) {
		n = min_t(unsigned int, KC_VMS_BATCH, len - i);
		raw_spin_lock_irqsave(&kc_vms_lock, flags);
		for (j = 0; j < n; j++)
			out[i + j] = kc_last[(first + i + j) % kc_vms_p.last];
		raw_spin_unlock_irqrestore(&kc_vms_lock, flags);
	}
	*nlast = len;
	raw_spin_lock_irqsave(&kc_vms_lock, flags);
	n = kc_slowest_len;
	memcpy(out + len, kc_slowest, n * sizeof(*kc_slowest));
	raw_spin_unlock_irqrestore(&kc_vms_lock, flags);
	*nslow = n;
	/* Slowest first: a few dozen, by insertion. */
	for (i = 1; i < n; i++) {
		for (j = i; j > 0 && kc_reap_time(&out[len + j - 1]) <
				     kc_reap_time(&out[len + j]); j--)
			kc_vm_swap(&out[len + j - 1], &out[len + j]);
	}
}

void kc_vms_params(struct kc_vms_params *p)
{
	*p = kc_vms_p;
}

/* The tgid table's heads are KC_VMS_TGID_HEADS times the kvm table's. */
#define KC_VMS_TGID_HEADS	4

static size_t kc_vms_bytes(const struct kc_vms_params *p, unsigned int heads)
{
	return p->live * sizeof(*kc_slots) +
	       KC_VMS_TGID_HEADS * heads * sizeof(*kc_vms_by_tgid) +
	       (p->last + p->slowest) * sizeof(struct kc_vm) +
	       heads * sizeof(*kc_by_kvm);
}

void kc_vms_mem(struct kc_mem *mem)
{
	kc_mem_vmalloc(mem, kc_vms_bytes(&kc_vms_p, 1U << kc_hash_bits));
}

int kc_vms_init(const struct kc_vms_params *p)
{
	unsigned int heads, i;
	char *a;

	if (p->last < KC_VMS_MIN || p->last > KC_VMS_MAX ||
	    p->slowest < KC_VMS_MIN || p->slowest > KC_VMS_MAX ||
	    p->live < KC_VMS_MIN || p->live > KC_VMS_MAX)
		return -EINVAL;
	heads = roundup_pow_of_two(p->live);
	kc_vms_area = vzalloc(kc_vms_bytes(p, heads));
	if (!kc_vms_area)
		return -ENOMEM;
	kc_vms_p = *p;
	memset(&kc_st, 0, sizeof(kc_st));
	kc_last_head = 0;
	kc_last_len = 0;
	kc_slowest_len = 0;
	kc_seq = 0;
	kc_vms_live = 0;
	kc_vms_starting = 0;
	kc_hash_bits = ilog2(heads);
	kc_vms_tgid_heads = KC_VMS_TGID_HEADS * heads;
	/* the 8-byte fields first, so that each part is aligned */
	a = kc_vms_area;
	kc_slots = (struct kc_vm_slot *)a;
	a += p->live * sizeof(*kc_slots);
	kc_vms_by_tgid = (u64 *)a;
	a += kc_vms_tgid_heads * sizeof(*kc_vms_by_tgid);
	kc_last = (struct kc_vm *)a;
	kc_slowest = kc_last + p->last;
	kc_by_kvm = (int *)(kc_slowest + p->slowest);
	for (i = 0; i < heads; i++)
		kc_by_kvm[i] = KC_NONE;
	for (i = 0; i < kc_vms_tgid_heads; i++)
		kc_vms_by_tgid[i] = KC_VMS_HEAD_NONE;
	for (i = 0; i < p->live; i++)
		kc_slots[i].next_free = i + 1 < p->live ? i + 1 : KC_NONE;
	kc_free = 0;
	return 0;
}

void kc_vms_exit(void)
{
	vfree(kc_vms_area);
	kc_vms_area = NULL;
	/* no record is left: a reader after this (KUnit's) finds none */
	kc_slots = NULL;
	memset(&kc_vms_p, 0, sizeof(kc_vms_p));
}

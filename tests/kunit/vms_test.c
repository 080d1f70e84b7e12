// SPDX-License-Identifier: GPL-2.0
/*
 * vms_test.c - the per-VM records (vms.c): a VM's life from KVM_CREATE_VM
 * to its process's reap, stages by struct kvm *, by process and by
 * creator, a failed create, the last ones (a ring that evicts), the slowest
 * ones in order, a full live table that evicts its oldest, reset, the
 * vms file's text, and the live view of the calls in flight.
 *
 * vms.c is built in here, not through a wrapper, for its tables. A task is
 * only read for its pid, tgid and leader's comm: current stands in for every
 * VMM, with the tgids the tests give it.
 */
#include "../../module/vms.c"

#include <kunit/test.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

/* Small tables, so that each limit is reached in a few steps. */
static const struct kc_vms_params kc_test_vms = {
	.last = 3, .slowest = 2, .live = 4,
};

/* A VMM of tgid @tgid whose leader is named @comm. */
struct kc_fake_vmm {
	struct task_struct task;
};

static struct task_struct *kc_vmm(struct kunit *test, pid_t tgid,
				  const char *comm)
{
	struct kc_fake_vmm *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, f);
	f->task.pid = tgid;
	f->task.tgid = tgid;
	f->task.group_leader = &f->task;
	strscpy(f->task.comm, comm, sizeof(f->task.comm));
	return &f->task;
}

/* A thread @pid of the process whose leader is @leader. */
static struct task_struct *kc_thread(struct kunit *test,
				     struct task_struct *leader, pid_t pid)
{
	struct task_struct *t = kc_vmm(test, leader->tgid, leader->comm);

	t->pid = pid;
	t->group_leader = leader;
	return t;
}

static int kc_vms_test_init(struct kunit *test)
{
	return kc_vms_init(&kc_test_vms);
}

static void kc_vms_test_exit(struct kunit *test)
{
	kc_vms_exit();
}

/* Made, created and reaped: KVM_CREATE_VM's value, then the process's. */
static void kc_vm_life(struct kunit *test, u64 kvm, pid_t tgid, u64 reap)
{
	kc_vm_begin(kvm, kc_vmm(test, tgid, "firecracker"));
	kc_vm_stage_creating(tgid, KC_M_KVM_CREATE_VM, 100);
	kc_vm_created(tgid, true);
	kc_vm_stage_tgid(tgid, KC_M_EXIT_TO_REAP, reap);
	kc_vm_freed(tgid, 0, NULL);
}

struct kc_vms_read {
	struct kc_vm vms[5];	/* last + slowest */
	unsigned int nlast, nslow;
	struct kc_vms_stats st;
};

static struct kc_vms_read *kc_read(struct kunit *test)
{
	struct kc_vms_read *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, r);
	kc_vms_snapshot(r->vms, &r->nlast, &r->nslow, &r->st);
	return r;
}

static void kc_vms_one_life(struct kunit *test)
{
	struct kc_vms_read *r;
	const struct kc_vm *vm;
	unsigned int m;

	kc_vm_begin(0x1000, kc_vmm(test, 300, "fire\tcracker"));
	/* by process while it is being created: only that VM */
	kc_vm_stage_creating(300, KC_M_UEVENT_CREATE, 7);
	kc_vm_stage_creating(300, KC_M_KVM_CREATE_VM, 50);
	kc_vm_created(300, true);
	/* a second create stage finds no VM being created */
	kc_vm_stage_creating(300, KC_M_KVM_CREATE_VM, 1);
	kc_vm_stage_kvm(0x1000, KC_M_VCPU_CREATE, 10);
	kc_vm_stage_kvm(0x1000, KC_M_VCPU_CREATE, 12);
	kc_vm_stage_kvm(0x2000, KC_M_VCPU_CREATE, 99);	/* another VM's */
	kc_vm_stage_tgid(300, KC_M_EXIT_MMAP, 30);
	kc_vm_stage_tgid(301, KC_M_EXIT_MMAP, 99);	/* another process's */
	kc_vm_stage_creator(300, KC_M_UEVENT_DESTROY, 5);
	kc_vm_stage_creator(300, KC_M_UEVENT_DESTROY, 6);	/* once a VM */
	kc_vm_destroyed(0x1000);
	kc_vm_stage_tgid(300, KC_M_EXIT_TO_REAP, 400);
	r = kc_read(test);
	KUNIT_EXPECT_EQ(test, r->nlast, 0U);
	KUNIT_EXPECT_EQ(test, r->st.live, 1U);
	kc_vm_freed(300, 0, NULL);

	r = kc_read(test);
	KUNIT_ASSERT_EQ(test, r->nlast, 1U);
	KUNIT_EXPECT_EQ(test, r->nslow, 1U);
	KUNIT_EXPECT_EQ(test, r->st.live, 0U);
	KUNIT_EXPECT_EQ(test, r->st.finished, 1ULL);
	vm = &r->vms[0];
	KUNIT_EXPECT_EQ(test, vm->tgid, 300);
	KUNIT_EXPECT_STREQ(test, vm->comm, "fire?cracker");
	KUNIT_EXPECT_EQ(test, vm->flags, (u32)KC_VM_DESTROYED);
	for (m = 0; m < KC_NR_METRICS; m++) {
		u32 count = 0;
		u64 sum = 0;

		switch (m) {
		case KC_M_KVM_CREATE_VM:
			count = 1, sum = 50;
			break;
		case KC_M_UEVENT_CREATE:
			count = 1, sum = 7;
			break;
		case KC_M_VCPU_CREATE:
			count = 2, sum = 22;
			break;
		case KC_M_EXIT_MMAP:
			count = 1, sum = 30;
			break;
		case KC_M_UEVENT_DESTROY:
			count = 1, sum = 5;
			break;
		case KC_M_EXIT_TO_REAP:
			count = 1, sum = 400;
			break;
		}
		KUNIT_EXPECT_EQ_MSG(test, vm->count[m], count, "%s",
				    kc_metric_name(m));
		KUNIT_EXPECT_EQ_MSG(test, vm->sum[m], sum, "%s",
				    kc_metric_name(m));
	}
	/* Once reaped, nothing more reaches it. */
	kc_vm_stage_kvm(0x1000, KC_M_KVM_DESTROY_VM, 1);
	kc_vm_stage_tgid(300, KC_M_EXIT_MMAP, 1);
	r = kc_read(test);
	KUNIT_EXPECT_EQ(test, r->vms[0].count[KC_M_KVM_DESTROY_VM], 0U);
	KUNIT_EXPECT_EQ(test, r->vms[0].count[KC_M_EXIT_MMAP], 1U);
}

/* A KVM_CREATE_VM that fails leaves no record. */
static void kc_vms_failed_create(struct kunit *test)
{
	struct kc_vms_read *r;

	kc_vm_begin(0x1000, kc_vmm(test, 300, "firecracker"));
	kc_vm_created(300, false);
	kc_vm_freed(300, 0, NULL);
	r = kc_read(test);
	KUNIT_EXPECT_EQ(test, r->nlast, 0U);
	KUNIT_EXPECT_EQ(test, r->st.live, 0U);
	KUNIT_EXPECT_EQ(test, r->st.finished, 0ULL);
}

/* A VMM's VMs all get its stages; a new VM ends a destroyed one. */
static void kc_vms_two_in_a_process(struct kunit *test)
{
	struct kc_vms_read *r;

	kc_vm_begin(0x1000, kc_vmm(test, 300, "qemu-system-x86"));
	kc_vm_created(300, true);
	kc_vm_begin(0x2000, kc_vmm(test, 300, "qemu-system-x86"));
	kc_vm_created(300, true);
	kc_vm_stage_tgid(300, KC_M_EXIT_MMAP, 5);
	r = kc_read(test);
	KUNIT_EXPECT_EQ(test, r->st.live, 2U);
	kc_vm_destroyed(0x1000);
	kc_vm_destroyed(0x2000);
	kc_vm_begin(0x3000, kc_vmm(test, 300, "qemu-system-x86"));
	r = kc_read(test);
	KUNIT_EXPECT_EQ(test, r->st.live, 1U);
	KUNIT_ASSERT_EQ(test, r->nlast, 2U);
	KUNIT_EXPECT_EQ(test, r->vms[0].count[KC_M_EXIT_MMAP], 1U);
	KUNIT_EXPECT_EQ(test, r->vms[1].count[KC_M_EXIT_MMAP], 1U);
	/* neither was reaped: not among the slowest */
	KUNIT_EXPECT_EQ(test, r->nslow, 0U);
}

/* The last 3, oldest first; what falls off is counted. */
static void kc_vms_ring(struct kunit *test)
{
	struct kc_vms_read *r;
	unsigned int i;

	for (i = 0; i < 5; i++)
		kc_vm_life(test, 0x1000 + i, 400 + i, 10 + i);
	r = kc_read(test);
	KUNIT_ASSERT_EQ(test, r->nlast, 3U);
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_EQ(test, r->vms[i].tgid, 402 + (int)i);
	KUNIT_EXPECT_EQ(test, r->st.finished, 5ULL);
	KUNIT_EXPECT_EQ(test, r->st.last_evicted, 2ULL);
}

/* The slowest 2 by exit_to_reap, slowest first. */
static void kc_vms_slowest(struct kunit *test)
{
	static const u64 reap[] = { 30, 90, 10, 60, 90 };
	struct kc_vms_read *r;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(reap); i++)
		kc_vm_life(test, 0x1000 + i, 500 + i, reap[i]);
	r = kc_read(test);
	KUNIT_ASSERT_EQ(test, r->nslow, 2U);
	/* 504's 90 replaced 503's 60; of two 90s, the one kept last first */
	KUNIT_EXPECT_EQ(test, r->vms[r->nlast].tgid, 504);
	KUNIT_EXPECT_EQ(test, r->vms[r->nlast + 1].tgid, 501);
	KUNIT_EXPECT_EQ(test, r->vms[r->nlast].sum[KC_M_EXIT_TO_REAP], 90ULL);
	KUNIT_EXPECT_EQ(test, r->vms[r->nlast + 1].sum[KC_M_EXIT_TO_REAP],
			90ULL);
}

/* A full live table evicts its oldest record and counts it. */
static void kc_vms_live_full(struct kunit *test)
{
	struct kc_vms_read *r;
	unsigned int i;

	for (i = 0; i < 5; i++) {
		kc_vm_begin(0x1000 + i, kc_vmm(test, 600 + i, "firecracker"));
		kc_vm_created(600 + i, true);
	}
	r = kc_read(test);
	KUNIT_EXPECT_EQ(test, r->st.live, 4U);
	KUNIT_EXPECT_EQ(test, r->st.live_evicted, 1ULL);
	/* the oldest, 600, is gone; the others are found */
	kc_vm_stage_kvm(0x1000, KC_M_KVM_DESTROY_VM, 1);
	for (i = 1; i < 5; i++)
		kc_vm_stage_kvm(0x1000 + i, KC_M_KVM_DESTROY_VM, i);
	for (i = 0; i < 5; i++)
		kc_vm_freed(600 + i, 0, NULL);
	r = kc_read(test);
	KUNIT_EXPECT_EQ(test, r->st.live, 0U);
	KUNIT_EXPECT_EQ(test, r->st.finished, 4ULL);
	KUNIT_ASSERT_EQ(test, r->nlast, 3U);
	for (i = 0; i < 3; i++) {
		KUNIT_EXPECT_EQ(test, r->vms[i].tgid, 602 + (int)i);
		KUNIT_EXPECT_EQ(test, r->vms[i].sum[KC_M_KVM_DESTROY_VM],
				2ULL + i);
	}
}

/*
 * A struct kvm freed and made again before the old VM's process is reaped:
 * stages by struct kvm go to the new VM, and the old record waits for its
 * reap, by process.
 */
static void kc_vms_kvm_reused(struct kunit *test)
{
	struct kc_vms_read *r;

	kc_vm_begin(0x1000, kc_vmm(test, 700, "firecracker"));
	kc_vm_created(700, true);
	kc_vm_begin(0x1000, kc_vmm(test, 701, "firecracker"));
	kc_vm_created(701, true);
	kc_vm_stage_kvm(0x1000, KC_M_KVM_DESTROY_VM, 3);
	kc_vm_freed(701, 0, NULL);
	r = kc_read(test);
	KUNIT_ASSERT_EQ(test, r->nlast, 1U);
	KUNIT_EXPECT_EQ(test, r->vms[0].tgid, 701);
	KUNIT_EXPECT_EQ(test, r->vms[0].count[KC_M_KVM_DESTROY_VM], 1U);
	KUNIT_EXPECT_EQ(test, r->st.live, 1U);

	kc_vm_stage_tgid(700, KC_M_EXIT_TO_REAP, 5);
	kc_vm_freed(700, 0, NULL);
	r = kc_read(test);
	KUNIT_ASSERT_EQ(test, r->nlast, 2U);
	KUNIT_EXPECT_EQ(test, r->vms[1].tgid, 700);
	KUNIT_EXPECT_EQ(test, r->vms[1].count[KC_M_KVM_DESTROY_VM], 0U);
	KUNIT_EXPECT_EQ(test, r->vms[1].count[KC_M_EXIT_TO_REAP], 1U);
	KUNIT_EXPECT_EQ(test, r->st.live, 0U);
}

/* reset forgets the finished VMs and its counts; a live VM goes on. */
static void kc_vms_reset_keeps_live(struct kunit *test)
{
	struct kc_vms_read *r;

	kc_vm_life(test, 0x1000, 800, 5);
	kc_vm_begin(0x2000, kc_vmm(test, 801, "firecracker"));
	kc_vm_created(801, true);
	kc_vms_reset();
	r = kc_read(test);
	KUNIT_EXPECT_EQ(test, r->nlast, 0U);
	KUNIT_EXPECT_EQ(test, r->nslow, 0U);
	KUNIT_EXPECT_EQ(test, r->st.finished, 0ULL);
	KUNIT_EXPECT_EQ(test, r->st.live, 1U);
	kc_vm_freed(801, 0, NULL);
	r = kc_read(test);
	KUNIT_EXPECT_EQ(test, r->nlast, 1U);
	KUNIT_EXPECT_EQ(test, r->vms[0].tgid, 801);
}

/* Every parameter's range: refused outside, no table left behind. */
/*
 * kc_vms_none_of(), which the free of every task asks inline: false for a
 * process with a live record, true for one whose chain is empty or holds a
 * single record of another's, and for every process once the last record is
 * gone. A chain of several records says "may hold" to every process of it,
 * and kc_vm_freed(, 0, NULL) then looks and finds nothing of its own; the chain's
 * head follows every record that comes and goes, first, middle or last.
 */
static void kc_vms_none_of_tgid(struct kunit *test)
{
	pid_t other = 101, same = 0, third = 0, t;

	KUNIT_EXPECT_EQ(test, kc_vms_tgid_heads, 16U);	/* 4 slots */
	for (t = 1; t < 4096; t += 7)	/* hash_32()'s buckets, by a multiply */
		KUNIT_EXPECT_EQ(test, kc_vms_tgid_hash(t), hash_32(t, 4));
	KUNIT_EXPECT_EQ(test, kc_vms_tgid_hash(PID_MAX_LIMIT), hash_32(PID_MAX_LIMIT, 4));
	KUNIT_EXPECT_TRUE(test, kc_vms_none_of(100));
	kc_vm_begin(0x1000, kc_vmm(test, 100, "firecracker"));
	kc_vm_created(100, true);
	KUNIT_EXPECT_FALSE(test, kc_vms_none_of(100));
	while (kc_vms_tgid_hash(other) == kc_vms_tgid_hash(100))
		other++;
	KUNIT_EXPECT_TRUE(test, kc_vms_none_of(other));
	for (t = 101; !third; t++) {
		if (kc_vms_tgid_hash(t) != kc_vms_tgid_hash(100))
			continue;
		if (!same)
			same = t;
		else
			third = t;
	}
	/* one record in the chain, not its own */
	KUNIT_EXPECT_TRUE(test, kc_vms_none_of(same));

	/* the chain: third, same, 100 */
	kc_vm_begin(0x2000, kc_vmm(test, same, "firecracker"));
	kc_vm_created(same, true);
	kc_vm_begin(0x3000, kc_vmm(test, third, "firecracker"));
	kc_vm_created(third, true);
	KUNIT_EXPECT_EQ(test, kc_vms_live, 3U);
	KUNIT_EXPECT_FALSE(test, kc_vms_none_of(100));
	KUNIT_EXPECT_FALSE(test, kc_vms_none_of(same));
	KUNIT_EXPECT_FALSE(test, kc_vms_none_of(third));
	KUNIT_EXPECT_TRUE(test, kc_vms_none_of(other));

	/* the middle goes: third, 100; more than one, so "may hold" */
	kc_vm_freed(same, 0, NULL);
	KUNIT_EXPECT_EQ(test, kc_vms_live, 2U);
	KUNIT_EXPECT_FALSE(test, kc_vms_none_of(same));
	kc_vm_freed(same, 0, NULL);
	KUNIT_EXPECT_EQ(test, kc_vms_live, 2U);

	/* the last goes: third alone */
	kc_vm_freed(100, 0, NULL);
	KUNIT_EXPECT_EQ(test, kc_vms_live, 1U);
	KUNIT_EXPECT_TRUE(test, kc_vms_none_of(100));
	KUNIT_EXPECT_TRUE(test, kc_vms_none_of(same));
	KUNIT_EXPECT_FALSE(test, kc_vms_none_of(third));

	/* the first goes: 100 again in front, then 100 leaves third alone */
	kc_vm_begin(0x1000, kc_vmm(test, 100, "firecracker"));
	kc_vm_created(100, true);
	KUNIT_EXPECT_FALSE(test, kc_vms_none_of(same));
	kc_vm_freed(100, 0, NULL);
	KUNIT_EXPECT_EQ(test, kc_vms_live, 1U);
	KUNIT_EXPECT_TRUE(test, kc_vms_none_of(100));
	KUNIT_EXPECT_TRUE(test, kc_vms_none_of(same));
	KUNIT_EXPECT_FALSE(test, kc_vms_none_of(third));
	kc_vm_freed(third, 0, NULL);
	KUNIT_EXPECT_EQ(test, kc_vms_live, 0U);
	KUNIT_EXPECT_TRUE(test, kc_vms_none_of(100));
	KUNIT_EXPECT_TRUE(test, kc_vms_none_of(third));
}

/* Teardown parts by name, for the tests below. */
#define TD(m)	KC_TD_PART(KC_M_##m)

static void kc_td_interval(pid_t tgid, unsigned int part, bool open, u64 t)
{
	kc_vm_td_interval(KC_VM_BY_TGID, tgid, part, open, t);
}

/* The one finished record of @tgid, read back. */
static const struct kc_vm *kc_read_one(struct kunit *test, pid_t tgid)
{
	struct kc_vms_read *r = kc_read(test);

	KUNIT_ASSERT_GE(test, r->nlast, 1U);
	KUNIT_EXPECT_EQ(test, r->vms[r->nlast - 1].tgid, tgid);
	return &r->vms[r->nlast - 1];
}

static u64 kc_td_sum(const struct kc_vm *vm)
{
	unsigned int i;
	u64 n = 0;

	for (i = 0; i < KC_NR_TD_PARTS; i++)
		n += vm->sum[KC_TD_METRIC(i)];
	return n;
}

/*
 * A SIGKILLed VMM whose vCPU thread holds the address space, leader first
 * to exit (sched_process_exit after exit_mm, as before 6.16): every part,
 * the destroy inside the release inside the closing vCPU thread's task
 * work, which ends at that thread's release, not another's.
 */
static void kc_vms_td_kill(struct kunit *test)
{
	struct task_struct *leader = kc_vmm(test, 900, "firecracker");
	struct task_struct *closer = kc_thread(test, leader, 901);
	struct kc_td_result td;
	const struct kc_vm *vm;

	kc_vm_begin(0x9000, leader);
	kc_vm_created(900, true);
	kc_vm_td_event(900, KC_TD_SIGNALLED, 1000, 0);
	kc_vm_td_event(900, KC_TD_LEADER_RUNS, 1005, 0);
	kc_td_interval(900, TD(TD_EXIT_MMAP), true, 1010);
	kc_vm_td_event(900, KC_TD_EXITS, 1020, 0);
	kc_td_interval(900, TD(TD_EXIT_MMAP), false, 1030);
	kc_td_interval(900, TD(TD_EXIT_FILES), true, 1030);
	kc_td_interval(900, TD(TD_EXIT_FILES), false, 1031);
	kc_vm_td_event(900, KC_TD_LEADER_DONE, 1031, 0);
	kc_vm_td_closed(closer, 1032);
	KUNIT_EXPECT_TRUE(test, kc_vm_td_interval(KC_VM_BY_KVM, 0x9000,
						  TD(TD_RELEASE), true, 1033));
	kc_vm_td_interval(KC_VM_BY_KVM, 0x9000, TD(TD_DESTROY), true, 1035);
	kc_vm_td_interval(KC_VM_BY_KVM, 0x9000, TD(TD_DESTROY), false, 1045);
	kc_vm_td_released(kc_thread(test, leader, 902), 1046);
	kc_vm_td_interval(KC_VM_BY_KVM, 0x9000, TD(TD_RELEASE), false, 1046);
	kc_vm_td_released(closer, 1048);
	kc_vm_td_event(900, KC_TD_NOTIFIED, 1050, 0);
	kc_vm_td_event(900, KC_TD_REAPED, 1052, 0);
	/* another VM's and another process's intervals change nothing */
	KUNIT_EXPECT_FALSE(test, kc_vm_td_interval(KC_VM_BY_KVM, 0x9100,
						   TD(TD_DESTROY), true, 1053));
	KUNIT_EXPECT_FALSE(test, kc_vm_td_interval(KC_VM_BY_TGID, 901,
						   TD(TD_DESTROY), true, 1053));
	kc_vm_freed(900, 1070, &td);

	KUNIT_ASSERT_TRUE(test, td.valid);
	KUNIT_EXPECT_EQ(test, td.window, 70ULL);
	vm = kc_read_one(test, 900);
	KUNIT_EXPECT_TRUE(test, vm->flags & KC_VM_TORN_DOWN);
	KUNIT_EXPECT_EQ(test, vm->sum[KC_M_TEARDOWN], 70ULL);
	KUNIT_EXPECT_EQ(test, kc_td_sum(vm), 70ULL);
	KUNIT_EXPECT_EQ(test, vm->sum[KC_M_TD_WAKE], 5ULL);
	KUNIT_EXPECT_EQ(test, vm->sum[KC_M_TD_OTHER], 5ULL);
	KUNIT_EXPECT_EQ(test, vm->sum[KC_M_TD_EXIT_MMAP], 20ULL);
	KUNIT_EXPECT_EQ(test, vm->sum[KC_M_TD_EXIT_FILES], 1ULL);
	KUNIT_EXPECT_EQ(test, vm->sum[KC_M_TD_TASK_WORK], 3ULL);
	KUNIT_EXPECT_EQ(test, vm->sum[KC_M_TD_RELEASE], 3ULL);
	KUNIT_EXPECT_EQ(test, vm->sum[KC_M_TD_DESTROY], 10ULL);
	KUNIT_EXPECT_EQ(test, vm->sum[KC_M_TD_THREADS], 3ULL);
	KUNIT_EXPECT_EQ(test, vm->sum[KC_M_REAP_WAIT], 2ULL);
	KUNIT_EXPECT_EQ(test, vm->sum[KC_M_RCU_FREE], 18ULL);
	/* signal_to_exit's share, before the leader's exit: 20 */
	KUNIT_EXPECT_EQ(test, vm->td_before_exit[TD(TD_WAKE)], 5ULL);
	KUNIT_EXPECT_EQ(test, vm->td_before_exit[TD(TD_OTHER)], 5ULL);
	KUNIT_EXPECT_EQ(test, vm->td_before_exit[TD(TD_EXIT_MMAP)], 10ULL);
	KUNIT_EXPECT_EQ(test, vm->td_before_exit[TD(RCU_FREE)], 0ULL);
	/* first instants, 1 + offset */
	KUNIT_EXPECT_EQ(test, vm->td_first[TD(TD_WAKE)], 1ULL);
	KUNIT_EXPECT_EQ(test, vm->td_first[TD(TD_OTHER)], 6ULL);
	KUNIT_EXPECT_EQ(test, vm->td_first[TD(TD_DESTROY)], 36ULL);
	KUNIT_EXPECT_EQ(test, vm->td_first[TD(RCU_FREE)], 53ULL);
	KUNIT_EXPECT_EQ(test, vm->count[KC_M_TD_DESTROY], 1U);
}

/*
 * exit_group() without a signal: the window opens at the leader's exit;
 * SIGCHLD ignored: no notification, the reap at once (no reap_wait).
 */
static void kc_vms_td_exit_autoreap(struct kunit *test)
{
	struct kc_td_result td;
	const struct kc_vm *vm;

	kc_vm_begin(0x9000, kc_vmm(test, 910, "qemu"));
	kc_vm_created(910, true);
	kc_vm_td_event(910, KC_TD_EXITS, 2000, 0);
	kc_td_interval(910, TD(TD_EXIT_FILES), true, 2001);
	kc_td_interval(910, TD(TD_EXIT_FILES), false, 2004);
	kc_vm_td_event(910, KC_TD_LEADER_DONE, 2004, 0);
	kc_vm_td_event(910, KC_TD_REAPED, 2010, 0);
	kc_vm_freed(910, 2030, &td);
	vm = kc_read_one(test, 910);
	KUNIT_EXPECT_EQ(test, vm->sum[KC_M_TEARDOWN], 30ULL);
	KUNIT_EXPECT_EQ(test, kc_td_sum(vm), 30ULL);
	KUNIT_EXPECT_EQ(test, vm->sum[KC_M_TD_OTHER], 1ULL);
	KUNIT_EXPECT_EQ(test, vm->sum[KC_M_TD_EXIT_FILES], 3ULL);
	KUNIT_EXPECT_EQ(test, vm->sum[KC_M_TD_THREADS], 6ULL);
	KUNIT_EXPECT_EQ(test, vm->sum[KC_M_REAP_WAIT], 0ULL);
	KUNIT_EXPECT_EQ(test, vm->td_first[TD(REAP_WAIT)], 0ULL);
	KUNIT_EXPECT_EQ(test, vm->sum[KC_M_RCU_FREE], 20ULL);
	/* nothing before the exit, which opened the window */
	KUNIT_EXPECT_EQ(test, vm->td_before_exit[TD(TD_OTHER)], 0ULL);
}

/*
 * The leader exits last, after its threads; the destroy runs under a vCPU
 * fd's release, after the VM fd's (no release open then); a second signal
 * does not move the start.
 */
static void kc_vms_td_leader_last(struct kunit *test)
{
	struct task_struct *leader = kc_vmm(test, 920, "firecracker");
	struct kc_td_result td;
	const struct kc_vm *vm;

	kc_vm_begin(0x9000, leader);
	kc_vm_created(920, true);
	kc_vm_td_event(920, KC_TD_SIGNALLED, 100, 0);
	kc_vm_td_event(920, KC_TD_SIGNALLED, 104, 0);
	kc_td_interval(920, TD(TD_EXIT_FILES), true, 105);	/* a thread */
	kc_td_interval(920, TD(TD_EXIT_FILES), false, 106);
	kc_vm_td_event(920, KC_TD_LEADER_RUNS, 108, 0);
	kc_vm_td_event(920, KC_TD_LEADER_RUNS, 109, 0);	/* once */
	kc_vm_td_event(920, KC_TD_EXITS, 110, 0);
	kc_td_interval(920, TD(TD_EXIT_MMAP), true, 110);
	kc_td_interval(920, TD(TD_EXIT_MMAP), false, 130);
	kc_td_interval(920, TD(TD_EXIT_FILES), true, 130);
	kc_td_interval(920, TD(TD_EXIT_FILES), false, 131);
	kc_vm_td_event(920, KC_TD_LEADER_DONE, 131, 0);
	kc_vm_td_closed(leader, 131);
	kc_vm_td_interval(KC_VM_BY_KVM, 0x9000, TD(TD_RELEASE), true, 132);
	kc_vm_td_interval(KC_VM_BY_KVM, 0x9000, TD(TD_RELEASE), false, 133);
	kc_vm_td_interval(KC_VM_BY_KVM, 0x9000, TD(TD_DESTROY), true, 134);
	kc_vm_td_interval(KC_VM_BY_KVM, 0x9000, TD(TD_DESTROY), false, 144);
	/* the leader, last, notifies its parent: its task work is over */
	kc_vm_td_event(920, KC_TD_NOTIFIED, 145, 0);
	kc_vm_td_event(920, KC_TD_REAPED, 150, 0);
	kc_vm_freed(920, 170, &td);
	vm = kc_read_one(test, 920);
	KUNIT_EXPECT_EQ(test, vm->sum[KC_M_TEARDOWN], 70ULL);
	KUNIT_EXPECT_EQ(test, kc_td_sum(vm), 70ULL);
	KUNIT_EXPECT_EQ(test, vm->sum[KC_M_TD_WAKE], 7ULL);
	KUNIT_EXPECT_EQ(test, vm->sum[KC_M_TD_OTHER], 2ULL);
	KUNIT_EXPECT_EQ(test, vm->sum[KC_M_TD_EXIT_FILES], 2ULL);
	KUNIT_EXPECT_EQ(test, vm->sum[KC_M_TD_EXIT_MMAP], 20ULL);
	KUNIT_EXPECT_EQ(test, vm->sum[KC_M_TD_RELEASE], 1ULL);
	KUNIT_EXPECT_EQ(test, vm->sum[KC_M_TD_DESTROY], 10ULL);
	KUNIT_EXPECT_EQ(test, vm->sum[KC_M_TD_TASK_WORK], 3ULL);
	KUNIT_EXPECT_EQ(test, vm->sum[KC_M_TD_THREADS], 0ULL);
	KUNIT_EXPECT_EQ(test, vm->sum[KC_M_REAP_WAIT], 5ULL);
	KUNIT_EXPECT_EQ(test, vm->sum[KC_M_RCU_FREE], 20ULL);
}

/*
 * The leader closed the files but is not the last thread: its exit has no
 * later event, so its task work ends at the first thread's release after
 * it is a zombie (none before).
 */
static void kc_vms_td_leader_closes(struct kunit *test)
{
	struct task_struct *leader = kc_vmm(test, 925, "firecracker");
	const struct kc_vm *vm;

	kc_vm_begin(0x9000, leader);
	kc_vm_created(925, true);
	kc_vm_td_event(925, KC_TD_EXITS, 0, 0);
	kc_vm_td_event(925, KC_TD_LEADER_DONE, 2, 0);
	kc_vm_td_closed(leader, 2);
	kc_vm_td_closed(kc_thread(test, leader, 926), 3);	/* one closer */
	kc_vm_td_released(kc_thread(test, leader, 927), 10);
	leader->exit_state = EXIT_ZOMBIE;
	kc_vm_td_released(kc_thread(test, leader, 928), 12);
	kc_vm_td_released(kc_thread(test, leader, 929), 16);
	kc_vm_td_event(925, KC_TD_NOTIFIED, 16, 0);
	kc_vm_freed(925, 20, NULL);
	vm = kc_read_one(test, 925);
	KUNIT_EXPECT_EQ(test, kc_td_sum(vm), 20ULL);
	KUNIT_EXPECT_EQ(test, vm->sum[KC_M_TD_OTHER], 2ULL);
	KUNIT_EXPECT_EQ(test, vm->sum[KC_M_TD_TASK_WORK], 10ULL);
	KUNIT_EXPECT_EQ(test, vm->sum[KC_M_TD_THREADS], 4ULL);
	KUNIT_EXPECT_EQ(test, vm->sum[KC_M_REAP_WAIT], 4ULL);
}

/*
 * Three VMs in one process (arm64 QEMU makes three): each record has the
 * process's teardown, the histograms get it once; the destroy of one is
 * the process's.
 */
static void kc_vms_td_three_vms(struct kunit *test)
{
	struct task_struct *t = kc_vmm(test, 930, "qemu-system-aar");
	struct kc_td_result td;
	struct kc_vms_read *r;
	unsigned int i;

	for (i = 0; i < 3; i++) {
		kc_vm_begin(0xa000 + i, t);
		kc_vm_created(930, true);
	}
	kc_vm_td_event(930, KC_TD_SIGNALLED, 0, 0);
	kc_vm_td_interval(KC_VM_BY_KVM, 0xa001, TD(TD_DESTROY), true, 10);
	kc_vm_td_interval(KC_VM_BY_KVM, 0xa001, TD(TD_DESTROY), false, 15);
	kc_vm_td_event(930, KC_TD_EXITS, 20, 0);
	kc_vm_freed(930, 40, &td);
	KUNIT_EXPECT_TRUE(test, td.valid);
	KUNIT_EXPECT_EQ(test, td.window, 40ULL);
	KUNIT_EXPECT_EQ(test, td.part[TD(TD_DESTROY)], 5ULL);
	r = kc_read(test);
	KUNIT_ASSERT_EQ(test, r->nlast, 3U);
	for (i = 0; i < 3; i++) {
		KUNIT_EXPECT_EQ(test, r->vms[i].sum[KC_M_TEARDOWN], 40ULL);
		KUNIT_EXPECT_EQ(test, r->vms[i].sum[KC_M_TD_DESTROY], 5ULL);
		KUNIT_EXPECT_EQ(test, r->vms[i].sum[KC_M_TD_WAKE], 15ULL);
		KUNIT_EXPECT_EQ(test, r->vms[i].sum[KC_M_TD_OTHER], 20ULL);
	}
}

/*
 * arm64 QEMU's scratch VMs, made and destroyed at its start, one before its
 * VM (finished when the next is made), one beside it: their destroy is not
 * a part of the process's teardown, nor is the teardown theirs; the VM
 * destroyed inside it has it, and the histograms get it once.
 */
static void kc_vms_td_scratch_vms(struct kunit *test)
{
	struct task_struct *t = kc_vmm(test, 935, "qemu-system-aar");
	struct kc_td_result td;
	struct kc_vms_read *r;

	kc_vm_begin(0xc000, t);
	kc_vm_created(935, true);
	kc_vm_destroying(0xc000, true, 1);
	kc_vm_destroying(0xc000, false, 3);
	kc_vm_destroyed(0xc000);
	kc_vm_begin(0xc001, t);
	kc_vm_created(935, true);
	kc_vm_begin(0xc002, t);
	kc_vm_created(935, true);
	kc_vm_destroying(0xc002, true, 5);
	kc_vm_destroying(0xc002, false, 7);
	kc_vm_td_event(935, KC_TD_SIGNALLED, 100, 0);
	kc_vm_destroying(0xc001, true, 110);
	kc_vm_destroying(0xc001, false, 130);
	kc_vm_td_event(935, KC_TD_EXITS, 140, 0);
	kc_vm_freed(935, 150, &td);
	KUNIT_ASSERT_TRUE(test, td.valid);
	KUNIT_EXPECT_EQ(test, td.window, 50ULL);
	KUNIT_EXPECT_EQ(test, td.part[TD(TD_DESTROY)], 20ULL);
	r = kc_read(test);
	KUNIT_ASSERT_EQ(test, r->nlast, 3U);
	/* 0xc000 when 0xc001 was made, then freed newest first */
	KUNIT_EXPECT_EQ(test, r->vms[0].count[KC_M_TEARDOWN], 0U);
	KUNIT_EXPECT_FALSE(test, r->vms[1].flags & KC_VM_TORN_DOWN);
	KUNIT_EXPECT_EQ(test, r->vms[1].count[KC_M_TEARDOWN], 0U);
	KUNIT_EXPECT_TRUE(test, r->vms[2].flags & KC_VM_TORN_DOWN);
	KUNIT_EXPECT_EQ(test, r->vms[2].sum[KC_M_TD_DESTROY], 20ULL);
}

/*
 * A VMM that closes its only VM before it exits (kvmchurn load --end
 * close): the destroy is before the window, the teardown still the VM's.
 */
static void kc_vms_td_closed_first(struct kunit *test)
{
	struct kc_td_result td;
	const struct kc_vm *vm;

	kc_vm_begin(0xd000, kc_vmm(test, 936, "firecracker"));
	kc_vm_created(936, true);
	kc_vm_destroying(0xd000, true, 1);
	kc_vm_destroying(0xd000, false, 9);
	kc_vm_destroyed(0xd000);
	kc_vm_td_event(936, KC_TD_EXITS, 20, 0);
	kc_vm_freed(936, 50, &td);
	KUNIT_EXPECT_TRUE(test, td.valid);
	vm = kc_read_one(test, 936);
	KUNIT_EXPECT_TRUE(test, vm->flags & KC_VM_TORN_DOWN);
	KUNIT_EXPECT_EQ(test, vm->sum[KC_M_TEARDOWN], 30ULL);
	KUNIT_EXPECT_EQ(test, vm->sum[KC_M_TD_DESTROY], 0ULL);
}

/* A process freed with no window (no signal, no exit seen): no parts. */
static void kc_vms_td_never_opened(struct kunit *test)
{
	struct kc_td_result td;
	const struct kc_vm *vm;

	kc_vm_begin(0x9000, kc_vmm(test, 940, "firecracker"));
	kc_vm_created(940, true);
	kc_vm_td_event(940, KC_TD_REAPED, 5, 0);
	kc_vm_freed(940, 10, &td);
	KUNIT_EXPECT_FALSE(test, td.valid);
	vm = kc_read_one(test, 940);
	KUNIT_EXPECT_FALSE(test, vm->flags & KC_VM_TORN_DOWN);
	KUNIT_EXPECT_EQ(test, vm->count[KC_M_TEARDOWN], 0U);
	KUNIT_EXPECT_EQ(test, kc_td_sum(vm), 0ULL);
}

/* The release that ran a VM's destroy, in the task that runs both. */
static void kc_vms_td_destroyed_by(struct kunit *test)
{
	struct task_struct *t = kc_vmm(test, 950, "firecracker");
	struct kc_vms_read *r;

	kc_vm_begin(0xb000, t);
	kc_vm_created(950, true);
	kc_vm_begin(0xb001, t);
	kc_vm_created(950, true);
	kc_vm_begin(0xb002, t);
	kc_vm_created(950, true);
	/* the VM fd's release, then a vCPU fd's, then neither */
	KUNIT_EXPECT_TRUE(test, kc_vm_releasing(0xb000, KC_VM_REL_VM, true));
	KUNIT_EXPECT_TRUE(test, kc_vm_destroying(0xb000, true, 10));
	kc_vm_destroying(0xb000, false, 11);
	kc_vm_releasing(0xb000, KC_VM_REL_VM, false);
	kc_vm_releasing(0xb001, KC_VM_REL_VCPU, true);
	kc_vm_destroying(0xb001, true, 12);
	kc_vm_destroying(0xb001, false, 13);
	kc_vm_releasing(0xb001, KC_VM_REL_VCPU, false);
	kc_vm_destroying(0xb002, true, 14);
	kc_vm_destroying(0xb002, false, 15);
	KUNIT_EXPECT_FALSE(test, kc_vm_releasing(0xbfff, KC_VM_REL_VM, true));
	KUNIT_EXPECT_FALSE(test, kc_vm_destroying(0xbfff, true, 16));
	kc_vm_freed(950, 20, NULL);
	r = kc_read(test);
	KUNIT_ASSERT_EQ(test, r->nlast, 3U);
	/* freed newest first: 0xb002, 0xb001, 0xb000 */
	KUNIT_EXPECT_EQ(test, r->vms[0].flags, (u32)KC_VM_DESTROY_BY_OTHER);
	KUNIT_EXPECT_EQ(test, r->vms[1].flags, (u32)KC_VM_DESTROY_BY_VCPU);
	KUNIT_EXPECT_EQ(test, r->vms[2].flags, (u32)KC_VM_DESTROY_BY_VM);
}

/*
 * The leader's run-queue wait between taking the signal and its exit is
 * told apart from the time no stage held, no more than that time.
 */
static void kc_vms_td_runq(struct kunit *test)
{
	const struct kc_vm *vm;

	kc_vm_begin(0x9000, kc_vmm(test, 960, "firecracker"));
	kc_vm_created(960, true);
	kc_vm_td_event(960, KC_TD_SIGNALLED, 0, 0);
	kc_vm_td_event(960, KC_TD_LEADER_RUNS, 10, 100);
	kc_td_interval(960, TD(TD_EXIT_MMAP), true, 20);
	kc_td_interval(960, TD(TD_EXIT_MMAP), false, 25);
	/* 25 of no stage since it ran, 15 of them on a run queue */
	kc_vm_td_event(960, KC_TD_EXITS, 40, 115);
	kc_vm_freed(960, 50, NULL);
	vm = kc_read_one(test, 960);
	KUNIT_EXPECT_EQ(test, vm->sum[KC_M_TEARDOWN], 50ULL);
	KUNIT_EXPECT_EQ(test, kc_td_sum(vm), 50ULL);
	KUNIT_EXPECT_EQ(test, vm->sum[KC_M_TD_WAKE], 10ULL);
	KUNIT_EXPECT_EQ(test, vm->sum[KC_M_TD_RUNQ], 15ULL);
	KUNIT_EXPECT_EQ(test, vm->sum[KC_M_TD_OTHER], 10ULL + 10ULL);
	KUNIT_EXPECT_EQ(test, vm->td_before_exit[TD(TD_RUNQ)], 15ULL);

	/* a wait longer than the idle time moves only that */
	kc_vm_begin(0x9000, kc_vmm(test, 961, "firecracker"));
	kc_vm_created(961, true);
	kc_vm_td_event(961, KC_TD_SIGNALLED, 0, 0);
	kc_vm_td_event(961, KC_TD_LEADER_RUNS, 0, 0);
	kc_td_interval(961, TD(TD_EXIT_MMAP), true, 1);
	kc_td_interval(961, TD(TD_EXIT_MMAP), false, 30);
	kc_vm_td_event(961, KC_TD_EXITS, 31, 500);
	kc_vm_freed(961, 31, NULL);
	vm = kc_read_one(test, 961);
	KUNIT_EXPECT_EQ(test, vm->sum[KC_M_TD_RUNQ], 2ULL);
	KUNIT_EXPECT_EQ(test, vm->sum[KC_M_TD_OTHER], 0ULL);
	KUNIT_EXPECT_EQ(test, kc_td_sum(vm), 31ULL);
}

#define ST(m)	KC_ST_PART(KC_M_##m)

static u64 kc_st_sum(const struct kc_vm *vm)
{
	unsigned int i;
	u64 n = 0;

	for (i = 0; i < KC_NR_ST_PARTS; i++)
		n += vm->sum[KC_ST_METRIC(i)];
	return n;
}

/* A timed call of @kvm's start-up from @t0 to @t1 that ran @ran on a CPU. */
static void kc_st_call(u64 kvm, unsigned int part, u64 t0, u64 t1, u64 ran)
{
	struct kc_vmm_time in = { .ran = ran };

	kc_vm_st_interval(kvm, part, true, t0, NULL);
	kc_vm_st_interval(kvm, part, false, t1, &in);
}

/*
 * A single-threaded VMM's start-up, in ns: KVM_CREATE_VM from 100 to 110,
 * a vCPU made, a memory slot, the first run's setup to ready at 200. The
 * time between (55) is the VMM's: 40 on a CPU outside the calls (a
 * quarter of its ticks user), 5 on a run queue, 10 that nothing names
 * (it never slept).
 */
static void kc_vms_st_one(struct kunit *test)
{
	struct kc_vmm_time at = { .ran = 1000, .waited = 70, .user = 8,
				  .system = 8, .slept = 4 };
	struct kc_vmm_time end = { .ran = 1000 + 10 + 5 + 20 + 40,
				   .waited = 75, .user = 9, .system = 11,
				   .slept = 4 };
	struct kc_vmm_time ready = { .ran = 20 };
	bool ns = kc_unit_ns;
	struct kc_st_result st;
	const struct kc_vm *vm;

	kc_unit_ns = true;
	kc_vm_begin(0x9000, kc_vmm(test, 970, "firecracker"));
	kc_vm_st_begin(970, 100, 110, &at);
	kc_vm_created(970, true);
	KUNIT_EXPECT_EQ(test, kc_vms_starting, 1U);
	kc_st_call(0x9000, ST(ST_VCPUS), 120, 130, 10);
	kc_st_call(0x9000, ST(ST_IOCTLS), 140, 145, 5);
	/* another VM's call changes nothing */
	KUNIT_EXPECT_FALSE(test, kc_vm_st_interval(0x9100, ST(ST_IOCTLS), true,
						   150, NULL));
	KUNIT_EXPECT_TRUE(test, kc_vm_st_interval(0x9000, ST(ST_FIRST_RUN), true,
						  180, NULL));
	kc_vm_st_ready(0x9000, 200, &ready, &end, &st);
	kc_unit_ns = ns;
	KUNIT_ASSERT_TRUE(test, st.valid);
	KUNIT_EXPECT_EQ(test, st.window, 100ULL);
	KUNIT_EXPECT_EQ(test, kc_vms_starting, 0U);
	/* once: a second ready, a later call, find no start-up */
	kc_vm_st_ready(0x9000, 210, &ready, &end, &st);
	KUNIT_EXPECT_FALSE(test, st.valid);
	KUNIT_EXPECT_FALSE(test, kc_vm_st_interval(0x9000, ST(ST_IOCTLS), true,
						   220, NULL));
	kc_vm_freed(970, 300, NULL);
	vm = kc_read_one(test, 970);
	KUNIT_EXPECT_TRUE(test, vm->flags & KC_VM_STARTED);
	KUNIT_EXPECT_EQ(test, vm->sum[KC_M_STARTUP], 100ULL);
	KUNIT_EXPECT_EQ(test, kc_st_sum(vm), 100ULL);
	KUNIT_EXPECT_EQ(test, vm->sum[KC_M_ST_CREATE], 10ULL);
	KUNIT_EXPECT_EQ(test, vm->sum[KC_M_ST_VCPUS], 10ULL);
	KUNIT_EXPECT_EQ(test, vm->sum[KC_M_ST_IOCTLS], 5ULL);
	KUNIT_EXPECT_EQ(test, vm->sum[KC_M_ST_FIRST_RUN], 20ULL);
	/* 75 on a CPU over the window, 35 in the calls; ticks 1 user, 3 system */
	KUNIT_EXPECT_EQ(test, vm->sum[KC_M_ST_USER], 18ULL);
	KUNIT_EXPECT_EQ(test, vm->sum[KC_M_ST_KERNEL], 22ULL);
	KUNIT_EXPECT_EQ(test, vm->sum[KC_M_ST_RUNQ], 5ULL);
	KUNIT_EXPECT_EQ(test, vm->sum[KC_M_ST_BLOCKED], 0ULL);
	KUNIT_EXPECT_EQ(test, vm->sum[KC_M_ST_OTHER], 10ULL);
	KUNIT_EXPECT_EQ(test, vm->count[KC_M_ST_OTHER], 1U);
	/* first instants, 1 + offset: the VMM's own time began at 10 */
	KUNIT_EXPECT_EQ(test, vm->st_first[ST(ST_CREATE)], 1ULL);
	KUNIT_EXPECT_EQ(test, vm->st_first[ST(ST_VCPUS)], 21ULL);
	KUNIT_EXPECT_EQ(test, vm->st_first[ST(ST_FIRST_RUN)], 81ULL);
	KUNIT_EXPECT_EQ(test, vm->st_first[ST(ST_OTHER)], 11ULL);
	KUNIT_EXPECT_EQ(test, vm->st_first[ST(ST_KERNEL)], 11ULL);
	KUNIT_EXPECT_EQ(test, vm->st_first[ST(ST_BLOCKED)], 0ULL);
}

/*
 * A VM that never ran: destroyed, then its process reaped, with no
 * start-up; and one whose process is reaped first. Neither is counted as
 * starting after.
 */
static void kc_vms_st_never_ready(struct kunit *test)
{
	struct kc_vmm_time at = { 0 };
	const struct kc_vm *vm;

	kc_vm_begin(0x9000, kc_vmm(test, 971, "firecracker"));
	kc_vm_st_begin(971, 100, 110, &at);
	kc_vm_created(971, true);
	kc_vm_destroying(0x9000, true, 150);
	KUNIT_EXPECT_EQ(test, kc_vms_starting, 0U);
	KUNIT_EXPECT_FALSE(test, kc_vm_st_interval(0x9000, ST(ST_IOCTLS), true,
						   160, NULL));
	kc_vm_freed(971, 300, NULL);
	vm = kc_read_one(test, 971);
	KUNIT_EXPECT_FALSE(test, vm->flags & KC_VM_STARTED);
	KUNIT_EXPECT_EQ(test, vm->count[KC_M_STARTUP], 0U);

	kc_vm_begin(0xa000, kc_vmm(test, 972, "firecracker"));
	kc_vm_st_begin(972, 100, 110, &at);
	kc_vm_created(972, true);
	KUNIT_EXPECT_EQ(test, kc_vms_starting, 1U);
	kc_vm_freed(972, 300, NULL);
	KUNIT_EXPECT_EQ(test, kc_vms_starting, 0U);
	/* a failed KVM_CREATE_VM opens nothing */
	kc_vm_begin(0xb000, kc_vmm(test, 973, "firecracker"));
	kc_vm_created(973, false);
	kc_vm_st_begin(973, 100, 110, &at);
	KUNIT_EXPECT_EQ(test, kc_vms_starting, 0U);
}

/*
 * Two VMs of one process (arm64 QEMU makes scratch VMs that never run):
 * each has its own start-up, the calls go by VM; and a VMM whose threads
 * ran side by side, more on a CPU than the window held, and slept: kernel
 * first, blocked takes nothing.
 */
static void kc_vms_st_two(struct kunit *test)
{
	struct kc_vmm_time at = { 0 };
	struct kc_vmm_time end = { .ran = 500, .waited = 100, .system = 1,
				   .slept = 3 };
	struct kc_vmm_time none = { 0 };
	struct kc_st_result st;
	const struct kc_vms_read *r;
	bool ns = kc_unit_ns;

	kc_unit_ns = true;
	kc_vm_begin(0x9000, kc_vmm(test, 974, "qemu"));
	kc_vm_st_begin(974, 0, 10, &at);
	kc_vm_created(974, true);
	kc_vm_begin(0xa000, kc_vmm(test, 974, "qemu"));
	kc_vm_st_begin(974, 20, 30, &at);
	kc_vm_created(974, true);
	KUNIT_EXPECT_EQ(test, kc_vms_starting, 2U);
	kc_st_call(0xa000, ST(ST_VCPUS), 40, 50, 0);
	kc_vm_st_ready(0xa000, 130, &none, &end, &st);
	kc_unit_ns = ns;
	KUNIT_ASSERT_TRUE(test, st.valid);
	KUNIT_EXPECT_EQ(test, st.window, 110ULL);
	KUNIT_EXPECT_EQ(test, st.part[ST(ST_KERNEL)], 90ULL);
	KUNIT_EXPECT_EQ(test, st.part[ST(ST_USER)], 0ULL);
	KUNIT_EXPECT_EQ(test, st.part[ST(ST_RUNQ)], 0ULL);
	KUNIT_EXPECT_EQ(test, st.part[ST(ST_BLOCKED)], 0ULL);
	KUNIT_EXPECT_EQ(test, st.part[ST(ST_OTHER)], 0ULL);
	/* the scratch VM is still starting until its process goes */
	KUNIT_EXPECT_EQ(test, kc_vms_starting, 1U);
	kc_vm_freed(974, 300, NULL);
	r = kc_read(test);
	KUNIT_ASSERT_EQ(test, r->nlast, 2U);
	KUNIT_EXPECT_EQ(test, r->vms[0].count[KC_M_STARTUP] +
			      r->vms[1].count[KC_M_STARTUP], 1U);
	KUNIT_EXPECT_EQ(test, kc_vms_starting, 0U);
}

static void kc_vms_params_range(struct kunit *test)
{
	struct kc_vms_params p = kc_test_vms;

	kc_vms_exit();
	p.last = 0;
	KUNIT_EXPECT_EQ(test, kc_vms_init(&p), -EINVAL);
	p = kc_test_vms;
	p.slowest = KC_VMS_MAX + 1;
	KUNIT_EXPECT_EQ(test, kc_vms_init(&p), -EINVAL);
	p = kc_test_vms;
	p.live = 0;
	KUNIT_EXPECT_EQ(test, kc_vms_init(&p), -EINVAL);
	KUNIT_EXPECT_NULL(test, kc_vms_area);
	p.live = 1;
	KUNIT_ASSERT_EQ(test, kc_vms_init(&p), 0);
	/* one slot: the second VM evicts the first */
	kc_vm_begin(0x1000, kc_vmm(test, 900, "firecracker"));
	kc_vm_begin(0x2000, kc_vmm(test, 901, "firecracker"));
	kc_vm_created(901, true);
	kc_vm_freed(901, 0, NULL);
	kc_vm_freed(900, 0, NULL);
	KUNIT_EXPECT_EQ(test, kc_st.live_evicted, 1ULL);
	KUNIT_EXPECT_EQ(test, kc_st.finished, 1ULL);
}

/* The one live VM of tgid @tgid as the live view takes it, into @v. */
static void kc_live_of(struct kunit *test, pid_t tgid, struct kc_live *v)
{
	struct kc_live all[4];
	unsigned int i, n = kc_vms_live_snapshot(all, ARRAY_SIZE(all));

	for (i = 0; i < n && all[i].tgid != tgid; i++)
		;
	KUNIT_ASSERT_LT(test, i, n);
	*v = all[i];
}

/*
 * The live view: KVM_CREATE_VM in flight until it returns, nested calls
 * outermost first, one that returns leaves, a teardown's part where no call
 * is in flight, and the calls by a struct kvm that is made again end.
 */
static void kc_vms_live_view(struct kunit *test)
{
	pid_t me = current->pid;
	struct kc_live v;

	kc_vm_begin(0x5000, kc_vmm(test, 500, "firecracker"));
	kc_live_of(test, 500, &v);
	KUNIT_EXPECT_EQ(test, v.depth, 1);
	KUNIT_EXPECT_EQ(test, v.stage[0], KC_M_KVM_CREATE_VM);
	KUNIT_EXPECT_EQ(test, v.task, 500);
	KUNIT_EXPECT_STREQ(test, v.comm, "firecracker");
	kc_vm_created(500, true);
	kc_live_of(test, 500, &v);
	KUNIT_EXPECT_EQ(test, v.depth, 0);
	KUNIT_EXPECT_EQ(test, v.window, KC_LIVE_RUN);
	KUNIT_EXPECT_EQ(test, v.age, 0ULL);

	/* entered out of order, shown by when each began */
	kc_vm_fly(KC_VM_BY_KVM, 0x5000, KC_M_KVM_DESTROY_VM, 200, true);
	kc_vm_fly(KC_VM_BY_KVM, 0x5000, KC_M_KVM_VM_RELEASE, 100, true);
	kc_vm_fly(KC_VM_BY_KVM, 0x5000, KC_M_MMU_NOTIFIER_UNREGISTER, 300, true);
	kc_live_of(test, 500, &v);
	KUNIT_EXPECT_EQ(test, v.depth, 3);
	KUNIT_EXPECT_EQ(test, v.stage[0], KC_M_KVM_VM_RELEASE);
	KUNIT_EXPECT_EQ(test, v.stage[1], KC_M_KVM_DESTROY_VM);
	KUNIT_EXPECT_EQ(test, v.stage[2], KC_M_MMU_NOTIFIER_UNREGISTER);
	KUNIT_EXPECT_EQ(test, v.task, me);
	KUNIT_EXPECT_GT(test, v.since, 0ULL);
	/* a leave that is not of this call (its start differs) changes nothing */
	kc_vm_fly(KC_VM_BY_KVM, 0x5000, KC_M_MMU_NOTIFIER_UNREGISTER, 301, false);
	kc_live_of(test, 500, &v);
	KUNIT_EXPECT_EQ(test, v.depth, 3);
	kc_vm_fly(KC_VM_BY_KVM, 0x5000, KC_M_MMU_NOTIFIER_UNREGISTER, 300, false);
	kc_live_of(test, 500, &v);
	KUNIT_EXPECT_EQ(test, v.depth, 2);
	KUNIT_EXPECT_EQ(test, v.stage[1], KC_M_KVM_DESTROY_VM);
	kc_vm_fly(KC_VM_BY_KVM, 0x5000, KC_M_KVM_DESTROY_VM, 200, false);
	kc_vm_fly(KC_VM_BY_KVM, 0x5000, KC_M_KVM_VM_RELEASE, 100, false);
	kc_live_of(test, 500, &v);
	KUNIT_EXPECT_EQ(test, v.depth, 0);

	/* its process's teardown: its part, and a call of the process in it */
	kc_vm_td_event(500, KC_TD_SIGNALLED, 1000, 0);
	kc_live_of(test, 500, &v);
	KUNIT_EXPECT_EQ(test, v.window, KC_LIVE_TEARDOWN);
	KUNIT_EXPECT_EQ(test, v.depth, 1);
	KUNIT_EXPECT_EQ(test, v.stage[0], KC_M_TD_WAKE);
	KUNIT_EXPECT_EQ(test, v.task, 500);
	kc_vm_fly(KC_VM_BY_TGID, 500, KC_M_EXIT_MMAP, 400, true);
	kc_live_of(test, 500, &v);
	KUNIT_EXPECT_EQ(test, v.stage[0], KC_M_EXIT_MMAP);
	KUNIT_EXPECT_EQ(test, v.task, me);
	kc_vm_fly(KC_VM_BY_TGID, 500, KC_M_EXIT_MMAP, 400, false);
	kc_vm_td_event(500, KC_TD_NOTIFIED, 1100, 0);
	kc_live_of(test, 500, &v);
	KUNIT_EXPECT_EQ(test, v.stage[0], KC_M_REAP_WAIT);

	/* its struct kvm freed and made again by another: its destroy is over */
	kc_vm_fly(KC_VM_BY_KVM, 0x5000, KC_M_KVM_DESTROY_VM, 500, true);
	kc_live_of(test, 500, &v);
	KUNIT_EXPECT_EQ(test, v.stage[0], KC_M_KVM_DESTROY_VM);
	kc_vm_begin(0x5000, kc_vmm(test, 501, "firecracker"));
	kc_live_of(test, 500, &v);
	KUNIT_EXPECT_EQ(test, v.stage[0], KC_M_REAP_WAIT);
	kc_vm_freed(500, 1200, NULL);
	kc_vm_freed(501, 1200, NULL);
	KUNIT_EXPECT_EQ(test, kc_vms_live_snapshot(&v, 1), 0U);
}

/*
 * At most KC_VM_FLY calls a VM: the oldest are kept. Of two tasks, the one
 * whose innermost call began first is shown.
 */
static void kc_vms_fly_full(struct kunit *test)
{
	struct kc_live v;
	unsigned int i;

	kc_vm_begin(0x6000, kc_vmm(test, 600, "firecracker"));
	kc_vm_created(600, true);
	for (i = 0; i < KC_VM_FLY + 2; i++)
		kc_vm_fly(KC_VM_BY_TGID, 600, KC_M_EXIT_FILES, 10 + i, true);
	kc_live_of(test, 600, &v);
	KUNIT_EXPECT_EQ(test, v.depth, KC_LIVE_DEPTH);
	for (i = 0; i < KC_VM_FLY + 2; i++)
		kc_vm_fly(KC_VM_BY_TGID, 600, KC_M_EXIT_FILES, 10 + i, false);
	kc_live_of(test, 600, &v);
	KUNIT_EXPECT_EQ(test, v.depth, 0);
	/* another task's older call, its entry made by hand */
	kc_vm_fly(KC_VM_BY_TGID, 600, KC_M_EXIT_MMAP, 50, true);
	kc_slots[kc_first_of(600)].fly[0].pid = 4242;
	kc_slots[kc_first_of(600)].fly[0].since = 5;
	kc_vm_fly(KC_VM_BY_TGID, 600, KC_M_EXIT_FILES, 60, true);
	kc_live_of(test, 600, &v);
	KUNIT_EXPECT_EQ(test, v.task, 4242);
	KUNIT_EXPECT_EQ(test, v.stage[0], KC_M_EXIT_MMAP);
	KUNIT_EXPECT_EQ(test, v.depth, 1);
	kc_vm_freed(600, 0, NULL);
}

static struct kunit_case kc_vms_cases[] = {
	KUNIT_CASE(kc_vms_one_life),
	KUNIT_CASE(kc_vms_failed_create),
	KUNIT_CASE(kc_vms_two_in_a_process),
	KUNIT_CASE(kc_vms_ring),
	KUNIT_CASE(kc_vms_slowest),
	KUNIT_CASE(kc_vms_live_full),
	KUNIT_CASE(kc_vms_kvm_reused),
	KUNIT_CASE(kc_vms_reset_keeps_live),
	KUNIT_CASE(kc_vms_none_of_tgid),
	KUNIT_CASE(kc_vms_params_range),
	KUNIT_CASE(kc_vms_td_kill),
	KUNIT_CASE(kc_vms_td_exit_autoreap),
	KUNIT_CASE(kc_vms_td_leader_last),
	KUNIT_CASE(kc_vms_td_leader_closes),
	KUNIT_CASE(kc_vms_td_three_vms),
	KUNIT_CASE(kc_vms_td_scratch_vms),
	KUNIT_CASE(kc_vms_td_closed_first),
	KUNIT_CASE(kc_vms_td_never_opened),
	KUNIT_CASE(kc_vms_td_destroyed_by),
	KUNIT_CASE(kc_vms_td_runq),
	KUNIT_CASE(kc_vms_st_one),
	KUNIT_CASE(kc_vms_st_never_ready),
	KUNIT_CASE(kc_vms_st_two),
	KUNIT_CASE(kc_vms_live_view),
	KUNIT_CASE(kc_vms_fly_full),
	{}
};

static struct kunit_suite kc_vms_suite = {
	.name = "kvmchurn_vms",
	.init = kc_vms_test_init,
	.exit = kc_vms_test_exit,
	.test_cases = kc_vms_cases,
};

kunit_test_suite(kc_vms_suite);

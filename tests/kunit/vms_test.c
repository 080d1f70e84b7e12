// SPDX-License-Identifier: GPL-2.0
/*
 * vms_test.c - the per-VM records (vms.c): a VM's life from KVM_CREATE_VM
 * to its process's reap, stages by struct kvm *, by process and by
 * creator, a failed create, the last ones (a ring that evicts), the slowest
 * ones in order, a full live table that evicts its oldest, reset, and the
 * vms file's text.
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
	kc_vm_reaped(tgid);
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
	kc_vm_reaped(300);

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
	kc_vm_reaped(300);
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
		kc_vm_reaped(600 + i);
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
	kc_vm_reaped(701);
	r = kc_read(test);
	KUNIT_ASSERT_EQ(test, r->nlast, 1U);
	KUNIT_EXPECT_EQ(test, r->vms[0].tgid, 701);
	KUNIT_EXPECT_EQ(test, r->vms[0].count[KC_M_KVM_DESTROY_VM], 1U);
	KUNIT_EXPECT_EQ(test, r->st.live, 1U);

	kc_vm_stage_tgid(700, KC_M_EXIT_TO_REAP, 5);
	kc_vm_reaped(700);
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
	kc_vm_reaped(801);
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
 * and kc_vm_reaped() then looks and finds nothing of its own; the chain's
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
	kc_vm_reaped(same);
	KUNIT_EXPECT_EQ(test, kc_vms_live, 2U);
	KUNIT_EXPECT_FALSE(test, kc_vms_none_of(same));
	kc_vm_reaped(same);
	KUNIT_EXPECT_EQ(test, kc_vms_live, 2U);

	/* the last goes: third alone */
	kc_vm_reaped(100);
	KUNIT_EXPECT_EQ(test, kc_vms_live, 1U);
	KUNIT_EXPECT_TRUE(test, kc_vms_none_of(100));
	KUNIT_EXPECT_TRUE(test, kc_vms_none_of(same));
	KUNIT_EXPECT_FALSE(test, kc_vms_none_of(third));

	/* the first goes: 100 again in front, then 100 leaves third alone */
	kc_vm_begin(0x1000, kc_vmm(test, 100, "firecracker"));
	kc_vm_created(100, true);
	KUNIT_EXPECT_FALSE(test, kc_vms_none_of(same));
	kc_vm_reaped(100);
	KUNIT_EXPECT_EQ(test, kc_vms_live, 1U);
	KUNIT_EXPECT_TRUE(test, kc_vms_none_of(100));
	KUNIT_EXPECT_TRUE(test, kc_vms_none_of(same));
	KUNIT_EXPECT_FALSE(test, kc_vms_none_of(third));
	kc_vm_reaped(third);
	KUNIT_EXPECT_EQ(test, kc_vms_live, 0U);
	KUNIT_EXPECT_TRUE(test, kc_vms_none_of(100));
	KUNIT_EXPECT_TRUE(test, kc_vms_none_of(third));
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
	kc_vm_reaped(901);
	kc_vm_reaped(900);
	KUNIT_EXPECT_EQ(test, kc_st.live_evicted, 1ULL);
	KUNIT_EXPECT_EQ(test, kc_st.finished, 1ULL);
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
	{}
};

static struct kunit_suite kc_vms_suite = {
	.name = "kvmchurn_vms",
	.init = kc_vms_test_init,
	.exit = kc_vms_test_exit,
	.test_cases = kc_vms_cases,
};

kunit_test_suite(kc_vms_suite);

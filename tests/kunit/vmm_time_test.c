// SPDX-License-Identifier: GPL-2.0
/*
 * vmm_time_test.c - a start-up's VMM time (vmm_time.c): how the time no
 * timed call held splits into kernel, user, run queue and blocked, each as
 * much as is left; the ticks' ratio, the process's ratio where no tick fell
 * in the window, none at all; blocked only where a thread slept outside the
 * calls; large values; and a thread's times read to the instant.
 */
#include <kunit/test.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>

#include "kvmchurn.h"

static void kc_split(u64 idle, const struct kc_vmm_time *d,
		     const struct kc_vmm_time *in,
		     const struct kc_vmm_time *total, struct kc_vmm_split *s)
{
	memset(s, 0xa5, sizeof(*s));
	kc_vmm_split(idle, d, in, total, s);
}

/* One thread that never slept: CPU and run queue fill the time exactly. */
static void kc_vmm_split_exact(struct kunit *test)
{
	struct kc_vmm_time d = { .ran = 80, .waited = 15, .user = 1, .system = 3,
				 .slept = 2 };
	struct kc_vmm_time in = { .ran = 20, .waited = 5, .slept = 2 };
	struct kc_vmm_time total = { .user = 100, .system = 1 };
	struct kc_vmm_split s;

	/* 80 on a CPU, 20 of it in the calls: user 80 / 4 = 20, kernel 40 */
	kc_split(70, &d, &in, &total, &s);
	KUNIT_EXPECT_EQ(test, s.user, 20ULL);
	KUNIT_EXPECT_EQ(test, s.kernel, 40ULL);
	KUNIT_EXPECT_EQ(test, s.runq, 10ULL);
	/* the sleeps were the calls': nothing is blocked */
	KUNIT_EXPECT_EQ(test, s.blocked, 0ULL);
	/* 5 more than the threads account for: nobody's (other) */
	kc_split(75, &d, &in, &total, &s);
	KUNIT_EXPECT_EQ(test, s.kernel + s.user + s.runq + s.blocked, 70ULL);
}

/* A sleep outside the calls: the rest is blocked. */
static void kc_vmm_split_blocked(struct kunit *test)
{
	struct kc_vmm_time d = { .ran = 30, .waited = 10, .system = 1, .slept = 3 };
	struct kc_vmm_time in = { .slept = 2 };
	struct kc_vmm_time total = { 0 };
	struct kc_vmm_split s;

	kc_split(100, &d, &in, &total, &s);
	KUNIT_EXPECT_EQ(test, s.kernel, 30ULL);
	KUNIT_EXPECT_EQ(test, s.user, 0ULL);
	KUNIT_EXPECT_EQ(test, s.runq, 10ULL);
	KUNIT_EXPECT_EQ(test, s.blocked, 60ULL);
}

/*
 * Threads side by side: more CPU than time. Kernel first, then user, then
 * the run queue, each as much as is left.
 */
static void kc_vmm_split_overlap(struct kunit *test)
{
	struct kc_vmm_time d = { .ran = 300, .waited = 50, .user = 1, .system = 1,
				 .slept = 9 };
	struct kc_vmm_time in = { 0 }, total = { 0 };
	struct kc_vmm_split s;

	kc_split(200, &d, &in, &total, &s);
	KUNIT_EXPECT_EQ(test, s.kernel, 150ULL);
	KUNIT_EXPECT_EQ(test, s.user, 50ULL);
	KUNIT_EXPECT_EQ(test, s.runq, 0ULL);
	KUNIT_EXPECT_EQ(test, s.blocked, 0ULL);
	kc_split(0, &d, &in, &total, &s);
	KUNIT_EXPECT_EQ(test, s.kernel + s.user + s.runq + s.blocked, 0ULL);
}

/* No tick in the window: the process's ratio so far; no tick ever: kernel. */
static void kc_vmm_split_no_tick(struct kunit *test)
{
	struct kc_vmm_time d = { .ran = 40 };
	struct kc_vmm_time in = { 0 };
	struct kc_vmm_time total = { .user = 3, .system = 1 };
	struct kc_vmm_split s;

	kc_split(40, &d, &in, &total, &s);
	KUNIT_EXPECT_EQ(test, s.user, 30ULL);
	KUNIT_EXPECT_EQ(test, s.kernel, 10ULL);
	memset(&total, 0, sizeof(total));
	kc_split(40, &d, &in, &total, &s);
	KUNIT_EXPECT_EQ(test, s.user, 0ULL);
	KUNIT_EXPECT_EQ(test, s.kernel, 40ULL);
}

/*
 * Hours of CPU in ns and tick sums past 32 bits: the ratio is cut, not the
 * product overflowed; the calls took more than the threads did: nothing.
 */
static void kc_vmm_split_large(struct kunit *test)
{
	u64 hour = 3600ULL * NSEC_PER_SEC;
	struct kc_vmm_time d = { .ran = 10 * hour, .user = 3 * hour,
				 .system = hour };
	struct kc_vmm_time in = { .ran = 11 * hour, .waited = 5 };
	struct kc_vmm_time total = { 0 };
	struct kc_vmm_split s;

	kc_split(U64_MAX, &d, &in, &total, &s);
	KUNIT_EXPECT_EQ(test, s.user, 0ULL);
	KUNIT_EXPECT_EQ(test, s.kernel, 0ULL);
	KUNIT_EXPECT_EQ(test, s.runq, 0ULL);
	in.ran = 0;
	kc_split(U64_MAX, &d, &in, &total, &s);
	KUNIT_EXPECT_EQ(test, s.user, div_u64(30 * hour, 4));
	KUNIT_EXPECT_EQ(test, s.user + s.kernel, 10 * hour);
}

/*
 * current, read twice 200 us apart on a CPU: its time goes on to the
 * instant, where the scheduler's own sum stands still until a tick or a
 * switch (a try that saw one is tried again).
 */
static void kc_vmm_time_current(struct kunit *test)
{
	struct kc_vmm_time a, b, g;
	unsigned int try;
	u64 raw, spin;

	for (try = 0; try < 100; try++) {
		raw = READ_ONCE(current->se.sum_exec_runtime);
		kc_vmm_time_task(current, local_clock(), &a);
		for (spin = local_clock(); local_clock() - spin < 200 * NSEC_PER_USEC;)
			cpu_relax();
		kc_vmm_time_task(current, local_clock(), &b);
		if (READ_ONCE(current->se.sum_exec_runtime) == raw)
			break;
	}
	KUNIT_ASSERT_LT(test, try, 100U);
	KUNIT_EXPECT_GE(test, a.ran, raw);
	KUNIT_EXPECT_GE(test, b.ran, a.ran + 200 * NSEC_PER_USEC);
	KUNIT_EXPECT_GE(test, b.waited, a.waited);
	KUNIT_EXPECT_EQ(test, b.slept, a.slept);
	kc_vmm_time_group(current, local_clock(), &g);
	KUNIT_EXPECT_GE(test, g.ran, b.ran);
}

static struct kunit_case kc_vmm_time_cases[] = {
	KUNIT_CASE(kc_vmm_split_exact),
	KUNIT_CASE(kc_vmm_split_blocked),
	KUNIT_CASE(kc_vmm_split_overlap),
	KUNIT_CASE(kc_vmm_split_no_tick),
	KUNIT_CASE(kc_vmm_split_large),
	KUNIT_CASE(kc_vmm_time_current),
	{}
};

static struct kunit_suite kc_vmm_time_suite = {
	.name = "kvmchurn_vmm_time",
	.test_cases = kc_vmm_time_cases,
};

kunit_test_suite(kc_vmm_time_suite);

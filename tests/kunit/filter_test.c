// SPDX-License-Identifier: GPL-2.0
/*
 * filter_test.c - which processes are traced (filter.c): the spec strings a
 * write to the filter file may hold, what is refused (and then changes
 * nothing), matching a task by its thread-group leader's comm, and the memo
 * that answers an exiting task's later questions. filter.c is built in here
 * for its memo.
 */
#include "../../module/filter.c"

#include <kunit/test.h>
#include <linux/err.h>
#include <linux/kthread.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>

/* What kc_filter_format() may write: render.c and debugfs.c use as much. */
#define KC_FILTER_TEXT	(KC_FILTER_MAX_NAMES * TASK_COMM_LEN)

static int kc_filter_test_init(struct kunit *test)
{
	return kc_filter_init("firecracker");
}

static void kc_filter_test_exit(struct kunit *test)
{
	kc_filter_exit();
}

/* The filter as the filter file shows it. */
static void kc_expect_filter(struct kunit *test, const char *want)
{
	char *buf = kunit_kzalloc(test, KC_FILTER_TEXT, GFP_KERNEL);
	int n;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	n = kc_filter_format(buf, KC_FILTER_TEXT);
	KUNIT_EXPECT_STREQ(test, buf, want);
	KUNIT_EXPECT_EQ(test, n, (int)strlen(want));
}

/* @spec is taken and shows as @want. */
static void kc_expect_set(struct kunit *test, const char *spec,
			  const char *want)
{
	KUNIT_EXPECT_EQ_MSG(test, kc_filter_set(spec), 0, "spec \"%s\"", spec);
	kc_expect_filter(test, want);
}

/* @spec is refused and the filter stays what it was, "qemu kvm". */
static void kc_expect_refused(struct kunit *test, const char *spec)
{
	KUNIT_ASSERT_EQ(test, kc_filter_set("qemu kvm"), 0);
	KUNIT_EXPECT_EQ_MSG(test, kc_filter_set(spec), -EINVAL, "spec \"%s\"",
			    spec);
	kc_expect_filter(test, "qemu kvm");
	KUNIT_EXPECT_FALSE(test, kc_filter_all());

	/* Also when the filter in place is "*". */
	KUNIT_ASSERT_EQ(test, kc_filter_set("*"), 0);
	KUNIT_EXPECT_EQ_MSG(test, kc_filter_set(spec), -EINVAL, "spec \"%s\"",
			    spec);
	kc_expect_filter(test, "*");
	KUNIT_EXPECT_TRUE(test, kc_filter_all());
}

static void kc_filter_default(struct kunit *test)
{
	kc_expect_filter(test, "firecracker");
	KUNIT_EXPECT_FALSE(test, kc_filter_all());
}

static void kc_filter_single(struct kunit *test)
{
	kc_expect_set(test, "qemu", "qemu");
	kc_expect_set(test, "qemu-system-x86", "qemu-system-x86");
	kc_expect_set(test, " crosvm\n", "crosvm");
	KUNIT_EXPECT_FALSE(test, kc_filter_all());
	/* "**" is a name, not the wildcard. */
	kc_expect_set(test, "**", "**");
	KUNIT_EXPECT_FALSE(test, kc_filter_all());
}

static void kc_filter_several(struct kunit *test)
{
	kc_expect_set(test, "a b c", "a b c");
	kc_expect_set(test, "a,b,c", "a b c");
	kc_expect_set(test, "firecracker,qemu crosvm", "firecracker qemu crosvm");
	kc_expect_set(test, "  a,, b ,\tc\n", "a b c");
	kc_expect_set(test, "a\nb", "a b");
	/* Kept in the order given, repeats too. */
	kc_expect_set(test, "b a b", "b a b");
	KUNIT_EXPECT_FALSE(test, kc_filter_all());
}

static void kc_filter_star(struct kunit *test)
{
	kc_expect_set(test, "*", "*");
	KUNIT_EXPECT_TRUE(test, kc_filter_all());
	KUNIT_EXPECT_TRUE(test, kc_filter_match(current));
	kc_expect_set(test, " *\n", "*");
	KUNIT_EXPECT_TRUE(test, kc_filter_all());
	kc_expect_set(test, ",*,", "*");
	KUNIT_EXPECT_TRUE(test, kc_filter_all());
	/* And back to names. */
	kc_expect_set(test, "qemu", "qemu");
	KUNIT_EXPECT_FALSE(test, kc_filter_all());
}

static void kc_filter_name_lengths(struct kunit *test)
{
	/* A comm holds 15 characters. */
	kc_expect_set(test, "abcdefghijklmno", "abcdefghijklmno");
	kc_expect_set(test, "x abcdefghijklmno,y", "x abcdefghijklmno y");
	kc_expect_refused(test, "abcdefghijklmnop");
	kc_expect_refused(test, "cloud-hypervisor");
	kc_expect_refused(test, "abcdefghijklmnopqrstuvwxyz");
	kc_expect_refused(test, "qemu abcdefghijklmnop");
	kc_expect_refused(test, "abcdefghijklmnop,qemu");
}

static void kc_filter_name_count(struct kunit *test)
{
	/* Eight names of 15: 127 characters, the file's whole buffer. */
	kc_expect_set(test,
		      "aaaaaaaaaaaaaaa bbbbbbbbbbbbbbb ccccccccccccccc ddddddddddddddd eeeeeeeeeeeeeee fffffffffffffff ggggggggggggggg hhhhhhhhhhhhhhh",
		      "aaaaaaaaaaaaaaa bbbbbbbbbbbbbbb ccccccccccccccc ddddddddddddddd eeeeeeeeeeeeeee fffffffffffffff ggggggggggggggg hhhhhhhhhhhhhhh");
	kc_expect_set(test, "1,2,3,4,5,6,7,8", "1 2 3 4 5 6 7 8");
	KUNIT_EXPECT_EQ(test, KC_FILTER_MAX_NAMES, 8);
	kc_expect_refused(test, "1 2 3 4 5 6 7 8 9");
	kc_expect_refused(test, "1,2,3,4,5,6,7,8,9,10,11,12");
	/* Repeats count as names. */
	kc_expect_refused(test, "a a a a a a a a a");
}

static void kc_filter_star_mixed(struct kunit *test)
{
	kc_expect_refused(test, "* qemu");
	kc_expect_refused(test, "qemu *");
	kc_expect_refused(test, "qemu,*");
	kc_expect_refused(test, "* *");
	kc_expect_refused(test, "*,*");
}

static void kc_filter_empty(struct kunit *test)
{
	kc_expect_refused(test, "");
	kc_expect_refused(test, " ");
	kc_expect_refused(test, "\n");
	kc_expect_refused(test, ",");
	kc_expect_refused(test, " ,\t,\n,");
}

/* Without a filter (before init, after exit) nothing matches. */
static void kc_filter_none(struct kunit *test)
{
	char buf[4] = "xyz";

	kc_filter_exit();
	KUNIT_EXPECT_FALSE(test, kc_filter_match(current));
	KUNIT_EXPECT_FALSE(test, kc_filter_all());
	KUNIT_EXPECT_EQ(test, kc_filter_format(buf, sizeof(buf)), 0);
	/* The suite's exit frees whatever filter is set: set one again. */
	KUNIT_EXPECT_EQ(test, kc_filter_init("qemu"), 0);
	kc_expect_filter(test, "qemu");
}

/* The KUnit thread running this test: matched by its own comm, exactly. */
static void kc_filter_match_current(struct kunit *test)
{
	char comm[TASK_COMM_LEN], other[TASK_COMM_LEN + 8];
	size_t len;

	get_task_comm(comm, current->group_leader);
	len = strlen(comm);
	kunit_info(test, "current leader's comm \"%s\"\n", comm);
	KUNIT_ASSERT_GT(test, len, 0);

	kc_expect_set(test, comm, comm);
	KUNIT_EXPECT_TRUE(test, kc_filter_match(current));

	/* One character different: the last, then the first. */
	strscpy(other, comm, sizeof(other));
	other[len - 1] = other[len - 1] == 'x' ? 'y' : 'x';
	kc_expect_set(test, other, other);
	KUNIT_EXPECT_FALSE(test, kc_filter_match(current));
	strscpy(other, comm, sizeof(other));
	other[0] = other[0] == 'x' ? 'y' : 'x';
	kc_expect_set(test, other, other);
	KUNIT_EXPECT_FALSE(test, kc_filter_match(current));

	/* A prefix is not the name. */
	if (len > 1) {
		strscpy(other, comm, len);
		kc_expect_set(test, other, other);
		KUNIT_EXPECT_FALSE(test, kc_filter_match(current));
	}

	/* Among other names, in any position. */
	KUNIT_EXPECT_EQ(test, kc_filter_set("qemu"), 0);
	KUNIT_EXPECT_FALSE(test, kc_filter_match(current));
	snprintf(other, sizeof(other), "q,%s", comm);
	if (strlen(comm) + 2 < sizeof(other)) {
		KUNIT_EXPECT_EQ(test, kc_filter_set(other), 0);
		KUNIT_EXPECT_TRUE(test, kc_filter_match(current));
	}
}

static int kc_filter_never_runs(void *unused)
{
	return 0;
}

/*
 * A thread named with more than 15 characters: its comm is the first 15,
 * and that is the name that matches it.
 */
static void kc_filter_match_truncated(struct kunit *test)
{
	static const char long_name[] = "kvmchurn_filter_test_worker";
	char comm[TASK_COMM_LEN];
	struct task_struct *t;

	/* Created and never woken: kthread_stop() ends it before it runs. */
	t = kthread_create(kc_filter_never_runs, NULL, "%s", long_name);
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	get_task_comm(comm, t);
	KUNIT_EXPECT_STREQ(test, comm, "kvmchurn_filter");
	KUNIT_EXPECT_PTR_EQ(test, t->group_leader, t);

	KUNIT_EXPECT_EQ(test, kc_filter_set(long_name), -EINVAL);
	kc_expect_set(test, "kvmchurn_filter", "kvmchurn_filter");
	KUNIT_EXPECT_TRUE(test, kc_filter_match(t));
	KUNIT_EXPECT_FALSE(test, kc_filter_match(current));
	kc_expect_set(test, "qemu,kvmchurn_filter", "qemu kvmchurn_filter");
	KUNIT_EXPECT_TRUE(test, kc_filter_match(t));
	kc_expect_set(test, "kvmchurn_filte", "kvmchurn_filte");
	KUNIT_EXPECT_FALSE(test, kc_filter_match(t));
	kc_expect_set(test, "kvmchurn_filtex", "kvmchurn_filtex");
	KUNIT_EXPECT_FALSE(test, kc_filter_match(t));
	kc_expect_set(test, "Kvmchurn_filter", "Kvmchurn_filter");
	KUNIT_EXPECT_FALSE(test, kc_filter_match(t));
	kc_expect_set(test, "*", "*");
	KUNIT_EXPECT_TRUE(test, kc_filter_match(t));

	KUNIT_EXPECT_EQ(test, kthread_stop(t), -EINTR);
}

/* kc_filter_exiting() of current, with preemption off as on the exit path. */
static bool kc_memo_ask(void)
{
	bool match;

	preempt_disable();
	match = kc_filter_exiting();
	preempt_enable();
	return match;
}

/*
 * Keeps @match in this CPU's memo under a key that differs from current's by
 * @task_delta (its address) or @start_delta (its start time), and asks, all
 * on one CPU: the answer.
 */
static bool kc_memo_after(bool match, int task_delta, u64 start_delta)
{
	bool again;

	preempt_disable();
	kc_exiting_keep(current, match);
	__this_cpu_write(kc_exiting.task,
			 (const void *)((const char *)current + task_delta));
	__this_cpu_add(kc_exiting.start_time, start_delta);
	again = kc_filter_exiting();
	preempt_enable();
	return again;
}

/* How many CPUs' memos name @t. */
static unsigned int kc_memos_of(const struct task_struct *t)
{
	unsigned int n = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		n += READ_ONCE(per_cpu_ptr(&kc_exiting, cpu)->task) == t;
	return n;
}

/*
 * An exiting task's answer is kept per CPU and given again only to the same
 * task, by address and start time, until the filter changes.
 */
static void kc_filter_memo(struct kunit *test)
{
	char comm[TASK_COMM_LEN];

	get_task_comm(comm, current->group_leader);
	kc_expect_set(test, comm, comm);
	/* a task that is not exiting is answered, and not kept */
	KUNIT_EXPECT_TRUE(test, kc_memo_ask());
	KUNIT_EXPECT_EQ(test, kc_memos_of(current), 0);
	/* the memo is what answers the same task: a planted answer is given */
	KUNIT_EXPECT_FALSE(test, kc_memo_after(false, 0, 0));
	KUNIT_EXPECT_TRUE(test, kc_memo_after(true, 0, 0));
	/* another task at the same address, or at another: computed again */
	KUNIT_EXPECT_TRUE(test, kc_memo_after(false, 0, 1));
	KUNIT_EXPECT_TRUE(test, kc_memo_after(false, 64, 0));
	/* another filter: every CPU's memo dropped, computed again */
	KUNIT_EXPECT_FALSE(test, kc_memo_after(false, 0, 0));
	KUNIT_EXPECT_EQ(test, kc_memos_of(current), 1);
	kc_expect_set(test, comm, comm);
	KUNIT_EXPECT_EQ(test, kc_memos_of(current), 0);
	KUNIT_EXPECT_TRUE(test, kc_memo_ask());
	kc_expect_set(test, "qemu", "qemu");
	KUNIT_EXPECT_FALSE(test, kc_memo_ask());
	/* "*" matches any task */
	kc_expect_set(test, "*", "*");
	KUNIT_EXPECT_TRUE(test, kc_memo_ask());
	/* no filter: nothing matches, and the memos are dropped too */
	KUNIT_EXPECT_TRUE(test, kc_memo_after(true, 0, 0));
	kc_filter_exit();
	KUNIT_EXPECT_EQ(test, kc_memos_of(current), 0);
	KUNIT_EXPECT_FALSE(test, kc_memo_ask());
	KUNIT_EXPECT_EQ(test, kc_filter_init("qemu"), 0);
}

static struct kunit_case kc_filter_cases[] = {
	KUNIT_CASE(kc_filter_default),
	KUNIT_CASE(kc_filter_single),
	KUNIT_CASE(kc_filter_several),
	KUNIT_CASE(kc_filter_star),
	KUNIT_CASE(kc_filter_name_lengths),
	KUNIT_CASE(kc_filter_name_count),
	KUNIT_CASE(kc_filter_star_mixed),
	KUNIT_CASE(kc_filter_empty),
	KUNIT_CASE(kc_filter_none),
	KUNIT_CASE(kc_filter_match_current),
	KUNIT_CASE(kc_filter_match_truncated),
	KUNIT_CASE(kc_filter_memo),
	{}
};

static struct kunit_suite kc_filter_suite = {
	.name = "kvmchurn_filter",
	.init = kc_filter_test_init,
	.exit = kc_filter_test_exit,
	.test_cases = kc_filter_cases,
};

kunit_test_suite(kc_filter_suite);

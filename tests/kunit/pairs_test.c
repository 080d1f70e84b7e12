// SPDX-License-Identifier: GPL-2.0
/*
 * pairs_test.c - the pairing table (pairs.c): insert, look up (peek, claim,
 * take), replace, a full bucket and its drops, ageing, the per-process
 * maximum, counts by kind (the live count that lets a lookup skip the table
 * agrees with the entries after every step), and concurrent use from threads
 * and a timer.
 *
 * pairs.c is built in here, not through a wrapper, for its KC_PAIR_WAYS and
 * KC_PAIR_MAX_AGE and the table's geometry. The suite's table has
 * KC_PAIR_WAYS entries: one bucket, which every id shares.
 */
#include "../../module/pairs.c"

#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/err.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/sched.h>
#include <linux/timer.h>

#define KC_TEST_PAIRS	KC_PAIR_WAYS
/* A time well past 0, so that "older" has room below it. */
#define KC_TEST_T0	(5 * NSEC_PER_SEC)

/* pairs.c counts drops and take-overs from load: tests count from here. */
struct kc_pairs_ctx {
	struct kc_pair_stats base;
};

static int kc_pairs_test_init(struct kunit *test)
{
	struct kc_pairs_ctx *ctx = kunit_kzalloc(test, sizeof(*ctx),
						 GFP_KERNEL);
	int err;

	if (!ctx)
		return -ENOMEM;
	test->priv = ctx;
	err = kc_pairs_init(KC_TEST_PAIRS);
	if (err)
		return err;
	kc_pairs_stats(&ctx->base);
	return 0;
}

static void kc_pairs_test_exit(struct kunit *test)
{
	kc_pairs_exit();
}

/* Entries in use, and drops and take-overs since the test began. */
static void kc_expect_stats(struct kunit *test, unsigned int used,
			    u64 dropped, u64 aged)
{
	struct kc_pairs_ctx *ctx = test->priv;
	struct kc_pair_stats st;

	enum kc_pair_kind k;

	kc_pairs_stats(&st);
	KUNIT_EXPECT_EQ(test, st.used, used);
	KUNIT_EXPECT_EQ(test, st.dropped - ctx->base.dropped, dropped);
	KUNIT_EXPECT_EQ(test, st.aged - ctx->base.aged, aged);
	for (k = 0; k < KC_NR_PAIR_KINDS; k++)
		KUNIT_EXPECT_EQ_MSG(test, kc_pairs_live_count(k),
				    kc_pairs_count(k), "kind %d", k);
}

/* Whether (@kind, @id) is there, and with time @ts. */
static void kc_expect_entry(struct kunit *test, enum kc_pair_kind kind,
			    u64 id, bool there, u64 ts)
{
	u64 got = 0;

	KUNIT_EXPECT_EQ_MSG(test, kc_pair_get(kind, id, KC_PAIR_PEEK, &got),
			    there, "kind %d id %llu", kind, id);
	if (there)
		KUNIT_EXPECT_EQ_MSG(test, got, ts, "kind %d id %llu", kind, id);
}

/* Fills the one bucket with ids 1..KC_PAIR_WAYS of @kind, id i at T0 + i. */
static void kc_fill(struct kunit *test, enum kc_pair_kind kind)
{
	unsigned int i;

	for (i = 1; i <= KC_PAIR_WAYS; i++)
		KUNIT_ASSERT_EQ(test, kc_pair_add(kind, i, KC_TEST_T0 + i, false),
				KC_PAIR_ADDED);
	kc_expect_stats(test, KC_PAIR_WAYS, 0, 0);
}

static void kc_pairs_capacity(struct kunit *test)
{
	struct kc_pair_stats st;

	kc_pairs_stats(&st);
	KUNIT_EXPECT_EQ(test, st.capacity, 8U);
	KUNIT_EXPECT_EQ(test, st.used, 0U);
	KUNIT_EXPECT_EQ(test, kc_bucket_bits, 0U);

	kc_pairs_exit();
	KUNIT_EXPECT_EQ(test, kc_pairs_init(0), -EINVAL);
	KUNIT_EXPECT_EQ(test, kc_pairs_init(7), -EINVAL);
	KUNIT_EXPECT_EQ(test, kc_pairs_init((1U << 24) + 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, kc_pairs_init(UINT_MAX), -EINVAL);

	/* Rounded up to a power of two, in buckets of KC_PAIR_WAYS. */
	KUNIT_ASSERT_EQ(test, kc_pairs_init(12), 0);
	kc_pairs_stats(&st);
	KUNIT_EXPECT_EQ(test, st.capacity, 16U);
	KUNIT_EXPECT_EQ(test, kc_bucket_bits, 1U);
	kc_pairs_exit();

	KUNIT_ASSERT_EQ(test, kc_pairs_init(4096), 0);
	kc_pairs_stats(&st);
	KUNIT_EXPECT_EQ(test, st.capacity, 4096U);
	KUNIT_EXPECT_EQ(test, st.used, 0U);
	KUNIT_EXPECT_EQ(test, kc_bucket_bits, 9U);
}

static void kc_pairs_add_get_take(struct kunit *test)
{
	u64 ts = 0;

	KUNIT_EXPECT_EQ(test, kc_pair_add(KC_PAIR_EXIT, 42, 1000, false),
			KC_PAIR_ADDED);
	KUNIT_EXPECT_EQ(test, kc_pairs_count(KC_PAIR_EXIT), 1U);
	KUNIT_EXPECT_EQ(test, kc_pairs_count(KC_PAIR_SIGNAL), 0U);
	kc_expect_stats(test, 1, 0, 0);

	/* A peek leaves it; so does one without a time. */
	KUNIT_EXPECT_TRUE(test, kc_pair_get(KC_PAIR_EXIT, 42, KC_PAIR_PEEK, &ts));
	KUNIT_EXPECT_EQ(test, ts, 1000ULL);
	ts = 0;
	KUNIT_EXPECT_TRUE(test, kc_pair_get(KC_PAIR_EXIT, 42, KC_PAIR_PEEK, &ts));
	KUNIT_EXPECT_EQ(test, ts, 1000ULL);
	KUNIT_EXPECT_TRUE(test, kc_pair_get(KC_PAIR_EXIT, 42, KC_PAIR_PEEK, NULL));

	/* Another kind or another id is not it, and leaves *ts alone. */
	ts = 7;
	KUNIT_EXPECT_FALSE(test, kc_pair_get(KC_PAIR_SIGNAL, 42, KC_PAIR_PEEK, &ts));
	KUNIT_EXPECT_FALSE(test, kc_pair_get(KC_PAIR_EXIT, 43, KC_PAIR_PEEK, &ts));
	KUNIT_EXPECT_FALSE(test, kc_pair_get(KC_PAIR_EXIT, 42 + (1ULL << 32),
					     KC_PAIR_TAKE, &ts));
	KUNIT_EXPECT_EQ(test, ts, 7ULL);

	/* A take gives it once. */
	KUNIT_EXPECT_TRUE(test, kc_pair_get(KC_PAIR_EXIT, 42, KC_PAIR_TAKE, &ts));
	KUNIT_EXPECT_EQ(test, ts, 1000ULL);
	KUNIT_EXPECT_FALSE(test, kc_pair_get(KC_PAIR_EXIT, 42, KC_PAIR_TAKE, &ts));
	KUNIT_EXPECT_FALSE(test, kc_pair_get(KC_PAIR_EXIT, 42, KC_PAIR_PEEK, NULL));
	KUNIT_EXPECT_EQ(test, kc_pairs_count(KC_PAIR_EXIT), 0U);
	kc_expect_stats(test, 0, 0, 0);

	/* Ids at both ends, and a take without a time. */
	KUNIT_EXPECT_EQ(test, kc_pair_add(KC_PAIR_VM, 0, 1, false), KC_PAIR_ADDED);
	KUNIT_EXPECT_EQ(test, kc_pair_add(KC_PAIR_VM, U64_MAX, 2, false),
			KC_PAIR_ADDED);
	kc_expect_entry(test, KC_PAIR_VM, 0, true, 1);
	kc_expect_entry(test, KC_PAIR_VM, U64_MAX, true, 2);
	KUNIT_EXPECT_TRUE(test, kc_pair_get(KC_PAIR_VM, 0, KC_PAIR_TAKE, NULL));
	KUNIT_EXPECT_TRUE(test, kc_pair_get(KC_PAIR_VM, U64_MAX, KC_PAIR_TAKE, NULL));
	kc_expect_stats(test, 0, 0, 0);
}

static void kc_pairs_claim(struct kunit *test)
{
	u64 ts = 0;

	KUNIT_EXPECT_EQ(test, kc_pair_add(KC_PAIR_SIGNAL, 7, 500, false),
			KC_PAIR_ADDED);
	/* The first claim has it, the second does not; it stays. */
	KUNIT_EXPECT_TRUE(test, kc_pair_get(KC_PAIR_SIGNAL, 7, KC_PAIR_CLAIM, &ts));
	KUNIT_EXPECT_EQ(test, ts, 500ULL);
	ts = 0;
	KUNIT_EXPECT_FALSE(test, kc_pair_get(KC_PAIR_SIGNAL, 7, KC_PAIR_CLAIM, &ts));
	KUNIT_EXPECT_EQ(test, ts, 0ULL);
	kc_expect_entry(test, KC_PAIR_SIGNAL, 7, true, 500);
	KUNIT_EXPECT_EQ(test, kc_pairs_count(KC_PAIR_SIGNAL), 1U);

	/* An add that finds it does not un-claim it; a replace does. */
	KUNIT_EXPECT_EQ(test, kc_pair_add(KC_PAIR_SIGNAL, 7, 600, false),
			KC_PAIR_EXISTS);
	KUNIT_EXPECT_FALSE(test, kc_pair_get(KC_PAIR_SIGNAL, 7, KC_PAIR_CLAIM, NULL));
	KUNIT_EXPECT_EQ(test, kc_pair_add(KC_PAIR_SIGNAL, 7, 600, true),
			KC_PAIR_ADDED);
	KUNIT_EXPECT_TRUE(test, kc_pair_get(KC_PAIR_SIGNAL, 7, KC_PAIR_CLAIM, &ts));
	KUNIT_EXPECT_EQ(test, ts, 600ULL);

	/* A claimed entry is still taken. */
	ts = 0;
	KUNIT_EXPECT_TRUE(test, kc_pair_get(KC_PAIR_SIGNAL, 7, KC_PAIR_TAKE, &ts));
	KUNIT_EXPECT_EQ(test, ts, 600ULL);
	KUNIT_EXPECT_FALSE(test, kc_pair_get(KC_PAIR_SIGNAL, 7, KC_PAIR_CLAIM, NULL));
	kc_expect_stats(test, 0, 0, 0);
}

static void kc_pairs_exists_replace(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, kc_pair_add(KC_PAIR_EXIT, 9, 100, false),
			KC_PAIR_ADDED);
	KUNIT_EXPECT_EQ(test, kc_pair_add(KC_PAIR_EXIT, 9, 200, false),
			KC_PAIR_EXISTS);
	kc_expect_entry(test, KC_PAIR_EXIT, 9, true, 100);
	KUNIT_EXPECT_EQ(test, kc_pair_add(KC_PAIR_EXIT, 9, 300, true),
			KC_PAIR_ADDED);
	kc_expect_entry(test, KC_PAIR_EXIT, 9, true, 300);
	/* Replaced in place: still one entry. */
	KUNIT_EXPECT_EQ(test, kc_pairs_count(KC_PAIR_EXIT), 1U);
	kc_expect_stats(test, 1, 0, 0);

	/* The same id of another kind is another entry. */
	KUNIT_EXPECT_EQ(test, kc_pair_add(KC_PAIR_SIGNAL, 9, 400, false),
			KC_PAIR_ADDED);
	KUNIT_EXPECT_EQ(test, kc_pairs_count(KC_PAIR_EXIT), 1U);
	KUNIT_EXPECT_EQ(test, kc_pairs_count(KC_PAIR_SIGNAL), 1U);
	kc_expect_entry(test, KC_PAIR_EXIT, 9, true, 300);
	kc_expect_entry(test, KC_PAIR_SIGNAL, 9, true, 400);
	kc_expect_stats(test, 2, 0, 0);

	KUNIT_EXPECT_TRUE(test, kc_pair_get(KC_PAIR_EXIT, 9, KC_PAIR_TAKE, NULL));
	kc_expect_entry(test, KC_PAIR_SIGNAL, 9, true, 400);
	KUNIT_EXPECT_TRUE(test, kc_pair_get(KC_PAIR_SIGNAL, 9, KC_PAIR_TAKE, NULL));
	kc_expect_stats(test, 0, 0, 0);
}

static void kc_pairs_full(struct kunit *test)
{
	struct kc_pair_stats st;
	unsigned int i;
	u64 val = 99;

	kc_fill(test, KC_PAIR_EXIT);
	kc_pairs_stats(&st);
	KUNIT_EXPECT_EQ(test, st.used, st.capacity);

	/* No room, whatever the kind: dropped and counted. */
	KUNIT_EXPECT_EQ(test, kc_pair_add(KC_PAIR_EXIT, 9, KC_TEST_T0 + 9, false),
			KC_PAIR_FULL);
	kc_expect_stats(test, 8, 1, 0);
	KUNIT_EXPECT_EQ(test, kc_pair_add(KC_PAIR_SIGNAL, 1, KC_TEST_T0 + 9, true),
			KC_PAIR_FULL);
	kc_expect_stats(test, 8, 2, 0);
	kc_pair_max(KC_PAIR_FILES, 1, KC_TEST_T0 + 9, 5);
	kc_expect_stats(test, 8, 3, 0);
	KUNIT_EXPECT_FALSE(test, kc_pair_take_max(KC_PAIR_FILES, 1, &val));
	KUNIT_EXPECT_EQ(test, val, 99ULL);
	kc_expect_entry(test, KC_PAIR_EXIT, 9, false, 0);

	/* What is there is still found, replaced in place, not dropped. */
	KUNIT_EXPECT_EQ(test, kc_pair_add(KC_PAIR_EXIT, 3, KC_TEST_T0 + 30, true),
			KC_PAIR_ADDED);
	KUNIT_EXPECT_EQ(test, kc_pair_add(KC_PAIR_EXIT, 4, KC_TEST_T0 + 40, false),
			KC_PAIR_EXISTS);
	kc_expect_stats(test, 8, 3, 0);
	for (i = 1; i <= 8; i++)
		kc_expect_entry(test, KC_PAIR_EXIT, i, true,
				KC_TEST_T0 + (i == 3 ? 30 : i));

	/* A take makes room for one. */
	KUNIT_EXPECT_TRUE(test, kc_pair_get(KC_PAIR_EXIT, 1, KC_PAIR_TAKE, NULL));
	kc_expect_stats(test, 7, 3, 0);
	KUNIT_EXPECT_EQ(test, kc_pair_add(KC_PAIR_EXIT, 9, KC_TEST_T0 + 9, false),
			KC_PAIR_ADDED);
	KUNIT_EXPECT_EQ(test, kc_pair_add(KC_PAIR_EXIT, 10, KC_TEST_T0 + 10, false),
			KC_PAIR_FULL);
	kc_expect_stats(test, 8, 4, 0);
	KUNIT_EXPECT_EQ(test, kc_pairs_count(KC_PAIR_EXIT), 8U);
}

/* An entry older than KC_PAIR_MAX_AGE gives its way to an insert. */
static void kc_pairs_ageing(struct kunit *test)
{
	const u64 age = KC_PAIR_MAX_AGE;
	unsigned int i;
	u64 val = 0;

	/* ABI.rst: "aged out (its slot reused) after 600 s". */
	KUNIT_EXPECT_EQ(test, age, 600ULL * NSEC_PER_SEC);

	/* A free way is used first, however old the others are. */
	KUNIT_EXPECT_EQ(test, kc_pair_add(KC_PAIR_EXIT, 1, KC_TEST_T0 + 1, false),
			KC_PAIR_ADDED);
	KUNIT_EXPECT_EQ(test, kc_pair_add(KC_PAIR_EXIT, 100,
					  KC_TEST_T0 + 10 * age, false),
			KC_PAIR_ADDED);
	kc_expect_stats(test, 2, 0, 0);
	KUNIT_EXPECT_TRUE(test, kc_pair_get(KC_PAIR_EXIT, 1, KC_PAIR_TAKE, NULL));
	KUNIT_EXPECT_TRUE(test, kc_pair_get(KC_PAIR_EXIT, 100, KC_PAIR_TAKE, NULL));

	/* Full; the oldest, id 1, was added at T0 + 1. */
	kc_fill(test, KC_PAIR_EXIT);
	/* Exactly KC_PAIR_MAX_AGE later it is not stale yet. */
	KUNIT_EXPECT_EQ(test, kc_pair_add(KC_PAIR_EXIT, 9, KC_TEST_T0 + 1 + age,
					  false), KC_PAIR_FULL);
	kc_expect_stats(test, 8, 1, 0);
	/* One nanosecond more, it is, and only it goes. */
	KUNIT_EXPECT_EQ(test, kc_pair_add(KC_PAIR_EXIT, 9, KC_TEST_T0 + 2 + age,
					  false), KC_PAIR_ADDED);
	kc_expect_stats(test, 8, 1, 1);
	kc_expect_entry(test, KC_PAIR_EXIT, 1, false, 0);
	for (i = 2; i <= 8; i++)
		kc_expect_entry(test, KC_PAIR_EXIT, i, true, KC_TEST_T0 + i);
	kc_expect_entry(test, KC_PAIR_EXIT, 9, true, KC_TEST_T0 + 2 + age);

	/* kc_pair_max takes over the next oldest, id 2, the same way. */
	kc_pair_max(KC_PAIR_FILES, 10, KC_TEST_T0 + 3 + age, 77);
	kc_expect_stats(test, 8, 1, 2);
	kc_expect_entry(test, KC_PAIR_EXIT, 2, false, 0);
	kc_expect_entry(test, KC_PAIR_FILES, 10, true, KC_TEST_T0 + 3 + age);
	KUNIT_EXPECT_TRUE(test, kc_pair_take_max(KC_PAIR_FILES, 10, &val));
	KUNIT_EXPECT_EQ(test, val, 77ULL);
	kc_expect_stats(test, 7, 1, 2);
}

/*
 * A caller reads the clock, then takes the bucket's lock; meanwhile other
 * CPUs may fill the bucket with entries added after its reading. None of
 * them is stale: the insert must be dropped, not take over a live entry.
 */
static void kc_pairs_older_insert_keeps_live(struct kunit *test)
{
	unsigned int i;

	kc_fill(test, KC_PAIR_EXIT);
	KUNIT_EXPECT_EQ(test, kc_pair_add(KC_PAIR_EXIT, 9, KC_TEST_T0, false),
			KC_PAIR_FULL);
	kc_pair_max(KC_PAIR_FILES, 10, KC_TEST_T0, 1);
	kc_expect_stats(test, 8, 2, 0);
	for (i = 1; i <= 8; i++)
		kc_expect_entry(test, KC_PAIR_EXIT, i, true, KC_TEST_T0 + i);
	kc_expect_entry(test, KC_PAIR_EXIT, 9, false, 0);
	kc_expect_entry(test, KC_PAIR_FILES, 10, false, 0);
}

static void kc_pairs_max_take(struct kunit *test)
{
	u64 val = 0;

	/* The largest value is kept, in the entry of the first call. */
	kc_pair_max(KC_PAIR_FILES, 5, 100, 30);
	KUNIT_EXPECT_EQ(test, kc_pairs_count(KC_PAIR_FILES), 1U);
	kc_pair_max(KC_PAIR_FILES, 5, 200, 10);
	kc_expect_entry(test, KC_PAIR_FILES, 5, true, 100);
	kc_pair_max(KC_PAIR_FILES, 5, 300, 50);
	kc_pair_max(KC_PAIR_FILES, 5, 400, 49);
	KUNIT_EXPECT_EQ(test, kc_pairs_count(KC_PAIR_FILES), 1U);
	kc_expect_entry(test, KC_PAIR_FILES, 5, true, 100);
	KUNIT_EXPECT_TRUE(test, kc_pair_take_max(KC_PAIR_FILES, 5, &val));
	KUNIT_EXPECT_EQ(test, val, 50ULL);
	val = 99;
	KUNIT_EXPECT_FALSE(test, kc_pair_take_max(KC_PAIR_FILES, 5, &val));
	KUNIT_EXPECT_EQ(test, val, 99ULL);
	KUNIT_EXPECT_EQ(test, kc_pairs_count(KC_PAIR_FILES), 0U);

	/* A value of 0 is a value. */
	kc_pair_max(KC_PAIR_FILES, 6, 100, 0);
	KUNIT_EXPECT_TRUE(test, kc_pair_take_max(KC_PAIR_FILES, 6, &val));
	KUNIT_EXPECT_EQ(test, val, 0ULL);

	/* An entry from kc_pair_add starts at 0 and keeps its time. */
	KUNIT_EXPECT_EQ(test, kc_pair_add(KC_PAIR_FILES, 7, 10, false),
			KC_PAIR_ADDED);
	kc_pair_max(KC_PAIR_FILES, 7, 20, 4);
	kc_expect_entry(test, KC_PAIR_FILES, 7, true, 10);
	KUNIT_EXPECT_TRUE(test, kc_pair_take_max(KC_PAIR_FILES, 7, &val));
	KUNIT_EXPECT_EQ(test, val, 4ULL);

	/* Kinds do not mix. */
	kc_pair_max(KC_PAIR_FILES, 11, 10, 3);
	val = 99;
	KUNIT_EXPECT_FALSE(test, kc_pair_take_max(KC_PAIR_EXIT, 11, &val));
	KUNIT_EXPECT_FALSE(test, kc_pair_get(KC_PAIR_EXIT, 11, KC_PAIR_TAKE, NULL));
	KUNIT_EXPECT_EQ(test, val, 99ULL);
	KUNIT_EXPECT_TRUE(test, kc_pair_get(KC_PAIR_FILES, 11, KC_PAIR_TAKE, NULL));
	kc_expect_stats(test, 0, 0, 0);
}

/* A count an entry: one more each inc, gone when dec takes the last. */
static void kc_pairs_inc_dec(struct kunit *test)
{
	KUNIT_EXPECT_FALSE(test, kc_pair_dec(KC_PAIR_UEVENT, 42));
	kc_pair_inc(KC_PAIR_UEVENT, 42, 100);
	kc_pair_inc(KC_PAIR_UEVENT, 42, 200);
	KUNIT_EXPECT_EQ(test, kc_pairs_count(KC_PAIR_UEVENT), 1U);
	/* The entry keeps the time it was added at. */
	kc_expect_entry(test, KC_PAIR_UEVENT, 42, true, 100);
	KUNIT_EXPECT_TRUE(test, kc_pair_dec(KC_PAIR_UEVENT, 42));
	kc_expect_entry(test, KC_PAIR_UEVENT, 42, true, 100);
	KUNIT_EXPECT_TRUE(test, kc_pair_dec(KC_PAIR_UEVENT, 42));
	kc_expect_entry(test, KC_PAIR_UEVENT, 42, false, 0);
	KUNIT_EXPECT_FALSE(test, kc_pair_dec(KC_PAIR_UEVENT, 42));

	/* Kinds do not mix. */
	kc_pair_inc(KC_PAIR_UEVENT, 7, 10);
	KUNIT_EXPECT_FALSE(test, kc_pair_dec(KC_PAIR_VM, 7));
	KUNIT_EXPECT_TRUE(test, kc_pair_dec(KC_PAIR_UEVENT, 7));

	/* A full bucket drops the count, and counts the drop. */
	kc_fill(test, KC_PAIR_VM);
	kc_pair_inc(KC_PAIR_UEVENT, 9, KC_TEST_T0 + 100);
	kc_expect_stats(test, KC_PAIR_WAYS, 1, 0);
	KUNIT_EXPECT_FALSE(test, kc_pair_dec(KC_PAIR_UEVENT, 9));
}

static void kc_pairs_count_kinds(struct kunit *test)
{
	unsigned int i;
	u64 val;

	for (i = 0; i < 3; i++)
		kc_pair_add(KC_PAIR_EXIT, 100 + i, 1, false);
	for (i = 0; i < 2; i++)
		kc_pair_add(KC_PAIR_SIGNAL, 100 + i, 1, false);
	kc_pair_add(KC_PAIR_VM, 100, 1, false);
	kc_pair_max(KC_PAIR_FILES, 100, 1, 1);
	kc_pair_max(KC_PAIR_FILES, 101, 1, 2);
	KUNIT_EXPECT_EQ(test, kc_pairs_count(KC_PAIR_EXIT), 3U);
	KUNIT_EXPECT_EQ(test, kc_pairs_count(KC_PAIR_SIGNAL), 2U);
	KUNIT_EXPECT_EQ(test, kc_pairs_count(KC_PAIR_VM), 1U);
	KUNIT_EXPECT_EQ(test, kc_pairs_count(KC_PAIR_FILES), 2U);
	KUNIT_EXPECT_EQ(test, kc_pairs_count(KC_PAIR_RECLAIM_DIRECT), 0U);
	KUNIT_EXPECT_EQ(test, kc_pairs_count(KC_PAIR_RECLAIM_MEMCG), 0U);
	kc_expect_stats(test, 8, 0, 0);

	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_TRUE(test, kc_pair_get(KC_PAIR_EXIT, 100 + i,
						    KC_PAIR_TAKE, NULL));
	KUNIT_EXPECT_EQ(test, kc_pairs_count(KC_PAIR_EXIT), 0U);
	KUNIT_EXPECT_EQ(test, kc_pairs_count(KC_PAIR_SIGNAL), 2U);
	KUNIT_EXPECT_TRUE(test, kc_pair_take_max(KC_PAIR_FILES, 101, &val));
	KUNIT_EXPECT_EQ(test, val, 2ULL);
	KUNIT_EXPECT_EQ(test, kc_pairs_count(KC_PAIR_FILES), 1U);
	kc_expect_stats(test, 4, 0, 0);
}

/*
 * Concurrent use: KC_CC_THREADS kernel threads and a timer (softirq) each
 * keep up to KC_CC_LAG ids of their own in a table of KC_CC_CAPACITY, adding
 * one and taking the one added KC_CC_LAG steps before. Every id added must
 * be taken exactly once, every id refused never, and the drops counted must
 * be the refusals. All use one timestamp: ageing is kc_pairs_ageing's, and
 * here a take-over would be an entry lost.
 */
#define KC_CC_THREADS	3
#define KC_CC_LAG	4
#define KC_CC_CAPACITY	16
#define KC_CC_STEPS_MAX	1000000
#define KC_CC_TIMER_OPS	4
#define KC_CC_TS	KC_TEST_T0

struct kc_cc_user {
	enum kc_pair_kind kind;
	u64 base;		/* ids are base + step */
	u64 steps;
	bool in[KC_CC_LAG];	/* whether step % KC_CC_LAG's id went in */
	u64 added, full, exists, taken, lost, ghost, twice, bad_ts;
};

struct kc_cc_worker {
	struct kc_cc_user u;
	unsigned long until;
	struct completion done;
	struct task_struct *task;
};

struct kc_cc_timer {
	struct timer_list timer;
	struct kc_cc_user u;
	bool stop;
	unsigned long fired;
};

static void kc_cc_take(struct kc_cc_user *u, u64 step)
{
	bool in = u->in[step % KC_CC_LAG];
	u64 ts = 0;
	bool found = kc_pair_get(u->kind, u->base + step, KC_PAIR_TAKE, &ts);

	if (found) {
		u->taken++;
		if (ts != KC_CC_TS)
			u->bad_ts++;
		if (kc_pair_get(u->kind, u->base + step, KC_PAIR_TAKE, NULL))
			u->twice++;
	}
	if (in && !found)
		u->lost++;
	if (!in && found)
		u->ghost++;
}

/* Takes the id of KC_CC_LAG steps ago, then adds this step's. */
static void kc_cc_step(struct kc_cc_user *u)
{
	bool *in = &u->in[u->steps % KC_CC_LAG];

	if (u->steps >= KC_CC_LAG)
		kc_cc_take(u, u->steps - KC_CC_LAG);
	switch (kc_pair_add(u->kind, u->base + u->steps, KC_CC_TS, false)) {
	case KC_PAIR_ADDED:
		*in = true;
		u->added++;
		break;
	case KC_PAIR_FULL:
		*in = false;
		u->full++;
		break;
	case KC_PAIR_EXISTS:
		*in = false;
		u->exists++;
		break;
	}
	u->steps++;
}

/* Takes the ids still in. */
static void kc_cc_finish(struct kc_cc_user *u)
{
	u64 step = u->steps > KC_CC_LAG ? u->steps - KC_CC_LAG : 0;

	for (; step < u->steps; step++)
		kc_cc_take(u, step);
}

static int kc_cc_thread(void *data)
{
	struct kc_cc_worker *w = data;

	do {
		kc_cc_step(&w->u);
		if (!(w->u.steps % 64))
			cond_resched();
	} while (time_before(jiffies, w->until) &&
		 w->u.steps < KC_CC_STEPS_MAX);
	kc_cc_finish(&w->u);
	complete(&w->done);

	/* kthread_stop() collects it. */
	set_current_state(TASK_INTERRUPTIBLE);
	while (!kthread_should_stop()) {
		schedule();
		set_current_state(TASK_INTERRUPTIBLE);
	}
	__set_current_state(TASK_RUNNING);
	return 0;
}

static void kc_cc_tick(struct timer_list *t)
{
	struct kc_cc_timer *ct = container_of(t, struct kc_cc_timer, timer);
	unsigned int i;

	for (i = 0; i < KC_CC_TIMER_OPS; i++)
		kc_cc_step(&ct->u);
	ct->fired++;
	if (!READ_ONCE(ct->stop))
		mod_timer(&ct->timer, jiffies + 1);
}

/* Every id of @u accounted for; returns the drops it saw. */
static u64 kc_cc_check(struct kunit *test, const char *who,
		       const struct kc_cc_user *u)
{
	kunit_info(test, "%s: %llu steps, %llu added, %llu dropped\n", who,
		   u->steps, u->added, u->full);
	KUNIT_EXPECT_GT_MSG(test, u->steps, (u64)KC_CC_LAG, "%s", who);
	KUNIT_EXPECT_EQ_MSG(test, u->added + u->full, u->steps, "%s", who);
	KUNIT_EXPECT_EQ_MSG(test, u->exists, 0ULL, "%s", who);
	KUNIT_EXPECT_EQ_MSG(test, u->taken, u->added, "%s", who);
	KUNIT_EXPECT_EQ_MSG(test, u->lost, 0ULL, "%s: added, not found", who);
	KUNIT_EXPECT_EQ_MSG(test, u->ghost, 0ULL, "%s: dropped, found", who);
	KUNIT_EXPECT_EQ_MSG(test, u->twice, 0ULL, "%s: taken twice", who);
	KUNIT_EXPECT_EQ_MSG(test, u->bad_ts, 0ULL, "%s: wrong time", who);
	return u->full;
}

static void kc_pairs_concurrent(struct kunit *test)
{
	/* Two threads share a kind, one shares ids with them in another. */
	static const enum kc_pair_kind kinds[KC_CC_THREADS] = {
		KC_PAIR_EXIT, KC_PAIR_EXIT, KC_PAIR_SIGNAL,
	};
	static const u64 bases[KC_CC_THREADS] = { 0, 1ULL << 32, 0 };
	struct kc_pairs_ctx *ctx = test->priv;
	struct kc_cc_worker *w;
	struct kc_cc_timer *ct;
	struct kc_pair_stats st;
	unsigned long until;
	u64 drops = 0;
	char who[16];
	unsigned int i;
	int k;

	w = kunit_kcalloc(test, KC_CC_THREADS, sizeof(*w), GFP_KERNEL);
	ct = kunit_kzalloc(test, sizeof(*ct), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, w);
	KUNIT_ASSERT_NOT_NULL(test, ct);
	kc_pairs_exit();
	KUNIT_ASSERT_EQ(test, kc_pairs_init(KC_CC_CAPACITY), 0);

	/* From here to the end of the threads and the timer, no assertion. */
	until = jiffies + HZ;
	ct->u.kind = KC_PAIR_SIGNAL;
	ct->u.base = 1ULL << 40;
	timer_setup(&ct->timer, kc_cc_tick, 0);
	mod_timer(&ct->timer, jiffies + 1);
	for (i = 0; i < KC_CC_THREADS; i++) {
		w[i].u.kind = kinds[i];
		w[i].u.base = bases[i];
		w[i].until = until;
		init_completion(&w[i].done);
		w[i].task = kthread_run(kc_cc_thread, &w[i], "kc_pairs_cc/%u", i);
		if (IS_ERR(w[i].task)) {
			KUNIT_FAIL(test, "kthread_run: %ld", PTR_ERR(w[i].task));
			w[i].task = NULL;
		}
	}
	for (i = 0; i < KC_CC_THREADS; i++) {
		if (!w[i].task)
			continue;
		wait_for_completion(&w[i].done);
		KUNIT_EXPECT_EQ(test, kthread_stop(w[i].task), 0);
	}
	WRITE_ONCE(ct->stop, true);
	timer_shutdown_sync(&ct->timer);
	kc_cc_finish(&ct->u);

	kunit_info(test, "timer fired %lu times\n", ct->fired);
	KUNIT_EXPECT_GT(test, ct->fired, 0UL);
	for (i = 0; i < KC_CC_THREADS; i++) {
		if (!w[i].task)
			continue;
		snprintf(who, sizeof(who), "thread %u", i);
		drops += kc_cc_check(test, who, &w[i].u);
	}
	drops += kc_cc_check(test, "timer", &ct->u);

	/* The table is empty, and counted every refusal as a drop. */
	kc_pairs_stats(&st);
	KUNIT_EXPECT_EQ(test, st.capacity, (unsigned int)KC_CC_CAPACITY);
	KUNIT_EXPECT_EQ(test, st.used, 0U);
	KUNIT_EXPECT_EQ(test, st.dropped - ctx->base.dropped, drops);
	KUNIT_EXPECT_EQ(test, st.aged - ctx->base.aged, 0ULL);
	for (k = KC_PAIR_SIGNAL; k <= KC_PAIR_FILES; k++)
		KUNIT_EXPECT_EQ_MSG(test, kc_pairs_count(k), 0U, "kind %d", k);
	/* after adds and takes racing on every kind, the live counts too */
	for (k = 0; k < KC_NR_PAIR_KINDS; k++)
		KUNIT_EXPECT_EQ_MSG(test, kc_pairs_live_count(k), 0U, "kind %d", k);
}

static struct kunit_case kc_pairs_cases[] = {
	KUNIT_CASE(kc_pairs_capacity),
	KUNIT_CASE(kc_pairs_add_get_take),
	KUNIT_CASE(kc_pairs_claim),
	KUNIT_CASE(kc_pairs_exists_replace),
	KUNIT_CASE(kc_pairs_full),
	KUNIT_CASE(kc_pairs_ageing),
	KUNIT_CASE(kc_pairs_older_insert_keeps_live),
	KUNIT_CASE(kc_pairs_max_take),
	KUNIT_CASE(kc_pairs_inc_dec),
	KUNIT_CASE(kc_pairs_count_kinds),
	KUNIT_CASE_SLOW(kc_pairs_concurrent),
	{}
};

static struct kunit_suite kc_pairs_suite = {
	.name = "kvmchurn_pairs",
	.init = kc_pairs_test_init,
	.exit = kc_pairs_test_exit,
	.test_cases = kc_pairs_cases,
};

kunit_test_suite(kc_pairs_suite);

// SPDX-License-Identifier: GPL-2.0
/*
 * partition_test.c - a window cut into stages (partition.c): every instant
 * in exactly one stage, the parts summing to the window, priorities between
 * overlapping intervals, idle time by phase, intervals that open before the
 * window, closes never opened, a clock that steps back, the mark, and the
 * first instant of each part.
 */
#include <kunit/test.h>

#include "kvmchurn.h"

/* Three interval stages (0 first), two idle ones. */
enum { A, B, C, IDLE1, IDLE2 };

static u64 kc_sum_parts(const struct kc_part *p)
{
	u64 n = 0;
	unsigned int s;

	for (s = 0; s < KC_PART_MAX; s++)
		n += p->sum[s];
	return n;
}

static void kc_part_alone(struct kunit *test)
{
	struct kc_part p;

	kc_part_init(&p, 3, IDLE1);
	kc_part_begin(&p, 100);
	kc_part_open(&p, 110, B);
	kc_part_close(&p, 150, B);
	kc_part_end(&p, 200);
	KUNIT_EXPECT_EQ(test, p.sum[B], 40ULL);
	KUNIT_EXPECT_EQ(test, p.sum[IDLE1], 60ULL);
	KUNIT_EXPECT_EQ(test, kc_part_window(&p), 100ULL);
	KUNIT_EXPECT_EQ(test, kc_sum_parts(&p), 100ULL);
	/* first instants, offset + 1: idle from 0, B from 10 */
	KUNIT_EXPECT_EQ(test, p.first[IDLE1], 1ULL);
	KUNIT_EXPECT_EQ(test, p.first[B], 11ULL);
	KUNIT_EXPECT_EQ(test, p.first[A], 0ULL);
	KUNIT_EXPECT_TRUE(test, p.flags & KC_PART_ENDED);
}

/* Overlaps go to the higher priority; nested and crossing alike. */
static void kc_part_priority(struct kunit *test)
{
	struct kc_part p;

	kc_part_init(&p, 3, IDLE1);
	kc_part_begin(&p, 0);
	kc_part_open(&p, 10, C);	/* C 10-20 */
	kc_part_open(&p, 20, A);	/* A 20-30, over C */
	kc_part_open(&p, 25, B);	/* B under A: nothing until A closes */
	kc_part_close(&p, 30, A);	/* B 30-40 */
	kc_part_close(&p, 40, B);	/* C again 40-50 */
	kc_part_close(&p, 50, C);
	kc_part_end(&p, 60);
	KUNIT_EXPECT_EQ(test, p.sum[A], 10ULL);
	KUNIT_EXPECT_EQ(test, p.sum[B], 10ULL);
	KUNIT_EXPECT_EQ(test, p.sum[C], 20ULL);
	KUNIT_EXPECT_EQ(test, p.sum[IDLE1], 20ULL);
	KUNIT_EXPECT_EQ(test, kc_sum_parts(&p), 60ULL);
	KUNIT_EXPECT_EQ(test, p.first[B], 31ULL);
}

/* Two intervals of one stage (two threads): it holds until both close. */
static void kc_part_same_stage(struct kunit *test)
{
	struct kc_part p;

	kc_part_init(&p, 3, IDLE1);
	kc_part_begin(&p, 0);
	kc_part_open(&p, 0, B);
	kc_part_open(&p, 5, B);
	kc_part_close(&p, 10, B);
	kc_part_close(&p, 20, B);
	kc_part_end(&p, 20);
	KUNIT_EXPECT_EQ(test, p.sum[B], 20ULL);
	KUNIT_EXPECT_EQ(test, p.sum[IDLE1], 0ULL);
	KUNIT_EXPECT_EQ(test, p.first[IDLE1], 0ULL);
}

/* Idle time goes to the phase's stage; the phases partition it too. */
static void kc_part_phases(struct kunit *test)
{
	struct kc_part p;

	kc_part_init(&p, 3, IDLE1);
	kc_part_begin(&p, 1000);
	kc_part_idle(&p, 1010, IDLE2);
	kc_part_open(&p, 1015, A);	/* an interval inside a phase wins */
	kc_part_close(&p, 1017, A);
	kc_part_end(&p, 1030);
	KUNIT_EXPECT_EQ(test, p.sum[IDLE1], 10ULL);
	KUNIT_EXPECT_EQ(test, p.sum[IDLE2], 18ULL);
	KUNIT_EXPECT_EQ(test, p.sum[A], 2ULL);
	KUNIT_EXPECT_EQ(test, kc_sum_parts(&p), kc_part_window(&p));
	/* no stage beyond the table */
	kc_part_idle(&p, 1030, KC_PART_MAX);
	KUNIT_EXPECT_EQ(test, (unsigned int)p.idle, (unsigned int)IDLE2);
}

/* An interval open before the window holds it from its start. */
static void kc_part_open_before(struct kunit *test)
{
	struct kc_part p;

	kc_part_init(&p, 3, IDLE1);
	kc_part_open(&p, 5, C);
	kc_part_idle(&p, 7, IDLE2);	/* before the window: no time to give */
	kc_part_begin(&p, 10);
	kc_part_close(&p, 30, C);
	kc_part_end(&p, 40);
	KUNIT_EXPECT_EQ(test, p.sum[C], 20ULL);
	KUNIT_EXPECT_EQ(test, p.sum[IDLE2], 10ULL);
	KUNIT_EXPECT_EQ(test, p.sum[IDLE1], 0ULL);
	KUNIT_EXPECT_EQ(test, kc_part_window(&p), 30ULL);
}

/* A close never opened (the record came later), and stages out of range. */
static void kc_part_unbalanced(struct kunit *test)
{
	struct kc_part p;

	kc_part_init(&p, 3, IDLE1);
	kc_part_begin(&p, 0);
	kc_part_close(&p, 5, A);
	kc_part_open(&p, 6, 3);		/* not an interval stage */
	kc_part_close(&p, 7, KC_PART_MAX + 1);
	kc_part_end(&p, 10);
	KUNIT_EXPECT_EQ(test, p.sum[IDLE1], 10ULL);
	KUNIT_EXPECT_EQ(test, p.sum[A], 0ULL);
	KUNIT_EXPECT_EQ(test, kc_sum_parts(&p), 10ULL);
}

/* A time that steps back is no time, and the sum stays the window. */
static void kc_part_clock_back(struct kunit *test)
{
	struct kc_part p;

	kc_part_init(&p, 3, IDLE1);
	kc_part_begin(&p, 100);
	kc_part_open(&p, 120, A);
	kc_part_close(&p, 110, A);	/* another CPU's clock, behind */
	kc_part_end(&p, 130);
	KUNIT_EXPECT_EQ(test, p.sum[IDLE1], 20ULL + 10ULL);
	KUNIT_EXPECT_EQ(test, p.sum[A], 0ULL);
	KUNIT_EXPECT_EQ(test, kc_part_window(&p), 30ULL);
	KUNIT_EXPECT_EQ(test, kc_sum_parts(&p), 30ULL);
}

/* The mark keeps the parts before it; begin and end act once. */
static void kc_part_mark_once(struct kunit *test)
{
	struct kc_part p;

	kc_part_init(&p, 3, IDLE1);
	kc_part_begin(&p, 0);
	kc_part_open(&p, 0, B);
	kc_part_mark(&p, 15);
	kc_part_begin(&p, 12);		/* already open: no change */
	kc_part_close(&p, 20, B);
	kc_part_end(&p, 30);
	kc_part_end(&p, 50);		/* already ended */
	kc_part_begin(&p, 60);		/* nor opened again */
	KUNIT_EXPECT_TRUE(test, p.flags & KC_PART_MARKED);
	KUNIT_EXPECT_EQ(test, p.mark[B], 15ULL);
	KUNIT_EXPECT_EQ(test, p.sum[B], 20ULL);
	KUNIT_EXPECT_EQ(test, p.sum[IDLE1], 10ULL);
	KUNIT_EXPECT_EQ(test, kc_part_window(&p), 30ULL);
	KUNIT_EXPECT_FALSE(test, p.flags & KC_PART_OPEN);
}

static struct kunit_case kc_part_cases[] = {
	KUNIT_CASE(kc_part_alone),
	KUNIT_CASE(kc_part_priority),
	KUNIT_CASE(kc_part_same_stage),
	KUNIT_CASE(kc_part_phases),
	KUNIT_CASE(kc_part_open_before),
	KUNIT_CASE(kc_part_unbalanced),
	KUNIT_CASE(kc_part_clock_back),
	KUNIT_CASE(kc_part_mark_once),
	{}
};

static struct kunit_suite kc_part_suite = {
	.name = "kvmchurn_partition",
	.test_cases = kc_part_cases,
};

kunit_test_suite(kc_part_suite);

// SPDX-License-Identifier: GPL-2.0
/*
 * hist_test.c - the histograms (hist.c, and kvmchurn_abi.h's slot layout and
 * percentiles): where a value lands, the sums over every possible CPU, the
 * reset baseline and the percentile math.
 *
 * hist.c is built in here, not through a wrapper: the per-CPU tests write
 * into other CPUs' copies (kc_hists, kc_counters), which only hist.c sees.
 * The debug guest has CPUs that are possible but never online, whose copies
 * no probe can write: a reader must add them all the same.
 */
#include "../../module/hist.c"

#include <kunit/test.h>
#include <linux/cpumask.h>

/* The slot of 2^k (k >= 2): 4 a power from 2^2 = 4, which is slot 4. */
static unsigned int kc_pow_slot(unsigned int k)
{
	return 4 * k - 4;
}

/*
 * Every case inits afresh after cases that reset: kc_hist_init() must start
 * from a zero baseline, or the counters read below zero (it once did not).
 */
static int kc_hist_test_init(struct kunit *test)
{
	return kc_hist_init();
}

static void kc_hist_test_exit(struct kunit *test)
{
	kc_hist_exit();
}

static struct kc_hist_snap *kc_snap_alloc(struct kunit *test)
{
	struct kc_hist_snap *snap = kunit_kzalloc(test, sizeof(*snap),
						  GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, snap);
	return snap;
}

/* The first slot of @snap that differs from @want, or KC_NR_SLOTS. */
static unsigned int kc_slots_diff(const struct kc_hist_snap *snap,
				  const u64 *want)
{
	unsigned int s;

	for (s = 0; s < KC_NR_SLOTS; s++)
		if (snap->slots[s] != want[s])
			return s;
	return KC_NR_SLOTS;
}

static void kc_expect_slots(struct kunit *test,
			    const struct kc_hist_snap *snap, const u64 *want)
{
	unsigned int s = kc_slots_diff(snap, want);

	KUNIT_EXPECT_EQ_MSG(test, s, KC_NR_SLOTS,
			    "slot %u holds %llu, want %llu", s,
			    s < KC_NR_SLOTS ? snap->slots[s] : 0,
			    s < KC_NR_SLOTS ? want[s] : 0);
}

static void kc_slot_small(struct kunit *test)
{
	/* value, slot: 0-3 one each, then 4 sub-buckets a power of two. */
	static const u64 cases[][2] = {
		{ 0, 0 }, { 1, 1 }, { 2, 2 }, { 3, 3 },
		{ 4, 4 }, { 5, 5 }, { 6, 6 }, { 7, 7 },
		{ 8, 8 }, { 9, 8 }, { 10, 9 }, { 11, 9 },
		{ 12, 10 }, { 13, 10 }, { 14, 11 }, { 15, 11 },
		{ 16, 12 }, { 19, 12 }, { 20, 13 }, { 23, 13 },
		{ 24, 14 }, { 27, 14 }, { 28, 15 }, { 31, 15 },
		{ 32, 16 }, { 1000, 35 }, { 1023, 35 }, { 1024, 36 },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++)
		KUNIT_EXPECT_EQ_MSG(test, kc_slot(cases[i][0]),
				    (unsigned int)cases[i][1], "value %llu",
				    cases[i][0]);
	KUNIT_EXPECT_EQ(test, kc_slot(U64_MAX), 251U);
	KUNIT_EXPECT_EQ(test, KC_NR_SLOTS, 252);
}

/* 2^k - 1, 2^k and 2^k + 1 for every k: the slot and bpftrace's bucket. */
static void kc_slot_powers(struct kunit *test)
{
	unsigned int k;

	KUNIT_EXPECT_EQ(test, kc_slot(1ULL), 1U);	/* 2^0 */
	KUNIT_EXPECT_EQ(test, kc_slot(2ULL), 2U);	/* 2^1 */
	KUNIT_EXPECT_EQ(test, kc_plain_of_slot(kc_slot(1)), 1U);
	KUNIT_EXPECT_EQ(test, kc_plain_of_slot(kc_slot(2)), 2U);
	KUNIT_EXPECT_EQ(test, kc_plain_of_slot(kc_slot(3)), 2U);
	for (k = 2; k < 64; k++) {
		u64 x = 1ULL << k;
		/* 2^k + 1 shares 2^k's sub-bucket once it is wider than 1. */
		unsigned int above = k == 2 ? 5 : kc_pow_slot(k);

		KUNIT_EXPECT_EQ_MSG(test, kc_slot(x - 1), kc_pow_slot(k) - 1,
				    "2^%u - 1", k);
		KUNIT_EXPECT_EQ_MSG(test, kc_slot(x), kc_pow_slot(k), "2^%u", k);
		KUNIT_EXPECT_EQ_MSG(test, kc_slot(x + 1), above, "2^%u + 1", k);
		/* bpftrace's [2^k, 2^(k+1)) is its bucket k + 1. */
		KUNIT_EXPECT_EQ_MSG(test, kc_plain_of_slot(kc_slot(x - 1)), k,
				    "2^%u - 1", k);
		KUNIT_EXPECT_EQ_MSG(test, kc_plain_of_slot(kc_slot(x)), k + 1,
				    "2^%u", k);
		KUNIT_EXPECT_EQ_MSG(test, kc_plain_of_slot(kc_slot(x + 1)),
				    k + 1, "2^%u + 1", k);
		KUNIT_EXPECT_EQ_MSG(test, kc_slot_lo(kc_pow_slot(k)), x,
				    "2^%u", k);
	}
	/* The loop's last: 2^63 starts slot 248, the last power's first. */
	KUNIT_EXPECT_EQ(test, kc_pow_slot(63), 248U);
	KUNIT_EXPECT_EQ(test, kc_slot(U64_MAX), 251U);
	KUNIT_EXPECT_EQ(test, kc_plain_of_slot(251), 64U);
}

/* The powers of two and their neighbours go through kc_hist_record too. */
static void kc_slot_powers_recorded(struct kunit *test)
{
	struct kc_hist_snap *snap = kc_snap_alloc(test);
	u64 *want = kunit_kcalloc(test, KC_NR_SLOTS, sizeof(u64), GFP_KERNEL);
	unsigned int k;

	KUNIT_ASSERT_NOT_NULL(test, want);
	kc_hist_record(KC_M_EXIT_MMAP, 0);
	want[0]++;
	kc_hist_record(KC_M_EXIT_MMAP, 1);
	want[1]++;
	kc_hist_record(KC_M_EXIT_MMAP, 2);
	want[2]++;
	for (k = 2; k < 64; k++) {
		kc_hist_record(KC_M_EXIT_MMAP, (1ULL << k) - 1);
		kc_hist_record(KC_M_EXIT_MMAP, 1ULL << k);
		kc_hist_record(KC_M_EXIT_MMAP, (1ULL << k) + 1);
		want[kc_pow_slot(k) - 1]++;
		want[kc_pow_slot(k)]++;
		want[k == 2 ? 5 : kc_pow_slot(k)]++;
	}
	kc_hist_record(KC_M_EXIT_MMAP, U64_MAX);
	want[251]++;

	kc_hist_snapshot(KC_M_EXIT_MMAP, snap);
	KUNIT_EXPECT_EQ(test, snap->count, 3ULL + 3 * 62 + 1);
	kc_expect_slots(test, snap, want);
	/* Nothing went to another metric. */
	kc_hist_snapshot(KC_M_EXIT_FILES, snap);
	KUNIT_EXPECT_EQ(test, snap->count, 0ULL);
}

/* One power of two, 1024..2047, in its four sub-buckets of 256. */
static void kc_slot_sub_buckets(struct kunit *test)
{
	static const u64 values[] = {
		1024, 1279, 1280, 1535, 1536, 1791, 1792, 2047,
	};
	struct kc_hist_snap *snap = kc_snap_alloc(test);
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(values); i++) {
		KUNIT_EXPECT_EQ_MSG(test, kc_slot(values[i]), 36 + i / 2,
				    "value %llu", values[i]);
		kc_hist_record(KC_M_KVM_DESTROY_VM, values[i]);
	}
	KUNIT_EXPECT_EQ(test, kc_slot(1023), 35U);
	KUNIT_EXPECT_EQ(test, kc_slot(2048), 40U);
	KUNIT_EXPECT_EQ(test, kc_slot_lo(36), 1024ULL);
	KUNIT_EXPECT_EQ(test, kc_slot_lo(37), 1280ULL);
	KUNIT_EXPECT_EQ(test, kc_slot_lo(38), 1536ULL);
	KUNIT_EXPECT_EQ(test, kc_slot_lo(39), 1792ULL);
	KUNIT_EXPECT_EQ(test, kc_slot_end(39), 2048ULL);

	kc_hist_snapshot(KC_M_KVM_DESTROY_VM, snap);
	KUNIT_EXPECT_EQ(test, snap->slots[35], 0ULL);
	for (i = 36; i < 40; i++)
		KUNIT_EXPECT_EQ_MSG(test, snap->slots[i], 2ULL, "slot %u", i);
	KUNIT_EXPECT_EQ(test, snap->slots[40], 0ULL);
	/* Together they are bpftrace's [1K, 2K), bucket 11. */
	KUNIT_EXPECT_EQ(test, kc_plain_count(snap->slots, 11), 8ULL);
	KUNIT_EXPECT_EQ(test, kc_plain_count(snap->slots, 10), 0ULL);
	KUNIT_EXPECT_EQ(test, snap->count, 8ULL);
	KUNIT_EXPECT_EQ(test, snap->sum, 12284ULL);
	KUNIT_EXPECT_EQ(test, snap->max, 2047ULL);
}

/* kc_slot_lo is the smallest value of its slot, for every slot. */
static void kc_slot_lo_every_slot(struct kunit *test)
{
	unsigned int s, bad = 0, first = KC_NR_SLOTS;

	for (s = 0; s < KC_NR_SLOTS; s++) {
		u64 lo = kc_slot_lo(s);

		if (kc_slot(lo) != s || (s && kc_slot(lo - 1) != s - 1) ||
		    (s && lo <= kc_slot_lo(s - 1)) ||
		    kc_slot(kc_slot_end(s) - 1) != s) {
			bad++;
			if (first == KC_NR_SLOTS)
				first = s;
		}
	}
	KUNIT_EXPECT_EQ_MSG(test, bad, 0U, "first bad slot %u", first);
	KUNIT_EXPECT_EQ(test, kc_slot_lo(0), 0ULL);
	KUNIT_EXPECT_EQ(test, kc_slot_lo(3), 3ULL);
	KUNIT_EXPECT_EQ(test, kc_slot_lo(4), 4ULL);
	KUNIT_EXPECT_EQ(test, kc_slot_lo(251), 7ULL << 61);
	KUNIT_EXPECT_EQ(test, kc_slot_end(251), U64_MAX);
}

static void kc_hist_record_snapshot(struct kunit *test)
{
	struct kc_hist_snap *snap = kc_snap_alloc(test);
	u64 *want = kunit_kcalloc(test, KC_NR_SLOTS, sizeof(u64), GFP_KERNEL);
	unsigned int m;

	KUNIT_ASSERT_NOT_NULL(test, want);
	kc_hist_record(KC_M_EXIT_MMAP, 0);
	kc_hist_record(KC_M_EXIT_MMAP, 1);
	kc_hist_record(KC_M_EXIT_MMAP, 5);
	kc_hist_record(KC_M_EXIT_MMAP, 1000);
	kc_hist_record(KC_M_EXIT_MMAP, 1000);
	kc_hist_record(KC_M_EXIT_MMAP, 999);
	want[0] = 1;
	want[1] = 1;
	want[5] = 1;
	want[35] = 3;

	kc_hist_snapshot(KC_M_EXIT_MMAP, snap);
	KUNIT_EXPECT_EQ(test, snap->count, 6ULL);
	KUNIT_EXPECT_EQ(test, snap->sum, 3005ULL);
	KUNIT_EXPECT_EQ(test, snap->max, 1000ULL);
	kc_expect_slots(test, snap, want);

	for (m = 0; m < KC_NR_METRICS; m++) {
		if (m == KC_M_EXIT_MMAP)
			continue;
		kc_hist_snapshot(m, snap);
		KUNIT_EXPECT_EQ_MSG(test, snap->count + snap->sum + snap->max,
				    0ULL, "metric %s", kc_metric_name(m));
	}
}

/*
 * The maximum keeps 48 bits beside the reset generation (hist.c): a larger
 * value counts and sums in full, but its maximum is 2^48 - 1.
 */
static void kc_hist_max_bits(struct kunit *test)
{
	struct kc_hist_snap *snap = kc_snap_alloc(test);
	const u64 top = (1ULL << 48) - 1;

	kc_hist_record(KC_M_SIGNAL_TO_EXIT, top);
	kc_hist_snapshot(KC_M_SIGNAL_TO_EXIT, snap);
	KUNIT_EXPECT_EQ(test, snap->max, top);

	kc_hist_record(KC_M_SIGNAL_TO_EXIT, 3);
	kc_hist_snapshot(KC_M_SIGNAL_TO_EXIT, snap);
	KUNIT_EXPECT_EQ(test, snap->max, top);

	kc_hist_record(KC_M_EXIT_TO_REAP, U64_MAX);
	kc_hist_snapshot(KC_M_EXIT_TO_REAP, snap);
	KUNIT_EXPECT_EQ(test, snap->count, 1ULL);
	KUNIT_EXPECT_EQ(test, snap->sum, U64_MAX);
	KUNIT_EXPECT_EQ(test, snap->slots[251], 1ULL);
	KUNIT_EXPECT_EQ(test, snap->max, top);
}

static void kc_counters_count(struct kunit *test)
{
	unsigned int c, i;

	for (c = 0; c < KC_NR_COUNTERS; c++)
		for (i = 0; i <= c; i++)
			kc_count(c);
	for (c = 0; c < KC_NR_COUNTERS; c++)
		KUNIT_EXPECT_EQ_MSG(test, kc_counter_read(c), c + 1ULL,
				    "counter %s", kc_counter_name(c));
}

/*
 * Each possible CPU's copy gets 1 << cpu: the sum is the possible mask, so
 * a CPU counted twice or left out shows.
 */
static u64 kc_possible_mask(struct kunit *test)
{
	kunit_info(test, "%u possible CPUs, %u online\n", num_possible_cpus(),
		   num_online_cpus());
	if (num_possible_cpus() < 2)
		kunit_skip(test, "one possible CPU: boot with more (QEMU -smp 4, maxcpus=2)");
	if (nr_cpu_ids > 32)
		kunit_skip(test, "%u possible CPU ids: more than this test encodes",
			   nr_cpu_ids);
	return cpumask_bits(cpu_possible_mask)[0];
}

static void kc_percpu_sum_every_cpu(struct kunit *test)
{
	u64 mask = kc_possible_mask(test);
	u64 __percpu *counter = alloc_percpu(u64);
	int cpu;

	KUNIT_ASSERT_TRUE(test, counter);
	KUNIT_EXPECT_EQ(test, kc_percpu_sum(counter), 0ULL);
	for_each_possible_cpu(cpu) {
		u64 *c = per_cpu_ptr(counter, cpu);

		*c = 1ULL << cpu;
	}
	KUNIT_EXPECT_EQ(test, kc_percpu_sum(counter), mask);
	/* And the high bits of each copy are summed as well. */
	for_each_possible_cpu(cpu) {
		u64 *c = per_cpu_ptr(counter, cpu);

		*c += 1ULL << (cpu + 32);
	}
	KUNIT_EXPECT_EQ(test, kc_percpu_sum(counter), mask | mask << 32);
	free_percpu(counter);
}

static void kc_counters_every_cpu(struct kunit *test)
{
	u64 mask = kc_possible_mask(test);
	int cpu;

	for_each_possible_cpu(cpu) {
		u64 *c = per_cpu_ptr(kc_counters + KC_C_REAP, cpu);

		*c = 1ULL << cpu;
	}
	KUNIT_EXPECT_EQ(test, kc_counter_read(KC_C_REAP), mask);
	KUNIT_EXPECT_EQ(test, kc_counter_read(KC_C_EXIT), 0ULL);
	kc_count(KC_C_REAP);
	KUNIT_EXPECT_EQ(test, kc_counter_read(KC_C_REAP), mask + 1);
}

static void kc_snapshot_every_cpu(struct kunit *test)
{
	struct kc_hist_snap *snap = kc_snap_alloc(test);
	u64 mask = kc_possible_mask(test);
	int cpu;

	for_each_possible_cpu(cpu) {
		struct kc_hist_cpu *h = per_cpu_ptr(kc_hists[KC_M_EXIT_MMAP], cpu);

		h->slots[10] += 1ULL << cpu;	/* [12, 14) */
		h->slots[100 + cpu] += 1;
		h->count += 1ULL << cpu;
		h->sum += 1000ULL << cpu;
		/* The CPU of the highest id has the largest value. */
		h->max = kc_max_pack(100 * (cpu + 1));
	}
	kc_hist_snapshot(KC_M_EXIT_MMAP, snap);
	KUNIT_EXPECT_EQ(test, snap->count, mask);
	KUNIT_EXPECT_EQ(test, snap->sum, 1000 * mask);
	KUNIT_EXPECT_EQ(test, snap->slots[10], mask);
	for_each_possible_cpu(cpu)
		KUNIT_EXPECT_EQ_MSG(test, snap->slots[100 + cpu], 1ULL,
				    "cpu %d", cpu);
	KUNIT_EXPECT_EQ(test, snap->max, 100ULL * nr_cpu_ids);

	/* A record on this CPU adds to what the others hold. */
	kc_hist_record(KC_M_EXIT_MMAP, 13);
	kc_hist_snapshot(KC_M_EXIT_MMAP, snap);
	KUNIT_EXPECT_EQ(test, snap->count, mask + 1);
	KUNIT_EXPECT_EQ(test, snap->slots[10], mask + 1);
	KUNIT_EXPECT_EQ(test, snap->sum, 1000 * mask + 13);
	KUNIT_EXPECT_EQ(test, snap->max, 100ULL * nr_cpu_ids);

	/* After a reset, no CPU's old maximum counts. */
	kc_hist_reset();
	kc_hist_snapshot(KC_M_EXIT_MMAP, snap);
	KUNIT_EXPECT_EQ(test, snap->count, 0ULL);
	KUNIT_EXPECT_EQ(test, snap->max, 0ULL);
	/* A CPU that records after it counts from the reset. */
	for_each_possible_cpu(cpu) {
		struct kc_hist_cpu *h = per_cpu_ptr(kc_hists[KC_M_EXIT_MMAP], cpu);

		h->slots[4] += 1;
		h->count += 1;
		h->sum += 4;
		h->max = kc_max_pack(4 + cpu);
	}
	kc_hist_snapshot(KC_M_EXIT_MMAP, snap);
	KUNIT_EXPECT_EQ(test, snap->count, (u64)num_possible_cpus());
	KUNIT_EXPECT_EQ(test, snap->slots[4], (u64)num_possible_cpus());
	KUNIT_EXPECT_EQ(test, snap->slots[10], 0ULL);
	KUNIT_EXPECT_EQ(test, snap->sum, 4ULL * num_possible_cpus());
	KUNIT_EXPECT_EQ(test, snap->max, 3ULL + nr_cpu_ids);
}

/* Every slot, count and sum of @snap is 0: nothing went below the baseline. */
static void kc_expect_empty(struct kunit *test, enum kc_metric m,
			    struct kc_hist_snap *snap)
{
	unsigned int s;
	u64 any = 0;

	kc_hist_snapshot(m, snap);
	for (s = 0; s < KC_NR_SLOTS; s++)
		any |= snap->slots[s];
	KUNIT_EXPECT_EQ_MSG(test, any, 0ULL, "slots of %s", kc_metric_name(m));
	KUNIT_EXPECT_EQ_MSG(test, snap->count, 0ULL, "%s", kc_metric_name(m));
	KUNIT_EXPECT_EQ_MSG(test, snap->sum, 0ULL, "%s", kc_metric_name(m));
	KUNIT_EXPECT_EQ_MSG(test, snap->max, 0ULL, "%s", kc_metric_name(m));
}

/*
 * The start-up and teardown groups are cold (one histogram, not one a CPU),
 * nothing else; a cold metric answers as a per-CPU one does, across a
 * reset too.
 */
static void kc_hist_cold_metrics(struct kunit *test)
{
	struct kc_hist_snap *snap = kc_snap_alloc(test);
	struct kc_hist_snap *hot = kc_snap_alloc(test);
	unsigned int m, n = 0;
	u64 v;

	for (m = 0; m < KC_NR_METRICS; m++) {
		KUNIT_EXPECT_EQ_MSG(test, kc_hist_cold(m),
				    kc_metric_desc(m)->group == KC_G_TEARDOWN ||
				    kc_metric_desc(m)->group == KC_G_STARTUP,
				    "%s", kc_metric_name(m));
		n += kc_hist_cold(m);
	}
	KUNIT_EXPECT_EQ(test, n, (unsigned int)KC_NR_COLD);

	for (v = 1; v <= 100; v++) {
		kc_hist_record(KC_M_TD_OTHER, v * 37);
		kc_hist_record(KC_M_EXIT_MMAP, v * 37);
	}
	kc_hist_snapshot(KC_M_TD_OTHER, snap);
	kc_hist_snapshot(KC_M_EXIT_MMAP, hot);
	KUNIT_EXPECT_EQ(test, snap->count, 100ULL);
	KUNIT_EXPECT_EQ(test, snap->sum, 37ULL * 5050);
	KUNIT_EXPECT_EQ(test, snap->max, 3700ULL);
	KUNIT_EXPECT_EQ(test, memcmp(snap, hot, sizeof(*snap)), 0);
	kc_expect_empty(test, KC_M_TD_WAKE, snap);

	kc_hist_reset();
	kc_expect_empty(test, KC_M_TD_OTHER, snap);
	kc_hist_record(KC_M_TD_OTHER, 5);
	kc_hist_snapshot(KC_M_TD_OTHER, snap);
	KUNIT_EXPECT_EQ(test, snap->count, 1ULL);
	KUNIT_EXPECT_EQ(test, snap->sum, 5ULL);
	KUNIT_EXPECT_EQ(test, snap->max, 5ULL);
	KUNIT_EXPECT_EQ(test, snap->slots[kc_slot(5)], 1ULL);
}

static void kc_reset_baseline(struct kunit *test)
{
	struct kc_hist_snap *snap = kc_snap_alloc(test);
	u64 *want = kunit_kcalloc(test, KC_NR_SLOTS, sizeof(u64), GFP_KERNEL);
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, want);
	for (i = 0; i < 10; i++)
		kc_hist_record(KC_M_EXIT_MMAP, 1000 + i);
	kc_hist_record(KC_M_RECLAIM_DIRECT, 1);
	kc_count(KC_C_EXIT);
	kc_count(KC_C_EXIT);
	kc_count(KC_C_EXIT);
	kc_count(KC_C_SIGKILL);

	kc_hist_reset();
	for (i = 0; i < KC_NR_METRICS; i++)
		kc_expect_empty(test, i, snap);
	for (i = 0; i < KC_NR_COUNTERS; i++)
		KUNIT_EXPECT_EQ_MSG(test, kc_counter_read(i), 0ULL, "counter %s",
				    kc_counter_name(i));

	/* Only what comes after the reset, and a smaller maximum than before. */
	kc_hist_record(KC_M_EXIT_MMAP, 7);
	kc_hist_record(KC_M_EXIT_MMAP, 7);
	kc_hist_record(KC_M_EXIT_MMAP, 300);
	kc_count(KC_C_EXIT);
	kc_count(KC_C_EXIT);
	want[7] = 2;
	want[28] = 1;	/* 300: 2^8, sub-bucket 0: [256, 320) */
	kc_hist_snapshot(KC_M_EXIT_MMAP, snap);
	KUNIT_EXPECT_EQ(test, snap->count, 3ULL);
	KUNIT_EXPECT_EQ(test, snap->sum, 314ULL);
	KUNIT_EXPECT_EQ(test, snap->max, 300ULL);
	kc_expect_slots(test, snap, want);
	kc_expect_empty(test, KC_M_RECLAIM_DIRECT, snap);
	KUNIT_EXPECT_EQ(test, kc_counter_read(KC_C_EXIT), 2ULL);
	KUNIT_EXPECT_EQ(test, kc_counter_read(KC_C_SIGKILL), 0ULL);

	/* A reset of a reset, then nothing: still empty, not negative. */
	kc_hist_reset();
	kc_hist_reset();
	for (i = 0; i < KC_NR_METRICS; i++)
		kc_expect_empty(test, i, snap);
	for (i = 0; i < KC_NR_COUNTERS; i++)
		KUNIT_EXPECT_EQ_MSG(test, kc_counter_read(i), 0ULL, "counter %s",
				    kc_counter_name(i));

	kc_hist_record(KC_M_RECLAIM_DIRECT, 2);
	kc_hist_snapshot(KC_M_RECLAIM_DIRECT, snap);
	KUNIT_EXPECT_EQ(test, snap->count, 1ULL);
	KUNIT_EXPECT_EQ(test, snap->slots[2], 1ULL);
	KUNIT_EXPECT_EQ(test, snap->slots[1], 0ULL);
	KUNIT_EXPECT_EQ(test, snap->max, 2ULL);
}

/* Slots of a distribution, kc_slot() of each value (values in an array). */
static u64 *kc_slots_of(struct kunit *test, const u64 *values,
			unsigned int n)
{
	u64 *slots = kunit_kcalloc(test, KC_NR_SLOTS, sizeof(u64), GFP_KERNEL);
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, slots);
	for (i = 0; i < n; i++)
		slots[kc_slot(values[i])]++;
	return slots;
}

static void kc_percentile_one_to_hundred(struct kunit *test)
{
	u64 *slots = kunit_kcalloc(test, KC_NR_SLOTS, sizeof(u64), GFP_KERNEL);
	u64 v;

	KUNIT_ASSERT_NOT_NULL(test, slots);
	for (v = 1; v <= 100; v++)
		slots[kc_slot(v)]++;
	/*
	 * p50: rank 50 is the 3rd of the 8 values in [48, 56) (47 below):
	 * 48 + 8 * 3 / 9 = 50. p90: rank 90, 11th of 16 in [80, 96):
	 * 80 + 16 * 11 / 17 = 90. p99: 4th of 5 in [96, 112): 96 + 16 * 4 / 6
	 * = 106, above the maximum, so 100.
	 */
	KUNIT_EXPECT_EQ(test, kc_percentile(slots, 100, 500, 100), 50ULL);
	KUNIT_EXPECT_EQ(test, kc_percentile(slots, 100, 900, 100), 90ULL);
	KUNIT_EXPECT_EQ(test, kc_percentile_slots(slots, 100, 990), 106ULL);
	KUNIT_EXPECT_EQ(test, kc_percentile(slots, 100, 990, 100), 100ULL);
	KUNIT_EXPECT_EQ(test, kc_percentile(slots, 100, 1000, 100), 100ULL);
	/* Ranks 1 and below are the first value; 0-3 are exact. */
	KUNIT_EXPECT_EQ(test, kc_percentile(slots, 100, 0, 100), 1ULL);
	KUNIT_EXPECT_EQ(test, kc_percentile(slots, 100, 10, 100), 1ULL);
	KUNIT_EXPECT_EQ(test, kc_percentile(slots, 100, 20, 100), 2ULL);
	KUNIT_EXPECT_EQ(test, kc_percentile(slots, 100, 30, 100), 3ULL);
	/* Rank 4: slot 4 holds 4 alone: 4 + 1 * 1 / 2 = 4. */
	KUNIT_EXPECT_EQ(test, kc_percentile(slots, 100, 40, 100), 4ULL);
	/* A smaller maximum clamps every result. */
	KUNIT_EXPECT_EQ(test, kc_percentile(slots, 100, 500, 30), 30ULL);
}

static void kc_percentile_known(struct kunit *test)
{
	static const u64 one_k[] = { 1000 };
	static const u64 top[] = { U64_MAX };
	static const u64 small[] = { 0, 1, 2, 3 };
	static const u64 fives[] = { 5, 5, 5, 5, 6, 6, 6, 6, 6, 6 };
	u64 *slots;

	/* [896, 1024): 896 + 128 * 1 / 2 = 960, under the maximum 1000. */
	slots = kc_slots_of(test, one_k, ARRAY_SIZE(one_k));
	KUNIT_EXPECT_EQ(test, kc_percentile(slots, 1, 500, 1000), 960ULL);
	KUNIT_EXPECT_EQ(test, kc_percentile(slots, 1, 990, 1000), 960ULL);
	KUNIT_EXPECT_EQ(test, kc_percentile(slots, 1, 990, 900), 900ULL);

	/* [7 << 61, U64_MAX]: 7 << 61 + (2^61 - 1) / 2. */
	slots = kc_slots_of(test, top, ARRAY_SIZE(top));
	KUNIT_EXPECT_EQ(test, kc_percentile(slots, 1, 500, U64_MAX),
			17293822569102704639ULL);
	KUNIT_EXPECT_EQ(test, kc_percentile(slots, 1, 990, U64_MAX),
			17293822569102704639ULL);

	slots = kc_slots_of(test, small, ARRAY_SIZE(small));
	KUNIT_EXPECT_EQ(test, kc_percentile(slots, 4, 250, 3), 0ULL);
	KUNIT_EXPECT_EQ(test, kc_percentile(slots, 4, 500, 3), 1ULL);
	KUNIT_EXPECT_EQ(test, kc_percentile(slots, 4, 750, 3), 2ULL);
	KUNIT_EXPECT_EQ(test, kc_percentile(slots, 4, 990, 3), 3ULL);

	/* Ranks 5-10 are 6s, in a slot one wide: 6 + 1 * k / 7 = 6. */
	slots = kc_slots_of(test, fives, ARRAY_SIZE(fives));
	KUNIT_EXPECT_EQ(test, kc_percentile(slots, 10, 400, 6), 5ULL);
	KUNIT_EXPECT_EQ(test, kc_percentile(slots, 10, 500, 6), 6ULL);
	KUNIT_EXPECT_EQ(test, kc_percentile(slots, 10, 990, 6), 6ULL);

	/* Nothing recorded: 0, whatever the slots and the maximum say. */
	KUNIT_EXPECT_EQ(test, kc_percentile(slots, 0, 500, 12345), 0ULL);
	KUNIT_EXPECT_EQ(test, kc_percentile(slots, 0, 990, 0), 0ULL);
	/* A maximum of 0 (all zeros recorded) clamps to 0. */
	KUNIT_EXPECT_EQ(test, kc_percentile(slots, 10, 990, 0), 0ULL);
}

/* The same numbers through kc_hist_record and kc_hist_snapshot. */
static void kc_percentile_of_snapshot(struct kunit *test)
{
	struct kc_hist_snap *snap = kc_snap_alloc(test);
	u64 v;

	for (v = 1; v <= 100; v++)
		kc_hist_record(KC_M_EXIT_FILES, v);
	kc_hist_snapshot(KC_M_EXIT_FILES, snap);
	KUNIT_ASSERT_EQ(test, snap->count, 100ULL);
	KUNIT_EXPECT_EQ(test, snap->sum, 5050ULL);
	KUNIT_EXPECT_EQ(test, snap->max, 100ULL);
	KUNIT_EXPECT_EQ(test,
			kc_percentile(snap->slots, snap->count, 500, snap->max),
			50ULL);
	KUNIT_EXPECT_EQ(test,
			kc_percentile(snap->slots, snap->count, 900, snap->max),
			90ULL);
	KUNIT_EXPECT_EQ(test,
			kc_percentile(snap->slots, snap->count, 990, snap->max),
			100ULL);
}

static struct kunit_case kc_hist_cases[] = {
	KUNIT_CASE(kc_slot_small),
	KUNIT_CASE(kc_slot_powers),
	KUNIT_CASE(kc_slot_powers_recorded),
	KUNIT_CASE(kc_slot_sub_buckets),
	KUNIT_CASE(kc_slot_lo_every_slot),
	KUNIT_CASE(kc_hist_record_snapshot),
	KUNIT_CASE(kc_hist_max_bits),
	KUNIT_CASE(kc_counters_count),
	KUNIT_CASE(kc_percpu_sum_every_cpu),
	KUNIT_CASE(kc_counters_every_cpu),
	KUNIT_CASE(kc_snapshot_every_cpu),
	KUNIT_CASE(kc_hist_cold_metrics),
	KUNIT_CASE(kc_reset_baseline),
	KUNIT_CASE(kc_percentile_one_to_hundred),
	KUNIT_CASE(kc_percentile_known),
	KUNIT_CASE(kc_percentile_of_snapshot),
	{}
};

static struct kunit_suite kc_hist_suite = {
	.name = "kvmchurn_hist",
	.init = kc_hist_test_init,
	.exit = kc_hist_test_exit,
	.test_cases = kc_hist_cases,
};

kunit_test_suite(kc_hist_suite);

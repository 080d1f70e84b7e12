// SPDX-License-Identifier: GPL-2.0
/*
 * hist.c - per-CPU histograms and event counters.
 *
 * Probes only ever add to their own CPU's counters with this_cpu_*()
 * operations: no lock and no shared cache line in probe context. Readers sum
 * the CPUs. The slot arithmetic is kvmchurn_rules.h's.
 *
 * A reset never writes a probe's counters: it records the sums at that
 * moment as a baseline that readers subtract (per-CPU counters only grow, so
 * a later sum is never below it). The per-CPU maximum carries the reset
 * generation in its top bits instead: one from an older generation is not
 * counted.
 *
 * The teardown's window and parts are recorded once a process, when its
 * leader is freed: each is one histogram under a lock (kc_hist_cold()),
 * which costs nothing at that rate, where per-CPU copies would cost 2 KiB
 * a possible CPU each.
 */
#include <linux/atomic.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/slab.h>

#include "kvmchurn.h"

#define KC_MAX_VALUE_BITS	48
#define KC_MAX_VALUE_MASK	((1ULL << KC_MAX_VALUE_BITS) - 1)

struct kc_hist_cpu {
	u64 slots[KC_NR_SLOTS];
	u64 count;
	u64 sum;
	u64 max;		/* generation << 48 | value */
};

/* One allocation a metric: the per-CPU allocator caps one at 32 KiB. */
static struct kc_hist_cpu __percpu *kc_hists[KC_NR_METRICS];
/* The cold metrics' histograms instead, one each, under kc_cold_lock. */
static struct kc_hist_cpu *kc_cold[KC_NR_METRICS];
static DEFINE_RAW_SPINLOCK(kc_cold_lock);
static u64 __percpu *kc_counters;		/* [KC_NR_COUNTERS] */
static atomic_t kc_max_gen = ATOMIC_INIT(0);

/* The sums at the last reset; readers and reset hold kc_baseline_lock. */
static struct kc_hist_snap *kc_base_hists;	/* [KC_NR_METRICS] */
static u64 kc_base_counters[KC_NR_COUNTERS];
static DEFINE_MUTEX(kc_baseline_lock);

static inline u64 kc_max_pack(u64 value)
{
	u64 gen = (u16)atomic_read(&kc_max_gen);

	return gen << KC_MAX_VALUE_BITS | min(value, KC_MAX_VALUE_MASK);
}

/* A cold metric's record: one histogram, the lock held. */
static void kc_hist_record_cold(enum kc_metric m, u64 value)
{
	struct kc_hist_cpu *h = kc_cold[m];
	unsigned long flags;
	u64 max;

	raw_spin_lock_irqsave(&kc_cold_lock, flags);
	h->slots[kc_slot(value)]++;
	h->count++;
	h->sum += value;
	max = kc_max_pack(value);
	if ((h->max >> KC_MAX_VALUE_BITS) != (max >> KC_MAX_VALUE_BITS) ||
	    (h->max & KC_MAX_VALUE_MASK) < value)
		WRITE_ONCE(h->max, max);
	raw_spin_unlock_irqrestore(&kc_cold_lock, flags);
}

void kc_hist_record(enum kc_metric m, u64 value)
{
	struct kc_hist_cpu __percpu *h = kc_hists[m];
	u64 new = kc_max_pack(value);
	u64 old;

	if (kc_hist_cold(m)) {
		kc_hist_record_cold(m, value);
		return;
	}
	this_cpu_inc(h->slots[kc_slot(value)]);
	this_cpu_inc(h->count);
	this_cpu_add(h->sum, value);

	/* Bounded: only a nested record on this CPU can make this retry. */
	old = this_cpu_read(h->max);
	while ((old >> KC_MAX_VALUE_BITS) != (new >> KC_MAX_VALUE_BITS) ||
	       (old & KC_MAX_VALUE_MASK) < value) {
		u64 seen = this_cpu_cmpxchg(h->max, old, new);

		if (seen == old)
			break;
		old = seen;
	}
}

void kc_count(enum kc_counter c)
{
	this_cpu_inc(kc_counters[c]);
}

/* The sums over all CPUs since the module was loaded. */
static void kc_hist_sum(enum kc_metric m, struct kc_hist_snap *snap)
{
	u64 gen = (u16)atomic_read(&kc_max_gen);
	unsigned int i;
	int cpu;

	memset(snap, 0, sizeof(*snap));
	if (kc_hist_cold(m)) {
		const struct kc_hist_cpu *h = kc_cold[m];
		unsigned long flags;

		raw_spin_lock_irqsave(&kc_cold_lock, flags);
		memcpy(snap->slots, h->slots, sizeof(snap->slots));
		snap->count = h->count;
		snap->sum = h->sum;
		if ((h->max >> KC_MAX_VALUE_BITS) == gen)
			snap->max = h->max & KC_MAX_VALUE_MASK;
		raw_spin_unlock_irqrestore(&kc_cold_lock, flags);
		return;
	}
	for_each_possible_cpu(cpu) {
		const struct kc_hist_cpu *h = per_cpu_ptr(kc_hists[m], cpu);
		u64 max = READ_ONCE(h->max);

		for (i = 0; i < KC_NR_SLOTS; i++)
			snap->slots[i] += READ_ONCE(h->slots[i]);
		snap->count += READ_ONCE(h->count);
		snap->sum += READ_ONCE(h->sum);
		if ((max >> KC_MAX_VALUE_BITS) == gen)
			snap->max = max(snap->max, max & KC_MAX_VALUE_MASK);
	}
}

/* The sum of a per-CPU counter over all CPUs. */
u64 kc_percpu_sum(u64 __percpu *counter)
{
	u64 sum = 0;
	int cpu;

	if (!counter)		/* a probe never set up has counted nothing */
		return 0;
	for_each_possible_cpu(cpu)
		sum += READ_ONCE(*per_cpu_ptr(counter, cpu));
	return sum;
}

static u64 kc_counter_sum(enum kc_counter c)
{
	return kc_percpu_sum(kc_counters + c);
}

/* Since the last reset. */
void kc_hist_snapshot(enum kc_metric m, struct kc_hist_snap *snap)
{
	const struct kc_hist_snap *base = &kc_base_hists[m];
	unsigned int i;

	mutex_lock(&kc_baseline_lock);
	kc_hist_sum(m, snap);
	for (i = 0; i < KC_NR_SLOTS; i++)
		snap->slots[i] -= base->slots[i];
	snap->count -= base->count;
	snap->sum -= base->sum;
	mutex_unlock(&kc_baseline_lock);
}

u64 kc_counter_read(enum kc_counter c)
{
	u64 v;

	mutex_lock(&kc_baseline_lock);
	v = kc_counter_sum(c) - kc_base_counters[c];
	mutex_unlock(&kc_baseline_lock);
	return v;
}

void kc_hist_reset(void)
{
	unsigned int i;

	mutex_lock(&kc_baseline_lock);
	atomic_inc(&kc_max_gen);
	for (i = 0; i < KC_NR_METRICS; i++)
		kc_hist_sum(i, &kc_base_hists[i]);
	for (i = 0; i < KC_NR_COUNTERS; i++)
		kc_base_counters[i] = kc_counter_sum(i);
	mutex_unlock(&kc_baseline_lock);
}

void kc_hist_mem(struct kc_mem *mem)
{
	mem->percpu += (KC_NR_METRICS - KC_NR_COLD) * sizeof(struct kc_hist_cpu) +
		       KC_NR_COUNTERS * sizeof(u64);
	mem->slab += kc_kmalloc_size(KC_NR_METRICS * sizeof(*kc_base_hists)) +
		     KC_NR_COLD * kc_kmalloc_size(sizeof(struct kc_hist_cpu));
}

static void kc_hists_free(void)
{
	unsigned int m;

	for (m = 0; m < KC_NR_METRICS; m++) {
		free_percpu(kc_hists[m]);
		kfree(kc_cold[m]);
		kc_hists[m] = NULL;
		kc_cold[m] = NULL;
	}
}

int kc_hist_init(void)
{
	unsigned int m;

	memset(kc_base_counters, 0, sizeof(kc_base_counters));
	kc_base_hists = kcalloc(KC_NR_METRICS, sizeof(*kc_base_hists),
				GFP_KERNEL);
	if (!kc_base_hists)
		return -ENOMEM;
	for (m = 0; m < KC_NR_METRICS; m++) {
		if (kc_hist_cold(m))
			kc_cold[m] = kzalloc(sizeof(*kc_cold[m]), GFP_KERNEL);
		else
			kc_hists[m] = alloc_percpu(struct kc_hist_cpu);
		if (!kc_hists[m] && !kc_cold[m])
			goto err_hists;
	}
	kc_counters = __alloc_percpu(sizeof(u64) * KC_NR_COUNTERS,
				     __alignof__(u64));
	if (!kc_counters)
		goto err_hists;
	return 0;

err_hists:
	kc_hists_free();
	kfree(kc_base_hists);
	kc_base_hists = NULL;
	return -ENOMEM;
}

void kc_hist_exit(void)
{
	free_percpu(kc_counters);
	kc_hists_free();
	kfree(kc_base_hists);
	kc_counters = NULL;
	kc_base_hists = NULL;
}

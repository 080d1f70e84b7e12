// SPDX-License-Identifier: GPL-2.0
/*
 * pairs.c - pairs a start event with its end event (leader exit -> free),
 * without allocating in probe context.
 *
 * The table is allocated once at load time: buckets of KC_PAIR_WAYS entries,
 * each bucket under its own raw spinlock taken with interrupts off, so that
 * probes may use it from process, softirq and hard-IRQ context, on
 * PREEMPT_RT too. Work per operation is bounded by KC_PAIR_WAYS. An entry
 * older than KC_PAIR_MAX_AGE (an end event that never came, say a zombie
 * that is never reaped) may be taken over; an insert that finds its bucket
 * full of live entries is dropped and counted.
 */
#include <linux/hash.h>
#include <linux/log2.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/timekeeping.h>
#include <linux/vmalloc.h>

#include "kvmchurn.h"

#define KC_PAIR_WAYS		8
#define KC_PAIR_MAX_AGE		(600ULL * NSEC_PER_SEC)

struct kc_pair {
	u64 key;		/* kind << 32 | id; 0 when free */
	u64 ts;
};

struct kc_pair_bucket {
	raw_spinlock_t lock;
	unsigned int used;
	struct kc_pair ways[KC_PAIR_WAYS];
};

static struct kc_pair_bucket *kc_buckets;
static unsigned int kc_bucket_bits;
static atomic64_t kc_pairs_dropped = ATOMIC64_INIT(0);
static atomic64_t kc_pairs_aged = ATOMIC64_INIT(0);

/* Kind 0 is valid, so keys are offset by one to keep 0 meaning "free". */
static inline u64 kc_pair_key(enum kc_pair_kind kind, u32 id)
{
	return ((u64)kind + 1) << 32 | id;
}

static inline struct kc_pair_bucket *kc_pair_bucket(u64 key)
{
	/* hash_64() cannot give 0 bits: a one-bucket table has no hash. */
	return &kc_buckets[kc_bucket_bits ? hash_64(key, kc_bucket_bits) : 0];
}

void kc_pair_insert(enum kc_pair_kind kind, u32 id, u64 ts)
{
	u64 key = kc_pair_key(kind, id);
	struct kc_pair_bucket *b = kc_pair_bucket(key);
	struct kc_pair *slot = NULL, *oldest = NULL;
	unsigned long flags;
	unsigned int i;

	raw_spin_lock_irqsave(&b->lock, flags);
	for (i = 0; i < KC_PAIR_WAYS; i++) {
		struct kc_pair *e = &b->ways[i];

		/* A key that is still there (pid reused) is overwritten. */
		if (e->key == key) {
			slot = e;
			break;
		}
		if (!e->key && !slot)
			slot = e;
		else if (e->key && (!oldest || e->ts < oldest->ts))
			oldest = e;
	}
	if (!slot && oldest && ts - oldest->ts > KC_PAIR_MAX_AGE) {
		atomic64_inc(&kc_pairs_aged);
		slot = oldest;
		WRITE_ONCE(b->used, b->used - 1);
	}
	if (slot) {
		if (slot->key != key)
			WRITE_ONCE(b->used, b->used + 1);
		slot->key = key;
		slot->ts = ts;
	} else {
		atomic64_inc(&kc_pairs_dropped);
	}
	raw_spin_unlock_irqrestore(&b->lock, flags);
}

bool kc_pair_take(enum kc_pair_kind kind, u32 id, u64 *ts)
{
	u64 key = kc_pair_key(kind, id);
	struct kc_pair_bucket *b = kc_pair_bucket(key);
	unsigned long flags;
	bool found = false;
	unsigned int i;

	/* Most calls (every task freed on the host) find an empty bucket. */
	if (!READ_ONCE(b->used))
		return false;

	raw_spin_lock_irqsave(&b->lock, flags);
	for (i = 0; i < KC_PAIR_WAYS; i++) {
		struct kc_pair *e = &b->ways[i];

		if (e->key == key) {
			*ts = e->ts;
			e->key = 0;
			WRITE_ONCE(b->used, b->used - 1);
			found = true;
			break;
		}
	}
	raw_spin_unlock_irqrestore(&b->lock, flags);
	return found;
}

void kc_pairs_stats(struct kc_pair_stats *st)
{
	unsigned int i, nr = 1U << kc_bucket_bits;

	st->capacity = nr * KC_PAIR_WAYS;
	st->used = 0;
	for (i = 0; i < nr; i++)
		st->used += READ_ONCE(kc_buckets[i].used);
	st->dropped = atomic64_read(&kc_pairs_dropped);
	st->aged = atomic64_read(&kc_pairs_aged);
}

int kc_pairs_init(unsigned int capacity)
{
	unsigned int i, nr;

	if (capacity < KC_PAIR_WAYS || capacity > (1U << 24))
		return -EINVAL;
	nr = roundup_pow_of_two(capacity) / KC_PAIR_WAYS;
	kc_bucket_bits = ilog2(nr);
	kc_buckets = vzalloc(array_size(nr, sizeof(*kc_buckets)));
	if (!kc_buckets)
		return -ENOMEM;
	for (i = 0; i < nr; i++)
		raw_spin_lock_init(&kc_buckets[i].lock);
	return 0;
}

void kc_pairs_exit(void)
{
	vfree(kc_buckets);
	kc_buckets = NULL;
}
